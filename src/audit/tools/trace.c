/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace.c - `audit run`: run a command under ptrace and write the audit records a Linux
 * kernel loaded with the rules would write for it, without touching the kernel's audit state.
 *
 * Mechanics: the child blocks on a pipe until it is seized (PTRACE_SEIZE with TRACESYSGOOD,
 * TRACEFORK/VFORK/CLONE/EXEC), then execs the command; every task is resumed with
 * PTRACE_SYSCALL and each syscall stop is read with PTRACE_GET_SYSCALL_INFO.  Nothing is
 * reported before the command's first execve.  At entry the path arguments are read from the
 * tracee (process_vm_readv), resolved against its cwd or dirfd (/proc/TID/cwd, /proc/TID/fd/N)
 * and stat()ed (the state the kernel's path lookup sees); at exit created names are stat()ed
 * again, the credentials come from /proc/TID/status, loginuid and sessionid, and the event goes
 * through the reference engine.  Recorded events are printed as SYSCALL, EXECVE, CWD, PATH and
 * PROCTITLE records.  exit and exit_group have no exit stop: they are decided at entry with no
 * return value, as the kernel does at task exit.
 *
 * Approximations (documented in secpath-audit-tools(1)): names are collected for the x86_64
 * path syscalls of a fixed table (PARENT + CREATE/DELETE entries for the ones that create or
 * remove, NORMAL otherwise; no interpreter name for execve, no fd-based names); tty=(none);
 * no LSM contexts; capability fields are 0; the task list is decided per syscall with the
 * current credentials; job-control stops are not kept.
 *
 * Invariants: the tracer never changes the tracee's registers or memory; every task it sees is
 * resumed; the command's wait status is returned unchanged.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/tools/tools_int.h"
#include "secpath/audit_record.h"

#define TR_OPTS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
		 PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)
#define TR_MAX_NAMES 6
#define TR_ARGS_MAX 8192

enum { NT_NORMAL = 0, NT_PARENT, NT_DELETE, NT_CREATE };
static const char *const nametype_text[] = { "NORMAL", "PARENT", "DELETE", "CREATE" };

struct tname {
	char raw[PATH_MAX];		/* as passed (PATH name=) */
	char abs[PATH_MAX];		/* resolved, normalised */
	int type;
	int have;			/* st valid */
	int recheck;			/* stat again at exit (created) */
	int nofollow;
	struct stat st;
};

struct task {
	pid_t tid;
	int started;
	int in_call;
	uint32_t arch;
	int32_t nr;
	uint64_t args[6];
	int nnames;
	struct tname names[TR_MAX_NAMES];
	char *argv;			/* execve arguments, NUL-separated */
	size_t argv_len;
	int argc;
};

struct tracer {
	const struct sp_audit_trace_opts *o;
	struct sp_audit_ref *ref;
	struct sp_audit_fsview *fs;
	struct sp_audit_event *ev;
	struct sp_audit_record_writer *rec;
	int rec_err;			/* the first failed record write: returned at the end */
	struct task *tasks;
	size_t ntasks, cap;
	pid_t root;
	uint32_t serial;
	struct sp_audit_trace_stats *st;
	char line[16384];
};

/* ---- x86_64 path syscalls ---- */

enum { PK_NORMAL = 0, PK_OPEN, PK_CREATE, PK_DELETE, PK_NOFOLLOW };
struct pathspec {
	int16_t nr;
	int8_t path, dirfd, kind;	/* arg indexes (-1: none / AT_FDCWD) */
	int8_t path2, dirfd2, kind2;
};

