/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * interpret_tab.h - the value-name tables of auparse 3.0.9 (libauparse, LGPL-2.1-or-later,
 * Red Hat) that interpret.c prints ausearch -i's names from: capabilities, signals, socket
 * families and types, open(2) flags, send/recv flags, access(2) modes, seccomp actions.
 * Values are the Linux ones (x86_64 and i386 agree on all of them).
 * Invariant: within a table a value appears once, except where auparse's own table repeats
 * one (the first entry is the name then).
 */
#ifndef SP_AUDIT_INTERPRET_TAB_H
#define SP_AUDIT_INTERPRET_TAB_H

struct itab {
	unsigned long v;
	const char *s;
};

static const struct itab cap_tab[] = {
	{ 0, "chown" },
	{ 1, "dac_override" },
	{ 2, "dac_read_search" },
	{ 3, "fowner" },
	{ 4, "fsetid" },
	{ 5, "kill" },
	{ 6, "setgid" },
	{ 7, "setuid" },
	{ 8, "setpcap" },
	{ 9, "linux_immutable" },
	{ 10, "net_bind_service" },
	{ 11, "net_broadcast" },
	{ 12, "net_admin" },
	{ 13, "net_raw" },
	{ 14, "ipc_lock" },
	{ 15, "ipc_owner" },
	{ 16, "sys_module" },
	{ 17, "sys_rawio" },
	{ 18, "sys_chroot" },
	{ 19, "sys_ptrace" },
	{ 20, "sys_pacct" },
	{ 21, "sys_admin" },
	{ 22, "sys_boot" },
	{ 23, "sys_nice" },
	{ 24, "sys_resource" },
	{ 25, "sys_time" },
	{ 26, "sys_tty_config" },
	{ 27, "mknod" },
	{ 28, "lease" },
	{ 29, "audit_write" },
	{ 30, "audit_control" },
	{ 31, "setfcap" },
	{ 32, "mac_override" },
	{ 33, "mac_admin" },
	{ 34, "syslog" },
	{ 35, "wake_alarm" },
	{ 36, "block_suspend" },
	{ 37, "audit_read" },
	{ 38, "perfmon" },
	{ 39, "bpf" },
	{ 40, "checkpoint_restore" },
};

static const struct itab sig_tab[] = {
	{ 0, "SIG0" },
	{ 1, "SIGHUP" },
	{ 2, "SIGINT" },
	{ 3, "SIGQUIT" },
	{ 4, "SIGILL" },
	{ 5, "SIGTRAP" },
	{ 6, "SIGABRT" },
	{ 7, "SIGBUS" },
	{ 8, "SIGFPE" },
	{ 9, "SIGKILL" },
	{ 10, "SIGUSR1" },
	{ 11, "SIGSEGV" },
	{ 12, "SIGUSR2" },
	{ 13, "SIGPIPE" },
	{ 14, "SIGALRM" },
	{ 15, "SIGTERM" },
	{ 16, "SIGSTKFLT" },
	{ 17, "SIGCHLD" },
	{ 18, "SIGCONT" },
	{ 19, "SIGSTOP" },
	{ 20, "SIGTSTP" },
	{ 21, "SIGTTIN" },
	{ 22, "SIGTTOU" },
	{ 23, "SIGURG" },
	{ 24, "SIGXCPU" },
	{ 25, "SIGXFSZ" },
	{ 26, "SIGVTALRM" },
	{ 27, "SIGPROF" },
	{ 28, "SIGWINCH" },
	{ 29, "SIGIO" },
	{ 30, "IGPWR" },
	{ 31, "SIGSYS" },
};

static const struct itab fam_tab[] = {
	{ 1, "local" },
	{ 2, "inet" },
	{ 3, "ax25" },
	{ 4, "ipx" },
	{ 5, "appletalk" },
	{ 6, "netrom" },
	{ 7, "bridge" },
	{ 8, "atmpvc" },
	{ 9, "x25" },
	{ 10, "inet6" },
	{ 11, "rose" },
	{ 12, "decnet" },
	{ 13, "netbeui" },
	{ 14, "security" },
	{ 15, "key" },
	{ 16, "netlink" },
	{ 17, "packet" },
	{ 18, "ash" },
	{ 19, "econet" },
	{ 20, "atmsvc" },
	{ 21, "rds" },
	{ 22, "sna" },
	{ 23, "irda" },
	{ 24, "pppox" },
	{ 25, "wanpipe" },
	{ 26, "llc" },
	{ 29, "can" },
	{ 30, "tipc" },
	{ 31, "bluetooth" },
	{ 32, "iucv" },
	{ 33, "rxrpc" },
	{ 34, "isdn" },
	{ 35, "phonet" },
	{ 36, "ieee802154" },
	{ 37, "caif" },
	{ 38, "alg" },
	{ 39, "nfc" },
	{ 40, "vsock" },
	{ 41, "kcm" },
	{ 42, "qipcrtr" },
	{ 43, "smc" },
	{ 44, "xdp" },
};

