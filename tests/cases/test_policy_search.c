/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_policy_search.c - `secpath policy search` against setools (Debian package setools, the
 * library behind sesearch) on random queries over real policies: an embedded Python script draws
 * queries from random rules (source/target as the rule's type or attribute, a member type, or
 * direct -ds/-dt; class and permission filters with -ep/-Sp; -b/-eb booleans; -D defaults;
 * every rule kind) and prints setools' TERuleQuery results as sesearch prints them,
 * sorted(results) (setools' rules order by their text); the test runs the secpath binary of its
 * own build variant with the same arguments and compares the lines in order, whitespace runs
 * aside.  The script also prints each query's criteria (an L line) and a key per result (K
 * lines: kind, source, target, class, permissions or default type, file name, booleans and
 * branch); the test puts the same criteria into struct sp_policy_query, calls sp_policy_search
 * directly on every layout in turn, and compares the keys of what it visits as sets (the
 * library visits in table order, policy.h; the order is the command's).
 * The sesearch program itself is the oracle of one more test: every TE rule and every role
 * rule of each policy, text and --json, in order, role rule queries, and the neverallow kinds.
 * Skipped with a message when /usr/bin/python3 cannot import setools (or, for that test, when
 * there is no sesearch).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "secpath/policy.h"
#include "../support/command.h"
#include "../support/files.h"
#include "../unit/test_policy_util.h"

static const char script[] =
	"import random, shlex, sys, setools\n"
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
	"def key(r):\n"
	"    k = f'{r.ruletype} {r.source} {r.target}:{r.tclass}'\n"
	"    if str(r.ruletype) in ('allow', 'auditallow', 'dontaudit'):\n"
	"        k += ' {' + ','.join(sorted(str(p) for p in r.perms)) + '}'\n"
	"    try: k += ' ' + str(r.default)\n"
	"    except Exception: pass\n"
	"    try: k += ' ' + str(r.filename)\n"
	"    except Exception: pass\n"
	"    try: k += ' [' + ','.join(sorted(str(b) for b in r.conditional.booleans)) + ']:' + str(r.conditional_block)\n"
	"    except Exception: pass\n"
	"    return k\n"
	"def pick(x):\n"
	"    r = rnd.random()\n"
	"    if r < 0.4 or not isinstance(x, setools.policyrep.TypeAttribute):\n"
	"        return str(x)\n"
	"    mem = sorted(str(t) for t in x.expand())\n"
	"    return rnd.choice(mem) if mem else str(x)\n"
	"def rx(n):\n"
	"    n = str(n); k = rnd.randrange(len(n)) + 1; x = rnd.random()\n"
	"    if x < 0.3: return '^' + n[:k]\n"
	"    if x < 0.5: return n[-k:] + '$'\n"
	"    if x < 0.7: return '^' + n + '$'\n"
	"    if x < 0.85: i = rnd.randrange(len(n)); return n[i:i + 3]\n"
	"    return rnd.choice(['_t$', 'exec', '^s', '(file|dir)', '^[a-m]', 'x{2}', 'a|b$'])\n"
	"def ranges(v):\n"
	"    out = []\n"
	"    for x in sorted(set(v)):\n"
	"        if out and out[-1][1] + 1 == x: out[-1][1] = x\n"
	"        else: out.append([x, x])\n"
	"    return [tuple(r) for r in out]\n"
	"def xstr(r):\n"
	"    f = rnd.choice(['0x%04x', '%x', '0X%X'])\n"
	"    if r[0] == r[1] and rnd.random() < 0.8: return f % r[0]\n"
	"    return f % r[1] + '-' + f % r[0] if rnd.random() < 0.1 else f % r[0] + '-' + f % r[1]\n"
	"def regex(args, kw, opt, field, flag):\n"
	"    if opt not in args or rnd.random() >= 0.15: return\n"
	"    i = args.index(opt); pat = rx(args[i + 1].split(',')[0]); args[i + 1] = pat\n"
	"    args.append(flag); kw[field] = pat; kw[field + '_regex'] = True\n"
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
	"    if (cb and rnd.random() < 0.5) or (allbools != [''] and rnd.random() < 0.05):\n"
	"        bs = cb or [str(rnd.choice(allbools))]\n"
	"        if rnd.random() < 0.4: args.append('-eb'); kw['boolean_equal'] = True\n"
	"        elif len(bs) > 1: bs = rnd.sample(bs, 1 + rnd.randrange(len(bs)))\n"
	"        args += ['-b', ','.join(bs)]; kw['boolean'] = bs\n"
	"    if rnd.random() < 0.3 and r.ruletype.name in ('type_transition', 'type_change', 'type_member'):\n"
	"        d = pick(r.default); args += ['-D', d]; kw['default'] = d\n"
	"    if getattr(r, 'extended', False) and rnd.random() < 0.6:\n"
	"        v = sorted(r.perms); x = rnd.random()\n"
	"        if x < 0.3: xs = v[:40]\n"
	"        elif x < 0.6: a = rnd.choice(v); xs = range(max(0, a - rnd.randrange(4)), min(0xffff, a + rnd.randrange(4)) + 1)\n"
	"        else: a = rnd.randrange(0x10000); xs = range(a, min(0xffff, a + rnd.randrange(0x300)) + 1)\n"
	"        rs = ranges(xs)\n"
	"        if rnd.random() < 0.3: args.append('-ex'); kw['xperms_equal'] = True\n"
	"        args += ['-x', ','.join(xstr(r) for r in rs)]; kw['xperms'] = rs\n"
	"    elif rnd.random() < 0.03:\n"
	"        a = rnd.randrange(0x10000); args += ['-x', '%x' % a]; kw['xperms'] = [(a, a)]\n"
	"    regex(args, kw, '-s', 'source', '-rs'); regex(args, kw, '-t', 'target', '-rt')\n"
	"    regex(args, kw, '-c', 'tclass', '-rc'); regex(args, kw, '-D', 'default', '-rd')\n"
	"    regex(args, kw, '-b', 'boolean', '-rb')\n"
	"    if '-s' not in args and '-t' not in args:\n"
	"        s = str(r.source); args += ['-s', s, '-ds']; kw['source'] = s; kw['source_indirect'] = False\n"
	"    q = setools.TERuleQuery(pol, **kw)\n"
	"    res = list(q.results())\n"
	"    print('Q\\t' + ' '.join(shlex.quote(a) for a in args))\n"
	"    for x in sorted(res):\n"
	"        print('R\\t' + str(x))\n"
	"    lst = lambda v: ','.join(sorted(v)) if isinstance(v, (set, list)) else str(v)\n"
	"    if 'xperms' in kw: kw['xperms'] = {'%d-%d' % r for r in kw['xperms']}\n"
	"    print('L\\t' + '\\t'.join(k + '=' + lst(v) for k, v in sorted(kw.items())))\n"
	"    for r in res:\n"
	"        print('K\\t' + key(r))\n";

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

/* s with its whitespace runs made one space and none at either end: the only normalisation
 * the comparisons make. */
static void lines_add(struct lines *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	char *d = strdup(s), *o = d;
	for (const char *c = s; *c; c++) {
		if (*c != ' ' && *c != '\t')
			*o++ = *c;
		else if (o > d && o[-1] != ' ')
			*o++ = ' ';
	}
	if (o > d && o[-1] == ' ')
		o--;
	*o = 0;
	l->v[l->n++] = d;
}

static void lines_clear(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	l->n = 0;
}

/* got and want hold the same lines in the same order; else print where they part and fail. */
static void assert_same_lines(const char *what, const char *query, const struct lines *got,
			      const struct lines *want)
{
	size_t i = 0;
	while (i < got->n && i < want->n && !strcmp(got->v[i], want->v[i]))
		i++;
	if (i < got->n || i < want->n) {
		print_error("%s: %s: line %zu differs (%zu vs %zu lines)\n", what, query, i + 1,
			    got->n, want->n);
		for (size_t j = i; j < got->n && j < i + 3; j++)
			print_error("  got:  %s\n", got->v[j]);
		for (size_t j = i; j < want->n && j < i + 3; j++)
			print_error("  want: %s\n", want->v[j]);
	}
	assert_true(i == got->n && i == want->n);
}

/* The library's visits against setools' results as sets: the library's order is its tables'. */
static void assert_same_set(const char *what, const char *query, struct lines *got,
			    struct lines *want)
{
	if (got->n)
		qsort(got->v, got->n, sizeof(char *), line_cmp);
	if (want->n)
		qsort(want->v, want->n, sizeof(char *), line_cmp);
	assert_same_lines(what, query, got, want);
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
	assert_same_lines("query", args, &got, want);
	*nonempty += got.n != 0;
	lines_clear(&got);
	free(got.v);
}

/* ---- the library: sp_policy_search on the query's criteria ---- */

static const struct {
	const char *name;
	uint16_t kind;
} ruletypes[] = {
	{ "allow", SP_AVTAB_ALLOWED }, { "auditallow", SP_AVTAB_AUDITALLOW },
	{ "dontaudit", SP_AVTAB_AUDITDENY }, { "type_transition", SP_AVTAB_TRANSITION },
	{ "type_member", SP_AVTAB_MEMBER }, { "type_change", SP_AVTAB_CHANGE },
	{ "allowxperm", SP_AVTAB_XPERMS_ALLOWED }, { "auditallowxperm", SP_AVTAB_XPERMS_AUDITALLOW },
	{ "dontauditxperm", SP_AVTAB_XPERMS_DONTAUDIT },
};

static uint16_t ruletype_kind(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE_T(ruletypes); i++)
		if (!strcmp(ruletypes[i].name, name))
			return ruletypes[i].kind;
	fail_msg("unknown rule type '%s'", name);
	return 0;
}

