/*
 * cmd_slab.c - `secpath slab ...` (placeholder until the slab part lands).
 */
#include "cli.h"

int cmd_slab(int argc, char **argv, struct sp_cli *cli)
{
	(void)argc;
	(void)argv;
	fprintf(cli->err, "secpath slab: not built yet\n");
	return SP_EXIT_USAGE;
}
