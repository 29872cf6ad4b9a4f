/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_policy_search.c - `secpath policy search` against setools (Debian package setools, the
 * library behind sesearch) on random queries over real policies: an embedded Python script draws
 * queries from random rules (source/target as the rule's type or attribute, a member type, or
 * direct -ds/-dt; class and permission filters with -ep/-Sp; -b/-eb booleans; -D defaults;
 * every rule kind) and prints setools'
 * TERuleQuery results, which is exactly what sesearch prints; the test runs the secpath binary
 * of its own build variant with the same arguments and compares the sorted lines.
 * Skipped with a message when /usr/bin/python3 cannot import setools.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/test_policy_util.h"

static const char script[] =
	"import random, sys, setools\n"
	"pol = setools.SELinuxPolicy(sys.argv[1])\n"
	"n = int(sys.argv[2]); rnd = random.Random(int(sys.argv[3]))\n"
	"kinds = [(['-A'], ['allow', 'allowxperm']), (['--allow'], ['allow']),\n"
	"         (['--dontaudit'], ['dontaudit']), (['--auditallow'], ['auditallow']),\n"
	"         (['-T'], ['type_transition']), (['--type_change'], ['type_change']),\n"
	"         (['--type_member'], ['type_member']),\n"
	"         (['--allow', '--dontaudit'], ['allow', 'dontaudit']),\n"
	"         (['--auditallowxperm'], ['auditallowxperm']),\n"
	"         (['--dontauditxperm'], ['dontauditxperm'])]\n"
	"rules = list(pol.terules())\n"
	"allbools = list(pol.bools()) or ['']\n"
	"def pick(x):\n"
	"    r = rnd.random()\n"
	"    if r < 0.4 or not isinstance(x, setools.policyrep.TypeAttribute):\n"
	"        return str(x)\n"
	"    mem = sorted(str(t) for t in x.expand())\n"
	"    return rnd.choice(mem) if mem else str(x)\n"
	"for i in range(n):\n"
	"    args, rt = rnd.choice(kinds)\n"
	"    r = rnd.choice(rules)\n"
	"    args = list(args); kw = dict(ruletype=rt)\n"
	"    if rnd.random() < 0.85:\n"
	"        s = pick(r.source); args += ['-s', s]; kw['source'] = s\n"
	"        if rnd.random() < 0.2: args.append('-ds'); kw['source_indirect'] = False\n"
	"    if rnd.random() < 0.6:\n"
	"        t = pick(r.target); args += ['-t', t]; kw['target'] = t\n"
	"        if rnd.random() < 0.2: args.append('-dt'); kw['target_indirect'] = False\n"
	"    if rnd.random() < 0.6:\n"
	"        c = str(r.tclass); args += ['-c', c]; kw['tclass'] = [c]\n"
	"    if rnd.random() < 0.3 and r.ruletype.name in ('allow', 'dontaudit', 'auditallow'):\n"
	"        ps = sorted(r.perms)[:2]; x = rnd.random()\n"
	"        if x < 0.25: ps = sorted(r.perms); args.append('-ep'); kw['perms_equal'] = True\n"
	"        elif x < 0.45: args.append('-Sp'); kw['perms_subset'] = True\n"
	"        args += ['-p', ','.join(ps)]; kw['perms'] = set(ps)\n"
	"    try: cb = sorted(str(b) for b in r.conditional.booleans)\n"
	"    except Exception: cb = []\n"
	"    if (cb and rnd.random() < 0.5) or rnd.random() < 0.05:\n"
	"        bs = cb or [str(rnd.choice(allbools))]\n"
	"        if rnd.random() < 0.4: args.append('-eb'); kw['boolean_equal'] = True\n"
	"        elif len(bs) > 1: bs = rnd.sample(bs, 1 + rnd.randrange(len(bs)))\n"
	"        args += ['-b', ','.join(bs)]; kw['boolean'] = bs\n"
	"    if rnd.random() < 0.3 and r.ruletype.name in ('type_transition', 'type_change', 'type_member'):\n"
	"        d = pick(r.default); args += ['-D', d]; kw['default'] = d\n"
	"    if '-s' not in args and '-t' not in args:\n"
	"        s = str(r.source); args += ['-s', s, '-ds']; kw['source'] = s; kw['source_indirect'] = False\n"
	"    q = setools.TERuleQuery(pol, **kw)\n"
	"    print('Q\\t' + ' '.join(args))\n"
	"    for line in sorted(str(x) for x in q.results()):\n"
	"        print('R\\t' + line)\n";

