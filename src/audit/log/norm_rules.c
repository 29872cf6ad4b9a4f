/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * norm_rules.c - auparse 3.0.9's normalizer (normalize.c, NORM_OPT_NO_ATTRS) on the event
 * model of normalize.c: for a syscall event (more than one record) the subject from the
 * SYSCALL record and the action and object from the syscall's class; for a one-record event
 * the subject, action and object each record type names.
 *
 * Invariants: every search starts where auparse's starts (a record's own field cursor, or
 * past the end after a failed find), and a position takes the record number auparse gives it,
 * even where that is not the record the field was found in: the output is auparse's, quirks
 * included.  Returns are 0, 1 (auparse refuses the event) or -ENOMEM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/log/norm_int.h"

/* normalize_syscall_map: the syscall's class. */
enum {
	C_UNKNOWN, C_FILE, C_CHATTR, C_CHPERM, C_CHOWN, C_LDMOD, C_UNLDMOD, C_DIR, C_MOUNT,
	C_RENAME, C_STAT, C_LNK, C_UMNT, C_DEL, C_TIME, C_EXEC, C_ACCEPT, C_BIND, C_CONN, C_RECV,
	C_SEND, C_PID, C_MAC, C_MAC_LOAD, C_MAC_CONFIG, C_MAC_ENFORCE, C_MAC_ERR, C_IPTABLES,
	C_PROMISC, C_UID, C_GID, C_SYSTIME, C_MKDEV, C_SYSNAME, C_SYS_STAT, C_MEMORY, C_SCHED,
	C_AV, C_BPF, C_LISTEN,
};

static int syscall_class(const char *sys)
{
	static const struct { const char *s; int c; } map[] = {
		{ "access", C_STAT }, { "faccessat", C_STAT }, { "faccessat2", C_STAT },
		{ "chmod", C_CHPERM }, { "fchmod", C_CHPERM }, { "fchmodat", C_CHPERM },
		{ "chown", C_CHOWN }, { "fchown", C_CHOWN }, { "fchownat", C_CHOWN },
		{ "lchown", C_CHOWN }, { "finit_module", C_LDMOD }, { "init_module", C_LDMOD },
		{ "delete_module", C_UNLDMOD }, { "setxattr", C_CHATTR }, { "fsetxattr", C_CHATTR },
		{ "lsetxattr", C_CHATTR }, { "mkdir", C_DIR }, { "mkdirat", C_DIR },
		{ "mount", C_MOUNT }, { "move_mount", C_MOUNT }, { "fsmount", C_MOUNT },
		{ "fspick", C_MOUNT }, { "newfstatat", C_STAT }, { "stat", C_STAT },
		{ "fstat", C_STAT }, { "lstat", C_STAT }, { "stat64", C_STAT }, { "statx", C_STAT },
		{ "statfs", C_SYS_STAT }, { "fstatfs", C_SYS_STAT }, { "creat", C_FILE },
		{ "fallocate", C_FILE }, { "truncate", C_FILE }, { "ftruncate", C_FILE },
		{ "memfd_create", C_FILE }, { "open", C_FILE }, { "openat", C_FILE },
		{ "openat2", C_FILE }, { "readlink", C_FILE }, { "readlinkat", C_FILE },
		{ "removexattr", C_CHATTR }, { "fremovexattr", C_CHATTR },
		{ "lremovexattr", C_CHATTR }, { "rename", C_RENAME }, { "renameat", C_RENAME },
		{ "renameat2", C_RENAME }, { "rmdir", C_DEL }, { "symlink", C_LNK },
		{ "symlinkat", C_LNK }, { "umount", C_UMNT }, { "umount2", C_UMNT },
		{ "unlink", C_DEL }, { "unlinkat", C_DEL }, { "utime", C_TIME }, { "utimes", C_TIME },
		{ "futimesat", C_TIME }, { "utimensat", C_TIME }, { "execve", C_EXEC },
		{ "execveat", C_EXEC }, { "accept", C_ACCEPT }, { "accept4", C_ACCEPT },
		{ "bind", C_BIND }, { "connect", C_CONN }, { "recvfrom", C_RECV },
		{ "recvmsg", C_RECV }, { "sendmsg", C_SEND }, { "sendto", C_SEND },
		{ "kill", C_PID }, { "tkill", C_PID }, { "tgkill", C_PID }, { "setuid", C_UID },
		{ "seteuid", C_UID }, { "setfsuid", C_UID }, { "setreuid", C_UID },
		{ "setresuid", C_UID }, { "setgid", C_GID }, { "setegid", C_GID },
		{ "setfsgid", C_GID }, { "setregid", C_GID }, { "setresgid", C_GID },
		{ "settimeofday", C_SYSTIME }, { "clock_settime", C_SYSTIME },
		{ "stime", C_SYSTIME }, { "adjtimex", C_SYSTIME }, { "mknod", C_MKDEV },
		{ "mknodat", C_MKDEV }, { "sethostname", C_SYSNAME },
		{ "setdomainname", C_SYSNAME }, { "mmap", C_MEMORY }, { "brk", C_MEMORY },
		{ "sched_setparam", C_SCHED }, { "sched_setscheduler", C_SCHED },
		{ "sched_setattr", C_SCHED },
	};
	for (size_t i = 0; sys && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].s, sys))
			return map[i].c;
	return C_UNKNOWN;
}

