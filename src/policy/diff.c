/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff.c - sediff's (setools 4.4) differences of two policies, section by section in sediff's
 * order and text: the properties, commons, classes, booleans, roles, types, type attributes,
 * users, MLS symbols, constraints, the labeling statements, policy capabilities, default_* rules and typebounds here,
 * the TE rule sections (allow ... type_member) in diff_te.c, the role and range rules in
 * diff_rbac.c.
 *
 * Model: a section collects, for each policy, items (a name) each with members, a member being
 * a (group, text) pair: a class's permissions (inherited common ones too, as setools expands
 * them), a role's or an attribute's types, a type's attributes, aliases and permissive flag, a
 * user's roles, default level and range, a boolean's default state.  Items match by name;
 * an item is modified when its member lists differ.  Items and members are sorted by name
 * (strcmp: Python's order of the ASCII names setools sorts), members within their group.
 * A statement section (constraints, labeling, default_*, typebounds) keys an item by what sediff matches
 * it by and keeps its statement: added and removed items print it, every list is sorted by it
 * (setools sorts its rule objects by their text), a modified item prints sediff's one line.
 * MLS symbols are listed by value, as setools sorts them; their members (aliases, a level's
 * categories) too.  Contexts and ranges are compared by their text, as setools compares them by names.
 * Invariants: a side's members of item i are m[it[i].off .. it[i].off + it[i].n), items and
 * members sorted before the merge; every string a side made itself is in its `own` list and
 * freed with the side; the rest point into the policy, which outlives the diff.
 * Memory O(items + members) per side; time O(n log n) for the sorts, linear merges.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_int.h"

struct dmem {
	const char *s;
	uint32_t g, ord;		/* ord: its value (D_VALUE sections' listing order) */
};

struct ditem {
	const char *name, *stmt;	/* stmt: a statement section's text of the item, else NULL */
	uint32_t off, n, ord;
};

struct dside {
	const struct policy_core *k;
	const struct sp_policy *p;
	uint32_t arg;			/* the section's collector argument */
	struct ditem *it;
	uint32_t nit, capit;
	struct dmem *m;
	uint32_t nm, capm;
	char **own;
	uint32_t nown, capown;
	int err;
};

/* Grow *v (elements of sz bytes, *cap of them) to hold one more than n; 0 or -ENOMEM. */
static int grow(const struct sp_allocator *a, void **v, uint32_t n, uint32_t *cap, size_t sz)
{
	if (n < *cap)
		return 0;
	uint32_t nc = *cap ? *cap * 2 : 64;
	void *nv = sp_alloc(a, (size_t)nc * sz, 0);
	if (!nv)
		return -ENOMEM;
	if (*v) {
		memcpy(nv, *v, (size_t)n * sz);
		sp_free(a, *v, (size_t)*cap * sz);
	}
	*v = nv;
	*cap = nc;
	return 0;
}

static void item_add(struct dside *d, const char *name)
{
	if (d->err || (d->err = grow(d->k->alloc, (void **)&d->it, d->nit, &d->capit,
				     sizeof(*d->it))))
		return;
	d->it[d->nit++] = (struct ditem){ .name = name, .off = d->nm };
}

/* A member of the last item added, listed at ord in a D_VALUE section. */
static void mem_add_ord(struct dside *d, uint32_t g, const char *s, uint32_t ord)
{
	if (d->err || !s || (d->err = grow(d->k->alloc, (void **)&d->m, d->nm, &d->capm,
					   sizeof(*d->m))))
		return;
	d->m[d->nm++] = (struct dmem){ .s = s, .g = g, .ord = ord };
	d->it[d->nit - 1].n++;
}

static void mem_add(struct dside *d, uint32_t g, const char *s)
{
	mem_add_ord(d, g, s, 0);
}

/* A string the side owns (freed with it), or NULL (d->err set). */
__attribute__((format(printf, 2, 3))) static const char *own_fmt(struct dside *d,
								 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (d->err || need < 0 || (d->err = grow(d->k->alloc, (void **)&d->own, d->nown,
						 &d->capown, sizeof(*d->own))))
		return NULL;
	char *s = sp_alloc(d->k->alloc, (size_t)need + 1, 0);
	if (!s) {
		d->err = -ENOMEM;
		return NULL;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)need + 1, fmt, ap);
	va_end(ap);
	d->own[d->nown++] = s;
	return s;
}

static void side_release(struct dside *d)
{
	const struct sp_allocator *a = d->k->alloc;
	for (uint32_t i = 0; i < d->nown; i++)
		sp_free(a, d->own[i], strlen(d->own[i]) + 1);
	sp_free(a, d->own, (size_t)d->capown * sizeof(*d->own));
	sp_free(a, d->it, (size_t)d->capit * sizeof(*d->it));
	sp_free(a, d->m, (size_t)d->capm * sizeof(*d->m));
}

/* ---- collectors: one per section ---- */

static void perms_of(struct dside *d, const struct policy_class *pc)
{
	item_add(d, pc->name);
	for (unsigned b = 0; b < 32; b++)
		mem_add(d, 0, pc->perm[b]);
}

