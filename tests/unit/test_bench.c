/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_bench.c - the bench harness: statistics, ratios, the callgrind output parser (on fixture
 * files from a real callgrind 3.19 run in tests/data/bench/), cache geometry presets, JSON Lines
 * validity, and end-to-end runs of test-only suites (every variant runs, rounds rotate, stats
 * are finite).  No timing assertions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secpath/bench.h"
#include "bench/bench_int.h"

/* ---- statistics ---- */

static void test_bench__stats_known_samples(void **st)
{
	(void)st;
	const double x[] = { 3, 1, 100, 2, 4 };
	struct bench_stats s;
	bench_stats_compute(x, 5, &s);
	assert_int_equal(s.n, 5);
	assert_true(s.min == 1 && s.max == 100 && s.median == 3);
	assert_true(fabs(s.avg - 22) < 1e-12);
	assert_true(fabs(s.pstdev - sqrt(1522.0)) < 1e-9);	/* population, not sample */

	const double even[] = { 4, 1, 3, 2 };
	bench_stats_compute(even, 4, &s);
	assert_true(s.median == 2.5 && fabs(s.pstdev - sqrt(1.25)) < 1e-12);

	const double one[] = { 7 };
	bench_stats_compute(one, 1, &s);
	assert_true(s.min == 7 && s.avg == 7 && s.median == 7 && s.max == 7 && s.pstdev == 0);
}

static void test_bench__stats_welford_stable_and_nan(void **st)
{
	(void)st;
	/* Large offset, tiny spread: the naive sum-of-squares formula loses every digit here. */
	const double x[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	struct bench_stats s;
	bench_stats_compute(x, 3, &s);
	assert_true(fabs(s.pstdev - sqrt(2.0 / 3.0)) < 1e-6);
	assert_true(s.median == 1e9 + 2);

	const double y[] = { NAN, 5, NAN, 1 };
	bench_stats_compute(y, 4, &s);
	assert_int_equal(s.n, 2);
	assert_true(s.min == 1 && s.max == 5 && s.median == 3 && s.pstdev == 2);

	const double z[] = { NAN, NAN };
	bench_stats_compute(z, 2, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.min) && isnan(s.median) && isnan(s.pstdev));
}

static void test_bench__ratio_of_medians_and_rounds(void **st)
{
	(void)st;
	const double v[] = { 2, 4, 6 }, b[] = { 1, 2, 2 };
	struct bench_ratio r;
	bench_ratio_compute(v, b, 3, &r);
	assert_true(r.median == 2);			/* median 4 / median 2 */
	assert_true(r.min == 2 && r.max == 3);		/* rounds: 2, 2, 3 */

	const double v2[] = { 5, NAN, 9 }, b2[] = { 10, 3, 0 };
	bench_ratio_compute(v2, b2, 3, &r);
	assert_true(r.min == 0.5 && r.max == 0.5);	/* NAN and /0 rounds skipped */
	assert_true(fabs(r.median - 7.0 / 3.0) < 1e-12);
}

/* ---- callgrind parser and geometry ---- */

static char *read_fixture(const char *path, size_t *len)
{
	char *buf = NULL;
	assert_int_equal(sp_file_read(path, &buf, len), 0);
	return buf;
}

static void test_bench__callgrind_parse_fixture(void **st)
{
	(void)st;
	struct bench_cg_dump d;
	size_t len;
	char *t = read_fixture("tests/data/bench/callgrind.out.1", &len);
	assert_int_equal(bench_cg_parse(t, len, &d), 0);
	assert_string_equal(d.trigger, "sp:0:1000");
	/* summary: 8019 1002 1008 2 1000 0 2  (Ir Dr Dw I1mr D1mr D1mw ILmr; DLmr DLmw dropped) */
	assert_int_equal(d.ir, 8019);
	assert_int_equal(d.dr, 1002);
	assert_int_equal(d.dw, 1008);
	assert_int_equal(d.d1mr, 1000);
	assert_int_equal(d.d1mw, 0);
	free(t);

	t = read_fixture("tests/data/bench/callgrind.out.2", &len);
	assert_int_equal(bench_cg_parse(t, len, &d), 0);
	assert_string_equal(d.trigger, "sp:1:500");
	assert_int_equal(d.ir, 4019);
	assert_int_equal(d.d1mr, 500);
	free(t);
}

