/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_run_kernel.c - `secpath audit run` judged by the real Linux kernel (issue #19
 * item 5), on recorded runs.
 *
 * Every folder tests/cases/kernel-run/NAME/ holds one run of tests/kernel/run-audit-run.sh: in a
 * Debian 6.1 guest a workload of real programs ran once under `secpath audit run` while the
 * kernel audited it with the same rules.  Recorded: the kernel's audit.log (the events of the
 * workload's login session, without the tracer's own), secpath's predicted records
 * (secpath.log), every syscall event secpath saw (secpath.rec), the rules as loaded and the
 * guest's file system when they were (fs.txt).
 *
 * Checked per case:
 *  1. the kernel against secpath.log, task by task in order: every kernel event predicted, with
 *     the same syscall, exit, key and PATH items (name, nametype, inode, mode, ouid, ogid), and
 *     no predicted event the kernel did not write; the agreement figures are printed;
 *  2. today's engine against the run: secpath.rec re-decided by the reference engine over the
 *     guest's file system records the same events with the same keys as secpath.log (so a
 *     change of the engines that would change audit run's answer fails here, without a guest).
 *
 * With SP_KERNEL_RUN_RESULTS=DIR the runs are read from DIR/NAME/case/ (a fresh
 * tests/kernel/run-audit-run.sh) instead.
 *
 * Invariants: the kernel's records are the truth; a disagreement fails the case unless its
 * `known-diffs` file lists it (`missed PID NR`, `extra PID NR`, `key PID NR`, `paths PID NR` +
 * reason).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "secpath/audit.h"
#include "secpath/audit_record.h"
#include "audit/filter/filter_int.h"
#include "../support/files.h"

#define RUN_DIR "tests/cases/kernel-run"
#define ENV_DIR "tests/cases/kernel/env"
#define MAXCASES 16

struct kev {
	uint32_t pid;
	int nr;
	long long exit;
	char key[160];
	char comm[40];
	char paths[2048];	/* "name|nametype|inode|mode|ouid|ogid;" per PATH item */
	uint64_t serial;
	int matched;
};

struct evlist {
	struct kev *v;
	size_t n, cap;
};

/* The value of " name=" in a record body (quoted values keep their quotes); "" if absent. */
static void field(const char *body, const char *name, char *out, size_t cap)
{
	char pat[40];
	const char *p = body;
	size_t l;

	snprintf(pat, sizeof(pat), " %s=", name);
	out[0] = 0;
	if (!strncmp(body, pat + 1, strlen(pat) - 1))
		p = body + strlen(pat) - 1;
	else if ((p = strstr(body, pat)))
		p += strlen(pat);
	else
		return;
	l = *p == '"' ? strcspn(p + 1, "\"") + 2 : strcspn(p, " \n");
	if (l >= cap)
		l = cap - 1;
	memcpy(out, p, l);
	out[l] = 0;
}

static struct kev *find_serial(struct evlist *l, uint64_t serial)
{
	for (size_t i = l->n; i-- > 0 && i + 32 >= l->n;)
		if (l->v[i].serial == serial)
			return &l->v[i];
	return NULL;
}

