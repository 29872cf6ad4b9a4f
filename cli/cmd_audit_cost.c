/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit_cost.c - `secpath audit cost -R RULES [--mix PROFILE]`: what RULES cost the kernel's
 * syscall-exit filter per syscall of a workload (rules examined, field checks, reference-engine
 * ns), the most expensive syscalls and rules, and lints.  The work is sp_audit_cost_compute();
 * this file reads the inputs and prints.  Without --mix the bundled profiles (syscall-mix/ of the
 * data directory, cli_datadir) are blended with equal weight, and each is also priced alone.
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

#define SP_MIN_SZ(a, b) ((a) < (b) ? (a) : (b))

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
		"                 Default: every bundled profile (DATADIR/syscall-mix), equal weight\n"
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

static int load_one(struct sp_cli *cli, const char *arg, const char *machine, struct mixfile *mf)
{
	char path[PATH_MAX], dir[PATH_MAX];
	struct sp_diags d;
	int err;
	snprintf(path, sizeof(path), "%s", arg);
	if (access(path, R_OK) && !strchr(arg, '/') && !cli_datadir(cli, dir, sizeof(dir), 1))
		snprintf(path, sizeof(path), "%.2000s/syscall-mix/%.200s.tsv", dir, arg);
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

struct cost_args {
	struct cli_rules_args ra;
	const char *mixargs[16];
	size_t nmixargs, top;
	double time_ms;
	int json;
};

/* 0, SP_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, struct sp_cli *cli, struct cost_args *ca)
{
	unsigned long long v;
	int r;
	memset(ca, 0, sizeof(*ca));
	cli_rules_args_init(&ca->ra);
	ca->top = 10;
	ca->time_ms = 20;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_is_help(a)) {
			usage(cli->out);
			return -1;
		} else if (!strcmp(a, "--json")) {
			ca->json = 1;
		} else if ((r = cli_rules_arg(argc, argv, &i, &ca->ra)) != 0) {
			if (r < 0)
				break;
		} else if (i + 1 < argc && !strcmp(a, "--mix")) {
			if (ca->nmixargs == 16) {
				fprintf(cli->err, "%s audit cost: at most 16 --mix\n", cli->prog);
				return SP_EXIT_USAGE;
			}
			ca->mixargs[ca->nmixargs++] = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--top")) {
			if (cli_parse_u64(argv[++i], &v)) {
				fprintf(cli->err, "%s audit cost: --top needs a number, not '%s'\n",
					cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
			ca->top = (size_t)v;
		} else if (i + 1 < argc && !strcmp(a, "--time-ms")) {
			if (cli_parse_double(argv[++i], &ca->time_ms)) {
				fprintf(cli->err, "%s audit cost: --time-ms needs a number, not '%s'\n",
					cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
		} else {
			fprintf(cli->err, "%s audit cost: unexpected argument '%s'\n", cli->prog, a);
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (cli_rules_args_check(cli, &ca->ra, "cost"))
		return SP_EXIT_USAGE;
	if (!ca->ra.rules) {
		fprintf(cli->err, "%s audit cost: no -R RULES given\n", cli->prog);
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	return 0;
}

/* The workload: the --mix files, or every bundled profile; blended with equal weight when
 * there are several (each also kept in mf[] to be priced alone).  0 or -1 after a message. */
static int load_mixes(struct sp_cli *cli, const struct cost_args *ca, struct mixfile *mf,
		      size_t *nmf, struct sp_audit_mix **blend)
{
	const char *machine = ca->ra.po.machine;
	*nmf = 0;
	if (ca->nmixargs) {
		for (size_t k = 0; k < ca->nmixargs; k++)
			if (load_one(cli, ca->mixargs[k], machine, &mf[(*nmf)++]))
				return -1;
	} else {
		char dir[PATH_MAX];
		struct dirent **ents = NULL;
		if (cli_data_file(cli, "syscall-mix", dir, sizeof(dir)))
			return -1;
		int n = scandir(dir, &ents, NULL, alphasort), bad = 0;
		for (int k = 0; k < n; k++) {
			size_t l = strlen(ents[k]->d_name);
			if (!bad && *nmf < 16 && l > 4 && !strcmp(ents[k]->d_name + l - 4, ".tsv")) {
				char p[PATH_MAX + 300];
				snprintf(p, sizeof(p), "%s/%s", dir, ents[k]->d_name);
				bad = load_one(cli, p, machine, &mf[(*nmf)++]) != 0;
			}
			free(ents[k]);
		}
		free(ents);
		if (bad)
			return -1;
		if (!*nmf) {
			fprintf(cli->err, "%s audit cost: no profile in '%s'; use --mix\n", cli->prog,
				dir);
			return -1;
		}
	}
	if (*nmf == 1) {
		*blend = mf[0].mix;
		mf[0].mix = NULL;
		*nmf = 0;
		return 0;
	}
	int err = sp_audit_mix_new(blend);
	for (size_t k = 0; !err && k < *nmf; k++)
		err = sp_audit_mix_add_scaled(*blend, mf[k].mix, 1000000);
	if (err)
		fprintf(cli->err, "%s audit cost: %s\n", cli->prog, strerror(-err));
	return err ? -1 : 0;
}

/* What the report needs beside the cost itself. */
struct cost_report {
	const char *rules, *text;
	const struct mixfile *mf;
	size_t nmf, top;
	double per_rules[16], per_checks[16];
};

static void report_json(FILE *f, const struct sp_audit_cost *c, const struct cost_report *cr)
{
	size_t ns = SP_MIN_SZ(cr->top, c->nsys), nr = SP_MIN_SZ(cr->top, c->nrules);
	char nb[32], src[512];
	fprintf(f, "{\"schema\":\"secpath.audit-cost/1\",\"rules_file\":");
	cli_json_str(f, cr->rules);
	fprintf(f, ",\"exit_rules\":%zu,\"calls\":%llu,\"rules_per_syscall\":%.3f,"
		"\"checks_per_syscall\":%.3f,\"ns_per_syscall\":%.1f,\"hash_rules\":%zu,"
		"\"hash_per_syscall\":%.3f,\"mixes\":[",
		c->exit_rules, (unsigned long long)c->calls, c->rules_per_syscall,
		c->checks_per_syscall, c->ns_per_syscall, c->hash_rules, c->hash_per_syscall);
	for (size_t k = 0; k < cr->nmf; k++) {
		fprintf(f, "%s{\"name\":", k ? "," : "");
		cli_json_str(f, cr->mf[k].name);
		fprintf(f, ",\"rules_per_syscall\":%.3f,\"checks_per_syscall\":%.3f}",
			cr->per_rules[k], cr->per_checks[k]);
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
		source_line(cr->text, c->rules[k].line, src, sizeof(src));
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
}

static void report_text(struct sp_cli *cli, const struct sp_audit_cost *c,
			const struct cost_report *cr)
{
	FILE *f = cli->out;
	size_t ns = SP_MIN_SZ(cr->top, c->nsys), nr = SP_MIN_SZ(cr->top, c->nrules);
	char nb[32], src[512];
	fprintf(f, "%s: %zu exit-list/watch rules (%zu in the inode hash)\n", cr->rules,
		c->exit_rules, c->hash_rules);
	fprintf(f, "per syscall: %.2f rules examined, %.2f field checks; reference engine %.1f ns\n",
		c->rules_per_syscall, c->checks_per_syscall, c->ns_per_syscall);
	if (c->hash_rules)
		fprintf(f, "inode-hash pass (estimate): %.2f rules examined per syscall\n",
			c->hash_per_syscall);
	for (size_t k = 0; k < cr->nmf; k++)
		fprintf(f, "  mix %-12s %8.2f rules %8.2f checks\n", cr->mf[k].name,
			cr->per_rules[k], cr->per_checks[k]);
	fprintf(f, "top syscalls (share of calls, rules and checks per call):\n");
	for (size_t k = 0; k < ns; k++) {
		const struct sp_audit_cost_sys *s = &c->sys[k];
		fprintf(f, "  %-20s %6.2f%% %8.2f %8.2f\n", sysname(s->arch, s->nr, nb, sizeof(nb)),
			c->calls ? 100.0 * (double)s->calls / (double)c->calls : 0, s->rules,
			s->checks);
	}
	fprintf(f, "top rules (field checks per syscall):\n");
	for (size_t k = 0; k < nr; k++) {
		source_line(cr->text, c->rules[k].line, src, sizeof(src));
		fprintf(f, "  line %-5u %8.3f  %s\n", c->rules[k].line, c->rules[k].checks, src);
	}
	for (size_t k = 0; k < c->nlints; k++)
		fprintf(cli->err, "%s:%u: warning: [%s] %s\n", cr->rules, c->lints[k].line,
			lint_kind(c->lints[k].kind), c->lints[k].msg);
}

int cmd_audit_cost(int argc, char **argv, struct sp_cli *cli)
{
	struct cost_args ca;
	struct mixfile mf[16];
	struct sp_audit_mix *blend = NULL;
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_cost *c = NULL;
	struct cost_report cr;
	char *text = NULL;
	size_t len = 0;
	int rc = parse_args(argc, argv, cli, &ca), err;
	if (rc)
		return rc < 0 ? SP_EXIT_OK : rc;
	rc = SP_EXIT_REJECTED;
	memset(mf, 0, sizeof(mf));
	memset(&cr, 0, sizeof(cr));
	if (load_mixes(cli, &ca, mf, &cr.nmf, &blend) ||
	    cli_rules_load(cli, &ca.ra, &text, &len, &rs))
		goto done;
	struct sp_audit_tools_opts o = { .sz = sizeof(o), .machine = ca.ra.po.machine, .mix = blend,
					 .time_budget_ms = ca.time_ms > 0 ? ca.time_ms : -1 };
	err = sp_audit_cost_compute(rs, &o, &c);
	if (err) {
		fprintf(cli->err, "%s audit cost: %s\n", cli->prog, strerror(-err));
		goto done;
	}
	for (size_t k = 0; k < cr.nmf; k++) {
		struct sp_audit_cost *ck = NULL;
		struct sp_audit_tools_opts ok = o;
		ok.mix = mf[k].mix;
		ok.time_budget_ms = -1;
		if (!sp_audit_cost_compute(rs, &ok, &ck)) {
			cr.per_rules[k] = ck->rules_per_syscall;
			cr.per_checks[k] = ck->checks_per_syscall;
		}
		sp_audit_cost_free(ck);
	}
	cr.rules = ca.ra.rules;
	cr.text = text;
	cr.mf = mf;
	cr.top = ca.top;
	if (ca.json)
		report_json(cli->out, c, &cr);
	else
		report_text(cli, c, &cr);
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
