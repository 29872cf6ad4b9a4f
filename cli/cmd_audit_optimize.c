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
		"  --mix PROFILE     profile for the costs: a file or a bundled name (default build,\n"
		"                    DATADIR/syscall-mix/build.tsv; see secpath(1), FILES)\n"
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

struct opt_args {
	struct cli_rules_args ra;
	struct sp_audit_tools_opts o;
	const char *out, *mixarg;
	int json;
};

static int parse_num(struct sp_cli *cli, const char *opt, const char *v, unsigned long long *x)
{
	if (!cli_parse_u64(v, x))
		return 0;
	fprintf(cli->err, "%s audit optimize: %s needs a number, not '%s'\n", cli->prog, opt, v);
	return -1;
}

/* 0, SP_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, struct sp_cli *cli, struct opt_args *oa)
{
	unsigned long long v;
	int r;
	memset(oa, 0, sizeof(*oa));
	cli_rules_args_init(&oa->ra);
	oa->o.sz = sizeof(oa->o);
	oa->o.time_budget_ms = 20;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_is_help(a)) {
			usage(cli->out);
			return -1;
		} else if (!strcmp(a, "--json")) {
			oa->json = 1;
		} else if (!strcmp(a, "--hot-never")) {
			oa->o.flags |= SP_AUDIT_TOOLS_HOT_NEVER;
		} else if (!strcmp(a, "--keep-field-order")) {
			oa->o.flags |= SP_AUDIT_TOOLS_KEEP_FIELDS;
		} else if ((r = cli_rules_arg(argc, argv, &i, &oa->ra)) != 0) {
			if (r < 0)
				break;
		} else if (i + 1 < argc && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
			oa->out = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--mix")) {
			oa->mixarg = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--events")) {
			if (parse_num(cli, a, argv[++i], &v))
				return SP_EXIT_USAGE;
			if (!v) {
				fprintf(cli->err, "%s audit optimize: --events needs at least 1\n",
					cli->prog);
				return SP_EXIT_USAGE;
			}
			oa->o.diff_events = (size_t)v;
		} else if (i + 1 < argc && !strcmp(a, "--seed")) {
			if (parse_num(cli, a, argv[++i], &v))
				return SP_EXIT_USAGE;
			oa->o.seed = v;
		} else if (i + 1 < argc && !strcmp(a, "--time-ms")) {
			if (cli_parse_double(argv[++i], &oa->o.time_budget_ms)) {
				fprintf(cli->err, "%s audit optimize: --time-ms needs a number, not '%s'\n",
					cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
			if (oa->o.time_budget_ms <= 0)
				oa->o.time_budget_ms = -1;
		} else {
			fprintf(cli->err, "%s audit optimize: unexpected argument '%s'\n", cli->prog, a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (cli_rules_args_check(cli, &oa->ra, "optimize"))
		return SP_EXIT_USAGE;
	if (!oa->ra.rules || !oa->out) {
		fprintf(cli->err, "%s audit optimize: no %s given\n", cli->prog,
			!oa->ra.rules ? "-R RULES" : "-o OUT");
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	oa->o.machine = oa->ra.po.machine;
	return 0;
}

/* The weighting profile: --mix (a file, or a bundled name), else the bundled build profile;
 * without one, every syscall weighs the same, said on stderr.  0 or -1 after a message. */
static int load_mix(struct sp_cli *cli, const struct opt_args *oa, struct sp_audit_mix **mix)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct sp_diags d;
	int have_dir = !cli_datadir(cli, dir, sizeof(dir), 1);
	*mix = NULL;
	if (oa->mixarg && (!access(oa->mixarg, R_OK) || strchr(oa->mixarg, '/') || !have_dir))
		snprintf(path, sizeof(path), "%s", oa->mixarg);
	else if (have_dir)
		snprintf(path, sizeof(path), "%.3000s/syscall-mix/%.200s.tsv", dir,
			 oa->mixarg ? oa->mixarg : "build");
	else {
		cli_datadir(cli, dir, sizeof(dir), 0);
		fprintf(cli->err, "%s audit optimize: warning: no bundled profile; every syscall "
			"weighs the same (give --mix)\n", cli->prog);
		return 0;
	}
	int err = sp_audit_mix_new(mix);
	sp_diags_init(&d, NULL);
	if (!err)
		err = sp_audit_mix_load(*mix, path, oa->o.machine, &d);
	cli_print_diags(cli, &d, NULL, NULL);
	sp_diags_release(&d);
	if (err)
		fprintf(cli->err, "%s: cannot load profile '%s': %s\n", cli->prog, path,
			strerror(-err));
	return err ? -1 : 0;
}

