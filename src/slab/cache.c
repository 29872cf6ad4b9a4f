/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cache.c - cache creation (alignment, object layout, slab size, colour), the slow paths behind
 * the per-thread arrays (refill, flush, thread exit), destroy, statistics, the init policy and
 * the consistency walker.  Layout, locking and the empty-slab rule (kept with their pages,
 * retired by the slow-path clock: slab_empty, slab_age) are described in slab_types.h.
 *
 * Slab size rule (documented in secpath-slab(1)): the L1D set of object j's first line is
 * ((first + j * stride) >> 6) & 63 because slabs are aligned to their size (>= 4 KiB).  A slab
 * of n objects therefore reaches at most n sets (stride a multiple of 64), and a cache reaches
 * no more sets than one slab does unless it is coloured.  For each cache we compute T, the
 * number of sets the stride can reach at all (64 for 448 B; 8 for a 512-aligned 512 B stride),
 * and take the smallest slab (4 KiB .. 1 MiB) holding >= 8 objects whose objects reach T sets
 * (above 256 KiB the spread is no longer required).  448 B objects get 32 KiB slabs (72
 * objects, 64 sets) where 4 KiB slabs would give 8.
 *
 * Colour (SP_SLAB_COLOUR, the old SLAB's rule): colour_off = max(64, align), colours =
 * left_over / colour_off, each new slab takes the next colour, cycling.  One object is given up
 * when the left-over is smaller than a stride, so even a 512 B stride gets stride/64 colours.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "slab/slab_fast.h"

_Thread_local struct slab_tc slab_tls[SLAB_MAX_CACHES] __attribute__((tls_model("initial-exec")));
static _Thread_local int slab_tls_registered __attribute__((tls_model("initial-exec")));
/* Set once this thread's exit flush ran: later frees (glibc's own thread teardown under the
 * malloc shim) go straight to their slabs instead of mapping a new block. */
static _Thread_local int slab_tls_dead __attribute__((tls_model("initial-exec")));
/*
 * This thread's arrays, in one block mmap'd NORESERVE at first use: 2 x SLAB_MAX_CACHES units of
 * SLAB_TC_BYTES (a page), each unit an objs half and a sts half of SLAB_TC_STS bytes.  An array
 * of tc_limit entries takes 8 * tc_limit bytes at the same offset in both halves of a unit, so
 * arrays are packed: the first SLAB_MAX_CACHES units are handed out with a bump pointer (an
 * array never straddles a unit), and a thread with four small-entry classes touches one page,
 * not four.  A cache id keeps its place for the thread's life while its array still fits (ids
 * are recycled); when the packed units run out, id gets the whole unit SLAB_MAX_CACHES + id.
 */
static _Thread_local char *slab_tc_block __attribute__((tls_model("initial-exec")));
static _Thread_local uint32_t slab_tc_place[SLAB_MAX_CACHES]
	__attribute__((tls_model("initial-exec")));
static _Thread_local uint16_t slab_tc_cap[SLAB_MAX_CACHES]
	__attribute__((tls_model("initial-exec")));
static _Thread_local uint32_t slab_tc_bump __attribute__((tls_model("initial-exec")));
#define SLAB_TC_BLOCK (2 * (size_t)SLAB_MAX_CACHES * SLAB_TC_BYTES)
unsigned slab_policy;

static struct sp_slab_cache slab_pool[SLAB_MAX_CACHES];
static uint8_t slab_pool_used[SLAB_MAX_CACHES];
static uint64_t slab_gen_next;
static pthread_mutex_t slab_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t slab_once = PTHREAD_ONCE_INIT;
static pthread_key_t slab_key;
static int slab_init_err;

#define SLAB_HDR ((uint32_t)offsetof(struct slab, state))

static void slab_thread_exit(void *arg);
_Static_assert(offsetof(struct slab_tc, gc) == 0 && offsetof(struct slab_tc, ent_b) == 8 &&
		       offsetof(struct slab_tc, frees) == 16,
	       "slab_tcf_* asm offsets");
_Static_assert(2 * SLAB_TC_MAX == 1u << SLAB_TC_GEN_SHIFT,
	       "gc: bias + count <= SLAB_TC_MAX fits below the gen, full is bit SLAB_TC_MAX");
_Static_assert(offsetof(struct sp_slab_cache, objs_fast) + 8 <= SLAB_LINE,
	       "fast path fields of a cache share its first line");

/* Offset of a static TLS object from the thread pointer (the same in every thread). */
static uintptr_t slab_tls_offset(const void *p)
{
#if SLAB_TC_SEG
	uintptr_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (uintptr_t)p - tp;
#else
	return (uintptr_t)p;
#endif
}

/*
 * fork(): take every slab lock in the lock order (registry, each cache, arena) so the child does
 * not inherit one held by a thread that no longer exists; both sides release them.  The child
 * keeps the forking thread's arrays; other threads' cached objects are simply lost to it.
 */
static void slab_fork_prepare(void)
{
	pthread_mutex_lock(&slab_registry_lock);
	for (uint32_t id = 1; id < SLAB_MAX_CACHES; id++)
		if (slab_pool_used[id] && slab_pool[id].gen)
			pthread_mutex_lock(&slab_pool[id].lock);
	slab_arena_fork_lock();
}

static void slab_fork_release(void)
{
	slab_arena_fork_unlock();
	for (uint32_t id = SLAB_MAX_CACHES - 1; id >= 1; id--)
		if (slab_pool_used[id] && slab_pool[id].gen)
			pthread_mutex_unlock(&slab_pool[id].lock);
	pthread_mutex_unlock(&slab_registry_lock);
}

static int env_on(const char *name)
{
	const char *v = getenv(name);
	return v && v[0] == '1' && v[1] == 0;
}

static void slab_do_init(void)
{
	unsigned pol = 0;
	if (env_on("SECPATH_INIT_ON_ALLOC"))
		pol |= SLAB_INIT_ALLOC;
	if (env_on("SECPATH_INIT_ON_FREE"))
		pol |= SLAB_INIT_FREE;
	__atomic_store_n(&slab_policy, pol, __ATOMIC_RELAXED);
	if (SP_CONFIG_PASSTHROUGH)
		return;
	slab_init_err = slab_arena_init();
	if (!slab_init_err && pthread_key_create(&slab_key, slab_thread_exit))
		slab_init_err = -EAGAIN;
	if (!slab_init_err)
		pthread_atfork(slab_fork_prepare, slab_fork_release, slab_fork_release);
}

static void slab_global_init(void) { pthread_once(&slab_once, slab_do_init); }

/* ---- init policy -------------------------------------------------------------------------- */

static void cache_refresh(struct sp_slab_cache *c, unsigned pol)
{
	unsigned a = c->hooks_alloc | (pol & c->init_mask & SLAB_INIT_ALLOC);
	unsigned f = c->hooks_free | (pol & c->init_mask & SLAB_INIT_FREE);
	__atomic_store_n(&c->hot_alloc, a, __ATOMIC_RELAXED);
	__atomic_store_n(&c->hot_free, f, __ATOMIC_RELAXED);
	__atomic_store_n(&c->gc_alloc_fast, c->gc_alloc + (a ? 1ull << 63 : 0), __ATOMIC_RELAXED);
	__atomic_store_n(&c->objs_fast, f ? 0 : (uint64_t)c->objs_per_slab, __ATOMIC_RELAXED);
}

/* Recompute every live cache's hot_alloc/hot_free after a policy change. */
static void slab_policy_refresh(void)
{
	pthread_mutex_lock(&slab_registry_lock);
	unsigned pol = slab_policy_get();
	for (uint32_t id = 1; id < SLAB_MAX_CACHES; id++)
		if (slab_pool_used[id] && slab_pool[id].gen)
			cache_refresh(&slab_pool[id], pol);
	pthread_mutex_unlock(&slab_registry_lock);
}

static void policy_set(unsigned bit, int on)
{
	slab_global_init();
	if (on)
		__atomic_fetch_or(&slab_policy, bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&slab_policy, ~bit, __ATOMIC_RELAXED);
	slab_policy_refresh();
}

SP_API void sp_slab_set_init_on_alloc(int on) { policy_set(SLAB_INIT_ALLOC, on); }
SP_API void sp_slab_set_init_on_free(int on) { policy_set(SLAB_INIT_FREE, on); }

SP_API int sp_slab_init_on_alloc(void)
{
	slab_global_init();
	return !!(slab_policy_get() & SLAB_INIT_ALLOC);
}

SP_API int sp_slab_init_on_free(void)
{
	slab_global_init();
	return !!(slab_policy_get() & SLAB_INIT_FREE);
}

/* ---- geometry ----------------------------------------------------------------------------- */

/*
 * Distinct L1D sets hit by the first lines of n objects over `colours` colours.  The set of
 * object j depends on j * stride mod SLAB_L1_SETS * SLAB_LINE (4 KiB), which repeats after
 * 4 KiB / gcd(stride, 4 KiB) objects: only that many are looked at, at most 512 (stride is a
 * multiple of 8): creation stays cheap for a process start that makes dozens of caches.
 */
static unsigned sets_reached(uint32_t first, uint32_t stride, uint32_t n, uint32_t colours,
			     uint32_t colour_off)
{
	const uint32_t span = SLAB_L1_SETS * SLAB_LINE;
	uint32_t low = stride & -stride;
	uint32_t period = !stride || low >= span ? 1 : span / low;
	uint64_t seen = 0;
	if (colours > SLAB_L1_SETS)
		colours = SLAB_L1_SETS;
	if (n > period)
		n = period;
	for (uint32_t col = 0; col < colours && ~seen; col++)
		for (uint32_t j = 0; j < n && ~seen; j++) {
			uint64_t a = first + (uint64_t)col * colour_off + (uint64_t)j * stride;
			seen |= 1ull << ((a / SLAB_LINE) % SLAB_L1_SETS);
		}
	return (unsigned)__builtin_popcountll(seen);
}

/* Objects of `stride` that fit a 2^shift slab with header, state bytes and alignment. */
static uint32_t slab_fit(uint32_t shift, uint32_t stride, uint32_t align, uint32_t *first)
{
	uint64_t sz = 1ull << shift;
	uint64_t n = (sz - SLAB_HDR) / (stride + 1ull);
	while (n && SP_ALIGN_UP(SLAB_HDR + n, (uint64_t)align) + n * stride > sz)
		n--;
	*first = (uint32_t)SP_ALIGN_UP(SLAB_HDR + n, (uint64_t)align);
	return (uint32_t)n;
}

/*
 * Thread array bound (the old SLAB's enable_cpucache, more generous), or with g->tc_bytes the
 * entries that hold that many bytes of objects, g->tc_min .. SLAB_TC_MAX (struct slab_geom).
 */
static uint32_t tc_limit_for(uint32_t stride, const struct slab_geom *g)
{
	if (g && g->tc_bytes)
		return SP_MAX(g->tc_min, SP_MIN((uint32_t)SLAB_TC_MAX, g->tc_bytes / stride));
	return stride <= 256	? 256
	       : stride <= 1024 ? 128
	       : stride <= 4096 ? 64
	       : stride <= 16384 ? 16
				: 4;
}

static int cache_layout(struct sp_slab_cache *c, size_t size, size_t align, unsigned flags,
			const struct slab_geom *g)
{
	size_t a = align ? align : sizeof(void *);
	if (flags & SP_SLAB_KMALLOC)
		a = SP_MAX(a, size & -size);	/* natural: largest power of two dividing size */
	if (flags & SP_SLAB_HWCACHE_ALIGN) {	/* calculate_alignment() */
		size_t ralign = SP_CACHELINE;
		while (size <= ralign / 2)
			ralign /= 2;
		a = SP_MAX(a, ralign);
	}
	a = SP_MAX(a, sizeof(void *));

	uint32_t inuse = (uint32_t)SP_ALIGN_UP(size, sizeof(void *));
	uint32_t rz_end = inuse;
	if (flags & SP_SLAB_RED_ZONE)
		rz_end = inuse + sizeof(void *);
	int outside = c->ctor || (flags & (SP_SLAB_TYPESAFE_BY_RCU | SP_SLAB_POISON)) ||
		      ((flags & SP_SLAB_RED_ZONE) && size < sizeof(void *));
	uint32_t meta_end = rz_end;
	if (outside) {
		c->offset = rz_end;
		meta_end = rz_end + sizeof(void *);
	} else {
		c->offset = (uint32_t)SP_ALIGN_DOWN(size / 2, sizeof(void *));
	}
	uint32_t stride = (uint32_t)SP_ALIGN_UP((size_t)meta_end, a);

	c->object_size = (uint32_t)size;
	c->align = (uint32_t)a;
	c->rz_end = rz_end;
	c->meta_end = meta_end;
	c->stride = stride;
	c->colour_off = (uint32_t)SP_MAX((size_t)SP_CACHELINE, a);

	uint32_t first = 0;
	unsigned target = sets_reached(0, stride, 4096, 1, 0);
	uint32_t best_shift = 0, best_n = 0, best_first = 0;
	for (uint32_t shift = SLAB_MIN_SHIFT; shift <= SLAB_MAX_SHIFT; shift++) {
		uint32_t n = slab_fit(shift, stride, (uint32_t)a, &first);
		if (!n)
			continue;
		uint32_t left = (1u << shift) - first - n * stride;
		if ((flags & SP_SLAB_COLOUR) && left < stride && n > 1)
			n--;
		if (!best_n || n >= SLAB_MIN_OBJS || best_n < SLAB_MIN_OBJS) {
			best_shift = shift;
			best_n = n;
			best_first = first;
		}
		if (n >= SLAB_MIN_OBJS &&
		    (shift >= 18 || sets_reached(first, stride, n, 1, 0) >= target))
			break;
	}
	if (!best_n)
		return -EINVAL;
	c->slab_shift = best_shift;
	c->slab_mask = ~(((uintptr_t)1 << best_shift) - 1);
	c->slab_amask = c->slab_mask & (slab_arena_size - 1);
	c->arena_base = slab_arena_base;
	c->objs_per_slab = best_n;
	c->first = best_first;
	c->span = best_n * stride;
	c->left_over = (1u << best_shift) - best_first - c->span;
	c->colours = 1;
	if ((flags & SP_SLAB_COLOUR) && c->left_over / c->colour_off > 1)
		c->colours = c->left_over / c->colour_off;
	c->div_shift = (uint32_t)__builtin_ctz(stride);
	uint64_t d = stride >> c->div_shift, inv = d;	/* d * d == 1 mod 8: 3 bits to start */
	for (int it = 0; it < 5; it++)			/* Newton: 6, 12, 24, 48, 96 bits */
		inv *= 2 - d * inv;
	c->div_inv = inv;

	/* Thread array bound and refill batch: a batch of at least one object. */
	_Static_assert(SLAB_TC_MAX >= 256, "thread array bound");
	c->tc_limit = tc_limit_for(stride, g);
	SP_ASSERT_INTERNAL(c->tc_limit >= 2 && c->tc_limit <= SLAB_TC_MAX);
	c->tc_bias = SLAB_TC_MAX - c->tc_limit;
	c->batch = c->tc_limit / 2;
	/* Empty slabs kept: enough for two thread arrays of objects, SLAB_KEEP_EMPTY ..
	 * SLAB_KEEP_EMPTY_MAX (slab_types.h). */
	uint32_t keep = (2 * c->tc_limit + best_n - 1) / best_n;
	c->keep_empty = SP_MIN((uint32_t)SLAB_KEEP_EMPTY_MAX, SP_MAX((uint32_t)SLAB_KEEP_EMPTY, keep));
	return 0;
}

/* ---- create / destroy --------------------------------------------------------------------- */

#define SLAB_KNOWN_FLAGS                                                                           \
	(SP_SLAB_HWCACHE_ALIGN | SP_SLAB_COLOUR | SP_SLAB_TYPESAFE_BY_RCU | SP_SLAB_POISON |       \
	 SP_SLAB_RED_ZONE | SP_SLAB_NO_INIT_ON_ALLOC | SP_SLAB_NO_INIT_ON_FREE | SP_SLAB_KMALLOC | \
	 SP_SLAB_VERIFY_ON_ALLOC)

int slab_cache_create_ex(const char *name, size_t size, size_t align, unsigned flags,
			 void (*ctor)(void *obj), const struct slab_geom *g,
			 struct sp_slab_cache **out)
{
	if (out)
		*out = NULL;
	if (!name || !out || !size || size > SLAB_MAX_OBJECT || (align && !SP_IS_POW2(align)) ||
	    align > 4096 || (flags & ~SLAB_KNOWN_FLAGS))
		return -EINVAL;
	if (g && g->tc_bytes && (g->tc_min < 2 || g->tc_min > SLAB_TC_MAX))
		return -EINVAL;
	SP_ASSERT(!g || !g->borrow || g->borrow->gen);
	slab_global_init();
	if (slab_init_err)
		return slab_init_err;

	pthread_mutex_lock(&slab_registry_lock);
	uint32_t id = 1;
	while (id < SLAB_MAX_CACHES && slab_pool_used[id])
		id++;
	if (id == SLAB_MAX_CACHES) {
		pthread_mutex_unlock(&slab_registry_lock);
		return -ENOMEM;
	}
	slab_pool_used[id] = 1;
	/* Generations only grow (the fast paths rely on it, see struct slab_tc): 2^54 creates
	 * would take centuries; refuse rather than wrap. */
	if (slab_gen_next >= (1ull << (63 - SLAB_TC_GEN_SHIFT)) - 1) {
		slab_pool_used[id] = 0;
		pthread_mutex_unlock(&slab_registry_lock);
		return -ENOMEM;
	}
	uint64_t gen = ++slab_gen_next;
	pthread_mutex_unlock(&slab_registry_lock);

	struct sp_slab_cache *c = &slab_pool[id];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->ctor = ctor;
	c->flags = flags;
	c->borrow = g ? g->borrow : NULL;
	int err = cache_layout(c, size, align, flags, g);
	if (err) {
		pthread_mutex_lock(&slab_registry_lock);
		slab_pool_used[id] = 0;
		pthread_mutex_unlock(&slab_registry_lock);
		return err;
	}
	size_t nl = strlen(name);
	if (nl >= SLAB_NAME_MAX)
		nl = SLAB_NAME_MAX - 1;
	memcpy(c->name, name, nl);
	c->random = slab_random();
	unsigned exempt = ctor || (flags & (SP_SLAB_TYPESAFE_BY_RCU | SP_SLAB_POISON));
	c->init_mask = 0;
	if (!exempt && !(flags & SP_SLAB_NO_INIT_ON_ALLOC))
		c->init_mask |= SLAB_INIT_ALLOC;
	if (!exempt && !(flags & SP_SLAB_NO_INIT_ON_FREE))
		c->init_mask |= SLAB_INIT_FREE;
	c->hooks_alloc = flags & (SP_SLAB_POISON | SP_SLAB_RED_ZONE | SP_SLAB_VERIFY_ON_ALLOC);
	c->hooks_free = flags & (SP_SLAB_POISON | SP_SLAB_RED_ZONE);
	c->tc_off = id * (uint32_t)sizeof(struct slab_tc);
	pthread_mutex_init(&c->lock, NULL);
	sp_list_init(&c->partial);
	sp_list_init(&c->full);
	c->gc_base = gen << SLAB_TC_GEN_SHIFT;
	c->gc_alloc = c->gc_base + c->tc_bias + 1;
	c->tls_off = slab_tls_offset(&slab_tls[id]);
	pthread_mutex_lock(&slab_registry_lock);
	cache_refresh(c, slab_policy_get());
	__atomic_store_n(&c->gen, gen, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&slab_registry_lock);
	SP_ASSERT_EXPENSIVE(slab_cache_is_valid(c));
	*out = c;
	return 0;
}

SP_API int sp_slab_cache_create(const char *name, size_t size, size_t align, unsigned flags,
				void (*ctor)(void *obj), struct sp_slab_cache **out)
{
	return slab_cache_create_ex(name, size, align, flags, ctor, NULL, out);
}

static void slab_release_all(struct sp_slab_cache *c, struct sp_list *head)
{
	struct sp_list *pos, *tmp;
	sp_list_for_each_safe(pos, tmp, head) {
		struct slab *s = sp_list_entry(pos, struct slab, node);
		sp_list_del(pos);
		s->cache = NULL;
		slab_arena_put(s, c->slab_shift);
	}
}

static size_t count_active(struct sp_slab_cache *c)
{
	size_t n = 0;
	struct sp_list *heads[2] = { &c->partial, &c->full }, *pos;
	for (int h = 0; h < 2; h++)
		sp_list_for_each(pos, heads[h]) {
			struct slab *s = sp_list_entry(pos, struct slab, node);
			for (uint32_t i = 0; i < s->fresh; i++)
				n += slab_state_get(s, i) == SLAB_ST_ALLOC;
		}
	return n;
}

SP_API int sp_slab_cache_destroy(struct sp_slab_cache *c)
{
	if (!c)
		return -EINVAL;
	if (SP_CONFIG_PASSTHROUGH) {
		if (__atomic_load_n(&c->pt_active, __ATOMIC_RELAXED))
			return -EBUSY;
	} else {
		sp_slab_cache_flush_thread(c);
		SP_ASSERT_EXPENSIVE(slab_cache_is_valid(c));
		pthread_mutex_lock(&c->lock);
		size_t active = count_active(c);
		pthread_mutex_unlock(&c->lock);
		if (active)
			return -EBUSY;
	}
	pthread_mutex_lock(&slab_registry_lock);
	__atomic_store_n(&c->gen, 0, __ATOMIC_RELAXED);	/* every thread array of c is now stale */
	c->gc_base = UINT64_MAX;		/* no slot reaches it: frees take the slow path */
	c->gc_alloc = 0;
	c->gc_alloc_fast = 1ull << 63;
	pthread_mutex_unlock(&slab_registry_lock);
	if (!SP_CONFIG_PASSTHROUGH) {
		slab_release_all(c, &c->partial);
		slab_release_all(c, &c->full);
	}
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_lock(&slab_registry_lock);
	slab_pool_used[c->id] = 0;
	pthread_mutex_unlock(&slab_registry_lock);
	return 0;
}

struct sp_slab_cache *slab_cache_of(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	if (!slab_in_arena(a))
		return NULL;
	unsigned shift = __atomic_load_n(&slab_page_shift[(a - slab_arena_base) >> SLAB_MIN_SHIFT],
					 __ATOMIC_RELAXED);
	if (!shift)
		return NULL;
	const struct slab *s = (const struct slab *)(a & ~(((uintptr_t)1 << shift) - 1));
	struct sp_slab_cache *c = s->cache;
	uintptr_t ci = (uintptr_t)c - (uintptr_t)slab_pool;
	if (ci >= sizeof(slab_pool) || ci % sizeof(slab_pool[0]) || !c->gen ||
	    c->slab_shift != shift)
		return NULL;
	return c;
}

/* ---- slabs and the slow paths ------------------------------------------------------------- */

static struct slab *slab_new(struct sp_slab_cache *c)
{
	struct slab *s = slab_arena_get(c->slab_shift);
	if (!s)
		return NULL;
	uint32_t colour = __atomic_fetch_add(&c->colour_next, 1, __ATOMIC_RELAXED) % c->colours;
	s->objs = (uintptr_t)s + c->first + colour * c->colour_off;
	s->freelist = slab_arena_base;
	s->colour = (uint16_t)colour;
	sp_list_init(&s->node);
	sp_track_poison((void *)s->objs, c->span);
	if (c->ctor || (c->flags & (SP_SLAB_POISON | SP_SLAB_RED_ZONE)))
		for (uint32_t i = 0; i < c->objs_per_slab; i++)
			slab_object_init_fresh(c, s->objs + (uintptr_t)i * c->stride);
	s->cache = c;
	return s;
}

static void tc_fold(struct sp_slab_cache *c, struct slab_tc *tc)
{
	c->frees += tc->frees;
	tc->frees = 0;
}

/* Make tc an empty array of c; -ENOMEM when this thread's block cannot be mapped. */
static int tc_reset(struct sp_slab_cache *c, struct slab_tc *tc)
{
	if (!slab_tc_block) {
		void *m = mmap(NULL, SLAB_TC_BLOCK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return -ENOMEM;
		slab_tc_block = m;
	}
	uint32_t id = c->id;
	if (slab_tc_cap[id] < c->tc_limit) {	/* first use by this thread, or too small */
		uint32_t need = c->tc_limit * (uint32_t)sizeof(uintptr_t);
		uint32_t b = slab_tc_bump;
		if (b % SLAB_TC_STS + need > SLAB_TC_STS)
			b = (uint32_t)SP_ALIGN_UP(b, (uint32_t)SLAB_TC_STS);
		if (b + need <= SLAB_MAX_CACHES * SLAB_TC_STS) {
			slab_tc_bump = b + need;
			slab_tc_place[id] =
				(uint32_t)(b / SLAB_TC_STS * SLAB_TC_BYTES + b % SLAB_TC_STS);
			slab_tc_cap[id] = (uint16_t)c->tc_limit;
		} else {
			slab_tc_place[id] = (uint32_t)((SLAB_MAX_CACHES + id) * SLAB_TC_BYTES);
			slab_tc_cap[id] = SLAB_TC_MAX;
		}
	}
	tc->ent_b = (uintptr_t)(slab_tc_block + slab_tc_place[id]) -
		    (c->gc_base + c->tc_bias) * sizeof(uintptr_t);
	tc->frees = 0;
	tc->gc = c->gc_base + c->tc_bias;
	if (!slab_tls_registered) {
		slab_tls_registered = 1;
		pthread_setspecific(slab_key, (void *)1);
	}
	return 0;
}

static int slab_is_empty(const struct slab *s) { return !s->inuse && (s->fresh || s->released); }

/*
 * The slab a refill takes from: the head of partial, a slab in use, while it has what the refill
 * wants (reuse_only: freelist objects); else the newest empty slab, partial's tail (its objects
 * were touched last, its pages are there), moved to the head.  The caller takes at least one
 * object from a slab moved there, so the empty slabs stay partial's tail.  partial is not empty.
 * Under c->lock.
 */
static struct slab *refill_slab(struct sp_slab_cache *c, int reuse_only)
{
	struct slab *s = sp_list_entry(c->partial.next, struct slab, node);
	if (!slab_is_empty(s) && (!reuse_only || s->nfree))
		return s;
	struct slab *t = sp_list_entry(c->partial.prev, struct slab, node);
	if (t == s || !slab_is_empty(t) || (reuse_only && !t->nfree))
		return s;
	sp_list_del(&t->node);
	sp_list_add(&t->node, &c->partial);
	return t;
}

static void slab_age(struct sp_slab_cache *c, int all);

/*
 * Fill the (empty) thread array with up to c->batch objects from the slabs.  Under c->lock.
 * A new slab is mapped only while the array is still empty: a refill that emptied the partial
 * slabs returns short rather than touch (header and objects of) a second slab for one object.
 * An object taken off a slab freelist had its free pointer written there; unless its contents
 * are unknown anyway (FREE), the word is wiped so FRESH and FREE_ZERO objects are zero in full.
 */
static void tc_refill(struct sp_slab_cache *c, struct slab_tc *tc, int reuse_only)
{
	uint32_t got = 0;
	c->events++;
	uintptr_t *objs = slab_tc_objs(c, tc);
	uint8_t **sts = slab_tc_sts(c, tc);
	if (reuse_only) {
		/* Only objects on slab freelists (their pages were touched): the first of the first
		 * few partial slabs that has some goes to the front; the loop stops at a front slab
		 * without any. */
		struct sp_list *n = c->partial.next;
		for (int k = 0; n != &c->partial && k < 8; n = n->next, k++) {
			struct slab *s = sp_list_entry(n, struct slab, node);
			if (slab_is_empty(s))
				break;	/* the empty tail: refill_slab's choice */
			if (s->nfree) {
				sp_list_del(&s->node);
				sp_list_add(&s->node, &c->partial);
				break;
			}
		}
	}
	while (got < c->batch) {
		if (reuse_only && sp_list_empty(&c->partial))
			break;
		if (sp_list_empty(&c->partial)) {
			if (got)
				break;	/* never a new slab for a refill that has objects already */
			pthread_mutex_unlock(&c->lock);
			struct slab *ns = slab_new(c);
			pthread_mutex_lock(&c->lock);
			if (!ns)
				break;
			if (!sp_list_empty(&c->partial)) {
				/* another thread returned objects while the lock was dropped: take
				 * those and give the new slab back, or it would sit unused and
				 * never counted as empty (only a slab whose last object returns
				 * is) */
				ns->cache = NULL;
				pthread_mutex_unlock(&c->lock);
				slab_arena_put(ns, c->slab_shift);
				pthread_mutex_lock(&c->lock);
				continue;
			}
			sp_list_add_tail(&ns->node, &c->partial);
			c->nr_slabs++;
		}
		struct slab *s = refill_slab(c, reuse_only);
		if (reuse_only && !s->nfree)
			break;
		while (got < c->batch &&
		       (s->nfree || (!reuse_only && s->fresh < c->objs_per_slab))) {
			uintptr_t obj;
			uint32_t i;
			if (slab_is_empty(s)) {
				c->nr_empty--;	/* a kept empty slab is used again */
				s->released = 0;
			}
			if (s->nfree) {
				obj = s->freelist;
				uint64_t x = slab_obj_index(c, obj - s->objs);	/* exact or huge */
				if (x >= c->objs_per_slab)
					sp_fatal(SLAB_MSG_FREELIST);
				i = (uint32_t)x;
				if (slab_state_get(s, i) == SLAB_ST_ALLOC)
					sp_fatal(SLAB_MSG_FREELIST);
				s->freelist = slab_fp_get(c, obj);
				if (slab_state_get(s, i) != SLAB_ST_FREE)
					slab_word_store(obj + c->offset, 0);
				s->nfree--;
			} else {
				i = s->fresh++;
				obj = s->objs + (uintptr_t)i * c->stride;
			}
			s->inuse++;
			objs[got] = obj;
			sts[got] = &s->state[i];
			got++;
		}
		if (s->inuse == c->objs_per_slab) {
			sp_list_del(&s->node);
			sp_list_add(&s->node, &c->full);
		}
	}
	SP_ASSERT_INTERNAL(got <= c->batch);
	/* The array pops from its end: reverse it, so the object taken first (the freelist head,
	 * hottest, or the lowest fresh slot) is handed out first.  A fresh slab then fills from
	 * its start, page by page, instead of touching a page batch objects in for its first. */
	for (uint32_t a = 0, b = got; a + 1 < b; a++, b--) {
		uintptr_t to = objs[a];
		uint8_t *ts = sts[a];
		objs[a] = objs[b - 1];
		sts[a] = sts[b - 1];
		objs[b - 1] = to;
		sts[b - 1] = ts;
	}
	tc->gc = c->gc_base + c->tc_bias + got;
	slab_age(c, 0);
}

/*
 * A retired empty slab of a big cache gives its object pages back (freed memory returns to the
 * system over time, not only when its cache is destroyed): it becomes a fresh slab again, every
 * object FRESH (zero), freelist empty; the bytes before the first page boundary are zeroed by
 * hand, the rest by MADV_DONTNEED.  Under c->lock, inuse == 0 (no thread array holds one).
 */
static void slab_release_pages(struct sp_slab_cache *c, struct slab *s)
{
	uintptr_t end = (uintptr_t)s + ((uintptr_t)1 << c->slab_shift);
	uintptr_t pg = SP_ALIGN_UP(s->objs, (uintptr_t)4096);
	sp_track_unpoison((void *)s->objs, end - s->objs);
	memset((void *)s->objs, 0, pg - s->objs);
	madvise((void *)pg, end - pg, MADV_DONTNEED);
	sp_track_poison((void *)s->objs, end - s->objs);
	memset(s->state, 0, c->objs_per_slab);
	s->freelist = slab_arena_base;
	s->nfree = 0;
	s->fresh = 0;
	s->released = 1;
}

/*
 * A slab whose objects are all back.  Keep up to keep_empty of them with their pages, at the tail
 * of partial (partly used slabs are refilled from first), stamped with the slow-path clock;
 * slab_age retires them later.  One beyond the bound goes to the arena.  TYPESAFE_BY_RCU slabs
 * are never released while the cache lives.  Under c->lock.
 */
static void slab_empty(struct sp_slab_cache *c, struct slab *s)
{
	sp_list_del(&s->node);
	if ((c->flags & SP_SLAB_TYPESAFE_BY_RCU) || c->nr_empty < c->keep_empty) {
		sp_list_add_tail(&s->node, &c->partial);
		c->nr_empty++;
		s->empty_at = c->events;
		return;
	}
	c->nr_slabs--;
	s->cache = NULL;
	slab_arena_put(s, c->slab_shift);
}

/*
 * Retire the empty slabs that stayed empty SLAB_EMPTY_AGE slow-path ticks (all: every one):
 * beyond SLAB_KEEP_EMPTY to the arena, else a plain slab >= 64 KiB gives its pages back.  The
 * empty slabs are the tail of partial, at most keep_empty of them.  TYPESAFE_BY_RCU slabs stay.
 * Under c->lock.
 */
static void slab_age(struct sp_slab_cache *c, int all)
{
	if (c->flags & SP_SLAB_TYPESAFE_BY_RCU)
		return;
	int pages = c->slab_shift >= SLAB_RELEASE_SHIFT && !c->ctor &&
		    !(c->flags & (SP_SLAB_POISON | SP_SLAB_RED_ZONE));
	struct sp_list *pos = c->partial.prev, *prev;
	for (size_t k = c->nr_empty; k && pos != &c->partial; k--, pos = prev) {
		prev = pos->prev;
		struct slab *s = sp_list_entry(pos, struct slab, node);
		SP_ASSERT_INTERNAL(slab_is_empty(s));
		if (!all && c->events - s->empty_at < SLAB_EMPTY_AGE)
			continue;
		if (c->nr_empty > SLAB_KEEP_EMPTY) {
			sp_list_del(&s->node);
			c->nr_empty--;
			c->nr_slabs--;
			s->cache = NULL;
			slab_arena_put(s, c->slab_shift);
		} else if (pages && !s->released) {
			slab_release_pages(c, s);
		}
	}
}

/* Return n array entries to their slabs.  Under c->lock. */
static void flush_ents(struct sp_slab_cache *c, const uintptr_t *objs, uint8_t *const *sts,
		       uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		uintptr_t p = objs[k];
		if (!slab_in_arena(p))
			sp_fatal(SLAB_MSG_FREELIST);
		struct slab *s = slab_of(c, p);
		uint64_t i = slab_obj_index(c, p - s->objs);	/* exact or huge: no divide */
		if (s->cache != c || i >= c->objs_per_slab || sts[k] != &s->state[i] ||
		    slab_state_get(s, (uint32_t)i) == SLAB_ST_ALLOC)
			sp_fatal(SLAB_MSG_FREELIST);
		if (p == s->freelist)
			sp_fatal(SLAB_MSG_DOUBLE_FREE);
		slab_fp_set(c, p, s->freelist);
		s->freelist = p;
		s->nfree++;
		if (s->inuse == c->objs_per_slab) {
			sp_list_del(&s->node);
			sp_list_add(&s->node, &c->partial);
		}
		if (!--s->inuse)
			slab_empty(c, s);
	}
}

static void *slab_alloc_reuse(struct sp_slab_cache *c, int zero);
static void *slab_tc_pop(struct sp_slab_cache *c, struct slab_tc *tc, int zero);

/* init_on_alloc's zeroing of a popped object that is not known to be zero: out of line, so that
 * slab_alloc_slow's common branches call nothing and save no register. */
static sp_noinline void *slab_alloc_zero(const struct sp_slab_cache *c, uintptr_t obj,
					  unsigned old)
{
	slab_track_alloc(c, obj, old);
	slab_zero(obj, c->object_size);
	return (void *)obj;
}

static sp_noinline void *slab_alloc_refill(struct sp_slab_cache *c, int zero);

void *slab_alloc_slow(struct sp_slab_cache *c, int zero)
{
	if (c->hot_alloc == SLAB_INIT_ALLOC && !c->ctor) {
		/* init_on_alloc alone: the fast path's pop, then the zeroing unless the slot is known
		 * zero (FRESH, or FREE_ZERO under init_on_free), without slab_tc_pop's re-checks and
		 * slab_alloc_hooked's call. */
		slab_tcref_t r = slab_tcr(c);
		uint64_t v = slab_tcf_get(r, SLAB_TCF_GC);
		if (v >= c->gc_alloc) {
			uintptr_t ent_b = slab_tcf_get(r, SLAB_TCF_ENT), obj;
			uint8_t *st;
			slab_tcf_set_gc(r, --v);
			slab_tc_ent_get(ent_b, v, &obj, &st);
			SP_ASSERT_INTERNAL(slab_tc_entry_ok(obj, st));
			unsigned old = __atomic_load_n(st, __ATOMIC_RELAXED);
			__atomic_store_n(st, (uint8_t)SLAB_ST_ALLOC, __ATOMIC_RELAXED);
			if (!slab_st_known_zero(old))
				return slab_alloc_zero(c, obj, old);
			slab_track_alloc(c, obj, old);
			return (void *)obj;
		}
	}
	return slab_alloc_refill(c, zero);
}

/* The rest of slab_alloc_slow: a stale or empty array (refill, borrow), or hooks. */
static void *slab_alloc_refill(struct sp_slab_cache *c, int zero)
{
	struct slab_tc *tc = slab_tc_of(c);
	if (!c->gen)
		return NULL;	/* destroyed cache */
	if (slab_tc_gen(tc) != c->gen && tc_reset(c, tc))
		return NULL;
	if (!slab_tc_count(c, tc)) {
		pthread_mutex_lock(&c->lock);
		tc_fold(c, tc);
		tc_refill(c, tc, c->borrow != NULL);
		pthread_mutex_unlock(&c->lock);
		if (!slab_tc_count(c, tc) && c->borrow) {
			/* Dry: an object of a bigger cache already in memory beats a fresh slot. */
			struct sp_slab_cache *b = c->borrow;
			for (int d = 0; b && d < SLAB_BORROW_DEPTH; b = b->borrow, d++) {
				void *p = slab_alloc_reuse(b, zero);
				if (p)
					return p;
			}
			pthread_mutex_lock(&c->lock);
			tc_refill(c, tc, 0);
			pthread_mutex_unlock(&c->lock);
		}
		SP_ASSERT_EXPENSIVE(slab_cache_is_valid(c));
		if (!slab_tc_count(c, tc))
			return NULL;
	}
	return slab_tc_pop(c, tc, zero);
}

/*
 * An object of c that was in use before (this thread's array or c's slab freelists), never a
 * fresh slot; or NULL.  The array holds a refill's objects (freelist ones popped first, fresh
 * slots last) under what frees pushed since, so a FRESH entry on top means only fresh ones.
 */
static void *slab_alloc_reuse(struct sp_slab_cache *c, int zero)
{
	struct slab_tc *tc = slab_tc_of(c);
	if (!c->gen || (slab_tc_gen(tc) != c->gen && tc_reset(c, tc)))
		return NULL;
	uint32_t n = slab_tc_count(c, tc);
	if (n > c->tc_limit)
		sp_fatal(SLAB_MSG_FREELIST);	/* before an entry is read */
	if (n) {
		if (**slab_tc_stp(tc->ent_b, tc->gc - 1) == SLAB_ST_FRESH)
			return NULL;
	} else {
		pthread_mutex_lock(&c->lock);
		tc_fold(c, tc);
		tc_refill(c, tc, 1);
		pthread_mutex_unlock(&c->lock);
		if (!slab_tc_count(c, tc))
			return NULL;
	}
	return slab_tc_pop(c, tc, zero);
}

/* Pop the (non-empty, current) thread array. */
static void *slab_tc_pop(struct sp_slab_cache *c, struct slab_tc *tc, int zero)
{
	if (slab_tc_count(c, tc) > c->tc_limit)
		sp_fatal(SLAB_MSG_FREELIST);	/* count beyond the bound */
	uint64_t v = tc->gc - 1;
	uintptr_t obj = *slab_tc_objp(tc->ent_b, v);
	uint8_t *st = *slab_tc_stp(tc->ent_b, v);
	SP_ASSERT_INTERNAL(slab_tc_entry_ok(obj, st));
	tc->gc = v;
	if (zero | c->hot_alloc)
		return slab_alloc_hooked(c, obj, st, zero);
	slab_track_alloc(c, obj, *st);
	__atomic_store_n(st, (uint8_t)SLAB_ST_ALLOC, __ATOMIC_RELAXED);
	return (void *)obj;
}

void slab_free_slow(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st)
{
	struct slab_tc *tc = slab_tc_of(c);
	if (slab_tc_gen(tc) != c->gen) {
		if (slab_tls_dead || tc_reset(c, tc)) {
			/* No thread array: straight back to the slab. */
			pthread_mutex_lock(&c->lock);
			flush_ents(c, &obj, &st, 1);
			c->frees++;
			pthread_mutex_unlock(&c->lock);
			return;
		}
	} else {
		/* Keep the newest half (hot in cache), return the older half to the slabs. */
		uint32_t n = slab_tc_count(c, tc), keep = c->tc_limit / 2;
		uintptr_t *objs = slab_tc_objs(c, tc);
		uint8_t **sts = slab_tc_sts(c, tc);
		if (n > c->tc_limit)
			sp_fatal(SLAB_MSG_FREELIST);
		pthread_mutex_lock(&c->lock);
		c->events++;
		flush_ents(c, objs, sts, n - keep);
		tc_fold(c, tc);
		slab_age(c, 0);
		pthread_mutex_unlock(&c->lock);
		memmove(objs, objs + (n - keep), keep * sizeof(*objs));
		memmove(sts, sts + (n - keep), keep * sizeof(*sts));
		tc->gc = c->gc_base + c->tc_bias + keep;
		SP_ASSERT_EXPENSIVE(slab_cache_is_valid(c));
	}
	slab_free_push(c, obj, st);
}

static void tc_flush(struct sp_slab_cache *c, struct slab_tc *tc)
{
	pthread_mutex_lock(&c->lock);
	c->events++;
	tc_fold(c, tc);
	flush_ents(c, slab_tc_objs(c, tc), slab_tc_sts(c, tc), slab_tc_count(c, tc));
	slab_age(c, 1);	/* an explicit flush (or thread exit) retires every empty slab */
	pthread_mutex_unlock(&c->lock);
	tc->gc = c->gc_base + c->tc_bias;
}

SP_API void sp_slab_cache_flush_thread(struct sp_slab_cache *c)
{
	if (SP_CONFIG_PASSTHROUGH || !c)
		return;
	struct slab_tc *tc = slab_tc_of(c);
	if (c->gen && slab_tc_gen(tc) == c->gen)
		tc_flush(c, tc);
	SP_ASSERT_EXPENSIVE(!c->gen || slab_cache_is_valid(c));
}

static void slab_thread_exit(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&slab_registry_lock);
	for (uint32_t id = 1; id < SLAB_MAX_CACHES; id++) {
		struct slab_tc *tc = &slab_tls[id];
		struct sp_slab_cache *c = &slab_pool[id];
		if (slab_tc_gen(tc) && slab_pool_used[id] && slab_tc_gen(tc) == c->gen)
			tc_flush(c, tc);
		tc->gc = 0;
		tc->ent_b = 0;
	}
	slab_tls_registered = 0;
	slab_tls_dead = 1;
	if (slab_tc_block) {
		munmap(slab_tc_block, SLAB_TC_BLOCK);
		slab_tc_block = NULL;
		memset(slab_tc_cap, 0, sizeof(slab_tc_cap));
		slab_tc_bump = 0;
	}
	pthread_mutex_unlock(&slab_registry_lock);
}

