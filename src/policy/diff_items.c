/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff_items.c - what each of policy diff's item sections holds (sediff's, setools 4.4): the
 * collectors, one per section, each listing one policy's items and their members through the
 * builders of diff_int.h, and the one-line modified items of the statement sections.
 * Symbols: a class's permissions (inherited common ones too, as setools expands them), a
 * role's or an attribute's types, a type's attributes, aliases and permissive flag, a user's
 * roles, default level and range, a boolean's default state, a sensitivity's or category's
 * aliases, a level declaration's categories (by value).  Statements: a labeling statement's
 * context(s), a default_* rule's default and range, a typebounds' parent, keyed as setools
 * matches them; constraints and capabilities are items without members.
 * Every collector reads the policy only; memory is the side's (diff_int.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/diff_int.h"

static void perms_of(struct dside *d, const struct policy_class *pc)
{
	diff_item_add(d, pc->name);
	for (unsigned b = 0; b < 32; b++)
		diff_mem_add(d, 0, pc->perm[b]);
}

void diff_collect_commons(struct dside *d)
{
	for (uint32_t v = 1; v <= d->k->ncommons; v++)
		if (d->k->commons[v].name)
			perms_of(d, &d->k->commons[v]);
}

void diff_collect_classes(struct dside *d)
{
	for (uint32_t v = 1; v <= d->k->nclasses; v++)
		if (d->k->cls[v].name)
			perms_of(d, &d->k->cls[v]);
}

void diff_collect_bools(struct dside *d)
{
	for (uint32_t v = 1; v <= d->k->nbools; v++) {
		if (!d->k->bool_name[v])
			continue;
		diff_item_add(d, d->k->bool_name[v]);
		diff_mem_add(d, 0, d->k->bool_default[v] ? "True" : "False");
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
	return (char *)diff_own_fmt(d, "%*s", need, "");
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
		diff_mem_add(d, 1, "None (MLS Disabled)");
		diff_mem_add(d, 2, "None (MLS Disabled)");
		return;
	}
	diff_mem_add(d, 1, range_str(d, lv[2], lv[2]));
	diff_mem_add(d, 2, range_str(d, lv[0], lv[1]));
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
		diff_item_add(d, owner[v]);
		for (size_t i = 0; i < n; i++)
			diff_mem_add(d, 0, names[i]);
		sp_free(k->alloc, names, ((size_t)pp->n + 1) * sizeof(char *));
		if (mls)
			user_mls_members(d, v);
	}
}

void diff_collect_roles(struct dside *d)
{
	const struct policy_core *k = d->k;
	pairs_of(d, &k->role_types, k->role_name, k->nroles, k->type_name, k->ntypes, 0);
}

static const char *attr_name(struct dside *d, uint32_t a)
{
	if (d->k->type_name[a])
		return d->k->type_name[a];
	return diff_own_fmt(d, "@ttr%010u", a);	/* setools' name for an unnamed attribute */
}

void diff_collect_types(struct dside *d)
{
	const struct policy_core *k = d->k;
	struct policy_aliases am;
	int rc = policy_aliases_new(k, &am);
	if (rc) {
		d->err = rc;
		return;
	}
	for (uint32_t v = 1; !d->err && v <= k->ntypes; v++) {
		uint8_t f = k->type_flags[v];
		if (!(f & 4) || (f & 1))
			continue;
		diff_item_add(d, k->type_name[v]);
		for (uint32_t j = k->attr_off[v]; j < k->attr_off[v + 1]; j++)
			if (k->attr_v[j] != v && (k->type_flags[k->attr_v[j]] & 1))
				diff_mem_add(d, 0, attr_name(d, k->attr_v[j]));
		const char *const *al;
		size_t na = policy_aliases_of(&am, v, &al);
		for (size_t i = 0; i < na; i++)
			diff_mem_add(d, 1, al[i]);
		if (f & 2)
			diff_mem_add(d, 2, "permissive");
	}
	policy_aliases_free(k, &am);
}

void diff_collect_attributes(struct dside *d)
{
	const struct policy_core *k = d->k;
	for (uint32_t v = 1; v <= k->ntypes; v++) {
		uint8_t f = k->type_flags[v];
		if (!(f & 4) || !(f & 1))
			continue;
		diff_item_add(d, k->type_name[v]);
		for (uint32_t j = k->rev_off[v]; j < k->rev_off[v + 1]; j++)
			if (!(k->type_flags[k->rev_v[j]] & 1))
				diff_mem_add(d, 0, k->type_name[k->rev_v[j]]);
	}
}

