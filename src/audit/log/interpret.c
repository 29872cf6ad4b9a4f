/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * interpret.c - an event written as `ausearch -i` 3.0.9 writes it (ausearch-report.c's
 * output_interpreted and auparse's field interpretations, escape mode tty).
 *
 * The event is "----" and then its records last to first (a daemon record alone), each as
 * "type=NAME msg=audit(%x %T.MSEC:SERIAL) : " and then every field as ausearch's loop splits
 * it: NAME=INTERPRETED followed by a space (tty data without one).  Field splitting copies
 * ausearch's pointer walk exactly (quoted values, values with commas, msg='...' of user
 * records), on a private copy of the line cut at the ENRICHED separator (0x1D); the enriched
 * part, when present, gives the names auditd recorded (uid/gid names, arch, syscall, saddr)
 * as ausearch's interpretation list does.
 *
 * Invariants: every value printer returns a malloc'ed NUL-terminated string or NULL (out of
 * memory); values are read with strtoul/strtoull as auparse reads them, so a value auparse
 * misreads is misread the same way.  uid and gid names come from getpwuid_r/getgrgid_r
 * (the process's passwd and group databases, as ausearch's getpwuid); the time from
 * localtime_r and the locale's %x, as ausearch.  No state outlives a call but a writer's
 * optional table of the uid/gid names it looked up in the last second (struct audit_names),
 * and the path buffer auparse keeps (struct audit_pathbuf).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include "secpath/audit_log.h"
#include "audit/log/log_int.h"
#include "audit/log/interpret_tab.h"
#include "base/compiler.h"

#define KEY_SEP '\x01'
#define INTERP_SEP '\x1d'

/* auparse's field types (the ones interpreted here; others print as they are) */
enum ftype {
	FT_UNCLASSIFIED, FT_UID, FT_GID, FT_SYSCALL, FT_ARCH, FT_EXIT, FT_ESCAPED, FT_KEY,
	FT_PERM, FT_MODE, FT_MODE_SHORT, FT_SOCKADDR, FT_PROMISC, FT_CAPABILITY, FT_SUCCESS,
	FT_A0, FT_A1, FT_A2, FT_A3, FT_SIGNAL, FT_LIST, FT_TTY_DATA, FT_SESSION, FT_CAP_BITMAP,
	FT_NFPROTO, FT_PROTOCOL, FT_ADDR, FT_SECCOMP, FT_OFLAG, FT_PROCTITLE, FT_MAC_LABEL,
	FT_PATH_FLAGS, FT_PERSONALITY, FT_MMAP, FT_ICMPTYPE, FT_HOOK, FT_NETACTION, FT_MACPROTO,
	FT_IOCTL, FT_FANOTIFY, FT_NLMCGRP, FT_RESOLVE,
};

/* auparse's typetab.h: field name -> type.  Its AppArmor names (apparmor, operation, info,
 * profile, denied_mask, requested_mask) are left out as Debian's build leaves them out (no
 * WITH_APPARMOR): they print as they are, quotes and all. */
static const struct {
	const char *name;
	uint8_t type;
} field_types[] = {
	{ "auid", FT_UID }, { "uid", FT_UID }, { "euid", FT_UID }, { "suid", FT_UID },
	{ "fsuid", FT_UID }, { "ouid", FT_UID }, { "oauid", FT_UID }, { "old-auid", FT_UID },
	{ "iuid", FT_UID }, { "id", FT_UID }, { "inode_uid", FT_UID }, { "sauid", FT_UID },
	{ "obj_uid", FT_UID }, { "obj_gid", FT_GID }, { "gid", FT_GID }, { "egid", FT_GID },
	{ "sgid", FT_GID }, { "fsgid", FT_GID }, { "ogid", FT_GID }, { "igid", FT_GID },
	{ "inode_gid", FT_GID }, { "new_gid", FT_GID }, { "syscall", FT_SYSCALL },
	{ "arch", FT_ARCH }, { "exit", FT_EXIT }, { "path", FT_ESCAPED }, { "comm", FT_ESCAPED },
	{ "exe", FT_ESCAPED }, { "file", FT_ESCAPED }, { "name", FT_ESCAPED },
	{ "watch", FT_ESCAPED }, { "cwd", FT_ESCAPED }, { "cmd", FT_ESCAPED },
	{ "acct", FT_ESCAPED }, { "dir", FT_ESCAPED }, { "key", FT_KEY }, { "vm", FT_ESCAPED },
	{ "old-chardev", FT_ESCAPED }, { "new-chardev", FT_ESCAPED }, { "old-disk", FT_ESCAPED },
	{ "new-disk", FT_ESCAPED }, { "old-fs", FT_ESCAPED }, { "new-fs", FT_ESCAPED },
	{ "old-net", FT_ESCAPED }, { "new-net", FT_ESCAPED }, { "device", FT_ESCAPED },
	{ "cgroup", FT_ESCAPED }, { "perm", FT_PERM }, { "perm_mask", FT_PERM },
	{ "mode", FT_MODE }, { "saddr", FT_SOCKADDR }, { "prom", FT_PROMISC },
	{ "old_prom", FT_PROMISC }, { "capability", FT_CAPABILITY }, { "res", FT_SUCCESS },
	{ "result", FT_SUCCESS }, { "a0", FT_A0 }, { "a1", FT_A1 }, { "a2", FT_A2 },
	{ "a3", FT_A3 }, { "sig", FT_SIGNAL }, { "list", FT_LIST }, { "data", FT_TTY_DATA },
	{ "ses", FT_SESSION }, { "cap_pi", FT_CAP_BITMAP }, { "cap_pe", FT_CAP_BITMAP },
	{ "cap_pp", FT_CAP_BITMAP }, { "cap_pa", FT_CAP_BITMAP }, { "cap_fi", FT_CAP_BITMAP },
	{ "cap_fp", FT_CAP_BITMAP }, { "fp", FT_CAP_BITMAP }, { "fi", FT_CAP_BITMAP },
	{ "old_pp", FT_CAP_BITMAP }, { "old_pi", FT_CAP_BITMAP }, { "old_pe", FT_CAP_BITMAP },
	{ "old_pa", FT_CAP_BITMAP }, { "new_pp", FT_CAP_BITMAP }, { "new_pi", FT_CAP_BITMAP },
	{ "new_pe", FT_CAP_BITMAP }, { "pp", FT_CAP_BITMAP }, { "pi", FT_CAP_BITMAP },
	{ "pe", FT_CAP_BITMAP }, { "pa", FT_CAP_BITMAP }, { "family", FT_NFPROTO },
	{ "proto", FT_PROTOCOL }, { "addr", FT_ADDR }, { "code", FT_SECCOMP },
	{ "old-rng", FT_ESCAPED }, { "new-rng", FT_ESCAPED }, { "oflag", FT_OFLAG },
	{ "ocomm", FT_ESCAPED }, { "subj", FT_MAC_LABEL }, { "obj", FT_MAC_LABEL },
	{ "scontext", FT_MAC_LABEL }, { "tcontext", FT_MAC_LABEL }, { "vm-ctx", FT_MAC_LABEL },
	{ "img-ctx", FT_MAC_LABEL }, { "proctitle", FT_PROCTITLE }, { "grp", FT_ESCAPED },
	{ "new_group", FT_ESCAPED }, { "invalid_context", FT_ESCAPED }, { "sw", FT_ESCAPED },
	{ "root_dir", FT_ESCAPED }, { "per", FT_PERSONALITY }, { "flags", FT_MMAP },
	{ "sigev_signo", FT_SIGNAL }, { "icmptype", FT_ICMPTYPE }, { "hook", FT_HOOK },
	{ "action", FT_NETACTION }, { "macproto", FT_MACPROTO }, { "ioctlcmd", FT_IOCTL },
	{ "resp", FT_FANOTIFY }, { "nl-mcgrp", FT_NLMCGRP }, { "resolve", FT_RESOLVE },
};

