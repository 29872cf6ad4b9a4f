/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_log.c - the audit.log reader's mechanics (line limits, the grouping window, the
 * end-of-event timeout, files and accessors, callback errors), the field mapping of replay
 * (per, saddr_fam, openat2 oflag, missing return values, enriched lines) and the round trip
 * log -> recorded stream -> replay, and laurel's JSON of an event (quoting of every byte kind,
 * typed fields, refused records reported at their column, put errors).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "secpath/audit_log.h"
#include "secpath/audit_record.h"
#include "audit/filter/filter_int.h"

#define SCN(serial, sec, nr, extra)                                                                \
	"type=SYSCALL msg=audit(" sec ".000:" serial "): arch=c000003e syscall=" nr " " extra     \
	" a0=0 a1=0 a2=0 a3=0 items=0 ppid=1 pid=7 auid=1000 uid=0 gid=0 euid=0 suid=0 fsuid=0 "  \
	"egid=0 sgid=0 fsgid=0 tty=(none) ses=1 comm=\"x\" exe=\"/bin/x\" key=(null)"
#define SC(serial, sec, nr, extra) SCN(serial, sec, nr, extra) "\n"

struct seen {
	int n;
	uint32_t serial[16];
	size_t nrec[16];
	uint32_t first_line[16];
	const char *first_file[16];
	char node[16][16];
	int stop_at;
};

static int on_ev(void *ud, const struct sp_audit_log_event *ev)
{
	struct seen *s = ud;
	const char *node;
	if (s->n < 16) {
		sp_audit_log_event_stamp(ev, NULL, NULL, &s->serial[s->n], &node);
		s->nrec[s->n] = sp_audit_log_event_nrec(ev);
		s->first_line[s->n] = sp_audit_log_event_rec(ev, 0)->line;
		s->first_file[s->n] = sp_audit_log_event_rec(ev, 0)->file;
		snprintf(s->node[s->n], sizeof(s->node[0]), "%s", node ? node : "-");
		assert_null(sp_audit_log_event_rec(ev, s->nrec[s->n]));
	}
	s->n++;
	return s->stop_at && s->n == s->stop_at ? 7 : 0;
}

static struct sp_audit_log *reader(struct seen *s, size_t window, size_t max_line,
				   struct sp_diags *d)
{
	struct sp_audit_log_opts o = { .sz = sizeof(o), .window = window, .max_line = max_line,
				       .on_event = on_ev, .ud = s, .diags = d };
	struct sp_audit_log *l;
	assert_int_equal(sp_audit_log_new(&o, &l), 0);
	return l;
}

static void test_audit_log__overlong_lines(void **st)
{
	(void)st;
	struct seen s = { 0 };
	struct sp_diags d;
	struct sp_audit_log_stats ls;
	char big[300];
	sp_diags_init(&d, NULL);
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	struct sp_audit_log *l = reader(&s, 0, 100, &d);
	const char *ok = "type=EOE msg=audit(1.000:1):\n";
	assert_int_equal(sp_audit_log_feed(l, "a.log", ok, strlen(ok)), 0);
	/* an overlong line split over three chunks, then a short one in the same chunk */
	assert_int_equal(sp_audit_log_feed(l, "a.log", big, 120), 0);
	assert_int_equal(sp_audit_log_feed(l, "a.log", big + 120, 100), 0);
	assert_int_equal(sp_audit_log_feed(l, "a.log", big + 220, 80), 0);
	assert_int_equal(sp_audit_log_feed(l, "a.log", big, 150), 0);	/* in one chunk */
	assert_int_equal(sp_audit_log_feed(l, "a.log", big + 150, 150), 0);
	assert_int_equal(sp_audit_log_feed(l, "a.log", ok, strlen(ok)), 0);
	assert_int_equal(sp_audit_log_finish(l), 0);
	sp_audit_log_get_stats(l, &ls);
	assert_int_equal(ls.lines, 4);
	assert_int_equal(ls.records, 2);
	assert_int_equal(ls.malformed, 2);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.v[0].line, 2);
	assert_int_equal(d.v[1].line, 3);
	assert_string_equal(d.v[0].msg, "line longer than 100 bytes");
	assert_string_equal(d.v[0].file, "a.log");
	assert_int_equal(s.n, 2);	/* two EOE events (same stamp, but EOE closes each) */
	sp_audit_log_free(l);
	sp_diags_release(&d);
}

/* A window of 2 open events: a third event closes the oldest, so a late record of it starts a
 * new event (memory stays bounded; grouping is best effort beyond the window). */
static void test_audit_log__window_bound(void **st)
{
	(void)st;
	struct seen s = { 0 };
	static const char text[] =
		SC("1", "100", "2", "success=yes exit=0")
		SC("2", "100", "2", "success=yes exit=0")
		"type=CWD msg=audit(100.000:1): cwd=\"/\"\n"
		SC("3", "100", "2", "success=yes exit=0")
		"type=CWD msg=audit(100.000:2): cwd=\"/\"\n"	/* 2 is still open */
		"type=CWD msg=audit(100.000:1): cwd=\"/\"\n";	/* 1 was closed by 3 */
	struct sp_audit_log *l = reader(&s, 2, 0, NULL);
	assert_int_equal(sp_audit_log_feed(l, "w.log", text, sizeof(text) - 1), 0);
	/* 3 closed 1 (oldest); the late record of 1 closed 2 */
	assert_int_equal(s.n, 2);
	assert_int_equal(s.serial[0], 1);
	assert_int_equal(s.nrec[0], 2);
	assert_int_equal(s.serial[1], 2);
	assert_int_equal(s.nrec[1], 2);
	assert_int_equal(sp_audit_log_finish(l), 0);
	assert_int_equal(s.n, 4);
	/* finish closes oldest first: 3, then the new 1 */
	assert_int_equal(s.serial[2], 3);
	assert_int_equal(s.serial[3], 1);
	assert_int_equal(s.nrec[3], 1);
	assert_int_equal(s.first_line[3], 6);
	sp_audit_log_free(l);
}

/* Events more than 2 s older than the newest record close; nodes separate events. */
static void test_audit_log__timeout_nodes_files(void **st)
{
	(void)st;
	struct seen s = { 0 };
	static const char a[] =
		"node=h1 " SC("5", "100", "2", "success=yes exit=0")
		"node=h2 " SC("5", "100", "2", "success=yes exit=0")
		SC("6", "101", "2", "success=yes exit=0");
	static const char b[] =
		"node=h2 type=CWD msg=audit(100.000:5): cwd=\"/\"\n"
		SC("7", "103", "2", "success=yes exit=0");
	struct sp_audit_log *l = reader(&s, 0, 0, NULL);
	assert_int_equal(sp_audit_log_feed(l, "a.log", a, sizeof(a) - 1), 0);
	assert_int_equal(s.n, 0);	/* 101 is less than 2 s after 100 */
	assert_int_equal(sp_audit_log_feed(l, "b.log", b, sizeof(b) - 1), 0);
	/* the CWD of node h2 joined its event across files; 103 closed the 100 and 101 events
	 * (auparse: an event closes once a record comes 2 s or more after it) */
	assert_int_equal(s.n, 3);
	assert_string_equal(s.node[0], "h1");
	assert_string_equal(s.node[1], "h2");
	assert_int_equal(s.nrec[1], 2);
	assert_string_equal(s.first_file[1], "a.log");
	assert_int_equal(s.first_line[1], 2);
	assert_int_equal(s.serial[2], 6);
	assert_int_equal(sp_audit_log_finish(l), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.node[2], "-");
	assert_int_equal(s.serial[3], 7);
	assert_string_equal(s.first_file[3], "b.log");
	assert_int_equal(s.first_line[3], 2);	/* line numbers restart per file */
	sp_audit_log_free(l);
}

