/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit_replay.c - `secpath audit replay -R RULES [--json] [--output FILE] LOG...`: audit.log
 * files (plain or gzip, "-" = stdin) or recorded streams through the compiled filter.  The work
 * is in src/audit/log_*.c (audit_log.h); this file reads inputs, prints the report and exits.
 * Exit: 0 ok, 1 input rejected (unreadable input, malformed lines, rules errors), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"
#include "secpath/audit_log.h"
#include "secpath/audit_record.h"

#define CHUNK (1u << 20)

static void usage(FILE *f)
{
	fputs("usage: secpath audit replay [-R RULES] [ausearch options] [--json] [--output FILE]\n"
	      "                            [--format raw|laurel|interpret|csv|text] [-i]\n"
	      "                            [--extra-keys] [--extra-obj2] [--extra-time]\n"
	      "                            [--report KIND [--summary]]\n"
	      "                            [--window N] [--jobs N] [--input-logs]\n"
	      "                            [host options] [-c] [LOG...]\n"
	      "\n"
	      "Replay audit.log files (plain or gzip; \"-\" = stdin; raw or ENRICHED) or recorded\n"
	      "event streams (docs/RECORD.md) through the compiled filter built from RULES\n"
	      "(auditctl -R syntax), then select events as ausearch 3.0.9 does.  Reports events\n"
	      "read/kept/dropped, per-rule hits (file:line), per-key counts, rules that never\n"
	      "fired, and every malformed line (file:line: reason).\n"
	      "  -R RULES       rules file (without it, every record is kept: selection alone)\n"
	      "ausearch options (audit.log inputs; an event is kept when all of them match the\n"
	      "records the rules kept, as ausearch would read them):\n"
	      "  -k, --key KEY  a key containing KEY (-w, --word: equal to KEY)\n"
	      "  -m, --message TYPE[,TYPE..]  a record of one of these types (names, numbers, ALL)\n"
	      "  -sc, --syscall S  syscall number, or name (then of this host's architecture)\n"
	      "  -p, --pid N, -pp, --ppid N, -a, --event N, --session N\n"
	      "  -ui, --uid U, -ue, --uid-effective U, -ul, --loginuid U (a number or a user\n"
	      "                 name), -ua, --uid-all U (any of the three)\n"
	      "  -gi, --gid G, -ge, --gid-effective G, -ga, --gid-all G (number or group name)\n"
	      "  -e, --exit N|ERRNO  the syscall's exit (a number, EACCES, -EACCES)\n"
	      "  -x, --executable EXE  an exe containing EXE (equal to it with -w); likewise\n"
	      "  --comm C, -tm, --terminal T, -hn, --host H, -vm, --vm-name V, -uu, --uuid U\n"
	      "  -su, --subject CTX, -o, --object CTX, -se, --context CTX (either)\n"
	      "  -n, --node NODE  the event's node= is NODE (repeatable: any of them)\n"
	      "  -f, --file NAME  a PATH/AVC/socket name or the cwd containing NAME (-w: equal)\n"
	      "  -sv, --success yes|no\n"
	      "  -ts, --start [DATE] [TIME]  -te, --end [DATE] [TIME]: DATE is MM/DD/YY (the\n"
	      "                 locale's %x) or now, recent, today, yesterday, this-week,\n"
	      "                 week-ago, this-month, this-year; TIME is HH:MM[:SS]\n"
	      "  --report KIND  instead of replay's report, aureport 3.0.9's over the kept events\n"
	      "                 (all events without -R and a selection), same text: summary\n"
	      "                 (aureport), key (-k), exe (-x), file (-f), auth (-au), login\n"
	      "                 (-l), log (-t); run with TZ and LC_ALL as aureport would be\n"
	      "  --summary      with --report: aureport --summary's count table (alone: the\n"
	      "                 summary report)\n"
	      "  --json         machine-readable report\n"
	      "  --output FILE  write the kept records, byte-identical, to FILE (recorded stream\n"
	      "                 inputs: the kept events as a recorded stream); FILE may not be an\n"
	      "                 input and is replaced only when every input was read to its end\n"
	      "  --format laurel  write the kept events instead as laurel 0.5.1's JSON, one\n"
	      "                 object per line (docs/JSON.md), to --output FILE or, without\n"
	      "                 it, to standard output (the report then goes to standard error);\n"
	      "                 without -R and ausearch options every event is written\n"
	      "  -i, --interpret, --format interpret  write the kept events instead as\n"
	      "                 ausearch -i 3.0.9 prints them (\"----\", records last to first,\n"
	      "                 fields interpreted: uid/gid names from this host's passwd and\n"
	      "                 group, syscall names, decoded strings, errnos...; TZ and locale\n"
	      "                 as ausearch's), to --output FILE or standard output, as\n"
	      "                 --format laurel; without -R and ausearch options every event\n"
	      "                 is written\n"
	      "  --format csv, --format text  write the kept events instead as ausearch\n"
	      "                 --format csv|text 3.0.9 writes them (auparse's normalizer: one\n"
	      "                 line per event, who did what to what, how; the CSV with its\n"
	      "                 heading), as -i; --extra-keys, --extra-obj2 and --extra-time add\n"
	      "                 ausearch's extra CSV columns (--extra-labels is not offered)\n"
	      "  --window N     events kept open for grouping (default 64)\n"
	      "  --jobs N       read each plain audit.log file with N threads (1 to 64): cut\n"
	      "                 at line starts, the parts' kept records in input order and their\n"
	      "                 counts added, as one pass gives them (an event across a cut makes\n"
	      "                 the file read in one pass); not with --format or --report\n"
	      "  --input-logs   read auditd's log and its rotations (auditd.conf's log_file)\n"
	      "A LOG that is a directory is its audit.log and rotations, oldest first (ausearch\n"
	      "-if DIR); no LOG is standard input when it is a pipe, else auditd's logs.\n"
	      "  --machine M, --passwd F, --group F, --dirs F, --features N\n"
	      "                 host inputs for the rules parser (as audit check)\n"
	      "  -c, --continue replay with the rule lines that parse when others are rejected\n"
	      "Exit status: 0 every input read; 1 an input unreadable or cut (no report then), a\n"
	      "non-empty input without an audit record, a malformed line, rules errors, or the\n"
	      "output not written; 2 usage.\n",
	      f);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A whole recorded stream, after its first chunk `buf` (n bytes). */
static int replay_stream_rest(struct sp_audit_replay *r, const char *path, gzFile gz,
			      const char *buf, size_t n)
{
	size_t cap = CHUNK * 2, len = n;
	int k;
	char *all = malloc(cap);
	if (!all)
		return -ENOMEM;
	memcpy(all, buf, len);
	while ((k = gzread(gz, all + len, (unsigned)(cap - len))) > 0) {
		len += (size_t)k;
		if (len == cap) {
			char *nb = realloc(all, cap * 2);
			if (!nb) {
				free(all);
				return -ENOMEM;
			}
			all = nb;
			cap *= 2;
		}
	}
	int e;
	gzerror(gz, &e);
	int rc = k < 0 || e == Z_BUF_ERROR ? -EIO : sp_audit_replay_stream(r, path, all, len);
	free(all);
	return rc;
}

/* Why a gz stream failed, without zlib's "<fd:N>: " prefix. */
static const char *gz_reason(gzFile gz)
{
	int e;
	const char *m = gzerror(gz, &e);
	if (e == Z_ERRNO)
		return strerror(errno);
	if (e == Z_BUF_ERROR)
		return "gzip: unexpected end of stream (the file is truncated)";
	if (e == Z_DATA_ERROR)
		return "gzip: corrupt data";
	return m && *m ? m : "read error";
}

static void progress_line(struct sp_audit_replay *r, struct sp_cli *cli, const char *path,
			  size_t done, long long size, double elapsed)
{
	struct sp_audit_replay_stats st;
	sp_audit_replay_get_stats(r, &st);
	fprintf(cli->err, "\r%s: %.1f MiB", path, done / 1048576.0);
	if (size > 0 && (long long)done <= size) {
		double frac = (double)done / (double)size;
		fprintf(cli->err, " of %.1f MiB (%.0f%%", size / 1048576.0, 100 * frac);
		if (frac > 0.01)
			fprintf(cli->err, ", %.0f s left", elapsed * (1 - frac) / frac);
		fputc(')', cli->err);
	}
	fprintf(cli->err, ", %llu events, %.0f events/s   ", (unsigned long long)st.events,
		elapsed > 0 ? st.events / elapsed : 0.0);
}

/* Read one input, plain or gzip (zlib reads both); recorded streams are read whole.  Prints why
 * an input could not be read to its end and returns -errno then (the output is not kept). */
/* --jobs N on a plain audit.log file: mapped and fed by N threads.  1 when the file is not
 * one (gzip, a recorded stream: read as any input), else the feed's result. */
static int replay_mapped(struct sp_audit_replay *r, const char *path, int fd, size_t size,
			 unsigned jobs)
{
	void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	const unsigned char *b = m;
	int rc;
	if (m == MAP_FAILED)
		return 1;
	if ((size >= 2 && b[0] == 0x1f && b[1] == 0x8b) || sp_audit_record_is_stream(m, size))
		rc = 1;
	else
		rc = sp_audit_replay_feed_jobs(r, path, m, size, jobs);
	munmap(m, size);
	return rc;
}

static int replay_input(struct sp_audit_replay *r, const char *path, struct sp_cli *cli,
			int progress, unsigned jobs, size_t *bytes, int *read_failed)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : dup(0);
	struct stat st;
	gzFile gz;
	char *buf;
	int rc = 0, n, first = 1;
	size_t total = 0;
	long long size = -1;
	double t0 = now_s(), last = t0;
	*read_failed = 1;
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, strerror(EISDIR));
		close(fd);
		return -EISDIR;
	}
	if (S_ISREG(st.st_mode))
		size = (long long)st.st_size;
	*read_failed = 0;
	if (jobs > 1 && size > 0 && (rc = replay_mapped(r, path, fd, (size_t)size, jobs)) != 1) {
		close(fd);
		*bytes = (size_t)size;
		return rc;
	}
	rc = 0;
	gz = gzdopen(fd, "rb");
	buf = malloc(CHUNK);
	if (!gz || !buf) {
		if (gz)
			gzclose(gz);
		else
			close(fd);
		free(buf);
		return -ENOMEM;
	}
	gzbuffer(gz, 256 * 1024);
	while ((n = gzread(gz, buf, CHUNK)) > 0) {
		total += (size_t)n;
		if (first && sp_audit_record_is_stream(buf, (size_t)n)) {
			rc = replay_stream_rest(r, path, gz, buf, (size_t)n);
			n = rc == -EIO ? -1 : 0;
			if (rc == -EIO)
				rc = 0;
			break;
		}
		first = 0;
		rc = sp_audit_replay_feed(r, path, buf, (size_t)n);
		if (rc)
			break;
		if (progress && now_s() - last >= 0.5) {
			last = now_s();
			/* compressed input: the position in the file, not the bytes decoded */
			size_t at = gzdirect(gz) ? total : (size_t)gzoffset(gz);
			progress_line(r, cli, path, at, size, last - t0);
		}
	}
	if (!rc && n == 0) {
		int e;
		gzerror(gz, &e);	/* zlib reports a truncated stream as a "soft" end of file */
		if (e == Z_BUF_ERROR)
			n = -1;
	}
	if (!rc && n < 0) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, gz_reason(gz));
		rc = -EIO;
		*read_failed = 1;
	}
	if (progress && total)
		fputc('\n', cli->err);
	gzclose(gz);
	free(buf);
	*bytes = total;
	return rc;
}

