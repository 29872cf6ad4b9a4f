/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_policy_seinfo.c - `secpath policy info` against seinfo (Debian package setools 4.4) on
 * every policy the project carries: tiny, the compat versions, the upstream test policies and
 * Debian's four.  For each, seinfo's standard output and secpath's are the same lines, byte for
 * byte (seinfo's warnings go to stderr and are not compared), and the "seinfo" object of
 * `policy info --json` holds setools' own SELinuxPolicy *_count properties, read by an embedded
 * Python script; and seinfo's listings (-t -a -r -u -b -c --common --polcap --permissive
 * --sensitivity --category --fs_use --genfscon --initialsid --netifcon --portcon, with and
 * without -x) are secpath's, line for line.  seinfo crashes on policies before version 24 (setools rebuilds attributes from
 * a map those versions lack): such a policy is counted as skipped, and secpath must still print
 * its statistics.  Skipped with a message when there is no seinfo or setools.
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

#include "../support/command.h"
#include "../support/files.h"
#include "../unit/test_policy_util.h"

/* argv: secpath binary, policies.  Prints "M path property secpath setools" per difference and
 * "N count" at the end: how many properties it compared. */
static const char props[] =
	"import json, subprocess, sys, setools\n"
	"names = ['class_count', 'permission_count', 'level_count', 'category_count',\n"
	"    'type_count', 'type_attribute_count', 'user_count', 'role_count', 'boolean_count',\n"
	"    'conditional_count', 'allow_count', 'neverallow_count', 'auditallow_count',\n"
	"    'dontaudit_count', 'type_transition_count', 'type_change_count', 'type_member_count',\n"
	"    'range_transition_count', 'role_allow_count', 'role_transition_count',\n"
	"    'constraint_count', 'validatetrans_count', 'mlsconstraint_count',\n"
	"    'mlsvalidatetrans_count', 'permissives_count', 'polcap_count', 'default_count',\n"
	"    'typebounds_count', 'allowxperm_count', 'neverallowxperm_count',\n"
	"    'auditallowxperm_count', 'dontauditxperm_count', 'ibendportcon_count',\n"
	"    'ibpkeycon_count', 'initialsids_count', 'fs_use_count', 'genfscon_count',\n"
	"    'portcon_count', 'netifcon_count', 'nodecon_count']\n"
	"n = 0\n"
	"for path in sys.argv[2:]:\n"
	"    pol = setools.SELinuxPolicy(path)\n"
	"    out = subprocess.run([sys.argv[1], 'policy', 'info', '--json', path],\n"
	"                         check=True, capture_output=True).stdout\n"
	"    got = json.loads(out)['seinfo']\n"
	"    for k in names:\n"
	"        n += 1\n"
	"        if got.get(k) != getattr(pol, k):\n"
	"            print('M', path, k, got.get(k), getattr(pol, k))\n"
	"    if got.get('target_platform') != str(pol.target_platform):\n"
	"        print('M', path, 'target_platform', got.get('target_platform'))\n"
	"print('N', n)\n";

struct lines {
	char **v;
	size_t n, cap;
};

static void lines_add(struct lines *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	l->v[l->n++] = strdup(s);
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	*l = (struct lines){ 0 };
}

/* The lines a command prints on stdout, in order (tsupport_command_lines); its exit status. */
static void add_line(void *ud, const char *line)
{
	lines_add(ud, line);
}

static int command_lines(const char *cmd, struct lines *out)
{
	return tsupport_command_lines(cmd, add_line, out);
}

static void assert_same_lines(const char *what, const struct lines *got, const struct lines *want)
{
	size_t i = 0;
	while (i < got->n && i < want->n && !strcmp(got->v[i], want->v[i]))
		i++;
	if (i < got->n || i < want->n) {
		print_error("%s: line %zu differs (%zu vs %zu lines)\n", what, i + 1, got->n,
			    want->n);
		if (i < got->n)
			print_error("  got:  %s\n", got->v[i]);
		if (i < want->n)
			print_error("  want: %s\n", want->v[i]);
	}
	assert_true(i == got->n && i == want->n);
}

