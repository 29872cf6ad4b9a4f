#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# get-laurel.sh - fetch laurel (Debian bookworm's laurel 0.5.1, an auditd plugin turning audit
# records into JSON lines) for tests/cli/test-laurel.sh without installing the package (its
# postinst would add a system user and an auditd plugin).
#
# `apt-get download laurel`, then `dpkg -x` it into a cache directory outside the repository:
#   $SECPATH_LAUREL (default /var/tmp/secpath-laurel)/root/usr/sbin/laurel
# laurel links libc, libm, libgcc_s and libacl (libacl1: a dependency of Debian's coreutils).
# Idempotent, and safe to run concurrently (a lock in the cache directory): does nothing when
# the binary is already extracted.
# Exit status: 0 ok, 1 the package could not be downloaded (no network or apt source).
set -eu

dir=${SECPATH_LAUREL:-/var/tmp/secpath-laurel}
root=$dir/root
# One fetch at a time (the test groups run in parallel): the others wait, then find it done.
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9

if [ -x "$root/usr/sbin/laurel" ]; then
	echo "get-laurel: $root/usr/sbin/laurel present"
	exit 0
fi

mkdir -p "$dir/debs" "$root"
cd "$dir/debs"
echo "get-laurel: apt-get download laurel (into $dir/debs)"
# a machine whose packages are all installed may have no package lists yet
if ! apt-get download laurel && ! { [ "$(id -u)" -eq 0 ] && apt-get update -qq && apt-get download laurel; }; then
	echo "get-laurel: apt-get download failed (run apt-get update, check the network)" >&2
	exit 1
fi
for deb in ./laurel_*.deb; do
	dpkg -x "$deb" "$root"
done
if [ ! -x "$root/usr/sbin/laurel" ]; then
	echo "get-laurel: the laurel package has no usr/sbin/laurel" >&2
	exit 1
fi
echo "get-laurel: extracted to $root"
