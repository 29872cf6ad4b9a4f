/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_policy_read.c - the policy reader on the hand-written fixtures (every format revision
 * 15..33), decisions and new-object types on tiny.33 checked against tiny.conf, boolean changes,
 * cross-version agreement of decisions, and hostile input: every truncation of a fixture, random
 * byte flips and absurd counts must give a positioned error, never a crash or an over-read
 * (the ASan variant checks the latter); .xz files decompressed in process, as xz -dc does.
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
#include <lzma.h>

#include "secpath/policy.h"
#include "policy/flat.h"
#include "secpath/slab.h"
#include "test_policy_util.h"

/* The node cache of the internal chained tables these tests build without a core. */
static struct sp_slab_cache *tp_nodes(void)
{
	static struct sp_slab_cache *c;
	if (!c)
		assert_int_equal(sp_slab_cache_create("test_avtab_node", sizeof(struct chained_node), 0,
						      0, NULL, &c), 0);
	return c;
}

#define TDIR "tests/data/policy/"

static struct sp_policy *load(const char *name, enum sp_avtab_layout l)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	char path[256];
	snprintf(path, sizeof(path), TDIR "%s", name);
	assert_int_equal(tp_read(path, &buf, &len), 0);
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = l, .diags = &d, .file = name };
	struct sp_policy *p = NULL;
	int rc = sp_policy_read(buf, len, &o, &p);
	if (rc && d.n) {
		char msg[512];
		sp_diag_format(&d.v[0], NULL, msg, sizeof(msg));
		print_error("%s", msg);
	}
	assert_int_equal(rc, 0);
	sp_diags_release(&d);
	free(buf);
	return p;
}

static uint32_t T(struct sp_policy *p, const char *n)
{
	uint32_t v = sp_policy_type_lookup(p, n);
	if (!v)
		print_error("no type %s\n", n);
	assert_true(v != 0);
	return v;
}

static uint32_t C(struct sp_policy *p, const char *n)
{
	uint32_t v = sp_policy_class_lookup(p, n);
	assert_true(v != 0);
	return v;
}

/* mask of a space-separated permission list of class c */
static uint32_t P(struct sp_policy *p, uint32_t c, const char *list)
{
	uint32_t m = 0;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		unsigned b = sp_policy_perm_lookup(p, c, t);
		assert_true(b != 0);
		m |= 1u << (b - 1);
	}
	return m;
}

static void test_policy__every_version_loads(void **st)
{
	(void)st;
	for (int v = 15; v <= 33; v++) {
		char name[32];
		snprintf(name, sizeof(name), "compat.%d", v);
		for (int l = 0; l < SP_AVTAB_NLAYOUTS; l++) {
			struct sp_policy *p = load(name, (enum sp_avtab_layout)l);
			struct sp_policy_info in;
			sp_policy_get_info(p, &in);
			assert_int_equal(in.version, v);
			assert_int_equal(in.mls, 0);
			/* 27 entries from v20 on; before, attributes are expanded: 93 keys */
			assert_int_equal(in.te_rules, v >= 20 ? 27 : 93);
			assert_int_equal(in.classes, 7);
			assert_int_equal(in.bools, v >= 16 ? 3 : 0);
			assert_int_equal(in.cond_nodes, v >= 16 ? 3 : 0);
			assert_int_equal(in.filename_rules, v >= 25 ? 3 : 0);
			assert_int_equal(sp_policy_avtab_count(p, 0), in.te_rules);
			sp_policy_free(p);
		}
	}
	for (int v = 30; v <= 33; v++) {
		char name[32];
		snprintf(name, sizeof(name), "tiny.%d", v);
		struct sp_policy *p = load(name, SP_AVTAB_FLAT);
		struct sp_policy_info in;
		sp_policy_get_info(p, &in);
		assert_int_equal(in.te_rules, 31);
		assert_int_equal(in.te_xperms, 4);
		assert_int_equal(in.cond_rules, 6);
		assert_int_equal(in.types + in.attributes, 21);
		assert_int_equal(in.attributes, 4);
		assert_int_equal(in.permissive, 1);
		sp_policy_free(p);
	}
}

static void test_policy__tiny_symbols(void **st)
{
	(void)st;
	struct sp_policy *p = load("tiny.33", SP_AVTAB_CHAINED);
	assert_int_equal(T(p, "etc_alias_t"), T(p, "etc_t"));
	assert_string_equal(sp_policy_type_name(p, T(p, "etc_alias_t")), "etc_t");
	assert_true(sp_policy_type_is_attr(p, T(p, "file_type")));
	assert_false(sp_policy_type_is_attr(p, T(p, "etc_t")));
	uint32_t file = C(p, "file");
	/* common perms first, then the class's own */
	assert_string_equal(sp_policy_perm_name(p, file, 0), "ioctl");
	assert_int_equal(sp_policy_perm_lookup(p, file, "entrypoint"), 16);
	/* dontaudit is stored inverted */
	struct sp_avtab_entry e[4];
	size_t n = sp_policy_avtab_lookup(p, 0, (uint16_t)T(p, "untrusted_t"),
					  (uint16_t)T(p, "file_type"), (uint16_t)file,
					  SP_AVTAB_AUDITDENY, e, 4);
	assert_int_equal(n, 1);
	assert_int_equal(e[0].data, 0xffffffdbu);
	assert_int_equal(sp_policy_bool_count(p), 3);
	int seen_sys = 0, seen_user_r = 0;
	for (uint32_t i = 1; i <= sp_policy_role_count(p); i++)
		seen_user_r |= sp_policy_role_name(p, i) && !strcmp(sp_policy_role_name(p, i), "user_r");
	for (uint32_t i = 1; i <= sp_policy_user_count(p); i++)
		seen_sys |= sp_policy_user_name(p, i) && !strcmp(sp_policy_user_name(p, i), "system_u");
	assert_true(seen_sys && seen_user_r);
	assert_string_equal(sp_policy_role_name(p, 1), "object_r");	/* the kernel requires it */
	uint32_t b = sp_policy_bool_lookup(p, "allow_app_tty");
	assert_int_equal(sp_policy_bool_get(p, b), 1);
	char buf[128];
	/* setools spelling of the node "allow_app_tty && !secure_mode" */
	int found = 0;
	for (uint32_t i = 1; i <= 3; i++) {
		sp_policy_cond_format(p, i, buf, sizeof(buf));
		found |= !strcmp(buf, "[ ! secure_mode && allow_app_tty ]") ||
			 !strcmp(buf, "[ allow_app_tty && ! secure_mode ]");
	}
	assert_true(found);
	/* type_attr_map rows include the type itself and its attributes */
	const uint32_t *row;
	size_t nr = sp_policy_type_attrs(p, T(p, "tty_t"), &row);
	assert_int_equal(nr, 3);
	const uint32_t *mem;
	size_t nm = sp_policy_attr_types(p, T(p, "dev_type"), &mem);
	assert_int_equal(nm, 3);	/* dev_t, tty_t, the attribute itself */
	sp_policy_free(p);
}

