/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_policy_avc.c - the AVC: decisions equal the policy's, cache_stats-style counters add up,
 * reclaim keeps the node count near the threshold, boolean changes and policy reloads flush,
 * and lookups from two threads stay correct (and, under ASan, free of use-after-free) while the
 * main thread flips booleans and replaces the policy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "secpath/policy.h"
#include "test_policy_util.h"

static struct sp_policy *load(const char *path, enum sp_avtab_layout l)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read(path, &buf, &len), 0);
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = l };
	struct sp_policy *p = NULL;
	assert_int_equal(sp_policy_read(buf, len, &o, &p), 0);
	free(buf);
	return p;
}

static void test_policy_avc__stats_and_reclaim(void **st)
{
	(void)st;
	sp_avc_reader_register();
	struct sp_policy *ref = load("tests/data/policy/tiny.33", SP_AVTAB_FLAT);
	struct sp_avc *a;
	struct sp_avc_opts o = { .sz = sizeof(o), .nbuckets = 16, .threshold = 40 };
	assert_int_equal(sp_avc_create(load("tests/data/policy/tiny.33", SP_AVTAB_CHAINED), &o, &a), 0);
	uint32_t nt = sp_policy_type_count(ref), nc = sp_policy_class_count(ref);
	uint64_t n = 0;
	for (int round = 0; round < 2; round++)
		for (uint32_t s = 1; s <= nt; s++)
			for (uint32_t t = 1; t <= 3; t++)
				for (uint32_t c = 1; c <= nc; c++) {
					struct sp_av_decision x, y;
					assert_int_equal(sp_avc_lookup(a, s, t, c, &x), 0);
					sp_policy_compute_av(ref, s, t, c, &y);
					assert_int_equal(x.allowed, y.allowed);
					assert_int_equal(x.auditallow, y.auditallow);
					assert_int_equal(x.auditdeny, y.auditdeny);
					assert_int_equal(x.flags, y.flags);
					n++;
				}
	struct sp_avc_stats s;
	sp_avc_get_stats(a, &s);
	assert_int_equal(s.lookups, n);
	assert_int_equal(s.hits + s.misses, n);
	assert_true(s.misses >= n / 2);	/* 441 triples > threshold: the second round misses too */
	assert_true(s.reclaims > 0);
	assert_int_equal(s.allocations - s.frees, s.entries);
	assert_true(s.entries <= 40 + 16);
	assert_int_equal(s.buckets, 16);
	assert_true(s.longest_chain >= 1 && s.buckets_used <= 16);
	/* a small working set hits */
	struct sp_av_decision x;
	sp_avc_lookup(a, 1, 1, 1, &x);
	sp_avc_get_stats(a, &s);
	uint64_t hits = s.hits;
	sp_avc_lookup(a, 1, 1, 1, &x);
	sp_avc_get_stats(a, &s);
	assert_int_equal(s.hits, hits + 1);
	assert_int_equal(sp_avc_lookup(a, 0, 1, 1, &x), -EINVAL);
	sp_avc_free(a);
	sp_policy_free(ref);
	sp_avc_reader_unregister();
}

static void test_policy_avc__bool_flushes(void **st)
{
	(void)st;
	sp_avc_reader_register();
	struct sp_policy *p = load("tests/data/policy/tiny.33", SP_AVTAB_FLAT);
	uint32_t app = sp_policy_type_lookup(p, "app_t"), etc = sp_policy_type_lookup(p, "etc_t");
	uint32_t file = sp_policy_class_lookup(p, "file"), b = sp_policy_bool_lookup(p, "allow_app_write");
	uint32_t wbit = 1u << (sp_policy_perm_lookup(p, file, "write") - 1);
	struct sp_avc *a;
	assert_int_equal(sp_avc_create(p, NULL, &a), 0);
	struct sp_av_decision x;
	sp_avc_lookup(a, app, etc, file, &x);
	assert_int_equal(x.allowed & wbit, 0);
	assert_int_equal(sp_avc_set_bool(a, b, 1), 0);
	sp_avc_lookup(a, app, etc, file, &x);
	assert_int_equal(x.allowed & wbit, wbit);
	assert_int_equal(sp_avc_set_bool(a, 1000, 1), -EINVAL);
	/* reload: the fresh policy has the default (off) again */
	assert_int_equal(sp_avc_set_policy(a, load("tests/data/policy/tiny.33", SP_AVTAB_ARRAY)), 0);
	sp_avc_lookup(a, app, etc, file, &x);
	assert_int_equal(x.allowed & wbit, 0);
	struct sp_avc_stats s;
	sp_avc_get_stats(a, &s);
	assert_int_equal(s.misses, 3);
	sp_avc_free(a);
	sp_avc_reader_unregister();
}