static const char *list_name(uint32_t l)
{
	static const char *const names[] = { "user", "task", "entry", "watch", "exit", "exclude",
					     "filesystem", "io_uring" };
	return l < 8 ? names[l] : "?";
}

static void print_key_text(FILE *f, const char *k)
{
	for (; *k; k++)
		fputc(*k >= 0x21 && *k <= 0x7e ? *k : '?', f);
}

static void report_text(struct sp_cli *cli, struct sp_audit_replay *r, const struct sp_diags *d,
			unsigned jobs)
{
	struct sp_audit_replay_stats st;
	struct sp_audit_replay_rule rr;
	FILE *f = cli->out;
	sp_audit_replay_get_stats(r, &st);
	fprintf(f, "events: %llu read, %llu kept, %llu dropped\n", (unsigned long long)st.events,
		(unsigned long long)st.kept, (unsigned long long)st.dropped);
	fprintf(f, "lines: %llu read, %llu parsed, %llu malformed", (unsigned long long)st.lines,
		(unsigned long long)st.records, (unsigned long long)st.malformed);
	if (st.skipped)
		fprintf(f, ", %llu skipped", (unsigned long long)st.skipped);
	if (st.truncated)
		fprintf(f, ", %llu truncated", (unsigned long long)st.truncated);
	fputc('\n', f);
	fprintf(f, "records: %llu kept, %llu dropped\n", (unsigned long long)st.records_kept,
		(unsigned long long)st.records_dropped);
	fputs("rules:\n", f);
	for (size_t i = 0; i < sp_audit_replay_rule_count(r); i++) {
		if (sp_audit_replay_rule(r, i, &rr))
			continue;
		fprintf(f, "  %s:%u\t%-8s\t%llu%s\n", rr.file, rr.line,
			rr.is_del ? "delete" : list_name(rr.list), (unsigned long long)rr.hits,
			rr.load_err ? "\t(not loaded)" : "");
	}
	fputs("keys:\n", f);
	for (size_t i = 0; i < sp_audit_replay_key_count(r); i++) {
		const char *k;
		uint64_t c;
		sp_audit_replay_key(r, i, &k, &c);
		fputs("  ", f);
		print_key_text(f, k);
		fprintf(f, "\t%llu\n", (unsigned long long)c);
	}
	fputs("never fired:\n", f);
	for (size_t i = 0; i < sp_audit_replay_rule_count(r); i++)
		if (!sp_audit_replay_rule(r, i, &rr) && !rr.is_del && !rr.load_err && !rr.hits)
			fprintf(f, "  %s:%u\n", rr.file, rr.line);
	fprintf(f, "malformed: %llu\n", (unsigned long long)st.malformed);
	if (jobs > 1) {
		uint64_t split, whole;
		sp_audit_replay_get_jobs(r, &split, &whole);
		fprintf(f, "jobs: %u threads; %llu inputs read in parts, %llu read again in one pass "
			"(an event across a cut)\n", jobs, (unsigned long long)split,
			(unsigned long long)whole);
	}
	(void)d;
}

