/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slab_types.h - internal layout of secpath's slab caches: the structures, constants and messages,
 * and the functions the slab files share.  The inline alloc/free fast paths and the accessors
 * they use are in slab_fast.h.
 *
 * Memory.  All slab memory comes from one mmap'd arena (arena.c), reserved once with
 * MAP_NORESERVE and carved into slabs aligned to their own size (4 KiB .. 1 MiB).  A pointer p
 * is "ours" iff p - slab_arena_base < slab_arena_size; its slab header sits at
 * p & cache->slab_mask.  Unused arena pages read as zero, so a header with cache == NULL means
 * "not a live slab" and any arena pointer may be read safely.  The arena is aligned to its own
 * size: (p & cache->slab_amask) | slab_arena_base is an arena slab header for every p.
 *
 * Slab layout:  [struct slab | state[objs] | pad to align | colour | obj 0 | obj 1 | ... | left]
 * state[i] is one byte per object (SLAB_ST_*).  Bytes are written with relaxed atomics only:
 * different threads touch different bytes, so no locks are needed and the allocated/free state
 * of every object is exact (this is what catches every double free, not only the naive
 * object == next check).
 *
 * Object layout (offsets from the object start, stride = cache->stride):
 *   [0, object_size)            the caller's bytes
 *   [object_size, rz_end)       red zone (SP_SLAB_RED_ZONE): 0xbb free, 0xcc allocated
 *   offset                      free pointer: ALIGN_DOWN(object_size/2, 8) inside the object, or
 *                               rz_end (outside) for ctor / TYPESAFE_BY_RCU / POISON caches
 *   up to stride                padding to the alignment
 *
 * Slab free lists.  A free object on its slab's freelist stores its next pointer
 * CONFIG_SLAB_FREELIST_HARDENED style: next ^ cache->random ^ bswap64(address of the stored word).
 * The list terminator is slab_arena_base (never an object: the arena starts with a slab header),
 * so one unsigned compare rejects "empty", "uninitialised" (0) and any decoded pointer outside the
 * arena.  Slab freelists are walked only under the cache lock (refill, flush).
 *
 * Per-thread fast path (SLAB's array_cache, 6.18's sheaves).  Each thread has a static TLS slot
 * slab_tls[cache->id] for a bounded LIFO array of free objects (two parallel arrays: object,
 * pointer to its state byte) in a per-thread mmap'd block, outside every object, so a write after
 * free cannot forge an entry.  alloc
 * is an index decrement plus one state store, free the validation plus an index increment: no
 * locks, no atomics, no free pointer written.  tc->gc packs (gen << 9) | count, and generations
 * only grow (64-bit, never reused), so a slot's gen is never above its cache's: one compare
 * against cache->gc_alloc_fast checks "array of this cache generation" and "not empty" at once.
 * A full array flushes its older half to the owning slabs under the cache lock (that is where
 * frees from other threads reach their slab); an empty one refills a batch from the partial
 * slabs.  Ids are recycled: an entry whose gen differs from cache->gen is dropped without
 * touching its memory.  A pthread key destructor flushes a thread's arrays when it exits.
 *
 * Object state while in a thread array: whatever the free (or the slab) left (FRESH, FREE,
 * FREE_ZERO), never ALLOC, so every double free is still seen by the one state load of free.
 * FRESH and FREE_ZERO objects are zero in full (a refill wipes the slab free pointer word), so a
 * zeroing allocation skips their memset.
 *
 * Empty slabs (SLUB's partial list floor, mimalloc's page retirement).  A slab whose last object
 * comes back keeps its pages: it joins the tail of cache->partial, so partial is always
 * [slabs in use][empty slabs, oldest first], and is stamped with the cache's slow-path clock
 * (cache->events: one tick per refill and per flush of a thread array).  A cache keeps at most
 * keep_empty of them (SLAB_KEEP_EMPTY .. SLAB_KEEP_EMPTY_MAX, enough for two thread arrays of
 * objects); one more goes straight to the arena.  A refill that finds only empty slabs takes the
 * newest (hottest).  An empty slab that stays empty for SLAB_EMPTY_AGE ticks is retired: beyond
 * SLAB_KEEP_EMPTY it goes to the arena (whose pool gives the pages back within
 * SLAB_ARENA_PURGE_MS, or at once past SLAB_ARENA_DIRTY_MAX), else if >= 64 KiB and plain (no ctor,
 * POISON, RED_ZONE) it is reset to FRESH and its pages released (MADV_DONTNEED).  An explicit
 * flush (sp_slab_cache_flush_thread, thread exit) retires every empty slab at once.
 * TYPESAFE_BY_RCU slabs are never released while their cache lives.
 *
 * Locking: slab_registry_lock (cache pool, ids, thread-exit flush) -> cache->lock (slab lists,
 * slab freelists, counters) -> slab_arena_lock (bump pointer, free slab pools).
 */
