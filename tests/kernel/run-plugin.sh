#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# run-plugin.sh [-o OUTDIR] [--record] — the live plugin judged end to end (issue #20 item 4): one guest
# runs Debian's auditd 3.0.9 with `secpath audit stream` as its plugin while the kernel audits a
# workload and the plugin's rules are reloaded $RELOADS times (default 100; plugin/guest.sh).
# OUTDIR (default $KO_CACHE/runs-plugin) gets auditd's audit.log, the plugin's stream.log and
# stream.err, reloads.txt; then plugin/check.sh judges every kernel event against them.
# --record keeps them in tests/cases/kernel-plugin/ (logs gzipped), judged again by `make test`.
# Needs build.sh's cache and `make` (out/release/secpath).  Exit: 0 agree, 1 not, 2 setup.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${KO_CACHE:-/var/tmp/secpath-ko-cache}
out=$cache/runs-plugin
record=0
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	--record) record=1; shift ;;
	*) echo "usage: run-plugin.sh [-o OUTDIR] [--record]" >&2; exit 2 ;;
	esac
done
[ -f "$cache/base.cpio.gz" ] || { echo "run-plugin.sh: no guest in $cache — run build.sh" >&2; exit 2; }
sp=${KO_SECPATH:-$here/../../out/release/secpath}
[ -x "$sp" ] || { echo "run-plugin.sh: no secpath binary at $sp (make, or set KO_SECPATH)" >&2; exit 2; }
extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT INT TERM
r=$extra/root
mkdir -p "$r/usr/bin" "$r/sbin" "$r/lib/x86_64-linux-gnu" "$r/ko/plugin" "$r/etc/audit"
cp "$here/plugin/"* "$r/ko/plugin/"
chmod 755 "$r/ko/plugin/stream.sh" "$r/ko/plugin/guest.sh"
echo "RELOADS=${RELOADS:-100}" > "$r/ko/plugin/env"
cp "$sp" "$r/usr/bin/secpath"
ldd "$sp" | awk '$3 ~ /^\// { print $3 }' | while read -r l; do
	case $(basename "$l") in libc.so.*|ld-linux*) ;; *) cp -L "$l" "$r/lib/x86_64-linux-gnu/" ;; esac
done
cp "$cache/x/sbin/auditd" "$r/sbin/"
# auditd's libraries, and theirs, from the unpacked Debian packages
todo=$r/sbin/auditd
while [ -n "$todo" ]; do
	next=""
	for f in $todo; do
		for n in $(readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
			[ -e "$r/lib/x86_64-linux-gnu/$n" ] && continue
			case $n in libc.so.*|ld-linux*) continue ;; esac
			src=$(ls "$cache/x/lib/x86_64-linux-gnu/$n" "$cache/x/usr/lib/x86_64-linux-gnu/$n" 2>/dev/null | head -1)
			[ -n "$src" ] || { echo "run-plugin.sh: $n (needed by $(basename "$f")) is not in $cache/x" >&2; exit 2; }
			cp -L "$src" "$r/lib/x86_64-linux-gnu/"
			next="$next $r/lib/x86_64-linux-gnu/$n"
		done
	done
	todo=$next
done
: > "$extra/empty"
rm -rf "$out"
mkdir -p "$out"
KO_EXTRA=$r KO_TIMEOUT=${KO_TIMEOUT:-900} sh "$here/run.sh" "$extra/empty" "$extra/empty" "$out" > "$out/run.log" 2>&1 ||
	{ cat "$out/run.log" >&2; echo "run-plugin.sh: the guest run failed" >&2; exit 2; }
cat "$out/run.log"
sh "$here/plugin/check.sh" "$out" "$sp" || exit 1
if [ $record -eq 1 ]; then	# what test-stream.sh judges again (tests/cases/kernel-plugin)
	c=$here/../cases/kernel-plugin
	mkdir -p "$c"
	for f in audit.log stream.log; do gzip -9n < "$out/$f" > "$c/$f.gz"; done
	cp "$out/stream.err" "$out/reloads.txt" "$out/auditctl-s-after.txt" "$c/"
	echo "run-plugin.sh: recorded into $c"
fi
