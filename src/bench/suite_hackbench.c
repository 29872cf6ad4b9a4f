/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suite_hackbench.c - the `hackbench` bench suite: the shape of perf bench sched messaging -t
 * (docs/slab-and-measurement.md 2) with secpath caches standing in for the kernel's skb caches.
 *
 * G groups of F = 10 sender and F receiver threads (hackbench's default is F = 20; 10 keeps a
 * run short on a 2-core machine).  Each receiver owns an AF_UNIX socketpair; every sender of the
 * group writes L messages to each receiver of its group in turn.  Per message the sender
 * allocates an skb-like head (232 B, HWCACHE_ALIGN cache) and a 512 B data buffer (a private
 * kmalloc-512-like SP_SLAB_KMALLOC cache, so an opt-out can cover it), fills 100 bytes, and
 * writes a record {head pointer, the 100 bytes} to the socket; the receiver reads it, checks the
 * payload against the buffer and frees both objects: remote frees, SLUB's slow path.
 * SOCK_SEQPACKET keeps each record whole with many writers per socket (hackbench's SOCK_STREAM
 * only counts bytes).  Threads are created once per (case, variant) and parked on a barrier;
 * one op is one whole run (every message sent and received), timed by the harness.
 * Variants: init-off (baseline), alloc-init, free-init, both, and both with the message caches
 * opted out (SP_SLAB_NO_INIT_ON_ALLOC|NO_INIT_ON_FREE: the 2019 AF_UNIX opt-out experiment).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "secpath/bench.h"
#include "secpath/slab.h"
#include "base/assert.h"
#include "base/compiler.h"
#include "bench/suites.h"

#define HB_FDS 10
#define HB_DATASIZE 100
#define HB_MAX_GROUPS 8

struct hb_param {
	unsigned groups, loops;
};

struct hb_skb {				/* skb-like message head, 232 B */
	struct hb_skb *next, *prev;
	unsigned char *data;
	uint32_t len, truesize;
	uint64_t fields[25];
};
_Static_assert(sizeof(struct hb_skb) == 232, "skb-like head size");

struct hb_record {			/* what travels over the socket */
	struct hb_skb *skb;
	unsigned char payload[HB_DATASIZE];
};

struct hb_state;

struct hb_worker {
	struct hb_state *s;
	pthread_t tid;
	unsigned group, idx;
	int sender;
	int started;
};

struct hb_state {
	const struct hb_param *p;
	struct sp_slab_cache *head, *data;
	int init_alloc, init_free;
	int fds[HB_MAX_GROUPS][HB_FDS][2];	/* [0]: receiver end, [1]: senders' end */
	struct hb_worker *w;
	unsigned nworkers;
	/* The start gate: run() bumps gen and waits until running drops to 0. */
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	unsigned gen, running;
	int quit;
	int failed;			/* atomic: a message was lost or corrupted */
};

static int hb_failed(struct hb_state *s)
{
	return __atomic_load_n(&s->failed, __ATOMIC_RELAXED);
}

/* Record a failure and wake every blocked reader and writer (reads return 0, writes EPIPE). */
static void hb_fail(struct hb_state *s)
{
	__atomic_store_n(&s->failed, 1, __ATOMIC_RELAXED);
	for (unsigned g = 0; g < s->p->groups; g++)
		for (unsigned r = 0; r < HB_FDS; r++)
			shutdown(s->fds[g][r][0], SHUT_RDWR);
}

/*
 * Send one record: not sp_fd_write_all, on purpose.  A SOCK_SEQPACKET send is whole or fails (a
 * short count is an error, never a part to retry), and MSG_NOSIGNAL keeps a run that hb_fail shut
 * down from raising SIGPIPE in the bench process.
 */
static int send_record(int fd, const void *buf, size_t len)
{
	for (;;) {
		ssize_t r = send(fd, buf, len, MSG_NOSIGNAL);
		if (r == (ssize_t)len)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		return -EIO;
	}
}

