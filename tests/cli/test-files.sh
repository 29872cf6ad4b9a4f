#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-files.sh OUT - no command destroys a user's file (OUT/secpath):
#  - an output that is an input (same st_dev/st_ino: the path, a hard link, a symlink, stdin) is
#    refused before anything is written, and the input is byte-identical afterwards;
#  - a full disk (RLIMIT_FSIZE), an input that fails mid-read, SIGTERM and SIGKILL mid-write and
#    a closed stdout leave the old file or the complete new one, never a torn one, no temporary
#    file (except after SIGKILL), and an exit status that says what happened;
#  - a non-empty input with no audit record in it does not exit 0; a log cut mid-line reports the
#    cut line with its offset and never reads it as a record;
#  - `audit run --output` holds records only (a valid audit.log), the summary goes elsewhere.
# Ends with "files: N passed, N failed".
set -u
out=${1:?usage: test-files.sh OUT}
B=$(cd "$out" && pwd)/secpath
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# check DESC COND...: pass when the command COND succeeds
check() { d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }
# rc_is WANT DESC: the last exit status
rc_is() { if [ "$rc" -eq "$1" ]; then ok; else bad "$2: exit $rc, want $1: $(head -3 "$tmp/err")"; fi; }
no_tmp_left() { ! ls "$tmp/w" | grep -q '\.tmp-'; }

mkdir "$tmp/w"
W=$tmp/w
# a generated log: N events of SYSCALL, PATH, PROCTITLE (about 900 bytes each)
gen_log() {
	awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) {
		s = sprintf("msg=audit(1700000000.%03d:%d):", i % 1000, i)
		printf "type=SYSCALL %s arch=c000003e syscall=257 success=yes exit=3 a0=ffffff9c a1=7ffd0 a2=0 a3=0 items=1 ppid=1 pid=%d auid=1000 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts0 ses=1 comm=\"cat\" exe=\"/usr/bin/cat\" subj=unconfined key=(null)\n", s, 100 + i % 50
		printf "type=PATH %s item=0 name=\"/etc/hostname\" inode=%d dev=08:01 mode=0100644 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0 cap_frootid=0\n", s, 1000 + i
		printf "type=PROCTITLE %s proctitle=636174002F6574632F686F73746E616D65\n", s } }'
}
LOG=$W/gen.log
gen_log 2000 >"$LOG"
cp "$LOG" "$W/l.log"
cp "$LOG" "$W/orig.log"
printf -- '-a always,exit -F arch=b64 -S all -k all\n' >"$W/r.rules"
cp "$W/r.rules" "$W/orig.rules"

# ---- an output is never an input ----
"$B" audit replay -R "$W/r.rules" --output "$W/l.log" "$W/l.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "replay --output = input"
check "replay --output = input: input unchanged" cmp -s "$W/l.log" "$W/orig.log"
check "replay --output = input: says why" grep -q "same file as the input" "$tmp/err"
gzip -c "$LOG" >"$W/l.log.gz"; cp "$W/l.log.gz" "$W/orig.log.gz"
"$B" audit replay -R "$W/r.rules" --output "$W/l.log.gz" "$W/l.log.gz" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "replay --output = gzip input"
check "replay gzip input unchanged" cmp -s "$W/l.log.gz" "$W/orig.log.gz"
ln "$W/l.log" "$W/hard.log"; ln -s l.log "$W/sym.log"
for o in "$W/hard.log" "$W/sym.log"; do
	"$B" audit replay -R "$W/r.rules" --output "$o" "$W/l.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
	rc_is 1 "replay --output $(basename "$o") (same inode as the input)"
done
check "hard link and symlink outputs: input unchanged" cmp -s "$W/l.log" "$W/orig.log"
"$B" audit replay -R "$W/r.rules" --output "$W/l.log" - <"$W/l.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "replay --output = stdin's file"
"$B" audit replay -R "$W/r.rules" --output "$W/r.rules" "$W/l.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "replay --output = rules file"
check "replay: rules unchanged" cmp -s "$W/r.rules" "$W/orig.rules"
if [ -r /proc/self/status ] && grep -q '^TracerPid:' /proc/self/status; then
	for opt in --output --record --summary; do
		"$B" audit run -R "$W/r.rules" $opt "$W/r.rules" -- true >"$tmp/o" 2>"$tmp/err"; rc=$?
		rc_is 1 "run $opt = rules file"
	done
	"$B" audit run -R "$W/r.rules" --output "$W/x.log" --record "$W/x.log" -- true >"$tmp/o" 2>"$tmp/err"; rc=$?
	rc_is 1 "run --output and --record the same new file"
	check "run: rules unchanged" cmp -s "$W/r.rules" "$W/orig.rules"