/* auparse's timeout in a log out of time order: a record 2 s after an open event closes it
 * even when it is not the newest, so a later record of that event opens a new one. */
static void test_audit_log__timeout_out_of_order(void **st)
{
	(void)st;
	struct seen s = { 0 };
	static const char a[] = "type=CWD msg=audit(300.000:9): cwd=\"/\"\n"
				SC("1", "200", "2", "success=yes exit=0")
				"type=CWD msg=audit(250.000:8): cwd=\"/\"\n"
				"type=CWD msg=audit(200.000:1): cwd=\"/\"\n";
	struct sp_audit_log *l = reader(&s, 0, 0, NULL);
	assert_int_equal(sp_audit_log_feed(l, "o.log", a, sizeof(a) - 1), 0);
	assert_int_equal(s.n, 1);	/* 250 closed 200:1 */
	assert_int_equal(s.serial[0], 1);
	assert_int_equal(s.nrec[0], 1);
	assert_int_equal(sp_audit_log_finish(l), 0);
	assert_int_equal(s.n, 4);	/* 300:9, 250:8 and a second 200:1 */
	sp_audit_log_free(l);
}

static void test_audit_log__callback_error_sticks(void **st)
{
	(void)st;
	struct seen s = { .stop_at = 2 };
	static const char text[] = "type=EOE msg=audit(1.000:1):\ntype=EOE msg=audit(1.000:2):\n"
				   "type=EOE msg=audit(1.000:3):\n";
	struct sp_audit_log *l = reader(&s, 0, 0, NULL);
	assert_int_equal(sp_audit_log_feed(l, "c.log", text, sizeof(text) - 1), 7);
	assert_int_equal(s.n, 2);
	assert_int_equal(sp_audit_log_feed(l, "c.log", text, sizeof(text) - 1), 7);
	assert_int_equal(sp_audit_log_finish(l), 7);
	assert_int_equal(s.n, 2);
	sp_audit_log_free(l);
}

struct outcome {
	struct sp_audit_replay_stats st;
	char keys[256];
};

static void replay_text(const char *rules, const char *log, struct outcome *out)
{
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .parse = &po, .out_fd = -1 };
	struct sp_audit_replay *r;
	assert_int_equal(sp_audit_replay_new(rules, strlen(rules), "t.rules", &o, &r), 0);
	assert_int_equal(sp_audit_replay_feed(r, "t.log", log, strlen(log)), 0);
	assert_int_equal(sp_audit_replay_finish(r), 0);
	sp_audit_replay_get_stats(r, &out->st);
	out->keys[0] = 0;
	for (size_t i = 0; i < sp_audit_replay_key_count(r); i++) {
		const char *k;
		uint64_t n;
		sp_audit_replay_key(r, i, &k, &n);
		snprintf(out->keys + strlen(out->keys), sizeof(out->keys) - strlen(out->keys),
			 "%s=%llu ", k, (unsigned long long)n);
	}
	sp_audit_replay_free(r);
}

/* The filter inputs the log gives: personality (hex), sockaddr family, openat2 flags, a missing
 * return value, an enriched tail, a 0x01-joined key counted per part. */
static void test_audit_log__field_mapping(void **st)
{
	(void)st;
	struct outcome o;
	static const char rules[] =
		"-a always,exit -F arch=b64 -S connect -F saddr_fam=10 -k inet6\n"
		"-a always,exit -F arch=b64 -S openat2 -F perm=w -k o2w\n"
		"-a always,exit -F arch=b64 -S exit_group -F success=1 -k never_matches\n"
		"-a always,exit -F arch=b64 -S exit_group -F pers=0x400000 -k pers\n"
		"-a always,exit -F arch=b64 -S kill -k k1 -k k2\n";
	static const char log[] =
		SC("1", "10", "42", "success=yes exit=0")
		"type=SOCKADDR msg=audit(10.000:1): "
		"saddr=0A000050000000000000000000000000000000010000000000\n"
		SC("2", "10", "42", "success=yes exit=0")
		"type=SOCKADDR msg=audit(10.000:2): saddr=02000050C0A80001\n"
		SC("3", "10", "437", "success=yes exit=3")
		"type=OPENAT2 msg=audit(10.000:3): oflag=0101 mode=0644 resolve=0x0\n"
		SC("4", "10", "437", "success=yes exit=3")
		"type=OPENAT2 msg=audit(10.000:4): oflag=0100000 mode=0 resolve=0x0\n"
		SCN("5", "10", "231", "per=400000")	/* exit_group: no success/exit */
		"\x1d" "ARCH=x86_64 SYSCALL=exit_group\n"
		SC("6", "10", "62", "success=yes exit=0");
	replay_text(rules, log, &o);
	assert_int_equal(o.st.malformed, 0);
	assert_int_equal(o.st.events, 6);
	assert_int_equal(o.st.kept, 4);
	assert_string_equal(o.keys, "inet6=1 o2w=1 pers=1 k1=1 k2=1 ");
}

static int to_stream(void *ud, const struct sp_audit_log_event *lev)
{
	struct sp_audit_record_writer *w = ((void **)ud)[0];
	struct sp_audit_event *ev = ((void **)ud)[1];
	assert_true(sp_audit_log_event_build(lev, NULL, ev) >= 0);
	return sp_audit_record_write(w, ev);
}

/* Log -> recorded stream -> replay: the same events kept and the same keys as the log replay
 * (rules without path-string approximations, so the stream needs no fs view). */