/* Record types whose fields auparse_interp_adjust_type treats apart. */
enum {
	RT_SECCOMP = 1326, RT_AVC = 1400, RT_USER_TTY = 1124, RT_NETFILTER_PKT = 1324,
	RT_MQ_OPEN = 1312, RT_CRYPTO_KEY_USER = 2404, RT_ADD_GROUP = 1116, RT_GRP_MGMT = 1132,
	RT_DEL_GROUP = 1117, RT_TRUSTED_APP = 1121, RT_KERN_MODULE = 1330,
};

/* What a field's interpretation may look at (ausearch's idata). */
struct idata {
	const char *machine;		/* syscall table's machine; NULL = this host's (uname) */
	int syscall;
	uint64_t a0, a1;
	const char *name, *val;
	const char *enriched;		/* the record's part after 0x1D, or NULL */
	struct audit_names *names;	/* uid/gid names looked up lately, or NULL */
};

static char *xs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xs(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

static int sys_is(const char *sys, const char *name);
static char *print_personality(const char *val);
static char *print_mmap(const char *val);
static char *print_unknown_plain(const char *val, const struct itab *t, size_t n,
				 const char *unknown);
static char *print_ioctl(const char *val);
static char *print_resolve(const char *val);

static const char *itab_name(const struct itab *t, size_t n, unsigned long v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].v == v)
			return t[i].s;
	return NULL;
}
#define ITAB(t, v) itab_name(t, SP_ARRAY_SIZE(t), v)

static int all_of(const char *s, int (*cls)(int))
{
	for (; *s; s++)
		if (!cls((unsigned char)*s))
			return 0;
	return 1;
}

/* auparse's x2c: a character outside 0-9A-F (the NUL too) counts as 0. */
static unsigned hexval(unsigned char c)
{
	c = (unsigned char)toupper(c);
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	return c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 0u;
}

/*
 * auparse's au_unescape: the leading hex digits of buf decoded, in a buffer of
 * max(strlen(buf) + 1, min) zero bytes (so a short value reads as zeros past its end);
 * "(null)"-style values are copied up to their ')'.  NULL when fewer than 2 digits (or out
 * of memory).  *dlen gets the decoded length.
 */
char *audit_log_unhex(const char *buf, size_t min, size_t *dlen)
{
	size_t olen = strlen(buf), n = 0, cap = SP_MAX(olen + 1, min);
	char *out;
	if (*buf == '(') {
		const char *e = strchr(buf, ')');
		if (!e || !(out = calloc(1, cap)))
			return NULL;
		memcpy(out, buf, (size_t)(e + 1 - buf));
		*dlen = (size_t)(e + 1 - buf);
		return out;
	}
	while (isxdigit((unsigned char)buf[n]))
		n++;
	if (n < 2 || !(out = calloc(1, cap)))
		return NULL;
	for (size_t i = 0; i < n; i += 2)
		out[i / 2] = (char)(hexval((unsigned char)buf[i]) << 4 |
				    hexval((unsigned char)buf[i + 1]));
	*dlen = (n + 1) / 2;
	return out;
}

static char *print_escaped(const char *val)
{
	size_t n;
	if (*val == '"') {
		const char *e = strchr(val + 1, '"');
		return e ? strndup(val + 1, (size_t)(e - val - 1)) : strdup(" ");
	}
	char *out = audit_log_unhex(val[0] == '0' && val[1] == '0' ? val + 2 : val, 0, &n);
	return out ? out : strdup(val);
}

static char *print_proctitle(const char *val)
{
	char *out = print_escaped(val);
	if (out && *val != '"') {
		/* the arguments' NUL separators read as spaces, up to the value's length */
		size_t len = strlen(val) / 2;
		for (char *p = out; (p = strchr(p, '\0')) && p < out + len; p++)
			*p = ' ';
	}
	return out;
}

static char *conv_error(const char *val)
{
	return xs("conversion error(%s)", val);
}

/* The uid/gid names looked up in the last second (a direct-mapped table): ausearch asks
 * getpwuid/getgrgid for every field, and an id the files do not name goes on to every other
 * NSS source; a name learned less than a second ago is taken as still true. */
#define NAMES_SLOTS 256u
struct audit_names {
	struct timespec epoch;		/* when the table was last emptied */
	struct {
		uint32_t id;
		uint8_t used, gid;
		char *name;		/* NULL: no such user or group */
	} e[NAMES_SLOTS];
};

int audit_names_new(struct audit_names **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &(*out)->epoch);
	return 0;
}

static void names_clear(struct audit_names *n)
{
	for (size_t i = 0; i < NAMES_SLOTS; i++) {
		free(n->e[i].name);
		n->e[i].name = NULL;
		n->e[i].used = 0;
	}
}

void audit_names_free(struct audit_names *n)
{
	if (n)
		names_clear(n);
	free(n);
}

/* n's slot for uid/gid id, emptied first when the table is over a second old. */
static size_t names_slot(struct audit_names *n, uint32_t id, int is_gid)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if (now.tv_sec - n->epoch.tv_sec > 1) {
		names_clear(n);
		n->epoch = now;
	}
	return (id * 2u + (uint32_t)is_gid) % NAMES_SLOTS;
}

static char *print_id(const char *val, int base, int is_gid, struct audit_names *names)
{
	char buf[4096];
	const char *name = NULL;
	size_t k = 0;
	int hit = 0;
	errno = 0;
	int id = (int)strtoul(val, NULL, base);
	if (errno)
		return conv_error(val);
	if (id == -1)
		return strdup("unset");
	if (id == 0)
		return strdup("root");
	if (names && names->e[k = names_slot(names, (uint32_t)id, is_gid)].used &&
	    names->e[k].id == (uint32_t)id && names->e[k].gid == is_gid) {
		name = names->e[k].name;
		hit = 1;
	} else if (is_gid) {
		struct group g, *gp = NULL;
		if (!getgrgid_r((gid_t)id, &g, buf, sizeof(buf), &gp) && gp)
			name = gp->gr_name;
	} else {
		struct passwd p, *pp = NULL;
		if (!getpwuid_r((uid_t)id, &p, buf, sizeof(buf), &pp) && pp)
			name = pp->pw_name;
	}
	char *out = name ? strdup(name) : xs("unknown(%d)", id);
	if (names && out && !hit) {	/* looked up: kept for reuse */
		free(names->e[k].name);
		names->e[k].name = name ? strdup(name) : NULL;
		names->e[k].used = !name || names->e[k].name;
		names->e[k].id = (uint32_t)id;
		names->e[k].gid = (uint8_t)is_gid;
	}
	return out;
}

static char *print_arch(const char *val)
{
	errno = 0;
	unsigned long a = strtoul(val, NULL, 16);
	if (errno)
		return xs("conversion error(%s) ", val);
	const char *n = sp_audit_arch_name((uint32_t)a);
	return n ? strdup(n) : xs("unknown-elf-type(%s)", val);
}

