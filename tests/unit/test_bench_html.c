/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_bench_html.c - the bench report's kept results, summary and HTML page (report.c,
 * report_html.c) on a synthetic result set: every bar's height is proportional to its median,
 * whiskers span min..max, skipped variants draw no bar, D1-miss charts appear only where
 * callgrind measured, names are HTML-escaped, the page references nothing external, and the
 * summary names the fastest variant with its ratio.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/bench.h"
#include "bench/bench_int.h"

static int t_setup(const void *p, void **st)
{
	(void)p;
	*st = NULL;
	return 0;
}

static void t_run(void *st, uint64_t n)
{
	(void)st;
	(void)n;
}

static const struct sp_bench_variant t_vars[] = {
	{ "base", t_setup, t_run, NULL },
	{ "fast", t_setup, t_run, NULL },
	{ "<a&b>\"q'", t_setup, t_run, NULL },
	{ "gone", t_setup, t_run, NULL },
};
static const struct sp_bench_case t_cases[] = {
	{ "small", NULL, 0 },
	{ "big <2>", NULL, 0 },
};
static const struct sp_bench_suite t_suite = {
	.name = "synth&co",
	.desc = "a synthetic <suite>",
	.unit = "op",
	.cases = t_cases,
	.ncases = 2,
	.variants = t_vars,
	.nvariants = 4,
	.context = "kernel: 205 ns -> 173 ns\nsecond <line>",
};

#define REPS 5

/*
 * Case ci: variant vi's samples are med[vi] * {0.9, 1, 1, 1, 1.3} (min 0.9 med, max 1.3 med),
 * its process CPU time (vi + 1) times that; variant 3 is skipped; with cg, callgrind D1 misses
 * per op are 4, 1, 2; unpinned: the suite ran its own threads (CPU time charted too).
 */
static const double med[2][3] = { { 100, 25, 50 }, { 2e4, 1e4, 3e4 } };
static const double shape[REPS] = { 1, 0.9, 1, 1.3, 1 };

static void add_case_as(struct sp_bench_results *res, size_t ci, int cg, int unpinned)
{
	struct bench_var_res vr[4];
	double samples[4][BENCH_M_NR][REPS];
	struct bench_case_res r = { .s = &t_suite, .c = &t_cases[ci], .reps = REPS,
				    .cpu = unpinned ? -1 : 0,
				    .last = ci == 1, .vr = vr,
				    .cg_geom = cg ? "49152,12,64" : NULL };

	memset(vr, 0, sizeof(vr));
	for (size_t vi = 0; vi < 4; vi++) {
		vr[vi].v = &t_vars[vi];
		vr[vi].cg_d1 = vr[vi].cg_ir = vr[vi].cg_ops = NAN;
		for (int m = 0; m < BENCH_M_NR; m++) {
			for (int k = 0; k < REPS; k++)
				samples[vi][m][k] = vi < 3 && m <= BENCH_M_CPU
					? med[ci][vi] * shape[k] * (m == BENCH_M_CPU ? vi + 1 : 1)
					: NAN;
			vr[vi].m[m] = samples[vi][m];
		}
		if (cg && vi < 3) {
			vr[vi].cg_d1 = (double[]){ 4, 1, 2 }[vi];
			vr[vi].cg_ir = 100;
		}
	}
	vr[3].err = -ENOTSUP;
	assert_int_equal(bench_results_add(res, &r), 0);
}

static void add_case(struct sp_bench_results *res, size_t ci, int cg)
{
	add_case_as(res, ci, cg, 0);
}

