/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit.c - `secpath audit ...`: the rule-language commands (check, compile, list, decode)
 * and dispatch of the filter-engine commands (filter, run, replay, cost, optimize) to
 * cmd_audit_filter().  Exit codes: 0 ok, 1 input rejected, 2 usage.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "secpath/audit.h"

struct audit_cli_opts {
	struct sp_audit_parse_opts po;
	const char *format;		/* compile: tsv|hex|bin */
	int json;
	int kernel;			/* decode: apply the kernel's per-field checks */
	int nfiles;
	char **files;
};

static void usage(FILE *f)
{
	fputs("usage: secpath audit <command> [options] [FILE...]\n"
	      "\n"
	      "rule language (auditctl 3.0.9 exact):\n"
	      "  check FILE...        report every line auditctl would reject (exit 1 if any)\n"
	      "  compile FILE         print what auditctl would send for each line\n"
	      "                       --format tsv (LINE<TAB>ADD|DEL|CTRL|ERR|WARN<TAB>...), hex, bin\n"
	      "  list FILE            canonical auditctl -l style text of every rule\n"
	      "  decode [FILE|-]      struct audit_rule_data blobs (hex lines or binary) to text\n"
	      "\n"
	      "filter engine: filter, run, replay, cost, optimize (see secpath audit filter --help)\n"
	      "\n"
	      "host inputs (default: this host):\n"
	      "  --machine M          machine for -S names and b32/b64 (x86_64, i686, aarch64...)\n"
	      "  --passwd F, --group F  user/group names from these files instead of NSS\n"
	      "  --dirs F             -w paths that are directories (one per line) instead of stat()\n"
	      "  --features N         kernel audit feature bitmap (default 0x7f, kernel 6.1)\n"
	      "  --kernel             decode: also apply the kernel's per-field checks\n"
	      "  --json               machine-readable report (check, compile, list, decode)\n",
	      f);
}

/* Parse the shared options; 0, or SP_EXIT_USAGE after printing why (or -1 for --help). */
static int parse_opts(int argc, char **argv, struct sp_cli *cli, struct audit_cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->po.sz = sizeof(o->po);
	o->format = "tsv";
	o->files = calloc((size_t)argc + 1, sizeof(char *));
	if (!o->files)
		return SP_EXIT_USAGE;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;
		if (cli_is_help(a)) {
			usage(cli->out);
			return -1;
		} else if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--kernel")) {
			o->kernel = 1;
		} else if (!strcmp(a, "--machine")) {
			slot = &o->po.machine;
		} else if (!strcmp(a, "--passwd")) {
			slot = &o->po.passwd_file;
		} else if (!strcmp(a, "--group")) {
			slot = &o->po.group_file;
		} else if (!strcmp(a, "--dirs")) {
			slot = &o->po.dirs_file;
		} else if (!strcmp(a, "--format")) {
			slot = &o->format;
		} else if (!strcmp(a, "--features")) {
			if (i + 1 >= argc) {
				fprintf(cli->err, "%s audit: --features needs a value\n", cli->prog);
				return SP_EXIT_USAGE;
			}
			char *end;
			o->po.features = (uint32_t)strtoul(argv[++i], &end, 0);
			o->po.features_given = 1;
			if (*end) {
				fprintf(cli->err, "%s audit: bad --features '%s'\n", cli->prog, argv[i]);
				return SP_EXIT_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(cli->err, "%s audit %s: unknown option '%s'\n", cli->prog, argv[0], a);
			return SP_EXIT_USAGE;
		} else {
			o->files[o->nfiles++] = argv[i];
		}
		if (slot) {
			if (i + 1 >= argc) {
				fprintf(cli->err, "%s audit: %s needs a value\n", cli->prog, a);
				return SP_EXIT_USAGE;
			}
			*slot = argv[++i];
		}
	}
	if (o->po.machine) {
		uint32_t arch;
		if (sp_audit_arch_lookup(NULL, o->po.machine, &arch)) {
			fprintf(cli->err, "%s audit: unknown machine '%s'\n", cli->prog, o->po.machine);
			return SP_EXIT_USAGE;
		}
	}
	return 0;
}

