/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * targets.c - the issues' performance targets held against a run's kept results: one line per
 * target whose case ran, with the figure this run measured, the target, the floor estimated for
 * it and a verdict ("met", "not met", or why it could not be judged).
 *
 * A target is one figure of one (suite, case, variant): callgrind's Ir per op (exact, needs
 * --cachegrind), the median time per op (wall for pinned cases, process CPU time otherwise, as
 * the summary reads them), that median as a ratio to another variant of the same case measured
 * in the same rounds, or one of the variant's own figures (sp_bench_suite.figures).  A ratio
 * is quoted only when neither side is bimodal (bench_int.h); a noisy side marks it '!', as the
 * summary does.  Floors are the issues' estimates of the least work the operation needs (the
 * reasoning behind each is in docs/DESIGN.md, "Figures against their floors"); where the
 * suite measures a floor itself (a relay, a bare loop), `floor_var` names that variant and its
 * figure is printed beside the estimate.
 */
#include <math.h>
#include <string.h>

#include "bench/bench_int.h"
#include "bench/suites.h"

enum tgt_kind {
	TGT_IR,			/* callgrind Ir per op <= limit */
	TGT_TIME,		/* median ns per op <= limit */
	TGT_RATIO,		/* median / anchor's median <= limit */
	TGT_IR_RATIO,		/* Ir per op / anchor's Ir per op <= limit */
	TGT_FIG,		/* the variant's own figure `fig` <= limit */
};

struct target {
	const struct sp_bench_suite *s;
	const char *case_name, *variant;
	enum tgt_kind kind;
	const char *anchor;		/* TGT_*RATIO: the variant divided by; TGT_FIG: the figure */
	double limit;
	const char *floor;		/* the estimated floor, or NULL */
	const char *floor_var;		/* a variant of the case measuring a floor, or NULL */
	const char *issue;		/* where the target was set */
};

#define N1(x) (1.0 / (x))

static const struct target targets[] = {
	/* audit filter (#22 item 2) */
	{ &bench_suite_audit, "neo23x0/mix", "compiled", TGT_IR, NULL, 150,
	  "~45 Ir (2.42 rules tried, each rejected by its first predicate)", NULL, "#22" },
	{ &bench_suite_audit, "neo23x0/mix", "matcher", TGT_IR, NULL, 100, NULL, NULL, "#22" },
	{ &bench_suite_audit, "neo23x0/mix", "compiled", TGT_IR_RATIO, "kernel", N1(50), NULL,
	  NULL, "#22" },
	{ &bench_suite_audit, "stig/recorded", "compiled", TGT_IR, NULL, 150, NULL, NULL, "#22" },
	{ &bench_suite_audit, "neo23x0/recorded", "compiled", TGT_IR, NULL, 150, NULL, NULL,
	  "#22" },
	{ &bench_suite_audit, "stig/getpid", "compiled", TGT_IR, NULL, 30,
	  "~28-30 Ir with the loop (the gate ~15)", NULL, "#22" },
	/* policy (#22 item 6) */
	{ &bench_suite_policy, "load", "flat", TGT_TIME, NULL, 3e6, "~2-3 ms", NULL, "#22" },
	{ &bench_suite_policy, "load", "flat", TGT_RATIO, "libsepol", N1(7), NULL, NULL, "#22" },
	{ &bench_suite_policy, "avc", "flat", TGT_IR, NULL, 50, "~30-40 Ir", NULL, "#22" },
	/* slab (#22 item 3): ratios to mimalloc in the same rounds, checks on */
	{ &bench_suite_slab, "hot-64", "init-off", TGT_RATIO, "mimalloc", 1.0,
	  "~25 Ir (a checked LIFO pop + push)", NULL, "#22" },
	{ &bench_suite_slab, "batch64-64", "init-off", TGT_RATIO, "mimalloc", 1.0, NULL, NULL,
	  "#22" },
	{ &bench_suite_slab, "hot-64", "both-init", TGT_RATIO, "mimalloc", 1.3,
	  "init-off + 4 stores", NULL, "#22" },
	{ &bench_suite_slab, "batch64-64", "both-init", TGT_RATIO, "mimalloc", 1.3,
	  "init-off + 4 stores", NULL, "#22" },
	{ &bench_suite_slab, "batch64-4096", "init-off", TGT_RATIO, "mimalloc", 2.0,
	  "~50 Ir, no page faults", NULL, "#22" },
	/* replay and the plugin (#22 item 5, #20) */
	{ &bench_suite_replay, "100k-events", "replay-log", TGT_TIME, NULL, 1e9 / 3e6,
	  "`cat`-bound: 3-4x today's", NULL, "#22" },
	{ &bench_suite_replay, "100k-events", "replay-log", TGT_RATIO, "ausearch -k", N1(10),
	  NULL, NULL, "#22" },
	{ &bench_suite_replay, "100k-events", "stream-pipe", TGT_TIME, NULL, 1e3, NULL, NULL,
	  "#20" },
	{ &bench_suite_replay, "100k-events", "stream-laurel", TGT_RATIO, "laurel", N1(10), NULL,
	  NULL, "#20" },
	{ &bench_suite_stream, "10k-events/s", "stream raw -R", TGT_FIG, "latency-p99", 100, NULL,
	  "cat (relay floor)", "#20" },
	/* setools (#21): >= 10x on every query kind, >= 100x for -A and diff */
	{ &bench_suite_setools, "search-A", "secpath", TGT_RATIO, "setools", N1(100),
	  "the load plus the write", NULL, "#21" },
	{ &bench_suite_setools, "search-A-init_t-file", "secpath", TGT_RATIO, "setools", N1(10),
	  NULL, NULL, "#21" },
	{ &bench_suite_setools, "search-T", "secpath", TGT_RATIO, "setools", N1(10), NULL, NULL,
	  "#21" },
	{ &bench_suite_setools, "info", "secpath", TGT_RATIO, "setools", N1(10), NULL, NULL,
	  "#21" },
	{ &bench_suite_setools, "diff-symbols", "secpath", TGT_RATIO, "setools", N1(100), NULL,
	  NULL, "#21" },
};

