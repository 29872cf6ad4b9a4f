/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_slab_threads.c - slab caches across threads: objects allocated in one thread and freed in
 * another come back to their slabs and are reused; a thread's cached objects return to the slabs
 * when it exits; a producer/consumer stress keeps every invariant (slab_cache_is_valid).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/slab.h"
#include "slab/slab_types.h"

#define NOBJ 5000

struct batch {
	struct sp_slab_cache *c;
	void *p[NOBJ];
	size_t n;
};

static size_t slab_inuse_total(struct sp_slab_cache *c)
{
	size_t n = 0;
	struct sp_list *pos;
	pthread_mutex_lock(&c->lock);
	sp_list_for_each(pos, &c->partial) n += sp_list_entry(pos, struct slab, node)->inuse;
	sp_list_for_each(pos, &c->full) n += sp_list_entry(pos, struct slab, node)->inuse;
	pthread_mutex_unlock(&c->lock);
	return n;
}

static void *alloc_all(void *arg)
{
	struct batch *b = arg;
	for (size_t i = 0; i < b->n; i++) {
		b->p[i] = sp_slab_cache_alloc(b->c);
		if (b->p[i])
			memset(b->p[i], (int)i, 64);
	}
	return NULL;
}

static void *free_all(void *arg)
{
	struct batch *b = arg;
	for (size_t i = 0; i < b->n; i++)
		sp_slab_cache_free(b->c, b->p[i]);
	return NULL;
}

static void *alloc_free_exit(void *arg)
{
	alloc_all(arg);
	free_all(arg);	/* the last objects stay in this thread's array until it exits */
	return NULL;
}

