/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_malloc.c - the `malloc` bench suite: real programs under each process allocator.
 *
 * One op = one whole command run (fork, exec with the variant's LD_PRELOAD / environment, wait4),
 * so the wall time per op is the program's; peak RSS (wait4's ru_maxrss, the largest over the
 * rounds' runs) is collected by the variants and printed, with its ratio to glibc, under the last
 * table (the harness itself reports time only).
 * Cases (run from the project root; a case whose files are missing is skipped):
 *   gcc      gcc -O2 -c of three project sources (the kernel thread's "three redis sources")
 *   python3  tests/malloc/workload.py (json, re, sqlite3 module, dict churn), /usr/bin/python3
 *            first, PYTHONHASHSEED=0
 *   sqlite3  sqlite3 :memory: < tests/malloc/gen-db.sql (200k generated rows)
 *   git      git log --stat -n 250 GIT_PIN in the project repository: a fixed range of its
 *            history (GIT_PIN and its 249 ancestors), so the case does not grow with the tree;
 *            skipped (with a message) in a clone without that commit
 * Variants (ratios to glibc in the same run):
 *   glibc, glibc-perturb (MALLOC_PERTURB_=165), mimalloc and jemalloc (Debian's libmimalloc2.0
 *   and libjemalloc2, skipped with a message when not installed), secpath (init off),
 *   secpath-alloc (SECPATH_INIT_ON_ALLOC=1), secpath-free (SECPATH_INIT_ON_FREE=1) and
 *   secpath-free-optout (init_on_free with the case's hottest sizes opted out through
 *   SECPATH_MALLOC_NO_INIT: the per-cache opt-out where a few sizes take most of the clearing,
 *   e.g. python3's 1152-byte class, git's zlib buffers).
 * libsecpath-malloc.so is looked up as $SECPATH_MALLOC_SO, else next to the running binary.
 * --cachegrind traces the commands (SP_BENCH_CG_CHILDREN): Ir per run of each variant, summed over
 * a command's processes; the cleared-bytes run is skipped under valgrind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

#include "secpath/bench.h"
#include "bench/suites.h"

#define MIMALLOC_SO "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2"
#define JEMALLOC_SO "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
#define MAX_ENV 4

struct malloc_param {
	const char *name;
	const char *const *argv;
	const char *input;		/* stdin file, or NULL */
	const char *need;		/* a file the case needs (relative to the project root) */
	const char *prefer;		/* run this program instead of argv[0] when it exists */
	const char *optout;		/* SECPATH_MALLOC_NO_INIT of secpath-free-optout */
	const char *env;		/* NAME=VALUE for every variant, or NULL */
	const char *commit;		/* a commit the repository must hold, or NULL */
};

struct malloc_var {
	const char *name;
	const char *preload;		/* "secpath", a path, or NULL */
	const char *env[MAX_ENV];	/* NAME=VALUE */
	int case_optout;		/* also SECPATH_MALLOC_NO_INIT=<the case's optout> */
};

struct malloc_state {
	const struct malloc_param *p;
	const struct malloc_var *v;
	char preload[PATH_MAX];
	long maxrss_kb;			/* largest ru_maxrss of the runs */
	int failed;
	unsigned ncpu;
	double cpu_ms[64];		/* user + sys of each run (wait4), the first 64 */
	double flt[64];			/* minor page faults of each run, the first 64 */
	long floor_kb;			/* this process's anonymous RSS when it forks (see below) */
};

static const struct malloc_var malloc_vars[] = {
	{ "glibc", NULL, { NULL }, 0 },
	{ "glibc-perturb", NULL, { "MALLOC_PERTURB_=165" }, 0 },
	{ "mimalloc", MIMALLOC_SO, { NULL }, 0 },
	{ "jemalloc", JEMALLOC_SO, { NULL }, 0 },
	{ "secpath", "secpath", { NULL }, 0 },
	{ "secpath-alloc", "secpath", { "SECPATH_INIT_ON_ALLOC=1" }, 0 },
	{ "secpath-free", "secpath", { "SECPATH_INIT_ON_FREE=1" }, 0 },
	{ "secpath-free-optout", "secpath", { "SECPATH_INIT_ON_FREE=1" }, 1 },
};

static char malloc_context[8192] =
	"context (kernel threads): mimalloc ~1% faster than glibc, jemalloc ~1% slower, "
	"MALLOC_PERTURB_ ~2% on gcc -O2 of three redis sources; the kernel's init_on_free +4.57% on "
	"kernel builds.  Targets: secpath within 2% of mimalloc, peak RSS within 10% of glibc, "
	"secpath-free cheaper than glibc-perturb.  With --cachegrind: each command's exact "
	"user-space instructions (Ir ratio), where one run's CPU time varies by 1-3%.";
static size_t malloc_context_len;
static double rss_base_kb, cpu_base_ms;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int find_secpath_so(char *out, size_t n)
{
	const char *e = getenv("SECPATH_MALLOC_SO");
	if (e && *e) {
		snprintf(out, n, "%s", e);
		return access(out, R_OK) ? -ENOENT : 0;
	}
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return -ENOENT;
	exe[len] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	/* the build tree (out/VARIANT/), then an installed PREFIX/bin -> PREFIX/lib/secpath */
	static const char *const rel[] = { "libsecpath-malloc.so", "../lib/secpath/libsecpath-malloc.so" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		if ((size_t)snprintf(out, n, "%s/%s", exe, rel[i]) >= n)
			return -ENAMETOOLONG;
		if (!access(out, R_OK))
			return 0;
	}
	return -ENOENT;
}

/*
 * RssAnon of this process.  A forked child's page tables map the parent's anonymous pages until
 * it execs, and the kernel keeps that high-water mark in the child's ru_maxrss, so a measured
 * peak at or below this floor is the bench process's own (after other suites in one run).
 */
static long anon_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	long kb = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static double median(double *v, unsigned n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Whether the repository of the current directory holds commit (git cat-file -e). */
static int has_commit(const char *commit)
{
	char spec[64];
	snprintf(spec, sizeof(spec), "%s^{commit}", commit);
	pid_t pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		execlp("git", "git", "cat-file", "-e", spec, (char *)NULL);
		_exit(127);
	}
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

static int setup_var(const void *param, void **state, const struct malloc_var *v)
{
	const struct malloc_param *p = param;
	if (p->need && access(p->need, R_OK)) {
		if (v == &malloc_vars[0])	/* once per case, not once per variant */
			fprintf(stderr, "bench malloc [%s]: %s not found: the malloc cases run from "
				"the root of a secpath source tree (its sources, tests/malloc/, its git "
				"history)\n", p->name, p->need);
		return -ENOENT;
	}
	if (p->commit && !has_commit(p->commit)) {
		fprintf(stderr, "bench malloc [%s]: commit %.12s is not in this clone\n", p->name,
			p->commit);
		return -ENOENT;
	}
	struct malloc_state *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->p = p;
	s->v = v;
	s->floor_kb = anon_rss_kb();
	if (v->preload && !strcmp(v->preload, "secpath")) {
		int rc = find_secpath_so(s->preload, sizeof(s->preload));
		if (rc) {
			free(s);
			return rc;
		}
	} else if (v->preload) {
		snprintf(s->preload, sizeof(s->preload), "%s", v->preload);
		if (access(s->preload, R_OK)) {
			free(s);
			return -ENOENT;	/* the harness prints "variant skipped" */
		}
	}
	*state = s;
	return 0;
}

/* Start the case's command under the variant; stderr to err_fd with SECPATH_MALLOC_STATS=1 when
 * err_fd >= 0, else to /dev/null.  Returns the pid, or -1. */
static pid_t spawn(const struct malloc_state *s, int err_fd)
{
	pid_t pid = fork();
	if (pid)
		return pid;
	int in = open(s->p->input ? s->p->input : "/dev/null", O_RDONLY);
	int nul = open("/dev/null", O_WRONLY);
	if (in < 0 || nul < 0)
		_exit(127);
	dup2(in, 0);
	dup2(nul, 1);
	dup2(err_fd >= 0 ? err_fd : nul, 2);
	unsetenv("LD_PRELOAD");
	if (s->preload[0])
		setenv("LD_PRELOAD", s->preload, 1);
	for (int k = 0; k < MAX_ENV && s->v->env[k]; k++)
		putenv((char *)s->v->env[k]);
	if (s->p->env)
		putenv((char *)s->p->env);
	if (s->v->case_optout && s->p->optout)
		setenv("SECPATH_MALLOC_NO_INIT", s->p->optout, 1);
	if (err_fd >= 0)
		setenv("SECPATH_MALLOC_STATS", "1", 1);
	if (s->p->prefer && !access(s->p->prefer, X_OK))
		execv(s->p->prefer, (char *const *)s->p->argv);
	execvp(s->p->argv[0], (char *const *)s->p->argv);
	_exit(127);
}

/*
 * Bytes init_on_free cleared in one more run of an init_on_free variant: the sum over the
 * command's processes of SECPATH_MALLOC_STATS's "freed bytes cleared" (slabs + large), or -1
 * when the variant is not init_on_free or the run failed.  Deterministic where the timings are
 * noise: it shows what an opt-out takes off.
 */
static double cleared_bytes(const struct malloc_state *s)
{
	int on = 0;
	for (int k = 0; k < MAX_ENV && s->v->env[k]; k++)
		on |= !strcmp(s->v->env[k], "SECPATH_INIT_ON_FREE=1");
	FILE *f = on ? tmpfile() : NULL;
	if (!f)
		return -1;
	double sum = -1;
	int status = 0;
	pid_t pid = spawn(s, fileno(f));
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    !WEXITSTATUS(status)) {
		char line[512];
		rewind(f);
		sum = 0;
		while (fgets(line, sizeof(line), f)) {
			unsigned long long a, b;
			const char *m = strstr(line, "freed bytes cleared: slabs ");
			if (m && sscanf(m, "freed bytes cleared: slabs %llu, large %llu", &a, &b) == 2)
				sum += (double)a + (double)b;
		}
	}
	fclose(f);
	return sum;
}

static void run_var(void *state, uint64_t n)
{
	struct malloc_state *s = state;
	for (uint64_t i = 0; i < n; i++) {
		pid_t pid = spawn(s, -1);
		if (pid < 0) {
			s->failed = 1;
			return;
		}
		int status = 0;
		struct rusage ru;
		if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			s->failed = 1;
			continue;
		}
		if (ru.ru_maxrss > s->maxrss_kb)
			s->maxrss_kb = ru.ru_maxrss;
		if (s->ncpu < sizeof(s->cpu_ms) / sizeof(s->cpu_ms[0])) {
			s->flt[s->ncpu] = (double)ru.ru_minflt;
			s->cpu_ms[s->ncpu++] =
				(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
				(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		}
	}
}

static void teardown_var(void *state)
{
	struct malloc_state *s = state;
	if (!malloc_context_len) {
		malloc_context_len = strlen(malloc_context);
		malloc_context_len += (size_t)snprintf(
			malloc_context + malloc_context_len,
			sizeof(malloc_context) - malloc_context_len,
			"\n  per command (wait4 rusage): CPU = user + sys, median ms, and peak RSS = max "
			"ru_maxrss, MiB; each with its ratio to glibc; minor page faults, median (a fault "
			"costs about a microsecond: the main cost an allocator adds or saves here).  CPU "
			"time is the steadier figure on a loaded machine.  For init_on_free: the bytes "
			"it cleared in one more run (SECPATH_MALLOC_STATS):");
	}
	double cpu = median(s->cpu_ms, s->ncpu), flt = median(s->flt, s->ncpu);
	if (s->v == &malloc_vars[0]) {
		rss_base_kb = (double)s->maxrss_kb;
		cpu_base_ms = cpu;
	}
	/* Not under --cachegrind's valgrind: one more traced run for a report nobody reads. */
	double cleared = RUNNING_ON_VALGRIND ? -1 : cleared_bytes(s);
	char cl[64] = "";
	if (cleared >= 0)
		snprintf(cl, sizeof(cl), "   cleared %.1f MB", cleared / 1e6);
	size_t room = sizeof(malloc_context) - malloc_context_len;
	if (room > 1) {
		int w = snprintf(malloc_context + malloc_context_len, room,
				 "\n  %-8s %-20s CPU %8.1f ms %6.3f   RSS %7.1f MiB %6.3f   faults %7.0f%s%s%s%s%s",
				 s->p->name, s->v->name, cpu,
				 cpu_base_ms > 0 ? cpu / cpu_base_ms : 0.0,
				 (double)s->maxrss_kb / 1024,
				 rss_base_kb > 0 ? (double)s->maxrss_kb / rss_base_kb : 0.0, flt,
				 s->maxrss_kb && s->maxrss_kb <= s->floor_kb
					 ? " [RSS at the bench process's own floor: run the suite alone]"
					 : "",
				 s->failed ? " [a run FAILED]" : "", cl,
				 s->v->case_optout && s->p->optout ? "   opted out: " : "",
				 s->v->case_optout && s->p->optout ? s->p->optout : "");
		if (w > 0)
			malloc_context_len += (size_t)w < room ? (size_t)w : room - 1;
	}
	free(s);
}

#define VAR(i)                                                                                     \
	static int setup_##i(const void *p, void **st) { return setup_var(p, st, &malloc_vars[i]); }

VAR(0) VAR(1) VAR(2) VAR(3) VAR(4) VAR(5) VAR(6) VAR(7)

static const char *const argv_gcc[] = {
	"sh", "-c",
	"for f in src/slab/cache.c src/audit/lang/parse.c src/policy/avtab.c; do "
	"gcc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc -c -o /dev/null $f || exit 1; done",
	NULL
};
static const char *const argv_py[] = { "python3", "tests/malloc/workload.py", NULL };
static const char *const argv_sqlite[] = { "sqlite3", ":memory:", NULL };
#define GIT_PIN "cf6ae88f1c83746cb7e61f56133db13bc5dd1b37"
static const char *const argv_git[] = { "git", "log", "--stat", "-n", "250", GIT_PIN, NULL };

/* Each case's opt-out: the sizes holding most of the bytes init_on_free clears in it (the
 * freed-cleared column of SECPATH_MALLOC_STATS=1 SECPATH_INIT_ON_FREE=1). */
static const struct malloc_param p_gcc = { "gcc", argv_gcc, NULL, "src/slab/cache.c", NULL,
					   "8960,4096", NULL, NULL };
/* Debian's interpreter itself, not a wrapper earlier on PATH (pyenv's shim is a shell script:
 * bash would run under each allocator too); a fixed hash seed, else every run lays out its
 * dicts differently and the runs' CPU times spread */
static const struct malloc_param p_py = { "python3", argv_py, NULL, "tests/malloc/workload.py",
					  "/usr/bin/python3", "1152", "PYTHONHASHSEED=0", NULL };
static const struct malloc_param p_sqlite = { "sqlite3", argv_sqlite, "tests/malloc/gen-db.sql",
					      "tests/malloc/gen-db.sql", NULL, "4608,13824", NULL, NULL };
/* zlib's inflate state (7 KiB class) and its 32 KiB window, per object read */
static const struct malloc_param p_git = { "git", argv_git, NULL, ".git", NULL, "7168,32768",
					   NULL, GIT_PIN };

static const struct sp_bench_case malloc_cases[] = {
	{ "gcc", &p_gcc, 0 },
	{ "python3", &p_py, 0 },
	{ "sqlite3", &p_sqlite, 0 },
	{ "git", &p_git, 0 },
};

/* Names repeated as literals: an initializer must be a constant expression (clang rejects
 * malloc_vars[i].name); keep them in the order and spelling of malloc_vars[]. */
#define V(i, n) { n, setup_##i, run_var, teardown_var }
static const struct sp_bench_variant malloc_variants[] = {
	V(0, "glibc"), V(1, "glibc-perturb"), V(2, "mimalloc"), V(3, "jemalloc"), V(4, "secpath"),
	V(5, "secpath-alloc"), V(6, "secpath-free"), V(7, "secpath-free-optout"),
};

const struct sp_bench_suite bench_suite_malloc = {
	.name = "malloc",
	.desc = "real programs (one op = one command run) under glibc, mimalloc, jemalloc and "
		"libsecpath-malloc.so (LD_PRELOAD), init off / on alloc / on free",
	.unit = "run",
	.cases = malloc_cases,
	.ncases = sizeof(malloc_cases) / sizeof(malloc_cases[0]),
	.variants = malloc_variants,
	.nvariants = sizeof(malloc_variants) / sizeof(malloc_variants[0]),
	.fixed_ops = 1,
	.context = malloc_context,
	.flags = SP_BENCH_CG_CHILDREN,
};
