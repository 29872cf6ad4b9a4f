/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy.c - the public face of the policy part: reading (buffer, file, xz file: xz.c), freeing,
 * summary counts, symbol lookups, avtab lookups and iteration.  A read is three steps:
 * read.c's policy_core_read (the file into a core), index.c's policy_core_finish (indexes,
 * filters, te_avtab), cond.c's policy_condstate_init (the default booleans' state).
 *
 * An sp_policy = one reference on an immutable core + its own conditional state.  Lookups are
 * read-only and may run concurrently; sp_policy_bool_set is a writer (see policy.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy_int.h"

SP_API const char *sp_avtab_layout_name(enum sp_avtab_layout l)
{
	static const char *const n[] = { "chained", "array", "flat" };
	return (unsigned)l < SP_AVTAB_NLAYOUTS ? n[l] : NULL;
}

static int policy_new(struct policy_core *k, struct sp_policy **out)
{
	struct sp_policy *p = sp_zalloc(k->alloc, sizeof(*p), 0);
	if (!p)
		return -ENOMEM;
	p->core = k;
	int rc = policy_condstate_init(k, &p->cs, k->bool_default);
	if (rc) {
		sp_free(k->alloc, p, sizeof(*p));
		return rc;
	}
	*out = p;
	return 0;
}

/*
 * Finish a read core and report a failure as the reader reports its own: a duplicate te entry
 * at the avtab section, out of memory at the end of the file.
 */
static int finish(struct policy_core *k, enum sp_avtab_layout layout, size_t len,
		  const struct sp_policy_opts *o)
{
	int rc = policy_core_finish(k, layout);
	struct sp_diags *d = SP_OPTS_HAS(o, diags) ? o->diags : NULL;
	const char *file = SP_OPTS_HAS(o, file) ? o->file : NULL;
	if (rc == -EEXIST) {
		rc = -EINVAL;
		if (d)
			sp_diags_add_offset(d, SP_SEV_ERROR, rc, file, k->te_off,
					    "avtab: duplicate entry");
	} else if (rc == -ENOMEM && d) {
		sp_diags_add_offset(d, SP_SEV_ERROR, rc, file, len, "%s: out of memory", k->end_sec);
	}
	return rc;
}

/* Bytes a read owns: freed through their allocator as soon as the reader is done with them. */
struct owned {
	void *p;			/* NULL: the caller's bytes */
	size_t size;
	const struct sp_allocator *a;	/* NULL: libc */
};

static void owned_release(struct owned *w)
{
	sp_free(w->a, w->p, w->size);
	w->p = NULL;
}

/*
 * A policy read from its uncompressed bytes.  The owned bytes are freed as soon as the reader
 * is done with them (the core keeps copies of what it needs), before the core is finished, so
 * the finishing allocations can take their memory.
 */
static int read_plain(const void *buf, size_t len, struct owned *own, const struct sp_policy_opts *o,
		      enum sp_avtab_layout layout, struct sp_policy **out)
{
	struct policy_core *k;
	int rc = policy_core_read(buf, len, o, &k);
	owned_release(own);
	if (rc)
		return rc;
	if ((rc = finish(k, layout, len, o)) || (rc = policy_new(k, out)))
		policy_core_put(k);
	return rc;
}

/* sp_policy_read, freeing the owned bytes as early as it can. */
static int policy_read(const void *buf, size_t len, struct owned *own, const struct sp_policy_opts *o,
		       struct sp_policy **out)
{
	enum sp_avtab_layout layout = SP_OPTS_HAS(o, layout) ? o->layout : SP_AVTAB_CHAINED;
	if ((!buf && len) || (unsigned)layout >= SP_AVTAB_NLAYOUTS) {
		owned_release(own);
		return -EINVAL;
	}
	if (!policy_xz_is(buf, len))
		return read_plain(buf, len, own, o, layout, out);
	uint8_t *raw;
	size_t rawlen;
	int rc = policy_xz_decode(buf, len, SP_OPTS_HAS(o, diags) ? o->diags : NULL,
				  SP_OPTS_HAS(o, file) ? o->file : NULL, &raw, &rawlen);
	owned_release(own);
	if (rc)
		return rc;
	struct owned w = { raw, 0, NULL };	/* policy_xz_decode's malloc: libc */
	return read_plain(raw, rawlen, &w, o, layout, out);
}

SP_API int sp_policy_read(const void *buf, size_t len, const struct sp_policy_opts *o,
			  struct sp_policy **out)
{
	struct owned none = { 0 };
	return policy_read(buf, len, &none, o, out);
}

/* A copy sharing the core, with its own conditional state (used by the AVC's boolean change). */
int policy_clone_with_bool(const struct sp_policy *p, uint32_t b, int state, struct sp_policy **out)
{
	struct policy_core *k = p->core;
	if (!b || b > k->nbools)
		return -EINVAL;
	struct sp_policy *np = sp_zalloc(k->alloc, sizeof(*np), 0);
	if (!np)
		return -ENOMEM;
	int rc = policy_condstate_with_bool(k, &p->cs, b, state, &np->cs);
	if (rc) {
		sp_free(k->alloc, np, sizeof(*np));
		return rc;
	}
	atomic_fetch_add(&k->refs, 1);
	np->core = k;
	np->seqno = p->seqno + 1;
	*out = np;
	return 0;
}

SP_API void sp_policy_free(struct sp_policy *p)
{
	if (!p)
		return;
	struct policy_core *k = p->core;
	const struct sp_allocator *a = k->alloc;
	policy_condstate_release(k, &p->cs);
	sp_free(a, p, sizeof(*p));
	policy_core_put(k);
}

/* SELINUXTYPE of root's /etc/selinux/config into type (libselinux: the last setting, its tag in
 * any case; here the value ends at white space; "targeted" without one). */
static void selinux_type(const char *root, char *type, size_t len)
{
	char path[PATH_MAX], line[512];
	snprintf(type, len, "targeted");
	if (snprintf(path, sizeof(path), "%s/etc/selinux/config", root) >= (int)sizeof(path))
		return;
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		const char *v = line + strspn(line, " \t");
		if (strncasecmp(v, "SELINUXTYPE=", 12))
			continue;
		v += 12;
		size_t n = strcspn(v, " \t\r\n");
		if (n && n < len)
			snprintf(type, len, "%.*s", (int)n, v);
	}
	if (f)
		fclose(f);
}

