/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util.c - helpers shared by the command groups: diagnostics printing, file reading, JSON strings.
 */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "secpath/audit_log.h"

void cli_print_diags(struct sp_cli *cli, const struct sp_diags *d,
		     const char *(*source_of)(void *ud, const char *file, uint32_t line), void *ud)
{
	char buf[2048];
	for (size_t i = 0; i < d->n; i++) {
		const struct sp_diag *dg = &d->v[i];
		const char *src = source_of && dg->line ? source_of(ud, dg->file, dg->line) : NULL;
		int n = sp_diag_format(dg, src, buf, sizeof(buf));
		fputs(buf, cli->err);
		if (n >= (int)sizeof(buf))
			fputc('\n', cli->err);	/* cut short: end the line anyway */
	}
	if (d->dropped)
		fprintf(cli->err, "%s: %zu more diagnostics not shown\n", cli->prog, d->dropped);
}

int cli_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void cli_rules_args_init(struct cli_rules_args *ra)
{
	memset(ra, 0, sizeof(*ra));
	ra->po.sz = sizeof(ra->po);
	ra->po.machine = "x86_64";
	ra->po.flags = SP_AUDIT_PARSE_KERNEL;	/* one verdict per rule: what the kernel refuses */
}

int cli_rules_arg(int argc, char **argv, int *i, struct cli_rules_args *ra)
{
	const char *a = argv[*i];
	if (!strcmp(a, "-c") || !strcmp(a, "--continue")) {
		ra->keep_going = 1;
		return 1;
	}
	int features = !strcmp(a, "--features");
	const char **slot = !strcmp(a, "-R") || !strcmp(a, "--rules") ? &ra->rules
			    : !strcmp(a, "--machine") ? &ra->po.machine
			    : !strcmp(a, "--passwd") ? &ra->po.passwd_file
			    : !strcmp(a, "--group") ? &ra->po.group_file
			    : !strcmp(a, "--dirs") ? &ra->po.dirs_file : NULL;
	if (!slot && !features)
		return 0;
	if (*i + 1 >= argc) {
		ra->missing = a;
		return -1;
	}
	if (features) {
		unsigned long long v;
		if (cli_parse_u64(argv[++*i], &v) || v > UINT32_MAX) {
			ra->bad_features = argv[*i];
			return -1;
		}
		ra->po.features = (uint32_t)v;
		ra->po.features_given = 1;
		return 1;
	}
	*slot = argv[++*i];
	return 1;
}

int cli_rules_args_check(struct sp_cli *cli, const struct cli_rules_args *ra, const char *cmd)
{
	uint32_t arch;
	if (ra->missing) {
		fprintf(cli->err, "%s audit %s: %s needs a value\n", cli->prog, cmd, ra->missing);
		return -1;
	}
	if (ra->bad_features) {
		fprintf(cli->err, "%s audit %s: bad --features '%s' (a number up to 0xffffffff)\n",
			cli->prog, cmd, ra->bad_features);
		return -1;
	}
	if (ra->po.machine && sp_audit_arch_lookup(NULL, ra->po.machine, &arch)) {
		fprintf(cli->err, "%s audit %s: unknown machine '%s'\n", cli->prog, cmd,
			ra->po.machine);
		return -1;
	}
	return 0;
}

void cli_rules_args_inputs(const struct cli_rules_args *ra, struct cli_files *fs)
{
	const char *const v[] = { ra->rules, ra->po.passwd_file, ra->po.group_file,
				  ra->po.dirs_file };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i])
			cli_files_add_input(fs, v[i]);
}

/* --format's names and their SP_AUDIT_REPLAY_* format flags (0: raw records). */
static int event_format(const char *v)
{
	static const struct { const char *name; unsigned flag; } f[] = {
		{ "raw", 0 }, { "laurel", SP_AUDIT_REPLAY_LAUREL },
		{ "interpret", SP_AUDIT_REPLAY_INTERPRET }, { "csv", SP_AUDIT_REPLAY_CSV },
		{ "text", SP_AUDIT_REPLAY_TEXT },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!strcmp(v, f[i].name))
			return (int)f[i].flag;
	return -1;
}

int cli_event_format_arg(int argc, char **argv, int *i, struct sp_cli *cli, unsigned *fmt,
			 unsigned *extra, const char *cmd)
{
	const char *a = argv[*i];
	if (!strcmp(a, "--format") && *i + 1 < argc) {
		int f = event_format(argv[++*i]);
		if (f < 0) {
			fprintf(cli->err, "%s: audit %s: bad --format '%s' (raw, laurel, interpret, "
				"csv, text)\n", cli->prog, cmd, argv[*i]);
			return SP_EXIT_USAGE;
		}
		*fmt = (unsigned)f;
	} else if (!strcmp(a, "-i") || !strcmp(a, "--interpret")) {
		*fmt = SP_AUDIT_REPLAY_INTERPRET;
	} else if (!strcmp(a, "--extra-keys") || !strcmp(a, "--extra-obj2") ||
		   !strcmp(a, "--extra-time")) {
		*extra |= a[8] == 'k' ? SP_AUDIT_REPLAY_EXTRA_KEYS :
			  a[8] == 'o' ? SP_AUDIT_REPLAY_EXTRA_OBJ2 : SP_AUDIT_REPLAY_EXTRA_TIME;
	} else if (!strcmp(a, "--extra-labels")) {
		fprintf(cli->err, "%s: audit %s: --extra-labels is not offered (auparse's subject "
			"and object attribute lists)\n", cli->prog, cmd);
		return SP_EXIT_USAGE;
	} else {
		return 0;
	}
	return 1;
}

