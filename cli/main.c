/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * main.c - `secpath <area> <command>`: the table of areas, each with its table of commands
 * (cli/area.c), exact name matching, exit codes 0 ok / 1 input rejected / 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* An area is a command table (cli_area_run) or, for bench, one command. */
struct area {
	const char *name;
	const struct cli_area *table;
	int (*fn)(int argc, char **argv, struct sp_cli *cli);
	const char *help;
};

static const struct area areas[] = {
	{ "slab", &cli_area_slab, NULL, NULL },
	{ "audit", &cli_area_audit, NULL, NULL },
	{ "policy", &cli_area_policy, NULL, NULL },
	{ "bench", NULL, cmd_bench, "perf-stat-style benchmark suites" },
};

/* A report that did not reach its reader is a failure (coreutils' close_stdout): with SIGPIPE
 * ignored a closed pipe shows up here as EPIPE, a full disk as ENOSPC. */
static int close_stdout(int rc)
{
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "secpath: cannot write the standard output: %s\n",
			strerror(errno ? errno : EIO));
		return rc ? rc : SP_EXIT_REJECTED;
	}
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: secpath [--version] [--help] <area> <command> [args]\n\nareas:\n");
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++) {
		const struct area *a = &areas[i];
		if (!a->table) {
			fprintf(f, "  %-8s %s\n", a->name, a->help);
			continue;
		}
		fprintf(f, "  %-8s", a->name);
		for (size_t k = 0; k < a->table->ncmds; k++)
			fprintf(f, "%s%s", k ? ", " : " ", a->table->cmds[k].name);
		fputc('\n', f);
	}
	fprintf(f, "\n'secpath <area> --help' lists an area's commands; see secpath(1).\n");
}

int main(int argc, char **argv)
{
	struct sp_cli cli = { stdout, stderr, "secpath", NULL };
	cli_signals_init();
	if (argc < 2) {
		usage(stderr);
		return SP_EXIT_USAGE;
	}
	if (cli_is_help(argv[1])) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("secpath %s\n", sp_version());
		return SP_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++) {
		const struct area *a = &areas[i];
		if (strcmp(argv[1], a->name))
			continue;
		int rc = a->table ? cli_area_run(a->table, argc - 1, argv + 1, &cli)
				  : a->fn(argc - 1, argv + 1, &cli);
		sp_region_free(cli.region);	/* after the command freed what it made there */
		return close_stdout(rc);
	}
	fprintf(stderr, "secpath: '%s' is not a secpath area\n", argv[1]);
	usage(stderr);
	return SP_EXIT_USAGE;
}
