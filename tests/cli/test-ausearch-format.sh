#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-ausearch-format.sh [OUT] - `secpath audit replay --format csv|text` against
# `ausearch --format csv|text` 3.0.9 itself (Debian's auditd package, extracted by
# scripts/get-audit-tools.sh, never installed): the same bytes, in the same order, for every log
# and selection.  Logs: the ones test-ausearch-interp.sh reads and
# tests/data/audit/logs/edge/normalize-edge.log (an event per branch of auparse's normalizer:
# its README).  Selections: all (-m ALL), every record type, every key, uid, login uid and
# syscall found in the log, -sv yes/no; the CSV also with --extra-keys, --extra-obj2 and
# --extra-time, alone and together, and in a time zone half an hour off the hour.  Both tools
# run with LC_ALL=C and this host's passwd and group databases.  One PASS/FAIL line per case,
# then "ausearch-format: N passed, N failed"; ausearch that cannot be fetched skips the group.
#
# Known differences: none on these logs.  Named exception (also in secpath-audit(1)):
#   --extra-labels  not offered (it needs the normalizer's attribute lists): refused, exit 2
set -u
out=${1:-out/release}
bin=$(cd "$out" && pwd)/secpath
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C

. tests/cli/audit-tools.sh
audit_tools ausearch-format skip
aus() { ausearch_tool "$@"; }

d=tests/data/audit/logs/edge
cp $d/ausearch-edge.log $d/interpret-edge.log $d/normalize-edge.log "$tmp/"
logs="$tmp/normalize-edge.log $tmp/ausearch-edge.log $tmp/interpret-edge.log"
. tests/cli/carried-logs.sh
carried_logs
logs="$logs tests/cases/kernel-run/stig/audit.log"	# real kernel records, EOE included

result() {
	if [ "$1" -le 1 ] && cmp -s "$tmp/a" "$tmp/s"; then
		pass=$((pass + 1))
		echo "PASS $2"
	else
		fail=$((fail + 1))
		echo "FAIL $2: ausearch $(wc -l <"$tmp/a") lines, secpath $(wc -l <"$tmp/s") (exit $1)"
		diff "$tmp/a" "$tmp/s" | head -6
		head -2 "$tmp/err"
	fi
}

# one format and selection on one log: the same bytes (an empty selection: both print nothing)
check() {
	log=$1 fmt=$2; shift 2
	aus --format "$fmt" -if "$log" "$@" >"$tmp/a"
	"$bin" audit replay --format "$fmt" "$@" "$log" >"$tmp/s" 2>"$tmp/err"
	result $? "$fmt $(basename "$log") $*"
}

for log in $logs; do
	for fmt in csv text; do
		check "$log" $fmt -m ALL
		types=$(sed -n 's/^\(node=[^ ]* \)\{0,1\}type=\([A-Z_0-9]*\) .*/\2/p' "$log" |
			grep -v '^UNKNOWN$' | sort -u)
		for t in $types; do check "$log" $fmt -m "$t"; done
		for k in $(grep -o 'key="[^"]*"' "$log" | sed 's/key="\(.*\)"/\1/' | sort -u); do
			check "$log" $fmt -k "$k"
		done
		for u in $(vals ' uid=[0-9]*' 4); do check "$log" $fmt -ui "$u"; done
		for u in $(vals ' auid=[0-9]*' 4); do check "$log" $fmt -ul "$u"; done
		for sc in $(vals ' syscall=[0-9]*' 8); do check "$log" $fmt -sc "$sc"; done
		check "$log" $fmt -sv yes
		check "$log" $fmt -sv no
	done
	check "$log" csv -m ALL --extra-keys
	check "$log" csv -m ALL --extra-obj2
	check "$log" csv -m ALL --extra-time
	check "$log" csv -m ALL --extra-keys --extra-obj2 --extra-time
done
# a zone half an hour off the hour (POSIX form: no tzdata needed): ausearch's GMT_OFFSET
TZ=IST-5:30 check "$tmp/normalize-edge.log" csv -m ALL --extra-time
TZ=IST-5:30 check "$tmp/normalize-edge.log" text -m ALL
# the output file takes the same text
for fmt in csv text; do
	aus --format $fmt -if "$tmp/normalize-edge.log" -m ALL >"$tmp/a"
	"$bin" audit replay --format $fmt -m ALL --output "$tmp/s" "$tmp/normalize-edge.log" \
		>/dev/null 2>"$tmp/err"
	result $? "--output with --format $fmt"
done
# what is refused: --extra-labels, and the extra columns without the CSV
for args in "--format csv --extra-labels" "--format text --extra-keys" "-i --extra-time"; do
	# shellcheck disable=SC2086
	"$bin" audit replay $args -m ALL "$tmp/normalize-edge.log" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ -s "$tmp/err" ]; then
		pass=$((pass + 1)); echo "PASS refused: $args"
	else
		fail=$((fail + 1)); echo "FAIL refused: $args (exit $rc)"
	fi
done
echo "ausearch-format: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
