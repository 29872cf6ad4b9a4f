/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * diag.c - positioned diagnostics collected into a caller-owned sp_diags (nftables erec idea).
 * Invariants: d->n <= d->cap, d->n <= limit; diagnostics past the limit are counted in `dropped`
 * and in nerrors/nwarnings, never stored, so a hostile input cannot grow the list without bound.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "secpath/secpath.h"

SP_API void sp_diags_init(struct sp_diags *d, const struct sp_allocator *a)
{
	memset(d, 0, sizeof(*d));
	d->alloc = a;
	d->limit = 100;
}

SP_API void sp_diags_release(struct sp_diags *d)
{
	sp_free(d->alloc, d->v, d->cap * sizeof(*d->v));
	d->v = NULL;
	d->n = d->cap = 0;
	d->nerrors = d->nwarnings = d->dropped = 0;
}

SP_API void sp_diags_clear(struct sp_diags *d)
{
	d->n = 0;
	d->nerrors = d->nwarnings = d->dropped = 0;
}

static struct sp_diag *diag_slot(struct sp_diags *d, enum sp_severity sev)
{
	if (sev == SP_SEV_ERROR)
		d->nerrors++;
	else if (sev == SP_SEV_WARNING)
		d->nwarnings++;
	size_t limit = d->limit ? d->limit : 100;
	if (d->n >= limit) {
		d->dropped++;
		return NULL;
	}
	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 8;
		struct sp_diag *nv = sp_alloc(d->alloc, ncap * sizeof(*nv), 0);
		if (!nv)
			return NULL;
		if (d->n)
			memcpy(nv, d->v, d->n * sizeof(*nv));
		sp_free(d->alloc, d->v, d->cap * sizeof(*nv));
		d->v = nv;
		d->cap = ncap;
	}
	struct sp_diag *dg = &d->v[d->n++];
	memset(dg, 0, sizeof(*dg));
	dg->severity = sev;
	return dg;
}

SP_API int sp_diags_add(struct sp_diags *d, enum sp_severity sev, int code, const char *file,
			uint32_t line, uint32_t col, uint32_t end_col, const char *fmt, ...)
{
	if (!d)
		return 0;	/* the caller asked for no diagnostics */
	size_t before = d->dropped;
	struct sp_diag *dg = diag_slot(d, sev);
	if (!dg)
		return d->dropped != before ? 0 : -ENOMEM;
	dg->code = code;
	dg->file = file;
	dg->line = line;
	dg->col = col;
	dg->end_col = end_col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dg->msg, sizeof(dg->msg), fmt, ap);
	va_end(ap);
	return 0;
}

SP_API int sp_diags_add_offset(struct sp_diags *d, enum sp_severity sev, int code, const char *file,
			       uint64_t offset, const char *fmt, ...)
{
	if (!d)
		return 0;
	size_t before = d->dropped;
	struct sp_diag *dg = diag_slot(d, sev);
	if (!dg)
		return d->dropped != before ? 0 : -ENOMEM;
	dg->code = code;
	dg->file = file;
	dg->offset = offset;
	dg->has_offset = 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dg->msg, sizeof(dg->msg), fmt, ap);
	va_end(ap);
	return 0;
}

static const char *sev_name(enum sp_severity s)
{
	return s == SP_SEV_ERROR ? "error" : s == SP_SEV_WARNING ? "warning" : "note";
}

SP_API int sp_diag_format(const struct sp_diag *dg, const char *source_line, char *buf, size_t len)
{
	char pos[64];
	const char *file = dg->file ? dg->file : "<input>";
	if (dg->has_offset)
		snprintf(pos, sizeof(pos), "+0x%llx", (unsigned long long)dg->offset);
	else if (dg->line && dg->col && dg->end_col > dg->col)
		snprintf(pos, sizeof(pos), "%u:%u-%u", dg->line, dg->col, dg->end_col);
	else if (dg->line && dg->col)
		snprintf(pos, sizeof(pos), "%u:%u", dg->line, dg->col);
	else if (dg->line)
		snprintf(pos, sizeof(pos), "%u", dg->line);
	else
		pos[0] = 0;
	int n = snprintf(buf, len, "%s%s%s: %s: %s\n", file, pos[0] ? ":" : "", pos, sev_name(dg->severity),
			 dg->msg);
	if (n < 0)
		return n;
	size_t used = (size_t)n;
	if (source_line && dg->line && dg->col) {
		size_t sl = strcspn(source_line, "\n");
		int m = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0, "%.*s\n",
				 (int)sl, source_line);
		used += (size_t)(m > 0 ? m : 0);
		uint32_t end = dg->end_col > dg->col ? dg->end_col : dg->col;
		for (uint32_t c = 1; c <= end + 1; c++) {
			char ch = c < dg->col ? (c - 1 < sl && source_line[c - 1] == '\t' ? '\t' : ' ')
				: c == dg->col ? '^' : c <= end ? '~' : '\n';
			if (used + 1 < len)
				buf[used] = ch;
			used++;
		}
		if (len)
			buf[used < len ? used : len - 1] = 0;
	}
	return (int)used;
}
