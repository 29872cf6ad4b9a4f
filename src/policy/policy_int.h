/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy_int.h - internals of the policy part: the immutable policy core (symbols, te_avtab,
 * conditional rules, transitions, attribute CSR), the per-boolean-state part (cond table, node
 * states), and the three avtab layouts behind one internal interface.
 *
 * Ownership: an sp_policy owns its cond state and holds one reference on its core; cores are
 * shared between a policy and its boolean-changed copies (sp_avc_set_bool) and freed with the
 * last reference.  Everything in a core is read-only after policy_core_finish().
 */
#ifndef SP_POLICY_INT_H
#define SP_POLICY_INT_H

#include <stdatomic.h>
#include "secpath/policy.h"
#include "base/compiler.h"

/* One avtab entry as read from the file (layout-independent).  12 bytes + xperm index. */
struct policy_rule {
	uint16_t s, t, c, spec;		/* spec: one kind bit, enabled bit masked off */
	uint32_t data;
	uint32_t xp;			/* index into core->xperms, or UINT32_MAX */
};

#define POLICY_NO_XP UINT32_MAX

/* ---- avtab layouts ---- */

/* chained: the kernel's node (24 bytes): key, datum union, next pointer. */
struct chained_node {
	uint16_t s, t, c, spec;
	union {
		uint32_t data;
		const struct sp_avtab_xperms *xp;
	} u;
	struct chained_node *next;
};

/* array: the 2023 patches' node: key, datum (u32 or xperm index), u32 next (UINT32_MAX = end). */
struct array_node {
	uint16_t s, t, c, spec;
	uint32_t data;
	uint32_t next;
};

/*
 * flat, wide form (the fallback; flatc_bucket below is the usual form): one 64-byte bucket holds
 * six entries, keys and data side by side (struct of arrays inside the line), the six 4-bit kind
 * codes and the count in `meta`.  A key's home bucket is fastrange(hash(s,t,c)); all entries of a
 * triple share the home bucket or, when it is full, the following buckets (linear probing over
 * buckets).  `meta` bits 28-31 hold the largest displacement of any key whose home is this bucket
 * (saturating at 15: the scan then runs to the first non-full bucket), so a lookup scans
 * home..home+disp.
 */
#define FLAT_SLOTS 6
struct flat_bucket {
	uint16_t s[FLAT_SLOTS], t[FLAT_SLOTS], c[FLAT_SLOTS];
	uint32_t data[FLAT_SLOTS];
	uint32_t meta;		/* bits 0-2 count, 4-27 kind codes (4 bits each), 28-31 disp */
} sp_cacheline_aligned;
#define FLAT_DISP_SHIFT 28
#define FLAT_DISP_MAX 15

/*
 * flat, compact form (used whenever the table's value ranges allow it, which every real policy
 * does): the triple packed into one u32, k = (s * nt + t) * nc + c with the table's radices
 * (nt, nc = largest target / class + 1; 0 = empty slot, since s >= 1), so a bucket holds seven
 * entries and one 32-bit compare per lane decides a match.  Home = fastrange of the upper half of
 * k * 2^64/phi (one multiply, no division).  `ovf` is a 32-bit filter of the keys homed here that
 * were placed in a later bucket (bit = top five bits of the product's lower half): a lookup whose
 * bit is clear stops after the home line, hit or miss.  meta: bits 0-27 kind codes, 28-31 disp.
 * The hot lookup is inline in policy/flat.h.
 */
#define FLATC_SLOTS 7
struct flatc_bucket {
	uint32_t key[FLATC_SLOTS];
	uint32_t data[FLATC_SLOTS];
	uint32_t meta;
	uint32_t ovf;
} sp_cacheline_aligned;

struct policy_avtab {
	enum sp_avtab_layout layout;
	int cond;
	uint32_t nel;
	uint32_t nslot, mask;		/* chained/array slots; flat: buckets (mask unused) */
	const struct sp_avtab_xperms *xperms;	/* shared with the core */
	union {
		struct {
			struct chained_node **slots;
		} ch;
		struct {
			uint32_t *heads;
			struct array_node *nodes;
		} ar;
		struct {
			union {
				struct flat_bucket *b;
				struct flatc_bucket *cb;	/* compact != 0 */
			};
			uint8_t *enabled;	/* cond tables: per bucket, bit i = slot i enabled */
			int compact;
			uint32_t ns, nt, nc;	/* compact radices: largest value + 1 */
		} fl;
	} u;
	size_t bytes;
	const struct sp_allocator *alloc;
	/* the layout's avtab_search (mask without SP_AVTAB_ENABLED), set by policy_avtab_build:
	 * the public lookup calls it directly, one predicted indirect call instead of a dispatch */
	int (*search)(const struct policy_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
		      uint16_t mask, uint32_t *data);
};

/* Build a table from rules (cond: rules carry no enabled bit; `enabled` gives it, may be NULL). */
int policy_avtab_build(struct policy_avtab *t, enum sp_avtab_layout layout, int cond,
		       const struct policy_rule *r, uint32_t n, uint32_t hint,
		       const uint8_t *enabled, const struct sp_avtab_xperms *xperms,
		       const struct sp_allocator *a);
