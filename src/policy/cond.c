/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decide.c - what turns a read policy into a decision engine: name indexes, the attribute CSR
 * rows (and their reverse), the decision filters, the conditional state (boolean evaluation,
 * enabled flags, te_cond_avtab, and for the flat layout a merged table of enabled rules), and
 * the decisions themselves (TE part of context_struct_compute_av, new-object types).
 *
 * Decision filters: src rows keep only values that occur as the source of some AV rule (either
 * table, any boolean state), tgt rows only values that occur as a target, and a blocked Bloom
 * filter over every AV triple of both tables (any boolean state) skips pairs without rules
 * before touching a table.  The kernel's double loop visits |row(s)| x |row(t)| pairs and probes
 * both tables for each; the filtered loop probes only pairs that can match, so it returns the
 * same decision (tested against the literal loop, sp_policy_compute_av_ref, and libsepol).
 *
 * Booleans: a change re-evaluates every node (not only the changed ones, so a file with stale
 * enabled flags cannot mislead) and rebuilds the conditional tables from the rule list, instead
 * of the kernel's in-place toggling; that keeps the old state intact for RCU readers (the AVC
 * publishes a copy that shares the immutable core).  ~1 ms on debian-default.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_int.h"

static int bloom_build(struct policy_core *k);

static int ix_cmp(const void *a, const void *b)
{
	const struct policy_name_ix *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	return r ? r : (x->value > y->value) - (x->value < y->value);
}

static int build_ix(const struct sp_allocator *al, const char **names, uint32_t n,
		    struct policy_name_ix **out)
{
	struct policy_name_ix *ix = sp_zalloc(al, ((size_t)n + 1) * sizeof(*ix), 0);
	if (!ix)
		return -ENOMEM;
	uint32_t m = 0;
	for (uint32_t i = 1; i <= n; i++)
		if (names[i])
			ix[m++] = (struct policy_name_ix){ names[i], i };
	qsort(ix, m, sizeof(*ix), ix_cmp);
	ix[m].name = NULL;
	*out = ix;
	return 0;
}

/* CSR transpose and filtering helpers over rows 1..nt */
static int csr_filter(struct policy_core *k, const uint8_t *keep, uint32_t **off_out,
		      uint32_t **v_out)
{
	uint32_t nt = k->ntypes;
	uint32_t *off = sp_zalloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
	if (!off)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 1; i <= nt; i++)
		for (uint32_t j = k->attr_off[i]; j < k->attr_off[i + 1]; j++)
			n += keep[k->attr_v[j]];
	uint32_t *v = sp_alloc(k->alloc, ((size_t)n + 1) * sizeof(uint32_t), 0);
	if (!v) {
		sp_free(k->alloc, off, ((size_t)nt + 2) * sizeof(uint32_t));
		return -ENOMEM;
	}
	n = 0;
	for (uint32_t i = 1; i <= nt; i++) {
		off[i] = n;
		for (uint32_t j = k->attr_off[i]; j < k->attr_off[i + 1]; j++)
			if (keep[k->attr_v[j]])
				v[n++] = k->attr_v[j];
	}
	off[nt + 1] = n;
	off[0] = 0;
	*off_out = off;
	*v_out = v;
	return 0;
}

static int ft_cmp(const void *a, const void *b)
{
	const struct sp_filename_trans *x = *(const struct sp_filename_trans *const *)a;
	const struct sp_filename_trans *y = *(const struct sp_filename_trans *const *)b;
	if (x->stype != y->stype)
		return x->stype < y->stype ? -1 : 1;
	if (x->ttype != y->ttype)
		return x->ttype < y->ttype ? -1 : 1;
	if (x->tclass != y->tclass)
		return x->tclass < y->tclass ? -1 : 1;
	return strcmp(x->name, y->name);
}