static void report_json(struct sp_cli *cli, struct sp_audit_replay *r, const struct sp_diags *d,
			unsigned jobs)
{
	struct sp_audit_replay_stats st;
	struct sp_audit_replay_rule rr;
	FILE *f = cli->out;
	int first = 1;
	sp_audit_replay_get_stats(r, &st);
	fprintf(f,
		"{\"schema\":\"secpath.audit-replay/1\",\"events\":{\"read\":%llu,\"kept\":%llu,\"dropped\":%llu,\"from_streams\":%llu},",
		(unsigned long long)st.events, (unsigned long long)st.kept,
		(unsigned long long)st.dropped, (unsigned long long)st.stream_events);
	fprintf(f, "\"lines\":{\"read\":%llu,\"parsed\":%llu,\"malformed\":%llu,\"skipped\":%llu,"
		"\"truncated\":%llu},\"bytes\":%llu,", (unsigned long long)st.lines,
		(unsigned long long)st.records, (unsigned long long)st.malformed,
		(unsigned long long)st.skipped, (unsigned long long)st.truncated,
		(unsigned long long)st.bytes);
	fprintf(f, "\"records\":{\"kept\":%llu,\"dropped\":%llu},\"rules\":[",
		(unsigned long long)st.records_kept, (unsigned long long)st.records_dropped);
	for (size_t i = 0; i < sp_audit_replay_rule_count(r); i++) {
		if (sp_audit_replay_rule(r, i, &rr))
			continue;
		fprintf(f, "%s{\"rule\":", first ? "" : ",");
		char loc[512];
		snprintf(loc, sizeof(loc), "%s:%u", rr.file, rr.line);
		cli_json_str(f, loc);
		fprintf(f, ",\"list\":\"%s\",\"loaded\":%s,\"hits\":%llu}",
			rr.is_del ? "delete" : list_name(rr.list), rr.load_err ? "false" : "true",
			(unsigned long long)rr.hits);
		first = 0;
	}
	fputs("],\"keys\":{", f);
	for (size_t i = 0; i < sp_audit_replay_key_count(r); i++) {
		const char *k;
		uint64_t c;
		sp_audit_replay_key(r, i, &k, &c);
		fputs(i ? "," : "", f);
		cli_json_str(f, k);
		fprintf(f, ":%llu", (unsigned long long)c);
	}
	fputs("},\"never_fired\":[", f);
	first = 1;
	for (size_t i = 0; i < sp_audit_replay_rule_count(r); i++)
		if (!sp_audit_replay_rule(r, i, &rr) && !rr.is_del && !rr.load_err && !rr.hits) {
			char loc[512];
			snprintf(loc, sizeof(loc), "%s:%u", rr.file, rr.line);
			fputs(first ? "" : ",", f);
			cli_json_str(f, loc);
			first = 0;
		}
	fputs("],", f);
	if (jobs > 1) {
		uint64_t split, whole;
		sp_audit_replay_get_jobs(r, &split, &whole);
		fprintf(f, "\"jobs\":{\"threads\":%u,\"split\":%llu,\"one_pass\":%llu},", jobs,
			(unsigned long long)split, (unsigned long long)whole);
	}
	fputs("\"diagnostics\":", f);
	cli_json_diags(f, d);
	fputs("}\n", f);
}

