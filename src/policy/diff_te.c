/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diff_te.c - sediff's (setools 4.4) allow, auditallow, dontaudit, type_transition,
 * type_change, type_member and xperm rule differences.
 *
 * setools' model, kept: every AV rule of a kind is expanded to one record per (source type,
 * target type) of its source's and target's member types (a type is its own member, an
 * attribute without members gives none), keyed by (conditional expression text, branch,
 * source, target, class), the permissions of equal keys united; a conditional record loses
 * the permissions the unconditional record of its triple (same policy) has, and vanishes when
 * none remain.  Records only one policy has are added or removed rules; records both have
 * with different permission names are modified.  Lines are sorted by their text (setools
 * sorts rules by str()); a modified rule by the text of its first policy's expanded rule.
 * Names are compared, never values (two policies number them differently): each side ranks
 * its type, class and expression names once, so sorting a side by ranks is sorting by name.
 * A line's head ("KIND S T:C") is placed in its side's text order too (each name with the byte
 * that follows it in a line): lines are sorted by those places, by text only where they tie.
 * Type rules are expanded the same way, keyed also by a filename transition's name; of equal
 * keys one record stays (setools' set keeps one); a rule is modified when the default types'
 * names differ.  A modified rule's common permissions are printed sorted (sediff prints them
 * in the order of a Python set, which changes from run to run).
 * Extended permission rules (allowxperm, auditallowxperm, dontauditxperm) are expanded the
 * same way, keyed by (source, target, class, xperm type), never conditional and never reduced
 * by other rules; a key's records are united into a 64 Ki-bit set of command numbers, and a
 * rule is modified when the sets differ: "{ COMMON +ADDED -REMOVED }", each set as setools
 * writes one (runs of commands as ranges, "+[LO-HI]" for an added or removed range).  An
 * added or removed rule lists, as sediff does, only the commands of the first avtab entry
 * behind it in setools' order (setools keeps the first expanded rule of a key), which is
 * libsepol's te_avtab order: by hash slot (the kernel's hash; libsepol sizes the table by
 * its entry count), then by (source, target, class), and of one key's entries (one per
 * driver) the last in the file first, as libsepol inserts an xperm entry before the equal
 * keys it holds.  The table's visit keeps one key's entries in file order.
 * An added or removed rule's line is its record until it is compared or printed (the texts
 * of a large diff are most of what it would hold).  Memory O(expanded records + modified and
 * xperm lines' text); time O(n log n) in the expanded records, plus 8 KiB per xperm key and
 * side.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "policy/policy_int.h"

struct avrec {
	uint32_t cond;		/* rank of the expression text, 0 = unconditional */
	uint32_t mask;		/* AV kinds: permissions; type kinds: the default type's value;
				 * xperm kinds: the entry's index in the side's xe + 1 */
	union {
		const char *fname;	/* type_transition: the file name of a filename transition */
		uint64_t key;		/* rec_sort's packed key, while it sorts (no fname) */
	};
	uint16_t s, t, c;	/* ranks of the names */
	uint8_t block;		/* 1 True branch (and unconditional), 0 False */
	uint8_t xtype;		/* xperm kinds: 1 ioctl, 3 nlmsg (part of the key); else 0 */
};
_Static_assert(sizeof(struct avrec) <= 3 * sizeof(void *), "an expanded record stays small");

/* An xperm entry of a side (its records refer to it: AV records stay 24 bytes). */
struct xent {
	const struct sp_avtab_xperms *x;	/* the entry's commands */
	uint64_t pos;		/* its key's place in libsepol's table */
	uint16_t within;	/* its place among that key's entries (file order) */
};

struct avside {
	const struct sp_policy *p;
	const struct policy_core *k;
	uint16_t kind;
	uint32_t *trank, *tval;		/* type value -> rank, rank -> value (ranks 1-based) */
	uint32_t *crank, *cval;		/* classes likewise */
	uint8_t (*porder)[32];		/* class value -> its permission bits in name order (the
					 * named ones first), so a record's names need no sort */
	uint32_t *lrank;		/* [3][nt]: a source (by its rank), target, class's place in
					 * the lines' text order (name + ' ', + ':', + ' '), 1-based;
					 * NULL when a name holds a separator (lines_sort: by text) */
	size_t lw;			/* lrank's row width */
	unsigned hw_t, hw_c;		/* the bits of a type's and of a class's place */
	uint16_t *tlen, *clen;		/* the lengths of type / class names, by rank */
	uint32_t *ctlen;		/* of ctext[rank] */
	uint16_t (*plen)[32];		/* class value -> its permission names' lengths */
	uint32_t *nrank;		/* cond node (0-based) -> rank of its text */
	char **ctext;			/* rank -> "[ expr ]" */
	uint32_t nctext;
	struct avrec *r;
	size_t n, cap;
	size_t want;			/* the records counted before they are expanded */
	struct xent *xe;	/* xperm kinds: the entries, in the table's visit order */
	size_t nxe, capxe;
	struct sp_avtab_entry last;	/* the previous xperm entry (zero: none; values are >= 1) */
	int err;
};

/* The rule kinds' words as lines print them, and their lengths. */
static const char *const kind_word[] = { [SP_AVTAB_ALLOWED] = "allow",
	[SP_AVTAB_AUDITALLOW] = "auditallow", [SP_AVTAB_AUDITDENY] = "dontaudit",
	[SP_AVTAB_TRANSITION] = "type_transition", [SP_AVTAB_MEMBER] = "type_member",
	[SP_AVTAB_CHANGE] = "type_change" };
static const uint8_t kind_len[] = { [SP_AVTAB_ALLOWED] = 5, [SP_AVTAB_AUDITALLOW] = 10,
	[SP_AVTAB_AUDITDENY] = 9, [SP_AVTAB_TRANSITION] = 15, [SP_AVTAB_MEMBER] = 11,
	[SP_AVTAB_CHANGE] = 11 };

struct rank_ent {
	const char *name;
	uint32_t value;
};

static int rank_cmp(const void *x, const void *y)
{
	const struct rank_ent *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->value > b->value) - (a->value < b->value);
}

/* rank[v] for names[1..n] (NULL names: rank 0), equal names one rank; val[rank] = a value of
 * it.  Returns the number of ranks, or -ENOMEM. */
static long rank_names(const struct sp_allocator *al, const char *const *names, uint32_t n,
		       uint32_t *rank, uint32_t *val)
{
	struct rank_ent *e = sp_alloc(al, ((size_t)n + 1) * sizeof(*e), 0);
	if (!e)
		return -ENOMEM;
	uint32_t m = 0;
	for (uint32_t v = 1; v <= n; v++) {
		rank[v] = 0;
		if (names[v])
			e[m++] = (struct rank_ent){ names[v], v };
	}
	qsort(e, m, sizeof(*e), rank_cmp);
	uint32_t r = 0;
	for (uint32_t i = 0; i < m; i++) {
		if (!i || strcmp(e[i].name, e[i - 1].name))
			val[++r] = e[i].value;
		rank[e[i].value] = r;
	}
	sp_free(al, e, ((size_t)n + 1) * sizeof(*e));
	return r;
}

static void avside_release(struct avside *d)
{
	const struct sp_allocator *al = d->k->alloc;
	size_t nt = (size_t)d->k->ntypes + 1, nc = (size_t)d->k->nclasses + 1;
	size_t nn = (size_t)d->k->ncnode + 1;
	for (uint32_t i = 0; d->ctext && i < nn; i++)
		if (d->ctext[i])
			sp_free(al, d->ctext[i], strlen(d->ctext[i]) + 1);
	sp_free(al, d->ctext, nn * sizeof(*d->ctext));
	sp_free(al, d->nrank, nn * sizeof(*d->nrank));
	sp_free(al, d->lrank, 3 * SP_MAX(nt, nc) * sizeof(uint32_t));
	sp_free(al, d->tlen, nt * sizeof(*d->tlen));
	sp_free(al, d->clen, nc * sizeof(*d->clen));
	sp_free(al, d->ctlen, nn * sizeof(*d->ctlen));
	sp_free(al, d->plen, nc * sizeof(*d->plen));
	sp_free(al, d->trank, nt * sizeof(uint32_t));
	sp_free(al, d->tval, nt * sizeof(uint32_t));
	sp_free(al, d->crank, nc * sizeof(uint32_t));
	sp_free(al, d->cval, nc * sizeof(uint32_t));
	sp_free(al, d->porder, nc * sizeof(*d->porder));
	sp_free(al, d->r, d->cap * sizeof(*d->r));
	sp_free(al, d->xe, d->capxe * sizeof(*d->xe));
}

/* The text of every conditional node, ranked: equal expressions are one key (setools keys
 * rules by the expression's text). */