static void check_tiny_decisions(struct sp_policy *p)
{
	struct sp_av_decision a;
	uint32_t file = C(p, "file"), chr = C(p, "chr_file");
	assert_int_equal(sp_policy_compute_av(p, T(p, "app_t"), T(p, "etc_t"), file, &a), 0);
	assert_int_equal(a.allowed, P(p, file, "read getattr open execute entrypoint"));
	assert_int_equal(a.auditallow, P(p, file, "read"));
	assert_int_equal(a.auditdeny, ~P(p, file, "write"));	/* else branch of allow_app_write */
	assert_int_equal(a.flags, 0);
	assert_int_equal(sp_policy_compute_av(p, T(p, "app_t"), T(p, "tty_t"), chr, &a), 0);
	assert_int_equal(a.allowed, P(p, chr, "ioctl read write open append getattr"));
	assert_int_equal(a.auditallow, P(p, chr, "append"));
	assert_int_equal(sp_policy_compute_av(p, T(p, "untrusted_t"), T(p, "etc_t"), file, &a), 0);
	assert_int_equal(a.allowed, P(p, file, "read getattr open"));
	assert_int_equal(a.auditdeny, ~P(p, file, "write setattr"));
	assert_int_equal(a.flags, SP_AVD_FLAGS_PERMISSIVE);
	assert_int_equal(sp_policy_compute_av(p, T(p, "etc_t"), T(p, "app_t"), file, &a), 0);
	assert_int_equal(a.allowed, 0);
	assert_int_equal(a.auditdeny, 0xffffffffu);
	assert_int_equal(sp_policy_compute_av(p, 0, 1, 1, &a), -EINVAL);

	uint32_t o;
	uint32_t proc = C(p, "process"), dir = C(p, "dir");
	assert_int_equal(sp_policy_compute_type(p, T(p, "init_t"), T(p, "etc_t"), proc,
						SP_AVTAB_TRANSITION, NULL, &o), 0);
	assert_int_equal(o, T(p, "app_t"));
	sp_policy_compute_type(p, T(p, "app_t"), T(p, "tmp_t"), file, SP_AVTAB_TRANSITION, NULL, &o);
	assert_int_equal(o, T(p, "app_tmp_t"));
	sp_policy_compute_type(p, T(p, "app_t"), T(p, "tmp_t"), file, SP_AVTAB_TRANSITION, "app.conf", &o);
	assert_int_equal(o, T(p, "app_conf_t"));
	sp_policy_compute_type(p, T(p, "app_t"), T(p, "tmp_t"), file, SP_AVTAB_TRANSITION, "other", &o);
	assert_int_equal(o, T(p, "app_tmp_t"));
	sp_policy_compute_type(p, T(p, "app_t"), T(p, "tmp_t"), dir, SP_AVTAB_TRANSITION, "conf.d", &o);
	assert_int_equal(o, T(p, "app_conf_t"));
	sp_policy_compute_type(p, T(p, "app_t"), T(p, "tty_t"), chr, SP_AVTAB_CHANGE, NULL, &o);
	assert_int_equal(o, T(p, "dev_t"));
	sp_policy_compute_type(p, T(p, "app_t"), T(p, "tmp_t"), dir, SP_AVTAB_MEMBER, NULL, &o);
	assert_int_equal(o, T(p, "app_tmp_t"));
	sp_policy_compute_type(p, T(p, "app_t"), T(p, "etc_t"), file, SP_AVTAB_TRANSITION, NULL, &o);
	assert_int_equal(o, 0);	/* conditional rule, boolean off */
}

static void test_policy__tiny_decisions_and_booleans(void **st)
{
	(void)st;
	for (int l = 0; l < SP_AVTAB_NLAYOUTS; l++) {
		struct sp_policy *p = load("tiny.33", (enum sp_avtab_layout)l);
		check_tiny_decisions(p);
		uint32_t file = C(p, "file"), chr = C(p, "chr_file");
		struct sp_av_decision a;
		uint32_t seq = sp_policy_seqno(p);
		assert_int_equal(sp_policy_bool_set(p, sp_policy_bool_lookup(p, "allow_app_write"), 1), 0);
		assert_true(sp_policy_seqno(p) != seq);
		sp_policy_compute_av(p, T(p, "app_t"), T(p, "etc_t"), file, &a);
		assert_int_equal(a.allowed, P(p, file, "read getattr open execute entrypoint write append"));
		assert_int_equal(a.auditdeny, 0xffffffffu);
		uint32_t o;
		sp_policy_compute_type(p, T(p, "app_t"), T(p, "etc_t"), file, SP_AVTAB_TRANSITION, NULL, &o);
		assert_int_equal(o, T(p, "app_conf_t"));
		assert_int_equal(sp_policy_bool_set(p, sp_policy_bool_lookup(p, "secure_mode"), 1), 0);
		sp_policy_compute_av(p, T(p, "app_t"), T(p, "tty_t"), chr, &a);
		assert_int_equal(a.allowed, P(p, chr, "ioctl read write open"));
		assert_int_equal(a.auditallow, 0);
		assert_int_equal(sp_policy_bool_set(p, 99, 1), -EINVAL);
		sp_policy_free(p);
	}
}

/* Decisions agree between every format revision (from v16) and v33, by name, for every type pair/class. */
static void test_policy__versions_agree(void **st)
{
	(void)st;
	struct sp_policy *ref = load("compat.33", SP_AVTAB_FLAT);
	/* v15 has no booleans: checkpolicy drops the conditional blocks, so start at v16 */
	for (int v = 16; v <= 32; v++) {
		char name[32];
		snprintf(name, sizeof(name), "compat.%d", v);
		struct sp_policy *p = load(name, (enum sp_avtab_layout)(v % 3));
		uint32_t nt = sp_policy_type_count(ref), checked = 0;
		for (uint32_t s = 1; s <= nt; s++) {
			const char *sn = sp_policy_type_name(ref, s);
			if (!sn || sp_policy_type_is_attr(ref, s))
				continue;
			for (uint32_t t = 1; t <= nt; t++) {
				const char *tn = sp_policy_type_name(ref, t);
				if (!tn || sp_policy_type_is_attr(ref, t))
					continue;
				for (uint32_t c = 1; c <= sp_policy_class_count(ref); c++) {
					struct sp_av_decision a, b;
					uint32_t pc = C(p, sp_policy_class_name(ref, c));
					sp_policy_compute_av(ref, s, t, c, &a);
					sp_policy_compute_av(p, T(p, sn), T(p, tn), pc, &b);
					for (unsigned bit = 0; bit < 32; bit++) {
						const char *pn = sp_policy_perm_name(ref, c, bit);
						if (!pn)
							continue;
						unsigned pb = sp_policy_perm_lookup(p, pc, pn) - 1;
						if ((a.allowed >> bit & 1) != (b.allowed >> pb & 1) ||
						    (a.auditdeny >> bit & 1) != (b.auditdeny >> pb & 1) ||
						    (a.auditallow >> bit & 1) != (b.auditallow >> pb & 1))
							print_error("v%d %s %s:%s %s\n", v, sn, tn,
								    sp_policy_class_name(ref, c), pn);
						assert_int_equal(a.allowed >> bit & 1, b.allowed >> pb & 1);
						assert_int_equal(a.auditallow >> bit & 1, b.auditallow >> pb & 1);
						assert_int_equal(a.auditdeny >> bit & 1, b.auditdeny >> pb & 1);
					}
					checked++;
				}
			}
		}
		assert_true(checked > 1000);
		sp_policy_free(p);
	}
	sp_policy_free(ref);
}

