/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search.c - ausearch 3.0.9's event selection re-created for grouped audit.log events:
 * -k/--key (with -w/--word), -m/--message, -sc/--syscall, -ts/--start and -te/--end.
 *
 * Mirrors (audit-userspace src/): sp_audit_search_match ~ match() in ausearch-match.c, its
 * order of tests and its AND of every criterion; event_items ~ extract_search_items() in
 * ausearch-parse.c, which reads the records a criterion needs and drops the whole event when
 * one of them does not parse the way it expects (a SYSCALL record without `a1=`, an AVC
 * without `tclass=`); key_add ~ the key= branches of parse_syscall()/parse_simple_message()
 * with unescape() of ausearch-lookup.c; search_time ~ ausearch_time_start()/_end() in
 * ausearch-time.c with its keywords, dates in the locale's %x and times in %X.
 *
 * ausearch's own behaviour is kept where a user could be surprised by it, because a selection
 * that disagrees with ausearch would be worse: keys match as substrings unless -w; a syscall
 * given by name also requires the host's architecture (its machine is then set); an event
 * without a SYSCALL or SECCOMP record has syscall 0, so `-sc 0` selects it; -ts/-te compare
 * whole seconds.
 *
 * Invariants: a record is read only up to its first 0x1D (the ENRICHED part is ausearch's
 * interpretation, never searched); nothing here allocates per event (keys are compared in a
 * fixed buffer, a longer key counts as no key match).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "audit/log/log_int.h"
#include "audit/lang/lang_int.h"

#define SEARCH_MAX_TYPES 64
#define SEARCH_KEY_MAX 4096

struct sp_audit_search {
	char *key;			/* -k, or NULL */
	int word;			/* -w: exact match */
	uint32_t types[SEARCH_MAX_TYPES]; /* -m */
	size_t ntypes;
	int syscall_set;		/* -sc */
	int syscall;
	int machine;			/* set by -sc NAME: the host's (AUDIT_MACH_*), else -1 */
	int64_t start, end;		/* -ts/-te in seconds, 0 = none */
	int64_t now;			/* the clock the keywords read */
};

SP_API int sp_audit_search_new(struct sp_audit_search **out)
{
	struct sp_audit_search *s;

	if (!out)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->machine = -1;
	s->now = (int64_t)time(NULL);
	*out = s;
	return 0;
}

SP_API void sp_audit_search_free(struct sp_audit_search *s)
{
	if (!s)
		return;
	free(s->key);
	free(s);
}

SP_API void sp_audit_search_set_now(struct sp_audit_search *s, int64_t now)
{
	if (s)
		s->now = now;
}

SP_API int sp_audit_search_active(const struct sp_audit_search *s)
{
	return s && (s->key || s->ntypes || s->syscall_set || s->start || s->end);
}

/* ---- the options ---- */

static int bad(struct sp_diags *d, const char *opt, const char *msg, const char *v)
{
	if (d)
		sp_diags_add(d, SP_SEV_ERROR, -EINVAL, NULL, 0, 0, 0, "%s: %s%s%s%s", opt, msg,
			    v ? " '" : "", v ? v : "", v ? "'" : "");
	return -EINVAL;
}

