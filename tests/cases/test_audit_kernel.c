/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_kernel.c - secpath's audit filter engines judged by the real Linux kernel.
 *
 * Every folder tests/cases/kernel/NAME/ holds one scenario run by the kernel oracle
 * (tests/kernel/, Debian 6.1 under qemu): the rules as loaded (`rules.loaded`, else `rules`), the
 * guest's filesystem at load time (`fs.txt`), which -w paths were directories (`dirs.txt`),
 * auditctl's load errors (`auditctl-load.txt`) and the kernel's verdict per syscall step
 * (`result.tsv`: credentials, arguments, return value, path pre-state, recorded or not, key).
 *
 * For each case: the rules are parsed with sp_audit_ruleset_parse (the guest's passwd/group,
 * env/), applied item by item to a reference engine (ADD, DEL; `-D` starts over) and compiled;
 * every step becomes an sp_audit_event through the public builders and is filtered by both
 * engines. Checked, per step: recorded (record && !excluded) and the key against the kernel, and
 * the two engines against each other; for recorded steps, the inodes of the modelled names
 * against the kernel's PATH items (so an agreement cannot come from a wrong event); per case: the
 * rule lines that failed to load (parse error or engine refusal) against auditctl's report.
 *
 * Invariants: the kernel's recorded verdicts are the truth; a disagreement fails the case unless
 * the case's `known-diffs` file lists it (`step SEQ`, `load LINE`, `names SEQ` + reason), and a listed
 * entry that no longer disagrees is reported as stale. Steps the event model cannot express are
 * counted as skipped with their reason, never silently dropped. With SP_KERNEL_RESULTS=DIR the
 * verdict files are read from DIR/NAME/ (a fresh run of scripts/test-kernel.sh) instead.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "secpath/audit.h"
#include "secpath/audit_tools.h"
#include "../support/files.h"

#define CASES_DIR "tests/cases/kernel"
#define MAXCOL 40
#define MAXCASES 128

/* snprintf that truncates silently (every buffer here is sized for its data). */
static void strfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void strfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Split a line in place at tabs; returns the column count. */
static int split_tabs(char *line, char **col, int max)
{
	int n = 0;

	col[n++] = line;
	for (char *p = line; *p && n < max; p++)
		if (*p == '\t') {
			*p = 0;
			col[n++] = p + 1;
		}
	return n;
}

static uint32_t parse_dev(const char *s)
{
	unsigned ma = 0, mi = 0;

	if (sscanf(s, "%x:%x", &ma, &mi) != 2)
		return 0;
	return SP_AUDIT_MKDEV(ma, mi);
}

/* ---- the guest filesystem at rule load time (fs.txt) ---- */

struct fsent {
	const char *path, *target;
	uint64_t ino;
	uint32_t dev, rdev, mode, uid, gid;
};

struct fstab {
	char *text;
	struct fsent *v;
	size_t n;
};

static int fsent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fsent *)a)->path, ((const struct fsent *)b)->path);
}

static int fstab_load(struct fstab *t, const char *file, struct sp_audit_fsview *fs)
{
	size_t cap = 0;

	memset(t, 0, sizeof(*t));
	t->text = tsupport_slurp(file, NULL);
	if (!t->text)
		return -errno;
	for (char *line = t->text, *next; line && *line; line = next) {
		char *col[MAXCOL];
		int nc;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (line[0] != '/' || (nc = split_tabs(line, col, MAXCOL)) < 7)
			continue;
		if (t->n == cap) {
			cap = cap ? 2 * cap : 512;
			t->v = realloc(t->v, cap * sizeof(*t->v));
			assert_non_null(t->v);
		}
		struct fsent *e = &t->v[t->n++];
		e->path = col[0];
		e->ino = strtoull(col[1], NULL, 10);
		e->dev = parse_dev(col[2]);
		e->mode = (uint32_t)strtoul(col[3], NULL, 8);
		e->uid = (uint32_t)strtoul(col[4], NULL, 10);
		e->gid = (uint32_t)strtoul(col[5], NULL, 10);
		e->rdev = parse_dev(col[6]);
		e->target = (nc > 7 && strcmp(col[7], "-")) ? col[7] : NULL;
		if (fs)
			assert_int_equal(sp_audit_fsview_add(fs, e->path, e->ino, e->dev, e->mode), 0);
	}
	qsort(t->v, t->n, sizeof(*t->v), fsent_cmp);
	return 0;
}

static const struct fsent *fstab_find(const struct fstab *t, const char *path)
{
	struct fsent key = { .path = path };

	return t->n ? bsearch(&key, t->v, t->n, sizeof(*t->v), fsent_cmp) : NULL;
}

static const struct fsent *fstab_find_ino(const struct fstab *t, uint64_t ino, uint32_t dev)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].ino == ino && t->v[i].dev == dev)
			return &t->v[i];
	return NULL;
}

/* Canonical absolute form of `p` (relative to cwd): no "//", ".", "..", trailing '/'. */
static void abspath(const char *cwd, const char *p, char *out, size_t len)
{
	char tmp[4096];
	size_t o = 0;

	if (p[0] == '/')
		strfmt(tmp, sizeof(tmp), "%s", p);
	else
		strfmt(tmp, sizeof(tmp), "%s/%s", cwd, p);
	out[0] = 0;
	for (char *s = tmp, *e; *s; s = e) {
		while (*s == '/')
			s++;
		e = s + strcspn(s, "/");
		size_t n = (size_t)(e - s);
		if (!n || (n == 1 && s[0] == '.'))
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			out[o] = 0;
			continue;
		}
		if (o + n + 2 < len) {
			out[o++] = '/';
			memcpy(out + o, s, n);
			o += n;
			out[o] = 0;
		}
	}
	if (!o)
		strfmt(out, len, "/");
}

