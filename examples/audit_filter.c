/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_filter.c - secpath example: decide which syscalls an audit rule set records.
 *
 * What a security agent does with libsecpath's audit filter, in order:
 *   1. parse an auditctl rules file into the kernel's binary rules (sp_audit_ruleset_parse);
 *   2. load them, ADD/DEL in file order, into a reference rule set (sp_audit_ref) whose watched
 *      paths (-w, -F path=, -F dir=, -F exe=) resolve against a file-system view that mirrors
 *      this host (stat(2) of each path and its ancestors);
 *   3. compile the set into an immutable matcher and publish it in an RCU engine, which any
 *      number of registered reader threads can filter through while a writer swaps rules;
 *   4. decide each event, printing whether the SYSCALL record is written and with which key.
 *
 * Usage: audit_filter [RULES] < EVENTS   (RULES defaults to data/audit/rules/debian/30-stig.rules)
 * EVENTS: one syscall per line, blank lines and '#' comments skipped, `name=value` tokens:
 *   arch=x86_64|i386  syscall=NAME|NR  a0= a1= a2= a3=  exit=N|-EACCES|none
 *   uid=N (all four uids)  gid=N (all four gids)  auid=N|unset  pid=N  path=/abs/path (repeatable)
 * e.g.  arch=x86_64 syscall=openat a0=-100 a2=0 exit=-EACCES uid=1000 auid=1000 path=/etc/shadow
 * Output: "LINE: recorded key=KEY" ("key=-" without a key, joined keys separated by ','),
 *         "LINE: excluded key=KEY" (written, then dropped by the exclude list),
 *         "LINE: not-recorded".
 * Exit status: 0, or 1 if the rules or an event line were rejected.
 *
 * Build against an installed secpath:  cc audit_filter.c $(pkg-config --cflags --libs secpath)
 */
#define _POSIX_C_SOURCE 200809L	/* strtok_r, PATH_MAX, stat */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <secpath/audit.h>	/* the rules parser; includes audit_filter.h (events, engines) */

/* Copy `path` and every ancestor that exists on this host into the view (inode, device, mode). */
static void mirror_path(struct sp_audit_fsview *fs, const char *path)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (path[0] != '/' || len >= sizeof(buf))
		return;
	memcpy(buf, path, len + 1);
	while (len > 1 && buf[len - 1] == '/')	/* the view wants no trailing '/' */
		buf[--len] = '\0';
	for (;;) {
		struct stat st;
		if (stat(buf, &st) == 0) {
			uint32_t dev = SP_AUDIT_MKDEV(major(st.st_dev), minor(st.st_dev));
			sp_audit_fsview_add(fs, buf, st.st_ino, dev, st.st_mode);
		}
		char *slash = strrchr(buf, '/');
		if (slash == buf) {
			if (buf[1] == '\0')
				break;
			buf[1] = '\0';		/* last step: "/" itself */
		} else {
			*slash = '\0';
		}
	}
}

/* Mirror the paths a rule blob names (path=, dir=, exe=): the kernel resolves them at ADD time. */
static void mirror_rule_paths(struct sp_audit_fsview *fs, const void *blob, size_t len)
{
	struct sp_audit_rule r;		/* decoded view: strings point into blob */
	int path_id = sp_audit_field_lookup("path"), dir_id = sp_audit_field_lookup("dir");
	int exe_id = sp_audit_field_lookup("exe");

	if (sp_audit_rule_decode(blob, len, 0, &r, NULL, NULL))
		return;
	for (uint32_t i = 0; i < r.field_count; i++) {
		int id = (int)r.fields[i].id;
		if (id != path_id && id != dir_id && id != exe_id)
			continue;
		char p[PATH_MAX];	/* rule strings are not NUL-terminated */
		snprintf(p, sizeof(p), "%.*s", (int)r.fields[i].value, r.fields[i].str);
		mirror_path(fs, p);
	}
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 4096 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 4096);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*len = n;
	return buf;
}

