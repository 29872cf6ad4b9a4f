/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slab_freelist.c - an overwritten (encoded) slab free pointer, caught when the list is next used.
 * The objects are flushed from the thread array to their slab first: only slab freelists carry
 * free pointers (the thread arrays hold them outside the objects).
 */
#include "crash_slab.h"

int main(void)
{
	struct sp_slab_cache *c = crash_cache("fl", 128, 0);
	struct sp_slab_stats st;
	sp_slab_cache_stats(c, &st);
	void *a = sp_slab_cache_alloc(c), *b = sp_slab_cache_alloc(c);
	void *keep = sp_slab_cache_alloc(c);	/* holds the slab of a and b (not released) */
	(void)keep;
	sp_slab_cache_free(c, a);
	sp_slab_cache_free(c, b);
	sp_slab_cache_flush_thread(c);
	stray_xor_word(b, st.freeptr_offset, 0x4141414141414141ull);
	stray_xor_word(a, st.freeptr_offset, 0x4141414141414141ull);
	for (int i = 0; i < 1000; i++)
		(void)sp_slab_cache_alloc(c);
	return 0;
}
