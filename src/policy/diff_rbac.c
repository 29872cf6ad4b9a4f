/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff_rbac.c - sediff's (setools 4.4) role allow and role_transition rule differences.
 *
 * setools' model, kept: a rule is keyed by its source and target role (allow) or by its
 * source role, target type and class (role_transition); of equal keys one rule stays (setools'
 * set keeps one).  Keys only one policy has are added or removed rules; a role_transition both
 * have is modified when the default roles' names differ.  Names are compared, never values
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

struct rrec {
	char *key;		/* "allow S T;" or "role_transition S T:C" */
	const char *def;	/* role_transition: the default role's name */
};

struct rside {
	const struct sp_allocator *al;
	struct rrec *r;
	size_t n, cap;
};

static const char *nm(const char **names, uint32_t n, uint32_t v)
{
	return v && v <= n && names[v] ? names[v] : "?";
}

static char *fmt_key(const struct sp_allocator *al, const char *a, const char *b,
		     const char *c)
{
	size_t len = (size_t)snprintf(NULL, 0, c ? "role_transition %s %s:%s" : "allow %s %s;",
				      a, b, c);
	char *s = sp_alloc(al, len + 1, 0);
	if (s)
		snprintf(s, len + 1, c ? "role_transition %s %s:%s" : "allow %s %s;", a, b, c);
	return s;
}

static int key_cmp(const void *x, const void *y)
{
	return strcmp(((const struct rrec *)x)->key, ((const struct rrec *)y)->key);
}

static void rside_release(struct rside *d)
{
	for (size_t i = 0; i < d->n; i++)
		sp_free(d->al, d->r[i].key, strlen(d->r[i].key) + 1);
	sp_free(d->al, d->r, d->cap * sizeof(*d->r));
	d->r = NULL, d->n = d->cap = 0;
}

/* The side's rules of one kind, sorted by key, one of each key; 0 or -ENOMEM. */
static int rside_build(struct rside *d, const struct sp_policy *p, int trans)
{
	const struct policy_core *k = p->core;
	size_t n = trans ? k->nrtrans : k->nrallow;
	d->al = k->alloc, d->n = 0, d->cap = n ? n : 1;
	if (!(d->r = sp_alloc(d->al, d->cap * sizeof(*d->r), 0)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct rrec *r = &d->r[d->n];
		if (trans) {
			const struct sp_role_trans *t = &k->rtrans[i];
			r->key = fmt_key(d->al, nm(k->role_name, k->nroles, t->role),
					 nm(k->type_name, k->ntypes, t->type),
					 t->tclass && t->tclass <= k->nclasses && k->cls[t->tclass].name
						 ? k->cls[t->tclass].name : "?");
			r->def = nm(k->role_name, k->nroles, t->new_role);
		} else {
			const struct sp_role_allow *a = &k->rallow[i];
			r->key = fmt_key(d->al, nm(k->role_name, k->nroles, a->role),
					 nm(k->role_name, k->nroles, a->new_role), NULL);
			r->def = NULL;
		}
		if (!r->key)
			return -ENOMEM;
		d->n++;
	}
	if (d->n)
		qsort(d->r, d->n, sizeof(*d->r), key_cmp);
	size_t w = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (w && !strcmp(d->r[w - 1].key, d->r[i].key))
			sp_free(d->al, d->r[i].key, strlen(d->r[i].key) + 1);
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

/* "KEY DEF;" (mod: "KEY +DEF -OLD"; allow: KEY) in a fresh string, or NULL. */
static char *line_text(const struct sp_allocator *al, const struct rrec *r, const char *old)
{
	const char *p[5] = { "", "", "", "", "" };
	if (r->def && old)
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
			l.text = line_text(al, &b->r[j++], NULL);
			l.sort = l.text;
		} else if (c < 0) {
			l.text = line_text(al, &a->r[i++], NULL);
			l.sort = l.text;
		} else if (a->r[i].def && strcmp(a->r[i].def, b->r[j].def)) {
			/* sorted by the first policy's rule: its text is the key and its default */
			l.text = line_text(al, &b->r[j], a->r[i].def);
			l.sort = line_text(al, &a->r[i], NULL);
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

int policy_diff_rbac(const struct sp_policy *pa, const struct sp_policy *pb, int trans,
		     int always, FILE *f)
{
	const struct sp_allocator *al = pa->core->alloc;
	struct rside a = { al, NULL, 0, 0 }, b = { al, NULL, 0, 0 };
	struct rline *out[3] = { NULL, NULL, NULL };
	size_t cnt[3] = { 0, 0, 0 }, cap = 0;
	int rc = rside_build(&a, pa, trans);
	int rc2 = rside_build(&b, pb, trans);
	rc = rc ? rc : rc2;
	cap = a.n + b.n + 1;
	for (int k = 0; !rc && k < 3; k++)
		if (!(out[k] = sp_alloc(al, cap * sizeof(**out), 0)))
			rc = -ENOMEM;
	if (!rc)
		rc = rbac_merge(&a, &b, out, cnt);
	const char *title = trans ? "Role_transition" : "Role allow";
	const char *sub = trans ? "Role_transition" : "Role Allow";
	if (!rc && (always || cnt[0] || cnt[1] || cnt[2])) {
		if (trans)
			fprintf(f, "%s Rules (%zu Added, %zu Removed, %zu Modified)\n", title, cnt[0],
				cnt[1], cnt[2]);
		else
			fprintf(f, "%s Rules (%zu Added, %zu Removed)\n", title, cnt[0], cnt[1]);
		print_lines(f, "Added", sub, '+', out[0], cnt[0]);
		print_lines(f, "Removed", sub, '-', out[1], cnt[1]);
		print_lines(f, "Modified", sub, '*', out[2], cnt[2]);
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
