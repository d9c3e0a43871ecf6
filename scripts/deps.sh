#!/usr/bin/env bash
# Install the Debian packages the project uses, quietly and only when one is
# missing.  Called by every make target that needs a tool, so a fresh
# bookworm machine needs nothing done by hand.
. "$(dirname "$0")/lib.sh"
KW_STEP=deps

PACKAGES=(
	# kernel build
	linux-source-6.1 build-essential flex bison bc libssl-dev libelf-dev
	ccache dwarves python3 python3-ply python3-git perl cpio rsync xz-utils kmod git
	# BPF and the daemon
	clang llvm libbpf-dev bpftool zlib1g-dev libsystemd-dev libinih-dev
	libjson-c-dev pkg-config
	# host tests
	libcmocka-dev systemd
	# KFuzzTest inputs for the crypto targets
	openssl
	# guest
	qemu-system-x86 qemu-utils mmdebstrap debian-archive-keyring e2fsprogs
)

missing=()
for p in "${PACKAGES[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}) and not root: install them with apt-get"
say "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/kwatch-apt.XXXXXX)
run_logged "$log" "apt-get update" apt-get update -q
run_logged "$log" "apt-get install" \
	apt-get install -y -q --no-install-recommends "${missing[@]}"
rm -f "$log"
say "installed ${#missing[@]} packages"
