/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_double_free.c - a double free that is not the list head (beyond the naive check). */
#include "crash_slab.h"

int main(void)
{
	struct sp_slab_cache *c = crash_cache("df", 64, 0);
	void *a = sp_slab_cache_alloc(c), *b = sp_slab_cache_alloc(c);
	sp_slab_cache_free(c, a);
	sp_slab_cache_free(c, b);
	sp_slab_cache_free(c, a);
	return 0;
}
