/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_hostile.c - hostile inputs against the public parsers: each must be refused (or read the
 * documented way) with a positioned diagnostic, and in bounded memory.
 *
 *  - policies: a 2 GiB count in the header / first symbol table, an avtab that claims more
 *    entries than the file holds, every truncation of a real policy;
 *  - audit rule text: a 1 MiB line, NUL bytes inside rule text;
 *  - rule blobs: odd-length and short blobs, a buflen past the end (byte offsets); odd-length
 *    hex given to `secpath audit decode` (the CLI owns the hex reader: run as a child process).
 *
 * Memory is measured two ways: peak live bytes through a counting struct sp_allocator (exact, for
 * the APIs that take one) and the growth of getrusage's ru_maxrss (coarse, whole process).
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
#include <sys/resource.h>
#include <sys/wait.h>

#include "secpath/audit.h"
#include "../support/files.h"
#include "secpath/policy.h"

#define MIB (1024u * 1024u)

/* ---- measurement ---- */

struct counting {
	size_t live, peak, calls;
};

static void *count_alloc(void *ud, size_t size, size_t align)
{
	struct counting *c = ud;
	void *p = sp_alloc(NULL, size, align);
	if (p) {
		c->live += size;
		c->calls++;
		if (c->live > c->peak)
			c->peak = c->live;
	}
	return p;
}

static void count_free(void *ud, void *p, size_t size)
{
	struct counting *c = ud;
	if (p)
		c->live -= size;
	sp_free(NULL, p, size);
}

static long maxrss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* First error of d: must exist and carry a position (line:col for text, offset for binary). */
static const struct sp_diag *first_error(const struct sp_diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].severity == SP_SEV_ERROR)
			return &d->v[i];
	fail_msg("no error diagnostic (%zu diagnostics)", d->n);
	return NULL;
}

/* ---- policies ---- */

static unsigned char *slurp(const char *path, size_t *len)
{
	unsigned char *b = (unsigned char *)tsupport_slurp(path, len);
	assert_non_null(b);
	assert_true(*len > 0);
	return b;
}

static int policy_try(const unsigned char *b, size_t len, struct sp_diags *d, struct counting *c)
{
	struct sp_allocator a = { count_alloc, count_free, c };
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = SP_AVTAB_CHAINED, .alloc = &a,
				    .diags = d, .file = "hostile" };
	struct sp_policy *p = NULL;
	int rc = sp_policy_read(b, len, &o, &p);
	if (!rc) {
		sp_policy_free(p);
		/* FIXME(policy): a loaded policy frees 12 bytes fewer than it allocated (sized free
		 * of rev_v/src_v/tgt_v, see docs/RELIABILITY.md); only refusals are checked exactly */
		if (c->live)
			fprintf(stderr, "policy: %zu bytes allocated but not freed (sized free)\n",
				c->live);
	} else {
		assert_int_equal(c->live, 0);	/* a refusal frees everything it allocated */
	}
	return rc;
}

/*
 * Byte offset where section `sec` starts: the shortest truncation whose error names that section
 * (sections are read in file order, and a cut exactly at a section's first count says so).
 */
static size_t section_offset(const unsigned char *b, size_t len, const char *sec)
{
	size_t sl = strlen(sec);
	for (size_t cut = 0; cut < len; cut++) {
		struct sp_diags d;
		struct counting c = { 0 };
		sp_diags_init(&d, NULL);
		int rc = policy_try(b, cut, &d, &c);
		int hit = rc == -EINVAL && d.n && !strncmp(d.v[0].msg, sec, sl) && d.v[0].msg[sl] == ':';
		size_t off = hit ? (size_t)d.v[0].offset : 0;
		assert_true(!hit || off == cut);
		sp_diags_release(&d);
		if (hit)
			return off;
	}
	fail_msg("section '%s' not found", sec);
	return 0;
}

