/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * filter_int.h - internals shared by the audit filter engines: the event layout, the kernel-form
 * rule (struct audit_krule after audit_data_to_entry), the rule database the compiler reads
 * (struct audit_ruledb), the syscall class tables and the comparators.  Nothing here is public;
 * include/secpath/audit_filter.h is the contract.
 *
 * Invariants: an event's c_* fields are the audit_context values the kernel filters read
 * (io_uring worker ops have arch/args/major 0), kept in sync by every setter; perm_bits is the
 * set of AUDIT_PERM_* bits audit_match_perm() would accept for the event (compiled engine only);
 * audit_event_is_synced() checks both, and the engines assert it (SP_ASSERT_INTERNAL).
 */
#ifndef SP_AUDIT_ENGINE_INT_H
#define SP_AUDIT_ENGINE_INT_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "secpath/audit_filter.h"
#include "audit/audit_int.h"
#include "base/compiler.h"
#include "base/assert.h"
#include "base/list.h"

enum { PERM_EXEC = 1, PERM_WRITE = 2, PERM_READ = 4, PERM_ATTR = 8 };
enum { STATE_DISABLED = 0, STATE_BUILD = 1, STATE_RECORD = 2 };
enum { RET_INVALID = 0, RET_SUCCESS = 1, RET_FAILURE = 2 };
/* audit_classify_syscall results */
enum { SC_NATIVE = 0, SC_COMPAT, SC_OPEN, SC_OPENAT, SC_SOCKETCALL, SC_EXECVE, SC_OPENAT2 };
/* syscall classes (AUDIT_CLASS_*) */
enum {
	CL_DIR_WRITE = 0, CL_DIR_WRITE_32, CL_CHATTR, CL_CHATTR_32, CL_READ, CL_READ_32, CL_WRITE,
	CL_WRITE_32, CL_SIGNAL, CL_SIGNAL_32, CL_NR,
};
#define KA_INODE_BUCKETS 32
#define KA_MSG_SYSCALL 1300u
#define KA_MSG_URINGOP 1336u
#define KA_DEV_UNSET UINT32_MAX

/* ---- LSM (SELinux-shaped) contexts ---- */

#define LSM_CAT_WORDS 16	/* 1024 categories */
struct lsm_level {
	uint32_t sens;
	uint64_t cats[LSM_CAT_WORDS];
};

struct lsm_ctx {
	char *user, *role, *type;	/* NUL-terminated, owned */
	uint64_t h_user, h_role, h_type;	/* FNV-1a of each (precomputed identities) */
	struct lsm_level low, high;
};

/* A compiled LSM rule term (selinux_audit_rule_init): name for user/role/type, level otherwise. */
struct lsm_rule {
	uint32_t field;
	uint32_t op;
	char *name;
	uint64_t h_name;
	struct lsm_level level;
};

uint64_t audit_hash_str(const char *s);
/* Parse "u:r:t[:mls]" into c (allocates).  0 or -EINVAL/-ENOMEM. */
int audit_lsm_ctx_parse(struct lsm_ctx *c, const char *text);
void audit_lsm_ctx_release(struct lsm_ctx *c);
/* The unlabeled context (static, never freed). */
extern const struct lsm_ctx audit_unlabeled_ctx;
static inline const struct lsm_ctx *audit_lsm_unlabeled(void)
{
	return &audit_unlabeled_ctx;
}
/* Parse a level ("s0", "s0:c1,c3.c5", ranges take their low part).  0 or -EINVAL. */
int audit_lsm_level_parse(struct lsm_level *l, const char *text, size_t len);
/* selinux_audit_rule_match for one context: 1 match, 0 not. */
int audit_lsm_match(const struct lsm_ctx *c, const struct lsm_rule *r);

/* ---- events ---- */

struct audit_walk {
	uint64_t ino;
	uint32_t dev;
	uint32_t h;			/* audit_walk_hash(ino, dev), set with the entry */
};

/* The hash of an identity the compiled matcher's dir= tables are keyed by (match_int.h): its
 * low bits pick the root table's slot, bits 6 and up the roots' bloom bit, the top 6 bits the
 * walk signature's. */
static inline uint32_t audit_walk_hash(uint64_t ino, uint32_t dev)
{
	return (uint32_t)(((ino ^ ((uint64_t)dev << 32)) * 0x9e3779b97f4a7c15ull) >> 32);
}

/* One bit of 64 for a walked identity of hash h: a name whose walk_sig shares no bit with a
 * matcher's directories' cannot be under any of them (dir_guarded skips its walk). */
