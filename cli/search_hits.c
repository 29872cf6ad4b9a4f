/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search_hits.c - the matches of `secpath policy search`: sorted into sesearch's order, and their
 * lines written as sesearch writes them (no printf on the AV rules' path) when they are
 * compared or printed.
 *
 * The order.  A TE or range line is KIND ' ' SOURCE ' ' TARGET ':' CLASS REST.  When no name
 * holds the separator that follows it, the first byte at which two such lines differ lies in
 * the first of the four parts that differ, and there the bytes compared are those of part +
 * separator; so the lines' byte order is the order of (rank of KIND+' ', of SOURCE+' ', of
 * TARGET+':', of CLASS+' ') and then of REST.  search_sort ranks the names so once, sorts the
 * hits by their packed ranks with a stable radix sort, and makes and compares lines only inside
 * runs of equal ranks (whose lines agree up to REST).  A group that cannot be ranked so (a
 * separator in a name, a value out of range, ranks and index wider than 64 bits, a role rule,
 * few hits) is sorted by its whole lines.  Either way equal lines keep visit order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_hits.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The keyword sesearch prints for each rule kind, and the range rules' one. */
#define KW(kind, word) { kind, sizeof(word) - 1, word }
static const struct {
	uint16_t kind;
	uint8_t len;
	const char *word;
} kind_words[] = {
	KW(SP_AVTAB_ALLOWED, "allow"),
	KW(SP_AVTAB_AUDITALLOW, "auditallow"),
	KW(SP_AVTAB_AUDITDENY, "dontaudit"),
	KW(SP_AVTAB_TRANSITION, "type_transition"),
	KW(SP_AVTAB_MEMBER, "type_member"),
	KW(SP_AVTAB_CHANGE, "type_change"),
	KW(SP_AVTAB_XPERMS_ALLOWED, "allowxperm"),
	KW(SP_AVTAB_XPERMS_AUDITALLOW, "auditallowxperm"),
	KW(SP_AVTAB_XPERMS_DONTAUDIT, "dontauditxperm"),
	KW(0, "range_transition"),
};
#define KW_DONTAUDITXPERM 8u		/* what an unknown kind prints */
#define KW_RANGE (NELEM(kind_words) - 1)

/* The kind_words entry of a TE rule kind. */
static unsigned kind_index(uint16_t kind)
{
	for (unsigned i = 0; i < KW_RANGE; i++)
		if (kind_words[i].kind == kind)
			return i;
	return KW_DONTAUDITXPERM;
}

/* The same through o's table of one-bit kinds. */
static unsigned kind_index_of(const struct search_out *o, uint16_t kind)
{
	return kind && !(kind & (kind - 1)) ? o->kw_of_bit[__builtin_ctz(kind)] : kind_index(kind);
}

const char *search_kind_word(uint16_t kind)
{
	return kind_words[kind_index(kind)].word;
}

const char *search_tname(const struct sp_policy *p, uint32_t v, char *buf, size_t len)
{
	const char *n = sp_policy_type_name(p, v);
	if (n)
		return n;
	snprintf(buf, len, "@ttr%04u", v);
	return buf;
}

static const char *class_str(const struct sp_policy *p, uint32_t c)
{
	const char *n = sp_policy_class_name(p, c);
	return n ? n : "?";
}

/* ---- the lines ---- */

/* The hits' reservation: address space only, its untouched pages cost nothing. */
#define GROW_RESERVE ((size_t)16 << 30)

/*
 * Array p grown to size bytes: in its own region *rg when want (made on the first growth),
 * where it is the only block and so grows in place; else by realloc (glibc moves a big block
 * with mremap, not a copy).  NULL, p untouched, when there is no memory.
 */
static void *grow_block(struct sp_region **rg, int want, void *p, size_t size)
{
	if (want && !*rg && sp_region_new(GROW_RESERVE, rg))
		*rg = NULL;
	return *rg ? sp_region_resize(*rg, p, size) : realloc(p, size);
}

int lines_grow(struct lines *l, size_t n)
{
	if (l->oom)
		return 0;
	if (l->cap - l->n >= n)
		return 1;
	size_t cap = l->cap ? l->cap : 1 << 16;
	while (cap - l->n < n && cap < SIZE_MAX / 2)
		cap *= 2;
	char *b = cap - l->n >= n ? realloc(l->b, cap) : NULL;
	if (!b) {
		l->oom = 1;
		return 0;
	}
	l->b = b;
	l->cap = cap;
	return 1;
}

