/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * blob.c - the one reading of a struct audit_rule_data blob, in the kernel's order: the header
 * checks of audit_to_entry_common(), then per field audit_to_op(), the legacy "auid=-1",
 * audit_field_valid(), and the checks of audit_data_to_entry()'s type switch (kernel/
 * auditfilter.c of 6.1): make_kuid/make_kgid, audit_unpack_string(), audit_to_inode(),
 * audit_to_watch() (kernel/audit_watch.c), audit_make_tree() (kernel/audit_tree.c) and the path
 * checks of audit_alloc_mark() (kernel/audit_fsnotify.c).  Two callers: the engines' loader
 * (filter/krule.c, which then builds the struct audit_krule and resolves paths) and the
 * decoder's kernel checks (lang/decode.c, SP_AUDIT_DECODE_KERNEL).
 *
 * Invariants: nothing is read outside [blob, blob + len); string bytes are consumed in field
 * order, never more than len - ARD_HDR of them; a refusal returns the kernel's errno and, when
 * the walk has a diagnostics sink, adds one error at the byte offset of the word at fault;
 * nothing here allocates or consults a file system (kern_path() of a tree root or an exe's
 * directory, the watched inode: the loader's part).
 *
 * Kept apart from 6.1 on purpose: audit_field_valid() checks f->val, which 6.1 has not set yet
 * (audit_data_to_entry() holds the value in f_val since 5.6), so there the range checks of
 * loginuid_set, perm, filetype, field_compare and saddr_fam never refuse anything; here they
 * check the blob's value, as the kernel meant and as auditctl does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "audit/audit_int.h"

/* audit_ops[]: the wire operator of each kernel operator. */
static const uint32_t audit_wire_ops[OP_BAD] = {
	[OP_EQ] = ARD_OP_EQ, [OP_NE] = ARD_OP_NE, [OP_BITMASK] = ARD_OP_BITMASK,
	[OP_BITTEST] = ARD_OP_BITTEST, [OP_LT] = ARD_OP_LT, [OP_GT] = ARD_OP_GT,
	[OP_LE] = ARD_OP_LE, [OP_GE] = ARD_OP_GE,
};

uint32_t audit_to_op(uint32_t wire)
{
	uint32_t n;
	for (n = OP_EQ; n < OP_BAD && audit_wire_ops[n] != wire; n++)
		;
	return n;
}

const char *audit_op_str(uint32_t op)
{
	static const char *const text[OP_BAD] = {
		[OP_EQ] = "=", [OP_NE] = "!=", [OP_BITMASK] = "&", [OP_BITTEST] = "&=",
		[OP_LT] = "<", [OP_GT] = ">", [OP_LE] = "<=", [OP_GE] = ">=",
	};
	return op < OP_BAD ? text[op] : NULL;
}

int audit_blob_bad(struct sp_diags *d, const char *file, uint64_t off, int code, const char *fmt, ...)
{
	if (d) {
		char msg[SP_DIAG_MSG_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		sp_diags_add_offset(d, SP_SEV_ERROR, code, file, off, "%s", msg);
	}
	return code;
}

#define bad(b, off, ...) audit_blob_bad((b)->diag, (b)->file, (off), -EINVAL, __VA_ARGS__)
#define AT_FIELD(i) (ARD_OFF_FIELDS + 4 * (i))
#define AT_VALUE(i) (ARD_OFF_VALUES + 4 * (i))
#define AT_OP(i) (ARD_OFF_FIELDFLAGS + 4 * (i))

/* audit_to_entry_common(): the list (AUDIT_FILTER_ENTRY and WATCH are refused), the action
 * (AUDIT_POSSIBLE is refused), at most AUDIT_MAX_FIELDS fields. */
int audit_blob_begin(struct audit_blob *b, const void *blob, size_t len, struct sp_diags *d,
		     const char *file)
{
	memset(b, 0, sizeof(*b));
	b->diag = d;
	b->file = file;
	b->inode_f = -1;
	if (!blob || len < ARD_HDR)
		return audit_blob_bad(d, file, len, -EINVAL,
				      "truncated rule: %zu bytes, the header needs %u", len, ARD_HDR);
	b->d = blob;
	b->len = len;
	b->remain = len - ARD_HDR;
	b->flags = audit_rd32(blob, offsetof(struct audit_rd_hdr, flags));
	b->listnr = b->flags & ~(uint32_t)AL_PREPEND;
	switch (b->listnr) {
	case AL_EXIT: case AL_URING: case AL_TASK: case AL_USER: case AL_EXCLUDE: case AL_FS:
		break;
	default:
		return bad(b, offsetof(struct audit_rd_hdr, flags), "invalid list in flags 0x%x",
			   b->flags);
	}
	b->action = audit_rd32(blob, offsetof(struct audit_rd_hdr, action));
	if (b->action != AA_NEVER && b->action != AA_ALWAYS)
		return bad(b, offsetof(struct audit_rd_hdr, action), "invalid action %u", b->action);
	b->field_count = audit_rd32(blob, offsetof(struct audit_rd_hdr, field_count));
	if (b->field_count > ARD_MAX_FIELDS)
		return bad(b, offsetof(struct audit_rd_hdr, field_count), "field_count %u above 64",
			   b->field_count);
	return 0;
}

static int op_refused(const struct audit_blob *b, uint32_t i, const struct audit_blob_field *f)
{
	return bad(b, AT_OP(i), "operator '%s' not allowed for field %u", audit_op_str(f->op), f->id);
}

/* audit_field_valid(): the lists a field may be on, its operators, its value range. */
static int field_valid(const struct audit_blob *b, uint32_t i, const struct audit_blob_field *f)
{
	switch (f->type) {
	case AF_MSGTYPE:
		if (b->listnr != AL_EXCLUDE && b->listnr != AL_USER)
			return bad(b, AT_FIELD(i), "msgtype outside user/exclude lists");
		break;
	case AF_FSTYPE:
		if (b->listnr != AL_FS)
			return bad(b, AT_FIELD(i), "fstype outside the filesystem list");
		break;
	case AF_PERM:
		if (b->listnr == AL_URING)
			return bad(b, AT_FIELD(i), "perm not allowed on the io_uring list");
		break;
	}
	if (b->listnr == AL_FS && f->type != AF_FSTYPE && f->type != AF_FILTERKEY)
		return bad(b, AT_FIELD(i), "field %u not allowed on the filesystem list", f->id);
	switch (f->type) {
	case AF_ARG0: case AF_ARG1: case AF_ARG2: case AF_ARG3: case AF_PERS: case AF_DEVMINOR:
		break;	/* all operators */
	case AF_UID: case AF_EUID: case AF_SUID: case AF_FSUID: case AF_LOGINUID: case AF_OBJ_UID:
	case AF_GID: case AF_EGID: case AF_SGID: case AF_FSGID: case AF_OBJ_GID: case AF_PID:
	case AF_MSGTYPE: case AF_PPID: case AF_DEVMAJOR: case AF_EXIT: case AF_SUCCESS: case AF_INODE:
	case AF_SESSIONID: case AF_SUBJ_SEN: case AF_SUBJ_CLR: case AF_OBJ_LEV_LOW: case AF_OBJ_LEV_HIGH:
	case AF_SADDR_FAM:
		if (f->op == OP_BITMASK || f->op == OP_BITTEST)
			return op_refused(b, i, f);	/* bit operators are for syscall args */
		break;
	case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_OBJ_USER: case AF_OBJ_ROLE:
	case AF_OBJ_TYPE: case AF_WATCH: case AF_DIR: case AF_FILTERKEY: case AF_LOGINUID_SET:
	case AF_ARCH: case AF_FSTYPE: case AF_PERM: case AF_FILETYPE: case AF_FIELD_COMPARE: case AF_EXE:
		if (f->op != OP_NE && f->op != OP_EQ)
			return op_refused(b, i, f);
		break;
	default:
		return bad(b, AT_FIELD(i), "unknown field %u", f->id);
	}
	switch (f->type) {
	case AF_LOGINUID_SET:
		if (f->val != 0 && f->val != 1)
			return bad(b, AT_VALUE(i), "loginuid_set must be 0 or 1");
		break;
	case AF_PERM:
		if (f->val & ~15u)
			return bad(b, AT_VALUE(i), "perm value %u above 15", f->val);
		break;
	case AF_FILETYPE:
		if (f->val & ~0170000u)
			return bad(b, AT_VALUE(i), "filetype has bits outside S_IFMT");
		break;
	case AF_FIELD_COMPARE:
		if (f->val > ARD_MAX_FIELD_COMPARE)
			return bad(b, AT_VALUE(i), "field_compare value %u above %u", f->val,
				   ARD_MAX_FIELD_COMPARE);
		break;
	case AF_SADDR_FAM:
		if (f->val >= ARD_AF_MAX)
			return bad(b, AT_VALUE(i), "saddr_fam %u not below AF_MAX", f->val);
		break;
	}
	return 0;
}

/* audit_unpack_string(): the next val bytes of buf[]. */
static int unpack_string(struct audit_blob *b, uint32_t i, struct audit_blob_field *f)
{
	if (f->val == 0 || f->val > b->remain)
		return bad(b, AT_VALUE(i), "string length %u with %zu bytes of buf left", f->val,
			   b->remain);
	if (f->val > ARD_PATH_MAX)
		return audit_blob_bad(b->diag, b->file, AT_VALUE(i), -ENAMETOOLONG,
				      "string length %u above PATH_MAX", f->val);
	f->str = (const char *)b->d + b->len - b->remain;
	b->remain -= f->val;
	return 0;
}

/* One path-like field per rule: a watch, a tree or an inode= (the inode hash has one key). */
static int path_taken(const struct audit_blob *b)
{
	if (b->inode_f >= 0 || b->watch || b->tree)
		return bad(b, ARD_OFF_FIELDS, "more than one path, dir or inode= field");
	return 0;
}

static int exit_lists(const struct audit_blob *b, uint32_t i, const char *what)
{
	if (b->listnr != AL_EXIT && b->listnr != AL_URING)
		return bad(b, AT_FIELD(i), "%s outside exit lists", what);
	return 0;
}

/* audit_to_watch(), audit_make_tree(), audit_alloc_mark(): absolute paths; a watch or an exe
 * names a file, never "dir/". */
static int path_checks(struct audit_blob *b, uint32_t i, const struct audit_blob_field *f)
{
	int rc = 0;
	if (f->type != AF_EXE && f->op != OP_EQ)
		return op_refused(b, i, f);
	if (f->type != AF_DIR && f->str[f->val - 1] == '/')
		return bad(b, AT_FIELD(i), "path ends with '/'");
	if (f->str[0] != '/')
		return bad(b, AT_FIELD(i), "path does not start with '/'");
	if (f->type == AF_EXE)
		return 0;
	if ((rc = exit_lists(b, i, f->type == AF_WATCH ? "path" : "dir")) || (rc = path_taken(b)))
		return rc;
	if (f->type == AF_WATCH)
		b->watch = 1;
	else
		b->tree = 1;
	return 0;
}

/* audit_data_to_entry()'s switch on the field type, after audit_field_valid(). */
static int field_translate(struct audit_blob *b, uint32_t i, struct audit_blob_field *f)
{
	int rc;
	switch (f->type) {
	case AF_LOGINUID: case AF_UID: case AF_EUID: case AF_SUID: case AF_FSUID: case AF_OBJ_UID:
	case AF_GID: case AF_EGID: case AF_SGID: case AF_FSGID: case AF_OBJ_GID:
		if (f->val == ARD_ID_UNSET)	/* !uid_valid(make_kuid()) */
			return bad(b, AT_VALUE(i), "invalid id -1 in field %u", f->id);
		return 0;
	case AF_WATCH: case AF_DIR:
		return (rc = unpack_string(b, i, f)) ? rc : path_checks(b, i, f);
	case AF_INODE:
		if ((rc = exit_lists(b, i, "inode")) || (rc = path_taken(b)))
			return rc;
		if (f->op != OP_EQ && f->op != OP_NE)
			return op_refused(b, i, f);
		b->inode_f = (int)i;
		return 0;
	case AF_FILTERKEY:
		if (b->key)
			return bad(b, ARD_OFF_FIELDS, "more than one key field");
		if (f->val > ARD_MAX_KEY_LEN)
			return bad(b, AT_VALUE(i), "key length %u above %u", f->val, ARD_MAX_KEY_LEN);
		if ((rc = unpack_string(b, i, f)))
			return rc;
		b->key = 1;
		return 0;
	case AF_EXE:
		if (b->exe)
			return bad(b, ARD_OFF_FIELDS, "more than one exe field");
		if (f->val > ARD_PATH_MAX)
			return bad(b, AT_VALUE(i), "exe length %u above PATH_MAX", f->val);
		if ((rc = unpack_string(b, i, f)) || (rc = path_checks(b, i, f)))
			return rc;
		b->exe = 1;
		return 0;
	default:
		return audit_field_is_lsm(f->type) ? unpack_string(b, i, f) : 0;
	}
}

int audit_blob_field(struct audit_blob *b, uint32_t i, struct audit_blob_field *f)
{
	uint32_t wire = audit_rd32(b->d, AT_OP(i));
	int rc;
	f->id = audit_rd32(b->d, AT_FIELD(i));
	f->op = audit_to_op(wire);
	f->str = NULL;
	f->legacy = 0;
	if (f->op == OP_BAD)
		return bad(b, AT_OP(i), "invalid operator 0x%x in field %u", wire, i);
	f->type = f->id;
	f->val = audit_rd32(b->d, AT_VALUE(i));
	if (f->type == AF_LOGINUID && f->val == ARD_ID_UNSET) {
		f->type = AF_LOGINUID_SET;	/* support legacy tests for a valid loginuid */
		f->val = 0;
		f->legacy = 1;
	}
	if ((rc = field_valid(b, i, f)))
		return rc;
	return field_translate(b, i, f);
}
