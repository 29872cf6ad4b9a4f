#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-api-doc.sh [ROOT] - docs/API.md names every function the public headers export (SP_API),
# and every sp_*() it names in backquotes exists.  Prints "api-doc: ..." per problem; exit 1.
set -u
root=${1:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# SP_API declarations: the identifier before the first '(' of each (they may span lines)
cat "$root"/include/secpath/*.h | tr '\n' ' ' | sed 's/;/;\n/g' | grep 'SP_API' |
	sed -n 's/.*[ *]\(sp_[a-z0-9_]*\) *(.*/\1/p' | sort -u >"$tmp/api"
grep -o '`sp_[a-z0-9_]*`' "$root/docs/API.md" | tr -d '`' | sort -u >"$tmp/doc"
bad=0
for f in $(comm -23 "$tmp/api" "$tmp/doc"); do
	echo "api-doc: $f is exported but docs/API.md does not name it"; bad=1
done
for f in $(comm -13 "$tmp/api" "$tmp/doc"); do
	echo "api-doc: docs/API.md names $f, which no public header exports"; bad=1
done
[ -s "$tmp/api" ] || { echo "api-doc: no SP_API function found under $root/include"; bad=1; }
exit $bad