/* v as setools writes an xperm number: 0x and four hex digits. */
static void ln_hex4(struct lines *l, unsigned v)
{
	static const char hx[] = "0123456789abcdef";
	char b[6] = { '0', 'x', hx[v >> 12 & 15], hx[v >> 8 & 15], hx[v >> 4 & 15], hx[v & 15] };
	ln_mem(l, b, sizeof(b));
}

/* Type v's name, found on first use: NULL when it has none (search_tname makes one). */
static inline const struct name_ref *type_ref(struct search_out *o, uint32_t v)
{
	if (v > o->nt)
		return NULL;
	struct name_ref *r = &o->tn[v];
	if (!r->s && (r->s = sp_policy_type_name(o->p, v)))
		r->len = (uint32_t)strlen(r->s);
	return r->s ? r : NULL;
}

/* Class c's name ("?" without one), found on first use; NULL past the policy's classes. */
static inline const struct name_ref *class_ref(struct search_out *o, uint32_t c)
{
	if (c > o->nc)
		return NULL;
	struct name_ref *r = &o->cn[c];
	if (!r->s) {
		r->s = class_str(o->p, c);
		r->len = (uint32_t)strlen(r->s);
	}
	return r;
}

/* search_tname's name of a type without one (out of line: the common path stays small). */
static __attribute__((noinline)) void ln_tname(struct lines *l, const struct sp_policy *p,
						uint32_t v)
{
	char b[32];
	ln_str(l, search_tname(p, v, b, sizeof(b)));
}

/* Type v's name as lines print it (search_tname). */
static void ln_type(struct lines *l, struct search_out *o, uint32_t v)
{
	const struct name_ref *r = type_ref(o, v);
	if (r)
		ln_mem(l, r->s, r->len);
	else
		ln_tname(l, o->p, v);
}

/* Class c's name as lines print it ("?" without one). */
static void ln_class(struct lines *l, struct search_out *o, uint32_t c)
{
	const struct name_ref *r = class_ref(o, c);
	if (r)
		ln_mem(l, r->s, r->len);
	else
		ln_str(l, class_str(o->p, c));
}

static void ln_role(struct lines *l, const struct sp_policy *p, uint32_t r)
{
	const char *n = sp_policy_role_name(p, r);
	ln_str(l, n ? n : "?");
}

/* "KIND SOURCE TARGET:CLASS", how TE and range lines begin (kw: kind_words index): with
 * named types and a class in range, the room taken once and the parts put in a row. */
static void ln_head(struct lines *l, struct search_out *o, unsigned kw, uint32_t s, uint32_t t,
		    uint32_t c)
{
	const struct name_ref *rs = type_ref(o, s), *rt = type_ref(o, t), *rc = class_ref(o, c);
	size_t need = rs && rt && rc ? kind_words[kw].len + rs->len + rt->len + rc->len + 3 : 0;
	if (need && (l->cap - l->n >= need || lines_grow(l, need))) {
		char *d = ln_put(l->b + l->n, kind_words[kw].word, kind_words[kw].len);
		*d++ = ' ';
		d = ln_put(d, rs->s, rs->len);
		*d++ = ' ';
		d = ln_put(d, rt->s, rt->len);
		*d++ = ':';
		l->n = (size_t)(ln_put(d, rc->s, rc->len) - l->b);
		return;
	}
	ln_mem(l, kind_words[kw].word, kind_words[kw].len);
	ln_chr(l, ' ');
	ln_type(l, o, s);
	ln_chr(l, ' ');
	ln_type(l, o, t);
	ln_chr(l, ':');
	ln_class(l, o, c);
}

/* ---- permissions ---- */

static const struct perm_order *perm_order(struct perm_order *po, const struct sp_policy *p,
					   uint32_t c)
{
	struct perm_order *o = &po[c];
	if (o->done)
		return o;
	uint8_t bit[32];
	for (unsigned b = 0; b < 32; b++) {
		const char *nm = sp_policy_perm_name(p, c, b);
		unsigned j = b;
		for (; j > 0 && strcmp(o->name[j - 1], nm ? nm : "?") > 0; j--) {
			o->name[j] = o->name[j - 1];
			bit[j] = bit[j - 1];
		}
		o->name[j] = nm ? nm : "?";
		bit[j] = (uint8_t)b;
	}
	for (unsigned k = 0; k < 32; k++) {
		o->pos[bit[k]] = (uint8_t)k;
		o->len[k] = strlen(o->name[k]);
	}
	o->done = 1;
	return o;
}