static void test_bench__callgrind_parse_edge_cases(void **st)
{
	(void)st;
	struct bench_cg_dump d;
	const char *reordered = "events: D1mw Ir D1mr\ndesc: Trigger: Client Request: sp:2:7\n"
				"totals: 5 70 9\n";
	assert_int_equal(bench_cg_parse(reordered, strlen(reordered), &d), 0);
	assert_int_equal(d.ir, 70);
	assert_int_equal(d.d1mr, 9);
	assert_int_equal(d.d1mw, 5);
	assert_string_equal(d.trigger, "sp:2:7");

	const char *short_line = "events: Ir Dr Dw I1mr D1mr D1mw\nsummary: 12\n";
	assert_int_equal(bench_cg_parse(short_line, strlen(short_line), &d), 0);
	assert_int_equal(d.ir, 12);
	assert_int_equal(d.d1mr, 0);

	const char *no_events = "summary: 1 2 3\n";
	assert_int_equal(bench_cg_parse(no_events, strlen(no_events), &d), -EINVAL);
	const char *no_summary = "events: Ir\nfn=(1) main\n0 5\n";
	assert_int_equal(bench_cg_parse(no_summary, strlen(no_summary), &d), -EINVAL);
	const char *garbage = "events: Ir\nsummary: x1\n";
	assert_int_equal(bench_cg_parse(garbage, strlen(garbage), &d), -EINVAL);
}

