#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-json.sh OUT - every --json output of OUT/secpath names its schema ("schema":
# "secpath.NAME/V") and validates against docs/json/secpath.schema.json (tests/cli/
# schema-check.py, python3-jsonschema), on success and on rejected input; positions are in the
# JSON as in the text diagnostics (line, col, end_col, or a byte offset).  The checker itself
# must refuse a document with a required member removed and one with a wrong type.
# Ends with "json: N passed, N failed".
set -u
out=${1:?usage: test-json.sh OUT}
B=$out/secpath
SCHEMA=docs/json/secpath.schema.json
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# valid NAME WANT_RC CMD...: the exit status, then the schema of stdout
valid() {
	name=$1; want=$2; shift 2
	"$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	rc=$?
	if [ "$rc" -ne "$want" ]; then bad "$* -> exit $rc, want $want: $(head -2 "$tmp/e")"; return; fi
	if python3 tests/cli/schema-check.py "$SCHEMA" "$name" <"$tmp/o" >"$tmp/why" 2>&1; then ok
	else bad "$* -> $(cat "$tmp/why")"; fi
}
# has PATTERN DESC: the last output contains PATTERN
has() { if grep -q -- "$1" "$tmp/o"; then ok; else bad "$2: no '$1' in $(head -c 300 "$tmp/o")"; fi; }

R=data/audit/rules/debian/30-stig.rules
printf -- '-w /etc/passwd -p wa -k identity\n-D\n-a always,exit -F arch=b64 -S openat,open -F auid>=1000 -k a -k b\n' >"$tmp/j.rules"
printf -- '-a always,exit -F arch=b64 -S openat -F uid=no_such_user_x -k k\n' >"$tmp/bad.rules"
E="--passwd data/audit/env/passwd --group data/audit/env/group --dirs data/audit/env/dirs"

valid audit-check 0 "$B" audit check --json $E "$R"
valid audit-check 1 "$B" audit check --json "$tmp/bad.rules"
has '"line":1,"col":41,"end_col":' "check --json: the error's line, col and end_col"
valid audit-compile 0 "$B" audit compile --json $E "$R"
valid audit-compile 1 "$B" audit compile --json "$tmp/bad.rules"
valid audit-list 0 "$B" audit list --json "$tmp/j.rules"
has '"keys":\["a","b"\]' "list --json: the keys of a rule"
has '"kind":"control","line":2,"text":"-D"' "list --json: a control line"
has '"all_syscalls":true' "list --json: a watch is every syscall"
"$B" audit compile --format bin "$tmp/j.rules" >"$tmp/j.bin"
valid audit-decode 0 "$B" audit decode --json "$tmp/j.bin"
has '"offset":1059' "decode --json: the second blob's byte offset"
head -c 1000 "$tmp/j.bin" >"$tmp/cut.bin"
valid audit-decode 1 "$B" audit decode --json "$tmp/cut.bin"
has '"offset":1000' "decode --json: the damage's byte offset"
printf -- '-a always,exit -F arch=b64 -S all -k all\n' >"$tmp/all.rules"
valid audit-replay 0 "$B" audit replay --json -R "$tmp/all.rules" tests/data/audit/logs/go-libaudit/audit-rhel6.log
valid audit-replay 1 "$B" audit replay --json -R "$tmp/all.rules" tests/cases/replay/05-malformed.log
has '"line":17,"col":0,"end_col":0,"severity":"warning"' "replay --json: the cut line's warning"
# --jobs: the "jobs" member (a kernel log repeated past the size worth cutting)
for i in 1 2 3 4 5 6 7 8; do cat tests/cases/kernel-run/stig/audit.log; done >"$tmp/k8.log"
valid audit-replay 0 "$B" audit replay --json --jobs 3 -R "$tmp/all.rules" "$tmp/k8.log"
if grep -q '"jobs":{"threads":3,' "$tmp/o"; then ok; else bad "audit replay --jobs 3 --json: no jobs member"; fi
valid audit-filter 0 "$B" audit filter --json tests/cases/audit/02-exit.rules tests/cases/audit/02-exit.events
has '"exit": {"verdict": "always", "rule": 2}' "filter --json: a verdict and its rule"
valid audit-filter 0 "$B" audit filter --json --engine ref tests/cases/audit/06-user-exclude.rules tests/cases/audit/06-user-exclude.events
valid audit-cost 0 "$B" audit cost --json -R "$R" --time-ms 0
valid audit-optimize 0 "$B" audit optimize --json -R "$R" -o "$tmp/o.rules" --time-ms 0
if "$B" audit run -R "$tmp/all.rules" --json --summary "$tmp/run.json" -- true >/dev/null 2>"$tmp/e"; then
	if python3 tests/cli/schema-check.py "$SCHEMA" audit-run <"$tmp/run.json" >"$tmp/why" 2>&1; then ok
	else bad "run --json: $(cat "$tmp/why")"; fi