void diff_collect_users(struct dside *d)
{
	const struct policy_core *k = d->k;
	pairs_of(d, &k->user_roles, k->user_name, k->nusers, k->role_name, k->nroles, 1);
}

/* capabilities are names without members; every bit libsepol does not name is one "None" */
void diff_collect_polcaps(struct dside *d)
{
	int none = 0;
	for (uint32_t i = 0; i < d->k->ncaps; i++) {
		const char *n = policy_polcap_name(d->k->caps[i]);
		if (strcmp(n, "None") || !none++)
			diff_item_add(d, n);
	}
}

/* setools' policy properties: each a name with its value as Python prints it */
void diff_collect_props(struct dside *d)
{
	static const char *const unknown[] = { "deny", "deny", "reject", "reject", "allow" };
	diff_item_add(d, "MLS");
	diff_mem_add(d, 0, d->k->config & 1 ? "True" : "False");
	diff_item_add(d, "handle_unknown");
	diff_mem_add(d, 0, unknown[d->k->config & 4 ? 4 : d->k->config & 2]);
	diff_item_add(d, "version");
	diff_mem_add(d, 0, diff_own_fmt(d, "%u", d->k->version));
}

/* The ocontext records of kind d->arg (nodecon: IPv4 and IPv6), keyed as sediff matches
 * them; members: the context (group 0) and netifcon's packet context (group 1). */
void diff_collect_ocons(struct dside *d)
{
	for (uint32_t i = 0; !d->err && i < d->k->nocon; i++) {
		uint32_t kind = d->k->ocon[i].kind;
		if (kind != d->arg && !(d->arg == 4 && kind == 6))
			continue;
		diff_item_add(d, ocon_str(d, i, POLICY_OCON_KEY));
		diff_item_stmt(d, ocon_str(d, i, POLICY_OCON_STMT));
		diff_mem_add(d, 0, ocon_str(d, i, POLICY_OCON_CTX));
		if (kind == 3)
			diff_mem_add(d, 1, ocon_str(d, i, POLICY_OCON_CTX2));
	}
}

/* default_* rules keyed by rule and class; members: the default (group 0) and, for
 * default_range source|target, the range (group 1) */
void diff_collect_defaults(struct dside *d)
{
	const struct policy_core *k = d->k;
	for (uint32_t v = 1; !d->err && v <= k->nclasses; v++) {
		const struct policy_class *pc = &k->cls[v];
		for (unsigned j = 0; pc->name && j < 4; j++) {
			if (!pc->defaults[j])
				continue;
			const char *t = policy_default_text(j, pc->defaults[j]), *sp = strchr(t, ' ');
			const char *key = diff_own_fmt(d, "default_%s %s", policy_default_kind(j), pc->name);
			diff_item_add(d, key);
			diff_item_stmt(d, diff_own_fmt(d, "%s %s;", key, t));
			diff_mem_add(d, 0, sp ? diff_own_fmt(d, "%.*s", (int)(sp - t), t) : t);
			if (sp)
				diff_mem_add(d, 1, sp + 1);
		}
	}
}

/* typebounds keyed by the bounded (child) type; member: the bounding (parent) type */
void diff_collect_bounds(struct dside *d)
{
	const struct policy_core *k = d->k;
	for (uint32_t i = 0; !d->err && i < k->type_bounds.n; i++) {
		uint32_t v = k->type_bounds.v[2 * i], b = k->type_bounds.v[2 * i + 1];
		const char *child = v <= k->ntypes ? k->type_name[v] : NULL;
		const char *parent = b <= k->ntypes ? k->type_name[b] : NULL;
		if (!child || !parent)
			continue;
		diff_item_add(d, child);
		diff_item_stmt(d, diff_own_fmt(d, "typebounds %s %s;", parent, child));
		diff_mem_add(d, 0, parent);
	}
}

/* Sensitivities (d->arg 0) or categories (1), each with its aliases, listed by value */
void diff_collect_mls(struct dside *d)
{
	const struct policy_mls_sym *m = d->arg ? d->k->cats : d->k->sens;
	uint32_t n = d->arg ? d->k->ncats : d->k->nsens;
	for (uint32_t i = 0; i < n; i++) {
		if (m[i].alias)
			continue;
		diff_item_add(d, m[i].name);
		diff_item_ord(d, m[i].value);
		for (uint32_t j = 0; j < n; j++)
			if (m[j].alias && m[j].value == m[i].value)
				diff_mem_add(d, 0, m[j].name);
	}
}

