/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rules.c - the loaded rule model of the audit field tools: replaying a rules file the way
 * the kernel receives it, the synthetic file system the rules' paths resolve in, printing a set
 * back as a rules file, and the symbolic facts (implication, disjointness, contradiction) that
 * cost, lint and optimize rely on.
 *
 * Invariants: the symbolic predicates are sound and incomplete: tool_implies() and
 * tool_disjoint() answer 1 only when no event can contradict them under the kernel semantics of
 * audit_filter_rules() (unsigned 32-bit comparators, existential name fields, fields that cannot
 * be evaluated count as false); anything they cannot model (bit operators, names, LSM, groups)
 * is compared syntactically or makes them answer 0.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/tools/tools_int.h"

/* ---- paths and the synthetic file system ---- */

struct strv {
	char **v;
	size_t n, cap;
};

static int strv_find(const struct strv *s, const char *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], p))
			return (int)i;
	return -1;
}

static int strv_add(struct strv *s, const char *p, size_t len)
{
	char tmp[ARD_PATH_MAX + 8];
	if (len >= ARD_PATH_MAX)
		return 0;
	memcpy(tmp, p, len);
	tmp[len] = 0;
	if (strv_find(s, tmp) >= 0)
		return 0;
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 32;
		char **nv = realloc(s->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n] = strdup(tmp);
	if (!s->v[s->n])
		return -ENOMEM;
	s->n++;
	return 0;
}

void tool_paths_free(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* Collect watch, dir and exe strings (dir in dirs, files in files). */
static int collect_paths(const struct sp_audit_ruleset *rs, struct strv *dirs, struct strv *files)
{
	struct sp_audit_rule *r = malloc(sizeof(*r));
	int err = 0;
	if (!r)
		return -ENOMEM;
	for (size_t i = 0; rs && i < sp_audit_ruleset_count(rs) && !err; i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it) || it.kind == SP_AUDIT_ITEM_CTRL)
			continue;
		if (sp_audit_rule_decode(it.blob, it.blob_len, 0, r, NULL, NULL))
			continue;
		for (uint32_t f = 0; f < r->field_count && !err; f++) {
			const struct sp_audit_field *fd = &r->fields[f];
			size_t len = fd->value;
			if (fd->id != AF_WATCH && fd->id != AF_DIR && fd->id != AF_EXE)
				continue;
			if (!fd->str || !len || fd->str[0] != '/')
				continue;
			while (len > 1 && fd->str[len - 1] == '/')
				len--;
			err = strv_add(fd->id == AF_DIR ? dirs : files, fd->str, len);
		}
	}
	free(r);
	return err;
}

int tool_fs_build(const struct sp_audit_ruleset *rs, const struct sp_audit_ruleset *rs2,
		  struct sp_audit_fsview **out, char ***paths, size_t *npaths)
{
	struct strv dirs = { 0 }, files = { 0 }, all = { 0 };
	struct sp_audit_fsview *fs = NULL;
	int err;

	err = collect_paths(rs, &dirs, &files);
	if (!err)
		err = collect_paths(rs2, &dirs, &files);
	if (!err)
		err = sp_audit_fsview_new(&fs);
	if (err)
		goto out;
	err = strv_add(&all, "/", 1);
	/* ancestors of everything, then the directories, their children, then the files */
	for (size_t pass = 0; pass < 2 && !err; pass++) {
		struct strv *s = pass ? &files : &dirs;
		for (size_t i = 0; i < s->n && !err; i++) {
			const char *p = s->v[i];
			for (const char *q = strchr(p + 1, '/'); q && !err; q = strchr(q + 1, '/'))
				err = strv_add(&all, p, (size_t)(q - p));
		}
	}
	size_t nanc = all.n;
	for (size_t i = 0; i < dirs.n && !err; i++) {
		char child[ARD_PATH_MAX + 8];
		err = strv_add(&all, dirs.v[i], strlen(dirs.v[i]));
		int n = snprintf(child, sizeof(child), "%s/f", strcmp(dirs.v[i], "/") ? dirs.v[i] : "");
		if (!err && n > 0 && (size_t)n < ARD_PATH_MAX)
			err = strv_add(&all, child, (size_t)n);
	}
	for (size_t i = 0; i < files.n && !err; i++)
		err = strv_add(&all, files.v[i], strlen(files.v[i]));
	for (size_t i = 0; i < all.n && !err; i++) {
		int is_dir = i < nanc || strv_find(&dirs, all.v[i]) >= 0;
		err = sp_audit_fsview_add(fs, all.v[i], 1000 + i, SP_AUDIT_MKDEV(8, 1),
					  is_dir ? S_IFDIR | 0755 : S_IFREG | 0644);
	}
out:
	tool_paths_free(dirs.v, dirs.n);
	tool_paths_free(files.v, files.n);
	if (err) {
		sp_audit_fsview_free(fs);
		tool_paths_free(all.v, all.n);
		return err;
	}
	*out = fs;
	if (paths) {
		*paths = all.v;
		*npaths = all.n;
	} else {
		tool_paths_free(all.v, all.n);
	}
	return 0;
}

