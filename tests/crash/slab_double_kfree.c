/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* slab_double_kfree.c - kfree twice in a row (the kernel's naive object == next case). */
#include "crash_slab.h"

int main(void)
{
	void *p = sp_kmalloc(408);
	sp_kfree(p);
	sp_kfree(p);
	return 0;
}
