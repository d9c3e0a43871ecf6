#!/bin/bash
# Suite "kstackwatch_storm": probes re-registered and KStackWatch
# reconfigured while a kthread on each CPU runs the probed function
# (the test module's "storm").  First the probe machinery alone (kprobe,
# kretprobe, function tracer, from tracefs), then KStackWatch.
#
# MANUAL in the main run: make test runs it in a boot of its own with
# KWATCH_TCG_THREAD=single (the "storm" tier), since QEMU 7.2's
# multi-threaded TCG breaks the guest here, not KStackWatch
# (docs/kernel-series.md, "The storm"; make storm-ab).
#
# What it asserts: probes re-registered under load, with no KStackWatch:
# while a kthread per CPU calls clean_frame(), a kprobe at its arm point, a
# kretprobe on it and the function tracer on its entry (a tracefs instance
# of the suite's own) are created, enabled, disabled and removed 10 times,
# each of the three fires in every round, no splat; reconfigurations under
# load: /proc/kstackwatch rewritten 30 times (two lines for that function,
# one for another, an invalid line, an empty write): no report, nothing
# armed at the end, the guest alive; 20 rewrites of clean_frame()'s watch
# with the same function and point register its probes once (19 "probes ...
# kept", the frame release points logged once), and the watch that took
# probes over catches test0's store.  kwatch.storm_rounds=N and
# kwatch.storm_rewrites=N on the kernel command line (KWATCH_CMDLINE) scale
# the first two.
. /opt/kwatch/tests/guest/ktap.sh

. /opt/kwatch/tests/guest/kstackwatch.sh

# Rounds of the probes-only control; kwatch.storm_rounds=N on the kernel
# command line overrides it (for experiments).
PROBE_ROUNDS=$(sed -n 's/.*kwatch\.storm_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
PROBE_ROUNDS=${PROBE_ROUNDS:-10}
REWRITES=$(sed -n 's/.*kwatch\.storm_rewrites=\([0-9]*\).*/\1/p' /proc/cmdline)
REWRITES=${REWRITES:-30}
KTAP_TIMEOUT_t_probes_reregistered_under_load=400
KTAP_TIMEOUT_t_reconfigure_under_load=400

# The probe machinery alone, no KStackWatch: while a kthread per CPU calls
# clean_frame() in a loop, a kprobe at its arm point, a kretprobe on it and
# the function tracer on its entry are created, enabled, disabled and
# removed, round after round (in a tracefs instance of the suite's own).
# Each round each of the three must fire, and the kernel must stay sound.
t_probes_reregistered_under_load() {
	local off i I=$TRACE/instances/kw_storm fn hits narm=0 nret=0 nfn=0 t0
	off=$(line_for test4 | sed -nE 's/^clean_frame\+(0x[0-9a-f]+).*/\1/p')
	[ -n "$off" ] || fail "no arm point for clean_frame in $KT" || return 1
	rmdir $I 2>/dev/null
	mkdir $I || fail "cannot make the tracefs instance" || return 1
	echo 256 >$I/buffer_size_kb
	echo "storm on" >$KT || fail "cannot start the storm" || return 1
	t0=$(date +%s%N)
	for i in $(seq "$PROBE_ROUNDS"); do
		echo "p:kw_storm/kw_arm clean_frame+$off" >>$TRACE/kprobe_events &&
			echo "r:kw_storm/kw_ret clean_frame" >>$TRACE/kprobe_events ||
			fail "round $i: cannot create the probes" || break
		echo 1 >$I/events/kw_storm/enable
		echo clean_frame >$I/set_ftrace_filter
		echo function >$I/current_tracer
		echo 1 >$I/tracing_on
		sleep 0.05
		echo 0 >$I/tracing_on
		fn=$(grep -c ' clean_frame <-' $I/trace)
		echo nop >$I/current_tracer
		echo 0 >$I/events/kw_storm/enable
		hits=$(awk '$1 == "kw_storm/kw_arm" || $1 == "kw_arm" { a = $2 } $1 == "kw_storm/kw_ret" || $1 == "kw_ret" { r = $2 }
			END { print a + 0, r + 0 }' $TRACE/kprobe_profile)
		echo >$I/trace
		echo "-:kw_storm/kw_arm" >>$TRACE/kprobe_events &&
			echo "-:kw_storm/kw_ret" >>$TRACE/kprobe_events ||
			fail "round $i: cannot remove the probes" || break
		set -- $hits
		[ "$1" -gt 0 ] && narm=$((narm + 1))
		[ "$2" -gt 0 ] && nret=$((nret + 1))
		[ "$fn" -gt 0 ] && nfn=$((nfn + 1))
		echo "kw_storm round $i: arm $1, ret $2, function $fn" >/dev/kmsg
	done
	echo "storm off" >$KT
	echo >$I/set_ftrace_filter
	rmdir $I
	echo "$PROBE_ROUNDS rounds in $((($(date +%s%N) - t0) / 1000000)) ms; rounds with kprobe hits $narm, kretprobe hits $nret, function trace hits $nfn"
	expect_eq "rounds with kprobe hits" $narm "$PROBE_ROUNDS" || return 1
	expect_eq "rounds with kretprobe hits" $nret "$PROBE_ROUNDS" || return 1
	expect_eq "rounds with function trace hits" $nfn "$PROBE_ROUNDS" || return 1
	expect_no_splat
}

# Reconfigurations under load: a kthread on each CPU calls clean_frame(),
# which corrupts nothing, in a loop while /proc/kstackwatch is rewritten 30
# times (two lines for that function, a line for another one, an invalid
# line, an empty write).  While the old and the new watch's probes both
# fire, neither may lose a frame the other armed: nothing is reported, the
# guest stays alive, and nothing is armed at the end.
t_reconfigure_under_load() {
	local l4 l0 i a0 a1 bad=0 t0
	l4=$(line_for test4)
	l0=$(line_for test0)
	a0=$(stat_of arms)
	mark
	echo "storm on" >$KT || fail "cannot start the storm" || return 1
	t0=$(date +%s%N)
	for i in $(seq "$REWRITES"); do
		echo "kw_storm rewrite $i" >/dev/kmsg
		case $((i % 5)) in
		0) echo "$l4" >$KSW ;;
		1) echo "$l4+0" >$KSW ;;
		2) echo "$l0" >$KSW ;;
		3) ! echo "not a line" >$KSW 2>/dev/null || bad=$((bad + 1)) ;;
		4) echo >$KSW ;;
		esac
	done
	echo "$l4" >$KSW
	sleep 1
	echo >$KSW
	echo "storm off" >$KT
	a1=$(stat_of arms)
	echo "$REWRITES reconfigurations under load in $((($(date +%s%N) - t0) / 1000000)) ms: $((a1 - a0)) frames armed, $(stat_of busy) busy in all"
	expect_eq "invalid lines accepted" $bad 0 || return 1
	[ $((a1 - a0)) -gt 0 ] || fail "the storm armed no frame" || return 1
	expect_eq "reports" "$(reports)" 0 || { since_mark | grep -A8 "$BANNER" | head -30; return 1; }
	expect_eq "armed at the end" "$(stat_of armed_now)" 0
}