/* ---- rules and sets ---- */

int tool_rule_init(struct tool_rule *r, const void *blob, size_t len, uint32_t line,
		   const struct sp_audit_fsview *fs)
{
	int err;
	memset(r, 0, sizeof(*r));
	r->blob = malloc(len);
	if (!r->blob)
		return -ENOMEM;
	memcpy(r->blob, blob, len);
	r->len = len;
	r->line = line;
	err = sp_audit_rule_decode(r->blob, len, 0, &r->wire, NULL, NULL);
	if (!err)
		err = audit_krule_from_data(&r->k, r->blob, len, fs);
	if (err) {
		free(r->blob);
		r->blob = NULL;
		return err;
	}
	r->list = r->k.listnr;
	r->action = r->k.action;
	r->hash = audit_krule_bucket(&r->k) >= 0;
	return 0;
}

void tool_rule_release(struct tool_rule *r)
{
	if (!r->blob)
		return;
	audit_krule_release(&r->k);
	free(r->blob);
	r->blob = NULL;
}

int tool_lint_add(struct sp_audit_lint **v, size_t *n, enum sp_audit_lint_kind kind, uint32_t line,
		  uint32_t other, const char *fmt, ...)
{
	struct sp_audit_lint *nv = realloc(*v, (*n + 1) * sizeof(**v));
	va_list ap;
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].kind = kind;
	nv[*n].line = line;
	nv[*n].other_line = other;
	va_start(ap, fmt);
	vsnprintf(nv[*n].msg, sizeof(nv[*n].msg), fmt, ap);
	va_end(ap);
	(*n)++;
	return 0;
}

static void set_clear_rules(struct tool_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		tool_rule_release(&s->v[i]);
	s->n = s->nexit = 0;
}

void tool_set_release(struct tool_set *s)
{
	set_clear_rules(s);
	free(s->v);
	for (size_t i = 0; i < s->npre; i++)
		free(s->ctrl_pre[i]);
	for (size_t i = 0; i < s->npost; i++)
		free(s->ctrl_post[i]);
	free(s->ctrl_pre);
	free(s->ctrl_post);
	free(s->lints);
	memset(s, 0, sizeof(*s));
}

static int ctrl_push(char ***v, size_t *n, const char *text)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(text);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* Insert r at index at (moves the tail). */
static int set_insert(struct tool_set *s, size_t at, const struct tool_rule *r)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 64;
		struct tool_rule *nv = realloc(s->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = nc;
	}
	memmove(&s->v[at + 1], &s->v[at], (s->n - at) * sizeof(*s->v));
	s->v[at] = *r;
	s->n++;
	return 0;
}

static void set_remove(struct tool_set *s, size_t at)
{
	tool_rule_release(&s->v[at]);
	memmove(&s->v[at], &s->v[at + 1], (s->n - at - 1) * sizeof(*s->v));
	s->n--;
	if (at < s->nexit)
		s->nexit--;
}

static int set_add_rule(struct tool_set *s, struct tool_rule *r)
{
	int prepend = (r->wire.flags & AL_PREPEND) != 0;
	size_t at;
	int err;
	if (r->list == AL_EXIT || r->list == AL_URING)
		r->prio = prepend ? ++s->prio_pre : --s->prio_app;
	if (r->list == AL_EXIT) {
		at = prepend ? 0 : s->nexit;
		err = set_insert(s, at, r);
		if (!err)
			s->nexit++;
		return err;
	}
	at = s->n;
	if (prepend)
		for (size_t i = s->nexit; i < s->n; i++)
			if (s->v[i].list == r->list) {
				at = i;
				break;
			}
	return set_insert(s, at, r);
}

