/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_audit_names.c - libFuzzer target for the kernel's name collection (audit_names.h): the
 * path strings, the arguments and what the file system answers about fds come from a traced
 * task, so they are untrusted.  The input picks a syscall, its arguments, up to three strings
 * (NUL-separated) and the path fd callbacks answer with; the file system is a fixed tree with
 * symlink loops, a link to itself through "..", an absolute link, a dangling link, a link with
 * a near-PATH_MAX target, a directory without search permission and a script that is its own
 * interpreter.  Checked: at most SP_AUDIT_NAMES_MAX names, every string terminated inside its
 * buffer, and entry, exit, event building and mark re-binding never fail on valid state.
 * Corpus: a few syscalls over the tree's paths.
 */
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct node {
	const char *path;
	uint32_t mode, uid;
	const char *target;
};

static char long_target[4100];

static const struct node tree[] = {
	{ "/", 040755, 0, NULL },		{ "/a", 040777, 0, NULL },
	{ "/a/b", 040700, 5, NULL },		{ "/a/b/f", 0100644, 5, NULL },
	{ "/a/f", 0100644, 0, NULL },		{ "/a/l1", 0120777, 0, "l2" },
	{ "/a/l2", 0120777, 0, "l1" },		{ "/a/up", 0120777, 0, "../a/up" },
	{ "/a/abs", 0120777, 0, "/a" },		{ "/a/dang", 0120777, 0, "/nowhere/x" },
	{ "/a/long", 0120777, 0, long_target },	{ "/a/script", 0100755, 0, NULL },
	{ "/a/sock", 0140755, 0, NULL },
};

static const char *fd_answer;	/* what fd_path says, from the input */

static const struct node *find(const char *path)
{
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		if (!strcmp(tree[i].path, path))
			return &tree[i];
	return NULL;
}

static int f_lstat(void *ctx, const char *path, struct sp_audit_stat *st)
{
	const struct node *n = find(path);
	(void)ctx;
	if (strlen(path) >= SP_AUDIT_NAME_LEN)
		__builtin_trap();	/* the model handed out an unterminated path */
	if (!n)
		return -ENOENT;
	*st = (struct sp_audit_stat){ (uint64_t)(n - tree) + 2, 0x800001, 0, n->mode, n->uid, n->uid };
	return 0;
}

static int f_readlink(void *ctx, const char *path, char *buf, size_t cap)
{
	const struct node *n = find(path);
	(void)ctx;
	if (!n || !n->target)
		return -EINVAL;
	size_t l = strlen(n->target);
	if (l > cap)
		l = cap;
	memcpy(buf, n->target, l);
	return (int)l;
}

static int f_fd_path(void *ctx, int fd, char *buf, size_t cap)
{
	(void)ctx;
	if (!fd_answer || fd < 0)
		return -EBADF;
	snprintf(buf, cap, "%s", fd_answer);
	return 0;
}

static int f_interp(void *ctx, const char *path, char *buf, size_t cap)
{
	(void)ctx;
	if (strcmp(path, "/a/script"))
		return -ENOEXEC;
	snprintf(buf, cap, "/a/script");	/* its own interpreter: the depth bound ends it */
	return (int)strlen(buf);
}

static const struct sp_audit_fs_ops ops = { f_lstat, f_readlink, f_fd_path, f_interp };

static const char *const calls[] = {
	"open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx", "execve",
	"execveat", "mkdir", "mkdirat", "mknod", "mknodat", "symlink", "symlinkat", "link", "linkat",
	"unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2", "fchmod", "fchown",
	"fsetxattr", "bind", "connect", "sendto", "quotactl", "chdir", "utimensat", "getpid",
};

static struct sp_audit_names nm;

