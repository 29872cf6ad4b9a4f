/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_hostile_log.c - hostile audit.log input against the log reader (audit_log.h): a line with
 * no end, odd-length hex in untrusted fields, NUL bytes inside records, huge and deeply split
 * EXECVE arguments.  Each must be counted (lines == records + malformed), reported with its
 * file:line when refused, and read in bounded memory (the reader promises memory independent of
 * the input size: window * 8 MiB events plus one max_line carry buffer).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "secpath/audit_log.h"
#include "secpath/audit_record.h"

#define MIB (1024u * 1024u)

struct sink {
	uint64_t events, recs;
	size_t max_rec_len;
};

static int on_event(void *ud, const struct sp_audit_log_event *ev)
{
	struct sink *s = ud;
	s->events++;
	size_t n = sp_audit_log_event_nrec(ev);
	s->recs += n;
	for (size_t i = 0; i < n; i++) {
		const struct sp_audit_log_rec *r = sp_audit_log_event_rec(ev, i);
		if (r->len > s->max_rec_len)
			s->max_rec_len = r->len;
	}
	return 0;
}

static long maxrss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

struct run {
	struct sp_audit_log *l;
	struct sp_diags d;
	struct sink s;
	struct sp_audit_log_stats st;
};

static void run_open(struct run *r, size_t max_line)
{
	memset(r, 0, sizeof(*r));
	sp_diags_init(&r->d, NULL);
	r->d.limit = 1000;
	struct sp_audit_log_opts o = { .sz = sizeof(o), .max_line = max_line, .on_event = on_event,
				       .ud = &r->s, .diags = &r->d };
	assert_int_equal(sp_audit_log_new(&o, &r->l), 0);
}

static void run_feed(struct run *r, const char *text, size_t len)
{
	assert_int_equal(sp_audit_log_feed(r->l, "hostile.log", text, len), 0);
}

static void run_close(struct run *r)
{
	assert_int_equal(sp_audit_log_finish(r->l), 0);
	sp_audit_log_get_stats(r->l, &r->st);
	/* the reader's accounting invariant holds whatever came in */
	assert_int_equal(r->st.lines,
			 r->st.records + r->st.malformed + r->st.skipped + r->st.truncated);
	assert_int_equal(r->st.malformed, r->d.nerrors);
	assert_int_equal(r->st.truncated + r->st.skipped, r->d.nwarnings);
	sp_audit_log_free(r->l);
}

/* An error diagnostic at `line` of hostile.log, or fail. */
static const struct sp_diag *error_at(const struct sp_diags *d, uint32_t line)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].severity == SP_SEV_ERROR && d->v[i].line == line)
			return &d->v[i];
	fail_msg("no error at line %u (%zu diagnostics)", line, d->n);
	return NULL;
}

#define REC_SYSCALL "type=SYSCALL msg=audit(1700000000.123:%u): arch=c000003e syscall=257 " \
	"success=yes exit=3 a0=ffffff9c a1=7ffd0 a2=0 a3=0 items=1 ppid=1 pid=%u auid=1000 uid=0 " \
	"gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts0 ses=1 comm=\"cat\" " \
	"exe=\"/usr/bin/cat\" key=(null)\n"

static void test_hostile_log__line_without_end(void **st)
{
	(void)st;
	struct run r;
	run_open(&r, 0);	/* default max_line: 1 MiB */
	/* one valid record, then 64 MiB without a newline in 64 KiB chunks, then a valid record */
	char rec[1024];
	int n = snprintf(rec, sizeof(rec), REC_SYSCALL, 1u, 100u);
	run_feed(&r, rec, (size_t)n);
	char *junk = malloc(64 * 1024);
	assert_non_null(junk);
	memset(junk, 'x', 64 * 1024);
	long rss0 = maxrss_kib();
	for (int i = 0; i < 1024; i++)
		run_feed(&r, junk, 64 * 1024);
	long rss1 = maxrss_kib();
	run_feed(&r, "\n", 1);
	n = snprintf(rec, sizeof(rec), REC_SYSCALL, 2u, 101u);
	run_feed(&r, rec, (size_t)n);
	/* and a last line with no end at all: the end of input ends it */
	run_feed(&r, junk, 64 * 1024);
	long rss2 = maxrss_kib();
	run_close(&r);
	fprintf(stderr, "log: 64 MiB line: maxrss +%ld KiB (+%ld KiB total); %llu lines, %llu "
		"malformed\n", rss1 - rss0, rss2 - rss0, (unsigned long long)r.st.lines,
		(unsigned long long)r.st.malformed);
	assert_int_equal(r.st.lines, 4);
	assert_int_equal(r.st.records, 2);
	assert_int_equal(r.st.malformed, 1);
	assert_int_equal(r.st.truncated, 1);
	const struct sp_diag *e = error_at(&r.d, 2);	/* the 64 MiB line */
	assert_non_null(strstr(e->msg, "longer"));
	assert_non_null(e->file);
	/* the unterminated 64 KiB line: a warning with its byte offset, not read */
	assert_int_equal(r.d.v[r.d.n - 1].severity, SP_SEV_WARNING);
	assert_int_equal(r.d.v[r.d.n - 1].line, 4);
	char want[96];
	snprintf(want, sizeof(want), "truncated line at byte offset %d ",
		 2 * n + 64 * 1024 * 1024 + 1);
	assert_non_null(strstr(r.d.v[r.d.n - 1].msg, want));
	assert_int_equal(r.s.events, 2);
	assert_true(r.s.max_rec_len < 1024);
	assert_true(rss2 - rss0 < 64 * 1024);		/* KiB: under 64 MiB over baseline */
	sp_diags_release(&r.d);

	/* the same with a tiny max_line and one byte per feed: the carry never grows past it */
	run_open(&r, 256);
	for (int i = 0; i < 100000; i++)
		run_feed(&r, "y", 1);
	run_close(&r);
	assert_int_equal(r.st.lines, 1);
	assert_int_equal(r.st.malformed, 1);
	error_at(&r.d, 1);
	sp_diags_release(&r.d);
	free(junk);
}

