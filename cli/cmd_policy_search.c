/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_policy_search.c - `secpath policy search`: rule search with sesearch's (setools 4.4)
 * semantics and output format.
 *
 * Search semantics are the library's (sp_policy_search and sp_policy_role_search, policy.h);
 * this file maps sesearch's options onto struct sp_policy_query and sp_policy_role_query
 * (-s/-t/-ds/-dt, -c, -p/-ep/-Sp, -D, -b/-eb, the rule kinds), resolves the names, and prints
 * each rule as sesearch does, in sesearch's order: every match is held until the search ends,
 * then the TE rules and after them the role rules are each sorted by their line (setools orders
 * rules by their text); --json uses that order too.
 * --neverallow(xperm) lists nothing: a binary policy has no neverallow rules.
 */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "search_hits.h"
#include "secpath/policy.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Rule kind options; -T also lists filename transitions (sesearch does).  The neverallow kinds
 * list nothing: a binary policy has none (sesearch prints nothing for them either). */
static const struct {
	const char *opt, *alt;
	uint16_t kinds;
	int filename_trans;
} kind_opts[] = {
	{ "-A", NULL, SP_AVTAB_ALLOWED | SP_AVTAB_XPERMS_ALLOWED, 0 },
	{ "--allow", NULL, SP_AVTAB_ALLOWED, 0 },
	{ "--allowxperm", NULL, SP_AVTAB_XPERMS_ALLOWED, 0 },
	{ "--auditallow", NULL, SP_AVTAB_AUDITALLOW, 0 },
	{ "--auditallowxperm", NULL, SP_AVTAB_XPERMS_AUDITALLOW, 0 },
	{ "--dontaudit", NULL, SP_AVTAB_AUDITDENY, 0 },
	{ "--dontauditxperm", NULL, SP_AVTAB_XPERMS_DONTAUDIT, 0 },
	{ "-T", "--type_trans", SP_AVTAB_TRANSITION, 1 },
	{ "--type_change", NULL, SP_AVTAB_CHANGE, 0 },
	{ "--type_member", NULL, SP_AVTAB_MEMBER, 0 },
	{ "--neverallow", NULL, 0, 0 },
	{ "--neverallowxperm", NULL, 0, 0 },
};

/* Role rule kinds (sesearch's RBAC rule types). */
static const struct {
	const char *opt;
	unsigned kinds;
} role_opts[] = {
	{ "--role_allow", SP_ROLE_ALLOW },
	{ "--role_trans", SP_ROLE_TRANS },
};

static int search_collect(void *ud, const struct sp_avtab_entry *rule,
			  const struct sp_filename_trans *ft)
{
	return rule ? search_add_rule(ud, rule) : search_add(ud, HIT_FT, ft);
}

static const char *rname(const struct sp_policy *p, uint32_t v)
{
	const char *n = sp_policy_role_name(p, v);
	return n ? n : "?";
}

static const char *cname(const struct sp_policy *p, uint32_t v)
{
	const char *n = sp_policy_class_name(p, v);
	return n ? n : "?";
}

static int search_collect_role(void *ud, const struct sp_role_allow *ra,
			       const struct sp_role_trans *rt)
{
	return ra ? search_add(ud, HIT_RA, ra) : search_add(ud, HIT_RT, rt);
}

static int search_collect_range(void *ud, const struct sp_range_trans *mt)
{
	return search_add(ud, HIT_MT, mt);
}

/* --json: one object per rule (secpath.policy-search/1): its parts, and the sesearch line. */
static void json_perm_list(FILE *f, struct search_out *o, uint32_t c, uint32_t mask)
{
	const char *names[32];
	int n = search_perm_names(o, c, mask, names);
	fputc('[', f);
	for (int i = 0; i < n; i++) {
		fputs(i ? "," : "", f);
		cli_json_str(f, names[i]);
	}
	fputc(']', f);
}

/* One ,"key":"value" member of the rule object being written. */
static void json_kv(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	cli_json_str(f, v);
}

