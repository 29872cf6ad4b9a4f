/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * names.c - the small name tables of the audit rule language (fields, machines, file
 * types, filesystem types, operators, field comparisons) and lookups over the generated tables
 * (lang/syscall_tables.c, lang/lookup_tables.c).  Facts follow libaudit 3.0.9 (audit.md sections 1.6, 1.7,
 * 1.11, 4); all name lookups are case-insensitive like libaudit's.
 * Invariant: tables are const; nothing here allocates or keeps state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "audit/lang/lang_int.h"

static const struct audit_name_ent field_tab[] = {
	{ AF_PID, "pid" }, { AF_UID, "uid" }, { AF_EUID, "euid" }, { AF_SUID, "suid" },
	{ AF_FSUID, "fsuid" }, { AF_GID, "gid" }, { AF_EGID, "egid" }, { AF_SGID, "sgid" },
	{ AF_FSGID, "fsgid" }, { AF_LOGINUID, "auid" }, { AF_LOGINUID, "loginuid" },
	{ AF_PERS, "pers" }, { AF_ARCH, "arch" }, { AF_MSGTYPE, "msgtype" },
	{ AF_SUBJ_USER, "subj_user" }, { AF_SUBJ_ROLE, "subj_role" }, { AF_SUBJ_TYPE, "subj_type" },
	{ AF_SUBJ_SEN, "subj_sen" }, { AF_SUBJ_CLR, "subj_clr" }, { AF_PPID, "ppid" },
	{ AF_OBJ_USER, "obj_user" }, { AF_OBJ_ROLE, "obj_role" }, { AF_OBJ_TYPE, "obj_type" },
	{ AF_OBJ_LEV_LOW, "obj_lev_low" }, { AF_OBJ_LEV_HIGH, "obj_lev_high" },
	{ AF_SESSIONID, "sessionid" }, { AF_FSTYPE, "fstype" }, { AF_DEVMAJOR, "devmajor" },
	{ AF_DEVMINOR, "devminor" }, { AF_INODE, "inode" }, { AF_EXIT, "exit" },
	{ AF_SUCCESS, "success" }, { AF_WATCH, "path" }, { AF_PERM, "perm" }, { AF_DIR, "dir" },
	{ AF_FILETYPE, "filetype" }, { AF_OBJ_UID, "obj_uid" }, { AF_OBJ_GID, "obj_gid" },
	{ AF_FIELD_COMPARE, "field_compare" }, { AF_EXE, "exe" }, { AF_SADDR_FAM, "saddr_fam" },
	{ AF_ARG0, "a0" }, { AF_ARG1, "a1" }, { AF_ARG2, "a2" }, { AF_ARG3, "a3" },
	{ AF_FILTERKEY, "key" },
};

static const struct { const char *name; int mach; } mach_tab[] = {
	{ "i386", AUDIT_MACH_X86 }, { "i486", AUDIT_MACH_X86 }, { "i586", AUDIT_MACH_X86 },
	{ "i686", AUDIT_MACH_X86 }, { "x86_64", AUDIT_MACH_X86_64 }, { "ppc64", AUDIT_MACH_PPC64 },
	{ "ppc64le", AUDIT_MACH_PPC64LE }, { "ppc", AUDIT_MACH_PPC }, { "s390x", AUDIT_MACH_S390X },
	{ "s390", AUDIT_MACH_S390 }, { "aarch64", AUDIT_MACH_AARCH64 },
	{ "armv8l", AUDIT_MACH_AARCH64 }, { "arm", AUDIT_MACH_ARM }, { "armeb", AUDIT_MACH_ARM },
	{ "armv5tejl", AUDIT_MACH_ARM }, { "armv5tel", AUDIT_MACH_ARM },
	{ "armv6l", AUDIT_MACH_ARM }, { "armv7l", AUDIT_MACH_ARM },
};

