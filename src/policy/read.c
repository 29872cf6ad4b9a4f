/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * read.c - the bounded reader of kernel binary policies (versions 15..35, MLS and non-MLS).
 *
 * Every read goes through a cursor that knows the bytes remaining; every count read from the file
 * is checked against the bytes it implies (count x minimum record size <= remaining) before
 * anything is sized by it, so a hostile file costs at most O(file size) memory and time.  Errors
 * are reported once, as "<section>: <problem>" at the byte offset of the offending field.
 * Sections the decision engine does not need (ocontexts, genfs, constraints, MLS ranges) are
 * walked field by field and validated for shape; the file must end exactly after the last one.
 *
 * Reading only reads: policy_core_read returns a core holding what the file says (symbols, rule
 * lists in file order, conditional nodes, filename transitions, role allow and role_transition
 * rules, the attribute CSR rows, summary counts); index.c finishes it for decisions, and policy_core_free_read frees what this file built.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "policy/policy_int.h"

#define POLICY_MAGIC 0xf97cff8cu
#define POLICY_MOD_MAGIC 0xf97cff8du
#define VMIN 15
#define VMAX 35
/* constraint expression operands (security/selinux/ss/constraint.h): the third context of a
 * validatetrans (u3, r3, t3) is CEXPR_XTARGET; H1L2 (0x80) and the other MLS operands compare
 * levels of the first two contexts and belong in any constraint */
#define CEXPR_XTARGET 0x10u
#define CEXPR_L1L2 0x20u	/* this and the higher operands compare levels: an mls constraint */

struct cur {
	uint32_t te_hist[16];		/* te rules by kind bit (count_te_kinds, count_rules) */
	uint32_t cr_hist[16];		/* conditional rules by kind bit (count_rules) */
	const uint8_t *p;
	size_t len, off;
	uint32_t vers;
	int mls;
	const char *sec;
	struct sp_diags *d;
	const char *file;
	struct policy_core *core;
};


__attribute__((format(printf, 3, 4))) static int bad(struct cur *c, size_t off, const char *fmt,
						     ...)
{
	char msg[SP_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->d)
		sp_diags_add_offset(c->d, SP_SEV_ERROR, -EINVAL, c->file, off, "%s: %s", c->sec, msg);
	return -EINVAL;
}

/* little-endian loads (the compiler makes each one load on a little-endian host) */
static inline uint16_t ld16(const uint8_t *q)
{
	return (uint16_t)(q[0] | q[1] << 8);
}

static inline uint32_t ld32(const uint8_t *q)
{
	return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

static inline size_t left(const struct cur *c)
{
	return c->len - c->off;
}

static int need(struct cur *c, size_t n, const char *what)
{
	if (unlikely(n > left(c)))
		return bad(c, c->off, "truncated %s", what);
	return 0;
}

static int u32s(struct cur *c, uint32_t *v, size_t n, const char *what)
{
	int rc = need(c, 4 * n, what);
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *q = c->p + c->off + 4 * i;
		v[i] = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
		       (uint32_t)q[3] << 24;
	}
	c->off += 4 * n;
	return 0;
}

static int u32(struct cur *c, uint32_t *v, const char *what)
{
	return u32s(c, v, 1, what);
}

/* A count followed by records of at least `minrec` bytes each: bound it by what is left. */
static int count(struct cur *c, uint32_t *n, size_t minrec, const char *what)
{
	size_t at = c->off;
	int rc = u32(c, n, what);
	if (rc)
		return rc;
	if ((uint64_t)*n * minrec > left(c))
		return bad(c, at, "%s count %u exceeds the %zu bytes left", what, *n, left(c));
	return 0;
}

/* Room for need_n elements: at least doubled (from 16), or exactly need_n when `exact`. */
static int resize(const struct sp_allocator *a, void **p, uint32_t *cap, uint64_t need_n,
		  size_t elsz, int exact)
{
	uint64_t ncap = *cap ? *cap : 16;
	while (ncap < need_n)
		ncap *= 2;
	if (exact)
		ncap = need_n;
	if (ncap > UINT32_MAX / 2)
		return -ENOMEM;
	void *np = sp_alloc(a, ncap * elsz, 0);
	if (!np)
		return -ENOMEM;
	if (*p) {
		memcpy(np, *p, (size_t)*cap * elsz);
		sp_free(a, *p, (size_t)*cap * elsz);
	}
	*p = np;
	*cap = (uint32_t)ncap;
	return 0;
}

/* The per-rule call: room already there is the common case, decided inline. */
static inline int grow(const struct sp_allocator *a, void **p, uint32_t *cap, uint64_t need_n,
		       size_t elsz)
{
	return need_n <= *cap ? 0 : resize(a, p, cap, need_n, elsz, 0);
}

static int vec_push(const struct sp_allocator *a, struct u32vec *v, uint32_t x)
{
	int rc = grow(a, (void **)&v->v, &v->cap, (uint64_t)v->n + 1, sizeof(uint32_t));
	if (rc)
		return rc;
	v->v[v->n++] = x;
	return 0;
}

static void vec_free(const struct sp_allocator *a, struct u32vec *v)
{
	sp_free(a, v->v, (size_t)v->cap * sizeof(uint32_t));
	v->v = NULL;
	v->n = v->cap = 0;
}

/* ---- string arena: chunks never move, so name pointers stay valid ---- */

struct arena_chunk {
	struct arena_chunk *next;
	size_t cap, used;
	char data[];
};

static const char *policy_strdup(struct policy_core *c, const uint8_t *s, size_t n)
{
	struct arena_chunk *ch = (struct arena_chunk *)(void *)c->strings;
	if (!ch || ch->cap - ch->used < n + 1) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;
		struct arena_chunk *nc = sp_alloc(c->alloc, sizeof(*nc) + cap, 0);
		if (!nc)
			return NULL;
		nc->next = ch;
		nc->cap = cap;
		nc->used = 0;
		c->strings = (char *)nc;
		c->strings_len += sizeof(*nc) + cap;
		ch = nc;
	}
	char *d = ch->data + ch->used;
	memcpy(d, s, n);
	d[n] = 0;
	ch->used += n + 1;
	return d;
}

static void arena_free(struct policy_core *c)
{
	struct arena_chunk *ch = (struct arena_chunk *)(void *)c->strings;
	while (ch) {
		struct arena_chunk *n = ch->next;
		sp_free(c->alloc, ch, sizeof(*ch) + ch->cap);
		ch = n;
	}
	c->strings = NULL;
}

/* A string of n bytes (n read earlier); stored when `out` is given. */
static int str(struct cur *c, uint32_t n, const char **out, const char *what)
{
	int rc = need(c, n, what);
	if (rc)
		return rc;
	if (out) {
		if (memchr(c->p + c->off, 0, n))
			return bad(c, c->off, "%s contains a NUL byte", what);
		*out = policy_strdup(c->core, c->p + c->off, n);
		if (!*out)
			return -ENOMEM;
	}
	c->off += n;
	return 0;
}

/*
 * ebitmap: mapunit (64), highbit, count, then count x {u32 startbit, u64 map}.  Set bits are
 * appended to `bits` (if given) and must be < limit (if limit != 0).
 */
static int ebitmap(struct cur *c, uint32_t limit, struct u32vec *bits)
{
	uint32_t h[3];
	size_t at = c->off;
	int rc = u32s(c, h, 3, "ebitmap");
	if (rc)
		return rc;
	if (h[0] != 64)
		return bad(c, at, "ebitmap map size %u is not 64", h[0]);
	if (h[1] % 64)
		return bad(c, at + 4, "ebitmap high bit %u is not a multiple of 64", h[1]);
	if ((uint64_t)h[2] * 12 > left(c))
		return bad(c, at + 8, "ebitmap node count %u exceeds the %zu bytes left", h[2],
			   left(c));
	uint64_t prev = 0;
	for (uint32_t i = 0; i < h[2]; i++) {
		uint32_t w[3];
		size_t nat = c->off;
		if ((rc = u32s(c, w, 3, "ebitmap node")))
			return rc;
		if (w[0] % 64 || w[0] >= h[1] || (i && w[0] < prev))
			return bad(c, nat, "ebitmap node start %u out of order or range", w[0]);
		prev = (uint64_t)w[0] + 64;
		uint64_t map = (uint64_t)w[1] | (uint64_t)w[2] << 32;
		if (!map)
			continue;
		uint32_t top = w[0] + 63 - (uint32_t)__builtin_clzll(map);	/* the highest bit */
		if (limit && top >= limit) {
			uint32_t bit = w[0] + (uint32_t)__builtin_ctzll(map);
			while (bit < limit)	/* name the first bit out of range */
				map &= map - 1, bit = w[0] + (uint32_t)__builtin_ctzll(map);
			return bad(c, nat, "ebitmap bit %u out of range (limit %u)", bit, limit);
		}
		if (!bits)
			continue;
		if ((rc = grow(c->core->alloc, (void **)&bits->v, &bits->cap, (uint64_t)bits->n + 64,
			       sizeof(uint32_t))))
			return rc;	/* room for the node's (at most 64) bits */
		uint32_t *out = bits->v + bits->n, *from = out;
		for (; map; map &= map - 1)
			*out++ = w[0] + (uint32_t)__builtin_ctzll(map);
		bits->n += (uint32_t)(out - from);
	}
	if (h[2] && prev != h[1])
		return bad(c, at + 4, "ebitmap high bit %u does not match its last node", h[1]);
	return 0;
}

