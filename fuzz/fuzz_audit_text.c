/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_audit_text.c - libFuzzer target for the auditctl rules-file reader: any bytes as a rules
 * file (x86_64, pinned env files when run from the project root), then every produced rule goes
 * through decode (plain and kernel checks) and canonical text; the first few are re-parsed.
 * Invariants checked: the parser never fails hard except for ENOMEM; every blob it produces
 * decodes cleanly (its own output is always well formed); the encoder reproduces the decoded
 * bytes; and text -> blob -> text -> blob is byte-stable: the canonical text of a rule parses
 * without error to exactly one rule of the same kind and the same bytes, whose canonical text is
 * the same string.  The one exemption is a string value auditctl's own text cannot carry (see
 * unrepresentable()): its canonical text is only parsed (no crash, no hard failure).  With the
 * kernel checks and the lint on, the items are the same, an item is refused exactly when the
 * kernel's decode refuses it, and every diagnostic has a line.  Then the rules are listed as
 * auditctl -l lists them: every line a non-empty string, the call 0 or -ENOSPC.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secpath/audit.h"
#include "secpath/audit_tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *env_file(const char *p)
{
	return access(p, R_OK) == 0 ? p : NULL;
}

/* A string value that no auditctl rule text can spell: a two-character operator inside it makes
 * "-F name=value" split there (audit_rule_fieldpair_data tries "!=" ">=" "<=" "&=" first), and
 * bytes 0x04/0x07 are auditctl's own escape markers. */
static int unrepresentable(const struct sp_audit_rule *r)
{
	static const char *const ops[] = { "!=", ">=", "<=", "&=" };
	for (uint32_t i = 0; i < r->field_count; i++) {
		const struct sp_audit_field *f = &r->fields[i];
		if (!f->str)
			continue;
		for (size_t k = 0; k < 4; k++)
			if (memmem(f->str, f->value, ops[k], 2))
				return 1;
		if (memchr(f->str, 0x04, f->value) || memchr(f->str, 0x07, f->value))
			return 1;
	}
	return 0;
}

static void listed(void *ud, const char *line)
{
	(void)ud;
	if (!*line)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_audit_parse_opts o;
	if (!o.sz) {
		o.sz = sizeof(o);
		o.machine = "x86_64";
		o.passwd_file = env_file("data/audit/env/passwd");
		o.group_file = env_file("data/audit/env/group");
		o.dirs_file = env_file("data/audit/env/dirs");
		if (!o.passwd_file || !o.group_file || !o.dirs_file)
			o.passwd_file = o.group_file = o.dirs_file = NULL;
	}
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	struct sp_audit_ruleset *rs = NULL;
	int rc = sp_audit_ruleset_parse((const char *)data, size, "fuzz", &o, &rs, &d);
	if (rc)
		abort();
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it))
			abort();
		if (it.kind == SP_AUDIT_ITEM_CTRL)
			continue;
		struct sp_audit_rule r;
		if (sp_audit_rule_decode(it.blob, it.blob_len, 0, &r, NULL, NULL))
			abort();
		(void)sp_audit_rule_decode(it.blob, it.blob_len, SP_AUDIT_DECODE_KERNEL, &r, NULL, NULL);
		char text[16384];
		int n = sp_audit_rule_format(&r, it.kind, "x86_64", text, sizeof(text));
		if (n < 0)
			abort();
		unsigned char enc[sizeof(text)];
		size_t elen = 0;
		if (it.blob_len <= sizeof(enc)) {
			if (sp_audit_rule_encode(&r, enc, sizeof(enc), &elen) || elen != it.blob_len ||
			    memcmp(enc, it.blob, elen))
				abort();
		}
		if ((size_t)n < sizeof(text) && i < 8) {	/* re-parse a few: each loads the env files */
			struct sp_audit_ruleset *rs2 = NULL;
			struct sp_diags d2;
			sp_diags_init(&d2, NULL);
			if (sp_audit_ruleset_parse(text, (size_t)n, "rt", &o, &rs2, &d2))
				abort();
			struct sp_audit_item it2;
			if (unrepresentable(&r)) {
				sp_audit_ruleset_free(rs2);
				sp_diags_release(&d2);
				continue;
			}
			if (d2.nerrors || sp_audit_ruleset_count(rs2) != 1 || sp_audit_ruleset_item(rs2, 0, &it2) ||
			    it2.kind != it.kind || it2.blob_len != it.blob_len || memcmp(it2.blob, it.blob, it.blob_len))
				abort();
			struct sp_audit_rule r2;
			char text2[sizeof(text)];
			if (sp_audit_rule_decode(it2.blob, it2.blob_len, 0, &r2, NULL, NULL) ||
			    sp_audit_rule_format(&r2, it2.kind, "x86_64", text2, sizeof(text2)) != n ||
			    memcmp(text, text2, (size_t)n))
				abort();
			sp_audit_ruleset_free(rs2);
			sp_diags_release(&d2);
		}
	}
	/* the kernel checks and the lint only add diagnostics: the same items, each refused by the
	 * parser exactly when the kernel's decode refuses it, every diagnostic on a line */
	struct sp_audit_parse_opts ok = o;
	struct sp_audit_ruleset *rk = NULL;
	struct sp_diags dk;
	ok.flags = SP_AUDIT_PARSE_KERNEL | SP_AUDIT_PARSE_LINT;
	sp_diags_init(&dk, NULL);
	if (sp_audit_ruleset_parse((const char *)data, size, "fuzz", &ok, &rk, &dk) ||
	    sp_audit_ruleset_count(rk) != sp_audit_ruleset_count(rs))
		abort();
	for (size_t i = 0; i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item a, b;
		struct sp_audit_rule r;
		if (sp_audit_ruleset_item(rs, i, &a) || sp_audit_ruleset_item(rk, i, &b) ||
		    a.kind != b.kind || a.blob_len != b.blob_len ||
		    (a.blob_len && memcmp(a.blob, b.blob, a.blob_len)))
			abort();
		if (b.kind != SP_AUDIT_ITEM_CTRL &&
		    !!b.kernel_err != !!sp_audit_rule_decode(b.blob, b.blob_len, SP_AUDIT_DECODE_KERNEL,
							     &r, NULL, NULL))
			abort();
	}
	for (size_t i = 0; i < dk.n; i++)
		if (!dk.v[i].line || dk.v[i].col > 6144 || dk.v[i].end_col > 6144)
			abort();
	sp_audit_ruleset_free(rk);
	sp_diags_release(&dk);
	struct sp_audit_listing_opts lo = { .sz = sizeof(lo), .machine = "x86_64" };
	rc = sp_audit_listing(rs, &lo, listed, NULL);
	if (rc && rc != -ENOSPC)
		abort();
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	return 0;
}