static char *html_of(const struct sp_bench_results *res, const struct sp_bench_html_info *info)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(sp_bench_html(f, res, info), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The numeric attribute attr="..." of the element starting at p. */
static double attr(const char *p, const char *name)
{
	char key[32];
	snprintf(key, sizeof(key), " %s=\"", name);
	const char *end = strchr(p, '>');
	const char *a = strstr(p, key);
	assert_non_null(a);
	assert_true(a < end);
	return strtod(a + strlen(key), NULL);
}

/* Heights of the bars of class cls, in page order. */
static size_t bar_heights(const char *page, const char *cls, double *h, size_t max)
{
	char needle[64];
	size_t n = 0;
	snprintf(needle, sizeof(needle), "<rect class=\"bar %s\"", cls);
	for (const char *p = page; (p = strstr(p, needle)); p += strlen(needle)) {
		assert_true(n < max);
		h[n++] = attr(p, "height");
	}
	return n;
}

static struct sp_bench_results *synth(int cg)
{
	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	add_case(res, 0, 0);
	add_case(res, 1, cg);
	assert_int_equal(sp_bench_results_count(res), 2);
	return res;
}

static void test_bench_html__bars_proportional_with_whiskers(void **st)
{
	(void)st;
	struct sp_bench_results *res = synth(0);
	char *page = html_of(res, NULL);
	double h[16];

	/* 3 variants ran in each of 2 cases; the skipped one draws no bar */
	assert_int_equal(bar_heights(page, "ns", h, 16), 6);
	assert_int_equal(count(page, "<rect class=\"bar miss\""), 0);
	assert_int_equal(count(page, ">skipped</text>"), 2);
	for (size_t ci = 0; ci < 2; ci++)
		for (size_t vi = 1; vi < 3; vi++) {
			double want = med[ci][vi] / med[ci][0];
			assert_true(fabs(h[3 * ci + vi] / h[3 * ci] - want) < 1e-3 * want);
		}
	/* the largest max is 1.3 x its median: the axis ends at 1.25 x the tallest bar instead */
	assert_true(fabs(h[0] - 150 / 1.25) < 0.01 && fabs(h[5] - 150 / 1.25) < 0.01);
	/* one whisker per bar, from 0.9 to 1.3 x the median; the two of the tallest bars are cut
	 * at the top and marked */
	assert_int_equal(count(page, "<path class=\"whisker\""), 6);
	assert_int_equal(count(page, "<path class=\"clip\""), 2);
	const char *wk = "<path class=\"whisker\" d=\"M";
	const char *w = strstr(strstr(page, "<figcaption>big &lt;2&gt;"), wk);
	w = strstr(w + 1, wk);
	w = strstr(w + 1, wk);
	assert_non_null(w);
	double x, ylo, yhi;
	assert_int_equal(sscanf(strstr(w, "d=\"M") + 4, "%lf %lfV%lf", &x, &ylo, &yhi), 3);
	assert_true(fabs(yhi - 34) < 0.01);		/* cut at the top of the plot */
	assert_true(fabs(ylo - (184 - 150 * 0.9 / 1.25)) < 0.01);
	/* an uncut whisker: case small, variant 2 (median 50 of an axis of 125): 45..65 */
	w = strstr(strstr(strstr(strstr(page, "<figcaption>small"), wk) + 1, wk) + 1, wk);
	assert_int_equal(sscanf(strstr(w, "d=\"M") + 4, "%lf %lfV%lf", &x, &ylo, &yhi), 3);
	assert_true(fabs(ylo - (184 - 150 * 45 / 125.0)) < 0.01);
	assert_true(fabs(yhi - (184 - 150 * 65 / 125.0)) < 0.01);
	/* the ratio labels: 0.25x and 0.5x in case 1, 0.5x and 1.5x in case 2 */
	assert_non_null(strstr(page, "0.250x"));
	assert_non_null(strstr(page, "1.50x"));
	/* every svg is closed */
	assert_int_equal(count(page, "<svg "), 2);
	assert_int_equal(count(page, "</svg>"), 2);
	free(page);
	sp_bench_results_free(res);
}

static void test_bench_html__miss_chart_only_where_measured(void **st)
{
	(void)st;
	struct sp_bench_results *res = synth(1);
	char *page = html_of(res, NULL);
	double h[8];
	assert_int_equal(bar_heights(page, "miss", h, 8), 3);
	assert_true(fabs(h[1] / h[0] - 0.25) < 1e-6 && fabs(h[2] / h[0] - 0.5) < 1e-6);
	assert_int_equal(count(page, "<svg "), 3);
	assert_int_equal(count(page, "</svg>"), 3);
	assert_non_null(strstr(page, "D1 49152,12,64"));
	free(page);
	sp_bench_results_free(res);
}

static void test_bench_html__cpu_chart_when_unpinned(void **st)
{
	(void)st;
	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	add_case_as(res, 0, 0, 1);
	char *page = html_of(res, NULL);
	double h[8], c[8];
	assert_int_equal(bar_heights(page, "ns", h, 8), 3);
	assert_int_equal(bar_heights(page, "cpu", c, 8), 3);
	/* CPU medians 100, 50, 150: the wall bars keep their own proportions */
	assert_true(fabs(c[1] / c[0] - 0.5) < 1e-4 && fabs(c[2] / c[0] - 1.5) < 1e-4);
	assert_true(fabs(h[1] / h[0] - 0.25) < 1e-4 && fabs(h[2] / h[0] - 0.5) < 1e-4);
	assert_true(fabs(c[2] - 150 / 1.25) < 0.01);
	assert_non_null(strstr(page, "process CPU time per op (all threads)"));
	assert_int_equal(count(page, "<svg "), 2);
	assert_int_equal(count(page, "<path class=\"whisker\""), 6);
	free(page);

	/* the summary uses CPU time for it */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	sp_bench_summary(f, res);
	fclose(f);
	assert_non_null(strstr(buf, "small: fast 0.5x of base cpu-ns/op (50.0 vs 100 ns)"));
	free(buf);
	sp_bench_results_free(res);
}

static void test_bench_html__escaping_and_self_contained(void **st)
{
	(void)st;
	struct sp_bench_results *res = synth(0);
	struct sp_bench_machine m = { .cpu = "Test <CPU> & co", .cores = 2, .l1d_size = 49152,
				      .l1d_assoc = 12, .l1d_line = 64, .kernel = "Linux 6.1" };
	struct sp_bench_html_info info = { .machine = &m, .date = "2026-11-30 09:00 UTC",
					   .command = "secpath bench --html <x>", .wall_s = 12.5 };
	char *page = html_of(res, &info);

	assert_non_null(strstr(page, "&lt;a&amp;b&gt;&quot;q&#39;"));
	assert_null(strstr(page, "<a&b>"));
	assert_non_null(strstr(page, "synth&amp;co"));
	assert_non_null(strstr(page, "a synthetic &lt;suite&gt;"));
	assert_non_null(strstr(page, "205 ns -&gt; 173 ns<br>second &lt;line&gt;"));
	assert_non_null(strstr(page, "Test &lt;CPU&gt; &amp; co"));
	assert_non_null(strstr(page, "48 KiB, 12-way, 64 B lines, 64 sets"));
	assert_non_null(strstr(page, "--html &lt;x&gt;"));
	assert_non_null(strstr(page, "2026-11-30 09:00 UTC"));
	assert_non_null(strstr(page, "12.5 s wall time"));
	assert_non_null(strstr(page, sp_version()));
	/* nothing external: no scripts, links, images or URLs */
	assert_null(strstr(page, "<script"));
	assert_null(strstr(page, "<link"));
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "http:"));
	assert_null(strstr(page, "https:"));
	assert_null(strstr(page, "url("));
	/* the summary is in the page, escaped */
	assert_non_null(strstr(page, "<pre class=\"summary\">"));
	assert_non_null(strstr(page, "synth&amp;co"));
	assert_int_equal(count(page, "<html"), 1);
	assert_int_equal(count(page, "</html>"), 1);
	free(page);
	sp_bench_results_free(res);
}