int policy_core_finish(struct policy_core *k)
{
	uint32_t nt = k->ntypes;
	int rc;
	const char **cn = sp_zalloc(k->alloc, ((size_t)k->nclasses + 1) * sizeof(char *), 0);
	if (!cn)
		return -ENOMEM;
	for (uint32_t i = 1; i <= k->nclasses; i++)
		cn[i] = k->cls[i].name;
	rc = build_ix(k->alloc, cn, k->nclasses, &k->class_ix);
	sp_free(k->alloc, cn, ((size_t)k->nclasses + 1) * sizeof(char *));
	if (rc || (rc = build_ix(k->alloc, k->bool_name, k->nbools, &k->bool_ix)))
		return rc;
	qsort(k->type_ix, k->ntype_ix, sizeof(*k->type_ix), ix_cmp);

	/* reverse map: rev row a = types whose row holds a */
	k->rev_off = sp_zalloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
	uint32_t tot = k->attr_off[nt + 1];
	k->rev_v = sp_alloc(k->alloc, ((size_t)tot + 1) * sizeof(uint32_t), 0);
	if (!k->rev_off || !k->rev_v)
		return -ENOMEM;
	for (uint32_t j = 0; j < tot; j++)
		k->rev_off[k->attr_v[j] + 1]++;
	/* rev_off[a + 1] holds counts; prefix sums give starts at rev_off[a] for a = 1..nt */
	uint32_t run = 0;
	for (uint32_t a = 1; a <= nt + 1; a++) {
		uint32_t cnt = a <= nt ? k->rev_off[a + 1] : 0;
		k->rev_off[a] = run;
		run += cnt;
	}
	{
		uint32_t *fill = sp_alloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
		if (!fill)
			return -ENOMEM;
		memcpy(fill, k->rev_off, ((size_t)nt + 2) * sizeof(uint32_t));
		for (uint32_t i = 1; i <= nt; i++)
			for (uint32_t j = k->attr_off[i]; j < k->attr_off[i + 1]; j++)
				k->rev_v[fill[k->attr_v[j]]++] = i;
		sp_free(k->alloc, fill, ((size_t)nt + 2) * sizeof(uint32_t));
	}

	/* decision filters */
	uint8_t *src = sp_zalloc(k->alloc, (size_t)nt + 1, 0), *tgt = sp_zalloc(k->alloc, (size_t)nt + 1, 0);
	if (!src || !tgt) {
		rc = -ENOMEM;
	} else {
		for (uint32_t i = 0; i < k->nte; i++)
			if (k->te[i].spec & SP_AVTAB_AV)
				src[k->te[i].s] = tgt[k->te[i].t] = 1;
		for (uint32_t i = 0; i < k->ncr; i++)
			if (k->cr[i].spec & SP_AVTAB_AV)
				src[k->cr[i].s] = tgt[k->cr[i].t] = 1;
		rc = csr_filter(k, src, &k->src_off, &k->src_v);
		if (!rc)
			rc = csr_filter(k, tgt, &k->tgt_off, &k->tgt_v);
	}
	sp_free(k->alloc, src, (size_t)nt + 1);
	sp_free(k->alloc, tgt, (size_t)nt + 1);
	if (rc)
		return rc;

	/* filename transitions sorted for binary search */
	k->ft_sorted = sp_alloc(k->alloc, ((size_t)k->nft + 1) * sizeof(uint32_t), 0);
	if (!k->ft_sorted)
		return -ENOMEM;
	{
		const struct sp_filename_trans **pv =
			sp_alloc(k->alloc, ((size_t)k->nft + 1) * sizeof(*pv), 0);
		if (!pv)
			return -ENOMEM;
		for (uint32_t i = 0; i < k->nft; i++)
			pv[i] = &k->ft[i];
		qsort(pv, k->nft, sizeof(*pv), ft_cmp);
		for (uint32_t i = 0; i < k->nft; i++)
			k->ft_sorted[i] = (uint32_t)(pv[i] - k->ft);
		sp_free(k->alloc, pv, ((size_t)k->nft + 1) * sizeof(*pv));
	}

	for (uint32_t i = 0; i < k->nte; i++) {
		switch (k->te[i].spec) {
		case SP_AVTAB_ALLOWED: k->info.te_allow++; break;
		case SP_AVTAB_AUDITALLOW: k->info.te_auditallow++; break;
		case SP_AVTAB_AUDITDENY: k->info.te_dontaudit++; break;
		case SP_AVTAB_TRANSITION: k->info.te_type_trans++; break;
		case SP_AVTAB_CHANGE: k->info.te_type_change++; break;
		case SP_AVTAB_MEMBER: k->info.te_type_member++; break;
		default: k->info.te_xperms++; break;
		}
	}
	if ((rc = bloom_build(k)))
		return rc;
	rc = policy_avtab_build(&k->te_tab, k->layout, 0, k->te, k->nte, k->nte, NULL, k->xperms,
				k->alloc);
	if (rc)
		return rc;
	/* the raw te list is no longer needed: the table is the only copy */
	sp_free(k->alloc, k->te, (size_t)k->te_cap * sizeof(*k->te));
	k->te = NULL;
	k->te_cap = 0;
	return 0;
}