#ifndef SP_SLAB_TYPES_H
#define SP_SLAB_TYPES_H

#include <pthread.h>
#include <stdint.h>

#include "secpath/slab.h"
#include "base/compiler.h"
#include "base/list.h"

#define SLAB_MAX_CACHES 128		/* live caches at once (ids 1..127; 0 is never used) */
#define SLAB_NAME_MAX 32
#define SLAB_MIN_SHIFT 12		/* smallest slab: 4 KiB */
#define SLAB_MAX_SHIFT 20		/* largest slab: 1 MiB */
#define SLAB_MAX_OBJECT 65536		/* largest object a cache takes */
#define SLAB_MIN_OBJS 8			/* objects per slab the size rule aims for */
#define SLAB_BORROW_DEPTH 2		/* caches a dry cache tries through ->borrow */
#define SLAB_KEEP_EMPTY 2		/* empty slabs a cache keeps once they have aged */
#define SLAB_KEEP_EMPTY_MAX 8		/* empty slabs a cache keeps at most (SLUB: 5 .. 10) */
#define SLAB_EMPTY_AGE 64		/* slow-path ticks an empty slab waits before retiring */
#define SLAB_RELEASE_SHIFT 16		/* retired empty slabs >= 64 KiB give their pages back */
/* A slab >= 8 KiB back in the arena keeps its pages this long at most, and such slabs this many
 * bytes in all (arena.c). */
#define SLAB_ARENA_PURGE_MS 100
#define SLAB_ARENA_DIRTY_MAX (16ul << 20)
#define SLAB_L1_SETS 64			/* L1D sets of the machines we model (48K/12 and 32K/8) */
#define SLAB_LINE 64

/* Per-object state bytes. */
enum {
	SLAB_ST_FRESH = 0,		/* never handed out since the slab was made */
	SLAB_ST_FREE = 1,		/* freed, contents unknown */
	SLAB_ST_FREE_ZERO = 2,		/* freed with init_on_free: zero except the free pointer */
	SLAB_ST_ALLOC = 3,		/* owned by a caller */
};

/* Process-wide init policy bits (slab_policy) and the per-cache mask of bits it honours. */
#define SLAB_INIT_ALLOC 1u
#define SLAB_INIT_FREE 2u

/* Byte patterns (include/linux/poison.h values). */
#define SLAB_POISON_FREE 0x6b
#define SLAB_POISON_END 0xa5
#define SLAB_POISON_INUSE 0x5a
#define SLAB_RED_INACTIVE 0xbb
#define SLAB_RED_ACTIVE 0xcc

/* Fixed corruption messages (crash tests match them). */
#define SLAB_MSG_DOUBLE_FREE "slab: double free"
#define SLAB_MSG_FOREIGN "slab: free of foreign pointer"
#define SLAB_MSG_WRONG_CACHE "slab: free into wrong cache"
#define SLAB_MSG_WAF "slab: write after free"
#define SLAB_MSG_RED_ZONE "slab: red zone overwritten"
#define SLAB_MSG_POISON "slab: poison overwritten"
#define SLAB_MSG_FREELIST "slab: freelist corrupted"

struct slab {
	struct sp_slab_cache *cache;	/* owner; NULL: not a live slab */
	uintptr_t objs;			/* address of object 0 (after header and colour) */
	struct sp_list node;		/* on cache->partial or cache->full */
	uintptr_t freelist;		/* encoded-chain head; slab_arena_base = empty */
	uint32_t inuse;			/* objects out of the slab (thread arrays + callers) */
	uint32_t fresh;			/* objects [fresh, objs_per_slab) never handed out */
	uint32_t nfree;			/* objects on freelist */
	uint16_t colour;		/* colour index of this slab (colours <= 1 MiB / 64) */
	uint16_t released;		/* kept empty with its object pages released (all FRESH) */
	uint32_t empty_at;		/* cache->events when it last became empty */
	uint8_t state[];		/* SLAB_ST_* per object */
};

#define SLAB_TC_MAX 256			/* largest per-thread array (entries) */
#define SLAB_TC_GEN_SHIFT 9		/* gc: gen above bias + count (<= SLAB_TC_MAX) */
/* A thread's arrays of one cache: objs[SLAB_TC_MAX] then sts[SLAB_TC_MAX] (state byte pointers). */
#define SLAB_TC_STS (SLAB_TC_MAX * sizeof(uintptr_t))
#define SLAB_TC_BYTES (2 * SLAB_TC_STS)