/* mask's bits as positions in setools' order: bit k set = the k-th name of o is in mask. */
static uint32_t perm_sorted(const struct perm_order *o, uint32_t mask)
{
	uint32_t sorted = 0;
	for (uint32_t m = mask; m; m &= m - 1)
		sorted |= 1u << o->pos[__builtin_ctz(m)];
	return sorted;
}

int search_perm_names(struct search_out *o, uint32_t c, uint32_t mask, const char *names[32])
{
	const struct perm_order *po = perm_order(o->po, o->p, c);
	int n = 0;
	for (uint32_t sorted = perm_sorted(po, mask); sorted; sorted &= sorted - 1)
		names[n++] = po->name[__builtin_ctz(sorted)];
	return n;
}

/* mask's permissions of class c as sesearch prints them: one name, or "{ a b }" sorted. */
static void ln_perms(struct lines *l, struct perm_order *po, const struct sp_policy *p,
		     uint32_t c, uint32_t mask)
{
	const struct perm_order *o = perm_order(po, p, c);
	int one = mask && !(mask & (mask - 1));
	if (!one)
		ln_chr(l, '{');
	for (uint32_t sorted = perm_sorted(o, mask); sorted; sorted &= sorted - 1) {
		unsigned k = (unsigned)__builtin_ctz(sorted);
		if (!one)
			ln_chr(l, ' ');
		ln_mem(l, o->name[k], o->len[k]);
	}
	if (!one)
		ln_mem(l, " }", 2);
}

/* o's permissions-part table doubled (or made); 0 or -ENOMEM. */
static int pt_grow(struct search_out *o)
{
	size_t ncap = o->pt ? (o->pt_mask + 1) * 2 : 256;
	struct perm_text *nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; o->pt && i <= o->pt_mask; i++)
		if (o->pt[i].key) {
			size_t h = (size_t)(o->pt[i].key * 0x9e3779b97f4a7c15ull >> 40) & (ncap - 1);
			while (nt[h].key)
				h = (h + 1) & (ncap - 1);
			nt[h] = o->pt[i];
		}
	free(o->pt);
	o->pt = nt;
	o->pt_mask = ncap - 1;
	return 0;
}

/* ln_perms through o's table: each (class, mask) formatted once, then copied (few such pairs
 * recur over a policy's rules). */
static void ln_perms_cached(struct lines *l, struct search_out *o, uint32_t c, uint32_t mask)
{
	uint64_t key = (uint64_t)c << 32 | mask;
	if ((o->npt + 1) * 2 > (o->pt ? o->pt_mask + 1 : 0) && pt_grow(o)) {
		l->oom = 1;
		return;
	}
	size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 40) & o->pt_mask;
	for (; o->pt[h].key; h = (h + 1) & o->pt_mask)
		if (o->pt[h].key == key) {
			ln_mem(l, o->pt_text.b + o->pt[h].off, o->pt[h].len);
			return;
		}
	size_t off = o->pt_text.n;
	ln_perms(&o->pt_text, o->po, o->p, c, mask);
	if (o->pt_text.oom) {
		l->oom = 1;
		return;
	}
	o->pt[h] = (struct perm_text){ key, (uint32_t)off, (uint32_t)(o->pt_text.n - off) };
	o->npt++;
	ln_mem(l, o->pt_text.b + off, o->pt_text.n - off);
}

