/*
 * cmd_audit_filter.c - `secpath audit filter ...` (placeholder until the filter engines land).
 */
#include "cli.h"

int cmd_audit_filter(int argc, char **argv, struct sp_cli *cli)
{
	(void)argc;
	(void)argv;
	fprintf(cli->err, "secpath audit filter: not built yet\n");
	return SP_EXIT_USAGE;
}
