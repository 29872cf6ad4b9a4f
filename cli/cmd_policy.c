/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_policy.c - `secpath policy info|search|decide`: summary counts (seinfo-like), rule search
 * with sesearch's semantics and output format, and the TE access decision for a type pair.
 *
 * Search semantics (setools 4.4): -s/-t match a rule when the member types of the query's type or
 * attribute intersect those of the rule's (a type's members are itself); -ds/-dt compare names.
 * -c takes a comma list of classes, -p a comma list of permissions (any intersection; -ep equal
 * set, -Sp subset; xperm rules match by their xperm type name), -D a default type (member-type
 * expansion), -b a comma list of booleans (any in the rule's expression; -eb the exact set).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "secpath/policy.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int parse_layout(const char *s, enum sp_avtab_layout *l)
{
	for (int i = 0; i < SP_AVTAB_NLAYOUTS; i++)
		if (!strcmp(s, sp_avtab_layout_name((enum sp_avtab_layout)i))) {
			*l = (enum sp_avtab_layout)i;
			return 0;
		}
	return -EINVAL;
}

static int load(struct sp_cli *cli, const char *path, enum sp_avtab_layout layout,
		struct sp_policy **p)
{
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = layout, .diags = &d, .file = path };
	int rc = sp_policy_read_file(path, &o, p);
	if (rc) {
		if (d.n)
			cli_print_diags(cli, &d, NULL, NULL);
		else
			fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, strerror(-rc));
	}
	sp_diags_release(&d);
	return rc;
}

/* ---- info ---- */

static void info_usage(FILE *f)
{
	fprintf(f, "usage: secpath policy info [--json] [--layout chained|array|flat] POLICY\n\n"
		   "Print the policy version, MLS state and symbol/rule counts (like seinfo).\n"
		   "POLICY may be xz-compressed.\n");
}

/* The options info, decide and search share: --json and --layout.  1 consumed argv[*i] (and its value),
 * 0 not one of them, -1 a bad value (reported). */
static int common_opt(int argc, char **argv, int *i, int *json, enum sp_avtab_layout *layout,
		      struct sp_cli *cli)
{
	if (!strcmp(argv[*i], "--json")) {
		*json = 1;
		return 1;
	}
	if (!strcmp(argv[*i], "--layout") && *i + 1 < argc) {
		if (parse_layout(argv[++*i], layout)) {
			fprintf(cli->err, "%s: unknown layout '%s'\n", cli->prog, argv[*i]);
			return -1;
		}
		return 1;
	}
	return 0;
}

