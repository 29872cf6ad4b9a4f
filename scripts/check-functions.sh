#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-functions.sh [MAX] [FILE...] - every function of src/ and cli/ fits in MAX lines
# (default 120), from its opening "{" to its closing "}" at column 0 (kernel style).  Exempt, by
# a comment "sp-long-function: REASON" on the line above the function's name: the generated
# tables and the kernel transcriptions of the reference engine, kept line-for-line comparable
# with their kernel twins.  Prints "FILE:LINE NAME N lines" per function over the limit.
set -eu
max=${1:-120}
[ $# -gt 0 ] && shift
if [ $# -eq 0 ]; then
	set -- $(find src cli -name '*.c' | sort)
fi
awk -v max="$max" '
FNR == 1 { prev = ""; prev2 = ""; exempt = 0 }
/^\{/ && !infn { infn = 1; start = FNR; name = prev; ex = exempt; next }
infn && /^\}/ {
	n = FNR - start + 1
	if (n > max && !ex) { printf "%s:%d %s %d lines\n", FILENAME, start, name, n; bad = 1 }
	infn = 0; next
}
!infn {
	if ($0 ~ /sp-long-function:/) exempt = 1
	else if ($0 ~ /^[A-Za-z_].*\(/) { prev = $0; sub(/\(.*/, "", prev); sub(/.*[ *]/, "", prev) }
	else if ($0 ~ /^$/) exempt = 0
}
END { exit bad }' "$@"
