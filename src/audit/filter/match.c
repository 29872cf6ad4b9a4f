/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * match.c - the compiled audit filter: a rule set (the reference engine's lists, in
 * their kernel order) compiled into an immutable matcher that decides exactly what the reference
 * decides, touching only rules that can match the event's (arch, syscall).
 *
 * Layout (one cache-line aligned block "hot", one block "cold"):
 *   hot:  crule[]       40 bytes per rule: priority, first predicate, count, action, id, key ref,
 *                       hash key (the inode a watch / inode= rule needs), perm requirement
 *         cpred[]       8 bytes per predicate: kind (pre-resolved operand), op, aux, constant;
 *                       each rule's predicates contiguous, cheapest and most selective first
 *         cand_off[6][2048]  per ABI slot (x86_64, i386, other) x (event with / without a
 *                       visible name) and syscall: offset of its candidate list in pool
 *                       (0 = empty list; DYN_FLAG = see dyn_off), deduplicated
 *         live[6][32]   bitmap: syscall has candidates or dir-guarded rules (the fast path)
 *         dlive[3][32]  bitmap: syscall has dir-guarded rules (events with names)
 *         dyn_off       open/openat/openat2/socketcall: one list per value of the event's perm
 *                       bits (ACC_MODE of the flags, SYS_BIND)
 *         pool[]        candidate lists: count, then rule indices in priority order
 *   cold: keys, identities (watch/dir/exe inode+dev), dir roots and their hash, per-root rule
 *         lists, the keyed inode-hash table, LSM terms, masks.
 *
 * A candidate list for (slot, nr) holds the exit rules whose mask has nr and whose arch= and
 * perm= predicates are not statically false for that ABI and syscall, and, for events without a
 * visible name, whose predicates do not need one (dir=, inode, obj_*, devmajor...).  In the
 * x86_64 and i386 lists an `arch=` rule is a copy without that (statically true) predicate.
 * Exit rules with `dir=` are not in the candidate lists: they hang off their root (dir_off), and
 * only the roots the syscall walked (looked up once per event from the walked inodes) are
 * visited, highest priority first, merged with the candidates' first match by priority.  The
 * inode hash is split the same way: rules that need one inode (a resolved watch, inode=) are
 * found by that inode (hk), the others per bucket.  The task list is compiled with the
 * kernel's "no audit_context" semantics folded in (arch/perm/names...) and reads the event's
 * task-list view (t_*: the forking task's pid and credentials), the user/exclude lists keep
 * their field order with a STOP predicate for the fields audit_filter() does not know.  The
 * inner loop is a switch on the predicate kind: no function pointers.
 * Fast path (sp_audit_matcher_filter): one load of the event's gate word (kind, auditd, names,
 * candidate table) decides whether the event can skip the task/filesystem/auditd checks; a
 * syscall whose (ABI, syscall) has no candidate and no name reaching the inode hash is decided
 * in about 35 instructions.  filter_exit_only() then keeps the exit winner, the hash winner and
 * the key rule in registers; dir= roots are found through a 256-bit bloom of their inodes before
 * the hash probe (most walked directories are not roots).
 *
 * Concurrency: a matcher is immutable after sp_audit_matcher_compile; sp_audit_engine publishes
 * matchers with liburcu (rcu_assign_pointer / synchronize_rcu / free); readers never lock, and
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
 * for code under any licence (liburcu README, URCU_INLINE_SMALL_FUNCTIONS); the read-side
 * lock stays a library call unless the build inlines it (make URCU_LGPL=1: _LGPL_SOURCE,
 * only for LGPL/GPL-compatible code, see the Makefile). */
#if SP_URCU_LGPL
#define _LGPL_SOURCE
#endif
#define URCU_INLINE_SMALL_FUNCTIONS
#include <urcu.h>

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
};

struct cident {
	uint64_t ino;
	uint32_t dev;
};

#define NSLOT 3
#define DYN_FLAG 0x80000000u	/* cand_off: index into dyn_off instead of a pool offset */
#define NSYS (ARD_MASK_WORDS * 32)

struct sp_audit_matcher {
	/* hot */
	struct crule *rules;
	struct cpred *preds;
	uint32_t (*cand_off)[NSYS];	/* [2 * NSLOT][NSYS]: with names, then without names */
	uint64_t (*live)[NSYS / 64];	/* [2 * NSLOT][32]: candidates or dir-guarded rules */
	uint64_t (*dlive)[NSYS / 64];	/* [NSLOT][32]: dir-guarded rules may match (named events) */
	uint32_t *dir_off;		/* per dir= root: its guarded exit rules (pool list) */
	uint32_t ndwords;		/* words of dir bits to scan for guarded rules, 0 = no guards */
	uint32_t *pool;
	/* open/openat/openat2/socketcall: perm depends on the arguments, so their candidate lists
	 * are also kept per value of the event's perm bits (ACC_MODE of the flags) */
	uint32_t dyn_nr[NSLOT][4];		/* UINT32_MAX: unused */
	uint32_t dyn_off[2 * NSLOT][4][16];
	/* dir= trees: distinct roots, looked up once per event from the walked inodes */
	struct cident *dirs;
	uint32_t ndirs, dirhash_mask;
	/* bit (ino & 255) set for every root: most walked inodes miss it and skip the probe */
	uint64_t dir_bloom[4];
	uint32_t *dirhash;		/* open addressing: index + 1, 0 = empty */
	uint32_t hash_nonempty;		/* bit b: inode bucket b has rules */
	uint32_t hash_off[KA_INODE_BUCKETS];	/* unkeyed rules of each bucket (pool), 0 = empty */
	/* keyed hash rules (watch inode, inode=): (u32) inode -> its rules (pool list), open
	 * addressing; off 0 = empty slot */
	struct hkslot { uint32_t key, off; } *hk;
	uint32_t hk_mask;
	uint32_t task_off, uring_off, user_off, exclude_off;
	uint32_t pending_off;		/* pending watches (followed by path), 0 = none */
	uint32_t nfs;
	uint32_t slow_gate;		/* event gate bits that need filter_slow (EV_GATE_*) */
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

/* ---- evaluation ---- */

#define for_each_visible(n, ev, vis)                                                                \
	for (uint32_t vi__ = 0; vi__ < (ev)->nnames; vi__++)                                        \
		if (((vis) >> vi__ & 1) && ((n) = &(ev)->names[vi__]))

static inline uint32_t ld32(const struct sp_audit_event *ev, uint16_t off)
{
	uint32_t v;
	memcpy(&v, (const char *)ev + off, 4);
	return v;
}

static int lsm_match(const struct lsm_rule *r, const struct lsm_ctx *c)
{
	uint64_t h;
	switch (r->field) {
	case AF_SUBJ_USER: case AF_OBJ_USER: h = c->h_user; break;
	case AF_SUBJ_ROLE: case AF_OBJ_ROLE: h = c->h_role; break;
	case AF_SUBJ_TYPE: case AF_OBJ_TYPE: h = c->h_type; break;
	default: return audit_lsm_match(c, r);
	}
	if (h != r->h_name)	/* precomputed identities: different hash, different name */
		return r->op == OP_NE;
	return audit_lsm_match(c, r);
}

static int name_devpart(const struct audit_name *n, int maj, uint32_t op, uint32_t val)
{
	uint32_t a = maj ? n->dev >> 20 : n->dev & 0xfffffu;
	uint32_t b = maj ? n->rdev >> 20 : n->rdev & 0xfffffu;
	return audit_comparator(a, op, val) || audit_comparator(b, op, val);
}

#define DIRBITS_MAX 4096

/* Per-event scratch: which dir= roots the syscall walked (computed on first use). */
struct scratch {
	int dir_ready;
	uint64_t dir_bits[DIRBITS_MAX / 64];
};

static inline uint32_t ident_hash(uint64_t ino, uint32_t dev)
{
	uint64_t h = (ino ^ ((uint64_t)dev << 32)) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32);
}

static sp_noinline void dir_scan(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
				  uint32_t vis, struct scratch *sc)
{
	const struct audit_name *n;
	uint32_t nw = (m->ndirs + 63) / 64;
	sc->dir_bits[0] = 0;			/* usually the only word: no memset call */
	if (unlikely(nw > 1))
		memset(&sc->dir_bits[1], 0, (nw - 1) * sizeof(uint64_t));
	for_each_visible(n, ev, vis)
		for (uint32_t i = 0; i < n->nwalk; i++) {
			uint64_t ino = n->walk[i].ino;
			if (!(m->dir_bloom[(ino >> 6) & 3] >> (ino & 63) & 1))
				continue;
			uint32_t h = ident_hash(ino, n->walk[i].dev) & m->dirhash_mask;
			for (uint32_t x; (x = m->dirhash[h]); h = (h + 1) & m->dirhash_mask) {
				const struct cident *id = &m->dirs[x - 1];
				if (id->ino == ino && id->dev == n->walk[i].dev) {
					sc->dir_bits[(x - 1) / 64] |= 1ull << ((x - 1) % 64);
					break;
				}
			}
		}
	sc->dir_ready = 1;
}

#define FCMP_TASK 0x8000u	/* PK_FCMP_CRED on the task list: the forking task's credentials */

