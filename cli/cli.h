/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
#include <sys/types.h>
#include "secpath/secpath.h"
#include "secpath/audit.h"
#include "secpath/policy.h"

/* The one exit-status scheme of every command (secpath(1), EXIT STATUS): 0 ok; 1 the input was
 * rejected, a file could not be read or written; 2 usage; 3 the answer is no (policy decide: a
 * permission is denied). */
enum { SP_EXIT_OK = 0, SP_EXIT_REJECTED = 1, SP_EXIT_USAGE = 2, SP_EXIT_NO = 3 };

struct sp_cli {
	FILE *out;		/* reports */
	FILE *err;		/* diagnostics, progress */
	const char *prog;	/* "secpath" */
	struct sp_region *region;	/* the policy commands' memory (cli_policy_load), or NULL */
};

/* A command: argv[0] is its name; it answers -h/--help itself (usage, then its exit status). */
struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct sp_cli *cli);
	const char *summary;		/* one line for the area's list */
};
/* An area: `secpath NAME COMMAND ...` (cli/area.c). */
struct cli_area {
	const char *name;
	const char *summary;
	const struct cli_cmd *cmds;
	size_t ncmds;
	const char *footer;		/* printed after the list (may be NULL) */
};
int cli_area_run(const struct cli_area *a, int argc, char **argv, struct sp_cli *cli);
void cli_area_usage(const struct cli_area *a, FILE *f, const char *prog);
extern const struct cli_area cli_area_audit;
extern const struct cli_area cli_area_slab;
extern const struct cli_area cli_area_policy;

/* `secpath policy diff` (cli/cmd_policy_diff.c; argv[0] is "diff") */
int cmd_policy_diff(int argc, char **argv, struct sp_cli *cli);
/* `secpath policy search` (cli/cmd_policy_search.c; argv[0] is "search") */
int cmd_policy_search(int argc, char **argv, struct sp_cli *cli);
/* --json or --layout L at argv[*i]: 1 taken (*i past its value), 0 not one of them, -1 reported */
int cli_policy_common_opt(int argc, char **argv, int *i, int *json, enum sp_avtab_layout *layout,
			  struct sp_cli *cli);
/* Read a policy for a policy command; says why on cli->err when it cannot (0 or -errno). */
int cli_policy_load(struct sp_cli *cli, const char *path, enum sp_avtab_layout layout,
		    struct sp_policy **p);
/* cli_policy_load of *path, or with *path NULL of the running policy, found where setools finds
 * it (*path then points into running, len bytes); 0 or -1 reported. */
int cli_policy_open(struct sp_cli *cli, const char **path, char *running, size_t len,
		    enum sp_avtab_layout layout, struct sp_policy **p);
int cmd_bench(int argc, char **argv, struct sp_cli *cli);
/* `secpath audit filter|replay|run|cost|optimize` (argv[0] is the command name). */
int cmd_audit_filter(int argc, char **argv, struct sp_cli *cli);
int cmd_audit_replay(int argc, char **argv, struct sp_cli *cli);
int cmd_audit_run(int argc, char **argv, struct sp_cli *cli);
int cmd_audit_cost(int argc, char **argv, struct sp_cli *cli);
int cmd_audit_optimize(int argc, char **argv, struct sp_cli *cli);
int cmd_audit_stream(int argc, char **argv, struct sp_cli *cli);
struct sp_audit_search;
/* One ausearch option at argv[*i] into search (replay and stream take them): 1 taken, 0 not
 * one, SP_EXIT_USAGE refused (said why, naming `audit CMD`). */
int cli_audit_search_arg(int argc, char **argv, int *i, struct sp_cli *cli,
			 struct sp_audit_search *search, const char *cmd);

/* Print every diagnostic in d to cli->err; `source_of(line)` (may be NULL) returns the text of
 * a source line for the caret underline. */
void cli_print_diags(struct sp_cli *cli, const struct sp_diags *d,
		     const char *(*source_of)(void *ud, const char *file, uint32_t line), void *ud);
/* The rule-set options every command that reads rules takes: -R/--rules FILE (the commands
 * whose rules are not positional), --machine M, --passwd F, --group F, --dirs F, --features N,
 * -c/--continue. */
struct cli_rules_args {
	const char *rules;
	struct sp_audit_parse_opts po;	/* machine defaults to x86_64 */
	int keep_going;
	const char *missing;		/* an option given without its value */
	const char *bad_features;
};
void cli_rules_args_init(struct cli_rules_args *ra);
/* If argv[*i] is one of those options, consume it (and its value) and return 1; -1 when its
 * value is missing or bad (cli_rules_args_check then says why); 0 for another argument. */
int cli_rules_arg(int argc, char **argv, int *i, struct cli_rules_args *ra);
/* After the arguments: a missing value, bad features or an unknown machine is printed (then -1,
 * a usage error); else 0. */
