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
 * Watches and exe= marks follow the file system as the kernel's do: a successful call's
 * CREATE and DELETE names re-bind them (sp_audit_event_rebind) before the call is decided.
 *
 * Approximations (documented in secpath-audit(1), audit run): the file system can change between
 * the entry stop and the kernel's own walk; tty=(none); no LSM contexts; capability fields are
 * 0; the task list is decided per syscall with the current credentials; job-control stops are
 * not kept.
 *
 * Invariants: the tracer never changes the tracee's registers or memory; every task it sees is
 * resumed; the command's wait status is returned unchanged.
 */
#include <elf.h>
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
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit/tools/tools_int.h"
#include "secpath/audit_record.h"

#define TR_OPTS (PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
		 PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)
#define TR_ARGS_MAX 8192

struct task {
	pid_t tid;
	int started;
	int in_call;
	uint32_t arch;
	int32_t nr;
	uint64_t args[6];
	struct sp_audit_names *nm;	/* this call's names (allocated at the first path syscall) */
	pid_t tgid;			/* its thread group, as /proc/self names it */
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

static uint32_t kdev(dev_t d)
{
	return SP_AUDIT_MKDEV(major(d), minor(d));
}

/* ---- the file system the tracee's calls see (sp_audit_fs_ops over the host) ---- */

static int host_lstat(void *ctx, const char *path, struct sp_audit_stat *out)
{
	struct stat st;
	(void)ctx;
	if (lstat(path, &st))
		return -errno;
	*out = (struct sp_audit_stat){ st.st_ino, kdev(st.st_dev), kdev(st.st_rdev), st.st_mode,
				       st.st_uid, st.st_gid };
	return 0;
}

/* The tracee's own /proc/self and /proc/thread-self, not the tracer's. */
static int host_readlink(void *ctx, const char *path, char *buf, size_t cap)
{
	const struct task *t = ctx;
	int n;
	if (!strcmp(path, "/proc/self"))
		n = snprintf(buf, cap, "%d", (int)t->tgid);
	else if (!strcmp(path, "/proc/thread-self"))
		n = snprintf(buf, cap, "%d/task/%d", (int)t->tgid, (int)t->tid);
	else
		n = -1;
	if (n >= 0)
		return n < (int)cap ? n : -ENAMETOOLONG;
	n = (int)readlink(path, buf, cap);
	return n < 0 ? -errno : (int)n;
}

static int host_fd_path(void *ctx, int fd, char *buf, size_t cap)
{
	const struct task *t = ctx;
	char what[32];
	snprintf(what, sizeof(what), "fd/%d", fd);
	return proc_link(t->tid, what, buf, cap);
}

/* PT_INTERP of an ELF file (load_elf_binary's elf_interpreter): its length, or -ENOEXEC. */
static int elf_interp(int fd, char *buf, size_t cap)
{
	unsigned char id[EI_NIDENT];
	if (pread(fd, id, sizeof(id), 0) != (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG))
		return -ENOEXEC;
	int is64 = id[EI_CLASS] == ELFCLASS64;
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;
	uint64_t phoff;
	unsigned phnum, phentsize;
	if (is64 ? pread(fd, &e64, sizeof(e64), 0) != (ssize_t)sizeof(e64) :
		   pread(fd, &e32, sizeof(e32), 0) != (ssize_t)sizeof(e32))
		return -ENOEXEC;
	phoff = is64 ? e64.e_phoff : e32.e_phoff;
	phnum = is64 ? e64.e_phnum : e32.e_phnum;
	phentsize = is64 ? e64.e_phentsize : e32.e_phentsize;
	for (unsigned i = 0; i < phnum && i < 256; i++) {
		Elf64_Phdr p64;
		Elf32_Phdr p32;
		off_t at = (off_t)(phoff + (uint64_t)i * phentsize);
		if (is64 ? pread(fd, &p64, sizeof(p64), at) != (ssize_t)sizeof(p64) :
			   pread(fd, &p32, sizeof(p32), at) != (ssize_t)sizeof(p32))
			return -ENOEXEC;
		if ((is64 ? p64.p_type : p32.p_type) != PT_INTERP)
			continue;
		uint64_t len = is64 ? p64.p_filesz : p32.p_filesz, off = is64 ? p64.p_offset : p32.p_offset;
		if (!len || len >= cap || pread(fd, buf, (size_t)len, (off_t)off) != (ssize_t)len)
			return -ENOEXEC;
		buf[len] = 0;
		return (int)strlen(buf);
	}
	return -ENOEXEC;
}

/* The interpreter the file at path names: the first word after "#!" (load_script's i_name),
 * or its ELF PT_INTERP. */
static int host_interp(void *ctx, const char *path, char *buf, size_t cap)
{
	char head[256];
	(void)ctx;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, head, sizeof(head) - 1);
	if (n < 2 || head[0] != '#' || head[1] != '!') {
		int r = n >= 4 ? elf_interp(fd, buf, cap) : -ENOEXEC;
		close(fd);
		return r;
	}
	close(fd);
	head[n] = 0;
	char *s = head + 2;
	s += strspn(s, " \t");
	size_t l = strcspn(s, " \t\n");
	if (!l || l >= cap)
		return -ENOEXEC;
	memcpy(buf, s, l);
	buf[l] = 0;
	return (int)l;
}

static const struct sp_audit_fs_ops host_ops = { host_lstat, host_readlink, host_fd_path, host_interp };

struct creds {
	uint32_t tgid, ppid, uid[4], gid[4], groups[64], ngroups, auid, ses, pers, umask;
};

static void read_creds(pid_t tid, struct creds *c);

