/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_tools.c - audit field tools: syscall-frequency profiles, the cost model of the
 * kernel's exit-list walk (exact counts on small rule sets), lints, and optimize's individual
 * rewrites (merge across disjoint rules, no merge across an overlapping rule with another key,
 * shadowed rules dropped, hot `never` rules), each checked for equivalence.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secpath/audit_tools.h"

#define NR_READ 0
#define NR_OPENAT 257

static struct sp_audit_ruleset *parse(const char *text)
{
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_ruleset_parse(text, strlen(text), "t.rules", &po, &rs, &d), 0);
	assert_int_equal(d.nerrors, 0);
	sp_diags_release(&d);
	return rs;
}

static void test_audit_tools__mix_tsv(void **st)
{
	(void)st;
	static const char tsv[] = "# comment\nread\t100\t0\nopenat\t50\t10\npread64\t5\t0\nnosuch\t1\t0\n"
				  "read\t10\t1\n";
	struct sp_audit_mix *m = NULL;
	struct sp_audit_mix_entry e;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_mix_new(&m), 0);
	assert_int_equal(sp_audit_mix_parse_tsv(m, tsv, sizeof(tsv) - 1, "x86_64", "m.tsv", &d), 0);
	assert_int_equal(d.nerrors, 0);
	assert_int_equal(d.n, 1);	/* nosuch: a warning */
	assert_int_equal(sp_audit_mix_count(m), 3);
	assert_int_equal(sp_audit_mix_total(m), 165);
	assert_int_equal(sp_audit_mix_entry(m, 0, &e), 0);
	assert_int_equal(e.nr, NR_READ);
	assert_int_equal(e.calls, 110);
	assert_int_equal(e.errors, 1);
	assert_int_equal(sp_audit_mix_entry(m, 2, &e), 0);
	assert_int_equal(e.nr, 17);	/* pread64 is libaudit's pread */
	assert_int_equal(sp_audit_mix_entry(m, 3, &e), -ERANGE);
	static const char bad[] = "read\tmany\n";
	assert_int_equal(sp_audit_mix_parse_tsv(m, bad, sizeof(bad) - 1, NULL, "b.tsv", &d), -EINVAL);
	assert_true(d.nerrors >= 1);
	struct sp_audit_mix *blend = NULL;
	assert_int_equal(sp_audit_mix_new(&blend), 0);
	assert_int_equal(sp_audit_mix_add_scaled(blend, m, 1000), 0);
	uint64_t t = sp_audit_mix_total(blend);
	assert_true(t >= 998 && t <= 1002);
	sp_audit_mix_free(blend);
	sp_audit_mix_free(m);
	sp_diags_release(&d);
}

static struct sp_audit_mix *mix_of(uint32_t nr1, uint64_t c1, uint64_t e1, uint32_t nr2, uint64_t c2)
{
	struct sp_audit_mix *m = NULL;
	assert_int_equal(sp_audit_mix_new(&m), 0);
	assert_int_equal(sp_audit_mix_add(m, SP_AUDIT_ARCH_X86_64, (int32_t)nr1, c1, e1), 0);
	if (c2)
		assert_int_equal(sp_audit_mix_add(m, SP_AUDIT_ARCH_X86_64, (int32_t)nr2, c2, 0), 0);
	return m;
}

/* Exact walk counts: every rule costs a mask test; masked-in rules evaluate fields until one
 * is false; a rule whose fields all hold ends the walk. */
