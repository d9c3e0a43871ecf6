#!/usr/bin/env bash
# `make bench`: run the VM suites that measure (their "<tool>-bench:" lines:
# ratios measured side by side in one boot, counts that do not depend on
# speed) and write the figures to build/bench-report.txt as well.
. "$(dirname "$0")/lib.sh"
KW_STEP=bench

suites=${1:-kstackwatch_stress,wprobes,kfuzztest,kwatchd,kwatchd-bpf,collectors}
B=$KWATCH_TOP/build
report=$B/bench-report.txt
mkdir -p "$B"
rc=0
KWATCH_CMDLINE="${KWATCH_CMDLINE:-} kwatch.bench=1" KWATCH_RUN_LINK=$B/last-bench-run \
	"$KWATCH_TOP/scripts/vm.sh" test "$suites" || rc=$?
{
	echo "# kwatch benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ), suites: $suites"
	echo "# QEMU TCG on $(nproc) host cores: compare ratios and counts, not absolute times"
	grep -ho '[a-z]*-bench: .*' "$B/last-bench-run/ktap.txt" || echo "no figures: the run failed"
} >"$report"
cat "$report"
say "report: $report"
exit $rc