/* Each sensitivity's level declaration (its statement: the level) with its categories */
void diff_collect_levels(struct dside *d)
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
		diff_item_add(d, m->name);
		diff_item_stmt(d, range_str(d, lv, lv));
		diff_item_ord(d, m->value);
		for (uint32_t j = 0; j < lv[1]; j++)
			if (lv[2 + j] <= k->ncats)
				diff_mem_add_ord(d, 0, cat[lv[2 + j]], lv[2 + j]);
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
	const char *t = diff_own_fmt(d, "%s", stmt);
	diff_item_add(d, t);
	diff_item_stmt(d, t);
	return d->err;
}

void diff_collect_cons(struct dside *d)
{
	int rc = sp_policy_component_foreach(d->p, d->arg & 2 ? SP_COMP_VALIDATETRANS
							      : SP_COMP_CONSTRAINTS, 1, cons_one, d);
	if (rc && !d->err)
		d->err = rc;
}

/* neverallow rules: checkpolicy checks them and a binary policy keeps none */
void diff_collect_none(struct dside *d)
{
	(void)d;
}

/* ---- statement sections: their modified lines ---- */

/* An item's changed member of group g: the new one (sign 1) or the old (-1); NULL: none. */
const char *diff_changed(const struct dchange *c, size_t n, uint32_t g, int sign)
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
void diff_print_change(FILE *f, const struct dchange *c, size_t n, uint32_t g)
{
	const char *add = diff_changed(c, n, g, 1), *rem = diff_changed(c, n, g, -1);
	fprintf(f, "+%s -%s", add ? add : "None", rem ? rem : "None");
}

/* "* KEY +[NEW] -[OLD];" (the ib* records without the ';') */
void diff_mod_ocon(FILE *f, const struct dsec *s, const struct dside *a, const struct ditem *ia,
		     const struct dchange *c, size_t n)
{
	(void)a;
	const char *add = diff_changed(c, n, 0, 1), *rem = diff_changed(c, n, 0, -1);
	fprintf(f, "      * %s +[%s] -[%s]%s\n", ia->name, add ? add : "None", rem ? rem : "None",
		s->arg == 7 || s->arg == 8 ? "" : ";");
}

void diff_mod_netif(FILE *f, const struct dsec *s, const struct dside *a,
		      const struct ditem *ia, const struct dchange *c, size_t n)
{
	(void)s, (void)a;
	static const char *const what[2] = { "Context", "Packet Context" };
	int ch[2] = { diff_changed(c, n, 0, -1) || diff_changed(c, n, 0, 1),
		      diff_changed(c, n, 1, -1) || diff_changed(c, n, 1, 1) };
	fprintf(f, "      * %s (%s%s%s)\n", ia->name, ch[0] ? "Modified Context" : "",
		ch[0] && ch[1] ? ", " : "", ch[1] ? "Modified Packet Context" : "");
	for (uint32_t g = 0; g < 2; g++) {
		if (!ch[g])
			continue;
		const char *add = diff_changed(c, n, g, 1), *rem = diff_changed(c, n, g, -1);
		fprintf(f, "          %s:\n             + %s\n             - %s\n", what[g],
			add ? add : "None", rem ? rem : "None");
	}
}

/* "* default_KIND CLASS DEFAULT[ RANGE];", each changed one as "+NEW -OLD" */
void diff_mod_default(FILE *f, const struct dsec *s, const struct dside *a,
			const struct ditem *ia, const struct dchange *c, size_t n)
{
	(void)s;
	fprintf(f, "      * %s ", ia->name);
	if (diff_changed(c, n, 0, 1) || diff_changed(c, n, 0, -1))
		diff_print_change(f, c, n, 0);
	else
		fputs(member(a, ia, 0), f);
	if (diff_changed(c, n, 1, 1) || diff_changed(c, n, 1, -1)) {
		fputc(' ', f);
		diff_print_change(f, c, n, 1);
	} else if (member(a, ia, 1)) {
		fprintf(f, " %s", member(a, ia, 1));
	}
	fputs(";\n", f);
}

void diff_mod_bounds(FILE *f, const struct dsec *s, const struct dside *a,
		       const struct ditem *ia, const struct dchange *c, size_t n)
{
	(void)s, (void)a;
	fputs("      * typebounds ", f);
	diff_print_change(f, c, n, 0);
	fprintf(f, " %s;\n", ia->name);
}
