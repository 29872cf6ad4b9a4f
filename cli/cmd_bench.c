/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_bench.c - `secpath bench [SUITE...] [options]`: run benchmark suites (src/bench) and print
 * their tables (stdout) or JSON Lines (--json); progress goes to stderr.
 *
 * With no SUITE the default report runs: every default suite (registry order: the audit filter,
 * the avtab, slab init modes, the slab-spread pathology, the slab fast path, then the parser and
 * replay), inside a time budget (3 min, 20 s with --quick) that the harness keeps by scaling
 * sample time and cutting rounds; the estimate is printed first, the measured wall time and a
 * one-line-per-experiment summary last.  --html FILE writes the same results as one HTML page.
 * --cachegrind makes the harness re-execute this binary under valgrind with the internal options
 * --cg-child and --cg-ops (not for users; see src/bench/callgrind.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "secpath/bench.h"

/* The default report's budgets: `make run` must finish in under 3 minutes on 2 cores. */
#define DEFAULT_BUDGET_S 150.0
#define QUICK_BUDGET_S 15.0

static void usage(FILE *f)
{
	fprintf(f,
		"usage: secpath bench [SUITE...] [--reps R] [--quick] [--json] [--html FILE]\n"
		"                     [--budget S] [--cachegrind[=GEOM]] [--case NAME]\n"
		"                     [--sample-ms MS]\n"
		"       secpath bench --list [--json]\n\n"
		"Runs each suite's variants interleaved in one process (pinned to one CPU)\n"
		"and prints time per op as min/avg/median/max/pstdev with each variant's\n"
		"ratio to the baseline (variant 0).  Without SUITE: the default report, every\n"
		"kernel experiment side by side in under 3 minutes, ending with a summary.\n"
		"Every run ends with the issues' performance targets its cases measured:\n"
		"the figure, the target, the estimated floor, met or not (Ir targets need\n"
		"--cachegrind; --json: secpath.bench-target/1 objects).\n\n"
		"  --list              list the suites, their cases and variants (--json: JSON Lines)\n"
		"  --reps R            rounds per case (default 11, 5 with --quick)\n"
		"  --quick             fewer rounds, 1 ms samples, the suites' small cases\n"
		"                      (the default report in a few seconds)\n"
		"  --json              JSON Lines: one object per suite x case x variant x metric\n"
		"  --html FILE         also write the report as one self-contained HTML page\n"
		"  --budget S          total seconds of measurement (default report: %.0f,\n"
		"                      %.0f with --quick; 0 = no budget)\n"
		"  --cachegrind[=GEOM] also re-run each case under valgrind (callgrind with cache\n"
		"                      simulation) for exact instructions and D1 misses per op;\n"
		"                      GEOM is host (default: sysfs, else CPUID, else 48k12,\n"
		"                      said on stderr), 32k8, 48k12 or\n"
		"                      SIZE,ASSOC,LINE\n"
		"  --case NAME         run only the case NAME\n"
		"  --sample-ms MS      minimum sample duration for calibration (default 5)\n\n"
		"See secpath-bench(1).\n", DEFAULT_BUDGET_S, QUICK_BUDGET_S);
}

static int has_variants(const struct sp_bench_suite *s)
{
	return s->nvariants > 0 && s->ncases > 0;
}

static void list_suites(FILE *f)
{
	for (const struct sp_bench_suite *const *p = sp_bench_suites(); *p; p++) {
		const struct sp_bench_suite *s = *p;
		fprintf(f, "%-12s %s%s\n", s->name, s->desc ? s->desc : "",
			!has_variants(s) ? " (no variants: not run)" :
			!sp_bench_suite_is_default(s) ? " (not in the default set: name it)" : "");
		if (!has_variants(s))
			continue;
		fprintf(f, "%-12s unit: %s; cases:", "", s->unit ? s->unit : "op");
		for (size_t i = 0; i < s->ncases; i++)
			fprintf(f, " %s%s", s->cases[i].name,
				s->cases[i].flags & SP_BENCH_CASE_QUICK_ONLY ? "(quick)" :
				s->cases[i].flags & SP_BENCH_CASE_FULL_ONLY ? "(full)" : "");
		fprintf(f, "\n%-12s variants:", "");
		for (size_t i = 0; i < s->nvariants; i++)
			fprintf(f, " %s%s", s->variants[i].name, i ? "" : "(baseline)");
		fputc('\n', f);
	}
}

/* --list --json: one object per suite (JSON Lines, like the report). */
static void list_suites_json(FILE *f)
{
	for (const struct sp_bench_suite *const *p = sp_bench_suites(); *p; p++) {
		const struct sp_bench_suite *s = *p;
		fputs("{\"schema\":\"secpath.bench-list/1\",\"suite\":", f);
		cli_json_str(f, s->name);
		fputs(",\"desc\":", f);
		cli_json_str(f, s->desc ? s->desc : "");
		fputs(",\"unit\":", f);
		cli_json_str(f, s->unit ? s->unit : "op");
		fprintf(f, ",\"runnable\":%s,\"default\":%s,\"cases\":[",
			has_variants(s) ? "true" : "false",
			has_variants(s) && sp_bench_suite_is_default(s) ? "true" : "false");
		for (size_t i = 0; i < s->ncases; i++) {
			fputs(i ? "," : "", f);
			cli_json_str(f, s->cases[i].name);
		}
		fputs("],\"variants\":[", f);
		for (size_t i = 0; i < s->nvariants; i++) {
			fputs(i ? "," : "", f);
			cli_json_str(f, s->variants[i].name);
		}
		fputs("]}\n", f);
	}
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *e;
	errno = 0;
	unsigned long long x = strtoull(s, &e, 10);
	if (errno || e == s || *e || s[0] == '-')
		return -EINVAL;
	*v = x;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The command line, for the HTML page ("secpath bench --quick --html r.html"). */
static void join_argv(char *buf, size_t len, const char *prog, int argc, char **argv)
{
	size_t o = (size_t)snprintf(buf, len, "%s", prog ? prog : "secpath");
	for (int i = 0; i < argc && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, " %s", argv[i]);
}

/* Write the page to f (opened before the run, so a bad path fails before minutes of work). */
static int write_html(struct sp_cli *cli, struct cli_out *out, const char *path,
		      const struct sp_bench_results *res, double wall_s, int argc, char **argv)
{
	FILE *f = out->f;
	struct sp_bench_machine m;
	char date[64] = "", cmd[512];
	time_t t = time(NULL);
	struct tm tm;

	sp_bench_machine_read(&m);
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	join_argv(cmd, sizeof(cmd), cli->prog, argc, argv);
	struct sp_bench_html_info info = { .machine = &m, .date = date, .command = cmd,
					   .wall_s = wall_s };
	int err = sp_bench_html(f, res, &info);
	if (err) {
		fprintf(cli->err, "secpath bench: cannot write '%s': %s\n", path, strerror(-err));
		return SP_EXIT_REJECTED;
	}
	if (cli_out_commit(cli, out))
		return SP_EXIT_REJECTED;
	fprintf(cli->err, "secpath bench: wrote %s\n", path);
	return SP_EXIT_OK;
}

/* A bench command: what the command line asks for, then what the run holds. */
struct bench_cmd {
	struct sp_bench_opts o;
	const struct sp_bench_suite **run;	/* the suites to run, nrun of them */
	size_t nrun;
	const char *html;			/* --html FILE, or NULL */
	double budget;				/* --budget S; < 0: not given */
	int list, dflt;				/* --list; no SUITE named: the default report */
	struct sp_bench_results *res;		/* kept cases: the summary, the targets, the page */
	struct cli_out hout;
	FILE *hf;				/* the page's stream, once opened */
};

/* A value option (--reps, --cg-ops, --case, --sample-ms, --html, --budget) with its value;
 * 0, or -EINVAL for a bad value. */
static int parse_value(struct bench_cmd *b, const char *a, const char *val)
{
	uint64_t v;
	if (!strcmp(a, "--case")) {
		b->o.only_case = val;
		return 0;
	}
	if (!strcmp(a, "--html")) {
		if (!*val)
			return -EINVAL;
		b->html = val;
		return 0;
	}
	if (!strcmp(a, "--sample-ms") || !strcmp(a, "--budget")) {
		char *e;
		double d = strtod(val, &e);
		if (*e || e == val || !(d >= 0 && d < 1e5) || (d == 0 && a[2] == 's'))
			return -EINVAL;
		if (a[2] == 's')
			b->o.min_sample_ms = d;
		else
			b->budget = d;
		return 0;
	}
	if (parse_u64(val, &v) || !v || v > 100000)
		return -EINVAL;
	if (!strcmp(a, "--reps"))
		b->o.reps = (unsigned)v;
	else
		b->o.cg_ops = v;
	return 0;
}

/* The command line into b.  Returns -1 to go on, else the exit status (help printed: OK). */
static int parse_args(struct bench_cmd *b, int argc, char **argv, struct sp_cli *cli)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_is_help(a)) {
			usage(cli->out);
			return SP_EXIT_OK;
		} else if (!strcmp(a, "--list")) {
			b->list = 1;
		} else if (!strcmp(a, "--quick")) {
			b->o.quick = 1;
		} else if (!strcmp(a, "--json")) {
			b->o.json = 1;
		} else if (!strcmp(a, "--cachegrind")) {
			b->o.cachegrind = "host";
		} else if (!strncmp(a, "--cachegrind=", 13)) {
			b->o.cachegrind = a + 13;
		} else if (!strcmp(a, "--cg-child")) {
			b->o.cg_child = 1;
		} else if ((!strcmp(a, "--reps") || !strcmp(a, "--cg-ops") ||
			    !strcmp(a, "--case") || !strcmp(a, "--sample-ms") ||
			    !strcmp(a, "--html") || !strcmp(a, "--budget")) && i + 1 < argc) {
			const char *val = argv[++i];
			if (parse_value(b, a, val)) {
				fprintf(cli->err, "secpath bench: bad value '%s' for %s\n", val, a);
				return SP_EXIT_USAGE;
			}
		} else if (a[0] == '-') {
			fprintf(cli->err, "secpath bench: unknown option '%s'\n", a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		} else {
			const struct sp_bench_suite *s = sp_bench_suite_find(a);
			if (!s) {
				fprintf(cli->err, "secpath bench: '%s' is not a bench suite "
					"(see 'secpath bench --list')\n", a);
				return SP_EXIT_USAGE;
			}
			b->run[b->nrun++] = s;
		}
	}
	return -1;
}