/* convert_str_to_msg: a number, or a record type name. */
static int add_types(struct sp_audit_search *s, const char *v, struct sp_diags *d)
{
	char buf[64];

	if (!strcasecmp(v, "ALL"))
		return 0;
	for (const char *p = v; *p;) {
		size_t n = strcspn(p, ",");
		int t;
		if (n && n < sizeof(buf)) {
			memcpy(buf, p, n);
			buf[n] = 0;
			if (isdigit((unsigned char)buf[0])) {
				char *e;
				errno = 0;
				unsigned long x = strtoul(buf, &e, 10);
				t = errno || x > UINT32_MAX ? -1 : (int)x;
			} else {
				t = sp_audit_msgtype_lookup(buf);
			}
			if (t < 0)
				return bad(d, "-m", "unknown message type", buf);
			if (s->ntypes == SEARCH_MAX_TYPES)
				return bad(d, "-m", "too many message types", NULL);
			s->types[s->ntypes++] = (uint32_t)t;
		} else if (n) {
			return bad(d, "-m", "unknown message type", p);
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

static int set_syscall(struct sp_audit_search *s, const char *v, struct sp_diags *d)
{
	if (isdigit((unsigned char)v[0])) {
		errno = 0;
		unsigned long x = strtoul(v, NULL, 10);
		if (errno || x > INT32_MAX)
			return bad(d, "-sc", "bad syscall number", v);
		s->syscall = (int)x;
	} else {
		int mach = audit_mach_host();
		const char *mname = mach < 0 ? NULL : audit_mach_name(mach);
		int nr = mname ? sp_audit_syscall_lookup(mname, v) : -1;
		if (mach < 0)
			return bad(d, "-sc", "cannot tell this host's machine type", NULL);
		if (nr < 0)
			return bad(d, "-sc", "syscall not found", v);
		s->machine = mach;
		s->syscall = nr;
	}
	s->syscall_set = 1;
	return 0;
}

/* ausearch-time.c's keywords; each sets the date (and the time for now/recent/boot). */
static int keyword_tm(const struct sp_audit_search *s, const char *w, struct tm *tm, int *with_time)
{
	static const char *const words[] = { "now", "recent", "today", "yesterday", "this-week",
					     "week-ago", "this-month", "this-year" };
	time_t t = (time_t)s->now;
	size_t k = 0;
	struct tm cur;

	while (k < sizeof(words) / sizeof(words[0]) && strcmp(words[k], w))
		k++;
	if (k == sizeof(words) / sizeof(words[0]))
		return -1;
	*with_time = k < 2;
	if (k == 1)
		t -= 600;
	else if (k == 3)
		t -= 86400;
	else if (k == 5)
		t -= 7 * 86400;
	localtime_r(&t, &cur);
	if (k == 4) {	/* back to the week's Sunday */
		t -= (time_t)cur.tm_wday * 86400;
		localtime_r(&t, &cur);
	}
	if (!*with_time)
		cur.tm_hour = cur.tm_min = cur.tm_sec = 0;
	if (k == 6 || k == 7)
		cur.tm_mday = 1;
	if (k == 7) {
		cur.tm_mon = 0;
		cur.tm_isdst = 0;
	}
	*tm = cur;
	return 0;
}

/* ausearch_time_start/_end on a date (or NULL: today) and a time (or NULL: for -te the current
 * time of day).  A keyword date keeps its own time when the time is 00:00:00 for now and
 * recent, and for -te today (which then means now). */
static int time_of(const struct sp_audit_search *s, const char *opt, const char *date,
		   const char *tim, int is_end, int64_t *out, struct sp_diags *d)
{
	struct tm tm, cur;
	int with_time = 0;
	char tbuf[64];
	time_t now = (time_t)s->now;
	int zero = !tim || !strcmp(tim, "00:00:00");

	memset(&tm, 0, sizeof(tm));
	localtime_r(&now, &cur);
	if (!date) {
		tm = cur;
	} else if (!keyword_tm(s, date, &tm, &with_time)) {
		if ((with_time && zero) || (is_end && !strcmp(date, "today") && zero)) {
			if (!with_time)
				tm = cur;
			goto done;
		}
	} else {
		const char *e = strptime(date, "%x", &tm);
		if (!e || *e)
			return bad(d, opt, "bad date (the locale's %x: month, day and year)", date);
	}
	if (tim) {
		snprintf(tbuf, sizeof(tbuf), strlen(tim) <= 5 ? "%s:00" : "%s", tim);
		const char *e = strptime(tbuf, "%X", &tm);
		if (!e || *e)
			return bad(d, opt, "bad time (hour, minute and second)", tim);
	} else {
		tm.tm_hour = cur.tm_hour;
		tm.tm_min = cur.tm_min;
		tm.tm_sec = cur.tm_sec;
		tm.tm_isdst = cur.tm_isdst;
	}
	if (tm.tm_year < 104)
		return bad(d, opt, "a year before 2004", date);
done:;
	time_t t = mktime(&tm);
	if (t == (time_t)-1)
		return bad(d, opt, "the time cannot be converted", date);
	*out = (int64_t)t;
	return 0;
}

/* One -ts/-te: DATE TIME in either order (told apart by ':'), or one of them: a keyword or a
 * date alone starts at 00:00:00 (-te: a date alone ends at the current time of day). */
static int search_time(const struct sp_audit_search *s, const char *opt, const char *a,
		       const char *b, int is_end, int64_t *out, struct sp_diags *d)
{
	int dummy;
	struct tm tm;

	if (b)
		return strchr(a, ':') ? time_of(s, opt, b, a, is_end, out, d) :
					time_of(s, opt, a, b, is_end, out, d);
	if (!keyword_tm(s, a, &tm, &dummy))
		return time_of(s, opt, a, "00:00:00", is_end, out, d);
	if (!strchr(a, ':'))
		return time_of(s, opt, a, is_end ? NULL : "00:00:00", is_end, out, d);
	return time_of(s, opt, NULL, a, is_end, out, d);
}

SP_API int sp_audit_search_set(struct sp_audit_search *s, const char *opt, const char *v1,
			       const char *v2, struct sp_diags *d)
{
	if (!s || !opt)
		return -EINVAL;
	if (!strcmp(opt, "-w") || !strcmp(opt, "--word")) {
		s->word = 1;
		return 0;
	}
	if (!v1 || !*v1)
		return bad(d, opt, "an argument is required", NULL);
	if (!strcmp(opt, "-k") || !strcmp(opt, "--key")) {
		char *k = strdup(v1);
		if (!k)
			return -ENOMEM;
		free(s->key);
		s->key = k;
		return 0;
	}
	if (!strcmp(opt, "-m") || !strcmp(opt, "--message")) {
		size_t n = s->ntypes;
		int rc = add_types(s, v1, d);
		if (rc)
			s->ntypes = n;	/* all of the list or none */
		return rc;
	}
	if (!strcmp(opt, "-sc") || !strcmp(opt, "--syscall"))
		return set_syscall(s, v1, d);
	if (!strcmp(opt, "-ts") || !strcmp(opt, "--start"))
		return search_time(s, opt, v1, v2, 0, &s->start, d);
	if (!strcmp(opt, "-te") || !strcmp(opt, "--end"))
		return search_time(s, opt, v1, v2, 1, &s->end, d);
	return bad(d, opt, "not a selection option", NULL);
}

/* ---- one event ---- */

struct items {
	int syscall;			/* 0 when no record gave one, as ausearch's default */
	uint32_t arch;
	int has_key, key_hit;
	const struct sp_audit_search *s;
};

/* The record's text to its first 0x1D, NUL-terminated in buf (truncated to its size). */
static const char *rec_text(const struct sp_audit_log_rec *r, char *buf, size_t cap)
{
	size_t n = r->len;
	const char *gs = memchr(r->text, 0x1d, n);
	if (gs)
		n = (size_t)(gs - r->text);
	if (n >= cap)
		n = cap - 1;
	memcpy(buf, r->text, n);
	buf[n] = 0;
	return buf;
}

static int key_match(struct items *it, const char *k, size_t n)
{
	char one[SEARCH_KEY_MAX];

	it->has_key = 1;
	if (n >= sizeof(one))
		return 0;
	memcpy(one, k, n);
	one[n] = 0;
	it->key_hit |= it->s->word ? !strcmp(one, it->s->key) : strstr(one, it->s->key) != NULL;
	return 0;
}

static int hexv(int c)
{
	static const char digits[] = "0123456789ABCDEF";
	const char *p = strchr(digits, toupper(c));
	return p ? (int)((p - digits) & 0x0f) : 0;
}

/* A key= value at v: "text", (word) kept with its parentheses, or hex split at 0x01.  Returns
 * ausearch's failure (non-zero) for a quote without its end or a value unescape() refuses. */
static int key_add(struct items *it, const char *v)
{
	if (*v == '"') {
		const char *e = strchr(v + 1, '"');
		if (!e)
			return 1;
		return key_match(it, v + 1, (size_t)(e - v - 1));
	}
	if (*v == '(') {
		const char *e = strchr(v, ')');
		return e ? key_match(it, v, (size_t)(e - v + 1)) : 1;
	}
	size_t n = 0;
	while (isxdigit((unsigned char)v[n]))
		n++;
	if (n < 2)
		return 1;
	char dec[SEARCH_KEY_MAX];
	size_t m = 0, start = 0;
	for (size_t i = 0; i < n && m < sizeof(dec); i += 2)
		dec[m++] = (char)(hexv(v[i]) << 4 | hexv(i + 1 < n ? v[i + 1] : 0));
	/* strtok at 0x01, and the decoded string ends at its first NUL */
	size_t end = strnlen(dec, m);
	for (size_t i = 0; i <= end; i++) {
		if (i == end || dec[i] == 1) {
			if (i > start)
				key_match(it, dec + start, i - start);
			start = i + 1;
		}
	}
	return 0;
}

/* strstr(from, name) then the value up to the next ' ', which must exist; *next = that ' '. */
static const char *field_sp(const char *from, const char *name, const char **next)
{
	const char *p = strstr(from, name);
	if (!p)
		return NULL;
	p += strlen(name);
	*next = strchr(p, ' ');
	return p;
}

/* parse_syscall with the criteria of this file: arch (when a machine is set), syscall, a0,
 * a1 (always required), then key=. */
static int items_syscall(struct items *it, const char *m)
{
	const char *t = m, *v;

	if (it->s->machine >= 0) {
		if (!(v = field_sp(t, "arch=", &t)))
			return 1;
		if (!t)
			return 2;
		it->arch = (uint32_t)strtoul(v, NULL, 16);
	}
	if (!(v = field_sp(t, "syscall=", &t)))
		return 4;
	if (!t)
		return 5;
	it->syscall = (int)strtoul(v, NULL, 10);
	if (!field_sp(t, "a0=", &t))
		return 11;
	if (!t)
		return 12;
	if (!field_sp(t, "a1=", &t))
		return 11;
	if (!t)
		return 12;
	if (it->s->key && (v = strstr(t, "key=")))
		return key_add(it, v + 4);
	return 0;
}

/* parse_kernel_anom: SECCOMP carries arch and syscall (arch missing ends the record). */
static int items_seccomp(struct items *it, const char *m)
{
	const char *t = m, *v;

	if (!(v = field_sp(t, "arch=", &t)))
		return 0;
	if (!t)
		return 15;
	it->arch = (uint32_t)strtoul(v, NULL, 16);
	if (!(v = field_sp(t, "syscall=", &t)))
		return 17;
	if (!t)
		return 18;
	it->syscall = (int)strtoul(v, NULL, 10);
	return 0;
}

/* parse_avc for a kernel AVC: a permission list must close, and tclass= must be there. */
static int items_avc(const char *m)
{
	const char *t = m, *p = strstr(m, "avc: ");

	if (p) {
		const char *brace = strchr(p + 5, '{');
		if (brace) {
			if (!strchr(brace + 1, '}'))
				return 2;
			t = strchr(brace + 1, '}');
		}
	}
	return strstr(t, "tclass=") ? 0 : 9;
}

/* parse_integrity: a pid= must be followed by a blank. */
static int items_integrity(const char *m)
{
	const char *t, *p = field_sp(m, "pid=", &t);
	return p && !t ? 1 : 0;
}

static int items_record(struct items *it, uint32_t type, const char *m)
{
	switch (type) {
	case 1300:			/* SYSCALL */
		return items_syscall(it, m);
	case 1305:			/* CONFIG_CHANGE */
	case 1403: case 1404: case 1405: case 1406: case 1407: case 1408: case 1409: case 1410:
	case 1411: case 1412: case 1413: case 1414: case 1415: case 1416:
		/* parse_simple_message: MAC_POLICY_LOAD..MAC_UNLBL_STCDEL too */
		if (it->s->key) {
			const char *k = strstr(m, "key=");
			if (k && k[4] == '"' && !strchr(k + 5, '"'))
				return 6;
			if (k && key_add(it, k + 4))
				return 8;
		}
		return 0;
	case 1326:			/* SECCOMP */
		return items_seccomp(it, m);
	case 1400:			/* AVC */
		return items_avc(m);
	case 1800: case 1801: case 1802: case 1803: case 1804: case 1805: case 1806: case 1807:
	case 1808: case 1809: case 1810: case 1811: case 1812: case 1813: case 1814: case 1815:
	case 1816: case 1817: case 1818: case 1819:	/* INTEGRITY_DATA..INTEGRITY_RULE */
		return items_integrity(m);
	default:
		return 0;
	}
}

static int has_type(const struct sp_audit_search *s, const struct sp_audit_log_event *ev,
		    const uint8_t *mask)
{
	for (size_t i = 0; i < ev->nrec; i++) {
		if (mask && !mask[i])
			continue;
		for (size_t k = 0; k < s->ntypes; k++)
			if (s->types[k] == ev->rec[i].type)
				return 1;
	}
	return 0;
}

SP_API int sp_audit_search_match(const struct sp_audit_search *s,
				 const struct sp_audit_log_event *ev, const uint8_t *mask)
{
	uint64_t sec;
	uint32_t msec, serial;
	const char *node;
	struct items it = { .s = s };
	char buf[8192];

	if (!s || !ev)
		return 0;
	sp_audit_log_event_stamp(ev, &sec, &msec, &serial, &node);
	if ((s->start && (int64_t)sec < s->start) || (s->end && (int64_t)sec > s->end))
		return 0;
	for (size_t i = 0; i < ev->nrec; i++) {
		const struct sp_audit_log_rec *r = &ev->rec[i];
		if (mask && !mask[i])
			continue;
		if (items_record(&it, r->type, rec_text(r, buf, sizeof(buf))))
			return 0;	/* ausearch: "Malformed event skipped" */
	}
	if (s->machine >= 0) {
		int m = audit_mach_from_elf(it.arch);
		if (m != s->machine)
			return 0;
	}
	if (s->syscall_set && s->syscall != it.syscall)
		return 0;
	if (s->ntypes && !has_type(s, ev, mask))
		return 0;
	if (s->key && !(it.has_key && it.key_hit))
		return 0;
	return 1;
}
