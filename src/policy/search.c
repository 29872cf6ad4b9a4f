/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search.c - rule search with setools' semantics (setools 4.4 TERuleQuery and RBACRuleQuery,
 * what sesearch prints): the criteria of struct sp_policy_query (policy.h) turned into
 * per-value match tables once, then one pass over te_avtab, the conditional rules and the
 * filename transitions.
 *
 * Semantics kept from setools, each checked against it by tests/cases/test_policy_search.c:
 * a type or attribute criterion matches through member types (a type's members are itself; an
 * attribute without member types is falsy in setools, so it imposes no criterion); permission
 * sets compare within the rule's class; xperm rules match a permission criterion by their xperm
 * type's name; unconditional rules never match a boolean criterion.  A list criterion (the
 * values whose names match sesearch's -rs/-rt/-rd) is a match table like a single value's, but
 * direct lists use one too and no empty-attribute rule drops it.  An xperm criterion is a 64 Ki
 * bit set with a per-driver summary; an xperm entry's set is one driver's functions or whole
 * drivers, so intersection and equality are judged 256 bits or one summary byte at a time.
 *
 * Cost: the match tables are O(types + classes x 32 + booleans) to build; each rule is then
 * judged in O(1) but the boolean criterion (O(expression length)).
 *
 * Role rules (sp_policy_role_search, setools RBACRuleQuery) reuse the target type and class
 * tables: a role_transition's type matches as a TE rule's target; roles match by equality (a
 * binary policy's roles have no members but themselves); a criterion a rule kind lacks (class,
 * default role or a type for allow, a target role for role_transition) fails it.
 */
#include <errno.h>
#include <string.h>

#include "policy/policy_int.h"

struct query {
	const struct sp_policy *p;
	const struct sp_policy_query *q;
	const struct sp_allocator *a;
	uint32_t ntypes, nclasses, nbools;
	uint32_t s, t, d;		/* criteria left after setools' empty-attribute rule */
	uint8_t *smatch, *tmatch, *dmatch;	/* per type value: shares a member type */
	uint8_t *cls;			/* per class: listed (NULL: any) */
	uint32_t *perms, *pfound, *valid;	/* per class: listed mask, listed names it has,
						 * its defined permissions */
	uint32_t npn;			/* distinct permission names */
	int px_ioctl, px_nlmsg;		/* the names list the xperm types */
	uint8_t *bset;			/* per boolean: listed */
	uint32_t nbq;			/* distinct booleans */
	uint32_t *xbits;		/* -x: 65536 bits, driver d's functions at words 8d..8d+7 */
	uint8_t *xdrv;			/* per driver: XDRV_NONE, XDRV_SOME or XDRV_ALL of its 256 */
};

enum { XDRV_NONE, XDRV_SOME, XDRV_ALL };
#define XBITS_WORDS (65536 / 32)

/* An attribute without member types (setools: falsy, so its criterion is dropped). */
static int empty_attr(const struct sp_policy *p, uint32_t v)
{
	const uint32_t *mem;
	size_t n = sp_policy_attr_types(p, v, &mem);
	if (!sp_policy_type_is_attr(p, v))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!sp_policy_type_is_attr(p, mem[i]))
			return 0;
	return 1;
}

/* m[v] = 1 for every value v whose member types intersect those of v0. */
static void match_add(struct query *x, uint32_t v0, uint8_t *m)
{
	const uint32_t *mem, *row;
	size_t nm = sp_policy_attr_types(x->p, v0, &mem);
	for (size_t i = 0; i < nm; i++) {
		if (sp_policy_type_is_attr(x->p, mem[i]))
			continue;
		size_t nr = sp_policy_type_attrs(x->p, mem[i], &row);
		for (size_t j = 0; j < nr; j++)
			m[row[j]] = 1;
	}
}

/* A type criterion: the value (0 when an empty attribute drops it) and, indirect, its table.
 * A list (vals not NULL) always has a table, and *keep is 1 to say the criterion holds. */
static int type_criterion(struct query *x, uint32_t v, const uint32_t *vals, size_t n, int direct,
			  uint32_t *keep, uint8_t **m)
{
	if (v > x->ntypes)
		return -EINVAL;
	*keep = vals ? 1 : v && !empty_attr(x->p, v) ? v : 0;
	if (!*keep || (direct && !vals))
		return 0;
	if (!(*m = sp_zalloc(x->a, (size_t)x->ntypes + 1, 0)))
		return -ENOMEM;
	if (!vals) {
		match_add(x, v, *m);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!vals[i] || vals[i] > x->ntypes)
			return -EINVAL;
		if (direct)
			(*m)[vals[i]] = 1;
		else
			match_add(x, vals[i], *m);
	}
	return 0;
}

