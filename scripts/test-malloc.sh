#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-malloc.sh [OUT] - libsecpath-malloc.so on real programs: each workload runs once plainly
# (glibc malloc) and once under LD_PRELOAD per allocator mode; outputs must be identical.
#  - gcc: compiles the slab and base sources to objects (-O2); the objects must match byte for byte
#  - git: clones the project repository, then log --stat / status / diff / grep in the clone
#  - python3: tests/malloc/workload.py (json, re, sqlite3, dict churn), compared by output
#  - sqlite3: tests/malloc/gen-db.sql (200k generated rows, joins, window functions)
#  - the project's own cmocka programs (fast ones) under the shim, test_malloc included
#    (threads exchanging blocks, fork while threads allocate)
# Modes: init off, SECPATH_INIT_ON_ALLOC=1, SECPATH_INIT_ON_FREE=1 with SECPATH_MALLOC_VERIFY=1.
# Ends with "malloc: N passed, N failed"; exit 1 on any failure.
set -u
out=${1:-out/release}
so=$(cd "$(dirname "$out/libsecpath-malloc.so")" && pwd)/libsecpath-malloc.so
[ -f "$so" ] || { echo "test-malloc: $so not built"; echo "malloc: 0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
root=$(pwd)

ok() { pass=$((pass + 1)); printf '%-44s ok\n' "$1"; }
bad() { fail=$((fail + 1)); printf '%-44s FAILED: %s\n' "$1" "$2"; }

# run NAME ENV... -- CMD...: CMD's stdout+exit status into $tmp/NAME.out
run() {
	n=$1; shift
	envs=""
	while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
	shift
	env $envs "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	echo "exit $?" >>"$tmp/$n.out"
}

modes="off alloc free"
mode_env() {
	case $1 in
	plain) echo "" ;;
	off) echo "LD_PRELOAD=$so" ;;
	alloc) echo "LD_PRELOAD=$so SECPATH_INIT_ON_ALLOC=1" ;;
	free) echo "LD_PRELOAD=$so SECPATH_INIT_ON_FREE=1 SECPATH_MALLOC_VERIFY=1" ;;
	esac
}

# compare WORKLOAD CMD...: plain run vs every mode
compare() {
	w=$1; shift
	run "$w-plain" -- "$@"
	for m in $modes; do
		run "$w-$m" $(mode_env $m) -- "$@"
		if cmp -s "$tmp/$w-plain.out" "$tmp/$w-$m.out"; then
			ok "$w ($m)"
		else
			bad "$w ($m)" "output differs: $(diff "$tmp/$w-plain.out" "$tmp/$w-$m.out" | head -3 | tr '\n' ' ') $(head -c 200 "$tmp/$w-$m.err")"
		fi
	done
}

