/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_audit_record.c - the recorded event stream format: round trips (bytes and decisions of
 * both engines), and the reader's bounds and error offsets on damaged streams.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secpath/audit.h"
#include "secpath/audit_record.h"

#define NEV 64

/* A deterministic variety of events touching every recorded field. */
static void make_event(struct sp_audit_event *ev, unsigned i)
{
	sp_audit_event_reset(ev);
	sp_audit_event_set_kind(ev, (enum sp_audit_event_kind)(i % 7 == 6   ? SP_AUDIT_EV_USER
							       : i % 7 == 5 ? SP_AUDIT_EV_URING
									    : SP_AUDIT_EV_SYSCALL));
	sp_audit_event_set_syscall(ev, i & 1 ? SP_AUDIT_ARCH_I386 : SP_AUDIT_ARCH_X86_64,
				   (int32_t)(i * 7 % 330));
	sp_audit_event_set_args(ev, i, 0xffffffff00000000ull | i, i * 3, (uint64_t)-1);
	if (i % 3)
		sp_audit_event_set_return(ev, i % 2 ? -13 : (int64_t)i * 100000000000ll);
	sp_audit_event_set_pids(ev, 100 + i, 200 + i, 1);
	sp_audit_event_set_uids(ev, i, i + 1, i + 2, i + 3);
	sp_audit_event_set_gids(ev, 10 * i, 10 * i + 1, 10 * i + 2, 10 * i + 3);
	uint32_t g[5] = { 4, 24, 27, 1000 + i, 5 };
	assert_int_equal(sp_audit_event_set_groups(ev, g, i % 6), 0);
	sp_audit_event_set_loginuid(ev, i % 4 ? 1000 + i : SP_AUDIT_UNSET);
	sp_audit_event_set_sessionid(ev, i % 5 ? i : SP_AUDIT_UNSET);
	sp_audit_event_set_personality(ev, i % 9 ? 0 : 0x8);
	if (i % 4)
		sp_audit_event_set_exe(ev, 4000 + i % 3, SP_AUDIT_MKDEV(8, 1));
	if (i % 3 == 1)
		assert_int_equal(sp_audit_event_set_subj_ctx(
					 ev, i % 2 ? "user_u:user_r:user_t:s0-s0:c0.c1023"
						   : "system_u:system_r:sshd_t:s1:c3,c7.c9"),
				 0);
	sp_audit_event_set_saddr_fam(ev, i % 5 == 2 ? 2 : -1);
	sp_audit_event_set_msgtype(ev, 1100 + i % 30);
	sp_audit_event_set_openat2_flags(ev, i % 8 == 3 ? 02 : 0);
	sp_audit_event_set_auditd(ev, i == 17);
	if (i % 6 == 5) {	/* the task list's own view (the forking task) */
		const uint32_t tu[4] = { 900000, 900001, 900002, 900003 }, tg[4] = { 7, 8, 9, 10 };
		const uint32_t tgroups[3] = { 11, 24, 900000 + i };
		assert_int_equal(sp_audit_event_set_task_creds(ev, 77 + i, tu, tg, tgroups, i % 4, 900000,
							       i),
				 0);
	}
	for (unsigned k = 0; k < i % 5; k++) {
		int idx = sp_audit_event_add_name(
			ev, k == 3 ? SP_AUDIT_INO_UNSET : 4000 + k + i % 3, SP_AUDIT_MKDEV(8, k));
		assert_true(idx >= 0);
		static const char *paths[] = { "/etc/shadow", "/tmp/x y", NULL,
					       "/var/log/audit/audit.log" };
		assert_int_equal(sp_audit_event_name_set_path(ev, idx, paths[k]), 0);
		sp_audit_event_name_set_rdev(ev, idx, SP_AUDIT_MKDEV(k, 3));
		sp_audit_event_name_set_mode(ev, idx, k & 1 ? 040755 : 0100644);
		sp_audit_event_name_set_owner(ev, idx, k, 1000 + k);
		sp_audit_event_name_set_fs_magic(ev, idx, k == 2 ? 0x74726163 : 0xef53);
		if (k == 1)
			assert_int_equal(sp_audit_event_name_set_obj_ctx(
						 ev, idx, "system_u:object_r:shadow_t:s0"),
					 0);
		for (unsigned w = 0; w < k; w++)
			assert_int_equal(sp_audit_event_name_add_walked(ev, idx, 2 + w,
									SP_AUDIT_MKDEV(8, 1)),
					 0);
	}
}