static void check_names(void)
{
	if (nm.n > SP_AUDIT_NAMES_MAX)
		__builtin_trap();
	for (size_t i = 0; i < nm.n; i++)
		if (!memchr(nm.v[i].name, 0, sizeof(nm.v[i].name)) ||
		    !memchr(nm.v[i].path, 0, sizeof(nm.v[i].path)))
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_audit_ref *ref;
	static struct sp_audit_event *ev;
	char str[3][4200];
	struct sp_audit_call c = { .cwd = "/a", .umask = 022 };

	if (!long_target[0]) {
		memset(long_target, 'x', sizeof(long_target) - 1);
		memcpy(long_target, "/a/", 3);
	}
	if (!ref) {
		static const char rules[] = "-w /a/f -p wa -k w\n"
					    "-a always,exit -F arch=b64 -S execve -F exe=/a/script -k e\n";
		struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
		struct sp_audit_ruleset *rs = NULL;
		struct sp_audit_engine_opts eo = { .sz = sizeof(eo) };
		if (sp_audit_ruleset_parse(rules, sizeof(rules) - 1, "r", &po, &rs, NULL) ||
		    sp_audit_ref_new(&eo, &ref) || sp_audit_event_new(&ev))
			__builtin_trap();
		for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
			struct sp_audit_item it;
			sp_audit_ruleset_item(rs, i, &it);
			sp_audit_ref_add(ref, it.blob, it.blob_len, it.line);
		}
		sp_audit_ruleset_free(rs);
	}
	if (size < 16)
		return 0;
	c.arch = data[0] & 1 ? SP_AUDIT_ARCH_I386 : SP_AUDIT_ARCH_X86_64;
	const char *sc = calls[data[1] % (sizeof(calls) / sizeof(calls[0]))];
	int nr = sp_audit_syscall_lookup(c.arch == SP_AUDIT_ARCH_I386 ? "i386" : "x86_64", sc);
	if (nr < 0)
		return 0;
	c.nr = nr;
	c.fsuid = data[2] & 1 ? 1000 : 0;
	c.fsgid = c.fsuid;
	for (int i = 0; i < 6; i++)
		c.args[i] = (uint64_t)(int8_t)data[3 + i] * (data[9] & 1 ? 0x101 : 1);
	c.how_flags = data[10] | (uint64_t)data[11] << 8 | (uint64_t)data[12] << 16;
	int64_t ret = data[13] & 1 ? -(int64_t)(data[13] >> 1) : data[13] >> 1;
	/* three strings from the rest: the path arguments and fd_path's answer */
	const uint8_t *p = data + 16, *end = data + size;
	for (int k = 0; k < 3; k++) {
		size_t l = 0;
		while (p < end && *p && l < sizeof(str[k]) - 1)
			str[k][l++] = (char)*p++;
		str[k][l] = 0;
		if (p < end)
			p++;
	}
	unsigned need = sp_audit_names_args(c.arch, c.nr, NULL);
	for (int i = 0, k = 0; i < 6; i++)
		if (need & SP_AUDIT_ARG_PATH(i))
			c.str[i] = str[k++ % 2];
	if (need & SP_AUDIT_ARG_SOCKADDR)
		for (int i = 0; i < 6; i++)
			c.str[i] = str[0];
	fd_answer = data[14] & 1 ? str[2] : NULL;
	if (sp_audit_names_enter(&nm, &c, &ops, NULL))
		__builtin_trap();
	check_names();
	sp_audit_names_exit(&nm, ret, &ops, NULL);
	check_names();
	sp_audit_event_reset(ev);
	sp_audit_event_set_syscall(ev, c.arch, c.nr);
	sp_audit_event_set_return(ev, ret);
	int err = sp_audit_names_add_to_event(&nm, ev, &ops, NULL);
	if (err && err != -ENOMEM && err != -ENOSPC)
		__builtin_trap();
	if (sp_audit_event_rebind(ev, ref) < 0)
		__builtin_trap();
	struct sp_audit_decision d;
	sp_audit_ref_filter(ref, ev, &d);
	return 0;
}
