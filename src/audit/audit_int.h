/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_int.h - the one vocabulary of the audit part, shared by lang/, filter/, log/ and tools/:
 * field, list, action and operator ids (the numbers of <linux/audit.h>, kept local so no part
 * needs kernel headers), the layout of struct audit_rule_data, the rule blob the kernel and
 * auditctl exchange, and the one reading of that blob in the kernel's order (blob.c).  Not
 * installed.  Below lang/ in the layering: nothing here includes a part's public header.
 *
 * Invariants: every id equals its <linux/audit.h> value (a test compares them with libaudit's
 * headers); struct audit_rd_hdr has no padding and is SP_AUDIT_RULE_HDR_SIZE bytes (checked in
 * lang/lang_int.h, which sees both), so offsetof() on it gives the blob offsets the kernel reads.
 */
#ifndef SP_AUDIT_INT_H
#define SP_AUDIT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "secpath/secpath.h"

/* Field ids (AUDIT_* of <linux/audit.h>). */
enum {
	AF_PID = 0, AF_UID = 1, AF_EUID = 2, AF_SUID = 3, AF_FSUID = 4, AF_GID = 5, AF_EGID = 6,
	AF_SGID = 7, AF_FSGID = 8, AF_LOGINUID = 9, AF_PERS = 10, AF_ARCH = 11, AF_MSGTYPE = 12,
	AF_SUBJ_USER = 13, AF_SUBJ_ROLE = 14, AF_SUBJ_TYPE = 15, AF_SUBJ_SEN = 16, AF_SUBJ_CLR = 17,
	AF_PPID = 18, AF_OBJ_USER = 19, AF_OBJ_ROLE = 20, AF_OBJ_TYPE = 21, AF_OBJ_LEV_LOW = 22,
	AF_OBJ_LEV_HIGH = 23, AF_LOGINUID_SET = 24, AF_SESSIONID = 25, AF_FSTYPE = 26,
	AF_DEVMAJOR = 100, AF_DEVMINOR = 101, AF_INODE = 102, AF_EXIT = 103, AF_SUCCESS = 104,
	AF_WATCH = 105, AF_PERM = 106, AF_DIR = 107, AF_FILETYPE = 108, AF_OBJ_UID = 109,
	AF_OBJ_GID = 110, AF_FIELD_COMPARE = 111, AF_EXE = 112, AF_SADDR_FAM = 113,
	AF_ARG0 = 200, AF_ARG1 = 201, AF_ARG2 = 202, AF_ARG3 = 203, AF_FILTERKEY = 210,
};

/* Filter lists (AUDIT_FILTER_*); AL_PREPEND is the flag of -A rules. */
enum {
	AL_USER = 0, AL_TASK = 1, AL_ENTRY = 2, AL_WATCH = 3, AL_EXIT = 4, AL_EXCLUDE = 5,
	AL_FS = 6, AL_URING = 7, AL_NR = 8, AL_PREPEND = 0x10,
};

/* Actions (AUDIT_NEVER, AUDIT_POSSIBLE, AUDIT_ALWAYS). */
enum { AA_NEVER = 0, AA_POSSIBLE = 1, AA_ALWAYS = 2 };

/* The kernel's operator enum (audit_to_op order); the wire values are ARD_OP_* (AUDIT_EQUAL...,
 * the values of enum sp_audit_op); audit_to_op() maps one to the other. */
enum { OP_EQ = 0, OP_NE, OP_BITMASK, OP_BITTEST, OP_LT, OP_GT, OP_LE, OP_GE, OP_BAD };
#define ARD_OP_BITMASK 0x08000000u
#define ARD_OP_LT 0x10000000u
#define ARD_OP_GT 0x20000000u
#define ARD_OP_NE 0x30000000u
#define ARD_OP_EQ 0x40000000u
#define ARD_OP_BITTEST 0x48000000u
#define ARD_OP_LE 0x50000000u
#define ARD_OP_GE 0x60000000u

