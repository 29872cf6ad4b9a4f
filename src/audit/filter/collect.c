/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * collect.c - the kernel's name collection (audit_names.h): which names a syscall's path walks
 * leave in its audit context, transcribed from Linux 6.1:
 *
 *   getname_flags / getname_kernel -> audit_getname()   a name string, type UNKNOWN, no inode
 *   filename_lookup()            -> audit_inode(name, dentry, 0)        NORMAL, the object
 *   filename_parentat()          -> audit_inode(name, dir, PARENT)      PARENT, name_len = parent_len()
 *   open_last_lookups(O_CREAT)   -> audit_inode(nd->name, dir, PARENT); do_open() -> audit_inode()
 *                                   on the same name: a second entry (__audit_inode finds no
 *                                   non-PARENT entry for it)
 *   may_create()                 -> audit_inode_child(dir, child, CREATE) before the permission
 *                                   check, fsnotify_create/mkdir/link/move -> the same entry
 *                                   gets the new inode after success
 *   may_delete()                 -> audit_inode_child(dir, victim, DELETE)
 *   audit_file() (fchmod, fchown, f*xattr)  -> a name without a string, the fd's inode
 *   unix_bind_bsd / unix_find_bsd (kern_path_create / kern_path on sun_path)  as mknod / lookup
 *
 * The syscalls that read two names get them right to left (do_symlinkat(getname(old), newdfd,
 * getname(new)) evaluates getname(new) first with Debian's gcc), so the new name's entry comes
 * first: symlink = PARENT, target (never looked up), CREATE; link = PARENT, old, CREATE;
 * rename = PARENT(new), PARENT(old), DELETE(old), [DELETE(replaced)], CREATE.  execve collects
 * the file twice, first followed and then as the link itself (what the kernel's records show),
 * then the interpreters open_exec() opens: a "#!" file's, an ELF file's PT_INTERP.  The path
 * walk follows fs/namei.c: "." and "..", symlinks (40 at most, ELOOP), ENOTDIR, and MAY_EXEC on
 * every directory searched (fsuid 0 passes, as CAP_DAC_READ_SEARCH).
 *
 * The CREATE and DELETE names of a successful call are also the fsnotify events the kernel's
 * watches and exe= marks see during it: sp_audit_names_add_to_event keeps each name's type, and
 * sp_audit_event_rebind re-binds the marks from the event.
 *
 * Invariants: nm->n <= SP_AUDIT_NAMES_MAX; every string is NUL-terminated within its buffer;
 * callbacks are the only view of the file system.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/filter/filter_int.h"
#include "secpath/audit.h"

#define LEN SP_AUDIT_NAME_LEN
#define MAX_LINKS 40
#define AT_FDCWD_ARG (-100)
#define X_AT_NOFOLLOW 0x100
#define X_AT_REMOVEDIR 0x200
#define X_AT_FOLLOW 0x400
#define X_AT_EMPTY 0x1000

enum kind {
	K_LOOKUP, K_NOFOLLOW, K_OPEN, K_CREAT, K_MKDIR, K_MKNOD, K_SYMLINK, K_LINK, K_UNLINK,
	K_RMDIR, K_RENAME, K_FD, K_EXEC, K_BIND, K_CONNECT, K_QUOTA,
};
/* how the flags argument reads */
enum { F_NONE, F_AT_NOFOLLOW, F_AT_FOLLOW, F_OPEN, F_HOW, F_UNLINKAT };

struct spec {
	const char *name;
	uint8_t kind;
	int8_t path, dirfd, path2, dirfd2, flags, mode;
	uint8_t fl;
};

/* Sorted by name (bsearch). */
static const struct spec specs[] = {
	{ "access", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "acct", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "bind", K_BIND, 1, -1, -1, -1, -1, -1, F_NONE },
	{ "chdir", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "chmod", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "chown", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "chown32", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "chroot", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "connect", K_CONNECT, 1, -1, -1, -1, -1, -1, F_NONE },
	{ "creat", K_CREAT, 0, -1, -1, -1, -1, 1, F_NONE },
	{ "execve", K_EXEC, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "execveat", K_EXEC, 1, 0, -1, -1, 4, -1, F_AT_NOFOLLOW },
	{ "faccessat", K_LOOKUP, 1, 0, -1, -1, -1, -1, F_NONE },
	{ "faccessat2", K_LOOKUP, 1, 0, -1, -1, 3, -1, F_AT_NOFOLLOW },
	{ "fchmod", K_FD, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "fchmodat", K_LOOKUP, 1, 0, -1, -1, -1, -1, F_NONE },
	{ "fchown", K_FD, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "fchown32", K_FD, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "fchownat", K_LOOKUP, 1, 0, -1, -1, 4, -1, F_AT_NOFOLLOW },
	{ "fgetxattr", K_FD, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "flistxattr", K_FD, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "fremovexattr", K_FD, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "fsetxattr", K_FD, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "fstatat64", K_LOOKUP, 1, 0, -1, -1, 3, -1, F_AT_NOFOLLOW },
	{ "futimesat", K_LOOKUP, 1, 0, -1, -1, -1, -1, F_NONE },
	{ "getxattr", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "lchown", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "lchown32", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "lgetxattr", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "link", K_LINK, 0, -1, 1, -1, -1, -1, F_NONE },
	{ "linkat", K_LINK, 1, 0, 3, 2, 4, -1, F_AT_FOLLOW },
	{ "listxattr", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "llistxattr", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "lremovexattr", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "lsetxattr", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "lstat", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "lstat64", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "mkdir", K_MKDIR, 0, -1, -1, -1, -1, 1, F_NONE },
	{ "mkdirat", K_MKDIR, 1, 0, -1, -1, -1, 2, F_NONE },
	{ "mknod", K_MKNOD, 0, -1, -1, -1, -1, 1, F_NONE },
	{ "mknodat", K_MKNOD, 1, 0, -1, -1, -1, 2, F_NONE },
	{ "mount", K_LOOKUP, 1, -1, -1, -1, -1, -1, F_NONE },
	{ "name_to_handle_at", K_LOOKUP, 1, 0, -1, -1, 4, -1, F_AT_FOLLOW },
	{ "newfstatat", K_LOOKUP, 1, 0, -1, -1, 3, -1, F_AT_NOFOLLOW },
	{ "oldlstat", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "oldstat", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "open", K_OPEN, 0, -1, -1, -1, 1, 2, F_OPEN },
	{ "openat", K_OPEN, 1, 0, -1, -1, 2, 3, F_OPEN },
	{ "openat2", K_OPEN, 1, 0, -1, -1, -1, -1, F_HOW },
	{ "quotactl", K_QUOTA, 1, -1, -1, -1, -1, -1, F_NONE },
	{ "readlink", K_NOFOLLOW, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "readlinkat", K_NOFOLLOW, 1, 0, -1, -1, -1, -1, F_NONE },
	{ "removexattr", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "rename", K_RENAME, 0, -1, 1, -1, -1, -1, F_NONE },
	{ "renameat", K_RENAME, 1, 0, 3, 2, -1, -1, F_NONE },
	{ "renameat2", K_RENAME, 1, 0, 3, 2, -1, -1, F_NONE },
	{ "rmdir", K_RMDIR, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "sendto", K_CONNECT, 4, -1, -1, -1, -1, -1, F_NONE },
	{ "setxattr", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "stat", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "stat64", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "statfs", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "statfs64", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "statx", K_LOOKUP, 1, 0, -1, -1, 2, -1, F_AT_NOFOLLOW },
	{ "swapoff", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "swapon", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "symlink", K_SYMLINK, 0, -1, 1, -1, -1, -1, F_NONE },
	{ "symlinkat", K_SYMLINK, 0, -1, 2, 1, -1, -1, F_NONE },
	{ "truncate", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "truncate64", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "umount2", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "unlink", K_UNLINK, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "unlinkat", K_UNLINK, 1, 0, -1, -1, 2, -1, F_UNLINKAT },
	{ "utime", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
	{ "utimensat", K_LOOKUP, 1, 0, -1, -1, 3, -1, F_AT_NOFOLLOW },
	{ "utimes", K_LOOKUP, 0, -1, -1, -1, -1, -1, F_NONE },
};

static int spec_cmp(const void *k, const void *e)
{
	return strcmp(k, ((const struct spec *)e)->name);
}

static const struct spec *spec_of(uint32_t arch, int32_t nr)
{
	const char *m = sp_audit_arch_name(arch), *name;

	if (!m || !(name = sp_audit_syscall_name(m, nr)))
		return NULL;
	return bsearch(name, specs, SP_ARRAY_SIZE(specs), sizeof(specs[0]), spec_cmp);
}

SP_API unsigned sp_audit_names_args(uint32_t arch, int32_t nr, int *sa_arg)
{
	const struct spec *s = spec_of(arch, nr);
	unsigned bits;

	if (!s)
		return 0;
	if (s->kind == K_BIND || s->kind == K_CONNECT) {
		if (sa_arg)
			*sa_arg = s->path;
		return SP_AUDIT_ARG_SOCKADDR;
	}
	if (s->kind == K_FD)
		return SP_AUDIT_ARG_FD;
	bits = SP_AUDIT_ARG_PATH(s->path);
	if (s->path2 >= 0)
		bits |= SP_AUDIT_ARG_PATH(s->path2);
	return s->fl == F_HOW ? bits | SP_AUDIT_ARG_HOW : bits;
}

SP_API int sp_audit_names_count(uint32_t arch, int32_t nr)
{
	static const uint8_t usual[] = {
		[K_LOOKUP] = 1, [K_NOFOLLOW] = 1, [K_OPEN] = 1, [K_CREAT] = 2, [K_MKDIR] = 2,
		[K_MKNOD] = 2, [K_SYMLINK] = 3, [K_LINK] = 3, [K_UNLINK] = 2, [K_RMDIR] = 2,
		[K_RENAME] = 4, [K_FD] = 1, [K_EXEC] = 2, [K_BIND] = 2, [K_CONNECT] = 1, [K_QUOTA] = 2,
	};
	const struct spec *s = spec_of(arch, nr);

	return s ? usual[s->kind] : 0;
}

SP_API const char *sp_audit_nametype_name(enum sp_audit_nametype t)
{
	static const char *const text[] = { "UNKNOWN", "NORMAL", "PARENT", "DELETE", "CREATE" };

	return (unsigned)t < SP_ARRAY_SIZE(text) ? text[t] : "UNKNOWN";
}

/* ---- the path walk (fs/namei.c: link_path_walk, walk_component, step_into, pick_link) ---- */

struct walker {
	const struct sp_audit_call *c;
	const struct sp_audit_fs_ops *ops;
	void *ctx;
};

static void copy(char *dst, const char *src)
{
	snprintf(dst, LEN, "%s", src);
}

/* cur = cur/comp (comp of length n) */
static void join(char *cur, const char *comp, size_t n)
{
	size_t l = strlen(cur);

	if (l && cur[l - 1] != '/' && l + 1 < LEN)
		cur[l++] = '/';
	if (l + n >= LEN)
		n = LEN - 1 - l;
	memcpy(cur + l, comp, n);
	cur[l + n] = 0;
}

static void up(char *cur)
{
	char *s = strrchr(cur, '/');

	if (!s || s == cur)
		copy(cur, "/");
	else
		*s = 0;
}

/* inode_permission(dir, MAY_EXEC) by generic_permission's mode bits */
static int may_search(const struct sp_audit_call *c, const struct sp_audit_stat *st)
{
	uint32_t m = st->mode;

	if (c->fsuid == 0)
		return 1;
	if (st->uid == c->fsuid)
		return (m & 0100) != 0;
	if (st->gid == c->fsgid)
		return (m & 0010) != 0;
	for (size_t i = 0; i < c->ngroups; i++)
		if (c->groups && c->groups[i] == st->gid)
			return (m & 0010) != 0;
	return (m & 0001) != 0;
}

/*
 * Walk raw from base.  follow: the last component's symlink is followed.  parent: stop before
 * the last component (out = its directory, *last = the component).  Returns 0 with out and st
 * the object (or directory), or -ENOENT, -ENOTDIR, -EACCES, -ELOOP, -ENAMETOOLONG.
 */
static int walk(const struct walker *w, const char *base, const char *raw, int follow, int parent,
		char *out, struct sp_audit_stat *st, char *last)
{
	char rem[LEN], cur[LEN], tgt[LEN];
	struct sp_audit_stat cst;
	int links = 0, n;

	copy(rem, raw);
	copy(cur, raw[0] == '/' ? "/" : base);
	if (w->ops->lstat(w->ctx, cur, &cst))
		return -ENOENT;
	for (char *p = rem;;) {
		while (*p == '/')
			p++;
		size_t cl = strcspn(p, "/");
		const char *q = p + cl;
		while (*q == '/')
			q++;
		int is_last = !*q;
		if (!cl)
			break;
		/* link_path_walk(): may_lookup() on the directory before every component, the
		 * last one included, also when the walk stops before it (filename_parentat) */
		if (!S_ISDIR(cst.mode))
			return -ENOTDIR;
		if (!may_search(w->c, &cst))
			return -EACCES;
		if (parent && is_last) {
			snprintf(last, LEN, "%.*s", (int)cl, p);
			break;
		}
		if (cl == 1 && p[0] == '.') {
			p += cl;
			continue;
		}
		if (cl == 2 && p[0] == '.' && p[1] == '.') {
			up(cur);
			if (w->ops->lstat(w->ctx, cur, &cst))
				return -ENOENT;
		} else {
			char next[LEN];
			copy(next, cur);
			join(next, p, cl);
			struct sp_audit_stat nst;
			int err = w->ops->lstat(w->ctx, next, &nst);
			if (err)
				return err == -EACCES || err == -ENOTDIR ? err : -ENOENT;
			if (S_ISLNK(nst.mode) && (!is_last || follow || p[cl] == '/')) {
				if (++links > MAX_LINKS)
					return -ELOOP;
				n = w->ops->readlink(w->ctx, next, tgt, sizeof(tgt) - 1);
				if (n < 0)
					return -ENOENT;
				tgt[n] = 0;
				char rest[LEN];
				copy(rest, p + cl);
				copy(rem, tgt);
				if (rest[0])
					join(rem, rest, strlen(rest));
				p = rem;
				/* a relative target goes on from cur; an absolute one from "/" */
				if (tgt[0] == '/') {
					copy(cur, "/");
					if (w->ops->lstat(w->ctx, cur, &cst))
						return -ENOENT;
				}
				continue;
			}
			copy(cur, next);
			cst = nst;
		}
		p += cl;
	}
	copy(out, cur);
	*st = cst;
	return 0;
}

/* ---- the names ---- */

enum { S_DONE = 0, S_CREATE, S_LINK, S_MOVE_KEEP, S_MOVE_DROP, S_ON_SUCCESS };

static struct sp_audit_name *add(struct sp_audit_names *nm, enum sp_audit_nametype type,
				 const char *name)
{
	if (nm->n >= SP_AUDIT_NAMES_MAX)
		return NULL;
	struct sp_audit_name *n = &nm->v[nm->n++];
	n->type = type;
	n->has_name = name != NULL;
	n->has_inode = 0;
	n->name[0] = n->path[0] = 0;
	n->st = (struct sp_audit_stat){ 0 };
	n->state = S_DONE;
	if (name)
		copy(n->name, name);
	return n;
}

static void set_obj(struct sp_audit_name *n, enum sp_audit_nametype type, const char *path,
		    const struct sp_audit_stat *st)
{
	n->type = type;
	n->has_inode = 1;
	n->st = *st;
	copy(n->path, path);
}

/* The directory a relative name starts from: dirfd's path, else the cwd. */
static const char *start_dir(const struct walker *w, int dirfd_arg, char *buf)
{
	const struct sp_audit_call *c = w->c;

	if (dirfd_arg >= 0 && (int32_t)c->args[dirfd_arg] != AT_FDCWD_ARG && w->ops->fd_path &&
	    w->ops->fd_path(w->ctx, (int32_t)c->args[dirfd_arg], buf, LEN) >= 0)
		return buf;
	return c->cwd ? c->cwd : "/";
}

/* filename_lookup(): the name, and its object when the walk reaches it. */
static struct sp_audit_name *lookup(struct sp_audit_names *nm, const struct walker *w,
				    const char *raw, int dirfd_arg, int follow)
{
	char base[LEN], obj[LEN];
	struct sp_audit_stat st;
	struct sp_audit_name *n = add(nm, SP_AUDIT_NAME_UNKNOWN, raw);
	const char *b = start_dir(w, dirfd_arg, base);

	if (n && !walk(w, b, raw, follow, 0, obj, &st, NULL))
		set_obj(n, SP_AUDIT_NAME_NORMAL, obj, &st);
	return n;
}

/* An empty path with AT_EMPTY_PATH: the dirfd's file itself, under the name "". */
static void empty_path(struct sp_audit_names *nm, const struct walker *w, int dirfd_arg)
{
	char p[LEN];
	struct sp_audit_stat st;
	struct sp_audit_name *n = add(nm, SP_AUDIT_NAME_UNKNOWN, "");

	if (n && dirfd_arg >= 0 && w->ops->fd_path &&
	    w->ops->fd_path(w->ctx, (int32_t)w->c->args[dirfd_arg], p, LEN) >= 0 &&
	    !w->ops->lstat(w->ctx, p, &st))
		set_obj(n, SP_AUDIT_NAME_NORMAL, p, &st);
}

/* parent_len(): the directory part of a name, with its slash */
static size_t parent_len(const char *s)
{
	size_t l = strlen(s);
	const char *p;

	if (!l)
		return 0;
	p = s + l - 1;
	while (*p == '/' && p > s)
		p--;
	while (*p != '/' && p > s)
		p--;
	return (size_t)(p - s) + (*p == '/');
}

/*
 * filename_parentat() into the entry n (already holding the name string): n becomes the
 * PARENT, printed as the directory part (the cwd for a bare name).  *child = the last
 * component's path, *cst its lstat; returns 1 when the child exists, 0 when not, -1 when the
 * walk to the directory failed.
 */
static int parentat(struct sp_audit_name *n, const struct walker *w, const char *raw, int dirfd_arg,
		    char *child, struct sp_audit_stat *cst)
{
	char base[LEN], dir[LEN], last[LEN] = "";
	struct sp_audit_stat st;

	if (!n || walk(w, start_dir(w, dirfd_arg, base), raw, 0, 1, dir, &st, last) || !last[0])
		return -1;
	if (!S_ISDIR(st.mode))
		return -1;
	size_t pl = parent_len(raw);
	char shown[LEN];
	if (pl)
		snprintf(shown, sizeof(shown), "%.*s", (int)pl, raw);
	else
		copy(shown, w->c->cwd ? w->c->cwd : "/");
	copy(n->name, shown);
	set_obj(n, SP_AUDIT_NAME_PARENT, dir, &st);
	copy(child, dir);
	join(child, last, strlen(last));
	return w->ops->lstat(w->ctx, child, cst) ? 0 : 1;
}

/* __audit_inode_child(): a child entry printing the whole name */
static struct sp_audit_name *child(struct sp_audit_names *nm, enum sp_audit_nametype type,
				   const char *raw, const char *path, const struct sp_audit_stat *st)
{
	struct sp_audit_name *n = add(nm, type, raw);

	if (n) {
		copy(n->path, path);
		if (st) {
			n->has_inode = 1;
			n->st = *st;
		}
	}
	return n;
}

static uint64_t flags_of(const struct sp_audit_call *c, const struct spec *s)
{
	if (s->fl == F_HOW)
		return c->how_flags;
	return s->flags >= 0 ? c->args[s->flags] : 0;
}

/* A created object's mode: the call's type and permissions under the umask. */
static uint32_t create_mode(const struct sp_audit_call *c, const struct spec *s, uint32_t type)
{
	uint32_t m = s->mode >= 0 ? (uint32_t)c->args[s->mode] : 0666;

	if (s->kind == K_MKNOD)
		type = (m & S_IFMT) ? (m & S_IFMT) : S_IFREG;
	return type | (m & 07777 & ~c->umask);
}

static void do_open(struct sp_audit_names *nm, const struct walker *w, const struct spec *s,
		    const char *raw)
{
	const struct sp_audit_call *c = w->c;
	uint64_t fl = s->kind == K_CREAT ? (O_CREAT | O_WRONLY | O_TRUNC) : flags_of(c, s);
	char cpath[LEN];
	struct sp_audit_stat cst;

	if (!(fl & O_CREAT)) {
		lookup(nm, w, raw, s->dirfd, !(fl & O_NOFOLLOW));
		return;
	}
	struct sp_audit_name *n = add(nm, SP_AUDIT_NAME_UNKNOWN, raw);
	int r = parentat(n, w, raw, s->dirfd, cpath, &cst);
	if (r < 0)
		return;
	if (r == 1) {
		/* do_open(): audit_inode() on the existing file, followed unless O_NOFOLLOW/O_EXCL */
		char obj[LEN];
		struct sp_audit_stat ost;
		if (S_ISLNK(cst.mode) && !(fl & (O_NOFOLLOW | O_EXCL)) &&
		    !walk(w, "/", cpath, 1, 0, obj, &ost, NULL))
			child(nm, SP_AUDIT_NAME_NORMAL, raw, obj, &ost);
		else if (!S_ISLNK(cst.mode) || (fl & (O_NOFOLLOW | O_EXCL)))
			child(nm, SP_AUDIT_NAME_NORMAL, raw, cpath, &cst);
		return;
	}
	struct sp_audit_name *cr = child(nm, SP_AUDIT_NAME_CREATE, raw, cpath, NULL);
	if (cr)
		cr->state = S_CREATE;
	nm->create_mode = create_mode(c, s, S_IFREG);
}

/* mkdir, mknod, bind(AF_UNIX): filename_create() then may_create() */
static void do_create(struct sp_audit_names *nm, const struct walker *w, const struct spec *s,
		      const char *raw, uint32_t type)
{
	char cpath[LEN];
	struct sp_audit_stat cst;
	struct sp_audit_name *n = add(nm, SP_AUDIT_NAME_UNKNOWN, raw);
	int r = parentat(n, w, raw, s->kind == K_BIND ? -1 : s->dirfd, cpath, &cst);

	if (r != 0)
		return;		/* the walk failed, or EEXIST before may_create */
	struct sp_audit_name *cr = child(nm, SP_AUDIT_NAME_CREATE, raw, cpath, NULL);
	if (cr)
		cr->state = S_CREATE;
	nm->create_mode = s->kind == K_BIND ? (S_IFSOCK | (0777 & ~w->c->umask)) :
			  create_mode(w->c, s, type);
}

static void do_symlink(struct sp_audit_names *nm, const struct walker *w, const struct spec *s)
{
	const char *target = w->c->str[s->path], *lp = w->c->str[s->path2];
	char cpath[LEN];
	struct sp_audit_stat cst;

	if (!lp)
		return;
	struct sp_audit_name *n = add(nm, SP_AUDIT_NAME_UNKNOWN, lp);
	if (target)
		add(nm, SP_AUDIT_NAME_UNKNOWN, target);	/* getname only: a symlink's body */
	if (parentat(n, w, lp, s->dirfd2, cpath, &cst) != 0)
		return;
	struct sp_audit_name *cr = child(nm, SP_AUDIT_NAME_CREATE, lp, cpath, NULL);
	if (cr)
		cr->state = S_CREATE;
	nm->create_mode = S_IFLNK | 0777;
}

static void do_link(struct sp_audit_names *nm, const struct walker *w, const struct spec *s)
{
	const struct sp_audit_call *c = w->c;
	const char *old = c->str[s->path], *new = c->str[s->path2];
	char cpath[LEN];
	struct sp_audit_stat cst;

	if (!old || !new)
		return;
	int follow = s->flags >= 0 && (c->args[s->flags] & X_AT_FOLLOW);
	struct sp_audit_name *nn = add(nm, SP_AUDIT_NAME_UNKNOWN, new);
	struct sp_audit_name *on = lookup(nm, w, old, s->dirfd, follow);
	if (!on || !on->has_inode)
		return;
	if (parentat(nn, w, new, s->dirfd2, cpath, &cst) != 0)
		return;
	struct sp_audit_name *cr = child(nm, SP_AUDIT_NAME_CREATE, new, cpath, NULL);
	if (cr)
		cr->state = S_LINK;
}

static void do_unlink(struct sp_audit_names *nm, const struct walker *w, const struct spec *s,
		      const char *raw)
{
	char cpath[LEN];
	struct sp_audit_stat cst;
	struct sp_audit_name *n = add(nm, SP_AUDIT_NAME_UNKNOWN, raw);

	if (parentat(n, w, raw, s->dirfd, cpath, &cst) == 1)
		child(nm, SP_AUDIT_NAME_DELETE, raw, cpath, &cst);
}

static void do_rename(struct sp_audit_names *nm, const struct walker *w, const struct spec *s)
{
	const char *old = w->c->str[s->path], *new = w->c->str[s->path2];
	char opath[LEN], npath[LEN];
	struct sp_audit_stat ost, nst;

	if (!old || !new)
		return;
	struct sp_audit_name *nn = add(nm, SP_AUDIT_NAME_UNKNOWN, new);
	struct sp_audit_name *on = add(nm, SP_AUDIT_NAME_UNKNOWN, old);
	int ro = parentat(on, w, old, s->dirfd, opath, &ost);
	if (ro < 0)
		return;
	int rn = parentat(nn, w, new, s->dirfd2, npath, &nst);
	if (rn < 0 || ro == 0)
		return;
	child(nm, SP_AUDIT_NAME_DELETE, old, opath, &ost);
	if (rn == 1)
		child(nm, SP_AUDIT_NAME_DELETE, new, npath, &nst);
	struct sp_audit_name *cr = child(nm, SP_AUDIT_NAME_CREATE, new, npath, NULL);
	if (cr)
		cr->state = rn == 1 ? S_MOVE_DROP : S_MOVE_KEEP;
}

static void do_fd(struct sp_audit_names *nm, const struct walker *w, const struct spec *s)
{
	char p[LEN];
	struct sp_audit_stat st;

	if (!w->ops->fd_path || w->ops->fd_path(w->ctx, (int32_t)w->c->args[s->path], p, LEN) < 0 ||
	    w->ops->lstat(w->ctx, p, &st))
		return;
	struct sp_audit_name *n = add(nm, SP_AUDIT_NAME_NORMAL, NULL);
	if (n)
		set_obj(n, SP_AUDIT_NAME_NORMAL, p, &st);
}

static void do_exec(struct sp_audit_names *nm, const struct walker *w, const struct spec *s,
		    const char *raw)
{
	int follow = !(s->flags >= 0 && (w->c->args[s->flags] & X_AT_NOFOLLOW));
	struct sp_audit_name *n = lookup(nm, w, raw, s->dirfd, follow);
	char base[LEN], obj[LEN], interp[LEN];
	struct sp_audit_stat st;

	if (!n || !n->has_inode)
		return;
	struct sp_audit_name *self = add(nm, SP_AUDIT_NAME_UNKNOWN, raw);
	if (self) {
		self->state = S_ON_SUCCESS;
		if (!walk(w, start_dir(w, s->dirfd, base), raw, 0, 0, obj, &st, NULL))
			set_obj(self, SP_AUDIT_NAME_NORMAL, obj, &st);
	}
	/* search_binary_handler: a "#!" interpreter (load_script) or an ELF interpreter
	 * (load_elf_binary) is opened by open_exec(), at most BINPRM_MAX_RECURSION deep */
	const struct sp_audit_name *cur = n;
	for (int depth = 0; depth < 4 && w->ops->interp; depth++) {
		if (w->ops->interp(w->ctx, cur->path, interp, sizeof(interp)) <= 0)
			break;
		struct sp_audit_name *in = lookup(nm, w, interp, -1, 1);
		if (!in)
			break;
		in->state = S_ON_SUCCESS;
		if (!in->has_inode)
			break;
		cur = in;
	}
}

SP_API int sp_audit_names_enter(struct sp_audit_names *nm, const struct sp_audit_call *c,
				const struct sp_audit_fs_ops *ops, void *ctx)
{
	if (!nm || !c || !ops || !ops->lstat || !ops->readlink)
		return -EINVAL;
	nm->n = 0;
	nm->fsuid = c->fsuid;
	nm->fsgid = c->fsgid;
	nm->create_mode = 0;
	const struct spec *s = spec_of(c->arch, c->nr);
	if (!s)
		return 0;
	const struct walker w = { c, ops, ctx };
	const char *raw = s->path >= 0 ? c->str[s->path] : NULL;
	uint64_t fl = flags_of(c, s);
	switch (s->kind) {	/* the kinds that read two strings, or an fd */
	case K_SYMLINK:
		do_symlink(nm, &w, s);
		return 0;
	case K_LINK:
		do_link(nm, &w, s);
		return 0;
	case K_RENAME:
		do_rename(nm, &w, s);
		return 0;
	case K_FD:
		do_fd(nm, &w, s);
		return 0;
	}
	if (raw && !raw[0] && (s->kind == K_LOOKUP || s->kind == K_NOFOLLOW) &&
	    s->fl == F_AT_NOFOLLOW && (fl & X_AT_EMPTY)) {
		empty_path(nm, &w, s->dirfd);	/* LOOKUP_EMPTY: the dirfd's file, named "" */
		return 0;
	}
	if (!raw || !raw[0])
		return 0;	/* unread, or empty without AT_EMPTY_PATH: getname() fails, no name */
	switch (s->kind) {
	case K_LOOKUP:
	case K_NOFOLLOW:
		lookup(nm, &w, raw, s->dirfd,
		       s->kind == K_LOOKUP && !(s->fl == F_AT_NOFOLLOW && (fl & X_AT_NOFOLLOW)) &&
		       !(s->fl == F_AT_FOLLOW && !(fl & X_AT_FOLLOW)));
		break;
	case K_OPEN:
	case K_CREAT:
		do_open(nm, &w, s, raw);
		break;
	case K_MKDIR:
		do_create(nm, &w, s, raw, S_IFDIR);
		break;
	case K_MKNOD:
		do_create(nm, &w, s, raw, 0);
		break;
	case K_BIND:
		do_create(nm, &w, s, raw, S_IFSOCK);
		break;
	case K_CONNECT:
		lookup(nm, &w, raw, -1, 1);
		break;
	case K_QUOTA:
		/* quotactl_block(): getname(special), then lookup_bdev() looks the string up anew */
		if (add(nm, SP_AUDIT_NAME_UNKNOWN, raw))
			lookup(nm, &w, raw, -1, 1);
		break;
	case K_UNLINK:
	case K_RMDIR:
		do_unlink(nm, &w, s, raw);
		break;
	case K_EXEC:
		do_exec(nm, &w, s, raw);
		break;
	}
	return 0;
}

/* The entry the moved or linked inode comes from: the DELETE of the old name / the old name. */
static const struct sp_audit_name *source_of(const struct sp_audit_names *nm, int state)
{
	for (size_t i = 0; i < nm->n; i++) {
		const struct sp_audit_name *n = &nm->v[i];
		if (state == S_LINK && n->type == SP_AUDIT_NAME_NORMAL && n->has_inode)
			return n;
		if (state != S_LINK && n->type == SP_AUDIT_NAME_DELETE)
			return n;
	}
	return NULL;
}

SP_API void sp_audit_names_exit(struct sp_audit_names *nm, int64_t ret,
				const struct sp_audit_fs_ops *ops, void *ctx)
{
	int ok = ret >= 0 || ret < -4095;
	size_t o = 0;

	if (!nm || !ops)
		return;
	for (size_t i = 0; i < nm->n; i++) {
		struct sp_audit_name *n = &nm->v[i];
		const struct sp_audit_name *src;
		int keep = 1;
		switch (n->state) {
		case S_CREATE:
			if (ok && !ops->lstat(ctx, n->path, &n->st)) {
				n->has_inode = 1;
			} else if (ok) {
				/* the file system cannot say: the call's mode and credentials */
				n->has_inode = 1;
				n->st.ino = SP_AUDIT_INO_NEW;
				n->st.mode = nm->create_mode;
				n->st.uid = nm->fsuid;
				n->st.gid = nm->fsgid;
				n->st.rdev = 0;
				n->st.dev = i ? nm->v[i - 1].st.dev : 0;
			}
			break;
		case S_LINK:
		case S_MOVE_KEEP:
		case S_MOVE_DROP:
			src = source_of(nm, n->state);
			if (ok && src) {
				n->has_inode = 1;
				n->st = src->st;
			}
			keep = ok || n->state != S_MOVE_DROP;
			break;
		case S_ON_SUCCESS:
			keep = ok;
			break;
		}
		n->state = S_DONE;
		if (keep) {
			if (o != i)
				nm->v[o] = *n;
			o++;
		}
	}
	nm->n = o;
}

/* The object and every ancestor of its path, as handle_path() collects audit tree chunks. */
static int add_walked(struct sp_audit_event *ev, int k, const struct sp_audit_name *n,
		      const struct sp_audit_fs_ops *ops, void *ctx)
{
	char p[LEN];
	struct sp_audit_stat st;
	int err = 0;

	if (n->type != SP_AUDIT_NAME_CREATE && n->st.ino != SP_AUDIT_INO_NEW)
		err = sp_audit_event_name_add_walked(ev, k, n->st.ino, n->st.dev);
	if (n->path[0] != '/')
		return err;
	copy(p, n->path);
	while (!err && strcmp(p, "/")) {
		up(p);
		if (!ops->lstat(ctx, p, &st))
			err = sp_audit_event_name_add_walked(ev, k, st.ino, st.dev);
		if (n->type == SP_AUDIT_NAME_CREATE)
			break;	/* audit_inode_child: handle_one(parent) */
	}
	return err;
}

SP_API int sp_audit_names_add_to_event(const struct sp_audit_names *nm, struct sp_audit_event *ev,
				       const struct sp_audit_fs_ops *ops, void *ctx)
{
	if (!nm || !ev || !ops)
		return -EINVAL;
	for (size_t i = 0; i < nm->n; i++) {
		const struct sp_audit_name *n = &nm->v[i];
		int k = sp_audit_event_add_name(ev, n->has_inode ? n->st.ino : SP_AUDIT_INO_UNSET,
						n->has_inode ? n->st.dev : 0);
		if (k < 0)
			return k;
		int err = sp_audit_event_name_set_type(ev, k, (int)n->type);
		if (!err && (n->path[0] || n->has_name))
			err = sp_audit_event_name_set_path(ev, k, n->path[0] ? n->path : n->name);
		if (!err && n->has_inode) {
			sp_audit_event_name_set_mode(ev, k, n->st.mode);
			sp_audit_event_name_set_owner(ev, k, n->st.uid, n->st.gid);
			sp_audit_event_name_set_rdev(ev, k, n->st.rdev);
			err = add_walked(ev, k, n, ops, ctx);
		}
		if (err)
			return err;
	}
	return 0;
}