/* ---- the triple Bloom filter ---- */

static inline uint64_t bloom_hash(uint32_t s, uint32_t t, uint32_t c)
{
	uint64_t k = (uint64_t)s | (uint64_t)t << 16 | (uint64_t)c << 32;
	return k * 0xff51afd7ed558ccdull;
}

static inline uint64_t bloom_bits(uint64_t h)
{
	return 1ull << (h & 63) | 1ull << ((h >> 6) & 63) | 1ull << ((h >> 12) & 63);
}

static inline int bloom_may(const struct policy_core *k, uint32_t s, uint32_t t, uint32_t c)
{
	uint64_t h = bloom_hash(s, t, c), m = bloom_bits(h);
	return (k->bloom[h >> k->bloom_shift] & m) == m;
}

static int bloom_build(struct policy_core *k)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < k->nte; i++)
		n += (k->te[i].spec & SP_AVTAB_AV) != 0;
	for (uint32_t i = 0; i < k->ncr; i++)
		n += (k->cr[i].spec & SP_AVTAB_AV) != 0;
	uint32_t lg = 6;			/* >= 64 words; ~16 bits per triple */
	while ((1ull << lg) < n / 4 && lg < 30)
		lg++;
	k->bloom_words = 1u << lg;
	k->bloom_shift = 64 - lg;
	k->bloom = sp_zalloc(k->alloc, (size_t)k->bloom_words * 8, 64);
	if (!k->bloom)
		return -ENOMEM;
	for (uint32_t i = 0; i < k->nte; i++)
		if (k->te[i].spec & SP_AVTAB_AV) {
			uint64_t h = bloom_hash(k->te[i].s, k->te[i].t, k->te[i].c);
			k->bloom[h >> k->bloom_shift] |= bloom_bits(h);
		}
	for (uint32_t i = 0; i < k->ncr; i++)
		if (k->cr[i].spec & SP_AVTAB_AV) {
			uint64_t h = bloom_hash(k->cr[i].s, k->cr[i].t, k->cr[i].c);
			k->bloom[h >> k->bloom_shift] |= bloom_bits(h);
		}
	return 0;
}

/* ---- conditional state ---- */

/* Evaluate node i's postfix expression; -1 when malformed (stack depth 10, like the kernel). */
static int cond_eval(const struct policy_core *k, const uint8_t *bools, uint32_t i)
{
	const struct policy_cond_node *n = &k->cnode[i];
	int st[10], sp = -1;
	for (uint32_t j = 0; j < n->nexpr; j++) {
		const struct policy_cond_expr *e = &k->cexpr[n->expr_off + j];
		if (e->type == 1) {
			if (sp == 9)
				return -1;
			st[++sp] = bools[e->boolv] != 0;
			continue;
		}
		if (e->type == 2) {
			if (sp < 0)
				return -1;
			st[sp] = !st[sp];
			continue;
		}
		if (sp < 1)
			return -1;
		int a = st[sp - 1], b = st[sp];
		sp--;
		switch (e->type) {
		case 3: st[sp] = a || b; break;
		case 4: st[sp] = a && b; break;
		case 5: st[sp] = a ^ b; break;
		case 6: st[sp] = a == b; break;
		default: st[sp] = a != b; break;
		}
	}
	return sp == 0 ? st[0] : -1;
}