int tool_set_load(struct tool_set *s, const struct sp_audit_ruleset *rs, struct sp_audit_fsview *fs,
		  const char *machine)
{
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = fs };
	struct sp_audit_ref *ref = NULL;
	int err, seen_rule = 0;

	memset(s, 0, sizeof(*s));
	snprintf(s->machine, sizeof(s->machine), "%s", machine ? machine : "x86_64");
	s->fs = fs;
	err = sp_audit_ref_new(&eo, &ref);
	for (size_t i = 0; !err && i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		struct tool_rule r;
		int rc;
		if (sp_audit_ruleset_item(rs, i, &it))
			break;
		if (it.kind == SP_AUDIT_ITEM_CTRL) {
			if (!strcmp(it.ctrl, "-D")) {
				/* the kernel keeps only what follows: the rules so far go, and the
				 * control lines seen so far precede the rules that survive */
				set_clear_rules(s);
				sp_audit_ref_free(ref);
				ref = NULL;
				err = sp_audit_ref_new(&eo, &ref);
				for (size_t k = 0; !err && k < s->npost; k++)
					err = ctrl_push(&s->ctrl_pre, &s->npre, s->ctrl_post[k]);
				for (size_t k = 0; k < s->npost; k++)
					free(s->ctrl_post[k]);
				s->npost = 0;
				seen_rule = 0;
			}
			if (!err)
				err = seen_rule ? ctrl_push(&s->ctrl_post, &s->npost, it.ctrl)
						: ctrl_push(&s->ctrl_pre, &s->npre, it.ctrl);
			continue;
		}
		seen_rule = 1;
		if (it.kind == SP_AUDIT_ITEM_DEL) {
			if (sp_audit_ref_del(ref, it.blob, it.blob_len))
				continue;
			rc = tool_rule_init(&r, it.blob, it.blob_len, it.line, fs);
			if (rc) {
				err = rc == -ENOMEM ? rc : 0;
				continue;
			}
			for (size_t j = 0; j < s->n; j++)
				if (s->v[j].list == r.list && !audit_krule_compare(&s->v[j].k, &r.k)) {
					set_remove(s, j);
					break;
				}
			tool_rule_release(&r);
			continue;
		}
		rc = sp_audit_ref_add(ref, it.blob, it.blob_len, (uint32_t)i);
		if (rc) {
			if (rc == -ENOMEM)
				err = rc;
			else
				err = tool_lint_add(&s->lints, &s->nlints, SP_AUDIT_LINT_REJECTED, it.line,
						    0, "the kernel rejects this rule (%s)",
						    rc == -EEXIST ? "duplicate: EEXIST" : strerror(-rc));
			continue;
		}
		err = tool_rule_init(&r, it.blob, it.blob_len, it.line, fs);
		if (!err) {
			err = set_add_rule(s, &r);
			if (err)
				tool_rule_release(&r);
		}
	}
	sp_audit_ref_free(ref);
	if (err)
		tool_set_release(s);
	return err;
}

struct sbuf {
	char *p;
	size_t n, cap;
	int err;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t nc = (b->cap ? b->cap : 4096);
		while (nc < b->n + n + 1)
			nc *= 2;
		char *np = realloc(b->p, nc);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void sb_line(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
	sb_put(b, "\n", 1);
}

static void sb_rule(struct sbuf *b, const struct tool_rule *r, const char *machine)
{
	struct sp_audit_rule *w = malloc(sizeof(*w));
	char line[8192];
	if (!w) {
		b->err = -ENOMEM;
		return;
	}
	*w = r->wire;
	w->flags &= ~(uint32_t)AL_PREPEND;
	int n = sp_audit_rule_format(w, SP_AUDIT_ITEM_ADD, machine, line, sizeof(line));
	free(w);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		b->err = -EINVAL;
		return;
	}
	sb_line(b, line);
}