static void collect_commons(struct dside *d)
{
	for (uint32_t v = 1; v <= d->k->ncommons; v++)
		if (d->k->commons[v].name)
			perms_of(d, &d->k->commons[v]);
}

static void collect_classes(struct dside *d)
{
	for (uint32_t v = 1; v <= d->k->nclasses; v++)
		if (d->k->cls[v].name)
			perms_of(d, &d->k->cls[v]);
}

static void collect_bools(struct dside *d)
{
	for (uint32_t v = 1; v <= d->k->nbools; v++) {
		if (!d->k->bool_name[v])
			continue;
		item_add(d, d->k->bool_name[v]);
		mem_add(d, 0, d->k->bool_default[v] ? "True" : "False");
	}
}

/* need + 1 bytes the side owns, for a formatter with snprintf's contract (need < 0: its
 * error, set in d->err), or NULL. */
static char *own_buf(struct dside *d, int need)
{
	if (need < 0) {
		d->err = need;
		return NULL;
	}
	return (char *)own_fmt(d, "%*s", need, "");
}

/* A range (or, low == high, a level) as setools writes it, owned by the side. */
static const char *range_str(struct dside *d, const uint32_t *low, const uint32_t *high)
{
	int need = sp_policy_range_format(d->p, low, high, NULL, 0);
	char *s = own_buf(d, need);
	if (s)
		sp_policy_range_format(d->p, low, high, s, (size_t)need + 1);
	return s;
}

/* Part `part` of ocontext record i (policy_ocon_format), owned by the side. */
static const char *ocon_str(struct dside *d, uint32_t i, int part)
{
	int need = policy_ocon_format(d->k, i, part, NULL, 0);
	char *s = own_buf(d, need);
	if (s)
		policy_ocon_format(d->k, i, part, s, (size_t)need + 1);
	return s;
}

/* A user's default level (group 1) and range (group 2); setools' text without MLS. */
static void user_mls_members(struct dside *d, uint32_t v)
{
	const uint32_t *lv[3];
	if (!(d->k->config & 1) || !policy_user_levels(d->k, v, lv)) {
		mem_add(d, 1, "None (MLS Disabled)");
		mem_add(d, 2, "None (MLS Disabled)");
		return;
	}
	mem_add(d, 1, range_str(d, lv[2], lv[2]));
	mem_add(d, 2, range_str(d, lv[0], lv[1]));
}

/* Items with the members a pair list gives them (roles' types, users' roles). */
static void pairs_of(struct dside *d, const struct policy_pairs *pp, const char *const *owner,
		     uint32_t nowner, const char *const *member, uint32_t nmember, int mls)
{
	const struct policy_core *k = d->k;
	for (uint32_t v = 1; !d->err && v <= nowner; v++) {
		if (!owner[v])
			continue;
		const char **names;
		size_t n = policy_pair_names(k, pp, v, member, nmember, &names);
		if (!names) {
			d->err = -ENOMEM;
			return;
		}
		item_add(d, owner[v]);
		for (size_t i = 0; i < n; i++)
			mem_add(d, 0, names[i]);
		sp_free(k->alloc, names, ((size_t)pp->n + 1) * sizeof(char *));
		if (mls)
			user_mls_members(d, v);
	}
}

static void collect_roles(struct dside *d)
{
	const struct policy_core *k = d->k;
	pairs_of(d, &k->role_types, k->role_name, k->nroles, k->type_name, k->ntypes, 0);
}

static const char *attr_name(struct dside *d, uint32_t a)
{
	if (d->k->type_name[a])
		return d->k->type_name[a];
	return own_fmt(d, "@ttr%010u", a);	/* setools' name for an unnamed attribute */
}

static void collect_types(struct dside *d)
{
	const struct policy_core *k = d->k;
	const char **al = sp_alloc(k->alloc, ((size_t)k->ntype_ix + 1) * sizeof(char *), 0);
	if (!al) {
		d->err = -ENOMEM;
		return;
	}
	for (uint32_t v = 1; !d->err && v <= k->ntypes; v++) {
		uint8_t f = k->type_flags[v];
		if (!(f & 4) || (f & 1))
			continue;
		item_add(d, k->type_name[v]);
		for (uint32_t j = k->attr_off[v]; j < k->attr_off[v + 1]; j++)
			if (k->attr_v[j] != v && (k->type_flags[k->attr_v[j]] & 1))
				mem_add(d, 0, attr_name(d, k->attr_v[j]));
		size_t na = policy_type_aliases(k, v, al, (size_t)k->ntype_ix + 1);
		for (size_t i = 0; i < na; i++)
			mem_add(d, 1, al[i]);
		if (f & 2)
			mem_add(d, 2, "permissive");
	}
	sp_free(k->alloc, al, ((size_t)k->ntype_ix + 1) * sizeof(char *));
}

static void collect_attributes(struct dside *d)
{
	const struct policy_core *k = d->k;
	for (uint32_t v = 1; v <= k->ntypes; v++) {
		uint8_t f = k->type_flags[v];
		if (!(f & 4) || !(f & 1))
			continue;
		item_add(d, k->type_name[v]);
		for (uint32_t j = k->rev_off[v]; j < k->rev_off[v + 1]; j++)
			if (!(k->type_flags[k->rev_v[j]] & 1))
				mem_add(d, 0, k->type_name[k->rev_v[j]]);
	}
}

