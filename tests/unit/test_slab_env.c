/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_slab_env.c - the init policy environment variables: SECPATH_INIT_ON_ALLOC=1 and
 * SECPATH_INIT_ON_FREE=1 switch the modes on, are read once (later changes to the environment do
 * nothing), and the setters still override them.  A separate program because the variables are
 * read at the first use of the slab layer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/slab.h"

static void test_slab__env_read_once(void **st)
{
	(void)st;
	assert_int_equal(sp_slab_init_on_alloc(), 1);
	assert_int_equal(sp_slab_init_on_free(), 1);
	setenv("SECPATH_INIT_ON_ALLOC", "0", 1);
	setenv("SECPATH_INIT_ON_FREE", "0", 1);
	assert_int_equal(sp_slab_init_on_alloc(), 1);
	assert_int_equal(sp_slab_init_on_free(), 1);

	struct sp_slab_cache *c;
	assert_int_equal(sp_slab_cache_create("env", 128, 0, 0, NULL, &c), 0);
	struct sp_slab_stats s;
	sp_slab_cache_stats(c, &s);
	assert_int_equal(s.init_on_alloc, 1);
	assert_int_equal(s.init_on_free, 1);
	unsigned char *p = sp_slab_cache_alloc(c);
	memset(p, 0xee, 128);
	sp_slab_cache_free(c, p);
	p = sp_slab_cache_alloc(c);
	for (int i = 0; i < 128; i++)
		assert_int_equal(p[i], 0);
	sp_slab_cache_free(c, p);

	sp_slab_set_init_on_alloc(0);
	sp_slab_set_init_on_free(0);
	sp_slab_cache_stats(c, &s);
	assert_int_equal(s.init_on_alloc, 0);
	assert_int_equal(s.init_on_free, 0);
	assert_int_equal(sp_slab_cache_destroy(c), 0);
}

int main(void)
{
	setenv("SECPATH_INIT_ON_ALLOC", "1", 1);
	setenv("SECPATH_INIT_ON_FREE", "1", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slab__env_read_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
