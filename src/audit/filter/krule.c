/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * krule.c - the engines' rule loader: a struct audit_rule_data blob into the kernel's struct
 * audit_krule (kernel/auditfilter.c: audit_data_to_entry, audit_compare_rule, audit_find_rule's
 * bucket), with the kernel-side allocations.  The blob is checked by the walk of audit/blob.c
 * (the one validator); this file keeps what it accepted, resolves paths against the caller's
 * file-system view (kern_path of a watch's parent, an exe's directory, a tree's root) and makes
 * the LSM terms (filter/lsm.c).
 *
 * Invariants: a loaded rule has the selector bits of the ten classes (2038..2047) cleared and
 * expanded; its strings are NUL-terminated kmalloc copies of the blob's, in field order; at most
 * one watch/tree/inode= field, one key, one exe; on error nothing is left to free.  Learned from
 * the kernel sources, not copied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit/filter/filter_int.h"
#include "secpath/slab.h"

/* Kernel-side objects come from the kmalloc size classes, as kzalloc/kstrdup do in the kernel. */
void *audit_kzalloc(size_t size)
{
	return sp_kzalloc(size ? size : 1);
}

void audit_kfree(void *p)
{
	sp_kfree(p);
}

char *audit_kstrndup(const char *s, size_t n)
{
	char *p = audit_kzalloc(n + 1);
	if (p)
		memcpy(p, s, n);
	return p;
}

/* ---- blob -> krule ---- */

/* kern_path_locked(): the parent directory of path must exist ("/" always does).  Without a
 * file-system view nothing is known and every parent is assumed present. */
static int parent_exists(const struct sp_audit_fsview *fs, const char *path)
{
	char buf[ARD_PATH_MAX + 1];
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	if (!fs || len == 0)
		return 1;
	if (len > ARD_PATH_MAX)
		return 0;
	memcpy(buf, path, len);
	buf[len] = 0;
	return !sp_audit_fsview_lookup(fs, buf, NULL, NULL, NULL);
}

void audit_krule_release(struct audit_krule *r)
{
	if (r->fields) {
		for (uint32_t i = 0; i < r->field_count; i++) {
			struct audit_kfield *f = &r->fields[i];
			audit_kfree(f->lsm_str);
			audit_lsm_rule_free(f->lsm_rule);
		}
	}
	audit_kfree(r->fields);
	audit_kfree(r->filterkey);
	audit_kfree(r->watch_path);
	audit_kfree(r->tree_path);
	audit_kfree(r->exe_path);
	r->fields = NULL;
	r->filterkey = r->watch_path = r->tree_path = r->exe_path = NULL;
}

/* A string field's bytes as the kernel's NUL-terminated copy (audit_unpack_string's kmalloc). */
static char *take_string(const struct audit_blob_field *bf)
{
	return audit_kstrndup(bf->str, bf->val);
}

/* The identity of path in fs, or the unknown one. */
static void resolve(const struct sp_audit_fsview *fs, const char *path, uint64_t *ino, uint32_t *dev)
{
	if (!fs || sp_audit_fsview_lookup(fs, path, ino, dev, NULL)) {
		*ino = SP_AUDIT_INO_UNSET;
		*dev = KA_DEV_UNSET;
	}
}

/* audit_to_watch(): the watched path; its parent must exist when the rule is added. */
static int add_watch(struct audit_krule *r, const struct audit_blob_field *bf,
		     const struct sp_audit_fsview *fs)
{
	if (!(r->watch_path = take_string(bf)))
		return -ENOMEM;
	r->has_watch = 1;
	r->watch_parent_missing = !parent_exists(fs, r->watch_path);
	resolve(fs, r->watch_path, &r->watch_ino, &r->watch_dev);
	return 0;
}

/* audit_alloc_mark(): kern_path_locked() of the exe's directory must succeed. */
static int add_exe(struct audit_krule *r, const struct audit_blob_field *bf,
		   const struct sp_audit_fsview *fs)
{
	if (!(r->exe_path = take_string(bf)))
		return -ENOMEM;
	r->has_exe = 1;
	if (!parent_exists(fs, r->exe_path))
		return -ENOENT;
	resolve(fs, r->exe_path, &r->exe_ino, &r->exe_dev);
	return 0;
}

/* One field of audit_data_to_entry(): checked by the blob walk, then kept in r. */
static int krule_field(struct audit_krule *r, struct audit_blob *b, uint32_t i,
		       const struct sp_audit_fsview *fs)
{
	struct audit_kfield *f = &r->fields[i];
	struct audit_blob_field bf;
	int err = audit_blob_field(b, i, &bf);
	if (err)
		return err;
	f->type = bf.type;
	f->op = bf.op;
	f->val = bf.val;
	if (bf.legacy)
		r->pflags |= 1;	/* AUDIT_LOGINUID_LEGACY */
	if (bf.str)
		r->buflen += bf.val;
	if (audit_field_is_lsm(f->type)) {
		if (!(f->lsm_str = take_string(&bf)))
			return -ENOMEM;
		f->lsm_rule = audit_lsm_rule_init(f->type, f->op, f->lsm_str);
		return 0;
	}
	switch (f->type) {
	case AF_WATCH:
		return add_watch(r, &bf, fs);
	case AF_DIR:
		r->has_tree = 1;
		return (r->tree_path = take_string(&bf)) ? 0 : -ENOMEM;
	case AF_INODE:
		r->inode_f = (int)i;
		return 0;
	case AF_FILTERKEY:
		return (r->filterkey = take_string(&bf)) ? 0 : -ENOMEM;
	case AF_EXE:
		return add_exe(r, &bf, fs);
	default:
		return 0;
	}
}

/* audit_to_entry_common() once the header passed: list, action, mask with classes expanded. */
static int krule_common(struct audit_krule *r, const struct audit_blob *b)
{
	r->listnr = b->listnr;
	r->action = b->action;
	r->field_count = b->field_count;
	r->flags = b->flags & AL_PREPEND;
	memcpy(r->mask, b->d + offsetof(struct audit_rd_hdr, mask), sizeof(r->mask));
	audit_class_expand(r->mask);
	r->fields = audit_kzalloc(sizeof(*r->fields) * (r->field_count ? r->field_count : 1));
	return r->fields ? 0 : -ENOMEM;
}

int audit_krule_from_data(struct audit_krule *r, const void *blob, size_t len,
			  const struct sp_audit_fsview *fs)
{
	struct audit_blob b;
	int err;

	memset(r, 0, sizeof(*r));
	r->inode_f = -1;
	err = audit_blob_begin(&b, blob, len, NULL, NULL);
	if (err || (err = krule_common(r, &b)))
		return err;
	for (uint32_t i = 0; i < r->field_count; i++)
		if ((err = krule_field(r, &b, i, fs)))
			goto fail;
	if (r->inode_f >= 0 && r->fields[r->inode_f].op == OP_NE)
		r->inode_f = -1;
	/* audit_add_tree_rule(): kern_path() of the tree root must succeed */
	if (r->has_tree) {
		uint32_t mode;
		if (!fs || sp_audit_fsview_lookup(fs, r->tree_path, &r->tree_ino, &r->tree_dev, &mode)) {
			err = -ENOENT;
			goto fail;
		}
	}
	return 0;
fail:
	audit_krule_release(r);
	return err;
}

/* kernel/auditfilter.c: audit_compare_rule(), 0 when a and b are the same rule. */
int audit_krule_compare(const struct audit_krule *a, const struct audit_krule *b)
{
	if (a->flags != b->flags || a->pflags != b->pflags || a->listnr != b->listnr ||
	    a->action != b->action || a->field_count != b->field_count)
		return 1;
	for (uint32_t i = 0; i < a->field_count; i++) {
		const struct audit_kfield *x = &a->fields[i], *y = &b->fields[i];
		if (x->type != y->type || x->op != y->op)
			return 1;
		if (audit_field_is_lsm(x->type)) {
			if (strcmp(x->lsm_str, y->lsm_str))
				return 1;
		} else if (x->type == AF_WATCH) {
			if (strcmp(a->watch_path, b->watch_path))
				return 1;
		} else if (x->type == AF_DIR) {
			if (strcmp(a->tree_path, b->tree_path))
				return 1;
		} else if (x->type == AF_FILTERKEY) {
			if (strcmp(a->filterkey, b->filterkey))
				return 1;
		} else if (x->type == AF_EXE) {
			if (strcmp(a->exe_path, b->exe_path))
				return 1;
		} else if (x->val != y->val) {
			return 1;
		}
	}
	return memcmp(a->mask, b->mask, sizeof(a->mask)) != 0;
}

/* Where audit_find_rule()/audit_add_watch() put the rule: an inode-hash bucket or the list. */
int audit_krule_bucket(const struct audit_krule *r)
{
	if (r->inode_f >= 0)
		return (int)(r->fields[r->inode_f].val & (KA_INODE_BUCKETS - 1));
	if (r->has_watch)
		return (int)((uint32_t)r->watch_ino & (KA_INODE_BUCKETS - 1));
	return -1;
}
