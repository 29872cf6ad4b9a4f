/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * event.c - the audit event model (what the kernel's filters read from the task, its audit
 * context and the collected audit_names), the path->identity file-system view, and decision
 * helpers shared by both engines.
 *
 * Invariants: c_arch/c_major/c_argv mirror what the audit_context holds for the event kind
 * (kernel/auditsc.c: __audit_syscall_entry fills them; a worker-context io_uring op leaves them
 * as audit_reset_context() left them: 0); return_code is post audit_return_fixup(); perm_bits is
 * recomputed whenever arch, number, arguments or openat2 flags change; guard_x and guard_t are
 * those of the exe and the subject's type, and gsig the signature of those and of the uid's and
 * loginuid's guards, recomputed whenever one of the four is set; the t_* task-list
 * view mirrors the event's credentials (t_pid = ppid) unless sp_audit_event_set_task_creds set
 * it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/filter/filter_int.h"

/* ---- file-system view ---- */

struct fs_ent {
	char *path;
	uint64_t hash;
	uint64_t ino;
	uint32_t dev, mode;
};

struct sp_audit_fsview {
	struct fs_ent *v;	/* open addressing, cap a power of two */
	size_t n, cap;
};

SP_API int sp_audit_fsview_new(struct sp_audit_fsview **out)
{
	struct sp_audit_fsview *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	fs->cap = 64;
	fs->v = calloc(fs->cap, sizeof(*fs->v));
	if (!fs->v) {
		free(fs);
		return -ENOMEM;
	}
	*out = fs;
	return 0;
}

SP_API void sp_audit_fsview_free(struct sp_audit_fsview *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->cap; i++)
		free(fs->v[i].path);
	free(fs->v);
	free(fs);
}

static struct fs_ent *fs_slot(const struct sp_audit_fsview *fs, const char *path, uint64_t h)
{
	size_t i = (size_t)h & (fs->cap - 1);
	for (;; i = (i + 1) & (fs->cap - 1)) {
		struct fs_ent *e = &fs->v[i];
		if (!e->path || (e->hash == h && !strcmp(e->path, path)))
			return e;
	}
}

static int fs_grow(struct sp_audit_fsview *fs)
{
	struct sp_audit_fsview n = { .cap = fs->cap * 2 };
	n.v = calloc(n.cap, sizeof(*n.v));
	if (!n.v)
		return -ENOMEM;
	for (size_t i = 0; i < fs->cap; i++)
		if (fs->v[i].path)
			*fs_slot(&n, fs->v[i].path, fs->v[i].hash) = fs->v[i];
	free(fs->v);
	fs->v = n.v;
	fs->cap = n.cap;
	return 0;
}

SP_API int sp_audit_fsview_add(struct sp_audit_fsview *fs, const char *path, uint64_t ino,
			       uint32_t dev, uint32_t mode)
{
	size_t len;
	if (!fs || !path || path[0] != '/')
		return -EINVAL;
	len = strlen(path);
	if (len > 1 && path[len - 1] == '/')
		return -EINVAL;
	if ((fs->n + 1) * 2 > fs->cap && fs_grow(fs))
		return -ENOMEM;
	uint64_t h = audit_hash_str(path);
	struct fs_ent *e = fs_slot(fs, path, h);
	if (!e->path) {
		e->path = strdup(path);
		if (!e->path)
			return -ENOMEM;
		e->hash = h;
		fs->n++;
	}
	e->ino = ino;
	e->dev = dev;
	e->mode = mode;
	return 0;
}

