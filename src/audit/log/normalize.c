/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * normalize.c - an event as `ausearch --format csv` and `--format text` 3.0.9 write it:
 * auparse's normalizer (who did what to what, how, with what result) over the event auparse
 * rebuilds from the records ausearch feeds it.
 *
 * Three layers, each as auparse 3.0.9 behaves, since its output depends on every detail:
 *  - the feed: ausearch feeds an event's records and flushes; auparse closes an event after a
 *    record of an ending type (PROCTITLE, EOE, below 1300, 2000, 1406-1419, 2100 and up), so
 *    records after one form another event: one line each;
 *  - the record: split at spaces into name=value fields as auparse's parse_up_record does
 *    (msg=audit(...) dropped, msg=' opened, trailing ":,')" cut, keys split and re-quoted,
 *    an AVC's "denied { perms }" named seresult and seperms);
 *  - the cursor: auparse's record and per-record field positions, moved by find (which runs
 *    on into later records and leaves the cursor past the end when it finds nothing), first,
 *    next and goto exactly as auparse moves them; the normalizer's choices (a field found or
 *    not, where a search starts) follow from those moves, so they are kept, not simplified.
 * Values are auparse_interpret_field's (interpret.c), cached per field as auparse caches them
 * (a field read first without its cwd keeps that reading).
 *
 * Invariants: only normalize-with-NORM_OPT_NO_ATTRS is implemented (what ausearch's CSV without
 * --extra-labels and its text use): the attribute lists only move the cursor before the
 * normalizer resets it, so they are not collected.  Every cursor position is checked against
 * the record and field counts (the records are untrusted).  No state outlives the writer.
 */
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "secpath/audit.h"
#include "audit/log/log_int.h"
#include "base/compiler.h"
#include "audit/log/norm_int.h"

static int rec_add(struct nrec *r, const char *name, const char *val, char *own)
{
	if (r->nf == r->cap) {
		uint32_t c = r->cap ? 2 * r->cap : 16;
		struct nfield *f = realloc(r->f, c * sizeof(*f));
		if (!f) {
			free(own);
			return -ENOMEM;
		}
		r->f = f;
		r->cap = c;
	}
	r->f[r->nf++] = (struct nfield){ name, val, own, NULL };
	return 0;
}

/* A key auditd joined with 0x01: one "key" field per part, each written back as auparse's
 * escape() does (quoted, or upper-case hex when a byte is '"' or outside 0x21-0x7e). */
