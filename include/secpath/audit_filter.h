/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_filter.h - the audit event model and the two filter engines.  Included from audit.h.
 *
 * Given kernel binary rules (struct audit_rule_data blobs, applied in order as ADD/DEL exactly as
 * the kernel receives them) and one event, the engines decide what a Linux 6.1 x86_64 kernel
 * would decide, list by list: the task list verdict (taken at the task's fork), whether the
 * syscall / io_uring record is written and with which key (exit list, then the inode-hash pass,
 * ordered by the 64-bit insertion priorities), whether the exclude list drops that record, the
 * user list verdict for user messages, and which collected names a filesystem `never` rule hides.
 *
 *  - sp_audit_ref: the reference engine.  Kernel lists of kzalloc'd entries walked exactly as
 *    kernel/auditsc.c and kernel/auditfilter.c walk them (audit_filter_task, __audit_filter_op,
 *    audit_filter_inodes, audit_filter, __audit_inode).  Simple, slow, the oracle.
 *  - sp_audit_matcher: the compiled engine.  Immutable; built from a reference rule set;
 *    per-(arch, syscall) candidate arrays, a bitmap fast path, packed predicates.
 *  - sp_audit_engine: an RCU-protected pointer to the current matcher (liburcu): readers filter
 *    lock-free while a writer publishes a new matcher.  Every reader thread must call
 *    sp_audit_reader_register() once before filtering (and _unregister() before it exits).
 *
 * Model choices (documented, shared by both engines):
 *  - paths are identities (inode, device) given by a struct sp_audit_fsview: `path=` watches, `dir=`
 *    trees and `exe=` marks are resolved against it when a rule is added.  As in the kernel, a
 *    watch or exe whose directory is missing and a dir whose root is missing fail the ADD with
 *    -ENOENT (audit_get_nd, audit_alloc_mark, audit_add_tree_rule); a watch whose file is missing
 *    follows its path (the kernel re-arms it when the file appears): it matches names with that
 *    path.  A dir rule matches when one of the syscall's walked inodes (each visible name and its
 *    ancestors, as handle_path() collects them) is the tree's root.  With fs == NULL nothing
 *    resolves and every directory is assumed present (dir rules are refused);
 *  - LSM contexts are SELinux text "user:role:type[:level[-level]]"; an absent context is the
 *    unlabeled context "system_u:object_r:unlabeled_t:s0" (what sidtab lookup falls back to);
 *    levels are sN[:cats] with numeric sensitivities; an unparsable rule level never matches;
 *  - the task list runs at fork (audit_alloc) on the forking task's tgid and credentials: those
 *    given by sp_audit_event_set_task_creds, else the event's own with pid = ppid;
 *  - io_uring events are worker-context operations (arch, args and syscall number are 0).
 */
#ifndef SECPATH_AUDIT_FILTER_H
#define SECPATH_AUDIT_FILTER_H

#include "secpath.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_AUDIT_ARCH_X86_64	0xc000003eu
#define SP_AUDIT_ARCH_I386	0x40000003u
#define SP_AUDIT_UNSET		4294967295u	/* unset loginuid / sessionid */
#define SP_AUDIT_INO_UNSET	UINT64_MAX	/* a name without an inode */
#ifndef SP_AUDIT_MAX_KEY_LEN
#define SP_AUDIT_MAX_KEY_LEN	256u	/* also in audit.h: the one key limit */
#endif
#define SP_AUDIT_KEY_MAXLEN	SP_AUDIT_MAX_KEY_LEN	/* the older spelling */
#define SP_AUDIT_MAX_NAMES	32u		/* names collected per event */
/* Kernel-internal dev_t (MAJOR = dev >> 20, MINOR = dev & 0xfffff). */
#define SP_AUDIT_MKDEV(ma, mi)	((uint32_t)(((uint32_t)(ma) << 20) | ((uint32_t)(mi) & 0xfffffu)))

/* ---- filesystem view: path -> identity ---- */

struct sp_audit_fsview;

SP_API int sp_audit_fsview_new(struct sp_audit_fsview **out);
SP_API void sp_audit_fsview_free(struct sp_audit_fsview *fs);
/* Add or replace `path` (absolute, no trailing '/' except "/").  mode carries S_IFMT bits.
 * Returns 0, -EINVAL, -ENOMEM. */
SP_API int sp_audit_fsview_add(struct sp_audit_fsview *fs, const char *path, uint64_t ino,
			       uint32_t dev, uint32_t mode);
/* Returns 0 and the identity, or -ENOENT. */
SP_API int sp_audit_fsview_lookup(const struct sp_audit_fsview *fs, const char *path, uint64_t *ino,
				  uint32_t *dev, uint32_t *mode);
