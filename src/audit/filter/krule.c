/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * krule.c - kernel-form audit rules: the translation of a struct audit_rule_data blob into the
 * kernel's struct audit_krule (kernel/auditfilter.c: audit_to_entry_common, audit_field_valid,
 * audit_data_to_entry, audit_to_inode, audit_to_watch, audit_make_tree, audit_alloc_mark,
 * audit_compare_rule), the x86_64/i386 syscall classes (include/asm-generic/audit_*.h as of 6.1,
 * arch/x86/kernel/audit_64.c, arch/x86/ia32/audit.c) and the SELinux-shaped LSM rule terms
 * (security/selinux/ss/services.c: selinux_audit_rule_init/_match).
 *
 * Invariants: a decoded rule has class bits 2032..2047 cleared and expanded; every string field
 * was unpacked in field order from buf with the kernel's bounds (length 0 or beyond the message:
 * -EINVAL, > PATH_MAX: -ENAMETOOLONG); at most one watch/tree/inode= field, one key, one exe.
 * Learned from the kernel sources, not copied.
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

static int is_lsm_field(uint32_t t)
{
	return (t >= AF_SUBJ_USER && t <= AF_SUBJ_CLR) || (t >= AF_OBJ_USER && t <= AF_OBJ_LEV_HIGH);
}

static int is_uid_field(uint32_t t)
{
	return t == AF_UID || t == AF_EUID || t == AF_SUID || t == AF_FSUID || t == AF_LOGINUID ||
	       t == AF_OBJ_UID;
}

static int is_gid_field(uint32_t t)
{
	return t == AF_GID || t == AF_EGID || t == AF_SGID || t == AF_FSGID || t == AF_OBJ_GID;
}

static uint32_t to_op(uint32_t wire)
{
	static const uint32_t ops[OP_BAD] = { 0x40000000, 0x30000000, 0x08000000, 0x48000000,
					      0x10000000, 0x20000000, 0x50000000, 0x60000000 };
	uint32_t n;
	for (n = 0; n < OP_BAD && ops[n] != wire; n++)
		;
	return n;
}

