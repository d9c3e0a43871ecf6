# shellcheck shell=bash
# Common settings and helpers for the kwatch build and test scripts.
# Sourced, never run.  Every path can be overridden from the environment.

set -euo pipefail

KWATCH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KWATCH_CACHE=${KWATCH_CACHE:-/var/cache/kwatch}
KWATCH_JOBS=${KWATCH_JOBS:-$(($(nproc) + 1))}

# KWATCH_FLAVOR=NAME builds and boots a kernel flavour: the fragment
# kernel-series/kwatch-NAME.config on top of kwatch.config, in build and
# image directories of its own, so that flavours never rebuild each other.
#   debug  lockdep and friends (make debug-test)
#   kcsan  KCSAN instead of KASAN (make kcsan-test)
#   fault  fault injection (fail-nth) and kmemleak, lockdep (make fault-test)
#   syzkaller  a network device and whole-kernel KCOV, for syz-manager's
#          VMs (make syzkaller-check)
KWATCH_FLAVOR=${KWATCH_FLAVOR:-}
case $KWATCH_FLAVOR in
'' | debug | kcsan | fault | syzkaller) ;;
*) printf 'error: KWATCH_FLAVOR=%s: only "debug", "kcsan", "fault", "syzkaller" or empty\n' "$KWATCH_FLAVOR" >&2; exit 1 ;;
esac
_kw_sfx=${KWATCH_FLAVOR:+-$KWATCH_FLAVOR}