static void sender(struct hb_worker *w)
{
	struct hb_state *s = w->s;
	struct hb_record rec;
	for (unsigned l = 0; l < s->p->loops && !hb_failed(s); l++) {
		for (unsigned r = 0; r < HB_FDS; r++) {
			struct hb_skb *skb = sp_slab_cache_alloc(s->head);
			unsigned char *data = skb ? sp_slab_cache_alloc(s->data) : NULL;
			if (!data) {
				hb_fail(s);
				return;
			}
			memset(data, (int)(l + r + w->idx) & 0xff, HB_DATASIZE);
			skb->data = data;
			skb->len = HB_DATASIZE;
			skb->truesize = 512;
			rec.skb = skb;
			memcpy(rec.payload, data, HB_DATASIZE);
			if (send_record(s->fds[w->group][r][1], &rec, sizeof(rec))) {
				hb_fail(s);
				return;
			}
		}
	}
}

static void receiver(struct hb_worker *w)
{
	struct hb_state *s = w->s;
	struct hb_record rec;
	unsigned want = HB_FDS * s->p->loops;
	for (unsigned got = 0; got < want && !hb_failed(s);) {
		ssize_t r = read(s->fds[w->group][w->idx][0], &rec, sizeof(rec));
		if (r < 0 && errno == EINTR)
			continue;
		if (r != (ssize_t)sizeof(rec) || !rec.skb || rec.skb->len != HB_DATASIZE ||
		    memcmp(rec.skb->data, rec.payload, HB_DATASIZE)) {
			hb_fail(s);
			return;
		}
		sp_slab_cache_free(s->data, rec.skb->data);
		sp_slab_cache_free(s->head, rec.skb);
		got++;
	}
}

static void *worker_main(void *arg)
{
	struct hb_worker *w = arg;
	struct hb_state *s = w->s;
	unsigned seen = 0;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		while (s->gen == seen && !s->quit)
			pthread_cond_wait(&s->go, &s->mu);
		seen = s->gen;
		int quit = s->quit;
		pthread_mutex_unlock(&s->mu);
		if (quit)
			break;
		if (w->sender)
			sender(w);
		else
			receiver(w);
		pthread_mutex_lock(&s->mu);
		if (--s->running == 0)
			pthread_cond_signal(&s->done);
		pthread_mutex_unlock(&s->mu);
	}
	return NULL;
}

static void teardown(void *state)
{
	struct hb_state *s = state;
	pthread_mutex_lock(&s->mu);
	s->quit = 1;
	pthread_cond_broadcast(&s->go);
	pthread_mutex_unlock(&s->mu);
	for (unsigned i = 0; s->w && i < s->nworkers; i++)
		if (s->w[i].started)
			pthread_join(s->w[i].tid, NULL);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->go);
	pthread_cond_destroy(&s->done);
	for (unsigned g = 0; g < HB_MAX_GROUPS; g++)
		for (unsigned r = 0; r < HB_FDS; r++)
			for (int k = 0; k < 2; k++)
				if (s->fds[g][r][k] >= 0)
					close(s->fds[g][r][k]);
	if (s->head)
		sp_slab_cache_destroy(s->head);
	if (s->data)
		sp_slab_cache_destroy(s->data);
	free(s->w);
	free(s);
}

static int setup_mode(const void *param, void **state, int ia, int ifree, unsigned optout)
{
	const struct hb_param *p = param;
	struct hb_state *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	memset(s->fds, -1, sizeof(s->fds));
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->go, NULL);
	pthread_cond_init(&s->done, NULL);
	s->p = p;
	s->init_alloc = ia;
	s->init_free = ifree;
	rc = p->groups < 1 || p->groups > HB_MAX_GROUPS ? -EINVAL : 0;
	if (!rc)
		rc = sp_slab_cache_create("hb-skb-head", sizeof(struct hb_skb), 0,
					  SP_SLAB_HWCACHE_ALIGN | optout, NULL, &s->head);
	if (!rc)
		rc = sp_slab_cache_create("hb-skb-data-512", 512, 0, SP_SLAB_KMALLOC | optout, NULL,
					  &s->data);
	for (unsigned g = 0; !rc && g < p->groups; g++)
		for (unsigned r = 0; !rc && r < HB_FDS; r++)
			if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->fds[g][r])) {
				rc = -errno;
				s->fds[g][r][0] = s->fds[g][r][1] = -1;
			}
	if (!rc) {
		s->nworkers = p->groups * HB_FDS * 2;
		s->w = calloc(s->nworkers, sizeof(*s->w));
		rc = s->w ? 0 : -ENOMEM;
	}
	for (unsigned i = 0; !rc && i < s->nworkers; i++) {
		struct hb_worker *w = &s->w[i];
		w->s = s;
		w->group = i / (2 * HB_FDS);
		w->idx = i % HB_FDS;
		w->sender = (i / HB_FDS) % 2;
		rc = -pthread_create(&w->tid, NULL, worker_main, w);
		w->started = !rc;
	}
	if (rc) {
		teardown(s);
		return rc;
	}
	*state = s;
	return 0;
}

