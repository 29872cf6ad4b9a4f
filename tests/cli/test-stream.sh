#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-stream.sh OUT - `secpath audit stream`, the live form of audit replay (OUT/secpath):
#  - a whole log through a pipe keeps exactly what `audit replay` keeps of it, in the same
#    order, byte for byte (every bundled replay case, with its rules, and the selection alone),
#    and writes the same laurel JSON and ausearch -i, csv and text as replay;
#  - a kept event is written while the stream is still open, once the input is idle;
#  - SIGHUP reloads the rules between events: what came before is decided by the old set, what
#    comes after by the new one; a set with an error is refused and the old one stays;
#  - an EOE that comes after the idle input closed its event follows its event's verdict;
#  - the recorded run under the real auditd (tests/cases/kernel-plugin) is accounted for;
#  - a malformed line is reported with its line and the stream goes on; SIGUSR1 prints the
#    counts; SIGTERM decides what is open, flushes and exits 0;
#  - the output is appended to, never truncated, and is never the input.
# Ends with "stream: N passed, N failed".
set -u
out=${1:?usage: test-stream.sh OUT}
B=$(cd "$out" && pwd)/secpath
pass=0
fail=0
tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# wait_for SECONDS CMD...: poll until CMD succeeds (1 when it never did)
wait_for() {
	t=$(($1 * 10)); shift
	while [ "$t" -gt 0 ]; do "$@" && return 0; sleep 0.1; t=$((t - 1)); done
	return 1
}
has_lines() { [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }

# 1. the same records as replay, for every bundled case
for rules in tests/cases/replay/*.rules; do
	log=${rules%.rules}.log
	n=$(basename "$rules" .rules)
	"$B" audit replay -R "$rules" --output "$tmp/r.$n" "$log" >/dev/null 2>&1
	rrc=$?
	: >"$tmp/s.$n"
	"$B" audit stream -R "$rules" --output "$tmp/s.$n" <"$log" >/dev/null 2>"$tmp/err"
	src=$?
	if cmp -s "$tmp/r.$n" "$tmp/s.$n" && [ "$src" -eq "$rrc" ]; then ok; else
		bad "$n: stream (exit $src) differs from replay (exit $rrc)"; head -3 "$tmp/err"
	fi
done
e=tests/cases/replay/01-watch.log
"$B" audit replay -m PATH --output "$tmp/r.k" "$e" >/dev/null 2>&1
cat "$e" | "$B" audit stream -m PATH >"$tmp/s.k" 2>/dev/null
if [ -s "$tmp/r.k" ] && cmp -s "$tmp/r.k" "$tmp/s.k"; then ok; else bad "-m PATH to stdout"; fi

# laurel's JSON, as replay writes it
"$B" audit replay --format laurel --output "$tmp/r.j" "$e" >/dev/null 2>&1
"$B" audit stream --format laurel <"$e" >"$tmp/s.j" 2>/dev/null
if [ -s "$tmp/r.j" ] && cmp -s "$tmp/r.j" "$tmp/s.j"; then ok; else bad "--format laurel"; fi

# ausearch -i's text, as replay -i writes it (replay -i is compared with ausearch -i itself in
# test-ausearch-interp.sh): every bundled case under its rules, and the interpretation edge log
for rules in tests/cases/replay/*.rules; do
	log=${rules%.rules}.log
	n=$(basename "$rules" .rules)
	"$B" audit replay -i -R "$rules" --output "$tmp/ri.$n" "$log" >/dev/null 2>&1
	"$B" audit stream -i -R "$rules" <"$log" >"$tmp/si.$n" 2>/dev/null
	if cmp -s "$tmp/ri.$n" "$tmp/si.$n"; then ok; else bad "$n: stream -i differs from replay -i"; fi
done
e2=tests/data/audit/logs/edge/interpret-edge.log
"$B" audit replay --format interpret --output "$tmp/ri.edge" "$e2" >/dev/null 2>&1
"$B" audit stream --format interpret <"$e2" >"$tmp/si.edge" 2>/dev/null
if [ -s "$tmp/ri.edge" ] && cmp -s "$tmp/ri.edge" "$tmp/si.edge"; then ok; else bad "stream --format interpret on $e2"; fi
# ausearch --format csv|text, as replay writes them (compared with ausearch itself in
# test-ausearch-format.sh), on the normalizer's edge log, the CSV with every extra column
e3=tests/data/audit/logs/edge/normalize-edge.log
for f in "csv --extra-keys --extra-obj2 --extra-time" text; do
	# shellcheck disable=SC2086
	"$B" audit replay --format $f --output "$tmp/rn" "$e3" >/dev/null 2>&1
	# shellcheck disable=SC2086
	"$B" audit stream --format $f <"$e3" >"$tmp/sn" 2>/dev/null
	if [ -s "$tmp/rn" ] && cmp -s "$tmp/rn" "$tmp/sn"; then ok; else bad "stream --format $f on $e3"; fi
done
# -i live: an event held for ausearch's order is written once the input is idle
mkfifo "$tmp/ififo"
"$B" audit stream -i --idle-ms 100 --output "$tmp/ilive.log" "$tmp/ififo" 2>/dev/null &
ip=$!
pids="$pids $ip"
exec 4>"$tmp/ififo"
printf 'type=SYSCALL msg=audit(1700000000.001:1): arch=c000003e syscall=257 success=yes exit=3 a0=3 a1=4 a2=0 a3=0 items=0 ppid=1 pid=7 auid=1000 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts0 ses=1 comm="x" exe="/x" key=(null)\n' >&4
if wait_for 5 grep -q 'syscall=openat' "$tmp/ilive.log" && kill -0 "$ip" 2>/dev/null; then ok; else
	bad "stream -i: the event was not written while the stream was open"; fi
exec 4>&-
wait "$ip"
if [ $? -eq 0 ] && [ "$(grep -c '^----$' "$tmp/ilive.log")" -eq 1 ]; then ok; else bad "stream -i: exit or event count"; fi

# a live stream through a FIFO: two events under rules A, a reload to B, two events more
cat >"$tmp/a.rules" <<'EOF'
-a always,exit -F arch=b64 -S openat -k A
EOF
cat >"$tmp/b.rules" <<'EOF'
-a always,exit -F arch=b64 -S connect -k B
EOF
ev() {	# ev SERIAL SYSCALL: one SYSCALL + PROCTITLE event
	printf 'type=SYSCALL msg=audit(1700000000.%03d:%d): arch=c000003e syscall=%d success=yes exit=3 a0=3 a1=4 a2=0 a3=0 items=0 ppid=1 pid=7 auid=1000 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts0 ses=1 comm="x" exe="/x" key=(null)\n' "$1" "$1" "$2"
	printf 'type=PROCTITLE msg=audit(1700000000.%03d:%d): proctitle=78\n' "$1" "$1"
}
cp "$tmp/a.rules" "$tmp/live.rules"
mkfifo "$tmp/fifo"
echo "kept before" >"$tmp/live.log"
"$B" audit stream -R "$tmp/live.rules" --output "$tmp/live.log" --idle-ms 100 "$tmp/fifo" \
	2>"$tmp/live.err" &
sp=$!
pids="$pids $sp"
exec 3>"$tmp/fifo"
{ ev 2 42; ev 1 257 | head -1; } >&3
# 2. written while the stream is open (only the openat event: rules A); that event has no
# PROCTITLE, so only the idle input closes it
if wait_for 5 has_lines "$tmp/live.log" 2 && kill -0 "$sp" 2>/dev/null; then ok; else
	bad "the kept event was not written while the stream was open"; fi
if [ "$(head -1 "$tmp/live.log")" = "kept before" ]; then ok; else bad "the output was not appended to"; fi
# 3. reload to B, then a refused reload (an error line): B stays
cp "$tmp/b.rules" "$tmp/live.rules"
kill -HUP "$sp"
if wait_for 5 grep -q "reloaded" "$tmp/live.err"; then ok; else bad "no reload message"; fi
{ ev 3 257; ev 4 42; } >&3
printf -- '-a always,exit -F arch=b64 -S nosuchcall -k C\n' >"$tmp/live.rules"
wait_for 5 has_lines "$tmp/live.log" 4 || :
kill -HUP "$sp"
if wait_for 5 grep -q "refused" "$tmp/live.err"; then ok; else bad "a bad set was not refused"; fi
# 4. a malformed line is reported and the stream goes on (rules B still in use)
printf 'type=SYSCALL msg=audit(garbage\n' >&3
{ ev 5 42; ev 6 257; } >&3
if wait_for 5 has_lines "$tmp/live.log" 6; then ok; else bad "the stream stopped after a bad line"; fi
kill -USR1 "$sp"
if wait_for 5 grep -q "1 malformed" "$tmp/live.err"; then ok; else bad "SIGUSR1: no counts"; fi
# 5. SIGTERM: open events decided, exit status 1 (a malformed line and a refused reload)
ev 7 42 >&3
kill -TERM "$sp"
wait "$sp"
rc=$?
exec 3>&-
pids=""
got=$(sed 1d "$tmp/live.log" | grep -o 'audit([0-9.]*:[0-9]*' | cut -d: -f2 | uniq | tr '\n' ' ')
# A kept 1 (openat); B kept 4, 5, 7 (connect); 2, 3 and 6 dropped by the set then in use
if [ "$got" = "1 4 5 7 " ]; then ok; else bad "live stream kept serials '$got', want '1 4 5 7 '"; fi
if [ "$(sed 1d "$tmp/live.log" | wc -l)" -eq 7 ]; then ok; else bad "live stream: not 7 records"; fi
if [ "$rc" -eq 1 ]; then ok; else bad "exit $rc after a malformed line and a refused reload, want 1"; fi
if grep -q 'fifo:[0-9]*: ' "$tmp/live.err"; then ok; else bad "the malformed line has no position"; fi

# 5b. an EOE after its event was closed by the idle input (auditd's plugin stream: EOE comes
# last, and may come late) follows its event: written after a kept one, dropped after a dropped
# one, and never an event kept on its own (the reader counts it as an event: 11, 12, their
# EOEs, 13)
mkfifo "$tmp/efifo"
"$B" audit stream -R "$tmp/a.rules" --output "$tmp/eoe.log" --idle-ms 100 "$tmp/efifo" \
	2>"$tmp/eoe.err" &
sp=$!
pids="$pids $sp"
exec 5>"$tmp/efifo"
{ ev 11 257; ev 12 42; } >&5
# event 11's records written: the idle input closed both events
wait_for 10 has_lines "$tmp/eoe.log" 2 || bad "late EOE: the idle input closed no event"
printf 'type=EOE msg=audit(1700000000.%03d:%d): \n' 11 11 12 12 >&5
ev 13 42 >&5
exec 5>&-
wait "$sp"
rc=$?
pids=""
got=$(grep -o '^type=[A-Z]* msg=audit([0-9.]*:[0-9]*' "$tmp/eoe.log" | sed 's/ msg=audit([0-9.]*:/ /' | tr '\n' ' ')
if [ "$got" = "type=SYSCALL 11 type=PROCTITLE 11 type=EOE 11 " ]; then ok; else
	bad "late EOE: kept '$got', want the openat event 11 with its EOE"; fi
if [ "$rc" -eq 0 ] && grep -q '5 events: 2 kept, 3 dropped' "$tmp/eoe.err"; then ok; else
	bad "late EOE: exit $rc, counts: $(tail -1 "$tmp/eoe.err")"; fi

# 5c. the recorded run of the plugin under the real auditd and kernel (tests/cases/kernel-plugin):
# today's replay of auditd's log with each rule set accounts for every event as the live plugin
# decided it (tests/kernel/plugin/check.sh)
kp=tests/cases/kernel-plugin
mkdir -p "$tmp/kp"
gzip -dc "$kp/audit.log.gz" >"$tmp/kp/audit.log"
gzip -dc "$kp/stream.log.gz" >"$tmp/kp/stream.log"
cp "$kp/stream.err" "$kp/reloads.txt" "$kp/auditctl-s-after.txt" "$tmp/kp/"
if sh tests/kernel/plugin/check.sh "$tmp/kp" "$B" >"$tmp/kp.out" 2>&1; then ok; else
	bad "the recorded plugin run: $(grep -m3 'plugin check' "$tmp/kp.out")"; fi

# 6. the output may not be the input; usage errors exit 2
cp "$e" "$tmp/in.log"
"$B" audit stream -k identity --output "$tmp/in.log" "$tmp/in.log" >/dev/null 2>&1
rc=$?
if [ "$rc" -eq 1 ] && cmp -s "$e" "$tmp/in.log"; then ok; else bad "output = input: exit $rc"; fi
"$B" audit stream >/dev/null 2>&1; rc=$?
if [ "$rc" -eq 2 ]; then ok; else bad "no rules and no selection: exit $rc, want 2"; fi
"$B" audit stream --idle-ms 0 -k x >/dev/null 2>&1; rc=$?
if [ "$rc" -eq 2 ]; then ok; else bad "--idle-ms 0: exit $rc, want 2"; fi
if "$B" audit stream --help | grep -q "plugins.d"; then ok; else bad "--help"; fi

echo "stream: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
