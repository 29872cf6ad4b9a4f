/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_audit_parse.c - the `audit-parse` bench suite: rule lines per second for the largest rule
 * set (audit/rules/thirdparty/neo23x0-audit.rules of the data directory).
 *
 * One op = one rule line (comments and blank lines are not counted, but secpath reads them).
 * secpath parses a prefix of k rule lines per call, so 1/k of the per-parse work (the host
 * input files, the set, the line buffers) is part of each op.
 * Variants:
 *   libaudit  libaudit 3.0.9's own calls on the same lines, loaded with dlopen("libaudit.so.1")
 *             at run time (never linked into secpath): audit_rule_create_data, then per option
 *             audit_rule_fieldpair_data / audit_rule_syscallbyname_data /
 *             audit_rule_interfield_comp_data / audit_add_watch_dir / audit_update_watch_perms,
 *             the joined key, free.  The lines are split into options at setup, so this
 *             baseline does less work than auditctl (no line reading, no getopt); its feature
 *             query goes to the kernel as libaudit does.  Skipped if dlopen fails.
 *   secpath   sp_audit_ruleset_parse() on the file text: line reading, escapes, getopt
 *             emulation, every field, encoding to struct audit_rule_data, the ruleset items
 *             (every pass's blobs through libc malloc: glibc grows and trims the heap every
 *             pass, so page faults are part of this figure);
 *   secpath-arena  the same with an injected sp_allocator that bump-allocates from a buffer
 *             reset after each pass (what a caller that keeps its memory would see).
 * Both use the pinned host inputs of data/audit/env when present (secpath) or NSS
 * (libaudit, which has no other way).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secpath/audit.h"
#include "secpath/bench.h"
#include "base/compiler.h"
#include "bench/suites.h"

#define RULES_FILE "audit/rules/thirdparty/neo23x0-audit.rules"	/* under the data directory */
#define MAX_OPS 64

struct parse_param {
	const char *path;
};

static const struct parse_param neo = { RULES_FILE };

/* A bundled data file, whole (NULL when it is missing: the harness names it). */
static char *read_text(const char *rel, size_t *len)
{
	char path[600], *b = NULL;
	if (bench_data_file(rel, path, sizeof(path)))
		return NULL;
	return sp_file_read(path, &b, len) ? NULL : b;
}

static int is_rule_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	return i < n && s[i] != '#';
}

/* ---- secpath ---- */

struct arena {
	unsigned char *base;
	size_t cap, used;
};

static void *arena_alloc(void *ud, size_t size, size_t align)
{
	struct arena *a = ud;
	if (!align)
		align = 16;
	size_t off = (a->used + align - 1) & ~(align - 1);
	if (off + size > a->cap)
		return NULL;
	a->used = off + size;
	return a->base + off;
}

static void arena_free(void *ud, void *p, size_t size)
{
	(void)ud;
	(void)p;
	(void)size;
}

struct sp_state {
	char *text;
	size_t len;
	size_t *end;			/* end[k]: byte offset just past rule line k's newline */
	size_t nrules;
	struct sp_audit_parse_opts o;
	struct arena arena;
	struct sp_allocator alloc;
	uint64_t sink;
	char pw[600], gr[600], di[600];	/* the pinned host inputs (data/audit/env) */
};

static int setup_common(const void *param, void **state, int use_arena)
{
	const struct parse_param *p = param;
	struct sp_state *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->text = read_text(p->path, &s->len);
	s->end = calloc(s->len + 1, sizeof(size_t));
	if (!s->text || !s->end) {
		free(s->text);
		free(s->end);
		free(s);
		return -ENOENT;
	}
	for (size_t pos = 0; pos < s->len;) {
		const char *nl = memchr(s->text + pos, '\n', s->len - pos);
		size_t e = nl ? (size_t)(nl - s->text) + 1 : s->len;
		if (is_rule_line(s->text + pos, e - pos))
			s->end[s->nrules++] = e;
		pos = e;
	}
	s->o.sz = sizeof(s->o);
	s->o.machine = "x86_64";
	if (!bench_data_file("audit/env/passwd", s->pw, sizeof(s->pw)) &&
	    !bench_data_file("audit/env/group", s->gr, sizeof(s->gr)) &&
	    !bench_data_file("audit/env/dirs", s->di, sizeof(s->di))) {
		s->o.passwd_file = s->pw;
		s->o.group_file = s->gr;
		s->o.dirs_file = s->di;
	}
	if (use_arena) {
		s->arena.cap = 64u << 20;
		s->arena.base = malloc(s->arena.cap);
		if (!s->arena.base) {
			free(s->text);
			free(s->end);
			free(s);
			return -ENOMEM;
		}
		s->alloc = (struct sp_allocator){ arena_alloc, arena_free, &s->arena };
		s->o.alloc = &s->alloc;
	}
	*state = s;
	return s->nrules ? 0 : -ENOENT;
}