/* The -x criterion's bit set and per-driver summary. */
static int xperm_criterion(struct query *x)
{
	const struct sp_policy_query *q = x->q;
	x->xbits = sp_zalloc(x->a, XBITS_WORDS * sizeof(uint32_t), 0);
	x->xdrv = sp_zalloc(x->a, 256, 0);
	if (!x->xbits || !x->xdrv)
		return -ENOMEM;
	for (size_t i = 0; i < q->nxperms; i++) {
		if (q->xperms[i].lo > q->xperms[i].hi)
			return -EINVAL;
		for (uint32_t b = q->xperms[i].lo; b <= q->xperms[i].hi; b++)
			x->xbits[b / 32] |= 1u << (b % 32);
	}
	for (unsigned d = 0; d < 256; d++) {
		uint32_t any = 0, all = ~0u;
		for (unsigned w = 0; w < 8; w++) {
			any |= x->xbits[d * 8 + w];
			all &= x->xbits[d * 8 + w];
		}
		x->xdrv[d] = all == ~0u ? XDRV_ALL : any ? XDRV_SOME : XDRV_NONE;
	}
	return 0;
}

/* setools' -x (-ex): the entry's extended permission set against the criterion's.  A driver
 * entry holds whole drivers; a function (or nlmsg) entry one driver's listed functions. */
static int xperm_match(const struct query *x, const struct sp_avtab_xperms *e)
{
	int eq = x->q->xperms_equal;
	if (!e)
		return 0;
	if (e->kind == 2) {
		for (unsigned d = 0; d < 256; d++) {
			int in = e->perms[d / 32] >> (d % 32) & 1;
			if (!eq && in && x->xdrv[d] != XDRV_NONE)
				return 1;
			if (eq && x->xdrv[d] != (in ? XDRV_ALL : XDRV_NONE))
				return 0;
		}
		return eq;
	}
	const uint32_t *blk = x->xbits + (size_t)e->driver * 8;
	for (unsigned w = 0; w < 8; w++) {
		if (!eq && (blk[w] & e->perms[w]))
			return 1;
		if (eq && blk[w] != e->perms[w])
			return 0;
	}
	if (!eq)
		return 0;
	for (unsigned d = 0; d < 256; d++)	/* and nothing outside the entry's driver */
		if (d != e->driver && x->xdrv[d] != XDRV_NONE)
			return 0;
	return 1;
}

/* A value list as a per-value table over 1..limit; *distinct counts the different values. */
static int value_set(struct query *x, const uint32_t *v, size_t n, uint32_t limit, uint8_t **set,
		     uint32_t *distinct)
{
	if (!(*set = sp_zalloc(x->a, (size_t)limit + 1, 0)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!v[i] || v[i] > limit)
			return -EINVAL;
		*distinct += !(*set)[v[i]];
		(*set)[v[i]] = 1;
	}
	return 0;
}

/* Per class: the mask of the listed permissions, how many of the names it has, its valid mask. */
static int perm_criterion(struct query *x)
{
	const struct sp_policy_query *q = x->q;
	if (!q->perms)
		return 0;
	size_t sz = ((size_t)x->nclasses + 1) * sizeof(uint32_t);
	x->perms = sp_zalloc(x->a, sz, 0);
	x->pfound = sp_zalloc(x->a, sz, 0);
	x->valid = sp_zalloc(x->a, sz, 0);
	if (!x->perms || !x->pfound || !x->valid)
		return -ENOMEM;
	for (uint32_t c = 1; c <= x->nclasses; c++)
		for (unsigned b = 0; b < 32; b++)
			if (sp_policy_perm_name(x->p, c, b))
				x->valid[c] |= 1u << b;
	for (size_t i = 0; i < q->nperms; i++) {
		const char *name = q->perms[i];
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(q->perms[j], name);
		if (seen)
			continue;
		x->npn++;
		x->px_ioctl |= !strcmp(name, "ioctl");
		x->px_nlmsg |= !strcmp(name, "nlmsg");
		for (uint32_t c = 1; c <= x->nclasses; c++) {
			unsigned b = sp_policy_perm_lookup(x->p, c, name);
			if (b) {
				x->perms[c] |= 1u << (b - 1);
				x->pfound[c]++;
			}
		}
	}
	return 0;
}

