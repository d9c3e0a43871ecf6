#!/usr/bin/env bash
# `make fresh-check`: the README's set-up, proved from nothing.
#
# A Debian bookworm minbase system with nothing added but make and git (what
# a person needs to fetch the repository and type the README's command) is
# made once with mmdebstrap and cached, keyed by that package list and its
# apt sources.  Each run unpacks it anew, clones the checkout's committed
# HEAD into it, and runs there, in a chroot, as root:
#
#	make unit-build image
#	make run
#
# that is: every package scripts/deps.sh installs, the kernel tree and
# build, every host program and host test program compiled (not run:
# `make test` runs them, and CI runs `make test` next), the guest image,
# and the README's `make run` (boot, the demonstration, its events), which
# `make test` does not run.  It runs with a KWATCH_CACHE of its own that starts empty but for the host's
# ccache (bind-mounted), so the kernel compiles from a warm compiler cache
# while every package, extraction and other build step happens as on a
# fresh machine.  It passes only when both commands pass, and prints how
# long each step took.
#
# Environment:
#   KWATCH_FRESH_REF=REV        check out REV instead of HEAD (e.g. to show
#                               that an older commit fails)
#   KWATCH_FRESH_CCACHE=empty   an empty ccache too: a fully cold run
#   KWATCH_FRESH_STEPS="A;B"    the commands to run (default above)
#   KWATCH_FRESH_KEEP=1         leave the system after a passing run
#                               (one that fails is always kept)
. "$(dirname "$0")/lib.sh"
KW_STEP=fresh-check

