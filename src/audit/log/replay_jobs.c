/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay_jobs.c - one audit.log input replayed by several threads (sp_audit_replay_feed_jobs).
 *
 * The input is cut at line starts into parts of about equal size; each part is read by a
 * replay of its own (the caller's parsed rules and selection, borrowed read-only) in a thread,
 * its kept records into a memory file.  Then, in part order, the records go to the caller's
 * output and the counts, rule hits, keys and diagnostics are added to the caller's.
 *
 * Why the result is the sequential one: a replay decides an event from its records alone and
 * writes kept records in input order.  What one pass carries across a cut is the events its
 * reader still holds there, waiting for a later record with their stamp or for `timeout`
 * seconds of log time; every other part of its state is a cache.  A held event changes what
 * comes after the cut only if a record there has its stamp while one pass would still hold
 * it: then it would have joined it.  (It also takes a place in the reader's window, but the
 * window closes its oldest event first, the held one, which was complete.)  So each part notes
 * the stamps (node, time, serial) of the events its reader still held at its end, and the later
 * parts' records are read from the cut on as the reader would meet them (its own head parse): a
 * held stamp met again voids the parts (the input is then replayed in one pass); a record
 * `timeout` seconds after a held event would have ended it; the scan stops when none is left,
 * which may be parts later, as log time may run backwards.  A key first seen in a held event
 * voids them too: one pass lists keys in the order events are decided; so does an EOE alone
 * in a part, which may follow an event of the part before (replay.c).
 * Cuts are made after an event's last record (an EOE line, or a PROCTITLE line and its EOE
 * if one follows, searched for within CUT_SEEK bytes), where little is held.  An event held from the
 * input before ends first (as at the end of an input), so events do not span inputs.
 *
 * There are more parts than threads when the input is large (up to PARTS_PER_JOB per thread,
 * none under EXTRA_MIN bytes; a part for each thread down to PART_MIN), and each thread takes
 * the next part not yet taken: a thread on a slower or busier CPU reads fewer parts, and the
 * threads finish within about one part of each other.  (Every cut is one more place where a
 * held event or a key first seen there voids the parts: few and large parts void less.)
 *
 * Invariants: the caller's replay is not touched until every part succeeded; every thread is
 * joined and every part freed on every path.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "audit/log/log_int.h"
#include "audit/log/replay_int.h"
#include "base/compiler.h"

#define JOBS_MAX 64u		/* threads */
#define PARTS_PER_JOB 4u	/* parts per thread, at most */
#define PART_MIN 4096u		/* bytes: a smaller part is not worth a replay of its own */
#define EXTRA_MIN (256u << 10)	/* bytes: parts beyond one per thread are no smaller */
#define CUT_SEEK (4u << 20)	/* bytes past a part's even share searched for an event's end */
#define FEED_CHUNK (1u << 20)	/* bytes of its input a part's reader is fed at a time */

/* The stamp of an event a part's reader held at its end. */
struct stamp {
	char *node;			/* NULL: none */
	uint64_t sec;
	uint32_t msec, serial;
	int open;			/* one pass would still hold it (the scan) */
};

struct stamps {
	struct stamp *v;
	size_t n, cap;
};

struct replay_part {
	struct sp_audit_replay *owner;	/* the caller's replay (read only while parts run) */
	struct sp_audit_replay *r;	/* the part's own, opened in its thread */
	const char *file, *buf;
	size_t len;
	uint64_t bytes;			/* of the input before the part */
	struct stamps held;
	size_t keys_held;		/* keys first seen in the held events */
	struct sp_diags d;
	int fd;				/* the kept records (a memory file), or -1 */
	int rc;
};