static uint32_t mode_what(const char *m, uint32_t what)
{
	errno = 0;
	unsigned long mode = strtoul(m, NULL, 8);
	if (errno)
		return what;
	return S_ISREG(mode) ? W_FILE : S_ISDIR(mode) ? W_DIRECTORY : S_ISCHR(mode) ? W_CHAR_DEV :
	       S_ISBLK(mode) ? W_BLOCK_DEV : S_ISFIFO(mode) ? W_FIFO : S_ISLNK(mode) ? W_LINK :
	       S_ISSOCK(mode) ? W_SOCKET : what;
}

/* set_file_object: the PATH record adjust after the second, or the next one that is not a
 * PARENT (else the first PARENT): its name, inode and mode. */
static void file_object(struct nev *e, struct norm *d, int adjust)
{
	const char *f;
	uint32_t parent = 0, rnum;
	norm_goto_record(e, (uint32_t)(2 + adjust));
	norm_first_field(e);
	do {
		if ((f = norm_find(e, "nametype"))) {
			if (strcmp(f, "PARENT"))
				break;
			if (!parent)
				parent = norm_record_num(e);
		}
	} while (f && norm_next_record(e) == 1);
	if (!f) {
		if (!parent)
			return;
		norm_goto_record(e, parent);
		norm_first_field(e);
		rnum = parent;
	} else {
		rnum = norm_record_num(e);
	}
	if (norm_rec_type(e) != T_PATH)
		return;
	norm_first_field(e);
	norm_set_at(e, "name", rnum, &d->obj1);
	if (norm_find(e, "inode"))
		d->obj2 = POS(rnum, norm_field_num(e));
	if ((f = norm_find(e, "mode")))
		d->what = mode_what(f, d->what);
}

/* set_prime_object2: name= (or str) of the record 2 + adjust. */
static void object_two(struct nev *e, struct norm *d, const char *str, int adjust)
{
	uint32_t rnum = (uint32_t)(2 + adjust);
	norm_goto_record(e, rnum);
	norm_first_field(e);
	norm_set_at(e, str, rnum, &d->two);
}

/* set_program_obj: the program acted on (BPF's prog-id, a listener's group, else exe= or the
 * comm= of an interpreter). */
static void program_object(struct nev *e, struct norm *d)
{
	norm_first_record(e);
	uint32_t t = norm_rec_type(e);
	if (t == T_BPF || t == T_EVENT_LISTENER) {
		if (norm_find(e, t == T_BPF ? "prog-id" : "nl-mcgrp"))
			d->obj1 = norm_here(e);
		return;
	}
	if (!norm_find(e, "exe"))
		return;
	const char *exe = norm_interp(e);
	if (exe && (!strncmp(exe, "/usr/bin/python", 15) || !strncmp(exe, "/usr/bin/sh", 11) ||
		    !strncmp(exe, "/usr/bin/bash", 13) || !strncmp(exe, "/usr/bin/perl", 13))) {
		uint32_t fnum = norm_field_num(e);
		if (fnum > 0)
			norm_goto_field(e, fnum - 1);
		else
			norm_first_record(e);
		norm_find(e, "comm");
	}
	d->obj1 = norm_here(e);
}

/* collect_perm_obj2 / collect_own_obj2: the mode or owner argument of the SYSCALL record. */
static void arg_two(struct nev *e, struct norm *d, const char *sys, int own)
{
	const char *a = !strcmp(sys, own ? "fchownat" : "fchmodat") ? "a2" : "a1";
	int err;
	norm_first_record(e);
	if (!norm_find(e, a))
		return;
	if (own && norm_field_int(e, &err) == -1 && !err)
		norm_next_field(e);	/* uid -1: the group is what changes */
	d->two = POS(0, norm_field_num(e));
}

/* collect_id_obj2: the first id argument of a set*id call that is not "unset". */
static void id_two(struct nev *e, struct norm *d, const char *sys)
{
	static const char *const calls[] = { "setuid", "setreuid", "setresuid",
					     "setgid", "setregid", "setresgid" };
	unsigned limit = 0;
	for (unsigned i = 0; i < 6; i++)
		if (!strcmp(sys, calls[i]))
			limit = i % 3 + 1;
	if (!limit)
		return;
	norm_first_record(e);
	if (!norm_find(e, "a0"))
		return;
	for (unsigned cnt = 1; cnt <= limit; cnt++) {
		const char *s = norm_interp(e);
		if (!s || strcmp(s, "unset"))
			break;
		if (cnt == limit || !norm_next_field(e))
			return;
	}
	d->two = POS(0, norm_field_num(e));
}

