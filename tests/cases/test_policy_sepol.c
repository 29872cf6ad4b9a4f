/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * test_policy_sepol.c - secpath's reader, three avtab layouts and decisions against libsepol
 * (test-only oracle) on the real Debian policies and the tiny fixtures:
 *  - every te_avtab and te_cond_avtab entry libsepol read is found, with the same datum (and
 *    xperm map), in each layout; counts agree; conditional enabled flags agree with the
 *    conditional expressions evaluated over libsepol's booleans;
 *  - the three layouts return identical entry lists for every key, and nothing for absent keys;
 *  - compute_av equals a decision computed from libsepol's own tables and type_attr_map on a
 *    few thousand random triples (rule-derived and uniform), before and after boolean flips;
 *    the fast path equals the kernel's literal loop; type rules agree with libsepol's entries.
 * libsepol's internal functions are not exported from libsepol.so, so the oracle walks its
 * public structures (the sepol/policydb headers) directly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sepol/debug.h>
#include <sepol/policydb.h>
#include <sepol/policydb/policydb.h>
#include <sepol/policydb/avtab.h>
#include <sepol/policydb/conditional.h>

#include "secpath/policy.h"
#include "../support/files.h"
#include "../unit/test_policy_util.h"

struct oracle_ent {
	uint16_t s, t, c, spec;	/* spec without the enabled bit */
	uint32_t data;
	uint32_t xp[8];
	uint8_t xkind, xdriver;
	int enabled;
};

struct oracle {
	sepol_policydb_t *sp;
	policydb_t *db;
	struct oracle_ent *te, *cond;
	size_t nte, ncond;
	uint32_t ntypes;
	uint32_t **attrs;	/* per type value: type_attr_map values (1-based), 0-terminated */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct oracle_ent *x = a, *y = b;
	if (x->s != y->s)
		return x->s - y->s;
	if (x->t != y->t)
		return x->t - y->t;
	if (x->c != y->c)
		return x->c - y->c;
	if (x->spec != y->spec)
		return x->spec - y->spec;
	if (x->data != y->data)
		return x->data < y->data ? -1 : 1;
	return memcmp(x->xp, y->xp, sizeof(x->xp));
}

static void collect(avtab_t *h, struct oracle_ent **out, size_t *n)
{
	*out = calloc(h->nel + 1, sizeof(**out));
	*n = 0;
	for (uint32_t i = 0; i < h->nslot; i++)
		for (avtab_ptr_t cur = h->htable[i]; cur; cur = cur->next) {
			struct oracle_ent *e = &(*out)[(*n)++];
			e->s = cur->key.source_type, e->t = cur->key.target_type;
			e->c = cur->key.target_class;
			e->spec = cur->key.specified & (uint16_t)~AVTAB_ENABLED;
			e->data = cur->datum.data;
			if (cur->datum.xperms) {
				e->xkind = cur->datum.xperms->specified;
				e->xdriver = cur->datum.xperms->driver;
				memcpy(e->xp, cur->datum.xperms->perms, sizeof(e->xp));
				e->data = 0;
			}
		}
	assert_int_equal(*n, h->nel);
}

static int eval_expr(policydb_t *db, cond_expr_t *e, const uint8_t *bools)
{
	int st[16], sp = -1;
	for (; e; e = e->next) {
		switch (e->expr_type) {
		case COND_BOOL: st[++sp] = bools ? bools[e->bool] : db->bool_val_to_struct[e->bool - 1]->state; break;
		case COND_NOT: st[sp] = !st[sp]; break;
		case COND_OR: sp--; st[sp] = st[sp] || st[sp + 1]; break;
		case COND_AND: sp--; st[sp] = st[sp] && st[sp + 1]; break;
		case COND_XOR: sp--; st[sp] = st[sp] ^ st[sp + 1]; break;
		case COND_EQ: sp--; st[sp] = st[sp] == st[sp + 1]; break;
		case COND_NEQ: sp--; st[sp] = st[sp] != st[sp + 1]; break;
		default: return -1;
		}
	}
	return sp == 0 ? st[0] : -1;
}

