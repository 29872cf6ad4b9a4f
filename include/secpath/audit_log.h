/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_log.h - audit.log reading and replay through the compiled filter (docs/audit.md §5).
 *
 * The reader (sp_audit_log) takes audit.log bytes in chunks of any size, splits lines, parses
 * each record header `[node=N ]type=T msg=audit(SEC.MSEC:SERIAL): BODY` (ENRICHED lines are
 * cut at the first 0x1D for parsing but kept whole for output), validates and parses the bodies
 * the filters need (SYSCALL, URINGOP, PATH, CWD, SOCKADDR, OPENAT2, EXECVE, user messages with
 * their msg='...' part), and groups records into events by (node, time, serial) with a bounded
 * window of open events, so memory is constant in the log size.  Every input line is either a
 * parsed record or a malformed line reported with file:line and a reason (never skipped).
 *
 * Replay (sp_audit_replay) loads a rules file, builds each event's filter inputs, decides it
 * with the compiled matcher and counts events kept and dropped, rule hits, keys and malformed
 * lines; kept records can be written out byte-identical.  The path-string approximations it
 * makes for watches, dir rules and exe are listed in docs/RECORD.md ("Replay model").
 */
#ifndef SECPATH_AUDIT_LOG_H
#define SECPATH_AUDIT_LOG_H

#include "secpath.h"
#include "audit.h"
#include "audit_filter.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the reader ---- */

struct sp_audit_log;
struct sp_audit_log_event;	/* one grouped event, valid during the callback only */

struct sp_audit_log_rec {
	uint32_t type;		/* record type number (UNKNOWN[n] gives n) */
	uint32_t line;		/* 1-based line in file */
	const char *file;	/* input name */
	const char *text;	/* the raw line without its '\n' (enriched part included) */
	size_t len;
	uint64_t seq;		/* 1-based position among every line fed (all files, in order) */
};

/* Called for every closed event; a non-zero return stops the reader (returned by feed/end). */
typedef int (*sp_audit_log_event_fn)(void *ud, const struct sp_audit_log_event *ev);

struct sp_audit_log_opts {
	size_t sz;			/* sizeof(struct sp_audit_log_opts) */
	size_t window;			/* open events kept for grouping (0 = 64) */
	uint32_t timeout;		/* a record this many seconds or more after an open event
					 * closes it (0 = 2, auparse's end-of-event timeout) */
	size_t max_line;		/* longer lines are malformed (0 = 1 MiB) */
	sp_audit_log_event_fn on_event;
	void *ud;
	struct sp_diags *diags; /* malformed lines (file:line, reason); may be NULL */
};

struct sp_audit_log_stats {
	uint64_t lines;			/* lines read = records + malformed + skipped + truncated */
	uint64_t records;		/* lines parsed as records */
	uint64_t malformed;		/* lines rejected (each reported in diags) */
	uint64_t events;		/* events closed */
	uint64_t bytes;
	uint64_t truncated;		/* a file's last line without '\n': a warning, not read */
	uint64_t skipped;		/* records without a time stamp (msg=?): a warning each */
};

SP_API int sp_audit_log_new(const struct sp_audit_log_opts *o, struct sp_audit_log **out);
SP_API void sp_audit_log_free(struct sp_audit_log *l);
/* Feed the next bytes of `file` (borrowed: keep it alive until sp_audit_log_finish).  Switching
 * to another file ends the previous one's last line.  Returns 0, -ENOMEM, or the callback's
 * non-zero value. */
SP_API int sp_audit_log_feed(struct sp_audit_log *l, const char *file, const void *buf, size_t len);
/* End of all input: the last partial line, then every open event.  Returns as feed. */
SP_API int sp_audit_log_finish(struct sp_audit_log *l);
SP_API void sp_audit_log_get_stats(const struct sp_audit_log *l, struct sp_audit_log_stats *st);

/* Event accessors (inside the callback). */
SP_API size_t sp_audit_log_event_nrec(const struct sp_audit_log_event *ev);
SP_API const struct sp_audit_log_rec *sp_audit_log_event_rec(const struct sp_audit_log_event *ev,
							     size_t i);
/* Timestamp and serial; node (NULL when none). */
SP_API void sp_audit_log_event_stamp(const struct sp_audit_log_event *ev, uint64_t *sec,
				     uint32_t *msec, uint32_t *serial, const char **node);

