/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slab_fast.h - the inline alloc/free fast paths of secpath's slab caches and what they are built
 * from: free pointer encoding, object <-> slab mapping, the exact-division object index, state
 * bytes, and the per-thread array accessors (x86-64 %fs asm, or plain C elsewhere).  The layout
 * they rely on (arena, slab, object, thread arrays, lock order) is described in slab_types.h.
 * Included by the slab files and by the malloc shim (src/malloc/), which inlines the same paths.
 */
#ifndef SP_SLAB_FAST_H
#define SP_SLAB_FAST_H

#include <string.h>

#include "base/assert.h"
#include "base/track.h"
#include "slab/slab_types.h"

/* ---- free pointers ------------------------------------------------------------------------ */

#if SP_HAVE_ASAN
#define slab_nosan __attribute__((no_sanitize_address, noinline))
#else
#define slab_nosan sp_always_inline
#endif

/*
 * Raw access to allocator-owned bytes that are poisoned (free objects, red zones): ASan builds
 * skip instrumentation (slab_nosan); valgrind builds (SP_WITH_VALGRIND) open the bytes around the
 * access and make them inaccessible again.  Only for bytes that are inaccessible to the caller.
 */
#if !SP_HAVE_ASAN && defined(SP_WITH_VALGRIND)
#define slab_raw_open(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#define slab_raw_close(p, n) VALGRIND_MAKE_MEM_NOACCESS((p), (n))
#else
#define slab_raw_open(p, n) ((void)(p), (void)(n))
#define slab_raw_close(p, n) ((void)(p), (void)(n))
#endif

/* The free pointer word lives in a freed (poisoned) object. */
static slab_nosan uintptr_t slab_word_load(uintptr_t addr)
{
	slab_raw_open((void *)addr, sizeof(uintptr_t));
	uintptr_t v = *(const uintptr_t *)addr;
	slab_raw_close((void *)addr, sizeof(uintptr_t));
	return v;
}

static slab_nosan void slab_word_store(uintptr_t addr, uintptr_t v)
{
	slab_raw_open((void *)addr, sizeof(uintptr_t));
	*(uintptr_t *)addr = v;
	slab_raw_close((void *)addr, sizeof(uintptr_t));
}

static sp_always_inline uintptr_t slab_fp_get(const struct sp_slab_cache *c, uintptr_t obj)
{
	uintptr_t slot = obj + c->offset;
	return slab_word_load(slot) ^ c->random ^ __builtin_bswap64(slot);
}

static sp_always_inline void slab_fp_set(const struct sp_slab_cache *c, uintptr_t obj,
					 uintptr_t next)
{
	uintptr_t slot = obj + c->offset;
	slab_word_store(slot, next ^ c->random ^ __builtin_bswap64(slot));
}

/* ---- object <-> slab ---------------------------------------------------------------------- */

static sp_always_inline struct slab *slab_of(const struct sp_slab_cache *c, uintptr_t obj)
{
	return (struct slab *)(obj & c->slab_mask);
}

static sp_always_inline int slab_in_arena(uintptr_t p)
{
	return p - slab_arena_base < slab_arena_size;
}

/* A thread array entry: an arena object whose state is anything but ALLOC (the asserts'). */
static inline int slab_tc_entry_ok(uintptr_t obj, const uint8_t *st)
{
	return slab_in_arena(obj) && __atomic_load_n(st, __ATOMIC_RELAXED) != SLAB_ST_ALLOC;
}

/*
 * Object index of slab offset off, or >= objs_per_slab if off is not an object start below span:
 * ror(off * div_inv, div_shift) (Granlund-Montgomery exact division, Hacker's Delight 10-17).
 * With stride = d << k (d odd) and inv = d^-1 mod 2^64, j * stride maps to j for every j below
 * 2^(64-k); multiplying by an odd number and rotating are both bijections of 64-bit words, so no
 * other off (a misaligned one, one past span, or a "negative" one) maps below objs_per_slab.
 * One multiply, one rotate and one compare check the boundary and the range at once.
 */
