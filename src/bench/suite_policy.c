/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_policy.c - the `policy` bench suite: the three secpath avtab layouts against libsepol
 * on the real Debian policy (data/policy/debian-default.policy.33.xz, or $SECPATH_POLICY).
 *
 * Variants: libsepol (baseline; dlopen("libsepol.so.2"), skipped with a message if that fails:
 * libsepol is never linked into libsecpath), chained (kernel), array (2023 patches), flat.
 * Cases (one op each):
 *   load      read the policy from memory (sepol_policydb_read / sp_policy_read);
 *   load-xz   sp_policy_read of the shipped .xz bytes as they are (liblzma in process, then
 *             the same read; libsepol reads no xz: skipped), beside load: the decompression's
 *             share of a command on the shipped file;
 *   hit       te_avtab lookup of an existing triple (any kind: mask SP_AVTAB_AV | _TYPE |
 *             _XPERMS, libsepol's AVTAB_AV | AVTAB_TYPE | AVTAB_XPERMS), triples drawn from the
 *             entries in shuffled order (fixed seed), read from a stream of 4-byte keys packed in
 *             mixed radix ((s * NT + t) * NC + c) and unpacked with two multiply-shift
 *             divisions: the stream costs 1/16 line per op, the same for every variant;
 *   miss      lookup of a uniform random absent (s,t,c), generated in the loop from the op
 *             index (a counter hash; setup picks a salt whose NKEYS keys all miss), so no key
 *             stream is read at all;
 *   decide    TE decision on rule-derived queries (a random allow rule, attributes replaced by
 *             random member types): libsepol = the kernel's literal double loop over libsepol's
 *             tables (avtab_search_node/next semantics, walked in libsepol's own nodes), secpath
 *             = sp_policy_compute_av (filtered CSR rows, the layout's tables);
 *   uniform   the same on uniform random type pairs and classes;
 *   avc       decisions through an sp_avc (512 buckets) over a working set of 256 triples,
 *             looked up once in the setup (the case measures hits).
 * libsepol's internal lookup functions are not exported by libsepol.so.2, so its lookup is the
 * avtab_search algorithm (same hash, mask, sorted chains) run over libsepol's in-memory table,
 * inline in the loop; flat searches through sp_policy_avtab_searcher (the table chosen once,
 * one indirect call per op: the bench includes public headers only), chained and array through
 * sp_policy_avtab_search (the table chosen per op, then the same indirect call).
 * Memory (heap bytes a load keeps, mallinfo2) and the index bytes per layout are measured in
 * setup and printed under the table.  The load case is not re-run under callgrind.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sepol/policydb/policydb.h>
#include <sepol/policydb/avtab.h>

#include "secpath/bench.h"
#include "secpath/policy.h"
#include "base/compiler.h"
#include "bench/suites.h"

#define NKEYS (1u << 16)
#define NQ 4096
#define NAVC 256

enum pcase { C_LOAD, C_HIT, C_MISS, C_DECIDE, C_UNIFORM, C_AVC, C_LOAD_XZ };

#define HIT_MASK (SP_AVTAB_AV | SP_AVTAB_TYPE | SP_AVTAB_XPERMS)

__extension__ typedef unsigned __int128 pol_u128;

struct pol_key {
	uint16_t s, t, c, spec;
};
struct pol_q {
	uint32_t s, t, c;
};

/* Process-wide inputs, built once: the policy bytes, key and query sets (fixed seeds). */
static struct {
	int ready, err;
	unsigned char *buf;
	size_t len;
	char *xz;			/* the file's own bytes when it is an .xz (else NULL) */
	size_t xzlen;
	uint32_t *hit;			/* packed (s * nt + t) * nc + c */
	uint32_t nt, nc;		/* hit radices (largest value + 1); miss ranges 1..nt-1 */
	uint64_t mt, mc;		/* fastdiv multipliers: 2^64 / radix, rounded up */
	uint64_t miss_salt;
	struct pol_q *dec, *uni, *avc;
	struct sp_policy *ref;		/* flat, for rows and membership */
} in;

static char context_buf[1400];
static size_t decide_bytes;
static size_t mem_bytes[5], idx_bytes[4], acct_bytes[4];	/* per variant (0 libsepol) */

struct sepol_api {
	void *h;
	int (*pf_create)(sepol_policy_file_t **);
	void (*pf_set_mem)(sepol_policy_file_t *, char *, size_t);
	void (*pf_free)(sepol_policy_file_t *);
	int (*db_create)(sepol_policydb_t **);
	void (*db_free)(sepol_policydb_t *);
	int (*db_read)(sepol_policydb_t *, sepol_policy_file_t *);
	void (*set_debug)(int);
};
static struct sepol_api sepol;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* x / d for any 32-bit x, m = UINT64_MAX / d + 1 (Lemire et al., "Faster remainder by direct
 * computation"): one 64x64->128 multiply */
static inline uint32_t fastdiv(uint32_t x, uint64_t m)
{
	return (uint32_t)(((pol_u128)m * x) >> 64);
}

/* the miss key of op i: a counter hash mapped onto 1..nt-1, 1..nt-1, 1..nc-1 (fastrange) */
static inline void miss_key(uint64_t i, uint64_t salt, uint16_t *s, uint16_t *t, uint16_t *c)
{
	uint64_t z = (i + salt) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z ^= z >> 31;
	*s = (uint16_t)(1 + (((z & 0xffffffffu) * (in.nt - 1)) >> 32));
	*t = (uint16_t)(1 + (((z >> 32) * (in.nt - 1)) >> 32));
	*c = (uint16_t)(1 + ((((z * 0x2545f4914f6cdd1dull) >> 32) * (in.nc - 1)) >> 32));
}

/* The policy bytes: the file itself, or `xz -dc` of it for a name ending in .xz. */
static int read_policy(void)
{
	const char *path = getenv("SECPATH_POLICY");
	char cmd[1200], *b = NULL;
	size_t n = 0;
	int rc;
	char dpath[600];
	if (!path) {
		if (bench_data_file("policy/debian-default.policy.33.xz", dpath, sizeof(dpath)))
			return -ENOENT;
		path = dpath;
	}
	size_t pl = strlen(path);
	if (pl > 3 && !strcmp(path + pl - 3, ".xz")) {
		snprintf(cmd, sizeof(cmd), "xz -dc '%s' 2>/dev/null", path);
		FILE *f = popen(cmd, "r");
		if (!f)
			return -errno;
		rc = sp_fd_read_all(fileno(f), &b, &n);
		if (pclose(f) && !rc) {
			free(b);
			rc = -ENOENT;
		}
		if (!rc && sp_file_read(path, &in.xz, &in.xzlen))
			in.xz = NULL;
	} else {
		rc = sp_file_read(path, &b, &n);
	}
	if (rc || !n) {
		if (!rc)
			free(b);
		return -ENOENT;
	}
	in.buf = (unsigned char *)b;
	in.len = n;
	return 0;
}

struct collect {
	struct pol_key *v;
	size_t n, cap;
};

static int collect_key(void *ud, const struct sp_avtab_entry *e)
{
	struct collect *c = ud;
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 1024;
		struct pol_key *nv = realloc(c->v, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = ncap;
	}
	c->v[c->n++] = (struct pol_key){ e->source, e->target, e->tclass,
					 (uint16_t)(e->specified & ~SP_AVTAB_ENABLED) };
	return 0;
}

static void rule_query(struct sp_policy *p, const struct pol_key *k, uint64_t *seed,
		       struct pol_q *q)
{
	const uint32_t *mem;
	size_t n = sp_policy_attr_types(p, k->s, &mem);
	q->s = n ? mem[rnd(seed) % n] : k->s;
	n = sp_policy_attr_types(p, k->t, &mem);
	q->t = n ? mem[rnd(seed) % n] : k->t;
	q->c = k->c;
}

static int prepare(void)
{
	if (in.ready)
		return in.err;
	in.ready = 1;
	if ((in.err = read_policy()))
		return in.err;
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = SP_AVTAB_FLAT };
	if ((in.err = sp_policy_read(in.buf, in.len, &o, &in.ref)))
		return in.err;
	struct collect c = { 0 };
	if ((in.err = sp_policy_avtab_foreach(in.ref, 0, collect_key, &c)))
		return in.err;
	in.hit = malloc(NKEYS * sizeof(*in.hit));
	in.dec = malloc(NQ * sizeof(*in.dec));
	in.uni = malloc(NQ * sizeof(*in.uni));
	in.avc = malloc(NAVC * sizeof(*in.avc));
	if (!in.hit || !in.dec || !in.uni || !in.avc || !c.n)
		return in.err = -ENOMEM;
	uint32_t nt = sp_policy_type_count(in.ref), nc = sp_policy_class_count(in.ref);
	in.nt = nt + 1, in.nc = nc + 1;
	if ((uint64_t)in.nt * in.nt * in.nc > (1ull << 32))
		return in.err = -ERANGE;	/* the 4-byte hit keys cannot hold this policy's triples */
	in.mt = UINT64_MAX / in.nt + 1, in.mc = UINT64_MAX / in.nc + 1;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < NKEYS; i++) {
		const struct pol_key *k = &c.v[rnd(&seed) % c.n];
		in.hit[i] = ((uint32_t)k->s * in.nt + k->t) * in.nc + k->c;
	}
	/* the first salt whose NKEYS miss keys all miss (few random triples are rules) */
	struct sp_avtab_entry e;
	for (in.miss_salt = 1;; in.miss_salt += NKEYS) {
		size_t i = 0;
		for (uint16_t ks, kt, kc; i < NKEYS; i++) {
			miss_key(i, in.miss_salt, &ks, &kt, &kc);
			if (sp_policy_avtab_lookup(in.ref, 0, ks, kt, kc, 0xffff, &e, 1))
				break;
		}
		if (i == NKEYS)
			break;
	}
	size_t na = 0;
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].spec == SP_AVTAB_ALLOWED)
			c.v[na++] = c.v[i];
	for (size_t i = 0; i < NQ; i++) {
		rule_query(in.ref, &c.v[rnd(&seed) % na], &seed, &in.dec[i]);
		in.uni[i] = (struct pol_q){ (uint32_t)(1 + rnd(&seed) % nt),
					    (uint32_t)(1 + rnd(&seed) % nt),
					    (uint32_t)(1 + rnd(&seed) % nc) };
	}
	for (size_t i = 0; i < NAVC; i++)
		in.avc[i] = i % 2 ? in.dec[i] : in.uni[i];
	free(c.v);
	return 0;
}