/* setools: ranges of 16-bit ioctl numbers; braces only around two or more */
static void ln_xperms(struct lines *l, const struct sp_avtab_xperms *x)
{
	unsigned nr = 0, lo[128], hi[128];
	for (unsigned i = 0; i < 256; i++) {
		if (!(x->perms[i / 32] >> (i % 32) & 1))
			continue;
		unsigned j = i;
		while (j + 1 < 256 && (x->perms[(j + 1) / 32] >> ((j + 1) % 32) & 1))
			j++;
		lo[nr] = x->kind == 2 ? i << 8 : (unsigned)x->driver << 8 | i;
		hi[nr++] = x->kind == 2 ? (j << 8) | 0xff : (unsigned)x->driver << 8 | j;
		i = j + 1;	/* j + 1 is clear: at most 128 ranges */
	}
	ln_str(l, x->kind == 3 ? "nlmsg " : "ioctl ");
	if (nr > 1)
		ln_chr(l, '{');
	for (unsigned r = 0; r < nr; r++) {
		if (nr > 1)
			ln_chr(l, ' ');
		ln_hex4(l, lo[r]);
		if (hi[r] != lo[r]) {
			ln_chr(l, '-');
			ln_hex4(l, hi[r]);
		}
	}
	if (nr > 1)
		ln_mem(l, " }", 2);
}

/* Conditional node cond's expression as sesearch prints it, formatted once. */
static void ln_cond(struct lines *l, struct search_out *o, uint32_t cond)
{
	if (cond >= o->nct) {
		uint32_t n = cond < 64 ? 128 : cond * 2;
		struct cond_text *ct = realloc(o->ct, (size_t)n * sizeof(*ct));
		if (!ct) {
			l->oom = 1;
			return;
		}
		for (uint32_t i = o->nct; i < n; i++)
			ct[i].len = UINT32_MAX;
		o->ct = ct;
		o->nct = n;
	}
	struct cond_text *c = &o->ct[cond];
	if (c->len == UINT32_MAX) {
		char b[4096];
		b[0] = 0;
		(void)sp_policy_cond_format(o->p, cond, b, sizeof(b));	/* as much as it wrote */
		size_t n = strnlen(b, sizeof(b));
		if (o->ct_text.n > UINT32_MAX - n) {
			l->oom = 1;
			return;
		}
		c->off = (uint32_t)o->ct_text.n;
		ln_mem(&o->ct_text, b, n);
		if (o->ct_text.oom) {
			l->oom = 1;
			return;
		}
		c->len = (uint32_t)n;
	}
	ln_mem(l, o->ct_text.b + c->off, c->len);
}

/* One TE rule (an avtab entry) as sesearch prints it, without the newline; rest: only what
 * follows its CLASS. */
static void rule_line(struct lines *l, struct search_out *o, const struct sp_avtab_entry *e,
		      int rest)
{
	uint16_t kind = e->specified & (uint16_t)~SP_AVTAB_ENABLED;
	if (!rest)
		ln_head(l, o, kind_index_of(o, kind), e->source, e->target, e->tclass);
	ln_chr(l, ' ');
	if (kind & SP_AVTAB_AV)
		ln_perms_cached(l, o, e->tclass, kind == SP_AVTAB_AUDITDENY ? ~e->data : e->data);
	else if (kind & SP_AVTAB_TYPE)
		ln_type(l, o, e->data);
	else if (e->xperms)
		ln_xperms(l, e->xperms);
	ln_chr(l, ';');
	if (e->cond) {
		ln_chr(l, ' ');
		ln_cond(l, o, e->cond);
		ln_str(l, e->cond_list ? ":True" : ":False");
	}
}

void search_rule(const struct search_out *o, const struct search_hit *h, struct sp_avtab_entry *e)
{
	int xp = (h->specified & SP_AVTAB_XPERMS) != 0;
	*e = (struct sp_avtab_entry){ .source = h->source, .target = h->target, .tclass = h->tclass,
				      .specified = h->specified, .data = xp ? 0 : h->data,
				      .xperms = xp && h->data ? o->ref[h->data - 1] : NULL,
				      .cond = h->cond >> 1, .cond_list = (int)(h->cond & 1) };
}