static void parent_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path)
		strfmt(out, len, "/");
	else
		strfmt(out, len, "%.*s", (int)(slash - path), path);
}

/* Inodes of the names the model gave the current event (checked against the kernel's PATH items). */
static uint64_t model_ino[SP_AUDIT_MAX_NAMES];
static size_t n_model_ino;

/* ---- one step of result.tsv ---- */

enum {
	C_SEQ, C_BLOCK, C_PID, C_PPID, C_ARCH, C_SYSCALL, C_NR, C_A0, C_A1, C_A2, C_A3, C_EXIT,
	C_ERRNO, C_UID, C_EUID, C_SUID, C_FSUID, C_GID, C_EGID, C_SGID, C_FSGID, C_GROUPS, C_AUID,
	C_SES, C_RECORDED, C_KEY, C_SERIAL, C_RECORDS, C_CWD, C_ARGS, C_PATHS, C_KPATHS, C_CHECK,
	C_PERS, C_EXE, C_TASK, C_NCOLS
};

/* One pre-state item: "PATH|ino=..|dev=..|rdev=..|mode=..|ouid=..|ogid=..|pino=.." or
 * "PATH|ENOENT|pino=.." or "fd:N|ino=..". */
struct item {
	char path[4096];
	int exists, is_fd;
	uint64_t ino, pino;
	int has_pino;
	uint32_t dev, rdev, mode, uid, gid;
};

static const char *kv(const char *s, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = s; (p = strchr(p, '|')); p++)
		if (!strncmp(p + 1, key, kl) && p[1 + kl] == '=') {
			const char *v = p + 2 + kl;
			size_t n = strcspn(v, "|");
			strfmt(out, len, "%.*s", (int)n, v);
			return out;
		}
	return NULL;
}

static void parse_item(const char *s, size_t n, const char *cwd, struct item *it)
{
	char buf[4096], v[64];

	memset(it, 0, sizeof(*it));
	strfmt(buf, sizeof(buf), "%.*s", (int)n, s);
	size_t pl = strcspn(buf, "|");
	char p[4096];
	strfmt(p, sizeof(p), "%.*s", (int)pl, buf);
	it->is_fd = !strncmp(p, "fd:", 3);
	if (it->is_fd)
		strfmt(it->path, sizeof(it->path), "%s", p);
	else
		abspath(cwd, p, it->path, sizeof(it->path));
	if (kv(buf, "ino", v, sizeof(v))) {
		it->exists = 1;
		it->ino = strtoull(v, NULL, 10);
		it->dev = kv(buf, "dev", v, sizeof(v)) ? parse_dev(v) : 0;
		it->rdev = kv(buf, "rdev", v, sizeof(v)) ? parse_dev(v) : 0;
		it->mode = kv(buf, "mode", v, sizeof(v)) ? (uint32_t)strtoul(v, NULL, 8) : 0;
		it->uid = kv(buf, "ouid", v, sizeof(v)) ? (uint32_t)strtoul(v, NULL, 10) : 0;
		it->gid = kv(buf, "ogid", v, sizeof(v)) ? (uint32_t)strtoul(v, NULL, 10) : 0;
	}
	if (kv(buf, "pino", v, sizeof(v))) {
		it->has_pino = 1;
		it->pino = strtoull(v, NULL, 10);
	}
}

static int is_one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

/*
 * The file system a step sees, for the library's name collection (sp_audit_names_*): the step's
 * own pre-state items (lstat of each path argument and its parent's inode), then the guest's
 * file system at rule load (fs.txt).  A directory created during the run is known only through
 * an item's pino.
 */
struct stepfs {
	const struct fstab *t;
	const struct item *it;
	int n;
	const char *exe;	/* the exe column: a successful execve's interpreter */
	uint32_t root_dev;
};

/* The files earlier steps of the block opened, by fd (fd-based calls and AT_EMPTY_PATH name
 * them; a file created during the run is in no fs.txt). */
static struct { int fd; char path[512]; } run_fds[64];
static size_t n_run_fds;
static long run_block = -1;

static const char *run_fd_path(int fd)
{
	for (size_t i = n_run_fds; i-- > 0;)
		if (run_fds[i].fd == fd)
			return run_fds[i].path[0] ? run_fds[i].path : NULL;
	return NULL;
}

static void note_fds(char **c, int64_t ret, char **tok, int ntok)
{
	const char *sc = c[C_SYSCALL];
	int p = !strcmp(sc, "open") || !strcmp(sc, "creat") ? 0 :
		!strcmp(sc, "openat") || !strcmp(sc, "openat2") ? 1 : -1;

	if (atol(c[C_BLOCK]) != run_block) {
		run_block = atol(c[C_BLOCK]);
		n_run_fds = 0;
	}
	if (!strcmp(sc, "close") && ret == 0 && n_run_fds < 64) {
		run_fds[n_run_fds].fd = (int)strtol(c[C_A0], NULL, 16);
		run_fds[n_run_fds++].path[0] = 0;
	}
	if (p < 0 || ret < 0 || p >= ntok || n_run_fds == 64)
		return;
	run_fds[n_run_fds].fd = (int)ret;
	abspath(c[C_CWD], tok[p], run_fds[n_run_fds].path, sizeof(run_fds[0].path));
	n_run_fds++;
}

