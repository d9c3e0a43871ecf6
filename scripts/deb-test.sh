#!/usr/bin/env bash
# `make deb-test`: the packages in someone else's VM.  The test kernel as
# Debian packages (kernel-deb.sh), the kwatch package (make deb), both
# installed by apt into a plain mmdebstrap bookworm (deb-image.sh), booted
# on the packaged kernel, and the deb_install suite run there.  Prints the
# install and boot times.
#   deb-test.sh KWATCH_DEB
. "$(dirname "$0")/lib.sh"
KW_STEP=deb-test

deb=$1
t0=$(date +%s)
kdir=$("$KWATCH_TOP/scripts/kernel-deb.sh")
t1=$(date +%s)
out=$("$KWATCH_TOP/scripts/deb-image.sh" "$deb" "$kdir")
t2=$(date +%s)
rc=0
KWATCH_VM_KERNEL=$out/vmlinuz KWATCH_VM_IMAGE=$out/plain.img \
	"$KWATCH_TOP/scripts/vm.sh" test deb_install || rc=$?
t3=$(date +%s)
inst=$(cat "$out/install-seconds")
say "kernel packages $((t1 - t0))s (0 when reused), plain rootfs and apt install of both ${inst}s, the rest of the image $((t2 - t1 - inst))s, boot and checks $((t3 - t2))s"
echo "kwatch-bench: the packages into a plain bookworm VM: mmdebstrap and apt install ${inst} s, boot and checks $((t3 - t2)) s (TCG)"
exit $rc
