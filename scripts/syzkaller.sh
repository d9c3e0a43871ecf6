#!/usr/bin/env bash
# A fleet of the project's kernel for syzkaller's manager: the image its
# qemu VMs boot, their ssh key, the manager configuration, and a check that
# a VM started exactly as syz-manager starts one comes up with ssh and the
# kernel's KFuzzTest targets, each driven once with an input as syzkaller
# encodes it.  Run with KWATCH_FLAVOR=syzkaller (make syzkaller-check): the
# kernel is kwatch.config plus kwatch-syzkaller.config.
#
#   syzkaller.sh image                 the disk image and the ssh key
#   syzkaller.sh config N [SYZKALLER] [WORKDIR]
#                                      the manager configuration for N VMs
#   syzkaller.sh check DESCRIPTIONS    boot one VM as syz-manager does, ssh
#
# Everything is kept in $KWATCH_CACHE/syzkaller/: image.img, key, key.pub,
# kfuzztest.txt (the descriptions), manager-dynamic.cfg and
# manager-static.cfg (the two ways syzkaller takes KFuzzTest targets).
. "$(dirname "$0")/lib.sh"
KW_STEP=syzkaller

[ "$KWATCH_FLAVOR" = syzkaller ] || die "run with KWATCH_FLAVOR=syzkaller (make syzkaller-check)"
OUT=$KWATCH_CACHE/syzkaller
MIRROR=${KWATCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KERNEL=$KBUILD/arch/x86/boot/bzImage
mkdir -p "$OUT"

# The image: a plain bookworm with sshd (and the sftp server scp needs),
# systemd-networkd taking DHCP on eth0 (syz-manager boots with
# net.ifnames=0), root's authorized key, nothing else of the project's:
# the kernel comes from -kernel, and syzkaller brings its own programs.
image() {
	local stage=$OUT/stage t0
	[ -f "$OUT/key" ] || ssh-keygen -q -t ed25519 -N '' -C kwatch-syzkaller -f "$OUT/key"
	if [ -f "$OUT/image.img" ] && [ "$OUT/image.img" -nt "$0" ] && [ "$OUT/image.img" -nt "$OUT/key" ]; then
		say "image: $OUT/image.img (kept)"
		return
	fi
	rm -rf "$stage"
	t0=$(date +%s)
	say "mmdebstrap a plain bookworm with openssh-server"
	run_logged "$OUT/mmdebstrap.log" mmdebstrap \
		mmdebstrap --variant=minbase --mode=root --format=directory \
		--include=systemd-sysv,udev,kmod,iproute2,openssh-server,openssh-sftp-server \
		--aptopt='Acquire::Retries "3"' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		bookworm "$stage" "deb $MIRROR bookworm main"
	install -d -m 700 "$stage/root/.ssh"
	install -m 600 "$OUT/key.pub" "$stage/root/.ssh/authorized_keys"
	printf '[Match]\nName=eth0\n\n[Network]\nDHCP=yes\n' >"$stage/etc/systemd/network/80-eth0.network"
	ln -sf /lib/systemd/system/systemd-networkd.service \
		"$stage/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
	echo kwatch-syz >"$stage/etc/hostname"
	printf '/dev/root / ext4 rw,errors=remount-ro 0 1\n' >"$stage/etc/fstab"
	# The serial console is syz-manager's crash log: no getty on it.
	ln -sf /dev/null "$stage/etc/systemd/system/serial-getty@ttyS0.service"
	rm -f "$OUT/image.img.tmp"
	mke2fs -q -t ext4 -L kwatch-syz -d "$stage" "$OUT/image.img.tmp" 2G
	mv "$OUT/image.img.tmp" "$OUT/image.img"
	rm -rf "$stage"
	say "image: $OUT/image.img in $(($(date +%s) - t0)) s"
}

# syz-manager's qemu VM type with the project's kernel (the arguments of
# its vm/qemu: user network restricted to the forwarded ssh port on
# 127.0.0.1, virtio-rng, -snapshot, its kernel command line): its e1000 and
# -hda defaults replaced by virtio (the kernel's devices), KVM when the
# fleet's machines have it, TCG here; panic_on_warn and the rest of its
# command line are syz-manager's own.
config() {
	local n=$1 syz=${2:-/opt/syzkaller} work=${3:-$OUT/workdir} calls
	[ -f "$OUT/kfuzztest.txt" ] || die "no descriptions: run check first"
	calls=$(sed -n 's/^\(syz_kfuzztest_run\$[A-Za-z0-9_]*\)(.*/"\1"/p' "$OUT/kfuzztest.txt" | paste -sd, -)
	for mode in dynamic static; do
		sed -e "s|@N@|$n|" -e "s|@SYZKALLER@|$syz|" -e "s|@WORKDIR@|$work|" \
			-e "s|@KBUILD@|$KBUILD|" -e "s|@IMAGE@|$OUT/image.img|" -e "s|@KEY@|$OUT/key|" \
			-e "s|@KERNEL@|$KERNEL|" -e "s|@CALLS@|$calls|" \
			"$KWATCH_TOP/config/syzkaller/manager-$mode.cfg.in" >"$OUT/manager-$mode.cfg"
		python3 -m json.tool "$OUT/manager-$mode.cfg" >/dev/null ||
			die "$OUT/manager-$mode.cfg is not JSON"
	done
	say "manager configurations for $n VMs: $OUT/manager-dynamic.cfg (syzkaller finds the" \
		"targets in kernel_obj's vmlinux), $OUT/manager-static.cfg (the descriptions" \
		"$OUT/kfuzztest.txt compiled into syzkaller, only their calls enabled)"
}

# The v0 input syzkaller's encoder (prog/kfuzztest.go) writes for a struct
# of two u64s (test_trivial's): header, one region, no relocation, padding
# to the payload's 8-byte alignment, the payload, 8 zero bytes after it.
trivial_input() {
	python3 -c '
import struct, sys
meta = struct.pack("<II", 0xBFACE, 0) + struct.pack("<III", 1, 0, 16) + struct.pack("<II", 0, 0)
pad = ((len(meta) + 8 + 7) // 8) * 8 - len(meta)
meta = meta[:-4] + struct.pack("<I", pad)
sys.stdout.buffer.write(meta + bytes(pad) + struct.pack("<QQ", 7, 9) + bytes(8))'
}

# syz-manager's command line for linux/amd64 (vm/qemu's archConfigs),
# then the configuration's "cmdline".
SYZ_CMDLINE="earlyprintk=serial oops=panic nmi_watchdog=panic panic_on_warn=1 panic=1
ftrace_dump_on_oops=orig_cpu vsyscall=native net.ifnames=0 biosdevname=0 root=/dev/sda
console=ttyS0 kvm-intel.nested=1 kvm-intel.unrestricted_guest=1 kvm-intel.vmm_exclusive=1
kvm-intel.fasteoi=1 kvm-intel.ept=1 kvm-intel.flexpriority=1 kvm-intel.vpid=1
kvm-intel.emulate_invalid_guest_state=1 kvm-intel.eptad=1 kvm-intel.enable_shadow_vmcs=1
kvm-intel.pml=1 kvm-intel.enable_apicv=1"
SYZ_CMDLINE=$(echo $SYZ_CMDLINE)

check() {
	local descr=$1 port log pid t0 up ssh targets calls missing ok=0
	cp "$descr" "$OUT/kfuzztest.txt"
	log=$OUT/boot.log
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	t0=$(date +%s)
	say "booting $KERNEL as syz-manager's qemu VM type does (ssh on port $port)"
	qemu-system-x86_64 -m 2048 -smp 2 -display none -serial stdio -no-reboot \
		-device virtio-rng-pci -accel tcg,thread=multi -cpu max \
		-device virtio-net-pci,netdev=net0 \
		-netdev user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:"$port"-:22 \
		-drive index=0,media=disk,if=virtio,format=raw,file="$OUT/image.img" -snapshot \
		-kernel "$KERNEL" \
		-append "$SYZ_CMDLINE root=/dev/vda" \
		>"$log" 2>&1 &
	pid=$!
	# The VM goes with the script, whatever stops it (a global: the trap
	# runs outside this function).
	SYZ_VM_PID=$pid
	trap 'kill "${SYZ_VM_PID:-}" 2>/dev/null; wait "${SYZ_VM_PID:-}" 2>/dev/null || true' EXIT
	ssh=(ssh -p "$port" -i "$OUT/key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
		-o BatchMode=yes -o ConnectTimeout=10 -o LogLevel=error root@localhost)
	up=
	while [ $(($(date +%s) - t0)) -lt 600 ] && kill -0 $pid 2>/dev/null; do
		if "${ssh[@]}" true 2>/dev/null; then
			up=$(($(date +%s) - t0))
			break
		fi
		sleep 5
	done
	if [ -z "$up" ]; then
		kill $pid 2>/dev/null || true
		tail -n 30 "$log" >&2
		die "no ssh within 600 s (boot log: $log)"
	fi
	say "ssh as root with the key after ${up} s (TCG)"
	echo "ok 1 - the VM boots as syz-manager starts it and takes its ssh key (${up} s)"
	targets=$("${ssh[@]}" 'ls /sys/kernel/debug/kfuzztest/' | { grep -v '^_' || true; } | sort)
	calls=$(sed -n 's/^syz_kfuzztest_run\$\([A-Za-z0-9_]*\)(.*/\1/p' "$descr" | sort)
	missing=$(comm -3 <(echo "$targets") <(echo "$calls"))
	if [ -z "$missing" ]; then
		echo "ok 2 - its KFuzzTest targets are the descriptions' calls ($(echo "$calls" | wc -l))"
	else
		echo "$missing" | sed 's/^/# differs: /'
		echo "not ok 2 - its KFuzzTest targets are the descriptions' calls"
		ok=1
	fi
	if trivial_input | "${ssh[@]}" 'cat >/tmp/in && dd if=/tmp/in of=/sys/kernel/debug/kfuzztest/test_trivial/input bs=4096 2>&1 && echo wrote' | grep -q wrote; then
		echo "ok 3 - an input as syzkaller encodes it runs test_trivial"
	else
		echo "not ok 3 - an input as syzkaller encodes it runs test_trivial"
		ok=1
	fi
	"${ssh[@]}" 'ls /sys/kernel/debug/kcov' >/dev/null 2>&1 &&
		echo "ok 4 - /sys/kernel/debug/kcov is there for syzkaller's coverage" ||
		{ echo "not ok 4 - no /sys/kernel/debug/kcov"; ok=1; }
	"${ssh[@]}" 'poweroff' >/dev/null 2>&1 || true
	sleep 5
	kill $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	trap - EXIT
	{ grep -E 'BUG:|WARNING:|KASAN:' "$log" || true; } | head -5 | sed 's/^/# kernel: /'
	if grep -qE 'BUG:|WARNING:|KASAN:' "$log"; then
		echo "not ok 5 - no kernel report during the boot and the checks"
		ok=1
	else
		echo "ok 5 - no kernel report during the boot and the checks"
	fi
	return $ok
}

case ${1:-} in
image) image ;;
config) config "${2:?N}" "${3:-}" "${4:-}" ;;
check) check "${2:?DESCRIPTIONS}" ;;
*) die "usage: syzkaller.sh image | config N [SYZKALLER] [WORKDIR] | check DESCRIPTIONS" ;;
esac