/* Parse RULES and add every rule to r.  Returns 0, or -1 after printing why. */
static int load_rules(const char *file, struct sp_audit_fsview *fs, struct sp_audit_ref *r)
{
	/* Pin the host inputs that are not about files: the syscall table of x86_64. */
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	size_t len;
	char *text = read_file(file, &len);
	int bad = 0;

	if (!text) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		return -1;
	}
	sp_diags_init(&d, NULL);
	int err = sp_audit_ruleset_parse(text, len, file, &po, &rs, &d);
	for (size_t i = 0; i < d.n; i++) {	/* "file:line:col: error: msg" */
		char msg[512];
		sp_diag_format(&d.v[i], NULL, msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
	}
	if (err || d.nerrors) {
		fprintf(stderr, "%s: rules rejected (%s)\n", file, err ? strerror(-err) : "syntax");
		bad = 1;
		goto out;
	}
	/* Resolve the watched paths first: the view must hold them when the rules are added. */
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (!sp_audit_ruleset_item(rs, i, &it) && it.kind != SP_AUDIT_ITEM_CTRL)
			mirror_rule_paths(fs, it.blob, it.blob_len);
	}
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it) || it.kind == SP_AUDIT_ITEM_CTRL)
			continue;	/* -D, -b 8192, -e 2: auditd's business, not the filter's */
		/* The rule's id in decisions is its source line. */
		if (it.kind == SP_AUDIT_ITEM_ADD)
			err = sp_audit_ref_add(r, it.blob, it.blob_len, it.line);
		else
			err = sp_audit_ref_del(r, it.blob, it.blob_len);
		/* e.g. -ENOENT: a dir= tree this host does not have; the kernel says the same */
		if (err)
			fprintf(stderr, "%s:%u: warning: the kernel would refuse this rule: %s\n",
				file, it.line, strerror(-err));
	}
out:
	sp_diags_release(&d);
	sp_audit_ruleset_free(rs);
	free(text);
	return bad ? -1 : 0;
}

static uint32_t id_value(const char *v)
{
	return strcmp(v, "unset") ? (uint32_t)strtoul(v, NULL, 0) : SP_AUDIT_UNSET;
}

/* Fill ev from one line of `name=value` tokens.  Returns 0, or -1 after printing why. */
static int parse_event(char *line, unsigned lineno, struct sp_audit_fsview *fs,
		       struct sp_audit_event *ev)
{
	uint32_t arch = SP_AUDIT_ARCH_X86_64, uid = 0, gid = 0, pid = 1000;
	uint64_t a[4] = { 0, 0, 0, 0 };
	const char *sc = "0";

