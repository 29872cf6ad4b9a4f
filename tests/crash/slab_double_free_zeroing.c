/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slab_double_free_zeroing.c - a double free under init_on_free, which the free fast path's cold
 * branch handles inline (slab_free_zero_fast): the object is FREE_ZERO there, and the state
 * check must still find it.
 */
#include "crash_slab.h"

int main(void)
{
	sp_slab_set_init_on_free(1);
	struct sp_slab_cache *c = crash_cache("dfz", 64, 0);
	void *a = sp_slab_cache_alloc(c), *b = sp_slab_cache_alloc(c);
	sp_slab_cache_free(c, a);
	sp_slab_cache_free(c, b);
	sp_slab_cache_free(c, a);
	return 0;
}
