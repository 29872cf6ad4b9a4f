/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * io.c - whole-file reading and complete writes, the one copy every part and the tool use.
 * Invariants: a buffer from sp_file_read is NUL-terminated one byte past *len (text parsers may
 * rely on it) and holds every byte of the file or nothing; sp_fd_write_all returns only after
 * every byte was accepted or an error other than EINTR.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secpath/secpath.h"

/* Block p of old bytes (keep of them used) as one of new bytes from a: libc's realloc, or
 * a's alloc, copy and free.  NULL, p untouched, when there is no memory. */
static void *grow(const struct sp_allocator *a, void *p, size_t old, size_t new, size_t keep)
{
	if (!a)
		return realloc(p, new);
	void *n = sp_alloc(a, new, 0);
	if (n) {
		memcpy(n, p, keep);
		sp_free(a, p, old);
	}
	return n;
}

SP_API int sp_fd_read_all_alloc(int fd, const struct sp_allocator *a, char **buf, size_t *size,
				size_t *len)
{
	struct stat st;
	size_t cap = 65536, n = 0;
	if (!buf || !len || !size)
		return -EINVAL;
	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 4)
			cap = (size_t)st.st_size + 1;	/* one read() more sees the end */
	}
	char *b = sp_alloc(a, cap + 1, 0);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			char *nb = cap > SIZE_MAX / 2 - 1 ? NULL : grow(a, b, cap + 1, cap * 2 + 1, n);
			if (!nb) {
				sp_free(a, b, cap + 1);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			sp_free(a, b, cap + 1);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	b[n] = 0;
	*buf = b;
	*size = cap + 1;
	*len = n;
	return 0;
}

SP_API int sp_fd_read_all(int fd, char **buf, size_t *len)
{
	size_t size;
	return sp_fd_read_all_alloc(fd, NULL, buf, &size, len);
}

SP_API int sp_file_read(const char *path, char **buf, size_t *len)
{
	if (!path)
		return -EINVAL;
	if (!strcmp(path, "-"))
		return sp_fd_read_all(0, buf, len);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int rc = sp_fd_read_all(fd, buf, len);
	close(fd);
	return rc;
}

SP_API int sp_fd_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}
