/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_slab.c - slab caches: API input checks, alignment and layout rules, kmalloc classes,
 * set spread and colour, init_on_alloc/free semantics with exemptions and opt-outs, poison and
 * red zone bytes, the obfuscated free pointer, statistics, destroy, and the consistency walker.
 * Geometry tests are skipped in the passthrough build (every object is its own malloc there).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "secpath/slab.h"
#include "slab/slab_fast.h"

#define SKIP_IF_PASSTHROUGH()                                                                      \
	do {                                                                                       \
		if (SP_CONFIG_PASSTHROUGH)                                                         \
			skip();                                                                    \
	} while (0)

static struct sp_slab_cache *mk(const char *name, size_t size, size_t align, unsigned flags,
				void (*ctor)(void *))
{
	struct sp_slab_cache *c = NULL;
	assert_int_equal(sp_slab_cache_create(name, size, align, flags, ctor, &c), 0);
	assert_non_null(c);
	return c;
}

static struct sp_slab_stats stats(struct sp_slab_cache *c)
{
	struct sp_slab_stats st;
	sp_slab_cache_stats(c, &st);
	return st;
}

/* Read object bytes even where ASan/valgrind have poisoned them (freed objects, red zones). */
static slab_nosan uint8_t peek(const void *p, size_t i)
{
	uintptr_t a = (uintptr_t)p + i;
	return (uint8_t)(slab_word_load(a & ~(uintptr_t)7) >> (a % 8 * 8));
}
static slab_nosan uintptr_t peek_word(const void *p, size_t off)
{
	return slab_word_load((uintptr_t)p + off);
}

/* Old bytes of a reallocated object are "undefined" to valgrind: the tests look on purpose. */
static uint8_t *stale(uint8_t *p, size_t n)
{
	sp_track_defined(p, n);
	return p;
}

static void test_slab__bad_input(void **st)
{
	(void)st;
	struct sp_slab_cache *c = (void *)1;
	assert_int_equal(sp_slab_cache_create(NULL, 8, 0, 0, NULL, &c), -EINVAL);
	assert_null(c);
	assert_int_equal(sp_slab_cache_create("x", 0, 0, 0, NULL, &c), -EINVAL);
	assert_int_equal(sp_slab_cache_create("x", 8, 3, 0, NULL, &c), -EINVAL);
	assert_int_equal(sp_slab_cache_create("x", 8, 8192, 0, NULL, &c), -EINVAL);
	assert_int_equal(sp_slab_cache_create("x", 8, 0, 1u << 30, NULL, &c), -EINVAL);
	assert_int_equal(sp_slab_cache_create("x", 1u << 30, 0, 0, NULL, &c), -EINVAL);
	assert_int_equal(sp_slab_cache_create("x", 8, 0, 0, NULL, NULL), -EINVAL);
	assert_int_equal(sp_slab_cache_destroy(NULL), -EINVAL);
	assert_null(sp_kmalloc(SP_KMALLOC_MAX + 1));
	assert_int_equal(sp_kmalloc_size_class(SP_KMALLOC_MAX + 1), 0);
}

static void test_slab__alignment_rules(void **st)
{
	(void)st;
	static const struct {
		size_t size, align;
		unsigned flags;
		size_t want_align, want_stride;
	} t[] = {
		{24, 0, SP_SLAB_HWCACHE_ALIGN, 32, 32},
		{40, 0, SP_SLAB_HWCACHE_ALIGN, 64, 64},
		{8, 0, SP_SLAB_HWCACHE_ALIGN, 8, 8},
		{408, 0, SP_SLAB_HWCACHE_ALIGN, 64, 448},
		{408, 0, 0, 8, 408},
		{24, 128, SP_SLAB_HWCACHE_ALIGN, 128, 128},
		{100, 16, 0, 16, 112},
		{1, 0, 0, 8, 8},
		{96, 0, SP_SLAB_KMALLOC, 32, 96},
		{192, 0, SP_SLAB_KMALLOC, 64, 192},
		{512, 0, SP_SLAB_KMALLOC, 512, 512},
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(t); i++) {
		struct sp_slab_cache *c = mk("align", t[i].size, t[i].align, t[i].flags, NULL);
		struct sp_slab_stats s = stats(c);
		assert_int_equal(s.align, t[i].want_align);
		assert_int_equal(s.stride, t[i].want_stride);
		assert_int_equal(s.object_size, t[i].size);
		for (int k = 0; k < 50; k++) {
			void *p = sp_slab_cache_alloc(c);
			assert_non_null(p);
			assert_int_equal((uintptr_t)p % t[i].want_align, 0);
			sp_slab_cache_free(c, p);
		}
		assert_int_equal(sp_slab_cache_destroy(c), 0);
	}
}

static void test_slab__freeptr_placement(void **st)
{
	(void)st;
	struct sp_slab_cache *c = mk("mid", 408, 0, SP_SLAB_HWCACHE_ALIGN, NULL);
	assert_int_equal(stats(c).freeptr_offset, 200);	/* ALIGN_DOWN(408 / 2, 8) */
	sp_slab_cache_destroy(c);
	c = mk("rcu", 408, 0, SP_SLAB_HWCACHE_ALIGN | SP_SLAB_TYPESAFE_BY_RCU, NULL);
	assert_true(stats(c).freeptr_offset >= 408);
	sp_slab_cache_destroy(c);
	c = mk("poison", 100, 0, SP_SLAB_POISON, NULL);
	assert_true(stats(c).freeptr_offset >= 100);
	sp_slab_cache_destroy(c);
}

