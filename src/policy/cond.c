/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cond.c - the per-boolean-state part of a policy: boolean evaluation of the conditional nodes,
 * each conditional rule's enabled flag, te_cond_avtab in the chosen layout (and, for the flat
 * layout, a merged table of the enabled rules), boolean changes, and setools' rendering of a
 * node's expression.
 *
 * Booleans: a change re-evaluates every node (not only the changed ones, so a file with stale
 * enabled flags cannot mislead) and rebuilds the conditional tables from the rule list, instead
 * of the kernel's in-place toggling; that keeps the old state intact for RCU readers (the AVC
 * publishes a copy that shares the immutable core).  A change costs one pass over the nodes and
 * one table build over the conditional rules.
 *
 * Invariants of a condstate: rule_enabled[i] == (node_state[node of i] == the rule's list) and
 * enabled_count is their sum; tab holds every conditional rule with its enabled bit; eff (flat
 * only) holds exactly the enabled AV and type rules, AV folded per key, type rules last wins.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/assert.h"
#include "policy/policy_int.h"

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

/* The state for booleans bools[1..nbools] (NULL: all false).  Returns 0 or -ENOMEM (cs is then
 * released). */
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
	struct policy_rules rs = { .r = k->cr, .n = k->ncr, .hint = k->info.te_rules,
				   .enabled = cs->rule_enabled, .types = k->ntypes,
				   .classes = k->nclasses };
	int rc = policy_avtab_build(&cs->tab, k->layout, POLICY_AVTAB_COND, &rs, k->xperms,
				    policy_core_nodes(k), k->alloc);
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
		rs = (struct policy_rules){ .r = en, .n = m, .hint = m, .types = k->ntypes,
					    .classes = k->nclasses };
		rc = policy_avtab_build(&cs->eff, SP_AVTAB_FLAT, POLICY_AVTAB_MERGED, &rs, k->xperms,
				       NULL, k->alloc);
		sp_free(k->alloc, en, ((size_t)cs->enabled_count + 1) * sizeof(*en));
		if (rc)
			goto fail;
		SP_ASSERT_INTERNAL(cs->eff.nel <= m);
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

/* A new state: from's booleans with b set to state.  Returns 0, -EINVAL (no boolean b), -ENOMEM. */
int policy_condstate_with_bool(const struct policy_core *k, const struct policy_condstate *from,
			       uint32_t b, int state, struct policy_condstate *out)
{
	if (!b || b > k->nbools)
		return -EINVAL;
	uint8_t *nb = sp_alloc(k->alloc, (size_t)k->nbools + 1, 0);
	if (!nb)
		return -ENOMEM;
	memcpy(nb, from->bools, (size_t)k->nbools + 1);
	nb[b] = state != 0;
	int rc = policy_condstate_init(k, out, nb);
	sp_free(k->alloc, nb, (size_t)k->nbools + 1);
	return rc;
}

SP_API int sp_policy_bool_set(struct sp_policy *p, uint32_t b, int state)
{
	struct policy_condstate ncs;
	int rc = policy_condstate_with_bool(p->core, &p->cs, b, state, &ncs);
	if (rc)
		return rc;
	policy_condstate_release(p->core, &p->cs);
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

