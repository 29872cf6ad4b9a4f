#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-examples.sh [OUT] - examples/ built the way a user builds them, against an installed secpath:
#  - `make install PREFIX=$tmp/prefix DESTDIR=` of the variant OUT names (release, or asan: then
#    the examples are built with the same sanitizers); checks the installed tree, the soname,
#    secpath.pc (pkg-config --validate, version, Libs.private), that every installed header
#    compiles on its own with only `pkg-config --cflags`, and that the .so exports only sp_*;
#  - examples/audit_filter.c and examples/policy_decide.c built with
#    `cc $(pkg-config --cflags --libs secpath)` (shared, run with LD_LIBRARY_PATH) and
#    audit_filter once more statically against libsecpath.a (Libs.private);
#  - audit_filter on data/audit/rules/debian/30-stig.rules and on a rule file watching a
#    scratch directory of real files: each event's decision (recorded or not, exact key) is
#    derived from the rule text in the comments below;
#  - policy_decide on data/policy/debian-default.policy.33 (decompressed, hash-checked): each
#    allowed set and verdict equals `secpath policy decide`'s, two verdicts are pinned from the
#    reference policy's intent, and the AVC's counters add up;
#  - `make uninstall` leaves no file under the prefix.
# Runs from the project root.  Ends with "examples: N passed, N failed"; exit 1 on any failure.
set -u
out=${1:-out/release}
variant=$(basename "$out")
san=""
xflags=""
case $variant in
asan)
	san="SAN=asan"
	xflags="-fsanitize=address,undefined -fno-sanitize-recover=all" ;;
release) ;;
*) echo "test-examples: variant '$variant' not supported, testing release"; out=out/release ;;
esac
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
prefix=$tmp/prefix
pass=0
fail=0

