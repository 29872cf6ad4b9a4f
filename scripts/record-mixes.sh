#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# record-mixes.sh - re-record data/audit/recorded/: real programs run under `secpath audit run`
# as a login user (uid, gid and auid 1000, so the rules' auid>=1000 conditions see what they
# were written for), each syscall event kept as an sp_audit_record stream (--record), with the
# count of events audit run recorded for neo23x0-audit.rules (whose exe= and watch rules
# depend on the identities below; the rules read with -c and the bench's pinned host inputs,
# data/audit/env/, as the bench reads them); and the identity (inode, device,
# mode) of every path the bundled stig and neo23x0 rule sets name, and its ancestors, as
# stat() gave them during the recording (the recorded events carry this host's inodes, so a
# reader of the streams needs the same identities for the rules' paths).
#
# usage: sh scripts/record-mixes.sh [SECPATH]    (as root: it sets the workloads' loginuid)
# The workloads run in /tmp/secpath-mix (removed and re-created) with HOME there; every
# path the streams hold is that directory's, the system's, or a program's own.
set -eu
cd "$(dirname "$0")/.."
SP=${1:-out/release/secpath}
[ -x "$SP" ] || { echo "record-mixes: $SP not built (make)" >&2; exit 1; }
SP=$(cd "$(dirname "$SP")" && pwd)/$(basename "$SP")
[ "$(id -u)" = 0 ] || { echo "record-mixes: run as root (loginuid)" >&2; exit 1; }
OUT=$(pwd)/data/audit/recorded
STIG=$(pwd)/data/audit/rules/debian/30-stig.rules
RULES=$(pwd)/data/audit/rules/thirdparty/neo23x0-audit.rules
ENV=$(pwd)/data/audit/env	# the host inputs the bench parses the rules with
W=/tmp/secpath-mix
for p in tar gzip git cc python3 cp mv chmod ln rm; do
	command -v $p >/dev/null || { echo "record-mixes: $p missing" >&2; exit 1; }
done
[ -x /usr/bin/python3 ] || { echo "record-mixes: /usr/bin/python3 missing" >&2; exit 1; }
rm -rf "$W"
mkdir -p "$W" "$OUT"
chown 1000:1000 "$W"

# the workloads, each a shell script run by /bin/sh in $W
cat >"$W/files.sh" <<'EOF'
mkdir -p d/a d/b
for i in 1 2 3 4 5 6 7 8; do echo "line $i" > d/a/f$i; done
cp d/a/f1 d/b/g1; mv d/b/g1 d/b/h1; chmod 600 d/b/h1; ln -s h1 d/b/l1; rm d/b/l1
ls -l d/a >/dev/null; cat /etc/passwd >/dev/null
cat /etc/shadow >/dev/null 2>&1 || true
touch /etc/nosuch 2>/dev/null || true
rm -rf d
EOF
cat >"$W/tar.sh" <<'EOF'
mkdir -p t/x/y; for i in 1 2 3 4; do echo "$i" > t/x/y/f$i; done
tar -czf t.tgz t; rm -rf t; tar -xzf t.tgz; rm -rf t t.tgz
EOF
cat >"$W/git.sh" <<'EOF'
git init -q repo; cd repo; echo a > a; echo b > b
git add a b; git -c user.name=u -c user.email=u@example.org commit -qm one
echo c >> a; git -c user.name=u -c user.email=u@example.org commit -qam two
git log --oneline >/dev/null; git status --short >/dev/null; cd ..; rm -rf repo
EOF
cat >"$W/cc.sh" <<'EOF'
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > hello.c
cc -O2 -c hello.c -o hello.o; cc hello.o -o hello; ./hello >/dev/null; rm -f hello hello.o hello.c
EOF
cat >"$W/python.sh" <<'EOF'
/usr/bin/python3 -c 'import json, os; json.dump({"a": 1}, open("p.json", "w")); os.chmod("p.json", 0o600); os.unlink("p.json")'
EOF
chmod 644 "$W"/*.sh

printf 'mix\tsyscalls\trecorded (neo23x0-audit.rules)\n' >"$OUT/summary.tsv"
for m in files tar git cc python; do
	sh -c 'echo 1000 >/proc/self/loginuid && cd "$1" && exec setpriv --reuid=1000 \
		--regid=1000 --clear-groups env -i HOME="$1" PATH=/usr/bin:/bin LANG=C \
		"$2" audit run -c -R "$3" --passwd "$5/passwd" --group "$5/group" --dirs "$5/dirs" \
		--record "$1/$4.rec" --output "$1/$4.log" --summary "$1/$4.sum" --json \
		-- /bin/sh "$1/$4.sh"' sh "$W" "$SP" "$RULES" "$m" "$ENV"
	cp "$W/$m.rec" "$OUT/$m.rec"
	python3 - "$W/$m.sum" "$m" >>"$OUT/summary.tsv" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
print("%s\t%d\t%d" % (sys.argv[2], s["syscalls"], s["recorded"]))
EOF
done

# every path the two rule sets name (watches, path=, dir=, exe=), then its ancestors
{
	printf '# ino\tdev major\tdev minor\tst_mode (hex)\tpath: stat() during the recording\n'
	sed -n -e 's/^-w[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' \
		-e 's/.*-F[[:space:]]*\(path\|dir\|exe\)=\([^[:space:]]*\).*/\2/p' "$STIG" "$RULES" |
	while read -r p; do
		case $p in /*) ;; *) continue ;; esac
		p=${p%/}
		while [ -n "$p" ]; do
			echo "$p"
			p=${p%/*}
		done
		echo /
	done | sort -u | while read -r p; do
		if [ -e "$p" ]; then stat -c '%i	%Hd	%Ld	%f	%n' "$p"; fi
	done
} >"$OUT/identities.tsv"
rm -rf "$W"
echo "record-mixes: wrote $(ls "$OUT" | wc -l) files to data/audit/recorded"