SP_API int sp_audit_fsview_lookup(const struct sp_audit_fsview *fs, const char *path, uint64_t *ino,
				  uint32_t *dev, uint32_t *mode)
{
	char tmp[4100];
	size_t len;
	if (!fs || !path)
		return -ENOENT;
	len = strlen(path);
	if (len > 1 && path[len - 1] == '/') {
		/* kern_path() ignores trailing slashes ("/etc/selinux/") */
		while (len > 1 && path[len - 1] == '/')
			len--;
		if (len >= sizeof(tmp))
			return -ENOENT;
		memcpy(tmp, path, len);
		tmp[len] = 0;
		path = tmp;
	}
	const struct fs_ent *e = fs_slot(fs, path, audit_hash_str(path));
	if (!e->path)
		return -ENOENT;
	if (ino)
		*ino = e->ino;
	if (dev)
		*dev = e->dev;
	if (mode)
		*mode = e->mode;
	return 0;
}

SP_API size_t sp_audit_fsview_count(const struct sp_audit_fsview *fs)
{
	return fs ? fs->n : 0;
}

/* ---- events ---- */

#define EV_COLOURS 8

_Static_assert(offsetof(struct sp_audit_event, c_argv) == 64, "line 1 starts with the arguments");
_Static_assert(offsetof(struct sp_audit_event, sessionid) == 128, "line 0 and 1 hold the hot fields");
_Static_assert(offsetof(struct audit_name, octx) <= 64, "a name's hot fields fit one line");

/* The compiled engine's one-word gate (filter/filter_int.h EV_GATE_*) of ev as it stands. */
static uint32_t gate_of(const struct sp_audit_event *ev)
{
	uint32_t tab = (uint32_t)audit_slot_of(ev->c_arch) + (ev->nnames ? 0 : 3);
	uint32_t major = (uint32_t)ev->c_major, fast;
	if (ev->kind != SP_AUDIT_EV_SYSCALL || ev->is_auditd)
		fast = EV_ROW_OTHER * EV_NSYS;
	else if (major >= EV_NSYS)
		fast = EV_ROW_RANGE * EV_NSYS + (ev->nnames ? 1 : 0);
	else
		fast = tab * EV_NSYS + major;
	return (ev->kind & 0xffu) | (ev->is_auditd ? EV_GATE_AUDITD : 0) |
	       (ev->nnames ? EV_GATE_NAMES : 0) | fast << EV_GATE_FAST_SHIFT;
}

/* Refreshed by every setter of kind, arch, is_auditd or the names. */
static void ev_gate(struct sp_audit_event *ev)
{
	ev->gate = gate_of(ev);
}

/* Without explicit task credentials the task list sees the event's own (pid = the parent's). */
static void ev_tsync(struct sp_audit_event *ev)
{
	if (ev->has_tcred)
		return;
	ev->t_pid = ev->ppid;
	ev->t_uid = ev->uid;
	ev->t_euid = ev->euid;
	ev->t_suid = ev->suid;
	ev->t_fsuid = ev->fsuid;
	ev->t_gid = ev->gid;
	ev->t_egid = ev->egid;
	ev->t_sgid = ev->sgid;
	ev->t_fsgid = ev->fsgid;
	ev->t_loginuid = ev->loginuid;
	ev->t_sessionid = ev->sessionid;
	ev->t_groups = ev->groups;
	ev->t_ngroups = ev->ngroups;
}

/* The guard values of the exe (0: none) and of the subject's type (filter_int.h). */
static uint32_t guard_x_of(const struct sp_audit_event *ev)
{
	return ev->has_exe ? audit_guard_exe(ev->exe_ino, ev->exe_dev) : 0;
}

static uint32_t guard_t_of(const struct sp_audit_event *ev)
{
	return audit_guard_type(audit_ev_sctx(ev)->h_type);
}

static uint64_t gsig_of(const struct sp_audit_event *ev)
{
	return audit_guard_sig(ev->guard_x) | audit_guard_sig(ev->guard_t) |
	       audit_guard_sig(audit_guard_cred(offsetof(struct sp_audit_event, uid), ev->uid)) |
	       audit_guard_sig(audit_guard_cred(offsetof(struct sp_audit_event, loginuid),
						ev->loginuid));
}

