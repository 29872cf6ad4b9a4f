/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * malloc.c - libsecpath-malloc.so: secpath's slab caches as the process allocator (LD_PRELOAD).
 *
 * Not part of libsecpath (the Makefile leaves src/malloc/ out of the library); mk/malloc.mk
 * builds it together with src/slab/{arena,cache,harden}.c and src/base/base.c, all hidden, so the
 * only exported symbols are the glibc allocation interface below.
 *
 * Sizes.  0..16 KiB go to 51 slab caches ("malloc-16" .. "malloc-16k": steps of 16 up to 128,
 * then eight classes per power of two up to 2 KiB, then the eleven CLASS_HI sizes, each at most
 * 1/4 above the one before), 16-byte aligned, so the slack per object stays under 12.5 % (25 %
 * above 2 KiB; a glibc chunk pays 8-16 bytes of header instead).  Every class is a cost in
 * resident memory of its own (its high-water mark of partly used slabs, a thread array, its slab
 * headers), so above 2 KiB the classes are as few as that slack bound allows; 4608 serves
 * "page plus header" blocks (sqlite's page cache entries are 4104 and 4368 bytes) and 4096 page
 * buffers.  Classes above 1 KiB are multiples of 128: one table lookup maps a size to its
 * class.  A class of BORROW_MIN bytes or more whose thread array and slab freelists hold no freed
 * object takes one of the next two classes' freed objects (slack up to ~56 %) before it touches
 * a fresh slot (slab_alloc_slow's borrow): the classes' high-water marks then share pages much
 * as a coalescing heap's free chunks would.  Classes stop at 16 KiB: a bigger class keeps a few
 * big freed blocks per thread that no other class can use, where the large path's cache shares
 * them.  Aligned requests (memalign & co) with an alignment of 32..4096 take a power-of-two
 * class cache with natural alignment ("malloc-a64" ...) when the size fits 4 KiB.  Everything
 * else is "large": its own mmap, page aligned, with a PROT_NONE guard page after it, registered
 * in an open-addressing table (so a free of anything else dies with a fixed message); up to
 * LARGE_CACHE_MAX freed mappings of <= 4 MiB are kept for reuse (the oldest leave first), the
 * rest munmap'd at once.  Of the cached blocks, the most recently freed ones up to a budget keep
 * their pages; older ones are MADV_DONTNEED'd.  The budget starts at LARGE_HOT_BYTES and grows
 * while such blocks are often wanted again (large_alloc); blocks freed within LARGE_HOT_MS keep
 * their pages beyond it, up to LARGE_HOT_BURST (large_hot_over).
 *
 * Hardening: the slab part's (double free, foreign / interior / wrong-cache free, encoded slab
 * free pointers), SECPATH_INIT_ON_ALLOC=1 / SECPATH_INIT_ON_FREE=1 (the kernel's rules, large
 * blocks included: init_on_free clears a block that stays resident, its resident pages only
 * (large_zero_resident), and drops the pages of the others), SECPATH_MALLOC_VERIFY=1
 * (zero-on-free plus the write-after-free check on reuse), SECPATH_MALLOC_NO_INIT=SIZE[,SIZE..]
 * (per-class opt-out, beyond mainline; sizes above SMALL_MAX name large blocks requested with
 * that size, rounded up to pages), SECPATH_MALLOC_STATS=1 (per-class statistics to stderr at
 * exit, with each class's resident bytes from mincore).  Messages: "secpath: slab: ..." for
 * slab objects, "secpath: malloc: ..." for the rest.
 *
 * Early calls.  The first malloc initialises under init_lock; a call made by that same thread
 * while it initialises (pthread_atfork, getenv, ... in libc) is served from a static bump area
 * that is never reused (free of such a pointer is a no-op, realloc copies it out).
 *
 * fork: the slab part holds its locks across fork (pthread_atfork); this file adds the large
 * table's lock.  Threads: per-thread arrays of the slab part, flushed at thread exit.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "slab/slab_fast.h"

#define EXPORT __attribute__((visibility("default")))
#define PAGE 4096ul
#ifndef SMALL_SHIFT
#define SMALL_SHIFT 14
#endif
#define SMALL_MAX (1ul << SMALL_SHIFT)	/* largest slab class */
#ifndef CLASS_COARSE
#define CLASS_COARSE 2048u		/* up to here 8 classes per power of two; then CLASS_HI */
#endif
/* CLASS_HI: each at most 1/4 above the one before (slack <= 25 %), multiples of 128 */
#ifndef CLASS_HI
#define CLASS_HI 2560, 3072, 3840, 4096, 4608, 5760, 7168, 8960, 11136, 13824, 16384
#endif
/* at most: 16 .. 128 by 16, then 8 per power of two */
#define NCLASS (8 + 8 * (SMALL_SHIFT - 7))
#define NALIGN 8			/* aligned classes 32 .. 4096 */
#define BOOT_SIZE (256u << 10)
#define LARGE_CACHE_MAX 32
#define LARGE_CACHE_BYTES (4ul << 20)	/* largest mapping kept for reuse */
#define LARGE_HOT_MAX (256ul << 10)	/* kept with its pages up to this size ... */
#ifndef LARGE_HOT_BYTES
#define LARGE_HOT_BYTES (192ul << 10)	/* ... and this total at first; the rest MADV_DONTNEED */
#endif
#ifndef LARGE_HOT_GROW_MAX
#define LARGE_HOT_GROW_MAX (4ul << 20)	/* the total grows on refaults (large_alloc) up to this */
#endif
#define LARGE_REFAULT_RATIO 8		/* ... when 1 in this many large frees refaults */
#define LARGE_HOT_MS SLAB_ARENA_PURGE_MS	/* blocks freed this recently stay hot ... */
#define LARGE_HOT_BURST (4ul << 20)	/* ... beyond the budget, up to this total */
#define LARGE_NOINIT_MAX 8		/* large sizes SECPATH_MALLOC_NO_INIT may name */
#define LARGE_DENSE_AFTER 4		/* sparse hot frees before a block is cleared whole */
#define LARGE_EVICT_MAX 8		/* hot blocks one free may demote */
#define BORROW_MIN 256u			/* classes from this size borrow (see Sizes above) */
#define TC_BYTES 8192u			/* a class's thread array holds this many bytes ... */
#define TC_MIN 4u			/* ... in at least this many entries (struct slab_geom) */

#define MSG_FOREIGN "malloc: free of foreign pointer"
#define MSG_INIT "malloc: initialisation failed"

/* The classes above CLASS_COARSE: few, each shared by many sizes (see the header comment). */
static const uint32_t class_hi[] = { CLASS_HI };
static struct sp_slab_cache *class_cache[NCLASS];
static uint32_t class_size[NCLASS];
static uint32_t nclass;			/* classes in use (<= NCLASS) */
static uint8_t class_small[65];		/* (size + 15) / 16 -> class, size <= 1024 */
static uint8_t class_big[SMALL_MAX >> 7];	/* (size - 1) / 128 -> class, 1024 < size */
static struct sp_slab_cache *align_cache[NALIGN];
static char class_name[NCLASS + NALIGN][16];
static int malloc_ready;
static int malloc_stats_on;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int in_init __attribute__((tls_model("initial-exec")));

static _Alignas(64) char boot_area[BOOT_SIZE];
static size_t boot_used;

/* ---- bootstrap area ----------------------------------------------------------------------- */

static void *boot_alloc(size_t size, size_t align)
{
	if (align < 16)
		align = 16;
	for (;;) {
		size_t old = __atomic_load_n(&boot_used, __ATOMIC_RELAXED);
		size_t start = SP_ALIGN_UP(old + 16, align);
		if (start + size > BOOT_SIZE || start + size < start)
			return NULL;
		if (__atomic_compare_exchange_n(&boot_used, &old, start + size, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			*(size_t *)(boot_area + start - 16) = size;
			return boot_area + start;	/* static storage: zero, never reused */
		}
	}
}

static int is_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot_area < BOOT_SIZE;
}

/* ---- large blocks ------------------------------------------------------------------------- */

struct large {
	uintptr_t ptr;			/* user pointer (page aligned); 0 empty, 1 tombstone */
	size_t usable;			/* bytes up to the guard page */
	int dense;			/* sparse frees so far; LARGE_DENSE_AFTER: dense (below) */
	int noinit;			/* asked with an opted-out size (SECPATH_MALLOC_NO_INIT) */
};

static pthread_mutex_t large_lock = PTHREAD_MUTEX_INITIALIZER;
static struct large *large_tab;
static size_t large_cap, large_used, large_live;	/* used counts tombstones */
static struct {
	uintptr_t ptr;
	size_t usable;
	int zero;			/* known zero (MADV_DONTNEED'd or init_on_free cleared) */
	int hot;			/* pages resident: counted in large_hot_bytes */
	int dense;			/* as in struct large (hot blocks only) */
	int demoted;			/* lost its pages to the hot budget, not for its size */
	uint64_t seq;			/* free order: the oldest leave first */
	uint64_t freed_ms;		/* slab_coarse_ms() when it was freed */
} large_cache[LARGE_CACHE_MAX];
static uint64_t large_seq;
static unsigned large_ncache;
static size_t large_hot_bytes;		/* cached bytes whose pages are still resident */
static size_t large_hot_budget = LARGE_HOT_BYTES;	/* their limit (grows, never shrinks) */
static uint64_t large_refaults;		/* demoted blocks allocated again */
static size_t large_noinit[LARGE_NOINIT_MAX];	/* opted-out block sizes (page multiples) */
static uint64_t large_allocs, large_frees, large_bytes, large_peak;
static uint64_t large_cleared;		/* bytes init_on_free cleared (stats) */

/* Is a large request of this (page-rounded) size opted out of init_on_alloc / init_on_free?
 * Asked at allocation (the block handed out may be a bigger cached one) and kept with it. */
static int large_opted_out(size_t usable)
{
	for (unsigned i = 0; i < LARGE_NOINIT_MAX && large_noinit[i]; i++)
		if (large_noinit[i] == usable)
			return 1;
	return 0;
}

static size_t large_hash(uintptr_t p, size_t cap)
{
	return (size_t)((p >> 12) * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
}

/* Insert p (under large_lock); returns -1 when the table cannot grow. */
static int large_insert(uintptr_t p, size_t usable, int dense, int noinit)
{
	if ((large_used + 1) * 2 > large_cap) {
		size_t ncap = large_cap ? large_cap * 2 : 1024;
		if (large_live * 4 < large_cap)
			ncap = large_cap;	/* mostly tombstones: rehash in place size */
		struct large *nt = mmap(NULL, ncap * sizeof(*nt), PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (nt == MAP_FAILED)
			return -1;
		for (size_t i = 0; i < large_cap; i++) {
			if (large_tab[i].ptr <= 1)
				continue;
			size_t h = large_hash(large_tab[i].ptr, ncap);
			while (nt[h].ptr)
				h = (h + 1) & (ncap - 1);
			nt[h] = large_tab[i];
		}
		if (large_tab)
			munmap(large_tab, large_cap * sizeof(*large_tab));
		large_tab = nt;
		large_cap = ncap;
		large_used = large_live;
	}
	size_t h = large_hash(p, large_cap);
	while (large_tab[h].ptr > 1)
		h = (h + 1) & (large_cap - 1);
	if (!large_tab[h].ptr)
		large_used++;
	large_tab[h].ptr = p;
	large_tab[h].usable = usable;
	large_tab[h].dense = dense;
	large_tab[h].noinit = noinit;
	large_live++;
	return 0;
}

static struct large *large_find(uintptr_t p)
{
	if (!large_cap)
		return NULL;
	size_t h = large_hash(p, large_cap);
	while (large_tab[h].ptr) {
		if (large_tab[h].ptr == p)
			return &large_tab[h];
		h = (h + 1) & (large_cap - 1);
	}
	return NULL;
}

/* Take large_lock and return p's entry; a pointer this allocator did not map is fatal. */
static struct large *large_lock_find(uintptr_t p)
{
	pthread_mutex_lock(&large_lock);
	struct large *l = large_find(p);
	if (!l) {
		pthread_mutex_unlock(&large_lock);
		sp_fatal(MSG_FOREIGN);
	}
	return l;
}

static void large_unmap(uintptr_t p, size_t usable) { munmap((void *)p, usable + PAGE); }

static void *large_alloc(size_t size, size_t align, int zero)
{
	if (size > PTRDIFF_MAX - 2 * PAGE - align) {
		errno = ENOMEM;
		return NULL;
	}
	size_t usable = SP_ALIGN_UP(size ? size : 1, PAGE);
	uintptr_t p = 0;
	int known_zero = 1, dense = 0, noinit = large_opted_out(usable);
	pthread_mutex_lock(&large_lock);
	if (align <= PAGE) {	/* best fit among the cached mappings */
		unsigned best = LARGE_CACHE_MAX;
		for (unsigned i = 0; i < large_ncache; i++)
			if (large_cache[i].usable >= usable && large_cache[i].usable / 2 < usable &&
			    (best == LARGE_CACHE_MAX ||
			     large_cache[i].usable < large_cache[best].usable))
				best = i;
		if (best != LARGE_CACHE_MAX) {
			p = large_cache[best].ptr;
			usable = large_cache[best].usable;
			known_zero = large_cache[best].zero;
			dense = large_cache[best].dense;
			if (large_cache[best].hot)
				large_hot_bytes -= usable;
			/* A block the budget took the pages of is wanted again, a fault per page.
			 * When that happens for more than 1 in LARGE_REFAULT_RATIO large frees,
			 * the working set of large blocks is bigger than the budget: grow it by
			 * the block (glibc raises its mmap threshold on a like signal).  Below
			 * the ratio a bigger budget would cost peak RSS for little time. */
			if (large_cache[best].demoted &&
			    ++large_refaults * LARGE_REFAULT_RATIO > large_frees &&
			    large_hot_budget < LARGE_HOT_GROW_MAX)
				large_hot_budget += usable;
			large_cache[best] = large_cache[--large_ncache];
		}
	}
	pthread_mutex_unlock(&large_lock);
	if (!p) {
		size_t extra = align > PAGE ? align : 0;
		size_t len = usable + PAGE + extra;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);
		if (m == MAP_FAILED) {
			errno = ENOMEM;
			return NULL;
		}
		uintptr_t base = (uintptr_t)m;
		p = align > PAGE ? SP_ALIGN_UP(base, (uintptr_t)align) : base;
		if (p > base)
			munmap(m, p - base);
		uintptr_t end = p + usable + PAGE;
		if (base + len > end)
			munmap((void *)end, base + len - end);
		mprotect((void *)(p + usable), PAGE, PROT_NONE);	/* guard page */
	}
	pthread_mutex_lock(&large_lock);
	int err = large_insert(p, usable, dense, noinit);
	if (!err) {
		large_allocs++;
		large_bytes += usable;
		if (large_bytes > large_peak)
			large_peak = large_bytes;
	}
	pthread_mutex_unlock(&large_lock);
	if (err) {
		large_unmap(p, usable);
		errno = ENOMEM;
		return NULL;
	}
	if ((zero || ((slab_policy_get() & SLAB_INIT_ALLOC) && !noinit)) && !known_zero)
		memset((void *)p, 0, usable);
	return (void *)p;
}

/*
 * init_on_free for a block that stays hot: zero it without faulting in pages the program never
 * touched.  Resident pages (mincore) are cleared with memset, cheaper than re-faulting them on
 * reuse; runs of non-resident pages get MADV_DONTNEED, which leaves them zero whether they were
 * never touched or swapped out.  A page swapped out between the two calls is still cleared: the
 * memset faults it back in.  A block found all resident is "dense": it stays so (memset keeps
 * its pages), so its next frees skip the syscalls, which cost more than clearing a few pages
 * (a program freeing one buffer thousands of times, as git its zlib window, would pay a mincore
 * each time).  A block found sparse at LARGE_DENSE_AFTER frees is a buffer the program keeps
 * reusing: it turns dense too, its untouched pages faulted in once by the memset (the hot budget
 * already counts them), instead of a mincore and a madvise at each free.  Without mincore the
 * whole block is cleared.  dense counts the sparse frees so far, LARGE_DENSE_AFTER meaning
 * dense; returns its new value.
 */
static int large_zero_resident(uintptr_t p, size_t usable, int dense)
{
	unsigned char vec[LARGE_HOT_MAX / PAGE];
	size_t n = usable / PAGE;
	if (dense >= LARGE_DENSE_AFTER || n > sizeof(vec) || mincore((void *)p, usable, vec)) {
		memset((void *)p, 0, usable);
		return LARGE_DENSE_AFTER;
	}
	int all = 1;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int res = vec[i] & 1;
		while (j < n && (vec[j] & 1) == res)
			j++;
		if (res) {
			memset((void *)(p + i * PAGE), 0, (j - i) * PAGE);
		} else {
			madvise((void *)(p + i * PAGE), (j - i) * PAGE, MADV_DONTNEED);
			all = 0;
		}
		i = j;
	}
	return all ? LARGE_DENSE_AFTER : dense + 1;
}

/* Index of the oldest cached block (hot ones only if hot_only), or LARGE_CACHE_MAX. */
static unsigned large_cache_oldest(int hot_only)
{
	unsigned v = LARGE_CACHE_MAX;
	for (unsigned i = 0; i < large_ncache; i++)
		if ((!hot_only || large_cache[i].hot) &&
		    (v == LARGE_CACHE_MAX || large_cache[i].seq < large_cache[v].seq))
			v = i;
	return v;
}

/*
 * Cache a freed block (under large_lock).  A full cache gives up its oldest block for it: that
 * block (the new one, if it is the oldest) goes to *out_p / *out_u to be unmapped, and 1 is
 * returned; 0 when nothing leaves.
 */
static unsigned large_cache_put(uintptr_t p, size_t usable, int zero, int hot, int dense,
				int demoted, uint64_t seq, uint64_t freed_ms, uintptr_t *out_p,
				size_t *out_u)
{
	unsigned i = large_ncache, left = 0;
	if (i == LARGE_CACHE_MAX) {
		i = large_cache_oldest(0);
		if (large_cache[i].seq > seq) {	/* the new block is the oldest: drop it */
			*out_p = p;
			*out_u = usable;
			if (hot)
				large_hot_bytes -= usable;
			return 1;
		}
		*out_p = large_cache[i].ptr;
		*out_u = large_cache[i].usable;
		left = 1;
		if (large_cache[i].hot)
			large_hot_bytes -= large_cache[i].usable;
	} else {
		large_ncache++;
	}
	large_cache[i].ptr = p;
	large_cache[i].usable = usable;
	large_cache[i].zero = zero;
	large_cache[i].hot = hot;
	large_cache[i].dense = dense;
	large_cache[i].demoted = demoted;
	large_cache[i].seq = seq;
	large_cache[i].freed_ms = freed_ms;
	return left;
}

/* Would the hot blocks exceed their limit with add bytes more?  The limit is the budget, or
 * LARGE_HOT_BURST while the oldest hot block was freed less than LARGE_HOT_MS ago: a program
 * that frees its large blocks and takes them back soon after (cc1 between two functions) keeps
 * their pages, and blocks left longer fall back to the budget.  Under large_lock. */
static int large_hot_over(size_t add, uint64_t now)
{
	if (large_hot_bytes + add <= large_hot_budget)
		return 0;
	if (large_hot_bytes + add > LARGE_HOT_BURST)
		return 1;
	unsigned v = large_cache_oldest(1);
	return v != LARGE_CACHE_MAX && now - large_cache[v].freed_ms >= LARGE_HOT_MS;
}

/*
 * Free a large block.  Blocks up to LARGE_HOT_MAX stay resident in the cache, the most recently
 * freed first: when the hot blocks' limit would be exceeded (large_hot_over: the budget, more
 * for blocks freed within LARGE_HOT_MS), the oldest hot blocks leave the cache, lose their pages
 * (MADV_DONTNEED, outside the lock) and come back as cold (zero) blocks.  A program reusing one
 * buffer size (git's 32 KiB zlib window) keeps it hot whatever else it freed before, and stale
 * blocks stop holding pages.
 */
static sp_noinline void large_free(void *ptr)
{
	uintptr_t p = (uintptr_t)ptr;
	uint64_t now = slab_coarse_ms();
	struct { uintptr_t ptr; size_t usable; uint64_t seq; } cold[LARGE_EVICT_MAX];
	struct { uintptr_t ptr; size_t usable; } out[LARGE_EVICT_MAX + 1];	/* to unmap */
	unsigned ncold = 0, nout = 0;
	struct large *l = large_lock_find(p);
	size_t usable = l->usable;
	int dense = l->dense, noinit = l->noinit;
	l->ptr = 1;
	large_live--;
	large_frees++;
	large_bytes -= usable;
	uint64_t seq = ++large_seq;
	int keep = usable <= LARGE_CACHE_BYTES;
	/* Resident reuse only for small blocks (glibc keeps those in its heap too); the pages of
	 * bigger ones go back to the system at once, as glibc's munmap does. */
	int hot = keep && usable <= LARGE_HOT_MAX;
	while (hot && large_hot_over(usable, now) && ncold < LARGE_EVICT_MAX) {
		unsigned v = large_cache_oldest(1);
		if (v == LARGE_CACHE_MAX)
			break;
		cold[ncold].ptr = large_cache[v].ptr;
		cold[ncold].usable = large_cache[v].usable;
		cold[ncold++].seq = large_cache[v].seq;
		large_hot_bytes -= large_cache[v].usable;
		large_cache[v] = large_cache[--large_ncache];
	}
	if (hot && large_hot_over(usable, now))
		hot = 0;
	if (hot)
		large_hot_bytes += usable;	/* reserved now, under the lock */
	pthread_mutex_unlock(&large_lock);
	for (unsigned i = 0; i < ncold; i++)
		madvise((void *)cold[i].ptr, cold[i].usable, MADV_DONTNEED);
	int zero = !hot;
	if (!keep) {
		large_unmap(p, usable);
		p = 0;
	} else if (!hot) {	/* a big block: the pages read as zero from now on */
		madvise(ptr, usable, MADV_DONTNEED);
		dense = 0;
	} else if ((slab_policy_get() & SLAB_INIT_FREE) && !noinit) {
		dense = large_zero_resident(p, usable, dense);	/* init_on_free */
		zero = 1;
		if (malloc_stats_on)	/* resident pages or not: the block's bytes */
			__atomic_fetch_add(&large_cleared, usable, __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&large_lock);	/* the demoted blocks come back cold (zero) */
	for (unsigned i = 0; i < ncold; i++)
		nout += large_cache_put(cold[i].ptr, cold[i].usable, 1, 0, 0, 1, cold[i].seq, 0,
					&out[nout].ptr, &out[nout].usable);
	if (p)
		nout += large_cache_put(p, usable, zero, hot, dense,
					!hot && usable <= LARGE_HOT_MAX, seq, now, &out[nout].ptr,
					&out[nout].usable);
	pthread_mutex_unlock(&large_lock);
	for (unsigned i = 0; i < nout; i++)
		large_unmap(out[i].ptr, out[i].usable);
}

static size_t large_usable(const void *ptr)
{
	pthread_mutex_lock(&large_lock);
	struct large *l = large_find((uintptr_t)ptr);
	size_t u = l ? l->usable : 0;
	pthread_mutex_unlock(&large_lock);
	if (!l)
		sp_fatal(MSG_FOREIGN);
	return u;
}

/*
 * Grow or shrink a large block with mremap (no copy, no second copy alive: what glibc does for
 * its mmapped chunks).  The block is moved without its guard page, which is re-made at the new
 * end.  Returns NULL when mremap fails (the caller copies).
 */
static void *large_remap(void *ptr, size_t size)
{
	uintptr_t p = (uintptr_t)ptr;
	size_t nu = SP_ALIGN_UP(size, PAGE);
	struct large *l = large_lock_find(p);
	size_t usable = l->usable;
	int noinit = l->noinit;
	/* Take it out of the table while it moves (a concurrent free of it is a caller bug). */
	l->ptr = 1;
	large_live--;
	pthread_mutex_unlock(&large_lock);
	void *q = mremap(ptr, usable, nu + PAGE, MREMAP_MAYMOVE);
	uintptr_t np = q == MAP_FAILED ? p : (uintptr_t)q;
	if (q != MAP_FAILED) {
		if (np != p || nu + PAGE < usable)
			munmap((void *)(p + usable), PAGE);	/* the old guard page */
		mprotect((void *)(np + nu), PAGE, PROT_NONE);
		noinit = large_opted_out(nu);	/* the new size's, as a new request's */
	} else {
		nu = usable;
	}
	pthread_mutex_lock(&large_lock);
	int err = large_insert(np, nu, 0, noinit);
	if (!err) {
		large_bytes = large_bytes - usable + nu;
		if (large_bytes > large_peak)
			large_peak = large_bytes;
	}
	pthread_mutex_unlock(&large_lock);
	if (err)
		sp_fatal(MSG_INIT);
	return q == MAP_FAILED ? NULL : (void *)np;
}

static void large_fork_prepare(void) { pthread_mutex_lock(&large_lock); }
static void large_fork_release(void) { pthread_mutex_unlock(&large_lock); }

/* ---- classes and initialisation ----------------------------------------------------------- */

static int env_on(const char *name)
{
	const char *v = getenv(name);
	return v && v[0] == '1' && v[1] == 0;
}

/* The next size of a SECPATH_MALLOC_NO_INIT list ("64,malloc-7k,32768"); 0 at its end. */
static unsigned long optout_next(const char **list)
{
	const char *l = *list;
	unsigned long v = 0;
	while (*l && !v) {
		if (!strncmp(l, "malloc-", 7))
			l += 7;
		v = strtoul(l, (char **)&l, 10);
		if (*l == 'k') {
			v *= 1024;
			l++;
		}
		while (*l && *l != ',')
			l++;
		if (*l == ',')
			l++;
	}
	*list = l;
	return v;
}

/* Is class size sz opted out? */
static int class_opted_out(const char *list, uint32_t sz)
{
	unsigned long v;
	while (list && (v = optout_next(&list)))
		if (v == sz)
			return 1;
	return 0;
}

static void name_class(char *buf, const char *pfx, uint32_t sz)
{
	if (sz >= 1024 && sz % 1024 == 0)
		snprintf(buf, 16, "%s%uk", pfx, sz / 1024);
	else
		snprintf(buf, 16, "%s%u", pfx, sz);
}

static void malloc_print_stats(void);

static int malloc_do_init(void)
{
	const char *optout = getenv("SECPATH_MALLOC_NO_INIT");
	unsigned extra = 0, nl = 0;
	for (const char *l = optout; l && nl < LARGE_NOINIT_MAX;) {
		unsigned long v = optout_next(&l);
		if (!v)
			break;
		if (v > SMALL_MAX && v <= PTRDIFF_MAX / 2)	/* no wrap when rounded up */
			large_noinit[nl++] = SP_ALIGN_UP(v, PAGE);
	}
	if (env_on("SECPATH_MALLOC_VERIFY")) {
		extra = SP_SLAB_VERIFY_ON_ALLOC;
		sp_slab_set_init_on_free(1);
	}
	malloc_stats_on = env_on("SECPATH_MALLOC_STATS");
	uint32_t n = 0;
	for (uint32_t sz = 16; sz <= 128; sz += 16)
		class_size[n++] = sz;
	for (uint32_t base = 128; base < CLASS_COARSE; base *= 2)	/* 128 .. CLASS_COARSE */
		for (uint32_t k = 1; k <= 8; k++)
			class_size[n++] = base + k * (base / 8);
	for (uint32_t k = 0; k < sizeof(class_hi) / sizeof(class_hi[0]); k++)
		class_size[n++] = class_hi[k];
	SP_ASSERT(n <= NCLASS && class_size[n - 1] == SMALL_MAX);
	nclass = n;
	/* A class of BORROW_MIN bytes or more whose freed objects are all in use takes a free one
	 * of the next two classes (slack <= 56 %) before it touches a fresh slot: the per-class
	 * high-water marks of big blocks then share pages, as one coalescing heap's would.  The
	 * classes are created from the biggest down, so the one a class borrows from exists. */
	const struct slab_geom lean = { .tc_bytes = TC_BYTES, .tc_min = TC_MIN };
	for (uint32_t i = nclass; i-- > 0;) {
		struct slab_geom g = lean;
		unsigned fl = extra;
		if (class_opted_out(optout, class_size[i]))
			fl |= SP_SLAB_NO_INIT_ON_ALLOC | SP_SLAB_NO_INIT_ON_FREE;
		if (i + 1 < nclass && class_size[i] >= BORROW_MIN)
			g.borrow = class_cache[i + 1];
		name_class(class_name[i], "malloc-", class_size[i]);
		if (slab_cache_create_ex(class_name[i], class_size[i], 16, fl, NULL, &g,
					 &class_cache[i]))
			return -1;
	}
	for (uint32_t s = 0, i = 0; s <= 1024; s += 16) {
		while (class_size[i] < (s ? s : 1))
			i++;
		class_small[s / 16] = (uint8_t)i;
	}
	for (uint32_t j = 1024 >> 7, i = 0; j < SMALL_MAX >> 7; j++) {	/* sizes up to (j+1)*128 */
		while (class_size[i] < (j + 1) * 128)
			i++;
		class_big[j] = (uint8_t)i;
	}
	for (uint32_t a = 0; a < NALIGN; a++) {
		uint32_t sz = 32u << a;
		name_class(class_name[NCLASS + a], "malloc-a", sz);
		if (slab_cache_create_ex(class_name[NCLASS + a], sz, 0, SP_SLAB_KMALLOC | extra,
					 NULL, &lean, &align_cache[a]))
			return -1;
	}
	pthread_atfork(large_fork_prepare, large_fork_release, large_fork_release);
	if (malloc_stats_on)
		atexit(malloc_print_stats);
	return 0;
}

/* Returns 1 when the caller must use the bootstrap area (recursion during init). */
static sp_noinline int malloc_init(void)
{
	if (in_init)
		return 1;
	pthread_mutex_lock(&init_lock);
	if (!__atomic_load_n(&malloc_ready, __ATOMIC_ACQUIRE)) {
		in_init = 1;
		if (malloc_do_init())
			sp_fatal(MSG_INIT);
		in_init = 0;
		__atomic_store_n(&malloc_ready, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&init_lock);
	return 0;
}

static sp_always_inline uint32_t size_class(size_t size)
{
	if (size <= 1024)
		return class_small[(size + 15) >> 4];
	return class_big[(size - 1) >> 7];	/* classes above 1 KiB are multiples of 128 */
}

/* ---- the interface ------------------------------------------------------------------------ */

static sp_always_inline void *alloc_small_or_large(size_t size, int zero)
{
	if (unlikely(!__atomic_load_n(&malloc_ready, __ATOMIC_ACQUIRE)) && malloc_init())
		return boot_alloc(size, 16);
	if (likely(size <= SMALL_MAX)) {
		void *p = slab_alloc_fast(class_cache[size_class(size)], zero);
		if (unlikely(!p))
			errno = ENOMEM;
		return p;
	}
	return large_alloc(size, PAGE, zero);
}

static sp_always_inline struct sp_slab_cache *arena_cache(uintptr_t a)
{
	unsigned shift = slab_page_shift[(a - slab_arena_base) >> SLAB_MIN_SHIFT];
	if (unlikely(!shift))
		sp_fatal(SLAB_MSG_FOREIGN);
	struct sp_slab_cache *c = ((struct slab *)(a & -((uintptr_t)1 << shift)))->cache;
	if (unlikely(!c))
		sp_fatal(SLAB_MSG_FOREIGN);
	return c;
}

EXPORT void *malloc(size_t size) { return alloc_small_or_large(size, 0); }

EXPORT void free(void *p)
{
	uintptr_t a = (uintptr_t)p;
	if (likely(slab_in_arena(a))) {
		slab_free_fast(arena_cache(a), p);
		return;
	}
	if (!p || is_boot(p))
		return;
	large_free(p);
}

EXPORT void cfree(void *p);
EXPORT void cfree(void *p) { free(p); }

EXPORT void *calloc(size_t n, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return alloc_small_or_large(total, 1);
}

EXPORT size_t malloc_usable_size(void *p)
{
	uintptr_t a = (uintptr_t)p;
	if (!p)
		return 0;
	if (slab_in_arena(a))
		return arena_cache(a)->object_size;
	if (is_boot(p))
		return *(size_t *)((char *)p - 16);
	return large_usable(p);
}

EXPORT void *realloc(void *p, size_t size)
{
	if (!p)
		return malloc(size);
	if (!size) {
		free(p);
		return NULL;
	}
	size_t old = malloc_usable_size(p);
	/* Keep the block while the new size still fits and wastes at most half of it. */
	if (size <= old && (size > old / 2 || old <= 16) && !is_boot(p))
		return p;
	if (old > SMALL_MAX && size > SMALL_MAX && !slab_in_arena((uintptr_t)p) && !is_boot(p)) {
		void *q = large_remap(p, size);
		if (q)
			return q;
	}
	void *q = malloc(size);
	if (!q)
		return NULL;
	memcpy(q, p, old < size ? old : size);
	free(p);
	return q;
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;
	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

static void *aligned(size_t align, size_t size)
{
	if (align <= 16)
		return malloc(size);
	if (unlikely(!__atomic_load_n(&malloc_ready, __ATOMIC_ACQUIRE)) && malloc_init())
		return boot_alloc(size, align);
	if (align <= PAGE && size <= PAGE) {
		size_t s = size < align ? align : size;
		unsigned k = s <= 32 ? 0 : 64u - (unsigned)__builtin_clzll(s - 1) - 5;
		void *p = slab_alloc_fast(align_cache[k], 0);
		if (!p)
			errno = ENOMEM;
		return p;
	}
	return large_alloc(size, align, 0);
}

EXPORT void *memalign(size_t align, size_t size)
{
	if (align & (align - 1)) {	/* glibc rounds a non-power of two up */
		size_t a = 1;
		while (a < align && a)
			a <<= 1;
		if (!a) {
			errno = EINVAL;
			return NULL;
		}
		align = a;
	}
	return aligned(align, size);
}

EXPORT void *aligned_alloc(size_t align, size_t size) { return memalign(align, size); }

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	int saved = errno;
	void *p = aligned(align, size);
	if (!p)
		return ENOMEM;
	errno = saved;
	*out = p;
	return 0;
}

EXPORT void *valloc(size_t size) { return aligned(PAGE, size); }

EXPORT void *pvalloc(size_t size)
{
	size_t r = SP_ALIGN_UP(size ? size : 1, PAGE);
	if (r < size) {
		errno = ENOMEM;
		return NULL;
	}
	return aligned(PAGE, r);
}

/* ---- glibc extras: what is supported (docs/MALLOC.md) --------------------------------------- */

/* Return the calling thread's cached objects of every class to their slabs (NULL caches, before
 * initialisation, are skipped by the flush). */
static void flush_thread_classes(void)
{
	for (uint32_t i = 0; i < NCLASS + NALIGN; i++)
		sp_slab_cache_flush_thread(i < NCLASS ? class_cache[i] : align_cache[i - NCLASS]);
}

/* Returns the calling thread's cached objects to their slabs; empty slabs beyond the two a cache
 * keeps go to the arena by that flush, the arena's pooled slabs give their pages back
 * (MADV_DONTNEED), and the large-block cache is unmapped. */
EXPORT int malloc_trim(size_t pad)
{
	(void)pad;
	if (!__atomic_load_n(&malloc_ready, __ATOMIC_ACQUIRE))
		return 0;
	flush_thread_classes();
	slab_arena_purge();
	pthread_mutex_lock(&large_lock);
	unsigned n = large_ncache;
	large_ncache = 0;
	large_hot_bytes = 0;
	pthread_mutex_unlock(&large_lock);
	for (unsigned i = 0; i < n; i++)
		large_unmap(large_cache[i].ptr, large_cache[i].usable);
	return 1;
}

/* No tunables: every mallopt parameter is refused (returns 0, as glibc does for bad ones). */
EXPORT int mallopt(int param, int value)
{
	(void)param;
	(void)value;
	return 0;
}

static void totals(size_t *slab_bytes, size_t *active_bytes)
{
	struct sp_slab_stats st;
	*slab_bytes = *active_bytes = 0;
	for (uint32_t i = 0; i < NCLASS + NALIGN; i++) {
		struct sp_slab_cache *c = i < NCLASS ? class_cache[i] : align_cache[i - NCLASS];
		if (!c)
			continue;
		sp_slab_cache_stats(c, &st);
		*slab_bytes += st.bytes;
		*active_bytes += st.nr_active * st.object_size;
	}
}

EXPORT struct mallinfo2 mallinfo2(void)
{
	struct mallinfo2 mi;
	size_t sb, ab;
	memset(&mi, 0, sizeof(mi));
	if (!__atomic_load_n(&malloc_ready, __ATOMIC_ACQUIRE))
		return mi;
	totals(&sb, &ab);
	pthread_mutex_lock(&large_lock);
	mi.hblks = large_live;
	mi.hblkhd = large_bytes;
	pthread_mutex_unlock(&large_lock);
	mi.arena = sb;
	mi.uordblks = ab;
	mi.fordblks = sb - ab;
	return mi;
}

EXPORT struct mallinfo mallinfo(void)
{
	struct mallinfo2 m2 = mallinfo2();
	struct mallinfo mi;
	memset(&mi, 0, sizeof(mi));
	mi.arena = (int)m2.arena;
	mi.hblks = (int)m2.hblks;
	mi.hblkhd = (int)m2.hblkhd;
	mi.uordblks = (int)m2.uordblks;
	mi.fordblks = (int)m2.fordblks;
	return mi;
}

EXPORT int malloc_info(int options, FILE *fp)
{
	if (options) {
		errno = EINVAL;
		return -1;
	}
	struct mallinfo2 m = mallinfo2();
	fprintf(fp, "<malloc version=\"secpath-1\">\n<total type=\"slab\" size=\"%zu\"/>\n"
		    "<total type=\"active\" size=\"%zu\"/>\n<total type=\"mmap\" count=\"%zu\" "
		    "size=\"%zu\"/>\n</malloc>\n", m.arena, m.uordblks, m.hblks, m.hblkhd);
	return 0;
}

/* Resident bytes of c's slabs (mincore over each slab on its lists), for the statistics. */
static size_t class_resident(struct sp_slab_cache *c)
{
	static unsigned char vec[(1u << SLAB_MAX_SHIFT) / PAGE];
	size_t res = 0, len = (size_t)1 << c->slab_shift;
	struct sp_list *heads[2] = { &c->partial, &c->full }, *pos;
	pthread_mutex_lock(&c->lock);
	for (unsigned h = 0; h < 2; h++) {
		sp_list_for_each(pos, heads[h]) {
			struct slab *s = sp_list_entry(pos, struct slab, node);
			if (mincore(s, len, vec))
				continue;
			for (size_t i = 0; i < len / PAGE; i++)
				res += (vec[i] & 1) * PAGE;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return res;
}

/* Write a formatted line to stderr, cut (with its newline kept) if it does not fit. */
static void stats_write(char *buf, size_t size, int n)
{
	if (n < 0)
		return;
	if ((size_t)n >= size) {
		n = (int)size - 1;
		buf[n - 1] = '\n';
	}
	if (write(2, buf, (size_t)n) < 0)
		return;	/* nothing to do about it */
}

static void malloc_print_stats(void)
{
	char buf[320];
	struct sp_slab_stats st;
	size_t res_total = 0;
	uint64_t cleared_total = 0;
	flush_thread_classes();	/* this thread's frees into the counts */
	stats_write(buf, sizeof(buf),
		    snprintf(buf, sizeof(buf),
			     "secpath-malloc: %-14s %12s %12s %8s %12s %12s %14s\n", "class",
			     "allocs", "frees", "slabs", "bytes", "resident", "freed-cleared"));
	for (uint32_t i = 0; i < NCLASS + NALIGN; i++) {
		struct sp_slab_cache *c = i < NCLASS ? class_cache[i] : align_cache[i - NCLASS];
		if (!c)
			continue;
		sp_slab_cache_stats(c, &st);
		if (!st.allocs && !st.nr_slabs)
			continue;
		size_t res = class_resident(c);
		/* init_on_free clears object_size bytes at every free of a cache it covers */
		uint64_t cleared = st.init_on_free ? st.frees * st.object_size : 0;
		res_total += res;
		cleared_total += cleared;
		stats_write(buf, sizeof(buf),
			    snprintf(buf, sizeof(buf),
				     "secpath-malloc: %-14s %12llu %12llu %8zu %12zu %12zu %14llu\n",
				     st.name, (unsigned long long)st.allocs,
				     (unsigned long long)st.frees, st.nr_slabs, st.bytes, res,
				     (unsigned long long)cleared));
	}
	int n = snprintf(buf, sizeof(buf),
		     "secpath-malloc: slabs resident %zu bytes; large %llu allocs %llu frees, live %zu "
		     "peak %llu bytes, cached %u (%zu resident, budget %zu); init_on_alloc %d "
		     "init_on_free %d; freed bytes cleared: slabs %llu, large %llu\n",
		     res_total, (unsigned long long)large_allocs, (unsigned long long)large_frees,
		     large_bytes, (unsigned long long)large_peak, large_ncache, large_hot_bytes,
		     large_hot_budget, sp_slab_init_on_alloc(), sp_slab_init_on_free(),
		     (unsigned long long)cleared_total, (unsigned long long)large_cleared);
	stats_write(buf, sizeof(buf), n);
}

EXPORT void malloc_stats(void) { malloc_print_stats(); }
