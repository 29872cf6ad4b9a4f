/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * harness.c - sp_bench_run(): run one suite, case by case, and report it.
 *
 * Per case: set up every variant (a failing setup skips that variant), calibrate each variant's
 * op count so one sample lasts >= min_sample_ms (or use fixed_ops), warm up with one untimed
 * sample, then run R rounds in which every variant runs once, the starting variant rotating by
 * one each round (ABC, BCA, CAB...), so slow drifts of the host hit all variants alike and the
 * per-round ratio to the baseline (variant 0) cancels them (docs/slab-and-measurement.md 3c).
 * Each sample records wall time (CLOCK_MONOTONIC), process CPU time (all threads) and the
 * counter deltas (counters.c).  The process is pinned to the CPU it started on unless the suite
 * runs its own threads.
 * With --cachegrind the case is then re-run under callgrind (callgrind.c) for exact Ir and
 * D1 misses per op.  In the callgrind child (opts->cg_child) each variant runs once between
 * CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS_AT and nothing is reported.
 * A budget (opts->budget_s) scales the sample time so the estimated rounds fit 70 % of it and,
 * after warm-up, cuts each case to the rounds (>= 3) that fit its equal part of the budget.
 * sp_bench_run_isolated runs a suite in a fork()ed child that streams each kept case back over a
 * pipe (report.c), so one suite's process-wide state never reaches the next.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <valgrind/callgrind.h>

#include "base/compiler.h"
#include "bench/bench_int.h"
#include "bench/suites.h"

#define CALIBRATE_MAX_OPS (1ull << 36)

static int case_selected(const struct sp_bench_case *c, const struct sp_bench_opts *o)
{
	if (o->only_case)
		return !strcmp(o->only_case, c->name);
	if (o->quick)
		return !(c->flags & SP_BENCH_CASE_FULL_ONLY);
	return !(c->flags & SP_BENCH_CASE_QUICK_ONLY);
}

/* One timed sample of n ops: wall ns and counter deltas. */
static void sample(struct bench_counters *ctr, const struct sp_bench_variant *v, void *st,
		   uint64_t n, double *ns, double *cpu_ns, struct bench_reading *d)
{
	struct bench_reading a, b;
	bench_counters_read(ctr, &a);
	uint64_t c0 = bench_cpu_ns();
	uint64_t t0 = bench_now_ns();
	v->run(st, n);
	uint64_t t1 = bench_now_ns();
	uint64_t c1 = bench_cpu_ns();
	bench_counters_read(ctr, &b);
	*ns = (double)(t1 - t0);
	*cpu_ns = (double)(c1 - c0);
	for (int i = 0; i < BENCH_HW_NR; i++)
		d->hw[i] = b.hw[i] - a.hw[i];
	for (int i = 0; i < BENCH_SW_NR; i++)
		d->sw[i] = b.sw[i] - a.sw[i];
}

/* Smallest op count (roughly) whose sample lasts >= target_ns; the runs also warm up. */
static uint64_t calibrate(const struct sp_bench_variant *v, void *st, double target_ns)
{
	uint64_t n = 1;
	for (;;) {
		uint64_t t0 = bench_now_ns();
		v->run(st, n);
		double t = (double)(bench_now_ns() - t0);
		if (t >= target_ns || n >= CALIBRATE_MAX_OPS)
			return n;
		double grow = t < 1000 ? 10 : target_ns * 1.1 / t;
		grow = grow < 2 ? 2 : grow > 100 ? 100 : grow;
		n = (uint64_t)((double)n * grow);
	}
}

static int pin_to_current_cpu(cpu_set_t *saved)
{
	int cpu = sched_getcpu();
	if (cpu < 0 || sched_getaffinity(0, sizeof(*saved), saved))
		return -1;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -1 : cpu;
}

/* The variant's own figures, copied out of its state before its teardown. */
static void take_figures(const struct sp_bench_suite *s, struct bench_var_res *vr)
{
	struct sp_bench_figure f[SP_BENCH_FIG_MAX];
	size_t n = s->figures(vr->v, vr->state, f, SP_BENCH_FIG_MAX);
	vr->nfig = 0;
	for (size_t i = 0; i < n && i < SP_BENCH_FIG_MAX; i++) {
		struct bench_fig *d = &vr->fig[vr->nfig++];
		snprintf(d->name, sizeof(d->name), "%s", f[i].name ? f[i].name : "?");
		snprintf(d->unit, sizeof(d->unit), "%s", f[i].unit ? f[i].unit : "");
		d->value = f[i].value;
	}
}

