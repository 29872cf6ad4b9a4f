/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report.c - the bench harness's two report formats for one case of a suite.
 *
 * Table: one row per variant with "time per op: min avg median max pstdev" (perf stat -r / the
 * kernel threads' style), the ratio of its median to the baseline's (variant 0) with the range of
 * per-round ratios, the hardware counters (n/a without a PMU) and, with --cachegrind, callgrind's
 * exact Ir and D1 misses per op.  A '!' marks a noisy variant, a line names the bimodal ones
 * (bench_int.h's rules).
 * JSON Lines: one object per variant x metric with the statistics, the two flags ("noisy",
 * "bimodal") and the raw per-round samples; every object is complete on its own line, so output
 * of several suites concatenates.
 * Kept results (sp_bench_results) hold what the summary and the HTML page need of each case:
 * medians, ranges, spreads, flags and ratios of wall and CPU time, disturbed samples, hw counter
 * and callgrind figures, a copy of the context.  They cross fork() as raw records (pointers into
 * the program image stay valid in a child).  The summary prints one line per suite: its headline
 * case and variant (registry.c), a '!' on each ratio a noisy variant or baseline makes
 * unreliable, no ratio at all where one of the two is bimodal, and a legend for the marks used.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_int.h"

static const char *const metric_name[BENCH_M_NR] = {
	[BENCH_M_NS] = "ns/op",
	[BENCH_M_CPU] = "cpu-ns/op",
	[BENCH_M_CYCLES] = "cycles/op",
	[BENCH_M_INSTR] = "instructions/op",
	[BENCH_M_L1DMISS] = "l1d-read-misses/op",
	[BENCH_M_IPC] = "ipc",
};

void bench_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void bench_json_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.6g", x);
	else
		fputs("null", f);
}

static void fmt_num(char *buf, size_t len, double x, int width)
{
	if (!isfinite(x))
		snprintf(buf, len, "%*s", width, "n/a");
	else if (fabs(x) < 10)
		snprintf(buf, len, "%*.3f", width, x);
	else if (fabs(x) < 1000)
		snprintf(buf, len, "%*.2f", width, x);
	else if (fabs(x) < 1e7)
		snprintf(buf, len, "%*.0f", width, x);
	else if (fabs(x) < 1e10)	/* a whole program per op (malloc): millions, no exponent */
		snprintf(buf, len, "%*.2fM", width - 1, x / 1e6);
	else
		snprintf(buf, len, "%*.3g", width, x);
}

static const struct bench_var_res *baseline(const struct bench_case_res *r)
{
	return r->vr[0].err ? NULL : &r->vr[0];
}

/* Scale and unit for times whose typical value is m ns. */
static double time_scale(double m, const char **unit)
{
	if (m >= 1e7) {
		*unit = "ms";
		return 1e6;
	}
	if (m >= 1e4) {
		*unit = "us";
		return 1e3;
	}
	*unit = "ns";
	return 1;
}

/* The time scale of a block of metric m: that of the first variant that ran. */
static double block_scale(const struct bench_case_res *r, int m, const char **unit)
{
	for (size_t vi = 0; vi < r->s->nvariants; vi++)
		if (!r->vr[vi].err)
			return time_scale(bench_median(r->vr[vi].m[m], r->reps), unit);
	*unit = "ns";
	return 1;
}

/*
 * One block of rows for time metric `m` (wall or process CPU time); the wall block also carries
 * the hardware counter and callgrind columns.  Returns whether any row was noisy.
 */
static int table_block(FILE *f, const struct bench_case_res *r, int m, const char *what, int w)
{
	const struct sp_bench_suite *s = r->s;
	const struct bench_var_res *b = baseline(r);
	const char *tu;
	double scale = block_scale(r, m, &tu);
	int wall = m == BENCH_M_NS, noisy_any = 0;

	fprintf(f, "  %s, %s per %s:\n", what, tu, s->unit ? s->unit : "op");
	fprintf(f, "  %-*s %10s %10s %10s %10s %9s  %-24s %9s", w, "variant", "min", "avg",
		"median", "max", "pstdev%", "ratio", "delta");
	if (wall)
		fprintf(f, " %6s %10s", "IPC", "L1Dmiss/op");
	if (wall && r->cg_geom)
		fprintf(f, " | %10s %8s %10s %14s", "cg Ir/op", "Ir ratio", "cg D1mis/op",
			"instr/ns(est.)");
	fputc('\n', f);

	for (size_t vi = 0; vi < s->nvariants; vi++) {
		const struct bench_var_res *vr = &r->vr[vi];
		if (vr->err) {
			fprintf(f, "  %-*s skipped: %s\n", w, vr->v->name, strerror(-vr->err));
			continue;
		}
		struct bench_stats st;
		char c[4][24], ratio[40] = "n/a", delta[24] = "";
		bench_stats_compute(vr->m[m], r->reps, &st);
		fmt_num(c[0], sizeof(c[0]), st.min / scale, 10);
		fmt_num(c[1], sizeof(c[1]), st.avg / scale, 10);
		fmt_num(c[2], sizeof(c[2]), st.median / scale, 10);
		fmt_num(c[3], sizeof(c[3]), st.max / scale, 10);
		double pct = bench_stats_pct(&st);
		int noisy = bench_stats_noisy(&st);
		noisy_any |= noisy;
		if (vr == b) {
			snprintf(ratio, sizeof(ratio), "%s", "1.000");
		} else if (b) {
			struct bench_ratio q;
			bench_ratio_compute(vr->m[m], b->m[m], r->reps, &q);
			snprintf(ratio, sizeof(ratio), "%.3f [%.3f..%.3f]", q.median, q.min, q.max);
			/* absolute difference of medians: percentages of a 1 ns op mislead */
			double d = (st.median - bench_median(b->m[m], r->reps)) / scale;
			snprintf(delta, sizeof(delta), "%+.*f", fabs(d) < 100 ? 2 : 0, d);
		}
		fprintf(f, "  %-*s %s %s %s %s %7.2f%%%c %-24s %9s", w, vr->v->name, c[0], c[1],
			c[2], c[3], pct, noisy ? '!' : ' ', ratio, delta);
		if (wall) {
			struct bench_stats ipc, miss;
			char ci[24], cm[24];
			bench_stats_compute(vr->m[BENCH_M_IPC], r->reps, &ipc);
			bench_stats_compute(vr->m[BENCH_M_L1DMISS], r->reps, &miss);
			fmt_num(ci, sizeof(ci), ipc.median, 6);
			fmt_num(cm, sizeof(cm), miss.median, 10);
			fprintf(f, " %s %s", ci, cm);
		}
		if (wall && r->cg_geom) {
			char gi[24], gr[24], gd[24], ge[24];
			fmt_num(gi, sizeof(gi), vr->cg_ir, 10);
			/* exact where the wall ratios are noise (a whole program per op) */
			fmt_num(gr, sizeof(gr), b && b->cg_ir > 0 ? vr->cg_ir / b->cg_ir : NAN, 8);
			fmt_num(gd, sizeof(gd), vr->cg_d1, 11);
			fmt_num(ge, sizeof(ge), st.median > 0 ? vr->cg_ir / st.median : NAN, 14);
			fprintf(f, " | %s %s %s %s", gi, gr, gd, ge);
		}
		fputc('\n', f);
	}
	return noisy_any;
}

/* The variants whose samples of time metric m are bimodal, on one line (none: no line), in the
 * unit of the block's table. */
static void bimodal_line(FILE *f, const struct bench_case_res *r, int m, const char *what)
{
	const char *tu;
	double scale = block_scale(r, m, &tu);
	int any = 0;

	for (size_t vi = 0; vi < r->s->nvariants; vi++) {
		const struct bench_var_res *vr = &r->vr[vi];
		struct bench_stats st;
		char lo[24], med[24];
		if (vr->err)
			continue;
		bench_stats_compute(vr->m[m], r->reps, &st);
		if (!bench_stats_bimodal(&st))
			continue;
		fmt_num(lo, sizeof(lo), st.min / scale, 0);
		fmt_num(med, sizeof(med), st.median / scale, 0);
		if (!any)
			fprintf(f, "  bimodal %s (pstdev/mean above %.0f%%, min below median/%.0f: "
				"two modes, the median in the slow one; its ratios compare modes):",
				what, BENCH_BIMODAL_PCT, BENCH_BIMODAL_GAP);
		fprintf(f, "%s %s min %s median %s %s", any ? "," : "", vr->v->name, lo, med, tu);
		any = 1;
	}
	if (any)
		fputc('\n', f);
}

/* "name value unit" after sep: 1000 or more to the unit, else 3 significant digits. */
static void fig_print(FILE *f, const struct bench_fig *g, const char *sep)
{
	int whole = g->value >= 1000;
	fprintf(f, whole ? "%s%s %.0f%s%s" : "%s%s %.3g%s%s", sep, g->name, g->value,
		g->unit[0] ? " " : "", g->unit);
}

/* The variants' own figures, one line: "  measured by the variants: A: name 1.2 us, ...". */
static void figures_line(FILE *f, const struct bench_case_res *r)
{
	int any = 0;
	for (size_t vi = 0; vi < r->s->nvariants; vi++) {
		const struct bench_var_res *vr = &r->vr[vi];
		if (vr->err || !vr->nfig)
			continue;
		fprintf(f, "%s%s:", any ? "; " : "  measured by the variants over every op: ",
			vr->v->name);
		for (unsigned i = 0; i < vr->nfig; i++)
			fig_print(f, &vr->fig[i], i ? ", " : " ");
		any = 1;
	}
	if (any)
		fputc('\n', f);
}

void bench_report_table(FILE *f, const struct bench_case_res *r)
{
	const struct sp_bench_suite *s = r->s;
	const struct bench_var_res *b = baseline(r);
	int w = 8, disturbed_any = 0;

	for (size_t vi = 0; vi < s->nvariants; vi++) {
		if ((int)strlen(s->variants[vi].name) > w)
			w = (int)strlen(s->variants[vi].name);
		/* A suite running its own threads sleeps by design: no disturbance. */
		disturbed_any |= !r->vr[vi].err && r->vr[vi].disturbed && r->cpu >= 0;
	}
	fprintf(f, "\n%s [%s]: %s\n", s->name, r->c->name, s->desc ? s->desc : "");
	fprintf(f, "  %u rounds, variants interleaved, %s; ratio = median / median of %s "
		"[range of per-round ratios]; delta = difference of medians\n", r->reps,
		r->cpu >= 0 ? "pinned to one CPU" : "not pinned (the suite runs its own threads)",
		b ? b->v->name : "the baseline (skipped)");
	int noisy = table_block(f, r, BENCH_M_NS, "wall time", w);
	if (r->cpu < 0)
		noisy |= table_block(f, r, BENCH_M_CPU,
				     "process CPU time (user + sys, all threads)", w);
	if (r->hw_err)
		fprintf(f, "  hw counters: n/a (perf_event_open: %s)\n", strerror(r->hw_err));
	if (noisy)
		fprintf(f, "  ! pstdev/mean above %.0f%%: differences of that size are noise\n",
			BENCH_NOISY_PCT);
	bimodal_line(f, r, BENCH_M_NS, "wall time");
	if (r->cpu < 0)
		bimodal_line(f, r, BENCH_M_CPU, "CPU time");
	if (disturbed_any) {
		fprintf(f, "  samples with a context switch or migration:");
		for (size_t vi = 0; vi < s->nvariants; vi++)
			if (!r->vr[vi].err && r->vr[vi].disturbed)
				fprintf(f, " %s %u/%u", r->vr[vi].v->name, r->vr[vi].disturbed,
					r->reps);
		fputc('\n', f);
	}
	figures_line(f, r);
	if (r->cg_geom) {
		if (r->cg_err)
			fprintf(f, "  callgrind: n/a (%s)\n", r->cg_err);
		else
			fprintf(f, "  callgrind (D1=%s, I1=32768,8,64, LL=2097152,16,64): exact "
				"per-op counts of each variant's measured region%s; Ir ratio = "
				"Ir/op / the baseline's; instr/ns (est.) = callgrind Ir/op / wall "
				"median ns/op (an estimate, not a measured IPC)\n", r->cg_geom,
				s->flags & SP_BENCH_CG_CHILDREN
					? " (the programs it ran, user space, summed over their "
					  "processes)"
					: "");
	}
	if (s->context && r->last)
		fprintf(f, "\n  %s: %s\n", s->name, s->context);
}

static void json_head_unit(FILE *f, const struct bench_case_res *r,
			   const struct bench_var_res *vr, const char *metric, const char *unit)
{
	fputs("{\"schema\":\"secpath.bench/1\",\"suite\":", f);
	bench_json_str(f, r->s->name);
	fputs(",\"case\":", f);
	bench_json_str(f, r->c->name);
	fputs(",\"variant\":", f);
	bench_json_str(f, vr->v->name);
	fprintf(f, ",\"baseline\":%s,\"metric\":", vr == &r->vr[0] ? "true" : "false");
	bench_json_str(f, metric);
	fputs(",\"unit\":", f);
	bench_json_str(f, unit);
}

static void json_head(FILE *f, const struct bench_case_res *r, const struct bench_var_res *vr,
		      const char *metric)
{
	json_head_unit(f, r, vr, metric, r->s->unit ? r->s->unit : "op");
}

static void json_stats(FILE *f, const struct bench_case_res *r, const struct bench_var_res *vr,
		       int m)
{
	const struct bench_var_res *b = baseline(r);
	struct bench_stats st;
	bench_stats_compute(vr->m[m], r->reps, &st);
	json_head(f, r, vr, metric_name[m]);
	fprintf(f, ",\"ops_per_sample\":%llu,\"reps\":%u", (unsigned long long)vr->ops, r->reps);
	const char *k[] = { "min", "avg", "median", "max", "pstdev" };
	double v[] = { st.min, st.avg, st.median, st.max, st.pstdev };
	for (int i = 0; i < 5; i++) {
		fprintf(f, ",\"%s\":", k[i]);
		bench_json_num(f, v[i]);
	}
	fprintf(f, ",\"noisy\":%s,\"bimodal\":%s", bench_stats_noisy(&st) ? "true" : "false",
		bench_stats_bimodal(&st) ? "true" : "false");
	if (b) {
		struct bench_ratio q;
		bench_ratio_compute(vr->m[m], b->m[m], r->reps, &q);
		fputs(",\"ratio_median\":", f);
		bench_json_num(f, q.median);
		fputs(",\"ratio_min\":", f);
		bench_json_num(f, q.min);
		fputs(",\"ratio_max\":", f);
		bench_json_num(f, q.max);
	}
	if (m == BENCH_M_NS)
		fprintf(f, ",\"context_switches\":%llu,\"migrations\":%llu,\"page_faults\":%llu,"
			"\"disturbed_samples\":%u",
			(unsigned long long)vr->sw[BENCH_SW_CS],
			(unsigned long long)vr->sw[BENCH_SW_MIGR],
			(unsigned long long)vr->sw[BENCH_SW_PF], vr->disturbed);
	fputs(",\"samples\":[", f);
	for (unsigned i = 0; i < r->reps; i++) {
		if (i)
			fputc(',', f);
		bench_json_num(f, vr->m[m][i]);
	}
	fputs("]}\n", f);
}

/* A variant's own figure: one value over every op it ran (min = median = max, no pstdev). */
static void json_fig(FILE *f, const struct bench_case_res *r, const struct bench_var_res *vr,
		     const struct bench_fig *g)
{
	json_head_unit(f, r, vr, g->name, g->unit);
	fprintf(f, ",\"reps\":%u,\"over\":\"every op\"", r->reps);
	const char *k[] = { "min", "avg", "median", "max" };
	for (int i = 0; i < 4; i++) {
		fprintf(f, ",\"%s\":", k[i]);
		bench_json_num(f, g->value);
	}
	fputs(",\"pstdev\":null,\"noisy\":false,\"bimodal\":false}\n", f);
}

void bench_report_json(FILE *f, const struct bench_case_res *r)
{
	for (size_t vi = 0; vi < r->s->nvariants; vi++) {
		const struct bench_var_res *vr = &r->vr[vi];
		if (vr->err) {
			json_head(f, r, vr, "ns/op");
			fputs(",\"skipped\":", f);
			bench_json_str(f, strerror(-vr->err));
			fputs("}\n", f);
			continue;
		}
		json_stats(f, r, vr, BENCH_M_NS);
		json_stats(f, r, vr, BENCH_M_CPU);
		for (unsigned i = 0; i < vr->nfig; i++)
			json_fig(f, r, vr, &vr->fig[i]);
		if (!r->hw_err)
			for (int m = BENCH_M_CYCLES; m < BENCH_M_NR; m++)
				json_stats(f, r, vr, m);
		if (r->cg_geom && isfinite(vr->cg_ops)) {
			const char *names[] = { "callgrind-Ir/op", "callgrind-D1-misses/op" };
			double vals[] = { vr->cg_ir, vr->cg_d1 };
			for (int i = 0; i < 2; i++) {
				json_head(f, r, vr, names[i]);
				fputs(",\"geometry\":", f);
				bench_json_str(f, r->cg_geom);
				fprintf(f, ",\"ops\":%.0f,\"reps\":1,\"min\":", vr->cg_ops);
				bench_json_num(f, vals[i]);
				fputs(",\"avg\":", f);
				bench_json_num(f, vals[i]);
				fputs(",\"median\":", f);
				bench_json_num(f, vals[i]);
				fputs(",\"max\":", f);
				bench_json_num(f, vals[i]);
				fputs(",\"pstdev\":0,\"samples\":[", f);
				bench_json_num(f, vals[i]);
				fputs("]}\n", f);
			}
		}
	}
}

/* ---- kept results and the summary ---- */

int sp_bench_results_new(struct sp_bench_results **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void sp_bench_results_free(struct sp_bench_results *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->c[i].v);
		free(r->c[i].context);
	}
	free(r->c);
	free(r);
}