static int setup_secpath(const void *param, void **state)
{
	return setup_common(param, state, 0);
}

static int setup_arena(const void *param, void **state)
{
	return setup_common(param, state, 1);
}

static sp_noinline void run_secpath(void *state, uint64_t n)
{
	struct sp_state *s = state;
	while (n) {
		size_t k = n < s->nrules ? (size_t)n : s->nrules;	/* parse a prefix of k rule lines */
		struct sp_audit_ruleset *rs = NULL;
		if (sp_audit_ruleset_parse(s->text, s->end[k - 1], RULES_FILE, &s->o, &rs, NULL) == 0)
			s->sink += sp_audit_ruleset_count(rs);
		sp_audit_ruleset_free(rs);
		s->arena.used = 0;
		n -= k;
	}
}

static void teardown_secpath(void *state)
{
	struct sp_state *s = state;
	free(s->arena.base);
	free(s->text);
	free(s->end);
	free(s);
}

/* ---- libaudit through dlopen ---- */

struct la_rule;	/* struct audit_rule_data, used only through libaudit's calls */

struct la_api {
	void *h;
	struct la_rule *(*create)(void);
	void (*free_rule)(struct la_rule *);
	int (*fieldpair)(struct la_rule **, const char *, int);
	int (*syscall)(struct la_rule *, const char *);
	int (*compare)(struct la_rule **, const char *, int);
	int (*add_watch_dir)(int, struct la_rule **, const char *);
	int (*update_perms)(struct la_rule *, int);
	int *syscalladded, *permadded, *exeadded, *archadded;
	unsigned *elf;
};

enum la_kind { LA_FIELD, LA_SYSCALL, LA_COMPARE, LA_WATCH, LA_PERM, LA_KEY };

struct la_op {
	enum la_kind kind;
	char *arg;
};

struct la_line {
	int list;
	int nops;
	struct la_op ops[MAX_OPS];
};

struct la_state {
	struct la_api api;
	struct la_line *lines;
	size_t nlines;
	char *text;
	uint64_t sink;
};