struct replay_args {
	struct cli_rules_args ra;
	const char *output;
	const char **inputs;		/* argc slots */
	size_t ninputs, window;
	int json;
	unsigned fmt;			/* --format, -i: SP_AUDIT_REPLAY_LAUREL... (0: raw) */
	unsigned extra;			/* --extra-*: SP_AUDIT_REPLAY_EXTRA_* */
	unsigned jobs;			/* --jobs N: threads per plain audit.log file (1) */
	struct sp_audit_search *search;	/* ausearch's options */
	int input_logs;			/* --input-logs: auditd's logs, whatever stdin is */
	char **owned;			/* the inputs a directory or auditd's logs expanded to */
	size_t nowned;
	int report;			/* --report KIND: enum sp_audit_report_kind + 1, 0 = none */
	int summary;			/* --summary */
};

/* --report's KIND (aureport's option in the comment), or -1. */
static int report_kind(const char *v)
{
	static const char *const names[] = { [SP_AUDIT_REPORT_SUMMARY] = "summary",
					     [SP_AUDIT_REPORT_KEY] = "key",
					     [SP_AUDIT_REPORT_EXE] = "exe",
					     [SP_AUDIT_REPORT_FILE] = "file",
					     [SP_AUDIT_REPORT_AUTH] = "auth",
					     [SP_AUDIT_REPORT_LOGIN] = "login",
					     [SP_AUDIT_REPORT_LOG] = "log" };
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(v, names[k]))
			return (int)k;
	return -1;
}