/* Append one (owner, value) pair. */
static int push_pair(struct cur *c, struct policy_pairs *pp, uint32_t owner, uint32_t value)
{
	int rc = grow(c->core->alloc, (void **)&pp->v, &pp->cap, 2 * (uint64_t)pp->n + 2,
		      sizeof(uint32_t));
	if (!rc) {
		pp->v[2 * pp->n] = owner;
		pp->v[2 * pp->n++ + 1] = value;
	}
	return rc;
}

/* Append the values of an ebitmap (bit + 1) as (owner, value) pairs. */
static int read_pairs(struct cur *c, uint32_t owner, struct policy_pairs *pp)
{
	struct u32vec bits = { 0 };
	int rc = ebitmap(c, 0, &bits);
	for (uint32_t i = 0; !rc && i < bits.n; i++)
		rc = push_pair(c, pp, owner, bits.v[i] + 1);
	vec_free(c->core->alloc, &bits);
	return rc;
}

/* A level's category bitmap, and with `out` the level appended to it as sens, ncats, cats
 * (category values, ascending). */
static int level_cats(struct cur *c, uint32_t sens, struct u32vec *out)
{
	if (!out)
		return ebitmap(c, 0, NULL);
	uint32_t at = out->n;
	int rc = vec_push(c->core->alloc, out, sens);
	if (!rc)
		rc = vec_push(c->core->alloc, out, 0);
	uint32_t first = out->n;
	if (!rc)
		rc = ebitmap(c, 0, out);
	for (uint32_t i = first; !rc && i < out->n; i++)
		out->v[i] += 1;
	if (!rc)
		out->v[at + 1] = out->n - first;
	return rc;
}

static int mls_level(struct cur *c, struct u32vec *out)
{
	uint32_t sens;
	int rc = u32(c, &sens, "mls level");
	return rc ? rc : level_cats(c, sens, out);
}

/* A range; with `out` its low and high levels appended (a one-level range: low twice). */
static int mls_range(struct cur *c, struct u32vec *out)
{
	uint32_t n, s[2];
	size_t at = c->off;
	int rc = u32(c, &n, "mls range");
	if (rc)
		return rc;
	if (n < 1 || n > 2)
		return bad(c, at, "mls range has %u levels", n);
	uint32_t low = out ? out->n : 0;
	if ((rc = u32s(c, s, n, "mls range")) || (rc = level_cats(c, s[0], out)))
		return rc;
	if (n == 2)
		return level_cats(c, s[1], out);
	for (uint32_t i = low, end = out ? out->n : 0; !rc && i < end; i++)
		rc = vec_push(c->core->alloc, out, out->v[i]);
	return rc;
}

/* A context; with `keep`, stored in core->ctxv at *keep (see struct policy_ocon). */
static int context_keep(struct cur *c, uint32_t *keep)
{
	uint32_t v[3];
	int rc = u32s(c, v, 3, "context");
	if (rc)
		return rc;
	if (!v[0] || v[0] > c->core->nusers || !v[1] || v[1] > c->core->nroles || !v[2] ||
	    v[2] > c->core->ntypes)
		return bad(c, c->off - 12, "invalid context %u:%u:%u", v[0], v[1], v[2]);
	struct u32vec *out = keep ? &c->core->ctxv : NULL;
	if (keep) {
		*keep = out->n;
		for (int i = 0; i < 3 && !rc; i++)
			rc = vec_push(c->core->alloc, out, v[i]);
	}
	return rc ? rc : c->vers >= 19 ? mls_range(c, out) : 0;
}

static int context(struct cur *c)
{
	return context_keep(c, NULL);
}

/* A new listed record (struct policy_ocon) of kind, its fields and contexts to be filled. */
static struct policy_ocon *ocon_new(struct cur *c, uint32_t kind)
{
	struct policy_core *k = c->core;
	if (grow(k->alloc, (void **)&k->ocon, &k->ocon_cap, (uint64_t)k->nocon + 1,
		 sizeof(*k->ocon)))
		return NULL;
	struct policy_ocon *o = &k->ocon[k->nocon++];
	*o = (struct policy_ocon){ .kind = kind, .ctx = { UINT32_MAX, UINT32_MAX } };
	return o;
}

/* ---- symbol tables ---- */

/* Permission records; values are absolute (a class's own continue after its common's). */
static int perms(struct cur *c, struct policy_class *pc, uint32_t nel)
{
	for (uint32_t i = 0; i < nel; i++) {
		uint32_t h[2];
		size_t at = c->off;
		const char *name;
		int rc = u32s(c, h, 2, "permission");
		if (rc || (rc = str(c, h[0], &name, "permission name")))
			return rc;
		if (!h[1] || h[1] > 32)
			return bad(c, at + 4, "permission value %u out of range", h[1]);
		pc->perm[h[1] - 1] = name;
		pc->own |= 1u << (h[1] - 1);
		if (h[1] > pc->nperms)
			pc->nperms = h[1];
	}
	c->core->counts.permissions += nel;
	return 0;
}

/* A constraint's names node: the names bitmap and (v29+) the type set; the values that name
 * it (the type set's types for a type operand on v29+, else the names) kept in core->cnames. */
static int cexpr_names(struct cur *c, struct policy_cexpr *x)
{
	struct policy_core *k = c->core;
	int set = c->vers >= 29 && (x->attr & 4);	/* CEXPR_TYPE: setools reads the set */
	struct u32vec bits = { 0 };
	uint32_t fl;
	int rc = ebitmap(c, 0, set ? NULL : &bits);
	if (!rc && c->vers >= 29)
		if ((rc = ebitmap(c, 0, set ? &bits : NULL)) || (rc = ebitmap(c, 0, NULL)) ||
		    (rc = u32(c, &fl, "constraint type set")))
			goto out;
	x->names_off = k->cnames.n;
	x->nnames = bits.n;
	for (uint32_t i = 0; !rc && i < bits.n; i++)
		rc = vec_push(k->alloc, &k->cnames, bits.v[i] + 1);
out:
	vec_free(k->alloc, &bits);
	return rc;
}

/* One expression node into core->cex; *depth is the postfix stack depth, checked. */
static int cexpr_node(struct cur *c, int allow_third, int *depth, int *levels)
{
	struct policy_core *k = c->core;
	uint32_t e[3];
	size_t at = c->off;
	int rc = u32s(c, e, 3, "constraint expression");
	if (rc)
		return rc;
	if (e[0] < 1 || e[0] > 5)
		return bad(c, at, "unknown constraint expression type %u", e[0]);
	if (*depth < (e[0] == 1 ? 1 : e[0] <= 3 ? 2 : 0))
		return bad(c, at, "constraint expression underflow");
	*depth += e[0] == 1 ? 0 : e[0] <= 3 ? -1 : 1;
	if (e[0] >= 4 && (e[1] & CEXPR_XTARGET) && !allow_third)
		return bad(c, at + 4, "third context in a constraint");
	*levels |= e[0] >= 4 && e[1] >= CEXPR_L1L2;
	if ((rc = grow(k->alloc, (void **)&k->cex, &k->cex_cap, (uint64_t)k->ncex + 1,
		       sizeof(*k->cex))))
		return rc;
	struct policy_cexpr *x = &k->cex[k->ncex++];
	*x = (struct policy_cexpr){ .type = e[0], .attr = e[1], .op = e[2] };
	return e[0] == 5 ? cexpr_names(c, x) : 0;
}

/* n constraints of class cls (validatetrans: allow_third), kept in core->cons; each one that
 * compares levels (an operand at or above CEXPR_L1L2, setools' test) counts in *mls, the
 * others in *plain. */
static int constraints(struct cur *c, uint32_t n, int allow_third, uint32_t cls, uint32_t *plain,
		       uint32_t *mls)
{
	struct policy_core *k = c->core;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h[2];	/* permissions (validatetrans: unused), expression nodes */
		int rc = u32s(c, h, 2, "constraint");
		if (rc)
			return rc;
		if ((uint64_t)h[1] * 12 > left(c))
			return bad(c, c->off - 4, "constraint expression count %u too large", h[1]);
		int depth = 0, levels = 0;
		uint32_t off = k->ncex;
		for (uint32_t j = 0; j < h[1]; j++)
			if ((rc = cexpr_node(c, allow_third, &depth, &levels)))
				return rc;
		if (depth != 1)
			return bad(c, c->off, "constraint expression does not reduce to one value");
		++*(levels ? mls : plain);
		if ((rc = grow(k->alloc, (void **)&k->cons, &k->cons_cap, (uint64_t)k->ncons + 1,
			       sizeof(*k->cons))))
			return rc;
		k->cons[k->ncons++] = (struct policy_constraint){
			.cls = cls, .perms = allow_third ? 0 : h[0], .expr_off = off, .nexpr = h[1],
			.validatetrans = (uint8_t)allow_third, .mls = (uint8_t)levels };
	}
	return 0;
}