static void collect_users(struct dside *d)
{
	const struct policy_core *k = d->k;
	pairs_of(d, &k->user_roles, k->user_name, k->nusers, k->role_name, k->nroles, 1);
}

/* capabilities are names without members; every bit libsepol does not name is one "None" */
static void collect_polcaps(struct dside *d)
{
	int none = 0;
	for (uint32_t i = 0; i < d->k->ncaps; i++) {
		const char *n = policy_polcap_name(d->k->caps[i]);
		if (strcmp(n, "None") || !none++)
			item_add(d, n);
	}
}

/* The statement of the item added last. */
static void item_stmt(struct dside *d, const char *stmt)
{
	if (!d->err)
		d->it[d->nit - 1].stmt = stmt;
}

/* setools' policy properties: each a name with its value as Python prints it */
static void collect_props(struct dside *d)
{
	static const char *const unknown[] = { "deny", "deny", "reject", "reject", "allow" };
	item_add(d, "MLS");
	mem_add(d, 0, d->k->config & 1 ? "True" : "False");
	item_add(d, "handle_unknown");
	mem_add(d, 0, unknown[d->k->config & 4 ? 4 : d->k->config & 2]);
	item_add(d, "version");
	mem_add(d, 0, own_fmt(d, "%u", d->k->version));
}

/* The ocontext records of kind d->arg (nodecon: IPv4 and IPv6), keyed as sediff matches
 * them; members: the context (group 0) and netifcon's packet context (group 1). */
static void collect_ocons(struct dside *d)
{
	for (uint32_t i = 0; !d->err && i < d->k->nocon; i++) {
		uint32_t kind = d->k->ocon[i].kind;
		if (kind != d->arg && !(d->arg == 4 && kind == 6))
			continue;
		item_add(d, ocon_str(d, i, POLICY_OCON_KEY));
		item_stmt(d, ocon_str(d, i, POLICY_OCON_STMT));
		mem_add(d, 0, ocon_str(d, i, POLICY_OCON_CTX));
		if (kind == 3)
			mem_add(d, 1, ocon_str(d, i, POLICY_OCON_CTX2));
	}
}

/* default_* rules keyed by rule and class; members: the default (group 0) and, for
 * default_range source|target, the range (group 1) */
static void collect_defaults(struct dside *d)
{
	const struct policy_core *k = d->k;
	for (uint32_t v = 1; !d->err && v <= k->nclasses; v++) {
		const struct policy_class *pc = &k->cls[v];
		for (unsigned j = 0; pc->name && j < 4; j++) {
			if (!pc->defaults[j])
				continue;
			const char *t = policy_default_text(j, pc->defaults[j]), *sp = strchr(t, ' ');
			const char *key = own_fmt(d, "default_%s %s", policy_default_kind(j), pc->name);
			item_add(d, key);
			item_stmt(d, own_fmt(d, "%s %s;", key, t));
			mem_add(d, 0, sp ? own_fmt(d, "%.*s", (int)(sp - t), t) : t);
			if (sp)
				mem_add(d, 1, sp + 1);
		}
	}
}

/* typebounds keyed by the bounded (child) type; member: the bounding (parent) type */
static void collect_bounds(struct dside *d)
{
	const struct policy_core *k = d->k;
	for (uint32_t i = 0; !d->err && i < k->type_bounds.n; i++) {
		uint32_t v = k->type_bounds.v[2 * i], b = k->type_bounds.v[2 * i + 1];
		const char *child = v <= k->ntypes ? k->type_name[v] : NULL;
		const char *parent = b <= k->ntypes ? k->type_name[b] : NULL;
		if (!child || !parent)
			continue;
		item_add(d, child);
		item_stmt(d, own_fmt(d, "typebounds %s %s;", parent, child));
		mem_add(d, 0, parent);
	}
}

/* Sensitivities (d->arg 0) or categories (1), each with its aliases, listed by value */
static void collect_mls(struct dside *d)
{
	const struct policy_mls_sym *m = d->arg ? d->k->cats : d->k->sens;
	uint32_t n = d->arg ? d->k->ncats : d->k->nsens;
	for (uint32_t i = 0; i < n; i++) {
		if (m[i].alias)
			continue;
		item_add(d, m[i].name);
		if (!d->err)
			d->it[d->nit - 1].ord = m[i].value;
		for (uint32_t j = 0; j < n; j++)
			if (m[j].alias && m[j].value == m[i].value)
				mem_add(d, 0, m[j].name);
	}
}

