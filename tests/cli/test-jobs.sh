#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-jobs.sh [OUT] - `secpath audit replay --jobs N` gives what one pass gives: the same kept
# records (bytes, in input order), the same report (text and --json, but for its "jobs"
# member), the same diagnostics at the same lines and the same exit status, for N = 2, 3, 4, 8
# and 16, on:
#  - a log of real kernel records (tests/cases/kernel-run/neo23x0, under its rules) repeated
#    with new serials and times, with malformed lines and stamp-less records strewn in: it must
#    be read in parts (the report's "jobs" says so);
#  - the same log without its PROCTITLE and EOE lines: a cut then falls inside an event, the
#    parts are void and the file is read in one pass (the report says so);
#  - its SYSCALL records alone: each event is held at a cut (nothing ends it) but complete, so
#    the parts stand;
#  - both as two inputs, gzip (read in one pass), ausearch's selection alone (-k), and a rule
#    set with a rule the kernel would refuse (its warning once).
# Refusals: --jobs 0 or 65, and --jobs with --format or --report (exit 2).
# Ends with "jobs: N passed, N failed".
set -u
out=${1:-out/release}
bin=$(cd "$out" && pwd)/secpath
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C
ok() { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

k=tests/cases/kernel-run/neo23x0
rules=$k/rules
# 60 copies: serial + 100000*i, time + 100*i; a malformed line and a record without a time
# stamp every 997 lines
awk -v n=60 '{ l[NR] = $0 } END {
	for (i = 0; i < n; i++) for (j = 1; j <= NR; j++) {
		s = l[j]
		if (match(s, /audit\([0-9]+\.[0-9]+:[0-9]+\)/)) {
			st = substr(s, RSTART + 6, RLENGTH - 7)
			split(st, a, /[.:]/)
			s = substr(s, 1, RSTART + 5) (a[1] + 100 * i) "." a[2] ":" (a[3] + 100000 * i) \
			    substr(s, RSTART + RLENGTH - 1)
		}
		print s
		c++
		if (c % 997 == 0) print "type=SYSCALL msg=audit(bad"
		if (c % 1993 == 0) print "type=USER msg=audit(?): pid=1 msg=\047x\047"
	}
}' $k/audit.log >"$tmp/a.log"
grep -v 'type=PROCTITLE\|type=EOE' "$tmp/a.log" >"$tmp/b.log"
grep 'type=SYSCALL' "$tmp/a.log" >"$tmp/c.log"
gzip -c "$tmp/a.log" >"$tmp/a.log.gz"

# one run: its output, report and exit status under a name
run() {
	name=$1; shift
	"$bin" audit replay "$@" --output "$tmp/$name.out" >"$tmp/$name.rep" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

# --jobs N against one pass, text and JSON; $1: expected "jobs" line (split or one_pass)
same() {
	want=$1 label=$2; shift 2
	run one "$@"
	run onej "$@" --json
	for n in 2 3 4 8 16; do
		run par --jobs $n "$@"
		run parj --jobs $n "$@" --json
		grep -v '^jobs: ' "$tmp/par.rep" >"$tmp/par.rep2"
		sed 's/"jobs":{[^}]*},//' "$tmp/parj.rep" >"$tmp/parj.rep2"
		if cmp -s "$tmp/one.out" "$tmp/par.out" && cmp -s "$tmp/one.rep" "$tmp/par.rep2" &&
		   cmp -s "$tmp/one.err" "$tmp/par.err" && cmp -s "$tmp/one.rc" "$tmp/par.rc" &&
		   cmp -s "$tmp/onej.rep" "$tmp/parj.rep2" && cmp -s "$tmp/onej.out" "$tmp/parj.out" &&
		   grep -q "$want" "$tmp/parj.rep"; then
			ok "$label --jobs $n"
		else
			bad "$label --jobs $n (want $want; $(grep -o '"jobs":{[^}]*}' "$tmp/parj.rep"))"
			diff "$tmp/one.rep" "$tmp/par.rep2" | head -4
			diff "$tmp/one.err" "$tmp/par.err" | head -4
		fi
	done
}

[ "$(wc -l <"$tmp/a.log")" -gt 30000 ] && ok "log built" || bad "log built"
same '"split":1,"one_pass":0' "kernel records, rules" -c -R "$rules" "$tmp/a.log"
same '"split":0,"one_pass":1' "cuts inside events" -c -R "$rules" "$tmp/b.log"
same '"split":1,"one_pass":0' "events held at the cuts, complete" -c -R "$rules" "$tmp/c.log"
same '"split":1,"one_pass":1' "two inputs" -c -R "$rules" "$tmp/a.log" "$tmp/b.log"
same '"split":0,"one_pass":0' "gzip" -c -R "$rules" "$tmp/a.log.gz"
same '"split":1,"one_pass":0' "selection alone" -k exec "$tmp/a.log"
# a rule the kernel would refuse (a duplicate): its warning once, as one pass gives it, not once
# per part
{ cat "$rules"; grep -m1 '^-a' "$rules"; } >"$tmp/dup.rules"
same '"split":1,"one_pass":0' "a refused rule" -c -R "$tmp/dup.rules" "$tmp/a.log"
# a malformed line is reported at its own line, whatever part read it
run par --jobs 4 -c -R "$rules" "$tmp/a.log"
l=$(grep -n 'audit(bad$' "$tmp/a.log" | tail -1 | cut -d: -f1)
grep -q "a.log:$l:" "$tmp/par.err" && ok "the last malformed line at line $l" ||
	bad "the last malformed line at line $l"
for args in "--jobs 0" "--jobs 65" "--jobs 2 --format csv" "--jobs 2 -i" \
	    "--jobs 2 --report summary --output $tmp/x"; do
	# shellcheck disable=SC2086
	"$bin" audit replay $args -c -R "$rules" "$tmp/a.log" >/dev/null 2>&1
	[ $? -eq 2 ] && ok "refused: $args" || bad "refused: $args"
done
echo "jobs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