int policy_condstate_init(const struct policy_core *k, struct policy_condstate *cs,
			  const uint8_t *bools)
{
	memset(cs, 0, sizeof(*cs));
	cs->bools = sp_alloc(k->alloc, (size_t)k->nbools + 1, 0);
	cs->node_state = sp_alloc(k->alloc, (size_t)k->ncnode + 1, 0);
	cs->rule_enabled = sp_zalloc(k->alloc, (size_t)k->ncr + 1, 0);
	if (!cs->bools || !cs->node_state || !cs->rule_enabled)
		goto nomem;
	if (bools)
		memcpy(cs->bools, bools, (size_t)k->nbools + 1);
	else
		memset(cs->bools, 0, (size_t)k->nbools + 1);
	for (uint32_t i = 0; i < k->ncnode; i++)
		cs->node_state[i] = (int8_t)cond_eval(k, cs->bools, i);
	for (uint32_t i = 0; i < k->ncr; i++) {
		int st = cs->node_state[k->cr_node[i] & 0x7fffffffu];
		int list_true = (k->cr_node[i] >> 31) != 0;
		cs->rule_enabled[i] = st >= 0 && st == list_true;
		cs->enabled_count += cs->rule_enabled[i];
	}
	int rc = policy_avtab_build(&cs->tab, k->layout, 1, k->cr, k->ncr, k->info.te_rules,
				    cs->rule_enabled, k->xperms, k->alloc);
	if (rc)
		goto fail;
	if (k->layout == SP_AVTAB_FLAT) {
		struct policy_rule *en = sp_alloc(k->alloc, ((size_t)cs->enabled_count + 1) * sizeof(*en), 0);
		if (!en)
			goto nomem;
		uint32_t m = 0;
		for (uint32_t i = 0; i < k->ncr; i++)
			if (cs->rule_enabled[i] && (k->cr[i].spec & (SP_AVTAB_AV | SP_AVTAB_TYPE)))
				en[m++] = k->cr[i];	/* merged: AV folded, type rules last wins */
		rc = policy_avtab_build(&cs->eff, SP_AVTAB_FLAT, 2, en, m, m, NULL, k->xperms, k->alloc);
		sp_free(k->alloc, en, ((size_t)cs->enabled_count + 1) * sizeof(*en));
		if (rc)
			goto fail;
	}
	return 0;
nomem:
	rc = -ENOMEM;
fail:
	policy_condstate_release(k, cs);
	return rc;
}

void policy_condstate_release(const struct policy_core *k, struct policy_condstate *cs)
{
	sp_free(k->alloc, cs->bools, (size_t)k->nbools + 1);
	sp_free(k->alloc, cs->node_state, (size_t)k->ncnode + 1);
	sp_free(k->alloc, cs->rule_enabled, (size_t)k->ncr + 1);
	if (cs->tab.alloc || cs->tab.nslot)
		policy_avtab_destroy(&cs->tab);
	if (cs->eff.alloc || cs->eff.nslot)
		policy_avtab_destroy(&cs->eff);
	memset(cs, 0, sizeof(*cs));
}

SP_API int sp_policy_bool_set(struct sp_policy *p, uint32_t b, int state)
{
	const struct policy_core *k = p->core;
	if (!b || b > k->nbools)
		return -EINVAL;
	uint8_t *nb = sp_alloc(k->alloc, (size_t)k->nbools + 1, 0);
	if (!nb)
		return -ENOMEM;
	memcpy(nb, p->cs.bools, (size_t)k->nbools + 1);
	nb[b] = state != 0;
	struct policy_condstate ncs;
	int rc = policy_condstate_init(k, &ncs, nb);
	sp_free(k->alloc, nb, (size_t)k->nbools + 1);
	if (rc)
		return rc;
	policy_condstate_release(k, &p->cs);
	p->cs = ncs;
	p->seqno++;
	return 0;
}

SP_API int sp_policy_cond_state(const struct sp_policy *p, uint32_t cond)
{
	if (!cond || cond > p->core->ncnode)
		return -1;
	return p->cs.node_state[cond - 1];
}

/*
 * setools' rendering (what sesearch prints): postfix to infix, where a binary operator prints
 * its operands top-of-stack first and is parenthesised unless the previous operator bound
 * tighter; "!" parenthesises compound operands.  Precedences: ! 5, == != 4, && 3, ^ 2, || 1.
 */
struct cf_item {
	char *s;
	size_t n;
	int compound;
};

static char *cf_join(const struct sp_allocator *a, const char *const *parts, int np, size_t *out_n)
{
	size_t n = 0;
	for (int i = 0; i < np; i++)
		n += strlen(parts[i]) + 1;
	char *s = sp_alloc(a, n + 1, 0);
	if (!s)
		return NULL;
	size_t o = 0;
	for (int i = 0; i < np; i++) {
		size_t l = strlen(parts[i]);
		if (i)
			s[o++] = ' ';
		memcpy(s + o, parts[i], l);
		o += l;
	}
	s[o] = 0;
	*out_n = n + 1;
	return s;
}