# gcc: objects compiled under each allocator must be identical to the plain ones.
gcc_objs() {
	d=$tmp/gcc-$1
	mkdir -p "$d"
	for f in src/slab/arena.c src/slab/cache.c src/slab/harden.c src/slab/kmalloc.c src/base/base.c src/base/diag.c; do
		env $(mode_env $1) gcc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc -c "$f" -o "$d/$(basename "$f" .c).o" || return 1
	done
}
if command -v gcc >/dev/null; then
	gcc_objs plain || bad "gcc (plain)" "compile failed"
	for m in $modes; do
		if gcc_objs $m && for o in "$tmp"/gcc-plain/*.o; do cmp -s "$o" "$tmp/gcc-$m/$(basename "$o")" || exit 1; done; then
			ok "gcc -O2, 6 sources ($m)"
		else
			bad "gcc -O2, 6 sources ($m)" "objects differ or compile failed"
		fi
	done
fi

# git: a private clone so concurrent edits of the work tree cannot change the outputs.
if command -v git >/dev/null && git -C "$root" rev-parse HEAD >/dev/null 2>&1; then
	git clone -q --no-hardlinks "$root" "$tmp/repo" 2>/dev/null
	echo "// changed" >>"$tmp/repo/README.md"
	gitw() { git -C "$tmp/repo" log --stat -n 200 && git -C "$tmp/repo" status --short &&
		 git -C "$tmp/repo" diff && git -C "$tmp/repo" grep -n sp_slab -- '*.h' | head -200 &&
		 git -C "$tmp/repo" log -p -n 5 | wc -l; }
	run git-plain -- sh -c "$(type gitw | sed 1d); gitw"
	for m in $modes; do
		run "git-$m" $(mode_env $m) -- sh -c "$(type gitw | sed 1d); gitw"
		if cmp -s "$tmp/git-plain.out" "$tmp/git-$m.out"; then ok "git log/status/diff/grep ($m)"
		else bad "git log/status/diff/grep ($m)" "output differs"; fi
	done
	# the clone itself under the shim
	if env $(mode_env off) git clone -q --no-hardlinks "$root" "$tmp/repo2" 2>/dev/null &&
	   [ "$(git -C "$tmp/repo2" rev-parse HEAD)" = "$(git -C "$root" rev-parse HEAD)" ]; then
		ok "git clone (off)"
	else
		bad "git clone (off)" "clone failed"
	fi
fi

command -v python3 >/dev/null && compare python3 python3 tests/malloc/workload.py
command -v sqlite3 >/dev/null && compare sqlite3 sh -c "sqlite3 :memory: < tests/malloc/gen-db.sql"

# The project's own fast cmocka programs: same summary plainly and under the shim.
if ldd "$out"/tests/test_base 2>/dev/null | grep -q libasan; then
	echo "cmocka programs are ASan builds here: not preloaded (run with out/release)"
else
	for t in test_base test_slab test_slab_env test_slab_random test_slab_threads test_audit_lang \
		 test_audit_kernel test_audit_filter test_policy_read test_bench; do
		[ -x "$out/tests/$t" ] || continue
		a=$("$out/tests/$t" 2>&1 | grep -E '^\[  (PASSED|FAILED)  \] [0-9]+ test' | tr '\n' ' ')
		for m in off; do	# SECPATH_INIT_* would also switch libsecpath's own policy
			b=$(env $(mode_env $m) "$out/tests/$t" 2>&1 | grep -E '^\[  (PASSED|FAILED)  \] [0-9]+ test' | tr '\n' ' ')
			if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "$t ($m)"; else bad "$t ($m)" "'$b' vs '$a'"; fi
		done
	done
	if [ -x "$out/tests/test_malloc" ]; then
		for m in $modes; do
			# every test of the program passed (9 since the large-block reuse test)
			if env $(mode_env $m) SECPATH_MALLOC_EXPECT=1 "$out/tests/test_malloc" >"$tmp/tm.out" 2>&1 &&
			   n=$(sed -n 's/^\[==========\] \([0-9]*\) test(s) run.*/\1/p' "$tmp/tm.out") &&
			   [ "${n:-0}" -ge 9 ] && grep -q "^\[  PASSED  \] $n test" "$tmp/tm.out"; then
				ok "test_malloc threads+fork ($m)"
			else
				bad "test_malloc threads+fork ($m)" "$(grep -E 'FAIL|ERROR' "$tmp/tm.out" | head -2 | tr '\n' ' ')"
			fi
		done
	fi
fi

# A double free in a real process dies with the fixed message.
cat >"$tmp/df.c" <<'C'
#include <stdlib.h>
int main(void) { char *volatile p = malloc(40); free(p); free(p); return 0; }
C
if gcc -O0 -o "$tmp/df" "$tmp/df.c" 2>/dev/null; then
	msg=$(LD_PRELOAD=$so sh -c "'$tmp/df' 2>&1 >/dev/null; echo \$? >'$tmp/df.rc'" 2>/dev/null)
	rc=$(cat "$tmp/df.rc"); msg=$(echo "$msg" | head -n 1)
	if [ "$rc" -eq 134 ] && [ "$msg" = "secpath: slab: double free" ]; then ok "double free aborts"
	else bad "double free aborts" "exit $rc, '$msg'"; fi
fi

# init_on_free and its per-size opt-out (SECPATH_MALLOC_NO_INIT), for a slab class (1152) and a
# large block (32 KiB, reused from the large cache with its pages): a freed block comes back
# zero under init_on_free and with the program's bytes when its size is opted out (also a block
# reused with one page written at a time, sparse and then dense, and an opted-out request that
# a bigger cached block serves: the opt-out goes by the size asked for); the stats'
# freed-cleared figures count what was cleared.  Then the large-block hot budget: a program
# cycling through eight 64 KiB blocks refaults on most frees, so the budget grows past 256 KiB.
cat >"$tmp/io.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static const char *reuse(size_t n)
{
	unsigned char *p = malloc(n);
	memset(p, 0xa5, n);
	free(p);
	unsigned char *volatile q = malloc(n);	/* the block just freed: LIFO reuse */
	const char *r = q != p ? "moved" : q[n / 2] == 0xa5 ? "kept" : q[n / 2] == 0 ? "zero" : "other";
	free(q);
	return r;
}
/* A 32 KiB request served by a cached 36 KiB block: the opt-out goes by the size asked for. */
static const char *bigger(void)
{
	unsigned char *p = malloc(36000);
	free(p);
	unsigned char *q = malloc(32768);	/* p's block */
	memset(q, 0xa5, 32768);
	free(q);
	unsigned char *volatile r = malloc(32768);
	const char *v = q != p || r != p ? "moved" : r[100] == 0xa5 ? "kept" : r[100] == 0 ? "zero" : "other";
	free(r);
	return v;
}
/* A 40 KiB block (one no other test touched whole) reused 12 times, one page written each time: the page written before the
 * last free reads back zero (init_on_free: mincore + clear while the block is sparse, a whole
 * clear once it turned dense) or with its byte (opted out). */
