/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_base.c - base: allocator helpers, the region allocator and positioned diagnostics.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "secpath/secpath.h"
#include "base/compiler.h"
#include "base/list.h"

static void test_base__alloc_aligned(void **st)
{
	(void)st;
	for (size_t al = 1; al <= 4096; al <<= 1) {
		char *p = sp_zalloc(NULL, 100, al);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % al, 0);
		for (int i = 0; i < 100; i++)
			assert_int_equal(p[i], 0);
		sp_free(NULL, p, 100);
	}
	assert_null(sp_alloc(NULL, 8, 3));
}

/* A region's block: its bytes, filled with a pattern of its index to prove no other block
 * overlaps it. */
struct rblk {
	unsigned char *p;
	size_t n;
};

static void rblk_fill(struct rblk *b, size_t i)
{
	memset(b->p, (int)(i * 131 + 7) & 0xff, b->n);
}

static void rblk_check(const struct rblk *b, size_t i)
{
	for (size_t k = 0; k < b->n; k += 61)
		assert_int_equal(b->p[k], (i * 131 + 7) & 0xff);
	if (b->n)
		assert_int_equal(b->p[b->n - 1], (i * 131 + 7) & 0xff);
}

/*
 * Random allocations and frees (small and big sizes, alignments up to 4 KiB) against a model:
 * every live block keeps its own bytes, is aligned, and lies in the reservation or came from
 * libc; freeing everything in reverse order gives every byte back (carved 0).  A reservation
 * of 8 MiB is exceeded on purpose, so blocks also come from libc.
 */
static void test_base__region_random(void **st)
{
	(void)st;
	struct sp_region *r;
	assert_int_equal(sp_region_new(8u << 20, &r), 0);
	const struct sp_allocator *a = sp_region_allocator(r);
	enum { N = 400 };
	struct rblk b[N] = { 0 };
	unsigned seed = 12345;
	for (int step = 0; step < 20000; step++) {
		size_t i = (size_t)rand_r(&seed) % N;
		if (b[i].p) {
			rblk_check(&b[i], i);
			sp_free(a, b[i].p, b[i].n);
			b[i].p = NULL;
			continue;
		}
		unsigned x = (unsigned)rand_r(&seed);
		size_t n = x % 4 == 0 ? 65536 + x % (300u << 10) : x % 3000;
		size_t al = (size_t)1 << (x >> 20) % 13;
		b[i].p = sp_alloc(a, n, al);
		assert_non_null(b[i].p);
		assert_int_equal((uintptr_t)b[i].p % al, 0);
		b[i].n = n;
		rblk_fill(&b[i], i);
	}
	struct sp_region_stats s;
	sp_region_get_stats(r, &s);
	assert_int_equal(s.reserved, 8u << 20);
	assert_true(s.peak <= s.reserved && s.carved <= s.peak);
	assert_true(s.reused > 0);
	assert_true(s.libc > 0);
	for (size_t i = N; i-- > 0;)
		if (b[i].p) {
			rblk_check(&b[i], i);
			sp_free(a, b[i].p, b[i].n);
		}
	sp_region_free(r);

	/* allocated and freed in stack order: nothing is wasted, everything comes back */
	assert_int_equal(sp_region_new(64u << 20, &r), 0);
	a = sp_region_allocator(r);
	for (size_t i = 0; i < N; i++) {
		b[i].n = i % 7 ? i * 13 : 100000 + i;
		b[i].p = sp_alloc(a, b[i].n, i % 5 ? 16 : 256);
		rblk_fill(&b[i], i);
	}
	for (size_t i = N; i-- > 0;) {
		rblk_check(&b[i], i);
		sp_free(a, b[i].p, b[i].n);
	}
	sp_region_get_stats(r, &s);
	assert_int_equal(s.carved, 0);
	assert_int_equal(s.wasted, 0);
	assert_int_equal(s.libc, 0);
	sp_region_free(r);
}

