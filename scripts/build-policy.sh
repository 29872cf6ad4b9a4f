#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# build-policy.sh - rebuild secpath's bundled SELinux kernel policies from Debian 12 packages.
#
#   apt-get install -y semodule-utils policycoreutils checkpolicy xz-utils bzip2
#   bash scripts/build-policy.sh [OUTDIR]        (default: data/policy; about 1 minute)
#
# Produces, xz-compressed, in OUTDIR:
#   debian-default.policy.33            what selinux-policy-default's postinst builds (semodule,
#                                       CIL path, 314 enabled modules), into a private root
#   debian-default-linkexpand.policy.33 the same enabled modules via semodule_link + _expand
#   debian-base-only.policy.33          base.pp alone via semodule_expand (a small real policy)
#   debian-mls.policy.33                (with MLS=1) the same recipe for selinux-policy-mls
# and the hand-written fixtures tests/data/policy/{tiny.30..33,compat.15..33} from
# tests/data/policy/tiny.conf and tiny-compat.conf via checkpolicy -c V (with FIXTURES=1).
# Builds are bit-reproducible: compare `xz -dc F | sha256sum` with data/policy/SHA256SUMS.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(realpath -m "${1:-$HERE/data/policy}")
mkdir -p "$OUT"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"

# Modules the Debian postinst installs but leaves disabled (selinux-policy-{default,mls}
# 2:2.20221101-9 postinst).
NOTDEFAULT="amtu bugzilla cobbler condor cyphesis git ksmtuned likewise livecd nessus numad oddjob openca soundserver thunderbird updfstab usernetctl"

flavours=default
[ "${MLS:-0}" = 1 ] && flavours="default mls"
for flavour in $flavours; do
	apt-get download "selinux-policy-$flavour" >/dev/null
	mkdir -p "x-$flavour"
	dpkg -x selinux-policy-"$flavour"_*.deb "x-$flavour"
	D="x-$flavour/usr/share/selinux/$flavour"
	ROOT="$W/root-$flavour"
	mkdir -p "$ROOT/etc/selinux" "$ROOT/var/lib/selinux"
	args=()
	for m in $(cat "$D/.modules"); do args+=("-i$D/$m.pp.bz2"); done
	for m in $NOTDEFAULT; do args+=("-d$m"); done
	# the postinst's command line, pointed at a private root with -p
	semodule -p "$ROOT" -X 100 -n -s "$flavour" "${args[@]}" >"semodule-$flavour.log" 2>&1
	cp "$ROOT/etc/selinux/$flavour/policy/policy.33" "debian-$flavour.policy.33"
done

# the legacy link/expand path over the same enabled module set, and base.pp alone
D="x-default/usr/share/selinux/default"
mkdir -p pp
mods=()
for m in $(cat "$D/.modules"); do
	bzip2 -dc "$D/$m.pp.bz2" >"pp/$m.pp"
	[ "$m" = base ] && continue
	case " $NOTDEFAULT " in *" $m "*) continue ;; esac
	mods+=("pp/$m.pp")
done
semodule_link -o linked.pp pp/base.pp "${mods[@]}" >/dev/null
semodule_expand linked.pp debian-default-linkexpand.policy.33
semodule_expand pp/base.pp debian-base-only.policy.33

sha256sum debian-*.policy.33
for f in debian-*.policy.33; do xz -9e -T1 -c "$f" >"$OUT/$f.xz"; done

if [ "${FIXTURES:-0}" = 1 ]; then
	T="$HERE/tests/data/policy"
	for v in 30 31 32 33; do checkpolicy -c $v -o "$T/tiny.$v" "$T/tiny.conf" >/dev/null; done
	for v in $(seq 15 33); do
		checkpolicy -c "$v" -o "$T/compat.$v" "$T/tiny-compat.conf" >/dev/null 2>&1
	done
fi
echo "policies written to $OUT"