static const struct pathspec x64_paths[] = {
	{ 2, 0, -1, PK_OPEN, -1, -1, 0 },	{ 257, 1, 0, PK_OPEN, -1, -1, 0 },
	{ 437, 1, 0, PK_OPEN, -1, -1, 0 },	{ 85, 0, -1, PK_CREATE, -1, -1, 0 },
	{ 4, 0, -1, PK_NORMAL, -1, -1, 0 },	{ 6, 0, -1, PK_NOFOLLOW, -1, -1, 0 },
	{ 262, 1, 0, PK_NORMAL, -1, -1, 0 },	{ 332, 1, 0, PK_NORMAL, -1, -1, 0 },
	{ 21, 0, -1, PK_NORMAL, -1, -1, 0 },	{ 269, 1, 0, PK_NORMAL, -1, -1, 0 },
	{ 439, 1, 0, PK_NORMAL, -1, -1, 0 },	{ 89, 0, -1, PK_NOFOLLOW, -1, -1, 0 },
	{ 267, 1, 0, PK_NOFOLLOW, -1, -1, 0 },	{ 59, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 322, 1, 0, PK_NORMAL, -1, -1, 0 },	{ 76, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 80, 0, -1, PK_NORMAL, -1, -1, 0 },	{ 161, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 82, 0, -1, PK_DELETE, 1, -1, PK_CREATE }, { 264, 1, 0, PK_DELETE, 3, 2, PK_CREATE },
	{ 316, 1, 0, PK_DELETE, 3, 2, PK_CREATE }, { 83, 0, -1, PK_CREATE, -1, -1, 0 },
	{ 258, 1, 0, PK_CREATE, -1, -1, 0 },	{ 84, 0, -1, PK_DELETE, -1, -1, 0 },
	{ 86, 0, -1, PK_NOFOLLOW, 1, -1, PK_CREATE }, { 265, 1, 0, PK_NOFOLLOW, 3, 2, PK_CREATE },
	{ 87, 0, -1, PK_DELETE, -1, -1, 0 },	{ 263, 1, 0, PK_DELETE, -1, -1, 0 },
	{ 88, 1, -1, PK_CREATE, -1, -1, 0 },	{ 266, 2, 1, PK_CREATE, -1, -1, 0 },
	{ 90, 0, -1, PK_NORMAL, -1, -1, 0 },	{ 268, 1, 0, PK_NORMAL, -1, -1, 0 },
	{ 92, 0, -1, PK_NORMAL, -1, -1, 0 },	{ 94, 0, -1, PK_NOFOLLOW, -1, -1, 0 },
	{ 260, 1, 0, PK_NORMAL, -1, -1, 0 },	{ 132, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 235, 0, -1, PK_NORMAL, -1, -1, 0 },	{ 280, 1, 0, PK_NORMAL, -1, -1, 0 },
	{ 261, 1, 0, PK_NORMAL, -1, -1, 0 },	{ 133, 0, -1, PK_CREATE, -1, -1, 0 },
	{ 259, 1, 0, PK_CREATE, -1, -1, 0 },	{ 188, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 189, 0, -1, PK_NOFOLLOW, -1, -1, 0 }, { 191, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 192, 0, -1, PK_NOFOLLOW, -1, -1, 0 }, { 194, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 195, 0, -1, PK_NOFOLLOW, -1, -1, 0 }, { 197, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 198, 0, -1, PK_NOFOLLOW, -1, -1, 0 }, { 166, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 167, 0, -1, PK_NORMAL, -1, -1, 0 },	{ 163, 0, -1, PK_NORMAL, -1, -1, 0 },
	{ 303, 1, 0, PK_NORMAL, -1, -1, 0 },
};

static const struct pathspec *path_spec(uint32_t arch, int32_t nr)
{
	if (arch != SP_AUDIT_ARCH_X86_64)
		return NULL;
	for (size_t i = 0; i < SP_ARRAY_SIZE(x64_paths); i++)
		if (x64_paths[i].nr == nr)
			return &x64_paths[i];
	return NULL;
}

int tool_syscall_names(uint32_t arch, int32_t nr)
{
	const struct pathspec *ps = path_spec(arch, nr);
	int n = 0;
	if (!ps)
		return 0;
	n += ps->kind == PK_CREATE || ps->kind == PK_DELETE ? 2 : 1;
	if (ps->path2 >= 0)
		n += ps->kind2 == PK_CREATE || ps->kind2 == PK_DELETE ? 2 : 1;
	return n;
}

/* ---- reading the tracee ---- */

/* Read a NUL-terminated string at addr (page by page).  Returns length or -errno. */
static ssize_t read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;
	if (!addr)
		return -EFAULT;
	while (got + 1 < cap) {
		size_t page_left = 4096 - ((addr + got) & 4095);
		size_t want = page_left < cap - 1 - got ? page_left : cap - 1 - got;
		struct iovec l = { buf + got, want }, r = { (void *)(uintptr_t)(addr + got), want };
		ssize_t n = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return got ? (ssize_t)got : -EFAULT;
		char *z = memchr(buf + got, 0, (size_t)n);
		if (z)
			return z - buf;
		got += (size_t)n;
	}
	buf[got] = 0;
	return (ssize_t)got;
}

