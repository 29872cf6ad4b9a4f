#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-tests.sh OUT - run every cmocka test program and every crash test built into OUT, from the
# project root, and end with "total: N passed, N failed".
#  - cmocka programs: counts come from their "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)"
#    lines; a program that dies without a summary counts as one failure.
#  - crash programs (OUT/crash/NAME): must die by SIGABRT and print exactly the stderr line in
#    tests/crash/NAME.expect.
set -u
out=${1:?usage: run-tests.sh OUT}
pass=0
fail=0
failed_names=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "$out"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	"$t" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	[ -n "$p" ] || p=0
	[ -n "$f" ] || f=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$f" -ne 0 ]; then
		failed_names="$failed_names $name"
		echo "---- $name (exit $rc)"
		tail -40 "$log"
	fi
	printf '%-36s %4d passed, %d failed\n' "$name" "$p" "$f"
done
for c in "$out"/crash/*; do
	[ -x "$c" ] || continue
	name=$(basename "$c")
	exp="tests/crash/$name.expect"
	"$c" >/dev/null 2>"$log"
	rc=$?
	want=$(cat "$exp" 2>/dev/null)
	got=$(grep -v '^==\|^    #\|^SUMMARY\|^$' "$log" | head -1)
	if [ "$rc" -eq 134 ] && [ "$got" = "$want" ]; then
		pass=$((pass + 1))
		printf '%-36s crash ok: %s\n' "crash/$name" "$got"
	else
		fail=$((fail + 1))
		failed_names="$failed_names crash/$name"
		printf '%-36s crash FAILED: exit %s, stderr "%s", want SIGABRT and "%s"\n' "crash/$name" "$rc" "$got" "$want"
	fi
done
for z in "$out"/fuzz-replay/fuzz_*; do
	[ -x "$z" ] || continue
	name=$(basename "$z")
	if [ -d "fuzz/corpus/$name" ] && "$z" "fuzz/corpus/$name" >"$log" 2>&1; then
		pass=$((pass + 1))
		printf '%-36s %s\n' "replay/$name" "$(tail -1 "$log")"
	else
		fail=$((fail + 1))
		failed_names="$failed_names replay/$name"
		echo "---- replay/$name"; tail -30 "$log"
	fi
done
# A script group: "NAME: N passed, N failed" as its last line; a script that exits non-zero
# without a failure count counts as one failure; on failure, the lines GREP selects are shown.
group() {
	name=$1; show=$2; shift 2
	"$@" >"$log" 2>&1; rc=$?
	p=$(sed -n "s/^$name: \([0-9]*\) passed, [0-9]* failed\$/\1/p" "$log")
	f=$(sed -n "s/^$name: [0-9]* passed, \([0-9]*\) failed\$/\1/p" "$log")
	[ -n "$p" ] || p=0; [ -n "$f" ] || f=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f))
	[ "$f" -eq 0 ] || { failed_names="$failed_names $name"; grep -e "$show" "$log" | tail -40; }
	printf '%-36s %4d passed, %d failed\n' "$name" "$p" "$f"
}
# The code's shape: the layering rule, its checker against planted violations, function length.
group layering FAIL sh scripts/test-layering.sh
# The embedding examples against an installed library in a temporary prefix.
group examples 'FAIL\|fail' sh scripts/test-examples.sh "$out"
# The HTML bench report: structure, and a headless Chromium screenshot of it.
group html 'FAIL\|fail' sh scripts/test-html.sh "$out"
# The LD_PRELOAD allocator under real programs (gcc, git, python3, sqlite3, the project's tests).
group malloc 'FAIL\|fail' sh scripts/test-malloc.sh "$out"
# The tool's contract: --help, exit codes, no prefix matching, positioned errors, --json.
group cli FAIL sh tests/cli/test-cli.sh "$out"
# No command destroys a user's file: outputs vs inputs, full disk, signals, cut input.
group files FAIL sh tests/cli/test-files.sh "$out"
# Every --json output against its schema (docs/json/secpath.schema.json).
group json FAIL sh tests/cli/test-json.sh "$out"
# audit replay's ausearch options against ausearch 3.0.9 itself on the bundled logs.
group ausearch FAIL sh tests/cli/test-ausearch.sh "$out"
# audit replay -i against ausearch -i 3.0.9 itself: the same bytes, in the same order.
group ausearch-interp FAIL sh tests/cli/test-ausearch-interp.sh "$out"
# policy diff's sections against sediff (setools 4.4) on Debian's and the upstream policies.
group sediff FAIL sh tests/cli/test-sediff.sh "$out"
# audit stream, replay's live form: the same records, idle flush, SIGHUP reload, bad lines.
group stream FAIL sh tests/cli/test-stream.sh "$out"
# audit replay --format laurel against laurel 0.5.1 itself on the bundled logs.
group laurel FAIL sh tests/cli/test-laurel.sh "$out"
# audit replay --report against aureport 3.0.9 itself on the same logs and selections.
group aureport FAIL sh tests/cli/test-aureport.sh "$out"
# The installed tool, run from another directory: its data, allocator and man pages.
group install FAIL sh tests/cli/test-install.sh "$out"
[ -z "$failed_names" ] || echo "failed:$failed_names"
echo "total: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
