#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run.sh SCENARIO RULES OUTDIR — boot the oracle guest once (qemu, software emulation by default),
# load RULES with the real auditctl, run SCENARIO's syscalls, and leave OUTDIR/result.tsv.
#
# Environment:
#   KO_CACHE    cache built by build.sh (default: /var/tmp/secpath-ko-cache)
#   KO_ACCEL    qemu accelerator: tcg (default) or kvm
#   KO_TIMEOUT  seconds before the guest is killed (default 300)
set -eu
[ $# -eq 3 ] || { echo "usage: run.sh SCENARIO RULES OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
cache=${KO_CACHE:-/var/tmp/secpath-ko-cache}
[ -f "$cache/base.cpio.gz" ] || { echo "run.sh: no $cache/base.cpio.gz — run build.sh first" >&2; exit 2; }
scen=$1 rules=$2 out=$3
mkdir -p "$out"
rm -f "$out/console.log" "$out/data.log"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/root/ko"
cp "$scen" "$work/root/ko/scenario"
cp "$rules" "$work/root/ko/rules"
chmod 600 "$work/root/ko/rules"
(cd "$work/root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$work/extra.cpio.gz"
cat "$cache/base.cpio.gz" "$work/extra.cpio.gz" > "$work/initrd.gz"

t0=$(date +%s.%N)
timeout "${KO_TIMEOUT:-300}" qemu-system-x86_64 -accel "${KO_ACCEL:-tcg}" -cpu max -smp 1 -m 1024 \
	-nographic -no-reboot -monitor none -nic none \
	-kernel "$cache/vmlinuz" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 audit=1 audit_backlog_limit=16384 panic=-1 quiet" \
	-serial "file:$out/console.log" -serial "file:$out/data.log" < /dev/null > "$work/qemu.out" 2>&1 ||
	{ echo "run.sh: qemu failed or timed out:" >&2; cat "$work/qemu.out" >&2; }
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "run.sh: boot+run %.1f s\n", b - a }' | tee "$out/timing.txt"
"$here/collect.sh" "$out"