static void test_audit_log__stream_round_trip(void **st)
{
	(void)st;
	static const char rules[] =
		"-a always,exit -F arch=b64 -S open,openat -F success=0 -k fail\n"
		"-a always,exit -F arch=b64 -S all -F auid>=1000 -F auid!=unset -k user\n"
		"-a never,user -F uid=0\n";
	size_t len;
	char *log = NULL;
	FILE *f = fopen("tests/data/audit/logs/go-libaudit/audit-rhel7.log", "rb");
	assert_non_null(f);
	log = calloc(1, 1 << 20);
	len = fread(log, 1, (1 << 20) - 1, f);
	fclose(f);

	struct outcome a;
	replay_text(rules, log, &a);

	FILE *tmp = tmpfile();
	void *ctx[2];
	struct sp_audit_record_writer *w;
	struct sp_audit_event *ev;
	struct sp_audit_log *l;
	assert_int_equal(sp_audit_event_new(&ev), 0);
	assert_int_equal(sp_audit_record_writer_new(fileno(tmp), &w), 0);
	ctx[0] = w;
	ctx[1] = ev;
	struct sp_audit_log_opts lo = { .sz = sizeof(lo), .on_event = to_stream, .ud = ctx };
	assert_int_equal(sp_audit_log_new(&lo, &l), 0);
	assert_int_equal(sp_audit_log_feed(l, "rhel7", log, len), 0);
	assert_int_equal(sp_audit_log_finish(l), 0);
	assert_int_equal(sp_audit_record_writer_finish(w), 0);
	sp_audit_log_free(l);
	sp_audit_event_free(ev);
	off_t n = lseek(fileno(tmp), 0, SEEK_END);
	char *rec = malloc((size_t)n);
	assert_int_equal(pread(fileno(tmp), rec, (size_t)n, 0), n);
	fclose(tmp);

	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .parse = &po, .out_fd = -1 };
	struct sp_audit_replay *r;
	struct sp_audit_replay_stats b;
	assert_int_equal(sp_audit_replay_new(rules, strlen(rules), "t.rules", &o, &r), 0);
	assert_int_equal(sp_audit_replay_stream(r, "rhel7.rec", rec, (size_t)n), 0);
	sp_audit_replay_get_stats(r, &b);
	assert_int_equal(b.stream_events, a.st.events);
	assert_int_equal(b.events, a.st.events);
	/* the stream holds no AVC/kernel record context, so compare the recorded decisions: the
	 * log kept every syscall/user event the stream keeps, plus its kernel/daemon records */
	assert_true(b.kept <= a.st.kept);
	assert_true(b.kept > 0);
	const char *k;
	uint64_t cnt;
	char keys[256] = "";
	for (size_t i = 0; i < sp_audit_replay_key_count(r); i++) {
		sp_audit_replay_key(r, i, &k, &cnt);
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s=%llu ", k,
			 (unsigned long long)cnt);
	}
	assert_string_equal(keys, a.keys);
	/* a damaged stream: error with the frame offset */
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	struct sp_audit_replay_opts o2 = {
		.sz = sizeof(o2), .parse = &po, .out_fd = -1, .diags = &d
	};
	struct sp_audit_replay *r2;
	assert_int_equal(sp_audit_replay_new(rules, strlen(rules), "t.rules", &o2, &r2), 0);
	assert_int_equal(sp_audit_replay_stream(r2, "cut.rec", rec, (size_t)n - 3), -EINVAL);
	assert_int_equal(d.nerrors, 1);
	assert_true(d.v[0].has_offset);
	assert_string_equal(d.v[0].file, "cut.rec");
	sp_audit_replay_free(r2);
	sp_diags_release(&d);
	sp_audit_replay_free(r);
	free(rec);
	free(log);
}

/* The reader's shortcuts give what the generic parsing gives: a stamp that is a prefix of the
 * previous one ("1.000:5)" after "1.000:50)") is its own event; a SYSCALL body that leaves the
 * kernel's field order after any field (extra spaces, '?' session, 'quoted' comm) decides as the
 * in-order body. */
static void test_audit_log__fast_paths_agree(void **st)
{
	(void)st;
	struct outcome a, b;
	static const char rules[] =
		"-a always,exit -F arch=b64 -S openat -F sessionid=5 -k s5\n"
		"-a always,exit -F arch=b64 -S openat -F exe=/usr/bin/cat -k cat\n"
		"-a always,exit -F arch=b64 -S openat -F subj_type=sshd_t -k ssh\n"
		"-a always,exit -F arch=b64 -S openat -F success=0 -k fail\n";
	/* SYSCALL: serial, success, exit, a separator before tty=, ses, comm, exe */
#define B1 "type=SYSCALL msg=audit(20.000:%s): arch=c000003e syscall=257 success=%s exit=%s " \
	"a0=ffffff9c a1=1 a2=0 a3=0 items=0 ppid=1 pid=7 auid=1000 uid=0 gid=0 euid=0 suid=0 " \
	"fsuid=0 egid=0 sgid=0 fsgid=0%stty=pts0 ses=%s comm=%s exe=%s " \
	"subj=system_u:system_r:sshd_t:s0 key=(null)\n"
	char in_order[2048], deviating[2048];
	snprintf(in_order, sizeof(in_order),
		 B1 B1 B1 "type=EOE msg=audit(20.000:5):\n",
		 "50", "yes", "3", " ", "5", "\"cat\"", "\"/usr/bin/cat\"",
		 "5", "no", "-13", " ", "4", "\"x y\"", "2F7573722F62696E2F636174",
		 "6", "yes", "0", " ", "5", "\"sh\"", "\"/bin/sh\"");
	snprintf(deviating, sizeof(deviating),
		 B1 B1 B1 "type=EOE msg=audit(20.000:5):\n",
		 "50", "yes", "3", "  ", "5", "\"cat\"", "\"/usr/bin/cat\"",
		 "5", "no", "-13", " ", "4", "'x y'", "2F7573722F62696E2F636174",
		 "6", "yes", "0", " ", "?", "\"sh\"", "\"/bin/sh\"");
#undef B1
	replay_text(rules, in_order, &a);
	replay_text(rules, deviating, &b);
	assert_int_equal(a.st.malformed, 0);
	assert_int_equal(b.st.malformed, 0);
	/* serial 50, 5 (SYSCALL + EOE) and 6: three events, not two */
	assert_int_equal(a.st.events, 3);
	assert_int_equal(a.st.records, 4);
	/* one key per event (the first matching rule): 5 closes first (EOE), then 50 and 6 */
	assert_string_equal(a.keys, "cat=1 s5=2 ");
	assert_int_equal(b.st.events, 3);
	/* the '?' session stays unset: event 6 falls through to the subj_type rule */
	assert_string_equal(b.keys, "cat=1 s5=1 ssh=1 ");
}

/* What one SYSCALL line was read as: its malformed count and the filter event's task, call,
 * return and subject type fields. */
struct one {
	uint64_t malformed, events;
	uint32_t f[16];
	uint64_t argv[4], exe_ino, subj_type;
	int64_t ret;
};

static int one_ev(void *ud, const struct sp_audit_log_event *lev)
{
	struct one *o = ud;
	struct sp_audit_event *ev;
	assert_int_equal(sp_audit_event_new(&ev), 0);
	assert_true(sp_audit_log_event_build(lev, NULL, ev) >= 0);
	uint32_t f[16] = { ev->pid, ev->ppid, ev->uid, ev->euid, ev->suid, ev->fsuid, ev->gid,
			   ev->egid, ev->sgid, ev->fsgid, ev->loginuid, ev->sessionid,
			   ev->personality, ev->arch, (uint32_t)ev->major, ev->return_valid };
	memcpy(o->f, f, sizeof(f));
	memcpy(o->argv, ev->argv, sizeof(o->argv));
	o->exe_ino = ev->has_exe ? ev->exe_ino : 0;
	o->subj_type = ev->has_sctx ? audit_ev_sctx(ev)->h_type : 0;
	o->ret = ev->return_code;
	o->events++;
	sp_audit_event_free(ev);
	return 0;
}