/* setools' permission criterion (-p, -ep, -Sp) */
static int perm_match(const struct query *x, uint16_t kind, const struct sp_avtab_entry *e,
		      uint32_t perms)
{
	const struct sp_policy_query *q = x->q;
	if (kind & SP_AVTAB_XPERMS) {	/* the rule's xperm type must be listed */
		if (q->perms_equal && x->npn > 1)
			return 0;
		return e->xperms && e->xperms->kind == 3 ? x->px_nlmsg : x->px_ioctl;
	}
	if (!(kind & SP_AVTAB_AV))
		return 0;
	uint32_t want = x->perms[e->tclass], have = perms & x->valid[e->tclass];
	int all_named = x->pfound[e->tclass] == x->npn;
	if (q->perms_subset)
		return all_named && (have & want) == want;
	if (q->perms_equal)
		return all_named && have == want;
	return (have & want) != 0;
}

/* setools' boolean criterion (-b, -eb): unconditional rules never match */
static int bool_match(const struct query *x, uint32_t cond)
{
	uint32_t bv[256];
	if (!cond)
		return 0;
	size_t nb = sp_policy_cond_bools(x->p, cond, bv, SP_ARRAY_SIZE(bv)), hits = 0;
	if (nb > SP_ARRAY_SIZE(bv))
		nb = SP_ARRAY_SIZE(bv);
	for (size_t i = 0; i < nb; i++)
		hits += x->bset[bv[i]];
	return x->q->bools_equal ? hits == x->nbq && nb == x->nbq : hits > 0;
}

/* The source, target and class criteria, shared by avtab rules and filename transitions. */
static int key_match(const struct query *x, uint32_t s, uint32_t t, uint32_t c)
{
	if (x->s && (x->smatch ? !x->smatch[s] : s != x->s))
		return 0;
	if (x->t && (x->tmatch ? !x->tmatch[t] : t != x->t))
		return 0;
	return !x->cls || x->cls[c];
}

static int rule_match(const struct query *x, const struct sp_avtab_entry *e)
{
	uint16_t kind = e->specified & (uint16_t)~SP_AVTAB_ENABLED;
	if (!(kind & x->q->kinds) || !key_match(x, e->source, e->target, e->tclass))
		return 0;
	uint32_t perms = kind == SP_AVTAB_AUDITDENY ? ~e->data : e->data;
	if (x->perms && !perm_match(x, kind, e, perms))
		return 0;
	if (x->xbits && (!(kind & SP_AVTAB_XPERMS) || !xperm_match(x, e->xperms)))
		return 0;
	if (x->d && (!(kind & SP_AVTAB_TYPE) || e->data > x->ntypes || !x->dmatch[e->data]))
		return 0;
	return !x->bset || bool_match(x, e->cond);
}

struct visit {
	const struct query *x;
	int (*fn)(void *ud, const struct sp_avtab_entry *rule, const struct sp_filename_trans *ft);
	void *ud;
};

static int visit_rule(void *ud, const struct sp_avtab_entry *e)
{
	const struct visit *v = ud;
	return rule_match(v->x, e) ? v->fn(v->ud, e, NULL) : 0;
}

/* Filename transitions: type_transition rules with a name; no permissions, no conditions. */
static int visit_filename_trans(const struct visit *v)
{
	const struct query *x = v->x;
	size_t n = sp_policy_filename_trans_count(x->p);
	for (size_t i = 0; i < n; i++) {
		const struct sp_filename_trans *ft = sp_policy_filename_trans(x->p, i);
		if (!key_match(x, ft->stype, ft->ttype, ft->tclass))
			continue;
		if (x->d && (ft->otype > x->ntypes || !x->dmatch[ft->otype]))
			continue;
		int rc = v->fn(v->ud, NULL, ft);
		if (rc)
			return rc;
	}
	return 0;
}

