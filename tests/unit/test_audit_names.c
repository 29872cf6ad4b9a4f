/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_names.c - the kernel's name collection (audit_names.h) over a small in-memory file
 * system: the kernel's order and types for create, symlink, link and rename, a PARENT printed as
 * the cwd for a bare name, created objects' identities at exit, walks stopped by EACCES, ELOOP
 * and dangling links, "..", symlinked directories, AT_EMPTY_PATH and fd-based calls, execve's
 * link and its chain of interpreters ("#!", then the interpreter's PT_INTERP).  The kernel's own verdicts on the same cases are in
 * tests/cases/kernel/names (test_audit_kernel).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "secpath/audit.h"

/* path, ino, mode, uid, symlink target */
struct node {
	const char *path;
	uint64_t ino;
	uint32_t mode, uid;
	const char *target;
};

static const struct node tree[] = {
	{ "/", 1, 040755, 0, NULL },
	{ "/w", 2, 040777, 0, NULL },
	{ "/w/f", 3, 0100644, 0, NULL },
	{ "/w/lnk", 4, 0120777, 0, "f" },
	{ "/w/dangling", 5, 0120777, 0, "/nowhere" },
	{ "/w/loop", 6, 0120777, 0, "loop" },
	{ "/locked", 7, 040700, 0, NULL },
	{ "/locked/f", 8, 0100644, 0, NULL },
	{ "/w/dl", 9, 0120777, 0, "/w/sub" },
	{ "/w/sub", 10, 040755, 0, NULL },
	{ "/w/sub/g", 11, 0100755, 0, NULL },
	{ "/w/script", 12, 0100755, 0, NULL },
	{ "/w/old", 13, 0100644, 0, NULL },
	{ "/w/taken", 14, 0100644, 0, NULL },
};

/* An object the call creates: `post` names it, lstat sees it from the exit step on. */
static const char *created, *post;

static int t_lstat(void *ctx, const char *path, struct sp_audit_stat *st)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		if (!strcmp(tree[i].path, path)) {
			*st = (struct sp_audit_stat){ tree[i].ino, 0x800001, 0, tree[i].mode, tree[i].uid, 0 };
			return 0;
		}
	if (created && !strcmp(created, path)) {
		*st = (struct sp_audit_stat){ 99, 0x800001, 0, 040700, 5, 5 };
		return 0;
	}
	return -ENOENT;
}

static int t_readlink(void *ctx, const char *path, char *buf, size_t cap)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		if (!strcmp(tree[i].path, path) && tree[i].target) {
			snprintf(buf, cap, "%s", tree[i].target);
			return (int)strlen(buf);
		}
	return -EINVAL;
}

static int t_fd_path(void *ctx, int fd, char *buf, size_t cap)
{
	(void)ctx;
	if (fd != 7)
		return -EBADF;
	snprintf(buf, cap, "/w/f");
	return 0;
}

static int t_interp(void *ctx, const char *path, char *buf, size_t cap)
{
	(void)ctx;
	/* a "#!" script run by /w/sub/g, an ELF file whose PT_INTERP is /w/f */
	if (!strcmp(path, "/w/script"))
		snprintf(buf, cap, "/w/sub/g");
	else if (!strcmp(path, "/w/sub/g"))
		snprintf(buf, cap, "/w/f");
	else
		return -ENOEXEC;
	return (int)strlen(buf);
}

static const struct sp_audit_fs_ops ops = { t_lstat, t_readlink, t_fd_path, t_interp };
static struct sp_audit_names nm;

static void collect(uint32_t fsuid, const char *sc, uint64_t a[6], const char *s0, const char *s1,
		    const char *s2, int64_t ret)
{
	struct sp_audit_call c = { .arch = SP_AUDIT_ARCH_X86_64, .cwd = "/w", .fsuid = fsuid,
				   .fsgid = fsuid, .umask = 022 };
	int nr = sp_audit_syscall_lookup("x86_64", sc);

	assert_true(nr >= 0);
	c.nr = nr;
	memcpy(c.args, a, sizeof(c.args));
	c.str[0] = s0;
	c.str[1] = s1;
	c.str[2] = s2;
	created = NULL;
	assert_int_equal(sp_audit_names_enter(&nm, &c, &ops, NULL), 0);
	created = post;
	sp_audit_names_exit(&nm, ret, &ops, NULL);
	created = NULL;
}

