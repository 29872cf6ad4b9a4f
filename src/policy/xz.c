/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xz.c - an xz-compressed policy decompressed in process, through liblzma's stream decoder.
 *
 * Invariants: the whole compressed input is in memory, so a decoder that stops short of the end
 * of its last stream is truncated input, never a want of more; concatenated streams and stream
 * padding are accepted as xz -dc accepts them; the output never exceeds POLICY_XZ_MAX bytes and
 * the decoder's memory POLICY_XZ_MEMLIMIT (xz -9 needs 65 MiB).  A failure is reported once, at
 * the byte offset of the compressed input where the decoder stopped, in xz(1)'s words.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_int.h"

#define POLICY_XZ_MAX ((size_t)1 << 30)
#define POLICY_XZ_MEMLIMIT ((uint64_t)1 << 30)

static const uint8_t xz_magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

int policy_xz_is(const void *buf, size_t len)
{
	return len >= sizeof(xz_magic) && !memcmp(buf, xz_magic, sizeof(xz_magic));
}

/* The errno and xz(1)'s message for a decoder's failure. */
static int xz_error(lzma_ret r, const char **msg)
{
	switch (r) {
	case LZMA_MEM_ERROR:
		*msg = "out of memory";
		return -ENOMEM;
	case LZMA_MEMLIMIT_ERROR:
		*msg = "memory usage limit reached";
		return -ENOMEM;
	case LZMA_FORMAT_ERROR:
		*msg = "file format not recognized";
		return -EINVAL;
	case LZMA_OPTIONS_ERROR:
		*msg = "unsupported options";
		return -ENOTSUP;
	case LZMA_BUF_ERROR:
		*msg = "unexpected end of input";
		return -EINVAL;
	default:
		*msg = "compressed data is corrupt";
		return -EINVAL;
	}
}

/* Room for more output: the buffer doubled, up to POLICY_XZ_MAX. */
static int xz_grow(uint8_t **buf, size_t *cap)
{
	if (*cap >= POLICY_XZ_MAX)
		return -EFBIG;
	size_t n = *cap * 2 > POLICY_XZ_MAX ? POLICY_XZ_MAX : *cap * 2;
	uint8_t *nb = realloc(*buf, n);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = n;
	return 0;
}

/* Decode while output is produced; the decoder's last status, or a negative errno of growth. */
static int xz_run(lzma_stream *s, uint8_t **buf, size_t *cap, size_t *len, lzma_ret *last)
{
	for (;;) {
		if (*len == *cap) {
			int rc = xz_grow(buf, cap);
			if (rc)
				return rc;
		}
		s->next_out = *buf + *len;
		s->avail_out = *cap - *len;
		lzma_ret r = lzma_code(s, LZMA_FINISH);
		*len = *cap - s->avail_out;
		if (r != LZMA_OK) {
			*last = r;
			return 0;
		}
	}
}

int policy_xz_decode(const void *in, size_t n, struct sp_diags *d, const char *file,
		     uint8_t **out, size_t *outlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = lzma_stream_decoder(&s, POLICY_XZ_MEMLIMIT, LZMA_CONCATENATED);
	if (r != LZMA_OK)
		return r == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	size_t cap = n < 4096 ? 16384 : (n > POLICY_XZ_MAX / 8 ? POLICY_XZ_MAX : n * 8), len = 0;
	uint8_t *buf = malloc(cap);
	int rc = buf ? 0 : -ENOMEM;
	s.next_in = in;
	s.avail_in = n;
	const char *msg = "out of memory";
	if (!rc && !(rc = xz_run(&s, &buf, &cap, &len, &r)) && r != LZMA_STREAM_END)
		rc = xz_error(r, &msg);
	else if (rc == -EFBIG)
		msg = "decompressed policy larger than 1 GiB";
	if (rc) {
		if (d)
			sp_diags_add_offset(d, SP_SEV_ERROR, rc, file, (size_t)s.total_in, "xz: %s",
					    msg);
		free(buf);
	} else {
		*out = buf;
		*outlen = len;
	}
	lzma_end(&s);
	return rc;
}