/* Line `line` (1-based) of src: its start and length, or NULL. */
static const char *src_line(const struct tool_source *src, uint32_t line, size_t *n)
{
	const char *p = src->text, *end = src->text + src->len;
	for (uint32_t l = 1; p < end && l < line; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	if (p >= end)
		return NULL;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	*n = (size_t)((nl ? nl : end) - p);
	return p;
}

static int is_comment(const char *p, size_t n)
{
	size_t i = 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
		i++;
	return i == n || p[i] == '#';
}

/* The line, parsed alone as the optimizer's output is parsed back, gives exactly one rule with
 * these bytes. */
static int parses_to(const char *line, size_t n, const struct sp_audit_parse_opts *po,
		     const void *blob, size_t len)
{
	struct sp_audit_ruleset *rs = NULL;
	struct sp_diags d;
	struct sp_audit_item it;
	sp_diags_init(&d, NULL);
	int same = !sp_audit_ruleset_parse(line, n, "line", po, &rs, &d) && !d.nerrors &&
		   sp_audit_ruleset_count(rs) == 1 && !sp_audit_ruleset_item(rs, 0, &it) &&
		   it.kind == SP_AUDIT_ITEM_ADD && it.blob_len == len && !memcmp(it.blob, blob, len);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	return same;
}

/* The comment and blank lines between the previous rule or control line and source line
 * `line` (the head block is printed at the top), then the rule: its own line when its blob is the one that line made
 * (and it is not an -A rule, whose place the set now gives), else its canonical text. */
static void sb_rule_src(struct sbuf *b, const struct tool_rule *r, const char *machine,
			const struct tool_source *src, uint32_t head)
{
	size_t n;
	const char *own = src && src->text ? src_line(src, r->line, &n) : NULL;
	if (own) {
		uint32_t first = r->line;
		size_t k;
		const char *p;
		while (first - 1 > head && (p = src_line(src, first - 1, &k)) && is_comment(p, k))
			first--;
		for (uint32_t l = first; l < r->line; l++)
			if ((p = src_line(src, l, &k)))
				sb_put(b, p, k), sb_put(b, "\n", 1);
	}
	/* the rule as it is now (merges and reorders change wire, not blob) */
	unsigned char *now = own ? malloc(ARD_HDR + r->wire.buflen) : NULL;
	size_t now_len = 0;
	if (now && sp_audit_rule_encode(&r->wire, now, ARD_HDR + r->wire.buflen, &now_len))
		now_len = 0;
	for (size_t i = 0; now_len && i < sp_audit_ruleset_count(src->rs); i++) {
		struct sp_audit_item it;
		uint32_t flags;
		if (sp_audit_ruleset_item(src->rs, i, &it) || it.line != r->line ||
		    it.kind != SP_AUDIT_ITEM_ADD)
			continue;
		memcpy(&flags, it.blob, 4);
		if (!(flags & AL_PREPEND) && it.blob_len == now_len && !memcmp(it.blob, now, now_len) &&
		    parses_to(own, n, src->parse, now, now_len)) {
			free(now);
			while (n && (own[n - 1] == '\r' || own[n - 1] == ' '))
				n--;
			sb_put(b, own, n);
			sb_put(b, "\n", 1);
			return;
		}
	}
	free(now);
	sb_rule(b, r, machine);
}

/* The comment lines at the head of the source, before its first rule or control line. */
static uint32_t sb_head(struct sbuf *b, const struct tool_source *src)
{
	uint32_t line = 0;
	size_t n;
	const char *p;
	while (src && src->text && (p = src_line(src, line + 1, &n)) && is_comment(p, n)) {
		sb_put(b, p, n);
		sb_put(b, "\n", 1);
		line++;
	}
	return line;
}

/* The comment lines at the end of the source, after its last rule or control line. */
static void sb_tail(struct sbuf *b, const struct tool_source *src, uint32_t head)
{
	size_t n;
	const char *p;
	uint32_t last = 0, nlines = 0;
	for (uint32_t l = 1; src && src->text && (p = src_line(src, l, &n)); l++) {
		nlines = l;
		if (!is_comment(p, n))
			last = l;
	}
	for (uint32_t l = (last > head ? last : head) + 1; last && l <= nlines; l++)
		if ((p = src_line(src, l, &n))) {
			sb_put(b, p, n);
			sb_put(b, "\n", 1);
		}
}

int tool_set_format(const struct tool_set *s, const struct tool_source *src, char **text,
		    size_t *len)
{
	struct sbuf b = { 0 };
	sb_line(&b, "## generated by secpath audit optimize");
	uint32_t head = sb_head(&b, src);
	for (size_t i = 0; i < s->npre; i++)
		sb_line(&b, s->ctrl_pre[i]);
	/* io_uring rules share the exit list's priorities: keep the interleaving (sets holding
	 * them are not rewritten, so the priorities still describe v) */
	size_t nuring = 0;
	for (size_t i = s->nexit; i < s->n; i++)
		nuring += s->v[i].list == AL_URING;
	if (!nuring) {
		for (size_t i = 0; i < s->n; i++)
			sb_rule_src(&b, &s->v[i], s->machine, src, head);
	} else {
		size_t e = 0, u = s->nexit;
		for (;;) {
			while (u < s->n && s->v[u].list != AL_URING)
				u++;
			if (e < s->nexit && (u >= s->n || s->v[e].prio > s->v[u].prio))
				sb_rule_src(&b, &s->v[e++], s->machine, src, head);
			else if (u < s->n)
				sb_rule_src(&b, &s->v[u++], s->machine, src, head);
			else
				break;
		}
		for (size_t i = s->nexit; i < s->n; i++)
			if (s->v[i].list != AL_URING)
				sb_rule_src(&b, &s->v[i], s->machine, src, head);
	}
	for (size_t i = 0; i < s->npost; i++)
		sb_line(&b, s->ctrl_post[i]);
	sb_tail(&b, src, head);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*text = b.p;
	*len = b.n;
	return 0;
}

/* ---- symbolic facts ---- */

#define IV_MAX 8
struct ivset {
	uint8_t n, inexact;
	uint32_t lo[IV_MAX], hi[IV_MAX];
};

static void iv_full(struct ivset *s)
{
	s->n = 1;
	s->inexact = 0;
	s->lo[0] = 0;
	s->hi[0] = UINT32_MAX;
}

static void iv_range(struct ivset *s, uint32_t lo, uint32_t hi)
{
	s->inexact = 0;
	s->n = lo <= hi;
	s->lo[0] = lo;
	s->hi[0] = hi;
}

/* The values x with audit_comparator(x, op, v) true (bit operators: not representable). */
static int iv_of_op(struct ivset *s, uint32_t op, uint32_t v)
{
	switch (op) {
	case OP_EQ: iv_range(s, v, v); return 0;
	case OP_LT: if (!v) { s->n = 0; s->inexact = 0; } else iv_range(s, 0, v - 1); return 0;
	case OP_LE: iv_range(s, 0, v); return 0;
	case OP_GT:
		if (v == UINT32_MAX) {
			s->n = 0;
			s->inexact = 0;
		} else {
			iv_range(s, v + 1, UINT32_MAX);
		}
		return 0;
	case OP_GE: iv_range(s, v, UINT32_MAX); return 0;
	case OP_NE:
		s->inexact = 0;
		s->n = 0;
		if (v > 0) {
			s->lo[s->n] = 0;
			s->hi[s->n++] = v - 1;
		}
		if (v < UINT32_MAX) {
			s->lo[s->n] = v + 1;
			s->hi[s->n++] = UINT32_MAX;
		}
		return 0;
	default:
		return -1;
	}
}

static void iv_and(struct ivset *a, const struct ivset *b)
{
	struct ivset r = { .inexact = (uint8_t)(a->inexact | b->inexact) };
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++) {
			uint32_t lo = a->lo[i] > b->lo[j] ? a->lo[i] : b->lo[j];
			uint32_t hi = a->hi[i] < b->hi[j] ? a->hi[i] : b->hi[j];
			if (lo > hi)
				continue;
			if (r.n == IV_MAX) {	/* over-approximate: widen the last one */
				r.hi[r.n - 1] = hi > r.hi[r.n - 1] ? hi : r.hi[r.n - 1];
				r.inexact = 1;
				continue;
			}
			r.lo[r.n] = lo;
			r.hi[r.n++] = hi;
		}
	*a = r;
}