static int rank_conds(struct avside *d)
{
	const struct sp_allocator *al = d->k->alloc;
	uint32_t nn = d->k->ncnode;
	char **text = sp_zalloc(al, ((size_t)nn + 1) * sizeof(*text), 0);
	uint32_t *val = sp_alloc(al, ((size_t)nn + 1) * sizeof(*val), 0);
	d->ctext = sp_zalloc(al, ((size_t)nn + 1) * sizeof(*d->ctext), 0);
	d->nrank = sp_alloc(al, ((size_t)nn + 1) * sizeof(*d->nrank), 0);
	int rc = text && val && d->ctext && d->nrank ? 0 : -ENOMEM;
	static const char bad[] = "?";	/* an expression the kernel would evaluate as false */
	for (uint32_t i = 1; !rc && i <= nn; i++) {
		int need = sp_policy_cond_format(d->p, i, NULL, 0);
		int ok = need >= 0;
		need = ok ? need : need == -EINVAL ? (int)strlen(bad) : need;
		text[i] = need < 0 ? NULL : sp_alloc(al, (size_t)need + 1, 0);
		if (!text[i])
			rc = need < 0 ? need : -ENOMEM;
		else if (ok)
			sp_policy_cond_format(d->p, i, text[i], (size_t)need + 1);
		else
			memcpy(text[i], bad, sizeof(bad));
	}
	long r = rc ? rc : rank_names(al, (const char *const *)text, nn, d->nrank, val);
	rc = r < 0 ? (int)r : 0;
	for (uint32_t i = 1; !rc && i <= (uint32_t)r; i++) {
		d->ctext[i] = text[val[i]];	/* the rank's text moves to ctext */
		text[val[i]] = NULL;
	}
	d->nctext = rc ? 0 : (uint32_t)r;
	for (uint32_t i = 1; text && i <= nn; i++)
		if (text[i])
			sp_free(al, text[i], strlen(text[i]) + 1);
	sp_free(al, text, ((size_t)nn + 1) * sizeof(*text));
	sp_free(al, val, ((size_t)nn + 1) * sizeof(*val));
	return rc;
}

/* The bits of class pc in the order of their permission names, unnamed bits last. */
static void perm_order(const struct policy_class *pc, uint8_t ord[32])
{
	unsigned n = 0;
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned b = 0; b < 32; b++)
			if ((pc->perm[b] == NULL) == (pass == 1))
				ord[n++] = (uint8_t)b;
	for (unsigned i = 1; i < 32 && pc->perm[ord[i]]; i++)	/* insertion: at most 32 names */
		for (unsigned j = i; j && strcmp(pc->perm[ord[j - 1]], pc->perm[ord[j]]) > 0; j--) {
			uint8_t t = ord[j];
			ord[j] = ord[j - 1];
			ord[j - 1] = t;
		}
}

/* a + sep against b + sep (rank_ent names, neither holds sep): their byte order. */
static int sep_cmp(const void *x, const void *y, void *arg)
{
	const unsigned char *a = (const unsigned char *)((const struct rank_ent *)x)->name;
	const unsigned char *b = (const unsigned char *)((const struct rank_ent *)y)->name;
	unsigned sep = (unsigned)(uintptr_t)arg;
	for (;; a++, b++) {
		unsigned ca = *a ? *a : sep, cb = *b ? *b : sep;
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (!*a)
			return 0;
	}
}

/*
 * d->lrank: for each part of a line's "KIND S T:C" head, the names' order with the byte that
 * follows them in the line, which is not always the names' own order ("a_t2:" < "a_t:"); two
 * lines whose heads differ compare as their (S, T, C) places do.  None (NULL) when a type or
 * class name holds ' ' or ':', or is empty: a line's parts could not be told apart.  ntr, ncr:
 * the types' and the classes' rank counts.  0 or -ENOMEM.
 */
static int line_ranks(struct avside *d, uint32_t ntr, uint32_t ncr)
{
	const struct policy_core *k = d->k;
	const struct sp_allocator *al = k->alloc;
	size_t nt = (size_t)k->ntypes + 1, nc = (size_t)k->nclasses + 1, w = SP_MAX(nt, nc);
	struct rank_ent *e = sp_alloc(al, w * sizeof(*e), 0);
	d->lrank = sp_zalloc(al, 3 * w * sizeof(uint32_t), 0);
	if (!e || !d->lrank) {
		sp_free(al, e, w * sizeof(*e));
		return -ENOMEM;
	}
	static const char sep[3] = { ' ', ':', ' ' };
	int ok = 1;
	d->lw = w;
	for (int part = 0; ok && part < 3; part++) {
		uint32_t n = part < 2 ? ntr : ncr;
		for (uint32_t r = 1; ok && r <= n; r++) {
			const char *name = part < 2 ? k->type_name[d->tval[r]] : k->cls[d->cval[r]].name;
			e[r - 1] = (struct rank_ent){ name, r };
			ok = name && *name && !strpbrk(name, " :");
		}
		if (!ok)
			break;
		qsort_r(e, n, sizeof(*e), sep_cmp, (void *)(uintptr_t)(unsigned char)sep[part]);
		uint32_t *lr = d->lrank + (size_t)part * w;
		for (uint32_t i = 0; i < n; i++)
			lr[e[i].value] = i + 1;
	}
	sp_free(al, e, w * sizeof(*e));
	if (!ok) {
		sp_free(al, d->lrank, 3 * w * sizeof(uint32_t));
		d->lrank = NULL;
	}
	d->hw_t = ntr ? 32 - (unsigned)__builtin_clz(ntr) : 1;
	d->hw_c = ncr ? 32 - (unsigned)__builtin_clz(ncr) : 1;
	return 0;
}

/* The lengths of the names a line is made of (d's ranked types and classes, its condition
 * texts, its classes' permissions), so that formatting a line measures none.  Lengths past
 * 65,535 are kept as 65,535 and such a name measured again (see name_len).  0 or -ENOMEM. */
static int name_lens(struct avside *d, uint32_t ntr, uint32_t ncr)
{
	const struct policy_core *k = d->k;
	const struct sp_allocator *al = k->alloc;
	size_t nt = (size_t)k->ntypes + 1, nc = (size_t)k->nclasses + 1, nn = (size_t)k->ncnode + 1;
	d->tlen = sp_zalloc(al, nt * sizeof(*d->tlen), 0);
	d->clen = sp_zalloc(al, nc * sizeof(*d->clen), 0);
	d->ctlen = sp_zalloc(al, nn * sizeof(*d->ctlen), 0);
	d->plen = sp_zalloc(al, nc * sizeof(*d->plen), 0);
	if (!d->tlen || !d->clen || !d->ctlen || !d->plen)
		return -ENOMEM;
	SP_ASSERT_INTERNAL(!(d->kind & (SP_AVTAB_AV | SP_AVTAB_TYPE)) ||
			   kind_len[d->kind] == strlen(kind_word[d->kind]));
	for (uint32_t r = 1; r <= ntr && r < nt; r++)
		d->tlen[r] = (uint16_t)SP_MIN(strlen(k->type_name[d->tval[r]]), 65535u);
	for (uint32_t r = 1; r <= ncr && r < nc; r++)
		d->clen[r] = (uint16_t)SP_MIN(strlen(k->cls[d->cval[r]].name), 65535u);
	for (uint32_t r = 1; r <= d->nctext && r < nn; r++)
		d->ctlen[r] = (uint32_t)strlen(d->ctext[r]);
	for (uint32_t v = 1; v < nc; v++)
		for (unsigned b = 0; b < 32; b++)
			if (k->cls[v].perm[b])
				d->plen[v][b] = (uint16_t)SP_MIN(strlen(k->cls[v].perm[b]), 65535u);
	return 0;
}

static int avside_ranks(struct avside *d)
{
	const struct policy_core *k = d->k;
	const struct sp_allocator *al = k->alloc;
	size_t nt = (size_t)k->ntypes + 1, nc = (size_t)k->nclasses + 1;
	d->trank = sp_alloc(al, nt * sizeof(uint32_t), 0);
	d->tval = sp_alloc(al, nt * sizeof(uint32_t), 0);
	d->crank = sp_alloc(al, nc * sizeof(uint32_t), 0);
	d->cval = sp_alloc(al, nc * sizeof(uint32_t), 0);
	const char **cn = sp_alloc(al, nc * sizeof(*cn), 0);
	int rc = d->trank && d->tval && d->crank && d->cval && cn ? 0 : -ENOMEM;
	for (uint32_t v = 1; !rc && v < nc; v++)
		cn[v] = k->cls[v].name;
	long r = rc ? rc : rank_names(al, k->type_name, k->ntypes, d->trank, d->tval);
	long rcl = r < 0 ? r : rank_names(al, cn, k->nclasses, d->crank, d->cval);
	sp_free(al, cn, nc * sizeof(*cn));
	if (r < 0 || rcl < 0)
		return r < 0 ? (int)r : (int)rcl;
	if (!(d->porder = sp_alloc(al, nc * sizeof(*d->porder), 0)))
		return -ENOMEM;
	for (uint32_t v = 1; v < nc; v++)
		perm_order(&k->cls[v], d->porder[v]);
	rc = line_ranks(d, (uint32_t)r, (uint32_t)rcl);
	rc = rc ? rc : rank_conds(d);
	return rc ? rc : name_lens(d, (uint32_t)r, (uint32_t)rcl);
}

