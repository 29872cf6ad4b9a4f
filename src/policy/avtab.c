/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * avtab.c - the access vector table in three layouts behind one internal API.
 *
 *  chained  the kernel's design: nslot chain heads (nslot = 2 for <= 3 rules, else the largest
 *           power of two <= nrules / 2, at most 2^16), 24-byte nodes from an sp_slab_cache
 *           "avtab_node" (the kernel's process-wide avtab_node_cachep; here the core's, shared by
 *           its te and conditional tables, index.c), chains
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
 *             never moved) at 0.63 load, built in one pass over the buckets after a counting
 *             sort of the rules by home (flatc_fill); the hit path is inline (flat.h).
 *           wide (fallback when the ranges do not fit 32 bits or s == 0): six slots of three
 *             u16 keys, one SSE2 compare of the sources, Robin Hood placement; 0.75 load; a
 *             lookup scans home..home+disp.
 *           A triple's entries (allow, auditallow, dontaudit, type rules, xperms) are separate
 *           slots found by the same scan.
 *
 * Every operation on a built table (lookup, foreach, fold, search) is written once, over one
 * iterator (struct avtab_it) whose steps and accessors exist per form; each operation is
 * instantiated per form with the form as a compile-time constant, so each instance is the
 * form's own straight loop.  Only the compact form's search keeps a hand-specialised inline
 * path (flat.h): it is the hot lookup, and it stays cheaper than the general probe.
 *
 * Invariants (policy_avtab_is_valid walks them; SP_ASSERT_EXPENSIVE after each build): te and
 * merged tables hold no two entries with the same triple and kind unless the kind is an xperm
 * kind (build returns -EEXIST); conditional tables allow duplicates.  Chains are sorted and each
 * node hashes to its slot; flat entries lie between their home and the first non-full bucket,
 * within their home's disp (saturated: behind full buckets only), and the compact form's rules
 * of flat.h hold.  Lookups never allocate and touch only the table.  Conditional tables keep
 * each entry's enabled bit (chained and array: in `spec`, like the kernel; flat: a per-bucket
 * byte beside the bucket array).
 */
#include <errno.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "secpath/slab.h"
#include "base/assert.h"
#include "policy/flat.h"

/* both flat forms share one bucket array (allocation, accounting, 64-byte alignment) */
_Static_assert(sizeof(struct flatc_bucket) == 64 && sizeof(struct flat_bucket) == 64,
	       "flat buckets are one cache line");

#define FLATC_PCT 63	/* compact load, percent: buckets = ceil(n / (0.63 * 7)) */

/* Bytes between two chained nodes in the node cache (the table's memory accounting). */
static size_t node_stride(struct sp_slab_cache *nodes)
{
	struct sp_slab_stats st;
	sp_slab_cache_stats(nodes, &st);
	return st.stride;
}

/* ---- the kernel's hash and slot rule ---- */

static inline uint32_t rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

/*
 * MurmurHash3 x86_32 block mixing over class, target, source, then its finalizer (avtab_hash).
 * Out of line, as the kernel's: a call per probe.
 */
static sp_noinline uint32_t avtab_hash(uint16_t s, uint16_t t, uint16_t c)
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

/* The same code under its public name (an alias: no extra call; internal calls stay hidden). */
SP_API uint32_t sp_avtab_hash(uint16_t s, uint16_t t, uint16_t c)
	__attribute__((alias("avtab_hash")));

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

/* ---- chained ---- */

/* The kernel's avtab_insert (te) or avtab_insert_nonunique (cond) of every rule, in order. */
static int chained_build(struct sp_avtab *t, const struct policy_rule *r, uint32_t n,
			 uint32_t hint, const uint8_t *en)
{
	t->nslot = kernel_nslot(t->kind == POLICY_AVTAB_COND ? hint : n);
	if (!t->nslot)
		return 0;
	t->mask = t->nslot - 1;
	t->u.ch.slots = sp_zalloc(t->alloc, (size_t)t->nslot * sizeof(void *), 0);
	if (!t->u.ch.slots || !t->u.ch.nodes)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct policy_rule *x = &r[i];
		struct chained_node **pp = &t->u.ch.slots[avtab_hash(x->s, x->t, x->c) & t->mask];
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
		struct chained_node *nn = sp_slab_cache_alloc(t->u.ch.nodes);
		if (!nn)
			return -ENOMEM;
		nn->s = x->s, nn->t = x->t, nn->c = x->c;
		nn->spec = x->spec | (en && en[i] ? SP_AVTAB_ENABLED : 0);
		if (x->spec & SP_AVTAB_XPERMS)
			nn->u.xp = &t->xperms[x->data];
		else
			nn->u.data = x->data;
		nn->next = *pp;
		*pp = nn;
	}
	t->bytes = (size_t)t->nslot * sizeof(void *) + (size_t)n * node_stride(t->u.ch.nodes);
	return 0;
}

/* ---- array ---- */