/* enabled flags of oracle cond entries for the boolean vector `bools` (NULL = libsepol's) */
static void oracle_eval(struct oracle *o, const uint8_t *bools)
{
	for (size_t i = 0; i < o->ncond; i++)
		o->cond[i].enabled = 0;
	for (cond_node_t *n = o->db->cond_list; n; n = n->next) {
		int st = eval_expr(o->db, n->expr, bools);
		for (int list = 0; list < 2; list++)
			for (cond_av_list_t *l = list ? n->true_list : n->false_list; l; l = l->next) {
				if (st < 0 || st != list)
					continue;
				struct oracle_ent key = { 0 };
				avtab_ptr_t x = l->node;
				key.s = x->key.source_type, key.t = x->key.target_type;
				key.c = x->key.target_class;
				key.spec = x->key.specified & (uint16_t)~AVTAB_ENABLED;
				key.data = x->datum.data;
				if (x->datum.xperms) {
					key.data = 0;
					memcpy(key.xp, x->datum.xperms->perms, sizeof(key.xp));
				}
				struct oracle_ent *f = bsearch(&key, o->cond, o->ncond, sizeof(key), ent_cmp);
				assert_non_null(f);
				/* count enabled occurrences on the first of equal entries (the same
				 * rule may sit in several lists) */
				while (f > o->cond && !ent_cmp(f - 1, &key))
					f--;
				f->enabled++;
			}
	}
}

static void oracle_load(struct oracle *o, const unsigned char *buf, size_t len)
{
	memset(o, 0, sizeof(*o));
	sepol_policy_file_t *pf;
	assert_int_equal(sepol_policy_file_create(&pf), 0);
	sepol_policy_file_set_mem(pf, (char *)buf, len);
	assert_int_equal(sepol_policydb_create(&o->sp), 0);
	assert_int_equal(sepol_policydb_read(o->sp, pf), 0);
	sepol_policy_file_free(pf);
	o->db = &o->sp->p;
	collect(&o->db->te_avtab, &o->te, &o->nte);
	collect(&o->db->te_cond_avtab, &o->cond, &o->ncond);
	qsort(o->te, o->nte, sizeof(*o->te), ent_cmp);
	qsort(o->cond, o->ncond, sizeof(*o->cond), ent_cmp);
	o->ntypes = o->db->p_types.nprim;
	o->attrs = calloc(o->ntypes + 1, sizeof(*o->attrs));
	for (uint32_t i = 0; i < o->ntypes; i++) {
		uint32_t *row = calloc(o->ntypes + 2, sizeof(uint32_t)), n = 0;
		int self = 0;
		if (o->db->type_attr_map)
			for (ebitmap_node_t *nd = o->db->type_attr_map[i].node; nd; nd = nd->next)
				for (unsigned b = 0; b < 64; b++)
					if (nd->map >> b & 1) {
						row[n++] = nd->startbit + b + 1;
						self |= nd->startbit + b == i;
					}
		if (!self)
			row[n++] = i + 1;	/* the kernel always includes the type itself */
		o->attrs[i + 1] = row;
	}
	oracle_eval(o, NULL);
}

static void oracle_free(struct oracle *o)
{
	for (uint32_t i = 1; i <= o->ntypes; i++)
		free(o->attrs[i]);
	free(o->attrs);
	free(o->te);
	free(o->cond);
	sepol_policydb_free(o->sp);
}

static const struct oracle_ent *range(const struct oracle_ent *v, size_t n, uint16_t s, uint16_t t,
				      uint16_t c, size_t *cnt)
{
	struct oracle_ent key = { .s = s, .t = t, .c = c };
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct oracle_ent *m = &v[mid];
		int cmp = m->s != s ? m->s - s : m->t != t ? m->t - t : m->c - c;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	(void)key;
	size_t e = lo;
	while (e < n && v[e].s == s && v[e].t == t && v[e].c == c)
		e++;
	*cnt = e - lo;
	return v + lo;
}