/* One predicate: 1 true, 0 false, 2 stop the user/exclude scan. */
static int eval(const struct sp_audit_matcher *m, const struct cpred *p,
		const struct sp_audit_event *ev, const struct audit_name *name, uint32_t vis,
		uint32_t msgtype, struct scratch *sc)
{
	const struct audit_name *n;
	int r = 0;
	switch (p->kind) {
	case PK_FALSE: return 0;
	case PK_TRUE: return 1;
	case PK_STOP: return 2;
	case PK_U32: return audit_comparator(ld32(ev, p->aux), p->op, p->val);
	case PK_LOGINUID_SET:
		return audit_comparator((p->aux ? ev->t_loginuid : ev->loginuid) != SP_AUDIT_UNSET, p->op,
					p->val);
	case PK_GIDS: {
		/* aux: bit 0 egid, bit 1 the task list's (fork) view */
		int tc = p->aux & 2;
		uint32_t g = p->aux & 1 ? (tc ? ev->t_egid : ev->egid) : (tc ? ev->t_gid : ev->gid);
		r = audit_comparator(g, p->op, p->val);
		if (p->op == OP_EQ && !r)
			r = tc ? audit_task_groups_search(ev, p->val) : audit_groups_search(ev, p->val);
		else if (p->op == OP_NE && r)
			r = !(tc ? audit_task_groups_search(ev, p->val) : audit_groups_search(ev, p->val));
		return r;
	}
	case PK_EXIT:
		return ev->return_valid != RET_INVALID &&
		       audit_comparator((uint32_t)ev->return_code, p->op, p->val);
	case PK_SUCCESS:
		return ev->return_valid != RET_INVALID && audit_comparator(ev->return_valid, p->op, p->val);
	case PK_PERM: return ((ev->perm_bits & p->val) != 0) ^ (p->op == OP_NE);
	case PK_SADDR:
		return ev->saddr_fam >= 0 && audit_comparator((uint32_t)ev->saddr_fam, p->op, p->val);
	case PK_FCMP_CRED:
		if (p->aux & FCMP_TASK)
			return audit_id_comparator(audit_task_cred(ev, p->aux & 0xff), p->op,
						   audit_task_cred(ev, (p->aux >> 8) & 0x7f));
		return audit_id_comparator(audit_cred(ev, p->aux & 0xff), p->op, audit_cred(ev, p->aux >> 8));
	case PK_MSGTYPE: return audit_comparator(msgtype, p->op, p->val);
	case PK_EXE: {
		const struct cident *id = &m->idents[p->aux];
		r = ev->has_exe && ev->exe_ino == id->ino && ev->exe_dev == id->dev;
		return r ^ (p->op == OP_NE);
	}
	case PK_DEVMAJ:
	case PK_DEVMIN:
		if (name)
			return name_devpart(name, p->kind == PK_DEVMAJ, p->op, p->val);
		for_each_visible(n, ev, vis)
			if (name_devpart(n, p->kind == PK_DEVMAJ, p->op, p->val))
				return 1;
		return 0;
	case PK_INODE:
		if (name)
			return audit_comparator((uint32_t)name->ino, p->op, p->val);
		for_each_visible(n, ev, vis)
			if (audit_comparator((uint32_t)n->ino, p->op, p->val))
				return 1;
		return 0;
	case PK_OBJ_UID:
	case PK_OBJ_GID:
		if (name)
			return audit_id_comparator(p->kind == PK_OBJ_GID ? name->gid : name->uid, p->op, p->val);
		for_each_visible(n, ev, vis)
			if (audit_id_comparator(p->kind == PK_OBJ_GID ? n->gid : n->uid, p->op, p->val))
				return 1;
		return 0;
	case PK_FILETYPE:
		for_each_visible(n, ev, vis)
			if (n->ino != SP_AUDIT_INO_UNSET && (n->mode & 0170000u) == p->val) {
				r = 1;
				break;
			}
		return r ^ (p->op == OP_NE);
	case PK_FCMP_OBJ: {
		uint32_t left = audit_cred(ev, p->aux & 0xff);
		int g = (p->aux >> 8) == CS_OBJ_GID;
		if (name && audit_id_comparator(left, p->op, g ? name->gid : name->uid))
			return 1;
		for_each_visible(n, ev, vis)
			if (audit_id_comparator(left, p->op, g ? n->gid : n->uid))
				return 1;
		return 0;
	}
	case PK_WATCH: {
		const struct cident *id = &m->idents[p->aux];
		if (!name)
			return 0;
		r = id->ino != SP_AUDIT_INO_UNSET && id->ino == name->ino && id->dev == name->dev;
		return r ^ (p->op == OP_NE);
	}
	case PK_DIR: {
		if (sc && m->ndirs <= DIRBITS_MAX) {
			if (!sc->dir_ready)
				dir_scan(m, ev, vis, sc);
			r = (int)(sc->dir_bits[p->val / 64] >> (p->val % 64) & 1);
			return r ^ (p->op == OP_NE);
		}
		const struct cident *id = &m->idents[p->aux];
		for_each_visible(n, ev, vis) {
			for (uint32_t i = 0; i < n->nwalk; i++)
				if (n->walk[i].ino == id->ino && n->walk[i].dev == id->dev) {
					r = 1;
					goto dir_done;
				}
		}
dir_done:
		return r ^ (p->op == OP_NE);
	}
	case PK_WATCH_PATH:
		r = name && name->path && !strcmp(name->path, m->keys + p->val);
		return r ^ (p->op == OP_NE);
	case PK_SUBJ_LSM: return lsm_match(&m->lsm[p->aux], audit_ev_sctx(ev));
	case PK_OBJ_LSM:
		if (name)
			return lsm_match(&m->lsm[p->aux], audit_name_octx(name));
		for_each_visible(n, ev, vis)
			if (lsm_match(&m->lsm[p->aux], audit_name_octx(n)))
				return 1;
		return 0;
	}
	return 0;
}

static sp_always_inline int rule_match(const struct sp_audit_matcher *m, const struct crule *cr,
			     const struct sp_audit_event *ev, const struct audit_name *name, uint32_t vis,
			     struct scratch *sc)
{
	const struct cpred *p = &m->preds[cr->pred], *end = p + cr->npred;
	for (; p < end; p++) {
		/* the commonest predicates inline: a 32-bit load and compare, perm, exe */
		switch (p->kind) {
		case PK_U32:
			if (!audit_comparator(ld32(ev, p->aux), p->op, p->val))
				return 0;
			break;
		case PK_PERM:
			if (!(((ev->perm_bits & p->val) != 0) ^ (p->op == OP_NE)))
				return 0;
			break;
		case PK_EXE: {
			const struct cident *id = &m->idents[p->aux];
			int r = ev->has_exe && ev->exe_ino == id->ino && ev->exe_dev == id->dev;
			if (!(r ^ (p->op == OP_NE)))
				return 0;
			break;
		}
		case PK_SUBJ_LSM: {
			const struct lsm_rule *lr = &m->lsm[p->aux];
			if (lr->field == AF_SUBJ_TYPE && p->op == OP_EQ &&
			    audit_ev_sctx(ev)->h_type != lr->h_name)
				return 0;	/* the usual "subj_type=X" on another type */
			if (!lsm_match(lr, audit_ev_sctx(ev)))
				return 0;
			break;
		}
		default:
			if (!eval(m, p, ev, name, vis, 0, sc))
				return 0;
		}
	}
	return 1;
}

struct cstate {
	uint64_t prio;
	int state;
	const struct crule *keyrule;	/* last matching rule that had a key */
	const struct crule *rule;	/* last matching rule */
};

static inline void take(struct cstate *s, const struct crule *cr)
{
	s->prio = cr->prio;
	s->state = cr->action == AA_NEVER ? STATE_DISABLED : STATE_RECORD;
	s->rule = cr;
	if (cr->has_key)
		s->keyrule = cr;
}

/* audit_filter() over a compiled user/exclude list: 1 keep, 0 drop */
static int filter_ue(const struct sp_audit_matcher *m, uint32_t off, const struct sp_audit_event *ev,
		     uint32_t msgtype, int is_exclude, int32_t *rule_id, uint8_t *verdict)
{
	const uint32_t *l = &m->pool[off];
	for (uint32_t i = 1; i <= l[0]; i++) {
		const struct crule *cr = &m->rules[l[i]];
		const struct cpred *p = &m->preds[cr->pred];
		int res = 1;
		for (uint32_t j = 0; j < cr->npred; j++) {
			res = eval(m, &p[j], ev, NULL, 0, msgtype, NULL);
			if (res == 2)
				return 1;
			if (!res)
				break;
		}
		if (res) {
			*rule_id = cr->id;
			*verdict = cr->action == AA_NEVER ? SP_AUDIT_NEVER : SP_AUDIT_ALWAYS;
			return !(cr->action == AA_NEVER || is_exclude);
		}
	}
	return 1;
}

#define slot_of audit_slot_of

static void set_key(struct sp_audit_decision *d, const struct sp_audit_matcher *m, const struct crule *cr)
{
	audit_decision_set_key(d, m->keys + cr->key_off, cr->key_len);
}

static sp_noinline void filter_slow(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
				      struct sp_audit_decision *d);

/*
 * The exit rules guarded by a dir= root (kept out of the candidate lists): only the roots the
 * syscall walked can match, each root's rules in priority order.  Returns the highest-priority
 * matching rule among win and them (list order is priority order: the kernel's first match).
 */