static int read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(tid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static int proc_link(pid_t tid, const char *what, char *buf, size_t cap)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/%s", (int)tid, what);
	ssize_t n = readlink(p, buf, cap - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static ssize_t proc_read(pid_t tid, const char *what, char *buf, size_t cap)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/%s", (int)tid, what);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return n;
}

/* Lexical normalisation of an absolute path ("." and ".." and repeated slashes). */
static void normalise(char *p)
{
	char out[PATH_MAX];
	size_t o = 0;
	const char *s = p;
	while (*s) {
		while (*s == '/')
			s++;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		size_t n = (size_t)(e - s);
		if (n == 0)
			break;
		if (n == 1 && s[0] == '.') {
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
		} else if (o + n + 2 < sizeof(out)) {
			out[o++] = '/';
			memcpy(out + o, s, n);
			o += n;
		}
		s = e;
	}
	if (!o)
		out[o++] = '/';
	out[o] = 0;
	memcpy(p, out, o + 1);
}

static void resolve(pid_t tid, int64_t dirfd, const char *raw, char *abs, size_t cap)
{
	char base[PATH_MAX] = "/";
	if (raw[0] != '/') {
		if (dirfd == AT_FDCWD || dirfd < 0) {
			proc_link(tid, "cwd", base, sizeof(base));
		} else {
			char what[32];
			snprintf(what, sizeof(what), "fd/%d", (int)dirfd);
			proc_link(tid, what, base, sizeof(base));
		}
		size_t bl = strnlen(base, cap - 2), rl = strnlen(raw, cap - bl - 2);
		memcpy(abs, base, bl);
		abs[bl] = '/';
		memcpy(abs + bl + 1, raw, rl);
		abs[bl + 1 + rl] = 0;
	} else {
		snprintf(abs, cap, "%s", raw);
	}
	normalise(abs);
}

static void dirname_of(const char *abs, char *out, size_t cap)
{
	snprintf(out, cap, "%s", abs);
	char *s = strrchr(out, '/');
	if (s == out)
		out[1] = 0;
	else if (s)
		*s = 0;
}

static void name_stat(struct tname *n)
{
	n->have = (n->nofollow ? lstat(n->abs, &n->st) : stat(n->abs, &n->st)) == 0;
}

static struct tname *add_tname(struct task *t, int type)
{
	if (t->nnames >= TR_MAX_NAMES)
		return NULL;
	struct tname *n = &t->names[t->nnames++];
	memset(n, 0, sizeof(*n));
	n->type = type;
	return n;
}

static void collect_one(struct task *t, int path_arg, int dirfd_arg, int kind)
{
	char raw[PATH_MAX], abs[PATH_MAX];
	if (path_arg < 0 || read_str(t->tid, t->args[path_arg], raw, sizeof(raw)) < 0)
		return;
	int64_t dirfd = dirfd_arg < 0 ? AT_FDCWD : (int64_t)(int32_t)t->args[dirfd_arg];
	resolve(t->tid, dirfd, raw, abs, sizeof(abs));
	if (kind == PK_OPEN) {
		uint64_t flags = 0;
		if (t->nr == 2)
			flags = t->args[1];
		else if (t->nr == 257)
			flags = t->args[2];
		else
			read_mem(t->tid, t->args[2], &flags, sizeof(flags));	/* open_how.flags */
		struct stat st;
		if ((flags & O_CREAT) && stat(abs, &st) != 0)
			kind = PK_CREATE;
		else
			kind = PK_NORMAL;
	}
	if (kind == PK_CREATE || kind == PK_DELETE) {
		struct tname *p = add_tname(t, NT_PARENT);
		if (p) {
			dirname_of(raw[0] == '/' ? raw : abs, p->raw, sizeof(p->raw));
			dirname_of(abs, p->abs, sizeof(p->abs));
			name_stat(p);
		}
	}
	int type = kind == PK_CREATE ? NT_CREATE : kind == PK_DELETE ? NT_DELETE : NT_NORMAL;
	struct tname *n = add_tname(t, type);
	if (!n)
		return;
	snprintf(n->raw, sizeof(n->raw), "%s", raw);
	snprintf(n->abs, sizeof(n->abs), "%s", abs);
	n->nofollow = kind != PK_NORMAL;
	n->recheck = kind == PK_CREATE;
	name_stat(n);
}

static void capture_argv(struct task *t)
{
	char *buf = malloc(TR_ARGS_MAX);
	size_t len = 0;
	int argc = 0;
	free(t->argv);
	t->argv = NULL;
	t->argc = 0;
	if (!buf)
		return;
	uint64_t vec = t->args[t->nr == 322 ? 2 : 1];
	for (; argc < 256 && vec; argc++) {
		uint64_t p = 0;
		if (read_mem(t->tid, vec + 8 * (uint64_t)argc, &p, sizeof(p)) || !p)
			break;
		ssize_t n = read_str(t->tid, p, buf + len, TR_ARGS_MAX - len);
		if (n < 0 || len + (size_t)n + 1 >= TR_ARGS_MAX)
			break;
		len += (size_t)n + 1;
	}
	t->argv = buf;
	t->argv_len = len;
	t->argc = argc;
}

/* ---- the event ---- */

struct creds {
	uint32_t tgid, ppid, uid[4], gid[4], groups[64], ngroups, auid, ses, pers;
};

static void read_creds(pid_t tid, struct creds *c)
{
	char buf[4096];
	memset(c, 0, sizeof(*c));
	c->auid = c->ses = SP_AUDIT_UNSET;
	c->tgid = (uint32_t)tid;
	if (proc_read(tid, "status", buf, sizeof(buf)) > 0) {
		for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			if (!strncmp(l, "Tgid:", 5))
				c->tgid = (uint32_t)strtoul(l + 5, NULL, 10);
			else if (!strncmp(l, "PPid:", 5))
				c->ppid = (uint32_t)strtoul(l + 5, NULL, 10);
			else if (!strncmp(l, "Uid:", 4) || !strncmp(l, "Gid:", 4)) {
				uint32_t *v = l[0] == 'U' ? c->uid : c->gid;
				char *p = l + 4;
				for (int i = 0; i < 4; i++)
					v[i] = (uint32_t)strtoul(p, &p, 10);
			} else if (!strncmp(l, "Groups:", 7)) {
				char *p = l + 7, *e;
				while (c->ngroups < 64) {
					unsigned long g = strtoul(p, &e, 10);
					if (e == p)
						break;
					c->groups[c->ngroups++] = (uint32_t)g;
					p = e;
				}
			}
		}
	}
	if (proc_read(tid, "loginuid", buf, sizeof(buf)) > 0)
		c->auid = (uint32_t)strtoul(buf, NULL, 10);
	if (proc_read(tid, "sessionid", buf, sizeof(buf)) > 0)
		c->ses = (uint32_t)strtoul(buf, NULL, 10);
	if (proc_read(tid, "personality", buf, sizeof(buf)) > 0)
		c->pers = (uint32_t)strtoul(buf, NULL, 16);
}

