/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * norm_int.h - auparse's event model (normalize.c) shared with its normalizer (norm_rules.c):
 * records of name=value fields and auparse's cursor over them, and the normalizer's result.
 *
 * Invariants: a record's fields point into its own copy of the line (or into owned strings);
 * nev.cur is a record index or n (past the end, auparse's NULL cursor); nrec.cur is that
 * record's field cursor, kept while the record cursor is elsewhere, as auparse keeps it.
 */
#ifndef SP_AUDIT_NORM_INT_H
#define SP_AUDIT_NORM_INT_H

#include <stdint.h>
#include "audit/log/log_int.h"

/* Record types (linux/audit.h, libaudit.h) the normalizer tells apart. */
enum {
	T_USER = 1005, T_LOGIN = 1006, T_USER_AUTH = 1100, T_USER_ACCT = 1101,
	T_USER_MGMT = 1102, T_CRED_ACQ = 1103, T_CRED_DISP = 1104, T_USER_START = 1105,
	T_USER_END = 1106, T_USER_AVC = 1107, T_USER_CHAUTHTOK = 1108, T_USER_ERR = 1109,
	T_CRED_REFR = 1110, T_USYS_CONFIG = 1111, T_USER_LOGIN = 1112, T_USER_LOGOUT = 1113,
	T_ADD_USER = 1114, T_DEL_USER = 1115, T_ADD_GROUP = 1116, T_DEL_GROUP = 1117,
	T_CHGRP_ID = 1119, T_TEST = 1120, T_TRUSTED_APP = 1121, T_USER_SELINUX_ERR = 1122,
	T_USER_CMD = 1123, T_USER_TTY = 1124, T_CHUSER_ID = 1125, T_GRP_AUTH = 1126,
	T_SYSTEM_BOOT = 1127, T_SYSTEM_SHUTDOWN = 1128, T_SYSTEM_RUNLEVEL = 1129,
	T_SERVICE_START = 1130, T_SERVICE_STOP = 1131, T_GRP_MGMT = 1132, T_GRP_CHAUTHTOK = 1133,
	T_ACCT_LOCK = 1135, T_ACCT_UNLOCK = 1136, T_USER_DEVICE = 1137, T_SOFTWARE_UPDATE = 1138,
	T_DAEMON_START = 1200, T_DAEMON_ABORT = 1202, T_DAEMON_ACCEPT = 1207,
	T_LAST_DAEMON = 1299, T_SYSCALL = 1300, T_PATH = 1302, T_CONFIG_CHANGE = 1305,
	T_CWD = 1307, T_TTY = 1319, T_EOE = 1320, T_NETFILTER_CFG = 1325, T_SECCOMP = 1326,
	T_PROCTITLE = 1327, T_FEATURE_CHANGE = 1328, T_KERN_MODULE = 1330, T_FANOTIFY = 1331,
	T_TIME_INJOFFSET = 1332, T_TIME_ADJNTPVAL = 1333, T_BPF = 1334, T_EVENT_LISTENER = 1335,
	T_AVC = 1400, T_SELINUX_ERR = 1401, T_MAC_POLICY_LOAD = 1403, T_MAC_STATUS = 1404,
	T_MAC_CONFIG_CHANGE = 1405, T_MAC_UNLBL_ALLOW = 1406, T_MAC_MAP_ADD = 1409,
	T_MAC_MAP_DEL = 1410, T_MAC_CALIPSO_DEL = 1419, T_LAST_SELINUX = 1499,
	T_ANOM_PROMISCUOUS = 1700, T_ANOM_ABEND = 1701, T_ANOM_LINK = 1702, T_KERNEL = 2000,
	T_ANOM_LOGIN_FAILURES = 2100, T_ANOM_LOGIN_TIME = 2101, T_ANOM_LOGIN_SESSIONS = 2102,
	T_ANOM_LOGIN_LOCATION = 2104, T_ANOM_RBAC_INTEGRITY_FAIL = 2109, T_ANOM_EXEC = 2112,
	T_USER_ROLE_CHANGE = 2300, T_ROLE_ASSIGN = 2301, T_ROLE_REMOVE = 2302,
	T_LABEL_OVERRIDE = 2303, T_LABEL_LEVEL_CHANGE = 2304, T_DEV_ALLOC = 2307,
	T_USER_MAC_CONFIG_CHANGE = 2312, T_CRYPTO_KEY_USER = 2404, T_CRYPTO_SESSION = 2407,
	T_VIRT_CONTROL = 2500, T_VIRT_RESOURCE = 2501, T_VIRT_MACHINE_ID = 2502,
};

/* ---- auparse's event: records of fields, and its cursor ---- */

struct nfield {
	const char *name, *val;		/* into the record's copy, or owned (key fields) */
	char *own;			/* the owned copy of val, if any */
	char *interp;			/* auparse's cached interpretation */
};

struct nrec {
	uint32_t type;
	char *buf;			/* the line, cut into fields */
	const char *enriched;		/* after 0x1D, or NULL */
	struct nfield *f;
	uint32_t nf, cap, cur;		/* cur: this record's field cursor */
	const char *machine;		/* from arch= at auparse's position, else NULL */
	int syscall;
	uint64_t a0, a1;
};

struct nev {
	struct nrec *r;
	uint32_t n, cur;		/* cur: record cursor, n = past the end */
	int il;				/* the current record's interpretation list is loaded */
	const char *cwd;		/* the CWD record's cwd value */
	const char *find;		/* find's name */
	int notime;			/* stamped at second 0: auparse reads no field */
	struct audit_pathbuf *work;
	struct audit_names *names;	/* or NULL */
};

/* A field position: record << 16 | field; UNSET when the record half is 0xffff. */
#define POS_UNSET 0xffff0000u
#define POS(rec, fld) (((uint32_t)(rec) & 0xffffu) << 16 | ((uint32_t)(fld) & 0xffffu))

enum what {
	W_UNKNOWN, W_FIFO, W_CHAR_DEV, W_DIRECTORY, W_BLOCK_DEV, W_FILE, W_LINK, W_SOCKET,
	W_PROCESS, W_FIREWALL, W_SERVICE, W_ACCT, W_USER_SESSION, W_VM, W_PRINTER, W_SYSTEM,
	W_AUDIT_RULE, W_AUDIT_CONFIG, W_MAC_CONFIG, W_FILESYSTEM, W_MEMORY, W_KEYSTROKES,
	W_DEVICE, W_SOFTWARE,
};

struct norm {
	const char *evkind, *subj_kind;
	uint32_t session, subj1, subj2, obj1, obj2, two, results, key;
	char *action, *how;
	enum what what;
	int success;			/* the SYSCALL's success=: 1, 0, or -1 without one */
};

/* The cursor (auparse.c's functions of the same names, on one event). */
int norm_first_record(struct nev *e);
int norm_next_record(struct nev *e);
int norm_goto_record(struct nev *e, uint32_t num);
void norm_first_field(struct nev *e);
int norm_next_field(struct nev *e);
int norm_goto_field(struct nev *e, uint32_t num);
uint32_t norm_record_num(const struct nev *e);
uint32_t norm_field_num(const struct nev *e);
uint32_t norm_rec_type(const struct nev *e);
const char *norm_field_str(const struct nev *e);
int norm_field_int(const struct nev *e, int *err);
const char *norm_find(struct nev *e, const char *name);
const char *norm_interp(struct nev *e);
uint32_t norm_here(const struct nev *e);

/* The normalizer's helpers (normalize.c) and the normalizer (norm_rules.c). */
const char *norm_type_action(uint32_t t);
const char *norm_event_kind(uint32_t t);
int norm_set_str(char **dst, const char *s);
int norm_subject_what(struct nev *e, struct norm *d);
int norm_set_at(struct nev *e, const char *name, uint32_t rnum, uint32_t *pos);
int norm_set_subj2(struct nev *e, struct norm *d, const char *name, uint32_t rnum);
int norm_add_session(struct nev *e, struct norm *d, uint32_t rnum);
int norm_how_exe(struct nev *e, struct norm *d);
/* normalize_compound / normalize_simple: 0, 1 when auparse refuses the event, or -ENOMEM. */
int norm_compound(struct nev *e, struct norm *d);
int norm_simple(struct nev *e, struct norm *d);

#endif
