/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_filter_diff.c - differential testing of the audit filter engines and the RCU stress.
 *
 *  - golden rule sets (Debian STIG, the two large third-party sets) x random events biased to
 *    their constants, syscalls and paths: the reference engine (kmalloc layout), its bench
 *    variants (slab-aligned entries, unswitched walk), the compiled matcher and an RCU engine
 *    holding it (sp_audit_engine_filter: its lock-free gate, then the matcher) must agree;
 *  - random rule sets (fields, operators and constants drawn from the real rule files, plus
 *    invalid ones, prepends and deletions) x random events, same check;
 *  - RCU: 2 filtering threads (one per event, one with sp_audit_engine_filter_batch) and 1 thread
 *    replacing the matcher (two rule sets, alternating) for a bounded time; every decision equals
 *    the decision of one of the two sets, and all decisions of one batch come from the same set.
 *
 * Event counts: SECPATH_DIFF_EVENTS (per variant; default 200000, 50000 under ASan).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "secpath/audit.h"
#include "../support/audit_golden.h"

#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_EVENTS 50000
#define STRESS_SECONDS 1.0
#else
#define DEFAULT_EVENTS 200000
#define STRESS_SECONDS 2.0
#endif

static uint64_t events_per_variant(void)
{
	const char *e = getenv("SECPATH_DIFF_EVENTS");
	uint64_t n = e ? strtoull(e, NULL, 10) : 0;
	return n ? n : DEFAULT_EVENTS;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct world {
	struct tsupport_blobset rules;
	struct sp_audit_fsview *fs;
	struct tsupport_pool *pool;
	struct sp_audit_ref *ref[3];	/* kmalloc layout, slab-aligned, unswitched */
	struct sp_audit_matcher *m;
	struct sp_audit_engine *e;	/* holds a second compile of the same rules */
};

static void world_build(struct world *w)
{
	static const unsigned flags[3] = { 0, SP_AUDIT_REF_SLAB_ALIGNED,
					   SP_AUDIT_REF_SLAB_ALIGNED | SP_AUDIT_REF_UNSWITCHED };
	for (int i = 0; i < 3; i++) {
		struct sp_audit_engine_opts o = { .sz = sizeof(o), .fs = w->fs, .ref_flags = flags[i] };
		assert_int_equal(sp_audit_ref_new(&o, &w->ref[i]), 0);
		tsupport_blobset_apply(&w->rules, w->ref[i]);
	}
	assert_int_equal(sp_audit_matcher_compile(w->ref[0], &w->m), 0);
	struct sp_audit_matcher *m2;
	sp_audit_reader_register();
	assert_int_equal(sp_audit_engine_new(&w->e), 0);
	assert_int_equal(sp_audit_matcher_compile(w->ref[0], &m2), 0);
	assert_int_equal(sp_audit_engine_publish(w->e, m2), 0);
}

static void world_drop_engines(struct world *w)
{
	for (int i = 0; i < 3; i++) {
		sp_audit_ref_free(w->ref[i]);
		w->ref[i] = NULL;
	}
	sp_audit_matcher_free(w->m);
	w->m = NULL;
	sp_audit_engine_free(w->e);
	w->e = NULL;
}

static void check_event(struct world *w, const struct sp_audit_event *ev, uint64_t *agree, uint64_t *recorded)
{
	struct sp_audit_decision d[5];
	char a[600], b[600];
	for (int i = 0; i < 3; i++)
		sp_audit_ref_filter(w->ref[i], ev, &d[i]);
	sp_audit_matcher_filter(w->m, ev, &d[3]);
	sp_audit_engine_filter(w->e, ev, &d[4]);
	for (int i = 1; i < 5; i++) {
		if (!sp_audit_decision_equal(&d[0], &d[i])) {
			sp_audit_decision_format(&d[0], a, sizeof(a));
			sp_audit_decision_format(&d[i], b, sizeof(b));
			fail_msg("variant %d disagrees with the reference after %llu events:\n  ref %s\n  got %s",
				 i, (unsigned long long)*agree, a, b);
		}
	}
	*recorded += d[0].record;
	(*agree)++;
}

static void diff_golden(const char *path, uint64_t seed)
{
	struct world w = { 0 };
	struct sp_audit_event *ev;
	struct tsupport_rng g = { seed };
	uint64_t n = events_per_variant(), agree = 0, recorded = 0;

	assert_int_equal(tsupport_golden_load(path, &w.rules), 0);
	assert_int_equal(sp_audit_fsview_new(&w.fs), 0);
	assert_int_equal(tsupport_blobset_fsview(&w.rules, w.fs), 0);
	assert_int_equal(tsupport_pool_new(&w.rules, w.fs, &w.pool), 0);
	world_build(&w);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	for (uint64_t i = 0; i < n; i++) {
		tsupport_random_event(&g, w.pool, w.fs, ev);
		check_event(&w, ev, &agree, &recorded);
	}
	print_message("%s: %llu events agree (%llu recorded)\n", path, (unsigned long long)agree,
		      (unsigned long long)recorded);
	assert_true(recorded > 0 && recorded < agree);
	sp_audit_event_free(ev);
	world_drop_engines(&w);
	tsupport_pool_free(w.pool);
	sp_audit_fsview_free(w.fs);
	tsupport_blobset_free(&w.rules);
}

static void test_audit_filter_diff__golden_stig(void **st)
{
	(void)st;
	diff_golden("tests/data/audit/golden/debian/30-stig.rules.tsv", 11);
}

static void test_audit_filter_diff__golden_neo23x0(void **st)
{
	(void)st;
	diff_golden("tests/data/audit/golden/thirdparty/neo23x0-audit.rules.tsv", 12);
}

static void test_audit_filter_diff__golden_bfuzzy(void **st)
{
	(void)st;
	diff_golden("tests/data/audit/golden/thirdparty/bfuzzy-auditd-attack.rules.tsv", 13);
}

/* Random rule sets from every golden file's fields, with deletions and invalid rules. */
static void test_audit_filter_diff__random_rules(void **st)
{
	(void)st;
	struct tsupport_blobset all = { 0 };
	struct sp_audit_fsview *fs;
	struct tsupport_pool *pool;
	struct sp_audit_event *ev;
	struct tsupport_rng g = { 99 };
	uint64_t n = events_per_variant(), agree = 0, recorded = 0, sets = 0, accepted = 0, tried = 0;
	static const char *const files[] = {
		"tests/data/audit/golden/debian/30-stig.rules.tsv",
		"tests/data/audit/golden/debian/30-ospp-v42.rules.tsv",
		"tests/data/audit/golden/debian/23-ignore-filesystems.rules.tsv",
		"tests/data/audit/golden/debian/22-ignore-chrony.rules.tsv",
		"tests/data/audit/golden/thirdparty/neo23x0-audit.rules.tsv",
		"tests/data/audit/golden/thirdparty/bfuzzy-auditd-attack.rules.tsv",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_int_equal(tsupport_golden_load(files[i], &all), 0);
	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	assert_int_equal(tsupport_blobset_fsview(&all, fs), 0);
	assert_int_equal(tsupport_pool_new(&all, fs, &pool), 0);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	while (agree < n) {
		struct world w = { .fs = fs, .pool = pool };
		struct tsupport_rule r;
		uint32_t nrules = 1 + (uint32_t)(tsupport_rand(&g) % 40);
		for (uint32_t k = 0; k < nrules; k++) {
			if (k > 2 && tsupport_rand(&g) % 8 == 0) {
				/* delete an earlier rule (or a non-existent one) */
				const struct tsupport_blob *b = &w.rules.v[tsupport_rand(&g) % w.rules.n];
				assert_int_equal(tsupport_blobset_push(&w.rules, k + 1, 1, b->blob, b->len), 0);
				continue;
			}
			tsupport_random_rule(&g, pool, &r);
			assert_int_equal(tsupport_blobset_push(&w.rules, k + 1, 0, r.buf, r.len), 0);
		}
		world_build(&w);
		tried += w.rules.n;
		accepted += sp_audit_ref_count(w.ref[0]);
		for (int i = 0; i < 2000 && agree < n; i++) {
			tsupport_random_event(&g, pool, fs, ev);
			check_event(&w, ev, &agree, &recorded);
		}
		world_drop_engines(&w);
		tsupport_blobset_free(&w.rules);
		sets++;
	}
	print_message("random rules: %llu events agree over %llu rule sets (%llu of %llu rules loaded, "
		      "%llu recorded)\n", (unsigned long long)agree, (unsigned long long)sets,
		      (unsigned long long)accepted, (unsigned long long)tried, (unsigned long long)recorded);
	assert_true(accepted > tried / 4);
	assert_true(recorded > 0);
	sp_audit_event_free(ev);
	tsupport_pool_free(pool);
	sp_audit_fsview_free(fs);
	tsupport_blobset_free(&all);
}

/* ---- RCU stress ---- */

#define NEV 512

struct stress {
	struct sp_audit_engine *e;
	struct sp_audit_event *ev[NEV];
	struct sp_audit_decision want[2][NEV];
	atomic_int stop;
	atomic_ullong checked, bad, saw[2];
};

static void *reader(void *arg)
{
	struct stress *s = arg;
	struct sp_audit_decision d;
	unsigned long long n = 0, bad = 0, saw[2] = { 0, 0 };
	sp_audit_reader_register();
	for (unsigned i = 0; !atomic_load_explicit(&s->stop, memory_order_relaxed); i = (i + 1) % NEV) {
		sp_audit_engine_filter(s->e, s->ev[i], &d);
		int a = sp_audit_decision_equal(&d, &s->want[0][i]);
		int b = sp_audit_decision_equal(&d, &s->want[1][i]);
		if (!a && !b)
			bad++;
		if (a != b)
			saw[b]++;
		n++;
	}
	sp_audit_reader_unregister();
	atomic_fetch_add(&s->checked, n);
	atomic_fetch_add(&s->bad, bad);
	atomic_fetch_add(&s->saw[0], saw[0]);
	atomic_fetch_add(&s->saw[1], saw[1]);
	return NULL;
}

/* The batch read side: every decision of one batch comes from the same rule set. */
#define BATCH 16
_Static_assert(NEV % BATCH == 0, "batches do not wrap");
static void *reader_batch(void *arg)
{
	struct stress *s = arg;
	struct sp_audit_decision d[BATCH];
	unsigned long long n = 0, bad = 0, saw[2] = { 0, 0 };
	sp_audit_reader_register();
	for (unsigned i = 0; !atomic_load_explicit(&s->stop, memory_order_relaxed); i = (i + BATCH) % NEV) {
		int set = -1;
		sp_audit_engine_filter_batch(s->e, (const struct sp_audit_event *const *)&s->ev[i], BATCH, d);
		for (unsigned k = 0; k < BATCH; k++) {
			int a = sp_audit_decision_equal(&d[k], &s->want[0][i + k]);
			int b = sp_audit_decision_equal(&d[k], &s->want[1][i + k]);
			if (!a && !b)
				bad++;
			if (a != b) {
				saw[b]++;
				if (set >= 0 && set != b)
					bad++;	/* two rule sets inside one read-side critical section */
				set = b;
			}
			n++;
		}
	}
	sp_audit_reader_unregister();
	atomic_fetch_add(&s->checked, n);
	atomic_fetch_add(&s->bad, bad);
	atomic_fetch_add(&s->saw[0], saw[0]);
	atomic_fetch_add(&s->saw[1], saw[1]);
	return NULL;
}

static void test_audit_filter_diff__rcu_stress(void **st)
{
	(void)st;
	static struct stress s;
	struct tsupport_blobset set[2] = { { 0 }, { 0 } };
	struct sp_audit_fsview *fs;
	struct sp_audit_ref *ref[2];
	struct tsupport_pool *pool;
	struct tsupport_rng g = { 7 };
	pthread_t th[2];
	unsigned long publishes = 0;

	memset(&s, 0, sizeof(s));
	assert_int_equal(tsupport_golden_load("tests/data/audit/golden/debian/30-stig.rules.tsv", &set[0]), 0);
	assert_int_equal(tsupport_golden_load("tests/data/audit/golden/thirdparty/bfuzzy-auditd-attack.rules.tsv",
					      &set[1]), 0);
	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(tsupport_blobset_fsview(&set[i], fs), 0);
	assert_int_equal(tsupport_pool_new(&set[0], fs, &pool), 0);
	for (int i = 0; i < 2; i++) {
		struct sp_audit_engine_opts o = { .sz = sizeof(o), .fs = fs };
		assert_int_equal(sp_audit_ref_new(&o, &ref[i]), 0);
		tsupport_blobset_apply(&set[i], ref[i]);
	}
	size_t differ = 0;
	for (int i = 0; i < NEV; i++) {
		assert_int_equal(sp_audit_event_new(&s.ev[i]), 0);
		tsupport_random_event(&g, pool, fs, s.ev[i]);
		sp_audit_ref_filter(ref[0], s.ev[i], &s.want[0][i]);
		sp_audit_ref_filter(ref[1], s.ev[i], &s.want[1][i]);
		differ += !sp_audit_decision_equal(&s.want[0][i], &s.want[1][i]);
	}
	assert_true(differ > NEV / 8);

	assert_int_equal(sp_audit_engine_new(&s.e), 0);
	{
		struct sp_audit_matcher *m0;
		assert_int_equal(sp_audit_matcher_compile(ref[0], &m0), 0);
		assert_int_equal(sp_audit_engine_publish(s.e, m0), 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, i ? reader_batch : reader, &s), 0);
	sp_audit_reader_register();
	double end = now_s() + STRESS_SECONDS;
	while (now_s() < end) {
		struct sp_audit_matcher *m;
		assert_int_equal(sp_audit_matcher_compile(ref[++publishes & 1], &m), 0);
		assert_int_equal(sp_audit_engine_publish(s.e, m), 0);
	}
	atomic_store(&s.stop, 1);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	sp_audit_reader_unregister();
	print_message("rcu stress: %llu decisions checked, %lu rule-set replacements, %llu/%llu "
		      "distinctive decisions from set A/B, %llu bad\n",
		      (unsigned long long)s.checked, publishes, (unsigned long long)s.saw[0],
		      (unsigned long long)s.saw[1], (unsigned long long)s.bad);
	assert_int_equal(s.bad, 0);
	assert_true(s.checked > 1000);
	assert_true(publishes > 10);
	assert_true(s.saw[0] > 0 && s.saw[1] > 0);
	sp_audit_engine_free(s.e);
	for (int i = 0; i < NEV; i++)
		sp_audit_event_free(s.ev[i]);
	for (int i = 0; i < 2; i++) {
		sp_audit_ref_free(ref[i]);
		tsupport_blobset_free(&set[i]);
	}
	tsupport_pool_free(pool);
	sp_audit_fsview_free(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_filter_diff__golden_stig),
		cmocka_unit_test(test_audit_filter_diff__golden_neo23x0),
		cmocka_unit_test(test_audit_filter_diff__golden_bfuzzy),
		cmocka_unit_test(test_audit_filter_diff__random_rules),
		cmocka_unit_test(test_audit_filter_diff__rcu_stress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
