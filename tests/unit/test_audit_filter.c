/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_filter.c - audit filter engines: syscall classes against libaudit's tables, rule
 * storage (EEXIST, ENOENT, priorities, kernel refusals), the golden rule sets loaded into both
 * engines, targeted kernel semantics checked on both engines, and the expectation checker of the
 * events format (sp_audit_decision_check).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <libaudit.h>
#include <dirent.h>

#include "secpath/audit.h"
#include "audit/filter/filter_int.h"
#include "../support/audit_golden.h"

#define EQ 0x40000000u
#define NE 0x30000000u
#define LT 0x10000000u
#define GE 0x60000000u

/* Decide ev with the reference and the compiled engine; they must agree. */
static void decide(struct sp_audit_ref *r, const struct sp_audit_event *ev, struct sp_audit_decision *d)
{
	struct sp_audit_matcher *m;
	struct sp_audit_decision d2;
	char a[512], b[512];
	assert_int_equal(sp_audit_ref_filter(r, ev, d), 0);
	assert_int_equal(sp_audit_matcher_compile(r, &m), 0);
	sp_audit_matcher_filter(m, ev, &d2);
	sp_audit_matcher_free(m);
	if (!sp_audit_decision_equal(d, &d2)) {
		sp_audit_decision_format(d, a, sizeof(a));
		sp_audit_decision_format(&d2, b, sizeof(b));
		fail_msg("engines disagree:\n  ref      %s\n  compiled %s", a, b);
	}
}

static void test_audit_filter__classes_match_libaudit(void **st)
{
	(void)st;
	/* expected class membership (bit c = class c of the ABI: DIR_WRITE 0, CHATTR 2, READ 4,
	 * WRITE 6, SIGNAL 8; the WRITE class includes DIR_WRITE, link/linkat are also CHATTR) */
	static const struct {
		const char *name;
		unsigned cls;
	} v[] = {
		{ "rename", 1u << 0 | 1u << 6 }, { "mkdirat", 1u << 0 | 1u << 6 },
		{ "renameat2", 1u << 0 | 1u << 6 }, { "symlinkat", 1u << 0 | 1u << 6 },
		{ "linkat", 1u << 0 | 1u << 6 | 1u << 2 }, { "link", 1u << 0 | 1u << 6 | 1u << 2 },
		{ "truncate", 1u << 6 }, { "bind", 1u << 6 }, { "fallocate", 1u << 6 },
		{ "acct", 1u << 6 }, { "quotactl", 1u << 4 | 1u << 6 }, { "readlinkat", 1u << 4 },
		{ "fgetxattr", 1u << 4 }, { "fchmodat", 1u << 2 }, { "lremovexattr", 1u << 2 },
		{ "kill", 1u << 8 }, { "tgkill", 1u << 8 }, { "read", 0 }, { "write", 0 },
		{ "getpid", 0 }, { "openat", 0 },
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int n64 = audit_name_to_syscall(v[i].name, MACH_86_64);
		int n32 = audit_name_to_syscall(v[i].name, MACH_X86);
		assert_true(n64 >= 0 && n32 >= 0);
		for (int c = 0; c < CL_NR; c += 2) {
			if ((audit_match_class(c, (uint32_t)n64) != 0) != ((v[i].cls >> c) & 1))
				fail_msg("%s (x86_64 %d) class %d", v[i].name, n64, c);
			if ((audit_match_class(c + 1, (uint32_t)n32) != 0) != ((v[i].cls >> c) & 1))
				fail_msg("%s (i386 %d) class %d", v[i].name, n32, c + 1);
		}
	}
	/* the 32-bit extras */
	static const char *const x32only[] = { "truncate64", "ftruncate64" };
	for (int i = 0; i < 2; i++)
		assert_true(audit_match_class(CL_WRITE_32, (uint32_t)audit_name_to_syscall(x32only[i], MACH_X86)));
	static const char *const chown32[] = { "chown32", "fchown32", "lchown32" };
	for (int i = 0; i < 3; i++)
		assert_true(audit_match_class(CL_CHATTR_32, (uint32_t)audit_name_to_syscall(chown32[i], MACH_X86)));
	/* every class member of one ABI is a real syscall of that ABI in libaudit's table */
	for (int c = 0; c < CL_NR; c++)
		for (uint32_t nr = 0; nr < 2048; nr++)
			if (audit_match_class(c, nr))
				assert_non_null(audit_syscall_to_name((int)nr, c & 1 ? MACH_X86 : MACH_86_64));
}

