/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * range.c - an MLS range written as setools reads one (setools 4.4 Range.factory_from_string,
 * the value of sesearch -D with --range_trans): "LOW[-HIGH]", each level "SENS[:CATS]", CATS a
 * comma list of categories and FIRST.LAST runs, sensitivities and categories by name or alias.
 *
 * Kept from setools, each checked against sesearch by tests/cases/test_policy_search.c: the text
 * splits at every '-' and ':' (pieces past the second are ignored), each level is stripped of
 * white space; a run FIRST.LAST holds FIRST, LAST and every category whose value lies above
 * FIRST's up to LAST's (so a reversed run holds its two ends only); a level's categories must
 * be among its sensitivity's declared ones; the high level must dominate the low one.  Errors
 * carry setools' own message.
 *
 * The result is two levels (sens, n, then n category values ascending, no duplicates): the form
 * of struct sp_range_trans, so equal ranges are equal arrays.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy_int.h"

struct range_parse {
	const struct policy_core *k;
	uint8_t *set;			/* [ncats + 1] the categories of the level being read */
	char *why;
	size_t whylen;
	const char *text;		/* the whole range: errors are positioned in it */
	size_t off;			/* the byte offset of the piece an error names */
};

/* The record of name among syms (aliases included), or NULL. */
static const struct policy_mls_sym *mls_lookup(const struct policy_mls_sym *syms, uint32_t n,
					       const char *name, size_t len)
{
	for (uint32_t i = 0; i < n; i++)
		if (strlen(syms[i].name) == len && !memcmp(syms[i].name, name, len))
			return &syms[i];
	return NULL;
}

/* setools' strip(): the text of s[0, *len) without leading and trailing white space. */
static const char *strip(const char *s, size_t *len)
{
	while (*len && isspace((unsigned char)*s))
		s++, (*len)--;
	while (*len && isspace((unsigned char)s[*len - 1]))
		(*len)--;
	return s;
}

/* One comma group of a level's categories into r->set; 0, or -EINVAL with r->why set. */
static int cat_group(struct range_parse *r, const char *lv, int lvlen, const char *g, size_t n)
{
	const struct policy_core *k = r->k;
	const char *dot = memchr(g, '.', n);
	if (dot && memchr(dot + 1, '.', n - (size_t)(dot + 1 - g))) {
		r->off = (size_t)(g - r->text);
		snprintf(r->why, r->whylen, "%.*s is not a valid level (level parsing error)", lvlen,
			 lv);
		return -EINVAL;
	}
	size_t n1 = dot ? (size_t)(dot - g) : n;
	const struct policy_mls_sym *a = mls_lookup(k->cats, k->ncats, g, n1);
	const struct policy_mls_sym *b = dot ? mls_lookup(k->cats, k->ncats, dot + 1, n - n1 - 1) : a;
	if (!a || !b) {
		r->off = (size_t)((!a ? g : dot + 1) - r->text);
		snprintf(r->why, r->whylen, "%.*s is not a valid level (%.*s is not a valid category%s)",
			 lvlen, lv, (int)n, g, dot ? " range" : "");
		return -EINVAL;
	}
	r->set[a->value] = r->set[b->value] = 1;
	for (uint32_t v = a->value + 1; v <= b->value; v++)
		r->set[v] = 1;
	return 0;
}

