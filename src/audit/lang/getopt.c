/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * getopt.c - glibc getopt_long (PERMUTE ordering, opterr = 0) over "auditctl" + a line's tokens,
 * with auditctl's option string and long options.
 *
 * Mirrors glibc's posix/getopt.c: audit_getopt_next ~ _getopt_internal_r(), long_option ~
 * process_long_option(), exchange ~ exchange() (as a rotation of the pointers).
 *
 * Invariants: the permutation only reorders g->argv (tokens are never copied or changed); every
 * returned option carries the token it came from (opt_tok) and its argument's (optarg_tok).
 */
#include <string.h>

#include "audit/lang/getopt.h"

static const char optstring[] = "hicslDvtC:e:f:r:b:a:A:d:S:F:m:R:w:W:k:p:q:";

static const struct { const char *name; int has_arg, val; } long_opts[] = {
	{ "loginuid-immutable", 0, LO_LOGINUID_IMMUTABLE },
	{ "backlog_wait_time", 1, LO_BACKLOG_WAIT },
	{ "reset-lost", 0, LO_RESET_LOST },
	{ "reset_backlog_wait_time_actual", 0, LO_RESET_BWT },
	{ "signal", 1, LO_SIGNAL },
};

static int nonoption(const struct gopt *g, int i)
{
	const char *s = g->argv[i]->s;
	return s[0] != '-' || s[1] == 0;
}

/* Swap [first_nonopt, last_nonopt) with [last_nonopt, optind): a rotation of the pointers. */
static void exchange(struct gopt *g)
{
	int a = g->first_nonopt, b = g->last_nonopt, c = g->optind;
	/* reverse-reverse-reverse rotation */
	for (int lo = a, hi = b - 1; lo < hi; lo++, hi--) {
		struct tok *t = g->argv[lo]; g->argv[lo] = g->argv[hi]; g->argv[hi] = t;
	}
	for (int lo = b, hi = c - 1; lo < hi; lo++, hi--) {
		struct tok *t = g->argv[lo]; g->argv[lo] = g->argv[hi]; g->argv[hi] = t;
	}
	for (int lo = a, hi = c - 1; lo < hi; lo++, hi--) {
		struct tok *t = g->argv[lo]; g->argv[lo] = g->argv[hi]; g->argv[hi] = t;
	}
	g->first_nonopt += c - b;
	g->last_nonopt = c;
}

static int long_option(struct gopt *g, int argc)
{
	const char *name = g->nextchar;
	size_t namelen = strcspn(name, "=");
	int found = -1, ambig = 0;
	g->opt_tok = g->argv[g->optind];
	for (size_t i = 0; i < sizeof(long_opts) / sizeof(long_opts[0]); i++) {
		if (strncmp(long_opts[i].name, name, namelen))
			continue;
		if (strlen(long_opts[i].name) == namelen) {
			found = (int)i;
			ambig = 0;
			break;
		}
		if (found < 0)
			found = (int)i;
		else
			ambig = 1;	/* all entries differ in val, so any second prefix match is ambiguous */
	}
	g->optind++;
	g->nextchar = NULL;
	if (found < 0 || ambig)
		return '?';
	if (name[namelen] == '=') {
		if (!long_opts[found].has_arg)
			return '?';
		g->optarg = (char *)name + namelen + 1;
		g->optarg_tok = g->opt_tok;
	} else if (long_opts[found].has_arg) {
		if (g->optind >= argc)
			return '?';
		g->optarg_tok = g->argv[g->optind];
		g->optarg = g->argv[g->optind++]->s;
	}
	return long_opts[found].val;
}

int audit_getopt_next(struct gopt *g, int argc)
{
	g->optarg = NULL;
	g->optarg_tok = NULL;
	if (!g->nextchar || !*g->nextchar) {
		if (g->last_nonopt > g->optind)
			g->last_nonopt = g->optind;
		if (g->first_nonopt > g->optind)
			g->first_nonopt = g->optind;
		if (g->first_nonopt != g->last_nonopt && g->last_nonopt != g->optind)
			exchange(g);
		else if (g->last_nonopt != g->optind)
			g->first_nonopt = g->optind;
		while (g->optind < argc && nonoption(g, g->optind))
			g->optind++;
		g->last_nonopt = g->optind;
		if (g->optind != argc && !strcmp(g->argv[g->optind]->s, "--")) {
			g->optind++;
			if (g->first_nonopt != g->last_nonopt && g->last_nonopt != g->optind)
				exchange(g);
			else if (g->first_nonopt == g->last_nonopt)
				g->first_nonopt = g->optind;
			g->last_nonopt = argc;
			g->optind = argc;
		}
		if (g->optind == argc) {
			if (g->first_nonopt != g->last_nonopt)
				g->optind = g->first_nonopt;
			return -1;
		}
		if (g->argv[g->optind]->s[1] == '-') {
			g->nextchar = g->argv[g->optind]->s + 2;
			return long_option(g, argc);
		}
		g->nextchar = g->argv[g->optind]->s + 1;
	}
	g->opt_tok = g->argv[g->optind];
	char c = *g->nextchar++;
	const char *t = c ? strchr(optstring, c) : NULL;
	if (!*g->nextchar)
		g->optind++;
	if (!t || c == ':' || c == ';')
		return '?';
	if (t[1] == ':') {
		if (*g->nextchar) {
			g->optarg = (char *)g->nextchar;
			g->optarg_tok = g->opt_tok;
			g->optind++;
		} else if (g->optind == argc) {
			g->nextchar = NULL;
			return '?';
		} else {
			g->optarg_tok = g->argv[g->optind];
			g->optarg = g->argv[g->optind++]->s;
		}
		g->nextchar = NULL;
	}
	return c;
}