static void test_slab__kmalloc_classes(void **st)
{
	(void)st;
	static const size_t classes[] = {8,   16,  32,	 64,   96,   128, 192,
					 256, 512, 1024, 2048, 4096, 8192};
	for (size_t i = 0; i < SP_ARRAY_SIZE(classes); i++) {
		size_t cs = classes[i], nat = cs & -cs;
		assert_int_equal(sp_kmalloc_size_class(cs), cs);
		assert_int_equal(sp_kmalloc_size_class(cs - (i ? cs - classes[i - 1] - 1 : 7)), cs);
		struct sp_slab_cache *c = sp_kmalloc_cache((unsigned)i);
		assert_non_null(c);
		struct sp_slab_stats s = stats(c);
		assert_int_equal(s.object_size, cs);
		assert_int_equal(s.stride, cs);
		assert_int_equal(s.colours, 1);
		void *p[20];
		for (int k = 0; k < 20; k++) {
			p[k] = sp_kmalloc(cs);
			assert_non_null(p[k]);
			assert_int_equal((uintptr_t)p[k] % nat, 0);
		}
		for (int k = 0; k < 20; k++)
			sp_kfree(p[k]);
	}
	assert_null(sp_kmalloc_cache(13));
	assert_int_equal(sp_kmalloc_size_class(0), 8);
	assert_int_equal(sp_kmalloc_size_class(65), 96);
	assert_int_equal(sp_kmalloc_size_class(97), 128);
	assert_int_equal(sp_kmalloc_size_class(129), 192);
	assert_int_equal(sp_kmalloc_size_class(193), 256);
	assert_int_equal(sp_kmalloc_size_class(408), 512);
	char *z = sp_kzalloc(408);
	assert_non_null(z);
	assert_int_equal((uintptr_t)z % 512, 0);
	for (int i = 0; i < 408; i++)
		assert_int_equal(z[i], 0);
	sp_kfree(z);
	sp_kfree(NULL);
}

static unsigned distinct_sets(void **p, size_t n)
{
	uint64_t seen = 0;
	for (size_t i = 0; i < n; i++)
		seen |= 1ull << (((uintptr_t)p[i] >> 6) & 63);
	return (unsigned)__builtin_popcountll(seen);
}

static void test_slab__set_spread(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	void *p[200];
	struct sp_slab_cache *c = mk("audit_entry", 408, 0, SP_SLAB_HWCACHE_ALIGN, NULL);
	for (int i = 0; i < 200; i++)
		assert_non_null(p[i] = sp_slab_cache_alloc(c));
	assert_int_equal(distinct_sets(p, 200), 64);
	assert_int_equal(stats(c).l1d_sets, 64);
	for (int i = 0; i < 200; i++)
		sp_slab_cache_free(c, p[i]);
	assert_int_equal(sp_slab_cache_destroy(c), 0);

	for (int i = 0; i < 200; i++)
		assert_non_null(p[i] = sp_kzalloc(408));
	assert_int_equal(distinct_sets(p, 200), 8);
	assert_int_equal(stats(sp_kmalloc_cache(8)).l1d_sets, 8);
	for (int i = 0; i < 200; i++)
		sp_kfree(p[i]);

	/* Stride 512 at alignment 64 reaches 8 sets per slab; colour spreads it to all 64. */
	c = mk("col512", 512, 64, SP_SLAB_COLOUR, NULL);
	struct sp_slab_stats s = stats(c);
	assert_int_equal(s.colours >= 8, 1);
	assert_int_equal(s.colour_off, 64);
	for (int i = 0; i < 200; i++)
		assert_non_null(p[i] = sp_slab_cache_alloc(c));
	assert_int_equal(s.l1d_sets, 64);
	assert_true(stats(c).nr_slabs >= 8);
	assert_int_equal(distinct_sets(p, 200), 64);
	for (int i = 0; i < 200; i++)
		sp_slab_cache_free(c, p[i]);
	sp_slab_cache_destroy(c);
}

static void test_slab__colour_offsets_differ(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	struct sp_slab_cache *c = mk("col", 448, 0, SP_SLAB_HWCACHE_ALIGN | SP_SLAB_COLOUR, NULL);
	struct sp_slab_stats s = stats(c);
	assert_true(s.colours >= 7);
	assert_int_equal(s.colour_off, 64);
	size_t nobj = s.objs_per_slab * 3;
	void **p = sp_kmalloc(nobj * sizeof(void *));
	assert_non_null(p);
	uintptr_t mask = ~(uintptr_t)(s.slab_size - 1);
	uintptr_t base[8] = { 0 }, low[8] = { 0 };
	size_t nslab = 0;
	for (size_t i = 0; i < nobj; i++) {
		p[i] = sp_slab_cache_alloc(c);
		assert_non_null(p[i]);
		uintptr_t b = (uintptr_t)p[i] & mask, o = (uintptr_t)p[i] & ~mask;
		size_t k = 0;
		while (k < nslab && base[k] != b)
			k++;
		if (k == nslab) {
			assert_true(nslab < 8);
			base[nslab] = b;
			low[nslab++] = o;
		} else if (o < low[k]) {
			low[k] = o;
		}
	}
	assert_true(nslab >= 3);
	/* object 0 of consecutive slabs sits at offsets differing by the colour step */
	for (size_t k = 1; k < 3; k++) {
		assert_true(low[k] != low[k - 1]);
		assert_int_equal((low[k] - low[0]) % 64, 0);
		assert_true(low[k] - low[0] < s.colours * s.colour_off);
	}
	assert_true(slab_cache_is_valid(c));
	for (size_t i = 0; i < nobj; i++)
		sp_slab_cache_free(c, p[i]);
	sp_kfree(p);
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

static int nonzero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 1;
	return 0;
}

static void ctor_fill(void *p) { memset(p, 0x77, 64); }

/*
 * init_on_alloc and init_on_free clear exactly the object, at every size the clearing code
 * splits on (slab_zero: a memset below 16 bytes and above 128, overlapping 16-byte stores in
 * between, odd sizes included): the reused object comes back zero, and its live neighbours keep
 * every byte.
 */
