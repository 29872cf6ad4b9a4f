/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slab_alias_free.c - free of a pointer outside the arena that aliases a live object of the same
 * cache: the free fast path maps every address into the size-aligned arena by masking
 * ((p & (arena size - 1)) | base), so p ^ 2^46 (64 TiB away, far beyond any arena, still a user
 * address) lands on the very slab header and state byte of p.  It must still be refused as
 * foreign (not freed, not taken for p's double free), and p itself stays allocated and freeable.
 */
#include "crash_slab.h"

int main(void)
{
	struct sp_slab_cache *c = crash_cache("alias", 64, 0);
	void *warm = sp_slab_cache_alloc(c);
	sp_slab_cache_free(c, warm);		/* the thread array now exists */
	void *p = sp_slab_cache_alloc(c);
	sp_slab_cache_free(c, (void *)((uintptr_t)p ^ ((uintptr_t)1 << 46)));
	return 0;
}
