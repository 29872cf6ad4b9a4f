/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_audit_log.c - libFuzzer target for the audit.log reader and replay: any bytes as an
 * audit.log, read whole and again in chunks (sizes from the first byte) with a small window,
 * each event built into filter inputs and decided by a fixed rule set with watch, dir and exe
 * rules.  Invariants: lines == records + malformed + skipped + truncated; both feedings give the same counts; events
 * read == kept + dropped; every record's text lies inside the input; ausearch's selection
 * (keys, types, syscall by name, a time range, pids, uids, exe, files, success: every record parser
 * runs) answers 0 or 1 for every event; laurel's JSON of every event (and of every other record
 * alone) is whole lines `{...}\n` with no control byte inside and only UTF-8 lead bytes that
 * start a sequence; aureport's report (its kind, or ausearch's -i, csv or text, and --summary from the
 * first byte) over every event of a rules-less replay (some bytes: through the selection
 * above, as piped from ausearch) finishes with text that starts with aureport's blank line;
 * ausearch -i's text of every event (sp_audit_log_event_interpret) starts "----\n", no NUL;
 * its --format csv and text lines (sp_audit_log_event_normalize) end with a newline, no NUL;
 * an input of 8 KiB or more fed by 2-4 threads (sp_audit_replay_feed_jobs) counts as one pass.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/audit_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char rules[] =
	"-a always,exit -F path=/etc/shadow -F perm=wa -k shadow\n"
	"-a always,exit -F dir=/var/spool -k spool\n"
	"-a never,exit -F exe=/usr/sbin/sshd\n"
	"-a always,exit -F arch=b64 -S execve,openat -F auid>=1000 -F auid!=unset -k exec\n"
	"-a never,task -F uid=33\n"
	"-a never,user -F uid=0 -F msgtype=USER_CMD\n"
	"-a always,exclude -F msgtype=CWD\n"
	"-a always,exit -F obj_type=shadow_t -F success=0 -k denied\n";

struct ctx {
	const uint8_t *data;
	size_t size;
};

static struct sp_audit_search *search, *search_any;

/* Every other criterion, so every parser's every branch runs; -ua/-ga/-se are the OR forms,
 * names the lookups. */
static struct sp_audit_search *search_others(void)
{
	static const char *const opts[][2] = {
		{ "-ua", "root" }, { "-ga", "0" }, { "-se", "_t" }, { "-w", NULL },
		{ "-ue", "0" }, { "--session", "1" }, { "-e", "-EACCES" }, { "--comm", "a" },
		{ "-tm", "p" }, { "-hn", "1" }, { "-vm", "g" }, { "-uu", "1" }, { "-n", "n" },
	};
	struct sp_audit_search *s;
	if (sp_audit_search_new(&s))
		abort();
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (sp_audit_search_set(s, opts[i][0], opts[i][1], NULL, NULL))
			abort();
	return s;
}

/* The JSON lines of sp_audit_log_event_laurel: each "{...}\n", no control byte inside. */
static int check_laurel(void *ud, const char *s, size_t n)
{
	(void)ud;
	for (size_t i = 0, start = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n') {
			if (i == start || s[start] != '{' || s[i - 1] != '}')
				abort();
			start = i + 1;
		} else if (c < 0x20 || c == 0x7f || (i + 1 == n)) {
			abort();
		}
	}
	return 0;
}

/* sp_audit_log_event_interpret's text: "----\n" first, no NUL byte (a record cut short,
 * at a NUL byte, ends without its newline, as ausearch's does). */
static int check_interpret(void *ud, const char *s, size_t n)
{
	(void)ud;
	if (n < 5 || memcmp(s, "----\n", 5) || memchr(s, '\0', n))
		abort();
	return 0;
}

/* sp_audit_log_event_normalize's lines: each ends with its newline, no NUL byte. */
static int check_normalize(void *ud, const char *s, size_t n)
{
	(void)ud;
	if (!n || s[n - 1] != '\n' || memchr(s, '\0', n))
		abort();
	return 0;
}

