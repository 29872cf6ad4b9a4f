/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search.c - ausearch 3.0.9's event selection re-created for grouped audit.log events:
 * -k/--key (with -w/--word, which makes every string criterion exact), -m/--message,
 * -sc/--syscall, -ts/--start, -te/--end, -p/--pid, -pp/--ppid, -ui/-ue/-ul/-ua (numbers or
 * user names), -gi/-ge/-ga (numbers or group names), --session, -e/--exit, -x/--executable,
 * --comm, -tm, -hn, -vm, -uu, -su/-o/-se (contexts), -n/--node, -sv/--success, -a/--event,
 * -f/--file.
 *
 * Mirrors (audit-userspace src/): sp_audit_search_match ~ match() in ausearch-match.c, its
 * order of tests and its AND of every criterion; the options ~ check_params() in
 * ausearch-options.c; search_time ~ ausearch_time_start()/_end() in ausearch-time.c with its
 * keywords, dates in the locale's %x and times in %X.  The per-record extraction
 * (extract_search_items()) is search_parse.c; it drops the whole event when a record does not
 * parse the way ausearch expects (a SYSCALL without `a1=`, an AVC without `tclass=`).
 *
 * ausearch's own behaviour is kept where a user could be surprised by it, because a selection
 * that disagrees with ausearch would be worse: keys match as substrings unless -w; a syscall
 * given by name also requires the host's architecture (its machine is then set); an event
 * without a SYSCALL or SECCOMP record has syscall 0, so `-sc 0` selects it; -ts/-te compare
 * whole seconds.
 *
 * A user name criterion is compared, as user_match() does, with the name of the event's id:
 * the interpretation in the first record's ENRICHED part when ausearch loads it (one record,
 * or a SYSCALL first), else root for 0, unset for -1, else this host's passwd (getpwuid_r).
 *
 * Invariants: a record is searched only up to its first 0x1D (the ENRICHED part is read only
 * for those names); nothing here allocates per event (values are compared in fixed buffers, a
 * longer value compares as its prefix).
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "audit/log/log_int.h"
#include "audit/log/search_int.h"
#include "audit/lang/lang_int.h"

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
	s->pid = s->ppid = -1;
	s->event_id = -1;
	s->uid = s->euid = s->gid = s->egid = SEARCH_NO_ID;
	s->loginuid = s->session = SEARCH_NO_SES;
	s->success = SEARCH_UNSET;
	*out = s;
	return 0;
}

SP_API void sp_audit_search_free(struct sp_audit_search *s)
{
	if (!s)
		return;
	free(s->key);
	free(s->exe);
	free(s->file);
	for (int k = 0; k < SN_N; k++)
		free(s->name[k]);
	for (int k = 0; k < SS_N; k++)
		free(s->str[k]);
	free(s->subject);
	free(s->object);
	for (size_t k = 0; k < s->nnodes; k++)
		free(s->node[k]);
	free(s);
}

SP_API void sp_audit_search_set_now(struct sp_audit_search *s, int64_t now)
{
	if (s)
		s->now = now;
}