static int array_build(struct sp_avtab *t, const struct policy_rule *r, uint32_t n,
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
		uint32_t *pp = &t->u.ar.heads[avtab_hash(x->s, x->t, x->c) & t->mask];
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

/* ---- flat ---- */

const uint16_t policy_flat_code_spec[16] = {
	0, SP_AVTAB_ALLOWED, SP_AVTAB_AUDITALLOW, SP_AVTAB_AUDITDENY, SP_AVTAB_TRANSITION,
	SP_AVTAB_MEMBER, SP_AVTAB_CHANGE, SP_AVTAB_XPERMS_ALLOWED, SP_AVTAB_XPERMS_AUDITALLOW,
	SP_AVTAB_XPERMS_DONTAUDIT,
};

static inline uint32_t flat_home(const struct sp_avtab *t, uint16_t s, uint16_t tt,
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
static inline int flat_more(const struct sp_avtab *t, uint32_t *b, unsigned d, unsigned dmax)
{
	const struct flat_bucket *bk = &t->u.fl.b[*b];
	if (d >= dmax && (dmax < FLAT_DISP_MAX || (bk->meta & 7) < FLAT_SLOTS))
		return 0;
	if (d >= t->nslot)
		return 0;
	*b = *b + 1 == t->nslot ? 0 : *b + 1;
	return 1;
}

static inline uint32_t flat_dist(const struct sp_avtab *t, uint32_t home, uint32_t b)
{
	return b >= home ? b - home : b + t->nslot - home;
}

static inline void flat_note_disp(struct sp_avtab *t, uint32_t home, unsigned d)
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
static int flat_place(struct sp_avtab *t, struct flat_ent cur)
{
	SP_ASSERT_INTERNAL(cur.code && cur.code < 10);
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

/* ---- flat, compact form (policy_int.h: one u32 key per slot, seven slots per line) ---- */

static inline unsigned flatc_count(const struct flatc_bucket *bk)
{
	unsigned n = 0;
	while (n < FLATC_SLOTS && bk->key[n])
		n++;
	return n;
}

/* flat_more for compact buckets (a bucket is full when its last slot is used). */
static inline int flatc_more(const struct sp_avtab *t, uint32_t *b, unsigned d, unsigned dmax)
{
	const struct flatc_bucket *bk = &t->u.fl.cb[*b];
	if (d >= dmax && (dmax < FLAT_DISP_MAX || !bk->key[FLATC_SLOTS - 1]))
		return 0;
	if (d >= t->nslot)
		return 0;
	*b = *b + 1 == t->nslot ? 0 : *b + 1;
	return 1;
}

static void flatc_unpack(const struct sp_avtab *t, uint32_t k, uint16_t *s, uint16_t *tt,
			 uint16_t *c)
{
	*c = (uint16_t)(k % t->u.fl.nc);
	k /= t->u.fl.nc;
	*tt = (uint16_t)(k % t->u.fl.nt);
	*s = (uint16_t)(k / t->u.fl.nt);
}

/* an entry placed d buckets after its home: the home's disp and overflow filter learn it */
static inline void flatc_note(struct sp_avtab *t, uint32_t home, uint64_t h, unsigned d)
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

static inline void flatc_set(struct sp_avtab *t, uint32_t b, unsigned j, uint32_t k,
			     unsigned code, unsigned en, uint32_t data)
{
	struct flatc_bucket *bk = &t->u.fl.cb[b];
	bk->key[j] = k;
	bk->data[j] = data;
	bk->meta = (bk->meta & ~(15u << (4 * j))) | (uint32_t)code << (4 * j);
	if (t->u.fl.enabled)
		t->u.fl.enabled[b] = (uint8_t)((t->u.fl.enabled[b] & ~(1u << j)) | (en ? 1u << j : 0));
}

/* ---- flat, compact form: the build (home-sorted, one pass over the buckets) ---- */

/* a kind bit's code (policy_flat_code_spec), by the bit's position; 0 for no known kind */
static const uint8_t code_of_bit[16] = { 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9 };

static inline unsigned spec_code(uint16_t spec)
{
	SP_ASSERT_INTERNAL(spec && !(spec & (spec - 1)));	/* exactly one kind bit */
	return code_of_bit[__builtin_ctz(spec) & 15];
}

/* One rule on its way into a compact table; code 0 marks an entry folded into another. */
struct flatc_ent {
	uint32_t k, data;
	uint16_t code, en;
};

/* The kind codes whose entries may share a key in table t, as bits: every kind in a conditional
 * table, the xperm kinds in a te table, none in a merged table. */
static unsigned repeat_mask(const struct sp_avtab *t)
{
	unsigned m = 0;
	for (unsigned code = 1; code < 16; code++)
		if (t->kind == POLICY_AVTAB_COND ||
		    (t->kind == POLICY_AVTAB_TE && (policy_flat_code_spec[code] & SP_AVTAB_XPERMS)))
			m |= 1u << code;
	return m;
}

/* te tables: a repeated kind of a key is an error (but xperm kinds); merged tables fold it
 * into the first entry of the key and kind. */
static int flatc_dup(enum policy_avtab_kind kind, struct flatc_ent *first, struct flatc_ent *x)
{
	if (kind == POLICY_AVTAB_TE)
		return -EEXIST;
	merge_datum(&first->data, policy_flat_code_spec[x->code], x->data);
	x->code = 0;
	return 0;
}

struct flatc_pos {
	uint32_t k, code, p;
};

static int pos_cmp(const void *a, const void *b)
{
	const struct flatc_pos *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return (x->p > y->p) - (x->p < y->p);
}

#define FLATC_PAIRWISE 32	/* larger home groups are sorted to find their duplicates */

/*
 * The duplicates among one home's entries e[0..g) (in rule order, so the first of a key and
 * kind is the one kept); kinds in rep (repeat_mask) may repeat.  A group of up to
 * FLATC_PAIRWISE entries is compared pairwise; a larger one (only crafted hash collisions make
 * one) is sorted, so a group costs O(g log g) at worst.
 */
static int flatc_group_dups(const struct sp_avtab *t, unsigned rep, struct flatc_ent *e,
			    uint32_t g)
{
	if (g <= FLATC_PAIRWISE) {
		for (uint32_t p = 1; p < g; p++) {
			if (rep >> e[p].code & 1)
				continue;
			for (uint32_t q = 0; q < p; q++)
				if (e[q].k == e[p].k && e[q].code == e[p].code) {
					int rc = flatc_dup(t->kind, &e[q], &e[p]);
					if (rc)
						return rc;
					break;
				}
		}
		return 0;
	}
	struct flatc_pos *v = sp_alloc(t->alloc, (size_t)g * sizeof(*v), 0);
	if (!v)
		return -ENOMEM;
	for (uint32_t p = 0; p < g; p++)
		v[p] = (struct flatc_pos){ e[p].k, e[p].code, p };
	qsort(v, g, sizeof(*v), pos_cmp);
	int rc = 0;
	for (uint32_t i = 0, f = 0; i < g && !rc; i++) {
		if (i && v[i].k == v[f].k && v[i].code == v[f].code && !(rep >> v[i].code & 1))
			rc = flatc_dup(t->kind, &e[v[f].p], &e[v[i].p]);
		else
			f = i;
	}
	sp_free(t->alloc, v, (size_t)g * sizeof(*v));
	return rc;
}

/*
 * Lay out the home-sorted entries e (group b = e[end[b - 1]..end[b]), end[-1] = 0) bucket by
 * bucket: a group's duplicates are settled first (flatc_group_dups, while the group is in
 * cache), then the bucket takes its own entries (up to seven, in order), then fills up from the
 * entries carried over from earlier buckets, the most displaced first (the queue is in home
 * order); a bucket's own entries past seven join the queue's end.  What is still queued after
 * the last bucket wraps to the first buckets' free slots.  So every line keeps min(7, entries
 * homed there) of its own entries, and an entry is carried past a bucket only when it is full
 * (the reach invariant of flat.h).  Each bucket is written whole when its turn comes (the
 * array need not be zeroed); only a carried entry's home (an earlier bucket) learns its disp
 * and filter bit later.  Sets *placed to the number of entries placed; 0, -EEXIST or -ENOMEM
 * (from flatc_group_dups: the table is then incomplete).
 */
static int flatc_lay(struct sp_avtab *t, struct flatc_ent *restrict e,
		     const uint32_t *restrict end, uint32_t *restrict queue, uint32_t *placed)
{
	uint32_t qh = 0, qt = 0, np = 0;
	unsigned rep = repeat_mask(t);
	int dups = t->kind != POLICY_AVTAB_COND, rc;
	for (uint32_t b = 0; b < t->nslot; b++) {
		uint32_t g0 = b ? end[b - 1] : 0, pe = end[b];
		if (dups && pe - g0 > 1 && (rc = flatc_group_dups(t, rep, &e[g0], pe - g0)))
			return rc;
		/* built in a local: disp 0 and no filter bit, none of b's entries being placed past
		 * it yet; the carried entries' homes are earlier buckets */
		struct flatc_bucket nb = { .meta = 0 };
		unsigned j = 0, en = 0;
		for (uint32_t p = g0; p < pe; p++) {
			struct flatc_ent x = e[p];
			if (!x.code)
				continue;	/* folded into an earlier entry */
			if (j == FLATC_SLOTS) {
				queue[qt++] = p;
				continue;
			}
			nb.key[j] = x.k, nb.data[j] = x.data;
			nb.meta |= (uint32_t)x.code << (4 * j), en |= (unsigned)x.en << j;
			j++;
		}
		for (; j < FLATC_SLOTS && qh < qt; j++) {
			struct flatc_ent x = e[queue[qh++]];
			uint64_t h = policy_flatc_mix(x.k);
			uint32_t home = policy_flatc_home(t, h);
			nb.key[j] = x.k, nb.data[j] = x.data;
			nb.meta |= (uint32_t)x.code << (4 * j), en |= (unsigned)x.en << j;
			flatc_note(t, home, h, flat_dist(t, home, b));
		}
		np += j;
		t->u.fl.cb[b] = nb;
		if (t->u.fl.enabled)
			t->u.fl.enabled[b] = (uint8_t)en;
	}
	for (uint32_t b = 0; qh < qt; b++) {	/* b < nslot: the load stays below 1 */
		SP_ASSERT_INTERNAL(b < t->nslot);
		for (unsigned j = flatc_count(&t->u.fl.cb[b]); j < FLATC_SLOTS && qh < qt; j++, np++) {
			const struct flatc_ent *x = &e[queue[qh++]];
			uint64_t h = policy_flatc_mix(x->k);
			uint32_t home = policy_flatc_home(t, h);
			flatc_set(t, b, j, x->k, x->code, x->en, x->data);
			flatc_note(t, home, h, flat_dist(t, home, b));
		}
	}
	*placed = np;
	return 0;
}

/*
 * The counting sort of r[0..n) by home into e (stable: rule order within a home); after it
 * end[b] is the end of group b.  tmp (n keys) is scratch.  Locals and restrict keep the loops
 * in registers (the build is compiled without strict aliasing).
 */
static void flatc_sort(const struct sp_avtab *t, const struct policy_rule *restrict r, uint32_t n,
		       const uint8_t *restrict en, uint32_t *restrict end, uint32_t *restrict tmp,
		       struct flatc_ent *restrict e)
{
	const uint32_t nt = t->u.fl.nt, nc = t->u.fl.nc;
	for (uint32_t i = 0; i < n; i++) {	/* flatc_fits: every key is in range */
		uint32_t k = policy_flatc_pack(r[i].s, r[i].t, r[i].c, nt, nc);
		tmp[i] = k;
		end[policy_flatc_home(t, policy_flatc_mix(k)) + 1]++;
	}
	for (uint32_t b = 1; b <= t->nslot; b++)
		end[b] += end[b - 1];	/* end[b] = the start of group b */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = tmp[i];
		e[end[policy_flatc_home(t, policy_flatc_mix(k))]++] = (struct flatc_ent){
			k, r[i].data, (uint16_t)spec_code(r[i].spec), (uint16_t)(en && en[i]) };
	}
}

/*
 * Build a compact table: every rule's home, a stable counting sort of the rules by home, then
 * one pass over the buckets that settles each home group's duplicates and lays it out
 * (flatc_lay).  Linear in the rules and buckets; the table is written in bucket order.
 */
static int flatc_fill(struct sp_avtab *t, const struct policy_rule *r, uint32_t n,
		      const uint8_t *en)
{
	size_t nb = t->nslot;
	uint32_t *end = sp_zalloc(t->alloc, (nb + 1) * sizeof(uint32_t), 0);
	uint32_t *tmp = sp_alloc(t->alloc, ((size_t)n + 1) * sizeof(uint32_t), 0);
	struct flatc_ent *e = sp_alloc(t->alloc, ((size_t)n + 1) * sizeof(*e), 0);
	int rc = -ENOMEM;
	if (!end || !tmp || !e)
		goto out;
	flatc_sort(t, r, n, en, end, tmp, e);	/* tmp: its scratch, then flatc_lay's queue */
	rc = flatc_lay(t, e, end, tmp, &t->nel);	/* end[b] = the end of group b now */
out:
	sp_free(t->alloc, end, (nb + 1) * sizeof(uint32_t));
	sp_free(t->alloc, tmp, ((size_t)n + 1) * sizeof(uint32_t));
	sp_free(t->alloc, e, ((size_t)n + 1) * sizeof(*e));
	return rc;
}

/* Every rule has 1 <= s <= ms, t <= mt, c <= mc (the bounds a caller vouches for). */
static int rules_within(const struct policy_rule *r, uint32_t n, uint32_t ms, uint32_t mt,
			uint32_t mc)
{
	for (uint32_t i = 0; i < n; i++)
		if (!r[i].s || r[i].s > ms || r[i].t > mt || r[i].c > mc)
			return 0;
	return 1;
}

/* Do radices ms + 1, mt + 1, mc + 1 span at most 2^32 keys? */
static int span_fits(uint32_t ms, uint32_t mt, uint32_t mc)
{
	return (uint64_t)(ms + 1) * (mt + 1) * (mc + 1) <= (1ull << 32);
}

/* The largest s, t and c of r[0..n); 0 when a rule has s == 0 (no compact key for it). */
static int rules_max(const struct policy_rule *r, uint32_t n, uint32_t *ms, uint32_t *mt,
		     uint32_t *mc)
{
	*ms = *mt = *mc = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!r[i].s)
			return 0;
		*ms = r[i].s > *ms ? r[i].s : *ms;
		*mt = r[i].t > *mt ? r[i].t : *mt;
		*mc = r[i].c > *mc ? r[i].c : *mc;
	}
	return 1;
}