static int rec_keys(struct nrec *r, const char *v)
{
	size_t n;
	char *k = audit_log_unhex(v, 0, &n);	/* auparse's au_unescape */
	if (!k)
		return rec_add(r, "key", NULL, NULL);
	int err = 0;
	for (char *s = k, *e; !err && *s; s = e) {
		for (e = s; *e && *e != '\x01'; e++)
			;
		size_t len = (size_t)(e - s), hex = 0;
		if (*e)
			*e++ = '\0';
		if (!len)
			continue;
		for (size_t i = 0; i < len; i++)
			hex |= s[i] == '"' || (unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e;
		char *o = malloc(2 * len + 3);
		if (!o) {
			err = -ENOMEM;
			break;
		}
		if (hex)
			for (size_t i = 0; i < len; i++)
				sprintf(o + 2 * i, "%02X", (unsigned char)s[i]);
		else
			sprintf(o, "\"%s\"", s);
		err = rec_add(r, "key", o, o);
	}
	free(k);
	return err;
}

/* What parse_up_record notes by a field's position (offset 1 after a leading node=). */
static void rec_note(struct nrec *r, const char *name, const char *val, uint32_t off)
{
	uint32_t c = r->nf;
	if ((c == 2 + off || c == 11 + off) && !strcmp(name, "arch")) {
		errno = 0;
		unsigned long a = strtoul(val, NULL, 16);
		r->machine = errno ? NULL : sp_audit_arch_name((uint32_t)a);
	} else if ((c == 3 + off || c == 12 + off) && !strcmp(name, "syscall")) {
		errno = 0;
		r->syscall = (int)strtoul(val, NULL, 10);
		if (errno)
			r->syscall = -1;
	} else if (c == 6 + off && !strcmp(name, "a0")) {
		r->a0 = strtoull(val, NULL, 16);
	} else if (c == 7 + off && !strcmp(name, "a1")) {
		r->a1 = strtoull(val, NULL, 16);
	}
}

/* An AVC's unnamed words: "denied"/"granted" as seresult, "{ a b }" as seperms "a,b". */
static int rec_avc_word(struct nrec *r, char *tok, char **save, uint32_t off)
{
	if (r->nf == 1 + off)
		return strncmp(tok, "avc", 3) ? rec_add(r, "seresult", tok, NULL) : 0;
	if (r->nf != 2 + off || *tok != '{')
		return 0;
	char ctx[256], *p;
	size_t total = 0;
	ctx[0] = '\0';
	while ((p = strtok_r(NULL, " ", save)) && *p != '}') {
		size_t len = strlen(p);
		if (len + 1 >= sizeof(ctx) - total)
			return 1;	/* auparse gives up on the record */
		if (total)
			ctx[total++] = ',';
		memcpy(ctx + total, p, len + 1);
		total += len;
	}
	char *o = strdup(ctx);
	return o ? rec_add(r, "seperms", o, o) : -ENOMEM;
}

/* One name=value word (val just past the '='). */
static int rec_word(struct nrec *r, char *name, char *val, uint32_t off, const char **cwd)
{
	size_t len = strlen(val);
	if (*name == '(')
		name++;
	if (!len)
		return 0;
	static const char cut[] = ":,'";
	for (int i = 0; i < 3; i++)
		if (len && val[len - 1] == cut[i])
			val[--len] = '\0';
	if (len && val[len - 1] == ')' && strcmp(val, "(none)") && strcmp(val, "(null)"))
		val[--len] = '\0';
	if (!strcmp(name, "key") && *val != '(' && *val != '"')
		return rec_keys(r, val);
	int err = rec_add(r, name, val, NULL);
	if (err || !strcmp(name, "key"))
		return err;
	rec_note(r, name, val, off);
	if (r->type == T_CWD && !strcmp(name, "cwd"))
		*cwd = val;	/* the event's cwd: the last CWD record's */
	return 0;
}

/* parse_up_record: 0, 1 when auparse drops the record, or -ENOMEM. */
static int rec_parse(struct nrec *r, const struct audit_interp_rec *in, const char **cwd)
{
	char *save = NULL, *tok, *sep;
	uint32_t off = 0;
	int err = 0;
	if (!(r->buf = strndup(in->text, in->len)))
		return -ENOMEM;
	if ((sep = strchr(r->buf, '\x1d'))) {
		*sep = '\0';
		r->enriched = sep + 1;
	}
	r->type = in->type;
	r->syscall = -1;
	for (tok = strtok_r(r->buf, " ", &save); tok && !err; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq) {
			if (r->type == T_AVC || r->type == T_USER_AVC)
				err = rec_avc_word(r, tok, &save, off);
			continue;
		}
		if (!strncmp(tok, "msg=", 4)) {
			if (tok[4] == 'a')
				continue;
			if (tok[4] == '\'' && !(eq = strchr(tok += 5, '=')))
				continue;
		}
		*eq = '\0';
		err = rec_word(r, tok, eq + 1, off, cwd);
		if (!err && r->nf == 1 && !strcmp(r->f[0].name, "node"))
			off = 1;
	}
	return err < 0 ? err : err ? 1 : r->nf == 0;
}

static struct nrec *norm_cur(const struct nev *e)
{
	return e->cur < e->n ? &e->r[e->cur] : NULL;
}

static const struct nfield *norm_curf(const struct nev *e)
{
	const struct nrec *r = norm_cur(e);
	/* auparse reads no field of an event stamped at second 0 */
	return r && !e->notime && r->cur < r->nf ? &r->f[r->cur] : NULL;
}

int norm_first_record(struct nev *e)
{
	e->cur = 0;
	e->il = 1;
	e->r[0].cur = 0;
	return 1;
}

int norm_next_record(struct nev *e)
{
	if (e->cur < e->n)
		e->cur++;
	e->il = e->cur < e->n;
	return e->cur < e->n;
}

int norm_goto_record(struct nev *e, uint32_t num)
{
	if (num >= e->n) {
		e->il = 0;
		return 0;
	}
	e->cur = num;
	e->il = 1;
	e->r[num].cur = 0;
	return 1;
}

void norm_first_field(struct nev *e)
{
	if (norm_cur(e))
		norm_cur(e)->cur = 0;
}

int norm_next_field(struct nev *e)
{
	struct nrec *r = norm_cur(e);
	if (!r || !r->nf || r->cur + 1 >= r->nf)
		return 0;
	r->cur++;
	return 1;
}

int norm_goto_field(struct nev *e, uint32_t num)
{
	struct nrec *r = norm_cur(e);
	if (!r || num >= r->nf)
		return 0;
	r->cur = num;
	return 1;
}

uint32_t norm_record_num(const struct nev *e)
{
	return e->cur < e->n ? e->cur : 0;
}