/* The permissions of a mask that the class names (dontaudit: auditdeny inverted). */
static uint32_t named_mask(const struct policy_core *k, uint16_t c, uint32_t mask)
{
	uint32_t m = 0;
	for (unsigned b = 0; b < 32; b++)
		if ((mask >> b & 1) && c <= k->nclasses && k->cls[c].perm[b])
			m |= 1u << b;
	return m;
}

/* Room in *v (n elements of sz bytes, *cap of them; first: the first capacity) for one more;
 * 0 or -ENOMEM. */
static int vec_room(const struct sp_allocator *al, void **v, size_t n, size_t *cap, size_t sz,
		    size_t first)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : first;
	void *nv = sp_alloc(al, nc * sz, 0);
	if (!nv)
		return -ENOMEM;
	if (*v)
		memcpy(nv, *v, n * sz);
	sp_free(al, *v, *cap * sz);
	*v = nv;
	*cap = nc;
	return 0;
}

static int rec_push(struct avside *d, const struct avrec *r)
{
	int rc = vec_room(d->k->alloc, (void **)&d->r, d->n, &d->cap, sizeof(*d->r), 4096);
	if (!rc)
		d->r[d->n++] = *r;
	return rc;
}

static int expand_pairs(struct avside *d, struct avrec *r, uint32_t s, uint32_t t);

