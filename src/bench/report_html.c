/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_html.c - the bench report as one self-contained HTML page (sp_bench_html), and the
 * machine description it carries (sp_bench_machine_read).
 *
 * The page has no scripts, fonts, images or URLs: inline CSS, inline SVG charts and tables.
 * Per case, a chart of wall time per op: each variant that ran is one <rect class="bar ns">
 * rising from the axis floor to its median, with a <path class="whisker"> from its min to its
 * max over the rounds and its ratio to the baseline above; a skipped variant has no bar, only
 * the word "skipped".  The axis is linear from 0, ending at the largest whisker top but at most
 * 1.25 x the tallest bar (a whisker beyond is cut and marked with a <path class="clip">), unless
 * the medians and marks span more than LOG_SPREAD: then it is logarithmic between the powers of
 * ten around every value drawn, with a labelled <line class="grid major"> per decade.
 * The suite's reference figures for the case (struct sp_bench_ref) are <line class="ref ...">
 * marks across the plot, labelled to its right.  Where callgrind measured D1 misses
 * (--cachegrind) a chart of <rect class="bar miss"> follows; suites that run their own threads
 * (not pinned) get a chart of process CPU time per op, <rect class="bar cpu">, the figure the
 * kernel threads quote as sys time.  Under the charts, one <table class="case"> per time metric
 * holds the text report's numbers and flags (bench_int.h's noise and bimodal rules).
 * Every text that comes from a suite (names, descriptions, context, labels) is HTML-escaped.
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "bench/bench_int.h"

/* The build's git commit: the Makefile passes it in a git checkout. */
#ifndef SP_BUILD_COMMIT
#define SP_BUILD_COMMIT "unknown"
#endif

#if defined(__clang__)
#define BUILD_COMPILER __VERSION__	/* names clang itself */
#elif defined(__GNUC__)
#define BUILD_COMPILER "gcc " __VERSION__
#else
#define BUILD_COMPILER "unknown"
#endif

/* Chart geometry (SVG user units = CSS px). */
#define CH_LEFT 56		/* room for the y axis labels */
#define CH_TOP 34		/* room for the value and ratio labels above the tallest bar */
#define CH_PLOT 150		/* plot height: a bar of the axis maximum */
#define CH_BOTTOM 44		/* variant names under the bars */
#define CH_SLOT 92		/* horizontal room per variant */
#define CH_BAR 44		/* bar width */
#define CH_MARKW 310		/* room right of the plot for the reference marks' labels */
#define CH_MARK_LINE 12		/* vertical distance between two marks' labels */
#define CH_MARKS 16		/* marks drawn per chart at most */
/* A log axis when the largest median or mark exceeds the smallest positive one this much. */
#define LOG_SPREAD 5.0

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948", "#9c755f",
};