/* The first record whose type decides the class before the syscall does. */
static int record_class(struct nev *e, int *tmp, uint32_t *ttype)
{
	static const struct { uint16_t t; uint8_t c, tmp; } map[] = {
		{ T_AVC, C_MAC, 1 }, { T_SELINUX_ERR, C_MAC_ERR, 0 },
		{ T_NETFILTER_CFG, C_IPTABLES, 0 }, { T_ANOM_PROMISCUOUS, C_PROMISC, 0 },
		{ T_KERN_MODULE, C_LDMOD, 0 }, { T_MAC_POLICY_LOAD, C_MAC_LOAD, 0 },
		{ T_MAC_STATUS, C_MAC_ENFORCE, 0 }, { T_MAC_CONFIG_CHANGE, C_MAC_CONFIG, 0 },
		{ T_FANOTIFY, C_AV, 1 }, { T_TIME_INJOFFSET, C_SYSTIME, 0 },
		{ T_TIME_ADJNTPVAL, C_SYSTIME, 0 }, { T_BPF, C_BPF, 0 },
		{ T_EVENT_LISTENER, C_LISTEN, 0 },
	};
	for (int rc = norm_first_record(e); rc == 1; rc = norm_next_record(e)) {
		*ttype = norm_rec_type(e);
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (map[i].t == *ttype) {
				if (map[i].tmp) {
					*tmp = map[i].c;
					return C_UNKNOWN;
				}
				return map[i].c;
			}
	}
	return C_UNKNOWN;
}

/* The file classes: action, the object's default kind, and the PATH record's place. */
static const struct fclass {
	uint8_t c, what;
	int8_t adjust;
	const char *act;
} fclasses[] = {
	{ C_CHATTR, W_FILE, 0, "changed-file-attributes-of" },
	{ C_CHPERM, W_FILE, 0, "changed-file-permissions-of" },
	{ C_CHOWN, W_FILE, 0, "changed-file-ownership-of" },
	{ C_DIR, W_FILE, 1, "created-directory" },
	{ C_RENAME, W_FILE, 2, "renamed" },
	{ C_STAT, W_FILE, 0, "checked-metadata-of" },
	{ C_SYS_STAT, W_FILESYSTEM, 0, "checked-filesystem-metadata-of" },
	{ C_LNK, W_FILE, 2, "symlinked" },
	{ C_UMNT, W_FILESYSTEM, 0, "unmounted" },
	{ C_DEL, W_FILE, 0, "deleted" },
	{ C_TIME, W_FILE, 0, "changed-timestamp-of" },
	{ C_EXEC, W_FILE, 1, "executed" },
};

static const struct fclass *fclass_of(int c)
{
	for (size_t i = 0; i < sizeof(fclasses) / sizeof(fclasses[0]); i++)
		if (fclasses[i].c == c)
			return &fclasses[i];
	return NULL;
}

static const char *file_class(struct nev *e, struct norm *d, const struct fclass *k,
			      const char *sys)
{
	int adjust = k->adjust, c = k->c;
	d->what = k->what;
	if ((c == C_CHATTR && !strcmp(sys, "fsetxattr")) ||
	    (c == C_CHPERM && !strcmp(sys, "fchmod")) || (c == C_CHOWN && !strcmp(sys, "fchown")))
		adjust = -1;	/* no PATH record for the fd */
	if (c == C_CHPERM || c == C_CHOWN)
		arg_two(e, d, sys, c == C_CHOWN);
	if (c == C_RENAME || c == C_LNK)
		object_two(e, d, "name", c == C_RENAME ? 4 : 0);
	file_object(e, d, adjust);
	return k->act;
}

/* One of "op=" values: a for the first of its two words, b for anything else. */
static const char *op_action(struct nev *e, const char *match, const char *a, const char *b,
			     const char *none)
{
	norm_first_record(e);
	if (!norm_find(e, "op"))
		return none;
	const char *s = norm_field_str(e);
	return s && !strcmp(s, match) ? a : b;
}

static const char *found_at(struct nev *e, const char *name, uint32_t *pos)
{
	const char *f = norm_find(e, name);
	if (f)
		*pos = norm_here(e);
	return f;
}