static void free_case(struct bench_case_res *r, size_t nv)
{
	for (size_t i = 0; i < nv; i++) {
		struct bench_var_res *vr = &r->vr[i];
		if (!vr->err && vr->state && vr->v->teardown)
			vr->v->teardown(vr->state);
		for (int m = 0; m < BENCH_M_NR; m++)
			free(vr->m[m]);
	}
	free(r->vr);
}

/* The callgrind child: each variant once, between ZERO_STATS and DUMP_STATS_AT; for a suite whose
 * ops run programs (SP_BENCH_CG_CHILDREN), once with BENCH_CG_TAG_ENV naming the variant. */
static void run_case_cg_child(const struct sp_bench_suite *s, const struct sp_bench_case *c,
			      const struct sp_bench_opts *o)
{
	uint64_t n = o->cg_ops ? o->cg_ops : s->fixed_ops ? s->fixed_ops : 1000;
	for (size_t vi = 0; vi < s->nvariants; vi++) {
		const struct sp_bench_variant *v = &s->variants[vi];
		void *st = NULL;
		char tag[64];
		if (v->setup(c->param, &st))
			continue;
		if (!s->fixed_ops)
			v->run(st, n);		/* warm the simulated caches */
		if (s->flags & SP_BENCH_CG_CHILDREN) {
			/* The processes the run starts name their profiles after the variant
			 * (callgrind.c's --callgrind-out-file); those of the teardown, none. */
			char vtag[24];
			snprintf(vtag, sizeof(vtag), "%zu", vi);
			setenv(BENCH_CG_TAG_ENV, vtag, 1);
			v->run(st, n);
			setenv(BENCH_CG_TAG_ENV, "none", 1);
		} else {
			snprintf(tag, sizeof(tag), "sp:%zu:%llu", vi, (unsigned long long)n);
			CALLGRIND_ZERO_STATS;
			v->run(st, n);
			CALLGRIND_DUMP_STATS_AT(tag);
		}
		if (v->teardown)
			v->teardown(st);
	}
}

/* One variant's sample arrays and state; a failed set-up is said (with the bundled file it
 * missed, which marks the case as having measured nothing) and skips the variant. */
static void setup_variant(const struct sp_bench_suite *s, const struct sp_bench_case *c,
			  const struct sp_bench_variant *v, unsigned reps, struct bench_var_res *vr,
			  int *missing_data, FILE *prog)
{
	vr->v = v;
	vr->cg_ir = vr->cg_d1 = vr->cg_ops = NAN;
	for (int m = 0; m < BENCH_M_NR; m++) {
		vr->m[m] = malloc(reps * sizeof(double));
		if (!vr->m[m]) {
			vr->err = -ENOMEM;
			break;
		}
		for (unsigned k = 0; k < reps; k++)
			vr->m[m][k] = NAN;
	}
	if (!vr->err)
		vr->err = v->setup(c->param, &vr->state);
	char missing[512];
	bench_data_missing(missing, sizeof(missing));
	if (vr->err && missing[0])
		*missing_data = 1;
	if (vr->err && prog)
		fprintf(prog, "bench %s [%s]: variant %s skipped: %s%s%s\n", s->name, c->name,
			v->name, missing, missing[0] ? ": " : "", strerror(-vr->err));
}

