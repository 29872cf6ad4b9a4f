/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit.c - `secpath audit ...`: the area's one command table, and the rule-language
 * commands (check, compile, list, decode).  The filter-engine commands (filter, replay, run, cost,
 * optimize) live in cmd_audit_*.c.  Exit codes: 0 ok, 1 input rejected, 2 usage.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "secpath/audit.h"
#include "secpath/audit_tools.h"

struct audit_cli_opts {
	struct sp_audit_parse_opts po;
	const char *format;		/* compile: tsv|hex|bin */
	int json;
	int kernel;			/* decode: apply the kernel's per-field checks */
	int auditctl;			/* list: what auditctl -l prints after loading the file */
	int no_kernel;			/* check: auditctl's verdicts only */
	const char *key;		/* list --auditctl -k KEY */
	int nfiles;
	char **files;
};

#define HOST_OPTS \
	"  --machine M          machine for -S names and b32/b64 (x86_64, i686, aarch64...;\n" \
	"                       default: this host)\n" \
	"  --passwd F, --group F  user/group names from these files instead of NSS\n" \
	"  --dirs F             -w paths that are directories (one per line) instead of stat()\n" \
	"  --features N         kernel audit feature bitmap (default 0x7f, kernel 6.1)\n" \
	"  -c, --continue       accepted for auditctl's -c (every line is always reported)\n"

static const char check_usage[] =
	"usage: secpath audit check [--json] [host options] FILE...\n"
	"\n"
	"Report every line of each rules FILE (auditctl -R syntax, \"-\" = stdin) that auditctl\n"
	"3.0.9 would reject, and every rule it would send that the kernel (Linux 6.1\n"
	"audit_data_to_entry) would refuse, as FILE:LINE:COL-END with the line and a caret, then\n"
	"a summary per file.  Every command that loads rules reports the same refusals.\n"
	"  --kernel             report the kernel's refusals (the default)\n"
	"  --no-kernel          auditctl's verdicts only\n"
	"  --json               one JSON object: per file the counts and the diagnostics\n"
	HOST_OPTS
	"Exit status: 0 no line rejected, 1 a line rejected or a file unreadable, 2 usage.\n";
static const char compile_usage[] =
	"usage: secpath audit compile [--format tsv|hex|bin] [--json] [host options] FILE\n"
	"\n"
	"Print what auditctl would send to the kernel for each line of FILE: --format tsv (default;\n"
	"LINE<TAB>ADD|DEL|CTRL|ERR|WARN<TAB>hex or text), hex (one blob per line) or bin (the\n"
	"struct audit_rule_data bytes, concatenated).\n"
	"  --json               one JSON object with the same records\n"
	HOST_OPTS
	"Exit status: 0 no line rejected, 1 a line rejected or the file unreadable, 2 usage.\n";
static const char list_usage[] =
	"usage: secpath audit list [--json] [host options] FILE\n"
	"       secpath audit list --auditctl [-k KEY] [host options] FILE\n"
	"\n"
	"Print the canonical text of every rule of FILE, as secpath decodes the blob auditctl\n"
	"would send (-a LIST,ACTION -F ... -S ... -F key=...), and the control lines.\n"
	"  --auditctl           instead, exactly what `auditctl -l` prints after `auditctl -R FILE`\n"
	"                       on a kernel with no rules: the rules the kernel keeps (duplicates,\n"
	"                       deletions, -D and -e 2 applied; paths resolved on this host), list\n"
	"                       by list, watches as -w PATH -p PERMS -k KEY, or \"No rules\"\n"
	"  -k KEY               with --auditctl: only rules with a key containing KEY (auditctl -k)\n"
	"  --json               one JSON object\n"
	HOST_OPTS
	"Exit status: 0 ok, 1 a line rejected or the file unreadable, 2 usage.\n";
