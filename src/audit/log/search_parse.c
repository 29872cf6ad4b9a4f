/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search_parse.c - ausearch 3.0.9's extract_search_items() (src/ausearch-parse.c): the
 * fields a record yields for each criterion (ids, session, exit, strings, contexts, keys,
 * files, success), and the records ausearch refuses, which take their whole event out of every
 * search.  String criteria are matched as a value is read (the last value read decides), so
 * no value is stored.
 *
 * Each parser below is one of ausearch's (named in its comment) and walks the record as that
 * one does: a field is searched only when a criterion needs it, from where the previous
 * search left off (the `term` cursor), with the same strstr() needles, the same required
 * blanks after a value and the same return codes.  ausearch's quirks are kept because its
 * answers are the oracle: `" uid="` read 4 bytes on (TTY and INTEGRITY uids read as 0), a
 * res= number read with strtoul (so res=success is a failure outside user messages), a USER
 * record's second uid=, an exe found before the cursor.
 *
 * Invariants: records are read, never written (ausearch's temporary NULs are not needed: every
 * value is read with strtoul, which stops at the blank); a string is truncated to
 * SEARCH_STR_MAX - 1 bytes, so a longer exe or key compares as its prefix.
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "audit/log/search_int.h"

void search_items_init(struct search_items *it, const struct sp_audit_search *s)
{
	memset(it, 0, offsetof(struct search_items, exe));
	it->exe[0] = it->cwd[0] = 0;
	it->s = s;
	it->pid = it->ppid = -1;
	it->uid = it->euid = it->gid = it->egid = SEARCH_NO_ID;
	it->loginuid = it->session = SEARCH_NO_SES;
	it->success = SEARCH_UNSET;
}

/* strtoul as ausearch calls it: non-zero when errno says the value did not fit. */
static int rd(const char *p, int base, unsigned long *v)
{
	errno = 0;
	*v = strtoul(p, NULL, base);
	return errno != 0;
}

static int hexv(int c)
{
	static const char digits[] = "0123456789ABCDEF";
	const char *p = strchr(digits, toupper(c));
	return p ? (int)((p - digits) & 0x0f) : 0;	/* NUL: index 16, i.e. 0 */
}

/* unescape() of ausearch-lookup.c into out: "(word)" kept whole, else the run of hex digits
 * decoded by pairs (an odd last digit pairs with NUL).  -1 where unescape returns NULL. */
static int unesc(const char *v, char *out, size_t cap)
{
	size_t n = 0, m = 0;

	if (*v == '(') {
		const char *e = strchr(v, ')');
		if (!e)
			return -1;
		n = (size_t)(e - v + 1);
		n = n < cap ? n : cap - 1;
		memcpy(out, v, n);
		out[n] = 0;
		return (int)n;
	}
	while (isxdigit((unsigned char)v[n]))
		n++;
	if (n < 2)
		return -1;
	for (size_t i = 0; i < n && m + 1 < cap; i += 2)
		out[m++] = (char)(hexv(v[i]) << 4 | hexv(i + 1 < n ? v[i + 1] : 0));
	out[m] = 0;
	return (int)strlen(out);	/* the string ends at a decoded NUL */
}

/* n bytes at v into dst (cap bytes), cut to cap - 1 and NUL-terminated: the bytes copied. */
static size_t cut_copy(char *dst, size_t cap, const char *v, size_t n)
{
	n = n < cap ? n : cap - 1;
	if (n)
		memcpy(dst, v, n);
	dst[n] = 0;
	return n;
}

static void set_exe(struct search_items *it, const char *v, size_t n)
{
	cut_copy(it->exe, sizeof(it->exe), v, n);
	it->has_exe = 1;
}

static void set_exe_unesc(struct search_items *it, const char *v)
{
	it->has_exe = unesc(v, it->exe, sizeof(it->exe)) >= 0;
}

static void key_one(struct search_items *it, const char *k, size_t n)
{
	char one[SEARCH_STR_MAX];

	it->has_key = 1;
	cut_copy(one, sizeof(one), k, n);
	it->key_hit |= search_strmatch(it->s, it->s->key, one);
	if (it->sink && it->sink->key(it->sink->ud, one))
		it->sink_err = 1;
}

/* A key= value at v: "text", or unescape()d and split at 0x01 (strtok: empty parts dropped).
 * Returns `noquote` for a quote without its end, `nounesc` where unescape fails. */
static int key_value(struct search_items *it, const char *v, int noquote, int nounesc)
{
	char dec[SEARCH_STR_MAX];
	int n;

	if (*v == '"') {
		const char *e = strchr(v + 1, '"');
		if (!e)
			return noquote;
		key_one(it, v + 1, (size_t)(e - v - 1));
		return 0;
	}
	if ((n = unesc(v, dec, sizeof(dec))) < 0)
		return nounesc;
	for (int i = 0, start = 0; i <= n; i++) {
		if (i == n || dec[i] == 1) {
			if (i > start)
				key_one(it, dec + start, (size_t)(i - start));
			start = i + 1;
		}
	}
	return 0;
}

/* A value for string criterion k (n bytes at v): the last one read decides. */
static void str_value(struct search_items *it, int k, const char *v, size_t n)
{
	char one[SEARCH_STR_MAX];

	n = cut_copy(one, sizeof(one), v, n);
	it->has[k] = 1;
	it->hit[k] = it->s->str[k] && search_strmatch(it->s, it->s->str[k], one);
	if (k < SEARCH_NVAL && it->keep[k])
		memcpy(it->val[k], one, n + 1);
}

/* A "quoted" value (its end quote required, else `noquote`; *term moves to it) or an
 * unescape()d one (a failed unescape is ausearch's NULL: no value) for criterion k. */
static int str_quoted(struct search_items *it, int k, const char *str, const char **term,
		      int noquote)
{
	char dec[SEARCH_STR_MAX];

	if (*str == '"') {
		const char *e = strchr(str + 1, '"');
		if (!e)
			return noquote;
		str_value(it, k, str + 1, (size_t)(e - str - 1));
		*term = e;
		return 0;
	}
	if (unesc(str, dec, sizeof(dec)) >= 0)
		str_value(it, k, dec, strlen(dec));
	else
		it->has[k] = 0;		/* ausearch: s->comm = NULL */
	return 0;
}