static void test_bench_html__summary_names_fastest(void **st)
{
	(void)st;
	struct sp_bench_results *res = synth(0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	sp_bench_summary(f, res);
	fclose(f);
	/* not in the registry's headlines: the last case, the fastest variant first */
	assert_non_null(strstr(buf, "synth&co"));
	assert_non_null(strstr(buf, "big <2>: fast 0.5x of base ns/op (10.0 vs 20.0 us)"));
	assert_non_null(strstr(buf, "; <a&b>\"q' 1.5x!, gone n/a"));	/* noisy: 13% */
	assert_non_null(strstr(buf, "  ! pstdev/mean above 3% in the variant or the baseline"));
	assert_null(strstr(buf, "bimodal"));
	assert_int_equal(count(buf, "synth&co"), 1);		/* one line per suite */
	free(buf);

	/* nothing kept: no summary, and the page says so */
	struct sp_bench_results *none;
	assert_int_equal(sp_bench_results_new(&none), 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	sp_bench_summary(f, none);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
	char *page = html_of(none, NULL);
	assert_non_null(strstr(page, "no results"));
	free(page);
	sp_bench_results_free(none);
	sp_bench_results_free(res);
}

/* A real suite: the registry names its headline case and variant (slab-spread: N=200, hwcache),
 * which the summary quotes even when another case ran last and another variant is faster. */
static void test_bench_html__registry_headline(void **st)
{
	(void)st;
	const struct sp_bench_suite *s = sp_bench_suite_find("slab-spread");
	assert_non_null(s);
	assert_true(s->nvariants == 3 && s->ncases >= 3);
	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	for (size_t ci = 0; ci < s->ncases; ci++) {
		struct bench_var_res vr[3];
		double x[3][BENCH_M_NR][REPS];
		memset(vr, 0, sizeof(vr));
		for (size_t vi = 0; vi < 3; vi++) {
			vr[vi].v = &s->variants[vi];
			vr[vi].cg_d1 = vr[vi].cg_ir = vr[vi].cg_ops = NAN;
			for (int m = 0; m < BENCH_M_NR; m++) {
				for (int k = 0; k < REPS; k++)
					x[vi][m][k] = m <= BENCH_M_CPU
						? (double[]){ 1000, 300, 200 }[vi] * (ci + 1) : NAN;
				vr[vi].m[m] = x[vi][m];
			}
		}
		struct bench_case_res r = { .s = s, .c = &s->cases[ci], .reps = REPS, .vr = vr };
		assert_int_equal(bench_results_add(res, &r), 0);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	sp_bench_summary(f, res);
	fclose(f);
	assert_non_null(strstr(buf, "  slab-spread  N=200: hwcache 0.3x of kmalloc-512 ns/pass ("));
	assert_non_null(strstr(buf, "; colour 0.2x\n"));
	free(buf);
	sp_bench_results_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bench_html__bars_proportional_with_whiskers),
		cmocka_unit_test(test_bench_html__miss_chart_only_where_measured),
		cmocka_unit_test(test_bench_html__cpu_chart_when_unpinned),
		cmocka_unit_test(test_bench_html__escaping_and_self_contained),
		cmocka_unit_test(test_bench_html__summary_names_fastest),
		cmocka_unit_test(test_bench_html__registry_headline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