static int sym_common(struct cur *c, uint32_t nprim, uint32_t nel)
{
	struct policy_core *k = c->core;
	k->ncommons = nprim;
	k->commons = sp_zalloc(k->alloc, ((size_t)nprim + 1) * sizeof(*k->commons), 0);
	if (!k->commons)
		return -ENOMEM;
	for (uint32_t i = 0; i < nel; i++) {
		uint32_t h[4];
		size_t at = c->off;
		const char *name;
		int rc = u32s(c, h, 4, "common");
		if (rc || (rc = str(c, h[0], &name, "common name")))
			return rc;
		if (!h[1] || h[1] > nprim || h[3] > 32 || h[2] > 32)
			return bad(c, at + 4, "common value %u or permission count out of range", h[1]);
		struct policy_class *pc = &k->commons[h[1]];
		if (pc->name)
			return bad(c, at + 4, "duplicate common value %u", h[1]);
		pc->name = name;
		if ((rc = perms(c, pc, h[3])))
			return rc;
	}
	return 0;
}

static int sym_class(struct cur *c, uint32_t nprim, uint32_t nel)
{
	struct policy_core *k = c->core;
	k->nclasses = nprim;
	k->cls = sp_zalloc(k->alloc, ((size_t)nprim + 1) * sizeof(*k->cls), 0);
	if (!k->cls)
		return -ENOMEM;
	for (uint32_t i = 0; i < nel; i++) {
		uint32_t h[6];
		size_t at = c->off;
		const char *name, *cname = NULL;
		int rc = u32s(c, h, 6, "class");
		if (rc || (rc = str(c, h[0], &name, "class name")))
			return rc;
		if (h[1] && (rc = str(c, h[1], &cname, "class common name")))
			return rc;
		if (!h[2] || h[2] > nprim || h[4] > 32)
			return bad(c, at + 8, "class value %u or permission count out of range", h[2]);
		if (h[2] > 0xffff)
			return bad(c, at + 8, "class value %u exceeds 16 bits", h[2]);
		struct policy_class *pc = &k->cls[h[2]];
		if (pc->name)
			return bad(c, at + 8, "duplicate class value %u", h[2]);
		pc->name = name;
		if (cname) {
			uint32_t ci = 0;
			for (uint32_t j = 1; j <= k->ncommons; j++)
				if (k->commons[j].name && !strcmp(k->commons[j].name, cname))
					ci = j;
			if (!ci)
				return bad(c, at, "class '%s' inherits unknown common '%s'", name, cname);
			pc->common = ci;
			memcpy(pc->perm, k->commons[ci].perm, sizeof(pc->perm));
			pc->nperms = k->commons[ci].nperms;
		}
		if ((rc = perms(c, pc, h[4])))
			return rc;
		struct sp_policy_counts *n = &k->counts;
		if ((rc = constraints(c, h[5], 0, h[2], &n->constrain, &n->mlsconstrain)))
			return rc;
		k->info.constraints += h[5];
		if (c->vers >= 19) {
			uint32_t nv;
			if ((rc = count(c, &nv, 8, "validatetrans")) ||
			    (rc = constraints(c, nv, 1, h[2], &n->validatetrans, &n->mlsvalidatetrans)))
				return rc;
			k->info.validatetrans += nv;
		}
		uint32_t def[4] = { 0 };	/* user, role, range (27), type (28) */
		if (c->vers >= 27 && (rc = u32s(c, def, 3, "class defaults")))
			return rc;
		if (c->vers >= 28 && (rc = u32(c, def + 3, "class default type")))
			return rc;
		for (int j = 0; j < 4; j++)
			n->defaults += def[j] != 0;
		pc->defaults[0] = def[0];	/* as setools lists them: user, role, type, range */
		pc->defaults[1] = def[1];
		pc->defaults[2] = def[3];
		pc->defaults[3] = def[2];
		k->info.perms += pc->nperms;
	}
	k->counts.classes = nel;
	return 0;
}

static int sym_role(struct cur *c, uint32_t nprim, uint32_t nel)
{
	struct policy_core *k = c->core;
	k->nroles = nprim;
	k->role_name = sp_zalloc(k->alloc, ((size_t)nprim + 1) * sizeof(char *), 0);
	if (!k->role_name)
		return -ENOMEM;
	for (uint32_t i = 0; i < nel; i++) {
		uint32_t h[3];
		size_t at = c->off;
		const char *name;
		int rc = u32s(c, h, c->vers >= 24 ? 3 : 2, "role");
		if (rc || (rc = str(c, h[0], &name, "role name")))
			return rc;
		if (!h[1] || h[1] > nprim)
			return bad(c, at + 4, "role value %u out of range", h[1]);
		k->role_name[h[1]] = name;
		if ((rc = ebitmap(c, 0, NULL)) || (rc = read_pairs(c, h[1], &k->role_types)))
			return rc;
	}
	k->counts.roles = nel;
	return 0;
}

static int sym_type(struct cur *c, uint32_t nprim, uint32_t nel)
{
	struct policy_core *k = c->core;
	if (nprim > 0xffff)
		return bad(c, c->off - 8, "%u types exceed the 16-bit avtab key", nprim);
	k->ntypes = nprim;
	k->type_name = sp_zalloc(k->alloc, ((size_t)nprim + 1) * sizeof(char *), 0);
	k->type_flags = sp_zalloc(k->alloc, (size_t)nprim + 1, 0);
	k->type_ix = sp_zalloc(k->alloc, ((size_t)nel + 1) * sizeof(*k->type_ix), 0);
	k->type_ix_cap = nel + 1;
	if (!k->type_name || !k->type_flags || !k->type_ix)
		return -ENOMEM;
	for (uint32_t i = 0; i < nel; i++) {
		uint32_t h[4];
		size_t at = c->off;
		const char *name;
		int rc = u32s(c, h, c->vers >= 24 ? 4 : 3, "type");
		if (rc || (rc = str(c, h[0], &name, "type name")))
			return rc;
		if (!h[1] || h[1] > nprim)
			return bad(c, at + 4, "type value %u out of range", h[1]);
		int primary = c->vers >= 24 ? (h[2] & 1) : h[2] != 0;
		int attr = c->vers >= 24 && (h[2] & 2);
		k->counts.attributes += attr;	/* setools: every attribute entry; types: primary */
		k->counts.types += primary && !attr;
		k->counts.typebounds += c->vers >= 24 && !attr && h[3];
		if (c->vers >= 24 && !attr && h[3] &&
		    (rc = push_pair(c, &k->type_bounds, h[1], h[3])))
			return rc;
		k->type_ix[k->ntype_ix++] = (struct policy_name_ix){ name, h[1] };
		if (primary) {
			if (k->type_name[h[1]])
				return bad(c, at + 4, "duplicate type value %u", h[1]);
			k->type_name[h[1]] = name;
			k->type_flags[h[1]] |= 4 | (attr ? 1 : 0);
			if (attr)
				k->info.attributes++;
			else
				k->info.types++;
		} else {
			k->info.aliases++;
		}
	}
	return 0;
}

static int sym_user(struct cur *c, uint32_t nprim, uint32_t nel)
{
	struct policy_core *k = c->core;
	k->nusers = nprim;
	k->user_name = sp_zalloc(k->alloc, ((size_t)nprim + 1) * sizeof(char *), 0);
	if (!k->user_name)
		return -ENOMEM;
	for (uint32_t i = 0; i < nel; i++) {
		uint32_t h[3];
		size_t at = c->off;
		const char *name;
		int rc = u32s(c, h, c->vers >= 24 ? 3 : 2, "user");
		if (rc || (rc = str(c, h[0], &name, "user name")))
			return rc;
		if (!h[1] || h[1] > nprim)
			return bad(c, at + 4, "user value %u out of range", h[1]);
		k->user_name[h[1]] = name;
		if ((rc = read_pairs(c, h[1], &k->user_roles)))
			return rc;
		if (c->vers >= 19 && ((rc = vec_push(k->alloc, &k->user_mls, h[1])) ||
				      (rc = mls_range(c, &k->user_mls)) ||
				      (rc = mls_level(c, &k->user_mls))))
			return rc;
	}
	k->counts.users = nel;
	return 0;
}

static int sym_bool(struct cur *c, uint32_t nprim, uint32_t nel)
{
	struct policy_core *k = c->core;
	k->nbools = nprim;
	k->bool_name = sp_zalloc(k->alloc, ((size_t)nprim + 1) * sizeof(char *), 0);
	k->bool_default = sp_zalloc(k->alloc, (size_t)nprim + 1, 0);
	if (!k->bool_name || !k->bool_default)
		return -ENOMEM;
	for (uint32_t i = 0; i < nel; i++) {
		uint32_t h[3];
		size_t at = c->off;
		const char *name;
		int rc = u32s(c, h, 3, "boolean");
		if (rc || (rc = str(c, h[2], &name, "boolean name")))
			return rc;
		if (!h[0] || h[0] > nprim || h[1] > 1)
			return bad(c, at, "boolean value %u or state %u out of range", h[0], h[1]);
		if (k->bool_name[h[0]])
			return bad(c, at, "duplicate boolean value %u", h[0]);
		k->bool_name[h[0]] = name;
		k->bool_default[h[0]] = (uint8_t)h[1];
	}
	k->counts.booleans = nel;
	return 0;
}