static void ev_guards(struct sp_audit_event *ev)
{
	ev->guard_x = guard_x_of(ev);
	ev->guard_t = guard_t_of(ev);
	ev->gsig = gsig_of(ev);
}

static void ev_sync(struct sp_audit_event *ev)
{
	if (ev->kind == SP_AUDIT_EV_SYSCALL) {
		ev->c_arch = ev->arch;
		ev->c_major = ev->major;
		memcpy(ev->c_argv, ev->argv, sizeof(ev->c_argv));
		ev->op = 0;
	} else {
		ev->c_arch = 0;
		ev->c_major = 0;
		memset(ev->c_argv, 0, sizeof(ev->c_argv));
		ev->op = (uint32_t)ev->major;
	}
	ev->perm_bits = audit_event_perm_bits(ev);
	ev_gate(ev);
	ev_guards(ev);
}

/* The audit_context values the filters read, for the event kind (see ev_sync). */
static int ctx_is_synced(const struct sp_audit_event *ev)
{
	int sc = ev->kind == SP_AUDIT_EV_SYSCALL;
	if (ev->c_arch != (sc ? ev->arch : 0) || ev->c_major != (sc ? ev->major : 0) ||
	    ev->op != (sc ? 0 : (uint32_t)ev->major))
		return 0;
	for (int i = 0; i < 4; i++)
		if (ev->c_argv[i] != (sc ? ev->argv[i] : 0))
			return 0;
	return 1;
}

/* Without explicit task credentials, the task-list view mirrors the event (see ev_tsync). */
static int task_view_is_synced(const struct sp_audit_event *ev)
{
	if (ev->has_tcred)
		return ev->t_groups == ev->t_own;
	return ev->t_pid == ev->ppid && ev->t_uid == ev->uid && ev->t_euid == ev->euid &&
	       ev->t_suid == ev->suid && ev->t_fsuid == ev->fsuid && ev->t_gid == ev->gid &&
	       ev->t_egid == ev->egid && ev->t_sgid == ev->sgid && ev->t_fsgid == ev->fsgid &&
	       ev->t_loginuid == ev->loginuid && ev->t_sessionid == ev->sessionid &&
	       ev->t_groups == ev->groups && ev->t_ngroups == ev->ngroups;
}

static int names_sig_is_synced(const struct sp_audit_event *ev)
{
	uint64_t sig[2] = { 0, 0 };
	for (uint32_t i = 0; i < ev->nnames && i < SP_AUDIT_MAX_NAMES; i++)
		for (uint32_t k = 0; k < ev->names[i].nwalk; k++)
			audit_ev_sig_add(sig, ev->names[i].walk[k].h);
	return sig[0] == ev->names_sig[0] && sig[1] == ev->names_sig[1];
}

int audit_event_is_synced(const struct sp_audit_event *ev)
{
	return ev->guard_x == guard_x_of(ev) && ev->guard_t == guard_t_of(ev) &&
	       ev->gsig == gsig_of(ev) &&
	       ev->nnames <= SP_AUDIT_MAX_NAMES && ev->gate == gate_of(ev) && ctx_is_synced(ev) &&
	       ev->perm_bits == audit_event_perm_bits(ev) && task_view_is_synced(ev) &&
	       names_sig_is_synced(ev);
}

static void names_release(struct sp_audit_event *ev)
{
	for (uint32_t i = 0; i < ev->nnames; i++) {
		struct audit_name *n = &ev->names[i];
		n->path = NULL;
		if (n->has_octx)
			audit_lsm_ctx_release(&n->octx);
		n->has_octx = 0;
		n->nwalk = 0;
		n->walk_sig = 0;
	}
	ev->nnames = 0;
	ev->names_sig[0] = ev->names_sig[1] = 0;
}

