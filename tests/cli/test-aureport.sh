#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-aureport.sh [OUT] - `secpath audit replay --report KIND [--summary]` against aureport
# 3.0.9 itself (Debian's auditd package, extracted by scripts/get-audit-tools.sh, never
# installed).  For every log and every report (summary, key, exe, file, auth, login, log; each
# but log also with --summary) the text secpath writes must be the bytes aureport writes:
# `aureport --input LOG OPTS` over the whole log; with ausearch's selection,
# `ausearch --raw -if LOG SEL | aureport OPTS` (aureport then names its input "stdin" on -t
# lines, replaced here by the log's name); with -R rules, aureport over the records
# `secpath audit replay -R RULES --output F` kept (the report is aureport's own).  Logs: the
# bundled real logs (go-libaudit, tests/cases/replay), the edge log of test-ausearch.sh and one
# with the records aureport's reports count.
# TZ=UTC and LC_ALL=C for every tool.  Ends with "aureport: N passed, N failed"; aureport that
# cannot be fetched fails the group.
set -u
out=${1:-out/release}
bin=$(cd "$out" && pwd)/secpath
pass=0
fail=0
nq=0
every=${SECPATH_ORACLE_EVERY:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C

. tests/cli/audit-tools.sh
audit_tools aureport fail
aus() { ausearch_tool --raw "$@"; }
aur() { aureport_tool "$@"; }

# The edge log of test-ausearch.sh, its first 26 lines (tests/data/audit/logs/edge): 2025-11-28
# .. 2025-12-01 UTC.
head -n 26 tests/data/audit/logs/edge/ausearch-edge.log >"$tmp/edge.log"

# A second edge log for aureport's own fields: user messages with acct=, hostname=?/addr=,
# failures and their counts (USER_AUTH, USER_MGMT, GRP_AUTH, USER_LOGIN), account, crypto,
# anomaly, response, virt, integrity and MAC records, inet and inet6 SOCKADDR hosts, a
# NETFILTER_CFG comm, a LOGIN then its SYSCALL, DAEMON_ACCEPT/CLOSE addresses, a TTY, and a
# PARENT path before the file.
cat >"$tmp/edge2.log" <<'EOF'
type=USER_AUTH msg=audit(1764288000.100:101): pid=100 uid=0 auid=4294967295 ses=4294967295 msg='op=PAM:authentication grantors=? acct="bob" exe="/usr/sbin/sshd" hostname=10.1.1.1 addr=10.1.1.1 terminal=ssh res=failed'
type=USER_AUTH msg=audit(1764288000.200:102): pid=101 uid=0 auid=1000 ses=3 msg='op=PAM:authentication grantors=pam_unix acct="alice" exe="/usr/bin/sudo" hostname=? addr=? terminal=/dev/pts/1 res=success'
type=USER_MGMT msg=audit(1764288000.300:103): pid=102 uid=0 auid=1000 ses=3 msg='op=add-user acct="carol" exe="/usr/sbin/useradd" hostname=web1 addr=? terminal=pts/1 res=failed'
type=GRP_AUTH msg=audit(1764288000.400:104): pid=103 uid=0 auid=1000 ses=3 msg='op=group-auth acct="dave" exe="/usr/bin/newgrp" hostname=? addr=? terminal=pts/2 res=success'
type=USER_CHAUTHTOK msg=audit(1764288000.500:105): pid=104 uid=0 auid=1000 ses=3 msg='op=change password acct="alice" exe="/usr/bin/passwd" hostname=? addr=? terminal=pts/1 res=success'
type=ADD_USER msg=audit(1764288000.600:106): pid=105 uid=0 auid=1000 ses=3 msg='op=add-user id=1001 exe="/usr/sbin/useradd" hostname=? addr=? terminal=pts/1 res=success'
type=USER_LOGIN msg=audit(1764288000.700:107): pid=106 uid=0 auid=4294967295 ses=4294967295 msg='op=login acct="mallory" exe="/usr/sbin/sshd" hostname=? addr=192.0.2.7 terminal=sshd res=failed'
type=USER_LOGIN msg=audit(1764288000.800:108): pid=107 uid=0 auid=1000 ses=4 msg='op=login id=1000 exe="/usr/sbin/sshd" hostname=host.example addr=192.0.2.8 terminal=/dev/pts/3 res=success'
type=CRYPTO_KEY_USER msg=audit(1764288000.900:109): pid=108 uid=0 auid=4294967295 ses=4294967295 msg='op=destroy kind=server fp=SHA256:ab direction=? spid=108 suid=0  exe="/usr/sbin/sshd" hostname=? addr=? terminal=? res=success'
type=ANOM_ABEND msg=audit(1764288001.000:110): auid=1000 uid=1000 gid=1000 ses=4 pid=109 comm="crashy" exe="/usr/bin/crashy" sig=11 res=1
type=RESP_ANOMALY msg=audit(1764288001.100:111): pid=110 uid=0 auid=0 ses=1 msg='op=kill exe="/sbin/auditd" hostname=? addr=? terminal=? res=success'
type=VIRT_CONTROL msg=audit(1764288001.200:112): pid=111 uid=0 auid=4294967295 ses=4294967295 msg='virt=kvm op=start reason=booted vm="guest1" uuid=1234 vm-pid=99 exe="/usr/sbin/libvirtd" hostname=? addr=? terminal=? res=success'
type=INTEGRITY_RULE msg=audit(1764288001.300:113): file="/usr/bin/x" hash="sha256:00" ppid=1 pid=112 auid=0 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=pts0 ses=1 comm="x" exe="/usr/bin/x" res=1
type=MAC_STATUS msg=audit(1764288001.400:114): enforcing=1 old_enforcing=0 auid=0 ses=1 enabled=1 old-enabled=1 lsm=selinux res=1
type=SYSCALL msg=audit(1764288001.500:115): arch=c000003e syscall=42 success=no exit=-111 a0=3 a1=7ffd a2=10 a3=0 items=0 ppid=1 pid=113 auid=1000 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=pts3 ses=4 comm="curl" exe="/usr/bin/curl" key="net"
type=SOCKADDR msg=audit(1764288001.500:115): saddr=02000050C00002090000000000000000
type=SYSCALL msg=audit(1764288001.600:116): arch=c000003e syscall=42 success=yes exit=0 a0=3 a1=7ffd a2=1c a3=0 items=0 ppid=1 pid=114 auid=1000 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=pts3 ses=4 comm="curl" exe="/usr/bin/curl" key="net"
type=SOCKADDR msg=audit(1764288001.600:116): saddr=0A0000500000000020010DB8000000000000000000000001000000000000
type=NETFILTER_CFG msg=audit(1764288001.700:117): table=filter family=2 entries=10 op=xt_replace pid=115 subj=unconfined comm="iptables"
type=LOGIN msg=audit(1764288001.800:118): pid=116 uid=0 subj=unconfined old-auid=4294967295 auid=1000 tty=(none) old-ses=4294967295 ses=5 res=1
type=SYSCALL msg=audit(1764288001.800:118): arch=c000003e syscall=1 success=yes exit=4 a0=8 a1=7ffd a2=4 a3=0 items=0 ppid=1 pid=116 auid=1000 uid=0 gid=0 euid=0 suid=0 fsuid=0 egid=0 sgid=0 fsgid=0 tty=(none) ses=5 comm="sshd" exe="/usr/sbin/sshd" key=(null)
type=DAEMON_ACCEPT msg=audit(1764288001.900:119): addr=192.0.2.9 port=60 res=success
type=TTY msg=audit(1764288002.000:120): tty pid=117 uid=0 auid=1000 ses=5 major=136 minor=1 comm="bash" data=6C730D
type=USER_CMD msg=audit(1764288002.100:121): pid=118 uid=1000 auid=1000 ses=5 msg='cwd="/home/a" cmd=6C73 exe="/usr/bin/sudo" terminal=pts/3 res=success'
type=SYSCALL msg=audit(1764288005.000:122): arch=c000003e syscall=257 success=no exit=-2 a0=ffffff9c a1=7ffd a2=0 a3=0 items=2 ppid=1 pid=119 auid=1000 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=pts3 ses=5 comm="cat" exe="/usr/bin/cat" key=6E6574016669
type=PATH msg=audit(1764288005.000:122): item=0 name="/etc/" inode=2 dev=08:01 mode=040755 ouid=0 ogid=0 rdev=00:00 nametype=PARENT
type=PATH msg=audit(1764288005.000:122): item=1 name="/etc/nope" nametype=CREATE
type=DAEMON_CLOSE msg=audit(1764288009.900:130): addr=192.0.2.10:60 res=success
EOF

logs="$tmp/edge.log $tmp/edge2.log"
. tests/cli/carried-logs.sh
carried_logs

# aureport's option for a --report KIND
aur_opt() {
	case $1 in
	summary) echo "" ;; key) echo -k ;; exe) echo -x ;; file) echo -f ;;
	auth) echo -au ;; login) echo -l ;; log) echo -t ;;
	esac
}

