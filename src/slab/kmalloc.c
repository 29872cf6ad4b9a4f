/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kmalloc.c - kmalloc-style size classes: 8, 16, 32, 64, 96, 128, 192, 256, 512, 1k, 2k, 4k, 8k.
 *
 * Each class is an SP_SLAB_KMALLOC cache, so objects are naturally aligned (the 5.4 guarantee,
 * widened as in newer kernels: 96 -> 32, 192 -> 64, power-of-two classes to their size).  That
 * reproduces the kernel's pathology on purpose: kzalloc(408) lands in kmalloc-512, and its
 * objects reach only 8 of the 64 L1D sets.  kmalloc caches are never coloured (the baseline).
 * Requests up to 192 bytes go through a size_index table like the kernel's; sizes above
 * SP_KMALLOC_MAX return NULL (the kernel would go to the page allocator).  kmalloc(0) returns a
 * kmalloc-8 object (malloc semantics, not ZERO_SIZE_PTR).  Under ASan only the requested bytes
 * are unpoisoned (as KASAN does for kmalloc).  The caches are created on first use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "slab/slab_fast.h"

#define KMALLOC_CLASSES 13

static const uint16_t kmalloc_size[KMALLOC_CLASSES] = { 8,   16,  32,   64,   96,   128, 192,
							 256, 512, 1024, 2048, 4096, 8192 };
/* kmalloc_index_small[(size - 1) / 8] -> class for size 1..192 (the kernel's size_index[]). */
static const uint8_t kmalloc_index_small[24] = { 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
						  5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6 };
static struct sp_slab_cache *kmalloc_caches[KMALLOC_CLASSES];
static char kmalloc_names[KMALLOC_CLASSES][16];
static pthread_once_t kmalloc_once = PTHREAD_ONCE_INIT;
static int kmalloc_ready;

static void kmalloc_init(void)
{
	for (unsigned k = 0; k < KMALLOC_CLASSES; k++) {
		if (kmalloc_size[k] >= 1024)
			snprintf(kmalloc_names[k], sizeof(kmalloc_names[k]), "kmalloc-%uk",
				 kmalloc_size[k] / 1024u);
		else
			snprintf(kmalloc_names[k], sizeof(kmalloc_names[k]), "kmalloc-%u",
				 kmalloc_size[k]);
		if (sp_slab_cache_create(kmalloc_names[k], kmalloc_size[k], 0, SP_SLAB_KMALLOC,
					 NULL, &kmalloc_caches[k]))
			return;
	}
	__atomic_store_n(&kmalloc_ready, 1, __ATOMIC_RELEASE);
}

static sp_always_inline int kmalloc_class(size_t size)
{
	if (size <= 192)
		return kmalloc_index_small[size ? (size - 1) / 8 : 0];
	if (size > SP_KMALLOC_MAX)
		return -1;
	return 64 - __builtin_clzll(size - 1) - 1;	/* 256 -> 7, 512 -> 8, ... 8192 -> 12 */
}

static sp_noinline int kmalloc_setup(void)
{
	pthread_once(&kmalloc_once, kmalloc_init);
	return __atomic_load_n(&kmalloc_ready, __ATOMIC_ACQUIRE) ? 0 : -ENOMEM;
}

static sp_always_inline void *kmalloc_common(size_t size, int zero)
{
	if (unlikely(!__atomic_load_n(&kmalloc_ready, __ATOMIC_ACQUIRE)) && kmalloc_setup())
		return NULL;
	int k = kmalloc_class(size);
	if (unlikely(k < 0))
		return NULL;
	struct sp_slab_cache *c = kmalloc_caches[k];
	if (SP_CONFIG_PASSTHROUGH) {	/* own malloc, uncounted: sp_kfree cannot tell the class */
		void *q = NULL;
		size_t cs = kmalloc_size[k];
		if (posix_memalign(&q, SP_MAX(cs & -cs, sizeof(void *)), cs))
			return NULL;
		if (zero || (slab_policy_get() & SLAB_INIT_ALLOC))
			memset(q, 0, cs);
		return q;
	}
	void *p = slab_alloc_fast(c, zero);
	if (SP_HAVE_ASAN && !SP_CONFIG_PASSTHROUGH && p)
		sp_track_poison((char *)p + size, c->object_size - size);
	return p;
}

SP_API void *sp_kmalloc(size_t size) { return kmalloc_common(size, 0); }
SP_API void *sp_kzalloc(size_t size) { return kmalloc_common(size, 1); }

SP_API void sp_kfree(const void *p)
{
	if (!p)
		return;
	if (SP_CONFIG_PASSTHROUGH) {
		free((void *)p);
		return;
	}
	struct sp_slab_cache *c = slab_cache_of(p);
	if (unlikely(!c))
		sp_fatal(SLAB_MSG_FOREIGN);
	slab_free_fast(c, (void *)p);
}

SP_API size_t sp_kmalloc_size_class(size_t size)
{
	int k = kmalloc_class(size);
	return k < 0 ? 0 : kmalloc_size[k];
}

SP_API struct sp_slab_cache *sp_kmalloc_cache(unsigned idx)
{
	if (idx >= KMALLOC_CLASSES || kmalloc_setup())
		return NULL;
	return kmalloc_caches[idx];
}
