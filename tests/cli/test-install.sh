#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-install.sh OUT - the installed tool is the product: `make install PREFIX=$tmp/p` of the
# variant OUT, then the installed secpath run from another directory (never the tree) finds its
# bundled data (rule sets, syscall mixes, policies) under PREFIX/share/secpath, or under
# $SECPATH_DATADIR when set; the LD_PRELOAD allocator and the man pages are installed; a
# missing data directory is an error that says where it looked; `make uninstall` removes it all.
# Ends with "install: N passed, N failed".
set -u
out=${1:?usage: test-install.sh OUT}
variant=$(basename "$out")
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }
san=""
[ "$variant" = asan ] && san="SAN=asan"
[ "$variant" = debug ] && san="DEBUG=3"
p=$tmp/p
if make --no-print-directory $san install PREFIX="$p" DESTDIR= >"$tmp/log" 2>&1; then ok; else
	bad "make install: $(tail -5 "$tmp/log")"; echo "install: $pass passed, $fail failed"; exit 1; fi
S=$p/bin/secpath
D=$p/share/secpath
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
check "data: rule sets installed" test -f "$D/audit/rules/debian/30-stig.rules"
check "data: syscall mixes installed" test -f "$D/syscall-mix/build.tsv"
check "data: policies installed" test -f "$D/policy/debian-default.policy.33.xz"
check "data: licence notes installed" test -f "$D/audit/rules/thirdparty/README.md"
check "the LD_PRELOAD allocator installed" test -f "$p/lib/secpath/libsecpath-malloc.so"
check "man pages installed" test -f "$p/share/man/man1/secpath-audit.1"
check "the allocator runs a program" sh -c "LD_PRELOAD='$p/lib/secpath/libsecpath-malloc.so' /bin/true"

# audit cost with the bundled mixes, from another directory
"$S" audit cost -R "$D/audit/rules/debian/30-stig.rules" --time-ms 0 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "installed audit cost: exit 0 ($rc: $(head -2 "$tmp/e"))" test "$rc" -eq 0
check "installed audit cost: the bundled mixes are blended" grep -q '^  mix build.tsv' "$tmp/o"
# the same figures as the tree's binary
tree=$(cd "$OLDPWD" && pwd)
(cd "$tree" && "$tree/$out/secpath" audit cost -R data/audit/rules/debian/30-stig.rules --time-ms 0) >"$tmp/o2" 2>/dev/null
sed 1d "$tmp/o" >"$tmp/o.tail"; sed 1d "$tmp/o2" >"$tmp/o2.tail"
check "installed and tree audit cost agree" cmp -s "$tmp/o.tail" "$tmp/o2.tail"
# audit optimize's default profile is the bundled build mix, whatever the directory
"$S" audit optimize -R "$D/audit/rules/debian/30-stig.rules" -o "$tmp/o.rules" --time-ms 0 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "installed audit optimize: exit 0 ($rc: $(head -2 "$tmp/e"))" test "$rc" -eq 0
check "installed audit optimize: weighted by the build mix (6.32 checks)" grep -q 'field checks per syscall:   6.32' "$tmp/o"
check "installed audit optimize: no unweighted warning" sh -c "! grep -q 'weighs the same' '$tmp/e'"
"$S" audit optimize -R "$D/audit/rules/debian/30-stig.rules" -o "$tmp/o.rules" --mix git --time-ms 0 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "installed audit optimize --mix NAME: a bundled profile by name" test "$rc" -eq 0
"$S" policy info "$D/policy/debian-default.policy.33.xz" >"$tmp/o" 2>"$tmp/e"; rc=$?
check "installed policy info on the bundled policy" test "$rc" -eq 0
# the installed bench measures with the installed data, from another directory
"$S" bench --quick >"$tmp/o" 2>"$tmp/e"; rc=$?
check "installed bench --quick: exit 0 ($rc: $(grep -i 'error\|skipped' "$tmp/e" | head -2))" test "$rc" -eq 0
check "installed bench --quick: no variant skipped for a missing file" sh -c "! grep -q 'skipped: /' '$tmp/e'"
check "installed bench --quick: the audit suite measured" grep -q '^  audit ' "$tmp/o"
mkdir "$tmp/empty"
SECPATH_DATADIR=$tmp/empty "$S" bench audit --quick --case stig/getpid >"$tmp/o" 2>"$tmp/e"; rc=$?
check "bench without its data: exit 1" test "$rc" -eq 1
check "bench without its data: names the missing file" grep -q "skipped: $tmp/empty/audit/" "$tmp/e"
# SECPATH_DATADIR moves the data; a missing one is an error naming it
cp -r "$D" "$tmp/moved"
SECPATH_DATADIR=$tmp/moved "$S" audit cost -R "$D/audit/rules/debian/30-stig.rules" --time-ms 0 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "SECPATH_DATADIR: used" test "$rc" -eq 0
SECPATH_DATADIR=$tmp/nosuch "$S" audit cost -R "$D/audit/rules/debian/30-stig.rules" --time-ms 0 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "SECPATH_DATADIR missing: exit 1" test "$rc" -eq 1
check "SECPATH_DATADIR missing: says so" grep -q "SECPATH_DATADIR '$tmp/nosuch' is not a directory" "$tmp/e"
mv "$D" "$tmp/hidden"
"$S" audit cost -R "$tmp/hidden/audit/rules/debian/30-stig.rules" --time-ms 0 >"$tmp/o" 2>"$tmp/e"; rc=$?
check "no data directory: exit 1" test "$rc" -eq 1
check "no data directory: says where it looked" grep -q "cannot find the bundled data" "$tmp/e"
mv "$tmp/hidden" "$D"
cd "$tree" || exit 1
make --no-print-directory $san uninstall PREFIX="$p" DESTDIR= >"$tmp/log" 2>&1
left=$(find "$p" -type f | head -5)
check "make uninstall leaves no file ($left)" test -z "$left"
echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