/*
 * laurel's JSON (laurel 0.5.1 with its live-system enrichment off; docs/JSON.md): the event's
 * records (those with mask[i] set; mask NULL = all) as laurel writes them, one object per line:
 * the multi-part records (SYSCALL, EXECVE, PATH...) in one object, every other record in an
 * object of its own.  key (NULL or "" = none; 0x01 joins several) adds "SECPATH":{"keys":[..]}.
 * A record laurel refuses to parse is left out with a warning in d (file:line:col; d may be
 * NULL).  The lines go to put in one call (nothing when no record is written).  Returns 0,
 * -ENOMEM, or put's non-zero return.
 */
typedef int (*sp_audit_log_put_fn)(void *ud, const char *s, size_t n);
SP_API int sp_audit_log_event_laurel(const struct sp_audit_log_event *ev, const uint8_t *mask,
				     const char *key, struct sp_diags *d, sp_audit_log_put_fn put,
				     void *ud);

/*
 * The event's records (those with mask[i] set; mask NULL = all) as `ausearch -i` 3.0.9
 * prints them (its default tty escaping): "----", then the records last to first, each
 * "type=NAME msg=audit(DATE TIME.MSEC:SERIAL) : " and its fields interpreted (uid/gid names
 * from the process's passwd/group databases, syscall names by arch, hex strings decoded,
 * exit/errno, modes, permissions, capabilities, sockaddr, the a0..a3 of the syscalls auparse
 * names...; the ENRICHED part's names first, as ausearch).  DATE TIME are localtime and the
 * locale's %x, as ausearch prints them.  The text goes to put in one call (nothing when no
 * record is selected).  Returns 0, -ENOMEM, or put's non-zero return.
 */
SP_API int sp_audit_log_event_interpret(const struct sp_audit_log_event *ev, const uint8_t *mask,
					sp_audit_log_put_fn put, void *ud);

/*
 * The event's records (mask as above) as `ausearch --format csv` (flags SP_AUDIT_REPLAY_CSV)
 * or `--format text` (SP_AUDIT_REPLAY_TEXT) 3.0.9 writes them: auparse's normalizer over the
 * event auparse rebuilds from the records (one line per part when a record auparse takes as
 * an event's end splits it); SP_AUDIT_REPLAY_EXTRA_* add ausearch's CSV columns.  No CSV
 * heading (sp_audit_report's CSV kind writes it once).  Names, times and locale as for
 * sp_audit_log_event_interpret.  The text goes to put in one call (nothing when no record is
 * selected).  Returns 0, -EINVAL (no or both formats), -ENOMEM, or put's non-zero return.
 */
SP_API int sp_audit_log_event_normalize(const struct sp_audit_log_event *ev, const uint8_t *mask,
					unsigned flags, sp_audit_log_put_fn put, void *ud);

/* How an event's records relate to the kernel filters. */
enum sp_audit_log_class {
	SP_AUDIT_LOG_SYSCALL = 0, /* has a SYSCALL record: task/exit lists + companions */
	SP_AUDIT_LOG_URING = 1,	  /* has a URINGOP record */
	SP_AUDIT_LOG_USER = 2,	  /* a user-space message (1005, 1100-1199, 2100-2999) */
	SP_AUDIT_LOG_KERNEL = 3,  /* kernel records outside a syscall: exclude list only */
	SP_AUDIT_LOG_DAEMON = 4,  /* auditd's own records (1200-1299): never filtered */
};

/*
 * Build the filter input of an event into ev (reset first).  fs gives path identities for the
 * rules' watch/dir/exe paths (see docs/RECORD.md); NULL = none.  Returns the event's
 * enum sp_audit_log_class (>= 0) or -ENOMEM.
 */
SP_API int sp_audit_log_event_build(const struct sp_audit_log_event *lev,
				    const struct sp_audit_fsview *fs, struct sp_audit_event *ev);
/* 1 if records of this type are only written as part of a recorded syscall (PATH, CWD...). */
SP_API int sp_audit_log_type_is_companion(uint32_t type);

/* ---- ausearch's selection (ausearch 3.0.9's search options) ---- */

struct sp_audit_search;

