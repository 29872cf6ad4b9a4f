/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report.c - aureport 3.0.9's reports over the events a replay keeps: the summary (aureport's
 * default), and -k/--key, -x/--executable, -f/--file, -au/--auth, -l/--login, -t/--log, each as
 * a list or (but -t) as aureport --summary's count table.
 *
 * Mirrors (audit-userspace src/): sp_audit_report_event ~ process_event() in aureport.c with
 * scan() and per_event_summary()/per_event_detailed()/do_summary_total() of aureport-scan.c;
 * the text ~ print_title(), print_per_event_item() and print_wrap_up() of aureport-output.c;
 * the order ~ lol_add_record(), check_events() and get_ready_event() of ausearch-lol.c;
 * the fields ~ extract_search_items() (search_parse.c) with the parsers switched on as
 * aureport's check_params() switches them for each report (event_exe = dummy, ...), pid and
 * success always.  aureport's own behaviour is kept because its text is the oracle: an event
 * with a record the parsers refuse is not counted at all, uids print as signed numbers (no
 * name lookups: aureport without -i), a missing string prints "(null)" where aureport hands
 * printf a NULL, counts sort by hits with ties in first-seen order (slist_sort_by_hits is a
 * stable exchange sort), a file list line skips leading names whose PATH record ends in
 * nametype=PARENT, the time range runs from the first record read to the last event handed
 * out, an AVC without comm= (a policy-load notice) is refused in the summary.
 *
 * aureport's order is re-played, since its numbered lines, its time range and the order of
 * count ties depend on it: the kept records of closed events are read again in input order
 * (by their position, once no open event of the replay holds an earlier record) into lol's
 * model (ausearch-lol.c): a record joins its building event or opens one; an event completes
 * when a record of a new event is 2 s (auditd's default end_of_event_timeout) past it or when
 * its first record is of a type written alone; get_ready_event() hands out the event with the
 * lowest stamp, only when that one is complete.  With ausearch's selection (opts.piped) the
 * model runs twice, as `ausearch --raw ... | aureport` does: ausearch's reader over every
 * record the rules kept, its selected events then, whole and in the order it hands them
 * out, through aureport's.  The file switch is process_logs()'s: the summary's last event is
 * the last input's, -t has a line per input.
 *
 * Invariants: a closed event is buffered until the simulation has read all its records and
 * handed them out (in a replay the wait is bounded by the replay's grouping window and by lol's
 * open events, as aureport's own memory is; without a replay's floor, until the finish); the
 * count tables and the summary's distinct users, terminals, hosts, executables, commands,
 * files, keys and pids grow with the distinct values only (aureport's lists do too); one
 * event's file names and keys are held while it is counted, then dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit/log/log_int.h"
#include "audit/log/search_int.h"

/* ---- a set of strings with hits, in first-seen order ---- */

struct rep_ent {
	char *s;
	uint64_t hits;
};

struct rep_set {
	struct rep_ent *v;
	size_t n, cap;
	uint32_t *idx;			/* open addressing: index + 1 into v, 0 = empty */
	size_t icap;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int set_grow(struct rep_set *st)
{
	size_t ic = st->icap ? st->icap * 2 : 64;
	uint32_t *ni = calloc(ic, sizeof(*ni));
	if (!ni)
		return -ENOMEM;
	for (size_t i = 0; i < st->n; i++) {
		size_t h = (size_t)str_hash(st->v[i].s) & (ic - 1);
		while (ni[h])
			h = (h + 1) & (ic - 1);
		ni[h] = (uint32_t)(i + 1);
	}
	free(st->idx);
	st->idx = ni;
	st->icap = ic;
	return 0;
}

/* slist_add_if_uniq(): one more hit for s, appended when new.  0 or -ENOMEM. */
static int set_add(struct rep_set *st, const char *s)
{
	size_t h;

	if (st->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((st->n + 1) * 2 > st->icap && set_grow(st))
		return -ENOMEM;
	for (h = (size_t)str_hash(s) & (st->icap - 1); st->idx[h]; h = (h + 1) & (st->icap - 1)) {
		struct rep_ent *e = &st->v[st->idx[h] - 1];
		if (!strcmp(e->s, s)) {
			e->hits++;
			return 0;
		}
	}
	if (st->n == st->cap) {
		size_t nc = st->cap ? st->cap * 2 : 16;
		struct rep_ent *nv = realloc(st->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		st->v = nv;
		st->cap = nc;
	}
	if (!(st->v[st->n].s = strdup(s)))
		return -ENOMEM;
	st->v[st->n].hits = 1;
	st->idx[h] = (uint32_t)(++st->n);
	return 0;
}

static void set_free(struct rep_set *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->v[i].s);
	free(st->v);
	free(st->idx);
	memset(st, 0, sizeof(*st));
}

/* slist_sort_by_hits(): most hits first, ties in first-seen order (a stable sort). */
static void set_sort(struct rep_set *st)
{
	for (size_t i = 1; i < st->n; i++) {
		struct rep_ent e = st->v[i];
		size_t j = i;
		while (j && st->v[j - 1].hits < e.hits) {
			st->v[j] = st->v[j - 1];
			j--;
		}
		st->v[j] = e;
	}
}

/* ---- one event's lists (aureport's s->filename and s->key) ---- */

struct ev_list {
	char *buf;
	size_t len, cap;
	size_t *off;
	uint8_t *parent;		/* file names: the PATH record ends in nametype=PARENT */
	size_t n, ncap;
};

static int list_add(struct ev_list *l, const char *s)
{
	size_t k = strlen(s) + 1;

	if (l->n == l->ncap) {
		size_t nc = l->ncap ? l->ncap * 2 : 8;
		size_t *no = realloc(l->off, nc * sizeof(*no));
		if (!no)
			return -ENOMEM;
		l->off = no;
		uint8_t *np = realloc(l->parent, nc);
		if (!np)
			return -ENOMEM;
		l->parent = np;
		l->ncap = nc;
	}
	if (l->len + k > l->cap) {
		size_t nc = l->cap ? l->cap : 256;
		while (nc < l->len + k)
			nc *= 2;
		char *nb = realloc(l->buf, nc);
		if (!nb)
			return -ENOMEM;
		l->buf = nb;
		l->cap = nc;
	}
	memcpy(l->buf + l->len, s, k);
	l->off[l->n] = l->len;
	l->parent[l->n++] = 0;
	l->len += k;
	return 0;
}

static const char *list_at(const struct ev_list *l, size_t i)
{
	return l->buf + l->off[i];
}

static void list_free(struct ev_list *l)
{
	free(l->buf);
	free(l->off);
	free(l->parent);
}

/* ---- the report ---- */

struct sp_audit_report {
	int kind, summary, piped;
	FILE *out;
	int titled, err;
	unsigned long line_item;
	int found;			/* a list line was written */
	/* aureport's times: the first record read; the current input's first and last events */
	int have_very_first, have_first, started;
	uint64_t very_first_sec, first_sec, last_sec;
	uint32_t very_first_ms, first_ms, last_ms;
	const char *file;		/* the current input (of the last record read) */
	const char **inq;		/* inputs announced and not yet read (sp_audit_report_input) */
	size_t qhead, nq, qcap;
	/* the simulation: lol's nodes, and the closed events by their next record */
	struct lol { struct lent *v; size_t n, cap; } lol[2];	/* [1]: piped, aureport's */
	struct pev **heap;
	size_t nheap, hcap;
	/* aureport's parser switches (check_params) as an ausearch criteria set */
	struct sp_audit_search gates;
	char dummy[1];
	int want_term, want_comm, want_host;
	struct ev_list files, keys;
	struct search_sink sink;
	struct search_items it;		/* the current event's fields (large: not on the stack) */
	/* do_summary_total()'s counters */
	uint64_t changes, acct_changes, good_logins, bad_logins, good_auth, bad_auth, events;
	uint64_t avcs, mac, failed_syscalls, anomalies, responses, crypto, integ, virt;
	struct rep_set users, terms, hosts, exes, comms, sfiles, skeys, pids;
	struct audit_norm *norm;	/* CSV, TEXT: the writer */
	struct audit_names *names;	/* INTERPRET, CSV, TEXT: uid/gid names looked up lately */
};

/* The kinds that write the selected events as ausearch does, not a report. */
static int events_out(int kind)
{
	return kind >= SP_AUDIT_REPORT_INTERPRET;
}

static int sink_file(void *ud, const char *name)
{
	return list_add(&((struct sp_audit_report *)ud)->files, name);
}

static void sink_ftype(void *ud, const char *rest)
{
	struct ev_list *l = &((struct sp_audit_report *)ud)->files;
	if (l->n)
		l->parent[l->n - 1] = !strcmp(rest, "PARENT");
}

static int sink_key(void *ud, const char *key)
{
	return list_add(&((struct sp_audit_report *)ud)->keys, key);
}

/* check_params(): which parsers each report switches on (pid and success: always). */
static void set_gates(struct sp_audit_report *r)
{
	struct sp_audit_search *g = &r->gates;
	int k = r->kind, loginuid = 1;

	memset(g, 0, sizeof(*g));
	g->euid = g->gid = g->egid = SEARCH_NO_ID;
	g->session = SEARCH_NO_SES;
	g->machine = -1;
	g->pid = 0;
	g->ppid = -1;
	g->event_id = -1;
	g->uid = UINT32_MAX;
	g->success = 1;
	if (k == SP_AUDIT_REPORT_SUMMARY || k == SP_AUDIT_REPORT_KEY || k == SP_AUDIT_REPORT_EXE ||
	    k == SP_AUDIT_REPORT_FILE || k == SP_AUDIT_REPORT_AUTH || k == SP_AUDIT_REPORT_LOGIN)
		g->exe = r->dummy;
	if (k == SP_AUDIT_REPORT_SUMMARY || k == SP_AUDIT_REPORT_FILE)
		g->file = r->dummy;
	if (k == SP_AUDIT_REPORT_SUMMARY || k == SP_AUDIT_REPORT_KEY)
		g->key = r->dummy;
	if (k == SP_AUDIT_REPORT_AUTH || k == SP_AUDIT_REPORT_LOG)
		loginuid = 0;
	if (k == SP_AUDIT_REPORT_AUTH)
		g->uid = 1;
	g->loginuid = loginuid ? 1u : 0xfffffffeu;
	r->want_term = k == SP_AUDIT_REPORT_SUMMARY || k == SP_AUDIT_REPORT_EXE ||
		       k == SP_AUDIT_REPORT_LOGIN || k == SP_AUDIT_REPORT_AUTH;
	r->want_host = r->want_term;
	r->want_comm = k == SP_AUDIT_REPORT_SUMMARY;
}

SP_API int sp_audit_report_new(const struct sp_audit_report_opts *o, struct sp_audit_report **out)
{
	struct sp_audit_report *r;

	if (!o || !out || !o->out || o->kind < SP_AUDIT_REPORT_SUMMARY ||
	    o->kind > SP_AUDIT_REPORT_TEXT ||
	    (o->summary && o->kind >= SP_AUDIT_REPORT_LOG))
		return -EINVAL;
	if (!(r = calloc(1, sizeof(*r))))
		return -ENOMEM;
	r->kind = o->kind;
	r->summary = o->summary || o->kind == SP_AUDIT_REPORT_SUMMARY;
	r->out = o->out;
	r->piped = o->piped || events_out(o->kind);
	if (events_out(o->kind) && audit_names_new(&r->names)) {
		free(r);
		return -ENOMEM;
	}
	if (o->kind >= SP_AUDIT_REPORT_CSV) {
		unsigned x = o->sz >= offsetof(struct sp_audit_report_opts, extra) + sizeof(o->extra) ?
			     o->extra : 0;
		struct audit_norm_opts no = { o->kind == SP_AUDIT_REPORT_TEXT,
					      !!(x & SP_AUDIT_REPORT_EXTRA_KEYS),
					      !!(x & SP_AUDIT_REPORT_EXTRA_OBJ2),
					      !!(x & SP_AUDIT_REPORT_EXTRA_TIME) };
		if (audit_norm_new(&no, &r->norm)) {
			audit_names_free(r->names);
			free(r);
			return -ENOMEM;
		}
	}
	set_gates(r);
	r->sink = (struct search_sink){ sink_file, sink_ftype, sink_key, r };
	*out = r;
	return 0;
}

SP_API int sp_audit_report_found(const struct sp_audit_report *r)
{
	return r && r->found;
}

/* ---- the text ---- */

/* print_title(): a blank line, then the report's heading. */
static void put_title(struct sp_audit_report *r)
{
	static const char *const sum[] = {
		[SP_AUDIT_REPORT_SUMMARY] = "Summary Report\n======================\n",
		[SP_AUDIT_REPORT_KEY] = "Key Summary Report\n===========================\n"
					"total  key\n===========================\n",
		[SP_AUDIT_REPORT_EXE] = "Executable Summary Report\n"
					"=================================\ntotal  file\n"
					"=================================\n",
		[SP_AUDIT_REPORT_FILE] = "File Summary Report\n===========================\n"
					 "total  file\n===========================\n",
		[SP_AUDIT_REPORT_AUTH] = "Authentication Summary Report\n"
					 "=============================\ntotal  acct\n"
					 "=============================\n",
		[SP_AUDIT_REPORT_LOGIN] = "Login Summary Report\n============================\n"
					  "total  auid\n============================\n",
		[SP_AUDIT_REPORT_LOG] = "",
	};
	static const char *const det[] = {
		[SP_AUDIT_REPORT_SUMMARY] = "",
		[SP_AUDIT_REPORT_KEY] = "Key Report\n===============================================\n"
					"# date time key success exe auid event\n"
					"===============================================\n",
		[SP_AUDIT_REPORT_EXE] = "Executable Report\n====================================\n"
					"# date time exe term host auid event\n"
					"====================================\n",
		[SP_AUDIT_REPORT_FILE] = "File Report\n===============================================\n"
					 "# date time file syscall success exe auid event\n"
					 "===============================================\n",
		[SP_AUDIT_REPORT_AUTH] = "Authentication Report\n"
					 "============================================\n"
					 "# date time acct host term exe success event\n"
					 "============================================\n",
		[SP_AUDIT_REPORT_LOGIN] = "Login Report\n"
					  "============================================\n"
					  "# date time auid host term exe success event\n"
					  "============================================\n",
		[SP_AUDIT_REPORT_LOG] = "Log Time Range Report\n=====================\n",
	};
	if (r->titled)
		return;
	r->titled = 1;
	fprintf(r->out, "\n%s", r->summary ? sum[r->kind] : det[r->kind]);
}

/* localtime() and "%x %T", or "?" (log_int.h). */
void audit_log_put_date(FILE *f, uint64_t sec)
{
	time_t t = (time_t)sec;
	struct tm tm;
	char b[64];

	/* aureport's "%x %T": the locale's date, as aureport prints it */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-y2k"
	size_t n = localtime_r(&t, &tm) ? strftime(b, sizeof(b), "%x %T", &tm) : 0;
#pragma GCC diagnostic pop
	if (n)
		fputs(b, f);
	else
		fputs("?", f);
}

/* safe_print_string() in aureport's default escape mode (tty): bytes below 0x20 as \ooo;
 * NULL prints "(null)" (log_int.h). */
void audit_log_put_safe(FILE *f, const char *s, int nl)
{
	if (!s) {
		fputs("(null)", f);
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 32)
			fprintf(f, "\\%c%c%c", '0' + ((c >> 6) & 3), '0' + ((c >> 3) & 7), '0' + (c & 7));
		else
			fputc(c, f);
	}
	if (nl)
		fputc('\n', f);
}

/* printf("%s") of a possibly NULL string, as glibc prints it. */
static const char *or_null(int has, const char *s)
{
	return has ? s : "(null)";
}

static const char *success_word(int s)
{
	return s == 0 ? "no" : s == 1 ? "yes" : "unset";
}

/* aulookup_uid() without -i: the uid as a signed number. */
static void put_uid(FILE *f, uint32_t uid)
{
	fprintf(f, "%d", (int)(int32_t)uid);
}

/* ---- one event ---- */

/* ---- aureport's events: lol (ausearch-lol.c) re-played over the kept records ---- */

/* One closed replay event's kept records, waiting for aureport's order (texts cut at 0x1D). */
struct pev {
	uint64_t sec;
	uint32_t ms, serial;
	size_t n, next;			/* records; the next one not yet read by the simulation */
	struct prec { uint64_t seq; uint32_t type; const char *file; size_t off; } *rec;
	char *text;
	char *node;			/* INTERPRET: the event's node, or NULL */
	int segs;			/* lol events holding records of it */
	int inheap;			/* records left to read: owned by the heap */
	int selected;			/* 0: read by ausearch's reader, not selected (piped) */
};

/* A lol node: the records [lo, hi) of p as one aureport event. */
struct lent {
	struct pev *p;
	size_t lo, hi;
	int status;			/* LE_EMPTY, LE_BUILDING, LE_COMPLETE */
	uint32_t type;			/* its first record's */
};
enum { LE_EMPTY = 0, LE_BUILDING = 1, LE_COMPLETE = 2 };

/* The event aureport processes: records [lo, hi) of p. */
struct rep_ev {
	const struct pev *p;
	size_t lo, hi;
	uint64_t sec;
	uint32_t serial;
};

/* list_find_msg_range(): a record with lo <= type <= hi. */
static int has_range(const struct rep_ev *e, uint32_t lo, uint32_t hi)
{
	for (size_t i = e->lo; i < e->hi; i++) {
		uint32_t t = e->p->rec[i].type;
		if (t >= lo && t <= hi)
			return 1;
	}
	return 0;
}

static int has_type(const struct rep_ev *e, uint32_t t)
{
	return has_range(e, t, t);
}

/* extract_search_items() with this report's switches: 0, 1 for an event the parsers refuse
 * (aureport does not count it), or -ENOMEM. */
static int extract(struct sp_audit_report *r, const struct rep_ev *e)
{
	struct search_items *it = &r->it;

	r->files.n = r->files.len = 0;
	r->keys.n = r->keys.len = 0;
	search_items_init(it, &r->gates);
	it->sink = &r->sink;
	it->keep[SS_TERMINAL] = (uint8_t)r->want_term;
	it->keep[SS_COMM] = (uint8_t)r->want_comm;
	it->keep[SS_HOST] = (uint8_t)r->want_host;
	for (size_t i = e->lo; i < e->hi; i++)
		if (search_items_record(it, e->p->rec[i].type, e->p->text + e->p->rec[i].off))
			return it->sink_err ? -ENOMEM : 1;
	return it->sink_err ? -ENOMEM : 0;
}

/* The start of every list line: "N. DATE TIME ". */
static void line_start(struct sp_audit_report *r, const struct rep_ev *e)
{
	put_title(r);
	r->found = 1;
	fprintf(r->out, "%lu. ", ++r->line_item);
	audit_log_put_date(r->out, e->sec);
	fputc(' ', r->out);
}

/* The first file name, past leading PARENT ones when there are several ("" if all are). */
static const char *first_file(const struct sp_audit_report *r)
{
	size_t i = 0;

	if (r->files.n > 1)
		while (i < r->files.n && r->files.parent[i])
			i++;
	return i < r->files.n ? list_at(&r->files, i) : "";
}

/* -au and -l lines: USER_AUTH (and failed USER_MGMT) with the acct, else the uid (never read
 * for -au: -1); USER_LOGIN with the acct of a failure, else the login uid. */
static void list_line_user(struct sp_audit_report *r, const struct rep_ev *e)
{
	const struct search_items *it = &r->it;
	FILE *f = r->out;

	if (r->kind == SP_AUDIT_REPORT_AUTH) {
		if (!has_type(e, 1100) && !(has_type(e, 1102) && it->success == 0))
			return;
		line_start(r, e);
		if (it->has_acct)
			audit_log_put_safe(f, it->acct, 0);
		else
			put_uid(f, it->uid);
	} else {
		if (!has_type(e, 1112))
			return;
		line_start(r, e);
		if (it->success == 0 && it->has_acct)
			audit_log_put_safe(f, it->acct, 0);
		else
			put_uid(f, it->loginuid);
	}
	fprintf(f, " %s %s %s %s %u\n", or_null(it->has[SS_HOST], it->val[SS_HOST]),
		or_null(it->has[SS_TERMINAL], it->val[SS_TERMINAL]), or_null(it->has_exe, it->exe),
		success_word(it->success), e->serial);
}

/* per_event_detailed() and print_per_event_item() for the list reports. */
static void list_line(struct sp_audit_report *r, const struct rep_ev *e)
{
	const struct search_items *it = &r->it;
	FILE *f = r->out;
	int k = r->kind;

	if (k == SP_AUDIT_REPORT_KEY) {
		if (!r->keys.n || !strcmp(list_at(&r->keys, 0), "(null)"))
			return;
		line_start(r, e);
		fprintf(f, "%s %s ", list_at(&r->keys, 0), success_word(it->success));
		audit_log_put_safe(f, it->has_exe ? it->exe : "?", 0);
		fputc(' ', f);
	} else if (k == SP_AUDIT_REPORT_EXE) {
		if (!it->has_exe)
			return;
		line_start(r, e);
		audit_log_put_safe(f, it->exe, 0);
		fprintf(f, " %s %s ", it->has[SS_TERMINAL] ? it->val[SS_TERMINAL] : "?", it->has[SS_HOST] ? it->val[SS_HOST] : "?");
	} else if (k == SP_AUDIT_REPORT_FILE) {
		if (!r->files.n)
			return;
		line_start(r, e);
		audit_log_put_safe(f, first_file(r), 0);
		fprintf(f, " %d %s ", it->syscall, success_word(it->success));
		audit_log_put_safe(f, it->has_exe ? it->exe : "?", 0);
		fputc(' ', f);
	} else {
		list_line_user(r, e);
		return;
	}
	put_uid(f, it->loginuid);
	fprintf(f, " %u\n", e->serial);
}

static int add_uid(struct rep_set *st, uint32_t uid)
{
	char b[16];
	snprintf(b, sizeof(b), "%d", (int)(int32_t)uid);
	return set_add(st, b);
}

static int add_list(struct rep_set *st, const struct ev_list *l, int skip_null)
{
	int err = 0;
	for (size_t i = 0; i < l->n && !err; i++)
		if (!skip_null || strcmp(list_at(l, i), "(null)"))
			err = set_add(st, list_at(l, i));
	return err;
}

/* do_summary_total()'s counters. */
static void total_counts(struct sp_audit_report *r, const struct rep_ev *e)
{
	const struct search_items *it = &r->it;

	r->events++;
	r->changes += (uint64_t)has_type(e, 1305) + has_type(e, 1203) + has_type(e, 1111) +
		      has_type(e, 1325) + has_type(e, 1328) + has_type(e, 2312) +
		      has_range(e, 1403, 1417);
	r->acct_changes += (uint64_t)has_type(e, 1108) + has_range(e, 1114, 1117) +
			   has_type(e, 1102) + has_type(e, 1132) + has_range(e, 2301, 2302);
	r->crypto += (uint64_t)has_range(e, 1600, 1699) + has_range(e, 2400, 2499);
	if (has_type(e, 1112)) {
		r->good_logins += it->success == 1;
		r->bad_logins += it->success == 0;
	}
	if (has_type(e, 1100) || (!has_type(e, 1102) && has_type(e, 1126))) {
		r->good_auth += it->success == 1;
		r->bad_auth += it->success == 0;
	} else if (has_type(e, 1102)) {
		r->bad_auth += it->success == 0;
	}
	r->avcs += has_type(e, 1400) || has_type(e, 1107);
	r->mac += (uint64_t)has_range(e, 1403, 1417) + has_range(e, 2300, 2399);
	r->virt += has_range(e, 2500, 2599);
	r->integ += has_range(e, 1800, 1899);
	r->failed_syscalls += it->success == 0 && it->syscall > 0;
	r->anomalies += (uint64_t)has_range(e, 2100, 2199) + has_range(e, 1700, 1799);
	r->responses += has_range(e, 2200, 2299);
}

/* do_summary_total()'s distinct values. */
static int total_sets(struct sp_audit_report *r)
{
	const struct search_items *it = &r->it;
	int err = 0;

	if (it->loginuid != 0xfffffffeu)
		err = add_uid(&r->users, it->loginuid);
	if (!err && it->has[SS_TERMINAL])
		err = set_add(&r->terms, it->val[SS_TERMINAL]);
	if (!err && it->has[SS_HOST])
		err = set_add(&r->hosts, it->val[SS_HOST]);
	if (!err && it->has_exe)
		err = set_add(&r->exes, it->exe);
	if (!err && it->has[SS_COMM])
		err = set_add(&r->comms, it->val[SS_COMM]);
	if (!err)
		err = add_list(&r->sfiles, &r->files, 0);
	if (!err && it->pid != -1)
		err = add_uid(&r->pids, (uint32_t)it->pid);
	return err ? err : add_list(&r->skeys, &r->keys, 1);
}

/* aureport's -au/-l --summary user: the acct (-au: when no login uid was read; -l: for a
 * negative login uid), else the login uid. */
static int sum_user(struct sp_audit_report *r, const struct rep_ev *e)
{
	const struct search_items *it = &r->it;

	if (r->kind == SP_AUDIT_REPORT_AUTH) {
		if (!has_type(e, 1100) && !(has_type(e, 1102) && it->success == 0))
			return 0;
		if (it->loginuid == 0xfffffffeu && it->has_acct)
			return set_add(&r->users, it->acct);
	} else {
		if (!has_type(e, 1112))
			return 0;
		if ((int32_t)it->loginuid < 0 && it->has_acct)
			return set_add(&r->users, it->acct);
	}
	return add_uid(&r->users, it->loginuid);
}

/* per_event_summary(). */
static int sum_event(struct sp_audit_report *r, const struct rep_ev *e)
{
	switch (r->kind) {
	case SP_AUDIT_REPORT_SUMMARY:
		total_counts(r, e);
		return total_sets(r);
	case SP_AUDIT_REPORT_KEY:
		return add_list(&r->skeys, &r->keys, 1);
	case SP_AUDIT_REPORT_EXE:
		return r->it.has_exe ? set_add(&r->exes, r->it.exe) : 0;
	case SP_AUDIT_REPORT_FILE:
		return add_list(&r->sfiles, &r->files, 0);
	default:
		return sum_user(r, e);
	}
}

/* An input as aureport names it: standard input ("-" or none) is "stdin". */
static const char *input_name(const char *file)
{
	return !file || !strcmp(file, "-") ? "stdin" : file;
}

/* -t's line for the input whose events were seen since the last one. */
static void log_line(struct sp_audit_report *r)
{
	const char *name = input_name(r->file);

	put_title(r);
	if (!r->have_first) {
		fprintf(r->out, "%s: no records\n", name);
		return;
	}
	fprintf(r->out, "%s: ", name);
	audit_log_put_date(r->out, r->first_sec);
	fprintf(r->out, ".%03u - ", r->first_ms);
	audit_log_put_date(r->out, r->last_sec);
	fprintf(r->out, ".%03u\n", r->last_ms);
}

/* The file switch of aureport's process_logs(): -t's line for the previous input, and the
 * last event is the new input's. */
static void next_file(struct sp_audit_report *r, const char *file)
{
	if (r->kind == SP_AUDIT_REPORT_LOG && r->started)
		log_line(r);
	/* announced inputs before this one had no record */
	while (file && r->qhead < r->nq && strcmp(r->inq[r->qhead], file)) {
		put_title(r);
		if (r->kind == SP_AUDIT_REPORT_LOG)
			fprintf(r->out, "%s: no records\n", input_name(r->inq[r->qhead]));
		r->qhead++;
	}
	if (file && r->qhead < r->nq)
		r->qhead++;
	r->started = 1;
	r->have_first = 0;
	r->last_sec = 0;
	r->last_ms = 0;
	r->file = file;
}

/* An event lol hands out: its time (-t: the input's first and last; the summary: the last),
 * then scan() and the report's work. */
static int process(struct sp_audit_report *r, const struct rep_ev *e)
{
	int rc;

	if (!e->p->selected)
		return 0;	/* (not piped: only selected events are buffered) */
	if (!r->have_first) {
		r->have_first = 1;
		r->first_sec = e->sec;
		r->first_ms = e->p->ms;
	}
	if (!r->have_very_first) {	/* piped: ausearch's first event is the first record */
		r->have_very_first = 1;
		r->very_first_sec = e->sec;
		r->very_first_ms = e->p->ms;
	}
	r->last_sec = e->sec;
	r->last_ms = e->p->ms;
	if (r->kind == SP_AUDIT_REPORT_LOG)
		return 0;
	if ((rc = extract(r, e)) > 0)
		return 0;
	if (!rc && r->summary)
		rc = sum_event(r, e);
	else if (!rc)
		list_line(r, e);
	return rc;
}

static void pev_free(struct pev *p)
{
	if (p) {
		free(p->rec);
		free(p->text);
		free(p->node);
		free(p);
	}
}

/* lol's event ordering: stamp, then serial. */
static int pev_before(const struct pev *a, const struct pev *b)
{
	if (a->sec != b->sec)
		return a->sec < b->sec;
	if (a->ms != b->ms)
		return a->ms < b->ms;
	return a->serial < b->serial;
}

static int lol_add(struct sp_audit_report *r, int st, struct pev *p, size_t i);

/* INTERPRET, CSV, TEXT: the records [lo, hi) of p, as ausearch -i (or --format csv|text)
 * prints the event lol handed out. */
static int events_print(struct sp_audit_report *r, const struct pev *p, size_t lo, size_t hi)
{
	struct audit_interp_rec *v = calloc(hi - lo, sizeof(*v));
	int rc;
	if (!v)
		return -ENOMEM;
	for (size_t i = lo; i < hi; i++)
		v[i - lo] = (struct audit_interp_rec){ p->rec[i].type, p->text + p->rec[i].off,
						       strlen(p->text + p->rec[i].off) };
	struct audit_interp_ev ev = { p->sec, p->ms, p->serial, p->node, v, hi - lo, r->names };
	if (r->kind == SP_AUDIT_REPORT_INTERPRET)
		rc = audit_log_interpret(r->out, &ev);
	else
		rc = audit_log_normalize(r->out, r->norm, &ev);
	free(v);
	return rc;
}

/* An event lol[st] hands out: to aureport's reader (lol[1]) when piped, else reported;
 * INTERPRET, CSV, TEXT: printed as ausearch prints it, from ausearch's reader (lol[0]). */
static int hand_out(struct sp_audit_report *r, int st, struct pev *p, size_t lo, size_t hi)
{
	struct rep_ev e = { p, lo, hi, p->sec, p->serial };
	int rc = 0;

	if (events_out(r->kind))
		return p->selected ? events_print(r, p, lo, hi) : 0;
	if (st == 1 || !r->piped)
		return process(r, &e);
	if (!p->selected)
		return 0;	/* ausearch read it and did not print it */
	if (!r->have_very_first) {	/* aureport's first record is ausearch's first event */
		r->have_very_first = 1;
		r->very_first_sec = p->sec;
		r->very_first_ms = p->ms;
	}
	for (size_t i = lo; i < hi && !rc; i++)
		rc = lol_add(r, 1, p, i);
	return rc;
}

/* get_ready_event() until the lowest event is not complete: each one handed out in turn. */
static int drain(struct sp_audit_report *r, int st)
{
	struct lol *q = &r->lol[st];

	for (;;) {
		struct lent *low = NULL;
		for (size_t i = 0; i < q->n; i++) {
			struct lent *c = &q->v[i];
			if (c->status != LE_EMPTY && (!low || pev_before(c->p, low->p)))
				low = c;
		}
		if (!low || low->status != LE_COMPLETE)
			return 0;
		struct lent e = *low;
		low->status = LE_EMPTY;
		while (q->n && q->v[q->n - 1].status == LE_EMPTY)
			q->n--;
		int rc = hand_out(r, st, e.p, e.lo, e.hi);
		if (--e.p->segs == 0 && !e.p->inheap)
			pev_free(e.p);
		if (rc)
			return rc;
	}
}

/* check_events(): an event is done eoe_timeout (2) seconds before the new record, or when
 * its first record is of a type written alone. */
static void check_events(struct lol *q, uint64_t sec)
{
	for (size_t i = 0; i < q->n; i++) {
		struct lent *c = &q->v[i];
		uint32_t t = c->type;
		if (c->status == LE_BUILDING &&
		    (c->p->sec + 2 <= sec || t == 1327 || t < 1300 || t >= 2100 || t == 2000 ||
		     (t >= 1406 && t <= 1419)))
			c->status = LE_COMPLETE;
	}
}

/* lol_add_record() of record i of p into lol[st], then get_ready_event(). */
static int lol_add(struct sp_audit_report *r, int st, struct pev *p, size_t i)
{
	struct lol *q = &r->lol[st];
	size_t slot;

	for (slot = 0; slot < q->n; slot++)
		if (q->v[slot].status == LE_BUILDING && q->v[slot].p == p) {
			q->v[slot].hi = i + 1;
			return drain(r, st);
		}
	if (p->rec[i].type == 1320)
		return 0;	/* a lone EOE is eaten */
	for (slot = 0; slot < q->n && q->v[slot].status != LE_EMPTY;)
		slot++;
	if (slot == q->n) {
		if (q->n == q->cap) {
			size_t nc = q->cap ? q->cap * 2 : 64;
			struct lent *nl = realloc(q->v, nc * sizeof(*nl));
			if (!nl)
				return -ENOMEM;
			q->v = nl;
			q->cap = nc;
		}
		q->n++;
	}
	q->v[slot] = (struct lent){ p, i, i + 1, LE_BUILDING, p->rec[i].type };
	p->segs++;
	check_events(q, p->sec);
	return drain(r, st);
}

/* The next record of p read from the input (ausearch's reader when piped, else aureport's). */
static int add_record(struct sp_audit_report *r, struct pev *p)
{
	const struct prec *rec = &p->rec[p->next];

	if (!r->started || (rec->file != r->file && (!rec->file || !r->file ||
						      strcmp(rec->file, r->file))))
		next_file(r, rec->file);
	if (!r->have_very_first && !r->piped) {	/* the first record read */
		r->have_very_first = 1;
		r->very_first_sec = p->sec;
		r->very_first_ms = p->ms;
	}
	return lol_add(r, 0, p, p->next++);
}

/* The pending events by their next record's position (a min-heap). */
static uint64_t heap_key(const struct sp_audit_report *r, size_t i)
{
	return r->heap[i]->rec[r->heap[i]->next].seq;
}

static void heap_down(struct sp_audit_report *r, size_t i)
{
	for (;;) {
		size_t m = i, a = 2 * i + 1, b = a + 1;
		if (a < r->nheap && heap_key(r, a) < heap_key(r, m))
			m = a;
		if (b < r->nheap && heap_key(r, b) < heap_key(r, m))
			m = b;
		if (m == i)
			return;
		struct pev *t = r->heap[i];
		r->heap[i] = r->heap[m];
		r->heap[m] = t;
		i = m;
	}
}

static int heap_push(struct sp_audit_report *r, struct pev *p)
{
	size_t i;

	if (r->nheap == r->hcap) {
		size_t nc = r->hcap ? r->hcap * 2 : 64;
		struct pev **nh = realloc(r->heap, nc * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		r->heap = nh;
		r->hcap = nc;
	}
	for (i = r->nheap++; i && heap_key(r, (i - 1) / 2) > p->rec[p->next].seq; i = (i - 1) / 2)
		r->heap[i] = r->heap[(i - 1) / 2];
	r->heap[i] = p;
	p->inheap = 1;
	return 0;
}

/* Read, in the input's order, every buffered record before position `floor`. */
static int advance(struct sp_audit_report *r, uint64_t floor)
{
	while (r->nheap && heap_key(r, 0) < floor) {
		struct pev *p = r->heap[0];
		int rc = add_record(r, p);
		if (p->next < p->n) {
			heap_down(r, 0);
		} else {
			r->heap[0] = r->heap[--r->nheap];
			heap_down(r, 0);
			p->inheap = 0;
			if (!p->segs)
				pev_free(p);
		}
		if (rc)
			return r->err = rc;
	}
	return 0;
}

void audit_report_advance(struct sp_audit_report *r, uint64_t floor)
{
	if (r && !r->err)
		(void)advance(r, floor);
}

/* A copy of the kept records of ev. */
static int pev_make(const struct sp_audit_log_event *ev, const uint8_t *mask, int whole,
		    struct pev **out)
{
	size_t n = sp_audit_log_event_nrec(ev), k = 0, bytes = 0;
	const char *node;
	struct pev *p;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		if (!mask || mask[i]) {
			k++;
			bytes += sp_audit_log_event_rec(ev, i)->len + 1;
		}
	if (!k)
		return 0;
	if (!(p = calloc(1, sizeof(*p))) || !(p->rec = calloc(k, sizeof(*p->rec))) ||
	    !(p->text = malloc(bytes))) {
		pev_free(p);
		return -ENOMEM;
	}
	sp_audit_log_event_stamp(ev, &p->sec, &p->ms, &p->serial, &node);
	if (whole && node && !(p->node = strdup(node))) {
		pev_free(p);
		return -ENOMEM;
	}
	for (size_t i = 0, off = 0; i < n; i++) {
		const struct sp_audit_log_rec *rec = sp_audit_log_event_rec(ev, i);
		if (mask && !mask[i])
			continue;
		if (whole) {	/* INTERPRET: the ENRICHED part too */
			memcpy(p->text + off, rec->text, rec->len);
			p->text[off + rec->len] = '\0';
		} else {
			search_rec_text(rec, p->text + off, rec->len + 1);
		}
		p->rec[p->n++] = (struct prec){ rec->seq, rec->type, rec->file, off };
		off += strlen(p->text + off) + 1;
	}
	*out = p;
	return 0;
}

SP_API int sp_audit_report_input(struct sp_audit_report *r, const char *name)
{
	if (!r || !name)
		return -EINVAL;
	if (r->nq == r->qcap) {
		size_t nc = r->qcap ? r->qcap * 2 : 8;
		const char **nq = realloc(r->inq, nc * sizeof(*nq));
		if (!nq)
			return -ENOMEM;
		r->inq = nq;
		r->qcap = nc;
	}
	r->inq[r->nq++] = name;
	return 0;
}

int audit_report_event_sel(struct sp_audit_report *r, const struct sp_audit_log_event *ev,
			   const uint8_t *mask, int selected)
{
	struct pev *p;
	int rc;

	if (!r || !ev)
		return -EINVAL;
	if (r->err)
		return r->err;
	if (!selected && !r->piped)
		return 0;
	if ((rc = pev_make(ev, mask, events_out(r->kind), &p)) || !p)
		return r->err = rc;
	p->selected = selected;
	if ((rc = heap_push(r, p))) {
		pev_free(p);
		return r->err = rc;
	}
	return 0;
}

SP_API int sp_audit_report_event(struct sp_audit_report *r, const struct sp_audit_log_event *ev,
				 const uint8_t *mask)
{
	return audit_report_event_sel(r, ev, mask, 1);
}

/* do_file_summary_output() and do_user_summary_output(): "HITS  VALUE" by hits, a user that
 * reads as a number printed as aulookup_uid() prints it. */
static void put_counts(FILE *f, struct rep_set *st, int users)
{
	if (!st->n) {
		fputs("<no events of interest were found>\n\n", f);
		return;
	}
	set_sort(st);
	for (size_t i = 0; i < st->n; i++) {
		const char *s = st->v[i].s;
		fprintf(f, "%u  ", (unsigned)st->v[i].hits);
		if (users && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
			put_uid(f, (uint32_t)strtol(s, NULL, 10));
			fputc('\n', f);
		} else {
			audit_log_put_safe(f, s, 1);
		}
	}
}

static void put_stamp(FILE *f, uint64_t sec, uint32_t ms)
{
	audit_log_put_date(f, sec);
	fprintf(f, ".%03u", ms);
}

/* do_summary_output(). */
static void put_summary(const struct sp_audit_report *r)
{
	FILE *f = r->out;

	fputs("Range of time in logs: ", f);
	put_stamp(f, r->very_first_sec, r->very_first_ms);
	fputs(" - ", f);
	put_stamp(f, r->last_sec, r->last_ms);
	fputs("\nSelected time for report: ", f);
	audit_log_put_date(f, r->very_first_sec);
	fputs(" - ", f);
	put_stamp(f, r->last_sec, r->last_ms);
	fprintf(f, "\nNumber of changes in configuration: %llu\n"
		   "Number of changes to accounts, groups, or roles: %llu\n"
		   "Number of logins: %llu\nNumber of failed logins: %llu\n"
		   "Number of authentications: %llu\nNumber of failed authentications: %llu\n",
		(unsigned long long)r->changes, (unsigned long long)r->acct_changes,
		(unsigned long long)r->good_logins, (unsigned long long)r->bad_logins,
		(unsigned long long)r->good_auth, (unsigned long long)r->bad_auth);
	fprintf(f, "Number of users: %zu\nNumber of terminals: %zu\nNumber of host names: %zu\n"
		   "Number of executables: %zu\nNumber of commands: %zu\nNumber of files: %zu\n",
		r->users.n, r->terms.n, r->hosts.n, r->exes.n, r->comms.n, r->sfiles.n);
	fprintf(f, "Number of AVC's: %llu\nNumber of MAC events: %llu\n"
		   "Number of failed syscalls: %llu\nNumber of anomaly events: %llu\n"
		   "Number of responses to anomaly events: %llu\nNumber of crypto events: %llu\n"
		   "Number of integrity events: %llu\nNumber of virt events: %llu\n",
		(unsigned long long)r->avcs, (unsigned long long)r->mac,
		(unsigned long long)r->failed_syscalls, (unsigned long long)r->anomalies,
		(unsigned long long)r->responses, (unsigned long long)r->crypto,
		(unsigned long long)r->integ, (unsigned long long)r->virt);
	fprintf(f, "Number of keys: %zu\nNumber of process IDs: %zu\nNumber of events: %llu\n\n",
		r->skeys.n, r->pids.n, (unsigned long long)r->events);
}

/* The end of an input: terminate_all_events(), ausearch's then aureport's; r->err. */
static int terminate_all(struct sp_audit_report *r)
{
	for (int st = 0; st < 2 && !r->err && !advance(r, UINT64_MAX); st++) {
		for (size_t i = 0; i < r->lol[st].n; i++)
			if (r->lol[st].v[i].status == LE_BUILDING)
				r->lol[st].v[i].status = LE_COMPLETE;
		r->err = drain(r, st);
	}
	return r->err;
}

int audit_report_idle(struct sp_audit_report *r)
{
	return r ? (r->err ? r->err : terminate_all(r)) : 0;
}

SP_API int sp_audit_report_finish(struct sp_audit_report *r)
{
	if (!r)
		return -EINVAL;
	if (r->err)
		return r->err;
	if (!events_out(r->kind))
		put_title(r);
	/* aureport terminates the open events while it reads its last input, even an empty one */
	if (!r->err && !advance(r, UINT64_MAX) && r->qhead < r->nq)
		next_file(r, r->inq[r->nq - 1]);
	if (terminate_all(r))
		return r->err;
	if (events_out(r->kind)) {
		;
	} else if (r->kind == SP_AUDIT_REPORT_LOG) {
		if (r->started)
			log_line(r);
		for (; r->qhead < r->nq; r->qhead++)
			fprintf(r->out, "%s: no records\n", input_name(r->inq[r->qhead]));
	}
	else if (!r->summary) {
		if (!r->found)
			fputs("<no events of interest were found>\n\n", r->out);
	} else if (r->kind == SP_AUDIT_REPORT_SUMMARY)
		put_summary(r);
	else if (r->kind == SP_AUDIT_REPORT_KEY)
		put_counts(r->out, &r->skeys, 0);
	else if (r->kind == SP_AUDIT_REPORT_EXE)
		put_counts(r->out, &r->exes, 0);
	else if (r->kind == SP_AUDIT_REPORT_FILE)
		put_counts(r->out, &r->sfiles, 0);
	else
		put_counts(r->out, &r->users, 1);
	return fflush(r->out) || ferror(r->out) ? -EIO : 0;
}

SP_API void sp_audit_report_free(struct sp_audit_report *r)
{
	if (!r)
		return;
	struct rep_set *sets[] = { &r->users, &r->terms, &r->hosts, &r->exes,
				   &r->comms, &r->sfiles, &r->skeys, &r->pids };
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		set_free(sets[i]);
	list_free(&r->files);
	list_free(&r->keys);
	audit_norm_free(r->norm);
	audit_names_free(r->names);
	for (size_t i = 0; i < r->nheap; i++)
		if (!r->heap[i]->segs)
			pev_free(r->heap[i]);	/* (one with nodes is freed through them) */
	for (int st = 0; st < 2; st++)
		for (size_t i = 0; i < r->lol[st].n; i++)
			if (r->lol[st].v[i].status != LE_EMPTY && --r->lol[st].v[i].p->segs == 0)
				pev_free(r->lol[st].v[i].p);
	free(r->heap);
	free(r->lol[0].v);
	free(r->lol[1].v);
	free(r->inq);
	free(r);
}
