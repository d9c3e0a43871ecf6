#!/usr/bin/env bash
# `make deb`: the kwatch package (kwatchd, kwatchctl, kfuzztest-bridge, the
# units, the sysusers file, /etc/kwatchd as conffiles, the docs and the
# event schema) with debhelper, from packaging/debian and the tree that
# `make install DESTDIR=` stages.  The .deb lands in build/deb/.
#   deb.sh BUILD_DIR BRIDGE
. "$(dirname "$0")/lib.sh"
KW_STEP=deb

B=$(cd "$1" && pwd)
BRIDGE=$2
out=$B/deb
# A version that grows with the history: 0.1.<commits>, and the commit.
n=$(git -C "$KWATCH_TOP" rev-list --count HEAD 2>/dev/null || echo 0)
rev=$(git -C "$KWATCH_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)
ver=0.1.$n
src=$out/kwatch-$ver

rm -rf "$out"
mkdir -p "$src"
cp -a "$KWATCH_TOP/packaging/debian" "$src/debian"
cp "$KWATCH_TOP/units/kwatchd.sysusers" "$src/debian/kwatch.kwatchd.sysusers"
cat >"$src/debian/changelog" <<CHANGES
kwatch ($ver) unstable; urgency=medium

  * Built from commit $rev of the kwatch repository.

 -- kwatch developers <kwatch@localhost>  $(date -R)
CHANGES
DESTDIR=$src/stage "$KWATCH_TOP/scripts/install.sh" "$B" "$BRIDGE" >/dev/null
say "packaging kwatch $ver (commit $rev) with debhelper"
log=$out/dpkg-buildpackage.log
if ! (cd "$src" && DEB_BUILD_OPTIONS=noddebs dpkg-buildpackage -b -us -uc >"$log" 2>&1); then
	tail -n 30 "$log" >&2
	die "dpkg-buildpackage failed; the whole log: $log"
fi
deb=$out/kwatch_${ver}_amd64.deb
[ -f "$deb" ] || die "no $deb after dpkg-buildpackage"
say "$(basename "$deb"): $(du -k "$deb" | cut -f1) KiB, depends on: $(dpkg-deb -f "$deb" Depends)"
