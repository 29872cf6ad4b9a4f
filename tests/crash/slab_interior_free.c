/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_interior_free.c - free of a pointer into the middle of a live object. */
#include "crash_slab.h"

int main(void)
{
	struct sp_slab_cache *c = crash_cache("interior", 96, 0);
	char *p = sp_slab_cache_alloc(c);
	sp_slab_cache_free(c, p + 8);
	return 0;
}
