/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff_rbac.c - sediff's (setools 4.4) role allow, role_transition and range_transition rule
 * differences.
 *
 * setools' model, kept: a rule is keyed by its source and target role (allow), by its source
 * role, target type and class (role_transition) or by its source type, target type and class
 * (range_transition); of equal keys one rule stays (setools' set keeps one).  Keys only one
 * policy has are added or removed rules; a transition both have is modified when its default
 * differs: the default roles' names, the ranges' texts (setools compares the levels' names,
 * which is the same wherever the two policies order a sensitivity's categories alike).  Names are compared, never values
 * (two policies number them differently): the key is the rule's text up to its default, so
 * equal texts are equal keys.  Added and removed lines are sorted by their text (setools sorts
 * rules by str()), modified ones by the text of the first policy's rule.  A kernel policy's
 * role rules name single roles and types (attributes are expanded when it is built), so no
 * rule expands further.  Memory O(rules); time O(n log n).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_int.h"

enum rkind { R_ALLOW, R_ROLE_TRANS, R_RANGE_TRANS };

struct rrec {
	char *key;		/* "allow S T;", "role_transition S T:C", "range_transition S T:C" */
	const char *def;	/* transitions: the default role's name, or the range's text */
	char *own;		/* range_transition: def, allocated here */
};

struct rside {
	const struct sp_allocator *al;
	enum rkind kind;
	struct rrec *r;
	size_t n, cap;
};

static const char *nm(const char **names, uint32_t n, uint32_t v)
{
	return v && v <= n && names[v] ? names[v] : "?";
}

static char *fmt_key(const struct sp_allocator *al, enum rkind kind, const char *a,
		     const char *b, const char *c)
{
	static const char *const word[] = { "allow", "role_transition", "range_transition" };
	const char *colon = kind == R_ALLOW ? "" : ":", *end = kind == R_ALLOW ? ";" : "";
	if (kind == R_ALLOW)
		c = "";
	size_t len = (size_t)snprintf(NULL, 0, "%s %s %s%s%s%s", word[kind], a, b, colon, c, end);
	char *s = sp_alloc(al, len + 1, 0);
	if (s)
		snprintf(s, len + 1, "%s %s %s%s%s%s", word[kind], a, b, colon, c, end);
	return s;
}

static const char *class_nm(const struct policy_core *k, uint32_t c)
{
	return c && c <= k->nclasses && k->cls[c].name ? k->cls[c].name : "?";
}

static char *range_text(const struct sp_policy *p, const struct sp_range_trans *t)
{
	int n = sp_policy_range_format(p, t->low, t->high, NULL, 0);
	char *s = n < 0 ? NULL : sp_alloc(p->core->alloc, (size_t)n + 1, 0);
	if (s)
		sp_policy_range_format(p, t->low, t->high, s, (size_t)n + 1);
	return s;
}

static int key_cmp(const void *x, const void *y)
{
	return strcmp(((const struct rrec *)x)->key, ((const struct rrec *)y)->key);
}

static void rrec_release(const struct sp_allocator *al, struct rrec *r)
{
	sp_free(al, r->key, strlen(r->key) + 1);
	if (r->own)
		sp_free(al, r->own, strlen(r->own) + 1);
}

static void rside_release(struct rside *d)
{
	for (size_t i = 0; i < d->n; i++)
		rrec_release(d->al, &d->r[i]);
	sp_free(d->al, d->r, d->cap * sizeof(*d->r));
	d->r = NULL, d->n = d->cap = 0;
}

/* Rule i of the side's kind into r; 0 or -ENOMEM. */
static int rrec_make(struct rside *d, const struct sp_policy *p, size_t i, struct rrec *r)
{
	const struct policy_core *k = p->core;
	*r = (struct rrec){ NULL, NULL, NULL };
	if (d->kind == R_ROLE_TRANS) {
		const struct sp_role_trans *t = &k->rtrans[i];
		r->key = fmt_key(d->al, d->kind, nm(k->role_name, k->nroles, t->role),
				 nm(k->type_name, k->ntypes, t->type), class_nm(k, t->tclass));
		r->def = nm(k->role_name, k->nroles, t->new_role);
	} else if (d->kind == R_RANGE_TRANS) {
		const struct sp_range_trans *t = &k->rangetr[i];
		r->key = fmt_key(d->al, d->kind, nm(k->type_name, k->ntypes, t->stype),
				 nm(k->type_name, k->ntypes, t->ttype), class_nm(k, t->tclass));
		r->def = r->own = range_text(p, t);
	} else {
		const struct sp_role_allow *a = &k->rallow[i];
		r->key = fmt_key(d->al, d->kind, nm(k->role_name, k->nroles, a->role),
				 nm(k->role_name, k->nroles, a->new_role), NULL);
	}
	if (r->key && (d->kind != R_RANGE_TRANS || r->own))
		return 0;
	if (r->key)
		sp_free(d->al, r->key, strlen(r->key) + 1);
	if (r->own)
		sp_free(d->al, r->own, strlen(r->own) + 1);
	return -ENOMEM;
}

/* The side's rules of one kind, sorted by key, one of each key; 0 or -ENOMEM. */
static int rside_build(struct rside *d, const struct sp_policy *p, enum rkind kind)
{
	const struct policy_core *k = p->core;
	size_t n = kind == R_ROLE_TRANS ? k->nrtrans : kind == R_RANGE_TRANS ? k->nrangetr
									      : k->nrallow;
	d->al = k->alloc, d->kind = kind, d->n = 0, d->cap = n ? n : 1;
	if (!(d->r = sp_alloc(d->al, d->cap * sizeof(*d->r), 0)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int rc = rrec_make(d, p, i, &d->r[d->n]);
		if (rc)
			return rc;
		d->n++;
	}
	if (d->n)
		qsort(d->r, d->n, sizeof(*d->r), key_cmp);
	size_t w = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (w && !strcmp(d->r[w - 1].key, d->r[i].key))
			rrec_release(d->al, &d->r[i]);
		else
			d->r[w++] = d->r[i];
	}
	d->n = w;
	return 0;
}

/* One output line: its text, and the text it sorts by. */
struct rline {
	char *text;
	const char *sort;
};

static int rline_cmp(const void *x, const void *y)
{
	return strcmp(((const struct rline *)x)->sort, ((const struct rline *)y)->sort);
}

/* "KEY DEF;" (mod: "KEY +DEF -OLD", a range's "KEY +[DEF] -[OLD]"; allow: KEY) in a fresh
 * string, or NULL. */
static char *line_text(const struct sp_allocator *al, const struct rrec *r, const char *old,
		       int bracket)
{
	const char *p[5] = { "", "", "", "", "" };
	if (r->def && old && bracket)
		p[0] = " +[", p[1] = r->def, p[2] = "] -[", p[3] = old, p[4] = "]";
	else if (r->def && old)
		p[0] = " +", p[1] = r->def, p[2] = " -", p[3] = old;
	else if (r->def)
		p[0] = " ", p[1] = r->def, p[4] = ";";
	size_t len = (size_t)snprintf(NULL, 0, "%s%s%s%s%s%s", r->key, p[0], p[1], p[2], p[3], p[4]);
	char *s = sp_alloc(al, len + 1, 0);
	if (s)
		snprintf(s, len + 1, "%s%s%s%s%s%s", r->key, p[0], p[1], p[2], p[3], p[4]);
	return s;
}

static void print_lines(FILE *f, const char *what, const char *title, char mark,
			struct rline *l, size_t n)
{
	if (!n)
		return;
	qsort(l, n, sizeof(*l), rline_cmp);
	fprintf(f, "   %s %s Rules: %zu\n", what, title, n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "      %c %s\n", mark, l[i].text);
}

/* Merge the sorted sides into out[0] added, out[1] removed, out[2] modified (each [n]). */
static int rbac_merge(const struct rside *a, const struct rside *b, struct rline *out[3],
		      size_t cnt[3])
{
	const struct sp_allocator *al = a->al;
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->r[i].key, b->r[j].key);
		struct rline l = { NULL, NULL };
		int k = c > 0 ? 0 : c < 0 ? 1 : 2;
		if (c > 0) {
			l.text = line_text(al, &b->r[j++], NULL, 0);
			l.sort = l.text;
		} else if (c < 0) {
			l.text = line_text(al, &a->r[i++], NULL, 0);
			l.sort = l.text;
		} else if (a->r[i].def && strcmp(a->r[i].def, b->r[j].def)) {
			/* sorted by the first policy's rule: its text is the key and its default */
			l.text = line_text(al, &b->r[j], a->r[i].def, a->kind == R_RANGE_TRANS);
			l.sort = line_text(al, &a->r[i], NULL, 0);
			if (!l.sort && l.text)
				sp_free(al, l.text, strlen(l.text) + 1), l.text = NULL;
			i++, j++;
		} else {
			i++, j++;
			continue;
		}
		if (!l.text)
			return -ENOMEM;
		out[k][cnt[k]++] = l;
	}
	return 0;
}

