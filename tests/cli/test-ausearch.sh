#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-ausearch.sh [OUT] - `secpath audit replay`'s ausearch options against ausearch 3.0.9
# itself (Debian's auditd package, extracted by scripts/get-audit-tools.sh, never installed).
# For every log and every query: the records `ausearch --raw -if LOG QUERY` prints and the
# records `secpath audit replay QUERY --output F LOG` keeps must be the same lines (sorted:
# ausearch prints events as they complete, secpath in file order).  Logs: the bundled real logs
# (go-libaudit, tests/cases/replay) and tests/data/audit/logs/edge/ausearch-edge.log (the
# shapes ausearch's parsers treat apart: its README).  Queries: every key, substrings with and
# without -w, every record type alone and in lists, syscalls by number and name, -ts/-te with
# dates, times and keywords, every pid, ppid, uid, euid, gid, egid, login uid, session, exit,
# comm, terminal, host, node, context, exe (with -w) and event id found in the log, user and
# group names, -sv yes/no, and combinations.  TZ=UTC and LC_ALL=C for both tools.
# Ends with "ausearch: N passed, N failed"; ausearch that cannot be fetched fails the group.
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
audit_tools ausearch fail
aus() { ausearch_tool --raw "$@"; }

# The edge log (tests/data/audit/logs/edge/README.md): 2025-11-28 .. 2025-12-01 UTC.
cp tests/data/audit/logs/edge/ausearch-edge.log "$tmp/edge.log"

logs="$tmp/edge.log"
. tests/cli/carried-logs.sh
carried_logs
# real kernel records with their EOE (the kernel harness's netlink capture): an EOE that comes
# after its event's PROCTITLE is kept or dropped with that event, as ausearch's event holds it
logs="$logs tests/cases/kernel-run/stig/audit.log"


# one query on one log
check() {
	# SECPATH_ORACLE_EVERY=N (CI's sanitizer runs): every Nth query only
	nq=$((nq + 1))
	[ $((nq % every)) -eq 0 ] || return 0
	log=$1; shift
	# ausearch --raw ends every record of an ENRICHED event with 0x1D, even one that had none
	aus -if "$log" "$@" | sed 's/\x1d$//' | sort >"$tmp/a"
	rm -f "$tmp/s"
	"$bin" audit replay "$@" --output "$tmp/s" "$log" >/dev/null 2>"$tmp/err"
	rc=$?
	[ -f "$tmp/s" ] && sort "$tmp/s" >"$tmp/s2" || : >"$tmp/s2"
	if [ "$rc" -le 1 ] && cmp -s "$tmp/a" "$tmp/s2"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $(basename "$log") $*: ausearch $(wc -l <"$tmp/a") lines, secpath $(wc -l <"$tmp/s2") (exit $rc)"
		diff "$tmp/a" "$tmp/s2" | head -4
		head -2 "$tmp/err"
	fi
}

