/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * crash_slab.h - shared helpers for the slab crash programs: a stray write that ASan does not
 * instrument, so the allocator's own check (not an ASan report) is what fires under SAN=asan.
 */
#ifndef SP_CRASH_SLAB_H
#define SP_CRASH_SLAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "secpath/slab.h"
#include "base/compiler.h"

static sp_unused __attribute__((no_sanitize_address, noinline)) void
stray_write(void *p, size_t off, uint8_t v)
{
	((volatile uint8_t *)p)[off] = v;
}

static sp_unused __attribute__((no_sanitize_address, noinline)) void
stray_xor_word(void *p, size_t off, uintptr_t v)
{
	*(volatile uintptr_t *)((char *)p + off) ^= v;
}

static sp_unused struct sp_slab_cache *crash_cache(const char *name, size_t size, unsigned flags)
{
	struct sp_slab_cache *c = NULL;
	if (sp_slab_cache_create(name, size, 0, flags, NULL, &c)) {
		fprintf(stderr, "cache create failed\n");
		exit(1);
	}
	return c;
}

#endif
