/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit_run.c - `secpath audit run -R RULES [--output FILE] [--summary FILE] -- COMMAND...`:
 * run COMMAND under ptrace and print the audit records the kernel would write for it under
 * RULES (audit.log format), then a summary.  COMMAND's stdin/stdout/stderr and exit status pass
 * through; the records go to stderr or to --output, the summary to stderr or to --summary, so a
 * records file is always a valid audit.log.  The work is sp_audit_trace_run().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "secpath/audit_tools.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: secpath audit run -R RULES [--output FILE] [--record FILE] [--summary FILE]\n"
		"                         [--json] [--machine M] [-c] -- COMMAND [ARGS...]\n"
		"\n"
		"Run COMMAND under ptrace (following forks, threads and execs) and write the audit\n"
		"records a Linux 6.1 kernel loaded with RULES would write for it (SYSCALL, EXECVE,\n"
		"CWD, PATH, PROCTITLE in audit.log format), then a summary: syscalls seen, recorded,\n"
		"records per key.  No kernel audit state is read or changed.\n"
		"  -R RULES        auditctl rules file\n"
		"  --output FILE   the records (a valid audit.log) to FILE instead of stderr\n"
		"  --record FILE   also write every syscall event as an sp_audit_record stream\n"
		"                  (usable as `secpath audit cost --mix FILE`)\n"
		"  --summary FILE  the summary to FILE instead of stderr\n"
		"  --json          the summary as one JSON object (schema secpath.audit-run/1)\n"
		"  --machine M     syscall table of RULES (default x86_64)\n"
		"  -c, --continue  use the lines that parse when others are rejected (auditctl -c;\n"
		"                  a -c or -i line in RULES does the same for the lines below it)\n"
		"  --passwd F, --group F, --dirs F   host inputs for the rules parser\n"
		"Every output file is written whole, then renamed into place; none may be an input.\n"
		"Exit status: COMMAND's (128+N if killed by signal N; 127 if it cannot be executed);\n"
		"1 if RULES is rejected, tracing is not permitted or an output cannot be written;\n"
		"2 usage.\n");
}

static void emit_line(void *ud, const char *line, size_t len)
{
	FILE *f = ud;
	fwrite(line, 1, len, f);
	fputc('\n', f);
}

static void print_summary(FILE *f, const struct sp_audit_trace_stats *st, int json)
{
	if (json) {
		fprintf(f, "{\"schema\":\"secpath.audit-run/1\",\"syscalls\":%llu,\"recorded\":%llu,"
			"\"tasks\":%llu,\"keys\":[", (unsigned long long)st->syscalls,
			(unsigned long long)st->recorded, (unsigned long long)st->tasks);
		for (size_t k = 0; k < st->nkeys; k++) {
			fprintf(f, "%s{\"key\":", k ? "," : "");
			cli_json_str(f, st->keys[k].key);
			fprintf(f, ",\"count\":%llu}", (unsigned long long)st->keys[k].count);
		}
		fprintf(f, "]}\n");
		return;
	}
	fprintf(f, "summary: %llu syscalls seen, %llu recorded, %llu tasks\n",
		(unsigned long long)st->syscalls, (unsigned long long)st->recorded,
		(unsigned long long)st->tasks);
	for (size_t k = 0; k < st->nkeys; k++)
		fprintf(f, "  key %-24s %llu\n", st->keys[k].key,
			(unsigned long long)st->keys[k].count);
}

/* The outputs of one run: records, recorded stream, summary (each may be unset). */
struct run_outputs {
	const char *path[3];
	struct cli_out out[3];
	int open[3];
};
enum { OUT_RECORDS, OUT_RECORD, OUT_SUMMARY };

static int open_outputs(struct sp_cli *cli, struct cli_files *fs, struct run_outputs *ro)
{
	for (int k = 0; k < 3; k++) {
		if (!ro->path[k])
			continue;
		if (cli_out_open(cli, fs, &ro->out[k], ro->path[k]))
			return -1;
		ro->open[k] = 1;
		if (k != OUT_RECORD && !cli_out_stream(cli, &ro->out[k]))
			return -1;
	}
	return 0;
}