/*
 * The compact form applies when every rule has s >= 1 and ns * nt * nc <= 2^32 (radices: the
 * caller's bounds + 1 when their product fits, else the largest values + 1).  Returns 1 and
 * sets the radices, or 0 (the wide form is used).
 */
static int flatc_fits(struct sp_avtab *t, const struct policy_rules *rs)
{
	uint32_t ms = rs->types, mt = rs->types, mc = rs->classes;
	if ((!ms || !mc || !span_fits(ms, mt, mc)) &&
	    (!rules_max(rs->r, rs->n, &ms, &mt, &mc) || !span_fits(ms, mt, mc)))
		return 0;
	SP_ASSERT_EXPENSIVE(rules_within(rs->r, rs->n, ms, mt, mc));
	t->u.fl.ns = ms + 1, t->u.fl.nt = mt + 1, t->u.fl.nc = mc + 1;
	return 1;
}

/*
 * ---- the iterator: one position in a table, two ways to move it ----
 *
 * A probe visits the entries of one key (s, tt, c) whose kind intersects `mask`, in the order
 * the layout keeps them (chains: insertion order within a key; flat: home bucket first, slots
 * in order); a walk visits every entry of the table in storage order.  The accessors below read
 * the entry at the position, whichever way it was reached.  Every function here is inline and
 * takes the form as an argument; callers pass a constant, so each instance is one form's loop.
 */
