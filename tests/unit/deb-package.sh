#!/bin/bash
# The kwatch .deb that `make deb` builds: what it depends on (the shared
# libraries dh_shlibdeps found, systemd), what it holds (the binaries, both
# units, the sysusers file, /etc/kwatchd as conffiles, the docs and the
# schema), that its postinst makes the group before it starts the units,
# and that its binaries run from the unpacked tree.  Exits 0 when all pass.
set -u
DEB=@DEB@
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fails=0
fail() { echo "# FAIL: $*"; fails=$((fails + 1)); }

[ -f "$DEB" ] || { echo "# FAIL: no $DEB"; exit 1; }
echo "# $(basename "$DEB"): $(du -k "$DEB" | cut -f1) KiB"
dep=$(dpkg-deb -f "$DEB" Depends)
echo "# Depends: $dep"
for p in libbpf1 libsystemd0 libjson-c5 libinih1 libdw1 systemd; do
	echo "$dep" | grep -qw "$p" || fail "Depends lacks $p"
done
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|' >"$d/files"
for f in /usr/sbin/kwatchd /usr/bin/kwatchctl /usr/bin/kfuzztest-bridge /usr/bin/kfuzztest-fuzz \
	/lib/systemd/system/kwatchd.service /lib/systemd/system/kwatchd.socket \
	/usr/lib/sysusers.d/kwatchd.conf /etc/kwatchd/kwatchd.conf \
	/usr/share/kwatch/event-schema.json /usr/share/doc/kwatch/event-schema.md.gz \
	/usr/share/kwatch/kfuzztest-targets.txt \
	/usr/share/doc/kwatch/copyright; do
	grep -qx "$f" "$d/files" || fail "no $f in the package"
done
dpkg-deb -e "$DEB" "$d/ctl"
grep -qx /etc/kwatchd/kwatchd.conf "$d/ctl/conffiles" || fail "kwatchd.conf is not a conffile"
# The group first, then the units.
s=$(grep -n 'systemd-sysusers' "$d/ctl/postinst" | head -n1 | cut -d: -f1)
u=$(grep -n 'deb-systemd-invoke' "$d/ctl/postinst" | head -n1 | cut -d: -f1)
[ -n "$s" ] && [ -n "$u" ] && [ "$s" -lt "$u" ] || fail "postinst does not run systemd-sysusers before starting the units"
grep -q "enable 'kwatchd.socket'" "$d/ctl/postinst" || fail "postinst does not enable kwatchd.socket"
# A package for someone else's VM pushes nowhere by default.
dpkg-deb -x "$DEB" "$d/root"
grep -q '^push' "$d/root/etc/kwatchd/kwatchd.conf" && fail "the packaged kwatchd.conf pushes to the test VM's port"
"$d/root/usr/bin/kwatchctl" help >/dev/null 2>&1 || "$d/root/usr/bin/kwatchctl" 2>&1 | grep -q usage ||
	fail "the packaged kwatchctl does not run"
printf '{"schema":1}\n' | KWATCH_EVENT_SCHEMA=$d/root/usr/share/kwatch/event-schema.json \
	/usr/bin/python3 "$d/root/usr/share/kwatch/event-schema" validate - 2>&1 | grep -q '1 not valid' ||
	fail "the packaged event-schema checker does not find its schema"
if [ $fails -ne 0 ]; then
	echo "# $fails check(s) failed"
	exit 1
fi
echo "# kwatch .deb: all checks passed"
