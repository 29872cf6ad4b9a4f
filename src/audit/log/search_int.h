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
#define SEARCH_NO_ID UINT32_MAX		/* uids and gids: ausearch's (uid_t)-1 */
#define SEARCH_NO_SES 0xfffffffeu	/* session, login uid: ausearch's -2 */
#define SEARCH_MAX_NODES 16

/* The string criteria matched with strmatch() against one value an event yields (the last
 * record's wins, as ausearch's search_items fields are overwritten). */
enum search_str {
	SS_TERMINAL,			/* -tm */
	SS_COMM,			/* --comm */
	SS_HOST,			/* -hn */
	SS_VM,				/* -vm */
	SS_UUID,			/* -uu */
	SS_N
};

/* User names given to -ui/-ue/-ul/-ua (ausearch's event_tuid, _teuid, _tauid). */
enum search_name { SN_UID, SN_EUID, SN_AUID, SN_N };

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
	uint32_t euid, gid, egid;	/* -ue, -gi, -ge: SEARCH_NO_ID = none */
	int ua, ga;			/* -ua, -ga: any of the ids matches */
	char *name[SN_N];		/* -ui/-ue/-ul/-ua NAME: matched as names */
	uint32_t session;		/* --session: SEARCH_NO_SES = none */
	int exit_set;			/* -e */
	int64_t exit;
	char *str[SS_N];		/* the string criteria, or NULL */
	char *subject, *object;		/* -su, -o (-se sets both and `se`) */
	int se;
	char *node[SEARCH_MAX_NODES];	/* -n: the event's node equals one of them */
	size_t nnodes;
};

static inline int search_has_uid(const struct sp_audit_search *s)
{
	return s->uid != UINT32_MAX;
}

static inline int search_has_loginuid(const struct sp_audit_search *s)
{
	return s->loginuid != SEARCH_NO_SES;
}

/* ausearch's "event_uid != -1 || event_tuid" (and the euid and login uid forms). */
static inline int search_wants_uid(const struct sp_audit_search *s)
{
	return s->uid != SEARCH_NO_ID || s->name[SN_UID];
}

static inline int search_wants_euid(const struct sp_audit_search *s)
{
	return s->euid != SEARCH_NO_ID || s->name[SN_EUID];
}

static inline int search_wants_loginuid(const struct sp_audit_search *s)
{
	return s->loginuid != SEARCH_NO_SES || s->name[SN_AUID];
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

/* The string values aureport prints (keep[k]: stored in val[k] as read). */
enum { SEARCH_NVAL = SS_HOST + 1 };	/* SS_TERMINAL, SS_COMM, SS_HOST */

struct search_items {
	const struct sp_audit_search *s;
	/* aureport (report.c) only; sink NULL and keep[] 0 for ausearch's selection */
	const struct search_sink *sink;
	uint8_t keep[SEARCH_NVAL];
	int has_acct, sink_err;
	int syscall;			/* 0 when no record gave one */
	uint32_t arch;
	int has_key, key_hit;
	int32_t pid, ppid;
	uint32_t uid, loginuid;
	int success;
	int has_exe;			/* exe holds a string (ausearch: s->exe != NULL) */
	/* -f: ausearch's file name list is matched as it is built (has_files: the list exists,
	 * file_hit: a name in it matched); the cwd is kept for relative names and the end */
	int has_files, file_hit, has_cwd;
	uint32_t euid, gid, egid, session;
	int uid_read, euid_read, loginuid_read; /* ausearch's tuid/teuid/tauid were set */
	int exit_set;
	int64_t exit;
	uint8_t has[SS_N], hit[SS_N];	/* a value was read; it matched its criterion */
	int has_avc, subj_hit, obj_hit;	/* ausearch's avc list exists; a context matched */
	/* last: search_items_init clears the fields above only (these are read once set) */
	char exe[SEARCH_STR_MAX];
	char cwd[SEARCH_STR_MAX];
	char val[SEARCH_NVAL][SEARCH_STR_MAX];	/* keep[k]: the value of has[k] */
	char acct[SEARCH_STR_MAX];		/* parse_user's acct= (has_acct) */
};

void search_items_init(struct search_items *it, const struct sp_audit_search *s);
/* One record (text to its first 0x1D, NUL-terminated): 0, or ausearch's non-zero code for a
 * record it cannot parse for these criteria (the event is then not selected). */
int search_items_record(struct search_items *it, uint32_t type, const char *m);
/* The value of `field` (any case) in an ENRICHED part (len bytes after the 0x1D), quotes
 * removed, into out: 1, or 0 when absent or longer than cap - 1. */
int search_interp(const char *p, size_t len, const char *field, char *out, size_t cap);
/* A record's text to its first 0x1D (the ENRICHED part cut), NUL-terminated in buf (cut to
 * cap - 1 bytes). */
struct sp_audit_log_rec;
const char *search_rec_text(const struct sp_audit_log_rec *r, char *buf, size_t cap);

/* The field for string criterion k is read: the selection has it, or aureport keeps it. */
static inline int search_wants_str(const struct search_items *it, int k)
{
	return it->s->str[k] || (k < SEARCH_NVAL && it->keep[k]);
}

#endif
