/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_stress_audit.c - the RCU audit engine under load: N reader threads filter events through
 * sp_audit_engine_filter while one writer keeps publishing freshly compiled matchers of K rule
 * sets in turn, for a bounded time (SP_STRESS_MS, default 2000 ms).
 *
 * Decision-consistency checker: the writer publishes set g % K as generation g and only then
 * stores g in `gen` (seq_cst).  A reader loads g0 = gen, filters, loads g1 = gen: the matcher it
 * used was published no earlier than generation g0 and no later than g1 + 1 (the publish of g1 + 2
 * starts only after gen = g1 + 1 is stored), so its decision must equal the reference engine's
 * decision (precomputed, single-threaded) of one of the sets g0 .. g1 + 1.  With g0 == g1 that is
 * exactly the two sets live at that moment.  Any torn, stale or freed matcher shows up as a
 * mismatch; under ThreadSanitizer (make SAN=tsan) as a race report; under ASan as a
 * use-after-free.  The last set audits execve only, so most events alternate between the
 * engine's seqcount gate (no RCU section) and the matchers of the other sets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "secpath/audit.h"

#define NSETS 5
#define NREADERS 3
#define MAX_EVENTS 64

/* Rule sets chosen so that most events get a different decision (key or verdict) per set. */
static const char *const set_text[NSETS] = {
	"-a always,exit -F arch=b64 -S openat -F key=s0open\n"
	"-a always,exit -F arch=b64 -S all -F uid=1000 -F key=s0uid\n",
	"-a never,exit -F arch=b64 -S openat\n"
	"-a always,exit -F arch=b64 -S read,write -F key=s1rw\n"
	"-a always,exit -F arch=b64 -S all -F success=0 -F key=s1fail\n",
	"-a always,exit -F arch=b64 -S all -F auid>=1000 -F auid!=unset -F key=s2user\n"
	"-a always,exit -F arch=b64 -S execve -F key=s2exec\n",
	"-a always,exit -F arch=b64 -S all -F success=0 -F key=s3fail\n"
	"-a always,exit -F arch=b64 -S close,execve -F uid=0 -F key=s3root\n"
	"-a never,exit -F arch=b64 -S read\n"
	"-a always,exit -F arch=b64 -S all -F key=s3all\n",
	/* no -S all: read, write, close and openat are unaudited, decided by the engine's
	 * lock-free gate, while the other sets record them */
	"-a always,exit -F arch=b64 -S execve -F key=s4exec\n",
};

static const struct sp_audit_parse_opts popts = {
	.sz = sizeof(struct sp_audit_parse_opts),
	.machine = "x86_64",
	.passwd_file = "data/audit/env/passwd",
	.group_file = "data/audit/env/group",
	.dirs_file = "data/audit/env/dirs",
};

struct world {
	int nsets;			/* generation g publishes set g % nsets */
	struct sp_audit_ref *ref[NSETS];
	size_t nev;
	struct sp_audit_decision want[NSETS][MAX_EVENTS];
	struct sp_audit_engine *eng;
	atomic_ulong gen;
	atomic_int stop;
};

struct reader {
	struct world *w;
	pthread_t th;
	unsigned long decisions, bad, seen_mask;
	char first_bad[512];
};

static long stress_ms(void)
{
	const char *s = getenv("SP_STRESS_MS");
	long ms = s ? atol(s) : 2000;
	return ms > 0 ? ms : 2000;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct sp_audit_ref *load_set(const char *text)
{
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_ruleset_parse(text, strlen(text), "stress.rules", &popts, &rs, &d), 0);
	for (size_t i = 0; i < d.n; i++)
		if (d.v[i].severity == SP_SEV_ERROR)
			fail_msg("%u:%u: %s", d.v[i].line, d.v[i].col, d.v[i].msg);
	sp_diags_release(&d);
	struct sp_audit_ref *r = NULL;
	assert_int_equal(sp_audit_ref_new(NULL, &r), 0);
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		assert_int_equal(sp_audit_ruleset_item(rs, i, &it), 0);
		assert_int_equal(it.kind, SP_AUDIT_ITEM_ADD);
		assert_int_equal(sp_audit_ref_add(r, it.blob, it.blob_len, (uint32_t)i), 0);
	}
	sp_audit_ruleset_free(rs);
	return r;
}

