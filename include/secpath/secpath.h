/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * secpath.h - umbrella header: version, export macro, allocator injection, positioned diagnostics.
 *
 * Conventions for every public header:
 *  - public symbols are sp_*, macros/enums SP_*; exported functions carry SP_API;
 *  - functions return 0 or a negative errno; constructors return the object through an out-parameter;
 *  - no global state: every entry point takes its context; only const tables are process-wide;
 *  - a NULL `const struct sp_allocator *` means libc.
 */
#ifndef SECPATH_SECPATH_H
#define SECPATH_SECPATH_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_VERSION_MAJOR 0
#define SP_VERSION_MINOR 1
#define SP_VERSION_PATCH 0
#define SP_VERSION_STRING "0.1.0"

#if defined(SECPATH_BUILDING) && defined(__GNUC__)
#define SP_API __attribute__((visibility("default")))
#else
#define SP_API
#endif

/* Library version string ("0.1.0"). */
SP_API const char *sp_version(void);

/*
 * Allocator injection (sqlite3_mem_methods with a sized free).  alloc returns memory aligned to
 * at least `align` (a power of two, 0 meaning alignof(max_align_t)), or NULL.
 */
struct sp_allocator {
	void *(*alloc)(void *ud, size_t size, size_t align);
	void (*free)(void *ud, void *p, size_t size);
	void *ud;
};

/* The libc allocator (aligned_alloc/free). */
SP_API const struct sp_allocator *sp_allocator_libc(void);
/* Allocate/free through `a` (NULL = libc).  sp_zalloc zeroes. */
SP_API void *sp_alloc(const struct sp_allocator *a, size_t size, size_t align);
SP_API void *sp_zalloc(const struct sp_allocator *a, size_t size, size_t align);
SP_API void sp_free(const struct sp_allocator *a, void *p, size_t size);

/*
 * A region: an allocator for one job that builds tables, keeps most of them and ends (a
 * command).  Its memory is one mapping of up to `reserve` bytes (reserved, not committed),
 * advised for transparent huge pages and carved in address order; a freed block is reused when
 * it is the last carved or is 64 KiB or more, and memory goes back to the system only with
 * sp_region_free, which ends every block.  Past the reservation blocks come from libc.  One
 * thread at a time.
 */
struct sp_region;
struct sp_region_stats {
	size_t reserved;	/* the mapping's usable bytes (0: none could be made) */
	size_t carved;		/* bytes below the bump pointer now */
	size_t peak;		/* the most ever below it */
	size_t reused;		/* bytes of big blocks served again from freed ones */
	size_t wasted;		/* bytes of small blocks freed below the top, not reused */
	size_t libc;		/* blocks that came from libc */
};
SP_API int sp_region_new(size_t reserve, struct sp_region **out);
SP_API const struct sp_allocator *sp_region_allocator(struct sp_region *r);
/* Block p of r (NULL: a new one) as one of size bytes: grown or shrunk in place when it is the
 * last carved (nothing copied), else moved with its bytes.  NULL, p untouched, when out of
 * memory.  A region per growing array keeps every growth in place. */
SP_API void *sp_region_resize(struct sp_region *r, void *p, size_t size);
SP_API void sp_region_get_stats(const struct sp_region *r, struct sp_region_stats *out);
SP_API void sp_region_free(struct sp_region *r);

/*
 * Diagnostics with positions.  Text inputs use file:line:col[-end_col]; binary inputs use a byte
 * offset (line == 0, has_offset != 0).  Messages are lowercase, without a full stop (git style).
 */
enum sp_severity { SP_SEV_NOTE = 0, SP_SEV_WARNING = 1, SP_SEV_ERROR = 2 };

#define SP_DIAG_MSG_MAX 256

struct sp_diag {
	const char *file;		/* borrowed; may be NULL */
	uint32_t line;			/* 1-based; 0 = not a text position */
	uint32_t col;			/* 1-based; 0 = whole line */
	uint32_t end_col;		/* inclusive; 0 = same as col */
	uint64_t offset;		/* byte offset into a binary input */
	int has_offset;
	enum sp_severity severity;
	int code;			/* negative errno classifying the problem */
	char msg[SP_DIAG_MSG_MAX];
};

struct sp_diags {
	struct sp_diag *v;
	size_t n, cap;
	size_t limit;			/* stop recording after this many (0 = 100) */
	size_t nerrors, nwarnings;
	size_t dropped;			/* diagnostics past the limit (counted, not stored) */
	const struct sp_allocator *alloc;
};

SP_API void sp_diags_init(struct sp_diags *d, const struct sp_allocator *a);
SP_API void sp_diags_release(struct sp_diags *d);
SP_API void sp_diags_clear(struct sp_diags *d);
/* Record a text-positioned diagnostic (nothing when d is NULL).  Returns 0, or -ENOMEM. */
SP_API int sp_diags_add(struct sp_diags *d, enum sp_severity sev, int code, const char *file,
			uint32_t line, uint32_t col, uint32_t end_col, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
/* Record a byte-offset diagnostic for binary input. */
SP_API int sp_diags_add_offset(struct sp_diags *d, enum sp_severity sev, int code, const char *file,
			       uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/*
 * Format one diagnostic as "file:line:col-end: error: msg\n" (or "file:+0x1a4: error: msg\n"),
 * and if `source_line` is given (its first line is used), that line and a caret underline
 * below it, each ending in '\n': the text is complete lines, to be printed as it is (no newline
 * to add).  Returns the length that was needed (snprintf semantics: a result >= len was cut).
 */
SP_API int sp_diag_format(const struct sp_diag *dg, const char *source_line, char *buf, size_t len);

/* A message for a secpath return code (a negative errno): "No such file or directory" for
 * -ENOENT.  The text is static and thread-safe; an unknown code gives "Unknown error". */
SP_API const char *sp_strerror(int err);

/* ---- files ---- */

/* Read all of `path` ("-" = standard input) into a malloc'd buffer, NUL-terminated at (*buf)[*len];
 * free() it.  Returns 0, -EISDIR, -ENOMEM or the -errno of open/read (the buffer is not set). */
SP_API int sp_file_read(const char *path, char **buf, size_t *len);
/* The same for an open descriptor, read to its end. */
SP_API int sp_fd_read_all(int fd, char **buf, size_t *len);
/* The same through allocator a (NULL: libc), *size the block's bytes for sp_free(a, *buf, *size). */
SP_API int sp_fd_read_all_alloc(int fd, const struct sp_allocator *a, char **buf, size_t *size,
				size_t *len);
/* Write all n bytes (retrying short writes and EINTR).  Returns 0 or -errno. */
SP_API int sp_fd_write_all(int fd, const void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
