#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-layering.sh - scripts/check-layering.sh passes on the tree and fails on each planted
# violation, on a copy of src/ and cli/: a part including a public header of a part beside it,
# a lower part including a higher part's internal header, bench including a policy-internal
# header, cli including an internal header, and an audit sub-folder including one above it.
# Last, every function within 120 lines (scripts/check-functions.sh), and docs/API.md naming
# every exported function (scripts/check-api-doc.sh).
# Ends with "layering: N passed, N failed".
set -u
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
if sh scripts/check-layering.sh . >"$tmp/out" 2>&1; then ok; else bad "the tree: $(cat "$tmp/out")"; fi
# plant FILE LINE WANT: the check must fail and name FILE
plant() {
	rm -rf "$tmp/t"; mkdir -p "$tmp/t"; cp -r src cli "$tmp/t/"
	mkdir -p "$tmp/t/src/malloc"; : >"$tmp/t/src/malloc/x.h"
	f=$1; shift
	printf '%s\n' "$1" >>"$tmp/t/$f"
	if sh scripts/check-layering.sh "$tmp/t" >"$tmp/out" 2>&1; then
		bad "planted '$1' in $f passed"
	elif grep -q "layering: $f:.*($2" "$tmp/out"; then ok
	else bad "planted '$1' in $f: $(cat "$tmp/out")"; fi
}
plant src/policy/avc.c '#include "secpath/audit_filter.h"' 'audit is not below policy'
plant src/slab/arena.c '#include "malloc/x.h"' 'internal header of malloc'
plant src/bench/suite_audit.c '#include "policy/policy_int.h"' 'internal header of policy'
plant src/bench/harness.c '#include "audit/filter/filter_int.h"' 'internal header of audit'
plant cli/cmd_slab.c '#include "slab/slab_fast.h"' 'cli includes public headers only'
plant src/audit/lang/parse.c '#include "audit/log/log_int.h"' 'audit/log is above audit/lang'
plant src/audit/filter/ref.c '#include "secpath/audit_tools.h"' 'audit/tools is above audit/filter'
plant src/base/diag.c '#include "secpath/slab.h"' 'slab is not below base'
plant src/audit/lang/env.c '#include "secpath/policy.h"' 'policy is not below audit'
# and every function of src/ and cli/ within 120 lines (scripts/check-functions.sh)
if sh scripts/check-functions.sh 120 >"$tmp/out" 2>&1; then ok; else bad "functions over 120 lines: $(cat "$tmp/out")"; fi
# docs/API.md names every exported function, and the check fails on one it does not name
if sh scripts/check-api-doc.sh . >"$tmp/out" 2>&1; then ok; else bad "api doc: $(cat "$tmp/out")"; fi
rm -rf "$tmp/a"; mkdir -p "$tmp/a/docs"; cp -r include "$tmp/a/"
sed 's/`sp_strerror`/strerror/' docs/API.md >"$tmp/a/docs/API.md"
if sh scripts/check-api-doc.sh "$tmp/a" >"$tmp/out" 2>&1; then bad "api doc: an unnamed function passed"
elif grep -q "sp_strerror is exported" "$tmp/out"; then ok; else bad "api doc planted: $(cat "$tmp/out")"; fi
echo "layering: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
