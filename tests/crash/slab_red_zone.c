/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_red_zone.c - a one-byte overflow past a 24-byte object, caught on free. */
#include "crash_slab.h"

int main(void)
{
	struct sp_slab_cache *c = crash_cache("rz", 24, SP_SLAB_RED_ZONE);
	char *p = sp_slab_cache_alloc(c);
	stray_write(p, 24, 0);
	sp_slab_cache_free(c, p);
	return 0;
}
