#!/usr/bin/env bash
# Write build/host.mk: every make variable whose value depends on what
# scripts/deps.sh installs (pkg-config flags), computed after deps.sh ran,
# and a check that the tools the recipes call are there.  The top-level
# Makefile includes the file and explains why.  The file is replaced only
# when its contents change, so make reads the makefiles again only then.
#   host-mk.sh OUT
. "$(dirname "$0")/lib.sh"
KW_STEP=host.mk

out=${1:?usage: host-mk.sh OUT}

# The commands the makefiles' recipes run, and the package of each.
tools=(
	gcc:gcc clang:clang bpftool:bpftool pkg-config:pkg-config
	openssl:openssl systemd-analyze:systemd git:git
)
for t in "${tools[@]}"; do
	command -v "${t%%:*}" >/dev/null ||
		die "'${t%%:*}' not found: install the Debian package ${t#*:} (scripts/deps.sh does, as root)"
done

# pkg_config VAR ARGS...: one line "VAR := <pkg-config ARGS>"; pkg-config's
# own message and a stop when it fails.
pkg_config() {
	local var=$1 val
	shift
	val=$(pkg-config "$@" 2>&1) ||
		die "pkg-config $*: $val (the package is in scripts/deps.sh: run it as root)"
	printf '%s := %s\n' "$var" "$val"
}

mkdir -p "$(dirname "$out")"
tmp=$out.tmp.$$
{
	echo "# Written by scripts/host-mk.sh after scripts/deps.sh; do not edit."
	pkg_config KWD_PKG_CFLAGS --cflags libsystemd inih json-c
	pkg_config KWD_PKG_LIBS --libs libsystemd inih json-c
	pkg_config LIBBPF_LIBS --libs libbpf
	pkg_config LIBDW_CFLAGS --cflags libdw
	pkg_config LIBDW_LIBS --libs libdw
	pkg_config KMOD_LIBS --libs libkmod
} >"$tmp" || { rm -f "$tmp"; exit 1; }
if cmp -s "$tmp" "$out"; then
	rm -f "$tmp"
else
	mv "$tmp" "$out"
fi
