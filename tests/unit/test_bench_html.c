/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_bench_html.c - the bench report's kept results, summary and HTML page (report.c,
 * report_html.c) on a synthetic result set: every bar's height is proportional to its median,
 * whiskers span min..max, skipped variants draw no bar, D1-miss charts appear only where
 * callgrind measured, names are HTML-escaped, the page references nothing external, the
 * summary names the fastest variant with its ratio, and the issues' targets (targets.c) are
 * judged from the kept figures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fnmatch.h>
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
 * its process CPU time (vi + 1) times that, vi of its samples disturbed; variant 3 is skipped;
 * with cg, callgrind D1 misses per op are 4, 1, 2; unpinned: the suite ran its own threads (CPU
 * time charted too).  No hw counters (ENOENT).
 */
static const double med[2][3] = { { 100, 25, 50 }, { 2e4, 1e4, 3e4 } };
static const double shape[REPS] = { 1, 0.9, 1, 1.3, 1 };

static void add_case_as(struct sp_bench_results *res, size_t ci, int cg, int unpinned)
{
	struct bench_var_res vr[4];
	double samples[4][BENCH_M_NR][REPS];
	struct bench_case_res r = { .s = &t_suite, .c = &t_cases[ci], .reps = REPS,
				    .cpu = unpinned ? -1 : 0, .hw_err = ENOENT,
				    .last = ci == 1, .vr = vr,
				    .cg_geom = cg ? "49152,12,64" : NULL };

	memset(vr, 0, sizeof(vr));
	for (size_t vi = 0; vi < 4; vi++) {
		vr[vi].v = &t_vars[vi];
		vr[vi].disturbed = (unsigned)vi;
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

/*
 * A case of any suite s (of at most 8 variants) with the given wall-time samples for its first
 * nv variants (CPU time the same; the others skipped, as a library that did not load), pinned;
 * d1 (NULL: no --cachegrind) the D1 misses per op.
 */
static void add_samples(struct sp_bench_results *res, const struct sp_bench_suite *s,
			size_t ci, size_t nv, const double ns[][REPS], const double *d1)
{
	struct bench_var_res vr[8];
	double x[8][BENCH_M_NR][REPS];
	struct bench_case_res r = { .s = s, .c = &s->cases[ci], .reps = REPS, .vr = vr,
				    .cg_geom = d1 ? "32768,8,64" : NULL };

	assert_true(nv <= s->nvariants && s->nvariants <= 8);
	memset(vr, 0, sizeof(vr));
	for (size_t vi = nv; vi < s->nvariants; vi++) {
		vr[vi].v = &s->variants[vi];
		vr[vi].err = -ELIBACC;
		vr[vi].cg_ir = vr[vi].cg_d1 = vr[vi].cg_ops = NAN;
	}
	for (size_t vi = 0; vi < nv; vi++) {
		vr[vi].v = &s->variants[vi];
		vr[vi].cg_d1 = d1 ? d1[vi] : NAN;
		vr[vi].cg_ir = vr[vi].cg_ops = d1 ? 100 : NAN;
		for (int m = 0; m < BENCH_M_NR; m++) {
			for (int k = 0; k < REPS; k++)
				x[vi][m][k] = m <= BENCH_M_CPU ? ns[vi][k] : NAN;
			vr[vi].m[m] = x[vi][m];
		}
	}
	assert_int_equal(bench_results_add(res, &r), 0);
}

/* What print (the summary, the targets) writes of res, as a string. */
static char *report_of(void (*print)(FILE *, const struct sp_bench_results *),
		       const struct sp_bench_results *res)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	print(f, res);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static char *summary_of(const struct sp_bench_results *res)
{
	return report_of(sp_bench_summary, res);
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
	/* TEST_BENCH_HTML_DUMP=PREFIX: each page also goes to PREFIX.N.html, to look at */
	static unsigned npage;
	const char *dump = getenv("TEST_BENCH_HTML_DUMP");
	if (dump) {
		char path[512];
		snprintf(path, sizeof(path), "%s.%u.html", dump, npage++);
		FILE *d = fopen(path, "w");
		assert_non_null(d);
		fputs(buf, d);
		assert_int_equal(fclose(d), 0);
	}
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

/* The y of value v on a log axis from lo over dec decades (report_html.c's geometry). */
static double log_y(double v, double lo, double dec)
{
	return 184 - 150 * log10(v / lo) / dec;
}

/* Medians 40x apart: a log axis from 10 to 10^4 with a labelled line per decade, and bar heights
 * that follow the logarithm of the median (whiskers are never cut on a log axis). */
static void test_bench_html__log_axis_decades(void **st)
{
	(void)st;
	static const double m3[3] = { 1000, 25, 250 };
	double ns[4][REPS];
	for (int vi = 0; vi < 4; vi++)
		for (int k = 0; k < REPS; k++)
			ns[vi][k] = vi < 3 ? m3[vi] * shape[k] : NAN;
	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	add_samples(res, &t_suite, 0, 4, ns, NULL);
	char *page = html_of(res, NULL);
	double h[8];

	assert_int_equal(count(page, "class=\"chart ns log\""), 1);
	assert_non_null(strstr(page, "(ns, log scale)"));
	/* 0.9 x 25 .. 1.3 x 1000: decades 10, 100, 1000, 10000; minor lines, unlabelled */
	assert_int_equal(count(page, "<line class=\"grid major\""), 4);
	assert_int_equal(count(page, "<line class=\"grid minor\""), 3 * 8);
	assert_int_equal(count(page, "<text class=\"tick\""), 4);
	for (const char *t = ">10</text>", *const *p = (const char *const[]){
		     ">10</text>", ">100</text>", ">1000</text>", ">10000</text>", NULL };
	     (t = *p); p++)
		assert_non_null(strstr(page, t));
	assert_int_equal(bar_heights(page, "ns", h, 8), 3);
	for (int vi = 0; vi < 3; vi++)
		assert_true(fabs(h[vi] - 50 * log10(m3[vi] / 10)) < 1e-3);
	assert_int_equal(count(page, "<path class=\"clip\""), 0);
	const char *w = strstr(page, "<path class=\"whisker\" d=\"M");
	double x, ylo, yhi;
	assert_int_equal(sscanf(w + strlen("<path class=\"whisker\" d=\"M"), "%lf %lfV%lf", &x,
				&ylo, &yhi), 3);
	assert_true(fabs(ylo - log_y(900, 10, 3)) < 1e-2 && fabs(yhi - log_y(1300, 10, 3)) < 1e-2);
	free(page);
	sp_bench_results_free(res);
}

/* A linear axis has round ticks: 0, 20, .., 120 for a top of 125; 0, 10, 20, 30 for 37.5. */
static void test_bench_html__linear_ticks_round(void **st)
{
	(void)st;
	struct sp_bench_results *res = synth(0);
	char *page = html_of(res, NULL);
	const char *big = strstr(page, "<figcaption>big &lt;2&gt;");
	assert_non_null(big);
	assert_int_equal(count(page, "(ns, linear from 0)"), 1);
	assert_int_equal(count(page, "(us, linear from 0)"), 1);
	assert_null(strstr(page, "class=\"chart ns log\""));
	char *small = strndup(page, (size_t)(big - page));
	assert_int_equal(count(small, "<text class=\"tick\""), 7);
	assert_non_null(strstr(small, ">120</text>"));
	assert_null(strstr(small, ">125</text>"));
	assert_int_equal(count(big, "<text class=\"tick\""), 4);
	assert_non_null(strstr(big, ">30</text>"));
	free(small);
	free(page);
	sp_bench_results_free(res);
}

static const struct sp_bench_ref t_refs[] = {
	{ "small", SP_BENCH_REF_NS, 0, 80, "kernel <x>" },
	{ "small", SP_BENCH_REF_NS, 1, 30, "a target" },
	{ "big*", SP_BENCH_REF_NS, 0, 15e3, "big ref" },
	{ NULL, SP_BENCH_REF_D1, 0, 3, "misses ref" },
	{ "none", SP_BENCH_REF_NS, 0, 1, "matches no case" },
	{ NULL, 0, 0, 0, NULL },
};
static const struct sp_bench_suite t_suite_refs = {
	.name = "refs", .desc = "with marks", .unit = "op", .cases = t_cases, .ncases = 2,
	.variants = t_vars, .nvariants = 4, .context = "kernel: 80 ns", .refs = t_refs,
};

/* The y1 of the n-th <line class="ref CLS"> after p. */
static double ref_y(const char *p, const char *cls, int n)
{
	char needle[64];
	snprintf(needle, sizeof(needle), "<line class=\"ref %s\"", cls);
	for (p = strstr(p, needle); n-- > 0; p = strstr(p + 1, needle))
		assert_non_null(p);
	assert_non_null(p);
	return attr(p, "y1");
}

/* The suite's reference figures are marks on the charts of their cases: on the wall chart in
 * the chart's unit, on the D1 chart (only with --cachegrind), listed under the tables; a
 * pattern that matches no case draws nothing. */
static void test_bench_html__reference_marks(void **st)
{
	(void)st;
	double ns[2][4][REPS];
	for (int ci = 0; ci < 2; ci++)
		for (int vi = 0; vi < 4; vi++)
			for (int k = 0; k < REPS; k++)
				ns[ci][vi][k] = vi < 3 ? med[ci][vi] * shape[k] : NAN;
	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	add_samples(res, &t_suite_refs, 0, 4, ns[0], NULL);
	add_samples(res, &t_suite_refs, 1, 4, ns[1], (const double[]){ 4, 1, 2, NAN });
	char *page = html_of(res, NULL);
	const char *big = strstr(page, "<figcaption>big &lt;2&gt;");
	assert_non_null(big);

	/* small: 80 measured and 30 target on a linear axis of 125 (spread 100/25 = 4 <= 5) */
	assert_int_equal(count(page, "<line class=\"ref measured\""), 3);
	assert_int_equal(count(page, "<line class=\"ref target\""), 1);
	assert_true(fabs(ref_y(page, "measured", 0) - (184 - 150 * 80 / 125.0)) < 1e-2);
	assert_true(fabs(ref_y(page, "target", 0) - (184 - 150 * 30 / 125.0)) < 1e-2);
	assert_non_null(strstr(page, ">80.0 ns kernel &lt;x&gt;</text>"));
	/* big: 15 us on the us axis (top 37.5), and the D1 mark on the miss chart (log: 1..4
	 * with a mark of 3 spans 4x: linear, top 4) */
	assert_true(fabs(ref_y(big, "measured", 0) - (184 - 150 * 15 / 37.5)) < 1e-2);
	assert_true(fabs(ref_y(big, "measured", 1) - (184 - 150 * 3 / 4.0)) < 1e-2);
	assert_non_null(strstr(big, ">3.00 misses misses ref</text>"));
	assert_null(strstr(page, "matches no case"));
	/* listed under the tables, with what they are */
	assert_non_null(strstr(page, "mark (target, dashed): 30.0 ns/op, a target"));
	assert_non_null(strstr(big, "mark (measured elsewhere, solid): 3.00 D1 misses/op, "
				    "misses ref"));
	/* no D1 chart in case small: its D1 mark is not listed there */
	assert_int_equal(count(page, "misses ref</li>"), 1);
	assert_non_null(strstr(page, "(the per-op figures are marked on the charts"));
	free(page);
	sp_bench_results_free(res);

	/* a suite without refs says its context is prose only */
	res = synth(0);
	page = html_of(res, NULL);
	assert_int_equal(count(page, "<line class=\"ref"), 0);
	assert_non_null(strstr(page, "(prose only: it states no per-op figure"));
	free(page);
	sp_bench_results_free(res);
}

/* Per case a table with the text report's numbers: min, median, max, pstdev %, the noise flag,
 * disturbed samples, the ratio with its per-round range, callgrind columns where measured. */
static void test_bench_html__table_per_case(void **st)
{
	(void)st;
	struct sp_bench_results *res = synth(1);
	char *page = html_of(res, NULL);

	assert_int_equal(count(page, "<table class=\"case\">"), 2);
	assert_int_equal(count(page, "</table>"), 3);		/* and the host's */
	assert_int_equal(count(page, "<th>pstdev %</th><th>noise</th><th>disturbed</th>"), 2);
	assert_int_equal(count(page, "<th>callgrind Ir/op</th><th>Ir ratio</th>"), 1);
	assert_null(strstr(page, "<th>IPC</th>"));		/* no hw counters */
	assert_int_equal(count(page, "hw counters: n/a (perf_event_open: "), 2);
	/* fast in case small: 0.9, 1, 1.3 x 25 ns; pstdev 13.0% of the mean: noisy; 1 of 5
	 * samples disturbed; ratio 0.25 in every round */
	assert_non_null(strstr(page, "<td class=\"name\">fast</td><td>22.5</td><td>25.0</td>"
				     "<td>32.5</td><td>13.0</td><td><span class=\"noisy\">!</span>"
				     "</td><td>1/5</td><td>0.250</td><td>0.250&ndash;0.250</td>"));
	assert_non_null(strstr(page, "<td class=\"name\">base</td><td>90.0</td><td>100</td>"
				     "<td>130</td><td>13.0</td>"));
	assert_non_null(strstr(page, "<td>0/5</td><td>1 (baseline)</td><td></td>"));
	/* callgrind: Ir 100 for each: Ir ratio 1; D1 misses 1 for fast */
	assert_non_null(strstr(page, "<td>0.500&ndash;0.500</td><td>100</td><td>1.000</td>"
				     "<td>1.00</td></tr>"));
	assert_int_equal(count(page, "<td colspan=\"11\" class=\"skip\">skipped: "), 1);
	assert_int_equal(count(page, "<td colspan=\"8\" class=\"skip\">skipped: "), 1);
	free(page);
	sp_bench_results_free(res);

	/* unpinned: a table of CPU time too, without the disturbed column */
	assert_int_equal(sp_bench_results_new(&res), 0);
	add_case_as(res, 0, 0, 1);
	page = html_of(res, NULL);
	assert_int_equal(count(page, "<table class=\"case\">"), 2);
	assert_int_equal(count(page, "<th>disturbed</th>"), 0);
	assert_non_null(strstr(page, "<caption>process CPU time (user + sys, all threads) per op"));
	free(page);
	sp_bench_results_free(res);
}

/* A bimodal headline variant (slab's init-off) is called out with its min and median and no
 * ratio, in the summary and on the page; a bimodal baseline leaves every variant without one. */
static void test_bench_html__bimodal_flagged(void **st)
{
	(void)st;
	const struct sp_bench_suite *slab = sp_bench_suite_find("slab");
	const struct sp_bench_suite *spread = sp_bench_suite_find("slab-spread");
	assert_non_null(slab);
	assert_non_null(spread);
	assert_true(slab->nvariants >= 5);	/* the first five: glibc and secpath's */
	assert_string_equal(slab->variants[1].name, "init-off");
	static const double modes[REPS] = { 20, 2900, 2916, 20, 2950 };
	double ns[5][REPS];
	for (int vi = 0; vi < 5; vi++)
		for (int k = 0; k < REPS; k++)
			ns[vi][k] = vi == 1 ? modes[k] : 50 * (vi + 1) * (1 + 0.001 * k);
	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	add_samples(res, slab, 0, 5, ns, NULL);		/* hot-64, the headline case */
	size_t n200 = 0;
	while (strcmp(spread->cases[n200].name, "N=200"))
		n200++;
	double sp[3][REPS];
	for (int vi = 0; vi < 3; vi++)
		for (int k = 0; k < REPS; k++)
			sp[vi][k] = vi == 0 ? modes[k] : 100 * (1 + 0.001 * k);
	add_samples(res, spread, n200, 3, sp, NULL);

	char *sum = summary_of(res);
	assert_non_null(strstr(sum, "  slab         hot-64: init-off bimodal: min 20.0, median "
				    "2900 ns; no ratio (glibc 50.1 ns); alloc-init 3x, "));
	assert_non_null(strstr(sum, "  slab-spread  N=200: kmalloc-512 (the baseline) bimodal: "
				    "min 20.0, median 2900 ns; no ratio (hwcache 100 ns); "
				    "colour no ratio\n"));
	assert_non_null(strstr(sum, "  bimodal: pstdev/mean above 25% and min below median/4"));
	assert_null(strstr(sum, "!"));			/* nothing else is noisy */

	char *page = html_of(res, NULL);
	assert_non_null(strstr(page, "<span class=\"bimodal\">  slab         hot-64: init-off "
				     "bimodal: min 20.0"));
	assert_int_equal(count(page, "<tspan class=\"bimodal\">bimodal</tspan>"), 2);
	assert_int_equal(count(page, "no ratio (variant bimodal)"), 1);
	assert_int_equal(count(page, "no ratio (baseline bimodal)"), 2);
	assert_non_null(strstr(page, "<span class=\"noisy\">!</span> <span class=\"bimodal\">"
				     "bimodal</span>"));
	free(page);
	free(sum);
	sp_bench_results_free(res);
}

/* The host box: CPU model and id, cores, L1D with its source, kernel; the build: secpath
 * version and commit, compiler. */
static void test_bench_html__host_rows(void **st)
{
	(void)st;
	struct sp_bench_machine m = { .cpu = "Test CPU", .cpu_id = "Vendor family 6 (0x6)",
				      .cores = 4, .l1d_size = 32768, .l1d_assoc = 8,
				      .l1d_line = 64, .kernel = "Linux 6.1",
				      .l1d_source = "CPUID (sysfs has no cache description)" };
	struct sp_bench_html_info info = { .machine = &m };
	char *page = html_of(NULL, &info);
	assert_non_null(strstr(page, "<tr><td>CPU</td><td>Test CPU</td></tr>"));
	assert_non_null(strstr(page, "<tr><td>CPU id</td><td>Vendor family 6 (0x6)</td></tr>"));
	assert_non_null(strstr(page, "<td>4 online</td>"));
	assert_non_null(strstr(page, "32 KiB, 8-way, 64 B lines, 64 sets; source: CPUID (sysfs "
				     "has no cache description)"));
	assert_non_null(strstr(page, "<tr><td>kernel</td><td>Linux 6.1</td></tr>"));
	char want[96];
	snprintf(want, sizeof(want), "<tr><td>secpath</td><td>%s, commit ", sp_version());
	assert_non_null(strstr(page, want));
	assert_non_null(strstr(page, "<tr><td>compiler</td><td>"));
	free(page);

	/* what this machine says: an L1D geometry always comes with its source */
	memset(&m, 0x55, sizeof(m));
	sp_bench_machine_read(&m);
	assert_true(m.cores >= 1);
	assert_true(memchr(m.cpu, 0, sizeof(m.cpu)) && memchr(m.cpu_id, 0, sizeof(m.cpu_id)));
	if (m.l1d_size)
		assert_true(m.l1d_source[0] && m.l1d_assoc && m.l1d_line);
}

/* Every built-in suite's reference figures are well formed: a label, a positive value, a known
 * chart, and a case pattern that names at least one of the suite's cases. */
static void test_bench_html__suite_refs_consistent(void **st)
{
	(void)st;
	size_t total = 0;
	for (const struct sp_bench_suite *const *sp = sp_bench_suites(); *sp; sp++) {
		const struct sp_bench_suite *s = *sp;
		for (const struct sp_bench_ref *r = s->refs; r && r->label; r++, total++) {
			assert_true(r->value > 0);
			assert_true(r->what == SP_BENCH_REF_NS || r->what == SP_BENCH_REF_D1);
			assert_true(r->target <= 1);
			int any = !r->cases;
			for (size_t ci = 0; ci < s->ncases && !any; ci++)
				any = !fnmatch(r->cases, s->cases[ci].name, 0);
			assert_true(any);
		}
	}
	assert_true(total >= 4);	/* audit, slab, slab-spread, replay declare some */
}

/* The index of suite s's case named name (the test fails without one). */
static size_t case_index(const struct sp_bench_suite *s, const char *name)
{
	for (size_t ci = 0; ci < s->ncases; ci++)
		if (!strcmp(s->cases[ci].name, name))
			return ci;
	fail_msg("no case %s in %s", name, s->name);
	return 0;
}

static char *targets_of(const struct sp_bench_results *res)
{
	return report_of(sp_bench_targets, res);
}

/*
 * The targets against kept results of the real suites: a ratio to another variant of the same
 * rounds judged on both sides of its limit; a skipped anchor, and Ir without --cachegrind, not
 * judged and saying why; Ir with it judged; nothing at all for a run holding no target's case.
 */
static void test_bench_html__targets_judged(void **st)
{
	(void)st;
	const struct sp_bench_suite *slab = sp_bench_suite_find("slab");
	const struct sp_bench_suite *audit = sp_bench_suite_find("audit");
	assert_non_null(slab);
	assert_non_null(audit);
	/* glibc init-off alloc-init free-init both-init both-optout mimalloc: steady samples */
	static const double m7[7] = { 10, 5, 8, 7, 14, 5, 10 };
	double ns[7][REPS];
	for (int vi = 0; vi < 7; vi++)
		for (int k = 0; k < REPS; k++)
			ns[vi][k] = m7[vi];
	static const double d1[8] = { 0 };

	struct sp_bench_results *res;
	assert_int_equal(sp_bench_results_new(&res), 0);
	add_samples(res, slab, case_index(slab, "hot-64"), 7, ns, NULL);
	add_samples(res, audit, case_index(audit, "stig/getpid"), 6, ns, d1);
	char *out = targets_of(res);
	assert_non_null(strstr(out, "\n  #22 slab hot-64 init-off: 0.5x mimalloc; target <= 1x "
				    "mimalloc; floor ~25 Ir (a checked LIFO pop + push): met\n"));
	assert_non_null(strstr(out, "\n  #22 slab hot-64 both-init: 1.4x mimalloc; target <= 1.3x "
				    "mimalloc; floor init-off + 4 stores: not met\n"));
	/* add_samples gives every variant 100 Ir per op under callgrind */
	assert_non_null(strstr(out, "\n  #22 audit stig/getpid compiled: 100.0 Ir/event; target "
				    "<= 30 Ir/event; floor ~25-29 Ir with the loop"));
	assert_non_null(strstr(out, "\n  1 of 3 judged targets met in this run (0 not judged"));
	assert_null(strstr(out, "batch64"));	/* no case of theirs ran */
	free(out);
	sp_bench_results_free(res);

	/* mimalloc skipped (it did not load), the audit case without --cachegrind */
	assert_int_equal(sp_bench_results_new(&res), 0);
	add_samples(res, slab, case_index(slab, "hot-64"), 6, ns, NULL);
	add_samples(res, audit, case_index(audit, "stig/getpid"), 6, ns, NULL);
	out = targets_of(res);
	assert_non_null(strstr(out, "  #22 slab hot-64 both-init: not measured (mimalloc skipped); "
				    "target <= 1.3x mimalloc; floor init-off + 4 stores: not judged\n"));
	assert_non_null(strstr(out, "  #22 audit stig/getpid compiled: not measured (run with "
				    "--cachegrind); target <= 30 Ir/event;"));
	assert_non_null(strstr(out, "\n  0 of 0 judged targets met in this run (3 not judged"));
	free(out);
	sp_bench_results_free(res);

	assert_int_equal(sp_bench_results_new(&res), 0);
	add_case(res, 0, 1);
	out = targets_of(res);
	assert_string_equal(out, "");
	free(out);
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
		cmocka_unit_test(test_bench_html__log_axis_decades),
		cmocka_unit_test(test_bench_html__linear_ticks_round),
		cmocka_unit_test(test_bench_html__reference_marks),
		cmocka_unit_test(test_bench_html__table_per_case),
		cmocka_unit_test(test_bench_html__bimodal_flagged),
		cmocka_unit_test(test_bench_html__host_rows),
		cmocka_unit_test(test_bench_html__suite_refs_consistent),
		cmocka_unit_test(test_bench_html__targets_judged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
