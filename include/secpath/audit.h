/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit.h - auditctl's rule language and the kernel's binary rule format (struct audit_rule_data).
 *
 * Text -> blob: sp_audit_ruleset_parse() reads a rules file exactly as auditctl 3.0.9 `-R` does
 * (line splitting, escapes, option loop, every field type) and produces, per line, the exact bytes
 * auditctl would send (AUDIT_ADD_RULE / AUDIT_DEL_RULE payloads) or a typed control record.  All
 * host inputs are options: machine, kernel feature bitmap, user/group names, "is this -w path a
 * directory", so output is deterministic; with NULL options the live host is asked.
 *
 * Blob -> rule -> text: sp_audit_rule_decode() validates a blob the way the kernel's
 * audit_data_to_entry() does (counts, buflen vs size, string lengths; errors with byte offsets,
 * never an over-read); sp_audit_rule_format() prints canonical `auditctl -l`-style text that
 * parses back to the same bytes.
 *
 * Blobs are host byte order, sizeof(struct audit_rule_data) == 1040 plus buflen string bytes.
 */
#ifndef SECPATH_AUDIT_H
#define SECPATH_AUDIT_H

#include "secpath.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_AUDIT_RULE_HDR_SIZE	1040u	/* sizeof(struct audit_rule_data) without buf[] */
#define SP_AUDIT_MAX_FIELDS	64u
#define SP_AUDIT_MASK_WORDS	64u
#ifndef SP_AUDIT_MAX_KEY_LEN
#define SP_AUDIT_MAX_KEY_LEN	256u	/* also in audit_filter.h: the one key limit */
#endif
#define SP_AUDIT_FEATURES_6_1	0x7fu	/* every AUDIT_FEATURE_BITMAP_* bit of kernel 6.1 */

/* Parse options (libbpf-style: set sz = sizeof(struct sp_audit_parse_opts); NULL = defaults). */
struct sp_audit_parse_opts {
	size_t sz;
	const char *machine;		/* "x86_64", "i686", "aarch64", ...; NULL = uname -m */
	const char *passwd_file;	/* user names from this passwd(5) file; NULL = NSS */
	const char *group_file;		/* group names from this group(5) file; NULL = NSS */
	const char *dirs_file;		/* -w paths that are directories, one per line ('#' comments,
					 * trailing '/' ignored); NULL = stat() the live filesystem */
	uint32_t features;		/* kernel audit feature bitmap, used if features_given */
	int features_given;		/* 0: assume a current kernel (SP_AUDIT_FEATURES_6_1) */
	size_t max_errors;		/* stop reporting after this many failing lines (0 = 100);
					 * later lines are still parsed */
	const struct sp_allocator *alloc; /* NULL = libc */
	unsigned flags;			/* SP_AUDIT_PARSE_* */
};

/* Parse flags. */
#define SP_AUDIT_PARSE_KERNEL	0x1u	/* also report, as an error at the offending field's
					 * columns, every rule the kernel's audit_data_to_entry would
					 * refuse (EINVAL: an invalid uid, an operator a field does not
					 * take...); auditctl itself sends them.  The item stays in the
					 * set, its kernel_err set. */
#define SP_AUDIT_PARSE_LINT	0x2u	/* also warn (auditctl accepts them) about a NUL byte, a
					 * carriage return, a tab or a UTF-8 byte-order mark in a line,
					 * a value cut to 32 bits, and fields no event can satisfy
					 * together (auid>=1000 -F auid<=999) */

struct sp_audit_ruleset;	/* a parsed file: ordered items, owns the blobs and control texts */

enum sp_audit_item_kind { SP_AUDIT_ITEM_ADD, SP_AUDIT_ITEM_DEL, SP_AUDIT_ITEM_CTRL };

struct sp_audit_item {
	enum sp_audit_item_kind kind;
	uint32_t line;			/* 1-based physical line of the source */
	const void *blob;		/* ADD/DEL: struct audit_rule_data bytes (owned by the set) */
	size_t blob_len;		/* 1040 + buflen */
	const char *ctrl;		/* CTRL: canonical option text ("-b 8192", "-D", "-e 2", "-i") */
	int kernel_err;			/* with SP_AUDIT_PARSE_KERNEL: -errno the kernel would refuse
					 * this ADD/DEL with (reported), else 0 */
};

/*
 * Parse a whole rules file (`text` need not be NUL-terminated).  `file` names the input in
 * diagnostics (borrowed: must outlive d).  Lines auditctl rejects become errors in d (line:col,
 * every failing line up to the limit, parsing continues); auditctl's warnings become warnings.
 * Returns 0 even when lines had errors; -EINVAL for bad arguments, -ENOMEM, or -errno reading
 * the passwd/group/dirs files.  *out must be freed with sp_audit_ruleset_free().
 */
SP_API int sp_audit_ruleset_parse(const char *text, size_t len, const char *file,
				  const struct sp_audit_parse_opts *o, struct sp_audit_ruleset **out,
				  struct sp_diags *d);
/*
 * A set from the output of `secpath audit compile --format tsv` (LINE<TAB>ADD|DEL<TAB>hex,
 * LINE<TAB>CTRL<TAB>text; ERR and WARN lines are auditctl's verdicts and are passed over, '#'
 * lines are comments): the goldens' format.  Items keep the source line numbers of the TSV's
 * first column.  A line that is not one, or a blob that does not decode, is an error at its
 * columns (the other lines are still read).  Returns 0, -EINVAL, -ENOMEM.
 */
SP_API int sp_audit_ruleset_parse_tsv(const char *text, size_t len, const char *file,
				      struct sp_audit_ruleset **out, struct sp_diags *d);
