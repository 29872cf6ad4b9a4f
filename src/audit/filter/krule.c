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
#include <pthread.h>
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

/* ---- syscall classes ---- */

/* x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl). */
static const uint16_t x64_dir_write[] = { 82, 83, 84, 85, 86, 87, 88, 133, 258, 259, 263, 264, 265,
					  266, 316 };
static const uint16_t x64_write_extra[] = { 163, 167, 179, 76, 77, 49, 285 };
static const uint16_t x64_read[] = { 89, 179, 194, 195, 196, 191, 192, 193, 267 };
static const uint16_t x64_chattr[] = { 90, 91, 92, 93, 94, 188, 189, 190, 197, 198, 199, 260, 268,
				       86, 265 };
static const uint16_t x64_signal[] = { 62, 234, 200 };
/* i386 numbers (syscall_32.tbl). */
static const uint16_t x32_dir_write[] = { 38, 39, 40, 8, 9, 10, 83, 14, 296, 297, 301, 302, 303,
					  304, 353 };
static const uint16_t x32_write_extra[] = { 51, 87, 131, 92, 193, 93, 194, 361, 324 };
static const uint16_t x32_read[] = { 85, 131, 232, 233, 234, 229, 230, 231, 305 };
static const uint16_t x32_chattr[] = { 15, 94, 182, 95, 16, 226, 227, 228, 235, 236, 237, 298, 306,
				       9, 303, 212, 207, 198 };
static const uint16_t x32_signal[] = { 37, 270, 238 };

static uint32_t class_masks[CL_NR][ARD_MASK_WORDS];
static pthread_once_t class_once = PTHREAD_ONCE_INIT;

static void class_add(int cls, const uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		class_masks[cls][v[i] / 32] |= 1u << (v[i] % 32);
}

/* audit_classes_init() + audit_register_class() for x86_64 with IA32 emulation. */
static void classes_init(void)
{
	class_add(CL_DIR_WRITE, x64_dir_write, SP_ARRAY_SIZE(x64_dir_write));
	class_add(CL_WRITE, x64_dir_write, SP_ARRAY_SIZE(x64_dir_write));
	class_add(CL_WRITE, x64_write_extra, SP_ARRAY_SIZE(x64_write_extra));
	class_add(CL_READ, x64_read, SP_ARRAY_SIZE(x64_read));
	class_add(CL_CHATTR, x64_chattr, SP_ARRAY_SIZE(x64_chattr));
	class_add(CL_SIGNAL, x64_signal, SP_ARRAY_SIZE(x64_signal));
	class_add(CL_DIR_WRITE_32, x32_dir_write, SP_ARRAY_SIZE(x32_dir_write));
	class_add(CL_WRITE_32, x32_dir_write, SP_ARRAY_SIZE(x32_dir_write));
	class_add(CL_WRITE_32, x32_write_extra, SP_ARRAY_SIZE(x32_write_extra));
	class_add(CL_READ_32, x32_read, SP_ARRAY_SIZE(x32_read));
	class_add(CL_CHATTR_32, x32_chattr, SP_ARRAY_SIZE(x32_chattr));
	class_add(CL_SIGNAL_32, x32_signal, SP_ARRAY_SIZE(x32_signal));
}

const uint32_t *audit_class_mask(int cls)
{
	pthread_once(&class_once, classes_init);
	return class_masks[cls];
}

/* kernel/auditfilter.c: audit_match_class() */
int audit_match_class(int cls, uint32_t nr)
{
	if (nr >= ARD_MASK_WORDS * 32 || cls < 0 || cls >= CL_NR)
		return 0;
	return (audit_class_mask(cls)[nr / 32] >> (nr % 32)) & 1;
}

/* arch/x86/kernel/audit_64.c: audit_classify_syscall(); ia32_classify_syscall() for i386. */
int audit_classify_syscall(uint32_t arch, uint32_t nr)
{
	if (arch == SP_AUDIT_ARCH_I386) {
		switch (nr) {
		case 5: return SC_OPEN;
		case 295: return SC_OPENAT;
		case 102: return SC_SOCKETCALL;
		case 11: case 358: return SC_EXECVE;
		case 437: return SC_OPENAT2;
		default: return SC_COMPAT;
		}
	}
	switch (nr) {
	case 2: return SC_OPEN;
	case 257: return SC_OPENAT;
	case 59: case 322: return SC_EXECVE;
	case 437: return SC_OPENAT2;
	default: return SC_NATIVE;
	}
}