uint32_t norm_field_num(const struct nev *e)
{
	const struct nfield *f = norm_curf(e);
	return f ? (uint32_t)(f - norm_cur(e)->f) : 0;
}

uint32_t norm_rec_type(const struct nev *e)
{
	return norm_cur(e) ? norm_cur(e)->type : 0;
}

const char *norm_field_str(const struct nev *e)
{
	return norm_curf(e) ? norm_curf(e)->val : NULL;
}

static const char *norm_field_name(const struct nev *e)
{
	return norm_curf(e) ? norm_curf(e)->name : NULL;
}

/* auparse_get_field_int: strtol, -1 with *err set when there is no value or it overflows. */
int norm_field_int(const struct nev *e, int *err)
{
	const char *v = norm_field_str(e);
	*err = 1;
	if (!v)
		return -1;
	errno = 0;
	long l = strtol(v, NULL, 10);
	*err = errno != 0;
	return *err ? -1 : (int)l;
}

static int norm_field_kind(const struct nev *e)
{
	const struct nfield *f = norm_curf(e);
	return f && f->val ? audit_log_field_kind(norm_cur(e)->type, f->name, f->val) : AUDIT_FK_OTHER;
}

/* find_field_next: on from the field after the cursor, into later records (each from its
 * first field); nothing found leaves the cursor past the end, unless the cursor was on its
 * record's last field. */
static const char *norm_find_next(struct nev *e)
{
	struct nrec *r = norm_cur(e);
	if (!r || !e->find)
		return NULL;
	if (!r->nf || r->cur + 1 >= r->nf)
		return NULL;
	r->cur++;
	for (;;) {
		for (uint32_t i = r->cur; i < r->nf; i++)
			if (!strcmp(r->f[i].name, e->find)) {
				r->cur = i;
				return r->f[i].val;
			}
		if (!norm_next_record(e))
			return NULL;
		r = norm_cur(e);
		r->cur = 0;
	}
}

const char *norm_find(struct nev *e, const char *name)
{
	e->find = name;
	const struct nfield *f = norm_curf(e);
	if (!norm_cur(e) || e->notime)
		return NULL;
	if (f && !strcmp(f->name, name))
		return f->val;
	return norm_find_next(e);
}

/* auparse_interpret_field (cwd NULL) or auparse_interpret_realpath; cached per field. */
static const char *norm_interp_cwd(struct nev *e, const char *cwd)
{
	struct nrec *r = norm_cur(e);
	struct nfield *f = (struct nfield *)norm_curf(e);
	if (!f || !f->val)
		return NULL;
	if (!f->interp) {
		struct audit_ifield x = { r->type, f->name, f->val, r->machine, r->syscall, r->a0,
					  r->a1, e->il ? r->enriched : NULL, cwd, e->names };
		f->interp = audit_log_interp_field(&x, e->work);
	}
	return f->interp;
}

const char *norm_interp(struct nev *e)
{
	return norm_interp_cwd(e, NULL);
}

static const char *norm_realpath_of(struct nev *e)
{
	return norm_field_kind(e) == AUDIT_FK_FILE ? norm_interp_cwd(e, e->cwd) : NULL;
}

/* ---- the normalizer (auparse's normalize.c, NORM_OPT_NO_ATTRS) ---- */

static const char *const what_name[] = {
	"unknown", "fifo", "character-device", "directory", "block-device", "file", "symlink",
	"socket", "process", "firewall", "service", "account", "user-session",
	"virtual-machine", "printer", "system", "admin-defined-rule", "audit-config",
	"mac-config", "file-system", "memory", "keystrokes", "device", "software",
};

