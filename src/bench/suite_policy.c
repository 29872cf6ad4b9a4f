/*
 * suite_policy.c - the `policy` bench suite (placeholder: no variants until its part lands).
 */
#include "secpath/bench.h"
#include "bench/suites.h"

const struct sp_bench_suite bench_suite_policy = {
	.name = "policy",
	.desc = "not built yet",
	.unit = "op",
};
