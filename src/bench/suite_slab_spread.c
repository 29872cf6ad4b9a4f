/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_slab_spread.c - the `slab-spread` bench suite: the audit-filter seed experiment in
 * miniature (docs/slab-and-measurement.md 3a).  How a cache lays out a list that is walked on
 * every syscall decides whether its hot lines fit the L1.
 *
 * N objects shaped like the kernel's struct audit_entry (408 B: list head at 0 with the next
 * pointer first, a 64 x 32-bit syscall mask at 48..303) are allocated consecutively from one
 * cache (like loading a rule file), then linked in a shuffled order so no prefetcher can follow
 * a stride.  One op is one filter pass for syscall 257 (openat): per entry it reads two hot lines,
 * the next pointer (offset 0) and mask word 8 (offset 80).  Each entry audits 6 random syscalls,
 * never 257, so a pass touches only the hot lines.
 * Variants: kmalloc-512 (sp_kzalloc(408): stride 512, 8 L1 sets per field; the baseline), an
 * HWCACHE_ALIGN cache (stride 448) and an HWCACHE_ALIGN|COLOUR cache.  With a 48 KiB 12-way L1
 * at N=200, kmalloc-512's 400 hot lines compete for 8 sets (96 lines): nearly every read of a
 * pass misses; a cache that spreads over the 64 sets (768 lines) keeps them all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/bench.h"
#include "secpath/slab.h"
#include "base/compiler.h"
#include "bench/suites.h"

#define NR_OPENAT 257

struct entry {
	struct entry *next, *prev;	/* list head: next pointer first */
	uint64_t rcu[2];		/* 16: rcu head */
	uint32_t flags, listnr, action, field_count;	/* 32 */
	uint32_t mask[64];		/* 48..303: syscall bitmap */
	uint8_t rest[408 - 304];	/* the other krule fields */
};
_Static_assert(sizeof(struct entry) == 408, "audit_entry shape");
_Static_assert(offsetof(struct entry, mask) == 48, "mask at 48");

enum spread_layout { L_KMALLOC, L_HWCACHE, L_COLOUR };

struct spread_state {
	enum spread_layout layout;
	struct sp_slab_cache *cache;
	size_t n;
	struct entry **obj;		/* allocation order */
	struct entry *head;		/* shuffled list */
	volatile uint64_t sink;
};

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void teardown(void *state)
{
	struct spread_state *s = state;
	for (size_t i = 0; i < s->n && s->obj; i++) {
		if (!s->obj[i])
			continue;
		if (s->cache)
			sp_slab_cache_free(s->cache, s->obj[i]);
		else
			sp_kfree(s->obj[i]);
	}
	if (s->cache)
		sp_slab_cache_destroy(s->cache);
	free(s->obj);
	free(s);
}

static int setup_layout(const void *param, void **state, enum spread_layout layout)
{
	size_t n = *(const size_t *)param;
	struct spread_state *s = calloc(1, sizeof(*s));
	size_t *perm = calloc(n, sizeof(*perm));
	int rc = -ENOMEM;

	if (!s || !perm)
		goto fail;
	s->layout = layout;
	s->n = n;
	s->obj = calloc(n, sizeof(*s->obj));
	if (!s->obj)
		goto fail;
	if (layout != L_KMALLOC) {
		unsigned flags = SP_SLAB_HWCACHE_ALIGN | (layout == L_COLOUR ? SP_SLAB_COLOUR : 0);
		rc = sp_slab_cache_create(layout == L_COLOUR ? "audit_entry-colour" : "audit_entry",
					  sizeof(struct entry), 0, flags, NULL, &s->cache);
		if (rc)
			goto fail;
		rc = -ENOMEM;
	}
	/* Consecutive allocations from the one cache, like a rule file being loaded. */
	for (size_t i = 0; i < n; i++) {
		s->obj[i] = s->cache ? sp_slab_cache_zalloc(s->cache)
				     : sp_kzalloc(sizeof(struct entry));
		if (!s->obj[i])
			goto fail;
	}
	/* The same rules and the same shuffle for every layout (fixed seed). */
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < n; i++) {
		struct entry *e = s->obj[i];
		for (int k = 0; k < 6; k++) {
			unsigned nr;
			do
				nr = (unsigned)(rng_next(&seed) % 2048);
			while (nr == NR_OPENAT);
			e->mask[nr / 32] |= 1u << (nr % 32);
		}
		perm[i] = i;
	}
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(rng_next(&seed) % i), t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (size_t i = 0; i < n; i++) {
		struct entry *e = s->obj[perm[i]];
		e->next = i + 1 < n ? s->obj[perm[i + 1]] : NULL;
		e->prev = i ? s->obj[perm[i - 1]] : NULL;
	}
	s->head = s->obj[perm[0]];
	free(perm);
	*state = s;
	return 0;