/* The text fed whole, or in two chunks (cut at split: the line there goes through the carry
 * buffer), each event to on_event; the reader's malformed count. */
static uint64_t read_text(const char *text, size_t split,
			  int (*on_event)(void *, const struct sp_audit_log_event *), void *ud)
{
	struct sp_audit_log_opts lo = { .sz = sizeof(lo), .on_event = on_event, .ud = ud };
	struct sp_audit_log *l;
	struct sp_audit_log_stats ls;
	size_t n = strlen(text);
	assert_int_equal(sp_audit_log_new(&lo, &l), 0);
	split = split < n ? split : n;
	assert_int_equal(sp_audit_log_feed(l, "f", text, split), 0);
	assert_int_equal(sp_audit_log_feed(l, "f", text + split, n - split), 0);
	assert_int_equal(sp_audit_log_finish(l), 0);
	sp_audit_log_get_stats(l, &ls);
	sp_audit_log_free(l);
	return ls.malformed;
}

static void read_one(const char *line, size_t split, struct one *o)
{
	memset(o, 0, sizeof(*o));
	o->malformed = read_text(line, split, one_ev, o);
}

/*
 * The SYSCALL fast path against the generic tokenizer where a line can end and where a number
 * is spoilt: the same body read by the fast path (one space after arch=) and by the generic one
 * (two spaces: the fast path gives up at syscall=) is malformed in both or gives the same
 * event, cut after each of its bytes and with a stray byte after each of its numbers, the line
 * fed whole and through the carry buffer.
 */
static void test_audit_log__fast_path_edges(void **st)
{
	(void)st;
	static const char body[] =
		"syscall=257 success=yes exit=-13 a0=ffffff9c a1=7ffe2a1d4b20 a2=1b6 a3=0 items=1 "
		"ppid=1 pid=16334 auid=4294967295 uid=1002 gid=1002 euid=1002 suid=1002 fsuid=1002 "
		"egid=1002 sgid=1002 fsgid=1002 tty=pts0 ses=3 comm=\"cat\" exe=\"/usr/bin/cat\" "
		"subj=system_u:system_r:sshd_t:s0 key=\"x y\"";
	enum { N = sizeof(body) - 1 };
	char fast[640], slow[640], cut[N + 2];
	unsigned checked = 0, subj = 0;
	for (size_t c = 1; c <= 2 * N; c++) {
		size_t k = c <= N ? c : c - N;
		if (c <= N) {
			memcpy(cut, body, k);
			cut[k] = 0;
		} else {	/* spoilt: a stray byte after the number ending at k */
			if (k >= N || body[k] != ' ' || !strchr("0123456789abcdef", body[k - 1]))
				continue;
			memcpy(cut, body, k);
			cut[k] = k % 2 ? 'x' : 'g';
			memcpy(cut + k + 1, body + k, N - k + 1);
		}
		for (size_t split = 40; split <= 1000; split += 960) {
			struct one a, b;
			snprintf(fast, sizeof(fast),
				 "type=SYSCALL msg=audit(1.000:1): arch=c000003e %s\n", cut);
			snprintf(slow, sizeof(slow),
				 "type=SYSCALL msg=audit(1.000:1): arch=c000003e  %s\n", cut);
			read_one(fast, split, &a);
			read_one(slow, split, &b);
			assert_int_equal(a.malformed, b.malformed);
			assert_int_equal(a.events, b.events);
			assert_memory_equal(a.f, b.f, sizeof(a.f));
			assert_memory_equal(a.argv, b.argv, sizeof(a.argv));
			assert_true(a.exe_ino == b.exe_ino && a.ret == b.ret);
			assert_true(a.subj_type == b.subj_type);
			subj += a.subj_type != 0;
			checked++;
		}
	}
	assert_true(checked > 400 && subj > 20);
}

/* What one SYSCALL + PATH event was read as: its malformed count and the filter event's names. */
struct names {
	uint64_t malformed, events, nnames;
	uint64_t f[8];	/* the first name's ino, dev, rdev, mode, uid, gid, and whether it has a path */
};

static int names_ev(void *ud, const struct sp_audit_log_event *lev)
{
	struct names *o = ud;
	struct sp_audit_event *ev;
	assert_int_equal(sp_audit_event_new(&ev), 0);
	assert_true(sp_audit_log_event_build(lev, NULL, ev) >= 0);
	o->nnames = ev->nnames;
	if (ev->nnames) {
		const struct audit_name *n = &ev->names[0];
		uint64_t f[8] = { n->ino, n->dev, n->rdev, n->mode, n->uid, n->gid, n->path != NULL };
		memcpy(o->f, f, sizeof(f));
	}
	o->events++;
	sp_audit_event_free(ev);
	return 0;
}

static void read_names(const char *text, size_t split, struct names *o)
{
	memset(o, 0, sizeof(*o));
	o->malformed = read_text(text, split, names_ev, o);
}

/*
 * The PATH fast path against the generic tokenizer, as test_audit_log__fast_path_edges does for
 * SYSCALL: the same body read by the fast path and (two spaces before item=) by the generic
 * one, cut after each of its bytes and with a stray byte after each of its numbers (one that is
 * a digit of no base the field has, or of another base: '8' after the octal mode, 'a' after a
 * decimal, and past the limit of rdev's minor), is malformed in both or gives the same name.
 */
static void test_audit_log__path_fast_edges(void **st)
{
	(void)st;
	static const char body[] =
		"item=0 name=\"/etc/shadow\" inode=17004503 dev=fd:00 mode=0100644 ouid=0 ogid=42 "
		"rdev=1a:fffff obj=system_u:object_r:etc_t:s0 nametype=NORMAL";
	static const char sys[] = "type=SYSCALL msg=audit(1.000:1): arch=c000003e syscall=257 "
				  "success=yes exit=3 a0=0 a1=0 a2=0 a3=0 items=1 ppid=1 pid=2 auid=0 "
				  "uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts0 "
				  "ses=1 comm=\"c\" exe=\"/bin/c\" key=(null)\n";
	static const char stray[] = "xg8a:";
	enum { N = sizeof(body) - 1 };
	char fast[1024], slow[1024], cut[N + 2];
	unsigned checked = 0, named = 0;
	for (size_t c = 1; c <= N + 5 * N; c++) {
		size_t k = c <= N ? c : (c - N - 1) / 5 + 1;
		if (c <= N) {
			memcpy(cut, body, k);
			cut[k] = 0;
		} else {	/* spoilt: a stray byte after the value ending at k */
			if (k >= N || body[k] != ' ' || !strchr("0123456789abcdef", body[k - 1]))
				continue;
			memcpy(cut, body, k);
			cut[k] = stray[(c - N - 1) % 5];
			memcpy(cut + k + 1, body + k, N - k + 1);
		}
		for (size_t split = 60; split <= 1000; split += 940) {
			struct names a, b;
			snprintf(fast, sizeof(fast), "%stype=PATH msg=audit(1.000:1): %s\n", sys, cut);
			snprintf(slow, sizeof(slow), "%stype=PATH msg=audit(1.000:1):  %s\n", sys, cut);
			read_names(fast, strlen(sys) + split, &a);
			read_names(slow, strlen(sys) + split, &b);
			assert_int_equal(a.malformed, b.malformed);
			assert_int_equal(a.events, b.events);
			assert_int_equal(a.nnames, b.nnames);
			assert_memory_equal(a.f, b.f, sizeof(a.f));
			named += a.nnames && a.f[5] == 42 && a.f[2] == SP_AUDIT_MKDEV(0x1a, 0xfffff);
			checked++;
		}
	}
	assert_true(checked > 300 && named > 50);
}

