/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * avtab.c - the access vector table in three layouts behind one internal API.
 *
 *  chained  the kernel's design: nslot chain heads (nslot = 2 for <= 3 rules, else the largest
 *           power of two <= nrules / 2, at most 2^16), 24-byte nodes from a process-wide
 *           sp_slab_cache "avtab_node" (the kernel's avtab_node_cachep), chains
 *           sorted by (source, target, class) with same-triple nodes in insertion order; the
 *           conditional table is sized with the te_avtab count as hint, as the kernel does.
 *  array    the 2023 array patches: the same hash and chains, but every node lives in one array
 *           of 16-byte nodes linked by u32 indices; the conditional table is sized by its own
 *           count.
 *  flat     secpath's: one array of 64-byte buckets (64-byte aligned), keys and data in the same
 *           line, linear probing over buckets with each home's maximum displacement in its
 *           bucket.  Two forms:
 *           compact (every real policy): the triple packed into one u32 (mixed radix from the
 *             table's largest values), seven slots per line, home = fastrange of a 64-bit
 *             multiply (no division), two SSE2 compares decide the match, and a 32-bit filter
 *             per bucket of keys placed past it, so hits and misses read the home line only
 *             unless the key's filter bit is set.  Home-first placement (an entry at home is
 *             never moved) at 0.63 load: 1.49 MB for debian-default, 3.7 % of entries away from
 *             home (Robin Hood at 0.65: 6.0 %), ~1.02 lines per hit and ~0.98 per miss
 *             (callgrind, D1 48k12), the hit path inline (flat.h).
 *           wide (fallback when the ranges do not fit 32 bits or s == 0): six slots of three
 *             u16 keys, one SSE2 compare of the sources, Robin Hood placement; 0.75 load; a
 *             lookup scans home..home+disp.
 *           A triple's entries (allow, auditallow, dontaudit, type rules, xperms) are separate
 *           slots found by the same scan.
 *
 * Invariants: te tables hold no two entries with the same triple and kind unless the kind is an
 * xperm kind (build returns -EEXIST); conditional tables allow duplicates.  Lookups never
 * allocate and touch only the table.  Conditional tables keep each entry's enabled bit (chained
 * and array: in `spec`, like the kernel; flat: a per-bucket byte beside the bucket array).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "secpath/slab.h"
#include "policy/flat.h"

/* both flat forms share one bucket array (allocation, accounting, 64-byte alignment) */
_Static_assert(sizeof(struct flatc_bucket) == 64 && sizeof(struct flat_bucket) == 64,
	       "flat buckets are one cache line");

#define FLATC_PCT 63	/* compact load, percent: 1.49 MB for debian-default's 102,340 rules */

/* ---- the node cache (the kernel's avtab_node_cachep: one process-wide slab cache) ---- */

static struct sp_slab_cache *avtab_node_cachep;
static pthread_once_t avtab_cache_once = PTHREAD_ONCE_INIT;

static void avtab_cache_init(void)
{
	if (sp_slab_cache_create("avtab_node", sizeof(struct chained_node), 0, 0, NULL,
				 &avtab_node_cachep))
		avtab_node_cachep = NULL;
}

static size_t avtab_node_stride(void)
{
	struct sp_slab_stats st;
	sp_slab_cache_stats(avtab_node_cachep, &st);
	return st.stride;
}

/* ---- the kernel's hash and slot rule ---- */

static inline uint32_t rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

/* MurmurHash3 x86_32 block mixing over class, target, source, then its finalizer (avtab_hash). */
uint32_t policy_avtab_hash(uint16_t s, uint16_t t, uint16_t c)
{
	uint32_t h = 0, in[3] = { c, t, s };
	for (int i = 0; i < 3; i++) {
		uint32_t v = in[i] * 0xcc9e2d51u;
		v = rotl32(v, 15) * 0x1b873593u;
		h ^= v;
		h = rotl32(h, 13) * 5 + 0xe6546b64u;
	}
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t kernel_nslot(uint32_t nrules)
{
	if (!nrules)
		return 0;
	if (nrules <= 3)
		return 2;
	uint32_t n = 1u << (31 - __builtin_clz(nrules / 2));
	return n > (1u << 16) ? (1u << 16) : n;
}

/* (s,t,c) order of the kernel's sorted chains */
static inline int key_cmp(uint16_t s1, uint16_t t1, uint16_t c1, uint16_t s2, uint16_t t2,
			  uint16_t c2)
{
	if (s1 != s2)
		return s1 < s2 ? -1 : 1;
	if (t1 != t2)
		return t1 < t2 ? -1 : 1;
	if (c1 != c2)
		return c1 < c2 ? -1 : 1;
	return 0;
}

static inline void fold_one(uint16_t spec, uint32_t data, uint32_t av[3])
{
	if (spec & SP_AVTAB_ALLOWED)
		av[0] |= data;
	else if (spec & SP_AVTAB_AUDITALLOW)
		av[1] |= data;
	else if (spec & SP_AVTAB_AUDITDENY)
		av[2] &= data;
}

/* ---- chained ---- */

static int chained_build(struct policy_avtab *t, const struct policy_rule *r, uint32_t n,
			 uint32_t hint, const uint8_t *en)
{
	t->nslot = kernel_nslot(t->kind == POLICY_AVTAB_COND ? hint : n);
	if (!t->nslot)
		return 0;
	t->mask = t->nslot - 1;
	pthread_once(&avtab_cache_once, avtab_cache_init);
	t->u.ch.slots = sp_zalloc(t->alloc, (size_t)t->nslot * sizeof(void *), 0);
	if (!t->u.ch.slots || !avtab_node_cachep)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct policy_rule *x = &r[i];
		struct chained_node **pp = &t->u.ch.slots[policy_avtab_hash(x->s, x->t, x->c) & t->mask];
		for (struct chained_node *cur; (cur = *pp); pp = &cur->next) {
			int cmp = key_cmp(x->s, x->t, x->c, cur->s, cur->t, cur->c);
			if (!cmp && (x->spec & cur->spec)) {
				if (t->kind != POLICY_AVTAB_TE)
					break;	/* non-unique insert: before the first match */
				if (!(x->spec & SP_AVTAB_XPERMS))
					return -EEXIST;
			}
			if (cmp < 0)
				break;
		}
		struct chained_node *nn = sp_slab_cache_alloc(avtab_node_cachep);
		if (!nn)
			return -ENOMEM;
		nn->s = x->s, nn->t = x->t, nn->c = x->c;
		nn->spec = x->spec | (en && en[i] ? SP_AVTAB_ENABLED : 0);
		if (x->xp != POLICY_NO_XP)
			nn->u.xp = &t->xperms[x->xp];
		else
			nn->u.data = x->data;
		nn->next = *pp;
		*pp = nn;
	}
	t->bytes = (size_t)t->nslot * sizeof(void *) + (size_t)n * avtab_node_stride();
	return 0;
}