static const char rules_text[] =
	"-a always,exit -F arch=b64 -S openat,open -F success=0 -k fail\n"
	"-a always,exit -F arch=b32 -S all -F auid>=1000 -F auid!=unset -k b32\n"
	"-a always,exit -F obj_type=shadow_t -k shadow\n"
	"-a always,exit -F subj_type=sshd_t -F exit=-13 -k sshd\n"
	"-a always,exit -F path=/etc/shadow -F perm=wa -k watch\n"
	"-a always,exit -F inode=4002 -k ino\n"
	"-a always,exit -F gid=24 -F saddr_fam=2 -k grp\n"
	"-a always,exit -F pers=8 -k pers\n"
	"-a always,exit -F filetype=dir -F devmajor=0 -k dir\n"
	"-a never,exit -F loginuid_set=0 -F sessionid=0\n"
	"-a always,exit -F obj_gid=1001 -F a1&0xffffffff -k a1\n"
	"-a always,io_uring -F uid=5 -k uring\n"
	"-a always,user -F msgtype=1105 -F pid=106\n"
	"-a never,user -F uid=6\n"
	"-a always,exclude -F msgtype=1112 -F auid=1002\n"
	"-a never,task -F uid=900000 -F loginuid=900000\n";

static struct sp_audit_matcher *make_matcher(struct sp_audit_ref **refp)
{
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_ruleset *rs;
	struct sp_audit_ref *ref;
	struct sp_audit_matcher *m;
	struct sp_audit_item it;
	assert_int_equal(sp_audit_ruleset_parse(rules_text, sizeof(rules_text) - 1, "t.rules", &po,
						&rs, NULL),
			 0);
	assert_int_equal(sp_audit_ref_new(NULL, &ref), 0);
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		assert_int_equal(sp_audit_ruleset_item(rs, i, &it), 0);
		assert_int_equal(it.kind, SP_AUDIT_ITEM_ADD);
		assert_int_equal(sp_audit_ref_add(ref, it.blob, it.blob_len, (uint32_t)i), 0);
	}
	sp_audit_ruleset_free(rs);
	assert_int_equal(sp_audit_matcher_compile(ref, &m), 0);
	*refp = ref;
	return m;
}

/* Write events 0..n-1 into a temporary file and return its bytes. */
static uint8_t *write_stream(unsigned n, size_t *len)
{
	FILE *f = tmpfile();
	struct sp_audit_record_writer *w;
	struct sp_audit_event *ev;
	assert_non_null(f);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	assert_int_equal(sp_audit_record_writer_new(fileno(f), &w), 0);
	for (unsigned i = 0; i < n; i++) {
		make_event(ev, i);
		assert_int_equal(sp_audit_record_write(w, ev), 0);
	}
	assert_int_equal(sp_audit_record_writer_finish(w), 0);
	sp_audit_event_free(ev);
	long sz = lseek(fileno(f), 0, SEEK_END);
	assert_true(sz >= (long)SP_AUDIT_RECORD_HDR_SIZE);
	uint8_t *buf = malloc((size_t)sz);
	assert_non_null(buf);
	assert_int_equal(pread(fileno(f), buf, (size_t)sz, 0), sz);
	fclose(f);
	*len = (size_t)sz;
	return buf;
}

static void test_audit_record__round_trip_decisions(void **st)
{
	(void)st;
	struct sp_audit_ref *ref;
	struct sp_audit_matcher *m = make_matcher(&ref);
	struct sp_audit_record_reader *r;
	struct sp_audit_event *orig, *back;
	struct sp_audit_decision d1, d2, d3, d4;
	size_t len;
	uint8_t *buf = write_stream(NEV, &len);
	unsigned recorded = 0;
	assert_true(sp_audit_record_is_stream(buf, len));
	assert_int_equal(sp_audit_event_new(&orig), 0);
	assert_int_equal(sp_audit_event_new(&back), 0);
	assert_int_equal(sp_audit_record_reader_new(buf, len, &r), 0);
	for (unsigned i = 0; i < NEV; i++) {
		assert_int_equal(sp_audit_record_read(r, back, NULL), 1);
		make_event(orig, i);
		assert_int_equal(sp_audit_event_name_count(back), i % 5);
		assert_int_equal(sp_audit_event_has_task_creds(back), i % 6 == 5);
		sp_audit_ref_filter(ref, orig, &d1);
		sp_audit_ref_filter(ref, back, &d2);
		sp_audit_matcher_filter(m, orig, &d3);
		sp_audit_matcher_filter(m, back, &d4);
		assert_true(sp_audit_decision_equal(&d1, &d2));
		assert_true(sp_audit_decision_equal(&d3, &d4));
		assert_true(sp_audit_decision_equal(&d1, &d3));
		recorded += d2.record;
	}
	assert_int_equal(sp_audit_record_read(r, back, NULL), 0);
	assert_int_equal(sp_audit_record_reader_offset(r), len);
	/* the rules are not vacuous: some events are recorded, some are not */
	assert_true(recorded > 0 && recorded < NEV);
	sp_audit_record_reader_free(r);

	/* canonical: reading and writing again gives the same bytes */
	FILE *f = tmpfile();
	struct sp_audit_record_writer *w;
	assert_int_equal(sp_audit_record_reader_new(buf, len, &r), 0);
	assert_int_equal(sp_audit_record_writer_new(fileno(f), &w), 0);
	while (sp_audit_record_read(r, back, NULL) == 1)
		assert_int_equal(sp_audit_record_write(w, back), 0);
	assert_int_equal(sp_audit_record_writer_finish(w), 0);
	assert_int_equal(lseek(fileno(f), 0, SEEK_END), (long)len);
	uint8_t *buf2 = malloc(len);
	assert_int_equal(pread(fileno(f), buf2, len, 0), (ssize_t)len);
	assert_memory_equal(buf, buf2, len);
	free(buf2);
	fclose(f);
	sp_audit_record_reader_free(r);
	sp_audit_event_free(orig);
	sp_audit_event_free(back);
	sp_audit_matcher_free(m);
	sp_audit_ref_free(ref);
	free(buf);
}