elif ! grep -q "ptrace is not permitted" "$tmp/e"; then
	bad "audit run: $(head -2 "$tmp/e")"
fi

P=data/policy/debian-default.policy.33.xz
# policy diff --json: the sections' counts are their items' (every section of a setools diff
# pair; Debian's default policy against its base-only one, symbol sections)
U=tests/data/policy/upstream/setools
valid policy-diff 0 "$B" policy diff --json "$U/library_diff_left.33" "$U/library_diff_right.33"
has '"title":"Netifcons","added":1,"removed":1,"modified":3' "policy diff --json: a section's counts"
has '"change":"modified","text":"mod_both_netif (Modified Context, Modified Packet Context)","details":\["Context:","+ added_user' "policy diff --json: a modified item's details"
for o in "$U/library_diff_left.33 $U/library_diff_right.33" "--class --type --role --user --bool $P data/policy/debian-base-only.policy.33.xz"; do
	# shellcheck disable=SC2086
	valid policy-diff 0 "$B" policy diff --json $o
	if python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["sections"]:
    for c in ("added", "removed", "modified"):
        n = sum(1 for i in s["items"] if i["change"] == c)
        if n != s[c]:
            sys.exit("%s: %d %s items, header %d" % (s["title"], n, c, s[c]))
' <"$tmp/o" >"$tmp/why" 2>&1; then ok; else bad "policy diff --json counts: $(cat "$tmp/why")"; fi
done
# a TE rule item's "rule" object is its text's parts: written back, it is the text (every kind,
# conditional and modified rules of the setools pair; filename transitions of Debian's pair)
for o in "$U/library_diff_left.33 $U/library_diff_right.33" "-T --type_change --type_member $P data/policy/debian-base-only.policy.33.xz"; do
	# shellcheck disable=SC2086
	valid policy-diff 0 "$B" policy diff --json $o
	if python3 tests/cli/diff-rules-check.py <"$tmp/o" >"$tmp/why" 2>&1; then ok; else bad "policy diff --json rule objects: $(cat "$tmp/why")"; fi
done
valid policy-search 0 "$B" policy search --json -A -s passwd_t -t shadow_t -c file "$P"
has '"perms":\["append","create"' "policy search --json: permissions as a list"
valid policy-search 0 "$B" policy search --json -A -b allow_execmem "$P"
has '"conditional":{"expression":' "policy search --json: a conditional rule's expression"
valid policy-search 0 "$B" policy search --json -T -s passwd_t "$P"
valid policy-search 0 "$B" policy search --json --role_allow --role_trans -t sysadm_r "$P"
has '"kind":"role_allow","source":"staff_r","target":"sysadm_r"' "policy search --json: a role allow rule"
valid policy-search 0 "$B" policy search --json --role_trans -s sysadm_r -t acct_initrc_exec_t "$P"
has '"kind":"role_transition","source":"sysadm_r","target":"acct_initrc_exec_t","class":"process","default":"system_r"' "policy search --json: a role_transition rule"
valid policy-search 0 "$B" policy search --json --range_trans -s init_t data/policy/debian-mls.policy.33.xz
has '"kind":"range_transition","source":"init_t","target":' "policy search --json: a range_transition rule"
valid policy-info 0 "$B" policy info --json "$P"
valid policy-decide 0 "$B" policy decide --json "$P" passwd_t shadow_t file read
valid slab-stats 0 "$B" slab stats --json --size 408 --flags hwcache,colour
"$B" bench slab-spread --quick --case N=100 --json >"$tmp/o" 2>"$tmp/e"; rc=$?
head -1 "$tmp/o" >"$tmp/host"; tail -n +2 "$tmp/o" >"$tmp/lines"
if [ "$rc" -eq 0 ] && python3 tests/cli/schema-check.py "$SCHEMA" bench-host <"$tmp/host" >"$tmp/why" 2>&1 &&
   python3 tests/cli/schema-check.py "$SCHEMA" bench <"$tmp/lines" >>"$tmp/why" 2>&1; then ok
