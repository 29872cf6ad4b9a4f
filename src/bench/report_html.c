/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_html.c - the bench report as one self-contained HTML page (sp_bench_html), and the
 * machine description it carries (sp_bench_machine_read).
 *
 * The page has no scripts, fonts, images or URLs: inline CSS and one inline SVG bar chart per
 * case.  In a chart each variant that ran is one <rect class="bar ns"> whose height is
 * proportional to its median time per op (the y axis starts at 0), with a <path class="whisker">
 * from its min to its max (cut at 1.25 x the tallest bar) and its ratio to the baseline above;
 * a skipped variant has no bar, only the word "skipped".  Where
 * callgrind measured D1 misses (--cachegrind) a second chart of <rect class="bar miss"> follows.
 * Suites that run their own threads (not pinned) get a second chart, <rect class="bar cpu">, of
 * process CPU time per op, the figure the kernel threads quote as sys time.
 * Every text that comes from a suite (names, descriptions, context) is HTML-escaped.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "bench/bench_int.h"

/* Chart geometry (SVG user units = CSS px). */
#define CH_LEFT 56		/* room for the y axis labels */
#define CH_TOP 34		/* room for the value and ratio labels above the tallest bar */
#define CH_PLOT 150		/* plot height: a bar of the axis maximum */
#define CH_BOTTOM 44		/* variant names under the bars */
#define CH_SLOT 92		/* horizontal room per variant */
#define CH_BAR 44		/* bar width */

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

/* One variant's bar: value, whisker range and ratio to the baseline (NAN: none). */
struct bar {
	double val, lo, hi, ratio;
};

static struct bar bar_of(const struct bench_kept_var *v, enum chart_kind kind)
{
	switch (kind) {
	case CHART_NS:
		return (struct bar){ v->med, v->min, v->max, v->ratio };
	case CHART_CPU:
		return (struct bar){ v->cpu_med, v->cpu_min, v->cpu_max, v->cpu_ratio };
	default:
		return (struct bar){ v->cg_d1, NAN, NAN, NAN };
	}
}

/*
 * One bar chart of case k: per variant the median time per op with min-max whiskers over the
 * rounds (wall or process CPU time), or callgrind's D1 misses per op.  The y axis ends at the
 * largest whisker top, but at most 1.25 x the tallest bar, so one noisy round cannot flatten
 * the bars: a whisker beyond the axis is cut at the top and marked with a <path class="clip">
 * chevron.  Returns the bars drawn.
 */