struct src {
	const char *text;
	size_t len;
	char line[6200];
};

static const char *source_of(void *ud, const char *file, uint32_t line)
{
	struct src *s = ud;
	(void)file;
	size_t pos = 0;
	for (uint32_t l = 1; l < line && pos < s->len; l++) {
		const char *nl = memchr(s->text + pos, '\n', s->len - pos);
		if (!nl)
			return NULL;
		pos = (size_t)(nl - s->text) + 1;
	}
	if (pos >= s->len)
		return NULL;
	const char *nl = memchr(s->text + pos, '\n', s->len - pos);
	size_t n = nl ? (size_t)(nl - s->text) - pos : s->len - pos;
	if (n >= sizeof(s->line))
		n = sizeof(s->line) - 1;
	memcpy(s->line, s->text + pos, n);
	s->line[n] = 0;
	return s->line;
}

static void print_hex(FILE *f, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

/* Read and parse one file; 0, 1 (lines rejected) or 2 (file unreadable / hard failure). */
static int load(struct sp_cli *cli, const struct audit_cli_opts *o, const char *path, char **text,
		size_t *len, struct sp_audit_ruleset **rs, struct sp_diags *d)
{
	int rc = sp_file_read(path, text, len);
	if (rc) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, strerror(-rc));
		return 2;
	}
	rc = sp_audit_ruleset_parse(*text, *len, path, &o->po, rs, d);
	if (rc) {
		fprintf(cli->err, "%s: cannot parse '%s': %s\n", cli->prog, path, strerror(-rc));
		free(*text);
		return 2;
	}
	return d->nerrors ? 1 : 0;
}

static void json_diags(FILE *f, const struct sp_diags *d)
{
	fputs("[", f);
	for (size_t i = 0; i < d->n; i++) {
		const struct sp_diag *g = &d->v[i];
		fprintf(f, "%s{\"line\":%u,\"col\":%u,\"severity\":\"%s\",\"message\":", i ? "," : "",
			g->line, g->col, g->severity == SP_SEV_ERROR ? "error" : "warning");
		cli_json_str(f, g->msg);
		fputs("}", f);
	}
	fputs("]", f);
}

static int cmd_check(struct sp_cli *cli, struct audit_cli_opts *o)
{
	if (!o->nfiles) {
		fprintf(cli->err, "%s audit check: no FILE given\n", cli->prog);
		return SP_EXIT_USAGE;
	}
	int worst = 0;
	if (o->json)
		fputs("{\"files\":[", cli->out);
	for (int i = 0; i < o->nfiles; i++) {
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		char *text = NULL;
		size_t len = 0;
		struct sp_audit_ruleset *rs = NULL;
		int rc = load(cli, o, o->files[i], &text, &len, &rs, &d);
		if (rc == 2) {
			sp_diags_release(&d);
			return SP_EXIT_REJECTED;
		}
		size_t nrules = 0;
		for (size_t k = 0; k < sp_audit_ruleset_count(rs); k++) {
			struct sp_audit_item it;
			sp_audit_ruleset_item(rs, k, &it);
			nrules += it.kind != SP_AUDIT_ITEM_CTRL;
		}
		if (o->json) {
			fprintf(cli->out, "%s{\"file\":", i ? "," : "");
			cli_json_str(cli->out, o->files[i]);
			fprintf(cli->out, ",\"rules\":%zu,\"errors\":%zu,\"warnings\":%zu,\"diagnostics\":",
				nrules, d.nerrors, d.nwarnings);
			json_diags(cli->out, &d);
			fputs("}", cli->out);
		} else {
			struct src s = { .text = text, .len = len };
			cli_print_diags(cli, &d, source_of, &s);
			fprintf(cli->out, "%s: %zu rules, %zu errors, %zu warnings\n", o->files[i], nrules,
				d.nerrors, d.nwarnings);
		}
		if (rc > worst)
			worst = rc;
		sp_audit_ruleset_free(rs);
		sp_diags_release(&d);
		free(text);
	}
	if (o->json)
		fputs("]}\n", cli->out);
	return worst ? SP_EXIT_REJECTED : SP_EXIT_OK;
}