/* The SYSCALL events of an audit.log text with their PATH items. */
static void parse_log(const char *text, struct evlist *l)
{
	char v[256];

	memset(l, 0, sizeof(*l));
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n'), *body;
		unsigned long long sec, ms, serial;
		char type[32];
		int off = 0;
		size_t ll = end ? (size_t)(end - line) : strlen(line);
		char buf[8192];
		snprintf(buf, sizeof(buf), "%.*s", (int)(ll < sizeof(buf) ? ll : sizeof(buf) - 1), line);
		line = end ? end + 1 : NULL;
		if (sscanf(buf, "type=%31s msg=audit(%llu.%llu:%llu): %n", type, &sec, &ms, &serial, &off) < 4 || !off)
			continue;
		body = buf + off;
		if (!strcmp(type, "SYSCALL")) {
			if (l->n == l->cap) {
				l->cap = l->cap ? 2 * l->cap : 256;
				l->v = realloc(l->v, l->cap * sizeof(*l->v));
				assert_non_null(l->v);
			}
			struct kev *e = &l->v[l->n++];
			memset(e, 0, sizeof(*e));
			e->serial = serial;
			field(body, "pid", v, sizeof(v));
			e->pid = (uint32_t)strtoul(v, NULL, 10);
			field(body, "syscall", v, sizeof(v));
			e->nr = atoi(v);
			field(body, "exit", v, sizeof(v));
			e->exit = strtoll(v, NULL, 10);
			field(body, "key", e->key, sizeof(e->key));
			field(body, "comm", e->comm, sizeof(e->comm));
		} else if (!strcmp(type, "PATH")) {
			struct kev *e = find_serial(l, serial);
			static const char *const f[] = { "name", "nametype", "inode", "mode", "ouid", "ogid" };
			if (!e)
				continue;
			size_t o = strlen(e->paths);
			for (size_t i = 0; i < 6 && o < sizeof(e->paths) - 1; i++) {
				field(body, f[i], v, sizeof(v));
				o += (size_t)snprintf(e->paths + o, sizeof(e->paths) - o, "%s%s", v, i < 5 ? "|" : ";");
			}
		}
	}
}

struct known {
	char kind[16];
	uint32_t pid;
	int nr, hit;
};

static size_t load_known(const char *file, struct known *k, size_t max)
{
	char *text = tsupport_slurp(file, NULL);
	size_t n = 0;

	for (char *line = text ? strtok(text, "\n") : NULL; line && n < max; line = strtok(NULL, "\n"))
		if (line[0] != '#' && sscanf(line, "%15s %u %d", k[n].kind, &k[n].pid, &k[n].nr) == 3)
			k[n++].hit = 0;
	free(text);
	return n;
}

static int is_known(struct known *k, size_t n, const char *kind, const struct kev *e)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k[i].kind, kind) && k[i].pid == e->pid && k[i].nr == e->nr) {
			k[i].hit = 1;
			return 1;
		}
	return 0;
}

struct figures {
	size_t kernel, predicted, matched, same_key, same_paths, missed, extra, bad;
	struct { char comm[40]; size_t kernel, agree; } prog[48];	/* by the kernel's comm= */
	size_t nprog;
};

/* One kernel event of a program (comm) counted, agreeing when predicted whole. */
static void count_prog(struct figures *f, const struct kev *ke, int agree)
{
	size_t i;

	for (i = 0; i < f->nprog && strcmp(f->prog[i].comm, ke->comm); i++)
		;
	if (i == f->nprog) {
		if (f->nprog == sizeof(f->prog) / sizeof(f->prog[0]))
			return;
		snprintf(f->prog[f->nprog++].comm, sizeof(f->prog[0].comm), "%s", ke->comm);
	}
	f->prog[i].kernel++;
	f->prog[i].agree += agree != 0;
}

/* 1. the kernel's events against secpath's, task by task in order */
static void compare(const char *name, struct evlist *k, struct evlist *s, struct known *kn, size_t nk,
		    struct figures *f)
{
	f->kernel = k->n;
	f->predicted = s->n;
	for (size_t i = 0; i < k->n; i++) {
		struct kev *ke = &k->v[i], *se = NULL;
		/* the next unmatched secpath event of the task with the same syscall and exit */
		for (size_t j = 0; j < s->n && !se; j++)
			if (!s->v[j].matched && s->v[j].pid == ke->pid) {
				if (s->v[j].nr == ke->nr && s->v[j].exit == ke->exit)
					se = &s->v[j];
			}
		count_prog(f, ke, se && !strcmp(ke->key, se->key) && !strcmp(ke->paths, se->paths));
		if (!se) {
			f->missed++;
			if (!is_known(kn, nk, "missed", ke)) {
				f->bad++;
				print_message("kernel-run/%s: missed: pid %u syscall %d exit %lld key %s\n", name,
					      ke->pid, ke->nr, ke->exit, ke->key);
			}
			continue;
		}
		se->matched = ke->matched = 1;
		f->matched++;
		if (!strcmp(ke->key, se->key))
			f->same_key++;
		else if (!is_known(kn, nk, "key", ke)) {
			f->bad++;
			print_message("kernel-run/%s: pid %u syscall %d: kernel key %s, secpath %s\n", name,
				      ke->pid, ke->nr, ke->key, se->key);
		}
		if (!strcmp(ke->paths, se->paths))
			f->same_paths++;
		else if (!is_known(kn, nk, "paths", ke)) {
			f->bad++;
			print_message("kernel-run/%s: pid %u syscall %d PATH items\n  kernel:  %s\n  secpath: %s\n",
				      name, ke->pid, ke->nr, ke->paths, se->paths);
		}
	}
	for (size_t j = 0; j < s->n; j++)
		if (!s->v[j].matched) {
			f->extra++;
			if (!is_known(kn, nk, "extra", &s->v[j])) {
				f->bad++;
				print_message("kernel-run/%s: extra: pid %u syscall %d exit %lld key %s\n", name,
					      s->v[j].pid, s->v[j].nr, s->v[j].exit, s->v[j].key);
			}
		}
}

