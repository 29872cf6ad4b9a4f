/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lang_int.h - internals of the audit rule language: lookup tables (generated and hand-written),
 * the machine model, and the helpers the lang/ files share.  Not installed.
 *
 * Invariants: every table is const and process-wide; generated tables (lang/syscall_tables.c,
 * lang/lookup_tables.c) are sorted by number then name; name lookups are case-insensitive like
 * libaudit's.
 */
#ifndef SP_AUDIT_LANG_INT_H
#define SP_AUDIT_LANG_INT_H

#include <stddef.h>
#include <stdint.h>

#include "secpath/audit.h"
#include "audit/audit_int.h"

/* audit_int.h's vocabulary and the public one are the same numbers. */
_Static_assert(sizeof(struct audit_rd_hdr) == SP_AUDIT_RULE_HDR_SIZE,
	       "struct audit_rule_data header size");
_Static_assert(ARD_MAX_FIELDS == SP_AUDIT_MAX_FIELDS && ARD_MAX_KEY_LEN == SP_AUDIT_MAX_KEY_LEN,
	       "field and key limits");
_Static_assert(ARD_OP_EQ == SP_AUDIT_OP_EQ && ARD_OP_NE == SP_AUDIT_OP_NE &&
	       ARD_OP_LT == SP_AUDIT_OP_LT && ARD_OP_GT == SP_AUDIT_OP_GT &&
	       ARD_OP_LE == SP_AUDIT_OP_LE && ARD_OP_GE == SP_AUDIT_OP_GE &&
	       ARD_OP_BITMASK == SP_AUDIT_OP_BITMASK && ARD_OP_BITTEST == SP_AUDIT_OP_BITTEST,
	       "wire operators");

struct audit_sc_ent {
	int nr;
	const char *name;
};

struct audit_name_ent {
	int num;
	const char *name;
};

/* Each table is sorted by number; <table>_byname lists its indices sorted by name (C locale). */
extern const struct audit_sc_ent audit_sc_x86_64[];
extern const size_t audit_sc_x86_64_n;
extern const uint16_t audit_sc_x86_64_byname[];
extern const struct audit_sc_ent audit_sc_i386[];
extern const size_t audit_sc_i386_n;
extern const uint16_t audit_sc_i386_byname[];
extern const struct audit_sc_ent audit_sc_aarch64[];
extern const size_t audit_sc_aarch64_n;
extern const uint16_t audit_sc_aarch64_byname[];
extern const struct audit_name_ent audit_errno_tab[];
extern const size_t audit_errno_tab_n;
extern const struct audit_name_ent audit_msgtype_tab[];
extern const size_t audit_msgtype_tab_n;

/* AUDIT_ARCH_* values libaudit 3.0.9 knows. */
#define AUDIT_ELF_I386		0x40000003u
#define AUDIT_ELF_X86_64	0xc000003eu
#define AUDIT_ELF_PPC64		0x80000015u
#define AUDIT_ELF_PPC64LE	0xc0000015u
#define AUDIT_ELF_PPC		0x00000014u
#define AUDIT_ELF_S390X		0x80000016u
#define AUDIT_ELF_S390		0x00000016u
#define AUDIT_ELF_AARCH64	0xc00000b7u
#define AUDIT_ELF_ARM		0x40000028u

/* libaudit's machine numbers (MACH_*), used as the internal machine identity. */
enum audit_mach {
	AUDIT_MACH_NONE = -1,
	AUDIT_MACH_X86 = 0,
	AUDIT_MACH_X86_64 = 1,
	AUDIT_MACH_PPC64 = 3,
	AUDIT_MACH_PPC = 4,
	AUDIT_MACH_S390X = 5,
	AUDIT_MACH_S390 = 6,
	AUDIT_MACH_ARM = 8,
	AUDIT_MACH_AARCH64 = 9,
	AUDIT_MACH_PPC64LE = 10,
};

/* Feature bits. */
#define AUDIT_FEAT_EXE		0x02u	/* AUDIT_FEATURE_BITMAP_EXECUTABLE_PATH */
#define AUDIT_FEAT_EXCL_EXT	0x04u	/* EXCLUDE_EXTEND */
#define AUDIT_FEAT_SESSIONID	0x10u	/* SESSIONID_FILTER */
#define AUDIT_FEAT_FS		0x08u	/* FILTER_FS */

/* Machine model. */
int audit_mach_from_name(const char *name);		/* AUDIT_MACH_* or -1 */
int audit_mach_from_elf(uint32_t elf);
uint32_t audit_mach_to_elf(int mach);			/* 0 if unknown */
const char *audit_mach_name(int mach);
int audit_mach_host(void);				/* uname -m, or -1 */
/* The syscall table of a machine (NULL if secpath has none). */
const struct audit_sc_ent *audit_sc_table(int mach, size_t *n);
int audit_sc_by_name(int mach, const char *name);	/* nr or -1 */
const char *audit_sc_by_nr(int mach, int nr);