static int read_buf(const unsigned char *buf, size_t len, enum sp_avtab_layout l,
		    struct sp_diags *d)
{
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = l, .diags = d, .file = "x" };
	struct sp_policy *p = NULL;
	int rc = sp_policy_read(buf, len, &o, &p);
	if (!rc) {
		/* exercise what a caller would do with an accepted mutant */
		struct sp_av_decision a;
		uint32_t nt = sp_policy_type_count(p), nc = sp_policy_class_count(p);
		for (uint32_t s = 1; s <= nt && s < 8; s++)
			for (uint32_t t = 1; t <= nt && t < 8; t++)
				sp_policy_compute_av(p, s, t, 1 + (s + t) % nc, &a);
		sp_policy_free(p);
	}
	return rc;
}

static void test_policy__every_truncation_rejected(void **st)
{
	(void)st;
	const char *names[] = { "tiny.33", "compat.15", "compat.19", "compat.24", "tiny.30" };
	for (size_t f = 0; f < SP_ARRAY_SIZE_T(names); f++) {
		unsigned char *buf = NULL;
		size_t len = 0;
		char path[128];
		snprintf(path, sizeof(path), TDIR "%s", names[f]);
		assert_int_equal(tp_read(path, &buf, &len), 0);
		for (size_t cut = 0; cut < len; cut++) {
			/* exact-size copy so ASan sees any read past the end */
			unsigned char *b = malloc(cut ? cut : 1);
			memcpy(b, buf, cut);
			struct sp_diags d;
			sp_diags_init(&d, NULL);
			int rc = read_buf(b, cut, (enum sp_avtab_layout)(cut % 3), &d);
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(d.n, 1);	/* exactly one error, at the first problem */
			assert_true(d.v[0].has_offset);
			assert_true(d.v[0].offset <= cut);
			sp_diags_release(&d);
			free(b);
		}
		free(buf);
	}
}

/* A real policy (debian-base-only, 404 KB) cut at 300 offsets spread over every section, and
 * 300 single-byte corruptions: positioned errors or valid policies, never a crash. */
static void test_policy__real_policy_truncations_and_flips(void **st)
{
	(void)st;
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read("data/policy/debian-base-only.policy.33.xz", &buf, &len), 0);
	unsigned long long seed = 77;
	for (int i = 0; i < 300; i++) {
		size_t cut = i < 40 ? (size_t)i * 7 : (size_t)(tp_rand(&seed) % len);
		unsigned char *b = malloc(cut ? cut : 1);
		memcpy(b, buf, cut);
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		assert_int_equal(read_buf(b, cut, (enum sp_avtab_layout)(i % 3), &d), -EINVAL);
		if (d.n != 1)
			print_error("cut %zu: %zu diagnostics: %s\n", cut, d.n, d.n ? d.v[1 % d.n].msg : "");
		assert_true(d.n == 1 && d.v[0].has_offset && d.v[0].offset <= cut);
		sp_diags_release(&d);
		free(b);
	}
	unsigned char *b = malloc(len);
	int rejected = 0;
	for (int i = 0; i < 300; i++) {
		memcpy(b, buf, len);
		b[tp_rand(&seed) % len] ^= (unsigned char)(1u << (tp_rand(&seed) % 8));
		int rc = read_buf(b, len, (enum sp_avtab_layout)(i % 3), NULL);
		assert_true(rc == 0 || rc == -EINVAL || rc == -ENOTSUP);
		rejected += rc != 0;
	}
	assert_true(rejected > 0);
	free(b);
	free(buf);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

static void put16(unsigned char *b, uint16_t v)
{
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
}

/* The diagnostic of reading b: -EINVAL, its offset `at` and a message starting with `msg`. */
static void expect_item_error(const unsigned char *b, size_t len, size_t at, const char *msg)
{
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(read_buf(b, len, SP_AVTAB_FLAT, &d), -EINVAL);
	if (!d.n || !d.v[0].has_offset || d.v[0].offset != at || strncmp(d.v[0].msg, msg, strlen(msg)))
		fail_msg("want \"%s\" at %zu, got \"%s\" at %zu", msg, at, d.n ? d.v[0].msg : "",
			 d.n ? (size_t)d.v[0].offset : 0);
	sp_diags_release(&d);
}

/*
 * Every check of a te item, on items at a block's edges and inside one (the reader checks runs
 * of items 64 at a time, then the failing block item by item): a key value 0 or past its
 * count, a kind that is not exactly one known kind, a default type out of range.  Each is
 * refused at its item's field, in debian-base-only's te avtab.
 */
static void test_policy__avtab_item_checks(void **st)
{
	(void)st;
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read("data/policy/debian-base-only.policy.33.xz", &buf, &len), 0);
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = SP_AVTAB_FLAT };
	struct sp_policy *p = NULL;
	assert_int_equal(sp_policy_read(buf, len, &o, &p), 0);
	struct sp_policy_info in;
	sp_policy_get_info(p, &in);
	uint16_t nt = (uint16_t)sp_policy_type_count(p), nc = (uint16_t)sp_policy_class_count(p);
	sp_policy_free(p);
	unsigned char *b = malloc(len);
	/* the te avtab: its count, then items; the one count whose first item refuses s = 0 */
	size_t av = 0;
	for (size_t off = 0; off + 16 <= len && !av; off++) {
		if ((uint32_t)(buf[off] | buf[off + 1] << 8 | buf[off + 2] << 16 |
			       (uint32_t)buf[off + 3] << 24) != in.te_rules)
			continue;
		memcpy(b, buf, len);
		put16(b + off + 4, 0);
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		if (read_buf(b, len, SP_AVTAB_FLAT, &d) == -EINVAL && d.n && d.v[0].offset == off + 4 &&
		    !strncmp(d.v[0].msg, "avtab: invalid type or class (0,", 32))
			av = off + 4;
		sp_diags_release(&d);
	}
	assert_true(av != 0 && in.te_rules > 200);
	const uint32_t items[] = { 0, 1, 62, 63, 64, 65, 127, 128, 129, 1000, in.te_rules - 1 };
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		size_t at = av + (size_t)items[i] * 12;
		static const struct { int field; uint16_t v; } keys[] = {
			{ 0, 0 }, { 0, 0xffff }, { 1, 0 }, { 2, 0 }, { 0, 1 }, { 1, 1 }, { 2, 1 },
		};
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			memcpy(b, buf, len);
			/* v 1 means one past the field's count: the first value out of range */
			uint16_t v = keys[k].v == 1 ? (uint16_t)((keys[k].field == 2 ? nc : nt) + 1)
						    : keys[k].v;
			put16(b + at + 2 * (size_t)keys[k].field, v);
			expect_item_error(b, len, at, "avtab: invalid type or class");
		}
		static const uint16_t specs[] = { 0, 0x0003, 0x0011, 0x0008, 0x0080, 0x0081, 0x0101, 0x7fff };
		for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
			memcpy(b, buf, len);
			put16(b + at + 6, specs[k]);
			expect_item_error(b, len, at + 6, "avtab: specified");
		}
		static const uint32_t dflt[] = { 0, 1 };	/* 1: one past the type count */
		for (size_t k = 0; k < 2; k++) {
			memcpy(b, buf, len);
			put16(b + at + 6, SP_AVTAB_TRANSITION);
			put32(b + at + 8, dflt[k] ? (uint32_t)nt + 1 : 0);
			expect_item_error(b, len, at + 8, "avtab: invalid default type");
		}
		memcpy(b, buf, len);	/* the largest values are in range */
		put16(b + at, nt), put16(b + at + 2, nt), put16(b + at + 4, nc);
		put16(b + at + 6, SP_AVTAB_TRANSITION), put32(b + at + 8, nt);
		int rc = read_buf(b, len, SP_AVTAB_FLAT, NULL);
		assert_true(rc == 0 || rc == -EEXIST);
	}
	free(b);
	free(buf);
}