int audit_replay_part_note(struct replay_part *p, const struct sp_audit_log_event *lev,
			   int finishing)
{
	struct stamps *k = &p->held;
	if (!finishing)
		return 0;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		struct stamp *v = realloc(k->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	struct stamp *t = &k->v[k->n];
	*t = (struct stamp){ NULL, lev->sec, lev->msec, lev->serial, 1 };
	if (lev->node_cstr && !(t->node = strdup(lev->node_cstr)))
		return -ENOMEM;
	k->n++;
	return 0;
}

#define SCAN_SEEN 65536u	/* stamps the scan remembers (a power of two); more: void */
#define SCAN_SEEN_MIN 1024u	/* the set's first size: a scan usually meets a few thousand */

/* cut_joins' scan state across the parts it reads. */
struct scan {
	uint64_t *seen;			/* stamp keys met (0: an empty slot), at most half full */
	size_t nseen, cap;		/* keys met; slots (a power of two, <= SCAN_SEEN) */
	size_t open;			/* held events not yet ended */
	uint64_t timeout;		/* the reader's end-of-event timeout */
	size_t max_line;		/* the reader's longest line */
};

static uint64_t stamp_key(const struct stamp *t, const char *node, size_t nlen)
{
	uint64_t x = t->sec * 0x9e3779b97f4a7c15ull ^ ((uint64_t)t->msec << 32 | t->serial);
	for (size_t i = 0; i < nlen; i++)
		x = (x ^ (unsigned char)node[i]) * 0x100000001b3ull;
	x ^= x >> 31;
	return (x * 0xbf58476d1ce4e5b9ull) | 1;	/* never 0: 0 marks an empty slot */
}

/* The slot of k in set (cap slots): its own, or the empty one where it would go. */
static size_t seen_slot(const uint64_t *set, size_t cap, uint64_t k)
{
	size_t i = k & (cap - 1);
	while (set[i] && set[i] != k)
		i = (i + 1) & (cap - 1);
	return i;
}

/* The set twice as large (grown only as keys come: a fresh table of SCAN_SEEN keys is 512 KiB
 * of pages to fault in before the first probe).  0, or -1 (the caller cannot tell). */
static int seen_grow(struct scan *sc)
{
	size_t cap = sc->cap ? 2 * sc->cap : SCAN_SEEN_MIN;
	uint64_t *set;
	if (cap > SCAN_SEEN || !(set = calloc(cap, sizeof(*set))))
		return -1;
	for (size_t i = 0; i < sc->cap; i++)
		if (sc->seen[i])
			set[seen_slot(set, cap, sc->seen[i])] = sc->seen[i];
	free(sc->seen);
	sc->seen = set;
	sc->cap = cap;
	return 0;
}

/* 1 when k was in the set (else it is added); -1 when the set is full (or cannot grow). */
static int seen_add(struct scan *sc, uint64_t k)
{
	if (2 * (sc->nseen + 1) > sc->cap && seen_grow(sc))
		return -1;
	size_t i = seen_slot(sc->seen, sc->cap, k);
	if (sc->seen[i])
		return 1;
	sc->seen[i] = k;
	sc->nseen++;
	return 0;
}

static int held_match(const struct stamp *h, const struct stamp *t, const char *node,
		      size_t nlen)
{
	return h->sec == t->sec && h->msec == t->msec && h->serial == t->serial &&
	       (h->node ? node && strlen(h->node) == nlen && !memcmp(h->node, node, nlen) : !node);
}

/* cut_joins' scan of one part `after`: 1 when a record joins a held event (or the events met
 * are too many to follow); *open counts the held events not yet ended.  A line is a record
 * when the reader reads its head (audit_log_head_peek); only a record the reader reads whole
 * (not past max_line, not a last line without '\n') ends held events. */
static int scan_part(struct replay_part *before, const struct replay_part *after,
		     struct scan *sc)
{
	for (const char *p = after->buf, *end = p + after->len; sc->open && p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p)), *node;
		int whole = e && (size_t)(e - p) <= sc->max_line;
		size_t nlen;
		struct stamp t = { 0 };
		e = e ? e : end;
		int has = audit_log_head_peek(p, (size_t)(e - p), &node, &nlen, &t.sec, &t.msec,
					      &t.serial);
		p = e + 1;
		if (!has)
			continue;
		for (size_t i = 0; i < before->held.n; i++)
			if (before->held.v[i].open && held_match(&before->held.v[i], &t, node, nlen))
				return 1;	/* it joins a held event */
		if (!whole)
			continue;
		int met = seen_add(sc, stamp_key(&t, node, nlen));
		if (met < 0)
			return 1;	/* too many events to follow: cannot tell */
		if (met)
			continue;	/* a record of an event met before: it ends no other */
		for (size_t i = 0; i < before->held.n; i++) {
			struct stamp *h = &before->held.v[i];
			if (h->open && h->sec + sc->timeout <= t.sec) {
				h->open = 0;
				sc->open--;
			}
		}
	}
	return 0;
}