static void test_audit_tools__cost_walk(void **st)
{
	(void)st;
	struct sp_audit_ruleset *rs = parse(
		"-a always,exit -F arch=b64 -S openat -F exit=-EACCES -k denied\n"	/* 3 fields */
		"-a always,exit -F arch=b32 -S all -k b32\n"				/* 2 fields */
		"-w /etc/shadow -p wa -k shadow\n"					/* inode hash */
		"-a never,exit -F arch=b64 -S read\n");					/* 1 field */
	struct sp_audit_mix *m = mix_of(NR_READ, 100, 0, NR_OPENAT, 100);
	struct sp_audit_tools_opts o = { .sz = sizeof(o), .mix = m, .time_budget_ms = -1 };
	struct sp_audit_cost *c = NULL;
	assert_int_equal(sp_audit_cost_compute(rs, &o, &c), 0);
	assert_int_equal(c->exit_rules, 4);
	assert_int_equal(c->calls, 200);
	/* read: 3 rules examined; checks: b32 rule arch (1, false), never rule arch (1, true, match)
	 * openat (success): 3 rules; denied: arch true, exit=-13 false on success (2); b32: 1 */
	assert_true(fabs(c->rules_per_syscall - 3.0) < 1e-9);
	assert_true(fabs(c->checks_per_syscall - (2.0 + 3.0) / 2) < 1e-9);
	assert_int_equal(c->nlints, 0);
	/* the watch: one name per openat, one of 32 buckets */
	assert_int_equal(c->hash_rules, 1);
	assert_true(fabs(c->hash_per_syscall - 100.0 / 32 / 200) < 1e-9);
	sp_audit_cost_free(c);
	sp_audit_mix_free(m);

	/* failures: exit=-EACCES is unknown, so the rule is evaluated fully and assumed not to match */
	m = mix_of(NR_OPENAT, 10, 10, 0, 0);
	o.mix = m;
	assert_int_equal(sp_audit_cost_compute(rs, &o, &c), 0);
	assert_true(fabs(c->checks_per_syscall - 4.0) < 1e-9);	/* 3 + b32's arch; never: no mask */
	assert_true(fabs(c->rules_per_syscall - 3.0) < 1e-9);
	assert_int_equal(c->sys[0].nr, NR_OPENAT);
	sp_audit_cost_free(c);
	sp_audit_mix_free(m);
	sp_audit_ruleset_free(rs);
}

static int has_lint(const struct sp_audit_cost *c, enum sp_audit_lint_kind k, uint32_t line,
		    uint32_t other)
{
	for (size_t i = 0; i < c->nlints; i++)
		if (c->lints[i].kind == k && c->lints[i].line == line &&
		    (!other || c->lints[i].other_line == other))
			return 1;
	return 0;
}

static void test_audit_tools__lints(void **st)
{
	(void)st;
	struct sp_audit_ruleset *rs = parse(
		"-a always,exit -F arch=b64 -S openat -F exit<0 -k never\n"			/* 1 */
		"-a always,exit -F arch=b64 -S openat -F exit>=0 -k noop\n"			/* 2 */
		"-a always,exit -F arch=b64 -S open -F auid>=1000 -k a\n"			/* 3 */
		"-a always,exit -F arch=b64 -S open -F auid>1000 -F uid=0 -k b\n"		/* 4 */
		"-a always,exit -F arch=b64 -S open -F auid>=1000 -k a\n"			/* 5 */
		"-a always,exit -F arch=b64 -S open -F uid=-1 -k bad\n"				/* 6 */
		"-a always,exit -F arch=b64 -S open -F a0>5 -F a0<3 -k empty\n"			/* 7 */
		"-a always,exit -F arch=b32 -F arch=b64 -S all -k arches\n"			/* 8 */
		"-a always,exit -F arch=b64 -S open,creat -F auid>=1000 -F auid<=2000 -k a\n"	/* 9 */
		"-a always,exit -F arch=b64 -S chmod -F auid>=0 -F a1<=4294967295 -k z\n");	/* 10 */
	struct sp_audit_tools_opts o = { .sz = sizeof(o), .time_budget_ms = -1 };
	struct sp_audit_cost *c = NULL;
	assert_int_equal(sp_audit_cost_compute(rs, &o, &c), 0);
	assert_true(has_lint(c, SP_AUDIT_LINT_NEVER_MATCHES, 1, 0));
	assert_true(has_lint(c, SP_AUDIT_LINT_NOOP_FIELD, 2, 0));
	assert_false(has_lint(c, SP_AUDIT_LINT_NEVER_MATCHES, 2, 0));
	assert_true(has_lint(c, SP_AUDIT_LINT_SHADOWED, 4, 3));
	assert_true(has_lint(c, SP_AUDIT_LINT_REJECTED, 5, 0));	/* EEXIST */
	assert_true(has_lint(c, SP_AUDIT_LINT_REJECTED, 6, 0));	/* uid=-1: EINVAL */
	assert_true(has_lint(c, SP_AUDIT_LINT_NEVER_MATCHES, 7, 0));
	assert_true(has_lint(c, SP_AUDIT_LINT_NEVER_MATCHES, 8, 0));
	assert_false(has_lint(c, SP_AUDIT_LINT_SHADOWED, 9, 0));	/* creat is not in rule 3 */
	assert_false(has_lint(c, SP_AUDIT_LINT_SHADOWED, 3, 0));
	assert_true(has_lint(c, SP_AUDIT_LINT_NOOP_FIELD, 10, 0));
	assert_false(has_lint(c, SP_AUDIT_LINT_NOOP_FIELD, 9, 0));
	for (size_t i = 1; i < c->nlints; i++)
		assert_true(c->lints[i - 1].line <= c->lints[i].line);
	sp_audit_cost_free(c);
	sp_audit_ruleset_free(rs);
}