# compare one report: $1 log, $2 kind, $3 "--summary" or "", $4 "whole", "sel" or "rules",
# the rest: the selection or the rules file
check() {
	# SECPATH_ORACLE_EVERY=N (CI's sanitizer runs): every Nth query only
	nq=$((nq + 1))
	[ $((nq % every)) -eq 0 ] || return 0
	log=$1 kind=$2 sum=$3 how=$4; shift 4
	opt=$(aur_opt "$kind")
	case $how in
	whole)
		# shellcheck disable=SC2086
		aur --input "$log" $opt $sum >"$tmp/a"
		# shellcheck disable=SC2086
		"$bin" audit replay --report "$kind" $sum "$log" >"$tmp/s" 2>"$tmp/err" ;;
	sel)
		# shellcheck disable=SC2086
		aus -if "$log" "$@" | aur $opt $sum | sed "s|^stdin: |$log: |" >"$tmp/a"
		# shellcheck disable=SC2086
		"$bin" audit replay "$@" --report "$kind" $sum "$log" >"$tmp/s" 2>"$tmp/err" ;;
	rules)
		rm -f "$tmp/kept"
		"$bin" audit replay -R "$1" --output "$tmp/kept" "$log" >/dev/null 2>&1
		[ -f "$tmp/kept" ] || : >"$tmp/kept"
		# shellcheck disable=SC2086
		cat "$tmp/kept" | aur $opt $sum | sed "s|^stdin: |$log: |" >"$tmp/a"
		# shellcheck disable=SC2086
		"$bin" audit replay -R "$1" --report "$kind" $sum "$log" >"$tmp/s" 2>"$tmp/err" ;;
	esac
	rc=$?
	if [ "$rc" -le 1 ] && cmp -s "$tmp/a" "$tmp/s"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $(basename "$log") --report $kind $sum $how $*: (exit $rc)"
		diff "$tmp/a" "$tmp/s" | head -6
		head -2 "$tmp/err"
	fi
}