/* a subset of b (b exact, intervals of each set disjoint) */
static int iv_subset(const struct ivset *a, const struct ivset *b)
{
	if (b->inexact)
		return 0;
	for (int i = 0; i < a->n; i++) {
		int in = 0;
		for (int j = 0; j < b->n && !in; j++)
			in = a->lo[i] >= b->lo[j] && a->hi[i] <= b->hi[j];
		if (!in)
			return 0;
	}
	return 1;
}

enum { PG_NONE = 0, PG_RETURN = 1, PG_SADDR = 2 };

static const struct {
	uint32_t type;
	uint32_t dom_hi;	/* domain upper bound */
	uint32_t dom_lo;
	uint8_t presence;
} scalar_vars[TOOL_NVARS] = {
	{ AF_PID, UINT32_MAX, 0, 0 },	 { AF_UID, UINT32_MAX, 0, 0 },	{ AF_EUID, UINT32_MAX, 0, 0 },
	{ AF_SUID, UINT32_MAX, 0, 0 },	 { AF_FSUID, UINT32_MAX, 0, 0 }, { AF_SGID, UINT32_MAX, 0, 0 },
	{ AF_FSGID, UINT32_MAX, 0, 0 },	 { AF_LOGINUID, UINT32_MAX, 0, 0 },
	{ AF_PERS, UINT32_MAX, 0, 0 },	 { AF_ARCH, UINT32_MAX, 0, 0 },	{ AF_PPID, UINT32_MAX, 0, 0 },
	{ AF_LOGINUID_SET, 1, 0, 0 },	 { AF_SESSIONID, UINT32_MAX, 0, 0 },
	{ AF_EXIT, UINT32_MAX, 0, PG_RETURN }, { AF_SUCCESS, 2, 1, PG_RETURN },
	{ AF_SADDR_FAM, UINT32_MAX, 0, PG_SADDR }, { AF_ARG0, UINT32_MAX, 0, 0 },
	{ AF_ARG1, UINT32_MAX, 0, 0 },	 { AF_ARG2, UINT32_MAX, 0, 0 },	{ AF_ARG3, UINT32_MAX, 0, 0 },
	{ AF_MSGTYPE, UINT32_MAX, 0, 0 }, { AF_EGID, 0, 0, 0 },		{ AF_GID, 0, 0, 0 },
	{ AF_PID, 0, 0, 0 },
};