static uint32_t kdev(dev_t d)
{
	return SP_AUDIT_MKDEV(major(d), minor(d));
}

static void add_walked(struct sp_audit_event *ev, int k, const char *abs)
{
	char buf[PATH_MAX];
	struct stat st;
	snprintf(buf, sizeof(buf), "%s", abs);
	for (;;) {
		char *s = strrchr(buf, '/');
		if (!s)
			break;
		if (s == buf) {
			if (buf[1] == 0)
				break;
			buf[1] = 0;
		} else {
			*s = 0;
		}
		if (stat(buf, &st) == 0)
			sp_audit_event_name_add_walked(ev, k, st.st_ino, kdev(st.st_dev));
		if (!strcmp(buf, "/"))
			break;
	}
}

static int build_event(struct tracer *tr, struct task *t, int has_ret, int64_t rval,
		       struct creds *c)
{
	struct sp_audit_event *ev = tr->ev;
	struct stat st;
	char exe[64];

	sp_audit_event_reset(ev);
	sp_audit_event_set_syscall(ev, t->arch, t->nr);
	sp_audit_event_set_args(ev, t->args[0], t->args[1], t->args[2], t->args[3]);
	if (has_ret)
		sp_audit_event_set_return(ev, rval);
	else
		sp_audit_event_clear_return(ev);
	read_creds(t->tid, c);
	sp_audit_event_set_pids(ev, c->tgid, (uint32_t)t->tid, c->ppid);
	sp_audit_event_set_uids(ev, c->uid[0], c->uid[1], c->uid[2], c->uid[3]);
	sp_audit_event_set_gids(ev, c->gid[0], c->gid[1], c->gid[2], c->gid[3]);
	int err = sp_audit_event_set_groups(ev, c->groups, c->ngroups);
	sp_audit_event_set_loginuid(ev, c->auid);
	sp_audit_event_set_sessionid(ev, c->ses);
	sp_audit_event_set_personality(ev, c->pers);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)t->tid);
	if (stat(exe, &st) == 0)
		sp_audit_event_set_exe(ev, st.st_ino, kdev(st.st_dev));
	if (t->nr == 437) {
		uint64_t flags = 0;
		if (!read_mem(t->tid, t->args[2], &flags, sizeof(flags)))
			sp_audit_event_set_openat2_flags(ev, flags);
	}
	for (int i = 0; i < t->nnames && !err; i++) {
		struct tname *n = &t->names[i];
		struct statfs sf;
		if (n->recheck && has_ret && rval >= 0)
			name_stat(n);
		int k = sp_audit_event_add_name(ev, n->have ? (uint64_t)n->st.st_ino : SP_AUDIT_INO_UNSET,
						n->have ? kdev(n->st.st_dev) : 0);
		if (k < 0)
			break;
		err = sp_audit_event_name_set_path(ev, k, n->abs);
		if (n->have) {
			sp_audit_event_name_set_mode(ev, k, n->st.st_mode);
			sp_audit_event_name_set_owner(ev, k, n->st.st_uid, n->st.st_gid);
			sp_audit_event_name_set_rdev(ev, k, kdev(n->st.st_rdev));
			sp_audit_event_name_add_walked(ev, k, n->st.st_ino, kdev(n->st.st_dev));
		}
		if (statfs(n->have ? n->abs : t->names[0].abs, &sf) == 0)
			sp_audit_event_name_set_fs_magic(ev, k, (uint32_t)sf.f_type);
		add_walked(ev, k, n->abs);
	}
	return err;
}

