/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * avc.c - the access vector cache (security/selinux/avc.c, in user space): full decisions keyed
 * by (source type, target type, class) in nbuckets hash chains (default 512; a key's chain by a
 * multiplicative hash, avc_hash, not the kernel's), one lock per chain for writers.
 *
 * Lifecycle: a hit is lock-free and outside RCU: the chain heads and links are atomics, the
 * nodes type-stable (freed only by sp_avc_free; dropped nodes go to a free list and are reused)
 * and each node's fields are read under its seqcount.  A miss computes through the current
 * policy (read under RCU) and inserts unless the policy generation moved meanwhile.  Above
 * `threshold` nodes, reclaim drops up to 16 nodes scanning buckets round-robin from a moving
 * hint (not an LRU, like the kernel).  Replacing the policy or changing a boolean publishes a new
 * sp_policy with rcu_xchg_pointer, bumps the generation (no node of an older one is a hit),
 * flushes, waits for a grace period and frees the old one; a boolean change shares the old
 * policy's immutable core (only the conditional state is rebuilt), as the kernel's
 * security_set_bools duplicates only the conditional part.
 *
 * Threads calling sp_avc_lookup must be registered with liburcu (a miss reads the policy under
 * RCU): sp_avc_reader_register() wraps rcu_register_thread() with a per-thread nesting count
 * (only the outermost call registers).
 * Statistics are relaxed atomics, the counterpart of the kernel's per-CPU counters.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
/* liburcu's small pointer primitives (rcu_dereference, rcu_assign_pointer...) inline: allowed
 * for code under any licence (liburcu README, URCU_INLINE_SMALL_FUNCTIONS); the read-side lock
 * and unlock inline too (_LGPL_SOURCE, allowed for LGPL/GPL-compatible code, which secpath is)
 * unless the build says URCU_LGPL=0 (see the Makefile).  The Makefile compiles this unit with
 * the initial-exec TLS model, so the reader's per-thread state is one %fs-relative access. */
#if SP_URCU_LGPL
#define _LGPL_SOURCE
#endif
#define URCU_INLINE_SMALL_FUNCTIONS
#include <urcu.h>

#include "policy/policy_int.h"

#define AVC_RECLAIM 16

/* per-thread nesting of sp_avc_reader_register (the registration itself is liburcu's) */
static _Thread_local unsigned avc_reader_depth;

SP_API void sp_avc_reader_register(void)
{
	if (!avc_reader_depth++)
		rcu_register_thread();
}

SP_API void sp_avc_reader_unregister(void)
{
	if (avc_reader_depth && !--avc_reader_depth)
		rcu_unregister_thread();
}

/*
 * A cached decision.  Nodes are type-stable: once allocated, a node is only ever a node of this
 * AVC (in a chain, or on the free list) until sp_avc_free, so a reader holding a stale pointer
 * reads node memory, never freed memory.  seq is a seqcount: odd while a writer (re)initialises
 * the fields, which are atomics read relaxed between two reads of seq.
 */
struct avc_node {
	_Atomic(struct avc_node *) next;	/* the chain, or the free list */
	struct avc_node *all;			/* every node of the AVC (pool lock) */
	atomic_uint seq;
	_Atomic uint64_t st, cg;		/* s | t << 32, c | gen << 32 (node_key) */
	_Atomic uint64_t avd01, avd23;		/* allowed | auditallow << 32, auditdeny | flags << 32 */
	_Atomic uint32_t avd4;			/* seqno */
};

static inline uint64_t node_key(uint32_t lo, uint32_t hi)
{
	return lo | (uint64_t)hi << 32;
}

/* The generation as kept (sp_avc.gen): already in node_key's high half. */
#define AVC_GEN_ONE (1ull << 32)
#define AVC_GEN_MASK (~0ull << 32)

struct sp_avc {
	struct sp_policy *policy;	/* RCU-protected */
	_Atomic uint64_t gen;		/* the generation << 32: a node key's high half (node_key) */
	unsigned nbuckets, mask, threshold;
	pthread_mutex_t *lock;			/* nbuckets: the writers' lock of each chain */
	atomic_uint active;
	atomic_uint hint;
	pthread_mutex_t writer;		/* serialises policy and boolean changes */
	pthread_mutex_t pool;		/* free and all */
	/* the pool: every node ever allocated is on `all`; a new decision takes a free node
	 * first, so the pool holds at most the peak number of nodes cached at once (about
	 * threshold, plus the inserts racing a reclaim) */
	struct avc_node *free, *all;
	atomic_uint_fast64_t hits, misses, allocations, reclaims, frees;	/* lookups = hits + misses */
	_Atomic(struct avc_node *) head[];	/* nbuckets chain heads (the readers' array), inline:
						 * a lookup reaches its chain in one load */
};

/* Chain steps a lock-free lookup takes before it calls the rest a miss: a reader that followed a
 * reused node's link into another chain (or the free list) stops; a miss is always correct. */
#define AVC_HOPS 64

/*
 * The chain of (s, t, c): one multiply of the packed key with c folded in at bit 20, its bits
 * 32 and up (every key bit below them reaches them).  The multiplier is odd and fits a signed
 * 32-bit immediate, so the multiply is one instruction.  The kernel's avc_hash,
 * s ^ t << 2 ^ c << 4, sends triples whose values differ in a few low bits to the same chains.
 */
static inline unsigned avc_hash(const struct sp_avc *a, uint32_t s, uint32_t t, uint32_t c)
{
	return (unsigned)(((node_key(s, t) ^ (uint64_t)c << 20) * 0x7f4a7c15ull) >> 32) & a->mask;
}

SP_API int sp_avc_create(struct sp_policy *p, const struct sp_avc_opts *o, struct sp_avc **out)
{
	unsigned nb = SP_OPTS_HAS(o, nbuckets) && o->nbuckets ? o->nbuckets : 512;
	if (!p || !SP_IS_POW2(nb))
		return -EINVAL;
	struct sp_avc *a = calloc(1, sizeof(*a) + nb * sizeof(a->head[0]));
	if (!a)
		return -ENOMEM;
	a->lock = calloc(nb, sizeof(*a->lock));
	if (!a->lock) {
		free(a);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < nb; i++)
		pthread_mutex_init(&a->lock[i], NULL);
	a->nbuckets = nb;
	a->mask = nb - 1;
	a->threshold = SP_OPTS_HAS(o, threshold) && o->threshold ? o->threshold : 512;
	pthread_mutex_init(&a->writer, NULL);
	pthread_mutex_init(&a->pool, NULL);
	a->policy = p;
	*out = a;
	return 0;
}

/* A node for a new decision: from the free list, else allocated (and listed in all). */
static struct avc_node *node_get(struct sp_avc *a)
{
	pthread_mutex_lock(&a->pool);
	struct avc_node *n = a->free;
	if (n) {
		a->free = atomic_load_explicit(&n->next, memory_order_relaxed);
	} else if ((n = calloc(1, sizeof(*n)))) {
		n->all = a->all;
		a->all = n;
	}
	pthread_mutex_unlock(&a->pool);
	return n;
}

/* n back on the free list; it keeps its fields (a stale reader may still read them) and its
 * link until reused. */
static void node_put(struct sp_avc *a, struct avc_node *n)
{
	pthread_mutex_lock(&a->pool);
	atomic_store_explicit(&n->next, a->free, memory_order_release);
	a->free = n;
	pthread_mutex_unlock(&a->pool);
}

/* The seqcount write side: odd, the fields, even.  The field stores are releases (each orders
 * the odd count before it) and the readers' field loads acquires (each orders the count's
 * re-read after it): no fence, the same plain moves on x86, and a form TSan checks. */
static void node_fill(struct avc_node *n, uint64_t kst, uint64_t kcg,
		      const struct sp_av_decision *d)
{
	unsigned q = atomic_load_explicit(&n->seq, memory_order_relaxed);
	atomic_store_explicit(&n->seq, q + 1, memory_order_relaxed);
	atomic_store_explicit(&n->st, kst, memory_order_release);
	atomic_store_explicit(&n->cg, kcg, memory_order_release);
	atomic_store_explicit(&n->avd01, node_key(d->allowed, d->auditallow), memory_order_release);
	atomic_store_explicit(&n->avd23, node_key(d->auditdeny, d->flags), memory_order_release);
	atomic_store_explicit(&n->avd4, d->seqno, memory_order_release);
	atomic_store_explicit(&n->seq, q + 2, memory_order_release);
}

/* Unlink *link's node (the caller holds its chain's lock) and put it on the free list. */
static void node_drop(struct sp_avc *a, _Atomic(struct avc_node *) *link)
{
	struct avc_node *n = atomic_load_explicit(link, memory_order_relaxed);
	atomic_store_explicit(link, atomic_load_explicit(&n->next, memory_order_relaxed),
			      memory_order_release);
	node_put(a, n);
	atomic_fetch_sub_explicit(&a->active, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->frees, 1, memory_order_relaxed);
}

/* Free up to AVC_RECLAIM nodes, scanning buckets from the moving hint (avc_reclaim_node). */
static void avc_reclaim(struct sp_avc *a)
{
	unsigned freed = 0;
	for (unsigned tries = 0; tries < a->nbuckets && freed < AVC_RECLAIM; tries++) {
		unsigned i = atomic_fetch_add_explicit(&a->hint, 1, memory_order_relaxed) & a->mask;
		if (pthread_mutex_trylock(&a->lock[i]))
			continue;
		while (freed < AVC_RECLAIM && atomic_load_explicit(&a->head[i], memory_order_relaxed)) {
			node_drop(a, &a->head[i]);
			atomic_fetch_add_explicit(&a->reclaims, 1, memory_order_relaxed);
			freed++;
		}
		pthread_mutex_unlock(&a->lock[i]);
	}
}

/* Insert d for the key (kst, kcg) in chain hv, replacing any node of the same (s, t, c), unless
 * the generation moved since the lookup read it (that change's flush would miss it). */
static void avc_insert(struct sp_avc *a, uint64_t kst, uint64_t kcg, unsigned hv,
		       const struct sp_av_decision *d)
{
	struct avc_node *nn = node_get(a);
	if (!nn)
		return;		/* the decision stands; caching is best effort */
	node_fill(nn, kst, kcg, d);
	pthread_mutex_lock(&a->lock[hv]);
	if (atomic_load_explicit(&a->gen, memory_order_acquire) != (kcg & AVC_GEN_MASK)) {
		pthread_mutex_unlock(&a->lock[hv]);
		node_put(a, nn);
		return;
	}
	_Atomic(struct avc_node *) *link = &a->head[hv];
	for (struct avc_node *n; (n = atomic_load_explicit(link, memory_order_relaxed));) {
		if (atomic_load_explicit(&n->st, memory_order_relaxed) == kst &&
		    (uint32_t)atomic_load_explicit(&n->cg, memory_order_relaxed) == (uint32_t)kcg)
			node_drop(a, link);	/* replace a stale or racing entry */
		else
			link = &n->next;
	}
	atomic_store_explicit(&nn->next, atomic_load_explicit(&a->head[hv], memory_order_relaxed),
			      memory_order_relaxed);
	atomic_store_explicit(&a->head[hv], nn, memory_order_release);
	pthread_mutex_unlock(&a->lock[hv]);
	atomic_fetch_add_explicit(&a->allocations, 1, memory_order_relaxed);
	if (atomic_fetch_add_explicit(&a->active, 1, memory_order_relaxed) + 1 > a->threshold)
		avc_reclaim(a);
}

/* A miss of the key kst = node_key(s, t), kcg = node_key(c, gen): the decision computed
 * through the current policy (read under RCU) and inserted. */
static sp_noinline int avc_miss(struct sp_avc *a, uint64_t kst, uint64_t kcg,
				struct sp_av_decision *avd)
{
	uint32_t s = (uint32_t)kst, t = (uint32_t)(kst >> 32), c = (uint32_t)kcg;
	rcu_read_lock();
	struct sp_policy *p = rcu_dereference(a->policy);
	int rc = sp_policy_compute_av(p, s, t, c, avd);
	rcu_read_unlock();
	atomic_fetch_add_explicit(&a->misses, 1, memory_order_relaxed);
	if (!rc)
		avc_insert(a, kst, kcg, avc_hash(a, s, t, c), avd);
	return rc;
}

/*
 * Node n's decision into *avd if n holds the key (kst, kcg): 1 when read under an even and
 * unchanged seqcount, -1 when the key matched but a writer was (re)initialising the node, 0 for
 * another key.
 */
static sp_always_inline int node_read(const struct avc_node *n, uint64_t kst, uint64_t kcg,
				      struct sp_av_decision *avd)
{
	unsigned q = atomic_load_explicit(&n->seq, memory_order_acquire);
	if (atomic_load_explicit(&n->st, memory_order_acquire) != kst ||
	    atomic_load_explicit(&n->cg, memory_order_acquire) != kcg)
		return 0;
	uint64_t d01 = atomic_load_explicit(&n->avd01, memory_order_acquire);
	uint64_t d23 = atomic_load_explicit(&n->avd23, memory_order_acquire);
	uint32_t d4 = atomic_load_explicit(&n->avd4, memory_order_acquire);
	/* q odd (a writer was at work) never equals q & ~1, nor does a count that moved */
	if (atomic_load_explicit(&n->seq, memory_order_relaxed) != (q & ~1u))
		return -1;
	avd->allowed = (uint32_t)d01;
	avd->auditallow = (uint32_t)(d01 >> 32);
	avd->auditdeny = (uint32_t)d23;
	avd->flags = (uint32_t)(d23 >> 32);
	avd->seqno = d4;
	return 1;
}

/* The chain after node n (which did not hold the key), at most hops more nodes, then a miss. */
static sp_noinline int avc_search(struct sp_avc *a, const struct avc_node *n, unsigned hops,
				  uint64_t kst, uint64_t kcg, struct sp_av_decision *avd)
{
	for (; hops; hops--) {
		if (!(n = atomic_load_explicit(&n->next, memory_order_acquire)))
			break;
		int r = node_read(n, kst, kcg, avd);
		if (r > 0) {
			atomic_fetch_add_explicit(&a->hits, 1, memory_order_relaxed);
			return 0;
		}
		if (r < 0)
			break;
	}
	return avc_miss(a, kst, kcg, avd);
}

/*
 * A hit takes no lock and no RCU read-side section: the chain is walked through type-stable
 * nodes, and a node's decision counts only if its key and generation match and its seqcount was
 * even and unchanged around the reads.  A decision so read was cached for the generation the
 * lookup began in, which is what an RCU reader could have seen.  A hit at the chain's first two
 * nodes is the inline path (with 256 triples cached in 512 chains, about a fifth of them sit
 * second); the rest of the chain (at most AVC_HOPS nodes in all) and a miss are tail calls given
 * the packed key (few live values), so a hit saves no registers.  Each inline hit returns on its
 * own: with one shared exit gcc merges the two copies of the decision and stores it in halves.
 */
SP_API int sp_avc_lookup(struct sp_avc *a, uint32_t s, uint32_t t, uint32_t c,
			 struct sp_av_decision *avd)
{
	uint64_t kst = node_key(s, t),
		 kcg = c | atomic_load_explicit(&a->gen, memory_order_acquire);	/* node_key */
	const struct avc_node *n = atomic_load_explicit(&a->head[avc_hash(a, s, t, c)],
							memory_order_acquire);
	int r = n ? node_read(n, kst, kcg, avd) : 0;
	if (likely(r > 0)) {
		atomic_fetch_add_explicit(&a->hits, 1, memory_order_relaxed);
		return 0;
	}
	if (r < 0 || !n)
		return avc_miss(a, kst, kcg, avd);
	const struct avc_node *n2 = atomic_load_explicit(&n->next, memory_order_acquire);
	r = n2 ? node_read(n2, kst, kcg, avd) : 0;
	if (r > 0) {
		atomic_fetch_add_explicit(&a->hits, 1, memory_order_relaxed);
		return 0;
	}
	if (r < 0 || !n2)
		return avc_miss(a, kst, kcg, avd);
	return avc_search(a, n2, AVC_HOPS - 2, kst, kcg, avd);
}

SP_API void sp_avc_flush(struct sp_avc *a)
{
	for (unsigned i = 0; i < a->nbuckets; i++) {
		pthread_mutex_lock(&a->lock[i]);
		while (atomic_load_explicit(&a->head[i], memory_order_relaxed))
			node_drop(a, &a->head[i]);
		pthread_mutex_unlock(&a->lock[i]);
	}
}

/* Publish np, invalidate the cache, free the old policy after a grace period. */
static void publish(struct sp_avc *a, struct sp_policy *np)
{
	struct sp_policy *old = rcu_xchg_pointer(&a->policy, np);
	atomic_fetch_add_explicit(&a->gen, AVC_GEN_ONE, memory_order_release);
	sp_avc_flush(a);
	synchronize_rcu();
	sp_policy_free(old);
}

SP_API int sp_avc_set_policy(struct sp_avc *a, struct sp_policy *np)
{
	if (!np)
		return -EINVAL;
	pthread_mutex_lock(&a->writer);
	publish(a, np);
	pthread_mutex_unlock(&a->writer);
	return 0;
}

SP_API int sp_avc_set_bool(struct sp_avc *a, uint32_t b, int state)
{
	pthread_mutex_lock(&a->writer);
	struct sp_policy *np;
	/* the writer lock keeps a->policy stable; readers may still be using it */
	int rc = policy_clone_with_bool(a->policy, b, state, &np);
	if (!rc)
		publish(a, np);
	pthread_mutex_unlock(&a->writer);
	return rc;
}

SP_API void sp_avc_get_stats(struct sp_avc *a, struct sp_avc_stats *st)
{
	st->hits = atomic_load(&a->hits);
	st->misses = atomic_load(&a->misses);
	st->lookups = st->hits + st->misses;
	st->allocations = atomic_load(&a->allocations);
	st->reclaims = atomic_load(&a->reclaims);
	st->frees = atomic_load(&a->frees);
	st->entries = st->buckets_used = st->longest_chain = 0;
	st->buckets = a->nbuckets;
	for (unsigned i = 0; i < a->nbuckets; i++) {
		uint32_t len = 0;
		pthread_mutex_lock(&a->lock[i]);
		for (struct avc_node *n = atomic_load_explicit(&a->head[i], memory_order_relaxed); n;
		     n = atomic_load_explicit(&n->next, memory_order_relaxed))
			len++;
		pthread_mutex_unlock(&a->lock[i]);
		st->entries += len;
		st->buckets_used += len != 0;
		if (len > st->longest_chain)
			st->longest_chain = len;
	}
}

SP_API void sp_avc_free(struct sp_avc *a)
{
	if (!a)
		return;
	for (struct avc_node *n = a->all, *nx; n; n = nx) {
		nx = n->all;
		free(n);
	}
	sp_policy_free(a->policy);
	for (unsigned i = 0; i < a->nbuckets; i++)
		pthread_mutex_destroy(&a->lock[i]);
	pthread_mutex_destroy(&a->writer);
	pthread_mutex_destroy(&a->pool);
	free(a->lock);
	free(a);
}