/* The guest's file system when the rules were loaded (fs.txt: path ino dev mode ...). */
static void load_fs(const char *file, struct sp_audit_fsview *fs)
{
	char *text = tsupport_slurp(file, NULL);

	assert_non_null(text);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char path[4096], dev[16];
		unsigned long long ino;
		unsigned mode, ma, mi;
		if (line[0] != '/' || sscanf(line, "%4095s %llu %15s %o", path, &ino, dev, &mode) != 4 ||
		    sscanf(dev, "%x:%x", &ma, &mi) != 2)
			continue;
		assert_int_equal(sp_audit_fsview_add(fs, path, ino, SP_AUDIT_MKDEV(ma, mi), mode), 0);
	}
	free(text);
}

/* 2. secpath.rec re-decided today, against the events secpath.log recorded */
static void redecide(const char *name, const char *dir, const struct evlist *s)
{
	char p[512];
	size_t len = 0, n = 0, at = 0;
	struct sp_audit_fsview *fs = NULL;
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_ref *ref = NULL;
	struct sp_audit_event *ev = NULL;
	struct sp_audit_record_reader *rd = NULL;
	struct sp_diags d;

	snprintf(p, sizeof(p), "%s/rules.loaded", dir);
	char *rules = tsupport_slurp(p, &len);
	if (!rules) {	/* recorded without templates: the rules themselves */
		snprintf(p, sizeof(p), "%s/rules", dir);
		rules = tsupport_slurp(p, &len);
	}
	assert_non_null(rules);
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64",
					  .passwd_file = ENV_DIR "/passwd", .group_file = ENV_DIR "/group" };
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_ruleset_parse(rules, len, p, &po, &rs, &d), 0);
	sp_diags_release(&d);
	assert_int_equal(sp_audit_fsview_new(&fs), 0);
	snprintf(p, sizeof(p), "%s/fs.txt", dir);
	load_fs(p, fs);
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = fs };
	assert_int_equal(sp_audit_ref_new(&eo, &ref), 0);
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {	/* as tracer_setup loads them */
		struct sp_audit_item it;
		sp_audit_ruleset_item(rs, i, &it);
		if (it.kind == SP_AUDIT_ITEM_ADD)
			sp_audit_ref_add(ref, it.blob, it.blob_len, it.line);
		else if (it.kind == SP_AUDIT_ITEM_DEL)
			sp_audit_ref_del(ref, it.blob, it.blob_len);
	}
	snprintf(p, sizeof(p), "%s/secpath.rec", dir);
	char *rec = tsupport_slurp(p, &len);
	assert_non_null(rec);
	assert_int_equal(sp_audit_record_reader_new(rec, len, &rd), 0);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	for (int r; (r = sp_audit_record_read(rd, ev, NULL)) == 1; n++) {
		struct sp_audit_decision dec;
		sp_audit_event_rebind(ev, ref);	/* the marks follow the call's CREATE/DELETE names */
		sp_audit_ref_filter(ref, ev, &dec);
		if (!dec.record || dec.excluded)
			continue;
		char key[160] = "(null)";
		if (dec.has_key)
			snprintf(key, sizeof(key), "\"%.*s\"", (int)dec.key_len, dec.key);
		const struct kev *want = at < s->n ? &s->v[at] : NULL;
		if (!want || want->pid != ev->pid || want->nr != ev->major || strcmp(want->key, key))
			fail_msg("kernel-run/%s: event %zu of secpath.rec (pid %u syscall %d) is recorded "
				 "today with key %s, the run's record %zu says pid %u syscall %d key %s", name, n,
				 ev->pid, ev->major, key, at, want ? want->pid : 0, want ? want->nr : -1,
				 want ? want->key : "-");
		at++;
	}
	assert_int_equal(at, s->n);
	print_message("kernel-run/%-8s re-decided: %zu events, %zu recorded as in the run\n", name, n, at);
	sp_audit_event_free(ev);
	sp_audit_record_reader_free(rd);
	sp_audit_ref_free(ref);
	sp_audit_fsview_free(fs);
	sp_audit_ruleset_free(rs);
	free(rec);
	free(rules);
}

