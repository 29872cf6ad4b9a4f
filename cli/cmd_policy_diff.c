/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_policy_diff.c - `secpath policy diff [SECTION...] POLICY1 POLICY2`: sediff's (setools
 * 4.4) component and TE rule differences of two binary policies (sp_policy_diff_write).  The
 * section options are sediff's (--common, -c/--class, -b/--bool, -r/--role, -t/--type,
 * -a/--attribute, -u/--user, -A/--allow, --auditallow, --dontaudit, -T/--type_trans,
 * --type_change, --type_member, --role_allow, --role_trans, --range_trans, --initialsid,
 * --ibendportcon, --ibpkeycon, --fs_use, --genfscon, --netifcon, --nodecon, --portcon, --polcap,
 * --default, --typebounds, --property, --category, --sensitivity, --level, --constrain,
 * --mlsconstrain, --validatetrans, --mlsvalidatetrans, --allowxperm, --auditallowxperm,
 * --dontauditxperm, --neverallow, --neverallowxperm; -A is --allow --allowxperm); none = every
 * implemented section that has differences.
 * --json: the same sections as one JSON document (secpath.policy-diff/1), see jd_line.
 * Both policies are read before anything is printed; nothing is written but standard output.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cli.h"

static void diff_usage(FILE *f)
{
	fprintf(f, "usage: secpath policy diff [--common] [-c|--class] [-b|--bool] [-r|--role]\n"
		   "                          [-t|--type] [-a|--attribute] [-u|--user]\n"
		   "                          [-A|--allow] [--allowxperm] [--neverallow]\n"
		   "                          [--neverallowxperm] [--auditallow]\n"
		   "                          [--auditallowxperm] [--dontaudit]\n"
		   "                          [--dontauditxperm]\n"
		   "                          [-T|--type_trans] [--type_change] [--type_member]\n"
		   "                          [--role_allow] [--role_trans] [--range_trans]\n"
		   "                          [--property] [--initialsid] [--ibendportcon]\n"
		   "                          [--ibpkeycon] [--fs_use] [--genfscon] [--netifcon]\n"
		   "                          [--nodecon] [--portcon] [--polcap] [--default]\n"
		   "                          [--typebounds] [--category] [--sensitivity]\n"
		   "                          [--level] [--constrain] [--mlsconstrain]\n"
		   "                          [--validatetrans] [--mlsvalidatetrans]\n"
		   "                          [--json] POLICY1 POLICY2\n\n"
		   "Print the differences from POLICY1 to POLICY2 as sediff (setools 4.4) does,\n"
		   "section by section: the policy properties (MLS, handle_unknown, version),\n"
		   "commons, classes (permissions), booleans (default state),\n"
		   "roles (types), types (attributes, aliases, permissive), type attributes\n"
		   "(types), users (roles, default level, range), categories, sensitivities\n"
		   "(aliases) and levels (categories), then the allow, auditallow,\n"
		   "dontaudit, type_transition, type_change and type_member rules, expanded to\n"
		   "type pairs as setools expands them (and the allowxperm, auditallowxperm and\n"
		   "dontauditxperm rules; neverallow rules a binary policy has none of), the\n"
		   "role allow, role_transition and\n"
		   "range_transition rules, the constraints and validatetrans (MLS or not), the\n"
		   "labeling statements (initial SIDs, ibendportcon,\n"
		   "ibpkeycon, fs_use_*, genfscon, netifcon, nodecon, portcon: their contexts),\n"
		   "the policy capabilities, the default_* rules and the typebounds.  A section\n"
		   "option prints that section even without differences; with none, every\n"
		   "section that has differences is printed; -A is --allow --allowxperm.  The\n"
		   "policies may be xz-compressed.  --json: one JSON document (secpath.policy-\n"
		   "diff/1): each section's title and counts, each item's change (added,\n"
		   "removed, modified), its line and the lines under it; a TE rule item's\n"
		   "parts also as an object (rule: kind, source, target, class, perms...).\n");
}