static void report(struct sp_cli *cli, const char *rules, int json,
		   const struct sp_audit_optimize_result *res)
{
	FILE *f = cli->out;
	if (json) {
		fprintf(f, "{\"schema\":\"secpath.audit-optimize/1\",\"rules_before\":%zu,"
			"\"rules_after\":%zu,\"merged\":%zu,\"dropped_duplicate\":%zu,"
			"\"dropped_shadowed\":%zu,\"reordered\":%zu,\"moved\":%zu,\"never_added\":%zu,",
			res->rules_before, res->rules_after, res->merged, res->dropped_dup,
			res->dropped_shadow, res->reordered, res->moved, res->never_added);
		fprintf(f, "\"rules_walk_before\":%.3f,\"rules_walk_after\":%.3f,"
			"\"checks_before\":%.3f,\"checks_after\":%.3f,\"ns_before\":%.1f,"
			"\"ns_after\":%.1f,", res->rules_walk_before, res->rules_walk_after,
			res->checks_before, res->checks_after, res->ns_before, res->ns_after);
		fprintf(f, "\"events_tested\":%zu,\"symbolic\":%s,\"equivalent\":%s,\"witness\":",
			res->events_tested, res->symbolic ? "true" : "false",
			res->equivalent ? "true" : "false");
		cli_json_str(f, res->witness);
		fprintf(f, "}\n");
		return;
	}
	fprintf(f, "%s: %zu -> %zu exit-list/watch rules (%zu merged, %zu duplicate, "
		"%zu shadowed or dead dropped, %zu field orders changed, %zu rules moved up, "
		"%zu never rules added)\n",
		rules, res->rules_before, res->rules_after, res->merged, res->dropped_dup,
		res->dropped_shadow, res->reordered, res->moved, res->never_added);
	fprintf(f, "rules examined per syscall: %.2f -> %.2f\n", res->rules_walk_before,
		res->rules_walk_after);
	fprintf(f, "field checks per syscall:   %.2f -> %.2f\n", res->checks_before,
		res->checks_after);
	if (res->ns_before > 0)
		fprintf(f, "reference engine ns/syscall: %.1f -> %.1f\n", res->ns_before,
			res->ns_after);
	fprintf(f, "equivalence: %zu events, %s; per-syscall projection check: %s\n",
		res->events_tested, res->equivalent ? "no difference" : "DIFFERENCE FOUND",
		res->symbolic ? "proved" : "not proved");
}

int cmd_audit_optimize(int argc, char **argv, struct sp_cli *cli)
{
	struct opt_args oa;
	struct cli_files files;
	struct cli_out of;
	struct sp_audit_mix *mix = NULL;
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_optimize_result *res = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc = parse_args(argc, argv, cli, &oa), err;
	if (rc)
		return rc < 0 ? SP_EXIT_OK : rc;
	cli_files_init(&files);
	cli_rules_args_inputs(&oa.ra, &files);
	if (oa.mixarg)
		cli_files_add_input(&files, oa.mixarg);
	if (cli_out_open(cli, &files, &of, oa.out))
		return SP_EXIT_REJECTED;
	rc = SP_EXIT_REJECTED;
	if (load_mix(cli, &oa, &mix) || cli_rules_load(cli, &oa.ra, &text, &len, &rs))
		goto done;
	oa.o.mix = mix;
	oa.o.source = text;	/* unchanged rules keep their lines and comments */
	oa.o.source_len = len;
	oa.o.parse = &oa.ra.po;
	err = sp_audit_optimize(rs, &oa.o, &res);
	if (err) {
		fprintf(cli->err, "%s audit optimize: %s\n", cli->prog, strerror(-err));
		goto done;
	}
	report(cli, oa.ra.rules, oa.json, res);
	if (!res->equivalent) {
		fprintf(cli->err, "%s audit optimize: not writing '%s': %s\n", cli->prog, oa.out,
			res->witness);
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
	sp_audit_optimize_result_free(res);
	sp_audit_ruleset_free(rs);
	sp_audit_mix_free(mix);
	free(text);
	return rc;
}
