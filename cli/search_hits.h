/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * search_hits.h - the matches of `secpath policy search`, held until the last is in, their lines
 * as sesearch prints them and sesearch's order (cli/search_hits.c).
 *
 * sesearch prints sorted(results), and setools' rules compare by their text
 * (PolicyRule.__lt__ is str(self) < str(other)), so the order is the byte order of the lines
 * printed, equal lines in visit order.  The lines go one after another, each ended by a NUL,
 * into one buffer (struct lines); a hit keeps its line's offset and, for a line that begins
 * "KIND SOURCE TARGET:CLASS", those four and where the rest of its line starts, from which
 * search_sort orders most hits without reading a line (see there).
 */
#ifndef SP_CLI_SEARCH_HITS_H
#define SP_CLI_SEARCH_HITS_H

#include <stdint.h>
#include <string.h>
#include "secpath/policy.h"

/* A growth that fails sets oom and drops every later append, so writers need not check each
 * one; hit_end reports it. */
struct lines {
	char *b;
	size_t n, cap;
	int oom;
	int want_rg;			/* b lives alone in rg, made on the first growth */
	struct sp_region *rg;		/* NULL: b is libc's */
};

int lines_grow(struct lines *l, size_t n);	/* room for n more bytes: 1, or 0 (oom set) */

static inline void ln_mem(struct lines *l, const char *s, size_t n)
{
	if (l->cap - l->n >= n || lines_grow(l, n)) {
		memcpy(l->b + l->n, s, n);
		l->n += n;
	}
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

__attribute__((format(printf, 2, 3))) void ln_printf(struct lines *l, const char *fmt, ...);

/* A class's permissions in setools' order (by name, "?" for a bit without one; equal names in
 * bit order), filled on the first rule of the class that is printed: name[k] is the k-th, of
 * length len[k], and bit b's name is name[pos[b]]. */
struct perm_order {
	const char *name[32];
	size_t len[32];
	uint8_t pos[32];
	uint8_t done;
};

struct search_hit {
	const char *kw;				/* the line's KIND (NULL: a role rule) */
	uint32_t ks, kt, kc;			/* its SOURCE, TARGET, CLASS values */
	uint32_t tail;				/* where the line goes on after CLASS */
	char *line;				/* after search_sort() */
	size_t off, len;			/* the line's offset in the buffer, its length */
	struct sp_avtab_entry rule;		/* when none of the four below is set */
	const struct sp_filename_trans *ft;
	const struct sp_role_allow *ra;
	const struct sp_role_trans *rt;
	const struct sp_range_trans *mt;	/* a range_transition */
};

struct search_out {
	const struct sp_policy *p;
	struct search_hit *v;
	size_t n, cap;
	struct lines l;
	struct perm_order *po;			/* by class value 0..npo (AV rules' groups) */
	uint32_t npo;
	uint32_t *order;			/* after search_sort: v's indices, sorted */
	const struct sp_allocator *a;		/* the sort's arrays' memory (NULL: libc) */
	struct sp_region *rg;			/* v's, as l.rg is l.b's */
	/* the permissions part of AV lines by (class, mask), formatted once into pt_text:
	 * open addressing, key 0 = empty (class values start at 1) */
	struct perm_text { uint64_t key; uint32_t off, len; } *pt;
	size_t npt, pt_mask;
	struct lines pt_text;
	uint32_t cond;				/* the condition last formatted into cond_text (0: none) */
	int cond_len;
	char cond_text[4096];
};

/* Set up o for p's hits; a (NULL: libc) for the sort's arrays, and when it is not NULL the
 * hits and their lines each grow in a region of their own (sp_region_resize: in place, never
 * copied); perms: it will print AV rules (their classes' permission orders).  0 or -ENOMEM. */
int search_out_init(struct search_out *o, const struct sp_policy *p, int perms,
		    const struct sp_allocator *a);
void search_out_release(struct search_out *o);

/* A new hit whose line is what o->l gets until hit_end; NULL when out of memory. */
struct search_hit *hit_begin(struct search_out *o);
/* "KIND SOURCE TARGET:CLASS" of h's line, the four kept for the sort. */
void hit_head(struct search_out *o, struct search_hit *h, const char *kind, uint32_t s,
	      uint32_t t, uint32_t c);
/* The hit's line ends (its NUL); 0 or -ENOMEM. */
int hit_end(struct search_out *o);

/* One TE rule (an avtab entry) as sesearch prints it, without the newline: a whole hit. */
int hit_rule(struct search_out *o, const struct sp_avtab_entry *e);

/* The names of mask's permissions of class c (at most o->npo; o set up with perms) in
 * setools' order, as the lines print them; their count. */
int search_perm_names(struct search_out *o, uint32_t c, uint32_t mask, const char *names[32]);

/* The hits in sesearch's order (o->order) and their lines pointed into the finished buffer;
 * 0 or -ENOMEM. */
int search_sort(struct search_out *o);

/* The keyword sesearch prints for a rule kind; a type's name, or "@ttr%04u" in buf. */
const char *search_kind_word(uint16_t kind);
const char *search_tname(const struct sp_policy *p, uint32_t v, char *buf, size_t len);

#endif