/* A subject (subj=, scontext=) or object (obj=, tcontext=) context of n bytes: ausearch
 * appends it to the event's avc list, which then exists. */
static void context(struct search_items *it, int object, const char *v, size_t n)
{
	const char *want = object ? it->s->object : it->s->subject;
	char one[SEARCH_STR_MAX];

	it->has_avc = 1;
	if (!want)
		return;
	cut_copy(one, sizeof(one), v, n);
	if (search_strmatch(it->s, want, one)) {
		if (object)
			it->obj_hit = 1;
		else
			it->subj_hit = 1;
	}
}

/* A context at str ending at a blank: *term moves to the blank; no blank is `noblank` (0: the
 * value runs to the end). */
static int context_field(struct search_items *it, int object, const char *str,
			 const char **term, int noblank)
{
	const char *t = strchr(str, ' ');

	if (!t && noblank)
		return noblank;
	context(it, object, str, t ? (size_t)(t - str) : strlen(str));
	if (t)
		*term = t;
	return 0;
}

int search_interp(const char *p, size_t len, const char *field, char *out, size_t cap)
{
	size_t flen = strlen(field), i = 0;

	while (i < len) {
		while (i < len && p[i] == ' ')
			i++;
		size_t w = i;
		while (i < len && p[i] != ' ')
			i++;
		const char *eq = memchr(p + w, '=', i - w);
		if (!eq || (size_t)(eq - (p + w)) != flen || strncasecmp(p + w, field, flen))
			continue;
		const char *v = eq + 1, *end = p + i;
		if (*v == '"') {
			const char *q = memchr(v + 1, '"', (size_t)(p + len - v - 1));
			if (!q)
				return 0;
			v++;
			end = q;
		}
		if ((size_t)(end - v) >= cap)
			return 0;
		memcpy(out, v, (size_t)(end - v));
		out[end - v] = 0;
		return 1;
	}
	return 0;
}

/* A name for -f, matched as ausearch matches its file name list. */
static void file_name(struct search_items *it, const char *name)
{
	it->file_hit |= search_strmatch(it->s, it->s->file, name);
	if (it->sink && it->sink->file(it->sink->ud, name))
		it->sink_err = 1;
}

/* common_path_parser: a quoted name, (null), or hex (00-led: an abstract socket name);
 * "./" and "../" names are joined to the cwd known so far.  The list exists from the first
 * call, even when the name then fails. */
static int path_value(struct search_items *it, const char *path)
{
	char name[SEARCH_STR_MAX], full[SEARCH_STR_MAX];

	it->has_files = 1;
	if (*path == '"') {
		const char *e = strchr(path + 1, '"');
		if (!e)
			return 2;
		cut_copy(name, sizeof(name), path + 1, (size_t)(e - path - 1));
	} else if (!strncmp(path, "(null)", 6)) {
		strcpy(name, "(null)");
		file_name(it, name);
		return 0;
	} else {
		if (!isxdigit((unsigned char)path[0]))
			return 4;
		if (!(path[0] == '0' && path[1] == '0') && !strchr(path, ' '))
			return 5;
		if (unesc(path[0] == '0' && path[1] == '0' ? path + 2 : path, name,
			  sizeof(name)) < 0)
			return 7;
	}
	if (name[0] == '.' && (name[1] == '.' || name[1] == '/') && it->has_cwd) {
		if (snprintf(full, sizeof(full), "%s/%s", it->cwd, name) < 0)
			return 3;	/* (a longer join is cut, as ausearch's PATH_MAX buffer) */
		file_name(it, full);
	} else {
		file_name(it, name);
	}
	return 0;
}

static void set_cwd(struct search_items *it, const char *v, size_t n)
{
	cut_copy(it->cwd, sizeof(it->cwd), v, n);
	it->has_cwd = 1;
}

/* parse_dir (CWD): the first cwd of the event, 28 bytes in. */
static int p_dir(struct search_items *it, const char *m)
{
	const char *str = strlen(m) > 28 ? strstr(m + 28, " cwd=") : NULL;

	if (!it->s->file || !str)
		return 0;
	str += 5;
	if (*str == '"') {
		const char *e = strchr(str + 1, '"');
		if (!e)
			return 1;
		if (!it->has_cwd)
			set_cwd(it, str + 1, (size_t)(e - str - 1));
	} else if (!it->has_cwd) {
		it->has_cwd = unesc(str, it->cwd, sizeof(it->cwd)) >= 0;
	}
	return 0;
}

/* An obj= context for -o (to a blank or the end), searched from term. */
static void obj_field(struct search_items *it, const char *term)
{
	const char *str;

	if (it->s->object && (str = strstr(term, "obj=")))
		(void)context_field(it, 1, str + 4, &term, 0);
}

/* parse_path (PATH): its name=, 28 bytes in, then its obj= after the name. */
static int p_path(struct search_items *it, const char *m)
{
	const char *term = strlen(m) > 28 ? m + 28 : NULL, *str;
	int rc;

	if (!term)
		return 0;	/* (ausearch reads past a shorter record's end: nothing there) */
	if (it->s->file && (str = strstr(term, " name="))) {
		if ((rc = path_value(it, str + 6)))
			return rc;
		term = str + 6;
		/* aureport's list key: all the text after the next "type=" (nametype=, objtype=) */
		const char *t = it->sink ? strstr(term, "type=") : NULL;
		if (t)
			it->sink->ftype(it->sink->ud, t + 5);
	}
	obj_field(it, term);
	return 0;
}

/* parse_obj (IPC, OBJ_PID): obj= for -o. */
static int p_obj(struct search_items *it, const char *m)
{
	obj_field(it, m);
	return 0;
}

/* parse_pkt (NETFILTER_PKT): saddr= (to a blank) is the host, then obj= from there. */
static int p_pkt(struct search_items *it, const char *m)
{
	const char *term = m, *str, *t;

	if (search_wants_str(it, SS_HOST) && (str = strstr(m, "saddr="))) {
		if (!(t = strchr(str + 6, ' ')))
			return 1;
		str_value(it, SS_HOST, str + 6, (size_t)(t - str - 6));
		term = t;
	}
	obj_field(it, term);
	return 0;
}

/* avc_parse_path (AVC_PATH; CONFIG_CHANGE too, its answer ignored): a path= is required. */
static int p_avc_path(struct search_items *it, const char *m)
{
	const char *str = strstr(m, " path=");
	if (!it->s->file)
		return 0;
	return str ? path_value(it, str + 6) : 1;
}

