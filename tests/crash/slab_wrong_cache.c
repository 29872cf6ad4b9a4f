/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_wrong_cache.c - an object of cache x freed into cache y (same object size). */
#include "crash_slab.h"

int main(void)
{
	struct sp_slab_cache *x = crash_cache("x", 128, 0), *y = crash_cache("y", 128, 0);
	void *p = sp_slab_cache_alloc(x);
	void *q = sp_slab_cache_alloc(y);
	sp_slab_cache_free(y, q);
	sp_slab_cache_free(y, p);
	return 0;
}