static struct sp_audit_optimize_result *optimize(const char *text, const struct sp_audit_mix *m,
						 unsigned flags)
{
	struct sp_audit_ruleset *rs = parse(text);
	struct sp_audit_tools_opts o = { .sz = sizeof(o), .mix = m, .flags = flags,
					 .diff_events = 3000, .time_budget_ms = -1 };
	struct sp_audit_optimize_result *res = NULL;
	assert_int_equal(sp_audit_optimize(rs, &o, &res), 0);
	if (!res->equivalent)
		fprintf(stderr, "%s\n%s\n", res->witness, res->text);
	assert_true(res->equivalent);
	assert_int_equal(res->symbolic, 1);
	sp_audit_ruleset_free(rs);
	return res;
}

static void test_audit_tools__optimize_merge(void **st)
{
	(void)st;
	/* b64 open and b64 openat merge across the b32 rule (disjoint by arch) */
	struct sp_audit_optimize_result *r = optimize(
		"-a always,exit -F arch=b64 -S open -F auid>=1000 -k f\n"
		"-a always,exit -F arch=b32 -S open -F auid>=1000 -k g\n"
		"-a always,exit -F arch=b64 -S openat -F auid>=1000 -k f\n", NULL, 0);
	assert_int_equal(r->rules_before, 3);
	assert_int_equal(r->rules_after, 2);
	assert_int_equal(r->merged, 1);
	assert_non_null(strstr(r->text, "-S open,openat"));
	assert_true(r->rules_walk_after < r->rules_walk_before);
	sp_audit_optimize_result_free(r);

	/* not across a rule that overlaps on openat with another key */
	r = optimize("-a always,exit -F arch=b64 -S open -k f\n"
		     "-a always,exit -F arch=b64 -S openat -F auid=1000 -k g\n"
		     "-a always,exit -F arch=b64 -S openat -k f\n", NULL, 0);
	assert_int_equal(r->rules_after, 3);
	assert_int_equal(r->merged, 0);
	sp_audit_optimize_result_free(r);

	/* shadowed and dead rules go; watches and other lists stay */
	r = optimize("-a never,exclude -F msgtype=CWD\n"
		     "-a always,exit -F arch=b64 -S ptrace -k tracing\n"
		     "-w /etc/passwd -p wa -k identity\n"
		     "-a always,exit -F arch=b64 -S ptrace -F a0=0x4 -k inject\n"
		     "-a always,exit -F arch=b64 -S openat -F exit<0 -k dead\n", NULL, 0);
	assert_int_equal(r->rules_before, 4);
	assert_int_equal(r->rules_after, 2);
	assert_int_equal(r->dropped_shadow, 2);
	assert_non_null(strstr(r->text, "msgtype"));
	assert_non_null(strstr(r->text, "/etc/passwd"));
	assert_null(strstr(r->text, "inject"));
	sp_audit_optimize_result_free(r);
}