static const char decode_usage[] =
	"usage: secpath audit decode [--kernel] [--json] [--machine M] [FILE|-]\n"
	"\n"
	"Decode struct audit_rule_data blobs (hex lines, the tsv of `audit compile`, or binary)\n"
	"into rule text; damage is reported at its byte offset (FILE:+0xOFF).\n"
	"  --kernel             also apply the kernel's per-field checks (audit_field_valid)\n"
	"  --json               one JSON object\n"
	"  --machine M          syscall names of this machine (default: this host)\n"
	"Exit status: 0 ok, 1 a blob rejected or the file unreadable, 2 usage.\n";

/* Parse the options of check/compile/list/decode; 0, SP_EXIT_USAGE after printing why, or -1
 * after printing `usage` for --help. */
static int parse_opts(int argc, char **argv, struct sp_cli *cli, const char *usage,
		      struct audit_cli_opts *o)
{
	struct cli_rules_args ra;
	memset(o, 0, sizeof(*o));
	cli_rules_args_init(&ra);
	ra.po.machine = NULL;		/* the rule language's default: this host */
	o->format = "tsv";
	o->files = calloc((size_t)argc + 1, sizeof(char *));
	if (!o->files)
		return SP_EXIT_USAGE;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;
		if (cli_is_help(a)) {
			fputs(usage, cli->out);
			return -1;
		} else if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--kernel") && !strcmp(argv[0], "decode")) {
			o->kernel = 1;
		} else if (!strcmp(a, "--kernel") && !strcmp(argv[0], "check")) {
			;	/* the default: the kernel's refusals are reported */
		} else if (!strcmp(a, "--no-kernel") && !strcmp(argv[0], "check")) {
			o->no_kernel = 1;
		} else if (!strcmp(a, "--auditctl") && !strcmp(argv[0], "list")) {
			o->auditctl = 1;
		} else if (!strcmp(a, "-k") && !strcmp(argv[0], "list") && i + 1 < argc) {
			o->key = argv[++i];
		} else if (!strcmp(a, "--format") && !strcmp(argv[0], "compile") && i + 1 < argc) {
			o->format = argv[++i];
		} else if ((r = cli_rules_arg(argc, argv, &i, &ra)) != 0) {
			if (r < 0) {
				cli_rules_args_check(cli, &ra, argv[0]);
				return SP_EXIT_USAGE;
			}
			if (!strcmp(a, "-R") || !strcmp(a, "--rules")) {
				fprintf(cli->err, "%s audit %s: the rules files are arguments, not -R\n",
					cli->prog, argv[0]);
				fputs(usage, cli->err);
				return SP_EXIT_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(cli->err, "%s audit %s: unknown option '%s'\n", cli->prog, argv[0], a);
			fputs(usage, cli->err);
			return SP_EXIT_USAGE;
		} else {
			o->files[o->nfiles++] = argv[i];
		}
	}
	if (cli_rules_args_check(cli, &ra, argv[0]))
		return SP_EXIT_USAGE;
	/* check and list report what the kernel would refuse, as every loading command does;
	 * compile and decode show auditctl's own output */
	if (strcmp(argv[0], "check") && strcmp(argv[0], "list"))
		ra.po.flags &= ~SP_AUDIT_PARSE_KERNEL;
	if (o->no_kernel)
		ra.po.flags &= ~SP_AUDIT_PARSE_KERNEL;
	if (!strcmp(argv[0], "check"))
		ra.po.flags |= SP_AUDIT_PARSE_LINT;	/* check is the lint */
	if ((o->key && !o->auditctl) || (o->auditctl && o->json)) {
		fprintf(cli->err, "%s audit list: %s\n", cli->prog, o->key && !o->auditctl
			? "-k needs --auditctl" : "--auditctl prints auditctl's text, not JSON");
		return SP_EXIT_USAGE;
	}
	o->po = ra.po;
	return 0;
}

struct src {
	const char *text;
	size_t len;
	const char *path;		/* the file text is (diagnostics of other files get no line) */
	char line[6200];
};

