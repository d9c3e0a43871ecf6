#!/bin/bash
# units/kwatchd.service passes `systemd-analyze verify` (with ExecStart
# pointed at the host build, since /usr/sbin/kwatchd exists only in the
# guest), and its `systemd-analyze security` exposure is printed.
set -eu
TOP=@TOP@
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
sed "s|/usr/sbin/kwatchd|$TOP/build/daemon/kwatchd|" "$TOP/units/kwatchd.service" >"$d/kwatchd.service"
out=$(systemd-analyze verify "$d/kwatchd.service" 2>&1) || { echo "$out"; exit 1; }
[ -z "$out" ] || { echo "verify warnings: $out"; exit 1; }
echo "systemd-analyze verify: clean"
systemd-analyze security --offline=true "$d/kwatchd.service" 2>/dev/null | grep 'Overall exposure' || true