fail:
	free(perm);
	if (s)
		teardown(s);
	return rc;
}

static int setup_kmalloc(const void *p, void **st) { return setup_layout(p, st, L_KMALLOC); }
static int setup_hwcache(const void *p, void **st) { return setup_layout(p, st, L_HWCACHE); }
static int setup_colour(const void *p, void **st) { return setup_layout(p, st, L_COLOUR); }

/* One filter pass: the audit exit-list walk for one syscall. */
static sp_noinline unsigned filter_pass(const struct entry *e, unsigned nr)
{
	unsigned hits = 0, word = nr / 32;
	uint32_t bit = 1u << (nr % 32);
	for (; e; e = e->next)
		hits += (e->mask[word] & bit) != 0;
	return hits;
}

static void run(void *state, uint64_t n)
{
	struct spread_state *s = state;
	unsigned hits = 0;
	for (uint64_t i = 0; i < n; i++)
		hits += filter_pass(s->head, NR_OPENAT);
	s->sink = hits;
}

static const size_t n50 = 50, n100 = 100, n200 = 200, n400 = 400;

static const struct sp_bench_case cases[] = {
	{ "N=50", &n50, SP_BENCH_CASE_FULL_ONLY },
	{ "N=100", &n100, 0 },
	{ "N=200", &n200, 0 },
	{ "N=400", &n400, SP_BENCH_CASE_FULL_ONLY },
};

static const struct sp_bench_variant variants[] = {
	{ "kmalloc-512", setup_kmalloc, run, teardown },
	{ "hwcache", setup_hwcache, run, teardown },
	{ "colour", setup_colour, run, teardown },
};

/* The context's per-op figures and docs/DESIGN.md's (both with a 48 KiB 12-way L1).  A cache
 * spread over all sets has (next to) no misses: no mark, a log axis has no room for zero. */
static const struct sp_bench_ref refs[] = {
	{ "N=200", SP_BENCH_REF_NS, 0, 951, "doc 3a: kmalloc-512" },
	{ "N=200", SP_BENCH_REF_NS, 0, 275, "doc 3a: a 448 B stride over all sets" },
	{ "N=200", SP_BENCH_REF_NS, 0, 733, "DESIGN.md: kmalloc-512" },
	{ "N=200", SP_BENCH_REF_NS, 0, 199, "DESIGN.md: HWCACHE and COLOUR caches" },
	{ "N=200", SP_BENCH_REF_D1, 0, 400, "doc 3a and DESIGN.md: kmalloc-512" },
	{ NULL, 0, 0, 0, NULL },
};

const struct sp_bench_suite bench_suite_slab_spread = {
	.name = "slab-spread",
	.desc = "walk N 408 B audit_entry-shaped objects (2 hot lines each) in shuffled order",
	.unit = "pass",
	.cases = cases,
	.ncases = SP_ARRAY_SIZE(cases),
	.variants = variants,
	.nvariants = SP_ARRAY_SIZE(variants),
	.context = "doc 3a (this CPU, 48 KiB 12-way L1): at N=200 kmalloc-512 951 ns and 400 D1 "
		   "misses per pass, a 448 B stride spread over all sets 275 ns and 0 misses; "
		   "run with --cachegrind for the exact misses",
	.refs = refs,
};
