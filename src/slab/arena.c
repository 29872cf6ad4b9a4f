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
 * Under ASan the used part of the arena is a LeakSanitizer root region (see arena_lsan_cover).
 *
 * Invariants: a slab handed out is zero-filled (fresh pages, or MADV_DONTNEED on release); the
 * arena's first byte is a slab header, never an object (free lists use it as terminator); slab
 * memory is never unmapped, only released to the pool when its cache is destroyed.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

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

void *slab_arena_get(unsigned shift)
{
	uintptr_t sz = (uintptr_t)1 << shift, mem;
	pthread_mutex_lock(&arena_lock);
	mem = arena_pool[shift];
	if (mem) {
		arena_pool[shift] = *(uintptr_t *)(mem + 8);
		*(uintptr_t *)(mem + 8) = 0;
	} else {
		mem = SP_ALIGN_UP(arena_bump, sz);
		if (mem + sz > slab_arena_base + slab_arena_size) {
			pthread_mutex_unlock(&arena_lock);
			return NULL;
		}
		arena_bump = mem + sz;
		arena_lsan_cover();
	}
	memset(slab_page_shift + ((mem - slab_arena_base) >> SLAB_MIN_SHIFT), (int)shift,
	       sz >> SLAB_MIN_SHIFT);
	pthread_mutex_unlock(&arena_lock);
	return (void *)mem;
}

void slab_arena_fork_lock(void) { pthread_mutex_lock(&arena_lock); }
void slab_arena_fork_unlock(void) { pthread_mutex_unlock(&arena_lock); }

/*
 * Release a slab to the pool.  Its pages go back to the system except the first, which holds
 * the pool link: that page is cleared by hand instead (MADV_DONTNEED and then the link store
 * would fault a fresh page in at once; the next user of the slab writes its header there
 * anyway).
 */
void slab_arena_put(void *p, unsigned shift)
{
	uintptr_t sz = (uintptr_t)1 << shift, mem = (uintptr_t)p;
	const uintptr_t pg = (uintptr_t)1 << SLAB_MIN_SHIFT;
	sp_track_defined(p, sz);	/* zero again, as a fresh slab */
	memset(p, 0, pg);
	if (sz > pg)
		madvise((void *)(mem + pg), sz - pg, MADV_DONTNEED);
	pthread_mutex_lock(&arena_lock);
	memset(slab_page_shift + ((mem - slab_arena_base) >> SLAB_MIN_SHIFT), 0,
	       sz >> SLAB_MIN_SHIFT);
	*(uintptr_t *)(mem + 8) = arena_pool[shift];
	arena_pool[shift] = mem;
	pthread_mutex_unlock(&arena_lock);
}
