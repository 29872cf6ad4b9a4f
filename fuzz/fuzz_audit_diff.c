/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_audit_diff.c - differential libFuzzer target: the reference audit filter against the
 * compiled matcher.  The input is read as a little program: a rule set (kernel rule blobs built
 * from the bytes: lists, actions, prepends, masks including class selectors, fields of every
 * kind with any operator and constant, strings from a small path/LSM vocabulary, deletions) and
 * then events (kind, ABI, syscall, arguments, return, credentials, names with identities from a
 * fixed file-system view).  Any disagreement between the two engines aborts.
 * Public API only; no output.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in {
	const uint8_t *p;
	size_t n;
};

static uint32_t take(struct in *in, unsigned bytes)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

static const char *const paths[] = { "/", "/etc", "/etc/passwd", "/etc/shadow", "/etc/ssh",
				     "/etc/ssh/sshd_config", "/usr", "/usr/bin", "/usr/bin/su",
				     "/tmp", "/tmp/gone" };
static const char *const lsm[] = { "sshd_t", "etc_t", "system_u", "object_r", "s0", "s1:c2",
				   "s0-s15:c0.c1023", "bad level", "unconfined_t" };
static const char *const ctxs[] = { "system_u:system_r:sshd_t:s0-s0:c0.c1023",
				    "system_u:object_r:etc_t:s0", "u:r:unconfined_t:s1:c2",
				    "staff_u:staff_r:staff_t:s15:c0.c1023" };
static const uint32_t ftypes[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
				   19, 20, 21, 22, 23, 24, 25, 26, 100, 101, 102, 103, 104, 105,
				   106, 107, 108, 109, 110, 111, 112, 113, 200, 201, 202, 203, 210 };
static const uint32_t wire_ops[8] = { 0x40000000, 0x30000000, 0x08000000, 0x48000000,
				      0x10000000, 0x20000000, 0x50000000, 0x60000000 };
static const uint32_t consts[] = { 0, 1, 2, 3, 5, 13, 100, 1000, 1300, 1100, 4294967295u,
				   4294967283u, 0xc000003e, 0x40000003, 0x74726163, 0x64626720,
				   0100000, 0040000, 020, 1001 };

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static size_t build_rule(struct in *in, uint8_t *b, size_t cap)
{
	size_t len = 1040;
	uint32_t nf = 0;
	memset(b, 0, 1040);
	uint32_t c = take(in, 1);
	put32(b, 0, (c & 7) | (c & 8 ? 0x10 : 0));
	put32(b, 4, (c >> 4) % 3);
	uint32_t m = take(in, 1);
	if (m & 1) {
		for (int i = 0; i < 64; i++)
			put32(b, 12 + 4 * i, 0xffffffffu);
	} else {
		for (uint32_t k = m >> 5; k; k--) {
			uint32_t nr = take(in, 2) % 2060;
			if (nr < 2048) {
				uint32_t w;
				memcpy(&w, b + 12 + 4 * (nr / 32), 4);
				put32(b, 12 + 4 * (nr / 32), w | 1u << (nr % 32));
			}
		}
	}
	for (uint32_t k = take(in, 1) % 6; k; k--) {
		uint32_t sel = take(in, 1), t = ftypes[sel % (sizeof(ftypes) / sizeof(ftypes[0]))];
		uint32_t op = wire_ops[take(in, 1) % 8];
		uint32_t v;
		const char *str = NULL;
		if (t == 105 || t == 107 || t == 112)
			str = paths[take(in, 1) % (sizeof(paths) / sizeof(paths[0]))];
		else if ((t >= 13 && t <= 17) || (t >= 19 && t <= 23))
			str = lsm[take(in, 1) % (sizeof(lsm) / sizeof(lsm[0]))];
		else if (t == 210)
			str = (take(in, 1) & 1) ? "k1" : "key\001two";
		if (str) {
			size_t l = strlen(str);
			if (len + l > cap)
				break;
			memcpy(b + len, str, l);
			len += l;
			v = (uint32_t)l;
		} else {
			uint32_t x = take(in, 1);
			v = x & 0x80 ? take(in, 4) : consts[x % (sizeof(consts) / sizeof(consts[0]))];
		}
		put32(b, 268 + 4 * nf, t);
		put32(b, 524 + 4 * nf, v);
		put32(b, 780 + 4 * nf, op);
		nf++;
	}
	put32(b, 8, nf);
	put32(b, 1036, (uint32_t)(len - 1040));
	return len;
}