static void test_hostile_log__odd_hex_and_nul(void **st)
{
	(void)st;
	struct run r;
	run_open(&r, 0);
	char buf[4096];
	size_t len = 0;
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, REC_SYSCALL, 7u, 200u);
	/* odd-length hex name (7 digits): never decoded as hex, nor read past its end */
	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				"type=PATH msg=audit(1700000000.123:7): item=0 name=2F65746 inode=5 "
				"dev=08:01 mode=0100644 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL\n");
	/* odd-length hex executable and proctitle */
	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				"type=PROCTITLE msg=audit(1700000000.123:7): proctitle=636174206"
				"\n");
	/* a NUL byte in the middle of a record (line 4) and one in a header (line 5) */
	static const char nul1[] = "type=SYSCALL msg=audit(1700000000.200:8): arch=c000003e "
				   "syscall=2\0 success=yes exit=3\n";
	memcpy(buf + len, nul1, sizeof(nul1) - 1);
	len += sizeof(nul1) - 1;
	static const char nul2[] = "type=SYS\0CALL msg=audit(1700000000.300:9): arch=c000003e\n";
	memcpy(buf + len, nul2, sizeof(nul2) - 1);
	len += sizeof(nul2) - 1;
	/* every prefix of the input, fed alone, keeps the invariants (no over-read at any cut) */
	for (size_t cut = 0; cut <= len; cut += 7) {
		struct run c;
		run_open(&c, 0);
		char *p = malloc(cut + 1);	/* exact size: ASan sees over-reads */
		assert_non_null(p);
		memcpy(p, buf, cut);
		run_feed(&c, p, cut);
		run_close(&c);
		sp_diags_release(&c.d);
		free(p);
	}
	run_feed(&r, buf, len);
	run_close(&r);
	assert_int_equal(r.st.lines, 5);
	/* odd-length hex is kept as literal text (lines 2, 3 are records); the NUL inside a value
	 * (line 4) and inside the type (line 5) refuse those lines, each at its line */
	assert_int_equal(r.st.records, 3);
	assert_int_equal(r.st.malformed, 2);
	error_at(&r.d, 4);
	error_at(&r.d, 5);
	for (size_t i = 0; i < r.d.n; i++)
		fprintf(stderr, "log: hostile.log:%u: %s\n", r.d.v[i].line, r.d.v[i].msg);
	sp_diags_release(&r.d);
}

