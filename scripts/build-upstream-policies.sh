#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# build-upstream-policies.sh [DIR] - compile the upstream test policies carried in
# tests/data/policy/upstream (DIR) to kernel binary policies, version 33, next to their sources:
#   secilc/NAME.cil  -> secilc/NAME.33   with secilc 3.4 (`secilc -c 33`)
#   setools/NAME.conf -> setools/NAME.33  with checkpolicy 3.4 (-M when the policy declares
#                                         sensitivities: MLS)
# libsepol/policy.bin is carried as it is (libsepol's fuzzer seed).  Only the sources that those
# compilers accept are carried (README.md).  The outputs are reproducible: compare with SHA256SUMS
# (`cd DIR && sha256sum -c SHA256SUMS`).  Needs the Debian packages secilc and checkpolicy.
set -eu
dir=${1:-tests/data/policy/upstream}
for f in "$dir"/secilc/*.cil; do
	secilc -c 33 -o "${f%.cil}.33" -f /dev/null "$f" >/dev/null 2>&1
done
for f in "$dir"/setools/*.conf; do
	m=""
	grep -q '^[[:space:]]*sensitivity' "$f" && m=-M
	checkpolicy $m -c 33 -o "${f%.conf}.33" "$f" >/dev/null 2>&1
done
(cd "$dir" && sha256sum secilc/*.33 setools/*.33 libsepol/policy.bin) >"$dir/SHA256SUMS.new"
if cmp -s "$dir/SHA256SUMS.new" "$dir/SHA256SUMS" 2>/dev/null; then
	rm -f "$dir/SHA256SUMS.new"
	echo "build-upstream-policies: identical to SHA256SUMS"
else
	mv "$dir/SHA256SUMS.new" "$dir/SHA256SUMS"
	echo "build-upstream-policies: wrote $dir/SHA256SUMS"
fi
