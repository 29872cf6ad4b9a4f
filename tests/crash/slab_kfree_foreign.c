/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_kfree_foreign.c - kfree of a stack address. */
#include "crash_slab.h"

int main(void)
{
	char buf[64];
	void *p = sp_kmalloc(32);
	sp_kfree(p);
	sp_kfree(buf);
	return 0;
}
