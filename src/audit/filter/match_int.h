/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * match_int.h - the compiled audit filter's matcher layout, shared by its three parts:
 * compile.c lowers a rule set into a struct sp_audit_matcher, match.c evaluates events against
 * one, engine.c publishes matchers under RCU.  Nothing here leaves src/audit/filter/.
 *
 * Layout (one cache-line aligned block "hot", one block "cold"):
 *   hot:  crule[]       40 bytes per rule: priority, first predicate, count, action, id, key ref,
 *                       hash key (the inode a watch / inode= rule needs), perm requirement
 *         cpred[]       8 bytes per predicate: kind (pre-resolved operand), op, aux, constant;
 *                       each rule's predicates contiguous, cheapest and most selective first
 *         cand_off[6][2048]  per ABI slot (x86_64, i386, other) x (event with / without a
 *                       visible name) and syscall: offset of its candidate list in pool
 *                       (0 = empty list; DYN_FLAG = see dyn_off; GUARD_FLAG = a rule of the
 *                       list has a guard, crule.guard: the entry is an index into glists),
 *                       deduplicated
 *         live[6*32]    bitmap by tab * NSYS + syscall (the fast index of rows 0-5): syscall
 *                       has candidates or dir-guarded rules
 *         dlive[3][32]  bitmap: syscall has dir-guarded rules (events with names)
 *         busy[8][32]   bitmap by the event's fast index (filter_int.h EV_GATE_FAST_SHIFT): the
 *                       event needs more than its gate word (live, or a list every event of
 *                       its row must consult); clear bits are decided with no other read
 *         dyn_off       open/openat/openat2/socketcall: one list per value of the event's perm
 *                       bits (ACC_MODE of the flags, SYS_BIND), with GUARD_FLAG as cand_off
 *         pool[]        candidate lists: count, then rule indices in priority order
 *   cold: keys, identities (watch/dir/exe inode+dev), dir roots and their hash, per-root rule
 *         lists, the roots' signatures per syscall (dsig_idx, dsig_dyn, dsigs; dsig_plain and
 *         dsig_pdyn for the roots of rules without a dir guard, and dgsig, the dir guards'
 *         signature), the guarded candidate lists' pairs (glists) and their guards' signature
 *         (gsig), the keyed inode-hash table and its bloom (hk_bloom), LSM terms, masks.
 *
 * Invariants: a matcher is immutable once compiled; every pool offset it holds is 0 (the empty
 * list) or the start of a non-empty list inside pool; the exit, io_uring, inode-hash and per-root
 * lists are in strictly descending priority, the task/user/exclude lists in kernel order
 * (audit_matcher_is_valid() checks all of it).
 */
#ifndef SP_AUDIT_MATCH_INT_H
#define SP_AUDIT_MATCH_INT_H

#include "audit/filter/filter_int.h"

enum pk {
	PK_FALSE = 0, PK_TRUE, PK_STOP, PK_U32, PK_LOGINUID_SET, PK_GIDS, PK_EXIT, PK_SUCCESS,
	PK_PERM, PK_SADDR, PK_FCMP_CRED, PK_MSGTYPE, PK_EXE,
	/* name-based (cost: per visible name) */
	PK_DEVMAJ, PK_DEVMIN, PK_INODE, PK_OBJ_UID, PK_OBJ_GID, PK_FILETYPE, PK_FCMP_OBJ, PK_WATCH,
	PK_DIR, PK_SUBJ_LSM, PK_OBJ_LSM, PK_WATCH_PATH,
};

struct cpred {
	uint8_t kind;
	uint8_t op;
	uint16_t aux;
	uint32_t val;
};