static size_t chart(FILE *f, const struct bench_kept_case *k, enum chart_kind kind,
		    const char *title)
{
	double top = 0, tallest = 0, scale = 1;
	const char *tu = "", *cls = kind_class[kind];

	if (kind != CHART_MISS) {
		double ref = NAN;
		for (size_t i = 0; i < k->nv && !isfinite(ref); i++)
			ref = bar_of(&k->v[i], kind).val;
		scale = unit_scale(isfinite(ref) ? ref : 1, &tu);
	}
	for (size_t i = 0; i < k->nv; i++) {
		struct bar b = bar_of(&k->v[i], kind);
		if (k->v[i].err)
			continue;
		if (isfinite(b.val) && b.val / scale > tallest)
			tallest = b.val / scale;
		if (isfinite(b.val) && b.val / scale > top)
			top = b.val / scale;
		if (isfinite(b.hi) && b.hi / scale > top)
			top = b.hi / scale;
	}
	if (top > 1.25 * tallest)
		top = 1.25 * tallest;
	if (!(top > 0))
		top = 1;

	size_t nbars = 0;
	int w = CH_LEFT + (int)k->nv * CH_SLOT + 8, h = CH_TOP + CH_PLOT + CH_BOTTOM;
	const int y0 = CH_TOP + CH_PLOT;
	char a[32], r[32];

	fprintf(f, "<svg class=\"chart %s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\" aria-label=\"", cls, w, h, w, h);
	esc(f, title);
	fprintf(f, "\">\n<text x=\"4\" y=\"14\" class=\"axis\">");
	esc(f, title);
	if (kind != CHART_MISS)
		fprintf(f, " (%s)", tu);
	fputs("</text>\n", f);
	/* y axis: 0, half, top */
	for (int t = 0; t <= 2; t++) {
		double y = y0 - CH_PLOT * t / 2.0;
		fmt3(a, sizeof(a), top * t / 2);
		fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>"
			"<text class=\"axis\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
			CH_LEFT, y, w - 4, y, CH_LEFT - 4, y + 4, a);
	}
	for (size_t i = 0; i < k->nv; i++) {
		const struct bench_kept_var *v = &k->v[i];
		struct bar b = bar_of(v, kind);
		double cx = CH_LEFT + CH_SLOT * (i + 0.5), val = b.val / scale;

		fprintf(f, "<text class=\"name\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", cx,
			y0 + 16);
		esc(f, v->name);
		fputs("</text>\n", f);
		if (v->err || !isfinite(val)) {
			fprintf(f, "<text class=\"skip\" x=\"%.1f\" y=\"%d\" "
				"text-anchor=\"middle\">%s</text>\n", cx, y0 - 6,
				v->err ? "skipped" : "n/a");
			continue;
		}
		double bh = CH_PLOT * val / top;
		fmt3(a, sizeof(a), val);
		fprintf(f, "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.3f\" width=\"%d\" "
			"height=\"%.3f\" fill=\"%s\"><title>", cls, cx - CH_BAR / 2.0, y0 - bh,
			CH_BAR, bh, i ? palette[(i - 1) % 8] : "#8c8c8c");
		esc(f, v->name);
		fprintf(f, ": %s %s</title></rect>\n", a, kind == CHART_MISS ? "D1 misses/op" : tu);
		nbars++;
		double label_y = y0 - bh;
		if (isfinite(b.lo) && isfinite(b.hi)) {
			double ylo = y0 - CH_PLOT * (b.lo / scale) / top;
			double yhi = y0 - CH_PLOT * (b.hi / scale) / top;
			if (yhi < CH_TOP) {
				yhi = CH_TOP;
				fprintf(f, "<path class=\"clip\" "
					"d=\"M%.1f %dL%.1f %dL%.1f %d\"/>\n",
					cx - 5, CH_TOP + 6, cx, CH_TOP, cx + 5, CH_TOP + 6);
			}
			fprintf(f, "<path class=\"whisker\" d=\"M%.1f %.3fV%.3fM%.1f %.3fh12M%.1f "
				"%.3fh12\"/>\n", cx, ylo, yhi, cx - 6, yhi, cx - 6, ylo);
			if (yhi < label_y)
				label_y = yhi;
		}
		if (i && isfinite(b.ratio)) {
			fmt3(r, sizeof(r), b.ratio);
			fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"middle\">%s <tspan class=\"ratio\">%sx</tspan>"
				"</text>\n", cx, label_y - 5, a, r);
		} else {
			fprintf(f, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" "
				"text-anchor=\"middle\">%s%s</text>\n", cx, label_y - 5, a,
				i || kind == CHART_MISS ? "" : " (base)");
		}
	}
	fputs("</svg>\n", f);
	return nbars;
}

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:24px;color:#222;background:#fff;max-width:1200px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 4px;"
	"border-bottom:1px solid #ccc}"
	".meta,.desc,.how{color:#555;margin:2px 0}table.machine{border-collapse:collapse;"
	"margin:8px 0}table.machine td{padding:1px 10px 1px 0}table.machine td:first-child"
	"{color:#555}pre.summary{background:#f4f4f4;padding:8px;white-space:pre-wrap;"
	"font:12px/1.4 monospace}.charts{display:flex;flex-wrap:wrap;gap:12px}"
	"figure{margin:0;border:1px solid #e2e2e2;padding:6px}"
	"figcaption{font-weight:bold;font-size:13px}.context{background:#fbf7e9;padding:6px 8px;"
	"font-size:13px;border-left:3px solid #d9b847}"
	"svg text{font:11px sans-serif;fill:#222}svg text.axis{fill:#555}svg text.skip"
	"{fill:#a00}svg .ratio{font-weight:bold}svg line.grid{stroke:#ddd}"
	"svg path.whisker{stroke:#222;stroke-width:1.5;fill:none}"
	"svg path.clip{stroke:#a00;stroke-width:2;fill:none}";