static sp_noinline const struct crule *dir_guarded(const struct sp_audit_matcher *m,
						   const struct sp_audit_event *ev, uint32_t vis,
						   uint32_t major, const struct crule *win)
{
	struct scratch sc;
	uint64_t floor = win ? win->prio : 0;
	dir_scan(m, ev, vis, &sc);
	for (uint32_t w = 0; w < m->ndwords; w++)
		for (uint64_t bits = sc.dir_bits[w]; bits; bits &= bits - 1) {
			uint32_t r = w * 64 + (uint32_t)__builtin_ctzll(bits);
			const uint32_t *l = &m->pool[m->dir_off[r]];
			for (uint32_t k = 1; k <= l[0]; k++) {
				const struct crule *cr = &m->rules[l[k]];
				if (cr->prio <= floor)
					break;
				if (cr->permreq && !(ev->perm_bits & cr->permreq))
					continue;	/* its perm= cannot match this syscall */
				if (!(m->masks[cr->mask_idx][major / 32] >> (major % 32) & 1))
					continue;
				if (rule_match(m, cr, ev, NULL, vis, &sc)) {
					win = cr;
					floor = cr->prio;
					break;
				}
			}
		}
	return win;
}
static sp_always_inline void exit_phase(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
					struct sp_audit_decision *d, struct cstate *sp, uint32_t vis,
					uint32_t tab, int skip_lists);
static sp_noinline void filter_exit_only(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
					 struct sp_audit_decision *d, uint32_t tab, int live);

/*
 * The fast path: a syscall event with no task rule, no filesystem rule, audit rules loaded, not
 * auditd, whose (ABI, syscall) has no candidate and no name that could reach the inode hash is
 * decided here: nothing matches, the state stays BUILD (about 30 instructions, no table walk).
 */
static sp_always_inline void matcher_filter(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
					   struct sp_audit_decision *d)
{
	uint32_t g = ev->gate;	/* kind, auditd, has names, candidate table: one load (line 0) */

	audit_decision_init(d);
	if (likely(!(g & m->slow_gate))) {
		uint32_t major = (uint32_t)ev->c_major;
		if (unlikely(major >= NSYS))
			return;	/* audit_in_mask() fails for every rule, exit list and hash alike */
		uint32_t tab = g >> EV_GATE_TAB_SHIFT;
		int live = (int)(m->live[tab][major / 64] >> (major % 64) & 1);
		if (!live && (!(g & EV_GATE_NAMES) || !m->hash_any))
			return;
		/* no task/filesystem list to consult: straight to the exit list and inode hash */
		filter_exit_only(m, ev, d, tab, live);
		return;
	}
	filter_slow(m, ev, d);
}

SP_API void sp_audit_matcher_filter(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
				    struct sp_audit_decision *d)
{
	matcher_filter(m, ev, d);
}

/* The exclude list on the SYSCALL / URINGOP record about to be written. */
static sp_noinline void exclude_record(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
				       struct sp_audit_decision *d)
{
	uint8_t v;
	uint32_t type = ev->kind == SP_AUDIT_EV_URING ? KA_MSG_URINGOP : KA_MSG_SYSCALL;
	d->excluded = !filter_ue(m, m->exclude_off, ev, type, 1, &d->exclude_rule, &v);
}

/* The first rule of list l (priority order) above floor whose mask has major and that matches. */
static inline const struct crule *first_hash_match(const struct sp_audit_matcher *m, const uint32_t *l,
						   const struct sp_audit_event *ev,
						   const struct audit_name *n, uint32_t vis,
						   uint32_t major, uint64_t floor)
{
	for (uint32_t k = 1; k <= l[0]; k++) {
		const struct crule *cr = &m->rules[l[k]];
		if (cr->prio <= floor)
			continue;
		if (!(m->masks[cr->mask_idx][major / 32] >> (major % 32) & 1))
			continue;
		if (rule_match(m, cr, ev, n, vis, NULL))
			return cr;
	}
	return NULL;
}

/*
 * audit_filter_inodes(): per visible name, the rules of its bucket (ino & 31) in priority order;
 * stop at the first name that matched.  A bucket's rules are split into the keyed ones (a watch's
 * inode, inode=: only a name with that very (u32) inode can match), found through m->hk, and the
 * rest; the highest priority match of both is the first match of the kernel's bucket walk.
 */
static sp_noinline const struct crule *hash_pass(const struct sp_audit_matcher *m,
						 const struct sp_audit_event *ev, uint32_t vis,
						 uint32_t major, uint64_t floor)
{
	for (uint32_t i = 0; i < ev->nnames; i++) {
		const struct audit_name *n = &ev->names[i];
		const struct crule *w = NULL;
		uint32_t b = (uint32_t)n->ino & (KA_INODE_BUCKETS - 1);
		if (!(vis >> i & 1))
			continue;
		if (m->pending_off && n->path)	/* pending watches follow their path */
			w = first_hash_match(m, &m->pool[m->pending_off], ev, n, vis, major, floor);
		if (!w && (m->hash_nonempty >> b & 1)) {
			uint32_t key = (uint32_t)n->ino;
			for (uint32_t h = (key * 0x9e3779b1u) >> 16 & m->hk_mask; m->hk[h].off;
			     h = (h + 1) & m->hk_mask)
				if (m->hk[h].key == key) {
					w = first_hash_match(m, &m->pool[m->hk[h].off], ev, n, vis, major, floor);
					break;
				}
			const struct crule *u = first_hash_match(m, &m->pool[m->hash_off[b]], ev, n, vis, major,
								 w ? w->prio : floor);
			if (u)
				w = u;
		}
		if (w)
			return w;
	}
	return NULL;
}

/* The exit-list candidates of (tab, major): the first that matches, or NULL. */
static sp_always_inline const struct crule *exit_candidates(const struct sp_audit_matcher *m,
							    const struct sp_audit_event *ev,
							    uint32_t vis, uint32_t tab, uint32_t major)
{
	uint32_t off = m->cand_off[tab][major];
	if (off & DYN_FLAG)	/* argument-dependent perm: pick by perm bits */
		off = m->dyn_off[tab][off & 3][ev->perm_bits & 15];
	/* locals: the out-of-line predicate calls cannot make the compiler reload them */
	const uint32_t *l = &m->pool[off], *end = l + 1 + l[0];
	const struct crule *rules = m->rules;
	for (l++; l < end; l++) {
		const struct crule *cr = &rules[*l];
		if (rule_match(m, cr, ev, NULL, vis, NULL))
			return cr;
	}
	return NULL;
}

/*
 * exit_phase() for the fast path's events (a syscall, major < NSYS, no task list, state BUILD,
 * live = the live bit of (tab, major)), with the context kept in registers: the exit winner,
 * then the inode hash above its priority; the key is the last matching rule's that had one.
 * Out of line so that the fast path above keeps a small frame.
 */
static sp_noinline void filter_exit_only(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
					 struct sp_audit_decision *d, uint32_t tab, int live)
{
	uint32_t major = (uint32_t)ev->c_major;
	_Static_assert(SP_AUDIT_MAX_NAMES < 64, "one 64-bit shift gives the all-names mask");
	uint32_t vis = (uint32_t)((1ull << ev->nnames) - 1);
	const struct crule *win = NULL, *keyrule = NULL;
	if (live) {
		win = exit_candidates(m, ev, vis, tab, major);
		if (tab < NSLOT && (m->dlive[tab][major / 64] >> (major % 64) & 1))
			win = dir_guarded(m, ev, vis, major, win);
		if (win && win->has_key)
			keyrule = win;
	}
	if (ev->nnames && m->hash_any) {
		const struct crule *h = hash_pass(m, ev, vis, major, win ? win->prio : 0);
		if (h) {
			win = h;
			if (h->has_key)
				keyrule = h;
		}
	}
	if (!win)
		return;		/* nothing matched: d stays as initialised (BUILD, no key) */
	/* exit_phase()'s tail, spelled out: shared through an inline helper it costs this path
	 * ~1.3 instructions per event (neo23x0/mix; gcc 12 spills major to the stack) */
	d->exit = win->action == AA_NEVER ? SP_AUDIT_NEVER : SP_AUDIT_ALWAYS;
	d->exit_rule = win->id;
	if (keyrule)
		set_key(d, m, keyrule);
	d->record = win->action != AA_NEVER;
	if (d->record && m->pool[m->exclude_off])
		exclude_record(m, ev, d);
}

/* The exit (or io_uring) list, the inode hash, then key, record and exclude: the part of
 * __audit_syscall_exit / __audit_uring_exit after the context checks.  s holds the context;
 * tab is the candidate table of the event's ABI (+ NSLOT when no name is visible). */
