/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit_optimize.c - `secpath audit optimize -R RULES -o OUT`: write a rule file the kernel
 * evaluates to the same decision and key for every event, cheaper under its linear walk.  The
 * work (rewrite, differential check through the reference engine, costs) is sp_audit_optimize();
 * OUT is written only if no difference was found, otherwise the distinguishing event is printed
 * and the exit status is 1.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "secpath/audit_tools.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: secpath audit optimize -R RULES -o OUT [--mix PROFILE] [--machine M]\n"
		"                              [--events N] [--seed S] [--hot-never]\n"
		"                              [--keep-field-order] [--time-ms MS] [--json]\n"
		"\n"
		"Rewrite RULES into OUT with the same kernel decision and key for every event but a\n"
		"cheaper exit-list walk: drop rules that never match or are shadowed (duplicates\n"
		"included), merge rules that differ only in their syscall sets where no rule between\n"
		"them can tell, put cheap decisive fields first.  The result is parsed back and\n"
		"compared with RULES on generated events through the reference engine; OUT is not\n"
		"written if any event is decided differently (that event is printed).\n"
		"  --mix PROFILE     profile for the costs (default data/syscall-mix/build.tsv)\n"
		"  --events N        random events of the differential check (default 20000; each\n"
		"                    rule also gets its own events)\n"
		"  --hot-never       prepend `never` rules for hot syscalls no rule can match (the\n"
		"                    exit verdict changes from no-match to never: see the manual)\n"
		"  --keep-field-order  do not reorder fields\n"
		"  --time-ms MS      measuring time per rule set for ns/syscall (default 20; 0 = skip)\n"
		"  --json            the report as JSON\n"
		"  -c, --continue    use the lines that parse when others are rejected (auditctl -c)\n"
		"  --passwd F, --group F, --dirs F   host inputs for the rules parser\n"
		"Exit status: 0 written, 1 rejected input or a difference found, 2 usage.\n");
}

