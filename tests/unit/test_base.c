/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_base.c - base: allocator helpers and positioned diagnostics.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "secpath/secpath.h"
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
		cmocka_unit_test(test_base__diag_format_caret),
		cmocka_unit_test(test_base__diag_offset_and_limit),
		cmocka_unit_test(test_base__list_order),
	};
	return cmocka_run_group_tests_name("base", tests, NULL, NULL);
}