void audit_event_clear(struct sp_audit_event *ev)
{
	uint32_t *groups = ev->groups, gcap = ev->groups_cap, ncap = ev->names_cap;
	uint32_t *t_own = ev->t_own, t_cap = ev->t_groups_cap, colour = ev->colour;
	struct audit_name *names = ev->names;
	names_release(ev);
	if (ev->has_sctx)
		audit_lsm_ctx_release(&ev->sctx);
	memset(ev, 0, sizeof(*ev));
	ev->groups = groups;
	ev->groups_cap = gcap;
	ev->names = names;
	ev->names_cap = ncap;
	ev->t_own = t_own;
	ev->t_groups_cap = t_cap;
	ev->colour = colour;
	ev->kind = SP_AUDIT_EV_SYSCALL;
	ev->arch = SP_AUDIT_ARCH_X86_64;
	ev->loginuid = SP_AUDIT_UNSET;
	ev->sessionid = SP_AUDIT_UNSET;
	ev->saddr_fam = -1;
	ev->return_valid = RET_INVALID;
}

void audit_event_sync(struct sp_audit_event *ev)
{
	ev_sync(ev);
	ev_tsync(ev);
}

SP_API void sp_audit_event_reset(struct sp_audit_event *ev)
{
	audit_event_clear(ev);
	audit_event_sync(ev);
}

SP_API int sp_audit_event_new(struct sp_audit_event **out)
{
	/* Coloured like a slab (mm/slab.c): events allocated back to back would put their hot first
	 * lines into a few L1 sets; an offset of 0..EV_COLOURS-1 lines, picked from the address,
	 * spreads them over all sets */
	char *raw = aligned_alloc(64, sizeof(struct sp_audit_event) + (EV_COLOURS - 1) * 64);
	if (!raw)
		return -ENOMEM;
	uint32_t colour = (uint32_t)((uintptr_t)raw >> 6) * 0x9e3779b1u >> 29;
	struct sp_audit_event *ev = (struct sp_audit_event *)(void *)(raw + colour * 64);
	memset(ev, 0, sizeof(*ev));
	ev->colour = colour;
	sp_audit_event_reset(ev);
	*out = ev;
	return 0;
}

SP_API void sp_audit_event_free(struct sp_audit_event *ev)
{
	if (!ev)
		return;
	names_release(ev);
	for (uint32_t i = 0; i < ev->names_cap; i++) {
		free(ev->names[i].walk);
		free(ev->names[i].path_buf);
	}
	if (ev->has_sctx)
		audit_lsm_ctx_release(&ev->sctx);
	free(ev->names);
	free(ev->groups);
	free(ev->t_own);
	free((char *)ev - ev->colour * 64);
}

SP_API void sp_audit_event_set_kind(struct sp_audit_event *ev, enum sp_audit_event_kind kind)
{
	ev->kind = kind;
	ev_sync(ev);
}

SP_API void sp_audit_event_set_syscall(struct sp_audit_event *ev, uint32_t arch, int32_t nr)
{
	ev->arch = arch;
	ev->major = nr;
	ev_sync(ev);
}

SP_API void sp_audit_event_set_args(struct sp_audit_event *ev, uint64_t a0, uint64_t a1, uint64_t a2,
				    uint64_t a3)
{
	ev->argv[0] = a0;
	ev->argv[1] = a1;
	ev->argv[2] = a2;
	ev->argv[3] = a3;
	ev_sync(ev);
}

/* __audit_syscall_exit(is_syscall_success(regs), regs_return_value(regs)) + audit_return_fixup */
SP_API void sp_audit_event_set_return(struct sp_audit_event *ev, int64_t code)
{
	int success = !(code >= -4095 && code <= -1);
	if (code <= -512 && code >= -516 && code != -515)
		ev->return_code = -4;	/* -EINTR */
	else
		ev->return_code = code;
	ev->return_valid = success ? RET_SUCCESS : RET_FAILURE;
}

SP_API void sp_audit_event_clear_return(struct sp_audit_event *ev)
{
	ev->return_valid = RET_INVALID;
	ev->return_code = 0;
}