/* parse_sockaddr's -hn: an AF_INET/AF_INET6 address as getnameinfo(NI_NUMERICHOST) prints it
 * (a failure is no host). */
static void sockaddr_host(struct search_items *it, const unsigned char *raw, unsigned fam)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} u;
	socklen_t len = fam == AF_INET ? sizeof(u.in) : sizeof(u.in6);
	char name[NI_MAXHOST];

	memcpy(&u, raw, len);
	u.sa.sa_family = (sa_family_t)fam;
	it->has[SS_HOST] = 0;
	if (!getnameinfo(&u.sa, len, name, sizeof(name), NULL, 0, NI_NUMERICHOST))
		str_value(it, SS_HOST, name, strlen(name));
}

/* parse_sockaddr (SOCKADDR) for -f and -hn: an AF_UNIX sun_path (abstract: after its NUL) is
 * a file name, an AF_INET/AF_INET6 address the host; short addresses of those families are
 * refused.  Any other outcome leaves no host (ausearch frees the one it had). */
static int p_sockaddr(struct search_items *it, const char *m)
{
	const char *str = strstr(m, "saddr=");
	unsigned char raw[SEARCH_STR_MAX];
	size_t len = 0;
	int n;

	if ((!it->s->file && !search_wants_str(it, SS_HOST)) || !str)
		return 0;
	str += 6;
	if (*str == '(') {
		const char *e = strchr(str, ')');
		len = e ? (size_t)(e - str) + 1 : 0;
	} else {
		while (isxdigit((unsigned char)str[len]))
			len++;
		len /= 2;
	}
	if ((n = unesc(str, (char *)raw, sizeof(raw))) < 0)
		return 4;
	if (*str != '(') {	/* unesc's length stops at a NUL: the decoded bytes are len */
		size_t cap = sizeof(raw) - 1;
		len = len < cap ? len : cap;
	}
	unsigned fam = raw[0] | (unsigned)raw[1] << 8;
	if (fam == AF_INET && len < sizeof(struct sockaddr_in))
		return 1;
	if (fam == AF_INET6 && len < sizeof(struct sockaddr_in6))
		return 2;
	if (fam == AF_UNIX && len < 4)
		return 3;
	if (fam == AF_UNIX && it->s->file) {
		it->has_files = 1;
		raw[len] = 0;
		file_name(it, (const char *)(raw[2] ? raw + 2 : raw + 3));
	}
	if ((fam == AF_INET || fam == AF_INET6) && search_wants_str(it, SS_HOST))
		sockaddr_host(it, raw, fam);
	else
		it->has[SS_HOST] = 0;
	return 0;
}

/* A quoted or unescape()d exe= at str (just past "exe="); *term moves to a closing quote. */
static int exe_value(struct search_items *it, const char *str, const char **term, int noquote)
{
	if (*str == '"') {
		const char *e = strchr(str + 1, '"');
		if (!e)
			return noquote;
		set_exe(it, str + 1, (size_t)(e - str - 1));
		*term = e;
	} else {
		set_exe_unesc(it, str);
	}
	return 0;
}

/* The common shape: strstr(*term, name); absent -> `absent` (0 = optional); the value must be
 * followed by a blank (else `noblank`) and fit strtoul (else `range`).  *term moves to the
 * blank.  Returns 0 with *found = 1 when read. */
static int num_field(const char **term, const char *name, int skip, int absent, int noblank,
		     int range, int base, unsigned long *v, int *found)
{
	const char *str = strstr(*term, name), *ptr, *t;

	*found = 0;
	if (!str)
		return absent;
	ptr = str + skip;
	if (!(t = strchr(ptr, ' ')))
		return noblank;
	*term = t;
	if (rd(ptr, base, v))
		return range;
	*found = 1;
	return 0;
}

/* An optional "res=" read with strtoul, its blank optional: ausearch's kernel-record form. */
static int res_num(struct search_items *it, const char **term, const char *m, int range)
{
	unsigned long v;
	const char *str;

	if (it->s->success == SEARCH_UNSET)
		return 0;
	if (!*term)
		*term = m;
	if (!(str = strstr(*term, "res=")))
		return 0;
	*term = strchr(str + 4, ' ');
	if (rd(str + 4, 10, &v))
		return range;
	it->success = (int)v;
	return 0;
}

/* parse_task_info's ids, from the login uid to the egid (codes 19-33). */
static int task_ids(struct search_items *it, const char **term, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *str;
	unsigned long v;
	int rc, f;

	if (search_wants_loginuid(s)) {
		const char *name = strstr(*term, "auid=") ? "auid=" : "loginuid=";
		if ((rc = num_field(term, name, (int)strlen(name), 19, 20, 21, 10, &v, &f)))
			return rc;
		it->loginuid = (uint32_t)v;
		it->loginuid_read = 1;
	}
	if (search_wants_uid(s)) {
		while ((str = strstr(*term, "uid=")) && str > m && str[-1] == 'a')
			*term = str + 1;	/* an auid=: try again after it */
		if ((rc = num_field(term, "uid=", 4, 22, 23, 24, 10, &v, &f)))
			return rc;
		it->uid = (uint32_t)v;
		it->uid_read = 1;
	}
	if (s->gid != SEARCH_NO_ID) {
		if ((rc = num_field(term, "gid=", 4, 25, 26, 27, 10, &v, &f)))
			return rc;
		it->gid = (uint32_t)v;
	}
	if (search_wants_euid(s)) {
		if ((rc = num_field(term, "euid=", 5, 28, 29, 30, 10, &v, &f)))
			return rc;
		it->euid = (uint32_t)v;
		it->euid_read = 1;
	}
	if (s->egid != SEARCH_NO_ID) {
		if ((rc = num_field(term, "egid=", 5, 31, 32, 33, 10, &v, &f)))
			return rc;
		it->egid = (uint32_t)v;
	}
	return 0;
}

/* An optional "NAME" value ending at a blank (else `noblank`) for criterion k. */
static int str_to_blank(struct search_items *it, int k, const char **term, const char *name,
			int noblank)
{
	const char *str = strstr(*term, name), *t;

	if (!str)
		return 0;
	str += strlen(name);
	if (!(t = strchr(str, ' ')))
		return noblank;
	str_value(it, k, str, (size_t)(t - str));
	*term = t;
	return 0;
}