int tool_scalar_var(const struct audit_kfield *f)
{
	if (f->op == OP_BITMASK || f->op == OP_BITTEST)
		return -1;
	for (int i = 0; i < 21; i++)	/* gid/egid (supplementary groups) are not scalar */
		if (scalar_vars[i].type == f->type)
			return i;
	return -1;
}

/* The comparison a scalar field makes, as the set of allowed variable values. */
static int field_set(const struct audit_kfield *f, int var, struct ivset *s)
{
	uint32_t v = f->val;
	if (f->type == AF_SUCCESS)
		v = f->val ? RET_SUCCESS : RET_FAILURE;
	if (iv_of_op(s, f->op, v))
		return -1;
	struct ivset dom;
	iv_range(&dom, scalar_vars[var].dom_lo, scalar_vars[var].dom_hi);
	iv_and(s, &dom);
	return 0;
}

struct rule_facts {
	struct ivset var[TOOL_NVARS];
	uint32_t constrained;	/* bit per var */
	uint8_t presence;	/* PG_* bits the rule requires */
};

static void rule_facts(const struct tool_rule *r, struct rule_facts *rf)
{
	rf->constrained = 0;
	rf->presence = 0;
	for (int i = 0; i < TOOL_NVARS; i++) {
		iv_full(&rf->var[i]);
		struct ivset dom;
		iv_range(&dom, scalar_vars[i].dom_lo, scalar_vars[i].dom_hi);
		iv_and(&rf->var[i], &dom);
	}
	for (uint32_t i = 0; i < r->k.field_count; i++) {
		const struct audit_kfield *f = &r->k.fields[i];
		int var = tool_scalar_var(f);
		struct ivset s;
		if (f->type == AF_EXIT || f->type == AF_SUCCESS)
			rf->presence |= PG_RETURN;
		if (f->type == AF_SADDR_FAM)
			rf->presence |= PG_SADDR;
		if (var < 0 || field_set(f, var, &s))
			continue;
		iv_and(&rf->var[var], &s);
		rf->constrained |= 1u << var;
	}
}

static const char *kfield_str(const struct tool_rule *r, const struct audit_kfield *f)
{
	switch (f->type) {
	case AF_WATCH: return r->k.watch_path;
	case AF_DIR: return r->k.tree_path;
	case AF_EXE: return r->k.exe_path;
	default: return f->lsm_str;
	}
}

static int kfield_equal(const struct tool_rule *a, const struct audit_kfield *fa,
			const struct tool_rule *b, const struct audit_kfield *fb)
{
	if (fa->type != fb->type || fa->op != fb->op || fa->val != fb->val)
		return 0;
	const char *sa = kfield_str(a, fa), *sb = kfield_str(b, fb);
	if (!sa || !sb)
		return sa == sb;
	return !strcmp(sa, sb);
}

