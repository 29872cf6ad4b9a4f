/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * event_text.c - the events text format of `secpath audit filter` (secpath-audit(1), EVENTS):
 * one "event KEY=VALUE ..." line into a struct sp_audit_event, one "fs PATH ..." line into a
 * file-system view, and the event line's "=> KEY=VALUE" expectations checked against a decision
 * (sp_audit_decision_check).  The CLI, the case tables (tests/cases/audit/NN-*.events) and
 * embedders share this one reader and checker.
 *
 * Invariants: the text is never read past `len` (it need not be NUL-terminated); every value is
 * validated whole (a number is all digits, a device MAJOR[:MINOR] within the kernel's 12/20 bits,
 * a mode octal), so nothing is read as 0 or cut off silently; a refusal adds exactly one error to
 * the caller's diagnostics, positioned at the offending token (line:column, 1-based), and leaves
 * the event reset or partly built, never half-freed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/filter/filter_int.h"
#include "secpath/audit.h"

struct etx {
	const char *base;	/* the caller's text: columns count from here */
	const char *file;
	uint32_t line;
	struct sp_diags *d;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* [*p, end): the next token as [s, e), or 0 when none is left. */
static int next_token(const char **p, const char *end, const char **s, const char **e)
{
	const char *q = *p;
	while (q < end && is_space(*q))
		q++;
	if (q >= end)
		return 0;
	*s = q;
	while (q < end && !is_space(*q))
		q++;
	*e = q;
	*p = q;
	return 1;
}

/* The per-event state built from the tokens before the event is assembled. */
struct evstate {
	uint32_t arch;
	const char *machine;
	uint64_t a[4];
	uint32_t pids[3], cred[8];
	uint32_t ouid, ogid;		/* owner of the current name */
	char sc[64];
	uint32_t sc_col, sc_len;
};

/* One error at [at, at + n) (n 0: the column alone); returns code. */
static __attribute__((format(printf, 5, 6))) int fail(const struct etx *x, const char *at, size_t n,
						       int code, const char *fmt, ...)
{
	char msg[SP_DIAG_MSG_MAX];
	va_list ap;
	uint32_t col = (uint32_t)(at - x->base) + 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->d)
		sp_diags_add(x->d, SP_SEV_ERROR, code, x->file, x->line, col,
			     n ? col + (uint32_t)n - 1 : 0, "%s", msg);
	return code;
}

/* A whole number: decimal, 0x hex, 0 octal, or negative (two's complement). */
static int num64(const char *v, uint64_t *out)
{
	char *e;
	if (!*v)
		return -1;
	errno = 0;
	unsigned long long x = *v == '-' ? (unsigned long long)strtoll(v, &e, 0) : strtoull(v, &e, 0);
	if (*e || errno)
		return -1;
	*out = x;
	return 0;
}

/* An unsigned 32-bit number (the ids, pids, the personality, arch...): -1 when it is not a
 * number, -2 when it is one that does not fit (negative, or above 4294967295): never truncated. */
static int num32(const char *v, uint32_t *out)
{
	uint64_t x;
	if (num64(v, &x))
		return -1;
	if (*v == '-' || x > UINT32_MAX)
		return -2;
	*out = (uint32_t)x;
	return 0;
}

/* Up to max unsigned decimal numbers joined by ':' (at least one). */
static int colon_nums(const char *v, uint64_t *out, int max)
{
	int k = 0;
	for (;;) {
		char *e;
		if (k == max || !(*v >= '0' && *v <= '9'))
			return -1;
		errno = 0;
		out[k++] = strtoull(v, &e, 10);
		if (errno)
			return -1;
		if (!*e)
			return k;
		if (*e != ':')
			return -1;
		v = e + 1;
	}
}

/* MAJOR[:MINOR] within the kernel's dev_t (12-bit major, 20-bit minor). */
static int parse_dev(const char *v, uint32_t *dev)
{
	uint64_t x[2] = { 0, 0 };
	if (colon_nums(v, x, 2) < 0 || x[0] > 0xfff || x[1] > 0xfffff)
		return -1;
	*dev = SP_AUDIT_MKDEV((uint32_t)x[0], (uint32_t)x[1]);
	return 0;
}

