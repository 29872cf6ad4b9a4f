/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * counters.c - perf_event_open counters of the calling thread for the bench harness.
 *
 * Hardware group: cycles (leader), instructions, L1D read misses, read together with
 * PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING and scaled by enabled/running when
 * the kernel multiplexed them.  Machines without a PMU (KVM guests: ENOENT) leave the group closed
 * and every hardware metric NAN ("n/a") - never an error.  Software counters (context switches,
 * migrations, page faults) are separate fds, used to flag disturbed samples.  Hardware events
 * count user space only (exclude_kernel), so perf_event_paranoid = 2 is enough.  Counters follow
 * the calling thread only: for a suite that runs its own threads they see the coordinator.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "bench/bench_int.h"

/* Open one user-space counter of the calling thread; group_fd -1 starts a group (or stands
 * alone), read_group asks for the PERF_FORMAT_GROUP layout. */
static int perf_open(uint32_t type, uint64_t config, int group_fd, int read_group, int user_only)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.exclude_kernel = user_only;
	a.exclude_hv = 1;
	a.disabled = read_group && group_fd < 0;	/* a group leader starts disabled */
	if (read_group)
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

void bench_counters_open(struct bench_counters *c)
{
	static const uint64_t hw_cfg[BENCH_HW_NR] = {
		[BENCH_HW_CYCLES] = PERF_COUNT_HW_CPU_CYCLES,
		[BENCH_HW_INSTR] = PERF_COUNT_HW_INSTRUCTIONS,
		[BENCH_HW_L1DMISS] = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
				     (PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
	};
	static const uint64_t sw_cfg[BENCH_SW_NR] = {
		[BENCH_SW_CS] = PERF_COUNT_SW_CONTEXT_SWITCHES,
		[BENCH_SW_MIGR] = PERF_COUNT_SW_CPU_MIGRATIONS,
		[BENCH_SW_PF] = PERF_COUNT_SW_PAGE_FAULTS,
	};

	c->hw_err = 0;
	for (int i = 0; i < BENCH_HW_NR; i++)
		c->hw_fd[i] = -1;
	for (int i = 0; i < BENCH_HW_NR; i++) {
		uint32_t type = i == BENCH_HW_L1DMISS ? PERF_TYPE_HW_CACHE : PERF_TYPE_HARDWARE;
		int fd = perf_open(type, hw_cfg[i], i == 0 ? -1 : c->hw_fd[0], 1, 1);
		if (fd < 0) {
			c->hw_err = -fd;
			for (int j = 0; j < i; j++) {
				close(c->hw_fd[j]);
				c->hw_fd[j] = -1;
			}
			break;
		}
		c->hw_fd[i] = fd;
	}
	if (c->hw_fd[0] >= 0) {
		ioctl(c->hw_fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
		ioctl(c->hw_fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	}
	for (int i = 0; i < BENCH_SW_NR; i++) {
		/* Switches happen in the kernel: a user-only count is always 0, so ask for the
		 * kernel side first (needs perf_event_paranoid <= 1 or CAP_PERFMON). */
		int fd = perf_open(PERF_TYPE_SOFTWARE, sw_cfg[i], -1, 0, 0);
		if (fd < 0)
			fd = perf_open(PERF_TYPE_SOFTWARE, sw_cfg[i], -1, 0, 1);
		c->sw_fd[i] = fd < 0 ? -1 : fd;
	}
}

void bench_counters_close(struct bench_counters *c)
{
	for (int i = 0; i < BENCH_HW_NR; i++)
		if (c->hw_fd[i] >= 0)
			close(c->hw_fd[i]);
	for (int i = 0; i < BENCH_SW_NR; i++)
		if (c->sw_fd[i] >= 0)
			close(c->sw_fd[i]);
}

void bench_counters_read(const struct bench_counters *c, struct bench_reading *r)
{
	for (int i = 0; i < BENCH_HW_NR; i++)
		r->hw[i] = NAN;
	if (c->hw_fd[0] >= 0) {
		/* nr, time_enabled, time_running, value[nr] */
		uint64_t buf[3 + BENCH_HW_NR];
		ssize_t n = read(c->hw_fd[0], buf, sizeof(buf));
		if (n == (ssize_t)sizeof(buf) && buf[0] == BENCH_HW_NR) {
			double scale = buf[2] ? (double)buf[1] / (double)buf[2] : NAN;
			for (int i = 0; i < BENCH_HW_NR; i++)
				r->hw[i] = (double)buf[3 + i] * scale;
		}
	}
	for (int i = 0; i < BENCH_SW_NR; i++) {
		uint64_t v = 0;
		if (c->sw_fd[i] >= 0 && read(c->sw_fd[i], &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		r->sw[i] = v;
	}
}