static int cmd_info(int argc, char **argv, struct sp_cli *cli)
{
	int json = 0;
	enum sp_avtab_layout layout = SP_AVTAB_FLAT;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		int c;
		if (cli_is_help(argv[i])) {
			info_usage(cli->out);
			return SP_EXIT_OK;
		} else if ((c = common_opt(argc, argv, &i, &json, &layout, cli))) {
			if (c < 0)
				return SP_EXIT_USAGE;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(cli->err, "%s: unknown option '%s'\n", cli->prog, argv[i]);
			info_usage(cli->err);
			return SP_EXIT_USAGE;
		} else if (!path) {
			path = argv[i];
		} else {
			info_usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (!path) {
		info_usage(cli->err);
		return SP_EXIT_USAGE;
	}
	struct sp_policy *p;
	if (load(cli, path, layout, &p))
		return SP_EXIT_REJECTED;
	struct sp_policy_info in;
	sp_policy_get_info(p, &in);
	const char *hu = (in.config & 4) ? "allow" : (in.config & 2) ? "reject" : "deny";
	struct { const char *k; uint64_t v; } rows[] = {
		{ "classes", in.classes }, { "permissions", in.perms },
		{ "commons", in.commons }, { "sensitivities", in.sensitivities },
		{ "categories", in.categories }, { "types", in.types },
		{ "attributes", in.attributes }, { "aliases", in.aliases },
		{ "users", in.users }, { "roles", in.roles },
		{ "booleans", in.bools }, { "cond_expressions", in.cond_nodes },
		{ "te_rules", in.te_rules }, { "cond_rules", in.cond_rules },
		{ "cond_rules_enabled", in.cond_enabled }, { "allow", in.te_allow },
		{ "auditallow", in.te_auditallow }, { "dontaudit", in.te_dontaudit },
		{ "type_transition", in.te_type_trans }, { "type_change", in.te_type_change },
		{ "type_member", in.te_type_member }, { "xperm_rules", in.te_xperms },
		{ "filename_trans_keys", in.filename_keys }, { "filename_trans", in.filename_rules },
		{ "role_transition", in.role_trans }, { "role_allow", in.role_allow },
		{ "range_transition", in.range_trans }, { "constraints", in.constraints },
		{ "validatetrans", in.validatetrans }, { "initial_sids", in.initial_sids },
		{ "ocontexts", in.ocontexts }, { "genfs", in.genfs },
		{ "permissive_types", in.permissive }, { "policy_capabilities", in.polcaps },
		{ "te_avtab_bytes", in.te_bytes }, { "cond_bytes", in.cond_bytes },
		{ "decide_bytes", in.decide_bytes }, { "total_bytes", in.total_bytes },
	};
	if (json) {
		fprintf(cli->out, "{\"file\": ");
		cli_json_str(cli->out, path);
		fprintf(cli->out, ", \"version\": %u, \"mls\": %s, \"handle_unknown\": \"%s\", "
				  "\"layout\": \"%s\"",
			in.version, in.mls ? "true" : "false", hu, sp_avtab_layout_name(in.layout));
		for (size_t i = 0; i < NELEM(rows); i++)
			fprintf(cli->out, ", \"%s\": %llu", rows[i].k, (unsigned long long)rows[i].v);
		fprintf(cli->out, "}\n");
	} else {
		fprintf(cli->out, "Statistics for policy file: %s\n", path);
		fprintf(cli->out, "Policy Version:             %u (MLS %s)\n", in.version,
			in.mls ? "enabled" : "disabled");
		fprintf(cli->out, "Handle unknown classes:     %s\n", hu);
		fprintf(cli->out, "avtab layout:               %s\n", sp_avtab_layout_name(in.layout));
		for (size_t i = 0; i < NELEM(rows); i++)
			fprintf(cli->out, "  %-22s %10llu%s", rows[i].k,
				(unsigned long long)rows[i].v, i % 2 ? "\n" : "   ");
		if (NELEM(rows) % 2)
			fputc('\n', cli->out);
	}
	sp_policy_free(p);
	return SP_EXIT_OK;
}

/* ---- search ---- */

struct search {
	struct sp_policy *p;
	struct sp_cli *cli;
	uint16_t kinds;
	int want_ft;
	uint32_t s, t;			/* query values (0 = any) */
	int ds, dt;
	uint8_t *smatch, *tmatch;	/* indirect: per value, does it share a member type */
	uint8_t *cls;			/* class filter (NULL = any) */
	uint32_t *perms;		/* per class: mask of -p permissions */
	int have_perms;
	int ep, sp;			/* -ep exact permission set, -Sp subset */
	uint32_t npn;			/* distinct -p names */
	uint32_t *pfound;		/* per class: how many of them the class has */
	uint32_t *valid;		/* per class: mask of its defined permissions */
	int px_ioctl, px_nlmsg;		/* -p names the xperm type (setools matches xperm rules) */
	uint32_t d;			/* -D default type or attribute (0 = any) */
	uint8_t *dmatch;
	uint8_t *bset;			/* -b: per boolean, listed */
	uint32_t nbq;			/* distinct -b booleans (0 = no criterion) */
	int eb;				/* -eb: the expression's booleans equal the list */
	size_t found;
};

/* match[v] = 1 for every value v whose member types intersect q's member types */
static uint8_t *match_set(struct sp_policy *p, uint32_t q)
{
	uint32_t nt = sp_policy_type_count(p);
	uint8_t *m = calloc((size_t)nt + 1, 1);
	if (!m)
		return NULL;
	const uint32_t *mem, *row;
	size_t nm = sp_policy_attr_types(p, q, &mem);
	for (size_t i = 0; i < nm; i++) {
		if (sp_policy_type_is_attr(p, mem[i]))
			continue;
		size_t nr = sp_policy_type_attrs(p, mem[i], &row);
		for (size_t j = 0; j < nr; j++)
			m[row[j]] = 1;
	}
	return m;
}

static int empty_attr(struct sp_policy *p, uint32_t v)
{
	const uint32_t *mem;
	size_t n = sp_policy_attr_types(p, v, &mem);
	if (!sp_policy_type_is_attr(p, v))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!sp_policy_type_is_attr(p, mem[i]))
			return 0;
	return 1;
}