static const char *ruletype_name(uint16_t kind)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE_T(ruletypes); i++)
		if (ruletypes[i].kind == kind)
			return ruletypes[i].name;
	return "?";
}

struct qbuild {
	struct sp_policy_query q;
	uint32_t cls[64], bools[64];
	const char *perms[64];
	struct sp_xperm_range xr[64];
	char text[8192];
	const char *rx[5];		/* the patterns of the *_regex fields, by RXF_* */
	uint32_t *rxv[5];		/* the values they match */
};

/* The criteria setools takes as a regular expression, and the names each is matched with. */
enum { RXF_SOURCE, RXF_TARGET, RXF_DEFAULT, RXF_TCLASS, RXF_BOOLEAN };
static const char *const rx_fields[5] = { "source", "target", "default", "tclass", "boolean" };

/* The values of kind f whose names pattern pat finds (types alone for an indirect type
 * criterion: setools matches the member types), as the command resolves -rs/-rt/-rd/-rc/-rb. */
static uint32_t *regex_values(const struct sp_policy *p, int f, const char *pat, int direct,
			      size_t *n)
{
	regex_t re;
	assert_int_equal(regcomp(&re, pat, REG_EXTENDED | REG_NOSUB), 0);
	uint32_t count = f == RXF_TCLASS ? sp_policy_class_count(p)
			 : f == RXF_BOOLEAN ? sp_policy_bool_count(p) : sp_policy_type_count(p);
	uint32_t *v = calloc((size_t)count + 1, sizeof(*v));
	assert_non_null(v);
	*n = 0;
	for (uint32_t i = 1; i <= count; i++) {
		char b[32];
		const char *name;
		if (f == RXF_TCLASS)
			name = sp_policy_class_name(p, i);
		else if (f == RXF_BOOLEAN)
			name = sp_policy_bool_name(p, i);
		else if (!direct && sp_policy_type_is_attr(p, i))
			continue;
		else
			name = sp_policy_type_name(p, i) ? sp_policy_type_name(p, i)
				: (snprintf(b, sizeof(b), "@ttr%04u", i), b);
		if (name && !regexec(&re, name, 0, NULL, 0))
			v[(*n)++] = i;
	}
	regfree(&re);
	return v;
}