static void test_slab__init_sizes(void **st)
{
	(void)st;
	static const size_t sizes[] = { 8, 13, 16, 17, 24, 31, 32, 33, 40, 48, 63, 64, 65, 72,
					100, 127, 128, 129, 136, 200, 4096 };
	for (int mode = 0; mode < 2; mode++) {
		sp_slab_set_init_on_alloc(mode == 0);
		sp_slab_set_init_on_free(mode == 1);
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];
			struct sp_slab_cache *c = mk("init-sizes", n, 0, 0, NULL);
			uint8_t *o[8];
			for (int i = 0; i < 8; i++) {
				o[i] = sp_slab_cache_alloc(c);
				assert_non_null(o[i]);
				memset(o[i], 0xa0 + i, n);
			}
			sp_slab_cache_free(c, o[4]);
			uint8_t *q = sp_slab_cache_alloc(c);
			assert_ptr_equal(q, o[4]);	/* LIFO reuse */
			assert_false(nonzero(q, n));
			for (int i = 0; i < 8; i++)
				for (size_t b = 0; i != 4 && b < n; b++)
					assert_int_equal(o[i][b], 0xa0 + i);
			for (int i = 0; i < 8; i++)
				sp_slab_cache_free(c, o[i]);
			sp_slab_cache_destroy(c);
		}
	}
	sp_slab_set_init_on_alloc(0);
	sp_slab_set_init_on_free(0);
}

static void test_slab__init_on_alloc(void **st)
{
	(void)st;
	sp_slab_set_init_on_alloc(1);
	assert_int_equal(sp_slab_init_on_alloc(), 1);
	struct sp_slab_cache *plain = mk("plain", 64, 0, 0, NULL);
	struct sp_slab_cache *optout = mk("optout", 64, 0, SP_SLAB_NO_INIT_ON_ALLOC, NULL);
	struct sp_slab_cache *ctor = mk("ctor", 64, 0, 0, ctor_fill);
	struct sp_slab_cache *rcu = mk("rcu", 64, 0, SP_SLAB_TYPESAFE_BY_RCU, NULL);
	assert_int_equal(stats(plain).init_on_alloc, 1);
	assert_int_equal(stats(optout).init_on_alloc, 0);
	assert_int_equal(stats(ctor).init_on_alloc, 0);
	assert_int_equal(stats(rcu).init_on_alloc, 0);

	uint8_t *p = sp_slab_cache_alloc(plain);
	memset(p, 0xab, 64);
	sp_slab_cache_free(plain, p);
	uint8_t *q = sp_slab_cache_alloc(plain);
	assert_ptr_equal(p, q);		/* LIFO reuse */
	assert_false(nonzero(q, 64));	/* zeroed on alloc */
	sp_slab_cache_free(plain, q);

	p = sp_slab_cache_alloc(optout);
	memset(p, 0xab, 64);
	sp_slab_cache_free(optout, p);
	q = sp_slab_cache_alloc(optout);
	assert_ptr_equal(p, q);
	if (!SP_CONFIG_PASSTHROUGH)
		assert_int_equal(stale(q, 64)[0], 0xab);	/* opted out: old bytes visible */
	sp_slab_cache_free(optout, q);
	q = sp_slab_cache_zalloc(optout);
	assert_false(nonzero(q, 64));	/* zalloc still zeroes */
	sp_slab_cache_free(optout, q);

	p = sp_slab_cache_alloc(ctor);
	assert_int_equal(p[0], 0x77);	/* constructed state kept */
	assert_int_equal(p[63], 0x77);
	sp_slab_cache_free(ctor, p);
	p = sp_slab_cache_zalloc(ctor);
	assert_int_equal(p[0], 0x77); /* slab_want_init_on_alloc: ctor wins even over __GFP_ZERO */
	sp_slab_cache_free(ctor, p);

	p = sp_slab_cache_alloc(rcu);
	memset(p, 0xcd, 64);
	sp_slab_cache_free(rcu, p);
	q = sp_slab_cache_alloc(rcu);
	assert_ptr_equal(p, q);
	if (!SP_CONFIG_PASSTHROUGH)
		/* TYPESAFE_BY_RCU: only zalloc zeroes */
		assert_int_equal(stale(q, 64)[5], 0xcd);
	sp_slab_cache_free(rcu, q);
	q = sp_slab_cache_zalloc(rcu);
	assert_false(nonzero(q, 64));
	sp_slab_cache_free(rcu, q);

	sp_slab_set_init_on_alloc(0);
	assert_int_equal(stats(plain).init_on_alloc, 0);
	p = sp_slab_cache_alloc(plain);
	memset(p, 0xab, 64);
	sp_slab_cache_free(plain, p);
	q = sp_slab_cache_alloc(plain);
	if (!SP_CONFIG_PASSTHROUGH) {
		assert_ptr_equal(p, q);
		assert_int_equal(stale(q, 64)[0], 0xab);	/* policy off: no zeroing */
	}
	sp_slab_cache_free(plain, q);
	assert_int_equal(sp_slab_cache_destroy(plain), 0);
	assert_int_equal(sp_slab_cache_destroy(optout), 0);
	assert_int_equal(sp_slab_cache_destroy(ctor), 0);
	assert_int_equal(sp_slab_cache_destroy(rcu), 0);
}

