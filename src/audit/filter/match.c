/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * match.c - the compiled audit filter's evaluation: one event against an immutable matcher
 * (match_int.h), deciding exactly what the reference engine decides while touching only the
 * rules that can match the event's (arch, syscall).
 *
 * Exit rules with `dir=` are not in the candidate lists: they hang off their root (dir_off), and
 * only the roots the syscall walked are visited, as the walk of the event's names finds them
 * (each root's rules highest priority first), merged with the candidates' first match by
 * priority; an event whose walk signature meets none of the roots its syscall's rules name is
 * not walked at all (dir_maybe).  The inode hash is split the same way: rules that need one
 * inode (a resolved watch, inode=) are found by that inode (hk), the others per bucket.  The
 * inner loop is a switch on the predicate kind: no function pointers.  A candidate list with
 * guarded rules (crule.guard) comes with the list of its unguarded rules, which is all an event
 * whose guard values' signature meets no rule's guard (the matcher's gsig) can match.
 * dir= rules with a guard of their own (exe=, subj_type=, uid=, auid= with op EQ) are walked for
 * only when the event may hold one of those values (dgsig), unless a root of an unguarded rule
 * may have been walked (the plain signature).
 * Fast path (sp_audit_matcher_filter, and the engine's read side through
 * audit_matcher_filter_busy):
 * the event's gate word carries its fast index; one bit of busy[] there decides a syscall whose
 * (ABI, syscall) has no candidate and no name reaching the inode hash or a filesystem rule,
 * without touching a rule or a list; else the word's kind, auditd and names bits say whether the
 * event can skip the task/filesystem/auditd checks.  exit_only_leaf() then screens without a
 * call: the candidate list, whether a root or the inode hash can matter, the candidates whose
 * first predicate fails; only what is left goes to exit_rules(), which evaluates the first
 * candidate left from its second predicate (its first held), and keeps the exit winner, the
 * hash winner and the key rule in registers.  A key shorter than KEY_PAD reaches the decision
 * by one fixed-size copy (compile.c stores the keys zero-padded).  dir= roots are found through a bloom keyed
 * by each walked entry's hash (64 bits per root) before the table probe (most walked
 * directories are not roots).  The exclude list is run on the SYSCALL / URINGOP record through
 * its view for that type.  Costs as measured: docs/DESIGN.md.
 *
 * Invariants: the matcher is read-only here (audit_matcher_is_valid() holds); the event's derived
 * fields are in sync (audit_event_is_synced()); every list is walked in priority order and its
 * first match is the kernel's.
 */
#include <string.h>

#include "audit/filter/match_int.h"

/* ---- the fast path: a screening that calls nothing ---- */

/* What exit_only_leaf's screening leaves to exit_rules besides the candidates: the dir= roots
 * (EXIT_DIR), the inode hash (EXIT_HASH), the list being the whole guarded one (EXIT_GUARDED). */
enum { EXIT_DIR = 1, EXIT_GUARDED = 2, EXIT_HASH = 4 };

/* The candidates [l, end) (the whole guarded list with EXIT_GUARDED), the dir= roots
 * (EXIT_DIR), the inode hash (EXIT_HASH); then the decision from the winner. */
static void exit_rules(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
		       struct sp_audit_decision *d, const uint32_t *l, const uint32_t *end,
		       uint32_t work);
/* Every event the fast path does not take: user messages, task and filesystem lists, auditd,
 * io_uring, syscalls out of range. */
static void matcher_slow(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
			 struct sp_audit_decision *d);

static inline uint32_t ld32(const struct sp_audit_event *ev, uint16_t off)
{
	uint32_t v;
	memcpy(&v, (const char *)ev + off, 4);
	return v;
}

/* The predicates rule_match evaluates inline and eval in its switch: 1 true, 0 false. */
static sp_always_inline int pred_u32(const struct sp_audit_event *ev, const struct cpred *p)
{
	return audit_comparator(ld32(ev, p->aux), p->op, p->val);
}

static sp_always_inline int pred_perm(const struct sp_audit_event *ev, const struct cpred *p)
{
	return ((ev->perm_bits & p->val) != 0) ^ (p->op == OP_NE);
}

static sp_always_inline int pred_exit(const struct sp_audit_event *ev, const struct cpred *p)
{
	if (ev->return_valid == RET_INVALID)
		return 0;
	return audit_comparator((uint32_t)ev->return_code, p->op, p->val);
}

/* Does signature sig meet the event's walk signature? */
static sp_always_inline int dsig_meets(const struct sp_audit_event *ev, const uint64_t sig[2])
{
	return ((ev->names_sig[0] & sig[0]) | (ev->names_sig[1] & sig[1])) != 0;
}

/* May one of the event's guard values (exe, subject type, uid, auid) be a dir rule's guard? */
static sp_always_inline int dguards_maybe(const struct sp_audit_matcher *m,
					  const struct sp_audit_event *ev)
{
	return (ev->gsig & m->dgsig) != 0;
}

/* Can the event (tab < NSLOT: it has a name) have walked a root of (tab, major)'s dir-guarded
 * rules that its perm bits let match?  None (index 0) when the syscall has no such rule (dlive
 * clear); else its walk signature against theirs: most events that did not are told here,
 * without dir_guarded's walk of every walked inode.  An event that may have walked only roots of
 * rules with a dir guard (not the plain signature's) and holds none of their guard values
 * cannot match them either. */
static sp_always_inline int dir_maybe(const struct sp_audit_matcher *m,
				      const struct sp_audit_event *ev, uint32_t tab, uint32_t major)
{
	uint32_t i = m->dsig_idx[tab][major], pi;
	if (!i)
		return 0;
	if (i == DSIG_DYN) {
		uint32_t k = m->cand_off[tab][major] & 3, perm = ev->perm_bits & 15;
		i = m->dsig_dyn[tab][k][perm];
		pi = m->dsig_pdyn[tab][k][perm];
	} else {
		pi = m->dsig_plain[tab][major];
	}
	if (!dsig_meets(ev, m->dsigs[i]))
		return 0;
	return dsig_meets(ev, m->dsigs[pi]) || dguards_maybe(m, ev);
}

/* The keyed inode-hash list of (u32) inode key (a pool offset), or 0. */
static sp_always_inline uint32_t hk_find(const struct sp_audit_matcher *m, uint32_t key)
{
	for (uint32_t h = (key * 0x9e3779b1u) >> 16 & m->hk_mask; m->hk[h].off; h = (h + 1) & m->hk_mask)
		if (m->hk[h].key == key)
			return m->hk[h].off;
	return 0;
}

/* Can a name of the event reach a rule of the inode hash: a pending watch (a name with a path),
 * a bucket with unkeyed rules, or a keyed list of its very inode (whose bloom bit is set)?
 * hash_pass without the rules: most named events reach none. */
static sp_always_inline int hash_maybe(const struct sp_audit_matcher *m,
				       const struct sp_audit_event *ev)
{
	if (unlikely(m->pending_off || m->hash_unkeyed)) {
		for (uint32_t i = 0; i < ev->nnames; i++) {
			const struct audit_name *n = &ev->names[i];
			uint32_t b = (uint32_t)n->ino & (KA_INODE_BUCKETS - 1);
			if ((m->pending_off && n->path) || (m->hash_unkeyed >> b & 1))
				return 1;
		}
	}
	for (uint32_t i = 0; i < ev->nnames; i++) {
		uint32_t bit = hk_bloom_bit((uint32_t)ev->names[i].ino);
		if (m->hk_bloom[bit / 64] >> (bit % 64) & 1)
			return 1;
	}
	return 0;
}

/* The exit-list candidate list of (tab, major) for the event (pool[] at a count): the whole
 * list when one of the event's values may be one of its rules' guards (*guarded set), else the
 * list of its rules without a guard, which is all that can match then. */
static sp_always_inline const uint32_t *exit_list(const struct sp_audit_matcher *m,
						 const struct sp_audit_event *ev, uint32_t tab,
						 uint32_t major, int *guarded)
{
	uint32_t off = m->cand_off[tab][major];
	*guarded = 0;
	if (off & DYN_FLAG)	/* argument-dependent perm: pick by perm bits */
		off = m->dyn_off[tab][off & 3][ev->perm_bits & 15];
	if (off & GUARD_FLAG) {
		const struct glist *gl = &m->glists[off & ~GUARD_FLAG];
		if (ev->gsig & m->gsig) {	/* a value may be a guard */
			*guarded = 1;
			return &m->pool[gl->full];
		}
		off = gl->plain;
	}
	return &m->pool[off];
}

/* The predicate kinds the screening evaluates (screened_out's cases): the one list both it and
 * screened_preds go by. */
#define SCREENED_KINDS (1u << PK_U32 | 1u << PK_PERM | 1u << PK_EXIT)

/* Is rule cr's first predicate one the screening evaluates (SCREENED_KINDS) and false for the
 * event (then the rule cannot match), or, guarded, its guard none of the event's values?  Calls
 * nothing. */
static sp_always_inline int screened_out(const struct sp_audit_matcher *m,
					 const struct crule *cr, const struct sp_audit_event *ev,
					 int guarded)
{
	const struct cpred *p = &m->preds[cr->pred];
	uint32_t g = cr->guard;
	if (guarded && g && g != ev->guard_x && g != ev->guard_t)
		return 1;
	if (!cr->npred)
		return 0;
	switch (p->kind) {
	case PK_U32: return !pred_u32(ev, p);
	case PK_PERM: return !pred_perm(ev, p);
	case PK_EXIT: return !pred_exit(ev, p);
	default:
		SP_ASSERT_INTERNAL(!(SCREENED_KINDS >> p->kind & 1));
		return 0;
	}
}

/* The predicates of cr that screened_out evaluated (and found true when it returned 0): 1 when
 * its first is of a kind the screening evaluates, else 0. */
static sp_always_inline uint32_t screened_preds(const struct sp_audit_matcher *m,
						const struct crule *cr)
{
	unsigned kind = cr->npred ? m->preds[cr->pred].kind : PK_FALSE;
	/* compares, not the mask: the leaf this inlines into is laid out better */
	uint32_t n = kind == PK_U32 || kind == PK_PERM || kind == PK_EXIT;
	SP_ASSERT_INTERNAL(n == (SCREENED_KINDS >> kind & 1));
	return n;
}

/*
 * exit_phase() for the fast path's events (a syscall, major < NSYS, no task list, state BUILD):
 * a screening that calls nothing (the candidate list, whether a dir= root or the inode hash can
 * matter, the candidates' first predicates), so that the commonest outcome, no rule left to
 * try, returns without a frame; else exit_rules.
 */
static sp_always_inline void exit_only_leaf(const struct sp_audit_matcher *m,
					   const struct sp_audit_event *ev,
					   struct sp_audit_decision *d, uint32_t tab)
{
	/* no live[] test: a syscall that is not live has the empty list and no root signature */
	uint32_t major = (uint32_t)ev->c_major, work;
	int guarded;
	const uint32_t *l = exit_list(m, ev, tab, major, &guarded);
	work = guarded ? EXIT_GUARDED : 0;
	if (tab < NSLOT && dir_maybe(m, ev, tab, major))
		work |= EXIT_DIR;
	if (ev->nnames && m->hash_any && hash_maybe(m, ev))
		work |= EXIT_HASH;
	if (!(l[0] | work))
		return;		/* the commonest: no candidate, no root, no hash rule */
	/* the candidates whose first predicate fails: the commonest rejection, told here */
	const uint32_t *end = l + 1 + l[0];
	for (l++; l < end && screened_out(m, &m->rules[*l], ev, work & EXIT_GUARDED); l++)
		;
	if (l == end && !(work & (EXIT_DIR | EXIT_HASH)))
		return;
	exit_rules(m, ev, d, l, end, work);
}

/*
 * The fast path: one load of the event's gate word and one word of busy[] decide the commonest
 * event, a syscall whose (ABI, syscall) has no candidate, no dir= root and no name that could
 * reach the inode hash or a filesystem rule, in a rule set without task rules: nothing matches,
 * the state stays BUILD.  A syscall of a task other than auditd that needs no task list and no
 * filesystem check goes to exit_only_leaf's screening, inline (its return needs no frame);
 * anything else to matcher_slow.
 */
static sp_always_inline void filter_inline(const struct sp_audit_matcher *m,
					   const struct sp_audit_event *ev,
					   struct sp_audit_decision *d, int busy_known)
{
	uint32_t g = ev->gate;	/* kind, auditd, has names, fast index: one load (line 0) */
	uint32_t fast = g >> EV_GATE_FAST_SHIFT;

	SP_ASSERT_INTERNAL(audit_event_is_synced(ev));
	audit_decision_init(d);
	if (!busy_known && likely(!matcher_busy(m, fast)))
		return;
	/* busy_known: the engine's gate may have been another matcher's, so the bit may be clear
	 * here, in any row: the row is tested */
	if (likely(!(g & m->slow_gate)) && (!busy_known || fast < 2 * NSLOT * NSYS)) {
		/* a syscall below NSYS (busy rows EV_ROW_OTHER and EV_ROW_RANGE set only bits
		 * slow_gate takes) of a rule set without task or filesystem lists */
		SP_ASSERT_INTERNAL(fast < 2 * NSLOT * NSYS && fast % NSYS == (uint32_t)ev->c_major);
		exit_only_leaf(m, ev, d, fast / NSYS);
		return;
	}
	matcher_slow(m, ev, d);
}

/* ---- the rules ---- */

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


static sp_always_inline int pred_exe(const struct sp_audit_matcher *m, const struct cpred *p,
				     const struct sp_audit_event *ev)
{
	const struct cident *id = &m->idents[p->aux];
	int r = ev->has_exe && ev->exe_ino == id->ino && ev->exe_dev == id->dev;
	return r ^ (p->op == OP_NE);
}

static sp_always_inline int pred_loginuid_set(const struct sp_audit_event *ev, const struct cpred *p)
{
	return audit_comparator((p->aux ? ev->t_loginuid : ev->loginuid) != SP_AUDIT_UNSET, p->op,
				p->val);
}

/* A watch: the name's identity is the watched one (no name, no watch, whatever the op). */
static sp_always_inline int pred_watch(const struct sp_audit_matcher *m, const struct cpred *p,
				       const struct audit_name *name)
{
	const struct cident *id = &m->idents[p->aux];
	if (!name)
		return 0;
	int r = id->ino != SP_AUDIT_INO_UNSET && id->ino == name->ino && id->dev == name->dev;
	return r ^ (p->op == OP_NE);
}

/* One predicate: 1 true, 0 false, 2 stop the user/exclude scan. */
static int eval(const struct sp_audit_matcher *m, const struct cpred *p,
		const struct sp_audit_event *ev, const struct audit_name *name, uint32_t vis,
		uint32_t msgtype)
{
	const struct audit_name *n;
	int r = 0;
	switch (p->kind) {
	case PK_FALSE: return 0;
	case PK_TRUE: return 1;
	case PK_STOP: return 2;
	case PK_U32: return pred_u32(ev, p);
	case PK_LOGINUID_SET: return pred_loginuid_set(ev, p);
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
	case PK_EXIT: return pred_exit(ev, p);
	case PK_SUCCESS:
		return ev->return_valid != RET_INVALID && audit_comparator(ev->return_valid, p->op, p->val);
	case PK_PERM: return pred_perm(ev, p);
	case PK_SADDR:
		return ev->saddr_fam >= 0 && audit_comparator((uint32_t)ev->saddr_fam, p->op, p->val);
	case PK_FCMP_CRED:
		if (p->aux & FCMP_TASK)
			return audit_id_comparator(audit_task_cred(ev, p->aux & 0xff), p->op,
						   audit_task_cred(ev, (p->aux >> 8) & 0x7f));
		return audit_id_comparator(audit_cred(ev, p->aux & 0xff), p->op, audit_cred(ev, p->aux >> 8));
	case PK_MSGTYPE: return audit_comparator(msgtype, p->op, p->val);
	case PK_EXE: return pred_exe(m, p, ev);
	case PK_DEVMAJ:
	case PK_DEVMIN:
		if (name)
			return name_devpart(name, p->kind == PK_DEVMAJ, p->op, p->val);
		audit_for_each_visible(n, ev, ~vis)
			if (name_devpart(n, p->kind == PK_DEVMAJ, p->op, p->val))
				return 1;
		return 0;
	case PK_INODE:
		if (name)
			return audit_comparator((uint32_t)name->ino, p->op, p->val);
		audit_for_each_visible(n, ev, ~vis)
			if (audit_comparator((uint32_t)n->ino, p->op, p->val))
				return 1;
		return 0;
	case PK_OBJ_UID:
	case PK_OBJ_GID:
		if (name)
			return audit_id_comparator(p->kind == PK_OBJ_GID ? name->gid : name->uid, p->op, p->val);
		audit_for_each_visible(n, ev, ~vis)
			if (audit_id_comparator(p->kind == PK_OBJ_GID ? n->gid : n->uid, p->op, p->val))
				return 1;
		return 0;
	case PK_FILETYPE:
		audit_for_each_visible(n, ev, ~vis)
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
		audit_for_each_visible(n, ev, ~vis)
			if (audit_id_comparator(left, p->op, g ? n->gid : n->uid))
				return 1;
		return 0;
	}
	case PK_WATCH: return pred_watch(m, p, name);
	case PK_DIR: {
		const struct cident *id = &m->idents[p->aux];
		audit_for_each_visible(n, ev, ~vis) {
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
		audit_for_each_visible(n, ev, ~vis)
			if (lsm_match(&m->lsm[p->aux], audit_name_octx(n)))
				return 1;
		return 0;
	}
	return 0;
}

/* Does cr match, its predicates from the first-th on (those before it known true)? */
static sp_always_inline int rule_match_from(const struct sp_audit_matcher *m,
					    const struct crule *cr, const struct sp_audit_event *ev,
					    const struct audit_name *name, uint32_t vis,
					    uint32_t first)
{
	const struct cpred *p = &m->preds[cr->pred] + first, *end = &m->preds[cr->pred] + cr->npred;
	for (; p < end; p++) {
		/* the commonest predicates inline: a 32-bit load and compare, perm, exe, auid set,
		 * exit, watch */
		switch (p->kind) {
		case PK_U32:
			if (!pred_u32(ev, p))
				return 0;
			break;
		case PK_PERM:
			if (!pred_perm(ev, p))
				return 0;
			break;
		case PK_EXE:
			if (!pred_exe(m, p, ev))
				return 0;
			break;
		case PK_LOGINUID_SET:	/* auid!=unset, the usual companion of auid>=1000 */
			if (!pred_loginuid_set(ev, p))
				return 0;
			break;
		case PK_EXIT:		/* exit=-EACCES / -EPERM: the access-failure rules */
			if (!pred_exit(ev, p))
				return 0;
			break;
		case PK_WATCH:		/* every watch rule's: the name the inode hash found it by */
			if (!pred_watch(m, p, name))
				return 0;
			break;
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
			if (!eval(m, p, ev, name, vis, 0))
				return 0;
		}
	}
	return 1;
}

static sp_always_inline int rule_match(const struct sp_audit_matcher *m, const struct crule *cr,
				       const struct sp_audit_event *ev,
				       const struct audit_name *name, uint32_t vis)
{
	return rule_match_from(m, cr, ev, name, vis, 0);
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
			res = eval(m, &p[j], ev, NULL, 0, msgtype);
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
	_Static_assert(SP_AUDIT_MAX_KEY_LEN >= KEY_PAD, "a short key fits the decision whole");
	if (cr->key_len < KEY_PAD) {	/* the key and its zero padding: one fixed-size copy */
		memcpy(d->key, m->keys + cr->key_off, KEY_PAD);
		d->key_len = cr->key_len;
		d->has_key = 1;
		return;
	}
	audit_decision_set_key(d, m->keys + cr->key_off, cr->key_len);
}


/* Root r's rules (priority order) against *floor: the first above it that can match this syscall
 * and does, else win. */
static const struct crule *root_rules(const struct sp_audit_matcher *m,
				      const struct sp_audit_event *ev, uint32_t vis, uint32_t r,
				      uint32_t major, const struct crule *win, uint64_t *floor)
{
	const uint32_t *l = &m->pool[m->dir_off[r]];
	for (uint32_t k = 1; k <= l[0]; k++) {
		const struct crule *cr = &m->rules[l[k]];
		if (cr->prio <= *floor)
			break;
		if (cr->permreq && !(ev->perm_bits & cr->permreq))
			continue;	/* its perm= cannot match this syscall */
		if (!(m->masks[cr->mask_idx][major / 32] >> (major % 32) & 1))
			continue;
		if (rule_match(m, cr, ev, NULL, vis)) {
			*floor = cr->prio;
			return cr;
		}
	}
	return win;
}

/*
 * The exit rules guarded by a dir= root (kept out of the candidate lists): only the roots the
 * syscall walked can match, each root's rules in priority order, visited as the walk finds the
 * root (a root walked twice is visited twice: the second finds nothing above the floor).
 * Returns the highest-priority matching rule among win and them (list order is priority order:
 * the kernel's first match).
 */
static sp_noinline const struct crule *dir_guarded(const struct sp_audit_matcher *m,
						   const struct sp_audit_event *ev, uint32_t vis,
						   uint32_t major, const struct crule *win)
{
	uint64_t floor = win ? win->prio : 0;
	const struct audit_name *n;
	audit_for_each_visible(n, ev, ~vis) {
		if (!(n->walk_sig & m->dir_sig))
			continue;
		for (const struct audit_walk *w = n->walk, *end = w + n->nwalk; w < end; w++) {
			uint32_t b = (w->h >> 6) & m->dir_bloom_mask;	/* dir_bloom_bit */
			if (!(m->dir_bloom[b / 64] >> (b % 64) & 1))
				continue;
			for (uint32_t x, h = w->h & m->dirhash_mask; (x = m->dirhash[h]);
			     h = (h + 1) & m->dirhash_mask) {
				const struct cident *id = &m->dirs[x - 1];
				if (id->ino == w->ino && id->dev == w->dev) {
					win = root_rules(m, ev, vis, x - 1, major, win, &floor);
					break;
				}
			}
		}
	}
	return win;
}
static sp_always_inline void exit_phase(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
					struct sp_audit_decision *d, struct cstate *sp, uint32_t vis,
					uint32_t tab, int skip_lists);

/* The exclude list's view for the event's SYSCALL / URINGOP record (compile.c exclude_view). */
static inline uint32_t exclude_view_of(const struct sp_audit_matcher *m,
				       const struct sp_audit_event *ev)
{
	return ev->kind == SP_AUDIT_EV_URING ? m->exclude_uring_off : m->exclude_sys_off;
}

/* The exclude list on the SYSCALL / URINGOP record about to be written. */
static sp_noinline void exclude_record(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
				       struct sp_audit_decision *d)
{
	uint8_t v;
	uint32_t type = ev->kind == SP_AUDIT_EV_URING ? KA_MSG_URINGOP : KA_MSG_SYSCALL;
	d->excluded = !filter_ue(m, exclude_view_of(m, ev), ev, type, 1, &d->exclude_rule, &v);
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
		if (rule_match(m, cr, ev, n, vis))
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
			uint32_t off = hk_find(m, (uint32_t)n->ino);
			if (off)
				w = first_hash_match(m, &m->pool[off], ev, n, vis, major, floor);
			const struct crule *u = !m->hash_off[b] ? NULL :	/* most buckets: keyed only */
				first_hash_match(m, &m->pool[m->hash_off[b]], ev, n, vis, major,
						 w ? w->prio : floor);
			if (u)
				w = u;
		}
		if (w)
			return w;
	}
	return NULL;
}

