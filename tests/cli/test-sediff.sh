#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-sediff.sh [OUT] - `secpath policy diff` against sediff (setools 4.4) itself, section by
# section.  For every pair: both tools run with every section option secpath implements
# (--common --class --bool --role --type --attribute --user --allow --allowxperm --neverallow
# --neverallowxperm --auditallow --auditallowxperm --dontaudit --dontauditxperm
# --type_trans --type_change --type_member --role_allow --role_trans --range_trans --polcap
# --property --initialsid --ibendportcon --ibpkeycon --fs_use --genfscon --netifcon --nodecon
# --portcon --default --typebounds --category --sensitivity --level --constrain --mlsconstrain
# --validatetrans --mlsvalidatetrans; the TE rule sections on one Debian pair only); each
# output is cut at sediff's section headers ("Classes (N Added, N Removed, N Modified)") and
# each section must be the same text after whitespace normalisation (runs of blanks as one
# space, none at line ends; a modified rule's permissions sorted within +, - and unsigned; a
# constraint's name sets sorted, and the constraint lines of a list sorted):
# one PASS or FAIL line per pair and section.  For the small pairs the option-less output is
# compared too: secpath's against sediff's sections that secpath implements, in sediff's order,
# and for Debian's default against its MLS policy (the other Debian pairs take sediff minutes).
# Pairs: Debian's default policy against its base-only and its MLS policy, both ways; the
# setools diff test policies (left against right, right_rmisid, left_standard, and
# left_standard against left_redundant); every upstream test policy against the next one;
# tiny.30 .. tiny.33 and compat.15 .. compat.33 each against the next; tiny.conf against itself
# with its booleans' defaults flipped, and with types whose names' order is not their lines'
# (when checkpolicy is installed).  A pair sediff itself
# cannot diff (setools crashes on some old policy versions) is skipped with a message.
# Ends with "sediff: N passed, N failed"; without sediff the group is skipped (0 passed).
set -u
out=${1:-out/release}
bin=$(cd "$out" && pwd)/secpath
sediff=${SEDIFF:-$(command -v sediff)}
pass=0
fail=0
skip=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
sym="--common --class --bool --role --type --attribute --user"
te="--allow --allowxperm --neverallow --neverallowxperm --auditallow --auditallowxperm"
te="$te --dontaudit --dontauditxperm --type_trans --type_change --type_member"
rbac="--role_allow --role_trans --range_trans --polcap --property --initialsid --ibendportcon"
rbac="$rbac --ibpkeycon --fs_use --genfscon --netifcon --nodecon --portcon --default --typebounds"
rbac="$rbac --category --sensitivity --level --constrain --mlsconstrain --validatetrans"
rbac="$rbac --mlsvalidatetrans"
opts="$sym $te $rbac"
titles="Commons|Classes|Booleans|Roles|Types|Type Attributes|Users|Allow Rules|Auditallow Rules"
titles="$titles|Dontaudit Rules|Type_transition Rules|Type_change Rules|Type_member Rules"
titles="$titles|Allowxperm Rules|Auditallowxperm Rules|Dontauditxperm Rules|Neverallow Rules"
titles="$titles|Neverallowxperm Rules"
titles="$titles|Role allow Rules|Role_transition Rules|Range_transition Rules"
titles="$titles|Policy Capabilities|Policy Properties|Initial SIDs|Ibendportcons|Ibpkeycons"
titles="$titles|Fs_use|Genfscons|Netifcons|Nodecons|Portcons|Defaults|Typebounds"
titles="$titles|Categories|Sensitivities|Levels|Constraints|MLS Constraints|Validatetrans"
titles="$titles|MLS Validatetrans"

if [ -z "$sediff" ] || [ ! -x "$sediff" ]; then
	echo "sediff not found (apt-get install setools): skipped"
	echo "sediff: 0 passed, 0 failed"
	exit 0
fi