static const char *source_of(void *ud, const char *file, uint32_t line)
{
	struct src *s = ud;
	if (s->path && (!file || strcmp(file, s->path)))
		return NULL;
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
		/* a host file that cannot be read says so in d; else the reason alone */
		size_t before = d->n;
		cli_print_diags(cli, d, NULL, NULL);
		if (!before)
			fprintf(cli->err, "%s: cannot parse '%s': %s\n", cli->prog, path,
				strerror(-rc));
		free(*text);
		return 2;
	}
	return d->nerrors ? 1 : 0;
}

static int cmd_check(struct sp_cli *cli, struct audit_cli_opts *o)
{
	if (!o->nfiles) {
		fprintf(cli->err, "%s audit check: no FILE given\n", cli->prog);
		return SP_EXIT_USAGE;
	}
	int worst = 0;
	if (o->json)
		fputs("{\"schema\":\"secpath.audit-check/1\",\"files\":[", cli->out);
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
			cli_json_diags(cli->out, &d);
			fputs("}", cli->out);
		} else {
			struct src s = { .text = text, .len = len, .path = o->files[i] };
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
		fputs("{\"schema\":\"secpath.audit-compile/1\",\"file\":", cli->out);
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
		cli_json_diags(cli->out, &d);
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
		struct src s = { .text = text, .len = len, .path = o->files[0] };
		cli_print_diags(cli, &d, source_of, &s);
	}
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	free(text);
	return rc ? SP_EXIT_REJECTED : SP_EXIT_OK;
}

static const char *list_name(uint32_t l)
{
	static const char *const names[] = { "user", "task", "entry", "watch", "exit", "exclude",
					     "filesystem", "io_uring" };
	return l < 8 ? names[l] : "unknown";
}

/* One rule as a JSON object: its canonical text and its parts (secpath.audit-rule/1). */
static void json_rule(FILE *f, const struct sp_audit_rule *r, enum sp_audit_item_kind kind,
		      const char *machine, const char *text, uint32_t line, long long offset)
{
	const char *m = machine;
	unsigned nsys = 0;	/* every syscall: "all_syscalls" and an empty list */
	for (uint32_t i = 0; i < r->field_count; i++)
		if (r->fields[i].id == 11 && sp_audit_arch_name(r->fields[i].value))
			m = sp_audit_arch_name(r->fields[i].value);	/* arch= picks the table */
	fprintf(f, "{\"kind\":\"%s\",", kind == SP_AUDIT_ITEM_DEL ? "delete" : "add");
	if (line)
		fprintf(f, "\"line\":%u,", line);
	if (offset >= 0)
		fprintf(f, "\"offset\":%lld,", offset);
	fputs("\"text\":", f);
	cli_json_str(f, text);
	fprintf(f, ",\"list\":\"%s\",\"action\":\"%s\",\"prepend\":%s,\"syscalls\":[",
		list_name(r->list), r->action == 2 ? "always" : r->action == 0 ? "never" : "possible",
		r->flags & 0x10 ? "true" : "false");
	int all = 1;
	for (unsigned w = 0; w < SP_AUDIT_MASK_WORDS; w++)
		all &= r->mask[w] == UINT32_MAX;
	for (unsigned nr = 0; !all && nr < 32 * SP_AUDIT_MASK_WORDS; nr++) {
		if (!(r->mask[nr / 32] & (1u << (nr % 32))))
			continue;
		const char *n = sp_audit_syscall_name(m, (int)nr);
		fputs(nsys++ ? "," : "", f);
		if (n)
			cli_json_str(f, n);
		else
			fprintf(f, "%u", nr);
	}
	fprintf(f, "],\"all_syscalls\":%s,\"fields\":[", all ? "true" : "false");
	for (uint32_t i = 0; i < r->field_count; i++) {
		const struct sp_audit_field *fd = &r->fields[i];
		const char *name = sp_audit_field_name(fd->id), *op = sp_audit_op_text(fd->op);
		fputs(i ? ",{\"field\":" : "{\"field\":", f);
		if (name)
			cli_json_str(f, name);
		else
			fprintf(f, "%u", fd->id);
		fputs(",\"op\":", f);
		cli_json_str(f, op ? op : "?");
		fputs(",\"value\":", f);
		if (fd->str) {
			char v[4200];
			size_t n = fd->value < sizeof(v) - 1 ? fd->value : sizeof(v) - 1;
			memcpy(v, fd->str, n);
			v[n] = 0;
			cli_json_str(f, v);
		} else {
			fprintf(f, "%u", fd->value);
		}
		fputc('}', f);
	}
	fputs("],\"keys\":[", f);
	for (uint32_t i = 0, n = 0; i < r->field_count; i++) {
		const struct sp_audit_field *fd = &r->fields[i];
		for (uint32_t a = 0, b = 0; fd->id == 210 && fd->str && b <= fd->value; b++) {
			if (b < fd->value && fd->str[b] != 1)
				continue;
			char k[SP_AUDIT_MAX_KEY_LEN + 1];
			snprintf(k, sizeof(k), "%.*s", (int)(b - a), fd->str + a);
			fputs(n++ ? "," : "", f);
			cli_json_str(f, k);
			a = b + 1;
		}
	}
	fputs("]}", f);
}

