/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * laurel.c - an audit.log event as the JSON lines laurel 0.5.1 writes (docs/JSON.md, "audit
 * replay --format laurel"), for the members that follow from the log alone: laurel's
 * enrichment from the running system (/proc parent and process context, container, script,
 * labels, environment, user names) is the configuration switched off.
 *
 * Each record is parsed as laurel parses it: header, then key=value pairs separated by blanks
 * (space or the ENRICHED 0x1D), each value typed by its key (laurel's field dictionary, the
 * a0..a3 of SYSCALL, the aN / aN[M] / aN_len of EXECVE), hex strings decoded in place.  A
 * record laurel refuses is left out and reported (file:line:col, warning), as laurel logs it
 * and goes on.  Records of the multi-part types (1006, 1300-1405, 1420-1999, 2001-2099) form
 * one object; every other record is an object of its own, as laurel emits it at once.
 *
 * Invariants: every index into a record's copy is checked against its length (the input is
 * untrusted); strings are written through lq_str(), so any byte comes out as laurel's
 * %XX-quoted text inside a correctly escaped JSON string; no state outlives a call.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/audit_log.h"
#include "audit/log/log_int.h"
#include "base/compiler.h"

enum { V_EMPTY, V_STR, V_BRACES, V_DEC, V_HEX, V_OCT, V_LIST };
enum { K_NAME, K_ARG, K_ARGLEN };
enum { T_USER_AUTH = 1100, T_AVC = 1400, T_MAC_POLICY_LOAD = 1403 };

struct lval {
	uint8_t kind;		/* V_* */
	/* V_DEC/V_HEX/V_OCT: off, len hold the digits (and '-') as written, and they are the
	 * output's when canon (no leading zero, lower-case hex, not "-0"); d and u are set only
	 * when canon is 0.  V_STR: canon when every byte is LC_PLAIN (the quoting copies them). */
	uint8_t canon;
	uint32_t off, len;	/* V_STR/V_BRACES/V_LIST: bytes of the record copy */
	uint64_t u;		/* V_HEX/V_OCT */
	int64_t d;		/* V_DEC */
};

struct litem {
	uint8_t kk;		/* K_* */
	uint8_t has_y;
	uint16_t x, y;		/* aX, aX[Y], aX_len */
	uint32_t koff, klen;
	struct lval v;
};

/* A growing byte buffer (the JSON being built): the caller's (stack) bytes first, the heap
 * once they are outgrown (heap: p is malloc'd).  Once err is set, cap is 0 (lb_fail), so every
 * room check fails into lb_grow, which returns err. */
struct lbuf {
	char *p;
	size_t n, cap;
	int err, heap;
};

/* An event's item storage: records are parsed one after another, each taking its items from
 * the end of v (the caller's stack array) until it is full, then from an array of its own. */
struct lpool {
	struct litem *v;
	size_t used, cap;
	char *text;		/* the records' copies, likewise */
	size_t tused, tcap;
};

/* One record being parsed: its copy (hex decoded in place) and position.  The copy is followed
 * by LREC_PAD zero bytes: a NUL that stops the scans (span), room for word loads (key_eq) and
 * for fixed 16-byte moves from any position in it (lr_copy). */
#define LREC_PAD 16
struct lrec {
	char *s;
	size_t n, pos;
	uint32_t type;
	const char *why;	/* reason of a refusal */
	struct litem *it;	/* items, growing: in the event's pool, or (own_it) malloc'd */
	size_t nit, cap;
	uint8_t own_it, own_s;	/* it, s are malloc'd (else in the event's pool) */
	size_t tstart, tlen;	/* the type=NAME token; tlen 0: refused */
	int done;		/* written in the multi-part object */
};

static int lb_fail(struct lbuf *b, int err)
{
	b->cap = 0;
	return b->err = err;
}

/* Room for n more bytes: 0, or the buffer's error (-ENOMEM), kept. */
static sp_noinline int lb_grow(struct lbuf *b, size_t n)
{
	if (b->err)
		return b->err;
	size_t cap = b->cap ? b->cap : 1024;
	while (cap < b->n + n)
		cap *= 2;
	char *p = b->heap ? realloc(b->p, cap) : malloc(cap);
	if (!p)
		return lb_fail(b, -ENOMEM);
	if (!b->heap && b->n)
		memcpy(p, b->p, b->n);
	b->p = p;
	b->cap = cap;
	b->heap = 1;
	return 0;
}

/* Room for n more bytes: 0, or the buffer's error. */
static inline int lb_room(struct lbuf *b, size_t n)
{
	return b->n + n > b->cap ? lb_grow(b, n) : 0;
}

static inline void lb_put(struct lbuf *b, const char *s, size_t n)
{
	if (lb_room(b, n))
		return;
	memcpy(b->p + b->n, s, n);
	b->n += n;
}

