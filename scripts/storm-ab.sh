#!/usr/bin/env bash
# storm-ab.sh: make storm-ab, the storm's cause told apart (issue 29, item
# 15).  The kstackwatch_storm suite (its first test is the probes-only
# control: a kprobe, a kretprobe and the function tracer created, enabled,
# disabled and removed while a kthread per vCPU runs the probed function)
# with a host thread per vCPU (multi-threaded TCG), the same kernel and
# image, under two QEMUs side by side:
#   A: Debian bookworm's qemu-system-x86 (7.2), what make test uses;
#   B: bookworm-backports' (10.0), unpacked into $KWATCH_CACHE/qemu-bpo
#      with dpkg -x (not installed: nothing else on the machine changes).
# QEMU before 8.1 could go on running a translation of code that another
# vCPU had already rewritten (fixed upstream by "accel/tcg: Always lock
# pages before translation", deba78709ae8, 8.1.0): text_poke_bp()'s int3
# then fires after it was removed.  If A fails and B passes, the guest's
# breakage is QEMU's; if both fail, it is the kernel's.  Each boot is cut
# at STORM_AB_TIMEOUT seconds (a hang is a failure here).  The verdicts go
# to build/storm-ab.txt.
. "$(dirname "$0")/lib.sh"
KW_STEP=storm-ab

ROUNDS=${STORM_AB_ROUNDS:-30}
TIMEOUT=${STORM_AB_TIMEOUT:-600}
BPO_DIR=$KWATCH_CACHE/qemu-bpo
BPO_URL=${STORM_AB_MIRROR:-http://deb.debian.org/debian}
REPORT=$KWATCH_TOP/build/storm-ab.txt
mkdir -p "$KWATCH_TOP/build"
"$KWATCH_TOP/scripts/deps.sh" --storm || exit 1

# QEMU from bookworm-backports: the three packages of qemu-system-x86,
# unpacked; their libraries are bookworm's (a backport is built on it).
if ! [ -x "$BPO_DIR/root/usr/bin/qemu-system-x86_64" ]; then
	say "fetching qemu-system-x86 from bookworm-backports into $BPO_DIR"
	rm -rf "$BPO_DIR.tmp" && mkdir -p "$BPO_DIR.tmp/root"
	curl -fsS "$BPO_URL/dists/bookworm-backports/main/binary-amd64/Packages.xz" |
		xz -dc >"$BPO_DIR.tmp/Packages" || die "cannot fetch bookworm-backports' package list"
	for p in qemu-system-x86 qemu-system-common qemu-system-data; do
		f=$(awk -v p="$p" '$0 == "Package: " p { on = 1 } on && /^Filename:/ { print $2; exit }' \
			"$BPO_DIR.tmp/Packages")
		[ -n "$f" ] || die "no $p in bookworm-backports"
		curl -fsS -o "$BPO_DIR.tmp/${f##*/}" "$BPO_URL/$f" || die "cannot fetch $f"
		dpkg -x "$BPO_DIR.tmp/${f##*/}" "$BPO_DIR.tmp/root"
	done
	rm -rf "$BPO_DIR" && mv "$BPO_DIR.tmp" "$BPO_DIR"
fi
missing=$(ldd "$BPO_DIR/root/usr/bin/qemu-system-x86_64" | grep 'not found' || true)
[ -z "$missing" ] || die "the backported QEMU lacks libraries: $missing"

run() {
	local name=$1 qemu=$2 d v
	say "$name: kstackwatch_storm, a host thread per vCPU, $($qemu --version | head -1)"
	if KWATCH_QEMU=$qemu KWATCH_TCG_THREAD=multi KWATCH_VM_TIMEOUT=$TIMEOUT \
		KWATCH_CMDLINE="kwatch.storm_rounds=$ROUNDS" KWATCH_RUN_LINK=$KWATCH_TOP/build/last-storm-$name \
		"$KWATCH_TOP/scripts/vm.sh" test kstackwatch_storm >"$KWATCH_TOP/build/storm-$name.log" 2>&1; then
		v=passed
	else
		d=$(readlink -f "$KWATCH_TOP/build/last-storm-$name")
		if grep -q '^# kwatch guest: done' "$d/ktap.txt" 2>/dev/null; then v=failed; else v="did not finish in ${TIMEOUT}s (hung or cut)"; fi
	fi
	d=$(readlink -f "$KWATCH_TOP/build/last-storm-$name")
	{
		echo "$name: $($qemu --version | head -1): $v (run $d)"
		grep -E '^ *(not )?ok [0-9]+ - |rounds in' "$d/ktap.txt" 2>/dev/null | sed 's/^/    /' || true
		echo "    console: $(grep -a -c 'RIP: 0010:0x0' "$d/console.log" 2>/dev/null || true) oopses at RIP 0," \
			"$(grep -a -c 'KASAN: use-after-free' "$d/console.log" 2>/dev/null || true) KASAN use-after-free reports"
	} >>"$REPORT"
	say "$name: $v"
}

{
	echo "make storm-ab: kstackwatch_storm ($ROUNDS rounds of the probes-only control), a host thread"
	echo "per vCPU, kernel $(cat "$KBUILD/include/config/kernel.release"), under two QEMUs:"
} >"$REPORT"
run debian "$(command -v qemu-system-x86_64)"
run backports "$BPO_DIR/root/usr/bin/qemu-system-x86_64"
cat "$REPORT" >&2
# A measurement: the verdicts are in the report; the target fails only
# when it could not run.
exit 0
