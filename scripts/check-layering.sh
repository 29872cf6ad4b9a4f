#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# check-layering.sh [ROOT] - the include rule of docs/DESIGN.md ("Layout"), checked on every
# #include "..." line of src/ and cli/ (ROOT defaults to the project root):
#
#   base <- slab <- {audit, policy} <- bench <- cli      (malloc, the LD_PRELOAD shim: base, slab)
#   inside audit:  audit/ (audit_int.h, blob.c) <- lang <- filter <- log <- tools
#
#  - a file may include headers of its own part and of the parts below it, never above or beside
#    (audit and policy never include each other);
#  - a part's internal headers (everything under src/PART/) are included only inside PART, with
#    one exception: malloc is built from slab's sources and includes slab's headers;
#  - inside audit, a sub-folder includes its own headers, audit/*.h and the sub-folders below it;
#  - public headers (include/secpath/NAME.h) belong to a part by name: secpath.h to base,
#    slab.h to slab, audit*.h to audit (audit.h: audit/, audit_filter.h and audit_names.h: filter, audit_log.h and
#    audit_record.h: log, audit_tools.h: tools), policy.h to policy, bench.h to bench;
#  - cli includes public headers and its own headers (cli/*.h) only.
# Prints one line per violation ("layering: FILE:LINE includes X (why)") and exits 1 if any.
set -eu
root=${1:-.}
cd "$root"
find src cli -name '*.[ch]' | sort | while read -r f; do
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed "s|^|$f:|" || true
done | awk -F: '
function rank(p) {	# position in the part order (-1: unknown)
	if (p == "base") return 0
	if (p == "slab") return 1
	if (p == "audit" || p == "policy") return 2
	if (p == "malloc") return 2
	if (p == "bench") return 3
	if (p == "cli") return 4
	return -1
}
function sub_rank(s) {	# inside audit
	if (s == "") return 0
	if (s == "lang") return 1
	if (s == "filter") return 2
	if (s == "log") return 3
	if (s == "tools") return 4
	return -1
}
# the part and audit sub-folder of a path under src/ or cli/
function where(path,    a, n) {
	n = split(path, a, "/")
	if (a[1] == "cli") { PART = "cli"; SUB = ""; return }
	PART = a[2]; SUB = ""
	if (PART == "audit" && n > 3) SUB = a[3]
}
function public_owner(name) {
	if (name == "secpath.h") { PART = "base"; SUB = ""; return 1 }
	if (name == "slab.h") { PART = "slab"; SUB = ""; return 1 }
	if (name == "policy.h") { PART = "policy"; SUB = ""; return 1 }
	if (name == "bench.h") { PART = "bench"; SUB = ""; return 1 }
	if (name == "audit.h") { PART = "audit"; SUB = ""; return 1 }
	if (name == "audit_filter.h" || name == "audit_names.h") { PART = "audit"; SUB = "filter"; return 1 }
	if (name == "audit_log.h" || name == "audit_record.h") { PART = "audit"; SUB = "log"; return 1 }
	if (name == "audit_tools.h") { PART = "audit"; SUB = "tools"; return 1 }
	return 0
}
function bad(why) { printf "layering: %s:%s includes %s (%s)\n", file, line, inc, why; nbad++ }
{
	file = $1; line = $2
	match($0, /"[^"]*"/); inc = substr($0, RSTART + 1, RLENGTH - 2)
	where(file); fp = PART; fs = SUB
	dir = file; sub(/\/[^\/]*$/, "", dir)
	public = 0
	if (inc ~ /^secpath\//) {
		name = substr(inc, 9)
		if (!public_owner(name)) { bad("unknown public header"); next }
		public = 1
	} else if (fp == "cli" && inc !~ /\// && (getline dummy < ("cli/" inc)) >= 0) {
		close("cli/" inc)	# a header of cli/ itself (cli.h, search_hits.h)
		next
	} else {
		# a path relative to the including file (bare names), else to src/ (-Isrc)
		target = (inc ~ /\//) ? "src/" inc : dir "/" inc
		if ((getline dummy < target) < 0) {
			target2 = "src/" inc
			if ((getline dummy < target2) < 0) { bad("no such header under src/"); next }
			close(target2); target = target2
		} else close(target)
		where(target)
	}
	tp = PART; ts = SUB
	if (fp == "cli" && !public) { bad("cli includes public headers only"); next }
	if (!public && tp != fp && !(fp == "malloc" && tp == "slab") && !(tp == "base" && fp != "cli")) {
		bad("internal header of " tp); next
	}
	if (!public && tp == "base" && fp != "base" && inc !~ /^base\//) { bad("base header by a bare name"); next }
	if (tp == fp) {
		if (fp == "audit" && sub_rank(ts) > sub_rank(fs)) bad("audit/" ts " is above audit/" fs)
		next
	}
	if (fp == "malloc" && (tp == "base" || tp == "slab")) next
	if (rank(tp) < 0 || rank(fp) < 0) { bad("unknown part"); next }
	if (rank(tp) >= rank(fp)) bad(tp " is not below " fp)
}
END { exit nbad > 0 }'