static inline const struct chained_node *chained_first(const struct policy_avtab *t, uint16_t s,
						       uint16_t tt, uint16_t c, uint16_t mask)
{
	if (unlikely(!t->nslot))
		return NULL;
	for (const struct chained_node *cur = t->u.ch.slots[policy_avtab_hash(s, tt, c) & t->mask];
	     cur; cur = cur->next) {
		int cmp = key_cmp(s, tt, c, cur->s, cur->t, cur->c);
		if (!cmp && (cur->spec & mask))
			return cur;
		if (cmp < 0)
			break;
	}
	return NULL;
}

static inline const struct chained_node *chained_next(const struct chained_node *n,
						      uint16_t mask)
{
	for (const struct chained_node *cur = n->next; cur; cur = cur->next) {
		int cmp = key_cmp(n->s, n->t, n->c, cur->s, cur->t, cur->c);
		if (!cmp && (cur->spec & mask))
			return cur;
		if (cmp < 0)
			break;
	}
	return NULL;
}

static void chained_entry(const struct policy_avtab *t, const struct chained_node *n,
			  struct sp_avtab_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->source = n->s, e->target = n->t, e->tclass = n->c, e->specified = n->spec;
	if (n->spec & SP_AVTAB_XPERMS) {
		e->xperms = n->u.xp;
		e->data = (uint32_t)(n->u.xp - t->xperms);
	} else {
		e->data = n->u.data;
	}
}

/* ---- array ---- */

static int array_build(struct policy_avtab *t, const struct policy_rule *r, uint32_t n,
		       const uint8_t *en)
{
	t->nslot = kernel_nslot(n);
	if (!t->nslot)
		return 0;
	t->mask = t->nslot - 1;
	t->u.ar.heads = sp_alloc(t->alloc, (size_t)t->nslot * sizeof(uint32_t), 0);
	t->u.ar.nodes = sp_alloc(t->alloc, (size_t)n * sizeof(struct array_node), 64);
	if (!t->u.ar.heads || !t->u.ar.nodes)
		return -ENOMEM;
	memset(t->u.ar.heads, 0xff, (size_t)t->nslot * sizeof(uint32_t));
	struct array_node *nodes = t->u.ar.nodes;
	for (uint32_t i = 0; i < n; i++) {
		const struct policy_rule *x = &r[i];
		uint32_t *pp = &t->u.ar.heads[policy_avtab_hash(x->s, x->t, x->c) & t->mask];
		for (uint32_t cur; (cur = *pp) != UINT32_MAX; pp = &nodes[cur].next) {
			const struct array_node *cn = &nodes[cur];
			int cmp = key_cmp(x->s, x->t, x->c, cn->s, cn->t, cn->c);
			if (!cmp && (x->spec & cn->spec)) {
				if (t->kind != POLICY_AVTAB_TE)
					break;
				if (!(x->spec & SP_AVTAB_XPERMS))
					return -EEXIST;
			}
			if (cmp < 0)
				break;
		}
		struct array_node *nn = &nodes[i];
		nn->s = x->s, nn->t = x->t, nn->c = x->c;
		nn->spec = x->spec | (en && en[i] ? SP_AVTAB_ENABLED : 0);
		nn->data = x->data;
		nn->next = *pp;
		*pp = i;
	}
	t->bytes = (size_t)t->nslot * sizeof(uint32_t) + (size_t)n * sizeof(struct array_node);
	return 0;
}

static inline uint32_t array_first(const struct policy_avtab *t, uint16_t s, uint16_t tt,
				   uint16_t c, uint16_t mask)
{
	if (unlikely(!t->nslot))
		return UINT32_MAX;
	const struct array_node *nodes = t->u.ar.nodes;
	for (uint32_t cur = t->u.ar.heads[policy_avtab_hash(s, tt, c) & t->mask];
	     cur != UINT32_MAX; cur = nodes[cur].next) {
		int cmp = key_cmp(s, tt, c, nodes[cur].s, nodes[cur].t, nodes[cur].c);
		if (!cmp && (nodes[cur].spec & mask))
			return cur;
		if (cmp < 0)
			break;
	}
	return UINT32_MAX;
}

static inline uint32_t array_next(const struct policy_avtab *t, uint32_t i, uint16_t mask)
{
	const struct array_node *nodes = t->u.ar.nodes, *n = &nodes[i];
	for (uint32_t cur = n->next; cur != UINT32_MAX; cur = nodes[cur].next) {
		int cmp = key_cmp(n->s, n->t, n->c, nodes[cur].s, nodes[cur].t, nodes[cur].c);
		if (!cmp && (nodes[cur].spec & mask))
			return cur;
		if (cmp < 0)
			break;
	}
	return UINT32_MAX;
}