/* An optional ses= read with strtoul; its blank required when `noblank`, else optional. */
static int ses_field(struct search_items *it, const char **term, const char *name, int noblank,
		     int range)
{
	const char *str = strstr(*term, name), *ptr, *t;
	unsigned long v;

	if (it->s->session == SEARCH_NO_SES || !str)
		return 0;
	ptr = str + strlen(name);
	t = strchr(ptr, ' ');
	if (!t && noblank)
		return noblank;
	*term = t ? t : ptr;
	if (rd(ptr, 10, &v))
		return range;
	it->session = (uint32_t)v;
	return 0;
}

/* An optional comm= (quoted or hex) for --comm; absent is `absent` (0: optional). */
static int comm_field(struct search_items *it, const char **term, int absent, int noquote)
{
	const char *str;

	if (!search_wants_str(it, SS_COMM))
		return 0;
	if (!(str = strstr(*term, "comm=")))
		return absent;
	return str_quoted(it, SS_COMM, str + 5, term, noquote);
}

/* parse_task_info (SYSCALL after a1, FEATURE_CHANGE, ANOM_LINK). */
static int p_task_info(struct search_items *it, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc, f;

	if (s->ppid != -1) {
		if ((rc = num_field(&term, "ppid=", 5, 0, 14, 15, 10, &v, &f)))
			return rc;
		if (f)
			it->ppid = (int32_t)v;
	}
	if (s->pid != -1) {
		if ((rc = num_field(&term, " pid=", 5, 16, 17, 18, 10, &v, &f)))
			return rc;
		it->pid = (int32_t)v;
	}
	if ((rc = task_ids(it, &term, m)))
		return rc;
	if (search_wants_str(it, SS_TERMINAL) &&
	    (rc = str_to_blank(it, SS_TERMINAL, &term, "tty=", 34)))
		return rc;
	if ((rc = ses_field(it, &term, "ses=", 35, 36)) || (rc = comm_field(it, &term, 38, 37)))
		return rc;
	if (s->exe) {
		if (!(str = strstr(m, "exe=")))
			return 40;
		if ((rc = exe_value(it, str + 4, &term, 39)))
			return rc;
	}
	if (s->subject && (str = strstr(term, "subj=")) &&
	    (rc = context_field(it, 0, str + 5, &term, 41)))
		return rc;
	return res_num(it, &term, m, 43);
}

/* parse_syscall's exit= (required for -e), read with strtoll in C's bases. */
static int exit_field(struct search_items *it, const char **term)
{
	const char *str = strstr(*term, "exit="), *t;

	if (!str)
		return 8;
	if (!(t = strchr(str + 5, ' ')))
		return 9;
	*term = t;
	errno = 0;
	it->exit = strtoll(str + 5, NULL, 0);
	if (errno)
		return 10;
	it->exit_set = 1;
	return 0;
}

/* parse_syscall: arch (when -sc named a syscall), syscall, success, a0 and a1 (required),
 * parse_task_info, key. */
static int p_syscall(struct search_items *it, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc, f;

	if (s->machine >= 0) {
		if ((rc = num_field(&term, "arch=", 5, 1, 2, 3, 16, &v, &f)))
			return rc;
		it->arch = (uint32_t)v;
	}
	if ((rc = num_field(&term, "syscall=", 8, 4, 5, 6, 10, &v, &f)))
		return rc;
	it->syscall = (int)v;
	if (s->success != SEARCH_UNSET && (str = strstr(term, "success="))) {
		const char *t = strchr(str + 8, ' ');
		if (!t)
			return 7;
		it->success = t - (str + 8) == 3 && !memcmp(str + 8, "yes", 3);
		term = t;
	}
	if (s->exit_set && (rc = exit_field(it, &term)))
		return rc;
	if ((rc = num_field(&term, "a0=", 3, 11, 12, 13, 16, &v, &f)) ||
	    (rc = num_field(&term, "a1=", 3, 11, 12, 13, 16, &v, &f)))
		return rc;
	if ((rc = p_task_info(it, m)))
		return rc;
	if (s->key && (str = strstr(term, "key=")))
		return key_value(it, str + 4, 44, 45);
	return 0;
}

/* parse_user, the part after its pid, uid and login uid: the second uid= (USER_LOGIN's). */
static int p_user_uid2(struct search_items *it, const char **term)
{
	const char *str, *ptr, *t;

	while ((str = strstr(*term, "uid="))) {
		char c = str[-1];
		if (c == 'a') {
			*term = str + 1;
			continue;
		}
		if (c == 's' || c == 'u')
			return 0;
		if (c != '\'' && c != ' ')
			return 25;
		ptr = t = str + 4;
		while (isdigit((unsigned char)*t))
			t++;
		if (t == ptr)
			return 14;
		*term = t;
		unsigned long v;
		if (rd(ptr, 10, &v))
			return 15;
		it->uid = (uint32_t)v;
		it->uid_read = 1;
		return 0;
	}
	return 0;
}

/* parse_user's cwd= (it replaces any earlier one): quoted, or legacy text, or hex. */
static int user_cwd(struct search_items *it, const char *str)
{
	const char *end = str;
	int legacy = 0;

	if (*str == '"') {
		const char *e = strchr(str + 1, '"');
		if (!e)
			return 20;
		set_cwd(it, str + 1, (size_t)(e - str - 1));
		return 0;
	}
	for (; *end != ' ' && *end; end++)
		legacy |= !isxdigit((unsigned char)*end);
	if (legacy)
		set_cwd(it, str, (size_t)(end - str));
	else
		it->has_cwd = unesc(str, it->cwd, sizeof(it->cwd)) >= 0;
	return 0;
}

/* parse_user's hostname= (to a ',' or a blank), or its addr= when the name is "?". */
static int user_host(struct search_items *it, const char *mptr)
{
	const char *str, *t;

	if (!search_wants_str(it, SS_HOST) || !(str = strstr(mptr, "hostname=")))
		return 0;
	str += 9;
	if (!(t = strchr(str, ',')) && !(t = strchr(str, ' ')))
		return 17;
	const char *addr = t - str == 1 && *str == '?' ? strstr(t + 1, "addr=") : NULL;
	if (addr) {	/* "?": the address says more */
		str = addr + 5;
		if (!(t = strchr(str, ',')) && !(t = strchr(str, ' ')))
			return 18;
	}
	str_value(it, SS_HOST, str, (size_t)(t - str));
	return 0;
}