static const struct { int mach; uint32_t elf; const char *name; } elf_tab[] = {
	{ AUDIT_MACH_X86, AUDIT_ELF_I386, "i386" }, { AUDIT_MACH_X86_64, AUDIT_ELF_X86_64, "x86_64" },
	{ AUDIT_MACH_PPC64, AUDIT_ELF_PPC64, "ppc64" }, { AUDIT_MACH_PPC, AUDIT_ELF_PPC, "ppc" },
	{ AUDIT_MACH_S390X, AUDIT_ELF_S390X, "s390x" }, { AUDIT_MACH_S390, AUDIT_ELF_S390, "s390" },
	{ AUDIT_MACH_ARM, AUDIT_ELF_ARM, "armeb" }, { AUDIT_MACH_AARCH64, AUDIT_ELF_AARCH64, "aarch64" },
	{ AUDIT_MACH_PPC64LE, AUDIT_ELF_PPC64LE, "ppc64le" },
};

static const struct audit_name_ent ftype_tab[] = {
	{ 0010000, "fifo" }, { 0020000, "character" }, { 0040000, "dir" }, { 0060000, "block" },
	{ 0100000, "file" }, { 0120000, "link" }, { 0140000, "socket" },
};

static const struct { uint32_t magic; const char *name; } fstype_tab[] = {
	{ 0x74726163u, "tracefs" }, { 0x64626720u, "debugfs" },
};

/* AUDIT_COMPARE_* numbers: the symmetric table of audit.md 1.11, as (f1, f2, value). */
static const struct { uint8_t f1, f2, v; } cmp_tab[] = {
	{ AF_UID, AF_OBJ_UID, 1 }, { AF_GID, AF_OBJ_GID, 2 }, { AF_EUID, AF_OBJ_UID, 3 },
	{ AF_EGID, AF_OBJ_GID, 4 }, { AF_LOGINUID, AF_OBJ_UID, 5 }, { AF_SUID, AF_OBJ_UID, 6 },
	{ AF_SGID, AF_OBJ_GID, 7 }, { AF_FSUID, AF_OBJ_UID, 8 }, { AF_FSGID, AF_OBJ_GID, 9 },
	{ AF_UID, AF_LOGINUID, 10 }, { AF_UID, AF_EUID, 11 }, { AF_UID, AF_FSUID, 12 },
	{ AF_UID, AF_SUID, 13 }, { AF_LOGINUID, AF_FSUID, 14 }, { AF_LOGINUID, AF_SUID, 15 },
	{ AF_LOGINUID, AF_EUID, 16 }, { AF_EUID, AF_SUID, 17 }, { AF_EUID, AF_FSUID, 18 },
	{ AF_SUID, AF_FSUID, 19 }, { AF_GID, AF_EGID, 20 }, { AF_GID, AF_FSGID, 21 },
	{ AF_GID, AF_SGID, 22 }, { AF_EGID, AF_FSGID, 23 }, { AF_EGID, AF_SGID, 24 },
	{ AF_SGID, AF_FSGID, 25 },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

int audit_mach_from_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(mach_tab); i++)
		if (!strcasecmp(mach_tab[i].name, name))
			return mach_tab[i].mach;
	return -1;
}

int audit_mach_from_elf(uint32_t elf)
{
	for (size_t i = 0; i < ARRAY_LEN(elf_tab); i++)
		if (elf_tab[i].elf == elf)
			return elf_tab[i].mach;
	return -1;
}

uint32_t audit_mach_to_elf(int mach)
{
	for (size_t i = 0; i < ARRAY_LEN(elf_tab); i++)
		if (elf_tab[i].mach == mach)
			return elf_tab[i].elf;
	return 0;
}

const char *audit_mach_name(int mach)
{
	for (size_t i = 0; i < ARRAY_LEN(elf_tab); i++)
		if (elf_tab[i].mach == mach)
			return elf_tab[i].name;
	return NULL;
}

int audit_mach_host(void)
{
	struct utsname u;
	if (uname(&u))
		return -1;
	return audit_mach_from_name(u.machine);
}

const struct audit_sc_ent *audit_sc_table(int mach, size_t *n)
{
	switch (mach) {
	case AUDIT_MACH_X86_64:
		*n = audit_sc_x86_64_n;
		return audit_sc_x86_64;
	case AUDIT_MACH_X86:
		*n = audit_sc_i386_n;
		return audit_sc_i386;
	case AUDIT_MACH_AARCH64:
		*n = audit_sc_aarch64_n;
		return audit_sc_aarch64;
	default:
		*n = 0;
		return NULL;
	}
}