SP_API void sp_audit_event_set_pids(struct sp_audit_event *ev, uint32_t pid, uint32_t tid, uint32_t ppid)
{
	ev->pid = pid;
	ev->tid = tid;
	ev->ppid = ppid;
	ev_tsync(ev);
}

SP_API void sp_audit_event_set_uids(struct sp_audit_event *ev, uint32_t uid, uint32_t euid, uint32_t suid,
				    uint32_t fsuid)
{
	ev->uid = uid;
	ev->euid = euid;
	ev->suid = suid;
	ev->fsuid = fsuid;
	ev_tsync(ev);
	ev_guards(ev);
}

SP_API void sp_audit_event_set_gids(struct sp_audit_event *ev, uint32_t gid, uint32_t egid, uint32_t sgid,
				    uint32_t fsgid)
{
	ev->gid = gid;
	ev->egid = egid;
	ev->sgid = sgid;
	ev->fsgid = fsgid;
	ev_tsync(ev);
}

SP_API int sp_audit_event_set_groups(struct sp_audit_event *ev, const uint32_t *groups, size_t n)
{
	if (n > ev->groups_cap) {
		uint32_t *g = realloc(ev->groups, n * sizeof(*g));
		if (!g)
			return -ENOMEM;
		ev->groups = g;
		ev->groups_cap = (uint32_t)n;
	}
	if (n)
		memcpy(ev->groups, groups, n * sizeof(*groups));
	ev->ngroups = (uint32_t)n;
	ev_tsync(ev);
	return 0;
}

SP_API int sp_audit_event_set_task_creds(struct sp_audit_event *ev, uint32_t pid, const uint32_t uid[4],
					 const uint32_t gid[4], const uint32_t *groups, size_t ngroups,
					 uint32_t auid, uint32_t ses)
{
	if (!uid || !gid || (ngroups && !groups) || ngroups > UINT32_MAX)
		return -EINVAL;
	if (ngroups > ev->t_groups_cap) {
		uint32_t *g = realloc(ev->t_own, ngroups * sizeof(*g));
		if (!g)
			return -ENOMEM;
		ev->t_own = g;
		ev->t_groups_cap = (uint32_t)ngroups;
	}
	if (ngroups)
		memcpy(ev->t_own, groups, ngroups * sizeof(*groups));
	ev->has_tcred = 1;
	ev->t_pid = pid;
	ev->t_uid = uid[0];
	ev->t_euid = uid[1];
	ev->t_suid = uid[2];
	ev->t_fsuid = uid[3];
	ev->t_gid = gid[0];
	ev->t_egid = gid[1];
	ev->t_sgid = gid[2];
	ev->t_fsgid = gid[3];
	ev->t_loginuid = auid;
	ev->t_sessionid = ses;
	ev->t_groups = ev->t_own;
	ev->t_ngroups = (uint32_t)ngroups;
	return 0;
}

SP_API void sp_audit_event_clear_task_creds(struct sp_audit_event *ev)
{
	ev->has_tcred = 0;
	ev_tsync(ev);
}

SP_API int sp_audit_event_has_task_creds(const struct sp_audit_event *ev)
{
	return ev->has_tcred != 0;
}

/* kernel/groups.c: groups_search() (a linear scan here; the kernel bisects a sorted array). */
int audit_groups_search(const struct sp_audit_event *ev, uint32_t gid)
{
	for (uint32_t i = 0; i < ev->ngroups; i++)
		if (ev->groups[i] == gid)
			return 1;
	return 0;
}

int audit_task_groups_search(const struct sp_audit_event *ev, uint32_t gid)
{
	for (uint32_t i = 0; i < ev->t_ngroups; i++)
		if (ev->t_groups[i] == gid)
			return 1;
	return 0;
}

SP_API void sp_audit_event_set_loginuid(struct sp_audit_event *ev, uint32_t auid)
{
	ev->loginuid = auid;
	ev_tsync(ev);
	ev_guards(ev);
}