static unsigned bit_len(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

/* libsepol's avtab_alloc: 2^(bit length - 2) slots (2^bit length below 4 rules), <= 2^16 */
static uint32_t libsepol_nslot(uint32_t nrules)
{
	unsigned shift = bit_len(nrules);
	shift = shift > 2 ? shift - 2 : shift;
	return shift > 16 ? 1u << 16 : 1u << shift;
}

/* Xperm entry e appended to d->xe with its place in setools' order; 0 or -ENOMEM. */
static int xent_push(struct avside *d, const struct sp_avtab_entry *e)
{
	int rc = vec_room(d->k->alloc, (void **)&d->xe, d->nxe, &d->capxe, sizeof(*d->xe), 256);
	if (rc)
		return rc;
	int same = e->source == d->last.source && e->target == d->last.target &&
		   e->tclass == d->last.tclass && e->specified == d->last.specified;
	uint64_t slot = sp_avtab_hash(e->source, e->target, e->tclass) &
			(libsepol_nslot(d->k->te_tab.nel) - 1);
	d->xe[d->nxe] = (struct xent){ .x = e->xperms, .within = same ? d->xe[d->nxe - 1].within + 1 : 0,
				       .pos = slot << 48 | (uint64_t)e->source << 32 |
					      (uint32_t)e->target << 16 | e->tclass };
	d->nxe++;
	d->last = *e;
	return 0;
}

/* The permissions (AV kinds) or default type (type kinds) avtab entry e gives its records, 1
 * for an xperm entry that gives some; 0 when it gives none (another kind, no class rank, no
 * named permission). */
static uint32_t entry_mask(const struct avside *d, const struct sp_avtab_entry *e)
{
	if ((e->specified & (SP_AVTAB_AV | SP_AVTAB_TYPE | SP_AVTAB_XPERMS)) != d->kind ||
	    !d->crank[e->tclass])
		return 0;
	if (d->kind & SP_AVTAB_XPERMS)
		return e->xperms != NULL;
	uint32_t mask = d->kind == SP_AVTAB_AUDITDENY ? ~e->data : e->data;
	return (d->kind & SP_AVTAB_AV) ? named_mask(d->k, e->tclass, mask) : mask;
}

/* A side's records counted before they are made: one per pair of member types. */
struct rec_count {
	struct avside *d;
	uint32_t *nnamed;		/* type -> members_named, counted once (~0: not yet) */
	size_t n;
};

/* The member types of t that records name (not attributes, ranked): how many. */
static size_t members_named(struct rec_count *rc, uint32_t t)
{
	if (rc->nnamed[t] != UINT32_MAX)
		return rc->nnamed[t];
	const struct avside *d = rc->d;
	const uint32_t *v;
	size_t n = sp_policy_attr_types(d->p, t, &v), m = 0;
	for (size_t i = 0; i < n; i++)
		m += !(d->k->type_flags[v[i]] & 1) && d->trank[v[i]];
	rc->nnamed[t] = (uint32_t)m;
	return m;
}

static int count_entry(void *ud, const struct sp_avtab_entry *e)
{
	struct rec_count *rc = ud;
	if (entry_mask(rc->d, e))
		rc->n += members_named(rc, e->source) * members_named(rc, e->target);
	return 0;
}

/* The records the side will expand, counted (d->want), and an array of just that size: the
 * largest one a diff makes, never grown nor copied.  0 or -ENOMEM. */
static int records_reserve(struct avside *d)
{
	const struct sp_allocator *al = d->k->alloc;
	size_t nt = (size_t)d->k->ntypes + 1;
	struct rec_count rc = { .d = d, .nnamed = sp_alloc(al, nt * sizeof(*rc.nnamed), 0) };
	if (!rc.nnamed)
		return -ENOMEM;
	memset(rc.nnamed, 0xff, nt * sizeof(*rc.nnamed));
	(void)sp_policy_avtab_foreach(d->p, 0, count_entry, &rc);
	(void)sp_policy_avtab_foreach(d->p, 1, count_entry, &rc);
	size_t nft = d->kind == SP_AVTAB_TRANSITION ? sp_policy_filename_trans_count(d->p) : 0;
	for (size_t i = 0; i < nft; i++) {
		const struct sp_filename_trans *ft = sp_policy_filename_trans(d->p, i);
		if (ft->tclass <= d->k->nclasses && d->crank[ft->tclass])
			rc.n += members_named(&rc, ft->stype) * members_named(&rc, ft->ttype);
	}
	sp_free(al, rc.nnamed, nt * sizeof(*rc.nnamed));
	d->want = rc.n;
	if (!d->want)
		return 0;
	if (!(d->r = sp_alloc(al, d->want * sizeof(*d->r), 0)))
		return -ENOMEM;
	d->cap = d->want;
	return 0;
}

/* One avtab entry of the side's kind, expanded to its (source type, target type) records. */
static int expand_entry(void *ud, const struct sp_avtab_entry *e)
{
	struct avside *d = ud;
	struct avrec r = { .mask = entry_mask(d, e), .block = 1 };
	if (!r.mask)
		return 0;
	if (d->kind & SP_AVTAB_XPERMS) {
		int rc = xent_push(d, e);
		if (rc)
			return rc;
		r = (struct avrec){ .mask = (uint32_t)d->nxe, .block = 1,
				    .xtype = e->xperms->kind == 3 ? 3 : 1 };
	}
	r.c = (uint16_t)d->crank[e->tclass];
	if (e->cond) {
		r.cond = d->nrank[e->cond];
		r.block = e->cond_list ? 1 : 0;
	}
	return expand_pairs(d, &r, e->source, e->target);
}

/* r for every (source type, target type) of the members of s and t. */
static int expand_pairs(struct avside *d, struct avrec *r, uint32_t s, uint32_t t)
{
	const struct policy_core *k = d->k;
	const uint32_t *sv, *tv;
	size_t ns = sp_policy_attr_types(d->p, s, &sv);
	size_t nt = sp_policy_attr_types(d->p, t, &tv);
	for (size_t i = 0; i < ns; i++) {
		if ((k->type_flags[sv[i]] & 1) || !d->trank[sv[i]])
			continue;
		r->s = (uint16_t)d->trank[sv[i]];
		for (size_t j = 0; j < nt; j++) {
			if ((k->type_flags[tv[j]] & 1) || !d->trank[tv[j]])
				continue;
			r->t = (uint16_t)d->trank[tv[j]];
			int rc = rec_push(d, r);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int fname_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return !!a - !!b;
	return strcmp(a, b);
}

static int rec_key_cmp(const struct avrec *a, const struct avrec *b, int with_cond)
{
	if (with_cond && a->cond != b->cond)
		return a->cond < b->cond ? -1 : 1;
	if (with_cond && a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	if (a->xtype != b->xtype)
		return a->xtype < b->xtype ? -1 : 1;
	return fname_cmp(a->fname, b->fname);
}

static int rec_cmp(const void *x, const void *y)
{
	return rec_key_cmp(x, y, 1);
}

/* The record's key in rec_key_cmp's order packed by widths w (cond, s, t, c, xtype; the
 * block one bit), for records without a file name. */
static inline uint64_t rec_key(const struct avrec *r, const unsigned w[5])
{
	uint64_t k = (uint64_t)r->cond << 1 | r->block;
	k = k << w[1] | r->s;
	k = k << w[2] | r->t;
	k = k << w[3] | r->c;
	return k << w[4] | r->xtype;
}

#define RADIX_DIG 11
#define RADIX_NB (1u << RADIX_DIG)
#define RADIX_NPASS ((64 + RADIX_DIG - 1) / RADIX_DIG)
#define RADIX_ESZ 24u		/* struct avrec and struct dline: three words */

static inline uint64_t radix_key(const unsigned char *e, unsigned kw)
{
	uint64_t k;
	memcpy(&k, e + 8 * kw, sizeof(k));
	return k;
}

/*
 * n elements of RADIX_ESZ bytes at v sorted by the 64-bit key in their word kw (keys below
 * 2^bits), stably: an LSD radix sort of RADIX_DIG bits a pass through tmp (n elements), every
 * pass's counts taken in one pass over the keys, a pass whose digit is the same in every key
 * skipped.  cnt: RADIX_NPASS zeroed rows.  Returns the array that holds the result, v or tmp.
 * (memcpy moves the elements and reads the keys: the arrays hold records or lines.)
 */
static unsigned char *radix_sort24(unsigned char *v, unsigned char *tmp, size_t n, unsigned kw,
				   unsigned bits, uint32_t (*cnt)[RADIX_NB])
{
	unsigned npass = (bits + RADIX_DIG - 1) / RADIX_DIG;
	unsigned char *a = v, *b = tmp;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = radix_key(a + i * RADIX_ESZ, kw);
		for (unsigned p = 0; p < npass; p++)
			cnt[p][k >> (p * RADIX_DIG) & (RADIX_NB - 1)]++;
	}
	for (unsigned p = 0; p < npass; p++) {
		unsigned shift = p * RADIX_DIG;
		uint32_t *c = cnt[p], sum = 0;
		if (c[radix_key(a, kw) >> shift & (RADIX_NB - 1)] == n)
			continue;	/* one value of this digit: the pass would move nothing */
		for (unsigned x = 0; x < RADIX_NB; x++) {	/* counts -> starts */
			uint32_t t = c[x];
			c[x] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++) {
			const unsigned char *e = a + i * RADIX_ESZ;
			memcpy(b + (size_t)c[radix_key(e, kw) >> shift & (RADIX_NB - 1)]++ * RADIX_ESZ,
			       e, RADIX_ESZ);
		}
		unsigned char *t = a;
		a = b;
		b = t;
	}
	return a;
}

/*
 * The records in rec_cmp's order, stably (of equal keys the first pushed stays first, as with
 * glibc's merge sort): an LSD radix sort of the packed keys, 11 bits a pass (4 passes for the
 * usual 43-bit keys, not 6 of a byte: fewer copies of the 24-byte records), every pass's counts
 * taken in one pass over the keys, a pass whose digit is the same in every key skipped; when
 * no record has a file name, the keys fit 64 bits and the count 32; else (or without memory
 * for the second array) qsort.
 */
static void rec_sort(struct avside *d)
{
	_Static_assert(sizeof(struct avrec) == RADIX_ESZ && offsetof(struct avrec, key) == 8,
		       "the radix sort's key is a record's second word");
	uint64_t mx[5] = { 0 };
	int fname = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct avrec *r = &d->r[i];
		mx[0] |= r->cond, mx[1] |= r->s, mx[2] |= r->t, mx[3] |= r->c, mx[4] |= r->xtype;
		fname |= r->fname != NULL;
	}
	unsigned w[5], bits = 1;
	for (int f = 0; f < 5; f++)
		bits += w[f] = bit_len(mx[f]);
	const struct sp_allocator *al = d->k->alloc;
	int radix = !fname && bits <= 64 && d->n >= 64 && d->n <= UINT32_MAX;
	struct avrec *tmp = radix ? sp_alloc(al, d->n * sizeof(*tmp), 0) : NULL;
	uint32_t (*cnt)[RADIX_NB] = tmp ? sp_zalloc(al, RADIX_NPASS * sizeof(*cnt), 0) : NULL;
	if (!cnt) {
		sp_free(al, tmp, tmp ? d->n * sizeof(*tmp) : 0);
		qsort(d->r, d->n, sizeof(*d->r), rec_cmp);
		return;
	}
	for (size_t i = 0; i < d->n; i++)
		d->r[i].key = rec_key(&d->r[i], w);	/* in place of the (NULL) file name */
	struct avrec *a = (struct avrec *)radix_sort24((unsigned char *)d->r, (unsigned char *)tmp,
						       d->n, 1, bits, cnt);
	sp_free(al, cnt, RADIX_NPASS * sizeof(*cnt));
	for (size_t i = 0; i < d->n; i++)
		a[i].fname = NULL;
	if (a == d->r) {
		sp_free(al, tmp, d->n * sizeof(*tmp));
		return;
	}
	sp_free(al, d->r, d->cap * sizeof(*d->r));	/* the sorted copy becomes it */
	d->r = a;
	d->cap = d->n;
}

/* Sort, unite equal keys, drop from conditional records what the unconditional one of their
 * triple allows (unconditional records sort first: cond 0). */
static void avside_settle(struct avside *d)
{
	if (d->n)	/* no records: no array to sort (qsort wants one) */
		rec_sort(d);
	if (d->kind & SP_AVTAB_XPERMS)
		return;	/* a key's records stay: their commands are united when printed */
	size_t m = 0;
	int av = d->kind & SP_AVTAB_AV;
	for (size_t i = 0; i < d->n; i++) {
		if (m && !rec_cmp(&d->r[m - 1], &d->r[i]))
			d->r[m - 1].mask |= av ? d->r[i].mask : 0;	/* type rules: one stays */
		else
			d->r[m++] = d->r[i];
	}
	d->n = m;
	if (!av)
		return;
	size_t nu = 0;
	while (nu < m && !d->r[nu].cond)
		nu++;
	size_t o = nu;
	for (size_t i = nu; i < m; i++) {
		struct avrec r = d->r[i];
		size_t lo = 0, hi = nu;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (rec_key_cmp(&d->r[mid], &r, 0) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nu && !rec_key_cmp(&d->r[lo], &r, 0))
			r.mask &= ~d->r[lo].mask;
		if (r.mask)
			d->r[o++] = r;
	}
	d->n = o;
}

static int avside_build(struct avside *d, const struct sp_policy *p, uint16_t kind)
{
	*d = (struct avside){ .p = p, .k = p->core, .kind = kind };
	int rc = avside_ranks(d);
	if (!rc)
		rc = records_reserve(d);
	if (!rc)
		rc = sp_policy_avtab_foreach(p, 0, expand_entry, d);
	if (!rc)
		rc = sp_policy_avtab_foreach(p, 1, expand_entry, d);
	size_t nft = kind == SP_AVTAB_TRANSITION ? sp_policy_filename_trans_count(p) : 0;
	for (size_t i = 0; !rc && i < nft; i++) {
		const struct sp_filename_trans *ft = sp_policy_filename_trans(p, i);
		struct avrec r = { .mask = ft->otype, .fname = ft->name, .block = 1,
				   .c = (uint16_t)(ft->tclass <= d->k->nclasses ?
						   d->crank[ft->tclass] : 0) };
		rc = r.c ? expand_pairs(d, &r, ft->stype, ft->ttype) : 0;
	}
	SP_ASSERT_INTERNAL(rc || d->n == d->want);	/* the count and the expansion agree */
	if (!rc)
		avside_settle(d);
	return rc;
}

/* ---- the two sides merged, the lines ---- */

static const char *tn(const struct avside *d, uint16_t rank)
{
	return d->k->type_name[d->tval[rank]];
}

static const char *cn(const struct avside *d, uint16_t rank)
{
	return d->k->cls[d->cval[rank]].name;
}

static int xcmp(const struct avside *a, const struct avrec *x, const struct avside *b,
		const struct avrec *y)
{
	if (!x->cond != !y->cond)
		return x->cond ? 1 : -1;
	int c = x->cond ? strcmp(a->ctext[x->cond], b->ctext[y->cond]) : 0;
	if (!c)
		c = (int)x->block - (int)y->block;
	if (!c)
		c = strcmp(tn(a, x->s), tn(b, y->s));
	if (!c)
		c = strcmp(tn(a, x->t), tn(b, y->t));
	if (!c)
		c = strcmp(cn(a, x->c), cn(b, y->c));
	if (!c)
		c = (int)x->xtype - (int)y->xtype;
	return c ? c : fname_cmp(x->fname, y->fname);
}

/* The permission names of a record, sorted, and their lengths (d->plen); their count. */
static int rec_perms(const struct avside *d, const struct avrec *r, const char *out[32],
		     uint16_t len[32])
{
	const struct policy_class *pc = &d->k->cls[d->cval[r->c]];
	const uint8_t *ord = d->porder[d->cval[r->c]];
	const uint16_t *pl = d->plen[d->cval[r->c]];
	int n = 0;
	for (uint32_t i = 0, rem = r->mask; rem; i++)	/* ord: a permutation of 0..31 */
		if (rem >> ord[i] & 1) {
			len[n] = pl[ord[i]];
			out[n++] = pc->perm[ord[i]];
			rem &= ~(1u << ord[i]);
		}
	return n;
}

/* A line: its text, or (a list's lazy lines) the record whose rule it is, written when the
 * line is compared or printed. */
struct dline {
	union {
		struct {
			char *key;	/* the sort key when it is not the text (modified rules) */
			char *text;
		};
		struct {
			const struct avrec *rec;	/* lazy: an added or removed rule */
			const struct avside *side;	/* of this side */
		};
	};
	uint64_t head;		/* the key's "KIND S T:C" places (line_head), 0: compare texts */
};

/* A section's lines; their texts are carved from chunks of at least DL_CHUNK bytes, freed
 * together (a diff of two large policies has millions of lines). */
struct dchunk {
	struct dchunk *next;
	size_t size;		/* of the whole chunk, this header included */
};

struct dlines {
	const struct sp_allocator *al;
	struct dline *v;
	size_t n, cap;
	int lazy;		/* the lines are records (push_rule), not texts */
	struct dchunk *chunks;
	char *at;		/* the current chunk's free bytes */
	size_t left;
	/* the permissions part of added and removed AV lines ("perm" or "{ a b }") by (class
	 * rank, mask): a list's lines come from one side, and few such pairs recur across a
	 * policy's rules (perms_text); open addressing, key 0 = empty */
	struct ptext { uint64_t key; const char *s; uint32_t len; } *pt;
	size_t npt, pt_mask;
};

#define DL_CHUNK (1u << 20)

/* n bytes for a line's text, from o's chunks; NULL when out of memory. */
static char *dl_alloc(struct dlines *o, size_t n)
{
	if (n > o->left) {
		size_t size = sizeof(struct dchunk) + SP_MAX(n, (size_t)DL_CHUNK);
		struct dchunk *c = sp_alloc(o->al, size, 0);
		if (!c)
			return NULL;
		*c = (struct dchunk){ o->chunks, size };
		o->chunks = c;
		o->at = (char *)(c + 1);
		o->left = size - sizeof(*c);
	}
	char *s = o->at;
	o->at += n;
	o->left -= n;
	return s;
}

/* pos += snprintf(...), clamped: the buffer-length contract of a two-pass format. */
#define PUT(buf, len, pos, ...) \
	((pos) += (size_t)snprintf((buf) ? (buf) + (pos) : NULL, \
				   (buf) && (pos) < (len) ? (len) - (pos) : 0, __VA_ARGS__))

/* "KIND S T:C PERMS;[ COND:BRANCH]" (mod: "{ common +added -removed };[ COND]"), the parts'
 * lengths beside them (a length of 65,535 or more: measure the part). */
struct rline {
	const char *kind, *s, *t, *c, *cond;
	uint32_t lkind, ls, lt, lc, lcond;
	int block, mod;
	const char *const *perm;	/* perm[i] with sign[i] ('\0', '+' or '-') */
	const uint16_t *plen;		/* perm[i]'s length */
	const char *ptext;		/* else (not NULL): the permissions part, formatted */
	uint32_t lptext;
	const char *sign;
	int n;
	const char *def, *olddef, *fname;	/* type rules: the default (mod: new, old) */
};

static inline size_t part_len(const char *s, uint32_t n)
{
	return n >= 65535 ? strlen(s) : n;
}

/* The line's length. */
static sp_always_inline size_t rline_len(const struct rline *l)
{
	size_t n = part_len(l->kind, l->lkind) + part_len(l->s, l->ls) + part_len(l->t, l->lt) +
		   part_len(l->c, l->lc) + 5;	/* "  : " and ';' */
	if (l->def && l->mod) {
		n += 3 + strlen(l->def) + strlen(l->olddef);
	} else if (l->def) {
		n += strlen(l->def);
	} else if (l->ptext) {
		n += l->lptext;
	} else if (l->n == 1 && !l->mod) {
		n += part_len(l->perm[0], l->plen[0]);
	} else {
		n += 3;		/* '{', " }" */
		for (int i = 0; i < l->n; i++)
			n += 1 + (l->sign[i] != 0) + part_len(l->perm[i], l->plen[i]);
	}
	if (l->fname)
		n += 1 + strlen(l->fname);
	if (l->cond)
		n += 1 + part_len(l->cond, l->lcond) + (l->mod ? 0 : l->block ? 5 : 6);
	return n;
}

static inline char *put(char *w, const char *s, size_t n)
{
	memcpy(w, s, n);
	return w + n;
}

/* The line (see struct rline) into buf, NUL-terminated, when its length is below len (else
 * nothing is written); returns its length.  Strings are copied by their known lengths, not
 * formatted: a diff of two large policies writes millions of lines. */
static size_t rline_fmt(const struct rline *l, char *buf, size_t len)
{
	size_t n = rline_len(l);
	if (!buf || n >= len)
		return n;
	char *w = put(buf, l->kind, part_len(l->kind, l->lkind));
	*w++ = ' ';
	w = put(w, l->s, part_len(l->s, l->ls));
	*w++ = ' ';
	w = put(w, l->t, part_len(l->t, l->lt));
	*w++ = ':';
	w = put(w, l->c, part_len(l->c, l->lc));
	*w++ = ' ';
	if (l->def && l->mod) {
		*w++ = '+';
		w = put(w, l->def, strlen(l->def));
		w = put(w, " -", 2);
		w = put(w, l->olddef, strlen(l->olddef));
	} else if (l->def) {
		w = put(w, l->def, strlen(l->def));
	} else if (l->ptext) {
		w = put(w, l->ptext, l->lptext);
	} else if (l->n == 1 && !l->mod) {
		w = put(w, l->perm[0], part_len(l->perm[0], l->plen[0]));
	} else {
		*w++ = '{';
		for (int i = 0; i < l->n; i++) {
			*w++ = ' ';
			if (l->sign[i])
				*w++ = l->sign[i];
			w = put(w, l->perm[i], part_len(l->perm[i], l->plen[i]));
		}
		w = put(w, " }", 2);
	}
	if (l->fname) {
		*w++ = ' ';
		w = put(w, l->fname, strlen(l->fname));
	}
	*w++ = ';';
	if (l->cond) {
		*w++ = ' ';
		w = put(w, l->cond, part_len(l->cond, l->lcond));
		if (!l->mod)
			w = l->block ? put(w, ":True", 5) : put(w, ":False", 6);
	}
	*w = '\0';
	SP_ASSERT_INTERNAL((size_t)(w - buf) == n);
	return n;
}

/* The line as a string of o's: formatted straight into the chunk's free bytes, again into
 * memory of its own length only when it did not fit there. */
static char *rline_new(struct dlines *o, const struct rline *l)
{
	size_t n = rline_fmt(l, o->left ? o->at : NULL, o->left);
	if (n < o->left)
		return dl_alloc(o, n + 1);	/* the bytes just written */
	char *s = dl_alloc(o, n + 1);
	if (s)
		rline_fmt(l, s, n + 1);
	return s;
}

/* The places of record r's line head in the text order of its side's lines (d->lrank),
 * packed as tightly as the side's counts allow so that heads compare as numbers (and sort in
 * few radix passes); 0 when d has none. */
static uint64_t line_head(const struct avside *d, const struct avrec *r)
{
	if (!d->lrank)
		return 0;
	const uint32_t *lr = d->lrank;
	return (uint64_t)lr[r->s] << (d->hw_t + d->hw_c) | (uint64_t)lr[d->lw + r->t] << d->hw_c |
	       lr[2 * d->lw + r->c];
}

/* Room for at most n lines in o, taken once: pages a list does not fill are never touched. */
static int lines_reserve(struct dlines *o, size_t n)
{
	if (!n || n <= o->cap)
		return 0;
	struct dline *v = sp_alloc(o->al, n * sizeof(*v), 0);
	if (!v)
		return -ENOMEM;
	if (o->v)
		memcpy(v, o->v, o->n * sizeof(*v));
	sp_free(o->al, o->v, o->cap * sizeof(*o->v));
	o->v = v;
	o->cap = n;
	return 0;
}

/* Room for one more line in o (doubling): the slot, or NULL when out of memory. */
static struct dline *lines_next(struct dlines *o)
{
	if (o->n == o->cap && lines_reserve(o, o->cap ? o->cap * 2 : 1024))
		return NULL;
	return &o->v[o->n++];
}

/* A line (its key, when not NULL, and text are o's; head: line_head of the rule the key
 * shows) into o, a list of texts. */
static int lines_push(struct dlines *o, char *key, char *text, uint64_t head)
{
	SP_ASSERT_INTERNAL(!o->lazy);
	struct dline *l = text ? lines_next(o) : NULL;
	if (!l)
		return -ENOMEM;
	*l = (struct dline){ .key = key, .text = text, .head = head };
	return 0;
}

/* The line of record r of side d, without its permissions or default: kind, names and
 * condition with their lengths. */
static sp_always_inline struct rline rline_of(const struct avside *d, const struct avrec *r,
					       int mod)
{
	return (struct rline){ .kind = kind_word[d->kind], .s = tn(d, r->s), .t = tn(d, r->t),
		.c = cn(d, r->c), .cond = r->cond ? d->ctext[r->cond] : NULL,
		.lkind = kind_len[d->kind], .ls = d->tlen[r->s],
		.lt = d->tlen[r->t], .lc = d->clen[r->c], .lcond = r->cond ? d->ctlen[r->cond] : 0,
		.block = r->block, .mod = mod };
}

/* perms_text's table doubled (or made); 0 or -ENOMEM. */
static int pt_grow(struct dlines *o)
{
	size_t ncap = o->pt ? (o->pt_mask + 1) * 2 : 1024;
	struct ptext *nt = sp_zalloc(o->al, ncap * sizeof(*nt), 0);
	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; o->pt && i <= o->pt_mask; i++)
		if (o->pt[i].key) {
			size_t h = (size_t)(o->pt[i].key * 0x9e3779b97f4a7c15ull >> 40) & (ncap - 1);
			while (nt[h].key)
				h = (h + 1) & (ncap - 1);
			nt[h] = o->pt[i];
		}
	sp_free(o->al, o->pt, o->pt ? (o->pt_mask + 1) * sizeof(*o->pt) : 0);
	o->pt = nt;
	o->pt_mask = ncap - 1;
	return 0;
}

/*
 * The permissions part of record r's line as push_rule prints it ("perm", or "{ a b c }" in
 * name order), formatted once per (class, mask) of the list o (its lines are all of side d)
 * and kept in o's chunks; NULL when out of memory.
 */
static const char *perms_text(struct dlines *o, const struct avside *d, const struct avrec *r,
			      uint32_t *len)
{
	uint64_t key = (uint64_t)r->c << 32 | r->mask;	/* class ranks start at 1: never 0 */
	if ((o->npt + 1) * 2 > (o->pt ? o->pt_mask + 1 : 0) && pt_grow(o))
		return NULL;
	size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 40) & o->pt_mask;
	for (; o->pt[h].key; h = (h + 1) & o->pt_mask)
		if (o->pt[h].key == key) {
			*len = o->pt[h].len;
			return o->pt[h].s;
		}
	const char *perm[32];
	uint16_t plen[32];
	int n = rec_perms(d, r, perm, plen);
	size_t total = n == 1 ? part_len(perm[0], plen[0]) : 3;	/* '{' and " }" */
	for (int i = 0; n != 1 && i < n; i++)
		total += 1 + part_len(perm[i], plen[i]);
	char *t = dl_alloc(o, total + 1), *w = t;
	if (!t)
		return NULL;
	if (n == 1) {
		w = put(w, perm[0], total);
	} else {
		*w++ = '{';
		for (int i = 0; i < n; i++) {
			*w++ = ' ';
			w = put(w, perm[i], part_len(perm[i], plen[i]));
		}
		w = put(w, " }", 2);
	}
	*w = '\0';
	o->pt[h] = (struct ptext){ key, t, (uint32_t)total };
	o->npt++;
	*len = (uint32_t)total;
	return t;
}