static int parse_mode(const char *v, uint32_t *mode)
{
	static const struct { const char *name; uint32_t mode; } named[] = {
		{ "file", 0100644 }, { "dir", 040755 }, { "chr", 020666 }, { "sock", 0140777 },
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(v, named[i].name)) {
			*mode = named[i].mode;
			return 0;
		}
	size_t n = strlen(v);
	if (!n || n > 7 || strspn(v, "01234567") != n)
		return -1;
	*mode = (uint32_t)strtoul(v, NULL, 8);
	return 0;
}

static int cred_index(const char *k)
{
	static const char *const names[8] = { "uid", "euid", "suid", "fsuid", "gid", "egid", "sgid", "fsgid" };
	for (int q = 0; q < 8; q++)
		if (!strcmp(k, names[q]))
			return q;
	return -1;
}

/* groups=G[,G...]: every group, however many. */
static int parse_groups(struct sp_audit_event *ev, const char *v)
{
	size_t cap = 1, ng = 0;
	for (const char *q = v; *q; q++)
		cap += *q == ',';
	uint32_t *g = malloc(cap * sizeof(*g));
	if (!g)
		return -ENOMEM;
	const char *s = v;
	int err = 0;
	for (;;) {
		const char *c = strchr(s, ',');
		size_t n = c ? (size_t)(c - s) : strlen(s);
		char one[24];
		if (!n || n >= sizeof(one)) {
			err = -EINVAL;
			break;
		}
		memcpy(one, s, n);
		one[n] = 0;
		if (num32(one, &g[ng++])) {
			err = -EINVAL;
			break;
		}
		if (!c)
			break;
		s = c + 1;
	}
	if (!err)
		err = sp_audit_event_set_groups(ev, g, ng);
	free(g);
	return err;
}

/* One KEY=VALUE token: k and v are NUL-terminated copies, [at, at + len) the token in the text. */
struct tok {
	const char *k, *v;
	const char *at;
	size_t len;
};

#define TOK_UNKNOWN 1	/* a token parser's "not one of my keys" */

static int bad_number(const struct etx *x, const struct tok *t)
{
	return fail(x, t->at, t->len, -EINVAL, "bad value '%s' for %s (not a valid number)", t->v, t->k);
}

/* The value as a 32-bit number into *dst: 0, or the error already reported. */
static int tok_u32(const struct etx *x, const struct tok *t, uint32_t *dst)
{
	uint32_t u;
	int rc = num32(t->v, &u);
	if (rc == -2)
		return fail(x, t->at, t->len, -ERANGE,
			    "bad value '%s' for %s (out of range: 0 to 4294967295)", t->v, t->k);
	if (rc)
		return bad_number(x, t);
	*dst = u;
	return 0;
}

/* A setter's result: 0, or its error reported against the token. */
static int setter_result(const struct etx *x, const struct tok *t, int err)
{
	if (!err)
		return 0;
	if (err == -ENOSPC && (!strcmp(t->k, "path") || !strcmp(t->k, "rawname")))
		return fail(x, t->at, t->len, err, "more than %u names in one event", SP_AUDIT_MAX_NAMES);
	return fail(x, t->at, t->len, err, "bad value '%s' for %s (%s)", t->v, t->k, strerror(-err));
}

