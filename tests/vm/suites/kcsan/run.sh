#!/bin/bash
# Suite "kcsan" (MANUAL: make kcsan-test runs it, on the KCSAN kernel):
# the stress suites, nested, while KCSAN watches: KStackWatch's stress and
# hotplug (kstackwatch_stress, whole), the wprobe re-point stress and
# hotplug, the hit-storm guards (wprobes), and concurrent KFuzzTest
# writers (kfuzztest).  KCSAN's reports are not judged here: the host
# reads them all from the console and tells the series' from 6.1's
# (scripts/kcsan-reports.sh).  The tests here make sure KCSAN was on and
# watched: a suite that passes on a kernel where KCSAN never set a
# watchpoint proves nothing.
. /opt/kwatch/tests/guest/ktap.sh

SUITES=/opt/kwatch/tests/suites
KCSAN=/sys/kernel/debug/kcsan
WPROBE_TESTS=${KCSAN_WPROBE_TESTS:-"repoint_stress cpu_hotplug storm_guard repoint_guard"}
KTAP_TIMEOUT_t_kstackwatch_stress=1800
KTAP_TIMEOUT_t_wprobes=1800
KTAP_TIMEOUT_t_kfuzztest=900

kcsan_stat() { awk -v k="$1:" '$1 == k { print $2 }' $KCSAN; }

# nest SUITE TESTS: run those tests of SUITE ("" for all), its KTAP nested
# under this test; fails if one of them failed.
nest() {
	local out rc
	out=$(mktemp)
	(cd $SUITES/$1 && KTAP_ONLY="$2" KTAP_STATE= ./run.sh) >"$out" 2>&1
	rc=$?
	sed 's/^/KTAP:/' "$out"
	rm -f "$out"
	return $rc
}

t_kcsan_on() {
	local r
	[ -r $KCSAN ] || fail "no $KCSAN: this is not the KCSAN kernel (make kcsan-test)" || return 1
	cat $KCSAN
	expect_eq "KCSAN enabled" "$(kcsan_stat enabled)" 1 || return 1
	r=$(dmesg | sed -n 's/.*kcsan: selftest: \([0-9]*\/[0-9]*\) tests passed.*/\1/p')
	[ -n "$r" ] || fail "no result of KCSAN's boot selftest" || return 1
	echo "KCSAN's boot selftest: $r tests passed"
	expect_eq "KCSAN's boot selftest: passed of" "${r%/*}" "${r#*/}" || return 1
	kcsan_stat setup_watchpoints >/tmp/kcsan-w0
}

t_kstackwatch_stress() { nest kstackwatch_stress ""; }

t_wprobes() { nest wprobes "$WPROBE_TESTS"; }

t_kfuzztest() { nest kfuzztest "concurrent_writers"; }

# KCSAN set watchpoints while the suites ran: it watched their accesses.
t_kcsan_watched() {
	local w0 w1
	w0=$(cat /tmp/kcsan-w0 2>/dev/null)
	w1=$(kcsan_stat setup_watchpoints)
	cat $KCSAN
	[ -n "$w0" ] && [ -n "$w1" ] || fail "no setup_watchpoints count in $KCSAN" || return 1
	echo "KCSAN: $((w1 - w0)) watchpoints set up during the suites, $(kcsan_stat data_races) data races reported since boot"
	[ $((w1 - w0)) -gt 0 ] || fail "KCSAN set no watchpoint during the suites"
}

ktap_main
