/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_setools.c - the `setools` bench suite: `secpath policy search|info|diff` beside
 * sesearch, seinfo and sediff (setools 4.4) on Debian's default policy, process against
 * process: one op is one command, fork+exec, its output to /dev/null.
 *
 * Cases are queries a policy developer runs: every allow rule (-A), the allow rules of one
 * source type on one class, every type_transition (-T), the seinfo statistics, the symbol
 * sections of a diff of the default policy against Debian's base-only one, and of the same
 * pair the largest TE section sediff diffs in seconds (dontaudit: 675,581 lines).  Before a case is
 * timed, both commands run once and must print the same number of lines (the outputs
 * themselves are compared by the test groups: tests/cli/test-sediff.sh, test_policy_search,
 * test_policy_seinfo); a count that differs skips the variant with a message.
 * The secpath variant runs the binary the bench runs in (/proc/self/exe), so it measures the
 * installed tool when run from it.  The policies are decompressed once per process into
 * temporary files, removed at exit.  Without setools (apt-get install setools) the suite's
 * variants are skipped.  sediff's --allow over these policies takes minutes and gigabytes
 * (docs/DESIGN.md): it is not a case.  The `cat` variant reads the case's policies to
 * /dev/null: the floor of a command that must read its input (#22: a policy command within 2x
 * of it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "secpath/bench.h"
#include "bench/suites.h"

#define MAXARGS 12

struct scase {
	const char *tool, *sub;	/* sesearch, search */
	const char *args[MAXARGS];	/* "@A", "@B": the two policies' paths */
};

static const struct scase scases[] = {
	{ "sesearch", "search", { "-A", "@A" } },
	{ "sesearch", "search", { "-A", "-s", "init_t", "-c", "file", "@A" } },
	{ "sesearch", "search", { "-T", "@A" } },
	{ "seinfo", "info", { "@A" } },
	{ "sediff", "diff", { "--class", "--type", "--attribute", "--role", "--user", "--bool",
			      "@A", "@B" } },
	{ "sediff", "diff", { "--dontaudit", "@A", "@B" } },
};

static char paths[2][64];	/* the decompressed policies ("" until made) */

static void remove_policies(void)
{
	for (int i = 0; i < 2; i++)
		if (paths[i][0])
			unlink(paths[i]);
}

/* data/policy/NAME.policy.33.xz decompressed into a temporary file named in out. */
static int unpack(const char *name, char out[64])
{
	char rel[128], src[600];
	snprintf(rel, sizeof(rel), "policy/%s.policy.33.xz", name);
	if (bench_data_file(rel, src, sizeof(src)))
		return -ENOENT;
	snprintf(out, 64, "/tmp/secpath-setools-XXXXXX");
	int fd = mkstemp(out);
	if (fd < 0)
		return -errno;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		execlp("xz", "xz", "-dc", src, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	close(fd);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		unlink(out);
		out[0] = 0;
		fprintf(stderr, "bench setools: xz -dc %s failed\n", src);
		return -EIO;
	}
	return 0;
}

static int policies_once(void)
{
	static int done, err;
	if (done)
		return err;
	done = 1;
	atexit(remove_policies);
	err = unpack("debian-default", paths[0]);
	if (!err)
		err = unpack("debian-base-only", paths[1]);
	return err;
}

/* One command of a case: the program and its argv. */
struct cmd {
	char prog[512];
	char *argv[MAXARGS + 4];
};

/* The setools tool on PATH (as its user runs it), or -ENOENT. */
static int find_tool(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s", path && *path ? path : "/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, name);
		if (!access(out, X_OK))
			return 0;
	}
	fprintf(stderr, "bench setools: %s not found on PATH (apt-get install setools): variant "
		"skipped\n", name);
	return -ENOENT;
}

enum who { SETOOLS, SECPATH, CAT };

