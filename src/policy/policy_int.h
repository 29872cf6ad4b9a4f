/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy_int.h - internals of the policy part: the immutable policy core (symbols, te_avtab,
 * conditional rules, transitions, attribute CSR), the per-boolean-state part (cond table, node
 * states), and the three avtab layouts behind one internal interface.
 *
 * Ownership: an sp_policy owns its cond state and holds one reference on its core; cores are
 * shared between a policy and its boolean-changed copies (sp_avc_set_bool) and freed with the
 * last reference.  Everything in a core is read-only after policy_core_finish().  A core's life:
 * read.c builds it from the file, index.c finishes it (and frees it with the last reference),
 * cond.c builds the per-policy conditional state over it, decide.c answers from both.
 */
#ifndef SP_POLICY_INT_H
#define SP_POLICY_INT_H

#include <stdatomic.h>
#include <string.h>
#include "secpath/policy.h"
#include "base/compiler.h"

struct sp_slab_cache;

/* One avtab entry as read from the file (layout-independent), 12 bytes. */
struct policy_rule {
	uint16_t s, t, c, spec;		/* spec: one kind bit, enabled bit masked off */
	uint32_t data;			/* xperm kinds: the index into core->xperms */
};

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

/* What a table holds, which decides duplicates and enabled bits (policy_avtab_build). */
enum policy_avtab_kind {
	POLICY_AVTAB_TE,	/* te_avtab: no two entries with one key and kind (but xperms) */
	POLICY_AVTAB_COND,	/* te_cond_avtab: duplicates kept, each entry's enabled bit */
	POLICY_AVTAB_MERGED,	/* flat only: enabled cond rules, AV folded per key, type last wins */
};

/* The table's physical form: the layout, and for the flat layout which bucket form. */
enum policy_avtab_form {
	POLICY_FORM_CHAINED,	/* SP_AVTAB_CHAINED */
	POLICY_FORM_ARRAY,	/* SP_AVTAB_ARRAY */
	POLICY_FORM_WIDE,	/* SP_AVTAB_FLAT, struct flat_bucket */
	POLICY_FORM_COMPACT,	/* SP_AVTAB_FLAT, struct flatc_bucket (every real policy) */
};

/* One table (opaque in policy.h: sp_policy_avtab_searcher hands it out with its search). */
struct sp_avtab {
	enum policy_avtab_form form;
	enum policy_avtab_kind kind;
	uint32_t nel;
	uint32_t nslot, mask;		/* chained/array slots; flat: buckets (mask unused) */
	const struct sp_avtab_xperms *xperms;	/* shared with the core */
	union {
		struct {
			struct chained_node **slots;
			struct sp_slab_cache *nodes;	/* the core's node cache */
		} ch;
		struct {
			uint32_t *heads;
			struct array_node *nodes;
		} ar;
		struct {
			union {
				struct flat_bucket *b;		/* POLICY_FORM_WIDE */
				struct flatc_bucket *cb;	/* POLICY_FORM_COMPACT */
			};
			uint8_t *enabled;	/* cond tables: per bucket, bit i = slot i enabled */
			uint32_t ns, nt, nc;	/* compact radices: largest value + 1 */
		} fl;
	} u;
	size_t bytes;
	const struct sp_allocator *alloc;
	/* The form's avtab_search, set by policy_avtab_build: the one dispatch of a search (the
	 * public search and policy_avtab_search call it: one predicted indirect call). */
	int (*search)(const struct sp_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
		      uint16_t mask, uint32_t *data);
};

/*
 * The rules a table is built from: r[0..n), in the order whose first of a key and kind counts
 * (COND: the kind bits carry no enabled bit, enabled[i] gives it; NULL for other tables).
 * hint: the chained layout's slot count rule input for COND tables.  types, classes: 0, or
 * bounds the caller checked, 1 <= s, t <= types and 1 <= c <= classes for every rule (a
 * policy's own counts), which spare the flat layout its scan for the largest values.
 */