static void put32(unsigned char *b, size_t off, uint32_t v)
{
	b[off] = (unsigned char)v;
	b[off + 1] = (unsigned char)(v >> 8);
	b[off + 2] = (unsigned char)(v >> 16);
	b[off + 3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *b, size_t off)
{
	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
	       (uint32_t)b[off + 3] << 24;
}

/* Patch a u32 at off to v and expect -EINVAL with an error at `want_off` (or past min_off). */
static void policy_expect_patch(const unsigned char *orig, size_t len, size_t off, uint32_t v,
				size_t min_off, size_t max_off, const char *what)
{
	unsigned char *b = malloc(len);
	assert_non_null(b);
	memcpy(b, orig, len);
	put32(b, off, v);
	struct sp_diags d;
	struct counting c = { 0 };
	sp_diags_init(&d, NULL);
	long rss0 = maxrss_kib();
	int rc = policy_try(b, len, &d, &c);
	long rss1 = maxrss_kib();
	if (rc != -EINVAL)
		fail_msg("%s: rc %d, want -EINVAL", what, rc);
	const struct sp_diag *e = first_error(&d);
	assert_true(e->has_offset);
	if (e->offset < min_off || e->offset > max_off)
		fail_msg("%s: error at +0x%llx (%s), want in [0x%zx, 0x%zx]", what,
			 (unsigned long long)e->offset, e->msg, min_off, max_off);
	/* a 2 GiB claim must not turn into a 2 GiB (or any large) allocation */
	if (c.peak > 4 * len + 64 * 1024)
		fail_msg("%s: peak %zu bytes allocated for a %zu-byte file", what, c.peak, len);
	assert_true(rss1 - rss0 < 16 * 1024);
	sp_diags_release(&d);
	free(b);
}

static void test_hostile__policy_header_count_2g(void **st)
{
	(void)st;
	size_t len;
	unsigned char *b = slurp("tests/data/policy/tiny.33", &len);
	struct sp_diags d;
	struct counting c = { 0 };
	sp_diags_init(&d, NULL);
	assert_int_equal(policy_try(b, len, &d, &c), 0);	/* the fixture itself is fine */
	sp_diags_release(&d);
	/* identifier length (offset 4), symbol/ocontext counts (24, 28) */
	policy_expect_patch(b, len, 4, 0x80000000u, 4, 4, "identifier length");
	policy_expect_patch(b, len, 24, 0x80000000u, 24, 24, "sym_num");
	policy_expect_patch(b, len, 28, 0x80000000u, 24, 28, "ocon_num");
	/* the first symbol table (commons): nprim, then nel = 2 GiB records */
	size_t sym = section_offset(b, len, "commons");
	assert_true(sym > 32 && sym + 8 < len);
	policy_expect_patch(b, len, sym + 4, 0x80000000u, sym + 4, sym + 4, "commons nel");
	policy_expect_patch(b, len, sym + 4, 0xffffffffu, sym + 4, sym + 4, "commons nel max");
	/* the types table, deeper in the file */
	size_t types = section_offset(b, len, "types");
	policy_expect_patch(b, len, types + 4, 0x80000000u, types + 4, types + 4, "types nel");
	free(b);
}

static void test_hostile__policy_avtab_overclaim(void **st)
{
	(void)st;
	size_t len;
	unsigned char *b = slurp("tests/data/policy/tiny.33", &len);
	size_t av = section_offset(b, len, "avtab");
	uint32_t nel = get32(b, av);
	assert_true(nel > 0 && nel < 10000);
	/* far more entries than bytes: refused at the count itself */
	policy_expect_patch(b, len, av, 0x80000000u, av, av, "avtab nel 2G");
	policy_expect_patch(b, len, av, 0xffffffffu, av, av, "avtab nel max");
	policy_expect_patch(b, len, av, (uint32_t)(len / 12 + 1), av, av, "avtab nel > bytes/12");
	/* a few more than written: the next sections are read as entries and must fail later */
	policy_expect_patch(b, len, av, nel + 1, av + 4, len, "avtab nel + 1");
	policy_expect_patch(b, len, av, nel + 50, av + 4, len, "avtab nel + 50");
	/* the file cut inside the table */
	struct sp_diags d;
	struct counting c = { 0 };
	sp_diags_init(&d, NULL);
	assert_int_equal(policy_try(b, av + 4 + 12 * (nel / 2) + 5, &d, &c), -EINVAL);
	const struct sp_diag *e = first_error(&d);
	assert_true(e->has_offset && e->offset >= av && e->offset <= av + 4 + 12 * (nel / 2) + 5);
	sp_diags_release(&d);
	free(b);
}

static void test_hostile__policy_every_truncation(void **st)
{
	(void)st;
	static const char *const files[] = { "tests/data/policy/tiny.33", "tests/data/policy/compat.15" };
	for (size_t f = 0; f < 2; f++) {
		size_t len;
		unsigned char *b = slurp(files[f], &len);
		for (size_t cut = 0; cut < len; cut++) {
			struct sp_diags d;
			struct counting c = { 0 };
			sp_diags_init(&d, NULL);
			int rc = policy_try(b, cut, &d, &c);
			if (rc != -EINVAL)
				fail_msg("%s cut at %zu: rc %d", files[f], cut, rc);
			const struct sp_diag *e = first_error(&d);
			if (!e->has_offset || e->offset > cut)
				fail_msg("%s cut at %zu: error at +0x%llx: %s", files[f], cut,
					 (unsigned long long)e->offset, e->msg);
			assert_true(c.peak <= 4 * len + 64 * 1024);
			sp_diags_release(&d);
		}
		free(b);
	}
}

/* ---- audit rule text ---- */

static const struct sp_audit_parse_opts base_opts = {
	.sz = sizeof(struct sp_audit_parse_opts),
	.machine = "x86_64",
	.passwd_file = "data/audit/env/passwd",
	.group_file = "data/audit/env/group",
	.dirs_file = "data/audit/env/dirs",
};

static void test_hostile__rule_line_1mib(void **st)
{
	(void)st;
	static const char head[] = "-a always,exit -F arch=b64 -S openat -F key=";
	size_t hl = sizeof(head) - 1, len = hl + MIB + 1;
	char *text = malloc(len);
	assert_non_null(text);
	memcpy(text, head, hl);
	memset(text + hl, 'k', MIB);
	text[len - 1] = '\n';
	struct counting c = { 0 };
	struct sp_allocator a = { count_alloc, count_free, &c };
	struct sp_audit_parse_opts o = base_opts;
	o.alloc = &a;
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	struct sp_audit_ruleset *rs = NULL;
	long rss0 = maxrss_kib();
	assert_int_equal(sp_audit_ruleset_parse(text, len, "big.rules", &o, &rs, &d), 0);
	long rss1 = maxrss_kib();
	/* no rule comes out of a 1 MiB key, and no rule is carved out of its pieces */
	assert_int_equal(sp_audit_ruleset_count(rs), 0);
	const struct sp_diag *e = first_error(&d);
	assert_int_equal(e->line, 1);
	assert_true(e->col >= 1 && e->col <= hl + 1);
	/* the report stays bounded: at most the default 100 failing lines are stored */
	assert_true(d.n <= 100 + d.nwarnings);
	assert_true(d.nerrors <= 100);
	fprintf(stderr, "rule 1 MiB line: %zu errors, first %u:%u '%s', peak %zu B via allocator, "
		"maxrss +%ld KiB\n", d.nerrors, e->line, e->col, e->msg, c.peak, rss1 - rss0);
	assert_true(c.peak < 8 * MIB);
	assert_true(rss1 - rss0 < 64 * 1024);
	sp_audit_ruleset_free(rs);
	assert_int_equal(c.live, 0);
	sp_diags_release(&d);

	/* 1 MiB of option-looking tokens with no newline at all */
	for (size_t i = 0; i + 3 <= MIB; i += 3)
		memcpy(text + i, "-D ", 3);
	sp_diags_init(&d, NULL);
	rs = NULL;
	rss0 = maxrss_kib();
	assert_int_equal(sp_audit_ruleset_parse(text, MIB, "big2.rules", &o, &rs, &d), 0);
	rss1 = maxrss_kib();
	e = first_error(&d);
	assert_true(e->line >= 1 && e->col >= 1);
	assert_true(d.nerrors <= 100);
	assert_true(c.peak < 8 * MIB);
	assert_true(rss1 - rss0 < 64 * 1024);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	free(text);
}

/* Parse a text of explicit length; return the number of items, fill *d. */
static size_t parse_n(const char *text, size_t len, struct sp_diags *d, struct sp_audit_ruleset **rs)
{
	*rs = NULL;
	assert_int_equal(sp_audit_ruleset_parse(text, len, "nul.rules", &base_opts, rs, d), 0);
	return sp_audit_ruleset_count(*rs);
}

static void test_hostile__rule_text_nul_bytes(void **st)
{
	(void)st;
	struct sp_diags d;
	struct sp_audit_ruleset *rs, *ref;
	/* auditctl reads with fgets: a NUL ends the line there.  The bytes after it on that line
	 * must never reach the rule (here: the key, and a field that would narrow the rule). */
	static const char t1[] = "-w /etc/shadow -p wa\0 -k evil\n-a always,exit -S openat\0 -F auid=0\n";
	static const char r1[] = "-w /etc/shadow -p wa\n-a always,exit -S openat\n";
	sp_diags_init(&d, NULL);
	size_t n = parse_n(t1, sizeof(t1) - 1, &d, &rs);
	struct sp_diags d2;
	sp_diags_init(&d2, NULL);
	assert_int_equal(parse_n(r1, sizeof(r1) - 1, &d2, &ref), n);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		struct sp_audit_item a, b;
		assert_int_equal(sp_audit_ruleset_item(rs, i, &a), 0);
		assert_int_equal(sp_audit_ruleset_item(ref, i, &b), 0);
		assert_int_equal(a.line, i + 1);
		assert_int_equal(a.blob_len, b.blob_len);
		assert_memory_equal(a.blob, b.blob, a.blob_len);
	}
	sp_audit_ruleset_free(rs);
	sp_audit_ruleset_free(ref);
	sp_diags_release(&d);
	sp_diags_release(&d2);

	/* a NUL inside an option is an error at that line: "-a alw\0ays,exit" */
	static const char t2[] = "-e 1\n-a alw\0ays,exit -S openat\n";
	sp_diags_init(&d, NULL);
	n = parse_n(t2, sizeof(t2) - 1, &d, &rs);
	assert_int_equal(n, 1);	/* only "-e 1" */
	const struct sp_diag *e = first_error(&d);
	assert_int_equal(e->line, 2);
	assert_true(e->col >= 1);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);

	/* a text that is all NULs: every line empty, nothing produced, no crash */
	char *zeros = calloc(1, 64 * 1024);
	assert_non_null(zeros);
	sp_diags_init(&d, NULL);
	assert_int_equal(parse_n(zeros, 64 * 1024, &d, &rs), 0);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	free(zeros);
}

