#!/usr/bin/env bash
# The image of `make deb-test`: a plain Debian bookworm (mmdebstrap
# minbase with systemd, udev and kmod; nothing of the project's image)
# into which apt installs the linux-image and kwatch packages as a person
# would on a VM of their own (apt fetching their dependencies), plus the
# test harness alone (the guest runner, its helpers, the deb_install
# suite, kwatch-test.service).  Writes $KWATCH_CACHE/deb-image/plain.img
# and the packaged kernel's vmlinuz beside it; prints the directory.
#   deb-image.sh KWATCH_DEB KERNEL_DEB_DIR
. "$(dirname "$0")/lib.sh"
KW_STEP=deb-image

kwatch_deb=$(readlink -f "$1")
kdir=$2
MIRROR=${KWATCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
out=$KWATCH_CACHE/deb-image
stage=$out/stage
kver=$(cat "$KBUILD/include/config/kernel.release")
image_deb=$(ls "$kdir"/linux-image-"$kver"_*.deb)
[ -f "$image_deb" ] || die "no linux-image-$kver package in $kdir"

mkdir -p "$out"
rm -rf "$stage" "$out/debs"
mkdir -p "$out/debs"
cp "$kwatch_deb" "$image_deb" "$out/debs/"
say "mmdebstrap a plain bookworm and apt install $(cd "$out/debs" && ls | tr '\n' ' ')"
t0=$(date +%s)
run_logged "$out/mmdebstrap.log" mmdebstrap \
	mmdebstrap --variant=minbase --mode=root --format=directory \
	--include=systemd-sysv,udev,kmod \
	--aptopt='Acquire::Retries "3"' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--customize-hook="mkdir -p \"\$1/tmp/debs\"" \
	--customize-hook="copy-in $out/debs/$(basename "$kwatch_deb") $out/debs/$(basename "$image_deb") /tmp/debs" \
	--customize-hook='chroot "$1" sh -c "apt-get install -y -q --no-install-recommends /tmp/debs/*.deb && rm -rf /tmp/debs"' \
	bookworm "$stage" "deb $MIRROR bookworm main"
secs=$(($(date +%s) - t0))
say "plain rootfs with both packages installed in ${secs}s"
echo "$secs" >"$out/install-seconds"

# The harness, and what every test VM needs: an identity, the root
# filesystem, a console.
mkdir -p "$stage/opt/kwatch/tests/suites"
cp -a "$KWATCH_TOP/tests/vm/guest" "$stage/opt/kwatch/tests/guest"
cp -a "$KWATCH_TOP/tests/vm/suites/deb_install" "$stage/opt/kwatch/tests/suites/"
cp "$KWATCH_TOP/tests/vm/guest/kwatch-test.service" "$stage/etc/systemd/system/"
ln -sf ../kwatch-test.service "$stage/etc/systemd/system/multi-user.target.wants/kwatch-test.service"
echo kwatch-deb >"$stage/etc/hostname"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$stage/etc/fstab"
cp "$stage/boot/vmlinuz-$kver" "$out/vmlinuz"

rm -f "$out/plain.img.tmp"
mke2fs -q -t ext4 -L kwatch-deb -d "$stage" "$out/plain.img.tmp" 3G >/dev/null
mv "$out/plain.img.tmp" "$out/plain.img"
say "image: $out/plain.img ($(du -sh "$stage" | cut -f1) of files), kernel $out/vmlinuz"
rm -rf "$stage"
echo "$out"