static void test_policy__byte_flips_never_crash(void **st)
{
	(void)st;
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read(TDIR "tiny.33", &buf, &len), 0);
	unsigned long long seed = 0x5eed;
	int accepted = 0, rejected = 0;
	unsigned char *b = malloc(len);
	for (int i = 0; i < 6000; i++) {
		memcpy(b, buf, len);
		int nflip = 1 + (int)(tp_rand(&seed) % 3);
		for (int j = 0; j < nflip; j++) {
			size_t at = tp_rand(&seed) % len;
			unsigned r = (unsigned)tp_rand(&seed);
			b[at] = (r & 0x100) ? (unsigned char)r : (unsigned char)(b[at] ^ (1u << (r % 8)));
		}
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		int rc = read_buf(b, len, (enum sp_avtab_layout)(i % 3), &d);
		if (rc) {
			assert_true(rc == -EINVAL || rc == -ENOTSUP || rc == -EEXIST);
			rejected++;
		} else {
			accepted++;
		}
		sp_diags_release(&d);
	}
	free(b);
	free(buf);
	assert_true(rejected > 1000);
	assert_true(accepted > 100);	/* flips in permission maps etc. are legal */
}

/* A buffer written whole to the file at path. */
static void xz_put(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* sp_policy_read_file of path: its rc, its info when 0, its diagnostics in d. */
static int xz_read(const char *path, struct sp_diags *d, struct sp_policy_info *info)
{
	struct sp_policy_opts o = { .sz = sizeof(o), .diags = d, .file = "x.xz" };
	struct sp_policy *p = NULL;
	int rc = sp_policy_read_file(path, &o, &p);
	if (!rc) {
		sp_policy_get_info(p, info);
		sp_policy_free(p);
	}
	return rc;
}

static void xz_same(const struct sp_policy_info *a, const struct sp_policy_info *b)
{
	assert_int_equal(a->version, b->version);
	assert_int_equal(a->types, b->types);
	assert_int_equal(a->te_rules, b->te_rules);
	assert_int_equal(a->cond_rules, b->cond_rules);
	assert_int_equal(a->ocontexts, b->ocontexts);
	assert_int_equal(a->total_bytes, b->total_bytes);
}

/*
 * A policy read through a region (the CLI's allocator) is the same policy as one read through
 * libc, every layout, from the plain and the .xz file; its memory (the file's bytes included)
 * comes from the region, and freeing the policy gives the region's big blocks back.
 */
static void test_policy__region_allocator(void **st)
{
	(void)st;
	const char *xzf = "data/policy/debian-base-only.policy.33.xz";
	unsigned char *raw = NULL;
	size_t rawlen = 0;
	assert_int_equal(tp_read(xzf, &raw, &rawlen), 0);
	char path[] = "/tmp/test_policy_region_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	xz_put(path, raw, rawlen);
	for (int l = 0; l < SP_AVTAB_NLAYOUTS; l++)
		for (int xz = 0; xz < 2; xz++) {
			struct sp_region *r;
			struct sp_region_stats s;
			struct sp_policy_info want, got;
			struct sp_policy *p = NULL, *q = NULL;
			assert_int_equal(sp_region_new(1u << 30, &r), 0);
			struct sp_policy_opts o = { .sz = sizeof(o), .layout = l };
			assert_int_equal(sp_policy_read_file(xz ? xzf : path, &o, &p), 0);
			o.alloc = sp_region_allocator(r);
			assert_int_equal(sp_policy_read_file(xz ? xzf : path, &o, &q), 0);
			sp_policy_get_info(p, &want);
			sp_policy_get_info(q, &got);
			xz_same(&want, &got);
			assert_int_equal(want.layout, got.layout);
			uint32_t t = sp_policy_type_lookup(q, "init_t");
			assert_int_equal(t, sp_policy_type_lookup(p, "init_t"));
			assert_true(t != 0);
			sp_region_get_stats(r, &s);
			assert_true(s.carved >= got.total_bytes / 2);
			assert_int_equal(s.libc, 0);
			sp_policy_free(q);
			sp_policy_free(p);
			sp_region_get_stats(r, &s);
			assert_true(s.carved < s.peak);
			sp_region_free(r);
		}
	unlink(path);
	free(raw);
}

/*
 * An .xz policy is decompressed in process: the same policy as `xz -dc` gives; concatenated
 * streams with padding read as xz reads them; every truncation and byte flip of the compressed
 * file is one diagnostic "xz: ..." at a compressed offset inside the file.
 */
static void test_policy__xz_in_process(void **st)
{
	(void)st;
	const char *xzf = "data/policy/debian-base-only.policy.33.xz";
	unsigned char *raw = NULL, *xz = NULL;
	size_t rawlen = 0, xzlen = 0;
	assert_int_equal(tp_read(xzf, &raw, &rawlen), 0);
	FILE *f = fopen(xzf, "rb");
	assert_non_null(f);
	assert_int_equal(tp_read_stream(f, &xz, &xzlen), 0);
	fclose(f);
	struct sp_policy_info want, got;
	struct sp_policy *p = NULL;
	assert_int_equal(read_buf(raw, rawlen, SP_AVTAB_CHAINED, NULL), 0);
	assert_int_equal(sp_policy_read(raw, rawlen, NULL, &p), 0);
	sp_policy_get_info(p, &want);
	sp_policy_free(p);
	char path[] = "/tmp/test_policy_xz_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(xz_read(xzf, &d, &got), 0);
	xz_same(&want, &got);

	/* two streams, each half of the policy, then four bytes of stream padding */
	size_t h = rawlen / 2, cap = rawlen + 4096, n = 0;
	unsigned char *cat = malloc(cap);
	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, raw, h, cat, &n, cap),
			 LZMA_OK);
	assert_int_equal(lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, raw + h, rawlen - h,
						 cat, &n, cap), LZMA_OK);
	memset(cat + n, 0, 4);
	xz_put(path, cat, n + 4);
	assert_int_equal(xz_read(path, &d, &got), 0);
	xz_same(&want, &got);
	assert_int_equal(d.n, 0);

	unsigned long long seed = 2026;
	unsigned char *b = malloc(xzlen);
	for (int i = 0; i < 120; i++) {
		size_t cut = i < 60 ? 6 + (size_t)(tp_rand(&seed) % (xzlen - 6)) : xzlen;
		memcpy(b, xz, xzlen);
		if (i >= 60)
			b[6 + tp_rand(&seed) % (xzlen - 6)] ^= (unsigned char)(1u << (tp_rand(&seed) % 8));
		xz_put(path, b, cut);
		int rc = xz_read(path, &d, &got);
		if (rc != -EINVAL && rc != -ENOTSUP)
			print_error("case %d (cut %zu): rc %d\n", i, cut, rc);
		assert_true(rc == -EINVAL || rc == -ENOTSUP);
		assert_true(d.n == 1 && d.v[0].has_offset && d.v[0].offset <= cut);
		assert_true(!strncmp(d.v[0].msg, "xz: ", 4));
		sp_diags_release(&d);
		sp_diags_init(&d, NULL);
	}
	unlink(path);
	sp_diags_release(&d);
	free(b);
	free(cat);
	free(xz);
	free(raw);
}