static void json_filename_trans(FILE *f, const struct sp_policy *p,
				const struct sp_filename_trans *ft)
{
	char b1[32], b2[32], b3[32];
	cli_json_str(f, "type_transition");
	json_kv(f, "source", search_tname(p, ft->stype, b1, sizeof(b1)));
	json_kv(f, "target", search_tname(p, ft->ttype, b2, sizeof(b2)));
	json_kv(f, "class", sp_policy_class_name(p, ft->tclass));
	json_kv(f, "default", search_tname(p, ft->otype, b3, sizeof(b3)));
	json_kv(f, "name", ft->name);
	fputs(",\"conditional\":null", f);
}

static void json_role_rule(FILE *f, const struct sp_policy *p, const struct sp_role_allow *ra,
			   const struct sp_role_trans *rt)
{
	char b1[32];
	cli_json_str(f, ra ? "role_allow" : "role_transition");
	if (ra) {
		json_kv(f, "source", rname(p, ra->role));
		json_kv(f, "target", rname(p, ra->new_role));
		return;
	}
	json_kv(f, "source", rname(p, rt->role));
	json_kv(f, "target", search_tname(p, rt->type, b1, sizeof(b1)));
	json_kv(f, "class", cname(p, rt->tclass));
	json_kv(f, "default", rname(p, rt->new_role));
}

static void json_range_rule(FILE *f, const struct sp_policy *p, const struct sp_range_trans *mt)
{
	char b1[32], b2[32], r[4096];
	cli_json_str(f, "range_transition");
	json_kv(f, "source", search_tname(p, mt->stype, b1, sizeof(b1)));
	json_kv(f, "target", search_tname(p, mt->ttype, b2, sizeof(b2)));
	json_kv(f, "class", cname(p, mt->tclass));
	json_kv(f, "default", sp_policy_range_format(p, mt->low, mt->high, r, sizeof(r)) < 0 ? "?"
										   : r);
}

static void json_rule(FILE *f, struct search_out *o, const struct sp_avtab_entry *rule)
{
	const struct sp_policy *p = o->p;
	char b1[32], b2[32], b3[32];
	uint16_t kind = rule->specified & (uint16_t)~SP_AVTAB_ENABLED;
	cli_json_str(f, search_kind_word(kind));
	json_kv(f, "source", search_tname(p, rule->source, b1, sizeof(b1)));
	json_kv(f, "target", search_tname(p, rule->target, b2, sizeof(b2)));
	json_kv(f, "class", sp_policy_class_name(p, rule->tclass));
	if (kind & SP_AVTAB_AV) {
		fputs(",\"perms\":", f);
		json_perm_list(f, o, rule->tclass,
			       kind == SP_AVTAB_AUDITDENY ? ~rule->data : rule->data);
	} else if (kind & SP_AVTAB_TYPE) {
		json_kv(f, "default", search_tname(p, rule->data, b3, sizeof(b3)));
	} else if (rule->xperms) {
		fprintf(f, ",\"xperms_type\":\"%s\"", rule->xperms->kind == 2 ? "ioctl-drivers"
						      : "ioctl");
	}
	if (rule->cond) {
		char cb[4096];
		sp_policy_cond_format(p, rule->cond, cb, sizeof(cb));
		fputs(",\"conditional\":{\"expression\":", f);
		cli_json_str(f, cb);
		fprintf(f, ",\"branch\":%s,\"enabled\":%s}", rule->cond_list ? "true" : "false",
			rule->specified & SP_AVTAB_ENABLED ? "true" : "false");
	} else {
		fputs(",\"conditional\":null", f);
	}
}

/* Hits asked for this far ahead of the one written: the sorted order visits them at random. */
#define EMIT_AHEAD 16

/* The lines of the hits, sorted, made into blocks: one stdio call a block, not a line. */
static int emit_lines(FILE *f, struct search_out *o)
{
	struct lines blk = { 0 };
	for (size_t i = 0; i < o->n && !blk.oom; i++) {
		if (i + EMIT_AHEAD < o->n)
			search_prefetch(o, o->order[i + EMIT_AHEAD]);
		search_line(o, &o->v[o->order[i]], &blk);
		ln_chr(&blk, '\n');
		if (blk.n >= 32768) {
			fwrite(blk.b, 1, blk.n, f);
			blk.n = 0;
		}
	}
	if (!blk.oom && blk.n)	/* no hits: no buffer */
		fwrite(blk.b, 1, blk.n, f);
	free(blk.b);
	return blk.oom ? -ENOMEM : 0;
}