static void test_slab__init_on_free(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	sp_slab_set_init_on_free(1);
	struct sp_slab_cache *plain = mk("plain", 96, 0, 0, NULL);
	struct sp_slab_cache *optout = mk("optout", 96, 0, SP_SLAB_NO_INIT_ON_FREE, NULL);
	struct sp_slab_cache *rcu = mk("rcu", 96, 0, SP_SLAB_TYPESAFE_BY_RCU, NULL);
	assert_int_equal(stats(plain).init_on_free, 1);
	assert_int_equal(stats(optout).init_on_free, 0);
	assert_int_equal(stats(rcu).init_on_free, 0);
	size_t fp = stats(plain).freeptr_offset;
	assert_int_equal(fp, 48);

	uint8_t *p = sp_slab_cache_alloc(plain);
	memset(p, 0xab, 96);
	sp_slab_cache_free(plain, p);
	/* zeroed on free; in the thread array it carries no free pointer: all zero */
	for (size_t i = 0; i < 96; i++)
		assert_int_equal(peek(p, i), 0);
	uint8_t *q = sp_slab_cache_alloc(plain);
	assert_ptr_equal(p, q);
	assert_false(nonzero(q, 96));
	memset(q, 0xab, 96);
	sp_slab_cache_free(plain, q);
	/* back on its slab it gets a free pointer (in the middle), wiped when it leaves the slab
	 * again (maybe_wipe_obj_freeptr): every object handed out is all zero */
	sp_slab_cache_flush_thread(plain);
	assert_true(peek(p, fp) != 0 || peek(p, fp + 1) != 0 || peek(p, fp + 7) != 0);
	uint8_t *many[300];
	int seen = 0;
	for (int i = 0; i < 300; i++) {
		many[i] = sp_slab_cache_alloc(plain);
		assert_false(nonzero(many[i], 96));
		seen |= many[i] == p;
	}
	assert_true(seen);
	for (int i = 0; i < 300; i++)
		sp_slab_cache_free(plain, many[i]);

	p = sp_slab_cache_alloc(optout);
	memset(p, 0xab, 96);
	sp_slab_cache_free(optout, p);
	assert_int_equal(peek(p, 0), 0xab);
	q = sp_slab_cache_alloc(optout);
	sp_slab_cache_free(optout, q);

	p = sp_slab_cache_alloc(rcu);
	memset(p, 0xab, 96);
	sp_slab_cache_free(rcu, p);
	for (size_t i = 0; i < 96; i++)	/* never zeroed, never poisoned: free pointer outside */
		assert_int_equal(peek(p, i), 0xab);
	q = sp_slab_cache_alloc(rcu);
	sp_slab_cache_free(rcu, q);

	sp_slab_set_init_on_free(0);
	assert_int_equal(sp_slab_init_on_free(), 0);
	assert_int_equal(sp_slab_cache_destroy(plain), 0);
	assert_int_equal(sp_slab_cache_destroy(optout), 0);
	assert_int_equal(sp_slab_cache_destroy(rcu), 0);
}

