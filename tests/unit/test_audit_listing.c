/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_listing.c - sp_audit_listing, one table row per branch of auditctl 3.0.9's
 * auditctl-listing.c (print_rule, is_watch, print_arch, print_syscall, print_field_cmp,
 * key_match) and per kernel list operation (duplicates, -A, -d, -D, -e 2, list order).  The
 * byte-for-byte oracle is the real auditctl -l of every kernel case (test_audit_kernel); these
 * rows pin each branch on its own, with the text auditctl's code prints for it.
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

#include "secpath/audit_tools.h"

struct row {
	const char *rules;	/* a rules file */
	const char *key;	/* -k KEY, or NULL */
	const char *want;	/* what auditctl -l prints */
};

static const struct row rows[] = {
	/* is_watch: perm, key, path/dir only, every syscall */
	{ "-w /etc/passwd -p wa -k identity\n", NULL, "-w /etc/passwd -p wa -k identity\n" },
	{ "-a always,exit -F path=/etc/shadow -F perm=r\n", NULL, "-w /etc/shadow -p r\n" },
	{ "-a always,exit -F dir=/etc -F perm=x -k d\n", NULL, "-w /etc -p x -k d\n" },
	/* a perm letter order of r, w, x, a whatever was given */
	{ "-w /etc/group -p axwr\n", NULL, "-w /etc/group -p rwxa\n" },
	/* a path without perm is no watch; one more field is no watch */
	{ "-a always,exit -F path=/etc/hosts -k h\n", NULL,
	  "-a always,exit -S all -F path=/etc/hosts -F key=h\n" },
	{ "-a always,exit -F path=/etc/hosts -F perm=w -F auid>=1000\n", NULL,
	  "-a always,exit -S all -F path=/etc/hosts -F perm=w -F auid>=1000\n" },
	{ "-a always,exit -F arch=b64 -S openat -F path=/etc/hosts -F perm=w\n", NULL,
	  "-a always,exit -F arch=b64 -S openat -F path=/etc/hosts -F perm=w\n" },
	/* the arch: b32/b64, the syscall table it picks, and auditctl's _audit_elf carried to the
	 * next rule: its x86_64 syscall 90 (chmod) is named from the i386 table (mmap) */
	{ "-a always,exit -F arch=b32 -S chmod -F key=c\n-a always,exit -S 90 -k n\n", NULL,
	  "-a always,exit -F arch=b32 -S chmod -F key=c\n-a always,exit -S mmap -F key=n\n" },
	{ "-a always,exit -F arch=b64 -S getpid,getppid\n", NULL,
	  "-a always,exit -F arch=b64 -S getpid,getppid\n" },
	/* keys: -F key= outside watches, every piece of a joined key */
	{ "-a always,exit -F arch=b64 -S kill -k a -k b\n", NULL,
	  "-a always,exit -F arch=b64 -S kill -F key=a -F key=b\n" },
	{ "-w /tmp/x -p w -k a -k b\n", NULL, "-w /tmp/x -p w -k a -k b\n" },
	/* field formats: loginuid/sessionid and the default are signed, inode unsigned, args hex,
	 * exit as -ERRNO, msgtype names, strings as given */
	{ "-a always,exit -F arch=b64 -S open -F auid!=unset -F sessionid=unset -F uid=4294967294\n",
	  NULL, "-a always,exit -F arch=b64 -S open -F auid!=-1 -F sessionid=-1 -F uid=-2\n" },
	{ "-a always,exit -F arch=b64 -S open -F inode=4294967295\n", NULL,
	  "-a always,exit -F arch=b64 -S open -F inode=4294967295\n" },
	{ "-a always,exit -F arch=b64 -S ioctl -F a1=0x5401 -F a0=16\n", NULL,
	  "-a always,exit -F arch=b64 -S ioctl -F a1=0x5401 -F a0=0x10\n" },
	{ "-a always,exit -F arch=b64 -S open -F exit=-EACCES -F success=0\n", NULL,
	  "-a always,exit -F arch=b64 -S open -F exit=-EACCES -F success=0\n" },
	{ "-a always,exit -F arch=b64 -S open -F exit=-4095\n", NULL,
	  "-a always,exit -F arch=b64 -S open -F exit=-4095\n" },
	{ "-a always,exit -F arch=b64 -S open -F exit>=-2147483648\n", NULL,
	  "-a always,exit -F arch=b64 -S open -F exit>=-2147483648\n" },
	{ "-a always,exclude -F msgtype=CWD\n-a always,exclude -F msgtype=1399\n", NULL,
	  "-a always,exclude -F msgtype=CWD\n-a always,exclude -F msgtype=1399\n" },
	{ "-a always,exit -F arch=b64 -S open -F subj_type=sshd_t -F exe=/usr/bin/ls\n", NULL,
	  "-a always,exit -F arch=b64 -S open -F subj_type=sshd_t -F exe=/usr/bin/ls\n" },
	/* -C field comparisons */
	{ "-a always,exit -F arch=b64 -S open -C uid!=auid -C egid=obj_gid\n", NULL,
	  "-a always,exit -F arch=b64 -S open -C uid!=auid -C egid=obj_gid\n" },
	/* lists without syscalls print none; the user list comes before the task list */
	{ "-a never,task -F uid=33\n-a always,user -F uid=0\n", NULL,
	  "-a always,user -F uid=0\n-a never,task -F uid=33\n" },
	/* the kernel's list order: user, task, exit, exclude; -A at its list's head, its prepend
	 * flag cleared; a duplicate refused; -d removes; -D clears; -e 2 freezes */
	{ "-a always,exclude -F msgtype=CWD\n-a always,exit -F arch=b64 -S kill -k k1\n"
	  "-a never,task -F uid=1\n-A always,exit -F arch=b64 -S kill -k k0\n"
	  "-a always,user -F uid=2\n", NULL,
	  "-a always,user -F uid=2\n-a never,task -F uid=1\n"
	  "-a always,exit -F arch=b64 -S kill -F key=k0\n-a always,exit -F arch=b64 -S kill -F key=k1\n"
	  "-a always,exclude -F msgtype=CWD\n" },
	{ "-a always,exit -F arch=b64 -S kill -k k\n-a always,exit -F arch=b64 -S kill -k k\n", NULL,
	  "-a always,exit -F arch=b64 -S kill -F key=k\n" },
	{ "-a always,exit -F arch=b64 -S kill -k k\n-a always,exit -F arch=b64 -S open\n"
	  "-d always,exit -F arch=b64 -S kill -k k\n", NULL,
	  "-a always,exit -F arch=b64 -S open\n" },
	{ "-a always,exit -F arch=b64 -S kill\n-D\n-a always,exit -F arch=b64 -S open\n", NULL,
	  "-a always,exit -F arch=b64 -S open\n" },
	{ "-a always,exit -F arch=b64 -S kill\n-e 2\n-a always,exit -F arch=b64 -S open\n-D\n", NULL,
	  "-a always,exit -F arch=b64 -S kill\n" },
	{ "-D\n-b 8192\n", NULL, "No rules\n" },
	/* -k KEY: a rule with a key containing KEY */
	{ "-w /etc/passwd -p wa -k identity\n-a always,exit -F arch=b64 -S kill -k kill_sig\n"
	  "-a always,exit -F arch=b64 -S open\n", "ent", "-w /etc/passwd -p wa -k identity\n" },
	{ "-a always,exit -F arch=b64 -S open\n", "x", "No rules\n" },
};

