/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * base.c - version, the libc allocator, sp_alloc/sp_free, and the fatal path.
 * sp_fatal() writes with write(2) only, so it is safe with a corrupted heap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "secpath/secpath.h"
#include "assert.h"

SP_API const char *sp_version(void) { return SP_VERSION_STRING; }

SP_API const char *sp_strerror(int err)
{
	const char *s = strerrordesc_np(err < 0 ? -err : err);
	return s ? s : "Unknown error";
}

static void *libc_alloc(void *ud, size_t size, size_t align)
{
	(void)ud;
	if (align <= _Alignof(max_align_t))
		return malloc(size ? size : 1);
	void *p = NULL;
	if (posix_memalign(&p, align, size ? size : 1))
		return NULL;
	return p;
}

static void libc_free(void *ud, void *p, size_t size)
{
	(void)ud;
	(void)size;
	free(p);
}

static const struct sp_allocator libc_allocator = { libc_alloc, libc_free, NULL };

SP_API const struct sp_allocator *sp_allocator_libc(void) { return &libc_allocator; }

SP_API void *sp_alloc(const struct sp_allocator *a, size_t size, size_t align)
{
	if (!a)
		a = &libc_allocator;
	if (align & (align - 1))
		return NULL;
	return a->alloc(a->ud, size, align);
}

SP_API void *sp_zalloc(const struct sp_allocator *a, size_t size, size_t align)
{
	void *p = sp_alloc(a, size, align);
	if (p)
		memset(p, 0, size);
	return p;
}

SP_API void sp_free(const struct sp_allocator *a, void *p, size_t size)
{
	if (!p)
		return;
	if (!a)
		a = &libc_allocator;
	a->free(a->ud, p, size);
}

/* The fatal path's own writer, not sp_fd_write_all: it gives up at the first error or 0-byte
 * write (abort follows anyway), and the malloc shim links base.c without io.c. */
static void write_all(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(2, s, n);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

void sp_fatal(const char *msg)
{
	write_all("secpath: ", 9);
	write_all(msg, strlen(msg));
	write_all("\n", 1);
	abort();
}

void sp_assert_fail(const char *expr, const char *file, int line)
{
	char buf[512];
	size_t n = 0;
	const char *parts[] = { "assertion failed: ", expr, " at ", file, ":" };
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t l = strlen(parts[i]);
		if (n + l >= sizeof(buf) - 16)
			l = sizeof(buf) - 16 - n;
		memcpy(buf + n, parts[i], l);
		n += l;
	}
	char num[12];
	int k = 0;
	unsigned u = (unsigned)line;
	do {
		num[k++] = (char)('0' + u % 10);
		u /= 10;
	} while (u && k < 11);
	while (k)
		buf[n++] = num[--k];
	buf[n] = 0;
	sp_fatal(buf);
}
