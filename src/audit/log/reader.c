/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * reader.c - the audit.log reader: line splitting across chunks, record headers, the bodies
 * the filters need, and grouping records into events with a bounded window.
 *
 * Invariants:
 *  - every line is counted once: as a record, as a malformed line with a diagnostic
 *    "file:line: reason", as skipped with a warning (a record without a time stamp, msg=?),
 *    or (a file's last line without '\n') as truncated with a warning giving its byte offset
 *    (lines == records + malformed + skipped + truncated);
 *  - memory is bounded by window * (LOG_EVENT_MAX_BYTES) plus one max_line carry buffer,
 *    independent of the input size;
 *  - an event closes when a last-of-event type arrives (EOE, user-space and auditd messages),
 *    at the first record not its own after its PROCTITLE (so the EOE after it joins it),
 *    when a record comes `timeout` seconds or more after it (auparse's rule, in
 *    any order), when the window is full (oldest first), when it grows past
 *    LOG_EVENT_MAX_RECS/BYTES, or at finish;
 *  - nothing points into a buffer fed once sp_audit_log_feed returns: an event closed within
 *    the feed that read its lines borrows them, the open ones' are copied (settle_borrowed).
 *
 * Speed (docs/RECORD.md, "Reader speed"): every shortcut gives exactly what the generic parsing
 * gives, and falls back to it at the first byte it does not expect:
 *  - the stamp text "SEC.MSEC:SERIAL)" of the previous line is kept; a line repeating it byte
 *    for byte (the other records of the same event) reuses its numbers;
 *  - the common record types are matched by length and bytes before the name cache;
 *  - SYSCALL bodies in the kernel's field order are read left to right without tokenizing up
 *    to exe=; the rest goes through the tokenizer;
 *  - with audit_log_set_need(), subj=/obj= and PATH name= are skipped unless the rules can
 *    look at them (validation is unchanged: a bad line is malformed either way).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/log/log_int.h"
#include "base/assert.h"
#include "base/compiler.h"

#define TYPE_CACHE 128u

struct type_slot {
	char name[24];
	uint8_t len;
	int32_t type;		/* -1 = unknown name */
};

struct sp_audit_log {
	struct sp_audit_log_opts o;
	struct sp_audit_log_stats st;
	struct sp_audit_log_event *ev;	/* window slots */
	uint32_t *openv;		/* slots of open events (nopen) */
	uint32_t *freev;		/* free slots, a stack (window - nopen) */
	size_t nopen;
	size_t last;			/* slot of the last record's event */
	/* the slot of an event whose PROCTITLE came last: it closes at the next record that is
	 * not its own (its EOE joins it and ends it) */
	size_t pending;
	int has_pending;
	uint64_t seq;
	uint64_t min_open_sec;		/* <= the oldest open event's sec (a scan makes it exact) */
	uint32_t max_open_serial;	/* >= every open event's serial (reset when one opens
					 * with none open) */
	/* current file and the partial line carried between chunks */
	const char *file;
	uint32_t line;
	uint64_t fbytes;		/* bytes of `file` fed so far */
	char *carry;
	size_t clen, ccap;
	int overlong;			/* the carried line passed max_line: drop until '\n' */
	int stop;			/* the callback's non-zero return */
	unsigned need;			/* LOG_NEED_*: the bodies' parts to decode */
	/* the last header's stamp text "SEC.MSEC:SERIAL)" and what it parsed to: the records of
	 * one event repeat it byte for byte, so a match skips the number parsing */
	uint8_t hlen;			/* 0 = none */
	uint8_t hsec_len;		/* its "SEC." (the next events' usually start so too) */
	char htext[40];
	uint64_t hsec;
	uint32_t hmsec, hserial;
	struct type_slot types[TYPE_CACHE];
};

/* ---- small parsers ---- */

static sp_always_inline int parse_u64(const char *p, const char *end, int base, uint64_t *out)
{
	uint64_t v = 0;
	if (p == end)
		return -1;
	if (base == 10 && end - p <= 19) {	/* cannot overflow: no checks per digit */
		for (; p < end; p++) {
			unsigned d = (unsigned)(*p - '0');
			if (d > 9)
				return -1;
			v = v * 10 + d;
		}
		*out = v;
		return 0;
	}
	for (; p < end; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9) {
			d = (unsigned)((*p | 0x20) - 'a');
			if (base != 16 || d > 5)
				return -1;
			d += 10;
		} else if (d >= (unsigned)base) {
			return -1;
		}
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) || __builtin_add_overflow(v, d, &v))
			return -1;
	}
	*out = v;
	return 0;
}