static int check_event(void *ud, const struct sp_audit_log_event *ev)
{
	const struct ctx *c = ud;
	if (!search_any)
		search_any = search_others();
	if ((unsigned)sp_audit_search_match(search_any, ev, NULL) > 1)
		abort();
	if (!search) {
		if (sp_audit_search_new(&search) ||
		    sp_audit_search_set(search, "-gi", "0", NULL, NULL) ||
		    sp_audit_search_set(search, "-ge", "0", NULL, NULL) ||
		    sp_audit_search_set(search, "-su", "s", NULL, NULL) ||
		    sp_audit_search_set(search, "-o", "o", NULL, NULL) ||
		    sp_audit_search_set(search, "-k", "a", NULL, NULL) ||
		    sp_audit_search_set(search, "-m", "SYSCALL,CONFIG_CHANGE,AVC,SECCOMP,1800", NULL,
					NULL) ||
		    sp_audit_search_set(search, "-sc", "openat", NULL, NULL) ||
		    sp_audit_search_set(search, "-ts", "01/01/04", NULL, NULL) ||
		    sp_audit_search_set(search, "-p", "1", NULL, NULL) ||
		    sp_audit_search_set(search, "-pp", "1", NULL, NULL) ||
		    sp_audit_search_set(search, "-ui", "0", NULL, NULL) ||
		    sp_audit_search_set(search, "-ul", "1000", NULL, NULL) ||
		    sp_audit_search_set(search, "-x", "/", NULL, NULL) ||
		    sp_audit_search_set(search, "-f", "e", NULL, NULL) ||
		    sp_audit_search_set(search, "-sv", "no", NULL, NULL))
			abort();
	}
	unsigned m = (unsigned)sp_audit_search_match(search, ev, NULL);
	if (m > 1)
		abort();
	uint8_t mask[64];
	size_t nrec = sp_audit_log_event_nrec(ev);
	for (size_t i = 0; i < sizeof(mask); i++)
		mask[i] = (uint8_t)(i % 3 != 1);
	if (sp_audit_log_event_laurel(ev, NULL, "k\001\377", NULL, check_laurel, NULL) ||
	    (nrec <= sizeof(mask) &&
	     sp_audit_log_event_laurel(ev, mask, NULL, NULL, check_laurel, NULL)) ||
	    sp_audit_log_event_interpret(ev, NULL, check_interpret, NULL) ||
	    sp_audit_log_event_normalize(ev, NULL, SP_AUDIT_REPLAY_CSV | SP_AUDIT_REPLAY_EXTRA_KEYS |
					 SP_AUDIT_REPLAY_EXTRA_OBJ2 | SP_AUDIT_REPLAY_EXTRA_TIME,
					 check_normalize, NULL) ||
	    sp_audit_log_event_normalize(ev, NULL, SP_AUDIT_REPLAY_TEXT, check_normalize, NULL))
		abort();
	for (size_t i = 0; i < sp_audit_log_event_nrec(ev); i++) {
		const struct sp_audit_log_rec *r = sp_audit_log_event_rec(ev, i);
		if (!r || r->line == 0 || !memmem(c->data, c->size, r->text, r->len))
			abort();
	}
	return 0;
}

/* Two long-lived replays (rules compiled once): each input is fed, finished, and measured as
 * the difference of the counters.  The second writes its kept events as laurel's JSON to
 * /dev/null (the replay's output hook). */
static struct sp_audit_replay *replays[2];

