/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_policy_seinfo.c - `secpath policy info` against seinfo (Debian package setools 4.4) on
 * every policy the project carries: tiny, the compat versions, the upstream test policies and
 * Debian's four.  For each, seinfo's standard output and secpath's are the same lines, byte for
 * byte (seinfo's warnings go to stderr and are not compared), and the "seinfo" object of
 * `policy info --json` holds setools' own SELinuxPolicy *_count properties, read by an embedded
 * Python script; seinfo's listings (every component option, with and without -x; --all; the
 * Xen options) are secpath's, line for line; and so are its listings of the items a NAME
 * argument selects, with its exit status for the names it refuses (names_py); statements the
 * carried policies lack are added to tiny.conf and compiled by checkpolicy (extra_*).  seinfo
 * crashes on policies before version 24 (setools rebuilds attributes from a map those versions
 * lack): such a policy is counted as skipped, and secpath must still print its statistics.
 * Skipped with a message when there is no seinfo or setools (or, for extra_*, checkpolicy).
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

/* argv: secpath binary, policies.  seinfo's NAME argument: for each policy, two runs naming an
 * item of every component (drawn from setools' view of the policy, aliases among them; the
 * second with -x), one naming none, seinfo's LOW-HIGH portcon form against setools'
 * PortconQuery (seinfo 4.4.1 fails on it), and on the first policy the refusals (a class it
 * lacks, a bad network, a bad port) with seinfo's exit status and message.  Prints "M ..." per
 * difference and "N count" at the end. */
