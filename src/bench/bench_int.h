/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench_int.h - internals of the bench harness shared by its files: statistics (stats.c), the
 * clock and perf_event_open counters (counters.c), the callgrind backend (callgrind.c), the
 * report writers (report.c) and the per-case result records the harness (harness.c) fills.
 *
 * Invariants: a metric's samples are per-op values, one per round, in round order (so the i-th
 * sample of a variant and of the baseline come from the same round); values that a backend could
 * not measure are NAN and print as "n/a" (null in JSON).
 */
#ifndef SP_BENCH_INT_H
#define SP_BENCH_INT_H

#include <stdio.h>
#include <stdint.h>
#include <time.h>

#include "secpath/bench.h"

/* ---- statistics (stats.c) ---- */

struct bench_stats {
	size_t n;
	double min, avg, median, max;
	double pstdev;			/* population standard deviation (Welford) */
};

/* Statistics of x[0..n) (NANs are skipped; n == 0 gives all NAN). */
void bench_stats_compute(const double *x, size_t n, struct bench_stats *st);
/* Median of x[0..n), NANs skipped (x is not modified). */
double bench_median(const double *x, size_t n);

/*
 * Noise and bimodality of a variant's samples (time metrics).  Noisy: pstdev/mean above
 * BENCH_NOISY_PCT, so differences of that size are noise.  Bimodal: at least 3 samples,
 * pstdev/mean above BENCH_BIMODAL_PCT and the min below median / BENCH_BIMODAL_GAP: the rounds
 * fall into two modes far apart and the median sits in the slow one, so its ratio to another
 * variant's compares modes, not code.  Either the variant has a fast mode the median ignores, or
 * most of its rounds were slowed (disturbance only slows a sample); a few slow outliers, however
 * far, leave the median alone and never make a variant bimodal.
 */
#define BENCH_NOISY_PCT 3.0
#define BENCH_BIMODAL_PCT 25.0
#define BENCH_BIMODAL_GAP 4.0
/* 100 * pstdev / avg, NAN when avg is not positive. */
double bench_stats_pct(const struct bench_stats *st);
int bench_stats_noisy(const struct bench_stats *st);
int bench_stats_bimodal(const struct bench_stats *st);

struct bench_ratio {
	double median;			/* median(v) / median(base) */
	double min, max;		/* range of the per-round ratios v[i] / base[i] */
};

/* Ratio of v to base, round by round (both n samples).  NAN when undefined. */
void bench_ratio_compute(const double *v, const double *base, size_t n, struct bench_ratio *r);

/* ---- clock and counters (counters.c) ---- */

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the whole process (user + sys, all threads). */
static inline uint64_t bench_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

enum { BENCH_HW_CYCLES, BENCH_HW_INSTR, BENCH_HW_L1DMISS, BENCH_HW_NR };
enum { BENCH_SW_CS, BENCH_SW_MIGR, BENCH_SW_PF, BENCH_SW_NR };

struct bench_counters {
	int hw_fd[BENCH_HW_NR];		/* group leader hw_fd[0]; -1 if unavailable */
	int hw_err;			/* errno of the failed perf_event_open (0 = works) */
	int sw_fd[BENCH_SW_NR];		/* -1 if unavailable */
};

/* One reading: hw values already scaled by time_enabled/time_running. */
struct bench_reading {
	double hw[BENCH_HW_NR];		/* NAN when unavailable */
	uint64_t sw[BENCH_SW_NR];
};

/* Open the counters of the calling thread.  Never fails: missing events stay -1. */
void bench_counters_open(struct bench_counters *c);
void bench_counters_close(struct bench_counters *c);
void bench_counters_read(const struct bench_counters *c, struct bench_reading *r);

/* ---- callgrind backend (callgrind.c) ---- */

struct bench_cg_dump {
	char trigger[128];		/* "sp:<variant>:<ops>" for the harness's dumps */
	uint64_t ir, dr, dw, d1mr, d1mw;
	int has_summary;
};

/* Parse one callgrind output file (text, len bytes).  Returns 0 or -EINVAL (no events line, or
 * no summary/totals line). */
int bench_cg_parse(const char *text, size_t len, struct bench_cg_dump *d);
/* Resolve a geometry spec ("host", "32k8", "48k12" or "S,A,L") to "S,A,L" in buf. 0 or -EINVAL
 * (-ENOENT when "host" cannot be read from sysfs). */
int bench_cg_geometry(const char *spec, char *buf, size_t len, const char **source);

/* SP_BENCH_CG_CHILDREN suites: the environment variable naming the variant whose measured run
 * started a process ("main" in the bench process itself, "none" outside the measured runs);
 * valgrind expands it into each traced process's callgrind file name (%q{...}). */
#define BENCH_CG_TAG_ENV "SP_BENCH_CG_TAG"

struct bench_case_res;
/* Run the case under valgrind --tool=callgrind and fill each variant's cg_* fields. */
int bench_cg_run_case(const struct sp_bench_suite *s, size_t ci, const struct sp_bench_opts *o,
		      const char *geom, struct bench_case_res *res);

/* ---- results (harness.c) and report (report.c) ---- */