static int commit_outputs(struct sp_cli *cli, struct run_outputs *ro)
{
	int bad = 0;
	for (int k = 0; k < 3; k++)
		if (ro->open[k]) {
			bad |= cli_out_commit(cli, &ro->out[k]) != 0;
			ro->open[k] = 0;
		}
	return bad ? -1 : 0;
}

static void abort_outputs(struct run_outputs *ro)
{
	for (int k = 0; k < 3; k++)
		if (ro->open[k])
			cli_out_abort(&ro->out[k]);
}

int cmd_audit_run(int argc, char **argv, struct sp_cli *cli)
{
	struct run_outputs ro;
	struct cli_rules_args ra;
	struct cli_files files;
	memset(&ro, 0, sizeof(ro));
	cli_rules_args_init(&ra);
	int r;
	int json = 0, i, rc = SP_EXIT_REJECTED;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_is_help(a)) {
			usage(cli->out);
			return SP_EXIT_OK;
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if ((r = cli_rules_arg(argc, argv, &i, &ra)) != 0) {
			if (r < 0)
				break;
		} else if (i + 1 < argc && !strcmp(a, "--record")) {
			ro.path[OUT_RECORD] = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--output")) {
			ro.path[OUT_RECORDS] = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--summary")) {
			ro.path[OUT_SUMMARY] = argv[++i];
		} else if (a[0] == '-') {
			fprintf(cli->err, "%s audit run: unknown option '%s'\n", cli->prog, a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		} else {
			break;
		}
	}
	if (cli_rules_args_check(cli, &ra, "run"))
		return SP_EXIT_USAGE;
	const char *rules = ra.rules;
	int keep_going = ra.keep_going;
	if (!rules || i >= argc) {
		fprintf(cli->err, "%s audit run: %s\n", cli->prog,
			!rules ? "no -R RULES given" : "no COMMAND given (after --)");
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	cli_files_init(&files);
	cli_rules_args_inputs(&ra, &files);

	char *text = NULL;
	size_t len = 0;
	int err = sp_file_read(rules, &text, &len);
	if (err) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, rules, strerror(-err));
		return SP_EXIT_REJECTED;
	}
	struct sp_audit_parse_opts po = ra.po;
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	err = sp_audit_ruleset_parse(text, len, rules, &po, &rs, &d);
	cli_print_diags(cli, &d, NULL, NULL);
	if (err || (d.nerrors && !keep_going && !cli_rules_continue(rs, &d))) {
		sp_diags_release(&d);
		sp_audit_ruleset_free(rs);
		free(text);
		return SP_EXIT_REJECTED;
	}
	sp_diags_release(&d);

	if (open_outputs(cli, &files, &ro))
		goto done;
	FILE *out = ro.open[OUT_RECORDS] ? ro.out[OUT_RECORDS].f : cli->err;
	FILE *sum = ro.open[OUT_SUMMARY] ? ro.out[OUT_SUMMARY].f : cli->err;
	err = sp_audit_trace_supported();
	if (err) {
		fprintf(cli->err, "%s audit run: ptrace is not permitted here (%s)\n", cli->prog,
			strerror(-err));
		goto done;
	}
	fflush(cli->out);
	fflush(cli->err);
	struct sp_audit_trace_opts to = {
		.sz = sizeof(to), .rules = rs, .emit = emit_line, .ud = out,
		.record_fd = ro.open[OUT_RECORD] ? ro.out[OUT_RECORD].fd : -1
	};
	struct sp_audit_trace_stats st;
	int status = 0;
	err = sp_audit_trace_run(argv + i, &to, &status, &st);
	if (err) {
		const char *what = ro.path[OUT_RECORD] && (err == -ENOSPC || err == -EFBIG ||
							   err == -EIO) ? ro.path[OUT_RECORD] : NULL;
		fprintf(cli->err, "%s audit run: %s%s%s\n", cli->prog, what ? "cannot write " : "",
			what ? what : "", strerror(-err));
		goto done;
	}
	if (st.exec_errno)
		fprintf(cli->err, "%s audit run: cannot execute '%s': %s\n", cli->prog, argv[i],
			strerror(st.exec_errno));
	print_summary(sum, &st, json);
	sp_audit_trace_stats_release(&st);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
	if (commit_outputs(cli, &ro))
		rc = SP_EXIT_REJECTED;
done:
	abort_outputs(&ro);
	sp_audit_ruleset_free(rs);
	free(text);
	return rc;
}