/*
 * Big freed blocks are reused in place, merged with their freed neighbours; a freed small
 * block below the top is counted as waste; a freed top block moves the bump pointer back over
 * the free extents below it.
 */
static void test_base__region_reuse(void **st)
{
	(void)st;
	struct sp_region *r;
	struct sp_region_stats s;
	assert_int_equal(sp_region_new(16u << 20, &r), 0);
	const struct sp_allocator *a = sp_region_allocator(r);
	char *x = sp_alloc(a, 128 << 10, 0), *y = sp_alloc(a, 128 << 10, 0);
	char *z = sp_alloc(a, 128 << 10, 0), *small = sp_alloc(a, 100, 0);
	char *top = sp_alloc(a, 100, 0);
	assert_true(x < y && y < z && z < small && small < top);
	sp_region_get_stats(r, &s);
	size_t carved = s.carved;
	sp_free(a, x, 128 << 10);
	sp_free(a, z, 128 << 10);
	sp_free(a, y, 128 << 10);	/* x, y, z: one extent now */
	char *big = sp_alloc(a, 380 << 10, 0);
	assert_ptr_equal(big, x);	/* the merged extent, not fresh memory */
	sp_region_get_stats(r, &s);
	assert_int_equal(s.carved, carved);
	assert_true(s.reused >= 380u << 10);
	sp_free(a, top, 100);	/* the top: the bump pointer back to small's end */
	sp_region_get_stats(r, &s);
	assert_true(s.carved < carved);
	sp_free(a, small, 100);	/* the top now: back to big's end */
	sp_free(a, big, 380 << 10);	/* and all the way down */
	sp_region_get_stats(r, &s);
	assert_int_equal(s.carved, 0);
	assert_int_equal(s.wasted, 0);
	small = sp_alloc(a, 100, 0);
	top = sp_alloc(a, 100, 0);
	sp_free(a, small, 100);	/* small, below the top: not reused */
	sp_region_get_stats(r, &s);
	assert_true(s.wasted >= 100);
	char *again = sp_alloc(a, 100, 0);
	assert_true(again > top);
	sp_region_free(r);

	/* no reservation at all: a working allocator on libc */
	assert_int_equal(sp_region_new(0, &r), 0);
	a = sp_region_allocator(r);
	char *p = sp_zalloc(a, 1000, 64);
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % 64, 0);
	sp_free(a, p, 1000);
	sp_region_get_stats(r, &s);
	assert_int_equal(s.reserved, 0);
	assert_int_equal(s.libc, 1);
	sp_region_free(r);

#if !SP_HAVE_ASAN	/* ASan's shadow needs more address space than any such limit */
	/* under an address-space limit, a quarter of it at most (in a child: the limit stays) */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* 1 GiB more than the child maps now (a malloc shim may hold a big reservation) */
		unsigned long long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		int ok = f && fscanf(f, "%llu", &pages) == 1;
		if (f)
			fclose(f);
		rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (1ull << 30);
		struct rlimit lim = { cap, cap };
		ok = ok && !setrlimit(RLIMIT_AS, &lim) && !sp_region_new((size_t)64 << 30, &r);
		if (ok) {
			sp_region_get_stats(r, &s);
			ok = s.reserved > 0 && s.reserved <= cap / 4 &&
			     sp_alloc(sp_region_allocator(r), 1000, 0);
		}
		_exit(ok ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
#endif
}

/* A resize grows the top block in place, moves any other with its bytes, and works on blocks
 * that came from libc (a region without a reservation). */