static void esc(FILE *f, const char *s)
{
	static const char *const ent[256] = {
		['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;",
	};
	for (; s && *s; s++) {
		const char *e = ent[(unsigned char)*s];
		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
}

/* Escaped text with newlines as <br>. */
static void esc_lines(FILE *f, const char *s)
{
	for (const char *nl; s && *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl) {
			esc(f, s);
			return;
		}
		char *line = strndup(s, (size_t)(nl - s));
		esc(f, line);
		free(line);
		fputs("<br>", f);
	}
}

/* A value with 3 significant digits ("0.512", "12.3", "951", "1.2e+04"). */
static void fmt3(char *buf, size_t len, double x)
{
	if (!isfinite(x))
		snprintf(buf, len, "n/a");
	else if (x == 0)
		snprintf(buf, len, "0");
	else if (fabs(x) >= 1e5 || fabs(x) < 1e-3)
		snprintf(buf, len, "%.2e", x);
	else
		snprintf(buf, len, "%.*f", fabs(x) >= 100 ? 0 : fabs(x) >= 10 ? 1 :
			 fabs(x) >= 1 ? 2 : 3, x);
}

static double unit_scale(double m, const char **unit)
{
	*unit = m >= 1e7 ? "ms" : m >= 1e4 ? "us" : "ns";
	return m >= 1e7 ? 1e6 : m >= 1e4 ? 1e3 : 1;
}

/* What a chart draws: wall time, process CPU time (suites with their own threads) or misses. */
enum chart_kind { CHART_NS, CHART_CPU, CHART_MISS };
static const char *const kind_class[] = { "ns", "cpu", "miss" };

/* One variant's bar: value, whisker range, ratio to the baseline (NAN: none to show) and flags. */
struct bar {
	double val, lo, hi, ratio;
	int noisy, bimodal;
};

static struct bar bar_of(const struct bench_kept_case *k, size_t i, enum chart_kind kind)
{
	const struct bench_kept_var *v = &k->v[i], *b = &k->v[0];
	switch (kind) {
	case CHART_NS:
		return (struct bar){ v->med, v->min, v->max,
				     v->bimodal || b->bimodal ? NAN : v->ratio,
				     v->pct > BENCH_NOISY_PCT, v->bimodal };
	case CHART_CPU:
		return (struct bar){ v->cpu_med, v->cpu_min, v->cpu_max,
				     v->cpu_bimodal || b->cpu_bimodal ? NAN : v->cpu_ratio,
				     v->cpu_pct > BENCH_NOISY_PCT, v->cpu_bimodal };
	default:
		return (struct bar){ v->cg_d1, NAN, NAN, NAN, 0, 0 };
	}
}

/* The time scale of case k's chart of that kind: that of the first variant with a value. */
static double case_scale(const struct bench_kept_case *k, enum chart_kind kind, const char **unit)
{
	double ref = NAN;
	for (size_t i = 0; i < k->nv && !isfinite(ref); i++)
		ref = bar_of(k, i, kind).val;
	return unit_scale(isfinite(ref) ? ref : 1, unit);
}

/* A reference mark: the suite's figure, in the chart's unit, and where it and its label go. */
struct mark {
	const struct sp_bench_ref *ref;
	double val, y, label_y;
};

/* The suite's reference figures for case k on a chart of that kind (at most max). */
static size_t marks_of(const struct bench_kept_case *k, enum chart_kind kind, double scale,
		       struct mark *m, size_t max)
{
	unsigned what = kind == CHART_MISS ? SP_BENCH_REF_D1 : SP_BENCH_REF_NS;
	size_t n = 0;

	if (kind == CHART_CPU)
		return 0;	/* the figures are wall time or misses */
	for (const struct sp_bench_ref *r = k->s->refs; r && r->label && n < max; r++) {
		int here = !r->cases || !fnmatch(r->cases, k->name, 0);
		if (r->what == what && r->value > 0 && here)
			m[n++] = (struct mark){ r, r->value / scale, 0, 0 };
	}
	return n;
}

/* The y axis: linear from 0 to hi, or logarithmic from lo to hi (powers of ten). */
struct axis {
	int log;
	double lo, hi;
};

/* Where v lies on the axis: 0 at the floor, 1 at the top (below the floor: 0). */
static double axis_frac(const struct axis *a, double v)
{
	double t = a->log ? (v > 0 ? log10(v / a->lo) / log10(a->hi / a->lo) : 0) : v / a->hi;
	return t > 0 ? t : 0;
}

static double axis_y(const struct axis *a, double v)
{
	return CH_TOP + CH_PLOT - CH_PLOT * axis_frac(a, v);
}

/* The axis that shows bars b[0..nb) (non-finite values skipped) and marks m[0..nm). */
static void axis_fit(struct axis *a, const struct bar *b, size_t nb, const struct mark *m,
		     size_t nm)
{
	double tallest = 0, top = 0, lo = INFINITY, vlo = INFINITY, vhi = 0;

	for (size_t i = 0; i < nb; i++) {
		if (!isfinite(b[i].val))
			continue;
		tallest = fmax(tallest, b[i].val);
		top = fmax(top, isfinite(b[i].hi) ? fmax(b[i].val, b[i].hi) : b[i].val);
		if (b[i].val > 0)
			vlo = fmin(vlo, b[i].val);
		if (isfinite(b[i].lo) && b[i].lo > 0)
			lo = fmin(lo, b[i].lo);
	}
	vhi = tallest;
	for (size_t i = 0; i < nm; i++) {
		vlo = fmin(vlo, m[i].val);
		vhi = fmax(vhi, m[i].val);
	}
	a->log = isfinite(vlo) && vhi > LOG_SPREAD * vlo;
	if (a->log) {
		a->lo = pow(10, floor(log10(fmin(lo, vlo))));
		a->hi = pow(10, ceil(log10(fmax(top, vhi))));
		if (!(a->hi > a->lo))
			a->hi = 10 * a->lo;
		return;
	}
	if (top > 1.25 * tallest)
		top = 1.25 * tallest;
	top = fmax(top, vhi);
	a->lo = 0;
	a->hi = top > 0 ? top : 1;
}

/* 1, 2 or 5 times a power of ten, near x. */
static double nice_step(double x)
{
	if (!(x > 0))
		return 1;
	double mag = pow(10, floor(log10(x))), q = x / mag;
	return (q < 1.5 ? 1 : q < 3.5 ? 2 : q < 7.5 ? 5 : 10) * mag;
}

static void tick(FILE *f, const struct axis *a, double v, int x2, int major, int label)
{
	double y = axis_y(a, v);
	fprintf(f, "<line class=\"grid %s\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>",
		major ? "major" : "minor", CH_LEFT, y, x2, y);
	if (label)
		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%g</text>",
			CH_LEFT - 4, y + 4, v);
	fputc('\n', f);
}

