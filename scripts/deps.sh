#!/usr/bin/env bash
# Install the Debian packages the project uses, quietly and only when one is
# missing.  Run at the start of every make (the rule of build/host.mk in the
# Makefile), so a fresh bookworm machine needs nothing done by hand.
# `deps.sh --missing` only lists the packages it would install.
. "$(dirname "$0")/lib.sh"
KW_STEP=deps

# Everything beyond a Debian minbase system with make and git (the two
# things a person needs to fetch the repository and type `make test`):
# `make fresh-check` proves the list on such a system, on every CI run.
PACKAGES=(
	# compilers and the tools every step uses
	build-essential make git ca-certificates
	# kernel build
	linux-source-6.1 flex bison bc libssl-dev libelf-dev
	ccache dwarves python3 python3-ply python3-git perl cpio rsync xz-utils kmod
	# BPF and the daemon
	# (libclang-rt-14-dev: also libFuzzer, for kfuzztest-fuzz)
	clang llvm libclang-rt-14-dev libbpf-dev bpftool zlib1g-dev libsystemd-dev
	libinih-dev libjson-c-dev pkg-config
	# stack variables by name from DWARF (kwatchctl resolve, kwatchd), a
	# module's file by its name (libkmod)
	libdw-dev libkmod-dev
	# host tests (systemd-analyze verify of the unit wants its ExecReload's
	# /bin/kill, from procps)
	libcmocka-dev systemd procps
	# kwatchd's system-call fault sweep (--inject, -k stacks)
	strace
	# the event schema: lint, validation of every stream, the docs table
	python3-jsonschema
	# make deb
	debhelper dpkg-dev
	# KFuzzTest inputs for the crypto targets
	openssl
	# guest
	qemu-system-x86 qemu-utils mmdebstrap debian-archive-keyring e2fsprogs
	# make syzkaller-check: ssh into a VM as syz-manager does
	openssh-client
)

# make cross-test only (the series on arm64): asked for with --cross.
CROSS_PACKAGES=(gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-system-arm)
# make storm-ab only: fetching bookworm-backports' QEMU (--storm).
STORM_PACKAGES=(curl xz-utils)
case ${1:-} in
--cross) PACKAGES+=("${CROSS_PACKAGES[@]}"); shift ;;
--storm) PACKAGES+=("${STORM_PACKAGES[@]}"); shift ;;
esac

# One dpkg-query for the lot: this runs at the start of every make.
mapfile -t missing < <(
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${PACKAGES[@]}" 2>/dev/null |
		awk -v want="${PACKAGES[*]}" '$1 == "ii" { ok[$2] = 1 }
		END { n = split(want, w, " "); for (i = 1; i <= n; i++) if (!(w[i] in ok)) print w[i] }'
)
if [ "${1:-}" = --missing ]; then
	[ ${#missing[@]} -eq 0 ] || printf '%s\n' "${missing[@]}"
	exit 0
fi
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" -eq 0 ] ||
	die "missing Debian packages: ${missing[*]}; as root: apt-get install ${missing[*]} (or run make as root)"
say "installing ${#missing[@]} Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/kwatch-apt.XXXXXX)
t0=$(date +%s)
run_logged "$log" "apt-get update" apt-get update -q -o Acquire::Retries=3
run_logged "$log" "apt-get install" \
	apt-get install -y -q -o Acquire::Retries=3 --no-install-recommends "${missing[@]}"
rm -f "$log"
say "installed ${#missing[@]} packages"
# A whole install (the default list on a machine that has none of it).
[ ${#missing[@]} -lt 15 ] || kw_time deps $(($(date +%s) - t0))
