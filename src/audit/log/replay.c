/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * replay.c - `secpath audit replay`: audit.log events (or recorded streams) through the
 * compiled matcher, with counts of events kept/dropped, rule hits, keys and malformed lines.
 *
 * Which records of an event the given rules keep (kernel/auditsc.c, kernel/audit.c):
 *  - SYSCALL/URINGOP and their companions (PATH, CWD, EXECVE, PROCTITLE...) are written only if
 *    the syscall is recorded: the matcher says RECORD, or a record outside the companion set
 *    (AVC, LOGIN, ...) was emitted during the syscall while no exit rule had matched (the
 *    kernel then marks the context RECORD with priority 1) and no `never` rule decided it;
 *  - user-space messages pass the user list;
 *  - auditd's own records (1200-1299) are never filtered;
 *  - then every record passes the exclude list with its own type, evaluated by a second matcher
 *    holding only the exclude rules (so a user-list `never` cannot hide the exclude verdict).
 * Then ausearch's selection (search.c), if given, sees only the kept records and keeps the
 * event whole or drops it; SP_AUDIT_REPLAY_NO_RULES skips the rules (every record kept).
 * An event is kept when at least one of its records is.  Exclude list `pid` is the thread id,
 * which logs do not show: the replay uses the pid.  An EOE alone, of one of the last LATE_RING
 * events decided in the same input (it came after the reader closed its event), follows that
 * event.
 *
 * Memory: the reader's window, the rule tables and the key table; nothing grows with the log
 * except the key table (bounded by the distinct keys the rules can produce).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/filter/filter_int.h"
#include "audit/log/log_int.h"
#include "audit/log/replay_int.h"
#include "base/compiler.h"
#include "secpath/audit_record.h"

/* ---- rules ---- */

static int fs_add_once(struct sp_audit_replay *r, const char *path, uint32_t mode)
{
	if (!sp_audit_fsview_lookup(r->fs, path, NULL, NULL, NULL))
		return 0;
	r->fs_lens |= log_len_bit(strlen(path));
	return sp_audit_fsview_add(r->fs, path, r->next_ino++, SYNTH_DEV, mode);
}

/* Add the ancestors of path (not path itself) as directories. */
static int fs_add_ancestors(struct sp_audit_replay *r, const char *path)
{
	char buf[4200];
	size_t n = strlen(path);
	if (n >= sizeof(buf) || path[0] != '/')
		return 0;
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	for (;;) {
		char *s = strrchr(buf, '/');
		if (!s)
			return 0;
		if (s == buf) {
			return fs_add_once(r, "/", 040755);
		}
		*s = 0;
		int err = fs_add_once(r, buf, 040755);
		if (err)
			return err;
	}
}

static int fs_add_path(struct sp_audit_replay *r, const char *str, size_t len, uint32_t mode)
{
	char buf[4200];
	if (!len || len >= sizeof(buf) || str[0] != '/')
		return 0;
	memcpy(buf, str, len);
	buf[len] = 0;
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = 0;
	int err = fs_add_ancestors(r, buf);
	if (!err && mode)
		err = fs_add_once(r, buf, mode);
	return err;
}

static void note_exclude_types(struct sp_audit_replay *r, const struct sp_audit_rule *rule)
{
	for (uint32_t f = 0; f < rule->field_count; f++) {
		const struct sp_audit_field *fl = &rule->fields[f];
		if (fl->id == 12 && fl->op == SP_AUDIT_OP_EQ) {	/* msgtype= */
			if (r->nxtypes == SP_ARRAY_SIZE(r->xtypes))
				r->xany = 1;
			else
				r->xtypes[r->nxtypes++] = fl->value;
			return;
		}
	}
	r->xany = 1;
}

/* 0 when no exclude rule can match a record of type t (the list then keeps it). */
static inline int exclude_may_match(const struct sp_audit_replay *r, uint32_t t)
{
	if (r->xany)
		return 1;
	for (size_t i = 0; i < r->nxtypes; i++)
		if (r->xtypes[i] == t)
			return 1;
	return 0;
}

/* The fs view: every rule's dir and exe path with its ancestors, and watch ancestors. */
static int build_fs(struct sp_audit_replay *r)
{
	struct sp_audit_rule *rule = malloc(sizeof(*rule));
	struct sp_audit_item it;
	int err = 0;
	if (!rule)
		return -ENOMEM;
	/* dirs and exes first, so that a watched file never becomes an fs-view entry by them
	 * after being looked at as a watch */
	for (int pass = 0; pass < 2 && !err; pass++)
		for (size_t i = 0; i < r->nrules && !err; i++) {
			sp_audit_ruleset_item(r->rs, i, &it);
			if (it.kind != SP_AUDIT_ITEM_ADD ||
			    sp_audit_rule_decode(it.blob, it.blob_len, 0, rule, NULL, NULL))
				continue;
			if (pass == 0) {
				r->rules[i].list = rule->list;
				if (rule->list == 5)
					note_exclude_types(r, rule);
			}
			for (uint32_t f = 0; f < rule->field_count && !err; f++) {
				const struct sp_audit_field *fl = &rule->fields[f];
				if ((fl->id >= 13 && fl->id <= 17) ||
				    (fl->id >= 19 && fl->id <= 23))
					r->need |= LOG_NEED_LSM;	/* subj_*, obj_* */
				if (fl->id == 105 || fl->id == 107)
					r->need |= LOG_NEED_PATH;	/* watch, dir */
				if (pass == 0 && fl->id == 107)		/* dir */
					err = fs_add_path(r, fl->str, fl->value, 040755);
				else if (pass == 0 && fl->id == 112)	/* exe */
					err = fs_add_path(r, fl->str, fl->value, 0100755);
				else if (pass == 1 && fl->id == 105)	/* watch */
					err = fs_add_path(r, fl->str, fl->value, 0);
			}
		}
	free(rule);
	return err;
}

