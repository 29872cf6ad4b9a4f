/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_audit_events.c - libFuzzer target for the events text format (`secpath audit filter`
 * EVENTS files, src/audit/filter/event_text.c): any bytes, split into lines; "fs" lines go to
 * sp_audit_fsview_parse_line, every other line to sp_audit_event_parse, and each event that
 * parses is decided by the reference engine and the compiled matcher of a fixed rule set that
 * reads names, exe, credentials, groups and contexts.
 * Invariants checked: a refusal is a negative errno with exactly one error diagnostic on this
 * line, its column inside the line (or one past it); "consumed" never passes the line; an
 * accepted event decides the same in both engines, and the checker of its expectations
 * (sp_audit_decision_check) counts one error per mismatch, each inside the line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char rules[] =
	"-a always,exit -F arch=b64 -S openat,execve -F success=0 -k fail\n"
	"-a always,exit -F path=/etc/shadow -F perm=wa -k shadow\n"
	"-a always,exit -F dir=/etc -F uid=0 -k etc\n"
	"-a always,exit -F arch=b64 -S all -F gid=24 -F auid>=1000 -F auid!=unset -k grp\n"
	"-a always,exit -F exe=/usr/bin/su -k su\n"
	"-a always,exit -F subj_type=sshd_t -F obj_type=shadow_t -k lsm\n"
	"-a always,exit -F filetype=dir -F devmajor=8 -k dirs\n"
	"-a never,exit -F arch=b32 -S all -F a0&1\n"
	"-a always,user -F msgtype=1105 -F uid=5\n";

static struct sp_audit_fsview *fs0;
static struct sp_audit_ref *ref;
static struct sp_audit_matcher *m;

static void setup(void)
{
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_ruleset *rs = NULL;
	if (sp_audit_fsview_new(&fs0) || sp_audit_fsview_add(fs0, "/", 2, SP_AUDIT_MKDEV(8, 1), 040755) ||
	    sp_audit_fsview_add(fs0, "/etc", 10, SP_AUDIT_MKDEV(8, 1), 040755) ||
	    sp_audit_fsview_add(fs0, "/etc/shadow", 76, SP_AUDIT_MKDEV(8, 1), 0100640) ||
	    sp_audit_fsview_add(fs0, "/usr", 20, SP_AUDIT_MKDEV(8, 1), 040755) ||
	    sp_audit_fsview_add(fs0, "/usr/bin", 21, SP_AUDIT_MKDEV(8, 1), 040755) ||
	    sp_audit_fsview_add(fs0, "/usr/bin/su", 99, SP_AUDIT_MKDEV(8, 1), 0104755))
		abort();
	struct sp_audit_engine_opts o = { .sz = sizeof(o), .fs = fs0 };
	if (sp_audit_ref_new(&o, &ref) ||
	    sp_audit_ruleset_parse(rules, sizeof(rules) - 1, "fuzz.rules", &po, &rs, NULL))
		abort();
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it) || sp_audit_ref_add(ref, it.blob, it.blob_len, (uint32_t)i))
			abort();
	}
	sp_audit_ruleset_free(rs);
	if (sp_audit_matcher_compile(ref, &m))
		abort();
}

/* The expectations after `used`: one error per mismatch, every diagnostic inside the line. */
static void check_expectations(const struct sp_audit_decision *dec, const char *p, size_t len,
			       size_t used, uint32_t line, struct sp_diags *d)
{
	sp_diags_clear(d);
	int bad = sp_audit_decision_check(dec, p, len, used, "fuzz", line, d);
	if (bad == -ENOMEM)
		return;
	if (bad < 0 || (!d->dropped && d->nerrors != (size_t)bad))
		abort();
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].line != line || d->v[i].col < 1 || d->v[i].end_col < d->v[i].col ||
		    d->v[i].end_col > len)
			abort();
}

/* A refusal must carry exactly one error on this line, inside it. */
static void check_refusal(int rc, const struct sp_diags *d, uint32_t line, size_t len)
{
	if (rc >= 0 || rc < -4095)	/* a negative errno */
		abort();
	if (rc == -ENOMEM)
		return;
	if (d->nerrors != 1 || d->n != 1 || d->v[0].line != line || d->v[0].col < 1 ||
	    d->v[0].col > len + 1 || (d->v[0].end_col && d->v[0].end_col < d->v[0].col) ||
	    d->v[0].end_col > len + 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!m)
		setup();
	struct sp_audit_event *ev;
	struct sp_audit_fsview *fs;
	struct sp_diags d;
	if (sp_audit_event_new(&ev) || sp_audit_fsview_new(&fs))
		abort();
	sp_diags_init(&d, NULL);
	const char *p = (const char *)data, *end = p + size;
	uint32_t line = 0;
	while (p < end && line < 4096) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		line++;
		sp_diags_clear(&d);
		if (len >= 2 && p[0] == 'f' && p[1] == 's') {
			int rc = sp_audit_fsview_parse_line(fs, p, len, "fuzz", line, &d);
			if (rc)
				check_refusal(rc, &d, line, len);
		} else {
			size_t used = (size_t)-1;
			int rc = sp_audit_event_parse(ev, (line & 1) ? fs0 : fs, "x86_64", p, len, "fuzz", line,
						      &d, &used);
			if (used > len)
				abort();
			if (rc) {
				check_refusal(rc, &d, line, len);
			} else {
				struct sp_audit_decision a, b;
				sp_audit_ref_filter(ref, ev, &a);
				sp_audit_matcher_filter(m, ev, &b);
				if (!sp_audit_decision_equal(&a, &b))
					abort();
				check_expectations(&a, p, len, used, line, &d);
			}
		}
		p += len + (nl ? 1 : 0);
	}
	sp_diags_release(&d);
	sp_audit_fsview_free(fs);
	sp_audit_event_free(ev);
	return 0;
}
