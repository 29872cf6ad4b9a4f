# SPDX-License-Identifier: LGPL-2.1-or-later
# audit-tools.sh - sourced by the oracle tests (test-ausearch.sh, test-ausearch-interp.sh,
# test-ausearch-format.sh, test-aureport.sh): audit_tools GROUP fail|skip fetches Debian's
# ausearch and aureport 3.0.9 (scripts/get-audit-tools.sh, extracted, never installed) or ends
# the group (fail: "GROUP: 0 passed, 1 failed", exit 1; skip: "GROUP: skipped ...", exit 0);
# then ausearch_tool and aureport_tool run them with their libraries, standard error dropped.
# Needs $tmp (a scratch directory).

audit_tools() {
	if ! sh scripts/get-audit-tools.sh >"$tmp/get.log" 2>&1; then
		cat "$tmp/get.log"
		if [ "$2" = skip ]; then
			echo "$1: skipped (ausearch 3.0.9 could not be fetched)"
			exit 0
		fi
		echo "$1: 0 passed, 1 failed"
		exit 1
	fi
	audit_root=${SECPATH_AUDIT_TOOLS:-/var/tmp/secpath-audit-tools}/root
	audit_lib=$audit_root/lib/x86_64-linux-gnu:$audit_root/usr/lib/x86_64-linux-gnu
}

ausearch_tool() {
	LD_LIBRARY_PATH=$audit_lib "$audit_root/sbin/ausearch" "$@" 2>/dev/null
}

aureport_tool() {
	LD_LIBRARY_PATH=$audit_lib "$audit_root/sbin/aureport" "$@" 2>/dev/null
}
