#!/usr/bin/env bash
# Build (or reuse) the guest disk image: the cached Debian rootfs plus the
# project's modules, tests, units and config, written with `mke2fs -d` (no
# mount, no loop device).  VM runs never write to it: each boots a qcow2
# overlay of its own.  Prints the image path on stdout.
. "$(dirname "$0")/lib.sh"
KW_STEP=image

rootfs=$("$KWATCH_TOP/scripts/rootfs.sh")
IMG=$IMAGE_DIR/kwatch.img
STAGE=$IMAGE_DIR/stage
KVER=$(cat "$KBUILD/include/config/kernel.release")

# This kernel's stack variable index (kwatchctl stackvars: from the DWARF of
# vmlinux and the test modules), where kwatchctl resolve and kwatchd's
# variable= look: the guest carries no DWARF (docs/kstackwatch-by-name.md).
SV_DIR=$IMAGE_DIR/stackvars
SV=$SV_DIR/$KVER
KWATCHCTL=$KWATCH_TOP/build/daemon/kwatchctl
sv_stale() {
	[ -s "$SV" ] || return 0
	[ -n "$(find "$KBUILD/vmlinux" "$KWATCHCTL" "$KMODBUILD/ko" -newer "$SV" -print -quit)" ]
}
if sv_stale; then
	rm -rf "$SV_DIR"
	mkdir -p "$SV_DIR"
	t0=$(date +%s.%N)
	"$KWATCHCTL" stackvars "$KBUILD/vmlinux" "$KMODBUILD"/ko/*.ko >"$SV.tmp" ||
		die "kwatchctl stackvars failed on $KBUILD/vmlinux"
	mv "$SV.tmp" "$SV"
	dwarf=$(size -A -d "$KBUILD/vmlinux" | awk '$1 ~ /^\.debug_/ { s += $2 } END { printf "%.1f", s / 1048576 }')
	say "stack variable index: $(grep -vc '^#' "$SV") entries, $(($(stat -c %s "$SV") / 1024)) KiB" \
		"($(gzip -c "$SV" | wc -c | awk '{ printf "%d", $1 / 1024 }') KiB gzipped), from" \
		"vmlinux's $dwarf MiB of DWARF in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
fi

# What goes into the image besides the rootfs, as "source destination" pairs.
overlay_inputs() {
	echo "$KMODBUILD/ko opt/kwatch/modules"
	echo "$KMODBUILD/user opt/kwatch/usermod"
	echo "$KWATCH_TOP/tests/usermod opt/kwatch/usermod/src"
	echo "$SV_DIR usr/lib/kwatch/stackvars"
	echo "$KWATCH_TOP/tests/vm/guest opt/kwatch/tests/guest"
	echo "$KWATCH_TOP/tests/vm/suites opt/kwatch/tests/suites"
	echo "$KWATCH_TOP/config/collectors opt/kwatch/collectors"
	# The kernel's ftrace selftests (ftracetest), for the wprobes suite.
	echo "$KSRC/tools/testing/selftests/ftrace opt/kwatch/ftrace"
	[ -d "$KWATCH_TOP/build/guest" ] && echo "$KWATCH_TOP/build/guest/. ."
	return 0
}

key=$({
	echo "$rootfs $KVER"
	cat "$0"
	overlay_inputs | while read -r src _; do
		find "$src" -type f -print0 | sort -z | xargs -0 -r sha256sum
		find "$src" -type f -printf '%m %p\n' | sort	# a chmod +x counts too
	done
} | sha256sum | cut -c1-16)

if [ -s "$IMG" ] && [ "$(cat "$IMG.key" 2>/dev/null)" = "$key" ]; then
	echo "$IMG"
	exit 0
fi

say "assembling the guest image"
rm -rf "$STAGE"
mkdir -p "$STAGE"
tar -C "$STAGE" -xf "$rootfs"

overlay_inputs | while read -r src dst; do
	mkdir -p "$STAGE/$dst"
	cp -a "$src"/. "$STAGE/$dst/"
done

# Guest set-up: a fixed identity, root without password on the serial
# console, the root filesystem, and the test service.
echo kwatch >"$STAGE/etc/hostname"
echo 0123456789abcdef0123456789abcdef >"$STAGE/etc/machine-id"
sed -i 's/^root:[^:]*:/root::/' "$STAGE/etc/shadow"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$STAGE/etc/fstab"
mkdir -p "$STAGE/etc/systemd/system/serial-getty@ttyS0.service.d"
cat >"$STAGE/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'UNIT'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200,57600,38400,9600 %I $TERM
UNIT
mkdir -p "$STAGE/etc/systemd/system/multi-user.target.wants"
for u in kwatch-test.service kwatch-run.service; do
	cp "$KWATCH_TOP/tests/vm/guest/$u" "$STAGE/etc/systemd/system/"
	ln -sf ../$u "$STAGE/etc/systemd/system/multi-user.target.wants/$u"
done
# Nothing on a throw-away test VM needs these, and they cost boot time.
# syslog-ng is there for the collectors suite, which runs its own.
for u in systemd-firstboot.service apt-daily.timer apt-daily-upgrade.timer \
	e2scrub_all.timer e2scrub_reap.service fstrim.timer syslog-ng.service; do
	ln -sf /dev/null "$STAGE/etc/systemd/system/$u"
done

rm -f "$IMG.tmp"
mke2fs -q -t ext4 -L kwatch -d "$STAGE" "$IMG.tmp" 2G
mv "$IMG.tmp" "$IMG"
echo "$key" >"$IMG.key"
rm -rf "$STAGE"
say "image ready: $IMG"
echo "$IMG"
