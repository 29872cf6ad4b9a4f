/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decide.c - the decisions over a finished core and a conditional state: the TE part of the
 * kernel's context_struct_compute_av (fast: the filtered rows and the Bloom filter of index.c;
 * reference: the kernel's literal double loop), extended-permission decisions, and new-object
 * types (security_compute_sid's TE part, with filename transitions).
 *
 * Decisions only read: any number may run concurrently on one policy.  The fast and the
 * reference AV decision agree on every query (tested), because the filters drop only pairs
 * that have no AV entry in either table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "policy/policy_int.h"

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
	const struct sp_avtab *ct = k->layout == SP_AVTAB_FLAT ? &p->cs.eff : &p->cs.tab;
	for (; sv < se; sv++)
		for (const uint32_t *x = tv; x < te; x++) {
			if (!policy_bloom_may(k, *sv, *x, c))
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
static int xperms_table(const struct sp_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
			struct sp_xperms_decision *xd)
{
	const int cond = t->kind == POLICY_AVTAB_COND;
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
			int rc = xperms_table(&k->te_tab, a, b, (uint16_t)c, xd);
			if (!rc)
				rc = xperms_table(&p->cs.tab, a, b, (uint16_t)c, xd);
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