/* The kernel's fold over libsepol's tables (sorted copies) and libsepol's type_attr_map. */
static void oracle_decide(const struct oracle *o, uint32_t s, uint32_t t, uint32_t c, uint32_t av[3])
{
	av[0] = 0, av[1] = 0, av[2] = 0xffffffffu;
	for (const uint32_t *i = o->attrs[s]; *i; i++)
		for (const uint32_t *j = o->attrs[t]; *j; j++)
			for (int tab = 0; tab < 2; tab++) {
				size_t n;
				const struct oracle_ent *r = range(tab ? o->cond : o->te,
								   tab ? o->ncond : o->nte,
								   (uint16_t)*i, (uint16_t)*j,
								   (uint16_t)c, &n);
				for (size_t k = 0; k < n; k++) {
					if (tab && !r[k].enabled)
						continue;
					if (r[k].spec == AVTAB_ALLOWED)
						av[0] |= r[k].data;
					else if (r[k].spec == AVTAB_AUDITALLOW)
						av[1] |= r[k].data;
					else if (r[k].spec == AVTAB_AUDITDENY)
						av[2] &= r[k].data;
				}
			}
}

static void check_entries(struct sp_policy *p, const struct oracle *o, int cond)
{
	const struct oracle_ent *v = cond ? o->cond : o->te;
	size_t n = cond ? o->ncond : o->nte;
	assert_int_equal(sp_policy_avtab_count(p, cond), n);
	struct sp_avtab_entry e[64];
	for (size_t i = 0; i < n; i++) {
		const struct oracle_ent *x = &v[i];
		if (i && !ent_cmp(&v[i - 1], x))
			continue;	/* checked with the first of its group */
		size_t m = sp_policy_avtab_lookup(p, cond, x->s, x->t, x->c, x->spec, e, 64);
		assert_true(m >= 1 && m <= 64);
		size_t want = 0;
		for (size_t j = 0; j < n - i && !ent_cmp(&v[i], &v[i + j]); j++)
			want++;
		size_t got = 0, en = 0;
		for (size_t j = 0; j < m; j++) {
			uint16_t kind = e[j].specified & (uint16_t)~SP_AVTAB_ENABLED;
			assert_int_equal(kind, x->spec);
			if (x->spec & SP_AVTAB_XPERMS) {
				assert_non_null(e[j].xperms);
				if (!memcmp(e[j].xperms->perms, x->xp, sizeof(x->xp)) &&
				    e[j].xperms->kind == x->xkind && e[j].xperms->driver == x->xdriver)
					got++;
			} else if (e[j].data == x->data) {
				got++;
				en += (e[j].specified & SP_AVTAB_ENABLED) != 0;
			}
		}
		assert_int_equal(got, want);
		if (cond && !(x->spec & SP_AVTAB_XPERMS) && got == want)
			assert_int_equal(en, (size_t)x->enabled);
	}
}

static int sort_entries(const void *a, const void *b)
{
	const struct sp_avtab_entry *x = a, *y = b;
	if (x->specified != y->specified)
		return x->specified - y->specified;
	return (x->data > y->data) - (x->data < y->data);
}

