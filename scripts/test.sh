#!/usr/bin/env bash
# `make test`: the host tier, then the VM suites, then one closing summary
# over both ("N passed, N failed, N skipped").
#   test.sh SUITES UNIT_TEST_BINARY...
. "$(dirname "$0")/lib.sh"
KW_STEP=test

suites=$1
shift
B=$KWATCH_TOP/build
SUMMARY=$B/host/ktap-summary
rc_host=0
rc_vm=0

say "host tier: unit tests and checkpatch"
KWATCH_CHECK_KTAP=$B/check.ktap "$KWATCH_TOP/scripts/check.sh" "$@" || rc_host=$?
say "VM tier: suite(s) $suites"
KWATCH_RUN_LINK=$B/last-vm-run "$KWATCH_TOP/scripts/vm.sh" test "$suites" || rc_vm=$?

vm_ktap=$(readlink -f "$B/last-vm-run")/ktap.txt
{
	echo "KTAP version 1"
	echo "1..2"
	echo "    # Subtest: host"
	sed 's/^/    /' "$B/check.ktap"
	[ $rc_host -eq 0 ] && echo "ok 1 - host" || echo "not ok 1 - host"
	echo "    # Subtest: vm"
	[ -f "$vm_ktap" ] && sed 's/^/    /' "$vm_ktap"
	[ $rc_vm -eq 0 ] && echo "ok 2 - vm" || echo "not ok 2 - vm"
} >"$B/test.ktap"
echo "== make test: host and VM tiers together (KTAP: $B/test.ktap)"
"$SUMMARY" "$B/test.ktap" || true
[ $rc_host -eq 0 ] && [ $rc_vm -eq 0 ]