SP_API size_t sp_audit_ruleset_count(const struct sp_audit_ruleset *rs);
/* Item i (0-based).  Returns 0 or -ERANGE. */
SP_API int sp_audit_ruleset_item(const struct sp_audit_ruleset *rs, size_t i, struct sp_audit_item *it);
SP_API void sp_audit_ruleset_free(struct sp_audit_ruleset *rs);

/* ---- decoded rules ---- */

/* Wire operator codes (fieldflags) of <linux/audit.h>. */
enum sp_audit_op {
	SP_AUDIT_OP_BITMASK = 0x08000000,
	SP_AUDIT_OP_LT = 0x10000000,
	SP_AUDIT_OP_GT = 0x20000000,
	SP_AUDIT_OP_NE = 0x30000000,
	SP_AUDIT_OP_EQ = 0x40000000,
	SP_AUDIT_OP_BITTEST = 0x48000000,
	SP_AUDIT_OP_LE = 0x50000000,
	SP_AUDIT_OP_GE = 0x60000000,
};

struct sp_audit_field {
	uint32_t id;			/* AUDIT_* field number (uid 1, arch 11, key 210, ...) */
	uint32_t op;			/* enum sp_audit_op */
	uint32_t value;			/* number, or the string length for string fields */
	const char *str;		/* string fields: points into the decoded blob (no NUL) */
};

struct sp_audit_rule {
	uint32_t flags;			/* list | 0x10 (prepend) */
	uint32_t list;			/* flags & 7: user 0, task 1, exit 4, exclude 5, filesystem 6 */
	uint32_t action;		/* 0 never, 2 always */
	uint32_t field_count;
	uint32_t buflen;
	uint32_t mask[SP_AUDIT_MASK_WORDS];
	struct sp_audit_field fields[SP_AUDIT_MAX_FIELDS];
};

/* Decode flags. */
#define SP_AUDIT_DECODE_KERNEL	0x1u	/* also apply the kernel's checks, as the engines do when they
					 * load a rule (audit_data_to_entry: operators per field, list
					 * restrictions, value ranges, unknown fields, absolute paths,
					 * one path/dir/inode= field, one key of <= 256 bytes, one exe) */

/*
 * Decode and validate a blob of `len` bytes.  Strings in *r point into `blob` (keep it alive).
 * Errors are reported in d (may be NULL) as byte offsets under `file`.  Returns 0, or -EINVAL
 * (malformed: short header, field_count > 64, buflen beyond the blob, string length 0 or beyond
 * buflen, unknown list/action/operator...), -ENAMETOOLONG (a string longer than PATH_MAX).
 */
SP_API int sp_audit_rule_decode(const void *blob, size_t len, unsigned flags, struct sp_audit_rule *r,
				struct sp_diags *d, const char *file);
/*
 * The size of the first rule of a stream of concatenated blobs (the header plus its buflen), or
 * `avail` when the header is cut or claims more bytes than there are: decoding that much then
 * reports the damage at its offset.
 */
SP_API size_t sp_audit_rule_blob_size(const void *blob, size_t avail);
/*
 * Encode *r into buf (capacity cap).  *out_len gets 1040 + buflen.  Returns 0, -ENOSPC (buf too
 * small; *out_len still set), -EINVAL (field_count > 64).
 */
SP_API int sp_audit_rule_encode(const struct sp_audit_rule *r, void *buf, size_t cap, size_t *out_len);
/*
 * Canonical auditctl-style text of a rule ("-a always,exit -F arch=b64 -S openat -F key=k1"),
 * NUL-terminated, snprintf semantics (returns the length needed).  `machine` resolves b32/b64 and
 * syscall names (NULL = host).  `kind` chooses -a (ADD) or -d (DEL); prepend rules print -A.
 * Parsing the text back with the same machine yields the same blob for any blob auditctl emits.
 */
SP_API int sp_audit_rule_format(const struct sp_audit_rule *r, enum sp_audit_item_kind kind,
				const char *machine, char *buf, size_t len);

/* ---- lookups ---- */

/* Syscall number of `name` (case-insensitive) for `machine` (NULL = host): >= 0, or -ENOENT
 * (unknown name), -EINVAL (machine unknown or without a table). */
SP_API int sp_audit_syscall_lookup(const char *machine, const char *name);
/* libaudit's name of syscall nr on machine, or NULL. */
SP_API const char *sp_audit_syscall_name(const char *machine, int nr);
/* AUDIT_ARCH_* value of a machine name ("x86_64" -> 0xc000003e) or of "b32"/"b64" relative to
 * `host` (NULL = uname).  Returns 0 or -EINVAL. */
SP_API int sp_audit_arch_lookup(const char *host, const char *name, uint32_t *arch);
/* Canonical machine name of an AUDIT_ARCH_* value ("i386", "x86_64"), or NULL. */
SP_API const char *sp_audit_arch_name(uint32_t arch);
/* Field name of an AUDIT_* field id ("auid" for 9), or NULL; and the reverse (-ENOENT). */
SP_API const char *sp_audit_field_name(uint32_t id);
SP_API int sp_audit_field_lookup(const char *name);
/* Record type name of a number ("SYSCALL" for 1300) or NULL; and the reverse (-ENOENT). */
SP_API const char *sp_audit_msgtype_name(uint32_t type);
SP_API int sp_audit_msgtype_lookup(const char *name);
/* Errno name ("EACCES" for 13) or NULL; and the reverse, accepting an optional '-' (-ENOENT). */
SP_API const char *sp_audit_errno_name(int err);
SP_API int sp_audit_errno_lookup(const char *name, int *err);
/* Operator text ("!=") of a wire operator, or NULL. */
SP_API const char *sp_audit_op_text(uint32_t op);

#ifdef __cplusplus
}
#endif

#include "audit_filter.h"
#include "audit_names.h"

#endif