static const struct bench_kept_case *find_case(const struct sp_bench_results *r,
					       const struct sp_bench_suite *s, const char *name)
{
	const struct bench_kept_case *k = NULL;
	for (size_t i = 0; r && i < r->n; i++)	/* the last one kept, as the summary's */
		if (r->c[i].s == s && !strcmp(r->c[i].name, name))
			k = &r->c[i];
	return k;
}

static const struct bench_kept_var *find_var(const struct bench_kept_case *k, const char *name)
{
	for (size_t j = 0; name && j < k->nv; j++)
		if (!strcmp(k->v[j].name, name))
			return k->v[j].err ? NULL : &k->v[j];
	return NULL;
}

static const struct bench_fig *find_fig(const struct bench_kept_var *v, const char *name)
{
	for (unsigned i = 0; v && i < v->nfig; i++)
		if (!strcmp(v->fig[i].name, name))
			return &v->fig[i];
	return NULL;
}

/* The time the summary reads of v: wall for pinned cases, else process CPU time. */
static double med_of(const struct bench_kept_case *k, const struct bench_kept_var *v, int *noisy,
		     int *bimodal)
{
	*noisy |= (k->pinned ? v->pct : v->cpu_pct) > BENCH_NOISY_PCT;
	*bimodal |= k->pinned ? v->bimodal : v->cpu_bimodal;
	return k->pinned ? v->med : v->cpu_med;
}

/* "12.3 ns", "4.56 ms": about three significant digits. */
static void fmt_time(char *buf, size_t len, double ns)
{
	const char *u = ns >= 1e6 ? "ms" : ns >= 1e3 ? "us" : "ns";
	double x = ns / (ns >= 1e6 ? 1e6 : ns >= 1e3 ? 1e3 : 1);
	snprintf(buf, len, "%.*f %s", x >= 100 ? 0 : x >= 10 ? 1 : 2, x, u);
}

/*
 * Measure target t in case k: its figure into `got`, the target into `want`, and the value
 * compared with t->limit into *val.  Returns 1 when judged, 0 when it could not be (`got`
 * then says why).
 */
