#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-tests.sh OUT - run every cmocka test program, every crash test, every fuzz corpus replay and
# every script group built into OUT, from the project root, and end with
# "total: N passed, N failed".
#  - cmocka programs: counts come from their "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)"
#    lines; a program that dies without a summary counts as one failure.
#  - crash programs (OUT/crash/NAME): must die by SIGABRT and print exactly the stderr line in
#    tests/crash/NAME.expect.
#  - script groups: "NAME: N passed, N failed" as their last line; one that exits non-zero without
#    a failure count counts as one failure.
# SECPATH_TEST_JOBS (default: the number of online CPUs) items run at once, the slow ones first;
# each prints its line, with its seconds, as it ends; the failures' output and the total come at
# the end.  Items share nothing but the read-only build and the oracle tool caches, whose fetch
# scripts take a lock.
set -u
# One item, run by a worker: its line on standard output; RES/IDX.cnt "passed failed name", and
# RES/IDX.log the output to show when it failed.
run_item() {
	idx=${1%%:*} kind=${1#*:}
	name=${kind#*:} kind=${kind%%:*}
	log=$res/$idx.out
	t0=$(date +%s)
	case $kind in
	prog) item_prog "$name" ;;
	crash) item_crash "$name" ;;
	replay) item_replay "$name" ;;
	group) item_group "$name" ;;
	*) label=$kind:$name p=0 f=1 line="unknown item" show=cat ;;
	esac
	secs=$(($(date +%s) - t0))
	[ "$f" -eq 0 ] || $show "$log" | tail -40 >"$res/$idx.log"
	printf '%-36s %s (%ss)\n' "$label" "$line" "$secs"
	echo "$p $f $label" >"$res/$idx.cnt"
}
counts() { printf '%4d passed, %d failed' "$p" "$f"; }
item_prog() {
	label=$1 show=cat
	"$out/tests/$1" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	[ -n "$p" ] || p=0
	[ -n "$f" ] || f=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	line="$(counts)"
	[ "$rc" -eq 0 ] || line="$line, exit $rc"
}
item_crash() {
	label=crash/$1 show=cat
	"$out/crash/$1" >/dev/null 2>"$log"
	rc=$?
	want=$(cat "tests/crash/$1.expect" 2>/dev/null)
	got=$(grep -v '^==\|^    #\|^SUMMARY\|^$' "$log" | head -1)
	if [ "$rc" -eq 134 ] && [ "$got" = "$want" ]; then
		p=1 f=0 line="crash ok: $got"
	else
		p=0 f=1 line="crash FAILED: exit $rc, stderr \"$got\", want SIGABRT and \"$want\""
	fi
}
item_replay() {
	label=replay/$1 show=cat
	if [ -d "fuzz/corpus/$1" ] && "$out/fuzz-replay/$1" "fuzz/corpus/$1" >"$log" 2>&1; then
		p=1 f=0 line=$(tail -1 "$log")
	else
		p=0 f=1 line="FAILED"
	fi
}
# A group: its script, and the lines of its output shown when it fails.
item_group() {
	label=$1
	case $1 in
	# The code's shape: the layering rule, its checker against planted violations, function length.
	layering) pat=FAIL; set -- sh scripts/test-layering.sh ;;
	# The embedding examples against an installed library in a temporary prefix.
	examples) pat='FAIL\|fail'; set -- sh scripts/test-examples.sh "$out" ;;
	# The HTML bench report: structure, and a headless Chromium screenshot of it.
	html) pat='FAIL\|fail'; set -- sh scripts/test-html.sh "$out" ;;
	# The LD_PRELOAD allocator under real programs (gcc, git, python3, sqlite3, the project's tests).
	malloc) pat='FAIL\|fail'; set -- sh scripts/test-malloc.sh "$out" ;;
	# The tool's contract: --help, exit codes, no prefix matching, positioned errors, --json.
	cli) pat=FAIL; set -- sh tests/cli/test-cli.sh "$out" ;;
	# No command destroys a user's file: outputs vs inputs, full disk, signals, cut input.
	files) pat=FAIL; set -- sh tests/cli/test-files.sh "$out" ;;
	# Every --json output against its schema (docs/json/secpath.schema.json).
	json) pat=FAIL; set -- sh tests/cli/test-json.sh "$out" ;;
	# audit replay's ausearch options against ausearch 3.0.9 itself on the bundled logs.
	ausearch) pat=FAIL; set -- sh tests/cli/test-ausearch.sh "$out" ;;
	# audit replay -i against ausearch -i 3.0.9 itself: the same bytes, in the same order.
	ausearch-interp) pat=FAIL; set -- sh tests/cli/test-ausearch-interp.sh "$out" ;;
	# audit replay --format csv|text against ausearch --format csv|text 3.0.9: the same bytes.
	ausearch-format) pat=FAIL; set -- sh tests/cli/test-ausearch-format.sh "$out" ;;
	# policy diff's sections against sediff (setools 4.4) on Debian's and the upstream policies.
	sediff) pat=FAIL; set -- sh tests/cli/test-sediff.sh "$out" ;;
	# audit replay --jobs N against one pass: records, report, diagnostics, exit status.
	jobs) pat=FAIL; set -- sh tests/cli/test-jobs.sh "$out" ;;
	# audit stream, replay's live form: the same records, idle flush, SIGHUP reload, bad lines.
	stream) pat=FAIL; set -- sh tests/cli/test-stream.sh "$out" ;;
	# audit replay --format laurel against laurel 0.5.1 itself on the bundled logs.
	laurel) pat=FAIL; set -- sh tests/cli/test-laurel.sh "$out" ;;
	# audit replay --report against aureport 3.0.9 itself on the same logs and selections.
	aureport) pat=FAIL; set -- sh tests/cli/test-aureport.sh "$out" ;;
	# The installed tool, run from another directory: its data, allocator and man pages.
	install) pat=FAIL; set -- sh tests/cli/test-install.sh "$out" ;;
	*) p=0 f=1 line="no such group" show=cat; return ;;
	esac
	"$@" >"$log" 2>&1
	rc=$?
	p=$(sed -n "s/^$label: \([0-9]*\) passed, [0-9]* failed\$/\1/p" "$log")
	f=$(sed -n "s/^$label: [0-9]* passed, \([0-9]*\) failed\$/\1/p" "$log")
	[ -n "$p" ] || p=0
	[ -n "$f" ] || f=0
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	show="grep -e $pat"
	line="$(counts)"
}
if [ "${1:-}" = "--item" ]; then
	out=$2 res=$3
	run_item "$4"
	exit 0