static void refs_free(struct sp_audit_replay *r)
{
	sp_audit_ref_free(r->ref);
	sp_audit_ref_free(r->xref);
	r->ref = r->xref = NULL;
}

static int refs_new(struct sp_audit_replay *r)
{
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = r->fs };
	int err = sp_audit_ref_new(&eo, &r->ref);
	if (!err)
		err = sp_audit_ref_new(&eo, &r->xref);
	return err;
}

static int load_rules(struct sp_audit_replay *r)
{
	struct sp_audit_item it;
	int err = refs_new(r);
	for (size_t i = 0; i < r->nrules && !err; i++) {
		sp_audit_ruleset_item(r->rs, i, &it);
		struct rrule *rr = &r->rules[i];
		rr->line = it.line;
		if (it.kind == SP_AUDIT_ITEM_CTRL) {
			if (it.ctrl && !strcmp(it.ctrl, "-D")) {	/* delete all rules */
				refs_free(r);
				err = refs_new(r);
				r->has_exclude = 0;
			}
			continue;
		}
		rr->is_del = it.kind == SP_AUDIT_ITEM_DEL;
		int e = rr->is_del ? sp_audit_ref_del(r->ref, it.blob, it.blob_len)
				   : sp_audit_ref_add(r->ref, it.blob, it.blob_len, (uint32_t)i);
		if (e == -ENOMEM)
			return e;
		if (!e && rr->list == 5) {
			e = rr->is_del
				    ? sp_audit_ref_del(r->xref, it.blob, it.blob_len)
				    : sp_audit_ref_add(r->xref, it.blob, it.blob_len, (uint32_t)i);
			if (!e && !rr->is_del)
				r->has_exclude = 1;
		}
		rr->load_err = e;
		if (e && r->o.diags)
			sp_diags_add(r->o.diags, SP_SEV_WARNING, e, r->rules_file, it.line, 0, 0,
				     "rule not loaded: the kernel would refuse it (%s)",
				     e == -EEXIST   ? "duplicate rule"
				     : e == -ENOENT ? "no such rule or path"
						    : "invalid rule");
	}
	if (!err)
		err = sp_audit_matcher_compile(r->ref, &r->m);
	if (!err)
		err = sp_audit_matcher_compile(r->xref, &r->xm);
	return err;
}

/* ---- keys ---- */

static uint64_t khash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return h;
}