/* sediff's short options, each for the section named after it */
static const char *short_section(const char *a)
{
	static const char *const map[][2] = {
		{ "-c", "class" }, { "-b", "bool" }, { "-r", "role" }, { "-t", "type" },
		{ "-a", "attribute" }, { "-u", "user" }, { "-A", "allow" }, { "-T", "type_trans" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(a, map[i][0]))
			return map[i][1];
	return NULL;
}

static int diff_parse(int argc, char **argv, struct sp_cli *cli, uint64_t *which,
		      const char *pos[2], int *json)
{
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *sec = short_section(a);
		if (!strcmp(a, "--json")) {
			*json = 1;
			continue;
		}
		if (!sec && a[0] == '-' && a[1] == '-' && a[2])
			sec = a + 2;
		if (sec) {
			int s = sp_policy_diff_section_lookup(sec);
			if (s < 0) {
				fprintf(cli->err, "%s: policy diff: unknown option '%s'\n",
					cli->prog, a);
				return SP_EXIT_USAGE;
			}
			*which |= 1ull << s;
			if (!strcmp(a, "-A"))	/* sediff's -A: allow and allowxperm */
				*which |= 1ull << sp_policy_diff_section_lookup("allowxperm");
		} else if (npos < 2 && (a[0] != '-' || !a[1])) {
			pos[npos++] = a;
		} else {
			fprintf(cli->err, "%s: policy diff: unexpected argument '%s'\n", cli->prog, a);
			return SP_EXIT_USAGE;
		}
	}
	if (npos != 2) {
		fprintf(cli->err, "%s: policy diff: two policies expected, %d given\n", cli->prog,
			npos);
		diff_usage(cli->err);
		return SP_EXIT_USAGE;
	}
	return SP_EXIT_OK;
}

/* --json: sediff's text as sp_policy_diff_write writes it, turned into one JSON document
 * (secpath.policy-diff/1) while it is written, through a stdio cookie stream: each section's
 * title and counts, then its items, each with its change (+ added, - removed, * modified),
 * its line's text and the lines printed under it, and a TE rule item's parts parsed from its
 * text (jd_rule; tests/cli/diff-rules-check.py writes them back into the text).  Memory: one
 * line. */
struct jdiff {
	FILE *out;
	char *line;
	size_t n, cap;
	int nsec, nitem, ndet, open_sec, open_item;
};

static void jd_close_item(struct jdiff *j)
{
	if (j->open_item)
		fputs("]}", j->out);
	j->open_item = 0;
}

static void jd_close_section(struct jdiff *j)
{
	jd_close_item(j);
	if (j->open_sec)
		fputs("]}", j->out);
	j->open_sec = 0;
}

/* "TITLE (N Added, N Removed[, N Modified])" or "TITLE (N Modified)" */
static void jd_header(struct jdiff *j, const char *t)
{
	const char *paren = strrchr(t, '(');
	unsigned a = 0, r = 0, m = 0;
	if (!paren || paren == t || (sscanf(paren, "(%u Added, %u Removed, %u Modified)", &a, &r,
					     &m) < 2 && sscanf(paren, "(%u Modified)", &m) != 1))
		return;
	jd_close_section(j);
	fprintf(j->out, "%s{\"title\":", j->nsec++ ? "," : "");
	char title[256];
	snprintf(title, sizeof(title), "%.*s", (int)(paren - t - 1), t);
	cli_json_str(j->out, title);
	fprintf(j->out, ",\"added\":%u,\"removed\":%u,\"modified\":%u,\"items\":[", a, r, m);
	j->open_sec = 1;
	j->nitem = 0;
}

/* ---- a TE rule item as an object ---- */

/* The rule kinds whose items get a "rule" object, by the line's first word. */
enum { RK_AV, RK_TYPE, RK_XPERM };
static int rule_kind(const char *w, size_t n)
{
	static const struct {
		const char *w;
		int k;
	} kinds[] = {
		{ "allow", RK_AV }, { "auditallow", RK_AV }, { "dontaudit", RK_AV },
		{ "neverallow", RK_AV }, { "type_transition", RK_TYPE }, { "type_change", RK_TYPE },
		{ "type_member", RK_TYPE }, { "allowxperm", RK_XPERM },
		{ "auditallowxperm", RK_XPERM }, { "dontauditxperm", RK_XPERM },
		{ "neverallowxperm", RK_XPERM },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].w) == n && !memcmp(kinds[i].w, w, n))
			return kinds[i].k;
	return -1;
}