static int setup_off(const void *p, void **st) { return setup_mode(p, st, 0, 0, 0); }
static int setup_alloc(const void *p, void **st) { return setup_mode(p, st, 1, 0, 0); }
static int setup_free(const void *p, void **st) { return setup_mode(p, st, 0, 1, 0); }
static int setup_both(const void *p, void **st) { return setup_mode(p, st, 1, 1, 0); }
static int setup_optout(const void *p, void **st)
{
	return setup_mode(p, st, 1, 1, SP_SLAB_NO_INIT_ON_ALLOC | SP_SLAB_NO_INIT_ON_FREE);
}

static void run(void *state, uint64_t n)
{
	struct hb_state *s = state;
	int old_a = sp_slab_init_on_alloc(), old_f = sp_slab_init_on_free();
	sp_slab_set_init_on_alloc(s->init_alloc);
	sp_slab_set_init_on_free(s->init_free);
	for (uint64_t i = 0; i < n && !hb_failed(s); i++) {
		pthread_mutex_lock(&s->mu);
		s->running = s->nworkers;
		s->gen++;
		pthread_cond_broadcast(&s->go);
		while (s->running)
			pthread_cond_wait(&s->done, &s->mu);
		pthread_mutex_unlock(&s->mu);
	}
	sp_slab_set_init_on_alloc(old_a);
	sp_slab_set_init_on_free(old_f);
	if (hb_failed(s))
		sp_fatal("bench hackbench: a message was lost or corrupted");
}

static const struct hb_param g1 = { 1, 400 }, g2 = { 2, 400 }, q1 = { 1, 100 };

static const struct sp_bench_case cases[] = {
	{ "G=1", &g1, SP_BENCH_CASE_FULL_ONLY },
	{ "G=2", &g2, SP_BENCH_CASE_FULL_ONLY },
	{ "G=1,L=100", &q1, SP_BENCH_CASE_QUICK_ONLY },
};

static const struct sp_bench_variant variants[] = {
	{ "init-off", setup_off, run, teardown },
	{ "alloc-init", setup_alloc, run, teardown },
	{ "free-init", setup_free, run, teardown },
	{ "both", setup_both, run, teardown },
	{ "both-optout", setup_optout, run, teardown },
};

const struct sp_bench_suite bench_suite_hackbench = {
	.name = "hackbench",
	.desc = "G groups of 10 sender + 10 receiver threads, 100 B messages over AF_UNIX "
		"socketpairs, skb-like head + 512 B data per message, freed remotely",
	.unit = "run",
	.cases = cases,
	.ncases = SP_ARRAY_SIZE(cases),
	.variants = variants,
	.nvariants = SP_ARRAY_SIZE(variants),
	.fixed_ops = 1,
	.flags = SP_BENCH_NO_PIN,
	.context = "the 2019 init_on_alloc/free thread: hackbench +3.45% sys time with "
		   "init_on_alloc, +7.71% with init_on_free; kernel build +4.57% wall with "
		   "init_on_free.  Here a whole run is timed (wall, and process CPU time = user + "
		   "sys of all threads on 2 cores), so the zeroing share is smaller and scheduler "
		   "noise is large: read the callgrind Ir/run (--cachegrind) for the user-space "
		   "cost; messages per run = G x 10 x 10 x L (L = 400; 100 "
		   "with --quick)",
};
