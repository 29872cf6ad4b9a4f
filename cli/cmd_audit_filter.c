/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_audit_filter.c - `secpath audit filter RULES EVENTS`: decide every event of an events file
 * against a rule set with the reference or the compiled engine, and print the decision per list
 * and key.
 *
 * RULES is auditctl text (parsed like `auditctl -R`, rule ids are source lines) or a golden
 * .tsv of blobs (LINE<TAB>ADD|DEL<TAB>hex).  EVENTS holds `fs PATH ino=N dev=MA:MI mode=...`
 * lines (the file-system view the rules are resolved against) and `event TOKENS [=> EXPECT]`
 * lines (see secpath-audit(1), EVENTS); expectations, when present, are checked and a mismatch
 * makes the exit status 1.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "secpath/audit.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: secpath audit filter [--engine ref|compiled] [--json] [--machine M]\n"
		"                            [--passwd F] [--group F] [--dirs F] [--features N]\n"
		"                            RULES EVENTS   (or -R RULES EVENTS)\n"
		"\n"
		"Decide each event of EVENTS against RULES the way the Linux 6.1 audit filter does:\n"
		"the task list verdict, whether the SYSCALL record is written and with which key\n"
		"(exit list and inode hash), the exclude list, the user list, hidden names.\n"
		"RULES: auditctl rules text, or a .tsv of rule blobs. EVENTS: 'fs', 'event' and 'load' lines;\n"
		"anything else is an error.  A bad event or fs line is reported as FILE:LINE:COL with the\n"
		"line (secpath-audit(1), EVENTS; the reader is sp_audit_event_parse in the library), any\n"
		"other bad line or failed expectation as FILE:LINE.\n"
		"  --engine E   ref (kernel-faithful lists) or compiled (default)\n"
		"  --json       one JSON object per event in an array\n"
		"  --machine M  syscall table for names (default x86_64)\n"
		"  --passwd F, --group F, --dirs F, --features N   host inputs for the rules parser\n"
		"Exit status: 0 ok, 1 rules or events rejected or an expectation failed, 2 usage.\n"
		"\n"
		"See also: secpath audit run|replay|cost|optimize --help.\n");
}

struct fctx {
	struct sp_cli *cli;
	const char *machine;
	const char *events_path;
	struct sp_audit_fsview *fs;
	struct sp_audit_event *ev;
};

#define FS_LINE_MAX 4200	/* bytes of an fs line, newline excluded, + 1 */

static const char *this_line(void *ud, const char *file, uint32_t line)
{
	(void)file;
	(void)line;
	return ud;
}

/* Print and clear d (diagnostics of the line at raw, which ends at its newline or NUL):
 * "file:line:col-end: error: msg", the line and a caret under the token. */
static void print_diags(struct sp_cli *cli, struct sp_diags *d, const char *raw)
{
	cli_print_diags(cli, d, this_line, (void *)(uintptr_t)raw);
	sp_diags_clear(d);
}

static const char *verdict_name(int v)
{
	return v == SP_AUDIT_NEVER ? "never" : v == SP_AUDIT_ALWAYS ? "always" : "-";
}

static const char *ctx_name(int v)
{
	static const char *const n[] = { "active", "none", "dummy", "auditd", "user" };
	return v >= 0 && v < 5 ? n[v] : "?";
}

/* Check the line's "=> k=v" expectations (raw[used, l)) with the library's checker
 * (sp_audit_decision_check); prints each mismatch as FILE:LINE: expected k=v, returns their
 * number. */
static int check_expect(struct fctx *c, const struct sp_audit_decision *d, const char *raw, size_t l,
			size_t used, int lineno)
{
	struct sp_diags dg;
	sp_diags_init(&dg, NULL);
	dg.limit = 512;		/* every mismatch of a line's at most 256 expectations */
	int bad = sp_audit_decision_check(d, raw, l, used, c->events_path, (uint32_t)lineno, &dg);
	for (size_t i = 0; i < dg.n; i++)
		if (dg.v[i].severity == SP_SEV_ERROR)	/* the token itself, however long */
			fprintf(c->cli->err, "%s:%d: expected %.*s\n", c->events_path, lineno,
				(int)(dg.v[i].end_col - dg.v[i].col + 1), raw + dg.v[i].col - 1);
	sp_diags_release(&dg);
	if (bad < 0) {
		fprintf(c->cli->err, "%s:%d: %s\n", c->events_path, lineno, strerror(-bad));
		return 1;
	}
	return bad;
}