/* One level, s[0, len), appended to out[*at...] (when it fits in cap); 0 or -EINVAL. */
static int level_parse(struct range_parse *r, const char *s, size_t len, uint32_t *out, size_t cap,
		       size_t *at)
{
	const struct policy_core *k = r->k;
	s = strip(s, &len);
	const char *colon = memchr(s, ':', len);
	size_t slen = colon ? (size_t)(colon - s) : len;
	const struct policy_mls_sym *sens = mls_lookup(k->sens, k->nsens, s, slen);
	if (!sens) {
		r->off = (size_t)(s - r->text);
		snprintf(r->why, r->whylen, "%.*s is not a valid level (%.*s is not a valid "
			 "sensitivity)", (int)len, s, (int)slen, s);
		return -EINVAL;
	}
	memset(r->set, 0, (size_t)k->info.categories + 1);
	if (colon) {
		const char *c = colon + 1, *end = memchr(c, ':', len - slen - 1);
		end = end ? end : s + len;
		for (const char *g = c; g <= end;) {
			const char *comma = memchr(g, ',', (size_t)(end - g));
			const char *ge = comma ? comma : end;
			int rc = cat_group(r, s, (int)len, g, (size_t)(ge - g));
			if (rc)
				return rc;
			g = ge + 1;
		}
	}
	/* the sensitivity's declared level: sens, n, its categories */
	const uint32_t *decl = &k->sens_lv.v[sens->lv];
	uint32_t ncat = 0;
	for (uint32_t v = 1; v <= k->info.categories; v++)
		if (r->set[v]) {
			uint32_t j = 0;
			while (j < decl[1] && decl[2 + j] != v)
				j++;
			if (j == decl[1]) {
				r->off = (size_t)(s - r->text);
				snprintf(r->why, r->whylen, "%.*s is not a valid level (one or more "
					 "categories are not associated with the sensitivity)", (int)len, s);
				return -EINVAL;
			}
			if (*at + 2 + ncat < cap)
				out[*at + 2 + ncat] = v;
			ncat++;
		}
	if (*at + 1 < cap)
		out[*at] = sens->value, out[*at + 1] = ncat;
	*at += 2 + ncat;
	return 0;
}

/* b dominates a: b's sensitivity is at least a's and b's categories hold a's (setools' >=). */
static int dominates(const uint32_t *b, const uint32_t *a)
{
	if (b[0] < a[0])
		return 0;
	for (uint32_t i = 0, j = 0; i < a[1]; i++) {
		while (j < b[1] && b[2 + j] < a[2 + i])
			j++;
		if (j == b[1] || b[2 + j] != a[2 + i])
			return 0;
	}
	return 1;
}

/* The high level of a parsed range [lv, n): the second one. */
static const uint32_t *second_level(const uint32_t *lv)
{
	return lv + 2 + lv[1];
}

SP_API int sp_policy_range_parse_at(const struct sp_policy *p, const char *text, uint32_t *lv,
				    size_t cap, char *why, size_t whylen, size_t *errpos)
{
	const struct policy_core *k = p->core;
	char none[1];
	size_t pos;
	struct range_parse r = { .k = k, .why = why && whylen ? why : none,
				 .whylen = why && whylen ? whylen : sizeof(none), .text = text };
	errpos = errpos ? errpos : &pos;
	*errpos = 0;
	if (!(k->config & 1) || !k->nsens) {
		snprintf(r.why, r.whylen, "the policy has no MLS");
		return -EINVAL;
	}
	if (!(r.set = sp_zalloc(k->alloc, (size_t)k->info.categories + 1, 0)))
		return -ENOMEM;
	size_t len = strlen(text), at = 0;
	const char *dash = memchr(text, '-', len), *hi = dash ? dash + 1 : NULL;
	const char *hend = hi ? memchr(hi, '-', len - (size_t)(hi - text)) : NULL;
	char inner[512];
	struct range_parse lr = r;
	lr.why = inner, lr.whylen = sizeof(inner);
	int rc = level_parse(&lr, text, dash ? (size_t)(dash - text) : len, lv, cap, &at);
	if (!rc && hi)
		rc = level_parse(&lr, hi, hend ? (size_t)(hend - hi) : len - (size_t)(hi - text), lv,
				 cap, &at);
	else if (!rc)
		rc = level_parse(&lr, text, len, lv, cap, &at);	/* one level: low twice */
	sp_free(k->alloc, r.set, (size_t)k->info.categories + 1);
	if (rc) {
		*errpos = lr.off;
		snprintf(r.why, r.whylen, "%s is not a valid range (%s).", text, inner);
		return rc;
	}
	if (at <= cap && !dominates(second_level(lv), lv)) {
		size_t hl = len - (size_t)(hi - text);
		*errpos = (size_t)(strip(hi, &hl) - text);	/* the high level */
		char a[256], b[256];
		const uint32_t *h = second_level(lv);
		sp_policy_range_format(p, lv, lv, a, sizeof(a));
		sp_policy_range_format(p, h, h, b, sizeof(b));
		snprintf(r.why, r.whylen, "%s is not a valid range (%s is not dominated by %s)", text,
			 a, b);
		return -EINVAL;
	}
	return (int)at;
}

SP_API int sp_policy_range_parse(const struct sp_policy *p, const char *text, uint32_t *lv,
				 size_t cap, char *why, size_t whylen)
{
	return sp_policy_range_parse_at(p, text, lv, cap, why, whylen, NULL);
}