/* 1 when an event `before` held at its end could have taken a record of the `nafter` parts
 * after it in one pass (or it cannot be told: too many stamps, or no memory), 0 when not.  Their
 * records are read in order as the reader meets them: one with a held stamp joins it; one that
 * starts an event (a stamp not met before in the scan) ends the held events `timeout` s older
 * than it; the scan stops when none is left.  It goes on past the next part: log time may run
 * backwards, and then a held event outlives any number of parts. */
static int cut_joins(struct replay_part *before, const struct replay_part *after, size_t nafter,
		     uint64_t timeout, size_t max_line)
{
	struct scan sc = { .open = before->held.n, .timeout = timeout, .max_line = max_line };
	int rc = 0;
	if (!sc.open)
		return 0;
	for (size_t j = 0; j < nafter && sc.open && !rc; j++)
		rc = scan_part(before, &after[j], &sc);
	free(sc.seen);
	return rc;
}

/* 1 when the line at p (to e) is a record of type `type` ("PROCTITLE", "EOE"; "node=... "
 * first or not). */
static int line_type_is(const char *p, const char *e, const char *type)
{
	const char *t = memmem(p, (size_t)(e - p), "type=", 5);
	size_t n = strlen(type);
	return t && (size_t)(e - t) > 5 + n && !memcmp(t + 5, type, n) && t[5 + n] == ' ';
}

/* Where a part that should end near `at` ends: after the first PROCTITLE or EOE line that
 * ends at or past it (within CUT_SEEK; after a PROCTITLE's EOE too, which belongs to its
 * event), else at the line start past it. */
static size_t cut_at(const char *buf, size_t len, size_t at)
{
	const char *nl = at < len ? memchr(buf + at, '\n', len - at) : NULL;
	size_t first = nl ? (size_t)(nl - buf) + 1 : len, lim = SP_MIN(len, first + CUT_SEEK);
	for (size_t p = first; p < lim;) {
		const char *e = memchr(buf + p, '\n', lim - p);
		if (!e)
			break;
		size_t next = (size_t)(e - buf) + 1;
		if (line_type_is(buf + p, e, "PROCTITLE")) {
			const char *e2 = next < len ? memchr(buf + next, '\n', len - next) : NULL;
			return e2 && line_type_is(buf + next, e2, "EOE") ? (size_t)(e2 - buf) + 1 : next;
		}
		if (line_type_is(buf + p, e, "EOE"))
			return next;
		p = next;
	}
	return first;
}

static int part_open(struct replay_part *p);

/* A part's thread: its replay opened (the caller's matchers borrowed), then its input read. */
static void *part_run(void *arg)
{
	struct replay_part *p = arg;
	if ((p->rc = part_open(p)))
		return NULL;
	struct sp_audit_replay *r = p->r;
	audit_log_resume(r->log, p->file, 0, p->bytes);	/* lines: part_add offsets them */
	/* in chunks, as a one-pass reader is fed: kept records wait in the replay's pool until
	 * the records before them are decided, and a feed's end writes them out; fed whole, the
	 * pool would hold the part's whole output */
	for (size_t off = 0; !p->rc && off < p->len; off += FEED_CHUNK)
		p->rc = sp_audit_replay_feed(r, p->file, p->buf + off,
					     SP_MIN(FEED_CHUNK, p->len - off));
	size_t keys = r->nkeys;
	if (!p->rc)
		p->rc = sp_audit_replay_finish(r);
	p->keys_held = r->nkeys - keys;
	return NULL;
}

/* A replay for one part: the caller's options, with its rules, matchers and selection
 * borrowed (so a rule the kernel would refuse is reported once, by the caller). */