static inline uint64_t audit_walk_bit(uint32_t h)
{
	return 1ull << (h >> 26);
}

/* An event's walk signature: one bit of 128 per walked identity of any of its names (the top 7
 * bits of its hash).  An event whose signature meets no bit of a set of directories' walked
 * none of them. */
static inline void audit_ev_sig_add(uint64_t sig[2], uint32_t h)
{
	sig[h >> 31] |= 1ull << (h >> 25 & 63);
}

/* The first cache line holds what the filters read; the object context (cold) follows. */
struct audit_name {
	uint64_t ino;
	uint32_t dev, rdev;
	uint32_t mode, uid, gid;
	uint32_t fs_magic;
	uint16_t nwalk, walk_cap;
	uint8_t has_octx;
	uint8_t nametype;		/* SP_AUDIT_NAME_*: CREATE and DELETE re-bind marks */
	uint64_t walk_sig;		/* OR of audit_walk_bit over walk[0..nwalk) */
	struct audit_walk *walk;
	char *path;			/* NULL, or in path_buf */
	struct lsm_ctx octx;
	char *path_buf;			/* kept across events, as walk is */
	size_t path_cap;
} __attribute__((aligned(64)));

/*
 * gate (see filter/event.c): bits 0-7 kind, bit 8 is_auditd, bit 16 the event has names, bits
 * 18-31 the event's fast index: one bit of the compiled engine's fast-path tables (match_int.h
 * busy[]).  A syscall of a task other than auditd with a number below EV_NSYS has the index
 * tab * EV_NSYS + number, tab its candidate table (ABI slot, +3 without names); any other
 * syscall number is in row EV_ROW_RANGE (bit 0 without names, 1 with), any other event in row
 * EV_ROW_OTHER.
 */
#define EV_GATE_AUDITD 0x100u
#define EV_GATE_NAMES 0x10000u
#define EV_GATE_FAST_SHIFT 18
#define EV_NSYS (ARD_MASK_WORDS * 32)	/* syscall numbers an audit mask holds */
#define EV_ROW_OTHER 6u
#define EV_ROW_RANGE 7u
#define EV_NROWS 8u
_Static_assert(EV_NROWS * EV_NSYS <= 1u << (32 - EV_GATE_FAST_SHIFT), "the fast index fits the gate");

/*
 * Cache-line aligned; line 0 holds everything the compiled engine's fast path and its commonest
 * predicates read (gate, the syscall, perm bits, return, names, uid/loginuid, the guard values
 * values' signature), line 1 the
 * arguments and the other credentials, the rest is cold (raw values, groups, contexts, the task
 * list's view).
 */
struct sp_audit_event {
	/* line 0 */
	uint32_t gate;
	uint32_t kind;
	uint32_t c_arch;
	int32_t c_major;		/* syscall number (ctx->major) */
	uint32_t nnames;
	uint32_t perm_bits;		/* see file comment */
	uint32_t return_valid;		/* RET_* */
	uint32_t loginuid;
	int64_t return_code;		/* after audit_return_fixup */
	struct audit_name *names;
	uint32_t uid;
	uint8_t has_exe, is_auditd, has_sctx, pad0;
	uint64_t gsig;			/* audit_guard_sig of guard_x, guard_t and the uid's and
					 * loginuid's audit_guard_cred */
	/* line 1 */
	uint64_t c_argv[4];
	uint32_t exe_dev;
	uint32_t euid, suid, fsuid;
	uint32_t gid, egid, sgid, fsgid;
	/* line 2 */
	uint32_t sessionid, personality;
	uint32_t pid, tid, ppid;
	uint32_t op;			/* io_uring opcode (ctx->uring_op) */
	uint32_t msgtype;
	int32_t saddr_fam;		/* -1: no sockaddr */
	uint32_t ngroups, groups_cap;
	uint32_t *groups;
	uint64_t openat2_flags;
	uint64_t names_sig[2];		/* of every name's walk: audit_ev_sig_add */
	uint32_t guard_x, guard_t;	/* audit_guard_exe of the exe (0: none), audit_guard_type */
	uint64_t exe_ino;
	/* raw syscall values (kept so kind changes resync c_*) */
	uint32_t arch;
	int32_t major;
	uint64_t argv[4];
	uint32_t names_cap;
	uint32_t colour;		/* lines between the allocation and the event (filter/event.c) */
	struct lsm_ctx sctx;
	/* the task list's view (audit_alloc at fork): the forking task's tgid and credentials.
	 * Without sp_audit_event_set_task_creds they mirror the event's (t_pid = ppid) and
	 * t_groups aliases groups; every setter keeps that true. */
	uint32_t t_pid;
	uint32_t t_uid, t_euid, t_suid, t_fsuid;
	uint32_t t_gid, t_egid, t_sgid, t_fsgid;
	uint32_t t_loginuid, t_sessionid;
	uint32_t has_tcred;
	uint32_t t_ngroups, t_groups_cap;
	const uint32_t *t_groups;	/* groups, or t_own */
	uint32_t *t_own;
} __attribute__((aligned(64)));

