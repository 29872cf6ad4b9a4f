/*
 * util.c - helpers shared by the command groups: diagnostics printing, file reading, JSON strings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_print_diags(struct sp_cli *cli, const struct sp_diags *d,
		     const char *(*source_of)(void *ud, const char *file, uint32_t line), void *ud)
{
	char buf[2048];
	for (size_t i = 0; i < d->n; i++) {
		const struct sp_diag *dg = &d->v[i];
		const char *src = source_of && dg->line ? source_of(ud, dg->file, dg->line) : NULL;
		sp_diag_format(dg, src, buf, sizeof(buf));
		fputs(buf, cli->err);
	}
	if (d->dropped)
		fprintf(cli->err, "%s: %zu more diagnostics not shown\n", cli->prog, d->dropped);
}

int cli_read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return -errno;
	size_t cap = 65536, n = 0;
	char *b = malloc(cap + 1);
	if (!b) {
		if (f != stdin)
			fclose(f);
		return -ENOMEM;
	}
	for (;;) {
		size_t r = fread(b + n, 1, cap - n, f);
		n += r;
		if (n < cap) {
			if (ferror(f)) {
				int e = errno ? -errno : -EIO;
				free(b);
				if (f != stdin)
					fclose(f);
				return e;
			}
			break;
		}
		char *nb = realloc(b, cap * 2 + 1);
		if (!nb) {
			free(b);
			if (f != stdin)
				fclose(f);
			return -ENOMEM;
		}
		b = nb;
		cap *= 2;
	}
	if (f != stdin)
		fclose(f);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

int cli_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}
