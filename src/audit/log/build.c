/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * build.c - from a grouped audit.log event to the filter inputs (docs/audit.md §5.7).
 *
 * The log cannot reproduce inode identities of rule paths, so the replay model is (also in
 * docs/RECORD.md, "Replay model"):
 *  - names keep the inode and device their PATH record shows (inode=, devmajor/minor work);
 *  - a name's path is the PATH name, joined to CWD when relative, with "//", "." and ".."
 *    folded lexically and trailing '/' dropped;
 *  - watches (`path=`) match by that path string: the replay's fs view holds the watched
 *    file's ancestors but not the file, so the engines follow the watch's path;
 *  - dir rules: the walked inodes of a name are the fs-view identities of its path and every
 *    ancestor, so `dir=D` matches names equal to D or under it;
 *  - exe: the SYSCALL exe string looked up in the fs view (which holds every rule's exe path);
 *    an exe not in the view gets an identity no rule has;
 *  - not in logs: the thread id (tid = pid), supplementary groups (none), the filesystem magic
 *    (0: filesystem-list rules never hide names), the auditd flag (0).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit/log/log_int.h"
#include "audit/filter/filter_int.h"

#define PATHBUF 8192u

/* Identity given to executables that no rule names (never equal to an fs-view identity). */
#define LOG_EXE_OTHER_INO 0xfffffffffffffffeull
#define LOG_EXE_OTHER_DEV SP_AUDIT_MKDEV(4094, 2)

SP_API int sp_audit_log_type_is_companion(uint32_t t)
{
	return log_type_is_companion(t);
}

/* An absolute path the fold below gives back unchanged: no empty, "." or ".." component (no
 * "//", no "/." at all, to keep the test short) and no trailing '/' unless it is "/". */
static int path_is_plain(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] == '/' && (p[i + 1] == '/' || p[i + 1] == '.' || (!p[i + 1] && i)))
			return 0;
	return 1;
}

/* Lexical absolute path of name (relative to cwd) into out (PATHBUF).  Its length, or -1 when it
 * cannot be made absolute or does not fit. */
static int norm_path(const char *cwd, const char *name, char *out)
{
	char tmp[PATHBUF];
	size_t n = 0, len;
	if (name[0] == '/') {
		len = strlen(name);
		if (len >= sizeof(tmp))
			return -1;
		if (path_is_plain(name, len)) {	/* already what the fold gives */
			memcpy(out, name, len + 1);
			return (int)len;
		}
		memcpy(tmp, name, len + 1);
	} else {
		if (!cwd || cwd[0] != '/')
			return -1;
		size_t cl = strlen(cwd), nl = strlen(name);
		if (cl + nl + 2 > sizeof(tmp))
			return -1;
		memcpy(tmp, cwd, cl);
		tmp[cl] = '/';
		memcpy(tmp + cl + 1, name, nl + 1);
	}
	const char *p = tmp;
	out[n++] = '/';
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *s = p;
		while (*p && *p != '/')
			p++;
		size_t cl = (size_t)(p - s);
		if (cl == 1 && s[0] == '.')
			continue;
		if (cl == 2 && s[0] == '.' && s[1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--;
			continue;
		}
		if (n > 1)
			out[n++] = '/';
		memcpy(out + n, s, cl);
		n += cl;
	}
	out[n] = 0;
	return (int)n;
}

/* Walked inodes: the fs-view identities of path and each ancestor ("/" included). */
static int add_walked(struct sp_audit_event *ev, int idx, const struct sp_audit_fsview *fs,
		      uint64_t fs_lens, char *path, size_t len)
{
	uint64_t ino;
	uint32_t dev;
	for (;;) {
		if ((fs_lens & log_len_bit(len)) &&
		    !sp_audit_fsview_lookup(fs, path, &ino, &dev, NULL)) {
			int err = sp_audit_event_name_add_walked(ev, idx, ino, dev);
			if (err)
				return err == -ENOSPC ? 0 : err;
		}
		if (len <= 1)
			break;
		char *slash = path + len - 1;
		while (*slash != '/')
			slash--;
		if (slash == path) {
			path[1] = 0;
			len = 1;
		} else {
			*slash = 0;
			len = (size_t)(slash - path);
		}
	}
	return 0;
}

static void sort_names(const struct log_name *v, uint32_t n, uint32_t *order)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = i;
		while (k && v[order[k - 1]].item > v[i].item) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
}

SP_API int sp_audit_log_event_build(const struct sp_audit_log_event *e,
				    const struct sp_audit_fsview *fs, struct sp_audit_event *ev)
{
	return audit_log_event_build(e, fs, ~0ull, ev, LOG_NEED_ALL);
}

/* The task fields of the event's SYSCALL or standalone record, written directly (the caller
 * syncs).  0 or -ENOMEM. */