int audit_replay_key_add(struct sp_audit_replay *r, const char *k, size_t n, uint64_t count)
{
	if ((r->nkeys + 1) * 2 > r->kicap) {
		size_t cap = r->kicap ? r->kicap * 2 : 64;
		uint32_t *t = calloc(cap, sizeof(*t));
		if (!t)
			return -ENOMEM;
		for (size_t i = 0; i < r->nkeys; i++) {
			size_t s = khash(r->keys[i].key, r->keys[i].len) & (cap - 1);
			while (t[s])
				s = (s + 1) & (cap - 1);
			t[s] = (uint32_t)i + 1;
		}
		free(r->kidx);
		r->kidx = t;
		r->kicap = cap;
	}
	size_t s = khash(k, n) & (r->kicap - 1);
	for (; r->kidx[s]; s = (s + 1) & (r->kicap - 1)) {
		struct key_ent *e = &r->keys[r->kidx[s] - 1];
		if (e->len == n && !memcmp(e->key, k, n)) {
			e->count += count;
			return 0;
		}
	}
	if (r->nkeys == r->kcap) {
		size_t cap = r->kcap ? r->kcap * 2 : 16;
		struct key_ent *v = realloc(r->keys, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->keys = v;
		r->kcap = cap;
	}
	char *c = malloc(n + 1);
	if (!c)
		return -ENOMEM;
	memcpy(c, k, n);
	c[n] = 0;
	r->keys[r->nkeys] = (struct key_ent){ .key = c, .len = n, .count = count };
	r->kidx[s] = (uint32_t)++r->nkeys;
	return 0;
}

static int count_keys(struct sp_audit_replay *r, const struct sp_audit_decision *d)
{
	const char *k = d->key, *end = d->key + d->key_len;
	if (!d->has_key)
		return 0;
	while (k <= end) {
		const char *sep = memchr(k, 0x01, (size_t)(end - k));
		if (!sep)
			sep = end;
		int err = audit_replay_key_add(r, k, (size_t)(sep - k), 1);
		if (err)
			return err;
		k = sep + 1;
	}
	return 0;
}

static void hit(struct sp_audit_replay *r, int32_t id)
{
	if (id >= 0 && (size_t)id < r->nrules)
		r->rules[id].hits++;
}

/* ---- output ---- */

int audit_replay_oflush(struct sp_audit_replay *r)
{
	int err = sp_fd_write_all(r->o.out_fd, r->obuf, r->olen);
	if (err)
		return err;
	r->olen = 0;
	return 0;
}

static int oput(struct sp_audit_replay *r, const char *s, size_t n)
{
	while (n) {
		if (r->olen == OBUF_SIZE) {
			int err = audit_replay_oflush(r);
			if (err)
				return err;
		}
		size_t k = SP_MIN(n, OBUF_SIZE - r->olen);
		memcpy(r->obuf + r->olen, s, k);
		r->olen += k;
		s += k;
		n -= k;
	}
	return 0;
}

/* SP_AUDIT_REPLAY_LAUREL, _INTERPRET: an event's text, written as the event closes. */
static int laurel_put(void *ud, const char *s, size_t n)
{
	return oput(ud, s, n);
}

/* Room for one more entry in *v (n held, *cap allocated).  0 or -ENOMEM. */
static int pend_room(struct pend **v, size_t n, size_t *cap)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : 256;
	struct pend *nv = realloc(*v, c * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

/* x into the late heap: sifted up through a hole (one move a level, not a swap). */
static int late_push(struct sp_audit_replay *r, struct pend x)
{
	if (pend_room(&r->late, r->nlate, &r->late_cap))
		return -ENOMEM;
	struct pend *h = r->late;
	size_t i = r->nlate++;
	for (; i && h[(i - 1) / 2].seq > x.seq; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = x;
	return 0;
}

/* The late heap's root taken out: its last entry sifted down from the root through a hole. */
static void late_pop(struct sp_audit_replay *r)
{
	struct pend *h = r->late, last = h[--r->nlate];
	size_t n = r->nlate, i = 0;
	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && h[c + 1].seq < h[c].seq)
			c++;
		if (last.seq <= h[c].seq)
			break;
		h[i] = h[c];
	}
	h[i] = last;
}

/* Hold one kept record, and its '\n', until every record before it was decided. */
static int pend_push(struct sp_audit_replay *r, const struct sp_audit_log_rec *rec)
{
	size_t len = rec->len + 1;
	if (r->pool_len + len > r->pool_cap) {
		size_t cap = r->pool_cap ? r->pool_cap : 65536;
		while (cap < r->pool_len + len)
			cap *= 2;
		char *p = realloc(r->pool, cap);
		if (!p)
			return -ENOMEM;
		r->pool = p;
		r->pool_cap = cap;
	}
	struct pend x = { rec->seq, r->pool_len, len };
	if (r->phead < r->npend && x.seq < r->pend[r->npend - 1].seq) {
		if (late_push(r, x))
			return -ENOMEM;
	} else {
		if (r->npend == r->pend_cap && r->phead) {	/* the taken entries' room first */
			memmove(r->pend, r->pend + r->phead, (r->npend - r->phead) * sizeof(*r->pend));
			r->npend -= r->phead;
			r->phead = 0;
		}
		if (pend_room(&r->pend, r->npend, &r->pend_cap))
			return -ENOMEM;
		r->pend[r->npend++] = x;
	}
	memcpy(r->pool + r->pool_len, rec->text, rec->len);
	r->pool[r->pool_len + rec->len] = '\n';
	r->pool_len += len;
	return 0;
}

/* A kept record out in input order: written at once when every record before it is decided
 * and written (seq < floor, floor 0 while anything is held), else held.  An event's records
 * come in seq order, so once one of them is held the rest are. */
static int rec_out(struct sp_audit_replay *r, const struct sp_audit_log_rec *rec, uint64_t floor)
{
	int err;
	if (rec->seq >= floor)
		return pend_push(r, rec);
	if (r->olen + rec->len < OBUF_SIZE) {	/* the line and its '\n' fit */
		memcpy(r->obuf + r->olen, rec->text, rec->len);
		r->obuf[r->olen + rec->len] = '\n';
		r->olen += rec->len + 1;
		return 0;
	}
	if ((err = oput(r, rec->text, rec->len)))
		return err;
	return oput(r, "\n", 1);
}

/* The held record with the lowest seq (the queue's head or the late heap's root), or NULL. */
static struct pend *pend_min(struct sp_audit_replay *r)
{
	struct pend *q = r->phead < r->npend ? &r->pend[r->phead] : NULL;
	return r->nlate && (!q || r->late[0].seq < q->seq) ? r->late : q;
}

/* p (pend_min's) taken out. */
static void pend_take(struct sp_audit_replay *r, const struct pend *p)
{
	if (p == r->late)
		late_pop(r);
	else if (++r->phead == r->npend)
		r->phead = r->npend = 0;
}

/* The held texts of v[0, n) copied to *at in pool2 in v's order, their offsets updated. */
static void pend_move(struct sp_audit_replay *r, struct pend *v, size_t n, size_t *at)
{
	for (size_t i = 0; i < n; i++) {
		memcpy(r->pool2 + *at, r->pool + v[i].off, v[i].len);
		v[i].off = *at;
		*at += v[i].len;
	}
}

/*
 * When at most half the pool is held: the held texts copied to the spare pool (the queue's in
 * seq order, then the late heap's), which becomes the pool; neither the queue's order nor the
 * heap's changes.  The copy's cost is paid for by the bytes written since the pool last was
 * this size: a live stream, whose pool is seldom empty, keeps two pools of about twice its held
 * records (bounded by --window) instead of all its output.
 */
static int pool_compact(struct sp_audit_replay *r)
{
	size_t at = 0, held = 0;
	for (size_t i = r->phead; i < r->npend; i++)
		held += r->pend[i].len;
	for (size_t i = 0; i < r->nlate; i++)
		held += r->late[i].len;
	if (held > r->pool_len / 2)
		return 0;
	if (r->pool2_cap < held) {
		char *p = realloc(r->pool2, r->pool_cap);
		if (!p)
			return -ENOMEM;
		r->pool2 = p;
		r->pool2_cap = r->pool_cap;
	}
	pend_move(r, r->pend + r->phead, r->npend - r->phead, &at);
	pend_move(r, r->late, r->nlate, &at);
	char *p = r->pool;
	size_t cap = r->pool_cap;
	r->pool = r->pool2;
	r->pool_cap = r->pool2_cap;
	r->pool2 = p;
	r->pool2_cap = cap;
	r->pool_len = at;
	return 0;
}

/* s[0, n) out: a span of at least a quarter of the buffer is written from where it is (what
 * the buffer holds first), a smaller one copied into the buffer. */
static int oput_span(struct sp_audit_replay *r, const char *s, size_t n)
{
	int err;
	if (n < OBUF_SIZE / 4)
		return oput(r, s, n);
	if (r->olen && (err = audit_replay_oflush(r)))
		return err;
	return sp_fd_write_all(r->o.out_fd, s, n);
}

/* Write the held records that come before `floor` (the oldest open event's first record), in
 * input order, each run of them that lies in order in the pool as one span; the pool is emptied
 * when nothing is held and compacted when at most half of a pool over POOL_COMPACT bytes is. */
int audit_replay_pend_flush(struct sp_audit_replay *r, uint64_t floor)
{
	for (struct pend *p; (p = pend_min(r)) && p->seq < floor;) {
		size_t off = p->off, len = p->len;
		pend_take(r, p);
		while ((p = pend_min(r)) && p->seq < floor && p->off == off + len) {
			len += p->len;
			pend_take(r, p);
		}
		int err = oput_span(r, r->pool + off, len);
		if (err)
			return err;
	}
	if (r->phead == r->npend && !r->nlate)
		r->pool_len = 0;
	else if (r->pool_len > POOL_COMPACT)
		return pool_compact(r);
	return 0;
}

/* ---- events ---- */

/* The exclude list's verdict on a record of `type` from this task (ev is switched to a user
 * event; call after the main decision). */
static int excluded(struct sp_audit_replay *r, uint32_t type)
{
	struct sp_audit_decision dx;
	if (!r->has_exclude)
		return 0;
	sp_audit_event_set_kind(r->ev, SP_AUDIT_EV_USER);
	sp_audit_event_set_msgtype(r->ev, type);
	sp_audit_matcher_filter(r->xm, r->ev, &dx);
	if (dx.excluded)
		hit(r, dx.exclude_rule);
	return dx.excluded;
}

/* Which records of the event the rules keep (1 in r->keepv[i]); *d, as audit_decision_init
 * left it, becomes the decision. */
static int rules_keep(struct sp_audit_replay *r, const struct sp_audit_log_event *lev,
		      struct sp_audit_decision *d)
{
	size_t n = lev->nrec;
	int cls = audit_log_event_build(lev, r->fs, r->fs_lens, r->ev, r->need);
	int sys_rec = 0, user_rec = 0;
	struct xcache { uint32_t type; int8_t ex; } cache[8];
	size_t ncache = 0;
	if (cls < 0)
		return cls;
	if (cls == SP_AUDIT_LOG_SYSCALL || cls == SP_AUDIT_LOG_URING) {
		int indep = 0;
		sp_audit_matcher_filter(r->m, r->ev, d);
		hit(r, d->task_rule);
		hit(r, d->exit_rule);
		for (size_t i = 0; i < n; i++)
			indep |= !log_type_is_companion(lev->rec[i].type);
		sys_rec = d->record ||
			  (indep && d->context == SP_AUDIT_CTX_ACTIVE && d->exit != SP_AUDIT_NEVER);
	} else if (cls == SP_AUDIT_LOG_USER) {
		sp_audit_matcher_filter(r->m, r->ev, d);
		hit(r, d->user_rule);
		user_rec = d->record;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t t = lev->rec[i].type;
		int keep;
		if (cls == SP_AUDIT_LOG_DAEMON || log_type_is_daemon(t))
			keep = 1;
		else if (cls <= SP_AUDIT_LOG_URING && log_type_is_companion(t))
			keep = sys_rec;
		else if (log_type_is_user(t) && cls == SP_AUDIT_LOG_USER)
			keep = user_rec;
		else
			keep = 1;
		if (keep && r->has_exclude && exclude_may_match(r, t)) {
			size_t c = 0;
			while (c < ncache && cache[c].type != t)
				c++;
			if (c == ncache) {
				int x = excluded(r, t);
				if (ncache < SP_ARRAY_SIZE(cache))
					cache[ncache++] = (struct xcache){ t, (int8_t)x };
				keep = !x;
			} else {
				keep = !cache[c].ex;
			}
		}
		r->keepv[i] = (uint8_t)keep;
	}
	return 0;
}

static ssize_t interp_write(void *c, const char *s, size_t n)
{
	return oput(c, s, n) ? -1 : (ssize_t)n;
}

static int interp_open(struct sp_audit_replay *r)
{
	cookie_io_functions_t io = { .write = interp_write };
	unsigned fl = r->o.flags;
	struct sp_audit_report_opts ro = {
		.sz = sizeof(ro),
		.kind = (fl & SP_AUDIT_REPLAY_CSV) ? SP_AUDIT_REPORT_CSV :
			(fl & SP_AUDIT_REPLAY_TEXT) ? SP_AUDIT_REPORT_TEXT : SP_AUDIT_REPORT_INTERPRET,
		.extra = ((fl & SP_AUDIT_REPLAY_EXTRA_KEYS) ? SP_AUDIT_REPORT_EXTRA_KEYS : 0) |
			 ((fl & SP_AUDIT_REPLAY_EXTRA_OBJ2) ? SP_AUDIT_REPORT_EXTRA_OBJ2 : 0) |
			 ((fl & SP_AUDIT_REPLAY_EXTRA_TIME) ? SP_AUDIT_REPORT_EXTRA_TIME : 0),
	};
	if (!(ro.out = r->interp_f = fopencookie(r, "w", io)))
		return -ENOMEM;
	return sp_audit_report_new(&ro, &r->interp);
}

/* The event to the reports: the caller's and the interpretation's (selected or only read). */
static int reports_event(struct sp_audit_replay *r, const struct sp_audit_log_event *lev,
			 int selected)
{
	struct sp_audit_report *v[2] = { r->o.report, r->interp };
	for (int i = 0; i < 2; i++) {
		int err = v[i] ? audit_report_event_sel(v[i], lev, r->keepv, selected) : 0;
		if (err)
			return err;
	}
	return 0;
}

/* An event decided: `kept` of its n records kept. */
static void count_event(struct sp_audit_replay *r, size_t kept, size_t n)
{
	r->st.records_kept += kept;
	r->st.records_dropped += n - kept;
	if (kept)
		r->st.kept++;
	else
		r->st.dropped++;
}

/* ---- an EOE after its event closed ---- */

/* Note a decided event: its stamp, and whether it kept a companion record (as its EOE is). */
static void decided_note(struct sp_audit_replay *r, const struct sp_audit_log_event *lev)
{
	uint8_t kept = 0;
	for (size_t i = 0; i < lev->nrec && !kept; i++)
		kept = r->keepv[i] && log_type_is_companion(lev->rec[i].type);
	r->decided[r->ndecided++ % LATE_RING] = (struct decided){
		.sec = lev->sec, .node_hash = lev->node_hash, .msec = lev->msec,
		.serial = lev->serial, .kept = kept
	};
}

/* An event that is an EOE alone, of an event decided before: the kernel sends EOE after its
 * event's other records, so it came after the reader closed that event (a stream's idle close,
 * the window).  It carries nothing to decide: it is kept when its event's companions were
 * (and the exclude list passes it), and written to a raw output only.  1 when lev is one
 * (taken), 0 when not, -errno. */
static int late_eoe(struct sp_audit_replay *r, const struct sp_audit_log_event *lev)
{
	const struct decided *d = NULL;
	int keep, err;
	if (lev->nrec != 1 || lev->rec[0].type != LT_EOE)
		return 0;
	r->lone_eoe = 1;
	for (uint64_t k = 1; k <= LATE_RING && k <= r->ndecided && !d; k++) {	/* newest first */
		const struct decided *c = &r->decided[(r->ndecided - k) % LATE_RING];
		if (c->serial == lev->serial && c->sec == lev->sec && c->msec == lev->msec &&
		    c->node_hash == lev->node_hash)
			d = c;
	}
	if (!d)
		return 0;
	keep = d->kept && !(r->has_exclude && exclude_may_match(r, LT_EOE) && excluded(r, LT_EOE));
	if (keep && r->o.out_fd > 0 && !(r->o.flags & EVENT_FORMATS) &&
	    (err = pend_push(r, &lev->rec[0])))
		return err;
	count_event(r, (size_t)keep, 1);
	return 1;
}

static int on_event(void *ud, const struct sp_audit_log_event *lev)
{
	struct sp_audit_replay *r = ud;
	struct sp_audit_decision d;
	size_t n = lev->nrec, kept = 0;
	int err, syscall_kept = 0;

	if (r->part && (err = audit_replay_part_note(r->part, lev, r->finishing)))
		return r->err = err;
	if ((err = late_eoe(r, lev)))
		return err < 0 ? (r->err = err) : 0;
	if (n > r->keepcap) {
		uint8_t *k = realloc(r->keepv, n);
		if (!k)
			return r->err = -ENOMEM;
		r->keepv = k;
		r->keepcap = n;
	}
	audit_decision_init(&d);	/* no rule's decision: what the matcher starts from too */
	if (r->o.flags & SP_AUDIT_REPLAY_NO_RULES)
		memset(r->keepv, 1, n);
	else if ((err = rules_keep(r, lev, &d)))
		return r->err = err;
	if (r->o.search && !sp_audit_search_match(r->o.search, lev, r->keepv)) {
		/* ausearch reads the records the rules kept, selected or not: their order is
		 * the report's (piped: aureport reads ausearch's output) */
		if ((err = reports_event(r, lev, 0)))
			return r->err = err;
		memset(r->keepv, 0, n);
	}
	int raw_out = r->o.out_fd > 0 && !(r->o.flags & EVENT_FORMATS);
	/* nothing held: the records before every open event's are written at once (rec_out) */
	uint64_t open_floor = raw_out && r->phead == r->npend && !r->nlate
				      ? audit_log_open_floor(r->log, lev) : 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t t = lev->rec[i].type;
		if (!r->keepv[i])
			continue;
		kept++;
		if (t == LT_SYSCALL || t == LT_URINGOP)
			syscall_kept = 1;
		if (raw_out && (err = rec_out(r, &lev->rec[i], open_floor)))
			return r->err = err;
	}
	if (kept && r->o.out_fd > 0 && (r->o.flags & SP_AUDIT_REPLAY_LAUREL) &&
	    (err = sp_audit_log_event_laurel(lev, r->keepv, d.has_key ? d.key : NULL, r->o.diags,
					     laurel_put, r)))
		return r->err = err;
	if (syscall_kept && d.record && (err = count_keys(r, &d)))
		return r->err = err;
	if (kept && (err = reports_event(r, lev, 1)))
		return r->err = err;
	if (r->o.report || r->interp) {	/* the floor is a walk of the open events */
		uint64_t floor = audit_log_open_floor(r->log, NULL);
		audit_report_advance(r->o.report, floor);
		audit_report_advance(r->interp, floor);
	}
	count_event(r, kept, n);
	decided_note(r, lev);
	return 0;
}

