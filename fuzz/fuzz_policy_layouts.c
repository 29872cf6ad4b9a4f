/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_policy_layouts.c - differential libFuzzer target over the three avtab layouts: any byte
 * string is read as a binary policy with the chained (kernel), array (2023 patches) and flat
 * tables.  Invariants: all three accept or all three reject; accepted, they hold the same number
 * of entries in both tables, every entry one layout iterates is found with the same datum and the
 * same number of same-key entries in the other two, and access decisions agree for a sample of
 * triples.  Corpus: the tiny fixtures (every format revision).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "secpath/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct cmp {
	struct sp_policy *const *p;	/* [0] iterated, [1] and [2] searched */
	int cond;
};

static size_t same_key(const struct sp_policy *p, int cond, const struct sp_avtab_entry *e,
		       struct sp_avtab_entry *out, size_t max)
{
	return sp_policy_avtab_lookup(p, cond, e->source, e->target, e->tclass,
				      e->specified & (uint16_t)~SP_AVTAB_ENABLED, out, max);
}

static int check_entry(void *ud, const struct sp_avtab_entry *e)
{
	const struct cmp *c = ud;
	struct sp_avtab_entry a[16], b[16];
	size_t na = same_key(c->p[0], c->cond, e, a, 16);
	for (int k = 1; k < 3; k++) {
		size_t nb = same_key(c->p[k], c->cond, e, b, 16);
		if (nb != na)
			__builtin_trap();
		int found = 0;
		for (size_t i = 0; i < (nb < 16 ? nb : 16); i++)
			found |= b[i].data == e->data;
		if (!found)
			__builtin_trap();
	}
	return 0;
}

static int count_entry(void *ud, const struct sp_avtab_entry *e)
{
	(void)e;
	++*(size_t *)ud;
	return 0;
}

/* Entries the layout's table iterates (not sp_policy_avtab_count: the reader's rule count,
 * the same for every layout). */
static size_t entries(const struct sp_policy *p, int cond)
{
	size_t n = 0;
	sp_policy_avtab_foreach(p, cond, count_entry, &n);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum sp_avtab_layout layouts[3] = { SP_AVTAB_CHAINED, SP_AVTAB_ARRAY,
							 SP_AVTAB_FLAT };
	struct sp_policy *p[3] = { NULL, NULL, NULL };
	int ok = 0;
	for (int l = 0; l < 3; l++) {
		struct sp_policy_opts o = { .sz = sizeof(o), .layout = layouts[l], .file = "fuzz" };
		ok += sp_policy_read(data, size, &o, &p[l]) == 0;
	}
	if (ok == 3) {
		for (int cond = 0; cond < 2; cond++) {
			size_t n = entries(p[0], cond);
			if (entries(p[1], cond) != n || entries(p[2], cond) != n)
				__builtin_trap();
			struct cmp c = { p, cond };
			sp_policy_avtab_foreach(p[0], cond, check_entry, &c);
		}
		uint32_t nt = sp_policy_type_count(p[0]), nc = sp_policy_class_count(p[0]);
		struct sp_av_decision a, b;
		for (uint32_t s = 1; s <= nt && s <= 12; s++)
			for (uint32_t t = 1; t <= nt && t <= 12; t++) {
				uint32_t cl = 1 + (s * 5 + t) % (nc ? nc : 1);
				sp_policy_compute_av(p[0], s, t, cl, &a);
				for (int k = 1; k < 3; k++) {
					sp_policy_compute_av(p[k], s, t, cl, &b);
					if (a.allowed != b.allowed || a.auditdeny != b.auditdeny ||
					    a.auditallow != b.auditallow)
						__builtin_trap();
				}
			}
	} else if (ok != 0) {
		__builtin_trap();	/* the layout must not decide whether a file is valid */
	}
	for (int l = 0; l < 3; l++)
		sp_policy_free(p[l]);
	return 0;
}