/* parse_user's acct= at p: quoted (to the next quote or the end), legacy text, or hex, kept
 * for aureport; *term moves past it. */
static void user_acct(struct search_items *it, const char *p, const char **term)
{
	const char *t = *p ? p + 1 : p, *end = p;
	int legacy = 0;

	if (*p == '"') {
		while (*t != '"' && *t)
			t++;
		cut_copy(it->acct, sizeof(it->acct), p + 1, (size_t)(t - p - 1));
		it->has_acct = 1;
		*term = t;
		return;
	}
	for (; *end != ' ' && *end; end++)
		legacy |= !isxdigit((unsigned char)*end);
	*term = end;
	if (!legacy) {
		it->has_acct = unesc(p, it->acct, sizeof(it->acct)) >= 0;
		return;
	}
	cut_copy(it->acct, sizeof(it->acct), p, (size_t)(end - p));
	it->has_acct = 1;
}

/* parse_user, from acct= on: the cursor after acct=, then exe= (legacy unquoted text kept)
 * and res=/result= from it. */
static int p_user_tail(struct search_items *it, const char *mptr)
{
	const char *str, *term = mptr;
	int rc;

	if ((rc = comm_field(it, &term, 0, 16)))
		return rc;
	if ((str = strstr(mptr, "acct=")))
		user_acct(it, str + 5, &term);
	mptr = term;
	if ((rc = user_host(it, mptr)))
		return rc;
	if (it->s->file && (str = strstr(mptr, "cwd=")) && (rc = user_cwd(it, str + 4)))
		return rc;
	if (search_wants_str(it, SS_TERMINAL) && (str = strstr(mptr, "terminal="))) {
		const char *t = strchr(str + 9, ' ');
		if (!t && !(t = strchr(str + 9, ')')))
			return 19;
		str_value(it, SS_TERMINAL, str + 9, (size_t)(t - (str + 9)));
	}
	if (it->s->exe && (str = strstr(mptr, "exe="))) {
		str += 4;
		if (*str == '"') {
			const char *e = strchr(str + 1, '"');
			if (!e)
				return 26;
			set_exe(it, str + 1, (size_t)(e - str - 1));
		} else {
			const char *end = str;
			int legacy = 0;
			for (; *end != ' ' && *end; end++)
				legacy |= !isxdigit((unsigned char)*end);
			if (legacy)
				set_exe(it, str, (size_t)(end - str));
			else
				set_exe_unesc(it, str);
		}
	}
	if (it->s->success == SEARCH_UNSET)
		return 0;
	if ((str = strstr(mptr, "res="))) {
		if (!strchr(str + 4, '\''))
			return 21;
		it->success = strncmp(str + 4, "failed", 6) != 0;
	} else if ((str = strstr(mptr, "result="))) {
		const char *e = strchr(str + 7, ')');
		if (!e)
			return 22;
		it->success = e - (str + 7) == 7 && !strncasecmp(str + 7, "success", 7);
	}
	return 0;
}

/* The pid= then uid= that parse_user and parse_login both begin with (codes 1-6). */
static int pid_then_uid(struct search_items *it, const char **term)
{
	unsigned long v;
	int rc, f;

	if (it->s->pid != -1) {
		if ((rc = num_field(term, "pid=", 4, 1, 2, 3, 10, &v, &f)))
			return rc;
		it->pid = (int32_t)v;
	}
	if (search_wants_uid(it->s)) {
		if ((rc = num_field(term, "uid=", 4, 4, 5, 6, 10, &v, &f)))
			return rc;
		it->uid = (uint32_t)v;
		it->uid_read = 1;
	}
	return 0;
}

/* parse_user's USER_AVC part (avc: called by parse_avc): tcontext= and tclass= move the
 * cursor, a value without a blank leaves it at the value. */
static void user_avc_object(struct search_items *it, const char **term)
{
	const char *str, *t;

	if ((str = strstr(*term, "tcontext="))) {
		str += 9;
		if ((t = strchr(str, ' '))) {
			context(it, 1, str, (size_t)(t - str));
			*term = t;
		} else {
			*term = str;
		}
	}
	if ((str = strstr(*term, "tclass="))) {
		str += 7;
		*term = (t = strchr(str, ' ')) ? t : str;
	}
}

/* parse_user's group id (ADD_GROUP, DEL_GROUP, GRP_MGMT), vm=, uuid= (codes 23-32). */
static int user_gid_vm(struct search_items *it, uint32_t type, const char **term)
{
	const struct sp_audit_search *s = it->s;
	const char *str, *t;
	unsigned long v;

	if (s->gid != SEARCH_NO_ID && (type == 1116 || type == 1117 || type == 1132)) {
		str = strstr(*term, " id=");
		if (!str && type == 1132)
			str = strstr(*term, "gid=");
		if (str) {
			if (!(t = strchr(str + 4, ' ')))
				return 31;
			*term = t;
			if (rd(str + 4, 10, &v))
				return 32;
			it->gid = (uint32_t)v;
		}
	}
	if (s->str[SS_VM] && (str = strstr(*term, "vm=")) &&
	    str_quoted(it, SS_VM, str + 3, term, 23))
		return 23;
	if (s->str[SS_UUID] && (str = strstr(*term, "uuid="))) {
		str += 5;
		for (t = str; *t != ' ' && *t != ':' && *t; t++)
			;
		if (t == str)
			return 24;
		str_value(it, SS_UUID, str, (size_t)(t - str));
		*term = t;
	}
	return 0;
}