/* Event i of the fixed event set: syscall x uid x auid x success. */
static size_t make_events(struct sp_audit_event **ev, size_t max)
{
	static const int32_t sys[] = { 257, 0, 1, 59, 3 };	/* openat read write execve close */
	static const uint32_t uids[] = { 0, 1000 };
	static const uint32_t auids[] = { SP_AUDIT_UNSET, 1000 };
	static const int64_t rets[] = { 3, -13 };
	size_t n = 0;
	for (size_t a = 0; a < 5; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t c = 0; c < 2; c++)
				for (size_t e = 0; e < 2 && n < max; e++) {
					struct sp_audit_event *x;
					assert_int_equal(sp_audit_event_new(&x), 0);
					sp_audit_event_set_syscall(x, SP_AUDIT_ARCH_X86_64, sys[a]);
					sp_audit_event_set_pids(x, 4242, 4242, 1);
					sp_audit_event_set_uids(x, uids[b], uids[b], uids[b], uids[b]);
					sp_audit_event_set_gids(x, uids[b], uids[b], uids[b], uids[b]);
					sp_audit_event_set_loginuid(x, auids[c]);
					sp_audit_event_set_sessionid(x, auids[c] == SP_AUDIT_UNSET ? SP_AUDIT_UNSET : 3);
					sp_audit_event_set_return(x, rets[e]);
					sp_audit_event_set_exe(x, n % 2 ? 200 : 100, SP_AUDIT_MKDEV(8, 1));
					ev[n++] = x;
				}
	return n;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct world *w = r->w;
	struct sp_audit_event *ev[MAX_EVENTS];
	size_t n = make_events(ev, MAX_EVENTS);
	sp_audit_reader_register();
	for (size_t i = 0; !atomic_load(&w->stop); i = (i + 1) % n) {
		struct sp_audit_decision d;
		unsigned long g0 = atomic_load(&w->gen);
		sp_audit_engine_filter(w->eng, ev[i], &d);
		unsigned long g1 = atomic_load(&w->gen);
		int ok = 0;
		for (unsigned long g = g0; g <= g1 + 1 && !ok; g++) {
			if (sp_audit_decision_equal(&d, &w->want[g % w->nsets][i])) {
				ok = 1;
				r->seen_mask |= 1ul << (g % w->nsets);
			}
		}
		r->decisions++;
		if (!ok && !r->bad++) {
			char got[256];
			sp_audit_decision_format(&d, got, sizeof(got));
			snprintf(r->first_bad, sizeof(r->first_bad), "event %zu gen %lu..%lu: %s", i, g0,
				 g1, got);
		}
	}
	sp_audit_reader_unregister();
	for (size_t i = 0; i < n; i++)
		sp_audit_event_free(ev[i]);
	return NULL;
}

/* Stop-time totals of the readers: decisions, inconsistent ones (the first reported), sets seen. */
static void join_readers(struct reader *rd, unsigned long *total, unsigned long *bad,
			 unsigned long *mask)
{
	for (int i = 0; i < NREADERS; i++) {
		pthread_join(rd[i].th, NULL);
		*total += rd[i].decisions;
		*bad += rd[i].bad;
		*mask |= rd[i].seen_mask;
		if (rd[i].bad)
			fprintf(stderr, "reader %d: %lu inconsistent, first: %s\n", i, rd[i].bad,
				rd[i].first_bad);
	}
}

static void test_stress_audit__publish_vs_filter(void **st)
{
	(void)st;
	static struct world w;
	memset(&w, 0, sizeof(w));
	w.nsets = NSETS;
	struct sp_audit_event *ev[MAX_EVENTS];
	w.nev = make_events(ev, MAX_EVENTS);
	for (int s = 0; s < NSETS; s++) {
		w.ref[s] = load_set(set_text[s]);
		struct sp_audit_matcher *m;
		assert_int_equal(sp_audit_matcher_compile(w.ref[s], &m), 0);
		for (size_t i = 0; i < w.nev; i++) {
			struct sp_audit_decision dm;
			assert_int_equal(sp_audit_ref_filter(w.ref[s], ev[i], &w.want[s][i]), 0);
			sp_audit_matcher_filter(m, ev[i], &dm);	/* single-threaded: engines agree */
			assert_true(sp_audit_decision_equal(&dm, &w.want[s][i]));
		}
		sp_audit_matcher_free(m);
	}
	/* the checker has teeth: most events are decided differently by consecutive sets */
	size_t distinct = 0;
	for (size_t i = 0; i < w.nev; i++)
		for (int s = 0; s < NSETS; s++)
			distinct += !sp_audit_decision_equal(&w.want[s][i], &w.want[(s + 1) % NSETS][i]);
	assert_true(distinct >= w.nev * NSETS / 2);

	assert_int_equal(sp_audit_engine_new(&w.eng), 0);
	struct sp_audit_matcher *m0;
	assert_int_equal(sp_audit_matcher_compile(w.ref[0], &m0), 0);
	assert_int_equal(sp_audit_engine_publish(w.eng, m0), 0);
	atomic_store(&w.gen, 0);
	atomic_store(&w.stop, 0);

	struct reader rd[NREADERS];
	memset(rd, 0, sizeof(rd));
	for (int i = 0; i < NREADERS; i++) {
		rd[i].w = &w;
		assert_int_equal(pthread_create(&rd[i].th, NULL, reader_main, &rd[i]), 0);
	}
	double t0 = now_ms(), limit = (double)stress_ms();
	unsigned long publishes = 0;
	/* the time bound, stretched (up to 20x) on a slow host until the minimum work is done */
	while (now_ms() - t0 < limit || (publishes < 10 && now_ms() - t0 < 20 * limit)) {
		unsigned long g = atomic_load(&w.gen) + 1;
		struct sp_audit_matcher *m;
		assert_int_equal(sp_audit_matcher_compile(w.ref[g % NSETS], &m), 0);
		assert_int_equal(sp_audit_engine_publish(w.eng, m), 0);
		atomic_store(&w.gen, g);
		publishes++;
	}
	atomic_store(&w.stop, 1);
	unsigned long total = 0, bad = 0, mask = 0;
	join_readers(rd, &total, &bad, &mask);
	double el = now_ms() - t0;
	fprintf(stderr, "stress audit: %d readers, %lu decisions, %lu publishes in %.0f ms, %lu "
		"inconsistent\n", NREADERS, total, publishes, el, bad);
	assert_int_equal(bad, 0);
	assert_true(publishes >= 10);
	assert_true(total >= 1000);
	assert_true(__builtin_popcountl(mask) >= 2);	/* readers saw the sets change */

	/* after the writer stops, every reader decision is the last set's */
	sp_audit_reader_register();
	unsigned long g = atomic_load(&w.gen);
	for (size_t i = 0; i < w.nev; i++) {
		struct sp_audit_decision d;
		sp_audit_engine_filter(w.eng, ev[i], &d);
		assert_true(sp_audit_decision_equal(&d, &w.want[g % NSETS][i]));
	}
	sp_audit_reader_unregister();
	sp_audit_engine_free(w.eng);
	for (int s = 0; s < NSETS; s++)
		sp_audit_ref_free(w.ref[s]);
	for (size_t i = 0; i < w.nev; i++)
		sp_audit_event_free(ev[i]);
}