static void print_key(FILE *f, const struct sp_audit_decision *d, int json)
{
	if (!d->has_key) {
		fputs(json ? "null" : "(null)", f);
		return;
	}
	if (json) {
		cli_json_str(f, d->key);
		return;
	}
	for (size_t i = 0; i < d->key_len; i++) {
		unsigned char ch = (unsigned char)d->key[i];
		if (ch > 0x20 && ch < 0x7f && ch != '\\')
			fputc(ch, f);
		else
			fprintf(f, "\\x%02x", ch);
	}
}

static void print_decision(FILE *f, const struct sp_audit_decision *d, int lineno, int json, int first)
{
	if (json) {
		fprintf(f, "%s\n  {\"line\": %d, \"record\": %s, \"excluded\": %s, \"key\": ", first ? "" : ",",
			lineno, d->record ? "true" : "false", d->excluded ? "true" : "false");
		print_key(f, d, 1);
		fprintf(f, ", \"context\": \"%s\", \"task\": {\"verdict\": \"%s\", \"rule\": %d}, "
			   "\"exit\": {\"verdict\": \"%s\", \"rule\": %d}, \"user\": {\"verdict\": \"%s\", "
			   "\"rule\": %d}, \"exclude\": {\"rule\": %d}, \"fs_hidden\": %u}",
			ctx_name(d->context), verdict_name(d->task), d->task_rule, verdict_name(d->exit),
			d->exit_rule, verdict_name(d->user), d->user_rule, d->exclude_rule, d->fs_hidden);
		return;
	}
	fprintf(f, "%d: %s key=", lineno, d->record ? (d->excluded ? "excluded" : "recorded") : "not-recorded");
	print_key(f, d, 0);
	fprintf(f, " ctx=%s task=%s", ctx_name(d->context), verdict_name(d->task));
	if (d->task_rule >= 0)
		fprintf(f, "@%d", d->task_rule);
	fprintf(f, " exit=%s", verdict_name(d->exit));
	if (d->exit_rule >= 0)
		fprintf(f, "@%d", d->exit_rule);
	fprintf(f, " user=%s", verdict_name(d->user));
	if (d->user_rule >= 0)
		fprintf(f, "@%d", d->user_rule);
	if (d->exclude_rule >= 0)
		fprintf(f, " exclude@%d", d->exclude_rule);
	if (d->fs_hidden)
		fprintf(f, " hidden=%#x", d->fs_hidden);
	fputc('\n', f);
}

static int hexval(int ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
		: ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* Load a .tsv of blobs into r.  0 or -errno; rejected blobs are reported. */
static int load_tsv(struct sp_cli *cli, const char *path, char *text, struct sp_audit_ref *r)
{
	int bad = 0;
	for (char *line = text, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2)
			continue;
		*t1 = *t2 = 0;
		int del = !strcmp(t1 + 1, "DEL");
		if (!del && strcmp(t1 + 1, "ADD"))
			continue;
		size_t hl = strcspn(t2 + 1, "\r\n"), n = hl / 2;
		unsigned char *blob = malloc(n + 1);
		if (!blob)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			blob[i] = (unsigned char)(hexval(t2[1 + 2 * i]) << 4 | hexval(t2[2 + 2 * i]));
		uint32_t lineno = (uint32_t)strtoul(line, NULL, 10);
		int err = del ? sp_audit_ref_del(r, blob, n) : sp_audit_ref_add(r, blob, n, lineno);
		free(blob);
		if (err) {
			fprintf(cli->err, "%s:%u: rule refused (%s)\n", path, lineno, strerror(-err));
			bad++;
		}
	}
	return bad ? -EINVAL : 0;
}

