/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ruleset.c - struct sp_audit_ruleset (the ordered items of a parsed rules file) and
 * sp_audit_ruleset_parse(): the options, the host inputs (lang/env.c), then lang/parse.c over
 * the text.
 * Invariants: items are in source order (line, then order within the line); every blob and
 * control text lives in the set's chunks (8-byte aligned) and is freed with it; n <= cap.
 */
#include <errno.h>
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