/* A replay with o's options (NULL: the defaults) and nothing opened; 0 or -errno. */
static int replay_alloc(const struct sp_audit_replay_opts *o, const char *file,
			struct sp_audit_replay **out)
{
	struct sp_audit_replay *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (o)
		r->o = *o;
	else
		r->o.out_fd = -1;
	if (!o || !SP_OPTS_HAS(o, search))
		r->o.search = NULL;
	if (!o || !SP_OPTS_HAS(o, flags))
		r->o.flags = 0;
	if (!o || !SP_OPTS_HAS(o, report))
		r->o.report = NULL;
	if ((r->o.flags & EVENT_FORMATS) & ((r->o.flags & EVENT_FORMATS) - 1)) {
		free(r);	/* one event format at most */
		return -EINVAL;
	}
	r->rules_file = file;
	r->next_ino = 0x5350000000000001ull;
	*out = r;
	return 0;
}

/* What a replay reads and writes with: its event, output buffer, interpretation and reader. */
static int replay_open_io(struct sp_audit_replay *r)
{
	int err = sp_audit_event_new(&r->ev);
	if (err)
		return err;
	if (r->o.out_fd > 0 && !(r->obuf = malloc(OBUF_SIZE)))
		return -ENOMEM;
	if (r->o.out_fd > 0 && (r->o.flags & AUSEARCH_FORMATS) && (err = interp_open(r)))
		return err;
	struct sp_audit_log_opts lo = { .sz = sizeof(lo),
					.window = r->o.window,
					.on_event = on_event,
					.ud = r,
					.diags = r->o.diags };
	if ((err = sp_audit_log_new(&lo, &r->log)))
		return err;
	audit_log_set_need(r->log, r->need);
	return 0;
}