/* normalize_record_map: a record type's action. */
const char *norm_type_action(uint32_t t)
{
	static const struct { uint16_t t; const char *a; } map[] = {
		{ 1005, "sent-message" }, { 1006, "changed-login-id-to" },
		{ 1100, "authenticated" }, { 1101, "was-authorized" },
		{ 1102, "modified-user-account" }, { 1103, "acquired-credentials" },
		{ 1104, "disposed-credentials" }, { 1105, "started-session" },
		{ 1106, "ended-session" }, { 1107, "accessed-mac-policy-controlled-object" },
		{ 1108, "changed-password" }, { 1109, "caused-account-error" },
		{ 1110, "refreshed-credentials" }, { 1111, "changed-configuration" },
		{ 1112, "logged-in" }, { 1113, "logged-out" }, { 1114, "added-user-account" },
		{ 1115, "deleted-user-account" }, { 1116, "added-group-account-to" },
		{ 1117, "deleted-group-account-from" }, { 1118, "access-result" },
		{ 1119, "changed-group" }, { 1120, "sent-test" }, { 1121, "unknown" },
		{ 1122, "access-error" }, { 1123, "ran-command" }, { 1124, "typed" },
		{ 1125, "changed-user-id" }, { 1126, "authenticated-to-group" },
		{ 1127, "booted-system" }, { 1128, "shutdown-system" },
		{ 1129, "changed-to-runlevel" }, { 1130, "started-service" },
		{ 1131, "stopped-service" }, { 1132, "modified-group-account" },
		{ 1133, "changed-group-password" }, { 1134, "mac-permission" },
		{ 1135, "locked-account" }, { 1136, "unlocked-account" },
		{ 1137, "configured-device" }, { 1138, "installed-software" },
		{ 1200, "started-audit" }, { 1201, "shutdown-audit" },
		{ 1202, "aborted-auditd-startup" }, { 1203, "changed-auditd-configuration" },
		{ 1204, "reconfigured-auditd" }, { 1205, "rotated-audit-logs" },
		{ 1206, "resumed-audit-logging" }, { 1207, "remote-audit-connected" },
		{ 1208, "remote-audit-disconnected" }, { 1209, "audit-error" },
		{ 1305, "changed-audit-configuration" }, { 1319, "typed" },
		{ 1326, "called-seccomp-controlled-syscall" }, { 1328, "changed-audit-feature" },
		{ 1330, "loaded-kernel-module" }, { 1331, "accessed-policy-controlled-file" },
		{ 1400, "accessed-mac-policy-controlled-object" },
		{ 1403, "loaded-selinux-policy" }, { 1404, "changed-selinux-enforcement-to" },
		{ 1405, "changed-selinux-boolean" }, { 1409, "added-mac-network-domain-mapping-to" },
		{ 1410, "deleted-mac-network-domain-mapping-from" },
		{ 1700, "changed-socket-promiscuous-mode" }, { 1701, "crashed-program" },
		{ 1702, "used-suspcious-link" }, { 1703, "created-suspicious-file" },
		{ 2000, "initialized-audit-subsystem" },
		{ 2100, "failed-log-in-too-many-times-to" },
		{ 2101, "attempted-log-in-during-unusual-hour-to" },
		{ 2102, "opened-too-many-sessions-to" },
		{ 2104, "attempted-log-in-from-unusual-place-to" },
		{ 2109, "tested-file-system-integrity-of" },
		{ 2112, "attempted-execution-of-forbidden-program" },
		{ 2300, "changed-role-to" }, { 2301, "assigned-user-role-to" },
		{ 2302, "removed-use-role-from" }, { 2303, "overrode-label-of" },
		{ 2304, "modified-level-of" }, { 2309, "relabeled-filesystem" },
		{ 2310, "loaded-mac-policy" }, { 2311, "modified-role" },
		{ 2312, "changed-mac-configuration" }, { 2313, "changed-selinux-enforcement-to" },
		{ 2402, "crypto-officer-logged-in" }, { 2403, "crypto-officer-logged-out" },
		{ 2404, "negotiated-crypto-key" }, { 2407, "started-crypto-session" },
		{ 2500, "issued-vm-control" }, { 2501, "assigned-vm-resource" },
		{ 2502, "assigned-vm-id" }, { 2503, "checked-integrity-of" },
		{ 2504, "created-vm-image" }, { 2505, "deleted-vm-image" },
		{ 2506, "migrated-vm-from" }, { 2507, "migrated-vm-to" },
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(map); i++)
		if (map[i].t == t)
			return map[i].a;
	return NULL;
}

#define IN(t, lo, hi) ((t) >= (lo) && (t) <= (hi))