/* The line of record r of side d as a rule of its own (an added or removed rule) into buf
 * when it is shorter than len (rline_fmt's contract); its length, or -ENOMEM. */
static long rule_fmt(struct dlines *o, const struct avside *d, const struct avrec *r, char *buf,
		     size_t len)
{
	struct rline l = rline_of(d, r, 0);
	l.fname = r->fname;
	if (d->kind & SP_AVTAB_AV) {
		if (!(l.ptext = perms_text(o, d, r, &l.lptext)))
			return -ENOMEM;
	} else {
		l.def = d->k->type_name[r->mask];
	}
	return (long)rline_fmt(&l, buf, len);
}

/* Lazy line x's text, in o's chunks; NULL when out of memory. */
static char *rule_text(struct dlines *o, const struct dline *x)
{
	/* measured first: its permissions' text, made on first use, takes chunk bytes too */
	long n = rule_fmt(o, x->side, x->rec, NULL, 0);
	char *t = n < 0 ? NULL : dl_alloc(o, (size_t)n + 1);
	if (t)
		rule_fmt(o, x->side, x->rec, t, (size_t)n + 1);
	return t;
}

/* A record of side d as a rule of its own (an added or removed rule): a lazy line. */
static int push_rule(struct dlines *o, const struct avside *d, const struct avrec *r)
{
	SP_ASSERT_INTERNAL(o->lazy || !o->n);	/* a list holds one kind of line */
	struct dline *l = lines_next(o);
	if (!l)
		return -ENOMEM;
	*l = (struct dline){ .rec = r, .side = d, .head = line_head(d, r) };
	o->lazy = 1;
	return 0;
}

