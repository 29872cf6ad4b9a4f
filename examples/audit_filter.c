/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_filter.c - secpath example: decide which syscalls an audit rule set records.
 *
 * What a security agent does with libsecpath's audit filter, in order:
 *   1. turn an auditctl rules file into a matcher in one call (sp_audit_matcher_from_file): it
 *      parses the file into the kernel's binary rules, resolves the watched paths (-w, -F path=,
 *      -F dir=, -F exe=) against this host, loads ADD/DEL in file order as the kernel would and
 *      compiles them; every refusal comes back as a positioned diagnostic, and a rule the kernel
 *      would refuse on this host is skipped with a warning;
 *   2. publish the matcher in an RCU engine, which any number of registered reader threads can
 *      filter through while a writer swaps rules;
 *   3. decide each event, printing whether the SYSCALL record is written and with which key.
 * The steps that call makes (sp_audit_ruleset_parse, sp_audit_fsview_from_host, sp_audit_ref_add,
 * sp_audit_matcher_compile) are public too, for a program that builds its rules another way.
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
#define _POSIX_C_SOURCE 200809L	/* strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <secpath/audit.h>	/* the rules language; includes audit_filter.h (events, engines) */
#include <secpath/audit_tools.h>	/* sp_audit_matcher_from_file, sp_audit_fsview_add_host */

/* Parse RULES into a matcher.  Returns 0, or -1 after printing every reason, positioned. */
static int load_rules(const char *file, struct sp_audit_matcher **m)
{
	/* Pin the host inputs that are not about files: the syscall table of x86_64. */
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_diags d;

	sp_diags_init(&d, NULL);
	/* A rule this host cannot load (a dir= tree it lacks: ENOENT) is a warning and skipped, as
	 * with auditctl -c; a rule auditctl refuses fails the load. */
	int err = sp_audit_matcher_from_file(file, &po, SP_AUDIT_LOAD_CONTINUE, m, &d);
	for (size_t i = 0; i < d.n; i++) {	/* "file:line:col: error: msg\n" */
		char msg[512];
		sp_diag_format(&d.v[i], NULL, msg, sizeof(msg));
		fputs(msg, stderr);
	}
	if (err)
		fprintf(stderr, "%s: rules not loaded: %s\n", file, sp_strerror(err));
	sp_diags_release(&d);
	return err ? -1 : 0;
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
			err = sp_audit_fsview_add_host(fs, v);
			int idx = err ? err : sp_audit_event_add_path(ev, fs, v);
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
	/* Load, then publish: from here on readers see the new rules, lock-free. */
	if (load_rules(rules, &m) || sp_audit_engine_publish(engine, m))
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
	sp_audit_fsview_free(fs);
	return status;
}
