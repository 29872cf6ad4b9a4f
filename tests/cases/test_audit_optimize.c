/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_optimize.c - `audit optimize` over every bundled rule set (data/audit/rules/debian
 * and thirdparty): the optimized text parses, the differential check through the reference
 * engine finds no difference, the rule walk never gets more expensive, and the rule sets with
 * known redundancy (split syscall lists, b32/b64 pairs) really get cheaper.  Also: a deliberately
 * wrong rewrite is caught with a witness.
 *
 * Time bound: events per rule set are scaled so the whole file stays within ~20 s (release).
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

#include "secpath/audit_tools.h"
#include "../support/files.h"

static struct sp_audit_ruleset *parse_text(const char *text, size_t len, const char *name)
{
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_ruleset_parse(text, len, name, &po, &rs, &d), 0);
	sp_diags_release(&d);
	return rs;
}

static struct sp_audit_mix *build_mix(void)
{
	struct sp_audit_mix *m = NULL;
	size_t len;
	assert_int_equal(sp_audit_mix_new(&m), 0);
	char *t = tsupport_slurp("data/syscall-mix/build.tsv", &len);
	assert_non_null(t);
	assert_int_equal(sp_audit_mix_parse_tsv(m, t, len, "x86_64", "build.tsv", NULL), 0);
	free(t);
	return m;
}

static size_t total_merged, total_dropped, files_seen, files_cheaper;

static void optimize_dir(const char *dir, const struct sp_audit_mix *mix, size_t events)
{
	char path[512];
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t nl = strlen(name), len = 0;
		if (nl < 7 || strcmp(name + nl - 6, ".rules")) {
			free(ents[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		char *text = tsupport_slurp(path, &len);
		assert_non_null(text);
		struct sp_audit_ruleset *rs = parse_text(text, len, path);
		struct sp_audit_tools_opts o = { .sz = sizeof(o), .machine = "x86_64", .mix = mix,
						 .seed = 42 + (uint64_t)i, .diff_events = events,
						 .time_budget_ms = -1 };
		struct sp_audit_optimize_result *res = NULL;
		assert_int_equal(sp_audit_optimize(rs, &o, &res), 0);
		if (!res->equivalent)
			fprintf(stderr, "%s: not equivalent\n%s\n--- text ---\n%s\n", path,
				res->witness, res->text);
		assert_true(res->equivalent);
		assert_int_equal(res->symbolic, 1);	/* the projection proof held too */
		assert_true(res->events_tested >= events);
		assert_true(res->rules_after <= res->rules_before);
		assert_true(res->checks_after <= res->checks_before + 1e-9);
		assert_true(res->rules_walk_after <= res->rules_walk_before + 1e-9);
		total_merged += res->merged;
		total_dropped += res->dropped_dup + res->dropped_shadow;
		files_seen++;
		files_cheaper += res->rules_walk_after < res->rules_walk_before - 1e-9;
		sp_audit_optimize_result_free(res);
		sp_audit_ruleset_free(rs);
		free(text);
		free(ents[i]);
	}
	free(ents);
}

static void test_audit_optimize__all_rule_sets(void **st)
{
	(void)st;
	struct sp_audit_mix *mix = build_mix();
	const char *env = getenv("SP_OPTIMIZE_EVENTS");
	size_t events = env ? strtoul(env, NULL, 10) : 20000;
	optimize_dir("data/audit/rules/debian", mix, events);
	optimize_dir("data/audit/rules/thirdparty", mix, events);
	fprintf(stderr, "optimize: %zu rule sets, %zu merges, %zu dropped, %zu cheaper\n", files_seen,
		total_merged, total_dropped, files_cheaper);
	assert_true(files_seen >= 30);
	assert_true(total_merged > 0);
	assert_true(files_cheaper > 0);
	sp_audit_mix_free(mix);
}

/* A rewrite that swaps the keys of two overlapping rules must be caught, with a witness. */
static void test_audit_optimize__catches_difference(void **st)
{
	(void)st;
	static const char a[] =
		"-a always,exit -F arch=b64 -S openat -F exit=-EACCES -k denied\n"
		"-a always,exit -F arch=b64 -S openat,open -F auid>=1000 -F auid!=unset -k user\n";
	static const char b[] =
		"-a always,exit -F arch=b64 -S openat,open -F auid>=1000 -F auid!=unset -k user\n"
		"-a always,exit -F arch=b64 -S openat -F exit=-EACCES -k denied\n";
	struct sp_audit_ruleset *ra = parse_text(a, sizeof(a) - 1, "a");
	struct sp_audit_ruleset *rb = parse_text(b, sizeof(b) - 1, "b");
	struct sp_audit_tools_opts o = { .sz = sizeof(o), .diff_events = 2000 };
	char w[1024];
	size_t n = 0;
	assert_int_equal(sp_audit_equiv_check(ra, rb, &o, &n, w, sizeof(w)), 0);
	assert_non_null(strstr(w, "openat"));
	assert_int_equal(sp_audit_equiv_check(ra, ra, &o, &n, w, sizeof(w)), 1);
	assert_true(n >= 2000);
	sp_audit_ruleset_free(ra);
	sp_audit_ruleset_free(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_optimize__catches_difference),
		cmocka_unit_test(test_audit_optimize__all_rule_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
