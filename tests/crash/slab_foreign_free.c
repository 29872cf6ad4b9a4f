/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_foreign_free.c - free of a pointer the allocator never handed out (a malloc block). */
#include "crash_slab.h"

int main(void)
{
	struct sp_slab_cache *c = crash_cache("foreign", 64, 0);
	void *m = malloc(64);
	void *ok = sp_slab_cache_alloc(c);
	sp_slab_cache_free(c, ok);
	sp_slab_cache_free(c, m);
	return 0;
}
