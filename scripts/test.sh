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

# tier NAME: the time since the last call is tier NAME's; with the whole
# set, it is this cache's figure for plan.sh (lib.sh: kw_time).
declare -A took
tier_t0=$(date +%s)
tier() {
	took[$1]=$(($(date +%s) - tier_t0))
	[ "$suites" != all ] || kw_time "test_$1" "${took[$1]}"
	tier_t0=$(date +%s)
}

say "host tier: unit tests and checkpatch"
KWATCH_CHECK_KTAP=$B/check.ktap "$KWATCH_TOP/scripts/check.sh" "$@" || rc_host=$?
tier host
say "VM tier: suite(s) $suites"
KWATCH_RUN_LINK=$B/last-vm-run "$KWATCH_TOP/scripts/vm.sh" test "$suites" || rc_vm=$?
tier vm

# The reconfiguration storm (kstackwatch_storm, MANUAL in the run above)
# in a boot of its own, with the whole set: QEMU's TCG with one host thread
# for both vCPUs, since with a thread per vCPU it executes stale
# translations of code the guest has patched (docs/kernel-series.md, "The
# storm").
rc_storm=0
storm_tier=0
if [ "$suites" = all ]; then
	storm_tier=1
	rm -f "$B/last-storm-run"
	say "storm tier: kstackwatch_storm in a boot of its own (TCG, one host thread)"
	KWATCH_TCG_THREAD=single KWATCH_RUN_LINK=$B/last-storm-run \
		"$KWATCH_TOP/scripts/vm.sh" test kstackwatch_storm || rc_storm=$?
	tier storm
fi

# The packages in a plain bookworm VM (make deb-test), with the whole set.
rc_deb=0
deb_tier=0
if [ "$suites" = all ]; then
	deb_tier=1
	rm -f "$B/last-deb-run"
	say "deb tier: the kernel and kwatch packages installed into a plain bookworm VM"
	KWATCH_RUN_LINK=$B/last-deb-run "$KWATCH_TOP/scripts/deb-test.sh" \
		"$(ls "$B"/deb/kwatch_*_amd64.deb)" || rc_deb=$?
	tier deb
fi

# subtest N NAME RC KTAP: tier N's results nested, then its verdict.
subtest() {
	echo "    # Subtest: $2"
	[ -f "$4" ] && sed 's/^/    /' "$4"
	if [ "$3" -eq 0 ]; then echo "ok $1 - $2"; else echo "not ok $1 - $2"; fi
}

# A tier's run directory's KTAP, from the link vm.sh left to it.
run_ktap() { echo "$(readlink -f "$B/$1" 2>/dev/null)/ktap.txt"; }

{
	echo "KTAP version 1"
	echo "1..$((2 + storm_tier + deb_tier))"
	subtest 1 host $rc_host "$B/check.ktap"
	subtest 2 vm $rc_vm "$(run_ktap last-vm-run)"
	n=2
	if [ $storm_tier -eq 1 ]; then
		n=$((n + 1))
		subtest $n storm $rc_storm "$(run_ktap last-storm-run)"
	fi
	if [ $deb_tier -eq 1 ]; then
		n=$((n + 1))
		subtest $n deb $rc_deb "$(run_ktap last-deb-run)"
	fi
} >"$B/test.ktap"
echo "== make test: host and VM tiers together (KTAP: $B/test.ktap)"
echo "   times: $(for t in host vm storm deb; do [ -n "${took[$t]:-}" ] && printf '%s %s, ' $t "$(mmss "${took[$t]}")"; done)the tiers in all $(elapsed)"
"$SUMMARY" "$B/test.ktap" || true
[ $rc_host -eq 0 ] && [ $rc_vm -eq 0 ] && [ $rc_storm -eq 0 ] && [ $rc_deb -eq 0 ]
