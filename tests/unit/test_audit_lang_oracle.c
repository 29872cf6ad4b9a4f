/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_lang_oracle.c - secpath's rule-language tables and field parsing against libaudit
 * 3.0.9 itself (linked into this test only).  libaudit needs the kernel only for its feature
 * query and uname(); this program answers both by defining audit_get_features() and
 * audit_detect_machine() (the dynamic linker binds libaudit's calls to them).
 *   - every syscall name/number of the x86_64 and i386 tables, both directions;
 *   - field, errno, record-type, file-type, machine names;
 *   - audit_rule_fieldpair_data / interfield_comp / syscallbyname vs secpath on a matrix of
 *     inputs x lists x feature bitmaps: same accept/reject, same field, op, value and string;
 *     a refusal has libaudit's return code and, word for word, the message auditctl prints for
 *     it (what audit_number_to_errmsg and libaudit's own audit_msg write to stderr), also at
 *     the 63-field cap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libaudit.h>

#include "secpath/audit.h"
#include "audit/lang/lang_int.h"

static uint32_t oracle_features = 0x7f;

/* libaudit's per-rule state (exported globals that auditctl resets for every line) */
extern int _audit_syscalladded, _audit_permadded, _audit_exeadded, _audit_filterfsadded,
	_audit_archadded;
extern unsigned int _audit_elf;

uint32_t audit_get_features(void);
uint32_t audit_get_features(void)
{
	return oracle_features;
}

int audit_detect_machine(void)
{
	return MACH_86_64;
}

/* The one vocabulary (src/audit/audit_int.h) is <linux/audit.h>'s, number for number, and the
 * rule-data layout is the kernel's struct audit_rule_data. */
static void test_oracle__vocabulary(void **st)
{
	(void)st;
	static const struct { int ours, theirs; } ids[] = {
		{ AF_PID, AUDIT_PID }, { AF_UID, AUDIT_UID }, { AF_EUID, AUDIT_EUID },
		{ AF_SUID, AUDIT_SUID }, { AF_FSUID, AUDIT_FSUID }, { AF_GID, AUDIT_GID },
		{ AF_EGID, AUDIT_EGID }, { AF_SGID, AUDIT_SGID }, { AF_FSGID, AUDIT_FSGID },
		{ AF_LOGINUID, AUDIT_LOGINUID }, { AF_PERS, AUDIT_PERS }, { AF_ARCH, AUDIT_ARCH },
		{ AF_MSGTYPE, AUDIT_MSGTYPE }, { AF_SUBJ_USER, AUDIT_SUBJ_USER },
		{ AF_SUBJ_ROLE, AUDIT_SUBJ_ROLE }, { AF_SUBJ_TYPE, AUDIT_SUBJ_TYPE },
		{ AF_SUBJ_SEN, AUDIT_SUBJ_SEN }, { AF_SUBJ_CLR, AUDIT_SUBJ_CLR },
		{ AF_PPID, AUDIT_PPID }, { AF_OBJ_USER, AUDIT_OBJ_USER },
		{ AF_OBJ_ROLE, AUDIT_OBJ_ROLE }, { AF_OBJ_TYPE, AUDIT_OBJ_TYPE },
		{ AF_OBJ_LEV_LOW, AUDIT_OBJ_LEV_LOW }, { AF_OBJ_LEV_HIGH, AUDIT_OBJ_LEV_HIGH },
		{ AF_LOGINUID_SET, AUDIT_LOGINUID_SET }, { AF_SESSIONID, AUDIT_SESSIONID },
		{ AF_FSTYPE, AUDIT_FSTYPE }, { AF_DEVMAJOR, AUDIT_DEVMAJOR },
		{ AF_DEVMINOR, AUDIT_DEVMINOR }, { AF_INODE, AUDIT_INODE }, { AF_EXIT, AUDIT_EXIT },
		{ AF_SUCCESS, AUDIT_SUCCESS }, { AF_WATCH, AUDIT_WATCH }, { AF_PERM, AUDIT_PERM },
		{ AF_DIR, AUDIT_DIR }, { AF_FILETYPE, AUDIT_FILETYPE }, { AF_OBJ_UID, AUDIT_OBJ_UID },
		{ AF_OBJ_GID, AUDIT_OBJ_GID }, { AF_FIELD_COMPARE, AUDIT_FIELD_COMPARE },
		{ AF_EXE, AUDIT_EXE }, { AF_SADDR_FAM, AUDIT_SADDR_FAM }, { AF_ARG0, AUDIT_ARG0 },
		{ AF_ARG1, AUDIT_ARG1 }, { AF_ARG2, AUDIT_ARG2 }, { AF_ARG3, AUDIT_ARG3 },
		{ AF_FILTERKEY, AUDIT_FILTERKEY },
		{ AL_USER, AUDIT_FILTER_USER }, { AL_TASK, AUDIT_FILTER_TASK },
		{ AL_ENTRY, AUDIT_FILTER_ENTRY }, { AL_WATCH, AUDIT_FILTER_WATCH },
		{ AL_EXIT, AUDIT_FILTER_EXIT }, { AL_EXCLUDE, AUDIT_FILTER_EXCLUDE },
		{ AL_FS, AUDIT_FILTER_FS }, { AL_URING, AUDIT_FILTER_URING_EXIT },
		{ AL_NR, AUDIT_NR_FILTERS }, { AL_PREPEND, AUDIT_FILTER_PREPEND },
		{ AA_NEVER, AUDIT_NEVER }, { AA_POSSIBLE, AUDIT_POSSIBLE }, { AA_ALWAYS, AUDIT_ALWAYS },
		{ ARD_MAX_FIELDS, AUDIT_MAX_FIELDS }, { ARD_MASK_WORDS, AUDIT_BITMASK_SIZE },
		{ ARD_MAX_FIELD_COMPARE, AUDIT_MAX_FIELD_COMPARE },
		{ (int)ARD_HDR, (int)sizeof(struct audit_rule_data) },
		{ (int)ARD_OFF_FIELDS, (int)offsetof(struct audit_rule_data, fields) },
		{ (int)ARD_OFF_VALUES, (int)offsetof(struct audit_rule_data, values) },
		{ (int)ARD_OFF_FIELDFLAGS, (int)offsetof(struct audit_rule_data, fieldflags) },
		{ (int)ARD_OFF_BUFLEN, (int)offsetof(struct audit_rule_data, buflen) },
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (ids[i].ours != ids[i].theirs)
			fail_msg("vocabulary entry %zu: %d, <linux/audit.h> %d", i, ids[i].ours,
				 ids[i].theirs);
	}
}

static void test_oracle__syscall_tables(void **st)
{
	(void)st;
	static const struct { int mach; const char *name; size_t want; } m[] = {
		{ MACH_86_64, "x86_64", 362 }, { MACH_X86, "i386", 441 }, { MACH_AARCH64, "aarch64", 306 },
	};
	for (size_t k = 0; k < 3; k++) {
		size_t names = 0;
		for (int nr = 0; nr < 2048; nr++) {
			const char *a = audit_syscall_to_name(nr, m[k].mach);
			const char *b = sp_audit_syscall_name(m[k].name, nr);
			if (!a) {
				assert_null(b);
				continue;
			}
			assert_non_null(b);
			assert_string_equal(a, b);
			names++;
			assert_int_equal(sp_audit_syscall_lookup(m[k].name, a), audit_name_to_syscall(a, m[k].mach));
			/* case-insensitive like libaudit */
			char up[64];
			snprintf(up, sizeof(up), "%s", a);
			for (char *p = up; *p; p++)
				*p = (char)toupper((unsigned char)*p);
			assert_int_equal(sp_audit_syscall_lookup(m[k].name, up),
					 audit_name_to_syscall(up, m[k].mach));
		}
		/* every name in our table maps to libaudit's number too (aliases like madvise1) */
		size_t n;
		const struct audit_sc_ent *t = audit_sc_table(audit_mach_from_name(m[k].name), &n);
		assert_int_equal(n, m[k].want);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(audit_name_to_syscall(t[i].name, m[k].mach), t[i].nr);
		print_message("%s: %zu numbers, %zu names agree with libaudit\n", m[k].name, names, n);
	}
	assert_int_equal(sp_audit_syscall_lookup("x86_64", "nosuchcall"), -ENOENT);
	assert_int_equal(sp_audit_syscall_lookup("sparc", "open"), -EINVAL);
}

static void test_oracle__name_tables(void **st)
{
	(void)st;
	for (int id = 0; id < 300; id++) {
		const char *a = audit_field_to_name(id);
		if (id == AF_LOGINUID_SET)
			continue;	/* kernel-only field: libaudit has no name, we print "loginuid_set" */
		const char *b = sp_audit_field_name((uint32_t)id);
		if (!a)
			assert_null(b);
		else
			assert_string_equal(a, b);
		if (a)
			assert_int_equal(sp_audit_field_lookup(a), audit_name_to_field(a));
	}
	assert_int_equal(sp_audit_field_lookup("loginuid"), audit_name_to_field("loginuid"));
	assert_int_equal(sp_audit_field_lookup("AUID"), audit_name_to_field("AUID"));
	size_t ne = 0, nm = 0;
	for (int e = 0; e < 300; e++) {
		const char *a = audit_errno_to_name(e), *b = sp_audit_errno_name(e);
		if (!a) {
			assert_null(b);
			continue;
		}
		assert_string_equal(a, b);
		int v;
		assert_int_equal(sp_audit_errno_lookup(a, &v), 0);
		assert_int_equal(v, audit_name_to_errno(a));
		ne++;
	}
	for (size_t i = 0; i < audit_errno_tab_n; i++) {
		int v;
		assert_int_equal(sp_audit_errno_lookup(audit_errno_tab[i].name, &v), 0);
		assert_int_equal(v, audit_name_to_errno(audit_errno_tab[i].name));
	}
	for (int t = 0; t < 20000; t++) {
		const char *a = audit_msg_type_to_name(t), *b = sp_audit_msgtype_name((uint32_t)t);
		if (!a) {
			assert_null(b);
			continue;
		}
		assert_string_equal(a, b);
		assert_int_equal(sp_audit_msgtype_lookup(a), audit_name_to_msg_type(a));
		nm++;
	}
	assert_int_equal(nm, 195);
	for (int ft = 0; ft < 0200000; ft += 010000) {
		const char *a = audit_ftype_to_name(ft), *b = audit_ftype_name((uint32_t)ft);
		if (!a)
			assert_null(b);
		else
			assert_string_equal(a, b);
	}
	static const char *const machines[] = { "i386", "i486", "i586", "i686", "x86_64", "ppc64",
						"ppc64le", "ppc", "s390x", "s390", "aarch64", "armv8l",
						"arm", "armeb", "armv7l", "sparc", "X86_64" };
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		int lm = audit_name_to_machine(machines[i]);
		uint32_t arch = 0;
		int rc = sp_audit_arch_lookup("x86_64", machines[i], &arch);
		if (lm < 0) {
			assert_int_not_equal(rc, 0);
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(arch, audit_machine_to_elf(lm));
		}
	}
	print_message("errno names: %zu numbers; record types: %zu\n", ne, nm);
}

static const struct audit_pctx oracle_pc = { .host_mach = AUDIT_MACH_X86_64, .features = 0x7f };

/* libaudit's stderr is captured into a temporary file while it parses and explains a refusal. */
static FILE *cap_file;
static int cap_saved_fd = -1;

static void capture_begin(void)
{
	if (!cap_file)
		cap_file = tmpfile();
	assert_non_null(cap_file);
	fflush(stderr);
	assert_int_equal(ftruncate(fileno(cap_file), 0), 0);
	assert_int_equal(lseek(fileno(cap_file), 0, SEEK_SET), 0);
	cap_saved_fd = dup(2);
	assert_true(cap_saved_fd >= 0);
	assert_int_equal(dup2(fileno(cap_file), 2), 2);
}

static void capture_end(char *buf, size_t len)
{
	fflush(stderr);
	assert_int_equal(dup2(cap_saved_fd, 2), 2);
	close(cap_saved_fd);
	ssize_t n = pread(fileno(cap_file), buf, len - 1, 0);
	buf[n > 0 ? n : 0] = 0;
}

/* Secpath's code as libaudit returns it: an unknown user or group is libaudit's -38 (its own
 * message already printed). */
static int libaudit_rc(int src)
{
	return src == AUDIT_RC_NOUSER || src == AUDIT_RC_NOGROUP ? -38 : src;
}

/* A refusal: the same code, and secpath's message is what auditctl prints (libaudit's stderr
 * during the parse - `said` - and then audit_number_to_errmsg(code, the cut text)). */
static int same_refusal(const char *pair, int lrc, const char *ltext, const char *said,
			const struct audit_lstate *ls, int src, const char *stext)
{
	char theirs[1024], ours[1024];
	capture_begin();
	audit_number_to_errmsg(lrc, ltext);
	capture_end(theirs, sizeof(theirs));
	char m[SP_DIAG_MSG_MAX];
	audit_fieldpair_msg(ls, src, stext, m, sizeof(m));
	snprintf(ours, sizeof(ours), "%s\n", m);
	char both[2048];
	snprintf(both, sizeof(both), "%s%s", said, theirs);
	if (lrc == libaudit_rc(src) && !strcmp(both, ours))
		return 1;
	print_message("'%s': libaudit rc %d says '%s', secpath rc %d says '%s'\n", pair, lrc, both,
		      src, ours);
	return 0;
}

/* Run one "-F" text through both implementations on list `flags`; compare everything. */
static int compare_pair(const char *pair, int flags, uint32_t features, int syscall_added)
{
	oracle_features = features;
	struct audit_pctx pc = oracle_pc;
	pc.features = features;
	struct audit_rule_data *lr = audit_rule_create_data();
	char a[512], b[512];
	snprintf(a, sizeof(a), "%s", pair);
	snprintf(b, sizeof(b), "%s", pair);
	_audit_syscalladded = syscall_added;
	_audit_permadded = _audit_exeadded = _audit_filterfsadded = _audit_archadded = 0;
	_audit_elf = 0;
	if (syscall_added)
		audit_rule_syscallbyname_data(lr, "open");
	char said[512];
	capture_begin();
	int lrc = audit_rule_fieldpair_data(&lr, a, flags);
	capture_end(said, sizeof(said));
	struct audit_lstate ls;
	memset(&ls, 0, sizeof(ls));
	audit_rb_init(&ls.rb, NULL);
	ls.pc = &pc;
	ls.syscall_added = syscall_added;
	int src = audit_fieldpair(&ls, b, flags);
	int agree = (lrc == 0) == (src == 0);
	if (agree && lrc) {
		agree = same_refusal(pair, lrc, a, said, &ls, src, b);
	} else if (agree) {
		agree = lr->field_count == 1 && ls.rb.field_count == 1 && lr->fields[0] == ls.rb.fields[0] &&
			lr->values[0] == ls.rb.values[0] && lr->fieldflags[0] == ls.rb.fieldflags[0] &&
			lr->buflen == ls.rb.buflen &&
			(!lr->buflen || !memcmp(lr->buf, ls.rb.buf, lr->buflen));
	}
	if (!agree)
		print_message("'%s' list %d features 0x%x: libaudit rc %d value %u, secpath rc %d value %u\n",
			      pair, flags, features, lrc, lr->values[0], src, ls.rb.values[0]);
	audit_rb_release(&ls.rb);
	audit_rule_free_data(lr);
	return agree;
}

static void test_oracle__fieldpair_matrix(void **st)
{
	(void)st;
	static const char *const fields[] = {
		"pid", "uid", "euid", "suid", "fsuid", "gid", "egid", "sgid", "fsgid", "auid",
		"loginuid", "pers", "arch", "msgtype", "subj_user", "subj_role", "subj_type",
		"subj_sen", "subj_clr", "ppid", "obj_user", "obj_role", "obj_type", "obj_lev_low",
		"obj_lev_high", "sessionid", "fstype", "devmajor", "devminor", "inode", "exit",
		"success", "path", "perm", "dir", "filetype", "obj_uid", "obj_gid", "exe",
		"saddr_fam", "a0", "a1", "a2", "a3", "key", "UID", "Exit", "nosuch",
	};
	static const char *const ops[] = { "=", "!=", ">", "<", ">=", "<=", "&", "&=" };
	static const char *const values[] = {
		"0", "1", "42", "-1", "-13", "0x10", "010", "4294967295", "4294967296", "root",
		"daemon", "nosuchuser", "unset", "b64", "b32", "x86_64", "i686", "aarch64", "0xc000003e",
		"0x12345", "EPERM", "-EACCES", "eacces", "ENOSUCH", "SYSCALL", "cwd", "user_login",
		"file", "dir", "socket", "FIFO", "tracefs", "debugfs", "rw", "rwxa", "rwxaa", "q",
		"UNKNOWN[1300]", "unknown[5]", "UNKNOWN[abc]", "UNKNOWN[12", "UNKNOWN[-5]",
		"UNKNOWN[12345678]", "UNKNOWN[ 7]x",
		"/etc/passwd", "abc", "45", "46", "3abc",
	};
	static const int lists[] = { AL_USER, AL_TASK, AL_EXIT, AL_EXCLUDE, AL_FS };
	static const uint32_t feats[] = { 0x7f, 0x0 };
	size_t n = 0, ok = 0;
	set_aumessage_mode(MSG_STDERR, DBG_NO);	/* as auditctl: libaudit's own messages shown */
	char pair[256];
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
			for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
				for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
					for (size_t ft = 0; ft < 2; ft++) {
						if (ft && l != 0 && l != 3 && f % 3)
							continue;	/* keep it quick */
						snprintf(pair, sizeof(pair), "%s%s%s", fields[f], ops[o],
							 values[v]);
						ok += (size_t)compare_pair(pair, lists[l], feats[ft], (int)(v & 1));
						n++;
					}
	/* malformed shapes */
	static const char *const odd[] = { "uid", "=0", "uid=", "path=/a!=b", "a0=1=2", "key=",
					   "arch=b64=", "perm=", "exit=-", "uid=-", "x&=y" };
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		for (size_t l = 0; l < 5; l++) {
			ok += (size_t)compare_pair(odd[i], lists[l], 0x7f, 1);
			n++;
		}
	set_aumessage_mode(MSG_QUIET, DBG_NO);
	print_message("fieldpair: %zu/%zu inputs agree with libaudit\n", ok, n);
	assert_int_equal(ok, n);
}

/* One "-C" text through both on list `flags`: the same verdict, field and value, or the same
 * refusal and message. */
static int compare_cmp(const char *pair, int flags)
{
	char a[64], b[64];
	snprintf(a, sizeof(a), "%s", pair);
	memcpy(b, a, sizeof(a));
	struct audit_rule_data *lr = audit_rule_create_data();
	int lrc = audit_rule_interfield_comp_data(&lr, a, flags);
	struct audit_lstate ls;
	memset(&ls, 0, sizeof(ls));
	audit_rb_init(&ls.rb, NULL);
	ls.pc = &oracle_pc;
	int src = audit_fieldcmp(&ls, b, flags);
	int agree = (lrc == 0) == (src == 0);
	if (agree && lrc)
		agree = same_refusal(pair, lrc, a, "", &ls, src, b);
	else if (agree)
		agree = lr->fields[0] == ls.rb.fields[0] && lr->values[0] == ls.rb.values[0] &&
			lr->fieldflags[0] == ls.rb.fieldflags[0];
	if (!agree)
		print_message("-C '%s' list %d: libaudit rc %d, secpath rc %d\n", pair, flags, lrc, src);
	audit_rule_free_data(lr);
	audit_rb_release(&ls.rb);
	return agree;
}

static void test_oracle__compare_and_syscalls(void **st)
{
	(void)st;
	static const char *const f[] = { "uid", "euid", "suid", "fsuid", "auid", "obj_uid", "gid",
					 "egid", "sgid", "fsgid", "obj_gid", "pid", "loginuid" };
	size_t n = 0;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++)
			for (int op = 0; op < 2; op++)
				for (int list = 0; list < 6; list += 4) {
					char a[64];
					snprintf(a, sizeof(a), "%s%s%s", f[i], op ? "!=" : "=", f[j]);
					assert_true(compare_cmp(a, list));
					n++;
				}
	/* malformed shapes: other operators, a missing side, unknown names */
	static const char *const odd[] = { "uid<euid", "uid>euid", "uid>=euid", "uid&euid", "uid",
					   "=euid", "uid=", "!=euid", "uid!=", "nosuch=uid",
					   "uid=nosuch", "uid==euid" };
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		for (int list = 0; list < 6; list += 4) {
			assert_true(compare_cmp(odd[i], list));
			n++;
		}
	static const char *const sc[] = { "all", "ALL", "open", "OPEN", "openat", "0x3", "010",
					  "-1", "2047", "2048", "2016", "9999", "3abc", "", "pread",
					  "pread64", "madvise1", "sys_kexec_load" };
	for (size_t i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		struct audit_rule_data *lr = audit_rule_create_data();
		int lrc = audit_rule_syscallbyname_data(lr, sc[i]);
		struct audit_lstate ls;
		memset(&ls, 0, sizeof(ls));
		ls.pc = &oracle_pc;
		uint32_t mask[64] = { 0 };
		int src = audit_syscall_add(&ls, mask, sc[i]);
		assert_int_equal(lrc == 0, src == 0);
		assert_memory_equal(lr->mask, mask, sizeof(mask));
		audit_rule_free_data(lr);
		n++;
	}
	print_message("comparisons and syscall tokens: %zu agree with libaudit\n", n);
}

