#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# get-audit-tools.sh - fetch ausearch/aureport for `secpath bench replay` without installing the
# Debian auditd package (its postinst would enable and start the audit daemon).
#
# `apt-get download` auditd and the shared libraries it needs that are not installed (checked
# with dpkg), then `dpkg -x` them into a cache directory outside the repository:
#   $SECPATH_AUDIT_TOOLS (default /var/tmp/secpath-audit-tools)/root/sbin/{ausearch,aureport}
# The bench suite looks there and runs the binaries with LD_LIBRARY_PATH set to the extracted
# library directories.  Idempotent, and safe to run concurrently (a lock in the cache
# directory): does nothing when the binaries are already extracted.
# Exit status: 0 ok, 1 the packages could not be downloaded (no network or apt source).
set -eu

dir=${SECPATH_AUDIT_TOOLS:-/var/tmp/secpath-audit-tools}
root=$dir/root
# One fetch at a time (the test groups run in parallel): the others wait, then find it done.
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9

if [ -x "$root/sbin/ausearch" ] && [ -x "$root/sbin/aureport" ]; then
	echo "get-audit-tools: $root/sbin/ausearch and aureport present"
	exit 0
fi

mkdir -p "$dir/debs" "$root"
cd "$dir/debs"

pkgs=auditd
# libraries auditd links that may be missing (libaudit1 is a secpath test dependency)
for lib in libauparse0 libaudit1 libcap-ng0 libwrap0 libgssapi-krb5-2 libkrb5-3; do
	if ! dpkg-query -W -f='${Status}\n' "$lib" 2>/dev/null | grep -q '^install ok installed'; then
		pkgs="$pkgs $lib"
	fi
done

echo "get-audit-tools: apt-get download $pkgs (into $dir/debs)"
# a machine whose packages are all installed may have no package lists yet
if ! apt-get download $pkgs && ! { [ "$(id -u)" -eq 0 ] && apt-get update -qq && apt-get download $pkgs; }; then
	echo "get-audit-tools: apt-get download failed (run apt-get update, check the network)" >&2
	exit 1
fi
for deb in ./*.deb; do
	dpkg -x "$deb" "$root"
done
if [ ! -x "$root/sbin/ausearch" ] || [ ! -x "$root/sbin/aureport" ]; then
	echo "get-audit-tools: the auditd package has no sbin/ausearch or sbin/aureport" >&2
	exit 1
fi
echo "get-audit-tools: extracted to $root (run with LD_LIBRARY_PATH=$root/lib/x86_64-linux-gnu:$root/usr/lib/x86_64-linux-gnu)"