static const char names_py[] =
	"import subprocess, sys, setools\n"
	"bin_, paths = sys.argv[1], sys.argv[2:]\n"
	"def strs(v):\n"
	"    return [str(x) for x in v]\n"
	"def names(pol):\n"
	"    types = list(pol.types())\n"
	"    first = strs(pol.classes())[:1]\n"
	"    sens = list(pol.sensitivities()) if pol.mls else []\n"
	"    cats = list(pol.categories()) if pol.mls else []\n"
	"    ports = [str(x) for p in pol.portcons()\n"
	"             for x in (p.ports.low, (p.ports.low + p.ports.high) // 2)]\n"
	"    cons = list(pol.constraints())\n"
	"    nodes = [n.network for n in pol.nodecons()]\n"
	"    return {\n"
	"        '-t': strs(types) + [a for t in types for a in t.aliases()],\n"
	"        '-a': strs(pol.typeattributes()), '-r': strs(pol.roles()),\n"
	"        '-u': strs(pol.users()), '-b': strs(pol.bools()), '-c': strs(pol.classes()),\n"
	"        '--common': strs(pol.commons()), '--polcap': strs(pol.polcaps()),\n"
	"        '--permissive': strs(t for t in types if t.ispermissive) + strs(types[:1]),\n"
	"        '--sensitivity': strs(sens) + [a for x in sens for a in x.aliases()],\n"
	"        '--category': strs(cats) + [a for x in cats for a in x.aliases()],\n"
	"        '--fs_use': strs(f.fs for f in pol.fs_uses()),\n"
	"        '--genfscon': strs(f.fs for f in pol.genfscons()),\n"
	"        '--initialsid': strs(pol.initialsids()),\n"
	"        '--netifcon': strs(n.netif for n in pol.netifcons()), '--portcon': ports,\n"
	"        '--nodecon': strs(nodes) + strs(n.network_address for n in nodes),\n"
	"        '--constrain': strs(x.tclass for x in cons\n"
	"                            if 'constrain' in x.ruletype.name) + first,\n"
	"        '--validatetrans': strs(x.tclass for x in cons\n"
	"                                if 'validatetrans' in x.ruletype.name) + first,\n"
	"        '--default': strs(d.tclass for d in pol.defaults()) + first,\n"
	"        '--typebounds': strs(b.child for b in pol.bounds()) + strs(types[:1]),\n"
	"        '--ibendportcon': strs(i.name for i in pol.ibendportcons())}\n"
	"n = 0\n"
	"def differ(what, want, got):\n"
	"    print('M', what)\n"
	"    w, g = want.splitlines(), got.splitlines()\n"
	"    for i in range(max(len(w), len(g))):\n"
	"        if w[i:i + 1] != g[i:i + 1]:\n"
	"            print('  want', w[i:i + 1], '\\n  got ', g[i:i + 1])\n"
	"            break\n"
	"def run(path, args, err=None):\n"
	"    global n\n"
	"    n += 1\n"
	"    a = subprocess.run(['seinfo', path] + args, capture_output=True)\n"
	"    b = subprocess.run([bin_, 'policy', 'info'] + args + [path], capture_output=True)\n"
	"    what = 'seinfo %s %s: exit %d, secpath %d' % (path, ' '.join(args), a.returncode,\n"
	"                                                  b.returncode)\n"
	"    if a.returncode != b.returncode or (a.returncode == 0 and a.stdout != b.stdout):\n"
	"        differ(what, a.stdout.decode(), b.stdout.decode())\n"
	"    elif err and (err not in (a.stdout + a.stderr).decode() or\n"
	"                  err not in b.stderr.decode()):\n"
	"        print('M', what, 'no', repr(err))\n"
	"def ranges(path, pol):\n"
	"    \"\"\"portcon LOW-HIGH, which seinfo 4.4.1 fails on, against setools' PortconQuery\"\"\"\n"
	"    global n\n"
	"    for p in list(pol.portcons())[:8]:\n"
	"        n += 1\n"
	"        lo, hi = p.ports.low, p.ports.high\n"
	"        q = setools.PortconQuery(pol, ports_subset=True, ports=setools.PortconRange(lo, hi))\n"
	"        r = sorted(q.results())\n"
	"        want = '\\nPortcon: %d\\n' % len(r) + ''.join('   %s\\n' % x for x in r)\n"
	"        arg = '%d-%d' % (lo, hi)\n"
	"        got = subprocess.run([bin_, 'policy', 'info', '--portcon', arg, path],\n"
	"                             capture_output=True, check=True).stdout.decode()\n"
	"        if got != want:\n"
	"            differ('portcon %s %s' % (arg, path), want, got)\n"
	"refused = ('--constrain', '--validatetrans', '--default', '--portcon', '--nodecon')\n"
	"for i, path in enumerate(paths):\n"
	"    pol = setools.SELinuxPolicy(path)\n"
	"    c = names(pol)\n"
	"    for r in range(2):\n"
	"        args = []\n"
	"        for opt, v in c.items():\n"
	"            v = sorted(set(v))\n"
	"            if v and not v[(r * 7919) % len(v)].startswith('-'):\n"
	"                args += [opt, v[(r * 7919) % len(v)]]\n"
	"        run(path, args + ['-x'] * r)\n"
	"    run(path, [x for opt in c if opt not in refused for x in (opt, 'secpath_no_such')])\n"
	"    ranges(path, pol)\n"
	"    if i == 0:\n"
	"        for opt in refused[:3]:\n"
	"            run(path, [opt, 'secpath_no_such', '-t'], 'secpath_no_such is not a valid class')\n"
	"        run(path, ['--nodecon', 'zz'], 'does not appear to be an IPv4 or IPv6 network')\n"
	"        run(path, ['--nodecon', '127.0.0.1/8'], 'has host bits set')\n"
	"        run(path, ['--portcon', 'abc'])\n"
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

/* In a test: skip it, saying why, without seinfo and setools (skip() leaves the test). */
#define SKIP_WITHOUT_SEINFO()                                                                   \
	do {                                                                                    \
		if (!have_seinfo()) {                                                           \
			print_message("no seinfo or setools (Debian package setools): skipping\n"); \
			skip();                                                                 \
		}                                                                               \
	} while (0)

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

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each "{ A B ... }" group of each line with its names sorted, then the lines sorted: seinfo
 * writes a constraint's name sets in its Python frozenset's order, which changes from run to
 * run with Python's string hashing (and its sort of the constraints with it). */