static sp_always_inline void exit_phase(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
					struct sp_audit_decision *d, struct cstate *sp, uint32_t vis,
					uint32_t tab, int skip_lists)
{
	struct cstate s = *sp;
	if (skip_lists)
		goto out;
	uint32_t major = (uint32_t)ev->c_major;
	if (likely(ev->kind == SP_AUDIT_EV_SYSCALL)) {
		/* exit list: candidates for (ABI, syscall); every exit rule outranks prio 0 */
		if (likely(major < NSYS) && (m->live[tab][major / 64] >> (major % 64) & 1)) {
			const struct crule *win = exit_candidates(m, ev, vis, tab, major);
			if (tab < NSLOT && (m->dlive[tab][major / 64] >> (major % 64) & 1))
				win = dir_guarded(m, ev, vis, major, win);
			if (win)
				take(&s, win);
		}
	} else if (m->pool[m->uring_off]) {
		/* io_uring list, mask indexed by the opcode */
		const uint32_t *l = &m->pool[m->uring_off];
		uint32_t op = ev->op;
		for (uint32_t i = 1; op < NSYS && i <= l[0]; i++) {
			const struct crule *cr = &m->rules[l[i]];
			if ((m->masks[cr->mask_idx][op / 32] >> (op % 32) & 1) &&
			    rule_match(m, cr, ev, NULL, vis, NULL)) {
				take(&s, cr);
				break;
			}
		}
	}
	/* inode hash: per visible name, its bucket; stop at the first name that matched */
	if (ev->nnames && m->hash_any && major < NSYS) {
		const struct crule *h = hash_pass(m, ev, vis, major, s.prio);
		if (h)
			take(&s, h);
	}
	if (s.rule) {
		d->exit = s.rule->action == AA_NEVER ? SP_AUDIT_NEVER : SP_AUDIT_ALWAYS;
		d->exit_rule = s.rule->id;
	}
out:
	if (s.keyrule)
		set_key(d, m, s.keyrule);
	d->record = s.state == STATE_RECORD;
	if (d->record && m->pool[m->exclude_off])
		exclude_record(m, ev, d);
}

static sp_noinline void filter_slow(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
				      struct sp_audit_decision *d)
{
	struct cstate s;
	const struct crule *task_rule = NULL;
	uint32_t vis;

	if (unlikely(ev->kind == SP_AUDIT_EV_USER)) {
		d->context = SP_AUDIT_CTX_USER;
		d->record = (uint8_t)filter_ue(m, m->user_off, ev, ev->msgtype, 0, &d->user_rule, &d->user);
		if (d->record && m->pool[m->exclude_off]) {
			uint8_t v;
			d->excluded = !filter_ue(m, m->exclude_off, ev, ev->msgtype, 1, &d->exclude_rule, &v);
		}
		return;
	}
	s.state = STATE_BUILD;
	s.prio = 0;
	s.keyrule = s.rule = NULL;
	/* task list (empty-list fast path) */
	if (unlikely(m->pool[m->task_off])) {
		const uint32_t *l = &m->pool[m->task_off];
		for (uint32_t i = 1; i <= l[0]; i++) {
			const struct crule *cr = &m->rules[l[i]];
			if (rule_match(m, cr, ev, NULL, 0, NULL)) {
				task_rule = cr;
				break;
			}
		}
		if (task_rule) {
			d->task_rule = task_rule->id;
			if (task_rule->action == AA_NEVER) {
				d->task = SP_AUDIT_NEVER;
				d->context = SP_AUDIT_CTX_NONE;
				return;
			}
			d->task = SP_AUDIT_ALWAYS;
			s.state = STATE_RECORD;
			s.prio = ~0ull;
			if (task_rule->has_key)
				s.keyrule = task_rule;
		}
	}
	if (unlikely(!m->n_rules)) {
		d->context = SP_AUDIT_CTX_DUMMY;
		return;
	}
	/* filesystem list: names not collected */
	vis = ev->nnames >= 32 ? ~0u : (1u << ev->nnames) - 1;
	if (unlikely(m->nfs)) {
		for (uint32_t i = 0; i < ev->nnames; i++)
			for (uint32_t j = 0; j < m->nfs; j++)
				if (audit_comparator(ev->names[i].fs_magic, m->fs[j].op, m->fs[j].val)) {
					vis &= ~(1u << i);
					break;
				}
		d->fs_hidden = ev->nnames ? ~vis & ((ev->nnames >= 32 ? ~0u : (1u << ev->nnames) - 1)) : 0;
	}
	if (unlikely(ev->is_auditd)) {
		d->context = SP_AUDIT_CTX_AUDITD;
		goto out;
	}
	if (s.prio == ~0ull)
		goto out;	/* task `always`: no rule outranks it */

	exit_phase(m, ev, d, &s, vis, (uint32_t)slot_of(ev->c_arch) + (vis ? 0 : NSLOT), 0);
	return;
out:
	exit_phase(m, ev, d, &s, vis, 0, 1);
}

/* ---- compilation ---- */

struct builder {
	struct sp_audit_matcher *m;
	const struct sp_audit_ref *ref;
	struct crule *rules;
	size_t nrules, caprules;
	struct cpred *preds;
	size_t npreds, cappreds;
	uint32_t *pool;
	size_t npool, cappool;
	char *keys;
	size_t nkeys, capkeys;
	struct cident *idents;
	size_t nidents, capidents;
	struct cident *dirs;
	size_t ndirs, capdirs;
	struct lsm_rule *lsm;
	size_t nlsm, caplsm;
	uint32_t (*masks)[ARD_MASK_WORDS];
	size_t nmasks, capmasks;
	const struct audit_krule **krules;	/* crule index -> source rule */
	size_t capk;
	/* dedup of candidate lists: open addressing on list hash */
	uint32_t *dedup;
	size_t capdedup;
	int err;
};

#define GROW(b, arr, n, cap, need)                                                                 \
	do {                                                                                       \
		if ((n) + (need) > (cap)) {                                                        \
			size_t nc__ = (cap) ? (cap) * 2 : 64;                                      \
			while (nc__ < (n) + (need))                                                \
				nc__ *= 2;                                                         \
			void *p__ = realloc((arr), nc__ * sizeof(*(arr)));                         \
			if (!p__) {                                                                \
				(b)->err = -ENOMEM;                                                \
				break;                                                             \
			}                                                                          \
			(arr) = p__;                                                               \
			(cap) = nc__;                                                              \
		}                                                                                  \
	} while (0)

enum mode { M_EXIT, M_HASH, M_TASK, M_UE, M_PENDING };

static int pred_cost(uint8_t kind)
{
	switch (kind) {
	case PK_FALSE: return 0;
	case PK_U32: case PK_LOGINUID_SET: case PK_PERM: case PK_EXIT: case PK_SUCCESS:
	case PK_SADDR: case PK_FCMP_CRED: case PK_MSGTYPE: case PK_EXE: case PK_WATCH:
		return 1;
	case PK_GIDS: return 2;
	case PK_SUBJ_LSM: return 4;
	default: return 3;	/* name walks */
	}
}

static uint32_t add_string(struct builder *b, const char *str)
{
	size_t len = strlen(str);
	GROW(b, b->keys, b->nkeys, b->capkeys, len + 1);
	if (b->err)
		return 0;
	memcpy(b->keys + b->nkeys, str, len + 1);
	b->nkeys += len + 1;
	return (uint32_t)(b->nkeys - len - 1);
}

/* Index of a dir= root among the distinct roots (linear: rule sets hold tens of them). */
static uint32_t add_dir(struct builder *b, uint64_t ino, uint32_t dev)
{
	for (size_t i = 0; i < b->ndirs; i++)
		if (b->dirs[i].ino == ino && b->dirs[i].dev == dev)
			return (uint32_t)i;
	GROW(b, b->dirs, b->ndirs, b->capdirs, 1);
	if (b->err)
		return 0;
	b->dirs[b->ndirs].ino = ino;
	b->dirs[b->ndirs].dev = dev;
	return (uint32_t)b->ndirs++;
}

static uint32_t add_ident(struct builder *b, uint64_t ino, uint32_t dev)
{
	GROW(b, b->idents, b->nidents, b->capidents, 1);
	if (b->err)
		return 0;
	b->idents[b->nidents].ino = ino;
	b->idents[b->nidents].dev = dev;
	return (uint32_t)b->nidents++;
}

static uint32_t add_lsm(struct builder *b, const struct lsm_rule *src)
{
	GROW(b, b->lsm, b->nlsm, b->caplsm, 1);
	if (b->err)
		return 0;
	struct lsm_rule *l = &b->lsm[b->nlsm];
	*l = *src;
	l->name = src->name ? strdup(src->name) : NULL;
	if (src->name && !l->name)
		b->err = -ENOMEM;
	return (uint32_t)b->nlsm++;
}

#define EVOFF(f) ((uint16_t)offsetof(struct sp_audit_event, f))

