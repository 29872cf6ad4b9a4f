/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search_hits.c - the matches of `secpath policy search`: their lines written as sesearch
 * writes them (no printf on the AV rules' path) and sorted into sesearch's order.
 *
 * The order.  A TE or range line is KIND ' ' SOURCE ' ' TARGET ':' CLASS REST.  When no name
 * holds the separator that follows it, the first byte at which two such lines differ lies in
 * the first of the four parts that differ, and there the bytes compared are those of part +
 * separator; so the lines' byte order is the order of (rank of KIND+' ', of SOURCE+' ', of
 * TARGET+':', of CLASS+' ') and then of REST.  search_sort ranks the names so once, sorts the
 * packed ranks with a stable radix sort, and compares REST only inside runs of equal ranks.
 * A group that cannot be ranked so (a separator in a name, a value out of range, a role rule,
 * few hits) is sorted by its whole lines.  Either way equal lines keep visit order.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_hits.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The keyword sesearch prints for each rule kind, and the range rules' one. */
static const struct {
	uint16_t kind;
	const char *word;
} kind_words[] = {
	{ SP_AVTAB_ALLOWED, "allow" },
	{ SP_AVTAB_AUDITALLOW, "auditallow" },
	{ SP_AVTAB_AUDITDENY, "dontaudit" },
	{ SP_AVTAB_TRANSITION, "type_transition" },
	{ SP_AVTAB_MEMBER, "type_member" },
	{ SP_AVTAB_CHANGE, "type_change" },
	{ SP_AVTAB_XPERMS_ALLOWED, "allowxperm" },
	{ SP_AVTAB_XPERMS_AUDITALLOW, "auditallowxperm" },
	{ SP_AVTAB_XPERMS_DONTAUDIT, "dontauditxperm" },
	{ 0, "range_transition" },
};