static void test_bench__cache_geometry(void **st)
{
	(void)st;
	char buf[80];
	assert_int_equal(bench_cg_geometry("32k8", buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "32768,8,64");
	assert_int_equal(bench_cg_geometry("48k12", buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "49152,12,64");
	assert_int_equal(bench_cg_geometry("65536,4,128", buf, sizeof(buf), NULL), 0);
	assert_string_equal(buf, "65536,4,128");
	assert_int_equal(bench_cg_geometry("1000,3,64", buf, sizeof(buf), NULL), -EINVAL);
	assert_int_equal(bench_cg_geometry("32768,8,48", buf, sizeof(buf), NULL), -EINVAL);
	assert_int_equal(bench_cg_geometry("32768,8", buf, sizeof(buf), NULL), -EINVAL);
	assert_int_equal(bench_cg_geometry("big", buf, sizeof(buf), NULL), -EINVAL);
	/* "host" always gives a geometry valgrind accepts, and says where it came from: sysfs,
	 * CPUID (VMs without a sysfs cache description), or a stated assumption */
	const char *src = NULL;
	assert_int_equal(bench_cg_geometry("host", buf, sizeof(buf), &src), 0);
	assert_non_null(src);
	assert_true(!strcmp(src, "sysfs") || !strncmp(src, "CPUID", 5) || !strncmp(src, "assumed", 7));
	unsigned long s, a, l;
	assert_int_equal(sscanf(buf, "%lu,%lu,%lu", &s, &a, &l), 3);
	assert_true(s >= 4096 && a >= 1 && l >= 16);
	char again[80];
	assert_int_equal(bench_cg_geometry(buf, again, sizeof(again), NULL), 0);	/* valid spec */
}

/* ---- a minimal JSON validator (RFC 8259 values, enough for the report) ---- */

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *json_value(const char *p, int depth);

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_number(const char *p)
{
	const char *s = p;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return NULL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return p > s ? p : NULL;
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	p = json_ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		int obj = *p == '{';
		p = json_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				p = json_string(json_ws(p));
				if (!p)
					return NULL;
				p = json_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = json_value(p, depth + 1);
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return json_string(p);
	if (!strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (!strncmp(p, "null", 4))
		return p + 4;
	return json_number(p);
}

static int json_valid(const char *s)
{
	const char *e = json_value(s, 0);
	return e && !*json_ws(e);
}

static void test_bench__json_validator_self_check(void **st)
{
	(void)st;
	assert_true(json_valid("{\"a\":[1,2.5e-3,null,true],\"b\":{\"c\":\"x\\\"y\"}}"));
	assert_false(json_valid("{\"a\":nan}"));
	assert_false(json_valid("{\"a\":1,}"));
	assert_false(json_valid("{\"a\" 1}"));
	assert_false(json_valid("[1,2"));
}

/* ---- end-to-end with test-only suites ---- */

#define MAXLOG 4096
static unsigned call_log[MAXLOG];
static uint64_t call_ops[MAXLOG];
static size_t ncalls;
static uint64_t teardowns;

struct tstate {
	unsigned id;
	unsigned work;
	volatile uint64_t sink;
};

static int t_setup_common(const void *param, void **state, unsigned id, unsigned work)
{
	struct tstate *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->id = id;
	s->work = work * (param ? *(const unsigned *)param : 1);
	*state = s;
	return 0;
}

static void t_run(void *state, uint64_t n)
{
	struct tstate *s = state;
	if (ncalls < MAXLOG) {
		call_log[ncalls] = s->id;
		call_ops[ncalls] = n;
		ncalls++;
	}
	for (uint64_t i = 0; i < n; i++)
		for (unsigned k = 0; k < s->work; k++)
			s->sink = s->sink + k;
}

static void t_teardown(void *state)
{
	teardowns++;
	free(state);
}

static int t_setup0(const void *p, void **st) { return t_setup_common(p, st, 0, 10); }
static int t_setup1(const void *p, void **st) { return t_setup_common(p, st, 1, 20); }
static int t_setup2(const void *p, void **st) { return t_setup_common(p, st, 2, 5); }
static int t_setup_fail(const void *p, void **st) { (void)p; (void)st; return -ENOTSUP; }

static const unsigned one = 1, three = 3;
static const struct sp_bench_case t_cases[] = {
	{ "small", &one, 0 },
	{ "big", &three, SP_BENCH_CASE_FULL_ONLY },
	{ "tiny", &one, SP_BENCH_CASE_QUICK_ONLY },
};
static const struct sp_bench_variant t_variants[] = {
	{ "base", t_setup0, t_run, t_teardown },
	{ "double", t_setup1, t_run, t_teardown },
	{ "half", t_setup2, t_run, t_teardown },
	{ "broken", t_setup_fail, t_run, t_teardown },
};
static const struct sp_bench_suite t_suite = {
	.name = "test", .desc = "test-only suite", .unit = "step",
	.cases = t_cases, .ncases = 3, .variants = t_variants, .nvariants = 4,
	.context = "test context line",
};
static const struct sp_bench_suite t_fixed = {
	.name = "test-fixed", .desc = "fixed ops", .unit = "run",
	.cases = t_cases, .ncases = 1, .variants = t_variants, .nvariants = 3,
	.fixed_ops = 3, .flags = SP_BENCH_NO_PIN,
};

static char *run_suite(const struct sp_bench_suite *s, struct sp_bench_opts *o, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	o->out = f;
	ncalls = 0;
	teardowns = 0;
	*rc = sp_bench_run(s, o);
	fclose(f);
	return buf;
}

static void test_bench__e2e_table_every_variant_runs(void **st)
{
	(void)st;
	struct sp_bench_opts o = { .sz = sizeof(o), .reps = 3, .min_sample_ms = 0.2 };
	int rc;
	char *out = run_suite(&t_suite, &o, &rc);
	assert_int_equal(rc, 0);
	/* Full mode: cases small and big, not tiny. */
	assert_non_null(strstr(out, "test [small]"));
	assert_non_null(strstr(out, "test [big]"));
	assert_null(strstr(out, "test [tiny]"));
	assert_non_null(strstr(out, "skipped"));
	assert_non_null(strstr(out, "test context line"));
	for (const char *n = out; (n = strstr(n, "\n  double ")); n++) {
		/* the ratio column holds "R [lo..hi]" with finite positive numbers */
		double r, lo, hi;
		const char *pct = strchr(n, '%');
		assert_non_null(pct);
		assert_int_equal(sscanf(pct + 2, "%lf [%lf..%lf]", &r, &lo, &hi), 3);
		assert_true(r > 0 && lo > 0 && lo <= hi && isfinite(hi));
	}
	/* Each working variant ran in both cases; 2 cases x 3 variants were torn down. */
	unsigned seen[4] = { 0 };
	for (size_t i = 0; i < ncalls; i++)
		seen[call_log[i]]++;
	assert_true(seen[0] >= 2 * (3 + 2) && seen[1] >= 2 * (3 + 2) && seen[2] >= 2 * (3 + 2));
	assert_int_equal(seen[3], 0);
	assert_int_equal(teardowns, 6);
	free(out);
}

static void test_bench__e2e_fixed_ops_rotation(void **st)
{
	(void)st;
	struct sp_bench_opts o = { .sz = sizeof(o), .reps = 4 };
	int rc;
	char *out = run_suite(&t_fixed, &o, &rc);
	assert_int_equal(rc, 0);
	/* warm-up 0,1,2, then rounds rotated: 012 120 201 012 */
	static const unsigned want[] = { 0, 1, 2, 0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2 };
	assert_int_equal(ncalls, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < ncalls; i++) {
		assert_int_equal(call_log[i], want[i]);
		assert_int_equal(call_ops[i], 3);
	}
	assert_non_null(strstr(out, "not pinned"));
	free(out);
}

static void test_bench__e2e_json_lines_valid(void **st)
{
	(void)st;
	struct sp_bench_opts o = { .sz = sizeof(o), .reps = 3, .min_sample_ms = 0.2, .json = 1,
				   .quick = 1 };
	int rc;
	char *out = run_suite(&t_suite, &o, &rc);
	assert_int_equal(rc, 0);
	size_t lines = 0, ns_lines = 0, skipped = 0, baseline = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		lines++;
		assert_true(json_valid(line));
		assert_non_null(strstr(line, "\"suite\":\"test\""));
		if (strstr(line, "\"metric\":\"ns/op\""))
			ns_lines++;
		if (strstr(line, "\"skipped\""))
			skipped++;
		if (strstr(line, "\"baseline\":true") && strstr(line, "\"metric\":\"ns/op\"")) {
			baseline++;
			assert_non_null(strstr(line, "\"ratio_median\":1,"));
			assert_non_null(strstr(line, "\"samples\":["));
		}
		/* quick mode: cases small and tiny */
		assert_null(strstr(line, "\"case\":\"big\""));
	}
	assert_int_equal(ns_lines, 2 * 4);
	assert_int_equal(skipped, 2);
	assert_int_equal(baseline, 2);
	assert_true(lines >= ns_lines);
	free(out);
}

static void test_bench__only_case_and_registry(void **st)
{
	(void)st;
	struct sp_bench_opts o = { .sz = sizeof(o), .reps = 2, .min_sample_ms = 0.1,
				   .only_case = "tiny" };
	int rc;
	char *out = run_suite(&t_suite, &o, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "test [tiny]"));
	assert_null(strstr(out, "test [small]"));
	free(out);
	o.only_case = "nope";
	out = run_suite(&t_suite, &o, &rc);
	assert_int_equal(rc, -ENOENT);
	free(out);

	/* Estimate: 2 full cases x 4 variants x (3 rounds + 3) x 0.2 ms; fixed ops: unknown. */
	struct sp_bench_opts e = { .sz = sizeof(e), .reps = 3, .min_sample_ms = 0.2 };
	assert_true(fabs(sp_bench_estimate(&t_suite, &e) - 2 * 4 * 6 * 0.2 / 1000) < 1e-9);
	assert_true(sp_bench_estimate(&t_fixed, &e) < 0);
	/* An options struct from an older header (a smaller sz): the fields beyond it take their
	 * defaults (5 ms samples), NULL options all of them (11 rounds). */
	struct sp_bench_opts old = e;
	old.sz = offsetof(struct sp_bench_opts, min_sample_ms);
	assert_true(fabs(sp_bench_estimate(&t_suite, &old) - 2 * 4 * 6 * 5.0 / 1000) < 1e-9);
	assert_true(fabs(sp_bench_estimate(&t_suite, NULL) - 2 * 4 * 14 * 5.0 / 1000) < 1e-9);

	/* The registry lists every suite of suites.h by name, exactly once. */
	const char *names[] = { "slab", "slab-spread", "hackbench", "audit",
				"audit-parse", "replay", "stream", "setools", "policy", "malloc" };
	size_t n = 0;
	for (const struct sp_bench_suite *const *s = sp_bench_suites(); *s; s++)
		n++;
	assert_int_equal(n, sizeof(names) / sizeof(names[0]));
	for (size_t i = 0; i < n; i++) {
		const struct sp_bench_suite *s = sp_bench_suite_find(names[i]);
		assert_non_null(s);
		assert_string_equal(s->name, names[i]);
	}
	assert_null(sp_bench_suite_find("sla"));
	/* The default set: suites with variants, minus whole-program and opted-out ones. */
	assert_true(sp_bench_suite_is_default(sp_bench_suite_find("slab")));
	assert_false(sp_bench_suite_is_default(sp_bench_suite_find("malloc")));
	assert_false(sp_bench_suite_is_default(sp_bench_suite_find("setools")));
	assert_false(sp_bench_suite_is_default(sp_bench_suite_find("stream")));
	struct sp_bench_suite hidden = t_suite;
	assert_true(sp_bench_suite_is_default(&hidden));
	hidden.flags = SP_BENCH_NOT_DEFAULT;
	assert_false(sp_bench_suite_is_default(&hidden));
	hidden = t_suite;
	hidden.nvariants = 0;
	assert_false(sp_bench_suite_is_default(&hidden));
}

static void test_bench__budget_scales_samples_and_cuts_rounds(void **st)
{
	(void)st;
	/* Calibrated suite: 2 cases x 4 variants x (11 + 3) samples of 5 ms = 0.56 s; a 0.4 s
	 * budget scales the samples so the rounds take 70 % of it, never below 0.2 ms. */
	struct sp_bench_opts e = { .sz = sizeof(e), .reps = 11, .min_sample_ms = 5 };
	assert_true(fabs(sp_bench_estimate(&t_suite, &e) - 0.56) < 1e-9);
	e.budget_s = 0.4;
	assert_true(fabs(sp_bench_estimate(&t_suite, &e) - 0.28) < 1e-9);
	e.budget_s = 1e-6;
	assert_true(fabs(sp_bench_estimate(&t_suite, &e) - 2 * 4 * 14 * 0.2 / 1000) < 1e-9);
	e.budget_s = 100;
	assert_true(fabs(sp_bench_estimate(&t_suite, &e) - 0.56) < 1e-9);
	/* Fixed ops: the budget bounds it (rounds are cut to fit). */
	assert_true(sp_bench_estimate(&t_fixed, &e) == 100);

	/* A budget far below one round: 3 rounds instead of 11 (warm-up 012, then 012 120 201). */
	struct sp_bench_opts o = { .sz = sizeof(o), .reps = 11, .budget_s = 1e-9 };
	int rc;
	char *out = run_suite(&t_fixed, &o, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(ncalls, 3 + 3 * 3);
	assert_non_null(strstr(out, "3 rounds, variants interleaved"));
	free(out);
	/* A generous budget changes nothing. */
	o.budget_s = 1000;
	out = run_suite(&t_fixed, &o, &rc);
	assert_int_equal(ncalls, 3 + 11 * 3);
	free(out);
}

static int t_setup_kill(const void *p, void **st)
{
	if (*(const unsigned *)p == 3)
		raise(SIGKILL);	/* uncatchable: cmocka's handlers must not run in the child */
	return t_setup_common(p, st, 3, 1);
}

static const struct sp_bench_variant t_kill_variants[] = {
	{ "base", t_setup0, t_run, t_teardown },
	{ "killer", t_setup_kill, t_run, t_teardown },
};
static const struct sp_bench_suite t_kill = {
	.name = "test-kill", .desc = "dies in case big", .unit = "step",
	.cases = t_cases, .ncases = 2, .variants = t_kill_variants, .nvariants = 2,
};

/* Everything written to the stream f (a tmpfile), NUL-terminated; closes f. */
static char *slurp(FILE *f)
{
	char *buf = NULL;
	size_t len;
	assert_int_equal(fflush(f), 0);
	assert_int_equal(lseek(fileno(f), 0, SEEK_SET), 0);
	assert_int_equal(sp_fd_read_all(fileno(f), &buf, &len), 0);
	fclose(f);
	return buf;
}

/* The figures of t_figs: the variant's op count over every run (its state's sink of ops). */
struct fstate {
	uint64_t ops;
};

static int f_setup(const void *p, void **st)
{
	(void)p;
	*st = calloc(1, sizeof(struct fstate));
	return *st ? 0 : -ENOMEM;
}

static void f_run(void *state, uint64_t n)
{
	((struct fstate *)state)->ops += n;
}

static size_t f_figures(const struct sp_bench_variant *v, void *state,
			struct sp_bench_figure *out, size_t max)
{
	static char longname[64];
	memset(longname, 'x', sizeof(longname) - 1);
	if (!strcmp(v->name, "silent") || max < 2)
		return 0;
	out[0] = (struct sp_bench_figure){ "ops-seen", "", (double)((struct fstate *)state)->ops };
	out[1] = (struct sp_bench_figure){ longname, "us", 0.25 };
	return 2;
}

static const struct sp_bench_variant f_variants[] = {
	{ "counting", f_setup, f_run, free },
	{ "silent", f_setup, f_run, free },
};
static const struct sp_bench_suite t_figs = {
	.name = "test-figs", .desc = "own figures", .unit = "op",
	.cases = t_cases, .ncases = 1, .variants = f_variants, .nvariants = 2,
	.fixed_ops = 1000, .figures = f_figures,
};

/* A variant's own figures: under the table, as JSON objects "over every op", and across the
 * isolated run's fork into the summary; names cut to SP_BENCH_FIG_NAME - 1 bytes. */
static void test_bench__variant_figures(void **st)
{
	(void)st;
	struct sp_bench_opts o = { .sz = sizeof(o), .reps = 3 };
	int rc;
	char *out = run_suite(&t_figs, &o, &rc);
	assert_int_equal(rc, 0);
	/* 1 warm-up + 3 rounds of 1000 ops */
	assert_non_null(strstr(out, "measured by the variants over every op: counting: ops-seen "
				    "4000, xxxxxxxxxxxxxxxxxxxxxxx 0.25 us\n"));
	assert_null(strstr(out, "silent:"));
	free(out);

	o.json = 1;
	out = run_suite(&t_figs, &o, &rc);
	assert_int_equal(rc, 0);
	size_t figs = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		assert_true(json_valid(line));
		if (!strstr(line, "\"over\":\"every op\""))
			continue;
		figs++;
		assert_non_null(strstr(line, "\"variant\":\"counting\""));
		if (strstr(line, "\"metric\":\"ops-seen\""))
			assert_non_null(strstr(line, "\"median\":4000,"));
	}
	assert_int_equal(figs, 2);
	free(out);

	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	FILE *f = tmpfile();
	assert_non_null(f);
	struct sp_bench_opts io = { .sz = sizeof(io), .reps = 3, .out = f, .results = res };
	assert_int_equal(sp_bench_run_isolated(&t_figs, &io), 0);
	assert_int_equal(sp_bench_results_count(res), 1);
	assert_int_equal(res->c[0].v[0].nfig, 2);
	assert_int_equal(res->c[0].v[1].nfig, 0);
	char *sum = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sum, &len);
	assert_non_null(m);
	sp_bench_summary(m, res);
	fclose(m);
	assert_non_null(strstr(sum, "; counting: ops-seen 4000, xxxxxxxxxxxxxxxxxxxxxxx 0.25 us\n"));
	free(sum);
	fclose(f);
	sp_bench_results_free(res);
}