static void test_audit_filter__storage(void **st)
{
	(void)st;
	struct sp_audit_ref *r;
	struct tsupport_rule a, b;
	assert_int_equal(sp_audit_ref_new(NULL, &r), 0);
	tsupport_rule_init(&a, 4, 2);
	tsupport_rule_syscall(&a, 2);
	tsupport_rule_field(&a, 1, EQ, 0);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 1), 0);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 2), -EEXIST);
	/* prepend flag makes a different rule (audit_compare_rule compares flags) */
	b = a;
	memcpy(b.buf, &(uint32_t){ 0x14 }, 4);
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 3), 0);
	assert_int_equal(sp_audit_ref_count(r), 2);
	/* after insertion the prepend flag is cleared: both entries now compare equal to a */
	assert_int_equal(sp_audit_ref_del(r, a.buf, a.len), 0);
	assert_int_equal(sp_audit_ref_del(r, a.buf, a.len), 0);
	assert_int_equal(sp_audit_ref_del(r, a.buf, a.len), -ENOENT);
	/* kernel refusals */
	tsupport_rule_init(&b, 4, 1);	/* possible */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	tsupport_rule_init(&b, 2, 2);	/* entry list */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	tsupport_rule_init(&b, 4, 2);
	tsupport_rule_field(&b, 1, EQ, 4294967295u);	/* uid=-1 */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	tsupport_rule_init(&b, 4, 2);
	tsupport_rule_field(&b, 1, 0x08000000u, 5);	/* uid&5 */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	tsupport_rule_init(&b, 4, 2);
	tsupport_rule_str(&b, 105, NE, "/etc/passwd");	/* path!= */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	tsupport_rule_init(&b, 4, 2);
	tsupport_rule_str(&b, 105, EQ, "/etc/");	/* trailing slash */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	tsupport_rule_init(&b, 4, 2);
	tsupport_rule_str(&b, 107, EQ, "/nonexistent");	/* audit_add_tree_rule: kern_path */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -ENOENT);
	tsupport_rule_init(&b, 1, 2);
	tsupport_rule_field(&b, 12, EQ, 1300);	/* msgtype on task */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	tsupport_rule_init(&b, 4, 2);
	tsupport_rule_str(&b, 210, EQ, "k");
	tsupport_rule_str(&b, 210, EQ, "k");	/* two keys */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	tsupport_rule_init(&b, 4, 2);
	tsupport_rule_field(&b, 113, EQ, 46);	/* saddr_fam >= AF_MAX */
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 4), -EINVAL);
	assert_int_equal(sp_audit_ref_add(r, b.buf, 1039, 4), -EINVAL);	/* short */
	/* auid=-1 is rewritten into loginuid_set and stays distinct from auid=0 */
	tsupport_rule_init(&b, 4, 2);
	tsupport_rule_syscall(&b, -1);
	tsupport_rule_field(&b, 9, NE, 4294967295u);
	assert_int_equal(sp_audit_ref_add(r, b.buf, b.len, 5), 0);
	sp_audit_ref_free(r);
}

/* A matching rule's key reaches the decision whole, NUL-terminated, at every length around the
 * compiled engine's fixed-size copy of short keys (16 bytes) and up to the longest key; both
 * engines agree (decide).  Each rule set holds a shorter key before the tested one, so a copy
 * that ran past its key would show the next key's bytes. */
