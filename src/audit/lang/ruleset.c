/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ruleset.c - struct sp_audit_ruleset (the ordered items of a parsed rules file) and
 * sp_audit_ruleset_parse(): the options, the host inputs (lang/env.c), then lang/parse.c over
 * the text.
 * Invariants: items are in source order (line, then order within the line); every blob and
 * control text lives in the set's chunks (8-byte aligned) and is freed with it; n <= cap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/lang/lang_int.h"
#include "base/compiler.h"

struct rs_item {
	struct sp_audit_item it;
};

/* Blobs and control texts are bump-allocated from 64 KiB chunks: one parse of a large file makes
 * a few allocations instead of one per rule, and freeing the set frees a short list. */
struct rs_chunk {
	struct rs_chunk *next;
	size_t cap, used;
	_Alignas(8) unsigned char data[];
};

#define RS_CHUNK (64 * 1024 - sizeof(struct rs_chunk))

struct sp_audit_ruleset {
	const struct sp_allocator *alloc;
	struct rs_item *v;
	size_t n, cap;
	struct rs_chunk *chunks;	/* newest first */
};

static void *rs_alloc(struct sp_audit_ruleset *rs, size_t n)
{
	struct rs_chunk *c = rs->chunks;
	n = (n + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > RS_CHUNK ? n : RS_CHUNK;
		c = sp_alloc(rs->alloc, sizeof(*c) + cap, 8);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = rs->chunks;
		rs->chunks = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	return p;
}

static int rs_new(struct sp_audit_ruleset **out, const struct sp_allocator *a)
{
	struct sp_audit_ruleset *rs = sp_zalloc(a, sizeof(*rs), 0);
	if (!rs)
		return -ENOMEM;
	rs->alloc = a;
	*out = rs;
	return 0;
}

int audit_rs_append(struct sp_audit_ruleset *rs, enum sp_audit_item_kind kind, uint32_t line,
		    const void *blob, size_t len, const char *ctrl)
{
	if (rs->n == rs->cap) {
		size_t ncap = rs->cap ? rs->cap * 2 : 64;
		struct rs_item *nv = sp_alloc(rs->alloc, ncap * sizeof(*nv), 0);
		if (!nv)
			return -ENOMEM;
		if (rs->n)
			memcpy(nv, rs->v, rs->n * sizeof(*nv));
		sp_free(rs->alloc, rs->v, rs->cap * sizeof(*nv));
		rs->v = nv;
		rs->cap = ncap;
	}
	struct rs_item *ri = &rs->v[rs->n];
	memset(ri, 0, sizeof(*ri));
	ri->it.kind = kind;
	ri->it.line = line;
	if (kind == SP_AUDIT_ITEM_CTRL) {
		size_t n = strlen(ctrl) + 1;
		char *c = rs_alloc(rs, n);
		if (!c)
			return -ENOMEM;
		memcpy(c, ctrl, n);
		ri->it.ctrl = c;
	} else {
		void *b = rs_alloc(rs, len);
		if (!b)
			return -ENOMEM;
		memcpy(b, blob, len);
		ri->it.blob = b;
		ri->it.blob_len = len;
	}
	rs->n++;
	return 0;
}

static int hex_nibble(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One "LINE<TAB>KIND<TAB>PAYLOAD" line of `audit compile --format tsv` into rs.  0, or -EINVAL
 * with an error at its columns, or -ENOMEM. */
static int tsv_line(struct sp_audit_ruleset *rs, const char *p, size_t n, uint32_t lineno,
		    const char *file, struct sp_diags *d)
{
	const char *t1 = memchr(p, '\t', n), *t2 = t1 ? memchr(t1 + 1, '\t', n - (size_t)(t1 + 1 - p)) : NULL;
	char *e;
	unsigned long src = t1 ? strtoul(p, &e, 10) : 0;
	if (!t2 || e != t1 || !src || src > UINT32_MAX)
		return sp_diags_add(d, SP_SEV_ERROR, -EINVAL, file, lineno, 1, (uint32_t)n,
				    "not a LINE<TAB>ADD|DEL|CTRL|ERR|WARN<TAB>... line") ? -ENOMEM : -EINVAL;
	size_t klen = (size_t)(t2 - t1 - 1), plen = n - (size_t)(t2 + 1 - p);
	const char *pay = t2 + 1;
	while (plen && (pay[plen - 1] == '\r' || pay[plen - 1] == ' '))
		plen--;
	uint32_t pcol = (uint32_t)(pay - p) + 1;
	if ((klen == 3 && (!memcmp(t1 + 1, "ERR", 3))) || (klen == 4 && !memcmp(t1 + 1, "WARN", 4)))
		return 0;	/* auditctl's verdict on that line, as recorded */
	if (klen == 4 && !memcmp(t1 + 1, "CTRL", 4)) {
		char ctrl[256];
		snprintf(ctrl, sizeof(ctrl), "%.*s", (int)plen, pay);
		return audit_rs_append(rs, SP_AUDIT_ITEM_CTRL, (uint32_t)src, NULL, 0, ctrl);
	}
	int del = klen == 3 && !memcmp(t1 + 1, "DEL", 3);
	if (!del && !(klen == 3 && !memcmp(t1 + 1, "ADD", 3)))
		return sp_diags_add(d, SP_SEV_ERROR, -EINVAL, file, lineno, (uint32_t)(t1 - p) + 2,
				    (uint32_t)(t2 - p), "unknown kind '%.*s'", (int)klen, t1 + 1)
			       ? -ENOMEM : -EINVAL;
	unsigned char *blob = plen % 2 ? NULL : malloc(plen / 2 + 1);
	size_t bl = 0;
	for (size_t k = 0; blob && k < plen; k += 2) {
		int a = hex_nibble(pay[k]), b = hex_nibble(pay[k + 1]);
		if (a < 0 || b < 0) {
			free(blob);
			blob = NULL;
			break;
		}
		blob[bl++] = (unsigned char)(a << 4 | b);
	}
	struct sp_audit_rule r;
	struct sp_diags bd;
	sp_diags_init(&bd, NULL);
	int rc = blob ? sp_audit_rule_decode(blob, bl, 0, &r, &bd, file) : -EINVAL;
	if (rc) {
		rc = sp_diags_add(d, SP_SEV_ERROR, -EINVAL, file, lineno, pcol, pcol + (uint32_t)plen - 1,
				  "%s", !blob ? "not a blob in hex" : bd.n ? bd.v[0].msg
				  : "not a rule blob") ? -ENOMEM : -EINVAL;
	} else {
		rc = audit_rs_append(rs, del ? SP_AUDIT_ITEM_DEL : SP_AUDIT_ITEM_ADD, (uint32_t)src,
				     blob, bl, NULL);
	}
	sp_diags_release(&bd);
	free(blob);
	return rc;
}

SP_API int sp_audit_ruleset_parse_tsv(const char *text, size_t len, const char *file,
				      struct sp_audit_ruleset **out, struct sp_diags *d)
{
	struct sp_audit_ruleset *rs = NULL;
	uint32_t lineno = 0;
	if ((!text && len) || !out)
		return -EINVAL;
	int rc = rs_new(&rs, NULL);
	for (size_t pos = 0; !rc && pos < len;) {
		const char *p = text + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		pos += n + (nl ? 1 : 0);
		lineno++;
		if (!n || p[0] == '#')
			continue;
		rc = tsv_line(rs, p, n, lineno, file, d);
		if (rc == -EINVAL)
			rc = 0;		/* reported: go on with the next line */
	}
	if (rc) {
		sp_audit_ruleset_free(rs);
		return rc;
	}
	*out = rs;
	return 0;
}

SP_API size_t sp_audit_ruleset_count(const struct sp_audit_ruleset *rs)
{
	return rs ? rs->n : 0;
}

void audit_rs_set_kernel_err(struct sp_audit_ruleset *rs, int err)
{
	if (rs->n)
		rs->v[rs->n - 1].it.kernel_err = err;
}

SP_API int sp_audit_ruleset_item(const struct sp_audit_ruleset *rs, size_t i, struct sp_audit_item *it)
{
	if (!rs || !it || i >= rs->n)
		return -ERANGE;
	*it = rs->v[i].it;
	return 0;
}

SP_API void sp_audit_ruleset_free(struct sp_audit_ruleset *rs)
{
	if (!rs)
		return;
	for (struct rs_chunk *c = rs->chunks, *next; c; c = next) {
		next = c->next;
		sp_free(rs->alloc, c, sizeof(*c) + c->cap);
	}
	sp_free(rs->alloc, rs->v, rs->cap * sizeof(*rs->v));
	sp_free(rs->alloc, rs, sizeof(*rs));
}

SP_API int sp_audit_ruleset_parse(const char *text, size_t len, const char *file,
				  const struct sp_audit_parse_opts *o, struct sp_audit_ruleset **out,
				  struct sp_diags *d)
{
	if ((!text && len) || !out)
		return -EINVAL;
	/* sz 0 means the file and machine fields only (the first version of the struct) */
	if (o && o->sz && !SP_OPTS_HAS(o, dirs_file))
		return -EINVAL;
	const struct sp_allocator *a = SP_OPTS_HAS(o, alloc) ? o->alloc : NULL;
	struct audit_pctx pc;
	pc.host_mach = o && o->machine ? audit_mach_from_name(o->machine) : audit_mach_host();
	pc.features = SP_AUDIT_FEATURES_6_1;
	pc.flags = SP_OPTS_HAS(o, flags) ? o->flags : 0;
	if (SP_OPTS_HAS(o, features_given) && o->features_given)
		pc.features = o->features;
	struct audit_env *env = NULL;
	int rc = audit_env_load(&env, o, a, d);
	if (rc)
		return rc;
	pc.env = env;
	struct sp_audit_ruleset *rs;
	if ((rc = rs_new(&rs, a))) {
		audit_env_free(env);
		return rc;
	}
	size_t max_err = SP_OPTS_HAS(o, max_errors) && o->max_errors ? o->max_errors : 100;
	rc = audit_parse_text(&pc, text, len, file, max_err, rs, d, a);
	audit_env_free(env);
	if (rc) {
		sp_audit_ruleset_free(rs);
		return rc;
	}
	*out = rs;
	return 0;
}