static char *print_syscall(const struct idata *id)
{
	const char *sys = sp_audit_syscall_name(id->machine, id->syscall), *fn = NULL;
	if (!sys)
		return xs("unknown-syscall(%d)", id->syscall);
	if (id->a0 == (uint64_t)(int)id->a0 && sys_is(sys, "socketcall"))
		fn = ITAB(socketcall_tab, (unsigned long)id->a0);
	else if (id->a0 == (uint64_t)(int)id->a0 && sys_is(sys, "ipc"))
		fn = ITAB(ipc_tab, (unsigned long)id->a0);
	return fn ? xs("%s(%s)", sys, fn) : strdup(sys);
}

static char *print_exit(const char *val)
{
	errno = 0;
	long long v = strtoll(val, NULL, 10);
	if (errno)
		return conv_error(val);
	if (v >= 0)
		return strdup(val);
	const char *n = sp_audit_errno_name((int)-v);
	return xs("%s(%s)", n ? n : "(null)", strerror((int)-v));
}

static char *print_perm(const char *val)
{
	static const char *const names[] = { "exec", "write", "read", "attr" };
	static const int order[] = { 2, 1, 0, 3 };	/* auparse prints read first */
	char buf[32] = "";
	errno = 0;
	long v = strtol(val, NULL, 10);
	if (errno)
		return conv_error(val);
	if (v == 0)
		v = 0xf;	/* the kernel takes none as all */
	for (int i = 0; i < 4; i++)
		if (v & (1L << order[i])) {
			if (buf[0])
				strcat(buf, ",");
			strcat(buf, names[order[i]]);
		}
	return strdup(buf);
}

static char *mode_text(unsigned v, int full)
{
	char buf[48] = "";
	if (full) {
		const char *t = ITAB(ftype_tab, v & 0170000);
		if (t)
			strcpy(buf, t);
		else
			snprintf(buf, sizeof(buf), "%03o", (v & 0170000) / 010000);
	}
	static const struct { unsigned bit; const char *s; } sp[] = {
		{ 04000, "suid" }, { 02000, "sgid" }, { 01000, "sticky" } };
	for (size_t i = 0; i < SP_ARRAY_SIZE(sp); i++)
		if (v & sp[i].bit) {
			if (buf[0])
				strcat(buf, ",");
			strcat(buf, sp[i].s);
		}
	if (full)
		return xs("%s,%03o", buf, v & 0777);
	return buf[0] ? xs("%s,0%03o", buf, v & 0777) : xs("0%03o", v & 0777);
}

static char *print_mode(const char *val, int base, int full)
{
	errno = 0;
	unsigned v = (unsigned)strtoul(val, NULL, base);
	if (errno)
		return conv_error(val);
	return mode_text(v, full);
}

static char *print_sockaddr(const char *val)
{
	size_t slen = strlen(val) / 2, n;
	char *host = audit_log_unhex(val, sizeof(struct sockaddr_storage) + 1, &n), *out;
	char name[NI_MAXHOST], serv[NI_MAXSERV];
	if (!host)
		return xs("malformed-host(%s)", val);
	unsigned fam = (unsigned char)host[0] | (unsigned char)host[1] << 8;
	const char *str = ITAB(fam_tab, fam);
	if (!str) {
		out = xs("unknown-family(%u)", fam);
	} else if (fam == AF_UNIX) {
		out = slen < 4 ? xs("{ saddr_fam=%s sockaddr len too short }", str) :
		      xs("{ saddr_fam=%s path=%.108s }", str, host + 2 + !host[2]);
	} else if (fam == AF_INET || fam == AF_INET6) {
		size_t need = fam == AF_INET ? sizeof(struct sockaddr_in) :
			      sizeof(struct sockaddr_in6);
		struct sockaddr_storage ss;
		memcpy(&ss, host, sizeof(ss));
		if (slen < need)
			out = xs("{ saddr_fam=%s sockaddr%s len too short }", str,
				 fam == AF_INET ? "" : "6");
		else if (!getnameinfo((struct sockaddr *)&ss, (socklen_t)need, name, sizeof(name),
				      serv, sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV))
			out = xs("{ saddr_fam=%s laddr=%s lport=%s }", str, name, serv);
		else
			out = xs("{ saddr_fam=%s (error resolving addr) }", str);
	} else if (fam == AF_NETLINK) {
		uint32_t pid;
		memcpy(&pid, host + 4, sizeof(pid));
		out = slen < 12 ? xs("{ saddr_fam=%s len too short }", str) :
		      xs("{ saddr_fam=%s nlnk-fam=%u nlnk-pid=%u }", str, fam, pid);
	} else if (fam == 3) {		/* AF_AX25: the 7-byte call sign */
		out = xs("{ saddr_fam=%s call=%c%c%c%c%c%c%c }", str, host[2], host[3], host[4],
			 host[5], host[6], host[7], host[8]);
	} else if (fam == 8) {		/* AF_ATMPVC: itf, at 4 (sap_addr is aligned) */
		int16_t itf;
		memcpy(&itf, host + 4, sizeof(itf));
		out = xs("{ saddr_fam=%s int=%d }", str, itf);
	} else if (fam == 9) {		/* AF_X25: the address string */
		out = xs("{ saddr_fam=%s laddr=%.15s }", str, host + 2);
	} else {
		out = xs("{ saddr_fam=%s (unsupported) }", str);
	}
	free(host);
	return out;
}

/* Names of the bits of v in t joined by sep (first: a name before them), or "0xVAL" when
 * none is named. */
static char *bits_join(const struct itab *t, size_t n, unsigned long v, const char *first,
		       const char *val, const char *sep)
{
	char buf[1024] = "";
	if (first)
		strcpy(buf, first);
	for (size_t i = 0; i < n; i++)
		if (t[i].v & v) {
			if (buf[0])
				strcat(buf, sep);
			strcat(buf, t[i].s);
		}
	return buf[0] ? strdup(buf) : xs("0x%s", val);
}

static char *bits_text(const struct itab *t, size_t n, unsigned long v, const char *first,
		       const char *val)
{
	return bits_join(t, n, v, first, val, "|");
}

/* A RHEL4 kernel's PATH flags= (auparse's print_flags). */
static char *print_path_flags(const char *val)
{
	errno = 0;
	unsigned long v = strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	return v ? bits_join(pathflag_tab, SP_ARRAY_SIZE(pathflag_tab), v, NULL, val, ",") :
		   strdup("none");
}

static char *print_flags_of(const char *val, int what)
{
	errno = 0;
	unsigned long v = strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	switch (what) {
	case 'o':	/* open(2) flags: O_RDONLY is the absence of the access bits */
		return bits_text(oflag_tab, SP_ARRAY_SIZE(oflag_tab), (unsigned)v,
				 (v & 3) == 0 ? "O_RDONLY" : NULL, val);
	case 'r':
		return bits_text(recv_tab, SP_ARRAY_SIZE(recv_tab), (unsigned)v, NULL, val);
	default:	/* access(2) */
		if ((v & 0xf) == 0)
			return strdup("F_OK");
		return bits_text(access_tab, SP_ARRAY_SIZE(access_tab), v, NULL, val);
	}
}

static char *print_named(const char *val, int base, const struct itab *t, size_t n,
			 const char *unknown, unsigned long mask)
{
	errno = 0;
	unsigned long v = strtoul(val, NULL, base);
	if (errno)
		return conv_error(val);
	const char *s = itab_name(t, n, v & mask);
	return s ? strdup(s) : xs("%s(%s%s)", unknown, base == 16 ? "0x" : "", val);
}

static char *print_signal(const char *val, int base)
{
	errno = 0;
	int v = (int)strtoul(val, NULL, base);
	if (errno)
		return conv_error(val);
	const char *s = v < 32 ? ITAB(sig_tab, (unsigned long)v) : NULL;
	return s ? strdup(s) : xs("unknown-signal(%s%s)", base == 16 ? "0x" : "", val);
}