size_t sp_bench_results_count(const struct sp_bench_results *r)
{
	return r ? r->n : 0;
}

static int send_case(const struct bench_kept_case *k, int fd);

/* The figures of variant vr (of case r, baseline b or NULL) that the summary and page need. */
static void keep_var(struct bench_kept_var *kv, const struct bench_case_res *r,
		     const struct bench_var_res *vr, const struct bench_var_res *b)
{
	struct bench_stats st;
	struct bench_ratio q = { NAN, NAN, NAN }, qc = { NAN, NAN, NAN };

	kv->name = vr->v->name;
	kv->err = vr->err;
	kv->med = kv->min = kv->max = kv->cpu_med = kv->cpu_min = kv->cpu_max = NAN;
	kv->ratio = kv->rmin = kv->rmax = kv->cpu_ratio = kv->cpu_rmin = kv->cpu_rmax = NAN;
	kv->pct = kv->cpu_pct = kv->ipc = kv->l1dmiss = NAN;
	kv->cg_d1 = kv->cg_ir = NAN;
	kv->nfig = 0;
	if (vr->err)
		return;
	kv->nfig = vr->nfig;
	memcpy(kv->fig, vr->fig, sizeof(kv->fig));
	bench_stats_compute(vr->m[BENCH_M_NS], r->reps, &st);
	kv->med = st.median;
	kv->min = st.min;
	kv->max = st.max;
	kv->pct = bench_stats_pct(&st);
	kv->bimodal = bench_stats_bimodal(&st);
	bench_stats_compute(vr->m[BENCH_M_CPU], r->reps, &st);
	kv->cpu_med = st.median;
	kv->cpu_min = st.min;
	kv->cpu_max = st.max;
	kv->cpu_pct = bench_stats_pct(&st);
	kv->cpu_bimodal = bench_stats_bimodal(&st);
	if (b) {
		bench_ratio_compute(vr->m[BENCH_M_NS], b->m[BENCH_M_NS], r->reps, &q);
		bench_ratio_compute(vr->m[BENCH_M_CPU], b->m[BENCH_M_CPU], r->reps, &qc);
	}
	kv->ratio = q.median;
	kv->rmin = q.min;
	kv->rmax = q.max;
	kv->cpu_ratio = qc.median;
	kv->cpu_rmin = qc.min;
	kv->cpu_rmax = qc.max;
	kv->disturbed = vr->disturbed;
	kv->ipc = bench_median(vr->m[BENCH_M_IPC], r->reps);
	kv->l1dmiss = bench_median(vr->m[BENCH_M_L1DMISS], r->reps);
	kv->cg_d1 = vr->cg_d1;
	kv->cg_ir = vr->cg_ir;
}