static void test_audit_filter__key_lengths(void **st)
{
	(void)st;
	static const size_t lens[] = { 1, 14, 15, 16, 17, 31, 32, 33, SP_AUDIT_MAX_KEY_LEN };
	char key[SP_AUDIT_MAX_KEY_LEN + 1];
	for (size_t i = 0; i < SP_ARRAY_SIZE(lens); i++) {
		struct sp_audit_ref *r;
		struct sp_audit_event *ev;
		struct sp_audit_decision d;
		struct tsupport_rule a;
		for (size_t j = 0; j < lens[i]; j++)
			key[j] = (char)('a' + (i + j) % 26);
		key[lens[i]] = 0;
		assert_int_equal(sp_audit_ref_new(NULL, &r), 0);
		assert_int_equal(sp_audit_event_new(&ev), 0);
		/* -a always,exit -S getpid -k x; -S openat -k KEY; -S getpid -k y (ids 1, 2, 3) */
		static const int nr[] = { 39, 257, 39 };
		const char *keys[] = { "x", key, "y" };
		for (int k = 0; k < 3; k++) {
			tsupport_rule_init(&a, 4, 2);
			tsupport_rule_syscall(&a, nr[k]);
			tsupport_rule_str(&a, 210, EQ, keys[k]);
			assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, k + 1), 0);
		}
		sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 257);
		decide(r, ev, &d);
		assert_int_equal(d.exit_rule, 2);
		assert_int_equal(d.has_key, 1);
		assert_int_equal(d.key_len, lens[i]);
		assert_string_equal(d.key, key);
		sp_audit_event_free(ev);
		sp_audit_ref_free(r);
	}
}

/* exit rules and watches share one priority order: a later -A watch outranks -a exit rules,
 * and the key of an earlier keyed match survives a keyless later match (audit_filter_rules) */
static void test_audit_filter__priorities_and_keys(void **st)
{
	(void)st;
	struct sp_audit_fsview *fs;
	struct sp_audit_ref *r;
	struct sp_audit_event *ev;
	struct sp_audit_decision d;
	struct tsupport_rule a;
	struct sp_audit_engine_opts o = { .sz = sizeof(o) };

	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	assert_int_equal(sp_audit_fsview_add(fs, "/etc", 10, SP_AUDIT_MKDEV(8, 1), 040755), 0);
	assert_int_equal(sp_audit_fsview_add(fs, "/etc/passwd", 44, SP_AUDIT_MKDEV(8, 1), 0100644), 0);
	o.fs = fs;
	assert_int_equal(sp_audit_ref_new(&o, &r), 0);
	assert_int_equal(sp_audit_event_new(&ev), 0);

	/* 10: -a never,exit -S openat -k quiet */
	tsupport_rule_init(&a, 4, 0);
	tsupport_rule_syscall(&a, 257);
	tsupport_rule_str(&a, 210, EQ, "quiet");
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 10), 0);
	/* 11: -A always,exit -F path=/etc/passwd (no key) */
	tsupport_rule_init(&a, 0x14, 2);
	tsupport_rule_syscall(&a, -1);
	tsupport_rule_str(&a, 105, EQ, "/etc/passwd");
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 11), 0);

	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 257);
	sp_audit_event_set_return(ev, 3);
	assert_true(sp_audit_event_add_path(ev, fs, "/etc/passwd") >= 0);
	decide(r, ev, &d);
	assert_int_equal(d.record, 1);
	assert_int_equal(d.exit, SP_AUDIT_ALWAYS);
	assert_int_equal(d.exit_rule, 11);
	assert_int_equal(d.has_key, 1);
	assert_string_equal(d.key, "quiet");

	/* another name: only the exit-list never rule */
	sp_audit_event_reset(ev);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 257);
	assert_true(sp_audit_event_add_path(ev, fs, "/etc") >= 0);
	decide(r, ev, &d);
	assert_int_equal(d.record, 0);
	assert_int_equal(d.exit, SP_AUDIT_NEVER);
	assert_int_equal(d.exit_rule, 10);

	sp_audit_event_free(ev);
	sp_audit_ref_free(r);
	sp_audit_fsview_free(fs);
}

/*
 * Exit rules whose exe= or subj_type= (op EQ) lets the compiled matcher's candidate loop reject
 * them without their predicates (the rule's guard, match_int.h): each must still win exactly the
 * events it matches, on both engines, whichever other rules match too.
 */
