#!/bin/bash
# Suite "kstackwatch": KStackWatch in the booted guest.  The test module's
# /proc/kstackwatch_test prints, for each test, the /proc/kstackwatch line
# that watches it, measured on this kernel: no offset is hard-coded.
. /opt/kwatch/tests/guest/ktap.sh

KSW=/proc/kstackwatch
KT=/proc/kstackwatch_test
STATS=/sys/kernel/debug/kstackwatch/stats
TRACE=/sys/kernel/tracing
BANNER='KStackWatch: caught stack corruption'
SUITE_START=$(dmesg | wc -l)

# The /proc/kstackwatch line for test $1 (optionally with depth $2).
line_for() {
	local l
	l=$(awk -v t="$1" '$1 == t { $1 = ""; sub(/^ /, ""); print }' $KT)
	[ -n "${2:-}" ] && l=$(echo "$l" | sed -E "s/^([^ +]+\+0x[0-9a-f]+)\+[0-9]+/\1+$2/")
	echo "$l"
}

mark() { MARK=$(dmesg | wc -l); }
since_mark() { dmesg | tail -n +$((MARK + 1)); }
reports() { since_mark | grep -c "$BANNER"; }
stat_of() { awk -v k="$1" '$1 == k { print $2 }' $STATS; }

# run_test N LINE: watch with LINE, run testN, disarm; leaves MARK.
run_test() {
	echo "$2" >$KSW || { echo "FAIL: cannot write '$2' to $KSW"; return 1; }
	mark
	echo "test$1" >$KT
	echo >$KSW
}

# expect_one_report WATCHED_TEXT CORRUPTER: exactly one report, naming both.
expect_one_report() {
	local n log
	n=$(reports)
	log=$(since_mark)
	echo "$log" | grep -A6 "$BANNER" | sed -n '1,7p'
	expect_eq "catch reports" "$n" 1 || return 1
	echo "$log" | grep -q "watched: $1" || fail "report does not name '$1'" || return 1
	echo "$log" | grep -q "corrupting store: the instruction before $2+0x" ||
		fail "report does not name the corrupting function $2" || return 1
}

t_interfaces() {
	local res=/sys/kernel/debug/kunit/kstackwatch_config/results
	[ -e $KSW ] || fail "$KSW missing" || return 1
	[ -e $KT ] || fail "$KT missing" || return 1
	[ -w /sys/module/kstackwatch/parameters/panic_on_catch ] ||
		fail "panic_on_catch is not writable at run time" || return 1
	expect_eq "active watch at boot" "$(cat $KSW)" "" || return 1
	cat $KT
	# The parser's KUnit suite ran at boot: nest its KTAP.
	[ -r $res ] || fail "$res missing" || return 1
	sed 's/^/KTAP:/' $res
	grep -q '^ok 1 kstackwatch_config' $res || fail "KUnit suite kstackwatch_config failed"
}

t_test0_canary_write() {
	local cfg
	cfg=$(line_for test0)
	run_test 0 "$cfg" || return 1
	expect_one_report "stack canary of canary_test_write" ksw_watch_fire || return 1
	since_mark | grep -qF "config: $cfg" || fail "report lacks 'config: $cfg'"
}

t_test1_canary_overflow() {
	run_test 1 "$(line_for test1)" || return 1
	expect_one_report "stack canary of canary_test_overflow" canary_test_overflow
}

t_test2_silent_corruption() {
	local cfg
	cfg=$(line_for test2)
	run_test 2 "$cfg" || return 1
	since_mark | grep -q 'stale pointer misses' && { fail "test layout: the stale pointer missed the victim"; return 1; }
	expect_one_report "local variable at sp+[0-9]* of silent_corruption_victim" \
		silent_corruption_corrupting
}

t_test3_recursive_depth() {
	local d
	for d in 3 5; do
		run_test 3 "$(line_for test3 $d)" || return 1
		expect_one_report "local variable at sp+[0-9]* of recursive_corruption_test, depth $d," \
			recursive_corruption_test || return 1
	done
}

t_disarmed_no_report() {
	local t
	echo >$KSW
	expect_eq "active watch" "$(cat $KSW)" "" || return 1
	mark
	for t in 0 1 2 3; do echo "test$t" >$KT; done
	expect_eq "reports with no watch" "$(reports)" 0
}

# The return trampoline writes over the dead frame before the exit handler
# disarms: none of that may be reported.
t_no_false_report_after_return() {
	local a0 a1 d0 d1 f0 f1
	echo "$(line_for test4)" >$KSW || return 1
	a0=$(stat_of arms); d0=$(stat_of disarms); f0=$(stat_of filtered)
	mark
	for _ in $(seq 200); do echo test4 >$KT; done
	a1=$(stat_of arms); d1=$(stat_of disarms); f1=$(stat_of filtered)
	echo >$KSW
	echo "200 calls: $((a1 - a0)) arms, $((d1 - d0)) disarms, $((f1 - f0)) trampoline hits filtered"
	expect_eq "arms" $((a1 - a0)) 200 || return 1
	expect_eq "disarms by return" $((d1 - d0)) 200 || return 1
	expect_eq "reports" "$(reports)" 0
}