/* Room for nel MLS symbol records (count() bounded nel by the bytes left). */
static int mls_syms(struct cur *c, uint32_t nel, struct policy_mls_sym **out, uint32_t *n)
{
	*n = nel;
	*out = sp_zalloc(c->core->alloc, ((size_t)nel + 1) * sizeof(**out), 0);
	return *out ? 0 : -ENOMEM;
}

static int sym_sens(struct cur *c, uint32_t nprim, uint32_t nel)
{
	int rc = mls_syms(c, nel, &c->core->sens, &c->core->nsens);
	for (uint32_t i = 0; !rc && i < nel; i++) {
		uint32_t h[2], sens;
		struct policy_mls_sym *m = &c->core->sens[i];
		if ((rc = u32s(c, h, 2, "sensitivity")) ||
		    (rc = str(c, h[0], &m->name, "sensitivity name")) ||
		    (rc = u32(c, &sens, "mls level")))
			return rc;
		uint32_t lv = c->core->sens_lv.n;
		if ((rc = level_cats(c, sens, &c->core->sens_lv)))
			return rc;
		*m = (struct policy_mls_sym){ m->name, sens, h[1] != 0, lv };
		c->core->counts.sensitivities += !h[1];	/* h[1]: an alias */
	}
	if (rc)
		return rc;
	c->core->info.sensitivities = nprim;
	return 0;
}

static int sym_cat(struct cur *c, uint32_t nprim, uint32_t nel)
{
	int rc = mls_syms(c, nel, &c->core->cats, &c->core->ncats);
	for (uint32_t i = 0; !rc && i < nel; i++) {
		uint32_t h[3];
		struct policy_mls_sym *m = &c->core->cats[i];
		if ((rc = u32s(c, h, 3, "category")) ||
		    (rc = str(c, h[0], &m->name, "category name")))
			return rc;
		if (!h[1] || h[1] > nprim)
			return bad(c, c->off - h[0] - 8, "category value %u out of range", h[1]);
		*m = (struct policy_mls_sym){ m->name, h[1], h[2] != 0, 0 };
		c->core->counts.categories += !h[2];	/* h[2]: an alias */
	}
	if (rc)
		return rc;
	c->core->info.categories = nprim;
	return 0;
}

/* ---- avtab items ---- */

static int push_rule(struct cur *c, int cond, const struct policy_rule *r, uint32_t node)
{
	struct policy_core *k = c->core;
	int rc;
	if (!cond) {
		if ((rc = grow(k->alloc, (void **)&k->te, &k->te_cap, (uint64_t)k->nte + 1,
			       sizeof(*k->te))))
			return rc;
		k->te[k->nte++] = *r;
		return 0;
	}
	uint32_t cap = k->cr_cap;
	if ((rc = grow(k->alloc, (void **)&k->cr, &k->cr_cap, (uint64_t)k->ncr + 1, sizeof(*k->cr))))
		return rc;
	if ((rc = grow(k->alloc, (void **)&k->cr_node, &cap, (uint64_t)k->ncr + 1, sizeof(uint32_t))))
		return rc;
	k->cr[k->ncr] = *r;
	k->cr_node[k->ncr++] = node;
	return 0;
}

static const uint16_t spec_order[6] = { SP_AVTAB_ALLOWED, SP_AVTAB_AUDITDENY,
					SP_AVTAB_AUDITALLOW, SP_AVTAB_TRANSITION,
					SP_AVTAB_CHANGE, SP_AVTAB_MEMBER };

static int check_key(struct cur *c, size_t at, uint32_t s, uint32_t t, uint32_t cl)
{
	struct policy_core *k = c->core;
	if (!s || s > k->ntypes || !t || t > k->ntypes || !cl || cl > k->nclasses)
		return bad(c, at, "invalid type or class (%u, %u, %u)", s, t, cl);
	return 0;
}

static int avtab_item(struct cur *c, int cond, uint32_t node)
{
	struct policy_core *k = c->core;
	size_t at = c->off;
	int rc;
	struct policy_rule r = { 0 };
	if (c->vers < 20) {
		uint32_t n, v[10];
		if ((rc = u32(c, &n, "entry")))
			return rc;
		if (n < 5 || n > 10)
			return bad(c, at, "entry has %u items", n);
		if ((rc = u32s(c, v, n, "entry")) || (rc = check_key(c, at + 4, v[0], v[1], v[2])))
			return rc;
		uint32_t sp = v[3];
		if (!(sp & (SP_AVTAB_AV | SP_AVTAB_TYPE)))
			return bad(c, at + 16, "null entry");
		if ((sp & SP_AVTAB_AV) && (sp & SP_AVTAB_TYPE))
			return bad(c, at + 16, "entry has both access vectors and types");
		uint32_t used = 4;
		for (int i = 0; i < 6; i++) {
			if (!(sp & spec_order[i]))
				continue;
			if (used >= n)
				return bad(c, at, "entry has too few items for its kinds");
			r.s = (uint16_t)v[0], r.t = (uint16_t)v[1], r.c = (uint16_t)v[2];
			r.spec = spec_order[i];
			r.data = v[used++];
			if ((r.spec & SP_AVTAB_TYPE) && (!r.data || r.data > k->ntypes))
				return bad(c, at, "invalid default type %u", r.data);
			if ((rc = push_rule(c, cond, &r, node)))
				return rc;
		}
		if (used != n)
			return bad(c, at, "entry has %u items, its kinds need %u", n, used);
		return 0;
	}
	if ((rc = need(c, 8, "entry")))
		return rc;
	const uint8_t *q = c->p + c->off;
	r.s = (uint16_t)(q[0] | q[1] << 8);
	r.t = (uint16_t)(q[2] | q[3] << 8);
	r.c = (uint16_t)(q[4] | q[5] << 8);
	uint16_t sp = (uint16_t)(q[6] | q[7] << 8);
	c->off += 8;
	if ((rc = check_key(c, at, r.s, r.t, r.c)))
		return rc;
	r.spec = sp & (uint16_t)~SP_AVTAB_ENABLED;
	/* one bit set (x & (x - 1) clears the lowest), of a known kind */
	if (!r.spec || (r.spec & (r.spec - 1)) ||
	    !(r.spec & (SP_AVTAB_AV | SP_AVTAB_TYPE | SP_AVTAB_XPERMS)))
		return bad(c, at + 6, "specified 0x%04x is not exactly one kind", sp);
	if (r.spec & SP_AVTAB_XPERMS) {
		if (c->vers < 30 || (cond && c->vers < 34))
			return bad(c, at + 6, "extended permissions not allowed in version %u%s",
				   c->vers, cond ? " conditional lists" : "");
		if ((rc = need(c, 34, "extended permissions")))
			return rc;
		q = c->p + c->off;
		if (q[0] < 1 || q[0] > 3)
			return bad(c, c->off, "unknown extended permission kind %u", q[0]);
		if ((rc = grow(k->alloc, (void **)&k->xperms, &k->xperms_cap,
			       (uint64_t)k->nxperms + 1, sizeof(*k->xperms))))
			return rc;
		struct sp_avtab_xperms *x = &k->xperms[k->nxperms];
		x->kind = q[0];
		x->driver = q[1];
		c->off += 2;
		if ((rc = u32s(c, x->perms, 8, "extended permissions")))
			return rc;
		r.data = k->nxperms++;
	} else {
		if ((rc = u32(c, &r.data, "entry datum")))
			return rc;
		if ((r.spec & SP_AVTAB_TYPE) && (!r.data || r.data > k->ntypes))
			return bad(c, c->off - 4, "invalid default type %u", r.data);
	}
	return push_rule(c, cond, &r, node);
}

/* the kind bits a run takes, by value: 1 one AV kind, 2 one type kind, 0 anything else */
static const uint8_t run_kind[128] = {
	[SP_AVTAB_ALLOWED] = 1, [SP_AVTAB_AUDITALLOW] = 1, [SP_AVTAB_AUDITDENY] = 1,
	[SP_AVTAB_TRANSITION] = 2, [SP_AVTAB_MEMBER] = 2, [SP_AVTAB_CHANGE] = 2,
};

/* An item of 12 bytes is struct policy_rule's bytes on a little-endian host: s, t, c, spec and
 * the datum at the same offsets (read.c copies a run whole, then checks it in place). */
#define RUN_COPIES (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&				\
		    sizeof(struct policy_rule) == 12 && offsetof(struct policy_rule, spec) == 6 &&	\
		    offsetof(struct policy_rule, data) == 8)

/* Is r (its spec's enabled bit cleared) a common item: one AV or type kind, a valid key (and
 * default type)? */
static sp_always_inline int run_item_ok(const struct policy_rule *r, uint32_t ntypes,
					uint32_t nclasses)
{
	uint32_t kind = r->spec > 127 ? 0 : run_kind[r->spec];
	/* v - 1 < n: 1 <= v <= n in one compare (v == 0 wraps) */
	return !((r->s - 1u >= ntypes) | (r->t - 1u >= ntypes) | (r->c - 1u >= nclasses) | !kind |
		 ((kind >> 1) & (r->data - 1u >= ntypes)));
}