static void test_audit_filter__guarded_rules(void **st)
{
	(void)st;
	static const char *const ctx[] = { NULL, "system_u:system_r:sshd_t:s0",
					   "system_u:object_r:etc_t:s0", "user_u:user_r:user_t:s0" };
	static const uint64_t exe_ino[] = { 0, 501, 502, 777 };	/* none, cat, bash, unknown */
	struct sp_audit_fsview *fs;
	struct sp_audit_ref *r;
	struct sp_audit_event *ev;
	struct sp_audit_decision d;
	struct tsupport_rule a;
	struct sp_audit_engine_opts o = { .sz = sizeof(o) };
	const uint32_t dev = SP_AUDIT_MKDEV(8, 1);

	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	assert_int_equal(sp_audit_fsview_add(fs, "/usr", 2, dev, 040755), 0);
	assert_int_equal(sp_audit_fsview_add(fs, "/usr/bin", 3, dev, 040755), 0);
	assert_int_equal(sp_audit_fsview_add(fs, "/usr/bin/cat", 501, dev, 0100755), 0);
	assert_int_equal(sp_audit_fsview_add(fs, "/usr/bin/bash", 502, dev, 0100755), 0);
	o.fs = fs;
	assert_int_equal(sp_audit_ref_new(&o, &r), 0);
	assert_int_equal(sp_audit_event_new(&ev), 0);

	/* 20: -a always,exit -S openat -F exe=/usr/bin/cat -k cat */
	tsupport_rule_init(&a, 4, 2);
	tsupport_rule_syscall(&a, 257);
	tsupport_rule_str(&a, 112, EQ, "/usr/bin/cat");
	tsupport_rule_str(&a, 210, EQ, "cat");
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 20), 0);
	/* 21: -a always,exit -S openat,read -F subj_type=sshd_t -k sshd */
	tsupport_rule_init(&a, 4, 2);
	tsupport_rule_syscall(&a, 257);
	tsupport_rule_syscall(&a, 0);
	tsupport_rule_str(&a, 15, EQ, "sshd_t");
	tsupport_rule_str(&a, 210, EQ, "sshd");
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 21), 0);
	/* 22: -a always,exit -S openat -F exe!=/usr/bin/cat -F subj_type=etc_t -k notcat */
	tsupport_rule_init(&a, 4, 2);
	tsupport_rule_syscall(&a, 257);
	tsupport_rule_str(&a, 112, NE, "/usr/bin/cat");
	tsupport_rule_str(&a, 15, EQ, "etc_t");
	tsupport_rule_str(&a, 210, EQ, "notcat");
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 22), 0);

	/* every (exe, context, syscall) combination: the expected winner, and the engines agree */
	for (unsigned x = 0; x < 4; x++)
		for (unsigned c = 0; c < 4; c++)
			for (unsigned s = 0; s < 3; s++) {
				static const int32_t nr[] = { 257, 0, 1 };
				sp_audit_event_reset(ev);
				sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, nr[s]);
				if (exe_ino[x])
					sp_audit_event_set_exe(ev, exe_ino[x], dev);
				if (ctx[c])
					sp_audit_event_set_subj_ctx(ev, ctx[c]);
				decide(r, ev, &d);
				int32_t want = -1;
				if (nr[s] == 257 && x == 1)
					want = 20;
				else if (nr[s] <= 257 && nr[s] != 1 && c == 1)
					want = 21;
				else if (nr[s] == 257 && c == 2)
					want = 22;
				assert_int_equal(d.record, want >= 0);
				if (want >= 0)
					assert_int_equal(d.exit_rule, want);
			}

	sp_audit_event_free(ev);
	sp_audit_ref_free(r);
	sp_audit_fsview_free(fs);
}