int bench_results_add(struct sp_bench_results *res, const struct bench_case_res *r)
{
	const struct sp_bench_suite *s = r->s;
	const struct bench_var_res *b = baseline(r);

	if (res->n == res->cap) {
		size_t cap = res->cap ? 2 * res->cap : 16;
		struct bench_kept_case *c = realloc(res->c, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		res->c = c;
		res->cap = cap;
	}
	struct bench_kept_case *k = &res->c[res->n];
	memset(k, 0, sizeof(*k));
	k->v = calloc(s->nvariants, sizeof(*k->v));
	if (!k->v)
		return -ENOMEM;
	k->s = s;
	k->name = r->c->name;
	k->reps = r->reps;
	k->pinned = r->cpu >= 0;
	k->hw_err = r->hw_err;
	if (r->cg_err)
		snprintf(k->cg_err, sizeof(k->cg_err), "%s", r->cg_err);
	if (s->context && !(k->context = strdup(s->context))) {
		free(k->v);
		return -ENOMEM;
	}
	if (r->cg_geom)
		snprintf(k->cg_geom, sizeof(k->cg_geom), "%s", r->cg_geom);
	k->nv = s->nvariants;
	for (size_t vi = 0; vi < s->nvariants; vi++)
		keep_var(&k->v[vi], r, &r->vr[vi], b);
	res->n++;
	return res->stream_fd > 0 ? send_case(k, res->stream_fd) : 0;
}

struct bench_view bench_view_of(const struct bench_kept_case *k, const struct bench_kept_var *v)
{
	if (k->pinned)
		return (struct bench_view){ v->med, v->min, v->ratio, v->pct > BENCH_NOISY_PCT,
					    v->bimodal };
	return (struct bench_view){ v->cpu_med, v->cpu_min, v->cpu_ratio,
				    v->cpu_pct > BENCH_NOISY_PCT, v->cpu_bimodal };
}

/* The case the summary quotes for suite s (its headline case, else its last kept case), and
 * the variant it names first (the headline variant, else the fastest non-baseline that is not
 * bimodal, else the fastest). */
static const struct bench_kept_case *headline(const struct sp_bench_results *res,
					      const struct sp_bench_suite *s, size_t *vi)
{
	const char *hc = NULL, *hv = NULL;
	const struct bench_kept_case *k = NULL, *last = NULL;

	bench_registry_headline(s, &hc, &hv);
	for (size_t i = 0; res && i < res->n; i++) {
		if (res->c[i].s != s)
			continue;
		last = &res->c[i];
		if (hc && !strcmp(last->name, hc))
			k = last;
	}
	if (!k)
		k = last;	/* no headline case kept: the last case */
	if (!k)
		return NULL;
	*vi = 0;
	double best = NAN;
	int best_bim = 1;
	for (size_t j = 1; j < k->nv; j++) {
		const struct bench_kept_var *v = &k->v[j];
		struct bench_view w = bench_view_of(k, v);
		if (v->err || !isfinite(w.ratio))
			continue;
		if (hv && !strcmp(v->name, hv)) {
			*vi = j;
			break;
		}
		if (!*vi || w.bimodal < best_bim || (w.bimodal == best_bim && w.ratio < best)) {
			*vi = j;
			best = w.ratio;
			best_bim = w.bimodal;
		}
	}
	return k;
}

/* About 3 significant digits without an exponent: 0.512, 12.3, 951, 1234. */
static void fmt_sig(char *buf, size_t len, double x)
{
	double a = fabs(x);
	snprintf(buf, len, "%.*f", a >= 100 || !isfinite(x) ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3, x);
}

/* The marks a summary line printed, for the legend. */
enum { MARK_NOISY = 1, MARK_BIMODAL = 2 };

/*
 * The headline variant h against the baseline b: its ratio with both medians and '!' when
 * either is noisy, or, when either is bimodal, that one's min and median and no ratio.
 * Returns the marks printed.
 */
static int headline_ratio(FILE *f, const struct bench_kept_case *k,
			  const struct bench_kept_var *h, const struct bench_kept_var *b)
{
	const char *unit = k->s->unit ? k->s->unit : "op", *tu;
	struct bench_view hw = bench_view_of(k, h), bw = bench_view_of(k, b);
	double sc = time_scale(bw.med, &tu);
	char hs[24], bs[24], lo[24];

	fmt_sig(hs, sizeof(hs), hw.med / sc);
	fmt_sig(bs, sizeof(bs), bw.med / sc);
	if (hw.bimodal || bw.bimodal) {
		const struct bench_kept_var *m = hw.bimodal ? h : b, *o = hw.bimodal ? b : h;
		fmt_sig(lo, sizeof(lo), (hw.bimodal ? hw.min : bw.min) / sc);
		fprintf(f, "%s%s bimodal: min %s, median %s %s; no ratio (%s %s %s)", m->name,
			m == b ? " (the baseline)" : "", lo, hw.bimodal ? hs : bs, tu, o->name,
			hw.bimodal ? bs : hs, tu);
		return MARK_BIMODAL;
	}
	fprintf(f, "%s %.3gx of %s %s/%s (%s vs %s %s)%s", h->name, hw.ratio, b->name,
		k->pinned ? "ns" : "cpu-ns", unit, hs, bs, tu, hw.noisy || bw.noisy ? "!" : "");
	return hw.noisy || bw.noisy ? MARK_NOISY : 0;
}

/* One summary line for suite s (no newline printed when s has no kept case).  Returns the
 * marks printed, or -1 when s has no kept case. */
static int summary_line(FILE *f, const struct sp_bench_results *res,
			const struct sp_bench_suite *s)
{
	size_t hv;
	const struct bench_kept_case *k = headline(res, s, &hv);
	if (!k)
		return -1;
	const struct bench_kept_var *b = &k->v[0];

	fprintf(f, "  %-12s %s: ", s->name, k->name);
	if (b->err || !hv) {
		fprintf(f, "n/a (%s)\n", b->err ? "baseline skipped" : "no variant measured");
		return 0;
	}
	const struct bench_kept_var *h = &k->v[hv];
	struct bench_view bw = bench_view_of(k, b);
	int marks = headline_ratio(f, k, h, b), first = 1;
	for (size_t j = 1; j < k->nv; j++) {
		if (j == hv)
			continue;
		const struct bench_kept_var *v = &k->v[j];
		struct bench_view w = bench_view_of(k, v);
		fprintf(f, "%s%s ", first ? "; " : ", ", v->name);
		first = 0;
		if (v->err || !isfinite(w.ratio)) {
			fputs("n/a", f);
		} else if (w.bimodal || bw.bimodal) {
			fputs(w.bimodal ? "bimodal" : "no ratio", f);
			marks |= MARK_BIMODAL;
		} else {
			fprintf(f, "%.3gx%s", w.ratio, w.noisy || bw.noisy ? "!" : "");
			marks |= w.noisy || bw.noisy ? MARK_NOISY : 0;
		}
	}
	if (isfinite(h->cg_d1) && isfinite(b->cg_d1))
		fprintf(f, "; D1 misses/%s %.3g vs %.3g", s->unit ? s->unit : "op", h->cg_d1,
			b->cg_d1);
	for (size_t j = 0; j < k->nv; j++)
		for (unsigned i = 0; i < k->v[j].nfig; i++) {
			const struct bench_fig *g = &k->v[j].fig[i];
			if (!i)
				fprintf(f, "; %s:", k->v[j].name);
			fig_print(f, g, i ? ", " : " ");
		}
	fputc('\n', f);
	return marks;
}

void sp_bench_summary(FILE *f, const struct sp_bench_results *r)
{
	const struct sp_bench_suite *seen[64];
	size_t nseen = 0;
	int marks = 0;

	if (!r || !r->n)
		return;
	fprintf(f, "\nsummary: headline case per experiment; ratio = median time per op / the "
		"baseline's (< 1 is faster), cpu-ns for suites running their own threads\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct sp_bench_suite *s = r->c[i].s;
		size_t j;
		for (j = 0; j < nseen && seen[j] != s; j++)
			;
		if (j < nseen)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = s;
		int m = summary_line(f, r, s);
		marks |= m > 0 ? m : 0;
	}
	if (marks & MARK_NOISY)
		fprintf(f, "  ! pstdev/mean above %.0f%% in the variant or the baseline: a "
			"difference of that size is noise\n", BENCH_NOISY_PCT);
	if (marks & MARK_BIMODAL)
		fprintf(f, "  bimodal: pstdev/mean above %.0f%% and min below median/%.0f: the "
			"samples fall into a fast and a slow mode, so a ratio of medians compares "
			"the modes, not the variants (no ratio: the baseline is bimodal)\n",
			BENCH_BIMODAL_PCT, BENCH_BIMODAL_GAP);
}

/* ---- kept results across fork(): a child runs a suite, the parent keeps its cases ---- */

enum { KEPT_CASE = 0x4b435345, KEPT_END = 0x4b454e44 };	/* "KCSE", "KEND" */

/* 0, or -EIO (the stream's one error code) whatever write(2) said. */
static int write_all(int fd, const void *p, size_t n)
{
	return sp_fd_write_all(fd, p, n) ? -EIO : 0;
}

/* 0, or -EPIPE at end of stream (also mid-record), -EIO on error. */
static int read_all(int fd, void *p, size_t n)
{
	for (char *c = p; n;) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -EIO;
		if (!r)
			return -EPIPE;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One kept case over fd (bench_results_add with stream_fd set): 0 or -EIO. */
static int send_case(const struct bench_kept_case *k, int fd)
{
	uint32_t tag = KEPT_CASE;
	uint64_t clen = k->context ? strlen(k->context) : UINT64_MAX;
	int rc = write_all(fd, &tag, sizeof(tag));
	rc = rc ? rc : write_all(fd, k, sizeof(*k));
	rc = rc ? rc : write_all(fd, k->v, k->nv * sizeof(*k->v));
	rc = rc ? rc : write_all(fd, &clen, sizeof(clen));
	return rc || !k->context ? rc : write_all(fd, k->context, clen);
}

int bench_results_send_end(int fd, int status)
{
	uint32_t tag = KEPT_END;
	int32_t st = status;
	int rc = write_all(fd, &tag, sizeof(tag));
	return rc ? rc : write_all(fd, &st, sizeof(st));
}

int bench_results_recv(struct sp_bench_results *res, int fd, int *status)
{
	for (;;) {
		uint32_t tag;
		int rc = read_all(fd, &tag, sizeof(tag));
		if (rc)
			return rc;
		if (tag == KEPT_END) {
			int32_t st;
			if ((rc = read_all(fd, &st, sizeof(st))))
				return rc;
			*status = st;
			return 0;
		}
		if (tag != KEPT_CASE)
			return -EIO;
		struct bench_kept_case k;
		uint64_t clen;
		if ((rc = read_all(fd, &k, sizeof(k))))
			return rc;
		k.v = NULL;
		k.context = NULL;
		if (k.nv > 4096)
			return -EIO;
		k.v = malloc(k.nv * sizeof(*k.v) + 1);
		if (!k.v)
			return -ENOMEM;
		rc = read_all(fd, k.v, k.nv * sizeof(*k.v));
		rc = rc ? rc : read_all(fd, &clen, sizeof(clen));
		if (!rc && clen != UINT64_MAX) {
			k.context = clen < (1u << 20) ? malloc(clen + 1) : NULL;
			rc = k.context ? read_all(fd, k.context, clen) : -ENOMEM;
			if (!rc)
				k.context[clen] = 0;
		}
		if (!rc && res->n == res->cap) {
			size_t cap = res->cap ? 2 * res->cap : 16;
			struct bench_kept_case *c = realloc(res->c, cap * sizeof(*c));
			if (c) {
				res->c = c;
				res->cap = cap;
			} else {
				rc = -ENOMEM;
			}
		}
		if (rc) {
			free(k.v);
			free(k.context);
			return rc;
		}
		res->c[res->n++] = k;
	}
}
