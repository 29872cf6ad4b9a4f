#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-ausearch-interp.sh [OUT] - `secpath audit replay -i` against `ausearch -i` 3.0.9 itself
# (Debian's auditd package, extracted by scripts/get-audit-tools.sh, never installed).
# For every log and every selection, the text `ausearch -i -if LOG QUERY` prints and the text
# `secpath audit replay -i QUERY LOG` prints must be the same bytes, in the same order (events
# as ausearch hands them out, records last to first).  Logs: the ones test-ausearch.sh reads
# (go-libaudit's, tests/cases/replay's, the ausearch edge log) and
# tests/data/audit/logs/edge/interpret-edge.log (the values auparse interprets apart: its
# README).  Selections: all (-m ALL), every record type, every key, every uid and login uid,
# every syscall, pid, exe and file name found in the log, -sv yes/no, -ts/-te windows, and the
# long option forms.  Both tools run with TZ=UTC, LC_ALL=C and this host's passwd and group
# databases (uid and gid names are looked up there by both).  One PASS/FAIL line per case,
# then "ausearch-interp: N passed, N failed"; ausearch that cannot be fetched skips the group.
#
# Known differences: none on these logs, nor, as far as these logs show, in what is
# implemented: every field type of auparse 3.0.9's table, as Debian builds it (no AppArmor
# names: those fields print as they are; no IPX headers: an IPX sockaddr is "(unsupported)").
# Named exceptions (also in secpath-audit(1)), none exercised here:
#   --escape raw|shell|shell_quote  only ausearch's default tty escaping is written
#   uid/gid names  looked up in this host's databases at replay time, as ausearch's are: a
#                  log read on another host names them as that host does
set -u
out=${1:-out/release}
bin=$(cd "$out" && pwd)/secpath
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C

. tests/cli/audit-tools.sh
audit_tools ausearch-interp skip
aus() { ausearch_tool "$@"; }

logs="$tmp/ausearch-edge.log $tmp/interpret-edge.log"
cp tests/data/audit/logs/edge/ausearch-edge.log tests/data/audit/logs/edge/interpret-edge.log "$tmp/"
. tests/cli/carried-logs.sh
carried_logs
logs="$logs tests/cases/kernel-run/stig/audit.log"	# real kernel records, EOE included


# one selection on one log: the same bytes (an empty selection: both print nothing)
check() {
	log=$1; shift
	aus -i -if "$log" "$@" >"$tmp/a"
	"$bin" audit replay -i "$@" "$log" >"$tmp/s" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -le 1 ] && cmp -s "$tmp/a" "$tmp/s"; then
		pass=$((pass + 1))
		echo "PASS $(basename "$log") $*"
	else
		fail=$((fail + 1))
		echo "FAIL $(basename "$log") $*: ausearch $(wc -l <"$tmp/a") lines, secpath $(wc -l <"$tmp/s") (exit $rc)"
		diff "$tmp/a" "$tmp/s" | head -6
		head -2 "$tmp/err"
	fi
}

for log in $logs; do
	check "$log" -m ALL
	types=$(sed -n 's/^\(node=[^ ]* \)\{0,1\}type=\([A-Z_0-9]*\) .*/\2/p' "$log" | grep -v '^UNKNOWN$' | sort -u)
	for t in $types; do check "$log" -m "$t"; done
	for k in $(grep -o 'key="[^"]*"' "$log" | sed 's/key="\(.*\)"/\1/' | sort -u); do
		check "$log" -k "$k"
	done
	for u in $(vals ' uid=[0-9]*'); do check "$log" -ui "$u"; done
	for u in $(vals ' auid=[0-9]*' 4) -1; do check "$log" -ul "$u"; done
	for sc in $(vals ' syscall=[0-9]*'); do check "$log" -sc "$sc"; done
	for p in $(vals '[ (]pid=[0-9]*' 4); do check "$log" -p "$p"; done
	for x in $(vals ' exe="[^"]*"' 4); do check "$log" -x "$x"; done
	for f in $(vals ' name="[^"]*"' 4); do check "$log" -f "$f"; done
	for u in $(vals ' uid=[0-9]*' 3); do check "$log" -ua "$u"; done
	for g in $(vals ' gid=[0-9]*' 3); do check "$log" -gi "$g"; check "$log" -ge "$g"; done
	for x in $(vals ' exit=-*[0-9]*' 4); do check "$log" -e "$x"; done
	for n in $(vals '^node=[^ ]*' 3); do check "$log" -n "$n"; done
	for c in $(vals ' comm="[^"]*"' 3); do check "$log" --comm "$c"; done
	for k in $(grep -o 'key="[^"]*"' "$log" | sed 's/key="\(.*\)"/\1/' | sort -u | head -3); do
		check "$log" -k "$k" -w
	done
	check "$log" -sv yes
	check "$log" -sv no
	check "$log" --message ALL --success yes
done
# without a selection: every event; a directory: its audit.log and rotations, oldest first
# (the split cuts event 15 in two: both tools join it again)
check "$tmp/interpret-edge.log"
mkdir "$tmp/logs"
sed -n 1,20p "$tmp/ausearch-edge.log" >"$tmp/logs/audit.log.1"
sed -n '21,$p' "$tmp/ausearch-edge.log" >"$tmp/logs/audit.log"
check "$tmp/logs" -m ALL
# time windows: the edge log spans 2025-11-28 .. 2025-12-01 UTC
e=$tmp/ausearch-edge.log
check "$e" -ts 11/29/25
check "$e" -te 11/30/25 00:00:02
check "$e" -ts 11/29/25 -te 11/30/25 23:59
check "$e" --start 12/01/25 --key access
check "$e" -ts 11/30/25 -m AVC,SECCOMP
check "$tmp/interpret-edge.log" -ts 01/01/24 -te 12/31/26
# the output file takes the same text (--output FILE, --format interpret, --interpret)
aus -i -if "$e" -m ALL >"$tmp/a"
for opt in "-i" "--interpret" "--format interpret"; do
	# shellcheck disable=SC2086
	"$bin" audit replay $opt -m ALL --output "$tmp/o" "$e" >/dev/null 2>&1
	if cmp -s "$tmp/a" "$tmp/o"; then
		pass=$((pass + 1)); echo "PASS --output with $opt"
	else
		fail=$((fail + 1)); echo "FAIL --output with $opt"
	fi
done
echo "ausearch-interp: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