struct crule {
	uint64_t prio;
	uint32_t pred;
	uint16_t npred;
	uint8_t action;
	uint8_t has_key;
	int32_t id;
	uint32_t key_off;
	uint16_t key_len;
	uint8_t has_hkey;	/* hash rules: only names whose (u32)ino == hkey can match */
	uint8_t permreq;	/* a perm= predicate: the event needs one of these perm bits */
	uint32_t mask_idx;	/* hash rules: index of its mask in cold masks[] */
	uint32_t hkey;
	/* 0, or one of its predicates, exe= or subj_type= with op EQ, reduced by audit_guard_exe /
	 * audit_guard_type (filter_int.h) to the value the event holds (guard_x, guard_t) when
	 * the predicate can hold, so the candidate loop rejects the rule without reading its
	 * predicates.  Equal values prove nothing: the predicates then run as without a guard. */
	uint32_t guard;
};

struct cident {
	uint64_t ino;
	uint32_t dev;
};

#define KEY_PAD 16	/* keys[]: each string zero-padded to a multiple of this (compile.c) */
#define NSLOT 3
#define DYN_FLAG 0x80000000u	/* cand_off: index into dyn_off instead of a pool offset */
#define GUARD_FLAG 0x40000000u	/* cand_off, dyn_off: a rule of the list has a guard */

/* A candidate list with guarded rules: the list, and the list of its rules without a guard
 * (pool offsets; 0 = empty).  An event whose guard values' signature (gsig) meets none of the
 * matcher's (gsig) can match only the second. */
struct glist {
	uint32_t full, plain;
};

#define NSYS EV_NSYS

#define HK_BLOOM_BITS 1024u

/* The bloom bit of a keyed inode-hash key (a name's (u32) inode). */
static inline uint32_t hk_bloom_bit(uint32_t key)
{
	return (key * 0x9e3779b1u) >> 22;
}

struct sp_audit_matcher {
	/* hot */
	struct crule *rules;
	struct cpred *preds;
	uint32_t (*cand_off)[NSYS];	/* [2 * NSLOT][NSYS]: with names, then without names */
	uint64_t *live;			/* [2 * NSLOT * 32], bit tab * NSYS + syscall: candidates or
					 * dir-guarded rules (matcher_live) */
	uint64_t (*dlive)[NSYS / 64];	/* [NSLOT][32]: dir-guarded rules may match (named events) */
	uint64_t *busy;			/* [EV_NROWS * 32], bit = the event's fast index: clear =
					 * nothing can match, the decision is audit_decision_init's */
	uint32_t *dir_off;		/* per dir= root: its guarded exit rules (pool list) */
	uint32_t *pool;
	/* open/openat/openat2/socketcall: perm depends on the arguments, so their candidate lists
	 * are also kept per value of the event's perm bits (ACC_MODE of the flags) */
	uint32_t dyn_nr[NSLOT][4];		/* UINT32_MAX: unused */
	uint32_t dyn_off[2 * NSLOT][4][16];
	struct glist *glists;		/* GUARD_FLAG entries' lists */
	uint32_t nglists;
	uint64_t gsig;			/* audit_guard_sig of every rule's guard */
	/* dir= trees: distinct roots, looked up once per event from the walked inodes */
	struct cident *dirs;
	uint32_t ndirs, dirhash_mask;
	/* bit dir_bloom_bit(h) set for every root's hash h: most walked inodes miss it and skip
	 * the probe (at least 64 bits per root, at most 64 Ki bits) */
	uint64_t *dir_bloom;
	uint32_t dir_bloom_mask;	/* bits - 1 */
	uint64_t dir_sig;		/* OR of audit_walk_bit over the roots */
	/* per (slot, syscall) with dir-guarded rules (dlive): the index in dsigs of the signature
	 * (audit_ev_sig_add) of the roots their dir= predicates name, or DSIG_DYN: per perm bits
	 * in dsig_dyn (the k of dyn_nr); 0 exactly when dlive is clear (every guarded rule names
	 * a root).  Index 0 is the empty signature; dsigs' last entry takes the union of those
	 * that do not fit */
	uint8_t (*dsig_idx)[NSYS];	/* [NSLOT][NSYS] */
	uint8_t dsig_dyn[NSLOT][4][16];
	/* the same for the roots of the rules without a dir guard (rule_dguard: exe=, subj_type=,
	 * uid= or auid= with op EQ): a subset of the signature above; an event whose guard values
	 * have no bit in dgsig can match only those rules */
	uint8_t (*dsig_plain)[NSYS];	/* [NSLOT][NSYS], in dsig_idx's block */
	uint8_t dsig_pdyn[NSLOT][4][16];
	uint64_t dgsig;			/* audit_guard_sig of every dir rule's dir guard */
	uint64_t (*dsigs)[2];
	uint32_t ndsigs;
	uint32_t *dirhash;		/* open addressing: index + 1, 0 = empty */
	uint32_t hash_nonempty;		/* bit b: inode bucket b has rules */
	uint32_t hash_unkeyed;		/* bit b: hash_off[b] is not empty */
	uint32_t hash_off[KA_INODE_BUCKETS];	/* unkeyed rules of each bucket (pool), 0 = empty */
	/* keyed hash rules (watch inode, inode=): (u32) inode -> its rules (pool list), open
	 * addressing; off 0 = empty slot */
	struct hkslot { uint32_t key, off; } *hk;
	uint32_t hk_mask;
	uint64_t hk_bloom[HK_BLOOM_BITS / 64];	/* bit hk_bloom_bit(key) of every hk key */
	uint32_t task_off, uring_off, user_off, exclude_off;
	/* the exclude list as the SYSCALL and the URINGOP record meet it: without the rules a
	 * predicate that is false for that record type ends before any STOP (compile.c) */
	uint32_t exclude_sys_off, exclude_uring_off;
	uint32_t pending_off;		/* pending watches (followed by path), 0 = none */
	uint32_t nfs;
	uint32_t slow_gate;		/* event gate bits that need match.c's slow path (EV_GATE_*) */
	uint32_t hash_any;		/* hash_nonempty | pending_off */
	struct { uint32_t op, val; } *fs;	/* fstype terms of filesystem `never` rules */
	uint32_t n_rules;
	/* cold */
	char *keys;
	struct cident *idents;
	struct lsm_rule *lsm;
	uint32_t (*masks)[ARD_MASK_WORDS];
	size_t nrules, npreds, npool, nkeys, nidents, nlsm, nmasks;
	size_t hot_bytes, total_bytes;
	void *hot;
};