/* The first rule of the candidate list l[0..end) that matches ev.  guarded (a constant): a rule
 * with a guard is tried only when one of the event's values gx, gt equals it (a guard of the
 * other kind never does). */
static sp_always_inline const struct crule *candidates_in(const struct sp_audit_matcher *m,
							  const struct sp_audit_event *ev,
							  uint32_t vis, const uint32_t *l,
							  const uint32_t *end, int guarded,
							  uint32_t gx, uint32_t gt)
{
	/* locals: the out-of-line predicate calls cannot make the compiler reload them */
	const struct crule *rules = m->rules;
	for (; l < end; l++) {
		const struct crule *cr = &rules[*l];
		uint32_t g = cr->guard;
		if (guarded && g && g != gx && g != gt)
			continue;	/* its exe= or subj_type= predicate fails */
		if (rule_match(m, cr, ev, NULL, vis))
			return cr;
	}
	return NULL;
}

/* The first rule of candidates [l, end) that matches, or NULL; guarded: the list is the whole
 * guarded one (exit_list's *guarded). */
static sp_always_inline const struct crule *first_candidate(const struct sp_audit_matcher *m,
							    const struct sp_audit_event *ev,
							    uint32_t vis, const uint32_t *l,
							    const uint32_t *end, int guarded)
{
	if (guarded)
		return candidates_in(m, ev, vis, l, end, 1, ev->guard_x, ev->guard_t);
	return candidates_in(m, ev, vis, l, end, 0, 0, 0);
}