static void test_base__region_resize(void **st)
{
	(void)st;
	for (int reserve = 0; reserve < 2; reserve++) {
		struct sp_region *r;
		struct sp_region_stats s;
		assert_int_equal(sp_region_new(reserve ? 64u << 20 : 0, &r), 0);
		unsigned char *p = sp_region_resize(r, NULL, 1000);
		assert_non_null(p);
		for (int i = 0; i < 1000; i++)
			p[i] = (unsigned char)i;
		for (size_t n = 2048; n <= (8u << 20); n *= 2) {
			unsigned char *q = sp_region_resize(r, p, n);
			assert_non_null(q);
			if (reserve)
				assert_ptr_equal(q, p);	/* the only block: in place */
			p = q;
			for (int i = 0; i < 1000; i++)
				assert_int_equal(p[i], (unsigned char)i);
			memset(p + 1000, 0xa5, n - 1000);
		}
		sp_region_get_stats(r, &s);
		if (reserve)
			assert_true(s.carved >= (8u << 20) && s.carved < (8u << 20) + 4096);
		unsigned char *other = sp_alloc(sp_region_allocator(r), 100, 0);
		unsigned char *q = sp_region_resize(r, p, 9u << 20);	/* not the top now: moved */
		assert_non_null(q);
		if (reserve)
			assert_true(q > other);
		for (int i = 0; i < 1000; i++)
			assert_int_equal(q[i], (unsigned char)i);
		assert_int_equal(q[(8u << 20) - 1], 0xa5);
		q = sp_region_resize(r, q, 500);	/* the top again: shrunk in place */
		for (int i = 0; i < 500; i++)
			assert_int_equal(q[i], (unsigned char)i);
		sp_free(sp_region_allocator(r), q, 500);
		sp_free(sp_region_allocator(r), other, 100);
		sp_region_free(r);
	}
}

static void test_base__diag_format_caret(void **st)
{
	(void)st;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_diags_add(&d, SP_SEV_ERROR, -EINVAL, "a.rules", 3, 5, 7, "unknown field '%s'", "foo"), 0);
	char buf[256];
	sp_diag_format(&d.v[0], "-F foo=1", buf, sizeof(buf));
	assert_string_equal(buf, "a.rules:3:5-7: error: unknown field 'foo'\n-F foo=1\n    ^~~\n");
	assert_int_equal(d.nerrors, 1);
	sp_diags_release(&d);
}

static void test_base__diag_offset_and_limit(void **st)
{
	(void)st;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	d.limit = 3;
	for (int i = 0; i < 10; i++)
		assert_int_equal(sp_diags_add_offset(&d, SP_SEV_ERROR, -EINVAL, "p.bin", 0x1a4, "avtab: truncated entry"), 0);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.dropped, 7);
	assert_int_equal(d.nerrors, 10);
	char buf[128];
	sp_diag_format(&d.v[0], NULL, buf, sizeof(buf));
	assert_string_equal(buf, "p.bin:+0x1a4: error: avtab: truncated entry\n");
	sp_diags_release(&d);
}

struct item { int v; struct sp_list node; };

static void test_base__list_order(void **st)
{
	(void)st;
	struct sp_list h = SP_LIST_INIT(h);
	struct item a = { 1, { 0, 0 } }, b = { 2, { 0, 0 } }, c = { 3, { 0, 0 } };
	sp_list_add_tail(&a.node, &h);
	sp_list_add_tail(&b.node, &h);
	sp_list_add(&c.node, &h);
	int want[] = { 3, 1, 2 }, i = 0;
	struct sp_list *pos;
	sp_list_for_each(pos, &h) assert_int_equal(sp_list_entry(pos, struct item, node)->v, want[i++]);
	assert_int_equal(i, 3);
	sp_list_del(&a.node);
	assert_ptr_equal(h.next->next, &b.node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base__alloc_aligned),
		cmocka_unit_test(test_base__region_random),
		cmocka_unit_test(test_base__region_reuse),
		cmocka_unit_test(test_base__region_resize),
		cmocka_unit_test(test_base__diag_format_caret),
		cmocka_unit_test(test_base__diag_offset_and_limit),
		cmocka_unit_test(test_base__list_order),
	};
	return cmocka_run_group_tests_name("base", tests, NULL, NULL);
}