static void array_entry(const struct policy_avtab *t, uint32_t i, struct sp_avtab_entry *e)
{
	const struct array_node *n = &t->u.ar.nodes[i];
	memset(e, 0, sizeof(*e));
	e->source = n->s, e->target = n->t, e->tclass = n->c, e->specified = n->spec;
	e->data = n->data;
	if (n->spec & SP_AVTAB_XPERMS)
		e->xperms = &t->xperms[n->data];
}

/* ---- flat ---- */

const uint16_t policy_flat_code_spec[16] = {
	0, SP_AVTAB_ALLOWED, SP_AVTAB_AUDITALLOW, SP_AVTAB_AUDITDENY, SP_AVTAB_TRANSITION,
	SP_AVTAB_MEMBER, SP_AVTAB_CHANGE, SP_AVTAB_XPERMS_ALLOWED, SP_AVTAB_XPERMS_AUDITALLOW,
	SP_AVTAB_XPERMS_DONTAUDIT,
};

static inline unsigned spec_code(uint16_t spec)
{
	for (unsigned i = 1; i < 10; i++)
		if (policy_flat_code_spec[i] == spec)
			return i;
	return 0;
}

static inline uint32_t flat_home(const struct policy_avtab *t, uint16_t s, uint16_t tt,
				 uint16_t c)
{
	uint64_t k = (uint64_t)s | (uint64_t)tt << 16 | (uint64_t)c << 32;
	k *= 0xff51afd7ed558ccdull;	/* two multiply-xorshift rounds (murmur3 fmix64 style) */
	k ^= k >> 32;
	k *= 0xc4ceb9fe1a85ec53ull;
	uint32_t h = (uint32_t)(k >> 32);
	return (uint32_t)(((uint64_t)h * t->nslot) >> 32);
}

static inline unsigned flat_kind(uint32_t meta, unsigned i)
{
	return (meta >> (4 + 4 * i)) & 15;
}

/*
 * Lanes of bucket bk whose key is (s, t, c): bit j set for slot j.  SSE2: one 16-byte load of
 * the six source fields (the load runs into t[], masked off), one compare, one movemask (two
 * bits per lane, the even one kept); t and c are then checked only on lanes whose source
 * matched, which is rare for a miss.  The scalar loop is the portable equivalent.
 */
static inline unsigned flat_match(const struct flat_bucket *bk, uint16_t s, uint16_t t, uint16_t c)
{
	unsigned cnt = bk->meta & 7, bits = 0;
#if defined(__SSE2__)
	unsigned m = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi16(_mm_loadu_si128((const __m128i *)(const void *)bk->s),
				_mm_set1_epi16((short)s)));
	m &= 0x5555u & ((1u << (2 * cnt)) - 1);
	for (; m; m &= m - 1) {
		unsigned j = (unsigned)__builtin_ctz(m) >> 1;
		bits |= (unsigned)(bk->t[j] == t && bk->c[j] == c) << j;
	}
#else
	for (unsigned j = 0; j < cnt; j++)
		bits |= (unsigned)(bk->s[j] == s && bk->t[j] == t && bk->c[j] == c) << j;
#endif
	return bits;
}

static inline unsigned flat_disp(uint32_t meta)
{
	return meta >> FLAT_DISP_SHIFT;
}

/*
 * Probe-loop step: after scanning bucket *b at displacement d from the home, advance and say
 * whether to go on.  dmax < FLAT_DISP_MAX bounds the scan exactly; dmax == FLAT_DISP_MAX means
 * "at least that far": a home's entries all lie between it and the first non-full bucket, so
 * the scan then runs to that bucket (duplicate-heavy or hostile inputs stay correct).
 */
static inline int flat_more(const struct policy_avtab *t, uint32_t *b, unsigned d, unsigned dmax)
{
	const struct flat_bucket *bk = &t->u.fl.b[*b];
	if (d >= dmax && (dmax < FLAT_DISP_MAX || (bk->meta & 7) < FLAT_SLOTS))
		return 0;
	if (d >= t->nslot)
		return 0;
	*b = *b + 1 == t->nslot ? 0 : *b + 1;
	return 1;
}

static inline uint32_t flat_dist(const struct policy_avtab *t, uint32_t home, uint32_t b)
{
	return b >= home ? b - home : b + t->nslot - home;
}

static inline void flat_note_disp(struct policy_avtab *t, uint32_t home, unsigned d)
{
	struct flat_bucket *hb = &t->u.fl.b[home];
	if (d > FLAT_DISP_MAX)
		d = FLAT_DISP_MAX;
	if (d > flat_disp(hb->meta))
		hb->meta = (hb->meta & ~(15u << FLAT_DISP_SHIFT)) | (uint32_t)d << FLAT_DISP_SHIFT;
}

struct flat_ent {
	uint16_t s, t, c;
	unsigned code, en;
	uint32_t data;
};

/* A duplicate key met while merging tables: allow/auditallow masks are OR'ed, the inverted
 * auditdeny mask AND'ed, a type datum replaced. */
static void merge_datum(uint32_t *d, uint16_t spec, uint32_t data)
{
	if (spec & (SP_AVTAB_ALLOWED | SP_AVTAB_AUDITALLOW))
		*d |= data;
	else if (spec & SP_AVTAB_AUDITDENY)
		*d &= data;
	else
		*d = data;
}

/*
 * Robin Hood insertion over buckets: a full bucket gives its slot to the newcomer when the
 * newcomer is further from home than the slot's closest-to-home entry, which then moves on.
 * Displacements stay short at high load; each home's `disp` is the max over its entries (an
 * entry only ever moves away from home, so the max only grows; it saturates at FLAT_DISP_MAX).
 */