/* A 64th field: "-F uid=63" and "-C uid=euid" on a rule that holds 63 already. */
static void test_oracle__field_cap(void **st)
{
	(void)st;
	static const char *const last[] = { "uid=63", "uid=euid" };
	for (int cmp = 0; cmp < 2; cmp++) {
		struct audit_rule_data *lr = audit_rule_create_data();
		struct audit_lstate ls;
		memset(&ls, 0, sizeof(ls));
		audit_rb_init(&ls.rb, NULL);
		ls.pc = &oracle_pc;
		char a[32], b[32];
		for (int i = 0; i < 63; i++) {
			snprintf(a, sizeof(a), "uid=%d", i);
			memcpy(b, a, sizeof(a));
			assert_int_equal(audit_rule_fieldpair_data(&lr, a, AL_EXIT), 0);
			assert_int_equal(audit_fieldpair(&ls, b, AL_EXIT), 0);
		}
		snprintf(a, sizeof(a), "%s", last[cmp]);
		memcpy(b, a, sizeof(a));
		int lrc = cmp ? audit_rule_interfield_comp_data(&lr, a, AL_EXIT)
			      : audit_rule_fieldpair_data(&lr, a, AL_EXIT);
		int src = cmp ? audit_fieldcmp(&ls, b, AL_EXIT) : audit_fieldpair(&ls, b, AL_EXIT);
		assert_int_equal(lrc, -28);
		assert_true(same_refusal(last[cmp], lrc, a, "", &ls, src, b));
		char m[SP_DIAG_MSG_MAX];
		audit_fieldpair_msg(&ls, src, b, m, sizeof(m));
		if (!cmp)
			assert_string_equal(m, "Too many fields in rule: uid=63");
		audit_rule_free_data(lr);
		audit_rb_release(&ls.rb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle__vocabulary),
		cmocka_unit_test(test_oracle__syscall_tables),
		cmocka_unit_test(test_oracle__name_tables),
		cmocka_unit_test(test_oracle__fieldpair_matrix),
		cmocka_unit_test(test_oracle__compare_and_syscalls),
		cmocka_unit_test(test_oracle__field_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