/* The hits, sorted as sesearch prints them: lines, or --json objects (*nobj so far); 0 or
 * -ENOMEM. */
static int search_emit(FILE *f, struct search_out *o, int json, size_t *nobj)
{
	if (!json)
		return emit_lines(f, o);
	for (size_t i = 0; i < o->n; i++) {
		const struct search_hit *h = &o->v[o->order[i]];
		fputs((*nobj)++ ? ",{\"kind\":" : "{\"kind\":", f);
		struct sp_avtab_entry e;
		switch (search_what(h)) {
		case HIT_FT:
			json_filename_trans(f, o->p, search_ref(o, h));
			break;
		case HIT_RA:
			json_role_rule(f, o->p, search_ref(o, h), NULL);
			break;
		case HIT_RT:
			json_role_rule(f, o->p, NULL, search_ref(o, h));
			break;
		case HIT_MT:
			json_range_rule(f, o->p, search_ref(o, h));
			break;
		default:
			search_rule(o, h, &e);
			json_rule(f, o, &e);
			break;
		}
		o->sl.n = 0;
		search_line(o, h, &o->sl);
		ln_chr(&o->sl, 0);
		if (o->sl.oom)
			return -ENOMEM;
		json_kv(f, "text", o->sl.b);
		fputc('}', f);
	}
	return 0;
}

static void search_usage(FILE *f)
{
	fprintf(f,
		"usage: secpath policy search [RULE KINDS] [-s TYPE] [-t TYPE] [-c CLASS[,..]]\n"
		"                             [-p PERM[,..]] [-ep] [-Sp] [-D TYPE] [-b BOOL[,..]]\n"
		"                             [-eb] [-ds] [-dt] [-x XPERMS [-ex]] [-rs] [-rt] [-rc]\n"
		"                             [-rd] [-rb] [--layout L] [--json] [POLICY]\n\n"
		"Without POLICY: the running policy, where setools looks (/sys/fs/selinux/policy,\n"
		"then /etc/selinux/TYPE/policy/policy.33 down to .15, TYPE from its config).\n"
		"List TE and role rules like sesearch (setools 4.4); --json prints one\n"
		"object (schema secpath.policy-search/1): each rule's kind, source, target, class,\n"
		"perms or default type, conditional expression, branch and state, and its line.\n"
		"Rule kinds: -A (allow, allowxperm), --allow, --allowxperm, --auditallow,\n"
		"  --auditallowxperm, --dontaudit, --dontauditxperm, -T/--type_trans (with\n"
		"  filename transitions), --type_change, --type_member; --neverallow and\n"
		"  --neverallowxperm list nothing (a binary policy holds no neverallow rules;\n"
		"  a note on stderr says so); --role_allow, --role_trans: role rules (-s and -D\n"
		"  name roles, -t a type or attribute, else a role); --range_trans:\n"
		"  range_transition rules (MLS policies; -s, -t and -c apply, -D RANGE matches\n"
		"  rules whose range equals RANGE, e.g. \"s0 - s15:c0.c1023\").\n"
		"-s/-t match rules whose source/target shares a member type with TYPE (a type or\n"
		"attribute); -ds/-dt match the name directly.  -p matches any listed permission\n"
		"(-ep: the rule's set equals the list; -Sp: the list is a subset of the rule's;\n"
		"xperm rules match when their type, ioctl or nlmsg, is listed).  -D matches type\n"
		"rules whose default type is TYPE or a member of it.  -b matches conditional rules\n"
		"whose expression uses any listed boolean (-eb: exactly the listed ones).\n"
		"As in setools, an attribute without member types imposes no criterion.\n"
		"-x 0x8900-0x89ff,0x5401 matches xperm rules whose ioctls intersect the ranges (-ex:\n"
		"equal them; other rules never match).  -rs/-rt/-rd/-rc/-rb take -s/-t/-D/-c/-b as\n"
		"a POSIX extended regular expression found in the name (sesearch: Python's re.search;\n"
		"the same for anchors, classes, alternation and repetition): indirect -s/-t match a\n"
		"member type's name, -ds/-dt the rule's own type or attribute; -rb overrides -eb.\n"
		"On role rules -rs/-rd match role names and -rt the new role (allow) or the\n"
		"type (role_transition; indirect: a member type's name).\n"
		"Conditional rules are followed by their expression and branch.  Rules are\n"
		"printed in sesearch's order: sorted by their line (byte order), TE rules, then\n"
		"role rules.\n");
}