/* The regular expression criteria of b as value lists in its query. */
static void build_regex(const struct sp_policy *p, struct qbuild *b)
{
	struct sp_policy_query *q = &b->q;
	size_t n;
	for (int f = 0; f < 5; f++) {
		if (!b->rx[f])
			continue;
		int direct = f == RXF_SOURCE ? q->source_direct : f == RXF_TARGET && q->target_direct;
		b->rxv[f] = regex_values(p, f, b->rx[f], direct, &n);
		if (f == RXF_SOURCE)
			q->sources = b->rxv[f], q->nsources = n;
		else if (f == RXF_TARGET)
			q->targets = b->rxv[f], q->ntargets = n;
		else if (f == RXF_DEFAULT)
			q->defaults = b->rxv[f], q->ndefaults = n;
		else if (f == RXF_TCLASS)
			q->classes = b->rxv[f], q->nclasses = n;
		else
			q->bools = b->rxv[f], q->nbools = n, q->bools_equal = 0;
	}
}

/* Whether the L line has field=True. */
static int l_flag(const char *l, const char *field)
{
	char key[64];
	snprintf(key, sizeof(key), "%s=True", field);
	for (const char *at = strstr(l, key); at; at = strstr(at + 1, key))
		if ((at == l || at[-1] == '\t') && (at[strlen(key)] == '\t' || !at[strlen(key)]))
			return 1;
	return 0;
}

static uint32_t type_value(const struct sp_policy *p, const char *name)
{
	uint32_t v = sp_policy_type_lookup(p, name);
	if (!v)
		fail_msg("no type '%s'", name);
	return v;
}