/* The next space-separated token of *p (NUL-terminated in place), or NULL. */
static char *tok(char **p)
{
	char *s = *p + strspn(*p, " ");
	if (!*s)
		return NULL;
	char *e = s + strcspn(s, " ");
	*p = *e ? e + 1 : e;
	*e = 0;
	return s;
}

/* body's members ("X" or "{ X +Y -[Z] }") as JSON lists: unsigned ones under name, signed ones
 * under added_NAME / removed_NAME when mod (a bracketed range loses its brackets). */
static void json_members(FILE *f, char *body, const char *name, int mod)
{
	enum { MAXM = 4096 };	/* jd_rule's lines are under 8 KiB: fewer members than this */
	char *m[MAXM], sg[MAXM], *t;
	size_t n = 0;
	for (char *p = body; n < MAXM && (t = tok(&p));) {
		if (!strcmp(t, "{") || !strcmp(t, "}"))
			continue;
		sg[n] = *t == '+' || *t == '-' ? *t : 0;
		t += sg[n] != 0;
		size_t l = strlen(t);
		if (*t == '[' && l > 1 && t[l - 1] == ']') {
			t[l - 1] = 0;
			t++;
		}
		m[n++] = t;
	}
	for (int pass = 0; pass < (mod ? 3 : 1); pass++) {
		fprintf(f, ",\"%s%s\":[", pass == 1 ? "added_" : pass == 2 ? "removed_" : "", name);
		for (size_t i = 0, k = 0; i < n; i++)
			if (sg[i] == "\0+-"[pass]) {
				fputs(k++ ? "," : "", f);
				cli_json_str(f, m[i]);
			}
		fputc(']', f);
	}
}

/* The conditional suffix " [ EXPR ]:True|False" (or " [ EXPR ]") cut from rest: 0, or -1 when
 * rest does not end in ';' after it. */
static int split_cond(char *rest, char **expr, int *branch)
{
	char *c = strstr(rest, "; [ ");
	*expr = NULL;
	*branch = -1;
	if (c) {
		char *e = strrchr(c, ']');
		if (!e || e < c + 4 || e[-1] != ' ')
			return -1;
		*branch = !strcmp(e, "]:True") ? 1 : !strcmp(e, "]:False") ? 0 : e[1] ? -2 : -1;
		if (*branch == -2)
			return -1;
		e[-1] = 0;
		*expr = c + 4;
		c[1] = 0;	/* the body keeps its ';' */
	}
	size_t n = strlen(rest);
	if (!n || rest[n - 1] != ';')
		return -1;
	rest[n - 1] = 0;
	return 0;
}

/* ,"rule":{...} of a TE rule line (kind, source, target, class, then the kind's members and the
 * conditional); nothing when the line is not one. */
static void jd_rule(FILE *f, const char *text, int mod)
{
	char buf[8192], *p = buf, *expr;
	int branch;
	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return;
	char *kind = tok(&p), *src = tok(&p), *tc = tok(&p), *colon = tc ? strchr(tc, ':') : NULL;
	int rk = kind ? rule_kind(kind, strlen(kind)) : -1;
	if (rk < 0 || !src || !colon || split_cond(p, &expr, &branch))
		return;
	*colon = 0;
	fputs(",\"rule\":{\"kind\":", f);
	cli_json_str(f, kind);
	fputs(",\"source\":", f);
	cli_json_str(f, src);
	fputs(",\"target\":", f);
	cli_json_str(f, tc);
	fputs(",\"class\":", f);
	cli_json_str(f, colon + 1);
	if (rk == RK_AV) {
		json_members(f, p, "perms", mod);
	} else if (rk == RK_XPERM) {
		char *xt = tok(&p);
		fputs(",\"xperm_type\":", f);
		cli_json_str(f, xt ? xt : "");
		json_members(f, p, "xperms", mod);
	} else {
		char *def = tok(&p), *old = mod ? tok(&p) : NULL;
		const char *name = p + strspn(p, " ");	/* a filename transition's name, or "" */
		fputs(",\"default\":", f);
		cli_json_str(f, def ? def + (mod && *def == '+') : "");
		if (mod) {
			fputs(",\"old_default\":", f);
			cli_json_str(f, old ? old + (*old == '-') : "");
		}
		fputs(",\"name\":", f);
		*name ? cli_json_str(f, name) : (void)fputs("null", f);
	}
	fputs(",\"conditional\":", f);
	if (expr) {
		fputs("{\"expression\":", f);
		cli_json_str(f, expr);
		fprintf(f, ",\"branch\":%s}", branch < 0 ? "null" : branch ? "true" : "false");
	} else {
		fputs("null", f);
	}
	fputc('}', f);
}

