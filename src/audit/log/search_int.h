/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search_int.h - what search.c (ausearch's options and match()) and search_parse.c (its
 * extract_search_items()) share: the criteria, and the fields one event yields.
 *
 * Invariants: a criterion's "none" value is ausearch's (-1 for pids and uids, -2 for the login
 * uid, SEARCH_UNSET for success); an item field starts at ausearch's default (list_create() in
 * ausearch-llist.c) and a later record overrides an earlier one, as there.
 */
#ifndef SECPATH_AUDIT_LOG_SEARCH_INT_H
#define SECPATH_AUDIT_LOG_SEARCH_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SEARCH_MAX_TYPES 64
#define SEARCH_STR_MAX 4096
#define SEARCH_UNSET (-1)		/* success: S_UNSET; 0 = S_FAILED, 1 = S_SUCCESS */

struct sp_audit_search {
	char *key;			/* -k, or NULL */
	int word;			/* -w: exact string matches */
	uint32_t types[SEARCH_MAX_TYPES]; /* -m */
	size_t ntypes;
	int syscall_set;		/* -sc */
	int syscall;
	int machine;			/* set by -sc NAME: the host's (AUDIT_MACH_*), else -1 */
	int64_t start, end;		/* -ts/-te in seconds, 0 = none */
	int64_t now;			/* the clock the keywords read */
	int32_t pid, ppid;		/* -p, -pp: -1 = none */
	int32_t event_id;		/* -a: -1 = none (ausearch's int: 4294967295 is none too) */
	int given;			/* an option was set (even to its "none" value) */
	uint32_t uid;			/* -ui: UINT32_MAX (-1) = none */
	uint32_t loginuid;		/* -ul: 0xfffffffe (-2) = none */
	int success;			/* -sv: SEARCH_UNSET, 0, 1 */
	char *exe;			/* -x, or NULL */
	char *file;			/* -f, or NULL */
};

static inline int search_has_uid(const struct sp_audit_search *s)
{
	return s->uid != UINT32_MAX;
}

static inline int search_has_loginuid(const struct sp_audit_search *s)
{
	return s->loginuid != 0xfffffffeu;
}

/* ausearch's strmatch(): needle within hay, or equal to it with -w. */
static inline int search_strmatch(const struct sp_audit_search *s, const char *needle,
				  const char *hay)
{
	return s->word ? !strcmp(hay, needle) : strstr(hay, needle) != NULL;
}

/* aureport's per-event lists (report.c): every file name and key the parsers find, in order;
 * ftype gives the text after the PATH record's "type=" for the name just added. */
struct search_sink {
	int (*file)(void *ud, const char *name);
	void (*ftype)(void *ud, const char *rest);
	int (*key)(void *ud, const char *key);
	void *ud;
};

struct search_items {
	const struct sp_audit_search *s;
	/* aureport (report.c) only; sink NULL and want_* 0 for ausearch's selection */
	const struct search_sink *sink;
	int want_term, want_comm, want_host;	/* event_terminal, _comm, _hostname */
	int has_term, has_comm, has_host, has_acct, sink_err;
	char term[SEARCH_STR_MAX], comm[SEARCH_STR_MAX], host[SEARCH_STR_MAX], acct[SEARCH_STR_MAX];
	int syscall;			/* 0 when no record gave one */
	uint32_t arch;
	int has_key, key_hit;
	int32_t pid, ppid;
	uint32_t uid, loginuid;
	int success;
	int has_exe;			/* exe holds a string (ausearch: s->exe != NULL) */
	char exe[SEARCH_STR_MAX];
	/* -f: ausearch's file name list is matched as it is built (has_files: the list exists,
	 * file_hit: a name in it matched); the cwd is kept for relative names and the end */
	int has_files, file_hit, has_cwd;
	char cwd[SEARCH_STR_MAX];
};

void search_items_init(struct search_items *it, const struct sp_audit_search *s);
/* One record (text to its first 0x1D, NUL-terminated): 0, or ausearch's non-zero code for a
 * record it cannot parse for these criteria (the event is then not selected). */
int search_items_record(struct search_items *it, uint32_t type, const char *m);
/* A record's text to its first 0x1D (the ENRICHED part cut), NUL-terminated in buf (cut to
 * cap - 1 bytes). */
struct sp_audit_log_rec;
const char *search_rec_text(const struct sp_audit_log_rec *r, char *buf, size_t cap);

#endif
