#!/bin/bash
# units/kwatchd.service and kwatchd.socket pass `systemd-analyze verify`
# (with ExecStart pointed at the host build, since /usr/sbin/kwatchd exists
# only in the guest), the service's `systemd-analyze security` exposure
# is at most MAX_EXPOSURE, and the settings that make it so are there: a
# unit that loses one fails here, not only in a score nobody reads.
set -eu
TOP=@TOP@
# Measured 3.4 before the hardening of issue 17, 2.4 after it.
MAX_EXPOSURE=2.4
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
sed "s|/usr/sbin/kwatchd|$TOP/build/daemon/kwatchd|" "$TOP/units/kwatchd.service" >"$d/kwatchd.service"
cp "$TOP/units/kwatchd.socket" "$d/kwatchd.socket"
out=$(systemd-analyze verify "$d/kwatchd.socket" "$d/kwatchd.service" 2>&1) || { echo "$out"; exit 1; }
[ -z "$out" ] || { echo "verify warnings: $out"; exit 1; }
echo "systemd-analyze verify: clean (service and socket)"

fail=0
need() {	# need FILE KEY=VALUE: the unit sets it
	grep -qx "$2" "$1" || { echo "FAIL: $(basename "$1") lacks $2"; fail=1; }
}
for kv in PrivateNetwork=yes IPAddressDeny=any UMask=0077 DevicePolicy=closed \
	LimitNOFILE=1024 NoNewPrivileges=yes ProtectSystem=strict \
	StartLimitIntervalSec=10min StartLimitBurst=60 RestartPreventExitStatus=78 \
	"RestrictAddressFamilies=AF_UNIX AF_NETLINK" MemoryDenyWriteExecute=yes ProtectHome=read-only \
	"CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_ADMIN CAP_SYSLOG"; do
	need "$d/kwatchd.service" "$kv"
done
for kv in SocketGroup=kwatch SocketMode=0660 FileDescriptorName=events; do
	need "$d/kwatchd.socket" "$kv"
done

# The exit status the unit does not restart on: an unusable kwatchd.conf.
mkdir "$d/conf"
printf 'garbage\n' >"$d/conf/kwatchd.conf"
rc=0
"$TOP/build/daemon/kwatchd" -c "$d/conf" 2>/dev/null || rc=$?
[ "$rc" = 78 ] || { echo "FAIL: kwatchd with a bad kwatchd.conf exited $rc, not 78 (EX_CONFIG)"; fail=1; }

sec=$(systemd-analyze security --offline=true "$d/kwatchd.service" 2>&1) || true
level=$(echo "$sec" | sed -n 's/.*Overall exposure level for kwatchd.service: \([0-9.]*\).*/\1/p')
if [ -z "$level" ]; then
	echo "FAIL: no exposure level from systemd-analyze security:"
	echo "$sec" | tail -n 5
	exit 1
fi
echo "systemd-analyze security: exposure $level (at most $MAX_EXPOSURE; 3.4 before hardening)"
awk -v l="$level" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(l <= m) }' ||
	{ echo "FAIL: exposure $level above $MAX_EXPOSURE"; echo "$sec" | grep '✗'; fail=1; }
exit $fail