ok() { pass=$((pass + 1)); printf '%-52s ok\n' "$1"; }
bad() { fail=$((fail + 1)); printf '%-52s FAILED: %s\n' "$1" "$2"; }
# expect NAME DETAIL: counts the status of the command just run; DETAIL explains a failure
expect() { if [ $? -eq 0 ]; then ok "$1"; else bad "$1" "$2"; fi; }
finish() {
	echo "examples: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
# the make of the test run must not leak its flags (-j jobserver, SAN=...) into ours
smake() { make --no-print-directory "$@"; }
unset MAKEFLAGS MFLAGS MAKELEVEL

# ---- install ----
smake -s install $san PREFIX="$prefix" DESTDIR= >"$tmp/install.log" 2>&1
expect "make install PREFIX=tmp" "$(tail -5 "$tmp/install.log")"
[ -f "$prefix/lib/libsecpath.so.0" ] || finish
missing=""
for f in lib/libsecpath.a lib/libsecpath.so.0 lib/libsecpath.so lib/pkgconfig/secpath.pc \
	bin/secpath include/secpath/secpath.h include/secpath/audit.h \
	include/secpath/audit_filter.h include/secpath/audit_tools.h include/secpath/policy.h \
	include/secpath/slab.h \
	share/man/man1/secpath.1; do
	[ -e "$prefix/$f" ] || missing="$missing $f"
done
[ -z "$missing" ]
expect "installed tree" "missing:$missing"
[ "$(readlink "$prefix/lib/libsecpath.so")" = libsecpath.so.0 ]
expect "libsecpath.so -> libsecpath.so.0" "$(ls -l "$prefix/lib/libsecpath.so")"
soname=$(readelf -d "$prefix/lib/libsecpath.so.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libsecpath.so.0 ]
expect "soname" "got '$soname'"
# exported dynamic symbols: the API only (sp_*), nothing of the internals
leaks=$(nm -D --defined-only "$prefix/lib/libsecpath.so.0" | awk '{print $3}' |
	grep -v -e '^sp_' -e '^_init$' -e '^_fini$' -e '^_edata$' -e '^_end$' -e '^__bss_start$')
[ -z "$leaks" ]
expect "shared library exports only sp_*" "$(echo $leaks | cut -c1-200)"

# ---- secpath.pc ----
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
pc() { pkg-config "$@" secpath; }
pc --validate >"$tmp/pc.log" 2>&1
expect "pkg-config --validate" "$(cat "$tmp/pc.log")"
hver=$(sed -n 's/^#define SP_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/secpath/secpath.h")
[ "$(pc --modversion)" = "$hver" ]
expect "pkg-config --modversion = SP_VERSION_STRING" "pc '$(pc --modversion)', header '$hver'"
[ "$(echo $(pc --cflags --libs))" = "-I$prefix/include -L$prefix/lib -lsecpath" ]
expect "pkg-config --cflags --libs" "$(pc --cflags --libs)"
case " $(pc --static --libs) " in *" -lurcu "*"-lpthread "*) true ;; *) false ;; esac
expect "pkg-config --static --libs has liburcu" "$(pc --static --libs)"
# every installed header stands alone (C11, pedantic) with only the installed include dir
hbad=""
for h in "$prefix"/include/secpath/*.h; do
	n=$(basename "$h")
	printf '#include <secpath/%s>\nint main(void) { return 0; }\n' "$n" >"$tmp/h.c"
	$cc -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only $(pc --cflags) "$tmp/h.c" \
		>>"$tmp/h.log" 2>&1 || hbad="$hbad $n"
done
[ -z "$hbad" ]
expect "installed headers compile alone" "$hbad: $(head -3 "$tmp/h.log")"

# ---- build the examples ----
cflags="-std=c11 -O2 -g -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror"
cflags="$cflags $xflags"
build() {	# build NAME SRC LINK-FLAGS...
	n=$1; src=$2; shift 2
	$cc $cflags "$src" -o "$tmp/$n" "$@" >"$tmp/$n.build" 2>&1
	expect "build $n" "$(head -5 "$tmp/$n.build")"
}
needs() { readelf -d "$1" 2>/dev/null | grep NEEDED | grep -q '\[libsecpath\.so\.0\]'; }
build audit_filter examples/audit_filter.c $(pc --cflags --libs)
build policy_decide examples/policy_decide.c $(pc --cflags --libs)
# static: libsecpath.a by name (-l:), its Libs.private shared
build audit_filter_static examples/audit_filter.c $(pc --cflags) \
	$(pc --static --libs | sed 's/-lsecpath\( \|$\)/-l:libsecpath.a /')
needs "$tmp/audit_filter"
expect "audit_filter needs libsecpath.so.0" "$(readelf -d "$tmp/audit_filter" 2>&1 | grep NEEDED)"
[ -x "$tmp/audit_filter_static" ] && ! needs "$tmp/audit_filter_static"
expect "audit_filter_static does not need libsecpath.so" "$(ls -l "$tmp/audit_filter_static")"
# examples/Makefile, as a user runs it on a copy of the directory: shared, then STATIC=1
mkdir "$tmp/ex" && cp examples/Makefile examples/*.c "$tmp/ex/"
make -s -C "$tmp/ex" CFLAGS="$cflags" >"$tmp/exmake.log" 2>&1 && [ -x "$tmp/ex/audit_filter" ] &&
	needs "$tmp/ex/policy_decide"
expect "examples/Makefile (shared)" "$(head -5 "$tmp/exmake.log")"
make -s -C "$tmp/ex" clean >/dev/null &&
	make -s -C "$tmp/ex" STATIC=1 CFLAGS="$cflags" >"$tmp/exmake.log" 2>&1 &&
	[ -x "$tmp/ex/policy_decide" ] && ! needs "$tmp/ex/policy_decide"
expect "examples/Makefile STATIC=1" "$(head -5 "$tmp/exmake.log")"
export LD_LIBRARY_PATH="$prefix/lib"

# check_events NAME PROGRAM [RULES]: runs PROGRAM [RULES] < $tmp/NAME.events, where each event
# line is "EXPECTED | EVENT"; the output line of event i must be "LINE: EXPECTED".
check_events() {
	n=$1; prog=$2; shift 2
	sed 's/^[^|]*| *//' "$tmp/$n.spec" >"$tmp/$n.in"
	"$prog" "$@" <"$tmp/$n.in" >"$tmp/$n.out" 2>"$tmp/$n.err"
	expect "$n: exit 0" "exit $?: $(head -3 "$tmp/$n.err")"
	i=0
	while IFS= read -r spec; do
		i=$((i + 1))
		case $spec in '#'*|'') continue ;; esac
		want="$i: $(echo "${spec%%|*}" | sed 's/ *$//')"
		got=$(grep "^$i: " "$tmp/$n.out")
		[ "$got" = "$want" ]
		expect "$n: $want" "got '$got' for${spec#*|}"
	done <"$tmp/$n.spec"
}

