/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slab.h - kernel-style object caches and kmalloc-style size classes.
 *
 * A cache hands out fixed-size objects carved from slabs.  Per-thread arrays of free objects make
 * alloc+free lock-free in the common case (the old SLAB's array_cache, 6.18's sheaves); a free
 * from another thread lands in the freeing thread's array and reaches the owning slab in a batch.
 * Process-wide init policy mirrors the kernel's init_on_alloc / init_on_free boot parameters;
 * per-cache flags opt out (beyond mainline, see docs/slab-and-measurement).
 * Detected corruption (double free, foreign pointer, write after free) aborts via sp_fatal()
 * with a fixed message ("secpath: slab: double free", ... see secpath-slab(1)).
 *
 * Thread safety: every function may be called from any thread.  A cache must not be used while
 * (or after) it is destroyed.  Objects may be freed by any thread.  Build with
 * -DSP_CONFIG_PASSTHROUGH=1 to make every object its own malloc (for ASan/valgrind on callers;
 * the hardening checks are then glibc's).
 */
#ifndef SECPATH_SLAB_H
#define SECPATH_SLAB_H

#include "secpath.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_slab_cache;

/* Cache flags. */
#define SP_SLAB_HWCACHE_ALIGN     (1u << 0)  /* align objects to cache lines (calculate_alignment rule) */
#define SP_SLAB_COLOUR            (1u << 1)  /* per-slab colour offset stepping by the alignment */
#define SP_SLAB_TYPESAFE_BY_RCU   (1u << 2)  /* slab memory reused only as the same type; free ptr outside */
#define SP_SLAB_POISON            (1u << 3)  /* fill free objects with 0x6b, allocated with 0x5a, check */
#define SP_SLAB_RED_ZONE          (1u << 4)  /* guard bytes after each object, checked on free */
#define SP_SLAB_NO_INIT_ON_ALLOC  (1u << 5)  /* opt this cache out of init_on_alloc */
#define SP_SLAB_NO_INIT_ON_FREE   (1u << 6)  /* opt this cache out of init_on_free */
#define SP_SLAB_KMALLOC           (1u << 7)  /* natural alignment to the object size (kmalloc classes) */
#define SP_SLAB_VERIFY_ON_ALLOC   (1u << 8)  /* with init_on_free: check a slot is still zero on reuse */

/* Per-cache statistics (a snapshot). */
struct sp_slab_stats {
	const char *name;
	size_t object_size;	/* caller's size */
	size_t stride;		/* bytes between objects */
	size_t align;		/* effective alignment */
	size_t slab_size;	/* bytes per slab */
	size_t objs_per_slab;
	size_t colours;		/* number of colours cycled (1 = no colouring) */
	size_t colour_off;	/* bytes per colour step */
	size_t nr_slabs;
	size_t nr_objects;	/* capacity: nr_slabs * objs_per_slab */
	size_t nr_active;	/* allocated objects */
	size_t bytes;		/* bytes of slab memory held */
	uint64_t allocs, frees;	/* other live threads' frees count once they flush (or exit) */
	unsigned flags;
	int init_on_alloc, init_on_free;	/* effective for this cache */
	/* Layout detail (added after the fields above; their meaning is unchanged). */
	size_t freeptr_offset;	/* free pointer offset; >= object_size means outside the object */
	size_t left_over;	/* bytes per slab unused at colour 0 (the colour room) */
	size_t l1d_sets;	/* distinct L1D sets (of 64) the objects' first lines reach */
};

/*
 * Create a cache.  size 1..65536; align 0 or a power of two <= 4096; ctor runs once per object
 * when a slab is populated (and exempts the cache from init_on_*).  Returns 0, -EINVAL (NULL
 * name or out, bad size/align, unknown flag), -ENOMEM (no arena, or 127 caches already live).
 * Caches are never merged.  The name is copied (up to 31 bytes).
 */
SP_API int sp_slab_cache_create(const char *name, size_t size, size_t align, unsigned flags,
				void (*ctor)(void *obj), struct sp_slab_cache **out);
SP_API void *sp_slab_cache_alloc(struct sp_slab_cache *c);
/* Allocate a zeroed object (kmem_cache_zalloc / __GFP_ZERO). */
SP_API void *sp_slab_cache_zalloc(struct sp_slab_cache *c);
SP_API void sp_slab_cache_free(struct sp_slab_cache *c, void *obj);
/*
 * Destroy: 0, or -EBUSY when objects are still allocated; the cache is then left intact (its
 * objects stay valid and may still be freed; destroy may be retried), i.e. leaked if the caller
 * gives up.  Other threads' cached free objects of a destroyed cache are dropped lazily.
 */
SP_API int sp_slab_cache_destroy(struct sp_slab_cache *c);
SP_API void sp_slab_cache_stats(const struct sp_slab_cache *c, struct sp_slab_stats *st);
/* Return the thread's cached objects to their slabs (called automatically at thread exit). */
SP_API void sp_slab_cache_flush_thread(struct sp_slab_cache *c);
/* An sp_allocator whose alloc/free go to this cache (size must be <= object size). */
SP_API void sp_slab_cache_allocator(struct sp_slab_cache *c, struct sp_allocator *out);

/* Process-wide init policy (the boot parameters).  Environment: SECPATH_INIT_ON_ALLOC=1,
 * SECPATH_INIT_ON_FREE=1 are read once, at first use. */
SP_API void sp_slab_set_init_on_alloc(int on);
SP_API void sp_slab_set_init_on_free(int on);
SP_API int sp_slab_init_on_alloc(void);
SP_API int sp_slab_init_on_free(void);

/*
 * kmalloc-style size classes: 8,16,32,64,96,128,192,256,512,1k,2k,4k,8k, naturally aligned
 * (96 -> 32, 192 -> 64).  sp_kmalloc(0) returns a kmalloc-8 object; sizes above SP_KMALLOC_MAX
 * return NULL.  sp_kfree(NULL) is a no-op; sp_kfree takes any slab object (as kfree does since
 * 6.x) and dies on a pointer that is not one.  The caches are created at first use.
 */
#define SP_KMALLOC_MAX 8192
SP_API void *sp_kmalloc(size_t size);
SP_API void *sp_kzalloc(size_t size);
SP_API void sp_kfree(const void *p);
/* Class size an sp_kmalloc(size) request lands in (0 if too large). */
SP_API size_t sp_kmalloc_size_class(size_t size);
/* Iterate the kmalloc caches for statistics (idx 0..12 = kmalloc-8..kmalloc-8k): NULL past
 * the last. */
SP_API struct sp_slab_cache *sp_kmalloc_cache(unsigned idx);

#ifdef __cplusplus
}
#endif
#endif