static void st_of_item(const struct item *it, struct sp_audit_stat *st)
{
	*st = (struct sp_audit_stat){ it->ino, it->dev, it->rdev, it->mode, it->uid, it->gid };
}

static int sfs_lstat(void *ctx, const char *path, struct sp_audit_stat *st)
{
	const struct stepfs *f = ctx;
	char dir[4096];

	for (int k = 0; k < f->n; k++) {
		const char *p = f->it[k].path, *run = f->it[k].is_fd ? run_fd_path(atoi(p + 3)) : NULL;
		if (!strcmp(run ? run : p, path)) {
			if (!f->it[k].exists)
				return -ENOENT;
			st_of_item(&f->it[k], st);
			return 0;
		}
	}
	const struct fsent *e = fstab_find(f->t, path);
	for (int k = 0; k < f->n; k++) {
		if (f->it[k].is_fd || !f->it[k].has_pino)
			continue;
		parent_of(f->it[k].path, dir, sizeof(dir));
		if (!strcmp(dir, path) && (!e || e->ino != f->it[k].pino)) {
			/* created during the run: identity from the pre-stat */
			*st = (struct sp_audit_stat){ f->it[k].pino, f->root_dev, 0, 040755, 0, 0 };
			return 0;
		}
	}
	if (!e)
		return -ENOENT;
	*st = (struct sp_audit_stat){ e->ino, e->dev, e->rdev, e->mode, e->uid, e->gid };
	return 0;
}

/* Symlinks created by earlier steps of the case (fs.txt predates them), newest last. */
static struct { char path[512], target[512]; } run_links[64];
static size_t n_run_links;

static int sfs_readlink(void *ctx, const char *path, char *buf, size_t cap)
{
	const struct stepfs *f = ctx;
	const struct fsent *e = fstab_find(f->t, path);

	for (size_t i = n_run_links; i-- > 0;)
		if (!strcmp(run_links[i].path, path)) {
			strfmt(buf, cap, "%s", run_links[i].target);
			return (int)strlen(buf);
		}
	if (!e || !e->target)
		return -EINVAL;
	strfmt(buf, cap, "%s", e->target);
	return (int)strlen(buf);
}

/* The path of fd N: the file an earlier step opened on it, else an fd item's file in fs.txt,
 * else the item itself. */
static int sfs_fd_path(void *ctx, int fd, char *buf, size_t cap)
{
	const struct stepfs *f = ctx;
	const char *run = run_fd_path(fd);
	char name[32];

	if (run) {
		strfmt(buf, cap, "%s", run);
		return 0;
	}
	strfmt(name, sizeof(name), "fd:%d", fd);
	for (int k = 0; k < f->n; k++)
		if (f->it[k].is_fd && !strcmp(f->it[k].path, name) && f->it[k].exists) {
			const struct fsent *e = fstab_find_ino(f->t, f->it[k].ino, f->it[k].dev);
			strfmt(buf, cap, "%s", e ? e->path : name);
			return 0;
		}
	return -EBADF;
}

/* The kernel's exe after the step differs from the file executed: a "#!" interpreter. */
static int sfs_interp(void *ctx, const char *path, char *buf, size_t cap)
{
	const struct stepfs *f = ctx;
	size_t l = strcspn(f->exe, "|");
	struct sp_audit_stat st;
	char v[64];

	if (!l || !kv(f->exe, "ino", v, sizeof(v)) || sfs_lstat(ctx, path, &st) ||
	    st.ino == strtoull(v, NULL, 10))
		return -ENOEXEC;
	strfmt(buf, cap, "%.*s", (int)l, f->exe);
	return (int)l;
}

static void note_symlink(char **c, int64_t ret, char **tok, int ntok)
{
	int t = !strcmp(c[C_SYSCALL], "symlink") ? 0 : !strcmp(c[C_SYSCALL], "symlinkat") ? 0 : -1;
	int l = t < 0 ? -1 : !strcmp(c[C_SYSCALL], "symlink") ? 1 : 2;

	if (t < 0 || ret != 0 || l >= ntok || n_run_links == sizeof(run_links) / sizeof(run_links[0]))
		return;
	abspath(c[C_CWD], tok[l], run_links[n_run_links].path, sizeof(run_links[0].path));
	strfmt(run_links[n_run_links].target, sizeof(run_links[0].target), "%s",
	       !strncmp(tok[t], "str:", 4) ? tok[t] + 4 : tok[t]);
	n_run_links++;
}

static const struct sp_audit_fs_ops stepfs_ops = { sfs_lstat, sfs_readlink, sfs_fd_path, sfs_interp };

/* An argument token: a number, or AT_* names joined with '|'. */
static uint64_t arg_value(const char *tok)
{
	static const struct { const char *name; uint64_t v; } at[] = {
		{ "AT_SYMLINK_NOFOLLOW", 0x100 }, { "AT_REMOVEDIR", 0x200 }, { "AT_SYMLINK_FOLLOW", 0x400 },
		{ "AT_EMPTY_PATH", 0x1000 }, { "AT_FDCWD", (uint64_t)-100 },
	};
	uint64_t v = 0;

	for (const char *q = tok; *q;) {
		size_t l = strcspn(q, "|");
		char *e;
		uint64_t x = strtoull(q, &e, 0);
		if (e == q)
			for (size_t j = 0; j < sizeof(at) / sizeof(at[0]); j++)
				if (strlen(at[j].name) == l && !strncmp(q, at[j].name, l))
					x = at[j].v;
		v |= x;
		q += l + (q[l] == '|');
	}
	return v;
}