static int print_rule(struct sp_cli *cli, const struct audit_cli_opts *o, const void *blob, size_t len,
		      enum sp_audit_item_kind kind, struct sp_diags *d, const char *file, int first,
		      uint32_t line, long long offset)
{
	struct sp_audit_rule r;
	if (sp_audit_rule_decode(blob, len, o->kernel ? SP_AUDIT_DECODE_KERNEL : 0, &r, d, file))
		return -1;
	char buf[16384];
	sp_audit_rule_format(&r, kind, o->po.machine, buf, sizeof(buf));
	if (o->json) {
		fputs(first ? "" : ",", cli->out);
		json_rule(cli->out, &r, kind, o->po.machine, buf, line, offset);
	} else {
		fprintf(cli->out, "%s\n", buf);
	}
	return 0;
}

static void emit_line(void *ud, const char *line)
{
	fprintf(ud, "%s\n", line);
}

/* list --auditctl: the kernel's view of the file, printed as auditctl -l prints it. */
static int list_auditctl(struct sp_cli *cli, struct audit_cli_opts *o,
			 const struct sp_audit_ruleset *rs)
{
	struct sp_audit_fsview *fs = NULL;
	int err = sp_audit_fsview_from_host(rs, &fs);
	char host[64] = "x86_64";
	if (o->po.machine)
		snprintf(host, sizeof(host), "%s", o->po.machine);
	struct sp_audit_listing_opts lo = { .sz = sizeof(lo), .machine = host, .key = o->key,
					    .fs = fs };
	if (!err)
		err = sp_audit_listing(rs, &lo, emit_line, cli->out);
	sp_audit_fsview_free(fs);
	if (err)
		fprintf(cli->err, "%s audit list: %s\n", cli->prog, strerror(-err));
	return err ? SP_EXIT_REJECTED : SP_EXIT_OK;
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
	if (o->auditctl) {
		struct src s = { .text = text, .len = len, .path = o->files[0] };
		cli_print_diags(cli, &d, source_of, &s);	/* auditctl -R reports, then goes on */
		rc = list_auditctl(cli, o, rs);
		sp_audit_ruleset_free(rs);
		sp_diags_release(&d);
		free(text);
		return rc;
	}
	if (o->json) {
		fputs("{\"schema\":\"secpath.audit-list/1\",\"file\":", cli->out);
		cli_json_str(cli->out, o->files[0]);
		fputs(",\"rules\":[", cli->out);
	}
	int first = 1;
	for (size_t k = 0; k < sp_audit_ruleset_count(rs); k++) {
		struct sp_audit_item it;
		sp_audit_ruleset_item(rs, k, &it);
		if (it.kind == SP_AUDIT_ITEM_CTRL) {
			if (o->json) {
				fprintf(cli->out, "%s{\"kind\":\"control\",\"line\":%u,\"text\":",
					first ? "" : ",", it.line);
				cli_json_str(cli->out, it.ctrl);
				fputc('}', cli->out);
			} else {
				fprintf(cli->out, "%s\n", it.ctrl);
			}
		} else if (print_rule(cli, o, it.blob, it.blob_len, it.kind, &d, o->files[0], first,
				      it.line, -1)) {
			rc = 1;
		}
		first = 0;
	}
	if (o->json) {
		fputs("],\"diagnostics\":", cli->out);
		cli_json_diags(cli->out, &d);
		fputs("}\n", cli->out);
	}
	struct src s = { .text = text, .len = len, .path = o->files[0] };
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
	if (o->json) {
		fputs("{\"schema\":\"secpath.audit-decode/1\",\"file\":", cli->out);
		cli_json_str(cli->out, path);
		fputs(",\"rules\":[", cli->out);
	}
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
				if (print_rule(cli, o, blob, bl, kind, &d, path, first, lineno, -1))
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
			if (print_rule(cli, o, text + pos, n, SP_AUDIT_ITEM_ADD, &d, path, first, 0,
				       (long long)pos)) {
				bad = 1;
				break;
			}
			first = 0;
			pos += n;
		}
	}
	if (o->json) {
		fputs("],\"diagnostics\":", cli->out);
		cli_json_diags(cli->out, &d);
		fputs("}\n", cli->out);
	}
	cli_print_diags(cli, &d, NULL, NULL);
	sp_diags_release(&d);
	free(text);
	return bad ? SP_EXIT_REJECTED : SP_EXIT_OK;
}