/* parse_user (USER, the user-space message ranges; USER_AVC through p_avc, `avc` set). */
static int p_user(struct search_items *it, uint32_t type, const char *m, int avc)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc, f;

	if ((rc = pid_then_uid(it, &term)))
		return rc;
	if (search_wants_loginuid(s)) {
		const char *name = strstr(term, "auid=") ? "auid=" : "loginuid=";
		if ((rc = num_field(&term, name, (int)strlen(name), 7, 8, 9, 10, &v, &f)))
			return rc;
		it->loginuid = (uint32_t)v;
		it->loginuid_read = 1;
	}
	if ((rc = ses_field(it, &term, "ses=", 10, 11)))
		return rc;
	if (s->subject && (str = strstr(term, "subj=")) &&
	    (rc = context_field(it, 0, str + 5, &term, 12)))
		return rc;
	if (avc && s->object)
		user_avc_object(it, &term);
	if ((rc = user_gid_vm(it, type, &term)))
		return rc;
	if (type == 2502) {	/* VIRT_MACHINE_ID: vm-ctx= and img-ctx= */
		if (s->subject && (str = strstr(term, "vm-ctx=")) &&
		    (rc = context_field(it, 0, str + 7, &term, 27)))
			return rc;
		if (s->object && (str = strstr(term, "img-ctx=")) &&
		    (rc = context_field(it, 1, str + 8, &term, 29)))
			return rc;
	} else if (type == 2501 && s->file) {	/* VIRT_RESOURCE: its path= or new-disk= */
		const char *val = NULL;
		if ((str = strstr(term, " path=")))
			val = str + 6;
		else if ((str = strstr(term, " new-disk=")))
			val = str + 10;
		if (val && (rc = path_value(it, val)))
			return rc;
		if (val)
			term = val;
	}
	if (search_wants_uid(s) && (rc = p_user_uid2(it, &term)))
		return rc;
	return p_user_tail(it, term);
}

/* parse_login's session: "new ses=" or " ses=" is required for --session. */
static int login_ses(struct search_items *it, const char **term, const char *m)
{
	const char *str, *ptr;
	unsigned long v;

	if (it->s->session == SEARCH_NO_SES)
		return 0;
	if (!*term)
		*term = m;
	if ((str = strstr(*term, "new ses=")))
		ptr = str + 8;
	else if ((str = strstr(*term, " ses=")))
		ptr = str + 5;
	else
		return 14;
	*term = strchr(ptr, ' ');
	if (rd(ptr, 10, &v))
		return 11;
	it->session = (uint32_t)v;
	return 0;
}

/* parse_login (LOGIN): pid, uid, subj (kept with its "subj=", as ausearch keeps it), the new
 * login uid, res= (absent: a success), the new session, in that order. */
static int p_login(struct search_items *it, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str, *ptr;
	unsigned long v;
	int rc;

	if ((rc = pid_then_uid(it, &term)))
		return rc;
	if (s->subject && (str = strstr(term, "subj="))) {
		const char *t = strchr(str + 5, ' ');
		if (!t)
			return 12;
		context(it, 0, str, (size_t)(t - str));
		term = t;
	}
	if (search_wants_loginuid(s)) {
		if ((str = strstr(term, "new auid=")))
			ptr = str + 9;
		else if ((str = strstr(term, " auid=")))
			ptr = str + 6;
		else if ((str = strstr(term, "new loginuid=")))
			ptr = str + 13;
		else
			return 7;
		term = strchr(ptr, ' ');
		if (rd(ptr, 10, &v))
			return 8;
		it->loginuid = (uint32_t)v;
		it->loginuid_read = 1;
	}
	if (s->success != SEARCH_UNSET) {
		if (!term)
			term = m;
		if (!strstr(term, "res="))
			it->success = 1;	/* older kernels: always a success */
		else if ((rc = res_num(it, &term, m, 9)))
			return rc;
	}
	return login_ses(it, &term, m);
}

/* res=WORD of auditd's own records: "failed..." is a failure, any other word a success. */
static int res_word(struct search_items *it, const char *from, int empty)
{
	const char *str = strstr(from, "res="), *t;

	if (it->s->success == SEARCH_UNSET || !str)
		return 0;
	for (t = str + 4; isalpha((unsigned char)*t);)
		t++;
	if (t == str + 4)
		return empty;
	it->success = !(t - (str + 4) >= 6 && !strncmp(str + 4, "failed", 6));
	return 0;
}

/* parse_daemon1 (DAEMON_START, _END, _ABORT, _CONFIG, _ROTATE, _RESUME): from the ')'. */
static int p_daemon1(struct search_items *it, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *mptr = strchr(m, ')'), *term, *str;
	unsigned long v;
	int rc, f;

	mptr = mptr ? mptr : m;
	term = mptr;
	if (search_wants_loginuid(s)) {
		if ((rc = num_field(&term, "auid=", 5, 1, 2, 3, 10, &v, &f)))
			return rc;
		it->loginuid = (uint32_t)v;
		it->loginuid_read = 1;
	}
	if (s->pid != -1) {
		if ((rc = num_field(&term, "pid=", 4, 4, 5, 6, 10, &v, &f)))
			return rc;
		it->pid = (int32_t)v;
	}
	if (search_has_uid(s)) {	/* (no name: ausearch looks none up here) */
		if ((rc = num_field(&term, " uid=", 5, 0, 7, 8, 10, &v, &f)))
			return rc;
		if (f)
			it->uid = (uint32_t)v;
	}
	if ((rc = ses_field(it, &term, "ses=", 9, 10)))
		return rc;
	if (s->subject && (str = strstr(term, "subj=")))
		(void)context_field(it, 0, str + 5, &term, 0);
	return res_word(it, mptr, 12);
}

/* parse_daemon2 (DAEMON_ACCEPT, DAEMON_CLOSE): the peer's addr= (to a ':' or a blank) for
 * -hn, then res=WORD from there. */
static int p_daemon2(struct search_items *it, const char *m)
{
	const char *term = m, *str, *t;

	if (search_wants_str(it, SS_HOST) && (str = strstr(m, "addr="))) {
		str += 5;
		if (!(t = strchr(str, ':')) && !(t = strchr(str, ' ')))
			return 1;
		str_value(it, SS_HOST, str, (size_t)(t - str));
		term = t;
	}
	return res_word(it, term, 2);
}