for log in $logs; do
	keys=$(grep -o 'key="[^"]*"' "$log" | sed 's/key="\(.*\)"/\1/' | sort -u)
	for k in $keys access ident null audit_rules _rul; do
		check "$log" -k "$k"
		check "$log" -k "$k" -w
	done
	# record types libaudit names (UNKNOWN[1329] is a number to it)
	types=$(sed -n 's/^\(node=[^ ]* \)\{0,1\}type=\([A-Z_0-9]*\) .*/\2/p' "$log" | grep -v '^UNKNOWN$' | sort -u)
	for t in $types; do
		check "$log" -m "$t"
	done
	check "$log" -m "$(echo $types | tr ' ' ',')"
	check "$log" -m SYSCALL,PATH
	check "$log" -m 1300
	for sc in $(grep -o ' syscall=[0-9]*' "$log" | cut -d= -f2 | sort -u) 0 257; do
		check "$log" -sc "$sc"
	done
	check "$log" -sc openat
	check "$log" -sc read
	check "$log" -k identity -sc openat
	for sv in yes no; do
		check "$log" -sv "$sv"
	done
	for p in $(grep -o '[ (]pid=[0-9]*' "$log" | cut -d= -f2 | sort -u | head -8) 1; do
		check "$log" -p "$p"
	done
	for p in $(grep -o 'ppid=[0-9]*' "$log" | cut -d= -f2 | sort -u | head -6); do
		check "$log" -pp "$p"
	done
	for u in $(grep -o ' uid=[0-9]*' "$log" | cut -d= -f2 | sort -u | head -6) 4294967295; do
		check "$log" -ui "$u"
	done
	for u in $(grep -o ' auid=[0-9]*' "$log" | cut -d= -f2 | sort -u | head -6) -1; do
		check "$log" -ul "$u"
	done
	for x in $(grep -o 'exe="[^"]*"' "$log" | sed 's/exe="\(.*\)"/\1/' | sort -u | head -6) sh bin /nonexistent; do
		check "$log" -x "$x"
		check "$log" -x "$x" -w
	done
	for a in $(grep -o 'msg=audit([0-9.]*:[0-9]*' "$log" | cut -d: -f2 | sort -u | head -6); do
		check "$log" -a "$a"
	done
	for f in $(grep -o ' name="[^"]*"\| cwd="[^"]*"\| path="[^"]*"' "$log" | sed 's/.*="\(.*\)"/\1/' | sort -u | head -8) / etc passwd .. /nonexistent; do
		check "$log" -f "$f"
		check "$log" -f "$f" -w
	done
	check "$log" -sv no -ui 0
	for u in $(vals ' euid=[0-9]*'); do check "$log" -ue "$u"; done
	for u in $(vals ' uid=[0-9]*' 4) $(vals ' auid=[0-9]*' 4); do check "$log" -ua "$u"; done
	for g in $(vals ' gid=[0-9]*') 1005; do check "$log" -gi "$g"; done
	for g in $(vals ' egid=[0-9]*'); do check "$log" -ge "$g"; check "$log" -ga "$g"; done
	for x in $(vals ' ses=[0-9]*') -1; do check "$log" --session "$x"; done
	for x in $(vals ' exit=-*[0-9]*') EACCES -EACCES -ENOENT 0x3; do check "$log" -e "$x"; done
	for c in $(vals ' comm="[^"]*"') vi 6D7367 msg; do check "$log" --comm "$c"; check "$log" --comm "$c" -w; done
	for t in $(vals ' tty=[^ ]*') $(vals 'terminal=[^ )]*' 4) pts none; do check "$log" -tm "$t"; done
	for h in $(vals 'hostname=[^ ,]*' 4) $(vals ' addr=[^ ,]*' 4) 192.168.0.1 2001:db8::1 10.9.8.7 192.168.0.9 h; do
		check "$log" -hn "$h"; check "$log" -hn "$h" -w
	done
	for n in $(vals '^node=[^ ]*' 3) web nosuch; do check "$log" -n "$n"; done
	check "$log" -vm guest1; check "$log" -vm guest; check "$log" -uu 1234-abcd; check "$log" -uu 1234
	for c in $(vals 'subj=[^ ]*' 4) $(vals 'scontext=[^ ]*' 3) $(vals 'tcontext=[^ ]*' 3) $(vals ' obj=[^ ]*' 3) _t shadow svirt; do
		check "$log" -su "$c"; check "$log" -o "$c"; check "$log" -se "$c"; check "$log" -se "$c" -w
	done
	check "$log" -su user_t -o shadow_t
	check "$log" -su nosuch_t -o shadow_t
	for u in root; do
		check "$log" -ui "$u"; check "$log" -ue "$u"; check "$log" -ul "$u"; check "$log" -ua "$u"
		check "$log" -gi "$u"; check "$log" -ge "$u"; check "$log" -ga "$u"
	done
	check "$log" -ui root -ue 0
	check "$log" -ua 1000 -ga 1000 -sv yes
	check "$log" -ul 1000 -sv yes -m SYSCALL,USER_LOGIN
