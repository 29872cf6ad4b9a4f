/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * area.c - one command table per area (git's commands[] idea): `secpath AREA COMMAND ARGS`
 * finds COMMAND by its exact name in the area's table (no prefix matching) and calls it with
 * argv[0] = COMMAND; `secpath AREA --help` lists the table.
 */
#include <string.h>

#include "cli.h"

void cli_area_usage(const struct cli_area *a, FILE *f, const char *prog)
{
	fprintf(f, "usage: %s %s <command> [options] [args]\n\n%s\n\ncommands:\n", prog, a->name,
		a->summary);
	for (size_t i = 0; i < a->ncmds; i++)
		fprintf(f, "  %-10s %s\n", a->cmds[i].name, a->cmds[i].summary);
	if (a->footer)
		fprintf(f, "\n%s", a->footer);
	fprintf(f, "\n'%s %s <command> --help' describes a command and its exit status; see %s-%s(1).\n",
		prog, a->name, prog, a->name);
}

int cli_area_run(const struct cli_area *a, int argc, char **argv, struct sp_cli *cli)
{
	if (argc < 2) {
		cli_area_usage(a, cli->err, cli->prog);
		return SP_EXIT_USAGE;
	}
	if (cli_is_help(argv[1])) {
		cli_area_usage(a, cli->out, cli->prog);
		return SP_EXIT_OK;
	}
	for (size_t i = 0; i < a->ncmds; i++)
		if (!strcmp(argv[1], a->cmds[i].name))
			return a->cmds[i].fn(argc - 1, argv + 1, cli);
	fprintf(cli->err, "%s: '%s' is not a %s command\n", cli->prog, argv[1], a->name);
	cli_area_usage(a, cli->err, cli->prog);
	return SP_EXIT_USAGE;
}