static void test_audit_filter__task_and_dummy(void **st)
{
	(void)st;
	struct sp_audit_ref *r;
	struct sp_audit_event *ev;
	struct sp_audit_decision d;
	struct tsupport_rule a;

	assert_int_equal(sp_audit_ref_new(NULL, &r), 0);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 39);
	/* only an exclude rule: audit_n_rules == 0, the syscall context is a dummy */
	tsupport_rule_init(&a, 5, 0);
	tsupport_rule_field(&a, 12, EQ, 1300);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 1), 0);
	decide(r, ev, &d);
	assert_int_equal(d.context, SP_AUDIT_CTX_DUMMY);
	assert_int_equal(d.record, 0);
	/* task always with a key: every syscall recorded with it, exclude then drops SYSCALL */
	tsupport_rule_init(&a, 1, 2);
	tsupport_rule_field(&a, 1, EQ, 0);
	tsupport_rule_str(&a, 210, EQ, "all-root");
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 2), 0);
	/* an exit never rule cannot override it */
	tsupport_rule_init(&a, 4, 0);
	tsupport_rule_syscall(&a, -1);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 3), 0);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_ALWAYS);
	assert_int_equal(d.record, 1);
	assert_int_equal(d.excluded, 1);
	assert_int_equal(d.exclude_rule, 1);
	assert_string_equal(d.key, "all-root");
	/* task-list pid is the forking parent's tgid */
	tsupport_rule_init(&a, 0x11, 0);
	tsupport_rule_field(&a, 0, EQ, 77);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 4), 0);
	sp_audit_event_set_pids(ev, 77, 77, 1);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_ALWAYS);
	sp_audit_event_set_pids(ev, 500, 500, 77);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_NEVER);
	assert_int_equal(d.context, SP_AUDIT_CTX_NONE);
	assert_int_equal(d.record, 0);
	sp_audit_event_free(ev);
	sp_audit_ref_free(r);
}