static void build_event(struct in *in, struct sp_audit_event *ev, const struct sp_audit_fsview *fs)
{
	static const uint32_t archs[] = { SP_AUDIT_ARCH_X86_64, SP_AUDIT_ARCH_I386, 0xc00000b7 };
	sp_audit_event_reset(ev);
	uint32_t c = take(in, 1);
	sp_audit_event_set_kind(ev, c % 16 == 0 ? SP_AUDIT_EV_USER : c % 16 == 1 ? SP_AUDIT_EV_URING
									   : SP_AUDIT_EV_SYSCALL);
	sp_audit_event_set_syscall(ev, archs[(c >> 4) % 3], (int32_t)(take(in, 2) % 2100) - (c & 0x80 ? 40 : 0));
	uint64_t a[4];
	for (int i = 0; i < 4; i++) {
		uint32_t x = take(in, 1);
		a[i] = x & 0x80 ? (uint64_t)take(in, 4) << (x & 0x40 ? 8 : 0) : consts[x % 20];
	}
	sp_audit_event_set_args(ev, a[0], a[1], a[2], a[3]);
	uint32_t r = take(in, 1);
	if (r & 1)
		sp_audit_event_set_return(ev, (int64_t)(int32_t)take(in, 4) % 5000);
	uint32_t id = consts[take(in, 1) % 20], id2 = consts[take(in, 1) % 20];
	sp_audit_event_set_uids(ev, id, r & 2 ? id2 : id, id, id2);
	sp_audit_event_set_gids(ev, id2, id, id2, id);
	uint32_t groups[2] = { id2, 100 };
	sp_audit_event_set_groups(ev, groups, (r >> 2) % 3);
	sp_audit_event_set_pids(ev, consts[take(in, 1) % 20], 100, consts[take(in, 1) % 20]);
	sp_audit_event_set_loginuid(ev, consts[take(in, 1) % 20]);
	sp_audit_event_set_sessionid(ev, consts[take(in, 1) % 20]);
	uint32_t f = take(in, 1);
	if (f & 1)
		sp_audit_event_set_subj_ctx(ev, ctxs[(f >> 1) % 4]);
	if (f & 8)
		sp_audit_event_set_saddr_fam(ev, (int)(f >> 4));
	if (f & 16)
		sp_audit_event_set_msgtype(ev, consts[take(in, 1) % 20]);
	if (f & 32)
		sp_audit_event_set_openat2_flags(ev, take(in, 1));
	if ((f & 0xc0) == 0xc0)
		sp_audit_event_set_auditd(ev, 1);
	if (f & 4) {
		uint64_t ino;
		uint32_t dev;
		if (!sp_audit_fsview_lookup(fs, paths[take(in, 1) % 11], &ino, &dev, NULL))
			sp_audit_event_set_exe(ev, ino, dev);
	}
	for (uint32_t k = take(in, 1) % 4; k; k--) {
		uint32_t x = take(in, 1);
		int i;
		if (x & 1)
			i = sp_audit_event_add_path(ev, fs, paths[(x >> 1) % 11]);
		else
			i = sp_audit_event_add_name(ev, x & 2 ? SP_AUDIT_INO_UNSET : 1000 + (x >> 2),
						    SP_AUDIT_MKDEV(8, x & 4 ? 1 : 2));
		if (i < 0)
			break;
		uint32_t y = take(in, 1);
		sp_audit_event_name_set_mode(ev, i, y & 1 ? 0100644 : 040755);
		sp_audit_event_name_set_owner(ev, i, consts[(y >> 1) % 20], consts[(y >> 3) % 20]);
		if (y & 0x80)
			sp_audit_event_name_set_fs_magic(ev, i, y & 0x40 ? 0x74726163 : 0x64626720);
		if (y & 0x20)
			sp_audit_event_name_set_obj_ctx(ev, i, ctxs[y % 4]);
		if (y & 0x10)
			sp_audit_event_name_set_rdev(ev, i, SP_AUDIT_MKDEV(y & 7, y & 5));
	}
	uint32_t t = take(in, 1);
	if (t & 1) {
		/* the task list's view: the forking task's pid and credentials */
		uint32_t tu[4], tg[4], tgr[2] = { consts[take(in, 1) % 20], 100 };
		for (int i = 0; i < 4; i++) {
			tu[i] = consts[take(in, 1) % 20];
			tg[i] = consts[take(in, 1) % 20];
		}
		sp_audit_event_set_task_creds(ev, consts[(t >> 1) % 20], tu, tg, tgr, (t >> 6) % 3,
					      consts[take(in, 1) % 20], consts[take(in, 1) % 20]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };
	struct sp_audit_fsview *fs;
	struct sp_audit_ref *ref;
	struct sp_audit_matcher *m;
	struct sp_audit_event *ev;
	uint8_t blob[1040 + 512];
	uint8_t prev[1040 + 512];
	size_t prevlen = 0;

	if (sp_audit_fsview_new(&fs))
		return 0;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strcmp(paths[i], "/tmp/gone"))
			sp_audit_fsview_add(fs, paths[i], 10 + i * 37, SP_AUDIT_MKDEV(8, 1),
					    strchr(paths[i] + 1, '.') || i == 2 || i == 3 || i == 8 ? 0100644 : 040755);
	struct sp_audit_engine_opts o = { .sz = sizeof(o), .fs = fs };
	if (sp_audit_ref_new(&o, &ref)) {
		sp_audit_fsview_free(fs);
		return 0;
	}
	uint32_t nrules = take(&in, 1) % 24;
	for (uint32_t i = 0; i < nrules; i++) {
		if (prevlen && (take(&in, 1) & 7) == 0) {
			sp_audit_ref_del(ref, prev, prevlen);
			continue;
		}
		size_t len = build_rule(&in, blob, sizeof(blob));
		if (sp_audit_ref_add(ref, blob, len, i + 1) == 0) {
			memcpy(prev, blob, len);
			prevlen = len;
		}
	}
	if (sp_audit_matcher_compile(ref, &m) == 0) {
		if (sp_audit_event_new(&ev) == 0) {
			for (int k = 0; k < 64 && in.n; k++) {
				struct sp_audit_decision a, b;
				build_event(&in, ev, fs);
				sp_audit_ref_filter(ref, ev, &a);
				sp_audit_matcher_filter(m, ev, &b);
				if (!sp_audit_decision_equal(&a, &b))
					abort();
			}
			sp_audit_event_free(ev);
		}
		sp_audit_matcher_free(m);
	}
	sp_audit_ref_free(ref);
	sp_audit_fsview_free(fs);
	return 0;
}
