/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * log_int.h - the audit.log reader's event layout, shared by log_read.c (line parsing and
 * grouping), log/build.c (filter inputs) and log/replay.c.
 *
 * Invariants: an open event owns one arena holding its raw lines and the decoded strings its
 * parsed fields point to (as offsets: the arena may move while the event is open); rec[i].text
 * is fixed up from rec_off[i] only when the event is handed to the callback.  Every field that
 * is "present" was validated when its record arrived, so building filter inputs cannot fail
 * except for memory.
 */
#ifndef SP_AUDIT_LOG_INT_H
#define SP_AUDIT_LOG_INT_H

#include <stdint.h>
#include <stddef.h>
#include "secpath/audit_log.h"

#define LOG_MAX_NAMES 32u
#define LOG_EVENT_MAX_RECS 4096u	/* an event with more records is closed and restarted */
#define LOG_EVENT_MAX_BYTES (8u << 20)
#define LOG_BORROWED UINT32_MAX	/* rec_off: the line is still in the caller's buffer */

/* Record type numbers the reader looks at. */
enum {
	LT_USER = 1005, LT_LOGIN = 1006, LT_USER_FIRST = 1100, LT_USER_LAST = 1199,
	LT_DAEMON_FIRST = 1200, LT_DAEMON_LAST = 1299, LT_SYSCALL = 1300, LT_PATH = 1302,
	LT_SOCKADDR = 1306, LT_CWD = 1307, LT_EXECVE = 1309, LT_EOE = 1320, LT_PROCTITLE = 1327,
	LT_URINGOP = 1336, LT_OPENAT2 = 1337, LT_USER2_FIRST = 2100, LT_USER2_LAST = 2999,
};

/* A string in the arena: off/len, present when len != UINT32_MAX. */
struct log_str {
	uint32_t off, len;
};
#define LOG_STR_NONE ((struct log_str){ 0, UINT32_MAX })

struct log_name {
	int32_t item;
	uint8_t has_ino;
	uint64_t ino;
	uint32_t dev, rdev, mode, uid, gid;
	struct log_str name, obj;
};

/* Task fields of the event: from SYSCALL/URINGOP, else from the first record carrying them. */
struct log_task {
	uint8_t present;
	uint32_t pid, ppid, uid, euid, suid, fsuid, gid, egid, sgid, fsgid, auid, ses, per;
	struct log_str exe, subj;
};

struct sp_audit_log_event {
	uint64_t sec;
	uint32_t msec, serial;
	uint64_t node_hash;
	struct log_str node;
	uint64_t seq;			/* arrival order of the first record */
	int open;
	unsigned need;			/* LOG_NEED_*: the parts of bodies decoded */
	char *arena;
	size_t alen, acap;
	/* the records' lines: in the arena at rec_off[i], or (LOG_BORROWED) still in the buffer
	 * being fed at rec[i].text, blen bytes of them (moved to the arena before the feed
	 * returns, so only an event closed within the feed that read its lines sees them there) */
	size_t blen;
	struct sp_audit_log_rec *rec;
	uint32_t *rec_off;
	size_t nrec, rcap;
	/* parsed filter inputs */
	uint8_t has_syscall, has_uring, has_ret, has_cwd, has_oflag, has_user, has_daemon;
	uint32_t user_type;
	uint32_t arch;
	int32_t nr;
	uint64_t a[4];
	int64_t exit;
	struct log_task task;
	struct log_str cwd;
	int32_t saddr_fam;
	uint64_t oflag;
	uint32_t nnames;
	struct log_name names[LOG_MAX_NAMES];
	const char *node_cstr;		/* fixed up at close */
};

static inline const char *log_str_at(const struct sp_audit_log_event *ev, struct log_str s)
{
	return s.len == UINT32_MAX ? NULL : ev->arena + s.off;
}

/* 1 for user-space message types (1005, 1100-1199, 2100-2999). */
static inline int log_type_is_user(uint32_t t)
{
	return t == LT_USER || (t >= LT_USER_FIRST && t <= LT_USER_LAST) ||
	       (t >= LT_USER2_FIRST && t <= LT_USER2_LAST);
}