/* The command line of `policy search`: names as given, resolved once the policy is read. */
struct search_args {
	const char *path, *source, *target, *classes, *perms, *dflt, *bools, *xperms;
	int json, neverallow;		/* neverallow: --neverallow or --neverallowxperm given */
	int range;			/* --range_trans */
	int rs, rt, rc, rd, rb;		/* -rs -rt -rc -rd -rb: that value is a regular expression */
	enum sp_avtab_layout layout;
	struct sp_policy_query q;	/* kinds and flags; the values are filled by resolve */
	struct sp_policy_role_query rq;	/* likewise, for the role rule kinds */
};

/* A value option (-s TYPE ...): 1 consumed with its value, 0 not one. */
static int search_value_opt(int argc, char **argv, int *i, struct search_args *a)
{
	static const struct {
		const char *opt, *alt;
		size_t off;
	} opts[] = {
		{ "-s", "--source", offsetof(struct search_args, source) },
		{ "-t", "--target", offsetof(struct search_args, target) },
		{ "-c", "--class", offsetof(struct search_args, classes) },
		{ "-p", "--perms", offsetof(struct search_args, perms) },
		{ "-D", "--default", offsetof(struct search_args, dflt) },
		{ "-b", "--bool", offsetof(struct search_args, bools) },
		{ "-x", "--xperms", offsetof(struct search_args, xperms) },
	};
	for (size_t k = 0; k < NELEM(opts); k++)
		if (!strcmp(argv[*i], opts[k].opt) || !strcmp(argv[*i], opts[k].alt)) {
			if (*i + 1 >= argc)
				return -1;	/* its value is missing */
			*(const char **)(void *)((char *)a + opts[k].off) = argv[++*i];
			return 1;
		}
	return 0;
}

/* A flag or rule kind option: 1 consumed, 0 not one. */
static int search_flag_opt(const char *arg, struct search_args *a)
{
	struct sp_policy_query *q = &a->q;
	const struct {
		const char *opt;
		int *flag;
	} flags[] = {
		{ "-eb", &q->bools_equal }, { "-ep", &q->perms_equal }, { "-Sp", &q->perms_subset },
		{ "-ds", &q->source_direct }, { "-dt", &q->target_direct },
		{ "-ex", &q->xperms_equal }, { "-rs", &a->rs }, { "-rt", &a->rt },
		{ "-rc", &a->rc }, { "-rd", &a->rd }, { "-rb", &a->rb },
		{ "--range_trans", &a->range },
	};
	for (size_t k = 0; k < NELEM(kind_opts); k++)
		if (!strcmp(arg, kind_opts[k].opt) || (kind_opts[k].alt && !strcmp(arg, kind_opts[k].alt))) {
			q->kinds |= kind_opts[k].kinds;
			q->filename_trans |= kind_opts[k].filename_trans;
			a->neverallow |= !kind_opts[k].kinds;
			return 1;
		}
	for (size_t k = 0; k < NELEM(role_opts); k++)
		if (!strcmp(arg, role_opts[k].opt)) {
			a->rq.kinds |= role_opts[k].kinds;
			return 1;
		}
	for (size_t k = 0; k < NELEM(flags); k++)
		if (!strcmp(arg, flags[k].opt)) {
			*flags[k].flag = 1;
			return 1;
		}
	return 0;
}

/* Returns -1 (usage error, reported), 1 (--help printed) or 0. */
static int parse_search(int argc, char **argv, struct sp_cli *cli, struct search_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int c;
		if (cli_is_help(arg)) {
			search_usage(cli->out);
			return 1;
		} else if (search_flag_opt(arg, a) || (c = search_value_opt(argc, argv, &i, a)) > 0) {
			continue;
		} else if (c < 0) {
			fprintf(cli->err, "%s policy search: %s needs a value\n", cli->prog, arg);
			search_usage(cli->err);
			return -1;
		} else if ((c = cli_policy_common_opt(argc, argv, &i, &a->json, &a->layout, cli))) {
			if (c < 0)
				return -1;
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(cli->err, "%s: unknown option '%s'\n", cli->prog, arg);
			search_usage(cli->err);
			return -1;
		} else if (!a->path) {
			a->path = arg;
		} else {
			search_usage(cli->err);
			return -1;
		}
	}
	if (!a->q.kinds && !a->rq.kinds && !a->neverallow && !a->range) {
		fprintf(cli->err, "%s: give at least one rule kind (-A, -T, ...)\n", cli->prog);
		search_usage(cli->err);
		return -1;
	}
	return 0;
}