static int cmp_fd(int fd, const char *want, size_t n)
{
	char buf[4096];
	off_t len = lseek(fd, 0, SEEK_END);
	if (len != (off_t)n || n > sizeof(buf) || pread(fd, buf, n, 0) != (ssize_t)n)
		return -1;
	return memcmp(buf, want, n);
}

/* --output of a recorded stream is a stream of the kept events: replaying it keeps them all
 * with the same keys; a log after a stream (or the reverse) in one output is refused. */
static void test_audit_log__stream_output(void **st)
{
	(void)st;
	static const char rules[] =
		"-a always,exit -F arch=b64 -S openat -F success=0 -k fail\n";
	static const char log[] =
		SC("1", "30", "257", "success=no exit=-13")
		SC("2", "30", "257", "success=yes exit=3")
		SC("3", "30", "257", "success=no exit=-2");
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	FILE *f1 = tmpfile(), *f2 = tmpfile(), *f3 = tmpfile();
	struct sp_audit_replay *r;
	struct sp_audit_replay_stats rs;
	struct sp_diags d;
	sp_diags_init(&d, NULL);

	/* the log's events as a stream (all three), through a writer */
	void *ctx[2];
	struct sp_audit_record_writer *w;
	struct sp_audit_event *ev;
	struct sp_audit_log *l;
	assert_int_equal(sp_audit_event_new(&ev), 0);
	assert_int_equal(sp_audit_record_writer_new(fileno(f1), &w), 0);
	ctx[0] = w;
	ctx[1] = ev;
	struct sp_audit_log_opts lo = { .sz = sizeof(lo), .on_event = to_stream, .ud = ctx };
	assert_int_equal(sp_audit_log_new(&lo, &l), 0);
	assert_int_equal(sp_audit_log_feed(l, "t", log, strlen(log)), 0);
	assert_int_equal(sp_audit_log_finish(l), 0);
	assert_int_equal(sp_audit_record_writer_finish(w), 0);
	sp_audit_log_free(l);
	sp_audit_event_free(ev);
	off_t n1 = lseek(fileno(f1), 0, SEEK_END);
	char *s1 = malloc((size_t)n1), *s2;
	assert_int_equal(pread(fileno(f1), s1, (size_t)n1, 0), n1);

	/* replay it with --output: events 1 and 3 kept, written as a stream */
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .parse = &po, .out_fd = fileno(f2),
					  .diags = &d };
	assert_int_equal(sp_audit_replay_new(rules, strlen(rules), "t.rules", &o, &r), 0);
	assert_int_equal(sp_audit_replay_stream(r, "a.rec", s1, (size_t)n1), 0);
	/* a log after a stream in the same output: refused */
	assert_int_equal(sp_audit_replay_feed(r, "b.log", log, strlen(log)), -EINVAL);
	assert_int_equal(d.nerrors, 1);
	assert_int_equal(sp_audit_replay_finish(r), 0);
	sp_audit_replay_get_stats(r, &rs);
	assert_int_equal(rs.kept, 2);
	assert_int_equal(rs.dropped, 1);
	sp_audit_replay_free(r);
	off_t n2 = lseek(fileno(f2), 0, SEEK_END);
	assert_true(n2 > 16 && n2 < n1);
	s2 = malloc((size_t)n2);
	assert_int_equal(pread(fileno(f2), s2, (size_t)n2, 0), n2);
	assert_int_equal(sp_audit_record_is_stream(s2, (size_t)n2), 1);

	/* the written stream replays to the same two kept events; written again, same bytes */
	o.out_fd = fileno(f3);
	o.diags = NULL;
	assert_int_equal(sp_audit_replay_new(rules, strlen(rules), "t.rules", &o, &r), 0);
	assert_int_equal(sp_audit_replay_stream(r, "b.rec", s2, (size_t)n2), 0);
	assert_int_equal(sp_audit_replay_finish(r), 0);
	sp_audit_replay_get_stats(r, &rs);
	assert_int_equal(rs.events, 2);
	assert_int_equal(rs.kept, 2);
	const char *k;
	uint64_t cnt;
	assert_int_equal(sp_audit_replay_key(r, 0, &k, &cnt), 0);
	assert_string_equal(k, "fail");
	assert_int_equal(cnt, 2);
	sp_audit_replay_free(r);
	assert_int_equal(cmp_fd(fileno(f3), s2, (size_t)n2), 0);

	/* a stream after a log in one output: refused */
	FILE *f4 = tmpfile();
	o.out_fd = fileno(f4);
	assert_int_equal(sp_audit_replay_new(rules, strlen(rules), "t.rules", &o, &r), 0);
	assert_int_equal(sp_audit_replay_feed(r, "b.log", log, strlen(log)), 0);
	assert_int_equal(sp_audit_replay_stream(r, "a.rec", s1, (size_t)n1), -EINVAL);
	assert_int_equal(sp_audit_replay_finish(r), 0);
	sp_audit_replay_free(r);
	fclose(f4);

	sp_diags_release(&d);
	free(s1);
	free(s2);
	fclose(f1);
	fclose(f2);
	fclose(f3);
}

/* The exclude list sees only the record types its rules can match (msgtype=T rules), or every
 * type once a rule has no msgtype=: the records kept are the kernel's either way. */
static void test_audit_log__exclude_types(void **st)
{
	(void)st;
	struct outcome a, b;
	static const char log[] =
		SC("1", "40", "257", "success=yes exit=3")
		"type=CWD msg=audit(40.000:1): cwd=\"/\"\n"
		"type=PATH msg=audit(40.000:1): item=0 name=\"/etc/x\" inode=5 dev=fd:00 "
		"mode=0100644 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL\n"
		"type=PROCTITLE msg=audit(40.000:1): proctitle=\"x\"\n"
		"type=LOGIN msg=audit(40.000:2): pid=7 uid=0 old-auid=4294967295 auid=1000 "
		"tty=(none) old-ses=4294967295 ses=1 res=1\n";
	replay_text("-a always,exit -F arch=b64 -S openat -k o\n"
		    "-a always,exclude -F msgtype=CWD\n", log, &a);
	assert_int_equal(a.st.malformed, 0);
	assert_int_equal(a.st.events, 2);
	assert_int_equal(a.st.kept, 2);
	assert_int_equal(a.st.records_kept, 4);		/* all but CWD */
	assert_int_equal(a.st.records_dropped, 1);
	/* a rule without msgtype= (pid=7 matches every record of the task) */
	replay_text("-a always,exit -F arch=b64 -S openat -k o\n"
		    "-a always,exclude -F msgtype=CWD\n"
		    "-a always,exclude -F pid=7\n", log, &b);
	assert_int_equal(b.st.events, 2);
	assert_int_equal(b.st.kept, 0);
	assert_int_equal(b.st.records_dropped, 5);
}