SP_API size_t sp_audit_fsview_count(const struct sp_audit_fsview *fs);

/* ---- events ---- */

enum sp_audit_event_kind {
	SP_AUDIT_EV_SYSCALL = 0,	/* syscall exit: task, exit list + inode hash, exclude(SYSCALL) */
	SP_AUDIT_EV_URING = 1,		/* io_uring op: task, io_uring list + inode hash, exclude(URINGOP) */
	SP_AUDIT_EV_USER = 2,		/* user message of type msgtype: user list, exclude(msgtype) */
};

struct sp_audit_event;

/* A fresh event: syscall kind, arch x86_64, syscall 0, everything else 0, no return value,
 * loginuid and sessionid unset, no sockaddr, no exe, no contexts, no names. */
SP_API int sp_audit_event_new(struct sp_audit_event **out);
SP_API void sp_audit_event_free(struct sp_audit_event *ev);
/* Back to the state of sp_audit_event_new (keeps allocations). */
SP_API void sp_audit_event_reset(struct sp_audit_event *ev);

SP_API void sp_audit_event_set_kind(struct sp_audit_event *ev, enum sp_audit_event_kind kind);
/* Syscall ABI and number (the io_uring opcode for SP_AUDIT_EV_URING). */
SP_API void sp_audit_event_set_syscall(struct sp_audit_event *ev, uint32_t arch, int32_t nr);
SP_API void sp_audit_event_set_args(struct sp_audit_event *ev, uint64_t a0, uint64_t a1, uint64_t a2,
				    uint64_t a3);
/* Raw return value; success is x86's !IS_ERR_VALUE, then audit_return_fixup maps -512..-516
 * (except -515) to -EINTR. */
SP_API void sp_audit_event_set_return(struct sp_audit_event *ev, int64_t code);
/* No return value (exit, exit_group, a killed task): exit= and success= never match. */
SP_API void sp_audit_event_clear_return(struct sp_audit_event *ev);
SP_API void sp_audit_event_set_pids(struct sp_audit_event *ev, uint32_t pid, uint32_t tid, uint32_t ppid);
SP_API void sp_audit_event_set_uids(struct sp_audit_event *ev, uint32_t uid, uint32_t euid, uint32_t suid,
				    uint32_t fsuid);
SP_API void sp_audit_event_set_gids(struct sp_audit_event *ev, uint32_t gid, uint32_t egid, uint32_t sgid,
				    uint32_t fsgid);
/* Supplementary groups (any order).  Returns 0 or -ENOMEM. */
SP_API int sp_audit_event_set_groups(struct sp_audit_event *ev, const uint32_t *groups, size_t n);
/*
 * The task list's inputs: audit_alloc() runs at fork on the child's copy of the forking task's
 * credentials, so a task whose credentials changed after its fork (set*id, a later login) was
 * judged by the old ones.  pid = the forking task's tgid; uid[] = uid, euid, suid, fsuid;
 * gid[] = gid, egid, sgid, fsgid; groups = its supplementary groups; auid / ses = its loginuid and
 * session id.  Only the task list reads these; personality, subject context and exe stay the
 * event's.  Cleared by sp_audit_event_reset.  Returns 0, -EINVAL (NULL arrays), -ENOMEM.
 */
SP_API int sp_audit_event_set_task_creds(struct sp_audit_event *ev, uint32_t pid, const uint32_t uid[4],
					 const uint32_t gid[4], const uint32_t *groups, size_t ngroups,
					 uint32_t auid, uint32_t ses);
/* Back to the default task-list view: the event's own credentials with pid = ppid. */
SP_API void sp_audit_event_clear_task_creds(struct sp_audit_event *ev);
/* 1 when explicit task credentials are set, else 0. */
SP_API int sp_audit_event_has_task_creds(const struct sp_audit_event *ev);
/* Login uid (SP_AUDIT_UNSET = not set; loginuid_set follows) and session id. */
SP_API void sp_audit_event_set_loginuid(struct sp_audit_event *ev, uint32_t auid);
SP_API void sp_audit_event_set_sessionid(struct sp_audit_event *ev, uint32_t ses);
SP_API void sp_audit_event_set_personality(struct sp_audit_event *ev, uint32_t pers);
/* Identity of the task's executable (none = a task without mm: exe= never matches). */
SP_API void sp_audit_event_set_exe(struct sp_audit_event *ev, uint64_t ino, uint32_t dev);
SP_API void sp_audit_event_clear_exe(struct sp_audit_event *ev);
/* Subject LSM context text (NULL = unlabeled).  Returns 0, -EINVAL (not u:r:t[:mls]), -ENOMEM. */
SP_API int sp_audit_event_set_subj_ctx(struct sp_audit_event *ev, const char *ctx);
/* Family of the sockaddr the syscall recorded; -1 = none. */
SP_API void sp_audit_event_set_saddr_fam(struct sp_audit_event *ev, int fam);
/* Record type for user events (user list, exclude list). */
SP_API void sp_audit_event_set_msgtype(struct sp_audit_event *ev, uint32_t type);
/* openat2's how.flags (perm for openat2). */
SP_API void sp_audit_event_set_openat2_flags(struct sp_audit_event *ev, uint64_t flags);
/* The task is auditd itself: the exit, io_uring and inode filters skip it. */
SP_API void sp_audit_event_set_auditd(struct sp_audit_event *ev, int is_auditd);