static int sepol_load(void)
{
	if (sepol.h)
		return 0;
	sepol.h = dlopen("libsepol.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!sepol.h)
		return -ENOENT;
	*(void **)&sepol.pf_create = dlsym(sepol.h, "sepol_policy_file_create");
	*(void **)&sepol.pf_set_mem = dlsym(sepol.h, "sepol_policy_file_set_mem");
	*(void **)&sepol.pf_free = dlsym(sepol.h, "sepol_policy_file_free");
	*(void **)&sepol.db_create = dlsym(sepol.h, "sepol_policydb_create");
	*(void **)&sepol.db_free = dlsym(sepol.h, "sepol_policydb_free");
	*(void **)&sepol.db_read = dlsym(sepol.h, "sepol_policydb_read");
	*(void **)&sepol.set_debug = dlsym(sepol.h, "sepol_debug");
	if (!sepol.pf_create || !sepol.pf_set_mem || !sepol.pf_free || !sepol.db_create ||
	    !sepol.db_free || !sepol.db_read) {
		dlclose(sepol.h);
		sepol.h = NULL;
		return -ENOENT;
	}
	if (sepol.set_debug)
		sepol.set_debug(0);
	return 0;
}

static int sepol_read(sepol_policydb_t **out)
{
	sepol_policy_file_t *pf;
	if (sepol.pf_create(&pf))
		return -ENOMEM;
	sepol.pf_set_mem(pf, (char *)in.buf, in.len);
	int rc = sepol.db_create(out) ? -ENOMEM : 0;
	if (!rc && sepol.db_read(*out, pf)) {
		sepol.db_free(*out);
		rc = -EINVAL;
	}
	sepol.pf_free(pf);
	return rc;
}

/* ---- state ---- */

struct pstate {
	enum pcase kc;
	int variant;			/* 0 libsepol, 1 + layout */
	struct sp_policy *p;
	sepol_policydb_t *sdb;
	struct sp_avc *avc;
	struct sp_avtab_searcher flat;	/* flat variant: the te table's search, chosen once */
	uint64_t i;
	uint32_t sink;
};

static void note_context(void)
{
	static const char *const names[4] = { "libsepol", "chained", "array", "flat" };
	size_t o = 0;
	o += (size_t)snprintf(context_buf + o, sizeof(context_buf) - o, "memory of one load:");
	if (mem_bytes[0])
		o += (size_t)snprintf(context_buf + o, sizeof(context_buf) - o,
				      " libsepol %.2f MB (malloc heap kept, mallinfo2);",
				      (double)mem_bytes[0] / 1e6);
	for (int v = 1; v < 4; v++)
		if (acct_bytes[v])
			o += (size_t)snprintf(context_buf + o, sizeof(context_buf) - o, " %s %.2f MB",
					      names[v], (double)acct_bytes[v] / 1e6);
	o += (size_t)snprintf(context_buf + o, sizeof(context_buf) - o,
			      " (sp_policy_info.total_bytes, incl. slab nodes)");
	o += (size_t)snprintf(context_buf + o, sizeof(context_buf) - o,
			      "; te_avtab index:");
	for (int v = 1; v < 4; v++)
		if (idx_bytes[v])
			o += (size_t)snprintf(context_buf + o, sizeof(context_buf) - o, " %s %.2f MB",
					      names[v], (double)idx_bytes[v] / 1e6);
	if (decide_bytes)
		o += (size_t)snprintf(context_buf + o, sizeof(context_buf) - o,
				      "; decision precompute (attribute CSR rows, source/target filters, "
				      "triple Bloom filter) %.2f MB, built in the load",
				      (double)decide_bytes / 1e6);
	snprintf(context_buf + o, sizeof(context_buf) - o,
		 ".  doc 7.1 (libsepol 3.4, this VM): policydb_read 13.4 ms, avtab_search hit "
		 "45.8 ns / miss 49.0 ns, kernel-style decision 3.37 us (rule-derived), 1.34 us "
		 "(uniform).  Targets for flat: load >= 2x, hit/miss >= 4x, decide >= 7x vs "
		 "libsepol; te_avtab < 1.5 MB.  Decisions are TE-only (no constraints/MLS).");
}

static int setup(const void *param, void **state, int variant)
{
	int rc = prepare();
	if (rc)
		return rc;
	if (variant == 0 && (rc = sepol_load()))
		return rc;
	enum pcase kc = (enum pcase)(uintptr_t)param;
	if (kc == C_LOAD_XZ && (variant == 0 || !in.xz))
		return -ENOTSUP;	/* libsepol reads no xz; a plain $SECPATH_POLICY has none */
	struct pstate *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->kc = (enum pcase)(uintptr_t)param;
	s->variant = variant;
	size_t before = mallinfo2().uordblks;
	if (variant == 0) {
		if (s->kc == C_AVC) {
			free(s);
			return -ENOTSUP;
		}
		rc = sepol_read(&s->sdb);
	} else {
		struct sp_policy_opts o = { .sz = sizeof(o),
					    .layout = (enum sp_avtab_layout)(variant - 1) };
		rc = sp_policy_read(in.buf, in.len, &o, &s->p);
		if (!rc) {
			struct sp_policy_info pi;
			sp_policy_get_info(s->p, &pi);
			idx_bytes[variant] = pi.te_bytes;
			if (variant == 1 + SP_AVTAB_FLAT)
				sp_policy_avtab_searcher(s->p, 0, &s->flat);
			acct_bytes[variant] = pi.total_bytes;
			decide_bytes = pi.decide_bytes;
		}
	}
	if (rc) {
		free(s);
		return rc;
	}
	size_t after = mallinfo2().uordblks;
	if (after > before)
		mem_bytes[variant] = after - before;
	note_context();
	if (s->kc == C_AVC) {
		sp_avc_reader_register();	/* nests: the harness runs on one thread */
		struct sp_avc_opts ao = { .sz = sizeof(ao) };
		if ((rc = sp_avc_create(s->p, &ao, &s->avc))) {
			sp_avc_reader_unregister();
			sp_policy_free(s->p);
			free(s);
			return rc;
		}
		s->p = NULL;
		/* the working set cached before the measurement: the case is a hit's cost */
		struct sp_av_decision d;
		for (size_t i = 0; i < NAVC; i++)
			sp_avc_lookup(s->avc, in.avc[i].s, in.avc[i].t, in.avc[i].c, &d);
	}
	*state = s;
	return 0;
}

static int setup_sepol(const void *p, void **st) { return setup(p, st, 0); }
static int setup_chained(const void *p, void **st) { return setup(p, st, 1); }
static int setup_array(const void *p, void **st) { return setup(p, st, 2); }
static int setup_flat(const void *p, void **st) { return setup(p, st, 3); }

static void teardown(void *state)
{
	struct pstate *s = state;
	if (s->avc) {
		sp_avc_free(s->avc);
		sp_avc_reader_unregister();
	}
	sp_policy_free(s->p);
	if (s->sdb)
		sepol.db_free(s->sdb);
	free(s);
}

/* ---- libsepol side: avtab_search_node / _next over libsepol's own table ---- */

static inline avtab_ptr_t sepol_first(avtab_t *h, uint16_t s, uint16_t t, uint16_t c,
				      uint16_t spec)
{
	if (!h->htable)
		return NULL;
	for (avtab_ptr_t cur = h->htable[sp_avtab_hash(s, t, c) & h->mask]; cur;
	     cur = cur->next) {
		if (s == cur->key.source_type && t == cur->key.target_type &&
		    c == cur->key.target_class && (spec & cur->key.specified))
			return cur;
		if (s < cur->key.source_type)
			break;
		if (s == cur->key.source_type && t < cur->key.target_type)
			break;
		if (s == cur->key.source_type && t == cur->key.target_type &&
		    c < cur->key.target_class)
			break;
	}
	return NULL;
}

static inline avtab_ptr_t sepol_next(avtab_ptr_t n, uint16_t spec)
{
	for (avtab_ptr_t cur = n->next; cur; cur = cur->next) {
		if (n->key.source_type == cur->key.source_type &&
		    n->key.target_type == cur->key.target_type &&
		    n->key.target_class == cur->key.target_class && (spec & cur->key.specified))
			return cur;
		if (n->key.source_type < cur->key.source_type)
			break;
		if (n->key.source_type == cur->key.source_type &&
		    n->key.target_type < cur->key.target_type)
			break;
		if (n->key.source_type == cur->key.source_type &&
		    n->key.target_type == cur->key.target_type &&
		    n->key.target_class < cur->key.target_class)
			break;
	}
	return NULL;
}

static uint32_t sepol_decide(policydb_t *db, const struct pol_q *q)
{
	uint32_t allowed = 0, audit = 0, deny = 0xffffffffu;
	const uint32_t *si, *ti;
	size_t ns = sp_policy_type_attrs(in.ref, q->s, &si);
	size_t nt = sp_policy_type_attrs(in.ref, q->t, &ti);
	for (size_t a = 0; a < ns; a++)
		for (size_t b = 0; b < nt; b++)
			for (int tab = 0; tab < 2; tab++) {
				avtab_t *h = tab ? &db->te_cond_avtab : &db->te_avtab;
				for (avtab_ptr_t n = sepol_first(h, (uint16_t)si[a], (uint16_t)ti[b],
								 (uint16_t)q->c, AVTAB_AV);
				     n; n = sepol_next(n, AVTAB_AV)) {
					if (tab && !(n->key.specified & AVTAB_ENABLED))
						continue;
					if (n->key.specified & AVTAB_ALLOWED)
						allowed |= n->datum.data;
					else if (n->key.specified & AVTAB_AUDITALLOW)
						audit |= n->datum.data;
					else if (n->key.specified & AVTAB_AUDITDENY)
						deny &= n->datum.data;
				}
			}
	return allowed ^ audit ^ deny;
}

/* The avc case's own loop (the switch of run() is not in the measured cost): a lookup, a load
 * of the next triple and an add per op, the triples walked by pointer from where the last run
 * stopped, in passes up to the ring's end. */
static sp_noinline void avc_run(struct pstate *s, uint64_t n)
{
	uint32_t sink = 0;
	struct sp_av_decision d;
	struct sp_avc *avc = s->avc;
	const struct pol_q *qs = in.avc;	/* a local: the call could change the global */
	const struct pol_q *q = qs + s->i % NAVC, *end = qs + NAVC;
	for (uint64_t left = n; left;) {
		uint64_t k = left < (uint64_t)(end - q) ? left : (uint64_t)(end - q);
		for (const struct pol_q *stop = q + k; q < stop; q++) {
			sp_avc_lookup(avc, q->s, q->t, q->c, &d);
			sink += d.allowed;
		}
		left -= k;
		if (q == end)
			q = qs;
	}
	s->i += n;
	s->sink += sink;
	__asm__ volatile("" : : "r"(s->sink) : "memory");
}

/* A load op: the variant's policy freed and read again from buf, in its layout.  0 or -errno
 * (the run then stops: the harness sees the state's policy gone). */
static int reload(struct pstate *s, const void *buf, size_t len)
{
	struct sp_policy_info pi;
	sp_policy_get_info(s->p, &pi);
	sp_policy_free(s->p);
	s->p = NULL;
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = pi.layout };
	return sp_policy_read(buf, len, &o, &s->p);
}

