#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-cli.sh OUT - the tool's contract, checked on the built binary OUT/secpath:
#  - every command answers --help with exit 0; usage errors exit 2 (no args, unknown area or
#    command, abbreviated names: no prefix matching, unknown options); rejected input exits 1;
#  - every reporting command's --json output is valid JSON (tests/cli/jsoncheck.c);
#  - diagnostics carry positions (file:line:col, file:+0xOFFSET).
# Ends with "cli: N passed, N failed".
set -u
out=${1:?usage: test-cli.sh OUT}
B=$out/secpath
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/jsoncheck" tests/cli/jsoncheck.c || { echo "cli: 0 passed, 1 failed"; exit 1; }
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect RC CMD...: run, compare the exit status
expect() {
	want=$1; shift
	"$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "$* -> exit $rc, want $want: $(head -2 "$tmp/e")"; fi
}
# json CMD...: exit 0 and valid JSON on stdout
json() {
	"$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	rc=$?
	if [ "$rc" -eq 0 ] && "$tmp/jsoncheck" <"$tmp/o"; then ok; else bad "$* -> exit $rc, invalid JSON: $(head -c 200 "$tmp/o")"; fi
}

R=data/audit/rules/debian/30-stig.rules
E="--passwd data/audit/env/passwd --group data/audit/env/group --dirs data/audit/env/dirs"
P=data/policy/debian-default.policy.33.xz
LOG=tests/data/audit/logs/go-libaudit/audit-rhel7.log

for c in "" "slab" "slab stats" "audit" "audit check" "audit compile" "audit list" "audit decode" \
	"audit filter" "audit replay" "audit run" "audit cost" "audit optimize" "policy" \
	"policy info" "policy search" "policy decide" "policy diff" "bench"; do
	# shellcheck disable=SC2086
	expect 0 "$B" $c --help
done
# the top-level help lists, for each area with commands, exactly the commands its own help lists;
# each of them answers --help, and run without arguments either works or says what is missing
"$B" --help >"$tmp/top" 2>/dev/null
for a in $(awk '/^areas:/ { f = 1; next } f && /^  / { print $1 }' "$tmp/top"); do
	"$B" "$a" --help >"$tmp/area" 2>/dev/null
	grep -q '^commands:' "$tmp/area" || continue
	own=$(awk '/^commands:/ { f = 1; next } f && /^  / { printf "%s%s", n++ ? ", " : "", $1 }' "$tmp/area")
	top=$(awk -v a="$a" '/^areas:/ { f = 1; next } f && $1 == a { sub(/^ +[a-z]+ +/, ""); print }' "$tmp/top")
	if [ -n "$own" ] && [ "$own" = "$top" ]; then ok; else bad "secpath --help lists '$top' for $a, its own help '$own'"; fi
	for c in $(echo "$own" | tr -d ,); do
		expect 0 "$B" "$a" "$c" --help
		# run bare: a usage error says what is missing before the usage
		"$B" "$a" "$c" >/dev/null 2>"$tmp/e" </dev/null
		if [ $? -ne 2 ] || ! head -1 "$tmp/e" | grep -q '^usage:'; then ok; else bad "$a $c: usage error without a reason"; fi
	done
done
expect 0 "$B" --version
expect 2 "$B"
expect 2 "$B" nosuch
expect 2 "$B" aud check "$R"
expect 2 "$B" audit chec "$R"
expect 2 "$B" audit nosuch
expect 2 "$B" policy inf "$P"
expect 2 "$B" slab stat
expect 2 "$B" bench nosuch-suite
expect 2 "$B" audit check --no-such-option "$R"

# rejected input: exit 1 with a positioned diagnostic
printf -- '-a always,exit -F arch=b64 -S openat -F uid=no_such_user_x -k k\n' >"$tmp/bad.rules"
expect 1 "$B" audit check "$tmp/bad.rules"
if grep -q "bad.rules:1:41" "$tmp/e"; then ok; else bad "audit check: no line:col in '$(head -1 "$tmp/e")'"; fi
printf 'abc\n' >"$tmp/odd.hex"
expect 1 "$B" audit decode "$tmp/odd.hex"
head -c 1000 tests/data/policy/tiny.33 >"$tmp/cut.pol" 2>/dev/null || true
expect 1 "$B" policy info "$tmp/cut.pol"
if grep -q "+0x" "$tmp/e"; then ok; else bad "policy info: no byte offset in '$(head -1 "$tmp/e")'"; fi