/* parse_simple_message (CONFIG_CHANGE, MAC_POLICY_LOAD..MAC_UNLBL_STCDEL). */
static int p_simple(struct search_items *it, uint32_t type, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc;

	if (search_wants_loginuid(s)) {
		str = strstr(term, "auid=");
		if (!str && type != 1305)
			return 1;	/* old kernels leave auid out of CONFIG_CHANGE */
		if (str) {
			term = strchr(str + 5, ' ');
			if (rd(str + 5, 10, &v))
				return 2;
			it->loginuid = (uint32_t)v;
			it->loginuid_read = 1;
			if (!term)
				term = str + 5;
		}
	}
	if ((rc = ses_field(it, &term, "ses=", 0, 3)))
		return rc;
	if (s->subject && (str = strstr(term, "subj="))) {
		const char *t = strchr(str + 5, ' ');
		context(it, 0, str + 5, t ? (size_t)(t - str - 5) : strlen(str + 5));
		term = t ? t : str + 5;
	}
	if (s->key && (str = strstr(term, "key="))) {
		if (str[4] == '"' && strchr(str + 5, '"'))
			term = strchr(str + 5, '"');
		if ((rc = key_value(it, str + 4, 6, 8)))
			return rc;
	}
	if (type == 1305)
		it->success = 1;
	return res_num(it, &term, m, 7);
}

/* parse_kernel_anom (SECCOMP, ANOM_PROMISCUOUS, ANOM_ABEND). */
static int p_kernel_anom(struct search_items *it, uint32_t type, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc, f;

	if (search_wants_loginuid(s)) {
		if (!(str = strstr(term, "auid=")))
			return 1;
		term = strchr(str + 5, ' ');
		if (rd(str + 5, 10, &v))
			return 2;
		it->loginuid = (uint32_t)v;
		it->loginuid_read = 1;
		if (!term)
			term = str + 5;
	}
	if (search_wants_uid(s)) {
		if ((rc = num_field(&term, "uid=", 4, 0, 3, 4, 10, &v, &f)))
			return rc;
		if (f) {
			it->uid = (uint32_t)v;
			it->uid_read = 1;
		}
	}
	if (s->gid != SEARCH_NO_ID) {
		if ((rc = num_field(&term, "gid=", 4, 0, 5, 6, 10, &v, &f)))
			return rc;
		if (f)
			it->gid = (uint32_t)v;
	}
	if ((rc = ses_field(it, &term, "ses=", 0, 7)))
		return rc;
	if (type == 1700)
		return 0;	/* ANOM_PROMISCUOUS: nothing else */
	if (s->subject && (str = strstr(term, "subj=")) &&
	    (rc = context_field(it, 0, str + 5, &term, 8)))
		return rc;
	if (s->pid != -1) {
		if ((rc = num_field(&term, "pid=", 4, 0, 10, 11, 10, &v, &f)))
			return rc;
		if (f)
			it->pid = (int32_t)v;
	}
	if ((rc = comm_field(it, &term, 0, 12)))
		return rc;
	if (s->exe) {
		if ((str = strstr(term, "exe="))) {
			if ((rc = exe_value(it, str + 4, &term, 13)))
				return rc;
		} else if (type != 1701) {
			return 14;
		}
	}
	if (type == 1326) {
		if (!strstr(term, "arch="))
			return 0;	/* a few kernels do not write it */
		if ((rc = num_field(&term, "arch=", 5, 0, 15, 16, 16, &v, &f)))
			return rc;
		it->arch = (uint32_t)v;
		if ((rc = num_field(&term, "syscall=", 8, 17, 18, 19, 10, &v, &f)))
			return rc;
		it->syscall = (int)v;
	}
	return res_num(it, &term, m, 68);
}

/* parse_avc's comm= when no earlier record gave one: required; a hex value that does not
 * decode is refused, and moves the cursor 6 bytes into it. */
static int avc_comm(struct search_items *it, const char **term)
{
	const char *str = strstr(*term, "comm=");
	char dec[SEARCH_STR_MAX];

	if (!str)
		return 5;
	str += 5;
	if (*str == '"')
		return str_quoted(it, SS_COMM, str, term, 6);
	if (unesc(str, dec, sizeof(dec)) < 0)
		return 11;
	str_value(it, SS_COMM, dec, strlen(dec));
	*term = str + 6;
	return 0;
}

/* parse_avc (AVC; USER_AVC continues in parse_user, whose codes above 20 it ignores): the
 * permission list must close and a kernel AVC must have tclass=. */
static int p_avc(struct search_items *it, uint32_t type, const char *m)
{
	const char *term = m, *str = strstr(m, "avc: ");
	unsigned long v;
	int rc, f;

	if (str && (term = strchr(str + 5, '{'))) {
		if (it->s->success != SEARCH_UNSET) {
			const char *d = strstr(str + 5, "denied");
			it->success = !(d && d < term);
		}
		if (!(term = strchr(term + 1, '}')))
			return 2;
	} else {
		term = m;
	}
	if (type == 1107) {
		rc = p_user(it, type, m, 1);
		it->has_avc = 1;	/* parse_avc appends its node */
		return rc > 20 ? 0 : rc;
	}
	if (it->s->pid != -1) {
		if ((rc = num_field(&term, "pid=", 4, 0, 3, 4, 10, &v, &f)))
			return rc;
		if (f)
			it->pid = (int32_t)v;
	}
	if (search_wants_str(it, SS_COMM) && !it->has[SS_COMM] && (rc = avc_comm(it, &term)))
		return rc;
	if (it->s->file) {
		const char *nm = strstr(term, " path=");
		if (!nm)
			nm = strstr(term, " name=");
		if (nm) {
			if ((rc = path_value(it, nm + 6)))
				return rc;
			term += 7;	/* ausearch moves 7 bytes on, wherever the name was */
		}
	}
	if (it->s->subject && (str = strstr(term, "scontext=")) &&
	    (rc = context_field(it, 0, str + 9, &term, 7)))
		return rc;
	if (it->s->object && (str = strstr(term, "tcontext=")) &&
	    (rc = context_field(it, 1, str + 9, &term, 8)))
		return rc;
	if (!strstr(term, "tclass="))
		return 9;
	it->has_avc = 1;
	return 0;
}

/* parse_tty (TTY): pid from the start, then " uid=" (read from its '=': 0) and auid=. */
static int p_tty(struct search_items *it, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc, f;

	if (s->pid != -1) {
		if ((rc = num_field(&term, "pid=", 4, 0, 1, 2, 10, &v, &f)))
			return rc;
		if (f)
			it->pid = (int32_t)v;
	}
	if (search_wants_uid(s)) {
		if ((rc = num_field(&term, " uid=", 4, 0, 3, 4, 10, &v, &f)))
			return rc;
		if (f) {
			it->uid = (uint32_t)v;
			it->uid_read = 1;
		}
	}
	if (search_wants_loginuid(s)) {
		if (!(str = strstr(term, "auid=")))
			return 5;
		const char *t = strchr(str + 5, ' ');
		if (rd(str + 5, 10, &v))
			return 6;
		it->loginuid = (uint32_t)v;
		it->loginuid_read = 1;
		term = t ? t : str + 5;
	}
	if ((rc = ses_field(it, &term, "ses=", 7, 8)))
		return rc;
	return comm_field(it, &term, 0, 11);
}

