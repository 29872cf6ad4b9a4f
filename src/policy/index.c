/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * index.c - what turns a read core (read.c) into a decision engine's core, and its release:
 * name indexes (classes and booleans sorted, types hashed), the reverse of the attribute CSR
 * rows, the decision filters, filename transitions sorted for binary search, the triple Bloom
 * filter, and the te_avtab in the chosen layout (chained: with the core's own node cache, which
 * the conditional tables of every policy sharing the core use too).  policy_core_put frees what
 * this file built, then hands the rest to read.c.
 *
 * Decision filters: src rows keep only values that occur as the source of some AV rule (either
 * table, any boolean state), tgt rows only values that occur as a target, and a blocked Bloom
 * filter over every AV triple of both tables (any boolean state) skips pairs without rules
 * before touching a table.  The kernel's double loop visits |row(s)| x |row(t)| pairs and probes
 * both tables for each; the filtered loop probes only pairs that can match, so it returns the
 * same decision (tested against the literal loop, sp_policy_compute_av_ref, and libsepol).
 *
 * Invariants after policy_core_finish: every row of rev/src/tgt is sorted, src and tgt rows are
 * sub-rows of the attribute rows, the Bloom filter has every AV triple of te and cond rules, and
 * k->te is gone (te_tab is the only copy of the unconditional rules).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/slab.h"
#include "base/assert.h"
#include "policy/policy_int.h"

static int ix_cmp(const void *a, const void *b)
{
	const struct policy_name_ix *x = a, *y = b;
	int r = strcmp(x->name, y->name);
	return r ? r : (x->value > y->value) - (x->value < y->value);
}

/* names[1..n] (NULL entries skipped) sorted by name; the array ends with a NULL name. */
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

/* FNV-1a over the name's bytes */
static inline uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/*
 * The type names' hash index: open addressing with linear probing at a load of at most 1/2, so
 * a lookup ends at an empty slot after a few probes; a name given twice is found at its first
 * entry.  Built in one pass over type_ix (a sorted index would cost a sort of every name).
 */
static int build_type_hash(struct policy_core *k)
{
	uint32_t size = 16;
	while (size < 2 * (uint64_t)k->ntype_ix)
		size *= 2;
	k->type_hash = sp_zalloc(k->alloc, (size_t)size * sizeof(uint32_t), 0);
	if (!k->type_hash)
		return -ENOMEM;
	k->type_hash_mask = size - 1;
	for (uint32_t i = 0; i < k->ntype_ix; i++) {
		uint32_t h = name_hash(k->type_ix[i].name) & k->type_hash_mask;
		while (k->type_hash[h])
			h = (h + 1) & k->type_hash_mask;
		k->type_hash[h] = i + 1;
	}
	return 0;
}

uint32_t policy_type_find(const struct policy_core *k, const char *name)
{
	if (!k->type_hash)
		return 0;
	for (uint32_t h = name_hash(name) & k->type_hash_mask, at; (at = k->type_hash[h]);
	     h = (h + 1) & k->type_hash_mask)
		if (!strcmp(k->type_ix[at - 1].name, name))
			return k->type_ix[at - 1].value;
	return 0;
}

static int build_name_ixs(struct policy_core *k)
{
	const char **cn = sp_zalloc(k->alloc, ((size_t)k->nclasses + 1) * sizeof(char *), 0);
	if (!cn)
		return -ENOMEM;
	for (uint32_t i = 1; i <= k->nclasses; i++)
		cn[i] = k->cls[i].name;
	int rc = build_ix(k->alloc, cn, k->nclasses, &k->class_ix);
	sp_free(k->alloc, cn, ((size_t)k->nclasses + 1) * sizeof(char *));
	if (rc || (rc = build_ix(k->alloc, k->bool_name, k->nbools, &k->bool_ix)))
		return rc;
	return build_type_hash(k);
}

/*
 * The attribute rows restricted to values v with src[v] (src_off/src_v) and to those with
 * tgt[v] (tgt_off/tgt_v), rows 1..nt sorted like the rows: one pass counts both, one fills both.
 */