static void test_audit_tools__optimize_hot_never(void **st)
{
	(void)st;
	struct sp_audit_mix *m = mix_of(NR_READ, 1000, 0, NR_OPENAT, 10);
	static const char rules[] = "-a always,exit -F arch=b64 -S openat -F auid>=1000 -k f\n"
				    "-a always,exit -F arch=b64 -S chmod -F auid>=1000 -k g\n"
				    "-a always,exit -F arch=b32 -S chmod -F auid>=1000 -k g\n"
				    "-w /etc/shadow -p wa -k shadow\n";
	struct sp_audit_optimize_result *r = optimize(rules, m, SP_AUDIT_TOOLS_HOT_NEVER);
	assert_int_equal(r->never_added, 1);
	assert_non_null(strstr(r->text, "-a never,exit -F arch=b64 -S read"));
	assert_true(r->rules_walk_after < r->rules_walk_before);
	sp_audit_optimize_result_free(r);
	/* the watch (perm wa) cannot match read(2); a -S all rule can: no never rule */
	r = optimize("-a always,exit -F arch=b64 -S all -F auid=5 -k all\n"
		     "-a always,exit -F arch=b64 -S chmod -F auid>=1000 -k g\n"
		     "-a always,exit -F arch=b32 -S chmod -F auid>=1000 -k g\n", m, SP_AUDIT_TOOLS_HOT_NEVER);
	assert_int_equal(r->never_added, 0);
	sp_audit_optimize_result_free(r);
	/* the strict check tells "never" from "no match": refused without the flag */
	struct sp_audit_ruleset *a = parse(rules);
	struct sp_audit_ruleset *b = parse("-a never,exit -F arch=b64 -S read\n"
					   "-a always,exit -F arch=b64 -S openat -F auid>=1000 -k f\n"
					   "-a always,exit -F arch=b64 -S chmod -F auid>=1000 -k g\n"
					   "-a always,exit -F arch=b32 -S chmod -F auid>=1000 -k g\n"
					   "-w /etc/shadow -p wa -k shadow\n");
	struct sp_audit_tools_opts o = { .sz = sizeof(o), .diff_events = 2000 };
	char w[1024];
	assert_int_equal(sp_audit_equiv_check(a, b, &o, NULL, w, sizeof(w)), 0);
	o.flags = SP_AUDIT_TOOLS_HOT_NEVER;
	assert_int_equal(sp_audit_equiv_check(a, b, &o, NULL, w, sizeof(w)), 1);
	sp_audit_ruleset_free(a);
	sp_audit_ruleset_free(b);

	/* a rule that surely matches the hot syscall moves ahead of rules disjoint from it */
	r = optimize("-a always,exit -F arch=b64 -S read -F uid=0 -k z\n"
		     "-a always,exit -F arch=b64 -S openat -F auid=5 -k x\n"
		     "-a always,exit -F arch=b32 -S read -k y\n"
		     "-a never,exit -F arch=b64 -S read\n", m, 0);
	assert_int_equal(r->moved, 1);	/* up to, not past, the overlapping uid=0 rule */
	assert_non_null(strstr(r->text, "-F key=z\n-a never,exit -F arch=b64 -S read\n"));
	assert_true(r->rules_walk_after < r->rules_walk_before);
	sp_audit_optimize_result_free(r);
	sp_audit_mix_free(m);
}

/* sp_audit_matcher_from_file: one call to a working matcher, every refusal positioned, nothing
 * half-loaded; the matcher outlives everything it was built from (ASan checks that). */