static uint32_t u32col(const char *s)
{
	return (uint32_t)strtoul(s, NULL, 10);
}

/* Model the names the kernel collects for one step: the library's name collection over the
 * step's file system.  Returns 0, or -errno of the event setters. */
static int add_names(struct sp_audit_event *ev, const struct fstab *t, char **c, int64_t ret,
		     uint64_t how_flags)
{
	static struct sp_audit_names names;
	struct sp_audit_names *nm = &names;
	struct item it[8];
	char argbuf[8192], *tok[8] = { 0 };
	uint32_t groups[64];
	size_t ng = 0;
	int n = 0, ntok = 0;
	const char *p = c[C_PATHS];

	while (strcmp(p, "-") && *p && n < 8) {
		size_t l = strcspn(p, ";");
		parse_item(p, l, c[C_CWD], &it[n++]);
		p += l + (p[l] == ';');
	}
	strfmt(argbuf, sizeof(argbuf), "%s", c[C_ARGS]);
	for (char *s = strtok(argbuf, " "); s && ntok < 8; s = strtok(NULL, " "))
		tok[ntok++] = s;
	if (strcmp(c[C_GROUPS], "-"))
		for (char *s = c[C_GROUPS], *e; *s && ng < 64; s = *e ? e + 1 : e)
			groups[ng++] = (uint32_t)strtoul(s, &e, 10);

	struct sp_audit_call call = {
		.arch = strcmp(c[C_ARCH], "b32") ? SP_AUDIT_ARCH_X86_64 : SP_AUDIT_ARCH_I386,
		.nr = (int32_t)atoi(c[C_NR]), .how_flags = how_flags, .cwd = c[C_CWD],
		.fsuid = u32col(c[C_FSUID]), .fsgid = u32col(c[C_FSGID]), .umask = 022,
		.groups = groups, .ngroups = ng,
	};
	for (int i = 0; i < 4; i++)
		call.args[i] = strtoull(c[C_A0 + i], NULL, 16);
	for (int i = 4; i < 6 && i < ntok; i++)
		call.args[i] = arg_value(tok[i]);
	for (int i = 0; i < 6 && i < ntok; i++) {
		if (tok[i][0] == '/')
			call.str[i] = tok[i];
		else if (!strncmp(tok[i], "str:", 4))
			call.str[i] = tok[i] + 4;
		else if (!strncmp(tok[i], "sa:unix:", 8))
			call.str[i] = tok[i] + 8;
	}
	const struct fsent *root = fstab_find(t, "/");
	struct stepfs f = { t, it, n, c[C_EXE], root ? root->dev : 0 };
	sp_audit_names_enter(nm, &call, &stepfs_ops, &f);
	sp_audit_names_exit(nm, ret, &stepfs_ops, &f);
	note_symlink(c, ret, tok, ntok);
	note_fds(c, ret, tok, ntok);
	for (size_t i = 0; i < nm->n; i++)
		if (nm->v[i].has_inode && nm->v[i].type != SP_AUDIT_NAME_CREATE &&
		    n_model_ino < SP_AUDIT_MAX_NAMES)
			model_ino[n_model_ino++] = nm->v[i].st.ino;
	return sp_audit_names_add_to_event(nm, ev, &stepfs_ops, &f);
}

static int saddr_family(const char *sc, const char *args)
{
	static const char *const sock_calls[] = { "connect", "bind", "sendto", "sendmsg", NULL };

	if (!is_one_of(sc, sock_calls))
		return -1;
	if (strstr(args, "sa:inet6:"))
		return 10;
	if (strstr(args, "sa:inet:"))
		return 2;
	if (strstr(args, "sa:unix:"))
		return 1;
	return -1;
}

/*
 * The task column "pid,uid,euid,suid,fsuid,gid,egid,sgid,fsgid,groups,auid,ses" (groups "-" or
 * comma-separated, so they are the fields between the 9 first and the 2 last) as the event's
 * task-list view.  Returns 1, or 0 when the column is missing or malformed.
 */
static int set_task_creds(struct sp_audit_event *ev, const char *col)
{
	uint32_t v[64 + 11], groups[64], uid[4], gid[4];
	size_t n = 0, ng = 0;
	const char *s = col;

	if (!*col || !strcmp(col, "-"))
		return 0;
	for (;;) {
		char *e;
		if (n == sizeof(v) / sizeof(v[0]))
			return 0;
		if (*s == '-' && (s[1] == ',' || !s[1])) {
			v[n++] = UINT32_MAX;	/* "-": no groups (only valid at index 9) */
			e = (char *)s + 1;
		} else {
			unsigned long x = strtoul(s, &e, 10);
			if (e == s)
				return 0;
			v[n++] = (uint32_t)x;
		}
		if (!*e)
			break;
		if (*e != ',')
			return 0;
		s = e + 1;
	}
	if (n < 12)
		return 0;
	memcpy(uid, &v[1], sizeof(uid));
	memcpy(gid, &v[5], sizeof(gid));
	if (!(n == 12 && v[9] == UINT32_MAX))
		for (size_t i = 9; i < n - 2; i++)
			groups[ng++] = v[i];
	assert_int_equal(sp_audit_event_set_task_creds(ev, v[0], uid, gid, groups, ng, v[n - 2], v[n - 1]), 0);
	return 1;
}