/* --report and --summary together: 0, or SP_EXIT_USAGE (said why). */
static int report_check(struct sp_cli *cli, struct replay_args *ra)
{
	if (ra->summary && !ra->report)
		ra->report = SP_AUDIT_REPORT_SUMMARY + 1;
	if (!ra->report)
		return 0;
	if (ra->summary && ra->report == SP_AUDIT_REPORT_LOG + 1) {
		fprintf(cli->err, "%s: audit replay: --report log has no --summary\n", cli->prog);
		return SP_EXIT_USAGE;
	}
	if (ra->json) {
		fprintf(cli->err, "%s: audit replay: --report writes aureport's text, not --json\n",
			cli->prog);
		return SP_EXIT_USAGE;
	}
	return 0;
}

static int is_date_word(const char *v)
{
	static const char *const w[] = { "now", "recent", "today", "yesterday", "this-week",
					 "week-ago", "this-month", "this-year" };
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(v, w[i]))
			return 1;
	return strchr(v, '/') != NULL;
}

/* -ts/-te take a second word only when it completes the pair (a time after a date or the
 * reverse), so a log file name after them is never read as a time. */
int cli_audit_search_arg(int argc, char **argv, int *i, struct sp_cli *cli,
			 struct sp_audit_search *search, const char *cmd)
{
	static const char *const one[] = {
		"-k", "--key", "-m", "--message", "-sc", "--syscall", "-p", "--pid", "-pp",
		"--ppid", "-ui", "--uid", "-ue", "--uid-effective", "-ua", "--uid-all", "-ul",
		"--loginuid", "-gi", "--gid", "-ge", "--gid-effective", "-ga", "--gid-all",
		"--session", "-e", "--exit", "-x", "--executable", "--comm", "-tm", "--terminal",
		"-hn", "--host", "-n", "--node", "-vm", "--vm-name", "-uu", "--uuid", "-su",
		"--subject", "-o", "--object", "-se", "--context", "-sv", "--success", "-a",
		"--event", "-f", "--file" };
	const char *a = argv[*i], *v1 = NULL, *v2 = NULL;
	int word = !strcmp(a, "-w") || !strcmp(a, "--word"), known = word;
	int timed = !strcmp(a, "-ts") || !strcmp(a, "--start") || !strcmp(a, "-te") ||
		    !strcmp(a, "--end");
	for (size_t k = 0; k < sizeof(one) / sizeof(one[0]); k++)
		known |= !strcmp(a, one[k]);
	if (!known && !timed)
		return 0;
	if (!word) {
		if (*i + 1 >= argc) {
			fprintf(cli->err, "%s: audit %s: %s needs an argument\n", cli->prog, cmd, a);
			return SP_EXIT_USAGE;
		}
		v1 = argv[++*i];
	}
	if (timed && *i + 1 < argc) {
		const char *n = argv[*i + 1];
		if ((strchr(v1, ':') && is_date_word(n)) || (!strchr(v1, ':') && strchr(n, ':')))
			v2 = argv[++*i];
	}
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	int rc = sp_audit_search_set(search, a, v1, v2, &d);
	if (rc) {
		fprintf(cli->err, "%s: audit %s: %s\n", cli->prog, cmd,
			d.n ? d.v[0].msg : strerror(-rc));
		sp_diags_release(&d);
		return SP_EXIT_USAGE;
	}
	sp_diags_release(&d);
	return 1;
}