int audit_field_by_name(const char *name);		/* id or -1 (case-insensitive) */
const char *audit_field_name(uint32_t id);
int audit_ftype_by_name(const char *name);		/* S_IF* or -1 */
const char *audit_ftype_name(uint32_t v);
int64_t audit_fstype_by_name(const char *name);		/* magic or -1 */
const char *audit_fstype_name(uint32_t v);
int audit_msgtype_by_name(const char *name);		/* > 0 or -1 */
const char *audit_msgtype_name(uint32_t v);
int audit_errno_by_name(const char *name);		/* > 0 or 0 */
const char *audit_errno_name(int e);
const char *audit_op_text(uint32_t op);		/* of a wire operator, NULL if none */
int audit_compare_value(int f1, int f2);		/* AUDIT_COMPARE_* or -1 */
int audit_compare_fields(uint32_t v, int *f1, int *f2);	/* reverse: 0 or -1 */
const char *audit_list_name(uint32_t list);

/* ---- rule building (lang/field.c, lang/parse.c) ---- */

#define AUDIT_LIST_UNSET 0x400

/* A rule under construction: the struct audit_rule_data fields plus a growable string buffer. */
struct audit_rb {
	uint32_t flags, action, field_count;
	uint32_t mask[64];
	uint32_t fields[64], values[64], fieldflags[64];
	uint32_t buflen;
	char *buf;			/* buflen bytes used, cap allocated */
	size_t cap;
	const struct sp_allocator *alloc;
};

struct audit_env;

/* Host answers for one parse: machine, features, user/group/dir lookups. */
struct audit_pctx {
	int host_mach;			/* AUDIT_MACH_* of opts->machine or uname; -1 unknown */
	uint32_t features;
	unsigned flags;			/* SP_AUDIT_PARSE_* */
	const struct audit_env *env;
};

/* Per-line state, reset for every line (auditctl's reset_vars). */
struct audit_lstate {
	struct audit_rb rb;
	const struct audit_pctx *pc;
	int add, del, action;
	int syscall_added, perm_added, exe_added, fs_added, arch_added, exclude, multiple;
	uint32_t elf;			/* _audit_elf: arch chosen on the line, 0 = none yet */
	char key[SP_AUDIT_MAX_KEY_LEN + 1];
	unsigned keylen;
	const char *last_value;		/* value text of the last -F (for messages) */
};

void audit_rb_init(struct audit_rb *rb, const struct sp_allocator *a);
void audit_rb_release(struct audit_rb *rb);
/* Serialize to struct audit_rule_data bytes; *out allocated through rb->alloc. */
int audit_rb_encode(const struct audit_rb *rb, void **out, size_t *len);
int audit_rb_add_string(struct audit_rb *rb, const char *s, size_t n);

/*
 * libaudit's audit_rule_fieldpair_data(): parse "name OP value" (cut in place) and append a field.
 * Returns 0 or libaudit's negative code (-1 no operator, -2 unknown field, ...);
 * audit_fieldpair_msg() renders a code, with the cut text auditctl passes, as
 * audit_number_to_errmsg() prints it (an unknown user or group as libaudit's own message).
 */
#define AUDIT_RC_NOMEM (-1000)	/* out of memory (libaudit's codes are small negatives) */
#define AUDIT_RC_NOUSER (-1001)	/* libaudit: "Unknown user: V", then -38 */
#define AUDIT_RC_NOGROUP (-1002)	/* libaudit: "Unknown group: V", then -38 */
int audit_fieldpair(struct audit_lstate *ls, char *pair, int flags);
void audit_fieldpair_msg(const struct audit_lstate *ls, int rc, const char *text, char *buf,
			 size_t len);
/* libaudit's audit_rule_interfield_comp_data() for -C. */
int audit_fieldcmp(struct audit_lstate *ls, char *pair, int flags);
/* audit_rule_syscallbyname_data(): 0, -1 unknown, -2 no machine. */
int audit_syscall_add(struct audit_lstate *ls, uint32_t *mask, const char *name);
/* The arch value of "b32", "x86_64", "0xc000003e"...; 0 or libaudit's code (-4/-5/-6). */
int audit_arch_value(const struct audit_pctx *pc, const char *v, uint32_t *elf);

/* Load the host inputs; a file that cannot be read is an error diagnostic naming it (then its
 * -errno), a passwd/group line that is not one a warning. */
int audit_env_load(struct audit_env **out, const struct sp_audit_parse_opts *o,
		   const struct sp_allocator *a, struct sp_diags *d);
void audit_env_free(struct audit_env *e);
int audit_env_uid(const struct audit_env *e, const char *name, uint32_t *id);
int audit_env_gid(const struct audit_env *e, const char *name, uint32_t *id);
int audit_env_is_dir(const struct audit_env *e, const char *path);

/* Append an item (copies blob/ctrl).  0 or -ENOMEM. */
/* The last item's kernel verdict (SP_AUDIT_PARSE_KERNEL). */
void audit_rs_set_kernel_err(struct sp_audit_ruleset *rs, int err);
int audit_rs_append(struct sp_audit_ruleset *rs, enum sp_audit_item_kind kind, uint32_t line,
		    const void *blob, size_t len, const char *ctrl);
/*
 * A rules text as auditctl -R reads it (lang/parse.c): auditctl's fgets() loop over its physical
 * lines, each handled as auditctl handles a line, into rs; diagnostics to d, those of failing
 * lines past the first max_err not kept.  The line buffers live for this call.  0 or -ENOMEM.
 */
int audit_parse_text(const struct audit_pctx *pc, const char *text, size_t len, const char *file,
		     size_t max_err, struct sp_audit_ruleset *rs, struct sp_diags *d,
		     const struct sp_allocator *a);

#endif