/* The syscall and its record: kind arch sc a0..a3 ret saddr msgtype o2flags. */
static int syscall_token(const struct etx *x, struct sp_audit_event *ev, const struct tok *t,
			 struct evstate *st)
{
	const char *k = t->k, *v = t->v;
	uint32_t u = 0;
	uint64_t w = 0;
	if (!strcmp(k, "kind")) {
		if (!strcmp(v, "syscall"))
			sp_audit_event_set_kind(ev, SP_AUDIT_EV_SYSCALL);
		else if (!strcmp(v, "uring"))
			sp_audit_event_set_kind(ev, SP_AUDIT_EV_URING);
		else if (!strcmp(v, "user"))
			sp_audit_event_set_kind(ev, SP_AUDIT_EV_USER);
		else
			return fail(x, t->at, t->len, -EINVAL, "bad value '%s' for %s (syscall, uring or user)",
				    v, k);
	} else if (!strcmp(k, "arch")) {
		if (!strcmp(v, "b32")) {
			st->arch = SP_AUDIT_ARCH_I386;
			st->machine = "i386";
		} else if (!strcmp(v, "b64")) {
			st->arch = SP_AUDIT_ARCH_X86_64;
			st->machine = "x86_64";
		} else {
			return tok_u32(x, t, &st->arch);
		}
	} else if (!strcmp(k, "sc")) {
		size_t n = strlen(v);
		if (!n || n >= sizeof(st->sc))
			return fail(x, t->at, t->len, -EINVAL, "bad value '%s' for %s", v, k);
		memcpy(st->sc, v, n + 1);
		st->sc_col = (uint32_t)(t->at - x->base) + 1;
		st->sc_len = (uint32_t)t->len;
	} else if (k[0] == 'a' && k[1] >= '0' && k[1] <= '3' && !k[2]) {
		if (num64(v, &w))
			return bad_number(x, t);
		st->a[k[1] - '0'] = w;
	} else if (!strcmp(k, "ret")) {
		if (!strcmp(v, "none")) {
			sp_audit_event_clear_return(ev);
		} else {
			if (num64(v, &w))
				return bad_number(x, t);
			sp_audit_event_set_return(ev, (int64_t)w);
		}
	} else if (!strcmp(k, "saddr")) {
		if (tok_u32(x, t, &u))
			return -EINVAL;
		sp_audit_event_set_saddr_fam(ev, (int32_t)u);
	} else if (!strcmp(k, "msgtype")) {
		int type = sp_audit_msgtype_lookup(v);
		if (type < 0 && num32(v, &u))
			return fail(x, t->at, t->len, -EINVAL,
				    "bad value '%s' for %s (a record type name or number)", v, k);
		sp_audit_event_set_msgtype(ev, type >= 0 ? (uint32_t)type : u);
	} else if (!strcmp(k, "o2flags")) {
		if (num64(v, &w))
			return bad_number(x, t);
		sp_audit_event_set_openat2_flags(ev, w);
	} else {
		return TOK_UNKNOWN;
	}
	return 0;
}

/* The task: pid tid ppid, credentials (ids= sets all eight), auid ses pers groups subj exe
 * auditd. */
static int task_token(const struct etx *x, struct sp_audit_event *ev, const struct sp_audit_fsview *fs,
		      const struct tok *t, struct evstate *st)
{
	const char *k = t->k, *v = t->v;
	uint32_t u = 0;
	if (!strcmp(k, "pid")) {
		return tok_u32(x, t, &st->pids[0]);
	} else if (!strcmp(k, "tid")) {
		return tok_u32(x, t, &st->pids[1]);
	} else if (!strcmp(k, "ppid")) {
		return tok_u32(x, t, &st->pids[2]);
	} else if (!strcmp(k, "ids")) {
		if (tok_u32(x, t, &st->cred[0]))
			return -EINVAL;
		for (int q = 1; q < 8; q++)
			st->cred[q] = st->cred[0];
	} else if (cred_index(k) >= 0) {
		return tok_u32(x, t, &st->cred[cred_index(k)]);
	} else if (!strcmp(k, "auid") || !strcmp(k, "ses")) {
		if (!strcmp(v, "unset"))
			u = SP_AUDIT_UNSET;
		else if (tok_u32(x, t, &u))
			return -EINVAL;
		if (k[0] == 'a')
			sp_audit_event_set_loginuid(ev, u);
		else
			sp_audit_event_set_sessionid(ev, u);
	} else if (!strcmp(k, "pers")) {
		if (tok_u32(x, t, &u))
			return -EINVAL;
		sp_audit_event_set_personality(ev, u);
	} else if (!strcmp(k, "groups")) {
		int err = parse_groups(ev, v);
		if (err == -EINVAL)
			return fail(x, t->at, t->len, err, "bad value '%s' for %s (numbers joined by ',')", v, k);
		return setter_result(x, t, err);
	} else if (!strcmp(k, "subj")) {
		return setter_result(x, t, sp_audit_event_set_subj_ctx(ev, v));
	} else if (!strcmp(k, "exe")) {
		uint64_t ino;
		uint32_t dev;
		if (!fs || sp_audit_fsview_lookup(fs, v, &ino, &dev, NULL))
			return fail(x, t->at, t->len, -ENOENT,
				    "exe '%s' is not in the file-system view (add an 'fs %s' line)", v, v);
		sp_audit_event_set_exe(ev, ino, dev);
	} else if (!strcmp(k, "auditd")) {
		if (strcmp(v, "0") && strcmp(v, "1"))
			return fail(x, t->at, t->len, -EINVAL, "bad value '%s' for %s (0 or 1)", v, k);
		sp_audit_event_set_auditd(ev, v[0] == '1');
	} else {
		return TOK_UNKNOWN;
	}
	return 0;
}