/* h's line, or with rest only what follows its CLASS (hits whose lines have one). */
static void hit_text(struct search_out *o, const struct search_hit *h, struct lines *l, int rest)
{
	const struct sp_policy *p = o->p;
	const struct sp_filename_trans *ft;
	const struct sp_role_allow *ra;
	const struct sp_role_trans *rt;
	const struct sp_range_trans *mt;
	struct sp_avtab_entry e;
	char r[4096];
	switch (search_what(h)) {
	case HIT_RULE:
		search_rule(o, h, &e);
		rule_line(l, o, &e, rest);
		break;
	case HIT_FT:	/* type_transition S T:C DEFAULT NAME; */
		ft = search_ref(o, h);
		if (!rest)
			ln_head(l, o, kind_index(SP_AVTAB_TRANSITION), ft->stype, ft->ttype,
				ft->tclass);
		ln_chr(l, ' ');
		ln_type(l, o, ft->otype);
		ln_chr(l, ' ');
		ln_str(l, ft->name);
		ln_chr(l, ';');
		break;
	case HIT_RA:	/* allow R1 R2; */
		ra = search_ref(o, h);
		ln_str(l, "allow ");
		ln_role(l, p, ra->role);
		ln_chr(l, ' ');
		ln_role(l, p, ra->new_role);
		ln_chr(l, ';');
		break;
	case HIT_RT:	/* role_transition R T:C R2; */
		rt = search_ref(o, h);
		ln_str(l, "role_transition ");
		ln_role(l, p, rt->role);
		ln_chr(l, ' ');
		ln_type(l, o, rt->type);
		ln_chr(l, ':');
		ln_class(l, o, rt->tclass);
		ln_chr(l, ' ');
		ln_role(l, p, rt->new_role);
		ln_chr(l, ';');
		break;
	case HIT_MT:	/* range_transition S T:C RANGE; (search_add checked the range) */
		mt = search_ref(o, h);
		if (!rest)
			ln_head(l, o, KW_RANGE, mt->stype, mt->ttype, mt->tclass);
		ln_chr(l, ' ');
		if (sp_policy_range_format(p, mt->low, mt->high, r, sizeof(r)) < 0)
			l->oom = 1;
		else
			ln_str(l, r);
		ln_chr(l, ';');
		break;
	}
}

void search_line(struct search_out *o, const struct search_hit *h, struct lines *l)
{
	hit_text(o, h, l, 0);
}

/* ---- the hits ---- */

int search_out_init(struct search_out *o, const struct sp_policy *p, int perms,
		    const struct sp_allocator *a)
{
	*o = (struct search_out){ .p = p, .want_rg = a != NULL, .a = a,
				  .nt = sp_policy_type_count(p), .nc = sp_policy_class_count(p) };
	for (unsigned b = 0; b < 16; b++)
		o->kw_of_bit[b] = (uint8_t)kind_index((uint16_t)(1u << b));
	o->tn = calloc((size_t)o->nt + 1, sizeof(*o->tn));
	o->cn = calloc((size_t)o->nc + 1, sizeof(*o->cn));
	if (!o->tn || !o->cn)
		return -ENOMEM;
	if (!perms)
		return 0;
	o->npo = o->nc;
	o->po = calloc((size_t)o->npo + 1, sizeof(*o->po));
	return o->po ? 0 : -ENOMEM;
}

void search_out_release(struct search_out *o)
{
	if (o->rg)
		sp_region_free(o->rg);
	else
		free(o->v);
	free(o->po);
	free(o->tn);
	free(o->cn);
	free(o->pt);
	free(o->pt_text.b);
	free(o->ct);
	free(o->ct_text.b);
	free(o->sl.b);
	free(o->lr);
	free(o->ref);
	sp_free(o->a, o->order, o->n * sizeof(*o->order));
}

/* Room for one more hit: the next one, or NULL when out of memory. */
static struct search_hit *hit_next(struct search_out *o)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 256;
		struct search_hit *v = grow_block(&o->rg, o->want_rg, o->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		o->v = v;
		o->cap = cap;
	}
	return &o->v[o->n];
}

/* ref kept in o->ref: its index, or -ENOMEM. */
static int64_t ref_add(struct search_out *o, const void *ref)
{
	if (o->nref == o->ref_cap) {
		size_t cap = o->ref_cap ? o->ref_cap * 2 : 64;
		const void **v = cap <= UINT32_MAX ? realloc(o->ref, cap * sizeof(*v)) : NULL;
		if (!v)
			return -ENOMEM;
		o->ref = v;
		o->ref_cap = cap;
	}
	o->ref[o->nref] = ref;
	return (int64_t)o->nref++;
}