/* Each sensitivity's level declaration (its statement: the level) with its categories */
static void collect_levels(struct dside *d)
{
	const struct policy_core *k = d->k;
	const char **cat = sp_zalloc(k->alloc, ((size_t)k->ncats + 1) * sizeof(*cat), 0);
	if (!cat) {
		d->err = -ENOMEM;
		return;
	}
	for (uint32_t i = 0; i < k->ncats; i++)
		if (!k->cats[i].alias && k->cats[i].value <= k->ncats)
			cat[k->cats[i].value] = k->cats[i].name;
	for (uint32_t i = 0; !d->err && i < k->nsens; i++) {
		const struct policy_mls_sym *m = &k->sens[i];
		if (m->alias)
			continue;
		const uint32_t *lv = &k->sens_lv.v[m->lv];
		item_add(d, m->name);
		item_stmt(d, range_str(d, lv, lv));
		if (!d->err)
			d->it[d->nit - 1].ord = m->value;
		for (uint32_t j = 0; j < lv[1]; j++)
			if (lv[2 + j] <= k->ncats)
				mem_add_ord(d, 0, cat[lv[2 + j]], lv[2 + j]);
	}
	sp_free(k->alloc, cat, ((size_t)k->ncats + 1) * sizeof(*cat));
}

/* A constraint's statement when it is of the side's kind (d->arg: bit 0 MLS, bit 1
 * validatetrans) */
static int cons_one(void *ud, const char *name, uint32_t value, const char *stmt)
{
	struct dside *d = ud;
	(void)name, (void)value;
	int mls = !strncmp(stmt, "mls", 3);
	if (mls != (int)(d->arg & 1))
		return 0;
	const char *t = own_fmt(d, "%s", stmt);
	item_add(d, t);
	item_stmt(d, t);
	return d->err;
}

static void collect_cons(struct dside *d)
{
	int rc = sp_policy_component_foreach(d->p, d->arg & 2 ? SP_COMP_VALIDATETRANS
							      : SP_COMP_CONSTRAINTS, 1, cons_one, d);
	if (rc && !d->err)
		d->err = rc;
}

/* neverallow rules: checkpolicy checks them and a binary policy keeps none */
static void collect_none(struct dside *d)
{
	(void)d;
}

/* ---- sections ---- */

enum gstyle {
	G_COUNT,	/* "N Added WORD, N Removed WORD", then + / - lines (after HEAD) */
	G_CHANGE,	/* "Modified WORD" once, then HEAD, "+ new", "- old" */
	G_FLAG,		/* "Added WORD" / "Removed WORD", no lines */
};

struct dgroup {
	enum gstyle style;
	const char *word, *head;	/* head: NULL = no subheading line */
};

struct dchange;
struct dsec;
/* A statement section's line of a modified item (a's side), from its member changes */
typedef void dmod_fn(FILE *f, const struct dsec *s, const struct dside *a,
		     const struct ditem *ia, const struct dchange *c, size_t n);

enum {
	D_ADDREM = 1,	/* without options, shown only with added or removed items (sediff's) */
	D_PROPS = 2,	/* "TITLE (N Modified)" and "* NAME +NEW -OLD" lines only */
	D_STMT = 4,	/* items print their statement; lists sorted by it; duplicates are one */
	D_VALUE = 8,	/* items and members listed by value (setools' order of MLS symbols) */
};

struct dsec {
	const char *opt, *title;
	const char *added;	/* "Added ADDED: N" (NULL: the title; sediff misspells one) */
	void (*collect)(struct dside *d);	/* NULL: a rule section of av_kind, or rbac */
	uint16_t av_kind;
	uint32_t ngroups;
	struct dgroup g[3];
	uint8_t rbac;		/* 1 role allow, 2 role_transition, 3 range_transition */
	dmod_fn *mod;		/* a statement section (items printed by their statement) */
	uint32_t arg;		/* the collector's argument: ocontext kind */
	uint8_t flags;
};

static dmod_fn mod_ocon, mod_netif, mod_default, mod_bounds;

/* a symbol section: items by name, each group of members as g0, g1, g2 */
#define SYM(o, t, fn, ng, ...) \
	{ .opt = o, .title = t, .collect = fn, .ngroups = ng, .g = { __VA_ARGS__ } }
#define G(style, word, head) { G_##style, word, head }
#define AV(o, t, kind) { .opt = o, .title = t, .av_kind = kind }
#define RBAC(o, t, kind) { .opt = o, .title = t, .rbac = kind }
#define OCON(o, t, kind) \
	{ .opt = o, .title = t, .collect = collect_ocons, .ngroups = 1, \
	  .g = { G(CHANGE, "context", NULL) }, .mod = mod_ocon, .arg = kind, .flags = D_STMT }
#define CONS(o, t, kind) \
	{ .opt = o, .title = t, .collect = collect_cons, .arg = kind, .flags = D_STMT }

