#!/usr/bin/env bash
# cross-test.sh: make cross-test, the series on arm64 (issue 29, item 3).
#
# KFuzzTest depends on nothing x86: its records live in the generic
# read-only sections of include/asm-generic/vmlinux.lds.h, and its padding
# must fit tag-based KASAN's 16-byte granules.  This proves it where x86's
# linker script cannot help: an arm64 kernel cross-built from allnoconfig +
# kernel-series/kwatch-arm64.config (KFuzzTest with every target, its KUnit
# suites, the breakpoint KUnit suite, KASAN_SW_TAGS) in
# $KWATCH_CACHE/build/linux-arm64, then booted under qemu-system-aarch64
# (virt, TCG, 2 CPUs) with no root file system: the KUnit suites run at
# boot, and the kernel then panics for want of an init, which ends the run.
#
# Fails when: Kconfig drops a wanted option (or turns on KStackWatch or
# wprobes, which need x86's HAVE_REINSTALL_HW_BREAKPOINT), the link warns
# of an orphan section, a KFuzzTest section bound is outside a read-only
# section or a table is empty, a KUnit suite is missing or not ok, or the
# log has a KASAN report or a BUG.  Figures go to build/cross-report.txt.
. "$(dirname "$0")/lib.sh"
KW_STEP=cross-test

XBUILD=$KWATCH_CACHE/build/linux-arm64
FRAG=$SERIES_DIR/kwatch-arm64.config
REPORT=$KWATCH_TOP/build/cross-report.txt
BOOT_TIMEOUT=${KWATCH_CROSS_TIMEOUT:-900}
XMAKE=(make -C "$KSRC" O="$XBUILD" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
	CC="ccache aarch64-linux-gnu-gcc" HOSTCC="ccache gcc" KBUILD_BUILD_VERSION=1)
SUITES=(kfuzztest_parse kfuzztest_simple)

"$KWATCH_TOP/scripts/deps.sh" --cross || exit 1
mkdir -p "$XBUILD" "$KWATCH_TOP/build"
: >"$REPORT"
report() { echo "$*" >>"$REPORT"; say "$*"; }

