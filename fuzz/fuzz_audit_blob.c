/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_audit_blob.c - libFuzzer target for the struct audit_rule_data decoder: any bytes as a
 * rule blob.  A blob that decodes is formatted and re-encoded; the re-encoded blob must decode
 * again with the same flags and give the same fields (decode/encode are inverse on the
 * meaningful part).  ASan catches any read past `size`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size heap copy so that any over-read is caught */
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (unsigned flags = 0; flags <= SP_AUDIT_DECODE_KERNEL; flags++) {
		struct sp_audit_rule r, r2;
		struct sp_diags d;
		sp_diags_init(&d, NULL);
		if (sp_audit_rule_decode(copy, size, flags, &r, &d, "fuzz")) {
			if (!d.nerrors)
				abort();	/* a rejection always says why */
			sp_diags_release(&d);
			continue;
		}
		sp_diags_release(&d);
		char text[32768];
		(void)sp_audit_rule_format(&r, SP_AUDIT_ITEM_ADD, "x86_64", text, sizeof(text));
		size_t need = 0;
		(void)sp_audit_rule_encode(&r, NULL, 0, &need);
		uint8_t *enc = malloc(need);
		if (!enc)
			break;
		size_t len = 0;
		if (sp_audit_rule_encode(&r, enc, need, &len) || len != need)
			abort();
		if (sp_audit_rule_decode(enc, len, flags, &r2, NULL, NULL))
			abort();
		if (r2.field_count != r.field_count || memcmp(r2.mask, r.mask, sizeof(r.mask)))
			abort();
		for (uint32_t i = 0; i < r.field_count; i++) {
			const struct sp_audit_field *a = &r.fields[i], *b = &r2.fields[i];
			if (a->id != b->id || a->op != b->op || a->value != b->value)
				abort();
			if (a->str && memcmp(a->str, b->str, a->value))
				abort();
		}
		free(enc);
	}
	free(copy);
	return 0;
}