int cli_rules_args_check(struct sp_cli *cli, const struct cli_rules_args *ra, const char *cmd);
/* audit replay/stream: if argv[*i] is --format NAME (raw, laurel, interpret, csv, text), -i,
 * --interpret or an --extra-* column, consume it into *fmt (an SP_AUDIT_REPLAY_* format flag,
 * 0 for raw) or *extra (SP_AUDIT_REPLAY_EXTRA_*) and return 1; 0 for another argument;
 * SP_EXIT_USAGE after printing why (an unknown format, --extra-labels). */
int cli_event_format_arg(int argc, char **argv, int *i, struct sp_cli *cli, unsigned *fmt,
			 unsigned *extra, const char *cmd);
/* After the arguments: extra columns without the CSV are a usage error (printed). */
int cli_event_format_check(struct sp_cli *cli, unsigned fmt, unsigned extra, const char *cmd);
struct cli_files;
/* Register the rules file and the host inputs as inputs of the command. */
void cli_rules_args_inputs(const struct cli_rules_args *ra, struct cli_files *fs);
/* A rules file's text into a set: auditctl -R syntax, or (a name ending ".tsv") the blobs of
 * `audit compile --format tsv`.  As sp_audit_ruleset_parse. */
int cli_rules_parse(const char *path, const char *text, size_t len,
		    const struct sp_audit_parse_opts *po, struct sp_audit_ruleset **rs,
		    struct sp_diags *d);
/* 1 when the file itself says to go on past its rejected lines, as auditctl -R does: a "-i" or
 * "-c" line above the first line d rejects. */
int cli_rules_continue(const struct sp_audit_ruleset *rs, const struct sp_diags *d);
/* Read and parse ra->rules: diagnostics printed; -1 when the file is unreadable or (without -c,
 * and without a -i or -c line above it) a line is rejected, else 0.  *text (the file) and *rs are the caller's to free either way. */
int cli_rules_load(struct sp_cli *cli, const struct cli_rules_args *ra, char **text, size_t *len,
		   struct sp_audit_ruleset **rs);
/* The bundled data directory (rule sets, syscall mixes, policies: the tree's data/): the one
 * lookup of every command.  $SECPATH_DATADIR, else PREFIX/share/secpath beside an installed
 * binary, else the build tree's data/ beside out/VARIANT/secpath; never the current directory.
 * 0, or -ENOENT after saying so (unless quiet). */
int cli_datadir(struct sp_cli *cli, char *out, size_t len, int quiet);
/* DATADIR/rel, or -ENOENT after saying why. */
int cli_data_file(struct sp_cli *cli, const char *rel, char *out, size_t len);
/* Parse a whole unsigned decimal/0x-hex number or a finite non-negative double; 0 or -EINVAL. */
int cli_parse_u64(const char *s, unsigned long long *v);
int cli_parse_double(const char *s, double *v);
/* The files a command reads and writes, by identity, so that no output is an input
 * (cli/outfile.c).  Register every input before opening the first output. */
#define CLI_FILES_MAX 64
struct cli_file_id {
	dev_t dev;
	ino_t ino;
	const char *path;
	int is_output;
	int new_name;		/* an output that does not exist yet (compared by path) */
};
struct cli_files {
	struct cli_file_id v[CLI_FILES_MAX];
	size_t n;
};
void cli_files_init(struct cli_files *fs);
int cli_files_add_input(struct cli_files *fs, const char *path);
/* One output file, written whole or not at all. */
struct cli_out {
	const char *path;
	char tmp[4096];		/* the temporary file, "" when writing in place or to stdout */
	int fd;
	FILE *f;
	int is_std;
	int slot;
};
/* Refuse an output that is an input or another output (message printed, -1), else create its
 * temporary file (0).  "-" is cli->out. */
int cli_out_open(struct sp_cli *cli, struct cli_files *fs, struct cli_out *o, const char *path);
/* A stdio stream on the output (NULL and a message on failure). */
FILE *cli_out_stream(struct sp_cli *cli, struct cli_out *o);
/* Flush, fsync and rename into place; on any error print it, remove the temporary file, leave the
 * old file as it was and return -errno. */
int cli_out_commit(struct sp_cli *cli, struct cli_out *o);
/* Drop the output: the temporary file is removed, an existing file is untouched. */
void cli_out_abort(struct cli_out *o);
/* Process-wide signal set-up for main(): SIGXFSZ becomes EFBIG on write. */
void cli_signals_init(void);
void cli_signal_noop(int sig);
/* True if argv[i] is -h or --help. */
int cli_is_help(const char *arg);
/* Print a JSON string literal (escaped) to f. */
void cli_json_str(FILE *f, const char *s);
/* The diagnostics as a JSON array of {file, line, col, end_col | offset, severity, message},
 * then `,"diagnostics_not_shown":N` (the caller has just printed the "diagnostics": key). */
void cli_json_diags(FILE *f, const struct sp_diags *d);

#endif