static int flat_place(struct policy_avtab *t, struct flat_ent cur)
{
	uint32_t home = flat_home(t, cur.s, cur.t, cur.c), b = home;
	unsigned d = 0;
	for (;;) {
		if (d > t->nslot)
			return -ENOSPC;	/* cannot happen: the load stays below 1 */
		struct flat_bucket *bk = &t->u.fl.b[b];
		unsigned cnt = bk->meta & 7;
		if (cnt < FLAT_SLOTS) {
			bk->s[cnt] = cur.s, bk->t[cnt] = cur.t, bk->c[cnt] = cur.c;
			bk->data[cnt] = cur.data;
			bk->meta = (bk->meta & ~7u) | (cnt + 1) | (uint32_t)cur.code << (4 + 4 * cnt);
			if (t->u.fl.enabled && cur.en)
				t->u.fl.enabled[b] |= (uint8_t)(1u << cnt);
			flat_note_disp(t, home, d);
			return 0;
		}
		unsigned jmin = 0, dmin = ~0u;
		for (unsigned j = 0; j < FLAT_SLOTS; j++) {
			unsigned dj = flat_dist(t, flat_home(t, bk->s[j], bk->t[j], bk->c[j]), b);
			if (dj < dmin)
				dmin = dj, jmin = j;
		}
		if (dmin < d) {
			struct flat_ent out = { bk->s[jmin], bk->t[jmin], bk->c[jmin],
						flat_kind(bk->meta, jmin), 0, bk->data[jmin] };
			if (t->u.fl.enabled)
				out.en = t->u.fl.enabled[b] >> jmin & 1;
			bk->s[jmin] = cur.s, bk->t[jmin] = cur.t, bk->c[jmin] = cur.c;
			bk->data[jmin] = cur.data;
			bk->meta = (bk->meta & ~(15u << (4 + 4 * jmin))) | (uint32_t)cur.code << (4 + 4 * jmin);
			if (t->u.fl.enabled)
				t->u.fl.enabled[b] = (uint8_t)((t->u.fl.enabled[b] & ~(1u << jmin)) |
							       (cur.en ? 1u << jmin : 0));
			flat_note_disp(t, home, d);
			cur = out;
			home = flat_home(t, cur.s, cur.t, cur.c);
			d = dmin;
		}
		b = b + 1 == t->nslot ? 0 : b + 1;
		d++;
	}
}

/*
 * Place every rule.  merge: fold AV duplicates (allow/auditallow OR, auditdeny AND;
 * type rules: last wins) instead of adding entries; te tables reject duplicates (not xperms).
 */
static int flat_fill(struct policy_avtab *t, const struct policy_rule *r, uint32_t n,
		     const uint8_t *en, int merge)
{
	uint32_t placed = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct policy_rule *x = &r[i];
		unsigned code = spec_code(x->spec);
		if (merge || (t->kind == POLICY_AVTAB_TE && !(x->spec & SP_AVTAB_XPERMS))) {
			uint32_t b = flat_home(t, x->s, x->t, x->c);
			int done = 0;
			unsigned dmax = flat_disp(t->u.fl.b[b].meta);
			for (unsigned d = 0; !done; d++) {
				struct flat_bucket *bk = &t->u.fl.b[b];
				for (unsigned m = flat_match(bk, x->s, x->t, x->c); m; m &= m - 1) {
					unsigned j = (unsigned)__builtin_ctz(m);
					if (flat_kind(bk->meta, j) != code)
						continue;
					if (!merge)
						return -EEXIST;
					merge_datum(&bk->data[j], x->spec, x->data);
					done = 1;
					break;
				}
				if (!done && !flat_more(t, &b, d, dmax))
					break;
			}
			if (done)
				continue;
		}
		struct flat_ent e = { x->s, x->t, x->c, code, en ? en[i] : 0, x->data };
		int rc = flat_place(t, e);
		if (rc)
			return rc;
		placed++;
	}
	t->nel = placed;
	return 0;
}

/* ---- flat, compact form (policy_int.h: one u32 key per slot, seven slots per line) ---- */

static inline unsigned flatc_count(const struct flatc_bucket *bk)
{
	unsigned n = 0;
	while (n < FLATC_SLOTS && bk->key[n])
		n++;
	return n;
}

/* flat_more for compact buckets (a bucket is full when its last slot is used). */
static inline int flatc_more(const struct policy_avtab *t, uint32_t *b, unsigned d, unsigned dmax)
{
	const struct flatc_bucket *bk = &t->u.fl.cb[*b];
	if (d >= dmax && (dmax < FLAT_DISP_MAX || !bk->key[FLATC_SLOTS - 1]))
		return 0;
	if (d >= t->nslot)
		return 0;
	*b = *b + 1 == t->nslot ? 0 : *b + 1;
	return 1;
}

static void flatc_unpack(const struct policy_avtab *t, uint32_t k, uint16_t *s, uint16_t *tt,
			 uint16_t *c)
{
	*c = (uint16_t)(k % t->u.fl.nc);
	k /= t->u.fl.nc;
	*tt = (uint16_t)(k % t->u.fl.nt);
	*s = (uint16_t)(k / t->u.fl.nt);
}

/* an entry placed d buckets after its home: the home's disp and overflow filter learn it */
static inline void flatc_note(struct policy_avtab *t, uint32_t home, uint64_t h, unsigned d)
{
	struct flatc_bucket *hb = &t->u.fl.cb[home];
	if (!d)
		return;
	hb->ovf |= policy_flatc_fbit(h);
	if (d > FLAT_DISP_MAX)
		d = FLAT_DISP_MAX;
	if (d > flat_disp(hb->meta))
		hb->meta = (hb->meta & ~(15u << FLAT_DISP_SHIFT)) | (uint32_t)d << FLAT_DISP_SHIFT;
}