struct policy_rules {
	const struct policy_rule *r;
	uint32_t n, hint;
	const uint8_t *enabled;
	uint32_t types, classes;
};

/*
 * Build a table of kind `kind` from rs in `layout`.  Chained nodes come from `nodes` (NULL for
 * the other layouts).  Returns 0, -EEXIST (te: a repeated key and kind), -ENOMEM.
 */
int policy_avtab_build(struct sp_avtab *t, enum sp_avtab_layout layout,
		       enum policy_avtab_kind kind, const struct policy_rules *rs,
		       const struct sp_avtab_xperms *xperms, struct sp_slab_cache *nodes,
		       const struct sp_allocator *a);
/* Free a built table; a zeroed or already destroyed table is a no-op. */
void policy_avtab_destroy(struct sp_avtab *t);
/* Entries of (s,t,c) whose kind intersects mask: up to max into out; returns how many match. */
size_t policy_avtab_lookup(const struct sp_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
			   uint16_t mask, struct sp_avtab_entry *out, size_t max);
/* First entry of (s,t,c) whose kind intersects mask (avtab_search; SP_AVTAB_ENABLED in mask is
 * ignored): 1 and *data (xperm kinds: the xperm index), or 0. */
static inline int policy_avtab_search(const struct sp_avtab *t, uint16_t s, uint16_t tt,
				      uint16_t c, uint16_t mask, uint32_t *data)
{
	return t->search(t, s, tt, c, mask, data);
}
int policy_avtab_foreach(const struct sp_avtab *t,
			 int (*fn)(void *ud, const struct sp_avtab_entry *e), void *ud);
/* Fold AV entries of (s,t,c) into *av (allowed, auditallow, auditdeny); cond tables: enabled only. */
void policy_avtab_fold(const struct sp_avtab *t, uint16_t s, uint16_t tt, uint16_t c,
		       uint32_t av[3]);
/* The table's invariants (flat.h, avtab.c), walked in full: 1 if they hold.  O(table size). */
int policy_avtab_is_valid(const struct sp_avtab *t);

/* ---- the core ---- */

struct policy_class {
	const char *name;
	uint32_t common;		/* common index + 1, or 0 */
	uint32_t nperms;		/* highest permission value incl. common */
	uint32_t own;			/* the permissions the class itself declares (bit v-1) */
	uint32_t defaults[4];		/* default_user, _role, _type, _range values (0: none) */
	const char *perm[32];
};

/* One node of a kept constraint expression (postfix, file order): type 1 not, 2 and, 3 or,
 * 4 attr, 5 names; attr and op as the file has them; names (5): nnames values at names_off of
 * core->cnames (types: the type set's types on v29+, else the names bitmap; values, bit + 1). */
struct policy_cexpr {
	uint32_t type, attr, op;
	uint32_t names_off, nnames;
};

/* A kept constraint or validatetrans of class cls: its permissions (validatetrans: 0) and
 * its expression nodes expr_off .. expr_off + nexpr of core->cex; mls: an operand compares
 * levels (setools' mlsconstrain / mlsvalidatetrans). */
struct policy_constraint {
	uint32_t cls, perms, expr_off, nexpr;
	uint8_t validatetrans, mls;
};

/* A sensitivity or category record as the file has it (seinfo's listings): aliases carry the
 * value of the symbol they name. */
struct policy_mls_sym {
	const char *name;
	uint32_t value;
	int alias;
	uint32_t lv;			/* sensitivities: their declared level's offset in sens_lv */
};

/* A growable list of values (read.c's vectors). */
struct u32vec {
	uint32_t *v;
	uint32_t n, cap;
};

/* An ocontext or genfs record for seinfo's listings: kind is the file's ocontext index (0 isid,
 * 2 port, 3 netif, 5 fsuse) or POLICY_OCON_GENFS; ctx[] are offsets of contexts in core->ctxv
 * (user, role, type, then on v19+ the range's low and high levels), UINT32_MAX for none. */
