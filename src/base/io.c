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

SP_API int sp_fd_read_all(int fd, char **buf, size_t *len)
{
	struct stat st;
	size_t cap = 65536, n = 0;
	if (!buf || !len)
		return -EINVAL;
	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		if (S_ISREG(st.st_mode) && st.st_size > 0)
			cap = (size_t)st.st_size + 1;	/* one read() more sees the end */
	}
	char *b = malloc(cap + 1);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			char *nb = cap > SIZE_MAX / 2 - 1 ? NULL : realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
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
			free(b);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
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