SP_API int sp_audit_replay_new(const char *text, size_t len, const char *file,
			       const struct sp_audit_replay_opts *o, struct sp_audit_replay **out)
{
	struct sp_audit_replay *r;
	int err;
	const struct sp_audit_ruleset *given = SP_OPTS_HAS(o, rules) ? o->rules : NULL;
	if ((!text && !given) || !out || (o && !SP_OPTS_HAS(o, diags)))
		return -EINVAL;
	if ((err = replay_alloc(o, file, &r)))
		return err;
	if (given) {
		r->rs = (struct sp_audit_ruleset *)given;
		r->rs_borrowed = 1;
	} else if ((err = sp_audit_ruleset_parse(text, len, file, r->o.parse, &r->rs,
						 r->o.diags))) {
		goto fail;
	}
	r->nrules = sp_audit_ruleset_count(r->rs);
	r->rules = calloc(r->nrules ? r->nrules : 1, sizeof(*r->rules));
	err = -ENOMEM;
	if (!r->rules || sp_audit_fsview_new(&r->fs))
		goto fail;
	err = build_fs(r);
	if (!err)
		err = load_rules(r);
	if (!err)
		err = replay_open_io(r);
	if (err)
		goto fail;
	*out = r;
	return 0;
fail:
	sp_audit_replay_free(r);
	return err;
}