static inline void lb_str(struct lbuf *b, const char *s)
{
	lb_put(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at p (2..4 bytes), or 0: laurel keeps those as they are
 * and %-quotes every other byte outside 0x20..0x7E, and '%' and '+'. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t k = (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t cp;
	if (!k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	cp = k == 2 ? (p[0] & 0x1fu) : k == 3 ? (p[0] & 0x0fu) : (p[0] & 0x07u);
	for (size_t i = 1; i < k; i++)
		cp = cp << 6 | (p[i] & 0x3fu);
	if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

/*
 * Byte classes, one table lookup a byte: LC_PLAIN, what laurel's quoting copies as it is
 * (printable ASCII but '"', '%', '+' and '\\'); LC_SAFE, '!' and '#'..'~' (what the kernel
 * leaves unencoded); LC_UNQ, LC_SAFE less the quotes and braces; LC_HEX; LC_IDENT,
 * [A-Za-z0-9_]; LC_KEY, a key's bytes after its first, [A-Za-z0-9_-].
 */
enum { LC_HEX = 1, LC_SAFE = 2, LC_UNQ = 4, LC_IDENT = 8, LC_PLAIN = 16, LC_KEY = 32 };
static const uint8_t lclass[256] = {
	[' '] = LC_PLAIN,
	['!'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['#' ... '$'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['%'] = LC_SAFE | LC_UNQ,
	['&'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['\''] = LC_PLAIN | LC_SAFE,
	['(' ... '*'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['+'] = LC_SAFE | LC_UNQ,
	[','] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['-'] = LC_PLAIN | LC_SAFE | LC_UNQ | LC_KEY,
	['.' ... '/'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['0' ... '9'] = LC_PLAIN | LC_SAFE | LC_UNQ | LC_HEX | LC_IDENT | LC_KEY,
	[':' ... '@'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['A' ... 'F'] = LC_PLAIN | LC_SAFE | LC_UNQ | LC_HEX | LC_IDENT | LC_KEY,
	['G' ... 'Z'] = LC_PLAIN | LC_SAFE | LC_UNQ | LC_IDENT | LC_KEY,
	['['] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['\\'] = LC_SAFE | LC_UNQ,
	[']' ... '^'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['_'] = LC_PLAIN | LC_SAFE | LC_UNQ | LC_IDENT | LC_KEY,
	['`'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['a' ... 'f'] = LC_PLAIN | LC_SAFE | LC_UNQ | LC_HEX | LC_IDENT | LC_KEY,
	['g' ... 'z'] = LC_PLAIN | LC_SAFE | LC_UNQ | LC_IDENT | LC_KEY,
	['{'] = LC_PLAIN | LC_SAFE,
	['|'] = LC_PLAIN | LC_SAFE | LC_UNQ,
	['}'] = LC_PLAIN | LC_SAFE,
	['~'] = LC_PLAIN | LC_SAFE | LC_UNQ,
};

static inline int lc_is(int c, unsigned cls)
{
	return c >= 0 && (lclass[c & 255] & cls);
}

static inline int lq_plain(unsigned char c)
{
	return lclass[c] & LC_PLAIN;
}

/*
 * The n bytes at p as laurel's quoted text inside a JSON string, written at o (room for 3n
 * bytes: no byte takes more), returning the end: plain bytes as they are, '"' and '\\' escaped
 * for JSON, valid UTF-8 as it is, every other byte %XX.
 */
static char *lq_write(char *o, const unsigned char *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0, k; i < n;) {
		unsigned char c = p[i];
		if (lq_plain(c)) {
			*o++ = (char)c;
			i++;
		} else if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
			i++;
		} else if (c >= 0x80 && (k = utf8_len(p + i, n - i))) {
			memcpy(o, p + i, k);
			o += k;
			i += k;
		} else {
			*o++ = '%';
			*o++ = hx[c >> 4];
			*o++ = hx[c & 15];
			i++;
		}
	}
	return o;
}

/* Room for the quoted text of n bytes and `extra` more: 0, or the buffer's error. */
static inline int lq_room(struct lbuf *b, size_t n, size_t extra)
{
	if (n > (SIZE_MAX - extra) / 4)
		return lb_fail(b, -ENOMEM);
	return lb_room(b, 3 * n + extra);
}

/* The bytes as laurel's quoted text, without the JSON quotes around it. */
static void lq_bytes(struct lbuf *b, const char *s, size_t n)
{
	if (lq_room(b, n, 0))
		return;
	b->n = (size_t)(lq_write(b->p + b->n, (const unsigned char *)s, n) - b->p);
}

/* The bytes as a JSON string of laurel's quoted text. */
static void lq_str(struct lbuf *b, const char *s, size_t n)
{
	if (lq_room(b, n, 2))
		return;
	char *o = b->p + b->n;
	*o++ = '"';
	o = lq_write(o, (const unsigned char *)s, n);
	*o++ = '"';
	b->n = (size_t)(o - b->p);
}

/* ---- the record parser (laurel's grammar) ---- */

static int ch(const struct lrec *r, size_t i)
{
	return i < r->n ? (unsigned char)r->s[i] : -1;
}

/* A separator after a value: space, 0x1D, or the end of the line. */
static int at_sep(const struct lrec *r, size_t i)
{
	int c = ch(r, i);
	return c < 0 || c == ' ' || c == 0x1d || c == '\n';
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(int c)
{
	return lc_is(c, LC_HEX);
}

static int hexval(int c)
{
	return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* '!' and '#'..'~': what the kernel leaves unencoded. */
static int safe_chr(int c)
{
	return lc_is(c, LC_SAFE);
}

static int lit(struct lrec *r, size_t *i, const char *t)
{
	size_t n = strlen(t);
	if (*i + n > r->n || memcmp(r->s + *i, t, n))
		return 0;
	*i += n;
	return 1;
}

/* The bytes of class f from i.  A record's copy ends with a NUL (LREC_PAD), so a class without
 * NUL stops there (or at a NUL inside the record) with no bound check: f(0) folds at compile
 * time, as span is inlined with a constant f. */
static sp_always_inline size_t span(const struct lrec *r, size_t i, int (*f)(int))
{
	size_t j = i;
	if (f(0)) {
		while (j < r->n && f((unsigned char)r->s[j]))
			j++;
	} else {
		while (f((unsigned char)r->s[j]))
			j++;
	}
	return j - i;
}

/* span of the class bits cls (which NUL has not), and in *plain whether every byte of it is
 * LC_PLAIN. */
static sp_always_inline size_t span_plain(const struct lrec *r, size_t i, unsigned cls, int *plain)
{
	size_t j = i;
	unsigned all = LC_PLAIN, k;
	while ((k = lclass[(unsigned char)r->s[j]]) & cls) {
		all &= k;
		j++;
	}
	*plain = all != 0;
	return j - i;
}

static int blank(int c)
{
	return c == ' ' || c == '\t';
}

/* The pool's end reached, or the record's own array full: an array of its own, grown.  0 or
 * -ENOMEM. */
static sp_noinline int item_grow(struct lrec *r)
{
	size_t cap = r->cap >= 16 ? 2 * r->cap : 32;
	struct litem *v = r->own_it ? realloc(r->it, cap * sizeof(*v)) : malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (!r->own_it && r->nit)
		memcpy(v, r->it, r->nit * sizeof(*v));
	r->it = v;
	r->cap = cap;
	r->own_it = 1;
	return 0;
}

static inline struct litem *item_new(struct lrec *r)
{
	if (r->nit == r->cap && item_grow(r))
		return NULL;
	struct litem *it = &r->it[r->nit++];
	memset(it, 0, sizeof(*it));
	return it;
}

static void set_str(struct lval *v, int kind, size_t off, size_t len)
{
	v->kind = (uint8_t)kind;
	v->canon = 0;
	v->off = (uint32_t)off;
	v->len = (uint32_t)len;
}

/* ---- values: each returns 1 and advances *i, or 0 and leaves *i ---- */

/* "..." of safe_chr (safe=1) or of anything but '"'. */
static int v_dq(struct lrec *r, size_t *i, struct lval *v, int safe)
{
	size_t j = *i + 1;
	if (ch(r, *i) != '"')
		return 0;
	int plain = 0;
	if (safe) {	/* '"' is not a safe byte */
		j += span_plain(r, j, LC_SAFE, &plain);
	} else {
		while (j < r->n && r->s[j] != '"')
			j++;
	}
	if (ch(r, j) != '"')
		return 0;
	set_str(v, V_STR, *i + 1, j - *i - 1);
	v->canon = (uint8_t)plain;
	*i = j + 1;
	return 1;
}

/* open ... close with no `close` inside. */
static int v_delim(struct lrec *r, size_t *i, struct lval *v, char open, char close, int kind)
{
	const char *e;
	if (ch(r, *i) != (unsigned char)open)
		return 0;
	e = memchr(r->s + *i + 1, close, r->n - *i - 1);
	if (!e)
		return 0;
	set_str(v, kind, *i + 1, (size_t)(e - r->s) - *i - 1);
	*i = (size_t)(e - r->s) + 1;
	return 1;
}

/* Hex pairs then a separator: decoded in place at the start of the hex text. */
static int v_hexstr(struct lrec *r, size_t *i, struct lval *v)
{
	size_t n = span(r, *i, is_hex), k = n / 2 * 2;
	if (k == 0 || !at_sep(r, *i + k))
		return 0;
	for (size_t j = 0; j < k / 2; j++)
		r->s[*i + j] = (char)(hexval((unsigned char)r->s[*i + 2 * j]) << 4 |
				      hexval((unsigned char)r->s[*i + 2 * j + 1]));
	set_str(v, V_STR, *i, k / 2);
	*i += k;
	return 1;
}

/* laurel's "encoded": a safe double-quoted string, hex, or (null) / ? (null in JSON). */
static int v_encoded(struct lrec *r, size_t *i, struct lval *v)
{
	size_t j = *i;
	if (v_dq(r, i, v, 1) || v_hexstr(r, i, v))
		return 1;
	if ((lit(r, &j, "(null)") || lit(r, &j, "?")) && at_sep(r, j)) {
		v->kind = V_EMPTY;
		*i = j;
		return 1;
	}
	return 0;
}

/* Digits in base 16 or 8 then a separator; 0 when empty or past 64 bits. */
static int v_unsigned(struct lrec *r, size_t *i, struct lval *v, int base)
{
	size_t j = *i;
	uint64_t u = 0;
	unsigned sh = base == 16 ? 4 : 3, all = 0x20;
	while (base == 16 ? is_hex((unsigned char)r->s[j])
			  : (r->s[j] >= '0' && r->s[j] <= '7')) {	/* NUL is neither: span */
		all &= (unsigned char)r->s[j];	/* 0x20 stays: digits and a-f only */
		j++;
	}
	if (j == *i || !at_sep(r, j))
		return 0;
	/* lower-case, no leading zero: the text is the output; 64 / sh digits fit in 64 bits */
	int canon = all && (r->s[*i] != '0' || j - *i == 1);
	if (!canon || j - *i > 64 / sh) {
		for (size_t q = *i; q < j; q++) {
			if (u >> (64 - sh))
				return 0;	/* u * base + d would pass 64 bits */
			u = u << sh | (unsigned)hexval((unsigned char)r->s[q]);
		}
	}
	v->kind = base == 16 ? V_HEX : V_OCT;
	v->u = u;
	v->off = (uint32_t)*i;
	v->len = (uint32_t)(j - *i);
	v->canon = (uint8_t)canon;
	*i = j;
	return 1;
}

/* [-]digits then a separator, the digits within int64 (as laurel's i64 parse).  The value is
 * computed only when the output cannot copy the text (v->canon 0) or it may pass int64. */
static int v_dec(struct lrec *r, size_t *i, struct lval *v)
{
	size_t j = *i + (ch(r, *i) == '-'), start = j;
	j += span(r, j, is_digit);
	if (j == start || !at_sep(r, j))
		return 0;
	/* no leading zero, and not "-0" */
	int canon = r->s[start] != '0' || (j - start == 1 && start == *i);
	int64_t d = 0;
	if (!canon || j - start > 18) {	/* 18 digits cannot pass INT64_MAX */
		for (size_t q = start; q < j; q++) {
			int k = r->s[q] - '0';
			if (d > (INT64_MAX - k) / 10)
				return 0;
			d = d * 10 + k;
		}
	}
	v->kind = V_DEC;
	v->d = start != *i ? -d : d;
	v->off = (uint32_t)*i;
	v->len = (uint32_t)(j - *i);
	v->canon = (uint8_t)canon;
	*i = j;
	return 1;
}

/* A key of laurel's key=value lists: [A-Za-z][A-Za-z0-9_-]*. */
static sp_always_inline size_t key_len(const struct lrec *r, size_t i)
{
	size_t j = i;
	if (!is_alpha(ch(r, j)))
		return 0;
	while (lclass[(unsigned char)r->s[j]] & LC_KEY)	/* NUL is not LC_KEY: span */
		j++;
	return j - i;
}

static int ident_chr(int c)
{
	return lc_is(c, LC_IDENT);
}

/* One `key=value` of the kv lists inside '...' and { ... }; braced=1 for the latter. */
static int sub_kv(struct lrec *r, size_t *i, int braced)
{
	size_t j = *i + key_len(r, *i);
	struct lval t;
	if (j == *i || ch(r, j) != '=')
		return 0;
	j++;
	if (braced ? (v_delim(r, &j, &t, '\'', '\'', V_STR) || v_dq(r, &j, &t, 0))
		   : (v_dq(r, &j, &t, 0) || v_delim(r, &j, &t, '{', '}', V_STR))) {
		*i = j;
		return 1;
	}
	while (safe_chr((unsigned char)r->s[j]) && (braced || r->s[j] != '\''))	/* span */
		j++;
	*i = j;
	return 1;
}

/* '...' / { ... } holding `k=v` items separated by single spaces (possibly none). */
static int v_kvlist(struct lrec *r, size_t *i, struct lval *v, int braced)
{
	size_t j = *i;
	const char *open = braced ? "{ " : "'", *close = braced ? " }" : "'";
	if (!lit(r, &j, open))
		return 0;
	size_t start = j;
	if (sub_kv(r, &j, braced)) {
		for (;;) {
			size_t k = j + 1;
			if (ch(r, j) != ' ' || !sub_kv(r, &k, braced))
				break;
			j = k;
		}
	}
	size_t end = j;
	if (!lit(r, &j, close))
		return 0;
	set_str(v, braced ? V_BRACES : V_STR, start, end - start);
	*i = j;
	return 1;
}

/* `subj` of SYSCALL and USER_AUTH: [=]safe_chr*[ (identifier)], always taken. */
static void v_subj(struct lrec *r, size_t *i, struct lval *v)
{
	size_t j = *i;
	if (ch(r, j) == '=')
		j++;
	j += span(r, j, safe_chr);
	size_t k = j;
	if (lit(r, &k, " (") && (is_alpha(ch(r, k)) || ch(r, k) == '_')) {
		k += span(r, k, ident_chr);
		if (ch(r, k) == ')')
			j = k + 1;
	}
	set_str(v, V_STR, *i, j - *i);
	*i = j;
}

/* A value laurel takes when its typed parse fails (parse_unspec_value). */
static int v_unspec(struct lrec *r, size_t *i, struct lval *v, const char *key, size_t klen)
{
	size_t n;
	if (klen == 4 && !memcmp(key, "subj", 4) &&
	    (r->type == LT_SYSCALL || r->type == T_USER_AUTH)) {
		v_subj(r, i, v);
		return 1;
	}
	if (klen == 4 && !memcmp(key, "info", 4) && r->type == T_AVC && v_dq(r, i, v, 0))
		return 1;
	int plain;
	n = span_plain(r, *i, LC_UNQ, &plain);
	if (n && at_sep(r, *i + n)) {
		set_str(v, V_STR, *i, n);
		v->canon = (uint8_t)plain;
		*i += n;
		return 1;
	}
	if (v_kvlist(r, i, v, 0) || v_delim(r, i, v, '\'', '\'', V_STR) || v_dq(r, i, v, 0) ||
	    v_kvlist(r, i, v, 1) || v_delim(r, i, v, '{', '}', V_BRACES))
		return 1;
	if (at_sep(r, *i)) {
		v->kind = V_EMPTY;
		return 1;
	}
	return 0;
}

/* laurel's field dictionary (audit-documentation's field-dictionary.csv): the fields it types
 * as numbers; every other field is "encoded".  One list per first letter (every name starts
 * with a lower-case letter), by length then byte order, so a lookup stops at the first longer
 * name.  A name is kept zero-padded in a fixed array with its length, so a lookup compares a
 * length and then whole words (key_eq). */
#define FT_NAME_MAX 24
struct ftype {
	char name[FT_NAME_MAX];	/* zero-padded: the longest is 23 bytes */
	uint8_t len;
	char base;		/* 'h' hex, 'd' decimal, 'o' octal */
};
#define F(s, b) { s, sizeof(s) - 1, b }
static const struct ftype ft_a[] = { F("arch", 'h'), F("argc", 'd'), F("auid", 'd'),
	F("audit_enabled", 'd'), F("audit_failure", 'd'), F("audit_backlog_limit", 'd'),
	F("audit_backlog_wait_time", 'd') };
static const struct ftype ft_c[] = { F("code", 'h'), F("cap_fe", 'd'), F("cap_fi", 'h'),
	F("cap_fp", 'h'), F("cap_pa", 'h'), F("cap_pe", 'h'), F("cap_pi", 'h'), F("cap_pp", 'h'),
	F("compat", 'd'), F("changed", 'd'), F("cap_fver", 'h'), F("capability", 'd') };
static const struct ftype ft_d[] = { F("dport", 'd') };
static const struct ftype ft_e[] = { F("egid", 'd'), F("euid", 'd'), F("exit", 'd'),
	F("errno", 'd'), F("entries", 'd'), F("enforcing", 'd') };
static const struct ftype ft_f[] = { F("fd", 'd'), F("fe", 'd'), F("fi", 'h'), F("fp", 'h'),
	F("fver", 'h'), F("flags", 'h'), F("fsgid", 'd'), F("fsuid", 'd'), F("family", 'd') };
static const struct ftype ft_g[] = { F("gid", 'd') };
static const struct ftype ft_i[] = { F("ino", 'd'), F("igid", 'd'), F("ipid", 'd'), F("item", 'd'),
	F("iuid", 'd'), F("inode", 'd'), F("items", 'd'), F("ioctlcmd", 'h'), F("inode_gid", 'd'),
	F("inode_uid", 'd') };
static const struct ftype ft_l[] = { F("len", 'd'), F("list", 'd'), F("lport", 'd') };
static const struct ftype ft_m[] = { F("mode", 'o'), F("major", 'd'), F("minor", 'd') };
static const struct ftype ft_n[] = { F("nargs", 'd'), F("new_gid", 'd'), F("new_lock", 'd'),
	F("nlnk-pid", 'd'), F("new-enabled", 'd'), F("new-log_passwd", 'd') };
static const struct ftype ft_o[] = { F("ogid", 'd'), F("opid", 'd'), F("oses", 'd'),
	F("ouid", 'd'), F("oauid", 'd'), F("old_pa", 'h'), F("old_pe", 'h'), F("old_pi", 'h'),
	F("old_pp", 'h'), F("obj_gid", 'd'), F("obj_uid", 'd'), F("old-ses", 'd'),
	F("old_val", 'd'), F("old-auid", 'd'), F("old_lock", 'd'), F("old_prom", 'd'),
	F("old-enabled", 'd'), F("old_enforcing", 'd'), F("old-log_passwd", 'd') };
static const struct ftype ft_p[] = { F("pa", 'h'), F("pe", 'h'), F("pi", 'h'), F("pp", 'h'),
	F("per", 'h'), F("pid", 'd'), F("ppid", 'd'), F("prom", 'd'), F("proto", 'd'),
	F("permissive", 'd') };
static const struct ftype ft_q[] = { F("qbytes", 'h') };
static const struct ftype ft_r[] = { F("res", 'd'), F("rport", 'd') };
static const struct ftype ft_s[] = { F("ses", 'd'), F("sig", 'd'), F("sgid", 'd'), F("spid", 'd'),
	F("suid", 'd'), F("sauid", 'd'), F("seqno", 'd'), F("sport", 'd'), F("syscall", 'd'),
	F("sigev_signo", 'd') };
static const struct ftype ft_u[] = { F("uid", 'd') };
static const struct ftype ft_v[] = { F("val", 'd'), F("vm-pid", 'd') };
#define FT(c, l) [c - 'a'] = { ft_##l, SP_ARRAY_SIZE(ft_##l) }
static const struct { const struct ftype *v; size_t n; } ftypes[26] = {
	FT('a', a), FT('c', c), FT('d', d), FT('e', e), FT('f', f), FT('g', g), FT('i', i),
	FT('l', l), FT('m', m), FT('n', n), FT('o', o), FT('p', p), FT('q', q), FT('r', r),
	FT('s', s), FT('u', u), FT('v', v),
};
#undef FT
#undef F

/* The klen bytes at key (klen < FT_NAME_MAX) against a dictionary name of that length, a word
 * at a time: a record's copy has LREC_PAD bytes after its end, so the word loads stay in it;
 * the key's bytes past klen are masked off. */
static sp_always_inline int key_eq(const char *key, size_t klen, const char *name)
{
	for (size_t i = 0; i < klen; i += 8) {
		uint64_t a, b, m = ~0ull;
		memcpy(&a, key + i, 8);
		memcpy(&b, name + i, 8);
		if (klen - i < 8)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			m = (1ull << 8 * (klen - i)) - 1;
#else
			m = ~0ull << 8 * (8 - (klen - i));
#endif
		if ((a ^ b) & m)
			return 0;
	}
	return 1;
}

/* The base of key (klen >= 1: a key) in the dictionary, else 'e' (encoded). */
static char field_base(const char *key, size_t klen)
{
	unsigned f = (unsigned char)key[0] - 'a';
	if (f >= 26 || klen >= FT_NAME_MAX || !ftypes[f].n)	/* a letter without names: v NULL */
		return 'e';
	for (const struct ftype *v = ftypes[f].v, *end = v + ftypes[f].n; v < end && v->len <= klen;
	     v++)
		if (v->len == klen && key_eq(key, klen, v->name))
			return v->base;
	return 'e';
}

static int key_is(const char *k, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(k, w, n);
}

/* The typed value of a plain key, falling back to v_unspec. */
static int v_named(struct lrec *r, size_t *i, struct lval *v, const char *k, size_t n)
{
	/* laurel types its "common" keys (arch; syscall, items, pid, ppid, exit, ses; success,
	 * tty, comm, exe, subj, key) first; the uid/gid rule and the dictionary give each of them
	 * the same base, so they need no lookup of their own (test_audit_log laurel_common_keys) */
	char base = n >= 3 && (!memcmp(k + n - 3, "uid", 3) || !memcmp(k + n - 3, "gid", 3))
			    ? 'd'
			    : field_base(k, n);
	int ok;
	ok = base == 'h' ? v_unsigned(r, i, v, 16)
	   : base == 'd' ? v_dec(r, i, v)
	   : base == 'o' ? v_unsigned(r, i, v, 8)
			 : v_encoded(r, i, v);
	return ok || v_unspec(r, i, v, k, n);
}

/* digits at i as a u16 (laurel's aX index); 0 when none or too large. */
static size_t arg_num(const struct lrec *r, size_t i, uint16_t *out)
{
	size_t n = span(r, i, is_digit);
	uint32_t x = 0;
	for (size_t j = 0; j < n; j++) {
		x = x * 10 + (uint32_t)(r->s[i + j] - '0');
		if (x > UINT16_MAX)
			return 0;
	}
	*out = (uint16_t)x;
	return n;
}

/* The key of a SYSCALL / EXECVE item: aX, and for EXECVE aX_len and aX[Y] (tried in laurel's
 * order: aX_len, aX[Y], aX, then a plain key).  Returns its length (0: none). */
static size_t arg_key(const struct lrec *r, size_t i, struct litem *it)
{
	size_t n, m, j;
	if (ch(r, i) != 'a' || !(n = arg_num(r, i + 1, &it->x)))
		return 0;
	j = i + 1 + n;
	if (r->type == LT_EXECVE && j + 4 <= r->n && !memcmp(r->s + j, "_len", 4)) {
		it->kk = K_ARGLEN;
		return j + 4 - i;
	}
	if (r->type == LT_EXECVE && ch(r, j) == '[' && (m = arg_num(r, j + 1, &it->y)) &&
	    ch(r, j + 1 + m) == ']') {
		it->kk = K_ARG;
		it->has_y = 1;
		return j + 2 + m - i;
	}
	it->kk = K_ARG;
	return j - i;
}

/* One key=value at *i into a new item.  Returns 1, 0 (not one), -ENOMEM. */
static int parse_kv(struct lrec *r, size_t *i)
{
	struct litem *it = item_new(r);
	size_t j = *i, kl = 0;
	int ok;
	if (!it)
		return -ENOMEM;
	if (r->type == LT_SYSCALL || r->type == LT_EXECVE)
		kl = arg_key(r, j, it);
	if (!kl) {
		it->kk = K_NAME;
		it->has_y = 0;
		kl = key_len(r, j);
	}
	it->koff = (uint32_t)j;
	it->klen = (uint32_t)kl;
	j += kl;
	if (!kl || ch(r, j) != '=') {
		r->nit--;
		return 0;
	}
	j++;
	if (it->kk == K_ARG && r->type == LT_SYSCALL) {
		size_t h = span(r, j, is_hex);
		ok = h && at_sep(r, j + h) &&
		     (v_unsigned(r, &j, &it->v, 16) || (set_str(&it->v, V_STR, j, h), j += h, 1));
	} else if (it->kk == K_ARG) {
		ok = v_encoded(r, &j, &it->v);
	} else if (it->kk == K_ARGLEN) {
		ok = v_dec(r, &j, &it->v);
	} else {
		ok = v_named(r, &j, &it->v, r->s + it->koff, kl);
	}
	if (!ok) {
		r->nit--;
		return 0;
	}
	*i = j;
	return 1;
}

static int not_blank_end(int c)
{
	return c != ' ' && c != '\t' && c != '\r' && c != '\n';
}

static int kv_sep(int c)
{
	return c == ' ' || c == 0x1d;
}

static int type_chr(int c)
{
	return lc_is(c, LC_IDENT);
}

static int is_space(int c)
{
	return c == ' ';
}

/* [node=N ]type=T msg=audit(S.M:Q): and blanks; the type token is kept.  1 or 0. */
static int parse_header(struct lrec *r, size_t *i)
{
	size_t j = 0, n;
	if (lit(r, &j, "node=")) {
		if (!(n = span(r, j, not_blank_end)) || !span(r, j + n, is_space))
			return 0;
		j += n;
		j += span(r, j, is_space);
	}
	if (!lit(r, &j, "type=") || !(n = span(r, j, type_chr)))
		return 0;
	r->tstart = j;
	if (n == 7 && !memcmp(r->s + j, "UNKNOWN", 7) && ch(r, j + 7) == '[') {
		size_t d = span(r, j + 8, is_digit);
		if (!d || ch(r, j + 8 + d) != ']')
			return 0;
		n = 9 + d;
	}
	r->tlen = n;
	j += n;
	if (!(n = span(r, j, is_space)))
		return 0;
	j += n;
	if (!lit(r, &j, "msg=audit(") || !(n = span(r, j, is_digit)) || ch(r, j + n) != '.')
		return 0;
	j += n + 1;
	if (!(n = span(r, j, is_digit)) || ch(r, j + n) != ':')
		return 0;
	j += n + 1;
	if (!(n = span(r, j, is_digit)))
		return 0;
	j += n;
	if (!lit(r, &j, "):"))
		return 0;
	*i = j + span(r, j, blank);
	return 1;
}

/* "avc:  denied  { perm ... } for " (the perms as one V_LIST item, added after the pairs) or
 * "netlabel: " (an empty item).  Returns 1 with sp set, or 0. */
static int parse_special(struct lrec *r, size_t *i, struct litem *sp)
{
	size_t j = *i, start, end, n;
	memset(sp, 0, sizeof(*sp));
	if (lit(r, &j, "netlabel:")) {
		sp->koff = (uint32_t)*i;
		sp->klen = 8;
		*i = j + span(r, j, blank);
		return 1;
	}
	if (!lit(r, &j, "avc:"))
		return 0;
	j += span(r, j, blank);
	sp->koff = (uint32_t)j;
	if (!lit(r, &j, "granted") && !lit(r, &j, "denied"))
		return 0;
	sp->klen = (uint32_t)(j - sp->koff);
	j += span(r, j, blank);
	if (!lit(r, &j, "{"))
		return 0;
	j += span(r, j, blank);
	start = j;
	while ((is_alpha(ch(r, j)) || ch(r, j) == '_') && (n = span(r, j, ident_chr))) {
		j += n;
		j += span(r, j, blank);
	}
	end = j;
	if (end == start || !lit(r, &j, "}"))
		return 0;
	j += span(r, j, blank);
	if (!lit(r, &j, "for"))
		return 0;
	set_str(&sp->v, V_LIST, start, end - start);
	*i = j + span(r, j, blank);
	return 1;
}

/* The whole record as laurel parses it.  Returns 1 (parsed), 0 (refused: r->why, r->pos),
 * -ENOMEM. */
static int parse_record(struct lrec *r)
{
	size_t i = 0;
	struct litem sp;
	int has_sp, rc;
	r->nit = 0;
	if (!parse_header(r, &i)) {
		r->why = "bad header";
		r->pos = 0;
		return 0;
	}
	has_sp = parse_special(r, &i, &sp);
	if (r->type == T_MAC_POLICY_LOAD)
		lit(r, &i, "policy loaded ");
	if ((rc = parse_kv(r, &i)) < 0)
		return rc;
	while (rc) {
		size_t j = i + span(r, i, kv_sep);
		if (j == i || (rc = parse_kv(r, &j)) == 0)
			break;
		if (rc < 0)
			return rc;
		i = j;
	}
	if (i != r->n) {
		r->why = "not a key=value";
		r->pos = i;
		return 0;
	}
	if (has_sp) {
		struct litem *it = item_new(r);
		if (!it)
			return -ENOMEM;
		*it = sp;
	}
	return 1;
}

/* ---- output ---- */

/* The decimal digits of u at the end of the buffer ending at e; the first digit. */
static char *dec_back(char *e, uint64_t u)
{
	do {
		*--e = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	return e;
}

/* "SEC.MSEC:SERIAL" (msec in three digits), as printf's "%llu.%03u:%u", into id[64]. */
static void event_id(char id[64], uint64_t sec, uint32_t msec, uint32_t serial)
{
	char t[64], *e = t + sizeof(t), *p = dec_back(e, serial);
	*--p = ':';
	char *m = dec_back(p, msec);
	while (p - m < 3)
		*--m = '0';
	*--m = '.';
	p = dec_back(m, sec);
	memcpy(id, p, (size_t)(e - p));
	id[e - p] = 0;
}

/* pre, u in base 8, 10 or 16 (lower-case digits, no leading zeros), post: printf's PRIu64,
 * PRIo64 and PRIx64 without printf. */
static void lb_num(struct lbuf *b, const char *pre, uint64_t u, unsigned base, const char *post)
{
	char d[24], *e = d + sizeof(d), *p = e;
	if (base == 10) {
		p = dec_back(e, u);
	} else {	/* 8 or 16: shifts, not divisions */
		unsigned sh = base == 16 ? 4 : 3;
		do {
			*--p = "0123456789abcdef"[u & (base - 1)];
			u >>= sh;
		} while (u);
	}
	lb_str(b, pre);
	lb_put(b, p, (size_t)(e - p));
	lb_str(b, post);
}

/* n bytes at s, a position in a record's copy, at o (room for n + 16): up to 16 as one fixed
 * 16-byte move (LREC_PAD keeps its reads in the copy), longer ones by memcpy. */
static sp_always_inline char *lr_copy(char *o, const char *s, size_t n)
{
	if (n <= 16)
		memcpy(o, s, 16);
	else
		memcpy(o, s, n);
	return o + n;
}

/* pre, the n bytes of a record's copy at s, post (pre and post at most 3 bytes). */
static sp_always_inline void put_copy(struct lbuf *b, const char *pre, const char *s, size_t n,
				      const char *post)
{
	size_t np = strlen(pre), nq = strlen(post);
	if (lb_room(b, np + n + 16 + nq))
		return;
	char *o = b->p + b->n;
	memcpy(o, pre, np);
	o = lr_copy(o + np, s, n);
	memcpy(o, post, nq);
	b->n = (size_t)(o + nq - b->p);
}

static void put_value(struct lbuf *b, const struct lrec *r, const struct lval *v)
{
	char t[40];
	const char *s = r->s + v->off;
	switch (v->kind) {
	case V_STR:
		if (v->canon)
			put_copy(b, "\"", s, v->len, "\"");
		else
			lq_str(b, s, v->len);
		return;
	case V_BRACES:
		lb_str(b, "\"{");
		lq_bytes(b, s, v->len);
		lb_str(b, "}\"");
		return;
	case V_DEC:
		if (v->canon)
			put_copy(b, "", s, v->len, "");
		else
			lb_num(b, v->d < 0 ? "-" : "", v->d < 0 ? -(uint64_t)v->d : (uint64_t)v->d,
			       10, "");
		return;
	case V_HEX:
	case V_OCT:
		if (v->canon) {
			put_copy(b, v->kind == V_HEX ? "\"0x" : "\"0o", s, v->len, "\"");
		} else {
			lb_num(b, v->kind == V_HEX ? "\"0x" : "\"0o", v->u,
			       v->kind == V_HEX ? 16 : 8, "\"");
		}
		return;
	case V_LIST:
		lb_put(b, "[", 1);
		for (size_t i = 0, first = 1; i < v->len;) {
			size_t n = 0;
			while (i + n < v->len && !blank((unsigned char)s[i + n]))
				n++;
			if (n) {
				lb_str(b, first ? "" : ",");
				lq_str(b, s + i, n);
				first = 0;
			}
			i += n ? n : 1;
		}
		lb_put(b, "]", 1);
		return;
	default:
		snprintf(t, sizeof(t), "null");
	}
	lb_str(b, t);
}

/* "key":value of one item, with the comma before it unless it is the first member.  An item's
 * key is [A-Za-z0-9_-] (key_len, arg_key, parse_special), bytes laurel's quoting and JSON
 * leave as they are: it is copied, not quoted. */
static void put_member(struct lbuf *b, int *first, const struct lrec *r, const struct litem *it)
{
	if (*first)	/* two calls: each prefix a constant of put_copy's */
		put_copy(b, "\"", r->s + it->koff, it->klen, "\":");
	else
		put_copy(b, ",\"", r->s + it->koff, it->klen, "\":");
	*first = 0;
	put_value(b, r, &it->v);
}

/* The items of records recs[0..n) as members (aX / aX_len left out, as laurel serializes). */
static void put_items(struct lbuf *b, int *first, struct lrec *const *recs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < recs[k]->nit; i++)
			if (recs[k]->it[i].kk == K_NAME)
				put_member(b, first, recs[k], &recs[k]->it[i]);
}

/* SYSCALL: the other members, then its a0..a3 as ARGV. */
static void put_syscall(struct lbuf *b, struct lrec *const *recs, size_t n)
{
	int first = 1, afirst = 1;
	lb_put(b, "{", 1);
	put_items(b, &first, recs, n);
	lb_str(b, first ? "\"ARGV\":[" : ",\"ARGV\":[");
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < recs[k]->nit; i++)
			if (recs[k]->it[i].kk == K_ARG) {
				lb_str(b, afirst ? "" : ",");
				put_value(b, recs[k], &recs[k]->it[i].v);
				afirst = 0;
			}
	lb_str(b, "]}");
}

/* PROCTITLE: its first proctitle string split at NUL bytes, as laurel splits it (a piece
 * starts after the NUL that ended the previous non-empty piece). */
static int put_proctitle(struct lbuf *b, struct lrec *const *recs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < recs[k]->nit; i++) {
			const struct litem *it = &recs[k]->it[i];
			if (!key_is(recs[k]->s + it->koff, it->klen, "proctitle"))
				continue;
			if (it->v.kind != V_STR && it->v.kind != V_BRACES)
				return 0;
			const char *s = recs[k]->s + it->v.off;
			size_t prev = 0, first = 1;
			lb_str(b, "{\"ARGV\":[");
			for (size_t j = 0; j <= it->v.len; j++)
				if ((j == it->v.len || !s[j]) && j > prev) {
					lb_str(b, first ? "" : ",");
					lq_str(b, s + prev, j - prev);
					prev = j + 1;
					first = 0;
				}
			lb_str(b, "]}");
			return 1;
		}
	return 0;
}

/* EXECVE argument slots (laurel's argv vector): a value, or aX[Y] segments kept in a chain. */
struct slot {
	uint8_t kind;		/* 0 empty (null), 1 value, 2 segments */
	const struct lrec *r;
	const struct lval *v;
	uint32_t nseg;		/* logical segment count (the missing ones are empty) */
	size_t head, tail;	/* chain of real segments in segs[], index + 1 (0 = none) */
};
struct seg {
	const struct lrec *r;
	uint32_t off, len;
	size_t next;
};

struct argv {
	struct slot *s;
	size_t n;
	struct seg *g;
	size_t ng, gcap;
};

static int argv_grow(struct argv *a, size_t idx)
{
	if (idx < a->n)
		return 0;
	struct slot *v = realloc(a->s, (idx + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(v + a->n, 0, (idx + 1 - a->n) * sizeof(*v));
	a->s = v;
	a->n = idx + 1;
	return 1;
}

/* aX[Y]: a segment, taken only past the slot's current segment count (as laurel). */
static int argv_seg(struct argv *a, const struct lrec *r, const struct litem *it)
{
	int grown = argv_grow(a, it->x);
	struct slot *s;
	if (grown < 0)
		return grown;
	s = &a->s[it->x];
	if (grown)
		s->kind = 2;
	if (s->kind != 2 || it->y < s->nseg)
		return 0;
	s->nseg = (uint32_t)it->y + 1;
	if (a->ng == a->gcap) {
		size_t cap = a->gcap ? 2 * a->gcap : 16;
		struct seg *g = realloc(a->g, cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		a->g = g;
		a->gcap = cap;
	}
	int str = it->v.kind == V_STR || it->v.kind == V_BRACES;
	a->g[a->ng] = (struct seg){ r, str ? it->v.off : 0, str ? it->v.len : 0, 0 };
	if (s->tail)
		a->g[s->tail - 1].next = a->ng + 1;
	else
		s->head = a->ng + 1;
	s->tail = ++a->ng;
	return 0;
}

static int argv_build(struct argv *a, struct lrec *const *recs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < recs[k]->nit; i++) {
			const struct litem *it = &recs[k]->it[i];
			int rc = 0;
			if (it->kk == K_ARG && it->has_y) {
				rc = argv_seg(a, recs[k], it);
			} else if (it->kk == K_ARG && (rc = argv_grow(a, it->x)) >= 0) {
				a->s[it->x] = (struct slot){ .kind = 1, .r = recs[k], .v = &it->v };
				rc = 0;
			}
			if (rc < 0)
				return rc;
		}
	return 0;
}

static void argv_put(struct lbuf *b, const struct argv *a)
{
	lb_put(b, "[", 1);
	for (size_t i = 0; i < a->n; i++) {
		const struct slot *s = &a->s[i];
		lb_str(b, i ? "," : "");
		if (s->kind == 1) {
			put_value(b, s->r, s->v);
		} else if (s->kind == 2) {
			lb_put(b, "\"", 1);
			for (size_t g = s->head; g; g = a->g[g - 1].next)
				lq_bytes(b, a->g[g - 1].r->s + a->g[g - 1].off, a->g[g - 1].len);
			lb_put(b, "\"", 1);
		} else {
			lb_str(b, "null");
		}
	}
	lb_put(b, "]", 1);
}

/* EXECVE: argc and the other members, then ARGV from aN and the aN[M] segments. */
static int put_execve(struct lbuf *b, struct lrec *const *recs, size_t n)
{
	struct argv a = { 0 };
	int first = 1, rc = argv_build(&a, recs, n);
	if (!rc) {
		lb_put(b, "{", 1);
		put_items(b, &first, recs, n);
		lb_str(b, first ? "\"ARGV\":" : ",\"ARGV\":");
		argv_put(b, &a);
		lb_put(b, "}", 1);
	}
	free(a.s);
	free(a.g);
	return rc;
}

/* ---- events ---- */

/* Records laurel collects into one event until its EOE (types::is_multipart). */
static int multipart(uint32_t t)
{
	return (t >= 1300 && t < 1406) || (t >= 1420 && t < 2000) || (t >= 2001 && t < 2100) ||
	       t == 1006;
}

/* The stack room of sp_audit_log_event_laurel (an event beyond it takes the heap). */
enum { LAUREL_STACK_RECS = 16, LAUREL_STACK_ITEMS = 128, LAUREL_STACK_BYTES = 4096 };

struct lctx {
	struct lbuf b;
	char id[64];
	const char *node;
	const char *key;	/* the deciding rule's key (0x01 joins several) or NULL */
};

static void put_head(struct lctx *c)
{
	lb_str(&c->b, "{\"ID\":\"");
	lb_str(&c->b, c->id);
	lb_put(&c->b, "\"", 1);
	if (c->node) {
		lb_str(&c->b, ",\"NODE\":");
		lq_str(&c->b, c->node, strlen(c->node));
	}
}

/* The member laurel does not write: "SECPATH":{"keys":[...]} when a rule key kept it. */
static void put_tail(struct lctx *c)
{
	if (c->key && *c->key) {
		const char *k = c->key, *e;
		lb_str(&c->b, ",\"SECPATH\":{\"keys\":[");
		for (;; k = e + 1) {
			e = strchr(k, 0x01);
			size_t n = e ? (size_t)(e - k) : strlen(k);
			lq_str(&c->b, k, n);
			if (!e)
				break;
			lb_put(&c->b, ",", 1);
		}
		lb_str(&c->b, "]}");
	}
	lb_str(&c->b, "}\n");
}

/* The type's name: as the log spells it, but UNKNOWN[n] of a type with a name is that name
 * (laurel keeps the number and names it). */
static void put_type(struct lctx *c, const struct lrec *r)
{
	const char *name = NULL;
	lb_put(&c->b, ",", 1);
	if (r->tlen > 7 && !memcmp(r->s + r->tstart, "UNKNOWN", 7))
		name = sp_audit_msgtype_name(r->type);
	if (name)
		lq_str(&c->b, name, strlen(name));
	else
		lq_str(&c->b, r->s + r->tstart, r->tlen);
	lb_put(&c->b, ":", 1);
}

/* One member TYPE of the multi-part object: recs are that type's records, in order. */
static int put_group(struct lctx *c, struct lrec *const *recs, size_t n)
{
	uint32_t t = recs[0]->type;
	int first = 1;
	put_type(c, recs[0]);
	if (t == LT_SYSCALL) {
		put_syscall(&c->b, recs, n);
	} else if (t == LT_EXECVE) {
		return put_execve(&c->b, recs, n);
	} else if (t == LT_PROCTITLE && put_proctitle(&c->b, recs, n)) {
		return 0;
	} else if (t == LT_PROCTITLE || t == LT_CWD) {
		lb_put(&c->b, "{", 1);
		put_items(&c->b, &first, recs, n);
		lb_put(&c->b, "}", 1);
	} else {
		lb_put(&c->b, "[", 1);
		for (size_t k = 0; k < n; k++) {
			first = 1;
			lb_str(&c->b, k ? ",{" : "{");
			put_items(&c->b, &first, recs + k, 1);
			lb_put(&c->b, "}", 1);
		}
		lb_put(&c->b, "]", 1);
	}
	return 0;
}

/* The multi-part object: each type (first-seen order) with all its records.  v is scratch of
 * n pointers. */
static int put_multi(struct lctx *c, struct lrec *recs, size_t n, struct lrec **v)
{
	size_t started = 0;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t m = 0;
		if (!recs[i].tlen || recs[i].done || !multipart(recs[i].type) ||
		    recs[i].type == LT_EOE)
			continue;	/* refused, taken, or not a part */
		for (size_t j = i; j < n; j++)
			if (recs[j].tlen && recs[j].type == recs[i].type) {
				recs[j].done = 1;
				v[m++] = &recs[j];
			}
		if (!started++)
			put_head(c);
		rc = put_group(c, v, m);
	}
	if (started && !rc)
		put_tail(c);
	return rc;
}

/* Copy and parse one record, its copy and items from the event's pool while they fit (taken
 * from it once parsed); a refusal is reported (warning) and leaves tlen 0. */
static int rec_load(struct lrec *r, const struct sp_audit_log_rec *lr, struct lpool *pl,
		    struct sp_diags *d)
{
	int rc;
	if (lr->len > UINT32_MAX) {	/* items hold 32-bit offsets */
		r->tlen = 0;
		return d && sp_diags_add(d, SP_SEV_WARNING, -E2BIG, lr->file, lr->line, 0, 0,
					 "laurel output: record left out (longer than 4 GiB)") ? -ENOMEM : 0;
	}
	if (lr->len + LREC_PAD <= pl->tcap - pl->tused) {
		r->s = pl->text + pl->tused;
		pl->tused += lr->len + LREC_PAD;
	} else if ((r->s = malloc(lr->len + LREC_PAD))) {
		r->own_s = 1;
	} else {
		return -ENOMEM;
	}
	memcpy(r->s, lr->text, lr->len);
	memset(r->s + lr->len, 0, LREC_PAD);	/* a NUL for span, words for key_eq */
	r->n = lr->len;
	r->type = lr->type;
	r->it = pl->v + pl->used;
	r->cap = pl->cap - pl->used;
	rc = parse_record(r);
	if (!r->own_it)
		pl->used += r->nit;
	if (rc < 0)
		return rc;
	if (!rc) {
		r->tlen = 0;
		if (d && sp_diags_add(d, SP_SEV_WARNING, -EINVAL, lr->file, lr->line,
				      (uint32_t)SP_MIN(r->pos + 1, UINT32_MAX), 0,
				      "laurel output: record left out (%s), as laurel refuses it",
				      r->why))
			return -ENOMEM;
	}
	return 0;
}

static int event_write(struct lctx *c, const struct sp_audit_log_event *ev, const uint8_t *mask,
		       struct lrec *recs, struct lrec **v, struct lpool *pl, struct sp_diags *d)
{
	size_t n = sp_audit_log_event_nrec(ev);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		if (!mask || mask[i])
			rc = rec_load(&recs[i], sp_audit_log_event_rec(ev, i), pl, d);
	for (size_t i = 0; i < n && !rc; i++) {
		if (!recs[i].tlen || multipart(recs[i].type) || recs[i].type == LT_EOE)
			continue;
		int first = 1;
		struct lrec *one = &recs[i];
		put_head(c);
		put_type(c, one);
		lb_put(&c->b, "{", 1);
		put_items(&c->b, &first, &one, 1);
		lb_put(&c->b, "}", 1);
		put_tail(c);
	}
	return rc ? rc : put_multi(c, recs, n, v);
}

SP_API int sp_audit_log_event_laurel(const struct sp_audit_log_event *ev, const uint8_t *mask,
				     const char *key, struct sp_diags *d, sp_audit_log_put_fn put,
				     void *ud)
{
	size_t n = sp_audit_log_event_nrec(ev);
	/* an event's usual size on the stack: its records, their copies and items, its JSON */
	struct lrec recs_s[LAUREL_STACK_RECS], *v_s[LAUREL_STACK_RECS];
	struct litem items_s[LAUREL_STACK_ITEMS];
	char text_s[LAUREL_STACK_BYTES], out_s[LAUREL_STACK_BYTES];
	struct lpool pl = { .v = items_s, .cap = LAUREL_STACK_ITEMS, .text = text_s,
			    .tcap = sizeof(text_s) };
	struct lctx c = { .key = key, .b = { .p = out_s, .cap = sizeof(out_s) } };
	uint64_t sec;
	uint32_t msec, serial;
	int big = n > LAUREL_STACK_RECS;
	struct lrec *recs = big ? calloc(n, sizeof(*recs)) : recs_s;
	struct lrec **v = big ? calloc(n, sizeof(*v)) : v_s;
	int rc = -ENOMEM;
	if (!recs || !v)
		goto out;
	if (!big)
		memset(recs, 0, n * sizeof(*recs));
	sp_audit_log_event_stamp(ev, &sec, &msec, &serial, &c.node);
	event_id(c.id, sec, msec, serial);
	rc = event_write(&c, ev, mask, recs, v, &pl, d);
	if (!rc)
		rc = c.b.err;
	if (!rc && c.b.n)
		rc = put(ud, c.b.p, c.b.n);
out:
	for (size_t i = 0; recs && i < n; i++) {
		if (recs[i].own_s)
			free(recs[i].s);
		if (recs[i].own_it)
			free(recs[i].it);
	}
	if (big) {
		free(recs);
		free(v);
	}
	if (c.b.heap)
		free(c.b.p);
	return rc;
}