static void secpath_bin(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	*strrchr(self, '/') = 0;	/* out/<variant>/tests */
	snprintf(out, len, "%s/../secpath", self);
	assert_int_equal(access(out, X_OK), 0);
}

/* SECPATH_ORACLE_EVERY=N (CI's sanitizer runs): every Nth policy only; else all. */
static size_t oracle_every(void)
{
	const char *e = getenv("SECPATH_ORACLE_EVERY");
	long n = e ? strtol(e, NULL, 10) : 1;
	return n > 0 ? (size_t)n : 1;
}

static int have_seinfo(void)
{
	return system("seinfo --version >/dev/null 2>&1") == 0 &&
	       system("/usr/bin/python3 -c 'import setools' >/dev/null 2>&1") == 0;
}

/* Every carried policy as a plain file seinfo can read: the repository's own paths, and the
 * xz-compressed Debian policies written out to temporary files (tmp[i] = 1: unlink it). */
struct corpus {
	char **paths;
	int *tmp;
	size_t n;
};

static void corpus_add(struct corpus *c, const char *path)
{
	c->paths = realloc(c->paths, (c->n + 1) * sizeof(*c->paths));
	c->tmp = realloc(c->tmp, (c->n + 1) * sizeof(*c->tmp));
	assert_true(c->paths && c->tmp);
	c->tmp[c->n] = strstr(path, ".xz") != NULL;
	if (!c->tmp[c->n]) {
		c->paths[c->n++] = strdup(path);
		return;
	}
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read(path, &buf, &len), 0);
	char name[] = "/tmp/secpath-seinfo-XXXXXX";
	int fd = mkstemp(name);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
	c->paths[c->n++] = strdup(name);
}

static void corpus_load(struct corpus *c)
{
	static const char *const debian[] = {
		"data/policy/debian-base-only.policy.33.xz", "data/policy/debian-default.policy.33.xz",
		"data/policy/debian-default-linkexpand.policy.33.xz",
		"data/policy/debian-mls.policy.33.xz",
	};
	char path[64];
	*c = (struct corpus){ 0 };
	for (int v = 30; v <= 33; v++) {
		snprintf(path, sizeof(path), "tests/data/policy/tiny.%d", v);
		corpus_add(c, path);
	}
	for (int v = 15; v <= 33; v++) {
		snprintf(path, sizeof(path), "tests/data/policy/compat.%d", v);
		corpus_add(c, path);
	}
	size_t n;
	char **up = tsupport_upstream_policies(&n);
	assert_non_null(up);
	for (size_t i = 0; i < n; i++)
		corpus_add(c, up[i]);
	tsupport_paths_free(up);
	for (size_t i = 0; i < sizeof(debian) / sizeof(debian[0]); i++)
		corpus_add(c, debian[i]);
}

static void corpus_free(struct corpus *c)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->tmp[i])
			unlink(c->paths[i]);
		free(c->paths[i]);
	}
	free(c->paths);
	free(c->tmp);
}

/* seinfo ARGS POLICY and secpath policy info ARGS POLICY: the same lines.  Returns 1 compared,
 * 0 skipped (seinfo failed; secpath must still succeed). */
static int compare_seinfo(const char *bin, const char *args, const char *pol)
{
	char cmd[2 * PATH_MAX + 256], what[PATH_MAX + 128];
	struct lines want = { 0 }, got = { 0 };
	snprintf(cmd, sizeof(cmd), "seinfo %s %s 2>/dev/null", pol, args);	/* its -t NAME */
	int st = command_lines(cmd, &want);
	snprintf(cmd, sizeof(cmd), "%s policy info %s %s", bin, args, pol);
	assert_int_equal(command_lines(cmd, &got), 0);
	snprintf(what, sizeof(what), "seinfo %s %s", args, pol);
	if (st == 0)
		assert_same_lines(what, &got, &want);
	lines_free(&want);
	lines_free(&got);
	return st == 0;
}