static int load_rules(struct sp_cli *cli, const char *path, const struct sp_audit_parse_opts *po,
		      int keep_going, struct sp_audit_ref *r)
{
	char *text;
	size_t len;
	int err = sp_file_read(path, &text, &len), bad = 0;
	if (err) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, strerror(-err));
		return -EINVAL;
	}
	size_t pl = strlen(path);
	if (pl > 4 && !strcmp(path + pl - 4, ".tsv")) {
		err = load_tsv(cli, path, text, r);
		free(text);
		return err;
	}
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	err = sp_audit_ruleset_parse(text, len, path, po, &rs, &d);
	cli_print_diags(cli, &d, NULL, NULL);
	if (err || (d.nerrors && !keep_going)) {
		sp_diags_release(&d);
		sp_audit_ruleset_free(rs);
		free(text);
		return -EINVAL;
	}
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it) || it.kind == SP_AUDIT_ITEM_CTRL)
			continue;
		err = it.kind == SP_AUDIT_ITEM_DEL ? sp_audit_ref_del(r, it.blob, it.blob_len)
						   : sp_audit_ref_add(r, it.blob, it.blob_len, it.line);
		if (err) {
			/* the kernel refuses it: auditctl reports and (without -c/-i) stops; we go on */
			fprintf(cli->err, "%s:%u: error: kernel would refuse the rule (%s)\n", path, it.line,
				strerror(-err));
			bad++;
		}
	}
	sp_diags_release(&d);
	sp_audit_ruleset_free(rs);
	free(text);
	return bad ? 1 : 0;
}