static void test_policy__header_and_counts(void **st)
{
	(void)st;
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read(TDIR "tiny.33", &buf, &len), 0);
	struct {
		size_t off;
		uint32_t v;
		int rc;
		const char *msg;
	} cases[] = {
		{ 0, 0xf97cff8du, -ENOTSUP, "header: policy module (.pp), not a kernel policy" },
		{ 0, 0x12345678u, -EINVAL, "header: bad magic 0x12345678" },
		{ 16, 14, -ENOTSUP, "header: unsupported policy version 14 (supported 15..35)" },
		{ 16, 36, -ENOTSUP, "header: unsupported policy version 36 (supported 15..35)" },
		{ 4, 9, -EINVAL, "header: identifier length 9 is not 8" },
		{ 24, 7, -EINVAL, "header: symbol/ocontext counts 7/9 do not match version 33" },
	};
	unsigned char *b = malloc(len);
	for (size_t i = 0; i < SP_ARRAY_SIZE_T(cases); i++) {
		memcpy(b, buf, len);
		put32(b + cases[i].off, cases[i].v);
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		assert_int_equal(read_buf(b, len, SP_AVTAB_FLAT, &d), cases[i].rc);
		assert_int_equal(d.n, 1);
		assert_string_equal(d.v[0].msg, cases[i].msg);
		sp_diags_release(&d);
	}
	/* XenFlask identifier */
	memcpy(b, buf, len);
	memcpy(b + 8, "XenFlask", 8);
	assert_int_equal(read_buf(b, len, SP_AVTAB_FLAT, NULL), -ENOTSUP);
	/* absurd counts: every u32 in the file set to 0xffffffff in turn must be rejected or
	 * harmless, and never allocate by the count (ASan/RSS would show) */
	int rejected = 0;
	for (size_t off = 0; off + 4 <= len; off += 4) {
		memcpy(b, buf, len);
		put32(b + off, 0xffffffffu);
		rejected += read_buf(b, len, (enum sp_avtab_layout)(off % 3), NULL) != 0;
	}
	assert_true(rejected > (int)(len / 8));
	free(b);
	free(buf);
	assert_int_equal(read_buf((const unsigned char *)"", 0, SP_AVTAB_FLAT, NULL), -EINVAL);
}

/* A named error at the avtab: truncating inside the first te entry of tiny.33. */
static void test_policy__avtab_truncation_message(void **st)
{
	(void)st;
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read(TDIR "tiny.33", &buf, &len), 0);
	int seen_avtab = 0, seen_cond = 0, seen_tam = 0;
	for (size_t cut = 1; cut < len; cut++) {
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		read_buf(buf, cut, SP_AVTAB_FLAT, &d);
		seen_avtab |= !strcmp(d.v[0].msg, "avtab: truncated entry");
		seen_cond |= !strncmp(d.v[0].msg, "conditional", 11);
		seen_tam |= !strncmp(d.v[0].msg, "type_attr_map: truncated", 24);
		sp_diags_release(&d);
	}
	assert_true(seen_avtab && seen_cond && seen_tam);
	free(buf);
}

/* Internal tables: hundreds of entries on one key (legal in conditional tables, and what a
 * hostile file can force) stay correct in every layout, including flat's saturated probes. */
static void test_policy__duplicate_heavy_tables(void **st)
{
	(void)st;
	enum { N = 700 };
	struct policy_rule *r = calloc(N, sizeof(*r));
	uint8_t *en = calloc(N, 1);
	for (uint32_t i = 0; i < N; i++) {
		int dup = i < 300;
		r[i] = (struct policy_rule){ (uint16_t)(dup ? 7 : 1 + i % 50), (uint16_t)(dup ? 9 : 1 + i / 50),
					     (uint16_t)(dup ? 3 : 1 + i % 7), SP_AVTAB_ALLOWED,
					     i };
		en[i] = (uint8_t)(i % 3 == 0);
	}
	struct sp_avtab_entry *e = calloc(N, sizeof(*e));
	for (int l = 0; l < SP_AVTAB_NLAYOUTS; l++) {
		struct sp_avtab t;
		assert_int_equal(policy_avtab_build(&t, (enum sp_avtab_layout)l, POLICY_AVTAB_COND, &(struct policy_rules){ .r = r, .n = N, .hint = N, .enabled = en }, NULL, tp_nodes(), NULL), 0);
		assert_int_equal(policy_avtab_lookup(&t, 7, 9, 3, SP_AVTAB_AV, e, N), 300);
		uint32_t enabled = 0, sum = 0;
		for (int i = 0; i < 300; i++) {
			enabled += (e[i].specified & SP_AVTAB_ENABLED) != 0;
			sum += e[i].data;
		}
		assert_int_equal(enabled, 100);
		assert_int_equal(sum, 299 * 300 / 2);
		for (uint32_t i = 300; i < N; i++) {
			size_t m = policy_avtab_lookup(&t, r[i].s, r[i].t, r[i].c, SP_AVTAB_AV, e, N);
			assert_true(m >= 1);
		}
		assert_int_equal(policy_avtab_lookup(&t, 7, 9, 4, SP_AVTAB_AV, e, N), 0);
		uint32_t av[3] = { 0, 0, ~0u };
		policy_avtab_fold(&t, 7, 9, 3, av);
		uint32_t want = 0;
		for (uint32_t i = 0; i < 300; i++)
			if (en[i])
				want |= i;
		assert_int_equal(av[0], want);
		policy_avtab_destroy(&t);
	}
	/* a te table rejects a duplicate (triple, kind) in every layout */
	for (int l = 0; l < SP_AVTAB_NLAYOUTS; l++) {
		struct sp_avtab t;
		assert_int_equal(policy_avtab_build(&t, (enum sp_avtab_layout)l, POLICY_AVTAB_TE, &(struct policy_rules){ .r = r, .n = N, .hint = N }, NULL, tp_nodes(), NULL),
				 -EEXIST);
	}
	free(e);
	free(en);
	free(r);
}

/* flat's two forms (compact u32 keys when the value ranges fit in 32 bits, the wide 16-bit
 * fields otherwise) answer every lookup like the chained table, hits and misses */