SP_API void sp_audit_event_set_sessionid(struct sp_audit_event *ev, uint32_t ses)
{
	ev->sessionid = ses;
	ev_tsync(ev);
}

SP_API void sp_audit_event_set_personality(struct sp_audit_event *ev, uint32_t pers)
{
	ev->personality = pers;
}

SP_API void sp_audit_event_set_exe(struct sp_audit_event *ev, uint64_t ino, uint32_t dev)
{
	ev->has_exe = 1;
	ev->exe_ino = ino;
	ev->exe_dev = dev;
	ev_guards(ev);
}

SP_API void sp_audit_event_clear_exe(struct sp_audit_event *ev)
{
	ev->has_exe = 0;
	ev_guards(ev);
}

SP_API int sp_audit_event_set_subj_ctx(struct sp_audit_event *ev, const char *ctx)
{
	struct lsm_ctx c;
	if (!ctx) {
		if (ev->has_sctx)
			audit_lsm_ctx_release(&ev->sctx);
		ev->has_sctx = 0;
		ev_guards(ev);
		return 0;
	}
	int err = audit_lsm_ctx_parse(&c, ctx);
	if (err)
		return err;
	if (ev->has_sctx)
		audit_lsm_ctx_release(&ev->sctx);
	ev->sctx = c;
	ev->has_sctx = 1;
	ev_guards(ev);
	return 0;
}

SP_API void sp_audit_event_set_saddr_fam(struct sp_audit_event *ev, int fam)
{
	ev->saddr_fam = fam < 0 ? -1 : fam;
}

SP_API void sp_audit_event_set_msgtype(struct sp_audit_event *ev, uint32_t type)
{
	ev->msgtype = type;
}

SP_API void sp_audit_event_set_openat2_flags(struct sp_audit_event *ev, uint64_t flags)
{
	ev->openat2_flags = flags;
	ev_sync(ev);
}

SP_API void sp_audit_event_set_auditd(struct sp_audit_event *ev, int is_auditd)
{
	ev->is_auditd = is_auditd != 0;
	ev_gate(ev);
}

SP_API int sp_audit_event_add_name(struct sp_audit_event *ev, uint64_t ino, uint32_t dev)
{
	if (ev->nnames >= SP_AUDIT_MAX_NAMES)
		return -ENOSPC;
	if (ev->nnames == ev->names_cap) {
		uint32_t cap = ev->names_cap ? ev->names_cap * 2 : 4;
		struct audit_name *n = aligned_alloc(64, cap * sizeof(*n));	/* line-aligned names */
		if (!n)
			return -ENOMEM;
		if (ev->names_cap)
			memcpy(n, ev->names, ev->names_cap * sizeof(*n));
		memset(n + ev->names_cap, 0, (cap - ev->names_cap) * sizeof(*n));
		free(ev->names);
		ev->names = n;
		ev->names_cap = cap;
	}
	struct audit_name *n = &ev->names[ev->nnames];
	struct audit_walk *walk = n->walk;
	uint16_t wcap = n->walk_cap;
	char *pbuf = n->path_buf;
	size_t pcap = n->path_cap;
	memset(n, 0, sizeof(*n));
	n->walk = walk;
	n->walk_cap = wcap;
	n->path_buf = pbuf;
	n->path_cap = pcap;
	n->ino = ino;
	n->dev = dev;
	ev->nnames++;
	ev_gate(ev);
	return (int)ev->nnames - 1;
}

static struct audit_name *name_at(struct sp_audit_event *ev, int i)
{
	return i >= 0 && (uint32_t)i < ev->nnames ? &ev->names[i] : NULL;
}