static void run(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

static void test_slab__cross_thread_free_and_reuse(void **st)
{
	(void)st;
	static struct batch b;
	assert_int_equal(sp_slab_cache_create("xthread", 64, 0, 0, NULL, &b.c), 0);
	b.n = NOBJ;
	run(alloc_all, &b);		/* thread A allocates */
	for (size_t i = 0; i < b.n; i++)
		assert_non_null(b.p[i]);
	struct sp_slab_stats s;
	sp_slab_cache_stats(b.c, &s);
	assert_int_equal(s.nr_active, NOBJ);
	size_t slabs = s.nr_slabs;
	run(free_all, &b);		/* thread B frees, then exits (flush) */
	sp_slab_cache_stats(b.c, &s);
	assert_int_equal(s.nr_active, 0);
	assert_true(slab_cache_is_valid(b.c));
	if (!SP_CONFIG_PASSTHROUGH) {
		assert_int_equal(slab_inuse_total(b.c), 0);
		/* every object went back to its slab: the main thread reuses them, no new slab */
		static void *q[NOBJ];
		for (size_t i = 0; i < NOBJ; i++)
			assert_non_null(q[i] = sp_slab_cache_alloc(b.c));
		sp_slab_cache_stats(b.c, &s);
		assert_int_equal(s.nr_slabs, slabs);
		for (size_t i = 0; i < NOBJ; i++)
			sp_slab_cache_free(b.c, q[i]);
	}
	assert_int_equal(sp_slab_cache_destroy(b.c), 0);
}

static void test_slab__thread_exit_flush(void **st)
{
	(void)st;
	if (SP_CONFIG_PASSTHROUGH)
		skip();
	static struct batch b;
	assert_int_equal(sp_slab_cache_create("exit", 200, 0, SP_SLAB_HWCACHE_ALIGN, NULL, &b.c),
			 0);
	b.n = 100;
	run(alloc_free_exit, &b);
	/* without the exit flush up to tc_limit objects would still count as out of their slabs */
	assert_int_equal(slab_inuse_total(b.c), 0);
	struct sp_slab_stats s;
	sp_slab_cache_stats(b.c, &s);
	assert_int_equal(s.allocs, 100);
	assert_int_equal(s.frees, 100);
	assert_true(slab_cache_is_valid(b.c));
	/* explicit flush of the calling thread too.  One refill sits on our list: a batch, or
	 * less when the slabs the cache kept hold fewer free objects (a refill that has objects
	 * maps no new slab). */
	size_t kept = s.nr_slabs ? s.nr_slabs * s.objs_per_slab : s.objs_per_slab;
	void *p = sp_slab_cache_alloc(b.c);
	sp_slab_cache_free(b.c, p);
	assert_int_equal(slab_inuse_total(b.c), SP_MIN(kept, (size_t)b.c->batch));
	sp_slab_cache_flush_thread(b.c);
	assert_int_equal(slab_inuse_total(b.c), 0);
	assert_int_equal(sp_slab_cache_destroy(b.c), 0);
}

/* Producer/consumer through a small ring: every free is remote. */
#define RING 256
struct ring {
	struct sp_slab_cache *c;
	void *slot[RING];
	unsigned head, tail;	/* atomics */
	unsigned long total;
	int errors;		/* set by the threads (cmocka asserts only on the main thread) */
	size_t peak_objects;	/* largest nr_objects seen by the consumer */
};

static void *producer(void *arg)
{
	struct ring *r = arg;
	for (unsigned long i = 0; i < r->total; i++) {
		uint64_t *p = (i & 1) ? sp_kmalloc(100) : sp_slab_cache_alloc(r->c);
		if (!p) {
			__atomic_store_n(&r->errors, 1, __ATOMIC_RELAXED);
			abort();
		}
		p[0] = i;
		while (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) -
			       __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >=
		       RING)
			sched_yield();
		r->slot[r->head % RING] = p;
		__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct ring *r = arg;
	for (unsigned long i = 0; i < r->total; i++) {
		while (__atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) ==
		       __atomic_load_n(&r->head, __ATOMIC_ACQUIRE))
			sched_yield();
		uint64_t *p = r->slot[r->tail % RING];
		if (p[0] != i)
			__atomic_store_n(&r->errors, 1, __ATOMIC_RELAXED);
		if (i & 1)
			sp_kfree(p);
		else
			sp_slab_cache_free(r->c, p);
		if (i % 4096 == 0) {
			struct sp_slab_stats s;
			sp_slab_cache_stats(r->c, &s);
			if (s.nr_objects > r->peak_objects)
				r->peak_objects = s.nr_objects;
		}
		__atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_slab__producer_consumer(void **st)
{
	(void)st;
	static struct ring r;
	memset(&r, 0, sizeof(r));
	sp_slab_set_init_on_free(1);
	assert_int_equal(sp_slab_cache_create("msg", 232, 0, SP_SLAB_HWCACHE_ALIGN, NULL, &r.c), 0);
	r.total = 200000;
	pthread_t a, b;
	assert_int_equal(pthread_create(&a, NULL, producer, &r), 0);
	assert_int_equal(pthread_create(&b, NULL, consumer, &r), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	sp_slab_set_init_on_free(0);
	assert_int_equal(r.errors, 0);
	struct sp_slab_stats s;
	sp_slab_cache_stats(r.c, &s);
	assert_int_equal(s.nr_active, 0);
	assert_int_equal(s.allocs, r.total / 2);
	assert_int_equal(s.frees, r.total / 2);
	assert_true(slab_cache_is_valid(r.c));
	if (!SP_CONFIG_PASSTHROUGH) {
		assert_int_equal(slab_inuse_total(r.c), 0);
		/* at the end every slab is empty: only SLAB_KEEP_EMPTY stay */
		assert_true(s.nr_slabs <= SLAB_KEEP_EMPTY);
		/* during the run: bounded by the thread arrays and the ring, not by the total */
		print_message("peak: %zu objects\n", r.peak_objects);
		assert_true(r.peak_objects > 0 && r.peak_objects < 4000);
	}
	assert_int_equal(sp_slab_cache_destroy(r.c), 0);
}

/* A thread keeps objects of a cache that is destroyed; its id is reused by a new cache. */
static pthread_barrier_t bar;
static struct sp_slab_cache *stale_a, *stale_b;
static void *stale_owner;

static void *stale_thread(void *arg)
{
	(void)arg;
	void *p = sp_slab_cache_alloc(stale_a);
	sp_slab_cache_free(stale_a, p);		/* stays in this thread's array for cache a */
	pthread_barrier_wait(&bar);		/* main destroys a, creates b */
	pthread_barrier_wait(&bar);
	void *q = sp_slab_cache_alloc(stale_b);
	stale_owner = q ? (void *)slab_cache_of(q) : NULL;
	sp_slab_cache_free(stale_b, q);
	return NULL;
}

static void test_slab__stale_thread_list_after_destroy(void **st)
{
	(void)st;
	if (SP_CONFIG_PASSTHROUGH)
		skip();
	pthread_t t;
	assert_int_equal(sp_slab_cache_create("stale-a", 64, 0, 0, NULL, &stale_a), 0);
	pthread_barrier_init(&bar, NULL, 2);
	assert_int_equal(pthread_create(&t, NULL, stale_thread, NULL), 0);
	pthread_barrier_wait(&bar);
	uint32_t id = stale_a->id;
	assert_int_equal(sp_slab_cache_destroy(stale_a), 0);
	assert_int_equal(sp_slab_cache_create("stale-b", 64, 0, 0, NULL, &stale_b), 0);
	assert_int_equal(stale_b->id, id);	/* same TLS slot, new generation */
	pthread_barrier_wait(&bar);
	pthread_join(t, NULL);
	pthread_barrier_destroy(&bar);
	assert_ptr_equal(stale_owner, stale_b);
	assert_true(slab_cache_is_valid(stale_b));
	assert_int_equal(sp_slab_cache_destroy(stale_b), 0);
}

/* fork() while another thread works the cache: the child's locks are usable. */
static volatile int fork_stop;

static void *fork_busy(void *arg)
{
	struct sp_slab_cache *c = arg;
	while (!__atomic_load_n(&fork_stop, __ATOMIC_RELAXED)) {
		void *p[300];
		for (int i = 0; i < 300; i++)
			p[i] = sp_slab_cache_alloc(c);
		for (int i = 0; i < 300; i++)
			sp_slab_cache_free(c, p[i]);
	}
	return NULL;
}

static void test_slab__fork_with_busy_thread(void **st)
{
	(void)st;
	struct sp_slab_cache *c;
	assert_int_equal(sp_slab_cache_create("fork", 128, 0, 0, NULL, &c), 0);
	pthread_t t;
	fork_stop = 0;
	assert_int_equal(pthread_create(&t, NULL, fork_busy, c), 0);
	for (int k = 0; k < 5; k++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			void *p[1000];
			for (int i = 0; i < 1000; i++)
				if (!(p[i] = sp_slab_cache_alloc(c)))
					_exit(2);
			for (int i = 0; i < 1000; i++)
				sp_slab_cache_free(c, p[i]);
			sp_slab_cache_flush_thread(c);
			void *q = sp_kmalloc(300);
			sp_kfree(q);
			_exit(slab_cache_is_valid(c) ? 0 : 1);
		}
		int status = -1;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	__atomic_store_n(&fork_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slab__cross_thread_free_and_reuse),
		cmocka_unit_test(test_slab__thread_exit_flush),
		cmocka_unit_test(test_slab__producer_consumer),
		cmocka_unit_test(test_slab__stale_thread_list_after_destroy),
		cmocka_unit_test(test_slab__fork_with_busy_thread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
