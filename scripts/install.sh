#!/usr/bin/env bash
# `make install`: kwatchd, kwatchctl, kfuzztest-bridge and kfuzztest-fuzz with their
# units, sysusers file, configuration and documents, for systems that do
# not take the .deb (`make deb` packages the same tree).
#   install.sh BUILD_DIR BRIDGE
# DESTDIR (a staging root), PREFIX (/usr), SYSCONFDIR (/etc) and UNITDIR
# (/lib/systemd/system, Debian's) come from the environment.  An existing
# configuration file is left alone: its new version goes beside it as
# FILE.dist, and the script says so.
set -euo pipefail

B=$1
BRIDGE=$2
TOP=$(cd "$(dirname "$0")/.." && pwd)
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr}
SYSCONFDIR=${SYSCONFDIR:-/etc}
UNITDIR=${UNITDIR:-/lib/systemd/system}

case $PREFIX$SYSCONFDIR$UNITDIR in
*' '*) echo "install: paths with spaces are not supported" >&2; exit 1 ;;
esac

ins() { install -D -m "$1" "$2" "$DESTDIR$3"; }

ins 0755 "$B/daemon/kwatchd" "$PREFIX/sbin/kwatchd"
ins 0755 "$B/daemon/kwatchctl" "$PREFIX/bin/kwatchctl"
ins 0755 "$BRIDGE" "$PREFIX/bin/kfuzztest-bridge"
# kfuzztest-fuzz, built beside the bridge (fuzz.d generate = guided).
ins 0755 "$(dirname "$BRIDGE")/kfuzztest-fuzz" "$PREFIX/bin/kfuzztest-fuzz"
# kfuzztest-list: a module's targets from its .ko, for the bridge's -t.
if [ -x "$B/host/kfuzztest-list" ]; then
	ins 0755 "$B/host/kfuzztest-list" "$PREFIX/bin/kfuzztest-list"
fi
# The KFuzzTest records of the kernel built beside it (kfuzztest-list), for
# the bridge's schemas from BTF (fuzz.d generate = yes); once it is built.
TABLE=$B/guest/opt/kwatch/kfuzztest-targets.txt
if [ -r "$TABLE" ]; then
	ins 0644 "$TABLE" "$PREFIX/share/kwatch/kfuzztest-targets.txt"
else
	echo "install: no $TABLE (the kernel is not built): fuzz.d generate = yes needs it"
fi
# The units name /usr/sbin/kwatchd; another PREFIX gets its own path.
for u in kwatchd.service kwatchd.socket; do
	install -d "$DESTDIR$UNITDIR"
	sed "s|/usr/sbin/kwatchd|$PREFIX/sbin/kwatchd|" "$TOP/units/$u" >"$DESTDIR$UNITDIR/$u"
	chmod 0644 "$DESTDIR$UNITDIR/$u"
done
ins 0644 "$TOP/units/kwatchd.sysusers" "$PREFIX/lib/sysusers.d/kwatchd.conf"

(cd "$TOP/config" && find . -type f -not -path './collectors/*' | sort) | while read -r f; do
	f=${f#./}
	dst=$DESTDIR$SYSCONFDIR/kwatchd/$f
	if [ -e "$dst" ] && ! cmp -s "$TOP/config/$f" "$dst"; then
		install -D -m 0644 "$TOP/config/$f" "$dst.dist"
		echo "install: $dst exists and differs: the new one is $dst.dist"
	else
		install -D -m 0644 "$TOP/config/$f" "$dst"
	fi
done

for d in README.md docs/event-schema.md docs/collectors.md docs/kwatchd-capture.md \
	docs/kstackwatch-by-name.md docs/kfuzztest-generate.md; do
	ins 0644 "$TOP/$d" "$PREFIX/share/doc/kwatch/$(basename "$d")"
done
for c in "$TOP"/config/collectors/*; do
	ins 0644 "$c" "$PREFIX/share/doc/kwatch/collectors/$(basename "$c")"
done
ins 0644 "$TOP/docs/event-schema.json" "$PREFIX/share/kwatch/event-schema.json"
ins 0755 "$TOP/scripts/event-schema" "$PREFIX/share/kwatch/event-schema"
# The installed checker finds its schema beside it.
sed -i "s|^SCHEMA = .*|SCHEMA = \"$PREFIX/share/kwatch/event-schema.json\"|" \
	"$DESTDIR$PREFIX/share/kwatch/event-schema"

echo "install: kwatch installed under ${DESTDIR:-/} (PREFIX=$PREFIX, UNITDIR=$UNITDIR)"
if [ -z "$DESTDIR" ]; then
	echo "install: now: systemd-sysusers && systemctl daemon-reload && systemctl enable --now kwatchd.socket kwatchd.service"
fi