/* A lazy list's lines made texts (for sorts that compare texts throughout); 0 or -ENOMEM. */
static int lines_materialize(struct dlines *o)
{
	for (size_t i = 0; o->lazy && i < o->n; i++) {
		char *t = rule_text(o, &o->v[i]);
		if (!t)
			return -ENOMEM;
		o->v[i] = (struct dline){ .key = NULL, .text = t, .head = o->v[i].head };
	}
	o->lazy = 0;
	return 0;
}

/* The line of a modified rule and its sort key (the rule of side a, head its line_head),
 * both owned by o. */
static int push_pair(struct dlines *o, const struct rline *line, const struct rline *key,
		     uint64_t head)
{
	char *text = rline_new(o, line), *k = rline_new(o, key);
	if (!k || !text)
		return -ENOMEM;
	return lines_push(o, k, text, head);
}

/* A type rule both sides have: modified when the default types' names differ. */
static int push_modified_type(struct dlines *o, const struct avside *a, const struct avrec *x,
			      const struct avside *b, const struct avrec *y)
{
	const char *old = a->k->type_name[x->mask], *new = b->k->type_name[y->mask];
	if (!old || !new || !strcmp(old, new))
		return 0;
	struct rline l = rline_of(a, x, 1);
	l.def = new, l.olddef = old, l.fname = x->fname;
	struct rline k = l;
	k.mod = 0, k.def = old;
	return push_pair(o, &l, &k, line_head(a, x));
}