# audit filter: the case tables through the tool; malformed event lines rejected with their line
expect 0 "$B" audit filter tests/cases/audit/01-operators.rules tests/cases/audit/01-operators.events
printf 'event sc=getpid uid=abc\nevnt sc=getpid\n# comment\n\nevent sc=getpid groups=1,x\n' >"$tmp/bad.events"
expect 1 "$B" audit filter tests/cases/audit/01-operators.rules "$tmp/bad.events"
for want in "bad.events:1:17-23: error: bad value 'abc' for uid" "bad.events:2: expected" "bad.events:5:17-26: error: bad value '1,x' for groups"; do
	if grep -q "$want" "$tmp/e"; then ok; else bad "audit filter: no '$want' in: $(cat "$tmp/e")"; fi
done
# device numbers, modes and raw names are validated too (were read with sscanf/strtoul)
printf 'fs /etc ino=10 mode=dir dev=8:x\nfs /tmp ino=11 mode=7z9\nevent sc=open rawname=12:8:1 rdev=1:2:3\nevent sc=open rawname=unset:q\nevent sc=open rawname=5:8:1 mode=0100644 rdev=4:64\n' >"$tmp/dev.events"
expect 1 "$B" audit filter tests/cases/audit/01-operators.rules "$tmp/dev.events"
for want in "dev.events:1:25-31: error: bad fs line: '8:x'" "dev.events:2:16-23: error: bad fs line: '7z9'" "dev.events:3:30-39: error: bad value '1:2:3' for rdev" "dev.events:4:15-29: error: bad value 'unset:q' for rawname"; do
	if grep -q "$want" "$tmp/e"; then ok; else bad "audit filter: no '$want' in: $(cat "$tmp/e")"; fi
done
if grep -q "dev.events:5" "$tmp/e"; then bad "audit filter: valid raw name line rejected: $(cat "$tmp/e")"; else ok; fi
# a value that does not fit its 32-bit field is refused at its columns, never truncated
printf 'event sc=kill uid=4294967296\nevent sc=kill uid=-5\nevent sc=kill auid=99999999999\n' >"$tmp/wide.events"
printf -- '-a always,exit -F arch=b64 -S kill -F uid=0 -k root_kill\n' >"$tmp/root.rules"
expect 1 "$B" audit filter "$tmp/root.rules" "$tmp/wide.events"
for want in "wide.events:1:15-28: error: bad value '4294967296' for uid (out of range" "wide.events:2:15-20: error: bad value '-5' for uid (out of range" "wide.events:3:15-30: error: bad value '99999999999' for auid (out of range"; do
	if grep -q "$want" "$tmp/e"; then ok; else bad "audit filter: no '$want' in: $(cat "$tmp/e")"; fi
done
if grep -q "recorded" "$tmp/o"; then bad "audit filter: a truncated uid matched: $(cat "$tmp/o")"; else ok; fi
# audit list --auditctl: auditctl -l's form (watches as -w, duplicates and -D applied, -k)
printf -- '-a always,exit -F arch=b64 -S kill -k k\n-D\n-w /etc/passwd -p wa -k identity\n-w /etc/passwd -p wa -k identity\n-a always,exit -F arch=b64 -S openat -F auid!=unset -k o\n' >"$tmp/al.rules"
"$B" audit list --auditctl --machine x86_64 "$tmp/al.rules" >"$tmp/o" 2>"$tmp/e"
printf -- '-w /etc/passwd -p wa -k identity\n-a always,exit -F arch=b64 -S openat -F auid!=-1 -F key=o\n' >"$tmp/al.want"
if cmp -s "$tmp/o" "$tmp/al.want"; then ok; else bad "audit list --auditctl: $(cat "$tmp/o")"; fi
"$B" audit list --auditctl -k ident --machine x86_64 "$tmp/al.rules" >"$tmp/o" 2>"$tmp/e"
if [ "$(cat "$tmp/o")" = "-w /etc/passwd -p wa -k identity" ]; then ok; else bad "audit list --auditctl -k: $(cat "$tmp/o")"; fi
expect 2 "$B" audit list -k ident "$tmp/al.rules"
# audit check is the gate: what the kernel refuses, at line:col, and the lint's warnings
printf -- '-a always,exit -F arch=b64 -S openat -F uid=-1 -k x\n-a always,exit -F arch=b64 -S openat -F uid=99999999999999999999 -k y\n' >"$tmp/kern.rules"
expect 1 "$B" audit check "$tmp/kern.rules"
for want in "kern.rules:1:41-46: error: the kernel refuses this rule" "kern.rules:2:41-64: error: the kernel refuses this rule"; do
	if grep -q "$want" "$tmp/e"; then ok; else bad "audit check: no '$want' in: $(cat "$tmp/e")"; fi
