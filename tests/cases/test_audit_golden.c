/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_golden.c - every rule file in data/audit/rules/{debian,thirdparty} against the
 * auditctl 3.0.9 goldens (tests/data/audit/golden/<set>/<file>.tsv) with the pinned host inputs
 * of data/audit/env (machine x86_64, passwd, group, dirs, features 0x7f):
 *   - ADD/DEL lines: identical struct audit_rule_data bytes;
 *   - CTRL lines: the same canonical option text;
 *   - ERR/WARN lines: the same kind on exactly the same line (message text may differ).
 * Also the round trip: every golden blob -> decode -> canonical text -> parse -> same bytes,
 * and tests/data/audit/edge/edge.rules (one trap per line) against the output of the real
 * auditctl 3.0.9 binary recorded in edge.rules.tsv (see that folder's README.md), there also
 * the words of every error auditctl recorded text for (its field refusals).
 * Prints per-file agreement counts.
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

#include "secpath/audit.h"
#include "../support/files.h"

#define ENV "data/audit/env/"

static const struct sp_audit_parse_opts golden_opts = {
	.sz = sizeof(struct sp_audit_parse_opts),
	.machine = "x86_64",
	.passwd_file = ENV "passwd",
	.group_file = ENV "group",
	.dirs_file = ENV "dirs",
	.features = SP_AUDIT_FEATURES_6_1,
	.features_given = 1,
	.max_errors = 100000,
};

/* One produced or expected line: "LINE\tKIND\tPAYLOAD" with ERR/WARN payloads dropped. */
struct rec {
	char *text;
};

struct recs {
	struct rec *v;
	size_t n, cap;
};

static void push(struct recs *r, const char *s)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	r->v[r->n++].text = strdup(s);
}

static void recs_free(struct recs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].text);
	free(r->v);
}

static char *hex(const void *p, size_t n)
{
	char *s = malloc(n * 2 + 1);
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		sprintf(s + 2 * i, "%02x", b[i]);
	s[2 * n] = 0;
	return s;
}

/* Produce records in the CLI's order: per line CTRL, then diagnostics, then rules. */
static void produce(const struct sp_audit_ruleset *rs, const struct sp_diags *d, struct recs *out)
{
	size_t n = sp_audit_ruleset_count(rs), ii = 0, di = 0;
	char buf[8192];
	while (ii < n || di < d->n) {
		struct sp_audit_item it;
		uint32_t li = ii < n && !sp_audit_ruleset_item(rs, ii, &it) ? it.line : UINT32_MAX;
		uint32_t ld = di < d->n ? d->v[di].line : UINT32_MAX;
		uint32_t line = li < ld ? li : ld;
		for (size_t k = ii; k < n && !sp_audit_ruleset_item(rs, k, &it) && it.line == line; k++)
			if (it.kind == SP_AUDIT_ITEM_CTRL) {
				snprintf(buf, sizeof(buf), "%u\tCTRL\t%s", line, it.ctrl);
				push(out, buf);
			}
		for (; di < d->n && d->v[di].line == line; di++) {
			snprintf(buf, sizeof(buf), "%u\t%s", line,
				 d->v[di].severity == SP_SEV_ERROR ? "ERR" : "WARN");
			push(out, buf);
		}
		for (; ii < n && !sp_audit_ruleset_item(rs, ii, &it) && it.line == line; ii++) {
			if (it.kind == SP_AUDIT_ITEM_CTRL)
				continue;
			char *h = hex(it.blob, it.blob_len);
			char *s = malloc(strlen(h) + 32);
			sprintf(s, "%u\t%s\t%s", line, it.kind == SP_AUDIT_ITEM_ADD ? "ADD" : "DEL", h);
			push(out, s);
			free(s);
			free(h);
		}
	}
}

static void expected(char *tsv, struct recs *out)
{
	for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
		char *t1 = strchr(line, '\t');
		if (!t1)
			continue;
		if (!strncmp(t1 + 1, "ERR\t", 4) || !strncmp(t1 + 1, "WARN\t", 5))
			*strchr(t1 + 1, '\t') = 0;
		push(out, line);
	}
}

static size_t total_lines, total_agree, total_rules, total_files;