static char *print_cap_bitmap(const char *val)
{
	char buf[1024] = "";
	errno = 0;
	unsigned long long v = strtoull(val, NULL, 16);
	if (errno)
		return conv_error(val);
	for (unsigned i = 0; i < SP_ARRAY_SIZE(cap_tab); i++)
		if (v & (1ull << i)) {
			if (buf[0])
				strcat(buf, ",");
			strcat(buf, ITAB(cap_tab, i));
		}
	return strdup(buf[0] ? buf : "none");
}

static char *print_dirfd(const char *val)
{
	errno = 0;
	uint32_t v = (uint32_t)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	return v == 0xffffff9cu ? strdup("AT_FDCWD") : xs("0x%s", val);
}

/* getprotobynumber's name: auparse's print_protocol (base 10; "undefined protocol") and its
 * socket() a2 (base 16; "unknown-proto(VAL)"). */
static char *print_protocol(const char *val, int base)
{
	char buf[1024];
	struct protoent p, *pp = NULL;
	errno = 0;
	int v = (int)strtoul(val, NULL, base);
	if (errno)
		return conv_error(val);
	if (!getprotobynumber_r(v, &p, buf, sizeof(buf), &pp) && pp)
		return strdup(pp->p_name);
	return base == 16 ? xs("unknown-proto(%s)", val) : strdup("undefined protocol");
}

static int sys_is(const char *sys, const char *name)
{
	return !strcmp(sys, name);
}

/* A bit table's names joined by '|' (auparse's flag printers); "0xVAL" when none is named. */
static char *print_bits(const char *val, const struct itab *t, size_t n)
{
	errno = 0;
	unsigned v = (unsigned)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	return bits_text(t, n, v, NULL, val);
}
#define BITS(val, t) print_bits(val, t, SP_ARRAY_SIZE(t))

static char *print_clone(const char *val)
{
	char buf[1024];
	errno = 0;
	unsigned v = (unsigned)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	char *names = bits_text(clone_tab, SP_ARRAY_SIZE(clone_tab), v, NULL, "");
	if (!names)
		return NULL;
	/* the exit signal in the low byte */
	const char *sig = (v & 0xff) && (v & 0xff) < 32 ? ITAB(sig_tab, v & 0xff) : NULL;
	snprintf(buf, sizeof(buf), "%s%s%s", strcmp(names, "0x") ? names : "",
		 sig && strcmp(names, "0x") ? "|" : "", sig ? sig : "");
	free(names);
	return buf[0] ? strdup(buf) : xs("0x%x", v);
}

static char *print_prot(const char *val, int is_mmap)
{
	errno = 0;
	unsigned v = (unsigned)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	if ((v & 7) == 0)
		return strdup("PROT_NONE");
	return bits_text(prot_tab, is_mmap ? 4 : 3, v, NULL, val);
}

static char *print_mmap(const char *val)
{
	errno = 0;
	unsigned v = (unsigned)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	return bits_text(mmap_tab, SP_ARRAY_SIZE(mmap_tab), v,
			 (v & 0xf) == 0 ? "MAP_FILE" : NULL, val);
}

/* A value named from a table (base 16, auparse's "unknown-WHAT(...)" forms): below `limit`
 * only (0: any); dec: the unknown value printed as the decimal number. */
static char *print_hex_named(const char *val, const struct itab *t, size_t n, unsigned limit,
			     const char *unknown, int dec)
{
	errno = 0;
	unsigned long v = strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	const char *s = !limit || v < limit ? itab_name(t, n, v) : NULL;
	if (s)
		return strdup(s);
	return dec ? xs("%s(%d)", unknown, (int)v) : xs("%s(0x%s)", unknown, val);
}
#define HEXN(val, t, lim, what, dec) print_hex_named(val, t, SP_ARRAY_SIZE(t), lim, what, dec)

static char *print_personality(const char *val)
{
	errno = 0;
	unsigned long v = strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	const char *s = ITAB(person_tab, v & PER_MASK);
	if (!s)
		return xs("unknown-personality(0x%s)", val);
	return v & ADDR_NO_RANDOMIZE ? xs("%s|~ADDR_NO_RANDOMIZE", s) : strdup(s);
}

static char *print_sched(const char *val)
{
	errno = 0;
	unsigned long v = strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	const char *s = ITAB(sched_tab, v & 0xf);
	if (!s)
		return xs("unknown-scheduler-policy(0x%s)", val);
	return v & 0x40000000 ? xs("%s|SCHED_RESET_ON_FORK", s) : strdup(s);
}

/* setsockopt/getsockopt's level: SOL_SOCKET, a protocol's name, or auparse's level table. */
static char *print_sock_level(const char *val)
{
	char buf[1024];
	struct protoent p, *pp = NULL;
	errno = 0;
	int v = (int)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	if (v == 1)
		return strdup("SOL_SOCKET");
	if (!getprotobynumber_r(v, &p, buf, sizeof(buf), &pp) && pp)
		return strdup(pp->p_name);
	return HEXN(val, socklevel_tab, 0, "unknown-sockopt-level", 0);
}

/* setsockopt/getsockopt's option name, by its level (a1). */
static char *print_sock_opt(const char *val, const struct idata *id)
{
	switch (id->a1) {
	case 0: return HEXN(val, ipopt_tab, 0, "unknown-ipopt-name", 0);
	case 1: {
		/* PPC's socket options 16..21 are numbered apart: its table entries are +100 */
		unsigned long v = strtoul(val, NULL, 16);
		const char *m = id->machine;
		if (m && !strncmp(m, "ppc", 3) && v >= 16 && v <= 21) {
			const char *s = ITAB(sockopt_tab, v + 100);
			return s ? strdup(s) : xs("unknown-sockopt-name(0x%s)", val);
		}
		return HEXN(val, sockopt_tab, 0, "unknown-sockopt-name", 0);
	}
	case 6: return HEXN(val, tcpopt_tab, 0, "unknown-tcpopt-name", 0);
	case 17: {
		unsigned long v = strtoul(val, NULL, 16);
		return v == 1 ? strdup("UDP_CORK") : v == 100 ? strdup("UDP_ENCAP") :
		       xs("unknown-udpopt-name(0x%s)", val);
	}
	case 41: return HEXN(val, ip6opt_tab, 0, "unknown-ip6opt-name", 0);
	case 263: return HEXN(val, pktopt_tab, 0, "unknown-pktopt-name", 0);
	default: return xs("0x%s", val);
	}
}

/* shmget's flags: IPC_ bits, SHM_ bits, then the mode. */
static char *print_shmflags(const char *val)
{
	errno = 0;
	unsigned v = (unsigned)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	char *a = bits_join(ipccmd_tab, SP_ARRAY_SIZE(ipccmd_tab), v & 03000, NULL, "", "|");
	char *b = bits_join(shmmode_tab, SP_ARRAY_SIZE(shmmode_tab), v & 014000, NULL, "", "|");
	char *m = mode_text(v & 0777, 0), *out = NULL;
	if (a && b && m) {
		int ha = strcmp(a, "0x") != 0, hb = strcmp(b, "0x") != 0;
		out = xs("%s%s%s%s%s", ha ? a : "", ha && hb ? "|" : "", hb ? b : "",
			 ha || hb ? "|" : "", m);
	}
	free(a);
	free(b);
	free(m);
	return out;
}