/* The criteria of an L line ("field=value" by tab, lists by comma) as setools took them. */
static void build_query(const struct sp_policy *p, const char *l, struct qbuild *b)
{
	memset(b, 0, sizeof(*b));
	b->q.sz = sizeof(b->q);
	b->q.filename_trans = 1;	/* setools lists filename rules with type_transition */
	snprintf(b->text, sizeof(b->text), "%s", l);
	for (char *s1, *f = strtok_r(b->text, "\t", &s1); f; f = strtok_r(NULL, "\t", &s1)) {
		char *v = strchr(f, '=');
		assert_non_null(v);
		*v++ = 0;
		int yes = !strcmp(v, "True"), rxf = -1;
		for (int k = 0; k < 5; k++) {
			char flag[32];
			snprintf(flag, sizeof(flag), "%s_regex", rx_fields[k]);
			rxf = !strcmp(f, rx_fields[k]) && l_flag(l, flag) ? k : rxf;
			if (!strcmp(f, flag))
				rxf = 5;	/* the flag itself: read by l_flag */
		}
		if (rxf == 5) {
			continue;
		} else if (rxf >= 0) {
			b->rx[rxf] = v;
		} else if (!strcmp(f, "xperms_equal")) {
			b->q.xperms_equal = yes;
		} else if (!strcmp(f, "source") || !strcmp(f, "target") || !strcmp(f, "default")) {
			*(f[0] == 's' ? &b->q.source : f[0] == 't' ? &b->q.target : &b->q.default_type) =
				type_value(p, v);
		} else if (!strcmp(f, "source_indirect") || !strcmp(f, "target_indirect")) {
			*(f[0] == 's' ? &b->q.source_direct : &b->q.target_direct) = !yes;
		} else if (!strcmp(f, "perms_equal") || !strcmp(f, "perms_subset") ||
			   !strcmp(f, "boolean_equal")) {
			*(f[6] == 'e' ? &b->q.perms_equal : f[6] == 's' ? &b->q.perms_subset
								   : &b->q.bools_equal) = yes;
		} else {
			for (char *s2, *x = strtok_r(v, ",", &s2); x; x = strtok_r(NULL, ",", &s2)) {
				if (!strcmp(f, "ruletype")) {
					b->q.kinds |= ruletype_kind(x);
				} else if (!strcmp(f, "tclass") && b->q.nclasses < 64) {
					b->cls[b->q.nclasses] = sp_policy_class_lookup(p, x);
					assert_true(b->cls[b->q.nclasses++] != 0);
				} else if (!strcmp(f, "perms") && b->q.nperms < 64) {
					b->perms[b->q.nperms++] = x;
				} else if (!strcmp(f, "boolean") && b->q.nbools < 64) {
					b->bools[b->q.nbools] = sp_policy_bool_lookup(p, x);
					assert_true(b->bools[b->q.nbools++] != 0);
				} else if (!strcmp(f, "xperms") && b->q.nxperms < 64) {
					unsigned lo, hi;
					assert_int_equal(sscanf(x, "%u-%u", &lo, &hi), 2);
					b->xr[b->q.nxperms++] = (struct sp_xperm_range){ (uint16_t)lo,
											 (uint16_t)hi };
				} else {
					fail_msg("unknown query field '%s'", f);
				}
			}
		}
	}
	b->q.classes = b->q.nclasses ? b->cls : NULL;
	b->q.perms = b->q.nperms ? b->perms : NULL;
	b->q.bools = b->q.nbools ? b->bools : NULL;
	b->q.xperms = b->q.nxperms ? b->xr : NULL;
	build_regex(p, b);
}

struct keys {
	const struct sp_policy *p;
	struct lines *got;
};

static const char *type_str(const struct sp_policy *p, uint32_t v, char *buf, size_t len)
{
	snprintf(buf, len, "@ttr%04u", v);	/* setools' name of an unnamed attribute */
	return sp_policy_type_name(p, v) ? sp_policy_type_name(p, v) : buf;
}

/* names[0..n) sorted, joined by commas into out */
static void join_sorted(const char **names, size_t n, char *out, size_t len)
{
	size_t o = 0;
	qsort(names, n, sizeof(*names), line_cmp);
	out[0] = 0;
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%s%s", i ? "," : "", names[i]);
}