/* struct audit_rule_data without its trailing buf[]. */
#define ARD_MAX_FIELDS 64	/* AUDIT_MAX_FIELDS */
#define ARD_MASK_WORDS 64	/* AUDIT_BITMASK_SIZE */
#define ARD_MAX_FIELD_COMPARE 25	/* AUDIT_MAX_FIELD_COMPARE of kernel 6.1 */
#define ARD_AF_MAX 46u		/* AF_MAX (address families) of kernel 6.1 */
#define ARD_PATH_MAX 4096u	/* PATH_MAX: the longest path or exe string */
#define ARD_MAX_KEY_LEN 256u	/* AUDIT_MAX_KEY_LEN */
#define ARD_ID_UNSET 0xffffffffu	/* AUDIT_UID_UNSET: (uid_t)-1, never a valid id */
struct audit_rd_hdr {
	uint32_t flags;			/* list, with AL_PREPEND */
	uint32_t action;
	uint32_t field_count;
	uint32_t mask[ARD_MASK_WORDS];	/* syscall bitmap */
	uint32_t fields[ARD_MAX_FIELDS];
	uint32_t values[ARD_MAX_FIELDS];
	uint32_t fieldflags[ARD_MAX_FIELDS];	/* wire operators */
	uint32_t buflen;		/* string bytes after the header */
};
#define ARD_HDR ((uint32_t)sizeof(struct audit_rd_hdr))
#define ARD_OFF_FIELDS ((uint32_t)offsetof(struct audit_rd_hdr, fields))
#define ARD_OFF_VALUES ((uint32_t)offsetof(struct audit_rd_hdr, values))
#define ARD_OFF_FIELDFLAGS ((uint32_t)offsetof(struct audit_rd_hdr, fieldflags))
#define ARD_OFF_BUFLEN ((uint32_t)offsetof(struct audit_rd_hdr, buflen))

/* ---- field classes (the case lists of kernel/auditfilter.c) ---- */

/* The LSM label fields: a string the security module interprets. */
static inline int audit_field_is_lsm(uint32_t t)
{
	return (t >= AF_SUBJ_USER && t <= AF_SUBJ_CLR) || (t >= AF_OBJ_USER && t <= AF_OBJ_LEV_HIGH);
}

/* The fields whose value is the length of a string in buf[] (audit_unpack_string callers). */
static inline int audit_field_is_string(uint32_t t)
{
	return audit_field_is_lsm(t) || t == AF_WATCH || t == AF_DIR || t == AF_FILTERKEY ||
	       t == AF_EXE;
}

/* ---- reading a blob in the kernel's order (blob.c) ---- */

/* audit_to_op(): the kernel operator of a wire operator, OP_BAD if none. */
uint32_t audit_to_op(uint32_t wire);
/* The text of a kernel operator ("=", "&="...), NULL for OP_BAD. */
const char *audit_op_str(uint32_t op);

/*
 * One walk over a blob: audit_blob_begin() checks the header (audit_to_entry_common), then
 * audit_blob_field() each field in order (the loop body of audit_data_to_entry).  The walk keeps
 * what the kernel's later checks depend on: the string bytes consumed, and which of inode=,
 * watch, tree, key and exe fields came before.
 */
struct audit_blob {
	const uint8_t *d;		/* the blob; len >= ARD_HDR once begun */
	size_t len;
	struct sp_diags *diag;		/* where refusals are reported (NULL: not reported) */
	const char *file;
	uint32_t flags, listnr, action, field_count;
	size_t remain;			/* string bytes left: len - ARD_HDR - consumed (the kernel's) */
	int inode_f;			/* index of the inode field, or -1 */
	uint8_t watch, tree, key, exe;	/* a field of that kind came before */
};

/* One field as the kernel keeps it. */
struct audit_blob_field {
	uint32_t id;			/* as in the blob */
	uint32_t type;			/* id, or AF_LOGINUID_SET for a legacy "auid=-1" */
	uint32_t op;			/* OP_* */
	uint32_t val;			/* the value (0 for the legacy form); a string's length */
	const char *str;		/* string fields: val bytes inside the blob, not NUL-ended */
	int legacy;			/* AUDIT_LOGINUID_LEGACY: "auid=-1" became loginuid_set=0 */
};

/* 0 or -EINVAL (short blob, unknown list, action AUDIT_POSSIBLE or unknown, > 64 fields). */
int audit_blob_begin(struct audit_blob *b, const void *blob, size_t len, struct sp_diags *d,
		     const char *file);
/* Field i (< field_count, in order): 0, -EINVAL or -ENAMETOOLONG (a string over PATH_MAX). */
int audit_blob_field(struct audit_blob *b, uint32_t i, struct audit_blob_field *f);
/* Report a refusal at byte offset off of the blob (nothing when d is NULL); returns code. */
int audit_blob_bad(struct sp_diags *d, const char *file, uint64_t off, int code, const char *fmt,
		   ...) __attribute__((format(printf, 5, 6)));

/* A 32-bit word of the blob (host order, as the kernel reads it); off + 4 <= the blob's size. */
static inline uint32_t audit_rd32(const void *blob, uint32_t off)
{
	uint32_t v;
	memcpy(&v, (const uint8_t *)blob + off, 4);
	return v;
}

#endif