static const char *tname(struct sp_policy *p, uint32_t v, char *buf, size_t len)
{
	const char *n = sp_policy_type_name(p, v);
	if (n)
		return n;
	snprintf(buf, len, "@ttr%04u", v);
	return buf;
}

static void print_perms(FILE *f, struct sp_policy *p, uint32_t c, uint32_t mask)
{
	const char *names[32];
	int n = 0;
	for (unsigned b = 0; b < 32; b++)
		if (mask >> b & 1) {
			const char *nm = sp_policy_perm_name(p, c, b);
			names[n++] = nm ? nm : "?";
		}
	/* setools sorts permission names */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *x = names[j];
			names[j] = names[j - 1];
			names[j - 1] = x;
		}
	if (n == 1) {
		fprintf(f, "%s", names[0]);
		return;
	}
	fprintf(f, "{");
	for (int i = 0; i < n; i++)
		fprintf(f, " %s", names[i]);
	fprintf(f, " }");
}

/* setools TERuleQuery's permission criterion (-p, -ep, -Sp) */
static int perm_match(const struct search *q, uint16_t kind, const struct sp_avtab_entry *e,
		      uint32_t perms)
{
	if (kind & SP_AVTAB_XPERMS) {	/* the rule's xperm type must be listed */
		if (q->ep && q->npn > 1)
			return 0;
		return e->xperms && e->xperms->kind == 3 ? q->px_nlmsg : q->px_ioctl;
	}
	if (!(kind & SP_AVTAB_AV))
		return 0;
	uint32_t want = q->perms[e->tclass], have = perms & q->valid[e->tclass];
	int all_named = q->pfound[e->tclass] == q->npn;
	if (q->sp)
		return all_named && (have & want) == want;
	if (q->ep)
		return all_named && have == want;
	return (have & want) != 0;
}

/* setools' Boolean criterion (-b, -eb): unconditional rules never match */
static int bool_match(const struct search *q, uint32_t cond)
{
	uint32_t bv[256];
	if (!cond)
		return 0;
	size_t nb = sp_policy_cond_bools(q->p, cond, bv, NELEM(bv)), hits = 0;
	if (nb > NELEM(bv))
		nb = NELEM(bv);
	for (size_t i = 0; i < nb; i++)
		hits += q->bset[bv[i]];
	return q->eb ? hits == q->nbq && nb == q->nbq : hits > 0;
}

