#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# memcheck.sh [--plain] [TEST...] - run a subset of the cmocka test programs under valgrind
# memcheck (--error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite) and end with
# "memcheck: N passed, N failed" (programs).
#
# By default the programs are built in out/memcheck with -DSP_WITH_VALGRIND, so the slab
# allocator tells memcheck which of its bytes are allocated, freed (no access) or zeroed
# (src/base/track.h); --plain uses the release build instead, where slab memory is one big
# defined mapping and only libc heap errors and leaks are visible.  The slab arena's 16 GiB
# MAP_NORESERVE reservation is accepted by valgrind 3.19 as it is.
# The default subset runs in about 3 minutes.
set -u
cd "$(dirname "$0")/.." || exit 2
variant=memcheck
if [ "${1:-}" = "--plain" ]; then
	variant=release
	shift
fi
# Left out of the default set: test_slab_threads and the stress tests (valgrind runs one thread
# at a time: minutes of spinning; ASan and scripts/tsan.sh cover them), test_audit_filter_diff
# and test_audit_lang_oracle (minutes of differential work).
tests=${*:-"test_base test_slab test_slab_env test_slab_random test_audit_lang test_audit_cases
	test_audit_kernel test_audit_filter test_audit_golden test_audit_record test_audit_log
	test_policy_read test_policy_avc test_hostile test_hostile_log"}
bins="out/$variant/secpath"	# test_hostile runs the CLI (not traced)
for t in $tests; do bins="$bins out/$variant/tests/$t"; done
if [ "$variant" = memcheck ]; then
	set -- VARIANT=memcheck EXTRA_CPPFLAGS=-DSP_WITH_VALGRIND
else
	set --
fi
if ! make --no-print-directory -j2 "$@" $bins >/tmp/sp-memcheck-build.$$ 2>&1; then
	tail -30 /tmp/sp-memcheck-build.$$
	rm -f /tmp/sp-memcheck-build.$$
	echo "memcheck: 0 passed, 1 failed (build)"
	exit 1
fi
rm -f /tmp/sp-memcheck-build.$$
export SP_STRESS_MS=${SP_STRESS_MS:-300}	# if stress tests are named
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0
fail=0
for t in $tests; do
	start=$(date +%s)
	valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
		"out/$variant/tests/$t" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	errs=$(grep -Ec '^==[0-9]+== (Invalid|Conditional|Use of uninit|Syscall param|Mismatched|Source and destination|[0-9,]+ bytes in [0-9,]+ blocks are definitely)' "$log")
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		printf '%-22s ok: %s test(s), 0 errors, %ss\n' "$t" "${p:-0}" "$secs"
	else
		fail=$((fail + 1))
		printf '%-22s FAILED: exit %s, %s memcheck error(s), %ss\n' "$t" "$rc" "$errs" "$secs"
		grep -A8 -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|Source|[0-9,]+ bytes)' \
			"$log" | head -24
		grep -A3 '^\[  FAILED\|^\[  ERROR' "$log" | head -10
	fi
done
echo "memcheck: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