int search_add_rule(struct search_out *o, const struct sp_avtab_entry *e)
{
	if (!e->specified || e->tclass > o->npo || e->cond > INT32_MAX)
		return -EINVAL;		/* a policy the reader accepted has none */
	struct search_hit *h = hit_next(o);
	if (!h)
		return -ENOMEM;
	*h = (struct search_hit){ .source = e->source, .target = e->target, .tclass = e->tclass,
				  .specified = e->specified, .data = e->data,
				  .cond = e->cond << 1 | (e->cond_list != 0) };
	if (e->specified & SP_AVTAB_XPERMS) {
		int64_t i = e->xperms ? ref_add(o, e->xperms) : -1;
		if (i < -1)
			return (int)i;
		h->data = (uint32_t)(i + 1);
	}
	o->n++;
	return 0;
}

int search_add(struct search_out *o, enum hit_what what, const void *ref)
{
	if (what == HIT_MT) {
		const struct sp_range_trans *mt = ref;
		char r[4096];
		if (sp_policy_range_format(o->p, mt->low, mt->high, r, sizeof(r)) < 0)
			return -ENOMEM;
	}
	struct search_hit *h = hit_next(o);
	int64_t i = h ? ref_add(o, ref) : -ENOMEM;
	if (i < 0)
		return (int)i;
	*h = (struct search_hit){ .tclass = (uint16_t)what, .data = (uint32_t)i };
	o->n++;
	return 0;
}

/* ---- the order ---- */

/* Ranks of the names as each is followed by its separator in a line, by value. */
struct ranks {
	uint16_t *src, *tgt, *cls;
	uint32_t nt, nc;
	uint8_t kw[NELEM(kind_words)];
};

struct named {
	const char *name;
	uint32_t len, v;
};

/* Two names as each is followed by sep (0: alike; sep itself held by neither). */
static int sep_cmp(const struct named *a, const struct named *b, unsigned char sep)
{
	uint32_t m = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->name, b->name, m);
	if (c || a->len == b->len)
		return c;
	return a->len < b->len ? sep - (unsigned char)b->name[m] : (unsigned char)a->name[m] - sep;
}

static int named_cmp(const void *a, const void *b, void *sep)
{
	const struct named *x = a, *y = b;
	int c = sep_cmp(x, y, *(unsigned char *)sep);
	return c ? c : (x->v > y->v) - (x->v < y->v);
}

/* rank[v] (1..n) of the n names sorted as each is followed by sep; -1 when a name holds sep or
 * two names are alike (their lines could not be told apart by rank). */
static int rank_names(struct named *nv, uint32_t n, unsigned char sep, uint16_t *rank)
{
	for (uint32_t i = 0; i < n; i++)
		if (memchr(nv[i].name, sep, nv[i].len))
			return -1;
	qsort_r(nv, n, sizeof(*nv), named_cmp, &sep);
	for (uint32_t i = 0; i < n; i++) {
		if (i && !sep_cmp(&nv[i - 1], &nv[i], sep))
			return -1;
		rank[nv[i].v] = (uint16_t)(i + 1);
	}
	return 0;
}

static struct named named_of(const char *name, uint32_t v)
{
	return (struct named){ name, (uint32_t)strlen(name), v };
}

/* The types' and classes' names as lines print them; fb holds the unnamed types' names. */
static int ranks_names(const struct sp_policy *p, struct ranks *r, struct named *nv,
		       char (*fb)[32])
{
	for (uint32_t v = 1; v <= r->nt; v++)
		nv[v - 1] = named_of(search_tname(p, v, fb[v], sizeof(fb[v])), v);
	if (rank_names(nv, r->nt, ' ', r->src))
		return -1;
	if (rank_names(nv, r->nt, ':', r->tgt))	/* the same names, in the order just made */
		return -1;
	for (uint32_t v = 1; v <= r->nc; v++)
		nv[v - 1] = named_of(class_str(p, v), v);
	if (rank_names(nv, r->nc, ' ', r->cls))
		return -1;
	struct named kw[NELEM(kind_words)];
	uint16_t kr[NELEM(kind_words) + 1];
	for (uint32_t i = 0; i < NELEM(kind_words); i++)
		kw[i] = named_of(kind_words[i].word, i + 1);
	if (rank_names(kw, NELEM(kind_words), ' ', kr))
		return -1;
	for (uint32_t i = 0; i < NELEM(kind_words); i++)
		r->kw[i] = (uint8_t)kr[i + 1];
	return 0;
}