/* Collect a name (an audit_names entry): returns its index (0..31), or -ENOSPC, -ENOMEM.
 * ino = SP_AUDIT_INO_UNSET for a name without an inode. */
SP_API int sp_audit_event_add_name(struct sp_audit_event *ev, uint64_t ino, uint32_t dev);
SP_API int sp_audit_event_name_set_path(struct sp_audit_event *ev, int i, const char *path);
SP_API int sp_audit_event_name_set_rdev(struct sp_audit_event *ev, int i, uint32_t rdev);
SP_API int sp_audit_event_name_set_mode(struct sp_audit_event *ev, int i, uint32_t mode);
SP_API int sp_audit_event_name_set_owner(struct sp_audit_event *ev, int i, uint32_t uid, uint32_t gid);
/* Object LSM context of the inode (NULL = unlabeled).  -EINVAL on malformed text. */
SP_API int sp_audit_event_name_set_obj_ctx(struct sp_audit_event *ev, int i, const char *ctx);
/* Superblock magic the filesystem list sees for this name (the parent's for child entries). */
SP_API int sp_audit_event_name_set_fs_magic(struct sp_audit_event *ev, int i, uint32_t magic);
/* The name's type (enum sp_audit_nametype of audit_names.h: 0 unknown, 1 normal, 2 parent,
 * 3 delete, 4 create; default 0).  No filter field reads it; a successful call's CREATE and
 * DELETE names re-bind marks (sp_audit_event_rebind).  -ERANGE, -EINVAL (another value). */
SP_API int sp_audit_event_name_set_type(struct sp_audit_event *ev, int i, int nametype);
/* An inode walked for this name (itself and its ancestors: audit tree chunks, dir= rules). */
SP_API int sp_audit_event_name_add_walked(struct sp_audit_event *ev, int i, uint64_t ino, uint32_t dev);
/* Convenience: a name for `path` with identity and mode from fs (ino unset when absent), and as
 * walked inodes the path itself and every ancestor present in fs.  Returns the index or -errno. */
SP_API int sp_audit_event_add_path(struct sp_audit_event *ev, const struct sp_audit_fsview *fs,
				   const char *path);
SP_API size_t sp_audit_event_name_count(const struct sp_audit_event *ev);

/*
 * The events text format (secpath-audit(1), EVENTS FILE) that `secpath audit filter` reads:
 *   event KEY=VALUE ... [=> EXPECTATIONS]
 *   fs PATH [ino=N] [dev=MAJOR:MINOR] [mode=file|dir|chr|sock|OCTAL]
 * sp_audit_event_parse() resets ev and fills it from the KEY=VALUE tokens of text[0, len) (an
 * event line, its leading "event" optional; the text need not be NUL-terminated): kind= arch= sc=
 * a0..a3= ret= pid= tid= ppid= uid.. fsgid= ids= auid= ses= pers= groups= subj= exe= saddr=
 * msgtype= o2flags= auditd=, then per name path= or rawname= followed by mode= ouid= ogid= rdev=
 * obj= magic=.  Paths and exe= resolve against fs (may be NULL when the line has none); machine
 * names the syscall table for sc= until an arch= says otherwise (NULL: x86_64).  It stops at a
 * "=>" token and stores in *consumed (may be NULL) the offset where it stopped.  Returns 0, or
 * -EINVAL / -ENOENT / -ENOMEM with one error added to d (may be NULL) at line:column of the token.
 * sp_audit_fsview_parse_line() adds one whole "fs ..." line to fs the same way.
 */
SP_API int sp_audit_event_parse(struct sp_audit_event *ev, const struct sp_audit_fsview *fs,
				const char *machine, const char *text, size_t len, const char *file,
				uint32_t line, struct sp_diags *d, size_t *consumed);
