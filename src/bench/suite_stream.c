/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_stream.c - the `stream` bench suite: per-event latency of `secpath audit stream` as
 * auditd's plugin, fed at a fixed event rate through a pipe, as auditd feeds it.
 *
 * One op = one event of the replay suite's generated log (bench_replay_log).  A sample runs
 * `secpath audit stream` (this program, /proc/self/exe) as a child process: a writer thread
 * writes the events' records into its standard input, one write per record, event i at
 * t0 + i / rate (an absolute schedule: a late writer does not lower the offered rate), and a
 * reader thread reads its standard output.  An event's latency is from just before the write
 * of its last record to the read that returned the first output line naming its serial: what
 * a consumer of the plugin's output waits, with the kernel's scheduling of three parties on
 * this machine's cores included.  Only events the plugin writes are timed (the raw variant
 * keeps what the replay suite's rules keep; the laurel variant writes every event).
 *
 * Figures (sp_bench_suite.figures): latency p50, p99 and max over every event of every sample
 * (a histogram of 1 us buckets up to LAT_BUCKETS us, max exact), and the events timed.  Wall
 * time per op is the schedule's period while the plugin keeps up; above it, it fell behind.
 *
 * Invariants: the sample's serial -> event index map is serial - 100000 - start (the log's
 * serials are 100000 + i); a line names its serial at "msg=audit(T:SERIAL)" (raw) or
 * "\"ID\":\"T:SERIAL\"" (laurel's JSON).  The child is reaped in every path of a sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "secpath/bench.h"
#include "bench/bench_int.h"
#include "bench/suites.h"

#define LOG_EVENTS 100000u		/* the generated log's events (serials 100000 + i) */
#define STREAM_OPS 10000u		/* events per sample: 1 s at 10k events/s */
#define LAT_BUCKETS 20000u		/* 1 us buckets; slower events count in the last */

extern char **environ;

struct stream_case {
	unsigned rate;			/* events per second offered */
};

struct lat {
	const char *log;
	size_t len;
	uint32_t *ev;			/* LOG_EVENTS + 1 event start offsets into log */
	uint8_t *eoe;			/* LOG_EVENTS: the event has a SYSCALL record */
	int laurel;			/* --format laurel, no rules (every event written) */
	int cat;			/* cat(1) instead of secpath: the relay's floor */
	char rules[64];			/* the rules file (raw variant) */
	char exe[256];			/* this program, which must be secpath */
	uint64_t period_ns;
	uint32_t start;			/* the next sample's first event */
	/* per sample */
	uint64_t *t_w, *t_r;		/* STREAM_OPS write / first-read times (0: none) */
	uint32_t n, first;		/* events this sample, its first event */
	/* over every sample */
	uint32_t *hist;			/* LAT_BUCKETS */
	uint64_t timed, max_ns;
};

/* The start offset of each event: records are grouped by serial and contiguous. */
static int index_events(struct lat *l)
{
	uint32_t n = 0, last = 0;
	l->ev = malloc((LOG_EVENTS + 1) * sizeof(*l->ev));
	l->eoe = calloc(LOG_EVENTS, 1);
	if (!l->ev || !l->eoe)
		return -ENOMEM;
	for (size_t off = 0; off < l->len;) {
		const char *p = l->log + off, *e = memchr(p, '\n', l->len - off);
		const char *a = memmem(p, e ? (size_t)(e - p) : l->len - off, "audit(", 6);
		const char *c = a ? memchr(a, ':', (size_t)((e ? e : l->log + l->len) - a)) : NULL;
		uint32_t serial = c ? (uint32_t)strtoul(c + 1, NULL, 10) : 0;
		if (!e || !c)
			return -EPROTO;
		if (!n || serial != last) {
			if (n == LOG_EVENTS || serial != 100000 + n)
				return -EPROTO;
			l->ev[n++] = (uint32_t)off;
			last = serial;
		}
		l->eoe[n - 1] |= !strncmp(p, "type=SYSCALL ", 13);
		off = (size_t)(e - l->log) + 1;
	}
	l->ev[n] = (uint32_t)l->len;
	return n == LOG_EVENTS ? 0 : -EPROTO;
}

/* /proc/self/exe when it is secpath (a bench run from a test program has no `audit stream`). */
static int find_self(struct lat *l)
{
	ssize_t k = readlink("/proc/self/exe", l->exe, sizeof(l->exe) - 1);
	if (k <= 0)
		return -ENOENT;
	l->exe[k] = 0;
	const char *b = strrchr(l->exe, '/');
	b = b ? b + 1 : l->exe;
	if (strncmp(b, "secpath", 7) || strchr(b + 7, '_')) {
		fprintf(stderr, "bench stream: %s is not secpath: variant skipped\n", l->exe);
		return -ENOENT;
	}
	return 0;
}

static void lat_teardown(void *state)
{
	struct lat *l = state;
	if (!l)
		return;
	if (l->rules[0])
		unlink(l->rules);
	free(l->ev);
	free(l->eoe);
	free(l->t_w);
	free(l->t_r);
	free(l->hist);
	free(l);
}

static int lat_setup(const struct stream_case *c, int laurel, int cat, void **state)
{
	const char *rules;
	size_t rlen;
	struct lat *l = calloc(1, sizeof(*l));
	int err = l ? bench_replay_log(&l->log, &l->len, &rules, &rlen) : -ENOMEM;
	if (!err && !cat)
		err = find_self(l);
	if (!err && cat && access("/bin/cat", X_OK))
		err = -ENOENT;
	if (!err)
		err = index_events(l);
	if (!err) {
		l->t_w = calloc(STREAM_OPS, sizeof(*l->t_w));
		l->t_r = calloc(STREAM_OPS, sizeof(*l->t_r));
		l->hist = calloc(LAT_BUCKETS, sizeof(*l->hist));
		err = l->t_w && l->t_r && l->hist ? 0 : -ENOMEM;
	}
	l = err && !l ? NULL : l;
	if (!err)
		l->cat = cat;
	if (!err && !(l->laurel = laurel) && !cat) {
		strcpy(l->rules, "/tmp/secpath-stream-XXXXXX");
		int fd = mkstemp(l->rules);
		if (fd < 0 || sp_fd_write_all(fd, rules, rlen))
			err = -EIO;
		if (fd < 0)
			l->rules[0] = 0;
		else
			close(fd);
	}
	if (err) {
		lat_teardown(l);
		return err;
	}
	l->period_ns = 1000000000u / c->rate;
	*state = l;
	return 0;
}

static int raw_setup(const void *param, void **state)
{
	return lat_setup(param, 0, 0, state);
}

static int laurel_setup(const void *param, void **state)
{
	return lat_setup(param, 1, 0, state);
}

static int cat_setup(const void *param, void **state)
{
	return lat_setup(param, 0, 1, state);
}

struct pass {
	struct lat *l;
	int fd;
	int err;
	volatile int *ready;		/* set by the reader when the probe came out */
};

#define PROBE_SERIAL 99999u		/* outside the log's serials */

/* The probe: a user message both variants keep (no rule drops a USER_LOGIN of uid 1000), sent
 * before the schedule starts; its output says the plugin is up and reading. */
static size_t probe_line(char *buf, size_t len)
{
	int k = snprintf(buf, len, "type=USER_LOGIN msg=audit(1490000000.000:%u): pid=1 uid=1000 "
			 "auid=1000 ses=1 msg='op=login id=1000 exe=\"/bin/login\" hostname=? "
			 "addr=? terminal=tty1 res=success'\n", PROBE_SERIAL);
	return k > 0 && (size_t)k < len ? (size_t)k : 0;
}

/* Until the reader saw the probe: 0, or -ETIMEDOUT after 10 s. */
static int wait_ready(volatile int *ready)
{
	struct timespec ts = { 0, 100000 };
	for (unsigned i = 0; i < 100000 && !__atomic_load_n(ready, __ATOMIC_ACQUIRE); i++)
		nanosleep(&ts, NULL);
	return __atomic_load_n(ready, __ATOMIC_ACQUIRE) ? 0 : -ETIMEDOUT;
}

/* The end-of-event record the kernel sends after a syscall event's records (auditd passes it
 * to its plugins; it is not in audit.log, which the generated log copies): "type=EOE
 * msg=audit(T:S): \n", T:S the event's; its length, 0 when the event has none. */
static size_t eoe_line(const struct lat *l, uint32_t i, char *buf, size_t len)
{
	const char *s = l->log + l->ev[i], *end = l->log + l->ev[i + 1];
	const char *a = l->eoe[i] ? memmem(s, (size_t)(end - s), "msg=audit(", 10) : NULL;
	const char *c = a ? memchr(a, ')', (size_t)(end - a)) : NULL;
	int k = c ? snprintf(buf, len, "type=EOE %.*s: \n", (int)(c + 1 - a), a) : 0;
	return k > 0 && (size_t)k < len ? (size_t)k : 0;
}

/* The writer: event j of the sample at t0 + j * period, one write per record, then EOF. */
static void *writer(void *arg)
{
	struct pass *p = arg;
	struct lat *l = p->l;
	char eoe[96], probe[256];
	size_t kp = probe_line(probe, sizeof(probe));
	(void)prctl(PR_SET_TIMERSLACK, 1UL);
	p->err = !kp || sp_fd_write_all(p->fd, probe, kp) ? -EIO : 0;
	if (!p->err)
		p->err = wait_ready(p->ready);
	uint64_t t0 = bench_now_ns();
	for (uint32_t j = 0; j < l->n && !p->err; j++) {
		uint64_t due = t0 + j * l->period_ns;
		struct timespec ts = { (time_t)(due / 1000000000u), (long)(due % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		uint32_t i = (l->first + j) % LOG_EVENTS;
		const char *s = l->log + l->ev[i], *end = l->log + l->ev[i + 1];
		size_t ke = eoe_line(l, i, eoe, sizeof(eoe));
		while (s < end && !p->err) {
			const char *e = (const char *)memchr(s, '\n', (size_t)(end - s)) + 1;
			if (e == end && !ke)
				l->t_w[j] = bench_now_ns();
			p->err = sp_fd_write_all(p->fd, s, (size_t)(e - s)) ? -EIO : 0;
			s = e;
		}
		if (ke && !p->err) {
			l->t_w[j] = bench_now_ns();
			p->err = sp_fd_write_all(p->fd, eoe, ke) ? -EIO : 0;
		}
	}
	close(p->fd);
	return NULL;
}

/* The serial a line names, or 0. */
static uint32_t line_serial(const char *s, size_t n)
{
	const char *a = n && s[0] == '{' ? memmem(s, n, "\"ID\":\"", 6) : memmem(s, n, "audit(", 6);
	const char *c = a ? memchr(a + 6, ':', n - (size_t)(a + 6 - s)) : NULL;
	uint32_t v = 0;
	for (c = c ? c + 1 : s + n; c < s + n && *c >= '0' && *c <= '9'; c++)
		v = v * 10 + (uint32_t)(*c - '0');
	return v;
}

/* The reader: each complete line's serial, its event's first-read time. */
static void *reader(void *arg)
{
	enum { BUF = 256 * 1024 };
	struct pass *p = arg;
	struct lat *l = p->l;
	char *buf = malloc(BUF);
	size_t have = 0;
	ssize_t k;
	if (!buf) {
		p->err = -ENOMEM;
		close(p->fd);
		return NULL;
	}
	while ((k = read(p->fd, buf + have, BUF - have)) > 0 || (k < 0 && errno == EINTR)) {
		uint64_t t = bench_now_ns();
		have += k > 0 ? (size_t)k : 0;
		char *s = buf, *e;
		while ((e = memchr(s, '\n', have - (size_t)(s - buf)))) {
			uint32_t v = line_serial(s, (size_t)(e - s));
			uint32_t j = (v - 100000u + LOG_EVENTS - l->first) % LOG_EVENTS;
			if (v >= 100000u && j < l->n && !l->t_r[j])
				l->t_r[j] = t;
			else if (v == PROBE_SERIAL)
				__atomic_store_n(p->ready, 1, __ATOMIC_RELEASE);
			s = e + 1;
		}
		have -= (size_t)(s - buf);
		memmove(buf, s, have);
		if (have == BUF)	/* a line longer than the buffer: dropped */
			have = 0;
	}
	if (k < 0)
		p->err = -errno;
	free(buf);
	close(p->fd);
	return NULL;
}

/* The child: secpath audit stream, stdin and stdout the pipes, stderr thrown away. */
static pid_t spawn(struct lat *l, int in, int out)
{
	static char a0[] = "audit", a1[] = "stream", a2[] = "--machine", a3[] = "x86_64",
		    a4[] = "-R", a5[] = "--format", a6[] = "laurel";
	char *rawv[] = { l->exe, a0, a1, a2, a3, a4, l->rules, NULL };
	char *laurelv[] = { l->exe, a0, a1, a2, a3, a5, a6, NULL };
	static char cat[] = "/bin/cat";
	char *catv[] = { cat, NULL };
	pid_t pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);
		if (nul < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(nul, 2) < 0)
			_exit(126);
		if (l->cat)
			execve(cat, catv, environ);
		else
			execve(l->exe, l->laurel ? laurelv : rawv, environ);
		_exit(127);
	}
	return pid;
}

/* One sample: n events through a fresh plugin process.  0 or -errno. */
static int stream_pass(struct lat *l, uint32_t n)
{
	int in[2], out[2], st = 0;
	volatile int ready = 0;
	struct pass w = { l, -1, 0, &ready }, r = { l, -1, 0, &ready };
	pthread_t tw, tr;
	l->n = n;
	l->first = l->start;
	l->start = (l->start + n) % LOG_EVENTS;
	memset(l->t_w, 0, n * sizeof(*l->t_w));
	memset(l->t_r, 0, n * sizeof(*l->t_r));
	if (pipe2(in, O_CLOEXEC))
		return -errno;
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return -errno;
	}
	pid_t pid = spawn(l, in[0], out[1]);
	close(in[0]);
	close(out[1]);
	w.fd = in[1];
	r.fd = out[0];
	int wok = pid > 0 && !pthread_create(&tw, NULL, writer, &w);
	int rok = pid > 0 && !pthread_create(&tr, NULL, reader, &r);
	if (!wok)
		close(in[1]);
	if (!rok)
		close(out[0]);
	if (wok)
		pthread_join(tw, NULL);
	if (pid > 0 && (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)))
		st = -1;
	if (rok)
		pthread_join(tr, NULL);
	if (pid <= 0 || !wok || !rok || st || w.err || r.err)
		return w.err ? w.err : r.err ? r.err : -ECHILD;
	for (uint32_t j = 0; j < n; j++) {
		if (!l->t_r[j] || !l->t_w[j])
			continue;
		uint64_t d = l->t_r[j] > l->t_w[j] ? l->t_r[j] - l->t_w[j] : 0;
		l->hist[d / 1000 < LAT_BUCKETS ? d / 1000 : LAT_BUCKETS - 1]++;
		l->max_ns = d > l->max_ns ? d : l->max_ns;
		l->timed++;
	}
	return 0;
}