static void test_audit_record__empty_and_bad_header(void **st)
{
	(void)st;
	size_t len;
	uint8_t *buf = write_stream(0, &len);
	struct sp_audit_record_reader *r;
	struct sp_audit_event *ev;
	assert_int_equal(len, SP_AUDIT_RECORD_HDR_SIZE);
	assert_int_equal(sp_audit_event_new(&ev), 0);
	assert_int_equal(sp_audit_record_reader_new(buf, len, &r), 0);
	assert_int_equal(sp_audit_record_read(r, ev, NULL), 0);
	sp_audit_record_reader_free(r);
	assert_int_equal(sp_audit_record_reader_new(buf, len - 1, &r), -EINVAL);
	buf[8] = 2;	/* version 2 */
	assert_int_equal(sp_audit_record_reader_new(buf, len, &r), -EINVAL);
	buf[8] = 1;
	buf[0] = 'X';
	assert_int_equal(sp_audit_record_reader_new(buf, len, &r), -EINVAL);
	assert_false(sp_audit_record_is_stream(buf, len));
	sp_audit_event_free(ev);
	free(buf);
}

/* Every truncation of a stream reads the complete frames before the cut, then fails at the
 * offset of the cut frame (or ends cleanly on a frame boundary). */
static void test_audit_record__truncation_offsets(void **st)
{
	(void)st;
	size_t len;
	uint8_t *buf = write_stream(12, &len);
	size_t bounds[16], nb = 0;
	struct sp_audit_record_reader *r;
	struct sp_audit_event *ev;
	assert_int_equal(sp_audit_event_new(&ev), 0);
	assert_int_equal(sp_audit_record_reader_new(buf, len, &r), 0);
	bounds[nb++] = sp_audit_record_reader_offset(r);
	while (sp_audit_record_read(r, ev, NULL) == 1)
		bounds[nb++] = sp_audit_record_reader_offset(r);
	sp_audit_record_reader_free(r);
	assert_int_equal(nb, 13);
	for (size_t cut = SP_AUDIT_RECORD_HDR_SIZE; cut < len; cut++) {
		struct sp_diags d;
		int rc, nread = 0;
		sp_diags_init(&d, NULL);
		assert_int_equal(sp_audit_record_reader_new(buf, cut, &r), 0);
		while ((rc = sp_audit_record_read(r, ev, &d)) == 1)
			nread++;
		size_t k = 0;
		while (k + 1 < nb && bounds[k + 1] <= cut)
			k++;
		assert_int_equal(nread, (int)k);
		if (bounds[k] == cut) {
			assert_int_equal(rc, 0);
		} else {
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(d.n, 1);
			assert_true(d.v[0].has_offset);
			assert_int_equal(d.v[0].offset, bounds[k]);
			/* sticky */
			assert_int_equal(sp_audit_record_read(r, ev, NULL), -EINVAL);
		}
		sp_audit_record_reader_free(r);
		sp_diags_release(&d);
	}
	/* a damaged kind byte is reported at its frame */
	buf[bounds[3] + 4] = 9;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_record_reader_new(buf, len, &r), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(sp_audit_record_read(r, ev, &d), 1);
	assert_int_equal(sp_audit_record_read(r, ev, &d), -EINVAL);
	assert_int_equal(d.v[0].offset, bounds[3]);
	assert_string_equal(d.v[0].msg, "record: unknown event kind");
	sp_audit_record_reader_free(r);
	sp_diags_release(&d);
	sp_audit_event_free(ev);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_audit_record__round_trip_decisions),
		cmocka_unit_test(test_audit_record__empty_and_bad_header),
		cmocka_unit_test(test_audit_record__truncation_offsets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