/* ---- records ---- */

/* The kernel's audit_log_untrustedstring: quoted if every byte is 0x21..0x7e and not '"'. */
static size_t untrusted(char *out, size_t cap, const char *s, size_t len)
{
	int hex = 0;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e || s[i] == '"')
			hex = 1;
	size_t o = 0;
	if (!hex) {
		o = (size_t)snprintf(out, cap, "\"%.*s\"", (int)len, s);
	} else {
		for (size_t i = 0; i < len && o + 3 < cap; i++)
			o += (size_t)snprintf(out + o, cap - o, "%02X", (unsigned char)s[i]);
	}
	return o < cap ? o : cap - 1;
}

struct lbuf {
	char *p;
	size_t n, cap;
};

static void lb_printf(struct lbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lb_printf(struct lbuf *b, const char *fmt, ...)
{
	va_list ap;
	if (b->n >= b->cap)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->n += (size_t)n < b->cap - b->n ? (size_t)n : b->cap - b->n - 1;
}

static void lb_untrusted(struct lbuf *b, const char *s, size_t len)
{
	if (b->n < b->cap)
		b->n += untrusted(b->p + b->n, b->cap - b->n, s, len);
}

static void emit(struct tracer *tr, struct lbuf *b)
{
	if (tr->o->emit)
		tr->o->emit(tr->o->ud, b->p, b->n);
}

static void lb_head(struct lbuf *b, const char *type, const struct timespec *ts, uint32_t serial)
{
	b->n = 0;
	lb_printf(b, "type=%s msg=audit(%lld.%03ld:%u): ", type, (long long)ts->tv_sec,
		  ts->tv_nsec / 1000000, serial);
}

static void write_records(struct tracer *tr, struct task *t, int has_ret, int64_t rval,
			  const struct creds *c, const struct sp_audit_decision *d)
{
	struct lbuf b = { tr->line, 0, sizeof(tr->line) };
	struct timespec ts;
	char buf[PATH_MAX], comm[64] = "", exe[PATH_MAX] = "";
	uint32_t serial = tr->serial++;

	clock_gettime(CLOCK_REALTIME, &ts);
	ssize_t cn = proc_read(t->tid, "comm", comm, sizeof(comm));
	if (cn > 0 && comm[cn - 1] == '\n')
		comm[--cn] = 0;
	proc_link(t->tid, "exe", exe, sizeof(exe));

	lb_head(&b, "SYSCALL", &ts, serial);
	lb_printf(&b, "arch=%x syscall=%d ", t->arch, t->nr);
	if (c->pers)
		lb_printf(&b, "per=%x ", c->pers);
	if (has_ret) {
		int64_t r = rval;
		if (r <= -512 && r >= -516 && r != -515)
			r = -EINTR;
		lb_printf(&b, "success=%s exit=%lld ", (uint64_t)r >= (uint64_t)-4095 ? "no" : "yes",
			  (long long)r);
	}
	lb_printf(&b, "a0=%llx a1=%llx a2=%llx a3=%llx items=%d ppid=%u pid=%u auid=%u uid=%u "
		  "gid=%u euid=%u suid=%u fsuid=%u egid=%u sgid=%u fsgid=%u tty=(none) ses=%u comm=",
		  (unsigned long long)t->args[0], (unsigned long long)t->args[1],
		  (unsigned long long)t->args[2], (unsigned long long)t->args[3], t->nnames, c->ppid,
		  c->tgid, c->auid, c->uid[0], c->gid[0], c->uid[1], c->uid[2], c->uid[3], c->gid[1],
		  c->gid[2], c->gid[3], c->ses);
	lb_untrusted(&b, comm, strlen(comm));
	lb_printf(&b, " exe=");
	lb_untrusted(&b, exe, strlen(exe));
	lb_printf(&b, " key=");
	if (d->has_key)
		lb_untrusted(&b, d->key, d->key_len);
	else
		lb_printf(&b, "(null)");
	emit(tr, &b);

	if (t->argv && (t->nr == 59 || t->nr == 322) && has_ret && rval == 0) {
		lb_head(&b, "EXECVE", &ts, serial);
		lb_printf(&b, "argc=%d", t->argc);
		size_t off = 0;
		for (int i = 0; i < t->argc && off < t->argv_len; i++) {
			size_t l = strlen(t->argv + off);
			lb_printf(&b, " a%d=", i);
			lb_untrusted(&b, t->argv + off, l);
			off += l + 1;
		}
		emit(tr, &b);
	}
	if (t->nnames && proc_link(t->tid, "cwd", buf, sizeof(buf)) == 0) {
		lb_head(&b, "CWD", &ts, serial);
		lb_printf(&b, "cwd=");
		lb_untrusted(&b, buf, strlen(buf));
		emit(tr, &b);
	}
	for (int i = 0; i < t->nnames; i++) {
		const struct tname *n = &t->names[i];
		lb_head(&b, "PATH", &ts, serial);
		lb_printf(&b, "item=%d name=", i);
		lb_untrusted(&b, n->raw, strlen(n->raw));
		if (n->have)
			lb_printf(&b, " inode=%llu dev=%02x:%02x mode=0%o ouid=%u ogid=%u rdev=%02x:%02x",
				  (unsigned long long)n->st.st_ino, major(n->st.st_dev),
				  minor(n->st.st_dev), (unsigned)n->st.st_mode, (unsigned)n->st.st_uid,
				  (unsigned)n->st.st_gid, major(n->st.st_rdev), minor(n->st.st_rdev));
		lb_printf(&b, " nametype=%s cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0 cap_frootid=0",
			  nametype_text[n->type]);
		emit(tr, &b);
	}
	ssize_t pl = proc_read(t->tid, "cmdline", buf, 129);
	if (pl > 0) {
		size_t l = (size_t)pl > 128 ? 128 : (size_t)pl;
		while (l && (unsigned char)buf[l - 1] < 0x20)
			l--;
		lb_head(&b, "PROCTITLE", &ts, serial);
		lb_printf(&b, "proctitle=");
		lb_untrusted(&b, buf, l);
		emit(tr, &b);
	}
}

static int count_key(struct sp_audit_trace_stats *st, const struct sp_audit_decision *d)
{
	const char *k = d->has_key ? d->key : "(null)";
	for (size_t i = 0; i < st->nkeys; i++)
		if (!strcmp(st->keys[i].key, k)) {
			st->keys[i].count++;
			return 0;
		}
	struct sp_audit_trace_key *nv = realloc(st->keys, (st->nkeys + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	st->keys = nv;
	snprintf(nv[st->nkeys].key, sizeof(nv[st->nkeys].key), "%s", k);
	nv[st->nkeys].count = 1;
	st->nkeys++;
	return 0;
}

static void decide(struct tracer *tr, struct task *t, int has_ret, int64_t rval)
{
	struct creds c;
	struct sp_audit_decision d;
	if (build_event(tr, t, has_ret, rval, &c))
		return;
	tr->st->syscalls++;
	if (tr->rec && !tr->rec_err)
		tr->rec_err = sp_audit_record_write(tr->rec, tr->ev);
	sp_audit_ref_filter(tr->ref, tr->ev, &d);
	if (!d.record || d.excluded)
		return;
	tr->st->recorded++;
	count_key(tr->st, &d);
	write_records(tr, t, has_ret, rval, &c, &d);
}

/* ---- the trace loop ---- */

static struct task *task_get(struct tracer *tr, pid_t tid)
{
	for (size_t i = 0; i < tr->ntasks; i++)
		if (tr->tasks[i].tid == tid)
			return &tr->tasks[i];
	if (tr->ntasks == tr->cap) {
		size_t nc = tr->cap ? tr->cap * 2 : 16;
		struct task *nv = realloc(tr->tasks, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		tr->tasks = nv;
		tr->cap = nc;
	}
	struct task *t = &tr->tasks[tr->ntasks++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->started = tid != tr->root;	/* children exist only after the command started */
	tr->st->tasks++;
	return t;
}

static void task_drop(struct tracer *tr, pid_t tid)
{
	for (size_t i = 0; i < tr->ntasks; i++)
		if (tr->tasks[i].tid == tid) {
			free(tr->tasks[i].argv);
			tr->tasks[i] = tr->tasks[--tr->ntasks];
			return;
		}
}

static void on_entry(struct tracer *tr, struct task *t, const struct __ptrace_syscall_info *si)
{
	t->arch = si->arch;
	t->nr = (int32_t)si->entry.nr;
	memcpy(t->args, si->entry.args, sizeof(t->args));
	t->in_call = 1;
	t->nnames = 0;
	int is_exec = (t->arch == SP_AUDIT_ARCH_X86_64 && (t->nr == 59 || t->nr == 322)) ||
		      (t->arch == SP_AUDIT_ARCH_I386 && (t->nr == 11 || t->nr == 358));
	if (!t->started && is_exec)
		t->started = 1;
	if (!t->started)
		return;
	const struct pathspec *ps = path_spec(t->arch, t->nr);
	if (ps) {
		collect_one(t, ps->path, ps->dirfd, ps->kind);
		if (ps->path2 >= 0)
			collect_one(t, ps->path2, ps->dirfd2, ps->kind2);
	}
	if (is_exec && t->arch == SP_AUDIT_ARCH_X86_64)
		capture_argv(t);
	int is_exit = (t->arch == SP_AUDIT_ARCH_X86_64 && (t->nr == 60 || t->nr == 231)) ||
		      (t->arch == SP_AUDIT_ARCH_I386 && (t->nr == 1 || t->nr == 252));
	if (is_exit) {
		decide(tr, t, 0, 0);
		t->in_call = 0;
	}
}

static void on_exit_stop(struct tracer *tr, struct task *t, const struct __ptrace_syscall_info *si)
{
	if (!t->in_call || !t->started) {
		t->in_call = 0;
		return;
	}
	t->in_call = 0;
	t->arch = si->arch ? si->arch : t->arch;
	decide(tr, t, 1, si->exit.rval);
}

SP_API int sp_audit_trace_supported(void)
{
	int p[2], st, err = 0;
	if (pipe(p))
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	if (pid == 0) {
		char c;
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)(uintptr_t)TR_OPTS) < 0) {
		err = -errno;
	} else if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0) {
		err = -errno;
	} else if (waitpid(pid, &st, __WALL) == pid && WIFSTOPPED(st)) {
		struct __ptrace_syscall_info si;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(si), &si) < 0)
			err = errno == EIO ? -ENOSYS : -errno;
	} else {
		err = -ECHILD;
	}
	kill(pid, SIGKILL);
	close(p[1]);
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
	return err;
}

