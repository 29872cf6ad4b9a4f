/*
 * cmd_bench.c - `secpath bench ...` (placeholder until the bench part lands).
 */
#include "cli.h"

int cmd_bench(int argc, char **argv, struct sp_cli *cli)
{
	(void)argc;
	(void)argv;
	fprintf(cli->err, "secpath bench: not built yet\n");
	return SP_EXIT_USAGE;
}
