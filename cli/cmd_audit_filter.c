/*
 * cmd_audit_filter.c - `secpath audit filter RULES EVENTS`: decide every event of an events file
 * against a rule set with the reference or the compiled engine, and print the decision per list
 * and key.
 *
 * RULES is auditctl text (parsed like `auditctl -R`, rule ids are source lines) or a golden
 * .tsv of blobs (LINE<TAB>ADD|DEL<TAB>hex).  EVENTS holds `fs PATH ino=N dev=MA:MI mode=...`
 * lines (the file-system view the rules are resolved against) and `event TOKENS [=> EXPECT]`
 * lines (see secpath-audit-filter(1)); expectations, when present, are checked and a mismatch
 * makes the exit status 1.  `run`, `replay`, `cost` and `optimize` are forwarded to their own
 * command files (cmd_audit_run.c, cmd_audit_replay.c, cmd_audit_cost.c, cmd_audit_optimize.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "secpath/audit.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: secpath audit filter [--engine ref|compiled] [--json] [--machine M]\n"
		"                            [--passwd F] [--group F] [--dirs F] RULES EVENTS\n"
		"\n"
		"Decide each event of EVENTS against RULES the way the Linux 6.1 audit filter does:\n"
		"the task list verdict, whether the SYSCALL record is written and with which key\n"
		"(exit list and inode hash), the exclude list, the user list, hidden names.\n"
		"RULES: auditctl rules text, or a .tsv of rule blobs. EVENTS: 'fs', 'event' and 'load' lines; anything else is an error.\n"
		"  --engine E   ref (kernel-faithful lists) or compiled (default)\n"
		"  --json       one JSON object per event in an array\n"
		"  --machine M  syscall table for names (default x86_64)\n"
		"  --passwd F, --group F, --dirs F   host inputs for the rules parser\n"
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
	const char *bad;	/* first value of the current line that is not a number */
};

/* A whole number (decimal, 0x-hex, 0-octal, or negative); anything else is remembered in c->bad
 * and reported with the line by build_event(). */
static uint64_t num64(struct fctx *c, const char *v)
{
	char *e;
	errno = 0;
	unsigned long long x = *v == '-' ? (unsigned long long)strtoll(v, &e, 0) : strtoull(v, &e, 0);
	if (!*v || *e || errno) {
		if (!c->bad)
			c->bad = v;
		return 0;
	}
	return x;
}

static uint32_t num(struct fctx *c, const char *v)
{
	return (uint32_t)num64(c, v);
}

/* Up to `max` unsigned decimal numbers separated by ':' (at least one); 0, or -1 after
 * remembering v in c->bad. */
static int colon_nums(struct fctx *c, const char *v, unsigned long long *out, int max)
{
	const char *p = v;
	int k = 0;
	for (;;) {
		char *e;
		if (k == max || !(*p >= '0' && *p <= '9'))
			break;
		errno = 0;
		out[k++] = strtoull(p, &e, 10);
		if (errno)
			break;
		p = e;
		if (!*p)
			return 0;
		if (*p++ != ':')
			break;
	}
	if (!c->bad)
		c->bad = v;
	return -1;
}

/* MAJOR[:MINOR] */
static uint32_t mkdev(struct fctx *c, const char *v)
{
	unsigned long long d[2] = { 0, 0 };
	if (colon_nums(c, v, d, 2) || d[0] > 0xfff || d[1] > 0xfffff) {
		if (!c->bad)
			c->bad = v;
		return 0;
	}
	return SP_AUDIT_MKDEV((unsigned)d[0], (unsigned)d[1]);
}

static uint32_t mode_of(struct fctx *c, const char *v)
{
	if (!strcmp(v, "file")) return 0100644;
	if (!strcmp(v, "dir")) return 040755;
	if (!strcmp(v, "chr")) return 020666;
	if (!strcmp(v, "sock")) return 0140777;
	size_t n = strlen(v);
	if (!n || n > 7 || strspn(v, "01234567") != n) {
		if (!c->bad)
			c->bad = v;
		return 0;
	}
	return (uint32_t)strtoul(v, NULL, 8);
}

