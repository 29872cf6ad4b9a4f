/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay_main.c - lets a libFuzzer target (LLVMFuzzerTestOneInput) be built with gcc and run over
 * files or directories of inputs: the corpus replay `make test` runs under every variant.
 * Prints "replayed N inputs" and exits 0; a crash or sanitizer report fails the run.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static unsigned long replayed;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)(n > 0 ? n : 0));
	free(buf);
	replayed++;
	return 0;
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st)) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort), rc = 0;
	for (int i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			char p[4096];
			snprintf(p, sizeof(p), "%s/%s", path, ents[i]->d_name);
			rc |= run_path(p);
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i]);
	printf("replayed %lu inputs\n", replayed);
	return rc;
}