# ---- audit_filter on 30-stig.rules (the default rules file) ----
# openat is in the b64 `-S open,...,openat,... -F exit=-EACCES|-EPERM -F auid>=1000
# -F auid!=unset -k access` rules; `-w /etc/shadow -p wa -k identity` comes earlier in the file, so
# a write-open of /etc/shadow is keyed identity even when it fails; a0=-100 is AT_FDCWD, a2 the
# open flags (0 read-only, 1 O_WRONLY).
cat >"$tmp/stig.spec" <<'EOF'
recorded key=access   | syscall=openat a0=-100 a2=0 exit=-EACCES uid=1000 auid=1000 path=/etc/shadow
recorded key=access   | syscall=openat a0=-100 a2=0 exit=-EPERM uid=1000 auid=1000 path=/etc/shadow
not-recorded          | syscall=openat a0=-100 a2=0 exit=-ENOENT uid=1000 auid=1000 path=/etc/shadow
not-recorded          | syscall=openat a0=-100 a2=0 exit=-EACCES uid=0 auid=unset path=/etc/shadow
not-recorded          | syscall=openat a0=-100 a2=0 exit=-EACCES uid=999 auid=999 path=/etc/shadow
recorded key=identity | syscall=openat a0=-100 a2=1 exit=3 uid=0 auid=unset path=/etc/shadow
recorded key=identity | syscall=openat a0=-100 a2=1 exit=-EACCES uid=1000 auid=1000 path=/etc/shadow
recorded key=identity | syscall=openat a0=-100 a2=1 exit=3 uid=0 auid=0 path=/etc/passwd
not-recorded          | syscall=openat a0=-100 a2=0 exit=3 uid=0 auid=0 path=/etc/passwd
# b32: the same rule text for i386 (openat is 295 there)
recorded key=access   | arch=i386 syscall=openat exit=-EACCES uid=1000 auid=1000 path=/etc/shadow
# chmod/fchmodat: -S chmod,fchmod,fchmodat -F auid>=1000 -F auid!=unset -k perm_mod (b64 and b32)
recorded key=perm_mod | syscall=fchmodat a0=-100 exit=0 uid=1000 auid=1000 path=/tmp
recorded key=perm_mod | arch=i386 syscall=chmod exit=0 uid=1000 auid=1000 path=/tmp
not-recorded          | syscall=chmod exit=0 uid=1000 auid=999 path=/tmp
# -S clock_settime -F a0=0x0 -k time-change; -S adjtimex,settimeofday -k time-change
recorded key=time-change | syscall=clock_settime a0=0 exit=0
not-recorded          | syscall=clock_settime a0=1 exit=0
recorded key=time-change | syscall=settimeofday exit=-EPERM uid=1000 auid=1000
# -S unlink,unlinkat,rename,renameat -k delete; -S mount -k export;
# -S sethostname -k system-locale (any auid)
recorded key=delete   | syscall=unlinkat a0=-100 exit=0 uid=1000 auid=1000 path=/tmp/x
recorded key=export   | syscall=mount exit=0 uid=0 auid=1000
recorded key=system-locale | syscall=sethostname exit=0 uid=0 auid=unset
not-recorded          | syscall=getpid exit=77 uid=1000 auid=1000
EOF
check_events stig "$tmp/audit_filter"
# the statically linked build decides the same
"$tmp/audit_filter_static" <"$tmp/stig.in" >"$tmp/stig.static" 2>/dev/null
cmp -s "$tmp/stig.out" "$tmp/stig.static"
expect "audit_filter_static = audit_filter" "$(diff "$tmp/stig.out" "$tmp/stig.static" | head -3)"
# the rules file is a real argument too
echo 'arch=x86_64 syscall=mount exit=0 auid=1000' |
	"$tmp/audit_filter" data/audit/rules/debian/30-stig.rules >"$tmp/stig1.out" 2>/dev/null
