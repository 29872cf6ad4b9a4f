#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# make-golden.sh AUDITCTL SHIM.so [LIBDIR] - run every line of edge.rules through the real
# auditctl 3.0.9 (Debian auditd 1:3.0.9-1, unmodified) with auditctl-shim.c preloaded, one line per
# run, and write edge.rules.tsv in the golden format: LINE<TAB>ADD|DEL|CTRL|ERR|WARN<TAB>...
# CTRL lines name the kernel request seen (LIST for -D/-l); -i, -c, -v make no request.
# Run as root from the project root (auditctl insists); the env files pin users, groups, dirs.
set -u
auditctl=$1; shim=$2; libdir=${3:-}
here=tests/data/audit/edge
env=$(pwd)/data/audit/env
out=$here/edge.rules.tsv
: > "$out"
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	f=/tmp/edge-$$-$n.rules
	printf '%s\n' "$line" > "$f"
	res=$(SHIM_ENV=$env LD_PRELOAD=$shim LD_LIBRARY_PATH=$libdir timeout 20 "$auditctl" -R "$f" 2>/tmp/edge-$$.err)
	rm -f "$f"
	errs=$(cat /tmp/edge-$$.err)
	all=$(printf '%s\n%s\n' "$res" "$errs")
	printf '%s\n' "$res" | sed -n "s/^CTRL\t/$n\tCTRL\t/p" >> "$out"
	printf '%s\n' "$all" | grep -i -e 'warning' -e 'deprecated' -e 'illegal character' |
		sed "s/^/$n\tWARN\t/" >> "$out"
	if printf '%s\n' "$all" | grep -q -e 'There was an error in line' -e 'is an unsupported signal'; then
		first=$(printf '%s\n' "$all" | grep -v -e '^ADD' -e '^DEL' -e '^CTRL' -e '^MSG' -e '^$' |
			grep -v -i -e 'warning' | head -1)
		printf '%s\tERR\t%s\n' "$n" "$first" >> "$out"
	fi
	printf '%s\n' "$res" | sed -n -e "s/^ADD\t/$n\tADD\t/p" -e "s/^DEL\t/$n\tDEL\t/p" >> "$out"
done < $here/edge.rules
rm -f /tmp/edge-$$.err
echo "wrote $out ($(wc -l < "$out") lines)"