/* 0, SP_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, struct sp_cli *cli, struct replay_args *ra)
{
	int dashdash = 0, r;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (dashdash || a[0] != '-' || !a[1]) {
			ra->inputs[ra->ninputs++] = a;
		} else if (cli_is_help(a)) {
			usage(cli->out);
			return -1;
		} else if ((r = cli_audit_search_arg(argc, argv, &i, cli, ra->search, "replay"))) {
			if (r != 1)
				return r;
		} else if ((r = cli_rules_arg(argc, argv, &i, &ra->ra)) < 0) {
			break;
		} else if (r) {
			;
		} else if (!strcmp(a, "--json")) {
			ra->json = 1;
		} else if (!strcmp(a, "--input-logs")) {
			ra->input_logs = 1;
		} else if (!strcmp(a, "--summary")) {
			ra->summary = 1;
		} else if (!strcmp(a, "--report") && i + 1 < argc) {
			int k = report_kind(argv[++i]);
			if (k < 0) {
				fprintf(cli->err, "%s: audit replay: unknown report '%s' (summary, key, "
					"exe, file, auth, login, log)\n", cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
			ra->report = k + 1;
		} else if (!strcmp(a, "--output") && i + 1 < argc) {
			ra->output = argv[++i];
		} else if ((r = cli_event_format_arg(argc, argv, &i, cli, &ra->fmt, &ra->extra,
						     "replay"))) {
			if (r != 1)
				return r;
		} else if (!strcmp(a, "--jobs") && i + 1 < argc) {
			unsigned long long v;
			if (cli_parse_u64(argv[++i], &v) || !v || v > 64) {
				fprintf(cli->err, "%s: audit replay: bad --jobs '%s' (1 to 64)\n",
					cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
			ra->jobs = (unsigned)v;
		} else if (!strcmp(a, "--window") && i + 1 < argc) {
			char *e;
			unsigned long v = strtoul(argv[++i], &e, 10);
			if (*e || !v || v > 65536) {
				fprintf(cli->err, "%s: audit replay: bad --window '%s' (1 to 65536)\n",
					cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
			ra->window = v;
		} else if (!strcmp(a, "--")) {
			dashdash = 1;
		} else {
			fprintf(cli->err, "%s: audit replay: unknown option '%s'\n", cli->prog, a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (cli_rules_args_check(cli, &ra->ra, "replay") || report_check(cli, ra))
		return SP_EXIT_USAGE;
	if (cli_event_format_check(cli, ra->fmt, ra->extra, "replay"))
		return SP_EXIT_USAGE;
	if (ra->jobs > 1 && (ra->fmt || ra->report)) {
		fprintf(cli->err, "%s: audit replay: --jobs writes the kept records and the "
			"counts, not --format %s or --report (they read the input in one pass)\n",
			cli->prog, "laurel|interpret|csv|text");
		return SP_EXIT_USAGE;
	}
	if (ra->report && (ra->output ? !strcmp(ra->output, "-") : ra->fmt != 0)) {
		fprintf(cli->err, "%s: audit replay: --report writes to standard output: the kept "
			"events need an --output FILE\n", cli->prog);
		return SP_EXIT_USAGE;
	}
	if (ra->fmt && !ra->output)
		ra->output = "-";
	if (!ra->ra.rules && !sp_audit_search_active(ra->search) && !ra->fmt && !ra->report) {
		fprintf(cli->err, "%s: audit replay: nothing to do: give -R RULES, an ausearch "
			"option, --format or --report\n", cli->prog);
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	return 0;
}

/* Every input in turn.  0, or the first input's failure (printed; then no report). */
static int replay_inputs(struct sp_cli *cli, struct sp_audit_replay *rp,
			 const struct replay_args *ra, const struct sp_diags *d, size_t *empty,
			 struct sp_audit_report *rep)
{
	int progress = isatty(fileno(cli->err)), read_failed = 0, rc = 0;
	for (size_t k = 0; k < ra->ninputs && !rc; k++) {
		struct sp_audit_replay_stats before, after;
		size_t bytes = 0;
		if (rep)
			sp_audit_report_input(rep, ra->inputs[k]);
		sp_audit_replay_get_stats(rp, &before);
		rc = replay_input(rp, ra->inputs[k], cli, progress, ra->jobs, &bytes, &read_failed);
		sp_audit_replay_get_stats(rp, &after);
		if (!rc && bytes && after.records + after.stream_events ==
					    before.records + before.stream_events) {
			fprintf(cli->err, "%s: audit replay: '%s': no audit record in %zu bytes\n",
				cli->prog, ra->inputs[k], bytes);
			(*empty)++;
		}
	}
	if (!rc)
		return 0;
	/* an input that could not be read to its end, or the output that could not be written */
	cli_print_diags(cli, d, NULL, NULL);
	if (rc == -ENOMEM)
		fprintf(cli->err, "%s: audit replay: %s\n", cli->prog, strerror(-rc));
	else if (rc != -EINVAL && !read_failed && ra->output)
		fprintf(cli->err, "%s: cannot write '%s': %s; it was left as it was\n", cli->prog,
			ra->output, strerror(-rc));
	return rc;
}

/* The replay of ra's rules, or NULL after saying why (rules errors stop it without -c, as
 * auditctl -R stops at a rejected line). */
