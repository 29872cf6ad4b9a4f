/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * getopt.h - the tokens of a rules line and glibc getopt_long's state over them (lang/getopt.c),
 * shared by getopt.c and parse.c only.
 */
#ifndef SP_AUDIT_LANG_GETOPT_H
#define SP_AUDIT_LANG_GETOPT_H

#include <stdint.h>

struct tok {
	char *s;			/* NUL-terminated, unescaped (except the first token) */
	uint32_t col, len;		/* 1-based column and length in the raw line */
};

/* glibc getopt_long state (PERMUTE ordering, opterr = 0). */
struct gopt {
	struct tok **argv;
	int argc;
	int optind, first_nonopt, last_nonopt;
	const char *nextchar;
	char *optarg;
	struct tok *optarg_tok;		/* token the argument came from */
	struct tok *opt_tok;		/* token of the option being returned */
};

enum { LO_LOGINUID_IMMUTABLE = 1, LO_BACKLOG_WAIT, LO_RESET_LOST, LO_RESET_BWT, LO_SIGNAL };

int audit_getopt_next(struct gopt *g, int argc);

#endif
