/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay_int.h - the replay's state (replay.c), shared with replay_jobs.c, which runs one
 * input as parts on several replays and adds their results into the caller's.
 *
 * Invariants: kept audit.log records reach out_fd in input order (the pending heap holds a
 * record until every earlier one was decided); keys[] is in first-seen order and kidx indexes
 * it; a replay with `part` set reads only that part of one input.
 */
#ifndef SP_AUDIT_REPLAY_INT_H
#define SP_AUDIT_REPLAY_INT_H

#include <stdint.h>
#include <stdio.h>
#include "secpath/audit_log.h"
#include "secpath/audit_record.h"

#define OBUF_SIZE (256u * 1024u)

/* --output holds one format: log lines (audit.log inputs) or a stream (recorded inputs). */
enum { OUT_NONE, OUT_LOG, OUT_STREAM };
/* the flags that write whole events as they close instead of the kept lines */
#define AUSEARCH_FORMATS (SP_AUDIT_REPLAY_INTERPRET | SP_AUDIT_REPLAY_CSV | SP_AUDIT_REPLAY_TEXT)
#define EVENT_FORMATS (SP_AUDIT_REPLAY_LAUREL | AUSEARCH_FORMATS)
#define SYNTH_DEV SP_AUDIT_MKDEV(4094, 1)

struct rrule {
	uint32_t line;
	uint32_t list;
	int load_err;
	int is_del;
	uint64_t hits;
};

struct key_ent {
	char *key;
	size_t len;
	uint64_t count;
};

#define POOL_COMPACT (64u * 1024)	/* pool bytes below which written texts stay */
#define LATE_RING 16u	/* decided events an EOE arriving late may belong to */

struct sp_audit_replay {
	struct sp_audit_replay_opts o;
	/* SP_AUDIT_REPLAY_INTERPRET, _CSV, _TEXT: a report of that kind keeps ausearch's event
	 * order; its FILE writes into the output buffer */
	struct sp_audit_report *interp;
	FILE *interp_f;
	const char *rules_file;
	struct sp_audit_ruleset *rs;
	struct sp_audit_fsview *fs;
	struct sp_audit_ref *ref, *xref;
	struct sp_audit_matcher *m, *xm;
	int has_exclude;
	/* record types an exclude rule can match: rules with `msgtype=T` match only T; a rule
	 * without one makes every type possible (xany).  Other types skip the exclude matcher. */
	uint32_t xtypes[16];
	size_t nxtypes;
	int xany;
	struct rrule *rules;
	size_t nrules;
	struct key_ent *keys;		/* first-seen order */
	size_t nkeys, kcap;
	uint32_t *kidx;			/* open addressing: index + 1 into keys, 0 = empty */
	size_t kicap;
	struct sp_audit_log *log;
	struct sp_audit_event *ev;
	struct sp_audit_replay_stats st;
	int rs_borrowed;		/* rs is the caller's (opts.rules) */
	/* fs, ref, xref, m and xm are another replay's, which outlives this one and does not
	 * change them while this one reads (audit_replay_new_part) */
	int engines_borrowed;
	char *obuf;
	size_t olen;
	/* kept audit.log records waiting for the events before them to close, so the output keeps
	 * the input's order.  A record that comes after every held one joins the queue
	 * pend[phead, npend), which so stays sorted by seq; one that comes before the queue's last
	 * (its event closed late) goes to the min-heap late[] by seq.  Their texts, each with its
	 * '\n', in one pool (what is written of it is reclaimed by audit_replay_pend_flush). */
	struct pend { uint64_t seq; size_t off, len; } *pend, *late;
	size_t phead, npend, pend_cap, nlate, late_cap;
	char *pool, *pool2;		/* pool2: what pool_compact copies the held texts into */
	size_t pool_len, pool_cap, pool2_cap;
	int out_kind;			/* OUT_*: what out_fd receives */
	struct sp_audit_record_writer *ow;	/* OUT_STREAM: kept events of recorded streams */
	int err;			/* first error from the callback path */
	uint8_t *keepv;			/* per record of the current event: kept */
	size_t keepcap;
	unsigned need;			/* LOG_NEED_*: what the loaded rules can look at */
	uint64_t fs_lens;		/* log_len_bit() of every fs-view path */
	uint64_t next_ino;
	/* sp_audit_replay_feed_jobs: the part this replay reads (NULL: a whole input), and
	 * whether its reader is closing what is left open at the part's end */
	struct replay_part *part;
	int finishing;
	struct sp_audit_log_stats plog;	/* the reader counts of the parts fed by jobs */
	uint64_t jobs_split, jobs_whole;	/* inputs fed by jobs: in parts, again whole */
	/* the last LATE_RING events decided in the input decided_file (until finish): stamp and
	 * whether their companions were kept (an EOE that comes after its event closed follows
	 * that) */
	struct decided {
		uint64_t sec, node_hash;
		uint32_t msec, serial;
		uint8_t kept;
	} decided[LATE_RING];
	uint64_t ndecided;
	const char *decided_file;
	/* an EOE alone was met: read after the input before it, it might have followed an event
	 * of that input (replay_jobs.c) */
	int lone_eoe;
};


/* replay.c's helpers for replay_jobs.c */
int audit_replay_key_add(struct sp_audit_replay *r, const char *k, size_t n, uint64_t count);
int audit_replay_oflush(struct sp_audit_replay *r);
int audit_replay_pend_flush(struct sp_audit_replay *r, uint64_t floor);
int audit_replay_out_claim(struct sp_audit_replay *r, int kind, const char *file);
/* a replay for a part of owner's input (replay_jobs.c): o's options, owner's parsed rules,
 * fs view and matchers, read only while it lives (each part reads with them, none compiles
 * them again); its own reader, event, output and counts */
int audit_replay_new_part(const struct sp_audit_replay *owner, const struct sp_audit_replay_opts *o,
			  struct sp_audit_replay **out);
/* replay_jobs.c: note an event a part's replay closed (the cut check) */
struct replay_part;
int audit_replay_part_note(struct replay_part *p, const struct sp_audit_log_event *lev,
			   int finishing);

#endif