static inline void flatc_set(struct policy_avtab *t, uint32_t b, unsigned j, uint32_t k,
			     unsigned code, unsigned en, uint32_t data)
{
	struct flatc_bucket *bk = &t->u.fl.cb[b];
	bk->key[j] = k;
	bk->data[j] = data;
	bk->meta = (bk->meta & ~(15u << (4 * j))) | (uint32_t)code << (4 * j);
	if (t->u.fl.enabled)
		t->u.fl.enabled[b] = (uint8_t)((t->u.fl.enabled[b] & ~(1u << j)) | (en ? 1u << j : 0));
}

/*
 * Home-first placement over buckets (linear probing): an entry in its home line is never moved;
 * a newcomer whose home is full takes the slot of the least displaced entry there that is not
 * at home, which moves on.  Each line so keeps min(7, entries homed there) of its own entries,
 * the fewest possible second-line reads for hits (debian-default at 0.63 load: 3.7 % of entries
 * away from home, against 6.0 % with Robin Hood's fairest-displacement rule).  Buckets only ever
 * fill, so a home's entries lie between it and the first non-full bucket, and disp (the max over
 * a home's entries, saturating) only grows.
 */
static int flatc_place(struct policy_avtab *t, uint32_t k, unsigned code, unsigned en,
		       uint32_t data)
{
	uint64_t h = policy_flatc_mix(k);
	uint32_t home = policy_flatc_home(t, h), b = home;
	unsigned d = 0;
	for (;;) {
		if (d > t->nslot)
			return -ENOSPC;	/* cannot happen: the load stays below 1 */
		struct flatc_bucket *bk = &t->u.fl.cb[b];
		unsigned cnt = flatc_count(bk);
		if (cnt < FLATC_SLOTS) {
			flatc_set(t, b, cnt, k, code, en, data);
			flatc_note(t, home, h, d);
			return 0;
		}
		if (!d) {	/* at its home bucket, the newcomer evicts the entry nearest its own */
			unsigned jmin = 0, dmin = ~0u;
			for (unsigned j = 0; j < FLATC_SLOTS; j++) {
				uint32_t hj = policy_flatc_home(t, policy_flatc_mix(bk->key[j]));
				unsigned dj = flat_dist(t, hj, b);
				if (dj && dj < dmin)
					dmin = dj, jmin = j;
			}
			if (dmin != ~0u) {
				uint32_t ok = bk->key[jmin], odata = bk->data[jmin];
				unsigned ocode = policy_flatc_kind(bk->meta, jmin);
				unsigned oen = t->u.fl.enabled ? t->u.fl.enabled[b] >> jmin & 1 : 0;
				flatc_set(t, b, jmin, k, code, en, data);
				k = ok, code = ocode, en = oen, data = odata;
				h = policy_flatc_mix(k);
				home = policy_flatc_home(t, h);
				d = dmin;
			}
		}
		b = b + 1 == t->nslot ? 0 : b + 1;
		d++;
	}
}

static int flatc_fill(struct policy_avtab *t, const struct policy_rule *r, uint32_t n,
		      const uint8_t *en, int merge)
{
	uint32_t placed = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct policy_rule *x = &r[i];
		unsigned code = spec_code(x->spec);
		uint32_t k = policy_flatc_key(t, x->s, x->t, x->c);
		if (merge || (t->kind == POLICY_AVTAB_TE && !(x->spec & SP_AVTAB_XPERMS))) {
			uint32_t b = policy_flatc_home(t, policy_flatc_mix(k));
			int done = 0;
			unsigned dmax = flat_disp(t->u.fl.cb[b].meta);
			for (unsigned d = 0; !done; d++) {
				struct flatc_bucket *bk = &t->u.fl.cb[b];
				for (unsigned m = policy_flatc_match(bk, k); m; m &= m - 1) {
					unsigned j = (unsigned)__builtin_ctz(m);
					if (policy_flatc_kind(bk->meta, j) != code)
						continue;
					if (!merge)
						return -EEXIST;
					merge_datum(&bk->data[j], x->spec, x->data);
					done = 1;
					break;
				}
				if (!done && !flatc_more(t, &b, d, dmax))
					break;
			}
			if (done)
				continue;
		}
		int rc = flatc_place(t, k, code, en ? en[i] : 0, x->data);
		if (rc)
			return rc;
		placed++;
	}
	t->nel = placed;
	return 0;
}

/*
 * The compact form applies when every rule has s >= 1 and ns * nt * nc <= 2^32 (radices = the
 * largest values + 1).  Returns 1 and sets the radices, or 0 (the wide form is used).
 */
static int flatc_fits(struct policy_avtab *t, const struct policy_rule *r, uint32_t n)
{
	uint32_t ms = 0, mt = 0, mc = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!r[i].s)
			return 0;
		ms = r[i].s > ms ? r[i].s : ms;
		mt = r[i].t > mt ? r[i].t : mt;
		mc = r[i].c > mc ? r[i].c : mc;
	}
	uint64_t span = (uint64_t)(ms + 1) * (mt + 1) * (mc + 1);
	if (span > (1ull << 32))
		return 0;
	t->u.fl.ns = ms + 1, t->u.fl.nt = mt + 1, t->u.fl.nc = mc + 1;
	return 1;
}

/*
 * The compact probe sequence of a key: the home bucket, then (only when the home's overflow
 * filter has the key's bit) the following ones up to the home's disp.
 */
struct flatc_it {
	uint32_t k, b;
	unsigned d, dmax;
	int more;
};

