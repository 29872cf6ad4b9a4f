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
extern const struct sp_bench_suite bench_suite_malloc;
#endif
