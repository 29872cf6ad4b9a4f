/*
 * fuzz_audit_text.c - libFuzzer target for the auditctl rules-file reader: any bytes as a rules
 * file (x86_64, pinned env files when run from the project root), then every produced rule goes
 * through decode (plain and kernel checks) and canonical text; the first few are re-parsed.
 * Invariants checked: the parser never fails hard except for ENOMEM; every blob it produces
 * decodes cleanly (its own output is always well formed).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secpath/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *env_file(const char *p)
{
	return access(p, R_OK) == 0 ? p : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sp_audit_parse_opts o;
	if (!o.sz) {
		o.sz = sizeof(o);
		o.machine = "x86_64";
		o.passwd_file = env_file("tests/data/audit/env/passwd");
		o.group_file = env_file("tests/data/audit/env/group");
		o.dirs_file = env_file("tests/data/audit/env/dirs");
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
		if ((size_t)n < sizeof(text) && i < 8) {	/* re-parse a few: each loads the env files */
			struct sp_audit_ruleset *rs2 = NULL;
			if (sp_audit_ruleset_parse(text, (size_t)n, "rt", &o, &rs2, NULL))
				abort();
			sp_audit_ruleset_free(rs2);
		}
	}
	sp_audit_ruleset_free(rs);
	sp_diags_release(&d);
	return 0;
}