SP_API int sp_audit_search_new(struct sp_audit_search **out);
SP_API void sp_audit_search_free(struct sp_audit_search *s);
/*
 * One ausearch option, spelled as ausearch spells it: "-k KEY" (a substring of a key, or the
 * whole key after "-w"), "-m TYPE[,TYPE..]" (names or numbers, ALL), "-sc SYSCALL" (a number,
 * or a name of this host's machine, which then also requires its architecture), "-ts"/"-te"
 * with a date (the locale's %x, or now, recent, today, yesterday, this-week, week-ago,
 * this-month, this-year) and/or a time (HH:MM[:SS]) in v1 and v2 (v2 may be NULL), "-p PID",
 * "-pp PPID", "-a SERIAL", "--session N", "-ui", "-ue", "-ul" and "-ua" with a uid or a user
 * name (-ul also -1), "-gi", "-ge", "-ga" with a gid or a group name, "-e EXIT" (a number or
 * an errno name), "-x EXE", "-f FILE", "--comm", "-tm", "-hn", "-vm", "-uu" and the contexts
 * "-su", "-o", "-se" (a substring, or whole with -w), "-n NODE" (repeatable), "-sv yes|no";
 * long forms (--key, --word, --message, --syscall, --start, --end, --pid, --ppid, --uid,
 * --uid-effective, --uid-all, --loginuid, --gid, --gid-effective, --gid-all, --exit,
 * --executable, --terminal, --host, --vm-name, --uuid, --subject, --object, --context, --node,
 * --file, --success, --event) too.  The keywords read the clock at sp_audit_search_new (or
 * sp_audit_search_set_now); names are looked up (getpwnam_r, getgrnam_r) here.  Returns 0 or
 * -EINVAL with a diagnostic naming the option, or -ENOMEM.
 */
SP_API int sp_audit_search_set(struct sp_audit_search *s, const char *opt, const char *v1,
			       const char *v2, struct sp_diags *d);
SP_API void sp_audit_search_set_now(struct sp_audit_search *s, int64_t now);
/* 1 once an option was set, even to a value ausearch takes as none (-ui 4294967295): the
 * selection then still drops the events ausearch cannot parse. */
SP_API int sp_audit_search_active(const struct sp_audit_search *s);
/*
 * 1 if the event (inside a reader callback) is one ausearch prints with these options, else 0.
 * mask (NULL = all) selects the records that count, as when new rules kept only some: ausearch
 * would have read only those.  As ausearch, an event with a record it cannot parse for the
 * criteria is not selected.
 */
SP_API int sp_audit_search_match(const struct sp_audit_search *s,
				 const struct sp_audit_log_event *ev, const uint8_t *mask);

/* ---- aureport's reports (aureport 3.0.9: the summary, -k -x -f -au -l -t, --summary) ---- */

struct sp_audit_report;

enum sp_audit_report_kind {
	SP_AUDIT_REPORT_SUMMARY = 0,	/* aureport's default: "Summary Report" */
	SP_AUDIT_REPORT_KEY = 1,	/* aureport -k/--key */
	SP_AUDIT_REPORT_EXE = 2,	/* aureport -x/--executable */
	SP_AUDIT_REPORT_FILE = 3,	/* aureport -f/--file */
	SP_AUDIT_REPORT_AUTH = 4,	/* aureport -au/--auth */
	SP_AUDIT_REPORT_LOGIN = 5,	/* aureport -l/--login */
	SP_AUDIT_REPORT_LOG = 6,	/* aureport -t/--log: each input's time range */
	/* not aureport's: the selected events as `ausearch -i` prints them, in the order it
	 * hands them out (its reader reads every event given; piped is implied); no summary */
	SP_AUDIT_REPORT_INTERPRET = 7,
	/* not aureport's either: the selected events as `ausearch --format csv` and `--format
	 * text` print them (auparse's normalizer: one line per event, or per part of an event
	 * auparse's feed splits; the CSV heading before the first), in the same order */
	SP_AUDIT_REPORT_CSV = 8,
	SP_AUDIT_REPORT_TEXT = 9,
};
/* sp_audit_report_opts.extra, CSV only: ausearch's --extra-keys, --extra-obj2, --extra-time */
#define SP_AUDIT_REPORT_EXTRA_KEYS 0x1u
#define SP_AUDIT_REPORT_EXTRA_OBJ2 0x2u
#define SP_AUDIT_REPORT_EXTRA_TIME 0x4u

struct sp_audit_report_opts {
	size_t sz;			/* sizeof(struct sp_audit_report_opts) */
	int kind;			/* enum sp_audit_report_kind */
	int summary;			/* aureport --summary: the count table (not with LOG) */
	FILE *out;			/* the text goes here (borrowed) */
	/* the events are ausearch's selection: aureport reads `ausearch --raw` output, in the
	 * order ausearch hands events out (in a replay the unselected events take their place in
	 * ausearch's reader too) */
	int piped;
	unsigned extra;			/* SP_AUDIT_REPORT_EXTRA_* (CSV; read when sz covers it) */
};

/* A report written as aureport writes it for the same events (TZ and locale as the process
 * has them; uids as numbers: aureport without -i).  Returns 0, -EINVAL or -ENOMEM. */