static const char *sparse(void)
{
	int kept = 0, zero = 0;
	for (int i = 0; i < 12; i++) {
		unsigned char *volatile q = malloc(40960);
		if (i) {
			unsigned char v = q[((i - 1) % 8) * 4096 + 100];
			kept += v == 0x5a;
			zero += v == 0;
		}
		q[(i % 8) * 4096 + 100] = 0x5a;
		free(q);
	}
	return zero == 11 ? "zero" : kept == 11 ? "kept" : "mixed";
}
int main(int argc, char **argv)
{
	if (argc > 1) {
		/* burst: 8 blocks of 64 KiB allocated and freed 40 times at once; budget: two sets
		 * of 8 blocks (64 and 128 KiB) used in turn 150 ms apart */
		int burst = !strcmp(argv[1], "burst");
		struct timespec t = { 0, 150 * 1000000L };
		void *b[8];
		for (int r = 0; r < (burst ? 40 : 6); r++) {
			size_t n = !burst && r % 2 ? 131072 : 65536;
			for (int i = 0; i < 8; i++)
				memset(b[i] = malloc(n), 1, n);
			for (int i = 0; i < 8; i++)
				free(b[i]);
			if (!burst)
				nanosleep(&t, NULL);
		}
		return 0;
	}
	const char *b = bigger(), *r1 = reuse(1152), *r2 = reuse(32768), *sp = sparse();
	printf("%s %s %s %s\n", b, r1, r2, sp);
	for (int i = 0; i < 100; i++)
		free(malloc(1152));
	return 0;
}
C
if gcc -O0 -fno-builtin -o "$tmp/io" "$tmp/io.c" 2>/dev/null; then
	for o in "" "1152,32768,40960"; do
		got=$(env LD_PRELOAD="$so" SECPATH_INIT_ON_FREE=1 SECPATH_MALLOC_STATS=1 \
			  SECPATH_MALLOC_NO_INIT="$o" "$tmp/io" 2>"$tmp/io.err")
		c1152=$(awk '$2 == "malloc-1152" { print $8 }' "$tmp/io.err")
		large=$(sed -n 's/.*freed bytes cleared: slabs [0-9]*, large \([0-9]*\).*/\1/p' "$tmp/io.err")
		if [ -z "$o" ]; then want="zero zero zero zero"; wc=$((102 * 1152)); wl=$((3 * 36864 + 2 * 32768 + 12 * 40960)); else
			want="kept kept kept kept"; wc=0; wl=36864; fi
		if [ "$got" = "$want" ] && [ "$c1152" = "$wc" ] && [ "${large:--1}" -ge "$wl" ] && { [ -z "$o" ] || [ "$large" = "$wl" ]; }; then
			ok "init_on_free, opt-out '${o:-none}'"
		else
			bad "init_on_free, opt-out '${o:-none}'" "'$got' (want '$want'), cleared 1152: '$c1152' (want $wc), large: '$large' (want $wl, or more: libc's own blocks)"
		fi
	done
	# a list with nothing usable in it opts nothing out (and the library still starts)
	got=$(env LD_PRELOAD="$so" SECPATH_INIT_ON_FREE=1 \
		  SECPATH_MALLOC_NO_INIT='abc,,-5,99999999999999999999999,k,malloc-,0' "$tmp/io" 2>&1)
	if [ "$got" = "zero zero zero zero" ]; then ok "init_on_free, opt-out list of garbage"
	else bad "init_on_free, opt-out list of garbage" "'$got'"; fi
	budget=$(env LD_PRELOAD="$so" SECPATH_MALLOC_STATS=1 "$tmp/io" budget 2>&1 |
		 sed -n 's/.*budget \([0-9]*\)).*/\1/p')
	if [ "${budget:-0}" -gt 262144 ]; then ok "large hot budget grows on refaults"
	else bad "large hot budget grows on refaults" "budget '$budget'"; fi
	# blocks freed and taken back at once stay resident beyond the budget (LARGE_HOT_MS)
	line=$(env LD_PRELOAD="$so" SECPATH_MALLOC_STATS=1 "$tmp/io" burst 2>&1 |
	       grep 'resident, budget')
	res=$(echo "$line" | sed -n 's/.*(\([0-9]*\) resident, budget \([0-9]*\)).*/\1/p')
	bud=$(echo "$line" | sed -n 's/.*(\([0-9]*\) resident, budget \([0-9]*\)).*/\2/p')
	what="large blocks freed in a burst stay hot"
	if [ "${res:-0}" -ge 524288 ] && [ "${bud:-0}" -lt 524288 ]; then ok "$what"
	else bad "$what" "'$line'"; fi
fi

echo "malloc: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