static void query_release(struct query *x)
{
	size_t nt = (size_t)x->ntypes + 1, nc = (size_t)x->nclasses + 1;
	sp_free(x->a, x->smatch, nt);
	sp_free(x->a, x->tmatch, nt);
	sp_free(x->a, x->dmatch, nt);
	sp_free(x->a, x->cls, nc);
	sp_free(x->a, x->perms, nc * sizeof(uint32_t));
	sp_free(x->a, x->pfound, nc * sizeof(uint32_t));
	sp_free(x->a, x->valid, nc * sizeof(uint32_t));
	sp_free(x->a, x->bset, (size_t)x->nbools + 1);
	sp_free(x->a, x->xbits, XBITS_WORDS * sizeof(uint32_t));
	sp_free(x->a, x->xdrv, 256);
}

SP_API int sp_policy_search(const struct sp_policy *p, const struct sp_policy_query *q,
			    int (*fn)(void *ud, const struct sp_avtab_entry *rule,
				      const struct sp_filename_trans *ft),
			    void *ud)
{
	if (!SP_OPTS_HAS(q, filename_trans) || !q->kinds || !fn)
		return -EINVAL;
	struct query x = { .p = p, .q = q, .a = p->core->alloc, .ntypes = p->core->ntypes,
			   .nclasses = p->core->nclasses, .nbools = p->core->nbools };
	struct sp_policy_query none = { 0 };	/* the fields an older caller's query lacks */
	const struct sp_policy_query *l = SP_OPTS_HAS(q, xperms_equal) ? q : &none;
	int rc = type_criterion(&x, q->source, l->sources, l->nsources, q->source_direct, &x.s,
				&x.smatch);
	if (!rc)
		rc = type_criterion(&x, q->target, l->targets, l->ntargets, q->target_direct, &x.t,
				    &x.tmatch);
	if (!rc)
		rc = type_criterion(&x, q->default_type, l->defaults, l->ndefaults, 0, &x.d,
				    &x.dmatch);
	if (!rc && l->xperms)
		rc = xperm_criterion(&x);
	uint32_t ncls = 0;
	if (!rc && q->classes)
		rc = value_set(&x, q->classes, q->nclasses, x.nclasses, &x.cls, &ncls);
	if (!rc && q->bools)
		rc = value_set(&x, q->bools, q->nbools, x.nbools, &x.bset, &x.nbq);
	if (!rc && !(rc = perm_criterion(&x))) {
		struct visit v = { &x, fn, ud };
		rc = sp_policy_avtab_foreach(p, 0, visit_rule, &v);
		if (!rc)
			rc = sp_policy_avtab_foreach(p, 1, visit_rule, &v);
		if (!rc && q->filename_trans && (q->kinds & SP_AVTAB_TRANSITION) && !q->perms &&
		    !q->bools && !x.xbits)
			rc = visit_filename_trans(&v);
	}
	query_release(&x);
	return rc;
}

/* ---- range transitions (setools MLSRuleQuery): source, target and class ---- */

/* The rule's range is dr's (low then high level, sp_policy_range_parse's form). */
static int range_equal(const struct sp_range_trans *rt, const uint32_t *dr)
{
	return policy_level_equal(rt->low, dr) && policy_level_equal(rt->high, dr + 2 + dr[1]);
}

SP_API int sp_policy_range_search(const struct sp_policy *p, const struct sp_policy_query *q,
				  int (*fn)(void *ud, const struct sp_range_trans *rt), void *ud)
{
	if (!SP_OPTS_HAS(q, xperms_equal) || !fn)
		return -EINVAL;
	const struct sp_policy_query cq = { .sz = sizeof(cq), .source_direct = q->source_direct,
					    .target_direct = q->target_direct };
	struct query x = { .p = p, .q = &cq, .a = p->core->alloc, .ntypes = p->core->ntypes,
			   .nclasses = p->core->nclasses, .nbools = p->core->nbools };
	uint32_t ncls = 0;
	int rc = type_criterion(&x, q->source, q->sources, q->nsources, q->source_direct, &x.s,
				&x.smatch);
	if (!rc)
		rc = type_criterion(&x, q->target, q->targets, q->ntargets, q->target_direct, &x.t,
				    &x.tmatch);
	if (!rc && q->classes)
		rc = value_set(&x, q->classes, q->nclasses, x.nclasses, &x.cls, &ncls);
	const struct policy_core *k = p->core;
	const uint32_t *dr = SP_OPTS_HAS(q, default_range) ? q->default_range : NULL;
	for (uint32_t i = 0; !rc && i < k->nrangetr; i++)
		if (key_match(&x, k->rangetr[i].stype, k->rangetr[i].ttype, k->rangetr[i].tclass) &&
		    (!dr || range_equal(&k->rangetr[i], dr)))
			rc = fn(ud, &k->rangetr[i]);
	query_release(&x);
	return rc;
}