/*
 * A thread's array of one cache.  gc = (gen << SLAB_TC_GEN_SHIFT) | (bias + count) with bias =
 * SLAB_TC_MAX - tc_limit, so "count < tc_limit" is "bit 8 clear" for every cache.  Generations
 * come from one 64-bit counter that never wraps in practice (2^54 creates) and a slot is only
 * ever stamped with its id's current generation, so a stale slot's gc is below its cache's
 * gc_base.  Hence the alloc check is the single compare gc >= cache->gc_alloc_fast
 * (= gc_base + bias + 1: this generation and not empty; + 2^63 never matches) and the free check
 * gc >= cache->gc_base plus a bit test (not full).  ent_b is the objs array minus (gc_base + bias)
 * words, wrapping: objs[k] sits at ent_b + 8 * (gc_base + bias + k), so the fast paths index it
 * with gc itself (one addressing mode, no extension or shift).
 */
struct slab_tc {
	uint64_t gc;			/* offset 0 (the fast paths' asm relies on the layout) */
	uintptr_t ent_b;		/* offset 8 */
	uint64_t frees;			/* offset 16; not yet folded into the cache totals */
};

struct sp_slab_cache {
	/* Read by the fast paths: the first cache line, read-only after create (except the
	 * *_fast fields, rewritten when the policy changes). */
	uint64_t gc_base;		/* gen << SLAB_TC_GEN_SHIFT (UINT64_MAX when dead) */
	/* gc_alloc, or gc_alloc + 2^63 (never reached) when allocs need hooks or zeroing. */
	uint64_t gc_alloc_fast;
	uintptr_t tls_off;		/* &slab_tls[id] - thread pointer (static TLS: one value) */
	uintptr_t slab_amask;		/* ~(slab_size - 1) & (arena size - 1) */
	uintptr_t arena_base;		/* slab_arena_base (aligned to the arena size) */
	uint64_t div_inv;		/* stride's odd part's inverse mod 2^64 (slab_obj_index) */
	uint32_t div_shift;		/* stride = odd part << div_shift */
	uint32_t id;			/* index into slab_tls[] and the cache pool */
	/* objs_per_slab, or 0 (every free takes slab_free_other); 64-bit: one compare with the
	 * 64-bit index, straight from memory. */
	uint64_t objs_fast;

	uint64_t gen;			/* generation of this id; 0 = dead; < 2^54 */

	uint32_t offset;		/* free pointer offset in the object */
	uint32_t tc_limit;		/* max objects on a thread array (<= SLAB_TC_MAX) */
	uint64_t gc_alloc;		/* gc_base + tc_bias + 1 */
	uintptr_t slab_mask;		/* ~(slab_size - 1) */
	uintptr_t random;		/* freelist key */
	uint32_t stride;
	uint32_t span;			/* objs_per_slab * stride */
	uint32_t object_size;
	uint32_t init_mask;		/* SLAB_INIT_* bits the process policy applies here */
	/* != 0: allocs run hooks (flag bits, SLAB_INIT_ALLOC: zero it all); frees run hooks (flag
	 * bits, SLAB_INIT_FREE).  Recomputed when the process policy changes, with gc_alloc_fast
	 * and objs_fast, which route the fast paths to the hooks without a branch of their own. */
	uint32_t hot_alloc;
	uint32_t hot_free;
	uint32_t tc_off;		/* id * sizeof(struct slab_tc): offset in slab_tls */
	uint32_t tc_bias;		/* SLAB_TC_MAX - tc_limit */
	uint32_t hooks_alloc;		/* flags needing the alloc hooks (POISON|RED_ZONE|VERIFY) */
	uint32_t hooks_free;		/* flags needing the free hooks (POISON|RED_ZONE) */

	/* Geometry (read-only after create). */
	unsigned flags;
	uint32_t align;
	uint32_t rz_end;		/* end of the red zone (== inuse without RED_ZONE) */
	uint32_t meta_end;		/* end of object + red zone + outside free pointer */
	uint32_t slab_shift;
	uint32_t objs_per_slab;
	uint32_t first;			/* offset of object 0 at colour 0 */
	uint32_t colours;		/* >= 1 */
	uint32_t colour_off;
	uint32_t left_over;		/* bytes a slab cannot use at colour 0 */
	uint32_t batch;			/* objects per refill */
	void (*ctor)(void *obj);
	/* From slab_geom at creation, NULL by default: a cache whose thread array and freelists
	 * are dry takes an object already in memory from here (and from its own borrow,
	 * SLAB_BORROW_DEPTH deep) before it touches a fresh slot (slab_alloc_slow). */
	struct sp_slab_cache *borrow;
	char name[SLAB_NAME_MAX];