/* ---- a live stream: idle, flush, reload ---- */

/* The bytes written to the pipe so far (non-blocking read). */
static size_t pipe_take(int fd, char *buf, size_t cap)
{
	ssize_t n = read(fd, buf, cap - 1);
	buf[n > 0 ? n : 0] = 0;
	return n > 0 ? (size_t)n : 0;
}

static void test_audit_log__live_idle_reload(void **st)
{
	(void)st;
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_diags d;
	struct sp_audit_replay *r;
	struct sp_audit_replay_stats rs;
	int p[2];
	char out[8192];
	static const char a[] = "-a always,exit -F arch=b64 -S openat -k A\n";
	static const char b[] = "-a always,exit -F arch=b64 -S connect -k B\n";
	static const char bad[] = "-a always,exit -F arch=b64 -S nosuchcall -k C\n";
	static const char e1[] = SC("1", "50", "257", "success=yes exit=3");	/* no end record */
	/* a plugin's stream: the kernel's EOE ends each syscall event (PROCTITLE does not) */
	static const char e2[] = SC("2", "50", "42", "success=yes exit=0")
		"type=PROCTITLE msg=audit(50.000:2): proctitle=\"x\"\n"
		"type=EOE msg=audit(50.000:2): \n";
	static const char e3[] = SC("3", "50", "257", "success=yes exit=3")
		"type=PROCTITLE msg=audit(50.000:3): proctitle=\"x\"\n"
		"type=EOE msg=audit(50.000:3): \n";

	assert_int_equal(pipe(p), 0);
	assert_int_equal(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	sp_diags_init(&d, NULL);
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .parse = &po, .out_fd = p[1],
					  .diags = &d };
	assert_int_equal(sp_audit_replay_new(a, strlen(a), "a.rules", &o, &r), 0);
	/* an event without its end record stays open until idle() */
	assert_int_equal(sp_audit_replay_feed(r, "s", e1, strlen(e1)), 0);
	assert_int_equal(sp_audit_replay_flush(r), 0);
	assert_int_equal(pipe_take(p[0], out, sizeof(out)), 0);
	assert_int_equal(sp_audit_replay_idle(r), 0);
	assert_int_equal(pipe_take(p[0], out, sizeof(out)), strlen(e1));
	/* a refused set (an error line) leaves A in use; then B replaces it */
	assert_int_equal(sp_audit_replay_reload(r, bad, strlen(bad), "bad.rules", 0), -EINVAL);
	assert_true(d.nerrors > 0);
	assert_int_equal(sp_audit_replay_feed(r, "s", e3, strlen(e3)), 0);
	assert_int_equal(sp_audit_replay_flush(r), 0);
	assert_non_null(strstr(out, ":1)"));
	assert_true(pipe_take(p[0], out, sizeof(out)) > 0 && strstr(out, ":3)"));
	assert_int_equal(sp_audit_replay_reload(r, b, strlen(b), "b.rules", 0), 0);
	assert_int_equal(sp_audit_replay_feed(r, "s", e2, strlen(e2)), 0);
	assert_int_equal(sp_audit_replay_feed(r, "s", e3, strlen(e3)), 0);
	assert_int_equal(sp_audit_replay_finish(r), 0);
	assert_true(pipe_take(p[0], out, sizeof(out)) > 0);
	assert_non_null(strstr(out, ":2)"));	/* connect: kept by B */
	assert_null(strstr(out, ":3)"));	/* openat after the reload: dropped by B */
	sp_audit_replay_get_stats(r, &rs);
	assert_int_equal(rs.events, 4);
	assert_int_equal(rs.kept, 3);
	struct sp_audit_replay_rule rr;
	assert_int_equal(sp_audit_replay_rule(r, 0, &rr), 0);
	assert_string_equal(rr.file, "b.rules");
	assert_int_equal(rr.hits, 1);
	sp_audit_replay_free(r);
	sp_diags_release(&d);
	close(p[0]);
	close(p[1]);
}

/* ---- ausearch's selection: the time keywords on a fixed clock ---- */

struct sel {
	const struct sp_audit_search *s;
	uint32_t serials;	/* bit per selected serial (1..31) */
};

static int on_sel(void *ud, const struct sp_audit_log_event *ev)
{
	struct sel *x = ud;
	uint64_t sec;
	uint32_t msec, serial;
	const char *node;
	sp_audit_log_event_stamp(ev, &sec, &msec, &serial, &node);
	if (sp_audit_search_match(x->s, ev, NULL))
		x->serials |= 1u << serial;
	return 0;
}

/* Which serials of the log the options select (v2 may be NULL). */
static uint32_t select_log(const char *log, const char *opt, const char *v1, const char *v2)
{
	struct sp_audit_search *s = NULL;
	struct sel x = { 0 };
	struct sp_audit_log_opts o = { .sz = sizeof(o), .on_event = on_sel, .ud = &x };
	struct sp_audit_log *l = NULL;
	assert_int_equal(sp_audit_search_new(&s), 0);
	sp_audit_search_set_now(s, 1764590400);	/* Monday 2025-12-01 12:00:00 UTC */
	assert_int_equal(sp_audit_search_set(s, opt, v1, v2, NULL), 0);
	x.s = s;
	assert_int_equal(sp_audit_log_new(&o, &l), 0);
	assert_int_equal(sp_audit_log_feed(l, "t.log", log, strlen(log)), 0);
	assert_int_equal(sp_audit_log_finish(l), 0);
	sp_audit_log_free(l);
	sp_audit_search_free(s);
	return x.serials;
}

