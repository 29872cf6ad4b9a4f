/*
 * cmd_audit.c - `secpath audit ...` (placeholder until the audit part lands).
 */
#include "cli.h"

int cmd_audit(int argc, char **argv, struct sp_cli *cli)
{
	(void)argc;
	(void)argv;
	fprintf(cli->err, "secpath audit: not built yet\n");
	return SP_EXIT_USAGE;
}
