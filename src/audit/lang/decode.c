/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * decode.c - struct audit_rule_data bytes <-> struct sp_audit_rule <-> canonical text.
 *
 * Decoding validates like the kernel's audit_data_to_entry(): header size, field_count <= 64,
 * list and action, operators, every string length against the bytes that remain (never reading
 * past `len`), PATH_MAX; with SP_AUDIT_DECODE_KERNEL also audit_field_valid()'s per-field rules.
 * Formatting prints the `auditctl -l` shape with choices that parse back to the same bytes:
 * fields keep their order, -S follows the last arch field, the final key is split at 0x01 into
 * -F key= (an earlier key field, from "-F KEY=", stays in place),
 * watches are written as -F path=/dir= so no stat() is involved; a perm field outside the exit
 * list prints as -p (the only way auditctl adds one there); a key with an empty 0x01-piece
 * prints whole.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "audit/lang/lang_int.h"

/* The kernel's checks (SP_AUDIT_DECODE_KERNEL): the walk of audit/blob.c over every field. */
static int kernel_checks(const void *blob, size_t len, struct sp_diags *d, const char *file)
{
	struct audit_blob b;
	struct audit_blob_field f;
	int rc = audit_blob_begin(&b, blob, len, d, file);
	for (uint32_t i = 0; !rc && i < b.field_count; i++)
		rc = audit_blob_field(&b, i, &f);
	return rc;
}

/*
 * The framing of the strings: each string field's length against the buflen bytes that follow
 * the header (stricter than the kernel, which bounds them by the message size, so that a stream
 * of blobs splits at buflen), PATH_MAX first.  The field's bytes become f->str.
 */
static int frame_string(struct sp_audit_field *f, uint32_t i, const uint8_t *buf, uint32_t buflen,
			size_t *used, struct sp_diags *d, const char *file)
{
	size_t remain = buflen - *used;
	if (f->value > ARD_PATH_MAX)
		return audit_blob_bad(d, file, ARD_OFF_VALUES + 4 * i, -ENAMETOOLONG,
				      "string length %u above PATH_MAX", f->value);
	if (f->value == 0 || f->value > remain)
		return audit_blob_bad(d, file, ARD_OFF_VALUES + 4 * i, -EINVAL,
				      "string length %u with %zu bytes of buf left", f->value, remain);
	f->str = (const char *)buf + *used;
	*used += f->value;
	return 0;
}

SP_API int sp_audit_rule_decode(const void *blob, size_t len, unsigned flags, struct sp_audit_rule *r,
				struct sp_diags *d, const char *file)
{
	const uint8_t *p = blob;
	struct audit_blob b;
	int rc;
	if (!r || (!blob && len))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if ((rc = audit_blob_begin(&b, blob, len, d, file)))
		return rc;
	r->flags = b.flags;
	r->list = b.listnr;
	r->action = b.action;
	r->field_count = b.field_count;
	r->buflen = audit_rd32(p, ARD_OFF_BUFLEN);
	memcpy(r->mask, p + offsetof(struct audit_rd_hdr, mask), sizeof(r->mask));
	size_t avail = len - ARD_HDR;
	if (r->buflen > avail)
		return audit_blob_bad(d, file, ARD_OFF_BUFLEN, -EINVAL,
				      "buflen %u beyond the %zu bytes that follow the header",
				      r->buflen, avail);
	size_t used = 0;
	for (uint32_t i = 0; i < r->field_count; i++) {
		struct sp_audit_field *f = &r->fields[i];
		f->id = audit_rd32(p, ARD_OFF_FIELDS + 4 * i);
		f->value = audit_rd32(p, ARD_OFF_VALUES + 4 * i);
		f->op = audit_rd32(p, ARD_OFF_FIELDFLAGS + 4 * i);
		if (audit_to_op(f->op) == OP_BAD)
			return audit_blob_bad(d, file, ARD_OFF_FIELDFLAGS + 4 * i, -EINVAL,
					      "invalid operator 0x%x in field %u", f->op, i);
		if (audit_field_is_string(f->id) &&
		    (rc = frame_string(f, i, p + ARD_HDR, r->buflen, &used, d, file)))
			return rc;
	}
	if (flags & SP_AUDIT_DECODE_KERNEL)
		return kernel_checks(blob, len, d, file);
	return 0;
}

SP_API size_t sp_audit_rule_blob_size(const void *blob, size_t avail)
{
	if (!blob || avail < ARD_HDR)
		return avail;
	uint32_t bl = audit_rd32(blob, ARD_OFF_BUFLEN);
	return bl <= avail - ARD_HDR ? ARD_HDR + bl : avail;
}

