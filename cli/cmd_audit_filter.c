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
		"RULES: auditctl rules text, or a .tsv of rule blobs. EVENTS: 'fs', 'event', 'fschange'\n"
		"and 'load' lines;\n"
		"anything else is an error.  A bad event or fs line is reported as FILE:LINE:COL with the\n"
		"line (secpath-audit(1), EVENTS; the reader is sp_audit_event_parse in the library), any\n"
		"other bad line or failed expectation as FILE:LINE.\n"
		"  --engine E   ref (kernel-faithful lists) or compiled (default)\n"
		"  --json       one JSON object (schema secpath.audit-filter/1), an event per element\n"
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

/* The rules into a reference engine, as auditctl -R and the kernel take them: -D starts over
 * (*r is replaced), a refused rule is reported and skipped.  0, 1 (some refused), -EINVAL (the
 * file unreadable or, without -c, a line rejected). */
static int load_rules(struct sp_cli *cli, const char *path, const struct sp_audit_parse_opts *po,
		      int keep_going, const struct sp_audit_engine_opts *eo, struct sp_audit_ref **r)
{
	char *text;
	size_t len;
	int err = sp_file_read(path, &text, &len), bad = 0;
	if (err) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, strerror(-err));
		return -EINVAL;
	}
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	err = cli_rules_parse(path, text, len, po, &rs, &d);
	cli_print_diags(cli, &d, NULL, NULL);
	if (err || (d.nerrors && !keep_going && !cli_rules_continue(rs, &d))) {
		sp_diags_release(&d);
		sp_audit_ruleset_free(rs);
		free(text);
		return -EINVAL;
	}
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it))
			continue;
		if (it.kind == SP_AUDIT_ITEM_CTRL) {
			if (!strcmp(it.ctrl, "-D")) {
				sp_audit_ref_free(*r);
				*r = NULL;
				if ((err = sp_audit_ref_new(eo, r)))
					break;
			}
			continue;
		}
		if (it.kernel_err) {	/* refused, and reported where the parser saw it */
			bad++;
			continue;
		}
		err = it.kind == SP_AUDIT_ITEM_DEL ? sp_audit_ref_del(*r, it.blob, it.blob_len)
						   : sp_audit_ref_add(*r, it.blob, it.blob_len, it.line);
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
	return !*r ? -EINVAL : bad ? 1 : 0;
}

struct filter_args {
	struct cli_rules_args ra;
	const char *engine, *rules, *events;
	int json;
};

/* 0, SP_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, struct sp_cli *cli, struct filter_args *fa)
{
	int r;
	memset(fa, 0, sizeof(*fa));
	cli_rules_args_init(&fa->ra);
	fa->engine = "compiled";
	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			usage(cli->out);
			return -1;
		} else if (!strcmp(argv[i], "--json")) {
			fa->json = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "--engine")) {
			fa->engine = argv[++i];
		} else if ((r = cli_rules_arg(argc, argv, &i, &fa->ra)) < 0) {
			break;
		} else if (r) {
			;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(cli->err, "%s audit filter: unknown option '%s'\n", cli->prog, argv[i]);
			usage(cli->err);
			return SP_EXIT_USAGE;
		} else if (!fa->rules) {
			fa->rules = argv[i];
		} else if (!fa->events) {
			fa->events = argv[i];
		} else {
			fprintf(cli->err, "%s audit filter: unexpected argument '%s'\n", cli->prog,
				argv[i]);
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (cli_rules_args_check(cli, &fa->ra, "filter"))
		return SP_EXIT_USAGE;
	if (strcmp(fa->engine, "ref") && strcmp(fa->engine, "compiled")) {
		fprintf(cli->err, "%s audit filter: --engine is ref or compiled, not '%s'\n",
			cli->prog, fa->engine);
		return SP_EXIT_USAGE;
	}
	if (fa->ra.rules) {	/* -R RULES EVENTS, as the other commands take it */
		fa->events = fa->rules;
		fa->rules = fa->ra.rules;
	}
	if (!fa->rules || !fa->events) {
		fprintf(cli->err, "%s audit filter: %s\n", cli->prog,
			fa->rules ? "no EVENTS file given" : "no RULES and EVENTS files given");
		usage(cli->err);
		return SP_EXIT_USAGE;
	}
	return 0;
}

/* Pass 1: the "fs" lines, the file-system view the rules are resolved against.  0, or 1 when a
 * line was rejected (reported). */
