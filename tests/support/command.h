/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * command.h - test support: the lines a shell command prints, for the tests that compare
 * secpath with another program's output (sesearch, seinfo).
 */
#ifndef SP_TESTS_SUPPORT_COMMAND_H
#define SP_TESTS_SUPPORT_COMMAND_H

/* Run cmd (popen) and hand each line of its standard output, without its '\n', to
 * add(ud, line), in order.  Its exit status, or -1 when it did not exit (killed by a signal,
 * as seinfo is by SIGSEGV on old policies) or could not be started. */
int tsupport_command_lines(const char *cmd, void (*add)(void *ud, const char *line), void *ud);

#endif
