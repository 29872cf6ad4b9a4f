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
};

struct sp_bench_variant {
	const char *name;
	/* Build per-(case, variant) state.  Return 0 or -errno (the variant is then skipped). */
	int (*setup)(const void *param, void **state);
	/* The measured region: perform n operations.  Must be noinline-safe and self-contained. */
	void (*run)(void *state, uint64_t n);
	void (*teardown)(void *state);
};

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
};

struct sp_bench_opts {
	size_t sz;
	unsigned reps;			/* R rounds (default 11) */
	double min_sample_ms;		/* calibration target per sample (default 5) */
	int quick;			/* fewer reps, shorter samples */
	int json;			/* JSON instead of a table */
	const char *cachegrind;		/* NULL, or an L1D geometry: "host", "32k8", "48k12", "S,A,L" */
	const char *only_case;		/* run one case (exact name) */
	FILE *out;			/* report stream (default stdout) */
	FILE *progress;			/* progress lines (NULL = none) */
};

/* The registry of built-in suites (NULL-terminated). */
SP_API const struct sp_bench_suite *const *sp_bench_suites(void);
SP_API const struct sp_bench_suite *sp_bench_suite_find(const char *name);
/* Run one suite and print its report.  Returns 0 or -errno. */
SP_API int sp_bench_run(const struct sp_bench_suite *s, const struct sp_bench_opts *o);

#ifdef __cplusplus
}
#endif
#endif