/* The decision side of a run: the live identities of the rules' paths, the reference engine
 * with the rules, one event, the record writer.  0 or -errno. */
static int tracer_setup(struct tracer *tr, const struct sp_audit_trace_opts *o)
{
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo) };
	int err = sp_audit_fsview_from_host(o->rules, &tr->fs);
	eo.fs = tr->fs;
	if (!err)
		err = sp_audit_ref_new(&eo, &tr->ref);
	for (size_t i = 0; !err && i < sp_audit_ruleset_count(o->rules); i++) {
		struct sp_audit_item it;
		sp_audit_ruleset_item(o->rules, i, &it);
		if (it.kind == SP_AUDIT_ITEM_ADD)
			sp_audit_ref_add(tr->ref, it.blob, it.blob_len, it.line);
		else if (it.kind == SP_AUDIT_ITEM_DEL)
			sp_audit_ref_del(tr->ref, it.blob, it.blob_len);
	}
	if (!err)
		err = sp_audit_event_new(&tr->ev);
	if (!err && o->record_fd >= 0)
		err = sp_audit_record_writer_new(o->record_fd, &tr->rec);
	return err;
}

/*
 * The traced child: it waits for the tracer's "go" on p, then execs argv; when exec fails its
 * errno goes back on ep (a successful exec closes ep, O_CLOEXEC).  The tracer keeps p[1] and
 * ep[0]; tr->root is the child.  0 or -errno (no child, every descriptor closed).
 */