static inline int log_type_is_daemon(uint32_t t)
{
	return t >= LT_DAEMON_FIRST && t <= LT_DAEMON_LAST;
}

/* The companion types 1300..1337 as bits t - 1300: 1300, 1302-1304, 1306-1307, 1309, 1311-1315,
 * 1317-1318, 1320-1323, 1327, 1330, 1332-1333, 1336-1337. */
#define COMPANION_BASE 1300u
#define COMPANION_BITS                                                                             \
	((1ull << 0) | (7ull << 2) | (3ull << 6) | (1ull << 9) | (31ull << 11) | (3ull << 17) |   \
	 (15ull << 20) | (1ull << 27) | (1ull << 30) | (3ull << 32) | (3ull << 36))

/* sp_audit_log_type_is_companion, inline for the per-record loops */
static inline int log_type_is_companion(uint32_t t)
{
	return t - COMPANION_BASE < 64 && (COMPANION_BITS >> (t - COMPANION_BASE) & 1);
}

/* What the filter inputs must carry (rules that cannot look at a part let the build skip it). */
#define LOG_NEED_LSM	0x1u	/* subject/object contexts (subj_*, obj_* fields) */
#define LOG_NEED_PATH	0x2u	/* name paths (watches, dir rules) */
#define LOG_NEED_ALL	0x3u
int audit_log_event_build(const struct sp_audit_log_event *e, const struct sp_audit_fsview *fs,
			  uint64_t fs_lens, struct sp_audit_event *ev, unsigned need);
/* Bit min(strlen(path), 63) of an fs view's path lengths: a path whose bit is clear is not in
 * the view (the build skips the lookup).  ~0 = unknown. */
static inline uint64_t log_len_bit(size_t len)
{
	return 1ull << (len < 63 ? len : 63);
}
/* Decode only the parts `need` names (LOG_NEED_*) from now on (default LOG_NEED_ALL): subj=
 * and obj= are skipped without LOG_NEED_LSM, PATH name= without LOG_NEED_PATH.  The events'
 * filter inputs then lack them; records and counts are unchanged. */
void audit_log_set_need(struct sp_audit_log *l, unsigned need);
/* The next feed of `file` continues it after `lines` lines and `bytes` bytes (a part of an
 * input read on its own: its diagnostics keep the input's line numbers). */
void audit_log_resume(struct sp_audit_log *l, const char *file, uint64_t lines, uint64_t bytes);
/* The node (NULL: none) and stamp of a line (without its '\n') whose head the reader reads,
 * opening or joining an event with them: 1, else 0 (a line it reports malformed or skips). */
int audit_log_head_peek(const char *line, size_t len, const char **node, size_t *node_len,
			uint64_t *sec, uint32_t *msec, uint32_t *serial);
/* The reader's longest line (sp_audit_log_opts.max_line, 0 read as 1 MiB): a longer one is
 * malformed. */
size_t audit_log_max_line(const struct sp_audit_log *l);
/* The reader's end-of-event timeout in seconds (sp_audit_log_opts.timeout, 0 read as 2). */
uint64_t audit_log_timeout(const struct sp_audit_log *l);
/* Close every open event, oldest first, as finish does, but the input goes on (a partial line
 * stays carried).  For a live stream that went idle.  0 or the callback's -errno. */
int audit_log_close_open(struct sp_audit_log *l);

/* The position (sp_audit_log_rec.seq) of the first record of the oldest open event other than
 * `except` (NULL: none excepted; the event being delivered is still open), or UINT64_MAX: every
 * record before it belongs to an event already closed or to `except`. */
uint64_t audit_log_open_floor(const struct sp_audit_log *l,
			      const struct sp_audit_log_event *except);

/* report.c: hand aureport's simulated reader every buffered record before `floor` (events
 * are buffered until then; the replay calls it with audit_log_open_floor after each event). */
void audit_report_advance(struct sp_audit_report *r, uint64_t floor);
/* A live stream went idle: every event held is terminated as at an input's end and read (an
 * interpretation writes it), and the report goes on with the next records; 0 or its error. */