/* rawname=INO[:MAJOR[:MINOR]] or unset[:MAJOR[:MINOR]]: a name without a path. */
static int rawname_token(const struct etx *x, struct sp_audit_event *ev, const struct tok *t, int *last)
{
	const char *v = t->v;
	uint64_t n[3] = { 0, 0, 0 };
	uint64_t ino;
	if (!strncmp(v, "unset", 5) && (!v[5] || v[5] == ':')) {
		ino = SP_AUDIT_INO_UNSET;
		if (v[5] && colon_nums(v + 6, n + 1, 2) < 0)
			return bad_number(x, t);
	} else if (colon_nums(v, n, 3) < 0) {
		return bad_number(x, t);
	} else {
		ino = n[0];
	}
	if (n[1] > 0xfff || n[2] > 0xfffff)
		return bad_number(x, t);
	*last = sp_audit_event_add_name(ev, ino, SP_AUDIT_MKDEV((uint32_t)n[1], (uint32_t)n[2]));
	return setter_result(x, t, *last < 0 ? *last : 0);
}

/* The names: path= or rawname= starts one (*last: its index), mode ouid ogid rdev obj magic
 * describe the last one. */
static int name_token(const struct etx *x, struct sp_audit_event *ev, const struct sp_audit_fsview *fs,
		      const struct tok *t, int *last, struct evstate *st)
{
	const char *k = t->k, *v = t->v;
	uint32_t u = 0;
	int err = 0;
	if (!strcmp(k, "path")) {
		if (!fs)
			return fail(x, t->at, t->len, -ENOENT, "path '%s' needs a file-system view", v);
		*last = sp_audit_event_add_path(ev, fs, v);
		st->ouid = st->ogid = 0;
		return setter_result(x, t, *last < 0 ? *last : 0);
	} else if (!strcmp(k, "rawname")) {
		st->ouid = st->ogid = 0;
		return rawname_token(x, ev, t, last);
	} else if (*last < 0) {
		return TOK_UNKNOWN;
	} else if (!strcmp(k, "mode")) {
		if (parse_mode(v, &u))
			return fail(x, t->at, t->len, -EINVAL,
				    "bad value '%s' for %s (file, dir, chr, sock or octal)", v, k);
		err = sp_audit_event_name_set_mode(ev, *last, u);
	} else if (!strcmp(k, "ouid") || !strcmp(k, "ogid")) {
		if (tok_u32(x, t, k[1] == 'u' ? &st->ouid : &st->ogid))
			return -EINVAL;
		err = sp_audit_event_name_set_owner(ev, *last, st->ouid, st->ogid);
	} else if (!strcmp(k, "rdev")) {
		if (parse_dev(v, &u))
			return bad_number(x, t);
		err = sp_audit_event_name_set_rdev(ev, *last, u);
	} else if (!strcmp(k, "obj")) {
		err = sp_audit_event_name_set_obj_ctx(ev, *last, v);
	} else if (!strcmp(k, "magic")) {
		if (!strcmp(v, "tracefs"))
			u = 0x74726163u;
		else if (!strcmp(v, "debugfs"))
			u = 0x64626720u;
		else if (tok_u32(x, t, &u))
			return -EINVAL;
		err = sp_audit_event_name_set_fs_magic(ev, *last, u);
	} else {
		return TOK_UNKNOWN;
	}
	return setter_result(x, t, err);
}