/* ---- passthrough: every object its own malloc (SP_CONFIG_PASSTHROUGH=1) ------------------- */

void *slab_passthrough_alloc(struct sp_slab_cache *c, int zero)
{
	void *p = NULL;
	if (posix_memalign(&p, c->align, c->object_size))
		return NULL;
	if (c->ctor)
		c->ctor(p);
	unsigned pol = slab_policy_get();
	int init = (pol & SLAB_INIT_ALLOC) && !(c->flags & SP_SLAB_NO_INIT_ON_ALLOC)
			   ? !c->ctor &&
				     ((c->flags & (SP_SLAB_TYPESAFE_BY_RCU | SP_SLAB_POISON)) ? zero
											      : 1)
			   : zero;
	if (init)
		memset(p, 0, c->object_size);
	__atomic_fetch_add(&c->pt_active, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->allocs, 1, __ATOMIC_RELAXED);
	return p;
}

void slab_passthrough_free(struct sp_slab_cache *c, void *obj)
{
	if (!obj)
		return;
	if (slab_policy_get() & c->init_mask & SLAB_INIT_FREE)
		memset(obj, 0, c->object_size);
	__atomic_fetch_sub(&c->pt_active, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->frees, 1, __ATOMIC_RELAXED);
	free(obj);
}