SP_API int sp_policy_find_running(const char *root, char *buf, size_t len)
{
	char path[PATH_MAX], type[256];
	root = root && *root && strcmp(root, "/") ? root : "";
	if (snprintf(path, sizeof(path), "%s/sys/fs/selinux/policy", root) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (access(path, F_OK)) {
		selinux_type(root, type, sizeof(type));
		int v = 33;
		for (; v >= 15; v--) {
			if (snprintf(path, sizeof(path), "%s/etc/selinux/%s/policy/policy.%d", root,
				     type, v) >= (int)sizeof(path))
				return -ENAMETOOLONG;
			if (!access(path, F_OK))
				break;
		}
		if (v < 15)
			return -ENOENT;
	}
	return snprintf(buf, len, "%s", path);
}

SP_API int sp_policy_read_file(const char *path, const struct sp_policy_opts *o,
			       struct sp_policy **out)
{
	int std = !strcmp(path, "-");	/* standard input */
	int fd = std ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the caller's options as far as its sz reaches, the file name defaulting to path */
	struct sp_policy_opts oo = {
		.sz = sizeof(oo),
		.layout = SP_OPTS_HAS(o, layout) ? o->layout : SP_AVTAB_CHAINED,
		.alloc = SP_OPTS_HAS(o, alloc) ? o->alloc : NULL,
		.diags = SP_OPTS_HAS(o, diags) ? o->diags : NULL,
		.file = SP_OPTS_HAS(o, file) && o->file ? o->file : path,
	};
	char *b = NULL;
	size_t size = 0, len = 0;
	int rc = sp_fd_read_all_alloc(fd, oo.alloc, &b, &size, &len);
	if (!std)
		close(fd);
	struct owned w = { b, size, oo.alloc };
	return rc ? rc : policy_read(b, len, &w, &oo, out);	/* frees w */
}

SP_API void sp_policy_get_info(const struct sp_policy *p, struct sp_policy_info *out)
{
	const struct policy_core *k = p->core;
	*out = k->info;
	out->version = k->version;
	out->config = k->config;
	out->mls = (k->config & 1) != 0;
	out->layout = k->layout;
	out->types_nprim = k->ntypes;
	out->commons = k->ncommons;
	out->classes = k->nclasses;
	out->roles = k->nroles;
	out->users = k->nusers;
	out->bools = k->nbools;
	out->cond_enabled = p->cs.enabled_count;
	out->te_bytes = k->te_tab.bytes;
	out->cond_bytes = p->cs.tab.bytes + p->cs.eff.bytes +
			  (size_t)k->ncr * (sizeof(*k->cr) + sizeof(uint32_t) + 1);
	uint32_t nt = k->ntypes;
	out->decide_bytes = (size_t)k->bloom_words * 8 + ((size_t)nt + 2) * 4 * 4 +
			    ((size_t)k->attr_off[nt + 1] * 2 + k->src_off[nt + 1] + k->tgt_off[nt + 1]) * 4;
	out->total_bytes = out->te_bytes + out->cond_bytes + out->decide_bytes + k->strings_len +
			   (size_t)k->nxperms * sizeof(*k->xperms) +
			   (size_t)k->nft * (sizeof(*k->ft) + 4) + ((size_t)nt + 1) * 9 +
			   (size_t)k->nrtrans * sizeof(*k->rtrans) +
			   (size_t)k->nrallow * sizeof(*k->rallow) +
			   ((size_t)k->nclasses + 1) * sizeof(struct policy_class) +
			   (size_t)k->ntype_ix * sizeof(struct policy_name_ix) +
			   ((size_t)k->type_hash_mask + 1) * sizeof(uint32_t) + sizeof(*k) + sizeof(*p);
}

SP_API int sp_policy_get_counts(const struct sp_policy *p, struct sp_policy_counts *out)
{
	if (!out || out->sz < sizeof(*out))
		return -EINVAL;
	*out = p->core->counts;
	out->sz = sizeof(*out);
	return 0;
}

static uint32_t ix_find(const struct policy_name_ix *ix, uint32_t n, const char *name)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		int c = strcmp(ix[mid].name, name);
		if (!c)
			return ix[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static uint32_t ix_len(const struct policy_name_ix *ix)
{
	uint32_t n = 0;
	while (ix[n].name)
		n++;
	return n;
}

SP_API uint32_t sp_policy_type_count(const struct sp_policy *p)
{
	return p->core->ntypes;
}

SP_API const char *sp_policy_type_name(const struct sp_policy *p, uint32_t t)
{
	return t && t <= p->core->ntypes ? p->core->type_name[t] : NULL;
}

SP_API int sp_policy_type_is_attr(const struct sp_policy *p, uint32_t t)
{
	return t && t <= p->core->ntypes && (p->core->type_flags[t] & 1);
}

SP_API uint32_t sp_policy_type_lookup(const struct sp_policy *p, const char *name)
{
	return policy_type_find(p->core, name);
}

SP_API size_t sp_policy_type_attrs(const struct sp_policy *p, uint32_t t, const uint32_t **v)
{
	const struct policy_core *k = p->core;
	if (!t || t > k->ntypes)
		return 0;
	*v = k->attr_v + k->attr_off[t];
	return k->attr_off[t + 1] - k->attr_off[t];
}

SP_API size_t sp_policy_attr_types(const struct sp_policy *p, uint32_t a, const uint32_t **v)
{
	const struct policy_core *k = p->core;
	if (!a || a > k->ntypes)
		return 0;
	*v = k->rev_v + k->rev_off[a];
	return k->rev_off[a + 1] - k->rev_off[a];
}

SP_API uint32_t sp_policy_class_count(const struct sp_policy *p)
{
	return p->core->nclasses;
}

SP_API const char *sp_policy_class_name(const struct sp_policy *p, uint32_t c)
{
	return c && c <= p->core->nclasses ? p->core->cls[c].name : NULL;
}

SP_API uint32_t sp_policy_class_lookup(const struct sp_policy *p, const char *name)
{
	return ix_find(p->core->class_ix, ix_len(p->core->class_ix), name);
}

SP_API const char *sp_policy_perm_name(const struct sp_policy *p, uint32_t c, unsigned bit)
{
	if (!c || c > p->core->nclasses || bit >= 32)
		return NULL;
	return p->core->cls[c].perm[bit];
}

SP_API unsigned sp_policy_perm_lookup(const struct sp_policy *p, uint32_t c, const char *name)
{
	if (!c || c > p->core->nclasses)
		return 0;
	for (unsigned i = 0; i < 32; i++)
		if (p->core->cls[c].perm[i] && !strcmp(p->core->cls[c].perm[i], name))
			return i + 1;
	return 0;
}

SP_API uint32_t sp_policy_role_count(const struct sp_policy *p)
{
	return p->core->nroles;
}

SP_API const char *sp_policy_role_name(const struct sp_policy *p, uint32_t r)
{
	return r && r <= p->core->nroles ? p->core->role_name[r] : NULL;
}

SP_API uint32_t sp_policy_user_count(const struct sp_policy *p)
{
	return p->core->nusers;
}

SP_API const char *sp_policy_user_name(const struct sp_policy *p, uint32_t u)
{
	return u && u <= p->core->nusers ? p->core->user_name[u] : NULL;
}

SP_API uint32_t sp_policy_bool_count(const struct sp_policy *p)
{
	return p->core->nbools;
}

SP_API const char *sp_policy_bool_name(const struct sp_policy *p, uint32_t b)
{
	return b && b <= p->core->nbools ? p->core->bool_name[b] : NULL;
}

SP_API uint32_t sp_policy_bool_lookup(const struct sp_policy *p, const char *name)
{
	return ix_find(p->core->bool_ix, ix_len(p->core->bool_ix), name);
}

SP_API int sp_policy_bool_get(const struct sp_policy *p, uint32_t b)
{
	return b && b <= p->core->nbools ? p->cs.bools[b] : -EINVAL;
}

SP_API uint32_t sp_policy_seqno(const struct sp_policy *p)
{
	return p->seqno;
}

SP_API size_t sp_policy_avtab_lookup(const struct sp_policy *p, int cond, uint16_t s, uint16_t t,
				     uint16_t c, uint16_t mask, struct sp_avtab_entry *out,
				     size_t max)
{
	const struct sp_avtab *tab = cond ? &p->cs.tab : &p->core->te_tab;
	return policy_avtab_lookup(tab, s, t, c, mask, out, max);
}

SP_API int sp_policy_avtab_search(const struct sp_policy *p, int cond, uint16_t s, uint16_t t,
				  uint16_t c, uint16_t mask, uint32_t *data)
{
	const struct sp_avtab *tab = cond ? &p->cs.tab : &p->core->te_tab;
	return policy_avtab_search(tab, s, t, c, mask, data);
}

SP_API void sp_policy_avtab_searcher(const struct sp_policy *p, int cond,
				     struct sp_avtab_searcher *out)
{
	out->tab = cond ? &p->cs.tab : &p->core->te_tab;
	out->search = out->tab->search;
}

SP_API size_t sp_policy_avtab_count(const struct sp_policy *p, int cond)
{
	return cond ? p->core->ncr : p->core->info.te_rules;
}

SP_API int sp_policy_avtab_foreach(const struct sp_policy *p, int cond,
				   int (*fn)(void *ud, const struct sp_avtab_entry *e), void *ud)
{
	const struct policy_core *k = p->core;
	if (!cond)
		return policy_avtab_foreach(&k->te_tab, fn, ud);
	for (uint32_t i = 0; i < k->ncr; i++) {
		const struct policy_rule *r = &k->cr[i];
		struct sp_avtab_entry e = {
			.source = r->s, .target = r->t, .tclass = r->c,
			.specified = (uint16_t)(r->spec | (p->cs.rule_enabled[i] ? SP_AVTAB_ENABLED : 0)),
			.data = r->data,
			.xperms = r->spec & SP_AVTAB_XPERMS ? &k->xperms[r->data] : NULL,
			.cond = (k->cr_node[i] & 0x7fffffffu) + 1,
			.cond_list = (int)(k->cr_node[i] >> 31),
		};
		int rc = fn(ud, &e);
		if (rc)
			return rc;
	}
	return 0;
}

SP_API size_t sp_policy_filename_trans_count(const struct sp_policy *p)
{
	return p->core->nft;
}

SP_API const struct sp_filename_trans *sp_policy_filename_trans(const struct sp_policy *p,
								 size_t i)
{
	return i < p->core->nft ? &p->core->ft[i] : NULL;
}

SP_API size_t sp_policy_role_trans_count(const struct sp_policy *p)
{
	return p->core->nrtrans;
}

SP_API const struct sp_role_trans *sp_policy_role_trans(const struct sp_policy *p, size_t i)
{
	return i < p->core->nrtrans ? &p->core->rtrans[i] : NULL;
}

SP_API size_t sp_policy_role_allow_count(const struct sp_policy *p)
{
	return p->core->nrallow;
}

SP_API const struct sp_role_allow *sp_policy_role_allow(const struct sp_policy *p, size_t i)
{
	return i < p->core->nrallow ? &p->core->rallow[i] : NULL;
}

SP_API size_t sp_policy_range_trans_count(const struct sp_policy *p)
{
	return p->core->nrangetr;
}

SP_API const struct sp_range_trans *sp_policy_range_trans(const struct sp_policy *p, size_t i)
{
	return i < p->core->nrangetr ? &p->core->rangetr[i] : NULL;
}
