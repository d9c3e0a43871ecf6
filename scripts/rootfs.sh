#!/usr/bin/env bash
# Build (or reuse) the guest's Debian bookworm rootfs tarball with mmdebstrap.
# Prints the tarball's path on stdout.
. "$(dirname "$0")/lib.sh"
KW_STEP=rootfs

LIST=$KWATCH_TOP/tests/vm/rootfs.packages
MIRROR=${KWATCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}

key=$({ grep -v '^#' "$LIST"; cat "$0"; } | sha256sum | cut -c1-16)
tarball=$ROOTFS_DIR/bookworm-$key.tar
if [ -s "$tarball" ]; then
	echo "$tarball"
	exit 0
fi

mkdir -p "$ROOTFS_DIR"
pkgs=$(grep -v '^#' "$LIST" | xargs | tr ' ' ',')
say "mmdebstrap bookworm minbase + $pkgs (a few minutes, once)"
t0=$(date +%s)
log=$ROOTFS_DIR/mmdebstrap-$key.log
run_logged "$log" mmdebstrap \
	mmdebstrap --variant=minbase --mode=root --format=tar \
	--include="$pkgs" \
	--aptopt='Acquire::Retries "3"' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--customize-hook='chroot "$1" sh -c "cd /tmp && apt-get download -q rsyslog && dpkg-deb -x rsyslog_*.deb /opt/rsyslog && rm rsyslog_*.deb"' \
	bookworm "$tarball.tmp" "deb $MIRROR bookworm main"
mv "$tarball.tmp" "$tarball"
# Keep only the current one.
find "$ROOTFS_DIR" -name 'bookworm-*.tar' ! -name "$(basename "$tarball")" -delete
say "rootfs ready: $tarball ($(du -h "$tarball" | cut -f1))"
kw_time rootfs $(($(date +%s) - t0))
echo "$tarball"
