#!/bin/bash
# Suite "kstackwatch_stress": repeated arm/disarm cycles of KStackWatch,
# CPU hotplug under a watch, and (make bench) the benchmark.
# Reconfigurations under load are the suite kstackwatch_storm.
#
# What it asserts: 200 armed calls of a clean function: 200 arms, 200
# disarms, all at the instruction that releases the frame (none left to the
# return handler), no report; CPU hotplug under two watches (catches of both
# on cpu1 and cpu0 after cpu1 went offline and back); no kernel splat.
# Benchmark (b_bench, make bench only): the cost of a call watched vs
# unwatched (probes only, armed and disarmed on each call, two watches armed
# on each call vs one) and IPIs per re-point, printed.
. /opt/kwatch/tests/guest/ktap.sh

. /opt/kwatch/tests/guest/kstackwatch.sh

# A clean function, armed on each of 200 calls: each call is disarmed
# where the function releases its frame, before the return, and nothing
# the return path or an interrupt writes over the dead frame is reported.
t_no_false_report_after_return() {
	local a0 a1 d0 d1 l0 l1 f0 f1
	echo "$(line_for test4)" >$KSW || return 1
	a0=$(stat_of arms); d0=$(stat_of disarms); l0=$(stat_of late); f0=$(stat_of filtered)
	mark
	for _ in $(seq 200); do echo test4 >$KT; done
	a1=$(stat_of arms); d1=$(stat_of disarms); l1=$(stat_of late); f1=$(stat_of filtered)
	echo >$KSW
	echo "200 calls: $((a1 - a0)) arms, $((d1 - d0)) disarms ($((l1 - l0)) only at return), $((f1 - f0)) trampoline hits filtered"
	expect_eq "arms" $((a1 - a0)) 200 || return 1
	expect_eq "disarms" $((d1 - d0)) 200 || return 1
	expect_eq "disarms left to the return handler" $((l1 - l0)) 0 || return 1
	expect_eq "reports" "$(reports)" 0
}

# Cost of a call to a watched function vs unwatched, and IPIs per re-point.
b_bench() {
	local n=3000 base probes armed two i0 a0 d0 i1 a1 d1
	bench() { mark; echo "bench $n" >$KT; since_mark | sed -n 's/.* \([0-9]*\) ns\/call/\1/p' | tail -n1; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / (b ? b : 1) }'; }
	echo >$KSW
	base=$(bench)
	# Probes on, never armed: a depth that is never reached.
	echo "$(line_for test4 | sed -E 's/^([^ ]+)/\1+1000/')" >$KSW
	probes=$(bench)
	echo "$(line_for test4)" >$KSW
	i0=$(stat_of ipis); a0=$(stat_of arms); d0=$(stat_of disarms)
	armed=$(bench)
	i1=$(stat_of ipis); a1=$(stat_of arms); d1=$(stat_of disarms)
	# A second watch on the same frame (depth 0 said outright is another
	# line): two breakpoints armed and disarmed on each call.
	echo "$(line_for test4)+0" >>$KSW || fail "cannot add a second watch" || return 1
	two=$(bench)
	echo >$KSW
	[ -n "$base" ] && [ -n "$probes" ] && [ -n "$armed" ] && [ -n "$two" ] || fail "bench gave no figures" || return 1
	echo "kstackwatch-bench: two watches armed each call ${two} ns/call vs one ${armed} ns/call: ratio two/one $(ratio "$two" "$armed") (TCG, one boot)"
	echo "kstackwatch-bench: unwatched ${base} ns/call, probes only ${probes} ns/call, armed+disarmed each call ${armed} ns/call (TCG)"
	echo "kstackwatch-bench: ratio armed/unwatched $(ratio "$armed" "$base"), probes/unwatched $(ratio "$probes" "$base"), armed/probes $(ratio "$armed" "$probes") (upstream on hardware: about 83, 23.4 us toggled vs 283 ns probes only, entry+exit)"
	echo "kstackwatch-bench: $((i1 - i0)) IPIs for $((a1 - a0)) arms + $((d1 - d0)) disarms = $(awk -v i=$((i1 - i0)) -v o=$((a1 - a0 + d1 - d0)) 'BEGIN { printf "%.2f", i / (o ? o : 1) }') IPIs per re-point on $(nproc) CPUs"
}

t_cpu_hotplug() {
	local cpu=/sys/devices/system/cpu/cpu1/online
	[ -w $cpu ] || { skip "cpu1 cannot be taken offline"; return; }
	echo "$(line_for test0)" >$KSW || return 1
	echo "$(line_for test1)" >>$KSW || return 1
	echo 0 >$cpu || fail "cannot offline cpu1" || return 1
	echo 1 >$cpu || fail "cannot online cpu1" || return 1
	mark
	taskset -c 1 sh -c "echo test0 >$KT; echo test1 >$KT"
	taskset -c 0 sh -c "echo test0 >$KT; echo test1 >$KT"
	echo >$KSW
	expect_eq "catches of two watches on cpu1 and cpu0 after cpu1 went offline and back" "$(reports)" 4
}

t_no_splat() {
	expect_no_splat
}

ktap_main