static sp_always_inline uint64_t slab_obj_index(const struct sp_slab_cache *c, uint64_t off)
{
	uint64_t y = off * c->div_inv;
	unsigned k = c->div_shift;
	return (y >> k) | (y << (-k & 63));
}

static sp_always_inline unsigned slab_state_get(const struct slab *s, uint32_t i)
{
	return __atomic_load_n(&s->state[i], __ATOMIC_RELAXED);
}

/*
 * *st != v, a relaxed atomic load and compare.  x86-64 (non-ASan) builds compare straight from
 * memory (cmpb + jcc through an asm flag output), which gcc does not do for an atomic load.
 */
static sp_always_inline int slab_state_ne(const uint8_t *st, unsigned v)
{
#if defined(__x86_64__) && !SP_HAVE_ASAN && defined(__GCC_ASM_FLAG_OUTPUTS__)
	int ne;
	__asm__("cmpb %2, %1" : "=@ccne"(ne) : "m"(*st), "i"(v));
	return ne;
#else
	return __atomic_load_n(st, __ATOMIC_RELAXED) != v;
#endif
}

static sp_always_inline void slab_state_set(struct slab *s, uint32_t i, unsigned v)
{
	__atomic_store_n(&s->state[i], (uint8_t)v, __ATOMIC_RELAXED);
}

static sp_always_inline struct slab_tc *slab_tc_of(const struct sp_slab_cache *c)
{
	return (struct slab_tc *)((char *)slab_tls + c->tc_off);
}

/*
 * The fast paths reach their TLS slot as %fs:tls_off (x86-64 static TLS, the same offset in every
 * thread): no thread pointer load, no address computation.  ISO C has no named address spaces,
 * so these are volatile asm accesses (stores clobber memory: the slow paths read the slot
 * through its generic address).  A fast path loads its slot reference (slab_tcr) once and
 * passes it on, so the entry stores in between do not force a reload of c->tls_off.
 * Elsewhere, plain accesses through slab_tc_of().
 */
#if defined(__x86_64__) && !SP_HAVE_ASAN
#define SLAB_TC_SEG 1
typedef uintptr_t slab_tcref_t;		/* %fs offset of the slot */

static sp_always_inline slab_tcref_t slab_tcr(const struct sp_slab_cache *c)
{
	return c->tls_off;
}

static sp_always_inline uint64_t slab_tcf_get(slab_tcref_t r, unsigned field)
{
	uint64_t v;
	(void)field;
	if (field == 0)
		__asm__ volatile("movq %%fs:(%1), %0" : "=r"(v) : "r"(r));
	else
		__asm__ volatile("movq %%fs:8(%1), %0" : "=r"(v) : "r"(r));
	return v;
}

static sp_always_inline void slab_tcf_set_gc(slab_tcref_t r, uint64_t v)
{
	__asm__ volatile("movq %0, %%fs:(%1)" : : "r"(v), "r"(r) : "memory");
}

/* gc = v and frees++ in one asm. */
static sp_always_inline void slab_tcf_set_gc_count(slab_tcref_t r, uint64_t v)
{
	__asm__ volatile("movq %0, %%fs:(%1)\n\taddq $1, %%fs:16(%1)"
			 : : "r"(v), "r"(r) : "memory");
}

/*
 * Entry v of an array (objs[] and sts[] at ent_b + 8 * v and SLAB_TC_STS further): both accesses
 * in one base + index * 8 addressing mode each, where gcc would spend an lea on the shared address.
 */
static sp_always_inline void slab_tc_ent_get(uintptr_t ent_b, uint64_t v, uintptr_t *obj,
					     uint8_t **st)
{
	/* st first (early clobber), obj last: obj may reuse v's register (the return register) */
	__asm__ volatile("movq %c4(%2,%3,8), %1\n\tmovq (%2,%3,8), %0"
			 : "=r"(*obj), "=&r"(*st)
			 : "r"(ent_b), "r"(v), "i"(SLAB_TC_STS)
			 : "memory");
}