/* The names of a comma list (strtok: empty names skipped), in one malloc'd block holding the
 * pointer array and a copy of the text; *n of them.  NULL when out of memory. */
static char **split_list(const char *list, size_t *n)
{
	size_t len = strlen(list), max = 1;
	for (const char *c = list; *c; c++)
		max += *c == ',';
	char **names = malloc(max * sizeof(char *) + len + 1);
	if (!names)
		return NULL;
	char *buf = memcpy((char *)(names + max), list, len + 1);
	*n = 0;
	for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		names[(*n)++] = tok;
	return names;
}

/* A type or attribute by name: 0 and *v, or -1 (reported). */
static int resolve_type(struct sp_cli *cli, const struct sp_policy *p, const char *name,
			uint32_t *v)
{
	if (name && !(*v = sp_policy_type_lookup(p, name))) {
		fprintf(cli->err, "%s: no type or attribute '%s' in the policy\n", cli->prog, name);
		return -1;
	}
	return 0;
}

/* The lists of a query: -c and -b resolved to values, -p as names; the values the -r* regular
 * expressions match; the -x ranges. */
struct search_lists {
	char **cname, **pname, **bname;
	uint32_t *cls, *bools, *srcs, *tgts, *dfls, *drange, *rsrcs, *rtgts, *ttypes, *rdfls;
	struct sp_xperm_range *xr;
};

/* sesearch's -r options: setools compiles the value as a Python regular expression and keeps a
 * name when re.search finds it; here it is a POSIX extended one (regcomp), the same language
 * for what policy names need (anchors, bracket classes, alternation, repetition).  0 or -1. */
static int regex_compile(struct sp_cli *cli, const char *opt, const char *pat, regex_t *re)
{
	int rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];
		regerror(rc, re, msg, sizeof(msg));
		fprintf(cli->err, "%s: %s '%s': not a regular expression: %s\n", cli->prog, opt, pat,
			msg);
	}
	return rc ? -1 : 0;
}

enum { RX_TYPES, RX_TYPES_ATTRS, RX_CLASSES, RX_BOOLS, RX_ROLES };

static const char *rx_name(const struct sp_policy *p, int what, uint32_t v, char *b, size_t len)
{
	switch (what) {
	case RX_TYPES:
		return sp_policy_type_is_attr(p, v) ? NULL : search_tname(p, v, b, len);
	case RX_TYPES_ATTRS:
		return search_tname(p, v, b, len);
	case RX_CLASSES:
		return sp_policy_class_name(p, v);
	case RX_ROLES:
		return sp_policy_role_name(p, v);
	default:
		return sp_policy_bool_name(p, v);
	}
}

/* The values whose names the regular expression pat (of option opt) matches: types alone (an
 * indirect criterion: setools matches the member types of the rule's type), types and
 * attributes (a direct one: the rule's own type), classes or booleans.  *v is never NULL on
 * success, so an expression matching nothing matches no rule.  0 or -1 (reported). */
static int regex_values(struct sp_cli *cli, const struct sp_policy *p, const char *opt,
			const char *pat, int what, uint32_t **v, size_t *n)
{
	uint32_t count = what == RX_CLASSES ? sp_policy_class_count(p)
			 : what == RX_BOOLS ? sp_policy_bool_count(p)
			 : what == RX_ROLES ? sp_policy_role_count(p) : sp_policy_type_count(p);
	regex_t re;
	if (regex_compile(cli, opt, pat, &re))
		return -1;
	*n = 0;
	if ((*v = calloc((size_t)count + 1, sizeof(uint32_t))))
		for (uint32_t i = 1; i <= count; i++) {
			char b[32];
			const char *name = rx_name(p, what, i, b, sizeof(b));
			if (name && !regexec(&re, name, 0, NULL, 0))
				(*v)[(*n)++] = i;
		}
	regfree(&re);
	if (!*v)
		fprintf(cli->err, "%s: %s\n", cli->prog, strerror(ENOMEM));
	return *v ? 0 : -1;
}