/* A name attribute given before any name. */
static int is_name_attr(const char *k)
{
	static const char *const attrs[] = { "mode", "ouid", "ogid", "rdev", "obj", "magic" };
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
		if (!strcmp(k, attrs[i]))
			return 1;
	return 0;
}

/* One KEY=VALUE token.  0, or the error already reported. */
static int event_token(const struct etx *x, struct sp_audit_event *ev, const struct sp_audit_fsview *fs,
		       const struct tok *t, int *last, struct evstate *st)
{
	int r = syscall_token(x, ev, t, st);
	if (r == TOK_UNKNOWN)
		r = task_token(x, ev, fs, t, st);
	if (r == TOK_UNKNOWN)
		r = name_token(x, ev, fs, t, last, st);
	if (r != TOK_UNKNOWN)
		return r;
	return fail(x, t->at, t->len, -EINVAL, "unknown event token '%s'%s", t->k,
		    *last < 0 && is_name_attr(t->k) ? " (a name attribute before any path= or rawname=)" : "");
}

SP_API int sp_audit_event_parse(struct sp_audit_event *ev, const struct sp_audit_fsview *fs,
				const char *machine, const char *text, size_t len, const char *file,
				uint32_t line, struct sp_diags *d, size_t *consumed)
{
	struct etx x = { .base = text, .file = file, .line = line, .d = d };
	struct evstate st = {
		.arch = SP_AUDIT_ARCH_X86_64, .machine = machine ? machine : "x86_64",
		.pids = { 100, 100, 1 },
	};
	const char *p = text, *end = text + len, *s, *e;
	int last = -1, err = 0;
	char *buf = NULL;
	size_t cap = 0;

	if (!ev || (!text && len))
		return -EINVAL;
	sp_audit_event_reset(ev);
	sp_audit_event_set_return(ev, 0);
	{	/* a leading "event" keyword is the line's own */
		const char *q = p;
		if (next_token(&q, end, &s, &e) && e - s == 5 && !memcmp(s, "event", 5))
			p = q;
	}
	while (next_token(&p, end, &s, &e)) {
		size_t n = (size_t)(e - s);
		if (n == 2 && s[0] == '=' && s[1] == '>') {	/* the caller's expectations follow */
			p = s;
			break;
		}
		const char *eq = memchr(s, '=', n);
		if (!eq || eq == s || memchr(s, 0, n)) {
			char tok[64];
			size_t c = n < sizeof(tok) - 1 ? n : sizeof(tok) - 4;
			memcpy(tok, s, c);
			strcpy(tok + c, n > c ? "..." : "");
			for (char *q = tok; *q; q++)	/* a NUL in the token already ended the copy */
				if ((unsigned char)*q < 0x20)
					*q = '?';
			err = fail(&x, s, n, -EINVAL, "token '%s' is not KEY=VALUE", tok);
			break;
		}
		if (n + 1 > cap) {
			char *nb = realloc(buf, n + 1);
			if (!nb) {
				err = fail(&x, s, n, -ENOMEM, "out of memory");
				break;
			}
			buf = nb;
			cap = n + 1;
		}
		memcpy(buf, s, n);
		buf[n] = 0;
		buf[eq - s] = 0;
		struct tok t = { .k = buf, .v = buf + (eq - s) + 1, .at = s, .len = n };
		err = event_token(&x, ev, fs, &t, &last, &st);
		if (err)
			break;
		p = e;
	}
	free(buf);
	if (consumed)
		*consumed = (size_t)(p - text);
	if (err)
		return err;
	int nr = 0;
	if (st.sc[0]) {
		uint64_t w;
		if (!num64(st.sc, &w) && (int64_t)w >= INT32_MIN && (int64_t)w <= INT32_MAX) {
			nr = (int)(int64_t)w;	/* a number, negative ones included (no syscall) */
		} else {
			nr = sp_audit_syscall_lookup(st.machine, st.sc);
			if (nr < 0)
				return fail(&x, text + st.sc_col - 1, st.sc_len, -EINVAL,
					    "unknown syscall '%s' for %s", st.sc, st.machine);
		}
	}
	sp_audit_event_set_syscall(ev, st.arch, nr);
	sp_audit_event_set_args(ev, st.a[0], st.a[1], st.a[2], st.a[3]);
	sp_audit_event_set_pids(ev, st.pids[0], st.pids[1], st.pids[2]);
	sp_audit_event_set_uids(ev, st.cred[0], st.cred[1], st.cred[2], st.cred[3]);
	sp_audit_event_set_gids(ev, st.cred[4], st.cred[5], st.cred[6], st.cred[7]);
	return 0;
}

