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
	  "~25-29 Ir with the loop (the gate ~16-20: the gate word, one bitmap bit, the seqcount "
	  "re-check, the decision's stores; the loop ~9)", NULL, "#22" },
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
	{ &bench_suite_replay, "100k-events", "replay-log --jobs 2", TGT_RATIO, "replay-log", N1(1.8),
	  "1/2 of replay-log on 2 cores", NULL, "#22" },
	{ &bench_suite_replay, "100k-events", "stream-pipe", TGT_TIME, NULL, 1e3, NULL, NULL,
	  "#20" },
	{ &bench_suite_replay, "100k-events", "select -k exec", TGT_RATIO, "ausearch -k", N1(10),
	  NULL, NULL, "#20" },
	{ &bench_suite_replay, "100k-events", "report --summary", TGT_RATIO, "aureport --summary",
	  N1(10), NULL, NULL, "#20" },
	{ &bench_suite_replay, "100k-events", "csv", TGT_RATIO, "ausearch csv", N1(10), NULL,
	  NULL, "#20" },
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
	/* #22 item 6: a policy command end to end within 2x of `cat` of the policy */
	{ &bench_suite_setools, "info", "secpath", TGT_RATIO, "cat", 2.0, "`cat` of the policy",
	  "cat", "#22" },
	{ &bench_suite_setools, "diff-symbols", "secpath", TGT_RATIO, "setools", N1(100), NULL,
	  NULL, "#21" },
	{ &bench_suite_setools, "diff-dontaudit", "secpath", TGT_RATIO, "setools", N1(100), NULL,
	  NULL, "#21" },
};

static const char *const kind_name[] = {
	[TGT_IR] = "ir", [TGT_TIME] = "time", [TGT_RATIO] = "ratio",
	[TGT_IR_RATIO] = "ir-ratio", [TGT_FIG] = "figure",
};