/* ---- the object API ----------------------------------------------------------------------- */

SP_API void *sp_slab_cache_alloc(struct sp_slab_cache *c) { return slab_alloc_fast(c, 0); }
SP_API void *sp_slab_cache_zalloc(struct sp_slab_cache *c) { return slab_alloc_fast(c, 1); }
SP_API void sp_slab_cache_free(struct sp_slab_cache *c, void *obj) { slab_free_fast(c, obj); }

static void *cache_allocator_alloc(void *ud, size_t size, size_t align)
{
	struct sp_slab_cache *c = ud;
	if (size > c->object_size || (align && (align & (align - 1) || align > c->align)))
		return NULL;
	return slab_alloc_fast(c, 0);
}

static void cache_allocator_free(void *ud, void *p, size_t size)
{
	(void)size;
	slab_free_fast(ud, p);
}

SP_API void sp_slab_cache_allocator(struct sp_slab_cache *c, struct sp_allocator *out)
{
	out->alloc = cache_allocator_alloc;
	out->free = cache_allocator_free;
	out->ud = c;
}

/* ---- statistics and the walker ------------------------------------------------------------ */

SP_API void sp_slab_cache_stats(const struct sp_slab_cache *cc, struct sp_slab_stats *st)
{
	struct sp_slab_cache *c = (struct sp_slab_cache *)cc;
	memset(st, 0, sizeof(*st));
	if (!c)
		return;
	st->name = c->name;
	st->object_size = c->object_size;
	st->stride = c->stride;
	st->align = c->align;
	st->slab_size = (size_t)1 << c->slab_shift;
	st->objs_per_slab = c->objs_per_slab;
	st->colours = c->colours;
	st->colour_off = c->colour_off;
	st->flags = c->flags;
	st->freeptr_offset = c->offset;
	st->left_over = c->left_over;
	st->l1d_sets =
		sets_reached(c->first, c->stride, c->objs_per_slab, c->colours, c->colour_off);
	unsigned pol = slab_policy_get();
	st->init_on_alloc = (pol & c->init_mask & SLAB_INIT_ALLOC) != 0;
	st->init_on_free = (pol & c->init_mask & SLAB_INIT_FREE) != 0;
	if (SP_CONFIG_PASSTHROUGH) {
		st->nr_active = __atomic_load_n(&c->pt_active, __ATOMIC_RELAXED);
		st->allocs = __atomic_load_n(&c->allocs, __ATOMIC_RELAXED);
		st->frees = __atomic_load_n(&c->frees, __ATOMIC_RELAXED);
		st->nr_objects = st->nr_active;
		st->bytes = st->nr_active * c->object_size;
		return;
	}
	pthread_mutex_lock(&c->lock);
	st->nr_slabs = c->nr_slabs;
	st->nr_active = count_active(c);
	st->frees = c->frees;
	pthread_mutex_unlock(&c->lock);
	const struct slab_tc *tc = slab_tc_of(c);
	if (c->gen && slab_tc_gen(tc) == c->gen)
		st->frees += tc->frees;
	/* every object ever handed out is either live (exact, from the state bytes) or freed */
	st->allocs = st->frees + st->nr_active;
	st->nr_objects = st->nr_slabs * c->objs_per_slab;
	st->bytes = st->nr_slabs * st->slab_size;
}