[ "$(cat "$tmp/stig1.out")" = "1: recorded key=export" ]
expect "audit_filter RULES argument" "$(cat "$tmp/stig1.out")"

# ---- audit_filter on a scratch tree: rules resolved against the live file system ----
fs=$tmp/fs
mkdir -p "$fs/tree/sub" "$fs/watched" "$fs/other"
: >"$fs/tree/sub/file"; : >"$fs/watched/secret"; : >"$fs/other/secret"
cat >"$tmp/local.rules" <<EOF
-w $fs/watched/secret -p wa -k secret
-a always,exit -F dir=$fs/tree -F perm=wa -k tree
-a always,exit -F arch=b64 -S mkdir -k mk
-d always,exit -F arch=b64 -S mkdir -k mk
-a never,exit -F arch=b64 -S fchown -F auid=2000
-a always,exit -F arch=b64 -S fchown -k k1 -k k2
EOF
# watch: the inode of watched/secret, not the same name elsewhere, only for writes (-p wa);
# dir=: anything under tree/ through its walked ancestors; mkdir: added then deleted (-d);
# fchown: the never rule comes first for auid 2000, else both keys, joined.
cat >"$tmp/local.spec" <<EOF
recorded key=secret   | syscall=openat a0=-100 a2=1 exit=3 uid=0 auid=0 path=$fs/watched/secret
not-recorded          | syscall=openat a0=-100 a2=0 exit=3 uid=0 auid=0 path=$fs/watched/secret
not-recorded          | syscall=openat a0=-100 a2=1 exit=3 uid=0 auid=0 path=$fs/other/secret
recorded key=tree     | syscall=openat a0=-100 a2=1 exit=3 uid=0 auid=0 path=$fs/tree/sub/file
recorded key=tree     | syscall=unlinkat a0=-100 exit=0 uid=0 auid=0 path=$fs/tree/sub/file
not-recorded          | syscall=unlinkat a0=-100 exit=0 uid=0 auid=0 path=$fs/other/secret
not-recorded          | syscall=mkdir exit=0 uid=0 auid=0 path=$fs/other/new
not-recorded          | syscall=openat a0=-100 a2=1 exit=3 uid=0 auid=0 path=$fs/missing/file
not-recorded          | syscall=fchown exit=0 uid=2000 auid=2000
recorded key=k1,k2    | syscall=fchown exit=0 uid=2001 auid=2001
EOF
check_events local "$tmp/audit_filter" "$tmp/local.rules"
# a rule the kernel refuses on this host (dir= of a tree it lacks: ENOENT) is skipped with a
# positioned warning, as auditctl -c goes on; the rest is loaded
{ cat "$tmp/local.rules"; echo "-a always,exit -F dir=$fs/missing -F perm=wa -k never"; } \
	>"$tmp/missing.rules"
echo "syscall=openat a0=-100 a2=1 exit=3 uid=0 auid=0 path=$fs/missing/file
syscall=openat a0=-100 a2=1 exit=3 uid=0 auid=0 path=$fs/watched/secret" |
	"$tmp/audit_filter" "$tmp/missing.rules" >"$tmp/missing.out" 2>"$tmp/missing.err"
rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$tmp/missing.out")" = "1: not-recorded
2: recorded key=secret" ] &&
	grep -q "missing.rules:7: warning: the kernel refuses this rule: .*(ENOENT)" "$tmp/missing.err"
expect "audit_filter: dir=missing skipped with a warning at line 7" \
	"exit $rc: $(cat "$tmp/missing.out" "$tmp/missing.err")"
echo 'syscall=nosuchcall exit=0' |
	"$tmp/audit_filter" "$tmp/local.rules" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "unknown syscall 'nosuchcall'" "$tmp/bad.err"
expect "audit_filter rejects a bad event" "exit $rc: $(cat "$tmp/bad.err")"

