/*
 * cmd_audit_run.c - `secpath audit run -R RULES [--record FILE] [--output FILE] -- COMMAND...`:
 * run COMMAND under ptrace and print the audit records the kernel would write for it under
 * RULES (audit.log format), then a summary.  COMMAND's stdin/stdout/stderr and exit status pass
 * through; the records go to stderr or to --output.  The work is sp_audit_trace_run().
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
		"usage: secpath audit run -R RULES [--record FILE] [--output FILE] [--machine M]\n"
		"                         [--json] -- COMMAND [ARGS...]\n"
		"\n"
		"Run COMMAND under ptrace (following forks, threads and execs) and print the audit\n"
		"records a Linux 6.1 kernel loaded with RULES would write for it (SYSCALL, EXECVE,\n"
		"CWD, PATH, PROCTITLE in audit.log format), then a summary: syscalls seen, recorded,\n"
		"records per key.  No kernel audit state is read or changed.\n"
		"  -R RULES       auditctl rules file\n"
		"  --record FILE  also write every syscall event as an sp_audit_record stream\n"
		"                 (usable as `secpath audit cost --mix FILE`)\n"
		"  --output FILE  records and summary to FILE instead of stderr\n"
		"  --json         the summary as JSON (on the same stream)\n"
		"  --machine M    syscall table of RULES (default x86_64)\n"
		"  -c, --continue  use the lines that parse when others are rejected (auditctl -c)\n"
		"  --passwd F, --group F, --dirs F   host inputs for the rules parser\n"
		"Exit status: COMMAND's (128+N if killed by signal N); 1 if RULES is rejected or\n"
		"tracing is not permitted; 2 usage.\n");
}

static void emit_line(void *ud, const char *line, size_t len)
{
	FILE *f = ud;
	fwrite(line, 1, len, f);
	fputc('\n', f);
}

int cmd_audit_run(int argc, char **argv, struct sp_cli *cli)
{
	const char *record = NULL, *output = NULL;
	struct cli_rules_args ra;
	cli_rules_args_init(&ra);
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
		} else if (cli_rules_arg(argc, argv, &i, &ra)) {
			;
		} else if (i + 1 < argc && !strcmp(a, "--record")) {
			record = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--output")) {
			output = argv[++i];
		} else if (a[0] == '-') {
			fprintf(cli->err, "%s audit run: unknown option '%s'\n", cli->prog, a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		} else {
			break;
		}
	}
	const char *rules = ra.rules;
	int keep_going = ra.keep_going;
	if (!rules || i >= argc) {
		usage(cli->err);
		return SP_EXIT_USAGE;
	}

	char *text = NULL;
	size_t len = 0;
	int err = cli_read_file(rules, &text, &len);
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
	if (err || (d.nerrors && !keep_going)) {
		sp_diags_release(&d);
		sp_audit_ruleset_free(rs);
		free(text);
		return SP_EXIT_REJECTED;
	}
	sp_diags_release(&d);

	FILE *out = cli->err;
	int rec_fd = -1;
	if (output && !(out = fopen(output, "w"))) {
		fprintf(cli->err, "%s: cannot open '%s': %s\n", cli->prog, output, strerror(errno));
		goto done;
	}
	if (record && (rec_fd = open(record, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		fprintf(cli->err, "%s: cannot open '%s': %s\n", cli->prog, record, strerror(errno));
		goto done;
	}
	err = sp_audit_trace_supported();
	if (err) {
		fprintf(cli->err, "%s audit run: ptrace is not permitted here (%s)\n", cli->prog,
			strerror(-err));
		goto done;
	}
	fflush(cli->out);
	fflush(out);
	struct sp_audit_trace_opts to = { .sz = sizeof(to), .rules = rs, .emit = emit_line,
					  .ud = out, .record_fd = rec_fd };
	struct sp_audit_trace_stats st;
	int status = 0;
	err = sp_audit_trace_run(argv + i, &to, &status, &st);
	if (err) {
		fprintf(cli->err, "%s audit run: %s\n", cli->prog, strerror(-err));
		goto done;
	}
	if (json) {
		fprintf(out, "{\"syscalls\":%llu,\"recorded\":%llu,\"tasks\":%llu,\"keys\":[",
			(unsigned long long)st.syscalls, (unsigned long long)st.recorded,
			(unsigned long long)st.tasks);
		for (size_t k = 0; k < st.nkeys; k++) {
			fprintf(out, "%s{\"key\":", k ? "," : "");
			cli_json_str(out, st.keys[k].key);
			fprintf(out, ",\"count\":%llu}", (unsigned long long)st.keys[k].count);
		}
		fprintf(out, "]}\n");
	} else {
		fprintf(out, "summary: %llu syscalls seen, %llu recorded, %llu tasks\n",
			(unsigned long long)st.syscalls, (unsigned long long)st.recorded,
			(unsigned long long)st.tasks);
		for (size_t k = 0; k < st.nkeys; k++)
			fprintf(out, "  key %-24s %llu\n", st.keys[k].key,
				(unsigned long long)st.keys[k].count);
	}
	sp_audit_trace_stats_release(&st);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
done:
	if (rec_fd >= 0)
		close(rec_fd);
	if (out && out != cli->err)
		fclose(out);
	sp_audit_ruleset_free(rs);
	free(text);
	return rc;
}