static void check_layouts_agree(struct sp_policy *const *p, const struct oracle *o)
{
	struct sp_avtab_entry e[3][64];
	unsigned long long seed = 42;
	for (int cond = 0; cond < 2; cond++) {
		const struct oracle_ent *v = cond ? o->cond : o->te;
		size_t n = cond ? o->ncond : o->nte;
		for (size_t i = 0; i < n + 2000; i++) {
			uint16_t s, t, c;
			if (i < n) {
				s = v[i].s, t = v[i].t, c = v[i].c;
			} else {	/* random keys: mostly misses */
				s = (uint16_t)(1 + tp_rand(&seed) % o->ntypes);
				t = (uint16_t)(1 + tp_rand(&seed) % o->ntypes);
				c = (uint16_t)(1 + tp_rand(&seed) % o->db->p_classes.nprim);
			}
			size_t m[3];
			for (int l = 0; l < 3; l++) {
				m[l] = sp_policy_avtab_lookup(p[l], cond, s, t, c, 0xffff, e[l], 64);
				assert_true(m[l] <= 64);
				qsort(e[l], m[l], sizeof(e[l][0]), sort_entries);
			}
			size_t on;
			range(v, n, s, t, c, &on);
			assert_int_equal(m[0], on);
			for (int l = 1; l < 3; l++) {
				assert_int_equal(m[l], m[0]);
				for (size_t j = 0; j < m[0]; j++) {
					assert_int_equal(e[l][j].specified, e[0][j].specified);
					if (!(e[0][j].specified & SP_AVTAB_XPERMS))
						assert_int_equal(e[l][j].data, e[0][j].data);
					else {
						assert_int_equal(e[l][j].xperms->kind, e[0][j].xperms->kind);
						assert_int_equal(e[l][j].xperms->driver, e[0][j].xperms->driver);
						assert_memory_equal(e[l][j].xperms->perms, e[0][j].xperms->perms,
								    sizeof(e[0][j].xperms->perms));
					}
				}
			}
		}
	}
}

static void check_decisions(struct sp_policy *const *p, const struct oracle *o, int nq,
			    unsigned long long seed)
{
	int allowed_nonzero = 0;
	for (int q = 0; q < nq; q++) {
		uint32_t s, t, c;
		if (q % 2 && o->nte) {	/* rule-derived: a random allow entry, attributes -> members */
			const struct oracle_ent *r = &o->te[tp_rand(&seed) % o->nte];
			const uint32_t *mem;
			size_t nm = sp_policy_attr_types(p[0], r->s, &mem);
			s = nm ? mem[tp_rand(&seed) % nm] : r->s;
			nm = sp_policy_attr_types(p[0], r->t, &mem);
			t = nm ? mem[tp_rand(&seed) % nm] : r->t;
			c = r->c;
		} else {
			s = (uint32_t)(1 + tp_rand(&seed) % o->ntypes);
			t = (uint32_t)(1 + tp_rand(&seed) % o->ntypes);
			c = (uint32_t)(1 + tp_rand(&seed) % o->db->p_classes.nprim);
		}
		uint32_t av[3];
		oracle_decide(o, s, t, c, av);
		allowed_nonzero += av[0] != 0;
		for (int l = 0; l < 3; l++) {
			struct sp_av_decision d, r;
			assert_int_equal(sp_policy_compute_av(p[l], s, t, c, &d), 0);
			assert_int_equal(sp_policy_compute_av_ref(p[l], s, t, c, &r), 0);
			if (d.allowed != av[0] || d.auditallow != av[1] || d.auditdeny != av[2])
				print_error("layout %d (%u,%u,%u): %08x %08x %08x want %08x %08x %08x\n",
					    l, s, t, c, d.allowed, d.auditallow, d.auditdeny, av[0],
					    av[1], av[2]);
			assert_int_equal(d.allowed, av[0]);
			assert_int_equal(d.auditallow, av[1]);
			assert_int_equal(d.auditdeny, av[2]);
			assert_int_equal(r.allowed, av[0]);
			assert_int_equal(r.auditallow, av[1]);
			assert_int_equal(r.auditdeny, av[2]);
		}
	}
	if (nq >= 100)
		assert_true(allowed_nonzero >= nq / 4);
}

static void check_type_rules(struct sp_policy *const *p, const struct oracle *o)
{
	for (size_t i = 0; i < o->nte; i++) {
		const struct oracle_ent *x = &o->te[i];
		if (!(x->spec & AVTAB_TYPE))
			continue;
		for (int l = 0; l < 3; l++) {
			uint32_t out;
			assert_int_equal(sp_policy_compute_type(p[l], x->s, x->t, x->c, x->spec, NULL, &out), 0);
			assert_int_equal(out, x->data);
		}
	}
	/* conditional type rules: the enabled one wins when no unconditional rule exists */
	for (size_t i = 0; i < o->ncond; i++) {
		const struct oracle_ent *x = &o->cond[i];
		if (!(x->spec & AVTAB_TYPE) || !x->enabled)
			continue;
		size_t n;
		range(o->te, o->nte, x->s, x->t, x->c, &n);
		uint32_t out;
		for (int l = 0; l < 3; l++) {
			assert_int_equal(sp_policy_compute_type(p[l], x->s, x->t, x->c, x->spec, NULL, &out), 0);
			if (!n)
				assert_int_equal(out, x->data);
		}
	}
}