/* Output one line's worth: CTRL items, then diagnostics, then rules (auditctl's order). */
static void tsv_line(struct sp_cli *cli, const struct sp_audit_ruleset *rs, size_t *ii,
		     const struct sp_diags *d, size_t *di, uint32_t line)
{
	size_t n = sp_audit_ruleset_count(rs), start = *ii;
	struct sp_audit_item it;
	for (size_t k = start; k < n && !sp_audit_ruleset_item(rs, k, &it) && it.line == line; k++)
		if (it.kind == SP_AUDIT_ITEM_CTRL)
			fprintf(cli->out, "%u\tCTRL\t%s\n", line, it.ctrl);
	for (; *di < d->n && d->v[*di].line == line; (*di)++)
		fprintf(cli->out, "%u\t%s\t%s\n", line, d->v[*di].severity == SP_SEV_ERROR ? "ERR" : "WARN",
			d->v[*di].msg);
	for (; *ii < n && !sp_audit_ruleset_item(rs, *ii, &it) && it.line == line; (*ii)++) {
		if (it.kind == SP_AUDIT_ITEM_CTRL)
			continue;
		fprintf(cli->out, "%u\t%s\t", line, it.kind == SP_AUDIT_ITEM_ADD ? "ADD" : "DEL");
		print_hex(cli->out, it.blob, it.blob_len);
		fputc('\n', cli->out);
	}
}

static int cmd_compile(struct sp_cli *cli, struct audit_cli_opts *o)
{
	if (o->nfiles != 1) {
		fprintf(cli->err, "%s audit compile: exactly one FILE expected\n", cli->prog);
		return SP_EXIT_USAGE;
	}
	int fmt = !strcmp(o->format, "tsv") ? 0 : !strcmp(o->format, "hex") ? 1
		  : !strcmp(o->format, "bin") ? 2 : -1;
	if (fmt < 0) {
		fprintf(cli->err, "%s audit compile: --format is tsv, hex or bin\n", cli->prog);
		return SP_EXIT_USAGE;
	}
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	d.limit = 1000000;
	o->po.max_errors = 1000000;	/* compile reports every line */
	char *text = NULL;
	size_t len = 0;
	struct sp_audit_ruleset *rs = NULL;
	int rc = load(cli, o, o->files[0], &text, &len, &rs, &d);
	if (rc == 2) {
		sp_diags_release(&d);
		return SP_EXIT_REJECTED;
	}
	size_t n = sp_audit_ruleset_count(rs);
	if (o->json) {
		/* {"file":F,"records":[{"line":N,"kind":"ADD|DEL","hex":H}|{"line":N,"kind":"CTRL",
		 * "text":T}...],"diagnostics":[...]}: the same content as the tsv format */
		fputs("{\"file\":", cli->out);
		cli_json_str(cli->out, o->files[0]);
		fputs(",\"records\":[", cli->out);
		for (size_t k = 0; k < n; k++) {
			struct sp_audit_item it;
			sp_audit_ruleset_item(rs, k, &it);
			const char *kind = it.kind == SP_AUDIT_ITEM_ADD ? "ADD"
					   : it.kind == SP_AUDIT_ITEM_DEL ? "DEL" : "CTRL";
			fprintf(cli->out, "%s{\"line\":%u,\"kind\":\"%s\",", k ? "," : "", it.line, kind);
			if (it.kind == SP_AUDIT_ITEM_CTRL) {
				fputs("\"text\":", cli->out);
				cli_json_str(cli->out, it.ctrl);
			} else {
				fputs("\"hex\":\"", cli->out);
				print_hex(cli->out, it.blob, it.blob_len);
				fputc('"', cli->out);
			}
			fputc('}', cli->out);
		}
		fputs("],\"diagnostics\":", cli->out);
		json_diags(cli->out, &d);
		fputs("}\n", cli->out);
	} else if (fmt == 0) {
		size_t ii = 0, di = 0;
		while (ii < n || di < d.n) {
			struct sp_audit_item it;
			uint32_t li = ii < n && !sp_audit_ruleset_item(rs, ii, &it) ? it.line : UINT32_MAX;
			uint32_t ld = di < d.n ? d.v[di].line : UINT32_MAX;
			tsv_line(cli, rs, &ii, &d, &di, li < ld ? li : ld);
		}
	} else {
		for (size_t k = 0; k < n; k++) {
			struct sp_audit_item it;
			sp_audit_ruleset_item(rs, k, &it);
			if (it.kind == SP_AUDIT_ITEM_CTRL)
				continue;
			if (fmt == 1) {
				print_hex(cli->out, it.blob, it.blob_len);
				fputc('\n', cli->out);
			} else {
				fwrite(it.blob, 1, it.blob_len, cli->out);
			}
		}
		struct src s = { .text = text, .len = len };
		cli_print_diags(cli, &d, source_of, &s);
	}
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	free(text);
	return rc ? SP_EXIT_REJECTED : SP_EXIT_OK;
}

