#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-suite.sh [-o OUTDIR] [-j JOBS] [--record] [NAME...] — run every kernel case of
# tests/cases/kernel/NAME/ (a `scenario` and a `rules` file), or only the NAMEs given, each in a
# fresh guest, leaving OUTDIR/NAME/result.tsv (default OUTDIR: $KO_CACHE/runs). OUTDIR/SUMMARY.tsv
# gets one line per case. With --record, the kernel's verdicts are copied back into the case folder
# as its recorded data (result.tsv, rules.loaded, dirs.txt, fs.txt, auditctl-l.txt, auditctl-load.txt).
# Never writes outside OUTDIR and the case folders.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cases=$(cd "$here/../cases/kernel" && pwd)
cache=${KO_CACHE:-/var/tmp/secpath-ko-cache}
out=$cache/runs
jobs=${KO_JOBS:-1}
record=0
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	--record) record=1; shift ;;
	-*) echo "usage: run-suite.sh [-o OUTDIR] [-j JOBS] [--record] [NAME...]" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -f "$cache/base.cpio.gz" ] || { echo "run-suite.sh: no guest in $cache — run build.sh" >&2; exit 2; }
mkdir -p "$out"
cp "$cache/versions.txt" "$out/versions.txt"
if [ $# -gt 0 ]; then names="$*"; else
	names=$(for d in "$cases"/*/; do [ -f "$d/scenario" ] && basename "$d"; done)
fi
for n in $names; do
	[ -f "$cases/$n/scenario" ] && [ -f "$cases/$n/rules" ] ||
		{ echo "run-suite.sh: no case $n in $cases" >&2; exit 2; }
done
t0=$(date +%s)
# one guest per case, JOBS at a time (each qemu TCG guest uses one core)
printf '%s\n' $names | xargs -P "$jobs" -I{} sh -c '
	n=$1 here=$2 cases=$3 out=$4
	rm -rf "$out/$n"; mkdir -p "$out/$n"
	"$here/run.sh" "$cases/$n/scenario" "$cases/$n/rules" "$out/$n" > "$out/$n/run.log" 2>&1 ||
		echo "run.sh failed" >> "$out/$n/run.log"
	printf "== %s\n" "$n"; sed "s/^/   /" "$out/$n/run.log"' sh {} "$here" "$cases" "$out"
t1=$(date +%s)
fail=0
{
	printf 'name\tsteps\trecorded\tboot_run_s\n'
	for n in $names; do
		d=$out/$n
		if [ ! -s "$d/result.tsv" ]; then
			printf '%s\tFAILED\t-\t-\n' "$n"
			continue
		fi
		awk -F'\t' -v n="$n" -v t="$(sed -n 's/.*boot+run \([0-9.]*\) s.*/\1/p' "$d/timing.txt")" \
			'NR > 1 { s++; r += $25 } END { printf "%s\t%d\t%d\t%s\n", n, s, r, t }' "$d/result.tsv"
	done
} > "$out/SUMMARY.tsv"
cat "$out/SUMMARY.tsv"
echo "run-suite.sh: $(printf '%s\n' $names | wc -l) cases in $((t1 - t0)) s (jobs $jobs), outputs in $out"
grep -q FAILED "$out/SUMMARY.tsv" && fail=1
if [ $record -eq 1 ]; then
	for n in $names; do
		d=$out/$n
		[ -s "$d/result.tsv" ] || continue
		cp "$d/result.tsv" "$d/dirs.txt" "$d/fs.txt" "$d/auditctl-l.txt" "$d/auditctl-load.txt" "$cases/$n/"
		if cmp -s "$d/rules.loaded" "$cases/$n/rules"; then
			rm -f "$cases/$n/rules.loaded"
		else
			cp "$d/rules.loaded" "$cases/$n/rules.loaded"
		fi
	done
	echo "run-suite.sh: recorded into $cases"
fi
exit $fail
