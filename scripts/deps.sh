#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# deps.sh - install the Debian packages listed in scripts/deps.txt that are missing.
# As root: apt-get installs them.  Otherwise: print the exact apt-get line and fail.
set -eu
here=$(dirname "$0")
missing=""
for p in $(sed -e 's/#.*//' "$here/deps.txt"); do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
	echo "deps: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
else
	echo "deps: missing Debian packages; run as root:"
	echo "  apt-get install -y$missing"
	exit 1
fi