/* The classes other than files. */
static const char *other_class(struct nev *e, struct norm *d, int c, const char *sys,
			       uint32_t ttype)
{
	const char *act = NULL;
	int err;
	switch (c) {
	case C_FILE:
		file_object(e, d, 0);
		d->what = W_FILE;
		return "opened-file";
	case C_LDMOD:
		d->what = W_FILE;
		norm_goto_record(e, 1);
		norm_set_at(e, "name", 1, &d->obj1);
		return "loaded-kernel-module";
	case C_UNLDMOD:
		d->what = W_FILE;
		return "unloaded-kernel-module";
	case C_MOUNT:
		d->what = W_FILESYSTEM;
		if (d->success == 1)
			object_two(e, d, "name", 0);
		file_object(e, d, d->success);
		return "mounted";
	case C_ACCEPT: case C_BIND: case C_CONN: case C_RECV: case C_SEND:
		d->what = W_SOCKET;
		norm_goto_record(e, 1);
		norm_first_field(e);
		norm_set_at(e, "saddr", 1, &d->obj1);
		return c == C_ACCEPT ? "accepted-connection-from" : c == C_BIND ? "bound-socket" :
		       c == C_CONN ? "connected-to" : c == C_RECV ? "received-from" : "sent-to";
	case C_PID:
		act = e->n > 2 ? "killed-list-of-pids" : "killed-pid";
		norm_goto_record(e, 1);
		norm_first_field(e);
		found_at(e, "saddr", &d->obj1);
		d->what = W_PROCESS;
		return act;
	case C_MAC_LOAD: case C_MAC_CONFIG: case C_MAC_ENFORCE:
		if (c != C_MAC_LOAD)
			found_at(e, c == C_MAC_CONFIG ? "bool" : "enforcing", &d->obj1);
		d->what = W_MAC_CONFIG;
		return norm_type_action(ttype);
	case C_MAC_ERR:
		d->what = W_SYSTEM;
		return "caused-mac-policy-error";
	case C_IPTABLES:
		norm_first_record(e);
		found_at(e, "table", &d->obj1);
		d->what = W_FIREWALL;
		return "loaded-firewall-rule-to";
	case C_PROMISC:
		norm_first_record(e);
		found_at(e, "dev", &d->obj1);
		if (norm_find(e, "prom"))
			act = norm_field_int(e, &err) == 0 ? "left-promiscuous-mode-on-device" :
							     "entered-promiscuous-mode-on-device";
		d->what = W_SOCKET;
		return act;
	case C_UID: case C_GID: case C_SCHED:
		d->what = W_PROCESS;
		program_object(e, d);
		if (d->how && norm_set_str(&d->how, sys))
			return NULL;
		if (c != C_SCHED && sys)
			id_two(e, d, sys);
		return c == C_SCHED ? "adjusted-scheduling-policy-of" : "changed-identity-of";
	case C_SYSTIME: case C_SYSNAME:
		d->what = W_SYSTEM;
		return c == C_SYSTIME ? "changed-system-time" : "changed-system-name";
	case C_MKDEV:
		file_object(e, d, 0);
		return d->what == W_CHAR_DEV ? "made-character-device" :
		       d->what == W_BLOCK_DEV ? "made-block-device" : "make-device";
	case C_MEMORY:
		d->what = W_MEMORY;
		if (d->success != 1)
			return "allocated-memory";
		norm_first_record(e);
		found_at(e, "comm", &d->obj1);
		return "allocated-memory-in";
	case C_BPF:
		act = op_action(e, "LOAD", "loaded-bpf-program", "unloaded-bpf-program",
				"bpf-program");
		d->what = W_PROCESS;
		program_object(e, d);
		return act;
	case C_LISTEN:
		act = op_action(e, "connect", "connected-to", "disconnected-from", "connected");
		d->what = W_SOCKET;
		program_object(e, d);
		return act;
	default: {
		norm_first_record(e);
		const char *k = norm_find(e, "key");
		d->what = W_AUDIT_RULE;
		if (!k || !strcmp(k, "(null)"))
			return "triggered-unknown-audit-rule";
		d->obj1 = norm_here(e);
		return "triggered-audit-rule";
	}
	}
}

/* normalize_syscall: the action and object of a syscall event. */
static int norm_syscall(struct nev *e, struct norm *d, const char *sys)
{
	int tmp = C_UNKNOWN;
	uint32_t ttype = 0;
	int c = record_class(e, &tmp, &ttype);
	if (c == C_UNKNOWN)
		c = syscall_class(sys);
	const struct fclass *k = fclass_of(c);
	const char *act = k ? file_class(e, d, k, sys) : other_class(e, d, c, sys, ttype);
	if (tmp == C_MAC)
		act = "accessed-mac-policy-controlled-object";
	else if (tmp == C_AV)
		act = "accessed-policy-controlled-file";
	return act ? norm_set_str(&d->action, act) : 0;
}

/* Back to the SYSCALL record's first field after a search that found nothing (1: gone). */
static int back_to(struct nev *e, uint32_t recno)
{
	if (norm_goto_record(e, recno) != 1)
		return 1;
	norm_first_field(e);
	return 0;
}

/* The SYSCALL record's syscall name, result, subject, how and key. */
static int syscall_subject(struct nev *e, struct norm *d, uint32_t recno, char **sys)
{
	int rc;
	if (norm_find(e, "syscall")) {
		const char *f = norm_interp(e);
		if (f && !(*sys = strdup(f)))
			return -ENOMEM;
	}
	if (norm_find(e, "success")) {
		const char *s = norm_field_str(e);
		d->success = s && !strcmp(s, "no") ? 0 : 1;
		d->results = POS(recno, norm_field_num(e));
	} else if (back_to(e, recno)) {
		return 1;
	}
	if (norm_set_at(e, "auid", recno, &d->subj1) && back_to(e, recno))
		return 1;
	if (norm_set_subj2(e, d, "uid", recno) && back_to(e, recno))
		return 1;
	/* syscall_subj_attr: the session of the first SYSCALL record */
	norm_first_record(e);
	do {
		if (norm_rec_type(e) == T_SYSCALL) {
			norm_add_session(e, d, norm_record_num(e));
			break;
		}
	} while (norm_next_record(e) == 1);
	norm_first_field(e);
	if ((rc = norm_how_exe(e, d)) < 0)
		return rc;
	if (rc && back_to(e, recno))
		return 1;
	const char *k = norm_find(e, "key");
	if (k && strcmp(k, "(null)"))
		d->key = POS(recno, norm_field_num(e));
	return 0;
}