# A watch replaced by one on the same function and probe point (another
# depth written out, another variable) takes the old watch's probes over:
# 20 such rewrites under load register the function's probes once (the
# kernel logs each frame release point when it registers the kprobe
# there), and the watch they then serve catches a corruption.
t_same_function_keeps_probes() {
	local l4 l0 i n regs t0
	l4=$(line_for test4)
	l0=$(line_for test0)
	mark
	echo "storm on" >$KT || fail "cannot start the storm" || return 1
	t0=$(date +%s%N)
	for i in $(seq 20); do
		if [ $((i % 2)) -eq 1 ]; then echo "$l4" >$KSW; else echo "$l4+0" >$KSW; fi ||
			fail "rewrite $i refused" || break
	done
	echo "storm off" >$KT
	echo >$KSW
	n=$(since_mark | grep -c 'frame release point: clean_frame+')
	regs=$(since_mark | grep -c "watching: $l4")
	echo "20 rewrites of clean_frame's watch under load in $((($(date +%s%N) - t0) / 1000000)) ms: $regs watches set up, $n frame release probes registered"
	[ "$regs" -ge 10 ] || fail "not all rewrites set up a watch" || return 1
	expect_eq "kept probes" "$(since_mark | grep -c 'the probes of the watch it replaced kept')" 19 || return 1
	[ "$n" -ge 1 ] && [ "$n" -le 16 ] ||
		fail "the frame release probes were registered $n times: the probes were set up again" || return 1
	expect_eq "reports" "$(reports)" 0 || return 1
	expect_eq "armed at the end" "$(stat_of armed_now)" 0 || return 1
	# The probes taken over serve the watch that took them.
	echo "$l0" >$KSW && echo "$l0+0" >$KSW || fail "cannot watch test0" || return 1
	run_test 0 "$l0+0" || return 1
	expect_one_report "stack canary of canary_test_write" canary_rewrite
}

t_no_splat() {
	expect_no_splat
}

ktap_main