/*
 * Marks that follow the file system, under the RCU engine: one rule set whose exe= mark the
 * writer keeps re-binding (sp_audit_ref_rebind: inode 100, then 200, as a rename onto the path
 * would) and publishing as a freshly compiled matcher, while the readers filter without ever
 * waiting.  The same checker: every decision is one of the bindings live around it.
 */
static void test_stress_audit__rebind_vs_filter(void **st)
{
	(void)st;
	static struct world w;
	static const char rules[] = "-a always,exit -F arch=b64 -S all -F exe=/t/x -F key=exe_x\n"
				    "-a always,exit -F arch=b64 -S openat -F key=open\n";
	static const uint64_t bind[2] = { 100, 200 };
	memset(&w, 0, sizeof(w));
	w.nsets = 2;
	struct sp_audit_event *ev[MAX_EVENTS];
	w.nev = make_events(ev, MAX_EVENTS);
	struct sp_audit_ref *ref = load_set(rules);
	for (int b = 0; b < 2; b++) {
		assert_int_equal(sp_audit_ref_rebind(ref, "/t/x", bind[b], SP_AUDIT_MKDEV(8, 1)), 1);
		for (size_t i = 0; i < w.nev; i++)
			assert_int_equal(sp_audit_ref_filter(ref, ev[i], &w.want[b][i]), 0);
	}
	size_t distinct = 0;
	for (size_t i = 0; i < w.nev; i++)
		distinct += !sp_audit_decision_equal(&w.want[0][i], &w.want[1][i]);
	assert_true(distinct >= w.nev / 4);	/* the checker has teeth */

	assert_int_equal(sp_audit_engine_new(&w.eng), 0);
	struct sp_audit_matcher *m;
	assert_int_equal(sp_audit_ref_rebind(ref, "/t/x", bind[0], SP_AUDIT_MKDEV(8, 1)), 1);
	assert_int_equal(sp_audit_matcher_compile(ref, &m), 0);
	assert_int_equal(sp_audit_engine_publish(w.eng, m), 0);
	struct reader rd[NREADERS];
	memset(rd, 0, sizeof(rd));
	for (int i = 0; i < NREADERS; i++) {
		rd[i].w = &w;
		assert_int_equal(pthread_create(&rd[i].th, NULL, reader_main, &rd[i]), 0);
	}
	double t0 = now_ms(), limit = (double)stress_ms() / 2;
	unsigned long publishes = 0, total = 0, bad = 0, mask = 0;
	while (now_ms() - t0 < limit || (publishes < 10 && now_ms() - t0 < 20 * limit)) {
		unsigned long g = atomic_load(&w.gen) + 1;
		assert_int_equal(sp_audit_ref_rebind(ref, "/t/x", bind[g % 2], SP_AUDIT_MKDEV(8, 1)), 1);
		assert_int_equal(sp_audit_matcher_compile(ref, &m), 0);
		assert_int_equal(sp_audit_engine_publish(w.eng, m), 0);
		atomic_store(&w.gen, g);
		publishes++;
	}
	atomic_store(&w.stop, 1);
	join_readers(rd, &total, &bad, &mask);
	fprintf(stderr, "stress audit rebind: %d readers, %lu decisions, %lu re-binds published, %lu "
		"inconsistent\n", NREADERS, total, publishes, bad);
	assert_int_equal(bad, 0);
	assert_true(publishes >= 10);
	assert_true(__builtin_popcountl(mask) == 2);	/* readers saw both bindings */
	sp_audit_engine_free(w.eng);
	sp_audit_ref_free(ref);
	for (size_t i = 0; i < w.nev; i++)
		sp_audit_event_free(ev[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress_audit__publish_vs_filter),
		cmocka_unit_test(test_stress_audit__rebind_vs_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