/* Translate one kernel field into a predicate for the given evaluation mode. */
static struct cpred compile_field(struct builder *b, const struct audit_krule *k,
				  const struct audit_kfield *f, enum mode mode)
{
	struct cpred p = { .kind = PK_FALSE, .op = (uint8_t)f->op, .val = f->val };
	int task = mode == M_TASK;

	if (mode == M_UE) {
		/* audit_filter(): only these fields exist; the rest end the scan */
		switch (f->type) {
		case AF_PID: p.kind = PK_U32; p.aux = EVOFF(tid); break;
		case AF_UID: p.kind = PK_U32; p.aux = EVOFF(uid); break;
		case AF_GID: p.kind = PK_U32; p.aux = EVOFF(gid); break;
		case AF_LOGINUID: p.kind = PK_U32; p.aux = EVOFF(loginuid); break;
		case AF_LOGINUID_SET: p.kind = PK_LOGINUID_SET; break;
		case AF_MSGTYPE: p.kind = PK_MSGTYPE; break;
		case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_SUBJ_SEN: case AF_SUBJ_CLR:
			if (f->lsm_rule) {
				p.kind = PK_SUBJ_LSM;
				p.aux = (uint16_t)add_lsm(b, f->lsm_rule);
			}
			break;
		case AF_EXE:
			p.kind = PK_EXE;
			p.aux = (uint16_t)add_ident(b, k->exe_ino, k->exe_dev);
			break;
		default:
			p.kind = PK_STOP;
			break;
		}
		return p;
	}

	switch (f->type) {
	case AF_PID: p.kind = PK_U32; p.aux = task ? EVOFF(t_pid) : EVOFF(pid); break;
	case AF_PPID: if (!task) { p.kind = PK_U32; p.aux = EVOFF(ppid); } break;
	case AF_EXE:
		if (task) {
			p.kind = f->op == OP_NE ? PK_TRUE : PK_FALSE;
		} else {
			p.kind = PK_EXE;
			p.aux = (uint16_t)add_ident(b, k->exe_ino, k->exe_dev);
		}
		break;
	/* credentials: on the task list the forking task's (the t_* view) */
#define CRED(f) (task ? EVOFF(t_##f) : EVOFF(f))
	case AF_UID: p.kind = PK_U32; p.aux = CRED(uid); break;
	case AF_EUID: p.kind = PK_U32; p.aux = CRED(euid); break;
	case AF_SUID: p.kind = PK_U32; p.aux = CRED(suid); break;
	case AF_FSUID: p.kind = PK_U32; p.aux = CRED(fsuid); break;
	case AF_GID: case AF_EGID:
		if (f->op == OP_EQ || f->op == OP_NE) {
			p.kind = PK_GIDS;
			p.aux = (uint16_t)((f->type == AF_EGID) | (task ? 2 : 0));
		} else {
			p.kind = PK_U32;
			p.aux = f->type == AF_EGID ? CRED(egid) : CRED(gid);
		}
		break;
	case AF_SGID: p.kind = PK_U32; p.aux = CRED(sgid); break;
	case AF_FSGID: p.kind = PK_U32; p.aux = CRED(fsgid); break;
	case AF_SESSIONID: p.kind = PK_U32; p.aux = CRED(sessionid); break;
	case AF_PERS: p.kind = PK_U32; p.aux = EVOFF(personality); break;
	case AF_ARCH: if (!task) { p.kind = PK_U32; p.aux = EVOFF(c_arch); } break;
	case AF_EXIT: if (!task) p.kind = PK_EXIT; break;
	case AF_SUCCESS:
		if (!task) {
			p.kind = PK_SUCCESS;
			p.val = f->val ? RET_SUCCESS : RET_FAILURE;
		}
		break;
	case AF_DEVMAJOR: if (!task) p.kind = PK_DEVMAJ; break;
	case AF_DEVMINOR: if (!task) p.kind = PK_DEVMIN; break;
	case AF_INODE: if (!task) p.kind = PK_INODE; break;
	case AF_OBJ_UID: if (!task) p.kind = PK_OBJ_UID; break;
	case AF_OBJ_GID: if (!task) p.kind = PK_OBJ_GID; break;
	case AF_WATCH:
		if (mode == M_PENDING) {
			p.kind = PK_WATCH_PATH;
			p.val = add_string(b, k->watch_path);
		} else if (mode == M_HASH) {
			if (k->watch_ino == SP_AUDIT_INO_UNSET) {
				p.kind = f->op == OP_NE ? PK_TRUE : PK_FALSE;	/* see M_PENDING */
			} else {
				p.kind = PK_WATCH;
				p.aux = (uint16_t)add_ident(b, k->watch_ino, k->watch_dev);
			}
		}
		break;
	case AF_DIR:
		if (!task) {
			p.kind = PK_DIR;
			p.aux = (uint16_t)add_ident(b, k->tree_ino, k->tree_dev);
			p.val = add_dir(b, k->tree_ino, k->tree_dev);
		}
		break;
	case AF_LOGINUID: p.kind = PK_U32; p.aux = CRED(loginuid); break;
	case AF_LOGINUID_SET: p.kind = PK_LOGINUID_SET; p.aux = task; break;
#undef CRED
	case AF_SADDR_FAM: if (!task) p.kind = PK_SADDR; break;
	case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_SUBJ_SEN: case AF_SUBJ_CLR:
		if (f->lsm_rule) {
			p.kind = PK_SUBJ_LSM;
			p.aux = (uint16_t)add_lsm(b, f->lsm_rule);
		}
		break;
	case AF_OBJ_USER: case AF_OBJ_ROLE: case AF_OBJ_TYPE: case AF_OBJ_LEV_LOW: case AF_OBJ_LEV_HIGH:
		if (!task && f->lsm_rule) {
			p.kind = PK_OBJ_LSM;
			p.aux = (uint16_t)add_lsm(b, f->lsm_rule);
		}
		break;
	case AF_ARG0: case AF_ARG1: case AF_ARG2: case AF_ARG3:
		if (!task) {
			p.kind = PK_U32;
			p.aux = (uint16_t)(EVOFF(c_argv) + 8 * (f->type - AF_ARG0));	/* low half, LE */
		}
		break;
	case AF_FILTERKEY: p.kind = PK_TRUE; break;
	case AF_PERM:
		if (task)
			p.kind = f->op == OP_NE ? PK_TRUE : PK_FALSE;	/* audit_match_perm(NULL) = 0 */
		else
			p.kind = PK_PERM;
		break;
	case AF_FILETYPE:
		if (task)
			p.kind = f->op == OP_NE ? PK_TRUE : PK_FALSE;
		else
			p.kind = PK_FILETYPE;
		break;
	case AF_FIELD_COMPARE:
		if (f->val >= 1 && f->val <= ARD_MAX_FIELD_COMPARE) {
			const uint8_t *pr = audit_compare_pairs[f->val];
			int obj = pr[1] == CS_OBJ_UID || pr[1] == CS_OBJ_GID;
			if (obj && task)
				break;	/* no name, no context: 0 */
			p.kind = obj ? PK_FCMP_OBJ : PK_FCMP_CRED;
			p.aux = (uint16_t)(pr[0] | pr[1] << 8 | (task ? FCMP_TASK : 0));
		}
		break;
	}
	return p;
}

static int cmp_pred_cost(const void *a, const void *b)
{
	const struct cpred *x = a, *y = b;
	return pred_cost(x->kind) - pred_cost(y->kind);
}

/* Compile rule k; returns its crule index, or -1 when it can never match (or on error). */
static int64_t compile_rule(struct builder *b, const struct audit_krule *k, enum mode mode)
{
	size_t first = b->npreds;
	GROW(b, b->preds, b->npreds, b->cappreds, k->field_count + 1);
	if (b->err)
		return -1;
	for (uint32_t i = 0; i < k->field_count; i++) {
		struct cpred p = compile_field(b, k, &k->fields[i], mode);
		if (mode != M_UE && p.kind == PK_TRUE)
			continue;
		if (mode != M_UE && p.kind == PK_FALSE) {
			b->npreds = first;
			return -1;
		}
		b->preds[b->npreds++] = p;
		if (mode == M_UE && p.kind == PK_STOP)
			break;	/* later fields are never read */
	}
	if (mode == M_UE && k->field_count == 0) {
		b->npreds = first;
		return -1;	/* a rule without fields never matches in audit_filter() */
	}
	if (mode != M_UE) {
		/* AND is order-free (the predicates have no side effects): cheapest first;
		 * insertion sort keeps equal costs in rule order */
		size_t n = b->npreds - first;
		struct cpred *v = &b->preds[first];
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && cmp_pred_cost(&v[j - 1], &v[j]) > 0; j--) {
				struct cpred t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
	}
	GROW(b, b->rules, b->nrules, b->caprules, 1);
	GROW(b, b->krules, b->nrules, b->capk, 1);
	if (b->err)
		return -1;
	struct crule *cr = &b->rules[b->nrules];
	memset(cr, 0, sizeof(*cr));
	cr->prio = k->prio;
	cr->pred = (uint32_t)first;
	cr->npred = (uint16_t)(b->npreds - first);
	cr->action = (uint8_t)k->action;
	cr->id = (int32_t)k->id;
	cr->mask_idx = UINT32_MAX;
	for (uint32_t i = 0; i < cr->npred; i++) {
		const struct cpred *pp = &b->preds[cr->pred + i];
		if (pp->kind == PK_PERM && pp->op == OP_EQ && pp->val && pp->val <= 15)
			cr->permreq = (uint8_t)pp->val;
	}
	if (k->filterkey) {
		size_t len = strlen(k->filterkey);
		GROW(b, b->keys, b->nkeys, b->capkeys, len + 1);
		if (b->err)
			return -1;
		memcpy(b->keys + b->nkeys, k->filterkey, len + 1);
		cr->has_key = 1;
		cr->key_off = (uint32_t)b->nkeys;
		cr->key_len = (uint16_t)len;
		b->nkeys += len + 1;
	}
	if (mode == M_HASH) {
		if (k->inode_f >= 0 && k->fields[k->inode_f].op == OP_EQ) {
			cr->has_hkey = 1;
			cr->hkey = k->fields[k->inode_f].val;
		} else if (k->has_watch && k->watch_ino != SP_AUDIT_INO_UNSET) {
			cr->has_hkey = 1;
			cr->hkey = (uint32_t)k->watch_ino;
		}
	}
	if (mode == M_HASH || mode == M_PENDING || k->listnr == AL_URING) {
		GROW(b, b->masks, b->nmasks, b->capmasks, 1);
		if (b->err)
			return -1;
		memcpy(b->masks[b->nmasks], k->mask, sizeof(k->mask));
		cr->mask_idx = (uint32_t)b->nmasks++;
	}
	b->krules[b->nrules] = k;
	return (int64_t)b->nrules++;
}