/* Are all of r[0..n) common items?  Their enabled bits cleared; one branch for the block: the
 * largest key values, the smallest kind and the largest default type are compared at the end.
 * When they are, hist[b] (kind_hist's) counts the block's rules of kind bit b, taken while the
 * block is in L1. */
static int run_block_ok(struct policy_rule *restrict r, uint32_t n, uint32_t ntypes,
			uint32_t nclasses, uint32_t *restrict hist)
{
	uint32_t mst = 0, mc = 0, md = 0, kmin = 2, hi = 0, h[16] = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = r[i].s - 1u, t = r[i].t - 1u, c = r[i].c - 1u;
		uint32_t sp = r[i].spec & (uint16_t)~SP_AVTAB_ENABLED, kind = run_kind[sp & 127];
		uint32_t d = (kind & 2) ? r[i].data - 1u : 0;
		r[i].spec = (uint16_t)sp;
		hi |= sp;
		h[__builtin_ctz(sp | 0x8000) & 15]++;
		mst = s > mst ? s : mst;
		mst = t > mst ? t : mst;
		mc = c > mc ? c : mc;
		md = d > md ? d : md;
		kmin = kind < kmin ? kind : kmin;
	}
	if (!(mst < ntypes && mc < nclasses && md < ntypes && kmin && hi <= 127))
		return 0;
	for (int b = 0; b < 16; b++)
		hist[b] += h[b];
	return 1;
}

/* Item q (12 bytes) decoded a field at a time, its spec's enabled bit cleared. */
static inline struct policy_rule run_item(const uint8_t *q)
{
	return (struct policy_rule){ ld16(q), ld16(q + 2), ld16(q + 4),
				     (uint16_t)(ld16(q + 6) & (uint16_t)~SP_AVTAB_ENABLED),
				     ld32(q + 8) };
}

/* Do dst[0..i) hold q's first i items, decoded one at a time, and is item i (i < n) another? */
static int run_agrees(const uint8_t *q, uint32_t n, const struct policy_rule *dst, uint32_t i,
		      uint32_t ntypes, uint32_t nclasses)
{
	for (uint32_t j = 0; j < i; j++) {
		struct policy_rule r = run_item(q + (size_t)j * 12);
		if (memcmp(&r, &dst[j], sizeof(r)) || !run_item_ok(&r, ntypes, nclasses))
			return 0;
	}
	struct policy_rule r = i < n ? run_item(q + (size_t)i * 12) : (struct policy_rule){ 0 };
	return i == n || !run_item_ok(&r, ntypes, nclasses);
}

/*
 * A run of common items from q (avail bytes) into dst[0..max): version >= 20, 12 bytes, one AV
 * or type kind, a valid key (and default type).  Returns how many it decoded; it stops before
 * the first other item (xperms, or an invalid one), which avtab_item then reads or reports.
 * The items are copied a block at a time and checked in place (RUN_COPIES); only a block that
 * fails is walked item by item for its first other item.  dst[return..max) may hold copied
 * bytes: the caller's next item overwrites them.
 */
static uint32_t avtab_run(const uint8_t *q, size_t avail, struct policy_rule *dst, uint32_t max,
			  uint32_t ntypes, uint32_t nclasses, uint32_t hist[16])
{
	enum { BLOCK = 64 };
	uint32_t n = avail / 12 < max ? (uint32_t)(avail / 12) : max, i = 0;
	if (RUN_COPIES) {
		for (uint32_t b; i < n; i += b) {
			b = n - i < BLOCK ? n - i : BLOCK;
			memcpy(dst + i, q + (size_t)i * 12, (size_t)b * 12);
			if (!run_block_ok(dst + i, b, ntypes, nclasses, hist))
				break;
		}
		for (; i < n && run_item_ok(&dst[i], ntypes, nclasses); i++)
			hist[__builtin_ctz(dst[i].spec) & 15]++;	/* the failed block, item by
									 * item (its specs cleared) */
		SP_ASSERT_EXPENSIVE(run_agrees(q, n, dst, i, ntypes, nclasses));
		return i;
	}
	for (; i < n; i++, q += 12) {
		struct policy_rule r = run_item(q);
		if (!run_item_ok(&r, ntypes, nclasses))
			break;
		dst[i] = r;
		hist[__builtin_ctz(r.spec) & 15]++;
	}
	return i;
}

/* hist[b] += the rules of r[0..n) whose kind is bit b (every rule has exactly one kind bit) */
static void kind_hist(const struct policy_rule *r, uint32_t n, uint32_t hist[16])
{
	for (uint32_t i = 0; i < n; i++)
		hist[__builtin_ctz(r[i].spec) & 15]++;
}

/*
 * n avtab items of one list: the te_avtab (cond == 0) or a conditional node's list (node: its
 * index | list bit).  Room for n rules is made first; runs of common items take avtab_run, any
 * other item avtab_item (which grows the arrays itself: a version < 20 item may hold several
 * rules).
 */
static int avtab_items(struct cur *c, uint32_t n, int cond, uint32_t node, uint32_t hist[16])
{
	struct policy_core *k = c->core;
	int rc;
	if (cond) {
		uint32_t cap = k->cr_cap;
		if ((rc = grow(k->alloc, (void **)&k->cr, &k->cr_cap, (uint64_t)k->ncr + n,
			       sizeof(*k->cr))) ||
		    (rc = grow(k->alloc, (void **)&k->cr_node, &cap, (uint64_t)k->ncr + n,
			       sizeof(uint32_t))))
			return rc;
	} else if (k->te_cap < (uint64_t)k->nte + n &&
		   (rc = resize(k->alloc, (void **)&k->te, &k->te_cap, (uint64_t)k->nte + n,
				sizeof(*k->te), 1))) {
		return rc;	/* te: read once, n exact (but before version 20) */
	}
	for (uint32_t i = 0; i < n;) {
		if (c->vers >= 20) {
			uint32_t *nr = cond ? &k->ncr : &k->nte;
			uint32_t got = avtab_run(c->p + c->off, left(c), (cond ? k->cr : k->te) + *nr,
						 n - i, k->ntypes, k->nclasses, hist);
			for (uint32_t j = 0; cond && j < got; j++)
				k->cr_node[k->ncr + j] = node;
			*nr += got;
			c->off += (size_t)got * 12;
			if ((i += got) == n)
				break;
		}
		uint32_t from = cond ? k->ncr : k->nte;
		if ((rc = avtab_item(c, cond, node)))
			return rc;
		/* the rules it appended (it may have moved the array) */
		kind_hist((cond ? k->cr : k->te) + from, (cond ? k->ncr : k->nte) - from, hist);
		i++;
	}
	return 0;
}

#define KIND(h, bit) ((h)[__builtin_ctz(bit)])

/* The summary counts of te rules by kind (every xperm kind counts as te_xperms). */
static void count_te_kinds(struct cur *c)
{
	struct policy_core *k = c->core;
	struct sp_policy_info *in = &k->info;
	uint32_t *h = c->te_hist;
	in->te_rules = k->nte;
	in->te_allow = KIND(h, SP_AVTAB_ALLOWED);
	in->te_auditallow = KIND(h, SP_AVTAB_AUDITALLOW);
	in->te_dontaudit = KIND(h, SP_AVTAB_AUDITDENY);
	in->te_type_trans = KIND(h, SP_AVTAB_TRANSITION);
	in->te_type_change = KIND(h, SP_AVTAB_CHANGE);
	in->te_type_member = KIND(h, SP_AVTAB_MEMBER);
	in->te_xperms = KIND(h, SP_AVTAB_XPERMS_ALLOWED) + KIND(h, SP_AVTAB_XPERMS_AUDITALLOW) +
			KIND(h, SP_AVTAB_XPERMS_DONTAUDIT);
}

/* setools' rule counts: te_avtab and conditional entries by kind, and a type_transition per
 * source type of each filename transition (what libsepol's policydb holds). */
static void count_rules(struct cur *c)
{
	struct policy_core *k = c->core;
	struct sp_policy_counts *n = &k->counts;
	uint32_t h[16];
	for (int b = 0; b < 16; b++)	/* counted as they were read (avtab_items) */
		h[b] = c->te_hist[b] + c->cr_hist[b];
	n->allow += KIND(h, SP_AVTAB_ALLOWED);
	n->auditallow += KIND(h, SP_AVTAB_AUDITALLOW);
	n->dontaudit += KIND(h, SP_AVTAB_AUDITDENY);
	n->type_trans += KIND(h, SP_AVTAB_TRANSITION);
	n->type_change += KIND(h, SP_AVTAB_CHANGE);
	n->type_member += KIND(h, SP_AVTAB_MEMBER);
	n->allowxperm += KIND(h, SP_AVTAB_XPERMS_ALLOWED);
	n->auditallowxperm += KIND(h, SP_AVTAB_XPERMS_AUDITALLOW);
	n->dontauditxperm += KIND(h, SP_AVTAB_XPERMS_DONTAUDIT);
	n->type_trans += k->nft;
	n->conditionals = k->ncnode;
	n->role_trans = k->nrtrans;
	n->role_allow = k->nrallow;
}