static int run_case(const struct sp_bench_suite *s, size_t ci, const struct sp_bench_opts *o,
		    unsigned reps, double target_ns, double budget_ns, struct bench_counters *ctr,
		    int cpu, const char *geom, FILE *prog)
{
	const struct sp_bench_case *c = &s->cases[ci];
	const size_t nv = s->nvariants;
	struct bench_case_res r = { .s = s, .c = c, .reps = reps, .hw_err = ctr->hw_err,
				    .cpu = cpu, .cg_geom = geom, .last = 1 };

	for (size_t k = ci + 1; k < s->ncases; k++)
		if (case_selected(&s->cases[k], o))
			r.last = 0;

	r.vr = calloc(nv, sizeof(*r.vr));
	if (!r.vr)
		return -ENOMEM;
	for (size_t vi = 0; vi < nv; vi++)
		setup_variant(s, c, &s->variants[vi], reps, &r.vr[vi], &r.missing, prog);

	/* Calibrate (which also warms up), then one untimed warm-up sample at the final n. */
	double round_ns = 0;
	for (size_t vi = 0; vi < nv; vi++) {
		struct bench_var_res *vr = &r.vr[vi];
		if (vr->err)
			continue;
		vr->ops = s->fixed_ops ? s->fixed_ops : calibrate(vr->v, vr->state, target_ns);
		uint64_t t0 = bench_now_ns();
		vr->v->run(vr->state, vr->ops);
		round_ns += (double)(bench_now_ns() - t0);
	}
	/* Over its share of the budget: fewer rounds (never fewer than 3, so a median exists). */
	if (budget_ns > 0 && round_ns * reps > budget_ns) {
		double fit = budget_ns / (round_ns > 1 ? round_ns : 1);
		reps = fit < 3 ? 3 : (unsigned)fit;
		r.reps = reps;
	}
	if (prog) {
		fprintf(prog, "bench %s [%s]: %u rounds (~%.1f s), ops/sample", s->name, c->name,
			reps, round_ns * reps / 1e9);
		for (size_t vi = 0; vi < nv; vi++)
			if (!r.vr[vi].err)
				fprintf(prog, " %s=%llu", r.vr[vi].v->name,
					(unsigned long long)r.vr[vi].ops);
		fputc('\n', prog);
		fflush(prog);
	}

	for (unsigned k = 0; k < reps; k++) {
		for (size_t j = 0; j < nv; j++) {
			struct bench_var_res *vr = &r.vr[(k + j) % nv];
			if (vr->err)
				continue;
			double ns, cpu_ns;
			struct bench_reading d;
			sample(ctr, vr->v, vr->state, vr->ops, &ns, &cpu_ns, &d);
			double ops = (double)vr->ops;
			vr->m[BENCH_M_NS][k] = ns / ops;
			vr->m[BENCH_M_CPU][k] = cpu_ns / ops;
			vr->m[BENCH_M_CYCLES][k] = d.hw[BENCH_HW_CYCLES] / ops;
			vr->m[BENCH_M_INSTR][k] = d.hw[BENCH_HW_INSTR] / ops;
			vr->m[BENCH_M_L1DMISS][k] = d.hw[BENCH_HW_L1DMISS] / ops;
			vr->m[BENCH_M_IPC][k] = d.hw[BENCH_HW_CYCLES] > 0
				? d.hw[BENCH_HW_INSTR] / d.hw[BENCH_HW_CYCLES] : NAN;
			for (int i = 0; i < BENCH_SW_NR; i++)
				vr->sw[i] += d.sw[i];
			if (d.sw[BENCH_SW_CS] || d.sw[BENCH_SW_MIGR])
				vr->disturbed++;
		}
	}

	/* Tear down before the callgrind child runs: it needs the memory, not our state. */
	for (size_t vi = 0; vi < nv; vi++) {
		struct bench_var_res *vr = &r.vr[vi];
		if (!vr->err && s->figures)
			take_figures(s, vr);
		if (!vr->err && vr->v->teardown)
			vr->v->teardown(vr->state);
		vr->state = NULL;
	}
	if (geom) {
		if (prog) {
			fprintf(prog, "bench %s [%s]: re-running under callgrind (D1=%s)\n",
				s->name, c->name, geom);
			fflush(prog);
		}
		/* Under valgrind (~50x slower) run about 1 ms worth of the slowest variant's native
		 * ops, at most 1000: enough to amortise the client requests, short for slow ops. */
		struct sp_bench_opts cgo = *o;
		if (!cgo.cg_ops && !s->fixed_ops) {
			uint64_t least = 1000 * 5;
			for (size_t vi = 0; vi < nv; vi++)
				if (!r.vr[vi].err && r.vr[vi].ops < least)
					least = r.vr[vi].ops;
			cgo.cg_ops = least / 5 ? least / 5 : 1;
			if (s->op_period)	/* whole cycles of the suite's ring */
				cgo.cg_ops = SP_MAX(1, cgo.cg_ops / s->op_period) * s->op_period;
		}
		bench_cg_run_case(s, ci, &cgo, geom, &r);
		if (r.cg_err && o->json && prog)
			fprintf(prog, "bench %s [%s]: callgrind: %s\n", s->name, c->name, r.cg_err);
	}
	int rc = o->results ? bench_results_add(o->results, &r) : 0;
	if (!rc && r.missing)
		rc = -ENODATA;
	if (o->json)
		bench_report_json(o->out, &r);
	else
		bench_report_table(o->out, &r);
	fflush(o->out);
	free_case(&r, nv);
	return rc;
}

