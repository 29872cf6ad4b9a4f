/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * list.h - intrusive circular doubly linked list (the kernel's list_head shape).
 * An empty list is a head pointing at itself.  No allocation; the caller owns the nodes.
 */
#ifndef SP_BASE_LIST_H
#define SP_BASE_LIST_H

#include "compiler.h"

struct sp_list {
	struct sp_list *next, *prev;
};

#define SP_LIST_INIT(name) { &(name), &(name) }

static inline void sp_list_init(struct sp_list *h) { h->next = h->prev = h; }
static inline int sp_list_empty(const struct sp_list *h) { return h->next == h; }

static inline void sp_list_insert__(struct sp_list *n, struct sp_list *prev, struct sp_list *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}
static inline void sp_list_add(struct sp_list *n, struct sp_list *h) { sp_list_insert__(n, h, h->next); }
static inline void sp_list_add_tail(struct sp_list *n, struct sp_list *h) { sp_list_insert__(n, h->prev, h); }
static inline void sp_list_del(struct sp_list *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
	n->next = n->prev = n;
}

#define sp_list_entry(ptr, type, member) sp_container_of(ptr, type, member)
#define sp_list_for_each(pos, head) for (pos = (head)->next; pos != (head); pos = pos->next)
#define sp_list_for_each_safe(pos, tmp, head)                                                      \
	for (pos = (head)->next, tmp = pos->next; pos != (head); pos = tmp, tmp = pos->next)

#endif