/* The ranks of p's names: 0, -1 (cannot rank: sort by lines) or -ENOMEM; r is for ranks_free
 * in every case. */
static int ranks_build(const struct sp_policy *p, struct ranks *r)
{
	*r = (struct ranks){ .nt = sp_policy_type_count(p), .nc = sp_policy_class_count(p) };
	if (r->nt > UINT16_MAX || r->nc > UINT16_MAX)
		return -1;
	uint32_t nmax = r->nt > r->nc ? r->nt : r->nc;
	r->src = malloc(((size_t)r->nt + 1) * sizeof(uint16_t));
	r->tgt = malloc(((size_t)r->nt + 1) * sizeof(uint16_t));
	r->cls = malloc(((size_t)r->nc + 1) * sizeof(uint16_t));
	struct named *nv = malloc(((size_t)nmax + 1) * sizeof(*nv));
	char (*fb)[32] = malloc(((size_t)r->nt + 1) * sizeof(*fb));
	int rc = r->src && r->tgt && r->cls && nv && fb ? ranks_names(p, r, nv, fb) : -ENOMEM;
	free(nv);
	free(fb);
	return rc;
}

static void ranks_free(struct ranks *r)
{
	free(r->src);
	free(r->tgt);
	free(r->cls);
}

/* The hit's kind word (kind_words index), source, target and class: 1, or 0 when its line
 * does not begin "KIND SOURCE TARGET:CLASS" (a role rule). */
static int hit_parts(const struct search_out *o, const struct search_hit *h, uint32_t part[4])
{
	uint16_t kind = h->specified & (uint16_t)~SP_AVTAB_ENABLED;
	const struct sp_filename_trans *ft;
	const struct sp_range_trans *mt;
	switch (search_what(h)) {
	case HIT_RULE:
		part[0] = kind_index_of(o, kind);
		part[1] = h->source;
		part[2] = h->target;
		part[3] = h->tclass;
		return 1;
	case HIT_FT:
		ft = search_ref(o, h);
		part[0] = kind_index(SP_AVTAB_TRANSITION);
		part[1] = ft->stype;
		part[2] = ft->ttype;
		part[3] = ft->tclass;
		return 1;
	case HIT_MT:
		mt = search_ref(o, h);
		part[0] = KW_RANGE;
		part[1] = mt->stype;
		part[2] = mt->ttype;
		part[3] = mt->tclass;
		return 1;
	default:
		return 0;
	}
}