static void lines_release(const struct sp_allocator *al, struct rline *l, size_t n, int mod)
{
	for (size_t i = 0; i < n; i++) {
		sp_free(al, l[i].text, strlen(l[i].text) + 1);
		if (mod)
			sp_free(al, (char *)l[i].sort, strlen(l[i].sort) + 1);
	}
}

int policy_diff_rbac(const struct sp_policy *pa, const struct sp_policy *pb, int kind,
		     int always, FILE *f)
{
	const struct sp_allocator *al = pa->core->alloc;
	struct rside a = { al, R_ALLOW, NULL, 0, 0 }, b = { al, R_ALLOW, NULL, 0, 0 };
	struct rline *out[3] = { NULL, NULL, NULL };
	size_t cnt[3] = { 0, 0, 0 }, cap = 0;
	int rc = rside_build(&a, pa, (enum rkind)kind);
	int rc2 = rside_build(&b, pb, (enum rkind)kind);
	rc = rc ? rc : rc2;
	cap = a.n + b.n + 1;
	for (int k = 0; !rc && k < 3; k++)
		if (!(out[k] = sp_alloc(al, cap * sizeof(**out), 0)))
			rc = -ENOMEM;
	if (!rc)
		rc = rbac_merge(&a, &b, out, cnt);
	static const char *const title[] = { "Role allow", "Role_transition", "Range_transition" };
	static const char *const sub[] = { "Role Allow", "Role_transition", "Range_transition" };
	if (!rc && (always || cnt[0] || cnt[1] || cnt[2])) {
		if (kind != R_ALLOW)
			fprintf(f, "%s Rules (%zu Added, %zu Removed, %zu Modified)\n", title[kind],
				cnt[0], cnt[1], cnt[2]);
		else
			fprintf(f, "%s Rules (%zu Added, %zu Removed)\n", title[kind], cnt[0], cnt[1]);
		print_lines(f, "Added", sub[kind], '+', out[0], cnt[0]);
		print_lines(f, "Removed", sub[kind], '-', out[1], cnt[1]);
		print_lines(f, "Modified", sub[kind], '*', out[2], cnt[2]);
		fprintf(f, "\n");
	}
	for (int k = 0; k < 3; k++) {
		if (out[k])
			lines_release(al, out[k], cnt[k], k == 2);
		sp_free(al, out[k], cap * sizeof(**out));
	}
	rside_release(&a);
	rside_release(&b);
	return rc;
}