static int spawn(struct tracer *tr, char *const argv[], int p[2], int ep[2])
{
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	if (pipe2(ep, O_CLOEXEC)) {
		int err = -errno;
		close(p[0]);
		close(p[1]);
		return err;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int err = -errno;
		close(p[0]);
		close(p[1]);
		close(ep[0]);
		close(ep[1]);
		return err;
	}
	if (pid == 0) {
		char c;
		close(p[1]);
		close(ep[0]);
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		close(p[0]);
		execvp(argv[0], argv);
		int e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(ep[1]);
	close(p[0]);
	tr->root = pid;
	return 0;
}

/* Seize the child and stop it once: every later syscall stops.  0, or -errno with the child
 * killed and reaped and go_fd closed. */
static int seize(pid_t pid, int go_fd)
{
	int st, err;
	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)(uintptr_t)TR_OPTS) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0) {
		err = -errno;
		kill(pid, SIGKILL);
		close(go_fd);
		waitpid(pid, &st, 0);
		return err;
	}
	/* the interrupt stop, then let it go */
	if (waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SYSCALL, pid, 0, 0) < 0) {
		kill(pid, SIGKILL);
		close(go_fd);
		waitpid(pid, &st, __WALL);
		return -ECHILD;
	}
	return 0;
}

/* One ptrace stop of task w: syscall entry or exit, a new task, or a signal to pass on. */
static void on_stop(struct tracer *tr, pid_t w, int st)
{
	struct task *t = task_get(tr, w);
	int sig = WSTOPSIG(st), event = st >> 16, inject = 0;
	if (sig == (SIGTRAP | 0x80) && t) {
		struct __ptrace_syscall_info si;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, w, (void *)sizeof(si), &si) > 0) {
			if (si.op == PTRACE_SYSCALL_INFO_ENTRY)
				on_entry(tr, t, &si);
			else if (si.op == PTRACE_SYSCALL_INFO_EXIT)
				on_exit_stop(tr, t, &si);
		}
	} else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK ||
		   event == PTRACE_EVENT_CLONE) {
		unsigned long child = 0;
		if (!ptrace(PTRACE_GETEVENTMSG, w, 0, &child))
			task_get(tr, (pid_t)child);
	} else if (event == PTRACE_EVENT_EXEC || event == PTRACE_EVENT_STOP) {
		/* exec: the exit stop follows; STOP: new task or group-stop (not kept) */
	} else if (!event) {
		inject = sig;	/* signal-delivery stop */
	}
	ptrace(PTRACE_SYSCALL, w, 0, (void *)(uintptr_t)inject);
}

