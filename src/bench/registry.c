/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * registry.c - the built-in bench suites, in the order `secpath bench --list` shows them, and the
 * default set (`secpath bench` without a name).  Suites without variants (placeholders of parts
 * not built yet) are listed but not run; suites that run whole programs for minutes (malloc) run
 * only when named.  And the suites' one way to their bundled data files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_int.h"
#include "bench/suites.h"

static const struct sp_bench_suite *const suites[] = {
	/* the default report, in the order of the mission's experiments */
	&bench_suite_audit,
	&bench_suite_policy,
	&bench_suite_hackbench,
	&bench_suite_slab_spread,
	&bench_suite_slab,
	/* measurements beside them: the rule parser, log replay, setools; whole programs (named
	 * only) */
	&bench_suite_audit_parse,
	&bench_suite_replay,
	&bench_suite_stream,
	&bench_suite_setools,
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

/*
 * The summary's headline per suite: the case that reproduces the kernel experiment and the
 * variant whose ratio to the baseline is the result (docs/slab-and-measurement.md, the issue).
 * A suite missing here, or whose case did not run (--quick, --case), is summarised by its last
 * case and fastest variant.
 */
static const struct {
	const struct sp_bench_suite *s;
	const char *case_name, *variant;
} headlines[] = {
	{ &bench_suite_slab, "hot-64", "init-off" },
	{ &bench_suite_slab_spread, "N=200", "hwcache" },
	{ &bench_suite_hackbench, "G=2", "free-init" },
	{ &bench_suite_audit, "neo23x0/mix", "compiled" },
	{ &bench_suite_audit_parse, "neo23x0", "secpath" },
	{ &bench_suite_policy, "hit", "flat" },
	{ &bench_suite_replay, "100k-events", "ausearch -k" },
	{ &bench_suite_setools, "search-A", "secpath" },
};

void bench_registry_headline(const struct sp_bench_suite *s, const char **case_name,
			     const char **variant)
{
	*case_name = *variant = NULL;
	for (size_t i = 0; i < sizeof(headlines) / sizeof(headlines[0]); i++)
		if (headlines[i].s == s) {
			*case_name = headlines[i].case_name;
			*variant = headlines[i].variant;
		}
}

static _Thread_local char missing[512];

int bench_data_file(const char *rel, char *buf, size_t len)
{
	const char *dir = getenv("SECPATH_DATADIR");
	snprintf(buf, len, "%s/%s", dir && *dir ? dir : "data", rel);
	if (!access(buf, R_OK))
		return 0;
	snprintf(missing, sizeof(missing), "%s", buf);
	return -ENOENT;
}

void bench_data_missing(char *buf, size_t len)
{
	snprintf(buf, len, "%s", missing);
	missing[0] = 0;
}
