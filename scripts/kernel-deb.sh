#!/usr/bin/env bash
# The test kernel as Debian packages: the kernel's own `bindeb-pkg` on the
# build that `make kernel` made (the series applied, kwatch.config), giving
# linux-image-<release> (with its modules) and linux-headers-<release>.
# Reused while the kernel and its config are the same.  Prints the
# directory of the .debs on stdout.
. "$(dirname "$0")/lib.sh"
KW_STEP=kernel-deb

out=$KWATCH_CACHE/deb$_kw_sfx
kver=$(cat "$KBUILD/include/config/kernel.release")
key=$(cat "$KBUILD/arch/x86/boot/bzImage" "$KBUILD/.config" "$0" | sha256sum | cut -c1-16)
if [ "$(cat "$out/key" 2>/dev/null)" = "$key" ] && ls "$out"/linux-image-"$kver"_*.deb >/dev/null 2>&1; then
	echo "$out"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out"
parent=$(dirname "$KBUILD")
rm -f "$parent"/linux-*.deb "$parent"/linux-*.buildinfo "$parent"/linux-*.changes
say "bindeb-pkg for $kver (the kernel is built: packaging its image, modules and headers)"
log=$out/bindeb-pkg.log
t0=$(date +%s)
run_logged "$log" bindeb-pkg \
	"${KMAKE[@]}" -j"$KWATCH_JOBS" KDEB_PKGVERSION="$kver-1" bindeb-pkg
mv "$parent"/linux-*.deb "$out"/
rm -f "$parent"/linux-*.buildinfo "$parent"/linux-*.changes
# The build must still be the one the image boots: bindeb-pkg relinks
# nothing when the kernel is up to date.
[ "$(cat "$KBUILD/arch/x86/boot/bzImage" "$KBUILD/.config" "$0" | sha256sum | cut -c1-16)" = "$key" ] ||
	say "note: bindeb-pkg rebuilt the kernel"

# The image package carries the kernel's stack variable index (kwatchctl
# stackvars, from vmlinux's DWARF), where kwatchctl resolve and watch.d's
# variable= look: the package has no DWARF (docs/kstackwatch-by-name.md).
img=$(ls "$out"/linux-image-"$kver"_*.deb)
tree=$out/repack
rm -rf "$tree"
dpkg-deb -R "$img" "$tree"
mkdir -p "$tree/usr/lib/kwatch/stackvars"
"$KWATCH_TOP/build/daemon/kwatchctl" stackvars "$KBUILD/vmlinux" >"$tree/usr/lib/kwatch/stackvars/$kver" ||
	die "kwatchctl stackvars failed on $KBUILD/vmlinux"
(cd "$tree" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | xargs -0 md5sum) >"$tree/DEBIAN/md5sums"
run_logged "$out/repack.log" "dpkg-deb -b" dpkg-deb -b -Zxz "$tree" "$img"
rm -rf "$tree"
say "added usr/lib/kwatch/stackvars/$kver to $(basename "$img")"
cat "$KBUILD/arch/x86/boot/bzImage" "$KBUILD/.config" "$0" | sha256sum | cut -c1-16 >"$out/key"
say "$(cd "$out" && ls ./*.deb | sed 's|^\./||' | tr '\n' ' ')in $(($(date +%s) - t0))s"
kw_time kernel_deb $(($(date +%s) - t0))
echo "$out"