static void canon_sets(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		char *open = l->v[i];
		while ((open = strstr(open, "{ ")) != NULL) {
			char *close = strstr(open, " }");
			if (!close)
				break;
			size_t len = (size_t)(close - open - 2), n = 0;
			char *copy = strndup(open + 2, len), *names[64], *save = NULL;
			assert_non_null(copy);
			for (char *t = strtok_r(copy, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save))
				names[n++] = t;
			qsort(names, n, sizeof(*names), str_cmp);
			char *w = open + 2;
			for (size_t j = 0; j < n; j++)
				w += sprintf(w, "%s%s", j ? " " : "", names[j]);
			*w = ' ';	/* the same length: names and single spaces */
			free(copy);
			open = close + 2;
		}
	}
	qsort(l->v, l->n, sizeof(*l->v), str_cmp);
}

/* seinfo ARGS POLICY and secpath policy info ARGS POLICY: the same lines (canon: after
 * canon_sets on both).  Returns 1 compared, 0 skipped (seinfo failed; secpath must still
 * succeed). */
static int compare_seinfo(const char *bin, const char *args, const char *pol, int canon)
{
	char cmd[2 * PATH_MAX + 256], what[PATH_MAX + 128];
	struct lines want = { 0 }, got = { 0 };
	snprintf(cmd, sizeof(cmd), "seinfo %s %s 2>/dev/null", pol, args);	/* its -t NAME */
	int st = command_lines(cmd, &want);
	snprintf(cmd, sizeof(cmd), "%s policy info %s %s", bin, args, pol);
	assert_int_equal(command_lines(cmd, &got), 0);
	snprintf(what, sizeof(what), "seinfo %s %s", args, pol);
	if (canon) {
		canon_sets(&want);
		canon_sets(&got);
	}
	if (st == 0)
		assert_same_lines(what, &got, &want);
	lines_free(&want);
	lines_free(&got);
	return st == 0;
}

/* Run each of forms (NULL-terminated) through compare_seinfo on every carried policy; returns
 * the runs that agreed, *tried the runs made.  seinfo fails on compat.15..23 only. */
static size_t compare_forms(const char *const *forms, size_t *tried)
{
	char bin[PATH_MAX + 32];
	secpath_bin(bin, sizeof(bin));
	struct corpus c;
	corpus_load(&c);
	size_t same = 0, nforms = 0;
	*tried = 0;
	while (forms[nforms])
		nforms++;
	for (size_t i = 0; i < c.n; i += oracle_every())
		for (size_t f = 0; f < nforms; f++, ++*tried)
			same += (size_t)compare_seinfo(bin, forms[f], c.paths[i], 0);
	assert_true(same + 9 * nforms >= *tried);
	corpus_free(&c);
	return same;
}

/* The statistics seinfo prints with no option, on every carried policy. */
static void test_policy_seinfo__statistics(void **st)
{
	(void)st;
	static const char *const forms[] = { "", NULL };
	SKIP_WITHOUT_SEINFO();
	size_t tried, same = compare_forms(forms, &tried);
	print_message("seinfo statistics: %zu of %zu policies agree, %zu skipped (seinfo fails)\n",
		      same, tried, tried - same);
}

/* seinfo's listings, names and -x statements, every component secpath lists, on every carried
 * policy: one seinfo run per policy and form, its components in its order. */
#define COMPS "-t -a -r -u -b -c --common --polcap --permissive --sensitivity --category " \
	      "--fs_use --genfscon --initialsid --netifcon --portcon --nodecon --constrain " \
	      "--validatetrans --default --typebounds --ibpkeycon --ibendportcon"
static void test_policy_seinfo__listings(void **st)
{
	(void)st;
	static const char *const forms[] = { COMPS, COMPS " -x", NULL };
	SKIP_WITHOUT_SEINFO();
	size_t tried, same = compare_forms(forms, &tried);
	print_message("seinfo listings: %zu of %zu runs agree, %zu skipped (seinfo fails)\n", same,
		      tried, tried - same);
}

/* seinfo --all (the statistics, then every component; with -x their statements) and the Xen
 * options, which on an SELinux policy list nothing and so leave the statistics printed. */
