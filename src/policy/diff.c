/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff.c - sediff's (setools 4.4) differences of two policies, section by section in sediff's
 * order and text: commons, classes, booleans, roles, types, type attributes and users here,
 * the TE rule sections (allow ... type_member) in diff_te.c.
 *
 * Model: a section collects, for each policy, items (a name) each with members, a member being
 * a (group, text) pair: a class's permissions (inherited common ones too, as setools expands
 * them), a role's or an attribute's types, a type's attributes, aliases and permissive flag, a
 * user's roles, default level and range, a boolean's default state.  Items match by name;
 * an item is modified when its member lists differ.  Items and members are sorted by name
 * (strcmp: Python's order of the ASCII names setools sorts), members within their group.
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
	uint32_t g;
};

struct ditem {
	const char *name;
	uint32_t off, n;
};

struct dside {
	const struct policy_core *k;
	const struct sp_policy *p;
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

/* A member of the last item added. */
static void mem_add(struct dside *d, uint32_t g, const char *s)
{
	if (d->err || !s || (d->err = grow(d->k->alloc, (void **)&d->m, d->nm, &d->capm,
					   sizeof(*d->m))))
		return;
	d->m[d->nm++] = (struct dmem){ .s = s, .g = g };
	d->it[d->nit - 1].n++;
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

/* A range (or, low == high, a level) as setools writes it, owned by the side. */
static const char *range_str(struct dside *d, const uint32_t *low, const uint32_t *high)
{
	int need = sp_policy_range_format(d->p, low, high, NULL, 0);
	if (need < 0) {
		d->err = need;
		return NULL;
	}
	char *s = (char *)own_fmt(d, "%*s", need, "");
	if (s)
		sp_policy_range_format(d->p, low, high, s, (size_t)need + 1);
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

struct dsec {
	const char *opt, *title;
	void (*collect)(struct dside *d);	/* NULL: a rule section of av_kind, or rbac */
	uint16_t av_kind;
	uint32_t ngroups;
	struct dgroup g[3];
	uint8_t rbac;		/* 1 role allow, 2 role_transition, 3 range_transition */
};

static const struct dsec sections[] = {
	{ "common", "Commons", collect_commons, 0, 1, { { G_COUNT, "permissions", NULL } }, 0 },
	{ "class", "Classes", collect_classes, 0, 1, { { G_COUNT, "permissions", NULL } }, 0 },
	{ "bool", "Booleans", collect_bools, 0, 1, { { G_CHANGE, "default state", NULL } }, 0 },
	{ "role", "Roles", collect_roles, 0, 1, { { G_COUNT, "types", NULL } }, 0 },
	{ "type", "Types", collect_types, 0, 3,
	  { { G_COUNT, "attributes", "Attributes:" }, { G_COUNT, "aliases", "Aliases:" },
	    { G_FLAG, "permissive", NULL } }, 0 },
	{ "attribute", "Type Attributes", collect_attributes, 0, 1,
	  { { G_COUNT, "types", NULL } }, 0 },
	{ "user", "Users", collect_users, 0, 3,
	  { { G_COUNT, "roles", "Roles:" }, { G_CHANGE, "default level", "Default level:" },
	    { G_CHANGE, "range", "Range:" } }, 0 },
	{ "allow", "Allow", NULL, SP_AVTAB_ALLOWED, 0, { { 0 } }, 0 },
	{ "auditallow", "Auditallow", NULL, SP_AVTAB_AUDITALLOW, 0, { { 0 } }, 0 },
	{ "dontaudit", "Dontaudit", NULL, SP_AVTAB_AUDITDENY, 0, { { 0 } }, 0 },
	{ "type_trans", "Type_transition", NULL, SP_AVTAB_TRANSITION, 0, { { 0 } }, 0 },
	{ "type_change", "Type_change", NULL, SP_AVTAB_CHANGE, 0, { { 0 } }, 0 },
	{ "type_member", "Type_member", NULL, SP_AVTAB_MEMBER, 0, { { 0 } }, 0 },
	{ "role_allow", "Role allow", NULL, 0, 0, { { 0 } }, 1 },
	{ "role_trans", "Role_transition", NULL, 0, 0, { { 0 } }, 2 },
	{ "range_trans", "Range_transition", NULL, 0, 0, { { 0 } }, 3 },
	{ "polcap", "Policy Capabilities", collect_polcaps, 0, 0, { { 0 } }, 0 },
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

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
	*d = (struct dside){ .k = p->core, .p = p };
	s->collect(d);
	if (d->err)
		return d->err;
	/* qsort wants an array even for no element: an empty side has none */
	for (uint32_t i = 0; i < d->nit; i++)
		if (d->it[i].n)
			qsort(d->m + d->it[i].off, d->it[i].n, sizeof(*d->m), mem_cmp);
	if (d->nit)
		qsort(d->it, d->nit, sizeof(*d->it), item_cmp);
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

static void print_section(FILE *f, const struct dsec *s, const struct dside *a,
			  const struct dside *b, const struct dmatch *r, struct dchange *scratch)
{
	/* a section without member groups has no modified items, and says nothing of them */
	if (s->ngroups)
		fprintf(f, "%s (%u Added, %u Removed, %u Modified)\n", s->title, r->nadd, r->nrem,
			r->nmod);
	else
		fprintf(f, "%s (%u Added, %u Removed)\n", s->title, r->nadd, r->nrem);
	if (r->nadd)
		fprintf(f, "   Added %s: %u\n", s->title, r->nadd);
	for (uint32_t i = 0; i < r->nadd; i++)
		fprintf(f, "      + %s\n", b->it[r->add[i]].name);
	if (r->nrem)
		fprintf(f, "   Removed %s: %u\n", s->title, r->nrem);
	for (uint32_t i = 0; i < r->nrem; i++)
		fprintf(f, "      - %s\n", a->it[r->rem[i]].name);
	if (r->nmod)
		fprintf(f, "   Modified %s: %u\n", s->title, r->nmod);
	for (uint32_t i = 0; i < r->nmod; i++) {
		const struct ditem *ia = &a->it[r->ma[i]], *ib = &b->it[r->mb[i]];
		size_t n = item_changes(a, ia, b, ib, scratch);
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
	if (!rc && (always || r.nadd || r.nrem || r.nmod))
		print_section(f, s, &a, &b, &r, scratch);
	match_release(al, &a, &b, &r);
	sp_free(al, scratch, ssz);
	side_release(&a);
	side_release(&b);
	return rc;
}

SP_API int sp_policy_diff_write(const struct sp_policy *a, const struct sp_policy *b,
				uint32_t which, FILE *out)
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