static uint32_t simple_object(struct nev *e, struct norm *d, uint32_t type);

int norm_compound(struct nev *e, struct norm *d)
{
	uint32_t otype = norm_rec_type(e), type = otype;
	char *sys = NULL;
	int rc;
	while (type && type != T_SYSCALL) {
		norm_next_record(e);
		type = norm_rec_type(e);
	}
	if (!type)
		return 1;
	d->evkind = norm_event_kind(otype);
	if ((rc = syscall_subject(e, d, norm_record_num(e), &sys))) {
		free(sys);
		return rc;
	}
	if (otype == T_ANOM_LINK) {
		rc = norm_set_str(&d->action, norm_type_action(otype));
	} else if (otype == T_CONFIG_CHANGE) {
		norm_first_record(e);
		if (norm_find(e, "op") && !(rc = norm_set_str(&d->action, norm_interp(e))))
			d->obj1 = simple_object(e, d, T_CONFIG_CHANGE);
	} else {
		rc = norm_syscall(e, d, sys);
	}
	free(sys);
	return rc;
}

/* find_config_change_object: the rule's key, else the setting changed. */
static const char *config_object(struct nev *e)
{
	static const char *const settings[] = { "audit_enabled", "audit_pid",
						"audit_backlog_limit", "audit_failure", "actions" };
	const char *f;
	norm_first_record(e);
	if ((f = norm_find(e, "key"))) {
		const char *s = norm_field_str(e);
		if (s && strcmp(s, "(null)"))
			return f;
	}
	for (size_t i = 0; i < 5; i++) {
		norm_first_record(e);
		if ((f = norm_find(e, settings[i])))
			return f;
	}
	return NULL;
}

/* find_simple_object's field and object kind per record type. */
static const struct sobj {
	uint16_t lo, hi;
	uint8_t what, first;		/* first: the search starts at the first record */
	const char *field, *alt;	/* alt: searched from the first record when field is not */
} sobjs[] = {
	{ T_SERVICE_START, T_SERVICE_STOP, W_SERVICE, 0, "unit", NULL },
	{ T_SYSTEM_RUNLEVEL, T_SYSTEM_RUNLEVEL, W_SYSTEM, 0, "new-level", NULL },
	{ T_USER_ROLE_CHANGE, T_USER_ROLE_CHANGE, W_USER_SESSION, 0, "selected-context", NULL },
	{ T_ROLE_ASSIGN, T_ROLE_REMOVE, W_ACCT, 0, "id", "acct" },
	{ T_USER_MGMT, T_USER_MGMT, W_ACCT, 0, "id", "acct" },
	{ T_ACCT_LOCK, T_ACCT_UNLOCK, W_ACCT, 0, "id", "acct" },
	{ T_ADD_USER, T_DEL_GROUP, W_ACCT, 0, "id", "acct" },
	{ T_GRP_MGMT, T_GRP_MGMT, W_ACCT, 0, "id", "acct" },
	{ T_USER_START, T_USER_END, W_USER_SESSION, 0, "terminal", NULL },
	{ T_USER_ERR, T_USER_ERR, W_USER_SESSION, 0, "terminal", NULL },
	{ T_USER_LOGIN, T_USER_LOGOUT, W_USER_SESSION, 0, "terminal", NULL },
	{ T_USER_AUTH, T_USER_ACCT, W_USER_SESSION, 0, "acct", NULL },
	{ T_CRED_ACQ, T_CRED_DISP, W_USER_SESSION, 0, "acct", NULL },
	{ T_CRED_REFR, T_CRED_REFR, W_USER_SESSION, 0, "acct", NULL },
	{ T_USER_CHAUTHTOK, T_USER_CHAUTHTOK, W_USER_SESSION, 0, "acct", NULL },
	{ T_GRP_CHAUTHTOK, T_GRP_CHAUTHTOK, W_USER_SESSION, 0, "acct", NULL },
	{ T_ANOM_LOGIN_FAILURES, T_ANOM_LOGIN_SESSIONS, W_USER_SESSION, 0, "acct", NULL },
	{ T_ANOM_LOGIN_LOCATION, T_ANOM_LOGIN_LOCATION, W_USER_SESSION, 0, "acct", NULL },
	{ T_ANOM_EXEC, T_ANOM_EXEC, W_PROCESS, 0, "cmd", NULL },
	{ T_USER_CMD, T_USER_CMD, W_PROCESS, 0, "cmd", NULL },
	{ T_USER_TTY, T_USER_TTY, W_KEYSTROKES, 1, "data", NULL },
	{ T_TTY, T_TTY, W_KEYSTROKES, 1, "data", NULL },
	{ T_USER_DEVICE, T_USER_DEVICE, W_KEYSTROKES, 1, "device", NULL },
	{ T_SOFTWARE_UPDATE, T_SOFTWARE_UPDATE, W_SOFTWARE, 1, "sw", NULL },
	{ T_VIRT_MACHINE_ID, T_VIRT_MACHINE_ID, W_VM, 0, "vm", NULL },
	{ T_VIRT_RESOURCE, T_VIRT_RESOURCE, W_VM, 0, "resrc", NULL },
	{ T_VIRT_CONTROL, T_VIRT_CONTROL, W_VM, 0, "op", NULL },
	{ T_LABEL_LEVEL_CHANGE, T_LABEL_LEVEL_CHANGE, W_PRINTER, 0, "printer", NULL },
	{ T_MAC_CONFIG_CHANGE, T_MAC_CONFIG_CHANGE, W_MAC_CONFIG, 0, "bool", NULL },
	{ T_MAC_STATUS, T_MAC_STATUS, W_MAC_CONFIG, 0, "enforcing", NULL },
	{ T_MAC_POLICY_LOAD, T_MAC_POLICY_LOAD, W_MAC_CONFIG, 0, NULL, NULL },
	{ T_LABEL_OVERRIDE, T_LABEL_OVERRIDE, W_MAC_CONFIG, 0, NULL, NULL },
	{ T_DEV_ALLOC, T_USER_MAC_CONFIG_CHANGE, W_MAC_CONFIG, 0, NULL, NULL },
	{ T_USER, T_USER, W_UNKNOWN, 0, "addr", NULL },
	{ T_CRYPTO_KEY_USER, T_CRYPTO_KEY_USER, W_USER_SESSION, 0, "fp", NULL },
	{ T_CRYPTO_SESSION, T_CRYPTO_SESSION, W_USER_SESSION, 0, "addr", NULL },
	{ T_ANOM_RBAC_INTEGRITY_FAIL, T_ANOM_RBAC_INTEGRITY_FAIL, W_FILESYSTEM, 0, "hostname",
	  NULL },
};