SP_API int sp_audit_fsview_parse_line(struct sp_audit_fsview *fs, const char *text, size_t len,
				      const char *file, uint32_t line, struct sp_diags *d);

struct sp_audit_decision;

/*
 * Check an event line's expectations against the decision d: the KEY=VALUE tokens of
 * text[start, len) after an optional "=>" (start: sp_audit_event_parse's *consumed, or 0 for a
 * text of bare expectations; columns count from text).  Keys: record= excluded= hidden= (numbers),
 * key= (the key, \xHH escapes, - for none), task= exit= user= (never, always or -), rule= trule=
 * urule= xrule= (a rule id or -), ctx= (active, none, dummy, auditd, user).  A number is decimal,
 * 0x hex, 0 octal or negative; anything else reads as 0, a mismatch.  Each expectation that does
 * not hold adds an error "expected KEY=VALUE" to diag (may be NULL) at file:line:col-end_col of
 * its token; a token without '=' or with an unknown key is skipped with a warning there.
 * Returns the number of expectations that do not hold, or -EINVAL (start > len), -ENOMEM.
 */
SP_API int sp_audit_decision_check(const struct sp_audit_decision *d, const char *text, size_t len,
				   size_t start, const char *file, uint32_t line, struct sp_diags *diag);

/* ---- decisions ---- */

enum sp_audit_verdict { SP_AUDIT_NOMATCH = 0, SP_AUDIT_NEVER = 1, SP_AUDIT_ALWAYS = 2 };

enum sp_audit_ctx {
	SP_AUDIT_CTX_ACTIVE = 0,	/* syscall filters ran */
	SP_AUDIT_CTX_NONE = 1,		/* task list `never`: the task has no audit context */
	SP_AUDIT_CTX_DUMMY = 2,		/* no task/exit/io_uring rule loaded: nothing is filtered */
	SP_AUDIT_CTX_AUDITD = 3,	/* auditd's own task: the filters skip it */
	SP_AUDIT_CTX_USER = 4,		/* a user message (no syscall context involved) */
};

struct sp_audit_decision {
	uint8_t record;		/* the SYSCALL/URINGOP record (or the user message) is written */
	uint8_t excluded;	/* ... and then dropped by the exclude list (only computed if record) */
	uint8_t task;		/* enum sp_audit_verdict of the task list */
	uint8_t exit;		/* verdict of the exit/io_uring/inode-hash rule that set the state */
	uint8_t user;		/* verdict of the user list (user events) */
	uint8_t context;	/* enum sp_audit_ctx */
	uint16_t key_len;	/* length of key (when has_key) */
	uint8_t has_key;	/* the context's filterkey is set (record keeps it) */
	uint8_t pad[3];
	uint32_t fs_hidden;	/* bit i: name i hidden by a filesystem `never` rule */
	int32_t task_rule;	/* id of the deciding rule of each list, -1 = none */
	int32_t exit_rule;	/* the last rule that set the state (exit list or inode hash) */
	int32_t user_rule;
	int32_t exclude_rule;
	char key[SP_AUDIT_MAX_KEY_LEN + 1];	/* NUL-terminated; 0x01 separates joined keys */
};

/* Equal decisions (key compared by content).  1 or 0. */
SP_API int sp_audit_decision_equal(const struct sp_audit_decision *a, const struct sp_audit_decision *b);
/* One-line text "record=1 key=k task=- exit=always#12 ..." (snprintf semantics). */
SP_API int sp_audit_decision_format(const struct sp_audit_decision *d, char *buf, size_t len);

/* ---- reference engine ---- */

/* Reference engine variants (bench): entry allocation and loop shape. */
#define SP_AUDIT_REF_SLAB_ALIGNED	0x1u	/* entries from an HWCACHE_ALIGN|COLOUR cache, not kmalloc-512 */
#define SP_AUDIT_REF_UNSWITCHED		0x2u	/* mask word/bit hoisted out of the walk, inline test */

struct sp_audit_engine_opts {
	size_t sz;				/* sizeof(struct sp_audit_engine_opts) */
	const struct sp_audit_fsview *fs;	/* NULL: nothing resolves (watches never match) */
	unsigned ref_flags;			/* SP_AUDIT_REF_* */
};

struct sp_audit_ref;