static int part_open(struct replay_part *p)
{
	const struct sp_audit_replay *r = p->owner;
	struct sp_audit_replay_opts o = r->o;
	p->d.limit = r->o.diags ? r->o.diags->limit : 0;	/* as many as the caller keeps */
	if (r->o.out_fd > 0 && (p->fd = memfd_create("secpath-replay-part", MFD_CLOEXEC)) < 0)
		return -errno;
	o.out_fd = p->fd;
	o.diags = &p->d;
	int err = audit_replay_new_part(r, &o, &p->r);
	if (!err)
		p->r->part = p;
	return err;
}

static void part_close(struct replay_part *p)
{
	sp_audit_replay_free(p->r);
	sp_diags_release(&p->d);
	if (p->fd >= 0)
		close(p->fd);
	for (size_t i = 0; i < p->held.n; i++)
		free(p->held.v[i].node);
	free(p->held.v);
}

/* Cut buf into n parts of r's input at line starts; each part's byte offset, no replay or
 * output yet (part_close may take it as it is).  The parts' line offsets are their readers'
 * line counts, added up after they ran (part_add), so no thread waits for a count of the
 * input's lines. */
static void parts_cut(struct replay_part *v, size_t n, struct sp_audit_replay *r, const char *file,
		      const char *buf, size_t len)
{
	size_t at = 0;
	memset(v, 0, n * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		size_t end = i + 1 == n ? len : cut_at(buf, len, len / n * (i + 1));
		if (end < at)
			end = at;
		v[i].owner = r;
		v[i].fd = -1;
		sp_diags_init(&v[i].d, NULL);
		v[i].file = file;
		v[i].buf = buf + at;
		v[i].len = end - at;
		v[i].bytes = at;
		at = end;
	}
}

