#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run.sh SCENARIO RULES OUTDIR [WORKLOAD] — boot the oracle guest once (qemu, software emulation
# by default), load RULES with the real auditctl, run SCENARIO's syscalls, and leave
# OUTDIR/result.tsv.  With WORKLOAD (a shell script: an `audit run` case) the guest also gets
# secpath ($KO_SECPATH, default out/release/secpath) and the libraries it links, and runs
# WORKLOAD once under `secpath audit run` with RULES while the kernel audits it with them
# (OUTDIR/secpath.log, secpath.rec, secpath.sum beside the kernel's audit.log).
#
# Environment:
#   KO_CACHE    cache built by build.sh (default: /var/tmp/secpath-ko-cache)
#   KO_ACCEL    qemu accelerator: tcg (default) or kvm
#   KO_TIMEOUT  seconds before the guest is killed (default 300)
#   KO_SECPATH  the secpath binary of a WORKLOAD run
#   KO_EXTRA    a folder copied over the guest's root (run-plugin.sh: the plugin case)
set -eu
[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: run.sh SCENARIO RULES OUTDIR [WORKLOAD]" >&2; exit 2; }
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
if [ $# -eq 4 ]; then
	sp=${KO_SECPATH:-$here/../../out/release/secpath}
	[ -x "$sp" ] || { echo "run.sh: no secpath binary at $sp (make, or set KO_SECPATH)" >&2; exit 2; }
	mkdir -p "$work/root/usr/bin" "$work/root/lib/x86_64-linux-gnu"
	cp "$4" "$work/root/ko/workload"
	cp "$sp" "$work/root/usr/bin/secpath"
	# the shared libraries it links, but the guest's own C library and loader
	ldd "$sp" | awk '$3 ~ /^\// { print $3 }' | while read -r l; do
		case $(basename "$l") in libc.so.*|ld-linux*) ;; *) cp -L "$l" "$work/root/lib/x86_64-linux-gnu/" ;; esac
	done
fi
[ -z "${KO_EXTRA:-}" ] || cp -a "$KO_EXTRA/." "$work/root/"
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
