/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * files.c - test support: tsupport_slurp (files.h).  Never reads past what ftell reported, always
 * NUL-terminates, leaves *len untouched on failure.
 */
#include <stdio.h>
#include <stdlib.h>

#include "files.h"

char *tsupport_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (!buf)
		return NULL;
	buf[n] = 0;
	if (len)
		*len = (size_t)n;
	return buf;
}
