/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit_cost.c - `secpath audit cost -R RULES [--mix PROFILE]`: what RULES cost the kernel's
 * syscall-exit filter per syscall of a workload (rules examined, field checks, reference-engine
 * ns), the most expensive syscalls and rules, and lints.  The work is sp_audit_cost_compute();
 * this file reads the inputs and prints.  Without --mix the bundled profiles
 * (data/syscall-mix/NAME.tsv) are blended with equal weight, and each is also priced alone.
 */
#include <dirent.h>
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
		"usage: secpath audit cost -R RULES [--mix PROFILE]... [--machine M] [--top N]\n"
		"                          [--time-ms MS] [--json]\n"
		"\n"
		"Price RULES under the kernel's linear exit-list walk: per syscall of a workload, the\n"
		"rules examined (mask tests) and field checks, weighted by syscall frequency; the\n"
		"measured ns/syscall of the kernel-layout reference engine; the top syscalls and rules;\n"
		"lints (rules the kernel rejects, rules that can never match, shadowed and duplicate\n"
		"rules, always-true fields).\n"
		"  --mix PROFILE  syscall<TAB>calls<TAB>errors file, a stream from `audit run --record`,\n"
		"                 or a bundled profile name (build, dd, files, git, python); repeatable.\n"
		"                 Default: all bundled profiles of data/syscall-mix, equal weight\n"
		"  --top N        rows in the top lists (default 10)\n"
		"  --time-ms MS   measuring time for ns/syscall (default 20; 0 = skip)\n"
		"  --json         one JSON object\n"
		"  -c, --continue  use the lines that parse when others are rejected (auditctl -c)\n"
		"  --passwd F, --group F, --dirs F   host inputs for the rules parser\n"
		"Exit status: 0 ok, 1 RULES or a profile rejected, 2 usage.\n");
}

struct mixfile {
	char name[64];
	struct sp_audit_mix *mix;
};

static int find_mix_dir(char *out, size_t len)
{
	const char *env = getenv("SECPATH_DATADIR");
	char exe[PATH_MAX];
	if (env) {
		snprintf(out, len, "%s/syscall-mix", env);
		if (!access(out, R_OK))
			return 0;
	}
	snprintf(out, len, "data/syscall-mix");
	if (!access(out, R_OK))
		return 0;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *s = strrchr(exe, '/');
		if (s)
			*s = 0;
		snprintf(out, len, "%.3000s/../../data/syscall-mix", exe);
		if (!access(out, R_OK))
			return 0;
	}
	return -ENOENT;
}

static int load_one(struct sp_cli *cli, const char *arg, const char *machine, struct mixfile *mf)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct sp_diags d;
	int err;
	snprintf(path, sizeof(path), "%s", arg);
	if (access(path, R_OK) && !strchr(arg, '/') && !find_mix_dir(dir, sizeof(dir)))
		snprintf(path, sizeof(path), "%.2000s/%.200s.tsv", dir, arg);
	const char *base = strrchr(path, '/');
	snprintf(mf->name, sizeof(mf->name), "%.60s", base ? base + 1 : path);
	err = sp_audit_mix_new(&mf->mix);
	if (err)
		return err;
	sp_diags_init(&d, NULL);
	err = sp_audit_mix_load(mf->mix, path, machine, &d);
	cli_print_diags(cli, &d, NULL, NULL);
	sp_diags_release(&d);
	if (err)
		fprintf(cli->err, "%s: cannot load profile '%s': %s\n", cli->prog, path, strerror(-err));
	return err;
}

static const char *lint_kind(enum sp_audit_lint_kind k)
{
	switch (k) {
	case SP_AUDIT_LINT_REJECTED: return "rejected";
	case SP_AUDIT_LINT_NEVER_MATCHES: return "never-matches";
	case SP_AUDIT_LINT_SHADOWED: return "shadowed";
	case SP_AUDIT_LINT_DUPLICATE: return "duplicate";
	default: return "noop-field";
	}
}

static const char *sysname(uint32_t arch, int32_t nr, char *buf, size_t len)
{
	const char *n = sp_audit_syscall_name(arch == 0x40000003u ? "i386" : "x86_64", nr);
	if (n)
		return n;
	snprintf(buf, len, "%d", nr);
	return buf;
}

