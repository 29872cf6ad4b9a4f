/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff_int.h - the model policy diff's item sections share (diff.c builds, matches and prints
 * sides; diff_items.c collects each section's items and writes a statement section's modified
 * line): a side is a policy's items of one section, each with its members, a member being a
 * (group, text) pair.  Invariants: a side's members of item i are m[it[i].off .. it[i].off +
 * it[i].n); every string a side made itself is in its `own` list and freed with the side; the
 * rest point into the policy, which outlives the diff.  Builders record their first error in
 * d->err and do nothing after it.
 */
#ifndef SP_POLICY_DIFF_INT_H
#define SP_POLICY_DIFF_INT_H
#include <stdio.h>

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

struct dchange {
	const struct dmem *m;
	int sign;
};

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


/* diff.c: the side's builders.  An item (its name, then its statement, listing value and
 * members); a member of the last item, listed at ord in a D_VALUE section; a string the side
 * owns. */
void diff_item_add(struct dside *d, const char *name);
void diff_item_stmt(struct dside *d, const char *stmt);
void diff_item_ord(struct dside *d, uint32_t ord);
void diff_mem_add(struct dside *d, uint32_t g, const char *s);
void diff_mem_add_ord(struct dside *d, uint32_t g, const char *s, uint32_t ord);
__attribute__((format(printf, 2, 3))) const char *diff_own_fmt(struct dside *d,
								const char *fmt, ...);

/* diff_items.c: the collectors, one per section (d->arg: the section's argument) */
void diff_collect_commons(struct dside *d);
void diff_collect_classes(struct dside *d);
void diff_collect_bools(struct dside *d);
void diff_collect_roles(struct dside *d);
void diff_collect_types(struct dside *d);
void diff_collect_attributes(struct dside *d);
void diff_collect_users(struct dside *d);
void diff_collect_polcaps(struct dside *d);
void diff_collect_props(struct dside *d);
void diff_collect_ocons(struct dside *d);
void diff_collect_defaults(struct dside *d);
void diff_collect_bounds(struct dside *d);
void diff_collect_mls(struct dside *d);
void diff_collect_levels(struct dside *d);
void diff_collect_cons(struct dside *d);
void diff_collect_none(struct dside *d);
/* diff_items.c: a modified item's changed member of group g (sign 1 new, -1 old; NULL: none),
 * "+NEW -OLD" of group g, and the statement sections' modified lines */
const char *diff_changed(const struct dchange *c, size_t n, uint32_t g, int sign);
void diff_print_change(FILE *f, const struct dchange *c, size_t n, uint32_t g);
dmod_fn diff_mod_ocon, diff_mod_netif, diff_mod_default, diff_mod_bounds;
#endif