/* Append a candidate list (count + indices) to the pool, deduplicated; 0 for an empty list. */
static uint32_t add_list(struct builder *b, const uint32_t *idx, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	if (!n)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ idx[i]) * 0x100000001b3ull;
	if (b->capdedup == 0) {
		b->capdedup = 1024;
		b->dedup = calloc(b->capdedup, sizeof(*b->dedup));
		if (!b->dedup) {
			b->err = -ENOMEM;
			return 0;
		}
	}
	size_t s = (size_t)h & (b->capdedup - 1);
	for (;; s = (s + 1) & (b->capdedup - 1)) {
		uint32_t off = b->dedup[s];
		if (!off)
			break;
		if (b->pool[off] == n && !memcmp(&b->pool[off + 1], idx, n * sizeof(*idx)))
			return off;
	}
	GROW(b, b->pool, b->npool, b->cappool, n + 1);
	if (b->err)
		return 0;
	uint32_t off = (uint32_t)b->npool;
	b->pool[off] = n;
	memcpy(&b->pool[off + 1], idx, n * sizeof(*idx));
	b->npool += n + 1;
	b->dedup[s] = off;
	if (b->npool > b->capdedup / 2) {	/* rehash: keep the table sparse */
		size_t nc = b->capdedup * 4;
		uint32_t *nd = calloc(nc, sizeof(*nd));
		if (!nd) {
			b->err = -ENOMEM;
			return off;
		}
		for (size_t i = 0; i < b->capdedup; i++) {
			uint32_t o = b->dedup[i];
			if (!o)
				continue;
			uint64_t hh = 0xcbf29ce484222325ull ^ b->pool[o];
			for (uint32_t j = 0; j < b->pool[o]; j++)
				hh = (hh ^ b->pool[o + 1 + j]) * 0x100000001b3ull;
			size_t t = (size_t)hh & (nc - 1);
			while (nd[t])
				t = (t + 1) & (nc - 1);
			nd[t] = o;
		}
		free(b->dedup);
		b->dedup = nd;
		b->capdedup = nc;
	}
	return off;
}

/* The perm bits of (slot, nr) when they do not depend on the arguments, else -1 (memoised). */
static int static_perm_bits(int slot, uint32_t nr)
{
	static _Thread_local int16_t memo[2][NSYS];
	static _Thread_local int ready;
	if (!ready) {
		for (int a = 0; a < 2; a++)
			for (uint32_t n = 0; n < NSYS; n++) {
				uint32_t arch = a ? SP_AUDIT_ARCH_I386 : SP_AUDIT_ARCH_X86_64;
				int cls = audit_classify_syscall(arch, n);
				if (cls == SC_OPEN || cls == SC_OPENAT || cls == SC_OPENAT2 ||
				    cls == SC_SOCKETCALL) {
					memo[a][n] = -1;
					continue;
				}
				int16_t b = 0;
				int w = a ? CL_WRITE_32 : CL_WRITE, r = a ? CL_READ_32 : CL_READ;
				int c = a ? CL_CHATTR_32 : CL_CHATTR;
				if (cls == SC_EXECVE)
					b = PERM_EXEC;
				else
					b = (int16_t)((audit_match_class(w, n) ? PERM_WRITE : 0) |
						      (audit_match_class(r, n) ? PERM_READ : 0) |
						      (audit_match_class(c, n) ? PERM_ATTR : 0));
				memo[a][n] = b;
			}
		ready = 1;
	}
	return memo[slot == 1][nr];
}

/* Is predicate p statically false for every event of (arch slot, syscall nr)?  perm >= 0: the
 * event's perm bits are known to be that value (argument-dependent syscalls). */
static int static_false(const struct cpred *p, int slot, uint32_t nr, int perm)
{
	if (p->kind == PK_PERM && perm >= 0)
		return !((((uint32_t)perm & p->val) != 0) ^ (p->op == OP_NE));
	static const uint32_t slot_arch[2] = { SP_AUDIT_ARCH_X86_64, SP_AUDIT_ARCH_I386 };
	if (p->kind == PK_U32 && p->aux == EVOFF(c_arch) && slot < 2)
		return !audit_comparator(slot_arch[slot], p->op, p->val);
	if (p->kind == PK_PERM) {
		int bits = static_perm_bits(slot, nr);
		if (bits < 0)
			return 0;
		return !((((uint32_t)bits & p->val) != 0) ^ (p->op == OP_NE));
	}
	return 0;
}

/* Is p false for every event without a visible name (exit-list mode, name == NULL)? */
static int needs_name(const struct cpred *p)
{
	switch (p->kind) {
	case PK_DEVMAJ: case PK_DEVMIN: case PK_INODE: case PK_OBJ_UID: case PK_OBJ_GID:
	case PK_FCMP_OBJ: case PK_WATCH: case PK_WATCH_PATH: case PK_OBJ_LSM:
		return 1;
	case PK_DIR: case PK_FILETYPE:
		return p->op == OP_EQ;	/* no walked inode / no name of that type */
	default:
		return 0;
	}
}

static uint32_t compile_list(struct builder *b, const struct sp_list *head, enum mode mode)
{
	const struct sp_list *pos;
	uint32_t *idx = NULL, n = 0, cap = 0;
	sp_list_for_each(pos, head) {
		const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
		if (mode == M_PENDING && (!e->rule.has_watch || e->rule.watch_ino != SP_AUDIT_INO_UNSET))
			continue;
		int64_t r = compile_rule(b, &e->rule, mode);
		if (b->err)
			break;
		if (r < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			uint32_t *t = realloc(idx, cap * sizeof(*idx));
			if (!t) {
				b->err = -ENOMEM;
				break;
			}
			idx = t;
		}
		idx[n++] = (uint32_t)r;
		/* user/exclude: a rule whose first predicate stops the scan hides the rest */
		if (mode == M_UE && b->preds[b->rules[r].pred].kind == PK_STOP)
			break;
	}
	uint32_t off = b->err ? 0 : add_list(b, idx, n);
	free(idx);
	return off;
}

static int cmp_key_idx(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

/* The inode hash: per bucket its unkeyed rules, and the keyed ones by (u32) inode (m->hk). */
static int compile_hash(struct builder *b, struct sp_audit_matcher *m, const struct sp_audit_ref *r)
{
	uint64_t *keyed = NULL;		/* hkey << 32 | rule index (rule order = priority order) */
	uint32_t *tmp = NULL, nkeyed = 0, capk = 0, ndist = 0;
	for (int h = 0; h < KA_INODE_BUCKETS && !b->err; h++) {
		uint32_t off = compile_list(b, &r->inode_hash[h], M_HASH), n = 0;
		if (b->err || !b->pool[off])
			continue;
		m->hash_nonempty |= 1u << h;
		uint32_t cnt = b->pool[off];
		uint32_t *t = realloc(tmp, (cnt + 1) * sizeof(*t));
		if (t)
			tmp = t;
		if (t && nkeyed + cnt > capk) {
			uint64_t *kk = realloc(keyed, 2 * (nkeyed + cnt) * sizeof(*kk));
			if (kk) {
				keyed = kk;
				capk = 2 * (nkeyed + cnt);
			} else {
				t = NULL;
			}
		}
		if (!t) {
			free(tmp);
			free(keyed);
			return b->err = -ENOMEM;
		}
		for (uint32_t k = 1; k <= cnt; k++) {
			uint32_t ri = b->pool[off + k];
			if (b->rules[ri].has_hkey)
				keyed[nkeyed++] = (uint64_t)b->rules[ri].hkey << 32 | ri;
			else
				tmp[n++] = ri;
		}
		m->hash_off[h] = add_list(b, tmp, n);
	}
	/* rule indices grow with list order, so sorting by (key, index) keeps priority order */
	if (nkeyed)
		qsort(keyed, nkeyed, sizeof(*keyed), cmp_key_idx);
	for (uint32_t i = 0; i < nkeyed; i++)
		ndist += !i || keyed[i] >> 32 != keyed[i - 1] >> 32;
	uint32_t cap = 16;
	while (cap < 2 * ndist + 2)
		cap *= 2;
	m->hk = calloc(cap, sizeof(*m->hk));
	if (nkeyed && m->hk) {	/* one key's list can hold all keyed rules */
		uint32_t *t = realloc(tmp, (nkeyed + 1) * sizeof(*t));
		if (t) {
			tmp = t;
		} else {
			free(m->hk);
			m->hk = NULL;
		}
	}
	if (!m->hk) {
		free(tmp);
		free(keyed);
		return b->err = -ENOMEM;
	}
	m->hk_mask = cap - 1;
	for (uint32_t i = 0; i < nkeyed && !b->err;) {
		uint32_t key = (uint32_t)(keyed[i] >> 32), n = 0;
		for (; i < nkeyed && (uint32_t)(keyed[i] >> 32) == key; i++)
			tmp[n++] = (uint32_t)keyed[i];
		uint32_t off = add_list(b, tmp, n), h = (key * 0x9e3779b1u) >> 16 & m->hk_mask;
		while (m->hk[h].off)
			h = (h + 1) & m->hk_mask;
		m->hk[h].key = key;
		m->hk[h].off = off;
	}
	free(tmp);
	free(keyed);
	return b->err;
}

static void builder_free(struct builder *b)
{
	free(b->rules);
	free(b->preds);
	free(b->pool);
	free(b->keys);
	free(b->idents);
	free(b->dirs);
	if (b->lsm)
		for (size_t i = 0; i < b->nlsm; i++)
			free(b->lsm[i].name);
	free(b->lsm);
	free(b->masks);
	free(b->krules);
	free(b->dedup);
}

SP_API void sp_audit_matcher_free(struct sp_audit_matcher *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nlsm; i++)
		free(m->lsm[i].name);
	free(m->lsm);
	free(m->keys);
	free(m->idents);
	free(m->dirs);
	free(m->dirhash);
	free(m->dir_off);
	free(m->hk);
	free(m->masks);
	free(m->fs);
	free(m->pool);
	free(m->hot);
	free(m);
}