/* A visited rule's key, as the script's key() spells a setools rule. */
static int key_of(void *ud, const struct sp_avtab_entry *e, const struct sp_filename_trans *ft)
{
	const struct keys *k = ud;
	const struct sp_policy *p = k->p;
	char key[4096], b1[32], b2[32], b3[32], list[2048];
	const char *names[256];
	if (ft) {
		snprintf(key, sizeof(key), "type_transition %s %s:%s %s %s",
			 type_str(p, ft->stype, b1, sizeof(b1)), type_str(p, ft->ttype, b2, sizeof(b2)),
			 sp_policy_class_name(p, ft->tclass), type_str(p, ft->otype, b3, sizeof(b3)),
			 ft->name);
		lines_add(k->got, key);
		return 0;
	}
	uint16_t kind = e->specified & (uint16_t)~SP_AVTAB_ENABLED;
	int o = snprintf(key, sizeof(key), "%s %s %s:%s", ruletype_name(kind),
			 type_str(p, e->source, b1, sizeof(b1)), type_str(p, e->target, b2, sizeof(b2)),
			 sp_policy_class_name(p, e->tclass));
	if (kind & SP_AVTAB_AV) {
		uint32_t m = kind == SP_AVTAB_AUDITDENY ? ~e->data : e->data;
		size_t n = 0;
		for (unsigned bit = 0; bit < 32; bit++)
			if ((m >> bit & 1) && sp_policy_perm_name(p, e->tclass, bit))
				names[n++] = sp_policy_perm_name(p, e->tclass, bit);
		join_sorted(names, n, list, sizeof(list));
		o += snprintf(key + o, sizeof(key) - (size_t)o, " {%s}", list);
	} else if (kind & SP_AVTAB_TYPE) {
		o += snprintf(key + o, sizeof(key) - (size_t)o, " %s",
			      type_str(p, e->data, b3, sizeof(b3)));
	}
	if (e->cond) {
		uint32_t bv[256];
		size_t nb = sp_policy_cond_bools(p, e->cond, bv, SP_ARRAY_SIZE_T(bv));
		for (size_t i = 0; i < nb; i++)
			names[i] = sp_policy_bool_name(p, bv[i]);
		join_sorted(names, nb, list, sizeof(list));
		snprintf(key + o, sizeof(key) - (size_t)o, " [%s]:%s", list,
			 e->cond_list ? "True" : "False");
	}
	lines_add(k->got, key);
	return 0;
}

static void compare_library(const struct sp_policy *p, const char *lline, struct lines *want)
{
	struct qbuild b;
	struct lines got = { 0 };
	struct keys k = { p, &got };
	build_query(p, lline, &b);
	assert_int_equal(sp_policy_search(p, &b.q, key_of, &k), 0);
	for (int f = 0; f < 5; f++)
		free(b.rxv[f]);
	assert_same_set("library query", lline, &got, want);
	lines_clear(&got);
	free(got.v);
}

/* One query's expectations: the sesearch lines (R) and the criteria (L) with their keys (K). */
struct expect {
	char args[8192], lline[8192];
	struct lines want, keys;
};

static void check_query(const char *bin, const char *pol, struct sp_policy *const ps[3],
			size_t qi, struct expect *x, size_t *nonempty)
{
	compare_library(ps[qi % 3], x->lline, &x->keys);
	compare_query(bin, pol, x->args, &x->want, nonempty);
	lines_clear(&x->want);
	lines_clear(&x->keys);
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
	struct sp_policy *ps[3];
	for (int l = 0; l < 3; l++) {
		struct sp_policy_opts o = { .sz = sizeof(o), .layout = (enum sp_avtab_layout)l };
		assert_int_equal(sp_policy_read(buf, len, &o, &ps[l]), 0);
	}
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
	struct expect *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	char line[8192];
	size_t queries = 0, nonempty = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "Q\t", 2)) {
			if (queries++)
				check_query(bin, pol, ps, queries - 2, x, &nonempty);
			snprintf(x->args, sizeof(x->args), "%s", line + 2);
			x->lline[0] = 0;
		} else if (!strncmp(line, "R\t", 2)) {
			lines_add(&x->want, line + 2);
		} else if (!strncmp(line, "L\t", 2)) {
			snprintf(x->lline, sizeof(x->lline), "%s", line + 2);
		} else if (!strncmp(line, "K\t", 2)) {
			lines_add(&x->keys, line + 2);
		}
	}
	assert_int_equal(pclose(f), 0);
	if (queries)
		check_query(bin, pol, ps, queries - 1, x, &nonempty);
	free(x->want.v);
	free(x->keys.v);
	free(x);
	for (int l = 0; l < 3; l++)
		sp_policy_free(ps[l]);
	unlink(pol);
	unlink(spath);
	assert_int_equal(queries, (size_t)nq);
	if (nq >= 20)
		assert_true(nonempty >= queries / 4);	/* kinds are drawn apart from the rule */
}

