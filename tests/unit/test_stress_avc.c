/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_stress_avc.c - the AVC under load: N reader threads look up (source, target, class)
 * triples through sp_avc_lookup while one writer flips a boolean (sp_avc_set_bool) and replaces
 * the policy (sp_avc_set_policy, every avtab layout in turn), for a bounded time (SP_STRESS_MS,
 * default 2000 ms).
 *
 * Decision-consistency checker: the writer runs a fixed schedule of operations; operation g
 * leaves the boolean in state st[g % NOPS] and only after it returns stores g in `gen`.  A reader
 * loads g0 = gen, looks up, loads g1 = gen: its decision must equal the reference decision
 * (sp_policy_compute_av on private policies, precomputed) of some state st[g], g0 <= g <= g1 + 1.
 * The schedule repeats a state (1 then 1, 0 then 0) so that for those windows only one state is
 * legal: a stale cache entry inserted behind a flush is caught, not just a torn decision.
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

#include "secpath/policy.h"

#define NREADERS 3
#define MAXQ 4096
#define HOT 160			/* queries most lookups cycle through */

enum op { OP_BOOL0, OP_BOOL1, OP_RELOAD };	/* a reload brings the file's default: off */
static const enum op sched[] = { OP_BOOL1, OP_BOOL1, OP_RELOAD, OP_BOOL0, OP_BOOL1, OP_RELOAD,
				 OP_RELOAD, OP_BOOL1, OP_BOOL0 };
#define NOPS (sizeof(sched) / sizeof(sched[0]))

struct query {
	uint16_t s, t, c;
};

struct world {
	unsigned char *buf;
	size_t len;
	struct sp_avc *avc;
	uint32_t b;
	size_t nq;
	struct query q[MAXQ];
	struct sp_av_decision want[2][MAXQ];	/* by boolean state */
	int state_after[NOPS];
	atomic_ulong gen;
	atomic_int stop;
};

struct reader {
	struct world *w;
	pthread_t th;
	unsigned idx;
	unsigned long lookups, bad, seen;
	char first_bad[256];
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

static struct sp_policy *load(const struct world *w, enum sp_avtab_layout l)
{
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = l };
	struct sp_policy *p = NULL;
	assert_int_equal(sp_policy_read(w->buf, w->len, &o, &p), 0);
	return p;
}

static int same(const struct sp_av_decision *a, const struct sp_av_decision *b)
{
	return a->allowed == b->allowed && a->auditallow == b->auditallow &&
	       a->auditdeny == b->auditdeny && a->flags == b->flags;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct world *w = r->w;
	sp_avc_reader_register();
	/* each reader walks the queries with its own stride so they collide in the cache */
	size_t i = r->idx, step = 1 + 2 * r->idx;
	while (!atomic_load(&w->stop)) {
		const struct query *q = &w->q[i];
		struct sp_av_decision d;
		unsigned long g0 = atomic_load(&w->gen);
		int rc = sp_avc_lookup(w->avc, q->s, q->t, q->c, &d);
		unsigned long g1 = atomic_load(&w->gen);
		int ok = 0;
		for (unsigned long g = g0; !rc && g <= g1 + 1 && !ok; g++)
			ok = same(&d, &w->want[w->state_after[g % NOPS]][i]);
		r->lookups++;
		if (!ok && !r->bad++)
			snprintf(r->first_bad, sizeof(r->first_bad),
				 "rc %d (%u,%u,%u) gen %lu..%lu: allowed 0x%x want 0x%x or 0x%x", rc, q->s,
				 q->t, q->c, g0, g1, d.allowed, w->want[0][i].allowed,
				 w->want[1][i].allowed);
		/* mostly a hot set that fits the cache (hits), every 8th lookup anywhere (reclaim) */
		i = (r->lookups & 7) ? (i + step) % HOT : (i * 7 + step + r->lookups) % w->nq;
	}
	sp_avc_reader_unregister();
	return NULL;
}

