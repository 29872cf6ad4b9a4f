/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lsm.c - SELinux-shaped LSM labels for the engines: contexts "user:role:type[:level-range]"
 * with MLS levels, and the rule terms of the subj_* / obj_* fields
 * (security/selinux/ss/services.c: selinux_audit_rule_init / selinux_audit_rule_match;
 * mls_level_dom of security/selinux/ss/mls_types.h).
 *
 * Invariants: a parsed context owns its three strings and carries their FNV-1a hashes; a level
 * has at most 1024 categories; a rule term is immutable once made and freed only with its rule.
 * Learned from the kernel sources, not copied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit/filter/filter_int.h"

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
struct lsm_rule *audit_lsm_rule_init(uint32_t field, uint32_t op, const char *str)
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

void audit_lsm_rule_free(struct lsm_rule *r)
{
	if (!r)
		return;
	audit_kfree(r->name);
	audit_kfree(r);
}