static int load_fs(struct sp_cli *cli, struct fctx *c, const char *text, struct sp_diags *diags)
{
	int lineno = 0, bad = 0;
	for (const char *p = text; *p; lineno++) {
		const char *raw = p, *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		p += l + (nl ? 1 : 0);
		if (l >= FS_LINE_MAX) {
			if (l >= 2 && !strncmp(raw, "fs", 2)) {
				fprintf(cli->err, "%s:%d: fs line longer than %d bytes\n",
					c->events_path, lineno + 1, FS_LINE_MAX - 1);
				bad = 1;
			}
			continue;
		}
		size_t lead = strspn(raw, " \t\r");
		if (lead + 2 > l || strncmp(raw + lead, "fs", 2) ||
		    (lead + 2 < l && !strchr(" \t\r", raw[lead + 2])))
			continue;	/* not an fs line */
		if (sp_audit_fsview_parse_line(c->fs, raw, l, c->events_path, (uint32_t)lineno + 1,
					       diags)) {
			print_diags(cli, diags, raw);
			bad = 1;
		}
	}
	return bad;
}

/* The events of pass 2, decided by the engine. */
struct run {
	struct fctx *c;
	struct sp_audit_ref *ref;
	struct sp_audit_matcher *m;	/* NULL: the reference engine */
	struct sp_diags *diags;
	int json, first, nbad, nev, bad;
};

/* One "event" line: parse, decide, print, check its expectations. */
static void run_event(struct run *rn, const char *raw, size_t l, char *line, int lineno)
{
	struct fctx *c = rn->c;
	size_t used = 0;
	char *save, *t;
	int n = 0;
	if (sp_audit_event_parse(c->ev, c->fs, c->machine, raw, l, c->events_path,
				 (uint32_t)lineno, rn->diags, &used)) {
		print_diags(c->cli, rn->diags, raw);
		rn->bad = 1;
		return;
	}
	/* count the expectations (at most 256 a line) in the copy's bytes from `used` on */
	t = strtok_r(line + used, " \t\r", &save);	/* "=>" or nothing */
	for (t = t ? strtok_r(NULL, " \t\r", &save) : NULL; t && n < 256;
	     t = strtok_r(NULL, " \t\r", &save))
		n++;
	if (t) {
		fprintf(c->cli->err, "%s:%d: more than 256 expectations\n", c->events_path, lineno);
		rn->bad = 1;
		return;
	}
	struct sp_audit_decision d;
	if (rn->m)
		sp_audit_matcher_filter(rn->m, c->ev, &d);
	else
		sp_audit_ref_filter(rn->ref, c->ev, &d);
	print_decision(c->cli->out, &d, lineno, rn->json, rn->first);
	rn->first = 0;
	rn->nev++;
	if (n)
		rn->nbad += check_expect(c, &d, raw, l, used, lineno);
}

/*
 * An "fschange PATH [ino=N dev=.. mode=..]" line: from here on PATH names that inode (a create,
 * link or rename onto it), or nothing (no ino=: a removal, a rename away).  The view changes and
 * the rules' watches and exe= marks on PATH re-bind, as the kernel's fsnotify marks do
 * (sp_audit_ref_rebind); the compiled engine is compiled again from the re-bound rules.
 */
static void run_fschange(struct run *rn, const char *raw, size_t l, int lineno)
{
	struct fctx *c = rn->c;
	char line[FS_LINE_MAX], path[FS_LINE_MAX];
	struct sp_audit_fsview *tmp = NULL;
	uint64_t ino = SP_AUDIT_INO_UNSET;
	uint32_t dev = 0, mode = 0;
	size_t lead = strspn(raw, " \t\r");

	if (l >= sizeof(line) || sscanf(raw + lead + 8, "%4095s", path) != 1 || path[0] != '/') {
		fprintf(c->cli->err, "%s:%d: fschange: expected an absolute PATH\n", c->events_path, lineno);
		rn->bad = 1;
		return;
	}
	/* the identity is an fs line's: "fs" in place of the keyword, same columns */
	memcpy(line, raw, l);
	line[l] = 0;
	memcpy(line + lead, "fs      ", 8);
	if (strstr(line, " ino=")) {
		if (sp_audit_fsview_new(&tmp) ||
		    sp_audit_fsview_parse_line(tmp, line, l, c->events_path, (uint32_t)lineno, rn->diags) ||
		    sp_audit_fsview_lookup(tmp, path, &ino, &dev, &mode)) {
			print_diags(c->cli, rn->diags, raw);
			rn->bad = 1;
			sp_audit_fsview_free(tmp);
			return;
		}
		sp_audit_fsview_free(tmp);
	}
	if (sp_audit_fsview_add(c->fs, path, ino, dev, mode) < 0 ||
	    sp_audit_ref_rebind(rn->ref, path, ino, dev) < 0) {
		fprintf(c->cli->err, "%s:%d: fschange: out of memory\n", c->events_path, lineno);
		rn->bad = 1;
		return;
	}
	if (rn->m) {
		struct sp_audit_matcher *m = NULL;
		if (sp_audit_matcher_compile(rn->ref, &m)) {
			fprintf(c->cli->err, "%s:%d: fschange: cannot compile the rules again\n",
				c->events_path, lineno);
			rn->bad = 1;
			return;
		}
		sp_audit_matcher_free(rn->m);
		rn->m = m;
	}
}