#define CHECK(e)                                                                                   \
	do {                                                                                       \
		if (!(e))                                                                          \
			goto bad;                                                                  \
	} while (0)

static int slab_is_valid(struct sp_slab_cache *c, struct slab *s, int full)
{
	uint32_t n = c->objs_per_slab, nalloc = 0;
	CHECK(s->cache == c);
	CHECK(((uintptr_t)s & ~c->slab_mask) == 0);
	CHECK(s->colour < c->colours);
	CHECK(s->objs == (uintptr_t)s + c->first + s->colour * c->colour_off);
	CHECK(s->fresh <= n && s->nfree <= s->fresh && s->inuse == s->fresh - s->nfree);
	CHECK(!s->released || (!s->inuse && !s->fresh));
	CHECK(full == (s->inuse == n));
	for (uint32_t i = 0; i < n; i++) {
		unsigned v = slab_state_get(s, i);
		CHECK(i < s->fresh || v == SLAB_ST_FRESH);
		nalloc += v == SLAB_ST_ALLOC;
	}
	CHECK(nalloc <= s->inuse);
	uintptr_t p = s->freelist;
	for (uint32_t k = 0; k < s->nfree; k++) {
		uint64_t off = p - s->objs;
		CHECK(off < c->span && off % c->stride == 0);
		unsigned v = slab_state_get(s, (uint32_t)(off / c->stride));
		CHECK(v == SLAB_ST_FREE || v == SLAB_ST_FREE_ZERO || v == SLAB_ST_FRESH);
		p = slab_fp_get(c, p);
	}
	CHECK(p == slab_arena_base);
	return 1;
bad:
	return 0;
}