/* One hexadecimal number of -x (an optional 0x, as Python's int(s, 16)) at *s; 0 or -1. */
static int xperm_hex(const char **s, uint16_t *v)
{
	const char *c = *s;
	unsigned long x = 0;
	int digits = 0;
	if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X'))
		c += 2;
	for (; *c && *c != ',' && *c != '-'; c++, digits++) {
		int d = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
			: *c >= 'A' && *c <= 'F' ? *c - 'A' + 10 : -1;
		if (d < 0 || (x = x * 16 + (unsigned)d) > 0xffff) {
			*s = c;
			return -1;
		}
	}
	*s = c;
	*v = (uint16_t)x;
	return digits ? 0 : -1;
}

/* sesearch's -x list, "0x8900-0x8905,0x8910" (setools' xperm_str_to_tuple_ranges; a range given
 * high first is swapped, as TERuleQuery does).  0, or -1 with the byte offset reported. */
static int parse_xperms(struct sp_cli *cli, const char *list, struct sp_xperm_range **out,
			size_t *n)
{
	size_t max = 1;
	for (const char *c = list; *c; c++)
		max += *c == ',';
	if (!(*out = calloc(max, sizeof(**out))))
		return -1;
	const char *c = list;
	for (*n = 0;;) {
		struct sp_xperm_range *r = &(*out)[(*n)++];
		int bad = xperm_hex(&c, &r->lo);
		r->hi = r->lo;
		if (!bad && *c == '-') {
			c++;
			bad = xperm_hex(&c, &r->hi);
		}
		if (bad || (*c && *c != ',')) {
			fprintf(cli->err, "%s: -x '%s': offset %zu: expected a 16-bit hexadecimal "
				"number or range (0x8900-0x89ff)\n", cli->prog, list, (size_t)(c - list));
			return -1;
		}
		if (r->hi < r->lo) {
			uint16_t t = r->lo;
			r->lo = r->hi;
			r->hi = t;
		}
		if (!*c++)
			return 0;
	}
}

/* A class or boolean list to values: 0, or -1 (an unknown name reported, or out of memory). */
static int resolve_list(struct sp_cli *cli, const struct sp_policy *p, const char *list,
			int is_class, char ***names, uint32_t **vals, size_t *n)
{
	if (!(*names = split_list(list, n)) || !(*vals = calloc(*n + 1, sizeof(uint32_t))))
		return -1;
	for (size_t i = 0; i < *n; i++) {
		const char *name = (*names)[i];
		(*vals)[i] = is_class ? sp_policy_class_lookup(p, name) : sp_policy_bool_lookup(p, name);
		if (!(*vals)[i]) {
			fprintf(cli->err, "%s: no %s '%s' in the policy\n", cli->prog,
				is_class ? "class" : "boolean", name);
			return -1;
		}
	}
	return 0;
}

/* A role by name: 0 and *v, or -1 (reported). */
static int resolve_role(struct sp_cli *cli, const struct sp_policy *p, const char *name,
			uint32_t *v)
{
	if (!name)
		return 0;
	for (uint32_t r = 1; r <= sp_policy_role_count(p); r++)
		if (sp_policy_role_name(p, r) && !strcmp(sp_policy_role_name(p, r), name)) {
			*v = r;
			return 0;
		}
	fprintf(cli->err, "%s: no role '%s' in the policy\n", cli->prog, name);
	return -1;
}

/* -s, -t or -D of TE rules (and -rt of role_transition rules): a type or attribute, or with
 * its -r option the values its expression matches (*list).  0 or -1 (reported). */
static int resolve_type_opt(struct sp_cli *cli, const struct sp_policy *p, const char *opt,
			    const char *name, int regex, int direct, uint32_t *v, uint32_t **list,
			    size_t *n)
{
	if (!name || !regex)
		return resolve_type(cli, p, name, v);
	return regex_values(cli, p, opt, name, direct ? RX_TYPES_ATTRS : RX_TYPES, list, n);
}

/* The role kinds' criteria as setools takes them: -s and -D name roles; -t a type or
 * attribute, else a role; -c and -dt as for TE rules.  0 or -1 (reported). */