	/* Mutable, under lock. */
	pthread_mutex_t lock;
	struct sp_list partial;		/* slabs with free objects (including empty ones) */
	struct sp_list full;
	uint32_t colour_next;
	size_t nr_slabs;
	size_t nr_empty;		/* slabs with every used object back (inuse 0, fresh > 0) */
	uint32_t keep_empty;		/* bound on nr_empty (read-only after create) */
	uint32_t events;		/* slow-path clock: refills and flushes (wraps) */
	uint64_t allocs, frees;		/* frees: folded from threads; allocs: passthrough */
	uint64_t pt_active;		/* passthrough: live objects (atomic) */
} sp_cacheline_aligned;

#define slab_hidden __attribute__((visibility("hidden")))
extern _Thread_local struct slab_tc slab_tls[SLAB_MAX_CACHES] slab_hidden
	__attribute__((tls_model("initial-exec")));
extern uintptr_t slab_arena_base slab_hidden, slab_arena_size slab_hidden;
/* Per 4 KiB arena page: the shift of the slab covering it, 0 = none. */
extern uint8_t *slab_page_shift slab_hidden;
extern unsigned slab_policy slab_hidden;

/*
 * Creation parameters beyond sp_slab_cache_create's, for the part's own users (the malloc shim
 * sizes its classes for memory, not for the kernel workloads).  NULL, or a zero struct, gives
 * the public create's cache.
 */
struct slab_geom {
	/* 0: the thread array bound follows the stride (256 entries up to 256 B, 128 to 1 KiB,
	 * 64 to 4 KiB, 16 to 16 KiB, 4 above).  Else the array holds tc_bytes of objects:
	 * tc_bytes / stride entries, at least tc_min (2 .. SLAB_TC_MAX), at most SLAB_TC_MAX. */
	uint32_t tc_bytes;
	uint32_t tc_min;
	/* A live cache of bigger objects this one borrows freed objects from when dry (->borrow),
	 * or NULL. */
	struct sp_slab_cache *borrow;
};

/* cache.c */
/* sp_slab_cache_create with creation parameters g (NULL: the defaults); -EINVAL for a tc_min
 * out of range.  sp_slab_cache_create is this with g = NULL. */
int slab_cache_create_ex(const char *name, size_t size, size_t align, unsigned flags,
			 void (*ctor)(void *obj), const struct slab_geom *g,
			 struct sp_slab_cache **out);
/* Empty array, stale array, or an alloc needing hooks / zeroing (gc_alloc_fast). */
void *slab_alloc_slow(struct sp_slab_cache *c, int zero);
void slab_free_slow(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st);
/* A free the fast path did not take (hooks, or a bad pointer): full checks, hooks, push. */
void slab_free_other(struct sp_slab_cache *c, void *p);
/* The free of an object the fast path checked (owner, boundary, range) in a cache whose only free
 * hook is init_on_free: state check, zeroing, FREE_ZERO, push (harden.c). */
void slab_free_zero(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st);
/* Alloc with hooks or zeroing: sets the state byte itself (it needs the old one). */
void *slab_alloc_hooked(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st, int zero);
/* Walk every slab and freelist of c and check the invariants; returns 1 if consistent. */
int slab_cache_is_valid(struct sp_slab_cache *c);
/* Cache of a live slab object (NULL if p is not one). */
struct sp_slab_cache *slab_cache_of(const void *p);
void *slab_passthrough_alloc(struct sp_slab_cache *c, int zero);
void slab_passthrough_free(struct sp_slab_cache *c, void *obj);

/* arena.c */
int slab_arena_init(void);
void *slab_arena_get(unsigned shift);
void slab_arena_put(void *mem, unsigned shift);
/* Give the pages of every pooled slab back to the system now (malloc_trim). */
void slab_arena_purge(void);
/* Milliseconds of the coarse monotonic clock (a few ms resolution, no syscall). */
uint64_t slab_coarse_ms(void);
/* fork(): hold / release the arena lock around it (last in the lock order). */
void slab_arena_fork_lock(void);
void slab_arena_fork_unlock(void);

/* harden.c */
/* A free the fast path refused: returns for NULL, else dies with the precise message. */
__attribute__((cold)) void slab_bad_free(struct sp_slab_cache *c, const void *obj);
void slab_object_init_fresh(struct sp_slab_cache *c, uintptr_t obj);
uintptr_t slab_random(void);

#endif
