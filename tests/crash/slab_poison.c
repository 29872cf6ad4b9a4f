/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_poison.c - SLAB_POISON: a write into a freed object, caught when it is handed out again. */
#include "crash_slab.h"

int main(void)
{
	struct sp_slab_cache *c = crash_cache("poison", 100, SP_SLAB_POISON);
	char *p = sp_slab_cache_alloc(c);
	sp_slab_cache_free(c, p);
	stray_write(p, 3, 0);
	void *q = sp_slab_cache_alloc(c);
	(void)q;
	return 0;
}