SP_API int sp_audit_event_name_set_path(struct sp_audit_event *ev, int i, const char *path)
{
	struct audit_name *n = name_at(ev, i);
	if (!n)
		return -ERANGE;
	if (!path) {
		n->path = NULL;
		return 0;
	}
	size_t len = strlen(path) + 1;
	if (len > n->path_cap) {	/* path is not in path_buf: it would fit */
		size_t cap = len < 128 ? 128 : len;
		char *p = malloc(cap);
		if (!p)
			return -ENOMEM;
		free(n->path_buf);
		n->path_buf = p;
		n->path_cap = cap;
	}
	memmove(n->path_buf, path, len);
	n->path = n->path_buf;
	return 0;
}

SP_API int sp_audit_event_name_set_rdev(struct sp_audit_event *ev, int i, uint32_t rdev)
{
	struct audit_name *n = name_at(ev, i);
	if (!n)
		return -ERANGE;
	n->rdev = rdev;
	return 0;
}

SP_API int sp_audit_event_name_set_mode(struct sp_audit_event *ev, int i, uint32_t mode)
{
	struct audit_name *n = name_at(ev, i);
	if (!n)
		return -ERANGE;
	n->mode = mode;
	return 0;
}

SP_API int sp_audit_event_name_set_owner(struct sp_audit_event *ev, int i, uint32_t uid, uint32_t gid)
{
	struct audit_name *n = name_at(ev, i);
	if (!n)
		return -ERANGE;
	n->uid = uid;
	n->gid = gid;
	return 0;
}

SP_API int sp_audit_event_name_set_obj_ctx(struct sp_audit_event *ev, int i, const char *ctx)
{
	struct audit_name *n = name_at(ev, i);
	struct lsm_ctx c;
	if (!n)
		return -ERANGE;
	if (!ctx) {
		if (n->has_octx)
			audit_lsm_ctx_release(&n->octx);
		n->has_octx = 0;
		return 0;
	}
	int err = audit_lsm_ctx_parse(&c, ctx);
	if (err)
		return err;
	if (n->has_octx)
		audit_lsm_ctx_release(&n->octx);
	n->octx = c;
	n->has_octx = 1;
	return 0;
}

SP_API int sp_audit_event_name_set_fs_magic(struct sp_audit_event *ev, int i, uint32_t magic)
{
	struct audit_name *n = name_at(ev, i);
	if (!n)
		return -ERANGE;
	n->fs_magic = magic;
	return 0;
}

SP_API int sp_audit_event_name_set_type(struct sp_audit_event *ev, int i, int nametype)
{
	struct audit_name *n = name_at(ev, i);
	if (!n)
		return -ERANGE;
	if (nametype < 0 || nametype > 4)
		return -EINVAL;
	n->nametype = (uint8_t)nametype;
	return 0;
}

SP_API int sp_audit_event_name_add_walked(struct sp_audit_event *ev, int i, uint64_t ino, uint32_t dev)
{
	struct audit_name *n = name_at(ev, i);
	if (!n)
		return -ERANGE;
	if (n->nwalk == n->walk_cap) {
		uint16_t cap = n->walk_cap ? (uint16_t)(n->walk_cap * 2) : 8;
		if (cap > 4096)
			return -ENOSPC;
		/* line-aligned: a walk of up to 4 inodes is one cache line, 8 two */
		struct audit_walk *w = aligned_alloc(64, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		if (n->nwalk)
			memcpy(w, n->walk, n->nwalk * sizeof(*w));
		free(n->walk);
		n->walk = w;
		n->walk_cap = cap;
	}
	uint32_t h = audit_walk_hash(ino, dev);
	n->walk[n->nwalk].ino = ino;
	n->walk[n->nwalk].dev = dev;
	n->walk[n->nwalk].h = h;
	n->nwalk++;
	n->walk_sig |= audit_walk_bit(h);
	audit_ev_sig_add(ev->names_sig, h);
	return 0;
}

SP_API int sp_audit_event_add_path(struct sp_audit_event *ev, const struct sp_audit_fsview *fs,
				   const char *path)
{
	uint64_t ino = SP_AUDIT_INO_UNSET;
	uint32_t dev = 0, mode = 0;
	int have = fs && !sp_audit_fsview_lookup(fs, path, &ino, &dev, &mode);
	int i = sp_audit_event_add_name(ev, have ? ino : SP_AUDIT_INO_UNSET, have ? dev : 0);
	if (i < 0)
		return i;
	int err = sp_audit_event_name_set_path(ev, i, path);
	if (!err && have)
		err = sp_audit_event_name_set_mode(ev, i, mode);
	if (!err && have)
		err = sp_audit_event_name_add_walked(ev, i, ino, dev);
	/* ancestors, innermost first (handle_path walks d_parent up to the root) */
	size_t len = strlen(path);
	char *buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, path, len + 1);
	while (!err && len > 1) {
		while (len > 1 && buf[len - 1] != '/')
			len--;
		if (len > 1)
			len--;	/* drop the slash unless it is the root */
		buf[len] = 0;
		if (!sp_audit_fsview_lookup(fs, buf, &ino, &dev, NULL))
			err = sp_audit_event_name_add_walked(ev, i, ino, dev);
		if (len == 1)
			break;
	}
	free(buf);
	return err ? err : i;
}