FRESH_DIR=$KWATCH_CACHE/fresh
ROOT=$FRESH_DIR/root
MIRROR=${KWATCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${KWATCH_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
# A fresh bookworm install's apt sources: linux-source-6.1's current
# version is only in bookworm-security.
SOURCES=(
	"deb $MIRROR bookworm main"
	"deb $MIRROR bookworm-updates main"
	"deb $SECURITY bookworm-security main"
)
PACKAGES=(make git)
STEPS=${KWATCH_FRESH_STEPS:-make unit-build image;make run}
# Inside the system: the README's default cache path, so that the kernel's
# compiler command lines (and so ccache's keys) are the host's.
IN_CACHE=/var/cache/kwatch

[ "$(id -u)" -eq 0 ] || die "needs root (chroot and bind mounts)"
ref=$(git -C "$KWATCH_TOP" rev-parse --verify "${KWATCH_FRESH_REF:-HEAD}^{commit}") ||
	die "no commit '${KWATCH_FRESH_REF:-HEAD}' in $KWATCH_TOP"
[ -z "$(git -C "$KWATCH_TOP" status --porcelain --untracked-files=no)" ] ||
	say "note: the checkout has uncommitted changes; the check uses commit ${ref:0:12} only"

# --- the base system, made once ----------------------------------------------

key=$(printf '%s\n' "${PACKAGES[@]}" "${SOURCES[@]}" | sha256sum | cut -c1-16)
base=$FRESH_DIR/bookworm-minbase-$key.tar
mkdir -p "$FRESH_DIR"
if ! [ -s "$base" ]; then
	say "mmdebstrap bookworm minbase + ${PACKAGES[*]} (once; cached as $base)"
	run_logged "$FRESH_DIR/mmdebstrap-$key.log" mmdebstrap \
		mmdebstrap --variant=minbase --mode=root --format=tar \
		--include="$(IFS=,; echo "${PACKAGES[*]}")" \
		--aptopt='Acquire::Retries "3"' \
		bookworm "$base.tmp" "${SOURCES[@]}"
	mv "$base.tmp" "$base"
	find "$FRESH_DIR" -maxdepth 1 -name 'bookworm-minbase-*.tar' ! -name "${base##*/}" -delete
fi

# --- mounts, and their removal whatever happens -----------------------------

# Mount points under $ROOT, deepest first.
mounts_under() {
	awk -v r="$ROOT" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r
}

teardown() {
	local pid m i
	# Nothing started in the system outlives the check (QEMU included).
	for pid in $(ls /proc | grep -E '^[0-9]+$'); do
		[ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$ROOT" ] && kill -9 "$pid" 2>/dev/null
	done
	for i in 1 2 3; do
		for m in $(mounts_under); do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
		[ -z "$(mounts_under)" ] && return 0
		sleep 1
	done
	say "warning: still mounted under $ROOT: $(mounts_under | xargs)"
	return 1
}

teardown || die "cannot unmount the previous run's mounts under $ROOT"
rm -rf --one-file-system "$ROOT"
mkdir -p "$ROOT"
trap 'teardown || true' EXIT

t_prep=$(date +%s)
tar -C "$ROOT" -xf "$base"
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# As in any chroot: packages may not start services (they would run on the
# host's side); nothing here needs one running.
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod 755 "$ROOT/usr/sbin/policy-rc.d"

mount --rbind /dev "$ROOT/dev" && mount --make-rslave "$ROOT/dev"
mount -t proc proc "$ROOT/proc"
mount --rbind /sys "$ROOT/sys" && mount --make-rslave "$ROOT/sys"
mkdir -p "$ROOT/mnt/kwatch-src"
mount --bind "$KWATCH_TOP" "$ROOT/mnt/kwatch-src"
mount -o remount,bind,ro "$ROOT/mnt/kwatch-src"
mkdir -p "$ROOT$IN_CACHE/ccache"
if [ "${KWATCH_FRESH_CCACHE:-}" = empty ]; then
	say "ccache: empty (a fully cold build)"
else
	mkdir -p "$CCACHE_DIR"
	mount --bind "$CCACHE_DIR" "$ROOT$IN_CACHE/ccache"
	say "ccache: the host's $CCACHE_DIR"
fi

# in_root CMD: run CMD (a bash command line) in the system as root, with a
# clean environment: what a new root login has, plus CI's variable.
in_root() {
	chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		${CI:+CI=$CI} KWATCH_CACHE="$IN_CACHE" \
		bash -c "$1"
}

in_root "git clone -q --no-local /mnt/kwatch-src /root/kwatch && git -C /root/kwatch checkout -q $ref" ||
	die "cloning the checkout into the fresh system failed"
say "fresh system ready in $(($(date +%s) - t_prep))s: $ROOT (bookworm minbase + ${PACKAGES[*]}), commit ${ref:0:12}"

# --- the README's commands --------------------------------------------------

mkdir -p "$FRESH_DIR/logs"
rm -f "$FRESH_DIR"/logs/*.log
results=()
verdict=0
n=0
IFS=';' read -r -a steps <<<"$STEPS"
for step in "${steps[@]}"; do
	n=$((n + 1))
	log=$FRESH_DIR/logs/$n.log
	say "== step $n: $step (in the fresh system; log $log)"
	t0=$(date +%s)
	rc=0
	in_root "cd /root/kwatch && $step" 2>&1 | tee "$log" || rc=$?
	d=$(($(date +%s) - t0))
	if [ $rc -eq 0 ]; then
		results+=("  $(mmss $d)  passed  $step")
	else
		results+=("  $(mmss $d)  FAILED  $step (exit $rc; log $log)")
		verdict=1
		break
	fi
done

echo "== make fresh-check: bookworm minbase + ${PACKAGES[*]}, commit ${ref:0:12}, ccache ${KWATCH_FRESH_CCACHE:-shared}"
printf '%s\n' "${results[@]}"
echo "  $(elapsed)  in all"
if [ $verdict -ne 0 ]; then
	echo "make fresh-check: FAILED; the system is kept in $ROOT for a look (chroot $ROOT bash)"
	exit 1
fi
teardown
[ -n "${KWATCH_FRESH_KEEP:-}" ] || rm -rf --one-file-system "$ROOT"
echo "make fresh-check: passed"