/* ACC_MODE(x): "\004\002\006\006"[(x) & O_ACCMODE] */
static uint32_t acc_mode(uint64_t flags)
{
	static const uint8_t m[4] = { 4, 2, 6, 6 };
	return m[flags & 3];
}

/* The bits b such that audit_match_perm(ctx, b) is true, for the event's arch/major/args. */
uint32_t audit_event_perm_bits(const struct sp_audit_event *ev)
{
	uint32_t n = (uint32_t)ev->c_major, b = 0;
	switch (audit_classify_syscall(ev->c_arch, n)) {
	case SC_NATIVE:
		b |= audit_match_class(CL_WRITE, n) ? PERM_WRITE : 0;
		b |= audit_match_class(CL_READ, n) ? PERM_READ : 0;
		b |= audit_match_class(CL_CHATTR, n) ? PERM_ATTR : 0;
		return b;
	case SC_COMPAT:
		b |= audit_match_class(CL_WRITE_32, n) ? PERM_WRITE : 0;
		b |= audit_match_class(CL_READ_32, n) ? PERM_READ : 0;
		b |= audit_match_class(CL_CHATTR_32, n) ? PERM_ATTR : 0;
		return b;
	case SC_OPEN: return acc_mode(ev->c_argv[1]);
	case SC_OPENAT: return acc_mode(ev->c_argv[2]);
	case SC_SOCKETCALL: return ev->c_argv[0] == 2 /* SYS_BIND */ ? PERM_WRITE : 0;
	case SC_EXECVE: return PERM_EXEC;
	case SC_OPENAT2: return acc_mode((uint32_t)ev->openat2_flags);
	default: return 0;
	}
}

/* ---- LSM contexts and rule terms ---- */

uint64_t audit_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static int parse_num(const char **p, const char *end, uint32_t *out)
{
	uint64_t v = 0;
	const char *s = *p;
	if (s >= end || *s < '0' || *s > '9')
		return -EINVAL;
	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > 0xffffffffu)
			return -EINVAL;
		s++;
	}
	*p = s;
	*out = (uint32_t)v;
	return 0;
}

/* "sN[:cA[.cB][,cC...]]" up to end or '-'; *p advances. */
static int parse_level(struct lsm_level *l, const char **p, const char *end)
{
	const char *s = *p;
	memset(l, 0, sizeof(*l));
	if (s >= end || *s != 's')
		return -EINVAL;
	s++;
	if (parse_num(&s, end, &l->sens))
		return -EINVAL;
	if (s < end && *s == ':') {
		s++;
		for (;;) {
			uint32_t a, b;
			if (s >= end || *s != 'c')
				return -EINVAL;
			s++;
			if (parse_num(&s, end, &a))
				return -EINVAL;
			b = a;
			if (s < end && *s == '.') {
				s++;
				if (s >= end || *s != 'c')
					return -EINVAL;
				s++;
				if (parse_num(&s, end, &b) || b < a)
					return -EINVAL;
			}
			if (b >= LSM_CAT_WORDS * 64)
				return -EINVAL;
			/* a..b word by word (c0.c1023 is 16 stores, not 1024) */
			for (uint32_t w = a / 64; w <= b / 64; w++) {
				uint32_t lo = w == a / 64 ? a % 64 : 0, hi = w == b / 64 ? b % 64 : 63;
				l->cats[w] |= (~0ull >> (63 - hi)) & (~0ull << lo);
			}
			if (s < end && *s == ',') {
				s++;
				continue;
			}
			break;
		}
	}
	*p = s;
	return 0;
}

int audit_lsm_level_parse(struct lsm_level *l, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct lsm_level high;
	if (parse_level(l, &p, end))
		return -EINVAL;
	if (p < end && *p == '-') {
		p++;
		if (parse_level(&high, &p, end))
			return -EINVAL;
	}
	return p == end ? 0 : -EINVAL;
}

void audit_lsm_ctx_release(struct lsm_ctx *c)
{
	free(c->user);
	free(c->role);
	free(c->type);
	memset(c, 0, sizeof(*c));
}

