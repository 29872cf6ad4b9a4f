#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tsan.sh [TEST...] - build the concurrency tests in the ThreadSanitizer variant (make SAN=tsan,
# out/tsan; see mk/tsan.mk) and run them with tests/tsan.supp; a program passes when its cmocka
# run passes and TSan reports nothing.  Ends with "tsan: N passed, N failed" (programs).
# SP_STRESS_MS sets the stress tests' run time (default 2000 ms each).
set -u
cd "$(dirname "$0")/.." || exit 2
tests=${*:-"test_stress_audit test_stress_avc test_policy_avc test_slab_threads"}
bins=""
for t in $tests; do bins="$bins out/tsan/tests/$t"; done
if ! make --no-print-directory -j2 SAN=tsan VARIANT=tsan $bins >/tmp/sp-tsan-build.$$ 2>&1; then
	tail -30 /tmp/sp-tsan-build.$$
	rm -f /tmp/sp-tsan-build.$$
	echo "tsan: 0 passed, 1 failed (build)"
	exit 1
fi
rm -f /tmp/sp-tsan-build.$$
export TSAN_OPTIONS="suppressions=$(pwd)/tests/tsan.supp history_size=7 halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0
fail=0
for t in $tests; do
	start=$(date +%s)
	"out/tsan/tests/$t" >"$log" 2>&1
	rc=$?
	warn=$(grep -c '^WARNING: ThreadSanitizer' "$log")
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	line=$(grep '^stress ' "$log" | tail -1)
	secs=$(($(date +%s) - start))
	if [ "$rc" -eq 0 ] && [ "$warn" -eq 0 ]; then
		pass=$((pass + 1))
		printf '%-24s ok: %s test(s), 0 tsan reports, %ss %s\n' "$t" "${p:-0}" "$secs" "$line"
	else
		fail=$((fail + 1))
		printf '%-24s FAILED: exit %s, %s failed test(s), %s tsan report(s)\n' "$t" "$rc" \
			"${f:-0}" "$warn"
		grep -A12 '^WARNING: ThreadSanitizer' "$log" | head -60
		grep -A3 'FAILED\|ERROR' "$log" | head -20
	fi
done
echo "tsan: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
