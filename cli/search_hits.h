/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search_hits.h - the matches of `secpath policy search`, held until the last is in, in
 * sesearch's order, and their lines as sesearch prints them (cli/search_hits.c).
 *
 * sesearch prints sorted(results), and setools' rules compare by their text
 * (PolicyRule.__lt__ is str(self) < str(other)), so the order is the byte order of the lines
 * printed, equal lines in visit order.  A hit holds what its line is made from (a TE rule, or
 * the policy's record of another rule), not the line: search_sort orders most hits by their
 * names' ranks without making a line, and a line is made when it is compared or written
 * (search_line), so the hits of a whole policy take a few tens of bytes each.
 */
#ifndef SP_CLI_SEARCH_HITS_H
#define SP_CLI_SEARCH_HITS_H

#include <stdint.h>
#include <string.h>
#include "secpath/policy.h"

/* A growth that fails sets oom and drops every later append, so writers need not check each
 * one; whoever made the lines reports it. */
struct lines {
	char *b;
	size_t n, cap;
	int oom;
};

int lines_grow(struct lines *l, size_t n);	/* room for n more bytes: 1, or 0 (oom set) */

/* n bytes of s at d (a short string in two overlapping copies, no call); past them. */
static inline char *ln_put(char *d, const char *s, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else if (n && n < 4) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	} else if (n) {
		memcpy(d, s, n);
	}
	return d + n;
}

static inline void ln_mem(struct lines *l, const char *s, size_t n)
{
	if (l->cap - l->n >= n || lines_grow(l, n))
		l->n = (size_t)(ln_put(l->b + l->n, s, n) - l->b);
}

static inline void ln_str(struct lines *l, const char *s)
{
	ln_mem(l, s, strlen(s));
}

static inline void ln_chr(struct lines *l, char c)
{
	if (l->cap > l->n || lines_grow(l, 1))
		l->b[l->n++] = c;
}

/* A class's permissions in setools' order (by name, "?" for a bit without one; equal names in
 * bit order), filled on the first rule of the class that is printed: name[k] is the k-th, of
 * length len[k], and bit b's name is name[pos[b]]. */
struct perm_order {
	const char *name[32];
	size_t len[32];
	uint8_t pos[32];
	uint8_t done;
};

enum hit_what { HIT_RULE, HIT_FT, HIT_RA, HIT_RT, HIT_MT };

/*
 * One match in 16 bytes (the sort and the writing visit a whole policy's hits at random, so
 * their size is what the caches hold): a TE rule's fields, or another rule's kind and the
 * index of its record in the search_out's ref array.
 */
struct search_hit {
	uint16_t source, target, tclass;	/* a TE rule's key; another rule: tclass = its what */
	uint16_t specified;			/* a TE rule's kind (| ENABLED); 0: another rule */
	uint32_t data;				/* a TE rule's perms or type, an xperm rule's ref index
						 * + 1 (0: none); another rule: its ref index */
	uint32_t cond;				/* a TE rule's node << 1 | branch (1: the true list) */
};

/* A name and its length, found on first use (s NULL: not yet, or a type without a name). */
struct name_ref {
	const char *s;
	uint32_t len;
};

struct search_out {
	const struct sp_policy *p;
	struct search_hit *v;
	size_t n, cap;
	const void **ref;			/* the records hits point to (xperms, other rules) */
	size_t nref, ref_cap;
	int want_rg;				/* v lives alone in rg, made on the first growth */
	struct sp_region *rg;			/* NULL: v is libc's */
	const struct sp_allocator *a;		/* the sort's arrays' memory (NULL: libc) */
	uint32_t *order;			/* after search_sort: v's indices, sorted */
	uint8_t kw_of_bit[16];			/* the keyword of each one-bit rule kind */
	struct perm_order *po;			/* by class value 0..npo (AV rules' groups) */
	uint32_t npo;
	struct name_ref *tn, *cn;		/* types 0..nt, classes 0..nc by value */
	uint32_t nt, nc;
	/* the permissions part of AV lines by (class, mask), formatted once into pt_text:
	 * open addressing, key 0 = empty (class values start at 1) */
	struct perm_text { uint64_t key; uint32_t off, len; } *pt;
	size_t npt, pt_mask;
	struct lines pt_text;
	/* conditional expressions' text by node (1-based), formatted once into ct_text; len
	 * UINT32_MAX: not yet */
	struct cond_text { uint32_t off, len; } *ct;
	uint32_t nct;
	struct lines ct_text;
	struct lines sl;			/* lines being compared or written one at a time */
	struct line_ref { size_t off; uint32_t idx; } *lr;	/* their offsets in sl */
	size_t lr_cap;
};

/* Set up o for p's hits; a (NULL: libc) for the sort's arrays, and when it is not NULL the
 * hits grow in a region of their own (sp_region_resize: in place, never copied); perms: it
 * will print AV rules (their classes' permission orders).  0 or -ENOMEM. */
int search_out_init(struct search_out *o, const struct sp_policy *p, int perms,
		    const struct sp_allocator *a);
void search_out_release(struct search_out *o);

/* A TE rule (an avtab entry) as a hit; 0, -ENOMEM, or -EINVAL (no kind, a class past the
 * policy's, a node past 2^31). */
int search_add_rule(struct search_out *o, const struct sp_avtab_entry *e);
/* A rule of another kind (ref: the policy's record, kept until o is released); 0 or -ENOMEM;
 * a range_transition whose range cannot be written: -ENOMEM. */
int search_add(struct search_out *o, enum hit_what what, const void *ref);

static inline enum hit_what search_what(const struct search_hit *h)
{
	return h->specified ? HIT_RULE : (enum hit_what)h->tclass;
}

/* The record of a hit that is not a TE rule. */
static inline const void *search_ref(const struct search_out *o, const struct search_hit *h)
{
	return o->ref[h->data];
}

/* The TE rule of a HIT_RULE hit. */
void search_rule(const struct search_out *o, const struct search_hit *h, struct sp_avtab_entry *e);

/* Hit i asked into the cache. */
static inline void search_prefetch(const struct search_out *o, size_t i)
{
	__builtin_prefetch(&o->v[i]);
}

/* h's line as sesearch prints it, without the newline, appended to l. */
void search_line(struct search_out *o, const struct search_hit *h, struct lines *l);

/* The names of mask's permissions of class c (at most o->npo; o set up with perms) in
 * setools' order, as the lines print them; their count. */
int search_perm_names(struct search_out *o, uint32_t c, uint32_t mask, const char *names[32]);

/* The hits in sesearch's order (o->order); 0 or -ENOMEM. */
int search_sort(struct search_out *o);

/* The keyword sesearch prints for a rule kind; a type's name, or "@ttr%04u" in buf. */
const char *search_kind_word(uint16_t kind);
const char *search_tname(const struct sp_policy *p, uint32_t v, char *buf, size_t len);

#endif
