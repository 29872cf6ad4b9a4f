#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-kernel.sh [--record] [NAME...] — `make test-kernel`: run the kernel cases of
# tests/cases/kernel/ against the real Linux kernel (Debian 6.1 booted under qemu, see
# tests/kernel/README.md) and judge secpath's audit filter engines by the fresh verdicts.
#
#   1. host tools: qemu-system-x86 and cpio (installed with apt-get when root; otherwise the
#      apt-get line is printed and the script stops with 2)
#   2. tests/kernel/build.sh: the guest (kernel, busybox, auditctl, ko helper), cached in $KO_CACHE
#      (default /var/tmp/secpath-ko-cache); downloads only what is missing
#   3. tests/kernel/run-suite.sh: one fresh guest per case, $KO_JOBS at a time (default 2),
#      outputs in $KO_CACHE/runs/NAME/
#   4. drift: the fresh per-step verdicts (seq, syscall, recorded, key) against the recorded
#      tests/cases/kernel/NAME/result.tsv — a difference means the kernel or the harness changed
#   5. test_audit_kernel (built by make) on the fresh verdicts: both engines, step by step
#   6. (all cases only) tests/kernel/run-audit-run.sh: the kernel-run workloads under the kernel
#      and `secpath audit run` at once, judged by test_audit_run_kernel event by event
#   7. (all cases only) tests/kernel/run-plugin.sh: Debian's auditd with `secpath audit stream`
#      as its plugin, its rules reloaded 100 times under a workload; every kernel event accounted
#      for (tests/kernel/plugin/check.sh)
#
# --record copies the fresh verdicts into tests/cases/kernel/ (after reviewing the drift).
# Exit: 0 all agree, 1 drift or engine disagreement, 2 setup failure.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export KO_CACHE=${KO_CACHE:-/var/tmp/secpath-ko-cache}
jobs=${KO_JOBS:-2}
record=""
if [ "${1:-}" = "--record" ]; then record=--record; shift; fi
t0=$(date +%s)

need=""
command -v qemu-system-x86_64 > /dev/null || need="$need qemu-system-x86"
command -v cpio > /dev/null || need="$need cpio"
if [ -n "$need" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "test-kernel.sh: missing tools; run: apt-get install -y --no-install-recommends$need" >&2
		exit 2
	fi
	[ -n "$(ls /var/lib/apt/lists/ 2>/dev/null | grep -v lock | head -1)" ] || apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need > /dev/null
fi

sh tests/kernel/build.sh || { echo "test-kernel.sh: guest build failed" >&2; exit 2; }
out=$KO_CACHE/runs
rc=0
sh tests/kernel/run-suite.sh -j "$jobs" -o "$out" $record "$@" || rc=1

# drift: the kernel's fresh verdicts against the recorded ones
drift=0
for d in "$out"/*/; do
	n=$(basename "$d")
	[ -f "$d/result.tsv" ] && [ -f "tests/cases/kernel/$n/result.tsv" ] || continue
	cut -f1,6,25,26 "tests/cases/kernel/$n/result.tsv" > "$out/$n.recorded.v"
	cut -f1,6,25,26 "$d/result.tsv" > "$out/$n.fresh.v"
	if ! cmp -s "$out/$n.recorded.v" "$out/$n.fresh.v"; then
		echo "test-kernel.sh: DRIFT in $n (seq, syscall, recorded, key: < recorded, > fresh):"
		diff "$out/$n.recorded.v" "$out/$n.fresh.v" | head -20 || true
		drift=1
	fi
done
[ $drift -eq 0 ] && echo "test-kernel.sh: no drift: the kernel decides as recorded"

# the engines on the fresh verdicts
make -j2 out/release/tests/test_audit_kernel > /dev/null || { echo "test-kernel.sh: build failed" >&2; exit 2; }
SP_KERNEL_RESULTS=$out out/release/tests/test_audit_kernel || rc=1

# `audit run` judged by the kernel: the workload of tests/cases/kernel-run under both at once
if [ $# -eq 0 ]; then
	make -j2 out/release/secpath out/release/tests/test_audit_run_kernel > /dev/null ||
		{ echo "test-kernel.sh: build failed" >&2; exit 2; }
	sh tests/kernel/run-audit-run.sh -j "$jobs" -o "$KO_CACHE/runs-run" $record || rc=1
	SP_KERNEL_RUN_RESULTS=$KO_CACHE/runs-run out/release/tests/test_audit_run_kernel || rc=1
	# the live plugin under the real auditd, its rules reloaded 100 times
	prc=0
	sh tests/kernel/run-plugin.sh -o "$KO_CACHE/runs-plugin" || prc=$?
	case $prc in 0) ;; 2) echo "test-kernel.sh: plugin case: setup failed" >&2; exit 2 ;; *) rc=1 ;; esac
fi
[ $drift -eq 0 ] || rc=1
echo "test-kernel.sh: done in $(($(date +%s) - t0)) s (exit $rc)"
exit $rc
