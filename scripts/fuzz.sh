#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# fuzz.sh FUZZ_OUT SECONDS fuzz/fuzz_X.c... - run each libFuzzer target for SECONDS on a scratch copy
# of its corpus (seeds in fuzz/corpus/<name>/ stay untouched), report executions and crashes.
set -u
out=$1; secs=$2; shift 2
fail=0
for src in "$@"; do
	n=$(basename "$src" .c)
	work=$(mktemp -d)
	[ -d "fuzz/corpus/$n" ] && cp -r "fuzz/corpus/$n/." "$work/" 2>/dev/null
	log="$out/$n.log"
	"$out/$n" -max_total_time="$secs" -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$out/$n-" \
		-print_final_stats=1 "$work" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ $rc -ne 0 ]; then fail=$((fail + 1)); echo "fuzz $n: CRASH (see $log)"; tail -30 "$log";
	else echo "fuzz $n: ${execs:-?} executions in ${secs}s, 0 crashes"; fi
	rm -rf "$work"
done
[ $fail -eq 0 ]
