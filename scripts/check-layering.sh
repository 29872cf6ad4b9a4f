#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-layering.sh - enforce base <- slab <- {audit, policy} <- bench <- cli via #include lines.
set -eu
bad=0
check() { # part forbidden...
	part=$1; shift
	for f in src/$part/*.c src/$part/*.h src/$part/*/*.c src/$part/*/*.h; do
		[ -f "$f" ] || continue
		for x in "$@"; do
			if grep -Eq "#include \"($x/|secpath/$x\.h)" "$f"; then
				echo "layering: $f includes $x"; bad=1
			fi
		done
	done
}
check base slab audit policy bench
check slab audit policy bench
check audit policy bench
check policy audit bench
exit $bad
