/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * suites.h - the built-in bench suites (defined in src/bench/suite_*.c, listed in registry.c).
 */
#ifndef SP_BENCH_SUITES_H
#define SP_BENCH_SUITES_H
#include "secpath/bench.h"

extern const struct sp_bench_suite bench_suite_slab;
extern const struct sp_bench_suite bench_suite_slab_spread;
extern const struct sp_bench_suite bench_suite_hackbench;
extern const struct sp_bench_suite bench_suite_audit;
extern const struct sp_bench_suite bench_suite_audit_parse;
extern const struct sp_bench_suite bench_suite_policy;
extern const struct sp_bench_suite bench_suite_replay;
extern const struct sp_bench_suite bench_suite_stream;
extern const struct sp_bench_suite bench_suite_setools;
extern const struct sp_bench_suite bench_suite_malloc;

/*
 * The replay suite's generated log (built once per process: events with serials 100000 + i,
 * i < 100000, each event's records contiguous) and its rules (auditctl -R text).  0 or -errno.
 */
int bench_replay_log(const char **log, size_t *len, const char **rules, size_t *rules_len);

/*
 * A bundled data file (rel: "audit/rules/debian/30-stig.rules") as a path: under
 * $SECPATH_DATADIR (the tool sets it to the data directory it found, secpath(1) FILES), else
 * under data/ of the current directory.  0, or -ENOENT when it cannot be read: the harness then
 * names it when the variant is skipped, and the suite's run returns -ENODATA (a benchmark
 * that measured nothing is an error).
 */
int bench_data_file(const char *rel, char *buf, size_t len);
/* The data file the last failed bench_data_file() call of this thread named ("" if none), and
 * forget it. */
void bench_data_missing(char *buf, size_t len);
#endif