/* At entry: read the call's path arguments and collect its names. */
static void collect_names(struct task *t)
{
	char str[6][PATH_MAX], sun[sizeof(((struct sockaddr_un *)0)->sun_path) + 1], cwd[PATH_MAX];
	int sa = -1;
	unsigned need = sp_audit_names_args(t->arch, t->nr, &sa);
	struct creds c;

	if (t->nm)
		t->nm->n = 0;
	if (!need)
		return;
	if (!t->nm && !(t->nm = malloc(sizeof(*t->nm))))
		return;
	struct sp_audit_call call = { .arch = t->arch, .nr = t->nr };
	memcpy(call.args, t->args, sizeof(call.args));
	for (int i = 0; i < 6; i++)
		if ((need & SP_AUDIT_ARG_PATH(i)) && read_str(t->tid, t->args[i], str[i], sizeof(str[i])) >= 0)
			call.str[i] = str[i];
	if ((need & SP_AUDIT_ARG_SOCKADDR) && sa >= 0 && sa < 5) {
		struct sockaddr_un su;
		size_t len = t->args[sa + 1] < sizeof(su) ? (size_t)t->args[sa + 1] : sizeof(su);
		memset(&su, 0, sizeof(su));
		if (len > offsetof(struct sockaddr_un, sun_path) && !read_mem(t->tid, t->args[sa], &su, len) &&
		    su.sun_family == AF_UNIX && su.sun_path[0]) {
			size_t pl = strnlen(su.sun_path, len - offsetof(struct sockaddr_un, sun_path));
			memcpy(sun, su.sun_path, pl);
			sun[pl] = 0;
			call.str[sa] = sun;
		}
	}
	if (need & SP_AUDIT_ARG_HOW)
		read_mem(t->tid, t->args[2], &call.how_flags, sizeof(call.how_flags));
	if (proc_link(t->tid, "cwd", cwd, sizeof(cwd)) == 0)
		call.cwd = cwd;
	read_creds(t->tid, &c);
	t->tgid = (pid_t)c.tgid;
	call.fsuid = c.uid[3];
	call.fsgid = c.gid[3];
	call.umask = c.umask;
	call.groups = c.groups;
	call.ngroups = c.ngroups;
	sp_audit_names_enter(t->nm, &call, &host_ops, t);
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

static void read_creds(pid_t tid, struct creds *c)
{
	char buf[4096];
	memset(c, 0, sizeof(*c));
	c->auid = c->ses = SP_AUDIT_UNSET;
	c->tgid = (uint32_t)tid;
	if (proc_read(tid, "status", buf, sizeof(buf)) > 0) {
		for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			if (!strncmp(l, "Umask:", 6))
				c->umask = (uint32_t)strtoul(l + 6, NULL, 8);
			else if (!strncmp(l, "Tgid:", 5))
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
	if (!err && t->nm) {
		sp_audit_names_exit(t->nm, has_ret ? rval : 0, &host_ops, t);
		err = sp_audit_names_add_to_event(t->nm, ev, &host_ops, t);
		/* the filesystem list's superblock: the object's, a missing one's directory's */
		for (size_t i = 0; !err && i < t->nm->n; i++) {
			const struct sp_audit_name *n = &t->nm->v[i];
			char dir[PATH_MAX];
			struct statfs sf = { 0 };
			snprintf(dir, sizeof(dir), "%s", n->path[0] ? n->path : "/");
			while (statfs(dir, &sf) != 0 && strcmp(dir, "/")) {
				char *sl = strrchr(dir, '/');
				if (sl == dir)
					sl[1] = 0;
				else
					*sl = 0;
			}
			sp_audit_event_name_set_fs_magic(ev, (int)i, (uint32_t)sf.f_type);
		}
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
	int nn = t->nm ? (int)t->nm->n : 0;

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
		  (unsigned long long)t->args[2], (unsigned long long)t->args[3], nn, c->ppid,
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
	if (nn && proc_link(t->tid, "cwd", buf, sizeof(buf)) == 0) {
		lb_head(&b, "CWD", &ts, serial);
		lb_printf(&b, "cwd=");
		lb_untrusted(&b, buf, strlen(buf));
		emit(tr, &b);
	}
	for (int i = 0; i < nn; i++) {
		const struct sp_audit_name *n = &t->nm->v[i];
		lb_head(&b, "PATH", &ts, serial);
		lb_printf(&b, "item=%d name=", i);
		if (n->has_name)
			lb_untrusted(&b, n->name, strlen(n->name));
		else
			lb_printf(&b, "(null)");
		if (n->has_inode)
			lb_printf(&b, " inode=%llu dev=%02x:%02x mode=0%o ouid=%u ogid=%u rdev=%02x:%02x",
				  (unsigned long long)n->st.ino, n->st.dev >> 20, n->st.dev & 0xfffff,
				  (unsigned)n->st.mode, (unsigned)n->st.uid, (unsigned)n->st.gid,
				  n->st.rdev >> 20, n->st.rdev & 0xfffff);
		lb_printf(&b, " nametype=%s cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0 cap_frootid=0",
			  sp_audit_nametype_name(n->type));
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
	sp_audit_event_rebind(tr->ev, tr->ref);	/* the call's fsnotify events move marks first */
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
			free(tr->tasks[i].nm);
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
	if (t->nm)
		t->nm->n = 0;
	int is_exec = (t->arch == SP_AUDIT_ARCH_X86_64 && (t->nr == 59 || t->nr == 322)) ||
		      (t->arch == SP_AUDIT_ARCH_I386 && (t->nr == 11 || t->nr == 358));
	if (!t->started && is_exec)
		t->started = 1;
	if (!t->started)
		return;
	collect_names(t);
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
	for (size_t i = 0; i < tr->ntasks; i++) {
		free(tr->tasks[i].argv);
		free(tr->tasks[i].nm);
	}
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