static const struct dsec sections[] = {
	{ .opt = "property", .title = "Policy Properties", .collect = collect_props, .ngroups = 1,
	  .g = { G(CHANGE, "value", NULL) }, .flags = D_PROPS },
	SYM("common", "Commons", collect_commons, 1, G(COUNT, "permissions", NULL)),
	SYM("class", "Classes", collect_classes, 1, G(COUNT, "permissions", NULL)),
	SYM("bool", "Booleans", collect_bools, 1, G(CHANGE, "default state", NULL)),
	SYM("role", "Roles", collect_roles, 1, G(COUNT, "types", NULL)),
	SYM("type", "Types", collect_types, 3, G(COUNT, "attributes", "Attributes:"),
	    G(COUNT, "aliases", "Aliases:"), G(FLAG, "permissive", NULL)),
	SYM("attribute", "Type Attributes", collect_attributes, 1, G(COUNT, "types", NULL)),
	SYM("user", "Users", collect_users, 3, G(COUNT, "roles", "Roles:"),
	    G(CHANGE, "default level", "Default level:"), G(CHANGE, "range", "Range:")),
	{ .opt = "category", .title = "Categories", .collect = collect_mls, .ngroups = 1,
	  .g = { G(COUNT, "Aliases", "Aliases:") }, .arg = 1, .flags = D_VALUE },
	{ .opt = "sensitivity", .title = "Sensitivities", .added = "Sensitivites",
	  .collect = collect_mls, .ngroups = 1, .g = { G(COUNT, "Aliases", "Aliases:") },
	  .flags = D_VALUE },
	{ .opt = "level", .title = "Levels", .collect = collect_levels, .ngroups = 1,
	  .g = { G(COUNT, "Categories", NULL) }, .flags = D_VALUE },
	AV("allow", "Allow", SP_AVTAB_ALLOWED),
	AV("allowxperm", "Allowxperm", SP_AVTAB_XPERMS_ALLOWED),
	SYM("neverallow", "Neverallow Rules", collect_none, 1, G(CHANGE, "", NULL)),
	SYM("neverallowxperm", "Neverallowxperm Rules", collect_none, 1, G(CHANGE, "", NULL)),
	AV("auditallow", "Auditallow", SP_AVTAB_AUDITALLOW),
	AV("auditallowxperm", "Auditallowxperm", SP_AVTAB_XPERMS_AUDITALLOW),
	AV("dontaudit", "Dontaudit", SP_AVTAB_AUDITDENY),
	AV("dontauditxperm", "Dontauditxperm", SP_AVTAB_XPERMS_DONTAUDIT),
	AV("type_trans", "Type_transition", SP_AVTAB_TRANSITION),
	AV("type_change", "Type_change", SP_AVTAB_CHANGE),
	AV("type_member", "Type_member", SP_AVTAB_MEMBER),
	RBAC("role_allow", "Role allow", 1),
	RBAC("role_trans", "Role_transition", 2),
	RBAC("range_trans", "Range_transition", 3),
	CONS("constrain", "Constraints", 0),
	CONS("mlsconstrain", "MLS Constraints", 1),
	CONS("validatetrans", "Validatetrans", 2),
	CONS("mlsvalidatetrans", "MLS Validatetrans", 3),
	OCON("initialsid", "Initial SIDs", 0),
	OCON("ibendportcon", "Ibendportcons", 8),
	OCON("ibpkeycon", "Ibpkeycons", 7),
	OCON("fs_use", "Fs_use", 5),
	OCON("genfscon", "Genfscons", POLICY_OCON_GENFS),
	{ .opt = "netifcon", .title = "Netifcons", .collect = collect_ocons, .ngroups = 2,
	  .g = { G(CHANGE, "context", NULL), G(CHANGE, "packet context", NULL) },
	  .mod = mod_netif, .arg = 3, .flags = D_STMT },
	OCON("nodecon", "Nodecons", 4),
	OCON("portcon", "Portcons", 2),
	{ .opt = "polcap", .title = "Policy Capabilities", .collect = collect_polcaps },
	{ .opt = "default", .title = "Defaults", .collect = collect_defaults, .ngroups = 2,
	  .g = { G(CHANGE, "default", NULL), G(CHANGE, "range", NULL) }, .mod = mod_default,
	  .flags = D_STMT },
	{ .opt = "typebounds", .title = "Typebounds", .collect = collect_bounds, .ngroups = 1,
	  .g = { G(CHANGE, "bound", NULL) }, .mod = mod_bounds, .flags = D_STMT | D_ADDREM },
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))
_Static_assert(NSECTIONS <= 64, "a section is a bit of sp_policy_diff_write's mask");

SP_API unsigned sp_policy_diff_section_count(void)
{
	return NSECTIONS;
}

SP_API const char *sp_policy_diff_section_name(unsigned i)
{
	return i < NSECTIONS ? sections[i].opt : NULL;
}

SP_API int sp_policy_diff_section_lookup(const char *opt)
{
	for (unsigned i = 0; i < NSECTIONS; i++)
		if (!strcmp(opt, sections[i].opt))
			return (int)i;
	return -ENOENT;
}

static int item_cmp(const void *x, const void *y)
{
	return strcmp(((const struct ditem *)x)->name, ((const struct ditem *)y)->name);
}

static int mem_cmp(const void *x, const void *y)
{
	const struct dmem *a = x, *b = y;
	return a->g != b->g ? (a->g < b->g ? -1 : 1) : strcmp(a->s, b->s);
}

static int side_build(struct dside *d, const struct sp_policy *p, const struct dsec *s)
{
	*d = (struct dside){ .k = p->core, .p = p, .arg = s->arg };
	s->collect(d);
	if (d->err)
		return d->err;
	/* qsort wants an array even for no element: an empty side has none */
	for (uint32_t i = 0; i < d->nit; i++)
		if (d->it[i].n)
			qsort(d->m + d->it[i].off, d->it[i].n, sizeof(*d->m), mem_cmp);
	if (d->nit)
		qsort(d->it, d->nit, sizeof(*d->it), item_cmp);
	/* setools' statement lists are sets: one of each key */
	uint32_t n = 0;
	for (uint32_t i = 0; i < d->nit && (s->flags & D_STMT); i++)
		if (!n || strcmp(d->it[n - 1].name, d->it[i].name))
			d->it[n++] = d->it[i];
	if (s->flags & D_STMT)
		d->nit = n;
	return 0;
}

