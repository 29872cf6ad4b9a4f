/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_record.h - a compact binary format for recorded audit event streams (docs/RECORD.md).
 *
 * A stream is an 16-byte header ("SPAUDRC1" magic, version, flags) followed by one
 * length-prefixed little-endian frame per struct sp_audit_event: every filter input of the event
 * model (kind, arch/syscall/args, return value, pids, credentials, groups, loginuid/session,
 * personality, exe identity, subject context, sockaddr family, msgtype, openat2 flags, auditd
 * flag, and the collected names with identity, path, rdev, mode, owner, object context, fs magic
 * and walked inodes).  Reading a frame back into an event gives the same decisions from both
 * engines as the event that was written (tests/unit/test_audit_record.c checks this).
 *
 * Writers buffer (64 KiB) and write(2) to a caller-owned fd; readers parse a caller-owned
 * buffer in place (mmap or a read file) and never read outside [buf, buf + len).
 */
#ifndef SECPATH_AUDIT_RECORD_H
#define SECPATH_AUDIT_RECORD_H

#include "secpath.h"
#include "audit_filter.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_AUDIT_RECORD_MAGIC	"SPAUDRC1"	/* first 8 bytes of a stream */
#define SP_AUDIT_RECORD_MAGIC_LEN 8u
#define SP_AUDIT_RECORD_VERSION	1u
#define SP_AUDIT_RECORD_HDR_SIZE 16u		/* magic, u32 version, u32 flags */
#define SP_AUDIT_RECORD_FRAME_MAX (1u << 24)	/* largest accepted frame (16 MiB) */

struct sp_audit_record_writer;

/* A writer on fd (not closed by the writer); writes the stream header.  Returns 0, -EINVAL,
 * -ENOMEM, or -errno of write(2). */
SP_API int sp_audit_record_writer_new(int fd, struct sp_audit_record_writer **out);
/* Append one event.  Returns 0, -E2BIG (frame over SP_AUDIT_RECORD_FRAME_MAX), -ENOMEM, or
 * -errno of write(2) (the writer stays usable; the event is not written). */
SP_API int sp_audit_record_write(struct sp_audit_record_writer *w, const struct sp_audit_event *ev);
/* Flush and free the writer (also on error).  Returns 0 or -errno of write(2). */
SP_API int sp_audit_record_writer_finish(struct sp_audit_record_writer *w);

struct sp_audit_record_reader;

/* A reader over buf (borrowed: must outlive the reader).  Returns 0, -EINVAL (bad magic,
 * unknown version or flags, short header), -ENOMEM. */
SP_API int sp_audit_record_reader_new(const void *buf, size_t len,
				      struct sp_audit_record_reader **out);
/*
 * Read the next event into ev (reset first; its allocations are reused).  Returns 1 = event
 * read, 0 = end of stream, or -errno with a byte-offset diagnostic in d (may be NULL):
 * -EINVAL (malformed frame), -ENOMEM.  After an error the reader stays at the bad frame and
 * every later call returns the same error.
 */
SP_API int sp_audit_record_read(struct sp_audit_record_reader *r, struct sp_audit_event *ev,
				struct sp_diags *d);
/* Byte offset of the next frame. */
SP_API size_t sp_audit_record_reader_offset(const struct sp_audit_record_reader *r);
SP_API void sp_audit_record_reader_free(struct sp_audit_record_reader *r);
/* 1 if buf starts with the stream magic. */
SP_API int sp_audit_record_is_stream(const void *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
