/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_slab_random.c - randomized model tests: many caches with every flag combination driven by
 * a seeded PRNG (each live object carries a pattern that must survive until it is freed), and two
 * threads exchanging kmalloc objects of every class so most frees are remote.  The consistency
 * walker runs throughout; counts must match the model exactly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "secpath/slab.h"
#include "slab/slab_types.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;	/* xorshift64* */
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static void fill(uint8_t *p, size_t n, uint8_t tag)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(tag + i);
}

static int check(const uint8_t *p, size_t n, uint8_t tag)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(tag + i))
			return 0;
	return 1;
}

static void ctor_mark(void *p) { memset(p, 0x3c, 16); }

#define NSLOT 700

static void test_slab__random_flags_model(void **st)
{
	(void)st;
	static const struct { size_t size, align; unsigned flags; int ctor; } cfg[] = {
		{ 24, 0, SP_SLAB_HWCACHE_ALIGN, 0 },
		{ 408, 0, SP_SLAB_HWCACHE_ALIGN | SP_SLAB_COLOUR, 0 },
		{ 100, 16, SP_SLAB_POISON | SP_SLAB_RED_ZONE, 0 },
		{ 5, 0, SP_SLAB_RED_ZONE, 0 },
		{ 200, 0, SP_SLAB_TYPESAFE_BY_RCU, 0 },
		{ 64, 0, 0, 1 },
		{ 1000, 0, SP_SLAB_VERIFY_ON_ALLOC, 0 },
		{ 96, 0, SP_SLAB_KMALLOC | SP_SLAB_NO_INIT_ON_FREE, 0 },
		{ 3000, 64, SP_SLAB_NO_INIT_ON_ALLOC | SP_SLAB_COLOUR, 0 },
	};
	enum { NC = sizeof(cfg) / sizeof(cfg[0]) };
	struct sp_slab_cache *c[NC];
	static uint8_t *obj[NC][NSLOT];
	static uint8_t tag[NC][NSLOT];
	size_t live[NC] = { 0 };
	uint64_t seed = 0x5eed1234abcdull;
	memset(obj, 0, sizeof(obj));
	for (size_t k = 0; k < NC; k++) {
		void (*ctor)(void *) = cfg[k].ctor ? ctor_mark : NULL;
		int rc = sp_slab_cache_create("random", cfg[k].size, cfg[k].align, cfg[k].flags,
					      ctor, &c[k]);
		assert_int_equal(rc, 0);
	}
	for (int step = 0; step < 60000; step++) {
		uint64_t r = rng_next(&seed);
		size_t k = r % NC, i = (r >> 8) % NSLOT;
		if ((r >> 20) % 4000 == 0) {	/* flip the policy now and then */
			sp_slab_set_init_on_alloc((int)((r >> 32) & 1));
			sp_slab_set_init_on_free((int)((r >> 33) & 1));
		}
		size_t n = cfg[k].size;
		if (!obj[k][i]) {
			/* no zalloc on the ctor cache: the kernel calls that a bug */
			int z = ((r >> 40) & 1) && !cfg[k].ctor;
			uint8_t *p = z ? sp_slab_cache_zalloc(c[k]) : sp_slab_cache_alloc(c[k]);
			assert_non_null(p);
			if (cfg[k].align)
				assert_int_equal((uintptr_t)p % cfg[k].align, 0);
			if (cfg[k].ctor)
				assert_int_equal(p[0], 0x3c);	/* constructed state survives */
			else if (z)
				for (size_t b = 0; b < n; b++)
					assert_int_equal(p[b], 0);
			tag[k][i] = (uint8_t)(r >> 48);
			if (cfg[k].ctor)
				fill(p + 16, n - 16, tag[k][i]);
			else
				fill(p, n, tag[k][i]);
			obj[k][i] = p;
			live[k]++;
		} else {
			uint8_t *p = obj[k][i];
			if (cfg[k].ctor)
				assert_true(p[0] == 0x3c && check(p + 16, n - 16, tag[k][i]));
			else
				assert_true(check(p, n, tag[k][i]));
			if (cfg[k].ctor)
				memset(p + 16, 0, n - 16);	/* back to the constructed state */
			sp_slab_cache_free(c[k], p);
			obj[k][i] = NULL;
			live[k]--;
		}
		if (step % 10000 == 0)
			for (size_t j = 0; j < NC; j++) {
				struct sp_slab_stats s;
				sp_slab_cache_stats(c[j], &s);
				assert_int_equal(s.nr_active, live[j]);
				assert_true(slab_cache_is_valid(c[j]));
			}
	}
	sp_slab_set_init_on_alloc(0);
	sp_slab_set_init_on_free(0);
	for (size_t k = 0; k < NC; k++) {
		assert_true(slab_cache_is_valid(c[k]));
		if (live[k] && !SP_CONFIG_PASSTHROUGH)
			assert_int_equal(sp_slab_cache_destroy(c[k]), -EBUSY);
		for (size_t i = 0; i < NSLOT; i++)
			if (obj[k][i]) {
				if (cfg[k].ctor)
					memset(obj[k][i] + 16, 0, cfg[k].size - 16);
				sp_slab_cache_free(c[k], obj[k][i]);
			}
		assert_int_equal(sp_slab_cache_destroy(c[k]), 0);
	}
}

