/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compiler.h - compiler helpers shared by every part: branch hints, alignment arithmetic,
 * container_of, noinline/always_inline, and the SP_CONFIG_* knob defaults.
 */
#ifndef SP_BASE_COMPILER_H
#define SP_BASE_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define sp_noinline __attribute__((noinline))
#define sp_always_inline inline __attribute__((always_inline))
#define sp_unused __attribute__((unused))
#define sp_cacheline_aligned __attribute__((aligned(SP_CACHELINE)))

#define SP_CACHELINE 64
#define SP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SP_ALIGN_UP(x, a) (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define SP_ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define SP_IS_POW2(x) ((x) != 0 && ((x) & ((x) - 1)) == 0)
#define SP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SP_MAX(a, b) ((a) > (b) ? (a) : (b))

/* An options struct (libbpf's OPTS_VALID idea) that starts with `size_t sz` carries `field`
 * when the caller's struct is big enough to hold it: a caller built against an older header
 * passes a smaller sz and gets the defaults for the newer fields. */
#define SP_OPTS_HAS(o, field) \
	((o) && (o)->sz >= offsetof(__typeof__(*(o)), field) + sizeof((o)->field))

#define sp_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Compile-time knobs (config/ profiles set them; tested as plain C values, not #if). */
#ifndef SP_DEBUG
#define SP_DEBUG 0
#endif
#ifndef SP_CONFIG_PASSTHROUGH
#define SP_CONFIG_PASSTHROUGH 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SP_HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SP_HAVE_ASAN 1
#endif
#endif
#ifndef SP_HAVE_ASAN
#define SP_HAVE_ASAN 0
#endif

#endif
