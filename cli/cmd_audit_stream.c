/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit_stream.c - `secpath audit stream`: a live audit record stream (auditd's plugin
 * stream, raw format, on stdin; or any pipe or FIFO) through new rules and/or ausearch's
 * selection, kept records (or laurel's JSON, or ausearch's -i, csv or text, of their events) appended
 * to a log or written to stdout as their events close.
 *
 * The loop: poll() the input with a timeout; each read is fed to the replay (which groups,
 * decides and holds kept records in input order) and the decided records are written at once;
 * when the input has been idle for --idle-ms the open events are closed (sp_audit_replay_idle),
 * so a kept event is written within about max(idle, the time its last record takes to come).
 * Signals only set flags (no work in a handler): SIGHUP reloads RULES between two reads
 * (sp_audit_replay_reload: parsed and compiled whole first; on error the set in use stays),
 * SIGUSR1 prints the counts, SIGTERM/SIGINT and end of input decide what is open, flush and
 * print the counts.  Malformed lines are reported (file:line: reason) as they come and never
 * stop the stream; diagnostics are printed and released after each read, so memory does not
 * grow with the stream.
 *
 * Invariants: the output is opened for appending (a live log is never replaced or truncated)
 * and is never one of the inputs (device and inode); a full output blocks this loop, which then
 * stops reading: the writer of the stream (auditd's dispatcher queue) applies its own policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "secpath/audit_log.h"

#define STREAM_CHUNK (256u * 1024u)

static volatile sig_atomic_t stream_hup, stream_usr1, stream_stop;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		stream_hup = 1;
	else if (sig == SIGUSR1)
		stream_usr1 = 1;
	else
		stream_stop = 1;
}

static void usage(FILE *f)
{
	fputs("usage: secpath audit stream [-R RULES] [ausearch options] [--output FILE]\n"
	      "                            [--format raw|laurel|interpret|csv|text] [-i]\n"
	      "                            [--extra-keys] [--extra-obj2] [--extra-time] [--idle-ms N]\n"
	      "                            [--window N] [host options] [-c] [INPUT]\n"
	      "\n"
	      "Read a live audit record stream - auditd's plugin stream (raw format) on standard\n"
	      "input, or INPUT, a pipe or FIFO (a regular file is read to its end) - group its\n"
	      "records into events as they arrive, decide each with the compiled filter built from\n"
	      "RULES (auditctl -R syntax) and/or ausearch's selection (the options of secpath audit\n"
	      "replay), and write the kept events' records, byte-identical and in input order.\n"
	      "  -R RULES       rules file; SIGHUP reads it again (a set with errors is refused\n"
	      "                 and the one in use stays)\n"
	      "  --output FILE  append the kept records to FILE (default: standard output)\n"
	      "  --format laurel  write each kept event as laurel 0.5.1's JSON line instead\n"
	      "                 (as audit replay --format laurel; without rules or selection,\n"
	      "                 every event)\n"
	      "  -i, --interpret, --format interpret  write each kept event as ausearch -i\n"
	      "                 prints it (as audit replay -i; dates in LC_TIME's %x; an event\n"
	      "                 held for ausearch's order is written by --idle-ms at the latest)\n"
	      "  --format csv, --format text  write each kept event as ausearch --format\n"
	      "                 csv|text does (as audit replay; the CSV heading first; the\n"
	      "                 --extra-* columns as there)\n"
	      "  --idle-ms N    after N ms without input, decide the open events (default 500)\n"
	      "  --window N     events kept open for grouping (default 64)\n"
	      "  --machine M, --passwd F, --group F, --dirs F, --features N, -c, --continue\n"
	      "                 host inputs and rules reading, as audit replay\n"
	      "Signals: SIGHUP reload RULES; SIGUSR1 print the counts; SIGTERM/SIGINT (and end of\n"
	      "input) decide the open events, flush, print the counts and exit.  Malformed lines\n"
	      "are reported (file:line: reason) and never stop the stream.\n"
	      "As an auditd plugin (/etc/audit/plugins.d/secpath.conf):\n"
	      "  active = yes, direction = out, type = always, format = string,\n"
	      "  path = /usr/bin/secpath (PREFIX/bin), args = audit stream -R RULES --output LOG\n"
	      "Exit status: 0 the stream ended and every line was read; 1 malformed lines, rules\n"
	      "errors, a refused reload, or the output could not be written; 2 usage.\n",
	      f);
}

struct stream_args {
	struct cli_rules_args ra;
	struct sp_audit_search *search;
	const char *output, *input;
	size_t window;
	long idle_ms;
	unsigned fmt;			/* --format, -i: SP_AUDIT_REPLAY_LAUREL... (0: raw) */
	unsigned extra;			/* --extra-*: SP_AUDIT_REPLAY_EXTRA_* */
};