static void test_audit_log__search_time_words(void **st)
{
	(void)st;
	/* one event per boundary: a second before and at it (serials 1..14) */
	static const char log[] =
		"type=EOE msg=audit(1735689599.000:1):\ntype=EOE msg=audit(1735689600.000:2):\n"
		"type=EOE msg=audit(1763942399.000:3):\ntype=EOE msg=audit(1763942400.000:4):\n"
		"type=EOE msg=audit(1764460799.000:5):\ntype=EOE msg=audit(1764460800.000:6):\n"
		"type=EOE msg=audit(1764504000.000:7):\ntype=EOE msg=audit(1764504001.000:8):\n"
		"type=EOE msg=audit(1764547199.000:9):\ntype=EOE msg=audit(1764547200.000:10):\n"
		"type=EOE msg=audit(1764589799.000:11):\ntype=EOE msg=audit(1764589800.000:12):\n"
		"type=EOE msg=audit(1764590400.000:13):\ntype=EOE msg=audit(1764590401.000:14):\n";
	uint32_t all = 0x7ffe;
	setenv("TZ", "UTC", 1);
	tzset();
	assert_int_equal(select_log(log, "-ts", "this-year", NULL), all & ~0x2u);
	assert_int_equal(select_log(log, "-ts", "week-ago", NULL), all & ~0xeu);
	assert_int_equal(select_log(log, "-ts", "this-week", NULL), all & ~0x3eu);	/* Sunday */
	assert_int_equal(select_log(log, "-ts", "yesterday", NULL), all & ~0x3eu);
	assert_int_equal(select_log(log, "-ts", "today", NULL), all & ~0x3feu);
	assert_int_equal(select_log(log, "-ts", "this-month", NULL), all & ~0x3feu);
	assert_int_equal(select_log(log, "-ts", "recent", NULL), 0x7000u);	/* now - 600 s */
	assert_int_equal(select_log(log, "-ts", "now", NULL), 0x6000u);
	/* -te: today means now; a date alone ends at the time of day now */
	assert_int_equal(select_log(log, "-te", "today", NULL), 0x3ffeu);
	assert_int_equal(select_log(log, "-te", "11/30/25", NULL), 0xfeu);
	assert_int_equal(select_log(log, "-te", "11/30/25", "12:00:01"), 0x1feu);
	assert_int_equal(select_log(log, "-ts", "12:00:01", "11/30/25"), all & ~0xfeu);
	assert_int_equal(select_log(log, "-ts", "11:50", NULL), 0x7000u);	/* today */
	struct sp_audit_search *s = NULL;
	assert_int_equal(sp_audit_search_new(&s), 0);
	assert_int_equal(sp_audit_search_set(s, "-ts", "11/31/2025", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-ts", "01/01/03", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-ts", "11/30/25", "25:00", NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-m", "SYSCALL,NOSUCH", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-sc", "nosuchcall", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-xx", "a", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-p", "abc", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-ui", "-1", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-sv", "maybe", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_set(s, "-k", "", NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_search_active(s), 0);
	/* ausearch's "none" values still make a search (which drops what it cannot parse) */
	assert_int_equal(sp_audit_search_set(s, "-ui", "4294967295", NULL, NULL), 0);
	assert_int_equal(sp_audit_search_set(s, "-ul", "-1", NULL, NULL), 0);
	assert_int_equal(sp_audit_search_active(s), 1);
	sp_audit_search_free(s);
}

/* ---- laurel's JSON (sp_audit_log_event_laurel) ---- */

struct lj {
	char buf[8192];
	size_t n;
	int calls, put_err;
	const char *key;
	struct sp_diags *d;
};

static int lj_put(void *ud, const char *s, size_t n)
{
	struct lj *j = ud;
	j->calls++;
	if (j->put_err)
		return j->put_err;
	assert_true(j->n + n < sizeof(j->buf));
	memcpy(j->buf + j->n, s, n);
	j->n += n;
	j->buf[j->n] = 0;
	return 0;
}

static int lj_ev(void *ud, const struct sp_audit_log_event *ev)
{
	struct lj *j = ud;
	return sp_audit_log_event_laurel(ev, NULL, j->key, j->d, lj_put, j);
}

static int lj_run(struct lj *j, const char *log)
{
	struct sp_audit_log_opts o = { .sz = sizeof(o), .on_event = lj_ev, .ud = j, .diags = j->d };
	struct sp_audit_log *l;
	int rc;
	assert_int_equal(sp_audit_log_new(&o, &l), 0);
	rc = sp_audit_log_feed(l, "t.log", log, strlen(log));
	if (!rc)
		rc = sp_audit_log_finish(l);
	sp_audit_log_free(l);
	return rc;
}

static void test_audit_log__laurel(void **st)
{
	(void)st;
	struct sp_diags d;
	struct lj j = { .key = "a\001b", .d = &d };
	sp_diags_init(&d, NULL);
	/* every byte of a hex name: printable ASCII kept (but % and +), " and \ escaped, the
	 * rest %XX, valid UTF-8 kept; typed fields; a0..a3 as ARGV; the key split at 0x01 */
	assert_int_equal(lj_run(&j, SC("1", "100", "2", "success=yes exit=0")
		"type=PATH msg=audit(100.000:1): item=0 name=225C2B2501C3A9FF7F20 inode=5 "
		"mode=0100644 cap_fp=0 nametype=NORMAL\n"
		"type=USER_END msg=audit(100.000:2): pid=1 msg='x=1 '\n"
		"type=USER_END msg=audit(100.000:3): pid=1 msg='x'  \n"), 0);
	assert_non_null(strstr(j.buf, "\"name\":\"\\\"\\\\%2b%25%01\xc3\xa9%ff%7f \","));
	assert_non_null(strstr(j.buf, "\"inode\":5,\"mode\":\"0o100644\",\"cap_fp\":\"0x0\""));
	assert_non_null(strstr(j.buf, "\"ARGV\":[\"0x0\",\"0x0\",\"0x0\",\"0x0\"]"));
	assert_non_null(strstr(j.buf, "\"SECPATH\":{\"keys\":[\"a\",\"b\"]}"));
	assert_non_null(strstr(j.buf, "{\"ID\":\"100.000:2\",\"USER_END\":{\"pid\":1,\"msg\":\"x=1 \"}"));
	/* the trailing blanks of record 3: left out, a warning at its column */
	assert_null(strstr(j.buf, "100.000:3"));
	assert_int_equal(d.nerrors, 0);
	assert_int_equal(d.nwarnings, 1);
	assert_int_equal(d.v[0].line, 4);
	assert_int_equal(d.v[0].col, 50);	/* the blanks after msg='x' */
	for (size_t i = 0; i < j.n; i++)
		assert_true((unsigned char)j.buf[i] >= 0x20 || j.buf[i] == '\n');
	/* put's error is returned (and stops the reader) */
	struct lj k = { .put_err = -EIO };
	assert_int_equal(lj_run(&k, SC("1", "100", "2", "success=yes exit=0")), -EIO);
	assert_int_equal(k.calls, 1);
	sp_diags_release(&d);
}

/* laurel's "common" keys typed as laurel types them (hex arch, decimal numbers, the encoded
 * rest), in a record whose type gives them no other rule, beside a uid/gid-suffixed key; and
 * numbers whose text laurel's output does not copy. */
static void test_audit_log__laurel_common_keys(void **st)
{
	(void)st;
	struct lj j = { 0 };
	assert_int_equal(lj_run(&j, "type=USER_END msg=audit(100.000:5): arch=c000003e syscall=59 "
			 "success=yes exit=-2 items=1 ppid=1 pid=2 ses=3 auid=1000 fsgid=0 tty=pts0 "
			 "comm=\"cat\" exe=2F62696E2F636174 subj=u:r:t:s0 key=\"k\" msg='x'\n"), 0);
	assert_string_equal(j.buf, "{\"ID\":\"100.000:5\",\"USER_END\":{\"arch\":\"0xc000003e\","
			    "\"syscall\":59,\"success\":\"yes\",\"exit\":-2,\"items\":1,\"ppid\":1,"
			    "\"pid\":2,\"ses\":3,\"auid\":1000,\"fsgid\":0,\"tty\":\"pts0\","
			    "\"comm\":\"cat\",\"exe\":\"/bin/cat\",\"subj\":\"u:r:t:s0\",\"key\":\"k\","
			    "\"msg\":\"x\"}}\n");
	/* numbers laurel rewrites: leading zeros, "-0", upper-case hex (the others are copied) */
	struct lj k = { 0 };
	assert_int_equal(lj_run(&k, "type=USER_END msg=audit(100.000:6): arch=C000003E pid=007 "
			 "exit=-0 items=-07 mode=0755 per=0 cap_fp=00a msg='x'\n"), 0);
	assert_string_equal(k.buf, "{\"ID\":\"100.000:6\",\"USER_END\":{\"arch\":\"0xc000003e\","
			    "\"pid\":7,\"exit\":0,\"items\":-7,\"mode\":\"0o755\",\"per\":\"0x0\","
			    "\"cap_fp\":\"0xa\",\"msg\":\"x\"}}\n");
	/* at and past 64 bits: past them laurel keeps the text as a string */
	struct lj m = { 0 };
	assert_int_equal(lj_run(&m, "type=USER_END msg=audit(100.000:7): cap_fp=FFFFFFFFFFFFFFFFF "
			 "cap_fi=00000000000000000000001 cap_pe=10000000000000000 "
			 "mode=01777777777777777777777 items=9223372036854775808 "
			 "argc=9223372036854775807 len=-9223372036854775807 msg='x'\n"), 0);
	assert_string_equal(m.buf, "{\"ID\":\"100.000:7\",\"USER_END\":{\"cap_fp\":"
			    "\"FFFFFFFFFFFFFFFFF\",\"cap_fi\":\"0x1\",\"cap_pe\":\"10000000000000000\","
			    "\"mode\":\"0o1777777777777777777777\",\"items\":\"9223372036854775808\","
			    "\"argc\":9223372036854775807,\"len\":-9223372036854775807,\"msg\":\"x\"}}\n");
}

/* Every name of laurel's field dictionary (field-dictionary.csv: name and base) typed as laurel
 * types it, each in a record of its own; and keys one byte off a name (a prefix, one byte more,
 * the last byte changed, at the word lengths 8 and 23) typed as the encoded rest. */
static void test_audit_log__laurel_dictionary(void **st)
{
	(void)st;
	static const char dict[] =
		"arch:h argc:d audit_backlog_limit:d audit_backlog_wait_time:d audit_enabled:d "
		"audit_failure:d auid:d cap_fe:d cap_fi:h cap_fp:h cap_fver:h cap_pa:h cap_pe:h "
		"cap_pi:h cap_pp:h capability:d changed:d code:h compat:d dport:d egid:d "
		"enforcing:d entries:d errno:d euid:d exit:d family:d fd:d fe:d fi:h flags:h "
		"fp:h fsgid:d fsuid:d fver:h gid:d igid:d ino:d inode:d inode_gid:d inode_uid:d "
		"ioctlcmd:h ipid:d item:d items:d iuid:d len:d list:d lport:d major:d minor:d "
		"mode:o nargs:d new-enabled:d new-log_passwd:d new_gid:d new_lock:d nlnk-pid:d "
		"oauid:d obj_gid:d obj_uid:d ogid:d old-auid:d old-enabled:d old-log_passwd:d "
		"old-ses:d old_enforcing:d old_lock:d old_pa:h old_pe:h old_pi:h old_pp:h "
		"old_prom:d old_val:d opid:d oses:d ouid:d pa:h pe:h per:h permissive:d pi:h "
		"pid:d pp:h ppid:d prom:d proto:d qbytes:h res:d rport:d sauid:d seqno:d ses:d "
		"sgid:d sig:d sigev_signo:d spid:d sport:d suid:d syscall:d uid:d val:d "
		"vm-pid:d";
	static const char *const off[] = { "arc", "archx", "a", "ioctlcmx", "ioctlcmdx",
		"audit_backlog_wait_timf", "audit_backlog_wait_timex", "itemz", "old", "zz", "t" };
	char log[256], want[256];
	size_t n = 0;
	for (const char *p = dict; *p; n++) {
		const char *colon = strchr(p, ':');
		int klen = (int)(colon - p);
		char base = colon[1];
		struct lj j = { 0 };
		snprintf(log, sizeof(log), "type=USER_END msg=audit(100.000:1): %.*s=10 msg='x'\n",
			 klen, p);
		assert_int_equal(lj_run(&j, log), 0);
		snprintf(want, sizeof(want), "{\"ID\":\"100.000:1\",\"USER_END\":{\"%.*s\":%s,"
			 "\"msg\":\"x\"}}\n", klen, p,
			 base == 'h' ? "\"0x10\"" : base == 'o' ? "\"0o10\"" : "10");
		assert_string_equal(j.buf, want);
		p = colon + 2 + (colon[2] == ' ');
	}
	assert_int_equal(n, 103);
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		struct lj j = { 0 };
		snprintf(log, sizeof(log), "type=USER_END msg=audit(100.000:1): %s=10 msg='x'\n",
			 off[i]);
		assert_int_equal(lj_run(&j, log), 0);
		/* "encoded": the hex pair 10 decoded to the byte 0x10, quoted */
		snprintf(want, sizeof(want), "{\"ID\":\"100.000:1\",\"USER_END\":{\"%s\":"
			 "\"%%10\",\"msg\":\"x\"}}\n", off[i]);
		assert_string_equal(j.buf, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_log__overlong_lines),
		cmocka_unit_test(test_audit_log__window_bound),
		cmocka_unit_test(test_audit_log__timeout_nodes_files),
		cmocka_unit_test(test_audit_log__timeout_out_of_order),
		cmocka_unit_test(test_audit_log__search_time_words),
		cmocka_unit_test(test_audit_log__callback_error_sticks),
		cmocka_unit_test(test_audit_log__field_mapping),
		cmocka_unit_test(test_audit_log__stream_round_trip),
		cmocka_unit_test(test_audit_log__fast_paths_agree),
		cmocka_unit_test(test_audit_log__fast_path_edges),
		cmocka_unit_test(test_audit_log__path_fast_edges),
		cmocka_unit_test(test_audit_log__stream_output),
		cmocka_unit_test(test_audit_log__exclude_types),
		cmocka_unit_test(test_audit_log__live_idle_reload),
		cmocka_unit_test(test_audit_log__laurel),
		cmocka_unit_test(test_audit_log__laurel_common_keys),
		cmocka_unit_test(test_audit_log__laurel_dictionary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