static int resolve_roles(struct sp_cli *cli, const struct sp_policy *p, struct search_args *a,
			 struct search_lists *l)
{
	struct sp_policy_role_query *rq = &a->rq;
	rq->sz = sizeof(*rq);
	rq->target_direct = a->q.target_direct;
	rq->classes = a->q.classes;
	rq->nclasses = a->q.nclasses;
	if (a->source && (a->rs ? regex_values(cli, p, "-rs", a->source, RX_ROLES, &l->rsrcs,
					       &rq->nsources)
				: resolve_role(cli, p, a->source, &rq->source)))
		return -1;
	rq->sources = l->rsrcs;
	if (a->target && a->rt) {	/* the pattern meets roles (allow) and types (transition) */
		if (regex_values(cli, p, "-rt", a->target, RX_ROLES, &l->rtgts, &rq->ntarget_roles) ||
		    resolve_type_opt(cli, p, "-rt", a->target, 1, rq->target_direct, &rq->target_type,
				     &l->ttypes, &rq->ntarget_types))
			return -1;
		rq->target_roles = l->rtgts;
		rq->target_types = l->ttypes;
	} else if (a->target && !(rq->target_type = sp_policy_type_lookup(p, a->target)) &&
		   resolve_role(cli, p, a->target, &rq->target_role)) {
		return -1;
	}
	if (a->dflt && a->rd) {
		if (regex_values(cli, p, "-rd", a->dflt, RX_ROLES, &l->rdfls, &rq->ndefaults))
			return -1;
		rq->defaults = l->rdfls;
		return 0;
	}
	return resolve_role(cli, p, a->dflt, &rq->default_role);
}

/* -D of range transitions: a range as setools reads it, into *lv (malloc'd); 0 or -1 (the
 * error reported in setools' words after the column in the argument it names: "-D:4: "). */
static int parse_range(struct sp_cli *cli, const struct sp_policy *p, const char *text,
		       uint32_t **lv)
{
	char why[1024];
	size_t at = 0;
	int n = sp_policy_range_parse_at(p, text, NULL, 0, why, sizeof(why), &at);
	if (n > 0 && !(*lv = malloc((size_t)n * sizeof(**lv))))
		n = -ENOMEM;
	if (n > 0)
		n = sp_policy_range_parse_at(p, text, *lv, (size_t)n, why, sizeof(why), &at);
	if (n == -ENOMEM)
		snprintf(why, sizeof(why), "%s", strerror(ENOMEM));
	if (n < 0)
		fprintf(cli->err, "%s: -D:%zu: %s\n", cli->prog, at + 1, why);
	return n < 0 ? -1 : 0;
}

/* Names to values, in the order the errors are reported; 0 or -1 (reported).  The classes are
 * resolved before the role criteria, which share them. */
static int resolve_search(struct sp_cli *cli, const struct sp_policy *p, struct search_args *a,
			  struct search_lists *l)
{
	struct sp_policy_query *q = &a->q;
	size_t nb = 0;
	/* sesearch checks the type names for neverallow too */
	int te = q->kinds || a->neverallow || a->range;
	if (te && (resolve_type_opt(cli, p, "-rs", a->source, a->rs, q->source_direct, &q->source,
				    &l->srcs, &q->nsources) ||
		   resolve_type_opt(cli, p, "-rt", a->target, a->rt, q->target_direct, &q->target,
				    &l->tgts, &q->ntargets)))
		return -1;
	q->sources = l->srcs;
	q->targets = l->tgts;
	if (a->classes) {
		if (a->rc ? regex_values(cli, p, "-rc", a->classes, RX_CLASSES, &l->cls, &q->nclasses)
			  : resolve_list(cli, p, a->classes, 1, &l->cname, &l->cls, &q->nclasses))
			return -1;
		q->classes = l->cls;
	}
	if ((q->kinds || a->neverallow) &&
	    resolve_type_opt(cli, p, "-rd", a->dflt, a->rd, 0, &q->default_type, &l->dfls,
			     &q->ndefaults))
		return -1;
	q->defaults = l->dfls;
	if (a->range && a->dflt && *a->dflt && parse_range(cli, p, a->dflt, &l->drange))
		return -1;
	q->default_range = l->drange;
	if (a->rq.kinds && resolve_roles(cli, p, a, l))
		return -1;
	if (a->bools && a->rb) {	/* a regular expression overrides -eb (setools) */
		if (regex_values(cli, p, "-rb", a->bools, RX_BOOLS, &l->bools, &q->nbools))
			return -1;
		q->bools = l->bools;
		q->bools_equal = 0;
	} else if (a->bools) {
		if (resolve_list(cli, p, a->bools, 0, &l->bname, &l->bools, &nb))
			return -1;
		q->bools = nb ? l->bools : NULL;	/* an empty -b list imposes no criterion */
		q->nbools = nb;
	}
	if (a->xperms) {
		if (parse_xperms(cli, a->xperms, &l->xr, &q->nxperms))
			return -1;
		q->xperms = l->xr;
	}
	if (a->perms) {
		if (!(l->pname = split_list(a->perms, &q->nperms)))
			return -1;
		q->perms = (const char *const *)l->pname;
	}
	return 0;
}