static void test_slab__poison_and_red_zone_bytes(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	sp_slab_set_init_on_free(1);
	struct sp_slab_cache *c = mk("dbg", 40, 0, SP_SLAB_POISON | SP_SLAB_RED_ZONE, NULL);
	assert_int_equal(stats(c).init_on_free, 0);	/* POISON takes precedence */
	uint8_t *p = sp_slab_cache_alloc(c);
	assert_int_equal(p[0], 0x5a);		/* POISON_INUSE */
	assert_int_equal(p[39], 0x5a);
	assert_int_equal(peek(p, 40), 0xcc);	/* red zone active */
	memset(p, 1, 40);
	sp_slab_cache_free(c, p);
	for (int i = 0; i < 39; i++)
		assert_int_equal(peek(p, (size_t)i), 0x6b);
	assert_int_equal(peek(p, 39), 0xa5);
	assert_int_equal(peek(p, 40), 0xbb);	/* red zone inactive */
	assert_true(slab_cache_is_valid(c));
	sp_slab_set_init_on_free(0);
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

static void test_slab__obfuscated_freeptr(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	struct sp_slab_cache *c = mk("obf", 128, 0, 0, NULL);
	void *a = sp_slab_cache_alloc(c), *b = sp_slab_cache_alloc(c);
	void *keep = sp_slab_cache_alloc(c);	/* keeps the slab of a and b live */
	sp_slab_cache_free(c, a);
	sp_slab_cache_free(c, b);
	/* free pointers live on slab freelists only: flush the thread array (b's next is a) */
	sp_slab_cache_flush_thread(c);
	size_t off = stats(c).freeptr_offset;
	uintptr_t stored = peek_word(b, off);
	assert_true(stored != (uintptr_t)a);
	assert_int_equal(stored ^ c->random ^ __builtin_bswap64((uintptr_t)b + off), (uintptr_t)a);
	assert_true(slab_cache_is_valid(c));
	sp_slab_cache_free(c, keep);
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

/* Kept empty slabs of >= 64 KiB give their pages back and become fresh (zero) slabs. */
static void test_slab__empty_slab_release(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	struct sp_slab_cache *c = mk("release", 8000, 0, 0, NULL);
	assert_true(c->slab_shift >= SLAB_RELEASE_SHIFT);
	void *p[100];
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 100; i++) {
			p[i] = sp_slab_cache_alloc(c);
			assert_false(nonzero(p[i], 8000));	/* fresh, or released and fresh again */
			memset(p[i], 0x5a, 8000);
		}
		for (int i = 0; i < 100; i++)
			sp_slab_cache_free(c, p[i]);
		sp_slab_cache_flush_thread(c);
		assert_true(slab_cache_is_valid(c));
		size_t kept = 0;
		struct sp_list *pos;
		sp_list_for_each(pos, &c->partial) {
			struct slab *s = sp_list_entry(pos, struct slab, node);
			assert_int_equal(s->inuse, 0);
			assert_int_equal(s->released, 1);
			for (uint32_t k = 0; k < c->objs_per_slab; k++)
				assert_int_equal(peek((void *)(s->objs + (uintptr_t)k * c->stride), 4000), 0);
			kept++;
		}
		assert_int_equal(kept, SLAB_KEEP_EMPTY);
		assert_int_equal(stats(c).nr_slabs, SLAB_KEEP_EMPTY);
	}
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

/* Pages of s's objects resident in memory (those past the first page boundary, which a release
 * gives back). */
static size_t resident_pages(struct sp_slab_cache *c, struct slab *s)
{
	uintptr_t pg = (s->objs + 4095) & ~(uintptr_t)4095;
	uintptr_t end = (uintptr_t)s + ((uintptr_t)1 << c->slab_shift);
	unsigned char vec[256];
	size_t n = (end - pg) / 4096, r = 0;
	assert_true(n <= sizeof(vec));
	assert_int_equal(mincore((void *)pg, end - pg, vec), 0);
	for (size_t i = 0; i < n; i++)
		r += vec[i] & 1;
	return r;
}

/* Resident pages of [p, p + len) (page aligned). */
static size_t resident_range(const void *p, size_t len)
{
	unsigned char vec[256];
	size_t n = len / 4096, r = 0;
	assert_true(n <= sizeof(vec));
	assert_int_equal(mincore((void *)p, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		r += vec[i] & 1;
	return r;
}

/*
 * The arena's pool of released slabs >= 8 KiB (arena.c): a released slab keeps its pages and
 * the next request of its size takes it back zero in full; a request that must take memory that
 * may not be resident purges pooled slabs of other sizes first (as many bytes); a slab pooled
 * for SLAB_ARENA_PURGE_MS is purged by the next arena call; slab_arena_purge purges them all.
 */
static void test_slab__arena_dirty_pool(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	const size_t sz = 64 << 10, big = 128 << 10;
	slab_arena_purge();	/* what earlier tests pooled: each request below is this test's */
	unsigned char *a = slab_arena_get(16);
	assert_non_null(a);
	memset(a, 0xa5, sz);
	slab_arena_put(a, 16);
	assert_int_equal(resident_range(a + 4096, sz - 4096), sz / 4096 - 1);	/* kept */
	unsigned char *b = slab_arena_get(16);
	assert_ptr_equal(a, b);	/* the newest of its size */
	assert_false(nonzero(b, sz));

	memset(b, 0x5a, sz);
	slab_arena_put(b, 16);
	unsigned char *c = slab_arena_get(17);	/* none pooled: b purged before it */
	assert_non_null(c);
	assert_int_equal(resident_range(b + 4096, sz - 4096), 0);
	unsigned char *d = slab_arena_get(16);	/* b again, from the clean pool */
	assert_ptr_equal(d, b);
	assert_false(nonzero(d, sz));

	memset(c, 0x11, big);
	slab_arena_put(c, 17);
	struct timespec t = { 0, (SLAB_ARENA_PURGE_MS + 20) * 1000000L };
	nanosleep(&t, NULL);
	memset(d, 0x22, sz);
	slab_arena_put(d, 16);	/* c waited long enough: purged; d is kept */
	assert_int_equal(resident_range(c + 4096, big - 4096), 0);
	assert_int_equal(resident_range(d + 4096, sz - 4096), sz / 4096 - 1);
	slab_arena_purge();
	assert_int_equal(resident_range(d + 4096, sz - 4096), 0);
	unsigned char *e = slab_arena_get(17), *f = slab_arena_get(16);
	assert_ptr_equal(e, c);
	assert_ptr_equal(f, d);
	assert_false(nonzero(e, big));
	assert_false(nonzero(f, sz));
	slab_arena_put(e, 17);
	slab_arena_put(f, 16);
}

static int on_partial(struct sp_slab_cache *c, struct slab *t)
{
	struct sp_list *pos;
	sp_list_for_each(pos, &c->partial)
		if (sp_list_entry(pos, struct slab, node) == t)
			return 1;
	return 0;
}

/*
 * The lazy release rule: a slab emptied by the automatic flushes keeps its pages (the old rule
 * released them at once), and one that then stays empty SLAB_EMPTY_AGE slow-path ticks while the
 * cache keeps working is retired: to the arena, or its pages released (a rule that never released
 * would keep them).  Every aged empty slab left is released, and a cache never holds more than
 * keep_empty empty slabs.
 */
static void test_slab__empty_slab_lazy_release(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	struct sp_slab_cache *c = mk("lazy", 8000, 0, 0, NULL);
	assert_true(c->slab_shift >= SLAB_RELEASE_SHIFT);
	assert_true(c->keep_empty >= SLAB_KEEP_EMPTY && c->keep_empty <= SLAB_KEEP_EMPTY_MAX);
	void *p[64];
	for (int i = 0; i < 64; i++) {
		assert_non_null(p[i] = sp_slab_cache_alloc(c));
		memset(p[i], 0x5a, 8000);
	}
	for (int i = 0; i < 64; i++)
		sp_slab_cache_free(c, p[i]);	/* no explicit flush: the array's own */
	assert_true(slab_cache_is_valid(c));
	struct slab *kept[SLAB_KEEP_EMPTY_MAX];
	size_t nkept = 0;
	struct sp_list *pos;
	sp_list_for_each(pos, &c->partial) {
		struct slab *s = sp_list_entry(pos, struct slab, node);
		if (s->inuse)
			continue;
		assert_int_equal(s->released, 0);
		assert_true(resident_pages(c, s) > 0);	/* kept with its pages */
		assert_true(nkept < SLAB_KEEP_EMPTY_MAX);
		kept[nkept++] = s;
	}
	assert_true(nkept >= 1 && nkept <= c->keep_empty);

	/* Keep the cache busy on a few objects: refills and flushes tick the clock. */
	uint32_t t0 = c->events;
	while (c->events - t0 < 4 * SLAB_EMPTY_AGE) {
		for (int i = 0; i < 20; i++)
			assert_non_null(p[i] = sp_slab_cache_alloc(c));
		for (int i = 0; i < 20; i++)
			sp_slab_cache_free(c, p[i]);
	}
	assert_true(slab_cache_is_valid(c));
	size_t retired = 0;
	for (size_t k = 0; k < nkept; k++)
		retired += !on_partial(c, kept[k]) ||
			   (kept[k]->released && !resident_pages(c, kept[k]));
	assert_true(retired >= 1);
	size_t empty = 0;
	sp_list_for_each(pos, &c->partial) {
		struct slab *s = sp_list_entry(pos, struct slab, node);
		if (s->inuse || !(s->fresh || s->released))
			continue;
		empty++;
		if (c->events - s->empty_at >= SLAB_EMPTY_AGE) {
			assert_int_equal(s->released, 1);
			assert_int_equal(resident_pages(c, s), 0);
		}
	}
	assert_true(empty <= c->keep_empty);
	for (int i = 0; i < 64; i++)	/* the cache still works over retired slabs */
		assert_non_null(p[i] = sp_slab_cache_alloc(c));
	assert_true(slab_cache_is_valid(c));
	for (int i = 0; i < 64; i++)
		sp_slab_cache_free(c, p[i]);
	sp_slab_cache_flush_thread(c);	/* an explicit flush retires every empty slab */
	assert_int_equal(stats(c).nr_slabs, SLAB_KEEP_EMPTY);
	assert_true(slab_cache_is_valid(c));
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

static void test_slab__verify_no_false_positive(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	struct sp_slab_cache *c = mk("verify", 200, 0, SP_SLAB_VERIFY_ON_ALLOC, NULL);
	void *p[600];
	/* freed while init_on_free is off: contents unknown, so never verified */
	for (int i = 0; i < 300; i++)
		memset(p[i] = sp_slab_cache_alloc(c), 0x33, 200);
	for (int i = 0; i < 300; i++)
		sp_slab_cache_free(c, p[i]);
	sp_slab_set_init_on_free(1);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 600; i++) {	/* reused, fresh and zeroed objects mixed */
			p[i] = sp_slab_cache_alloc(c);
			assert_non_null(p[i]);
			memset(p[i], 0x44, 200);
		}
		for (int i = 0; i < 600; i++)
			sp_slab_cache_free(c, p[(i * 7) % 600]);
	}
	sp_slab_set_init_on_free(0);
	assert_true(slab_cache_is_valid(c));
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

static void test_slab__asan_tracking(void **st)
{
	(void)st;
	if (!SP_HAVE_ASAN || SP_CONFIG_PASSTHROUGH)
		skip();
#if SP_HAVE_ASAN
	struct sp_slab_cache *c = mk("asan", 100, 0, SP_SLAB_HWCACHE_ALIGN, NULL);
	char *p = sp_slab_cache_alloc(c);
	assert_false(__asan_address_is_poisoned(p));
	assert_false(__asan_address_is_poisoned(p + 99));
	assert_true(__asan_address_is_poisoned(p + 100));	/* padding up to the stride */
	sp_slab_cache_free(c, p);
	assert_true(__asan_address_is_poisoned(p));
	assert_int_equal(sp_slab_cache_destroy(c), 0);
	/* A malloc block referenced only from a live slab object is not a leak for LSan at exit
	 * (the arena is a root region): the object stays live on purpose. */
	static void **keep;
	keep = sp_kmalloc(64);
	keep[0] = malloc(32);
	memset(keep[0], 1, 32);
	char *k = sp_kmalloc(408);	/* kmalloc: only the requested bytes (as KASAN) */
	assert_false(__asan_address_is_poisoned(k + 407));
	assert_true(__asan_address_is_poisoned(k + 408));
	sp_kfree(k);
	assert_true(__asan_address_is_poisoned(k));
#endif
}

static void test_slab__stats_and_destroy(void **st)
{
	(void)st;
	struct sp_slab_cache *c = mk("stats", 100, 0, SP_SLAB_HWCACHE_ALIGN, NULL);
	struct sp_slab_stats s = stats(c);
	assert_string_equal(s.name, "stats");
	assert_int_equal(s.nr_active, 0);
	void *p[300];
	for (int i = 0; i < 300; i++)
		assert_non_null(p[i] = sp_slab_cache_alloc(c));
	s = stats(c);
	assert_int_equal(s.nr_active, 300);
	assert_int_equal(s.allocs, 300);
	assert_int_equal(s.frees, 0);
	if (!SP_CONFIG_PASSTHROUGH) {
		assert_int_equal(s.nr_objects, s.nr_slabs * s.objs_per_slab);
		assert_true(s.nr_objects >= 300);
		assert_int_equal(s.bytes, s.nr_slabs * s.slab_size);
	}
	for (int i = 0; i < 100; i++)
		sp_slab_cache_free(c, p[i]);
	s = stats(c);
	assert_int_equal(s.nr_active, 200);
	assert_int_equal(s.frees, 100);
	assert_true(slab_cache_is_valid(c));
	assert_int_equal(sp_slab_cache_destroy(c), -EBUSY);
	for (int i = 100; i < 300; i++)
		sp_slab_cache_free(c, p[i]);
	assert_true(slab_cache_is_valid(c));
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

static void test_slab__empty_slabs_released(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	static void *p[5000];
	struct sp_slab_cache *c = mk("shrink", 256, 0, 0, NULL);
	struct sp_slab_cache *r = mk("rcu-keep", 256, 0, SP_SLAB_TYPESAFE_BY_RCU, NULL);
	struct sp_slab_cache *cs[2] = { c, r };
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 5000; i++)
			assert_non_null(p[i] = sp_slab_cache_alloc(cs[k]));
		size_t full = stats(cs[k]).nr_slabs;
		assert_true(full * stats(cs[k]).objs_per_slab >= 5000);
		for (int i = 0; i < 5000; i++)
			sp_slab_cache_free(cs[k], p[i]);
		sp_slab_cache_flush_thread(cs[k]);
		assert_true(slab_cache_is_valid(cs[k]));
		if (k == 0)
			assert_int_equal(stats(c).nr_slabs, SLAB_KEEP_EMPTY);	/* rest released */
		else
			assert_int_equal(stats(r).nr_slabs, full);	/* kept while it lives */
		for (int i = 0; i < 5000; i++)	/* and the cache still works */
			assert_non_null(p[i] = sp_slab_cache_alloc(cs[k]));
		assert_int_equal(stats(cs[k]).nr_active, 5000);
		assert_true(slab_cache_is_valid(cs[k]));
		for (int i = 0; i < 5000; i++)
			sp_slab_cache_free(cs[k], p[i]);
		assert_int_equal(sp_slab_cache_destroy(cs[k]), 0);
	}
}

/*
 * A refill hands its objects out in the order it took them: from a fresh slab, object 0 first
 * and on up by stride (page by page, not batch objects in); a freed object comes back first.
 */
static void test_slab__refill_order(void **st)
{
	(void)st;
	struct sp_slab_cache *c = mk("order", 256, 0, 0, NULL);
	void *p[8];
	for (int i = 0; i < 8; i++) {
		p[i] = sp_slab_cache_alloc(c);
		assert_non_null(p[i]);
		if (i)
			assert_int_equal((uintptr_t)p[i] - (uintptr_t)p[i - 1], 256);
	}
	sp_slab_cache_free(c, p[3]);
	assert_ptr_equal(sp_slab_cache_alloc(c), p[3]);
	for (int i = 0; i < 8; i++)
		sp_slab_cache_free(c, p[i]);
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

static void test_slab__allocator_adapter(void **st)
{
	(void)st;
	struct sp_slab_cache *c = mk("adapter", 48, 16, 0, NULL);
	struct sp_allocator a;
	sp_slab_cache_allocator(c, &a);
	void *p = sp_alloc(&a, 40, 16);
	assert_non_null(p);
	assert_null(sp_alloc(&a, 49, 0));
	assert_null(sp_alloc(&a, 8, 64));
	sp_free(&a, p, 40);
	assert_int_equal(stats(c).nr_active, 0);
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

static void test_slab__many_caches_reuse_ids(void **st)
{
	(void)st;
	for (int round = 0; round < 3; round++) {
		struct sp_slab_cache *cs[100];
		for (int i = 0; i < 100; i++) {
			cs[i] = mk("many", (size_t)(8 + i * 8), 0, 0, NULL);
			void *p = sp_slab_cache_alloc(cs[i]);
			assert_non_null(p);
			sp_slab_cache_free(cs[i], p);	/* leaves an object in this thread's array */
		}
		for (int i = 0; i < 100; i++)
			assert_int_equal(sp_slab_cache_destroy(cs[i]), 0);
	}
}

/*
 * The free fast path's boundary check: slab_obj_index(off) < objs_per_slab exactly for the
 * object starts below span (and then it is off / stride), for every 64-bit off: all offsets up
 * to two strides past span, "negative" ones (a pointer below objs) and pseudo-random words.
 */
static void test_slab__obj_index_exact(void **st)
{
	(void)st;
	static const size_t sizes[] = { 8, 24, 40, 56, 64, 72, 100, 192, 320, 448, 1000, 1024, 3000,
					4096, 12000, 65536 };
	static const size_t aligns[] = { 0, 64 };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t a = 0; a < SP_ARRAY_SIZE(aligns); a++) {
		for (size_t k = 0; k < SP_ARRAY_SIZE(sizes); k++) {
			struct sp_slab_cache *c = mk("index", sizes[k], aligns[a], 0, NULL);
			uint64_t d = c->stride, n = c->objs_per_slab;
			for (uint64_t off = 0; off < c->span + 2 * d; off++) {
				uint64_t i = slab_obj_index(c, off);
				if (off % d == 0 && off < c->span)
					assert_int_equal(i, off / d);
				else
					assert_true(i >= n);
			}
			for (uint64_t j = 1; j < 4096; j++)
				assert_true(slab_obj_index(c, (uint64_t)0 - j) >= n);
			for (int r = 0; r < 100000; r++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				uint64_t i = slab_obj_index(c, x);
				assert_true(i >= n || (x == i * d && i < n));
				/* shifted by the arena alias distance of slab_alias_free */
				assert_true(slab_obj_index(c, (x % c->span) + ((uint64_t)1 << 46)) >= n);
			}
			assert_int_equal(sp_slab_cache_destroy(c), 0);
		}
	}
	/* The arena is aligned to its size: masking maps any address to one of its slabs. */
	assert_int_equal(slab_arena_base & (slab_arena_size - 1), 0);
	assert_int_equal(slab_arena_size & (slab_arena_size - 1), 0);
}

/* The malloc shim's creation parameters (src/malloc/malloc.c: TC_BYTES, TC_MIN). */
static const struct slab_geom lean = { .tc_bytes = 8192, .tc_min = 4 };

static struct sp_slab_cache *mk_geom(const char *name, size_t size, size_t align,
				     const struct slab_geom *g)
{
	struct sp_slab_cache *c = NULL;
	assert_int_equal(slab_cache_create_ex(name, size, align, 0, NULL, g, &c), 0);
	assert_non_null(c);
	return c;
}

/*
 * Thread array bounds: the default follows the stride; a byte bound holds tc_bytes of objects in
 * tc_min .. SLAB_TC_MAX entries.  Only the arrays change: slab size, objects per slab and colour
 * are those of the public create.  An out-of-range tc_min is refused.
 */
static void test_slab__geom_thread_array_sizes(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	static const struct {
		size_t size;
		uint32_t dflt, lean;
	} t[] = {
		{ 16, 256, 256 },  { 32, 256, 256 },   { 48, 256, 170 }, { 64, 256, 128 },
		{ 256, 256, 32 },  { 384, 128, 21 },   { 1024, 128, 8 }, { 1152, 64, 7 },
		{ 2048, 64, 4 },   { 4608, 16, 4 },    { 16384, 16, 4 }, { 65536, 4, 4 },
	};
	for (size_t k = 0; k < SP_ARRAY_SIZE(t); k++) {
		struct sp_slab_cache *d = mk("dflt", t[k].size, 16, 0, NULL);
		struct sp_slab_cache *c = mk_geom("lean", t[k].size, 16, &lean);
		assert_int_equal(d->tc_limit, t[k].dflt);
		assert_int_equal(c->tc_limit, t[k].lean);
		assert_int_equal(c->batch, c->tc_limit / 2);
		assert_int_equal(c->tc_bias, SLAB_TC_MAX - c->tc_limit);
		assert_null(c->borrow);
		struct sp_slab_stats a = stats(d), b = stats(c);
		assert_int_equal(a.stride, b.stride);
		assert_int_equal(a.slab_size, b.slab_size);
		assert_int_equal(a.objs_per_slab, b.objs_per_slab);
		assert_int_equal(a.colours, b.colours);
		assert_int_equal(a.l1d_sets, b.l1d_sets);
		assert_int_equal(sp_slab_cache_destroy(c), 0);
		assert_int_equal(sp_slab_cache_destroy(d), 0);
	}
	static const uint32_t bad_min[] = { 0, 1, SLAB_TC_MAX + 1 };
	for (size_t k = 0; k < SP_ARRAY_SIZE(bad_min); k++) {
		struct slab_geom g = { .tc_bytes = 4096, .tc_min = bad_min[k] };
		struct sp_slab_cache *c = (struct sp_slab_cache *)1;
		assert_int_equal(slab_cache_create_ex("bad", 64, 0, 0, NULL, &g, &c), -EINVAL);
		assert_null(c);
	}
	struct slab_geom zero = { 0 };	/* a zero struct: the defaults */
	struct sp_slab_cache *c = mk_geom("zero", 1024, 16, &zero);
	assert_int_equal(c->tc_limit, 128);
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

/*
 * A byte-bounded array never holds more than its bound: of 64 freed 1 KiB objects at most 8 stay
 * with the thread (a full array flushes its older half), the rest are back on their slabs.
 */
static void test_slab__geom_thread_array_bound(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	void *p[64];
	struct sp_slab_cache *caches[2] = { mk("dflt", 1024, 16, 0, NULL),
					    mk_geom("lean", 1024, 16, &lean) };
	for (int k = 0; k < 2; k++) {
		struct sp_slab_cache *c = caches[k];
		for (int i = 0; i < 64; i++)
			assert_non_null(p[i] = sp_slab_cache_alloc(c));
		uint32_t left = slab_tc_count(c, slab_tc_of(c));	/* of the last refill */
		for (int i = 0; i < 64; i++) {
			sp_slab_cache_free(c, p[i]);
			assert_true(slab_tc_count(c, slab_tc_of(c)) <= c->tc_limit);
		}
		uint32_t held = slab_tc_count(c, slab_tc_of(c));
		if (k == 0)
			assert_int_equal(held, left + 64);	/* 128 entries: every one stays */
		else
			assert_true(held >= c->tc_limit / 2 && held <= c->tc_limit);
		assert_true(slab_cache_is_valid(c));
		assert_int_equal(stats(c).nr_active, 0);
		assert_int_equal(sp_slab_cache_destroy(c), 0);
	}
}

/*
 * Borrowing: a dry cache (nothing freed in its array or on its slabs) takes an object of its
 * borrow cache that was in use before, SLAB_BORROW_DEPTH caches deep, before it touches a fresh
 * slot of its own; a borrow cache that has only fresh slots lends nothing.
 */
static void test_slab__geom_borrow(void **st)
{
	(void)st;
	SKIP_IF_PASSTHROUGH();
	struct slab_geom g = lean;
	struct sp_slab_cache *big = mk_geom("big", 640, 16, &lean);
	g.borrow = big;
	struct sp_slab_cache *mid = mk_geom("mid", 512, 16, &g);
	g.borrow = mid;
	struct sp_slab_cache *small = mk_geom("small", 384, 16, &g);
	assert_ptr_equal(small->borrow, mid);
	assert_ptr_equal(mid->borrow, big);

	void *q = sp_slab_cache_alloc(big);	/* big: one object used and freed */
	assert_non_null(q);
	sp_slab_cache_free(big, q);
	void *p = sp_slab_cache_alloc(small);	/* small and mid are dry: big's object */
	assert_ptr_equal(p, q);
	assert_ptr_equal(slab_cache_of(p), big);
	assert_int_equal(stats(big).nr_active, 1);
	assert_int_equal(stats(small).nr_active, 0);
	assert_int_equal(stats(small).nr_slabs, 0);	/* no fresh slot was touched */
	/* big keeps q: its array now tops with fresh slots, so small takes one of its own */
	void *f = sp_slab_cache_alloc(small);
	assert_non_null(f);
	assert_ptr_equal(slab_cache_of(f), small);
	assert_int_equal(stats(big).nr_active, 1);
	/* small's freed object beats borrowing */
	sp_slab_cache_free(small, f);
	assert_ptr_equal(sp_slab_cache_alloc(small), f);
	sp_slab_cache_free(small, f);
	sp_slab_cache_free(big, p);
	assert_true(slab_cache_is_valid(small));
	assert_true(slab_cache_is_valid(mid));
	assert_true(slab_cache_is_valid(big));
	assert_int_equal(sp_slab_cache_destroy(small), 0);
	assert_int_equal(sp_slab_cache_destroy(mid), 0);
	assert_int_equal(sp_slab_cache_destroy(big), 0);

	struct sp_slab_cache *plain = mk("plain", 384, 16, 0, NULL);
	assert_null(plain->borrow);	/* the public create never borrows */
	assert_int_equal(sp_slab_cache_destroy(plain), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slab__bad_input),
		cmocka_unit_test(test_slab__alignment_rules),
		cmocka_unit_test(test_slab__freeptr_placement),
		cmocka_unit_test(test_slab__kmalloc_classes),
		cmocka_unit_test(test_slab__set_spread),
		cmocka_unit_test(test_slab__colour_offsets_differ),
		cmocka_unit_test(test_slab__init_on_alloc),
		cmocka_unit_test(test_slab__init_sizes),
		cmocka_unit_test(test_slab__init_on_free),
		cmocka_unit_test(test_slab__poison_and_red_zone_bytes),
		cmocka_unit_test(test_slab__obfuscated_freeptr),
		cmocka_unit_test(test_slab__empty_slab_release),
		cmocka_unit_test(test_slab__verify_no_false_positive),
		cmocka_unit_test(test_slab__asan_tracking),
		cmocka_unit_test(test_slab__stats_and_destroy),
		cmocka_unit_test(test_slab__empty_slabs_released),
		cmocka_unit_test(test_slab__arena_dirty_pool),
		cmocka_unit_test(test_slab__empty_slab_lazy_release),
		cmocka_unit_test(test_slab__refill_order),
		cmocka_unit_test(test_slab__allocator_adapter),
		cmocka_unit_test(test_slab__many_caches_reuse_ids),
		cmocka_unit_test(test_slab__obj_index_exact),
		cmocka_unit_test(test_slab__geom_thread_array_sizes),
		cmocka_unit_test(test_slab__geom_thread_array_bound),
		cmocka_unit_test(test_slab__geom_borrow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