/* Every visible name n of ev: bit i of hidden clear (not hidden by a filesystem `never` rule). */
#define audit_for_each_visible(n, ev, hidden)                                                       \
	for (uint32_t vi__ = 0; vi__ < (ev)->nnames; vi__++)                                        \
		if (!((hidden) >> vi__ & 1) && ((n) = &(ev)->names[vi__]))

/* Candidate-table slot of an audit arch: x86_64 0, i386 1, anything else 2. */
static inline int audit_slot_of(uint32_t arch)
{
	return arch == SP_AUDIT_ARCH_X86_64 ? 0 : arch == SP_AUDIT_ARCH_I386 ? 1 : 2;
}

static inline const struct lsm_ctx *audit_ev_sctx(const struct sp_audit_event *ev)
{
	return ev->has_sctx ? &ev->sctx : audit_lsm_unlabeled();
}
/*
 * Guard values: an exe= or subj_type= predicate with op EQ reduced to 32 bits (the compiled
 * matcher's crule.guard), and the event's own, kept with the fields they come from (guard_x,
 * guard_t); a dir= rule's guard may also be a uid= or auid= predicate with op EQ
 * (audit_guard_cred).  The event keeps the signature of all four of its values (gsig).  The
 * kinds' ranges are disjoint (bit 31: exe; bits 31..30 = 01: subj_type; bits 31..29 = 001: a
 * credential); 0 is no guard and no event value.
 */
static inline uint32_t audit_guard_exe(uint64_t ino, uint32_t dev)
{
	uint64_t h = (ino ^ (uint64_t)dev << 32) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 33) | 0x80000000u;
}

static inline uint32_t audit_guard_type(uint64_t h_name)
{
	return ((uint32_t)h_name & 0x3fffffffu) | 0x40000000u;
}

/* A credential's guard: the event field at offset off (uid or loginuid) holding v. */
static inline uint32_t audit_guard_cred(uint32_t off, uint32_t v)
{
	uint64_t h = ((uint64_t)off << 32 | v) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 35) | 0x20000000u;
}

/* A guard value's bit in a 64-bit signature (the event's gsig, the matcher's gsig and dgsig):
 * none for 0.  Equal values have equal bits, so a value whose bit a rule set's signature lacks
 * is none of its guards. */
static inline uint64_t audit_guard_sig(uint32_t g)
{
	return g ? 1ull << (g & 63) : 0;
}

static inline const struct lsm_ctx *audit_name_octx(const struct audit_name *n)
{
	return n->has_octx ? &n->octx : audit_lsm_unlabeled();
}
/* The file comment's invariants: gate, c_*, perm_bits, the guard values and the task-list view
 * agree with the event's fields (filter/event.c; the engines assert it, SP_ASSERT_INTERNAL).
 * 1 or 0. */
int audit_event_is_synced(const struct sp_audit_event *ev);
/* For a builder that writes many fields itself (audit/log/build.c): audit_event_clear() is
 * sp_audit_event_reset() without the derived views, which one audit_event_sync() then makes to
 * agree with the fields (as every setter does for its own).  In between, ev is not synced. */
void audit_event_clear(struct sp_audit_event *ev);
void audit_event_sync(struct sp_audit_event *ev);
/* groups_search() over the event's supplementary groups, and over the task list's (fork) view */
int audit_groups_search(const struct sp_audit_event *ev, uint32_t gid);
int audit_task_groups_search(const struct sp_audit_event *ev, uint32_t gid);

/* ---- kernel-form rules (struct audit_krule) ---- */

struct audit_kfield {
	uint32_t type;
	uint32_t op;			/* OP_* */
	uint32_t val;
	char *lsm_str;			/* LSM fields: the rule text */
	struct lsm_rule *lsm_rule;	/* NULL: invalid text, never matches */
};