static struct sp_audit_replay *replay_open(struct sp_cli *cli, const struct replay_args *ra,
					   int out_fd, const char *text, size_t tlen,
					   const struct sp_audit_ruleset *rs, struct sp_diags *d,
					   struct sp_audit_report *rep)
{
	struct sp_audit_replay *rp = NULL;
	struct sp_audit_replay_opts o = {
		.sz = sizeof(o), .parse = &ra->ra.po, .window = ra->window, .out_fd = out_fd,
		.diags = d, .rules = rs,
		.search = sp_audit_search_active(ra->search) ? ra->search : NULL,
		.flags = (ra->ra.rules ? 0 : SP_AUDIT_REPLAY_NO_RULES) |
			 ra->fmt | ra->extra,
		.report = rep
	};
	int rc = sp_audit_replay_new(text ? text : "", text ? tlen : 0,
				     ra->ra.rules ? ra->ra.rules : "(no rules)", &o, &rp);
	if (rc || (d->nerrors && !ra->ra.keep_going)) {
		cli_print_diags(cli, d, NULL, NULL);
		if (rc)
			fprintf(cli->err, "%s: audit replay: cannot load '%s': %s\n", cli->prog,
				ra->ra.rules, strerror(-rc));
		else
			fprintf(cli->err, "%s: audit replay: '%s' has errors (-c uses the lines that "
				"parse)\n", cli->prog, ra->ra.rules);
		sp_audit_replay_free(rp);
		return NULL;
	}
	return rp;
}

/* auditd.conf's log_file (as libaudit reads "log_file = PATH"), else auditd's default. */
static char *auditd_log_file(void)
{
	FILE *f = fopen("/etc/audit/auditd.conf", "re");
	char line[4096], *path = NULL;

	while (f && !path && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");
		if (strncmp(p, "log_file", 8) || !strchr(" \t=", p[8]))
			continue;
		p += 8 + strspn(p + 8, " \t");
		if (*p++ != '=')
			continue;
		p += strspn(p, " \t");
		size_t n = strcspn(p, "\r\n");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n)
			path = strndup(p, n);
	}
	if (f)
		fclose(f);
	return path ? path : strdup("/var/log/audit/audit.log");
}