int audit_replay_new_part(const struct sp_audit_replay *owner, const struct sp_audit_replay_opts *o,
			  struct sp_audit_replay **out)
{
	struct sp_audit_replay *r;
	int err = replay_alloc(o, owner->rules_file, &r);
	if (err)
		return err;
	r->rs = owner->rs;
	r->rs_borrowed = r->engines_borrowed = 1;
	r->fs = owner->fs;
	r->ref = owner->ref;
	r->xref = owner->xref;
	r->m = owner->m;
	r->xm = owner->xm;
	r->has_exclude = owner->has_exclude;
	memcpy(r->xtypes, owner->xtypes, sizeof(r->xtypes));
	r->nxtypes = owner->nxtypes;
	r->xany = owner->xany;
	r->need = owner->need;
	r->fs_lens = owner->fs_lens;
	r->nrules = owner->nrules;
	if (!(r->rules = malloc((r->nrules ? r->nrules : 1) * sizeof(*r->rules)))) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < r->nrules; i++) {
		r->rules[i] = owner->rules[i];
		r->rules[i].hits = 0;
	}
	if ((err = replay_open_io(r)))
		goto fail;
	*out = r;
	return 0;
fail:
	sp_audit_replay_free(r);
	return err;
}

SP_API void sp_audit_replay_free(struct sp_audit_replay *r)
{
	if (!r)
		return;
	sp_audit_report_free(r->interp);
	if (r->interp_f)
		fclose(r->interp_f);	/* (finish flushed it: nothing is written now) */
	if (r->ow)
		sp_audit_record_writer_finish(r->ow);
	sp_audit_log_free(r->log);
	sp_audit_event_free(r->ev);
	if (!r->engines_borrowed) {
		sp_audit_matcher_free(r->m);
		sp_audit_matcher_free(r->xm);
		refs_free(r);
		sp_audit_fsview_free(r->fs);
	}
	if (!r->rs_borrowed)
		sp_audit_ruleset_free(r->rs);
	for (size_t i = 0; i < r->nkeys; i++)
		free(r->keys[i].key);
	free(r->keys);
	free(r->kidx);
	free(r->rules);
	free(r->obuf);
	free(r->pend);
	free(r->late);
	free(r->pool);
	free(r->pool2);
	free(r->keepv);
	free(r);
}