/* One item's members of both sides merged: out[] gets +1 (b only) / -1 (a only) per member,
 * in merge order; returns the number of differing members. */
struct dchange {
	const struct dmem *m;
	int sign;
};

static size_t item_changes(const struct dside *a, const struct ditem *ia, const struct dside *b,
			   const struct ditem *ib, struct dchange *out)
{
	/* a side without members has no array: its items have n = 0 */
	const struct dmem *x = a->m ? a->m + ia->off : NULL, *y = b->m ? b->m + ib->off : NULL;
	uint32_t i = 0, j = 0;
	size_t n = 0;
	while (i < ia->n || j < ib->n) {
		int c = i == ia->n ? 1 : j == ib->n ? -1 : mem_cmp(&x[i], &y[j]);
		if (c < 0)
			out[n++] = (struct dchange){ &x[i++], -1 };
		else if (c > 0)
			out[n++] = (struct dchange){ &y[j++], 1 };
		else
			i++, j++;
	}
	return n;
}

/* The matched item pairs of two sorted sides: ma[i], mb[i]; added (b only), removed (a only). */
struct dmatch {
	uint32_t *add, *rem, *ma, *mb;
	uint32_t nadd, nrem, nmod;
};

static int match_items(const struct dside *a, const struct dside *b, struct dchange *scratch,
		       struct dmatch *r)
{
	const struct sp_allocator *al = a->k->alloc;
	size_t sz = ((size_t)a->nit + b->nit + 1) * sizeof(uint32_t);
	*r = (struct dmatch){ .add = sp_alloc(al, sz, 0), .rem = sp_alloc(al, sz, 0),
			      .ma = sp_alloc(al, sz, 0), .mb = sp_alloc(al, sz, 0) };
	if (!r->add || !r->rem || !r->ma || !r->mb)
		return -ENOMEM;
	uint32_t i = 0, j = 0;
	while (i < a->nit || j < b->nit) {
		int c = i == a->nit ? 1 : j == b->nit ? -1 : item_cmp(&a->it[i], &b->it[j]);
		if (c < 0)
			r->rem[r->nrem++] = i++;
		else if (c > 0)
			r->add[r->nadd++] = j++;
		else {
			if (item_changes(a, &a->it[i], b, &b->it[j], scratch)) {
				r->ma[r->nmod] = i;
				r->mb[r->nmod++] = j;
			}
			i++, j++;
		}
	}
	return 0;
}

static void match_release(const struct sp_allocator *al, const struct dside *a,
			  const struct dside *b, struct dmatch *r)
{
	size_t sz = ((size_t)a->nit + b->nit + 1) * sizeof(uint32_t);
	sp_free(al, r->add, sz);
	sp_free(al, r->rem, sz);
	sp_free(al, r->ma, sz);
	sp_free(al, r->mb, sz);
}

/* Statement sections list items as setools sorts its rule objects, by their text, MLS symbol
 * sections by value (a modified item by a's).  The pairs (x[i], y[i]) (y NULL: x alone) sorted
 * by side's item x[i]: its statement, or (by_value) its value. */
struct dord {
	const char *s;
	uint32_t x, y, ord;
};

static int dord_cmp(const void *p, const void *q)
{
	const struct dord *a = p, *b = q;
	if (!a->s)
		return a->ord != b->ord ? (a->ord < b->ord ? -1 : 1) : 0;
	return strcmp(a->s, b->s);
}

static int sort_listing(const struct dside *side, uint32_t *x, uint32_t *y, uint32_t n,
			int by_value)
{
	const struct sp_allocator *al = side->k->alloc;
	struct dord *o = n ? sp_alloc(al, (size_t)n * sizeof(*o), 0) : NULL;
	if (n && !o)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		o[i] = (struct dord){ by_value ? NULL : side->it[x[i]].stmt, x[i], y ? y[i] : 0,
				      side->it[x[i]].ord };
	if (n)
		qsort(o, n, sizeof(*o), dord_cmp);
	for (uint32_t i = 0; i < n; i++) {
		x[i] = o[i].x;
		if (y)
			y[i] = o[i].y;
	}
	sp_free(al, o, (size_t)n * sizeof(*o));
	return 0;
}

/* D_VALUE: changes by group, then value, then name (aliases have no value) */
static int change_ord_cmp(const void *p, const void *q)
{
	const struct dmem *a = ((const struct dchange *)p)->m, *b = ((const struct dchange *)q)->m;
	if (a->g != b->g)
		return a->g < b->g ? -1 : 1;
	if (a->ord != b->ord)
		return a->ord < b->ord ? -1 : 1;
	return strcmp(a->s, b->s);
}