SP_API size_t sp_policy_cond_bools(const struct sp_policy *p, uint32_t cond, uint32_t *out,
				   size_t max)
{
	const struct policy_core *k = p->core;
	if (!cond || cond > k->ncnode)
		return 0;
	const struct policy_cond_node *n = &k->cnode[cond - 1];
	size_t cnt = 0;
	/* distinct booleans in ascending order: repeated minimum extraction (expressions are short) */
	for (uint32_t last = 0;;) {
		uint32_t next = UINT32_MAX;
		for (uint32_t j = 0; j < n->nexpr; j++) {
			const struct policy_cond_expr *e = &k->cexpr[n->expr_off + j];
			if (e->type == 1 && e->boolv > last && e->boolv < next)
				next = e->boolv;
		}
		if (next == UINT32_MAX)
			return cnt;
		if (cnt < max)
			out[cnt] = next;
		cnt++;
		last = next;
	}
}

SP_API int sp_policy_cond_format(const struct sp_policy *p, uint32_t cond, char *buf, size_t len)
{
	const struct policy_core *k = p->core;
	if (!cond || cond > k->ncnode)
		return -EINVAL;
	const struct policy_cond_node *n = &k->cnode[cond - 1];
	static const char *const opname[8] = { "", "", "!", "||", "&&", "^", "==", "!=" };
	static const int prec[8] = { 0, 0, 5, 1, 3, 2, 4, 4 };
	struct cf_item *st = sp_zalloc(k->alloc, ((size_t)n->nexpr + 1) * sizeof(*st), 0);
	if (!st)
		return -ENOMEM;
	int sp = 0, prev = 5, rc = 0;
	for (uint32_t j = 0; j < n->nexpr && !rc; j++) {
		const struct policy_cond_expr *e = &k->cexpr[n->expr_off + j];
		struct cf_item it = { 0 };
		if (e->type == 1) {
			const char *w = k->bool_name[e->boolv] ? k->bool_name[e->boolv] : "?";
			it.s = cf_join(k->alloc, &w, 1, &it.n);
		} else if (e->type == 2) {
			if (sp < 1) {
				rc = -EINVAL;
				break;
			}
			struct cf_item *o = &st[--sp];
			const char *parts[4] = { "!", "(", o->s, ")" };
			if (o->compound)
				it.s = cf_join(k->alloc, parts, 4, &it.n);
			else {
				parts[1] = o->s;
				it.s = cf_join(k->alloc, parts, 2, &it.n);
			}
			sp_free(k->alloc, o->s, o->n);
			it.compound = 1;
			prev = 5;
		} else {
			if (sp < 2) {
				rc = -EINVAL;
				break;
			}
			struct cf_item *o1 = &st[--sp], *o2 = &st[--sp];
			const char *parts[5] = { "(", o1->s, opname[e->type], o2->s, ")" };
			if (prev > prec[e->type])
				it.s = cf_join(k->alloc, parts + 1, 3, &it.n);
			else
				it.s = cf_join(k->alloc, parts, 5, &it.n);
			sp_free(k->alloc, o1->s, o1->n);
			sp_free(k->alloc, o2->s, o2->n);
			it.compound = 1;
			prev = prec[e->type];
		}
		if (!it.s) {
			rc = -ENOMEM;
			break;
		}
		st[sp++] = it;
	}
	int out = rc;
	if (!rc)
		out = snprintf(buf, len, "[ %s ]", sp == 1 ? st[0].s : "?");
	for (int i = 0; i < sp; i++)
		sp_free(k->alloc, st[i].s, st[i].n);
	sp_free(k->alloc, st, ((size_t)n->nexpr + 1) * sizeof(*st));
	return out;
}

/* ---- decisions ---- */

static inline void avd_init(uint32_t av[3])
{
	av[0] = 0;
	av[1] = 0;
	av[2] = 0xffffffffu;
}

static int check_args(const struct policy_core *k, uint32_t s, uint32_t t, uint32_t c)
{
	return (!s || s > k->ntypes || !t || t > k->ntypes || !c || c > k->nclasses) ? -EINVAL : 0;
}