int cmd_audit_optimize(int argc, char **argv, struct sp_cli *cli)
{
	const char *out = NULL, *mixarg = NULL;
	struct cli_rules_args ra;
	cli_rules_args_init(&ra);
	int r;
	struct sp_audit_tools_opts o = { .sz = sizeof(o), .time_budget_ms = 20 };
	int json = 0, rc = SP_EXIT_REJECTED;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_is_help(a)) {
			usage(cli->out);
			return SP_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--hot-never")) {
			o.flags |= SP_AUDIT_TOOLS_HOT_NEVER;
		} else if (!strcmp(a, "--keep-field-order")) {
			o.flags |= SP_AUDIT_TOOLS_KEEP_FIELDS;
		} else if ((r = cli_rules_arg(argc, argv, &i, &ra)) != 0) {
			if (r < 0)
				break;
		} else if (i + 1 < argc && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
			out = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--mix")) {
			mixarg = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--events")) {
			unsigned long long v;
			if (cli_parse_u64(argv[++i], &v)) {
				fprintf(cli->err, "%s audit optimize: --events needs a number, not '%s'\n",
					cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
			o.diff_events = (size_t)v;
		} else if (i + 1 < argc && !strcmp(a, "--seed")) {
			unsigned long long v;
			if (cli_parse_u64(argv[++i], &v)) {
				fprintf(cli->err, "%s audit optimize: --seed needs a number, not '%s'\n",
					cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
			o.seed = v;
		} else if (i + 1 < argc && !strcmp(a, "--time-ms")) {
			if (cli_parse_double(argv[++i], &o.time_budget_ms)) {
				fprintf(cli->err, "%s audit optimize: --time-ms needs a number, not '%s'\n",
					cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
			if (o.time_budget_ms <= 0)
				o.time_budget_ms = -1;
		} else {
			fprintf(cli->err, "%s audit optimize: unexpected argument '%s'\n", cli->prog, a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (cli_rules_args_check(cli, &ra, "optimize"))
		return SP_EXIT_USAGE;
	const char *rules = ra.rules;
	const char *machine = ra.po.machine;
	int keep_going = ra.keep_going;
	if (!rules || !out) {
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	o.machine = machine;
	struct cli_files files;
	struct cli_out of;
	cli_files_init(&files);
	cli_rules_args_inputs(&ra, &files);
	if (mixarg)
		cli_files_add_input(&files, mixarg);
	if (cli_out_open(cli, &files, &of, out))
		return SP_EXIT_REJECTED;

	struct sp_audit_mix *mix = NULL;
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_optimize_result *res = NULL;
	struct sp_diags d;
	char *text = NULL, mixpath[PATH_MAX];
	size_t len = 0;
	int err;

	sp_diags_init(&d, NULL);
	if (!mixarg) {
		const char *env = getenv("SECPATH_DATADIR");
		snprintf(mixpath, sizeof(mixpath), "%.3000s/syscall-mix/build.tsv", env ? env : "data");
	} else if (access(mixarg, R_OK) && !strchr(mixarg, '/')) {
		snprintf(mixpath, sizeof(mixpath), "data/syscall-mix/%.200s.tsv", mixarg);
	} else {
		snprintf(mixpath, sizeof(mixpath), "%s", mixarg);
	}
	err = sp_audit_mix_new(&mix);
	if (!err) {
		err = sp_audit_mix_load(mix, mixpath, machine, &d);
		if (err && !mixarg) {	/* no bundled profile: unweighted */
			sp_audit_mix_free(mix);
			mix = NULL;
			err = 0;
		}
	}
	if (err) {
		fprintf(cli->err, "%s: cannot load profile '%s': %s\n", cli->prog, mixpath, strerror(-err));
		goto done;
	}
	o.mix = mix;
	err = sp_file_read(rules, &text, &len);
	if (err) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, rules, strerror(-err));
		goto done;
	}
	struct sp_audit_parse_opts po = ra.po;
	err = sp_audit_ruleset_parse(text, len, rules, &po, &rs, &d);
	cli_print_diags(cli, &d, NULL, NULL);
	if (err || (d.nerrors && !keep_going))
		goto done;
	err = sp_audit_optimize(rs, &o, &res);
	if (err) {
		fprintf(cli->err, "%s audit optimize: %s\n", cli->prog, strerror(-err));
		goto done;
	}
	if (json) {
		fprintf(cli->out,
			"{\"rules_before\":%zu,\"rules_after\":%zu,\"merged\":%zu,\"dropped_duplicate\":%zu,"
			"\"dropped_shadowed\":%zu,\"reordered\":%zu,\"moved\":%zu,\"never_added\":%zu,",
			res->rules_before, res->rules_after, res->merged, res->dropped_dup,
			res->dropped_shadow, res->reordered, res->moved, res->never_added);
		fprintf(cli->out,
			"\"rules_walk_before\":%.3f,\"rules_walk_after\":%.3f,\"checks_before\":%.3f,"
			"\"checks_after\":%.3f,\"ns_before\":%.1f,\"ns_after\":%.1f,",
			res->rules_walk_before, res->rules_walk_after, res->checks_before,
			res->checks_after, res->ns_before, res->ns_after);
		fprintf(cli->out, "\"events_tested\":%zu,\"symbolic\":%s,\"equivalent\":%s,\"witness\":",
			res->events_tested, res->symbolic ? "true" : "false",
			res->equivalent ? "true" : "false");
		cli_json_str(cli->out, res->witness);
		fprintf(cli->out, "}\n");
	} else {
		fprintf(cli->out, "%s: %zu -> %zu exit-list/watch rules (%zu merged, %zu duplicate, "
			"%zu shadowed or dead dropped, %zu field orders changed, %zu rules moved up, "
			"%zu never rules added)\n",
			rules, res->rules_before, res->rules_after, res->merged, res->dropped_dup,
			res->dropped_shadow, res->reordered, res->moved, res->never_added);
		fprintf(cli->out, "rules examined per syscall: %.2f -> %.2f\n", res->rules_walk_before,
			res->rules_walk_after);
		fprintf(cli->out, "field checks per syscall:   %.2f -> %.2f\n", res->checks_before,
			res->checks_after);
		if (res->ns_before > 0)
			fprintf(cli->out, "reference engine ns/syscall: %.1f -> %.1f\n", res->ns_before,
				res->ns_after);
		fprintf(cli->out, "equivalence: %zu events, %s; per-syscall projection check: %s\n",
			res->events_tested, res->equivalent ? "no difference" : "DIFFERENCE FOUND",
			res->symbolic ? "proved" : "not proved");
	}
	if (!res->equivalent) {
		fprintf(cli->err, "%s audit optimize: not writing '%s': %s\n", cli->prog, out, res->witness);
		goto done;
	}
	FILE *f = cli_out_stream(cli, &of);
	if (!f)
		goto done;
	fwrite(res->text, 1, res->text_len, f);
	if (cli_out_commit(cli, &of))
		goto done;
	rc = SP_EXIT_OK;
done:
	cli_out_abort(&of);
	sp_diags_release(&d);
	sp_audit_optimize_result_free(res);
	sp_audit_ruleset_free(rs);
	sp_audit_mix_free(mix);
	free(text);
	return rc;
}