static void lat_run(void *state, uint64_t n)
{
	struct lat *l = state;
	for (uint64_t done = 0; done < n; done += STREAM_OPS) {
		uint32_t k = n - done < STREAM_OPS ? (uint32_t)(n - done) : STREAM_OPS;
		int err = stream_pass(l, k);
		if (err) {
			fprintf(stderr, "bench stream: %s audit stream: %s\n", l->exe, strerror(-err));
			abort();
		}
	}
}

/* The bucket (us) below which a share q of the timed events fall. */
static double lat_pct(const struct lat *l, double q)
{
	uint64_t want = (uint64_t)(q * (double)l->timed + 0.5), seen = 0;
	for (uint32_t b = 0; b < LAT_BUCKETS; b++)
		if ((seen += l->hist[b]) >= want && want)
			return b + 1;
	return LAT_BUCKETS;
}

static size_t lat_figures(const struct sp_bench_variant *v, void *state,
			  struct sp_bench_figure *out, size_t max)
{
	const struct lat *l = state;
	struct sp_bench_figure f[] = {
		{ "latency-p50", "us", lat_pct(l, 0.50) },
		{ "latency-p99", "us", lat_pct(l, 0.99) },
		{ "latency-max", "us", (double)l->max_ns / 1000.0 },
		{ "events-timed", "", (double)l->timed },
	};
	size_t n = sizeof(f) / sizeof(f[0]) < max ? sizeof(f) / sizeof(f[0]) : max;
	(void)v;
	if (!l->timed)
		return 0;
	memcpy(out, f, n * sizeof(*f));
	return n;
}