/* normalize_determine_evkind: the kind of the event's first record type. */
const char *norm_event_kind(uint32_t t)
{
	if (IN(t, 1100, 1101) || IN(t, 1103, 1106) || IN(t, 1108, 1110) || IN(t, 1112, 1113) ||
	    t == T_LOGIN)
		return "user-login";
	if (t == T_GRP_AUTH || t == T_CHGRP_ID)
		return "group-change";
	if (t == T_USER_MGMT || IN(t, 1114, 1117) || IN(t, 1132, 1133) || IN(t, 1135, 1136))
		return "user-account";
	if (t == T_KERNEL || IN(t, 1127, 1131))
		return "system-services";
	if (t == T_USYS_CONFIG || t == T_CONFIG_CHANGE || t == T_NETFILTER_CFG ||
	    t == T_FEATURE_CHANGE || t == T_TIME_INJOFFSET || t == T_TIME_ADJNTPVAL ||
	    t == T_USER_DEVICE || t == T_SOFTWARE_UPDATE)
		return "configuration";
	if (t == T_SECCOMP)
		return "dac-decision";
	if (IN(t, 1120, 1121) || t == T_USER_CMD || t == T_CHUSER_ID)
		return "user-space";
	if (t == T_USER_TTY || t == T_TTY)
		return "TTY";
	if (t == T_EVENT_LISTENER || IN(t, 1200, 1299))
		return "audit-daemon";
	if (t == T_USER_SELINUX_ERR || t == T_USER_AVC || IN(t, 1502, 1503) || t == 1506 ||
	    IN(t, 1400, 1402))
		return "mac-decision";
	if (IN(t, 1800, 1899) || t == T_ANOM_RBAC_INTEGRITY_FAIL)
		return "integrity";
	if (IN(t, 1700, 1799) || IN(t, 2100, 2108) || IN(t, 2110, 2199))
		return "anomaly";
	if (IN(t, 2200, 2299))
		return "anomaly-response";
	if (IN(t, 1403, 1499) || IN(t, 1500, 1501) || IN(t, 1504, 1505) || IN(t, 2300, 2399))
		return "mac";
	if (IN(t, 1600, 1699) || IN(t, 2400, 2499))
		return "crypto";
	if (IN(t, 2500, 2599))
		return "virt";
	if (IN(t, 1300, 1304) || IN(t, 1306, 1315) || IN(t, 1317, 1318) || IN(t, 1321, 1324))
		return "audit-rule";
	if (t == T_FANOTIFY)
		return "av-decision";
	if (t == T_BPF)
		return "bpf-program";
	return "unknown";
}

int norm_set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? strdup(s) : NULL;
	return s && !*dst ? -ENOMEM : 0;
}

uint32_t norm_here(const struct nev *e)
{
	return POS(norm_record_num(e), norm_field_num(e));
}

/* set_subject_what: the subject's kind from the field under the cursor. */
int norm_subject_what(struct nev *e, struct norm *d)
{
	int uid = -2, err;
	if (norm_field_kind(e) == AUDIT_FK_UID) {
		uid = norm_field_int(e, &err);
	} else {
		const char *n = norm_field_name(e), *acct;
		struct passwd pw, *pp = NULL;
		char buf[4096];
		if (!n || strcmp(n, "acct") || !(acct = norm_interp(e)) ||
		    getpwnam_r(acct, &pw, buf, sizeof(buf), &pp) || !pp) {
			d->subj_kind = "unknown-acct";
			return 1;
		}
		uid = (int)pp->pw_uid;
	}
	d->subj_kind = uid == 0 ? "privileged-acct" : (unsigned)uid == 4294967295u ? "unset-acct" :
		       uid < 1000 ? "service-acct" : uid < 60000 ? "user-acct" : "unknown-acct";
	return 0;
}

/* set_prime_subject / set_prime_object / add_session / set_results: 0 when found (the position
 * takes rnum's record and the found field's number), 1 when not. */
int norm_set_at(struct nev *e, const char *name, uint32_t rnum, uint32_t *pos)
{
	if (!norm_find(e, name))
		return 1;
	*pos = POS(rnum, norm_field_num(e));
	return 0;
}

int norm_set_subj2(struct nev *e, struct norm *d, const char *name, uint32_t rnum)
{
	return norm_set_at(e, name, rnum, &d->subj2) ? 1 : norm_subject_what(e, d);
}

int norm_add_session(struct nev *e, struct norm *d, uint32_t rnum)
{
	if (!norm_set_at(e, "ses", rnum, &d->session))
		return 0;
	norm_first_record(e);
	return 1;
}

/* exe= interpreted as "how", or the comm= before it for an interpreter. */
int norm_how_exe(struct nev *e, struct norm *d)
{
	if (!norm_find(e, "exe"))
		return 1;
	const char *exe = norm_interp(e);
	if (norm_set_str(&d->how, exe))
		return -ENOMEM;
	if (!exe || !(!strncmp(exe, "/usr/bin/python", 15) || !strncmp(exe, "/usr/bin/sh", 11) ||
		      !strncmp(exe, "/usr/bin/bash", 13) || !strncmp(exe, "/usr/bin/perl", 13)))
		return 0;
	uint32_t fnum = norm_field_num(e);
	if (fnum > 0)
		norm_goto_field(e, fnum - 1);	/* comm= is usually the field before */
	else
		norm_first_record(e);
	return norm_find(e, "comm") ? norm_set_str(&d->how, norm_interp(e)) : 0;
}