/* find_simple_object: the object's position (record 0) and kind; POS_UNSET when none. */
static uint32_t simple_object(struct nev *e, struct norm *d, uint32_t type)
{
	const char *f = NULL;
	norm_first_field(e);
	if (type == T_CONFIG_CHANGE) {
		f = config_object(e);
		d->what = W_AUDIT_CONFIG;
	} else if (type == T_USYS_CONFIG) {
		if (norm_find(e, "op"))
			norm_set_str(&d->action, norm_interp(e));
		d->what = W_SYSTEM;
	} else {
		for (size_t i = 0; i < sizeof(sobjs) / sizeof(sobjs[0]); i++) {
			const struct sobj *o = &sobjs[i];
			if (type < o->lo || type > o->hi)
				continue;
			if (o->first)
				norm_first_record(e);
			if (o->field && !(f = norm_find(e, o->field)) && o->alt) {
				norm_first_record(e);
				f = norm_find(e, o->alt);
			}
			if (type != T_USER)
				d->what = o->what;
			break;
		}
	}
	return f ? POS(0, norm_field_num(e)) : POS_UNSET;
}

/* find_simple_obj_secondary and find_simple_obj_primary2. */
static uint32_t simple_extra(struct nev *e, uint32_t type, int two)
{
	const char *name = NULL;
	norm_first_field(e);
	if (!two)
		name = type == T_CRYPTO_SESSION ? "rport" :
		       type == T_SOFTWARE_UPDATE ? "sw_type" : NULL;
	else
		name = type == T_VIRT_CONTROL || type == T_VIRT_RESOURCE ? "vm" :
		       type == T_SOFTWARE_UPDATE ? "root_dir" : NULL;
	return name && norm_find(e, name) ? POS(0, norm_field_num(e)) : POS_UNSET;
}

static int set_how(struct nev *e, struct norm *d, const char *field)
{
	return norm_find(e, field) ? norm_set_str(&d->how, norm_interp(e)) : 0;
}