static int row_has(const uint32_t *row, uint32_t v)
{
	for (; *row; row++)
		if (*row == v)
			return 1;
	return 0;
}

/* the oracle for sp_policy_compute_xperms: a linear scan of libsepol's xperm entries (both
 * tables, enabled conditional ones), expanded through libsepol's type_attr_map */
static void oracle_xperms(const struct oracle *o, uint32_t s, uint32_t t, uint32_t c,
			  uint8_t driver, struct sp_xperms_decision *xd)
{
	memset(xd, 0, sizeof(*xd));
	xd->driver = driver;
	for (int tab = 0; tab < 2; tab++) {
		const struct oracle_ent *v = tab ? o->cond : o->te;
		size_t n = tab ? o->ncond : o->nte;
		for (size_t i = 0; i < n; i++) {
			const struct oracle_ent *e = &v[i];
			if (!(e->spec & AVTAB_XPERMS) || e->c != c || (tab && !e->enabled) ||
			    !row_has(o->attrs[s], e->s) || !row_has(o->attrs[t], e->t))
				continue;
			int all = e->xkind == AVTAB_XPERMS_IOCTLDRIVER;
			if (all ? !(e->xp[driver >> 5] >> (driver & 31) & 1)
				: (e->xkind != AVTAB_XPERMS_IOCTLFUNCTION || e->xdriver != driver))
				continue;
			uint32_t *dst = e->spec == AVTAB_XPERMS_ALLOWED ? xd->allowed
					: e->spec == AVTAB_XPERMS_AUDITALLOW ? xd->auditallow
									    : xd->dontaudit;
			xd->used |= e->spec == AVTAB_XPERMS_ALLOWED ? SP_XPERMS_USED_ALLOWED
				    : e->spec == AVTAB_XPERMS_AUDITALLOW ? SP_XPERMS_USED_AUDITALLOW
									  : SP_XPERMS_USED_DONTAUDIT;
			for (int k = 0; k < 8; k++)
				dst[k] |= all ? ~0u : e->xp[k];
		}
	}
}

/*
 * xperm decisions of every layout against the oracle: every type pair for each class and driver
 * that occurs in an xperm rule (plus driver 0 and a random class), and random queries.
 * Returns the number of queries whose decision was not empty.
 */
