/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * avc.c - the access vector cache (security/selinux/avc.c, in user space): full decisions keyed
 * by (source type, target type, class) in nbuckets RCU hash chains (default 512, hash
 * (s ^ t << 2 ^ c << 4) & mask as the kernel's avc_hash), one lock per bucket for writers.
 *
 * Lifecycle: lookup under rcu_read_lock; a miss computes through the current policy (also read
 * under RCU) and inserts unless the policy generation moved meanwhile.  Above `threshold` nodes,
 * reclaim frees up to 16 nodes scanning buckets round-robin from a moving hint (not an LRU, like
 * the kernel).  Replacing the policy or changing a boolean publishes a new sp_policy with
 * rcu_xchg_pointer, bumps the generation, flushes, waits for a grace period and frees the old
 * one; a boolean change shares the old policy's immutable core (only the conditional state is
 * rebuilt), as the kernel's security_set_bools duplicates only the conditional part.
 *
 * Threads calling sp_avc_lookup must be registered with liburcu: sp_avc_reader_register() wraps
 * rcu_register_thread() with a per-thread nesting count (only the outermost call registers).
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
#include <urcu/rcuhlist.h>

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

struct avc_node {
	struct cds_hlist_node h;
	uint32_t s, t, c, gen;
	struct sp_av_decision avd;
	struct rcu_head rcu;
};

struct avc_bucket {
	struct cds_hlist_head head;
	pthread_mutex_t lock;
};

struct sp_avc {
	struct sp_policy *policy;	/* RCU-protected */
	atomic_uint gen;
	unsigned nbuckets, mask, threshold;
	struct avc_bucket *b;
	atomic_uint active;
	atomic_uint hint;
	pthread_mutex_t writer;		/* serialises policy and boolean changes */
	atomic_uint_fast64_t hits, misses, allocations, reclaims, frees;	/* lookups = hits + misses */
};

static inline unsigned avc_hash(const struct sp_avc *a, uint32_t s, uint32_t t, uint32_t c)
{
	return (s ^ (t << 2) ^ (c << 4)) & a->mask;
}

SP_API int sp_avc_create(struct sp_policy *p, const struct sp_avc_opts *o, struct sp_avc **out)
{
	unsigned nb = SP_OPTS_HAS(o, nbuckets) && o->nbuckets ? o->nbuckets : 512;
	if (!p || !SP_IS_POW2(nb))
		return -EINVAL;
	struct sp_avc *a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->b = calloc(nb, sizeof(*a->b));
	if (!a->b) {
		free(a);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < nb; i++) {
		CDS_INIT_HLIST_HEAD(&a->b[i].head);
		pthread_mutex_init(&a->b[i].lock, NULL);
	}
	a->nbuckets = nb;
	a->mask = nb - 1;
	a->threshold = SP_OPTS_HAS(o, threshold) && o->threshold ? o->threshold : 512;
	pthread_mutex_init(&a->writer, NULL);
	a->policy = p;
	*out = a;
	return 0;
}

static void node_free_rcu(struct rcu_head *h)
{
	free(caa_container_of(h, struct avc_node, rcu));
}

static void node_drop(struct sp_avc *a, struct avc_node *n)
{
	cds_hlist_del_rcu(&n->h);
	call_rcu(&n->rcu, node_free_rcu);
	atomic_fetch_sub_explicit(&a->active, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&a->frees, 1, memory_order_relaxed);
}

/* Free up to AVC_RECLAIM nodes, scanning buckets from the moving hint (avc_reclaim_node). */
static void avc_reclaim(struct sp_avc *a)
{
	unsigned freed = 0;
	for (unsigned tries = 0; tries < a->nbuckets && freed < AVC_RECLAIM; tries++) {
		unsigned i = atomic_fetch_add_explicit(&a->hint, 1, memory_order_relaxed) & a->mask;
		struct avc_bucket *bk = &a->b[i];
		if (pthread_mutex_trylock(&bk->lock))
			continue;
		struct avc_node *n;
		struct cds_hlist_node *pos, *nx;
		cds_hlist_for_each_entry_safe(n, pos, nx, &bk->head, h) {
			node_drop(a, n);
			atomic_fetch_add_explicit(&a->reclaims, 1, memory_order_relaxed);
			if (++freed >= AVC_RECLAIM)
				break;
		}
		pthread_mutex_unlock(&bk->lock);
	}
}

/* A miss, entered inside the lookup's read-side section and ending it: the decision computed
 * through the current policy and inserted unless the generation moved since the lookup read
 * gen. */