static char case_names[MAXCASES][64];

static void run_case(void **state)
{
	const char *name = *state;
	char dir[256], p[512];
	struct evlist k, s;
	struct known kn[64];
	struct figures f = { 0 };

	const char *fresh = getenv("SP_KERNEL_RUN_RESULTS");
	if (fresh && *fresh)
		snprintf(dir, sizeof(dir), "%s/%s/case", fresh, name);
	else
		snprintf(dir, sizeof(dir), RUN_DIR "/%s", name);
	snprintf(p, sizeof(p), "%s/audit.log", dir);
	char *klog = tsupport_slurp(p, NULL);
	snprintf(p, sizeof(p), "%s/secpath.log", dir);
	char *slog = tsupport_slurp(p, NULL);
	assert_non_null(klog);
	assert_non_null(slog);
	parse_log(klog, &k);
	parse_log(slog, &s);
	snprintf(p, sizeof(p), RUN_DIR "/%s/known-diffs", name);
	size_t nk = load_known(p, kn, 64);
	compare(name, &k, &s, kn, nk, &f);
	print_message("kernel-run/%-8s kernel events %zu, predicted %zu: matched %zu, same key %zu, same "
		      "PATH items %zu, missed %zu, extra %zu\n", name, f.kernel, f.predicted, f.matched,
		      f.same_key, f.same_paths, f.missed, f.extra);
	char progs[2048] = "";
	for (size_t i = 0, o = 0; i < f.nprog && o < sizeof(progs); i++)
		o += (size_t)snprintf(progs + o, sizeof(progs) - o, " %s %zu/%zu", f.prog[i].comm,
				      f.prog[i].agree, f.prog[i].kernel);
	print_message("kernel-run/%-8s by program (predicted whole / kernel events):%s\n", name, progs);
	for (size_t i = 0; i < nk; i++)
		if (!kn[i].hit)
			print_message("kernel-run/%s: known-diffs entry '%s %u %d' agrees now: remove it\n", name,
				      kn[i].kind, kn[i].pid, kn[i].nr);
	assert_true(f.kernel > 0);
	assert_int_equal(f.bad, 0);
	redecide(name, dir, &s);
	free(k.v);
	free(s.v);
	free(klog);
	free(slog);
}

int main(void)
{
	struct CMUnitTest tests[MAXCASES];
	size_t n = 0;
	DIR *dp = opendir(RUN_DIR);

	for (struct dirent *de; dp && (de = readdir(dp)) && n < MAXCASES;) {
		char p[512];
		struct stat st;
		snprintf(p, sizeof(p), RUN_DIR "/%s/secpath.rec", de->d_name);
		if (de->d_name[0] == '.' || stat(p, &st))
			continue;
		snprintf(case_names[n], sizeof(case_names[n]), "%.63s", de->d_name);
		tests[n] = (struct CMUnitTest){ case_names[n], run_case, NULL, NULL, case_names[n] };
		n++;
	}
	if (dp)
		closedir(dp);
	if (!n) {
		fprintf(stderr, "test_audit_run_kernel: no recorded run in " RUN_DIR "\n");
		return 1;
	}
	return _cmocka_run_group_tests("test_audit_run_kernel", tests, n, NULL, NULL);
}