static sp_always_inline int parse_u32(const char *p, const char *end, int base, uint32_t *out)
{
	uint64_t v;
	if (parse_u64(p, end, base, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_s64(const char *p, const char *end, int64_t *out)
{
	uint64_t v;
	int neg = p < end && *p == '-';
	if (parse_u64(p + neg, end, 10, &v) || v > (uint64_t)INT64_MAX + neg)
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* A byte's hex digit value, or 16 (not a hex digit). */
#define HX(c) ((c) >= '0' && (c) <= '9' ? (c) - '0' : (c) >= 'a' && (c) <= 'f' ? (c) - 'a' + 10 : \
	       (c) >= 'A' && (c) <= 'F' ? (c) - 'A' + 10 : 16)
#define HX4(c) HX(c), HX((c) + 1), HX((c) + 2), HX((c) + 3)
#define HX16(c) HX4(c), HX4((c) + 4), HX4((c) + 8), HX4((c) + 12)
static const uint8_t hex_digit[256] = { HX16(0), HX16(16), HX16(32), HX16(48), HX16(64),
					 HX16(80), HX16(96), HX16(112), HX16(128), HX16(144),
					 HX16(160), HX16(176), HX16(192), HX16(208), HX16(224),
					 HX16(240) };
#undef HX16
#undef HX4
#undef HX

static inline int hexval(char c)
{
	int h = hex_digit[(uint8_t)c];
	return h < 16 ? h : -1;
}

static uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
	return h;
}

/* ---- tokens: key=value, value "quoted", 'quoted' or bare ---- */

struct kv {
	const char *k, *v;
	size_t klen, vlen;
	char quote;		/* '"', '\'' or 0 */
};

/* ---- word-at-a-time scans (8 bytes per step while 8 remain; exact bytes otherwise) ---- */

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* High bit set in each byte of x that is zero (the lowest such byte is exact). */
static inline uint64_t zero_bytes(uint64_t x)
{
	return (x - ONES) & ~x & HIGHS;
}

static inline uint64_t load64(const char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;	/* little-endian: byte i is bits 8i..8i+7 */
}

/* The first byte in [p, end) equal to a or b, or end. */
static inline const char *scan2(const char *p, const char *end, char a, char b)
{
	const uint64_t ma = ONES * (uint8_t)a, mb = ONES * (uint8_t)b;
	while (end - p >= 8) {
		uint64_t v = load64(p), z = zero_bytes(v ^ ma) | zero_bytes(v ^ mb);
		if (z)
			return p + (__builtin_ctzll(z) >> 3);
		p += 8;
	}
	while (p < end && *p != a && *p != b)
		p++;
	return p;
}

/* Next token of [*p, end).  1 = token (a bare word has v == NULL), 0 = end, -1 = unterminated
 * quote. */
static sp_always_inline int next_kv(const char **pp, const char *end, struct kv *t)
{
	const char *p = *pp;
	while (p < end && *p == ' ')
		p++;
	if (p == end)
		return 0;
	t->k = p;
	p = scan2(p, end, '=', ' ');
	t->klen = (size_t)(p - t->k);
	t->v = NULL;
	t->vlen = 0;
	t->quote = 0;
	if (p < end && *p == '=') {
		p++;
		if (p < end && (*p == '"' || *p == '\'')) {
			const char *q = memchr(p + 1, *p, (size_t)(end - p - 1));
			if (!q)
				return -1;
			t->quote = *p;
			t->v = p + 1;
			t->vlen = (size_t)(q - p - 1);
			p = q + 1;
		} else {
			t->v = p;	/* bare values are short: inline beats a memchr call */
			p = scan2(p, end, ' ', ' ');
			t->vlen = (size_t)(p - t->v);
		}
	}
	*pp = p;
	return 1;
}

static inline int key_is(const struct kv *t, const char *k)
{
	size_t n = strlen(k);
	return t->klen == n && !memcmp(t->k, k, n);
}

/* ---- events ---- */

/* *buf holds at least need bytes, grown by doubling from first: 0 or -ENOMEM (*buf kept). */
static int buf_reserve(char **buf, size_t *cap, size_t need, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : first;
	while (c < need)
		c *= 2;
	char *b = realloc(*buf, c);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = c;
	return 0;
}

static int arena_put(struct sp_audit_log_event *e, const char *s, size_t n, uint32_t *off)
{
	if (buf_reserve(&e->arena, &e->acap, e->alen + n + 1, 1024))
		return -ENOMEM;
	*off = (uint32_t)e->alen;
	memcpy(e->arena + e->alen, s, n);
	e->arena[e->alen + n] = 0;
	e->alen += n + 1;
	return 0;
}

/* A value kept as the log spells it. */
static int put_raw(struct sp_audit_log_event *e, const struct kv *t, struct log_str *out)
{
	uint32_t off;
	int err = arena_put(e, t->v, t->vlen, &off);
	if (err)
		return err;
	out->off = off;
	out->len = (uint32_t)t->vlen;
	return 0;
}

/* An untrusted string value: "text", (null), or upper-case hex (decoded).  Other bare words
 * ("?", legacy unquoted text) are kept as they are. */
static int put_untrusted(struct sp_audit_log_event *e, const struct kv *t, struct log_str *out)
{
	uint32_t off;
	if (!t->v) {
		*out = LOG_STR_NONE;
		return 0;
	}
	if (!t->quote && t->vlen == 6 && !memcmp(t->v, "(null)", 6)) {
		*out = LOG_STR_NONE;
		return 0;
	}
	int hex = !t->quote && t->vlen >= 2 && !(t->vlen & 1);
	for (size_t i = 0; hex && i < t->vlen; i++)
		hex = hexval(t->v[i]) >= 0;
	if (hex) {
		size_t n = t->vlen / 2;
		int err = arena_put(e, t->v, n, &off); /* reserve n bytes, then decode in place */
		if (err)
			return err;
		for (size_t i = 0; i < n; i++)
			e->arena[off + i] =
				(char)(hexval(t->v[2 * i]) << 4 | hexval(t->v[2 * i + 1]));
		/* a decoded NUL (proctitle-like values) ends the string for path purposes */
		out->off = off;
		out->len = (uint32_t)strnlen(e->arena + off, n);
		e->arena[off + out->len] = 0;
		return 0;
	}
	return put_raw(e, t, out);
}

/* Reason buffer for malformed lines. */
struct why {
	char msg[160];
};

static int fail(struct why *w, const char *msg, const struct kv *t)
{
	if (t)
		snprintf(w->msg, sizeof(w->msg), "%s %.*s='%.*s'", msg, (int)SP_MIN(t->klen, 40u),
			 t->k, (int)SP_MIN(t->vlen, 40u), t->v ? t->v : "");
	else
		snprintf(w->msg, sizeof(w->msg), "%s", msg);
	return -EINVAL;
}

#define BADV "bad value"

/* The uint32_t task field named by t's key, or NULL (dispatch on length and letters: this runs
 * for every token of every SYSCALL record). */
static uint32_t *task_id_slot(struct log_task *tk, const struct kv *t)
{
	const char *k = t->k;
	switch (t->klen) {
	case 3:
		if (k[1] == 'i' && k[2] == 'd') {
			if (k[0] == 'p')
				return &tk->pid;
			if (k[0] == 'u')
				return &tk->uid;
			return k[0] == 'g' ? &tk->gid : NULL;
		}
		return k[0] == 's' && k[1] == 'e' && k[2] == 's' ? &tk->ses : NULL;
	case 4:
		if (k[2] != 'i' || k[3] != 'd')
			return NULL;
		switch ((unsigned)(uint8_t)k[0] << 8 | (uint8_t)k[1]) {
		case 'p' << 8 | 'p': return &tk->ppid;
		case 'a' << 8 | 'u': return &tk->auid;
		case 'e' << 8 | 'u': return &tk->euid;
		case 's' << 8 | 'u': return &tk->suid;
		case 'e' << 8 | 'g': return &tk->egid;
		case 's' << 8 | 'g': return &tk->sgid;
		default: return NULL;
		}
	case 5:
		if (k[0] != 'f' || k[1] != 's' || k[3] != 'i' || k[4] != 'd')
			return NULL;
		return k[2] == 'u' ? &tk->fsuid : k[2] == 'g' ? &tk->fsgid : NULL;
	default:
		return NULL;
	}
}

/* Task fields common to SYSCALL, URINGOP and standalone records.  1 = consumed, 0 = not a task
 * field, -EINVAL (bad number). */
static int task_field(struct sp_audit_log_event *e, struct log_task *tk, const struct kv *t,
		      struct why *w)
{
	uint32_t *dst;
	if (!t->v)
		return 0;
	if ((dst = task_id_slot(tk, t))) {
		if (t->vlen == 1 && t->v[0] == '?')
			return 1;	/* unknown to the writer: stays at its default */
		if (parse_u32(t->v, t->v + t->vlen, 10, dst))
			return fail(w, BADV, t);
		return 1;
	}
	if (t->klen == 3 && !memcmp(t->k, "per", 3)) {
		if (parse_u32(t->v, t->v + t->vlen, 16, &tk->per))
			return fail(w, BADV, t);
		return 1;
	}
	if (t->klen == 3 && !memcmp(t->k, "exe", 3))
		return put_untrusted(e, t, &tk->exe) ?: 1;
	if (t->klen == 4 && !memcmp(t->k, "subj", 4))
		return e->need & LOG_NEED_LSM ? put_raw(e, t, &tk->subj) ?: 1 : 1;
	return 0;
}

static void task_init(struct log_task *tk)
{
	memset(tk, 0, sizeof(*tk));
	tk->auid = SP_AUDIT_UNSET;
	tk->ses = SP_AUDIT_UNSET;
	tk->exe = LOG_STR_NONE;
	tk->subj = LOG_STR_NONE;
}

/* ---- SYSCALL fast path: the kernel's field order (docs/audit.md §5.2) ---- */

/* "key=" of a literal key of at most 7 bytes as a little-endian word the compiler folds (byte i
 * of the key, then '=', then zeros), and the mask of its bytes. */
#define KW_B(k, i)                                                                                 \
	((uint64_t)(uint8_t)((i) < sizeof(k) - 1 ? (k)[(i) < sizeof(k) - 1 ? (i) : 0]               \
			     : (i) == sizeof(k) - 1 ? '=' : 0) << (8 * (i)))
#define KW(k)                                                                                      \
	(KW_B(k, 0) | KW_B(k, 1) | KW_B(k, 2) | KW_B(k, 3) | KW_B(k, 4) | KW_B(k, 5) | KW_B(k, 6) |   \
	 KW_B(k, 7))
#define KW_MASK(k) (sizeof(k) >= 8 ? ~0ull : (1ull << (8 * sizeof(k))) - 1)
#define FP_KEY(p, end, k) fp_key(p, end, KW(k), KW_MASK(k), sizeof(k) - 1)

/* p at "key=" (want/mask: KW, KW_MASK of the key, klen its length): the value's start, or NULL.
 * With 8 bytes left one masked compare; else byte by byte. */
static sp_always_inline const char *fp_key(const char *p, const char *end, uint64_t want,
					   uint64_t mask, size_t klen)
{
	if (end - p >= 8)
		return (load64(p) & mask) == want ? p + klen + 1 : NULL;
	if ((size_t)(end - p) <= klen)
		return NULL;
	for (size_t i = 0; i <= klen; i++)
		if ((uint8_t)p[i] != (uint8_t)(want >> (8 * i)))
			return NULL;
	return p + klen + 1;
}

/* An unsigned number in base 8, 10 or 16 (a constant) ending at ' ' or end: the position after
 * the ' '.  The byte at end is read: a line's '\n', its 0x1d or the carry buffer's '\n'
 * (end_line), never a digit, so the loop stops there with one test a byte. */
static sp_always_inline const char *fp_num(const char *p, const char *end, int base, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = p;
	if (base == 10) {	/* two digits a step: the second is read only after a digit */
		for (;; p += 2) {
			unsigned d0 = (unsigned)(p[0] - '0'), d1;
			if (d0 > 9)
				break;
			if ((d1 = (unsigned)(p[1] - '0')) > 9) {
				v = v * 10 + d0;
				p++;
				break;
			}
			v = v * 100 + d0 * 10 + d1;
		}
	} else {
		for (;; p++) {
			unsigned d = base == 16 ? hex_digit[(uint8_t)*p] : (unsigned)(*p - '0');
			if (d >= (unsigned)base)
				break;
			v = base == 16 ? v << 4 | d : v << 3 | d;
		}
	}
	SP_ASSERT_INTERNAL(p <= end);
	/* 1 to 16 hex, 19 decimal or 21 octal digits fit in 64 bits (n - 1 wraps for none);
	 * longer ones (which may have wrapped) are the generic path's to decide.  *p is readable
	 * (above). */
	size_t n = (size_t)(p - s);
	if (n - 1 >= (base == 16 ? 16u : base == 8 ? 21u : 19u) || (*p != ' ' && p < end))
		return NULL;
	*out = v;
	return p < end ? p + 1 : p;
}

#define FP_NUM(key, base, dst)                                                                     \
	do {                                                                                       \
		uint64_t v_;                                                                       \
		if (!(p = FP_KEY(p, end, key)) ||                                                  \
		    !(p = fp_num(p, end, base, &v_)))                                              \
			return NULL;                                                               \
		dst = v_;                                                                          \
	} while (0)
#define FP_ID(key, dst)                                                                            \
	do {                                                                                       \
		uint64_t v_;                                                                       \
		if (!(p = FP_KEY(p, end, key)) ||                                                  \
		    !(p = fp_num(p, end, 10, &v_)) || v_ > UINT32_MAX)                             \
			return NULL;                                                               \
		dst = (uint32_t)v_;                                                                \
	} while (0)

/* A value at p ("text" or a bare word): the position after it and its ' ', or NULL. */
static inline const char *fp_skip_value(const char *p, const char *end, struct kv *t)
{
	const char *q;
	t->quote = 0;
	if (p < end && *p == '\'')
		return NULL;	/* 'text': the generic tokenizer's */
	if (p < end && *p == '"') {
		q = memchr(p + 1, '"', (size_t)(end - p - 1));
		if (!q || (q + 1 < end && q[1] != ' '))
			return NULL;
		t->quote = '"';
		t->v = p + 1;
		t->vlen = (size_t)(q - p - 1);
		return q + 1 < end ? q + 2 : q + 1;
	}
	q = memchr(p, ' ', (size_t)(end - p));
	t->v = p;
	t->vlen = (size_t)((q ? q : end) - p);
	return q ? q + 1 : end;
}

/* After fsgid=: "tty= ses= comm= exe= [subj=] key=" as the kernel writes them.  Parses what
 * matches and returns where the generic loop continues (at the first deviation, or the end). */
static const char *syscall_fast_tail(struct sp_audit_log_event *e, const char *p, const char *end,
				     struct log_task *tk)
{
	const char *q;
	struct kv t;
	uint64_t v;
	if ((q = FP_KEY(p, end, "tty"))) {
		if (*q == '"' || !(q = fp_skip_value(q, end, &t)))
			return p;
		p = q;
	}
	if ((q = FP_KEY(p, end, "ses"))) {
		if (!(q = fp_num(q, end, 10, &v)) || v > UINT32_MAX)
			return p;
		tk->ses = (uint32_t)v;
		p = q;
	}
	if ((q = FP_KEY(p, end, "comm"))) {
		if (!(q = fp_skip_value(q, end, &t)))
			return p;
		p = q;
	}
	if ((q = FP_KEY(p, end, "exe"))) {
		if (!(q = fp_skip_value(q, end, &t)))
			return p;
		t.k = p;
		t.klen = 3;
		if (put_untrusted(e, &t, &tk->exe))
			return NULL;	/* out of memory: the generic path reports it */
		p = q;
	}
	if ((q = FP_KEY(p, end, "subj"))) {
		if (!(q = fp_skip_value(q, end, &t)))
			return p;
		if ((e->need & LOG_NEED_LSM) && put_raw(e, &t, &tk->subj))
			return NULL;
		p = q;
	}
	if ((q = FP_KEY(p, end, "key"))) {	/* no field of the filters */
		if (!(q = fp_skip_value(q, end, &t)))
			return p;
		p = q;
	}
	return p;
}

/*
 * The numeric prefix of a kernel SYSCALL body, "arch= syscall= [per=] [success= exit=] a0= a1=
 * a2= a3= items= ppid= pid= auid= uid= gid= euid= suid= fsuid= egid= sgid= fsgid=", parsed
 * without tokenizing.  Returns where the generic loop continues (tty= ...), or NULL when the
 * body deviates in any way: the caller then parses it all generically.
 */
static const char *syscall_fast(struct sp_audit_log_event *e, const char *p, const char *end,
				struct log_task *tk, int64_t *ex)
{
	uint64_t v;
	FP_NUM("arch", 16, v);
	if (v > UINT32_MAX)
		return NULL;
	e->arch = (uint32_t)v;
	FP_NUM("syscall", 10, v);
	if (v > INT32_MAX)
		return NULL;
	e->nr = (int32_t)v;
	if (FP_KEY(p, end, "per")) {
		FP_NUM("per", 16, v);
		if (v > UINT32_MAX)
			return NULL;
		tk->per = (uint32_t)v;
	}
	if (FP_KEY(p, end, "success")) {
		const char *q = p + 8;
		if (end - q >= 4 && !memcmp(q, "yes ", 4))
			p = q + 4;
		else if (end - q >= 3 && !memcmp(q, "no ", 3))
			p = q + 3;
		else
			return NULL;
		if (!(p = FP_KEY(p, end, "exit")))
			return NULL;
		int neg = p < end && *p == '-';
		if (!(p = fp_num(p + neg, end, 10, &v)))
			return NULL;
		*ex = neg ? -(int64_t)v : (int64_t)v;
		e->has_ret = 1;
	}
	FP_NUM("a0", 16, e->a[0]);
	FP_NUM("a1", 16, e->a[1]);
	FP_NUM("a2", 16, e->a[2]);
	FP_NUM("a3", 16, e->a[3]);
	FP_NUM("items", 10, v);
	FP_ID("ppid", tk->ppid);
	FP_ID("pid", tk->pid);
	FP_ID("auid", tk->auid);
	FP_ID("uid", tk->uid);
	FP_ID("gid", tk->gid);
	FP_ID("euid", tk->euid);
	FP_ID("suid", tk->suid);
	FP_ID("fsuid", tk->fsuid);
	FP_ID("egid", tk->egid);
	FP_ID("sgid", tk->sgid);
	FP_ID("fsgid", tk->fsgid);
	return syscall_fast_tail(e, p, end, tk);
}

static int body_syscall(struct sp_audit_log_event *e, const char *p, const char *end, int uring,
			struct why *w)
{
	struct log_task tk;
	struct kv t;
	int r, have_arch = uring, have_nr = 0, have_success = 0;
	int64_t ex = 0;
	task_init(&tk);
	if (!uring) {
		const char *q = syscall_fast(e, p, end, &tk, &ex);
		if (q) {
			p = q;
			have_arch = have_nr = 1;
			have_success = e->has_ret;
		} else {
			task_init(&tk);
			e->has_ret = 0;
			ex = 0;
			memset(e->a, 0, sizeof(e->a));
		}
	}
	while ((r = next_kv(&p, end, &t)) > 0) {
		if (!t.v)
			continue;
		int c = task_field(e, &tk, &t, w);
		if (c < 0)
			return c;
		if (c)
			continue;
		if (!uring && key_is(&t, "arch")) {
			if (parse_u32(t.v, t.v + t.vlen, 16, &e->arch))
				return fail(w, BADV, &t);
			have_arch = 1;
		} else if (key_is(&t, uring ? "uring_op" : "syscall")) {
			uint64_t v;
			if (parse_u64(t.v, t.v + t.vlen, 10, &v) || v > INT32_MAX)
				return fail(w, BADV, &t);
			e->nr = (int32_t)v;
			have_nr = 1;
		} else if (key_is(&t, "success")) {
			if (!(t.vlen == 3 && !memcmp(t.v, "yes", 3)) &&
			    !(t.vlen == 2 && !memcmp(t.v, "no", 2)))
				return fail(w, BADV, &t);
			have_success = 1;
		} else if (key_is(&t, "exit")) {
			if (parse_s64(t.v, t.v + t.vlen, &ex))
				return fail(w, BADV, &t);
			e->has_ret = 1;
		} else if (!uring && t.klen == 2 && t.k[0] == 'a' && t.k[1] >= '0' &&
			   t.k[1] <= '3') {
			if (parse_u64(t.v, t.v + t.vlen, 16, &e->a[t.k[1] - '0']))
				return fail(w, BADV, &t);
		} else if (key_is(&t, "items")) {
			uint32_t v;
			if (parse_u32(t.v, t.v + t.vlen, 10, &v))
				return fail(w, BADV, &t);
		}
	}
	if (r < 0)
		return fail(w, "unterminated quoted value", NULL);
	if (!have_arch)
		return fail(w, "SYSCALL without arch", NULL);
	if (!have_nr)
		return fail(w, uring ? "URINGOP without uring_op" : "SYSCALL without syscall",
			    NULL);
	if (have_success != e->has_ret)
		return fail(w, "success and exit must come together", NULL);
	e->exit = ex;
	tk.present = 1;
	e->task = tk;
	if (uring)
		e->has_uring = 1;
	else
		e->has_syscall = 1;
	return 0;
}

/* "MM:mm" at p, hex (major <= 0xfff, minor <= 0xfffff; the byte at end is read and is not a
 * hex digit): the first byte after the minor, with *dev, or NULL. */
static sp_always_inline const char *dev_scan(const char *p, const char *end, uint32_t *dev)
{
	uint32_t ma = 0, mi = 0;
	const char *s = p;
	int h;
	for (; (h = hexval(*p)) >= 0; p++)
		if ((ma = ma << 4 | (uint32_t)h) > 0xfff)
			return NULL;
	if (p == s || p >= end || *p != ':')
		return NULL;
	for (s = ++p; (h = hexval(*p)) >= 0; p++)
		if ((mi = mi << 4 | (uint32_t)h) > 0xfffff)
			return NULL;
	if (p == s)
		return NULL;
	*dev = SP_AUDIT_MKDEV(ma, mi);
	return p;
}

/* A device value (t's whole value, bare or quoted: the byte after it is a separator or a
 * quote) -> kernel dev_t.  0 or -1. */
static int parse_dev(const struct kv *t, uint32_t *dev)
{
	uint32_t d = 0;
	if (dev_scan(t->v, t->v + t->vlen, &d) != t->v + t->vlen)
		return -1;
	*dev = d;
	return 0;
}

/* p at "key=value ": t holds the value and the position after it, or NULL. */
static sp_always_inline const char *fp_tok(const char *p, const char *end, uint64_t want,
					   uint64_t mask, size_t klen, struct kv *t)
{
	const char *q = fp_key(p, end, want, mask, klen);
	if (!q)
		return NULL;
	t->k = p;
	t->klen = klen;
	return fp_skip_value(q, end, t);
}

#define FP_TOK(key) (q = fp_tok(p, end, KW(key), KW_MASK(key), sizeof(key) - 1, &t))

/* A bare device value ending at ' ' or end, as parse_dev reads it: the position after the ' ',
 * or NULL.  The byte at end is read (fp_num). */
static sp_always_inline const char *fp_dev(const char *p, const char *end, uint32_t *dev)
{
	uint32_t d = 0;
	if (!(p = dev_scan(p, end, &d)) || (*p != ' ' && p < end))
		return NULL;
	*dev = d;
	return p < end ? p + 1 : p;
}

/*
 * The prefix of a kernel PATH body, "item= name= [inode= dev= mode= ouid= ogid= rdev=]", token
 * by token, numbers parsed as they are scanned (fp_num, fp_dev): each token it takes is parsed
 * as the generic loop parses it; at the first one it does not take (other order, other
 * spacing, a quoted or out-of-range value, one the generic loop would reject) it returns where
 * the generic loop continues, which then decides that token.
 */
static const char *path_fast(struct sp_audit_log_event *e, const char *p, const char *end,
			     struct log_name *n, int *have_item)
{
	const char *q;
	struct kv t;
	uint64_t v;
#define PF_NUM(key, base, max, dst)                                                                \
	do {                                                                                       \
		if (!(q = FP_KEY(p, end, key)) || !(q = fp_num(q, end, base, &v)) || v > (max))   \
			return p;                                                                  \
		dst = v;                                                                           \
		p = q;                                                                             \
	} while (0)
#define PF_DEV(key, dst)                                                                           \
	do {                                                                                       \
		if (!(q = FP_KEY(p, end, key)) || !(q = fp_dev(q, end, &dst)))                   \
			return p;                                                                  \
		p = q;                                                                             \
	} while (0)
	PF_NUM("item", 10, INT32_MAX, n->item);
	*have_item = 1;
	if (!FP_TOK("name"))
		return p;
	if ((e->need & LOG_NEED_PATH) && put_untrusted(e, &t, &n->name))
		return p;	/* out of memory: the generic loop reports it */
	p = q;
	PF_NUM("inode", 10, UINT64_MAX, n->ino);
	n->has_ino = 1;
	PF_DEV("dev", n->dev);
	PF_NUM("mode", 8, UINT32_MAX, n->mode);
	PF_NUM("ouid", 10, UINT32_MAX, n->uid);
	PF_NUM("ogid", 10, UINT32_MAX, n->gid);
	PF_DEV("rdev", n->rdev);
	return p;
#undef PF_NUM
#undef PF_DEV
}

static int body_path(struct sp_audit_log_event *e, const char *p, const char *end, struct why *w)
{
	struct log_name n;
	struct kv t;
	int r, have_item = 0;
	memset(&n, 0, sizeof(n));
	n.name = LOG_STR_NONE;
	n.obj = LOG_STR_NONE;
	p = path_fast(e, p, end, &n, &have_item);
	while ((r = next_kv(&p, end, &t)) > 0) {
		if (!t.v || t.klen > 5)
			continue;	/* nametype=, cap_*=: not filter inputs */
		int bad = 0;
		if (key_is(&t, "item")) {
			uint32_t v;
			bad = parse_u32(t.v, t.v + t.vlen, 10, &v) || v > INT32_MAX;
			n.item = (int32_t)v;
			have_item = 1;
		} else if (key_is(&t, "name")) {
			int err = e->need & LOG_NEED_PATH ? put_untrusted(e, &t, &n.name) : 0;
			if (err)
				return err;
		} else if (key_is(&t, "inode")) {
			bad = parse_u64(t.v, t.v + t.vlen, 10, &n.ino);
			n.has_ino = 1;
		} else if (key_is(&t, "dev")) {
			bad = parse_dev(&t, &n.dev);
		} else if (key_is(&t, "rdev")) {
			bad = parse_dev(&t, &n.rdev);
		} else if (key_is(&t, "mode")) {
			bad = parse_u32(t.v, t.v + t.vlen, 8, &n.mode);
		} else if (key_is(&t, "ouid")) {
			bad = parse_u32(t.v, t.v + t.vlen, 10, &n.uid);
		} else if (key_is(&t, "ogid")) {
			bad = parse_u32(t.v, t.v + t.vlen, 10, &n.gid);
		} else if (key_is(&t, "obj")) {
			int err = e->need & LOG_NEED_LSM ? put_raw(e, &t, &n.obj) : 0;
			if (err)
				return err;
		}
		if (bad)
			return fail(w, BADV, &t);
	}
	if (r < 0)
		return fail(w, "unterminated quoted value", NULL);
	if (!have_item)
		return fail(w, "PATH without item", NULL);
	if (e->nnames < LOG_MAX_NAMES)
		e->names[e->nnames++] = n;
	return 0;
}

/* EXECVE: argc=N then aK=V, aK_len=N, aK[i]=V (split arguments).  Validated, not kept. */
static int body_execve(const char *p, const char *end, struct why *w)
{
	struct kv t;
	int r;
	while ((r = next_kv(&p, end, &t)) > 0) {
		uint32_t v;
		if (!t.v)
			return fail(w, "EXECVE: bare word", &t);
		if (key_is(&t, "argc")) {
			if (parse_u32(t.v, t.v + t.vlen, 10, &v))
				return fail(w, BADV, &t);
			continue;
		}
		const char *k = t.k, *ke = t.k + t.klen, *q = k + 1;
		if (k == ke || *k != 'a')
			return fail(w, "EXECVE: unexpected field", &t);
		while (q < ke && *q >= '0' && *q <= '9')
			q++;
		if (q == k + 1)
			return fail(w, "EXECVE: unexpected field", &t);
		if (q == ke)
			continue;
		if ((size_t)(ke - q) == 4 && !memcmp(q, "_len", 4)) {
			if (parse_u32(t.v, t.v + t.vlen, 10, &v))
				return fail(w, BADV, &t);
			continue;
		}
		if (*q == '[' && ke[-1] == ']' && !parse_u32(q + 1, ke - 1, 10, &v))
			continue;
		return fail(w, "EXECVE: unexpected field", &t);
	}
	if (r < 0)
		return fail(w, "unterminated quoted value", NULL);
	return 0;
}

/* Task fields of a user-space or standalone kernel record, including those inside msg='...'. */
static int body_task(struct sp_audit_log_event *e, const char *p, const char *end,
		     struct log_task *tk, int depth, struct why *w)
{
	struct kv t;
	int r;
	while ((r = next_kv(&p, end, &t)) > 0) {
		if (!t.v)
			continue;
		if (t.quote == '\'' && key_is(&t, "msg") && depth == 0) {
			int err = body_task(e, t.v, t.v + t.vlen, tk, 1, w);
			if (err)
				return err;
			continue;
		}
		/* inside msg='' only exe is a task field (uid= there is an account id) */
		if (depth && !key_is(&t, "exe"))
			continue;
		int c = task_field(e, tk, &t, w);
		if (c < 0)
			return c;
	}
	if (r < 0)
		return fail(w, "unterminated quoted value", NULL);
	return 0;
}

static int body_simple(struct sp_audit_log_event *e, uint32_t type, const char *p, const char *end,
		       struct why *w)
{
	struct kv t;
	int r;
	switch (type) {
	case LT_CWD:
		while ((r = next_kv(&p, end, &t)) > 0)
			if (t.v && key_is(&t, "cwd")) {
				int err = put_untrusted(e, &t, &e->cwd);
				if (err)
					return err;
				e->has_cwd = 1;
			}
		if (r < 0)
			return fail(w, "unterminated quoted value", NULL);
		return e->has_cwd ? 0 : fail(w, "CWD without cwd", NULL);
	case LT_SOCKADDR:
		while ((r = next_kv(&p, end, &t)) > 0)
			if (t.v && key_is(&t, "saddr")) {
				int a, b;
				if (t.vlen < 4 || (a = hexval(t.v[0])) < 0 || hexval(t.v[1]) < 0 ||
				    (b = hexval(t.v[2])) < 0 || hexval(t.v[3]) < 0)
					return fail(w, BADV, &t);
				/* family: the first two bytes in host (little-endian) order */
				int lo = a << 4 | hexval(t.v[1]), hi = b << 4 | hexval(t.v[3]);
				e->saddr_fam = lo | hi << 8;
			}
		return r < 0 ? fail(w, "unterminated quoted value", NULL) : 0;
	case LT_OPENAT2:
		while ((r = next_kv(&p, end, &t)) > 0)
			if (t.v && key_is(&t, "oflag")) {
				if (parse_u64(t.v, t.v + t.vlen, 8, &e->oflag))
					return fail(w, BADV, &t);
				e->has_oflag = 1;
			}
		return r < 0 ? fail(w, "unterminated quoted value", NULL) : 0;
	case LT_EXECVE:
		return body_execve(p, end, w);
	case LT_PROCTITLE:
		/* "proctitle=" then "text" or hex: only the closing quote is checked */
		if (end - p > 11 && !memcmp(p, "proctitle=\"", 11) &&
		    !memchr(p + 11, '"', (size_t)(end - p - 11)))
			return fail(w, "unterminated quoted value", NULL);
		return 0;
	default:
		break;
	}
	if (!e->task.present && !e->has_syscall && !e->has_uring) {
		struct log_task tk;
		task_init(&tk);
		int err = body_task(e, p, end, &tk, 0, w);
		if (err)
			return err;
		tk.present = 1;
		e->task = tk;
	} else {
		/* still check the quoting so that a broken line is reported */
		while ((r = next_kv(&p, end, &t)) > 0)
			;
		if (r < 0)
			return fail(w, "unterminated quoted value", NULL);
	}
	if (log_type_is_user(type) && !e->has_user) {
		e->has_user = 1;
		e->user_type = type;
	}
	if (log_type_is_daemon(type))
		e->has_daemon = 1;
	return 0;
}

/* ---- the reader ---- */

SP_API int sp_audit_log_new(const struct sp_audit_log_opts *o, struct sp_audit_log **out)
{
	struct sp_audit_log *l;
	/* every field up to diags is required (a later one would have its default) */
	if (!SP_OPTS_HAS(o, diags) || !out)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->o = *o;
	if (!l->o.window)
		l->o.window = 64;
	if (!l->o.timeout)
		l->o.timeout = 2;
	if (!l->o.max_line)
		l->o.max_line = 1u << 20;
	l->ev = calloc(l->o.window, sizeof(*l->ev));
	l->openv = calloc(l->o.window, sizeof(*l->openv));
	l->freev = calloc(l->o.window, sizeof(*l->freev));
	if (!l->ev || !l->openv || !l->freev) {
		free(l->ev);
		free(l->openv);
		free(l->freev);
		free(l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->o.window; i++)
		l->freev[i] = (uint32_t)(l->o.window - 1 - i);
	for (size_t i = 0; i < TYPE_CACHE; i++)
		l->types[i].len = 0xff;
	l->need = LOG_NEED_ALL;
	*out = l;
	return 0;
}

SP_API void sp_audit_log_free(struct sp_audit_log *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->o.window; i++) {
		free(l->ev[i].arena);
		free(l->ev[i].rec);
		free(l->ev[i].rec_off);
	}
	free(l->ev);
	free(l->openv);
	free(l->freev);
	free(l->carry);
	free(l);
}

void audit_log_set_need(struct sp_audit_log *l, unsigned need)
{
	l->need = need;
}

SP_API void sp_audit_log_get_stats(const struct sp_audit_log *l, struct sp_audit_log_stats *st)
{
	*st = l->st;
}

SP_API size_t sp_audit_log_event_nrec(const struct sp_audit_log_event *ev)
{
	return ev->nrec;
}

SP_API const struct sp_audit_log_rec *sp_audit_log_event_rec(const struct sp_audit_log_event *ev,
							     size_t i)
{
	return i < ev->nrec ? &ev->rec[i] : NULL;
}

SP_API void sp_audit_log_event_stamp(const struct sp_audit_log_event *ev, uint64_t *sec,
				     uint32_t *msec, uint32_t *serial, const char **node)
{
	if (sec)
		*sec = ev->sec;
	if (msec)
		*msec = ev->msec;
	if (serial)
		*serial = ev->serial;
	if (node)
		*node = ev->node_cstr;
}

/* Remove slot from the open list and return it to the free stack. */
static void unlink_slot(struct sp_audit_log *l, size_t slot)
{
	struct sp_audit_log_event *e = &l->ev[slot];
	for (size_t i = 0; i < l->nopen; i++)
		if (l->openv[i] == slot) {
			l->openv[i] = l->openv[--l->nopen];
			break;
		}
	l->freev[l->o.window - l->nopen - 1] = (uint32_t)slot;
	e->open = 0;
	e->nrec = 0;
	e->alen = 0;
	e->blen = 0;
}

static size_t oldest_open(const struct sp_audit_log *l)
{
	size_t old = l->openv[0];
	for (size_t i = 1; i < l->nopen; i++)
		if (l->ev[l->openv[i]].seq < l->ev[old].seq)
			old = l->openv[i];
	return old;
}

uint64_t audit_log_open_floor(const struct sp_audit_log *l,
			      const struct sp_audit_log_event *except)
{
	uint64_t floor = UINT64_MAX;
	for (size_t i = 0; i < l->nopen; i++) {
		const struct sp_audit_log_event *e = &l->ev[l->openv[i]];
		if (e != except && e->nrec && e->rec[0].seq < floor)
			floor = e->rec[0].seq;
	}
	return floor;
}

static int close_event(struct sp_audit_log *l, size_t slot)
{
	struct sp_audit_log_event *e = &l->ev[slot];
	int rc = 0;
	if (l->has_pending && l->pending == slot)
		l->has_pending = 0;
	for (size_t i = 0; i < e->nrec; i++)
		if (e->rec_off[i] != LOG_BORROWED)
			e->rec[i].text = e->arena + e->rec_off[i];
	e->node_cstr = log_str_at(e, e->node);
	l->st.events++;
	if (l->o.on_event && !l->stop)
		rc = l->o.on_event(l->o.ud, e);
	if (rc)
		l->stop = rc;
	unlink_slot(l, slot);
	return rc;
}

/* The record types of almost every line, by length and bytes (fixed-size compares). */
static inline int type_common(const char *p, size_t n, uint32_t *type)
{
	switch (n) {
	case 3:
		if (!memcmp(p, "CWD", 3))
			return *type = LT_CWD, 1;
		if (!memcmp(p, "EOE", 3))
			return *type = LT_EOE, 1;
		return 0;
	case 4:
		return !memcmp(p, "PATH", 4) ? (*type = LT_PATH, 1) : 0;
	case 6:
		return !memcmp(p, "EXECVE", 6) ? (*type = LT_EXECVE, 1) : 0;
	case 7:
		return !memcmp(p, "SYSCALL", 7) ? (*type = LT_SYSCALL, 1) : 0;
	case 8:
		return !memcmp(p, "SOCKADDR", 8) ? (*type = LT_SOCKADDR, 1) : 0;
	case 9:
		return !memcmp(p, "PROCTITLE", 9) ? (*type = LT_PROCTITLE, 1) : 0;
	default:
		return 0;
	}
}

/* A record type by name: the common ones, "UNKNOWN[n]", else the name table (through the
 * reader's cache when l is given).  0, or -1 for a name the reader does not know. */
static sp_always_inline int type_lookup(struct sp_audit_log *l, const char *p, size_t n,
					 uint32_t *type)
{
	char name[64];
	if (type_common(p, n, type))
		return 0;
	if (n >= 9 && !memcmp(p, "UNKNOWN[", 8) && p[n - 1] == ']')
		return parse_u32(p + 8, p + n - 1, 10, type) ? -1 : 0;
	if (n >= sizeof(name))
		return -1;
	if (!l) {
		memcpy(name, p, n);
		name[n] = 0;
		int v = sp_audit_msgtype_lookup(name);
		return v < 0 ? -1 : (*type = (uint32_t)v, 0);
	}
	uint64_t h = hash_bytes(p, n);
	struct type_slot *s = NULL;
	for (unsigned k = 0; k < 8; k++) {	/* linear probing over 8 slots */
		struct type_slot *c = &l->types[(h + k) % TYPE_CACHE];
		if (c->len == n && !memcmp(c->name, p, n)) {
			if (c->type < 0)
				return -1;
			*type = (uint32_t)c->type;
			return 0;
		}
		if (!s && c->len == 0xff)
			s = c;
	}
	if (!s)
		s = &l->types[h % TYPE_CACHE];
	memcpy(name, p, n);
	name[n] = 0;
	int v = sp_audit_msgtype_lookup(name);
	if (n < sizeof(s->name)) {
		memcpy(s->name, p, n);
		s->len = (uint8_t)n;
		s->type = v < 0 ? -1 : v;
	}
	if (v < 0)
		return -1;
	*type = (uint32_t)v;
	return 0;
}

static int malformed(struct sp_audit_log *l, const char *msg)
{
	l->st.malformed++;
	if (l->o.diags)
		sp_diags_add(l->o.diags, SP_SEV_ERROR, -EINVAL, l->file, l->line, 0, 0, "%s", msg);
	return 0;
}

/* A type that ends its event: EOE, and the single-record types (user-space and auditd
 * messages).  PROCTITLE ends it at the next record not its own: the kernel's EOE comes right
 * after it (a plugin's stream, a netlink capture), and ausearch's event holds it. */
static int type_ends_event(uint32_t t)
{
	return t == LT_EOE || log_type_is_user(t) || log_type_is_daemon(t);
}

static size_t find_or_open(struct sp_audit_log *l, uint64_t sec, uint32_t msec, uint32_t serial,
			   const char *node, size_t node_len, uint64_t nh, int *rc)
{
	size_t w = l->o.window, slot = w;
	struct sp_audit_log_event *e = &l->ev[l->last];
	*rc = 0;
	if (e->open && e->serial == serial && e->sec == sec && e->msec == msec &&
	    e->node_hash == nh)
		return l->last;
	/* serials grow: a record above every open event's serial opens a new one */
	for (size_t i = 0; serial <= l->max_open_serial && i < l->nopen; i++) {
		e = &l->ev[l->openv[i]];
		if (e->serial == serial && e->sec == sec && e->msec == msec && e->node_hash == nh)
			return l->openv[i];
	}
	/* end-of-event timeout, as auparse's: a record `timeout` s or more after an open event
	 * closes it (whatever came before, so an out-of-order record closes what it passed) */
	if (l->nopen && sec >= l->min_open_sec + l->o.timeout) {
		/* the expired ones oldest first (by seq), so callbacks come in file order */
		for (;;) {
			size_t pick = w;
			uint64_t min = UINT64_MAX;
			for (size_t i = 0; i < l->nopen; i++) {
				const struct sp_audit_log_event *o = &l->ev[l->openv[i]];
				if (o->sec + l->o.timeout <= sec) {
					if (pick == w || o->seq < l->ev[pick].seq)
						pick = l->openv[i];
				} else if (o->sec < min) {
					min = o->sec;
				}
			}
			if (pick == w) {
				l->min_open_sec = min;
				break;
			}
			if ((*rc = close_event(l, pick)))
				return w;
		}
	}
	if (l->nopen == w) {
		*rc = close_event(l, oldest_open(l));
		if (*rc)
			return w;
	}
	slot = l->freev[w - l->nopen - 1];
	e = &l->ev[slot];
	e->open = 1;
	e->need = l->need;
	if (!l->nopen || sec < l->min_open_sec)
		l->min_open_sec = sec;
	if (!l->nopen || serial > l->max_open_serial)
		l->max_open_serial = serial;
	e->sec = sec;
	e->msec = msec;
	e->serial = serial;
	e->node_hash = nh;
	e->seq = l->seq++;
	e->nrec = 0;
	e->alen = 0;
	e->blen = 0;
	e->has_syscall = e->has_uring = e->has_ret = e->has_cwd = e->has_oflag = 0;
	e->has_user = e->has_daemon = 0;
	e->user_type = 0;
	e->arch = 0;
	e->nr = 0;
	memset(e->a, 0, sizeof(e->a));
	e->exit = 0;
	task_init(&e->task);
	e->cwd = LOG_STR_NONE;
	e->saddr_fam = -1;
	e->oflag = 0;
	e->nnames = 0;
	e->node = LOG_STR_NONE;
	l->openv[l->nopen++] = (uint32_t)slot;
	if (node) {
		uint32_t off;
		if (arena_put(e, node, node_len, &off)) {
			*rc = -ENOMEM;
			unlink_slot(l, slot);
			return w;
		}
		e->node.off = off;
		e->node.len = (uint32_t)node_len;
	}
	return slot;
}

/* A record's head: "[node=N ]type=T msg=audit(SEC.MS:SERIAL): ". */
struct rec_head {
	const char *node;		/* NULL: no node= prefix */
	size_t node_len;
	uint64_t nh;			/* hash of the node name | 1, 0 without one */
	const char *tname;		/* the type's name (for a diagnostic) */
	size_t tlen;
	uint32_t type;
	uint64_t sec;
	uint32_t msec, serial;
};

/* Why a head is not read: what head_scan found, and the diagnostic parse_head gives it. */
enum head_err {
	HEAD_OK, HEAD_SKIP, HEAD_EMPTY, HEAD_NODE, HEAD_NO_TYPE, HEAD_NO_MSG, HEAD_UNKNOWN_TYPE,
	HEAD_SEC, HEAD_MSEC, HEAD_SERIAL, HEAD_PAREN,
};
static const char *const head_why[] = {
	[HEAD_EMPTY] = "empty line", [HEAD_NODE] = "bad node= prefix",
	[HEAD_NO_TYPE] = "missing type=", [HEAD_NO_MSG] = "missing msg=audit(...)",
	[HEAD_SEC] = "bad timestamp seconds", [HEAD_MSEC] = "bad timestamp milliseconds",
	[HEAD_SERIAL] = "bad serial (not a 32-bit number)",
	[HEAD_PAREN] = "missing ')' after the serial",
};

/* Are the n >= 8 bytes at a and b the same?  Word by word, the last word overlapping (a stamp
 * is 8 to 40 bytes: inline, no memcmp call). */
static sp_always_inline int same_text(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 < n; i += 8)
		if (load64(a + i) != load64(b + i))
			return 0;
	return load64(a + n - 8) == load64(b + n - 8);
}

/* The decimal digits at p (at least one, at most max <= 19: no overflow) as *v: the first byte
 * after them, or NULL. */
static sp_always_inline const char *stamp_num(const char *p, const char *end, int max,
					     uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;
	for (unsigned d; p < end && (d = (unsigned)(*p - '0')) <= 9; p++)
		x = x * 10 + d;
	if (p == s || p - s > max)
		return NULL;
	*v = x;
	return p;
}

/* The stamp after "msg=audit(" up to its ')': the previous record's when the text is the same
 * (records of one event repeat it; with a reader l), else parsed (and remembered by l).  The
 * ')', or NULL with *err set. */
static sp_always_inline const char *parse_stamp(struct sp_audit_log *l, const char *p,
						const char *end, struct rec_head *h,
						enum head_err *err)
{
	const char *q, *s = p;
	if (l && l->hlen && (size_t)(end - p) >= l->hlen && same_text(p, l->htext, l->hlen)) {
		h->sec = l->hsec;	/* the previous record's stamp, ')' included */
		h->msec = l->hmsec;
		h->serial = l->hserial;
		return p + l->hlen - 1;
	}
	if (l && l->hlen && (size_t)(end - p) > l->hsec_len &&
	    (l->hsec_len >= 8 ? same_text(p, l->htext, l->hsec_len)
			      : !memcmp(p, l->htext, l->hsec_len))) {
		h->sec = l->hsec;	/* the previous record's seconds, '.' included */
		p += l->hsec_len;
	} else if (!(q = stamp_num(p, end, 19, &h->sec)) || q == end || *q != '.') {
		return *err = HEAD_SEC, NULL;
	} else {
		p = q + 1;
	}
	size_t sec_len = (size_t)(p - s);
	if (end - p < 4 || p[3] != ':' || parse_u32(p, p + 3, 10, &h->msec))
		return *err = HEAD_MSEC, NULL;
	p += 4;
	uint64_t serial;
	if (!(q = stamp_num(p, end, 10, &serial)) || serial > UINT32_MAX)
		return *err = HEAD_SERIAL, NULL;
	h->serial = (uint32_t)serial;
	if (q == end || q[0] != ')')
		return *err = HEAD_PAREN, NULL;
	if (!l)
		return q;
	l->hlen = 0;
	/* (at least "S.MMM:N)", 8 bytes, as same_text needs) */
	if ((size_t)(q + 1 - s) <= sizeof(l->htext)) {
		memcpy(l->htext, s, (size_t)(q + 1 - s));
		l->hlen = (uint8_t)(q + 1 - s);
		l->hsec_len = (uint8_t)sec_len;
		l->hsec = h->sec;
		l->hmsec = h->msec;
		l->hserial = h->serial;
	}
	return q;
}

/* The head of a record (l's caches used when l is given, nothing reported): the body that
 * follows it, or NULL with *err set (HEAD_SKIP: a record auditd could not stamp). */
static sp_always_inline const char *head_scan(struct sp_audit_log *l, const char *line,
					       const char *end, struct rec_head *h,
					       enum head_err *err)
{
	const char *p = line, *q;
	h->node = NULL;
	h->node_len = 0;
	h->nh = 0;
	if (p == end)
		return *err = HEAD_EMPTY, NULL;
	if (end - p >= 5 && !memcmp(p, "node=", 5)) {
		h->node = p + 5;
		q = memchr(h->node, ' ', (size_t)(end - h->node));
		if (!q || q == h->node)
			return *err = HEAD_NODE, NULL;
		h->node_len = (size_t)(q - h->node);
		h->nh = hash_bytes(h->node, h->node_len) | 1;
		p = q + 1;
	}
	if (end - p < 5 || memcmp(p, "type=", 5))
		return *err = HEAD_NO_TYPE, NULL;
	p += 5;
	q = memchr(p, ' ', (size_t)(end - p));
	if (!q)
		return *err = HEAD_NO_MSG, NULL;
	h->tname = p;
	h->tlen = (size_t)(q - p);
	if (type_lookup(l, p, h->tlen, &h->type))
		return *err = HEAD_UNKNOWN_TYPE, NULL;
	p = q + 1;
	/* a record auditd could not stamp (RHEL 7: "type=UNKNOWN[1329] msg=?") */
	if (end - p >= 5 && !memcmp(p, "msg=?", 5) && (end - p == 5 || p[5] == ' '))
		return *err = HEAD_SKIP, NULL;
	if (end - p < 11 || memcmp(p, "msg=audit(", 10))
		return *err = HEAD_NO_MSG, NULL;
	if (!(q = parse_stamp(l, p + 10, end, h, err)))
		return NULL;
	/* auditd writes "): " except in a few of its own records ("DAEMON_CONFIG ...) config") */
	if (q + 1 < end && q[1] != ':' && q[1] != ' ')
		return *err = HEAD_PAREN, NULL;
	p = q + 1 + (q + 1 < end && q[1] == ':');
	if (p < end && *p == ' ')
		p++;
	return p;
}

/* The head of a record; the body that follows it, or NULL when malformed or skipped
 * (reported). */
static const char *parse_head(struct sp_audit_log *l, const char *line, const char *end,
			      struct rec_head *h)
{
	enum head_err err = HEAD_OK;
	const char *p = head_scan(l, line, end, h, &err);
	char msg[160];
	if (p)
		return p;
	if (err == HEAD_SKIP) {
		/* ausearch and aureport pass over it, so it is skipped, with a warning */
		l->st.skipped++;
		if (l->o.diags)
			sp_diags_add(l->o.diags, SP_SEV_WARNING, 0, l->file, l->line, 0, 0,
				     "a record without a time stamp (msg=?): skipped");
		return NULL;
	}
	if (err == HEAD_UNKNOWN_TYPE)
		snprintf(msg, sizeof(msg), "unknown record type '%.*s'",
			 (int)SP_MIN(h->tlen, 40), h->tname);
	malformed(l, err == HEAD_UNKNOWN_TYPE ? msg : head_why[err]);
	return NULL;
}

int audit_log_head_peek(const char *line, size_t len, const char **node, size_t *node_len,
			uint64_t *sec, uint32_t *msec, uint32_t *serial)
{
	const char *q = memchr(line, 0x1d, len);
	struct rec_head h;
	enum head_err err;
	if (!head_scan(NULL, line, q ? q : line + len, &h, &err))
		return 0;
	*node = h.node;
	*node_len = h.node_len;
	*sec = h.sec;
	*msec = h.msec;
	*serial = h.serial;
	return 1;
}

/* What a record body may change in its event: put back when the record is malformed. */
struct ev_snap {
	size_t alen, nnames;
	uint8_t has_syscall, has_uring, has_user, has_daemon, has_cwd, has_oflag;
	struct log_str cwd;
	int32_t saddr_fam;
	uint64_t oflag;
};

static void snap_take(struct ev_snap *s, const struct sp_audit_log_event *e)
{
	s->alen = e->alen;
	s->nnames = e->nnames;
	s->has_syscall = e->has_syscall;
	s->has_uring = e->has_uring;
	s->has_user = e->has_user;
	s->has_daemon = e->has_daemon;
	s->has_cwd = e->has_cwd;
	s->has_oflag = e->has_oflag;
	s->cwd = e->cwd;
	s->saddr_fam = e->saddr_fam;
	s->oflag = e->oflag;
}

static void snap_restore(struct sp_audit_log_event *e, const struct ev_snap *s)
{
	e->alen = s->alen;
	e->nnames = (uint32_t)s->nnames;
	e->has_syscall = s->has_syscall;
	e->has_uring = s->has_uring;
	e->has_user = s->has_user;
	e->has_daemon = s->has_daemon;
	e->has_cwd = s->has_cwd;
	e->cwd = s->cwd;
	e->saddr_fam = s->saddr_fam;
	e->has_oflag = s->has_oflag;
	e->oflag = s->oflag;
}

/* Room for one more record in e.  0 or -ENOMEM. */
static int rec_reserve(struct sp_audit_log_event *e)
{
	if (e->nrec < e->rcap)
		return 0;
	size_t cap = e->rcap ? e->rcap * 2 : 8;
	struct sp_audit_log_rec *r = realloc(e->rec, cap * sizeof(*r));
	if (r)
		e->rec = r;
	uint32_t *o = r ? realloc(e->rec_off, cap * sizeof(*o)) : NULL;
	if (o)
		e->rec_off = o;
	if (!r || !o)
		return -ENOMEM;
	e->rcap = cap;
	return 0;
}

/* The line kept in e's arena at *off (or borrowed) and the body of a record of type `type`
 * into e.  Whatever can fail but the body is done first: a body that succeeds is the record's
 * last step, so a body sets e->task only when the record is taken (ev_snap need not hold it). */
static int record_body(struct sp_audit_log_event *e, uint32_t type, const char *p, const char *end,
		       const char *line, size_t len, int borrow, uint32_t *off, struct why *w)
{
	int err;
	if (e->nrec >= LOG_EVENT_MAX_RECS)
		return fail(w, "too many records in one event", NULL);
	if ((err = rec_reserve(e)))
		return err;
	if (borrow)
		*off = LOG_BORROWED;
	else if ((err = arena_put(e, line, len, off)))
		return err;
	if (type == LT_SYSCALL || type == LT_URINGOP) {
		if (e->has_syscall || e->has_uring)
			return fail(w, "second SYSCALL/URINGOP record in one event", NULL);
		return body_syscall(e, p, end, type == LT_URINGOP, w);
	}
	if (type == LT_PATH)
		return body_path(e, p, end, w);
	return body_simple(e, type, p, end, w);
}

/* One complete line (without '\n'); gs is its first 0x1d (the enriched part's start), or NULL;
 * borrow: the line is in the buffer being fed (its event may keep pointing there), not the
 * carry buffer. */
static int do_line(struct sp_audit_log *l, const char *line, size_t len, const char *gs,
		   int borrow)
{
	const char *end = gs ? gs : line + len, *p;
	struct rec_head h;
	struct ev_snap snap;
	struct why w;
	uint32_t off = 0;
	int rc, err;

	l->line++;
	l->st.lines++;
	if (!(p = parse_head(l, line, end, &h)))
		return 0;
	if (l->has_pending) {	/* the event past its PROCTITLE ends unless this is its own */
		const struct sp_audit_log_event *pe = &l->ev[l->pending];
		if ((pe->sec != h.sec || pe->msec != h.msec || pe->serial != h.serial ||
		     pe->node_hash != h.nh) && (rc = close_event(l, l->pending)))
			return rc;
	}
	size_t slot = find_or_open(l, h.sec, h.msec, h.serial, h.node, h.node_len, h.nh, &rc);
	if (rc)
		return rc;
	struct sp_audit_log_event *e = &l->ev[slot];
	l->last = slot;
	/* keep the event consistent if this record turns out malformed: parse into the event,
	 * roll back the arena and counters on error */
	snap_take(&snap, e);
	err = record_body(e, h.type, p, end, line, len, borrow, &off, &w);
	if (err) {
		snap_restore(e, &snap);
		if (err == -ENOMEM)
			return err;
		if (!e->nrec)		/* nothing in it: not an event */
			unlink_slot(l, slot);
		return malformed(l, w.msg);
	}
	e->rec[e->nrec] = (struct sp_audit_log_rec){ .type = h.type, .line = l->line, .file = l->file,
						     .text = off == LOG_BORROWED ? line : NULL,
						     .len = len, .seq = l->st.lines };
	e->rec_off[e->nrec++] = off;
	if (off == LOG_BORROWED)
		e->blen += len + 1;
	l->st.records++;
	if (type_ends_event(h.type) || e->alen + e->blen > LOG_EVENT_MAX_BYTES)
		return close_event(l, slot);
	if (h.type == LT_PROCTITLE) {
		l->pending = slot;
		l->has_pending = 1;
	}
	return 0;
}

/* The end of a file came inside a line: auditd ends every record with '\n', so the line was cut
 * (a log copied while written, `head -c`).  Reported with its offset, never read as a record. */
static void truncated_line(struct sp_audit_log *l)
{
	l->line++;
	l->st.lines++;
	l->st.truncated++;
	if (l->o.diags)
		sp_diags_add(l->o.diags, SP_SEV_WARNING, -EINVAL, l->file, l->line, 0, 0,
			     "truncated line at byte offset %llu (+0x%llx): the file ends without a "
			     "newline; the line is not read",
			     (unsigned long long)(l->fbytes - l->clen),
			     (unsigned long long)(l->fbytes - l->clen));
}

static int end_line(struct sp_audit_log *l, int at_eof)
{
	int rc = 0;
	if (at_eof && l->clen && !l->overlong) {
		truncated_line(l);
	} else if (l->overlong) {
		l->line++;
		l->st.lines++;
		char msg[80];
		snprintf(msg, sizeof(msg), "line longer than %zu bytes", l->o.max_line);
		malformed(l, msg);
	} else if (l->clen) {
		l->carry[l->clen] = '\n';	/* fp_num's stop (carry_add keeps the room) */
		rc = do_line(l, l->carry, l->clen, memchr(l->carry, 0x1d, l->clen), 0);
	}
	l->clen = 0;
	l->overlong = 0;
	return rc;
}

static int carry_add(struct sp_audit_log *l, const char *p, size_t n)
{
	if (l->overlong)
		return 0;
	if (l->clen + n > l->o.max_line) {
		l->overlong = 1;
		l->clen = 0;
		return 0;
	}
	if (buf_reserve(&l->carry, &l->ccap, l->clen + n + 1, 4096))	/* + end_line's '\n' */
		return -ENOMEM;
	memcpy(l->carry + l->clen, p, n);
	l->clen += n;
	return 0;
}

/* The lines the open events still borrow from the buffer fed, moved into their arenas: the
 * buffer is the caller's again when the feed returns.  0, or -ENOMEM (then the reader stops:
 * an event it keeps has lost lines). */
static int settle_borrowed(struct sp_audit_log *l)
{
	for (size_t k = 0; k < l->nopen; k++) {
		struct sp_audit_log_event *e = &l->ev[l->openv[k]];
		for (size_t i = 0; e->blen && i < e->nrec; i++) {
			if (e->rec_off[i] != LOG_BORROWED)
				continue;
			if (arena_put(e, e->rec[i].text, e->rec[i].len, &e->rec_off[i]))
				return l->stop = -ENOMEM;
			e->rec[i].text = NULL;
			e->blen -= e->rec[i].len + 1;
		}
	}
	return 0;
}

/* The lines of [p, end): complete ones read (those wholly in it borrowed), the rest carried. */
static int feed_lines(struct sp_audit_log *l, const char *p, const char *end)
{
	int rc;
	/* the next 0x1d at or after p, found once per chunk (most logs have none), not per line */
	const char *gs = memchr(p, 0x1d, (size_t)(end - p));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return carry_add(l, p, (size_t)(end - p));
		if (l->clen || l->overlong) {
			rc = carry_add(l, p, (size_t)(nl - p));
			if (!rc)
				rc = end_line(l, 0);
		} else if ((size_t)(nl - p) > l->o.max_line) {
			l->overlong = 1;
			rc = end_line(l, 0);
		} else {
			rc = do_line(l, p, (size_t)(nl - p), gs && gs < nl ? gs : NULL, 1);
		}
		if (rc)
			return rc;
		p = nl + 1;
		if (gs && gs < p)
			gs = memchr(p, 0x1d, (size_t)(end - p));
	}
	return 0;
}