static int cmd_build(const struct scase *c, enum who who, struct cmd *m)
{
	int n = 0, rc = policies_once();
	if (rc)
		return rc;
	if (who == SECPATH) {
		ssize_t k = readlink("/proc/self/exe", m->prog, sizeof(m->prog) - 1);
		if (k <= 0)
			return -ENOENT;
		m->prog[k] = 0;
		m->argv[n++] = m->prog;
		m->argv[n++] = (char *)"policy";
		m->argv[n++] = (char *)c->sub;
	} else {
		if ((rc = find_tool(who == CAT ? "cat" : c->tool, m->prog, sizeof(m->prog))))
			return rc;
		m->argv[n++] = m->prog;
	}
	for (int i = 0; i < MAXARGS && c->args[i]; i++) {
		const char *a = c->args[i];
		char *path = !strcmp(a, "@A") ? paths[0] : !strcmp(a, "@B") ? paths[1] : NULL;
		if (path || who != CAT)
			m->argv[n++] = path ? path : (char *)a;
	}
	m->argv[n] = NULL;
	return 0;
}

/* Run m with its output to fd; the exit status, or -1. */
static int cmd_exec(const struct cmd *m, int fd)
{
	pid_t pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);
		dup2(fd >= 0 ? fd : nul, 1);
		dup2(nul, 2);
		execv(m->prog, m->argv);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The lines m prints, or -1 when it fails. */
static long cmd_lines(const struct cmd *m)
{
	FILE *f = tmpfile();
	if (!f)
		return -1;
	long n = cmd_exec(m, fileno(f)) ? -1 : 0;
	rewind(f);
	for (int ch; n >= 0 && (ch = getc(f)) != EOF;)
		n += ch == '\n';
	fclose(f);
	return n;
}

static int setup(const void *param, void **state, enum who who)
{
	const struct scase *c = param;
	struct cmd *m = calloc(1, sizeof(*m)), other;
	int rc = m ? cmd_build(c, who, m) : -ENOMEM;
	if (!rc && who == SECPATH && !(rc = cmd_build(c, SETOOLS, &other))) {
		long mine = cmd_lines(m), theirs = cmd_lines(&other);
		if (mine < 0 || mine != theirs) {
			fprintf(stderr, "bench setools: secpath policy %s printed %ld lines, %s %ld: "
				"variant skipped\n", c->sub, mine, c->tool, theirs);
			rc = -EPROTO;
		}
	}
	if (rc) {
		free(m);
		return rc;
	}
	*state = m;
	return 0;
}

static int setup_setools(const void *p, void **st) { return setup(p, st, SETOOLS); }
static int setup_secpath(const void *p, void **st) { return setup(p, st, SECPATH); }
static int setup_cat(const void *p, void **st) { return setup(p, st, CAT); }

static void run(void *state, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (cmd_exec(state, -1))
			abort();	/* a command that worked in the setup fails: no figure */
}

static void teardown(void *state)
{
	free(state);
}

static const struct sp_bench_case cases[] = {
	{ "search-A", &scases[0], 0 },
	{ "search-A-init_t-file", &scases[1], 0 },
	{ "search-T", &scases[2], 0 },
	{ "info", &scases[3], 0 },
	{ "diff-symbols", &scases[4], 0 },
	{ "diff-dontaudit", &scases[5], 0 },
};

static const struct sp_bench_variant variants[] = {
	{ "setools", setup_setools, run, teardown },
	{ "secpath", setup_secpath, run, teardown },
	{ "cat", setup_cat, run, teardown },
};

const struct sp_bench_suite bench_suite_setools = {
	.name = "setools",
	.desc = "policy search, info and diff beside sesearch, seinfo and sediff (one command)",
	.unit = "command",
	.cases = cases,
	.ncases = sizeof(cases) / sizeof(cases[0]),
	.variants = variants,
	.nvariants = 3,
	.fixed_ops = 1,
	.context = "Debian's default policy (diff: against its base-only policy); each op is "
		   "one process, fork+exec included (setools' Python start-up is part of its "
		   "cost, as a user meets it); goals: >= 10x on every query, >= 100x for -A and "
		   "for diff; `cat` reads the case's policies to /dev/null (the floor of reading them; "
		   "goal for a policy command: within 2x of it)",
	.flags = SP_BENCH_NOT_DEFAULT | SP_BENCH_CG_CHILDREN,
};