/* Up front, in the report itself (stderr with --json): what runs and how long. */
static void print_plan(const struct bench_cmd *b, struct sp_cli *cli)
{
	double est = 0;
	int unknown = 0;
	FILE *hdr = b->o.json ? cli->err : cli->out;
	fprintf(hdr, "secpath bench: %s:",
		b->dflt ? "the default report, every kernel experiment side by side" : "running");
	for (size_t i = 0; i < b->nrun; i++) {
		double e = has_variants(b->run[i]) ? sp_bench_estimate(b->run[i], &b->o) : 0;
		fprintf(hdr, " %s%s", b->run[i]->name, e < 0 ? " (timed after warm-up)" : "");
		est += e > 0 ? e : 0;
		unknown |= e < 0;
	}
	fprintf(hdr, "\nestimated %.0f s of measurement%s%s", est,
		unknown ? " plus the suites timed after warm-up" : "",
		b->o.cachegrind ? " plus the valgrind re-runs" : "");
	if (b->budget > 0)
		fprintf(hdr, "; budget %.0f s (%.1f s per suite) plus set-up", b->budget,
			b->o.budget_s);
	fputc('\n', hdr);
	fflush(hdr);
}

/*
 * After parsing: the default suites when none was named, the budget and each suite's share, the
 * kept results and the page's output, then the plan.  Returns -1 to go on, else the exit status.
 */
