/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_write_after_free.c - init_on_free + VERIFY_ON_ALLOC catch a write to a freed object. */
#include "crash_slab.h"

int main(void)
{
	sp_slab_set_init_on_free(1);
	struct sp_slab_cache *c = crash_cache("waf", 256, SP_SLAB_VERIFY_ON_ALLOC);
	char *p = sp_slab_cache_alloc(c);
	sp_slab_cache_free(c, p);
	stray_write(p, 17, 0x41);
	void *q = sp_slab_cache_alloc(c);
	(void)q;
	return 0;
}