/* The task list runs at fork on the forking task's pid and credentials (set_task_creds). */
static void test_audit_filter__task_creds(void **st)
{
	(void)st;
	struct sp_audit_ref *r;
	struct sp_audit_event *ev;
	struct sp_audit_decision d;
	struct tsupport_rule a;
	const uint32_t root[4] = { 0, 0, 0, 0 }, u1001[4] = { 1001, 1001, 1001, 1001 };
	const uint32_t g27[1] = { 27 };

	assert_int_equal(sp_audit_ref_new(NULL, &r), 0);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 39);
	/* -a never,task -F uid=1001; -a always,task -F gid=27 -F auid=5 -C euid!=suid;
	 * -a always,task -F pid=6000 -F sessionid=3; -a always,exit -S all */
	tsupport_rule_init(&a, 1, 0);
	tsupport_rule_field(&a, 1, EQ, 1001);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 1), 0);
	tsupport_rule_init(&a, 1, 2);
	tsupport_rule_field(&a, 5, EQ, 27);
	tsupport_rule_field(&a, 9, EQ, 5);
	tsupport_rule_field(&a, 111, NE, 17);	/* AUDIT_COMPARE_EUID_TO_SUID */
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 2), 0);
	tsupport_rule_init(&a, 1, 2);
	tsupport_rule_field(&a, 0, EQ, 6000);
	tsupport_rule_field(&a, 25, EQ, 3);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 3), 0);
	tsupport_rule_init(&a, 4, 0);
	tsupport_rule_syscall(&a, -1);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 4), 0);

	/* default view: the event's credentials, pid = ppid */
	sp_audit_event_set_uids(ev, 1001, 1001, 1001, 1001);
	assert_int_equal(sp_audit_event_has_task_creds(ev), 0);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_NEVER);
	assert_int_equal(d.task_rule, 1);
	/* the task was forked by root before it became 1001: the task list never saw 1001 */
	assert_int_equal(sp_audit_event_set_task_creds(ev, 1, root, root, NULL, 0, SP_AUDIT_UNSET,
						       SP_AUDIT_UNSET), 0);
	assert_int_equal(sp_audit_event_has_task_creds(ev), 1);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_NOMATCH);
	assert_int_equal(d.exit, SP_AUDIT_NEVER);
	/* the event's own setters no longer move the task view */
	sp_audit_event_set_uids(ev, 0, 0, 0, 0);
	sp_audit_event_set_pids(ev, 10, 10, 6000);
	sp_audit_event_set_sessionid(ev, 3);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_NOMATCH);
	/* and the reverse: now uid 0, but forked as 1001 */
	assert_int_equal(sp_audit_event_set_task_creds(ev, 1, u1001, root, NULL, 0, SP_AUDIT_UNSET,
						       SP_AUDIT_UNSET), 0);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_NEVER);
	assert_int_equal(d.context, SP_AUDIT_CTX_NONE);
	/* supplementary groups, loginuid and a cred-cred comparison from the task view */
	{
		const uint32_t u[4] = { 7, 8, 9, 7 };
		assert_int_equal(sp_audit_event_set_task_creds(ev, 1, u, root, g27, 1, 5, 1), 0);
		decide(r, ev, &d);
		assert_int_equal(d.task, SP_AUDIT_ALWAYS);
		assert_int_equal(d.task_rule, 2);
		assert_int_equal(d.record, 1);
		const uint32_t u2[4] = { 7, 8, 8, 7 };	/* euid == suid */
		assert_int_equal(sp_audit_event_set_task_creds(ev, 1, u2, root, g27, 1, 5, 1), 0);
		decide(r, ev, &d);
		assert_int_equal(d.task, SP_AUDIT_NOMATCH);
		assert_int_equal(sp_audit_event_set_task_creds(ev, 1, u, root, NULL, 0, 5, 1), 0);
		decide(r, ev, &d);
		assert_int_equal(d.task, SP_AUDIT_NOMATCH);	/* no group 27 */
	}
	/* pid and session of the forking task */
	assert_int_equal(sp_audit_event_set_task_creds(ev, 6000, root, root, NULL, 0, SP_AUDIT_UNSET, 3), 0);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_ALWAYS);
	assert_int_equal(d.task_rule, 3);
	/* clear: back to the event's view (pid = ppid 6000, ses 3, uid 0) */
	sp_audit_event_clear_task_creds(ev);
	assert_int_equal(sp_audit_event_has_task_creds(ev), 0);
	sp_audit_event_set_pids(ev, 10, 10, 6001);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_NOMATCH);
	sp_audit_event_set_pids(ev, 10, 10, 6000);
	decide(r, ev, &d);
	assert_int_equal(d.task, SP_AUDIT_ALWAYS);
	/* reset clears the view too; bad arguments */
	assert_int_equal(sp_audit_event_set_task_creds(ev, 1, u1001, root, NULL, 0, 1, 1), 0);
	sp_audit_event_reset(ev);
	assert_int_equal(sp_audit_event_has_task_creds(ev), 0);
	assert_int_equal(sp_audit_event_set_task_creds(ev, 1, NULL, root, NULL, 0, 1, 1), -EINVAL);
	assert_int_equal(sp_audit_event_set_task_creds(ev, 1, root, root, NULL, 2, 1, 1), -EINVAL);
	sp_audit_event_free(ev);
	sp_audit_ref_free(r);
}

static size_t golden_set(const char *path)
{
	struct tsupport_blobset s = { 0 };
	struct sp_audit_fsview *fs;
	struct sp_audit_ref *r;
	struct sp_audit_matcher *m;
	struct sp_audit_engine_opts o = { .sz = sizeof(o) };
	assert_int_equal(tsupport_golden_load(path, &s), 0);
	if (!s.n) {
		tsupport_blobset_free(&s);
		return 0;
	}
	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	assert_int_equal(tsupport_blobset_fsview(&s, fs), 0);
	o.fs = fs;
	assert_int_equal(sp_audit_ref_new(&o, &r), 0);
	size_t rejected = tsupport_blobset_apply(&s, r);
	if (rejected)
		fail_msg("%s: %zu of %zu blobs rejected", path, rejected, s.n);
	assert_int_equal(sp_audit_ref_count(r), s.n);
	assert_int_equal(sp_audit_matcher_compile(r, &m), 0);
	sp_audit_matcher_free(m);
	sp_audit_ref_free(r);
	sp_audit_fsview_free(fs);
	tsupport_blobset_free(&s);
	return 1;
}

