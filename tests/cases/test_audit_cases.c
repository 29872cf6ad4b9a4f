/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_cases.c - table-driven cases for the audit filter engines.
 *
 * Every tests/cases/audit/NAME.rules (auditctl text) has a NAME.events table written from the
 * kernel source (kernel/auditsc.c, kernel/auditfilter.c) for one group of fields, operators or
 * traps (docs: audit.md §3, §6).  Lines of NAME.events:
 *
 *   fs PATH ino=N dev=MA:MI mode=file|dir|chr|0NNN      the file-system view at load time
 *   load LINE ERRNO                                     the ADD on LINE must fail (EINVAL...)
 *   event TOKENS... => EXPECT...                        one event and its expected decision
 *
 * Event tokens: kind=syscall|uring|user arch=b64|b32|N sc=NAME|N a0..a3=N ret=N|none pid= tid=
 * ppid= uid= euid= suid= fsuid= gid= egid= sgid= fsgid= ids=N (all eight) auid= ses= pers=
 * groups=a,b subj=CTX exe=PATH saddr=N msgtype=NAME|N o2flags=N auditd=1, then names:
 * path=P (identity from fs) or rawname=INO:MA:MI, followed by attributes of the last name:
 * mode= ouid= ogid= rdev=MA:MI obj=CTX magic=tracefs|debugfs|N.
 * Expectations: record= excluded= key=STR|- task= exit= user= (-|never|always) rule=LINE
 * (deciding exit rule) trule= urule= xrule= ctx=active|none|dummy|auditd|user hidden=N.
 *
 * Rules are parsed with sp_audit_ruleset_parse (machine x86_64, env from data/audit/env),
 * rule ids are source lines; each row is checked on the reference and the compiled engine, and
 * every rule line is also built by the test's own libaudit-based builder: the bytes must match
 * (text -> blob round trip).
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
#include <libaudit.h>

#include "secpath/audit.h"
#include "../support/audit_golden.h"
#include "../support/files.h"

#define CASEDIR "tests/cases/audit"

struct casectx {
	const char *name;
	struct sp_audit_fsview *fs;
	struct sp_audit_ref *ref;
	struct sp_audit_matcher *m;
	struct sp_audit_event *ev;
	int nrows, failures;
};

/* Decide c->ev with both engines and check they agree and match the row's expectations
 * (line[used, len): sp_audit_decision_check, the checker of `secpath audit filter`); here every
 * expectation must also be readable (a warning fails the case). */
static void check_row(struct casectx *c, const char *line, size_t len, size_t used, int lineno)
{
	struct sp_audit_decision d, d2;
	struct sp_diags ed;
	char a[600], b[600];
	sp_audit_ref_filter(c->ref, c->ev, &d);
	sp_audit_matcher_filter(c->m, c->ev, &d2);
	sp_audit_decision_format(&d, a, sizeof(a));
	if (!sp_audit_decision_equal(&d, &d2)) {
		sp_audit_decision_format(&d2, b, sizeof(b));
		print_error("%s.events:%d: engines disagree\n  ref      %s\n  compiled %s\n", c->name, lineno, a, b);
		c->failures++;
		return;
	}
	sp_diags_init(&ed, NULL);
	int bad = sp_audit_decision_check(&d, line, len, used, c->name, (uint32_t)lineno, &ed);
	assert_true(bad >= 0);
	for (size_t i = 0; i < ed.n; i++) {
		if (ed.v[i].severity != SP_SEV_ERROR)
			fail_msg("%s.events:%d:%u: %s", c->name, lineno, ed.v[i].col, ed.v[i].msg);
		print_error("%s.events:%d:%u: %s, got %s\n", c->name, lineno, ed.v[i].col, ed.v[i].msg, a);
	}
	sp_diags_release(&ed);
	c->failures += bad > 0;
	c->nrows++;
}