static int read_te(struct cur *c)
{
	uint32_t n;
	c->sec = "avtab";
	c->core->te_off = c->off;
	int rc = count(c, &n, c->vers < 20 ? 24 : 12, "avtab entry");
	if (rc)
		return rc;
	if (!n)
		return bad(c, c->off - 4, "table is empty");
	/* n rules at least (a version < 20 entry may hold several), n bounded by the bytes left:
	 * avtab_items makes room for them */
	memset(c->te_hist, 0, sizeof(c->te_hist));
	if ((rc = avtab_items(c, n, 0, 0, c->te_hist)))	/* counts te_hist as it reads */
		return rc;
	count_te_kinds(c);
	return 0;
}

static int read_cond(struct cur *c)
{
	struct policy_core *k = c->core;
	uint32_t n;
	c->sec = "conditional";
	int rc = count(c, &n, 16, "conditional node");
	if (rc)
		return rc;
	k->cnode = sp_zalloc(k->alloc, ((size_t)n + 1) * sizeof(*k->cnode), 0);
	if (!k->cnode)
		return -ENOMEM;
	k->ncnode = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h[2];
		size_t at = c->off;
		if ((rc = u32s(c, h, 2, "conditional node")))
			return rc;
		if (h[0] > 1)
			return bad(c, at, "node state %u is not boolean", h[0]);
		if ((uint64_t)h[1] * 8 > left(c) || !h[1])
			return bad(c, at + 4, "expression length %u invalid", h[1]);
		k->cnode[i] = (struct policy_cond_node){ k->ncexpr, h[1], h[0] };
		if ((rc = grow(k->alloc, (void **)&k->cexpr, &k->cexpr_cap,
			       (uint64_t)k->ncexpr + h[1], sizeof(*k->cexpr))))
			return rc;
		for (uint32_t j = 0; j < h[1]; j++) {
			uint32_t e[2];
			size_t eat = c->off;
			if ((rc = u32s(c, e, 2, "conditional expression")))
				return rc;
			if (e[0] < 1 || e[0] > 7)
				return bad(c, eat, "unknown expression type %u", e[0]);
			if (e[0] == 1 && (!e[1] || e[1] > k->nbools))
				return bad(c, eat + 4, "boolean %u out of range", e[1]);
			k->cexpr[k->ncexpr++] = (struct policy_cond_expr){ e[0], e[1] };
		}
		for (int list = 1; list >= 0; list--) {
			uint32_t m;
			c->sec = "conditional avtab";
			if ((rc = count(c, &m, c->vers < 20 ? 24 : 12, "conditional avtab entry")))
				return rc;
			if ((rc = avtab_items(c, m, 1, i | (list ? 0x80000000u : 0), c->cr_hist)))
				return rc;
			c->sec = "conditional";
		}
	}
	k->info.cond_nodes = n;
	k->info.cond_rules = k->ncr;
	return 0;
}

/* The value of class "process" (0: none): a role_transition before version 26 names no class,
 * and means that one (libsepol's process_class). */
static uint32_t process_class(const struct policy_core *k)
{
	for (uint32_t i = 1; i <= k->nclasses; i++)
		if (k->cls[i].name && !strcmp(k->cls[i].name, "process"))
			return i;
	return 0;
}

/* role_trans and role_allow, kept in file order; count() bounds n by the bytes left, so the
 * arrays are sized before their records are read. */
static int read_roles(struct cur *c)
{
	struct policy_core *k = c->core;
	uint32_t n;
	c->sec = "role_trans";
	size_t rec = c->vers >= 26 ? 16 : 12;
	int rc = count(c, &n, rec, "role transition");
	if (rc)
		return rc;
	if (n && !(k->rtrans = sp_zalloc(k->alloc, (size_t)n * sizeof(*k->rtrans), 0)))
		return -ENOMEM;
	k->nrtrans = n;
	uint32_t process = rec == 16 ? 0 : process_class(k);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v[4] = { 0, 0, 0, process };
		size_t at = c->off;
		if ((rc = u32s(c, v, rec / 4, "role transition")))
			return rc;
		if (!v[0] || v[0] > k->nroles || !v[1] || v[1] > k->ntypes || !v[2] ||
		    v[2] > k->nroles || (rec == 16 && (!v[3] || v[3] > k->nclasses)))
			return bad(c, at, "invalid role transition");
		k->rtrans[i] = (struct sp_role_trans){ v[0], v[1], v[3], v[2] };
	}
	k->info.role_trans = n;
	c->sec = "role_allow";
	if ((rc = count(c, &n, 8, "role allow")))
		return rc;
	if (n && !(k->rallow = sp_zalloc(k->alloc, (size_t)n * sizeof(*k->rallow), 0)))
		return -ENOMEM;
	k->nrallow = n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v[2];
		size_t at = c->off;
		if ((rc = u32s(c, v, 2, "role allow")))
			return rc;
		if (!v[0] || v[0] > k->nroles || !v[1] || v[1] > k->nroles)
			return bad(c, at, "invalid role allow");
		k->rallow[i] = (struct sp_role_allow){ v[0], v[1] };
	}
	k->info.role_allow = n;
	return 0;
}

static int ft_push(struct cur *c, size_t at, uint32_t s, uint32_t t, uint32_t cl, uint32_t o,
		   const char *name)
{
	struct policy_core *k = c->core;
	if (!s || s > k->ntypes || !t || t > k->ntypes || !cl || cl > k->nclasses || !o ||
	    o > k->ntypes)
		return bad(c, at, "invalid filename transition (%u, %u, %u) -> %u", s, t, cl, o);
	int rc = grow(k->alloc, (void **)&k->ft, &k->ft_cap, (uint64_t)k->nft + 1, sizeof(*k->ft));
	if (rc)
		return rc;
	k->ft[k->nft++] = (struct sp_filename_trans){ s, t, cl, o, name };
	return 0;
}

static int read_filename_trans(struct cur *c)
{
	struct policy_core *k = c->core;
	uint32_t n;
	c->sec = "filename_trans";
	int rc = count(c, &n, c->vers >= 33 ? 16 : 20, "filename transition");
	if (rc)
		return rc;
	struct u32vec bits = { 0 };
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len, v[4];
		const char *name;
		size_t at = c->off;
		if ((rc = u32(c, &len, "filename transition")) ||
		    (rc = str(c, len, &name, "filename transition name")))
			break;
		if (c->vers < 33) {
			if ((rc = u32s(c, v, 4, "filename transition")) ||
			    (rc = ft_push(c, at, v[0], v[1], v[2], v[3], name)))
				break;
			continue;
		}
		if ((rc = u32s(c, v, 3, "filename transition")))
			break;
		if ((uint64_t)v[2] * 16 > left(c)) {
			rc = bad(c, c->off - 4, "datum count %u too large", v[2]);
			break;
		}
		for (uint32_t j = 0; j < v[2] && !rc; j++) {
			uint32_t otype;
			size_t dat = c->off;
			bits.n = 0;
			if ((rc = ebitmap(c, k->ntypes, &bits)) ||
			    (rc = u32(c, &otype, "filename transition type")))
				break;
			for (uint32_t b = 0; b < bits.n && !rc; b++)
				rc = ft_push(c, dat, bits.v[b] + 1, v[0], v[1], otype, name);
		}
		if (rc)
			break;
	}
	vec_free(k->alloc, &bits);
	k->info.filename_keys = n;
	k->info.filename_rules = k->nft;
	return rc;
}

/* n records of ocontext kind `kind` (OCON_ISID ... OCON_IBENDPORT) in setools' counts */
static void ocon_count(struct sp_policy_counts *k, uint32_t kind, uint32_t n)
{
	uint32_t *const by_kind[9] = { &k->initial_sids, NULL, &k->portcon, &k->netifcon,
				       &k->nodecon, &k->fs_use, &k->nodecon, &k->ibpkeycon,
				       &k->ibendportcon };
	if (kind < 9 && by_kind[kind])
		*by_kind[kind] += n;
}