static int search_entry(void *ud, const struct sp_avtab_entry *e)
{
	struct search *q = ud;
	struct sp_policy *p = q->p;
	uint16_t kind = e->specified & (uint16_t)~SP_AVTAB_ENABLED;
	if (!(kind & q->kinds))
		return 0;
	if (q->s && (q->ds ? e->source != q->s : !q->smatch[e->source]))
		return 0;
	if (q->t && (q->dt ? e->target != q->t : !q->tmatch[e->target]))
		return 0;
	if (q->cls && !q->cls[e->tclass])
		return 0;
	uint32_t perms = kind == SP_AVTAB_AUDITDENY ? ~e->data : e->data;
	if (q->have_perms && !perm_match(q, kind, e, perms))
		return 0;
	if (q->d && (!(kind & SP_AVTAB_TYPE) || e->data > sp_policy_type_count(p) ||
		     !q->dmatch[e->data]))
		return 0;
	if (q->nbq && !bool_match(q, e->cond))
		return 0;
	FILE *f = q->cli->out;
	char b1[32], b2[32], b3[32];
	const char *kw = kind == SP_AVTAB_ALLOWED ? "allow" : kind == SP_AVTAB_AUDITALLOW ? "auditallow"
		: kind == SP_AVTAB_AUDITDENY ? "dontaudit" : kind == SP_AVTAB_TRANSITION ? "type_transition"
		: kind == SP_AVTAB_MEMBER ? "type_member" : kind == SP_AVTAB_CHANGE ? "type_change"
		: kind == SP_AVTAB_XPERMS_ALLOWED ? "allowxperm"
		: kind == SP_AVTAB_XPERMS_AUDITALLOW ? "auditallowxperm" : "dontauditxperm";
	fprintf(f, "%s %s %s:%s ", kw, tname(p, e->source, b1, sizeof(b1)),
		tname(p, e->target, b2, sizeof(b2)), sp_policy_class_name(p, e->tclass));
	if (kind & SP_AVTAB_AV) {
		print_perms(f, p, e->tclass, perms);
	} else if (kind & SP_AVTAB_TYPE) {
		fprintf(f, "%s", tname(p, e->data, b3, sizeof(b3)));
	} else if (e->xperms) {
		/* setools: ranges of 16-bit ioctl numbers; braces only around two or more */
		const struct sp_avtab_xperms *x = e->xperms;
		char buf[4096];
		size_t o = 0;
		int nr = 0;
		for (unsigned i = 0; i < 256; i++) {
			if (!(x->perms[i / 32] >> (i % 32) & 1))
				continue;
			unsigned j = i;
			while (j + 1 < 256 && (x->perms[(j + 1) / 32] >> ((j + 1) % 32) & 1))
				j++;
			unsigned lo = x->kind == 2 ? i << 8 : (unsigned)x->driver << 8 | i;
			unsigned hi = x->kind == 2 ? (j << 8) | 0xff : (unsigned)x->driver << 8 | j;
			if (o < sizeof(buf))
				o += (size_t)(lo == hi ? snprintf(buf + o, sizeof(buf) - o, " 0x%x", lo)
						       : snprintf(buf + o, sizeof(buf) - o, " 0x%x-0x%x",
								  lo, hi));
			nr++;
			i = j;
		}
		fprintf(f, "%s %s%s%s", x->kind == 3 ? "nlmsg" : "ioctl", nr > 1 ? "{" : "",
			nr ? buf + (nr > 1 ? 0 : 1) : "", nr > 1 ? " }" : "");
	}
	fprintf(f, ";");
	if (e->cond) {
		char cb[4096];
		sp_policy_cond_format(p, e->cond, cb, sizeof(cb));
		fprintf(f, " %s:%s", cb, e->cond_list ? "True" : "False");
	}
	fputc('\n', f);
	q->found++;
	return 0;
}

static void search_usage(FILE *f)
{
	fprintf(f,
		"usage: secpath policy search [RULE KINDS] [-s TYPE] [-t TYPE] [-c CLASS[,..]]\n"
		"                             [-p PERM[,..]] [-ep] [-Sp] [-D TYPE] [-b BOOL[,..]]\n"
		"                             [-eb] [-ds] [-dt] [--layout L] [--json] POLICY\n\n"
		"List te_avtab and conditional rules like sesearch (setools 4.4); --json prints\n"
		"{\"file\": POLICY, \"rules\": [the same lines]}.\n"
		"Rule kinds: -A (allow, allowxperm), --allow, --allowxperm, --auditallow,\n"
		"  --auditallowxperm, --dontaudit, --dontauditxperm, -T/--type_trans (with\n"
		"  filename transitions), --type_change, --type_member.\n"
		"-s/-t match rules whose source/target shares a member type with TYPE (a type or\n"
		"attribute); -ds/-dt match the name directly.  -p matches any listed permission\n"
		"(-ep: the rule's set equals the list; -Sp: the list is a subset of the rule's;\n"
		"xperm rules match when their type, ioctl or nlmsg, is listed).  -D matches type\n"
		"rules whose default type is TYPE or a member of it.  -b matches conditional rules\n"
		"whose expression uses any listed boolean (-eb: exactly the listed ones).\n"
		"As in setools, an attribute without member types imposes no criterion.\n"
		"Conditional rules are followed by their expression and branch.\n");
}

static uint8_t *parse_classes(struct sp_cli *cli, struct sp_policy *p, const char *list)
{
	uint8_t *m = calloc((size_t)sp_policy_class_count(p) + 1, 1);
	char *dup = strdup(list);
	if (!m || !dup) {
		free(m);
		free(dup);
		return NULL;
	}
	for (char *save, *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t c = sp_policy_class_lookup(p, tok);
		if (!c) {
			fprintf(cli->err, "%s: no class '%s' in the policy\n", cli->prog, tok);
			free(m);
			free(dup);
			return NULL;
		}
		m[c] = 1;
	}
	free(dup);
	return m;
}