/* Build the event of one step. Returns NULL, or a skip reason when the model cannot express it. */
static const char *build_event(struct sp_audit_event *ev, const struct fstab *t, char **c, int has_task)
{
	uint32_t groups[64];
	size_t ng = 0;
	int64_t ret = strtoll(c[C_EXIT], NULL, 10);

	sp_audit_event_reset(ev);
	n_model_ino = 0;
	sp_audit_event_set_kind(ev, SP_AUDIT_EV_SYSCALL);
	sp_audit_event_set_syscall(ev, strcmp(c[C_ARCH], "b32") ? SP_AUDIT_ARCH_X86_64 : SP_AUDIT_ARCH_I386,
				   (int32_t)atoi(c[C_NR]));
	sp_audit_event_set_args(ev, strtoull(c[C_A0], NULL, 16), strtoull(c[C_A1], NULL, 16),
				strtoull(c[C_A2], NULL, 16), strtoull(c[C_A3], NULL, 16));
	sp_audit_event_set_return(ev, ret);
	sp_audit_event_set_pids(ev, u32col(c[C_PID]), u32col(c[C_PID]), u32col(c[C_PPID]));
	sp_audit_event_set_uids(ev, u32col(c[C_UID]), u32col(c[C_EUID]), u32col(c[C_SUID]), u32col(c[C_FSUID]));
	sp_audit_event_set_gids(ev, u32col(c[C_GID]), u32col(c[C_EGID]), u32col(c[C_SGID]), u32col(c[C_FSGID]));
	if (strcmp(c[C_GROUPS], "-"))
		for (char *s = c[C_GROUPS], *e; *s && ng < 64; s = *e ? e + 1 : e)
			groups[ng++] = (uint32_t)strtoul(s, &e, 10);
	assert_int_equal(sp_audit_event_set_groups(ev, groups, ng), 0);
	sp_audit_event_set_loginuid(ev, u32col(c[C_AUID]));
	sp_audit_event_set_sessionid(ev, u32col(c[C_SES]));
	sp_audit_event_set_personality(ev, (uint32_t)strtoul(c[C_PERS], NULL, 16));
	{
		char v[64];
		if (kv(c[C_EXE], "ino", v, sizeof(v))) {
			uint64_t ino = strtoull(v, NULL, 10);
			sp_audit_event_set_exe(ev, ino, kv(c[C_EXE], "dev", v, sizeof(v)) ? parse_dev(v) : 0);
		}
	}
	sp_audit_event_set_saddr_fam(ev, saddr_family(c[C_SYSCALL], c[C_ARGS]));
	uint64_t how_flags = 0;
	{
		/* openat2: the perm class comes from how.flags ("how:O_WRONLY|O_CREAT") */
		static const struct { const char *name; uint64_t v; } of[] = {
			{ "O_RDONLY", 0 }, { "O_WRONLY", 01 }, { "O_RDWR", 02 }, { "O_CREAT", 0100 },
			{ "O_TRUNC", 01000 }, { "O_APPEND", 02000 }, { "O_CLOEXEC", 02000000 },
		};
		const char *how = strstr(c[C_ARGS], "how:");
		if (how) {
			uint64_t fl = 0;
			for (const char *q = how + 4; *q && *q != ' ';) {
				size_t l = strcspn(q, "| ");
				for (size_t j = 0; j < sizeof(of) / sizeof(of[0]); j++)
					if (strlen(of[j].name) == l && !strncmp(q, of[j].name, l))
						fl |= of[j].v;
				q += l + (q[l] == '|');
			}
			sp_audit_event_set_openat2_flags(ev, fl);
			how_flags = fl;
		}
	}
	assert_int_equal(add_names(ev, t, c, ret, how_flags), 0);

	if (has_task) {
		/* the task list ran at fork on the forking task's pid and credentials */
		if (!set_task_creds(ev, c[C_TASK]))
			return "task list: no credentials of the forking task recorded";
	}
	return NULL;
}

/*
 * The name model against what the kernel collected (kpaths of a recorded step: "name"|ino=N|TYPE;
 * ...): the same set of inode numbers, leaving out CREATE items (their inode did not exist before
 * the call) and items without inode. Returns 1 when they agree.
 */
static int names_agree(const char *kpaths)
{
	uint64_t k[64];
	size_t nk = 0;

	if (!strcmp(kpaths, "-"))
		return n_model_ino == 0;
	for (const char *p = kpaths; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
		const char *end = strchr(p, ';'), *ino = strstr(p, "|ino="), *type;
		if (!ino || (end && ino > end))
			continue;
		type = strchr(ino + 1, '|');
		if (ino[5] == '?' || (type && !strncmp(type, "|CREATE", 7)) || nk == 64)
			continue;
		k[nk++] = strtoull(ino + 5, NULL, 10);
	}
	for (size_t i = 0; i < nk; i++) {
		size_t j;
		for (j = 0; j < n_model_ino && model_ino[j] != k[i]; j++)
			;
		if (j == n_model_ino)
			return 0;
	}
	for (size_t j = 0; j < n_model_ino; j++) {
		size_t i;
		for (i = 0; i < nk && k[i] != model_ino[j]; i++)
			;
		if (i == nk)
			return 0;
	}
	return 1;
}

/* ---- known disagreements ---- */

struct known {
	char kind;	/* 's' step, 'l' load line */
	long num;
	int hit;
	char reason[160];
};