t_malformed_keeps_watch() {
	local cfg bad err
	cfg=$(line_for test0)
	echo "$cfg" >$KSW || return 1
	for bad in 'canary_test_write' 'canary_test_write+' '+0x10' \
		'canary_test_write+0x10 8' 'canary_test_write+0x10 8:3' \
		'canary_test_write+0x10 4:8' 'canary_test_write+1+2+3' \
		'canary_test_write+0x10 8:8 extra' '9bad+1'; do
		err=$( (echo "$bad" >$KSW) 2>&1 ) && { fail "'$bad' was accepted"; return 1; }
		echo "$err" | grep -q 'Invalid argument' || { fail "'$bad': $err (want EINVAL)"; return 1; }
	done
	err=$( (echo 'no_such_function_kwatch+4' >$KSW) 2>&1 ) && { fail "unknown function accepted"; return 1; }
	echo "unknown function: ${err##*: }"
	expect_eq "watch after bad writes" "$(cat $KSW)" "$cfg" || return 1
	mark
	echo test0 >$KT
	echo >$KSW
	expect_eq "the previous watch still fires" "$(reports)" 1
}

t_second_opener_ebusy() {
	local err
	exec 3<$KSW
	err=$( (echo >$KSW) 2>&1 ) && { exec 3<&-; fail "a second opener got in"; return 1; }
	exec 3<&-
	echo "$err"
	echo "$err" | grep -q 'busy' || fail "want EBUSY, got: $err" || return 1
	echo >$KSW || fail "cannot open after the first opener closed"
}

t_trace_event() {
	local ev=$TRACE/events/kstackwatch/ksw_catch line addr cfg pid
	[ -d $ev ] || fail "no kstackwatch:ksw_catch event" || return 1
	echo >$TRACE/trace
	echo 1 >$ev/enable
	cfg=$(line_for test2)
	echo "$cfg" >$KSW
	mark
	echo test2 >$KT
	pid=$BASHPID
	echo >$KSW
	echo 0 >$ev/enable
	line=$(grep 'ksw_catch:' $TRACE/trace)
	echo "$line"
	expect_eq "events" "$(echo "$line" | grep -c ksw_catch)" 1 || return 1
	addr=$(since_mark | sed -n 's/.*address: \(0x[0-9a-f]*\),.*/\1/p')
	echo "$line" | grep -q "addr=$addr len=8 ip=silent_corruption_corrupting+0x" ||
		fail "event address/len/ip differ from the report (address $addr)" || return 1
	echo "$line" | grep -q "func=silent_corruption_victim depth=0 pid=$pid" ||
		fail "event func/depth/pid wrong (want pid $pid)"
}

t_cpu_hotplug() {
	local cpu=/sys/devices/system/cpu/cpu1/online
	[ -w $cpu ] || { skip "cpu1 cannot be taken offline"; return; }
	echo "$(line_for test0)" >$KSW || return 1
	echo 0 >$cpu || fail "cannot offline cpu1" || return 1
	echo 1 >$cpu || fail "cannot online cpu1" || return 1
	mark
	taskset -c 1 sh -c "echo test0 >$KT"
	taskset -c 0 sh -c "echo test0 >$KT"
	echo >$KSW
	expect_eq "catches on cpu1 and cpu0 after cpu1 went offline and back" "$(reports)" 2
}

t_no_splat() {
	local bad
	# Catch reports carry stack dumps; any warning, BUG or stall is a splat.
	bad=$(dmesg | tail -n +$((SUITE_START + 1)) | grep -E 'WARNING:|BUG:|lockdep|INFO: rcu|self-detected stall|general protection fault|Oops' || true)
	[ -z "$bad" ] || { echo "$bad"; fail "kernel splat during the suite"; }
}

# Cost of a call to a watched function vs unwatched, and IPIs per re-point.
t_bench() {
	local n=3000 base probes armed i0 a0 d0 i1 a1 d1
	bench() { mark; echo "bench $n" >$KT; since_mark | sed -n 's/.* \([0-9]*\) ns\/call/\1/p' | tail -n1; }
	echo >$KSW
	base=$(bench)
	# Probes on, never armed: a depth that is never reached.
	echo "$(line_for test4 | sed -E 's/^([^ ]+)/\1+1000/')" >$KSW
	probes=$(bench)
	echo "$(line_for test4)" >$KSW
	i0=$(stat_of ipis); a0=$(stat_of arms); d0=$(stat_of disarms)
	armed=$(bench)
	i1=$(stat_of ipis); a1=$(stat_of arms); d1=$(stat_of disarms)
	echo >$KSW
	[ -n "$base" ] && [ -n "$probes" ] && [ -n "$armed" ] || fail "bench gave no figures" || return 1
	echo "kstackwatch-bench: unwatched ${base} ns/call, probes only ${probes} ns/call, armed+disarmed each call ${armed} ns/call (TCG)"
	echo "kstackwatch-bench: ratio armed/unwatched $(awk -v a="$armed" -v b="$base" 'BEGIN { printf "%.1f", a / (b ? b : 1) }'), probes/unwatched $(awk -v a="$probes" -v b="$base" 'BEGIN { printf "%.1f", a / (b ? b : 1) }')"
	echo "kstackwatch-bench: $((i1 - i0)) IPIs for $((a1 - a0)) arms + $((d1 - d0)) disarms = $(awk -v i=$((i1 - i0)) -v o=$((a1 - a0 + d1 - d0)) 'BEGIN { printf "%.2f", i / (o ? o : 1) }') IPIs per re-point on $(nproc) CPUs"
}

ktap_main