fi
out=${1:?usage: run-tests.sh OUT}
jobs=${SECPATH_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT
# The items whose run dominates (oracle tools started per query), scheduled first.
slow="prog:test_policy_seinfo group:sediff prog:test_policy_search group:ausearch group:aureport
	group:malloc group:ausearch-interp group:ausearch-format group:cli group:laurel group:html"
# The groups (item_group runs them).
groups="layering examples html malloc cli files json ausearch ausearch-interp ausearch-format sediff
	stream jobs laurel aureport install"
{
	for i in $slow; do echo "$i"; done
	for t in "$out"/tests/test_*; do [ -x "$t" ] && echo "prog:$(basename "$t")"; done
	for c in "$out"/crash/*; do [ -x "$c" ] && echo "crash:$(basename "$c")"; done
	for z in "$out"/fuzz-replay/fuzz_*; do [ -x "$z" ] && echo "replay:$(basename "$z")"; done
	for g in $groups; do echo "group:$g"; done
} | awk '!seen[$0]++' | while read -r i; do
	case $i in
	prog:*) [ -x "$out/tests/${i#prog:}" ] && echo "$i" ;;
	*) echo "$i" ;;
	esac
done >"$res/items"
n=$(wc -l <"$res/items")
awk '{ printf "%03d:%s\n", NR, $0 }' "$res/items" | xargs -P "$jobs" -n 1 sh "$0" --item "$out" "$res"
pass=0
fail=0
failed_names=""
for r in "$res"/*.cnt; do
	[ -f "$r" ] || continue
	read -r p f name <"$r"
	pass=$((pass + p))
	fail=$((fail + f))
	if [ "$f" -ne 0 ]; then
		failed_names="$failed_names $name"
		echo "---- $name"
		cat "${r%.cnt}.log"
	fi
done
done_n=$(ls "$res" | grep -c '\.cnt$')
if [ "$done_n" -ne "$n" ]; then
	fail=$((fail + n - done_n))
	failed_names="$failed_names (items that left no result: $((n - done_n)))"
fi
[ -z "$failed_names" ] || echo "failed:$failed_names"
echo "total: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