static int owned_add(struct replay_args *ra, char *path)
{
	char **v = path ? realloc(ra->owned, (ra->nowned + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(path);
		return -ENOMEM;
	}
	ra->owned = v;
	ra->owned[ra->nowned++] = path;
	return 0;
}

/* ausearch's process_logs(): BASE.N .. BASE.1 (the readable ones from .1 up, oldest first),
 * then BASE.  A missing BASE with no rotation is refused here, naming it. */
static int add_rotations(struct sp_cli *cli, struct replay_args *ra, const char *base)
{
	char p[4200];
	unsigned n = 0;

	while (n < 10000 && snprintf(p, sizeof(p), "%s.%u", base, n + 1) < (int)sizeof(p) &&
	       !access(p, R_OK))
		n++;
	if (!n && access(base, R_OK)) {
		fprintf(cli->err, "%s: audit replay: cannot read '%s': %s\n", cli->prog, base,
			strerror(errno));
		return -errno;
	}
	for (; n; n--) {
		snprintf(p, sizeof(p), "%s.%u", base, n);
		if (owned_add(ra, strdup(p)))
			return -ENOMEM;
	}
	return access(base, R_OK) ? 0 : owned_add(ra, strdup(base));
}

/* The inputs as ausearch takes them: a directory is its audit.log and rotations (-if DIR);
 * no input is stdin when it is a pipe, else auditd's log and rotations (--input-logs: always). */
static int expand_inputs(struct sp_cli *cli, struct replay_args *ra)
{
	struct stat st;
	int rc = 0;

	if (!ra->ninputs) {
		if (!ra->input_logs && !fstat(0, &st) && S_ISFIFO(st.st_mode)) {
			ra->inputs[ra->ninputs++] = "-";
			return 0;
		}
		char *base = auditd_log_file();
		if (!base)
			return -ENOMEM;
		rc = add_rotations(cli, ra, base);
		free(base);
	}
	for (size_t k = 0; k < ra->ninputs && !rc; k++) {
		char dir[4200];
		if (strcmp(ra->inputs[k], "-") && !stat(ra->inputs[k], &st) && S_ISDIR(st.st_mode)) {
			size_t n = strlen(ra->inputs[k]);
			snprintf(dir, sizeof(dir), "%s%saudit.log", ra->inputs[k],
				 n && ra->inputs[k][n - 1] == '/' ? "" : "/");
			rc = add_rotations(cli, ra, dir);
		} else {
			rc = owned_add(ra, strdup(ra->inputs[k]));
		}
	}
	if (rc)
		return rc;
	const char **v = realloc(ra->inputs, (ra->nowned ? ra->nowned : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	ra->inputs = v;
	for (size_t k = 0; k < ra->nowned; k++)
		ra->inputs[k] = ra->owned[k];
	ra->ninputs = ra->nowned;
	return 0;
}

static void replay_args_release(struct replay_args *ra)
{
	for (size_t k = 0; k < ra->nowned; k++)
		free(ra->owned[k]);
	free(ra->owned);
	free(ra->inputs);
	sp_audit_search_free(ra->search);
}

int cmd_audit_replay(int argc, char **argv, struct sp_cli *cli)
{
	struct replay_args ra;
	struct sp_diags d;
	struct sp_audit_replay *rp = NULL;
	struct sp_audit_report *rep = NULL;
	struct sp_audit_ruleset *tsv = NULL;
	struct cli_files files;
	struct cli_out out = { .fd = -1, .slot = -1 };
	char *text = NULL;
	size_t tlen, empty = 0;
	int rc, status = SP_EXIT_REJECTED;

	memset(&ra, 0, sizeof(ra));
	cli_rules_args_init(&ra.ra);
	ra.inputs = calloc((size_t)argc, sizeof(*ra.inputs));
	if (!ra.inputs || sp_audit_search_new(&ra.search)) {
		free(ra.inputs);
		return SP_EXIT_REJECTED;
	}
	rc = parse_args(argc, argv, cli, &ra);
	/* ausearch and aureport print dates in the environment's %x (their setlocale) */
	if (!rc && ((ra.fmt & ~SP_AUDIT_REPLAY_LAUREL) || ra.report))
		setlocale(LC_TIME, "");
	if (!rc && expand_inputs(cli, &ra))
		rc = SP_EXIT_REJECTED;
	if (rc) {
		replay_args_release(&ra);
		return rc < 0 ? SP_EXIT_OK : rc;
	}
	cli_files_init(&files);
	cli_rules_args_inputs(&ra.ra, &files);
	for (size_t k = 0; k < ra.ninputs; k++)
		cli_files_add_input(&files, ra.inputs[k]);
	sp_diags_init(&d, NULL);
	d.limit = 1000;
	rc = ra.ra.rules ? sp_file_read(ra.ra.rules, &text, &tlen) : 0;
	if (rc) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, ra.ra.rules,
			strerror(-rc));
		goto out;
	}
	if (ra.output && cli_out_open(cli, &files, &out, ra.output))
		goto out;
	/* a .tsv of blobs is read here; rules text is read by the replay itself */
	size_t rl = ra.ra.rules ? strlen(ra.ra.rules) : 0;
	if (rl > 4 && !strcmp(ra.ra.rules + rl - 4, ".tsv") &&
	    cli_rules_parse(ra.ra.rules, text, tlen, &ra.ra.po, &tsv, &d)) {
		cli_print_diags(cli, &d, NULL, NULL);
		goto out;
	}
	if (ra.report) {
		struct sp_audit_report_opts ro = { .sz = sizeof(ro), .kind = ra.report - 1,
						   .summary = ra.summary, .out = cli->out,
						   .piped = sp_audit_search_active(ra.search) };
		if (sp_audit_report_new(&ro, &rep))
			goto out;
	}
	rp = replay_open(cli, &ra, ra.output ? out.fd : -1, text, tlen, tsv, &d, rep);
	size_t rule_errors = d.nerrors;
	if (!rp || replay_inputs(cli, rp, &ra, &d, &empty, rep))
		goto out;
	rc = sp_audit_replay_finish(rp);
	if (rc) {
		cli_print_diags(cli, &d, NULL, NULL);
		fprintf(cli->err, "%s: audit replay: %s%s%s\n", cli->prog, ra.output ? ra.output : "",
			ra.output ? ": " : "", strerror(-rc));
		goto out;
	}
	status = d.nerrors > rule_errors || empty ? SP_EXIT_REJECTED : SP_EXIT_OK;
	if (ra.output && cli_out_commit(cli, &out))
		status = SP_EXIT_REJECTED;
	FILE *report = cli->out;
	if (ra.output && out.is_std)
		cli->out = cli->err;	/* stdout carries the records */
	if (rep) {
		cli_print_diags(cli, &d, NULL, NULL);
		if (sp_audit_report_finish(rep))
			status = SP_EXIT_REJECTED;
	} else if (ra.json) {
		report_json(cli, rp, &d, ra.jobs);
	} else {
		cli_print_diags(cli, &d, NULL, NULL);
		report_text(cli, rp, &d, ra.jobs);
	}
	cli->out = report;
out:
	if (ra.output)
		cli_out_abort(&out);	/* no-op after a commit */
	sp_audit_replay_free(rp);
	sp_audit_report_free(rep);
	sp_audit_ruleset_free(tsv);
	sp_diags_release(&d);
	free(text);
	replay_args_release(&ra);
	return status;
}