static int read_ocontexts(struct cur *c, uint32_t ocon_num)
{
	static const size_t minrec[9] = { 16, 28, 24, 28, 20, 20, 44, 28, 20 };	/* context >= 12 */
	static const char *const names[9] = { "isid", "fs", "port", "netif", "node", "fsuse",
					      "node6", "ibpkey", "ibendport" };
	int rc;
	c->sec = "ocontext";
	for (uint32_t kind = 0; kind < ocon_num; kind++) {
		uint32_t n, v[8];
		struct policy_ocon *o = NULL;
		if ((rc = count(c, &n, minrec[kind], names[kind])))
			return rc;
		c->core->info.ocontexts += n;
		ocon_count(&c->core->counts, kind, n);
		if (kind == 0)
			c->core->info.initial_sids = n;
		for (uint32_t i = 0; i < n; i++) {
			switch (kind) {
			case 0:
				rc = u32(c, v, "isid");
				if (!rc && !(o = ocon_new(c, kind)))
					rc = -ENOMEM;
				if (!rc) {
					o->f[0] = v[0];
					rc = context_keep(c, &o->ctx[0]);
				}
				break;
			case 1: /* fs */
				if (!(rc = u32(c, v, names[kind])) &&
				    !(rc = str(c, v[0], NULL, names[kind])) && !(rc = context(c)))
					rc = context(c);
				break;
			case 3: /* netif */
				if (!(o = ocon_new(c, kind)))
					rc = -ENOMEM;
				else if (!(rc = u32(c, v, names[kind])) &&
					 !(rc = str(c, v[0], &o->name, names[kind])) &&
					 !(rc = context_keep(c, &o->ctx[0])))
					rc = context_keep(c, &o->ctx[1]);
				break;
			case 2:
				rc = u32s(c, v, 3, "port");
				if (!rc && !(o = ocon_new(c, kind)))
					rc = -ENOMEM;
				if (!rc) {
					memcpy(o->f, v, 3 * sizeof(*v));
					rc = context_keep(c, &o->ctx[0]);
				}
				break;
			case 4:
			case 6:
			case 7:
				rc = u32s(c, v, kind == 4 ? 2 : kind == 6 ? 8 : 4, names[kind]);
				if (!rc && !(o = ocon_new(c, kind)))
					rc = -ENOMEM;
				if (!rc) {
					memcpy(o->f, v, (kind == 4 ? 2 : kind == 6 ? 8 : 4) * sizeof(*v));
					rc = context_keep(c, &o->ctx[0]);
				}
				break;
			case 5:
				if (!(o = ocon_new(c, kind)))
					rc = -ENOMEM;
				else if (!(rc = u32s(c, v, 2, "fsuse")) &&
					 !(rc = str(c, v[1], &o->name, "fsuse"))) {
					o->f[0] = v[0];
					rc = context_keep(c, &o->ctx[0]);
				}
				break;
			case 8:
				if (!(o = ocon_new(c, kind)))
					rc = -ENOMEM;
				else if (!(rc = u32s(c, v, 2, "ibendport")) &&
					 !(rc = str(c, v[0], &o->name, "ibendport"))) {
					o->f[0] = v[1];
					rc = context_keep(c, &o->ctx[0]);
				}
				break;
			}
			if (rc)
				return rc;
		}
	}
	c->sec = "genfs";
	uint32_t nfs;
	if ((rc = count(c, &nfs, 8, "genfs")))
		return rc;
	c->core->info.genfs = nfs;
	for (uint32_t i = 0; i < nfs; i++) {
		uint32_t len, np;
		const char *fs;
		if ((rc = u32(c, &len, "genfs")) || (rc = str(c, len, &fs, "genfs name")) ||
		    (rc = count(c, &np, 20, "genfs path")))
			return rc;
		c->core->counts.genfscon += np;
		for (uint32_t j = 0; j < np; j++) {
			struct policy_ocon *o = ocon_new(c, POLICY_OCON_GENFS);
			if (!o)
				return -ENOMEM;
			o->name = fs;
			if ((rc = u32(c, &len, "genfs path")) || (rc = str(c, len, &o->path, "genfs path")) ||
			    (rc = u32(c, &o->f[0], "genfs class")) || (rc = context_keep(c, &o->ctx[0])))
				return rc;
		}
	}
	return 0;
}

/* range_trans, file order (before version 21 a record names no class: "process").  The
 * levels are appended to rangetr_lv, two per rule in rule order; the rules point into it once
 * it no longer grows. */
static int read_range_trans(struct cur *c)
{
	struct policy_core *k = c->core;
	uint32_t n;
	c->sec = "range_trans";
	size_t rec = c->vers >= 21 ? 12 : 8;
	int rc = count(c, &n, rec + 16, "range transition");
	if (rc)
		return rc;
	if (n && !(k->rangetr = sp_zalloc(k->alloc, (size_t)n * sizeof(*k->rangetr), 0)))
		return -ENOMEM;
	k->nrangetr = n;
	uint32_t process = rec == 12 ? 0 : process_class(k);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v[3] = { 0, 0, process };
		size_t at = c->off;
		if ((rc = u32s(c, v, rec / 4, "range transition")))
			return rc;
		if (!v[0] || v[0] > k->ntypes || !v[1] || v[1] > k->ntypes ||
		    (rec == 12 && (!v[2] || v[2] > k->nclasses)))
			return bad(c, at, "invalid range transition");
		if ((rc = mls_range(c, &k->rangetr_lv)))
			return rc;
		k->rangetr[i] = (struct sp_range_trans){ v[0], v[1], v[2], NULL, NULL };
	}
	const uint32_t *lv = k->rangetr_lv.v;
	for (uint32_t i = 0; i < n; i++) {
		k->rangetr[i].low = lv;
		lv += 2 + lv[1];
		k->rangetr[i].high = lv;
		lv += 2 + lv[1];
	}
	k->info.range_trans = n;
	k->counts.range_trans = n;
	return 0;
}

static int read_type_attr_map(struct cur *c)
{
	struct policy_core *k = c->core;
	c->sec = "type_attr_map";
	uint32_t nt = k->ntypes;
	k->attr_off = sp_zalloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
	if (!k->attr_off)
		return -ENOMEM;
	struct u32vec v = { 0 };
	int rc = 0;
	for (uint32_t i = 0; i < nt && !rc; i++) {
		uint32_t start = v.n;
		k->attr_off[i + 1] = start;
		if ((rc = ebitmap(c, nt, &v)))
			break;
		/* values are bit + 1; make sure the type's own value is in its row (kernel does) */
		int self = 0;
		for (uint32_t j = start; j < v.n; j++) {
			v.v[j] += 1;
			self |= v.v[j] == i + 1;
		}
		if (!self && (rc = vec_push(k->alloc, &v, i + 1)))
			break;
		/* rows are sorted by construction except the pushed self value */
		for (uint32_t j = v.n - 1; j > start && v.v[j] < v.v[j - 1]; j--) {
			uint32_t t = v.v[j];
			v.v[j] = v.v[j - 1];
			v.v[j - 1] = t;
		}
	}
	k->attr_off[nt + 1] = v.n;
	k->attr_v = NULL;
	if (!rc) {
		/* shrink-wrap: the CSR owns exactly v.n entries */
		k->attr_v = sp_alloc(k->alloc, ((size_t)v.n + 1) * sizeof(uint32_t), 0);
		if (!k->attr_v)
			rc = -ENOMEM;
		else if (v.n)
			memcpy(k->attr_v, v.v, (size_t)v.n * sizeof(uint32_t));
	}
	vec_free(k->alloc, &v);
	if (rc)
		k->attr_off[nt + 1] = 0;
	return rc;
}

/* Pre-v20 policies have no map: every type's row is just itself. */
static int identity_attr_map(struct policy_core *k)
{
	uint32_t nt = k->ntypes;
	k->attr_off = sp_zalloc(k->alloc, ((size_t)nt + 2) * sizeof(uint32_t), 0);
	k->attr_v = sp_alloc(k->alloc, ((size_t)nt + 1) * sizeof(uint32_t), 0);
	if (!k->attr_off || !k->attr_v)
		return -ENOMEM;
	for (uint32_t i = 0; i < nt; i++) {
		k->attr_off[i + 1] = i;
		k->attr_v[i] = i + 1;
	}
	k->attr_off[nt + 1] = nt;
	return 0;
}

/* Magic, identifier, version, config and the symbol/ocontext counts; *want_ocon for the file. */
static int read_header(struct cur *c, uint32_t *want_ocon)
{
	struct policy_core *k = c->core;
	uint32_t h[4];
	int rc;
	c->sec = "header";
	if ((rc = u32(c, h, "magic")))
		return rc;
	if (h[0] == POLICY_MOD_MAGIC) {
		bad(c, 0, "policy module (.pp), not a kernel policy");
		return -ENOTSUP;
	}
	if (h[0] != POLICY_MAGIC)
		return bad(c, 0, "bad magic 0x%08x", h[0]);
	uint32_t slen;
	if ((rc = u32(c, &slen, "identifier")))
		return rc;
	if (slen != 8)
		return bad(c, 4, "identifier length %u is not 8", slen);
	if ((rc = need(c, 8, "identifier")))
		return rc;
	if (!memcmp(c->p + c->off, "XenFlask", 8)) {
		bad(c, 8, "XenFlask policies are not supported");
		return -ENOTSUP;
	}
	if (memcmp(c->p + c->off, "SE Linux", 8))
		return bad(c, 8, "identifier is not 'SE Linux'");
	c->off += 8;
	if ((rc = u32s(c, h, 4, "header")))
		return rc;
	if (h[0] < VMIN || h[0] > VMAX) {
		bad(c, 16, "unsupported policy version %u (supported %d..%d)", h[0], VMIN, VMAX);
		return -ENOTSUP;
	}
	c->vers = k->version = h[0];
	k->config = h[1];
	c->mls = (h[1] & 1) != 0;
	if (h[1] & ~7u)
		return bad(c, 20, "unknown config bits 0x%x", h[1]);
	if (c->mls && c->vers < 19)
		return bad(c, 20, "MLS requires version 19 or later");
	uint32_t want_sym = c->vers >= 19 ? 8 : c->vers >= 16 ? 6 : 5;
	*want_ocon = c->vers >= 31 ? 9 : c->vers >= 17 ? 7 : 6;
	if (h[2] != want_sym || h[3] != *want_ocon)
		return bad(c, 24, "symbol/ocontext counts %u/%u do not match version %u", h[2], h[3],
			   c->vers);
	return 0;
}