/* Bits to hold the values 0..v. */
static unsigned bits_for(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

#define RADIX_BITS 11u

/* Stable LSD radix sort of k[0..n) by its bits [lo, lo + nb), RADIX_BITS at most a pass, the
 * counts of every pass taken in one read; tmp holds n keys.  The keys end sorted in k.  0 or
 * -ENOMEM. */
static int radix_sort(uint64_t *k, uint64_t *tmp, size_t n, unsigned lo, unsigned nb)
{
	unsigned passes = (nb + RADIX_BITS - 1) / RADIX_BITS;
	unsigned w = passes ? (nb + passes - 1) / passes : 0;
	size_t nd = (size_t)1 << w;
	uint64_t mask = nd - 1, *src = k, *dst = tmp;
	uint32_t *cnt = calloc(passes ? passes * nd : 1, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (unsigned p = 0; p < passes; p++)
			cnt[p * nd + (k[i] >> (lo + p * w) & mask)]++;
	for (unsigned p = 0; p < passes; p++) {
		uint32_t *c = cnt + p * nd, sum = 0;
		unsigned sh = lo + p * w;
		if (c[src[0] >> sh & mask] == n)
			continue;	/* one value in this digit: the order stays */
		for (size_t d = 0; d < nd; d++) {
			uint32_t x = c[d];
			c[d] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[src[i] >> sh & mask]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != k)
		memcpy(k, src, n * sizeof(*k));
	free(cnt);
	return 0;
}

static int lref_cmp(const void *a, const void *b, void *ud)
{
	const struct line_ref *x = a, *y = b;
	const char *buf = ud;
	int c = strcmp(buf + x->off, buf + y->off);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* idx[0..n) ordered by their hits' lines (rest: by what follows their CLASS, the rest being
 * the same), equal lines by index; 0 or -ENOMEM. */
static int sort_by_lines(struct search_out *o, uint32_t *idx, size_t n, int rest)
{
	if (n > o->lr_cap) {
		size_t cap = n > 2 * o->lr_cap ? n : 2 * o->lr_cap;
		struct line_ref *lr = realloc(o->lr, cap * sizeof(*lr));
		if (!lr)
			return -ENOMEM;
		o->lr = lr;
		o->lr_cap = cap;
	}
	o->sl.n = 0;
	for (size_t i = 0; i < n; i++) {
		o->lr[i] = (struct line_ref){ o->sl.n, idx[i] };
		hit_text(o, &o->v[idx[i]], &o->sl, rest);
		ln_chr(&o->sl, 0);
	}
	if (o->sl.oom)
		return -ENOMEM;
	qsort_r(o->lr, n, sizeof(*o->lr), lref_cmp, o->sl.b);
	for (size_t i = 0; i < n; i++)
		idx[i] = o->lr[i].idx;
	return 0;
}

/* Each hit's ranks packed above its index: kind, source, target, class from the top down, in
 * as many bits as the policy's counts need.  nb gets the ranks' bits, bi the index's; 0, or -1
 * when some hit has no ranks or they do not fit in 64 bits. */
static int pack_keys(const struct search_out *o, const struct ranks *r, uint64_t *k,
		     unsigned *nb, unsigned *bi)
{
	unsigned bk = bits_for(NELEM(kind_words)), bt = bits_for(r->nt), bc = bits_for(r->nc);
	*bi = bits_for(o->n - 1);
	*nb = bk + 2 * bt + bc;
	if (*nb + *bi > 64)
		return -1;
	for (size_t i = 0; i < o->n; i++) {
		uint32_t q[4];
		if (!hit_parts(o, &o->v[i], q) || !q[1] || q[1] > r->nt || !q[2] ||
		    q[2] > r->nt || !q[3] || q[3] > r->nc)
			return -1;
		uint64_t key = r->kw[q[0]];
		key = key << bt | r->src[q[1]];
		key = key << bt | r->tgt[q[2]];
		key = key << bc | r->cls[q[3]];
		k[i] = key << *bi | i;
	}
	return 0;
}

/* The order by ranks, runs of equal ranks by their lines: 0, -1 (not by ranks) or -ENOMEM. */
static int sort_ranked(struct search_out *o, const struct ranks *r)
{
	uint64_t *k = sp_alloc(o->a, o->n * sizeof(*k), 0);
	uint64_t *tmp = sp_alloc(o->a, o->n * sizeof(*tmp), 0);
	unsigned nb = 0, bi = 0;
	int rc = k && tmp ? pack_keys(o, r, k, &nb, &bi) : -ENOMEM;
	if (!rc)
		rc = radix_sort(k, tmp, o->n, bi, nb);
	uint64_t imask = ((uint64_t)1 << bi) - 1;
	for (size_t i = 0; !rc && i < o->n; i++)
		o->order[i] = (uint32_t)(k[i] & imask);
	for (size_t i = 0, j; !rc && i < o->n; i = j) {
		for (j = i + 1; j < o->n && k[j] >> bi == k[i] >> bi; j++)
			;
		if (j - i > 1)	/* equal ranks: the same text up to REST */
			rc = sort_by_lines(o, o->order + i, j - i, 1);
	}
	sp_free(o->a, tmp, o->n * sizeof(*tmp));
	sp_free(o->a, k, o->n * sizeof(*k));
	return rc;
}

int search_sort(struct search_out *o)
{
	if (!o->n)
		return 0;
	if (o->n > UINT32_MAX)
		return -EOVERFLOW;
	if (!(o->order = sp_alloc(o->a, o->n * sizeof(*o->order), 0)))
		return -ENOMEM;
	int rc = -1;
	if (o->n >= 64 && search_what(&o->v[0]) != HIT_RA && search_what(&o->v[0]) != HIT_RT) {
		struct ranks r;
		if (!(rc = ranks_build(o->p, &r)))
			rc = sort_ranked(o, &r);
		ranks_free(&r);
	}
	if (rc == -1) {		/* by whole lines */
		for (size_t i = 0; i < o->n; i++)
			o->order[i] = (uint32_t)i;
		rc = sort_by_lines(o, o->order, o->n, 0);
	}
	return rc;
}