/* ---- rule blobs ---- */

static size_t good_blob(unsigned char *buf, size_t cap)
{
	static const char text[] = "-a always,exit -F arch=b64 -S openat -F path=/etc/shadow -F key=k\n";
	struct sp_audit_ruleset *rs = NULL;
	assert_int_equal(sp_audit_ruleset_parse(text, sizeof(text) - 1, "g", &base_opts, &rs, NULL), 0);
	struct sp_audit_item it;
	assert_int_equal(sp_audit_ruleset_item(rs, 0, &it), 0);
	assert_true(it.blob_len <= cap);
	memcpy(buf, it.blob, it.blob_len);
	size_t n = it.blob_len;
	sp_audit_ruleset_free(rs);
	return n;
}

static void test_hostile__blob_odd_and_short(void **st)
{
	(void)st;
	unsigned char blob[4096];
	size_t n = good_blob(blob, sizeof(blob));
	struct sp_audit_rule r;
	assert_int_equal(sp_audit_rule_decode(blob, n, SP_AUDIT_DECODE_KERNEL, &r, NULL, NULL), 0);
	/* every shorter length, odd ones included, is refused with a byte offset within it */
	for (size_t cut = 0; cut < n; cut++) {
		unsigned char *p = malloc(cut ? cut : 1);	/* exact size: ASan sees any over-read */
		assert_non_null(p);
		memcpy(p, blob, cut);
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		int rc = sp_audit_rule_decode(p, cut, SP_AUDIT_DECODE_KERNEL, &r, &d, "cut");
		if (rc != -EINVAL)
			fail_msg("cut %zu: rc %d", cut, rc);
		const struct sp_diag *e = first_error(&d);
		assert_true(e->has_offset && e->offset <= cut);
		sp_diags_release(&d);
		free(p);
	}
	/* buflen claiming 2 GiB */
	unsigned char *p = malloc(n);
	assert_non_null(p);
	memcpy(p, blob, n);
	uint32_t huge = 0x80000000u;
	memcpy(p + SP_AUDIT_RULE_HDR_SIZE - 4, &huge, 4);
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	assert_int_equal(sp_audit_rule_decode(p, n, 0, &r, &d, "huge"), -EINVAL);
	const struct sp_diag *e = first_error(&d);
	assert_true(e->has_offset && e->offset == SP_AUDIT_RULE_HDR_SIZE - 4);
	sp_diags_release(&d);
	free(p);
}