static int build_task(const struct sp_audit_log_event *e, const struct sp_audit_fsview *fs,
		      uint64_t fs_lens, struct sp_audit_event *ev, unsigned need)
{
	const struct log_task *tk = &e->task;
	ev->pid = ev->tid = tk->pid;
	ev->ppid = tk->ppid;
	ev->uid = tk->uid;
	ev->euid = tk->euid;
	ev->suid = tk->suid;
	ev->fsuid = tk->fsuid;
	ev->gid = tk->gid;
	ev->egid = tk->egid;
	ev->sgid = tk->sgid;
	ev->fsgid = tk->fsgid;
	ev->loginuid = tk->auid;
	ev->sessionid = tk->ses;
	ev->personality = tk->per;
	const char *exe = log_str_at(e, tk->exe);
	if (exe) {
		uint64_t ino;
		uint32_t dev;
		if (fs && exe[0] == '/' && (fs_lens & log_len_bit(strlen(exe))) &&
		    !sp_audit_fsview_lookup(fs, exe, &ino, &dev, NULL))
			sp_audit_event_set_exe(ev, ino, dev);
		else
			sp_audit_event_set_exe(ev, LOG_EXE_OTHER_INO, LOG_EXE_OTHER_DEV);
	}
	const char *subj = need & LOG_NEED_LSM ? log_str_at(e, tk->subj) : NULL;
	if (subj && sp_audit_event_set_subj_ctx(ev, subj) == -ENOMEM)
		return -ENOMEM;	/* -EINVAL: not u:r:t[:mls], stays unlabeled */
	return 0;
}

/* The PATH records as the event's names, in item order.  0 or -errno (-ENOSPC: names past
 * the event's limit are left out, as the kernel's). */
static int build_names(const struct sp_audit_log_event *e, const struct sp_audit_fsview *fs,
		       uint64_t fs_lens, struct sp_audit_event *ev, unsigned need)
{
	uint32_t order[LOG_MAX_NAMES];
	char path[PATHBUF];
	const char *cwd = log_str_at(e, e->cwd);
	int walk = fs && sp_audit_fsview_count(fs), err;
	sort_names(e->names, e->nnames, order);
	for (uint32_t i = 0; i < e->nnames; i++) {
		const struct log_name *n = &e->names[order[i]];
		int idx = sp_audit_event_add_name(ev, n->has_ino ? n->ino : SP_AUDIT_INO_UNSET,
						  n->has_ino ? n->dev : 0);
		if (idx < 0)
			return idx;
		const char *name = log_str_at(e, n->name);
		int plen = -1;
		if ((need & LOG_NEED_PATH) && name && name[0])
			plen = norm_path(cwd, name, path);
		int have_path = plen >= 0;
		if (have_path && (err = sp_audit_event_name_set_path(ev, idx, path)))
			return err;
		sp_audit_event_name_set_rdev(ev, idx, n->rdev);
		sp_audit_event_name_set_mode(ev, idx, n->mode);
		sp_audit_event_name_set_owner(ev, idx, n->uid, n->gid);
		const char *obj = need & LOG_NEED_LSM ? log_str_at(e, n->obj) : NULL;
		if (obj && (err = sp_audit_event_name_set_obj_ctx(ev, idx, obj)) == -ENOMEM)
			return err;
		if (have_path && walk &&
		    (err = add_walked(ev, idx, fs, fs_lens, path, (size_t)plen)))
			return err;
	}
	return 0;
}

/* The event's class (SP_AUDIT_LOG_*) and ev built from it, or -errno.  The fields are written
 * directly and synced once (audit_event_sync) instead of by a setter each. */
int audit_log_event_build(const struct sp_audit_log_event *e, const struct sp_audit_fsview *fs,
			  uint64_t fs_lens, struct sp_audit_event *ev, unsigned need)
{
	int cls, err = 0;
	audit_event_clear(ev);
	if (e->has_syscall)
		cls = SP_AUDIT_LOG_SYSCALL;
	else if (e->has_uring)
		cls = SP_AUDIT_LOG_URING;
	else if (e->has_user)
		cls = SP_AUDIT_LOG_USER;
	else if (e->has_daemon)
		cls = SP_AUDIT_LOG_DAEMON;
	else
		cls = SP_AUDIT_LOG_KERNEL;
	if (build_task(e, fs, fs_lens, ev, need)) {
		audit_event_sync(ev);
		return -ENOMEM;
	}
	if (cls == SP_AUDIT_LOG_SYSCALL || cls == SP_AUDIT_LOG_URING) {
		int uring = cls == SP_AUDIT_LOG_URING;
		ev->kind = uring ? SP_AUDIT_EV_URING : SP_AUDIT_EV_SYSCALL;
		ev->arch = uring ? 0 : e->arch;
		ev->major = e->nr;
		memcpy(ev->argv, e->a, sizeof(ev->argv));
		if (e->has_ret)
			sp_audit_event_set_return(ev, e->exit);
		sp_audit_event_set_saddr_fam(ev, e->saddr_fam);
		if (e->has_oflag)
			ev->openat2_flags = e->oflag;
		err = build_names(e, fs, fs_lens, ev, need);
	} else {
		ev->kind = SP_AUDIT_EV_USER;
		ev->msgtype = cls == SP_AUDIT_LOG_USER ? e->user_type : e->nrec ? e->rec[0].type : 0;
	}
	audit_event_sync(ev);
	return err && err != -ENOSPC ? err : cls;
}
