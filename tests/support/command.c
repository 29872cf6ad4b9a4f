/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * command.c - test support: a command's output lines (command.h).  A line of any length is
 * handed over whole (getline).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "command.h"

int tsupport_command_lines(const char *cmd, void (*add)(void *ud, const char *line), void *ud)
{
	FILE *f = popen(cmd, "r");
	char *buf = NULL;
	size_t cap = 0;

	if (!f)
		return -1;
	while (getline(&buf, &cap, f) >= 0) {
		buf[strcspn(buf, "\n")] = 0;
		add(ud, buf);
	}
	free(buf);
	int st = pclose(f);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