struct audit_krule {
	uint32_t flags;			/* AL_PREPEND or 0 */
	uint32_t pflags;		/* AUDIT_LOGINUID_LEGACY */
	uint32_t listnr;
	uint32_t action;
	uint32_t field_count;
	uint32_t buflen;
	uint32_t id;
	uint32_t mask[ARD_MASK_WORDS];
	uint64_t prio;
	struct audit_kfield *fields;
	char *filterkey;
	int inode_f;			/* index of the inode= field living in the hash, or -1 */
	uint8_t has_watch, has_tree, has_exe, watch_parent_missing;
	char *watch_path, *tree_path, *exe_path;
	uint64_t watch_ino, tree_ino, exe_ino;
	uint32_t watch_dev, tree_dev, exe_dev;
};

/* Allocation of kernel-side objects: entries may come from a dedicated cache. */
void *audit_kzalloc(size_t size);
void audit_kfree(void *p);
char *audit_kstrndup(const char *s, size_t n);

/*
 * audit_data_to_entry(): validate and translate a blob into r (fields/strings allocated with
 * audit_kzalloc).  Resolves watch/tree/exe paths against fs.  Returns 0 or -errno; on error r
 * holds nothing to free.
 */
int audit_krule_from_data(struct audit_krule *r, const void *blob, size_t len,
			  const struct sp_audit_fsview *fs);
void audit_krule_release(struct audit_krule *r);
/* audit_compare_rule(): 0 when identical. */
int audit_krule_compare(const struct audit_krule *a, const struct audit_krule *b);
/* The inode-hash bucket of a rule, or -1 when it lives on its filter list. */
int audit_krule_bucket(const struct audit_krule *r);

/* ---- syscall classes (arch/x86/kernel/audit_64.c, arch/x86/ia32/audit.c) ---- */

int audit_classify_syscall(uint32_t arch, uint32_t nr);
int audit_match_class(int cls, uint32_t nr);
/* The AUDIT_PERM_* bits audit_match_perm() accepts for this event. */
uint32_t audit_event_perm_bits(const struct sp_audit_event *ev);

static inline int audit_comparator(uint32_t left, uint32_t op, uint32_t right)
{
	switch (op) {
	case OP_EQ: return left == right;
	case OP_NE: return left != right;
	case OP_LT: return left < right;
	case OP_LE: return left <= right;
	case OP_GT: return left > right;
	case OP_GE: return left >= right;
	case OP_BITMASK: return (left & right) != 0;
	case OP_BITTEST: return (left & right) == right;
	default: return 0;
	}
}
/* kuid/kgid comparators: no bit operators (audit_uid_comparator). */
static inline int audit_id_comparator(uint32_t left, uint32_t op, uint32_t right)
{
	return op == OP_BITMASK || op == OP_BITTEST ? 0 : audit_comparator(left, op, right);
}


/* AUDIT_COMPARE_* (1..25): which credential is compared with which (include/uapi/linux/audit.h). */
enum { CS_UID = 0, CS_EUID, CS_SUID, CS_FSUID, CS_AUID, CS_GID, CS_EGID, CS_SGID, CS_FSGID,
       CS_OBJ_UID, CS_OBJ_GID };
static const uint8_t audit_compare_pairs[26][2] = {
	[1] = { CS_UID, CS_OBJ_UID },	[2] = { CS_GID, CS_OBJ_GID },
	[3] = { CS_EUID, CS_OBJ_UID },	[4] = { CS_EGID, CS_OBJ_GID },
	[5] = { CS_AUID, CS_OBJ_UID },	[6] = { CS_SUID, CS_OBJ_UID },
	[7] = { CS_SGID, CS_OBJ_GID },	[8] = { CS_FSUID, CS_OBJ_UID },
	[9] = { CS_FSGID, CS_OBJ_GID },	[10] = { CS_UID, CS_AUID },
	[11] = { CS_UID, CS_EUID },	[12] = { CS_UID, CS_FSUID },
	[13] = { CS_UID, CS_SUID },	[14] = { CS_AUID, CS_FSUID },
	[15] = { CS_AUID, CS_SUID },	[16] = { CS_AUID, CS_EUID },
	[17] = { CS_EUID, CS_SUID },	[18] = { CS_EUID, CS_FSUID },
	[19] = { CS_SUID, CS_FSUID },	[20] = { CS_GID, CS_EGID },
	[21] = { CS_GID, CS_FSGID },	[22] = { CS_GID, CS_SGID },
	[23] = { CS_EGID, CS_FSGID },	[24] = { CS_EGID, CS_SGID },
	[25] = { CS_SGID, CS_FSGID },
};