SP_API int sp_audit_rule_encode(const struct sp_audit_rule *r, void *buf, size_t cap, size_t *out_len)
{
	if (!r || r->field_count > SP_AUDIT_MAX_FIELDS)
		return -EINVAL;
	size_t blen = 0;
	for (uint32_t i = 0; i < r->field_count; i++)
		if (audit_field_is_string(r->fields[i].id))
			blen += r->fields[i].value;
	size_t n = ARD_HDR + blen;
	if (out_len)
		*out_len = n;
	if (!buf || cap < n)
		return -ENOSPC;
	uint8_t *p = buf;
	uint32_t b32 = (uint32_t)blen;
	memset(p, 0, ARD_HDR);
	memcpy(p, &r->flags, 4);
	memcpy(p + offsetof(struct audit_rd_hdr, action), &r->action, 4);
	memcpy(p + offsetof(struct audit_rd_hdr, field_count), &r->field_count, 4);
	memcpy(p + offsetof(struct audit_rd_hdr, mask), r->mask, sizeof(r->mask));
	memcpy(p + ARD_OFF_BUFLEN, &b32, 4);
	size_t used = 0;
	for (uint32_t i = 0; i < r->field_count; i++) {
		const struct sp_audit_field *f = &r->fields[i];
		memcpy(p + ARD_OFF_FIELDS + 4 * i, &f->id, 4);
		memcpy(p + ARD_OFF_VALUES + 4 * i, &f->value, 4);
		memcpy(p + ARD_OFF_FIELDFLAGS + 4 * i, &f->op, 4);
		if (audit_field_is_string(f->id) && f->value) {
			if (!f->str)
				return -EINVAL;
			memcpy(p + ARD_HDR + used, f->str, f->value);
			used += f->value;
		}
	}
	return 0;
}

/* ---- text ---- */

