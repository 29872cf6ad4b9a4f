/*
 * report.c - the bench harness's two report formats for one case of a suite.
 *
 * Table: one row per variant with "time per op: min avg median max pstdev" (perf stat -r / the
 * kernel threads' style), the ratio of its median to the baseline's (variant 0) with the range of
 * per-round ratios, the hardware counters (n/a without a PMU) and, with --cachegrind, callgrind's
 * exact Ir and D1 misses per op.  A '!' marks pstdev/mean > 3 %.
 * JSON Lines: one object per variant x metric with the statistics and the raw per-round samples;
 * every object is complete on its own line, so output of several suites concatenates.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

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

/*
 * One block of rows for time metric `m` (wall or process CPU time); the wall block also carries
 * the hardware counter and callgrind columns.  Returns whether any row was noisy.
 */
static int table_block(FILE *f, const struct bench_case_res *r, int m, const char *what, int w)
{
	const struct sp_bench_suite *s = r->s;
	const struct bench_var_res *b = baseline(r);
	const char *tu = "ns";
	double scale = 1;
	int wall = m == BENCH_M_NS, noisy_any = 0;

	for (size_t vi = 0; vi < s->nvariants; vi++)
		if (!r->vr[vi].err) {
			scale = time_scale(bench_median(r->vr[vi].m[m], r->reps), &tu);
			break;
		}
	fprintf(f, "  %s, %s per %s:\n", what, tu, s->unit ? s->unit : "op");
	fprintf(f, "  %-*s %10s %10s %10s %10s %9s  %-24s %9s", w, "variant", "min", "avg",
		"median", "max", "pstdev%", "ratio", "delta");
	if (wall)
		fprintf(f, " %6s %10s", "IPC", "L1Dmiss/op");
	if (wall && r->cg_geom)
		fprintf(f, " | %10s %10s %14s", "cg Ir/op", "cg D1mis/op", "instr/ns(est.)");
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
		double pct = st.avg > 0 ? 100 * st.pstdev / st.avg : NAN;
		int noisy = pct > BENCH_NOISY_PCT;
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
			char gi[24], gd[24], ge[24];
			fmt_num(gi, sizeof(gi), vr->cg_ir, 10);
			fmt_num(gd, sizeof(gd), vr->cg_d1, 11);
			fmt_num(ge, sizeof(ge), st.median > 0 ? vr->cg_ir / st.median : NAN, 14);
			fprintf(f, " | %s %s %s", gi, gd, ge);
		}
		fputc('\n', f);
	}
	return noisy_any;
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
	if (disturbed_any) {
		fprintf(f, "  samples with a context switch or migration:");
		for (size_t vi = 0; vi < s->nvariants; vi++)
			if (!r->vr[vi].err && r->vr[vi].disturbed)
				fprintf(f, " %s %u/%u", r->vr[vi].v->name, r->vr[vi].disturbed,
					r->reps);
		fputc('\n', f);
	}
	if (r->cg_geom) {
		if (r->cg_err)
			fprintf(f, "  callgrind: n/a (%s)\n", r->cg_err);
		else
			fprintf(f, "  callgrind (D1=%s, I1=32768,8,64, LL=2097152,16,64): exact "
				"per-op counts of each variant's measured region; instr/ns (est.) "
				"= callgrind Ir/op / wall median ns/op (an estimate, not a "
				"measured IPC)\n", r->cg_geom);
	}
	if (s->context && r->last)
		fprintf(f, "\n  %s: %s\n", s->name, s->context);
}

static void json_head(FILE *f, const struct bench_case_res *r, const struct bench_var_res *vr,
		      const char *metric)
{
	fputs("{\"suite\":", f);
	bench_json_str(f, r->s->name);
	fputs(",\"case\":", f);
	bench_json_str(f, r->c->name);
	fputs(",\"variant\":", f);
	bench_json_str(f, vr->v->name);
	fprintf(f, ",\"baseline\":%s,\"metric\":", vr == &r->vr[0] ? "true" : "false");
	bench_json_str(f, metric);
	fputs(",\"unit\":", f);
	bench_json_str(f, r->s->unit ? r->s->unit : "op");
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
	fprintf(f, ",\"noisy\":%s",
		st.avg > 0 && 100 * st.pstdev / st.avg > BENCH_NOISY_PCT ? "true" : "false");
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