/* nm against "TYPE:name:ino ..." (ino - for none) */
static void expect(const char *want)
{
	char got[1024] = "";
	size_t o = 0;

	for (size_t i = 0; i < nm.n; i++) {
		const struct sp_audit_name *n = &nm.v[i];
		char ino[32] = "-";
		if (n->has_inode)
			snprintf(ino, sizeof(ino), "%llu", (unsigned long long)n->st.ino);
		o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s:%s:%s", i ? " " : "",
				      sp_audit_nametype_name(n->type), n->has_name ? n->name : "(null)", ino);
	}
	if (strcmp(got, want))
		fail_msg("names\n  got:  %s\n  want: %s", got, want);
}

static void test_audit_names__create_family(void **st)
{
	(void)st;
	uint64_t a[6] = { 0, 0755 };
	collect(0, "mkdir", a, "x", NULL, NULL, 0);	/* bare name: PARENT prints the cwd */
	expect("PARENT:/w:2 CREATE:x:18446744073709551614");
	assert_int_equal(nm.v[1].st.mode, 040755);
	post = "/w/new";
	collect(0, "mkdir", a, "/w/new", NULL, NULL, 0);	/* the object lstat finds at exit */
	expect("PARENT:/w/:2 CREATE:/w/new:99");
	post = NULL;
	collect(0, "mkdir", a, "/w/f", NULL, NULL, -EEXIST);
	expect("PARENT:/w/:2");
	collect(0, "mkdir", a, "/w/x", NULL, NULL, -ENOSPC);	/* may_create reached: no inode */
	expect("PARENT:/w/:2 CREATE:/w/x:-");
	uint64_t m[6] = { 0, 010644 };
	collect(0, "mknod", m, "/w/p", NULL, NULL, 0);
	assert_int_equal(nm.v[1].st.mode, 010644);
	collect(0, "symlink", a, "f", "/w/s", NULL, 0);	/* getname right to left */
	expect("PARENT:/w/:2 UNKNOWN:f:- CREATE:/w/s:18446744073709551614");
	assert_int_equal(nm.v[2].st.mode & S_IFMT, S_IFLNK);
	collect(0, "link", a, "/w/f", "/w/h", NULL, 0);
	expect("PARENT:/w/:2 NORMAL:/w/f:3 CREATE:/w/h:3");
	collect(0, "link", a, "/w/none", "/w/h", NULL, -ENOENT);	/* the new name never walked */
	expect("UNKNOWN:/w/h:- UNKNOWN:/w/none:-");
	uint64_t o[6] = { (uint64_t)-100, 0, 0101, 0644 };	/* O_WRONLY|O_CREAT */
	collect(0, "openat", o, NULL, "/w/f", NULL, 3);
	expect("PARENT:/w/:2 NORMAL:/w/f:3");
	collect(0, "openat", o, NULL, "/w/n", NULL, 3);
	expect("PARENT:/w/:2 CREATE:/w/n:18446744073709551614");
	assert_int_equal(nm.v[1].st.mode, 0100644);
}

static void test_audit_names__rename(void **st)
{
	(void)st;
	uint64_t a[6] = { 0 };
	collect(0, "rename", a, "/w/old", "/w/taken", NULL, 0);
	expect("PARENT:/w/:2 PARENT:/w/:2 DELETE:/w/old:13 DELETE:/w/taken:14 CREATE:/w/taken:13");
	collect(0, "rename", a, "/w/old", "/w/taken", NULL, -EPERM);
	expect("PARENT:/w/:2 PARENT:/w/:2 DELETE:/w/old:13 DELETE:/w/taken:14");
	collect(0, "rename", a, "/w/old", "/w/fresh", NULL, -EPERM);
	expect("PARENT:/w/:2 PARENT:/w/:2 DELETE:/w/old:13 CREATE:/w/fresh:-");
	collect(0, "rename", a, "/w/none", "/w/fresh", NULL, -ENOENT);
	expect("PARENT:/w/:2 PARENT:/w/:2");
	collect(0, "unlink", a, "/w/f", NULL, NULL, 0);
	expect("PARENT:/w/:2 DELETE:/w/f:3");
}