fi
"$B" audit optimize -R "$W/r.rules" -o "$W/r.rules" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "optimize -o = rules file"
check "optimize: rules unchanged" cmp -s "$W/r.rules" "$W/orig.rules"

# ---- the happy path: complete file, mode kept, devices written in place ----
printf 'old\n' >"$W/out.log"; chmod 640 "$W/out.log"
"$B" audit replay -R "$W/r.rules" --output "$W/out.log" "$W/l.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 0 "replay --output a new file"
check "replay output: the kept records" test "$(grep -c '' "$W/out.log")" -gt 10
check "replay output: mode of the file it replaced" test "$(stat -c %a "$W/out.log")" = 640
check "no temporary file left" no_tmp_left
"$B" audit replay -R "$W/r.rules" --output /dev/null "$W/l.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 0 "replay --output /dev/null"
check "/dev/null is still a character device" test -c /dev/null

# ---- a full disk: RLIMIT_FSIZE (512-byte blocks in sh's ulimit -f) ----
cp "$W/out.log" "$W/prev.log"
(ulimit -f 2; "$B" audit replay -R "$W/r.rules" --output "$W/out.log" "$W/l.log") >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "replay under a 1 KiB file-size limit"
check "replay, full disk: the old file is intact" cmp -s "$W/out.log" "$W/prev.log"
check "replay, full disk: says why" grep -q "File too large" "$tmp/err"
check "replay, full disk: no temporary file left" no_tmp_left
printf -- '-w /etc/passwd -p wa -k identity\n-a always,exit -F arch=b64 -S openat -k o\n' >"$W/opt.rules"
printf 'old\n' >"$W/opt.out"
(ulimit -f 0; "$B" audit optimize -R "$W/opt.rules" -o "$W/opt.out") >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "optimize under a zero file-size limit"
check "optimize, full disk: the old file is intact" test "$(cat "$W/opt.out")" = old
check "optimize, full disk: no temporary file left" no_tmp_left
printf 'old\n' >"$W/r.html"
(ulimit -f 1; "$B" bench slab --case hot-64 --quick --html "$W/r.html") >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "bench --html under a 512-byte file-size limit"
check "bench --html, full disk: the old page is intact" test "$(cat "$W/r.html")" = old
check "bench --html, full disk: no temporary file left" no_tmp_left
"$B" audit list "$W/opt.rules" >/dev/full 2>"$tmp/err"; rc=$?
rc_is 1 "a report to a full stdout"
check "full stdout: says why" grep -q "No space left" "$tmp/err"

# ---- an input that fails mid-read ----
head -c $(( $(wc -c <"$W/l.log.gz") / 2 )) "$W/l.log.gz" >"$W/cut.gz"
cp "$W/prev.log" "$W/out.log"
"$B" audit replay -R "$W/r.rules" --output "$W/out.log" "$W/cut.gz" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "replay of a truncated gzip file"
check "truncated gzip: a gzip error" grep -q "gzip: unexpected end of stream" "$tmp/err"
check "truncated gzip: no report after the fatal error" test ! -s "$tmp/o"
check "truncated gzip: the old output is intact" cmp -s "$W/out.log" "$W/prev.log"
"$B" audit replay -R "$W/r.rules" "$W/nosuch.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "replay of a missing file"
check "missing input: no report" test ! -s "$tmp/o"
"$B" audit replay -R "$W/r.rules" "$W" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 1 "replay of a directory"
check "directory input: no internal fd in the message" sh -c "! grep -q '<fd:' '$tmp/err'"

# ---- SIGTERM and SIGKILL mid-write: the writer is blocked on a FIFO after some output ----
gen_log 20000 >"$W/big.log"
for sig in TERM KILL; do
	cp "$W/prev.log" "$W/out.log"
	rm -f "$W/fifo"; mkfifo "$W/fifo"
	"$B" audit replay -R "$W/r.rules" --output "$W/out.log" "$W/fifo" >/dev/null 2>&1 &
	pid=$!
	exec 3>"$W/fifo"
	cat "$W/big.log" >&3
	sleep 0.3
	kill -s "$sig" "$pid"
	wait "$pid"; rc=$?
	exec 3>&-
	check "SIG$sig mid-write: the process died of it (exit $rc)" test "$rc" -ge 128
	check "SIG$sig mid-write: the old output is intact" cmp -s "$W/out.log" "$W/prev.log"
	[ "$sig" = KILL ] || check "SIGTERM: no temporary file left" no_tmp_left
	rm -f "$W"/out.log.tmp-*
