/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_replay.c - the `replay` bench suite: audit.log replay through the compiled filter,
 * measured beside ausearch, aureport and laurel on the same file in the same run.
 *
 * Setup generates (once per process) a log of REPLAY_EVENTS (100k, ~64 MB) events whose records
 * copy the shapes of the real sample logs (tests/data/audit/logs/go-libaudit: RHEL 7 SYSCALL +
 * CWD + PATH + PROCTITLE opens and execs with EXECVE, connect with SOCKADDR, PAM user messages,
 * AVC denials with their syscall), varying serials, times, pids, uids, paths and hex-encoded
 * names, and writes it to a temporary file.  One op = one event; every variant handles the whole
 * file per sample (fixed_ops), so events/s compare directly:
 *  - replay-log: sp_audit_replay over the in-memory log (read, group, build, filter, count);
 *  - replay-record: the same events as a recorded stream (audit_record.h) through the matcher;
 *  - replay-log --jobs 2: replay-log with the log cut in two parts read by two threads
 *    (sp_audit_replay_feed_jobs), the scaling `audit replay --jobs 2` gets (wall time);
 *  - stream-pipe: the log written into a pipe by a thread (not pinned: it runs beside the
 *    reader, as auditd beside its plugin) and read as `audit stream` reads auditd's plugin
 *    stream (256 KiB reads, each fed and its decided records written out);
 *  - select -k exec: ausearch's selection alone (no rules), whose kept records are first
 *    checked to be exactly those `ausearch -k exec --raw` prints for the file;
 *  - stream-laurel: the stream-pipe pass without rules, every event written as laurel's JSON
 *    line (what laurel does with the same stream);
 *  - laurel: laurel 0.5.1 (scripts/get-laurel.sh) on the file as its standard input, fork+exec
 *    per sample, with test-laurel.sh's config; the setup checks it writes as many events as
 *    stream-laurel does (a message if not);
 *  - csv: every event written as `ausearch --format csv` writes it (to /dev/null), first
 *    checked to be, byte for byte, what `ausearch -m ALL --format csv` writes for the file;
 *  - report --summary: aureport's summary report over every event (`audit replay --report
 *    summary --summary`, to /dev/null), first checked to be, byte for byte, what
 *    `aureport --summary` writes for the file;
 *  - ausearch -k, aureport --summary, ausearch csv: the auditd tools on the file (page cache
 *    warm; LC_ALL=C and this process's TZ, so dates compare), fork+exec
 *    per sample.  Debian auditd is not a dependency (its postinst starts a daemon):
 *    scripts/get-audit-tools.sh extracts the package into $SECPATH_AUDIT_TOOLS (default
 *    /var/tmp/secpath-audit-tools)/root, and the tools run from there with LD_LIBRARY_PATH set
 *    to its library directories; else /sbin/ausearch when installed; else the variants are
 *    skipped with a message.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "secpath/audit_log.h"
#include "secpath/audit_record.h"
#include "secpath/bench.h"
#include "bench/suites.h"

#define REPLAY_EVENTS 100000u

static const char bench_rules[] =
	"-a always,exit -F arch=b64 -S execve -F auid>=1000 -F auid!=unset -k exec\n"
	"-a always,exit -F arch=b64 -S open,openat -F exit=-EACCES -k access\n"
	"-a always,exit -F arch=b64 -S open,openat -F exit=-EPERM -k access\n"
	"-a always,exit -F path=/etc/shadow -F perm=wa -k identity\n"
	"-a always,exit -F path=/etc/passwd -F perm=wa -k identity\n"
	"-a always,exit -F dir=/etc/sudoers.d -F perm=wa -k sudoers\n"
	"-a always,exit -F arch=b64 -S connect -F auid>=1000 -F auid!=unset -k network\n"
	"-a never,exit -F exe=/usr/sbin/crond\n"
	"-a always,exit -F arch=b64 -S setuid,setgid,setreuid,setregid -k privesc\n"
	"-a never,user -F uid=0 -F msgtype=CRED_DISP\n"
	"-a always,exclude -F msgtype=CWD -F auid=4294967294\n";

struct gen {
	char *log;		/* the generated log */
	size_t len;
	char *rec;		/* the same events as a recorded stream */
	size_t rec_len;
	char path[64];		/* the log as a file for the external tools */
	int ready, err;
};

static struct gen gen;	/* built once per process (bench only) */

struct sbuf {
	char *p;
	size_t n, cap;
};

static int sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	if (b->cap - b->n < 4096) {
		size_t cap = b->cap ? b->cap * 2 : (64u << 20);
		char *p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	va_start(ap, fmt);
	int k = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	b->n += (size_t)k;
	return 0;
}

static const char *const files[] = { "/etc/shadow",
				     "/etc/passwd",
				     "/home/alice/notes.txt",
				     "/usr/lib64/libc.so.6",
				     "/etc/sudoers.d/90-cloud",
				     "/var/log/messages",
				     "/tmp/build output.o",
				     "/etc/ld.so.cache" };
static const char *const exes[] = { "/usr/bin/bash",   "/usr/bin/cat",	     "/usr/sbin/sshd",
				    "/usr/sbin/crond", "/usr/bin/python3.6", "/usr/bin/vim" };

static void hex(char *dst, const char *s)
{
	static const char d[] = "0123456789ABCDEF";
	for (; *s; s++) {
		*dst++ = d[(uint8_t)*s >> 4];
		*dst++ = d[(uint8_t)*s & 15];
	}
	*dst = 0;
}

/* An untrusted string as auditd writes it: quoted, or hex when it has a space. */
static void untrusted(char *dst, const char *s)
{
	if (strchr(s, ' '))
		hex(dst, s);
	else
		sprintf(dst, "\"%s\"", s);
}

static int gen_event(struct sbuf *b, uint32_t i, uint64_t *rng)
{
	uint64_t x = (*rng = *rng * 6364136223846793005ull + 1442695040888963407ull) >> 33;
	uint64_t sec = 1481077000 + i / 50, ms = (i * 7) % 1000;
	uint32_t serial = 100000 + i, pid = 1000 + (uint32_t)(x % 30000);
	uint32_t uid = (x >> 8) % 4 ? 1000 + (uint32_t)((x >> 10) % 3) : 0;
	uint32_t auid = (x >> 12) % 5 ? uid : 4294967295u;
	const char *exe = exes[(x >> 14) % 6];
	char ex[128], nm[128];
	untrusted(ex, exe);
	int err = 0;
#define HDR(t) "type=" t " msg=audit(%llu.%03llu:%u): "
#define TS (unsigned long long)sec, (unsigned long long)ms, serial
#define IDS "ppid=%u pid=%u auid=%u uid=%u gid=%u euid=%u suid=%u fsuid=%u egid=%u sgid=%u fsgid=%u"
#define IDV 1u, pid, auid, uid, uid, uid, uid, uid, uid, uid, uid
	switch (x % 10) {
	case 0: case 1: case 2: case 3: {	/* open/openat: SYSCALL CWD PATH PROCTITLE */
		const char *f = files[(x >> 17) % 8];
		int nr = (x >> 20) % 2 ? 257 : 2, fail = (x >> 21) % 4 == 0;
		untrusted(nm, f);
		err |= sb_printf(
			b,
			HDR("SYSCALL") "arch=c000003e syscall=%d success=%s exit=%d a0=%s a1=%x "
				       "a2=1b6 a3=0 items=1 " IDS
				       " tty=pts0 ses=%u comm=\"%.15s\" exe=%s "
				       "subj=unconfined_u:unconfined_r:unconfined_t:s0-s0:c0.c1023 "
				       "key=%s\n",
			TS, nr, fail ? "no" : "yes", fail ? -13 : 3,
			nr == 2 ? "7ffd3c1e2a10" : "ffffff9c",
			(unsigned)((x >> 23) % 3 ? 0 : 0x241), IDV,
			auid == 4294967295u ? 4294967295u : 3, strrchr(exe, '/') + 1, ex,
			fail ? "\"access\"" : "(null)");
		err |= sb_printf(b, HDR("CWD") "cwd=\"/home/andrew_kroh\"\n", TS);
		err |= sb_printf(
			b,
			HDR("PATH") "item=0 name=%s inode=%u dev=fd:00 mode=0100644 ouid=0 "
				    "ogid=0 rdev=00:00 obj=system_u:object_r:etc_t:s0 "
				    "nametype=NORMAL\n",
			TS, nm, 17000000 + (unsigned)(x % 5000));
		err |= sb_printf(b, HDR("PROCTITLE") "proctitle=%s\n", TS,
				 "636174002F6574632F736861646F77");
		break;
	}
	case 4:
	case 5: /* execve: SYSCALL EXECVE CWD PATH PATH PROCTITLE */
		err |= sb_printf(b, HDR("SYSCALL") "arch=c000003e syscall=59 success=yes exit=0 "
				 "a0=1c8e9f0 a1=1c8ed50 a2=1c8c330 a3=7ffe2a1d4b20 items=2 " IDS
				 " tty=pts0 ses=3 comm=\"%.15s\" exe=%s key=%s\n", TS, IDV,
				 strrchr(exe, '/') + 1, ex,
				 auid >= 1000 && auid != 4294967295u ? "\"exec\"" : "(null)");
		err |= sb_printf(b, HDR("EXECVE") "argc=3 a0=\"%s\" a1=\"-l\" a2=\"/etc\"\n", TS,
				 strrchr(exe, '/') + 1);
		err |= sb_printf(b, HDR("CWD") "cwd=\"/root\"\n", TS);
		err |= sb_printf(
			b,
			HDR("PATH") "item=0 name=\"%s\" inode=33604032 dev=fd:00 mode=0100755 "
				    "ouid=0 ogid=0 rdev=00:00 nametype=NORMAL\n",
			TS, exe);
		err |= sb_printf(
			b,
			HDR("PATH") "item=1 name=\"/lib64/ld-linux-x86-64.so.2\" inode=33600000 "
				    "dev=fd:00 mode=0100755 ouid=0 ogid=0 rdev=00:00 "
				    "nametype=NORMAL\n",
			TS);
		err |= sb_printf(b, HDR("PROCTITLE") "proctitle=6C73002D6C002F657463\n", TS);
		break;
	case 6:					/* connect: SYSCALL SOCKADDR PROCTITLE */
		err |= sb_printf(b,
				 HDR("SYSCALL") "arch=c000003e syscall=42 success=yes exit=0 a0=3 "
						"a1=7ffd1b2c a2=10 a3=0 items=0 " IDS
						" tty=(none) ses=%u comm=\"curl\" "
						"exe=\"/usr/bin/curl\" key=%s\n",
				 TS, IDV, 7u,
				 auid >= 1000 && auid != 4294967295u ? "\"network\"" : "(null)");
		err |= sb_printf(b, HDR("SOCKADDR") "saddr=020001BBC0A8010A0000000000000000\n", TS);
		err |= sb_printf(b, HDR("PROCTITLE") "proctitle=\"curl\"\n", TS);
		break;
	case 7: case 8:				/* PAM user messages */
		err |= sb_printf(b,
				 HDR("%s") "pid=%u uid=0 auid=%u ses=%u "
					   "subj=system_u:system_r:sshd_t:s0-s0:c0.c1023 "
					   "msg='op=PAM:setcred "
					   "grantors=pam_env,pam_unix acct=\"andrew_kroh\" "
					   "exe=\"/usr/sbin/sshd\" "
					   "hostname=pool-96-241-146-97.washdc.fios.verizon.net "
					   "addr=96.241.146.97 "
					   "terminal=ssh res=success'\n",
				 (x >> 30) % 2 ? "CRED_ACQ" : "CRED_DISP", TS, pid, auid, 1u);
		break;
	default:				/* AVC denial with its syscall */
		err |= sb_printf(b,
				 HDR("AVC") "avc:  denied  { read } for  pid=%u comm=\"pickup\" "
					    "name=\"maildrop\" dev=\"dm-0\" ino=14911367 "
					    "scontext=system_u:system_r:postfix_pickup_t:s0 "
					    "tcontext=system_u:object_r:postfix_spool_maildrop_t:"
					    "s0 tclass=dir\n",
				 TS, pid);
		err |= sb_printf(
			b,
			HDR("SYSCALL") "arch=c000003e syscall=2 success=no exit=-13 "
				       "a0=5555665d91b0 a1=10800 a2=5555665d91b8 a3=0 items=1 " IDS
				       " tty=(none) "
				       "ses=4294967295 comm=\"pickup\" "
				       "exe=\"/usr/libexec/postfix/pickup\" "
				       "subj=system_u:system_r:postfix_pickup_t:s0 key=(null)\n",
			TS, IDV);
		err |= sb_printf(b, HDR("CWD") "cwd=\"/var/spool/postfix\"\n", TS);
		err |= sb_printf(b, HDR("PATH") "item=0 name=\"maildrop\" inode=14911367 dev=03:07 "
				 "mode=040730 ouid=890 ogid=891 rdev=00:00 "
				 "obj=system_u:object_r:postfix_spool_maildrop_t:s0\n", TS);
		break;
	}
	return err ? -ENOMEM : 0;
}

struct rec_ctx {
	struct sp_audit_record_writer *w;
	struct sp_audit_event *ev;
};

static int rec_one(void *ud, const struct sp_audit_log_event *lev)
{
	struct rec_ctx *c = ud;
	int cls = sp_audit_log_event_build(lev, NULL, c->ev);
	return cls < 0 ? cls : sp_audit_record_write(c->w, c->ev);
}

/* The log's events as a recorded stream (built through the log reader). */
static int gen_record(void)
{
	char tmpl[] = "/tmp/secpath-replay-rec-XXXXXX";
	int fd = mkstemp(tmpl), err;
	struct rec_ctx c = { 0 };
	struct sp_audit_log *l = NULL;
	if (fd < 0)
		return -errno;
	unlink(tmpl);
	struct sp_audit_log_opts o = { .sz = sizeof(o), .on_event = rec_one, .ud = &c };
	err = sp_audit_event_new(&c.ev);
	if (!err)
		err = sp_audit_record_writer_new(fd, &c.w);
	if (!err)
		err = sp_audit_log_new(&o, &l);
	if (!err)
		err = sp_audit_log_feed(l, "gen", gen.log, gen.len);
	if (!err)
		err = sp_audit_log_finish(l);
	if (c.w) {
		int e2 = sp_audit_record_writer_finish(c.w);
		err = err ? err : e2;
	}
	sp_audit_log_free(l);
	sp_audit_event_free(c.ev);
	if (!err)
		err = lseek(fd, 0, SEEK_SET) < 0 ? -errno : sp_fd_read_all(fd, &gen.rec, &gen.rec_len);
	close(fd);
	return err;
}

static int gen_once(void)
{
	struct sbuf b = { 0 };
	uint64_t rng = 42;
	if (gen.ready)
		return gen.err;
	gen.ready = 1;
	for (uint32_t i = 0; i < REPLAY_EVENTS && !gen.err; i++)
		gen.err = gen_event(&b, i, &rng);
	gen.log = b.p;
	gen.len = b.n;
	if (!gen.err)
		gen.err = gen_record();
	if (!gen.err) {
		strcpy(gen.path, "/tmp/secpath-replay-XXXXXX");
		int fd = mkstemp(gen.path);
		if (fd < 0 || sp_fd_write_all(fd, gen.log, gen.len))
			gen.err = -EIO;
		if (fd >= 0)
			close(fd);
	}
	return gen.err;
}

int bench_replay_log(const char **log, size_t *len, const char **rules, size_t *rules_len)
{
	int err = gen_once();
	*log = gen.log;
	*len = gen.len;
	*rules = bench_rules;
	*rules_len = sizeof(bench_rules) - 1;
	return err;
}

__attribute__((destructor)) static void gen_cleanup(void)
{
	if (gen.path[0])
		unlink(gen.path);
	free(gen.log);
	free(gen.rec);
}

/* ---- variants ---- */

struct rstate {
	struct sp_audit_replay *r;
};

static int replay_make(struct sp_audit_replay **r)
{
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .parse = &po, .out_fd = -1 };
	return sp_audit_replay_new(bench_rules, sizeof(bench_rules) - 1, "bench.rules", &o, r);
}

static int log_setup(const void *param, void **state)
{
	struct rstate *s;
	int err = gen_once();
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*state = s;
	return 0;
}

/* n == REPLAY_EVENTS (fixed_ops): one pass over the log with a fresh replay. */
static void log_run(void *state, uint64_t n)
{
	struct rstate *s = state;
	struct sp_audit_replay_stats st;
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS) {
		if (replay_make(&s->r))
			abort();
		for (size_t off = 0; off < gen.len; off += 1u << 20) {
			size_t k = gen.len - off < (1u << 20) ? gen.len - off : (1u << 20);
			if (sp_audit_replay_feed(s->r, "bench.log", gen.log + off, k))
				abort();
		}
		if (sp_audit_replay_finish(s->r))
			abort();
		sp_audit_replay_get_stats(s->r, &st);
		if (st.events != REPLAY_EVENTS || st.malformed)
			abort();
		sp_audit_replay_free(s->r);
		s->r = NULL;
	}
}

/* As log_run, the log fed whole by two threads (sp_audit_replay_feed_jobs).  The run is
 * pinned to one CPU, which its threads would inherit: for the pass this thread may run
 * anywhere (its wall time is what a user waits for). */
static void jobs_run(void *state, uint64_t n)
{
	struct rstate *s = state;
	struct sp_audit_replay_stats st;
	cpu_set_t saved, all;
	CPU_ZERO(&all);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	if (pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved) ||
	    pthread_setaffinity_np(pthread_self(), sizeof(all), &all))
		abort();
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS) {
		if (replay_make(&s->r) || sp_audit_replay_feed_jobs(s->r, "bench.log", gen.log,
								      gen.len, 2) ||
		    sp_audit_replay_finish(s->r))
			abort();
		sp_audit_replay_get_stats(s->r, &st);
		if (st.events != REPLAY_EVENTS || st.malformed)
			abort();
		sp_audit_replay_free(s->r);
		s->r = NULL;
	}
	(void)pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
}

static void rec_run(void *state, uint64_t n)
{
	struct rstate *s = state;
	struct sp_audit_replay_stats st;
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS) {
		if (replay_make(&s->r) ||
		    sp_audit_replay_stream(s->r, "bench.rec", gen.rec, gen.rec_len))
			abort();
		sp_audit_replay_get_stats(s->r, &st);
		if (st.events != REPLAY_EVENTS)
			abort();
		sp_audit_replay_free(s->r);
		s->r = NULL;
	}
}

static void r_teardown(void *state)
{
	free(state);
}

/* A tool run: argv (argv[2] = the log) and its environment (LD_LIBRARY_PATH when extracted). */
struct tool {
	char prog[512];
	char ldpath[1100], tz[256];
	char *argv[8];
	char *envp[4];
};

extern char **environ;

/* The tool `name` (ausearch, aureport): extracted by scripts/get-audit-tools.sh, or installed. */
static int tool_find(struct tool *t, const char *name)
{
	const char *dir = getenv("SECPATH_AUDIT_TOOLS");
	if (!dir || !*dir)
		dir = "/var/tmp/secpath-audit-tools";
	snprintf(t->prog, sizeof(t->prog), "%s/root/sbin/%s", dir, name);
	if (!access(t->prog, X_OK)) {
		snprintf(t->ldpath, sizeof(t->ldpath),
			 "LD_LIBRARY_PATH=%s/root/lib/x86_64-linux-gnu:"
			 "%s/root/usr/lib/x86_64-linux-gnu", dir, dir);
		/* the C locale's dates, as this process writes them, in the same zone */
		const char *tz = getenv("TZ");
		t->envp[0] = t->ldpath;
		t->envp[1] = (char *)"LC_ALL=C";
		snprintf(t->tz, sizeof(t->tz), "TZ=%s", tz ? tz : "");
		t->envp[2] = tz ? t->tz : NULL;
		t->envp[3] = NULL;
		return 0;
	}
	snprintf(t->prog, sizeof(t->prog), "/sbin/%s", name);
	if (!access(t->prog, X_OK))
		return 0;
	fprintf(stderr, "bench replay: %s not found in %s/root/sbin or /sbin (run "
		"scripts/get-audit-tools.sh): variant skipped\n", name, dir);
	return -ENOENT;
}

static int tool_setup(const char *name, const char *const *args, void **state)
{
	struct tool *t = calloc(1, sizeof(*t));
	int err = t ? tool_find(t, name) : -ENOMEM;
	if (!err)
		err = gen_once();
	if (err) {
		free(t);
		return err;
	}
	t->argv[0] = t->prog;
	t->argv[1] = (char *)"--input";
	t->argv[2] = gen.path;
	for (size_t i = 0; args[i] && i < 4; i++)
		t->argv[3 + i] = (char *)args[i];
	*state = t;
	return 0;
}

static int ausearch_setup(const void *param, void **state)
{
	static const char *const args[] = { "-k", "exec", "--raw", NULL };
	return tool_setup("ausearch", args, state);
}

static int aureport_setup(const void *param, void **state)
{
	static const char *const args[] = { "--summary", NULL };
	return tool_setup("aureport", args, state);
}

/* prog with argv and envp (NULL: this process's), standard input from the file `in` (NULL:
 * this process's), its output thrown away: its exit status, or -1 when it did not exit. */
static int run_prog(const char *prog, char *const argv[], char *const envp[], const char *in)
{
	pid_t pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY), fd = in ? open(in, O_RDONLY) : 0;
		if (nul < 0 || fd < 0)
			_exit(126);
		dup2(fd, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		execve(prog, argv, envp ? envp : environ);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void tool_run(void *state, uint64_t n)
{
	struct tool *t = state;
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS) {
		int st = run_prog(t->prog, t->argv, t->envp[0] ? t->envp : NULL, NULL);
		if (st < 0 || st == 127)
			abort();
	}
}

static void tool_teardown(void *state)
{
	free(state);
}

/* ---- ausearch's selection, checked against ausearch on the same file ---- */

struct sstate {
	struct sp_audit_search *search;
};

/* One pass of `audit replay -k exec` (no rules: the selection alone; flags add an output
 * format), kept records or events to fd. */
static int select_pass(const struct sp_audit_search *search, unsigned flags, int fd,
		       uint64_t *kept)
{
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .out_fd = fd, .search = search,
					  .flags = SP_AUDIT_REPLAY_NO_RULES | flags };
	struct sp_audit_replay *r;
	struct sp_audit_replay_stats st;
	int err = sp_audit_replay_new("", 0, "bench.rules", &o, &r);
	if (err)
		return err;
	for (size_t off = 0; off < gen.len && !err; off += 1u << 20) {
		size_t k = gen.len - off < (1u << 20) ? gen.len - off : (1u << 20);
		err = sp_audit_replay_feed(r, "bench.log", gen.log + off, k);
	}
	if (!err)
		err = sp_audit_replay_finish(r);
	sp_audit_replay_get_stats(r, &st);
	sp_audit_replay_free(r);
	if (!err && (st.events != REPLAY_EVENTS || st.malformed))
		err = -EPROTO;
	*kept = st.kept;
	return err;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of buf (NUL-terminated in place), sorted: *n of them in *out (malloc'd). */
static int sorted_lines(char *buf, size_t len, char ***out, size_t *n)
{
	size_t cap = 1;
	for (size_t i = 0; i < len; i++)
		cap += buf[i] == '\n';
	char **v = malloc(cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*n = 0;
	for (char *p = buf, *e; p < buf + len; p = e + 1) {
		e = memchr(p, '\n', (size_t)(buf + len - p));
		e = e ? e : buf + len;
		*e = 0;
		v[(*n)++] = p;
	}
	qsort(v, *n, sizeof(*v), line_cmp);
	*out = v;
	return 0;
}

/* The same records, as sets of lines (ausearch prints events as they complete). */
static int same_lines(char *a, size_t alen, char *b, size_t blen, size_t *na)
{
	char **va = NULL, **vb = NULL;
	size_t nb = 0;
	int same = !sorted_lines(a, alen, &va, na) && !sorted_lines(b, blen, &vb, &nb) &&
		   *na == nb;
	for (size_t i = 0; same && i < nb; i++)
		same = !strcmp(va[i], vb[i]);
	free(va);
	free(vb);
	return same;
}

/* What the tool `name` (ausearch, aureport) prints for the file with args (at most 4), into
 * *buf. */
static int tool_output(const char *name, const char *const *args, char **buf, size_t *len)
{
	struct tool t = { 0 };
	char path[] = "/tmp/secpath-tool-XXXXXX";
	int err = tool_find(&t, name), fd, status;
	if (err)
		return err;
	if ((fd = mkstemp(path)) < 0)
		return -errno;
	char *argv[8] = { t.prog, (char *)"--input", gen.path };
	for (size_t i = 0; args[i] && i < 4; i++)
		argv[3 + i] = (char *)args[i];
	pid_t pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(nul, 2);
		execve(t.prog, argv, t.envp[0] ? t.envp : environ);
		_exit(127);
	}
	close(fd);
	err = pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
			      WEXITSTATUS(status) > 1 ? -EIO : sp_file_read(path, buf, len);
	unlink(path);
	return err;
}

/* What one select_pass writes, read back into *buf (malloc'd). */
static int pass_text(const struct sp_audit_search *search, unsigned flags, char **buf,
		    size_t *len, uint64_t *kept)
{
	char path[] = "/tmp/secpath-pass-XXXXXX";
	int fd = mkstemp(path), err;
	if (fd < 0)
		return -errno;
	err = select_pass(search, flags, fd, kept);
	close(fd);
	if (!err)
		err = sp_file_read(path, buf, len);
	unlink(path);
	return err;
}

/* Before it is timed, the selection must keep exactly the records ausearch prints (said on
 * stderr with the count; a disagreement fails the variant). */
static int select_check(const struct sp_audit_search *search)
{
	char *ours = NULL, *theirs = NULL;
	size_t olen = 0, tlen = 0, lines = 0;
	uint64_t kept = 0;
	int err = pass_text(search, 0, &ours, &olen, &kept);
	static const char *const args[] = { "-k", "exec", "--raw", NULL };
	if (!err && tool_output("ausearch", args, &theirs, &tlen)) {
		free(ours);
		return 0;	/* no ausearch: timed unchecked (tool_find said so) */
	}
	if (!err && !same_lines(ours, olen, theirs, tlen, &lines)) {
		fprintf(stderr, "bench replay: select -k exec keeps records ausearch -k exec does "
			"not print, or misses some\n");
		err = -EPROTO;
	} else if (!err) {
		fprintf(stderr, "bench replay: select -k exec keeps the %zu records (%llu events) "
			"ausearch -k exec prints\n", lines, (unsigned long long)kept);
	}
	free(ours);
	free(theirs);
	return err;
}

static int select_setup(const void *param, void **state)
{
	struct sstate *s;
	int err = gen_once();
	if (err)
		return err;
	if (!(s = calloc(1, sizeof(*s))))
		return -ENOMEM;
	err = sp_audit_search_new(&s->search);
	if (!err)
		err = sp_audit_search_set(s->search, "-k", "exec", NULL, NULL);
	if (!err)
		err = select_check(s->search);
	if (err) {
		sp_audit_search_free(s->search);
		free(s);
		return err;
	}
	*state = s;
	return 0;
}

static void select_run(void *state, uint64_t n)
{
	struct sstate *s = state;
	uint64_t kept;
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS)
		if (select_pass(s->search, 0, -1, &kept) || !kept)
			abort();
}

static void select_teardown(void *state)
{
	struct sstate *s = state;
	sp_audit_search_free(s->search);
	free(s);
}

/* The lines of the file behind fd (from its start); 0 or -errno. */
static int fd_lines(int fd, uint64_t *n)
{
	char b[65536];
	ssize_t k;
	*n = 0;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((k = read(fd, b, sizeof(b))) > 0)
		for (ssize_t i = 0; i < k; i++)
			*n += b[i] == '\n';
	return k < 0 ? -errno : 0;
}

/* ---- the live form: the log through a pipe, as `audit stream` reads auditd's ---- */

/* The writer thread: the whole log into the pipe, then its end closed.  Not pinned (the run
 * is): it runs beside the reader, as auditd beside its plugin. */
static void *pipe_writer(void *arg)
{
	int fd = *(int *)arg;
	cpu_set_t all;
	CPU_ZERO(&all);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &all);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	intptr_t err = sp_fd_write_all(fd, gen.log, gen.len);
	close(fd);
	return (void *)err;
}

/* One pass: the log written into a pipe by a thread, read here in 256 KiB reads, each fed to
 * the replay and what it decided written out (to /dev/null), as the stream loop does.  A
 * thread, not a process, writes: a forked writer would make every page this process then
 * writes a copy-on-write fault.  0 or -errno. */
static int pipe_pass(unsigned flags, uint64_t *lines)
{
	enum { RD = 256 * 1024 };
	struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = "x86_64" };
	int p[2], nul = open("/dev/null", O_WRONLY | O_CLOEXEC), err = 0;
	char *buf = malloc(RD);
	pthread_t th;
	void *werr = NULL;
	if (nul < 0 || !buf || pipe(p)) {
		free(buf);
		if (nul >= 0)
			close(nul);
		return -EIO;
	}
	/* a 1 MiB pipe (where allowed): reads of 256 KiB, not of the default 64 KiB capacity */
	(void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	int started = !pthread_create(&th, NULL, pipe_writer, &p[1]);
	if (!started) {
		close(p[1]);
		err = -EAGAIN;
	}
	int out = lines ? memfd_create("bench-out", MFD_CLOEXEC) : nul;
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .parse = &po, .out_fd = out,
					  .flags = flags };
	struct sp_audit_replay *r = NULL;
	struct sp_audit_replay_stats st = { 0 };
	if (!err && out < 0)
		err = -errno;
	if (!err)
		err = (flags & SP_AUDIT_REPLAY_NO_RULES)
			      ? sp_audit_replay_new("", 0, "(no rules)", &o, &r)
			      : sp_audit_replay_new(bench_rules, sizeof(bench_rules) - 1,
						    "bench.rules", &o, &r);
	while (!err) {
		ssize_t k = read(p[0], buf, RD);
		if (k <= 0) {
			err = k < 0 ? -errno : 0;
			break;
		}
		err = sp_audit_replay_feed(r, "pipe", buf, (size_t)k);
		if (!err)
			err = sp_audit_replay_flush(r);
	}
	if (!err)
		err = sp_audit_replay_finish(r);
	if (r)
		sp_audit_replay_get_stats(r, &st);
	sp_audit_replay_free(r);
	close(p[0]);	/* after an error a writer still writing gets SIGPIPE: the run aborts */
	if (started && (pthread_join(th, &werr) || werr))
		err = err ? err : -EIO;
	if (lines && out >= 0) {
		if (!err)
			err = fd_lines(out, lines);
		close(out);
	}
	close(nul);
	free(buf);
	return err ? err : st.events == REPLAY_EVENTS && !st.malformed ? 0 : -EPROTO;
}

static void pipe_run(void *state, uint64_t n)
{
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS)
		if (pipe_pass(0, NULL))
			abort();
}

/* The same pass with every event written as laurel's JSON line (no rules: every event). */
static void pipe_laurel_run(void *state, uint64_t n)
{
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS)
		if (pipe_pass(SP_AUDIT_REPLAY_NO_RULES | SP_AUDIT_REPLAY_LAUREL, NULL))
			abort();
}

/* ---- laurel 0.5.1 itself on the same log, as the auditd plugin it is ---- */

/* laurel, extracted by scripts/get-laurel.sh ($SECPATH_LAUREL, default /var/tmp/secpath-laurel),
 * with a config of test-laurel.sh's (no privilege drop, no enrichment from the live system)
 * writing into a temporary directory; one run = the log on its standard input. */
struct laurel {
	char prog[512], dir[64], cfg[128], out[128];
};

static int laurel_config(struct laurel *l)
{
	FILE *f = fopen(l->cfg, "w");
	if (!f)
		return -errno;
	fprintf(f, "directory = \"%s\"\n[auditlog]\nfile = \"laurel.jsonl\"\n[transform]\n"
		"execve-argv = [ \"array\" ]\n[translate]\nuniversal = false\nuser-db = false\n"
		"[enrich]\npid = false\nexecve-env = []\ncontainer = false\nscript = false\n",
		l->dir);
	return fclose(f) ? -EIO : 0;
}

static int laurel_once(struct laurel *l)
{
	char *argv[] = { l->prog, (char *)"--config", l->cfg, NULL };
	return run_prog(l->prog, argv, NULL, gen.path) ? -EIO : 0;
}

/* Before it is timed: laurel writes as many events as the secpath pass does (said if not). */
static void laurel_check(const struct laurel *l)
{
	uint64_t ours = 0, theirs = 0;
	int fd = open(l->out, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fd_lines(fd, &theirs);
		close(fd);
	}
	if (!pipe_pass(SP_AUDIT_REPLAY_NO_RULES | SP_AUDIT_REPLAY_LAUREL, &ours) && ours != theirs)
		fprintf(stderr, "bench replay: laurel wrote %llu events, secpath's laurel output %llu\n",
			(unsigned long long)theirs, (unsigned long long)ours);
}

static void laurel_teardown(void *state)
{
	struct laurel *l = state;
	unlink(l->out);
	unlink(l->cfg);
	rmdir(l->dir);
	free(l);
}

static int laurel_setup(const void *param, void **state)
{
	const char *dir = getenv("SECPATH_LAUREL");
	struct laurel *l = calloc(1, sizeof(*l));
	int err = l ? gen_once() : -ENOMEM;
	if (err) {
		free(l);
		return err;
	}
	snprintf(l->prog, sizeof(l->prog), "%s/root/usr/sbin/laurel",
		 dir && *dir ? dir : "/var/tmp/secpath-laurel");
	snprintf(l->dir, sizeof(l->dir), "/tmp/secpath-laurel-XXXXXX");
	if (access(l->prog, X_OK)) {
		fprintf(stderr, "bench replay: %s not found (run scripts/get-laurel.sh): variant "
			"skipped\n", l->prog);
		free(l);
		return -ENOENT;
	}
	if (!mkdtemp(l->dir)) {
		free(l);
		return -errno;
	}
	snprintf(l->cfg, sizeof(l->cfg), "%s/laurel.toml", l->dir);
	snprintf(l->out, sizeof(l->out), "%s/laurel.jsonl", l->dir);
	if (!(err = laurel_config(l)) && !(err = laurel_once(l)))
		laurel_check(l);
	unlink(l->out);
	if (err) {
		laurel_teardown(l);
		return err;
	}
	*state = l;
	return 0;
}

static void laurel_run(void *state, uint64_t n)
{
	struct laurel *l = state;
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS) {
		if (laurel_once(l))
			abort();
		unlink(l->out);
	}
}

/* ---- --format csv, checked byte for byte against ausearch --format csv ---- */

static const char *const csv_args[] = { "-m", "ALL", "--format", "csv", NULL };

/* ours (malloc'd, freed here), what the variant `name` wrote, against what `tool` with args
 * writes for the log: 0 when the same bytes or without the tool (timed unchecked, tool_find
 * said so), else -EPROTO; said on stderr either way. */
static int same_as_tool(const char *name, char *ours, size_t olen, const char *tool,
			const char *const *args)
{
	char *theirs = NULL;
	size_t tlen = 0, lines = 0;
	int err = 0;
	if (tool_output(tool, args, &theirs, &tlen)) {
		free(ours);
		return 0;
	}
	for (size_t i = 0; i < olen; i++)
		lines += ours[i] == '\n';
	if (olen != tlen || memcmp(ours, theirs, olen)) {
		fprintf(stderr, "bench replay: %s differs from %s %s on the log\n", name, tool,
			args[0]);
		err = -EPROTO;
	} else {
		fprintf(stderr, "bench replay: %s writes the %zu lines %s %s writes for the log, "
			"byte for byte\n", name, lines, tool, args[0]);
	}
	free(ours);
	free(theirs);
	return err;
}

/* Before it is timed, the CSV of every event must be the bytes ausearch writes. */
static int csv_check(void)
{
	char *ours = NULL;
	size_t olen = 0;
	uint64_t kept = 0;
	int err = pass_text(NULL, SP_AUDIT_REPLAY_CSV, &ours, &olen, &kept);
	if (err) {
		free(ours);
		return err;
	}
	return same_as_tool("csv", ours, olen, "ausearch", csv_args);
}

/* A variant whose output is checked against the tool's before it is timed. */
static int checked_setup(int (*check)(void), const void *param, void **state)
{
	int err = gen_once();
	if (!err)
		err = check();
	return err ? err : log_setup(param, state);
}

static int csv_setup(const void *param, void **state)
{
	return checked_setup(csv_check, param, state);
}

static void csv_run(void *state, uint64_t n)
{
	uint64_t kept;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	(void)state;
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS)
		if (fd < 0 || select_pass(NULL, SP_AUDIT_REPLAY_CSV, fd, &kept) ||
		    kept != REPLAY_EVENTS)
			abort();
	close(fd);
}

static int ausearch_csv_setup(const void *param, void **state)
{
	return tool_setup("ausearch", csv_args, state);
}

/* ---- aureport's summary report, checked against aureport on the same file ---- */

/* One pass of `audit replay --report summary --summary` over the log (no rules: every
 * event), the report to f.  0 or -errno. */
static int summary_pass(FILE *f)
{
	struct sp_audit_report_opts ro = { .sz = sizeof(ro), .kind = SP_AUDIT_REPORT_SUMMARY,
					   .summary = 1, .out = f };
	struct sp_audit_report *rep;
	int err = sp_audit_report_new(&ro, &rep);
	if (err)
		return err;
	struct sp_audit_replay_opts o = { .sz = sizeof(o), .out_fd = -1, .report = rep,
					  .flags = SP_AUDIT_REPLAY_NO_RULES };
	struct sp_audit_replay *r = NULL;
	struct sp_audit_replay_stats st = { 0 };
	err = sp_audit_replay_new("", 0, "bench.rules", &o, &r);
	if (!err)
		err = sp_audit_report_input(rep, "bench.log");
	for (size_t off = 0; off < gen.len && !err; off += 1u << 20) {
		size_t k = gen.len - off < (1u << 20) ? gen.len - off : (1u << 20);
		err = sp_audit_replay_feed(r, "bench.log", gen.log + off, k);
	}
	if (!err)
		err = sp_audit_replay_finish(r);
	if (r)
		sp_audit_replay_get_stats(r, &st);
	if (!err)
		err = sp_audit_report_finish(rep);
	sp_audit_replay_free(r);
	sp_audit_report_free(rep);
	return err ? err : st.events == REPLAY_EVENTS && !st.malformed ? 0 : -EPROTO;
}

/* Before it is timed, the report must be the bytes `aureport --summary` writes. */
static int summary_check(void)
{
	char *ours = NULL;
	size_t olen = 0;
	FILE *f = open_memstream(&ours, &olen);
	static const char *const args[] = { "--summary", NULL };
	int err = f ? summary_pass(f) : -ENOMEM;
	if (f && fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(ours);
		return err;
	}
	return same_as_tool("report --summary", ours, olen, "aureport", args);
}

static int summary_setup(const void *param, void **state)
{
	return checked_setup(summary_check, param, state);
}

static void summary_run(void *state, uint64_t n)
{
	FILE *f = fopen("/dev/null", "we");
	(void)state;
	for (uint64_t done = 0; done < n; done += REPLAY_EVENTS)
		if (!f || summary_pass(f))
			abort();
	fclose(f);
}

static const struct sp_bench_variant variants[] = {
	{ "replay-log", log_setup, log_run, r_teardown },
	{ "replay-record", log_setup, rec_run, r_teardown },
	{ "replay-log --jobs 2", log_setup, jobs_run, r_teardown },
	{ "stream-pipe", log_setup, pipe_run, r_teardown },
	{ "select -k exec", select_setup, select_run, select_teardown },
	{ "ausearch -k", ausearch_setup, tool_run, tool_teardown },
	{ "aureport --summary", aureport_setup, tool_run, tool_teardown },
	{ "report --summary", summary_setup, summary_run, r_teardown },
	{ "stream-laurel", log_setup, pipe_laurel_run, r_teardown },
	{ "laurel", laurel_setup, laurel_run, laurel_teardown },
	{ "csv", csv_setup, csv_run, r_teardown },
	{ "ausearch csv", ausearch_csv_setup, tool_run, tool_teardown },
};

static const struct sp_bench_case cases[] = {
	{ "100k-events", NULL, 0 },
};

/* The context's goal, in events per second, as time per event. */
static const struct sp_bench_ref refs[] = {
	{ NULL, SP_BENCH_REF_NS, 1, 1000, "goal: replay-log above 1M events/s" },
	{ NULL, 0, 0, 0, NULL },
};

const struct sp_bench_suite bench_suite_replay = {
	.name = "replay",
	.desc = "audit.log replay through the compiled filter (events/s) beside ausearch, "
		"aureport and laurel",
	.unit = "event",
	.cases = cases,
	.ncases = 1,
	.variants = variants,
	.nvariants = 12,
	.fixed_ops = REPLAY_EVENTS,
	.refs = refs,
	.context = "goal: > 1M events/s on one core for replay-log; the generated log copies the "
		   "record shapes of the go-libaudit RHEL 7 samples (~3.7 records, ~640 bytes per "
		   "event; SYSCALL key= holds the bench rules' key for exec, access and network "
		   "events, so ausearch -k exec has matches); the tools' time includes fork+exec",
	/* aureport --summary is the slowest variant by far (docs/DESIGN.md): run only
	 * when named */
	.flags = SP_BENCH_NOT_DEFAULT,
};
