/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * files.c - test support: tsupport_slurp and the list of upstream test policies (files.h).
 * tsupport_slurp never reads past what ftell reported, always NUL-terminates, leaves *len
 * untouched on failure.
 */
#define _DEFAULT_SOURCE	/* scandir, alphasort */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int is_policy33(const struct dirent *e)
{
	size_t l = strlen(e->d_name);
	return l > 3 && !strcmp(e->d_name + l - 3, ".33");
}

void tsupport_paths_free(char **paths)
{
	for (size_t i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
}

/* Append dir/name to *v (n entries, room for one more NULL): 0, or -1 when out of memory. */
static int paths_push(char ***v, size_t *n, const char *dir, const char *name)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(**v));
	size_t len = strlen(dir) + strlen(name) + 2;
	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = malloc(len)))
		return -1;
	snprintf(nv[*n], len, "%s/%s", dir, name);
	nv[++*n] = NULL;
	return 0;
}

char **tsupport_upstream_policies(size_t *count)
{
	static const char *const dirs[] = { "tests/data/policy/upstream/secilc",
					    "tests/data/policy/upstream/setools" };
	char **v = calloc(1, sizeof(*v));
	size_t n = 0;
	int bad = !v;
	for (size_t d = 0; !bad && d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		struct dirent **ents;
		int k = scandir(dirs[d], &ents, is_policy33, alphasort);
		bad = k < 0;
		for (int i = 0; i < k; i++) {
			bad = bad || paths_push(&v, &n, dirs[d], ents[i]->d_name);
			free(ents[i]);
		}
		if (k >= 0)
			free(ents);
	}
	if (bad || paths_push(&v, &n, "tests/data/policy/upstream/libsepol", "policy.bin")) {
		tsupport_paths_free(v);
		return NULL;
	}
	if (count)
		*count = n;
	return v;
}