#define POLICY_OCON_GENFS 100
struct policy_ocon {
	uint32_t kind, f[8];		/* isid: sid; port: protocol, low, high; fsuse: behavior;
					 * genfs: class; node: addr, mask; node6: addr[4], mask[4];
					 * ibpkey: subnet prefix[2], low, high; ibendport: port
					 * (addresses and prefixes in network byte order) */
	const char *name, *path;	/* netif, fsuse, ibendport, genfs fstype; genfs path */
	uint32_t ctx[2];
};

/* (owner value, member value) pairs in file order: a role's types, a user's roles. */
struct policy_pairs {
	uint32_t *v;			/* 2 * n values */
	uint32_t n, cap;		/* pairs; cap counts values */
};

struct policy_cond_expr {
	uint32_t type, boolv;
};
struct policy_cond_node {
	uint32_t expr_off, nexpr;	/* into core->cond_expr */
	uint32_t file_state;
};

struct policy_name_ix {			/* name -> value (class_ix, bool_ix: sorted by name) */
	const char *name;
	uint32_t value;
};

struct policy_core {
	atomic_uint refs;
	const struct sp_allocator *alloc;
	enum sp_avtab_layout layout;
	uint32_t version, config;
	struct sp_policy_info info;	/* counts filled by the reader */
	struct sp_policy_counts counts;	/* setools' counts (seinfo), filled by the reader */

	char *strings;			/* arena of NUL-terminated names */
	size_t strings_len;		/* bytes of the arena's chunks */

	uint32_t ntypes;		/* nprim */
	const char **type_name;		/* [ntypes + 1] */
	uint8_t *type_flags;		/* [ntypes + 1]: 1 attribute, 2 permissive, 4 has name */
	struct policy_name_ix *type_ix;	/* every type and alias name, in file order */
	uint32_t ntype_ix, type_ix_cap;
	uint32_t *type_hash;		/* [type_hash_mask + 1]: type_ix position + 1, 0 empty */
	uint32_t type_hash_mask;

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
	const char *end_sec;		/* the reader's last section (a finish failure's diagnostic) */
	struct sp_avtab te_tab;		/* chained: te_tab.u.ch.nodes is the core's node cache */

	struct policy_rule *cr;		/* conditional rules, file order */
	uint32_t *cr_node;		/* node index of each rule; bit 31 = true list */
	uint32_t ncr, cr_cap;
	struct policy_cond_node *cnode;
	uint32_t ncnode;
	struct policy_cond_expr *cexpr;
	uint32_t ncexpr, cexpr_cap;

	struct sp_filename_trans *ft;
	uint32_t nft, ft_cap;
	struct sp_role_trans *rtrans;	/* [nrtrans], file order */
	struct sp_role_allow *rallow;	/* [nrallow], file order */
	uint32_t nrtrans, nrallow;
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

	/* for seinfo's listings (symbols.c) only */
	struct policy_pairs role_types, user_roles;
	struct policy_mls_sym *sens, *cats;	/* records in file order */
	uint32_t nsens, ncats;
	uint32_t *caps;			/* policy capability bits set, ascending */
	struct policy_ocon *ocon;	/* the listed kinds, file order */
	uint32_t nocon, ocon_cap;
	struct u32vec ctxv;		/* the contexts of ocon */
	struct u32vec user_mls;		/* per user record (v19+): value, then its range's low and
					 * high and its default level, each sens, ncats, cats */
	struct sp_range_trans *rangetr;	/* [nrangetr], file order; levels point into rangetr_lv */
	uint32_t nrangetr;
	struct u32vec rangetr_lv;	/* each rule's low then high level: sens, ncats, cats */
	struct u32vec sens_lv;		/* each sensitivity record's level: sens, ncats, cats */
	uint32_t ncaps;
	struct policy_pairs type_bounds;	/* (type entry's value, bound), non-attribute entries */
	struct policy_constraint *cons;	/* constraints then validatetrans of each class, file order */
	uint32_t ncons, cons_cap;
	struct policy_cexpr *cex;
	uint32_t ncex, cex_cap;
	struct u32vec cnames;		/* the name values of cex nodes */
};