static inline const struct flatc_bucket *flatc_first(const struct policy_avtab *t, uint16_t s,
						     uint16_t tt, uint16_t c, struct flatc_it *it)
{
	if (!(it->k = policy_flatc_key(t, s, tt, c)))	/* nslot >= 1 for flat tables */
		return NULL;
	uint64_t h = policy_flatc_mix(it->k);
	it->b = policy_flatc_home(t, h);
	const struct flatc_bucket *hb = &t->u.fl.cb[it->b];
	it->d = 0;
	it->dmax = flat_disp(hb->meta);
	it->more = (hb->ovf & policy_flatc_fbit(h)) != 0;
	return hb;
}

static inline const struct flatc_bucket *flatc_next(const struct policy_avtab *t,
						    struct flatc_it *it)
{
	if (!it->more || !flatc_more(t, &it->b, it->d++, it->dmax))
		return NULL;
	return &t->u.fl.cb[it->b];
}

static int flat_build(struct policy_avtab *t, const struct policy_rule *r, uint32_t n,
		      const uint8_t *en, int merge)
{
	t->form = flatc_fits(t, r, n) ? POLICY_FORM_COMPACT : POLICY_FORM_WIDE;
	uint64_t nb = t->form == POLICY_FORM_COMPACT ? ((uint64_t)n * 100 + FLATC_PCT * FLATC_SLOTS - 1) /
					  (FLATC_PCT * FLATC_SLOTS)
				      : ((uint64_t)n * 100 + 449) / 450;	/* 6 slots at 0.75 */
	if (nb < 1)
		nb = 1;
	if (nb > UINT32_MAX / 2)
		return -ENOMEM;
	t->nslot = (uint32_t)nb;
	t->u.fl.b = sp_zalloc(t->alloc, nb * sizeof(struct flat_bucket), 64);
	if (!t->u.fl.b)
		return -ENOMEM;
	if (t->kind == POLICY_AVTAB_COND) {
		t->u.fl.enabled = sp_zalloc(t->alloc, nb, 0);
		if (!t->u.fl.enabled)
			return -ENOMEM;
	}
	t->bytes = nb * sizeof(struct flat_bucket) + (t->u.fl.enabled ? nb : 0);
	if (t->form == POLICY_FORM_COMPACT)
		return flatc_fill(t, r, n, en, merge);
	return flat_fill(t, r, n, en, merge);
}

/*
 * avtab_search, one small function per layout so that the dispatcher below tail-calls into a
 * short prologue (measured: the shared switch cost ~25 instructions per lookup).
 */
static sp_noinline int chained_search(const struct policy_avtab *t, uint16_t s, uint16_t tt,
				      uint16_t c, uint16_t mask, uint32_t *data)
{
	mask &= (uint16_t)~SP_AVTAB_ENABLED;
	const struct chained_node *x = chained_first(t, s, tt, c, mask);
	if (!x)
		return 0;
	*data = (x->spec & SP_AVTAB_XPERMS) ? (uint32_t)(x->u.xp - t->xperms) : x->u.data;
	return 1;
}

static sp_noinline int array_search(const struct policy_avtab *t, uint16_t s, uint16_t tt,
				    uint16_t c, uint16_t mask, uint32_t *data)
{
	mask &= (uint16_t)~SP_AVTAB_ENABLED;
	uint32_t i = array_first(t, s, tt, c, mask);
	if (i == UINT32_MAX)
		return 0;
	*data = t->u.ar.nodes[i].data;
	return 1;
}

static sp_noinline int flat_search(const struct policy_avtab *t, uint16_t s, uint16_t tt,
				   uint16_t c, uint16_t mask, uint32_t *data)
{
	mask &= (uint16_t)~SP_AVTAB_ENABLED;
	if (unlikely(!t->nslot))
		return 0;
	uint32_t b = flat_home(t, s, tt, c);
	unsigned dmax = flat_disp(t->u.fl.b[b].meta);
	for (unsigned d = 0;; d++) {
		const struct flat_bucket *bk = &t->u.fl.b[b];
		for (unsigned m = flat_match(bk, s, tt, c); m; m &= m - 1) {
			unsigned j = (unsigned)__builtin_ctz(m);
			if (policy_flat_code_spec[flat_kind(bk->meta, j)] & mask) {
				*data = bk->data[j];
				return 1;
			}
		}
		if (!flat_more(t, &b, d, dmax))
			return 0;
	}
}

/*
 * The rest of a compact search once the home line missed and its filter bit is set (rare:
 * entries placed past their home).  It recomputes the home from the key, so the inline hot path
 * (flat.h) keeps few values live and tail-calls it (measured: no callee-saved registers then).
 */
sp_noinline int policy_flatc_search_far(const struct policy_avtab *t, uint32_t k, uint32_t mask,
					uint32_t *data)
{
	uint32_t b = policy_flatc_home(t, policy_flatc_mix(k));
	unsigned dmax = flat_disp(t->u.fl.cb[b].meta);
	for (unsigned d = 0; flatc_more(t, &b, d, dmax); d++) {
		const struct flatc_bucket *bk = &t->u.fl.cb[b];
		for (unsigned m = policy_flatc_match(bk, k); m; m &= m - 1) {
			unsigned j = (unsigned)__builtin_ctz(m);
			if (policy_flat_code_spec[policy_flatc_kind(bk->meta, j)] & mask) {
				*data = bk->data[j];
				return 1;
			}
		}
	}
	return 0;
}

/* The layout's search for the public entry point: the inline hot path of flat.h. */
static sp_noinline int flatc_search(const struct policy_avtab *t, uint16_t s, uint16_t tt,
				    uint16_t c, uint16_t mask, uint32_t *data)
{
	return policy_flatc_search(t, s, tt, c, mask & (uint16_t)~SP_AVTAB_ENABLED, data);
}

