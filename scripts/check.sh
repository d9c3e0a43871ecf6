#!/usr/bin/env bash
# Host tier: run the cmocka unit tests (TAP output) and checkpatch --strict
# over kernel-series/, nest them in one KTAP file ($KWATCH_CHECK_KTAP) and
# print its summary.  Any failure fails the run.
#   check.sh UNIT_TEST_BINARY...
. "$(dirname "$0")/lib.sh"
KW_STEP=check

B=$KWATCH_TOP/build
OUT=${KWATCH_CHECK_KTAP:-$B/check.ktap}
SUMMARY=$B/host/ktap-summary
mkdir -p "$(dirname "$OUT")"

n=0
total=$(($# + 1))
{
	echo "KTAP version 1"
	echo "1..$total"
	for t in "$@"; do
		n=$((n + 1))
		name=$(basename "$t")
		echo "    # Subtest: $name"
		rc=0
		CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$OUT.part" 2>&1 || rc=$?
		sed 's/^/    /' "$OUT.part"
		if [ $rc -eq 0 ]; then echo "ok $n - $name"; else echo "not ok $n - $name"; fi
	done
	n=$((n + 1))
	rc=0
	"$KWATCH_TOP/scripts/checkpatch.sh" >"$OUT.part" 2>&1 || rc=$?
	sed 's/^/# /' "$OUT.part"
	if [ $rc -eq 0 ]; then echo "ok $n - checkpatch_strict"; else echo "not ok $n - checkpatch_strict"; fi
} >"$OUT"
rm -f "$OUT.part"
grep -E '^(not ok|ok) |^# (FAIL|.*error)' "$OUT" | sed 's/^/  /' >&2 || true
"$SUMMARY" "$OUT"