/* auparse_normalize: 0, 1 when auparse refuses the event, or -ENOMEM. */
static int normalize(struct nev *e, struct norm *d)
{
	*d = (struct norm){ NULL, NULL, POS_UNSET, POS_UNSET, POS_UNSET, POS_UNSET, POS_UNSET,
			    POS_UNSET, POS_UNSET, POS_UNSET, NULL, NULL, W_UNKNOWN, -1 };
	norm_first_record(e);
	int rc = e->n > 1 ? norm_compound(e, d) : norm_simple(e, d);
	norm_first_record(e);
	return rc;
}

/* seek_field: 1 with the cursor on the position, else 0 (unset) or < 0. */
static int seek(struct nev *e, uint32_t pos)
{
	if ((pos >> 16) == 0xffffu)
		return 0;
	if (norm_goto_record(e, pos >> 16) != 1)
		return -1;
	return norm_goto_field(e, pos & 0xffffu) == 1 ? 1 : -2;
}


/* ---- the writers: ausearch-report.c's csv_event and text_event ---- */

struct audit_norm {
	struct audit_norm_opts o;
	int header;			/* the CSV heading was written */
	struct audit_pathbuf work;	/* auparse's path_norm buffer */
};

int audit_norm_new(const struct audit_norm_opts *o, struct audit_norm **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return -ENOMEM;
	(*out)->o = *o;
	return 0;
}

void audit_norm_free(struct audit_norm *n)
{
	free(n);
}

static void put_tm(FILE *f, const struct tm *tm, const char *fmt)
{
	char b[64];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-y2k"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (tm && strftime(b, sizeof(b), fmt, tm))
		fputs(b, f);
#pragma GCC diagnostic pop
}

static void put_s(FILE *f, const char *s)
{
	fputs(s ? s : "(null)", f);
}

/* "success" for yes, suc..., or a seccomp allow; else "failed" (as words: index 0/1). */
static int result_ok(struct nev *e)
{
	const char *s = norm_interp(e);
	return s && (!strcmp(s, "yes") || !strncmp(s, "suc", 3) ||
		     (norm_field_kind(e) == AUDIT_FK_SECCOMP && !strcmp(s, "allow")));
}

/* OBJ_PRIME's value: a file made absolute, a CONFIG_CHANGE setting's name, else the field. */
static const char *object_value(struct nev *e, const struct norm *d, uint32_t type)
{
	if (norm_field_kind(e) == AUDIT_FK_FILE)
		return norm_realpath_of(e);
	if (type == T_CONFIG_CHANGE && d->action &&
	    (!strcmp(d->action, "set") || !strcmp(d->action, "seccomp-logging")))
		return norm_field_name(e);
	return norm_interp(e);
}

static void csv_time(FILE *f, const struct tm *tm, uint32_t msec)
{
	put_tm(f, tm, "%Y,%m,%d,%u,%k,");
	if (!tm)
		fputs(",,,,,", f);
	fprintf(f, "%u,", msec);
	if (tm) {
		long off = tm->tm_gmtoff < 0 ? -tm->tm_gmtoff : tm->tm_gmtoff;
		/* ausearch prints the seconds past the hour mod 60 as the minutes */
		fprintf(f, "%c%02ld:%02ld", tm->tm_gmtoff >= 0 ? '+' : '-', off / 3600,
			(off - off / 3600 * 3600) % 60);
	}
	fputc(',', f);
}

