/*
 * cmd_bench.c - `secpath bench [SUITE...] [options]`: run benchmark suites (src/bench) and print
 * their tables (stdout) or JSON Lines (--json); progress goes to stderr.
 *
 * With no SUITE the default set runs: every registered suite that has variants.  --cachegrind
 * makes the harness re-execute this binary under valgrind with the internal options --cg-child
 * and --cg-ops (not for users; see src/bench/callgrind.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "secpath/bench.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: secpath bench [SUITE...] [--reps R] [--quick] [--json]\n"
		"                     [--cachegrind[=GEOM]] [--case NAME] [--sample-ms MS]\n"
		"       secpath bench --list\n\n"
		"Runs each suite's variants interleaved in one process (pinned to one CPU)\n"
		"and prints time per op as min/avg/median/max/pstdev with each variant's\n"
		"ratio to the baseline (variant 0).\n\n"
		"  --list              list the suites, their cases and variants\n"
		"  --reps R            rounds per case (default 11, 5 with --quick)\n"
		"  --quick             fewer rounds, 1 ms samples, the suites' small cases\n"
		"  --json              JSON Lines: one object per suite x case x variant x metric\n"
		"  --cachegrind[=GEOM] also re-run each case under valgrind (callgrind with cache\n"
		"                      simulation) for exact instructions and D1 misses per op;\n"
		"                      GEOM is host (default, from sysfs), 32k8, 48k12 or\n"
		"                      SIZE,ASSOC,LINE\n"
		"  --case NAME         run only the case NAME\n"
		"  --sample-ms MS      minimum sample duration for calibration (default 5)\n\n"
		"See secpath-bench(1).\n");
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

int cmd_bench(int argc, char **argv, struct sp_cli *cli)
{
	struct sp_bench_opts o = { .sz = sizeof(o), .out = cli->out, .progress = cli->err };
	const struct sp_bench_suite **run = calloc((size_t)argc + 8, sizeof(*run));
	size_t nrun = 0;
	int list = 0, rc = SP_EXIT_OK;

	if (!run) {
		fprintf(cli->err, "secpath bench: out of memory\n");
		return SP_EXIT_REJECTED;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		uint64_t v;
		if (cli_is_help(a)) {
			usage(cli->out);
			goto out;
		} else if (!strcmp(a, "--list")) {
			list = 1;
		} else if (!strcmp(a, "--quick")) {
			o.quick = 1;
		} else if (!strcmp(a, "--json")) {
			o.json = 1;
		} else if (!strcmp(a, "--cachegrind")) {
			o.cachegrind = "host";
		} else if (!strncmp(a, "--cachegrind=", 13)) {
			o.cachegrind = a + 13;
		} else if (!strcmp(a, "--cg-child")) {
			o.cg_child = 1;
		} else if ((!strcmp(a, "--reps") || !strcmp(a, "--cg-ops") ||
			    !strcmp(a, "--case") || !strcmp(a, "--sample-ms")) && i + 1 < argc) {
			const char *val = argv[++i];
			if (!strcmp(a, "--case")) {
				o.only_case = val;
				continue;
			}
			if (!strcmp(a, "--sample-ms")) {
				char *e;
				o.min_sample_ms = strtod(val, &e);
				if (*e || e == val ||
				    !(o.min_sample_ms > 0 && o.min_sample_ms < 1e5))
					goto bad_value;
				continue;
			}
			if (parse_u64(val, &v) || !v || v > 100000)
				goto bad_value;
			if (!strcmp(a, "--reps"))
				o.reps = (unsigned)v;
			else
				o.cg_ops = v;
			continue;
bad_value:
			fprintf(cli->err, "secpath bench: bad value '%s' for %s\n", val, a);
			rc = SP_EXIT_USAGE;
			goto out;
		} else if (a[0] == '-') {
			fprintf(cli->err, "secpath bench: unknown option '%s'\n", a);
			usage(cli->err);
			rc = SP_EXIT_USAGE;
			goto out;
		} else {
			const struct sp_bench_suite *s = sp_bench_suite_find(a);
			if (!s) {
				fprintf(cli->err, "secpath bench: '%s' is not a bench suite "
					"(see 'secpath bench --list')\n", a);
				rc = SP_EXIT_USAGE;
				goto out;
			}
			run[nrun++] = s;
		}
	}
	if (list) {
		list_suites(cli->out);
		goto out;
	}
	if (!nrun)
		for (const struct sp_bench_suite *const *p = sp_bench_suites(); *p; p++)
			if (sp_bench_suite_is_default(*p))
				run[nrun++] = *p;
	if (!nrun) {
		fprintf(cli->err, "secpath bench: no suite has variants yet\n");
		rc = SP_EXIT_REJECTED;
		goto out;
	}
	if (o.cg_child) {
		o.progress = NULL;
	} else if (nrun > 1) {
		double est = 0;
		int unknown = 0;
		fprintf(cli->err, "secpath bench: running");
		for (size_t i = 0; i < nrun; i++) {
			double e = sp_bench_estimate(run[i], &o);
			fprintf(cli->err, " %s%s", run[i]->name,
				e < 0 ? " (timed after warm-up)" : "");
			est += e > 0 ? e : 0;
			unknown |= e < 0;
		}
		fprintf(cli->err, "; estimated %.1f s%s%s\n", est,
			unknown ? " plus the suites timed after warm-up" : "",
			o.cachegrind ? " plus the valgrind re-runs" : "");
	}

	size_t ran = 0, nocase = 0;
	for (size_t i = 0; i < nrun; i++) {
		const struct sp_bench_suite *s = run[i];
		if (!has_variants(s)) {
			fprintf(cli->err, "secpath bench: suite '%s' has no variants yet\n",
				s->name);
			rc = SP_EXIT_REJECTED;
			continue;
		}
		int err = sp_bench_run(s, &o);
		if (err == -ENOENT && o.only_case) {
			nocase++;	/* --case names a case of another suite */
		} else if (err == -EINVAL && o.cachegrind) {
			fprintf(cli->err, "secpath bench: bad cache geometry '%s' (host, 32k8, "
				"48k12 or SIZE,ASSOC,LINE)\n", o.cachegrind);
			rc = SP_EXIT_USAGE;
			break;
		} else if (err) {
			fprintf(cli->err, "secpath bench: %s: %s\n", s->name, strerror(-err));
			rc = SP_EXIT_REJECTED;
		} else {
			ran++;
		}
	}
	if (nocase && !ran && rc == SP_EXIT_OK) {
		fprintf(cli->err, "secpath bench: no suite has a case '%s'\n", o.only_case);
		rc = SP_EXIT_USAGE;
	}
out:
	free(run);
	return rc;
}