struct avtab_it {
	const struct sp_avtab *t;
	uint16_t s, tt, c, mask;	/* probes: the key and the kinds sought */
	const struct chained_node *n;	/* chained: the entry */
	uint32_t i;			/* array: the entry's node; chained walks: its slot; flat: bucket */
	unsigned j;			/* flat: the entry's slot */
	uint32_t meta;			/* flat: the bucket's meta (kind codes, disp) */
	unsigned m;			/* flat probes: the bucket's matching slots not yet visited */
	unsigned d, dmax;		/* flat probes: the bucket's distance from home, home's disp */
	uint32_t k;			/* compact probes: the packed key */
	int more;			/* flat probes: buckets past the home may hold the key */
};

/* flat: the kind code (policy_flat_code_spec) of the entry's slot */
static sp_always_inline unsigned it_code(const struct avtab_it *it, enum policy_avtab_form f)
{
	if (f == POLICY_FORM_COMPACT)
		return policy_flatc_kind(it->meta, it->j);
	return flat_kind(it->meta, it->j);
}

/* the entry's kind bit (SP_AVTAB_ALLOWED ... SP_AVTAB_XPERMS_DONTAUDIT), without ENABLED */
static sp_always_inline uint16_t it_kind(const struct avtab_it *it, enum policy_avtab_form f)
{
	if (f == POLICY_FORM_CHAINED)
		return it->n->spec & (uint16_t)~SP_AVTAB_ENABLED;
	if (f == POLICY_FORM_ARRAY)
		return it->t->u.ar.nodes[it->i].spec & (uint16_t)~SP_AVTAB_ENABLED;
	return policy_flat_code_spec[it_code(it, f)];
}

/* the entry's enabled bit (conditional tables; 0 in the others) */
static sp_always_inline int it_enabled(const struct avtab_it *it, enum policy_avtab_form f)
{
	if (f == POLICY_FORM_CHAINED)
		return (it->n->spec & SP_AVTAB_ENABLED) != 0;
	if (f == POLICY_FORM_ARRAY)
		return (it->t->u.ar.nodes[it->i].spec & SP_AVTAB_ENABLED) != 0;
	return it->t->u.fl.enabled && (it->t->u.fl.enabled[it->i] >> it->j & 1);
}

/* the stored 32-bit datum of a non-xperm entry (a permission mask or a type) */
static sp_always_inline uint32_t it_raw(const struct avtab_it *it, enum policy_avtab_form f)
{
	if (f == POLICY_FORM_CHAINED)
		return it->n->u.data;
	if (f == POLICY_FORM_ARRAY)
		return it->t->u.ar.nodes[it->i].data;
	if (f == POLICY_FORM_COMPACT)
		return it->t->u.fl.cb[it->i].data[it->j];
	return it->t->u.fl.b[it->i].data[it->j];
}

/* the entry's datum as the API gives it: xperm kinds give the xperm index */
static sp_always_inline uint32_t it_data(const struct avtab_it *it, enum policy_avtab_form f)
{
	if (f == POLICY_FORM_CHAINED && (it->n->spec & SP_AVTAB_XPERMS))
		return (uint32_t)(it->n->u.xp - it->t->xperms);
	return it_raw(it, f);
}

/* the entry's key, as stored */
static sp_always_inline void it_key(const struct avtab_it *it, enum policy_avtab_form f,
				    uint16_t *s, uint16_t *tt, uint16_t *c)
{
	if (f == POLICY_FORM_CHAINED) {
		*s = it->n->s, *tt = it->n->t, *c = it->n->c;
	} else if (f == POLICY_FORM_ARRAY) {
		const struct array_node *x = &it->t->u.ar.nodes[it->i];
		*s = x->s, *tt = x->t, *c = x->c;
	} else if (f == POLICY_FORM_COMPACT) {
		flatc_unpack(it->t, it->t->u.fl.cb[it->i].key[it->j], s, tt, c);
	} else {
		const struct flat_bucket *bk = &it->t->u.fl.b[it->i];
		*s = bk->s[it->j], *tt = bk->t[it->j], *c = bk->c[it->j];
	}
}

/* the entry as the API gives it, under key (s, tt, c) */
static sp_always_inline void it_entry(const struct avtab_it *it, enum policy_avtab_form f,
				      uint16_t s, uint16_t tt, uint16_t c, struct sp_avtab_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->source = s, e->target = tt, e->tclass = c;
	e->specified = (uint16_t)(it_kind(it, f) | (it_enabled(it, f) ? SP_AVTAB_ENABLED : 0));
	e->data = it_data(it, f);
	if (e->specified & SP_AVTAB_XPERMS)
		e->xperms = &it->t->xperms[e->data];
}