static size_t load_known(const char *file, struct known *k, size_t max)
{
	char *text = tsupport_slurp(file, NULL);
	size_t n = 0;

	if (!text)
		return 0;
	for (char *line = strtok(text, "\n"); line && n < max; line = strtok(NULL, "\n")) {
		char what[16];
		long num;
		int off = 0;
		if (line[0] == '#' || sscanf(line, "%15s %ld %n", what, &num, &off) < 2)
			continue;
		k[n].kind = what[0] == 'l' ? 'l' : what[0] == 'n' ? 'n' : 's';
		k[n].num = num;
		k[n].hit = 0;
		strfmt(k[n].reason, sizeof(k[n].reason), "%s", line + off);
		n++;
	}
	free(text);
	return n;
}

static struct known *find_known(struct known *k, size_t n, char kind, long num)
{
	for (size_t i = 0; i < n; i++)
		if (k[i].kind == kind && k[i].num == num)
			return &k[i];
	return NULL;
}

/* ---- one case ---- */

struct kcase {
	char name[128];
};

static struct kcase cases[MAXCASES];
static size_t ncases;
static struct {
	size_t steps, agree_ref, agree_cmp, skipped, known;
} total;

static void case_file(char *out, size_t len, const struct kcase *kc, const char *file, int verdict)
{
	const char *res = getenv("SP_KERNEL_RESULTS");

	struct stat st;

	if (verdict && res && *res) {
		strfmt(out, len, "%s/%s/result.tsv", res, kc->name);
		if (!stat(out, &st)) { /* a fresh run of this case exists: take all its files */
			strfmt(out, len, "%s/%s/%s", res, kc->name, file);
			return;
		}
	}
	strfmt(out, len, CASES_DIR "/%s/%s", kc->name, file);
}

static void decision_text(const struct sp_audit_decision *d, char *buf, size_t len)
{
	char key[SP_AUDIT_MAX_KEY_LEN + 1];
	char full[512];

	strfmt(key, sizeof(key), "%s", d->has_key ? d->key : "-");
	for (char *p = key; *p; p++)
		if (*p == 1)
			*p = ',';
	sp_audit_decision_format(d, full, sizeof(full));
	strfmt(buf, len, "recorded=%d key=%s (%s)", d->record && !d->excluded, key, full);
}

static int verdict_matches(const struct sp_audit_decision *d, int recorded, const char *key)
{
	char k[SP_AUDIT_MAX_KEY_LEN + 1];

	if ((d->record && !d->excluded) != recorded)
		return 0;
	if (!recorded)
		return 1;
	strfmt(k, sizeof(k), "%s", d->has_key ? d->key : "-");
	for (char *p = k; *p; p++)
		if (*p == 1)
			*p = ',';
	return !strcmp(k, key);
}

/* Apply the parsed items to a reference engine; collect the lines that failed to load. */
static struct sp_audit_ref *load_rules(const struct kcase *kc, const struct sp_audit_fsview *fs,
				       const char *rules_file, unsigned char *bad, size_t nbad,
				       int *has_task)
{
	struct sp_audit_parse_opts po = { .sz = sizeof(po) };
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = fs };
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_ref *ref = NULL;
	struct sp_diags d;
	char dirs[512];
	size_t len;
	char *text = tsupport_slurp(rules_file, &len);

	assert_non_null(text);
	case_file(dirs, sizeof(dirs), kc, "dirs.txt", 1);
	po.machine = "x86_64";
	po.passwd_file = CASES_DIR "/env/passwd";
	po.group_file = CASES_DIR "/env/group";
	po.dirs_file = dirs;
	po.max_errors = 1000;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_ruleset_parse(text, len, rules_file, &po, &rs, &d), 0);
	for (size_t i = 0; i < d.n; i++)
		if (d.v[i].severity == SP_SEV_ERROR && d.v[i].line < nbad)
			bad[d.v[i].line] = 1;
	assert_int_equal(sp_audit_ref_new(&eo, &ref), 0);
	*has_task = 0;
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		int rc = 0;
		assert_int_equal(sp_audit_ruleset_item(rs, i, &it), 0);
		if (it.kind == SP_AUDIT_ITEM_CTRL) {
			if (it.ctrl && !strcmp(it.ctrl, "-D")) {
				sp_audit_ref_free(ref);
				assert_int_equal(sp_audit_ref_new(&eo, &ref), 0);
			}
			continue;
		}
		if (it.kind == SP_AUDIT_ITEM_ADD) {
			rc = sp_audit_ref_add(ref, it.blob, it.blob_len, (uint32_t)i);
			if (!rc && it.blob_len >= 4 && (((const uint32_t *)it.blob)[0] & 7) == 1)
				*has_task = 1;
		} else {
			rc = sp_audit_ref_del(ref, it.blob, it.blob_len);
		}
		if (rc && it.line < nbad)
			bad[it.line] = 2;
	}
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	free(text);
	return ref;
}

/* One case's run: its file-system table, engines and event, its known differences, its counts. */
struct krun {
	const struct kcase *kc;
	struct fstab tab;
	struct sp_audit_ref *ref;
	struct sp_audit_matcher *m;
	struct sp_audit_event *ev;
	struct known *known;
	size_t nknown;
	int has_task, failures;
	size_t steps, agree_ref, agree_cmp, skipped, kn;
};

/* 1. the rule lines that did not load (bad[line]: 1 parser, 2 engine), against auditctl's
 * report in f_load */
