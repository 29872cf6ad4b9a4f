/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_slab.c - the `slab` bench suite: alloc+free ns per pair, secpath caches against glibc.
 *
 * Cases: object size 64 / 256 / 1024 / 4096 B x pattern
 *   hot      allocate, write one word, free the same object (it stays in L1): the fast path;
 *   batch64  allocate 64 objects, write one word each, free them in the same order (a queue).
 * Variants (one table, ratios to glibc):
 *   glibc         malloc/free (baseline);
 *   mimalloc      Debian's libmimalloc.so.2, mi_malloc/mi_free;
 *   jemalloc      Debian's libjemalloc.so.2, its malloc/free (Debian builds it unprefixed);
 *   init-off      a secpath cache, init_on_alloc=0 init_on_free=0;
 *   alloc-init    init_on_alloc=1 (a memset of the object per allocation);
 *   free-init     init_on_free=1 (a memset per free);
 *   both-init     init_on_alloc=1 init_on_free=1 (both memsets: the hardened configuration);
 *   both-optout   init_on_alloc=1 init_on_free=1, cache created NO_INIT_ON_ALLOC|NO_INIT_ON_FREE
 *                 (the per-cache opt-out must bring the cost back to init-off).
 * mimalloc and jemalloc are loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND) and called through
 * dlsym from their own handle, so neither replaces the process malloc; DEEPBIND binds their own
 * PLT calls of malloc/free (both libraries have them) to themselves, not to glibc's.  All three
 * are called through function pointers, alike.  A library that does not load is skipped with
 * dlerror()'s message: jemalloc's initial-exec TLS is larger than glibc's default surplus for
 * dlopen'd libraries, so it loads only under GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384
 * (read by ld.so at start; docs/DESIGN.md).
 * The init policy is process-wide (the kernel's boot parameters): each run() sets it before its
 * loop and restores it after, so the interleaved variants never see each other's policy.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "secpath/bench.h"
#include "secpath/slab.h"
#include "base/compiler.h"
#include "bench/suites.h"

#define BATCH 64
#define MIMALLOC_SO "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2"
#define JEMALLOC_SO "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"

struct slab_param {
	size_t size;
	int batch;			/* 0: hot, else objects in flight */
};

struct slab_state {
	const struct slab_param *p;
	struct sp_slab_cache *cache;	/* NULL for glibc */
	int init_alloc, init_free;
	void *(*malloc_fn)(size_t size);	/* glibc, mimalloc or jemalloc variants */
	void (*free_fn)(void *p);
	void *obj[BATCH];
};

/* Libraries loaded for the mimalloc / jemalloc variants (kept open for the process). */
struct ext_lib {
	const char *path, *malloc_name, *free_name;
	void *h;
	int tried;
};

static struct ext_lib ext_mimalloc = { MIMALLOC_SO, "mi_malloc", "mi_free", NULL, 0 };
static struct ext_lib ext_jemalloc = { JEMALLOC_SO, "malloc", "free", NULL, 0 };

/* Keep the compiler from pairing away (or hoisting) malloc/free around p. */
static sp_always_inline void use(void *p, uint64_t i)
{
	*(volatile uint64_t *)p = i;
	__asm__ volatile("" : : "r"(p) : "memory");
}

static int setup_common(const void *param, void **state, int cache, unsigned flags, int ia,
			int ifree)
{
	struct slab_state *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->p = param;
	s->init_alloc = ia;
	s->init_free = ifree;
	if (cache) {
		int rc = sp_slab_cache_create("bench-slab", s->p->size, 0, flags, NULL, &s->cache);
		if (rc) {
			free(s);
			return rc;
		}
	}
	*state = s;
	return 0;
}

static int setup_glibc(const void *p, void **st)
{
	int rc = setup_common(p, st, 0, 0, 0, 0);
	if (!rc) {
		struct slab_state *s = *st;
		s->malloc_fn = malloc;
		s->free_fn = free;
	}
	return rc;
}

/* dlopen the library once; -ENOENT when it is missing, -ELIBACC (after dlerror's message once)
 * when it does not load, -ENOTSUP under ASan. */
static int ext_setup(struct ext_lib *l, const void *p, void **st)
{
	if (SP_HAVE_ASAN)
		return -ENOTSUP;	/* the ASan runtime refuses RTLD_DEEPBIND, and owns malloc */
	if (!l->tried) {
		l->tried = 1;
		l->h = dlopen(l->path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
		if (!l->h)
			fprintf(stderr, "bench slab: %s\n", dlerror());
	}
	if (!l->h)
		return access(l->path, R_OK) ? -ENOENT : -ELIBACC;
	void *(*m)(size_t);
	void (*f)(void *);
	*(void **)&m = dlsym(l->h, l->malloc_name);
	*(void **)&f = dlsym(l->h, l->free_name);
	if (!m || !f)
		return -ENOENT;
	int rc = setup_common(p, st, 0, 0, 0, 0);
	if (!rc) {
		struct slab_state *s = *st;
		s->malloc_fn = m;
		s->free_fn = f;
	}
	return rc;
}

static int setup_mi(const void *p, void **st) { return ext_setup(&ext_mimalloc, p, st); }
static int setup_je(const void *p, void **st) { return ext_setup(&ext_jemalloc, p, st); }
static int setup_off(const void *p, void **st) { return setup_common(p, st, 1, 0, 0, 0); }
static int setup_alloc(const void *p, void **st) { return setup_common(p, st, 1, 0, 1, 0); }
static int setup_free(const void *p, void **st) { return setup_common(p, st, 1, 0, 0, 1); }
static int setup_both(const void *p, void **st) { return setup_common(p, st, 1, 0, 1, 1); }
static int setup_optout(const void *p, void **st)
{
	return setup_common(p, st, 1, SP_SLAB_NO_INIT_ON_ALLOC | SP_SLAB_NO_INIT_ON_FREE, 1, 1);
}

static sp_noinline void run_libc(void *state, uint64_t n)
{
	struct slab_state *s = state;
	size_t size = s->p->size;
	void *(*const m)(size_t) = s->malloc_fn;
	void (*const f)(void *) = s->free_fn;
	if (!s->p->batch) {
		for (uint64_t i = 0; i < n; i++) {
			void *p = m(size);
			use(p, i);
			f(p);
		}
		return;
	}
	for (uint64_t i = 0; i < n; i += BATCH) {
		unsigned mm = n - i < BATCH ? (unsigned)(n - i) : BATCH;	/* exactly n pairs */
		for (unsigned k = 0; k < mm; k++) {
			s->obj[k] = m(size);
			use(s->obj[k], i);
		}
		for (unsigned k = 0; k < mm; k++)
			f(s->obj[k]);
	}
}

static sp_noinline void run_cache(void *state, uint64_t n)
{
	struct slab_state *s = state;
	struct sp_slab_cache *c = s->cache;
	int old_a = sp_slab_init_on_alloc(), old_f = sp_slab_init_on_free();

	sp_slab_set_init_on_alloc(s->init_alloc);
	sp_slab_set_init_on_free(s->init_free);
	if (!s->p->batch) {
		for (uint64_t i = 0; i < n; i++) {
			void *p = sp_slab_cache_alloc(c);
			use(p, i);
			sp_slab_cache_free(c, p);
		}
	} else {
		for (uint64_t i = 0; i < n; i += BATCH) {
			unsigned m = n - i < BATCH ? (unsigned)(n - i) : BATCH;
			for (unsigned k = 0; k < m; k++) {
				s->obj[k] = sp_slab_cache_alloc(c);
				use(s->obj[k], i);
			}
			for (unsigned k = 0; k < m; k++)
				sp_slab_cache_free(c, s->obj[k]);
		}
	}
	sp_slab_set_init_on_alloc(old_a);
	sp_slab_set_init_on_free(old_f);
}

static void teardown(void *state)
{
	struct slab_state *s = state;
	if (s->cache)
		sp_slab_cache_destroy(s->cache);
	free(s);
}

static const struct slab_param p64 = { 64, 0 }, p256 = { 256, 0 }, p1k = { 1024, 0 },
				p4k = { 4096, 0 }, b64 = { 64, BATCH }, b256 = { 256, BATCH },
				b1k = { 1024, BATCH }, b4k = { 4096, BATCH };

static const struct sp_bench_case cases[] = {
	{ "hot-64", &p64, 0 },
	{ "hot-256", &p256, 0 },
	{ "hot-1024", &p1k, 0 },
	{ "hot-4096", &p4k, 0 },
	{ "batch64-64", &b64, SP_BENCH_CASE_FULL_ONLY },
	{ "batch64-256", &b256, SP_BENCH_CASE_FULL_ONLY },
	{ "batch64-1024", &b1k, SP_BENCH_CASE_FULL_ONLY },
	{ "batch64-4096", &b4k, SP_BENCH_CASE_FULL_ONLY },
};

static const struct sp_bench_variant variants[] = {
	{ "glibc", setup_glibc, run_libc, teardown },
	{ "init-off", setup_off, run_cache, teardown },
	{ "alloc-init", setup_alloc, run_cache, teardown },
	{ "free-init", setup_free, run_cache, teardown },
	{ "both-init", setup_both, run_cache, teardown },
	{ "both-optout", setup_optout, run_cache, teardown },
	{ "mimalloc", setup_mi, run_libc, teardown },
	{ "jemalloc", setup_je, run_libc, teardown },
};

/* The context's per-op figures (the zeroing cost depends on the size: prose only). */
static const struct sp_bench_ref refs[] = {
	{ "hot-*", SP_BENCH_REF_NS, 0, 0.5, "doc 3d: a bare LIFO pop+push" },
	{ "batch64-*", SP_BENCH_REF_NS, 0, 1.6, "doc 3d: a bare LIFO pop+push, batch64" },
	{ NULL, 0, 0, 0, NULL },
};

const struct sp_bench_suite bench_suite_slab = {
	.name = "slab",
	.desc = "alloc+free of one object (hot) or 64 in flight (batch64): secpath caches vs glibc, "
		"mimalloc and jemalloc",
	.unit = "alloc+free",
	.cases = cases,
	.ncases = SP_ARRAY_SIZE(cases),
	.variants = variants,
	.nvariants = SP_ARRAY_SIZE(variants),
	.context = "targets (issue: slab ahead of mimalloc hardened), as ratios in the same run: "
		   "init-off at or below mimalloc on hot-64 and batch64 with the checks on; "
		   "both-init (init_on_alloc + init_on_free) within 1.3x of mimalloc; batch64-4096 "
		   "within 2x of mimalloc; both-optout must match init-off.  doc 3d: a bare LIFO "
		   "pop+push is 0.5 ns (1.6 ns batch64), zeroing adds ~0.8 ns + S/210 B/ns from L1 "
		   "(~4.7 ns/KiB) per memset",
	.refs = refs,
};