static const uint16_t *sc_byname(int mach)
{
	switch (mach) {
	case AUDIT_MACH_X86_64: return audit_sc_x86_64_byname;
	case AUDIT_MACH_X86: return audit_sc_i386_byname;
	case AUDIT_MACH_AARCH64: return audit_sc_aarch64_byname;
	default: return NULL;
	}
}

/* Binary search of the name index: names are [a-z0-9_], so strcasecmp() orders them exactly as
 * the generator's C-locale sort did.  ~9 comparisons for 450 names. */
int audit_sc_by_name(int mach, const char *name)
{
	size_t n;
	const struct audit_sc_ent *t = audit_sc_table(mach, &n);
	const uint16_t *ix = sc_byname(mach);
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcasecmp(t[ix[mid]].name, name);
		if (!c)
			return t[ix[mid]].nr;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const char *audit_sc_by_nr(int mach, int nr)
{
	size_t n;
	const struct audit_sc_ent *t = audit_sc_table(mach, &n);
	size_t lo = 0, hi = n;
	while (lo < hi) {	/* sorted by nr; the first of equal numbers is libaudit's name */
		size_t mid = (lo + hi) / 2;
		if (t[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && t[lo].nr == nr ? t[lo].name : NULL;
}

static int name_lookup(const struct audit_name_ent *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(t[i].name, name))
			return t[i].num;
	return -1;
}

static const char *num_lookup(const struct audit_name_ent *t, size_t n, int num)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].num == num)
			return t[i].name;
	return NULL;
}

int audit_field_by_name(const char *name)
{
	return name_lookup(field_tab, ARRAY_LEN(field_tab), name);
}

const char *audit_field_name(uint32_t id)
{
	if (id == AF_LOGINUID_SET)
		return "loginuid_set";
	return num_lookup(field_tab, ARRAY_LEN(field_tab), (int)id);
}

int audit_ftype_by_name(const char *name)
{
	return name_lookup(ftype_tab, ARRAY_LEN(ftype_tab), name);
}

const char *audit_ftype_name(uint32_t v)
{
	return num_lookup(ftype_tab, ARRAY_LEN(ftype_tab), (int)v);
}

int64_t audit_fstype_by_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(fstype_tab); i++)
		if (!strcasecmp(fstype_tab[i].name, name))
			return fstype_tab[i].magic;
	return -1;
}

const char *audit_fstype_name(uint32_t v)
{
	for (size_t i = 0; i < ARRAY_LEN(fstype_tab); i++)
		if (fstype_tab[i].magic == v)
			return fstype_tab[i].name;
	return NULL;
}

/* A record-type name, or libaudit's spelling of unnamed types "UNKNOWN[N]" (case-sensitive
 * prefix, a ']' required, at most 7 characters of N read as base-10 strtol). */
int audit_msgtype_by_name(const char *name)
{
	int v = name_lookup(audit_msgtype_tab, audit_msgtype_tab_n, name);
	if (v >= 0 || strncmp(name, "UNKNOWN[", 8))
		return v;
	const char *end = strchr(name + 8, ']');
	if (!end)
		return -1;
	char num[8];
	size_t n = (size_t)(end - (name + 8));
	if (n > sizeof(num) - 1)
		n = sizeof(num) - 1;
	memcpy(num, name + 8, n);
	num[n] = 0;
	return (int)strtol(num, NULL, 10);
}

const char *audit_msgtype_name(uint32_t v)
{
	return v > 0x7fffffffu ? NULL : num_lookup(audit_msgtype_tab, audit_msgtype_tab_n, (int)v);
}

/* libaudit's audit_name_to_errno: an optional '-' negates; 0 means unknown. */
int audit_errno_by_name(const char *name)
{
	int neg = name[0] == '-';
	int v = name_lookup(audit_errno_tab, audit_errno_tab_n, name + neg);
	if (v < 0)
		return 0;
	return neg ? -v : v;
}

const char *audit_errno_name(int e)
{
	return num_lookup(audit_errno_tab, audit_errno_tab_n, e);
}