static int csr_filters(struct policy_core *k, const uint8_t *src, const uint8_t *tgt)
{
	uint32_t nt = k->ntypes, ns = 0, ng = 0;
	const uint32_t *av = k->attr_v, *ao = k->attr_off;
	for (uint32_t j = ao[1]; j < ao[nt + 1]; j++) {
		ns += src[av[j]];
		ng += tgt[av[j]];
	}
	uint32_t *so = sp_zalloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
	uint32_t *go = sp_zalloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
	uint32_t *sv = sp_alloc(k->alloc, ((size_t)ns + 1) * sizeof(uint32_t), 0);
	uint32_t *gv = sp_alloc(k->alloc, ((size_t)ng + 1) * sizeof(uint32_t), 0);
	if (!so || !go || !sv || !gv) {
		sp_free(k->alloc, so, ((size_t)nt + 2) * sizeof(uint32_t));
		sp_free(k->alloc, go, ((size_t)nt + 2) * sizeof(uint32_t));
		sp_free(k->alloc, sv, ((size_t)ns + 1) * sizeof(uint32_t));
		sp_free(k->alloc, gv, ((size_t)ng + 1) * sizeof(uint32_t));
		return -ENOMEM;
	}
	ns = ng = 0;
	for (uint32_t i = 1; i <= nt; i++) {
		so[i] = ns;
		go[i] = ng;
		for (uint32_t j = ao[i]; j < ao[i + 1]; j++) {
			uint32_t a = av[j];
			sv[ns] = a;
			ns += src[a];
			gv[ng] = a;
			ng += tgt[a];
		}
	}
	so[nt + 1] = ns;
	go[nt + 1] = ng;
	k->src_off = so, k->src_v = sv;
	k->tgt_off = go, k->tgt_v = gv;
	return 0;
}

