/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * record.c - the recorded event stream format (docs/RECORD.md): writer and bounded reader.
 *
 * Stream: "SPAUDRC1" u32 version u32 flags, then frames.  Frame: u32 body length, then the body
 * (all integers little-endian, no padding):
 *   u8 kind, u8 flags (REC_F_*), u16 nnames, u16 ngroups, u16 sctx_len,
 *   u32 arch, i32 major, u64 args[4], i64 return_code,
 *   u32 pid tid ppid uid euid suid fsuid gid egid sgid fsgid loginuid sessionid personality
 *       msgtype,
 *   i32 saddr_fam, u32 exe_dev, u64 exe_ino, u64 openat2_flags          (140 bytes)
 *   u32 groups[ngroups], sctx text[sctx_len],
 *   per name: u64 ino, u32 dev rdev mode uid gid fs_magic, u16 nflags (bit 0 path, bit 1 octx,
 *             bits 2-4 the name's type), u16 path_len,
 *             u16 octx_len, u16 nwalk, path[path_len], octx[octx_len], {u64 ino, u32 dev}[nwalk]
 *   with REC_F_TASK (sp_audit_event_set_task_creds: the task list's view): u32 pid, uid euid
 *       suid fsuid, gid egid sgid fsgid, loginuid, sessionid, ngroups, groups[ngroups]
 * Contexts are stored as canonical text ("u:r:t:sL[:cats]-sH[:cats]") re-parsed on read.
 *
 * Invariants: the reader never touches bytes outside [buf, buf + len); a frame must be consumed
 * exactly (trailing bytes are an error); every error names the frame's byte offset.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/filter/filter_int.h"
#include "secpath/audit_record.h"

#define REC_FIXED 140u
#define REC_NAME_FIXED 40u
#define REC_F_RETURN 0x1u
#define REC_F_EXE 0x2u
#define REC_F_AUDITD 0x4u
#define REC_F_SCTX 0x8u
#define REC_F_TASK 0x10u
#define REC_F_ALL 0x1fu
#define REC_TASK_FIXED 48u
#define REC_N_PATH 0x1u
#define REC_N_OCTX 0x2u
#define REC_N_TYPE_SHIFT 2	/* bits 2-4: the name's type (SP_AUDIT_NAME_*, 0 before they were kept) */
#define REC_N_TYPE_MASK (7u << REC_N_TYPE_SHIFT)
#define REC_CTX_MAX 4096u
#define WBUF_SIZE (64u * 1024u)

/* ---- little-endian helpers ---- */

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* ---- context text ---- */

static size_t fmt_level(char *b, size_t cap, const struct lsm_level *l)
{
	size_t n = (size_t)snprintf(b, cap, "s%u", l->sens);
	int first = 1;
	for (uint32_t c = 0; c < LSM_CAT_WORDS * 64 && n < cap; c++) {
		if (!(l->cats[c / 64] >> (c % 64) & 1))
			continue;
		uint32_t e = c;
		while (e + 1 < LSM_CAT_WORDS * 64 && (l->cats[(e + 1) / 64] >> ((e + 1) % 64) & 1))
			e++;
		if (e == c)
			n += (size_t)snprintf(b + n, cap - n, "%sc%u", first ? ":" : ",", c);
		else
			n += (size_t)snprintf(b + n, cap - n, "%sc%u.c%u", first ? ":" : ",", c, e);
		first = 0;
		c = e;
	}
	return n;
}

/* Canonical text of c into b; returns its length, or >= cap when it does not fit. */
static size_t fmt_ctx(char *b, size_t cap, const struct lsm_ctx *c)
{
	size_t n = (size_t)snprintf(b, cap, "%s:%s:%s:", c->user, c->role, c->type);
	if (n >= cap)
		return cap;
	n += fmt_level(b + n, cap - n, &c->low);
	if (n + 1 >= cap)
		return cap;
	b[n++] = '-';
	n += fmt_level(b + n, cap - n, &c->high);
	return n;
}

/* ---- writer ---- */

struct sp_audit_record_writer {
	int fd;
	int err;		/* sticky write error */
	size_t used;
	uint8_t *frame;		/* scratch for one frame */
	size_t frame_cap;
	uint8_t buf[WBUF_SIZE];
};

static int wflush(struct sp_audit_record_writer *w)
{
	int err = sp_fd_write_all(w->fd, w->buf, w->used);
	w->used = 0;
	return err;
}

SP_API int sp_audit_record_writer_new(int fd, struct sp_audit_record_writer **out)
{
	struct sp_audit_record_writer *w;
	if (fd < 0 || !out)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	memcpy(w->buf, SP_AUDIT_RECORD_MAGIC, SP_AUDIT_RECORD_MAGIC_LEN);
	put32(w->buf + 8, SP_AUDIT_RECORD_VERSION);
	put32(w->buf + 12, 0);
	w->used = SP_AUDIT_RECORD_HDR_SIZE;
	*out = w;
	return 0;
}

static int frame_reserve(struct sp_audit_record_writer *w, size_t need)
{
	if (need <= w->frame_cap)
		return 0;
	size_t cap = w->frame_cap ? w->frame_cap : 1024;
	while (cap < need)
		cap *= 2;
	uint8_t *f = realloc(w->frame, cap);
	if (!f)
		return -ENOMEM;
	w->frame = f;
	w->frame_cap = cap;
	return 0;
}

/* Upper bound of one frame's size (contexts bounded by REC_CTX_MAX). */
static size_t frame_bound(const struct sp_audit_event *ev)
{
	size_t n = 4 + REC_FIXED + 4ull * ev->ngroups + REC_CTX_MAX;
	for (uint32_t i = 0; i < ev->nnames; i++) {
		const struct audit_name *nm = &ev->names[i];
		n += REC_NAME_FIXED + (nm->path ? strlen(nm->path) : 0) + REC_CTX_MAX +
		     12ull * nm->nwalk;
	}
	if (ev->has_tcred)
		n += REC_TASK_FIXED + 4ull * ev->t_ngroups;
	return n;
}

SP_API int sp_audit_record_write(struct sp_audit_record_writer *w, const struct sp_audit_event *ev)
{
	size_t bound, n, len;
	uint8_t *p;
	int err;
	if (!w || !ev)
		return -EINVAL;
	if (ev->ngroups > UINT16_MAX || (ev->has_tcred && ev->t_ngroups > UINT16_MAX))
		return -E2BIG;
	bound = frame_bound(ev);
	err = frame_reserve(w, bound);
	if (err)
		return err;
	p = w->frame;
	n = 4 + REC_FIXED;
	len = 0;
	if (ev->has_sctx) {
		len = fmt_ctx((char *)p + n + 4ull * ev->ngroups, REC_CTX_MAX, &ev->sctx);
		if (len >= REC_CTX_MAX)
			return -E2BIG;
	}
	p[4] = (uint8_t)ev->kind;
	p[5] = (uint8_t)((ev->return_valid != RET_INVALID ? REC_F_RETURN : 0) |
			 (ev->has_exe ? REC_F_EXE : 0) | (ev->is_auditd ? REC_F_AUDITD : 0) |
			 (ev->has_sctx ? REC_F_SCTX : 0) | (ev->has_tcred ? REC_F_TASK : 0));
	put16(p + 6, (uint16_t)ev->nnames);
	put16(p + 8, (uint16_t)ev->ngroups);
	put16(p + 10, (uint16_t)len);
	put32(p + 12, ev->arch);
	put32(p + 16, (uint32_t)ev->major);
	for (int i = 0; i < 4; i++)
		put64(p + 20 + 8 * i, ev->argv[i]);
	put64(p + 52, (uint64_t)ev->return_code);
	const uint32_t ids[15] = {
		ev->pid, ev->tid, ev->ppid, ev->uid, ev->euid, ev->suid, ev->fsuid, ev->gid, ev->egid,
		ev->sgid, ev->fsgid, ev->loginuid, ev->sessionid, ev->personality, ev->msgtype,
	};
	for (int i = 0; i < 15; i++)
		put32(p + 60 + 4 * i, ids[i]);
	put32(p + 120, (uint32_t)ev->saddr_fam);
	put32(p + 124, ev->exe_dev);
	put64(p + 128, ev->exe_ino);
	put64(p + 136, ev->openat2_flags);
	for (uint32_t i = 0; i < ev->ngroups; i++)
		put32(p + n + 4 * i, ev->groups[i]);
	n += 4ull * ev->ngroups + len;
	for (uint32_t i = 0; i < ev->nnames; i++) {
		const struct audit_name *nm = &ev->names[i];
		size_t plen = nm->path ? strlen(nm->path) : 0, olen = 0;
		uint8_t *q = p + n;
		if (plen > UINT16_MAX)
			return -E2BIG;
		if (nm->has_octx) {
			olen = fmt_ctx((char *)q + REC_NAME_FIXED + plen, REC_CTX_MAX, &nm->octx);
			if (olen >= REC_CTX_MAX)
				return -E2BIG;
		}
		put64(q, nm->ino);
		put32(q + 8, nm->dev);
		put32(q + 12, nm->rdev);
		put32(q + 16, nm->mode);
		put32(q + 20, nm->uid);
		put32(q + 24, nm->gid);
		put32(q + 28, nm->fs_magic);
		put16(q + 32,
		      (uint16_t)((nm->path ? REC_N_PATH : 0) | (nm->has_octx ? REC_N_OCTX : 0) |
				 ((uint32_t)nm->nametype << REC_N_TYPE_SHIFT)));
		put16(q + 34, (uint16_t)plen);
		put16(q + 36, (uint16_t)olen);
		put16(q + 38, nm->nwalk);
		if (plen)
			memcpy(q + REC_NAME_FIXED, nm->path, plen);
		q += REC_NAME_FIXED + plen + olen;
		for (uint32_t k = 0; k < nm->nwalk; k++, q += 12) {
			put64(q, nm->walk[k].ino);
			put32(q + 8, nm->walk[k].dev);
		}
		n = (size_t)(q - p);
	}
	if (ev->has_tcred) {
		const uint32_t t[12] = {
			ev->t_pid, ev->t_uid, ev->t_euid, ev->t_suid, ev->t_fsuid, ev->t_gid, ev->t_egid,
			ev->t_sgid, ev->t_fsgid, ev->t_loginuid, ev->t_sessionid, ev->t_ngroups,
		};
		for (int i = 0; i < 12; i++)
			put32(p + n + 4 * i, t[i]);
		n += REC_TASK_FIXED;
		for (uint32_t i = 0; i < ev->t_ngroups; i++)
			put32(p + n + 4 * i, ev->t_groups[i]);
		n += 4ull * ev->t_ngroups;
	}
	if (n - 4 > SP_AUDIT_RECORD_FRAME_MAX)
		return -E2BIG;
	put32(p, (uint32_t)(n - 4));
	if (w->used + n > WBUF_SIZE) {
		err = wflush(w);
		if (err)
			return err;
	}
	if (n > WBUF_SIZE)
		return sp_fd_write_all(w->fd, p, n);
	memcpy(w->buf + w->used, p, n);
	w->used += n;
	return 0;
}

SP_API int sp_audit_record_writer_finish(struct sp_audit_record_writer *w)
{
	int err;
	if (!w)
		return -EINVAL;
	err = wflush(w);
	free(w->frame);
	free(w);
	return err;
}

/* ---- reader ---- */

struct sp_audit_record_reader {
	const uint8_t *buf;
	size_t len, off;
	int err;		/* sticky error */
	char tmp[REC_CTX_MAX + 1];
	char path[UINT16_MAX + 1];
	uint32_t groups[UINT16_MAX];
};

SP_API int sp_audit_record_is_stream(const void *buf, size_t len)
{
	return buf && len >= SP_AUDIT_RECORD_MAGIC_LEN &&
	       !memcmp(buf, SP_AUDIT_RECORD_MAGIC, SP_AUDIT_RECORD_MAGIC_LEN);
}

SP_API int sp_audit_record_reader_new(const void *buf, size_t len,
				      struct sp_audit_record_reader **out)
{
	struct sp_audit_record_reader *r;
	if (!out || (!buf && len) || len < SP_AUDIT_RECORD_HDR_SIZE ||
	    !sp_audit_record_is_stream(buf, len))
		return -EINVAL;
	if (get32((const uint8_t *)buf + 8) != SP_AUDIT_RECORD_VERSION ||
	    get32((const uint8_t *)buf + 12) != 0)
		return -EINVAL;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->buf = buf;
	r->len = len;
	r->off = SP_AUDIT_RECORD_HDR_SIZE;
	r->err = 0;
	*out = r;
	return 0;
}

SP_API size_t sp_audit_record_reader_offset(const struct sp_audit_record_reader *r)
{
	return r->off;
}

SP_API void sp_audit_record_reader_free(struct sp_audit_record_reader *r)
{
	free(r);
}

static int bad(struct sp_audit_record_reader *r, struct sp_diags *d, int err, size_t at,
	       const char *what)
{
	if (d)
		sp_diags_add_offset(d, SP_SEV_ERROR, err, NULL, at, "record: %s", what);
	r->err = err;
	return err;
}

/* Copy n bytes at p as a NUL-terminated string into dst (no NUL inside).  0 or -EINVAL. */
static int take_str(char *dst, const uint8_t *p, size_t n)
{
	if (memchr(p, 0, n))
		return -EINVAL;
	memcpy(dst, p, n);
	dst[n] = 0;
	return 0;
}

/* The fixed part of a frame body at p (REC_FIXED bytes) into ev.  0 or the error (reported). */
static int read_fixed(struct sp_audit_record_reader *r, const uint8_t *p, size_t at,
		      struct sp_audit_event *ev, struct sp_diags *d)
{
	uint32_t flags = p[1], nnames = get16(p + 2), slen = get16(p + 6);
	if (p[0] > SP_AUDIT_EV_USER)
		return bad(r, d, -EINVAL, at, "unknown event kind");
	if (flags & ~REC_F_ALL)
		return bad(r, d, -EINVAL, at, "unknown event flags");
	if (nnames > SP_AUDIT_MAX_NAMES)
		return bad(r, d, -EINVAL, at, "more than 32 names");
	if (slen > REC_CTX_MAX || !(flags & REC_F_SCTX) != !slen)
		return bad(r, d, -EINVAL, at, "bad subject context length");
	sp_audit_event_set_kind(ev, (enum sp_audit_event_kind)p[0]);
	sp_audit_event_set_syscall(ev, get32(p + 8), (int32_t)get32(p + 12));
	sp_audit_event_set_args(ev, get64(p + 16), get64(p + 24), get64(p + 32), get64(p + 40));
	if (flags & REC_F_RETURN)
		sp_audit_event_set_return(ev, (int64_t)get64(p + 48));
	sp_audit_event_set_pids(ev, get32(p + 56), get32(p + 60), get32(p + 64));
	sp_audit_event_set_uids(ev, get32(p + 68), get32(p + 72), get32(p + 76), get32(p + 80));
	sp_audit_event_set_gids(ev, get32(p + 84), get32(p + 88), get32(p + 92), get32(p + 96));
	sp_audit_event_set_loginuid(ev, get32(p + 100));
	sp_audit_event_set_sessionid(ev, get32(p + 104));
	sp_audit_event_set_personality(ev, get32(p + 108));
	sp_audit_event_set_msgtype(ev, get32(p + 112));
	sp_audit_event_set_saddr_fam(ev, (int32_t)get32(p + 116));
	if (flags & REC_F_EXE)
		sp_audit_event_set_exe(ev, get64(p + 124), get32(p + 120));
	sp_audit_event_set_auditd(ev, !!(flags & REC_F_AUDITD));
	sp_audit_event_set_openat2_flags(ev, get64(p + 132));
	return 0;
}

/* The groups and the subject context after the fixed part: *pp advances.  0 or the error. */
static int read_groups_ctx(struct sp_audit_record_reader *r, const uint8_t **pp, const uint8_t *end,
			   uint32_t ngroups, uint32_t slen, size_t at, struct sp_audit_event *ev,
			   struct sp_diags *d)
{
	const uint8_t *p = *pp;
	int err;
	if ((size_t)(end - p) < 4ull * ngroups + slen)
		return bad(r, d, -EINVAL, at, "groups or context beyond the frame");
	if (ngroups) {
		for (uint32_t i = 0; i < ngroups; i++)
			r->groups[i] = get32(p + 4 * i);
		err = sp_audit_event_set_groups(ev, r->groups, ngroups);
		if (err)
			return bad(r, d, err, at, "out of memory");
		p += 4ull * ngroups;
	}
	if (slen) {
		if (take_str(r->tmp, p, slen))
			return bad(r, d, -EINVAL, at, "NUL in subject context");
		err = sp_audit_event_set_subj_ctx(ev, r->tmp);
		if (err)
			return bad(r, d, err, at, "malformed subject context");
		p += slen;
	}
	*pp = p;
	return 0;
}

/* One name: its fixed part, path, object context and walked inodes.  0 or the error. */
static int read_name(struct sp_audit_record_reader *r, const uint8_t **pp, const uint8_t *end,
		     size_t at, struct sp_audit_event *ev, struct sp_diags *d)
{
	const uint8_t *p = *pp;
	uint32_t nf, plen, olen, nwalk;
	int idx, err;
	if ((size_t)(end - p) < REC_NAME_FIXED)
		return bad(r, d, -EINVAL, at, "name beyond the frame");
	nf = get16(p + 32);
	plen = get16(p + 34);
	olen = get16(p + 36);
	nwalk = get16(p + 38);
	if (nf & ~(REC_N_PATH | REC_N_OCTX | REC_N_TYPE_MASK) || (nf >> REC_N_TYPE_SHIFT) > 4 ||
	    (!(nf & REC_N_PATH) && plen) ||
	    !(nf & REC_N_OCTX) != !olen || olen > REC_CTX_MAX)
		return bad(r, d, -EINVAL, at, "bad name flags");
	if ((size_t)(end - p) - REC_NAME_FIXED < (size_t)plen + olen + 12ull * nwalk)
		return bad(r, d, -EINVAL, at, "name data beyond the frame");
	idx = sp_audit_event_add_name(ev, get64(p), get32(p + 8));
	if (idx < 0)
		return bad(r, d, idx, at, "cannot add name");
	sp_audit_event_name_set_rdev(ev, idx, get32(p + 12));
	sp_audit_event_name_set_mode(ev, idx, get32(p + 16));
	sp_audit_event_name_set_owner(ev, idx, get32(p + 20), get32(p + 24));
	sp_audit_event_name_set_fs_magic(ev, idx, get32(p + 28));
	sp_audit_event_name_set_type(ev, idx, (int)(nf >> REC_N_TYPE_SHIFT));
	p += REC_NAME_FIXED;
	if (nf & REC_N_PATH) {
		if (take_str(r->path, p, plen))
			return bad(r, d, -EINVAL, at, "NUL in name path");
		err = sp_audit_event_name_set_path(ev, idx, r->path);
		if (err)
			return bad(r, d, err, at, "out of memory");
		p += plen;
	}
	if (olen) {
		if (take_str(r->tmp, p, olen))
			return bad(r, d, -EINVAL, at, "NUL in object context");
		err = sp_audit_event_name_set_obj_ctx(ev, idx, r->tmp);
		if (err)
			return bad(r, d, err, at, "malformed object context");
		p += olen;
	}
	for (uint32_t k = 0; k < nwalk; k++, p += 12) {
		err = sp_audit_event_name_add_walked(ev, idx, get64(p), get32(p + 8));
		if (err)
			return bad(r, d, err, at, "cannot add walked inode");
	}
	*pp = p;
	return 0;
}

/* REC_F_TASK: the task list's view of the credentials.  0 or the error. */
static int read_task(struct sp_audit_record_reader *r, const uint8_t **pp, const uint8_t *end,
		     size_t at, struct sp_audit_event *ev, struct sp_diags *d)
{
	const uint8_t *p = *pp;
	uint32_t t[12], tn;
	if ((size_t)(end - p) < REC_TASK_FIXED)
		return bad(r, d, -EINVAL, at, "task credentials beyond the frame");
	for (int i = 0; i < 12; i++)
		t[i] = get32(p + 4 * i);
	tn = t[11];
	p += REC_TASK_FIXED;
	if (tn > UINT16_MAX || (size_t)(end - p) < 4ull * tn)
		return bad(r, d, -EINVAL, at, "task groups beyond the frame");
	for (uint32_t i = 0; i < tn; i++)
		r->groups[i] = get32(p + 4 * i);
	p += 4ull * tn;
	int err = sp_audit_event_set_task_creds(ev, t[0], &t[1], &t[5], r->groups, tn, t[9], t[10]);
	if (err)
		return bad(r, d, err, at, "out of memory");
	*pp = p;
	return 0;
}

SP_API int sp_audit_record_read(struct sp_audit_record_reader *r, struct sp_audit_event *ev,
				struct sp_diags *d)
{
	const uint8_t *p, *end;
	size_t at = r->off, flen;
	int err;
	if (r->err)
		return bad(r, d, r->err, at, "stream already failed here");
	if (at == r->len)
		return 0;
	if (r->len - at < 4)
		return bad(r, d, -EINVAL, at, "truncated frame length");
	flen = get32(r->buf + at);
	if (flen > SP_AUDIT_RECORD_FRAME_MAX || flen > r->len - at - 4)
		return bad(r, d, -EINVAL, at, "frame length beyond the stream");
	if (flen < REC_FIXED)
		return bad(r, d, -EINVAL, at, "frame shorter than its fixed part");
	p = r->buf + at + 4;
	end = p + flen;
	sp_audit_event_reset(ev);
	uint32_t flags = p[1], nnames = get16(p + 2), ngroups = get16(p + 4), slen = get16(p + 6);
	if ((err = read_fixed(r, p, at, ev, d)))
		return err;
	p += REC_FIXED;
	if ((err = read_groups_ctx(r, &p, end, ngroups, slen, at, ev, d)))
		return err;
	for (uint32_t i = 0; i < nnames; i++)
		if ((err = read_name(r, &p, end, at, ev, d)))
			return err;
	if ((flags & REC_F_TASK) && (err = read_task(r, &p, end, at, ev, d)))
		return err;
	if (p != end)
		return bad(r, d, -EINVAL, at, "trailing bytes in frame");
	r->off = at + 4 + flen;
	return 1;
}