static int measure(const struct target *t, const struct bench_kept_case *k, double *val,
		   char *got, char *want, size_t len)
{
	const struct bench_kept_var *v = find_var(k, t->variant), *a = find_var(k, t->anchor);
	const char *unit = k->s->unit ? k->s->unit : "op";
	int noisy = 0, bimodal = 0;
	char x[32];

	if (!v) {
		snprintf(got, len, "not measured (variant skipped)");
		return 0;
	}
	switch (t->kind) {
	case TGT_IR:
		snprintf(want, len, "<= %.0f Ir/%s", t->limit, unit);
		*val = v->cg_ir;
		if (!isfinite(*val)) {
			snprintf(got, len, "not measured (run with --cachegrind)");
			return 0;
		}
		snprintf(got, len, "%.1f Ir/%s", *val, unit);
		return 1;
	case TGT_TIME:
		fmt_time(x, sizeof(x), t->limit);
		snprintf(want, len, "<= %s/%s", x, unit);
		*val = med_of(k, v, &noisy, &bimodal);
		fmt_time(x, sizeof(x), *val);
		snprintf(got, len, "%s/%s%s", x, unit, noisy ? "!" : "");
		return isfinite(*val) && !bimodal;
	case TGT_FIG: {
		const struct bench_fig *g = find_fig(v, t->anchor);
		snprintf(want, len, "%s <= %g %s", t->anchor, t->limit, g ? g->unit : "");
		if (!g) {
			snprintf(got, len, "not measured (no %s figure)", t->anchor);
			return 0;
		}
		*val = g->value;
		snprintf(got, len, "%s %.3g %s", g->name, g->value, g->unit);
		return 1;
	}
	case TGT_RATIO:
	case TGT_IR_RATIO:
		break;
	}
	int ir = t->kind == TGT_IR_RATIO;
	if (t->limit < 1)
		snprintf(want, len, "<= %.3gx %s%s (>= %.3gx %s)", t->limit, t->anchor,
			 ir ? "'s Ir" : "", 1 / t->limit, ir ? "fewer" : "faster");
	else
		snprintf(want, len, "<= %.3gx %s", t->limit, t->anchor);
	if (!a) {
		snprintf(got, len, "not measured (%s skipped)", t->anchor);
		return 0;
	}
	double num = ir ? v->cg_ir : med_of(k, v, &noisy, &bimodal);
	double den = ir ? a->cg_ir : med_of(k, a, &noisy, &bimodal);
	*val = num / den;
	if (ir && !isfinite(*val)) {
		snprintf(got, len, "not measured (run with --cachegrind)");
		return 0;
	}
	if (bimodal) {
		snprintf(got, len, "no ratio (bimodal)");
		return 0;
	}
	snprintf(got, len, "%.3gx %s%s%s", *val, t->anchor, ir ? "'s Ir" : "", noisy ? "!" : "");
	return isfinite(*val);
}

/* The floor column: the estimate, and the floor variant's figure of the same kind. */
static void floor_text(const struct target *t, const struct bench_kept_case *k, char *buf,
		       size_t len)
{
	const struct bench_kept_var *fv = find_var(k, t->floor_var);
	const struct bench_fig *g = t->kind == TGT_FIG ? find_fig(fv, t->anchor) : NULL;
	int n = snprintf(buf, len, "%s", t->floor ? "; floor " : "");
	if (t->floor && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%s", t->floor);
	if (g && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s%s here: %.3g %s", t->floor ? ", " : "; floor: ",
			 fv->name, g->value, g->unit);
	else if (fv && t->kind == TGT_TIME && n >= 0 && (size_t)n < len) {
		char x[32];
		int no = 0, bi = 0;
		fmt_time(x, sizeof(x), med_of(k, fv, &no, &bi));
		snprintf(buf + n, len - (size_t)n, "%s%s here: %s", t->floor ? ", " : "; floor: ",
			 fv->name, x);
	}
}

void sp_bench_targets(FILE *f, const struct sp_bench_results *r)
{
	unsigned shown = 0, judged = 0, met = 0;

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		const struct target *t = &targets[i];
		const struct bench_kept_case *k = find_case(r, t->s, t->case_name);
		if (!k)
			continue;
		char got[96], want[96] = "", fl[160];
		double val = NAN;
		int ok = measure(t, k, &val, got, want, sizeof(got));
		if (!shown++)
			fprintf(f, "\ntargets (the issues'; floor: the least work estimated for the "
				"operation, docs/DESIGN.md):\n");
		floor_text(t, k, fl, sizeof(fl));
		fprintf(f, "  %s %s %s %s: %s; target %s%s: %s\n", t->issue, t->s->name,
			t->case_name, t->variant, got, want, fl,
			!ok ? "not judged" : val <= t->limit ? "met" : "not met");
		judged += ok;
		met += ok && val <= t->limit;
	}
	if (shown)
		fprintf(f, "  %u of %u judged targets met in this run (%u not judged: their figure "
			"was not measured)\n", met, judged, shown - judged);
}