static void emit(void *ud, const char *line)
{
	fprintf(ud, "%s\n", line);
}

static void test_audit_listing__auditctl_branches(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
		struct sp_audit_fsview *fs = NULL;
		assert_int_equal(sp_audit_fsview_new(&fs), 0);
		assert_int_equal(sp_audit_fsview_add(fs, "/", 2, SP_AUDIT_MKDEV(8, 1), 040755), 0);
		assert_int_equal(sp_audit_fsview_add(fs, "/etc", 3, SP_AUDIT_MKDEV(8, 1), 040755), 0);
		assert_int_equal(sp_audit_fsview_add(fs, "/tmp", 4, SP_AUDIT_MKDEV(8, 1), 041777), 0);
		assert_int_equal(sp_audit_fsview_add(fs, "/usr", 5, SP_AUDIT_MKDEV(8, 1), 040755), 0);
		assert_int_equal(sp_audit_fsview_add(fs, "/usr/bin", 6, SP_AUDIT_MKDEV(8, 1), 040755),
				 0);
		struct sp_audit_listing_opts lo = { .sz = sizeof(lo), .machine = "x86_64",
						    .key = rows[i].key, .fs = fs };
		struct sp_audit_ruleset *rs = NULL;
		struct sp_diags d;
		char *got = NULL;
		size_t glen = 0;
		sp_diags_init(&d, NULL);
		assert_int_equal(sp_audit_ruleset_parse(rows[i].rules, strlen(rows[i].rules), "t.rules",
							&po, &rs, &d), 0);
		if (d.nerrors)
			fail_msg("row %zu: the rules do not parse: %s", i, d.v[0].msg);
		FILE *f = open_memstream(&got, &glen);
		assert_non_null(f);
		assert_int_equal(sp_audit_listing(rs, &lo, emit, f), 0);
		fclose(f);
		if (strcmp(got, rows[i].want))
			fail_msg("row %zu:\n%s  listed:\n%s  want:\n%s", i, rows[i].rules, got,
				 rows[i].want);
		free(got);
		sp_audit_ruleset_free(rs);
		sp_audit_fsview_free(fs);
		sp_diags_release(&d);
	}
}

static void test_audit_listing__arguments(void **st)
{
	(void)st;
	struct sp_audit_listing_opts small = { .sz = sizeof(small) - 1 };
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	assert_int_equal(sp_audit_ruleset_parse("", 0, "e", &po, &rs, NULL), 0);
	assert_int_equal(sp_audit_listing(NULL, NULL, emit, stdout), -EINVAL);
	assert_int_equal(sp_audit_listing(rs, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(sp_audit_listing(rs, &small, emit, stdout), -EINVAL);
	sp_audit_ruleset_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_listing__auditctl_branches),
		cmocka_unit_test(test_audit_listing__arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