static int csv_event(FILE *f, struct audit_norm *n, struct nev *e, const struct audit_interp_ev *ev)
{
	const struct audit_norm_opts *o = &n->o;
	struct norm d;
	struct tm tmb, *tm;
	time_t t = (time_t)ev->sec;
	tm = localtime_r(&t, &tmb);
	if (!n->header) {
		n->header = 1;
		fprintf(f, "NODE,EVENT,DATE,TIME,%sSERIAL_NUM,EVENT_KIND,SESSION,SUBJ_PRIME,"
			   "SUBJ_SEC,SUBJ_KIND,ACTION,RESULT,OBJ_PRIME,OBJ_SEC,%sOBJ_KIND,HOW%s\n",
			o->extra_time ? "YEAR,MONTH,DAY,WEEKDAY,HOUR,MILLI,GMT_OFFSET," : "",
			o->extra_obj2 ? "OBJ2," : "", o->extra_keys ? ",KEY" : "");
	}
	if (ev->node)
		put_s(f, norm_interp(e));
	fputc(',', f);
	const char *tn = sp_audit_msgtype_name(norm_rec_type(e));
	fprintf(f, "%s,", tn ? tn : "");
	int rc = normalize(e, &d);
	if (rc < 0)
		goto out;
	put_tm(f, tm, "%x");
	fputc(',', f);
	put_tm(f, tm, "%T");
	fputc(',', f);
	if (o->extra_time)
		csv_time(f, tm, ev->msec);
	fprintf(f, "%u,", ev->serial);
	if (rc) {
		fprintf(f, ",,,,,,,,,%s\n", o->extra_keys ? "," : "");
		rc = 0;
		goto out;
	}
	fprintf(f, "%s,", d.evkind ? d.evkind : "unknown");
	if (seek(e, d.session) == 1)
		put_s(f, norm_interp(e));
	fputc(',', f);
	if (seek(e, d.subj1) == 1) {
		const char *s = norm_interp(e);
		put_s(f, s && !strcmp(s, "unset") ? "system" : s);
	}
	fputc(',', f);
	if (seek(e, d.subj2) == 1)
		put_s(f, norm_interp(e));
	fprintf(f, ",%s,%s,", d.subj_kind ? d.subj_kind : "",
		d.action ? d.action : "did-unknown");
	if (seek(e, d.results) == 1)
		fputs(result_ok(e) ? "success" : "failed", f);
	fputc(',', f);
	if (seek(e, d.obj1) == 1)
		put_s(f, object_value(e, &d, norm_rec_type(e)));
	fputc(',', f);
	if (seek(e, d.obj2) == 1)
		put_s(f, norm_interp(e));
	fputc(',', f);
	if (o->extra_obj2) {
		if (seek(e, d.two) == 1)
			put_s(f, norm_field_kind(e) == AUDIT_FK_FILE ? norm_realpath_of(e) :
								       norm_interp(e));
		fputc(',', f);
	}
	fprintf(f, "%s,%s", what_name[d.what], d.how ? d.how : "");
	if (o->extra_keys) {
		fputc(',', f);
		if (seek(e, d.key) == 1)
			put_s(f, norm_interp(e));
	}
	fputc('\n', f);
out:
	free(d.action);
	free(d.how);
	return rc;
}

/* A socket address's "laddr=" (or "fam=") part, up to the next space; NULL without. */
static char *sock_part(struct nev *e, const char *part)
{
	const char *v = norm_interp(e), *p, *sp;
	if (norm_field_kind(e) != AUDIT_FK_SOCKADDR || !v || !(p = strstr(v, part)))
		return NULL;
	p += strlen(part);
	return (sp = strchr(p, ' ')) ? strndup(p, (size_t)(sp - p)) : NULL;
}

static int text_object(FILE *f, struct nev *e, const struct norm *d, uint32_t type)
{
	char *own = NULL;
	const char *val = d->action && strstr(d->action, "violated") ? "accessing " : NULL;
	int kind = norm_field_kind(e);
	if (kind == AUDIT_FK_FILE) {
		val = norm_realpath_of(e);
	} else if (kind == AUDIT_FK_SOCKADDR) {
		if (!(val = own = sock_part(e, "laddr=")))
			val = own = sock_part(e, "fam=");
	} else if (type == T_CONFIG_CHANGE) {
		val = d->action && (!strcmp(d->action, "set") ||
				    !strcmp(d->action, "seccomp-logging")) ? norm_field_name(e) :
									     norm_interp(e);
	}
	if (!val)
		val = norm_interp(e);
	put_s(f, val);
	fputc(' ', f);
	free(own);
	return 0;
}

static int text_event(FILE *f, struct nev *e, const struct audit_interp_ev *ev)
{
	struct norm d;
	struct tm tmb;
	time_t t = (time_t)ev->sec;
	uint32_t type = norm_rec_type(e);
	int id = -2, err;
	int rc = normalize(e, &d);
	if (rc < 0)
		goto out;
	rc = 0;
	if (ev->node) {
		fputs("On ", f);
		put_s(f, norm_interp(e));
		fputs(" at ", f);
	} else {
		fputs("At ", f);
	}
	if (localtime_r(&t, &tmb))
		put_tm(f, &tmb, "%T %x");
	else
		fputc('?', f);
	fputc(' ', f);
	if (seek(e, d.subj1) == 1) {
		const char *s = norm_interp(e);
		id = norm_field_int(e, &err);
		put_s(f, s && !strcmp(s, "unset") ? "system" : s);
	}
	if (seek(e, d.subj2) == 1) {
		int uid = norm_field_int(e, &err);
		if (uid != id && id != -2 && uid != -1) {
			fputs(", acting as ", f);
			put_s(f, norm_interp(e));
			fputc(',', f);
		}
	}
	if (seek(e, d.results) == 1)
		fputs(result_ok(e) ? " successfully " : " unsuccessfully ", f);
	else
		fputc(' ', f);
	fprintf(f, "%s ", d.action ? d.action : "did-unknown");
	if (seek(e, d.obj1) == 1)
		text_object(f, e, &d, type);
	if (seek(e, d.two) == 1) {
		fputs("to ", f);
		put_s(f, norm_field_kind(e) == AUDIT_FK_FILE ? norm_realpath_of(e) : norm_interp(e));
		fputc(' ', f);
	}
	if (d.how && d.action && *d.action != 'e')	/* not for ended-session */
		fprintf(f, "using %s", d.how);
	fputc('\n', f);
out:
	free(d.action);
	free(d.how);
	return rc;
}