done
expect 0 "$B" audit check --no-kernel "$tmp/kern.rules"
expect 1 "$B" audit filter "$tmp/kern.rules" /dev/null
if grep -q "kern.rules:1:41-46: error: the kernel refuses this rule" "$tmp/e"; then ok; else bad "audit filter: not the same verdict as check: $(cat "$tmp/e")"; fi
printf -- '\357\273\277-a always,exit -F arch=b64 -S open -k b\n-a always,exit -F arch=b64 -S open -k c\r\n-a always,exit -F arch=b64 -S open -F a0=0x1ffffffff\n-a always,exit -F arch=b64 -S open -F auid>=1000 -F auid<=999\n' >"$tmp/lint.rules"
expect 1 "$B" audit check "$tmp/lint.rules"
for want in "lint.rules:1:1-3: warning: a UTF-8 byte-order mark" "lint.rules:1:1-3: error: " "lint.rules:2:40: warning: a carriage return" "lint.rules:3:39-52: warning: value '0x1ffffffff' does not fit 32 bits" "lint.rules:4:53-61: warning: this rule never matches"; do
	if grep -q "$want" "$tmp/e"; then ok; else bad "audit check lint: no '$want' in: $(cat "$tmp/e")"; fi
done
# the host files: a missing one is named, a garbage one warned about
expect 1 "$B" audit check --passwd "$tmp/nosuch.passwd" "$tmp/lint.rules"
if grep -q "nosuch.passwd: error: cannot read the passwd file" "$tmp/e"; then ok; else bad "--passwd missing: $(head -2 "$tmp/e")"; fi
printf 'garbage line\n' >"$tmp/bad.passwd"
"$B" audit check --no-kernel --passwd "$tmp/bad.passwd" "$tmp/kern.rules" >"$tmp/o" 2>"$tmp/e"
if grep -q "bad.passwd:1:1-12: warning: not a passwd line" "$tmp/e"; then ok; else bad "--passwd garbage: $(head -2 "$tmp/e")"; fi
# audit optimize: -D applies as the kernel applies it (concatenated rules.d sets), rules it
# leaves as they were keep their text (-w) and the comments around them
printf -- '-a always,exit -F arch=b64 -S kill -k k\n-D\n-a always,exit -F arch=b64 -S openat -k o\n' >"$tmp/dd.rules"
expect 0 "$B" audit optimize -R "$tmp/dd.rules" -o "$tmp/dd.out" --time-ms 0
if [ "$(grep -c '^-a' "$tmp/dd.out")" -eq 1 ] && grep -q '^-D$' "$tmp/dd.out" && grep -q 'key=o\|-k o' "$tmp/dd.out"; then ok; else bad "optimize -D: $(cat "$tmp/dd.out")"; fi
cat "$R" "$R" >"$tmp/twice.rules"
expect 0 "$B" audit optimize $E -R "$tmp/twice.rules" -o "$tmp/twice.out" --time-ms 0
if grep -q ' -> 30 exit-list' "$tmp/o"; then ok; else bad "optimize of a twice-concatenated set: $(head -1 "$tmp/o")"; fi
expect 0 "$B" audit optimize $E -R "$R" -o "$tmp/stig.out" --time-ms 0
if [ "$(grep -c '^-w ' "$tmp/stig.out")" -eq "$(grep -c '^-w ' "$R")" ]; then ok; else bad "optimize: -w lines rewritten"; fi
if [ "$(grep -c '^#' "$tmp/stig.out")" -gt "$(grep -c '^#' "$R")" ]; then ok; else bad "optimize: comments dropped ($(grep -c '^#' "$tmp/stig.out") of $(grep -c '^#' "$R"))"; fi
# every command that reads rules takes the goldens' .tsv of blobs: replay decides as with the text
G=tests/data/audit/golden/debian/30-stig.rules.tsv
"$B" audit replay $E -R "$R" "$LOG" >"$tmp/o1" 2>/dev/null
"$B" audit replay $E -R "$G" "$LOG" >"$tmp/o2" 2>/dev/null
if [ "$(head -3 "$tmp/o1")" = "$(head -3 "$tmp/o2")" ] && grep -q 'kept' "$tmp/o2"; then ok; else bad "replay -R .tsv: $(head -3 "$tmp/o2")"; fi
printf '1\tADD\tzz\nnot a line\n' >"$tmp/bad.tsv"
expect 1 "$B" audit replay -R "$tmp/bad.tsv" "$LOG"
for want in "bad.tsv:1:7-8: error: not a blob in hex" "bad.tsv:2:1-10: error: not a LINE"; do
	if grep -q "$want" "$tmp/e"; then ok; else bad ".tsv errors: no '$want' in $(cat "$tmp/e")"; fi