/* chains: from it->n on, the first node of the key with a sought kind (the chain is sorted) */
static sp_always_inline int chained_scan(struct avtab_it *it)
{
	for (const struct chained_node *cur = it->n; cur; cur = cur->next) {
		int cmp = key_cmp(it->s, it->tt, it->c, cur->s, cur->t, cur->c);
		if (!cmp && (cur->spec & it->mask)) {
			it->n = cur;
			return 1;
		}
		if (cmp < 0)
			break;
	}
	return 0;
}

static sp_always_inline int array_scan(struct avtab_it *it)
{
	const struct array_node *nodes = it->t->u.ar.nodes;
	for (uint32_t cur = it->i; cur != UINT32_MAX; cur = nodes[cur].next) {
		int cmp = key_cmp(it->s, it->tt, it->c, nodes[cur].s, nodes[cur].t, nodes[cur].c);
		if (!cmp && (nodes[cur].spec & it->mask)) {
			it->i = cur;
			return 1;
		}
		if (cmp < 0)
			break;
	}
	return 0;
}

/* flat: the next bucket of the probe sequence and its matching slots, or 0 at its end */
static sp_always_inline int flat_step(struct avtab_it *it, enum policy_avtab_form f)
{
	const struct sp_avtab *t = it->t;
	if (f == POLICY_FORM_COMPACT) {
		if (!it->more || !flatc_more(t, &it->i, it->d++, it->dmax))
			return 0;
		it->m = policy_flatc_match(&t->u.fl.cb[it->i], it->k);
		it->meta = t->u.fl.cb[it->i].meta;
		return 1;
	}
	if (!flat_more(t, &it->i, it->d++, it->dmax))
		return 0;
	it->m = flat_match(&t->u.fl.b[it->i], it->s, it->tt, it->c);
	it->meta = t->u.fl.b[it->i].meta;
	return 1;
}

/* flat: the next matching slot (this bucket's first, then the following buckets') of a sought kind */
static sp_always_inline int flat_scan(struct avtab_it *it, enum policy_avtab_form f)
{
	do {
		while (it->m) {
			it->j = (unsigned)__builtin_ctz(it->m);
			it->m &= it->m - 1;
			if (policy_flat_code_spec[it_code(it, f)] & it->mask)
				return 1;
		}
	} while (flat_step(it, f));
	return 0;
}

/* Start a probe: 1 at the key's first entry of a sought kind, 0 if there is none. */
static sp_always_inline int it_first(struct avtab_it *it, const struct sp_avtab *t,
				     enum policy_avtab_form f, uint16_t s, uint16_t tt, uint16_t c,
				     uint16_t mask)
{
	it->t = t;
	it->s = s, it->tt = tt, it->c = c, it->mask = mask;
	if (f == POLICY_FORM_COMPACT) {
		if (!(it->k = policy_flatc_key(t, s, tt, c)))	/* nslot >= 1 for flat tables */
			return 0;
		uint64_t h = policy_flatc_mix(it->k);
		it->i = policy_flatc_home(t, h);
		const struct flatc_bucket *hb = &t->u.fl.cb[it->i];
		it->d = 0;
		it->meta = hb->meta;
		it->dmax = flat_disp(hb->meta);
		it->more = (hb->ovf & policy_flatc_fbit(h)) != 0;
		it->m = policy_flatc_match(hb, it->k);
		return flat_scan(it, f);
	}
	if (unlikely(!t->nslot))
		return 0;
	if (f == POLICY_FORM_CHAINED) {
		it->n = t->u.ch.slots[avtab_hash(s, tt, c) & t->mask];
		return chained_scan(it);
	}
	if (f == POLICY_FORM_ARRAY) {
		it->i = t->u.ar.heads[avtab_hash(s, tt, c) & t->mask];
		return array_scan(it);
	}
	it->i = flat_home(t, s, tt, c);
	it->d = 0;
	it->meta = t->u.fl.b[it->i].meta;
	it->dmax = flat_disp(it->meta);
	it->m = flat_match(&t->u.fl.b[it->i], s, tt, c);
	return flat_scan(it, f);
}

/* Advance a probe: 1 at the key's next entry of a sought kind, 0 at the end. */
static sp_always_inline int it_next(struct avtab_it *it, enum policy_avtab_form f)
{
	if (f == POLICY_FORM_CHAINED) {
		it->n = it->n->next;
		return chained_scan(it);
	}
	if (f == POLICY_FORM_ARRAY) {
		it->i = it->t->u.ar.nodes[it->i].next;
		return array_scan(it);
	}
	return flat_scan(it, f);
}

/* A walk from the position on: 1 at the first entry there or after it, 0 past the last. */
static sp_always_inline int walk_settle(struct avtab_it *it, enum policy_avtab_form f)
{
	const struct sp_avtab *t = it->t;
	if (f == POLICY_FORM_CHAINED) {
		while (!it->n) {
			if (++it->i >= t->nslot)
				return 0;
			it->n = t->u.ch.slots[it->i];
		}
		return 1;
	}
	if (f == POLICY_FORM_ARRAY)
		return it->i < (t->nslot ? t->nel : 0);
	for (; it->i < t->nslot; it->i++, it->j = 0) {
		if (f == POLICY_FORM_COMPACT && it->j < FLATC_SLOTS && t->u.fl.cb[it->i].key[it->j]) {
			it->meta = t->u.fl.cb[it->i].meta;
			return 1;
		}
		if (f == POLICY_FORM_WIDE && it->j < (t->u.fl.b[it->i].meta & 7)) {
			it->meta = t->u.fl.b[it->i].meta;
			return 1;
		}
	}
	return 0;
}

static sp_always_inline int walk_first(struct avtab_it *it, const struct sp_avtab *t,
				       enum policy_avtab_form f)
{
	it->t = t;
	it->i = 0, it->j = 0;
	it->n = f == POLICY_FORM_CHAINED && t->nslot ? t->u.ch.slots[0] : NULL;
	return walk_settle(it, f);
}

static sp_always_inline int walk_next(struct avtab_it *it, enum policy_avtab_form f)
{
	if (f == POLICY_FORM_CHAINED)
		it->n = it->n->next;
	else if (f == POLICY_FORM_ARRAY)
		it->i++;
	else
		it->j++;
	return walk_settle(it, f);
}

/* ---- the wide form's fill ---- */