static void nev_clear(struct nev *e)
{
	for (uint32_t i = 0; i < e->n; i++) {
		struct nrec *r = &e->r[i];
		for (uint32_t j = 0; j < r->nf; j++) {
			free(r->f[j].own);
			free(r->f[j].interp);
		}
		free(r->f);
		free(r->buf);
	}
	e->n = 0;
	e->cwd = NULL;
}

/* auparse_feed's end of an event: a record of one of these types closes it. */
static int ends_event(uint32_t t)
{
	return t == T_PROCTITLE || t == T_EOE || t < 1300 || t >= 2100 || t == T_KERNEL ||
	       (t >= T_MAC_UNLBL_ALLOW && t <= T_MAC_CALIPSO_DEL);
}

static int part_out(FILE *f, struct audit_norm *n, struct nev *e, const struct audit_interp_ev *ev)
{
	int rc = n->o.text ? text_event(f, e, ev) : csv_event(f, n, e, ev);
	nev_clear(e);
	return rc;
}

int audit_log_normalize(FILE *f, struct audit_norm *n, const struct audit_interp_ev *ev)
{
	struct nev e = { .work = &n->work, .notime = ev->sec == 0, .names = ev->names };
	int rc = 0;
	if (!ev->nrec)
		return 0;
	if (!(e.r = calloc(ev->nrec, sizeof(*e.r))))
		return -ENOMEM;
	for (size_t i = 0; i < ev->nrec && rc >= 0; i++) {
		struct nrec *r = &e.r[e.n];
		*r = (struct nrec){ 0 };
		rc = rec_parse(r, &ev->rec[i], &e.cwd);
		if (rc < 0 || (rc && !e.n) || (!e.n && r->type == T_EOE)) {
			/* a record auparse cannot read, or an EOE, does not start an event */
			e.n++;
			nev_clear(&e);
			continue;
		}
		e.n++;
		if (!rc && ends_event(r->type))
			rc = part_out(f, n, &e, ev);
		else
			rc = 0;
	}
	if (rc >= 0 && e.n)
		rc = part_out(f, n, &e, ev);
	nev_clear(&e);
	free(e.r);
	return rc < 0 ? rc : 0;
}

SP_API int sp_audit_log_event_normalize(const struct sp_audit_log_event *lev, const uint8_t *mask,
					unsigned flags, sp_audit_log_put_fn put, void *ud)
{
	struct audit_norm_opts o = { !!(flags & SP_AUDIT_REPLAY_TEXT),
				     !!(flags & SP_AUDIT_REPLAY_EXTRA_KEYS),
				     !!(flags & SP_AUDIT_REPLAY_EXTRA_OBJ2),
				     !!(flags & SP_AUDIT_REPLAY_EXTRA_TIME) };
	struct audit_norm *n;
	char *buf = NULL;
	size_t len = 0;
	if (!lev || !put || !(flags & (SP_AUDIT_REPLAY_CSV | SP_AUDIT_REPLAY_TEXT)) ||
	    (flags & SP_AUDIT_REPLAY_CSV && flags & SP_AUDIT_REPLAY_TEXT))
		return -EINVAL;
	struct audit_interp_ev ev = { lev->sec, lev->msec, lev->serial, lev->node_cstr, NULL, 0,
				      NULL };
	struct audit_interp_rec *v = calloc(lev->nrec ? lev->nrec : 1, sizeof(*v));
	int err = v ? audit_norm_new(&o, &n) : -ENOMEM;
	if (err) {
		free(v);
		return err;
	}
	n->header = 1;	/* the heading is the stream's, not the event's */
	for (size_t i = 0; i < lev->nrec; i++)
		if (!mask || mask[i])
			v[ev.nrec++] = (struct audit_interp_rec){ lev->rec[i].type, lev->rec[i].text,
								  lev->rec[i].len };
	ev.rec = v;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		err = -ENOMEM;
	if (f) {
		err = audit_log_normalize(f, n, &ev);
		if (fclose(f) && !err)
			err = -ENOMEM;
		if (!err && len)
			err = put(ud, buf, len);
	}
	free(buf);
	free(v);
	audit_norm_free(n);
	return err;
}