static int cred_index(const char *k)
{
	static const char *const names[8] = { "uid", "euid", "suid", "fsuid", "gid", "egid", "sgid", "fsgid" };
	for (int q = 0; q < 8; q++)
		if (!strcmp(k, names[q]))
			return q;
	return -1;
}

/* Build ev from `k=v` tokens.  0, or -EINVAL after printing the reason. */
static int build_event(struct fctx *c, char **tok, int n, int lineno)
{
	struct sp_audit_event *ev = c->ev;
	uint32_t arch = SP_AUDIT_ARCH_X86_64, pids[3] = { 100, 100, 1 }, cred[8] = { 0 };
	const char *sc = NULL, *machine = c->machine;
	uint64_t a[4] = { 0, 0, 0, 0 };
	int last = -1, err = 0;

	c->bad = NULL;
	sp_audit_event_reset(ev);
	sp_audit_event_set_return(ev, 0);
	for (int i = 0; i < n && !err; i++) {
		char *eq = strchr(tok[i], '=');
		if (!eq) {
			fprintf(c->cli->err, "%s:%d: token '%s' has no '='\n", c->events_path, lineno, tok[i]);
			return -EINVAL;
		}
		*eq = 0;
		const char *k = tok[i], *v = eq + 1;
		if (!strcmp(k, "kind")) {
			sp_audit_event_set_kind(ev, !strcmp(v, "uring") ? SP_AUDIT_EV_URING
						    : !strcmp(v, "user") ? SP_AUDIT_EV_USER : SP_AUDIT_EV_SYSCALL);
		} else if (!strcmp(k, "arch")) {
			if (!strcmp(v, "b32")) {
				arch = SP_AUDIT_ARCH_I386;
				machine = "i386";
			} else if (!strcmp(v, "b64")) {
				arch = SP_AUDIT_ARCH_X86_64;
				machine = "x86_64";
			} else {
				arch = num(c, v);
			}
		} else if (!strcmp(k, "sc")) {
			sc = v;
		} else if (k[0] == 'a' && k[1] >= '0' && k[1] <= '3' && !k[2]) {
			a[k[1] - '0'] = num64(c, v);
		} else if (!strcmp(k, "ret")) {
			if (!strcmp(v, "none"))
				sp_audit_event_clear_return(ev);
			else
				sp_audit_event_set_return(ev, (int64_t)num64(c, v));
		} else if (!strcmp(k, "pid")) {
			pids[0] = num(c, v);
		} else if (!strcmp(k, "tid")) {
			pids[1] = num(c, v);
		} else if (!strcmp(k, "ppid")) {
			pids[2] = num(c, v);
		} else if (!strcmp(k, "ids")) {
			for (int q = 0; q < 8; q++)
				cred[q] = num(c, v);
		} else if (cred_index(k) >= 0) {
			cred[cred_index(k)] = num(c, v);
		} else if (!strcmp(k, "auid")) {
			sp_audit_event_set_loginuid(ev, !strcmp(v, "unset") ? SP_AUDIT_UNSET : num(c, v));
		} else if (!strcmp(k, "ses")) {
			sp_audit_event_set_sessionid(ev, !strcmp(v, "unset") ? SP_AUDIT_UNSET : num(c, v));
		} else if (!strcmp(k, "pers")) {
			sp_audit_event_set_personality(ev, num(c, v));
		} else if (!strcmp(k, "groups")) {
			/* every group, however many (no fixed buffer: nothing is cut off) */
			size_t cap = 1;
			for (const char *q = v; *q; q++)
				cap += *q == ',';
			uint32_t *g = malloc(cap * sizeof(*g));
			char *buf = strdup(v), *save = NULL;
			size_t ng = 0;
			if (!g || !buf) {
				err = -ENOMEM;
			} else {
				for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
					g[ng++] = num(c, s);
				if (c->bad)
					c->bad = v;	/* not the copy, freed below */
				err = sp_audit_event_set_groups(ev, g, ng);
			}
			free(g);
			free(buf);
		} else if (!strcmp(k, "subj")) {
			err = sp_audit_event_set_subj_ctx(ev, v);
		} else if (!strcmp(k, "exe")) {
			uint64_t ino;
			uint32_t dev;
			if (!sp_audit_fsview_lookup(c->fs, v, &ino, &dev, NULL))
				sp_audit_event_set_exe(ev, ino, dev);
			else
				err = -ENOENT;
		} else if (!strcmp(k, "saddr")) {
			sp_audit_event_set_saddr_fam(ev, (int)num(c, v));
		} else if (!strcmp(k, "msgtype")) {
			int t = sp_audit_msgtype_lookup(v);
			sp_audit_event_set_msgtype(ev, t >= 0 ? (uint32_t)t : num(c, v));
		} else if (!strcmp(k, "o2flags")) {
			sp_audit_event_set_openat2_flags(ev, num64(c, v));
		} else if (!strcmp(k, "auditd")) {
			sp_audit_event_set_auditd(ev, (int)num(c, v));
		} else if (!strcmp(k, "path")) {
			last = sp_audit_event_add_path(ev, c->fs, v);
			err = last < 0 ? last : 0;
		} else if (!strcmp(k, "rawname")) {
			/* INO[:MAJOR[:MINOR]] or unset[:MAJOR[:MINOR]] */
			unsigned long long ino = 0, x[3] = { 0, 0, 0 };
			const char *dv = NULL;
			if (!strncmp(v, "unset", 5) && (!v[5] || v[5] == ':')) {
				ino = SP_AUDIT_INO_UNSET;
				dv = v[5] ? v + 6 : NULL;
			} else if (!colon_nums(c, v, x, 3)) {
				ino = x[0];
			}
			uint32_t dev = 0;
			if (dv)
				dev = mkdev(c, dv);
			else if (!c->bad && (x[1] > 0xfff || x[2] > 0xfffff))
				c->bad = v;
			else
				dev = SP_AUDIT_MKDEV((unsigned)x[1], (unsigned)x[2]);
			last = sp_audit_event_add_name(ev, ino, dev);
			err = last < 0 ? last : 0;
		} else if (last >= 0 && !strcmp(k, "mode")) {
			err = sp_audit_event_name_set_mode(ev, last, mode_of(c, v));
		} else if (last >= 0 && !strcmp(k, "ouid")) {
			uint32_t g = 0;
			for (int j = i + 1; j < n && strncmp(tok[j], "path=", 5) && strncmp(tok[j], "rawname=", 8); j++)
				if (!strncmp(tok[j], "ogid=", 5))
					g = num(c, tok[j] + 5);
			err = sp_audit_event_name_set_owner(ev, last, num(c, v), g);
		} else if (last >= 0 && !strcmp(k, "ogid")) {
			/* read together with ouid= */
		} else if (last >= 0 && !strcmp(k, "rdev")) {
			err = sp_audit_event_name_set_rdev(ev, last, mkdev(c, v));
		} else if (last >= 0 && !strcmp(k, "obj")) {
			err = sp_audit_event_name_set_obj_ctx(ev, last, v);
		} else if (last >= 0 && !strcmp(k, "magic")) {
			err = sp_audit_event_name_set_fs_magic(ev, last, !strcmp(v, "tracefs") ? 0x74726163u
							       : !strcmp(v, "debugfs") ? 0x64626720u : num(c, v));
		} else {
			fprintf(c->cli->err, "%s:%d: unknown event token '%s'\n", c->events_path, lineno, k);
			*eq = '=';
			return -EINVAL;
		}
		if (err) {
			fprintf(c->cli->err, "%s:%d: bad value '%s' for %s (%s)\n", c->events_path, lineno,
				v, k, strerror(-err));
			*eq = '=';
			return -EINVAL;
		}
		if (c->bad) {
			fprintf(c->cli->err, "%s:%d: bad value '%s' for %s (not a number)\n",
				c->events_path, lineno, c->bad, k);
			*eq = '=';
			return -EINVAL;
		}
		*eq = '=';
	}
	int nr = 0;
	if (sc) {
		char *end;
		long v = strtol(sc, &end, 0);
		nr = *end ? sp_audit_syscall_lookup(machine, sc) : (int)v;
		if (*end && nr < 0) {
			fprintf(c->cli->err, "%s:%d: unknown syscall '%s' for %s\n", c->events_path, lineno, sc,
				machine);
			return -EINVAL;
		}
	}
	sp_audit_event_set_syscall(ev, arch, nr);
	sp_audit_event_set_args(ev, a[0], a[1], a[2], a[3]);
	sp_audit_event_set_pids(ev, pids[0], pids[1], pids[2]);
	sp_audit_event_set_uids(ev, cred[0], cred[1], cred[2], cred[3]);
	sp_audit_event_set_gids(ev, cred[4], cred[5], cred[6], cred[7]);
	return 0;
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

/* Check `k=v` expectations; prints each mismatch, returns their number. */
static int check_expect(struct fctx *c, const struct sp_audit_decision *d, char **tok, int n, int lineno)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		char *eq = strchr(tok[i], '=');
		if (!eq)
			continue;
		*eq = 0;
		const char *k = tok[i], *v = eq + 1;
		int good = 1;
		int32_t rid = strcmp(v, "-") ? (int32_t)num(c, v) : -1;
		if (!strcmp(k, "record")) good = d->record == num(c, v);
		else if (!strcmp(k, "excluded")) good = d->excluded == num(c, v);
		else if (!strcmp(k, "key")) {
			char want[SP_AUDIT_KEY_MAXLEN + 1];
			size_t o = 0;
			for (const char *s = v; *s && o < SP_AUDIT_KEY_MAXLEN; s++) {
				if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
					char h[3] = { s[2], s[3], 0 };
					want[o++] = (char)strtoul(h, NULL, 16);
					s += 3;
				} else {
					want[o++] = *s;
				}
			}
			want[o] = 0;
			good = !strcmp(v, "-") ? !d->has_key : d->has_key && !strcmp(d->key, want);
		} else if (!strcmp(k, "task")) good = !strcmp(verdict_name(d->task), v);
		else if (!strcmp(k, "exit")) good = !strcmp(verdict_name(d->exit), v);
		else if (!strcmp(k, "user")) good = !strcmp(verdict_name(d->user), v);
		else if (!strcmp(k, "rule")) good = d->exit_rule == rid;
		else if (!strcmp(k, "trule")) good = d->task_rule == rid;
		else if (!strcmp(k, "urule")) good = d->user_rule == rid;
		else if (!strcmp(k, "xrule")) good = d->exclude_rule == rid;
		else if (!strcmp(k, "hidden")) good = d->fs_hidden == num(c, v);
		else if (!strcmp(k, "ctx")) good = !strcmp(ctx_name(d->context), v);
		if (!good) {
			fprintf(c->cli->err, "%s:%d: expected %s=%s\n", c->events_path, lineno, k, v);
			bad++;
		}
		*eq = '=';
	}
	c->bad = NULL;	/* a non-numeric expectation is a mismatch, not a malformed event */
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
		      struct sp_audit_ref *r)
{
	char *text;
	size_t len;
	int err = cli_read_file(path, &text, &len), bad = 0;
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
	if (err || d.nerrors) {
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

static int cmd_filter(int argc, char **argv, struct sp_cli *cli)
{
	const char *engine = "compiled", *rules = NULL, *events = NULL;
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	int json = 0, status = SP_EXIT_OK;

	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			usage(cli->out);
			return SP_EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "--engine")) {
			engine = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--machine")) {
			po.machine = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--passwd")) {
			po.passwd_file = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--group")) {
			po.group_file = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--dirs")) {
			po.dirs_file = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(cli->err, "%s audit filter: unknown option '%s'\n", cli->prog, argv[i]);
			usage(cli->err);
			return SP_EXIT_USAGE;
		} else if (!rules) {
			rules = argv[i];
		} else if (!events) {
			events = argv[i];
		} else {
			usage(cli->err);
			return SP_EXIT_USAGE;
		}
	}
	if (!rules || !events || (strcmp(engine, "ref") && strcmp(engine, "compiled"))) {
		usage(cli->err);
		return SP_EXIT_USAGE;
	}

	struct fctx c = { .cli = cli, .machine = po.machine, .events_path = events };
	char *text = NULL;
	size_t len;
	int err = cli_read_file(events, &text, &len);
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
		char *nl = strchr(p, '\n'), line[4200];
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		p += l + (nl ? 1 : 0);
		if (l >= sizeof(line)) {
			if (l >= 2 && !strncmp(p - l - (nl ? 1 : 0), "fs", 2)) {
				fprintf(cli->err, "%s:%d: fs line longer than %zu bytes\n", events,
					lineno + 1, sizeof(line) - 1);
				status = SP_EXIT_REJECTED;
			}
			continue;
		}
		memcpy(line, p - l - (nl ? 1 : 0), l);
		line[l] = 0;
		char *save, *t0 = strtok_r(line, " \t\r", &save);
		if (!t0 || strcmp(t0, "fs"))
			continue;
		char *path = strtok_r(NULL, " \t\r", &save);
		uint64_t ino = 0;
		uint32_t dev = SP_AUDIT_MKDEV(8, 1), mode = 0100644;
		int bad = 0;
		c.bad = NULL;
		for (char *t; (t = strtok_r(NULL, " \t\r", &save));) {
			if (!strncmp(t, "ino=", 4)) ino = num64(&c, t + 4);
			else if (!strncmp(t, "dev=", 4)) dev = mkdev(&c, t + 4);
			else if (!strncmp(t, "mode=", 5)) mode = mode_of(&c, t + 5);
			else bad = 1;
		}
		if (!path || bad || c.bad || sp_audit_fsview_add(c.fs, path, ino, dev, mode)) {
			if (c.bad)
				fprintf(cli->err, "%s:%d: bad fs line: '%s' is not a valid value\n", events,
					lineno + 1, c.bad);
			else
				fprintf(cli->err, "%s:%d: bad fs line\n", events, lineno + 1);
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
	err = load_rules(cli, rules, &po, ref);
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
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, l), *tok[256], *save;
		int n = 0, arrow = -1;
		p += l + (nl ? 1 : 0);
		lineno++;
		if (!line)
			break;
		char *t = strtok_r(line, " \t\r", &save);
		for (; t && n < 256; t = strtok_r(NULL, " \t\r", &save))
			tok[n++] = t;
		if (t) {
			fprintf(cli->err, "%s:%d: more than 256 tokens\n", c.events_path, lineno);
			status = SP_EXIT_REJECTED;
		} else if (n && tok[0][0] != '#' && strcmp(tok[0], "event") && strcmp(tok[0], "fs") &&
			   strcmp(tok[0], "load")) {
			fprintf(cli->err, "%s:%d: expected an 'event', 'fs' or 'load' line or a '#' "
				"comment, not '%s'\n", c.events_path, lineno, tok[0]);
			status = SP_EXIT_REJECTED;
		} else if (n && !strcmp(tok[0], "event")) {
			for (int i = 1; i < n; i++)
				if (!strcmp(tok[i], "=>"))
					arrow = i;
			int nt = arrow < 0 ? n - 1 : arrow - 1;
			if (build_event(&c, tok + 1, nt, lineno)) {
				status = SP_EXIT_REJECTED;
			} else {
				struct sp_audit_decision d;
				if (m)
					sp_audit_matcher_filter(m, c.ev, &d);
				else
					sp_audit_ref_filter(ref, c.ev, &d);
				print_decision(cli->out, &d, lineno, json, first);
				first = 0;
				nev++;
				if (arrow >= 0)
					nbad += check_expect(&c, &d, tok + arrow + 1, n - arrow - 1, lineno);
			}
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
	free(text);
	return status;
}

int cmd_audit_filter(int argc, char **argv, struct sp_cli *cli)
{
	if (argc < 1)
		return SP_EXIT_USAGE;
	if (!strcmp(argv[0], "filter"))
		return cmd_filter(argc, argv, cli);
	/* the other filter-engine commands live in their own files (cli.h) */
	if (!strcmp(argv[0], "replay"))
		return cmd_audit_replay(argc, argv, cli);
	if (!strcmp(argv[0], "run"))
		return cmd_audit_run(argc, argv, cli);
	if (!strcmp(argv[0], "cost"))
		return cmd_audit_cost(argc, argv, cli);
	if (!strcmp(argv[0], "optimize"))
		return cmd_audit_optimize(argc, argv, cli);
	fprintf(cli->err, "secpath audit %s: unknown filter command\n", argv[0]);
	return SP_EXIT_USAGE;
}