/* A base-16 value named from t, else "WHAT(VAL)" (auparse's hook, action, bpf printers). */
static char *print_unknown_plain(const char *val, const struct itab *t, size_t n,
				 const char *unknown)
{
	errno = 0;
	unsigned v = (unsigned)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	const char *s = itab_name(t, n, v);
	return s ? strdup(s) : xs("%s(%s)", unknown, val);
}

static char *print_ioctl(const char *val)
{
	errno = 0;
	int v = (int)strtoul(val, NULL, 16);
	if (errno)
		return conv_error(val);
	const char *s = ITAB(ioctl_tab, (unsigned)v);
	return s ? strdup(s) : xs("0x%x", (unsigned)v);
}

static char *print_resolve(const char *val)
{
	errno = 0;
	unsigned long long v = strtoull(val, NULL, 16);
	if (errno)
		return conv_error(val);
	return bits_text(resolve_tab, SP_ARRAY_SIZE(resolve_tab), (unsigned long)v, NULL, val);
}

static int is_dirfd_call(const char *sys)
{
	static const char *const calls[] = { "readlinkat", "mkdirat", "mknodat", "fchownat",
		"futimesat", "fchmodat", "futimensat", "unlinkat", "utimensat", "linkat",
		"newfstatat", "name_to_handle_at" };
	for (size_t i = 0; i < SP_ARRAY_SIZE(calls); i++)
		if (sys_is(sys, calls[i]))
			return 1;
	return !strncmp(sys, "renameat", 8) || !strncmp(sys, "faccessat", 9) ||
	       !strncmp(sys, "openat", 6);
}

static char *print_a0(const char *sys, const char *val, const struct idata *id)
{
	if (sys_is(sys, "rt_sigaction"))
		return print_signal(val, 16);
	if (is_dirfd_call(sys))
		return print_dirfd(val);
	if (sys_is(sys, "clock_settime"))
		return HEXN(val, clock_tab, 7, "unknown-clk_id", 0);
	if (sys_is(sys, "personality"))
		return print_personality(val);
	if (sys_is(sys, "ptrace"))
		return HEXN(val, ptrace_tab, 0, "unknown-ptrace", 0);
	if (sys_is(sys, "prctl"))
		return HEXN(val, prctl_tab, 0, "unknown-prctl-option", 0);
	if (sys_is(sys, "unshare"))
		return print_clone(val);
	if (!strcmp(sys + 1, "etrlimit"))
		return HEXN(val, rlimit_tab, 17, "unknown-rlimit", 0);
	if (sys_is(sys, "setuid") || sys_is(sys, "setreuid") || sys_is(sys, "setresuid") ||
	    sys_is(sys, "setfsuid"))
		return print_id(val, 16, 0, id->names);
	if (sys_is(sys, "setgid") || sys_is(sys, "setregid") || sys_is(sys, "setresgid") ||
	    sys_is(sys, "setfsgid"))
		return print_id(val, 16, 1, id->names);
	if (sys_is(sys, "socket"))
		return print_named(val, 16, fam_tab, SP_ARRAY_SIZE(fam_tab), "unknown-family", ~0ul);
	if (sys_is(sys, "socketcall"))
		return print_named(val, 16, socketcall_tab, SP_ARRAY_SIZE(socketcall_tab),
				   "unknown-socketcall", ~0ul);
	if (!strncmp(sys, "exit", 4))
		return strdup(sys_is(val, "0") ? "EXIT_SUCCESS" :
			      sys_is(val, "1") ? "EXIT_FAILURE" : "UNKNOWN");
	if (sys_is(sys, "bpf"))
		return print_unknown_plain(val, bpf_tab, SP_ARRAY_SIZE(bpf_tab), "unknown-bpf-cmd");
	return xs("0x%s", val);
}

static char *print_a1(const char *sys, const char *val, const struct idata *id)
{
	if (sys_is(sys, "fchmod") || sys_is(sys, "chmod") || sys_is(sys, "creat") ||
	    sys_is(sys, "mkdir"))
		return print_mode(val, 16, 0);
	if (!strncmp(sys, "fcntl", 5))
		return HEXN(val, fcntl_tab, 0, "unknown-fcntl-command", 1);
	if ((*sys == 'c' && strstr(sys, "chown")) || sys_is(sys, "setreuid") ||
	    sys_is(sys, "setresuid"))
		return print_id(val, 16, 0, id->names);
	if (sys_is(sys, "setregid") || sys_is(sys, "setresgid"))
		return print_id(val, 16, 1, id->names);
	if (sys_is(sys, "socket"))
		return print_named(val, 16, socktype_tab, SP_ARRAY_SIZE(socktype_tab),
				   "unknown-type", 0xff);
	if (sys_is(sys, "setns"))
		return print_clone(val);
	if (!strcmp(sys + 1, "etsockopt"))
		return print_sock_level(val);
	if (sys_is(sys, "sched_setscheduler"))
		return print_sched(val);
	if (sys_is(sys, "mknod"))
		return print_mode(val, 16, 1);
	if (sys_is(sys, "open") || sys_is(sys, "mq_open"))
		return print_flags_of(val, 'o');
	if (sys_is(sys, "access"))
		return print_flags_of(val, 'a');
	if (sys_is(sys, "epoll_ctl"))
		return HEXN(val, epoll_tab, 0, "unknown-epoll_ctl-operation", 1);
	if (sys_is(sys, "kill") || sys_is(sys, "tkill"))
		return print_signal(val, 16);
	if (sys_is(sys, "prctl") && (id->a0 == 23 || id->a0 == 24))	/* PR_CAPBSET_READ/DROP */
		return print_named(val, 16, cap_tab, SP_ARRAY_SIZE(cap_tab), "unknown-capability",
				   ~0ul);
	if (sys_is(sys, "prctl") && id->a0 == 1)			/* PR_SET_PDEATHSIG */
		return print_signal(val, 16);
	if (sys_is(sys, "umount2"))
		return BITS(val, umount_tab);
	if (sys_is(sys, "ioctl"))
		return print_ioctl(val);
	return xs("0x%s", val);
}

static char *print_a2(const char *sys, const char *val, const struct idata *id)
{
	if (!strncmp(sys, "fcntl", 5)) {
		if (id->a1 == 8)					/* F_SETOWN */
			return print_id(val, 16, 0, id->names);
		if (id->a1 == 2 && strtoul(val, NULL, 16) == 1)	/* F_SETFD */
			return strdup("FD_CLOEXEC");
	} else if (!strcmp(sys + 1, "etsockopt")) {
		return print_sock_opt(val, id);
	} else if (sys_is(sys, "shmget")) {
		return print_shmflags(val);
	} else if (sys_is(sys, "openat") || sys_is(sys, "open_by_handle_at")) {
		return print_flags_of(val, 'o');
	} else if ((sys_is(sys, "open") || sys_is(sys, "mq_open")) && (id->a1 & 0100)) {
		return print_mode(val, 16, 0);	/* O_CREAT: the mode */
	} else if (sys_is(sys, "fchmodat") || sys_is(sys, "mkdirat") || sys_is(sys, "mknodat")) {
		return print_mode(val, 16, 0);
	} else if (!strncmp(sys, "faccessat", 9)) {
		return print_flags_of(val, 'a');
	} else if (sys_is(sys, "setresuid")) {
		return print_id(val, 16, 0, id->names);
	} else if (sys_is(sys, "setresgid")) {
		return print_id(val, 16, 1, id->names);
	} else if (sys_is(sys, "socket")) {
		return print_protocol(val, 16);
	} else if (sys_is(sys, "sendmsg") || sys_is(sys, "recvmsg")) {
		return print_flags_of(val, 'r');
	} else if (sys_is(sys, "mmap") || sys_is(sys, "mprotect")) {
		return print_prot(val, sys_is(sys, "mmap"));
	} else if (sys_is(sys, "readlinkat") || !strncmp(sys, "renameat", 8) ||
		   sys_is(sys, "linkat")) {
		return print_dirfd(val);
	} else if (sys_is(sys, "lseek")) {
		return print_named(val, 16, seek_tab, SP_ARRAY_SIZE(seek_tab), "unknown-whence", 0xff);
	} else if (sys_is(sys, "clone") || sys_is(sys, "clone2")) {
		return print_clone(val);
	} else if (sys_is(sys, "tgkill")) {
		/* (auparse's a2 chown test comes after its c, f and l branches: never reached) */
		return print_signal(val, 16);
	}
	return xs("0x%s", val);
}