SP_API int sp_audit_ref_new(const struct sp_audit_engine_opts *o, struct sp_audit_ref **out);
SP_API void sp_audit_ref_free(struct sp_audit_ref *r);
/*
 * AUDIT_ADD_RULE / AUDIT_DEL_RULE with one blob, as audit_rule_change() does.  `id` names the
 * rule in decisions (e.g. the item index).  Returns 0, -EINVAL (audit_data_to_entry refuses it),
 * -ENAMETOOLONG, -EEXIST (duplicate), -ENOENT (DEL: no such rule; ADD: dir path not in fs),
 * -ENOMEM.
 */
SP_API int sp_audit_ref_add(struct sp_audit_ref *r, const void *blob, size_t len, uint32_t id);
SP_API int sp_audit_ref_del(struct sp_audit_ref *r, const void *blob, size_t len);
/* Rules currently loaded (all lists). */
SP_API size_t sp_audit_ref_count(const struct sp_audit_ref *r);
/*
 * The kernel's marks follow the file system (audit_update_watch, audit_update_mark): every
 * watch (-w, path=) and exe= rule on `path` binds to (ino, dev) - the inode its name now
 * names after a create, link or rename onto it - or, with ino = SP_AUDIT_INO_UNSET after a
 * removal or a rename away, to none (a watch then follows its path).  A re-bound watch moves
 * to the head of its new inode-hash bucket.  A compiled matcher keeps the identities it was
 * compiled with: compile and publish a new one.  Returns the rules re-bound, or -EINVAL.
 */
SP_API int sp_audit_ref_rebind(struct sp_audit_ref *r, const char *path, uint64_t ino, uint32_t dev);
/* The re-binding an event's names cause when the call succeeded (the fsnotify events the
 * kernel's marks see during the call, before its exit filter): each CREATE name with a path
 * binds the marks on it to its inode (to none when the number is SP_AUDIT_INO_NEW: a watch
 * then follows the path), each DELETE name unbinds them.  The names' types come from
 * sp_audit_names_add_to_event or a recorded stream.  Returns the rules re-bound, or -EINVAL. */
SP_API int sp_audit_event_rebind(const struct sp_audit_event *ev, struct sp_audit_ref *r);
/* Decide one event.  Returns 0. */
SP_API int sp_audit_ref_filter(const struct sp_audit_ref *r, const struct sp_audit_event *ev,
			       struct sp_audit_decision *d);

/* ---- compiled engine ---- */

struct sp_audit_matcher;

/* Compile the rules currently in r into an immutable matcher.  Returns 0 or -ENOMEM. */
SP_API int sp_audit_matcher_compile(const struct sp_audit_ref *r, struct sp_audit_matcher **out);
SP_API void sp_audit_matcher_free(struct sp_audit_matcher *m);
SP_API void sp_audit_matcher_filter(const struct sp_audit_matcher *m, const struct sp_audit_event *ev,
				    struct sp_audit_decision *d);
/* Bytes of the hot tables (candidate arrays, bitmaps, predicates) and of everything. */
SP_API void sp_audit_matcher_size(const struct sp_audit_matcher *m, size_t *hot, size_t *total);

struct sp_audit_engine;

/* An engine holding an empty matcher. */
SP_API int sp_audit_engine_new(struct sp_audit_engine **out);
/* Frees the current matcher too.  No reader may be inside sp_audit_engine_filter. */
SP_API void sp_audit_engine_free(struct sp_audit_engine *e);
/* Publish m (ownership passes to e): rcu_assign_pointer, synchronize_rcu, free the old matcher.
 * Writers are serialised internally.  Returns 0. */
SP_API int sp_audit_engine_publish(struct sp_audit_engine *e, struct sp_audit_matcher *m);
/* Lock-free read side: rcu_read_lock, filter with the current matcher, rcu_read_unlock. */
SP_API void sp_audit_engine_filter(struct sp_audit_engine *e, const struct sp_audit_event *ev,
				   struct sp_audit_decision *d);
/*
 * The read side for a batch: one rcu_read_lock, the n events filtered with the same matcher (one
 * consistent rule set for the whole batch), one rcu_read_unlock; d[i] is the decision of evs[i].
 * Amortises the read side (liburcu's lock and unlock) over the batch.
 * Contract: a writer's sp_audit_engine_publish waits (synchronize_rcu) until every batch that
 * started before it has finished, so keep batches short (tens of events).  Same registration
 * rule as sp_audit_engine_filter.
 */
SP_API void sp_audit_engine_filter_batch(struct sp_audit_engine *e, const struct sp_audit_event *const *evs,
					 size_t n, struct sp_audit_decision *d);
/* liburcu reader registration for the calling thread (idempotent per thread). */
SP_API void sp_audit_reader_register(void);
SP_API void sp_audit_reader_unregister(void);

#ifdef __cplusplus
}
#endif
#endif