static void run(int which, const uint8_t *data, size_t size, size_t chunk,
		struct sp_audit_replay_stats *out)
{
	struct sp_audit_replay_stats before;
	struct sp_audit_replay *r;
	if (!replays[which]) {
		static struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
		struct sp_audit_replay_opts o = {
			.sz = sizeof(o), .parse = &po, .window = 4, .out_fd = -1,
			.flags = which ? SP_AUDIT_REPLAY_LAUREL : 0
		};
		if (which && (o.out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
			abort();
		if (sp_audit_replay_new(rules, sizeof(rules) - 1, "fuzz.rules", &o,
					&replays[which]))
			abort();
	}
	r = replays[which];
	sp_audit_replay_get_stats(r, &before);
	for (size_t off = 0; off < size; off += chunk)
		if (sp_audit_replay_feed(r, "fuzz.log", data + off,
					 size - off < chunk ? size - off : chunk))
			abort();
	if (sp_audit_replay_finish(r))
		abort();
	sp_audit_replay_get_stats(r, out);
	out->lines -= before.lines;
	out->records -= before.records;
	out->malformed -= before.malformed;
	out->truncated -= before.truncated;
	out->skipped -= before.skipped;
	out->events -= before.events;
	out->kept -= before.kept;
	out->dropped -= before.dropped;
	out->records_kept -= before.records_kept;
	out->records_dropped -= before.records_dropped;
	if (out->lines != out->records + out->malformed + out->truncated + out->skipped || out->truncated > 1 ||
	    out->events != out->kept + out->dropped ||
	    out->records_kept + out->records_dropped != out->records)
		abort();
}

/* A report over every event of a replay without rules (the per-event hook replay calls). */
static void run_report(const uint8_t *data, size_t size)
{
	char *text = NULL;
	size_t tlen = 0;
	FILE *f = open_memstream(&text, &tlen);
	int b = size ? data[0] : 0, kind = b % 10;
	struct sp_audit_report_opts ro = { .sz = sizeof(ro), .kind = kind, .extra = (unsigned)b / 32,
					   .summary = kind < SP_AUDIT_REPORT_LOG && (b / 8) % 2,
					   .out = f, .piped = (b / 16) % 2 };
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .window = 4, .out_fd = -1,
					  .flags = SP_AUDIT_REPLAY_NO_RULES };
	struct sp_audit_report *rep;
	struct sp_audit_replay *r;

	if (!f || sp_audit_report_new(&ro, &rep))
		abort();
	o.report = rep;
	if (ro.piped)	/* ausearch's selection: the unselected events take their place too */
		o.search = search;
	if (sp_audit_replay_new("", 0, "(no rules)", &o, &r) || sp_audit_report_input(rep, "fuzz.log") ||
	    sp_audit_replay_feed(r, "fuzz.log", data, size) || sp_audit_replay_finish(r) ||
	    sp_audit_report_finish(rep))
		abort();
	sp_audit_replay_free(r);
	sp_audit_report_free(rep);
	/* aureport's text starts with its blank line; ausearch -i's (INTERPRET) with "----";
	 * ausearch's CSV with its heading, its text with "At " or "On " */
	if (fclose(f) ||
	    (kind == SP_AUDIT_REPORT_INTERPRET ? tlen && strncmp(text, "----\n", 5) :
	     kind == SP_AUDIT_REPORT_CSV ? tlen && strncmp(text, "NODE,EVENT,DATE,TIME,", 21) :
	     kind == SP_AUDIT_REPORT_TEXT ? tlen && strncmp(text, "At ", 3) && strncmp(text, "On ", 3) :
	     tlen < 2 || text[0] != '\n'))
		abort();
	free(text);
}

/* The input fed whole by 2-4 threads (sp_audit_replay_feed_jobs): one pass's counts in *out. */
static void run_jobs(const uint8_t *data, size_t size, struct sp_audit_replay_stats *out)
{
	static struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .parse = &po, .window = 4, .out_fd = -1 };
	struct sp_audit_replay *r;
	if (sp_audit_replay_new(rules, sizeof(rules) - 1, "fuzz.rules", &o, &r) ||
	    sp_audit_replay_feed_jobs(r, "fuzz.log", data, size, 2u + data[0] % 3u) ||
	    sp_audit_replay_finish(r))
		abort();
	sp_audit_replay_get_stats(r, out);
	sp_audit_replay_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_audit_replay_stats a, b, j;
	struct ctx c = { data, size };
	size_t chunk = size ? (size_t)(data[0] % 61) + 1 : 1;
	run(0, data, size, size ? size : 1, &a);
	run(1, data, size, chunk, &b);
	if (a.lines != b.lines || a.records != b.records || a.malformed != b.malformed ||
	    a.truncated != b.truncated || a.skipped != b.skipped ||
	    a.kept != b.kept || a.dropped != b.dropped)
		abort();
	if (size >= 8192) {	/* large enough to be cut: the parts add up to one pass */
		run_jobs(data, size, &j);
		if (j.lines != a.lines || j.records != a.records || j.malformed != a.malformed ||
		    j.truncated != a.truncated || j.skipped != a.skipped || j.events != a.events ||
		    j.kept != a.kept || j.dropped != a.dropped || j.records_kept != a.records_kept ||
		    j.records_dropped != a.records_dropped)
			abort();
	}

	/* the bare reader with a tiny line limit and window: texts point into the input */
	struct sp_audit_log_opts lo = { .sz = sizeof(lo), .window = 2, .max_line = 200,
					.on_event = check_event, .ud = &c };
	struct sp_audit_log *l;
	struct sp_audit_log_stats st;
	if (sp_audit_log_new(&lo, &l))
		abort();
	if (sp_audit_log_feed(l, "fuzz.log", data, size) || sp_audit_log_finish(l))
		abort();
	sp_audit_log_get_stats(l, &st);
	if (st.lines != st.records + st.malformed + st.truncated + st.skipped || st.lines != a.lines)
		abort();
	sp_audit_log_free(l);
	run_report(data, size);
	return 0;
}
