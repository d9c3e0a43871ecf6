#!/bin/bash
# Suite "kstackwatch_storm" (MANUAL: run only when named): reconfigurations
# of KStackWatch under load.  It can hang the guest through a QEMU TCG bug:
# the vCPUs keep executing an int3 that ftrace or kprobes already removed
# from memory (kprobe_int3_handler() retries it for ever); see the README.
. /opt/kwatch/tests/guest/ktap.sh

. /opt/kwatch/tests/guest/kstackwatch.sh

# Reconfigurations under load: a kthread on each CPU calls clean_frame(),
# which corrupts nothing, in a loop while /proc/kstackwatch is rewritten 30
# times (two lines for that function, a line for another one, an invalid
# line, an empty write).  While the old and the new watch's probes both
# fire, neither may lose a frame the other armed: nothing is reported, the
# guest stays alive, and nothing is armed at the end.
t_reconfigure_under_load() {
	local l4 l0 i a0 a1 bad=0
	l4=$(line_for test4)
	l0=$(line_for test0)
	a0=$(stat_of arms)
	mark
	echo "storm on" >$KT || fail "cannot start the storm" || return 1
	for i in $(seq 30); do
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
	echo "30 reconfigurations under load: $((a1 - a0)) frames armed, $(stat_of busy) busy in all"
	expect_eq "invalid lines accepted" $bad 0 || return 1
	[ $((a1 - a0)) -gt 0 ] || fail "the storm armed no frame" || return 1
	expect_eq "reports" "$(reports)" 0 || { since_mark | grep -A8 "$BANNER" | head -30; return 1; }
	expect_eq "armed at the end" "$(stat_of armed_now)" 0
}

t_no_splat() {
	expect_no_splat
}

ktap_main
