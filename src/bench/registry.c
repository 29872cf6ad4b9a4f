/*
 * registry.c - the built-in bench suites, in the order `secpath bench --list` shows them, and the
 * default set (`secpath bench` without a name).  Suites without variants (placeholders of parts
 * not built yet) are listed but not run; suites that run whole programs for minutes (malloc) run
 * only when named.
 */
#include <string.h>

#include "bench/suites.h"

static const struct sp_bench_suite *const suites[] = {
	&bench_suite_slab,
	&bench_suite_slab_spread,
	&bench_suite_hackbench,
	&bench_suite_audit,
	&bench_suite_audit_parse,
	&bench_suite_replay,
	&bench_suite_policy,
	&bench_suite_malloc,
	NULL,
};

/* Run only when named: each op is a whole external program. */
static const struct sp_bench_suite *const not_default[] = {
	&bench_suite_malloc,
};

const struct sp_bench_suite *const *sp_bench_suites(void)
{
	return suites;
}

const struct sp_bench_suite *sp_bench_suite_find(const char *name)
{
	for (const struct sp_bench_suite *const *s = suites; name && *s; s++)
		if (!strcmp((*s)->name, name))
			return *s;
	return NULL;
}

int sp_bench_suite_is_default(const struct sp_bench_suite *s)
{
	if (!s || !s->nvariants || !s->ncases || (s->flags & SP_BENCH_NOT_DEFAULT))
		return 0;
	for (size_t i = 0; i < sizeof(not_default) / sizeof(not_default[0]); i++)
		if (s == not_default[i])
			return 0;
	return 1;
}