/* Debian's MLS policy and the upstream test policies (tests/data/policy/upstream), a few queries
 * each: secpath's search is setools' on every one. */
static void test_policy_search__mls_and_upstream(void **st)
{
	(void)st;
	run("data/policy/debian-mls.policy.33.xz", 12, 4);
	size_t n;
	char **paths = tsupport_upstream_policies(&n);
	assert_non_null(paths);
	for (size_t i = 0; i < n; i++)
		run(paths[i], 8, 5 + (unsigned)i);
	tsupport_paths_free(paths);
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

/* ---- the sesearch program itself ---- */

/* The lines a command prints on stdout, in order (tsupport_command_lines); its exit status. */
static void add_line(void *ud, const char *line)
{
	lines_add(ud, line);
}

static int command_lines(const char *cmd, struct lines *out)
{
	return tsupport_command_lines(cmd, add_line, out);
}

/* sesearch's and secpath's output for `kinds` on pol: the same lines in the same order, and
 * --json's rules in that order too.  Returns the number of lines. */
static size_t compare_sesearch(const char *bin, const char *pol, const char *kinds)
{
	static const char texts[] = "/usr/bin/python3 -c 'import json, sys\n"
				    "for r in json.load(sys.stdin)[\"rules\"]: print(r[\"text\"])'";
	char cmd[3 * PATH_MAX + 512];
	struct lines want = { 0 }, got = { 0 }, json = { 0 };
	snprintf(cmd, sizeof(cmd), "sesearch %s %s", kinds, pol);
	assert_int_equal(command_lines(cmd, &want), 0);
	const char *quiet = strstr(kinds, "never") ? "2>/dev/null" : "";	/* the note */
	snprintf(cmd, sizeof(cmd), "%s policy search %s %s %s", bin, kinds, pol, quiet);
	assert_int_equal(command_lines(cmd, &got), 0);
	assert_same_lines(pol, kinds, &got, &want);
	snprintf(cmd, sizeof(cmd), "%s policy search --json %s %s %s | %s", bin, kinds, pol, quiet,
		 texts);
	assert_int_equal(command_lines(cmd, &json), 0);
	assert_same_lines(pol, "--json", &json, &want);
	size_t n = want.n;
	lines_clear(&want);
	lines_clear(&got);
	lines_clear(&json);
	free(want.v);
	free(got.v);
	free(json.v);
	return n;
}

/* The RANGE; of a line "range_transition SOURCE TARGET:CLASS RANGE;". */
static const char *line_range(const char *line)
{
	const char *r = line;
	for (int sp = 0; sp < 3 && r; sp++)
		r = strchr(r, ' ') ? strchr(r, ' ') + 1 : NULL;
	assert_non_null(r);
	return r;
}

/* sesearch --range_trans -D: every range pol's rules use, as sesearch prints it and without
 * its spaces, selects the same rules from both; each of the bad ranges gets setools' message
 * (secpath's on stderr after "-D:COLUMN: ") and exit status 1 from both.  Returns the ranges tried. */
static size_t range_defaults(const char *bin, const char *pol, const char *const *bad,
			     size_t nbad)
{
	char cmd[3 * PATH_MAX + 512], q[600];
	struct lines all = { 0 }, want = { 0 }, got = { 0 };
	snprintf(cmd, sizeof(cmd), "sesearch --range_trans %s", pol);
	assert_int_equal(command_lines(cmd, &all), 0);
	size_t n = 0;
	for (size_t i = 0; i < all.n; i++) {
		const char *r = line_range(all.v[i]);
		size_t len = strlen(r) - 1, seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(line_range(all.v[j]), r);
		if (seen)
			continue;
		snprintf(q, sizeof(q), "--range_trans -D '%.*s'", (int)len, r);
		assert_true(compare_sesearch(bin, pol, q) > 0);
		size_t k = strlen("--range_trans -D '");
		for (size_t j = 0; j < len; j++)
			if (r[j] != ' ')
				q[k++] = r[j];
		snprintf(q + k, sizeof(q) - k, "'");
		assert_true(compare_sesearch(bin, pol, q) > 0);
		n++;
	}
	for (size_t i = 0; i < nbad; i++) {
		snprintf(cmd, sizeof(cmd), "sesearch --range_trans -D '%s' %s; echo $?", bad[i], pol);
		assert_int_equal(command_lines(cmd, &want), 0);
		snprintf(cmd, sizeof(cmd), "{ %s policy search --range_trans -D '%s' %s 2>&1; echo $?; } "
			 "| sed 's/^secpath: -D:[0-9]*: //'", bin, bad[i], pol);
		assert_int_equal(command_lines(cmd, &got), 0);
		assert_same_lines(pol, bad[i], &got, &want);
		assert_string_equal(want.v[want.n - 1], "1");
		lines_clear(&want);
		lines_clear(&got);
	}
	lines_clear(&all);
	free(all.v);
	free(want.v);
	free(got.v);
	return n;
}

/* A policy file of tp_read's bytes (xz undone) for sesearch; the caller unlinks it. */
static void policy_file(const char *path, char tmp[32])
{
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read(path, &buf, &len), 0);
	snprintf(tmp, 32, "/tmp/secpath-policy-XXXXXX");
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
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
				 out, sizeof(out)), 3);	/* write is denied: exit 3 */
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