/* Grid lines and labels: linear, 0 and round steps; log, every decade labelled, 2..9 times
 * each as minor lines (2 and 5 labelled too when the axis spans at most two decades). */
static void axis_ticks(FILE *f, const struct axis *a, int x2)
{
	if (!a->log) {
		double step = nice_step(a->hi / 4);
		for (int t = 0; t * step <= a->hi * (1 + 1e-9); t++)
			tick(f, a, t * step, x2, 1, 1);
		return;
	}
	int e0 = (int)lround(log10(a->lo)), e1 = (int)lround(log10(a->hi));
	for (int e = e0; e <= e1; e++) {
		double d = pow(10, e);
		tick(f, a, d, x2, 1, 1);
		for (int m = 2; e < e1 && m < 10; m++)
			tick(f, a, m * d, x2, 0, e1 - e0 <= 2 && (m == 2 || m == 5));
	}
}

/* The whisker of bar b centred at cx, from lo to hi; lowers *label_y to its top. */
static void whisker(FILE *f, const struct axis *a, double cx, const struct bar *b,
		    double *label_y)
{
	double ylo = axis_y(a, b->lo), yhi = axis_y(a, b->hi);
	if (yhi < CH_TOP) {
		yhi = CH_TOP;
		fprintf(f, "<path class=\"clip\" d=\"M%.1f %dL%.1f %dL%.1f %d\"/>\n", cx - 5,
			CH_TOP + 6, cx, CH_TOP, cx + 5, CH_TOP + 6);
	}
	fprintf(f, "<path class=\"whisker\" d=\"M%.1f %.3fV%.3fM%.1f %.3fh12M%.1f %.3fh12\"/>\n",
		cx, ylo, yhi, cx - 6, yhi, cx - 6, ylo);
	if (yhi < *label_y)
		*label_y = yhi;
}

/* Variant i's bar, whisker and label; returns 1 when a bar was drawn. */
static int draw_bar(FILE *f, const struct bench_kept_case *k, size_t i, const struct bar *b,
		    const struct axis *a, enum chart_kind kind, const char *tu)
{
	const struct bench_kept_var *v = &k->v[i];
	double cx = CH_LEFT + CH_SLOT * (i + 0.5);
	const int y0 = CH_TOP + CH_PLOT;
	char val[32], r[32];

	fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", cx,
		y0 + 16);
	esc(f, v->name);
	fputs("</text>\n", f);
	if (v->err || !isfinite(b->val)) {
		fprintf(f, "<text class=\"skip\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s"
			"</text>\n", cx, y0 - 6, v->err ? "skipped" : "n/a");
		return 0;
	}
	double bh = CH_PLOT * axis_frac(a, b->val);
	fmt3(val, sizeof(val), b->val);
	fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.3f\" width=\"%d\" height=\"%.3f\" "
		"fill=\"%s\"><title>", kind_class[kind], cx - CH_BAR / 2.0, y0 - bh, CH_BAR, bh,
		i ? palette[(i - 1) % 8] : "#8c8c8c");
	esc(f, v->name);
	fprintf(f, ": %s %s</title></rect>\n", val, kind == CHART_MISS ? "D1 misses/op" : tu);
	double label_y = y0 - bh;
	if (isfinite(b->lo) && isfinite(b->hi))
		whisker(f, a, cx, b, &label_y);
	fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s", cx,
		label_y - 5, val);
	if (b->noisy)
		fputs("<tspan class=\"noisy\">!</tspan>", f);
	if (b->bimodal) {
		fputs(" <tspan class=\"bimodal\">bimodal</tspan>", f);
	} else if (i && isfinite(b->ratio)) {
		fmt3(r, sizeof(r), b->ratio);
		fprintf(f, " <tspan class=\"ratio\">%sx</tspan>", r);
	} else if (!i && kind != CHART_MISS) {
		fputs(" (base)", f);
	}
	fputs("</text>\n", f);
	return 1;
}

/* The reference marks across the plot (x from CH_LEFT to xr), each labelled right of xr; the
 * labels are stacked top down so that none overlaps the one above. */
static void draw_marks(FILE *f, struct mark *m, size_t n, const struct axis *a, int xr,
		       const char *unit)
{
	for (size_t i = 0; i < n; i++)
		m[i].y = axis_y(a, m[i].val);
	for (size_t i = 1; i < n; i++)		/* insertion sort by y: a handful of marks */
		for (size_t j = i; j > 0 && m[j].y < m[j - 1].y; j--) {
			struct mark t = m[j];
			m[j] = m[j - 1];
			m[j - 1] = t;
		}
	double prev = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		const char *cls = m[i].ref->target ? "target" : "measured";
		char v[32];
		m[i].label_y = fmax(m[i].y + 4, prev + CH_MARK_LINE);
		prev = m[i].label_y;
		fmt3(v, sizeof(v), m[i].val);
		fprintf(f, "<line class=\"ref %s\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\">"
			"<title>", cls, CH_LEFT, m[i].y, xr, m[i].y);
		esc(f, m[i].ref->label);
		fprintf(f, ": %s %s</title></line>\n", v, unit);
		fprintf(f, "<path class=\"lead %s\" d=\"M%d %.2fL%d %.2f\"/>\n", cls, xr, m[i].y,
			xr + 6, m[i].label_y - 4);
		fprintf(f, "<text class=\"ref %s\" x=\"%d\" y=\"%.2f\">%s %s ", cls, xr + 8,
			m[i].label_y, v, unit);
		esc(f, m[i].ref->label);
		fputs("</text>\n", f);
	}
}