static sp_noinline int avc_miss(struct sp_avc *a, uint32_t s, uint32_t t, uint32_t c,
				unsigned gen, unsigned hv, struct sp_av_decision *avd)
{
	struct sp_policy *p = rcu_dereference(a->policy);
	int rc = sp_policy_compute_av(p, s, t, c, avd);
	rcu_read_unlock();
	atomic_fetch_add_explicit(&a->misses, 1, memory_order_relaxed);
	if (rc)
		return rc;
	/* insert unless a policy change happened meanwhile (its flush would miss us) */
	struct avc_node *nn = malloc(sizeof(*nn));
	if (!nn)
		return 0;	/* the decision stands; caching is best effort */
	nn->s = s, nn->t = t, nn->c = c, nn->gen = gen;
	nn->avd = *avd;
	struct avc_bucket *bk = &a->b[hv];
	pthread_mutex_lock(&bk->lock);
	if (atomic_load_explicit(&a->gen, memory_order_acquire) != gen) {
		pthread_mutex_unlock(&bk->lock);
		free(nn);
		return 0;
	}
	struct avc_node *n;
	struct cds_hlist_node *pos, *nx;
	cds_hlist_for_each_entry_safe(n, pos, nx, &bk->head, h)
		if (n->s == s && n->t == t && n->c == c)
			node_drop(a, n);	/* replace a stale or racing entry */
	cds_hlist_add_head_rcu(&nn->h, &bk->head);
	pthread_mutex_unlock(&bk->lock);
	atomic_fetch_add_explicit(&a->allocations, 1, memory_order_relaxed);
	if (atomic_fetch_add_explicit(&a->active, 1, memory_order_relaxed) + 1 > a->threshold)
		avc_reclaim(a);
	return 0;
}

/* Nothing is live after the read side ends or the miss is called (a tail call), so the hit
 * path saves no registers; lookups are counted as hits + misses. */
SP_API int sp_avc_lookup(struct sp_avc *a, uint32_t s, uint32_t t, uint32_t c,
			 struct sp_av_decision *avd)
{
	unsigned gen = atomic_load_explicit(&a->gen, memory_order_acquire);
	unsigned hv = avc_hash(a, s, t, c);
	struct avc_node *n;
	struct cds_hlist_node *pos;
	rcu_read_lock();
	cds_hlist_for_each_entry_rcu(n, pos, &a->b[hv].head, h) {
		if (n->s == s && n->t == t && n->c == c && n->gen == gen) {
			*avd = n->avd;
			atomic_fetch_add_explicit(&a->hits, 1, memory_order_relaxed);
			rcu_read_unlock();
			return 0;
		}
	}
	return avc_miss(a, s, t, c, gen, hv, avd);
}

SP_API void sp_avc_flush(struct sp_avc *a)
{
	for (unsigned i = 0; i < a->nbuckets; i++) {
		struct avc_bucket *bk = &a->b[i];
		struct avc_node *n;
		struct cds_hlist_node *pos, *nx;
		pthread_mutex_lock(&bk->lock);
		cds_hlist_for_each_entry_safe(n, pos, nx, &bk->head, h)
			node_drop(a, n);
		pthread_mutex_unlock(&bk->lock);
	}
}

/* Publish np, invalidate the cache, free the old policy after a grace period. */
static void publish(struct sp_avc *a, struct sp_policy *np)
{
	struct sp_policy *old = rcu_xchg_pointer(&a->policy, np);
	atomic_fetch_add_explicit(&a->gen, 1, memory_order_release);
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
	rcu_read_lock();
	for (unsigned i = 0; i < a->nbuckets; i++) {
		uint32_t len = 0;
		struct cds_hlist_node *pos;
		cds_hlist_for_each_rcu(pos, &a->b[i].head)
			len++;
		st->entries += len;
		st->buckets_used += len != 0;
		if (len > st->longest_chain)
			st->longest_chain = len;
	}
	rcu_read_unlock();
}

SP_API void sp_avc_free(struct sp_avc *a)
{
	if (!a)
		return;
	sp_avc_flush(a);
	rcu_barrier();	/* every node freed by call_rcu */
	sp_policy_free(a->policy);
	for (unsigned i = 0; i < a->nbuckets; i++)
		pthread_mutex_destroy(&a->b[i].lock);
	pthread_mutex_destroy(&a->writer);
	free(a->b);
	free(a);
}