static void test_policy__flat_forms_agree(void **st)
{
	(void)st;
	enum { N = 5000 };
	struct policy_rule *r = calloc(N, sizeof(*r));
	struct sp_avtab_entry e1[8], e2[8];
	for (int wide = 0; wide < 2; wide++) {
		unsigned long long seed = 77 + (unsigned long long)wide;
		uint32_t range = wide ? 65535 : 3000;
		for (uint32_t i = 0; i < N; i++) {
			static const uint16_t kinds[] = { SP_AVTAB_ALLOWED, SP_AVTAB_AUDITALLOW,
							  SP_AVTAB_AUDITDENY, SP_AVTAB_TRANSITION };
			uint16_t k = kinds[i % 4];
			if (i % 4 && i > 4) {	/* a second kind on an earlier triple */
				r[i] = r[i - 1];
			} else {
				r[i].s = (uint16_t)(1 + tp_rand(&seed) % range);
				r[i].t = (uint16_t)(1 + tp_rand(&seed) % range);
				r[i].c = (uint16_t)(1 + tp_rand(&seed) % (wide ? 400 : 130));
			}
			r[i].spec = k;
			r[i].data = (uint32_t)tp_rand(&seed);
		}
		struct sp_avtab ch, fl, fb;
		/* fb: the caller's bounds instead of the largest values (wide: too large, scanned) */
		struct policy_rules rs = { .r = r, .n = N, .hint = N }, rb = rs;
		rb.types = range, rb.classes = wide ? 400 : 130;
		assert_int_equal(policy_avtab_build(&ch, SP_AVTAB_CHAINED, POLICY_AVTAB_TE, &rs, NULL, tp_nodes(), NULL), 0);
		assert_int_equal(policy_avtab_build(&fl, SP_AVTAB_FLAT, POLICY_AVTAB_TE, &rs, NULL, tp_nodes(), NULL), 0);
		assert_int_equal(policy_avtab_build(&fb, SP_AVTAB_FLAT, POLICY_AVTAB_TE, &rb, NULL, NULL, NULL), 0);
		assert_int_equal(fl.form == POLICY_FORM_COMPACT, !wide);
		assert_int_equal(fb.form == POLICY_FORM_COMPACT, !wide);
		if (!wide)	/* the bounds' radices, not the largest values' */
			assert_true(fb.u.fl.nt == range + 1 && fb.u.fl.nc == 131 && fl.u.fl.nt <= range + 1);
		for (uint32_t i = 0; i < 4 * N; i++) {
			uint16_t s, t, c;
			if (i < N) {
				s = r[i].s, t = r[i].t, c = r[i].c;
			} else {	/* mostly misses, some out of the table's ranges */
				s = (uint16_t)tp_rand(&seed), t = (uint16_t)tp_rand(&seed);
				c = (uint16_t)(tp_rand(&seed) % 500);
			}
			size_t n1 = policy_avtab_lookup(&ch, s, t, c, 0xffff, e1, 8);
			size_t n2 = policy_avtab_lookup(&fl, s, t, c, 0xffff, e2, 8);
			assert_int_equal(n1, n2);
			struct sp_avtab_entry e3[8];
			size_t n3 = policy_avtab_lookup(&fb, s, t, c, 0xffff, e3, 8);
			assert_int_equal(n1, n3);
			for (size_t x = 0; x < n3; x++) {	/* the same entries (a key's may split) */
				size_t y = 0;
				while (y < n2 && memcmp(&e2[y], &e3[x], sizeof(*e3)))
					y++;
				assert_true(y < n2);
			}
			if (i < N)
				assert_true(n1 >= 1);
			uint32_t d1 = 0, d2 = 0;
			assert_int_equal(policy_avtab_search(&ch, s, t, c, SP_AVTAB_AUDITDENY, &d1),
					 policy_avtab_search(&fl, s, t, c, SP_AVTAB_AUDITDENY, &d2));
			assert_int_equal(d1, d2);
			uint32_t a1[3] = { 0, 0, ~0u }, a2[3] = { 0, 0, ~0u };
			policy_avtab_fold(&ch, s, t, c, a1);
			policy_avtab_fold(&fl, s, t, c, a2);
			assert_memory_equal(a1, a2, sizeof(a1));
			uint32_t a3[3] = { 0, 0, ~0u }, d3 = 0;
			policy_avtab_fold(&fb, s, t, c, a3);
			assert_memory_equal(a1, a3, sizeof(a1));
			assert_int_equal(policy_avtab_search(&fb, s, t, c, SP_AVTAB_AUDITDENY, &d3) ? d3 : 0,
					 d1);
		}
		policy_avtab_destroy(&ch);
		policy_avtab_destroy(&fl);
		policy_avtab_destroy(&fb);
	}
	free(r);
}

/*
 * The compact flat table's placement invariants, on random tables (with duplicate-kind triples)
 * and the real debian-default te_avtab: an entry d > 0 buckets past its home lies behind full
 * buckets only, its home's disp covers d and its home's overflow filter has its bit (else the
 * inline search would stop at the home line); home-first: a bucket holding a foreign entry has
 * none of its own entries elsewhere.  Every entry is found by the inline search.
 */
static void check_flatc_layout(const struct sp_avtab *t, uint32_t *away_out)
{
	uint32_t nb = t->nslot, away = 0;
	uint8_t *foreign = calloc(nb, 1), *own_away = calloc(nb, 1);
	assert_true(t->form == POLICY_FORM_COMPACT);
	assert_true(policy_avtab_is_valid(t));
	for (uint32_t b = 0; b < nb; b++) {
		const struct flatc_bucket *bk = &t->u.fl.cb[b];
		for (unsigned j = 0; j < FLATC_SLOTS && bk->key[j]; j++) {
			uint64_t h = policy_flatc_mix(bk->key[j]);
			uint32_t home = policy_flatc_home(t, h), d = b >= home ? b - home : b + nb - home;
			const struct flatc_bucket *hb = &t->u.fl.cb[home];
			if (!d)
				continue;
			away++;
			foreign[b] = own_away[home] = 1;
			assert_true(hb->ovf & policy_flatc_fbit(h));
			assert_true((hb->meta >> FLAT_DISP_SHIFT) >= (d < FLAT_DISP_MAX ? d : FLAT_DISP_MAX));
			for (uint32_t x = home; x != b; x = x + 1 == nb ? 0 : x + 1)
				assert_true(t->u.fl.cb[x].key[FLATC_SLOTS - 1] != 0);
		}
	}
	for (uint32_t b = 0; b < nb; b++)
		assert_false(foreign[b] && own_away[b]);
	free(foreign);
	free(own_away);
	*away_out = away;
}

struct flatc_walk {
	const struct sp_avtab *t;
	uint32_t n;
};

static int flatc_find(void *ud, const struct sp_avtab_entry *e)
{
	struct flatc_walk *w = ud;
	uint32_t d = ~0u;
	assert_int_equal(policy_flatc_search(w->t, e->source, e->target, e->tclass,
					     e->specified & (uint16_t)~SP_AVTAB_ENABLED, &d), 1);
	w->n++;
	return 0;
}

static void test_policy__flat_home_first(void **st)
{
	(void)st;
	enum { N = 20000 };
	struct policy_rule *r = calloc(N, sizeof(*r));
	unsigned long long seed = 4242;
	for (uint32_t i = 0; i < N; i++) {
		if (i % 5 == 4) {	/* a dontaudit beside an earlier allow: same home */
			r[i] = r[i - 1];
			r[i].spec = SP_AVTAB_AUDITDENY;
		} else {
			r[i].s = (uint16_t)(1 + tp_rand(&seed) % 2000);
			r[i].t = (uint16_t)(1 + tp_rand(&seed) % 2000);
			r[i].c = (uint16_t)(1 + tp_rand(&seed) % 100);
			r[i].spec = SP_AVTAB_ALLOWED;
		}
		r[i].data = (uint32_t)i;
	}
	struct sp_avtab t;
	uint32_t away;
	assert_int_equal(policy_avtab_build(&t, SP_AVTAB_FLAT, POLICY_AVTAB_TE, &(struct policy_rules){ .r = r, .n = N, .hint = N }, NULL, tp_nodes(), NULL), 0);
	check_flatc_layout(&t, &away);
	assert_true(away > 0 && away < N / 10);	/* 0.63 load: a few percent leave home */
	for (uint32_t i = 0; i < N; i++) {
		uint32_t d = ~0u;
		assert_int_equal(policy_flatc_search(&t, r[i].s, r[i].t, r[i].c, r[i].spec, &d), 1);
		assert_int_equal(d, i);
	}
	policy_avtab_destroy(&t);
	free(r);

	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read("data/policy/debian-default.policy.33.xz", &buf, &len), 0);
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = SP_AVTAB_FLAT };
	struct sp_policy *p;
	assert_int_equal(sp_policy_read(buf, len, &o, &p), 0);
	free(buf);
	check_flatc_layout(&p->core->te_tab, &away);
	assert_true(away > 0 && away < p->core->te_tab.nel / 20);
	struct flatc_walk w = { &p->core->te_tab, 0 };
	assert_int_equal(sp_policy_avtab_foreach(p, 0, flatc_find, &w), 0);
	assert_int_equal(w.n, p->core->te_tab.nel);
	sp_policy_free(p);
}