KSRC=$KWATCH_CACHE/src/linux		# git tree: pristine base + kernel-series
KBUILD=$KWATCH_CACHE/build/linux$_kw_sfx	# out-of-tree kernel build (O=)
KMODBUILD=$KWATCH_CACHE/build/modules$_kw_sfx	# out-of-tree test modules
ROOTFS_DIR=$KWATCH_CACHE/rootfs		# cached Debian rootfs tarballs
IMAGE_DIR=$KWATCH_CACHE/image$_kw_sfx	# guest disk image and its staging tree
RUNS_DIR=$KWATCH_CACHE/runs		# one directory per VM run: console log, KTAP
export CCACHE_DIR=${CCACHE_DIR:-$KWATCH_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Paths under the cache relative, and the build directory out of the hash:
# a second cache directory laid out the same (a flavour's build, a second
# tree under another KWATCH_CACHE) then hits the objects the first compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KWATCH_CACHE}
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

LINUX_TARBALL=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
SERIES_DIR=$KWATCH_TOP/kernel-series
KCONFIG_FRAGMENT=$SERIES_DIR/kwatch.config
KCONFIG_FRAGMENTS=("$KCONFIG_FRAGMENT")
[ -z "$KWATCH_FLAVOR" ] || KCONFIG_FRAGMENTS+=("$SERIES_DIR/kwatch-$KWATCH_FLAVOR.config")
# KBUILD_BUILD_VERSION fixed: the "#N" of the kernel's version string, which
# bindeb-pkg (scripts/kernel-deb.sh) sets to the package revision, 1; the
# same here, so a package build and a plain build never relink each other.
KMAKE=(make -C "$KSRC" O="$KBUILD" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc"
	KBUILD_BUILD_VERSION=1)
# KCSAN leaves out whole directories that hold series code (kernel/trace/
# and arch/x86/kernel/, for recursion and boot-hang reasons of their own):
# the series' files there are instrumented all the same, or a race between
# two of their accesses could never be seen.  (Both hw_breakpoint.o, the
# x86 one and kernel/events/'s, which is instrumented anyway.)
[ "$KWATCH_FLAVOR" != kcsan ] ||
	KMAKE+=(KCSAN_SANITIZE_trace_wprobe.o=y KCSAN_SANITIZE_hw_breakpoint.o=y)

_kw_t0=${_kw_t0:-$(date +%s)}
export _kw_t0

# mmss SECONDS: "4m07s".
mmss() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
elapsed() { mmss $(($(date +%s) - _kw_t0)); }

# Progress and diagnostics go to stderr so that stdout stays usable.
say() { printf '[%s %s] %s\n' "${KW_STEP:-kwatch}" "$(elapsed)" "$*" >&2; }
die() { printf '[%s] error: %s\n' "${KW_STEP:-kwatch}" "$*" >&2; exit 1; }

# run_logged LOG LABEL CMD...: run CMD with its output in LOG, printing a
# progress line every 30 s (lines of the log and elapsed time) so that
# nothing sits silent for minutes; on failure show the log's tail.
run_logged() {
	local log=$1 label=$2 pid rc t0 total=${KW_PROGRESS_TOTAL:-}
	shift 2
	t0=$(date +%s)
	"$@" >"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		local i=0
		while ((i < 30)) && kill -0 "$pid" 2>/dev/null; do
			sleep 1
			i=$((i + 1))
		done
		kill -0 "$pid" 2>/dev/null || break
		local n d=$(($(date +%s) - t0))
		n=$(grep -cE "${KW_PROGRESS_RE:-.}" "$log" || true)
		if [ -n "$total" ]; then
			say "$label: $n/~$total, $((d / 60))m$((d % 60))s"
		else
			say "$label: $n lines of output, $((d / 60))m$((d % 60))s"
		fi
	done
	rc=0
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log" >&2
		die "$label failed (exit $rc); full log: $log"
	fi
}

# Step times, measured: kw_time KEY SECONDS records how long a step took
# on this machine in $KWATCH_CACHE/times (one "KEY SECONDS DATE" line a
# key, the last run's); kw_measured KEY prints it, or, on a cache that has
# not run the step yet, the project's own measurement of it on the
# reference machine (scripts/measured-times, a file of the same lines,
# refreshed from a cache's times by `scripts/plan.sh --save`).  plan.sh
# and the closing lines of make test print these, never a constant.
KW_TIMES=$KWATCH_CACHE/times
kw_time() {
	mkdir -p "$KWATCH_CACHE"
	{
		grep -v "^$1 " "$KW_TIMES" 2>/dev/null || true
		echo "$1 $2 $(date -u +%Y-%m-%d)"
	} >"$KW_TIMES.tmp" && mv "$KW_TIMES.tmp" "$KW_TIMES"
}
# ccache_warm: the compiler cache holds a kernel build (a full one leaves
# about 170 MB of compressed results), so the next one is mostly hits.
ccache_warm() { [ "$(du -sm "$CCACHE_DIR" 2>/dev/null | cut -f1)" -ge 64 ] 2>/dev/null; }
kw_measured() {
	local f v
	for f in "$KW_TIMES" "$KWATCH_TOP/scripts/measured-times"; do
		v=$(awk -v k="$1" '$1 == k { print $2; exit }' "$f" 2>/dev/null)
		[ -z "$v" ] || { echo "$v"; return 0; }
	done
	return 1
}

# The test-only patches: applied after the series, for the test kernel
# only (never for upstream); a commit whose message has this trailer is
# one, and series.sh export writes it back to $TEST_ONLY_DIR.
TEST_ONLY_DIR=$SERIES_DIR/test-only
TEST_ONLY_TRAILER=Kwatch-test-only

# _patch_list DIR: the patches DIR/series names, in order.
_patch_list() {
	local p
	[ -f "$1/series" ] || return 0
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		echo "$1/$p"
	done <"$1/series"
}

# The hash of everything that defines the patched tree: the series file and
# the patches it names, in order, then the test-only ones likewise.
series_hash() {
	(
		cat "$SERIES_DIR/series"
		_patch_list "$SERIES_DIR" | while read -r p; do cat "$p"; done
		if [ -f "$TEST_ONLY_DIR/series" ]; then
			cat "$TEST_ONLY_DIR/series"
			_patch_list "$TEST_ONLY_DIR" | while read -r p; do cat "$p"; done
		fi
	) | sha256sum | cut -c1-16
}

series_patches() { _patch_list "$SERIES_DIR"; }
test_only_patches() { _patch_list "$TEST_ONLY_DIR"; }