/* The exit-list candidates of (tab, major): the first that matches, or NULL. */
static sp_always_inline const struct crule *exit_candidates(const struct sp_audit_matcher *m,
							    const struct sp_audit_event *ev,
							    uint32_t vis, uint32_t tab, uint32_t major)
{
	int guarded;
	const uint32_t *l = exit_list(m, ev, tab, major, &guarded);
	return first_candidate(m, ev, vis, l + 1, l + 1 + l[0], guarded);
}

static sp_noinline void exit_rules(const struct sp_audit_matcher *m,
				   const struct sp_audit_event *ev, struct sp_audit_decision *d,
				   const uint32_t *l, const uint32_t *end, uint32_t work)
{
	uint32_t major = (uint32_t)ev->c_major;
	/* no filesystem list hides a name here: every bit set (the visibility mask is only ever
	 * read for names below nnames) */
	const uint32_t vis = ~0u;
	const struct crule *win = NULL, *keyrule;
	if (l < end) {	/* the screening's survivor: its guard and screened predicate hold */
		const struct crule *cr = &m->rules[*l];
		win = rule_match_from(m, cr, ev, NULL, vis, screened_preds(m, cr)) ? cr :
			first_candidate(m, ev, vis, l + 1, end, (work & EXIT_GUARDED) != 0);
	}
	if (work & EXIT_DIR)
		win = dir_guarded(m, ev, vis, major, win);
	keyrule = win && win->has_key ? win : NULL;
	if (work & EXIT_HASH) {
		const struct crule *h = hash_pass(m, ev, vis, major, win ? win->prio : 0);
		if (h) {
			win = h;
			if (h->has_key)
				keyrule = h;
		}
	}
	if (!win)
		return;		/* nothing matched: d stays as initialised (BUILD, no key) */
	/* exit_phase()'s tail, spelled out: shared through an inline helper, the compiler spills
	 * major to the stack on this path (docs/DESIGN.md) */
	d->exit = win->action == AA_NEVER ? SP_AUDIT_NEVER : SP_AUDIT_ALWAYS;
	d->exit_rule = win->id;
	if (keyrule)
		set_key(d, m, keyrule);
	d->record = win->action != AA_NEVER;
	if (d->record && m->pool[m->exclude_sys_off])	/* a syscall: its SYSCALL record */
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
		if (likely(major < NSYS) && matcher_live(m, tab * NSYS + major)) {
			const struct crule *win = exit_candidates(m, ev, vis, tab, major);
			if (tab < NSLOT && dir_maybe(m, ev, tab, major))
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
			    rule_match(m, cr, ev, NULL, vis)) {
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
	if (d->record && m->pool[exclude_view_of(m, ev)])
		exclude_record(m, ev, d);
}

static sp_noinline void matcher_slow(const struct sp_audit_matcher *m,
				     const struct sp_audit_event *ev, struct sp_audit_decision *d)
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
			if (rule_match(m, cr, ev, NULL, 0)) {
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

SP_API void sp_audit_matcher_filter(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
				    struct sp_audit_decision *d)
{
	filter_inline(m, ev, d, 0);
}

/* The busy bit is not tested: a clear bit only spares the evaluation, whose decision is the
 * same (nothing matches); the fast path's row test is kept. */
void audit_matcher_filter_busy(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
			       struct sp_audit_decision *d)
{
	filter_inline(m, ev, d, 1);
}

void audit_matcher_filter_batch(const struct sp_audit_matcher *m,
				const struct sp_audit_event *const *evs, size_t n,
				struct sp_audit_decision *d)
{
	for (size_t i = 0; i < n; i++)
		filter_inline(m, evs[i], &d[i], 0);
}