int cmd_audit_filter(int argc, char **argv, struct sp_cli *cli)
{
	const char *engine = "compiled", *rules = NULL, *events = NULL;
	struct cli_rules_args ra;
	int json = 0, status = SP_EXIT_OK, r;
	cli_rules_args_init(&ra);

	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			usage(cli->out);
			return SP_EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "--engine")) {
			engine = argv[++i];
		} else if ((r = cli_rules_arg(argc, argv, &i, &ra)) < 0) {
			break;
		} else if (r) {
			;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(cli->err, "%s audit filter: unknown option '%s'\n", cli->prog, argv[i]);
			usage(cli->err);
			return SP_EXIT_USAGE;
		} else if (!rules) {
			rules = argv[i];
		} else if (!events) {
			events = argv[i];
		} else {
			fprintf(cli->err, "%s audit filter: unexpected argument '%s'\n", cli->prog,
				argv[i]);
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (cli_rules_args_check(cli, &ra, "filter"))
		return SP_EXIT_USAGE;
	if (strcmp(engine, "ref") && strcmp(engine, "compiled")) {
		fprintf(cli->err, "%s audit filter: --engine is ref or compiled, not '%s'\n",
			cli->prog, engine);
		return SP_EXIT_USAGE;
	}
	if (ra.rules && !rules) {
		rules = ra.rules;	/* -R RULES EVENTS, as the other commands take it */
	} else if (ra.rules) {
		events = rules;
		rules = ra.rules;
	}
	if (!rules || !events) {
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	struct sp_audit_parse_opts po = ra.po;

	struct fctx c = { .cli = cli, .machine = po.machine, .events_path = events };
	struct sp_diags diags;
	sp_diags_init(&diags, NULL);
	char *text = NULL;
	size_t len;
	int err = sp_file_read(events, &text, &len);
	if (err) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, events, strerror(-err));
		return SP_EXIT_REJECTED;
	}
	if (sp_audit_fsview_new(&c.fs) || sp_audit_event_new(&c.ev)) {
		free(text);
		return SP_EXIT_REJECTED;
	}
	/* pass 1: the file-system view */
	int lineno = 0;
	for (char *p = text; *p; lineno++) {
		const char *raw = p, *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		p += l + (nl ? 1 : 0);
		if (l >= FS_LINE_MAX) {
			if (l >= 2 && !strncmp(raw, "fs", 2)) {
				fprintf(cli->err, "%s:%d: fs line longer than %d bytes\n", events,
					lineno + 1, FS_LINE_MAX - 1);
				status = SP_EXIT_REJECTED;
			}
			continue;
		}
		size_t lead = strspn(raw, " \t\r");
		if (lead + 2 > l || strncmp(raw + lead, "fs", 2) ||
		    (lead + 2 < l && !strchr(" \t\r", raw[lead + 2])))
			continue;	/* not an fs line */
		if (sp_audit_fsview_parse_line(c.fs, raw, l, events, (uint32_t)lineno + 1, &diags)) {
			print_diags(cli, &diags, raw);
			status = SP_EXIT_REJECTED;
		}
	}

	struct sp_audit_engine_opts o = { .sz = sizeof(o), .fs = c.fs };
	struct sp_audit_ref *ref = NULL;
	struct sp_audit_matcher *m = NULL;
	if (sp_audit_ref_new(&o, &ref)) {
		status = SP_EXIT_REJECTED;
		goto out;
	}
	err = load_rules(cli, rules, &po, ra.keep_going, ref);
	if (err < 0) {
		status = SP_EXIT_REJECTED;
		goto out;
	}
	if (err > 0)
		status = SP_EXIT_REJECTED;
	if (!strcmp(engine, "compiled") && sp_audit_matcher_compile(ref, &m)) {
		status = SP_EXIT_REJECTED;
		goto out;
	}

	/* pass 2: events */
	int first = 1, nbad = 0, nev = 0;
	if (json)
		fputc('[', cli->out);
	lineno = 0;
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p), used = 0;
		const char *raw = p;
		char *line = strndup(p, l), *save;
		int n = 0;
		p += l + (nl ? 1 : 0);
		lineno++;
		if (!line)
			break;
		char *t = strtok_r(line, " \t\r", &save);
		if (t && t[0] != '#' && strcmp(t, "event") && strcmp(t, "fs") && strcmp(t, "load")) {
			fprintf(cli->err, "%s:%d: expected an 'event', 'fs' or 'load' line or a '#' "
				"comment, not '%s'\n", c.events_path, lineno, t);
			status = SP_EXIT_REJECTED;
		} else if (t && !strcmp(t, "event")) {
			/* the event (the library's reader), then the expectations after "=>" */
			if (sp_audit_event_parse(c.ev, c.fs, c.machine, raw, l, c.events_path, (uint32_t)lineno,
						 &diags, &used)) {
				print_diags(cli, &diags, raw);
				status = SP_EXIT_REJECTED;
				free(line);
				continue;
			}
			/* count the expectations (at most 256 a line); the copy's bytes from `used` on
			 * are untouched: the first strtok_r only ended the "event" token before them */
			t = strtok_r(line + used, " \t\r", &save);	/* "=>" or nothing */
			for (t = t ? strtok_r(NULL, " \t\r", &save) : NULL; t && n < 256;
			     t = strtok_r(NULL, " \t\r", &save))
				n++;
			if (t) {
				fprintf(cli->err, "%s:%d: more than 256 expectations\n", c.events_path, lineno);
				status = SP_EXIT_REJECTED;
				free(line);
				continue;
			}
			struct sp_audit_decision d;
			if (m)
				sp_audit_matcher_filter(m, c.ev, &d);
			else
				sp_audit_ref_filter(ref, c.ev, &d);
			print_decision(cli->out, &d, lineno, json, first);
			first = 0;
			nev++;
			if (n)
				nbad += check_expect(&c, &d, raw, l, used, lineno);
		}
		free(line);
	}
	if (json)
		fputs(first ? "]\n" : "\n]\n", cli->out);
	if (nbad) {
		fprintf(cli->err, "%s: %d expectation(s) failed over %d events\n", events, nbad, nev);
		status = SP_EXIT_REJECTED;
	}
out:
	sp_audit_matcher_free(m);
	sp_audit_ref_free(ref);
	sp_audit_event_free(c.ev);
	sp_audit_fsview_free(c.fs);
	sp_diags_release(&diags);
	free(text);
	return status;
}