/* The output takes the format of the first input; a second format is refused. */
int audit_replay_out_claim(struct sp_audit_replay *r, int kind, const char *file)
{
	if (r->o.out_fd <= 0 || r->out_kind == kind)
		return 0;
	if (kind == OUT_STREAM && (r->o.flags & EVENT_FORMATS)) {
		if (r->o.diags)
			sp_diags_add(r->o.diags, SP_SEV_ERROR, -EINVAL, file, 0, 0, 0,
				     (r->o.flags & SP_AUDIT_REPLAY_LAUREL) ?
				     "output: laurel's JSON is written for audit.log inputs only" :
				     "output: ausearch's formats are written for audit.log inputs only");
		return -EINVAL;
	}
	if (r->out_kind == OUT_NONE) {
		r->out_kind = kind;
		return kind == OUT_STREAM ? sp_audit_record_writer_new(r->o.out_fd, &r->ow) : 0;
	}
	if (r->o.diags)
		sp_diags_add(r->o.diags, SP_SEV_ERROR, -EINVAL, file, 0, 0, 0,
			     "output: audit.log and stream inputs cannot share one output");
	return -EINVAL;
}

SP_API int sp_audit_replay_feed(struct sp_audit_replay *r, const char *file, const void *buf,
				size_t len)
{
	int rc = audit_replay_out_claim(r, OUT_LOG, file);
	if (rc)
		return rc;
	if (file != r->decided_file) {	/* a late EOE follows an event of its own input */
		r->decided_file = file;
		r->ndecided = 0;
	}
	rc = sp_audit_log_feed(r->log, file, buf, len);
	if (rc)
		return r->err ? r->err : rc;
	return r->o.out_fd > 0 && r->out_kind == OUT_LOG ? audit_replay_pend_flush(r, audit_log_open_floor(r->log, NULL))
							  : 0;
}

SP_API int sp_audit_replay_stream(struct sp_audit_replay *r, const char *file, const void *buf,
				  size_t len)
{
	struct sp_audit_record_reader *rd;
	struct sp_audit_decision d;
	struct sp_diags local, *dg = r->o.diags;
	int rc = audit_replay_out_claim(r, OUT_STREAM, file);
	if (rc)
		return rc;
	if (sp_audit_search_active(r->o.search)) {
		if (dg)
			sp_diags_add(dg, SP_SEV_ERROR, -EINVAL, file, 0, 0, 0,
				     "ausearch's selection reads audit.log inputs, not recorded streams");
		return -EINVAL;
	}
	if (r->o.report) {
		if (dg)
			sp_diags_add(dg, SP_SEV_ERROR, -EINVAL, file, 0, 0, 0,
				     "aureport's reports read audit.log inputs, not recorded streams");
		return -EINVAL;
	}
	rc = sp_audit_record_reader_new(buf, len, &rd);
	if (rc) {
		if (dg)
			sp_diags_add_offset(dg, SP_SEV_ERROR, rc, file, 0,
					    "record: bad stream header");
		return rc;
	}
	sp_diags_init(&local, NULL);
	while ((rc = sp_audit_record_read(rd, r->ev, &local)) == 1) {
		sp_audit_matcher_filter(r->m, r->ev, &d);
		hit(r, d.task_rule);
		hit(r, d.exit_rule);
		hit(r, d.user_rule);
		if (d.record && d.excluded)
			hit(r, d.exclude_rule);
		r->st.stream_events++;
		if (d.record && !d.excluded) {
			r->st.kept++;
			if ((rc = count_keys(r, &d)))
				break;
			if (r->ow && (rc = sp_audit_record_write(r->ow, r->ev)))
				break;
		} else {
			r->st.dropped++;
		}
	}
	if (rc < 0 && dg && local.n)
		sp_diags_add_offset(dg, SP_SEV_ERROR, rc, file, local.v[0].offset, "%s",
				    local.v[0].msg);
	sp_diags_release(&local);
	sp_audit_record_reader_free(rd);
	return rc < 0 ? rc : 0;
}