static size_t check_xperms(struct sp_policy *p[3], const struct oracle *o, int nrand)
{
	uint8_t drivers[256] = { 0 };
	uint8_t classes[1024] = { 0 };
	uint32_t nc = o->db->p_classes.nprim;
	drivers[0] = 1;
	for (int tab = 0; tab < 2; tab++) {
		const struct oracle_ent *v = tab ? o->cond : o->te;
		size_t n = tab ? o->ncond : o->nte;
		for (size_t i = 0; i < n; i++) {
			if (!(v[i].spec & AVTAB_XPERMS))
				continue;
			classes[v[i].c < 1024 ? v[i].c : 0] = 1;
			if (v[i].xkind == AVTAB_XPERMS_IOCTLFUNCTION)
				drivers[v[i].xdriver] = 1;
			else
				for (int d = 0; d < 256; d++)
					drivers[d] |= (uint8_t)(v[i].xp[d >> 5] >> (d & 31) & 1);
		}
	}
	unsigned long long seed = 4242;
	classes[1 + tp_rand(&seed) % nc] = 1;
	size_t nonempty = 0;
	struct sp_xperms_decision want, got;
	for (uint32_t c = 1; c <= nc && c < 1024; c++) {
		if (!classes[c])
			continue;
		for (int d = 0; d < 256; d++) {
			if (!drivers[d])
				continue;
			uint32_t step = o->ntypes > 64 ? o->ntypes / 64 : 1;
			for (uint32_t s = 1; s <= o->ntypes; s += step)
				for (uint32_t t = 1; t <= o->ntypes; t += step) {
					oracle_xperms(o, s, t, c, (uint8_t)d, &want);
					nonempty += want.used != 0;
					for (int l = 0; l < 3; l++) {
						assert_int_equal(sp_policy_compute_xperms(p[l], s, t, c,
											  (uint8_t)d, &got), 0);
						assert_memory_equal(&got, &want, sizeof(got));
					}
				}
		}
	}
	for (int i = 0; i < nrand; i++) {
		uint32_t s = (uint32_t)(1 + tp_rand(&seed) % o->ntypes);
		uint32_t t = (uint32_t)(1 + tp_rand(&seed) % o->ntypes);
		uint32_t c = (uint32_t)(1 + tp_rand(&seed) % nc);
		uint8_t d = (uint8_t)tp_rand(&seed);
		oracle_xperms(o, s, t, c, d, &want);
		for (int l = 0; l < 3; l++) {
			assert_int_equal(sp_policy_compute_xperms(p[l], s, t, c, d, &got), 0);
			assert_memory_equal(&got, &want, sizeof(got));
		}
	}
	assert_int_equal(sp_policy_compute_xperms(p[0], 0, 1, 1, 0, &got), -EINVAL);
	return nonempty;
}

static void run_policy(const char *path, int nq)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read(path, &buf, &len), 0);
	struct oracle o;
	oracle_load(&o, buf, len);
	struct sp_policy *p[3];
	for (int l = 0; l < 3; l++) {
		struct sp_policy_opts opt = { .sz = sizeof(opt), .layout = (enum sp_avtab_layout)l };
		assert_int_equal(sp_policy_read(buf, len, &opt, &p[l]), 0);
		check_entries(p[l], &o, 0);
		check_entries(p[l], &o, 1);
		assert_int_equal(sp_policy_type_count(p[l]), o.ntypes);
		for (uint32_t t = 1; t <= o.ntypes; t++) {
			const uint32_t *row;
			size_t n = sp_policy_type_attrs(p[l], t, &row), m = 0;
			while (o.attrs[t][m])
				m++;
			assert_int_equal(n, m);
			assert_memory_equal(row, o.attrs[t], n * sizeof(uint32_t));
		}
	}
	check_layouts_agree(p, &o);
	check_decisions(p, &o, nq, 7);
	check_type_rules(p, &o);
	size_t xp_nonempty = check_xperms(p, &o, 200);
	if (strstr(path, "tiny.3"))	/* tiny.conf's allowxperm/auditallowxperm/dontauditxperm */
		assert_true(xp_nonempty >= 3);

	/* flip booleans, on both sides, and decide again */
	uint32_t nb = sp_policy_bool_count(p[0]);
	if (nb) {
		uint8_t *bools = calloc(nb + 1, 1);
		for (uint32_t b = 1; b <= nb; b++)
			bools[b] = (uint8_t)sp_policy_bool_get(p[0], b);
		unsigned long long seed = 99;
		for (int round = 0; round < 3; round++) {
			for (int k = 0; k < 8; k++) {
				uint32_t b = (uint32_t)(1 + tp_rand(&seed) % nb);
				bools[b] ^= 1;
				for (int l = 0; l < 3; l++)
					assert_int_equal(sp_policy_bool_set(p[l], b, bools[b]), 0);
			}
			oracle_eval(&o, bools);
			check_decisions(p, &o, nq / 4, 1000 + (unsigned long long)round);
		}
		free(bools);
	}
	for (int l = 0; l < 3; l++)
		sp_policy_free(p[l]);
	oracle_free(&o);
	free(buf);
}

/* tiny.conf's xperm rules, by hand: a full-driver range becomes a driver rule (all 256 bits),
 * single commands function rules, attributes expand (tty_t is a dev_type) */
