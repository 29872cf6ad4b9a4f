# SPDX-License-Identifier: LGPL-2.1-or-later
# carried-logs.sh - sourced by the oracle tests (test-ausearch.sh, test-ausearch-interp.sh,
# test-aureport.sh): carried_logs appends to $logs the audit logs the project carries for them,
# those without a last newline copied into $tmp with one (secpath does not read a last line
# without its newline, a warning; the audit tools read it); vals gives a field's values in $log.

carried_logs() {
	# (05-malformed.log is secpath's own malformed-line test: its bad lines are refused, not read)
	for f in tests/data/audit/logs/go-libaudit/*.log $(ls tests/cases/replay/*.log | grep -v 05-malformed); do
		if [ -n "$(tail -c 1 "$f")" ]; then
			cp "$f" "$tmp/$(basename "$f")" && echo >>"$tmp/$(basename "$f")"
			logs="$logs $tmp/$(basename "$f")"
		else
			logs="$logs $f"
		fi
	done
}

# the distinct values of a field (the grep pattern, its name and quotes cut), at most N
vals() {
	grep -o "$1" "$log" | sed 's/^[ (]*[a-z_-]*=//; s/^"//; s/"$//' | sort -u | head -"${2:-6}"
}
