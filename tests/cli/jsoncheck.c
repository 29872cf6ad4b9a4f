/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * jsoncheck.c - read standard input and exit 0 iff it is one or more complete JSON values
 * (RFC 8259 syntax; whitespace between values allowed, as in JSON lines).  Used by
 * tests/cli/test-cli.sh to check every --json output of the tool.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p;
static int depth;

static void ws(void)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
}

static int value(void);

static int string(void)
{
	if (*p++ != '"')
		return 0;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return 0;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return 0;
				p += 5;
				continue;
			}
			if (!strchr("\"\\/bfnrt", *p) || !*p)
				return 0;
		}
		p++;
	}
	return *p++ == '"';
}

static int number(void)
{
	const char *s = p;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	if (*p == '0')
		p++;
	else
		while (isdigit((unsigned char)*p))
			p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p > s;
}

static int seq(char close, int members)
{
	p++;
	if (++depth > 256)
		return 0;
	ws();
	if (*p == close) {
		p++;
		depth--;
		return 1;
	}
	for (;;) {
		ws();
		if (members) {
			if (!string())
				return 0;
			ws();
			if (*p++ != ':')
				return 0;
		}
		if (!value())
			return 0;
		ws();
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p++ != close)
			return 0;
		depth--;
		return 1;
	}
}

static int value(void)
{
	ws();
	switch (*p) {
	case '{': return seq('}', 1);
	case '[': return seq(']', 0);
	case '"': return string();
	case 't': return !strncmp(p, "true", 4) ? (p += 4, 1) : 0;
	case 'f': return !strncmp(p, "false", 5) ? (p += 5, 1) : 0;
	case 'n': return !strncmp(p, "null", 4) ? (p += 4, 1) : 0;
	default: return number();
	}
}

int main(void)
{
	size_t cap = 1 << 16, n = 0, r;
	char *buf = malloc(cap + 1);
	while (buf && (r = fread(buf + n, 1, cap - n, stdin)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	if (!buf)
		return 2;
	buf[n] = 0;
	if (strlen(buf) != n)
		return 1;	/* a NUL byte */
	p = buf;
	ws();
	if (!*p)
		return 1;	/* nothing at all */
	while (*p) {
		if (!value())
			return 1;
		ws();
	}
	return 0;
}
