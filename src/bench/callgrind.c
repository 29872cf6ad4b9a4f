/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * callgrind.c - the deterministic backend: re-run one case of a suite under
 *   valgrind --tool=callgrind --cache-sim=yes --D1=S,A,L --I1=32768,8,64 --LL=2097152,16,64
 * and read exact instructions and L1D misses per op of each variant's measured region.
 *
 * Method (validated in docs/slab-and-measurement.md section 3b; valgrind 3.19 has no cachegrind
 * start/stop requests): the child (the same program, argv prefix + SUITE --case NAME --cg-child)
 * warms each variant up with instrumentation on, then brackets one run with CALLGRIND_ZERO_STATS
 * and CALLGRIND_DUMP_STATS_AT("sp:<variant>:<ops>").  Each dump is a file <out>.<k> whose
 * "summary:" line holds the event totals of that region; events missing at the end of the line
 * are zero (callgrind drops trailing zeros).  The child's own output goes to /dev/null, valgrind's
 * log to <dir>/valgrind.log, kept (and named in the report) only when the run failed.
 * A suite whose ops run programs (SP_BENCH_CG_CHILDREN) is traced into its children instead: each
 * process writes one file cg.<tag>.<pid>, the tag (BENCH_CG_TAG_ENV, expanded by valgrind's %q)
 * naming the variant whose measured run started it, and a variant's counts are the sum of its
 * files' totals; no warm-up (fixed_ops suites have none).
 */
#include <dirent.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "secpath/secpath.h"
#include "base/compiler.h"
#include "bench/bench_int.h"

static const char *line_value(const char *line, size_t n, const char *key)
{
	size_t k = strlen(key);
	return n >= k && !memcmp(line, key, k) ? line + k : NULL;
}

int bench_cg_parse(const char *text, size_t len, struct bench_cg_dump *d)
{
	char events[32][8];
	int nev = 0, have_summary = 0, have_totals = 0;
	uint64_t sum[32] = { 0 }, tot[32] = { 0 };
	const char *p = text, *end = text + len;

	memset(d, 0, sizeof(*d));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *v;
		if ((v = line_value(p, n, "events:"))) {
			nev = 0;
			const char *q = v, *e = p + n;
			while (q < e && nev < 32) {
				while (q < e && *q == ' ')
					q++;
				size_t w = 0;
				while (q + w < e && q[w] != ' ')
					w++;
				if (!w)
					break;
				snprintf(events[nev], sizeof(events[nev]), "%.*s", (int)w, q);
				nev++;
				q += w;
			}
		} else if ((v = line_value(p, n, "summary:")) ||
			   (v = line_value(p, n, "totals:"))) {
			int is_sum = p[0] == 's';
			uint64_t *dst = is_sum ? sum : tot;
			const char *q = v, *e = p + n;
			for (int i = 0; i < 32 && q < e; i++) {
				while (q < e && *q == ' ')
					q++;
				if (q >= e)
					break;
				if (*q < '0' || *q > '9')
					return -EINVAL;
				uint64_t x = 0;
				while (q < e && *q >= '0' && *q <= '9')
					x = x * 10 + (uint64_t)(*q++ - '0');
				dst[i] = x;
			}
			if (is_sum)
				have_summary = 1;
			else
				have_totals = 1;
		} else if ((v = line_value(p, n, "desc: Trigger: Client Request: "))) {
			snprintf(d->trigger, sizeof(d->trigger), "%.*s", (int)(p + n - v), v);
		} else if ((v = line_value(p, n, "desc: Trigger: "))) {
			snprintf(d->trigger, sizeof(d->trigger), "%.*s", (int)(p + n - v), v);
		}
		p += n + 1;
	}
	if (!nev || (!have_summary && !have_totals))
		return -EINVAL;
	const uint64_t *src = have_summary ? sum : tot;
	for (int i = 0; i < nev; i++) {
		if (!strcmp(events[i], "Ir"))
			d->ir = src[i];
		else if (!strcmp(events[i], "Dr"))
			d->dr = src[i];
		else if (!strcmp(events[i], "Dw"))
			d->dw = src[i];
		else if (!strcmp(events[i], "D1mr"))
			d->d1mr = src[i];
		else if (!strcmp(events[i], "D1mw"))
			d->d1mw = src[i];
	}
	d->has_summary = 1;
	return 0;
}