static void test_audit_names__walks(void **st)
{
	(void)st;
	uint64_t a[6] = { 0 };
	collect(0, "stat", a, "/w/lnk", NULL, NULL, 0);
	expect("NORMAL:/w/lnk:3");
	assert_string_equal(nm.v[0].path, "/w/f");
	collect(0, "lstat", a, "/w/lnk", NULL, NULL, 0);
	expect("NORMAL:/w/lnk:4");
	uint64_t nf[6] = { (uint64_t)-100, 0, 0, 0x100 };
	collect(0, "newfstatat", nf, NULL, "/w/lnk", NULL, 0);
	expect("NORMAL:/w/lnk:4");
	collect(0, "stat", a, "/w/dangling", NULL, NULL, -ENOENT);
	expect("UNKNOWN:/w/dangling:-");
	collect(0, "stat", a, "/w/loop", NULL, NULL, -ELOOP);
	expect("UNKNOWN:/w/loop:-");
	collect(0, "stat", a, "/w/dl/../f", NULL, NULL, 0);	/* ".." after a symlinked dir */
	expect("NORMAL:/w/dl/../f:3");
	collect(0, "stat", a, "dl/g", NULL, NULL, 0);
	expect("NORMAL:dl/g:11");
	assert_string_equal(nm.v[0].path, "/w/sub/g");
	collect(0, "stat", a, "/w/f/x", NULL, NULL, -ENOTDIR);
	expect("UNKNOWN:/w/f/x:-");
	/* search permission: a user stops at /locked, root passes */
	collect(1000, "stat", a, "/locked/f", NULL, NULL, -EACCES);
	expect("UNKNOWN:/locked/f:-");
	uint64_t md[6] = { 0, 0755 };
	collect(1000, "mkdir", md, "/locked/sub", NULL, NULL, -EACCES);
	expect("UNKNOWN:/locked/sub:-");
	collect(0, "stat", a, "/locked/f", NULL, NULL, 0);
	expect("NORMAL:/locked/f:8");
	/* AT_EMPTY_PATH and fd-based calls name the fd's file */
	uint64_t ep[6] = { 7, 0, 0, 0x1000 };
	collect(0, "newfstatat", ep, NULL, "", NULL, 0);
	expect("NORMAL::3");
	uint64_t fd[6] = { 7, 0600 };
	collect(0, "fchmod", fd, NULL, NULL, NULL, 0);
	expect("NORMAL:(null):3");
	collect(0, "stat", a, "", NULL, NULL, -ENOENT);	/* no LOOKUP_EMPTY: no name at all */
	expect("");
}

static void test_audit_names__exec(void **st)
{
	(void)st;
	uint64_t a[6] = { 0 };
	collect(0, "execve", a, "/w/lnk", NULL, NULL, 0);
	expect("NORMAL:/w/lnk:3 NORMAL:/w/lnk:4");
	collect(0, "execve", a, "/w/script", NULL, NULL, 0);
	expect("NORMAL:/w/script:12 NORMAL:/w/script:12 NORMAL:/w/sub/g:11 NORMAL:/w/f:3");
	collect(0, "execve", a, "/w/script", NULL, NULL, -ENOMEM);
	expect("NORMAL:/w/script:12");
	collect(0, "execve", a, "/w/none", NULL, NULL, -ENOENT);
	expect("UNKNOWN:/w/none:-");
}

/* The names as event names: filetype= sees a created object's type, dir= its ancestors. */
static void test_audit_names__event(void **st)
{
	(void)st;
	struct sp_audit_event *ev = NULL;
	uint64_t m[6] = { 0, 010644 };

	assert_int_equal(sp_audit_event_new(&ev), 0);
	collect(0, "mknod", m, "/w/sub/p", NULL, NULL, 0);
	assert_int_equal(sp_audit_names_add_to_event(&nm, ev, &ops, NULL), 0);
	assert_int_equal(sp_audit_event_name_count(ev), 2);
	assert_int_equal(sp_audit_names_count(SP_AUDIT_ARCH_X86_64, 133), 2);	/* mknod */
	assert_int_equal(sp_audit_names_args(SP_AUDIT_ARCH_X86_64, 266, NULL),	/* symlinkat */
			 SP_AUDIT_ARG_PATH(0) | SP_AUDIT_ARG_PATH(2));
	int sa = -1;
	assert_int_equal(sp_audit_names_args(SP_AUDIT_ARCH_X86_64, 44, &sa), SP_AUDIT_ARG_SOCKADDR);
	assert_int_equal(sa, 4);	/* sendto's address */
	assert_int_equal(sp_audit_names_args(SP_AUDIT_ARCH_X86_64, 39, NULL), 0);	/* getpid */
	assert_int_equal(sp_audit_names_args(SP_AUDIT_ARCH_X86_64, 91, NULL), SP_AUDIT_ARG_FD);	/* fchmod */
	sp_audit_event_free(ev);
}

