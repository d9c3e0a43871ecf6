#!/bin/bash
# Suite "kcsan" (MANUAL: make kcsan-test runs it, on the KCSAN kernel):
# the stress suites, nested, while KCSAN watches: KStackWatch's stress and
# hotplug (kstackwatch_stress, whole), two watches armed and disarmed by a
# kthread on each CPU at once, the wprobe re-point stress and hotplug, the
# hit-storm guards (wprobes), and concurrent KFuzzTest writers
# (kfuzztest), each ROUNDS times, with KCSAN watching one access in
# SKIP_WATCH instead of one in 4000.  KCSAN's reports are not judged here:
# the host reads them all from the console and tells the series' from
# 6.1's (scripts/kcsan-reports.sh).  The tests here make sure KCSAN was on
# and watched: a suite that passes on a kernel where KCSAN never set a
# watchpoint proves nothing.
#
# What it asserts: KCSAN is on and its boot selftest passed;
# kstackwatch_stress's tests, two watches on clean_frame() armed and
# disarmed from both CPUs at once (frames armed, no report, nothing armed at
# the end), wprobes' repoint_stress, cpu_hotplug, storm_guard and
# repoint_guard, and kfuzztest's concurrent_writers, nested (KTAP_ONLY),
# each ROUNDS times, pass under it; KCSAN set watchpoints meanwhile.  The
# races themselves are judged on the host (make kcsan-test,
# build/kcsan-report.txt).
. /opt/kwatch/tests/guest/ktap.sh

. /opt/kwatch/tests/guest/kstackwatch.sh

SUITES=/opt/kwatch/tests/suites
KCSAN=/sys/kernel/debug/kcsan
SKIP=/sys/module/kcsan/parameters/skip_watch
WPROBE_TESTS=${KCSAN_WPROBE_TESTS:-"repoint_stress cpu_hotplug storm_guard repoint_guard"}
ROUNDS=${KCSAN_ROUNDS:-3}
SKIP_WATCH=${KCSAN_SKIP_WATCH:-400}
STEADY_S=${KCSAN_STEADY_S:-30}
KTAP_TIMEOUT_t_kstackwatch_stress=3600
KTAP_TIMEOUT_t_ksw_two_cpus=1800
KTAP_TIMEOUT_t_wprobes=3600
KTAP_TIMEOUT_t_kfuzztest=1800

kcsan_stat() { awk -v k="$1:" '$1 == k { print $2 }' $KCSAN; }

# nest SUITE TESTS: run those tests of SUITE ("" for all) ROUNDS times,
# their KTAP nested under this test; fails if one of them failed.
nest() {
	local out rc=0 r only=
	[ -z "$2" ] || only="^(${2// /|})$"
	out=$(mktemp)
	for r in $(seq "$ROUNDS"); do
		echo "round $r of $ROUNDS"
		(cd $SUITES/$1 && KTAP_ONLY="$only" KTAP_STATE= ./run.sh) >"$out" 2>&1 || rc=1
		sed 's/^/KTAP:/' "$out"
	done
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
	echo "$SKIP_WATCH" >$SKIP || fail "cannot set $SKIP" || return 1
	echo "KCSAN watches one access in $(cat $SKIP) from now on (4000 at boot)"
}

t_kstackwatch_stress() { nest kstackwatch_stress ""; }

# Two watches on clean_frame() (the same frame: depth 0 given outright is
# another line), armed and disarmed by the test module's storm kthreads,
# one on each CPU, for STEADY_S seconds, ROUNDS times: both slots re-point
# from two CPUs at once (ksw_watch_on()'s cmpxchg, the IPIs and irq_work
# of ksw_apply_all()).  The frame is clean: no report, and nothing armed
# once the kthreads stop.  No reconfiguration under load here: that is
# kstackwatch_storm, booted on its own by make kcsan-test.
t_ksw_two_cpus() {
	local l4 a0 a1 b0 b1 r
	[ "$(nproc)" -ge 2 ] || { skip "needs 2 CPUs"; return; }
	l4=$(line_for test4)
	for r in $(seq "$ROUNDS"); do
		echo "$l4" >$KSW && echo "$l4+0" >>$KSW || fail "cannot set the two watches" || return 1
		a0=$(stat_of arms); b0=$(stat_of busy)
		mark
		echo "storm on" >$KT || fail "cannot start the storm kthreads" || return 1
		sleep "$STEADY_S"
		echo "storm off" >$KT
		a1=$(stat_of arms); b1=$(stat_of busy)
		echo >$KSW
		echo "round $r: $((a1 - a0)) frames armed in ${STEADY_S} s, $((b1 - b0)) arms refused as busy (the other CPU's frame armed)"
		[ $((a1 - a0)) -gt 0 ] || fail "no frame armed" || return 1
		expect_eq "reports" "$(reports)" 0 || return 1
		expect_eq "armed at the end" "$(stat_of armed_now)" 0 || return 1
	done
}

t_wprobes() { nest wprobes "$WPROBE_TESTS"; }

t_kfuzztest() { nest kfuzztest "concurrent_writers"; }

# KCSAN set watchpoints while the suites ran: it watched their accesses.
t_kcsan_watched() {
	local w0 w1
	w0=$(cat /tmp/kcsan-w0 2>/dev/null)
	w1=$(kcsan_stat setup_watchpoints)
	echo 4000 >$SKIP
	cat $KCSAN
	[ -n "$w0" ] && [ -n "$w1" ] || fail "no setup_watchpoints count in $KCSAN" || return 1
	echo "KCSAN: $((w1 - w0)) watchpoints set up during the suites, $(kcsan_stat data_races) data races reported since boot"
	[ $((w1 - w0)) -gt 0 ] || fail "KCSAN set no watchpoint during the suites"
}

ktap_main