# --- configure -----------------------------------------------------------
want=$({ cat "$FRAG"; series_hash; } | sha256sum | cut -c1-16)
if [ "$(cat "$XBUILD/.kwatch-config" 2>/dev/null)" != "$want" ]; then
	say "generating .config: allnoconfig + ${FRAG##*/} (arm64)"
	"${XMAKE[@]}" -s allnoconfig >/dev/null
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$XBUILD" "$XBUILD/.config" "$FRAG" \
		>"$XBUILD/.kwatch-merge.log" 2>&1 || die "merge_config.sh failed: $XBUILD/.kwatch-merge.log"
	"${XMAKE[@]}" -s olddefconfig >>"$XBUILD/.kwatch-merge.log" 2>&1
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$XBUILD/.config" || { say "config: wanted $line, not in .config"; bad=1; } ;;
		'# CONFIG_'*' is not set')
			sym=${line#\# }; sym=${sym%% *}
			! grep -qE "^$sym=[ym]" "$XBUILD/.config" || { say "config: wanted $sym off, but it is on"; bad=1; } ;;
		esac
	done <"$FRAG"
	[ $bad -eq 0 ] || die "${FRAG##*/} does not survive arm64's Kconfig"
	echo "$want" >"$XBUILD/.kwatch-config"
fi

# --- build ---------------------------------------------------------------
log=$XBUILD/.kwatch-build.log
t0=$(date +%s)
say "building arm64 linux in $XBUILD (-j$KWATCH_JOBS, ccache in $CCACHE_DIR)"
KW_PROGRESS_RE='^  (CC|AS|LD|AR)' KW_PROGRESS_TOTAL=$(cat "$XBUILD/.kwatch-objects" 2>/dev/null || echo 900) \
	run_logged "$log" "arm64 kernel build" "${XMAKE[@]}" -j"$KWATCH_JOBS" Image
built=$(grep -cE '^  (CC|AS|LD|AR)' "$log" || true)
[ "$built" -le "$(cat "$XBUILD/.kwatch-objects" 2>/dev/null || echo 0)" ] || echo "$built" >"$XBUILD/.kwatch-objects"
report "arm64 build: $built steps, $(($(date +%s) - t0)) s; $(grep -c '=y' "$XBUILD/.config") options built in"
rc=0
# A full build's log is the only place the linker's orphan warnings are
# said; an incremental build that did not relink says nothing.
if grep -q 'LD  *vmlinux$' "$log"; then
	orphans=$(grep -i 'orphan section' "$log" || true)
	if [ -n "$orphans" ]; then
		report "FAIL: the link warns of orphan sections:"; echo "$orphans" | tee -a "$REPORT" >&2; rc=1
	else
		report "link: no orphan section warning"
	fi
fi

# --- the sections --------------------------------------------------------
# Each table's bounds lie in read-only data, between __start_rodata and
# __end_rodata (the range mark_rodata_ro() protects; the output section's
# flags say "WA" on arm64 as on x86, since __ro_after_init data is in it),
# and each table holds records.
syms=$(aarch64-linux-gnu-nm "$XBUILD/vmlinux")
sym() { awk -v n="$1" '$3 == n { print $1 }' <<<"$syms"; }
ro_s=$(sym __start_rodata) ro_e=$(sym __end_rodata)
[ -n "$ro_s" ] && [ -n "$ro_e" ] || { report "FAIL: no __start_rodata/__end_rodata in vmlinux"; rc=1; }
for t in targets constraints annotations simple_targets; do
	s=$(sym "__kfuzztest_${t}_start") e=$(sym "__kfuzztest_${t}_end")
	[ -n "$s" ] && [ -n "$e" ] || { report "FAIL: no __kfuzztest_${t}_start/_end in vmlinux"; rc=1; continue; }
	n=$(( 0x$e - 0x$s ))
	if (( 0x$s >= 0x${ro_s:-0} && 0x$e <= 0x${ro_e:-0} )); then
		report "__kfuzztest_${t}: $n bytes, in read-only data"
	else
		report "FAIL: __kfuzztest_${t} (0x$s-0x$e) is outside read-only data (0x$ro_s-0x$ro_e)"; rc=1
	fi
	[ $n -gt 0 ] || { report "FAIL: __kfuzztest_${t} is empty"; rc=1; }
done

# --- boot ----------------------------------------------------------------
console=$XBUILD/console.log
say "booting it under qemu-system-aarch64 (TCG, virt, 2 CPUs) for the KUnit suites; at most ${BOOT_TIMEOUT}s"
t0=$(date +%s)
timeout "$BOOT_TIMEOUT" qemu-system-aarch64 -machine virt -cpu max -smp 2 -m 1G -nographic -no-reboot \
	-kernel "$XBUILD/arch/arm64/boot/Image" -append "console=ttyAMA0 panic=-1" >"$console" 2>&1 </dev/null
qrc=$?
# The serial console ends its lines with CR LF.
tr -d '\r' <"$console" >"$console.tmp" && mv "$console.tmp" "$console"
report "boot: $(($(date +%s) - t0)) s (qemu exit $qrc$([ $qrc = 124 ] && echo ', cut at the time limit'))"
grep -q 'Linux version' "$console" || { report "FAIL: the kernel printed nothing; see $console"; rc=1; }
for s in "${SUITES[@]}"; do
	l=$(grep -E "^(\[ *[0-9.]+\] *)?(not )?ok [0-9]+ $s\$" "$console" | tail -1 || true)
	l=${l#\[*\] }
	l=${l#"${l%%[! ]*}"}
	cases=$(awk -v s="$s" '
		$0 ~ "# Subtest: " s "$" { on = 1; next }
		on && / (not )?ok [0-9]+ / { n++; if ($0 ~ / not ok /) bad++ }
		on && $0 ~ " ok [0-9]+ " s "$" { exit }
		END { printf "%d results of cases and parameters, %d not ok", n - 0, bad - 0 }' "$console")
	case $l in
	"ok "*) report "KUnit $s: ok ($cases)" ;;
	*) report "FAIL: KUnit $s: ${l:-no result} ($cases)"; rc=1 ;;
	esac
done
l=$(grep -E ' (not )?ok [0-9]+ kfuzztest_records_read_only$' "$console" | head -1 || true)
report "KUnit case kfuzztest_records_read_only (the records in .rodata, seen from the kernel):${l:- not run}"
splat=$(grep -E 'BUG:|KASAN|WARNING:|Oops' "$console" | grep -v 'KASAN: ' | head -5 || true)
splat+=$(grep -E 'BUG: KASAN' "$console" | head -5 || true)
if [ -n "$splat" ]; then
	report "FAIL: the boot log has a report:"; echo "$splat" | tee -a "$REPORT" >&2; rc=1
fi
grep -m1 -E 'KernelAddressSanitizer initialized' "$console" >>"$REPORT" || { report "FAIL: KASAN did not start"; rc=1; }
[ $rc -eq 0 ] && say "arm64: passed; $REPORT" || say "arm64: FAILED; $REPORT, console $console"
exit $rc