done

# ---- a closed stdout: SIGPIPE, or EPIPE when the signal is ignored ----
{ "$B" policy search -A data/policy/debian-default.policy.33.xz; echo $? >"$tmp/rc"; } | head -c 10 >/dev/null
check "SIGPIPE: killed by it, exit 141 (got $(cat "$tmp/rc"))" test "$(cat "$tmp/rc")" = 141
cp "$W/prev.log" "$W/out.log"
"$B" audit replay -R "$W/r.rules" --output "$W/out.log" "$W/l.log" >&- 2>"$tmp/err"; rc=$?
rc_is 1 "replay with stdout closed"
check "closed stdout: the output is complete" test "$(grep -c '' "$W/out.log")" -gt 10
check "closed stdout: no temporary file left" no_tmp_left

# ---- nothing read from a non-empty input, and a log cut mid-line ----
head -c 4096 /dev/urandom | tr -d '\n' | head -c 3000 >"$W/noise.bin"
printf 'hello\nworld\n' >"$W/text.txt"
for f in noise.bin text.txt; do
	"$B" audit replay -R "$W/r.rules" "$W/$f" >"$tmp/o" 2>"$tmp/err"; rc=$?
	rc_is 1 "replay of $f (no audit record)"
done
: >"$W/empty.log"
"$B" audit replay -R "$W/r.rules" "$W/empty.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 0 "replay of an empty log"
head -c 5000 "$LOG" >"$W/cut.log"
lastoff=$(( 5000 - $(tail -c 5000 "$W/cut.log" | awk 'END { print length($0) }') ))
"$B" audit replay -R "$W/r.rules" --output "$W/cut.out" "$W/cut.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
rc_is 0 "replay of a log cut mid-line"
check "cut log: the cut line is reported with its offset ($lastoff)" \
	grep -q "warning: truncated line at byte offset $lastoff " "$tmp/err"
check "cut log: counted as truncated" grep -q ", 1 truncated" "$tmp/o"
check "cut log: the cut line is not in the output" \
	sh -c "! grep -qxF \"\$(tail -c 100 '$W/cut.log' | sed 's/.*\n//')\" '$W/cut.out' || false"

# ---- audit run: records in one stream, the summary in another ----
if [ -r /proc/self/status ]; then
	printf -- '-a always,exit -F arch=b64 -S openat -k op\n' >"$W/run.rules"
	"$B" audit run -R "$W/run.rules" --output "$W/run.log" --json --summary "$W/run.json" -- cat /etc/hostname >/dev/null 2>"$tmp/err"; rc=$?
	if [ "$rc" -eq 0 ]; then
		ok
		check "run --output: no summary in the records" sh -c "! grep -q summary '$W/run.log'"
		"$B" audit replay -R "$W/run.rules" "$W/run.log" >"$tmp/o" 2>"$tmp/err"; rc=$?
		rc_is 0 "run --output is a valid audit.log for replay"
		check "run --summary --json: one JSON object with a schema" grep -q '^{"schema":"secpath.audit-run/1"' "$W/run.json"
		"$B" audit run -R "$W/run.rules" -- /nonexistent/cmd >"$tmp/o" 2>"$tmp/err"; rc=$?
		rc_is 127 "run of a missing command"
		check "run of a missing command: says why" grep -q "cannot execute '/nonexistent/cmd': No such file" "$tmp/err"
		(ulimit -f 0; "$B" audit run -R "$W/run.rules" --output "$W/run.log" -- cat /etc/hostname) >"$tmp/o" 2>"$tmp/err"; rc=$?
		rc_is 1 "run --output under a zero file-size limit"
		check "run, full disk: the old records are intact" grep -q 'key="op"' "$W/run.log"
		check "run, full disk: no temporary file left" no_tmp_left
	elif grep -q "ptrace is not permitted" "$tmp/err"; then
		echo "skip: audit run (no ptrace here)"
	else
		bad "audit run: exit $rc: $(head -3 "$tmp/err")"
	fi
fi

echo "files: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
