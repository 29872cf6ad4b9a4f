/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * classes.c - the syscall classes of the engines, x86_64 with IA32 emulation: the class tables
 * (include/asm-generic/audit_*.h as of 6.1, registered by arch/x86/kernel/audit_64.c and
 * arch/x86/ia32/audit.c), audit_match_class(), the class selectors of a rule's mask
 * (audit_to_entry_common()), audit_classify_syscall() and the perm bits of an event
 * (audit_match_perm() of kernel/auditsc.c, computed once per event).
 *
 * Invariants: the tables are built once (pthread_once) and never change; a class mask holds
 * only syscall numbers below 2048 - AUDIT_SYSCALL_CLASSES, so expanding selectors never sets a
 * selector bit.  Learned from the kernel sources, not copied.
 */
#include <pthread.h>
#include <string.h>

#include "audit/filter/filter_int.h"

/* x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl). */
static const uint16_t x64_dir_write[] = { 82, 83, 84, 85, 86, 87, 88, 133, 258, 259, 263, 264, 265,
					  266, 316 };
static const uint16_t x64_write_extra[] = { 163, 167, 179, 76, 77, 49, 285 };
static const uint16_t x64_read[] = { 89, 179, 194, 195, 196, 191, 192, 193, 267 };
static const uint16_t x64_chattr[] = { 90, 91, 92, 93, 94, 188, 189, 190, 197, 198, 199, 260, 268,
				       86, 265 };
static const uint16_t x64_signal[] = { 62, 234, 200 };
/* i386 numbers (syscall_32.tbl). */
static const uint16_t x32_dir_write[] = { 38, 39, 40, 8, 9, 10, 83, 14, 296, 297, 301, 302, 303,
					  304, 353 };
static const uint16_t x32_write_extra[] = { 51, 87, 131, 92, 193, 93, 194, 361, 324 };
static const uint16_t x32_read[] = { 85, 131, 232, 233, 234, 229, 230, 231, 305 };
static const uint16_t x32_chattr[] = { 15, 94, 182, 95, 16, 226, 227, 228, 235, 236, 237, 298, 306,
				       9, 303, 212, 207, 198 };
static const uint16_t x32_signal[] = { 37, 270, 238 };

static uint32_t class_masks[CL_NR][ARD_MASK_WORDS];
static pthread_once_t class_once = PTHREAD_ONCE_INIT;

static void class_add(int cls, const uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		class_masks[cls][v[i] / 32] |= 1u << (v[i] % 32);
}

/* audit_classes_init() + audit_register_class() for x86_64 with IA32 emulation: the write
 * classes hold the dir_write syscalls too. */
static void classes_init(void)
{
#define REG(cls, tab) { cls, tab, SP_ARRAY_SIZE(tab) }
	static const struct { int cls; const uint16_t *v; size_t n; } reg[] = {
		REG(CL_DIR_WRITE, x64_dir_write), REG(CL_WRITE, x64_dir_write),
		REG(CL_WRITE, x64_write_extra), REG(CL_READ, x64_read),
		REG(CL_CHATTR, x64_chattr), REG(CL_SIGNAL, x64_signal),
		REG(CL_DIR_WRITE_32, x32_dir_write), REG(CL_WRITE_32, x32_dir_write),
		REG(CL_WRITE_32, x32_write_extra), REG(CL_READ_32, x32_read),
		REG(CL_CHATTR_32, x32_chattr), REG(CL_SIGNAL_32, x32_signal),
	};
#undef REG
	for (size_t i = 0; i < SP_ARRAY_SIZE(reg); i++)
		class_add(reg[i].cls, reg[i].v, reg[i].n);
}

static const uint32_t *audit_class_mask(int cls)
{
	pthread_once(&class_once, classes_init);
	return class_masks[cls];
}

/* audit_to_entry_common(): bit 2047 - c of a rule's mask selects class c; each set selector of
 * the CL_NR registered classes is cleared and its class's syscalls added (the kernel also clears
 * the selectors of its six unregistered classes, 2032..2037: no syscall has those numbers). */
void audit_class_expand(uint32_t mask[ARD_MASK_WORDS])
{
	for (int i = 0; i < CL_NR; i++) {
		uint32_t bit = ARD_MASK_WORDS * 32 - (uint32_t)i - 1;
		uint32_t *p = &mask[bit / 32];
		if (!(*p & (1u << (bit % 32))))
			continue;
		*p &= ~(1u << (bit % 32));
		const uint32_t *cls = audit_class_mask(i);
		for (int j = 0; j < ARD_MASK_WORDS; j++)
			mask[j] |= cls[j];
	}
}

/* kernel/auditfilter.c: audit_match_class() */
int audit_match_class(int cls, uint32_t nr)
{
	if (nr >= ARD_MASK_WORDS * 32 || cls < 0 || cls >= CL_NR)
		return 0;
	return (audit_class_mask(cls)[nr / 32] >> (nr % 32)) & 1;
}

/* arch/x86/kernel/audit_64.c: audit_classify_syscall(); ia32_classify_syscall() for i386. */
int audit_classify_syscall(uint32_t arch, uint32_t nr)
{
	if (arch == SP_AUDIT_ARCH_I386) {
		switch (nr) {
		case 5: return SC_OPEN;
		case 295: return SC_OPENAT;
		case 102: return SC_SOCKETCALL;
		case 11: case 358: return SC_EXECVE;
		case 437: return SC_OPENAT2;
		default: return SC_COMPAT;
		}
	}
	switch (nr) {
	case 2: return SC_OPEN;
	case 257: return SC_OPENAT;
	case 59: case 322: return SC_EXECVE;
	case 437: return SC_OPENAT2;
	default: return SC_NATIVE;
	}
}

/* ACC_MODE(x): "\004\002\006\006"[(x) & O_ACCMODE] */
static uint32_t acc_mode(uint64_t flags)
{
	static const uint8_t m[4] = { 4, 2, 6, 6 };
	return m[flags & 3];
}

/* The bits b such that audit_match_perm(ctx, b) is true, for the event's arch/major/args. */
uint32_t audit_event_perm_bits(const struct sp_audit_event *ev)
{
	uint32_t n = (uint32_t)ev->c_major, b = 0;
	switch (audit_classify_syscall(ev->c_arch, n)) {
	case SC_NATIVE:
		b |= audit_match_class(CL_WRITE, n) ? PERM_WRITE : 0;
		b |= audit_match_class(CL_READ, n) ? PERM_READ : 0;
		b |= audit_match_class(CL_CHATTR, n) ? PERM_ATTR : 0;
		return b;
	case SC_COMPAT:
		b |= audit_match_class(CL_WRITE_32, n) ? PERM_WRITE : 0;
		b |= audit_match_class(CL_READ_32, n) ? PERM_READ : 0;
		b |= audit_match_class(CL_CHATTR_32, n) ? PERM_ATTR : 0;
		return b;
	case SC_OPEN: return acc_mode(ev->c_argv[1]);
	case SC_OPENAT: return acc_mode(ev->c_argv[2]);
	case SC_SOCKETCALL: return ev->c_argv[0] == 2 /* SYS_BIND */ ? PERM_WRITE : 0;
	case SC_EXECVE: return PERM_EXEC;
	case SC_OPENAT2: return acc_mode((uint32_t)ev->openat2_flags);
	default: return 0;
	}
}