static char *print_a3(const char *sys, const char *val, const struct idata *id)
{
	if (sys_is(sys, "mmap"))
		return print_mmap(val);
	if (sys_is(sys, "mount"))
		return BITS(val, mount_tab);
	if (sys_is(sys, "recv") || sys_is(sys, "recvfrom") || sys_is(sys, "recvmmsg") ||
	    sys_is(sys, "send") || sys_is(sys, "sendto") || sys_is(sys, "sendmmsg"))
		return print_flags_of(val, 'r');
	return xs("0x%s", val);
}

/* auparse's print_a0..print_a3: the syscalls it names an argument of; others print 0xVAL. */
static char *print_arg(int argn, const char *val, const struct idata *id)
{
	const char *sys = sp_audit_syscall_name(id->machine, id->syscall);
	if (!sys)
		return xs("0x%s", val);
	switch (argn) {
	case 0: return print_a0(sys, val, id);
	case 1: return print_a1(sys, val, id);
	case 2: return print_a2(sys, val, id);
	default: return print_a3(sys, val, id);
	}
}

/* A TTY record's data: named keys as <name>, printable runs quoted, joined by commas. */
static char *print_tty_data(const char *raw)
{
	static const char keys[] =
#define E(SEQ, NAME) SEQ "\0" NAME "\0"
#include "audit/log/tty_keys.h"
#undef E
		"\0";
	size_t dn;
	if (!all_of(raw, isxdigit))
		return strdup(raw);
	if (strlen(raw) < 2)	/* auparse's NULL, which ausearch's printf shows so */
		return strdup("(null)");
	char *data = audit_log_unhex(raw, 0, &dn);
	if (!data)
		return NULL;
	size_t end = strlen(raw) / 2, cap = 40 * end + 4, o = 0;	/* a key name is < 36 bytes */
	char *out = malloc(cap);
	int inq = 0;
	for (size_t i = 0; out && i < end;) {
		const char *desc = NULL;
		unsigned char c = (unsigned char)data[i];
		if (!(c >= ' ' && (c < 0x7f || c >= 0xa0))) {
			for (const char *k = keys; *k; k = strchr(k, '\0') + 1) {
				size_t kl = strlen(k);
				const char *nm = k + kl + 1;
				if (kl <= end - i && !memcmp(data + i, k, kl)) {
					desc = nm;
					i += kl;
					break;
				}
				k = nm;
			}
		}
		if (desc) {
			if (inq)
				out[o++] = '"';
			inq = 0;
			o += (size_t)sprintf(out + o, "%s<%s>", o ? "," : "", desc);
			continue;
		}
		if (!inq)
			o += (size_t)sprintf(out + o, "%s\"", o ? "," : "");
		inq = 1;
		if (c < 0x20 || c > 0x7e)
			o += (size_t)sprintf(out + o, "\\%03o", c);
		else
			o += (size_t)sprintf(out + o, "%s%c", c == '\\' || c == '"' ? "\\" : "", c);
		i++;
	}
	if (out) {
		if (inq)
			out[o++] = '"';
		out[o] = '\0';
	}
	free(data);
	return out;
}

/* The name auditd recorded for field `name` in the record's ENRICHED part (auparse's
 * interpretation list: NAME=value words, names compared lowercased; a SOCKADDR record's part
 * is SADDR={ ... } to the end), malloc'ed; NULL when none. */
static char *enriched_value(const char *enr, const char *name)
{
	size_t nl = strlen(name);
	if (!enr)
		return NULL;
	if (!strncmp(enr, "SADDR=", 6)) {
		const char *b = strchr(enr + 6, '{');
		return b && strchr(b, '}') && !strcmp(name, "saddr") ? strdup(b) : NULL;
	}
	for (const char *p = enr; *p;) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		const char *eq = memchr(p, '=', w);
		if (eq && (size_t)(eq - p) == nl && !strncasecmp(p, name, nl))
			return strndup(eq + 1, w - nl - 1);
		p += w;
	}
	return NULL;
}

static enum ftype field_type(uint32_t rtype, const char *name, const char *val)
{
	if (rtype == 1309 && *name == 'a' && strcmp(name, "argc") && !strstr(name, "_len"))
		return FT_ESCAPED;	/* EXECVE's a0, a1...: the arguments */
	if ((rtype == RT_AVC && !strcmp(name, "saddr")) ||
	    (rtype == RT_CRYPTO_KEY_USER && !strcmp(name, "fp")))
		return FT_UNCLASSIFIED;
	if (rtype == RT_USER_TTY && !strcmp(name, "msg"))
		return FT_ESCAPED;
	if (rtype == RT_NETFILTER_PKT && !strcmp(name, "saddr"))
		return FT_ADDR;
	if (!strcmp(name, "acct"))
		return val[0] == '"' || all_of(val, isxdigit) ? FT_ESCAPED : FT_UNCLASSIFIED;
	if (rtype == LT_PATH && !strcmp(name, "flags"))
		return FT_PATH_FLAGS;	/* a RHEL4 kernel's */
	if (rtype == RT_MQ_OPEN && !strcmp(name, "mode"))
		return FT_MODE_SHORT;
	if (!strcmp(name, "id") &&
	    (rtype == RT_ADD_GROUP || rtype == RT_GRP_MGMT || rtype == RT_DEL_GROUP))
		return FT_GID;
	if (rtype == RT_TRUSTED_APP) {
		if (val[0] == '"')
			return FT_ESCAPED;
		return !all_of(val, isdigit) && all_of(val, isxdigit) ? FT_ESCAPED :
									FT_UNCLASSIFIED;
	}
	if (rtype == RT_KERN_MODULE && !strcmp(name, "name"))
		return FT_ESCAPED;
	for (size_t i = 0; i < SP_ARRAY_SIZE(field_types); i++)
		if (!strcmp(field_types[i].name, name))
			return (enum ftype)field_types[i].type;
	return FT_UNCLASSIFIED;
}