static void test_audit_filter__golden_sets_load(void **st)
{
	(void)st;
	/* every golden ADD is accepted by the kernel checks once its paths exist */
	static const char *const dirs[] = { "tests/data/audit/golden/debian",
					    "tests/data/audit/golden/thirdparty" };
	size_t nsets = 0;
	for (int k = 0; k < 2; k++) {
		DIR *dir = opendir(dirs[k]);
		struct dirent *de;
		char path[512];
		assert_non_null(dir);
		while ((de = readdir(dir))) {
			size_t l = strlen(de->d_name);
			if (l < 4 || strcmp(de->d_name + l - 4, ".tsv"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[k], de->d_name);
			nsets += golden_set(path);
		}
		closedir(dir);
	}
	assert_true(nsets >= 25);
}

/* io_uring ops in worker context: the io_uring list indexed by opcode, arch/args are 0, the exit
 * list is not consulted (__audit_uring_exit), exclude sees URINGOP (1336) */
static void test_audit_filter__io_uring(void **st)
{
	(void)st;
	struct sp_audit_ref *r;
	struct sp_audit_event *ev;
	struct sp_audit_decision d;
	struct tsupport_rule a;

	assert_int_equal(sp_audit_ref_new(NULL, &r), 0);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	tsupport_rule_init(&a, 7, 2);
	tsupport_rule_syscall(&a, 18);
	tsupport_rule_str(&a, 210, EQ, "u18");
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 1), 0);
	tsupport_rule_init(&a, 7, 2);
	tsupport_rule_syscall(&a, 19);
	tsupport_rule_field(&a, 11, EQ, SP_AUDIT_ARCH_X86_64);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 2), 0);
	tsupport_rule_init(&a, 4, 2);
	tsupport_rule_syscall(&a, -1);
	tsupport_rule_str(&a, 210, EQ, "exit-all");
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 3), 0);
	tsupport_rule_init(&a, 7, 2);
	tsupport_rule_field(&a, 106, EQ, 2);	/* perm on io_uring: refused */
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 4), -EINVAL);
	tsupport_rule_init(&a, 5, 0);
	tsupport_rule_field(&a, 12, EQ, 1336);
	assert_int_equal(sp_audit_ref_add(r, a.buf, a.len, 5), 0);

	sp_audit_event_set_kind(ev, SP_AUDIT_EV_URING);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 18);
	decide(r, ev, &d);
	assert_int_equal(d.record, 1);
	assert_string_equal(d.key, "u18");
	assert_int_equal(d.exit_rule, 1);
	assert_int_equal(d.excluded, 1);
	assert_int_equal(d.exclude_rule, 5);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 19);
	decide(r, ev, &d);
	assert_int_equal(d.record, 0);	/* arch is 0 in a worker's context */
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 20);
	decide(r, ev, &d);
	assert_int_equal(d.record, 0);	/* the exit list is not consulted */
	sp_audit_event_set_kind(ev, SP_AUDIT_EV_SYSCALL);
	decide(r, ev, &d);
	assert_int_equal(d.record, 1);
	assert_string_equal(d.key, "exit-all");
	assert_int_equal(d.excluded, 0);
	sp_audit_event_free(ev);
	sp_audit_ref_free(r);
}

static void test_audit_filter__unlabeled_identities(void **st)
{
	(void)st;
	const struct lsm_ctx *u = audit_lsm_unlabeled();
	assert_true(u->h_user == audit_hash_str(u->user));
	assert_true(u->h_role == audit_hash_str(u->role));
	assert_true(u->h_type == audit_hash_str(u->type));
	assert_string_equal(u->type, "unlabeled_t");
}

/* MLS category ranges set exactly the bits a..b (checked against a bit-by-bit model, word
 * boundaries included); out-of-range and reversed ranges are refused. */