kinds="summary key exe file auth login log"
for log in $logs; do
	for k in $kinds; do
		check "$log" "$k" "" whole
		[ "$k" = log ] || check "$log" "$k" --summary whole
	done
	keys=$(grep -o 'key="[^"]*"' "$log" | sed 's/key="\(.*\)"/\1/' | sort -u | head -3)
	for key in $keys; do
		for k in $kinds; do
			check "$log" "$k" "" sel -k "$key"
			[ "$k" = log ] || check "$log" "$k" --summary sel -k "$key"
		done
	done
	for k in $kinds; do
		check "$log" "$k" "" sel -sv no
		# (not -m SYSCALL on edge2.log: ausearch splits its LOGIN-then-SYSCALL event, as
		# its reader completes a LOGIN at once, and selects the SYSCALL half alone; replay
		# keeps the event whole)
		[ "$k" = log ] || check "$log" "$k" --summary sel -m PATH,USER_LOGIN,USER_AUTH,USER_MGMT
	done
done
# time: the edge log spans 2025-11-28 .. 2025-12-01 UTC
e=$tmp/edge.log
for k in $kinds; do
	check "$e" "$k" "" sel -ts 11/29/25
	check "$e" "$k" "" sel -ts 11/29/25 -te 11/30/25 00:00:02
	[ "$k" = log ] || check "$e" "$k" --summary sel -te 11/30/25
done
# a directory is its audit.log and rotations, oldest first (aureport --input DIR; the split
# keeps each event in one file); standard input from a pipe is "stdin"
mkdir "$tmp/logs"
sed -n 1,5p "$e" >"$tmp/logs/audit.log.2"
sed -n 6,10p "$e" >"$tmp/logs/audit.log.1"
sed -n '11,$p' "$e" >"$tmp/logs/audit.log"
for k in $kinds; do
	check "$tmp/logs" "$k" "" whole
	[ "$k" = log ] || check "$tmp/logs" "$k" --summary whole
	# shellcheck disable=SC2046
	cat "$e" | aur $(aur_opt "$k") >"$tmp/a"
	cat "$e" | "$bin" audit replay --report "$k" >"$tmp/s" 2>/dev/null
	if cmp -s "$tmp/a" "$tmp/s"; then pass=$((pass + 1))
	else fail=$((fail + 1)); echo "FAIL stdin pipe --report $k"; diff "$tmp/a" "$tmp/s" | head -4; fi
done
# empty rotations around the events: the events still open at the end are the last (empty)
# input's, as aureport terminates them while it reads that one
mkdir "$tmp/logs2"
: >"$tmp/logs2/audit.log.2"
sed -n 1,4p "$e" >"$tmp/logs2/audit.log.1"
: >"$tmp/logs2/audit.log"
for k in summary log key; do
	check "$tmp/logs2" "$k" "" whole
done
# rules: each replay case's log through its rules
for r in tests/cases/replay/*.rules; do
	l=${r%.rules}.log
	case $l in *05-malformed*) continue ;; esac
	for k in $kinds; do
		check "$l" "$k" "" rules "$r"
		[ "$k" = log ] || check "$l" "$k" --summary rules "$r"
	done
done
echo "aureport: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