/*
 * The wide form's fill: every rule placed in turn.  Merged tables fold a key's repeated kind
 * into its entry (allow/auditallow OR, auditdeny AND, type rules: last wins) instead of adding
 * one; te tables reject a repeated kind (not xperms: -EEXIST); conditional tables keep every
 * rule.
 */
static int flat_fill(struct sp_avtab *t, const struct policy_rule *r, uint32_t n,
		     const uint8_t *en)
{
	const int merge = t->kind == POLICY_AVTAB_MERGED;
	uint32_t placed = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct policy_rule *x = &r[i];
		struct avtab_it it;
		if (merge || (t->kind == POLICY_AVTAB_TE && !(x->spec & SP_AVTAB_XPERMS))) {
			int found = it_first(&it, t, POLICY_FORM_WIDE, x->s, x->t, x->c, x->spec);
			if (found && !merge)
				return -EEXIST;
			if (found) {
				merge_datum(&t->u.fl.b[it.i].data[it.j], x->spec, x->data);
				continue;
			}
		}
		unsigned on = en ? en[i] : 0;
		int rc = flat_place(t, (struct flat_ent){ x->s, x->t, x->c, spec_code(x->spec), on,
							  x->data });
		if (rc)
			return rc;
		placed++;
	}
	t->nel = placed;
	return 0;
}

static int flat_build(struct sp_avtab *t, const struct policy_rules *rs)
{
	const struct policy_rule *r = rs->r;
	const uint8_t *en = rs->enabled;
	uint32_t n = rs->n;
	t->form = flatc_fits(t, rs) ? POLICY_FORM_COMPACT : POLICY_FORM_WIDE;
	uint64_t nb = t->form == POLICY_FORM_COMPACT
			      ? ((uint64_t)n * 100 + FLATC_PCT * FLATC_SLOTS - 1) / (FLATC_PCT * FLATC_SLOTS)
			      : ((uint64_t)n * 100 + 449) / 450;	/* 6 slots at 0.75 */
	if (nb < 1)
		nb = 1;
	if (nb > UINT32_MAX / 2)
		return -ENOMEM;
	t->nslot = (uint32_t)nb;
	/* the compact fill writes every bucket and enabled byte (flatc_lay); the wide one adds */
	void *(*get)(const struct sp_allocator *, size_t, size_t) =
		t->form == POLICY_FORM_COMPACT ? sp_alloc : sp_zalloc;
	t->u.fl.b = get(t->alloc, nb * sizeof(struct flat_bucket), 64);
	if (!t->u.fl.b)
		return -ENOMEM;
	if (t->kind == POLICY_AVTAB_COND) {
		t->u.fl.enabled = get(t->alloc, nb, 0);
		if (!t->u.fl.enabled)
			return -ENOMEM;
	}
	t->bytes = nb * sizeof(struct flat_bucket) + (t->u.fl.enabled ? nb : 0);
	return t->form == POLICY_FORM_COMPACT ? flatc_fill(t, r, n, en) : flat_fill(t, r, n, en);
}

/* ---- the operations, once over the iterator; instantiated per form ---- */

/* Run op(t, FORM, ...) with the table's form as a constant. */
#define BY_FORM(t, op, ...)                                                                        \
	((t)->form == POLICY_FORM_COMPACT ? op(t, POLICY_FORM_COMPACT, __VA_ARGS__)                \
	 : (t)->form == POLICY_FORM_CHAINED ? op(t, POLICY_FORM_CHAINED, __VA_ARGS__)              \
	 : (t)->form == POLICY_FORM_ARRAY ? op(t, POLICY_FORM_ARRAY, __VA_ARGS__)                  \
					  : op(t, POLICY_FORM_WIDE, __VA_ARGS__))

static sp_always_inline int search_in(const struct sp_avtab *t, enum policy_avtab_form f,
				      uint16_t s, uint16_t tt, uint16_t c, uint16_t mask,
				      uint32_t *data)
{
	struct avtab_it it;
	if (!it_first(&it, t, f, s, tt, c, mask & (uint16_t)~SP_AVTAB_ENABLED))
		return 0;
	*data = it_data(&it, f);
	return 1;
}

/*
 * avtab_search, one small function per form, reached through t->search: the one dispatch of a
 * search is that indirect call (a shared switch would be paid by every lookup).
 */
static sp_noinline int chained_search(const struct sp_avtab *t, uint16_t s, uint16_t tt,
				      uint16_t c, uint16_t mask, uint32_t *data)
{
	return search_in(t, POLICY_FORM_CHAINED, s, tt, c, mask, data);
}

static sp_noinline int array_search(const struct sp_avtab *t, uint16_t s, uint16_t tt,
				    uint16_t c, uint16_t mask, uint32_t *data)
{
	return search_in(t, POLICY_FORM_ARRAY, s, tt, c, mask, data);
}

static sp_noinline int wide_search(const struct sp_avtab *t, uint16_t s, uint16_t tt,
				   uint16_t c, uint16_t mask, uint32_t *data)
{
	return search_in(t, POLICY_FORM_WIDE, s, tt, c, mask, data);
}

/*
 * The rest of a compact search once the home line missed and its filter bit is set (rare:
 * entries placed past their home): the probe resumed after the home line.  It recomputes the
 * home from the key, so the inline hot path (flat.h) keeps few values live and tail-calls it.
 */
sp_noinline int policy_flatc_search_far(const struct sp_avtab *t, uint32_t k, uint32_t mask,
					uint32_t *data)
{
	struct avtab_it it;
	it.t = t, it.mask = (uint16_t)mask, it.k = k;
	it.more = 1, it.m = 0, it.d = 0;	/* the home line is done: step past it */
	it.i = policy_flatc_home(t, policy_flatc_mix(k));
	it.meta = t->u.fl.cb[it.i].meta;
	it.dmax = flat_disp(it.meta);
	if (!flat_scan(&it, POLICY_FORM_COMPACT))
		return 0;
	*data = it_raw(&it, POLICY_FORM_COMPACT);
	return 1;
}

/* The compact form's search: the specialised inline hot path of flat.h. */
static sp_noinline int compact_search(const struct sp_avtab *t, uint16_t s, uint16_t tt,
				      uint16_t c, uint16_t mask, uint32_t *data)
{
	return policy_flatc_search(t, s, tt, c, mask & (uint16_t)~SP_AVTAB_ENABLED, data);
}