void sp_bench_machine_read(struct sp_bench_machine *m)
{
	memset(m, 0, sizeof(*m));
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[256];
		while (fgets(line, sizeof(line), f)) {
			char *c = strchr(line, ':');
			if (strncmp(line, "model name", 10) || !c)
				continue;
			c += 1 + (c[1] == ' ');
			c[strcspn(c, "\n")] = 0;
			snprintf(m->cpu, sizeof(m->cpu), "%s", c);
			break;
		}
		fclose(f);
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	m->cores = n > 0 ? (unsigned)n : 0;
	char g[80];
	unsigned long s, a, l;
	if (!bench_cg_geometry("host", g, sizeof(g), NULL) && sscanf(g, "%lu,%lu,%lu", &s, &a, &l) == 3) {
		m->l1d_size = s;
		m->l1d_assoc = (unsigned)a;
		m->l1d_line = (unsigned)l;
	}
	struct utsname u;
	if (!uname(&u)) {
		/* each field fits 64 bytes: bound them so the result fits kernel[128] */
		snprintf(m->kernel, sizeof(m->kernel), "%.20s %.60s %.20s", u.sysname, u.release,
			 u.machine);
	}
}

static void machine_table(FILE *f, const struct sp_bench_machine *m)
{
	fputs("<table class=\"machine\">\n<tr><td>CPU</td><td>", f);
	esc(f, m->cpu[0] ? m->cpu : "unknown");
	fprintf(f, "</td></tr>\n<tr><td>cores</td><td>%u online</td></tr>\n", m->cores);
	if (m->l1d_size)
		fprintf(f, "<tr><td>L1D</td><td>%lu KiB, %u-way, %u B lines, %lu sets "
			"(sysfs)</td></tr>\n", m->l1d_size / 1024, m->l1d_assoc, m->l1d_line,
			m->l1d_assoc && m->l1d_line ?
			m->l1d_size / m->l1d_assoc / m->l1d_line : 0);
	else
		fputs("<tr><td>L1D</td><td>unknown (no sysfs cache info)</td></tr>\n", f);
	fputs("<tr><td>kernel</td><td>", f);
	esc(f, m->kernel[0] ? m->kernel : "unknown");
	fputs("</td></tr>\n</table>\n", f);
}

/* The summary lines, captured and escaped into a <pre>. */
static void summary_block(FILE *f, const struct sp_bench_results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	sp_bench_summary(m, r);
	if (fclose(m) || !buf) {
		free(buf);
		return;
	}
	const char *p = buf;
	while (*p == '\n')
		p++;
	fputs("<h2 id=\"summary\">Summary</h2>\n<pre class=\"summary\">", f);
	esc(f, p);
	fputs("</pre>\n", f);
	free(buf);
}

static void suite_section(FILE *f, const struct sp_bench_results *r, const struct sp_bench_suite *s)
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
	fprintf(f, " of %u rounds, variants interleaved%s; whiskers: min&ndash;max over the "
		"rounds (a red chevron: cut at 1.25x the tallest bar); label: median and ratio to "
		"the baseline (",
		first->reps, first->pinned ? ", pinned to one CPU" : ", not pinned (own threads)");
	esc(f, first->v[0].name);
	fputs(")</p>\n<div class=\"charts\">\n", f);
	for (size_t i = 0; i < r->n; i++) {
		const struct bench_kept_case *k = &r->c[i];
		if (k->s != s)
			continue;
		int any_miss = 0;
		for (size_t j = 0; j < k->nv; j++)
			any_miss |= !k->v[j].err && isfinite(k->v[j].cg_d1);
		fputs("<figure>\n<figcaption>", f);
		esc(f, k->name);
		fputs("</figcaption>\n", f);
		char title[160];
		snprintf(title, sizeof(title), "wall time per %s", s->unit ? s->unit : "op");
		chart(f, k, CHART_NS, title);
		if (!k->pinned) {
			snprintf(title, sizeof(title), "process CPU time per %s (all threads)",
				 s->unit ? s->unit : "op");
			chart(f, k, CHART_CPU, title);
		}
		if (any_miss) {
			snprintf(title, sizeof(title), "callgrind D1 misses per %s (D1 %s)",
				 s->unit ? s->unit : "op", k->cg_geom);
			chart(f, k, CHART_MISS, title);
		} else if (k->cg_geom[0]) {
			fputs("<p class=\"how\">callgrind: n/a", f);
			if (k->cg_err[0]) {
				fputs(" (", f);
				esc(f, k->cg_err);
				fputc(')', f);
			}
			fputs("</p>\n", f);
		}
		fputs("</figure>\n", f);
	}
	fputs("</div>\n", f);
	if (last->context) {
		fputs("<p class=\"context\"><b>Kernel threads / targets:</b> ", f);
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
	if (info && info->machine)
		machine_table(f, info->machine);
	if (r)
		summary_block(f, r);
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