static const struct itab socktype_tab[] = {
	{ 1, "SOCK_STREAM" },
	{ 2, "SOCK_DGRAM" },
	{ 3, "SOCK_RAW" },
	{ 4, "SOCK_RDM" },
	{ 5, "SOCK_SEQPACKET" },
	{ 6, "SOCK_DCCP" },
	{ 10, "SOCK_PACKET" },
};

static const struct itab oflag_tab[] = {
	{ 01, "O_WRONLY" },
	{ 02, "O_RDWR" },
	{ 0100, "O_CREAT" },
	{ 0200, "O_EXCL" },
	{ 0400, "O_NOCTTY" },
	{ 01000, "O_TRUNC" },
	{ 02000, "O_APPEND" },
	{ 04000, "O_NONBLOCK" },
	{ 010000, "O_DSYNC" },
	{ 020000, "O_ASYNC" },
	{ 040000, "O_DIRECT" },
	{ 0200000, "O_DIRECTORY" },
	{ 0400000, "O_NOFOLLOW" },
	{ 01000000, "O_NOATIME" },
	{ 02000000, "O_CLOEXEC" },
	{ 04000000, "__O_SYNC" },
	{ 010000000, "O_PATH" },
	{ 020000000, "__O_TMPFILE" },
};

static const struct itab recv_tab[] = {
	{ 0x00000001, "MSG_OOB" },
	{ 0x00000002, "MSG_PEEK" },
	{ 0x00000004, "MSG_DONTROUTE" },
	{ 0x00000008, "MSG_CTRUNC" },
	{ 0x00000010, "MSG_PROXY" },
	{ 0x00000020, "MSG_TRUNC" },
	{ 0x00000040, "MSG_DONTWAIT" },
	{ 0x00000080, "MSG_EOR" },
	{ 0x00000100, "MSG_WAITALL" },
	{ 0x00000200, "MSG_FIN" },
	{ 0x00000400, "MSG_SYN" },
	{ 0x00000800, "MSG_CONFIRM" },
	{ 0x00001000, "MSG_RST" },
	{ 0x00002000, "MSG_ERRQUEUE" },
	{ 0x00004000, "MSG_NOSIGNAL" },
	{ 0x00008000, "MSG_MORE" },
	{ 0x00010000, "MSG_WAITFORONE" },
	{ 0x00020000, "MSG_SENDPAGE_NOTLAST" },
	{ 0x00040000, "MSG_BATCH" },
	{ 0x20000000, "MSG_FASTOPEN" },
	{ 0x40000000, "MSG_CMSG_CLOEXEC" },
	{ 0x80000000, "MSG_CMSG_COMPAT" },
};

static const struct itab access_tab[] = {
	{ 0x1U, "X_OK" },
	{ 0x2U, "W_OK" },
	{ 0x4U, "R_OK" },
};

static const struct itab seccomp_tab[] = {
	{ 0x80000000U, "kill-process" },
	{ 0x00000000U, "kill" },
	{ 0x00030000U, "trap" },
	{ 0x00050000U, "errno" },
	{ 0x7fc00000U, "user-notify" },
	{ 0x7ff00000U, "trace" },
	{ 0x7ffc0000U, "log" },
	{ 0x7fff0000U, "allow" },
};

static const struct itab nfproto_tab[] = {
	{ 0, "unspecified" }, { 1, "inet" }, { 2, "ipv4" }, { 3, "arp" }, { 5, "netdev" },
	{ 7, "bridge" }, { 10, "ipv6" }, { 12, "decnet" },
};

static const struct itab ftype_tab[] = {
	{ 0140000, "socket" }, { 0120000, "link" }, { 0100000, "file" }, { 0060000, "block" },
	{ 0040000, "dir" }, { 0020000, "character" }, { 0010000, "fifo" },
};

/* auditctl's filter list names (libaudit's flagtab) */
static const struct itab list_tab[] = {
	{ 1, "task" }, { 4, "exit" }, { 0, "user" }, { 5, "exclude" }, { 6, "filesystem" },
};

#endif
