/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff.c - sediff's (setools 4.4) differences of two policies, section by section in sediff's
 * order and text: the section table, and for the item sections (properties, symbols, MLS
 * symbols, constraints, labeling statements, capabilities, default_* rules, typebounds) the
 * sides' building, matching and printing; what each holds is diff_items.c's, the TE and xperm
 * rule sections are diff_te.c's, the role and range rules diff_rbac.c's.
 *
 * Items match by name; an item is modified when its member lists differ.  Items and members
 * are sorted by name (strcmp: Python's order of the ASCII names setools sorts), members within
 * their group.  A statement section keys an item by what sediff matches it by and keeps its
 * statement: added and removed items print it, every list is sorted by it (setools sorts its
 * rule objects by their text), a modified item prints sediff's one line.  MLS symbols are
 * listed by value, as setools sorts them, their members too.  Contexts and ranges are compared
 * by their text, as setools compares them by names.
 * Invariants (and the side's, diff_int.h): items and members sorted before the merge.
 * Memory O(items + members) per side; time O(n log n) for the sorts, linear merges.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/diff_int.h"

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

void diff_item_add(struct dside *d, const char *name)
{
	if (d->err || (d->err = grow(d->k->alloc, (void **)&d->it, d->nit, &d->capit,
				     sizeof(*d->it))))
		return;
	d->it[d->nit++] = (struct ditem){ .name = name, .off = d->nm };
}

/* A member of the last item added, listed at ord in a D_VALUE section. */
void diff_mem_add_ord(struct dside *d, uint32_t g, const char *s, uint32_t ord)
{
	if (d->err || !s || (d->err = grow(d->k->alloc, (void **)&d->m, d->nm, &d->capm,
					   sizeof(*d->m))))
		return;
	d->m[d->nm++] = (struct dmem){ .s = s, .g = g, .ord = ord };
	d->it[d->nit - 1].n++;
}

void diff_mem_add(struct dside *d, uint32_t g, const char *s)
{
	diff_mem_add_ord(d, g, s, 0);
}

/* The statement of the item added last. */
void diff_item_stmt(struct dside *d, const char *stmt)
{
	if (!d->err)
		d->it[d->nit - 1].stmt = stmt;
}

/* The listing value of the item added last (D_VALUE sections). */
void diff_item_ord(struct dside *d, uint32_t ord)
{
	if (!d->err)
		d->it[d->nit - 1].ord = ord;
}

/* A string the side owns (freed with it), or NULL (d->err set). */
const char *diff_own_fmt(struct dside *d, const char *fmt, ...)
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

/* ---- sections ---- */


/* a symbol section: items by name, each group of members as g0, g1, g2 */
#define SYM(o, t, fn, ng, ...) \
	{ .opt = o, .title = t, .collect = fn, .ngroups = ng, .g = { __VA_ARGS__ } }
#define G(style, word, head) { G_##style, word, head }
#define AV(o, t, kind) { .opt = o, .title = t, .av_kind = kind }
#define RBAC(o, t, kind) { .opt = o, .title = t, .rbac = kind }
#define OCON(o, t, kind) \
	{ .opt = o, .title = t, .collect = diff_collect_ocons, .ngroups = 1, \
	  .g = { G(CHANGE, "context", NULL) }, .mod = diff_mod_ocon, .arg = kind, .flags = D_STMT }
#define CONS(o, t, kind) \
	{ .opt = o, .title = t, .collect = diff_collect_cons, .arg = kind, .flags = D_STMT }

static const struct dsec sections[] = {
	{ .opt = "property", .title = "Policy Properties", .collect = diff_collect_props, .ngroups = 1,
	  .g = { G(CHANGE, "value", NULL) }, .flags = D_PROPS },
	SYM("common", "Commons", diff_collect_commons, 1, G(COUNT, "permissions", NULL)),
	SYM("class", "Classes", diff_collect_classes, 1, G(COUNT, "permissions", NULL)),
	SYM("bool", "Booleans", diff_collect_bools, 1, G(CHANGE, "default state", NULL)),
	SYM("role", "Roles", diff_collect_roles, 1, G(COUNT, "types", NULL)),
	SYM("type", "Types", diff_collect_types, 3, G(COUNT, "attributes", "Attributes:"),
	    G(COUNT, "aliases", "Aliases:"), G(FLAG, "permissive", NULL)),
	SYM("attribute", "Type Attributes", diff_collect_attributes, 1, G(COUNT, "types", NULL)),
	SYM("user", "Users", diff_collect_users, 3, G(COUNT, "roles", "Roles:"),
	    G(CHANGE, "default level", "Default level:"), G(CHANGE, "range", "Range:")),
	{ .opt = "category", .title = "Categories", .collect = diff_collect_mls, .ngroups = 1,
	  .g = { G(COUNT, "Aliases", "Aliases:") }, .arg = 1, .flags = D_VALUE },
	{ .opt = "sensitivity", .title = "Sensitivities", .added = "Sensitivites",
	  .collect = diff_collect_mls, .ngroups = 1, .g = { G(COUNT, "Aliases", "Aliases:") },
	  .flags = D_VALUE },
	{ .opt = "level", .title = "Levels", .collect = diff_collect_levels, .ngroups = 1,
	  .g = { G(COUNT, "Categories", NULL) }, .flags = D_VALUE },
	AV("allow", "Allow", SP_AVTAB_ALLOWED),
	AV("allowxperm", "Allowxperm", SP_AVTAB_XPERMS_ALLOWED),
	SYM("neverallow", "Neverallow Rules", diff_collect_none, 1, G(CHANGE, "", NULL)),
	SYM("neverallowxperm", "Neverallowxperm Rules", diff_collect_none, 1, G(CHANGE, "", NULL)),
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
	{ .opt = "netifcon", .title = "Netifcons", .collect = diff_collect_ocons, .ngroups = 2,
	  .g = { G(CHANGE, "context", NULL), G(CHANGE, "packet context", NULL) },
	  .mod = diff_mod_netif, .arg = 3, .flags = D_STMT },
	OCON("nodecon", "Nodecons", 4),
	OCON("portcon", "Portcons", 2),
	{ .opt = "polcap", .title = "Policy Capabilities", .collect = diff_collect_polcaps },
	{ .opt = "default", .title = "Defaults", .collect = diff_collect_defaults, .ngroups = 2,
	  .g = { G(CHANGE, "default", NULL), G(CHANGE, "range", NULL) }, .mod = diff_mod_default,
	  .flags = D_STMT },
	{ .opt = "typebounds", .title = "Typebounds", .collect = diff_collect_bounds, .ngroups = 1,
	  .g = { G(CHANGE, "bound", NULL) }, .mod = diff_mod_bounds, .flags = D_STMT | D_ADDREM },
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
		diff_print_change(f, scratch, n, 0);
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