/* An item's changed member of group g: the new one (sign 1) or the old (-1); NULL: none. */
static const char *changed(const struct dchange *c, size_t n, uint32_t g, int sign)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].m->g == g && c[i].sign == sign)
			return c[i].m->s;
	return NULL;
}

/* Side d's member of group g of item it, NULL: none. */
static const char *member(const struct dside *d, const struct ditem *it, uint32_t g)
{
	for (uint32_t i = 0; i < it->n; i++)
		if (d->m[it->off + i].g == g)
			return d->m[it->off + i].s;
	return NULL;
}

/* "+NEW -OLD" of group g, a side without the member as Python's None */
static void print_change(FILE *f, const struct dchange *c, size_t n, uint32_t g)
{
	const char *add = changed(c, n, g, 1), *rem = changed(c, n, g, -1);
	fprintf(f, "+%s -%s", add ? add : "None", rem ? rem : "None");
}

/* "* KEY +[NEW] -[OLD];" (the ib* records without the ';') */
static void mod_ocon(FILE *f, const struct dsec *s, const struct dside *a, const struct ditem *ia,
		     const struct dchange *c, size_t n)
{
	(void)a;
	const char *add = changed(c, n, 0, 1), *rem = changed(c, n, 0, -1);
	fprintf(f, "      * %s +[%s] -[%s]%s\n", ia->name, add ? add : "None", rem ? rem : "None",
		s->arg == 7 || s->arg == 8 ? "" : ";");
}

static void mod_netif(FILE *f, const struct dsec *s, const struct dside *a,
		      const struct ditem *ia, const struct dchange *c, size_t n)
{
	(void)s, (void)a;
	static const char *const what[2] = { "Context", "Packet Context" };
	int ch[2] = { changed(c, n, 0, -1) || changed(c, n, 0, 1),
		      changed(c, n, 1, -1) || changed(c, n, 1, 1) };
	fprintf(f, "      * %s (%s%s%s)\n", ia->name, ch[0] ? "Modified Context" : "",
		ch[0] && ch[1] ? ", " : "", ch[1] ? "Modified Packet Context" : "");
	for (uint32_t g = 0; g < 2; g++) {
		if (!ch[g])
			continue;
		const char *add = changed(c, n, g, 1), *rem = changed(c, n, g, -1);
		fprintf(f, "          %s:\n             + %s\n             - %s\n", what[g],
			add ? add : "None", rem ? rem : "None");
	}
}

/* "* default_KIND CLASS DEFAULT[ RANGE];", each changed one as "+NEW -OLD" */
static void mod_default(FILE *f, const struct dsec *s, const struct dside *a,
			const struct ditem *ia, const struct dchange *c, size_t n)
{
	(void)s;
	fprintf(f, "      * %s ", ia->name);
	if (changed(c, n, 0, 1) || changed(c, n, 0, -1))
		print_change(f, c, n, 0);
	else
		fputs(member(a, ia, 0), f);
	if (changed(c, n, 1, 1) || changed(c, n, 1, -1)) {
		fputc(' ', f);
		print_change(f, c, n, 1);
	} else if (member(a, ia, 1)) {
		fprintf(f, " %s", member(a, ia, 1));
	}
	fputs(";\n", f);
}

static void mod_bounds(FILE *f, const struct dsec *s, const struct dside *a,
		       const struct ditem *ia, const struct dchange *c, size_t n)
{
	(void)s, (void)a;
	fputs("      * typebounds ", f);
	print_change(f, c, n, 0);
	fprintf(f, " %s;\n", ia->name);
}

/* "      * NAME (summary)" of a modified item: its groups' changes in group order. */
static void print_summary(FILE *f, const struct dsec *s, const char *name,
			  const struct dchange *c, size_t n)
{
	const char *sep = "";
	fprintf(f, "      * %s (", name);
	for (uint32_t g = 0; g < s->ngroups; g++) {
		size_t add = 0, rem = 0;
		for (size_t i = 0; i < n; i++)
			if (c[i].m->g == g)
				*(c[i].sign > 0 ? &add : &rem) += 1;
		const struct dgroup *dg = &s->g[g];
		if (dg->style == G_CHANGE && (add || rem)) {
			fprintf(f, "%sModified %s", sep, dg->word);
			sep = ", ";
		}
		for (int k = 0; k < 2 && dg->style != G_CHANGE; k++) {
			size_t cnt = k ? rem : add;
			if (!cnt)
				continue;
			if (dg->style == G_COUNT)
				fprintf(f, "%s%zu %s %s", sep, cnt, k ? "Removed" : "Added", dg->word);
			else
				fprintf(f, "%s%s %s", sep, k ? "Removed" : "Added", dg->word);
			sep = ", ";
		}
	}
	fprintf(f, ")\n");
}

/* The + / - lines of a modified item, each group's additions before its removals. */
static void print_members(FILE *f, const struct dsec *s, const struct dchange *c, size_t n)
{
	for (uint32_t g = 0; g < s->ngroups; g++) {
		size_t any = 0;
		for (size_t i = 0; i < n; i++)
			any += c[i].m->g == g;
		if (!any || s->g[g].style == G_FLAG)
			continue;
		if (s->g[g].head)
			fprintf(f, "          %s\n", s->g[g].head);
		for (int sign = 1; sign >= -1; sign -= 2)
			for (size_t i = 0; i < n; i++)
				if (c[i].m->g == g && c[i].sign == sign)
					fprintf(f, "          %c %s\n", sign > 0 ? '+' : '-',
						c[i].m->s);
	}
}