/* 0, SP_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, struct sp_cli *cli, struct stream_args *sa)
{
	int r;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		unsigned long long v;
		if (a[0] != '-' || !a[1]) {
			if (sa->input) {
				fprintf(cli->err, "%s: audit stream: one INPUT only\n", cli->prog);
				return SP_EXIT_USAGE;
			}
			sa->input = a;
		} else if (cli_is_help(a)) {
			usage(cli->out);
			return -1;
		} else if ((r = cli_audit_search_arg(argc, argv, &i, cli, sa->search, "stream"))) {
			if (r != 1)
				return r;
		} else if ((r = cli_rules_arg(argc, argv, &i, &sa->ra)) < 0) {
			break;
		} else if (r) {
			;
		} else if (!strcmp(a, "--output") && i + 1 < argc) {
			sa->output = argv[++i];
		} else if ((r = cli_event_format_arg(argc, argv, &i, cli, &sa->fmt, &sa->extra,
						     "stream"))) {
			if (r != 1)
				return r;
		} else if ((!strcmp(a, "--idle-ms") || !strcmp(a, "--window")) && i + 1 < argc) {
			int win = !strcmp(a, "--window");
			unsigned long long max = win ? 65536 : 3600000;
			if (cli_parse_u64(argv[++i], &v) || !v || v > max) {
				fprintf(cli->err, "%s: audit stream: bad %s '%s' (1 to %llu)\n",
					cli->prog, a, argv[i], max);
				return SP_EXIT_USAGE;
			}
			if (win)
				sa->window = (size_t)v;
			else
				sa->idle_ms = (long)v;
		} else {
			fprintf(cli->err, "%s: audit stream: unknown option '%s'\n", cli->prog, a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (cli_rules_args_check(cli, &sa->ra, "stream") ||
	    cli_event_format_check(cli, sa->fmt, sa->extra, "stream"))
		return SP_EXIT_USAGE;
	if (!sa->ra.rules && !sp_audit_search_active(sa->search) && !sa->fmt) {
		fprintf(cli->err, "%s: audit stream: nothing to do: give -R RULES, an ausearch "
			"option or --format\n", cli->prog);
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	return 0;
}

struct stream {
	struct sp_cli *cli;
	const struct stream_args *sa;
	struct sp_audit_replay *rp;
	struct sp_diags d;
	const char *name;		/* the input's name in diagnostics */
	uint64_t reloads, refused;
	size_t errors;			/* error diagnostics printed so far */
};

/* Print the diagnostics gathered since the last call and release them. */
static void drain_diags(struct stream *s)
{
	if (!s->d.n)
		return;
	cli_print_diags(s->cli, &s->d, NULL, NULL);
	s->errors += s->d.nerrors;
	sp_diags_release(&s->d);
	sp_diags_init(&s->d, NULL);
	s->d.limit = 1000;
}

static void print_counts(struct stream *s)
{
	struct sp_audit_replay_stats st;
	sp_audit_replay_get_stats(s->rp, &st);
	fprintf(s->cli->err,
		"%s: audit stream: %llu lines, %llu records, %llu events: %llu kept, %llu dropped; "
		"%llu malformed; %llu reloads (%llu refused)\n",
		s->cli->prog, (unsigned long long)st.lines, (unsigned long long)st.records,
		(unsigned long long)st.events, (unsigned long long)st.kept,
		(unsigned long long)st.dropped, (unsigned long long)st.malformed,
		(unsigned long long)s->reloads, (unsigned long long)s->refused);
}

/* SIGHUP: the rules file again, whole, or the set in use stays (said why). */
static void reload(struct stream *s)
{
	char *text = NULL;
	size_t len = 0;
	int rc = sp_file_read(s->sa->ra.rules, &text, &len);

	if (!rc)
		rc = sp_audit_replay_reload(s->rp, text, len, s->sa->ra.rules,
					    s->sa->ra.keep_going ? SP_AUDIT_RELOAD_PARTIAL : 0);
	s->errors -= s->d.nerrors;	/* a refused set is counted as refused, not as errors */
	drain_diags(s);
	if (rc) {
		s->refused++;
		fprintf(s->cli->err, "%s: audit stream: reload of '%s' refused (%s); the rules in use "
			"stay\n", s->cli->prog, s->sa->ra.rules, strerror(-rc));
	} else {
		s->reloads++;
		fprintf(s->cli->err, "%s: audit stream: reloaded '%s'\n", s->cli->prog,
			s->sa->ra.rules);
	}
	free(text);
}

/* One read and what it completes; 1 at end of input, 0 more to come, -errno. */
static int step(struct stream *s, int in, char *buf, int *idle_done)
{
	struct pollfd p = { .fd = in, .events = POLLIN };
	int n = poll(&p, 1, (int)s->sa->idle_ms), rc = 0;

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0) {	/* idle: decide what is open, once per idle period */
		if (!*idle_done)
			rc = sp_audit_replay_idle(s->rp);
		*idle_done = 1;
		return rc;
	}
	ssize_t k = read(in, buf, STREAM_CHUNK);
	if (k < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (k == 0)
		return 1;
	*idle_done = 0;
	rc = sp_audit_replay_feed(s->rp, s->name, buf, (size_t)k);
	if (!rc)
		rc = sp_audit_replay_flush(s->rp);
	drain_diags(s);
	return rc;
}