static void test_bench__isolated_run_keeps_results(void **st)
{
	(void)st;
	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	FILE *out = tmpfile(), *prog = tmpfile();
	assert_non_null(out);
	assert_non_null(prog);
	struct sp_bench_opts o = { .sz = sizeof(o), .reps = 3, .min_sample_ms = 0.1, .out = out,
				   .progress = prog, .results = res };
	ncalls = 0;
	assert_int_equal(sp_bench_run_isolated(&t_suite, &o), 0);
	assert_int_equal(ncalls, 0);		/* the variants ran in the child */
	assert_int_equal(sp_bench_results_count(res), 2);
	const struct bench_kept_case *k = &res->c[0];
	assert_ptr_equal(k->s, &t_suite);
	assert_string_equal(k->name, "small");
	assert_string_equal(res->c[1].name, "big");
	assert_int_equal(k->nv, 4);
	assert_string_equal(k->v[2].name, "half");
	assert_int_equal(k->v[3].err, -ENOTSUP);
	assert_true(k->v[0].ratio == 1 && isfinite(k->v[1].med) && k->v[1].min <= k->v[1].max);
	assert_string_equal(k->context, "test context line");

	/* The child dies in case big: case small is kept, the run reports -ECHILD. */
	assert_int_equal(sp_bench_run_isolated(&t_kill, &o), -ECHILD);
	assert_int_equal(sp_bench_results_count(res), 3);
	assert_ptr_equal(res->c[2].s, &t_kill);
	assert_string_equal(res->c[2].name, "small");

	/* The summary quotes both suites, one line each, from their last kept case. */
	char *sum = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sum, &len);
	sp_bench_summary(f, res);
	fclose(f);
	assert_non_null(strstr(sum, "  test         big: "));
	assert_non_null(strstr(sum, "x of base ns/step ("));
	assert_non_null(strstr(sum, "  test-kill    small: killer "));
	free(sum);
	sp_bench_results_free(res);

	char *text = slurp(out), *ptext = slurp(prog);
	assert_non_null(strstr(text, "test [small]"));
	assert_non_null(strstr(text, "test [big]"));
	assert_non_null(strstr(text, "test-kill [small]"));
	assert_null(strstr(text, "test-kill [big]"));
	assert_non_null(strstr(ptext, "bench test-kill: the suite's process died by signal 9"));
	free(text);
	free(ptext);
}