/* ---- one API ---- */

static enum sp_avtab_layout avtab_layout(const struct policy_avtab *t)
{
	return t->form == POLICY_FORM_CHAINED ? SP_AVTAB_CHAINED
	       : t->form == POLICY_FORM_ARRAY ? SP_AVTAB_ARRAY : SP_AVTAB_FLAT;
}

int policy_avtab_build(struct policy_avtab *t, enum sp_avtab_layout layout,
		       enum policy_avtab_kind kind, const struct policy_rule *r, uint32_t n,
		       uint32_t hint, const uint8_t *enabled, const struct sp_avtab_xperms *xperms,
		       const struct sp_allocator *a)
{
	memset(t, 0, sizeof(*t));
	t->form = layout == SP_AVTAB_ARRAY ? POLICY_FORM_ARRAY : POLICY_FORM_CHAINED;
	t->kind = kind;
	t->nel = n;
	t->xperms = xperms;
	t->alloc = a;
	int rc;
	t->search = layout == SP_AVTAB_CHAINED ? chained_search
		    : layout == SP_AVTAB_ARRAY ? array_search : flat_search;
	switch (layout) {
	case SP_AVTAB_CHAINED:
		rc = chained_build(t, r, n, hint, enabled);
		break;
	case SP_AVTAB_ARRAY:
		rc = array_build(t, r, n, enabled);
		break;
	case SP_AVTAB_FLAT:
		rc = flat_build(t, r, n, enabled, kind == POLICY_AVTAB_MERGED);
		break;
	default:
		rc = -EINVAL;
	}
	if (rc)
		policy_avtab_destroy(t);
	else if (t->form == POLICY_FORM_COMPACT)
		t->search = flatc_search;
	return rc;
}

void policy_avtab_destroy(struct policy_avtab *t)
{
	switch (avtab_layout(t)) {
	case SP_AVTAB_CHAINED:
		/* avtab_destroy: every node back to the cache, one by one */
		for (uint32_t i = 0; t->u.ch.slots && i < t->nslot; i++)
			for (struct chained_node *x = t->u.ch.slots[i], *nx; x; x = nx) {
				nx = x->next;
				sp_slab_cache_free(avtab_node_cachep, x);
			}
		sp_free(t->alloc, t->u.ch.slots, (size_t)t->nslot * sizeof(void *));
		break;
	case SP_AVTAB_ARRAY:
		sp_free(t->alloc, t->u.ar.heads, (size_t)t->nslot * sizeof(uint32_t));
		sp_free(t->alloc, t->u.ar.nodes, (size_t)t->nel * sizeof(struct array_node));
		break;
	case SP_AVTAB_FLAT:
		sp_free(t->alloc, t->u.fl.b, (size_t)t->nslot * sizeof(struct flat_bucket));
		sp_free(t->alloc, t->u.fl.enabled, t->nslot);
		break;
	}
	memset(&t->u, 0, sizeof(t->u));
	t->nslot = 0;
}

size_t policy_avtab_lookup(const struct policy_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
			   uint16_t mask, struct sp_avtab_entry *out, size_t max)
{
	size_t n = 0;
	mask &= (uint16_t)~SP_AVTAB_ENABLED;
	switch (avtab_layout(t)) {
	case SP_AVTAB_CHAINED:
		for (const struct chained_node *x = chained_first(t, s, tt, c, mask); x;
		     x = chained_next(x, mask), n++)
			if (n < max)
				chained_entry(t, x, &out[n]);
		break;
	case SP_AVTAB_ARRAY:
		for (uint32_t i = array_first(t, s, tt, c, mask); i != UINT32_MAX;
		     i = array_next(t, i, mask), n++)
			if (n < max)
				array_entry(t, i, &out[n]);
		break;
	case SP_AVTAB_FLAT: {
		if (t->form == POLICY_FORM_COMPACT) {
			struct flatc_it it;
			for (const struct flatc_bucket *bk = flatc_first(t, s, tt, c, &it); bk;
			     bk = flatc_next(t, &it))
				for (unsigned m = policy_flatc_match(bk, it.k); m; m &= m - 1) {
					unsigned j = (unsigned)__builtin_ctz(m);
					unsigned kd = policy_flatc_kind(bk->meta, j);
					uint16_t sp = policy_flat_code_spec[kd];
					if (!(sp & mask))
						continue;
					if (n < max) {
						struct sp_avtab_entry *e = &out[n];
						memset(e, 0, sizeof(*e));
						e->source = s, e->target = tt, e->tclass = c;
						e->specified = sp;
						if (t->u.fl.enabled && (t->u.fl.enabled[it.b] >> j & 1))
							e->specified |= SP_AVTAB_ENABLED;
						e->data = bk->data[j];
						if (sp & SP_AVTAB_XPERMS)
							e->xperms = &t->xperms[bk->data[j]];
					}
					n++;
				}
			break;
		}
		if (!t->nslot)
			break;
		uint32_t b = flat_home(t, s, tt, c);
		unsigned dmax = flat_disp(t->u.fl.b[b].meta);
		for (unsigned d = 0;; d++) {
			const struct flat_bucket *bk = &t->u.fl.b[b];
			for (unsigned m = flat_match(bk, s, tt, c); m; m &= m - 1) {
				unsigned j = (unsigned)__builtin_ctz(m);
				uint16_t sp = policy_flat_code_spec[flat_kind(bk->meta, j)];
				if (!(sp & mask))
					continue;
				if (n < max) {
					struct sp_avtab_entry *e = &out[n];
					memset(e, 0, sizeof(*e));
					e->source = s, e->target = tt, e->tclass = c;
					e->specified = sp;
					if (t->u.fl.enabled && (t->u.fl.enabled[b] >> j & 1))
						e->specified |= SP_AVTAB_ENABLED;
					e->data = bk->data[j];
					if (sp & SP_AVTAB_XPERMS)
						e->xperms = &t->xperms[bk->data[j]];
				}
				n++;
			}
			if (!flat_more(t, &b, d, dmax))
				break;
		}
		break;
	}
	}
	return n;
}