static void test_policy_seinfo__all(void **st)
{
	(void)st;
	static const char *const forms[] = {
		"--all", "--all -x",
		"--ioportcon --iomemcon --pirqcon --pcidevicecon --devicetreecon", NULL,
	};
	SKIP_WITHOUT_SEINFO();
	size_t tried, same = compare_forms(forms, &tried);
	print_message("seinfo --all and Xen options: %zu of %zu runs agree, %zu skipped (seinfo "
		      "fails)\n", same, tried, tried - same);
}

/* Statements the carried policies lack, added to tiny.conf: constraints with not, nested
 * and/or, user, role and type name sets; nodecons with host bits set, IPv6 zero runs and empty
 * masks; ibpkeycon and ibendportcon records. */
static const char extra_constraints[] =
	"constrain dir { search rmdir } ( not ( u1 == u2 and r1 != r2 ) or ( t1 == { init_t "
	"kernel_t } and t2 != { app_t init_t } ) or not ( r1 == { system_r user_r } ) );\n"
	"constrain tcp_socket { connect } ( ( u1 == { system_u } or u2 == { system_u user_u } ) "
	"and ( t1 == t2 or not ( r1 == r2 ) ) );\n"
	"validatetrans dir ( ( u1 == u2 or u3 == { system_u } ) and not ( r3 == { system_r } ) );\n";
static const char extra_contexts[] =
	"nodecon 10.1.2.3 255.255.0.0 system_u:object_r:node_t\n"
	"nodecon 2001:db8:0:0:1:0:0:1 ffff:ffff:ffff:ffff:: system_u:object_r:node_t\n"
	"nodecon fe80:: ffff:ffff:ffff:ffff:ffff:ffff:ffff:fff0 system_u:object_r:node_t\n"
	"nodecon 0.0.0.0 0.0.0.0 system_u:object_r:node_t\n"
	"nodecon :: :: system_u:object_r:node_t\n"
	"ibpkeycon fe80:: 0xFFFF system_u:object_r:node_t\n"
	"ibpkeycon fe80:: 0x10-0x20 system_u:object_r:node_t\n"
	"ibendportcon mlx4_0 1 system_u:object_r:node_t\n"
	"ibendportcon mlx5_1 2 system_u:object_r:node_t\n";

/* tiny.conf with the extra statements, compiled by checkpolicy into pol (a temporary file
 * name, "/tmp/...XXXXXX" filled in): 0, or -1 without checkpolicy. */
static int build_extra(char *pol)
{
	static const char after[] = "validatetrans file ( t1 == t2 or t3 == init_t );\n";
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read("tests/data/policy/tiny.conf", &buf, &len), 0);
	char *at = strstr((char *)buf, after);
	assert_non_null(at);
	size_t head = (size_t)(at - (char *)buf) + sizeof(after) - 1;
	char conf[] = "/tmp/secpath-seinfo-conf-XXXXXX";
	int fd = mkstemp(conf);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fwrite(buf, 1, head, f);
	fputs(extra_constraints, f);
	fwrite(buf + head, 1, len - head, f);
	fputs(extra_contexts, f);
	assert_int_equal(fclose(f), 0);
	free(buf);
	int fd2 = mkstemp(pol);
	assert_true(fd2 >= 0);
	close(fd2);
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof(cmd), "checkpolicy -c 33 -o %s %s >/dev/null 2>&1", pol, conf);
	int rc = system(cmd);
	unlink(conf);
	if (rc != 0)
		unlink(pol);
	return rc == 0 ? 0 : -1;
}

/* The extra statements against seinfo: byte for byte, but the constraints, whose name sets
 * seinfo orders by Python's string hashing (canon_sets); every NAME form of them too. */