int slab_cache_is_valid(struct sp_slab_cache *c)
{
	int ok = 1;
	size_t nslabs = 0, nempty = 0;
	struct sp_list *pos;
	if (SP_CONFIG_PASSTHROUGH)
		return 1;
	pthread_mutex_lock(&c->lock);
	sp_list_for_each(pos, &c->partial) {
		struct slab *s = sp_list_entry(pos, struct slab, node);
		ok &= slab_is_valid(c, s, 0);
		ok &= !nempty || slab_is_empty(s);	/* the empty slabs are partial's tail */
		nempty += slab_is_empty(s);
		nslabs++;
	}
	sp_list_for_each(pos, &c->full) {
		ok &= slab_is_valid(c, sp_list_entry(pos, struct slab, node), 1);
		nslabs++;
	}
	ok &= nslabs == c->nr_slabs && nempty == c->nr_empty;
	ok &= (c->flags & SP_SLAB_TYPESAFE_BY_RCU) || nempty <= c->keep_empty;
	pthread_mutex_unlock(&c->lock);
	/* The calling thread's array: objects of c with their state bytes, none allocated. */
	const struct slab_tc *tc = slab_tc_of(c);
	if (ok && c->gen && slab_tc_gen(tc) == c->gen) {
		uint32_t n = slab_tc_count(c, tc);
		const uintptr_t *objs = slab_tc_objs(c, tc);
		uint8_t *const *sts = slab_tc_sts(c, tc);
		ok = n <= c->tc_limit;
		for (uint32_t k = 0; k < n && ok; k++) {
			uintptr_t p = objs[k];
			struct slab *s = slab_of(c, p);
			uint64_t off = p - s->objs;
			ok = slab_in_arena(p) && s->cache == c && off < c->span &&
			     off % c->stride == 0 && sts[k] == &s->state[off / c->stride] &&
			     slab_state_get(s, (uint32_t)(off / c->stride)) != SLAB_ST_ALLOC;
		}
	}
	return ok;
}