/*
 * One chart of case k: per variant the median time per op with min-max whiskers over the rounds
 * (wall or process CPU time), or callgrind's D1 misses per op, and the suite's reference marks
 * for the case.  Returns the bars drawn.
 */
static size_t chart(FILE *f, const struct bench_kept_case *k, enum chart_kind kind,
		    const char *title)
{
	struct mark m[CH_MARKS];
	struct axis a;
	const char *tu = "";
	double scale = kind == CHART_MISS ? 1 : case_scale(k, kind, &tu);
	struct bar *b = calloc(k->nv, sizeof(*b));
	size_t nm = marks_of(k, kind, scale, m, CH_MARKS), nbars = 0;

	if (!b)
		return 0;
	for (size_t i = 0; i < k->nv; i++) {
		b[i] = bar_of(k, i, kind);
		b[i].val = k->v[i].err ? NAN : b[i].val / scale;
		b[i].lo /= scale;
		b[i].hi /= scale;
	}
	axis_fit(&a, b, k->nv, m, nm);
	int xr = CH_LEFT + (int)k->nv * CH_SLOT, w = xr + 8 + (nm ? CH_MARKW : 0);
	int h = CH_TOP + CH_PLOT + CH_BOTTOM;
	fprintf(f, "<svg class=\"chart %s%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"", kind_class[kind], a.log ? " log" : "", w, h, w, h);
	esc(f, title);
	fprintf(f, "\">\n<text x=\"4\" y=\"14\" class=\"axis\">");
	esc(f, title);
	fprintf(f, " (%s%s%s)</text>\n", kind == CHART_MISS ? "" : tu,
		kind == CHART_MISS ? "" : ", ", a.log ? "log scale" : "linear from 0");
	axis_ticks(f, &a, xr);
	draw_marks(f, m, nm, &a, xr, kind == CHART_MISS ? "misses" : tu);	/* under the bars */
	for (size_t i = 0; i < k->nv; i++)
		nbars += (size_t)draw_bar(f, k, i, &b[i], &a, kind, tu);
	fputs("</svg>\n", f);
	free(b);
	return nbars;
}

/* ---- the numbers: one table per time metric ---- */

/* What a table row shows of variant v, for wall or process CPU time. */
struct row {
	double min, med, max, pct, ratio, rmin, rmax;
	int bimodal;
};

static struct row row_of(const struct bench_kept_var *v, int cpu)
{
	if (cpu)
		return (struct row){ v->cpu_min, v->cpu_med, v->cpu_max, v->cpu_pct, v->cpu_ratio,
				     v->cpu_rmin, v->cpu_rmax, v->cpu_bimodal };
	return (struct row){ v->min, v->med, v->max, v->pct, v->ratio, v->rmin, v->rmax,
			     v->bimodal };
}

static void cell(FILE *f, double x)
{
	char b[32];
	fmt3(b, sizeof(b), x);
	fprintf(f, "<td>%s</td>", b);
}

/* Which columns a table has beyond the always-present ones. */
struct cols {
	int cpu, disturbed, hw, cg;
};

/* The ratio and its per-round range (bimodal variant or baseline: no ratio). */
static void ratio_cells(FILE *f, size_t i, const struct row *r, const struct row *base,
			int base_err)
{
	if (!i) {
		fputs("<td>1 (baseline)</td><td></td>", f);
	} else if (base_err || !isfinite(r->ratio)) {
		fputs("<td>n/a</td><td></td>", f);
	} else if (r->bimodal || base->bimodal) {
		fprintf(f, "<td class=\"bimodal\">no ratio (%s bimodal)</td><td></td>",
			r->bimodal ? "variant" : "baseline");
	} else {
		fprintf(f, "<td>%.3f</td><td>%.3f&ndash;%.3f</td>", r->ratio, r->rmin, r->rmax);
	}
}

static void table_row(FILE *f, const struct bench_kept_case *k, size_t i, const struct cols *c,
		      double sc, int ncols)
{
	const struct bench_kept_var *v = &k->v[i], *b = &k->v[0];
	struct row r = row_of(v, c->cpu), base = row_of(b, c->cpu);

	fputs("<tr><td class=\"name\">", f);
	esc(f, v->name);
	fputs("</td>", f);
	if (v->err) {
		fprintf(f, "<td colspan=\"%d\" class=\"skip\">skipped: %s</td></tr>\n", ncols - 1,
			strerror(-v->err));
		return;
	}
	cell(f, r.min / sc);
	cell(f, r.med / sc);
	cell(f, r.max / sc);
	if (isfinite(r.pct))
		fprintf(f, "<td>%.1f</td>", r.pct);
	else
		fputs("<td>n/a</td>", f);
	fprintf(f, "<td>%s%s</td>",
		r.pct > BENCH_NOISY_PCT ? "<span class=\"noisy\">!</span>" : "",
		r.bimodal ? " <span class=\"bimodal\">bimodal</span>" : "");
	if (c->disturbed)
		fprintf(f, "<td>%u/%u</td>", v->disturbed, k->reps);
	ratio_cells(f, i, &r, &base, b->err);
	if (c->hw) {
		cell(f, v->ipc);
		cell(f, v->l1dmiss);
	}
	if (c->cg) {
		cell(f, v->cg_ir);
		if (!b->err && b->cg_ir > 0 && isfinite(v->cg_ir))
			fprintf(f, "<td>%.3f</td>", v->cg_ir / b->cg_ir);
		else
			fputs("<td>n/a</td>", f);
		cell(f, v->cg_d1);
	}
	fputs("</tr>\n", f);
}

/* The table of case k's wall (cpu = 0) or process CPU time, with the text report's columns. */
static void case_table(FILE *f, const struct bench_kept_case *k, int cpu)
{
	const char *unit = k->s->unit ? k->s->unit : "op", *tu;
	struct cols c = { cpu, k->pinned, !cpu && !k->hw_err, !cpu && k->cg_geom[0] };
	double sc = case_scale(k, cpu ? CHART_CPU : CHART_NS, &tu);
	int ncols = 8 + c.disturbed + 2 * c.hw + 3 * c.cg;

	fprintf(f, "<table class=\"case\">\n<caption>%s per ", cpu ? "process CPU time (user + "
		"sys, all threads)" : "wall time");
	esc(f, unit);
	fprintf(f, ", %s, %u rounds</caption>\n<tr><th>variant</th><th>min</th><th>median</th>"
		"<th>max</th><th>pstdev %%</th><th>noise</th>%s<th>ratio</th>"
		"<th>per-round ratios</th>", tu, k->reps,
		c.disturbed ? "<th>disturbed</th>" : "");
	if (c.hw)
		fputs("<th>IPC</th><th>L1D misses/op</th>", f);
	if (c.cg)
		fputs("<th>callgrind Ir/op</th><th>Ir ratio</th><th>D1 misses/op</th>", f);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < k->nv; i++)
		table_row(f, k, i, &c, sc, ncols);
	fputs("</table>\n", f);
}