SP_API int sp_policy_compute_av_ref(const struct sp_policy *p, uint32_t s, uint32_t t,
				    uint32_t c, struct sp_av_decision *avd)
{
	const struct policy_core *k = p->core;
	if (check_args(k, s, t, c))
		return -EINVAL;
	uint32_t av[3];
	avd_init(av);
	for (uint32_t i = k->attr_off[s]; i < k->attr_off[s + 1]; i++)
		for (uint32_t j = k->attr_off[t]; j < k->attr_off[t + 1]; j++) {
			uint16_t si = (uint16_t)k->attr_v[i], tj = (uint16_t)k->attr_v[j];
			policy_avtab_fold(&k->te_tab, si, tj, (uint16_t)c, av);
			policy_avtab_fold(&p->cs.tab, si, tj, (uint16_t)c, av);
		}
	avd->allowed = av[0], avd->auditallow = av[1], avd->auditdeny = av[2];
	avd->flags = (k->type_flags[s] & 2) ? SP_AVD_FLAGS_PERMISSIVE : 0;
	avd->seqno = p->seqno;
	return 0;
}

SP_API int sp_policy_compute_av(const struct sp_policy *p, uint32_t s, uint32_t t, uint32_t c,
				struct sp_av_decision *avd)
{
	const struct policy_core *k = p->core;
	if (unlikely(check_args(k, s, t, c)))
		return -EINVAL;
	uint32_t av[3];
	avd_init(av);
	const uint32_t *sv = k->src_v + k->src_off[s], *se = k->src_v + k->src_off[s + 1];
	const uint32_t *tv = k->tgt_v + k->tgt_off[t], *te = k->tgt_v + k->tgt_off[t + 1];
	const struct policy_avtab *ct = k->layout == SP_AVTAB_FLAT ? &p->cs.eff : &p->cs.tab;
	for (; sv < se; sv++)
		for (const uint32_t *x = tv; x < te; x++) {
			if (!bloom_may(k, *sv, *x, c))
				continue;
			policy_avtab_fold(&k->te_tab, (uint16_t)*sv, (uint16_t)*x, (uint16_t)c, av);
			policy_avtab_fold(ct, (uint16_t)*sv, (uint16_t)*x, (uint16_t)c, av);
		}
	avd->allowed = av[0], avd->auditallow = av[1], avd->auditdeny = av[2];
	avd->flags = (k->type_flags[s] & 2) ? SP_AVD_FLAGS_PERMISSIVE : 0;
	avd->seqno = p->seqno;
	return 0;
}

/* services_compute_xperms_decision: fold one xperm entry into xd */
static void xperms_fold(const struct sp_avtab_entry *e, struct sp_xperms_decision *xd)
{
	const struct sp_avtab_xperms *x = e->xperms;
	int all;
	if (x->kind == 2)
		all = 1;
	else if (x->kind == 1 && x->driver == xd->driver)
		all = 0;
	else
		return;
	if (all && !(x->perms[xd->driver >> 5] >> (xd->driver & 31) & 1))
		return;
	uint32_t *dst;
	switch (e->specified & SP_AVTAB_XPERMS) {
	case SP_AVTAB_XPERMS_ALLOWED:
		xd->used |= SP_XPERMS_USED_ALLOWED, dst = xd->allowed;
		break;
	case SP_AVTAB_XPERMS_AUDITALLOW:
		xd->used |= SP_XPERMS_USED_AUDITALLOW, dst = xd->auditallow;
		break;
	default:
		xd->used |= SP_XPERMS_USED_DONTAUDIT, dst = xd->dontaudit;
		break;
	}
	for (int i = 0; i < 8; i++)
		dst[i] |= all ? ~0u : x->perms[i];
}

/* every xperm entry of (s, t, c) in table t (conditional: enabled ones) into xd */
static int xperms_table(const struct policy_avtab *t, int cond, uint16_t s, uint16_t tt,
			uint16_t c, struct sp_xperms_decision *xd)
{
	struct sp_avtab_entry buf[16], *e = buf;
	size_t n = policy_avtab_lookup(t, s, tt, c, SP_AVTAB_XPERMS, buf, SP_ARRAY_SIZE(buf));
	if (n > SP_ARRAY_SIZE(buf)) {
		if (!(e = malloc(n * sizeof(*e))))
			return -ENOMEM;
		n = policy_avtab_lookup(t, s, tt, c, SP_AVTAB_XPERMS, e, n);
	}
	for (size_t i = 0; i < n; i++)
		if (!cond || (e[i].specified & SP_AVTAB_ENABLED))
			xperms_fold(&e[i], xd);
	if (e != buf)
		free(e);
	return 0;
}