/* CONFIG_CHANGE, FEATURE_CHANGE, SECCOMP, ANOM_ABEND, ANOM_PROMISCUOUS: auid, session, op. */
static int simple_kernel(struct nev *e, struct norm *d, uint32_t type)
{
	const char *f;
	int rc = 0;
	norm_set_at(e, "auid", 0, &d->subj1);
	norm_add_session(e, d, 0);
	if (type == T_CONFIG_CHANGE) {
		norm_first_field(e);
		if ((f = norm_find(e, "op")) && (f = norm_interp(e))) {
			f += *f == '"';
			if (!strncmp(f, "add_rule", 8) || !strncmp(f, "remove_rule", 11)) {
				rc = norm_set_str(&d->action, *f == 'a' ? "added-audit-rule" :
									  "deleted-audit-rule");
				d->obj1 = simple_object(e, d, type);
				goto object;
			}
		}
	}
	if ((rc = norm_set_str(&d->action, norm_type_action(type))))
		return rc;
	if (type == T_CONFIG_CHANGE)
		d->obj1 = simple_object(e, d, type);
	norm_first_record(e);
object:
	if (rc)
		return rc;
	if (type == T_FEATURE_CHANGE || type == T_SECCOMP || type == T_ANOM_ABEND) {
		norm_first_field(e);
		if (norm_set_subj2(e, d, "uid", 0))
			norm_first_record(e);
	}
	if (type == T_FEATURE_CHANGE) {
		if ((rc = set_how(e, d, "exe")))
			return rc;
		norm_set_at(e, "feature", 0, &d->obj1);
		d->what = W_SYSTEM;
	} else if (type == T_SECCOMP) {
		if ((rc = set_how(e, d, "exe")))
			return rc;
		if (norm_set_at(e, "syscall", 0, &d->obj1))
			norm_first_record(e);
		d->what = W_PROCESS;
		if (norm_find(e, "code"))
			d->results = POS(0, norm_field_num(e));
		return 0;
	} else if (type == T_ANOM_ABEND) {
		if (norm_set_at(e, "exe", 0, &d->obj1))
			norm_first_record(e);
		d->what = W_PROCESS;
		if ((rc = set_how(e, d, "sig")))
			return rc;
	} else if (type == T_ANOM_PROMISCUOUS) {
		norm_first_field(e);
		norm_set_at(e, "dev", 0, &d->obj1);
		norm_set_subj2(e, d, "uid", 0);
		d->what = W_SOCKET;
	}
	norm_set_at(e, "res", 0, &d->results);
	return 0;
}

/* LOGIN: uid, old-auid, the new auid as object, session, result. */
static int simple_login(struct nev *e, struct norm *d)
{
	if (norm_set_subj2(e, d, "uid", 0))
		norm_first_record(e);
	if (norm_set_at(e, "old-auid", 0, &d->subj1))
		norm_first_record(e);
	if (norm_set_at(e, "auid", 0, &d->obj1))
		norm_first_record(e);
	d->what = W_USER_SESSION;
	norm_add_session(e, d, 0);
	norm_set_at(e, "res", 0, &d->results);
	return norm_set_str(&d->action, norm_type_action(T_LOGIN));
}

/* An AVC outside a syscall: comm, scontext, the decision. */
static int simple_avc(struct nev *e, struct norm *d)
{
	int rc;
	if (norm_find(e, "comm")) {
		if ((rc = norm_set_str(&d->how, norm_interp(e))))
			return rc;
	} else {
		norm_first_record(e);
	}
	norm_set_at(e, "scontext", 0, &d->subj1);
	d->subj_kind = "unknown-acct";
	d->what = W_UNKNOWN;
	if ((rc = norm_set_str(&d->action, norm_type_action(T_AVC))))
		return rc;
	norm_first_record(e);
	if (norm_find(e, "seresult"))
		d->results = POS(0, norm_field_num(e));
	return 0;
}

/* auditd's own records: auid, uid, session; how: init or a signal. */
static int simple_daemon(struct nev *e, struct norm *d, uint32_t type)
{
	norm_set_at(e, "auid", 0, &d->subj1);
	if (norm_set_subj2(e, d, "uid", 0))
		norm_first_record(e);
	if (norm_add_session(e, d, 0))
		norm_first_record(e);
	d->subj_kind = "auditd";
	int rc = norm_set_str(&d->action, norm_type_action(type));
	d->what = W_SERVICE;
	if (!rc && type == T_DAEMON_START)
		rc = norm_set_str(&d->how, "init");
	else if (!rc && type < T_DAEMON_ACCEPT && type != T_DAEMON_ABORT)
		rc = norm_set_str(&d->how, "signal");
	norm_set_at(e, "res", 0, &d->results);
	return rc;
}

/* BPF and EVENT_LISTENER outside a syscall. */
static int simple_program(struct nev *e, struct norm *d, uint32_t type)
{
	int rc;
	if (type == T_BPF) {
		d->subj_kind = "system";
		rc = norm_set_str(&d->action, op_action(e, "LOAD", "loaded-bpf-program",
						       "unloaded-bpf-program", "bpf-program"));
		d->what = W_PROCESS;
		program_object(e, d);
		return rc;
	}
	norm_set_at(e, "auid", 0, &d->subj1);
	norm_first_record(e);
	norm_set_subj2(e, d, "uid", 0);
	norm_first_record(e);
	norm_add_session(e, d, 0);
	rc = norm_set_str(&d->action, op_action(e, "connect", "connected-to", "disconnected-from",
						"connected"));
	program_object(e, d);
	d->what = W_SOCKET;
	norm_first_record(e);
	if (!rc)
		rc = set_how(e, d, "exe");
	norm_first_record(e);
	norm_set_at(e, "res", 0, &d->results);
	return rc;
}