struct reader {
	struct sp_avc *a;
	uint32_t app, etc, file, wbit, base;
	atomic_int *stop;
	atomic_long n;
	long bad;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	/* nested registration: the inner pair must leave the thread registered, so the writer's
	 * grace periods still wait for this reader (a freed policy here fails under ASan) */
	sp_avc_reader_register();
	sp_avc_reader_register();
	sp_avc_reader_unregister();
	while (!atomic_load(r->stop)) {
		struct sp_av_decision x;
		sp_avc_lookup(r->a, r->app, r->etc, r->file, &x);
		/* one of the two valid states, never a torn or freed decision */
		if (x.allowed != r->base && x.allowed != (r->base | r->wbit))
			r->bad++;
		for (uint32_t s = 1; s < 8; s++)
			sp_avc_lookup(r->a, s, r->etc, r->file, &x);
		atomic_fetch_add(&r->n, 1);
	}
	sp_avc_reader_unregister();
	return NULL;
}

static void test_policy_avc__concurrent_reload(void **st)
{
	(void)st;
	sp_avc_reader_register();
	struct sp_policy *p = load("tests/data/policy/tiny.33", SP_AVTAB_FLAT);
	struct reader r[2];
	atomic_int stop = 0;
	uint32_t app = sp_policy_type_lookup(p, "app_t"), etc = sp_policy_type_lookup(p, "etc_t");
	uint32_t file = sp_policy_class_lookup(p, "file"), b = sp_policy_bool_lookup(p, "allow_app_write");
	struct sp_av_decision x;
	sp_policy_compute_av(p, app, etc, file, &x);
	uint32_t wbit = 1u << (sp_policy_perm_lookup(p, file, "write") - 1);
	uint32_t abit = 1u << (sp_policy_perm_lookup(p, file, "append") - 1);
	struct sp_avc *a;
	assert_int_equal(sp_avc_create(p, NULL, &a), 0);
	pthread_t th[2];
	for (int i = 0; i < 2; i++) {
		r[i] = (struct reader){ a, app, etc, file, wbit | abit, x.allowed, &stop, 0, 0 };
		atomic_init(&r[i].n, 0);
		assert_int_equal(pthread_create(&th[i], NULL, reader_main, &r[i]), 0);
	}
	for (int i = 0; i < 60; i++) {
		/* let both readers run between changes */
		long n0 = atomic_load(&r[0].n), n1 = atomic_load(&r[1].n);
		while (atomic_load(&r[0].n) < n0 + 2 || atomic_load(&r[1].n) < n1 + 2)
			sched_yield();
		if (i % 3 == 2)
			assert_int_equal(sp_avc_set_policy(a, load("tests/data/policy/tiny.33",
								   (enum sp_avtab_layout)(i % 3))), 0);
		else
			assert_int_equal(sp_avc_set_bool(a, b, i % 2), 0);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(r[i].bad, 0);
		assert_true(atomic_load(&r[i].n) >= 120);
	}
	sp_avc_free(a);
	sp_avc_reader_unregister();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_avc__stats_and_reclaim),
		cmocka_unit_test(test_policy_avc__bool_flushes),
		cmocka_unit_test(test_policy_avc__concurrent_reload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