/* check/compile/list/decode: the shared options, then the command. */
static int run_lang(int argc, char **argv, struct sp_cli *cli, const char *usage,
		    int (*fn)(struct sp_cli *, struct audit_cli_opts *))
{
	struct audit_cli_opts o;
	int rc = parse_opts(argc, argv, cli, usage, &o);
	if (rc == 0)
		rc = fn(cli, &o);
	else if (rc < 0)
		rc = SP_EXIT_OK;
	free(o.files);
	return rc;
}

static int audit_check(int argc, char **argv, struct sp_cli *cli)
{
	return run_lang(argc, argv, cli, check_usage, cmd_check);
}

static int audit_compile(int argc, char **argv, struct sp_cli *cli)
{
	return run_lang(argc, argv, cli, compile_usage, cmd_compile);
}

static int audit_list(int argc, char **argv, struct sp_cli *cli)
{
	return run_lang(argc, argv, cli, list_usage, cmd_list);
}

static int audit_decode(int argc, char **argv, struct sp_cli *cli)
{
	return run_lang(argc, argv, cli, decode_usage, cmd_decode);
}

static const struct cli_cmd audit_cmds[] = {
	{ "check", audit_check, "report every line auditctl would reject (the gate before loading)" },
	{ "compile", audit_compile, "what auditctl would send for each line (tsv, hex, bin)" },
	{ "list", audit_list, "canonical text of every rule" },
	{ "decode", audit_decode, "struct audit_rule_data blobs to rule text" },
	{ "filter", cmd_audit_filter, "decide events of an events file with the kernel's filter" },
	{ "replay", cmd_audit_replay, "replay audit.log files through new rules" },
	{ "stream", cmd_audit_stream, "a live audit stream (an auditd plugin) through new rules" },
	{ "run", cmd_audit_run, "run a command and write the records the rules would give" },
	{ "cost", cmd_audit_cost, "rules examined and field checks per syscall of a workload" },
	{ "optimize", cmd_audit_optimize, "an equivalent, cheaper rules file" },
};

const struct cli_area cli_area_audit = {
	.name = "audit",
	.summary = "Audit rules: auditctl 3.0.9's rule language byte-exact, the Linux 6.1 audit\n"
		   "filter in a reference and a compiled engine, and the tools around them.",
	.cmds = audit_cmds,
	.ncmds = sizeof(audit_cmds) / sizeof(audit_cmds[0]),
};
