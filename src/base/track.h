/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * track.h - one set of macros that tell ASan or Valgrind (memcheck) which allocator-owned bytes
 * are accessible (mimalloc's track.h idea).  All are no-ops in plain builds.
 *
 *   sp_track_poison(p, n)    bytes become inaccessible (freed slot, red zone)
 *   sp_track_unpoison(p, n)  bytes become accessible and undefined (allocated slot)
 *   sp_track_defined(p, n)   bytes become accessible and defined (zeroed slot)
 */
#ifndef SP_BASE_TRACK_H
#define SP_BASE_TRACK_H

#include "compiler.h"

#if SP_HAVE_ASAN
#include <sanitizer/asan_interface.h>
#define sp_track_poison(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define sp_track_unpoison(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#define sp_track_defined(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#elif defined(SP_WITH_VALGRIND)
#include <valgrind/memcheck.h>
#define sp_track_poison(p, n) VALGRIND_MAKE_MEM_NOACCESS((p), (n))
#define sp_track_unpoison(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define sp_track_defined(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#else
#define sp_track_poison(p, n) ((void)(p), (void)(n))
#define sp_track_unpoison(p, n) ((void)(p), (void)(n))
#define sp_track_defined(p, n) ((void)(p), (void)(n))
#endif

#endif