const char *search_kind_word(uint16_t kind)
{
	for (size_t i = 0; i + 1 < NELEM(kind_words); i++)
		if (kind_words[i].kind == kind)
			return kind_words[i].word;
	return "dontauditxperm";
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

/* A growing array's reservation: address space only, its untouched pages cost nothing. */
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

static void release_block(struct sp_region *rg, void *p)
{
	if (rg)
		sp_region_free(rg);
	else
		free(p);
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
	char *b = cap - l->n >= n ? grow_block(&l->rg, l->want_rg, l->b, cap) : NULL;
	if (!b) {
		l->oom = 1;
		return 0;
	}
	l->b = b;
	l->cap = cap;
	return 1;
}

void ln_printf(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	if (!lines_grow(l, 256))
		return;
	va_start(ap, fmt);
	int n = vsnprintf(l->b + l->n, l->cap - l->n, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= l->cap - l->n && lines_grow(l, (size_t)n + 1)) {
		va_start(ap, fmt);
		vsnprintf(l->b + l->n, l->cap - l->n, fmt, ap);
		va_end(ap);
	}
	if (n < 0)
		l->oom = 1;
	else if (!l->oom)
		l->n += (size_t)n;
}

/* v as setools writes an xperm number: 0x and four hex digits. */
static void ln_hex4(struct lines *l, unsigned v)
{
	static const char hx[] = "0123456789abcdef";
	char b[6] = { '0', 'x', hx[v >> 12 & 15], hx[v >> 8 & 15], hx[v >> 4 & 15], hx[v & 15] };
	ln_mem(l, b, sizeof(b));
}

/* ---- one TE rule ---- */

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

int hit_rule(struct search_out *o, const struct sp_avtab_entry *e)
{
	struct search_hit *h = hit_begin(o);
	if (!h)
		return -ENOMEM;
	if (e->tclass > o->npo)
		return -EINVAL;		/* a policy the reader accepted has none */
	struct lines *l = &o->l;
	const struct sp_policy *p = o->p;
	uint16_t kind = e->specified & (uint16_t)~SP_AVTAB_ENABLED;
	h->rule = *e;
	hit_head(o, h, search_kind_word(kind), e->source, e->target, e->tclass);
	ln_chr(l, ' ');
	if (kind & SP_AVTAB_AV) {
		ln_perms_cached(l, o, e->tclass, kind == SP_AVTAB_AUDITDENY ? ~e->data : e->data);
	} else if (kind & SP_AVTAB_TYPE) {
		char b[32];
		ln_str(l, search_tname(p, e->data, b, sizeof(b)));
	} else if (e->xperms) {
		ln_xperms(l, e->xperms);
	}
	ln_chr(l, ';');
	if (e->cond) {
		if (e->cond != o->cond) {	/* a condition's rules come one after another */
			o->cond_text[0] = 0;
			int n = sp_policy_cond_format(p, e->cond, o->cond_text, sizeof(o->cond_text));
			o->cond_len = (int)strnlen(o->cond_text, sizeof(o->cond_text));
			o->cond = n < 0 ? 0 : e->cond;
		}
		ln_chr(l, ' ');
		ln_mem(l, o->cond_text, (size_t)o->cond_len);
		ln_str(l, e->cond_list ? ":True" : ":False");
	}
	return hit_end(o);
}

/* ---- the hits ---- */

int search_out_init(struct search_out *o, const struct sp_policy *p, int perms,
		    const struct sp_allocator *a)
{
	*o = (struct search_out){ .p = p, .l = { .want_rg = a != NULL }, .a = a };
	if (!perms)
		return 0;
	o->npo = sp_policy_class_count(p);
	o->po = calloc((size_t)o->npo + 1, sizeof(*o->po));
	return o->po ? 0 : -ENOMEM;
}

void search_out_release(struct search_out *o)
{
	release_block(o->l.rg, o->l.b);
	release_block(o->rg, o->v);
	free(o->po);
	free(o->pt);
	free(o->pt_text.b);
	sp_free(o->a, o->order, o->n * sizeof(*o->order));
}

struct search_hit *hit_begin(struct search_out *o)
{
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 256;
		struct search_hit *v = grow_block(&o->rg, o->l.want_rg, o->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		o->v = v;
		o->cap = cap;
	}
	struct search_hit *h = &o->v[o->n];
	*h = (struct search_hit){ .off = o->l.n };
	return h;
}

void hit_head(struct search_out *o, struct search_hit *h, const char *kind, uint32_t s,
	      uint32_t t, uint32_t c)
{
	char b[32];
	struct lines *l = &o->l;
	ln_str(l, kind);
	ln_chr(l, ' ');
	ln_str(l, search_tname(o->p, s, b, sizeof(b)));
	ln_chr(l, ' ');
	ln_str(l, search_tname(o->p, t, b, sizeof(b)));
	ln_chr(l, ':');
	ln_str(l, class_str(o->p, c));
	h->kw = kind;
	h->ks = s;
	h->kt = t;
	h->kc = c;
	h->tail = (uint32_t)(l->n - h->off);
}

int hit_end(struct search_out *o)
{
	ln_chr(&o->l, 0);
	if (o->l.oom)
		return -ENOMEM;
	struct search_hit *h = &o->v[o->n++];
	h->len = o->l.n - 1 - h->off;
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
	uint32_t v;
};

static int sep_cmp(const char *a, const char *b, unsigned char sep)
{
	for (;; a++, b++) {
		unsigned char x = *a ? (unsigned char)*a : sep, y = *b ? (unsigned char)*b : sep;
		if (x != y || !*a || !*b)
			return x - y;	/* both ended: the same name (values keep the order) */
	}
}

static int named_cmp(const void *a, const void *b, void *sep)
{
	const struct named *x = a, *y = b;
	int c = sep_cmp(x->name, y->name, *(unsigned char *)sep);
	return c ? c : (x->v > y->v) - (x->v < y->v);
}

/* rank[v] (1..n) of the n names sorted as each is followed by sep; -1 when a name holds sep or
 * two names are alike (their lines could not be told apart by rank). */
static int rank_names(struct named *nv, uint32_t n, unsigned char sep, uint16_t *rank)
{
	for (uint32_t i = 0; i < n; i++)
		if (strchr(nv[i].name, sep))
			return -1;
	qsort_r(nv, n, sizeof(*nv), named_cmp, &sep);
	for (uint32_t i = 0; i < n; i++) {
		if (i && !sep_cmp(nv[i - 1].name, nv[i].name, sep))
			return -1;
		rank[nv[i].v] = (uint16_t)(i + 1);
	}
	return 0;
}

/* The types' and classes' names as lines print them; fb holds the unnamed types' names. */
static int ranks_names(const struct sp_policy *p, struct ranks *r, struct named *nv,
		       char (*fb)[32])
{
	for (uint32_t v = 1; v <= r->nt; v++)
		nv[v - 1] = (struct named){ search_tname(p, v, fb[v], sizeof(fb[v])), v };
	if (rank_names(nv, r->nt, ' ', r->src))
		return -1;
	for (uint32_t v = 1; v <= r->nt; v++)
		nv[v - 1] = (struct named){ search_tname(p, v, fb[v], sizeof(fb[v])), v };
	if (rank_names(nv, r->nt, ':', r->tgt))
		return -1;
	for (uint32_t v = 1; v <= r->nc; v++)
		nv[v - 1] = (struct named){ class_str(p, v), v };
	if (rank_names(nv, r->nc, ' ', r->cls))
		return -1;
	struct named kw[NELEM(kind_words)];
	uint16_t kr[NELEM(kind_words) + 1];
	for (uint32_t i = 0; i < NELEM(kind_words); i++)
		kw[i] = (struct named){ kind_words[i].word, i + 1 };
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

/* The hit's ranks packed (kind 8 bits, source, target, class 16 each); 0 when a part has none. */
static uint64_t hit_key(const struct ranks *r, const struct search_hit *h)
{
	size_t k = 0;
	while (k < NELEM(kind_words) && kind_words[k].word != h->kw)
		k++;
	if (k == NELEM(kind_words) || !h->ks || h->ks > r->nt || !h->kt || h->kt > r->nt ||
	    !h->kc || h->kc > r->nc)
		return 0;
	return (uint64_t)r->kw[k] << 48 | (uint64_t)r->src[h->ks] << 32 |
	       (uint64_t)r->tgt[h->kt] << 16 | r->cls[h->kc];
}

/* Stable LSD radix sort of idx[0..n) by key[idx], a byte at a time over the 7 low bytes. */
static void radix_sort(uint32_t *idx, uint32_t *tmp, const uint64_t *key, size_t n)
{
	for (unsigned shift = 0; shift < 56; shift += 8) {
		size_t cnt[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			cnt[(key[idx[i]] >> shift & 0xff) + 1]++;
		if (cnt[(key[idx[0]] >> shift & 0xff) + 1] == n)
			continue;	/* one value in this byte: the order stays */
		for (unsigned b = 1; b < 257; b++)
			cnt[b] += cnt[b - 1];
		for (size_t i = 0; i < n; i++)
			tmp[cnt[key[idx[i]] >> shift & 0xff]++] = idx[i];
		memcpy(idx, tmp, n * sizeof(*idx));
	}
}

/* Two hits by their lines from off on (equal lines: visit order, which is the index). */
static int line_cmp(const void *a, const void *b, void *ud)
{
	const struct search_out *o = ud;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct search_hit *x = &o->v[i], *y = &o->v[j];
	int c = strcmp(o->l.b + x->off + x->tail, o->l.b + y->off + y->tail);
	return c ? c : (i > j) - (i < j);
}

/* The order by ranks: 0, -1 (some hit has none) or -ENOMEM. */
static int sort_ranked(struct search_out *o, const struct ranks *r)
{
	uint64_t *key = sp_alloc(o->a, o->n * sizeof(*key), 0);
	uint32_t *tmp = sp_alloc(o->a, o->n * sizeof(*tmp), 0);
	int rc = key && tmp ? 0 : -ENOMEM;
	for (size_t i = 0; !rc && i < o->n; i++)
		if (!(key[i] = hit_key(r, &o->v[i])))
			rc = -1;
	if (!rc)
		radix_sort(o->order, tmp, key, o->n);
	for (size_t i = 0, j; !rc && i < o->n; i = j) {
		for (j = i + 1; j < o->n && key[o->order[j]] == key[o->order[i]]; j++)
			;
		if (j - i > 1)	/* equal ranks: the same text up to tail */
			qsort_r(o->order + i, j - i, sizeof(*o->order), line_cmp, o);
	}
	sp_free(o->a, tmp, o->n * sizeof(*tmp));
	sp_free(o->a, key, o->n * sizeof(*key));
	return rc;
}

int search_sort(struct search_out *o)
{
	if (!o->n)
		return 0;
	if (!(o->order = sp_alloc(o->a, o->n * sizeof(*o->order), 0)))
		return -ENOMEM;
	for (size_t i = 0; i < o->n; i++) {
		o->order[i] = (uint32_t)i;
		o->v[i].line = o->l.b + o->v[i].off;
	}
	int rc = -1;
	if (o->n >= 64 && o->v[0].kw) {
		struct ranks r;
		if (!(rc = ranks_build(o->p, &r)))
			rc = sort_ranked(o, &r);
		ranks_free(&r);
	}
	if (rc == -1) {		/* by whole lines */
		for (size_t i = 0; i < o->n; i++) {
			o->order[i] = (uint32_t)i;
			o->v[i].tail = 0;
		}
		qsort_r(o->order, o->n, sizeof(*o->order), line_cmp, o);
		rc = 0;
	}
	return rc;
}