SP_API int sp_audit_report_new(const struct sp_audit_report_opts *o, struct sp_audit_report **out);
SP_API void sp_audit_report_free(struct sp_audit_report *r);
/* The next input starts (optional; aureport's per-file work): -t writes the previous input's
 * line ("NAME: no records" without events), the summary's last event is the last input's.
 * Without it -t names each line after the first kept record's file.  0 or -EINVAL. */
SP_API int sp_audit_report_input(struct sp_audit_report *r, const char *name);
/* One event (inside a reader callback); mask (NULL = all) gives the records aureport would
 * read.  The records are copied and wait for aureport's order: in a replay its lines are
 * written once every earlier record was read, else at the finish (event records' file names
 * are borrowed until then).  Returns 0, -ENOMEM or -EIO. */
SP_API int sp_audit_report_event(struct sp_audit_report *r, const struct sp_audit_log_event *ev,
				 const uint8_t *mask);
/* The end: the count table or summary (the heading even without events).  0 or -EIO. */
SP_API int sp_audit_report_finish(struct sp_audit_report *r);
/* 1 once a list line was written (aureport exits 1 without one). */
SP_API int sp_audit_report_found(const struct sp_audit_report *r);

/* ---- replay ---- */

struct sp_audit_replay;

struct sp_audit_replay_opts {
	size_t sz;				/* sizeof(struct sp_audit_replay_opts) */
	const struct sp_audit_parse_opts *parse; /* rules file reading (NULL = defaults) */
	size_t window;				/* grouping window (0 = 64 open events) */
	int out_fd;				/* kept records are written here (<= 0: none) */
	struct sp_diags *diags;			/* rules errors and malformed lines; may be NULL */
	/* the rules already parsed (borrowed: keep them until the replay is freed); the text
	 * given to sp_audit_replay_new is then not read (it may be NULL) */
	const struct sp_audit_ruleset *rules;
	/* ausearch's selection applied to the records the rules keep (borrowed; NULL = none) */
	const struct sp_audit_search *search;
	unsigned flags;				/* SP_AUDIT_REPLAY_* */
	/* aureport's report over the kept events, given their kept records (borrowed; NULL =
	 * none); the caller finishes it after sp_audit_replay_finish */
	struct sp_audit_report *report;
};
/* No rules stage: every record is kept, then the selection (if any) decides the event. */
#define SP_AUDIT_REPLAY_NO_RULES 0x1u
/* out_fd receives each kept event as laurel's JSON lines (sp_audit_log_event_laurel, with the
 * deciding rule's key), in the order events close; audit.log inputs only. */
#define SP_AUDIT_REPLAY_LAUREL 0x2u
/* out_fd receives each kept event as `ausearch -i` prints it (sp_audit_log_event_interpret),
 * in ausearch's event order (an event may be held until a later one completes it; finish and
 * sp_audit_replay_idle write every held one); audit.log inputs only; not with
 * SP_AUDIT_REPLAY_LAUREL. */
#define SP_AUDIT_REPLAY_INTERPRET 0x4u
/* out_fd receives each kept event as `ausearch --format csv` (or text) 3.0.9 prints it
 * (SP_AUDIT_REPORT_CSV/_TEXT), in ausearch's event order as with SP_AUDIT_REPLAY_INTERPRET;
 * one of the three at most.  The EXTRA flags add ausearch's --extra-keys, --extra-obj2 and
 * --extra-time columns to the CSV. */
#define SP_AUDIT_REPLAY_CSV 0x8u
#define SP_AUDIT_REPLAY_TEXT 0x10u
#define SP_AUDIT_REPLAY_EXTRA_KEYS 0x20u
#define SP_AUDIT_REPLAY_EXTRA_OBJ2 0x40u
#define SP_AUDIT_REPLAY_EXTRA_TIME 0x80u

struct sp_audit_replay_stats {
	uint64_t lines, records, malformed, bytes;
	uint64_t events, kept, dropped;		/* events read = kept + dropped */
	uint64_t records_kept, records_dropped;	/* records of parsed events */
	uint64_t stream_events;			/* of which from recorded streams */
	uint64_t truncated;			/* last lines without '\n' (warned, not read) */
	uint64_t skipped;			/* records without a time stamp (warned) */
};

struct sp_audit_replay_rule {
	const char *file;		/* rules file */
	uint32_t line;			/* line of the rule */
	uint32_t list;			/* filter list number */
	int load_err;			/* 0, or why the kernel would refuse it (-errno) */
	int is_del;			/* a -d line (never fires) */
	uint64_t hits;			/* times it decided a list's verdict */
};