/* Text of line `line` of the rules file (for the top-rules list). */
static void source_line(const char *text, uint32_t line, char *out, size_t len)
{
	const char *p = text;
	for (uint32_t l = 1; l < line && p; l++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	out[0] = 0;
	if (!p)
		return;
	size_t n = strcspn(p, "\n");
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = 0;
}

int cmd_audit_cost(int argc, char **argv, struct sp_cli *cli)
{
	const char *mixargs[16];
	struct cli_rules_args ra;
	cli_rules_args_init(&ra);
	int r;
	size_t nmixargs = 0, top = 10;
	double time_ms = 20;
	int json = 0, rc = SP_EXIT_REJECTED;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_is_help(a)) {
			usage(cli->out);
			return SP_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if ((r = cli_rules_arg(argc, argv, &i, &ra)) != 0) {
			if (r < 0)
				break;
		} else if (i + 1 < argc && !strcmp(a, "--mix") && nmixargs < 16) {
			mixargs[nmixargs++] = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--top")) {
			unsigned long long v;
			if (cli_parse_u64(argv[++i], &v)) {
			fprintf(cli->err, "%s audit cost: --top needs a number, not '%s'\n", cli->prog,
				argv[i]);
			return SP_EXIT_USAGE;
		}
			top = (size_t)v;
		} else if (i + 1 < argc && !strcmp(a, "--time-ms")) {
			if (cli_parse_double(argv[++i], &time_ms)) {
			fprintf(cli->err, "%s audit cost: --time-ms needs a number, not '%s'\n", cli->prog,
				argv[i]);
			return SP_EXIT_USAGE;
		}
		} else {
			fprintf(cli->err, "%s audit cost: unexpected argument '%s'\n", cli->prog, a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (cli_rules_args_check(cli, &ra, "cost"))
		return SP_EXIT_USAGE;
	const char *rules = ra.rules;
	const char *machine = ra.po.machine;
	int keep_going = ra.keep_going;
	if (!rules) {
		usage(cli->err);
		return SP_EXIT_USAGE;
	}

	struct mixfile mf[16];
	size_t nmf = 0;
	struct sp_audit_mix *blend = NULL;
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_cost *c = NULL;
	char *text = NULL;
	size_t len = 0;
	int err;

	memset(mf, 0, sizeof(mf));
	if (!nmixargs) {
		char dir[PATH_MAX];
		struct dirent **ents = NULL;
		int n = find_mix_dir(dir, sizeof(dir)) ? -1 : scandir(dir, &ents, NULL, alphasort);
		for (int k = 0; k < n; k++) {
			size_t l = strlen(ents[k]->d_name);
			if (nmf < 16 && l > 4 && !strcmp(ents[k]->d_name + l - 4, ".tsv")) {
				char p[PATH_MAX + 300];
				snprintf(p, sizeof(p), "%s/%s", dir, ents[k]->d_name);
				if (load_one(cli, p, machine, &mf[nmf++]))
					goto done;
			}
			free(ents[k]);
		}
		free(ents);
		if (!nmf) {
			fprintf(cli->err, "%s audit cost: no bundled profiles found (data/syscall-mix); "
				"use --mix\n", cli->prog);
			goto done;
		}
	} else {
		for (size_t k = 0; k < nmixargs; k++)
			if (load_one(cli, mixargs[k], machine, &mf[nmf++]))
				goto done;
	}
	if (nmf == 1) {
		blend = mf[0].mix;
		mf[0].mix = NULL;
		nmf = 0;
	} else {
		err = sp_audit_mix_new(&blend);
		for (size_t k = 0; !err && k < nmf; k++)
			err = sp_audit_mix_add_scaled(blend, mf[k].mix, 1000000);
		if (err)
			goto done;
	}

	err = sp_file_read(rules, &text, &len);
	if (err) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, rules, strerror(-err));
		goto done;
	}
	struct sp_audit_parse_opts po = ra.po;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	err = sp_audit_ruleset_parse(text, len, rules, &po, &rs, &d);
	cli_print_diags(cli, &d, NULL, NULL);
	int bad = err || (d.nerrors && !keep_going);
	sp_diags_release(&d);
	if (bad)
		goto done;

	struct sp_audit_tools_opts o = { .sz = sizeof(o), .machine = machine, .mix = blend,
					 .time_budget_ms = time_ms > 0 ? time_ms : -1 };
	err = sp_audit_cost_compute(rs, &o, &c);
	if (err) {
		fprintf(cli->err, "%s audit cost: %s\n", cli->prog, strerror(-err));
		goto done;
	}
	double per_rules[16], per_checks[16];
	for (size_t k = 0; k < nmf; k++) {
		struct sp_audit_cost *ck = NULL;
		struct sp_audit_tools_opts ok = o;
		ok.mix = mf[k].mix;
		ok.time_budget_ms = -1;
		per_rules[k] = per_checks[k] = 0;
		if (!sp_audit_cost_compute(rs, &ok, &ck)) {
			per_rules[k] = ck->rules_per_syscall;
			per_checks[k] = ck->checks_per_syscall;
		}
		sp_audit_cost_free(ck);
	}
	size_t ns = top < c->nsys ? top : c->nsys, nr = top < c->nrules ? top : c->nrules;
	char nb[32], src[512];
	if (json) {
		FILE *f = cli->out;
		fprintf(f, "{\"rules_file\":");
		cli_json_str(f, rules);
		fprintf(f, ",\"exit_rules\":%zu,\"calls\":%llu,\"rules_per_syscall\":%.3f,"
			"\"checks_per_syscall\":%.3f,\"ns_per_syscall\":%.1f,\"hash_rules\":%zu,"
			"\"hash_per_syscall\":%.3f,\"mixes\":[",
			c->exit_rules, (unsigned long long)c->calls, c->rules_per_syscall,
			c->checks_per_syscall, c->ns_per_syscall, c->hash_rules, c->hash_per_syscall);
		for (size_t k = 0; k < nmf; k++) {
			fprintf(f, "%s{\"name\":", k ? "," : "");
			cli_json_str(f, mf[k].name);
			fprintf(f, ",\"rules_per_syscall\":%.3f,\"checks_per_syscall\":%.3f}",
				per_rules[k], per_checks[k]);
		}
		fprintf(f, "],\"top_syscalls\":[");
		for (size_t k = 0; k < ns; k++) {
			const struct sp_audit_cost_sys *s = &c->sys[k];
			fprintf(f, "%s{\"syscall\":", k ? "," : "");
			cli_json_str(f, sysname(s->arch, s->nr, nb, sizeof(nb)));
			fprintf(f, ",\"arch\":\"%x\",\"calls\":%llu,\"rules\":%.2f,\"checks\":%.2f}",
				s->arch, (unsigned long long)s->calls, s->rules, s->checks);
		}
		fprintf(f, "],\"top_rules\":[");
		for (size_t k = 0; k < nr; k++) {
			source_line(text, c->rules[k].line, src, sizeof(src));
			fprintf(f, "%s{\"line\":%u,\"rules\":%.4f,\"checks\":%.4f,\"text\":", k ? "," : "",
				c->rules[k].line, c->rules[k].rules, c->rules[k].checks);
			cli_json_str(f, src);
			fprintf(f, "}");
		}
		fprintf(f, "],\"lints\":[");
		for (size_t k = 0; k < c->nlints; k++) {
			fprintf(f, "%s{\"kind\":\"%s\",\"line\":%u,\"other_line\":%u,\"message\":",
				k ? "," : "", lint_kind(c->lints[k].kind), c->lints[k].line,
				c->lints[k].other_line);
			cli_json_str(f, c->lints[k].msg);
			fprintf(f, "}");
		}
		fprintf(f, "]}\n");
	} else {
		FILE *f = cli->out;
		fprintf(f, "%s: %zu exit-list/watch rules (%zu in the inode hash)\n", rules,
			c->exit_rules, c->hash_rules);
		fprintf(f, "per syscall: %.2f rules examined, %.2f field checks; reference engine %.1f ns\n",
			c->rules_per_syscall, c->checks_per_syscall, c->ns_per_syscall);
		if (c->hash_rules)
			fprintf(f, "inode-hash pass (estimate): %.2f rules examined per syscall\n",
				c->hash_per_syscall);
		for (size_t k = 0; k < nmf; k++)
			fprintf(f, "  mix %-12s %8.2f rules %8.2f checks\n", mf[k].name, per_rules[k],
				per_checks[k]);
		fprintf(f, "top syscalls (share of calls, rules and checks per call):\n");
		for (size_t k = 0; k < ns; k++) {
			const struct sp_audit_cost_sys *s = &c->sys[k];
			fprintf(f, "  %-20s %6.2f%% %8.2f %8.2f\n", sysname(s->arch, s->nr, nb, sizeof(nb)),
				c->calls ? 100.0 * (double)s->calls / (double)c->calls : 0, s->rules,
				s->checks);
		}
		fprintf(f, "top rules (field checks per syscall):\n");
		for (size_t k = 0; k < nr; k++) {
			source_line(text, c->rules[k].line, src, sizeof(src));
			fprintf(f, "  line %-5u %8.3f  %s\n", c->rules[k].line, c->rules[k].checks, src);
		}
		for (size_t k = 0; k < c->nlints; k++)
			fprintf(cli->err, "%s:%u: warning: [%s] %s\n", rules, c->lints[k].line,
				lint_kind(c->lints[k].kind), c->lints[k].msg);
	}
	rc = SP_EXIT_OK;
done:
	sp_audit_cost_free(c);
	sp_audit_ruleset_free(rs);
	for (size_t k = 0; k < 16; k++)
		sp_audit_mix_free(mf[k].mix);
	sp_audit_mix_free(blend);
	free(text);
	return rc;
}