SP_API int sp_audit_matcher_compile(const struct sp_audit_ref *r, struct sp_audit_matcher **out)
{
	struct builder b;
	struct sp_audit_matcher *m = calloc(1, sizeof(*m));
	const struct sp_list *pos;
	uint32_t exit_first, exit_end, *tmp = NULL;
	int32_t *gdir = NULL;
	uint32_t *strip = NULL;		/* exit rule -> its copy without arch= (x86_64/i386 lists) */

	if (!m)
		return -ENOMEM;
	memset(&b, 0, sizeof(b));
	b.m = m;
	b.ref = r;
	GROW(&b, b.pool, b.npool, b.cappool, 1);
	if (b.err)
		goto fail;
	b.pool[b.npool++] = 0;	/* offset 0: the empty list */

	m->n_rules = (uint32_t)r->n_rules;
	m->task_off = compile_list(&b, &r->lists[AL_TASK], M_TASK);
	m->user_off = compile_list(&b, &r->lists[AL_USER], M_UE);
	m->exclude_off = compile_list(&b, &r->lists[AL_EXCLUDE], M_UE);
	m->uring_off = compile_list(&b, &r->lists[AL_URING], M_EXIT);
	if (compile_hash(&b, m, r))
		goto fail;
	m->pending_off = compile_list(&b, &r->inode_hash[KA_INODE_BUCKETS - 1], M_PENDING);
	/* filesystem list: the fstype terms of never rules */
	sp_list_for_each(pos, &r->lists[AL_FS]) {
		const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
		if (e->rule.action != AA_NEVER)
			continue;
		for (uint32_t i = 0; i < e->rule.field_count; i++) {
			if (e->rule.fields[i].type != AF_FSTYPE)
				continue;
			void *t = realloc(m->fs, (m->nfs + 1) * sizeof(*m->fs));
			if (!t) {
				b.err = -ENOMEM;
				goto fail;
			}
			m->fs = t;
			m->fs[m->nfs].op = e->rule.fields[i].op;
			m->fs[m->nfs].val = e->rule.fields[i].val;
			m->nfs++;
		}
	}
	/* exit list rules, then candidate lists per (slot, syscall) */
	exit_first = (uint32_t)b.nrules;
	sp_list_for_each(pos, &r->lists[AL_EXIT]) {
		const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
		compile_rule(&b, &e->rule, M_EXIT);
		if (b.err)
			goto fail;
	}
	exit_end = (uint32_t)b.nrules;
	/* x86_64 / i386 candidate lists hold a copy of each `arch=` rule without that predicate:
	 * a list of one ABI only holds the rules whose arch= is true for it (static_false) */
	strip = malloc((exit_end - exit_first + 1) * sizeof(*strip));
	if (!strip) {
		b.err = -ENOMEM;
		goto fail;
	}
	for (uint32_t ri = exit_first; ri < exit_end; ri++) {
		uint32_t narch = 0, other = 0, pred = b.rules[ri].pred, np = b.rules[ri].npred;
		strip[ri - exit_first] = ri;
		for (uint32_t pi = 0; pi < np; pi++) {
			const struct cpred *pp = &b.preds[pred + pi];
			if (pp->kind == PK_U32 && pp->aux == EVOFF(c_arch)) {
				if (pp->op == OP_EQ && (pp->val == SP_AUDIT_ARCH_X86_64 || pp->val == SP_AUDIT_ARCH_I386))
					narch++;
				else
					other++;
			}
		}
		if (!narch || other)
			continue;
		GROW(&b, b.preds, b.npreds, b.cappreds, np);
		GROW(&b, b.rules, b.nrules, b.caprules, 1);
		GROW(&b, b.krules, b.nrules, b.capk, 1);
		if (b.err)
			goto fail;
		struct crule c = b.rules[ri];
		c.pred = (uint32_t)b.npreds;
		for (uint32_t pi = 0; pi < np; pi++) {
			struct cpred pp = b.preds[pred + pi];
			if (!(pp.kind == PK_U32 && pp.aux == EVOFF(c_arch)))
				b.preds[b.npreds++] = pp;
		}
		c.npred = (uint16_t)(b.npreds - c.pred);
		b.rules[b.nrules] = c;
		b.krules[b.nrules] = b.krules[ri];
		strip[ri - exit_first] = (uint32_t)b.nrules++;
	}
	/* the fast path takes syscall events (kind 0) of tasks other than auditd; with filesystem
	 * rules only those without names (nothing to hide) */
	m->slow_gate = b.pool[m->task_off] || !m->n_rules ? ~0u
			: 0xffu | EV_GATE_AUDITD | (m->nfs ? EV_GATE_NAMES : 0);
	m->hash_any = m->hash_nonempty | m->pending_off;

	/* hot block: rules | preds | cand_off | live (each cache-line aligned) */
	size_t sz_rules = SP_ALIGN_UP(b.nrules * sizeof(struct crule) + 1, SP_CACHELINE);
	size_t sz_preds = SP_ALIGN_UP(b.npreds * sizeof(struct cpred) + 1, SP_CACHELINE);
	size_t sz_cand = 2 * NSLOT * NSYS * sizeof(uint32_t);
	size_t sz_live = (2 * NSLOT + NSLOT) * (NSYS / 64) * sizeof(uint64_t);	/* live, dlive */
	m->hot = aligned_alloc(SP_CACHELINE, sz_rules + sz_preds + sz_cand + sz_live);
	if (!m->hot) {
		b.err = -ENOMEM;
		goto fail;
	}
	memset(m->hot, 0, sz_rules + sz_preds + sz_cand + sz_live);
	m->cand_off = (void *)((char *)m->hot + sz_rules + sz_preds);
	m->live = (void *)((char *)m->cand_off + sz_cand);
	m->dlive = (void *)((char *)m->live + 2 * NSLOT * (NSYS / 64) * sizeof(uint64_t));
	tmp = malloc((exit_end - exit_first + 1) * sizeof(*tmp));
	gdir = malloc((exit_end - exit_first + 1) * sizeof(*gdir));
	if (!tmp || !gdir) {
		b.err = -ENOMEM;
		goto fail;
	}
	/* dir= guards: an exit rule with `dir=` (only `=` is accepted) matches only events that
	 * walked that root; such rules leave the candidate lists for per-root lists */
	for (uint32_t ri = exit_first; ri < exit_end; ri++) {
		const struct crule *cr = &b.rules[ri];
		gdir[ri - exit_first] = -1;
		for (uint32_t pi = 0; pi < cr->npred && b.ndirs <= DIRBITS_MAX; pi++)
			if (b.preds[cr->pred + pi].kind == PK_DIR && b.preds[cr->pred + pi].op == OP_EQ)
				gdir[ri - exit_first] = (int32_t)b.preds[cr->pred + pi].val;
	}
	if (b.ndirs && b.ndirs <= DIRBITS_MAX) {
		m->dir_off = calloc(b.ndirs, sizeof(*m->dir_off));
		if (!m->dir_off) {
			b.err = -ENOMEM;
			goto fail;
		}
		for (uint32_t root = 0; root < b.ndirs; root++) {
			uint32_t n = 0;
			for (uint32_t ri = exit_first; ri < exit_end; ri++) {
				if (gdir[ri - exit_first] != (int32_t)root)
					continue;
				tmp[n++] = ri;
				if (b.rules[ri].mask_idx == UINT32_MAX) {
					GROW(&b, b.masks, b.nmasks, b.capmasks, 1);
					if (b.err)
						goto fail;
					memcpy(b.masks[b.nmasks], b.krules[ri]->mask, sizeof(b.krules[ri]->mask));
					b.rules[ri].mask_idx = (uint32_t)b.nmasks++;
				}
			}
			m->dir_off[root] = add_list(&b, tmp, n);
			if (b.err)
				goto fail;
		}
		m->ndwords = (uint32_t)((b.ndirs + 63) / 64);
	}
	for (int tab = 0; tab < 2 * NSLOT; tab++) {
		int slot = tab % NSLOT, nonames = tab >= NSLOT;
		for (uint32_t nr = 0; nr < NSYS; nr++) {
			uint32_t n = 0, ng = 0;
			for (uint32_t ri = exit_first; ri < exit_end; ri++) {
				const struct crule *cr = &b.rules[ri];
				const struct audit_krule *k = b.krules[ri];
				if (!(k->mask[nr / 32] >> (nr % 32) & 1))
					continue;
				int dead = 0;
				for (uint32_t pi = 0; pi < cr->npred && !dead; pi++) {
					const struct cpred *pp = &b.preds[cr->pred + pi];
					dead = static_false(pp, slot, nr, -1) || (nonames && needs_name(pp));
				}
				if (dead)
					continue;
				if (gdir[ri - exit_first] >= 0)
					ng++;	/* reached through its root (dir_guarded) */
				else
					tmp[n++] = slot < 2 ? strip[ri - exit_first] : ri;
			}
			uint32_t off = add_list(&b, tmp, n);
			if (b.err)
				goto fail;
			m->cand_off[tab][nr] = off;
			if (n || ng)
				m->live[tab][nr / 64] |= 1ull << (nr % 64);
			if (ng)	/* only named tables: dir= needs a name */
				m->dlive[slot][nr / 64] |= 1ull << (nr % 64);
		}
	}
	/* argument-dependent syscalls: one list per possible perm-bits value */
	for (int slot = 0; slot < NSLOT; slot++) {
		static const uint32_t x64[4] = { 2, 257, 437, UINT32_MAX };
		static const uint32_t x32[4] = { 5, 295, 437, 102 };
		memcpy(m->dyn_nr[slot], slot == 1 ? x32 : x64, sizeof(x64));
	}
	for (int tab = 0; tab < 2 * NSLOT; tab++) {
		int slot = tab % NSLOT, nonames = tab >= NSLOT;
		for (int k = 0; k < 4; k++) {
			uint32_t nr = m->dyn_nr[slot][k];
			if (nr == UINT32_MAX)
				continue;
			for (int perm = 0; perm < 16; perm++) {
				uint32_t n = 0;
				for (uint32_t ri = exit_first; ri < exit_end; ri++) {
					const struct crule *cr = &b.rules[ri];
					const struct audit_krule *k2 = b.krules[ri];
					if (!(k2->mask[nr / 32] >> (nr % 32) & 1))
						continue;
					int dead = gdir[ri - exit_first] >= 0;	/* see dir_guarded */
					for (uint32_t pi = 0; pi < cr->npred && !dead; pi++) {
						const struct cpred *pp = &b.preds[cr->pred + pi];
						dead = static_false(pp, slot, nr, perm) || (nonames && needs_name(pp));
					}
					if (!dead)
						tmp[n++] = slot < 2 ? strip[ri - exit_first] : ri;
				}
				m->dyn_off[tab][k][perm] = add_list(&b, tmp, n);
				if (b.err)
					goto fail;
			}
			if (m->live[tab][nr / 64] >> (nr % 64) & 1)
				m->cand_off[tab][nr] = DYN_FLAG | (uint32_t)k;
		}
	}
	free(tmp);
	tmp = NULL;
	free(gdir);
	gdir = NULL;
	free(strip);
	strip = NULL;

	/* move the tables into place */
	m->rules = (struct crule *)m->hot;
	if (b.nrules)
		memcpy(m->rules, b.rules, b.nrules * sizeof(struct crule));
	m->preds = (struct cpred *)((char *)m->hot + sz_rules);
	if (b.npreds)
		memcpy(m->preds, b.preds, b.npreds * sizeof(struct cpred));
	m->pool = b.pool;
	b.pool = NULL;
	m->keys = b.keys;
	b.keys = NULL;
	m->idents = b.idents;
	b.idents = NULL;
	m->dirs = b.dirs;
	m->ndirs = (uint32_t)b.ndirs;
	b.dirs = NULL;
	{
		uint32_t cap = 16;
		while (cap < 2 * m->ndirs + 2)
			cap *= 2;
		m->dirhash = calloc(cap, sizeof(uint32_t));
		if (!m->dirhash) {
			b.err = -ENOMEM;
			goto fail;
		}
		m->dirhash_mask = cap - 1;
		for (uint32_t i = 0; i < m->ndirs; i++) {
			uint64_t ino = m->dirs[i].ino;
			m->dir_bloom[(ino >> 6) & 3] |= 1ull << (ino & 63);
			uint32_t h = ident_hash(m->dirs[i].ino, m->dirs[i].dev) & m->dirhash_mask;
			while (m->dirhash[h])
				h = (h + 1) & m->dirhash_mask;
			m->dirhash[h] = i + 1;
		}
	}
	m->lsm = b.lsm;
	m->nlsm = b.nlsm;
	b.lsm = NULL;
	m->masks = b.masks;
	b.masks = NULL;
	m->nrules = b.nrules;
	m->npreds = b.npreds;
	m->npool = b.npool;
	m->hot_bytes = sz_rules + sz_preds + sz_cand + sz_live + b.npool * sizeof(uint32_t);
	m->total_bytes = m->hot_bytes + b.nkeys + b.nidents * sizeof(struct cident) +
			 b.nlsm * sizeof(struct lsm_rule) + b.nmasks * sizeof(*m->masks) +
			 (m->hk_mask + 1) * sizeof(*m->hk) + (m->dir_off ? m->ndirs * sizeof(uint32_t) : 0);
	/* the pool is hot too, but was grown with realloc: keep it, it is read-only from now */
	builder_free(&b);
	*out = m;
	return 0;
fail:
	free(tmp);
	free(gdir);
	free(strip);
	{
		int err = b.err ? b.err : -ENOMEM;
		builder_free(&b);
		m->lsm = NULL;
		m->nlsm = 0;
		sp_audit_matcher_free(m);
		return err;
	}
}