static sp_noinline void run(void *state, uint64_t n)
{
	struct pstate *s = state;
	uint32_t sink = 0;
	struct sp_av_decision d;
	if (s->kc == C_AVC) {
		avc_run(s, n);
		return;
	}
	for (uint64_t k = 0; k < n; k++, s->i++) {
		switch (s->kc) {
		case C_LOAD:
			if (s->sdb) {
				sepol.db_free(s->sdb);
				s->sdb = NULL;
				if (sepol_read(&s->sdb))
					return;
			} else if (reload(s, in.buf, in.len)) {
				return;
			}
			break;
		case C_LOAD_XZ:
			if (reload(s, in.xz, in.xzlen))
				return;
			break;
		case C_HIT:
		case C_MISS: {
			uint16_t ks, kt, kc, mask = HIT_MASK;
			if (s->kc == C_HIT) {
				uint32_t x = in.hit[s->i & (NKEYS - 1)], q = fastdiv(x, in.mc);
				kc = (uint16_t)(x - q * in.nc);
				ks = (uint16_t)fastdiv(q, in.mt);
				kt = (uint16_t)(q - ks * in.nt);
			} else {
				miss_key(s->i & (NKEYS - 1), in.miss_salt, &ks, &kt, &kc);
				mask = SP_AVTAB_ALLOWED;
			}
			if (s->sdb) {
				avtab_ptr_t nd = sepol_first(&s->sdb->p.te_avtab, ks, kt, kc, mask);
				sink += nd ? nd->datum.data : 1;
			} else {
				uint32_t dv = 1;
				if (s->flat.search)
					s->flat.search(s->flat.tab, ks, kt, kc, mask, &dv);
				else
					sp_policy_avtab_search(s->p, 0, ks, kt, kc, mask, &dv);
				sink += dv;
			}
			break;
		}
		case C_DECIDE:
		case C_UNIFORM: {
			const struct pol_q *q = &(s->kc == C_DECIDE ? in.dec : in.uni)[s->i % NQ];
			if (s->sdb) {
				sink += sepol_decide(&s->sdb->p, q);
			} else {
				sp_policy_compute_av(s->p, q->s, q->t, q->c, &d);
				sink += d.allowed ^ d.auditdeny;
			}
			break;
		}
		case C_AVC:	/* avc_run */
			break;
		}
	}
	s->sink += sink;
	__asm__ volatile("" : : "r"(s->sink) : "memory");
}