/* ---- noise and bimodality (bench_int.h's rules) ---- */

static void rules_of(const double *x, size_t n, int *noisy, int *bimodal)
{
	struct bench_stats s;
	bench_stats_compute(x, n, &s);
	*noisy = bench_stats_noisy(&s);
	*bimodal = bench_stats_bimodal(&s);
}

static void test_bench__noise_and_bimodal_rules(void **st)
{
	(void)st;
	int noisy, bim;
	/* pstdev/mean 2.7%: quiet; 4.0%: noisy */
	rules_of((const double[]){ 97, 100, 103, 97, 103 }, 5, &noisy, &bim);
	assert_true(!noisy && !bim);
	rules_of((const double[]){ 96, 100, 104, 95, 105 }, 5, &noisy, &bim);
	assert_true(noisy && !bim);
	/* a fast and a slow mode, the median in the slow one: bimodal (slab batch64-4096) */
	rules_of((const double[]){ 20, 2900, 2916, 20, 2950 }, 5, &noisy, &bim);
	assert_true(noisy && bim);
	/* the same with the median in the fast mode: the slow rounds are what disturbance does */
	rules_of((const double[]){ 20, 21, 2916, 20, 2950 }, 5, &noisy, &bim);
	assert_true(noisy && !bim);
	/* one slow outlier, however far: not bimodal */
	rules_of((const double[]){ 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 500 }, 11, &noisy, &bim);
	assert_true(noisy && !bim);
	/* one fast round just below median/4 among 11 spreads the samples by 23%: not enough */
	rules_of((const double[]){ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.24 }, 11, &noisy, &bim);
	assert_true(noisy && !bim);
	/* two such rounds: 34%, bimodal */
	rules_of((const double[]){ 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.24, 0.24 }, 11, &noisy, &bim);
	assert_true(noisy && bim);
	/* a min at median/3 is no separate mode even when the spread is large */
	rules_of((const double[]){ 0.34, 0.34, 1, 1, 1 }, 5, &noisy, &bim);
	assert_true(noisy && !bim);
	/* fewer than 3 samples, or none: never bimodal */
	rules_of((const double[]){ 0.01, 1 }, 2, &noisy, &bim);
	assert_true(!bim);
	rules_of((const double[]){ NAN, NAN, NAN }, 3, &noisy, &bim);
	assert_true(!noisy && !bim);
}

