/*
 * cli.h - the contract between cli/main.c and the command groups (git's builtin.h idea).
 *
 * To add a command group: write `int cmd_NAME(int argc, char **argv, struct sp_cli *cli)` in
 * cli/cmd_NAME.c and add one row to the table in main.c.  argv[0] is the group name.
 * Exit codes: 0 ok, 1 input rejected, 2 usage.  Only cli/ prints, reads argv, or exits.
 * Subcommand names match exactly (no prefix matching).
 */
#ifndef SP_CLI_H
#define SP_CLI_H

#include <stdio.h>
#include "secpath/secpath.h"
#include "secpath/audit.h"

enum { SP_EXIT_OK = 0, SP_EXIT_REJECTED = 1, SP_EXIT_USAGE = 2 };

struct sp_cli {
	FILE *out;		/* reports */
	FILE *err;		/* diagnostics, progress */
	const char *prog;	/* "secpath" */
};

int cmd_slab(int argc, char **argv, struct sp_cli *cli);
int cmd_audit(int argc, char **argv, struct sp_cli *cli);
int cmd_policy(int argc, char **argv, struct sp_cli *cli);
int cmd_bench(int argc, char **argv, struct sp_cli *cli);
/* `secpath audit filter|run|replay|...`: the filter-engine commands, dispatched from cmd_audit. */
int cmd_audit_filter(int argc, char **argv, struct sp_cli *cli);
/* `secpath audit replay|run|cost|optimize` (argv[0] is the subcommand name). */
int cmd_audit_replay(int argc, char **argv, struct sp_cli *cli);
int cmd_audit_run(int argc, char **argv, struct sp_cli *cli);
int cmd_audit_cost(int argc, char **argv, struct sp_cli *cli);
int cmd_audit_optimize(int argc, char **argv, struct sp_cli *cli);

/* Print every diagnostic in d to cli->err; `source_of(line)` (may be NULL) returns the text of
 * a source line for the caret underline. */
void cli_print_diags(struct sp_cli *cli, const struct sp_diags *d,
		     const char *(*source_of)(void *ud, const char *file, uint32_t line), void *ud);
/* Read a whole file (or "-" for stdin) into a NUL-terminated malloc'd buffer. 0 or -errno. */
int cli_read_file(const char *path, char **buf, size_t *len);
/* The rule-set options shared by `audit run|cost|optimize`: -R/--rules FILE, --machine M,
 * --passwd F, --group F, --dirs F, -c/--continue. */
struct cli_rules_args {
	const char *rules;
	struct sp_audit_parse_opts po;	/* machine defaults to x86_64 */
	int keep_going;
};
void cli_rules_args_init(struct cli_rules_args *ra);
/* If argv[*i] is one of those options, consume it (and its value) and return 1; else 0. */
int cli_rules_arg(int argc, char **argv, int *i, struct cli_rules_args *ra);
/* Parse a whole unsigned decimal/0x-hex number or a finite non-negative double; 0 or -EINVAL. */
int cli_parse_u64(const char *s, unsigned long long *v);
int cli_parse_double(const char *s, double *v);
/* True if argv[i] is -h or --help. */
int cli_is_help(const char *arg);
/* Print a JSON string literal (escaped) to f. */
void cli_json_str(FILE *f, const char *s);

#endif