done
# time: the edge log spans 2025-11-28 .. 2025-12-01 UTC
e=$tmp/edge.log
check "$e" -ts 11/29/25
check "$e" -ts 11/29/25 00:00:01
check "$e" -ts 00:00:01 11/29/25
check "$e" -te 11/29/25 00:00:00
check "$e" -ts 11/29/25 -te 11/30/25 00:00:02
check "$e" -ts 11/28/25 00:00:01 -te 11/30/25 23:59
check "$e" -ts this-year
check "$e" -ts this-month
check "$e" -te yesterday
check "$e" -ts 12/01/25 -k access
check "$e" -ts 11/30/25 -m AVC,SECCOMP
for f in /run/syste abstract notes /home/u/./notes.txt "hex file" /var/log /opt null; do
	check "$e" -f "$f"
done
# the inputs as ausearch takes them: a directory is audit.log.N .. audit.log.1, audit.log (its
# rotations, oldest first; the split here keeps each event in one file); no LOG and a pipe is stdin
mkdir "$tmp/logs"
sed -n 1,5p "$e" >"$tmp/logs/audit.log.2"
sed -n 6,10p "$e" >"$tmp/logs/audit.log.1"
sed -n '11,$p' "$e" >"$tmp/logs/audit.log"
for q in "-k identity" "-m CONFIG_CHANGE,SYSCALL" "-sv yes" "-ts 11/29/25"; do
	# shellcheck disable=SC2086
	check "$tmp/logs" $q
	# shellcheck disable=SC2086
	cat "$e" | aus $q | sed 's/\x1d$//' | sort >"$tmp/a"
	# shellcheck disable=SC2086
	cat "$e" | "$bin" audit replay $q --output "$tmp/s" >/dev/null 2>&1
	if sort "$tmp/s" | cmp -s - "$tmp/a"; then pass=$((pass + 1))
	else fail=$((fail + 1)); echo "FAIL stdin pipe $q"; fi
done
# the directory's files were read oldest first (the edge log's serials rise through the file)
"$bin" audit replay -ts 11/01/25 --output "$tmp/s" "$tmp/logs" >/dev/null 2>&1
sed 's/.*msg=audit([0-9.]*:\([0-9]*\)).*/\1/' "$tmp/s" >"$tmp/serials"
if [ "$(wc -l <"$tmp/s")" -eq "$(aus -if "$tmp/logs" -ts 11/01/25 | wc -l)" ] &&
   [ -s "$tmp/s" ] && sort -n "$tmp/serials" | cmp -s - "$tmp/serials"; then
	pass=$((pass + 1))
else
	fail=$((fail + 1)); echo "FAIL directory: not read oldest first"
fi
# no LOG and no pipe: auditd's log (auditd.conf's log_file, else /var/log/audit/audit.log)
if [ ! -e /etc/audit/auditd.conf ] && [ ! -e /var/log/audit/audit.log ]; then
	"$bin" audit replay -k x </dev/null >/dev/null 2>"$tmp/err"; rc=$?
	if [ "$rc" -eq 1 ] && grep -q "cannot read '/var/log/audit/audit.log'" "$tmp/err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL no LOG: exit $rc, $(head -1 "$tmp/err")"
	fi
fi
# both refuse what ausearch refuses
for q in "-m NOSUCH" "-sc nosuchcall" "-ts 13/45/25" "-ts 11/29/25 25:00" "-ui nosuchuser1" \
	"-ua nosuchuser1" "-ge nosuchgroup1" "-e ENOSUCH" "--session x1"; do
	# shellcheck disable=SC2086
	if ! aus -if "$e" $q >/dev/null && ! "$bin" audit replay $q "$e" >/dev/null 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)); echo "FAIL $q: one of the tools accepted it"
	fi
done
echo "ausearch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