/* The statistics seinfo prints with no option, on every carried policy. */
static void test_policy_seinfo__statistics(void **st)
{
	(void)st;
	if (!have_seinfo()) {
		print_message("no seinfo or setools (Debian package setools): skipping\n");
		skip();
	}
	char bin[PATH_MAX + 32];
	secpath_bin(bin, sizeof(bin));
	struct corpus c;
	corpus_load(&c);
	size_t same = 0, tried = 0;
	for (size_t i = 0; i < c.n; i += oracle_every(), tried++)
		same += (size_t)compare_seinfo(bin, "", c.paths[i]);
	print_message("seinfo statistics: %zu of %zu policies agree, %zu skipped (seinfo fails)\n",
		      same, tried, tried - same);
	assert_true(same + 9 >= tried);	/* seinfo fails on compat.15..23 only */
	corpus_free(&c);
}

/* seinfo's listings, names and -x statements, every component secpath lists, on every carried
 * policy: one seinfo run per policy and form, its components in its order. */
static void test_policy_seinfo__listings(void **st)
{
	(void)st;
	static const char comps[] = "-t -a -r -u -b -c --common --polcap --permissive "
				    "--sensitivity --category --fs_use --genfscon --initialsid "
				    "--netifcon --portcon";
	if (!have_seinfo()) {
		print_message("no seinfo or setools (Debian package setools): skipping\n");
		skip();
	}
	char bin[PATH_MAX + 32], args[256];
	secpath_bin(bin, sizeof(bin));
	struct corpus c;
	corpus_load(&c);
	size_t same = 0, tried = 0;
	for (size_t i = 0; i < c.n; i += oracle_every(), tried += 2)
		for (int x = 0; x < 2; x++) {
			snprintf(args, sizeof(args), "%s%s", comps, x ? " -x" : "");
			same += (size_t)compare_seinfo(bin, args, c.paths[i]);
		}
	print_message("seinfo listings: %zu of %zu runs agree, %zu skipped (seinfo fails)\n", same,
		      tried, tried - same);
	assert_true(same + 18 >= tried);	/* seinfo fails on compat.15..23 only */
	corpus_free(&c);
}

/* The "seinfo" object of --json against setools' properties, on every carried policy seinfo
 * reads. */
static void test_policy_seinfo__json_properties(void **st)
{
	(void)st;
	if (!have_seinfo()) {
		print_message("no seinfo or setools (Debian package setools): skipping\n");
		skip();
	}
	char bin[PATH_MAX + 32];
	secpath_bin(bin, sizeof(bin));
	char spath[] = "/tmp/secpath-seinfo-py-XXXXXX";
	int fd = mkstemp(spath);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, props, sizeof(props) - 1), (ssize_t)sizeof(props) - 1);
	close(fd);
	struct corpus c;
	corpus_load(&c);
	size_t len = strlen(bin) + strlen(spath) + 64;
	for (size_t i = 0; i < c.n; i += oracle_every())
		len += strlen(c.paths[i]) + 1;
	char *cmd = malloc(len);
	assert_non_null(cmd);
	int o = snprintf(cmd, len, "/usr/bin/python3 %s %s", spath, bin);
	for (size_t i = 0; i < c.n; i += oracle_every())
		if (!strstr(c.paths[i], "compat.") || atoi(strrchr(c.paths[i], '.') + 1) >= 24)
			o += snprintf(cmd + o, len - (size_t)o, " %s", c.paths[i]);
	struct lines out = { 0 };
	assert_int_equal(command_lines(cmd, &out), 0);
	size_t compared = 0;
	for (size_t i = 0; i < out.n; i++) {
		if (!strncmp(out.v[i], "N ", 2))
			compared = strtoul(out.v[i] + 2, NULL, 10);
		else
			print_error("%s\n", out.v[i]);
	}
	assert_int_equal(out.n, 1);	/* no difference line, the count */
	print_message("setools properties: %zu compared\n", compared);
	assert_true(compared >= 40 * 70 / oracle_every());
	lines_free(&out);
	free(cmd);
	unlink(spath);
	corpus_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_seinfo__statistics),
		cmocka_unit_test(test_policy_seinfo__json_properties),
		cmocka_unit_test(test_policy_seinfo__listings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
