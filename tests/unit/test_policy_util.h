/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_policy_util.h - shared helpers of the policy tests: whole-file reads, xz decompression
 * through a pipe from `xz -dc`, and a small deterministic PRNG (fixed seeds, reproducible runs).
 */
#ifndef TEST_POLICY_UTIL_H
#define TEST_POLICY_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int tp_read_stream(FILE *f, unsigned char **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *b = malloc(cap);
	if (!b)
		return -1;
	for (;;) {
		if (n == cap) {
			unsigned char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		size_t r = fread(b + n, 1, cap - n, f);
		if (!r)
			break;
		n += r;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* Read a file; names ending in .xz are decompressed by `xz -dc`.  Returns 0 or -1. */
static inline int tp_read(const char *path, unsigned char **buf, size_t *len)
{
	size_t pl = strlen(path);
	if (pl > 3 && !strcmp(path + pl - 3, ".xz")) {
		char cmd[1024];
		snprintf(cmd, sizeof(cmd), "xz -dc '%s'", path);
		FILE *f = popen(cmd, "r");
		if (!f)
			return -1;
		int rc = tp_read_stream(f, buf, len);
		if (pclose(f) != 0 && !rc) {
			free(*buf);
			rc = -1;
		}
		return rc;
	}
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	int rc = tp_read_stream(f, buf, len);
	fclose(f);
	return rc;
}

/* xorshift64* */
static inline unsigned long long tp_rand(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

#define SP_ARRAY_SIZE_T(a) (sizeof(a) / sizeof((a)[0]))

#endif