/* The part's kept records to the caller's output, after what the caller holds. */
static int part_copy(struct sp_audit_replay *r, struct replay_part *p)
{
	char buf[1 << 16];
	ssize_t k;
	int err = audit_replay_pend_flush(r, UINT64_MAX);
	if (!err)
		err = audit_replay_oflush(r);
	if (err || p->fd < 0)
		return err;
	if (lseek(p->fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((k = read(p->fd, buf, sizeof(buf))) > 0)
		if ((err = sp_fd_write_all(r->o.out_fd, buf, (size_t)k)))
			return err;
	return k < 0 ? -errno : 0;
}

/* The part's counts, rule hits, keys and diagnostics added to the caller's; its diagnostics'
 * lines are its reader's plus *lines, the lines of the parts before it, to which its own are
 * then added (every part but the last ends after a newline, so its reader's count is the
 * input's). */
static int part_add(struct sp_audit_replay *r, struct replay_part *p, uint64_t *lines)
{
	uint64_t before = *lines;
	struct sp_audit_replay_stats *a = &r->st;
	const struct sp_audit_replay_stats *b = &p->r->st;
	struct sp_audit_log_stats ls;
	int err = 0;
	sp_audit_log_get_stats(p->r->log, &ls);
	*lines += ls.lines;
	r->plog.lines += ls.lines;
	r->plog.records += ls.records;
	r->plog.malformed += ls.malformed;
	r->plog.truncated += ls.truncated;
	r->plog.skipped += ls.skipped;
	r->plog.bytes += ls.bytes;
	r->plog.events += ls.events;
	a->kept += b->kept;
	a->dropped += b->dropped;
	a->records_kept += b->records_kept;
	a->records_dropped += b->records_dropped;
	for (size_t i = 0; i < r->nrules && i < p->r->nrules; i++)
		r->rules[i].hits += p->r->rules[i].hits;
	for (size_t i = 0; !err && i < p->r->nkeys; i++)
		err = audit_replay_key_add(r, p->r->keys[i].key, p->r->keys[i].len,
					   p->r->keys[i].count);
	for (size_t i = 0; !err && r->o.diags && i < p->d.n; i++) {
		const struct sp_diag *g = &p->d.v[i];
		int in_part = g->line && g->file && !strcmp(g->file, p->file);
		err = g->has_offset ?
		      sp_diags_add_offset(r->o.diags, g->severity, g->code, g->file, g->offset, "%s",
					  g->msg) :
		      sp_diags_add(r->o.diags, g->severity, g->code, g->file,
				   (uint32_t)(g->line + (in_part ? before : 0)), g->col, g->end_col, "%s",
				   g->msg);
	}
	if (r->o.diags)
		r->o.diags->dropped += p->d.dropped;
	return err;
}

/* The parts the threads take in turn: each the next not taken yet. */
struct parts_queue {
	struct replay_part *v;
	size_t n;
	_Atomic size_t next;
};

static void *queue_run(void *arg)
{
	struct parts_queue *q = arg;
	for (size_t i; (i = atomic_fetch_add(&q->next, 1)) < q->n;)
		part_run(&q->v[i]);
	return NULL;
}

/* Run the n parts in `jobs` threads (this one among them): 0, 1 when an event a part held at
 * its end may continue in a later part, or the first part's error. */
static int parts_run(struct replay_part *v, size_t n, size_t jobs, uint64_t timeout,
		     size_t max_line)
{
	pthread_t th[JOBS_MAX];
	struct parts_queue q = { .v = v, .n = n };
	size_t started = 1;
	int err = 0;
	atomic_init(&q.next, 0);
	for (size_t i = 1; i < jobs; i++, started++)
		if (pthread_create(&th[i], NULL, queue_run, &q)) {
			err = -EAGAIN;
			break;
		}
	if (!err)
		queue_run(&q);
	else
		atomic_store(&q.next, n);	/* the started threads take no more */
	for (size_t i = 1; i < started; i++)
		pthread_join(th[i], NULL);
	if (err)
		return err;
	for (size_t i = 0; !err && i < n; i++)
		err = v[i].rc;
	/* one pass decides a held event later, after events of the next part: the key table's
	 * first-seen order would differ if the held events brought a key first; an EOE alone in
	 * a part may be of an event the part before decided */
	for (size_t i = 0; !err && i + 1 < n; i++)
		if (v[i].keys_held || v[i + 1].r->lone_eoe ||
		    cut_joins(&v[i], &v[i + 1], n - i - 1, timeout, max_line))
			return 1;
	return err;
}

SP_API int sp_audit_replay_feed_jobs(struct sp_audit_replay *r, const char *file, const void *buf,
				     size_t len, unsigned jobs)
{
	size_t t = SP_MIN((size_t)jobs, SP_MIN((size_t)JOBS_MAX, len / PART_MIN));
	size_t n = SP_MAX(t, SP_MIN(t * PARTS_PER_JOB, len / EXTRA_MIN));
	struct replay_part *v;
	int err;
	if (!r || !file || (!buf && len))
		return -EINVAL;
	if (t < 2 || r->o.report || (r->o.flags & EVENT_FORMATS) || r->part)
		return sp_audit_replay_feed(r, file, buf, len);
	if ((err = audit_replay_out_claim(r, OUT_LOG, file)) || (err = sp_audit_replay_idle(r)))
		return err;
	if (!(v = calloc(n, sizeof(*v))))
		return -ENOMEM;
	parts_cut(v, n, r, file, buf, len);
	err = parts_run(v, n, t, audit_log_timeout(r->log), audit_log_max_line(r->log));
	uint64_t lines = 0;
	for (size_t i = 0; !err && i < n; i++)
		if (!(err = part_add(r, &v[i], &lines)))
			err = part_copy(r, &v[i]);
	for (size_t i = 0; i < n; i++)
		part_close(&v[i]);
	free(v);
	if (err == 1) {	/* an event may cross a cut: one pass gives the sequential result */
		r->jobs_whole++;
		return sp_audit_replay_feed(r, file, buf, len);
	}
	r->jobs_split += !err;
	return err;
}

SP_API void sp_audit_replay_get_jobs(const struct sp_audit_replay *r, uint64_t *split,
				     uint64_t *whole)
{
	*split = r ? r->jobs_split : 0;
	*whole = r ? r->jobs_whole : 0;
}