/* Two threads: allocate kmalloc objects of random sizes, hand half to the other thread. */
#define XCHG 1024
struct xchg {
	pthread_mutex_t lock;
	void *slot[XCHG];
	uint32_t len[XCHG];
	size_t n;
	int errors;
};

struct worker {
	struct xchg *x;
	uint64_t seed;
};

static void *kmalloc_worker(void *arg)
{
	struct worker *w = arg;
	void *mine[256] = { 0 };
	uint32_t mylen[256];
	for (int step = 0; step < 40000; step++) {
		uint64_t r = rng_next(&w->seed);
		unsigned i = r % 256;
		if (!mine[i]) {
			uint32_t len = (uint32_t)((r >> 16) % SP_KMALLOC_MAX) + 1;
			uint8_t *p = (r >> 40) & 1 ? sp_kzalloc(len) : sp_kmalloc(len);
			if (!p) {
				__atomic_store_n(&w->x->errors, 1, __ATOMIC_RELAXED);
				break;
			}
			fill(p, len, (uint8_t)len);
			mine[i] = p;
			mylen[i] = len;
			continue;
		}
		if (!check(mine[i], mylen[i], (uint8_t)mylen[i]))
			__atomic_store_n(&w->x->errors, 1, __ATOMIC_RELAXED);
		pthread_mutex_lock(&w->x->lock);
		if ((r >> 50) & 1 && w->x->n < XCHG) {	/* give it away */
			w->x->slot[w->x->n] = mine[i];
			w->x->len[w->x->n++] = mylen[i];
			mine[i] = NULL;
		} else if (w->x->n) {			/* free one from the other thread */
			void *q = w->x->slot[--w->x->n];
			uint32_t ql = w->x->len[w->x->n];
			pthread_mutex_unlock(&w->x->lock);
			if (!check(q, ql, (uint8_t)ql))
				__atomic_store_n(&w->x->errors, 1, __ATOMIC_RELAXED);
			sp_kfree(q);
			continue;
		}
		pthread_mutex_unlock(&w->x->lock);
		if (mine[i]) {
			sp_kfree(mine[i]);
			mine[i] = NULL;
		}
	}
	for (unsigned i = 0; i < 256; i++)
		sp_kfree(mine[i]);
	return NULL;
}

static void test_slab__kmalloc_two_threads(void **st)
{
	(void)st;
	static struct xchg x;
	struct sp_slab_stats before[13], after;
	for (unsigned k = 0; k < 13; k++)
		sp_slab_cache_stats(sp_kmalloc_cache(k), &before[k]);
	pthread_mutex_init(&x.lock, NULL);
	struct worker w[2] = { { &x, 11 }, { &x, 12345 } };
	pthread_t t[2];
	for (int k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&t[k], NULL, kmalloc_worker, &w[k]), 0);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	for (size_t i = 0; i < x.n; i++)
		sp_kfree(x.slot[i]);
	assert_int_equal(x.errors, 0);
	for (unsigned k = 0; k < 13; k++) {
		sp_slab_cache_stats(sp_kmalloc_cache(k), &after);
		assert_int_equal(after.nr_active, before[k].nr_active);
		assert_true(slab_cache_is_valid(sp_kmalloc_cache(k)));
	}
	pthread_mutex_destroy(&x.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slab__random_flags_model),
		cmocka_unit_test(test_slab__kmalloc_two_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