static void test_policy_seinfo__statements(void **st)
{
	(void)st;
	static const char *const exact[] = {
		"--nodecon --ibpkeycon --ibendportcon --validatetrans -x", "--nodecon 10.1.0.0/16",
		"--nodecon 2001:db8::/64", "--nodecon fe80::/124", "--nodecon 0.0.0.0/0",
		"--nodecon ::/0", "--ibpkeycon 0xffff", "--ibendportcon mlx5_1",
		"--validatetrans dir", NULL,
	};
	static const char *const canon[] = { "--all -x", "--constrain dir", NULL };
	SKIP_WITHOUT_SEINFO();
	char bin[PATH_MAX + 32], pol[] = "/tmp/secpath-seinfo-pol-XXXXXX";
	secpath_bin(bin, sizeof(bin));
	if (build_extra(pol)) {
		print_message("no checkpolicy (Debian package checkpolicy): skipping\n");
		skip();
	}
	size_t n = 0;
	for (size_t i = 0; exact[i]; i++)
		n += (size_t)compare_seinfo(bin, exact[i], pol, 0);
	for (size_t i = 0; canon[i]; i++)
		n += (size_t)compare_seinfo(bin, canon[i], pol, 1);
	unlink(pol);
	print_message("extra statements: %zu runs agree\n", n);
	assert_int_equal(n, 11);
}

/* Run an embedded Python script (with setools) on secpath's binary and every carried policy
 * seinfo reads (version 24 and later); its "M ..." lines are differences, reported, and its
 * last line "N count" how many comparisons it made (returned). */
static size_t run_script(const char *script, size_t len)
{
	char bin[PATH_MAX + 32];
	secpath_bin(bin, sizeof(bin));
	char spath[] = "/tmp/secpath-seinfo-py-XXXXXX";
	int fd = mkstemp(spath);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, script, len), (ssize_t)len);
	close(fd);
	struct corpus c;
	corpus_load(&c);
	size_t clen = strlen(bin) + strlen(spath) + 64;
	for (size_t i = 0; i < c.n; i += oracle_every())
		clen += strlen(c.paths[i]) + 1;
	char *cmd = malloc(clen);
	assert_non_null(cmd);
	int o = snprintf(cmd, clen, "/usr/bin/python3 %s %s", spath, bin);
	for (size_t i = 0; i < c.n; i += oracle_every())
		if (!strstr(c.paths[i], "compat.") || atoi(strrchr(c.paths[i], '.') + 1) >= 24)
			o += snprintf(cmd + o, clen - (size_t)o, " %s", c.paths[i]);
	struct lines out = { 0 };
	assert_int_equal(command_lines(cmd, &out), 0);
	size_t compared = 0, diffs = 0;
	for (size_t i = 0; i < out.n; i++) {
		if (!strncmp(out.v[i], "N ", 2)) {
			compared = strtoul(out.v[i] + 2, NULL, 10);
		} else {
			diffs += !strncmp(out.v[i], "M ", 2);
			print_error("%s\n", out.v[i]);
		}
	}
	assert_true(out.n >= 1 && !strncmp(out.v[out.n - 1], "N ", 2));
	assert_int_equal(diffs, 0);
	lines_free(&out);
	free(cmd);
	unlink(spath);
	corpus_free(&c);
	return compared;
}

/* The "seinfo" object of --json against setools' properties, on every carried policy seinfo
 * reads. */
static void test_policy_seinfo__json_properties(void **st)
{
	(void)st;
	SKIP_WITHOUT_SEINFO();
	size_t compared = run_script(props, sizeof(props) - 1);
	print_message("setools properties: %zu compared\n", compared);
	assert_true(compared >= 40 * 70 / oracle_every());
}

/* seinfo's NAME argument (names_py) on every carried policy seinfo reads. */
static void test_policy_seinfo__names(void **st)
{
	(void)st;
	SKIP_WITHOUT_SEINFO();
	size_t compared = run_script(names_py, sizeof(names_py) - 1);
	print_message("seinfo NAME runs and portcon ranges: %zu compared, all agree\n", compared);
	assert_true(compared >= 3 * 70 / oracle_every());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_seinfo__statistics),
		cmocka_unit_test(test_policy_seinfo__json_properties),
		cmocka_unit_test(test_policy_seinfo__listings),
		cmocka_unit_test(test_policy_seinfo__all),
		cmocka_unit_test(test_policy_seinfo__statements),
		cmocka_unit_test(test_policy_seinfo__names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