static void check_file(const char *set, const char *name)
{
	char rpath[512], gpath[512];
	snprintf(rpath, sizeof(rpath), "data/audit/rules/%s/%s", set, name);
	snprintf(gpath, sizeof(gpath), "tests/data/audit/golden/%s/%s.tsv", set, name);
	size_t rlen, glen;
	char *rules = tsupport_slurp(rpath, &rlen), *gold = tsupport_slurp(gpath, &glen);
	assert_non_null(rules);
	assert_non_null(gold);
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	d.limit = 100000;
	struct sp_audit_ruleset *rs = NULL;
	assert_int_equal(sp_audit_ruleset_parse(rules, rlen, rpath, &golden_opts, &rs, &d), 0);
	struct recs got = { 0 }, want = { 0 };
	produce(rs, &d, &got);
	expected(gold, &want);
	size_t agree = 0, nrules = 0;
	for (size_t i = 0; i < want.n && i < got.n; i++) {
		if (!strcmp(want.v[i].text, got.v[i].text))
			agree++;
		else
			print_message("%s: mismatch at record %zu:\n  want %.120s\n  got  %.120s\n", name, i,
				      want.v[i].text, got.v[i].text);
		nrules += strstr(want.v[i].text, "\tADD\t") || strstr(want.v[i].text, "\tDEL\t");
	}
	print_message("%-44s %4zu/%-4zu golden lines agree (%zu rules)\n", name, agree, want.n, nrules);
	assert_int_equal(got.n, want.n);
	assert_int_equal(agree, want.n);
	total_lines += want.n;
	total_agree += agree;
	total_rules += nrules;
	total_files++;
	recs_free(&got);
	recs_free(&want);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	free(rules);
	free(gold);
}

static void each_file(const char *set, void (*fn)(const char *, const char *))
{
	char dpath[256];
	snprintf(dpath, sizeof(dpath), "data/audit/rules/%s", set);
	struct dirent **ents;
	int n = scandir(dpath, &ents, NULL, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(ents[i]->d_name);
		if (l > 6 && !strcmp(ents[i]->d_name + l - 6, ".rules"))
			fn(set, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
}

static void test_audit_golden__debian(void **st)
{
	(void)st;
	total_lines = total_agree = total_rules = total_files = 0;
	each_file("debian", check_file);
	print_message("debian: %zu files, %zu/%zu golden lines agree, %zu rules\n", total_files,
		      total_agree, total_lines, total_rules);
	assert_int_equal(total_files, 35);
}

static void test_audit_golden__thirdparty(void **st)
{
	(void)st;
	total_lines = total_agree = total_rules = total_files = 0;
	each_file("thirdparty", check_file);
	print_message("thirdparty: %zu files, %zu/%zu golden lines agree, %zu rules\n", total_files,
		      total_agree, total_lines, total_rules);
	assert_int_equal(total_files, 2);
}

/* text -> blob -> text -> blob: the canonical text of every rule parses back to the same bytes,
 * and formatting that is stable too. */
static size_t rt_rules;

static void roundtrip_path(const char *rpath, const char *name)
{
	size_t rlen;
	char *rules = tsupport_slurp(rpath, &rlen);
	assert_non_null(rules);
	struct sp_audit_ruleset *rs = NULL;
	assert_int_equal(sp_audit_ruleset_parse(rules, rlen, rpath, &golden_opts, &rs, NULL), 0);
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		assert_int_equal(sp_audit_ruleset_item(rs, i, &it), 0);
		if (it.kind == SP_AUDIT_ITEM_CTRL)
			continue;
		struct sp_audit_rule r;
		assert_int_equal(sp_audit_rule_decode(it.blob, it.blob_len, 0, &r, NULL, NULL), 0);
		char text[16384], text2[16384];
		int n = sp_audit_rule_format(&r, it.kind, "x86_64", text, sizeof(text));
		assert_true(n > 0 && (size_t)n < sizeof(text));
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		struct sp_audit_ruleset *rs2 = NULL;
		assert_int_equal(sp_audit_ruleset_parse(text, strlen(text), "rt", &golden_opts, &rs2, &d), 0);
		if (d.nerrors)
			print_message("%s:%u: '%s': %s\n", name, it.line, text, d.v[0].msg);
		assert_int_equal(d.nerrors, 0);
		struct sp_audit_item it2;
		assert_int_equal(sp_audit_ruleset_count(rs2), 1);
		assert_int_equal(sp_audit_ruleset_item(rs2, 0, &it2), 0);
		assert_int_equal(it2.kind, it.kind);
		assert_int_equal(it2.blob_len, it.blob_len);
		if (memcmp(it2.blob, it.blob, it.blob_len))
			print_message("%s:%u: bytes differ after round trip of '%s'\n", name, it.line, text);
		assert_memory_equal(it2.blob, it.blob, it.blob_len);
		/* and the encoder reproduces the decoded bytes */
		unsigned char *enc = malloc(it.blob_len);
		size_t elen = 0;
		assert_int_equal(sp_audit_rule_encode(&r, enc, it.blob_len, &elen), 0);
		assert_int_equal(elen, it.blob_len);
		assert_memory_equal(enc, it.blob, elen);
		free(enc);
		struct sp_audit_rule r2;
		assert_int_equal(sp_audit_rule_decode(it2.blob, it2.blob_len, 0, &r2, NULL, NULL), 0);
		sp_audit_rule_format(&r2, it2.kind, "x86_64", text2, sizeof(text2));
		assert_string_equal(text, text2);
		sp_audit_ruleset_free(rs2);
		sp_diags_release(&d);
		rt_rules++;
	}
	sp_audit_ruleset_free(rs);
	free(rules);
}

static void roundtrip_file(const char *set, const char *name)
{
	char rpath[512];
	snprintf(rpath, sizeof(rpath), "data/audit/rules/%s/%s", set, name);
	roundtrip_path(rpath, name);
}

static void test_audit_golden__roundtrip(void **st)
{
	(void)st;
	rt_rules = 0;
	each_file("debian", roundtrip_file);
	each_file("thirdparty", roundtrip_file);
	roundtrip_path("tests/data/audit/edge/edge.rules", "edge.rules");
	print_message("round trip: %zu rules text -> blob -> text -> blob stable\n", rt_rules);
	assert_true(rt_rules > 800);
}

/* The kernel requests the real auditctl made for a control item (edge.rules.tsv's CTRL column):
 * -i, -c, -v make none; -D and -l both list the rules (LIST). */
static const char *visible_ctrl(const char *c)
{
	if (!strcmp(c, "-i") || !strcmp(c, "-c") || !strcmp(c, "-v"))
		return NULL;
	if (!strncmp(c, "-D", 2) || !strncmp(c, "-l", 2))
		return "LIST";
	return c;
}

/* The first error diagnostic of line `line`, or NULL. */
static const char *error_of_line(const struct sp_diags *d, unsigned long line)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].line == line && d->v[i].severity == SP_SEV_ERROR)
			return d->v[i].msg;
	return NULL;
}