# ---- policy_decide on debian-default.policy.33 ----
pol=$tmp/debian-default.policy.33
xz -dc data/policy/debian-default.policy.33.xz >"$pol"
want=$(sed -n 's/  debian-default.policy.33$//p' data/policy/SHA256SUMS)
[ "$(sha256sum <"$pol" | cut -d' ' -f1)" = "$want" ]
expect "policy decompressed, sha256 matches" "data/policy/SHA256SUMS"
cat >"$tmp/queries" <<'EOF'
# source target class perms
passwd_t shadow_t file read write
user_t shadow_t file read
chkpwd_t shadow_t file read open
sshd_t sshd_exec_t file entrypoint execute
user_t user_home_t file
init_t kernel_t process
httpd_t shadow_t file getattr
passwd_t shadow_t file read
user_t shadow_t file getattr
EOF
"$tmp/policy_decide" "$pol" <"$tmp/queries" >"$tmp/pol.out" 2>"$tmp/pol.err"
expect "policy_decide: exit 0" "exit $?: $(head -3 "$tmp/pol.err")"
# each answer against the CLI's (same library, independent code): allowed set and verdict
nq=0
grep -v '^#' "$tmp/queries" >"$tmp/queries.nc"
while read -r s t c perms; do
	nq=$((nq + 1))
	q=$(echo "$s $t $c $perms" | sed 's/ *$//')
	got=$(grep "^$q: " "$tmp/pol.out")
	"$prefix/bin/secpath" policy decide "$pol" $s $t $c $perms >"$tmp/cli.out" 2>&1
	crc=$?
	allowed=$(sed -n 's/^allowed: *//p' "$tmp/cli.out" | tr ' ' ',')
	if [ -z "$perms" ]; then v=-; elif [ $crc -eq 0 ]; then v=granted; elif [ $crc -eq 3 ]; then v=denied; else v="error($crc)"; fi
	[ "$got" = "$q: $v allowed=$allowed" ]
	expect "policy_decide = policy decide: $q" "got '$got', secpath policy decide: $v $allowed"
done <"$tmp/queries.nc"
[ "$nq" -eq 9 ]
expect "policy_decide: 9 queries compared" "$nq"
# pinned from refpolicy's intent: passwd(1) rewrites /etc/shadow, user shells cannot read it
grep -q '^passwd_t shadow_t file read write: granted ' "$tmp/pol.out"
expect "policy: passwd_t writes shadow_t" "$(grep '^passwd_t shadow_t file read w' "$tmp/pol.out")"
grep -q '^user_t shadow_t file read: denied ' "$tmp/pol.out"
expect "policy: user_t cannot read shadow_t" "$(grep '^user_t shadow_t file read:' "$tmp/pol.out")"
# 9 lookups over 7 distinct (source, target, class): 2 answered by the AVC
grep -q '^avc: lookups=9 hits=2 misses=7$' "$tmp/pol.err"
expect "policy_decide: avc lookups=9 hits=2 misses=7" "$(grep avc: "$tmp/pol.err")"
# the default policy (the .xz in data/policy, read through xz) on stdin, and a command-line query
echo 'chkpwd_t shadow_t file read open' | "$tmp/policy_decide" >"$tmp/pol1.out" 2>/dev/null
"$tmp/policy_decide" "$pol" chkpwd_t shadow_t file read open >>"$tmp/pol1.out" 2>/dev/null
want=$(grep '^chkpwd_t shadow_t file read open: granted ' "$tmp/pol.out")
[ -n "$want" ] && [ "$(cat "$tmp/pol1.out")" = "$(printf '%s\n%s' "$want" "$want")" ]
expect "policy_decide: default .xz policy, command-line query" "$(cat "$tmp/pol1.out")"
echo 'user_t shadow_t file fly' | "$tmp/policy_decide" "$pol" >/dev/null 2>"$tmp/pbad.err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "class 'file' has no permission 'fly'" "$tmp/pbad.err"
expect "policy_decide rejects an unknown permission" "exit $rc: $(cat "$tmp/pbad.err")"

# ---- uninstall ----
smake -s uninstall $san PREFIX="$prefix" DESTDIR= >"$tmp/uninstall.log" 2>&1
expect "make uninstall PREFIX=tmp" "$(tail -3 "$tmp/uninstall.log")"
left=$(find "$prefix" ! -type d | head -5)
[ -z "$left" ]
expect "prefix holds no file after uninstall" "$left"
finish
