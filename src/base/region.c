/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * region.c - sp_region: an allocator for one job that builds a few MiB of tables, keeps most of
 * them and ends (a CLI command's policy load, search or diff).  Its memory is one reserved
 * mapping advised for transparent huge pages (MADV_HUGEPAGE), carved with a bump pointer: the
 * tables cost one page fault per 2 MiB instead of one per 4 KiB, where a fault is the dearest
 * thing a load does on a virtual machine (docs/DESIGN.md, "Policy commands and page faults").
 *
 * Every block carries a 16-byte header (its size and a check word) just below it, so a free
 * needs no trusted size.  A freed block is reused only when it is the last carved (the bump
 * pointer moves back, and takes with it the free extent that ends there) or when it is big
 * (>= REGION_BIG): those wait on an address-ordered first-fit list, merged with their freed
 * neighbours, and are split when reused.  A small block
 * freed below the top is not reused: its bytes are counted as waste.  Memory goes back to the
 * system only with sp_region_free.  Past the reservation (or when it could not be made),
 * blocks come from libc, and a free tells them by their address; under an address-space limit
 * (RLIMIT_AS) the reservation takes at most a quarter of it, and under strict overcommit
 * (vm.overcommit_memory = 2, where an untouched reservation is charged whole) none is made.
 *
 * Invariants: base <= bump <= end; every block of the region lies in [base, bump); the free
 * list's extents are in ascending address order, disjoint and never adjacent (merged), each
 * >= REGION_BIG, none ends at bump; hi is its last.  Not thread-safe: one
 * thread at a time, as the job that owns it.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "secpath/secpath.h"
#include "assert.h"

#define REGION_HDR 16u
#define REGION_BIG (64u << 10)
#define REGION_HUGE (2u << 20)
#define REGION_MAGIC 0x5e9105f3u

struct region_hdr {
	size_t size;		/* the block's bytes after the header, a multiple of 16 */
	uint32_t magic;		/* REGION_MAGIC ^ (uint32_t)size: a freed pointer is a block */
	uint32_t pad;		/* bytes between the carved start and this header (alignment) */
};

struct region_free {
	struct region_free *next;
	size_t bytes;		/* the whole free extent, from this address */
};

struct sp_region {
	struct sp_allocator alloc;
	char *map, *base, *bump, *end;
	size_t map_len;
	struct region_free *free;	/* ascending addresses */
	struct region_free *hi;		/* its last (highest) extent, or NULL */
	struct sp_region_stats st;
};

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

static void hdr_size(struct region_hdr *h, size_t size)
{
	h->size = size;
	h->magic = REGION_MAGIC ^ (uint32_t)size;
}

/* The bump pointer to at (above or below it), the peak kept. */
static void bump_to(struct sp_region *r, char *at)
{
	r->bump = at;
	if ((size_t)(at - r->base) > r->st.peak)
		r->st.peak = (size_t)(at - r->base);
}

/* The block of payload p (carved from the region): its header, checked. */
static struct region_hdr *hdr_of(void *p)
{
	struct region_hdr *h = (struct region_hdr *)((char *)p - REGION_HDR);
	SP_ASSERT(h->magic == (REGION_MAGIC ^ (uint32_t)h->size));
	return h;
}

/* Carve [at, at + bytes) as a block of `size` payload bytes aligned to align; NULL when the
 * extent is too small.  *used: the extent's bytes the block takes. */
static void *carve(char *at, size_t bytes, size_t size, size_t align, size_t *used)
{
	uintptr_t a = ((uintptr_t)at + REGION_HDR + align - 1) & ~(uintptr_t)(align - 1);
	char *p = (char *)a;
	if (p + size > at + bytes || p + size < p)
		return NULL;
	struct region_hdr *h = (struct region_hdr *)(p - REGION_HDR);
	hdr_size(h, size);
	h->pad = (uint32_t)((char *)h - at);
	*used = (size_t)(p + size - at);
	return p;
}

/* A big request from the free list: the first extent it fits in, the rest kept when big. */
static void *from_free(struct sp_region *r, size_t size, size_t align)
{
	struct region_free *prev = NULL;
	for (struct region_free **pf = &r->free; *pf; prev = *pf, pf = &(*pf)->next) {
		struct region_free *f = *pf;
		size_t bytes = f->bytes, used;
		struct region_free *next = f->next;
		void *p = carve((char *)f, bytes, size, align, &used);
		if (!p)
			continue;
		if (bytes - used >= REGION_BIG) {
			struct region_free *rest = (struct region_free *)((char *)f + used);
			rest->next = next;
			rest->bytes = bytes - used;
			*pf = rest;
			if (r->hi == f)
				r->hi = rest;
		} else {
			*pf = next;
			if (r->hi == f)
				r->hi = prev;
			struct region_hdr *h = hdr_of(p);
			hdr_size(h, h->size + bytes - used);	/* the tail goes with the block */
		}
		r->st.reused += size;
		return p;
	}
	return NULL;
}

static void *region_alloc(void *ud, size_t size, size_t align)
{
	struct sp_region *r = ud;
	size_t used;
	void *p = NULL;
	if (align < 16)
		align = 16;
	if (size > SIZE_MAX / 2 || align > REGION_HUGE)
		return NULL;
	size = round16(size ? size : 1);
	if (size >= REGION_BIG && r->free)
		p = from_free(r, size, align);
	if (!p && r->bump && (p = carve(r->bump, (size_t)(r->end - r->bump), size, align, &used)))
		bump_to(r, r->bump + used);
	if (!p) {
		if (posix_memalign(&p, align, size))
			return NULL;
		r->st.libc++;
	}
	return p;
}

/* Unlink the highest free extent (r->hi): the list's last. */
static void unlink_hi(struct sp_region *r)
{
	struct region_free **pf = &r->free, *prev = NULL;
	while (*pf != r->hi) {
		prev = *pf;
		pf = &(*pf)->next;
	}
	*pf = NULL;
	r->hi = prev;
}

/*
 * Give back the extent [start, stop).  The top one moves the bump pointer back, over the
 * highest free extent too when that ends where it now points (extents never touch: one step);
 * any other goes into the address-ordered free list, merged with the extents it touches.
 */
static void give_back(struct sp_region *r, char *start, char *stop)
{
	if (stop == r->bump) {
		r->bump = start;
		if (r->hi && (char *)r->hi + r->hi->bytes == start) {
			r->bump = (char *)r->hi;
			unlink_hi(r);
		}
		return;
	}
	struct region_free **pf = &r->free, *prev = NULL;
	while (*pf && (char *)*pf < start) {
		prev = *pf;
		pf = &(*pf)->next;
	}
	struct region_free *next = *pf;
	if (next && (char *)next == stop) {	/* merge with the extent above */
		stop += next->bytes;
		next = next->next;
	}
	struct region_free *f;
	if (prev && (char *)prev + prev->bytes == start) {	/* and the one below */
		f = prev;
		f->bytes = (size_t)(stop - (char *)prev);
	} else {
		f = (struct region_free *)start;
		f->bytes = (size_t)(stop - start);
		*pf = f;
	}
	f->next = next;
	if (!next)
		r->hi = f;
}

/* The invariants above, checked (SP_ASSERT_EXPENSIVE builds).  1 or 0. */
static int region_is_valid(const struct sp_region *r)
{
	const struct region_free *last = NULL;
	if (r->bump < r->base || r->bump > r->end)
		return 0;
	for (const struct region_free *f = r->free; f; last = f, f = f->next) {
		const char *a = (const char *)f, *z = a + f->bytes;
		if (a < r->base || z >= r->bump || f->bytes < REGION_BIG)
			return 0;	/* z == bump: an extent the bump pointer should have taken */
		if (last && (const char *)last + last->bytes >= a)
			return 0;	/* out of order, overlapping or touching */
	}
	return r->hi == last;
}

static void region_free_block(void *ud, void *p, size_t size)
{
	struct sp_region *r = ud;
	(void)size;	/* the header's is the truth */
	if ((char *)p < r->base || (char *)p >= r->end) {
		free(p);
		return;
	}
	struct region_hdr *h = hdr_of(p);
	char *start = (char *)h - h->pad, *stop = (char *)p + h->size;
	SP_ASSERT(stop <= r->bump);
	if (stop == r->bump || (size_t)(stop - start) >= REGION_BIG)
		give_back(r, start, stop);
	else
		r->st.wasted += (size_t)(stop - start);
	SP_ASSERT_EXPENSIVE(region_is_valid(r));
}

SP_API void *sp_region_resize(struct sp_region *r, void *p, size_t size)
{
	if (!p)
		return region_alloc(r, size, 0);
	size_t old;
	if ((char *)p >= r->base && (char *)p < r->end) {
		struct region_hdr *h = hdr_of(p);
		old = h->size;
		size_t want = round16(size ? size : 1);
		if ((char *)p + old == r->bump && size <= SIZE_MAX / 2 &&
		    want <= (size_t)(r->end - (char *)p)) {	/* the top block: in place */
			bump_to(r, (char *)p + want);
			hdr_size(h, want);
			return p;
		}
	} else {
		old = malloc_usable_size(p);
	}
	void *n = region_alloc(r, size, 0);
	if (!n)
		return NULL;
	memcpy(n, p, old < size ? old : size);
	region_free_block(r, p, old);
	return n;
}

/* 1 when the kernel charges untouched private mappings against a commit limit
 * (vm.overcommit_memory = 2: MAP_NORESERVE is then ignored). */
static int strict_overcommit(void)
{
	char c = 0;
	int fd = open("/proc/sys/vm/overcommit_memory", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t k = read(fd, &c, 1);
	close(fd);
	return k == 1 && c == '2';
}

SP_API int sp_region_new(size_t reserve, struct sp_region **out)
{
	struct sp_region *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->alloc = (struct sp_allocator){ region_alloc, region_free_block, r };
	struct rlimit as;
	reserve = (reserve + REGION_HUGE - 1) & ~(size_t)(REGION_HUGE - 1);
	if (!getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY && reserve > as.rlim_cur / 4)
		reserve = (as.rlim_cur / 4) & ~(size_t)(REGION_HUGE - 1);	/* the rest to libc */
	if (reserve && strict_overcommit())
		reserve = 0;	/* a reservation would be charged whole: libc's memory only */
	for (; reserve >= REGION_HUGE; reserve /= 2) {
		/* one huge page more, to align the carved part to a huge page */
		void *m = mmap(NULL, reserve + REGION_HUGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			continue;
		r->map = m;
		r->map_len = reserve + REGION_HUGE;
		r->base = (char *)(((uintptr_t)m + REGION_HUGE - 1) & ~(uintptr_t)(REGION_HUGE - 1));
		r->bump = r->base;
		r->end = r->base + reserve;
		/* advice only: without THP the region is still a working allocator */
		(void)madvise(r->base, reserve, MADV_HUGEPAGE);
		break;
	}
	*out = r;
	return 0;
}

SP_API const struct sp_allocator *sp_region_allocator(struct sp_region *r)
{
	return &r->alloc;
}

SP_API void sp_region_get_stats(const struct sp_region *r, struct sp_region_stats *out)
{
	*out = r->st;
	out->reserved = (size_t)(r->end - r->base);
	out->carved = (size_t)(r->bump - r->base);
}

SP_API void sp_region_free(struct sp_region *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->map_len);
	free(r);
}