int audit_report_idle(struct sp_audit_report *r);
/* sp_audit_report_event for an event ausearch's selection did not select (selected = 0): with
 * opts.piped its records still take their place in ausearch's reader order, unreported;
 * without, it is ignored. */
int audit_report_event_sel(struct sp_audit_report *r, const struct sp_audit_log_event *ev,
			   const uint8_t *mask, int selected);

/* report.c, shared with interpret.c: ausearch's and aureport's localtime "%x %T" date (or
 * "?"), and their safe_print_string in tty escape mode (bytes below 0x20 as \ooo; NULL as
 * "(null)"; nl: then a newline, as with its ret argument). */
#include <stdio.h>
void audit_log_put_date(FILE *f, uint64_t sec);
void audit_log_put_safe(FILE *f, const char *s, int nl);

/* interpret.c: one event as `ausearch -i` prints it (sp_audit_log_event_interpret), from its
 * records' lines (ENRICHED part included) and its stamp; report.c hands them out in
 * ausearch's order. */
struct audit_interp_rec {
	uint32_t type;
	const char *text;
	size_t len;
};
struct audit_names;
struct audit_interp_ev {
	uint64_t sec;
	uint32_t msec, serial;
	const char *node;		/* NULL: none */
	const struct audit_interp_rec *rec;
	size_t nrec;
	struct audit_names *names;	/* uid/gid names looked up lately, or NULL: none kept */
};
/* A writer's uid/gid names (interpret.c): ausearch looks each one up for every field; a name
 * looked up less than a second ago is reused instead (an id no file names costs a round of
 * every NSS source).  0 or -ENOMEM. */
int audit_names_new(struct audit_names **out);
void audit_names_free(struct audit_names *n);
int audit_log_interpret(FILE *f, const struct audit_interp_ev *ev);

/* interpret.c, for normalize.c: auparse_interpret_field of one field (auparse 3.0.9's
 * interpretation, tty escaping): the loaded interpretation list's value when it has one, else
 * the field type's printer; with cwd (auparse_interpret_realpath), an ESCAPED name made
 * absolute against it.  work is auparse's path buffer, kept between calls.  Malloc'ed, or
 * NULL (out of memory). */
struct audit_ifield {
	uint32_t rtype;
	const char *name, *val;
	const char *machine;		/* syscall table's machine; NULL = this host's */
	int syscall;
	uint64_t a0, a1;
	const char *enriched;		/* the interpretation list loaded (ENRICHED part) or NULL */
	const char *cwd;		/* realpath: the event's cwd value as logged, else NULL */
	struct audit_names *names;	/* or NULL */
};
/* auparse's au_unescape (interpret.c): the leading hex digits of buf decoded into a zeroed
 * buffer of max(strlen(buf) + 1, min) bytes, "(null)"-style values copied to their ')';
 * NULL for fewer than 2 digits or out of memory; *dlen gets the decoded length. */
char *audit_log_unhex(const char *buf, size_t min, size_t *dlen);
struct audit_pathbuf {
	char b[4096];
};
char *audit_log_interp_field(const struct audit_ifield *x, struct audit_pathbuf *work);
/* The auparse field types the normalizer asks about (auparse_get_field_type). */
enum { AUDIT_FK_OTHER, AUDIT_FK_UID, AUDIT_FK_FILE, AUDIT_FK_SOCKADDR, AUDIT_FK_SECCOMP };
int audit_log_field_kind(uint32_t rtype, const char *name, const char *val);

/* normalize.c: one event as `ausearch --format csv` or `--format text` 3.0.9 writes it
 * (auparse's normalizer over the event auparse rebuilds from the records; a record that ends
 * an event for auparse's feed splits it, one line per part).  *header: the CSV heading was
 * written (ausearch writes it before its first event). */
struct audit_norm_opts {
	int text;			/* 0: CSV, 1: text */
	int extra_keys, extra_obj2, extra_time;	/* ausearch --extra-keys/-obj2/-time (CSV) */
};
struct audit_norm;
int audit_norm_new(const struct audit_norm_opts *o, struct audit_norm **out);
void audit_norm_free(struct audit_norm *n);
int audit_log_normalize(FILE *f, struct audit_norm *n, const struct audit_interp_ev *ev);

#endif