	sp_audit_event_reset(ev);
	sp_audit_event_set_return(ev, 0);
	for (char *save, *tok = strtok_r(line, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		char *v = strchr(tok, '=');
		int err = 0;
		if (!v)
			goto bad;
		*v++ = '\0';
		if (!strcmp(tok, "arch")) {
			err = sp_audit_arch_lookup("x86_64", v, &arch);
		} else if (!strcmp(tok, "syscall")) {
			sc = v;
		} else if (tok[0] == 'a' && tok[1] >= '0' && tok[1] <= '3' && !tok[2]) {
			/* -100 (AT_FDCWD) or 0xffffff9c: the register's 64 bits */
			a[tok[1] - '0'] = v[0] == '-' ? (uint64_t)strtoll(v, NULL, 0)
						      : strtoull(v, NULL, 0);
		} else if (!strcmp(tok, "exit")) {
			int e;
			if (!strcmp(v, "none"))
				sp_audit_event_clear_return(ev);	/* exit_group: none */
			else if (sp_audit_errno_lookup(v, &e) == 0)
				sp_audit_event_set_return(ev, e > 0 ? -e : e); /* (-)EACCES: -13 */
			else
				sp_audit_event_set_return(ev, strtoll(v, NULL, 0));
		} else if (!strcmp(tok, "uid")) {
			uid = id_value(v);
		} else if (!strcmp(tok, "gid")) {
			gid = id_value(v);
		} else if (!strcmp(tok, "auid")) {
			sp_audit_event_set_loginuid(ev, id_value(v));
		} else if (!strcmp(tok, "pid")) {
			pid = id_value(v);
		} else if (!strcmp(tok, "path")) {
			/* A name the syscall looked up: the live inode if the file exists, and as
			 * walked inodes its ancestors (what dir= rules match against). */
			mirror_path(fs, v);
			int idx = sp_audit_event_add_path(ev, fs, v);
			err = idx < 0 ? idx : 0;
		} else {
			v[-1] = '=';
			goto bad;
		}
		if (err) {
			fprintf(stderr, "stdin:%u: bad value '%s' for %s: %s\n", lineno, v, tok,
				strerror(-err));
			return -1;
		}
		continue;
bad:
		fprintf(stderr, "stdin:%u: unknown token '%s'\n", lineno, tok);
		return -1;
	}
	/* Syscall numbers depend on the ABI: openat is 257 on x86_64, 295 on i386. */
	char *end;
	long nr = strtol(sc, &end, 0);
	if (*end)
		nr = sp_audit_syscall_lookup(sp_audit_arch_name(arch), sc);
	if (nr < 0) {
		fprintf(stderr, "stdin:%u: unknown syscall '%s'\n", lineno, sc);
		return -1;
	}
	sp_audit_event_set_syscall(ev, arch, (int32_t)nr);
	sp_audit_event_set_args(ev, a[0], a[1], a[2], a[3]);
	sp_audit_event_set_pids(ev, pid, pid, 1);
	sp_audit_event_set_uids(ev, uid, uid, uid, uid);
	sp_audit_event_set_gids(ev, gid, gid, gid, gid);
	return 0;
}

int main(int argc, char **argv)
{
	const char *rules = argc > 1 ? argv[1] : "data/audit/rules/debian/30-stig.rules";
	struct sp_audit_fsview *fs = NULL;
	struct sp_audit_ref *ref = NULL;
	struct sp_audit_matcher *m = NULL;
	struct sp_audit_engine *engine = NULL;
	struct sp_audit_event *ev = NULL;
	int status = 1;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s [RULES] < EVENTS\n", argv[0]);
		return 2;
	}
	if (sp_audit_fsview_new(&fs) || sp_audit_event_new(&ev) || sp_audit_engine_new(&engine))
		goto out;
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = fs };
	if (sp_audit_ref_new(&eo, &ref) || load_rules(rules, fs, ref))
		goto out;
	/* Compile, then publish: from here on readers see the new rules, lock-free. */
	if (sp_audit_matcher_compile(ref, &m) || sp_audit_engine_publish(engine, m))
		goto out;
	m = NULL;			/* the engine owns it now */
	sp_audit_reader_register();	/* once per thread that calls sp_audit_engine_filter */

	status = 0;
	char line[4096];
	for (unsigned lineno = 1; fgets(line, sizeof(line), stdin); lineno++) {
		const char *p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		if (parse_event(line, lineno, fs, ev)) {
			status = 1;
			continue;
		}
		struct sp_audit_decision d;
		sp_audit_engine_filter(engine, ev, &d);
		if (!d.record) {
			printf("%u: not-recorded\n", lineno);
			continue;
		}
		for (size_t i = 0; i < d.key_len; i++)	/* several -k keys arrive joined by 0x01 */
			if (d.key[i] == '\x01')
				d.key[i] = ',';
		printf("%u: %s key=%s\n", lineno, d.excluded ? "excluded" : "recorded",
		       d.has_key ? d.key : "-");
	}
	sp_audit_reader_unregister();
out:
	sp_audit_event_free(ev);
	sp_audit_engine_free(engine);
	sp_audit_matcher_free(m);
	sp_audit_ref_free(ref);
	sp_audit_fsview_free(fs);
	return status;
}