static void check_loads(struct krun *r, const char *f_load, const unsigned char *bad,
			unsigned char *kbad, size_t nbad)
{
	char *lt = tsupport_slurp(f_load, NULL);
	assert_non_null(lt);
	for (char *p = lt; (p = strstr(p, "error in line ")); p++) {
		long ln = strtol(p + 14, NULL, 10);
		if (ln > 0 && (size_t)ln < nbad)
			kbad[ln] = 1;
	}
	free(lt);
	for (size_t ln = 1; ln < nbad; ln++) {
		if (!bad[ln] == !kbad[ln])
			continue;
		struct known *k = find_known(r->known, r->nknown, 'l', (long)ln);
		if (k) {
			k->hit = 1;
			continue;
		}
		print_message("kernel/%s: rule line %zu: auditctl+kernel %s, secpath %s\n",
			      r->kc->name, ln, kbad[ln] ? "refused it" : "loaded it",
			      bad[ln] == 1 ? "parser refused it" : bad[ln] == 2 ? "engine refused it" :
			      "loaded it");
		r->failures++;
	}
}

/* 2. one step (the result.tsv columns c): the modelled names, then both engines' verdicts */
static void check_step(struct krun *r, char **c)
{
	struct sp_audit_decision dr, dc;
	long seq = atol(c[C_SEQ]);
	int recorded = atoi(c[C_RECORDED]);
	const char *why = build_event(r->ev, &r->tab, c, r->has_task);
	r->steps++;
	if (why) {
		r->skipped++;
		return;
	}
	if (recorded && !names_agree(c[C_KPATHS])) {
		char got[512] = "";
		for (size_t j = 0; j < n_model_ino; j++)
			strfmt(got + strlen(got), sizeof(got) - strlen(got), " %llu",
			       (unsigned long long)model_ino[j]);
		struct known *k = find_known(r->known, r->nknown, 'n', seq);
		if (k) {
			k->hit = 1;
		} else {
			print_message("kernel/%s step %ld: %s(%s): name model inodes {%s } but the "
				      "kernel collected %s\n", r->kc->name, seq, c[C_SYSCALL],
				      c[C_ARGS], got, c[C_KPATHS]);
			r->failures++;
		}
	}
	/* the call's fsnotify events re-bind watches and exe= marks before its exit filter */
	if (sp_audit_event_rebind(r->ev, r->ref) > 0) {
		sp_audit_matcher_free(r->m);
		r->m = NULL;
		assert_int_equal(sp_audit_matcher_compile(r->ref, &r->m), 0);
	}
	memset(&dr, 0, sizeof(dr));
	memset(&dc, 0, sizeof(dc));
	sp_audit_ref_filter(r->ref, r->ev, &dr);
	sp_audit_matcher_filter(r->m, r->ev, &dc);
	int okr = verdict_matches(&dr, recorded, c[C_KEY]);
	int okc = verdict_matches(&dc, recorded, c[C_KEY]);
	int same = sp_audit_decision_equal(&dr, &dc);
	r->agree_ref += okr;
	r->agree_cmp += okc;
	if (okr && okc && same)
		return;
	char tr[700], tc[700];
	decision_text(&dr, tr, sizeof(tr));
	decision_text(&dc, tc, sizeof(tc));
	struct known *k = find_known(r->known, r->nknown, 's', seq);
	if (k && same) {
		k->hit = 1;
		r->kn++;
		return;
	}
	print_message("kernel/%s step %ld: %s %s(%s) exit=%s uid=%s auid=%s paths=%s\n"
		      "    kernel:   recorded=%d key=%s\n    ref:      %s\n    compiled: %s\n",
		      r->kc->name, seq, c[C_ARCH], c[C_SYSCALL], c[C_ARGS], c[C_EXIT], c[C_UID],
		      c[C_AUID], c[C_PATHS], recorded, recorded ? c[C_KEY] : "-", tr, tc);
	r->failures++;
}

/* 2. every step of f_res */
static void check_steps(struct krun *r, const char *f_res)
{
	size_t rlen;
	char *res = tsupport_slurp(f_res, &rlen);
	assert_non_null(res);
	for (char *line = res, *next; line && *line; line = next) {
		char *c[MAXCOL];
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (line[0] < '0' || line[0] > '9')
			continue;
		int nc = split_tabs(line, c, MAXCOL);
		assert_true(nc >= C_NCOLS);
		check_step(r, c);
	}
	free(res);
}

static void emit_listing(void *ud, const char *line)
{
	FILE *f = ud;
	fprintf(f, "%s\n", line);
}

/* auditctl -l after auditctl -R: sp_audit_listing over the guest's filesystem prints the
 * auditctl-l.txt the harness recorded, byte for byte. */
static void check_listing(const struct kcase *kc, const struct sp_audit_fsview *fs,
			  const char *rules_file)
{
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64",
					  .passwd_file = CASES_DIR "/env/passwd",
					  .group_file = CASES_DIR "/env/group", .max_errors = 1000 };
	struct sp_audit_listing_opts lo = { .sz = sizeof(lo), .machine = "x86_64", .fs = fs };
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	char dirs[512], want_file[512];
	size_t len, wlen, glen = 0;
	char *text = tsupport_slurp(rules_file, &len), *got = NULL;
	case_file(dirs, sizeof(dirs), kc, "dirs.txt", 1);
	case_file(want_file, sizeof(want_file), kc, "auditctl-l.txt", 1);
	char *want = tsupport_slurp(want_file, &wlen);
	assert_non_null(text);
	assert_non_null(want);
	po.dirs_file = dirs;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_ruleset_parse(text, len, rules_file, &po, &rs, &d), 0);
	FILE *f = open_memstream(&got, &glen);
	assert_non_null(f);
	assert_int_equal(sp_audit_listing(rs, &lo, emit_listing, f), 0);
	fclose(f);
	if (glen != wlen || memcmp(got, want, wlen)) {
		/* the first line that differs */
		size_t a = 0, line = 1;
		while (a < glen && a < wlen && got[a] == want[a])
			line += got[a++] == '\n';
		while (a > 0 && got[a - 1] != '\n')
			a--;
		fail_msg("kernel/%s: auditctl -l differs at line %zu:\n  recorded: %.*s\n  "
			 "listed:   %.*s", kc->name, line, (int)strcspn(want + a, "\n"), want + a,
			 (int)strcspn(got + a, "\n"), got + a);
	}
	free(got);
	free(want);
	free(text);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
}