int policy_avtab_foreach(const struct policy_avtab *t,
			 int (*fn)(void *ud, const struct sp_avtab_entry *e), void *ud)
{
	struct sp_avtab_entry e;
	int rc;
	switch (avtab_layout(t)) {
	case SP_AVTAB_CHAINED:
		for (uint32_t i = 0; i < t->nslot; i++)
			for (const struct chained_node *x = t->u.ch.slots[i]; x; x = x->next) {
				chained_entry(t, x, &e);
				if ((rc = fn(ud, &e)))
					return rc;
			}
		break;
	case SP_AVTAB_ARRAY:
		for (uint32_t i = 0; i < (t->nslot ? t->nel : 0); i++) {
			array_entry(t, i, &e);
			if ((rc = fn(ud, &e)))
				return rc;
		}
		break;
	case SP_AVTAB_FLAT:
		for (uint32_t b = 0; t->form == POLICY_FORM_COMPACT && b < t->nslot; b++) {
			const struct flatc_bucket *bk = &t->u.fl.cb[b];
			for (unsigned j = 0; j < FLATC_SLOTS && bk->key[j]; j++) {
				memset(&e, 0, sizeof(e));
				flatc_unpack(t, bk->key[j], &e.source, &e.target, &e.tclass);
				e.specified = policy_flat_code_spec[policy_flatc_kind(bk->meta, j)];
				if (t->u.fl.enabled && (t->u.fl.enabled[b] >> j & 1))
					e.specified |= SP_AVTAB_ENABLED;
				e.data = bk->data[j];
				if (e.specified & SP_AVTAB_XPERMS)
					e.xperms = &t->xperms[e.data];
				if ((rc = fn(ud, &e)))
					return rc;
			}
		}
		for (uint32_t b = 0; t->form == POLICY_FORM_WIDE && b < t->nslot; b++) {
			const struct flat_bucket *bk = &t->u.fl.b[b];
			for (unsigned j = 0; j < (bk->meta & 7); j++) {
				memset(&e, 0, sizeof(e));
				e.source = bk->s[j], e.target = bk->t[j], e.tclass = bk->c[j];
				e.specified = policy_flat_code_spec[flat_kind(bk->meta, j)];
				if (t->u.fl.enabled && (t->u.fl.enabled[b] >> j & 1))
					e.specified |= SP_AVTAB_ENABLED;
				e.data = bk->data[j];
				if (e.specified & SP_AVTAB_XPERMS)
					e.xperms = &t->xperms[e.data];
				if ((rc = fn(ud, &e)))
					return rc;
			}
		}
		break;
	}
	return 0;
}

/*
 * The decision inner step.  Unconditional tables fold every AV entry; conditional ones only the
 * enabled ones (chained/array: the kernel's 0x8000 bit; flat decisions use the pre-folded `eff`
 * table, which holds enabled entries only, so its entries need no check).
 */
void policy_avtab_fold(const struct policy_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
		       uint32_t av[3])
{
	const uint16_t need_en = t->kind == POLICY_AVTAB_COND ? SP_AVTAB_ENABLED : 0;
	switch (avtab_layout(t)) {
	case SP_AVTAB_CHAINED:
		for (const struct chained_node *x = chained_first(t, s, tt, c, SP_AVTAB_AV); x;
		     x = chained_next(x, SP_AVTAB_AV))
			if ((x->spec & need_en) == need_en)
				fold_one(x->spec, x->u.data, av);
		break;
	case SP_AVTAB_ARRAY:
		for (uint32_t i = array_first(t, s, tt, c, SP_AVTAB_AV); i != UINT32_MAX;
		     i = array_next(t, i, SP_AVTAB_AV))
			if ((t->u.ar.nodes[i].spec & need_en) == need_en)
				fold_one(t->u.ar.nodes[i].spec, t->u.ar.nodes[i].data, av);
		break;
	case SP_AVTAB_FLAT: {
		if (likely(t->form == POLICY_FORM_COMPACT)) {
			struct flatc_it it;
			for (const struct flatc_bucket *bk = flatc_first(t, s, tt, c, &it); bk;
			     bk = flatc_next(t, &it))
				for (unsigned m = policy_flatc_match(bk, it.k); m; m &= m - 1) {
					unsigned j = (unsigned)__builtin_ctz(m);
					unsigned k = policy_flatc_kind(bk->meta, j);
					if (k > 3 || (need_en && !(t->u.fl.enabled[it.b] >> j & 1)))
						continue;
					fold_one(policy_flat_code_spec[k], bk->data[j], av);
				}
			break;
		}
		if (unlikely(!t->nslot))
			break;
		uint32_t b = flat_home(t, s, tt, c);
		unsigned dmax = flat_disp(t->u.fl.b[b].meta);
		for (unsigned d = 0;; d++) {
			const struct flat_bucket *bk = &t->u.fl.b[b];
			uint32_t meta = bk->meta;
			for (unsigned m = flat_match(bk, s, tt, c); m; m &= m - 1) {
				unsigned j = (unsigned)__builtin_ctz(m);
				unsigned k = flat_kind(meta, j);
				if (k > 3 || (need_en && !(t->u.fl.enabled[b] >> j & 1)))
					continue;
				fold_one(policy_flat_code_spec[k], bk->data[j], av);
			}
			if (!flat_more(t, &b, d, dmax))
				break;
		}
		break;
	}
	}
}
