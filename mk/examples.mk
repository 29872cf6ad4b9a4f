# SPDX-License-Identifier: LGPL-2.1-or-later
# mk/examples.mk - examples/ (audit_filter.c, policy_decide.c) built and run against a copy of
# the variant installed into a temporary prefix: `make test-examples` (or SAN=asan) runs
# scripts/test-examples.sh, which ends with "examples: N passed, N failed".  make test runs the
# same script from scripts/run-tests.sh.  The examples are user code: they are never part of the
# library, the tool or test-build.
.PHONY: test-examples
test-examples: all
	@sh scripts/test-examples.sh $(OUT)