static void run_case(void **state)
{
	const struct kcase *kc = *state;
	char f_rules[512], f_fs[512], f_res[512], f_load[512], f_known[512];
	struct sp_audit_fsview *fs = NULL;
	static struct known known[512];
	static unsigned char bad[8192], kbad[8192];
	struct krun r = { .kc = kc, .known = known };
	struct stat st;

	case_file(f_rules, sizeof(f_rules), kc, "rules.loaded", 1);
	if (stat(f_rules, &st))
		case_file(f_rules, sizeof(f_rules), kc, "rules", 0);
	case_file(f_fs, sizeof(f_fs), kc, "fs.txt", 1);
	case_file(f_res, sizeof(f_res), kc, "result.tsv", 1);
	case_file(f_load, sizeof(f_load), kc, "auditctl-load.txt", 1);
	case_file(f_known, sizeof(f_known), kc, "known-diffs", 0);
	r.nknown = load_known(f_known, known, 512);

	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	assert_int_equal(fstab_load(&r.tab, f_fs, fs), 0);
	n_run_links = 0;
	n_run_fds = 0;
	run_block = -1;
	memset(bad, 0, sizeof(bad));
	memset(kbad, 0, sizeof(kbad));
	r.ref = load_rules(kc, fs, f_rules, bad, sizeof(bad), &r.has_task);
	assert_int_equal(sp_audit_matcher_compile(r.ref, &r.m), 0);
	assert_int_equal(sp_audit_event_new(&r.ev), 0);

	check_loads(&r, f_load, bad, kbad, sizeof(bad));
	check_steps(&r, f_res);
	check_listing(kc, fs, f_rules);
	for (size_t i = 0; i < r.nknown; i++)
		if (!known[i].hit)
			print_message("kernel/%s: known-diffs entry '%s %ld' agrees now: remove it\n",
				      kc->name, known[i].kind == 'l' ? "load" : known[i].kind == 'n' ? "names" :
				      "step", known[i].num);
	print_message("kernel/%-12s %4zu steps: reference agrees %4zu, compiled agrees %4zu, "
		      "skipped %zu, known %zu\n", kc->name, r.steps, r.agree_ref, r.agree_cmp, r.skipped,
		      r.kn);
	total.steps += r.steps;
	total.agree_ref += r.agree_ref;
	total.agree_cmp += r.agree_cmp;
	total.skipped += r.skipped;
	total.known += r.kn;
	sp_audit_event_free(r.ev);
	sp_audit_matcher_free(r.m);
	sp_audit_ref_free(r.ref);
	sp_audit_fsview_free(fs);
	free(r.tab.v);
	free(r.tab.text);
	assert_int_equal(r.failures, 0);
}

static int kcase_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kcase *)a)->name, ((const struct kcase *)b)->name);
}

/* The case data must be complete: scenario, rules, fs.txt, dirs.txt and a result per case. */
static void test_audit_kernel__cases_complete(void **st)
{
	(void)st;
	assert_true(ncases >= 20);
	for (size_t i = 0; i < ncases; i++) {
		static const char *const need[] = { "scenario", "rules", "result.tsv", "fs.txt",
						     "dirs.txt", "auditctl-load.txt", NULL };
		for (const char *const *f = need; *f; f++) {
			char p[512];
			struct stat s;
			strfmt(p, sizeof(p), CASES_DIR "/%s/%s", cases[i].name, *f);
			if (stat(p, &s))
				fail_msg("missing %s", p);
		}
	}
}

int main(void)
{
	DIR *d = opendir(CASES_DIR);
	struct dirent *de;
	struct CMUnitTest *tests;
	int rc;

	if (!d) {
		fprintf(stderr, "test_audit_kernel: no %s (run from the project root)\n", CASES_DIR);
		return 1;
	}
	while ((de = readdir(d)) && ncases < MAXCASES) {
		char p[512];
		struct stat s;
		strfmt(p, sizeof(p), CASES_DIR "/%s/scenario", de->d_name);
		if (de->d_name[0] != '.' && !stat(p, &s))
			strfmt(cases[ncases++].name, sizeof(cases[0].name), "%s", de->d_name);
	}
	closedir(d);
	qsort(cases, ncases, sizeof(cases[0]), kcase_cmp);
	tests = calloc(ncases + 1, sizeof(*tests));
	assert_non_null(tests);
	tests[0] = (struct CMUnitTest)cmocka_unit_test(test_audit_kernel__cases_complete);
	for (size_t i = 0; i < ncases; i++) {
		tests[i + 1].name = cases[i].name;
		tests[i + 1].test_func = run_case;
		tests[i + 1].initial_state = &cases[i];
	}
	rc = _cmocka_run_group_tests("audit_kernel", tests, ncases + 1, NULL, NULL);
	printf("kernel verdicts: %zu steps, reference agrees %zu, compiled agrees %zu, skipped %zu, "
	       "known %zu\n", total.steps, total.agree_ref, total.agree_cmp, total.skipped, total.known);
	free(tests);
	return rc;
}