static void jd_line(struct jdiff *j, const char *s)
{
	size_t ind = strspn(s, " ");
	const char *t = s + ind;
	if (!*t)
		return;
	if (!ind) {
		jd_header(j, t);
	} else if (ind == 6 && j->open_sec && strchr("+-*", t[0]) && t[1] == ' ') {
		static const char *const change[] = { "added", "removed", "modified" };
		jd_close_item(j);
		fprintf(j->out, "%s{\"change\":\"%s\",\"text\":", j->nitem++ ? "," : "",
			change[t[0] == '+' ? 0 : t[0] == '-' ? 1 : 2]);
		cli_json_str(j->out, t + 2);
		jd_rule(j->out, t + 2, t[0] == '*');
		fputs(",\"details\":[", j->out);
		j->open_item = 1;
		j->ndet = 0;
	} else if (ind > 6 && j->open_item) {
		if (j->ndet++)
			fputc(',', j->out);
		cli_json_str(j->out, t);
	}	/* else "   Added TITLE: N": the header counted them */
}

static ssize_t jd_write(void *c, const char *buf, size_t len)
{
	struct jdiff *j = c;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			j->line[j->n] = 0;
			jd_line(j, j->line);
			j->n = 0;
			continue;
		}
		if (j->n + 1 >= j->cap) {
			size_t nc = j->cap ? 2 * j->cap : 1024;
			char *nl = realloc(j->line, nc);
			if (!nl) {
				errno = ENOMEM;
				return -1;
			}
			j->line = nl;
			j->cap = nc;
		}
		j->line[j->n++] = buf[i];
	}
	return (ssize_t)len;
}

static int jd_close(void *c)
{
	struct jdiff *j = c;
	if (j->n) {
		j->line[j->n] = 0;
		jd_line(j, j->line);
	}
	jd_close_section(j);
	fputs("]}\n", j->out);
	free(j->line);
	return 0;
}

/* The differences into cli->out as JSON: the document's head here, the rest as written. */
static int diff_json(struct sp_cli *cli, const struct sp_policy *a, const struct sp_policy *b,
		     uint64_t which, const char *pos[2])
{
	struct jdiff j = { .out = cli->out };
	fputs("{\"schema\":\"secpath.policy-diff/1\",\"files\":[", cli->out);
	cli_json_str(cli->out, pos[0]);
	fputc(',', cli->out);
	cli_json_str(cli->out, pos[1]);
	fputs("],\"sections\":[", cli->out);
	FILE *f = fopencookie(&j, "w", (cookie_io_functions_t){ .write = jd_write,
								.close = jd_close });
	if (!f)
		return -errno;
	int rc = sp_policy_diff_write(a, b, which, f);
	if (fclose(f) && !rc)
		rc = -EIO;
	return rc;
}

int cmd_policy_diff(int argc, char **argv, struct sp_cli *cli)
{
	if (argc > 1 && cli_is_help(argv[1])) {
		diff_usage(cli->out);
		return SP_EXIT_OK;
	}
	uint64_t which = 0;
	const char *pos[2];
	int json = 0;
	int rc = diff_parse(argc, argv, cli, &which, pos, &json);
	if (rc)
		return rc;
	struct sp_policy *a = NULL, *b = NULL;
	if (cli_policy_load(cli, pos[0], SP_AVTAB_FLAT, &a) ||
	    cli_policy_load(cli, pos[1], SP_AVTAB_FLAT, &b)) {
		sp_policy_free(a);
		return SP_EXIT_REJECTED;
	}
	rc = json ? diff_json(cli, a, b, which, pos) : sp_policy_diff_write(a, b, which, cli->out);
	if (rc)
		fprintf(cli->err, "%s: policy diff: %s\n", cli->prog, strerror(-rc));
	sp_policy_free(a);
	sp_policy_free(b);
	return rc ? SP_EXIT_REJECTED : SP_EXIT_OK;
}