/* The reverse map: rev row a = the types whose attribute row holds a (ascending). */
static int build_rev(struct policy_core *k)
{
	uint32_t nt = k->ntypes, tot = k->attr_off[nt + 1];
	k->rev_off = sp_zalloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
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
	uint32_t *fill = sp_alloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
	if (!fill)
		return -ENOMEM;
	memcpy(fill, k->rev_off, ((size_t)nt + 2) * sizeof(uint32_t));
	for (uint32_t i = 1; i <= nt; i++)
		for (uint32_t j = k->attr_off[i]; j < k->attr_off[i + 1]; j++)
			k->rev_v[fill[k->attr_v[j]]++] = i;
	sp_free(k->alloc, fill, ((size_t)nt + 2) * sizeof(uint32_t));
	SP_ASSERT_INTERNAL(k->rev_off[nt + 1] == tot);
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

/* ft_sorted: indices of the filename transitions by (stype, ttype, tclass, name). */
static int sort_ft(struct policy_core *k)
{
	k->ft_sorted = sp_alloc(k->alloc, ((size_t)k->nft + 1) * sizeof(uint32_t), 0);
	if (!k->ft_sorted)
		return -ENOMEM;
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
	return 0;
}

/* ---- the decision filters and the triple Bloom filter (probe: policy_bloom_may) ---- */

/* Every AV rule of r[0..n): its source and target marked, its triple added to the filter. */
static void scan_av(const struct policy_rule *r, uint32_t n, uint8_t *src, uint8_t *tgt,
		    uint64_t *bloom, uint32_t shift)
{
	for (uint32_t i = 0; i < n; i++)
		if (r[i].spec & SP_AVTAB_AV) {
			uint64_t h = policy_bloom_key_hash(policy_rule_key(&r[i]));
			src[r[i].s] = tgt[r[i].t] = 1;
			bloom[h >> shift] |= policy_bloom_bits(h);
		}
}

/*
 * The Bloom filter over every AV triple of te and cond rules, and the decision filters: rows
 * restricted to values that are the source (target) of an AV rule.  The filter has at least 16
 * bits per rule (AV or not: one pass over the rules fills it).
 */
static int build_filters(struct policy_core *k)
{
	uint64_t n = (uint64_t)k->nte + k->ncr;
	uint32_t lg = 6, nt = k->ntypes;	/* >= 64 words */
	while ((1ull << lg) < n / 4 && lg < 30)
		lg++;
	k->bloom_words = 1u << lg;
	k->bloom_shift = 64 - lg;
	k->bloom = sp_zalloc(k->alloc, (size_t)k->bloom_words * 8, 64);
	uint8_t *src = sp_zalloc(k->alloc, (size_t)nt + 1, 0), *tgt = sp_zalloc(k->alloc, (size_t)nt + 1, 0);
	int rc = -ENOMEM;
	if (k->bloom && src && tgt) {
		scan_av(k->te, k->nte, src, tgt, k->bloom, k->bloom_shift);
		scan_av(k->cr, k->ncr, src, tgt, k->bloom, k->bloom_shift);
		rc = csr_filters(k, src, tgt);
	}
	sp_free(k->alloc, src, (size_t)nt + 1);
	sp_free(k->alloc, tgt, (size_t)nt + 1);
	return rc;
}

/* Destroy a node cache none of whose nodes is allocated. */
static void drop_nodes(struct sp_slab_cache *nodes)
{
	if (nodes) {
		int busy = sp_slab_cache_destroy(nodes);
		SP_ASSERT(!busy);
		(void)busy;
	}
}

/*
 * Finish a core from policy_core_read for decisions in `layout`.  Returns 0, -ENOMEM, or -EEXIST
 * (two te rules with the same key and kind; the caller reports it at the avtab section).  On
 * failure the core keeps what was built; policy_core_put frees it.
 */
int policy_core_finish(struct policy_core *k, enum sp_avtab_layout layout)
{
	int rc;
	k->layout = layout;
	SP_ASSERT_INTERNAL(k->attr_off && k->attr_off[k->ntypes + 1] >= k->ntypes);	/* self rows */
	if ((rc = build_name_ixs(k)) || (rc = build_rev(k)) || (rc = build_filters(k)) ||
	    (rc = sort_ft(k)))
		return rc;
	struct sp_slab_cache *nodes = NULL;	/* chained: kept in te_tab (policy_core_nodes) */
	if (layout == SP_AVTAB_CHAINED &&
	    sp_slab_cache_create("avtab_node", sizeof(struct chained_node), 0, 0, NULL, &nodes))
		return -ENOMEM;
	struct policy_rules rs = { .r = k->te, .n = k->nte, .hint = k->nte, .types = k->ntypes,
				   .classes = k->nclasses };
	rc = policy_avtab_build(&k->te_tab, k->layout, POLICY_AVTAB_TE, &rs, k->xperms, nodes,
				k->alloc);
	if (rc) {	/* the failed build freed its nodes */
		drop_nodes(nodes);
		return rc;
	}
	/* the raw te list is no longer needed: the table is the only copy */
	sp_free(k->alloc, k->te, (size_t)k->te_cap * sizeof(*k->te));
	k->te = NULL;
	k->te_cap = 0;
	return 0;
}

#define FREE_N(p, n) sp_free(k->alloc, (p), (size_t)(n) * sizeof(*(p)))

/* Drop one reference; the last frees what policy_core_finish built, then the read core. */
void policy_core_put(struct policy_core *k)
{
	if (!k || atomic_fetch_sub(&k->refs, 1) != 1)
		return;
	uint32_t nt = k->ntypes;
	struct sp_slab_cache *nodes = policy_core_nodes(k);
	policy_avtab_destroy(&k->te_tab);
	FREE_N(k->type_hash, (size_t)k->type_hash_mask + 1);
	FREE_N(k->class_ix, k->nclasses + 1);
	FREE_N(k->bool_ix, k->nbools + 1);
	FREE_N(k->ft_sorted, k->nft + 1);
	if (k->rev_off) {
		FREE_N(k->rev_v, (size_t)k->rev_off[nt + 1] + 1);
		FREE_N(k->rev_off, nt + 2);
	}
	if (k->src_off) {
		FREE_N(k->src_v, (size_t)k->src_off[nt + 1] + 1);
		FREE_N(k->src_off, nt + 2);
	}
	if (k->tgt_off) {
		FREE_N(k->tgt_v, (size_t)k->tgt_off[nt + 1] + 1);
		FREE_N(k->tgt_off, nt + 2);
	}
	sp_free(k->alloc, k->bloom, (size_t)k->bloom_words * 8);
	drop_nodes(nodes);	/* every table of the core is gone, so every node is free */
	policy_core_free_read(k);
}