/* -p: per class the mask of listed permissions, how many distinct names it has, its valid mask */
static int parse_perms(struct search *q, const char *list)
{
	struct sp_policy *p = q->p;
	uint32_t nc = sp_policy_class_count(p);
	q->perms = calloc((size_t)nc + 1, sizeof(uint32_t));
	q->pfound = calloc((size_t)nc + 1, sizeof(uint32_t));
	q->valid = calloc((size_t)nc + 1, sizeof(uint32_t));
	char *dup = strdup(list);
	if (!q->perms || !q->pfound || !q->valid || !dup) {
		free(dup);
		return -ENOMEM;
	}
	for (uint32_t c = 1; c <= nc; c++)
		for (unsigned b = 0; b < 32; b++)
			if (sp_policy_perm_name(p, c, b))
				q->valid[c] |= 1u << b;
	const char *seen[64];
	for (char *save, *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int dupname = 0;
		for (uint32_t i = 0; i < q->npn && i < NELEM(seen); i++)
			dupname |= !strcmp(seen[i], tok);
		if (dupname)
			continue;
		if (q->npn < NELEM(seen))
			seen[q->npn] = tok;
		q->npn++;
		q->px_ioctl |= !strcmp(tok, "ioctl");
		q->px_nlmsg |= !strcmp(tok, "nlmsg");
		for (uint32_t c = 1; c <= nc; c++) {
			unsigned b = sp_policy_perm_lookup(p, c, tok);
			if (b) {
				q->perms[c] |= 1u << (b - 1);
				q->pfound[c]++;
			}
		}
	}
	free(dup);
	q->have_perms = 1;
	return 0;
}

static int parse_bools(struct sp_cli *cli, struct search *q, const char *list)
{
	q->bset = calloc((size_t)sp_policy_bool_count(q->p) + 1, 1);
	char *dup = strdup(list);
	int rc = q->bset && dup ? 0 : -ENOMEM;
	for (char *save, *tok = dup ? strtok_r(dup, ",", &save) : NULL; tok && !rc;
	     tok = strtok_r(NULL, ",", &save)) {
		uint32_t b = sp_policy_bool_lookup(q->p, tok);
		if (!b) {
			fprintf(cli->err, "%s: no boolean '%s' in the policy\n", cli->prog, tok);
			rc = -EINVAL;
		} else if (!q->bset[b]) {
			q->bset[b] = 1;
			q->nbq++;
		}
	}
	free(dup);
	return rc;
}

/* --json: the rule lines, as sesearch prints them, in one object.  text (NUL-terminated at
 * len, the memory stream's buffer) is split in place. */
static void search_json(FILE *f, const char *path, char *text, size_t len)
{
	fputs("{\"file\":", f);
	cli_json_str(f, path);
	fputs(",\"rules\":[", f);
	for (char *p = text, *end = text + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (nl)
			*nl = 0;
		fputs(p == text ? "" : ",", f);
		cli_json_str(f, p);
		p = nl ? nl + 1 : end;
	}
	fputs("]}\n", f);
}