/* "TITLE (N Modified)", then "* NAME +NEW -OLD" per modified item (sediff's properties) */
static void print_props(FILE *f, const struct dsec *s, const struct dside *a,
			const struct dside *b, const struct dmatch *r, struct dchange *scratch)
{
	fprintf(f, "%s (%u Modified)\n", s->title, r->nmod);
	for (uint32_t i = 0; i < r->nmod; i++) {
		const struct ditem *ia = &a->it[r->ma[i]];
		size_t n = item_changes(a, ia, b, &b->it[r->mb[i]], scratch);
		fprintf(f, "      * %s ", ia->name);
		print_change(f, scratch, n, 0);
		fputc('\n', f);
	}
	fprintf(f, "\n");
}

static void print_section(FILE *f, const struct dsec *s, const struct dside *a,
			  const struct dside *b, const struct dmatch *r, struct dchange *scratch)
{
	if (s->flags & D_PROPS) {
		print_props(f, s, a, b, r, scratch);
		return;
	}
	/* a section without member groups has no modified items, and says nothing of them */
	if (s->ngroups)
		fprintf(f, "%s (%u Added, %u Removed, %u Modified)\n", s->title, r->nadd, r->nrem,
			r->nmod);
	else
		fprintf(f, "%s (%u Added, %u Removed)\n", s->title, r->nadd, r->nrem);
	if (r->nadd)
		fprintf(f, "   Added %s: %u\n", s->added ? s->added : s->title, r->nadd);
	for (uint32_t i = 0; i < r->nadd; i++)
		fprintf(f, "      + %s\n", b->it[r->add[i]].stmt ? b->it[r->add[i]].stmt
							    : b->it[r->add[i]].name);
	if (r->nrem)
		fprintf(f, "   Removed %s: %u\n", s->title, r->nrem);
	for (uint32_t i = 0; i < r->nrem; i++)
		fprintf(f, "      - %s\n", a->it[r->rem[i]].stmt ? a->it[r->rem[i]].stmt
							    : a->it[r->rem[i]].name);
	if (r->nmod)
		fprintf(f, "   Modified %s: %u\n", s->title, r->nmod);
	for (uint32_t i = 0; i < r->nmod; i++) {
		const struct ditem *ia = &a->it[r->ma[i]], *ib = &b->it[r->mb[i]];
		size_t n = item_changes(a, ia, b, ib, scratch);
		if (n && (s->flags & D_VALUE))
			qsort(scratch, n, sizeof(*scratch), change_ord_cmp);
		if (s->mod) {
			s->mod(f, s, a, ia, scratch, n);
			continue;
		}
		print_summary(f, s, ia->name, scratch, n);
		print_members(f, s, scratch, n);
	}
	fprintf(f, "\n");
}

static int diff_section(const struct sp_policy *pa, const struct sp_policy *pb,
			const struct dsec *s, int always, FILE *f)
{
	struct dside a, b;
	struct dmatch r = { 0 };
	struct dchange *scratch = NULL;
	const struct sp_allocator *al = pa->core->alloc;
	size_t ssz = 0;
	int rc = side_build(&a, pa, s);
	int rc2 = side_build(&b, pb, s);
	rc = rc ? rc : rc2;
	if (!rc) {
		ssz = ((size_t)a.nm + b.nm + 1) * sizeof(*scratch);
		scratch = sp_alloc(al, ssz, 0);
		rc = scratch ? match_items(&a, &b, scratch, &r) : -ENOMEM;
	}
	int v = !!(s->flags & D_VALUE);
	if (!rc && (s->flags & (D_STMT | D_VALUE)) && !(rc = sort_listing(&b, r.add, NULL, r.nadd, v)) &&
	    !(rc = sort_listing(&a, r.rem, NULL, r.nrem, v)))
		rc = sort_listing(&a, r.ma, r.mb, r.nmod, v);
	int show = always || r.nadd || r.nrem || (r.nmod && !(s->flags & D_ADDREM));
	if (!rc && show)
		print_section(f, s, &a, &b, &r, scratch);
	match_release(al, &a, &b, &r);
	sp_free(al, scratch, ssz);
	side_release(&a);
	side_release(&b);
	return rc;
}

SP_API int sp_policy_diff_write(const struct sp_policy *a, const struct sp_policy *b,
				uint64_t which, FILE *out)
{
	if (!a || !b || !out || (which >> NSECTIONS))
		return -EINVAL;
	for (unsigned i = 0; i < NSECTIONS; i++) {
		if (which && !(which >> i & 1))
			continue;
		const struct dsec *s = &sections[i];
		int rc = s->collect ? diff_section(a, b, s, which != 0, out)
			 : s->rbac  ? policy_diff_rbac(a, b, s->rbac - 1, which != 0, out)
				    : policy_diff_av(a, b, s->av_kind, s->title, which != 0, out);
		if (rc)
			return rc;
	}
	return ferror(out) ? -EIO : 0;
}