static sp_always_inline void slab_tc_ent_set(uintptr_t ent_b, uint64_t v, uintptr_t obj,
					     uint8_t *st)
{
	__asm__ volatile("movq %0, (%2,%3,8)\n\tmovq %1, %c4(%2,%3,8)"
			 : : "r"(obj), "r"(st), "r"(ent_b), "r"(v), "i"(SLAB_TC_STS)
			 : "memory");
}
#else
#define SLAB_TC_SEG 0
typedef struct slab_tc *slab_tcref_t;

static sp_always_inline slab_tcref_t slab_tcr(const struct sp_slab_cache *c)
{
	return slab_tc_of(c);
}

static sp_always_inline uint64_t slab_tcf_get(slab_tcref_t tc, unsigned field)
{
	return field == 0 ? tc->gc : tc->ent_b;
}

static sp_always_inline void slab_tcf_set_gc(slab_tcref_t tc, uint64_t v) { tc->gc = v; }

static sp_always_inline void slab_tcf_set_gc_count(slab_tcref_t tc, uint64_t v)
{
	tc->gc = v;
	tc->frees++;
}
#endif
#define SLAB_TCF_GC 0
#define SLAB_TCF_ENT 1

static sp_always_inline uintptr_t *slab_tc_objp(uintptr_t ent_b, uint64_t v)
{
	return (uintptr_t *)(ent_b + v * sizeof(uintptr_t));
}

static sp_always_inline uint8_t **slab_tc_stp(uintptr_t ent_b, uint64_t v)
{
	return (uint8_t **)(ent_b + v * sizeof(uintptr_t) + SLAB_TC_STS);
}

#if !SLAB_TC_SEG
static sp_always_inline void slab_tc_ent_get(uintptr_t ent_b, uint64_t v, uintptr_t *obj,
					     uint8_t **st)
{
	*obj = *slab_tc_objp(ent_b, v);
	*st = *slab_tc_stp(ent_b, v);
}

static sp_always_inline void slab_tc_ent_set(uintptr_t ent_b, uint64_t v, uintptr_t obj,
					     uint8_t *st)
{
	*slab_tc_objp(ent_b, v) = obj;
	*slab_tc_stp(ent_b, v) = st;
}
#endif

static inline uint64_t slab_tc_gen(const struct slab_tc *tc)
{
	return tc->gc >> SLAB_TC_GEN_SHIFT;
}

/* Objects on a valid array of c. */
static inline uint32_t slab_tc_count(const struct sp_slab_cache *c, const struct slab_tc *tc)
{
	return (uint32_t)(tc->gc & ((1u << SLAB_TC_GEN_SHIFT) - 1)) - c->tc_bias;
}

/* objs[0] of a valid array of c (sts[0] is SLAB_TC_MAX words further). */
static inline uintptr_t *slab_tc_objs(const struct sp_slab_cache *c, const struct slab_tc *tc)
{
	return slab_tc_objp(tc->ent_b, c->gc_base + c->tc_bias);
}

static inline uint8_t **slab_tc_sts(const struct sp_slab_cache *c, const struct slab_tc *tc)
{
	return (uint8_t **)(slab_tc_objs(c, tc) + SLAB_TC_MAX);
}

static sp_always_inline unsigned slab_policy_get(void)
{
	return __atomic_load_n(&slab_policy, __ATOMIC_RELAXED);
}

/*
 * Make an object being handed out accessible.  Valgrind builds also keep bytes that mean
 * something defined: a constructed object, or one zeroed by init_on_free.
 */