/* Until every traced task is gone; the wait status of the root task. */
static int trace_loop(struct tracer *tr)
{
	int st, root_status = 0;
	for (;;) {
		pid_t w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			break;	/* ECHILD: every traced task is gone */
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == tr->root)
				root_status = st;
			task_drop(tr, w);
			continue;
		}
		if (WIFSTOPPED(st))
			on_stop(tr, w, st);
	}
	return root_status;
}

/* Finish the record stream (its error, or the first write error, unless err is set), free all. */
static int tracer_free(struct tracer *tr, int err)
{
	if (tr->rec) {
		int rc = sp_audit_record_writer_finish(tr->rec);
		if (!err)
			err = tr->rec_err ? tr->rec_err : rc;
	}
	for (size_t i = 0; i < tr->ntasks; i++)
		free(tr->tasks[i].argv);
	free(tr->tasks);
	sp_audit_event_free(tr->ev);
	sp_audit_ref_free(tr->ref);
	sp_audit_fsview_free(tr->fs);
	free(tr);
	return err;
}

SP_API int sp_audit_trace_run(char *const argv[], const struct sp_audit_trace_opts *o, int *status,
			      struct sp_audit_trace_stats *stats)
{
	struct sp_audit_trace_stats local;
	struct tracer *tr;
	int p[2], ep[2] = { -1, -1 }, err;

	if (!argv || !argv[0] || !o || !o->rules || !status)
		return -EINVAL;
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	tr = calloc(1, sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	tr->o = o;
	tr->st = stats;
	tr->serial = o->first_serial ? o->first_serial : 1;
	err = tracer_setup(tr, o);
	if (!err)
		err = spawn(tr, argv, p, ep);
	if (!err && (err = seize(tr->root, p[1])))
		close(ep[0]);	/* spawn's descriptors are the caller's once it succeeded */
	if (err)
		goto out;
	if (!task_get(tr, tr->root)) {
		err = -ENOMEM;
		kill(tr->root, SIGKILL);
	}
	if (write(p[1], "g", 1) != 1)
		kill(tr->root, SIGKILL);
	close(p[1]);
	*status = trace_loop(tr);
	if (ep[0] >= 0) {
		int e;
		if (read(ep[0], &e, sizeof(e)) == (ssize_t)sizeof(e))
			stats->exec_errno = e;
		close(ep[0]);
	}
out:
	err = tracer_free(tr, err);
	if (stats == &local || err)
		sp_audit_trace_stats_release(stats);
	return err;
}

SP_API void sp_audit_trace_stats_release(struct sp_audit_trace_stats *s)
{
	if (!s)
		return;
	free(s->keys);
	s->keys = NULL;
	s->nkeys = 0;
}