done
# filter applies -D as the kernel does: the rules before it are gone
printf -- '-a always,exit -F arch=b64 -S getpid -k before\n-D\n-a always,exit -F arch=b64 -S getppid -k after\n' >"$tmp/dd2.rules"
printf 'event sc=getpid => record=0\nevent sc=getppid => record=1 key=after\n' >"$tmp/dd2.events"
expect 0 "$B" audit filter "$tmp/dd2.rules" "$tmp/dd2.events"
# policy decide's exit statuses tell "denied" from broken input; small policy messages
expect 0 "$B" policy decide "$P" passwd_t shadow_t file read write
expect 3 "$B" policy decide "$P" user_t shadow_t file read
expect 1 "$B" policy decide "$P" nosuch_t shadow_t file read
expect 1 "$B" policy decide "$tmp/cut.pol" passwd_t shadow_t file read
expect 1 "$B" policy decide --bool nosuch_bool=1 "$P" passwd_t shadow_t file read
if grep -q "no boolean 'nosuch_bool' in the policy" "$tmp/e"; then ok; else bad "--bool nosuch: $(cat "$tmp/e")"; fi
expect 2 "$B" policy decide --bool oops "$P" passwd_t shadow_t file read
expect 2 "$B" policy search -A "$P" -s
if grep -q -- "-s needs a value" "$tmp/e"; then ok; else bad "search -s without a value: $(head -1 "$tmp/e")"; fi
# sesearch's -x, -r* and --range_trans: what is refused says where and why, what is taken works
expect 1 "$B" policy search --allowxperm -x 0x8900-0x89zz "$P"
if grep -q -- "-x '0x8900-0x89zz': offset 11: expected a 16-bit hexadecimal" "$tmp/e"; then ok; else bad "search -x bad digit: $(head -1 "$tmp/e")"; fi
expect 1 "$B" policy search --allowxperm -x 0x10000 "$P"
expect 1 "$B" policy search -A -s '(' -rs "$P"
if grep -q -- "-rs '(': not a regular expression" "$tmp/e"; then ok; else bad "search -rs '(': $(head -1 "$tmp/e")"; fi
expect 0 "$B" policy search --range_trans -D s0 "$P"
if grep -q '^range_transition init_t initrc_exec_t:process s0;$' "$tmp/o"; then ok; else bad "search --range_trans -D s0: $(head -1 "$tmp/o")"; fi
expect 1 "$B" policy search --range_trans -D 's0 - s9' "$P"
if grep -q -- "-D:6: s0 - s9 is not a valid range (s9 is not a valid level (s9 is not a valid sensitivity))." "$tmp/e"; then ok; else bad "search -D 's0 - s9': $(head -1 "$tmp/e")"; fi
expect 0 "$B" policy search --role_allow -s '^sys' -rs "$P"
if grep -q '^allow sysadm_r staff_r;$' "$tmp/o" && ! grep -qv '^allow sys' "$tmp/o"; then ok; else bad "search --role_allow -rs: $(head -1 "$tmp/o")"; fi
# sesearch's order when a type's name is another's and a separator (' ' after a source, ':' after
# a target): the search's rank order cannot hold then, and the lines must still sort as sesearch's
if command -v sesearch >/dev/null; then
	xz -dc data/policy/debian-base-only.policy.33.xz | python3 -c 'import sys; b = sys.stdin.buffer.read()
