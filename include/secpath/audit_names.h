/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_names.h - the kernel's name collection: which audit_names entries (PATH items) a Linux
 * 6.1 syscall leaves in its audit context, with their name strings, types and inodes.  Included
 * from audit.h.
 *
 * One model, used by `audit run` (the live file system, under ptrace) and by the kernel judge
 * (the guest's recorded file system): the caller describes the call (its arguments and the
 * strings they point to) and answers lstat / readlink / fd questions about the file system the
 * call sees; the model walks each path as fs/namei.c walks it (symlinks, "..", search
 * permission on every directory) and collects what getname / __audit_inode /
 * __audit_inode_child and the namei callers collect, in the kernel's order.
 *
 *   sp_audit_names_args()   which arguments the caller must read (path strings, sockaddr, how)
 *   sp_audit_names_enter()  at syscall entry: the names and the pre-state of each
 *   sp_audit_names_exit()   at syscall exit: the result decides the created objects and the
 *                           names a failed call never reached
 *   sp_audit_names_add_to_event()  the names as event names (identity, mode, owner, walked inodes)
 *
 * Invariants: at most SP_AUDIT_NAMES_MAX names; a name has an inode only when the walk reached
 * its object (a failed walk, a dangling link or an EACCES directory above it leave the name
 * string alone, nametype UNKNOWN); the model never writes to the file system; every callback
 * may fail and a failure reads as "absent".
 */
#ifndef SECPATH_AUDIT_NAMES_H
#define SECPATH_AUDIT_NAMES_H

#include "secpath.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_AUDIT_NAMES_MAX	8u
#define SP_AUDIT_NAME_LEN	4096u
/* The inode of a created object whose number the file system view cannot give. */
#define SP_AUDIT_INO_NEW	(UINT64_MAX - 1)

enum sp_audit_nametype {
	SP_AUDIT_NAME_UNKNOWN = 0,	/* getname only: the walk never reached an object */
	SP_AUDIT_NAME_NORMAL,
	SP_AUDIT_NAME_PARENT,
	SP_AUDIT_NAME_DELETE,
	SP_AUDIT_NAME_CREATE,
};

/* What lstat(2) says of an object (dev in the kernel's encoding, SP_AUDIT_MKDEV). */
struct sp_audit_stat {
	uint64_t ino;
	uint32_t dev, rdev, mode, uid, gid;
};

struct sp_audit_name {
	enum sp_audit_nametype type;
	int has_name;			/* 0: no name string (audit_file: "(null)") */
	int has_inode;
	char name[SP_AUDIT_NAME_LEN];	/* name= as the kernel prints it */
	char path[SP_AUDIT_NAME_LEN];	/* the object's path with every symlink resolved ("": none) */
	struct sp_audit_stat st;
	int state;			/* model-private: what the exit step still decides */
};

struct sp_audit_names {
	size_t n;
	struct sp_audit_name v[SP_AUDIT_NAMES_MAX];
	uint32_t create_mode;		/* model-private from here on: a created object's S_IFMT | */
	uint32_t fsuid, fsgid;		/* permissions, the caller's fsuid and fsgid */
};

/* The call as the task made it, and what the caller read of its memory. */
struct sp_audit_call {
	uint32_t arch;			/* SP_AUDIT_ARCH_X86_64 or SP_AUDIT_ARCH_I386 */
	int32_t nr;
	uint64_t args[6];
	const char *str[6];		/* the path string of each argument sp_audit_names_args() marks
					 * (NULL: unread); for a sockaddr argument the AF_UNIX sun_path
					 * (NULL: another family or an abstract socket) */
	uint64_t how_flags;		/* openat2: open_how.flags */
	const char *cwd;		/* the task's working directory (absolute) */
	uint32_t fsuid, fsgid, umask;
	const uint32_t *groups;		/* supplementary groups (search permission) */
	size_t ngroups;
};

/* The file system as the call sees it.  Paths are absolute.  Every callback returns 0 / a
 * length, or -errno; fd_path and interp may be NULL. */
struct sp_audit_fs_ops {
	int (*lstat)(void *ctx, const char *path, struct sp_audit_stat *st);
	int (*readlink)(void *ctx, const char *path, char *buf, size_t cap);	/* length, no NUL */
	int (*fd_path)(void *ctx, int fd, char *buf, size_t cap);	/* the path of the task's fd */
	/* execve: the interpreter the file at path names (a "#!" line's first word, an ELF
	 * PT_INTERP): its length, or -ENOEXEC */
	int (*interp)(void *ctx, const char *path, char *buf, size_t cap);
};

#define SP_AUDIT_ARG_PATH(i)	(1u << (i))		/* argument i points to a path string */
#define SP_AUDIT_ARG_SOCKADDR	(1u << 8)	/* sockaddr at the call's address argument */
#define SP_AUDIT_ARG_HOW	(1u << 9)	/* openat2: struct open_how at args[2] */
#define SP_AUDIT_ARG_FD		(1u << 10)	/* args[0] is an fd whose file the call names */

/* What the caller must read for (arch, nr): SP_AUDIT_ARG_* bits; 0 for a syscall that collects
 * no name.  For SP_AUDIT_ARG_SOCKADDR, *sa_arg (may be NULL) is the argument index of the
 * address (its length follows it). */
SP_API unsigned sp_audit_names_args(uint32_t arch, int32_t nr, int *sa_arg);
/* The names a successful call collects in the usual case (open without O_CREAT, rename onto
 * a new name, execve of a static binary; 0: none): the cost model's estimate. */
SP_API int sp_audit_names_count(uint32_t arch, int32_t nr);

/* At entry: reset nm and collect the call's names against the pre-state.  Returns 0, or
 * -EINVAL (NULL argument). */
SP_API int sp_audit_names_enter(struct sp_audit_names *nm, const struct sp_audit_call *c,
				const struct sp_audit_fs_ops *ops, void *ctx);
/* At exit, with the syscall's return value (-errno on failure): created objects get their
 * identity (lstat again; the call's mode, fsuid and fsgid when the file system cannot say),
 * names a failed call did not reach are dropped. */
SP_API void sp_audit_names_exit(struct sp_audit_names *nm, int64_t ret,
				const struct sp_audit_fs_ops *ops, void *ctx);
/* Add every name to ev (sp_audit_event_add_name and the setters): type, identity, mode, owner,
 * rdev, path, and as walked inodes the object and its ancestors (a CREATE name: its directory).
 * The event's CREATE and DELETE names then re-bind marks: sp_audit_event_rebind.
 * Returns 0 or the first -errno of the event setters. */
struct sp_audit_event;
SP_API int sp_audit_names_add_to_event(const struct sp_audit_names *nm, struct sp_audit_event *ev,
				       const struct sp_audit_fs_ops *ops, void *ctx);
/* "NORMAL", "PARENT", "DELETE", "CREATE", "UNKNOWN": the record's nametype= text. */
SP_API const char *sp_audit_nametype_name(enum sp_audit_nametype t);

#ifdef __cplusplus
}
#endif
#endif
