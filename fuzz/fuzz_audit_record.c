/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_audit_record.c - libFuzzer target for the recorded event stream reader: any bytes (the
 * stream header is prepended when missing, so frames get exercised) read event by event; each
 * event is decided by both engines and written again.  Invariants: no reads outside the input;
 * an error always comes with a byte-offset diagnostic inside the input; rewriting what was read
 * is a fixpoint (write(read(write(read(x)))) == write(read(x))).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "secpath/audit.h"
#include "secpath/audit_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sp_audit_ref *ref;
static struct sp_audit_matcher *m;

static void setup(void)
{
	static const char rules[] =
		"-a always,exit -F arch=b64 -S openat -F success=0 -k fail\n"
		"-a always,exit -F obj_type=shadow_t -F dir=/ -k shadow\n"
		"-a always,exit -F subj_type=sshd_t -F gid=24 -k sshd\n"
		"-a always,user -F msgtype=1105 -F pid=106\n"
		"-a always,exclude -F msgtype=1112 -F auid=1002\n";
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_ruleset *rs;
	struct sp_audit_item it;
	struct sp_audit_fsview *fs;
	static struct sp_audit_engine_opts eo;
	if (sp_audit_ruleset_parse(rules, sizeof(rules) - 1, "f", &po, &rs, NULL) ||
	    sp_audit_fsview_new(&fs) || sp_audit_fsview_add(fs, "/", 2, 1, 040755))
		abort();
	eo.sz = sizeof(eo);
	eo.fs = fs;	/* kept for the process lifetime */
	if (sp_audit_ref_new(&eo, &ref))
		abort();
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++)
		if (sp_audit_ruleset_item(rs, i, &it) ||
		    sp_audit_ref_add(ref, it.blob, it.blob_len, (uint32_t)i))
			abort();
	sp_audit_ruleset_free(rs);
	if (sp_audit_matcher_compile(ref, &m))
		abort();
}

/* Read every event of buf, decide it, write it to a new memfd; returns the bytes written. */
static uint8_t *rewrite(const uint8_t *buf, size_t len, size_t *out_len, int check_diag)
{
	struct sp_audit_record_reader *r;
	struct sp_audit_record_writer *w;
	struct sp_audit_event *ev;
	struct sp_audit_decision d1, d2;
	struct sp_diags d;
	int fd = memfd_create("rec", 0), rc;
	if (fd < 0 || sp_audit_event_new(&ev))
		abort();
	if (sp_audit_record_reader_new(buf, len, &r)) {
		*out_len = 0;
		sp_audit_event_free(ev);
		close(fd);
		return NULL;
	}
	if (sp_audit_record_writer_new(fd, &w))
		abort();
	sp_diags_init(&d, NULL);
	while ((rc = sp_audit_record_read(r, ev, &d)) == 1) {
		sp_audit_ref_filter(ref, ev, &d1);
		sp_audit_matcher_filter(m, ev, &d2);
		if (!sp_audit_decision_equal(&d1, &d2))
			abort();
		if (sp_audit_record_write(w, ev))
			abort();
	}
	if (rc < 0 && check_diag && (d.n != 1 || !d.v[0].has_offset || d.v[0].offset >= len))
		abort();
	sp_diags_release(&d);
	if (sp_audit_record_writer_finish(w))
		abort();
	sp_audit_record_reader_free(r);
	sp_audit_event_free(ev);
	off_t n = lseek(fd, 0, SEEK_END);
	uint8_t *out = malloc((size_t)n + 1);
	if (!out || pread(fd, out, (size_t)n, 0) != n)
		abort();
	close(fd);
	*out_len = (size_t)n;
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf, *a, *b;
	size_t len = size, la, lb;
	if (!m)
		setup();
	if (sp_audit_record_is_stream(data, size)) {
		buf = malloc(size + 1);
		memcpy(buf, data, size);
	} else {
		/* a valid header, then the input as frames */
		len = SP_AUDIT_RECORD_HDR_SIZE + size;
		buf = malloc(len);
		memcpy(buf, SP_AUDIT_RECORD_MAGIC, 8);
		memset(buf + 8, 0, 8);
		buf[8] = SP_AUDIT_RECORD_VERSION;
		memcpy(buf + SP_AUDIT_RECORD_HDR_SIZE, data, size);
	}
	a = rewrite(buf, len, &la, 1);
	if (a) {
		b = rewrite(a, la, &lb, 0);
		if (!b || la != lb || memcmp(a, b, la))
			abort();
		free(b);
	}
	free(a);
	free(buf);
	return 0;
}