/* Metrics per op: wall time, process CPU time (all threads), then the hardware counters. */
enum {
	BENCH_M_NS,
	BENCH_M_CPU,
	BENCH_M_CYCLES,
	BENCH_M_INSTR,
	BENCH_M_L1DMISS,
	BENCH_M_IPC,
	BENCH_M_NR
};

/* A variant's own figure, copied (it crosses fork() inside a kept case). */
struct bench_fig {
	char name[SP_BENCH_FIG_NAME], unit[SP_BENCH_FIG_NAME];
	double value;
};

struct bench_var_res {
	const struct sp_bench_variant *v;
	void *state;
	int err;			/* setup's -errno: the variant was skipped */
	uint64_t ops;			/* ops per sample */
	double *m[BENCH_M_NR];		/* per-round samples of each metric (reps entries) */
	uint64_t sw[BENCH_SW_NR];	/* software counter sums over the timed samples */
	unsigned disturbed;		/* timed samples with a context switch or migration */
	double cg_ir, cg_d1, cg_ops;	/* callgrind Ir/op, (D1mr+D1mw)/op, ops; NAN = none */
	struct bench_fig fig[SP_BENCH_FIG_MAX];	/* the variant's own figures (nfig of them) */
	unsigned nfig;
};

struct bench_case_res {
	const struct sp_bench_suite *s;
	const struct sp_bench_case *c;
	unsigned reps;
	int hw_err;			/* 0 when hw counters worked */
	int cpu;			/* pinned CPU, -1 when not pinned */
	const char *cg_geom;		/* D1 geometry used, NULL without --cachegrind */
	const char *cg_err;		/* why callgrind figures are missing, or NULL */
	int last;			/* the suite's last case in this run: print its context */
	struct bench_var_res *vr;	/* s->nvariants entries */
	int missing;			/* a variant was skipped for a missing bundled file */
};

/* Write the case as a table (stats per variant, ratios to variant 0, flags). */
void bench_report_table(FILE *f, const struct bench_case_res *r);
/* Write the case as JSON Lines: one object per variant x metric. */
void bench_report_json(FILE *f, const struct bench_case_res *r);

/* ---- kept results (report.c): what the summary and the HTML page need of one case ---- */

struct bench_kept_var {
	const char *name;		/* the suite's variant name (static) */
	int err;			/* -errno of a skipped variant; the rest is then NAN */
	double med, min, max;		/* wall ns per op over the rounds */
	double cpu_med, cpu_min, cpu_max;	/* process CPU ns per op over the rounds */
	double ratio, rmin, rmax;	/* median ratio to the baseline; per-round ratio range */
	double cpu_ratio, cpu_rmin, cpu_rmax;	/* the same for process CPU time */
	double pct, cpu_pct;		/* pstdev / mean of wall and CPU time, % (NAN: none) */
	int bimodal, cpu_bimodal;	/* bench_stats_bimodal of wall and CPU time */
	unsigned disturbed;		/* timed samples with a context switch or migration */
	double ipc, l1dmiss;		/* hw counter medians (NAN without a PMU) */
	double cg_d1, cg_ir;		/* callgrind D1 misses and Ir per op (NAN: not measured) */
	struct bench_fig fig[SP_BENCH_FIG_MAX];	/* the variant's own figures (nfig of them) */
	unsigned nfig;
};

struct bench_kept_case {
	const struct sp_bench_suite *s;
	const char *name;		/* the case name (static) */
	unsigned reps;
	int pinned;			/* 0: the suite runs its own threads (CPU time matters) */
	int hw_err;			/* errno of the hw counters' perf_event_open (0: worked) */
	char cg_err[160];		/* why callgrind figures are missing, or "" */
	char cg_geom[80];		/* "" without --cachegrind */
	char *context;			/* the suite's context when the case ran (NULL: none) */
	size_t nv;
	struct bench_kept_var *v;
};

struct sp_bench_results {
	struct bench_kept_case *c;
	size_t n, cap;
	int stream_fd;			/* > 0: each case added is also sent there at once */
};

/* What the summary and the targets read of a kept variant (report.c): wall time for pinned
 * cases, else process CPU time, with its minimum, its ratio to the baseline and its flags. */
struct bench_view {
	double med, min, ratio;
	int noisy, bimodal;
};
struct bench_view bench_view_of(const struct bench_kept_case *k, const struct bench_kept_var *v);

/* JSON values (report.c): s as a string literal (NULL as ""); x as a number, or null when not
 * finite. */
void bench_json_str(FILE *f, const char *s);
void bench_json_num(FILE *f, double x);
/* Keep the figures of case r.  0 or -ENOMEM. */
int bench_results_add(struct sp_bench_results *res, const struct bench_case_res *r);
/*
 * Send kept cases and then a status over fd / receive them, appended to res, with that status.
 * Only between a process and its fork() child: records carry pointers into the program image
 * (suite, case and variant names).  Cases go out from bench_results_add when stream_fd is set;
 * send_end: the status.  recv: 0, -EPIPE when the stream ends without the status (the child
 * died), -ENOMEM or -EIO.  Add returns a failed send's -EIO too.
 */
int bench_results_send_end(int fd, int status);
int bench_results_recv(struct sp_bench_results *res, int fd, int *status);
/* The suite's headline (case, variant) named in registry.c, or NULLs. */
void bench_registry_headline(const struct sp_bench_suite *s, const char **case_name,
			     const char **variant);

#endif
