/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench.h - a `perf stat -r`-style harness: named suites, variants measured interleaved in one
 * process, per metric min/avg/median/max/pstdev, ratios to the suite's baseline (variant 0).
 *
 * A suite is cases x variants.  For each case the harness sets up every variant, warms up,
 * calibrates the op count so a sample lasts >= the minimum sample time, then runs R rounds; in
 * each round every variant runs once (order rotated).  Backends: wall time always; perf hardware
 * counters where perf_event_open works (else "n/a"); callgrind/cachegrind re-execution for exact
 * instructions and D1 misses per op in the measured region.
 */
#ifndef SECPATH_BENCH_H
#define SECPATH_BENCH_H

#include <stdio.h>
#include "secpath.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_bench_case {
	const char *name;		/* e.g. "64B", "N=200" */
	const void *param;		/* passed to setup */
	unsigned flags;			/* SP_BENCH_CASE_* below (0 = runs always) */
};

/* Case flags: which runs include the case (an explicit --case NAME always does). */
#define SP_BENCH_CASE_QUICK_ONLY (1u << 0)	/* only with --quick */
#define SP_BENCH_CASE_FULL_ONLY	 (1u << 1)	/* not with --quick */

/* A figure a variant measured itself (see sp_bench_suite.figures). */
struct sp_bench_figure {
	const char *name;		/* e.g. "latency-p99" */
	const char *unit;		/* e.g. "us" */
	double value;
};

#define SP_BENCH_FIG_MAX 4		/* figures kept per variant */
#define SP_BENCH_FIG_NAME 24		/* bytes kept of a figure's name or unit */

struct sp_bench_variant {
	const char *name;
	/* Build per-(case, variant) state.  Return 0 or -errno (the variant is then skipped). */
	int (*setup)(const void *param, void **state);
	/* The measured region: perform n operations.  Must be noinline-safe and self-contained. */
	void (*run)(void *state, uint64_t n);
	void (*teardown)(void *state);
};

/*
 * A reference figure a suite's context states (the kernel threads' own measurement, a design
 * document's, or a target), drawn as a horizontal mark on the charts of the cases it applies to.
 * Only figures per op in the suite's own unit belong here: ratios and percentages stay prose.
 */
struct sp_bench_ref {
	const char *cases;		/* fnmatch(3) pattern of case names ("hot-*"); NULL: all */
	unsigned what;			/* SP_BENCH_REF_* below: the chart it belongs on */
	unsigned target;		/* 0: measured elsewhere (a solid mark); 1: a goal */
	double value;			/* ns per op, or D1 misses per op; > 0 */
	const char *label;		/* a few words naming its source, as the context does */
};

#define SP_BENCH_REF_NS 0		/* wall time per op, ns */
#define SP_BENCH_REF_D1 1		/* D1 misses per op (the --cachegrind chart) */

struct sp_bench_suite {
	const char *name;		/* "slab", "slab-spread", ... */
	const char *desc;
	const char *unit;		/* what one op is: "alloc+free", "pass", "event" */
	const struct sp_bench_case *cases;
	size_t ncases;
	const struct sp_bench_variant *variants;
	size_t nvariants;		/* variant 0 is the baseline */
	uint64_t fixed_ops;		/* 0: calibrate; else run exactly this many ops per sample */
	const char *context;		/* the kernel threads' figures, printed under the table */
	unsigned flags;			/* SP_BENCH_* below (0 = defaults) */
	/* The context's per-op figures as chart marks: NULL = none, else ended by a NULL label. */
	const struct sp_bench_ref *refs;
	/*
	 * NULL, or: after the timed rounds and before teardown, the figures variant v measured
	 * itself over every op it ran (e.g. per-event latency percentiles, which time per op
	 * cannot show): at most max entries written to out, their number returned.  The names
	 * and units are copied (SP_BENCH_FIG_NAME bytes at most, with their NUL).
	 */
	size_t (*figures)(const struct sp_bench_variant *v, void *state,
			  struct sp_bench_figure *out, size_t max);
	/* 0, or the length of the ring of inputs a run cycles through from its start: the
	 * --cachegrind run is then a whole number of cycles, so its per-op figure weighs every
	 * input alike whatever the calibration chose. */
	uint32_t op_period;
};