struct out {
	char *buf;
	size_t len, used;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(o->used < o->len ? o->buf + o->used : NULL,
			  o->used < o->len ? o->len - o->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

/* A string value with auditctl's two escapes: "\ " for space, "\\" for backslash. */
static void put_str(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\\')
			put(o, "\\%c", s[i]);
		else
			put(o, "%c", s[i]);
	}
}

/* The uid fields, where -1 prints as "unset". */
static int field_is_uid(uint32_t t)
{
	return (t >= AF_UID && t <= AF_FSUID) || t == AF_LOGINUID || t == AF_OBJ_UID;
}

static void put_arch(struct out *o, int host, uint32_t v)
{
	struct audit_pctx pc = { .host_mach = host };
	uint32_t e;
	if (!audit_arch_value(&pc, "b64", &e) && e == v)
		put(o, "b64");
	else if (!audit_arch_value(&pc, "b32", &e) && e == v)
		put(o, "b32");
	else if (audit_mach_name(audit_mach_from_elf(v)))
		put(o, "%s", audit_mach_name(audit_mach_from_elf(v)));
	else
		put(o, "0x%x", v);
}

/* A perm mask (1..15) as auditctl's letters. */
static void put_perm(struct out *o, uint32_t v)
{
	put(o, "%s%s%s%s", v & 4 ? "r" : "", v & 2 ? "w" : "", v & 1 ? "x" : "", v & 8 ? "a" : "");
}

static void put_field(struct out *o, const struct sp_audit_field *f, int host)
{
	const char *name = audit_field_name(f->id);
	const char *op = audit_op_text(f->op);
	if (!op)
		op = "?";
	if (f->id == AF_FIELD_COMPARE) {
		int f1, f2;
		if (!audit_compare_fields(f->value, &f1, &f2)) {
			put(o, " -C %s%s%s", audit_field_name((uint32_t)f1), op,
			    audit_field_name((uint32_t)f2));
			return;
		}
	}
	if (name)
		put(o, " -F %s%s", name, op);
	else
		put(o, " -F field%u%s", f->id, op);
	if (audit_field_is_string(f->id) && f->str) {
		put_str(o, f->str, f->value);
		return;
	}
	uint32_t v = f->value;
	const char *s;
	switch (f->id) {
	case AF_ARCH:
		put_arch(o, host, v);
		return;
	case AF_EXIT:
		/* INT32_MIN has no negation (and no errno name): printed as a number */
		if ((int32_t)v < 0 && v != 0x80000000u && (s = audit_errno_name(-(int32_t)v)))
			put(o, "-%s", s);
		else
			put(o, "%d", (int32_t)v);
		return;
	case AF_MSGTYPE:
		if ((s = audit_msgtype_name(v)))
			put(o, "%s", s);
		else
			put(o, "%u", v);
		return;
	case AF_PERM:
		if (!v || v > 15) {
			put(o, "%u", v);
			return;
		}
		put_perm(o, v);
		return;
	case AF_FILETYPE:
		if ((s = audit_ftype_name(v)))
			put(o, "%s", s);
		else
			put(o, "%u", v);
		return;
	case AF_FSTYPE:
		if ((s = audit_fstype_name(v)))
			put(o, "%s", s);
		else
			put(o, "0x%x", v);
		return;
	default:
		if (field_is_uid(f->id) && v == ARD_ID_UNSET)
			put(o, "unset");
		else
			put(o, "%u", v);
		return;
	}
}

/* " -S a,b" (lead: after what came before), or "-S a,b " (first on the line). */
static void put_syscalls(struct out *o, const struct sp_audit_rule *r, int mach, int lead)
{
	int all = 1, none = 1;
	for (unsigned i = 0; i < 64; i++) {
		all &= r->mask[i] == 0xffffffffu;
		none &= r->mask[i] == 0;
	}
	/* a list's own mask when no -S is given: none for the task list, all for the others */
	int natural = r->list == AL_TASK ? none : all;
	if (natural && !(all && r->list == AL_EXIT))
		return;
	put(o, lead ? " -S " : "-S ");
	if (all)	/* exit rules say -S all so that -k is allowed; elsewhere it came from -S all */
		put(o, "all");
	else if (none)	/* "-S ," adds no syscall and leaves the mask empty, as auditctl does */
		put(o, ",");
	else
		for (int n = 0, first = 1; n < 2048; n++) {
			if (!(r->mask[n / 32] & (1u << (n % 32))))
				continue;
			const char *s = audit_sc_by_nr(mach, n);
			if (s)
				put(o, "%s%s", first ? "" : ",", s);
			else
				put(o, "%s%d", first ? "" : ",", n);
			first = 0;
		}
	if (!lead)
		put(o, " ");
}

SP_API int sp_audit_rule_format(const struct sp_audit_rule *r, enum sp_audit_item_kind kind,
				const char *machine, char *buf, size_t len)
{
	struct out o = { buf, len, 0 };
	if (!r)
		return -EINVAL;
	if (buf && len)
		buf[0] = 0;
	int host = machine ? audit_mach_from_name(machine) : audit_mach_host();
	const char *list = audit_list_name(r->list);
	const char *act = r->action == 2 ? "always" : r->action == 0 ? "never" : "possible";
	char opt = kind == SP_AUDIT_ITEM_DEL ? 'd' : (r->flags & AL_PREPEND) ? 'A' : 'a';
	int last_arch = -1;
	for (uint32_t i = 0; i < r->field_count && i < SP_AUDIT_MAX_FIELDS; i++)
		if (r->fields[i].id == AF_ARCH)
			last_arch = (int)i;
	int mach = host;
	if (last_arch >= 0)
		mach = audit_mach_from_elf(r->fields[last_arch].value);
	/* auditctl refuses -S after -a on the other lists, but takes it before -a (the list is not
	 * known yet): such a rule's syscalls print first, in the host's table as auditctl read them */
	int s_first = r->list != AL_EXIT && last_arch < 0;
	if (s_first)
		put_syscalls(&o, r, mach, 0);
	put(&o, "-%c %s,%s", opt, act, list ? list : "?");
	if (last_arch < 0 && !s_first)
		put_syscalls(&o, r, mach, 1);
	uint32_t nf = r->field_count < SP_AUDIT_MAX_FIELDS ? r->field_count : SP_AUDIT_MAX_FIELDS;
	for (uint32_t i = 0; i < nf; i++) {
		const struct sp_audit_field *pf = &r->fields[i];
		if (pf->id == AF_PERM && r->list != AL_EXIT && pf->op == SP_AUDIT_OP_EQ && pf->value &&
		    pf->value <= 15) {
			/* -F perm= is exit-list only; elsewhere the field came from -p, which
			 * appends it at this point in the same way */
			put(&o, " -p ");
			put_perm(&o, pf->value);
		} else if (r->fields[i].id != AF_FILTERKEY) {
			put_field(&o, &r->fields[i], host);
		} else if ((i + 1 < nf || r->fields[i].op != SP_AUDIT_OP_EQ) && r->fields[i].str) {
			/* a key field before the end came from "-F KEY=" (any other letter case is
			 * an ordinary field in place, not part of the joined key) */
			put(&o, " -F KEY%s", audit_op_text(r->fields[i].op) ? audit_op_text(r->fields[i].op) : "=");
			put_str(&o, r->fields[i].str, r->fields[i].value);
		}
		if ((int)i == last_arch)
			put_syscalls(&o, r, mach, 1);
	}
	if (nf && r->fields[nf - 1].id == AF_FILTERKEY && r->fields[nf - 1].str &&
	    r->fields[nf - 1].op == SP_AUDIT_OP_EQ) {
		const struct sp_audit_field *f = &r->fields[nf - 1];
		/* keys joined with 0x01 print one -F key= each; a key with an empty piece (a 0x01
		 * the user wrote, or a leading/trailing one) prints whole, so it parses back to the
		 * same bytes (with auditctl's "illegal character" warning) */
		int whole = f->value == 0 || f->str[0] == 0x01 || f->str[f->value - 1] == 0x01 ||
			    memmem(f->str, f->value, "\x01\x01", 2) != NULL;
		size_t s = 0;
		for (size_t k = 0; k <= f->value; k++) {
			if (k == f->value || (!whole && f->str[k] == 0x01)) {
				put(&o, " -F key=");
				put_str(&o, f->str + s, k - s);
				s = k + 1;
			}
		}
	}
	if (buf && len)
		buf[o.used < len ? o.used : len - 1] = 0;
	return (int)o.used;
}
