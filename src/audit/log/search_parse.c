/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search_parse.c - ausearch 3.0.9's extract_search_items() (src/ausearch-parse.c) for the
 * criteria secpath takes: the fields a record yields for -k, -sc, -p, -pp, -ui, -ul, -x, -sv, -f,
 * and the records ausearch refuses, which take their whole event out of every search.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netdb.h>
#include <sys/socket.h>

#include "audit/log/search_int.h"

void search_items_init(struct search_items *it, const struct sp_audit_search *s)
{
	memset(it, 0, sizeof(*it));
	it->s = s;
	it->pid = it->ppid = -1;
	it->uid = UINT32_MAX;
	it->loginuid = 0xfffffffeu;
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

/* A field value of n bytes into a SEARCH_STR_MAX buffer (cut to fit). */
static void set_str(char *dst, int *has, const char *v, size_t n)
{
	n = n < SEARCH_STR_MAX ? n : SEARCH_STR_MAX - 1;
	memmove(dst, v, n);
	dst[n] = 0;
	*has = 1;
}

static void set_exe(struct search_items *it, const char *v, size_t n)
{
	n = n < sizeof(it->exe) ? n : sizeof(it->exe) - 1;
	memcpy(it->exe, v, n);
	it->exe[n] = 0;
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
	n = n < sizeof(one) ? n : sizeof(one) - 1;
	memcpy(one, k, n);
	one[n] = 0;
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
		size_t n = (size_t)(e - path - 1);
		n = n < sizeof(name) ? n : sizeof(name) - 1;
		memcpy(name, path + 1, n);
		name[n] = 0;
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
	n = n < sizeof(it->cwd) ? n : sizeof(it->cwd) - 1;
	memcpy(it->cwd, v, n);
	it->cwd[n] = 0;
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

/* parse_path (PATH): its name=, 28 bytes in. */
static int p_path(struct search_items *it, const char *m)
{
	const char *str = strlen(m) > 28 ? strstr(m + 28, " name=") : NULL, *t;
	int rc;

	if (!it->s->file || !str)
		return 0;
	if ((rc = path_value(it, str + 6)))
		return rc;
	/* the list's key: all the text after the next "type=" (nametype= or objtype=) */
	if (it->sink && (t = strstr(str + 6, "type=")))
		it->sink->ftype(it->sink->ud, t + 5);
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

/* parse_sockaddr's getnameinfo(NI_NUMERICHOST) of an AF_INET/AF_INET6 address (none when it
 * fails). */
static void sock_host(struct search_items *it, const unsigned char *raw, size_t len)
{
	struct sockaddr_storage ss;

	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, raw, len);
	ss.ss_family = (sa_family_t)(raw[0] | raw[1] << 8);
	if (!getnameinfo((struct sockaddr *)&ss, (socklen_t)len, it->host, sizeof(it->host), NULL,
			 0, NI_NUMERICHOST))
		it->has_host = 1;
}

/* parse_sockaddr for -f: an AF_UNIX sun_path (abstract: after its NUL) is a file name; short
 * AF_INET/AF_INET6/AF_UNIX addresses are refused, other families ignored. */
static int p_sockaddr(struct search_items *it, const char *m)
{
	const char *str = strstr(m, "saddr=");
	unsigned char raw[SEARCH_STR_MAX];
	size_t len = 0;
	int n;

	if ((!it->s->file && !it->want_host) || !str)
		return 0;
	str += 6;
	it->has_host = 0;	/* ausearch's hostname holds the decoded bytes until the family */
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
	if (fam == 2 && len < 16)
		return 1;
	if (fam == 10 && len < 28)
		return 2;
	if ((fam == 2 || fam == 10) && it->want_host)
		sock_host(it, raw, fam == 2 ? 16 : 28);
	if (fam != 1 || !it->s->file)
		return fam == 1 && len < 4 ? 3 : 0;
	if (len < 4)
		return 3;
	it->has_files = 1;
	raw[len] = 0;
	file_name(it, (const char *)(raw[2] ? raw + 2 : raw + 3));
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

/* A quoted ("..." up to the next quote: *term moves there, else `noquote`) or unescape()d
 * string value at v into dst. */
static int str_value(char *dst, int *has, const char *v, const char **term, int noquote)
{
	if (*v == '"') {
		const char *e = strchr(v + 1, '"');
		if (!e)
			return noquote;
		set_str(dst, has, v + 1, (size_t)(e - v - 1));
		*term = e;
		return 0;
	}
	*has = unesc(v, dst, SEARCH_STR_MAX) >= 0;
	return 0;
}

/* parse_task_info's tty= (optional) and comm= (required) for aureport, from the cursor. */
static int task_term_comm(struct search_items *it, const char **term)
{
	const char *str, *t;

	if (it->want_term && (str = strstr(*term, "tty="))) {
		if (!(t = strchr(str + 4, ' ')))
			return 34;
		set_str(it->term, &it->has_term, str + 4, (size_t)(t - str - 4));
		*term = t;
	}
	if (!it->want_comm)
		return 0;
	if (!(str = strstr(*term, "comm=")))
		return 38;
	it->has_comm = 0;	/* the syscall's comm overrides */
	return str_value(it->comm, &it->has_comm, str + 5, term, 37);
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
	if (search_has_loginuid(s)) {
		const char *name = strstr(term, "auid=") ? "auid=" : "loginuid=";
		if ((rc = num_field(&term, name, (int)strlen(name), 19, 20, 21, 10, &v, &f)))
			return rc;
		it->loginuid = (uint32_t)v;
	}
	if (search_has_uid(s)) {
		while ((str = strstr(term, "uid=")) && str > m && str[-1] == 'a')
			term = str + 1;	/* an auid=: try again after it */
		if ((rc = num_field(&term, "uid=", 4, 22, 23, 24, 10, &v, &f)))
			return rc;
		it->uid = (uint32_t)v;
	}
	if ((rc = task_term_comm(it, &term)))
		return rc;
	if (s->exe) {
		if (!(str = strstr(m, "exe=")))
			return 40;
		if ((rc = exe_value(it, str + 4, &term, 39)))
			return rc;
	}
	return res_num(it, &term, m, 43);
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

/* parse_user's acct= at p: quoted (to the next quote or the end), legacy text, or hex;
 * *term moves past it. */
static void user_acct(struct search_items *it, const char *p, const char **term)
{
	const char *t = *p ? p + 1 : p, *end = p;
	int legacy = 0;

	if (*p == '"') {
		while (*t != '"' && *t)
			t++;
		set_str(it->acct, &it->has_acct, p + 1, (size_t)(t - p - 1));
		*term = t;
		return;
	}
	for (; *end != ' ' && *end; end++)
		legacy |= !isxdigit((unsigned char)*end);
	*term = end;
	if (legacy)
		set_str(it->acct, &it->has_acct, p, (size_t)(end - p));
	else
		it->has_acct = unesc(p, it->acct, sizeof(it->acct)) >= 0;
}

/* A value that ends at the first ',' of the rest of the record, else at a blank. */
static const char *comma_or_blank(const char *v)
{
	const char *t = strchr(v, ',');
	return t ? t : strchr(v, ' ');
}

/* parse_user's hostname=, or its addr= when the hostname is "?". */
static int user_host(struct search_items *it, const char *mptr)
{
	const char *str = strstr(mptr, "hostname="), *t;

	if (!str)
		return 0;
	str += 9;
	if (!(t = comma_or_blank(str)))
		return 17;
	set_str(it->host, &it->has_host, str, (size_t)(t - str));
	if (strcmp(it->host, "?") || !(str = strstr(t + 1, "addr=")))
		return 0;
	str += 5;
	if (!(t = comma_or_blank(str)))
		return 18;
	set_str(it->host, &it->has_host, str, (size_t)(t - str));
	return 0;
}

/* parse_user, from acct= on: the cursor after acct=, then exe= (legacy unquoted text kept)
 * and res=/result= from it. */
static int p_user_tail(struct search_items *it, const char *mptr)
{
	const char *str, *term = mptr;
	int rc;

	if (it->want_comm && (str = strstr(mptr, "comm=")) &&
	    (rc = str_value(it->comm, &it->has_comm, str + 5, &term, 16)))
		return rc;
	if ((str = strstr(mptr, "acct=")))
		user_acct(it, str + 5, &term);
	mptr = term;
	if (it->want_host && (rc = user_host(it, mptr)))
		return rc;
	if (it->s->file && (str = strstr(mptr, "cwd=")) && (rc = user_cwd(it, str + 4)))
		return rc;
	if (it->want_term && (str = strstr(mptr, "terminal="))) {
		const char *t = strchr(str + 9, ' ');
		if (!t && !(t = strchr(str + 9, ')')))
			return 19;
		set_str(it->term, &it->has_term, str + 9, (size_t)(t - str - 9));
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
	if (search_has_uid(it->s)) {
		if ((rc = num_field(term, "uid=", 4, 4, 5, 6, 10, &v, &f)))
			return rc;
		it->uid = (uint32_t)v;
	}
	return 0;
}

/* parse_user (USER, the user-space message ranges; USER_AVC through p_avc). */
static int p_user(struct search_items *it, uint32_t type, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m;
	unsigned long v;
	int rc, f;

	if ((rc = pid_then_uid(it, &term)))
		return rc;
	if (search_has_loginuid(s)) {
		const char *name = strstr(term, "auid=") ? "auid=" : "loginuid=";
		if ((rc = num_field(&term, name, (int)strlen(name), 7, 8, 9, 10, &v, &f)))
			return rc;
		it->loginuid = (uint32_t)v;
	}
	if (type == 2501 && s->file) {	/* VIRT_RESOURCE: its path= or new-disk= */
		const char *str = strstr(term, " path="), *val = str ? str + 6 : NULL;
		if (!str && (str = strstr(term, " new-disk=")))
			val = str + 10;
		if (val && (rc = path_value(it, val)))
			return rc;
		if (val)
			term = val;
	}
	if (search_has_uid(s) && (rc = p_user_uid2(it, &term)))
		return rc;
	return p_user_tail(it, term);
}

/* parse_login (LOGIN): pid, uid, the new login uid, res= (absent: a success), in that order. */
static int p_login(struct search_items *it, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str, *ptr;
	unsigned long v;
	int rc;

	if ((rc = pid_then_uid(it, &term)))
		return rc;
	if (search_has_loginuid(s)) {
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
	}
	if (s->success != SEARCH_UNSET) {
		if (!term)
			term = m;
		if (!strstr(term, "res=")) {
			it->success = 1;	/* older kernels: always a success */
			return 0;
		}
	}
	return res_num(it, &term, m, 9);
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
	const char *mptr = strchr(m, ')'), *term;
	unsigned long v;
	int rc, f;

	mptr = mptr ? mptr : m;
	term = mptr;
	if (search_has_loginuid(s)) {
		if ((rc = num_field(&term, "auid=", 5, 1, 2, 3, 10, &v, &f)))
			return rc;
		it->loginuid = (uint32_t)v;
	}
	if (s->pid != -1) {
		if ((rc = num_field(&term, "pid=", 4, 4, 5, 6, 10, &v, &f)))
			return rc;
		it->pid = (int32_t)v;
	}
	if (search_has_uid(s)) {
		if ((rc = num_field(&term, " uid=", 5, 0, 7, 8, 10, &v, &f)))
			return rc;
		if (f)
			it->uid = (uint32_t)v;
	}
	return res_word(it, mptr, 12);
}

/* parse_daemon2 (DAEMON_ACCEPT, DAEMON_CLOSE): aureport's host from addr= (to a ':' or a
 * blank), then res= after it. */
static int p_daemon2(struct search_items *it, const char *m)
{
	const char *str = it->want_host ? strstr(m, "addr=") : NULL, *t = m;

	if (str) {
		str += 5;
		if (!(t = strchr(str, ':')) && !(t = strchr(str, ' ')))
			return 1;
		set_str(it->host, &it->has_host, str, (size_t)(t - str));
	}
	return res_word(it, t, 2);
}

/* parse_simple_message (CONFIG_CHANGE, MAC_POLICY_LOAD..MAC_UNLBL_STCDEL). */
static int p_simple(struct search_items *it, uint32_t type, const char *m)
{
	const struct sp_audit_search *s = it->s;
	const char *term = m, *str;
	unsigned long v;
	int rc;

	if (search_has_loginuid(s)) {
		str = strstr(term, "auid=");
		if (!str && type != 1305)
			return 1;	/* old kernels leave auid out of CONFIG_CHANGE */
		if (str) {
			term = strchr(str + 5, ' ');
			if (rd(str + 5, 10, &v))
				return 2;
			it->loginuid = (uint32_t)v;
			if (!term)
				term = str + 5;
		}
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

	if (search_has_loginuid(s)) {
		if (!(str = strstr(term, "auid=")))
			return 1;
		term = strchr(str + 5, ' ');
		if (rd(str + 5, 10, &v))
			return 2;
		it->loginuid = (uint32_t)v;
		if (!term)
			term = str + 5;
	}
	if (search_has_uid(s)) {
		if ((rc = num_field(&term, "uid=", 4, 0, 3, 4, 10, &v, &f)))
			return rc;
		if (f)
			it->uid = (uint32_t)v;
	}
	if (type == 1700)
		return 0;	/* ANOM_PROMISCUOUS: nothing else */
	if (s->pid != -1) {
		if ((rc = num_field(&term, "pid=", 4, 0, 10, 11, 10, &v, &f)))
			return rc;
		if (f)
			it->pid = (int32_t)v;
	}
	if (it->want_comm && (str = strstr(term, "comm=")) &&
	    (rc = str_value(it->comm, &it->has_comm, str + 5, &term, 12)))
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
		rc = p_user(it, type, m);
		return rc > 20 ? 0 : rc;
	}
	if (it->s->pid != -1) {
		if ((rc = num_field(&term, "pid=", 4, 0, 3, 4, 10, &v, &f)))
			return rc;
		if (f)
			it->pid = (int32_t)v;
	}
	if (it->want_comm && !it->has_comm) {	/* aureport: a kernel AVC needs its comm= */
		str = strstr(term, "comm=");
		if (!str)
			return 5;
		if (str[5] != '"' && unesc(str + 5, it->comm, sizeof(it->comm)) < 0)
			return 11;
		if (str[5] != '"')
			it->has_comm = 1, term = str + 11;
		else if ((rc = str_value(it->comm, &it->has_comm, str + 5, &term, 6)))
			return rc;
	}
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
	return strstr(term, "tclass=") ? 0 : 9;
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
	if (search_has_uid(s)) {
		if ((rc = num_field(&term, " uid=", 4, 0, 3, 4, 10, &v, &f)))
			return rc;
		if (f)
			it->uid = (uint32_t)v;
	}
	if (search_has_loginuid(s)) {
		if (!(str = strstr(term, "auid=")))
			return 5;
		if (rd(str + 5, 10, &v))
			return 6;
		it->loginuid = (uint32_t)v;
		term = strchr(str + 5, ' ') ? strchr(str + 5, ' ') : str + 5;
	}
	if (it->want_comm && (str = strstr(term, "comm=")))
		return str_value(it->comm, &it->has_comm, str + 5, &term, 11);
	return 0;
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
	if (search_has_uid(s)) {
		if ((rc = num_field(&term, " uid=", 4, 0, 3, 4, 10, &v, &f)))
			return rc;
		if (f)
			it->uid = (uint32_t)v;
	}
	if (search_has_loginuid(s) && (str = strstr(m, "auid="))) {
		const char *t = strchr(str + 5, ' ');
		if (!t)
			return 5;
		if (rd(str + 5, 10, &v))
			return 6;
		it->loginuid = (uint32_t)v;
		term = t;
	}
	if (it->want_comm && (str = strstr(term, "comm=")) &&
	    (rc = str_value(it->comm, &it->has_comm, str + 5, &term, 7)))
		return rc;
	if (s->file && (str = strstr(term, " name=")) && path_value(it, str + 6))
		return 8;
	return res_num(it, &term, m, 9);
}

/* parse_kernel's tty= (absent: "(none)") and comm= (required) for aureport, each only when no
 * earlier record gave one. */
static int kernel_term_comm(struct search_items *it, const char **term)
{
	const char *str, *t;

	if (it->want_term && !it->has_term) {
		if ((str = strstr(*term, "tty="))) {
			if (!(t = strchr(str + 4, ' ')))
				return 59;
			set_str(it->term, &it->has_term, str + 4, (size_t)(t - str - 4));
			*term = t;
		} else {
			set_str(it->term, &it->has_term, "(none)", 6);
		}
	}
	if (!it->want_comm || it->has_comm)
		return 0;
	if (!(str = strstr(*term, "comm=")))
		return 66;
	return str_value(it->comm, &it->has_comm, str + 5, term, 65);
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
	if (search_has_uid(s) && it->uid == UINT32_MAX) {
		if ((rc = num_field(&term, "uid=", 4, 0, 55, 56, 10, &v, &f)))
			return rc;
		it->uid = f ? (uint32_t)v : 0;
	}
	if (search_has_loginuid(s) && it->loginuid == 0xfffffffeu) {
		if ((rc = num_field(&term, "auid=", 5, 0, 57, 58, 10, &v, &f)))
			return rc;
		it->loginuid = f ? (uint32_t)v : UINT32_MAX;
	}
	if ((rc = kernel_term_comm(it, &term)))
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
		return p_user(it, type, m);
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
	return 0;
}