#define DSIG_DYN 255u
#define DSIGS_MAX 255u		/* indices 0..254 */
/* Past this many dir= roots, dir= rules stay in the candidate lists (no per-root lists). */
#define DIRS_MAX 4096

/* Bit `fast` (tab * NSYS + syscall, the event's fast index in rows 0-5) of live[]. */
static inline int matcher_live(const struct sp_audit_matcher *m, uint32_t fast)
{
	return (int)(m->live[fast / 64] >> (fast % 64) & 1);
}

/* Bit `fast` (the event's fast index, filter_int.h) of busy[]. */
static inline int matcher_busy(const struct sp_audit_matcher *m, uint32_t fast)
{
	return (int)(m->busy[fast / 64] >> (fast % 64) & 1);
}

/* The bloom bit of an identity of hash h (audit_walk_hash): bits the root table's slot and
 * the walk signature use least. */
static inline uint32_t dir_bloom_bit(const struct sp_audit_matcher *m, uint32_t h)
{
	return (h >> 6) & m->dir_bloom_mask;
}

#define FCMP_TASK 0x8000u	/* PK_FCMP_CRED on the task list: the forking task's credentials */

/* Every table in range, every list in the order the evaluation assumes, the gate words those of
 * the rule set (compile.c; run under SP_ASSERT_EXPENSIVE).  1 or 0. */
int audit_matcher_is_valid(const struct sp_audit_matcher *m);

/* sp_audit_matcher_filter for the engine's read side (match.c), after its gate found the event's
 * busy[] bit set: the same decision, without that test, and a call inside the library rather
 * than through the exported symbol. */
void audit_matcher_filter_busy(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
			       struct sp_audit_decision *d);
/* sp_audit_matcher_filter of evs[0..n) into d[0..n). */
void audit_matcher_filter_batch(const struct sp_audit_matcher *m,
				const struct sp_audit_event *const *evs, size_t n,
				struct sp_audit_decision *d);

#endif