/* The entries of (s, t, c) of kind `kind` in t, their data summed into *sum. */
static size_t kind_entries(const struct sp_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
			   uint16_t kind, uint32_t *sum)
{
	struct sp_avtab_entry e[64];
	size_t n = policy_avtab_lookup(t, s, tt, c, kind, e, 64);
	*sum = 0;
	for (size_t i = 0; i < n && i < 64; i++)
		*sum += e[i].data;
	return n;
}

/*
 * The compact build's duplicate rules, in home groups compared pairwise (small) and sorted
 * (over 32 entries, crafted or duplicate-heavy), and its wrap past the last bucket: a merged
 * table folds a key's kind into one entry (allow OR, auditdeny AND, a type rule's last datum),
 * a te table rejects a repeated kind but keeps repeated xperm kinds, and entries homed at the
 * last bucket wrap to the first with every invariant kept.
 */
static void test_policy__flat_build_groups(void **st)
{
	(void)st;
	enum { N = 160 };
	struct policy_rule r[N];
	for (int big = 0; big < 2; big++) {
		uint32_t n = 0, m = big ? 40 : 4;	/* rules per folded key: sorted or pairwise */
		for (uint32_t i = 0; i < m; i++) {
			r[n++] = (struct policy_rule){ 5, 6, 7, SP_AVTAB_ALLOWED, 1u << (i % 32) };
			r[n++] = (struct policy_rule){ 5, 6, 7, SP_AVTAB_AUDITDENY, ~(1u << (i % 32)) };
			r[n++] = (struct policy_rule){ 5, 6, 7, SP_AVTAB_TRANSITION, 100 + i };
		}
		for (uint16_t i = 1; n < N; i++)
			r[n++] = (struct policy_rule){ i, (uint16_t)(i + 1), 2, SP_AVTAB_ALLOWED, i };
		struct sp_avtab t;
		uint32_t sum, want = m == 40 ? 0xffffffffu : 0xfu;
		assert_int_equal(policy_avtab_build(&t, SP_AVTAB_FLAT, POLICY_AVTAB_MERGED, &(struct policy_rules){ .r = r, .n = N, .hint = N }, NULL, NULL, NULL), 0);
		assert_true(t.form == POLICY_FORM_COMPACT && policy_avtab_is_valid(&t));
		assert_int_equal(t.nel, N - 3 * (m - 1));
		assert_int_equal(kind_entries(&t, 5, 6, 7, SP_AVTAB_ALLOWED, &sum), 1);
		assert_int_equal(sum, want);
		assert_int_equal(kind_entries(&t, 5, 6, 7, SP_AVTAB_AUDITDENY, &sum), 1);
		assert_int_equal(sum, ~want);
		assert_int_equal(kind_entries(&t, 5, 6, 7, SP_AVTAB_TRANSITION, &sum), 1);
		assert_int_equal(sum, 100 + m - 1);
		policy_avtab_destroy(&t);
		/* te: the same rules are refused; xperm kinds alone may repeat */
		assert_int_equal(policy_avtab_build(&t, SP_AVTAB_FLAT, POLICY_AVTAB_TE, &(struct policy_rules){ .r = r, .n = N, .hint = N }, NULL, NULL, NULL), -EEXIST);
		for (uint32_t i = 0; i < 3 * m; i++)
			r[i].spec = SP_AVTAB_XPERMS_ALLOWED, r[i].data = 0;
		struct sp_avtab_xperms xp = { 0 };
		assert_int_equal(policy_avtab_build(&t, SP_AVTAB_FLAT, POLICY_AVTAB_TE, &(struct policy_rules){ .r = r, .n = N, .hint = N }, &xp, NULL, NULL), 0);
		assert_int_equal(kind_entries(&t, 5, 6, 7, SP_AVTAB_XPERMS_ALLOWED, &sum), 3 * m);
		assert_true(policy_avtab_is_valid(&t));
		policy_avtab_destroy(&t);
	}
	/* te: one key's kinds past its line's seven slots (four xperm rules, then six kinds): a
	 * repeated kind is refused whether its first is in the line or carried past it */
	for (int carried = 0; carried < 2; carried++) {
		static const uint16_t kinds[] = { SP_AVTAB_ALLOWED, SP_AVTAB_AUDITALLOW,
						  SP_AVTAB_AUDITDENY, SP_AVTAB_TRANSITION,
						  SP_AVTAB_MEMBER, SP_AVTAB_CHANGE };
		struct policy_rule x[11];
		uint32_t nx = 0;
		for (int i = 0; i < 4; i++)
			x[nx++] = (struct policy_rule){ 3, 4, 5, SP_AVTAB_XPERMS_ALLOWED, 0 };
		for (int i = 0; i < 6; i++)
			x[nx++] = (struct policy_rule){ 3, 4, 5, kinds[i], 9 };
		struct sp_avtab_xperms xp = { 0 };
		struct sp_avtab t;
		assert_int_equal(policy_avtab_build(&t, SP_AVTAB_FLAT, POLICY_AVTAB_TE, &(struct policy_rules){ .r = x, .n = nx, .hint = nx }, &xp, NULL, NULL), 0);
		assert_true(t.form == POLICY_FORM_COMPACT && policy_avtab_is_valid(&t));
		uint32_t xs;
		assert_int_equal(kind_entries(&t, 3, 4, 5, SP_AVTAB_CHANGE, &xs), 1);
		assert_int_equal(xs, 9);
		policy_avtab_destroy(&t);
		/* rank 10 repeats rank 8 (carried: MEMBER) or rank 4 (in the line: ALLOWED) */
		x[nx++] = (struct policy_rule){ 3, 4, 5, carried ? SP_AVTAB_MEMBER : SP_AVTAB_ALLOWED, 1 };
		assert_int_equal(policy_avtab_build(&t, SP_AVTAB_FLAT, POLICY_AVTAB_TE, &(struct policy_rules){ .r = x, .n = nx, .hint = nx }, &xp, NULL, NULL), -EEXIST);
	}
	/* 30 conditional rules of one key homed at the last of the table's 7 buckets: they fill
	 * it, then wrap to buckets 0, 1, ... */
	enum { W = 30 };
	struct sp_avtab probe = { .nslot = (W * 100 + 63 * FLATC_SLOTS - 1) / (63 * FLATC_SLOTS) };
	uint16_t s = 1, tt = 1, c = 1;
	for (;; s++) {	/* a key (s, 1, 1) of radices (s + 1, 2, 2) homed at the last bucket */
		assert_true(s < 5000);
		probe.u.fl.ns = s + 1u, probe.u.fl.nt = 2, probe.u.fl.nc = 2;
		if (policy_flatc_home(&probe, policy_flatc_mix(policy_flatc_key(&probe, s, tt, c))) ==
		    probe.nslot - 1)
			break;
	}
	struct policy_rule w[W];
	uint8_t en[W];
	for (uint32_t i = 0; i < W; i++) {
		w[i] = (struct policy_rule){ s, tt, c, SP_AVTAB_ALLOWED, i };
		en[i] = (uint8_t)(i % 2);
	}
	struct sp_avtab t;
	uint32_t sum, away;
	assert_int_equal(policy_avtab_build(&t, SP_AVTAB_FLAT, POLICY_AVTAB_COND, &(struct policy_rules){ .r = w, .n = W, .hint = W, .enabled = en }, NULL, NULL, NULL), 0);
	assert_int_equal(t.nslot, probe.nslot);
	assert_int_equal(t.u.fl.cb[0].key[0], policy_flatc_key(&t, s, tt, c));	/* wrapped */
	check_flatc_layout(&t, &away);
	assert_int_equal(away, W - FLATC_SLOTS);
	assert_int_equal(kind_entries(&t, s, tt, c, SP_AVTAB_ALLOWED, &sum), W);
	assert_int_equal(sum, W * (W - 1) / 2);
	struct sp_avtab_entry e[W];
	assert_int_equal(policy_avtab_lookup(&t, s, tt, c, SP_AVTAB_ALLOWED, e, W), W);
	for (uint32_t i = 0; i < W; i++)
		assert_int_equal((e[i].specified & SP_AVTAB_ENABLED) != 0, e[i].data % 2);
	policy_avtab_destroy(&t);
}

