#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# collect.sh OUTDIR — split OUTDIR/data.log (the guest's second serial port) into its files and
# join the workload log with the kernel's records into OUTDIR/result.tsv.
set -eu
[ $# -eq 1 ] || { echo "usage: collect.sh OUTDIR" >&2; exit 2; }
cache=${KO_CACHE:-/var/tmp/secpath-ko-cache}
out=$1
[ -s "$out/data.log" ] || { echo "collect.sh: $out/data.log is empty (see $out/console.log)" >&2; exit 1; }
grep -q '^=== ko-done ===' "$out/data.log" || echo "collect.sh: warning: data.log is incomplete" >&2
tr -d '\r' < "$out/data.log" | awk -v dir="$out" '
	/^=== ko-begin .* ===$/ { f = dir "/" $3; printf "" > f; next }
	/^=== ko-end .* ===$/   { close(f); f = ""; next }
	f != ""                 { print > f }'
if grep -q 'records were lost' "$out/audit.log" 2>/dev/null ||
	! grep -q '^lost 0$' "$out/auditctl-s-after.txt" 2>/dev/null; then
	echo "collect.sh: WARNING: the kernel reports lost records:" >&2
	grep -h '^lost' "$out/auditctl-s-after.txt" >&2 || true
fi
[ -s "$out/secpath.rec.b64" ] && base64 -d "$out/secpath.rec.b64" > "$out/secpath.rec"
[ ! -f "$out/workload.tsv" ] ||	# the plugin case has no steps to join
	"$cache/ko" join "$out/workload.tsv" "$out/audit.log" "$out/unmatched.txt" > "$out/result.tsv"
grep -h 'exit=' "$out/auditctl-load.txt" "$out/run.err" 2>/dev/null | sed 's/^/collect.sh: /' >&2 || true