static void test_audit_filter__category_ranges(void **st)
{
	(void)st;
	static const uint32_t edge[] = { 0, 1, 62, 63, 64, 65, 127, 128, 511, 512, 1000, 1022, 1023 };
	const size_t ne = sizeof(edge) / sizeof(edge[0]);
	char text[64];
	for (size_t i = 0; i < ne; i++)
		for (size_t j = i; j < ne; j++) {
			uint32_t a = edge[i], b = edge[j];
			struct lsm_level l, model;
			memset(&model, 0, sizeof(model));
			model.sens = 2;
			for (uint32_t c = a; c <= b; c++)
				model.cats[c / 64] |= 1ull << (c % 64);
			int n = snprintf(text, sizeof(text), "s2:c%u.c%u", a, b);
			assert_int_equal(audit_lsm_level_parse(&l, text, (size_t)n), 0);
			assert_int_equal(l.sens, 2);
			assert_memory_equal(l.cats, model.cats, sizeof(model.cats));
			if (a != b) {	/* and reversed: refused */
				n = snprintf(text, sizeof(text), "s2:c%u.c%u", b, a);
				assert_int_not_equal(audit_lsm_level_parse(&l, text, (size_t)n), 0);
			}
		}
	assert_int_not_equal(audit_lsm_level_parse(&(struct lsm_level){ 0 }, "s0:c0.c1024", 11), 0);
}

/* sp_audit_decision_check: each key's semantics, a mismatch is an error at its token's columns,
 * unreadable tokens are warnings (not counted), the "=>" and the start offset. */
static void test_audit_filter__decision_check(void **st)
{
	(void)st;
	struct sp_audit_decision d;
	struct sp_diags dg;
	audit_decision_init(&d);
	d.record = 1;
	d.exit = SP_AUDIT_ALWAYS;
	d.exit_rule = 7;
	d.fs_hidden = 5;
	audit_decision_set_key(&d, "a\001b", 3);
	sp_diags_init(&dg, NULL);
	const char *ok = "event sc=open => record=1 excluded=0 key=a\\x01b task=- exit=always user=- "
			 "rule=7 trule=- urule=- xrule=- hidden=0x5 ctx=active";
	size_t at = (size_t)(strstr(ok, "=>") - ok);
	assert_int_equal(sp_audit_decision_check(&d, ok, strlen(ok), at, "f", 3, &dg), 0);
	assert_int_equal(dg.n, 0);
	const char *bad = "=> record=0 key=- nokey rule=zz bogus=1\tctx=user";
	assert_int_equal(sp_audit_decision_check(&d, bad, strlen(bad), 0, "f", 3, &dg), 4);
	assert_int_equal(dg.nerrors, 4);
	assert_int_equal(dg.nwarnings, 2);
	assert_string_equal(dg.v[0].msg, "expected record=0");
	assert_int_equal(dg.v[0].line, 3);
	assert_int_equal(dg.v[0].col, 4);
	assert_int_equal(dg.v[0].end_col, 11);
	assert_string_equal(dg.v[1].msg, "expected key=-");
	assert_int_equal(dg.v[2].severity, SP_SEV_WARNING);	/* nokey: no '=' */
	assert_int_equal(dg.v[2].col, 19);
	assert_string_equal(dg.v[3].msg, "expected rule=zz");
	assert_int_equal(dg.v[4].severity, SP_SEV_WARNING);	/* bogus=1: unknown key */
	assert_string_equal(dg.v[5].msg, "expected ctx=user");
	assert_int_equal(dg.v[5].col, 41);
	/* bare expectations, no "=>"; a NULL diagnostics list; start past the end */
	assert_int_equal(sp_audit_decision_check(&d, "record=1 hidden=4", 17, 0, NULL, 0, NULL), 1);
	assert_int_equal(sp_audit_decision_check(&d, "record=1", 8, 9, NULL, 0, NULL), -EINVAL);
	sp_diags_release(&dg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_filter__classes_match_libaudit),
		cmocka_unit_test(test_audit_filter__storage),
		cmocka_unit_test(test_audit_filter__priorities_and_keys),
		cmocka_unit_test(test_audit_filter__key_lengths),
		cmocka_unit_test(test_audit_filter__guarded_rules),
		cmocka_unit_test(test_audit_filter__task_and_dummy),
		cmocka_unit_test(test_audit_filter__task_creds),
		cmocka_unit_test(test_audit_filter__golden_sets_load),
		cmocka_unit_test(test_audit_filter__unlabeled_identities),
		cmocka_unit_test(test_audit_filter__io_uring),
		cmocka_unit_test(test_audit_filter__category_ranges),
		cmocka_unit_test(test_audit_filter__decision_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