/* One target held against a kept case. */
struct verdict {
	int judged;			/* the figure was measured and quotable */
	double val;			/* the figure compared with the limit (NAN: none) */
	char unit[32];			/* val's unit: Ir/event, ns/op, x, the figure's own */
	char got[96], want[96];	/* the figure, or why not judged; the target */
	char floor[160];		/* "; floor ...", or "" */
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

/* The median the summary reads of v (bench_view_of), its flags or'ed into *noisy, *bimodal. */
static double med_of(const struct bench_kept_case *k, const struct bench_kept_var *v, int *noisy,
		     int *bimodal)
{
	struct bench_view w = bench_view_of(k, v);
	*noisy |= w.noisy;
	*bimodal |= w.bimodal;
	return w.med;
}

/* "12.3 ns", "4.56 ms": about three significant digits. */
static void fmt_time(char *buf, size_t len, double ns)
{
	const char *u = ns >= 1e6 ? "ms" : ns >= 1e3 ? "us" : "ns";
	double x = ns / (ns >= 1e6 ? 1e6 : ns >= 1e3 ? 1e3 : 1);
	snprintf(buf, len, "%.*f %s", x >= 100 ? 0 : x >= 10 ? 1 : 2, x, u);
}

/* The TGT_RATIO / TGT_IR_RATIO half of measure(): x's figure over the anchor's. */
static void measure_ratio(const struct target *t, const struct bench_kept_case *k,
			  const struct bench_kept_var *x, struct verdict *v)
{
	const struct bench_kept_var *a = find_var(k, t->anchor);
	const size_t len = sizeof(v->got);
	int ir = t->kind == TGT_IR_RATIO, noisy = 0, bimodal = 0;

	snprintf(v->unit, sizeof(v->unit), "x");
	if (t->limit < 1)
		snprintf(v->want, len, "<= %.3gx %s%s (>= %.3gx %s)", t->limit, t->anchor,
			 ir ? "'s Ir" : "", 1 / t->limit, ir ? "fewer" : "faster");
	else
		snprintf(v->want, len, "<= %.3gx %s", t->limit, t->anchor);
	if (!a) {
		snprintf(v->got, len, "not measured (%s skipped)", t->anchor);
		return;
	}
	double num = ir ? x->cg_ir : med_of(k, x, &noisy, &bimodal);
	double den = ir ? a->cg_ir : med_of(k, a, &noisy, &bimodal);
	v->val = num / den;
	if (ir && !isfinite(v->val))
		snprintf(v->got, len, "not measured (run with --cachegrind)");
	else if (bimodal)
		snprintf(v->got, len, "no ratio (bimodal)");
	else
		snprintf(v->got, len, "%.3gx %s%s%s", v->val, t->anchor, ir ? "'s Ir" : "",
			 noisy ? "!" : "");
	v->judged = isfinite(v->val) && !bimodal;
	if (!v->judged)
		v->val = NAN;
}

/*
 * Measure target t in case k into v: the figure (v->got, v->val, v->unit) and the target
 * (v->want).  v->judged is 0 when it could not be measured or quoted; v->got then says why.
 */
static void measure(const struct target *t, const struct bench_kept_case *k, struct verdict *v)
{
	const struct bench_kept_var *x = find_var(k, t->variant);
	const char *unit = k->s->unit ? k->s->unit : "op";
	const size_t len = sizeof(v->got);
	int noisy = 0, bimodal = 0;
	char tm[32];

	v->val = NAN;
	v->judged = 0;
	if (!x) {
		snprintf(v->got, len, "not measured (variant skipped)");
		return;
	}
	switch (t->kind) {
	case TGT_IR:
		snprintf(v->unit, sizeof(v->unit), "Ir/%s", unit);
		snprintf(v->want, len, "<= %.0f %s", t->limit, v->unit);
		v->val = x->cg_ir;
		v->judged = isfinite(v->val);
		if (v->judged)
			snprintf(v->got, len, "%.1f %s", v->val, v->unit);
		else
			snprintf(v->got, len, "not measured (run with --cachegrind)");
		return;
	case TGT_TIME:
		snprintf(v->unit, sizeof(v->unit), "ns/%s", unit);
		fmt_time(tm, sizeof(tm), t->limit);
		snprintf(v->want, len, "<= %s/%s", tm, unit);
		v->val = med_of(k, x, &noisy, &bimodal);
		fmt_time(tm, sizeof(tm), v->val);
		snprintf(v->got, len, "%s/%s%s", tm, unit, noisy ? "!" : "");
		v->judged = isfinite(v->val) && !bimodal;
		return;
	case TGT_FIG: {
		const struct bench_fig *g = find_fig(x, t->anchor);
		snprintf(v->unit, sizeof(v->unit), "%s", g ? g->unit : "");
		snprintf(v->want, len, "%s <= %g %s", t->anchor, t->limit, v->unit);
		if (!g) {
			snprintf(v->got, len, "not measured (no %s figure)", t->anchor);
			return;
		}
		v->val = g->value;
		v->judged = 1;
		snprintf(v->got, len, "%s %.3g %s", g->name, g->value, g->unit);
		return;
	}
	case TGT_RATIO:
	case TGT_IR_RATIO:
		break;
	}
	measure_ratio(t, k, x, v);
}

/* v->floor: "; floor " and the estimate, and the floor variant's figure of the same kind. */
static void floor_text(const struct target *t, const struct bench_kept_case *k, struct verdict *v)
{
	const struct bench_kept_var *fv = find_var(k, t->floor_var);
	const struct bench_fig *g = t->kind == TGT_FIG ? find_fig(fv, t->anchor) : NULL;
	const char *sep = t->floor ? ", " : "; floor: ";
	char *buf = v->floor;
	size_t len = sizeof(v->floor);
	int n = snprintf(buf, len, "%s%s", t->floor ? "; floor " : "", t->floor ? t->floor : "");
	if (n < 0 || (size_t)n >= len)
		return;
	if (g) {
		snprintf(buf + n, len - (size_t)n, "%s%s here: %.3g %s", sep, fv->name, g->value,
			 g->unit);
	} else if (fv && t->kind == TGT_TIME) {
		char x[32];
		int no = 0, bi = 0;
		fmt_time(x, sizeof(x), med_of(k, fv, &no, &bi));
		snprintf(buf + n, len - (size_t)n, "%s%s here: %s", sep, fv->name, x);
	}
}

static const char *verdict_word(const struct target *t, const struct verdict *v)
{
	return !v->judged ? "not judged" : v->val <= t->limit ? "met" : "not met";
}

/* One secpath.bench-target/1 object (docs/JSON.md). */
static void print_json(FILE *f, const struct target *t, const struct verdict *v)
{
	fputs("{\"schema\":\"secpath.bench-target/1\",\"issue\":", f);
	bench_json_str(f, t->issue);
	fputs(",\"suite\":", f);
	bench_json_str(f, t->s->name);
	fputs(",\"case\":", f);
	bench_json_str(f, t->case_name);
	fputs(",\"variant\":", f);
	bench_json_str(f, t->variant);
	fprintf(f, ",\"kind\":\"%s\",\"of\":", kind_name[t->kind]);
	if (t->anchor)
		bench_json_str(f, t->anchor);
	else
		fputs("null", f);
	fputs(",\"value\":", f);
	bench_json_num(f, v->val);
	fputs(",\"unit\":", f);
	bench_json_str(f, v->unit);
	fputs(",\"limit\":", f);
	bench_json_num(f, t->limit);
	fputs(",\"floor\":", f);
	if (t->floor)
		bench_json_str(f, t->floor);
	else
		fputs("null", f);
	fprintf(f, ",\"verdict\":\"%s\",\"text\":", verdict_word(t, v));
	bench_json_str(f, v->got);
	fputs("}\n", f);
}

/* The targets whose case r holds, as text lines (json 0) or JSON objects. */
static void targets_print(FILE *f, const struct sp_bench_results *r, int json)
{
	unsigned shown = 0, judged = 0, met = 0;

	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		const struct target *t = &targets[i];
		const struct bench_kept_case *k = find_case(r, t->s, t->case_name);
		struct verdict v = { 0 };
		if (!k)
			continue;
		measure(t, k, &v);
		floor_text(t, k, &v);
		judged += v.judged;
		met += v.judged && v.val <= t->limit;
		if (json) {
			print_json(f, t, &v);
			continue;
		}
		if (!shown++)
			fprintf(f, "\ntargets (the issues'; floor: the least work estimated for the "
				"operation, docs/DESIGN.md):\n");
		fprintf(f, "  %s %s %s %s: %s; target %s%s: %s\n", t->issue, t->s->name,
			t->case_name, t->variant, v.got, v.want, v.floor, verdict_word(t, &v));
	}
	if (shown)
		fprintf(f, "  %u of %u judged targets met in this run (%u not judged: their figure "
			"was not measured)\n", met, judged, shown - judged);
}

void sp_bench_targets(FILE *f, const struct sp_bench_results *r)
{
	targets_print(f, r, 0);
}

void sp_bench_targets_json(FILE *f, const struct sp_bench_results *r)
{
	targets_print(f, r, 1);
}