static int key_equal(const struct tool_rule *a, const struct tool_rule *b)
{
	if (!a->k.filterkey || !b->k.filterkey)
		return a->k.filterkey == b->k.filterkey;
	return !strcmp(a->k.filterkey, b->k.filterkey);
}

int tool_same_effect(const struct tool_rule *a, const struct tool_rule *b)
{
	return a->action == b->action && key_equal(a, b);
}

int tool_same_body(const struct tool_rule *a, const struct tool_rule *b)
{
	if (a->list != b->list || a->action != b->action || a->k.field_count != b->k.field_count ||
	    a->hash != b->hash || !key_equal(a, b))
		return 0;
	for (uint32_t i = 0; i < a->k.field_count; i++)
		if (!kfield_equal(a, &a->k.fields[i], b, &b->k.fields[i]))
			return 0;
	return 1;
}

int tool_same_body_unordered(const struct tool_rule *a, const struct tool_rule *b)
{
	uint64_t used = 0;
	if (a->list != b->list || a->action != b->action || a->k.field_count != b->k.field_count ||
	    a->hash != b->hash || !key_equal(a, b))
		return 0;
	for (uint32_t i = 0; i < a->k.field_count; i++) {
		int found = 0;
		for (uint32_t j = 0; j < b->k.field_count && !found; j++)
			if (!(used >> j & 1) && kfield_equal(a, &a->k.fields[i], b, &b->k.fields[j])) {
				used |= 1ull << j;
				found = 1;
			}
		if (!found)
			return 0;
	}
	return 1;
}

int tool_implies(const struct tool_rule *a, const struct tool_rule *b)
{
	struct rule_facts fa, fb;
	if (a->list != AL_EXIT || b->list != AL_EXIT)
		return 0;
	for (int w = 0; w < ARD_MASK_WORDS; w++)
		if (a->k.mask[w] & ~b->k.mask[w])
			return 0;
	rule_facts(a, &fa);
	rule_facts(b, &fb);
	if (fb.presence & ~fa.presence)
		return 0;
	for (int v = 0; v < TOOL_NVARS; v++)
		if ((fb.constrained >> v & 1) && !iv_subset(&fa.var[v], &fb.var[v]))
			return 0;
	for (uint32_t i = 0; i < b->k.field_count; i++) {
		const struct audit_kfield *f = &b->k.fields[i];
		int found = 0;
		if (f->type == AF_FILTERKEY || tool_scalar_var(f) >= 0)
			continue;
		for (uint32_t j = 0; j < a->k.field_count && !found; j++)
			found = kfield_equal(a, &a->k.fields[j], b, f);
		if (!found)
			return 0;
	}
	return 1;
}

int tool_disjoint(const struct tool_rule *a, const struct tool_rule *b, const uint32_t *only)
{
	struct rule_facts fa, fb;
	uint32_t any = 0;
	for (int w = 0; w < ARD_MASK_WORDS; w++)
		any |= a->k.mask[w] & b->k.mask[w] & (only ? only[w] : UINT32_MAX);
	if (!any)
		return 1;
	rule_facts(a, &fa);
	rule_facts(b, &fb);
	for (int v = 0; v < TOOL_NVARS; v++) {
		struct ivset s = fa.var[v];
		iv_and(&s, &fb.var[v]);
		if (!s.n)
			return 1;
	}
	return 0;
}

int tool_field_always(const struct audit_kfield *f)
{
	int var = tool_scalar_var(f);
	struct ivset s;
	if (var < 0 || field_set(f, var, &s))
		return 0;
	return s.n == 1 && !s.inexact && s.lo[0] == scalar_vars[var].dom_lo &&
	       s.hi[0] == scalar_vars[var].dom_hi;
}

int tool_never_matches(const struct tool_rule *r, char *why, size_t len)
{
	struct rule_facts f;
	if (r->list == AL_EXIT) {
		uint32_t any = 0;
		for (int w = 0; w < ARD_MASK_WORDS; w++)
			any |= r->k.mask[w];
		if (!any) {
			snprintf(why, len, "no syscall in the mask");
			return 1;
		}
	}
	rule_facts(r, &f);
	for (int v = 0; v < TOOL_NVARS; v++) {
		if (f.var[v].n)
			continue;
		/* name the fields of that variable */
		const char *name = sp_audit_field_name(scalar_vars[v].type);
		snprintf(why, len, "the %s comparisons can never be true (unsigned 32-bit compare)",
			 name ? name : "?");
		return 1;
	}
	return 0;
}
