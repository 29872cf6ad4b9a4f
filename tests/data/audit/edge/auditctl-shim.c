/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * auditctl-shim.c - LD_PRELOAD shim that lets the unmodified Debian auditctl 3.0.9 run without
 * a kernel: every libaudit call that would talk to the kernel is answered here and printed
 * instead (ADD/DEL with the exact struct audit_rule_data bytes, CTRL for control requests,
 * MSG for what auditctl logs), and the host inputs are pinned: features 0x7f, machine x86_64,
 * users/groups from $SHIM_ENV/passwd and group, stat() directories from $SHIM_ENV/dirs.
 * Used only to produce edge.rules.tsv (see README.md); not part of any build.
 *   cc -shared -fPIC -O2 -o shim.so auditctl-shim.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/audit.h>

static void hexdump(const char *kind, struct audit_rule_data *r)
{
	const unsigned char *p = (const unsigned char *)r;
	size_t n = sizeof(*r) + r->buflen;
	printf("%s\t", kind);
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
	fflush(stdout);
}

static void ctrl(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("CTRL\t");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
}

int audit_open(void) { return open("/dev/null", O_RDWR); }
void audit_close(int fd) { if (fd >= 0) close(fd); }
int audit_is_enabled(int fd) { (void)fd; return 1; }
uint32_t audit_get_features(void) { return 0x7f; }
int audit_detect_machine(void) { return 1; /* MACH_86_64 */ }
int audit_add_rule_data(int fd, struct audit_rule_data *r, int flags, int action)
{ (void)fd; r->flags = (uint32_t)flags; r->action = (uint32_t)action; hexdump("ADD", r); return 1; }
int audit_delete_rule_data(int fd, struct audit_rule_data *r, int flags, int action)
{ (void)fd; r->flags = (uint32_t)flags; r->action = (uint32_t)action; hexdump("DEL", r); return 1; }
int audit_set_enabled(int fd, uint32_t v) { (void)fd; ctrl("-e %u", v); return 1; }
int audit_set_failure(int fd, uint32_t v) { (void)fd; ctrl("-f %u", v); return 1; }
int audit_set_rate_limit(int fd, uint32_t v) { (void)fd; ctrl("-r %u", v); return 1; }
int audit_set_backlog_limit(int fd, uint32_t v) { (void)fd; ctrl("-b %u", v); return 1; }
int audit_set_backlog_wait_time(int fd, uint32_t v) { (void)fd; ctrl("--backlog_wait_time %u", v); return 1; }
int audit_set_loginuid_immutable(int fd) { (void)fd; ctrl("--loginuid-immutable"); return 1; }
int audit_trim_subtrees(int fd) { (void)fd; ctrl("-t"); return 1; }
int audit_make_equivalent(int fd, const char *mp, const char *sub) { (void)fd; ctrl("-q %s,%s", mp, sub); return 1; }
int audit_log_user_message(int fd, int type, const char *msg, const char *host, const char *addr,
			   const char *tty, int result)
{ (void)fd; (void)type; (void)host; (void)addr; (void)tty; (void)result; ctrl("-m %s", msg + 5); return 1; }
int audit_reset_lost(int fd) { (void)fd; ctrl("--reset-lost"); return 0; }
int audit_reset_backlog_wait_time_actual(int fd) { (void)fd; ctrl("--reset_backlog_wait_time_actual"); return 0; }
int audit_request_status(int fd) { (void)fd; return 1; }
int audit_request_features(int fd) { (void)fd; ctrl("-s"); return 1; }
int audit_request_rules_list_data(int fd) { (void)fd; ctrl("LIST"); return 1; }
int audit_get_reply(int fd, void *rep, int block, int peek) { (void)fd; (void)rep; (void)block; (void)peek; return 0; }

static const char *envdir(void) { const char *e = getenv("SHIM_ENV"); return e ? e : "."; }

static struct passwd pw_ent;
static struct group gr_ent;
static char pw_buf[4096], gr_buf[4096];

struct passwd *getpwnam(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/passwd", envdir());
	FILE *f = fopen(path, "r");
	struct passwd *res = NULL;
	while (f && !fgetpwent_r(f, &pw_ent, pw_buf, sizeof(pw_buf), &res))
		if (!strcmp(res->pw_name, name))
			break;
		else
			res = NULL;
	if (f)
		fclose(f);
	return res;
}

struct group *getgrnam(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/group", envdir());
	FILE *f = fopen(path, "r");
	struct group *res = NULL;
	while (f && !fgetgrent_r(f, &gr_ent, gr_buf, sizeof(gr_buf), &res))
		if (!strcmp(res->gr_name, name))
			break;
		else
			res = NULL;
	if (f)
		fclose(f);
	return res;
}

static int is_dir(const char *p)
{
	char path[512], line[4200];
	snprintf(path, sizeof(path), "%s/dirs", envdir());
	FILE *f = fopen(path, "r");
	size_t pl = strlen(p);
	while (pl > 1 && p[pl - 1] == '/')
		pl--;
	int hit = 0;
	while (f && !hit && fgets(line, sizeof(line), f)) {
		size_t l = strcspn(line, "\r\n");
		while (l > 1 && line[l - 1] == '/')
			l--;
		hit = line[0] != '#' && l == pl && !memcmp(line, p, pl);
	}
	if (f)
		fclose(f);
	return hit;
}

/* auditctl stat()s -w paths (and its rules file: let that through) */
int stat(const char *path, struct stat *st)
{
	if (path[0] == '/' && strncmp(path, "/tmp/edge-", 10)) {
		memset(st, 0, sizeof(*st));
		if (is_dir(path)) {
			st->st_mode = S_IFDIR | 0755;
			return 0;
		}
		errno = ENOENT;
		return -1;
	}
	return fstatat(AT_FDCWD, path, st, 0);
}

static void msg(int pri, const char *fmt, va_list ap)
{
	printf("MSG\t%d\t", pri & 7);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

void syslog(int pri, const char *fmt, ...) { va_list ap; va_start(ap, fmt); msg(pri, fmt, ap); va_end(ap); }
void vsyslog(int pri, const char *fmt, va_list ap) { msg(pri, fmt, ap); }
void __syslog_chk(int pri, int flag, const char *fmt, ...)
{ (void)flag; va_list ap; va_start(ap, fmt); msg(pri, fmt, ap); va_end(ap); }
void __vsyslog_chk(int pri, int flag, const char *fmt, va_list ap) { (void)flag; msg(pri, fmt, ap); }