const char *audit_op_text(uint32_t op)
{
	return audit_op_str(audit_to_op(op));
}

int audit_compare_value(int f1, int f2)
{
	for (size_t i = 0; i < ARRAY_LEN(cmp_tab); i++)
		if ((cmp_tab[i].f1 == f1 && cmp_tab[i].f2 == f2) ||
		    (cmp_tab[i].f1 == f2 && cmp_tab[i].f2 == f1))
			return cmp_tab[i].v;
	return -1;
}

int audit_compare_fields(uint32_t v, int *f1, int *f2)
{
	for (size_t i = 0; i < ARRAY_LEN(cmp_tab); i++)
		if (cmp_tab[i].v == v) {
			*f1 = cmp_tab[i].f1;
			*f2 = cmp_tab[i].f2;
			return 0;
		}
	return -1;
}

const char *audit_list_name(uint32_t list)
{
	static const char *const names[] = { "user", "task", "entry", "watch", "exit", "exclude",
					     "filesystem", "io_uring" };
	return list < ARRAY_LEN(names) ? names[list] : NULL;
}

/* ---- public wrappers ---- */

static int mach_of(const char *machine)
{
	return machine ? audit_mach_from_name(machine) : audit_mach_host();
}

SP_API int sp_audit_syscall_lookup(const char *machine, const char *name)
{
	size_t n;
	int m = mach_of(machine);
	if (!name || m < 0 || !audit_sc_table(m, &n))
		return -EINVAL;
	int nr = audit_sc_by_name(m, name);
	return nr < 0 ? -ENOENT : nr;
}

SP_API const char *sp_audit_syscall_name(const char *machine, int nr)
{
	int m = mach_of(machine);
	return m < 0 ? NULL : audit_sc_by_nr(m, nr);
}

SP_API int sp_audit_arch_lookup(const char *host, const char *name, uint32_t *arch)
{
	int m;
	if (!name || !arch)
		return -EINVAL;
	if (!strcasecmp(name, "b64") || !strcasecmp(name, "b32")) {
		m = mach_of(host);
		int b32 = !strcasecmp(name, "b32");
		if (b32 && m == AUDIT_MACH_X86_64)
			m = AUDIT_MACH_X86;
		else if (b32 && m == AUDIT_MACH_PPC64)
			m = AUDIT_MACH_PPC;
		else if (b32 && m == AUDIT_MACH_S390X)
			m = AUDIT_MACH_S390;
		else if (b32 && m == AUDIT_MACH_AARCH64)
			m = AUDIT_MACH_ARM;
		if (!b32 && (m == AUDIT_MACH_X86 || m == AUDIT_MACH_PPC || m == AUDIT_MACH_S390 ||
			     m == AUDIT_MACH_ARM))
			return -EINVAL;
	} else {
		m = audit_mach_from_name(name);
	}
	uint32_t elf = audit_mach_to_elf(m);
	if (!elf)
		return -EINVAL;
	*arch = elf;
	return 0;
}

SP_API const char *sp_audit_arch_name(uint32_t arch)
{
	return audit_mach_name(audit_mach_from_elf(arch));
}

SP_API const char *sp_audit_field_name(uint32_t id)
{
	return audit_field_name(id);
}

SP_API int sp_audit_field_lookup(const char *name)
{
	int v = name ? audit_field_by_name(name) : -1;
	return v < 0 ? -ENOENT : v;
}

SP_API const char *sp_audit_msgtype_name(uint32_t type)
{
	return audit_msgtype_name(type);
}

SP_API int sp_audit_msgtype_lookup(const char *name)
{
	int v = name ? audit_msgtype_by_name(name) : -1;
	return v < 0 ? -ENOENT : v;
}

SP_API const char *sp_audit_errno_name(int err)
{
	return audit_errno_name(err);
}

SP_API int sp_audit_errno_lookup(const char *name, int *err)
{
	int v = name ? audit_errno_by_name(name) : 0;
	if (!v)
		return -ENOENT;
	*err = v;
	return 0;
}

SP_API const char *sp_audit_op_text(uint32_t op)
{
	return audit_op_text(op);
}
