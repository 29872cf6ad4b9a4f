/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * files.h - test support: whole-file reading for the test programs (every C file of
 * tests/support is linked into every test).
 */
#ifndef SP_TESTS_SUPPORT_FILES_H
#define SP_TESTS_SUPPORT_FILES_H

#include <stddef.h>

/* The bytes of path, NUL-terminated, in a malloc'd buffer (*len, when given, is the size without
 * the NUL), or NULL when the file cannot be opened or read. */
char *tsupport_slurp(const char *path, size_t *len);

/* The upstream test policies carried in tests/data/policy/upstream (secilc's and setools' *.33,
 * each directory in name order, then libsepol's policy.bin), as a malloc'd NULL-terminated array
 * of malloc'd paths (free with tsupport_paths_free); NULL if a directory cannot be read. */
char **tsupport_upstream_policies(size_t *n);
void tsupport_paths_free(char **paths);

#endif