SP_API void sp_audit_matcher_size(const struct sp_audit_matcher *m, size_t *hot, size_t *total)
{
	if (hot)
		*hot = m->hot_bytes;
	if (total)
		*total = m->total_bytes;
}

/* ---- RCU engine ---- */

/*
 * The engine: the current matcher under RCU, plus a fast gate that decides the commonest event,
 * an unaudited syscall, without entering a read-side critical section (liburcu's out-of-line
 * rcu_read_lock/unlock cost ~80 instructions, several times the decision itself).
 * The gate is a copy of the current matcher's fast-path inputs (slow_gate, hash_any, the live
 * bitmaps), read under a seqcount: a reader that sees an even, unchanged gseq around its loads
 * read one matcher's gate, and an event that gate sends nowhere gets exactly the decision that
 * matcher's own fast path returns (audit_decision_init: no list consulted), so the decision is
 * that of a rule set live at that moment.  Every other event (odd or changed gseq included)
 * takes the RCU path.  Writers update the gate under wlock; all gate accesses are atomics (no
 * fences: the writer's opening increment is an acquire RMW, the data stores and the closing
 * increment release; the reader's loads acquire), which ThreadSanitizer checks as they are.
 */
struct sp_audit_engine {
	struct sp_audit_matcher *cur;
	uint32_t gseq;			/* odd while the gate is rewritten */
	uint32_t g_slow;		/* cur->slow_gate */
	uint32_t g_hash;		/* cur->hash_any */
	pthread_mutex_t wlock;
	uint64_t g_live[2 * NSLOT][NSYS / 64] sp_cacheline_aligned;	/* cur->live */
};

/* Copy m's fast-path inputs into the gate.  Under e->wlock (or before e is shared). */
static void gate_store(struct sp_audit_engine *e, const struct sp_audit_matcher *m)
{
	__atomic_fetch_add(&e->gseq, 1, __ATOMIC_ACQUIRE);
	__atomic_store_n(&e->g_slow, m->slow_gate, __ATOMIC_RELEASE);
	__atomic_store_n(&e->g_hash, m->hash_any, __ATOMIC_RELEASE);
	for (size_t t = 0; t < 2 * NSLOT; t++)
		for (size_t w = 0; w < NSYS / 64; w++)
			__atomic_store_n(&e->g_live[t][w], m->live[t][w], __ATOMIC_RELEASE);
	__atomic_fetch_add(&e->gseq, 1, __ATOMIC_RELEASE);
}

/* 1 when the gate decides ev (d initialised: nothing consulted), 0 when ev needs the matcher. */
static sp_always_inline int gate_filter(const struct sp_audit_engine *e, const struct sp_audit_event *ev,
					struct sp_audit_decision *d)
{
	uint32_t g = ev->gate;
	uint32_t s1 = __atomic_load_n(&e->gseq, __ATOMIC_ACQUIRE);
	if (g & __atomic_load_n(&e->g_slow, __ATOMIC_ACQUIRE))
		return 0;
	uint32_t major = (uint32_t)ev->c_major;
	if (major < NSYS) {
		uint64_t w = __atomic_load_n(&e->g_live[g >> EV_GATE_TAB_SHIFT][major / 64], __ATOMIC_ACQUIRE);
		if (w >> (major % 64) & 1)
			return 0;
		if ((g & EV_GATE_NAMES) && __atomic_load_n(&e->g_hash, __ATOMIC_ACQUIRE))
			return 0;
	}
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
	matcher_filter(rcu_dereference(e->cur), ev, d);
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
	for (size_t i = 0; i < n; i++)
		matcher_filter(m, evs[i], &d[i]);	/* inline: no call through the PLT per event */
	rcu_read_unlock();
}