static int print_rule(struct sp_cli *cli, const struct audit_cli_opts *o, const void *blob, size_t len,
		      enum sp_audit_item_kind kind, struct sp_diags *d, const char *file, int first)
{
	struct sp_audit_rule r;
	if (sp_audit_rule_decode(blob, len, o->kernel ? SP_AUDIT_DECODE_KERNEL : 0, &r, d, file))
		return -1;
	char buf[16384];
	sp_audit_rule_format(&r, kind, o->po.machine, buf, sizeof(buf));
	if (o->json) {
		fputs(first ? "" : ",", cli->out);
		cli_json_str(cli->out, buf);
	} else {
		fprintf(cli->out, "%s\n", buf);
	}
	return 0;
}

static int cmd_list(struct sp_cli *cli, struct audit_cli_opts *o)
{
	if (o->nfiles != 1) {
		fprintf(cli->err, "%s audit list: exactly one FILE expected\n", cli->prog);
		return SP_EXIT_USAGE;
	}
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	char *text = NULL;
	size_t len = 0;
	struct sp_audit_ruleset *rs = NULL;
	int rc = load(cli, o, o->files[0], &text, &len, &rs, &d);
	if (rc == 2) {
		sp_diags_release(&d);
		return SP_EXIT_REJECTED;
	}
	if (o->json)
		fputs("{\"rules\":[", cli->out);
	int first = 1;
	for (size_t k = 0; k < sp_audit_ruleset_count(rs); k++) {
		struct sp_audit_item it;
		sp_audit_ruleset_item(rs, k, &it);
		if (it.kind == SP_AUDIT_ITEM_CTRL) {
			if (o->json) {
				fputs(first ? "" : ",", cli->out);
				cli_json_str(cli->out, it.ctrl);
			} else {
				fprintf(cli->out, "%s\n", it.ctrl);
			}
		} else if (print_rule(cli, o, it.blob, it.blob_len, it.kind, &d, o->files[0], first)) {
			rc = 1;
		}
		first = 0;
	}
	if (o->json) {
		fputs("],\"diagnostics\":", cli->out);
		json_diags(cli->out, &d);
		fputs("}\n", cli->out);
	}
	struct src s = { .text = text, .len = len };
	cli_print_diags(cli, &d, source_of, &s);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	free(text);
	return rc ? SP_EXIT_REJECTED : SP_EXIT_OK;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int cmd_decode(struct sp_cli *cli, struct audit_cli_opts *o)
{
	if (o->nfiles > 1) {
		fprintf(cli->err, "%s audit decode: at most one FILE expected\n", cli->prog);
		return SP_EXIT_USAGE;
	}
	const char *path = o->nfiles ? o->files[0] : "-";
	char *text;
	size_t len;
	int rc = sp_file_read(path, &text, &len);
	if (rc) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, strerror(-rc));
		return SP_EXIT_REJECTED;
	}
	/* hex text if every byte is a hex digit, tab, space, newline or part of a TSV prefix */
	int is_text = 1;
	for (size_t i = 0; i < len && is_text; i++) {
		unsigned char c = (unsigned char)text[i];
		is_text = c == '\n' || c == '\r' || c == '\t' || c == ' ' || isalnum(c);
	}
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	int bad = 0, first = 1;
	if (o->json)
		fputs("{\"rules\":[", cli->out);
	if (is_text) {
		unsigned char *blob = malloc(len / 2 + 1);
		unsigned lineno = 1;
		for (char *line = text; blob && line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = 0;
			char *h = strrchr(line, '\t');	/* TSV from compile: the last column */
			h = h ? h + 1 : line;
			enum sp_audit_item_kind kind = strstr(line, "\tDEL\t") ? SP_AUDIT_ITEM_DEL
						       : SP_AUDIT_ITEM_ADD;
			size_t hl = strcspn(h, "\r "), bl = 0;
			int ok = hl && hl % 2 == 0 && !strstr(line, "\tCTRL\t") && !strstr(line, "\tERR\t") &&
				 !strstr(line, "\tWARN\t");
			for (size_t i = 0; ok && i < hl; i += 2) {
				int a = hexval(h[i]), b = hexval(h[i + 1]);
				if (a < 0 || b < 0)
					ok = 0;
				else
					blob[bl++] = (unsigned char)(a * 16 + b);
			}
			int other = strstr(line, "\tCTRL\t") || strstr(line, "\tERR\t") ||
				    strstr(line, "\tWARN\t") || !line[strspn(line, " \t\r")];
			if (ok) {
				if (print_rule(cli, o, blob, bl, kind, &d, path, first))
					bad = 1;
				first = 0;
			} else if (!other) {
				fprintf(cli->err, "%s: line %u: not a hex rule blob\n", path, lineno);
				bad = 1;
			}
			lineno++;
			line = nl ? nl + 1 : NULL;
		}
		free(blob);
	} else {
		size_t pos = 0;
		while (pos < len) {
			size_t n = sp_audit_rule_blob_size(text + pos, len - pos);
			if (print_rule(cli, o, text + pos, n, SP_AUDIT_ITEM_ADD, &d, path, first)) {
				bad = 1;
				break;
			}
			first = 0;
			pos += n;
		}
	}
	if (o->json) {
		fputs("],\"diagnostics\":", cli->out);
		json_diags(cli->out, &d);
		fputs("}\n", cli->out);
	}
	cli_print_diags(cli, &d, NULL, NULL);
	sp_diags_release(&d);
	free(text);
	return bad ? SP_EXIT_REJECTED : SP_EXIT_OK;
}