/* Pass 1 over the events: the fs lines into c->fs, the load lines into expect_fail[line]. */
static void read_fs_and_loads(struct casectx *c, const char *events, int expect_fail[4096])
{
	char *save = NULL, *copy = strdup(events);
	int lineno = 0;
	for (char *line = copy, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		lineno++;
		char *tok[8];
		int n = 0;
		for (char *t = strtok_r(line, " \t", &save); t && n < 8; t = strtok_r(NULL, " \t", &save))
			tok[n++] = t;
		if (n >= 2 && !strcmp(tok[0], "fs")) {
			/* the library's reader (src/audit/filter/event_text.c), as `secpath audit filter` */
			const char *raw = events + (line - copy);
			size_t rl = strcspn(raw, "\n");
			struct sp_diags fd;
			sp_diags_init(&fd, NULL);
			if (sp_audit_fsview_parse_line(c->fs, raw, rl, c->name, (uint32_t)lineno, &fd))
				fail_msg("%s.events:%d: %s", c->name, lineno, fd.n ? fd.v[0].msg : "fs line refused");
			sp_diags_release(&fd);
		} else if (n >= 3 && !strcmp(tok[0], "load")) {
			int l = atoi(tok[1]);
			assert_true(l > 0 && l < 4096);
			expect_fail[l] = !strcmp(tok[2], "EINVAL") ? -EINVAL : !strcmp(tok[2], "ENOENT") ? -ENOENT
					 : !strcmp(tok[2], "EEXIST") ? -EEXIST : -1;
		}
	}
	free(copy);
}

/* Round trip: the test's own libaudit-based builder must produce the item's bytes from its line. */
static void check_roundtrip(const char *name, const struct sp_audit_item *it, char **lines,
			    int *roundtrip_checked, int *roundtrip_bad)
{
	struct tsupport_rule tr;
	int del;
	char emsg[200];
	if (it->line >= 4096 || !lines[it->line] ||
	    tsupport_text_rule(lines[it->line], &tr, &del, emsg, sizeof(emsg)))
		return;
	(*roundtrip_checked)++;
	if (tr.len != it->blob_len || memcmp(tr.buf, it->blob, tr.len)) {
		(*roundtrip_bad)++;
		print_error("%s.rules:%u: parser and test builder bytes differ\n", name, it->line);
	}
}

/* The rules: parser items applied to the reference engine (ids = lines, each load's result as the
 * events file's load lines expect), each also built by the test's builder. */
static void load_rules(struct casectx *c, const char *rules, size_t rlen, const char *path,
		       const int expect_fail[4096], int *roundtrip_checked, int *roundtrip_bad)
{
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	struct sp_audit_engine_opts o = { .sz = sizeof(o), .fs = c->fs };
	struct sp_audit_parse_opts po = {
		.sz = sizeof(po), .machine = "x86_64", .passwd_file = "data/audit/env/passwd",
		.group_file = "data/audit/env/group", .dirs_file = "data/audit/env/dirs",
	};
	assert_int_equal(sp_audit_ref_new(&o, &c->ref), 0);
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_ruleset_parse(rules, rlen, path, &po, &rs, &d), 0);
	if (d.nerrors) {
		char buf[512];
		for (size_t i = 0; i < d.n; i++) {
			sp_diag_format(&d.v[i], NULL, buf, sizeof(buf));
			print_error("%s.rules: %s", c->name, buf);
		}
		fail_msg("%s.rules: the parser rejected %zu lines", c->name, d.nerrors);
	}
	char *rcopy = strdup(rules);
	char **lines = calloc(4096, sizeof(char *));
	int lineno = 0;
	for (char *line = rcopy, *nl; line && lineno < 4095; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		lines[++lineno] = line;
	}
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		assert_int_equal(sp_audit_ruleset_item(rs, i, &it), 0);
		if (it.kind == SP_AUDIT_ITEM_CTRL)
			continue;
		int err = it.kind == SP_AUDIT_ITEM_DEL ? sp_audit_ref_del(c->ref, it.blob, it.blob_len)
						       : sp_audit_ref_add(c->ref, it.blob, it.blob_len, it.line);
		int want = it.line < 4096 ? expect_fail[it.line] : 0;
		if (err != want && !(want == -1 && err))
			fail_msg("%s.rules:%u: load returned %d, expected %d", c->name, it.line, err, want);
		check_roundtrip(c->name, &it, lines, roundtrip_checked, roundtrip_bad);
	}
	free(lines);
	free(rcopy);
	sp_diags_release(&d);
	sp_audit_ruleset_free(rs);
}