static void test_hostile_log__execve_splits(void **st)
{
	(void)st;
	struct run r;
	run_open(&r, 0);
	long rss0 = maxrss_kib();
	size_t cap = 2 * MIB, len;
	char *line = malloc(cap);
	assert_non_null(line);
	/* one event: SYSCALL, EXECVE with a0_len claiming 4 GiB, then 300 EXECVE records each
	 * carrying a 100 KiB split of a0 (30 MiB: past LOG_EVENT_MAX_BYTES), then 5000 tiny splits
	 * (past LOG_EVENT_MAX_RECS) */
	len = (size_t)snprintf(line, cap, REC_SYSCALL, 42u, 300u);
	run_feed(&r, line, len);
	len = (size_t)snprintf(line, cap, "type=EXECVE msg=audit(1700000000.123:42): argc=1 "
			       "a0_len=4294967295\n");
	run_feed(&r, line, len);
	size_t head = (size_t)snprintf(line, cap, "type=EXECVE msg=audit(1700000000.123:42): "
				       "a0[%06u]=", 0u);
	memset(line + head, 'A', 100 * 1024);
	line[head + 100 * 1024] = '\n';
	for (unsigned i = 0; i < 300; i++) {
		char idx[8];
		snprintf(idx, sizeof(idx), "%06u", i);
		memcpy(line + head - 8, idx, 6);	/* "a0[NNNNNN]=" */
		run_feed(&r, line, head + 100 * 1024 + 1);
	}
	for (unsigned i = 300; i < 5300; i++) {
		len = (size_t)snprintf(line, cap, "type=EXECVE msg=audit(1700000000.123:42): "
				       "a0[%u]=41\n", i);
		run_feed(&r, line, len);
	}
	/* hostile split indices and lengths: overflowing, negative, nested brackets */
	static const char *const bad[] = {
		"a0[99999999999999999999]=41",
		"a0[-1]=41",
		"a0[1][2]=41",
		"a0[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]=41",
		"a99999999999999999999=41",
		"a0_len=-5",
		"a0_len=99999999999999999999",
		"argc=-1",
	};
	uint32_t first_bad = 2 + 5300 + 1;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = (size_t)snprintf(line, cap, "type=EXECVE msg=audit(1700000000.123:42): %s\n",
				       bad[i]);
		run_feed(&r, line, len);
	}
	len = (size_t)snprintf(line, cap, "type=PROCTITLE msg=audit(1700000000.123:42): "
			       "proctitle=636174\n");
	run_feed(&r, line, len);
	long rss1 = maxrss_kib();
	run_close(&r);
	fprintf(stderr, "log: 5300 EXECVE splits (30 MiB): %llu events, maxrss +%ld KiB\n",
		(unsigned long long)r.s.events, rss1 - rss0);
	assert_int_equal(r.st.lines, first_bad + 8);
	for (uint32_t l = first_bad; l < first_bad + 8; l++)
		error_at(&r.d, l);
	/* the event was cut into pieces of at most 8 MiB (3+) and 4096 records (1+) */
	assert_true(r.s.events >= 4);
	assert_true(rss1 - rss0 < 64 * 1024);
	sp_diags_release(&r.d);
	free(line);
}

static void test_hostile_log__record_frame_2g(void **st)
{
	(void)st;
	/* a real two-event stream written by the writer through a pipe */
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	struct sp_audit_record_writer *w;
	assert_int_equal(sp_audit_record_writer_new(fds[1], &w), 0);
	struct sp_audit_event *ev;
	assert_int_equal(sp_audit_event_new(&ev), 0);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 257);
	assert_true(sp_audit_event_add_name(ev, 5, SP_AUDIT_MKDEV(8, 1)) >= 0);
	assert_int_equal(sp_audit_event_name_set_path(ev, 0, "/etc/shadow"), 0);
	assert_int_equal(sp_audit_record_write(w, ev), 0);
	assert_int_equal(sp_audit_record_write(w, ev), 0);
	assert_int_equal(sp_audit_record_writer_finish(w), 0);
	close(fds[1]);
	unsigned char buf[4096];
	ssize_t n = read(fds[0], buf, sizeof(buf));
	close(fds[0]);
	assert_true(n > (ssize_t)SP_AUDIT_RECORD_HDR_SIZE + 8);
	size_t len = (size_t)n, f1 = SP_AUDIT_RECORD_HDR_SIZE;
	uint32_t flen = (uint32_t)buf[f1] | (uint32_t)buf[f1 + 1] << 8 | (uint32_t)buf[f1 + 2] << 16 |
			(uint32_t)buf[f1 + 3] << 24;
	size_t f2 = f1 + 4 + flen;
	assert_true(f2 + 4 < len);
	static const uint32_t claims[] = { 0x80000000u, 0xffffffffu, SP_AUDIT_RECORD_FRAME_MAX + 1 };
	for (size_t k = 0; k < 3; k++) {
		/* the second frame's length claims far more than the stream holds */
		unsigned char *b = malloc(len);
		assert_non_null(b);
		memcpy(b, buf, len);
		for (int i = 0; i < 4; i++)
			b[f2 + (size_t)i] = (unsigned char)(claims[k] >> (8 * i));
		struct sp_audit_record_reader *r;
		assert_int_equal(sp_audit_record_reader_new(b, len, &r), 0);
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		long rss0 = maxrss_kib();
		assert_int_equal(sp_audit_record_read(r, ev, &d), 1);	/* the first frame is fine */
		assert_int_equal(sp_audit_record_read(r, ev, &d), -EINVAL);
		assert_int_equal(sp_audit_record_read(r, ev, &d), -EINVAL);	/* and stays refused */
		long rss1 = maxrss_kib();
		assert_true(d.nerrors >= 1);
		assert_true(d.v[0].has_offset);
		assert_int_equal(d.v[0].offset, f2);
		assert_true(rss1 - rss0 < 16 * 1024);
		sp_audit_record_reader_free(r);
		sp_diags_release(&d);
		free(b);
	}
	sp_audit_event_free(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_log__line_without_end),
		cmocka_unit_test(test_hostile_log__odd_hex_and_nul),
		cmocka_unit_test(test_hostile_log__execve_splits),
		cmocka_unit_test(test_hostile_log__record_frame_2g),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