/* policy_avtab_is_valid accepts every table the builder makes and refuses each broken invariant */
static void test_policy__avtab_is_valid(void **st)
{
	(void)st;
	enum { N = 3000 };
	struct policy_rule *r = calloc(N, sizeof(*r));
	uint8_t *en = calloc(N, 1);
	unsigned long long seed = 99;
	for (uint32_t i = 0; i < N; i++) {
		r[i] = (struct policy_rule){ (uint16_t)(1 + i % 300), (uint16_t)(1 + i / 300),
					     (uint16_t)(1 + tp_rand(&seed) % 40), SP_AVTAB_ALLOWED,
					     (uint32_t)i };
		en[i] = (uint8_t)(i & 1);
	}
	for (int l = 0; l < SP_AVTAB_NLAYOUTS; l++)
		for (int kind = POLICY_AVTAB_TE; kind <= POLICY_AVTAB_COND; kind++) {
			struct sp_avtab t;
			assert_int_equal(policy_avtab_build(&t, (enum sp_avtab_layout)l, (enum policy_avtab_kind)kind, &(struct policy_rules){ .r = r, .n = N, .hint = N, .enabled = kind == POLICY_AVTAB_COND ? en : NULL }, NULL, tp_nodes(), NULL), 0);
			assert_true(policy_avtab_is_valid(&t));
			if (t.form == POLICY_FORM_CHAINED) {	/* a node out of its slot */
				struct chained_node *x = t.u.ch.slots[0];
				while (!x)
					x = t.u.ch.slots[tp_rand(&seed) % t.nslot];
				x->c ^= 1;
				assert_false(policy_avtab_is_valid(&t));
				x->c ^= 1;
			} else if (t.form == POLICY_FORM_ARRAY) {	/* a link out of the array */
				uint32_t h = t.u.ar.heads[0];
				t.u.ar.heads[0] = t.nel;
				assert_false(policy_avtab_is_valid(&t));
				t.u.ar.heads[0] = h;
			} else {	/* an entry away from home loses its home's overflow bit */
				uint32_t b = 0, home = 0;
				for (;; b++) {
					assert_true(b < t.nslot);
					const struct flatc_bucket *bk = &t.u.fl.cb[b];
					uint64_t h = policy_flatc_mix(bk->key[0]);
					home = policy_flatc_home(&t, h);
					if (bk->key[0] && home != b)
						break;
				}
				uint32_t ovf = t.u.fl.cb[home].ovf;
				t.u.fl.cb[home].ovf = 0;
				assert_false(policy_avtab_is_valid(&t));
				t.u.fl.cb[home].ovf = ovf;
				uint32_t k = t.u.fl.cb[b].key[0];	/* a key below nt * nc */
				t.u.fl.cb[b].key[0] = 1;
				assert_false(policy_avtab_is_valid(&t));
				t.u.fl.cb[b].key[0] = k;
			}
			assert_true(policy_avtab_is_valid(&t));
			policy_avtab_destroy(&t);
		}
	free(en);
	free(r);
}

/* sp_policy_find_running under a root of the test's: the selinuxfs file first, then the
 * configured type's files from version 33 down (the version order and the config reading are
 * compared with sesearch itself by tests/cli/test-cli.sh). */
static void test_policy__find_running(void **st)
{
	(void)st;
	char root[] = "/tmp/secpath-root-XXXXXX", cmd[256], buf[512], want[512];
	assert_non_null(mkdtemp(root));
	assert_int_equal(sp_policy_find_running(root, buf, sizeof(buf)), -ENOENT);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/etc/selinux/targeted/policy %s/sys/fs/selinux && "
		 "touch %s/etc/selinux/targeted/policy/policy.15 %s/etc/selinux/targeted/policy/policy.14",
		 root, root, root, root);
	assert_int_equal(system(cmd), 0);
	int n = sp_policy_find_running(root, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s/etc/selinux/targeted/policy/policy.15", root);
	assert_int_equal(n, (int)strlen(want));
	assert_string_equal(buf, want);
	assert_int_equal(sp_policy_find_running(root, buf, 8), n);	/* snprintf's contract */
	snprintf(cmd, sizeof(cmd), "touch %s/sys/fs/selinux/policy", root);
	assert_int_equal(system(cmd), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/selinux/policy", root);
	assert_int_equal(sp_policy_find_running(root, buf, sizeof(buf)), (int)strlen(want));
	assert_string_equal(buf, want);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy__every_version_loads),
		cmocka_unit_test(test_policy__tiny_symbols),
		cmocka_unit_test(test_policy__tiny_decisions_and_booleans),
		cmocka_unit_test(test_policy__versions_agree),
		cmocka_unit_test(test_policy__every_truncation_rejected),
		cmocka_unit_test(test_policy__byte_flips_never_crash),
		cmocka_unit_test(test_policy__avtab_item_checks),
		cmocka_unit_test(test_policy__real_policy_truncations_and_flips),
		cmocka_unit_test(test_policy__xz_in_process),
		cmocka_unit_test(test_policy__region_allocator),
		cmocka_unit_test(test_policy__header_and_counts),
		cmocka_unit_test(test_policy__avtab_truncation_message),
		cmocka_unit_test(test_policy__duplicate_heavy_tables),
		cmocka_unit_test(test_policy__flat_forms_agree),
		cmocka_unit_test(test_policy__flat_home_first),
		cmocka_unit_test(test_policy__flat_build_groups),
		cmocka_unit_test(test_policy__avtab_is_valid),
		cmocka_unit_test(test_policy__find_running),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