static int plan(struct bench_cmd *b, struct sp_cli *cli)
{
	struct cli_files files;
	if (!b->nrun) {
		b->dflt = 1;
		for (const struct sp_bench_suite *const *p = sp_bench_suites(); *p; p++)
			if (sp_bench_suite_is_default(*p))
				b->run[b->nrun++] = *p;
	}
	if (!b->nrun) {
		fprintf(cli->err, "secpath bench: no suite has variants yet\n");
		return SP_EXIT_REJECTED;
	}
	if (b->budget < 0 && b->dflt && !b->o.cg_child)
		b->budget = b->o.quick ? QUICK_BUDGET_S : DEFAULT_BUDGET_S;
	else if (b->budget < 0)
		b->budget = 0;
	if (!b->o.cg_child && sp_bench_results_new(&b->res)) {
		fprintf(cli->err, "secpath bench: out of memory\n");
		return SP_EXIT_REJECTED;
	}
	b->o.results = b->res;
	cli_files_init(&files);
	if (b->html && !b->o.cg_child &&
	    (cli_out_open(cli, &files, &b->hout, b->html) ||
	     !(b->hf = cli_out_stream(cli, &b->hout))))
		return SP_EXIT_REJECTED;

	/* Each suite gets an equal share of the budget (the harness cuts its rounds to fit). */
	size_t nvar = 0;
	for (size_t i = 0; i < b->nrun; i++)
		nvar += has_variants(b->run[i]);
	b->o.budget_s = b->budget > 0 && nvar ? b->budget / (double)nvar : 0;

	if (b->o.cg_child)
		b->o.progress = NULL;
	else if (b->nrun > 1 || b->budget > 0)
		print_plan(b, cli);
	return -1;
}