struct policy_condstate {
	uint8_t *bools;			/* [nbools + 1] */
	int8_t *node_state;		/* [ncnode]: 1, 0, -1 undefined */
	uint8_t *rule_enabled;		/* [ncr] */
	struct sp_avtab tab;	/* te_cond_avtab in the chosen layout */
	struct sp_avtab eff;	/* flat: enabled rules merged (AV folded, type rules last wins) */
	uint32_t enabled_count;
};

struct sp_policy {
	struct policy_core *core;
	struct policy_condstate cs;
	uint32_t seqno;
};

/*
 * The triple Bloom filter of index.c: one u64 word per triple (the top bits of a multiply
 * hash), three bits in it.  A clear bit proves the triple has no AV entry in either table.
 */
/* Levels (sens, n, then n category values ascending) are equal when their sensitivity and
 * category lists are (setools' Level ==): equal arrays. */
static inline int policy_level_equal(const uint32_t *a, const uint32_t *b)
{
	return a[1] == b[1] && !memcmp(a, b, (2 + (size_t)a[1]) * sizeof(*a));
}

/* The key (s, t, c) as one word, s | t << 16 | c << 32 (the Bloom filter hashes it). */
static inline uint64_t policy_key_word(uint32_t s, uint32_t t, uint32_t c)
{
	return (uint64_t)s | (uint64_t)t << 16 | (uint64_t)c << 32;
}

/* A rule's policy_key_word: on a little-endian host the first 8 bytes of the rule (s, t, c,
 * spec) in one load, spec masked off. */
static inline uint64_t policy_rule_key(const struct policy_rule *r)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;
	_Static_assert(offsetof(struct policy_rule, s) == 0 && offsetof(struct policy_rule, t) == 2 &&
		       offsetof(struct policy_rule, c) == 4, "s, t, c lead the rule");
	memcpy(&w, r, sizeof(w));
	return w & 0xffffffffffffull;
#else
	return policy_key_word(r->s, r->t, r->c);
#endif
}

static inline uint64_t policy_bloom_key_hash(uint64_t k)
{
	return k * 0xff51afd7ed558ccdull;
}

static inline uint64_t policy_bloom_hash(uint32_t s, uint32_t t, uint32_t c)
{
	return policy_bloom_key_hash(policy_key_word(s, t, c));
}

static inline uint64_t policy_bloom_bits(uint64_t h)
{
	return 1ull << (h & 63) | 1ull << ((h >> 6) & 63) | 1ull << ((h >> 12) & 63);
}

static inline int policy_bloom_may(const struct policy_core *k, uint32_t s, uint32_t t, uint32_t c)
{
	uint64_t h = policy_bloom_hash(s, t, c), m = policy_bloom_bits(h);
	return (k->bloom[h >> k->bloom_shift] & m) == m;
}

/* xz.c: whether buf starts with xz's magic; an xz file decompressed into a fresh malloc'd
 * buffer (0; else -EINVAL, -ENOTSUP, -ENOMEM or -EFBIG with one diagnostic at the compressed
 * byte offset where decoding stopped) */
int policy_xz_is(const void *buf, size_t len);
int policy_xz_decode(const void *in, size_t n, struct sp_diags *d, const char *file,
		     uint8_t **out, size_t *outlen);

/* read.c: the file into a new core (not finished); the reader's part of its release */
int policy_core_read(const uint8_t *buf, size_t len, const struct sp_policy_opts *o,
		     struct policy_core **out);
void policy_core_free_read(struct policy_core *c);

/* symbols.c: the members of owner in a pair list as names (name_of[member], members above
 * limit or unnamed left out) into a fresh array of pp->n + 1 entries (*out, NULL: -ENOMEM) */