/* parse_integrity (INTEGRITY_DATA..INTEGRITY_RULE): pid= always read. */
static int p_integrity(struct search_items *it, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc, f;

	if ((rc = num_field(&term, "pid=", 4, 0, 1, 2, 10, &v, &f)))
		return rc;
	if (f)
		it->pid = (int32_t)v;
	if (search_wants_uid(s)) {
		if ((rc = num_field(&term, " uid=", 4, 0, 3, 4, 10, &v, &f)))
			return rc;
		if (f) {
			it->uid = (uint32_t)v;
			it->uid_read = 1;
		}
	}
	if (search_wants_loginuid(s) && (str = strstr(m, "auid="))) {
		const char *t = strchr(str + 5, ' ');
		if (!t)
			return 5;
		if (rd(str + 5, 10, &v))
			return 6;
		it->loginuid = (uint32_t)v;
		it->loginuid_read = 1;
		term = t;
	}
	if ((rc = ses_field(it, &term, "ses=", 10, 11)))
		return rc;
	if (s->subject && (str = strstr(term, "subj=")) &&
	    (rc = context_field(it, 0, str + 5, &term, 12)))
		return rc;
	if ((rc = comm_field(it, &term, 0, 7)))
		return rc;
	if (s->file && (str = strstr(term, " name=")) && path_value(it, str + 6))
		return 8;
	return res_num(it, &term, m, 9);
}

/* parse_kernel's tty, session, subject and comm, each only when no earlier record gave it,
 * with its defaults: "(none)", session -1; a missing subj= or comm= is refused. */
static int kernel_fill(struct search_items *it, const char **term)
{
	const struct sp_audit_search *s = it->s;
	const char *str;
	int rc;

	if (search_wants_str(it, SS_TERMINAL) && !it->has[SS_TERMINAL]) {
		if ((str = strstr(*term, "tty="))) {
			const char *t = strchr(str + 4, ' ');
			if (!t)
				return 59;
			str_value(it, SS_TERMINAL, str + 4, (size_t)(t - str - 4));
			*term = t;
		} else {
			str_value(it, SS_TERMINAL, "(none)", 6);
		}
	}
	if (s->session != SEARCH_NO_SES && it->session == SEARCH_NO_SES) {
		if (!strstr(*term, "ses="))
			it->session = UINT32_MAX;
		else if ((rc = ses_field(it, term, "ses=", 60, 61)))
			return rc;
	}
	if (s->subject && !it->has_avc) {
		if (!(str = strstr(*term, "subj=")))
			return 64;
		if ((rc = context_field(it, 0, str + 5, term, 62)))
			return rc;
	}
	if (search_wants_str(it, SS_COMM) && !it->has[SS_COMM])
		return comm_field(it, term, 66, 65);
	return 0;
}

/* parse_kernel (NETFILTER_CFG, EVENT_LISTENER): fills what no earlier record filled. */
static int p_kernel(struct search_items *it, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc, f;

	if (s->pid != -1 && it->pid == -1) {
		if ((rc = num_field(&term, " pid=", 5, 54, 52, 53, 10, &v, &f)))
			return rc;
		it->pid = (int32_t)v;
	}
	if (search_wants_uid(s) && it->uid == SEARCH_NO_ID && !it->uid_read) {
		if ((rc = num_field(&term, "uid=", 4, 0, 55, 56, 10, &v, &f)))
			return rc;
		it->uid = f ? (uint32_t)v : 0;
		it->uid_read = 1;
	}
	if (search_wants_loginuid(s) && it->loginuid == SEARCH_NO_SES && !it->loginuid_read) {
		if ((rc = num_field(&term, "auid=", 5, 0, 57, 58, 10, &v, &f)))
			return rc;
		it->loginuid = f ? (uint32_t)v : UINT32_MAX;
		it->loginuid_read = 1;
	}
	if ((rc = kernel_fill(it, &term)))
		return rc;
	if (s->exe && !it->has_exe) {
		if ((str = strstr(m, "exe="))) {
			if ((rc = exe_value(it, str + 4, &term, 67)))
				return rc;
		} else {
			set_exe(it, "(null)", 6);
		}
	}
	return res_num(it, &term, m, 69);
}

static int in(uint32_t t, uint32_t lo, uint32_t hi)
{
	return t >= lo && t <= hi;
}

int search_items_record(struct search_items *it, uint32_t type, const char *m)
{
	if (type == 1300)
		return p_syscall(it, m);
	if (type == 1006)
		return p_login(it, m);
	if (type == 1005 || in(type, 1100, 1106) || in(type, 1108, 1199) || in(type, 2100, 2999))
		return p_user(it, type, m, 0);
	if (type == 1302)
		return p_path(it, m);
	if (type == 1307)
		return p_dir(it, m);
	if (type == 1402)
		return p_avc_path(it, m);
	if (type == 1306)
		return p_sockaddr(it, m);
	if (type == 1305) {
		int rc = p_simple(it, type, m);
		(void)p_avc_path(it, m);	/* older events have no path=: not checked */
		return rc;
	}
	if (in(type, 1200, 1203) || type == 1205 || type == 1206)
		return p_daemon1(it, m);
	if (type == 1207 || type == 1208)
		return p_daemon2(it, m);
	if (type == 1305 || in(type, 1403, 1417))
		return p_simple(it, type, m);
	if (type == 1400 || type == 1107)
		return p_avc(it, type, m);
	if (type == 1328 || type == 1702)
		return p_task_info(it, m);
	if (type == 1326 || type == 1700 || type == 1701)
		return p_kernel_anom(it, type, m);
	if (in(type, 1800, 1805))
		return p_integrity(it, m);
	if (type == 1325 || type == 1335)
		return p_kernel(it, m);
	if (type == 1319)
		return p_tty(it, m);
	if (type == 1303 || type == 1318)
		return p_obj(it, m);
	if (type == 1324)
		return p_pkt(it, m);
	return 0;
}