static char *interpret_value(enum ftype t, const struct idata *id)
{
	const char *v = id->val;
	switch (t) {
	case FT_UID: case FT_GID: return print_id(v, 10, t == FT_GID, id->names);
	case FT_SYSCALL: return print_syscall(id);
	case FT_ARCH: return print_arch(v);
	case FT_EXIT: return print_exit(v);
	case FT_ESCAPED: case FT_KEY: return print_escaped(v);
	case FT_PERM: return print_perm(v);
	case FT_MODE: return print_mode(v, 8, 1);
	case FT_MODE_SHORT: return print_mode(v, 8, 0);
	case FT_SOCKADDR: return print_sockaddr(v);
	case FT_PROMISC: return strdup(strtol(v, NULL, 10) ? "yes" : "no");
	case FT_CAPABILITY:
		return print_named(v, 10, cap_tab, SP_ARRAY_SIZE(cap_tab), "unknown-capability",
				   ~0ul);
	case FT_SUCCESS:
		if (!isdigit((unsigned char)*v))
			return strdup(v);
		return strdup(strtoul(v, NULL, 10) == 1 ? "yes" : strtoul(v, NULL, 10) ? "unset" : "no");
	case FT_A0: case FT_A1: case FT_A2: case FT_A3: return print_arg(t - FT_A0, v, id);
	case FT_SIGNAL: return print_signal(v, 10);
	case FT_LIST:
		return print_named(v, 10, list_tab, SP_ARRAY_SIZE(list_tab), "unknown-list", ~0ul);
	case FT_TTY_DATA: return print_tty_data(v);
	case FT_SESSION: return strdup(strcmp(v, "4294967295") ? v : "unset");
	case FT_CAP_BITMAP: return print_cap_bitmap(v);
	case FT_NFPROTO:
		return print_named(v, 10, nfproto_tab, SP_ARRAY_SIZE(nfproto_tab),
				   "unknown-netfilter-protocol", ~0ul);
	case FT_PROTOCOL: return print_protocol(v, 10);
	case FT_SECCOMP:
		return print_named(v, 16, seccomp_tab, SP_ARRAY_SIZE(seccomp_tab),
				   "unknown-seccomp-code", 0x7fff0000ul);
	case FT_OFLAG: return print_flags_of(v, 'o');
	case FT_PROCTITLE: return print_proctitle(v);
	case FT_PATH_FLAGS: return print_path_flags(v);
	case FT_PERSONALITY: return print_personality(v);
	case FT_MMAP: return print_mmap(v);
	case FT_ICMPTYPE:
		return print_named(v, 10, icmptype_tab, SP_ARRAY_SIZE(icmptype_tab),
				   "unknown-icmp-type", ~0ul);
	case FT_HOOK:
		return print_unknown_plain(v, hook_tab, SP_ARRAY_SIZE(hook_tab), "unknown-hook");
	case FT_NETACTION:
		return print_unknown_plain(v, netaction_tab, SP_ARRAY_SIZE(netaction_tab),
					   "unknown-action");
	case FT_MACPROTO: {
		unsigned long m = strtoul(v, NULL, 16);
		return strdup(m == 0x0800 ? "IP" : m == 0x0806 ? "ARP" : "UNKNOWN");
	}
	case FT_IOCTL: return print_ioctl(v);
	case FT_FANOTIFY:
		if (!isdigit((unsigned char)*v))
			return strdup(v);
		return strdup(strtoul(v, NULL, 10) == 1 ? "allow" : strtoul(v, NULL, 10) == 2 ?
			      "deny" : "unknown");
	case FT_NLMCGRP:
		return strdup(strtoul(v, NULL, 16) == 1 ? "audit-netlink-multicast" : "audit-none");
	case FT_RESOLVE: return print_resolve(v);
	default: return strdup(v);
	}
}

/* The interpretation list's value for the field, as auparse takes it first (a uid or gid name
 * escaped, an "unknown-" one ignored: the printer decides then); malloc'ed, or NULL. */
static char *enriched_first(const char *enriched, enum ftype t, const char *name)
{
	char *out = enriched_value(enriched, name);
	if (out && (!strncmp(out, "unknown-", 8) || t == FT_UID || t == FT_GID)) {
		char *o2 = strncmp(out, "unknown-", 8) ? print_escaped(out) : NULL;
		free(out);
		out = o2;
	}
	return out;
}

/* auparse's path_norm: the components of an absolute name joined in work->b, "." dropped,
 * ".." backing up to the previous '/' without cutting the string there; a name starting with
 * '.' is returned as it is.  work keeps what an earlier call left (auparse's buffer is
 * static): a name without a component returns that. */
static char *path_norm(struct audit_pathbuf *work, const char *name)
{
	char *b = work->b;
	size_t d = 0;
	if (!name || !*name)
		return NULL;
	if (name[0] == '.')
		return strdup(name);
	for (const char *s = name, *e; *s; s = e) {
		while (*s == '/')
			s++;
		for (e = s; *e && *e != '/'; e++)
			;
		size_t n = (size_t)(e - s);
		if (!n)
			break;
		if (n == 1 && s[0] == '.')
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (d > 1)
				do
					d--;
				while (b[d - 1] != '/');
			continue;
		}
		if (d == 0 || b[d - 1] != '/')
			b[d++] = '/';
		if (d + n >= sizeof(work->b)) {
			b[d] = '\0';
			break;
		}
		memcpy(b + d, s, n);
		d += n;
		b[d] = '\0';
	}
	return strdup(b);
}

/* auparse's print_escaped_ext: the name made absolute against cwd (a raw field value). */
static char *print_escaped_ext(const char *val, const char *cwd, struct audit_pathbuf *work)
{
	char *name = print_escaped(val), *dir = NULL, *joined = NULL, *out;
	if (!name)
		return NULL;
	if (*name == '/') {
		if (!strstr(name, ".."))
			return name;
		joined = name;
		name = NULL;
	} else if (!(dir = print_escaped(cwd)) || !(joined = xs("%s/%s", dir, name))) {
		free(dir);
		free(name);
		return NULL;
	}
	if (!(out = path_norm(work, joined))) {
		out = joined;
		joined = NULL;
	}
	free(dir);
	free(name);
	free(joined);
	return out;
}

/* s with every byte below 0x20 written \ooo (auparse's tty escaping), malloc'ed; s is freed. */
static char *tty_escaped(char *s)
{
	size_t n = 0, len = strlen(s);
	for (size_t i = 0; i < len; i++)
		n += (unsigned char)s[i] < 32;
	if (!n)
		return s;
	char *o = malloc(len + 3 * n + 1), *p = o;
	for (size_t i = 0; o && i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 32)
			p += sprintf(p, "\\%c%c%c", '0' + (c >> 6), '0' + ((c >> 3) & 7), '0' + (c & 7));
		else
			*p++ = (char)c;
	}
	if (o)
		*p = '\0';
	free(s);
	return o;
}

char *audit_log_interp_field(const struct audit_ifield *x, struct audit_pathbuf *work)
{
	enum ftype t = field_type(x->rtype, x->name, x->val);
	struct idata id = { x->machine, x->syscall, x->a0, x->a1, x->name, x->val, NULL, x->names };
	char *out = enriched_first(x->enriched, t, x->name);
	if (!out)
		out = x->cwd && t == FT_ESCAPED ? print_escaped_ext(x->val, x->cwd, work) :
						  interpret_value(t, &id);
	return out ? tty_escaped(out) : NULL;
}

int audit_log_field_kind(uint32_t rtype, const char *name, const char *val)
{
	switch (field_type(rtype, name, val)) {
	case FT_UID: return AUDIT_FK_UID;
	case FT_SOCKADDR: return AUDIT_FK_SOCKADDR;
	case FT_SECCOMP: return AUDIT_FK_SECCOMP;
	case FT_ESCAPED:
		/* typetab's ESCAPED_FILE: "name", unless the record type made it plain ESCAPED */
		return !strcmp(name, "name") && rtype != RT_KERN_MODULE ? AUDIT_FK_FILE : AUDIT_FK_OTHER;
	default: return AUDIT_FK_OTHER;
	}
}

