/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * engine.c - publishing compiled audit matchers: sp_audit_engine holds the current matcher under
 * liburcu (rcu_assign_pointer / synchronize_rcu / free) and a seqcount gate for the commonest
 * event.
 *
 * Concurrency: a matcher is immutable after sp_audit_matcher_compile; readers never lock, and
 * sp_audit_engine_filter_batch filters a batch under one read-side critical section (one matcher
 * for the whole batch).  sp_audit_engine_filter first asks the engine's seqcount gate (a copy of
 * the current matcher's fast-path inputs, see struct sp_audit_engine): an unaudited syscall is
 * decided there without a read-side section at all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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

#include "audit/filter/match_int.h"


/* ---- RCU engine ---- */

/*
 * The engine: the current matcher under RCU, plus a fast gate that decides the commonest event,
 * an unaudited syscall, without entering a read-side critical section (liburcu's
 * rcu_read_lock/unlock, even inlined, cost more than the decision they would guard:
 * docs/DESIGN.md).
 * The gate is a copy of the current matcher's busy[] bitmap, read under a seqcount: a reader that
 * sees an even, unchanged gseq around its load read one matcher's bit, and an event whose bit is
 * clear gets exactly the decision that matcher's own fast path returns (audit_decision_init: no
 * list consulted), so the decision is that of a rule set live at that moment.  Every other
 * event (odd or changed gseq included) takes the RCU path.  Writers update the gate under wlock;
 * all gate accesses are atomics (no fences: the writer's opening increment is an acquire RMW, the
 * data stores and the closing increment release; the reader's loads acquire), which
 * ThreadSanitizer checks as they are.
 */
struct sp_audit_engine {
	struct sp_audit_matcher *cur;
	uint32_t gseq;			/* odd while the gate is rewritten */
	pthread_mutex_t wlock;
	uint64_t g_busy[EV_NROWS * NSYS / 64] sp_cacheline_aligned;	/* cur->busy */
};

/* The gate holds m's busy[] and no writer is inside it.  Under e->wlock (the only writer's
 * view). */
static int gate_is(const struct sp_audit_engine *e, const struct sp_audit_matcher *m)
{
	if (__atomic_load_n(&e->gseq, __ATOMIC_RELAXED) & 1)
		return 0;
	for (size_t w = 0; w < EV_NROWS * NSYS / 64; w++)
		if (__atomic_load_n(&e->g_busy[w], __ATOMIC_RELAXED) != m->busy[w])
			return 0;
	return 1;
}

/* Copy m's busy[] into the gate.  Under e->wlock (or before e is shared). */
static void gate_store(struct sp_audit_engine *e, const struct sp_audit_matcher *m)
{
	__atomic_fetch_add(&e->gseq, 1, __ATOMIC_ACQUIRE);
	for (size_t w = 0; w < EV_NROWS * NSYS / 64; w++)
		__atomic_store_n(&e->g_busy[w], m->busy[w], __ATOMIC_RELEASE);
	__atomic_fetch_add(&e->gseq, 1, __ATOMIC_RELEASE);
	SP_ASSERT_INTERNAL(gate_is(e, m));
}

/* 1 when the gate decides ev (d initialised: nothing consulted), 0 when ev needs the matcher. */
static sp_always_inline int gate_filter(const struct sp_audit_engine *e, const struct sp_audit_event *ev,
					struct sp_audit_decision *d)
{
	uint32_t fast = ev->gate >> EV_GATE_FAST_SHIFT;
	uint32_t s1 = __atomic_load_n(&e->gseq, __ATOMIC_ACQUIRE);
	SP_ASSERT_INTERNAL(audit_event_is_synced(ev));
	if (__atomic_load_n(&e->g_busy[fast / 64], __ATOMIC_ACQUIRE) >> (fast % 64) & 1)
		return 0;
	if ((s1 & 1) || __atomic_load_n(&e->gseq, __ATOMIC_RELAXED) != s1)
		return 0;
	audit_decision_init(d);
	return 1;
}

static _Thread_local int reader_registered;

SP_API void sp_audit_reader_register(void)
{
	if (!reader_registered) {
		rcu_register_thread();
		reader_registered = 1;
	}
}

SP_API void sp_audit_reader_unregister(void)
{
	if (reader_registered) {
		rcu_unregister_thread();
		reader_registered = 0;
	}
}

SP_API int sp_audit_engine_new(struct sp_audit_engine **out)
{
	struct sp_audit_ref *empty;
	struct sp_audit_engine *e = aligned_alloc(SP_CACHELINE, sizeof(*e));	/* size: a multiple */
	int err;
	if (!e)
		return -ENOMEM;
	memset(e, 0, sizeof(*e));
	err = sp_audit_ref_new(NULL, &empty);
	if (!err) {
		err = sp_audit_matcher_compile(empty, &e->cur);
		sp_audit_ref_free(empty);
	}
	if (err) {
		free(e);
		return err;
	}
	pthread_mutex_init(&e->wlock, NULL);
	gate_store(e, e->cur);
	*out = e;
	return 0;
}

SP_API void sp_audit_engine_free(struct sp_audit_engine *e)
{
	if (!e)
		return;
	sp_audit_matcher_free(e->cur);
	pthread_mutex_destroy(&e->wlock);
	free(e);
}

SP_API int sp_audit_engine_publish(struct sp_audit_engine *e, struct sp_audit_matcher *m)
{
	struct sp_audit_matcher *old;
	pthread_mutex_lock(&e->wlock);
	old = e->cur;
	rcu_assign_pointer(e->cur, m);
	gate_store(e, m);
	pthread_mutex_unlock(&e->wlock);
	synchronize_rcu();
	sp_audit_matcher_free(old);
	return 0;
}

static sp_noinline void engine_filter_rcu(struct sp_audit_engine *e, const struct sp_audit_event *ev,
					  struct sp_audit_decision *d)
{
	rcu_read_lock();
	audit_matcher_filter_busy(rcu_dereference(e->cur), ev, d);	/* the gate's bit was set */
	rcu_read_unlock();
}

SP_API void sp_audit_engine_filter(struct sp_audit_engine *e, const struct sp_audit_event *ev,
				   struct sp_audit_decision *d)
{
	if (!gate_filter(e, ev, d))
		engine_filter_rcu(e, ev, d);	/* a tail call: the gate path saves no registers */
}

SP_API void sp_audit_engine_filter_batch(struct sp_audit_engine *e, const struct sp_audit_event *const *evs,
					 size_t n, struct sp_audit_decision *d)
{
	const struct sp_audit_matcher *m;
	rcu_read_lock();
	m = rcu_dereference(e->cur);
	audit_matcher_filter_batch(m, evs, n, d);
	rcu_read_unlock();
}