static sp_always_inline void slab_track_alloc(const struct sp_slab_cache *c, uintptr_t obj,
					      unsigned st)
{
#if defined(SP_WITH_VALGRIND) && !SP_HAVE_ASAN
	/* FRESH slots are zero too (new or MADV_DONTNEED pages; zalloc skips its memset for them)
	 * unless POISON filled them. */
	if (c->ctor || st == SLAB_ST_FREE_ZERO ||
	    (st == SLAB_ST_FRESH && !(c->flags & SP_SLAB_POISON))) {
		sp_track_defined((void *)obj, c->object_size);
		return;
	}
#endif
	(void)st;
	sp_track_unpoison((void *)obj, c->object_size);
}

/* A slot in state st is zero in full (a never-used slot, or one init_on_free cleared): a zeroing
 * allocation stores nothing. */
static sp_always_inline int slab_st_known_zero(unsigned st)
{
	return st == SLAB_ST_FRESH || st == SLAB_ST_FREE_ZERO;
}

/* ---- fast paths --------------------------------------------------------------------------- */

/*
 * Allocate: pop the thread array.  One compare checks generation, "not empty" and "no hooks or
 * zeroing" (gc_alloc_fast); the entry was validated when it was pushed (free) or refilled (under
 * the lock), so the pop only marks the state byte.  zalloc (calloc) pops the same way and
 * zeroes unless the slot is known zero (FRESH, FREE_ZERO); ctor caches take the hooked path.
 * On their fast branch both paths are straight-line code (no call, lock or atomic
 * read-modify-write), so their cost is their instruction count: every check added here is paid
 * on every object (docs/DESIGN.md has the counts and the experiments behind this shape).
 */
static sp_always_inline void *slab_alloc_fast(struct sp_slab_cache *c, int zero)
{
	if (SP_CONFIG_PASSTHROUGH)
		return slab_passthrough_alloc(c, zero);
	slab_tcref_t r = slab_tcr(c);
	uint64_t v = slab_tcf_get(r, SLAB_TCF_GC);
	if (unlikely(v < c->gc_alloc_fast || (zero && c->ctor)))
		return slab_alloc_slow(c, zero);
	v--;
	uintptr_t ent_b = slab_tcf_get(r, SLAB_TCF_ENT);
	uintptr_t obj;
	uint8_t *st;
	slab_tcf_set_gc(r, v);
	slab_tc_ent_get(ent_b, v, &obj, &st);
	/* never ALLOC in an array: what makes free's one state compare catch every double free */
	SP_ASSERT_INTERNAL(slab_tc_entry_ok(obj, st));
	if (zero) {	/* zalloc / calloc: no memset for a slot known to be zero */
		unsigned old = __atomic_load_n(st, __ATOMIC_RELAXED);
		slab_track_alloc(c, obj, old);
		__atomic_store_n(st, (uint8_t)SLAB_ST_ALLOC, __ATOMIC_RELAXED);
		if (!slab_st_known_zero(old))
			memset((void *)obj, 0, c->object_size);
		return (void *)obj;
	}
#if defined(SP_WITH_VALGRIND) && !SP_HAVE_ASAN
	slab_track_alloc(c, obj, *st);
#else
	slab_track_alloc(c, obj, SLAB_ST_FREE);
#endif
	__atomic_store_n(st, (uint8_t)SLAB_ST_ALLOC, __ATOMIC_RELAXED);
	return (void *)obj;
}

static sp_always_inline void slab_free_push(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st);

/*
 * Free: validate (owner, object boundary and range by one multiply and rotate, allocated state),
 * mark the state, push the thread array.  The arena is aligned to its size, so
 * (obj & slab_amask) | arena_base is a slab header for any obj, in the arena or not, and always
 * safe to read: a pointer outside the arena cannot be an object start of that in-arena slab, so
 * the owner and boundary checks also do the arena range check (slab_free_other diagnoses; NULL
 * returns there).  ASan builds keep the explicit range check: the mapped header could sit in a
 * poisoned object.
 * Caches with free hooks have objs_fast 0, so the range check sends them to the cold branch:
 * init_on_free alone goes to slab_free_zero (a tail call: inlined, its memsets would make the
 * fast path save registers on every plain free), anything else to slab_free_other.
 */