int cmd_policy_search(int argc, char **argv, struct sp_cli *cli)
{
	struct search_args a = { .layout = SP_AVTAB_FLAT, .q = { .sz = sizeof(a.q) } };
	struct search_lists l = { 0 };
	int rc = parse_search(argc, argv, cli, &a);
	if (rc)
		return rc < 0 ? SP_EXIT_USAGE : SP_EXIT_OK;
	struct sp_policy *p;
	char running[PATH_MAX];
	if (cli_policy_open(cli, &a.path, running, sizeof(running), a.layout, &p))
		return SP_EXIT_REJECTED;
	rc = SP_EXIT_REJECTED;
	struct search_out o, ro, mo;
	const struct sp_allocator *al = cli->region ? sp_region_allocator(cli->region) : NULL;
	int err = search_out_init(&o, p, 1, al);
	int err_r = search_out_init(&ro, p, 0, al), err_m = search_out_init(&mo, p, 0, al);
	err = err ? err : err_r ? err_r : err_m;
	if (err) {
		fprintf(cli->err, "%s: search: %s\n", cli->prog, strerror(-err));
		goto out;
	}
	if (resolve_search(cli, p, &a, &l))
		goto out;
	if (a.neverallow)
		fprintf(cli->err, "%s: a binary policy holds no neverallow rules (the compiler checks "
			"and drops them): none listed\n", cli->prog);
	/* sesearch prints the TE rules, then the role rules, each kind group sorted */
	err = a.q.kinds ? sp_policy_search(p, &a.q, search_collect, &o) : 0;
	if (!err && a.rq.kinds)
		err = sp_policy_role_search(p, &a.rq, search_collect_role, &ro);
	if (!err && a.range)
		err = sp_policy_range_search(p, &a.q, search_collect_range, &mo);
	if (err) {
		fprintf(cli->err, "%s: search: %s\n", cli->prog, strerror(-err));
		goto out;
	}
	if ((err = search_sort(&o)) || (err = search_sort(&ro)) || (err = search_sort(&mo))) {
		fprintf(cli->err, "%s: search: %s\n", cli->prog, strerror(-err));
		goto out;
	}
	size_t nobj = 0;
	if (a.json) {
		fputs("{\"schema\":\"secpath.policy-search/1\",\"file\":", cli->out);
		cli_json_str(cli->out, a.path);
		fputs(",\"rules\":[", cli->out);
	}
	if ((err = search_emit(cli->out, &o, a.json, &nobj)) ||
	    (err = search_emit(cli->out, &ro, a.json, &nobj)) ||
	    (err = search_emit(cli->out, &mo, a.json, &nobj))) {
		fprintf(cli->err, "%s: search: %s\n", cli->prog, strerror(-err));
		goto out;
	}
	if (a.json)
		fputs("]}\n", cli->out);
	rc = SP_EXIT_OK;
out:
	search_out_release(&o);
	search_out_release(&ro);
	search_out_release(&mo);
	free(l.cname);
	free(l.cls);
	free(l.pname);
	free(l.bname);
	free(l.bools);
	free(l.srcs);
	free(l.tgts);
	free(l.dfls);
	free(l.drange);
	free(l.rsrcs);
	free(l.rtgts);
	free(l.ttypes);
	free(l.rdfls);
	free(l.xr);
	sp_policy_free(p);
	return rc;
}