static unsigned eff_reps(const struct sp_bench_opts *o)
{
	return o->reps ? o->reps : o->quick ? 5 : 11;
}

static size_t n_selected(const struct sp_bench_suite *s, const struct sp_bench_opts *o)
{
	size_t nsel = 0;
	for (size_t ci = 0; ci < s->ncases; ci++)
		nsel += case_selected(&s->cases[ci], o);
	return nsel;
}

/* Seconds of timed rounds plus calibration and warm-up (about 3 samples per variant). */
static double rounds_s(const struct sp_bench_suite *s, const struct sp_bench_opts *o, double ms)
{
	return (double)n_selected(s, o) * (double)s->nvariants * (eff_reps(o) + 3) * ms / 1000.0;
}

/*
 * The sample time: --sample-ms, else 5 ms (1 ms quick), scaled down (to >= 0.2 ms) so the rounds
 * take at most 70 % of a budget; the rest is left for setup, which the estimate cannot see.
 */
static double eff_sample_ms(const struct sp_bench_suite *s, const struct sp_bench_opts *o)
{
	double ms = o->min_sample_ms > 0 ? o->min_sample_ms : o->quick ? 1 : 5;
	if (o->budget_s > 0 && !s->fixed_ops) {
		double est = rounds_s(s, o, ms), cap = 0.7 * o->budget_s;
		if (est > cap)
			ms *= cap / est;
		if (ms < 0.2)
			ms = 0.2;
	}
	return ms;
}

/*
 * The caller's options in full: a field its sz does not cover (a caller built against an older
 * header) keeps its default, 0 (SP_OPTS_HAS); o == NULL gives every default.
 */
static void opts_get(const struct sp_bench_opts *o, struct sp_bench_opts *out)
{
	*out = (struct sp_bench_opts){ .sz = sizeof(*out) };
#define OPT(field)                                                                                 \
	do {                                                                                       \
		if (SP_OPTS_HAS(o, field))                                                         \
			out->field = o->field;                                                     \
	} while (0)
	OPT(reps);
	OPT(min_sample_ms);
	OPT(quick);
	OPT(json);
	OPT(cachegrind);
	OPT(only_case);
	OPT(out);
	OPT(progress);
	OPT(reexec_argv);
	OPT(cg_child);
	OPT(cg_ops);
	OPT(budget_s);
	OPT(results);
#undef OPT
}

double sp_bench_estimate(const struct sp_bench_suite *s, const struct sp_bench_opts *opts)
{
	struct sp_bench_opts all, *o = &all;
	opts_get(opts, &all);
	if (!s)
		return -1;
	if (s->fixed_ops)
		return o->budget_s > 0 ? o->budget_s : -1;	/* rounds are cut to fit */
	return rounds_s(s, o, eff_sample_ms(s, o));
}

