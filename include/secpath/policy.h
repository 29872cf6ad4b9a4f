/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy.h - SELinux kernel binary policies: a bounded reader (versions 15..35, MLS and non-MLS),
 * three access-vector-table layouts behind one API, the kernel's TE access decision, ioctl
 * extended-permission decisions, new-object type computation, run-time booleans, and an AVC
 * (decision cache) that tolerates policy reloads from another thread (userspace RCU).
 *
 * Values follow the policy: types, classes, roles, users and booleans are 1-based (0 = none);
 * permission value v is bit v-1 of an access vector.  Decisions are TE-only: constraints (and so
 * all MLS rules), role_allow on transitions, typebounds and handle_unknown are not applied (the
 * allowed set is therefore a superset of the kernel's); the permissive flag is reported.
 */
#ifndef SECPATH_POLICY_H
#define SECPATH_POLICY_H

#include <stdio.h>

#include "secpath.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sp_policy;
struct sp_avc;

/* avtab layouts, chosen at load. */
enum sp_avtab_layout {
	SP_AVTAB_CHAINED = 0,	/* kernel: slot array, 24-byte nodes from a cache, sorted chains */
	SP_AVTAB_ARRAY = 1,	/* 2023 array patches: one node array, u32 links, cond sized by count */
	SP_AVTAB_FLAT = 2,	/* secpath: cache-line buckets, keys and data inline, one line per probe */
};
#define SP_AVTAB_NLAYOUTS 3
SP_API const char *sp_avtab_layout_name(enum sp_avtab_layout l);

/* avtab `specified` bits (on-disk values). */
#define SP_AVTAB_ALLOWED	0x0001
#define SP_AVTAB_AUDITALLOW	0x0002
#define SP_AVTAB_AUDITDENY	0x0004
#define SP_AVTAB_AV		0x0007
#define SP_AVTAB_TRANSITION	0x0010
#define SP_AVTAB_MEMBER		0x0020
#define SP_AVTAB_CHANGE		0x0040
#define SP_AVTAB_TYPE		0x0070
#define SP_AVTAB_XPERMS_ALLOWED	0x0100
#define SP_AVTAB_XPERMS_AUDITALLOW 0x0200
#define SP_AVTAB_XPERMS_DONTAUDIT 0x0400
#define SP_AVTAB_XPERMS		0x0700
#define SP_AVTAB_ENABLED	0x8000

struct sp_avtab_xperms {
	uint8_t kind;		/* 1 ioctl function, 2 ioctl driver, 3 nlmsg */
	uint8_t driver;
	uint32_t perms[8];
};

struct sp_avtab_entry {
	uint16_t source, target, tclass;
	uint16_t specified;	/* one kind bit; | SP_AVTAB_ENABLED for enabled conditional entries */
	uint32_t data;		/* permission mask (auditdeny stored inverted) or a type value */
	const struct sp_avtab_xperms *xperms;	/* xperm kinds only */
	uint32_t cond;		/* conditional entries: node index + 1; 0 = unconditional */
	int cond_list;		/* 1 = the node's true list, 0 = false list */
};

struct sp_policy_opts {
	size_t sz;			/* sizeof(struct sp_policy_opts) */
	enum sp_avtab_layout layout;
	const struct sp_allocator *alloc;	/* NULL = libc */
	struct sp_diags *diags;		/* errors with byte offsets (may be NULL) */
	const char *file;		/* name used in diagnostics */
};

/*
 * Read a kernel binary policy, plain or xz-compressed (decompressed in process by liblzma, as
 * xz -dc: concatenated streams and padding accepted, at most 1 GiB out).  Returns 0, -EINVAL
 * (malformed; a diagnostic names the section and byte offset, in the decompressed policy, or
 * "xz: ..." at the compressed offset where decoding stopped), -ENOTSUP (valid but unsupported:
 * version, XenFlask, module, xz options), -EFBIG (decompressed past 1 GiB), -ENOMEM (also when
 * a chained-layout policy finds no free slab cache for its nodes: each holds one, of the 127 the
 * slab pool has).
 */
SP_API int sp_policy_read(const void *buf, size_t len, const struct sp_policy_opts *o,
			  struct sp_policy **out);
/* Read from a file ("-" = standard input) as sp_policy_read reads a buffer. */
SP_API int sp_policy_read_file(const char *path, const struct sp_policy_opts *o,
			       struct sp_policy **out);
SP_API void sp_policy_free(struct sp_policy *p);
/*
 * The running policy's file, where setools looks when it is given none (libselinux's current
 * policy path, then its binary policy path by version): ROOT/sys/fs/selinux/policy when it
 * exists, else ROOT/etc/selinux/TYPE/policy/policy.V for V = 33 down to 15, TYPE the
 * SELINUXTYPE of ROOT/etc/selinux/config ("targeted" when unset).  root NULL or "" is "/".
 * The path goes to buf with snprintf's contract; returns its length, -ENOENT when no candidate
 * exists, -ENAMETOOLONG.
 */
SP_API int sp_policy_find_running(const char *root, char *buf, size_t len);

struct sp_policy_info {
	uint32_t version, config;	/* config: 1 MLS, 2 reject unknown, 4 allow unknown */
	int mls;
	enum sp_avtab_layout layout;
	uint32_t types_nprim, types, attributes, aliases, permissive, polcaps;
	uint32_t commons, classes, perms;
	uint32_t roles, users, bools, sensitivities, categories;
	uint32_t te_rules, cond_rules, cond_nodes, cond_enabled;
	uint32_t te_allow, te_auditallow, te_dontaudit, te_type_trans, te_type_change,
		te_type_member, te_xperms;
	uint32_t filename_keys, filename_rules, role_trans, role_allow, range_trans;
	uint32_t constraints, validatetrans, initial_sids, ocontexts, genfs;
	size_t te_bytes, cond_bytes;	/* avtab index memory for the chosen layout */
	size_t decide_bytes;		/* precomputed decision data (CSR lists, filters) */
	size_t total_bytes;		/* everything the sp_policy holds */
};
SP_API void sp_policy_get_info(const struct sp_policy *p, struct sp_policy_info *out);

/*
 * The counts seinfo (setools 4.4) prints for a binary policy, each as setools defines it (its
 * SELinuxPolicy *_count properties over libsepol's policydb), which is not sp_policy_info's:
 *   permissions    own permissions of every common and every class (inherited ones not again)
 *   sensitivities, categories  declarations, aliases not counted
 *   types          primary non-attribute types; attributes: attribute entries
 *   users, roles, booleans, classes  the symbol table's entries (records, not values)
 *   conditionals   conditional nodes (seinfo's "Cond. Expr.")
 *   allow ... dontauditxperm   te_avtab entries of the kind plus conditional entries of it (both
 *                  branches), type_trans also one per source type of each filename transition
 *   constrain / mlsconstrain (validatetrans / mlsvalidatetrans): constraints of every class,
 *                  the mls kind when an expression operand compares levels (l1, h2, ...)
 *   permissives    permissive primary types; polcaps: capability bits set
 *   defaults       default_user/role/type/range settings that are set, over every class
 *   typebounds     non-attribute type entries with a bound
 *   ocontexts      records of each kind; nodecon counts node and node6; genfscon every path
 * Returns 0 or -EINVAL (sz too small).
 */
struct sp_policy_counts {
	size_t sz;			/* sizeof(struct sp_policy_counts) */
	uint32_t classes, permissions, sensitivities, categories, types, attributes, users, roles,
		booleans, conditionals;
	uint32_t allow, auditallow, dontaudit, type_trans, type_change, type_member, allowxperm,
		auditallowxperm, dontauditxperm;
	uint32_t range_trans, role_allow, role_trans;
	uint32_t constrain, validatetrans, mlsconstrain, mlsvalidatetrans;
	uint32_t permissives, polcaps, defaults, typebounds;
	uint32_t initial_sids, fs_use, genfscon, portcon, netifcon, nodecon, ibpkeycon,
		ibendportcon;
};
SP_API int sp_policy_get_counts(const struct sp_policy *p, struct sp_policy_counts *out);

/*
 * seinfo's component listings (setools 4.4): fn gets every item of component c with its name,
 * its value (MLS symbols: setools sorts them by it; the rest by name) and, with expand, the
 * statement `seinfo -x` prints for it (else ""), which may span lines.  Items come in value
 * (or file) order; the caller sorts them as seinfo does.  Enumerators are in seinfo's output
 * order (what `seinfo --all` prints, its Xen components aside).
 * Types are primary non-attribute types, with their aliases and attributes; attributes list
 * their member types; permissive: the permissive types; sensitivities and categories: not the
 * aliases; users with their roles and, on MLS policies, their default level and range;
 * fs_use, genfscon, netifcon, nodecon (node and node6), portcon, ibpkeycon, ibendportcon
 * records, typebounds, default_* settings, constraints (constrain and mlsconstrain) and
 * validatetrans (and mlsvalidatetrans), each named by its statement (setools sorts them by
 * it; a constraint's expression in setools' infix form, its name sets sorted); initial SIDs
 * named by setools' table of SID numbers.
 * Returns 0, the first non-zero return of fn, -EINVAL (bad c, fn NULL) or -ENOMEM.
 */
enum sp_policy_component {
	SP_COMP_BOOLS, SP_COMP_CATEGORIES, SP_COMP_CLASSES, SP_COMP_COMMONS, SP_COMP_CONSTRAINTS,
	SP_COMP_DEFAULTS, SP_COMP_FS_USE, SP_COMP_GENFSCON, SP_COMP_IBENDPORTCON,
	SP_COMP_IBPKEYCON, SP_COMP_INITIALSIDS, SP_COMP_NETIFCON, SP_COMP_NODECON,
	SP_COMP_PERMISSIVE, SP_COMP_POLCAPS, SP_COMP_PORTCON, SP_COMP_ROLES,
	SP_COMP_SENSITIVITIES, SP_COMP_TYPEBOUNDS, SP_COMP_TYPES, SP_COMP_ATTRIBUTES,
	SP_COMP_USERS, SP_COMP_VALIDATETRANS,
};
#define SP_COMP_N 23
SP_API int sp_policy_component_foreach(const struct sp_policy *p, enum sp_policy_component c,
				       int expand,
				       int (*fn)(void *ud, const char *name, uint32_t value,
						 const char *statement),
				       void *ud);
/*
 * The items of component c that seinfo's NAME argument selects (name NULL: every item, as
 * sp_policy_component_foreach), with setools' criterion for each component:
 *   types, sensitivities, categories  the name or one of its aliases (setools' alias_deref);
 *   attributes, permissive, roles, users, booleans, classes, commons, polcaps, initial SIDs,
 *   netifcon (the interface), ibendportcon (the device)  the name;
 *   fs_use, genfscon  the file system;  typebounds  the bounded (child) type;
 *   constraints, validatetrans, defaults  the class (-ENOENT when the policy has none so named);
 *   portcon  "PORT" or "LOW-HIGH": records whose range holds it (-EINVAL when malformed);
 *   ibpkeycon  "PKEY" or "LOW-HIGH" in hexadecimal: records of that range (-EINVAL malformed);
 *   nodecon  "ADDR[/PREFIX]": records of that network (-EINVAL not a network, -EDOM host bits
 *   set).
 * An unknown name selects nothing.  Returns as sp_policy_component_foreach, and the errors above.
 */
SP_API int sp_policy_component_find(const struct sp_policy *p, enum sp_policy_component c,
				    const char *name, int expand,
				    int (*fn)(void *ud, const char *name, uint32_t value,
					      const char *statement),
				    void *ud);

/* Symbols.  *_name() returns NULL for values out of range or without a name. */
SP_API uint32_t sp_policy_type_count(const struct sp_policy *p);	/* nprim */
SP_API const char *sp_policy_type_name(const struct sp_policy *p, uint32_t type);
SP_API int sp_policy_type_is_attr(const struct sp_policy *p, uint32_t type);
SP_API uint32_t sp_policy_type_lookup(const struct sp_policy *p, const char *name); /* 0: none */
/* The type_attr_map row of `type` (the type itself and its attributes), sorted. */
SP_API size_t sp_policy_type_attrs(const struct sp_policy *p, uint32_t type, const uint32_t **v);
/* The reverse: types whose row holds `attr` (for an ordinary type: itself), sorted. */
SP_API size_t sp_policy_attr_types(const struct sp_policy *p, uint32_t attr, const uint32_t **v);
SP_API uint32_t sp_policy_class_count(const struct sp_policy *p);
SP_API const char *sp_policy_class_name(const struct sp_policy *p, uint32_t tclass);
SP_API uint32_t sp_policy_class_lookup(const struct sp_policy *p, const char *name);
/* Permission `bit` (0..31) of a class, including inherited common permissions. */
SP_API const char *sp_policy_perm_name(const struct sp_policy *p, uint32_t tclass, unsigned bit);
/* Returns the permission's bit + 1, or 0 if the class has no such permission. */
SP_API unsigned sp_policy_perm_lookup(const struct sp_policy *p, uint32_t tclass, const char *name);
SP_API uint32_t sp_policy_role_count(const struct sp_policy *p);
SP_API const char *sp_policy_role_name(const struct sp_policy *p, uint32_t role);
SP_API uint32_t sp_policy_user_count(const struct sp_policy *p);
SP_API const char *sp_policy_user_name(const struct sp_policy *p, uint32_t user);
SP_API uint32_t sp_policy_bool_count(const struct sp_policy *p);
SP_API const char *sp_policy_bool_name(const struct sp_policy *p, uint32_t b);
SP_API uint32_t sp_policy_bool_lookup(const struct sp_policy *p, const char *name);
SP_API int sp_policy_bool_get(const struct sp_policy *p, uint32_t b);
/*
 * Set boolean b and re-evaluate every conditional node (kernel security_set_bools semantics,
 * recomputing each node's state instead of trusting the file).  Not safe against concurrent
 * decisions on the same policy: use sp_avc_set_bool for that.  Returns 0 or -EINVAL/-ENOMEM.
 */
SP_API int sp_policy_bool_set(struct sp_policy *p, uint32_t b, int state);
/* "[ a && ! b ]"-style text of conditional node `cond` (1-based), sesearch's spelling. */
SP_API int sp_policy_cond_format(const struct sp_policy *p, uint32_t cond, char *buf, size_t len);
/*
 * The distinct booleans of conditional node `cond`'s expression, ascending: up to `max` go to
 * `out`; returns how many there are (0 for a bad node).
 */
SP_API size_t sp_policy_cond_bools(const struct sp_policy *p, uint32_t cond, uint32_t *out,
				   size_t max);
/* State of conditional node cond (1-based): 1 true, 0 false, -1 undefined expression. */
SP_API int sp_policy_cond_state(const struct sp_policy *p, uint32_t cond);

/*
 * avtab lookup: entries of table `cond` (0 te_avtab, 1 te_cond_avtab) whose key is (s, t, c) and
 * whose kind intersects `mask`.  Up to `max` entries go to `out`; returns the number matched.
 */
SP_API size_t sp_policy_avtab_lookup(const struct sp_policy *p, int cond, uint16_t s, uint16_t t,
				     uint16_t c, uint16_t mask, struct sp_avtab_entry *out,
				     size_t max);
/* avtab_search: the first matching entry's datum (xperm kinds: an index).  Returns 1 or 0. */
SP_API int sp_policy_avtab_search(const struct sp_policy *p, int cond, uint16_t s, uint16_t t,
				  uint16_t c, uint16_t mask, uint32_t *data);
SP_API size_t sp_policy_avtab_count(const struct sp_policy *p, int cond);
/*
 * The search of table `cond` for callers that search in a loop (the policy bench):
 * out->search(out->tab, s, t, c, mask, &data) answers as sp_policy_avtab_search(p, cond, ...),
 * with the table chosen once.  Valid until the policy is freed or, for cond = 1, a boolean of
 * it changes (sp_policy_bool_set rebuilds that table).
 */
struct sp_avtab;		/* one access vector table of a policy (opaque) */
struct sp_avtab_searcher {
	int (*search)(const struct sp_avtab *tab, uint16_t s, uint16_t t, uint16_t c,
		      uint16_t mask, uint32_t *data);
	const struct sp_avtab *tab;
};
SP_API void sp_policy_avtab_searcher(const struct sp_policy *p, int cond,
				     struct sp_avtab_searcher *out);
/* The kernel's avtab_hash of a key (MurmurHash3 mixing; a table of 2^k slots masks it). */
SP_API uint32_t sp_avtab_hash(uint16_t s, uint16_t t, uint16_t c);
/* Visit every entry of a table (te_avtab in layout order, cond entries in file order). */
SP_API int sp_policy_avtab_foreach(const struct sp_policy *p, int cond,
				   int (*fn)(void *ud, const struct sp_avtab_entry *e), void *ud);

/* Filename transitions (expanded to one record per source type). */
struct sp_filename_trans {
	uint32_t stype, ttype, tclass, otype;
	const char *name;
};
SP_API size_t sp_policy_filename_trans_count(const struct sp_policy *p);
SP_API const struct sp_filename_trans *sp_policy_filename_trans(const struct sp_policy *p,
								 size_t i);

/* Role rules, file order: role_transition ROLE TYPE:CLASS NEW_ROLE (before version 26 the file
 * names no class; it is then "process", 0 when the policy has none) and allow ROLE NEW_ROLE. */
struct sp_role_trans {
	uint32_t role, type, tclass, new_role;
};
struct sp_role_allow {
	uint32_t role, new_role;
};
SP_API size_t sp_policy_role_trans_count(const struct sp_policy *p);
SP_API const struct sp_role_trans *sp_policy_role_trans(const struct sp_policy *p, size_t i);
SP_API size_t sp_policy_role_allow_count(const struct sp_policy *p);
SP_API const struct sp_role_allow *sp_policy_role_allow(const struct sp_policy *p, size_t i);

/* Range transitions (MLS policies), file order: range_transition SOURCE TARGET:CLASS RANGE
 * (before version 21 the file names no class: "process", 0 when the policy has none).  low and
 * high are levels: a sensitivity value, a category count n, then n category values ascending.
 * sp_policy_range_format writes a range as setools does ("s0 - s15:c0.c1023", one level when
 * low equals high) with snprintf's contract (the length it needs) or returns -ENOMEM. */
struct sp_range_trans {
	uint32_t stype, ttype, tclass;
	const uint32_t *low, *high;
};
SP_API size_t sp_policy_range_trans_count(const struct sp_policy *p);
SP_API const struct sp_range_trans *sp_policy_range_trans(const struct sp_policy *p, size_t i);
SP_API int sp_policy_range_format(const struct sp_policy *p, const uint32_t *low,
				  const uint32_t *high, char *buf, size_t len);
/* A range as setools reads one (sesearch -D with --range_trans): "LOW[-HIGH]", levels
 * "SENS[:CAT,FIRST.LAST...]" by names or aliases.  lv gets the low then the high level in the
 * form above (a one-level range: that level twice); the return is the number of values the two
 * take, written only when it is at most cap (call again with a bigger lv when it is larger: the
 * dominance check waits for a whole result).  -EINVAL with setools' message in why (whylen
 * bytes, may be 0) for a name the policy lacks, a category its sensitivity lacks, a high level
 * that does not dominate the low one, or a policy without MLS; -ENOMEM. */
SP_API int sp_policy_range_parse(const struct sp_policy *p, const char *text, uint32_t *lv,
				 size_t cap, char *why, size_t whylen);
/* The same, and on -EINVAL *errpos gets the byte offset in text of what the message names (a
 * sensitivity, a category, a level, the high level; 0: the policy has no MLS). */
SP_API int sp_policy_range_parse_at(const struct sp_policy *p, const char *text, uint32_t *lv,
				    size_t cap, char *why, size_t whylen, size_t *errpos);

/*
 * Rule search with setools' semantics (setools 4.4 TERuleQuery: the rules sesearch prints).
 * Every criterion set must hold; 0 / NULL leaves one out.
 *   kinds          SP_AVTAB_* kinds to list (required).
 *   source/target  a type or attribute value: a rule matches when the member types of the
 *                  value and of the rule's source (target) intersect, a type's members being
 *                  itself; *_direct: the values must be equal instead.  An attribute without
 *                  member types imposes no criterion (as in setools).
 *   classes        the rule's class is one of the nclasses listed.
 *   perms          nperms permission names (duplicates count once): an AV rule matches when it
 *                  holds any of them within its class; perms_equal: its set equals the names
 *                  and its class has them all; perms_subset: it holds them all.  An xperm rule
 *                  matches when its xperm type is listed ("ioctl", "nlmsg"; perms_equal: as the
 *                  only name).  Type rules never match.
 *   default_type   type rules (and filename transitions) whose new type shares a member type
 *                  with the value (an attribute without members: no criterion).
 *   bools          conditional rules whose expression uses any of the nbools booleans
 *                  (bools_equal: exactly those); unconditional rules never match.
 *   filename_trans with SP_AVTAB_TRANSITION in kinds and no perms or bools criterion, visit the
 *                  filename transitions too.
 *   sources/targets/defaults  lists of type or attribute values (nsources... of them) used
 *                  instead of source/target/default_type when not NULL: the rule's type is one
 *                  listed (*_direct) or shares a member type with one listed; an empty list
 *                  matches no rule, and no empty-attribute rule applies (sesearch -rs/-rt/-rd
 *                  give the values whose names match a regular expression this way).
 *   xperms         nxperms ranges of 16-bit extended permissions (lo <= hi): an xperm rule
 *                  matches when its set intersects theirs (xperms_equal: equals it); every
 *                  other rule and filename transition fails (setools' -x and -ex).
 * classes or bools given with no element match no rule; perms with no name is the empty set
 * (with perms_subset every AV rule matches, else none).  Rules are visited in
 * sp_policy_avtab_foreach order, te_avtab then the conditional rules, then filename
 * transitions; fn gets each match as `rule` (an avtab entry) or `ft` (the other is NULL).
 * sesearch's order is not this one: it sorts the lines it prints (`secpath policy search` does).
 * Returns 0, the first non-zero return of fn, -EINVAL (sz too small for the fields, no kind,
 * a value out of range, fn NULL) or -ENOMEM.
 */
struct sp_xperm_range {
	uint16_t lo, hi;
};
struct sp_policy_query {
	size_t sz;			/* sizeof(struct sp_policy_query) */
	uint16_t kinds;
	uint32_t source, target;
	int source_direct, target_direct;
	const uint32_t *classes;
	size_t nclasses;
	const char *const *perms;
	size_t nperms;
	int perms_equal, perms_subset;
	uint32_t default_type;
	const uint32_t *bools;
	size_t nbools;
	int bools_equal;
	int filename_trans;
	const uint32_t *sources, *targets, *defaults;
	size_t nsources, ntargets, ndefaults;
	const struct sp_xperm_range *xperms;
	size_t nxperms;
	int xperms_equal;
	const uint32_t *default_range;	/* sp_policy_range_search only, may be NULL */
};
SP_API int sp_policy_search(const struct sp_policy *p, const struct sp_policy_query *q,
			    int (*fn)(void *ud, const struct sp_avtab_entry *rule,
				      const struct sp_filename_trans *ft),
			    void *ud);

/*
 * Role rule search with setools' semantics (setools 4.4 RBACRuleQuery: what sesearch
 * --role_allow --role_trans prints).  Every criterion set must hold; 0 / NULL leaves one out.
 *   kinds         SP_ROLE_ALLOW and/or SP_ROLE_TRANS (required).
 *   source        a role: the rule's source role is it (a role's members are itself).
 *   target_role   a role: allow rules whose new role is it; role_transition rules never match.
 *   target_type   a type or attribute: role_transition rules whose type shares a member type
 *                 with it (target_direct: is it); allow rules never match.  An attribute
 *                 without member types imposes no criterion (as in setools).
 *   classes       role_transition rules whose class is one of the nclasses listed; allow rules
 *                 never match (they have no class).
 *   default_role  role_transition rules whose new role is it; allow rules never match.
 *   sources, target_roles, target_types, defaults  lists (n* values) used instead of source,
 *                 target_role, target_type and default_role when not NULL: the rule's role is
 *                 one listed, its type one listed or (indirect) a member of one listed; an
 *                 empty list matches no rule (sesearch -rs/-rt/-rd give the values whose names
 *                 match a regular expression this way).  With a role and a type target
 *                 criterion both, each kind of rule is judged by its own.
 * fn gets each match as `ra` or `rt` (the other is NULL): allow rules, then role_transition
 * rules, each in file order (sesearch sorts the lines it prints).  Returns 0, the first non-zero
 * return of fn, -EINVAL (sz too small, no kind, a value out of range, fn NULL) or -ENOMEM.
 */
#define SP_ROLE_ALLOW 0x1
#define SP_ROLE_TRANS 0x2
struct sp_policy_role_query {
	size_t sz;			/* sizeof(struct sp_policy_role_query) */
	unsigned kinds;
	uint32_t source, target_role, target_type;
	int target_direct;
	const uint32_t *classes;
	size_t nclasses;
	uint32_t default_role;
	const uint32_t *sources, *target_roles, *target_types, *defaults;
	size_t nsources, ntarget_roles, ntarget_types, ndefaults;
};
/*
 * Range transition search (setools 4.4 MLSRuleQuery, sesearch --range_trans): q's source and
 * target criteria (single values or lists, direct or not, the empty-attribute rule), classes,
 * and default_range (two levels as sp_policy_range_parse writes them: the rule's range equals
 * it); its other criteria do not apply to these rules (sesearch gives MLSRuleQuery none).
 * fn gets each match in file order.  Returns 0, fn's first non-zero return, -EINVAL or -ENOMEM.
 */
SP_API int sp_policy_range_search(const struct sp_policy *p, const struct sp_policy_query *q,
				  int (*fn)(void *ud, const struct sp_range_trans *rt), void *ud);

SP_API int sp_policy_role_search(const struct sp_policy *p, const struct sp_policy_role_query *q,
				 int (*fn)(void *ud, const struct sp_role_allow *ra,
					   const struct sp_role_trans *rt),
				 void *ud);

/*
 * Policy differences as sediff (setools 4.4) prints them, section by section: commons, classes
 * (permissions, a class's inherited common ones included), booleans (default state), roles
 * (types), types (attributes, aliases, permissive), type attributes (member types), users
 * (roles, default level, range), categories and sensitivities (aliases) and levels
 * (categories), then the allow, auditallow, dontaudit, type_transition (with
 * filename transitions), type_change and type_member rules, each expanded as setools expands
 * them: one rule per (source type, target type) of the members of the rule's source and
 * target, permissions of one key united, a conditional rule less the permissions of the
 * unconditional rule of its triple (xperm rules likewise, their commands united, the
 * neverallow sections always empty: a binary policy has none); then the role allow, role_transition and range_transition
 * rules (by their roles or types and class), constraints and validatetrans (added and
 * removed statements), the labeling statements (by what they label:
 * a context that differs modifies one), policy capabilities, default_* rules (by rule and
 * class) and typebounds (by the bounded type); the policy properties (MLS, handle_unknown,
 * version) come first.  Items match by name; each section lists the items added
 * in b, removed from a and modified, sorted as sediff sorts them (names; rules by their text),
 * with sediff's headers and "+"/"-"/"*" lines (a modified rule's common permissions sorted:
 * sediff's order of them is a Python set's).  Sections are numbered
 * 0 .. sp_policy_diff_section_count() - 1 in sediff's order and named by sediff's option
 * without dashes ("property", "common", "class", "bool", "role", "type", "attribute", "user",
 * "category", "sensitivity", "level", "allow", "allowxperm", "neverallow", "neverallowxperm",
 * "auditallow", "auditallowxperm", "dontaudit", "dontauditxperm", "type_trans",
 * "type_change", "type_member", "role_allow", "role_trans", "range_trans", "constrain",
 * "mlsconstrain", "validatetrans", "mlsvalidatetrans", "initialsid", "ibendportcon",
 * "ibpkeycon", "fs_use", "genfscon", "netifcon", "nodecon", "portcon", "polcap", "default",
 * "typebounds"); _lookup returns the
 * number or -ENOENT, _name NULL past the last.
 * sp_policy_diff_write writes the sections whose bit is set in `which` to out, each even
 * without differences (sediff with that option); which = 0 writes every section that has
 * differences (sediff without options).
 * Returns 0, -EINVAL (NULL argument, an unknown bit), -ENOMEM or -EIO (out failed).
 */
SP_API unsigned sp_policy_diff_section_count(void);
SP_API const char *sp_policy_diff_section_name(unsigned i);
SP_API int sp_policy_diff_section_lookup(const char *opt);
SP_API int sp_policy_diff_write(const struct sp_policy *a, const struct sp_policy *b,
				uint64_t which, FILE *out);

/* Decisions. */
#define SP_AVD_FLAGS_PERMISSIVE 0x0001
struct sp_av_decision {
	uint32_t allowed, auditallow, auditdeny;
	uint32_t flags;
	uint32_t seqno;
};
/* The TE part of the kernel's context_struct_compute_av.  Returns 0 or -EINVAL (bad value). */
SP_API int sp_policy_compute_av(const struct sp_policy *p, uint32_t stype, uint32_t ttype,
				uint32_t tclass, struct sp_av_decision *avd);
/* The same by the kernel's literal algorithm (both tables, every attribute pair, no filters):
 * the reference the fast path is tested against. */
SP_API int sp_policy_compute_av_ref(const struct sp_policy *p, uint32_t stype, uint32_t ttype,
				    uint32_t tclass, struct sp_av_decision *avd);
/*
 * New-object type (security_compute_sid's TE part): kind is SP_AVTAB_TRANSITION, _MEMBER or
 * _CHANGE; `name` (may be NULL) enables filename transitions for SP_AVTAB_TRANSITION.
 * *out is the rule's type, or 0 when no rule applies (the caller's default then stands).
 */
SP_API int sp_policy_compute_type(const struct sp_policy *p, uint32_t stype, uint32_t ttype,
				  uint32_t tclass, uint16_t kind, const char *name, uint32_t *out);
/*
 * Extended permissions (security_compute_xperms_decision, ioctl): the per-command decision for
 * ioctl `driver` (the high byte of the command) from allowxperm / auditallowxperm /
 * dontauditxperm rules of every (source attribute, target attribute) pair, both tables (enabled
 * conditional rules only).  A driver-kind rule whose driver bitmap holds `driver` sets all 256
 * bits; a function-kind rule for the same driver ORs its bitmap.  Bit f of allowed[f / 32] is
 * command (driver << 8 | f).  `used` has SP_XPERMS_USED_* for each kind that matched.  nlmsg
 * rules (kind 3) are not applied.  Returns 0, -EINVAL (bad value) or -ENOMEM.
 */
#define SP_XPERMS_USED_ALLOWED		0x1
#define SP_XPERMS_USED_AUDITALLOW	0x2
#define SP_XPERMS_USED_DONTAUDIT	0x4
struct sp_xperms_decision {
	uint8_t driver;
	uint8_t used;
	uint32_t allowed[8], auditallow[8], dontaudit[8];
};
SP_API int sp_policy_compute_xperms(const struct sp_policy *p, uint32_t stype, uint32_t ttype,
				    uint32_t tclass, uint8_t driver, struct sp_xperms_decision *xd);
/* Sequence number bumped by every boolean change. */
SP_API uint32_t sp_policy_seqno(const struct sp_policy *p);

/* AVC: (source, target, class) -> decision cache in front of a policy. */
struct sp_avc_opts {
	size_t sz;
	unsigned nbuckets;	/* power of two; default 512 (the kernel's AVC_CACHE_SLOTS) */
	unsigned threshold;	/* reclaim above this many nodes; default 512 (cache_threshold) */
};
struct sp_avc_stats {		/* selinuxfs avc/cache_stats + hash_stats */
	uint64_t lookups, hits, misses, allocations, reclaims, frees;
	uint32_t entries, buckets_used, buckets, longest_chain;
};
/* The AVC takes ownership of `p`. */
SP_API int sp_avc_create(struct sp_policy *p, const struct sp_avc_opts *o, struct sp_avc **out);
SP_API void sp_avc_free(struct sp_avc *a);
/*
 * Reader registration: every thread that calls sp_avc_lookup must call sp_avc_reader_register()
 * first and sp_avc_reader_unregister() before it exits (they wrap liburcu's rcu_register_thread /
 * rcu_unregister_thread; calls nest per thread, only the outermost pair (un)registers, and an
 * unbalanced unregister is ignored).  A thread that registered with liburcu directly needs
 * neither.  Writers (sp_avc_set_policy, sp_avc_set_bool, sp_avc_free) need no registration but
 * must not be called by a thread while it is inside sp_avc_lookup.
 */
SP_API void sp_avc_reader_register(void);
SP_API void sp_avc_reader_unregister(void);
/*
 * Decision through the cache.  Any registered reader thread (sp_avc_reader_register) may call it
 * while another thread replaces the policy.  A hit takes no lock and no RCU read-side section
 * (a miss reads the policy under RCU).  Returns 0 or -EINVAL.
 */
SP_API int sp_avc_lookup(struct sp_avc *a, uint32_t stype, uint32_t ttype, uint32_t tclass,
			 struct sp_av_decision *avd);
/* Replace the policy (the AVC takes ownership of np), flush, free the old after a grace period. */
SP_API int sp_avc_set_policy(struct sp_avc *a, struct sp_policy *np);
/* Change a boolean: copies the conditional state, publishes it, flushes.  0 or -errno. */
SP_API int sp_avc_set_bool(struct sp_avc *a, uint32_t b, int state);
SP_API void sp_avc_flush(struct sp_avc *a);
SP_API void sp_avc_get_stats(struct sp_avc *a, struct sp_avc_stats *st);

#ifdef __cplusplus
}
#endif
#endif