/* kernel/auditfilter.c: audit_field_valid() */
static int field_valid(uint32_t listnr, const struct audit_kfield *f)
{
	switch (f->type) {
	case AF_MSGTYPE:
		if (listnr != AL_EXCLUDE && listnr != AL_USER)
			return -EINVAL;
		break;
	case AF_FSTYPE:
		if (listnr != AL_FS)
			return -EINVAL;
		break;
	case AF_PERM:
		if (listnr == AL_URING)
			return -EINVAL;
		break;
	}
	if (listnr == AL_FS && f->type != AF_FSTYPE && f->type != AF_FILTERKEY)
		return -EINVAL;
	switch (f->type) {
	case AF_ARG0: case AF_ARG1: case AF_ARG2: case AF_ARG3: case AF_PERS: case AF_DEVMINOR:
		break;
	case AF_UID: case AF_EUID: case AF_SUID: case AF_FSUID: case AF_LOGINUID: case AF_OBJ_UID:
	case AF_GID: case AF_EGID: case AF_SGID: case AF_FSGID: case AF_OBJ_GID: case AF_PID:
	case AF_MSGTYPE: case AF_PPID: case AF_DEVMAJOR: case AF_EXIT: case AF_SUCCESS: case AF_INODE:
	case AF_SESSIONID: case AF_SUBJ_SEN: case AF_SUBJ_CLR: case AF_OBJ_LEV_LOW: case AF_OBJ_LEV_HIGH:
	case AF_SADDR_FAM:
		if (f->op == OP_BITMASK || f->op == OP_BITTEST)
			return -EINVAL;
		break;
	case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_OBJ_USER: case AF_OBJ_ROLE:
	case AF_OBJ_TYPE: case AF_WATCH: case AF_DIR: case AF_FILTERKEY: case AF_LOGINUID_SET:
	case AF_ARCH: case AF_FSTYPE: case AF_PERM: case AF_FILETYPE: case AF_FIELD_COMPARE: case AF_EXE:
		if (f->op != OP_NE && f->op != OP_EQ)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	switch (f->type) {
	case AF_LOGINUID_SET:
		if (f->val != 0 && f->val != 1)
			return -EINVAL;
		break;
	case AF_PERM:
		if (f->val & ~15u)
			return -EINVAL;
		break;
	case AF_FILETYPE:
		if (f->val & ~0170000u)
			return -EINVAL;
		break;
	case AF_FIELD_COMPARE:
		if (f->val > ARD_MAX_FIELD_COMPARE)
			return -EINVAL;
		break;
	case AF_SADDR_FAM:
		if (f->val >= ARD_AF_MAX)
			return -EINVAL;
		break;
	}
	return 0;
}

/* audit_unpack_string() */
static int unpack_string(const uint8_t **bufp, size_t *remain, uint32_t len, char **out)
{
	if (len == 0 || len > *remain)
		return -EINVAL;
	if (len > ARD_PATH_MAX)
		return -ENAMETOOLONG;
	*out = audit_kstrndup((const char *)*bufp, len);
	if (!*out)
		return -ENOMEM;
	*bufp += len;
	*remain -= len;
	return 0;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

void audit_krule_release(struct audit_krule *r)
{
	if (r->fields) {
		for (uint32_t i = 0; i < r->field_count; i++) {
			struct audit_kfield *f = &r->fields[i];
			audit_kfree(f->lsm_str);
			if (f->lsm_rule) {
				audit_kfree(f->lsm_rule->name);
				audit_kfree(f->lsm_rule);
			}
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

int audit_krule_from_data(struct audit_krule *r, const void *blob, size_t len,
			  const struct sp_audit_fsview *fs)
{
	const uint8_t *d = blob, *bufp;
	size_t remain;
	uint32_t flags, i;
	int err;

	memset(r, 0, sizeof(*r));
	r->inode_f = -1;
	if (!blob || len < ARD_HDR)
		return -EINVAL;
	/* audit_to_entry_common() */
	flags = rd32(d);
	r->listnr = flags & ~(uint32_t)AL_PREPEND;
	switch (r->listnr) {
	case AL_EXIT: case AL_URING: case AL_TASK: case AL_USER: case AL_EXCLUDE: case AL_FS:
		break;
	default:
		return -EINVAL;	/* including AUDIT_FILTER_ENTRY (deprecated) and WATCH */
	}
	r->action = rd32(d + 4);
	if (r->action != AA_NEVER && r->action != AA_ALWAYS)
		return -EINVAL;
	r->field_count = rd32(d + 8);
	if (r->field_count > ARD_MAX_FIELDS)
		return -EINVAL;
	r->flags = flags & AL_PREPEND;
	for (i = 0; i < ARD_MASK_WORDS; i++)
		r->mask[i] = rd32(d + 12 + 4 * i);
	for (i = 0; i < CL_NR; i++) {
		uint32_t bit = ARD_MASK_WORDS * 32 - i - 1;
		uint32_t *p = &r->mask[bit / 32];
		if (!(*p & (1u << (bit % 32))))
			continue;
		*p &= ~(1u << (bit % 32));
		const uint32_t *cls = audit_class_mask((int)i);
		for (int j = 0; j < ARD_MASK_WORDS; j++)
			r->mask[j] |= cls[j];
	}
	r->fields = audit_kzalloc(sizeof(*r->fields) * (r->field_count ? r->field_count : 1));
	if (!r->fields)
		return -ENOMEM;

	/* audit_data_to_entry() */
	bufp = d + ARD_HDR;
	remain = len - ARD_HDR;
	for (i = 0; i < r->field_count; i++) {
		struct audit_kfield *f = &r->fields[i];
		uint32_t fval;
		char *str = NULL;

		err = -EINVAL;
		f->op = to_op(rd32(d + ARD_OFF_FIELDFLAGS + 4 * i));
		if (f->op == OP_BAD)
			goto fail;
		f->type = rd32(d + ARD_OFF_FIELDS + 4 * i);
		fval = rd32(d + ARD_OFF_VALUES + 4 * i);
		f->val = fval;
		/* legacy "auid=-1": loginuid_set OP 0 */
		if (f->type == AF_LOGINUID && fval == SP_AUDIT_UNSET) {
			f->type = AF_LOGINUID_SET;
			f->val = fval = 0;
			r->pflags |= 1;
		}
		err = field_valid(r->listnr, f);
		if (err)
			goto fail;
		err = -EINVAL;
		if (is_uid_field(f->type) || is_gid_field(f->type)) {
			if (fval == SP_AUDIT_UNSET)	/* make_kuid: invalid */
				goto fail;
		} else if (is_lsm_field(f->type)) {
			err = unpack_string(&bufp, &remain, fval, &str);
			if (err)
				goto fail;
			r->buflen += fval;
			f->lsm_str = str;
			f->lsm_rule = audit_lsm_rule_init(f->type, f->op, str);
		} else if (f->type == AF_WATCH) {
			err = unpack_string(&bufp, &remain, fval, &str);
			if (err)
				goto fail;
			/* audit_to_watch() */
			if (str[0] != '/' || str[fval - 1] == '/' ||
			    (r->listnr != AL_EXIT && r->listnr != AL_URING) || f->op != OP_EQ ||
			    r->inode_f >= 0 || r->has_watch || r->has_tree) {
				audit_kfree(str);
				err = -EINVAL;
				goto fail;
			}
			r->watch_path = str;
			r->has_watch = 1;
			r->watch_parent_missing = !parent_exists(fs, str);
			r->buflen += fval;
			if (!fs || sp_audit_fsview_lookup(fs, str, &r->watch_ino, &r->watch_dev, NULL)) {
				r->watch_ino = SP_AUDIT_INO_UNSET;
				r->watch_dev = KA_DEV_UNSET;
			}
		} else if (f->type == AF_DIR) {
			err = unpack_string(&bufp, &remain, fval, &str);
			if (err)
				goto fail;
			/* audit_make_tree() */
			if (str[0] != '/' || (r->listnr != AL_EXIT && r->listnr != AL_URING) ||
			    f->op != OP_EQ || r->inode_f >= 0 || r->has_watch || r->has_tree) {
				audit_kfree(str);
				err = -EINVAL;
				goto fail;
			}
			r->tree_path = str;
			r->has_tree = 1;
			r->buflen += fval;
		} else if (f->type == AF_INODE) {
			/* audit_to_inode() */
			if (r->listnr != AL_EXIT || r->inode_f >= 0 || r->has_watch || r->has_tree ||
			    (f->op != OP_EQ && f->op != OP_NE))
				goto fail;
			r->inode_f = (int)i;
		} else if (f->type == AF_FILTERKEY) {
			if (r->filterkey || fval > SP_AUDIT_MAX_KEY_LEN)
				goto fail;
			err = unpack_string(&bufp, &remain, fval, &str);
			if (err)
				goto fail;
			r->buflen += fval;
			r->filterkey = str;
		} else if (f->type == AF_EXE) {
			if (r->has_exe || fval > ARD_PATH_MAX)
				goto fail;
			err = unpack_string(&bufp, &remain, fval, &str);
			if (err)
				goto fail;
			/* audit_alloc_mark() */
			if (str[0] != '/' || str[fval - 1] == '/') {
				audit_kfree(str);
				err = -EINVAL;
				goto fail;
			}
			r->exe_path = str;
			r->has_exe = 1;
			r->buflen += fval;
			if (!parent_exists(fs, str)) {
				err = -ENOENT;	/* audit_alloc_mark(): kern_path_locked() failed */
				goto fail;
			}
			if (!fs || sp_audit_fsview_lookup(fs, str, &r->exe_ino, &r->exe_dev, NULL)) {
				r->exe_ino = SP_AUDIT_INO_UNSET;
				r->exe_dev = KA_DEV_UNSET;
			}
		}
	}
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
		if (is_lsm_field(x->type)) {
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