/* Pass 2: every line is an event, an fs, fschange or load line, or a comment. */
static void run_events(struct run *rn, const char *text)
{
	int lineno = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *raw = p;
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, l), *save;
		p += l + (nl ? 1 : 0);
		lineno++;
		if (!line)
			break;
		/* the first strtok_r ends the "event" token only, before the bytes the event
		 * parser reports as used */
		char *t = strtok_r(line, " \t\r", &save);
		if (t && t[0] != '#' && strcmp(t, "event") && strcmp(t, "fs") && strcmp(t, "load") &&
		    strcmp(t, "fschange")) {
			fprintf(rn->c->cli->err, "%s:%d: expected an 'event', 'fs', 'fschange' or 'load' "
				"line or a '#' comment, not '%s'\n", rn->c->events_path, lineno, t);
			rn->bad = 1;
		} else if (t && !strcmp(t, "event")) {
			run_event(rn, raw, l, line, lineno);
		} else if (t && !strcmp(t, "fschange")) {
			run_fschange(rn, raw, l, lineno);
		}
		free(line);
	}
}

int cmd_audit_filter(int argc, char **argv, struct sp_cli *cli)
{
	struct filter_args fa;
	struct sp_diags diags;
	char *text = NULL;
	size_t len;
	int status = SP_EXIT_OK;
	int rc = parse_args(argc, argv, cli, &fa);
	if (rc)
		return rc < 0 ? SP_EXIT_OK : rc;
	struct sp_audit_parse_opts po = fa.ra.po;
	struct fctx c = { .cli = cli, .machine = po.machine, .events_path = fa.events };
	int err = sp_file_read(fa.events, &text, &len);
	if (err) {
		fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, fa.events, strerror(-err));
		return SP_EXIT_REJECTED;
	}
	sp_diags_init(&diags, NULL);
	struct run rn = { .c = &c, .diags = &diags, .json = fa.json, .first = 1 };
	if (sp_audit_fsview_new(&c.fs) || sp_audit_event_new(&c.ev)) {
		status = SP_EXIT_REJECTED;
		goto out;
	}
	if (load_fs(cli, &c, text, &diags))
		status = SP_EXIT_REJECTED;
	struct sp_audit_engine_opts o = { .sz = sizeof(o), .fs = c.fs };
	if (sp_audit_ref_new(&o, &rn.ref)) {
		status = SP_EXIT_REJECTED;
		goto out;
	}
	err = load_rules(cli, fa.rules, &po, fa.ra.keep_going, &o, &rn.ref);
	if (err)
		status = SP_EXIT_REJECTED;
	if (err < 0 || (!strcmp(fa.engine, "compiled") && sp_audit_matcher_compile(rn.ref, &rn.m)))
		goto out;
	if (fa.json)
		fputs("{\"schema\":\"secpath.audit-filter/1\",\"events\":[", cli->out);
	run_events(&rn, text);
	if (fa.json)
		fputs(rn.first ? "]}\n" : "\n]}\n", cli->out);
	if (rn.bad)
		status = SP_EXIT_REJECTED;
	if (rn.nbad) {
		fprintf(cli->err, "%s: %d expectation(s) failed over %d events\n", fa.events, rn.nbad,
			rn.nev);
		status = SP_EXIT_REJECTED;
	}
out:
	sp_audit_matcher_free(rn.m);
	sp_audit_ref_free(rn.ref);
	sp_audit_event_free(c.ev);
	sp_audit_fsview_free(c.fs);
	sp_diags_release(&diags);
	free(text);
	return status;
}