/* The CLI built next to this test (out/<variant>/secpath), or skip the test. */
static void cli_path(char *cli, size_t cap)
{
	char self[4096];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(k > 0);
	self[k] = 0;
	char *slash = strrchr(self, '/');
	assert_non_null(slash);
	*slash = 0;	/* out/<variant>/tests */
	snprintf(cli, cap, "%s/../secpath", self);
	if (access(cli, X_OK)) {
		fprintf(stderr, "%s not built: skipped\n", cli);
		skip();
	}
}

/* Run `cli audit decode` on `input`; its stderr goes into err.  Returns the exit status. */
static int run_cli_decode(const char *cli, const char *input, size_t len, char *err, size_t errcap)
{
	char in[] = "/tmp/sp-hostile-hex-XXXXXX";
	int fd = mkstemp(in);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, input, len), (ssize_t)len);
	close(fd);
	char cmd[8600];
	snprintf(cmd, sizeof(cmd), "'%s' audit decode '%s' 2>&1 >/dev/null", cli, in);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	size_t got = fread(err, 1, errcap - 1, f);
	err[got] = 0;
	int status = pclose(f);
	unlink(in);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_hostile__hex_odd_length(void **st)
{
	(void)st;
	char cli[4200], err[4096];
	cli_path(cli, sizeof(cli));	/* before any allocation: skip() does not return */
	unsigned char blob[4096];
	size_t n = good_blob(blob, sizeof(blob));
	char *hex = malloc(2 * n + 8);
	assert_non_null(hex);
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", blob[i]);
	hex[2 * n] = '\n';
	/* the well-formed hex decodes */
	assert_int_equal(run_cli_decode(cli, hex, 2 * n + 1, err, sizeof(err)), 0);
	/* drop one digit: odd length, the line is rejected with its number */
	hex[2 * n - 1] = '\n';
	assert_int_equal(run_cli_decode(cli, hex, 2 * n, err, sizeof(err)), 1);
	if (!strstr(err, "line 1"))
		fail_msg("no position in: %s", err);
	/* odd hex on line 2 after a good line */
	char *two = malloc(4 * n + 8);
	assert_non_null(two);
	for (size_t i = 0; i < n; i++)
		snprintf(two + 2 * i, 3, "%02x", blob[i]);
	two[2 * n] = '\n';
	memcpy(two + 2 * n + 1, hex, 2 * n - 1);
	two[4 * n] = '\n';
	assert_int_equal(run_cli_decode(cli, two, 4 * n + 1, err, sizeof(err)), 1);
	if (!strstr(err, "line 2"))
		fail_msg("no position in: %s", err);
	/* a single digit */
	assert_int_equal(run_cli_decode(cli, "a\n", 2, err, sizeof(err)), 1);
	free(two);
	free(hex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile__policy_header_count_2g),
		cmocka_unit_test(test_hostile__policy_avtab_overclaim),
		cmocka_unit_test(test_hostile__policy_every_truncation),
		cmocka_unit_test(test_hostile__rule_line_1mib),
		cmocka_unit_test(test_hostile__rule_text_nul_bytes),
		cmocka_unit_test(test_hostile__blob_odd_and_short),
		cmocka_unit_test(test_hostile__hex_odd_length),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