/* Pass 2 over the events: every event line through the library's reader, decided and checked. */
static void check_events(struct casectx *c, const char *events)
{
	char *copy = strdup(events);
	int lineno = 0;
	for (char *line = copy, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		lineno++;
		const char *lead = line + strspn(line, " \t\r");
		if (strncmp(lead, "event", 5) || (lead[5] && !strchr(" \t\r", lead[5])))
			continue;
		/* the event, then its expectations after "=>" (check_row) */
		size_t used = 0;
		struct sp_diags ed;
		sp_diags_init(&ed, NULL);
		if (sp_audit_event_parse(c->ev, c->fs, "x86_64", line, strlen(line), c->name, (uint32_t)lineno,
					 &ed, &used))
			fail_msg("%s.events:%d: %s", c->name, lineno, ed.n ? ed.v[0].msg : "event refused");
		sp_diags_release(&ed);
		const char *arrow = line + used + strspn(line + used, " \t\r");
		if (strncmp(arrow, "=>", 2) || (arrow[2] && !strchr(" \t\r", arrow[2])))
			fail_msg("%s.events:%d: no '=>'", c->name, lineno);
		check_row(c, line, strlen(line), used, lineno);
	}
	free(copy);
}

/* Run one case; returns the number of rows checked. */
static int run_case(const char *name, int *roundtrip_checked, int *roundtrip_bad)
{
	char rpath[512], epath[512], *rules, *events;
	size_t rlen;
	struct casectx c = { .name = name };
	int expect_fail[4096] = { 0 };

	snprintf(rpath, sizeof(rpath), CASEDIR "/%s.rules", name);
	rules = tsupport_slurp(rpath, &rlen);
	assert_non_null(rules);
	snprintf(epath, sizeof(epath), CASEDIR "/%s.events", name);
	events = tsupport_slurp(epath, NULL);
	assert_non_null(events);
	assert_int_equal(sp_audit_fsview_new(&c.fs), 0);
	assert_int_equal(sp_audit_event_new(&c.ev), 0);
	read_fs_and_loads(&c, events, expect_fail);
	load_rules(&c, rules, rlen, rpath, expect_fail, roundtrip_checked, roundtrip_bad);
	assert_int_equal(sp_audit_matcher_compile(c.ref, &c.m), 0);
	check_events(&c, events);
	sp_audit_matcher_free(c.m);
	sp_audit_ref_free(c.ref);
	sp_audit_event_free(c.ev);
	sp_audit_fsview_free(c.fs);
	free(rules);
	free(events);
	if (c.failures)
		fail_msg("%s: %d of %d rows failed", name, c.failures, c.nrows);
	return c.nrows;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_audit_cases__tables(void **st)
{
	(void)st;
	DIR *dir = opendir(CASEDIR);
	struct dirent *de;
	char *names[256];
	int n = 0, rows = 0, rt = 0, rtbad = 0;
	assert_non_null(dir);
	while ((de = readdir(dir)) && n < 256) {
		size_t l = strlen(de->d_name);
		if (l > 6 && !strcmp(de->d_name + l - 6, ".rules"))
			names[n++] = strndup(de->d_name, l - 6);
	}
	closedir(dir);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	for (int i = 0; i < n; i++) {
		int r = run_case(names[i], &rt, &rtbad);
		print_message("%-24s %3d rows ok\n", names[i], r);
		rows += r;
		free(names[i]);
	}
	print_message("audit cases: %d files, %d rows agree on both engines; round trip %d/%d rules "
		      "byte-identical\n", n, rows, rt - rtbad, rt);
	assert_true(n >= 8);
	assert_true(rows >= 100);
	assert_int_equal(rtbad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_cases__tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