SP_API int sp_audit_replay_finish(struct sp_audit_replay *r)
{
	r->finishing = 1;
	int rc = sp_audit_log_finish(r->log);
	r->finishing = 0;
	r->ndecided = 0;
	r->decided_file = NULL;
	if (rc)
		return r->err ? r->err : rc;
	if (r->ow) {
		rc = sp_audit_record_writer_finish(r->ow);	/* flushes and frees */
		r->ow = NULL;
		return rc;
	}
	if (r->interp && (rc = sp_audit_report_finish(r->interp)))
		return rc;
	if (r->o.out_fd > 0 && (rc = audit_replay_pend_flush(r, UINT64_MAX)))
		return rc;
	return r->o.out_fd > 0 ? audit_replay_oflush(r) : 0;
}

SP_API int sp_audit_replay_idle(struct sp_audit_replay *r)
{
	int rc = audit_log_close_open(r->log);
	if (rc)
		return r->err ? r->err : rc;
	if (r->o.out_fd <= 0 || r->out_kind != OUT_LOG)
		return 0;
	if (r->interp && ((rc = audit_report_idle(r->interp)) || fflush(r->interp_f)))
		return r->err ? r->err : rc ? rc : -EIO;
	if ((rc = audit_replay_pend_flush(r, UINT64_MAX)))
		return rc;
	return audit_replay_oflush(r);
}

SP_API int sp_audit_replay_flush(struct sp_audit_replay *r)
{
	if (r->o.out_fd <= 0 || r->out_kind != OUT_LOG)
		return 0;
	if (r->interp_f && fflush(r->interp_f))
		return r->err ? r->err : -EIO;
	return audit_replay_oflush(r);
}

/* Exchange what the rules decide with: the parsed set, its tables, fs view and matchers. */
static void rules_swap(struct sp_audit_replay *a, struct sp_audit_replay *b)
{
#define SWAP(f) do { __typeof__(a->f) t_ = a->f; a->f = b->f; b->f = t_; } while (0)
	SWAP(rules_file); SWAP(rs); SWAP(rs_borrowed); SWAP(engines_borrowed); SWAP(fs);
	SWAP(ref); SWAP(xref); SWAP(m); SWAP(xm); SWAP(has_exclude); SWAP(nxtypes); SWAP(xany);
	SWAP(rules); SWAP(nrules); SWAP(need); SWAP(fs_lens); SWAP(next_ino);
#undef SWAP
	uint32_t xt[16];
	memcpy(xt, a->xtypes, sizeof(xt));
	memcpy(a->xtypes, b->xtypes, sizeof(xt));
	memcpy(b->xtypes, xt, sizeof(xt));
}

SP_API int sp_audit_replay_reload(struct sp_audit_replay *r, const char *text, size_t len,
				  const char *file, unsigned flags)
{
	struct sp_audit_replay_opts o = r->o;
	struct sp_audit_replay *n;
	size_t errors = r->o.diags ? r->o.diags->nerrors : 0;
	int err;

	if (!text || (r->o.flags & SP_AUDIT_REPLAY_NO_RULES))
		return -EINVAL;
	o.out_fd = -1;
	o.rules = NULL;
	o.search = NULL;
	if ((err = sp_audit_replay_new(text, len, file, &o, &n)))
		return err;	/* the set in use stays */
	if (!(flags & SP_AUDIT_RELOAD_PARTIAL) && r->o.diags && r->o.diags->nerrors > errors) {
		sp_audit_replay_free(n);
		return -EINVAL;
	}
	rules_swap(r, n);
	audit_log_set_need(r->log, r->need);
	sp_audit_replay_free(n);	/* the old set */
	return 0;
}

SP_API void sp_audit_replay_get_stats(const struct sp_audit_replay *r,
				      struct sp_audit_replay_stats *st)
{
	struct sp_audit_log_stats ls;
	sp_audit_log_get_stats(r->log, &ls);
	const struct sp_audit_log_stats *p = &r->plog;
	*st = r->st;
	st->lines = ls.lines + p->lines;
	st->records = ls.records + p->records;
	st->malformed = ls.malformed + p->malformed;
	st->truncated = ls.truncated + p->truncated;
	st->skipped = ls.skipped + p->skipped;
	st->bytes = ls.bytes + p->bytes;
	st->events = ls.events + p->events + r->st.stream_events;
}

SP_API size_t sp_audit_replay_rule_count(const struct sp_audit_replay *r)
{
	return r->nrules;
}

SP_API int sp_audit_replay_rule(const struct sp_audit_replay *r, size_t i,
				struct sp_audit_replay_rule *out)
{
	struct sp_audit_item it;
	if (i >= r->nrules)
		return -ERANGE;
	sp_audit_ruleset_item(r->rs, i, &it);
	if (it.kind == SP_AUDIT_ITEM_CTRL)
		return -ENOENT;
	*out = (struct sp_audit_replay_rule){ .file = r->rules_file,
					      .line = r->rules[i].line,
					      .list = r->rules[i].list,
					      .load_err = r->rules[i].load_err,
					      .is_del = r->rules[i].is_del,
					      .hits = r->rules[i].hits };
	return 0;
}

SP_API size_t sp_audit_replay_key_count(const struct sp_audit_replay *r)
{
	return r->nkeys;
}

SP_API int sp_audit_replay_key(const struct sp_audit_replay *r, size_t i, const char **key,
			       uint64_t *count)
{
	if (i >= r->nkeys)
		return -ERANGE;
	*key = r->keys[i].key;
	*count = r->keys[i].count;
	return 0;
}