/* Suite flags. */
#define SP_BENCH_NO_PIN	(1u << 0)	/* do not pin to one CPU (the suite runs threads) */
#define SP_BENCH_NOT_DEFAULT (1u << 1)	/* run only when named (not in the default set) */
/* One op runs other programs (fork + exec): --cachegrind counts the instructions and D1 misses of
 * the processes each variant's measured run starts (valgrind --trace-children=yes), summed, not the
 * bench process's own (which only forks and waits). */
#define SP_BENCH_CG_CHILDREN (1u << 2)

/* The kept results of a run (opaque): every case of every suite, for the summary and HTML. */
struct sp_bench_results;

struct sp_bench_opts {
	size_t sz;			/* sizeof(struct sp_bench_opts): fields beyond it are 0 */
	unsigned reps;			/* R rounds (default 11) */
	double min_sample_ms;		/* calibration target per sample (default 5) */
	int quick;			/* fewer reps, shorter samples */
	int json;			/* JSON instead of a table */
	const char *cachegrind;		/* NULL, or an L1D geometry: "host", "32k8", "48k12", "S,A,L" */
	const char *only_case;		/* run one case (exact name) */
	FILE *out;			/* report stream (default stdout) */
	FILE *progress;			/* progress lines (NULL = none) */
	/*
	 * --cachegrind re-executes this program under valgrind: reexec_argv is the argv prefix that
	 * reaches the bench command (NULL = {"/proc/self/exe", "bench"}); the harness appends
	 * SUITE --case NAME --cg-child.  cg_child is set in that child: run each variant once
	 * (cg_ops ops, 0 = fixed_ops or 1000) between CALLGRIND_ZERO_STATS and DUMP_STATS_AT,
	 * and report nothing.
	 */
	const char *const *reexec_argv;
	int cg_child;
	uint64_t cg_ops;
	/*
	 * Time budget of this suite in seconds (0 = none): the sample time is scaled down so the
	 * estimate fits, and after warm-up each case runs only as many rounds (at least 3) as fit
	 * its share of the budget.
	 */
	double budget_s;
	struct sp_bench_results *results;	/* non-NULL: keep each case (summary, HTML) */
};

/* The registry of built-in suites (NULL-terminated). */
SP_API const struct sp_bench_suite *const *sp_bench_suites(void);
SP_API const struct sp_bench_suite *sp_bench_suite_find(const char *name);
/* Whether `secpath bench` without a suite name runs s: it has cases and variants, and neither
 * it (SP_BENCH_NOT_DEFAULT) nor the registry (whole-program suites) keeps it out. */
SP_API int sp_bench_suite_is_default(const struct sp_bench_suite *s);
/* Estimated seconds sp_bench_run(s, o) takes (wall-time rounds only); a negative value when it
 * cannot be known before running (fixed_ops suites: the harness prints it after warm-up). */
SP_API double sp_bench_estimate(const struct sp_bench_suite *s, const struct sp_bench_opts *o);
/* Run one suite and print its report.  Returns 0 or -errno. */
SP_API int sp_bench_run(const struct sp_bench_suite *s, const struct sp_bench_opts *o);
/*
 * The same in a fork()ed child process, so suites that change process-wide state (init_on_alloc,
 * liburcu thread registration, caches) cannot affect the next suite; the report streams are
 * flushed before the fork (o->out must write to a file descriptor: not a memstream) and the
 * child's kept cases are appended to o->results as each case ends.  Returns the
 * suite's 0 or -errno, or -ECHILD when the child died (a progress line says how).
 */
SP_API int sp_bench_run_isolated(const struct sp_bench_suite *s, const struct sp_bench_opts *o);