SP_API int sp_policy_compute_xperms(const struct sp_policy *p, uint32_t s, uint32_t t, uint32_t c,
				    uint8_t driver, struct sp_xperms_decision *xd)
{
	const struct policy_core *k = p->core;
	if (check_args(k, s, t, c))
		return -EINVAL;
	memset(xd, 0, sizeof(*xd));
	xd->driver = driver;
	if (!k->nxperms)		/* no xperm rule in either table */
		return 0;
	for (uint32_t i = k->attr_off[s]; i < k->attr_off[s + 1]; i++)
		for (uint32_t j = k->attr_off[t]; j < k->attr_off[t + 1]; j++) {
			uint16_t a = (uint16_t)k->attr_v[i], b = (uint16_t)k->attr_v[j];
			int rc = xperms_table(&k->te_tab, 0, a, b, (uint16_t)c, xd);
			if (!rc)
				rc = xperms_table(&p->cs.tab, 1, a, b, (uint16_t)c, xd);
			if (rc)
				return rc;
		}
	return 0;
}

SP_API int sp_policy_compute_type(const struct sp_policy *p, uint32_t s, uint32_t t, uint32_t c,
				  uint16_t kind, const char *name, uint32_t *out)
{
	const struct policy_core *k = p->core;
	if (check_args(k, s, t, c) ||
	    (kind != SP_AVTAB_TRANSITION && kind != SP_AVTAB_MEMBER && kind != SP_AVTAB_CHANGE))
		return -EINVAL;
	struct sp_avtab_entry e[16];
	uint32_t res = 0;
	size_t n = policy_avtab_lookup(&k->te_tab, (uint16_t)s, (uint16_t)t, (uint16_t)c, kind, e, 1);
	if (n) {
		res = e[0].data;
	} else {
		/* the kernel takes the first enabled node of its chain, where a later duplicate sits
		 * before an earlier one: the last enabled rule of the file.  flat answers from its
		 * merged table of enabled rules, built in file order (last wins). */
		if (k->layout == SP_AVTAB_FLAT) {
			uint32_t d;
			if (policy_avtab_search(&p->cs.eff, (uint16_t)s, (uint16_t)t, (uint16_t)c, kind, &d))
				res = d;
		} else {
			struct sp_avtab_entry *v = e;
			n = policy_avtab_lookup(&p->cs.tab, (uint16_t)s, (uint16_t)t, (uint16_t)c, kind,
						e, SP_ARRAY_SIZE(e));
			if (n > SP_ARRAY_SIZE(e)) {	/* many duplicates: look again in full */
				v = sp_alloc(k->alloc, n * sizeof(*v), 0);
				if (!v)
					return -ENOMEM;
				policy_avtab_lookup(&p->cs.tab, (uint16_t)s, (uint16_t)t, (uint16_t)c,
						    kind, v, n);
			}
			for (size_t i = 0; i < n; i++)
				if (v[i].specified & SP_AVTAB_ENABLED) {
					res = v[i].data;
					break;
				}
			if (v != e)
				sp_free(k->alloc, v, n * sizeof(*v));
		}
	}
	if (name && kind == SP_AVTAB_TRANSITION && k->nft) {
		size_t lo = 0, hi = k->nft;
		struct sp_filename_trans key = { s, t, c, 0, name };
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const struct sp_filename_trans *x = &k->ft[k->ft_sorted[mid]];
			int cmp = x->stype != key.stype ? (x->stype < key.stype ? -1 : 1)
				: x->ttype != key.ttype ? (x->ttype < key.ttype ? -1 : 1)
				: x->tclass != key.tclass ? (x->tclass < key.tclass ? -1 : 1)
				: strcmp(x->name, name);
			if (!cmp) {
				res = x->otype;
				break;
			}
			if (cmp < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	*out = res;
	return 0;
}