SP_API int sp_audit_fsview_parse_line(struct sp_audit_fsview *fs, const char *text, size_t len,
				      const char *file, uint32_t line, struct sp_diags *d)
{
	struct etx x = { .base = text, .file = file, .line = line, .d = d };
	const char *p = text, *end = text + len, *s, *e;
	uint64_t ino = 0;
	uint32_t dev = SP_AUDIT_MKDEV(8, 1), mode = 0100644;
	char path[4096], val[64];

	if (!fs || (!text && len))
		return -EINVAL;
	if (!next_token(&p, end, &s, &e) || (size_t)(e - s) != 2 || memcmp(s, "fs", 2))
		return fail(&x, text, 0, -EINVAL, "expected 'fs PATH [ino=N] [dev=MA:MI] [mode=M]'");
	if (!next_token(&p, end, &s, &e))
		return fail(&x, e, 0, -EINVAL, "fs line without a path");
	if ((size_t)(e - s) >= sizeof(path) || s[0] != '/' || memchr(s, 0, (size_t)(e - s)))
		return fail(&x, s, (size_t)(e - s), -EINVAL, "bad path (absolute, under 4096 bytes)");
	memcpy(path, s, (size_t)(e - s));
	path[e - s] = 0;
	while (next_token(&p, end, &s, &e)) {
		size_t n = (size_t)(e - s);
		const char *eq = memchr(s, '=', n);
		size_t kl = eq ? (size_t)(eq - s) : n, vl = eq ? n - kl - 1 : 0;
		if (!eq || vl >= sizeof(val) || memchr(s, 0, n))
			return fail(&x, s, n, -EINVAL, "bad fs attribute (ino=N, dev=MA:MI or mode=M)");
		memcpy(val, eq + 1, vl);
		val[vl] = 0;
		int bad;
		if (kl == 3 && !memcmp(s, "ino", 3))
			bad = num64(val, &ino);
		else if (kl == 3 && !memcmp(s, "dev", 3))
			bad = parse_dev(val, &dev);
		else if (kl == 4 && !memcmp(s, "mode", 4))
			bad = parse_mode(val, &mode);
		else
			return fail(&x, s, n, -EINVAL, "unknown fs attribute (ino=N, dev=MA:MI or mode=M)");
		if (bad)
			return fail(&x, s, n, -EINVAL, "bad fs line: '%s' is not a valid value", val);
	}
	int err = sp_audit_fsview_add(fs, path, ino, dev, mode);
	if (err)
		return fail(&x, text, 0, err, "cannot add '%s' to the file-system view", path);
	return 0;
}

/* ---- expectations: "=> record=1 key=..." ---- */

/* An expected number (decimal, 0x hex, 0 octal, or negative); anything else reads as 0, so a
 * non-numeric expectation is a mismatch, not a malformed line. */
