/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * field.c - the rule-building half of libaudit 3.0.9 re-created: "-F name OP value" parsing
 * for every field type, "-C f1 OP f2" comparisons, syscall names and numbers into the mask, arch
 * values.  Return codes are libaudit's (negative, see audit_fieldpair_msg) so the oracle test can
 * compare them, and their messages, one to one.
 *
 * Mirrors (libaudit.c): audit_fieldpair ~ audit_rule_fieldpair_data(), its switch on the field
 * as fp_value with one fp_<kind> helper per group of cases, in libaudit's order;
 * audit_fieldcmp ~ audit_rule_interfield_comp_data(); audit_syscall_add ~
 * audit_rule_syscallbyname_data(); audit_arch_value ~ audit_determine_machine() then
 * audit_machine_to_elf(); errtab ~ err_msgtab (errormsg.h), audit_fieldpair_msg ~
 * audit_number_to_errmsg(), so a refused field reads as auditctl prints it.
 *
 * Invariants: rb->field_count <= 63 after any call here (libaudit's cap); rb->buflen equals the
 * sum of the string field values; nothing here reads the live host except through audit_env.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "audit/lang/lang_int.h"

void audit_rb_init(struct audit_rb *rb, const struct sp_allocator *a)
{
	memset(rb, 0, sizeof(*rb));
	rb->alloc = a;
}

void audit_rb_release(struct audit_rb *rb)
{
	sp_free(rb->alloc, rb->buf, rb->cap);
	rb->buf = NULL;
	rb->cap = 0;
}

int audit_rb_add_string(struct audit_rb *rb, const char *s, size_t n)
{
	if (rb->buflen + n > rb->cap) {
		size_t ncap = rb->cap ? rb->cap : 64;
		while (ncap < rb->buflen + n)
			ncap *= 2;
		char *nb = sp_alloc(rb->alloc, ncap, 1);
		if (!nb)
			return -ENOMEM;
		if (rb->buflen)
			memcpy(nb, rb->buf, rb->buflen);
		sp_free(rb->alloc, rb->buf, rb->cap);
		rb->buf = nb;
		rb->cap = ncap;
	}
	memcpy(rb->buf + rb->buflen, s, n);
	rb->buflen += (uint32_t)n;
	return 0;
}

int audit_rb_encode(const struct audit_rb *rb, void **out, size_t *len)
{
	size_t n = ARD_HDR + rb->buflen;
	uint8_t *p = sp_zalloc(rb->alloc, n, 4);
	if (!p)
		return -ENOMEM;
	struct audit_rd_hdr h;
	h.flags = rb->flags;
	h.action = rb->action;
	h.field_count = rb->field_count;
	memcpy(h.mask, rb->mask, sizeof(h.mask));
	memcpy(h.fields, rb->fields, sizeof(h.fields));
	memcpy(h.values, rb->values, sizeof(h.values));
	memcpy(h.fieldflags, rb->fieldflags, sizeof(h.fieldflags));
	h.buflen = rb->buflen;
	memcpy(p, &h, sizeof(h));
	if (rb->buflen)
		memcpy(p + ARD_HDR, rb->buf, rb->buflen);
	*out = p;
	*len = n;
	return 0;
}

/* strtoul/strtol(v, NULL, 0) truncated to 32 bits, as libaudit stores them. */
static uint32_t num_ul(const char *v)
{
	return (uint32_t)strtoul(v, NULL, 0);
}

static uint32_t num_l(const char *v)
{
	return (uint32_t)strtol(v, NULL, 0);
}

static int digit(char c)
{
	return isdigit((unsigned char)c);
}

static int neg_digit(const char *v)
{
	return v[0] == '-' && digit(v[1]);
}

int audit_arch_value(const struct audit_pctx *pc, const char *v, uint32_t *elf)
{
	if (digit(v[0])) {
		errno = 0;
		unsigned long x = strtoul(v, NULL, 0);
		if (errno || x > 0xffffffffu || audit_mach_from_elf((uint32_t)x) < 0)
			return -5;
		*elf = (uint32_t)x;
		return 0;
	}
	/* audit_determine_machine() then audit_machine_to_elf() */
	int b64 = !strcasecmp(v, "b64"), b32 = !strcasecmp(v, "b32");
	int m = (b64 || b32) ? pc->host_mach : audit_mach_from_name(v);
	if (m < 0)
		return -5;	/* -4 "machine type not found" folds into elf 0 -> -5 in libaudit */
	if (b32) {
		if (m == AUDIT_MACH_X86_64)
			m = AUDIT_MACH_X86;
		else if (m == AUDIT_MACH_PPC64)
			m = AUDIT_MACH_PPC;
		else if (m == AUDIT_MACH_S390X)
			m = AUDIT_MACH_S390;
		else if (m == AUDIT_MACH_AARCH64)
			m = AUDIT_MACH_ARM;
	}
	if (b64 && (m == AUDIT_MACH_X86 || m == AUDIT_MACH_PPC || m == AUDIT_MACH_S390 ||
		    m == AUDIT_MACH_ARM))
		return -5;	/* -6, again seen by the caller as elf 0 */
	*elf = audit_mach_to_elf(m);
	return *elf ? 0 : -5;
}

int audit_syscall_add(struct audit_lstate *ls, uint32_t *mask, const char *name)
{
	if (!strcmp(name, "all")) {
		for (unsigned i = 0; i < 64; i++)
			mask[i] = 0xffffffffu;
		return 0;
	}
	int m = ls->elf ? audit_mach_from_elf(ls->elf) : ls->pc->host_mach;
	if (m < 0)
		return -2;
	long nr = audit_sc_by_name(m, name);
	if (nr < 0 && digit(name[0]))
		nr = strtol(name, NULL, 0);
	if (nr < 0 || nr >= 2048)
		return -1;
	mask[nr / 32] |= 1u << (nr % 32);
	return 0;
}

/* libaudit's err_msgtab, word for word (trailing blanks included): `pos` says where the text
 * goes - 0 not shown, 1 before the message, 2 after it, 3 nothing printed at all. */
static const struct { int rc, pos; const char *msg; } errtab[] = {
	{ -1, 2, "-F missing operation for" },
	{ -2, 2, "-F unknown field:" },
	{ -3, 1, "must be before -S" },
	{ -4, 1, "machine type not found" },
	{ -5, 1, "elf mapping not found" },
	{ -6, 1, "requested bit level not supported by machine" },
	{ -7, 1, "can only be used with exit filter list" },
	{ -8, 2, "-F unknown message type -" },
	{ -9, 0, "msgtype field can only be used with exclude or user filter list" },
	{ -10, 0, "Failed upgrading rule" },
	{ -11, 0, "String value too long" },
	{ -12, 0, "Only msgtype, *uid, *gid, pid, and subj* fields can be used with exclude filter" },
	{ -13, 1, "only takes = or != operators" },
	{ -14, 0, "Permission can only contain  'rwxa'" },
	{ -15, 2, "-F unknown errno -" },
	{ -16, 2, "-F unknown file type - " },
	{ -17, 1, "can only be used with exit and entry filter list" },
	{ -19, 0, "Key field needs a watch, syscall or exe path given prior to it" },
	{ -20, 2, "-F missing value after operation for" },
	{ -21, 2, "-F value should be number for" },
	{ -22, 2, "-F missing field name before operator for" },
	{ -24, 2, "-C missing field name before operator for" },
	{ -25, 2, "-C missing value after operation for " },
	{ -26, 2, "-C unknown field:" },
	{ -27, 2, "-C unknown right hand value for comparison with:" },
	{ -28, 2, "Too many fields in rule:" },
	{ -29, 1, "only takes = operator" },
	{ -30, 2, "Field option not supported by kernel:" },
	{ -31, 1, "must be used with exclude, user, or exit filter" },
	{ -32, 0, "filter is missing from rule" },
	{ -33, 2, "-C incompatible comparison" },
	{ -34, 1, "field is not valid for the filter" },
	{ -35, 1, "filter is not supported by the kernel" },
	{ -36, 2, "file system type is unknown for field:" },
	{ -37, 2, "value is too large for field:" },
	/* libaudit prints these two itself, naming the value, and returns -38 (print nothing) */
	{ AUDIT_RC_NOUSER, 2, "Unknown user:" },
	{ AUDIT_RC_NOGROUP, 2, "Unknown group:" },
};

void audit_fieldpair_msg(const struct audit_lstate *ls, int rc, const char *text, char *buf,
			 size_t len)
{
	if ((rc == AUDIT_RC_NOUSER || rc == AUDIT_RC_NOGROUP) && ls->last_value)
		text = ls->last_value;
	for (size_t i = 0; i < sizeof(errtab) / sizeof(errtab[0]); i++) {
		if (errtab[i].rc != rc)
			continue;
		if (errtab[i].pos == 0)
			snprintf(buf, len, "%s", errtab[i].msg);
		else if (errtab[i].pos == 1)
			snprintf(buf, len, "%s %s", text, errtab[i].msg);
		else
			snprintf(buf, len, "%s %s", errtab[i].msg, text);
		return;
	}
	snprintf(buf, len, "invalid field '%s' (code %d)", text, rc);
}

/* Split "name OP value" in place at the first operator found, searching libaudit's order. */
static char *split_op(char *pair, uint32_t *op)
{
	static const struct { const char *s; uint32_t op; } ops[] = {
		{ "!=", SP_AUDIT_OP_NE }, { ">=", SP_AUDIT_OP_GE }, { "<=", SP_AUDIT_OP_LE },
		{ "&=", SP_AUDIT_OP_BITTEST }, { "=", SP_AUDIT_OP_EQ }, { ">", SP_AUDIT_OP_GT },
		{ "<", SP_AUDIT_OP_LT }, { "&", SP_AUDIT_OP_BITMASK },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		char *v = strstr(pair, ops[i].s);
		if (v) {
			size_t n = strlen(ops[i].s);
			memset(v, 0, n);
			*op = ops[i].op;
			return v + n;
		}
	}
	return NULL;
}

static int exclude_ok(int field)
{
	switch (field) {
	case AF_PID: case AF_UID: case AF_GID: case AF_LOGINUID: case AF_MSGTYPE:
	case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_SUBJ_SEN: case AF_SUBJ_CLR:
	case AF_EXE:
		return 1;
	default:
		return 0;
	}
}

/* The value of an id field: a number, -N, "unset" (uids only), else a name. */
static int fp_uid(const struct audit_lstate *ls, const char *v, uint32_t *val)
{
	if (digit(v[0]))
		*val = num_ul(v);
	else if (neg_digit(v))
		*val = num_l(v);
	else if (!strcmp(v, "unset"))
		*val = 0xffffffffu;
	else if (audit_env_uid(ls->pc->env, v, val))
		return AUDIT_RC_NOUSER;
	return 0;
}

static int fp_gid(const struct audit_lstate *ls, const char *v, uint32_t *val)
{
	if (digit(v[0]))
		*val = num_l(v);
	else if (audit_env_gid(ls->pc->env, v, val))
		return AUDIT_RC_NOGROUP;
	return 0;
}

/* exit: a number or an errno name (exit list only). */
static int fp_exit(int flags, const char *v, uint32_t *val)
{
	if (flags != AL_EXIT)
		return -7;
	if (digit(v[0]) || neg_digit(v)) {
		*val = num_l(v);
	} else {
		*val = (uint32_t)audit_errno_by_name(v);
		if (!*val)
			return -15;
	}
	return 0;
}

/* msgtype: a number or a record type name (user and exclude lists). */
static int fp_msgtype(int flags, const char *v, uint32_t *val)
{
	if (flags != AL_EXCLUDE && flags != AL_USER)
		return -9;
	if (digit(v[0])) {
		*val = num_l(v);
	} else {
		int t = audit_msgtype_by_name(v);
		if (t <= 0)
			return -8;
		*val = (uint32_t)t;
	}
	return 0;
}

/* The string fields: the text goes to buf[], the value is its length.  obj_*, path and dir
 * are exit-list fields; exe needs the kernel feature and = or !=; a key needs something to
 * key on before it. */
static int fp_string(struct audit_lstate *ls, int field, uint32_t op, int flags, const char *v,
		     uint32_t *val)
{
	uint32_t features = ls->pc->features;
	switch (field) {
	case AF_OBJ_USER: case AF_OBJ_ROLE: case AF_OBJ_TYPE: case AF_OBJ_LEV_LOW:
	case AF_OBJ_LEV_HIGH: case AF_WATCH: case AF_DIR:
		if (flags != AL_EXIT)
			return -7;
		if (field == AF_WATCH || field == AF_DIR)
			ls->perm_added = 1;
		break;
	}
	if (field == AF_EXE) {
		if (!(features & AUDIT_FEAT_EXE))
			return -30;
		if (op != SP_AUDIT_OP_EQ && op != SP_AUDIT_OP_NE)
			return -13;
		ls->exe_added = 1;
	}
	if (field == AF_FILTERKEY &&
	    !(ls->syscall_added || ls->perm_added || ls->exe_added || ls->fs_added))
		return -19;
	size_t vlen = strlen(v);
	if (field == AF_FILTERKEY && vlen > SP_AUDIT_MAX_KEY_LEN)
		return -11;
	if (vlen > ARD_PATH_MAX)
		return -11;
	if (audit_rb_add_string(&ls->rb, v, vlen))
		return AUDIT_RC_NOMEM;
	*val = (uint32_t)vlen;
	return 0;
}

/* arch: before any -S, = or !=; sets the line's arch for the syscalls that follow. */
static int fp_arch(struct audit_lstate *ls, uint32_t op, const char *v, uint32_t *val)
{
	if (ls->syscall_added)
		return -3;
	if (op != SP_AUDIT_OP_EQ && op != SP_AUDIT_OP_NE)
		return -13;
	if (audit_arch_value(ls->pc, v, &ls->elf))
		return -5;
	*val = ls->elf;
	ls->arch_added = 1;
	return 0;
}

/* perm: up to four of "rwxa" (exit list, = only). */
static int fp_perm(int flags, uint32_t op, const char *v, uint32_t *val)
{
	if (flags != AL_EXIT)
		return -7;
	if (op != SP_AUDIT_OP_EQ)
		return -29;
	size_t len = strlen(v);
	if (len > 4)
		return -11;
	for (size_t k = 0; k < len; k++) {
		switch (tolower((unsigned char)v[k])) {
		case 'r': *val |= 4; break;
		case 'w': *val |= 2; break;
		case 'x': *val |= 1; break;
		case 'a': *val |= 8; break;
		default: return -14;
		}
	}
	return 0;
}

/* filetype: a file type name (exit list). */
static int fp_filetype(int flags, const char *v, uint32_t *val)
{
	if (flags != AL_EXIT)
		return -7;
	int t = audit_ftype_by_name(v);
	if (t < 0)
		return -16;
	*val = (uint32_t)t;
	return 0;
}

/* a0..a3: a number or -N. */
static int fp_arg(const char *v, uint32_t *val)
{
	if (digit(v[0]))
		*val = num_ul(v);
	else if (neg_digit(v))
		*val = num_l(v);
	else
		return -21;
	return 0;
}

/* sessionid: a number, -N or "unset" (any other text silently stays 0). */
static int fp_sessionid(uint32_t features, int flags, const char *v, uint32_t *val)
{
	if (!(features & AUDIT_FEAT_SESSIONID))
		return -30;
	if (flags != AL_EXCLUDE && flags != AL_USER && flags != AL_EXIT)
		return -31;
	if (digit(v[0]))
		*val = num_ul(v);
	else if (neg_digit(v))
		*val = num_l(v);
	else if (!strcmp(v, "unset"))
		*val = 0xffffffffu;
	return 0;
}

/* fstype: a magic number or a file system name (filesystem list, = or !=). */
static int fp_fstype(struct audit_lstate *ls, int flags, uint32_t op, const char *v, uint32_t *val)
{
	if (flags != AL_FS)
		return -34;
	if (op != SP_AUDIT_OP_EQ && op != SP_AUDIT_OP_NE)
		return -13;
	if (digit(v[0])) {
		*val = num_ul(v);
	} else {
		int64_t t = audit_fstype_by_name(v);
		*val = t < 0 ? 0xffffffffu : (uint32_t)t;
	}
	if (*val == 0xffffffffu)	/* libaudit's "not found" value, also when typed */
		return -36;
	ls->fs_added = 1;
	return 0;
}

/* Every other field: a number; devmajor, devminor, inode and success on the exit list only,
 * inode with = or !=, ppid on the exit list. */
static int fp_number(int field, int flags, uint32_t op, const char *v, uint32_t *val)
{
	if ((field == AF_DEVMAJOR || field == AF_DEVMINOR || field == AF_INODE ||
	     field == AF_SUCCESS) && flags != AL_EXIT)
		return -7;
	if (field == AF_INODE && op != SP_AUDIT_OP_EQ && op != SP_AUDIT_OP_NE)
		return -13;
	if (field == AF_PPID && flags != AL_EXIT)
		return -7;
	if (!digit(v[0]))
		return -21;
	*val = field == AF_INODE ? num_ul(v) : num_l(v);
	return 0;
}

/* The value of "field OP v" on list `flags`, as libaudit's switch on the field computes it. */
static int fp_value(struct audit_lstate *ls, int field, uint32_t op, int flags, const char *v,
		    uint32_t *val)
{
	switch (field) {
	case AF_UID: case AF_EUID: case AF_SUID: case AF_FSUID: case AF_LOGINUID: case AF_OBJ_UID:
		return fp_uid(ls, v, val);
	case AF_GID: case AF_EGID: case AF_SGID: case AF_FSGID: case AF_OBJ_GID:
		return fp_gid(ls, v, val);
	case AF_EXIT:
		return fp_exit(flags, v, val);
	case AF_MSGTYPE:
		return fp_msgtype(flags, v, val);
	case AF_OBJ_USER: case AF_OBJ_ROLE: case AF_OBJ_TYPE: case AF_OBJ_LEV_LOW:
	case AF_OBJ_LEV_HIGH: case AF_WATCH: case AF_DIR:
	case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_SUBJ_SEN: case AF_SUBJ_CLR:
	case AF_FILTERKEY: case AF_EXE:
		return fp_string(ls, field, op, flags, v, val);
	case AF_ARCH:
		return fp_arch(ls, op, v, val);
	case AF_PERM:
		return fp_perm(flags, op, v, val);
	case AF_FILETYPE:
		return fp_filetype(flags, v, val);
	case AF_ARG0: case AF_ARG1: case AF_ARG2: case AF_ARG3:
		return fp_arg(v, val);
	case AF_SESSIONID:
		return fp_sessionid(ls->pc->features, flags, v, val);
	case AF_FSTYPE:
		return fp_fstype(ls, flags, op, v, val);
	case AF_SADDR_FAM:
		*val = (uint32_t)strtoul(v, NULL, 0);	/* truncated first, then checked */
		return *val >= 46 ? -37 : 0;
	default:
		return fp_number(field, flags, op, v, val);
	}
}

/* The lists' own limits, checked before the value: the exclude list takes only a few fields
 * (only msgtype without EXCLUDE_EXTEND), the filesystem list needs FILTER_FS. */
static int list_refusal(int field, int flags, uint32_t features)
{
	if (flags == AL_EXCLUDE && !(features & AUDIT_FEAT_EXCL_EXT) && field != AF_MSGTYPE)
		return -30;
	if (flags == AL_EXCLUDE && (features & AUDIT_FEAT_EXCL_EXT) && !exclude_ok(field))
		return -12;
	if (flags == AL_FS && !(features & AUDIT_FEAT_FS))
		return -35;
	return 0;
}

int audit_fieldpair(struct audit_lstate *ls, char *pair, int flags)
{
	struct audit_rb *rb = &ls->rb;
	uint32_t features = ls->pc->features;
	uint32_t op = 0;

	if (rb->field_count >= 63)
		return -28;
	char *v = split_op(pair, &op);
	if (!v)
		return -1;
	if (!*pair)
		return -22;
	if (!*v)
		return -20;
	ls->last_value = v;
	int field = audit_field_by_name(pair);
	if (field < 0)
		return -2;
	int rc = list_refusal(field, flags, features);
	if (rc)
		return rc;
	uint32_t i = rb->field_count, val = 0;
	rc = fp_value(ls, field, op, flags, v, &val);
	if (rc)
		return rc;
	rb->fields[i] = (uint32_t)field;
	rb->fieldflags[i] = op;
	rb->values[i] = val;
	rb->field_count++;
	return 0;
}

int audit_fieldcmp(struct audit_lstate *ls, char *pair, int flags)
{
	struct audit_rb *rb = &ls->rb;
	uint32_t op = 0;
	if (rb->field_count >= 63)
		return -28;
	char *v = NULL;
	/* only = and != exist for comparisons */
	if ((v = strstr(pair, "!="))) {
		v[0] = v[1] = 0;
		v += 2;
		op = SP_AUDIT_OP_NE;
	} else if ((v = strstr(pair, "="))) {
		*v++ = 0;
		op = SP_AUDIT_OP_EQ;
	} else {
		return -13;	/* any other operator, or none */
	}
	if (!*pair)
		return -24;
	if (!*v)
		return -25;
	int f1 = audit_field_by_name(pair), f2;
	if (f1 < 0)
		return -26;
	if ((f2 = audit_field_by_name(v)) < 0)
		return -27;
	if (flags != AL_EXIT)
		return -7;
	int c = audit_compare_value(f1, f2);
	if (c < 0)
		return -33;
	uint32_t i = rb->field_count++;
	rb->fields[i] = AF_FIELD_COMPARE;
	rb->fieldflags[i] = op;
	rb->values[i] = (uint32_t)c;
	return 0;
}