/* The collected names as an event of the call (returning ret), then the marks they re-bind. */
static int rebind(struct sp_audit_event *ev, struct sp_audit_ref *ref, int64_t ret)
{
	sp_audit_event_reset(ev);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 0);
	sp_audit_event_set_return(ev, ret);
	assert_int_equal(sp_audit_names_add_to_event(&nm, ev, &ops, NULL), 0);
	return sp_audit_event_rebind(ev, ref);
}

/* Marks follow the file system: a rename onto a watched name, a link onto an exe= path. */
static void test_audit_names__rebind(void **st)
{
	(void)st;
	const char *text = "-w /w/old -p wa -k watch\n"
			   "-a always,exit -F arch=b64 -S execve -F exe=/w/h -k exe\n";
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_fsview *fs = NULL;
	struct sp_audit_ref *ref = NULL;
	struct sp_audit_event *ev = NULL;
	struct sp_audit_decision d;

	assert_int_equal(sp_audit_ruleset_parse(text, strlen(text), "t", &po, &rs, NULL), 0);
	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		assert_int_equal(sp_audit_fsview_add(fs, tree[i].path, tree[i].ino, 0x800001, tree[i].mode), 0);
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = fs };
	assert_int_equal(sp_audit_ref_new(&eo, &ref), 0);
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		sp_audit_ruleset_item(rs, i, &it);
		assert_int_equal(sp_audit_ref_add(ref, it.blob, it.blob_len, it.line), 0);
	}
	assert_int_equal(sp_audit_event_new(&ev), 0);
	/* rename /w/f onto /w/old: the watch moves to /w/f's inode (3), then catches a write to it */
	uint64_t a[6] = { 0 };
	collect(0, "rename", a, "/w/f", "/w/old", NULL, 0);
	assert_int_equal(rebind(ev, ref, 0), 2);	/* unbound by the DELETE, bound by the CREATE */
	uint64_t o[6] = { (uint64_t)-100, 0, 01 };
	collect(0, "openat", o, NULL, "/w/f", NULL, 3);	/* the same inode, under its old name */
	sp_audit_event_reset(ev);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 257);
	sp_audit_event_set_args(ev, (uint64_t)-100, 0, 01, 0);
	sp_audit_event_set_return(ev, 3);
	assert_int_equal(sp_audit_names_add_to_event(&nm, ev, &ops, NULL), 0);
	sp_audit_ref_filter(ref, ev, &d);
	assert_true(d.record);
	assert_string_equal(d.key, "watch");
	/* a failed call re-binds nothing; a link creates /w/h onto /w/old's inode 13: exe= follows */
	collect(0, "link", a, "/w/old", "/w/h", NULL, -EPERM);
	assert_int_equal(rebind(ev, ref, -EPERM), 0);
	collect(0, "link", a, "/w/old", "/w/h", NULL, 0);
	assert_int_equal(rebind(ev, ref, 0), 1);
	sp_audit_event_reset(ev);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 59);
	sp_audit_event_set_return(ev, 0);
	sp_audit_event_set_exe(ev, 13, 0x800001);
	sp_audit_ref_filter(ref, ev, &d);
	assert_true(d.record);
	assert_string_equal(d.key, "exe");
	/* removed: the mark binds to nothing */
	assert_int_equal(sp_audit_ref_rebind(ref, "/w/h", SP_AUDIT_INO_UNSET, 0), 1);
	sp_audit_ref_filter(ref, ev, &d);
	assert_false(d.record);
	sp_audit_event_free(ev);
	sp_audit_ref_free(ref);
	sp_audit_fsview_free(fs);
	sp_audit_ruleset_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_names__create_family),
		cmocka_unit_test(test_audit_names__rename),
		cmocka_unit_test(test_audit_names__walks),
		cmocka_unit_test(test_audit_names__exec),
		cmocka_unit_test(test_audit_names__event),
		cmocka_unit_test(test_audit_names__rebind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