static sp_always_inline void slab_free_fast(struct sp_slab_cache *c, void *p)
{
	if (SP_CONFIG_PASSTHROUGH) {
		slab_passthrough_free(c, p);
		return;
	}
	uintptr_t obj = (uintptr_t)p;
	if (SP_HAVE_ASAN && unlikely(!slab_in_arena(obj))) {
		slab_bad_free(c, p);		/* NULL returns from there */
		return;
	}
	struct slab *s = (struct slab *)((obj & c->slab_amask) | c->arena_base);
	uint64_t i = slab_obj_index(c, obj - s->objs);
	if (unlikely(s->cache != c || i >= c->objs_fast)) {
		if (s->cache == c && i < c->objs_per_slab && c->hot_free == SLAB_INIT_FREE)
			slab_free_zero(c, obj, &s->state[i]);
		else
			slab_free_other(c, p);
		return;
	}
	uint8_t *st = &s->state[i];
	if (unlikely(slab_state_ne(st, SLAB_ST_ALLOC))) {
		slab_bad_free(c, p);
		return;
	}
	__atomic_store_n(st, (uint8_t)SLAB_ST_FREE, __ATOMIC_RELAXED);
	slab_free_push(c, obj, st);
}

/*
 * Zero n bytes at p: from 16 to 128 bytes by 16-byte stores that may overlap (constant-size
 * memsets compile to single stores; any n in that range is covered), no call; others by
 * memset.  For the out-of-line init paths (slab_free_zero, slab_alloc_slow): inlined into a fast
 * path, its stores would make it save registers.
 */
static inline void slab_zero(uintptr_t p, size_t n)
{
	if (n > 128 || n < 16) {
		memset((void *)p, 0, n);
		return;
	}
	memset((void *)p, 0, 16);
	memset((void *)(p + n - 16), 0, 16);
	if (n > 32) {
		memset((void *)(p + 16), 0, 16);
		memset((void *)(p + n - 32), 0, 16);
		if (n > 64) {
			memset((void *)(p + 32), 0, 16);	/* 32 would be a rep stos */
			memset((void *)(p + 48), 0, 16);
			memset((void *)(p + n - 64), 0, 16);
			memset((void *)(p + n - 48), 0, 16);
		}
	}
}

/* An object without alloc hooks being handed out (its state byte already set, old its previous
 * value): track it and, when clear (calloc or init_on_alloc), zero it unless it is known zero (a
 * never-used slot, or one init_on_free cleared: calloc and kzalloc pay nothing then). */
static inline void *slab_alloc_clear(const struct sp_slab_cache *c, uintptr_t obj, unsigned old,
				     int clear)
{
	slab_track_alloc(c, obj, old);
	if (clear && !slab_st_known_zero(old))
		slab_zero(obj, c->object_size);
	return (void *)obj;
}

/* Push a validated free object (its state already set) on the thread array. */
static sp_always_inline void slab_free_push(struct sp_slab_cache *c, uintptr_t obj, uint8_t *st)
{
	slab_tcref_t r = slab_tcr(c);
	uint64_t v = slab_tcf_get(r, SLAB_TCF_GC);
	if (unlikely(v < c->gc_base || (v & SLAB_TC_MAX))) {	/* stale, or full */
		slab_free_slow(c, obj, st);
		return;
	}
	SP_ASSERT_INTERNAL(__atomic_load_n(st, __ATOMIC_RELAXED) != SLAB_ST_ALLOC);
	if (!(c->flags & SP_SLAB_TYPESAFE_BY_RCU))	/* RCU readers may still look (as KASAN) */
		sp_track_poison((void *)obj, c->object_size);
	uintptr_t ent_b = slab_tcf_get(r, SLAB_TCF_ENT);
	slab_tc_ent_set(ent_b, v, obj, st);
	slab_tcf_set_gc_count(r, v + 1);
}

#endif