static void test_stress_avc__reload_and_bools(void **st)
{
	(void)st;
	static struct world w;
	memset(&w, 0, sizeof(w));
	FILE *f = fopen("tests/data/policy/tiny.33", "rb");
	assert_non_null(f);
	w.buf = malloc(1 << 20);
	assert_non_null(w.buf);
	w.len = fread(w.buf, 1, 1 << 20, f);
	fclose(f);
	assert_true(w.len > 0);

	/* reference decisions with the boolean off and on, from private policies */
	struct sp_policy *ref[2] = { load(&w, SP_AVTAB_FLAT), load(&w, SP_AVTAB_CHAINED) };
	w.b = sp_policy_bool_lookup(ref[0], "allow_app_write");
	assert_true(w.b > 0);
	assert_int_equal(sp_policy_bool_get(ref[0], w.b), 0);
	assert_int_equal(sp_policy_bool_set(ref[1], w.b, 1), 0);
	uint32_t nt = sp_policy_type_count(ref[0]), nc = sp_policy_class_count(ref[0]);
	size_t differ = 0;
	for (uint32_t s = 1; s <= nt; s++)
		for (uint32_t t = 1; t <= nt; t++)
			for (uint32_t c = 1; c <= nc && w.nq < MAXQ; c++) {
				w.q[w.nq] = (struct query){ (uint16_t)s, (uint16_t)t, (uint16_t)c };
				for (int k = 0; k < 2; k++)
					assert_int_equal(sp_policy_compute_av(ref[k], s, t, c,
									      &w.want[k][w.nq]), 0);
				differ += !same(&w.want[0][w.nq], &w.want[1][w.nq]);
				w.nq++;
			}
	assert_true(w.nq >= 2 * HOT);
	assert_true(differ >= 1);	/* the boolean matters for some queries */
	sp_policy_free(ref[0]);
	sp_policy_free(ref[1]);
	int state = 0;
	for (size_t g = 0; g < NOPS; g++) {
		state = sched[g] == OP_BOOL1 ? 1 : 0;
		w.state_after[g] = state;
	}
	/* generation 0 is the initial policy (state 0): make the schedule's slot NOPS-1 agree */
	assert_int_equal(w.state_after[NOPS - 1], 0);

	sp_avc_reader_register();
	/* a cache smaller than the query set (threshold 256) keeps reclaim busy during the run */
	struct sp_avc_opts ao = { .sz = sizeof(ao), .nbuckets = 64, .threshold = 256 };
	assert_int_equal(sp_avc_create(load(&w, SP_AVTAB_FLAT), &ao, &w.avc), 0);
	atomic_store(&w.gen, NOPS - 1);	/* state_after[NOPS - 1] = 0, the file's default */
	struct reader rd[NREADERS];
	memset(rd, 0, sizeof(rd));
	for (unsigned i = 0; i < NREADERS; i++) {
		rd[i].w = &w;
		rd[i].idx = i;
		assert_int_equal(pthread_create(&rd[i].th, NULL, reader_main, &rd[i]), 0);
	}
	double t0 = now_ms(), limit = (double)stress_ms();
	unsigned long ops = 0, reloads = 0;
	/* the time bound, stretched (up to 20x) on a slow host until the minimum work is done */
	while (now_ms() - t0 < limit || ((ops < 10 || reloads < 2) && now_ms() - t0 < 20 * limit)) {
		unsigned long g = atomic_load(&w.gen) + 1;
		switch (sched[g % NOPS]) {
		case OP_BOOL0:
		case OP_BOOL1:
			assert_int_equal(sp_avc_set_bool(w.avc, w.b, sched[g % NOPS] == OP_BOOL1), 0);
			break;
		case OP_RELOAD:
			assert_int_equal(sp_avc_set_policy(w.avc, load(&w, (enum sp_avtab_layout)(g % 3))),
					 0);
			reloads++;
			break;
		}
		atomic_store(&w.gen, g);
		ops++;
		/* let the readers refill the cache between changes */
		struct timespec pause = { 0, 200 * 1000 };
		nanosleep(&pause, NULL);
	}
	atomic_store(&w.stop, 1);
	unsigned long total = 0, bad = 0;
	for (int i = 0; i < NREADERS; i++) {
		pthread_join(rd[i].th, NULL);
		total += rd[i].lookups;
		bad += rd[i].bad;
		if (rd[i].bad)
			fprintf(stderr, "reader %d: %lu inconsistent, first: %s\n", i, rd[i].bad,
				rd[i].first_bad);
	}
	struct sp_avc_stats s;
	sp_avc_get_stats(w.avc, &s);
	fprintf(stderr, "stress avc: %d readers, %lu lookups (%llu hits, %llu reclaims), %lu writer "
		"ops (%lu reloads) in %.0f ms, %lu inconsistent\n", NREADERS, total,
		(unsigned long long)s.hits, (unsigned long long)s.reclaims, ops, reloads,
		now_ms() - t0, bad);
	assert_int_equal(bad, 0);
	assert_true(ops >= 10 && reloads >= 2);
	assert_true(total >= 1000);
	assert_true(s.lookups >= total);
	/* quiescent: the cache answers the last state for every query */
	int last = w.state_after[atomic_load(&w.gen) % NOPS];
	for (size_t i = 0; i < w.nq; i++) {
		struct sp_av_decision d;
		assert_int_equal(sp_avc_lookup(w.avc, w.q[i].s, w.q[i].t, w.q[i].c, &d), 0);
		assert_true(same(&d, &w.want[last][i]));
	}
	sp_avc_free(w.avc);
	sp_avc_reader_unregister();
	free(w.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress_avc__reload_and_bools),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