int sp_bench_run(const struct sp_bench_suite *s, const struct sp_bench_opts *opts)
{
	struct sp_bench_opts all, *o = &all;
	opts_get(opts, &all);
	if (!s || !s->name)
		return -EINVAL;
	if (!s->nvariants || !s->ncases)
		return -ENOENT;
	for (size_t vi = 0; vi < s->nvariants; vi++)
		if (!s->variants[vi].setup || !s->variants[vi].run)
			return -EINVAL;

	size_t nsel = n_selected(s, o);
	if (!nsel)
		return -ENOENT;

	if (o->cg_child) {
		for (size_t ci = 0; ci < s->ncases; ci++)
			if (case_selected(&s->cases[ci], o))
				run_case_cg_child(s, &s->cases[ci], o);
		return 0;
	}

	struct sp_bench_opts eff = *o;
	if (!eff.out)
		eff.out = stdout;
	unsigned reps = eff_reps(o);
	double ms = eff_sample_ms(s, o);
	double case_budget_ns = o->budget_s > 0 ? o->budget_s * 1e9 / (double)nsel : 0;
	FILE *prog = o->progress;

	char geombuf[80];
	const char *geom = NULL;
	if (o->cachegrind) {
		const char *src = NULL;
		int rc = bench_cg_geometry(o->cachegrind, geombuf, sizeof(geombuf), &src);
		if (rc) {
			if (prog)
				fprintf(prog, "bench %s: --cachegrind=%s is not a cache geometry "
					"(host, 32k8, 48k12 or SIZE,ASSOC,LINE with power-of-two sets "
					"and line)\n", s->name, o->cachegrind);
			return rc;
		}
		geom = geombuf;
		if (prog && !o->cg_child)
			fprintf(prog, "bench %s: callgrind L1D %s, from %s\n", s->name, geom, src);
	}

	if (prog) {
		double est = sp_bench_estimate(s, o);
		if (s->fixed_ops)
			fprintf(prog, "bench %s: %zu case(s) x %zu variants x %u rounds of %llu %s "
				"(%s)%s\n", s->name, nsel, s->nvariants, reps,
				(unsigned long long)s->fixed_ops, s->unit, o->budget_s > 0
				? "rounds cut if over the budget" : "time depends on the machine",
				geom ? "; --cachegrind re-runs each case under valgrind" : "");
		else
			fprintf(prog, "bench %s: %zu case(s) x %zu variants x %u rounds, "
				"samples >= %g ms: estimated %.1f s%s\n", s->name, nsel,
				s->nvariants, reps, ms, est,
				geom ? " plus the valgrind re-runs (~50x the measured ops)" : "");
		fflush(prog);
	}

	cpu_set_t saved;
	int cpu = (s->flags & SP_BENCH_NO_PIN) ? -1 : pin_to_current_cpu(&saved);
	struct bench_counters ctr;
	bench_counters_open(&ctr);
	int rc = 0, missing = 0;
	for (size_t ci = 0; ci < s->ncases && !rc; ci++) {
		if (!case_selected(&s->cases[ci], o))
			continue;
		rc = run_case(s, ci, &eff, reps, ms * 1e6, case_budget_ns, &ctr, cpu, geom, prog);
		if (rc == -ENODATA) {	/* a missing data file: said, the other cases still run */
			missing = 1;
			rc = 0;
		}
	}
	if (!rc && missing)
		rc = -ENODATA;
	bench_counters_close(&ctr);
	if (cpu >= 0)
		sched_setaffinity(0, sizeof(saved), &saved);
	return rc;
}

int sp_bench_run_isolated(const struct sp_bench_suite *s, const struct sp_bench_opts *opts)
{
	struct sp_bench_opts all, *o = &all;
	int fd[2], status = 0;

	opts_get(opts, &all);
	FILE *out = o->out ? o->out : stdout;
	fflush(out);
	if (o->progress)
		fflush(o->progress);
	if (pipe(fd))
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(fd[0]);
		close(fd[1]);
		return e;
	}
	if (!pid) {
		/* The child: run (sending each kept case), flush, send the status, and leave
		 * without running the parent's atexit handlers or flushing its copies of other
		 * streams. */
		struct sp_bench_results *mine = NULL;
		struct sp_bench_opts co = *o;
		close(fd[0]);
		int rc = o->results ? sp_bench_results_new(&mine) : 0;
		if (mine)
			mine->stream_fd = fd[1];	/* each case goes out as it ends */
		co.results = mine;
		if (!rc)
			rc = sp_bench_run(s, &co);
		fflush(out);
		if (o->progress)
			fflush(o->progress);
		int sent = bench_results_send_end(fd[1], rc);
		sp_bench_results_free(mine);
		_exit(sent ? 1 : 0);
	}
	close(fd[1]);
	int rc = 0;
	int got = o->results ? bench_results_recv(o->results, fd[0], &rc)
			     : bench_results_recv(&(struct sp_bench_results){ 0 }, fd[0], &rc);
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!got)
		return rc;
	if (o->progress) {
		if (WIFSIGNALED(status))
			fprintf(o->progress, "bench %s: the suite's process died by signal %d "
				"(%s)\n", s->name, WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			fprintf(o->progress, "bench %s: the suite's process ended without results "
				"(exit status %d)\n", s->name, WEXITSTATUS(status));
	}
	return -ECHILD;
}