for a, z in ((b"init_exec_t", b"init_t exec"), (b"shell_exec_t", b"bin_t:exec_t")):
	assert a in b; b = b.replace(a, z)
open(sys.argv[1], "wb").write(b)' "$tmp/sep.pol"
	expect 0 "$B" policy search -A -T "$tmp/sep.pol"
	sesearch -A -T "$tmp/sep.pol" >"$tmp/sep.want" 2>&1
	if grep -q "bin_t:exec_t" "$tmp/o" && cmp -s "$tmp/o" "$tmp/sep.want"; then ok; else bad "search with separators in names: not sesearch's lines"; fi
fi
# policy diff: usage errors and a cut policy, positioned
expect 2 "$B" policy diff "$P"
expect 2 "$B" policy diff --nosuch "$P" "$P"
if grep -q "unknown option '--nosuch'" "$tmp/e"; then ok; else bad "diff --nosuch: $(head -1 "$tmp/e")"; fi
expect 1 "$B" policy diff "$P" "$tmp/cut.pol"
if grep -q "+0x" "$tmp/e"; then ok; else bad "policy diff: no byte offset in '$(head -1 "$tmp/e")'"; fi
expect 0 "$B" policy diff --bool "$P" "$P"
if [ "$(cat "$tmp/o")" = "Booleans (0 Added, 0 Removed, 0 Modified)" ]; then ok; else bad "diff --bool P P: $(head -2 "$tmp/o")"; fi
expect 0 "$B" policy search -A -s '^passwd_t$' -rs -t shadow_t "$P"
if grep -q '^allow passwd_t shadow_t:file' "$tmp/o"; then ok; else bad "search -rs: $(head -1 "$tmp/o")"; fi
# no POLICY: the running policy where setools finds it; sesearch is the judge, in a mount
# namespace whose /etc/selinux is a directory of this test's (skipped without unshare/sesearch)
if command -v sesearch >/dev/null && [ -d /etc/selinux ] && unshare -m true 2>/dev/null; then
	es=$tmp/etc-selinux
	mkdir -p "$es/targeted/policy" "$es/mls/policy"
	xz -dc data/policy/debian-base-only.policy.33.xz >"$es/targeted/policy/policy.31"
	cp tests/data/policy/tiny.33 "$es/mls/policy/policy.33"
	bin=$(cd "$(dirname "$B")" && pwd)/$(basename "$B")
	for cfg in 'SELINUXTYPE=mls' '# none: targeted' 'selinuxtype=mls'; do
		printf 'SELINUX=disabled\n%s\n' "$cfg" >"$es/config"
		unshare -m sh -c 'mount --bind "$1" /etc/selinux && cd / && sesearch --role_allow --role_trans' \
			sh "$es" >"$tmp/want" 2>&1
		unshare -m sh -c 'mount --bind "$1" /etc/selinux && cd / && "$2" policy search --role_allow --role_trans' \
			sh "$es" "$bin" >"$tmp/o" 2>"$tmp/e"
		if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/o"; then ok; else bad "running policy ($cfg): $(head -1 "$tmp/o") vs sesearch $(head -1 "$tmp/want")"; fi
		unshare -m sh -c 'mount --bind "$1" /etc/selinux && cd / && seinfo -r' sh "$es" 2>/dev/null |
			grep -v '^Statistics for policy file' >"$tmp/want"
		unshare -m sh -c 'mount --bind "$1" /etc/selinux && cd / && "$2" policy info -r' \
			sh "$es" "$bin" 2>"$tmp/e" | grep -v '^Statistics for policy file' >"$tmp/o"
		if grep -q 'Roles:' "$tmp/want" && cmp -s "$tmp/want" "$tmp/o"; then ok; else bad "info, running policy ($cfg): $(grep Roles "$tmp/o") vs seinfo $(grep Roles "$tmp/want")"; fi
	done
	rm -rf "$es/targeted" "$es/mls"
	unshare -m sh -c 'mount --bind "$1" /etc/selinux && cd / && "$2" policy search -A' sh "$es" "$bin" \
		>"$tmp/o" 2>"$tmp/e"; rc=$?
	if [ "$rc" -eq 1 ] && grep -q "no POLICY given and no running policy found" "$tmp/e"; then ok; else bad "no running policy: exit $rc $(head -1 "$tmp/e")"; fi
