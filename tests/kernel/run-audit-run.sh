#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-audit-run.sh [-o OUTDIR] [-j JOBS] [--record] [NAME...] — the real kernel as the judge of
# `secpath audit run` (issue #19 item 5).  For each case tests/cases/kernel-run/NAME/ (`rules`,
# `scenario` with the guest's `!` setup lines, and the shared `workload` unless the case has its
# own) one fresh guest runs the workload once under `secpath audit run` while the kernel audits
# it with the same rules; OUTDIR/NAME/ (default $KO_CACHE/runs-run) gets the kernel's audit.log
# and secpath's secpath.log, secpath.rec, secpath.sum, and OUTDIR/NAME/case/ what a case folder
# records of them (the kernel's log cut to the events of the workload's login session, without
# the tracer's own; rules.loaded, fs.txt, auditctl-load.txt, secpath.pid).  test_audit_run_kernel
# compares them event by event: `make test` on the recorded case folders, scripts/test-kernel.sh
# on a fresh run (SP_KERNEL_RUN_RESULTS=OUTDIR).  --record copies case/ into the case folder.  Needs `make` first (out/release/secpath).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cases=$(cd "$here/../cases/kernel-run" && pwd)
cache=${KO_CACHE:-/var/tmp/secpath-ko-cache}
out=$cache/runs-run
jobs=${KO_JOBS:-1}
record=0
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	--record) record=1; shift ;;
	-*) echo "usage: run-audit-run.sh [-o OUTDIR] [-j JOBS] [--record] [NAME...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -f "$cache/base.cpio.gz" ] || { echo "run-audit-run.sh: no guest in $cache — run build.sh" >&2; exit 2; }
if [ $# -gt 0 ]; then names="$*"; else
	names=$(for d in "$cases"/*/; do [ -f "$d/rules" ] && basename "$d"; done)
fi
mkdir -p "$out"
printf '%s\n' $names | xargs -P "$jobs" -I{} sh -c '
	n=$1 here=$2 cases=$3 out=$4
	w=$cases/$n/workload; [ -f "$w" ] || w=$cases/workload
	rm -rf "$out/$n"; mkdir -p "$out/$n"
	"$here/run.sh" "$cases/$n/scenario" "$cases/$n/rules" "$out/$n" "$w" > "$out/$n/run.log" 2>&1 ||
		echo "run-audit-run.sh: $n failed (see $out/$n/run.log)" >&2
	printf "%s: %s kernel records, %s secpath records; %s\n" "$n" \
		"$(wc -l < "$out/$n/audit.log" 2>/dev/null || echo 0)" \
		"$(wc -l < "$out/$n/secpath.log" 2>/dev/null || echo 0)" "$(tail -1 "$out/$n/run.err" 2>/dev/null)"
' _ {} "$here" "$cases" "$out"
# OUTDIR/NAME/case/: the files a case folder records (the kernel's log cut to the events of the
# workload's login session, without the tracer's own)
rc=0
for n in $names; do
	d=$out/$n
	[ -s "$d/secpath.rec" ] && [ -s "$d/audit.log" ] || { echo "run-audit-run.sh: $n: no run" >&2; rc=1; continue; }
	mkdir -p "$d/case"
	for f in secpath.log secpath.rec secpath.sum secpath.pid rules.loaded fs.txt auditctl-load.txt; do
		cp "$d/$f" "$d/case/"
	done
	sp=$(sed -n 's/^secpath_pid=//p' "$d/secpath.pid")
	awk -v sp="$sp" '
		function ser(l) { sub(/^[^(]*\([^:]*:/, "", l); sub(/\).*/, "", l); return l }
		NR == FNR { if ($1 == "type=SYSCALL" && $0 !~ / ses=4294967295 / && $0 !~ (" pid=" sp " "))
				keep[ser($0)] = 1; next }
		ser($0) in keep' "$d/audit.log" "$d/audit.log" > "$d/case/audit.log"
	if [ $record -eq 1 ]; then
		cp "$d/case/"* "$cases/$n/"
		! cmp -s "$cases/$n/rules.loaded" "$cases/$n/rules" || rm -f "$cases/$n/rules.loaded"
	fi
done
[ $record -eq 1 ] && echo "run-audit-run.sh: recorded into $cases"
exit $rc