static int have_setools(void)
{
	return system("/usr/bin/python3 -c 'import setools' >/dev/null 2>&1") == 0;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct lines {
	char **v;
	size_t n, cap;
};

static void lines_add(struct lines *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = strdup(s);
}

static void lines_clear(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

static void secpath_bin(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	char *slash = strrchr(self, '/');
	*slash = 0;	/* out/<variant>/tests */
	snprintf(out, len, "%s/../secpath", self);
	assert_int_equal(access(out, X_OK), 0);
}

static void compare_query(const char *bin, const char *pol, const char *args, struct lines *want,
			  size_t *nonempty)
{
	char cmd[PATH_MAX + 8192 + 128];
	snprintf(cmd, sizeof(cmd), "%s policy search %s %s", bin, args, pol);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	struct lines got = { 0 };
	char buf[8192];
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = 0;
		lines_add(&got, buf);
	}
	assert_int_equal(pclose(f), 0);
	if (got.n)
		qsort(got.v, got.n, sizeof(char *), line_cmp);
	if (want->n)
		qsort(want->v, want->n, sizeof(char *), line_cmp);
	int same = got.n == want->n;
	for (size_t i = 0; same && i < got.n; i++)
		same = !strcmp(got.v[i], want->v[i]);
	if (!same) {
		print_error("query: %s\n", args);
		for (size_t i = 0; i < got.n && i < 5; i++)
			print_error("  got:  %s\n", got.v[i]);
		for (size_t i = 0; i < want->n && i < 5; i++)
			print_error("  want: %s\n", want->v[i]);
		print_error("  (%zu vs %zu lines)\n", got.n, want->n);
	}
	assert_true(same);
	*nonempty += got.n != 0;
	lines_clear(&got);
	free(got.v);
}

static void run(const char *xz, int nq, int seed)
{
	if (!have_setools()) {
		print_message("setools (Debian package setools) not importable by /usr/bin/python3: "
			      "skipping the sesearch comparison\n");
		skip();
	}
	char bin[PATH_MAX + 32];
	secpath_bin(bin, sizeof(bin));
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read(xz, &buf, &len), 0);
	char pol[] = "/tmp/secpath-policy-XXXXXX";
	int fd = mkstemp(pol);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
	char spath[] = "/tmp/secpath-search-XXXXXX";
	fd = mkstemp(spath);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, script, sizeof(script) - 1), (ssize_t)sizeof(script) - 1);
	close(fd);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s %s %d %d", spath, pol, nq, seed);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	struct lines want = { 0 };
	char line[8192], args[8192] = "";
	size_t queries = 0, nonempty = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "Q\t", 2)) {
			if (queries++)
				compare_query(bin, pol, args, &want, &nonempty);
			lines_clear(&want);
			snprintf(args, sizeof(args), "%s", line + 2);
		} else if (!strncmp(line, "R\t", 2)) {
			lines_add(&want, line + 2);
		}
	}
	assert_int_equal(pclose(f), 0);
	if (queries)
		compare_query(bin, pol, args, &want, &nonempty);
	lines_clear(&want);
	free(want.v);
	unlink(pol);
	unlink(spath);
	assert_int_equal(queries, (size_t)nq);
	assert_true(nonempty >= queries / 4);	/* the kinds are drawn independently of the rule */
}

static void test_policy_search__tiny(void **st)
{
	(void)st;
	run("tests/data/policy/tiny.33", 60, 3);
}

static void test_policy_search__base_only(void **st)
{
	(void)st;
	run("data/policy/debian-base-only.policy.33.xz", 150, 1);
}

static void test_policy_search__debian_default(void **st)
{
	(void)st;
	run("data/policy/debian-default.policy.33.xz", 12, 2);
}

/* The other commands as a user runs them: output, exit codes, diagnostics. */
static int run_cli(const char *bin, const char *args, char *out, size_t len)
{
	char cmd[PATH_MAX + 512];
	snprintf(cmd, sizeof(cmd), "%s policy %s 2>&1", bin, args);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t n = fread(out, 1, len - 1, f);
	out[n] = 0;
	int st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_policy_cli__info_decide(void **st)
{
	(void)st;
	char bin[PATH_MAX + 32], out[8192];
	secpath_bin(bin, sizeof(bin));
	assert_int_equal(run_cli(bin, "info --json tests/data/policy/tiny.33", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\"version\": 33"));
	assert_non_null(strstr(out, "\"te_rules\": 31"));
	assert_int_equal(run_cli(bin, "info data/policy/debian-base-only.policy.33.xz", out,
				 sizeof(out)), 0);
	assert_non_null(strstr(out, "Policy Version:             33 (MLS enabled)"));
	assert_int_equal(run_cli(bin, "decide tests/data/policy/tiny.33 app_t etc_t file read write",
				 out, sizeof(out)), 1);	/* write is denied */
	assert_non_null(strstr(out, "read: granted"));
	assert_non_null(strstr(out, "write: denied"));
	assert_int_equal(run_cli(bin, "decide --bool allow_app_write=1 tests/data/policy/tiny.33 "
				      "app_t etc_t file write", out, sizeof(out)), 0);
	assert_int_equal(run_cli(bin, "decide --json --layout chained tests/data/policy/tiny.33 "
				      "untrusted_t etc_t file", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "\"permissive\": true"));
	assert_non_null(strstr(out, "\"dontaudit\": [\"write\", \"setattr\"]"));
	assert_int_equal(run_cli(bin, "search -T -s app_t -t tmp_t tests/data/policy/tiny.33", out,
				 sizeof(out)), 0);
	assert_non_null(strstr(out, "type_transition app_t tmp_t:file app_conf_t app.conf;"));
	assert_non_null(strstr(out, "type_transition app_t tmp_t:file app_tmp_t;"));
	assert_int_equal(run_cli(bin, "search --allow -s app_t -t tty_t -c chr_file tests/data/policy/tiny.33",
				 out, sizeof(out)), 0);
	assert_non_null(strstr(out, "allow app_t tty_t:chr_file { append getattr }; "
				    "[ ! secure_mode && allow_app_tty ]:True"));
	assert_int_equal(run_cli(bin, "info tests/data/policy/tiny.conf", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "tiny.conf:+0x0: error: header: bad magic"));
	assert_int_equal(run_cli(bin, "decide tests/data/policy/tiny.33 app_t", out, sizeof(out)), 2);
	assert_int_equal(run_cli(bin, "info --help", out, sizeof(out)), 0);
	assert_int_equal(run_cli(bin, "nosuch", out, sizeof(out)), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_cli__info_decide),
		cmocka_unit_test(test_policy_search__tiny),
		cmocka_unit_test(test_policy_search__base_only),
		cmocka_unit_test(test_policy_search__debian_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
