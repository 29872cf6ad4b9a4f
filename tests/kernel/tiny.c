// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tiny.c - the "small static C program" of the audit-run kernel cases: a few direct file
 * syscalls (no libc wrappers that could pick other syscalls), so their PATH items are known:
 * openat O_CREAT, write, fchmod, renameat, linkat, symlinkat, unlinkat, mkdirat, a failing
 * open of /etc/shadow as the caller, then execve of its first argument when given.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd = openat(AT_FDCWD, "tiny.out", O_WRONLY | O_CREAT | O_TRUNC, 0640);

	if (fd >= 0) {
		(void)!write(fd, "tiny\n", 5);
		fchmod(fd, 0600);
		close(fd);
	}
	renameat(AT_FDCWD, "tiny.out", AT_FDCWD, "tiny.moved");
	linkat(AT_FDCWD, "tiny.moved", AT_FDCWD, "tiny.hard", 0);
	symlinkat("tiny.moved", AT_FDCWD, "tiny.sym");
	mkdirat(AT_FDCWD, "tiny.dir", 0755);
	fd = open("/etc/shadow", O_RDONLY);
	if (fd >= 0)
		close(fd);
	unlinkat(AT_FDCWD, "tiny.hard", 0);
	unlinkat(AT_FDCWD, "tiny.sym", 0);
	unlinkat(AT_FDCWD, "tiny.dir", AT_REMOVEDIR);
	if (argc > 1)
		execv(argv[1], argv + 1);
	return 0;
}