static sp_always_inline size_t lookup_in(const struct sp_avtab *t, enum policy_avtab_form f,
					 uint16_t s, uint16_t tt, uint16_t c, uint16_t mask,
					 struct sp_avtab_entry *out, size_t max)
{
	struct avtab_it it;
	size_t n = 0;
	for (int ok = it_first(&it, t, f, s, tt, c, mask); ok; ok = it_next(&it, f), n++)
		if (n < max)
			it_entry(&it, f, s, tt, c, &out[n]);
	return n;
}

static sp_always_inline int foreach_in(const struct sp_avtab *t, enum policy_avtab_form f,
				       int (*fn)(void *ud, const struct sp_avtab_entry *e), void *ud)
{
	struct avtab_it it;
	struct sp_avtab_entry e;
	for (int ok = walk_first(&it, t, f); ok; ok = walk_next(&it, f)) {
		uint16_t s, tt, c;
		it_key(&it, f, &s, &tt, &c);
		it_entry(&it, f, s, tt, c, &e);
		int rc = fn(ud, &e);
		if (rc)
			return rc;
	}
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

/*
 * The decision inner step.  Unconditional tables fold every AV entry; conditional ones only the
 * enabled ones (chained/array: the kernel's 0x8000 bit; flat decisions use the merged table,
 * which holds enabled entries only, so its entries need no check).
 */
static sp_always_inline int fold_in(const struct sp_avtab *t, enum policy_avtab_form f,
				    uint16_t s, uint16_t tt, uint16_t c, uint32_t *av)
{
	const int need_en = t->kind == POLICY_AVTAB_COND;
	struct avtab_it it;
	for (int ok = it_first(&it, t, f, s, tt, c, SP_AVTAB_AV); ok; ok = it_next(&it, f))
		if (!need_en || it_enabled(&it, f))
			fold_one(it_kind(&it, f), it_raw(&it, f), av);
	return 0;
}

/* ---- one API ---- */

int policy_avtab_build(struct sp_avtab *t, enum sp_avtab_layout layout,
		       enum policy_avtab_kind kind, const struct policy_rules *rs,
		       const struct sp_avtab_xperms *xperms, struct sp_slab_cache *nodes,
		       const struct sp_allocator *a)
{
	static int (*const search[])(const struct sp_avtab *, uint16_t, uint16_t, uint16_t,
				     uint16_t, uint32_t *) = {
		[POLICY_FORM_CHAINED] = chained_search, [POLICY_FORM_ARRAY] = array_search,
		[POLICY_FORM_WIDE] = wide_search, [POLICY_FORM_COMPACT] = compact_search,
	};
	memset(t, 0, sizeof(*t));
	t->form = layout == SP_AVTAB_ARRAY ? POLICY_FORM_ARRAY : POLICY_FORM_CHAINED;
	t->kind = kind;
	t->nel = rs->n;
	t->xperms = xperms;
	t->alloc = a;
	int rc;
	switch (layout) {
	case SP_AVTAB_CHAINED:
		t->u.ch.nodes = nodes;
		rc = chained_build(t, rs->r, rs->n, rs->hint, rs->enabled);
		break;
	case SP_AVTAB_ARRAY:
		rc = array_build(t, rs->r, rs->n, rs->enabled);
		break;
	case SP_AVTAB_FLAT:
		rc = flat_build(t, rs);	/* sets the form */
		break;
	default:
		rc = -EINVAL;
	}
	if (rc) {
		policy_avtab_destroy(t);
		return rc;
	}
	t->search = search[t->form];
	SP_ASSERT_EXPENSIVE(policy_avtab_is_valid(t));
	return 0;
}

void policy_avtab_destroy(struct sp_avtab *t)
{
	switch (t->form) {
	case POLICY_FORM_CHAINED:
		/* avtab_destroy: every node back to the cache, one by one */
		for (uint32_t i = 0; t->u.ch.slots && i < t->nslot; i++)
			for (struct chained_node *x = t->u.ch.slots[i], *nx; x; x = nx) {
				nx = x->next;
				sp_slab_cache_free(t->u.ch.nodes, x);
			}
		sp_free(t->alloc, t->u.ch.slots, (size_t)t->nslot * sizeof(void *));
		break;
	case POLICY_FORM_ARRAY:
		sp_free(t->alloc, t->u.ar.heads, (size_t)t->nslot * sizeof(uint32_t));
		sp_free(t->alloc, t->u.ar.nodes, (size_t)t->nel * sizeof(struct array_node));
		break;
	case POLICY_FORM_WIDE:
	case POLICY_FORM_COMPACT:
		sp_free(t->alloc, t->u.fl.b, (size_t)t->nslot * sizeof(struct flat_bucket));
		sp_free(t->alloc, t->u.fl.enabled, t->nslot);
		break;
	}
	memset(&t->u, 0, sizeof(t->u));
	t->nslot = 0;
}

size_t policy_avtab_lookup(const struct sp_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
			   uint16_t mask, struct sp_avtab_entry *out, size_t max)
{
	mask &= (uint16_t)~SP_AVTAB_ENABLED;
	return BY_FORM(t, lookup_in, s, tt, c, mask, out, max);
}

int policy_avtab_foreach(const struct sp_avtab *t,
			 int (*fn)(void *ud, const struct sp_avtab_entry *e), void *ud)
{
	return BY_FORM(t, foreach_in, fn, ud);
}

void policy_avtab_fold(const struct sp_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
		       uint32_t av[3])
{
	(void)BY_FORM(t, fold_in, s, tt, c, av);
}

/* ---- the invariant walker (SP_ASSERT_EXPENSIVE after every build) ---- */

/* One kind bit, plus ENABLED only in a conditional table. */
static int spec_ok(const struct sp_avtab *t, uint16_t spec)
{
	uint16_t kind = spec & (uint16_t)~SP_AVTAB_ENABLED;
	if (spec != kind && t->kind != POLICY_AVTAB_COND)
		return 0;
	return __builtin_popcount(kind) == 1 &&
	       (kind & (SP_AVTAB_AV | SP_AVTAB_TYPE | SP_AVTAB_XPERMS)) != 0;
}

/* te and merged tables: the entry at `at` is its key's only entry of its kind (but xperms). */
static int unique_ok(const struct sp_avtab *t, enum policy_avtab_form f,
		     const struct avtab_it *at)
{
	uint16_t kind = it_kind(at, f), s, tt, c;
	if (t->kind == POLICY_AVTAB_COND || (kind & SP_AVTAB_XPERMS))
		return 1;
	it_key(at, f, &s, &tt, &c);
	struct avtab_it it = { 0 };	/* f is not a constant here */
	int n = 0;
	for (int ok = it_first(&it, t, f, s, tt, c, kind); ok; ok = it_next(&it, f))
		n++;
	return n == 1;
}

/* chained and array: every chain sorted, each node in its hash slot, nel nodes in all */
static int chains_ok(const struct sp_avtab *t, enum policy_avtab_form f)
{
	uint64_t seen = 0;
	if ((t->nslot & (t->nslot - 1)) || (t->nslot && t->mask != t->nslot - 1))
		return 0;
	for (uint32_t b = 0; b < t->nslot; b++) {
		struct avtab_it it = { .t = t };
		uint16_t ps = 0, pt = 0, pc = 0;
		if (f == POLICY_FORM_CHAINED)
			it.n = t->u.ch.slots[b];
		else
			it.i = t->u.ar.heads[b];
		for (uint32_t steps = 0; f == POLICY_FORM_CHAINED ? it.n != NULL : it.i != UINT32_MAX;
		     steps++) {
			if (steps == t->nel || (f == POLICY_FORM_ARRAY && it.i >= t->nel))
				return 0;	/* a cycle, or a link out of the node array */
			uint16_t s, tt, c, spec;
			it_key(&it, f, &s, &tt, &c);
			spec = f == POLICY_FORM_CHAINED ? it.n->spec : t->u.ar.nodes[it.i].spec;
			if ((avtab_hash(s, tt, c) & t->mask) != b || !spec_ok(t, spec) ||
			    (steps && key_cmp(ps, pt, pc, s, tt, c) > 0) || !unique_ok(t, f, &it))
				return 0;
			ps = s, pt = tt, pc = c;
			seen++;
			if (f == POLICY_FORM_CHAINED)
				it.n = it.n->next;
			else
				it.i = t->u.ar.nodes[it.i].next;
		}
	}
	return seen == (t->nslot ? t->nel : 0);
}

/* flat: an entry in bucket b homed at `home` is within its home's disp (or the disp is
 * saturated) and every bucket from its home up to b is full */
static int reach_ok(const struct sp_avtab *t, enum policy_avtab_form f, uint32_t home,
		    uint32_t b)
{
	uint32_t d = flat_dist(t, home, b);
	uint32_t meta = f == POLICY_FORM_COMPACT ? t->u.fl.cb[home].meta : t->u.fl.b[home].meta;
	if (d > flat_disp(meta) && flat_disp(meta) != FLAT_DISP_MAX)
		return 0;
	for (uint32_t x = home; x != b; x = x + 1 == t->nslot ? 0 : x + 1)
		if (f == POLICY_FORM_COMPACT ? !t->u.fl.cb[x].key[FLATC_SLOTS - 1]
					     : (t->u.fl.b[x].meta & 7) != FLAT_SLOTS)
			return 0;
	return 1;
}

/*
 * One flat bucket: used slots first, each with a kind code 1..9, empty ones with none; compact
 * (flat.h): every stored key >= nt * nc (and below ns * nt * nc), 0 marks an empty slot, and
 * an entry not in its home line sets its home's overflow bit.  *used = the used slots.
 */
static int bucket_ok(const struct sp_avtab *t, enum policy_avtab_form f, uint32_t b,
		     unsigned *used)
{
	unsigned n, slots = f == POLICY_FORM_COMPACT ? FLATC_SLOTS : FLAT_SLOTS;
	uint32_t meta;
	if (f == POLICY_FORM_COMPACT) {
		const struct flatc_bucket *bk = &t->u.fl.cb[b];
		uint64_t lo = (uint64_t)t->u.fl.nt * t->u.fl.nc, hi = lo * t->u.fl.ns;
		n = flatc_count(bk);
		meta = bk->meta;
		for (unsigned j = 0; j < FLATC_SLOTS; j++) {
			if (j >= n ? bk->key[j] != 0 : bk->key[j] < lo || bk->key[j] >= hi)
				return 0;
			uint64_t h = policy_flatc_mix(bk->key[j]);
			uint32_t home = policy_flatc_home(t, h);
			if (j < n && home != b && !(t->u.fl.cb[home].ovf & policy_flatc_fbit(h)))
				return 0;
		}
	} else {
		meta = t->u.fl.b[b].meta;
		if ((n = meta & 7) > FLAT_SLOTS)
			return 0;
	}
	for (unsigned j = 0; j < slots; j++) {
		unsigned code = f == POLICY_FORM_COMPACT ? policy_flatc_kind(meta, j) : flat_kind(meta, j);
		if (j < n ? !code || code > 9 : code != 0)
			return 0;
	}
	if (t->u.fl.enabled && t->u.fl.enabled[b] >> n)
		return 0;	/* an enabled bit on an empty slot */
	*used = n;
	return 1;
}

/* flat: every bucket's slots, every entry's reach and uniqueness, nel entries in all */
static int flat_ok(const struct sp_avtab *t, enum policy_avtab_form f)
{
	uint64_t seen = 0;
	if (!t->nslot || (t->kind == POLICY_AVTAB_COND) != (t->u.fl.enabled != NULL))
		return 0;
	for (uint32_t b = 0; b < t->nslot; b++) {
		unsigned n;
		if (!bucket_ok(t, f, b, &n))
			return 0;
		for (unsigned j = 0; j < n; j++) {
			struct avtab_it it = { .t = t, .i = b, .j = j };
			it.meta = f == POLICY_FORM_COMPACT ? t->u.fl.cb[b].meta : t->u.fl.b[b].meta;
			uint16_t s, tt, c;
			it_key(&it, f, &s, &tt, &c);
			uint32_t home = f == POLICY_FORM_COMPACT
						? policy_flatc_home(t, policy_flatc_mix(policy_flatc_key(t, s, tt, c)))
						: flat_home(t, s, tt, c);
			if (!reach_ok(t, f, home, b) || !unique_ok(t, f, &it))
				return 0;
		}
		seen += n;
	}
	return seen == t->nel;
}

int policy_avtab_is_valid(const struct sp_avtab *t)
{
	switch (t->form) {
	case POLICY_FORM_CHAINED:
	case POLICY_FORM_ARRAY:
		return t->kind != POLICY_AVTAB_MERGED && chains_ok(t, t->form);
	case POLICY_FORM_WIDE:
	case POLICY_FORM_COMPACT:
		return flat_ok(t, t->form);
	}
	return 0;
}