/*
 * A replay with the rules in text (auditctl -R syntax; `file` names it in diagnostics and rule
 * reports; borrowed).  Rules the kernel would refuse are reported and skipped.  Returns 0,
 * -EINVAL, -ENOMEM, or the rules parser's -errno.
 */
SP_API int sp_audit_replay_new(const char *text, size_t len, const char *file,
			       const struct sp_audit_replay_opts *o, struct sp_audit_replay **out);
SP_API void sp_audit_replay_free(struct sp_audit_replay *r);

/*
 * sp_audit_replay_feed of one whole audit.log input (buf, len) by `jobs` threads: the input cut
 * at line starts into parts, each read by a replay of its own over r's rules and selection, the
 * kept records written to out_fd in input order and the counts, rule hits, keys and
 * diagnostics added to r's, as one pass gives them.  An event that has records on both sides
 * of a cut (its node, time and serial seen held at one part's end and starting the next)
 * makes the parts void: the input is then fed in one pass.  Events held from earlier inputs
 * are ended first (an event does not span inputs).  With a report, an event format
 * (SP_AUDIT_REPLAY_LAUREL, _INTERPRET, _CSV, _TEXT), jobs < 2 or a small input, it is
 * sp_audit_replay_feed.  Returns as sp_audit_replay_feed.
 */
SP_API int sp_audit_replay_feed_jobs(struct sp_audit_replay *r, const char *file, const void *buf,
				     size_t len, unsigned jobs);
/* The inputs sp_audit_replay_feed_jobs read in parts (*split), and those whose parts were void
 * and read again in one pass (*whole). */
SP_API void sp_audit_replay_get_jobs(const struct sp_audit_replay *r, uint64_t *split,
				     uint64_t *whole);
/* audit.log bytes of `file` (borrowed until finish), in chunks.  Returns 0 or -errno. */
SP_API int sp_audit_replay_feed(struct sp_audit_replay *r, const char *file, const void *buf,
				size_t len);
/* A whole recorded stream (audit_record.h).  Returns 0 or -errno (with a byte-offset
 * diagnostic; events before the damage count). */
SP_API int sp_audit_replay_stream(struct sp_audit_replay *r, const char *file, const void *buf,
				  size_t len);
/* End of input: closes open events, flushes the output.  Returns 0 or -errno. */
SP_API int sp_audit_replay_finish(struct sp_audit_replay *r);
/*
 * For a live stream: close every open event now (as finish does, but more input may follow;
 * call it once the input has been idle for the grouping timeout) and write out what they kept.
 * Returns 0 or -errno.
 */
SP_API int sp_audit_replay_idle(struct sp_audit_replay *r);
/* Write out the kept records already decided (the output is otherwise written in blocks). */
SP_API int sp_audit_replay_flush(struct sp_audit_replay *r);
/*
 * Replace the rules with `text` (auditctl -R syntax, `file` for diagnostics), parsed and
 * compiled whole before it replaces the set in use, between two events: an event is decided
 * by one set, the one in use when it closes.  A rule line with an error refuses the whole
 * set (-EINVAL) unless flags has SP_AUDIT_RELOAD_PARTIAL (then the lines that parse are the
 * set, as `-c`); on any error (with diagnostics in the replay's diags) the set in use stays.
 * Rule hits start again at 0; key counts go on.  Not for a replay made with
 * SP_AUDIT_REPLAY_NO_RULES.  `file` is borrowed for the replay's life.  Returns 0 or -errno.
 */
#define SP_AUDIT_RELOAD_PARTIAL 0x1u
SP_API int sp_audit_replay_reload(struct sp_audit_replay *r, const char *text, size_t len,
				  const char *file, unsigned flags);
SP_API void sp_audit_replay_get_stats(const struct sp_audit_replay *r,
				      struct sp_audit_replay_stats *st);
SP_API size_t sp_audit_replay_rule_count(const struct sp_audit_replay *r);
SP_API int sp_audit_replay_rule(const struct sp_audit_replay *r, size_t i,
				struct sp_audit_replay_rule *out);
/* Keys of kept syscall events, in first-seen order; a 0x01-joined key counts for each part. */
SP_API size_t sp_audit_replay_key_count(const struct sp_audit_replay *r);
SP_API int sp_audit_replay_key(const struct sp_audit_replay *r, size_t i, const char **key,
			       uint64_t *count);

#ifdef __cplusplus
}
#endif
#endif