SP_API int sp_audit_search_active(const struct sp_audit_search *s)
{
	return s && s->given;
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

/* ausearch's numeric options: the value must start with a digit (-ul also takes -N). */
static int set_num(const char *opt, const char *v, int neg_ok, unsigned long *out,
		   struct sp_diags *d)
{
	char *e;

	if (!isdigit((unsigned char)v[0]) && !(neg_ok && v[0] == '-' && isdigit((unsigned char)v[1])))
		return bad(d, opt, "a numeric value is required, was", v);
	errno = 0;
	*out = v[0] == '-' ? (unsigned long)strtol(v, &e, 0) : strtoul(v, &e, 10);
	if (errno)
		return bad(d, opt, "the number does not fit", v);
	return 0;
}

static int set_str(char **dst, const char *v)
{
	char *c = strdup(v);
	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

static int is_opt(const char *opt, const char *a, const char *b)
{
	return !strcmp(opt, a) || !strcmp(opt, b);
}

/* A user (group) given by number, or by a name this host knows: its id in *id; a name is
 * also kept in *name when name is not NULL (ausearch then matches names). */
static int user_or_group(const char *opt, const char *v, int group, const char *unknown,
			 uint32_t *id, char **name, struct sp_diags *d)
{
	char buf[4096];
	unsigned long n;
	int rc;

	if (isdigit((unsigned char)v[0]) || (!group && v[0] == '-' && isdigit((unsigned char)v[1]) &&
					     is_opt(opt, "-ul", "--loginuid"))) {
		if ((rc = set_num(opt, v, 1, &n, d)))
			return rc;
		*id = (uint32_t)n;
		return 0;
	}
	if (group) {
		struct group gr, *res = NULL;
		if (getgrnam_r(v, &gr, buf, sizeof(buf), &res) || !res)
			return bad(d, opt, unknown, v);
		*id = (uint32_t)gr.gr_gid;
		return 0;
	}
	struct passwd pw, *res = NULL;
	if (getpwnam_r(v, &pw, buf, sizeof(buf), &res) || !res)
		return bad(d, opt, unknown, v);
	*id = (uint32_t)pw.pw_uid;
	return name ? set_str(name, v) : 0;
}

/* -ui/-ue/-ul/-ua and -gi/-ge/-ga (ausearch-options.c S_UID .. S_ALL_GID): 1 not one. */
static int set_id(struct sp_audit_search *s, const char *opt, const char *v, struct sp_diags *d)
{
	int rc;

	if (is_opt(opt, "-ui", "--uid"))
		return user_or_group(opt, v, 0, "the user is non-numeric and unknown", &s->uid,
				     &s->name[SN_UID], d);
	if (is_opt(opt, "-ue", "--uid-effective"))
		return user_or_group(opt, v, 0, "the user is non-numeric and unknown", &s->euid,
				     &s->name[SN_EUID], d);
	if (is_opt(opt, "-ul", "--loginuid"))
		return user_or_group(opt, v, 0, "the login user is non-numeric and unknown",
				     &s->loginuid, &s->name[SN_AUID], d);
	if (is_opt(opt, "-ua", "--uid-all")) {
		if ((rc = user_or_group(opt, v, 0, "the user is non-numeric and unknown", &s->uid,
					&s->name[SN_UID], d)))
			return rc;
		if (s->name[SN_UID] && ((rc = set_str(&s->name[SN_EUID], v)) ||
					(rc = set_str(&s->name[SN_AUID], v))))
			return rc;
		s->euid = s->loginuid = s->uid;
		s->ua = 1;
		return 0;
	}
	if (is_opt(opt, "-gi", "--gid"))
		return user_or_group(opt, v, 1, "the group is non-numeric and unknown", &s->gid,
				     NULL, d);
	if (is_opt(opt, "-ge", "--gid-effective"))
		return user_or_group(opt, v, 1, "the group is non-numeric and unknown", &s->egid,
				     NULL, d);
	if (is_opt(opt, "-ga", "--gid-all")) {
		if ((rc = user_or_group(opt, v, 1, "the group is non-numeric and unknown", &s->gid,
					NULL, d)))
			return rc;
		s->egid = s->gid;
		s->ga = 1;
		return 0;
	}
	return 1;
}

/* --session (a number, or -N), -e/--exit (a number in C's bases, or an errno name such as
 * EACCES or -EACCES). */
static int set_session_exit(struct sp_audit_search *s, const char *opt, const char *v,
			    struct sp_diags *d)
{
	int neg = v[0] == '-' && isdigit((unsigned char)v[1]);

	if (!strcmp(opt, "--session")) {
		if (!isdigit((unsigned char)v[0]) && !neg)
			return bad(d, opt, "the session id must be a numeric value, was", v);
		errno = 0;
		unsigned long n = strtoul(v, NULL, neg ? 0 : 10);
		if (errno)
			return bad(d, opt, "the number does not fit", v);
		s->session = (uint32_t)n;
		return 0;
	}
	if (isdigit((unsigned char)v[0]) || neg) {
		errno = 0;
		long long x = strtoll(v, NULL, 0);
		if (errno)
			return bad(d, opt, "the number does not fit", v);
		s->exit = x;
	} else {
		int e;
		if (sp_audit_errno_lookup(v, &e))
			return bad(d, opt, "unknown errno", v);
		s->exit = e;
	}
	s->exit_set = 1;
	return 0;
}

/* The string criteria, contexts, nodes, session and exit: 1 not one of them. */
static int set_other(struct sp_audit_search *s, const char *opt, const char *v,
		     struct sp_diags *d)
{
	static const char *const strs[SS_N][2] = {
		[SS_TERMINAL] = { "-tm", "--terminal" }, [SS_COMM] = { "--comm", "--comm" },
		[SS_HOST] = { "-hn", "--host" }, [SS_VM] = { "-vm", "--vm-name" },
		[SS_UUID] = { "-uu", "--uuid" },
	};
	int rc;

	for (int k = 0; k < SS_N; k++)
		if (is_opt(opt, strs[k][0], strs[k][1]))
			return set_str(&s->str[k], v);
	if (is_opt(opt, "-su", "--subject"))
		return set_str(&s->subject, v);
	if (is_opt(opt, "-o", "--object"))
		return set_str(&s->object, v);
	if (is_opt(opt, "-se", "--context")) {
		if ((rc = set_str(&s->subject, v)) || (rc = set_str(&s->object, v)))
			return rc;
		s->se = 1;
		return 0;
	}
	if (is_opt(opt, "-n", "--node")) {
		if (s->nnodes == SEARCH_MAX_NODES)
			return bad(d, opt, "too many nodes", NULL);
		if ((rc = set_str(&s->node[s->nnodes], v)))
			return rc;
		s->nnodes++;
		return 0;
	}
	if (!strcmp(opt, "--session") || is_opt(opt, "-e", "--exit"))
		return set_session_exit(s, opt, v, d);
	return 1;
}

static int set_value(struct sp_audit_search *s, const char *opt, const char *v,
		     struct sp_diags *d)
{
	unsigned long n;
	int rc;

	if (!strcmp(opt, "-p") || !strcmp(opt, "--pid")) {
		if ((rc = set_num(opt, v, 0, &n, d)))
			return rc;
		s->pid = (int32_t)n;
		return 0;
	}
	if (!strcmp(opt, "-pp") || !strcmp(opt, "--ppid")) {
		if ((rc = set_num(opt, v, 0, &n, d)))
			return rc;
		s->ppid = (int32_t)n;
		return 0;
	}
	if ((rc = set_id(s, opt, v, d)) <= 0 || (rc = set_other(s, opt, v, d)) <= 0)
		return rc;
	if (!strcmp(opt, "-a") || !strcmp(opt, "--event")) {
		if ((rc = set_num(opt, v, 0, &n, d)))
			return rc;
		s->event_id = (int32_t)(uint32_t)n;
		return 0;
	}
	if (!strcmp(opt, "-sv") || !strcmp(opt, "--success")) {
		if (!strstr(v, "yes") && !strstr(v, "no"))
			return bad(d, opt, "success must be 'yes' or 'no', was", v);
		s->success = !strcmp(v, "yes");	/* ausearch: anything else with "no" in it */
		return 0;
	}
	if (!strcmp(opt, "-x") || !strcmp(opt, "--executable"))
		return set_str(&s->exe, v);
	if (!strcmp(opt, "-f") || !strcmp(opt, "--file"))
		return set_str(&s->file, v);
	if (!strcmp(opt, "-k") || !strcmp(opt, "--key"))
		return set_str(&s->key, v);
	return 1;
}

static int search_set(struct sp_audit_search *s, const char *opt, const char *v1,
		      const char *v2, struct sp_diags *d)
{
	int rc;

	if (!s || !opt)
		return -EINVAL;
	if (!strcmp(opt, "-w") || !strcmp(opt, "--word")) {
		s->word = 1;
		return 0;
	}
	if (!v1 || !*v1)
		return bad(d, opt, "an argument is required", NULL);
	if ((rc = set_value(s, opt, v1, d)) <= 0)
		return rc;
	if (!strcmp(opt, "-m") || !strcmp(opt, "--message")) {
		size_t n = s->ntypes;
		rc = add_types(s, v1, d);
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

SP_API int sp_audit_search_set(struct sp_audit_search *s, const char *opt, const char *v1,
			       const char *v2, struct sp_diags *d)
{
	int rc = search_set(s, opt, v1, v2, d);
	if (!rc)
		s->given = 1;
	return rc;
}

/* ---- one event ---- */

/* The record's text to its first 0x1D, NUL-terminated in buf (truncated to its size). */
const char *search_rec_text(const struct sp_audit_log_rec *r, char *buf, size_t cap)
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

/* lookup_uid() of ausearch-parse.c: the head record's interpretation of `field` when ausearch
 * loaded it (a name criterion, and one record or a SYSCALL first), else root, unset, or this
 * host's name for the id; NULL when none (the name criterion then fails). */
static const char *uid_name(const struct sp_audit_log_event *ev, const char *field,
			    uint32_t id, char *buf, size_t cap)
{
	const struct sp_audit_log_rec *h = &ev->rec[0];
	const char *gs = ev->nrec ? memchr(h->text, 0x1d, h->len) : NULL;

	if (gs && (ev->nrec == 1 || h->type == 1300) &&
	    search_interp(gs + 1, (size_t)(h->text + h->len - gs - 1), field, buf, cap))
		return buf;
	if (id == 0)
		return "root";
	if (id == UINT32_MAX)
		return "unset";
	struct passwd pw, *res = NULL;
	char pwbuf[4096];
	if (getpwuid_r((uid_t)id, &pw, pwbuf, sizeof(pwbuf), &res) || !res ||
	    strlen(pw.pw_name) >= cap)
		return NULL;
	return strcpy(buf, pw.pw_name);
}

/* The name an id of the event had, when it was read and a name criterion wants it. */
static int name_is(const struct sp_audit_log_event *ev, const char *want, int read,
		   const char *field, uint32_t id)
{
	char buf[256];
	const char *n = read ? uid_name(ev, field, id, buf, sizeof(buf)) : NULL;
	return n && !strcmp(want, n);
}

/* user_match() of ausearch-match.c: names when given, else numbers; -ua is an OR. */
static int user_match(const struct sp_audit_search *s, const struct search_items *it,
		      const struct sp_audit_log_event *ev)
{
	const char *const *nm = (const char *const *)s->name;

	if (s->ua && nm[SN_UID])
		return name_is(ev, nm[SN_UID], it->uid_read, "uid", it->uid) ||
		       name_is(ev, nm[SN_EUID], it->euid_read, "euid", it->euid) ||
		       name_is(ev, nm[SN_AUID], it->loginuid_read, "auid", it->loginuid);
	if (s->ua)
		return s->uid == it->uid || s->euid == it->euid || s->loginuid == it->loginuid;
	if (nm[SN_UID] || nm[SN_EUID] || nm[SN_AUID])
		return (!nm[SN_UID] || name_is(ev, nm[SN_UID], it->uid_read, "uid", it->uid)) &&
		       (!nm[SN_EUID] || name_is(ev, nm[SN_EUID], it->euid_read, "euid", it->euid)) &&
		       (!nm[SN_AUID] ||
			name_is(ev, nm[SN_AUID], it->loginuid_read, "auid", it->loginuid));
	return (s->uid == SEARCH_NO_ID || s->uid == it->uid) &&
	       (s->euid == SEARCH_NO_ID || s->euid == it->euid) &&
	       (!search_has_loginuid(s) || s->loginuid == it->loginuid);
}

static int group_match(const struct sp_audit_search *s, const struct search_items *it)
{
	if (s->ga)
		return s->gid == it->gid || s->egid == it->egid;
	return (s->gid == SEARCH_NO_ID || s->gid == it->gid) &&
	       (s->egid == SEARCH_NO_ID || s->egid == it->egid);
}

/* context_match(): -se is an OR of subject and object; otherwise -su decides alone when given
 * (ausearch returns from it), else -o. */
static int context_match(const struct sp_audit_search *s, const struct search_items *it)
{
	if (s->se)
		return it->subj_hit || it->obj_hit;
	if (s->subject)
		return it->has_avc && it->subj_hit;
	if (s->object)
		return it->has_avc && it->obj_hit;
	return 1;
}

static int node_match(const struct sp_audit_search *s, const char *node)
{
	if (!s->nnodes)
		return 1;
	for (size_t k = 0; node && k < s->nnodes; k++)
		if (!strcmp(s->node[k], node))
			return 1;
	return 0;
}

/* The string searches of match(), in its order: -f, -hn, -tm, -x, --comm, -k, -vm, -uu. */
static int strings_match(const struct sp_audit_search *s, const struct search_items *it)
{
	if (s->file) {	/* a name of the list, else the cwd */
		if ((!it->has_files && !it->has_cwd) || (it->has_files && !it->file_hit && !it->has_cwd))
			return 0;
		if (it->has_cwd && !it->file_hit && !search_strmatch(s, s->file, it->cwd))
			return 0;
	}
	for (int k = 0; k < SS_N; k++)
		if (s->str[k] && !(it->has[k] && it->hit[k]))
			return 0;
	if (s->exe && !(it->has_exe && search_strmatch(s, s->exe, it->exe)))
		return 0;
	return !s->key || (it->has_key && it->key_hit);
}

/* match()'s tests after the extraction, in its order. */
static int items_match(const struct sp_audit_search *s, const struct search_items *it,
		       const struct sp_audit_log_event *ev, const uint8_t *mask, const char *node)
{
	if (!node_match(s, node) || !user_match(s, it, ev) || !group_match(s, it))
		return 0;
	if ((s->ppid != -1 && s->ppid != it->ppid) || (s->pid != -1 && s->pid != it->pid))
		return 0;
	if (s->machine >= 0 && audit_mach_from_elf(it->arch) != s->machine)
		return 0;
	if (s->syscall_set && s->syscall != it->syscall)
		return 0;
	if (s->session != SEARCH_NO_SES && s->session != it->session)
		return 0;
	if (s->exit_set && (!it->exit_set || s->exit != it->exit))
		return 0;
	if (s->success != SEARCH_UNSET && s->success != it->success)
		return 0;
	if (s->ntypes && !has_type(s, ev, mask))
		return 0;
	return strings_match(s, it) && context_match(s, it);
}

SP_API int sp_audit_search_match(const struct sp_audit_search *s,
				 const struct sp_audit_log_event *ev, const uint8_t *mask)
{
	uint64_t sec;
	uint32_t msec, serial;
	const char *node;
	struct search_items it;
	char buf[8192];

	if (!s || !ev)
		return 0;
	sp_audit_log_event_stamp(ev, &sec, &msec, &serial, &node);
	if ((s->start && (int64_t)sec < s->start) || (s->end && (int64_t)sec > s->end) ||
	    (s->event_id != -1 && (uint64_t)(int64_t)s->event_id != serial))
		return 0;
	search_items_init(&it, s);
	for (size_t i = 0; i < ev->nrec; i++) {
		const struct sp_audit_log_rec *r = &ev->rec[i];
		if (mask && !mask[i])
			continue;
		if (search_items_record(&it, r->type, search_rec_text(r, buf, sizeof(buf))))
			return 0;	/* ausearch: "Malformed event skipped" */
	}
	return items_match(s, &it, ev, mask, node);
}