# norm FILE: blanks normalised; a modified rule's permissions sorted within their groups
# (common, +added, -removed): sediff prints them in a Python set's order, which changes from
# run to run; so it prints a constraint's name sets (and sorts the constraints by that text):
# each "{ ... }" of a constraint line sorted, and each run of constraint lines sorted
norm() {
	sed 's/[[:space:]][[:space:]]*/ /g; s/ $//' "$1" | awk '
	function isort(v, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	}
	function sets(line,   out, a, b, inner, nt, tok, i) {
		out = ""
		while ((a = index(line, "{ ")) > 0 && (b = index(substr(line, a), " }")) > 0) {
			inner = substr(line, a + 2, b - 3)
			nt = split(inner, tok, " ")
			isort(tok, nt)
			out = out substr(line, 1, a + 1)
			for (i = 1; i <= nt; i++) out = out (i > 1 ? " " : "") tok[i]
			line = substr(line, a + b - 1)
		}
		return out line
	}
	function flush(   i) {
		isort(run, nrun)
		for (i = 1; i <= nrun; i++) print run[i]
		nrun = 0
	}
	/^ [+-] (mls)?(constrain|validatetrans) / { run[++nrun] = sets($0); next }
	nrun { flush() }
	END { flush() }
	function sortg(pre,   i, j, k, n, out, t) {
		n = 0
		for (i = 1; i <= nt; i++) {
			t = tok[i]; k = substr(t, 1, 1)
			if ((pre == "" && k != "+" && k != "-") || k == pre) g[++n] = t
		}
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && g[j - 1] > g[j]; j--) { t = g[j]; g[j] = g[j - 1]; g[j - 1] = t }
		out = ""
		for (i = 1; i <= n; i++) out = out " " g[i]
		return out
	}
	/^ \* [a-z]+ .*\{ .* \};/ {
		a = index($0, "{ "); b = index($0, " };")
		nt = split(substr($0, a + 2, b - a - 2), tok, " ")
		$0 = substr($0, 1, a) sortg("") sortg("+") sortg("-") substr($0, b)
	}
	{ print }'
}

