#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# oracle-replay.sh [EVENTS] [OUT] - `secpath audit replay` against ausearch and aureport 3.0.9
# on one generated log of about EVENTS events (default 1000000), with both tools' times.
#
# The log: real kernel records (tests/cases/kernel-run/*/audit.log: SYSCALL, CWD, PATH,
# PROCTITLE, EOE under the STIG, Neo23x0 and fuzzy rule sets) and every user-space and kernel
# record shape of tests/data/audit/logs/edge/normalize-edge.log, repeated with new serials and
# times (copy i: + 100000*i to serials, + 1000*i s to times) until it holds EVENTS events.
# The checks, each on the whole log:
#  - ausearch's selection: keys, record types, uid, login uid, syscall, exe, file, success,
#    a time window: the records `ausearch --raw` prints and those `audit replay` keeps, as
#    sorted lines; the same with --jobs 2;
#  - ausearch -i and --format csv|text of one key: the same bytes;
#  - aureport --summary and -k -x -f -au -l -t: the same text as `audit replay --report`.
# Each line: PASS/FAIL, the check, secpath's and the tool's seconds and their ratio.  Ends with
# "oracle-replay: N passed, N failed".  Needs scripts/get-audit-tools.sh's tools; takes minutes
# (aureport reads the whole log for each report).  TZ=UTC and LC_ALL=C for both tools.
set -u
events=${1:-1000000}
out=${2:-out/release}
bin=$(cd "$out" && pwd)/secpath
tools=${SECPATH_AUDIT_TOOLS:-/var/tmp/secpath-audit-tools}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C
pass=0
fail=0

sh scripts/get-audit-tools.sh >/dev/null 2>&1 || { echo "oracle-replay: no ausearch"; exit 1; }
lib=$tools/root/lib/x86_64-linux-gnu:$tools/root/usr/lib/x86_64-linux-gnu
aus() { LD_LIBRARY_PATH=$lib "$tools/root/sbin/ausearch" "$@" 2>/dev/null; }
aur() { LD_LIBRARY_PATH=$lib "$tools/root/sbin/aureport" "$@" 2>/dev/null; }
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }

base=$tmp/base.log
cat tests/cases/kernel-run/*/audit.log tests/data/audit/logs/edge/normalize-edge.log >"$base"
per=$(grep -o 'audit([0-9.]*:[0-9]*)' "$base" | sort -u | wc -l)
copies=$(( (events + per - 1) / per ))
log=$tmp/big.log
t0=$(now)
awk -v n="$copies" '{ l[NR] = $0 } END {
	for (i = 0; i < n; i++) for (j = 1; j <= NR; j++) {
		s = l[j]
		if (match(s, /audit\([0-9]+\.[0-9]+:[0-9]+\)/)) {
			split(substr(s, RSTART + 6, RLENGTH - 7), a, /[.:]/)
			s = substr(s, 1, RSTART + 5) (a[1] + 1000 * i) "." a[2] ":" \
			    (a[3] + 100000 * i) substr(s, RSTART + RLENGTH - 1)
		}
		print s
	}
}' "$base" >"$log"
echo "log: $copies copies, $((copies * per)) events, $(wc -c <"$log") bytes ($(sub "$(now)" "$t0") s to write)"

# time one command (its output to $2): seconds
timed() {
	o=$1; shift
	s=$(now)
	"$@" >"$o" 2>/dev/null
	sub "$(now)" "$s"
}

verdict() {
	if [ "$1" = same ]; then pass=$((pass + 1)); v=PASS; else fail=$((fail + 1)); v=FAIL; fi
	awk -v v="$v" -v c="$2" -v s="$3" -v t="$4" -v a="$5" \
		'BEGIN { printf "%s %s: secpath %.2f s, %s %.2f s (%.3fx)\n", v, c, s, t, a, s / a }'
}

# ausearch's selection: sorted records (ausearch prints events as they complete)
sel() {
	ts=$(timed "$tmp/s" "$bin" audit replay "$@" --output - "$log")
	ta=$(timed "$tmp/a" aus --raw -if "$log" "$@")
	sort "$tmp/s" >"$tmp/s2"
	sed 's/\x1d$//' "$tmp/a" | sort >"$tmp/a2"
	cmp -s "$tmp/a2" "$tmp/s2" && r=same || r=differ
	verdict $r "select $* ($(wc -l <"$tmp/a2") records)" "$ts" ausearch "$ta"
	tj=$(timed "$tmp/j" "$bin" audit replay --jobs 2 "$@" --output - "$log")
	sort "$tmp/j" | cmp -s - "$tmp/s2" && r=same || r=differ
	verdict $r "select $* --jobs 2" "$tj" ausearch "$ta"
}

# the same bytes: ausearch's -i and --format csv|text
fmt() {
	ts=$(timed "$tmp/s" "$bin" audit replay "$@" "$log")
	ta=$(timed "$tmp/a" aus -if "$log" "$@")
	cmp -s "$tmp/a" "$tmp/s" && r=same || r=differ
	verdict $r "ausearch $* ($(wc -l <"$tmp/a") lines)" "$ts" ausearch "$ta"
}

# aureport's text
rep() {
	kind=$1 opt=$2; shift 2
	# shellcheck disable=SC2086
	ts=$(timed "$tmp/s" "$bin" audit replay --report "$kind" "$@" "$log")
	# shellcheck disable=SC2086
	ta=$(timed "$tmp/a" aur --input "$log" $opt "$@")
	cmp -s "$tmp/a" "$tmp/s" && r=same || r=differ
	verdict $r "aureport $opt $*" "$ts" aureport "$ta"
}

for k in perm_mod delete exe_bb time-change; do sel -k "$k"; done
for m in SYSCALL USER_LOGIN CONFIG_CHANGE AVC; do sel -m "$m"; done
sel -ui 0
sel -ul 1000
sel -sc openat
sel -x /usr/bin/cat
sel -f /etc/passwd
sel -sv no
sel -ts 01/01/26 -te 12/31/26
fmt -i -k perm_mod
fmt --format csv -k perm_mod
fmt --format text -k perm_mod
fmt --format csv -m USER_LOGIN,USER_START,AVC --extra-keys
rep summary "" --summary
for k in "key -k" "exe -x" "file -f" "auth -au" "login -l" "log -t"; do
	# shellcheck disable=SC2086
	rep $k
done
echo "oracle-replay: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
