#!/usr/bin/env bash
# kcsan-test.sh: make kcsan-test, on the KCSAN kernel (KWATCH_FLAVOR=kcsan).
#
# Boots the guest twice: once for the suites in KCSAN_SUITE (default the
# kcsan suite, which nests the stress suites), once for kstackwatch_storm
# with its two vCPUs on one host thread, as make test runs it
# (docs/kernel-series.md, "The storm"; a hang is said, not failed, and the
# boot is cut at KCSAN_STORM_TIMEOUT seconds; KCSAN_STORM=0 leaves it
# out).  Then every KCSAN report in both consoles is classified
# (scripts/kcsan-reports.sh); the classes and the reports go to
# build/kcsan-report.txt.  Fails if a suite failed or a race is in the
# series' code.
. "$(dirname "$0")/lib.sh"
KW_STEP=kcsan-test

[ "$KWATCH_FLAVOR" = kcsan ] || die "run through make kcsan-test (KWATCH_FLAVOR=kcsan)"
SUITES=${KCSAN_SUITE:-kcsan}
STORM=${KCSAN_STORM:-1}
STORM_TIMEOUT=${KCSAN_STORM_TIMEOUT:-900}
REPORT=$KWATCH_TOP/build/kcsan-report.txt
FUNCS=$KWATCH_TOP/build/series-functions.txt
mkdir -p "$KWATCH_TOP/build"

"$KWATCH_TOP/scripts/series-functions.sh" >"$FUNCS.tmp" && mv "$FUNCS.tmp" "$FUNCS"
say "$(wc -l <"$FUNCS") functions are the series' code ($FUNCS)"

rc=0
consoles=()
KWATCH_RUN_LINK=$KWATCH_TOP/build/last-kcsan-run "$KWATCH_TOP/scripts/vm.sh" test "$SUITES" || rc=1
consoles+=("$(readlink -f "$KWATCH_TOP/build/last-kcsan-run")/console.log")

storm="not run (KCSAN_STORM=0)"
if [ "$STORM" != 0 ]; then
	if KWATCH_TCG_THREAD=single KWATCH_VM_TIMEOUT=$STORM_TIMEOUT KWATCH_RUN_LINK=$KWATCH_TOP/build/last-kcsan-storm-run \
		"$KWATCH_TOP/scripts/vm.sh" test kstackwatch_storm; then
		storm="passed"
	else
		d=$(readlink -f "$KWATCH_TOP/build/last-kcsan-storm-run")
		if grep -q '^# kwatch guest: done' "$d/ktap.txt"; then
			storm="FAILED (see $d)"
			rc=1
		else
			storm="did not finish in ${STORM_TIMEOUT}s: hung (the known TCG hang of the storm, docs/kernel-series.md); its reports so far are counted"
		fi
	fi
	consoles+=("$(readlink -f "$KWATCH_TOP/build/last-kcsan-storm-run")/console.log")
fi

{
	echo "make kcsan-test: $(cat "$KBUILD/include/config/kernel.release"), suites '$SUITES', storm: $storm"
	echo "KCSAN reports by class (series: an access in the series' code; reached: the series on a stack;"
	echo "module: a project test module; 6.1: none of these), each distinct report with its count"
	echo "and the first frames of its two accesses:"
} >"$REPORT"
verdict=0
"$KWATCH_TOP/scripts/kcsan-reports.sh" "$FUNCS" "$REPORT.full" "${consoles[@]}" >>"$REPORT" || verdict=1
cat "$REPORT.full" >>"$REPORT"
rm -f "$REPORT.full"
sed -n '1,/^----/p' "$REPORT" | grep -v '^----' >&2
say "storm: $storm"
say "the reports in full: $REPORT"
[ $verdict -eq 0 ] || say "KCSAN reports a data race in the series' code"
[ $rc -eq 0 ] && [ $verdict -eq 0 ]
