/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_int.h - the one vocabulary of the audit part, shared by lang/, filter/, log/ and tools/:
 * field, list, action and operator ids (the numbers of <linux/audit.h>, kept local so no part
 * needs kernel headers) and the layout of struct audit_rule_data, the rule blob the kernel and
 * auditctl exchange.  Not installed.
 *
 * Invariants: every id equals its <linux/audit.h> value (a test compares them with libaudit's
 * headers); struct audit_rd_hdr has no padding and is SP_AUDIT_RULE_HDR_SIZE bytes, so
 * offsetof() on it gives the blob offsets the kernel reads.
 */
#ifndef SP_AUDIT_INT_H
#define SP_AUDIT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "secpath/audit.h"

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

/* The kernel's operator enum (audit_to_op order); the wire values are SP_AUDIT_OP_*. */
enum { OP_EQ = 0, OP_NE, OP_BITMASK, OP_BITTEST, OP_LT, OP_GT, OP_LE, OP_GE, OP_BAD };

/* struct audit_rule_data without its trailing buf[]. */
#define ARD_MAX_FIELDS 64	/* AUDIT_MAX_FIELDS */
#define ARD_MASK_WORDS 64	/* AUDIT_BITMASK_SIZE */
#define ARD_MAX_FIELD_COMPARE 25	/* AUDIT_MAX_FIELD_COMPARE of kernel 6.1 */
#define ARD_AF_MAX 46u		/* AF_MAX (address families) of kernel 6.1 */
#define ARD_PATH_MAX 4096u	/* PATH_MAX: the longest path or exe string */
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
_Static_assert(sizeof(struct audit_rd_hdr) == SP_AUDIT_RULE_HDR_SIZE,
	       "struct audit_rule_data header size");

#endif