static void check_tiny_xperms(void)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	assert_int_equal(tp_read("tests/data/policy/tiny.33", &buf, &len), 0);
	struct sp_policy *p;
	assert_int_equal(sp_policy_read(buf, len, NULL, &p), 0);
	uint32_t app = sp_policy_type_lookup(p, "app_t"), tty = sp_policy_type_lookup(p, "tty_t");
	uint32_t unt = sp_policy_type_lookup(p, "untrusted_t");
	uint32_t chr = sp_policy_class_lookup(p, "chr_file");
	struct sp_xperms_decision x;
	assert_int_equal(sp_policy_compute_xperms(p, app, tty, chr, 0x54, &x), 0);
	assert_int_equal(x.used, SP_XPERMS_USED_ALLOWED | SP_XPERMS_USED_AUDITALLOW);
	for (int i = 0; i < 8; i++)
		assert_int_equal(x.allowed[i], ~0u);
	assert_int_equal(x.auditallow[0], 1u << 1);
	assert_int_equal(x.dontaudit[0], 0);
	assert_int_equal(sp_policy_compute_xperms(p, app, tty, chr, 0x89, &x), 0);
	assert_int_equal(x.used, SP_XPERMS_USED_ALLOWED);
	assert_int_equal(x.allowed[0x27 >> 5], 1u << (0x27 & 31));
	assert_int_equal(x.allowed[0], 0);
	assert_int_equal(sp_policy_compute_xperms(p, unt, tty, chr, 0x54, &x), 0);
	assert_int_equal(x.used, SP_XPERMS_USED_DONTAUDIT);
	assert_int_equal(x.dontaudit[0], 3u << 1);
	assert_int_equal(sp_policy_compute_xperms(p, app, tty, chr, 0x55, &x), 0);
	assert_int_equal(x.used, 0);
	sp_policy_free(p);
	free(buf);
}

static void test_policy_sepol__tiny(void **st)
{
	(void)st;
	check_tiny_xperms();
	run_policy("tests/data/policy/tiny.33", 2000);
	run_policy("tests/data/policy/tiny.30", 500);
	run_policy("tests/data/policy/compat.20", 500);
	run_policy("tests/data/policy/compat.16", 500);
}

static void test_policy_sepol__debian_base_only(void **st)
{
	(void)st;
	run_policy("data/policy/debian-base-only.policy.33.xz", 3000);
}

static void test_policy_sepol__debian_default(void **st)
{
	(void)st;
	run_policy("data/policy/debian-default.policy.33.xz", 3000);
}

static void test_policy_sepol__debian_linkexpand(void **st)
{
	(void)st;
	run_policy("data/policy/debian-default-linkexpand.policy.33.xz", 2000);
}

/* Debian's MLS policy (selinux-policy-mls as its postinst builds it): every mlsconstrain that
 * compares h1 with l2 uses the H1L2 operand, which an earlier reader took for the third context */
static void test_policy_sepol__debian_mls(void **st)
{
	(void)st;
	run_policy("data/policy/debian-mls.policy.33.xz", 2000);
}

/* The upstream test policies carried in tests/data/policy/upstream (secilc's tests, setools'
 * tests, libsepol's fuzzer seed): each read by both and compared the same way. */
static void test_policy_sepol__upstream(void **st)
{
	(void)st;
	size_t n;
	char **paths = tsupport_upstream_policies(&n);
	assert_non_null(paths);
	assert_int_equal(n, 59);
	for (size_t i = 0; i < n; i++)	/* < 100: no "a quarter allowed" check on test policies */
		run_policy(paths[i], 90);
	tsupport_paths_free(paths);
}

int main(void)
{
	sepol_debug(0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_sepol__tiny),
		cmocka_unit_test(test_policy_sepol__debian_base_only),
		cmocka_unit_test(test_policy_sepol__debian_default),
		cmocka_unit_test(test_policy_sepol__debian_linkexpand),
		cmocka_unit_test(test_policy_sepol__debian_mls),
		cmocka_unit_test(test_policy_sepol__upstream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