static int read_sysfs_ulong(const char *path, unsigned long *v, int allow_k)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	int ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -ENOENT;
	char *e;
	*v = strtoul(buf, &e, 10);
	if (e == buf)
		return -EINVAL;
	if (allow_k && (*e == 'K' || *e == 'k'))
		*v *= 1024;
	else if (allow_k && *e == 'M')
		*v *= 1024 * 1024;
	return 0;
}

/* The host's level-1 data cache from sysfs (index0, or the first "Data" index). */
static int host_geometry(unsigned long *size, unsigned long *ways, unsigned long *line)
{
	for (int i = 0; i < 4; i++) {
		char path[128], type[32] = "";
		unsigned long level = 0;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (read_sysfs_ulong(path, &level, 0))
			return -ENOENT;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		FILE *f = fopen(path, "r");
		if (f) {
			if (!fgets(type, sizeof(type), f))
				type[0] = 0;
			fclose(f);
		}
		if (level != 1 || strncmp(type, "Data", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (read_sysfs_ulong(path, size, 1))
			return -ENOENT;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/ways_of_associativity", i);
		if (read_sysfs_ulong(path, ways, 0))
			return -ENOENT;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
		if (read_sysfs_ulong(path, line, 0))
			return -ENOENT;
		return 0;
	}
	return -ENOENT;
}

/* The L1D from CPUID when sysfs has no cache description (VMs): the deterministic cache
 * parameters (leaf 4 on Intel, 0x8000001D on AMD with TOPOEXT), else AMD's L1 leaf
 * 0x80000005.  0 or -ENOENT. */
static int cpuid_geometry(unsigned long *size, unsigned long *ways, unsigned long *line)
{
#if defined(__x86_64__) || defined(__i386__)
	static const unsigned leaves[] = { 4, 0x8000001du };
	unsigned a, b, c, d;
	for (size_t k = 0; k < sizeof(leaves) / sizeof(leaves[0]); k++) {
		for (unsigned i = 0; i < 8; i++) {
			if (!__get_cpuid_count(leaves[k], i, &a, &b, &c, &d) || !(a & 31))
				break;
			if ((a & 31) != 1 || ((a >> 5) & 7) != 1)
				continue;	/* not the level-1 data cache */
			*line = (b & 0xfff) + 1;
			*ways = ((b >> 22) & 0x3ff) + 1;
			*size = *ways * (((b >> 12) & 0x3ff) + 1) * *line * ((unsigned long)c + 1);
			return 0;
		}
	}
	unsigned max = __get_cpuid_max(0x80000000u, NULL);
	if (max >= 0x80000005u && __get_cpuid(0x80000005u, &a, &b, &c, &d) && (c >> 24) &&
	    ((c >> 16) & 0xff) && ((c >> 16) & 0xff) != 0xff && (c & 0xff)) {
		*size = (unsigned long)(c >> 24) * 1024;
		*ways = (c >> 16) & 0xff;
		*line = c & 0xff;
		return 0;
	}
#endif
	(void)size, (void)ways, (void)line;
	return -ENOENT;
}

int bench_cg_geometry(const char *spec, char *buf, size_t len, const char **source)
{
	unsigned long s, a, l;
	if (source)
		*source = "given";
	if (!spec || !strcmp(spec, "host")) {
		if (!host_geometry(&s, &a, &l)) {
			if (source)
				*source = "sysfs";
		} else if (!cpuid_geometry(&s, &a, &l)) {
			if (source)
				*source = "CPUID (sysfs has no cache description)";
		} else {
			s = 49152, a = 12, l = 64;
			if (source)
				*source = "assumed 48k12 (neither sysfs nor CPUID describes the L1D)";
		}
	} else if (!strcmp(spec, "32k8")) {
		s = 32768, a = 8, l = 64;
	} else if (!strcmp(spec, "48k12")) {
		s = 49152, a = 12, l = 64;
	} else {
		char tail;
		if (sscanf(spec, "%lu,%lu,%lu%c", &s, &a, &l, &tail) != 3)
			return -EINVAL;
	}
	/* valgrind's own rule: power-of-two line size and set count. */
	if (!a || !l || !SP_IS_POW2(l) || s % (a * l) || !SP_IS_POW2(s / (a * l)))
		return -EINVAL;
	snprintf(buf, len, "%lu,%lu,%lu", s, a, l);
	return 0;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

/*
 * SP_BENCH_CG_CHILDREN: add up, per variant, the final totals of the processes its measured run
 * started (files cg.<variant>.<pid>; the bench process's own are cg.main.*, the teardown's
 * cg.none.*).  The run was of o->cg_ops ops (else the suite's fixed_ops, else 1000, as
 * run_case_cg_child).  Returns the number of variants filled.
 */
static int sum_children(const struct sp_bench_suite *s, const char *dir,
			const struct sp_bench_opts *o, struct bench_case_res *res)
{
	uint64_t ops = o->cg_ops ? o->cg_ops : s->fixed_ops ? s->fixed_ops : 1000;
	int found = 0;
	for (size_t vi = 0; vi < s->nvariants; vi++) {
		char prefix[32];
		int n = snprintf(prefix, sizeof(prefix), "cg.%zu.", vi);
		uint64_t ir = 0, d1 = 0;
		int procs = 0, bad = 0;
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (strncmp(e->d_name, prefix, (size_t)n))
				continue;
			char path[512], *text = NULL;
			size_t len = 0;
			struct bench_cg_dump dump;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (sp_file_read(path, &text, &len)) {
				bad = 1;
				continue;
			}
			if (bench_cg_parse(text, len, &dump))
				bad = 1;	/* a process killed before its dump */
			else
				ir += dump.ir, d1 += dump.d1mr + dump.d1mw, procs++;
			free(text);
		}
		if (d)
			closedir(d);
		if (!procs || bad)
			continue;
		struct bench_var_res *vr = &res->vr[vi];
		vr->cg_ir = (double)ir / (double)ops;
		vr->cg_d1 = (double)d1 / (double)ops;
		vr->cg_ops = (double)ops;
		found++;
	}
	return found;
}

static const char *const default_reexec[] = { "/proc/self/exe", "bench", NULL };

/* The valgrind command of one case and the buffers its arguments point into. */
struct cg_cmd {
	char dir[32];			/* the run's temporary directory */
	char d1[80], outfile[160], logpath[160], opsbuf[32];
	char self[4096];		/* this program's real path */
	const char *argv[64];
	int children;			/* SP_BENCH_CG_CHILDREN: one output file per process */
};

/*
 * valgrind's argv for case ci of s: the tool options, then this program (or o->reexec_argv)
 * with SUITE --case NAME --cg-child [--cg-ops N].  0, or -ENOENT when /proc/self/exe cannot be
 * resolved (valgrind must be given the real path: in the child, /proc/self/exe is valgrind).
 */
static int cg_argv(struct cg_cmd *c, const struct sp_bench_suite *s, size_t ci,
		   const struct sp_bench_opts *o, const char *geom)
{
	int n = 0;
	snprintf(c->d1, sizeof(c->d1), "--D1=%s", geom);
	c->children = (s->flags & SP_BENCH_CG_CHILDREN) != 0;
	if (c->children)	/* one file per traced process, named after its variant */
		snprintf(c->outfile, sizeof(c->outfile), "--callgrind-out-file=%s/cg.%%q{%s}.%%p",
			 c->dir, BENCH_CG_TAG_ENV);
	else
		snprintf(c->outfile, sizeof(c->outfile), "--callgrind-out-file=%s/cg.out", c->dir);
	snprintf(c->logpath, sizeof(c->logpath), "%s/valgrind.log", c->dir);
	c->argv[n++] = "valgrind";
	c->argv[n++] = "--tool=callgrind";
	c->argv[n++] = "--cache-sim=yes";
	c->argv[n++] = c->d1;
	c->argv[n++] = "--I1=32768,8,64";
	c->argv[n++] = "--LL=2097152,16,64";
	c->argv[n++] = c->outfile;
	if (c->children)
		c->argv[n++] = "--trace-children=yes";
	const char *const *a = o->reexec_argv ? o->reexec_argv : default_reexec;
	if (*a && !strcmp(*a, "/proc/self/exe")) {
		ssize_t k = readlink("/proc/self/exe", c->self, sizeof(c->self) - 1);
		if (k <= 0)
			return -ENOENT;
		c->self[k] = 0;
		c->argv[n++] = c->self;
		a++;
	}
	for (; *a && n < 50; a++)
		c->argv[n++] = *a;
	c->argv[n++] = s->name;
	c->argv[n++] = "--case";
	c->argv[n++] = s->cases[ci].name;
	c->argv[n++] = "--cg-child";
	if (o->cg_ops) {
		snprintf(c->opsbuf, sizeof(c->opsbuf), "%llu", (unsigned long long)o->cg_ops);
		c->argv[n++] = "--cg-ops";
		c->argv[n++] = c->opsbuf;
	}
	c->argv[n] = NULL;
	return 0;
}

/* Run the command: its stdout to /dev/null, valgrind's log to logpath.  0, or -errno with
 * res->cg_err set and the directory removed, except after a failed run (its log is named). */
static int cg_spawn(const struct cg_cmd *c, const struct sp_bench_opts *o,
		    struct bench_case_res *res)
{
	static char errbuf[600];
	if (o->out)
		fflush(o->out);
	if (o->progress)
		fflush(o->progress);
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		remove_dir(c->dir);
		res->cg_err = "fork failed";
		return e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		int log = open(c->logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (null >= 0)
			dup2(null, 1);
		if (log >= 0)
			dup2(log, 2);
		if (c->children)
			setenv(BENCH_CG_TAG_ENV, "main", 1);
		execvp(c->argv[0], (char *const *)c->argv);
		_exit(127);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		remove_dir(c->dir);
		res->cg_err = "cannot run valgrind (install the valgrind package)";
		return -ENOENT;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(errbuf, sizeof(errbuf), "valgrind run failed (%s %d), see %s",
			 WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), c->logpath);
		res->cg_err = errbuf;
		return -EIO;
	}
	return 0;
}

/* The dumps cg.out.1, cg.out.2, ... of a child bracketing each variant's run ("sp:<vi>:<ops>"
 * triggers).  Returns the number of variants filled. */
static int read_dumps(const struct sp_bench_suite *s, const char *dir, struct bench_case_res *res)
{
	int found = 0;
	for (int k = 1; k < 1000; k++) {
		char path[200], *text = NULL;
		size_t len = 0;
		struct bench_cg_dump dump;
		unsigned vi;
		unsigned long long ops;
		snprintf(path, sizeof(path), "%s/cg.out.%d", dir, k);
		if (sp_file_read(path, &text, &len))
			break;
		int rc = bench_cg_parse(text, len, &dump);
		free(text);
		if (rc || sscanf(dump.trigger, "sp:%u:%llu", &vi, &ops) != 2 ||
		    vi >= s->nvariants || !ops)
			continue;
		struct bench_var_res *vr = &res->vr[vi];
		vr->cg_ir = (double)dump.ir / (double)ops;
		vr->cg_d1 = (double)(dump.d1mr + dump.d1mw) / (double)ops;
		vr->cg_ops = (double)ops;
		found++;
	}
	return found;
}

int bench_cg_run_case(const struct sp_bench_suite *s, size_t ci, const struct sp_bench_opts *o,
		      const char *geom, struct bench_case_res *res)
{
	struct cg_cmd c = { .dir = "/tmp/secpath-cg.XXXXXX" };

	if (SP_HAVE_ASAN) {
		res->cg_err = "not available in an ASan build";
		return -ENOTSUP;
	}
	if (!mkdtemp(c.dir)) {
		res->cg_err = "cannot create a temporary directory";
		return -errno;
	}
	int err = cg_argv(&c, s, ci, o, geom);
	if (err) {
		remove_dir(c.dir);
		res->cg_err = "cannot resolve /proc/self/exe";
		return err;
	}
	err = cg_spawn(&c, o, res);
	if (err)
		return err;
	int found = c.children ? sum_children(s, c.dir, o, res) : read_dumps(s, c.dir, res);
	remove_dir(c.dir);
	if (!found) {
		res->cg_err = "no callgrind dumps found";
		return -ENOENT;
	}
	return 0;
}