/* Under the tables: the hw counters' and callgrind's state, and the marks drawn (on the wall
 * time chart, and on the D1 chart when there is one). */
static void case_notes(FILE *f, const struct bench_kept_case *k, int miss_chart)
{
	struct mark m[2 * CH_MARKS];
	size_t nm = marks_of(k, CHART_NS, 1, m, CH_MARKS);
	if (miss_chart)
		nm += marks_of(k, CHART_MISS, 1, m + nm, CH_MARKS);

	fputs("<ul class=\"notes\">\n", f);
	if (k->hw_err)
		fprintf(f, "<li>hw counters: n/a (perf_event_open: %s)</li>\n",
			strerror(k->hw_err));
	if (k->cg_geom[0] && k->cg_err[0]) {
		fputs("<li>callgrind: n/a (", f);
		esc(f, k->cg_err);
		fputs(")</li>\n", f);
	} else if (k->cg_geom[0]) {
		fputs("<li>callgrind (D1 ", f);
		esc(f, k->cg_geom);
		fprintf(f, "): exact per-op counts of each variant's measured region%s; Ir ratio = "
			"Ir/op / the baseline's</li>\n", k->s->flags & SP_BENCH_CG_CHILDREN
			? " (the programs it ran, user space, summed over their processes)" : "");
	}
	for (size_t i = 0; i < nm; i++) {
		char v[32];
		fmt3(v, sizeof(v), m[i].val);
		fprintf(f, "<li>mark (%s): %s %s, ", m[i].ref->target ? "target, dashed"
			: "measured elsewhere, solid", v,
			m[i].ref->what == SP_BENCH_REF_D1 ? "D1 misses/op" : "ns/op");
		esc(f, m[i].ref->label);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

/* ---- the host and the build ---- */

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:24px;color:#222;background:#fff;max-width:1200px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 4px;"
	"border-bottom:1px solid #ccc}"
	".meta,.desc,.how{color:#555;margin:2px 0}table.machine{border-collapse:collapse;"
	"margin:8px 0}table.machine td{padding:1px 10px 1px 0}table.machine td:first-child"
	"{color:#555}pre.summary{background:#f4f4f4;padding:8px;white-space:pre-wrap;"
	"font:12px/1.4 monospace}.charts{display:flex;flex-wrap:wrap;gap:12px}"
	"figure{margin:10px 0;border:1px solid #e2e2e2;padding:6px}"
	"figcaption{font-weight:bold;font-size:14px}.context{background:#fbf7e9;padding:6px 8px;"
	"font-size:13px;border-left:3px solid #d9b847}"
	"table.case{border-collapse:collapse;margin:6px 0;font-size:12px}"
	"table.case caption{text-align:left;color:#555;padding:2px 0}"
	"table.case th,table.case td{border:1px solid #ddd;padding:2px 7px;text-align:right}"
	"table.case th{background:#f4f4f4;font-weight:normal}table.case td.name{text-align:left}"
	"td.skip{color:#a00;text-align:left}ul.notes{margin:2px 0;font-size:12px;color:#555}"
	".noisy{color:#b35c00;font-weight:bold}.bimodal{color:#b00;font-weight:bold}"
	".legend{font-size:13px;color:#444}.legend dt{font-weight:bold}"
	".legend dd{margin:0 0 4px 16px}"
	"svg text{font:11px sans-serif;fill:#222}svg text.axis,svg text.tick{fill:#555}"
	"svg text.skip{fill:#a00}svg .ratio{font-weight:bold}svg tspan.noisy{fill:#b35c00}"
	"svg tspan.bimodal{fill:#b00}svg line.grid.major{stroke:#d4d4d4}"
	"svg line.grid.minor{stroke:#efefef}"
	"svg path.whisker{stroke:#222;stroke-width:1.5;fill:none}"
	"svg path.clip{stroke:#a00;stroke-width:2;fill:none}"
	"svg line.ref,svg path.lead{stroke-width:1.5;fill:none}"
	"svg line.ref.measured,svg path.lead.measured{stroke:#8e1b1b}"
	"svg line.ref.target,svg path.lead.target{stroke:#1a7a34}"
	"svg line.ref.target{stroke-dasharray:6 3}svg text.ref{font-size:10.5px}"
	"svg text.ref.measured{fill:#8e1b1b}svg text.ref.target{fill:#1a7a34}"
	"svg text.val{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}";

/* The value of line "KEY<blanks>: VALUE\n" (newline cut), or NULL when line has another key. */
static char *cpuinfo_value(char *line, const char *key)
{
	size_t n = strlen(key);
	if (strncmp(line, key, n))
		return NULL;
	char *p = line + n + strspn(line + n, " \t");
	if (*p != ':')
		return NULL;
	p += 1 + strspn(p + 1, " \t");
	p[strcspn(p, "\n")] = 0;
	return p;
}

/* CPU model name, vendor, family, model and stepping of the first processor in /proc/cpuinfo. */
static void read_cpuinfo(struct sp_bench_machine *m)
{
	char line[1024], vendor[48] = "", fam[16] = "", mod[16] = "", step[16] = "", *v;
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {
		if ((v = cpuinfo_value(line, "model name")))
			snprintf(m->cpu, sizeof(m->cpu), "%s", v);
		else if ((v = cpuinfo_value(line, "vendor_id")))
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if ((v = cpuinfo_value(line, "cpu family")))
			snprintf(fam, sizeof(fam), "%s", v);
		else if ((v = cpuinfo_value(line, "model")))
			snprintf(mod, sizeof(mod), "%s", v);
		else if ((v = cpuinfo_value(line, "stepping")))
			snprintf(step, sizeof(step), "%s", v);
	}
	fclose(f);
	if (fam[0])
		snprintf(m->cpu_id, sizeof(m->cpu_id), "%s%sfamily %s (0x%lx) model %s (0x%lx) "
			 "stepping %s", vendor, vendor[0] ? " " : "", fam, strtoul(fam, NULL, 10),
			 mod[0] ? mod : "?", strtoul(mod, NULL, 10), step[0] ? step : "?");
}

void sp_bench_machine_read(struct sp_bench_machine *m)
{
	memset(m, 0, sizeof(*m));
	read_cpuinfo(m);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	m->cores = n > 0 ? (unsigned)n : 0;
	char g[80];
	const char *src = NULL;
	unsigned long s, a, l;
	if (!bench_cg_geometry("host", g, sizeof(g), &src) &&
	    sscanf(g, "%lu,%lu,%lu", &s, &a, &l) == 3) {
		m->l1d_size = s;
		m->l1d_assoc = (unsigned)a;
		m->l1d_line = (unsigned)l;
		snprintf(m->l1d_source, sizeof(m->l1d_source), "%s", src ? src : "");
	}
	struct utsname u;
	if (!uname(&u)) {
		/* each field fits 64 bytes: bound them so the result fits kernel[128] */
		snprintf(m->kernel, sizeof(m->kernel), "%.20s %.60s %.20s", u.sysname, u.release,
			 u.machine);
	}
}

static void row_text(FILE *f, const char *key, const char *val)
{
	fprintf(f, "<tr><td>%s</td><td>", key);
	esc(f, val && val[0] ? val : "unknown");
	fputs("</td></tr>\n", f);
}

/* The host (when known) and the build of secpath that measured. */
static void machine_table(FILE *f, const struct sp_bench_machine *m)
{
	fputs("<table class=\"machine\">\n", f);
	if (m) {
		row_text(f, "CPU", m->cpu);
		row_text(f, "CPU id", m->cpu_id);
		fprintf(f, "<tr><td>cores</td><td>%u online</td></tr>\n", m->cores);
		if (m->l1d_size) {
			fprintf(f, "<tr><td>L1D</td><td>%lu KiB, %u-way, %u B lines, %lu sets; "
				"source: ",
				m->l1d_size / 1024, m->l1d_assoc, m->l1d_line,
				m->l1d_assoc && m->l1d_line ?
				m->l1d_size / m->l1d_assoc / m->l1d_line : 0);
			esc(f, m->l1d_source[0] ? m->l1d_source : "unknown");
			fputs("</td></tr>\n", f);
		} else {
			fputs("<tr><td>L1D</td><td>unknown</td></tr>\n", f);
		}
		row_text(f, "kernel", m->kernel);
	}
	fprintf(f, "<tr><td>secpath</td><td>%s, commit ", sp_version());
	esc(f, SP_BUILD_COMMIT);
	fputs("</td></tr>\n", f);
	row_text(f, "compiler", BUILD_COMPILER);
	fputs("</table>\n", f);
}

/* ---- the page ---- */

/* The summary lines, captured and escaped into a <pre>; bimodal lines are highlighted. */
static void summary_block(FILE *f, const struct sp_bench_results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	sp_bench_summary(m, r);
	sp_bench_targets(m, r);
	if (fclose(m) || !buf) {
		free(buf);
		return;
	}
	const char *p = buf;
	while (*p == '\n')
		p++;
	fputs("<h2 id=\"summary\">Summary</h2>\n<pre class=\"summary\">", f);
	for (char *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		char *line = nl ? strndup(p, (size_t)(nl - p)) : strdup(p);
		int hl = line && strstr(line, " bimodal") && strncmp(line, "  bimodal: ", 11);
		fputs(hl ? "<span class=\"bimodal\">" : "", f);
		esc(f, line);
		fputs(hl ? "</span>" : "", f);
		free(line);
		if (!nl)
			break;
		fputc('\n', f);
	}
	fputs("</pre>\n", f);
	free(buf);
}

/* How to read the charts and tables, once per page. */
static void legend(FILE *f)
{
	fprintf(f, "<dl class=\"legend\">\n"
		"<dt>bars and whiskers</dt><dd>a bar is the median over the rounds of a variant's "
		"time per op; its whisker spans the min&ndash;max of the rounds (not a confidence "
		"interval). The axis is linear from 0, or logarithmic with a labelled line per "
		"decade when the medians span more than %.0fx: bar lengths are then not "
		"proportional, read the labels or the table.</dd>\n"
		"<dt>labels</dt><dd>median, then the ratio to the baseline's median (variant 0, "
		"grey); a red chevron: a whisker cut at 1.25x the tallest bar.</dd>\n"
		"<dt>marks</dt><dd>horizontal lines: the suite's reference figures for the case, "
		"solid when measured elsewhere (the kernel threads, the design notes), dashed for "
		"a target.</dd>\n"
		"<dt>pstdev %%, noise</dt><dd>population standard deviation / mean of the rounds; "
		"<span class=\"noisy\">!</span> above %.0f%%: differences of that size are noise; "
		"<span class=\"bimodal\">bimodal</span>: above %.0f%% with the min below "
		"median/%.0f: two modes, the median in the slow one (a fast mode it ignores, or "
		"most rounds slowed by disturbance), so no ratio is given.</dd>\n"
		"<dt>disturbed</dt><dd>rounds whose sample saw a context switch or CPU migration "
		"(software perf counters).</dd>\n"
		"<dt>per-round ratios</dt><dd>min&ndash;max of variant / baseline within the same "
		"round.</dd>\n</dl>\n",
		LOG_SPREAD, BENCH_NOISY_PCT, BENCH_BIMODAL_PCT, BENCH_BIMODAL_GAP);
}

/* One case: its charts, tables and notes. */
static void case_figure(FILE *f, const struct bench_kept_case *k)
{
	const char *unit = k->s->unit ? k->s->unit : "op";
	char title[160];
	int any_miss = 0;

	for (size_t j = 0; j < k->nv; j++)
		any_miss |= !k->v[j].err && isfinite(k->v[j].cg_d1);
	fputs("<figure>\n<figcaption>", f);
	esc(f, k->name);
	fputs("</figcaption>\n<div class=\"charts\">\n", f);
	snprintf(title, sizeof(title), "wall time per %s", unit);
	chart(f, k, CHART_NS, title);
	if (!k->pinned) {
		snprintf(title, sizeof(title), "process CPU time per %s (all threads)", unit);
		chart(f, k, CHART_CPU, title);
	}
	if (any_miss) {
		snprintf(title, sizeof(title), "callgrind D1 misses per %s, D1 %s", unit,
			 k->cg_geom);
		chart(f, k, CHART_MISS, title);
	}
	fputs("</div>\n", f);
	case_table(f, k, 0);
	if (!k->pinned)
		case_table(f, k, 1);
	case_notes(f, k, any_miss);
	fputs("</figure>\n", f);
}

/* The figures the variants measured themselves (sp_bench_suite.figures), a line under the
 * case's charts: nothing when none has any. */
static void case_own_figures(FILE *f, const struct bench_kept_case *k)
{
	int any = 0;
	for (size_t j = 0; j < k->nv; j++)
		for (unsigned i = 0; i < k->v[j].nfig; i++) {
			const struct bench_fig *g = &k->v[j].fig[i];
			if (!any) {
				fputs("<p class=\"how\">", f);
				esc(f, k->name);
				fputs(", measured by the variants over every op: ", f);
			}
			fputs(i ? ", " : any ? "; <b>" : "<b>", f);
			if (!i) {
				esc(f, k->v[j].name);
				fputs("</b>: ", f);
			}
			esc(f, g->name);
			fprintf(f, g->value >= 1000 ? " %.0f " : " %.3g ", g->value);
			esc(f, g->unit);
			any = 1;
		}
	if (any)
		fputs("</p>\n", f);
}

static void suite_section(FILE *f, const struct sp_bench_results *r,
			  const struct sp_bench_suite *s)
{
	const struct bench_kept_case *first = NULL, *last = NULL;
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].s == s) {
			first = first ? first : &r->c[i];
			last = &r->c[i];
		}
	fputs("<section class=\"suite\">\n<h2>", f);
	esc(f, s->name);
	fputs("</h2>\n<p class=\"desc\">", f);
	esc(f, s->desc);
	fprintf(f, "</p>\n<p class=\"how\">median %s per ",
		first->pinned ? "wall time"
			      : "wall and process CPU time (user + sys, all threads)");
	esc(f, s->unit ? s->unit : "op");
	fprintf(f, " of %u rounds, variants interleaved%s; baseline ", first->reps,
		first->pinned ? ", pinned to one CPU" : ", not pinned (own threads)");
	esc(f, first->v[0].name);
	fputs("</p>\n", f);
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].s == s) {
			case_figure(f, &r->c[i]);
			case_own_figures(f, &r->c[i]);
		}
	if (last->context) {
		fprintf(f, "<p class=\"context\"><b>Kernel threads / targets</b> (%s): ",
			s->refs ? "the per-op figures are marked on the charts of the cases they "
				  "belong to"
				: "prose only: it states no per-op figure to mark on the charts");
		esc_lines(f, last->context);
		fputs("</p>\n", f);
	}
	fputs("</section>\n", f);
}

