/*
 * cmd_policy.c - `secpath policy ...` (placeholder until the policy part lands).
 */
#include "cli.h"

int cmd_policy(int argc, char **argv, struct sp_cli *cli)
{
	(void)argc;
	(void)argv;
	fprintf(cli->err, "secpath policy: not built yet\n");
	return SP_EXIT_USAGE;
}