/* ---- role rules (setools RBACRuleQuery): roles are their own members ---- */

/* Role r meets a role criterion: the list when there is one, else the value (0: none). */
static int role_in(uint32_t v, const uint32_t *list, size_t n, uint32_t r)
{
	if (!list)
		return !v || r == v;
	for (size_t i = 0; i < n; i++)
		if (list[i] == r)
			return 1;
	return 0;
}

static int role_allow_match(const struct query *x, const struct sp_policy_role_query *q,
			    const struct sp_role_allow *ra)
{
	int troles = q->target_role || q->target_roles;
	if (!role_in(q->source, q->sources, q->nsources, ra->role) ||
	    !role_in(q->target_role, q->target_roles, q->ntarget_roles, ra->new_role))
		return 0;
	if (x->t && !troles)	/* a type target only: role_transition's */
		return 0;
	return !x->cls && !q->default_role && !q->defaults;	/* no class or default role */
}

static int role_trans_match(const struct query *x, const struct sp_policy_role_query *q,
			    const struct sp_role_trans *rt)
{
	int ttypes = q->target_type || q->target_types;
	if (!role_in(q->source, q->sources, q->nsources, rt->role) ||
	    !role_in(q->default_role, q->defaults, q->ndefaults, rt->new_role))
		return 0;
	if ((q->target_role || q->target_roles) && !ttypes)	/* a role target only */
		return 0;
	return key_match(x, 0, rt->type, rt->tclass);	/* x->s is 0: no source type */
}

static int visit_roles(const struct query *x, const struct sp_policy_role_query *q,
		       int (*fn)(void *ud, const struct sp_role_allow *ra,
				 const struct sp_role_trans *rt),
		       void *ud)
{
	const struct policy_core *k = x->p->core;
	int rc = 0;
	for (uint32_t i = 0; !rc && (q->kinds & SP_ROLE_ALLOW) && i < k->nrallow; i++)
		if (role_allow_match(x, q, &k->rallow[i]))
			rc = fn(ud, &k->rallow[i], NULL);
	for (uint32_t i = 0; !rc && (q->kinds & SP_ROLE_TRANS) && i < k->nrtrans; i++)
		if (role_trans_match(x, q, &k->rtrans[i]))
			rc = fn(ud, NULL, &k->rtrans[i]);
	return rc;
}

/* Every value of a role list (may be NULL) is a role. */
static int roles_valid(const uint32_t *list, size_t n, uint32_t nroles)
{
	for (size_t i = 0; list && i < n; i++)
		if (!list[i] || list[i] > nroles)
			return 0;
	return 1;
}

SP_API int sp_policy_role_search(const struct sp_policy *p, const struct sp_policy_role_query *q,
				 int (*fn)(void *ud, const struct sp_role_allow *ra,
					   const struct sp_role_trans *rt),
				 void *ud)
{
	if (!SP_OPTS_HAS(q, default_role) || !q->kinds || !fn)
		return -EINVAL;
	uint32_t nroles = p->core->nroles, ncls = 0;
	if (q->source > nroles || q->target_role > nroles || q->default_role > nroles ||
	    !roles_valid(q->sources, q->nsources, nroles) ||
	    !roles_valid(q->target_roles, q->ntarget_roles, nroles) ||
	    !roles_valid(q->defaults, q->ndefaults, nroles))
		return -EINVAL;
	/* the type and class criteria are the TE search's, on a query with only target_direct */
	const struct sp_policy_query tq = { .sz = sizeof(tq), .target_direct = q->target_direct };
	struct query x = { .p = p, .q = &tq, .a = p->core->alloc, .ntypes = p->core->ntypes,
			   .nclasses = p->core->nclasses, .nbools = p->core->nbools };
	int rc = type_criterion(&x, q->target_type, q->target_types, q->ntarget_types,
				q->target_direct, &x.t, &x.tmatch);
	if (!rc && q->classes)
		rc = value_set(&x, q->classes, q->nclasses, x.nclasses, &x.cls, &ncls);
	if (!rc)
		rc = visit_roles(&x, q, fn, ud);
	query_release(&x);
	return rc;
}