/* Results kept across sp_bench_run calls (opts.results).  new: 0 or -ENOMEM. */
SP_API int sp_bench_results_new(struct sp_bench_results **out);
SP_API void sp_bench_results_free(struct sp_bench_results *r);
/* Number of cases kept. */
SP_API size_t sp_bench_results_count(const struct sp_bench_results *r);

/*
 * The summary: one line per suite (experiment) with its headline case and each variant's ratio
 * of median time per op to the baseline's, e.g.
 *   "audit        neo23x0/mix: compiled Rx of kernel ns/event (A vs B ns); kernel-aligned Rx, ...".
 * Suites that run their own threads use process CPU time (user + sys of all threads).
 * A '!' after a ratio marks a noisy variant or baseline (pstdev/mean above 3%); a bimodal one
 * (pstdev/mean above 25% and its min below a quarter of its median) gets no ratio at all:
 * "batch64-4096: init-off bimodal: min X, median Y ns; no ratio (glibc Z ns)" (suite slab).
 * A legend line follows the lines whenever a mark was printed.
 */
SP_API void sp_bench_summary(FILE *f, const struct sp_bench_results *r);

/*
 * The issues' performance targets whose case r holds, one line each: "  #22 slab hot-64
 * both-init: 0.69x mimalloc; target <= 1.3x mimalloc; floor init-off + 4 stores: met", then "N of M judged targets met".  A target whose figure was not measured (Ir without
 * --cachegrind, a skipped variant, a bimodal median) says why and is "not judged".  Nothing is
 * printed when r holds none of their cases.
 */
SP_API void sp_bench_targets(FILE *f, const struct sp_bench_results *r);
/* The same targets as JSON Lines, one secpath.bench-target/1 object each (docs/JSON.md): the
 * figure as "value" (null when not judged) in "unit", "limit", "floor", "verdict". */
SP_API void sp_bench_targets_json(FILE *f, const struct sp_bench_results *r);

/* The machine a report was measured on (sp_bench_machine_read fills it from /proc, sysfs,
 * uname; fields it cannot read stay empty / 0). */
struct sp_bench_machine {
	char cpu[128];			/* /proc/cpuinfo "model name" */
	unsigned cores;			/* online CPUs */
	unsigned long l1d_size;		/* bytes */
	unsigned l1d_assoc, l1d_line;
	char kernel[128];		/* uname -srm */
	char cpu_id[96];		/* "VENDOR family F (0xF) model M (0xM) stepping S" */
	char l1d_source[96];		/* where the L1D geometry came from: "sysfs", "CPUID ..." */
};
SP_API void sp_bench_machine_read(struct sp_bench_machine *m);

/* What the HTML page says besides the results. */
struct sp_bench_html_info {
	const struct sp_bench_machine *machine;	/* NULL: not shown */
	const char *date;		/* e.g. "2026-11-30 09:00 UTC" (NULL: not shown) */
	const char *command;		/* the command line of the run (NULL: not shown) */
	double wall_s;			/* measured wall time of the run (<= 0: not shown) */
};

/*
 * Write the results as one self-contained HTML page (no scripts, fonts or external URLs): the
 * host (CPU model and id, cores, L1D geometry and its source, kernel) and the build (secpath
 * version and commit, compiler), the summary, then per suite its description and context, and
 * per case an SVG bar chart of median time per op per variant with min-max whiskers, the ratio
 * to the baseline and the suite's reference figures as marks (a log axis when the values span
 * more than 5x), a chart of D1 misses per op where callgrind measured them (--cachegrind), and
 * a table of the text report's numbers (min, median, max, pstdev, noise and bimodal flags,
 * disturbed samples, ratio with its per-round range, callgrind columns).
 * Returns 0, or -EIO when writing failed.
 */
SP_API int sp_bench_html(FILE *f, const struct sp_bench_results *r,
			 const struct sp_bench_html_info *info);

#ifdef __cplusplus
}
#endif
#endif