# split FILE DIR: one file per section of FILE, named by its title (DIR/list: the titles)
split_sections() {
	mkdir -p "$2"
	norm "$1" | awk -v d="$2" '
		/^[A-Z][A-Za-z_ ]* \([0-9]+ (Added|Modified)/ {
			t = $0; sub(/ \(.*/, "", t); gsub(/ /, "_", t)
			f = d "/" t; print t > (d "/list")
		}
		f != "" { print > f }'
	touch "$2/list"
}

# pair NAME A B [OPTIONS]: the section options' outputs of both tools, section by section
pair() {
	name=$1 o=${4:-$opts}
	if ! "$sediff" $o "$2" "$3" >"$tmp/s.txt" 2>"$tmp/s.err"; then
		skip=$((skip + 1))
		echo "SKIP $name: sediff fails on it ($(head -c 100 "$tmp/s.err" | head -1))"
		return
	fi
	rm -rf "$tmp/s" "$tmp/p"
	if ! "$bin" policy diff $o "$2" "$3" >"$tmp/p.txt" 2>"$tmp/p.err"; then
		fail=$((fail + 1)); echo "FAIL $name: secpath: $(head -1 "$tmp/p.err")"
		return
	fi
	split_sections "$tmp/s.txt" "$tmp/s"
	split_sections "$tmp/p.txt" "$tmp/p"
	for t in $(cat "$tmp/s/list"); do
		if [ -f "$tmp/p/$t" ] && cmp -s "$tmp/s/$t" "$tmp/p/$t"; then
			pass=$((pass + 1)); echo "PASS $name $t ($(wc -l <"$tmp/s/$t") lines)"
		else
			fail=$((fail + 1)); echo "FAIL $name $t"
			[ -f "$tmp/p/$t" ] && diff "$tmp/s/$t" "$tmp/p/$t" | head -10
		fi
	done
	if ! cmp -s "$tmp/s/list" "$tmp/p/list"; then
		fail=$((fail + 1)); echo "FAIL $name: sections $(cat "$tmp/p/list" | tr '\n' ' ')"
	fi
}

# whole NAME A B: the option-less outputs, sediff's reduced to the sections secpath has
whole() {
	name=$1
	"$sediff" "$2" "$3" >"$tmp/w.txt" 2>/dev/null || return
	"$bin" policy diff "$2" "$3" >"$tmp/wp.txt" 2>&1
	norm "$tmp/w.txt" | awk -v re="^($titles) \\\\(" '
		/^[A-Z][A-Za-z_ ]* \([0-9]+ (Added|Modified)/ { keep = ($0 ~ re) }
		keep' >"$tmp/ws.txt"
	if norm "$tmp/wp.txt" | cmp -s - "$tmp/ws.txt"; then
		pass=$((pass + 1)); echo "PASS $name (no options, $(wc -l <"$tmp/ws.txt") lines)"
	else
		fail=$((fail + 1)); echo "FAIL $name (no options)"
		norm "$tmp/wp.txt" | diff "$tmp/ws.txt" - | head -10
	fi
}

for p in debian-default debian-base-only debian-mls; do
	xz -dc "data/policy/$p.policy.33.xz" >"$tmp/$p.33"
done
# sediff takes minutes over the rules of Debian's policies: one pair compares them, and
# under SECPATH_ORACLE_EVERY (CI's sanitizer and assertion runs) only their symbol sections
if [ "${SECPATH_ORACLE_EVERY:-1}" -gt 1 ]; then
	pair default-base "$tmp/debian-default.33" "$tmp/debian-base-only.33" "$sym $rbac"
else
	pair default-base "$tmp/debian-default.33" "$tmp/debian-base-only.33"
fi
pair base-default "$tmp/debian-base-only.33" "$tmp/debian-default.33" "$sym $rbac"
pair default-mls "$tmp/debian-default.33" "$tmp/debian-mls.33" "$sym $rbac"
pair mls-default "$tmp/debian-mls.33" "$tmp/debian-default.33" "$sym $rbac"
# the option-less run on default vs MLS (sediff: about 30 s and 1.3 GB here), outside CI's
# sanitizer and assertion runs
[ "${SECPATH_ORACLE_EVERY:-1}" -gt 1 ] || whole default-mls "$tmp/debian-default.33" "$tmp/debian-mls.33"
# default vs base-only, whole (4.2 million lines; sediff about 4 minutes and 5.3 GB here): only
# when asked, SECPATH_SEDIFF_WHOLE=all
[ "${SECPATH_SEDIFF_WHOLE:-}" != all ] ||
	whole default-base "$tmp/debian-default.33" "$tmp/debian-base-only.33"

u=tests/data/policy/upstream
L=$u/setools/library_diff_left
for r in diff_right diff_right_rmisid diff_left_standard; do
	pair "left-$r" "$L.33" "$u/setools/library_$r.33"
	whole "left-$r" "$L.33" "$u/setools/library_$r.33"
	pair "$r-left" "$u/setools/library_$r.33" "$L.33"
done
pair standard-redundant "${L}_standard.33" "${L}_redundant.33"
whole standard-redundant "${L}_standard.33" "${L}_redundant.33"

# each policy against the next one: most pairs differ in every section
prev=
for f in $u/*/*.33 $u/libsepol/policy.bin tests/data/policy/tiny.3? tests/data/policy/compat.??; do
	[ -n "$prev" ] && pair "$(basename "$prev")-$(basename "$f")" "$prev" "$f"
	prev=$f
done
whole tiny-policy.bin tests/data/policy/tiny.33 $u/libsepol/policy.bin

# booleans flipped: tiny.conf's defaults the other way
if command -v checkpolicy >/dev/null; then
	sed '/^bool /{s/ true;/ TRUE;/; s/ false;/ true;/; s/ TRUE;/ false;/}' \
		tests/data/policy/tiny.conf >"$tmp/flip.conf"
	if checkpolicy -c 33 -o "$tmp/flip.33" "$tmp/flip.conf" >/dev/null 2>&1; then
		pair bools-flipped tests/data/policy/tiny.33 "$tmp/flip.33"
		whole bools-flipped tests/data/policy/tiny.33 "$tmp/flip.33"
	else
		echo "SKIP bools-flipped: checkpolicy refused the flipped tiny.conf"
	fi
fi

# xperm rules changed: ranges, several drivers in one rule (sediff prints one avtab entry of
# an added rule), a rule on an attribute meeting one on its member, a whole-driver rule
if command -v checkpolicy >/dev/null; then
	sed 's/^\(allowxperm app_t tty_t:chr_file ioctl\) .*/\1 { 0x5400-0x5410 0x5420 0x5430-0x5433 };/
	     s/^\(allowxperm app_t dev_type:chr_file ioctl\) .*/\1 { 0x8927 0x8929-0x892b 0x1234 };\
allowxperm init_t dev_type:chr_file ioctl { 0x8800-0x88ff };\
allowxperm init_t tty_t:chr_file ioctl { 0x1 0x3 0x5-0x7 };/
	     s/^dontauditxperm .*/dontauditxperm untrusted_t dev_type:chr_file ioctl { 0x5401-0x5402 0x7000-0x7fff };/' \
		tests/data/policy/tiny.conf >"$tmp/xp.conf"
	sed 's/^dontauditxperm .*/dontauditxperm untrusted_t dev_type:chr_file ioctl { 0x5401 0x7001 0x8001 0x3001 };/' \
		tests/data/policy/tiny.conf >"$tmp/xp3.conf"
	if checkpolicy -c 33 -o "$tmp/xp.33" "$tmp/xp.conf" >/dev/null 2>&1 &&
	   checkpolicy -c 33 -o "$tmp/xp3.33" "$tmp/xp3.conf" >/dev/null 2>&1; then
		pair xperm-changed tests/data/policy/tiny.33 "$tmp/xp.33"
		pair xperm-changed-back "$tmp/xp.33" tests/data/policy/tiny.33
		pair xperm-drivers tests/data/policy/tiny.33 "$tmp/xp3.33"
		pair xperm-drivers-xp "$tmp/xp3.33" "$tmp/xp.33"
		whole xperm-changed tests/data/policy/tiny.33 "$tmp/xp.33"
		pair xperm-A tests/data/policy/tiny.33 "$tmp/xp.33" -A
	else
		echo "SKIP xperm-changed: checkpolicy refused the changed tiny.conf"
	fi
fi

# names whose order is not their lines' order (tmp_t before tmp_t2 by name, after it in a
# line, "tmp_t2:" < "tmp_t:"; '-' and '.' sort below ':' too): secpath sorts lines by their
# names' places in the text, which must come out as sediff's sorted text
if command -v checkpolicy >/dev/null; then
	sed 's/^type tmp_t, file_type;/type tmp_t, file_type;\
type tmp_t2, file_type;\
type tmp_t-x, file_type;\
type tmp_t.y, file_type;\
type app_t2, domain;/' tests/data/policy/tiny.conf >"$tmp/sep.conf"
	if checkpolicy -c 33 -o "$tmp/sep.33" "$tmp/sep.conf" >/dev/null 2>&1; then
		pair name-order tests/data/policy/tiny.33 "$tmp/sep.33"
		pair name-order-back "$tmp/sep.33" tests/data/policy/tiny.33
	else
		echo "SKIP name-order: checkpolicy refused the renamed tiny.conf"
	fi
fi

# `secpath bench setools`: both tools ran, after printing the same number of lines
for c in info diff-symbols search-A-init_t-file; do
	if "$bin" bench setools --case "$c" --reps 1 --json >"$tmp/b.json" 2>"$tmp/b.err" &&
	   grep -q '"variant":"setools".*"metric":"ns/op"' "$tmp/b.json" &&
	   grep -q '"variant":"secpath".*"metric":"ns/op"' "$tmp/b.json"; then
		pass=$((pass + 1)); echo "PASS bench setools $c"
	else
		fail=$((fail + 1)); echo "FAIL bench setools $c: $(grep -v '^bench setools \[' "$tmp/b.err" | head -2)"
	fi
done

echo "sediff: skipped $skip pairs sediff cannot diff"
echo "sediff: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
