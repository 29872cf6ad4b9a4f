#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# test-html.sh [OUT] - the bench HTML report end to end: run `secpath bench slab-spread audit
# --quick --html` from OUT (default out/release), check the page's structure (every element we
# open is closed, one bar per variant x case, a numeric table per case with a row per variant,
# log axes with decade ticks where the values span decades (audit), the suites' reference marks,
# the host and build rows, nothing external), screenshot it in headless Chromium (Debian package
# chromium, see scripts/deps.txt) and check the PNG is a real rendering: larger than 20 KB, many
# distinct colours, and the bar and reference-mark colours of the charts present in area.
# The PNG is decoded by a small C program (zlib) compiled here: python3 may be missing.
# Ends with "html: N passed, N failed"; exit status 1 when any check failed.
set -u
out=${1:-out/release}
bin=$out/secpath
suites="slab-spread audit"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
check() {	# check DESCRIPTION COMMAND...
	d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
finish() {
	echo "html: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}

html=$tmp/report.html
if ! "$bin" bench $suites --quick --html "$html" >"$tmp/report.txt" 2>"$tmp/err.txt"; then
	bad "secpath bench $suites --quick --html (exit $?)"
	cat "$tmp/err.txt"
	finish
fi
ok "secpath bench $suites --quick --html wrote $(wc -c <"$html") bytes"

# ---- structure ----
count() { grep -o "$1" "$html" | wc -l; }
balanced() {	# balanced TAG: as many <TAG ...> / <TAG> as </TAG>, and at least one
	o=$(grep -oE "<$1[ >]" "$html" | wc -l)
	c=$(count "</$1>")
	[ "$o" -gt 0 ] && [ "$o" -eq "$c" ]
}
for tag in html head body svg section figure figcaption text title table caption tr pre dl ul; do
	check "<$tag> opened and closed equally often" balanced $tag
done
check "starts with <!DOCTYPE html>" sh -c "head -1 '$html' | grep -q '^<!DOCTYPE html>$'"
cases=0
want=0
for suite in $suites; do
	c=$(grep -c "^$suite \[" "$tmp/report.txt")
	v=$("$bin" bench --list | awk -v s="$suite" '$1 == s { f = 1; next }
		f && $1 == "variants:" { print NF - 1; exit }')
	[ "$c" -gt 0 ] || bad "no case of $suite in the text report"
	cases=$((cases + c))
	want=$((want + c * v))
done
bars=$(count 'class="bar ns"')
check "bars = variants x cases summed over $suites ($bars of $want)" [ "$bars" -eq "$want" ]
check "one min-max whisker per bar" [ "$(count 'class="whisker"')" -eq "$bars" ]
check "one numeric table per case ($cases)" [ "$(count '<table class="case">')" -eq "$cases" ]
check "a table row per variant and case" [ "$(count '<td class="name">')" -eq "$want" ]
cols='<th>pstdev %</th><th>noise</th><th>disturbed</th><th>ratio</th><th>per-round ratios</th>'
check "tables have the text report's columns" [ "$(count "$cols")" -eq "$cases" ]
check "the whiskers and the noise rule are explained" \
	sh -c "grep -q 'whisker spans the min&ndash;max of the rounds' '$html' &&
	       grep -q 'above 3%: differences of that size are noise' '$html'"
# audit's kernel layouts and the compiled matcher are 10-40x apart: a log axis per decade
check "log axes with decade ticks (audit)" \
	sh -c "[ \$(grep -o 'class=\"chart ns log\"' '$html' | wc -l) -ge 1 ] &&
	       grep -q '<line class=\"grid major\"' '$html' &&
	       grep -q '<text class=\"tick\"[^>]*>10</text>' '$html' &&
	       grep -q '<text class=\"tick\"[^>]*>100</text>' '$html'"
check "reference marks: kernel thread figures (audit getpid, slab-spread N=200) and a target" \
	sh -c "[ \$(grep -o '<line class=\"ref measured\"' '$html' | wc -l) -ge 4 ] &&
	       grep -q '<line class=\"ref target\"' '$html' &&
	       grep -q '205 ns kernel thread, whole getpid' '$html' &&
	       grep -q 'marked on the charts' '$html'"
check "host rows: CPU, CPU id, cores, L1D with its source, kernel, secpath commit, compiler" \
	sh -c "for r in CPU 'CPU id' cores L1D kernel secpath compiler; do
		       grep -q \"<tr><td>\$r</td><td>\" '$html' || exit 1; done
	       grep -q 'sets; source: ' '$html' && grep -q ', commit ' '$html'"
check "summary: a line per suite, the noise flag explained when set" \
	sh -c "grep -q '  slab-spread  N=' '$html' && grep -q '  audit        ' '$html' &&
	       { ! grep -q ')!' '$html' || grep -q '  ! pstdev/mean above 3%' '$html'; }"
check "no external resources (URLs, scripts, links, images, fonts)" \
	sh -c "! grep -qiE 'https?:|//[a-z]|<script|<link|<img|<iframe|@import' '$html' &&
	       ! grep -qiE '@font-face|url\(|src=|href=' '$html'"
check "machine info, version and context present" \
	sh -c "grep -q 'L1D' '$html' && grep -q '<td>kernel</td>' '$html' &&
	       grep -q 'secpath $("$bin" --version 2>/dev/null | awk '{print $NF}')' '$html' &&
	       grep -q 'class=\"context\"' '$html'"

# ---- rendering ----
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	bad "chromium not installed (apt-get install chromium; see scripts/deps.txt)"
	finish
fi
png=${HTML_SCREENSHOT:-$tmp/report.png}
prof=$(mktemp -d)
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$prof" --screenshot="$png" --window-size=1280,4000 \
	"file://$(cd "$(dirname "$html")" && pwd)/$(basename "$html")" >"$tmp/chromium.log" 2>&1
rm -rf "$prof"
if [ ! -s "$png" ]; then
	bad "chromium wrote no screenshot"
	tail -5 "$tmp/chromium.log"
	finish
fi
size=$(wc -c <"$png")
check "screenshot is larger than 20 KB ($size bytes)" [ "$size" -gt 20000 ]

cat >"$tmp/pngstat.c" <<'EOF'
/* pngstat FILE RRGGBB: width height distinct-colours pixels-near-RRGGBB (+-8 per channel:
 * colour management may shift it), for 8-bit RGB/RGBA non-interlaced PNGs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}
static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "rb");
	if (!f || argc < 3) return 2;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	unsigned char *b = malloc((size_t)n), *z = malloc((size_t)n);
	if (fread(b, 1, (size_t)n, f) != (size_t)n || memcmp(b, "\x89PNG\r\n\x1a\n", 8)) return 3;
	uint32_t w = 0, h = 0, bpp = 0, zn = 0;
	for (long o = 8; o + 12 <= n;) {
		uint32_t len = be32(b + o);
		const unsigned char *t = b + o + 4, *d = b + o + 8;
		if (!memcmp(t, "IHDR", 4)) {
			w = be32(d), h = be32(d + 4);
			if (d[8] != 8 || (d[9] != 2 && d[9] != 6) || d[12]) return 4;
			bpp = d[9] == 6 ? 4 : 3;
		} else if (!memcmp(t, "IDAT", 4)) {
			memcpy(z + zn, d, len), zn += len;
		}
		o += 12 + (long)len;
	}
	size_t stride = (size_t)w * bpp, rawn = (stride + 1) * h;
	unsigned char *raw = malloc(rawn);
	uLongf got = rawn;
	if (!w || uncompress(raw, &got, z, zn) != Z_OK || got != rawn) return 5;
	for (uint32_t y = 0; y < h; y++) {
		/* rows are compacted to raw + y * stride once decoded: "up" is the previous one */
		unsigned char *r = raw + y * (stride + 1), *p = r + 1;
		unsigned char *up = y ? raw + (y - 1) * stride : NULL;
		for (size_t x = 0; x < stride; x++) {
			int a = x >= bpp ? p[x - bpp] : 0, u = up ? up[x] : 0;
			int c = up && x >= bpp ? up[x - bpp] : 0;
			int v = r[0] == 1 ? a : r[0] == 2 ? u : r[0] == 3 ? (a + u) / 2 :
				r[0] == 4 ? paeth(a, u, c) : 0;
			p[x] = (unsigned char)(p[x] + v);
		}
		if (y) memmove(raw + y * stride, p, stride);
		else memmove(raw, p, stride);
	}
	uint32_t want = (uint32_t)strtoul(argv[2], NULL, 16), cap = 1u << 20;
	uint32_t *set = calloc(cap, sizeof(*set));
	unsigned long distinct = 0, match = 0;
	for (size_t i = 0; i < (size_t)w * h; i++) {
		const unsigned char *q = raw + i * bpp;
		uint32_t c = (uint32_t)q[0] << 16 | q[1] << 8 | q[2];
		int dr = abs((int)q[0] - (int)(want >> 16));
		int dg = abs((int)q[1] - (int)(want >> 8 & 255));
		match += dr <= 8 && dg <= 8 && abs((int)q[2] - (int)(want & 255)) <= 8;
		uint32_t k = (c + 1) * 2654435761u, key = c + 1;
		for (k &= cap - 1; set[k] && set[k] != key; k = (k + 1) & (cap - 1));
		if (!set[k] && distinct < cap / 2) set[k] = key, distinct++;
	}
	printf("%u %u %lu %lu\n", w, h, distinct, match);
	return 0;
}
EOF
if ! cc -O1 -o "$tmp/pngstat" "$tmp/pngstat.c" -lz 2>"$tmp/cc.log"; then
	bad "cannot build the PNG checker (zlib1g-dev)"
	cat "$tmp/cc.log"
	finish
fi
# The first non-baseline variant's bar colour (report_html.c's palette[0]), and the colour of
# the marks of figures measured elsewhere (its css, "ref.measured").
stat=$("$tmp/pngstat" "$png" 4e79a7) || { bad "screenshot is not an 8-bit RGB(A) PNG"; finish; }
set -- $stat
check "screenshot is 1280 px wide ($1 x $2)" [ "$1" -eq 1280 ]
check "screenshot has many colours ($3 distinct), not a blank page" [ "$3" -gt 50 ]
check "bars rendered: $4 pixels of the bar colour #4e79a7" [ "$4" -gt 500 ]
set -- $("$tmp/pngstat" "$png" 8e1b1b)
check "reference marks rendered: $4 pixels of the mark colour #8e1b1b" [ "$4" -gt 300 ]
finish