static inline uint32_t audit_cred(const struct sp_audit_event *ev, int src)
{
	switch (src) {
	case CS_UID: return ev->uid;
	case CS_EUID: return ev->euid;
	case CS_SUID: return ev->suid;
	case CS_FSUID: return ev->fsuid;
	case CS_AUID: return ev->loginuid;
	case CS_GID: return ev->gid;
	case CS_EGID: return ev->egid;
	case CS_SGID: return ev->sgid;
	default: return ev->fsgid;
	}
}

/* The same credentials as the task list sees them (the forking task's). */
static inline uint32_t audit_task_cred(const struct sp_audit_event *ev, int src)
{
	switch (src) {
	case CS_UID: return ev->t_uid;
	case CS_EUID: return ev->t_euid;
	case CS_SUID: return ev->t_suid;
	case CS_FSUID: return ev->t_fsuid;
	case CS_AUID: return ev->t_loginuid;
	case CS_GID: return ev->t_gid;
	case CS_EGID: return ev->t_egid;
	case CS_SGID: return ev->t_sgid;
	default: return ev->t_fsgid;
	}
}

/* ---- the rule database: what a backend (the compiler) reads ---- */

/*
 * The kernel-form rules of every filter list (AL_*) and of every inode-hash bucket, each set in
 * the order the kernel walks it (list order, which on the exit and io_uring lists is priority
 * order), plus audit_n_rules.  The rules are borrowed from their owner and read-only: a db is
 * valid while its owner is unchanged.  libseccomp's db.c / gen_bpf.c split: the reference engine
 * owns the rules, the compiler only consumes this.
 */
enum { AUDIT_DB_BUCKET0 = AL_NR, AUDIT_DB_NSETS = AL_NR + KA_INODE_BUCKETS };

struct audit_ruledb {
	const struct audit_krule **rules;	/* every set's rules, set after set */
	uint32_t off[AUDIT_DB_NSETS + 1];	/* set s is rules[off[s], off[s + 1]) */
	size_t n_rules;				/* audit_n_rules: task, exit, io_uring rules */
};

/* The rules of filter list `list` (AL_*): *n of them. */
static inline const struct audit_krule *const *audit_ruledb_list(const struct audit_ruledb *db,
								 int list, uint32_t *n)
{
	*n = db->off[list + 1] - db->off[list];
	return db->rules + db->off[list];
}
/* The rules of inode-hash bucket h (0..KA_INODE_BUCKETS-1): *n of them. */
static inline const struct audit_krule *const *audit_ruledb_bucket(const struct audit_ruledb *db,
								   int h, uint32_t *n)
{
	return audit_ruledb_list(db, AUDIT_DB_BUCKET0 + h, n);
}
/* The reference engine's rules as a db (filter/ref.c).  0 or -ENOMEM. */
int audit_ruledb_from_ref(struct audit_ruledb *db, const struct sp_audit_ref *r);
void audit_ruledb_release(struct audit_ruledb *db);
/* Lower db into a matcher (filter/compile.c).  0 or -ENOMEM. */
int audit_matcher_compile_db(const struct audit_ruledb *db, struct sp_audit_matcher **out);

static inline void audit_decision_init(struct sp_audit_decision *d)
{
	/* record .. fs_hidden are all 0 (NOMATCH, CTX_ACTIVE): one wide store, then the rule ids */
	_Static_assert(SP_AUDIT_NOMATCH == 0 && SP_AUDIT_CTX_ACTIVE == 0, "zero is the initial state");
	memset(d, 0, offsetof(struct sp_audit_decision, task_rule));
	d->task_rule = d->exit_rule = d->user_rule = d->exclude_rule = -1;
	d->key[0] = 0;
}
void audit_decision_set_key(struct sp_audit_decision *d, const char *key, size_t len);
/* The decision words of the text formats: never / always / -, and active none dummy auditd user
 * ("?" out of range). */
const char *audit_verdict_name(int v);
const char *audit_ctx_name(int ctx);

/* selinux_audit_rule_init() (filter/lsm.c): NULL when str is not valid (the kernel keeps the
 * field) or out of memory. */
struct lsm_rule *audit_lsm_rule_init(uint32_t field, uint32_t op, const char *str);
void audit_lsm_rule_free(struct lsm_rule *r);
/* Expand the class selectors of a rule's mask (filter/classes.c). */
void audit_class_expand(uint32_t mask[ARD_MASK_WORDS]);

#endif