size_t policy_pair_names(const struct policy_core *k, const struct policy_pairs *pp,
			 uint32_t owner, const char *const *name_of, uint32_t limit,
			 const char ***out);
/* symbols.c: every type's aliases (its index entries that are not its name), type v's in
 * name[off[v] .. off[v + 1]) in libsepol's hash order; made in one pass over the index. */
struct policy_aliases {
	uint32_t *off;			/* ntypes + 2 */
	const char **name;
	size_t n;
};
int policy_aliases_new(const struct policy_core *k, struct policy_aliases *a);	/* 0, -ENOMEM */
void policy_aliases_free(const struct policy_core *k, struct policy_aliases *a);
static inline size_t policy_aliases_of(const struct policy_aliases *a, uint32_t v,
				       const char *const **name)
{
	*name = a->name + a->off[v];
	return a->off[v + 1] - a->off[v];
}
/* The value of the type or alias `name`, 0 when the policy has none (index.c). */
uint32_t policy_type_find(const struct policy_core *k, const char *name);
/* symbols.c: user v's record levels (lv[0] range low, lv[1] high, lv[2] default), 0: none */
int policy_user_levels(const struct policy_core *k, uint32_t v, const uint32_t *lv[3]);
/* diff_te.c: sediff's section of AV rules of one kind (SP_AVTAB_ALLOWED, _AUDITALLOW,
 * _AUDITDENY) titled "TITLE Rules", written when always or when it has differences */
int policy_diff_av(const struct sp_policy *pa, const struct sp_policy *pb, uint16_t kind,
		   const char *title, int always, FILE *f);
/* symbols.c: a policy capability's name as setools prints it (libsepol 3.4's, "None" for a
 * bit it does not name) */
const char *policy_polcap_name(uint32_t bit);
/* symbols.c: a part of ocontext record i as sediff writes it (snprintf's contract) */
enum { POLICY_OCON_KEY, POLICY_OCON_CTX, POLICY_OCON_CTX2, POLICY_OCON_STMT };
int policy_ocon_format(const struct policy_core *k, uint32_t i, int part, char *buf, size_t len);
/* symbols.c: a class's default_* rule j (policy_class.defaults[j]) as setools writes what
 * follows the class ("source", "target low", "glblub"), and the rule names' suffixes */
const char *policy_default_text(unsigned j, uint32_t d);
static inline const char *policy_default_kind(unsigned j)
{
	return j == 0 ? "user" : j == 1 ? "role" : j == 2 ? "type" : "range";
}
/* diff_rbac.c: sediff's "Role allow" (kind 0), "Role_transition" (1) or "Range_transition"
 * (2) rule section, written when always or when it has differences */
int policy_diff_rbac(const struct sp_policy *pa, const struct sp_policy *pb, int kind,
		     int always, FILE *f);
/* index.c: indexes, filters and te_avtab for decisions; the last reference frees the core */
int policy_core_finish(struct policy_core *c, enum sp_avtab_layout layout);
void policy_core_put(struct policy_core *c);

/* The node cache of the core's chained tables (the te table holds it), or NULL. */
static inline struct sp_slab_cache *policy_core_nodes(const struct policy_core *c)
{
	return c->layout == SP_AVTAB_CHAINED ? c->te_tab.u.ch.nodes : NULL;
}

/* cond.c: the conditional state for a boolean vector, and its release */
int policy_condstate_init(const struct policy_core *c, struct policy_condstate *cs,
			  const uint8_t *bools);
int policy_condstate_with_bool(const struct policy_core *c, const struct policy_condstate *from,
			       uint32_t b, int state, struct policy_condstate *out);
void policy_condstate_release(const struct policy_core *c, struct policy_condstate *cs);

/* policy.c: a copy sharing the core with boolean b set (the AVC's boolean change) */
int policy_clone_with_bool(const struct sp_policy *p, uint32_t b, int state,
			   struct sp_policy **out);

#endif