/* Labeled networking (1406-1499): auid, session, the mapping's domain. */
static int simple_netlabel(struct nev *e, struct norm *d, uint32_t type)
{
	const char *act = NULL;
	int err;
	norm_set_at(e, "auid", 0, &d->subj1);
	norm_subject_what(e, d);
	norm_add_session(e, d, 0);
	if (!norm_find(e, "subj"))	/* add_subj_attr, which moves the cursor */
		norm_goto_record(e, 0);
	if (type == T_MAC_UNLBL_ALLOW) {
		if (norm_find(e, "unlbl_accept"))
			act = norm_field_int(e, &err) == 1 ? "is-allowing-unlabeled-network-traffic" :
				"is-disallowing-unlabeled-network-traffic";
		else
			norm_first_record(e);
	} else {
		act = norm_type_action(type);
	}
	int rc = act ? norm_set_str(&d->action, act) : 0;
	if ((type == T_MAC_MAP_ADD || type == T_MAC_MAP_DEL) &&
	    norm_set_at(e, "nlbl_domain", 0, &d->obj1))
		norm_first_record(e);
	d->what = W_MAC_CONFIG;
	norm_set_at(e, "res", 0, &d->results);
	return rc;
}

/* The subject of a user-space record: uid and auid (USER_LOGIN: id, else acct). */
static void simple_user_subject(struct nev *e, struct norm *d, uint32_t type)
{
	if (type == T_USER_LOGIN) {
		if (norm_set_at(e, "id", 0, &d->subj1)) {
			norm_first_record(e);
			if (!norm_set_at(e, "acct", 0, &d->subj1))
				norm_subject_what(e, d);
		} else {
			norm_subject_what(e, d);
		}
		norm_first_record(e);
	} else {
		if (norm_set_subj2(e, d, "uid", 0))
			norm_first_record(e);
		norm_set_at(e, "auid", 0, &d->subj1);
	}
	norm_add_session(e, d, 0);
}

/* The how of a user-space record: exe= (or comm= of an interpreter), terminal=, comm=. */
static int simple_how(struct nev *e, struct norm *d, uint32_t type)
{
	if (type == T_SYSTEM_BOOT || type == T_SYSTEM_SHUTDOWN) {
		d->what = type == T_SYSTEM_BOOT ? W_SYSTEM : W_SERVICE;
		return set_how(e, d, "exe");
	}
	norm_first_record(e);
	if (type == T_ANOM_EXEC)
		return set_how(e, d, "terminal");
	if (type == T_TTY)
		return set_how(e, d, "comm");
	int rc = norm_how_exe(e, d);
	return rc < 0 ? rc : 0;
}

/* Every other one-record event: subject, session, result, action, object, how. */
static int simple_user(struct nev *e, struct norm *d, uint32_t type)
{
	const char *act = NULL;
	int rc;
	simple_user_subject(e, d, type);
	if (type != T_USER_AVC) {
		norm_set_at(e, "res", 0, &d->results);
	} else {
		norm_first_record(e);
		if (norm_find(e, "seresult"))
			d->results = POS(0, norm_field_num(e));
		norm_first_record(e);
		norm_set_at(e, "scontext", 0, &d->subj1);
	}
	if (type == T_USER_DEVICE) {
		norm_first_record(e);
		act = norm_find(e, "op");
	}
	if ((rc = norm_set_str(&d->action, act ? act : norm_type_action(type))))
		return rc;
	if (type != T_USER_AVC) {
		norm_first_record(e);
		d->obj1 = simple_object(e, d, type);
		d->obj2 = simple_extra(e, type, 0);
		d->two = simple_extra(e, type, 1);
	}
	return simple_how(e, d, type);
}

int norm_simple(struct nev *e, struct norm *d)
{
	uint32_t type = norm_rec_type(e);
	if (type == T_SYSCALL)	/* older systems: no PROCTITLE */
		return norm_compound(e, d);
	d->evkind = norm_event_kind(type);
	if (type == T_CONFIG_CHANGE || type == T_FEATURE_CHANGE || type == T_SECCOMP ||
	    type == T_ANOM_ABEND || type == T_ANOM_PROMISCUOUS)
		return simple_kernel(e, d, type);
	if (type == T_LOGIN)
		return simple_login(e, d);
	if (type == T_NETFILTER_CFG) {
		int rc = set_how(e, d, "comm");
		if (!rc)
			rc = norm_set_str(&d->action, "loaded-firewall-rule-to");
		norm_first_record(e);
		if (norm_find(e, "table"))
			d->obj1 = norm_here(e);
		d->subj_kind = "system";
		d->what = W_FIREWALL;
		return rc;
	}
	if (type == T_AVC)
		return simple_avc(e, d);
	if (type >= T_DAEMON_START && type < T_LAST_DAEMON)
		return simple_daemon(e, d, type);
	if (type == T_BPF || type == T_EVENT_LISTENER)
		return simple_program(e, d, type);
	if (type >= T_MAC_UNLBL_ALLOW && type <= T_LAST_SELINUX)
		return simple_netlabel(e, d, type);
	return simple_user(e, d, type);
}