else
	echo "test-cli: no sesearch or unshare -m: the running-policy lookup is not compared"
fi
"$B" policy info - <"$P" >"$tmp/o" 2>"$tmp/e"; rc=$?
if [ "$rc" -eq 0 ] && grep -q 'Policy Version' "$tmp/o"; then ok; else bad "policy info - (stdin): exit $rc $(head -1 "$tmp/e")"; fi
# every supplementary group counts (the 100th of 100 matches gid=100)
printf 'event sc=getpid groups=%s\n' "$(seq -s, 1 100)" >"$tmp/g.events"
printf -- '-a always,exit -F arch=b64 -S getpid -F gid=100 -k g100\n' >"$tmp/g.rules"
expect 0 "$B" audit filter "$tmp/g.rules" "$tmp/g.events"
if grep -q "recorded key=g100" "$tmp/o"; then ok; else bad "audit filter: group 100 of 100 lost: $(cat "$tmp/o")"; fi

# --json everywhere a command reports
json "$B" slab stats --json
json "$B" audit check --json "$R"
json "$B" audit compile --json "$R"
json "$B" audit list --json "$R"
json "$B" audit cost --json -R "$R"
# fschange lines: watches and exe= marks re-bind to the inode their path names now (every
# expectation in the file must hold, on both engines); an fschange without a path is refused
for e in ref compiled; do
	expect 0 "$B" audit filter --engine $e tests/cli/data/fschange.rules tests/cli/data/fschange.events
done
printf 'fschange relative ino=3\n' >"$tmp/fc.events"
expect 1 "$B" audit filter tests/cli/data/fschange.rules "$tmp/fc.events"
# a rules file's own -i / -c goes on past the rejected lines below it, as auditctl -R does
printf -- '-a always,exit -F arch=b64 -S open -k a\n-a always,exit -F nosuch=1\n' >"$tmp/ri.rules"
expect 1 "$B" audit cost -R "$tmp/ri.rules"
expect 1 "$B" audit run -R "$tmp/ri.rules" -- true
printf -- '-i\n-a always,exit -F arch=b64 -S open -k a\n-a always,exit -F nosuch=1\n' >"$tmp/ri.rules"
expect 0 "$B" audit cost -R "$tmp/ri.rules"
if grep -q 'nosuch' "$tmp/e"; then ok; else bad "audit cost with -i: the rejected line is not reported"; fi
printf -- '-a always,exit -F nosuch=1\n-c\n-a always,exit -F arch=b64 -S open -k a\n' >"$tmp/ri.rules"
expect 1 "$B" audit cost -R "$tmp/ri.rules"
"$B" audit replay --json -R "$R" "$LOG" >"$tmp/o" 2>"$tmp/e"
# this real log's "type=UNKNOWN[1329] msg=?" record is skipped with a warning (as ausearch
# passes over it): exit 0, the warning in the JSON
if [ $? -eq 0 ] && "$tmp/jsoncheck" <"$tmp/o" && grep -q 'audit-rhel7.log","line":31,.*"severity":"warning"' "$tmp/o"; then ok; else bad "audit replay --json: $(head -c 200 "$tmp/o")"; fi
json "$B" policy info --json "$P"
# policy options: a bad layout and too many --bool options are usage errors, never dropped
expect 2 "$B" policy info --layout bogus "$P"
if grep -q "unknown layout 'bogus'" "$tmp/e"; then ok; else bad "policy info --layout bogus: $(cat "$tmp/e")"; fi
expect 2 "$B" policy decide "$P" $(i=0; while [ $i -lt 65 ]; do printf -- '--bool b%d=1 ' $i; i=$((i + 1)); done) a b c d
if grep -q "more than 64 --bool" "$tmp/e"; then ok; else bad "policy decide 65 --bool: $(cat "$tmp/e")"; fi
json "$B" policy decide --json "$P" passwd_t shadow_t file read write
json "$B" policy search --json "$P" --allow -s passwd_t -t shadow_t -c file
json "$B" bench --list --json
json "$B" audit filter --json tests/cases/audit/02-exit.rules tests/cases/audit/02-exit.events

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
