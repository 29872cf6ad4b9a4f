/*
 * suite_audit_parse.c - the `audit-parse` bench suite (placeholder: no variants until its part lands).
 */
#include "secpath/bench.h"
#include "bench/suites.h"

const struct sp_bench_suite bench_suite_audit_parse = {
	.name = "audit-parse",
	.desc = "not built yet",
	.unit = "op",
};