/* A record both sides have: a modified rule when the permission names differ (0 if not). */
static int push_modified(struct dlines *o, const struct avside *a, const struct avrec *x,
			 const struct avside *b, const struct avrec *y)
{
	const char *pa[32], *pb[32], *perm[64];
	uint16_t la[32], lb[32], plen[64];
	char sign[64];
	int na = rec_perms(a, x, pa, la), nb = rec_perms(b, y, pb, lb), n = 0, i = 0, j = 0;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : strcmp(pa[i], pb[j]);
		if (!c) {
			plen[n] = la[i], perm[n] = pa[i++], sign[n++] = 0, j++;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	int ncommon = n;
	if (ncommon == na && ncommon == nb)
		return 0;
	/* the common names, then b's own (+), then a's own (-), each sorted */
	for (int k = 0, m = 0; k < nb; k++) {
		while (m < na && strcmp(pa[m], pb[k]) < 0)
			m++;
		if (m == na || strcmp(pa[m], pb[k]))
			plen[n] = lb[k], perm[n] = pb[k], sign[n++] = '+';
	}
	for (int k = 0, m = 0; k < na; k++) {
		while (m < nb && strcmp(pb[m], pa[k]) < 0)
			m++;
		if (m == nb || strcmp(pb[m], pa[k]))
			plen[n] = la[k], perm[n] = pa[k], sign[n++] = '-';
	}
	struct rline l = rline_of(a, x, 1);
	l.perm = perm, l.plen = plen, l.sign = sign, l.n = n;
	static const char nosign[32];
	struct rline k = l;
	k.mod = 0, k.perm = pa, k.plen = la, k.sign = nosign, k.n = na;
	return push_pair(o, &l, &k, line_head(a, x));
}

#define LINES_RUNS_MAX 4096	/* more runs than this: qsort (lines_sort) */
#define LAZY_RUN_MAX 64		/* equal heads sorted with their texts' pointers on the stack */

/* The lines' text order: by their heads' places when both have them and they differ (the
 * order of the heads' texts, and the heads come first), else by the texts. */
static sp_always_inline int dline_cmp(const struct dline *a, const struct dline *b)
{
	if (a->head && b->head && a->head != b->head)
		return a->head < b->head ? -1 : 1;
	return strcmp(a->key ? a->key : a->text, b->key ? b->key : b->text);
}

static int line_cmp(const void *x, const void *y)
{
	return dline_cmp(x, y);
}

/* Runs [st[r], st[r + 1]) of src merged two by two into dst; the run starts of the result
 * left in st; returns their count. */
static size_t merge_runs(const struct dline *src, struct dline *dst, size_t *st, size_t runs)
{
	size_t m = 0;
	for (size_t r = 0; r < runs; r += 2) {
		size_t i = st[r], mid = st[r + 1], end = r + 1 < runs ? st[r + 2] : mid, k = i;
		size_t j = mid;
		while (i < mid && j < end)
			dst[k++] = dline_cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
		while (i < mid)
			dst[k++] = src[i++];
		while (j < end)
			dst[k++] = src[j++];
		st[m++] = st[r];
	}
	st[m] = st[runs];
	return m;
}

/* Lazy lines [i, j) of o (equal heads) sorted by their texts, stably, by insertion; the
 * texts are made in o's chunks.  0 or -ENOMEM. */
static int run_sort_lazy(struct dlines *o, size_t i, size_t j)
{
	char *text[LAZY_RUN_MAX], **t = text;
	if (j - i > LAZY_RUN_MAX && !(t = sp_alloc(o->al, (j - i) * sizeof(*t), 0)))
		return -ENOMEM;
	int rc = 0;
	for (size_t k = i; k < j && !rc; k++)
		rc = (t[k - i] = rule_text(o, &o->v[k])) ? 0 : -ENOMEM;
	for (size_t k = i + 1; k < j && !rc; k++) {
		struct dline x = o->v[k];
		char *xt = t[k - i];
		size_t m = k;
		for (; m > i && strcmp(t[m - 1 - i], xt) > 0; m--) {
			o->v[m] = o->v[m - 1];
			t[m - i] = t[m - 1 - i];
		}
		o->v[m] = x;
		t[m - i] = xt;
	}
	if (t != text)
		sp_free(o->al, t, (j - i) * sizeof(*t));
	return rc;
}

/*
 * The lines sorted by their heads, a stable LSD radix sort of 11 bits a pass (every pass's
 * counts taken in one pass), then each run of equal heads (a rule's conditional variants, a
 * few lines) by text, by insertion: line_cmp's order.  0, or -1 when a line has no head, the
 * lines are few or memory is short (lines_sort merges then).
 */
static int lines_radix(struct dlines *o)
{
	_Static_assert(sizeof(struct dline) == RADIX_ESZ && offsetof(struct dline, head) == 16,
		       "the radix sort's key is a line's third word");
	size_t n = o->n;
	uint64_t mx = 0;
	if (n < 64 || n > UINT32_MAX)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!o->v[i].head)
			return -1;
		mx |= o->v[i].head;
	}
	struct dline *tmp = sp_alloc(o->al, n * sizeof(*tmp), 0);
	uint32_t (*cnt)[RADIX_NB] = tmp ? sp_zalloc(o->al, RADIX_NPASS * sizeof(*cnt), 0) : NULL;
	if (!cnt) {
		sp_free(o->al, tmp, tmp ? n * sizeof(*tmp) : 0);
		return -1;
	}
	unsigned char *a = radix_sort24((unsigned char *)o->v, (unsigned char *)tmp, n, 2,
					64 - (unsigned)__builtin_clzll(mx), cnt);
	if (a != (unsigned char *)o->v)
		memcpy(o->v, a, n * sizeof(*o->v));
	sp_free(o->al, tmp, n * sizeof(*tmp));
	sp_free(o->al, cnt, RADIX_NPASS * sizeof(*cnt));
	for (size_t i = 0, j; i < n; i = j) {	/* equal heads: by text, stably */
		for (j = i + 1; j < n && o->v[j].head == o->v[i].head; j++)
			;
		if (o->lazy) {
			if (j - i > 1 && run_sort_lazy(o, i, j))
				return -1;
			continue;
		}
		for (size_t k = i + 1; k < j; k++) {
			struct dline x = o->v[k];
			size_t m = k;
			for (; m > i && line_cmp(&o->v[m - 1], &x) > 0; m--)
				o->v[m] = o->v[m - 1];
			o->v[m] = x;
		}
	}
	return 0;
}

/*
 * The lines sorted by line_cmp.  They come in a few ascending runs (a side's records are in
 * the text's order within one condition, each condition after the unconditional ones), so the
 * runs are found and merged: n comparisons a level over log2(runs) levels instead of a sort's
 * n log2(n).  More than LINES_RUNS_MAX runs, or no memory for the merge: qsort.  Lazy lines
 * are made texts first, unless the radix sort takes them.  0 or -ENOMEM.
 */
static int lines_sort(struct dlines *o)
{
	if (!lines_radix(o))
		return 0;
	int rc = lines_materialize(o);
	if (rc)
		return rc;
	size_t n = o->n, runs = 0;
	size_t *st = sp_alloc(o->al, (LINES_RUNS_MAX + 2) * sizeof(*st), 0);	/* + the end */
	struct dline *tmp = NULL;
	if (st) {
		st[runs++] = 0;
		for (size_t i = 1; i < n && runs <= LINES_RUNS_MAX; i++)
			if (dline_cmp(&o->v[i - 1], &o->v[i]) > 0)
				st[runs++] = i;
		st[runs] = n;
	}
	if (st && runs > 1 && runs <= LINES_RUNS_MAX)
		tmp = sp_alloc(o->al, n * sizeof(*tmp), 0);
	if (tmp) {
		struct dline *src = o->v, *dst = tmp;
		while (runs > 1) {
			runs = merge_runs(src, dst, st, runs);
			struct dline *t = src;
			src = dst;
			dst = t;
		}
		if (src != o->v)
			memcpy(o->v, src, n * sizeof(*src));
		sp_free(o->al, tmp, n * sizeof(*tmp));
	} else if (!st || runs > 1) {
		qsort(o->v, n, sizeof(*o->v), line_cmp);
	}
	sp_free(o->al, st, (LINES_RUNS_MAX + 2) * sizeof(*st));
	return 0;
}

static void lines_release(struct dlines *o)
{
	for (struct dchunk *c = o->chunks, *nx; c; c = nx) {
		nx = c->next;
		sp_free(o->al, c, c->size);
	}
	sp_free(o->al, o->v, o->cap * sizeof(*o->v));
	sp_free(o->al, o->pt, o->pt ? (o->pt_mask + 1) * sizeof(*o->pt) : 0);
}

/* out[0] added, out[1] removed, out[2] modified lines, each sorted as sediff sorts them. */
static int av_merge(const struct avside *a, const struct avside *b, struct dlines out[3])
{
	size_t i = 0, j = 0;
	int rc = lines_reserve(&out[0], b->n);
	rc = rc ? rc : lines_reserve(&out[1], a->n);
	rc = rc ? rc : lines_reserve(&out[2], SP_MIN(a->n, b->n));
	while (!rc && (i < a->n || j < b->n)) {
		int c = i == a->n ? 1 : j == b->n ? -1 : xcmp(a, &a->r[i], b, &b->r[j]);
		if (c > 0)
			rc = push_rule(&out[0], b, &b->r[j++]);
		else if (c < 0)
			rc = push_rule(&out[1], a, &a->r[i++]);
		else
			rc = ((a->kind & SP_AVTAB_AV) ? push_modified : push_modified_type)(
				&out[2], a, &a->r[i++], b, &b->r[j++]);
	}
	for (int k = 0; !rc && k < 3; k++)
		if (out[k].n)
			rc = lines_sort(&out[k]);
	return rc;
}

/* ---- extended permission rules ---- */

#define XWORDS 2048	/* 64 Ki command numbers */

/* The commands of side d's records r[0 .. n) united into set (XWORDS words). */
static void xset_fill(uint32_t *set, const struct avside *d, const struct avrec *r, size_t n)
{
	memset(set, 0, XWORDS * sizeof(*set));
	for (size_t i = 0; i < n; i++) {
		const struct sp_avtab_xperms *x = d->xe[r[i].mask - 1].x;
		for (unsigned b = 0; b < 256; b++) {
			if (!(x->perms[b / 32] >> (b % 32) & 1))
				continue;
			if (x->kind == 2)	/* a whole driver: its 256 functions */
				memset(&set[b * 8], 0xff, 8 * sizeof(*set));
			else
				set[(x->driver * 256u + b) / 32] |= 1u << (b % 32);
		}
	}
}

static int xbit(const uint32_t *set, unsigned i)
{
	return set[i / 32] >> (i % 32) & 1;
}

/* The ranges of set, as setools writes an IoctlSet, each preceded by " " and sign ("+", "-"
 * or ""), a signed range in brackets; into buf (NULL: measure); *nr gets the count. */
static size_t xset_fmt(const uint32_t *set, const char *sign, char *buf, size_t len, size_t pos,
		       unsigned *nr)
{
	*nr = 0;
	for (unsigned w = 0; w < XWORDS; w++) {
		if (!set[w])
			continue;
		for (unsigned i = w * 32; i < (w + 1) * 32; i++) {
			if (!xbit(set, i))
				continue;
			unsigned j = i;
			while (j + 1 < XWORDS * 32 && xbit(set, j + 1))
				j++;
			if (i == j)
				PUT(buf, len, pos, " %s0x%04x", sign, i);
			else
				PUT(buf, len, pos, *sign ? " %s[0x%04x-0x%04x]" : " %s0x%04x-0x%04x",
				    sign, i, j);
			++*nr;
			i = j;
			w = j / 32;
		}
	}
	return pos;
}