/* Run every suite (several: each in its own process).  Returns the exit status so far; *ran:
 * the suites that ran, *wall: seconds taken. */
static int run_suites(struct bench_cmd *b, struct sp_cli *cli, size_t *ran, double *wall)
{
	int rc = SP_EXIT_OK;
	size_t nocase = 0;
	double t0 = now_s();
	*ran = 0;
	for (size_t i = 0; i < b->nrun; i++) {
		const struct sp_bench_suite *s = b->run[i];
		if (!has_variants(s)) {
			fprintf(cli->err, "secpath bench: suite '%s' has no variants yet\n",
				s->name);
			rc = SP_EXIT_REJECTED;
			continue;
		}
		/* Several suites: each in its own process, so none inherits another's state. */
		int err = b->nrun > 1 && !b->o.cg_child ? sp_bench_run_isolated(s, &b->o)
							: sp_bench_run(s, &b->o);
		if (err == -ENOENT && b->o.only_case) {
			nocase++;	/* --case names a case of another suite */
		} else if (err == -EINVAL && b->o.cachegrind) {
			fprintf(cli->err, "secpath bench: bad cache geometry '%s' (host, 32k8, "
				"48k12 or SIZE,ASSOC,LINE)\n", b->o.cachegrind);
			rc = SP_EXIT_USAGE;
			break;
		} else if (err == -ENODATA) {
			fprintf(cli->err, "secpath bench: %s: variants skipped for a missing data file "
				"(named above; see secpath(1), FILES)\n", s->name);
			rc = SP_EXIT_REJECTED;
			(*ran)++;	/* its other cases were reported */
		} else if (err) {
			fprintf(cli->err, "secpath bench: %s: %s\n", s->name, strerror(-err));
			rc = SP_EXIT_REJECTED;
		} else {
			(*ran)++;
		}
	}
	*wall = now_s() - t0;
	if (nocase && !*ran && rc == SP_EXIT_OK) {
		fprintf(cli->err, "secpath bench: no suite has a case '%s'\n", b->o.only_case);
		rc = SP_EXIT_USAGE;
	}
	return rc;
}