static const struct sp_bench_case cases[] = {
	{ "load", (const void *)(uintptr_t)C_LOAD, 0 },
	{ "load-xz", (const void *)(uintptr_t)C_LOAD_XZ, 0 },
	{ "hit", (const void *)(uintptr_t)C_HIT, 0 },
	{ "miss", (const void *)(uintptr_t)C_MISS, 0 },
	{ "decide", (const void *)(uintptr_t)C_DECIDE, 0 },
	{ "uniform", (const void *)(uintptr_t)C_UNIFORM, 0 },
	{ "avc", (const void *)(uintptr_t)C_AVC, 0 },
};

static const struct sp_bench_variant variants[] = {
	{ "libsepol", setup_sepol, run, teardown },
	{ "chained", setup_chained, run, teardown },
	{ "array", setup_array, run, teardown },
	{ "flat", setup_flat, run, teardown },
};

const struct sp_bench_suite bench_suite_policy = {
	.name = "policy",
	.desc = "SELinux avtab on debian-default: load, lookups hit/miss, TE decisions, AVC; "
		"libsepol (dlopen) vs chained / array / flat",
	.unit = "op",
	.cases = cases,
	.ncases = SP_ARRAY_SIZE(cases),
	.variants = variants,
	.nvariants = SP_ARRAY_SIZE(variants),
	.context = context_buf,
};