int audit_lsm_ctx_parse(struct lsm_ctx *c, const char *text)
{
	const char *c1 = strchr(text, ':'), *c2, *c3;
	memset(c, 0, sizeof(*c));
	if (!c1 || !(c2 = strchr(c1 + 1, ':')))
		return -EINVAL;
	c3 = strchr(c2 + 1, ':');
	const char *tend = c3 ? c3 : c2 + 1 + strlen(c2 + 1);
	if (c1 == text || c2 == c1 + 1 || tend == c2 + 1)
		return -EINVAL;
	if (c3) {
		const char *p = c3 + 1, *end = p + strlen(p);
		if (parse_level(&c->low, &p, end))
			return -EINVAL;
		c->high = c->low;
		if (p < end && *p == '-') {
			p++;
			if (parse_level(&c->high, &p, end))
				return -EINVAL;
		}
		if (p != end)
			return -EINVAL;
	}
	c->user = strndup(text, (size_t)(c1 - text));
	c->role = strndup(c1 + 1, (size_t)(c2 - c1 - 1));
	c->type = strndup(c2 + 1, (size_t)(tend - c2 - 1));
	if (!c->user || !c->role || !c->type) {
		audit_lsm_ctx_release(c);
		return -ENOMEM;
	}
	c->h_user = audit_hash_str(c->user);
	c->h_role = audit_hash_str(c->role);
	c->h_type = audit_hash_str(c->type);
	return 0;
}

/* The unlabeled context, with its FNV-1a identities precomputed (checked by the unit tests). */
const struct lsm_ctx audit_unlabeled_ctx = {
	.user = (char *)"system_u", .role = (char *)"object_r", .type = (char *)"unlabeled_t",
	.h_user = 0xe016acb1d554bde4ull, .h_role = 0x01dc4001dde27b77ull, .h_type = 0xb829e384ac67980aull,
};

/* mls_level_dom(l1, l2): l1 dominates l2. */
static int level_dom(const struct lsm_level *l1, const struct lsm_level *l2)
{
	if (l1->sens < l2->sens)
		return 0;
	for (int i = 0; i < LSM_CAT_WORDS; i++)
		if ((l2->cats[i] & l1->cats[i]) != l2->cats[i])
			return 0;
	return 1;
}

static int level_eq(const struct lsm_level *a, const struct lsm_level *b)
{
	return a->sens == b->sens && !memcmp(a->cats, b->cats, sizeof(a->cats));
}

/* security/selinux/ss/services.c: selinux_audit_rule_match() on an already-resolved context. */
int audit_lsm_match(const struct lsm_ctx *c, const struct lsm_rule *r)
{
	const char *s;
	const struct lsm_level *lv;
	switch (r->field) {
	case AF_SUBJ_USER: case AF_OBJ_USER: s = c->user; break;
	case AF_SUBJ_ROLE: case AF_OBJ_ROLE: s = c->role; break;
	case AF_SUBJ_TYPE: case AF_OBJ_TYPE: s = c->type; break;
	default: s = NULL; break;
	}
	if (s) {
		int eq = !strcmp(s, r->name);
		return r->op == OP_EQ ? eq : r->op == OP_NE ? !eq : 0;
	}
	lv = (r->field == AF_SUBJ_SEN || r->field == AF_OBJ_LEV_LOW) ? &c->low : &c->high;
	switch (r->op) {
	case OP_EQ: return level_eq(&r->level, lv);
	case OP_NE: return !level_eq(&r->level, lv);
	case OP_LT: return level_dom(&r->level, lv) && !level_eq(&r->level, lv);
	case OP_LE: return level_dom(&r->level, lv);
	case OP_GT: return level_dom(lv, &r->level) && !level_eq(lv, &r->level);
	case OP_GE: return level_dom(lv, &r->level);
	default: return 0;
	}
}

/* selinux_audit_rule_init(): NULL when the text is not valid (the kernel keeps the field). */
static struct lsm_rule *lsm_rule_init(uint32_t field, uint32_t op, const char *str)
{
	struct lsm_rule *r = audit_kzalloc(sizeof(*r));
	if (!r)
		return NULL;
	r->field = field;
	r->op = op;
	switch (field) {
	case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE:
	case AF_OBJ_USER: case AF_OBJ_ROLE: case AF_OBJ_TYPE:
		if (op != OP_EQ && op != OP_NE)
			goto bad;
		r->name = audit_kstrndup(str, strlen(str));
		if (!r->name)
			goto bad;
		r->h_name = audit_hash_str(r->name);
		return r;
	default:
		if (audit_lsm_level_parse(&r->level, str, strlen(str)))
			goto bad;
		return r;
	}
bad:
	audit_kfree(r);
	return NULL;
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
			f->lsm_rule = lsm_rule_init(f->type, f->op, str);
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