static int cmd_search(int argc, char **argv, struct sp_cli *cli)
{
	struct sp_cli jcli = *cli;	/* with --json, rule lines go to a memory stream first */
	char *jbuf = NULL;
	size_t jlen = 0;
	int json = 0;
	struct search q = { .cli = cli };
	const char *path = NULL, *sname = NULL, *tnm = NULL, *cls = NULL, *perms = NULL;
	const char *dname = NULL, *bools = NULL;
	enum sp_avtab_layout layout = SP_AVTAB_FLAT;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc, c;
		if (cli_is_help(a)) {
			search_usage(cli->out);
			return SP_EXIT_OK;
		} else if (!strcmp(a, "-A")) {
			q.kinds |= SP_AVTAB_ALLOWED | SP_AVTAB_XPERMS_ALLOWED;
		} else if (!strcmp(a, "--allow")) {
			q.kinds |= SP_AVTAB_ALLOWED;
		} else if (!strcmp(a, "--allowxperm")) {
			q.kinds |= SP_AVTAB_XPERMS_ALLOWED;
		} else if (!strcmp(a, "--auditallow")) {
			q.kinds |= SP_AVTAB_AUDITALLOW;
		} else if (!strcmp(a, "--auditallowxperm")) {
			q.kinds |= SP_AVTAB_XPERMS_AUDITALLOW;
		} else if (!strcmp(a, "--dontaudit")) {
			q.kinds |= SP_AVTAB_AUDITDENY;
		} else if (!strcmp(a, "--dontauditxperm")) {
			q.kinds |= SP_AVTAB_XPERMS_DONTAUDIT;
		} else if (!strcmp(a, "-T") || !strcmp(a, "--type_trans")) {
			q.kinds |= SP_AVTAB_TRANSITION;
			q.want_ft = 1;
		} else if (!strcmp(a, "--type_change")) {
			q.kinds |= SP_AVTAB_CHANGE;
		} else if (!strcmp(a, "--type_member")) {
			q.kinds |= SP_AVTAB_MEMBER;
		} else if ((!strcmp(a, "-s") || !strcmp(a, "--source")) && more) {
			sname = argv[++i];
		} else if ((!strcmp(a, "-t") || !strcmp(a, "--target")) && more) {
			tnm = argv[++i];
		} else if ((!strcmp(a, "-c") || !strcmp(a, "--class")) && more) {
			cls = argv[++i];
		} else if ((!strcmp(a, "-p") || !strcmp(a, "--perms")) && more) {
			perms = argv[++i];
		} else if ((!strcmp(a, "-D") || !strcmp(a, "--default")) && more) {
			dname = argv[++i];
		} else if ((!strcmp(a, "-b") || !strcmp(a, "--bool")) && more) {
			bools = argv[++i];
		} else if (!strcmp(a, "-eb")) {
			q.eb = 1;
		} else if (!strcmp(a, "-ep")) {
			q.ep = 1;
		} else if (!strcmp(a, "-Sp")) {
			q.sp = 1;
		} else if ((c = common_opt(argc, argv, &i, &json, &layout, cli))) {
			if (c < 0)
				return SP_EXIT_USAGE;
		} else if (!strcmp(a, "-ds")) {
			q.ds = 1;
		} else if (!strcmp(a, "-dt")) {
			q.dt = 1;
		} else if (a[0] == '-' && a[1]) {
			fprintf(cli->err, "%s: unknown option '%s'\n", cli->prog, a);
			search_usage(cli->err);
			return SP_EXIT_USAGE;
		} else if (!path) {
			path = a;
		} else {
			search_usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (!path || !q.kinds) {
		if (path)
			fprintf(cli->err, "%s: give at least one rule kind (-A, -T, ...)\n", cli->prog);
		search_usage(cli->err);
		return SP_EXIT_USAGE;
	}
	if (load(cli, path, layout, &q.p))
		return SP_EXIT_REJECTED;
	int rc = SP_EXIT_REJECTED;
	struct sp_policy *p = q.p;
	if (sname && !(q.s = sp_policy_type_lookup(p, sname))) {
		fprintf(cli->err, "%s: no type or attribute '%s' in the policy\n", cli->prog, sname);
		goto out;
	}
	if (tnm && !(q.t = sp_policy_type_lookup(p, tnm))) {
		fprintf(cli->err, "%s: no type or attribute '%s' in the policy\n", cli->prog, tnm);
		goto out;
	}
	/* setools quirk kept for agreement with sesearch: an attribute without member types is
	 * falsy in setools, so the criterion is dropped */
	if (q.s && empty_attr(p, q.s))
		q.s = 0;
	if (q.t && empty_attr(p, q.t))
		q.t = 0;
	if ((q.s && !q.ds && !(q.smatch = match_set(p, q.s))) ||
	    (q.t && !q.dt && !(q.tmatch = match_set(p, q.t))))
		goto out;
	if (cls && !(q.cls = parse_classes(cli, p, cls)))
		goto out;
	if (dname && !(q.d = sp_policy_type_lookup(p, dname))) {
		fprintf(cli->err, "%s: no type or attribute '%s' in the policy\n", cli->prog, dname);
		goto out;
	}
	if (q.d && empty_attr(p, q.d))
		q.d = 0;
	if (q.d && !(q.dmatch = match_set(p, q.d)))
		goto out;
	if (bools && parse_bools(cli, &q, bools))
		goto out;
	if (perms && parse_perms(&q, perms))
		goto out;
	if (json) {
		if (!(jcli.out = open_memstream(&jbuf, &jlen))) {
			fprintf(cli->err, "%s: %s\n", cli->prog, strerror(errno));
			goto out;
		}
		q.cli = &jcli;
	}
	sp_policy_avtab_foreach(p, 0, search_entry, &q);
	sp_policy_avtab_foreach(p, 1, search_entry, &q);
	if (q.want_ft && !q.have_perms && !q.nbq) {
		size_t n = sp_policy_filename_trans_count(p);
		for (size_t i = 0; i < n; i++) {
			const struct sp_filename_trans *ft = sp_policy_filename_trans(p, i);
			if (q.s && (q.ds ? ft->stype != q.s : !q.smatch[ft->stype]))
				continue;
			if (q.t && (q.dt ? ft->ttype != q.t : !q.tmatch[ft->ttype]))
				continue;
			if (q.cls && !q.cls[ft->tclass])
				continue;
			if (q.d && (ft->otype > sp_policy_type_count(p) || !q.dmatch[ft->otype]))
				continue;
			char b1[32], b2[32], b3[32];
			fprintf(q.cli->out, "type_transition %s %s:%s %s %s;\n",
				tname(p, ft->stype, b1, sizeof(b1)), tname(p, ft->ttype, b2, sizeof(b2)),
				sp_policy_class_name(p, ft->tclass), tname(p, ft->otype, b3, sizeof(b3)),
				ft->name);
		}
	}
	rc = SP_EXIT_OK;
	if (json) {
		fclose(jcli.out);
		search_json(cli->out, path, jbuf, jlen);
	}
out:
	free(jbuf);
	free(q.smatch);
	free(q.tmatch);
	free(q.cls);
	free(q.perms);
	free(q.pfound);
	free(q.valid);
	free(q.dmatch);
	free(q.bset);
	sp_policy_free(p);
	return rc;
}

/* ---- decide ---- */

static void decide_usage(FILE *f)
{
	fprintf(f, "usage: secpath policy decide [--json] [--layout L] [--bool NAME=0|1]...\n"
		   "                             POLICY SOURCE_TYPE TARGET_TYPE CLASS [PERM...]\n\n"
		   "Compute the TE access decision (the kernel's avtab fold over both tables, with\n"
		   "attribute expansion and enabled conditional rules; constraints/MLS not applied).\n"
		   "With PERMs, exit 0 if all are allowed, 1 if any is denied.\n");
}

static void print_mask(FILE *f, struct sp_policy *p, uint32_t c, uint32_t m, int json)
{
	int first = 1;
	if (json)
		fputc('[', f);
	for (unsigned b = 0; b < 32; b++) {
		if (!(m >> b & 1))
			continue;
		const char *n = sp_policy_perm_name(p, c, b);
		if (!n)
			continue;
		if (json) {
			fprintf(f, first ? "" : ", ");
			cli_json_str(f, n);
		} else {
			fprintf(f, " %s", n);
		}
		first = 0;
	}
	if (json)
		fputc(']', f);
}

static int cmd_decide(int argc, char **argv, struct sp_cli *cli)
{
	int json = 0;
	enum sp_avtab_layout layout = SP_AVTAB_FLAT;
	const char *pos[64];
	const char *bools[64];
	int npos = 0, nbools = 0;
	for (int i = 1; i < argc; i++) {
		int c;
		if (cli_is_help(argv[i])) {
			decide_usage(cli->out);
			return SP_EXIT_OK;
		} else if ((c = common_opt(argc, argv, &i, &json, &layout, cli))) {
			if (c < 0)
				return SP_EXIT_USAGE;
		} else if (!strcmp(argv[i], "--bool") && i + 1 < argc) {
			if (nbools == 64) {
				fprintf(cli->err, "%s: more than 64 --bool options\n", cli->prog);
				return SP_EXIT_USAGE;
			}
			bools[nbools++] = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(cli->err, "%s: unknown option '%s'\n", cli->prog, argv[i]);
			decide_usage(cli->err);
			return SP_EXIT_USAGE;
		} else if (npos < 64) {
			pos[npos++] = argv[i];
		} else {
			fprintf(cli->err, "%s: more than 60 permissions\n", cli->prog);
			return SP_EXIT_USAGE;
		}
	}
	if (npos < 4) {
		decide_usage(cli->err);
		return SP_EXIT_USAGE;
	}
	struct sp_policy *p;
	if (load(cli, pos[0], layout, &p))
		return SP_EXIT_REJECTED;
	int rc = SP_EXIT_REJECTED;
	for (int i = 0; i < nbools; i++) {
		char name[256];
		const char *eq = strchr(bools[i], '=');
		size_t l = eq ? (size_t)(eq - bools[i]) : 0;
		uint32_t b = 0;
		if (eq && l < sizeof(name)) {
			memcpy(name, bools[i], l);
			name[l] = 0;
			b = sp_policy_bool_lookup(p, name);
		}
		if (!b || (strcmp(eq + 1, "0") && strcmp(eq + 1, "1"))) {
			fprintf(cli->err, "%s: bad boolean setting '%s'\n", cli->prog, bools[i]);
			goto out;
		}
		if (sp_policy_bool_set(p, b, eq[1] == '1'))
			goto out;
	}
	uint32_t s = sp_policy_type_lookup(p, pos[1]), t = sp_policy_type_lookup(p, pos[2]);
	uint32_t c = sp_policy_class_lookup(p, pos[3]);
	if (!s || !t || !c) {
		fprintf(cli->err, "%s: no %s '%s' in the policy\n", cli->prog,
			!s ? "type" : !t ? "type" : "class", !s ? pos[1] : !t ? pos[2] : pos[3]);
		goto out;
	}
	uint32_t want = 0;
	for (int i = 4; i < npos; i++) {
		unsigned b = sp_policy_perm_lookup(p, c, pos[i]);
		if (!b) {
			fprintf(cli->err, "%s: class '%s' has no permission '%s'\n", cli->prog, pos[3],
				pos[i]);
			goto out;
		}
		want |= 1u << (b - 1);
	}
	struct sp_av_decision avd;
	if (sp_policy_compute_av(p, s, t, c, &avd))
		goto out;
	FILE *f = cli->out;
	if (json) {
		fprintf(f, "{\"source\": ");
		cli_json_str(f, pos[1]);
		fprintf(f, ", \"target\": ");
		cli_json_str(f, pos[2]);
		fprintf(f, ", \"class\": ");
		cli_json_str(f, pos[3]);
		fprintf(f, ", \"allowed\": ");
		print_mask(f, p, c, avd.allowed, 1);
		fprintf(f, ", \"auditallow\": ");
		print_mask(f, p, c, avd.auditallow, 1);
		fprintf(f, ", \"dontaudit\": ");
		print_mask(f, p, c, ~avd.auditdeny, 1);
		fprintf(f, ", \"permissive\": %s", (avd.flags & SP_AVD_FLAGS_PERMISSIVE) ? "true" : "false");
		if (want)
			fprintf(f, ", \"granted\": %s", (avd.allowed & want) == want ? "true" : "false");
		fprintf(f, "}\n");
	} else {
		fprintf(f, "allowed:");
		print_mask(f, p, c, avd.allowed, 0);
		fprintf(f, "\nauditallow:");
		print_mask(f, p, c, avd.auditallow, 0);
		fprintf(f, "\ndontaudit:");
		print_mask(f, p, c, ~avd.auditdeny, 0);
		fprintf(f, "\npermissive: %s\n", (avd.flags & SP_AVD_FLAGS_PERMISSIVE) ? "yes" : "no");
		for (int i = 4; i < npos; i++) {
			unsigned b = sp_policy_perm_lookup(p, c, pos[i]) - 1;
			fprintf(f, "%s: %s\n", pos[i], (avd.allowed >> b & 1) ? "granted" : "denied");
		}
	}
	rc = (avd.allowed & want) == want ? SP_EXIT_OK : SP_EXIT_REJECTED;
out:
	sp_policy_free(p);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: secpath policy <command> [args]\n\ncommands:\n"
		   "  info     version, MLS and counts of a kernel binary policy\n"
		   "  search   list te rules like sesearch\n"
		   "  decide   TE access decision for SOURCE TARGET CLASS\n\n"
		   "'secpath policy <command> --help' for details; see secpath-policy(1).\n");
}

int cmd_policy(int argc, char **argv, struct sp_cli *cli)
{
	if (argc < 2) {
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	if (cli_is_help(argv[1])) {
		usage(cli->out);
		return SP_EXIT_OK;
	}
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc - 1, argv + 1, cli);
	if (!strcmp(argv[1], "search"))
		return cmd_search(argc - 1, argv + 1, cli);
	if (!strcmp(argv[1], "decide"))
		return cmd_decide(argc - 1, argv + 1, cli);
	fprintf(cli->err, "%s: '%s' is not a policy command\n", cli->prog, argv[1]);
	usage(cli->err);
	return SP_EXIT_USAGE;
}