static void test_audit_tools__matcher_from_file(void **st)
{
	(void)st;
	char good[] = "/tmp/sp-mff-XXXXXX", bad[] = "/tmp/sp-mff-XXXXXX";
	int fd = mkstemp(good);
	assert_true(fd >= 0);
	const char rules[] = "-a always,exit -F arch=b64 -S kill -k k1\n-D\n"
			     "-a always,exit -F arch=b64 -S getpid -F auid>=1000 -k mine\n";
	assert_int_equal(write(fd, rules, sizeof(rules) - 1), (ssize_t)(sizeof(rules) - 1));
	close(fd);
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_matcher *m = NULL;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_matcher_from_file(good, &po, 0, &m, &d), 0);
	assert_int_equal(d.nerrors, 0);
	struct sp_audit_event *ev;
	struct sp_audit_decision dec;
	assert_int_equal(sp_audit_event_new(&ev), 0);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 39);	/* getpid */
	sp_audit_event_set_loginuid(ev, 1000);
	sp_audit_matcher_filter(m, ev, &dec);
	assert_true(dec.record);
	assert_string_equal(dec.key, "mine");
	sp_audit_event_reset(ev);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 62);	/* kill: before -D */
	sp_audit_matcher_filter(m, ev, &dec);
	assert_false(dec.record);
	sp_audit_event_free(ev);
	sp_audit_matcher_free(m);

	fd = mkstemp(bad);
	assert_true(fd >= 0);
	const char refused[] = "-a always,exit -F arch=b64 -S kill -k ok\n"
			       "-a always,exit -F arch=b64 -S openat -F uid=-1 -k x\n";
	assert_int_equal(write(fd, refused, sizeof(refused) - 1), (ssize_t)(sizeof(refused) - 1));
	close(fd);
	m = NULL;
	sp_diags_clear(&d);
	assert_int_equal(sp_audit_matcher_from_file(bad, &po, SP_AUDIT_LOAD_CONTINUE, &m, &d), -EINVAL);
	assert_null(m);
	assert_int_equal(d.nerrors, 1);
	assert_int_equal(d.v[0].line, 2);
	assert_int_equal(d.v[0].col, 41);
	assert_non_null(strstr(d.v[0].msg, "the kernel refuses this rule"));
	sp_diags_clear(&d);
	/* a dir= tree this host lacks: refused at load time (ENOENT), fatal unless CONTINUE */
	fd = open(bad, O_WRONLY | O_TRUNC);
	const char nodir[] = "-a always,exit -F arch=b64 -S kill -k ok\n"
			     "-a always,exit -F dir=/nonexistent/sp-mff -F perm=wa -k gone\n";
	assert_int_equal(write(fd, nodir, sizeof(nodir) - 1), (ssize_t)(sizeof(nodir) - 1));
	close(fd);
	assert_int_equal(sp_audit_matcher_from_file(bad, &po, 0, &m, &d), -EINVAL);
	assert_null(m);
	assert_int_equal(d.nerrors, 1);
	assert_int_equal(d.v[0].line, 2);
	assert_int_equal(d.v[0].code, -ENOENT);
	sp_diags_clear(&d);
	assert_int_equal(sp_audit_matcher_from_file(bad, &po, SP_AUDIT_LOAD_CONTINUE, &m, &d), 0);
	assert_int_equal(d.nerrors, 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].severity, SP_SEV_WARNING);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	sp_audit_event_set_syscall(ev, SP_AUDIT_ARCH_X86_64, 62);	/* kill: loaded */
	sp_audit_matcher_filter(m, ev, &dec);
	assert_true(dec.record);
	sp_audit_event_free(ev);
	sp_audit_matcher_free(m);
	m = NULL;
	unlink(good);
	unlink(bad);
	sp_diags_clear(&d);
	assert_int_equal(sp_audit_matcher_from_file(good, &po, 0, &m, &d), -ENOENT);
	assert_int_equal(d.nerrors, 1);
	assert_string_equal(d.v[0].file, good);
	assert_string_equal(sp_strerror(-ENOENT), "No such file or directory");
	sp_diags_release(&d);
}

/* sp_audit_fsview_add_host: the path and every ancestor that exists, with stat()'s identity */
static void test_audit_tools__fsview_add_host(void **st)
{
	(void)st;
	char dir[] = "/tmp/sp-fah-XXXXXX", file[64];
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/f", dir);
	int fd = open(file, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	struct sp_audit_fsview *fs;
	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	char missing[80];
	snprintf(missing, sizeof(missing), "%s/f/nope/", file);
	assert_int_equal(sp_audit_fsview_add_host(fs, missing), 0);
	struct stat sb;
	uint64_t ino;
	uint32_t dev, mode;
	assert_int_equal(stat(file, &sb), 0);
	assert_int_equal(sp_audit_fsview_lookup(fs, file, &ino, &dev, &mode), 0);
	assert_int_equal(ino, sb.st_ino);
	assert_true(S_ISREG(mode));
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sp_audit_fsview_lookup(fs, dir, &ino, &dev, &mode), 0);
	assert_int_equal(ino, sb.st_ino);
	assert_true(S_ISDIR(mode));
	assert_int_equal(sp_audit_fsview_lookup(fs, "/", &ino, &dev, &mode), 0);
	assert_int_equal(sp_audit_fsview_lookup(fs, "/tmp", &ino, &dev, &mode), 0);
	snprintf(missing, sizeof(missing), "%s/f/nope", file);
	assert_int_equal(sp_audit_fsview_lookup(fs, missing, &ino, &dev, &mode), -ENOENT);
	assert_int_equal(sp_audit_fsview_count(fs), 4);	/* /, /tmp, dir, file */
	assert_int_equal(sp_audit_fsview_add_host(fs, "relative"), -EINVAL);
	sp_audit_fsview_free(fs);
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_tools__mix_tsv),
		cmocka_unit_test(test_audit_tools__cost_walk),
		cmocka_unit_test(test_audit_tools__lints),
		cmocka_unit_test(test_audit_tools__optimize_merge),
		cmocka_unit_test(test_audit_tools__optimize_hot_never),
		cmocka_unit_test(test_audit_tools__matcher_from_file),
		cmocka_unit_test(test_audit_tools__fsview_add_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
