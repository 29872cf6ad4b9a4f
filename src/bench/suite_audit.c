/*
 * suite_audit.c - the `audit` bench suite (placeholder: no variants until its part lands).
 */
#include "secpath/bench.h"
#include "bench/suites.h"

const struct sp_bench_suite bench_suite_audit = {
	.name = "audit",
	.desc = "not built yet",
	.unit = "op",
};
