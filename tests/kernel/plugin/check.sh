#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check.sh OUTDIR [SECPATH] — judge a plugin-case run (run-plugin.sh): every event of the
# kernel's audit.log (written by auditd) is accounted for in the plugin's output stream.log.
# What each rule set keeps is what `secpath audit replay -R a.rules|b.rules` keeps of audit.log;
# an event both sets keep must be in stream.log, one neither keeps must not; one only a set keeps
# is a generation's mkdir or rmdir (/w/G.J), in stream.log exactly when generation G's set
# (reloads.txt) keeps it, and there are six of those a generation.  auditd's own DAEMON_CONFIG
# records (one a SIGHUP) are in its log and never reach a plugin: counted, not accounted.  stream.log's records are audit.log's, byte for byte (but EOE); the plugin said
# every reload and refused none.  RELOADS (default 100) reloads are expected.  Exit 0 or 1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
d=$1
sp=${2:-$here/../../../out/release/secpath}
n=${RELOADS:-100}
fail() { echo "plugin check: FAIL: $*" >&2; exit 1; }
for f in audit.log stream.log stream.err reloads.txt auditctl-s-after.txt; do
	[ -f "$d/$f" ] || fail "no $f in the run's outputs"
done
[ "$(wc -l < "$d/reloads.txt")" -eq "$n" ] || fail "$(wc -l < "$d/reloads.txt") reloads done, not $n"
[ "$(grep -c ': reloaded ' "$d/stream.err")" -eq "$n" ] || fail "the plugin said $(grep -c ': reloaded ' "$d/stream.err") reloads, not $n"
! grep -q ': reload of .* refused' "$d/stream.err" || fail "a reload was refused: $(grep ': reload of' "$d/stream.err" | head -1)"
grep -q ' reloads (0 refused)$' "$d/stream.err" || fail "the plugin printed no final counts"
! grep -q 'records were lost' "$d/audit.log" || fail "the kernel lost records"
grep -q '^lost 0$' "$d/auditctl-s-after.txt" || fail "the kernel lost records: $(grep '^lost' "$d/auditctl-s-after.txt")"
# the records the plugin wrote are the kernel's (but EOE: auditd passes it to its plugins and
# does not write it to its log)
awk 'NR == FNR { k[$0] = 1; next } !($0 in k) && !/^type=EOE / { print "plugin check: not in audit.log: " $0; bad = 1 }
	END { exit bad }' "$d/audit.log" "$d/stream.log" >&2 || fail "stream.log has records audit.log has not"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT INT TERM
for s in a b; do
	"$sp" audit replay -R "$here/$s.rules" --output "$t/$s.log" "$d/audit.log" > "$t/$s.out" 2>&1 ||
		{ cat "$t/$s.out" >&2; fail "secpath audit replay -R $s.rules failed"; }
done
awk -v n="$n" -v gens="$d/reloads.txt" -v fa="$t/a.log" -v fb="$t/b.log" -v fs="$d/stream.log" '
	function stamp(l) { sub(/^.*msg=audit\(/, "", l); sub(/\).*/, "", l); return l }
	BEGIN { while ((getline l < gens) > 0) { split(l, f, " "); set[f[1]] = f[2] } }
	FILENAME == fa { a[stamp($0)] = 1; next }
	FILENAME == fb { b[stamp($0)] = 1; next }
	FILENAME == fs { s[stamp($0)] = 1; next }
	/^type=DAEMON_CONFIG / { reconf++; next }	# auditd logs it, passes it to no plugin
	{	e = stamp($0)
		if (!(e in seen)) { seen[e] = 1; order[++ne] = e }
		if (match($0, / name="\/w\/[0-9]+\.[0-9]+"/)) {
			g = substr($0, RSTART + 10); sub(/\..*/, "", g); gen[e] = g }
	}
	END {
		for (i = 1; i <= ne; i++) {
			e = order[i]; ia = e in a; ib = e in b; is = e in s
			if (ia && ib) { want = 1; both++ }
			else if (!ia && !ib) { want = 0; neither++ }
			else if (!(e in gen) || !(gen[e] in set)) {
				printf "plugin check: event %s: kept by set %s only, and of no generation\n",
					e, ia ? "a" : "b"; bad++; continue
			} else { want = set[gen[e]] == "a" ? ia : ib; bygen++; if (want) genkept++ }
			if (is != want) {
				printf "plugin check: event %s: %s by the plugin, the set in use %s it\n",
					e, is ? "kept" : "dropped", want ? "keeps" : "drops"; bad++
			}
			kept += is
		}
		printf "plugin check: %d kernel events: %d kept by both sets, %d by neither, %d decided " \
			"by the generation'"'"'s set (%d kept); %d in the plugin'"'"'s output; %d wrong\n",
			ne, both, neither, bygen, genkept, kept, bad
		if (reconf != n)
			printf "plugin check: auditd reconfigured %d times, not %d\n", reconf, n
		if (bygen != 6 * n)
			printf "plugin check: %d events decided by a generation'"'"'s set, not %d\n", bygen,
				6 * n
		exit bad > 0 || bygen != 6 * n || reconf != n
	}' "$t/a.log" "$t/b.log" "$d/stream.log" "$d/audit.log" || fail "events decided otherwise"
echo "plugin check: ok — $n reloads, every kernel event accounted for; $(tail -1 "$d/stream.err")"