/* The text table names a bimodal variant with its min and median; the JSON objects carry
 * "noisy" and "bimodal" for every metric. */
static void test_bench__bimodal_in_table_and_json(void **st)
{
	(void)st;
	static const double ns[3][5] = { { 100, 101, 99, 100, 100 },
					 { 0.5, 200, 0.5, 201, 199 },
					 { 50, 50, 51, 49, 50 } };
	struct bench_var_res vr[4];
	double x[3][BENCH_M_NR][5];
	memset(vr, 0, sizeof(vr));
	for (size_t vi = 0; vi < 4; vi++) {
		vr[vi].v = &t_variants[vi];
		vr[vi].cg_d1 = vr[vi].cg_ir = vr[vi].cg_ops = NAN;
		for (int m = 0; vi < 3 && m < BENCH_M_NR; m++) {
			for (int k = 0; k < 5; k++)
				x[vi][m][k] = m <= BENCH_M_CPU ? ns[vi][k] : NAN;
			vr[vi].m[m] = x[vi][m];
		}
	}
	vr[3].err = -ENOTSUP;
	struct bench_case_res r = { .s = &t_suite, .c = &t_cases[0], .reps = 5, .cpu = 0,
				    .hw_err = ENOENT, .vr = vr };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	bench_report_table(f, &r);
	fclose(f);
	assert_non_null(strstr(buf, "  bimodal wall time (pstdev/mean above 25%, min below "
				    "median/4: two modes, the median in the slow one; its ratios "
				    "compare modes): double min 0.500 median 199.00 ns\n"));
	free(buf);

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	bench_report_json(f, &r);
	fclose(f);
	size_t lines = 0;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		assert_true(json_valid(line));
		if (strstr(line, "\"skipped\""))
			continue;
		lines++;
		int dbl = !!strstr(line, "\"variant\":\"double\"");
		assert_non_null(strstr(line, dbl ? "\"noisy\":true,\"bimodal\":true"
						 : "\"noisy\":false,\"bimodal\":false"));
	}
	assert_int_equal(lines, 3 * 2);		/* ns/op and cpu-ns/op of 3 variants */
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bench__stats_known_samples),
		cmocka_unit_test(test_bench__stats_welford_stable_and_nan),
		cmocka_unit_test(test_bench__ratio_of_medians_and_rounds),
		cmocka_unit_test(test_bench__callgrind_parse_fixture),
		cmocka_unit_test(test_bench__callgrind_parse_edge_cases),
		cmocka_unit_test(test_bench__cache_geometry),
		cmocka_unit_test(test_bench__json_validator_self_check),
		cmocka_unit_test(test_bench__e2e_table_every_variant_runs),
		cmocka_unit_test(test_bench__e2e_fixed_ops_rotation),
		cmocka_unit_test(test_bench__e2e_json_lines_valid),
		cmocka_unit_test(test_bench__only_case_and_registry),
		cmocka_unit_test(test_bench__budget_scales_samples_and_cuts_rounds),
		cmocka_unit_test(test_bench__isolated_run_keeps_results),
		cmocka_unit_test(test_bench__variant_figures),
		cmocka_unit_test(test_bench__noise_and_bimodal_rules),
		cmocka_unit_test(test_bench__bimodal_in_table_and_json),
	};
	return cmocka_run_group_tests_name("bench", tests, NULL, NULL);
}