/* After a run of `ran` suites: the summary, the wall time and the page.  Returns rc, or the
 * page's failure when rc was OK. */
static int report(struct bench_cmd *b, struct sp_cli *cli, int rc, size_t ran, double wall,
		  int argc, char **argv)
{
	if (!b->o.json && b->nrun > 1)
		sp_bench_summary(cli->out, b->res);
	if (b->o.json)
		sp_bench_targets_json(cli->out, b->res);
	else
		sp_bench_targets(cli->out, b->res);
	if (!b->o.json)
		fprintf(cli->out, "\n%s took %.1f s wall time (%zu suite%s)\n",
			b->dflt ? "the default report" : "this run", wall, ran,
			ran == 1 ? "" : "s");
	fprintf(cli->err, "secpath bench: finished in %.1f s\n", wall);
	if (b->hf) {
		int hrc = write_html(cli, &b->hout, b->html, b->res, wall, argc, argv);
		if (hrc && rc == SP_EXIT_OK)
			rc = hrc;
	}
	return rc;
}

/* --json: the first line says where the figures come from (secpath.bench-host/1). */
static void json_host(FILE *f, int argc, char **argv)
{
	struct sp_bench_machine m;
	char date[64] = "", cmd[512];
	time_t t = time(NULL);
	struct tm tm;
	sp_bench_machine_read(&m);
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	join_argv(cmd, sizeof(cmd), "secpath", argc, argv);
	fputs("{\"schema\":\"secpath.bench-host/1\",\"secpath\":", f);
	cli_json_str(f, sp_version());
	fputs(",\"date\":", f);
	cli_json_str(f, date);
	fputs(",\"command\":", f);
	cli_json_str(f, cmd);
	fputs(",\"cpu\":", f);
	cli_json_str(f, m.cpu);
	fputs(",\"cpu_id\":", f);
	cli_json_str(f, m.cpu_id);
	fprintf(f, ",\"cores\":%u,\"l1d\":{\"size\":%lu,\"assoc\":%u,\"line\":%u,\"source\":",
		m.cores, m.l1d_size, m.l1d_assoc, m.l1d_line);
	cli_json_str(f, m.l1d_source);
	fputs("},\"kernel\":", f);
	cli_json_str(f, m.kernel);
	fputs(",\"compiler\":", f);
	cli_json_str(f, __VERSION__);
	fputs("}\n", f);
	fflush(f);
}

int cmd_bench(int argc, char **argv, struct sp_cli *cli)
{
	struct bench_cmd b = {
		.o = { .sz = sizeof(b.o), .out = cli->out, .progress = cli->err },
		.run = calloc((size_t)argc + 8, sizeof(*b.run)),
		.budget = -1,
		.hout = { .fd = -1, .slot = -1 },
	};
	int rc;

	if (!b.run) {
		fprintf(cli->err, "secpath bench: out of memory\n");
		return SP_EXIT_REJECTED;
	}
	rc = parse_args(&b, argc, argv, cli);
	char dir[4096];
	if (!getenv("SECPATH_DATADIR") && !cli_datadir(cli, dir, sizeof(dir), 1))
		setenv("SECPATH_DATADIR", dir, 0);	/* the suites' data (and valgrind re-runs') */
	if (rc < 0 && b.list) {
		if (b.o.json)
			list_suites_json(cli->out);
		else
			list_suites(cli->out);
		rc = SP_EXIT_OK;
	}
	if (rc < 0)
		rc = plan(&b, cli);
	if (rc < 0 && b.o.json && !b.o.cg_child)
		json_host(cli->out, argc, argv);
	if (rc < 0) {
		size_t ran;
		double wall;
		rc = run_suites(&b, cli, &ran, &wall);
		if (!b.o.cg_child && ran)
			rc = report(&b, cli, rc, ran, wall, argc, argv);
	}
	if (b.html)
		cli_out_abort(&b.hout);	/* no suite ran: the old page, if any, stays */
	sp_bench_results_free(b.res);
	free(b.run);
	return rc;
}