int cli_event_format_check(struct sp_cli *cli, unsigned fmt, unsigned extra, const char *cmd)
{
	if (!extra || fmt == SP_AUDIT_REPLAY_CSV)
		return 0;
	fprintf(cli->err, "%s: audit %s: --extra-keys, --extra-obj2 and --extra-time are columns "
		"of --format csv\n", cli->prog, cmd);
	return SP_EXIT_USAGE;
}

int cli_parse_u64(const char *s, unsigned long long *v)
{
	char *e;
	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	unsigned long long x = strtoull(s, &e, 0);
	if (errno || *e)
		return -EINVAL;
	*v = x;
	return 0;
}

int cli_parse_double(const char *s, double *v)
{
	char *e;
	errno = 0;
	if (!s || !*s)
		return -EINVAL;
	double x = strtod(s, &e);
	if (errno || *e || !isfinite(x) || x < 0)
		return -EINVAL;
	*v = x;
	return 0;
}

int cli_datadir(struct sp_cli *cli, char *out, size_t len, int quiet)
{
	const char *env = getenv("SECPATH_DATADIR");
	struct stat st;
	if (env && *env) {
		snprintf(out, len, "%s", env);
		if (!stat(out, &st) && S_ISDIR(st.st_mode))
			return 0;
		if (!quiet)
			fprintf(cli->err, "%s: SECPATH_DATADIR '%s' is not a directory\n", cli->prog,
				env);
		return -ENOENT;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		/* installed: PREFIX/bin/secpath and PREFIX/share/secpath; the build tree:
		 * out/VARIANT/secpath and data/ */
		static const char *const rel[] = { "../share/secpath", "../../data" };
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			snprintf(out, len, "%.3000s/%s", exe, rel[i]);
			if (!stat(out, &st) && S_ISDIR(st.st_mode) &&
			    !access(out, R_OK | X_OK))
				return 0;
		}
	}
	if (!quiet)
		fprintf(cli->err, "%s: cannot find the bundled data (SECPATH_DATADIR is unset, and "
			"neither ../share/secpath nor ../../data beside the binary exists)\n",
			cli->prog);
	return -ENOENT;
}

int cli_data_file(struct sp_cli *cli, const char *rel, char *out, size_t len)
{
	char dir[PATH_MAX];
	int err = cli_datadir(cli, dir, sizeof(dir), 0);
	if (err)
		return err;
	snprintf(out, len, "%.3000s/%s", dir, rel);
	return 0;
}

int cli_rules_load(struct sp_cli *cli, const struct cli_rules_args *ra, char **text, size_t *len,
		   struct sp_audit_ruleset **rs)
{
	struct sp_diags d;
	*rs = NULL;
	int err = sp_file_read(ra->rules, text, len);
	if (err) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, ra->rules, strerror(-err));
		*text = NULL;
		return -1;
	}
	sp_diags_init(&d, NULL);
	err = cli_rules_parse(ra->rules, *text, *len, &ra->po, rs, &d);
	cli_print_diags(cli, &d, NULL, NULL);
	if (err && !d.n)
		fprintf(cli->err, "%s: cannot parse '%s': %s\n", cli->prog, ra->rules,
			strerror(-err));
	int bad = err || (d.nerrors && !ra->keep_going && !cli_rules_continue(*rs, &d));
	sp_diags_release(&d);
	return bad ? -1 : 0;
}

int cli_rules_continue(const struct sp_audit_ruleset *rs, const struct sp_diags *d)
{
	uint32_t first = UINT32_MAX;

	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].severity == SP_SEV_ERROR && d->v[i].line && d->v[i].line < first)
			first = d->v[i].line;
	for (size_t i = 0; rs && i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it) || it.kind != SP_AUDIT_ITEM_CTRL || it.line >= first)
			continue;
		if (!strcmp(it.ctrl, "-i") || !strcmp(it.ctrl, "-c"))
			return 1;
	}
	return 0;
}

void cli_json_diags(FILE *f, const struct sp_diags *d)
{
	fputc('[', f);
	for (size_t i = 0; i < d->n; i++) {
		const struct sp_diag *g = &d->v[i];
		fputs(i ? ",{\"file\":" : "{\"file\":", f);
		if (g->file)
			cli_json_str(f, g->file);
		else
			fputs("null", f);
		if (g->has_offset)
			fprintf(f, ",\"offset\":%llu", (unsigned long long)g->offset);
		else
			fprintf(f, ",\"line\":%u,\"col\":%u,\"end_col\":%u", g->line, g->col,
				g->end_col ? g->end_col : g->col);
		fprintf(f, ",\"severity\":\"%s\",\"message\":",
			g->severity == SP_SEV_ERROR ? "error" : g->severity == SP_SEV_WARNING ? "warning"
										 : "note");
		cli_json_str(f, g->msg);
		fputc('}', f);
	}
	fputc(']', f);
	if (d->dropped)
		fprintf(f, ",\"diagnostics_not_shown\":%zu", d->dropped);
	else
		fputs(",\"diagnostics_not_shown\":0", f);
}

int cli_rules_parse(const char *path, const char *text, size_t len,
		    const struct sp_audit_parse_opts *po, struct sp_audit_ruleset **rs,
		    struct sp_diags *d)
{
	size_t pl = strlen(path);
	if (pl > 4 && !strcmp(path + pl - 4, ".tsv"))
		return sp_audit_ruleset_parse_tsv(text, len, path, rs, d);
	return sp_audit_ruleset_parse(text, len, path, po, rs, d);
}
