/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * flat.h - the hot path of the flat avtab's compact form (policy_int.h: struct flatc_bucket),
 * inline for avtab.c's iterator and its compact search (and the tests that check the form): key
 * packing, the multiply-shift home, the SSE2 line match, and the search of the home line.  The
 * rare rest (the key's overflow-filter bit is set and the home line has no match) is
 * policy_flatc_search_far() in avtab.c.
 *
 * Invariants (avtab.c builds them): every stored key is >= nt * nc (s >= 1), 0 marks an empty
 * slot; an entry not in its home line sets its home's `ovf` bit policy_flatc_fbit(h), so a
 * lookup whose bit is clear is complete after the home line.
 */
#ifndef SP_POLICY_FLAT_H
#define SP_POLICY_FLAT_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "policy/policy_int.h"

/* kind code (4 bits per slot in meta) -> SP_AVTAB_* kind bit; code 0 = none */
extern const uint16_t policy_flat_code_spec[16];

/*
 * The packed key of (s, t, c), or 0 when a value lies outside the table's ranges.  Either way no
 * entry can match wrongly: stored keys have s >= 1, so they are >= nt * nc, while s == 0 gives a
 * key below that (0 itself, the empty-slot marker, only for (0, 0, 0), which callers reject).
 */
/* The mixed-radix packing of (s, tt, c) (radices nt and nc; the caller checks the ranges). */
static inline uint32_t policy_flatc_pack(uint32_t s, uint32_t tt, uint32_t c, uint32_t nt,
					 uint32_t nc)
{
	return (s * nt + tt) * nc + c;
}

static inline uint32_t policy_flatc_key(const struct sp_avtab *t, uint16_t s, uint16_t tt,
					uint16_t c)
{
	/* each difference has bit 31 set iff the value is below its radix (values < 2^16) */
	if (unlikely(!((((uint32_t)s - t->u.fl.ns) & ((uint32_t)tt - t->u.fl.nt) &
			((uint32_t)c - t->u.fl.nc)) >> 31)))
		return 0;
	return policy_flatc_pack(s, tt, c, t->u.fl.nt, t->u.fl.nc);
}

static inline uint64_t policy_flatc_mix(uint32_t k)
{
	return (uint64_t)k * 0x9e3779b97f4a7c15ull;
}

/* home bucket: fastrange of the product's upper half */
static inline uint32_t policy_flatc_home(const struct sp_avtab *t, uint64_t h)
{
	return (uint32_t)(((h >> 32) * t->nslot) >> 32);
}

/* overflow-filter bit: the top five bits of the product's lower half */
static inline uint32_t policy_flatc_fbit(uint64_t h)
{
	return 1u << ((uint32_t)h >> 27);
}

/* Lanes of bk holding key k: two 16-byte compares over key[0..7] (lane 7 is data[0], masked). */
static inline unsigned policy_flatc_match(const struct flatc_bucket *bk, uint32_t k)
{
#if defined(__SSE2__)
	__m128i q = _mm_set1_epi32((int)k);
	__m128i lo = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(const void *)bk->key), q);
	__m128i hi = _mm_cmpeq_epi32(_mm_load_si128((const __m128i *)(const void *)&bk->key[4]), q);
	unsigned m = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(lo)) |
		     (unsigned)_mm_movemask_ps(_mm_castsi128_ps(hi)) << 4;
	return m & 0x7f;
#else
	unsigned bits = 0;
	for (unsigned j = 0; j < FLATC_SLOTS; j++)
		bits |= (unsigned)(bk->key[j] == k) << j;
	return bits;
#endif
}

static inline unsigned policy_flatc_kind(uint32_t meta, unsigned j)
{
	return (meta >> (4 * j)) & 15;
}

/* the search past the home line (filter bit set, no match at home): avtab.c */
int policy_flatc_search_far(const struct sp_avtab *t, uint32_t k, uint32_t mask,
			    uint32_t *data);

/*
 * avtab_search on a compact table (mask without SP_AVTAB_ENABLED): 1 and *data for the first
 * entry of (s, tt, c) whose kind intersects mask, else 0.  Hit or miss, the home line is the only
 * line read unless the key's filter bit is set.
 */
static inline int policy_flatc_search(const struct sp_avtab *t, uint16_t s, uint16_t tt,
				      uint16_t c, uint16_t mask, uint32_t *data)
{
	uint32_t k = policy_flatc_key(t, s, tt, c);
	if (unlikely(!k))
		return 0;
	uint64_t h = policy_flatc_mix(k);
	const struct flatc_bucket *bk = &t->u.fl.cb[policy_flatc_home(t, h)];
	for (unsigned m = policy_flatc_match(bk, k); m; m &= m - 1) {
		unsigned j = (unsigned)__builtin_ctz(m);
		if (policy_flat_code_spec[policy_flatc_kind(bk->meta, j)] & mask) {
			*data = bk->data[j];
			return 1;
		}
	}
	if (likely(!(bk->ovf & policy_flatc_fbit(h))))
		return 0;
	return policy_flatc_search_far(t, k, mask, data);
}

#endif