SP_API int sp_audit_log_feed(struct sp_audit_log *l, const char *file, const void *buf, size_t len)
{
	int rc;
	if (l->stop)
		return l->stop;
	if (file != l->file) {
		if (l->file && (l->clen || l->overlong)) {
			rc = end_line(l, 1);
			if (rc)
				return rc;
		}
		l->file = file;
		l->line = 0;
		l->fbytes = 0;
	}
	l->st.bytes += len;
	l->fbytes += len;
	rc = feed_lines(l, buf, (const char *)buf + len);
	int err = settle_borrowed(l);
	return rc ? rc : err;
}


uint64_t audit_log_timeout(const struct sp_audit_log *l)
{
	return l->o.timeout;
}

size_t audit_log_max_line(const struct sp_audit_log *l)
{
	return l->o.max_line;
}

void audit_log_resume(struct sp_audit_log *l, const char *file, uint64_t lines, uint64_t bytes)
{
	l->file = file;
	l->line = lines;
	l->fbytes = bytes;
}

int audit_log_close_open(struct sp_audit_log *l)
{
	int rc = 0;
	if (l->stop)
		return l->stop;
	while (!rc && l->nopen)
		rc = close_event(l, oldest_open(l));
	return rc;
}

SP_API int sp_audit_log_finish(struct sp_audit_log *l)
{
	int rc = 0;
	if (l->stop)
		return l->stop;
	if (l->clen || l->overlong)
		rc = end_line(l, 1);
	l->file = NULL;		/* a later feed starts a new input at line 1 */
	l->fbytes = 0;
	/* close what is left, oldest first */
	while (!rc && l->nopen)
		rc = close_event(l, oldest_open(l));
	return rc;
}