else bad "bench --json: exit $rc $(cat "$tmp/why")"; fi
valid bench-list 0 "$B" bench --list --json
# the stream suite's own figures: every event laurel's format writes (and cat relays) is timed,
# one warm-up and one round of 10000 events each; the raw variant times only what its rules keep
"$B" bench stream --reps 1 --json >"$tmp/o" 2>"$tmp/e"; rc=$?
tail -n +2 "$tmp/o" | grep -v '"secpath.bench-target/1"' >"$tmp/lines"
if [ "$rc" -eq 0 ] && python3 tests/cli/schema-check.py "$SCHEMA" bench <"$tmp/lines" >"$tmp/why" 2>&1 &&
   python3 - "$tmp/lines" >>"$tmp/why" 2>&1 <<'PY'; then ok
import json, sys
fig = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("over") == "every op":
        fig[(o["variant"], o["metric"])] = o["median"]
timed = lambda v: fig[(v, "events-timed")]
assert timed("stream --format laurel") == 20000, fig
assert timed("cat (relay floor)") == 20000, fig
assert 0 < timed("stream raw -R") < 20000, fig
for v in ("stream raw -R", "stream --format laurel", "cat (relay floor)"):
    assert 0 < fig[(v, "latency-p50")] <= fig[(v, "latency-p99")], (v, fig)
PY
else bad "bench stream --json: exit $rc $(cat "$tmp/why" "$tmp/e")"; fi
# the issues' targets: after the figures, one object per target whose case ran, its verdict the
# text report's; judged where mimalloc loaded (a dependency; ASan builds skip it), the value its
# ratio; not judged, with no value, where it was skipped
"$B" bench slab --quick --case hot-64 --json >"$tmp/o" 2>"$tmp/e"; rc=$?
grep '"secpath.bench-target/1"' "$tmp/o" >"$tmp/targets"
"$B" bench slab --quick --case hot-64 >"$tmp/text" 2>>"$tmp/e"
if [ "$rc" -eq 0 ] && python3 tests/cli/schema-check.py "$SCHEMA" bench-target <"$tmp/targets" >"$tmp/why" 2>&1 &&
   python3 - "$tmp/targets" "$tmp/o" "$tmp/text" >>"$tmp/why" 2>&1 <<'PY'; then ok
import json, sys
t = [json.loads(l) for l in open(sys.argv[1])]
assert [(o["case"], o["variant"], o["of"]) for o in t] == \
    [("hot-64", "init-off", "mimalloc"), ("hot-64", "both-init", "mimalloc")], t
med, skipped = {}, set()
for line in open(sys.argv[2]):
    o = json.loads(line)
    if o["schema"] == "secpath.bench/1" and o["metric"] == "ns/op":
        if "median" in o:
            med[o["variant"]] = o["median"]
        else:
            skipped.add(o["variant"])
for o in t:
    assert o["kind"] == "ratio", o
    if "mimalloc" in skipped:
        assert o["verdict"] == "not judged" and o["value"] is None, o
        assert o["text"] == "not measured (mimalloc skipped)", o
        continue
    assert o["verdict"] != "not judged", o
    r = med[o["variant"]] / med["mimalloc"]
    assert abs(o["value"] - r) <= 1e-3 * r, (o, r)
    assert o["verdict"] == ("met" if o["value"] <= o["limit"] else "not met"), o
text = open(sys.argv[3]).read()
assert "\ntargets (" in text and "judged targets met in this run" in text, text
PY
else bad "bench --json targets: exit $rc $(cat "$tmp/why" "$tmp/e")"; fi
# the checker refuses what it should
"$B" audit check --json "$tmp/bad.rules" 2>/dev/null | sed 's/"warnings":[0-9]*,//' >"$tmp/o"
if python3 tests/cli/schema-check.py "$SCHEMA" <"$tmp/o" >/dev/null 2>&1; then bad "checker: a missing member passed"; else ok; fi
"$B" audit check --json "$tmp/bad.rules" 2>/dev/null | sed 's/"col":41/"col":"41"/' >"$tmp/o"
if python3 tests/cli/schema-check.py "$SCHEMA" <"$tmp/o" >/dev/null 2>&1; then bad "checker: a wrong type passed"; else ok; fi
echo '{"files":[]}' >"$tmp/o"
if python3 tests/cli/schema-check.py "$SCHEMA" <"$tmp/o" >/dev/null 2>&1; then bad "checker: no schema member passed"; else ok; fi
echo "json: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