static int list_of(const char *a)
{
	static const struct { const char *n; int v; } t[] = {
		{ "user", 0 }, { "task", 1 }, { "exit", 4 }, { "exclude", 5 }, { "filesystem", 6 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strstr(a, t[i].n))
			return t[i].v;
	return 4;
}

static void teardown_libaudit(void *state)
{
	struct la_state *s = state;
	if (s->api.h)
		dlclose(s->api.h);
	free(s->lines);
	free(s->text);
	free(s);
}

static int setup_libaudit(const void *param, void **state)
{
	const struct parse_param *p = param;
	struct la_state *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	struct la_api *a = &s->api;
	a->h = dlopen("libaudit.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a->h) {
		teardown_libaudit(s);
		return -ENOENT;	/* reported by the harness as "variant libaudit skipped" */
	}
	*(void **)&a->create = dlsym(a->h, "audit_rule_create_data");
	*(void **)&a->free_rule = dlsym(a->h, "audit_rule_free_data");
	*(void **)&a->fieldpair = dlsym(a->h, "audit_rule_fieldpair_data");
	*(void **)&a->syscall = dlsym(a->h, "audit_rule_syscallbyname_data");
	*(void **)&a->compare = dlsym(a->h, "audit_rule_interfield_comp_data");
	*(void **)&a->add_watch_dir = dlsym(a->h, "audit_add_watch_dir");
	*(void **)&a->update_perms = dlsym(a->h, "audit_update_watch_perms");
	a->syscalladded = dlsym(a->h, "_audit_syscalladded");
	a->permadded = dlsym(a->h, "_audit_permadded");
	a->exeadded = dlsym(a->h, "_audit_exeadded");
	a->archadded = dlsym(a->h, "_audit_archadded");
	a->elf = dlsym(a->h, "_audit_elf");
	size_t len;
	s->text = read_text(p->path, &len);
	if (!a->create || !a->free_rule || !a->fieldpair || !a->syscall || !a->compare ||
	    !a->add_watch_dir || !a->update_perms || !s->text) {
		teardown_libaudit(s);
		return -ENOENT;
	}
	size_t cap = 1;
	for (size_t i = 0; i < len; i++)
		cap += s->text[i] == '\n';
	s->lines = calloc(cap, sizeof(*s->lines));
	if (!s->lines) {
		teardown_libaudit(s);
		return -ENOMEM;
	}
	/* split into options once: "-F x" -> field op, "-S a,b" -> syscall ops, ... */
	for (char *save = NULL, *line = strtok_r(s->text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!is_rule_line(line, strlen(line)))
			continue;
		struct la_line *L = &s->lines[s->nlines];
		L->list = 4;
		char *tsave = NULL;
		for (char *t = strtok_r(line, " ", &tsave); t && L->nops < MAX_OPS;
		     t = strtok_r(NULL, " ", &tsave)) {
			char *arg = strtok_r(NULL, " ", &tsave);
			if (!arg)
				break;
			struct la_op *op = &L->ops[L->nops];
			op->arg = arg;
			if (!strcmp(t, "-a") || !strcmp(t, "-A") || !strcmp(t, "-d")) {
				L->list = list_of(arg);
				continue;
			} else if (!strcmp(t, "-F")) {
				op->kind = strncmp(arg, "key=", 4) ? LA_FIELD : LA_KEY;
				if (op->kind == LA_KEY)
					op->arg = arg + 4;
			} else if (!strcmp(t, "-S")) {
				op->kind = LA_SYSCALL;
			} else if (!strcmp(t, "-C")) {
				op->kind = LA_COMPARE;
			} else if (!strcmp(t, "-w") || !strcmp(t, "-W")) {
				op->kind = LA_WATCH;
			} else if (!strcmp(t, "-p")) {
				op->kind = LA_PERM;
			} else if (!strcmp(t, "-k")) {
				op->kind = LA_KEY;
			} else {
				continue;
			}
			L->nops++;
		}
		s->nlines++;
	}
	*state = s;
	return s->nlines ? 0 : -ENOENT;
}

static sp_noinline void run_libaudit(void *state, uint64_t n)
{
	struct la_state *s = state;
	const struct la_api *a = &s->api;
	char buf[4096], key[300];
	for (uint64_t i = 0; i < n; i++) {
		const struct la_line *L = &s->lines[i % s->nlines];
		/* auditctl's reset_vars() */
		if (a->syscalladded)
			*a->syscalladded = *a->permadded = *a->exeadded = *a->archadded = 0;
		if (a->elf)
			*a->elf = 0;
		struct la_rule *r = a->create();
		size_t klen = 0;
		for (int k = 0; r && k < L->nops; k++) {
			const struct la_op *op = &L->ops[k];
			snprintf(buf, sizeof(buf), "%s", op->arg);	/* libaudit cuts in place */
			switch (op->kind) {
			case LA_FIELD:
				a->fieldpair(&r, buf, L->list);
				break;
			case LA_SYSCALL: {
				char *ss = NULL;
				for (char *t = strtok_r(buf, ",", &ss); t; t = strtok_r(NULL, ",", &ss))
					a->syscall(r, t);
				if (a->syscalladded)
					*a->syscalladded = 1;
				break;
			}
			case LA_COMPARE:
				a->compare(&r, buf, L->list);
				break;
			case LA_WATCH:
				a->add_watch_dir(105, &r, buf);
				break;
			case LA_PERM:
				a->update_perms(r, 10);
				break;
			case LA_KEY:
				klen += (size_t)snprintf(key + klen, sizeof(key) - klen, "%s%s",
							 klen ? "\x01" : "", buf);
				if (klen >= sizeof(key))
					klen = sizeof(key) - 1;
				break;
			}
		}
		if (r && klen) {
			snprintf(buf, sizeof(buf), "key=%s", key);
			a->fieldpair(&r, buf, L->list);
		}
		s->sink += r != NULL;
		if (r)
			a->free_rule(r);
	}
}

static const struct sp_bench_case cases[] = {
	{ "neo23x0", &neo, 0 },
};

static const struct sp_bench_variant variants[] = {
	{ "libaudit", setup_libaudit, run_libaudit, teardown_libaudit },
	{ "secpath", setup_secpath, run_secpath, teardown_secpath },
	{ "secpath-arena", setup_arena, run_secpath, teardown_secpath },
};

const struct sp_bench_suite bench_suite_audit_parse = {
	.name = "audit-parse",
	.desc = "rules-file lines parsed to struct audit_rule_data (neo23x0-audit.rules)",
	.unit = "line",
	.cases = cases,
	.ncases = sizeof(cases) / sizeof(cases[0]),
	.variants = variants,
	.nvariants = sizeof(variants) / sizeof(variants[0]),
	.context = "variant libaudit: libaudit 3.0.9's field/syscall calls via dlopen, options pre-split;\n"
		   "variant secpath: the whole auditctl line reader + encoder (file text in, blobs out);\n"
		   "variant secpath-arena: the same with an injected bump allocator reset per pass",
};