SP_API size_t sp_audit_event_name_count(const struct sp_audit_event *ev)
{
	return ev->nnames;
}

/* ---- decisions ---- */

void audit_decision_set_key(struct sp_audit_decision *d, const char *key, size_t len)
{
	if (len > SP_AUDIT_MAX_KEY_LEN)
		len = SP_AUDIT_MAX_KEY_LEN;
	memcpy(d->key, key, len);
	d->key[len] = 0;
	d->key_len = (uint16_t)len;
	d->has_key = 1;
}

SP_API int sp_audit_decision_equal(const struct sp_audit_decision *a, const struct sp_audit_decision *b)
{
	if (a->record != b->record || a->excluded != b->excluded || a->task != b->task ||
	    a->exit != b->exit || a->user != b->user || a->context != b->context ||
	    a->has_key != b->has_key || a->fs_hidden != b->fs_hidden ||
	    a->task_rule != b->task_rule || a->exit_rule != b->exit_rule ||
	    a->user_rule != b->user_rule || a->exclude_rule != b->exclude_rule)
		return 0;
	if (a->has_key && (a->key_len != b->key_len || memcmp(a->key, b->key, a->key_len)))
		return 0;
	return 1;
}

const char *audit_verdict_name(int v)
{
	return v == SP_AUDIT_NEVER ? "never" : v == SP_AUDIT_ALWAYS ? "always" : "-";
}

const char *audit_ctx_name(int ctx)
{
	static const char *const names[] = { "active", "none", "dummy", "auditd", "user" };
	return ctx >= 0 && ctx < 5 ? names[ctx] : "?";
}

SP_API int sp_audit_decision_format(const struct sp_audit_decision *d, char *buf, size_t len)
{
	char key[SP_AUDIT_MAX_KEY_LEN * 4 + 8];
	size_t k = 0;
	if (d->has_key) {
		for (size_t i = 0; i < d->key_len; i++) {
			unsigned char c = (unsigned char)d->key[i];
			if (c > 0x20 && c < 0x7f && c != '\\')
				key[k++] = (char)c;
			else
				k += (size_t)snprintf(key + k, 5, "\\x%02x", c);
		}
	} else {
		memcpy(key, "(null)", 6);
		k = 6;
	}
	key[k] = 0;
	return snprintf(buf, len,
			"record=%d excluded=%d key=%s ctx=%s task=%s#%d exit=%s#%d user=%s#%d "
			"exclude#%d fs_hidden=%#x",
			d->record, d->excluded, key, audit_ctx_name(d->context),
			audit_verdict_name(d->task), d->task_rule, audit_verdict_name(d->exit), d->exit_rule,
			audit_verdict_name(d->user), d->user_rule, d->exclude_rule, d->fs_hidden);
}
