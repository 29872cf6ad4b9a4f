#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# fuzz.sh FUZZ_OUT SECONDS fuzz/fuzz_X.c... - run each libFuzzer target for SECONDS on a scratch copy
# of its corpus (seeds in fuzz/corpus/<name>/ stay untouched), report executions and crashes.
# FUZZ_JOBS (default: the number of online CPUs) targets run at once, each on one core; the
# reports come in the order the targets are named.
set -u
out=$1; secs=$2; shift 2
jobs=${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
# one target: its log in FUZZ_OUT/NAME.log, its exit status in FUZZ_OUT/NAME.rc
run_one() {
	n=$1
	work=$(mktemp -d)
	[ -d "fuzz/corpus/$n" ] && cp -r "fuzz/corpus/$n/." "$work/" 2>/dev/null
	"$out/$n" -max_total_time="$secs" -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$out/$n-" \
		-print_final_stats=1 "$work" >"$out/$n.log" 2>&1
	echo $? >"$out/$n.rc"
	rm -rf "$work"
}
i=0
for src in "$@"; do
	run_one "$(basename "$src" .c)" &
	i=$((i + 1))
	[ $((i % jobs)) -ne 0 ] || wait
done
wait
fail=0
for src in "$@"; do
	n=$(basename "$src" .c)
	log="$out/$n.log"
	rc=$(cat "$out/$n.rc" 2>/dev/null || echo 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ "$rc" -ne 0 ]; then fail=$((fail + 1)); echo "fuzz $n: CRASH (see $log)"; tail -30 "$log";
	else echo "fuzz $n: ${execs:-?} executions in ${secs}s, 0 crashes"; fi
done
[ $fail -eq 0 ]