static int run_loop(struct stream *s, int in)
{
	char *buf = malloc(STREAM_CHUNK);
	int rc = buf ? 0 : -ENOMEM, idle_done = 1;

	while (!rc && !stream_stop) {
		if (stream_hup) {
			stream_hup = 0;
			if (s->sa->ra.rules)
				reload(s);
		}
		if (stream_usr1) {
			stream_usr1 = 0;
			print_counts(s);
		}
		rc = step(s, in, buf, &idle_done);
	}
	free(buf);
	if (rc < 0)
		return rc;
	rc = sp_audit_replay_finish(s->rp);
	drain_diags(s);
	return rc;
}

static void signals_on(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

/* The output, appended to (0644, created if missing); stdout without --output.  -1 refused. */
static int open_output(struct sp_cli *cli, const struct stream_args *sa, struct cli_files *fs)
{
	struct stat st;
	if (!sa->output || !strcmp(sa->output, "-"))
		return fileno(cli->out);
	int fd = open(sa->output, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(cli->err, "%s: cannot write '%s': %s\n", cli->prog, sa->output,
			strerror(errno));
		return -1;
	}
	for (size_t i = 0; !fstat(fd, &st) && i < fs->n; i++)
		if (fs->v[i].dev == st.st_dev && fs->v[i].ino == st.st_ino) {
			fprintf(cli->err, "%s: audit stream: the output '%s' is the input '%s'\n",
				cli->prog, sa->output, fs->v[i].path);
			close(fd);
			return -1;
		}
	return fd;
}

static int stream_main(struct sp_cli *cli, struct stream_args *sa, const char *text, size_t tlen)
{
	struct cli_files files;
	struct stream s = { .cli = cli, .sa = sa, .name = sa->input ? sa->input : "(stdin)" };
	int in = 0, out = -1, status = SP_EXIT_REJECTED;

	cli_files_init(&files);
	cli_rules_args_inputs(&sa->ra, &files);
	if (sa->input && (in = open(sa->input, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, sa->input, strerror(errno));
		return SP_EXIT_REJECTED;
	}
	cli_files_add_input(&files, sa->input ? sa->input : "/dev/stdin");
	if ((out = open_output(cli, sa, &files)) < 0)
		goto done;
	sp_diags_init(&s.d, NULL);
	s.d.limit = 1000;
	struct sp_audit_replay_opts o = {
		.sz = sizeof(o), .parse = &sa->ra.po, .window = sa->window, .out_fd = out,
		.diags = &s.d, .search = sp_audit_search_active(sa->search) ? sa->search : NULL,
		.flags = (sa->ra.rules ? 0 : SP_AUDIT_REPLAY_NO_RULES) |
			 sa->fmt | sa->extra
	};
	int rc = sp_audit_replay_new(text ? text : "", text ? tlen : 0,
				     sa->ra.rules ? sa->ra.rules : "(no rules)", &o, &s.rp);
	size_t rule_errors = s.d.nerrors;
	drain_diags(&s);
	if (rc || (rule_errors && !sa->ra.keep_going)) {
		fprintf(cli->err, "%s: audit stream: cannot load '%s'%s%s\n", cli->prog,
			sa->ra.rules, rc ? ": " : " (-c uses the lines that parse)",
			rc ? strerror(-rc) : "");
		goto done;
	}
	signals_on();
	rc = run_loop(&s, in);
	print_counts(&s);
	if (rc)
		fprintf(cli->err, "%s: audit stream: %s: %s\n", cli->prog,
			sa->output ? sa->output : "(stdout)", strerror(-rc));
	else if (s.errors <= rule_errors && !s.refused)
		status = SP_EXIT_OK;
done:
	sp_audit_replay_free(s.rp);
	sp_diags_release(&s.d);
	if (out >= 0 && out != fileno(cli->out))
		close(out);
	if (in > 0)
		close(in);
	return status;
}

int cmd_audit_stream(int argc, char **argv, struct sp_cli *cli)
{
	struct stream_args sa = { .idle_ms = 500 };
	char *text = NULL;
	size_t tlen = 0;
	int rc;

	cli_rules_args_init(&sa.ra);
	if (sp_audit_search_new(&sa.search))
		return SP_EXIT_REJECTED;
	rc = parse_args(argc, argv, cli, &sa);
	/* ausearch's -i, csv and text print dates in the environment's %x */
	if (!rc && (sa.fmt & ~SP_AUDIT_REPLAY_LAUREL))
		setlocale(LC_TIME, "");
	if (!rc && sa.ra.rules && (rc = sp_file_read(sa.ra.rules, &text, &tlen))) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, sa.ra.rules,
			strerror(-rc));
		rc = SP_EXIT_REJECTED;
	} else if (!rc) {
		fflush(cli->out);
		rc = stream_main(cli, &sa, text, tlen);
	} else if (rc < 0) {
		rc = SP_EXIT_OK;
	}
	free(text);
	sp_audit_search_free(sa.search);
	return rc;
}
