/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * assert.h - graded assertions (mimalloc style) and the fail-closed fatal path.
 *
 * SP_ASSERT runs when SP_DEBUG >= 1, SP_ASSERT_INTERNAL at >= 2, SP_ASSERT_EXPENSIVE at >= 3.
 * sp_fatal() is for detected corruption: it writes "secpath: <msg>\n" to stderr with write(2)
 * (no stdio, no allocation) and aborts.  Crash tests match that exact line.
 */
#ifndef SP_BASE_ASSERT_H
#define SP_BASE_ASSERT_H

#include "compiler.h"

__attribute__((noreturn, cold)) void sp_fatal(const char *msg);
__attribute__((noreturn, cold)) void sp_assert_fail(const char *expr, const char *file, int line);

#define SP_ASSERT_AT(level, e)                                                                     \
	do {                                                                                       \
		if (SP_DEBUG >= (level) && unlikely(!(e)))                                         \
			sp_assert_fail(#e, __FILE__, __LINE__);                                    \
	} while (0)
#define SP_ASSERT(e) SP_ASSERT_AT(1, e)
#define SP_ASSERT_INTERNAL(e) SP_ASSERT_AT(2, e)
#define SP_ASSERT_EXPENSIVE(e) SP_ASSERT_AT(3, e)

/* Defensive checks that should never fire (sqlite ALWAYS/NEVER). */
#define SP_ALWAYS(x) (likely(x))
#define SP_NEVER(x) (unlikely(x))

#endif