/* Where the real auditctl's ERR line recorded words (libaudit's audit_number_to_errmsg, what
 * auditctl prints for a refused field), secpath's error on that line has the same words; the
 * usage text that -h prints is not a message.  Returns the number of lines compared. */
static size_t edge_words(const char *tsv, const struct sp_diags *d)
{
	char *copy = strdup(tsv), *save = NULL;
	assert_non_null(copy);
	size_t n = 0, same = 0;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *t = strstr(l, "\tERR\t");
		if (!t || !t[5] || !strncmp(t + 5, "usage:", 6))
			continue;
		const char *ours = error_of_line(d, strtoul(l, NULL, 10));
		n++;
		if (ours && !strcmp(ours, t + 5))
			same++;
		else
			print_message("edge: line %lu: auditctl says '%s', secpath '%s'\n",
				      strtoul(l, NULL, 10), t + 5, ours ? ours : "(nothing)");
	}
	free(copy);
	assert_int_equal(same, n);
	return n;
}

static void test_audit_golden__edge_vs_auditctl(void **st)
{
	(void)st;
	const char *rpath = "tests/data/audit/edge/edge.rules";
	size_t rlen, glen;
	char *rules = tsupport_slurp(rpath, &rlen), *gold = tsupport_slurp("tests/data/audit/edge/edge.rules.tsv", &glen);
	assert_non_null(rules);
	assert_non_null(gold);
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	d.limit = 100000;
	struct sp_audit_ruleset *rs = NULL;
	assert_int_equal(sp_audit_ruleset_parse(rules, rlen, rpath, &golden_opts, &rs, &d), 0);
	struct recs got = { 0 }, raw = { 0 }, want = { 0 };
	produce(rs, &d, &raw);
	for (size_t i = 0; i < raw.n; i++) {
		char *t = strstr(raw.v[i].text, "\tCTRL\t");
		if (!t) {
			push(&got, raw.v[i].text);
			continue;
		}
		const char *vis = visible_ctrl(t + 6);
		if (!vis)
			continue;
		char buf[512];
		snprintf(buf, sizeof(buf), "%.*s\tCTRL\t%s", (int)(t - raw.v[i].text), raw.v[i].text, vis);
		if (!got.n || strcmp(got.v[got.n - 1].text, buf))
			push(&got, buf);
	}
	size_t worded = edge_words(gold, &d);
	print_message("edge.rules: %zu refusals worded as auditctl words them\n", worded);
	assert_true(worded >= 40);
	struct recs all = { 0 };
	expected(gold, &all);
	for (size_t i = 0; i < all.n; i++)	/* -D asks for the list twice */
		if (!want.n || strcmp(want.v[want.n - 1].text, all.v[i].text))
			push(&want, all.v[i].text);
	size_t agree = 0, errs = 0;
	for (size_t i = 0; i < want.n && i < got.n; i++) {
		if (!strcmp(want.v[i].text, got.v[i].text))
			agree++;
		else
			print_message("edge: mismatch at record %zu:\n  auditctl %.100s\n  secpath  %.100s\n", i,
				      want.v[i].text, got.v[i].text);
		errs += strstr(want.v[i].text, "\tERR") != NULL;
	}
	print_message("edge.rules vs the real auditctl: %zu/%zu records agree (%zu rejected lines)\n",
		      agree, want.n, errs);
	assert_int_equal(got.n, want.n);
	assert_int_equal(agree, want.n);
	recs_free(&got);
	recs_free(&raw);
	recs_free(&want);
	recs_free(&all);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	free(rules);
	free(gold);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_golden__debian),
		cmocka_unit_test(test_audit_golden__thirdparty),
		cmocka_unit_test(test_audit_golden__roundtrip),
		cmocka_unit_test(test_audit_golden__edge_vs_auditctl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