void policy_avtab_destroy(struct policy_avtab *t);
size_t policy_avtab_lookup(const struct policy_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
			   uint16_t mask, struct sp_avtab_entry *out, size_t max);
/* First entry of (s,t,c) whose kind intersects mask (avtab_search): 1 and *data, or 0. */
int policy_avtab_search(const struct policy_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
			uint16_t mask, uint32_t *data);
int policy_avtab_foreach(const struct policy_avtab *t,
			 int (*fn)(void *ud, const struct sp_avtab_entry *e), void *ud);
/* Fold AV entries of (s,t,c) into *av (allowed, auditallow, auditdeny); cond tables: enabled only. */
void policy_avtab_fold(const struct policy_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
		       uint32_t av[3]);
uint32_t policy_avtab_hash(uint16_t s, uint16_t t, uint16_t c);	/* kernel avtab_hash, unmasked */
uint32_t policy_avtab_kernel_nslot(uint32_t nrules);

/* ---- the core ---- */

struct policy_class {
	const char *name;
	uint32_t common;		/* common index + 1, or 0 */
	uint32_t nperms;		/* highest permission value incl. common */
	const char *perm[32];
};

struct policy_cond_expr {
	uint32_t type, boolv;
};
struct policy_cond_node {
	uint32_t expr_off, nexpr;	/* into core->cond_expr */
	uint32_t file_state;
};

struct policy_name_ix {			/* sorted name -> value index */
	const char *name;
	uint32_t value;
};

struct policy_core {
	atomic_uint refs;
	const struct sp_allocator *alloc;
	enum sp_avtab_layout layout;
	uint32_t version, config;
	struct sp_policy_info info;	/* counts filled by the reader */

	char *strings;			/* arena of NUL-terminated names */
	size_t strings_len, strings_cap;

	uint32_t ntypes;		/* nprim */
	const char **type_name;		/* [ntypes + 1] */
	uint8_t *type_flags;		/* [ntypes + 1]: 1 attribute, 2 permissive, 4 has name */
	struct policy_name_ix *type_ix;
	uint32_t ntype_ix, type_ix_cap;

	uint32_t nclasses;
	struct policy_class *cls;	/* [nclasses + 1] */
	struct policy_name_ix *class_ix;
	uint32_t ncommons;
	struct policy_class *commons;	/* [ncommons + 1] (perm names only) */

	uint32_t nbools;
	const char **bool_name;
	uint8_t *bool_default;
	struct policy_name_ix *bool_ix;

	uint32_t nroles, nusers;
	const char **role_name, **user_name;

	struct sp_avtab_xperms *xperms;
	uint32_t nxperms, xperms_cap;

	struct policy_rule *te;		/* file order; freed after the table is built */
	uint32_t nte, te_cap;
	size_t te_off;			/* file offset of te_avtab (diagnostics) */
	struct policy_avtab te_tab;

	struct policy_rule *cr;		/* conditional rules, file order */
	uint32_t *cr_node;		/* node index of each rule; bit 31 = true list */
	uint32_t ncr, cr_cap;
	struct policy_cond_node *cnode;
	uint32_t ncnode;
	struct policy_cond_expr *cexpr;
	uint32_t ncexpr, cexpr_cap;

	struct sp_filename_trans *ft;
	uint32_t nft, ft_cap;
	uint32_t *ft_sorted;		/* indices sorted by (stype, ttype, tclass, name) */

	/* type_attr_map as CSR: row i = sorted values (incl. i); reverse map likewise. */
	uint32_t *attr_off, *attr_v;
	uint32_t *rev_off, *rev_v;
	/* blocked Bloom filter over every AV triple of both tables (any boolean state): one u64
	 * per triple probe, three bits; a clear bit proves the triple has no AV entry */
	uint64_t *bloom;
	uint32_t bloom_shift, bloom_words;
	/* decision filters: the rows restricted to values that occur as AV source / target */
	uint32_t *src_off, *src_v, *tgt_off, *tgt_v;

};

struct policy_condstate {
	uint8_t *bools;			/* [nbools + 1] */
	int8_t *node_state;		/* [ncnode]: 1, 0, -1 undefined */
	uint8_t *rule_enabled;		/* [ncr] */
	struct policy_avtab tab;	/* te_cond_avtab in the chosen layout */
	struct policy_avtab eff;	/* flat: enabled rules merged (AV folded, type rules last wins) */
	uint32_t enabled_count;
};

struct sp_policy {
	struct policy_core *core;
	struct policy_condstate cs;
	uint32_t seqno;
};

/* read.c */
int policy_core_read(const uint8_t *buf, size_t len, const struct sp_policy_opts *o,
		     struct policy_core **out);
void policy_core_put(struct policy_core *c);
const char *policy_strdup(struct policy_core *c, const uint8_t *s, size_t n);

/* policy.c: a copy sharing the core with boolean b set (the AVC's boolean change) */
int policy_clone_with_bool(const struct sp_policy *p, uint32_t b, int state,
			   struct sp_policy **out);

/* decide.c */
int policy_condstate_init(const struct policy_core *c, struct policy_condstate *cs,
			  const uint8_t *bools);
void policy_condstate_release(const struct policy_core *c, struct policy_condstate *cs);
int policy_core_finish(struct policy_core *c);

#endif