static uint32_t expect_num(const char *v)
{
	uint64_t x;
	return num64(v, &x) ? 0 : (uint32_t)x;
}

/* A rule id: a number, or - for none. */
static int32_t expect_rule(const char *v)
{
	return strcmp(v, "-") ? (int32_t)expect_num(v) : -1;
}

/* key=: \xHH escapes (two characters, read as hex), at most SP_AUDIT_MAX_KEY_LEN bytes kept;
 * - means no key. */
static int expect_key(const struct sp_audit_decision *d, const char *v)
{
	char want[SP_AUDIT_MAX_KEY_LEN + 1];
	size_t o = 0;
	if (!strcmp(v, "-"))
		return !d->has_key;
	for (const char *s = v; *s && o < SP_AUDIT_MAX_KEY_LEN; s++) {
		if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char h[3] = { s[2], s[3], 0 };
			want[o++] = (char)strtoul(h, NULL, 16);
			s += 3;
		} else {
			want[o++] = *s;
		}
	}
	want[o] = 0;
	return d->has_key && !strcmp(d->key, want);
}

/* Does expectation k=v hold for d?  1, 0, or -1 for an unknown key. */
static int expect_one(const struct sp_audit_decision *d, const char *k, const char *v)
{
	if (!strcmp(k, "record")) return d->record == expect_num(v);
	if (!strcmp(k, "excluded")) return d->excluded == expect_num(v);
	if (!strcmp(k, "key")) return expect_key(d, v);
	if (!strcmp(k, "task")) return !strcmp(audit_verdict_name(d->task), v);
	if (!strcmp(k, "exit")) return !strcmp(audit_verdict_name(d->exit), v);
	if (!strcmp(k, "user")) return !strcmp(audit_verdict_name(d->user), v);
	if (!strcmp(k, "rule")) return d->exit_rule == expect_rule(v);
	if (!strcmp(k, "trule")) return d->task_rule == expect_rule(v);
	if (!strcmp(k, "urule")) return d->user_rule == expect_rule(v);
	if (!strcmp(k, "xrule")) return d->exclude_rule == expect_rule(v);
	if (!strcmp(k, "hidden")) return d->fs_hidden == expect_num(v);
	if (!strcmp(k, "ctx")) return !strcmp(audit_ctx_name(d->context), v);
	return -1;
}

SP_API int sp_audit_decision_check(const struct sp_audit_decision *d, const char *text, size_t len,
				   size_t start, const char *file, uint32_t line, struct sp_diags *diag)
{
	struct etx x = { .base = text, .file = file, .line = line, .d = diag };
	const char *p, *end = text + len, *s, *e;
	int bad = 0;

	if (!d || (!text && len) || start > len)
		return -EINVAL;
	p = text + start;
	{	/* a leading "=>" is the event line's separator */
		const char *q = p;
		if (next_token(&q, end, &s, &e) && e - s == 2 && s[0] == '=' && s[1] == '>')
			p = q;
	}
	char *buf = malloc(len - start + 1);	/* one token at a time, NUL-terminated */
	if (!buf)
		return -ENOMEM;
	while (next_token(&p, end, &s, &e)) {
		size_t n = (size_t)(e - s);
		const char *eq = memchr(s, '=', n);
		int good = -1;
		memcpy(buf, s, n);
		buf[n] = 0;
		if (eq && !memchr(s, 0, n)) {
			buf[eq - s] = 0;
			good = expect_one(d, buf, buf + (eq - s) + 1);
			buf[eq - s] = '=';
		}
		if (good < 0 && x.d)
			sp_diags_add(x.d, SP_SEV_WARNING, -EINVAL, file, line, (uint32_t)(s - text) + 1,
				     (uint32_t)(e - text), "%s '%.200s' ignored", eq ? "unknown expectation"
				     : "expectation without '='", buf);
		if (!good) {
			fail(&x, s, n, -EINVAL, "expected %s", buf);
			bad++;
		}
	}
	free(buf);
	return bad;
}