static const char *xkind_word(uint16_t kind)
{
	return kind == SP_AVTAB_XPERMS_ALLOWED ? "allowxperm"
	       : kind == SP_AVTAB_XPERMS_AUDITALLOW ? "auditallowxperm" : "dontauditxperm";
}

/* "KIND S T:C TYPE SET;" for a rule of one side (set[0]: braces around two or more ranges),
 * or, modified, "KIND S T:C TYPE { COMMON +ADDED -REMOVED };" (set[0..2]); into buf (NULL:
 * measure); returns the length. */
static size_t xline_fmt(const struct avside *d, const struct avrec *r, uint32_t *const set[3],
			int mod, char *buf, size_t len)
{
	size_t pos = 0;
	unsigned nr = 2, n2;
	PUT(buf, len, pos, "%s %s %s:%s %s", xkind_word(d->kind), tn(d, r->s), tn(d, r->t),
	    cn(d, r->c), r->xtype == 3 ? "nlmsg" : "ioctl");
	if (!mod)
		xset_fmt(set[0], "", NULL, 0, 0, &nr);
	if (nr > 1)
		PUT(buf, len, pos, " {");
	pos = xset_fmt(set[0], "", buf, len, pos, &n2);
	if (mod) {
		pos = xset_fmt(set[1], "+", buf, len, pos, &n2);
		pos = xset_fmt(set[2], "-", buf, len, pos, &n2);
	}
	PUT(buf, len, pos, "%s;", nr > 1 ? " }" : "");
	return pos;
}

static char *xline_new(struct dlines *o, const struct avside *d, const struct avrec *r,
		       uint32_t *const set[3], int mod)
{
	size_t n = xline_fmt(d, r, set, mod, NULL, 0);
	char *s = dl_alloc(o, n + 1);
	if (s)
		xline_fmt(d, r, set, mod, s, n + 1);
	return s;
}

/* The end of the key group starting at r[i]. */
static size_t xgroup_end(const struct avside *d, size_t i)
{
	size_t j = i + 1;
	while (j < d->n && !rec_cmp(&d->r[i], &d->r[j]))
		j++;
	return j;
}

/* The record of d->r[i .. i2) whose entry setools meets first (see the top of the file). */
static size_t xp_origin(const struct avside *d, size_t i, size_t i2)
{
	size_t o = i;
	for (size_t k = i + 1; k < i2; k++) {
		const struct xent *x = &d->xe[d->r[k].mask - 1], *y = &d->xe[d->r[o].mask - 1];
		if (x->pos < y->pos || (x->pos == y->pos && x->within > y->within))
			o = k;
	}
	return o;
}

/* One key of one side (o: added or removed) or of both (modified when the sets differ). */
static int xp_push(struct dlines *o, const struct avside *a, size_t i, size_t i2,
		   const struct avside *b, size_t j, size_t j2, uint32_t *set[5])
{
	if (!b || !a) {
		const struct avside *d = a ? a : b;
		size_t k = a ? xp_origin(d, i, i2) : xp_origin(d, j, j2);
		xset_fill(set[0], d, &d->r[k], 1);
		return lines_push(o, NULL, xline_new(o, d, &d->r[k], set, 0), 0);
	}
	xset_fill(set[3], a, &a->r[i], i2 - i);
	xset_fill(set[4], b, &b->r[j], j2 - j);
	int differ = 0;
	for (unsigned w = 0; w < XWORDS; w++) {
		set[0][w] = set[3][w] & set[4][w];
		set[1][w] = set[4][w] & ~set[3][w];
		set[2][w] = set[3][w] & ~set[4][w];
		differ |= (set[1][w] | set[2][w]) != 0;
	}
	if (!differ)
		return 0;
	char *text = xline_new(o, a, &a->r[i], set, 1);
	uint32_t *own[3] = { set[3], NULL, NULL };
	char *key = xline_new(o, a, &a->r[i], own, 0);	/* the sort key: a's rule */
	if (!key || !text)
		return -ENOMEM;
	return lines_push(o, key, text, 0);
}

/* out[0] added, out[1] removed, out[2] modified xperm rules, each sorted. */
static int xp_merge(const struct avside *a, const struct avside *b, struct dlines out[3])
{
	const struct sp_allocator *al = a->k->alloc;
	uint32_t *mem = sp_alloc(al, 5 * XWORDS * sizeof(*mem), 0), *set[5];
	if (!mem)
		return -ENOMEM;
	for (int k = 0; k < 5; k++)
		set[k] = mem + k * XWORDS;
	size_t i = 0, j = 0;
	int rc = 0;
	while (!rc && (i < a->n || j < b->n)) {
		size_t i2 = i < a->n ? xgroup_end(a, i) : i, j2 = j < b->n ? xgroup_end(b, j) : j;
		int c = i == a->n ? 1 : j == b->n ? -1 : xcmp(a, &a->r[i], b, &b->r[j]);
		if (c > 0)
			rc = xp_push(&out[0], NULL, 0, 0, b, j, j2, set), j = j2;
		else if (c < 0)
			rc = xp_push(&out[1], a, i, i2, NULL, 0, 0, set), i = i2;
		else
			rc = xp_push(&out[2], a, i, i2, b, j, j2, set), i = i2, j = j2;
	}
	sp_free(al, mem, 5 * XWORDS * sizeof(*mem));
	for (int k = 0; !rc && k < 3; k++)
		if (out[k].n)
			rc = lines_sort(&out[k]);
	return rc;
}

/* Lazy line i of o, "      X " before it and '\n' after, at buf + *used when it fits in len
 * (else the buffer written out first; a line longer than it alone by stdio).  0 or -ENOMEM. */
static int lazy_put(FILE *f, struct dlines *o, size_t i, char mark, char *buf, size_t len,
		    size_t *used)
{
	const struct dline *x = &o->v[i];
	for (int pass = 0; pass < 2; pass++) {
		size_t room = len - *used;
		long n = room > 9 ? rule_fmt(o, x->side, x->rec, buf + *used + 8, room - 8) : (long)len;
		if (n < 0)
			return -ENOMEM;
		if ((size_t)n + 9 <= room) {
			memcpy(buf + *used, "      ", 6);
			buf[*used + 6] = mark;
			buf[*used + 7] = ' ';
			buf[*used + 8 + n] = '\n';
			*used += (size_t)n + 9;
			return 0;
		}
		fwrite(buf, 1, *used, f);
		*used = 0;
	}
	const char *t = rule_text(o, x);
	if (!t)
		return -ENOMEM;
	fprintf(f, "      %c %s\n", mark, t);
	return 0;
}

static int av_print(FILE *f, const char *title, struct dlines out[3])
{
	static const char *const what[3] = { "Added", "Removed", "Modified" };
	static const char mark[3] = { '+', '-', '*' };
	fprintf(f, "%s Rules (%zu Added, %zu Removed, %zu Modified)\n", title, out[0].n, out[1].n,
		out[2].n);
	for (int k = 0; k < 3; k++) {
		if (out[k].n)
			fprintf(f, "   %s %s Rules: %zu\n", what[k], title, out[k].n);
		char buf[1 << 16];	/* lines gathered, written in blocks: one stdio call each */
		size_t used = 0;
		for (size_t i = 0; i < out[k].n; i++) {
			if (out[k].lazy) {
				int rc = lazy_put(f, &out[k], i, mark[k], buf, sizeof(buf), &used);
				if (rc)
					return rc;
				continue;
			}
			const char *t = out[k].v[i].text;
			size_t n = strlen(t);
			if (used + n + 9 > sizeof(buf)) {
				fwrite(buf, 1, used, f);
				used = 0;
			}
			if (n + 9 > sizeof(buf)) {	/* a line longer than the buffer */
				fprintf(f, "      %c %s\n", mark[k], t);
				continue;
			}
			memcpy(buf + used, "      ", 6);
			buf[used + 6] = mark[k];
			buf[used + 7] = ' ';
			memcpy(buf + used + 8, t, n);
			buf[used + 8 + n] = '\n';
			used += n + 9;
		}
		fwrite(buf, 1, used, f);
	}
	fprintf(f, "\n");
	return 0;
}

int policy_diff_av(const struct sp_policy *pa, const struct sp_policy *pb, uint16_t kind,
		   const char *title, int always, FILE *f)
{
	struct avside a, b;
	const struct sp_allocator *al = pa->core->alloc;
	struct dlines out[3] = { { .al = al }, { .al = al }, { .al = al } };
	int rc = avside_build(&a, pa, kind);
	int rc2 = avside_build(&b, pb, kind);
	rc = rc ? rc : rc2;
	if (!rc)
		rc = (kind & SP_AVTAB_XPERMS ? xp_merge : av_merge)(&a, &b, out);
	if (!rc && (always || out[0].n || out[1].n || out[2].n))
		rc = av_print(f, title, out);
	for (int k = 0; k < 3; k++)
		lines_release(&out[k]);
	avside_release(&a);
	avside_release(&b);
	return rc;
}