int cmd_audit(int argc, char **argv, struct sp_cli *cli)
{
	if (argc < 2 || cli_is_help(argv[1])) {
		usage(argc < 2 ? cli->err : cli->out);
		return argc < 2 ? SP_EXIT_USAGE : SP_EXIT_OK;
	}
	static const char *const filter_cmds[] = { "filter", "run", "replay", "cost", "optimize" };
	for (size_t i = 0; i < sizeof(filter_cmds) / sizeof(filter_cmds[0]); i++)
		if (!strcmp(argv[1], filter_cmds[i]))
			return cmd_audit_filter(argc - 1, argv + 1, cli);
	static const struct {
		const char *name;
		int (*fn)(struct sp_cli *, struct audit_cli_opts *);
	} cmds[] = {
		{ "check", cmd_check }, { "compile", cmd_compile }, { "list", cmd_list },
		{ "decode", cmd_decode },
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		struct audit_cli_opts o;
		int rc = parse_opts(argc - 1, argv + 1, cli, &o);
		if (rc == 0)
			rc = cmds[i].fn(cli, &o);
		else if (rc < 0)
			rc = SP_EXIT_OK;
		free(o.files);
		return rc;
	}
	fprintf(cli->err, "%s audit: unknown command '%s'\n", cli->prog, argv[1]);
	usage(cli->err);
	return SP_EXIT_USAGE;
}