/* Role rule criteria on Debian's base-only policy: -s and -D roles, -t a role or a type or an
 * attribute (directly too), -c; each against sesearch, with how many lines it printed. */
static void role_queries(const char *bin, const char *pol)
{
	static const struct {
		const char *args;
		size_t lines;
	} qs[] = {
		{ "--role_allow --role_trans", 7 },
		{ "--role_allow --role_trans -s sysadm_r", 6 },
		{ "--role_allow -t system_r", 1 },
		{ "--role_allow --role_trans -t initrc_exec_t", 1 },
		{ "--role_allow --role_trans -t initrc_exec_t -dt", 1 },
		{ "--role_trans -t file_type", 3 },
		{ "--role_trans -t file_type -dt", 0 },
		{ "--role_allow --role_trans -D system_r", 3 },
		{ "--role_allow --role_trans -c process", 3 },
		{ "--role_allow --role_trans -c file", 0 },
		/* regular expressions: roles by name, a role_transition's type through members */
		{ "--role_allow -rs -s ^sys", 4 },
		{ "--role_allow --role_trans -rs -s _r$", 7 },
		{ "--role_trans -rt -t _exec_t$", 3 },
		{ "--role_trans -rt -dt -t exec", 3 },
		{ "--role_allow --role_trans -rt -t ^s", 4 },
		{ "--role_allow --role_trans -rt -t user", 1 },
		{ "--role_trans -rt -t file_type", 0 },
		{ "--role_trans -rd -D ^sys", 3 },
		{ "--role_allow -rd -D .", 0 },
		{ "--role_trans -rs -s zzz", 0 },
		{ "--role_trans -rs -s . -c process -rd -D ^system", 3 },
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE_T(qs); i++)
		assert_int_equal(compare_sesearch(bin, pol, qs[i].args), qs[i].lines);
}

static int count_role(void *ud, const struct sp_role_allow *ra, const struct sp_role_trans *rt)
{
	assert_true(!ra != !rt);
	++*(size_t *)ud;
	return 0;
}

/* The role rule API on tiny: every rule once, a bad query refused. */
static void test_policy_search__role_api(void **st)
{
	(void)st;
	struct sp_policy *p;
	assert_int_equal(sp_policy_read_file("tests/data/policy/tiny.33", NULL, &p), 0);
	struct sp_policy_info info;
	sp_policy_get_info(p, &info);
	assert_int_equal(sp_policy_role_allow_count(p), info.role_allow);
	assert_int_equal(sp_policy_role_trans_count(p), info.role_trans);
	assert_int_equal(info.role_allow + info.role_trans, 3);
	const struct sp_role_allow *ra = sp_policy_role_allow(p, 0);
	assert_non_null(ra);
	assert_string_equal(sp_policy_role_name(p, ra->role), "system_r");
	assert_string_equal(sp_policy_role_name(p, ra->new_role), "user_r");
	assert_null(sp_policy_role_allow(p, info.role_allow));
	assert_null(sp_policy_role_trans(p, info.role_trans));
	struct sp_policy_role_query q = { .sz = sizeof(q), .kinds = SP_ROLE_ALLOW | SP_ROLE_TRANS };
	size_t n = 0;
	assert_int_equal(sp_policy_role_search(p, &q, count_role, &n), 0);
	assert_int_equal(n, 3);
	q.source = sp_policy_role_count(p) + 1;
	assert_int_equal(sp_policy_role_search(p, &q, count_role, &n), -EINVAL);
	q.source = 0;
	q.kinds = 0;
	assert_int_equal(sp_policy_role_search(p, &q, count_role, &n), -EINVAL);
	sp_policy_free(p);
}