/* One field as ausearch's report_interpret prints it. */
static int field_print(FILE *f, char *name, char *val, int comma, uint32_t rtype,
		       struct idata *id)
{
	while (*name == ' ' || *name == '(')
		name++;
	if (!strcmp(name, "acct") && *val && val[strlen(val) - 1] == ':')
		val[strlen(val) - 1] = '\0';
	enum ftype t = field_type(rtype, name, val);
	if (rtype == LT_SYSCALL || rtype == RT_SECCOMP) {
		if (!strcmp(name, "arch")) {
			errno = 0;
			unsigned long a = strtoul(val, NULL, 16);
			if (errno) {
				fprintf(f, "arch conversion error(%s) ", val);
				return 0;
			}
			id->machine = sp_audit_arch_name((uint32_t)a);
		}
		if (id->syscall < 0 && !strcmp(name, "syscall")) {
			errno = 0;
			unsigned long s = strtoul(val, NULL, 10);
			if (errno) {
				fprintf(f, "syscall conversion error(%s) ", val);
				return 0;
			}
			id->syscall = (int)s;
		}
	}
	struct idata cur = *id;
	cur.name = name;
	cur.val = val;
	if (rtype != LT_SYSCALL && rtype != RT_SECCOMP) {
		cur.syscall = 0;	/* ausearch's id.syscall outside SYSCALL/SECCOMP */
		cur.machine = NULL;
	}
	char *out = enriched_first(id->enriched, t, name);
	if (!out && !(out = interpret_value(t, &cur)))
		return -ENOMEM;
	if (t == FT_UNCLASSIFIED) {
		fprintf(f, "%s%c", val, comma ? ',' : ' ');
	} else if (t == FT_KEY) {
		/* several keys: one key= each (each part escaped on its own) */
		char *p = out;
		for (int k = 0;; k++) {
			size_t n = strcspn(p, "\x01");
			int last = !p[n];
			p[n] = '\0';
			if (k)
				fputs(" key=", f);
			audit_log_put_safe(f, p, 0);
			if (last)
				break;
			p += n + 1;
		}
		fputc(' ', f);
	} else {
		audit_log_put_safe(f, out, 0);
		if (t != FT_TTY_DATA)
			fputc(' ', f);
	}
	free(out);
	return 0;
}

/*
 * Cut the next value at ptr (just past '=') as ausearch's loop does: a quoted value to its
 * closing quote, else to the next space, or to a comma before it (*comma = 1) unless the field
 * is a MAC label.  Returns where the next field starts (NULL: the line ends).
 */
static char *value_cut(char *ptr, const char *name, uint32_t rtype, int *comma)
{
	char *str, *sp;
	if (*ptr == '\'' || *ptr == '"') {
		if ((str = strchr(ptr + 1, *ptr)) && *++str)
			*str++ = '\0';
		return str;
	}
	str = strchr(ptr, ',');
	sp = strchr(ptr, ' ');
	if (str && sp && str < sp) {
		if (field_type(rtype, name, sp) == FT_MAC_LABEL) {
			*sp = '\0';
			return sp + 1;
		}
	} else if (str && !sp) {
		if (field_type(rtype, name, ptr) == FT_MAC_LABEL)
			return NULL;
	} else {
		if (sp)
			*sp++ = '\0';
		return sp;
	}
	*str++ = '\0';
	*comma = 1;
	return str;
}

/* The fields after "msg=audit(...)" (str), as ausearch's output_interpreted_record. */
static int fields_print(FILE *f, char *str, char *ptr, uint32_t rtype, struct idata *id)
{
	int found = 0, comma = 0, err;
	while (str && *str && (ptr = strchr(str, '='))) {
		char *name = ptr, *val;
		comma = 0;
		found = 1;
		while (*name != ' ' && name > str)
			name--;
		*ptr++ = '\0';
		fprintf(f, "%s=", str);
		if (!strcmp(name, "msg")) {	/* msg='uid=...: the fields inside */
			str = ptr;
			continue;
		}
		if (*name == '\'')
			name++;
		val = ptr;
		str = value_cut(ptr, name, rtype, &comma);
		if ((err = field_print(f, name, val, comma, rtype, id)))
			return err;
	}
	/* the rest as it is (ausearch's safe_print_string(str, 1): a line of its own, then the
	 * record's newline) */
	if ((!found && !ptr && str) || comma)
		audit_log_put_safe(f, str, str != NULL);
	fputc('\n', f);
	return 0;
}

/* ausearch's n->a0/n->a1 of a SYSCALL record: its a0= and a1= read as hex (0 without). */
static uint64_t syscall_arg(const char *text, const char *field)
{
	const char *p = strstr(text, field);
	return p ? strtoull(p + strlen(field), NULL, 16) : 0;
}

static int record_print(FILE *f, const struct audit_interp_ev *ev,
			const struct audit_interp_rec *rec)
{
	char *line = strndup(rec->text, rec->len), *str, *ptr, *e;
	const char *tn = sp_audit_msgtype_name(rec->type);
	int err;
	if (!line)
		return -ENOMEM;
	struct idata id = { .syscall = -1, .names = ev->names };
	if ((e = strchr(line, INTERP_SEP))) {
		*e = '\0';
		id.enriched = e + 1;
	}
	if (rec->type == LT_SYSCALL) {
		id.a0 = syscall_arg(line, " a0=");
		id.a1 = syscall_arg(line, " a1=");
	}
	str = line;
	if (ev->node && (ptr = strchr(str, ' ')))
		str = ptr + 1;
	/* a line cut at a NUL byte may lose its stamp: ausearch prints no more of it either */
	if (!(ptr = strchr(str, '('))) {
		free(line);
		return 0;
	}
	*ptr++ = '\0';
	if (ev->node)
		fprintf(f, "node=%s ", ev->node);
	if (tn)
		fprintf(f, "type=%s msg=audit(", tn);
	else
		fprintf(f, "%s(", str);
	if (!(str = strchr(ptr, ')'))) {
		free(line);
		return 0;
	}
	*str++ = '\0';
	audit_log_put_date(f, ev->sec);
	fprintf(f, ".%03u:%u) ", ev->msec, ev->serial);
	err = fields_print(f, str, ptr, rec->type, &id);
	free(line);
	return err;
}

int audit_log_interpret(FILE *f, const struct audit_interp_ev *ev)
{
	int err = 0;
	if (!ev->nrec)
		return 0;
	fputs("----\n", f);
	/* last record first; a daemon record (1200-1299) alone */
	for (size_t i = ev->nrec; i-- > 0 && !err;) {
		err = record_print(f, ev, &ev->rec[i]);
		if (log_type_is_daemon(ev->rec[ev->nrec - 1].type))
			break;
	}
	return err;
}

SP_API int sp_audit_log_event_interpret(const struct sp_audit_log_event *lev, const uint8_t *mask,
					sp_audit_log_put_fn put, void *ud)
{
	char *buf = NULL;
	size_t len = 0;
	int err = 0;
	struct audit_interp_ev ev = { lev->sec, lev->msec, lev->serial, lev->node_cstr, NULL, 0,
				      NULL };
	struct audit_interp_rec *v = calloc(lev->nrec ? lev->nrec : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < lev->nrec; i++)
		if (!mask || mask[i])
			v[ev.nrec++] = (struct audit_interp_rec){ lev->rec[i].type, lev->rec[i].text,
								  lev->rec[i].len };
	ev.rec = v;
	FILE *f = ev.nrec ? open_memstream(&buf, &len) : NULL;
	if (ev.nrec && !f)
		err = -ENOMEM;
	if (f) {
		err = audit_log_interpret(f, &ev);
		if (fclose(f) && !err)
			err = -ENOMEM;
		if (!err)
			err = put(ud, buf, len);
	}
	free(buf);
	free(v);
	return err;
}
