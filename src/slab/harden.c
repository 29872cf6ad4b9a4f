/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harden.c - the slow hooks of alloc and free: init_on_alloc / init_on_free with the kernel's
 * exemptions (mm/slab.h slab_want_init_on_alloc/free), SLAB_POISON, SLAB_RED_ZONE, the
 * write-after-free check (VERIFY_ON_ALLOC, hardened_malloc's WRITE_AFTER_FREE_CHECK), and the
 * classification of a rejected free.  Everything here ends in sp_fatal() with a fixed message
 * when it finds corruption; nothing allocates.
 *
 * ASan: red zones and free objects are poisoned; the checks read them through slab_nosan
 * helpers, and every memset over object bytes unpoisons first, so a crash program dies with our
 * message, not an ASan report.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "slab/slab_fast.h"

/* Index of the first byte in [p, p + n) that differs from b, or n. */
static slab_nosan size_t bytes_mismatch(uintptr_t p, int b, size_t n)
{
	const volatile uint8_t *q = (const volatile uint8_t *)p;
	size_t i = 0;
	slab_raw_open((void *)p, n);
	while (i < n && q[i] == (uint8_t)b)
		i++;
	slab_raw_close((void *)p, n);
	return i;
}

static slab_nosan void bytes_fill(uintptr_t p, int b, size_t n)
{
	volatile uint8_t *q = (volatile uint8_t *)p;
	slab_raw_open((void *)p, n);
	for (size_t i = 0; i < n; i++)
		q[i] = (uint8_t)b;
	slab_raw_close((void *)p, n);
}

/* slab_want_init_on_alloc() plus secpath's per-cache opt-out. */
static int want_init_on_alloc(const struct sp_slab_cache *c, int zero)
{
	if ((slab_policy_get() & SLAB_INIT_ALLOC) && !(c->flags & SP_SLAB_NO_INIT_ON_ALLOC)) {
		if (c->ctor)
			return 0;
		if (c->flags & (SP_SLAB_TYPESAFE_BY_RCU | SP_SLAB_POISON))
			return zero;
		return 1;
	}
	return zero;
}

/* Fill a never-used object of a new slab: red zone, poison, ctor. */
void slab_object_init_fresh(struct sp_slab_cache *c, uintptr_t obj)
{
	size_t size = c->object_size;
	if (c->flags & SP_SLAB_RED_ZONE)
		bytes_fill(obj + size, SLAB_RED_INACTIVE, c->rz_end - size);
	if (c->flags & SP_SLAB_POISON) {
		bytes_fill(obj, SLAB_POISON_FREE, size - 1);
		bytes_fill(obj + size - 1, SLAB_POISON_END, 1);
	}
	if (c->ctor) {
		sp_track_unpoison((void *)obj, size);
		c->ctor((void *)obj);
		sp_track_poison((void *)obj, size);
	}
}

static void *slab_alloc_hooks(struct sp_slab_cache *c, uintptr_t obj, unsigned st, int zero)
{
	size_t size = c->object_size;
	if (likely(!c->hooks_alloc)) {
		/* Only the init policy (or a zeroing request): one memset. */
		slab_track_alloc(c, obj, st);
		if (want_init_on_alloc(c, zero))
			memset((void *)obj, 0, size);
		return (void *)obj;
	}
	if (c->flags & SP_SLAB_RED_ZONE) {
		if (bytes_mismatch(obj + size, SLAB_RED_INACTIVE, c->rz_end - size) !=
		    c->rz_end - size)
			sp_fatal(SLAB_MSG_RED_ZONE);
		bytes_fill(obj + size, SLAB_RED_ACTIVE, c->rz_end - size);
	}
	if (c->flags & SP_SLAB_POISON) {
		if (bytes_mismatch(obj, SLAB_POISON_FREE, size - 1) != size - 1 ||
		    bytes_mismatch(obj + size - 1, SLAB_POISON_END, 1) != 1)
			sp_fatal(SLAB_MSG_POISON);
	}
	if ((c->flags & SP_SLAB_VERIFY_ON_ALLOC) &&
	    (st == SLAB_ST_FREE_ZERO ||
	     (st == SLAB_ST_FRESH && !c->ctor && !(c->flags & SP_SLAB_POISON)))) {
		/* Zero in full: FREE_ZERO objects carry no free pointer (see slab_alloc_hooked). */
		if (bytes_mismatch(obj, 0, size) != size)
			sp_fatal(SLAB_MSG_WAF);
	}
	slab_track_alloc(c, obj, st);
	if (c->flags & SP_SLAB_POISON)
		memset((void *)obj, SLAB_POISON_INUSE, size);
	if (want_init_on_alloc(c, zero))
		memset((void *)obj, 0, size);
	return (void *)obj;
}

/* init_on_free's clearing (slab_free_hook()): the object and what follows its red zone, not the
 * red zone; the rest of the stride stays poisoned for ASan / valgrind. */
static void free_clear(const struct sp_slab_cache *c, uintptr_t obj)
{
	sp_track_unpoison((void *)obj, c->stride);
	slab_zero(obj, c->object_size);
	if (c->stride > c->rz_end)
		memset((void *)(obj + c->rz_end), 0, c->stride - c->rz_end);
	sp_track_poison((void *)(obj + c->object_size), c->stride - c->object_size);
}

static unsigned slab_free_hooks(struct sp_slab_cache *c, uintptr_t obj)
{
	size_t size = c->object_size;
	unsigned st = SLAB_ST_FREE;
	if (c->flags & SP_SLAB_RED_ZONE) {
		if (bytes_mismatch(obj + size, SLAB_RED_ACTIVE, c->rz_end - size) !=
		    c->rz_end - size)
			sp_fatal(SLAB_MSG_RED_ZONE);
		bytes_fill(obj + size, SLAB_RED_INACTIVE, c->rz_end - size);
	}
	if (c->hot_free & SLAB_INIT_FREE) {
		free_clear(c, obj);
		st = SLAB_ST_FREE_ZERO;
	}
	if (c->flags & SP_SLAB_POISON) {
		sp_track_unpoison((void *)obj, size);
		memset((void *)obj, SLAB_POISON_FREE, size - 1);
		((uint8_t *)obj)[size - 1] = SLAB_POISON_END;
	}
	return st;
}

/* The rest of slab_free_zero for a stride slab_zero's stores do not cover: the memset calls
 * are out of line, so slab_free_zero's common path calls nothing and saves no register. */
static sp_noinline void free_zero_memset(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st)
{
	free_clear(c, obj);
	__atomic_store_n(st, (uint8_t)SLAB_ST_FREE_ZERO, __ATOMIC_RELAXED);
	slab_free_push(c, obj, st);
}

/*
 * init_on_free alone (no hooks), the caller having checked all but the state: clear it, mark it
 * FREE_ZERO, push.  Without hooks there is no red zone (rz_end is the object rounded up to a
 * word), so free_clear's two ranges and the padding between them are the whole stride: one
 * clearing of [obj, obj + stride).  The fast path tail-calls it from its cold branch, so an
 * init_on_free free pays neither slab_free_other's second validation nor a memset call: small
 * objects are most of the frees of real programs.
 */
void slab_free_zero(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st)
{
	if (unlikely(slab_state_ne(st, SLAB_ST_ALLOC))) {
		slab_bad_free(c, (void *)obj);
		return;
	}
	uint32_t n = c->stride;
	if (n < 16 || n > 128) {	/* slab_zero's stores cover 16 to 128 bytes */
		free_zero_memset(c, obj, st);
		return;
	}
	sp_track_unpoison((void *)obj, n);
	slab_zero(obj, n);
	sp_track_poison((void *)(obj + c->object_size), n - c->object_size);
	__atomic_store_n(st, (uint8_t)SLAB_ST_FREE_ZERO, __ATOMIC_RELAXED);
	slab_free_push(c, obj, st);
}

/*
 * Alloc with zeroing or hooks.  A FRESH or FREE_ZERO object is zero in full (the thread arrays
 * write no free pointer, and a refill wipes the slab free pointer word:
 * maybe_wipe_obj_freeptr()), so init_on_free alone needs nothing here.
 */
void *slab_alloc_hooked(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st, int zero)
{
	unsigned old = __atomic_load_n(st, __ATOMIC_RELAXED);
	__atomic_store_n(st, (uint8_t)SLAB_ST_ALLOC, __ATOMIC_RELAXED);
	if (c->hooks_alloc | (c->ctor != NULL))
		return slab_alloc_hooks(c, obj, old, zero);
	return slab_alloc_clear(c, obj, old, zero | (c->hot_alloc & SLAB_INIT_ALLOC));
}

/*
 * The free the fast path routed here (objs_fast 0: the cache has free hooks; or the owner or
 * boundary check failed, a pointer outside the arena included): the full checks, then the hooks
 * (init_on_free alone: slab_free_zero), then the push.
 */
void slab_free_other(struct sp_slab_cache *c, void *p)
{
	uintptr_t obj = (uintptr_t)p;
	if (!slab_in_arena(obj)) {	/* the fast path maps every pointer into the arena */
		slab_bad_free(c, p);	/* NULL returns from there */
		return;
	}
	struct slab *s = slab_of(c, obj);
	uint64_t i = slab_obj_index(c, obj - s->objs);	/* exact or huge (see the fast path) */
	if (s->cache != c || i >= c->objs_per_slab) {
		slab_bad_free(c, p);
		return;
	}
	uint8_t *st = &s->state[i];
	if (__atomic_load_n(st, __ATOMIC_RELAXED) != SLAB_ST_ALLOC) {
		slab_bad_free(c, p);
		return;
	}
	if (!c->hot_free) {	/* the policy changed under us */
		__atomic_store_n(st, (uint8_t)SLAB_ST_FREE, __ATOMIC_RELAXED);
		slab_free_push(c, obj, st);
	} else if (!c->hooks_free) {
		slab_free_zero(c, obj, st);	/* checks the state again */
	} else {
		__atomic_store_n(st, (uint8_t)slab_free_hooks(c, obj), __ATOMIC_RELAXED);
		slab_free_push(c, obj, st);
	}
}

/*
 * A free the fast path refused: NULL (returns), or corruption (dies).  Reads only slab headers and
 * state bytes, never the object.
 */
void slab_bad_free(struct sp_slab_cache *c, const void *p)
{
	uintptr_t obj = (uintptr_t)p;
	if (!p)
		return;
	if (!slab_in_arena(obj))
		sp_fatal(SLAB_MSG_FOREIGN);
	struct sp_slab_cache *owner = slab_cache_of(p);
	if (!owner)
		sp_fatal(SLAB_MSG_FOREIGN);
	if (owner != c)
		sp_fatal(SLAB_MSG_WRONG_CACHE);
	struct slab *s = slab_of(c, obj);
	uint64_t off = obj - s->objs;
	if (off >= c->span || off % c->stride)
		sp_fatal(SLAB_MSG_FOREIGN);
	unsigned st = slab_state_get(s, (uint32_t)(off / c->stride));
	if (st == SLAB_ST_FREE || st == SLAB_ST_FREE_ZERO)
		sp_fatal(SLAB_MSG_DOUBLE_FREE);
	sp_fatal(SLAB_MSG_FOREIGN);
}

uintptr_t slab_random(void)
{
	uintptr_t r = 0;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		r = (uintptr_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uintptr_t)&r ^
		    (uintptr_t)getpid();
	}
	return r | 1;	/* never 0: a zero key would store raw-looking words */
}