/* Every TE rule of tiny, Debian's base-only and the upstream test policies, all kinds in one
 * query (so one sorted list across kinds, as sesearch sorts them); the neverallow kinds print
 * nothing, as sesearch, and say why on stderr. */
static void test_policy_search__sesearch_order(void **st)
{
	(void)st;
	static const char all[] = "-A --auditallow --dontaudit -T --type_change --type_member "
				  "--auditallowxperm --dontauditxperm";
	if (!have_setools() || system("sesearch --help >/dev/null 2>&1")) {
		print_message("no sesearch (Debian package setools): skipping its order\n");
		skip();
	}
	char bin[PATH_MAX + 32], tmp[32], out[8192];
	secpath_bin(bin, sizeof(bin));
	static const char roles[] = "--role_allow --role_trans";
	size_t n, tiny = compare_sesearch(bin, "tests/data/policy/tiny.33", all), several = 0;
	assert_true(tiny > 20);
	assert_int_equal(compare_sesearch(bin, "tests/data/policy/tiny.33", roles), 3);
	/* the TE rules first: role_transition lines after type_transition ones */
	assert_int_equal(compare_sesearch(bin, "tests/data/policy/tiny.33", "-T --role_trans"), 8);
	policy_file("data/policy/debian-base-only.policy.33.xz", tmp);
	size_t base = compare_sesearch(bin, tmp, all), up = 0, uproles = 0, upranges = 0;
	assert_true(base > 1000);
	role_queries(bin, tmp);
	unlink(tmp);
	char **paths = tsupport_upstream_policies(&n);
	assert_non_null(paths);
	for (size_t i = 0; i < n; i++) {
		size_t k = compare_sesearch(bin, paths[i], all);
		up += k;
		several += k > 1;	/* most of them are a rule or two */
		uproles += compare_sesearch(bin, paths[i], roles);
		upranges += compare_sesearch(bin, paths[i], "--range_trans");
	}
	tsupport_paths_free(paths);
	assert_true(several >= n / 4);
	assert_true(uproles > 50);
	/* range transitions: Debian's MLS policy whole, and a type criterion of each kind */
	policy_file("data/policy/debian-mls.policy.33.xz", tmp);
	size_t mls = compare_sesearch(bin, tmp, "--range_trans");
	assert_true(mls > 10);
	assert_true(compare_sesearch(bin, tmp, "--range_trans -s init_t") > 0);
	assert_true(compare_sesearch(bin, tmp, "--range_trans -t '_exec_t$' -rt -c process") > 0);
	static const char *const bad[] = {
		"bogus", "s0 - mls_systemhigh", "s15:c0.c1023 - s0", "s0:", "s0:c1.c2.c3", "s0:c1.x",
		"s0:c9999", "s0:c0 - s0", "s0:c0,", "s0 -",
	};
	size_t ranges = range_defaults(bin, tmp, bad, sizeof(bad) / sizeof(*bad));
	assert_true(ranges >= 2);
	assert_int_equal(compare_sesearch(bin, tmp, "--range_trans -D 's0:c5.c2'"), 0);
	unlink(tmp);
	ranges += range_defaults(bin, "tests/data/policy/upstream/setools/library_mlsrulequery.33",
				 bad + 6, 1);
	print_message("range_transition: debian-mls %zu, upstream %zu, -D with %zu ranges\n", mls,
		      upranges, ranges);
	print_message("sesearch's order: tiny %zu, base-only %zu, %zu upstream policies %zu lines "
		      "and %zu role rules\n", tiny, base, n, up, uproles);
	assert_int_equal(compare_sesearch(bin, "tests/data/policy/tiny.33",
					  "--neverallow --neverallowxperm"), 0);
	assert_int_equal(compare_sesearch(bin, "tests/data/policy/tiny.33",
					  "--neverallow --allow -s app_t"),
			 compare_sesearch(bin, "tests/data/policy/tiny.33", "--allow -s app_t"));
	assert_int_equal(run_cli(bin, "search --neverallow tests/data/policy/tiny.33", out,
				 sizeof(out)), 0);
	assert_non_null(strstr(out, "no neverallow rules"));
	char *nl = strchr(out, '\n');	/* one line: the note */
	assert_non_null(nl);
	assert_int_equal(nl[1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_cli__info_decide),
		cmocka_unit_test(test_policy_search__tiny),
		cmocka_unit_test(test_policy_search__base_only),
		cmocka_unit_test(test_policy_search__debian_default),
		cmocka_unit_test(test_policy_search__mls_and_upstream),
		cmocka_unit_test(test_policy_search__sesearch_order),
		cmocka_unit_test(test_policy_search__role_api),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
