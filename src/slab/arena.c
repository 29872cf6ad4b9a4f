/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * arena.c - the one virtual region all slabs come from (hardened_malloc's reserved-region idea).
 *
 * slab_arena_init() reserves SLAB_ARENA_MAX (halving on failure, down to 256 MiB) with
 * MAP_NORESERVE, readable and writable: untouched pages read as zero and cost nothing.  Slabs
 * of 2^shift bytes (4 KiB .. 1 MiB) are cut with a bump pointer aligned to their size, or
 * reused from a per-size pool of released slabs.  slab_page_shift[] (one byte per 4 KiB arena
 * page, also NORESERVE) records the size of the slab covering each page, so any pointer maps to
 * its slab header without knowing its cache (sp_kfree, wrong-cache diagnosis).
 *
 * The arena is aligned to its own (power-of-two) size, so (p & (size - 1)) | base maps any
 * address into the arena: the free fast path finds a slab header to read without a range check
 * (a pointer outside the arena then fails the header's owner or boundary check).
 *
 * Released slabs of 8 KiB or more keep their pages for a while (mimalloc's delayed purge): they
 * wait in a per-size "dirty" pool, newest first, and a request of their size takes the newest
 * and clears it (a memset of resident pages costs less than faulting fresh ones in, and a
 * program that frees many slabs just before it exits pays no syscall for them).  A dirty slab is
 * purged (MADV_DONTNEED, then to the clean pool) once it has waited SLAB_ARENA_PURGE_MS, while the
 * dirty bytes exceed SLAB_ARENA_DIRTY_MAX, and before the arena hands out memory that is not
 * resident (a clean pooled slab or the bump pointer): dirty slabs of other sizes, at least as
 * many bytes as the request, go first, so the dirty pool never raises the peak of resident
 * memory.  Purges happen only inside arena calls: an idle program keeps up to SLAB_ARENA_DIRTY_MAX.
 *
 * Under ASan the used part of the arena is a LeakSanitizer root region (see arena_lsan_cover).
 *
 * Invariants: a slab handed out is zero-filled (fresh pages, MADV_DONTNEED on purge, or cleared
 * when taken from the dirty pool); a pooled slab's header has cache == NULL (its words 1-3 hold
 * the pool's links and stamp); the arena's first byte is a slab header, never an object (free
 * lists use it as terminator); slab memory is never unmapped, only pooled.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "base/track.h"
#include "slab/slab_types.h"

#if SP_HAVE_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#define SLAB_ARENA_MAX (16ull << 30)
#define SLAB_ARENA_MIN (256ull << 20)

uintptr_t slab_arena_base, slab_arena_size;
uint8_t *slab_page_shift;

static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t arena_bump;
static uintptr_t arena_pool[SLAB_MAX_SHIFT + 1];	/* released slabs, linked at offset 8 */
/* Dirty pool: per size, a list of released slabs with their pages, newest first (head) to
 * oldest (tail), through the header words of struct dirty; the bytes they hold in all. */
static uintptr_t dirty_head[SLAB_MAX_SHIFT + 1], dirty_tail[SLAB_MAX_SHIFT + 1];
static uintptr_t dirty_bytes;
static sp_unused uintptr_t arena_lsan_end;		/* LSan scans the arena up to here */

/*
 * LeakSanitizer does not scan mmap'd memory, so a malloc block referenced only from a live slab
 * object would be reported as leaked.  Register the used part of the arena as a root region, in
 * 64 MiB steps as the bump pointer grows.  Under arena_lock.
 */
static void arena_lsan_cover(void)
{
#if SP_HAVE_ASAN
	const uintptr_t step = (uintptr_t)64 << 20;
	if (!arena_lsan_end)
		arena_lsan_end = slab_arena_base;
	while (arena_lsan_end < arena_bump) {
		__lsan_register_root_region((void *)arena_lsan_end, step);
		arena_lsan_end += step;
	}
#endif
}

int slab_arena_init(void)
{
	const int prot = PROT_READ | PROT_WRITE;
	const int fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	for (uint64_t size = SLAB_ARENA_MAX; size >= SLAB_ARENA_MIN; size >>= 1) {
		/* Twice the size, then trim to a size-aligned window (see the header comment). */
		void *raw = mmap(NULL, 2 * size, prot, fl, -1, 0);
		if (raw == MAP_FAILED)
			continue;
		void *tab = mmap(NULL, size >> SLAB_MIN_SHIFT, prot, fl, -1, 0);
		if (tab == MAP_FAILED) {
			munmap(raw, 2 * size);
			continue;
		}
		uintptr_t lo = (uintptr_t)raw, base = SP_ALIGN_UP(lo, (uintptr_t)size);
		if (base > lo)
			munmap(raw, base - lo);
		if (lo + 2 * size > base + size)
			munmap((void *)(base + size), lo + 2 * size - (base + size));
		slab_page_shift = tab;
		slab_arena_base = base;
		arena_bump = slab_arena_base;
		slab_arena_size = size;
		return 0;
	}
	return -ENOMEM;
}

/* A dirty slab's header: cache stays NULL (word 0), so no free path takes it for a live slab. */
struct dirty {
	uintptr_t cache, next, prev;	/* next: older; prev: newer */
	uint64_t put_ms;		/* when it was released (coarse monotonic clock) */
};

uint64_t slab_coarse_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Push a slab whose pages need not be resident on the clean pool, its link at offset 8 (the rest
 * of its first page zero).  Under arena_lock. */
static void clean_push(uintptr_t mem, unsigned shift)
{
	*(uintptr_t *)(mem + 8) = arena_pool[shift];
	arena_pool[shift] = mem;
}

static void dirty_unlink(uintptr_t mem, unsigned shift)
{
	struct dirty *d = (struct dirty *)mem;
	if (d->prev)
		((struct dirty *)d->prev)->next = d->next;
	else
		dirty_head[shift] = d->next;
	if (d->next)
		((struct dirty *)d->next)->prev = d->prev;
	else
		dirty_tail[shift] = d->prev;
	dirty_bytes -= (uintptr_t)1 << shift;
}

/* The size whose oldest dirty slab is the oldest of all (other than skip), or 0 (none). */
static unsigned dirty_oldest(unsigned skip)
{
	unsigned best = 0;
	for (unsigned sh = SLAB_MIN_SHIFT + 1; sh <= SLAB_MAX_SHIFT; sh++)
		if (sh != skip && dirty_tail[sh] &&
		    (!best || ((struct dirty *)dirty_tail[sh])->put_ms <
			      ((struct dirty *)dirty_tail[best])->put_ms))
			best = sh;
	return best;
}

/* Purge the oldest dirty slabs (not of size skip) that waited SLAB_ARENA_PURGE_MS, then while
 * the pool holds more than SLAB_ARENA_DIRTY_MAX, then until need bytes are purged.  Under
 * arena_lock. */
static void dirty_purge(uint64_t now, unsigned skip, uintptr_t need)
{
	const uintptr_t pg = (uintptr_t)1 << SLAB_MIN_SHIFT;
	for (unsigned sh; (sh = dirty_oldest(skip)) != 0;) {
		uintptr_t mem = dirty_tail[sh], sz = (uintptr_t)1 << sh;
		if (now - ((struct dirty *)mem)->put_ms < SLAB_ARENA_PURGE_MS &&
		    dirty_bytes <= SLAB_ARENA_DIRTY_MAX && !need)
			break;
		dirty_unlink(mem, sh);
		need = need > sz ? need - sz : 0;
		memset((void *)mem, 0, pg);	/* the header page: cleared by hand (the link) */
		madvise((void *)(mem + pg), sz - pg, MADV_DONTNEED);
		clean_push(mem, sh);
	}
}

/* The newest dirty slab of this size, cleared, or 0.  Under arena_lock. */
static uintptr_t dirty_take(unsigned shift)
{
	uintptr_t mem = dirty_head[shift];
	if (mem) {
		dirty_unlink(mem, shift);
		memset((void *)mem, 0, (uintptr_t)1 << shift);
	}
	return mem;
}

/* A slab whose pages may not be resident: the clean pool's, else cut by the bump pointer; 0
 * when the arena is full.  Under arena_lock. */
static uintptr_t arena_fresh(unsigned shift)
{
	uintptr_t sz = (uintptr_t)1 << shift, mem = arena_pool[shift];
	if (mem) {
		arena_pool[shift] = *(uintptr_t *)(mem + 8);
		*(uintptr_t *)(mem + 8) = 0;
		return mem;
	}
	mem = SP_ALIGN_UP(arena_bump, sz);
	if (mem + sz > slab_arena_base + slab_arena_size)
		return 0;
	arena_bump = mem + sz;
	arena_lsan_cover();
	return mem;
}

void *slab_arena_get(unsigned shift)
{
	uintptr_t sz = (uintptr_t)1 << shift, mem;
	pthread_mutex_lock(&arena_lock);
	mem = dirty_take(shift);
	if (!mem) {
		/* memory that may not be resident next: purge as many pooled bytes first */
		if (dirty_bytes)
			dirty_purge(slab_coarse_ms(), shift, sz);
		mem = arena_fresh(shift);
	}
	if (mem)
		memset(slab_page_shift + ((mem - slab_arena_base) >> SLAB_MIN_SHIFT), (int)shift,
		       sz >> SLAB_MIN_SHIFT);
	pthread_mutex_unlock(&arena_lock);
	return (void *)mem;
}

void slab_arena_purge(void)
{
	pthread_mutex_lock(&arena_lock);
	dirty_purge(slab_coarse_ms(), 0, dirty_bytes);
	pthread_mutex_unlock(&arena_lock);
}

void slab_arena_fork_lock(void) { pthread_mutex_lock(&arena_lock); }
void slab_arena_fork_unlock(void) { pthread_mutex_unlock(&arena_lock); }

/*
 * Release a slab to the pool.  A slab of one page goes to the clean pool, its page cleared by
 * hand; a bigger one to the dirty pool with its pages (the header comment), and the dirty slabs
 * that waited long enough are purged.
 */
void slab_arena_put(void *p, unsigned shift)
{
	uintptr_t sz = (uintptr_t)1 << shift, mem = (uintptr_t)p;
	const uintptr_t pg = (uintptr_t)1 << SLAB_MIN_SHIFT;
	sp_track_defined(p, sz);	/* zero again (now or when taken), as a fresh slab */
	/* Under ASan the arena is a LeakSanitizer root: a dirty slab is cleared at once, so the
	 * pointers its freed objects held hide no leak. */
	if (sz == pg || SP_HAVE_ASAN)
		memset(p, 0, sz);
	pthread_mutex_lock(&arena_lock);
	memset(slab_page_shift + ((mem - slab_arena_base) >> SLAB_MIN_SHIFT), 0,
	       sz >> SLAB_MIN_SHIFT);
	if (sz == pg) {
		clean_push(mem, shift);
	} else {
		struct dirty *d = p;
		uint64_t now = slab_coarse_ms();
		d->cache = 0;
		d->next = dirty_head[shift];
		d->prev = 0;
		d->put_ms = now;
		if (d->next)
			((struct dirty *)d->next)->prev = mem;
		else
			dirty_tail[shift] = mem;
		dirty_head[shift] = mem;
		dirty_bytes += sz;
		dirty_purge(now, 0, 0);
	}
	pthread_mutex_unlock(&arena_lock);
}