int sp_bench_html(FILE *f, const struct sp_bench_results *r,
		  const struct sp_bench_html_info *info)
{
	const struct sp_bench_suite *seen[64];
	size_t nseen = 0;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<title>secpath bench report</title>\n<style>%s</style>\n</head>\n<body>\n"
		"<h1>secpath bench report</h1>\n<p class=\"meta\">secpath %s", css, sp_version());
	if (info && info->date) {
		fputs(" &middot; ", f);
		esc(f, info->date);
	}
	if (info && info->wall_s > 0)
		fprintf(f, " &middot; run took %.1f s wall time", info->wall_s);
	fputs("</p>\n", f);
	if (info && info->command) {
		fputs("<p class=\"meta\">command: <code>", f);
		esc(f, info->command);
		fputs("</code></p>\n", f);
	}
	machine_table(f, info ? info->machine : NULL);
	if (r)
		summary_block(f, r);
	if (r && r->n)
		legend(f);
	for (size_t i = 0; r && i < r->n; i++) {
		const struct sp_bench_suite *s = r->c[i].s;
		size_t j;
		for (j = 0; j < nseen && seen[j] != s; j++)
			;
		if (j < nseen)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = s;
		suite_section(f, r, s);
	}
	if (!r || !r->n)
		fputs("<p>no results</p>\n", f);
	fputs("</body>\n</html>\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