/* The bitmaps before the symbols: policy capabilities, permissive types (into perm), neveraudit. */
static int read_maps(struct cur *c, struct u32vec *perm)
{
	struct policy_core *k = c->core;
	int rc;
	if (c->vers >= 22) {
		c->sec = "policy capabilities";
		struct u32vec caps = { 0 };
		rc = ebitmap(c, 0, &caps);
		k->info.polcaps = k->counts.polcaps = caps.n;
		if (!rc && caps.n && !(k->caps = sp_alloc(k->alloc, caps.n * sizeof(uint32_t), 0)))
			rc = -ENOMEM;
		if (k->caps) {
			memcpy(k->caps, caps.v, caps.n * sizeof(uint32_t));
			k->ncaps = caps.n;
		}
		vec_free(k->alloc, &caps);
		if (rc)
			return rc;
	}
	if (c->vers >= 23) {
		c->sec = "permissive map";
		if ((rc = ebitmap(c, 0, perm)))
			return rc;
	}
	if (c->vers >= 35) {
		c->sec = "neveraudit map";
		if ((rc = ebitmap(c, 0, NULL)))
			return rc;
	}
	return 0;
}

/* The eight symbol tables (those the version has), each {nprim, nel} and its records. */
static int read_symbols(struct cur *c)
{
	static int (*const sym[8])(struct cur *, uint32_t, uint32_t) = {
		sym_common, sym_class, sym_role, sym_type, sym_user, sym_bool, sym_sens, sym_cat
	};
	static const char *const symname[8] = { "commons", "classes", "roles", "types",
						"users", "booleans", "sensitivities", "categories" };
	int rc;
	for (uint32_t idx = 0; idx < 8; idx++) {
		if (idx == 5 && c->vers < 16)
			continue;
		if (idx >= 6 && c->vers < 19)
			continue;
		c->sec = symname[idx];
		uint32_t n[2];
		size_t at = c->off;
		if ((rc = u32s(c, n, 2, "symbol table")))
			return rc;
		if ((uint64_t)n[1] * 8 > left(c))
			return bad(c, at + 4, "%u records exceed the %zu bytes left", n[1], left(c));
		/* Arrays are sized by nprim, so bound it by bytes: commons and classes (272-byte
		 * entries) have one record per value; types fit the 16-bit avtab key; roles and
		 * users may have values without records (link/expand scopes) but no more values
		 * than the file has bytes (8-byte entries). */
		if ((idx <= 1 && n[0] > n[1]) || (idx == 3 && n[0] > 0xffff) || n[0] > c->len)
			return bad(c, at, "%u values do not fit %u records", n[0], n[1]);
		if ((rc = sym[idx](c, n[0], n[1])))
			return rc;
	}
	if (!c->core->nclasses || !c->core->ntypes)
		return bad(c, c->off, "policy without classes or types");
	return 0;
}

/* Mark the permissive types read by read_maps (they are checked once the types are known). */
static int apply_permissive(struct cur *c, const struct u32vec *perm)
{
	struct policy_core *k = c->core;
	for (uint32_t i = 0; i < perm->n; i++) {
		if (perm->v[i] > k->ntypes) {
			c->sec = "permissive map";
			return bad(c, 0, "permissive type %u out of range", perm->v[i]);
		}
		if (perm->v[i])
			k->type_flags[perm->v[i]] |= 2;
		/* setools counts permissive primary types (the map names no attribute or alias) */
		k->counts.permissives += perm->v[i] && (k->type_flags[perm->v[i]] & 5) == 4;
	}
	k->info.permissive = perm->n;
	return 0;
}

/* The sections after the symbols, in file order; the file must end with the last. */
static int read_rules(struct cur *c, uint32_t want_ocon)
{
	int rc;
	if ((rc = read_te(c)))
		return rc;
	if (c->vers >= 16 && (rc = read_cond(c)))
		return rc;
	if ((rc = read_roles(c)))
		return rc;
	if (c->vers >= 25 && (rc = read_filename_trans(c)))
		return rc;
	count_rules(c);
	if ((rc = read_ocontexts(c, want_ocon)))
		return rc;
	if (c->vers >= 19 && (rc = read_range_trans(c)))
		return rc;
	if (c->vers >= 20)
		rc = read_type_attr_map(c);
	else
		rc = identity_attr_map(c->core);
	if (rc)
		return rc;
	if (c->off != c->len) {
		c->sec = "policy";
		return bad(c, c->off, "%zu trailing bytes after the type attribute map", left(c));
	}
	return 0;
}

static int read_all(struct cur *c)
{
	uint32_t want_ocon = 0;
	struct u32vec perm = { 0 };
	int rc = read_header(c, &want_ocon);
	if (!rc && !(rc = read_maps(c, &perm)) && !(rc = read_symbols(c)) &&
	    !(rc = apply_permissive(c, &perm)))
		rc = read_rules(c, want_ocon);
	vec_free(c->core->alloc, &perm);
	return rc;
}

/*
 * Read a kernel binary policy into a new core (one reference, not yet finished: index.c's
 * policy_core_finish builds the indexes and tables).  Options used: alloc, diags, file.  Returns
 * 0, -EINVAL (malformed, reported at its section and offset), -ENOTSUP or -ENOMEM; on failure
 * nothing is left allocated.
 */
int policy_core_read(const uint8_t *buf, size_t len, const struct sp_policy_opts *o,
		     struct policy_core **out)
{
	const struct sp_allocator *a = SP_OPTS_HAS(o, alloc) ? o->alloc : NULL;
	struct policy_core *k = sp_zalloc(a, sizeof(*k), 0);
	if (!k)
		return -ENOMEM;
	atomic_init(&k->refs, 1);
	k->alloc = a;
	struct cur c = { .p = buf, .len = len, .sec = "header",
			 .d = SP_OPTS_HAS(o, diags) ? o->diags : NULL,
			 .file = SP_OPTS_HAS(o, file) ? o->file : NULL, .core = k };
	int rc = read_all(&c);
	if (rc) {
		if (rc == -ENOMEM && c.d)
			sp_diags_add_offset(c.d, SP_SEV_ERROR, -ENOMEM, c.file, c.off,
					    "%s: out of memory", c.sec);
		policy_core_free_read(k);
		return rc;
	}
	k->end_sec = c.sec;
	*out = k;
	return 0;
}

#define FREE_N(p, n) sp_free(k->alloc, (p), (size_t)(n) * sizeof(*(p)))

/* Free what the reader built (index.c's policy_core_put frees the rest first), and the core. */
void policy_core_free_read(struct policy_core *k)
{
	uint32_t nt = k->ntypes;
	FREE_N(k->type_name, nt + 1);
	FREE_N(k->type_flags, nt + 1);
	FREE_N(k->type_ix, k->type_ix_cap);
	FREE_N(k->cls, k->nclasses + 1);
	FREE_N(k->commons, k->ncommons + 1);
	FREE_N(k->bool_name, k->nbools + 1);
	FREE_N(k->bool_default, k->nbools + 1);
	FREE_N(k->role_name, k->nroles + 1);
	FREE_N(k->user_name, k->nusers + 1);
	FREE_N(k->xperms, k->xperms_cap);
	FREE_N(k->te, k->te_cap);
	FREE_N(k->cr, k->cr_cap);
	FREE_N(k->cr_node, k->cr_cap);
	FREE_N(k->cnode, k->ncnode + 1);
	FREE_N(k->cexpr, k->cexpr_cap);
	FREE_N(k->ft, k->ft_cap);
	FREE_N(k->rtrans, k->nrtrans);
	FREE_N(k->rallow, k->nrallow);
	FREE_N(k->role_types.v, k->role_types.cap);
	FREE_N(k->user_roles.v, k->user_roles.cap);
	FREE_N(k->sens, k->nsens + 1);
	FREE_N(k->cats, k->ncats + 1);
	FREE_N(k->caps, k->ncaps);
	FREE_N(k->user_mls.v, k->user_mls.cap);
	FREE_N(k->rangetr, k->nrangetr);
	FREE_N(k->rangetr_lv.v, k->rangetr_lv.cap);
	FREE_N(k->sens_lv.v, k->sens_lv.cap);
	FREE_N(k->ocon, k->ocon_cap);
	FREE_N(k->ctxv.v, k->ctxv.cap);
	FREE_N(k->type_bounds.v, k->type_bounds.cap);
	FREE_N(k->cons, k->cons_cap);
	FREE_N(k->cex, k->cex_cap);
	FREE_N(k->cnames.v, k->cnames.cap);
	if (k->attr_off) {
		FREE_N(k->attr_v, k->attr_off[nt + 1] + 1);
		FREE_N(k->attr_off, nt + 2);
	}
	arena_free(k);
	sp_free(k->alloc, k, sizeof(*k));
}