static const struct stream_case rate_10k = { 10000 };

static const struct sp_bench_variant variants[] = {
	{ "stream raw -R", raw_setup, lat_run, lat_teardown },
	{ "stream --format laurel", laurel_setup, lat_run, lat_teardown },
	{ "cat (relay floor)", cat_setup, lat_run, lat_teardown },
};

static const struct sp_bench_case cases[] = {
	{ "10k-events/s", &rate_10k, 0 },
};

const struct sp_bench_suite bench_suite_stream = {
	.name = "stream",
	.desc = "per-event latency of secpath audit stream as auditd's plugin, fed through a pipe "
		"at a fixed event rate",
	.unit = "event",
	.cases = cases,
	.ncases = 1,
	.variants = variants,
	.nvariants = 3,
	.fixed_ops = STREAM_OPS,
	.figures = lat_figures,
	.context = "goal: p99 latency under 100 us at 10k events/s (issue: the live plugin); "
		   "latency = from the write of an event's last record to the read of the plugin's "
		   "first output line of that event, both sides in this process, the plugin a "
		   "child process (one per sample); the raw variant times the events the replay "
		   "suite's rules keep, the laurel variant every event; time per event is the "
		   "offered period while the plugin keeps up",
	/* seconds per sample by design (a fixed rate): only when named */
	.flags = SP_BENCH_NO_PIN | SP_BENCH_NOT_DEFAULT,
};
