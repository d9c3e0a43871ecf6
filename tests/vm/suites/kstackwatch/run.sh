#!/bin/bash
# Suite "kstackwatch": KStackWatch in the booted guest.  The test module's
# /proc/kstackwatch_test prints, for each test, the /proc/kstackwatch line
# that watches it, measured on this kernel: no offset is hard-coded.
#
# What it asserts: the parser's KUnit suite passed at boot (both line
# forms); test0-test3 each give exactly one catch report naming the watched
# and the corrupting function (test3 at depths 3 and 5, reported at that
# depth only), set by names alone (kwatchctl resolve from the image's stack
# variable index; the kernel picks the probe point and shows it after the
# line read back), and for test2 and test3 the kernel's offset of the
# variable from the stack pointer equals the one the test module measures;
# test9, a frame the prologue realigns: its canary by name catches, a co=
# variable there is refused (EOPNOTSUPP, logged), and do_filp_open's canary
# by name arms with its canary found; test10, a notrace function (a
# kretprobe in the fprobe's place): its canary by name catches, and
# __do_sys_newuname's by name arms and comes off;
# the time to read the index and to resolve one variable, cold and warm
# (printed); the v4 lines still catch; fn=kfree (no canary) and a variable
# outside the frame are refused with their reason logged, a missing variable
# gets the list of the real ones and a 32-byte one the elements to name;
# test5, a call with stack arguments taken back mid-body before the store:
# its one frame release point is the epilogue, and the catch fires.
#
# Several watches (>> adds, -LINE removes): two watches on two functions
# both catch, removing one leaves the other firing, the same line twice is
# EEXIST and removing a gone one ENOENT, a plain write replaces them all and
# an empty one removes them; beside a watch on held_frame (test8, armed 10
# ms at a time by the module's "hold" kthread sleeping in it), 20 test0 runs
# give 20 reports, each on test0's own watch, and the sleeping frame is
# never written to; a watched function calling another watched function
# (test7) gives both catches, the callee's first, and one function watched
# at depths 3 and 5 at once one report at each; with a wprobe holding a
# debug register three watches fit and the fourth is ENOSPC with a log line
# saying the registers are taken, without it four fit and a fifth is ENOSPC
# ("all 4 watches are in use"), and after the empty write a wprobe gets a
# register again.
#
# With the watch disarmed, no report; malformed lines, and an ip_offset past
# the function's end (the next function's start), get EINVAL and an unknown
# function an error while the previous watch stays and still fires; a second
# opener gets EBUSY; the kstackwatch:ksw_catch trace event carries the
# report's address, length, ip, function, depth, pid and the watch's line
# (config); no kernel splat; last, test6: the task oopses inside the watched
# function and dies there: no report, nothing left armed (died counts it),
# and the next watch arms and catches as usual (skipped on a lockdep kernel,
# where the oops would turn lockdep off).
. /opt/kwatch/tests/guest/ktap.sh

. /opt/kwatch/tests/guest/kstackwatch.sh

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

# Tests 0-3 by names alone (kwatchctl resolve): the kernel picks the probe
# point, and shows it after the line it was given.

# run_named N LINE [MEASURED]: like run_test, checking the read-back first,
# and with MEASURED the picked offset against the test module's.
run_named() {
	echo "$2" >$KSW || { echo "FAIL: cannot write '$2' to $KSW"; return 1; }
	local back
	back=$(cat $KSW)
	case $back in
	"$2 # fo=0x"*) ;;
	*) fail "read-back '$back' is not '$2 # fo=...'"; return 1 ;;
	esac
	echo "${back#"$2 # "}" | grep -qxE 'fo=0x[0-9a-f]+( so=[0-9]+)?' ||
		{ fail "read-back '$back': not what the kernel picked"; return 1; }
	if [ -n "${3:-}" ]; then
		expect_measured "$3" || return 1
	fi
	mark
	echo "test$1" >$KT
	echo >$KSW
}

t_test0_canary_write() {
	local cfg
	cfg=$(name_line_for test0)
	expect_eq "test0 by name" "$cfg" "fn=canary_test_write" || return 1
	run_named 0 "$cfg" || return 1
	expect_one_report "stack canary of canary_test_write" canary_rewrite || return 1
	since_mark | grep -qF "config: $cfg" || fail "report lacks 'config: $cfg'"
}

t_test1_canary_overflow() {
	run_named 1 "$(name_line_for test1)" || return 1
	expect_one_report "stack canary of canary_test_overflow" canary_test_overflow
}

# A frame the prologue realigns (and $-64,%rsp: test9's buffer is aligned
# to 64 bytes; 183 of the test kernel's canaried functions do it, among
# them do_filp_open): its canary by name arms and catches; a co= variable
# there has no fixed place from the stack pointer and is refused, saying
# so.  do_filp_open's canary by name arms, and is found in its frame
# (stats: arms up, no_addr not).
# canary_of_kernel_function FN CMD...: FN's canary by name armed while CMD
# runs, then removed: it armed (stats: arms up) and always found the
# canary (no_addr unchanged).
canary_of_kernel_function() {
	local fn=$1 cfg arms no_addr
	shift
	cfg=$(kwatchctl resolve "$fn") || return 1
	echo "$cfg" >$KSW || { fail "'$cfg' refused: $(dmesg | grep kstackwatch | tail -n2)"; return 1; }
	echo "armed: $(cat $KSW)"
	arms=$(stat_of arms)
	no_addr=$(stat_of no_addr)
	"$@" >/dev/null
	echo >$KSW
	[ "$(stat_of arms)" -gt "$arms" ] || fail "$fn's watch never armed" || return 1
	expect_eq "arms without the canary found (no_addr)" "$(stat_of no_addr)" "$no_addr"
}

t_test9_realigned_canary() {
	local cfg err
	cfg=$(name_line_for test9)
	expect_eq "test9 by name" "$cfg" "fn=realigned_overflow" || return 1
	run_named 9 "$cfg" || return 1
	expect_one_report "stack canary of realigned_overflow" realigned_overflow || return 1
	mark
	err=$( (echo 'fn=realigned_overflow co=-16 wl=8' >$KSW) 2>&1 ) &&
		{ fail "co= in a realigned frame was accepted"; return 1; }
	echo "$err" | grep -q 'not supported' || fail "co= in a realigned frame: $err (want EOPNOTSUPP)" || return 1
	since_mark | grep -q 'realigned_overflow: no probe point found: its prologue realigns' ||
		fail "no log line saying the prologue realigns" || return 1
	# so= is from the stack pointer: it needs no distance to the CFA.  The
	# index has the realigned frame's buffer from the stack pointer
	# (DW_OP_breg7), and the resolver gives it as so=.
	cfg=$(kwatchctl resolve realigned_overflow 'buffer[0]') || return 1
	expect_eq "buffer[0] of the realigned frame, by name" "$cfg" "fn=realigned_overflow so=0 wl=8" || return 1
	echo "$cfg" >$KSW || fail "so= in a realigned frame refused" || return 1
	cat $KSW | grep -qE '^fn=realigned_overflow so=0 wl=8 # fo=0x[0-9a-f]+' ||
		fail "so= read back: $(cat $KSW)" || return 1
	echo >$KSW
	canary_of_kernel_function do_filp_open cat /etc/hostname /etc/os-release
}

# A function ftrace cannot hook (no __fentry__: notrace, as every inline
# function of the kernel is, also where gcc emits it out of line: 1286 of
# the test kernel's 5840 canaried functions): a kretprobe counts its
# activations in the fprobe's place.  test10 by name catches, naming
# notrace_overflow; __do_sys_newuname (a syscall's inline body) by name
# arms, and uname finds its canary (stats: arms up, no_addr not), and the
# watch comes off (disarms up).
t_test10_notrace_canary() {
	local cfg disarms
	cfg=$(name_line_for test10)
	expect_eq "test10 by name" "$cfg" "fn=notrace_overflow" || return 1
	run_named 10 "$cfg" || return 1
	expect_one_report "stack canary of notrace_overflow" notrace_overflow || return 1
	disarms=$(stat_of disarms)
	canary_of_kernel_function __do_sys_newuname sh -c 'uname -a; uname -r' || return 1
	[ "$(stat_of disarms)" -gt "$disarms" ] || fail "__do_sys_newuname's watch never came off"
}

t_test2_silent_corruption() {
	local cfg
	cfg=$(name_line_for test2) || return 1
	echo "$cfg" | grep -qE '^fn=silent_corruption_victim co=-[0-9]+ wl=8$' ||
		fail "test2 by name: '$cfg'" || return 1
	run_named 2 "$cfg" test2 || return 1
	since_mark | grep -q 'stale pointer misses' && { fail "test layout: the stale pointer missed the victim"; return 1; }
	expect_one_report "local variable at sp+[0-9]* of silent_corruption_victim" \
		silent_corruption_corrupting
}

t_test3_recursive_depth() {
	local d
	for d in 3 5; do
		run_named 3 "$(name_line_for test3 $d)" test3 || return 1
		expect_one_report "local variable at sp+[0-9]* of recursive_corruption_test, depth $d," \
			recursive_corruption_test || return 1
	done
}

# Resolving in the guest: the index this image carries, its size, and the
# time to read it and to resolve one variable (cold: the first read after
# boot's page cache; warm: again).
t_resolve_cost() {
	local idx out i
	idx=/usr/lib/kwatch/stackvars/$(uname -r)
	[ -s "$idx" ] || fail "no stack variable index at $idx" || return 1
	echo "index: $(grep -vc '^#' "$idx") entries, $(($(stat -c %s "$idx") / 1024)) KiB"
	for i in cold warm; do
		out=$(kwatchctl resolve -v silent_corruption_victim 'data[2]' 2>&1 >/dev/null | tail -n1)
		echo "$i: $out"
		echo "$out" | grep -q 'entries read in' || fail "kwatchctl resolve failed" || return 1
		echo "kwatch-bench: resolve from the guest's index ($i, TCG): $(echo "$out" | sed -n 's/.*entries read in \([0-9.]*\) ms, resolved in \([0-9.]*\) ms/read \1 ms, resolve \2 ms/p')"
	done
}

# The v4 line (function+ip_offset, measured) keeps working byte for byte.
t_v4_lines() {
	local cfg
	cfg=$(line_for test2)
	echo "$cfg" | grep -qE '^silent_corruption_victim\+0x[0-9a-f]+ [0-9]+:8$' ||
		fail "measured line '$cfg'" || return 1
	echo "$cfg" >$KSW || return 1
	expect_eq "v4 read-back" "$(cat $KSW)" "$cfg" || return 1
	run_test 2 "$cfg" || return 1
	expect_one_report "local variable at sp+[0-9]* of silent_corruption_victim" \
		silent_corruption_corrupting || return 1
	run_test 0 "$(line_for test0)" || return 1
	expect_one_report "stack canary of canary_test_write" canary_rewrite
}

# A watch whose probe point cannot be picked, or whose variable is not in
# the frame there, is refused with its reason in the log; the watch in
# force stays.  The resolver refuses what cannot be watched.
t_picked_point_errors() {
	local cfg err
	cfg=$(name_line_for test0)
	echo "$cfg" >$KSW || return 1
	mark
	# kfree() has no stack protector: no canary store to arm after.
	err=$( (echo 'fn=kfree' >$KSW) 2>&1 ) && { fail "fn=kfree (no canary) was accepted"; return 1; }
	echo "fn=kfree: ${err##*: }"
	since_mark | grep -q 'kfree: no probe point found: no canary store' ||
		fail "no log line saying kfree stores no canary" || return 1
	err=$( (echo 'fn=canary_test_write co=-4096' >$KSW) 2>&1 ) &&
		{ fail "a variable below the frame was accepted"; return 1; }
	echo "$err" | grep -q 'Invalid argument' || fail "co=-4096: $err (want EINVAL)" || return 1
	since_mark | grep -q 'co=-4096 is not in the frame at canary_test_write+0x' ||
		fail "no log line placing co=-4096" || return 1
	err=$( (echo 'fn=canary_test_write fo=4 co=-16' >$KSW) 2>&1 ) &&
		{ fail "co= with fo= was accepted"; return 1; }
	expect_eq "watch after refused lines" "$(cat $KSW | sed 's/ # .*//')" "$cfg" || return 1
	echo >$KSW
	# The resolver: no such variable, one in registers, one too big.
	err=$(kwatchctl resolve silent_corruption_victim nope 2>&1) && { fail "nope resolved"; return 1; }
	echo "$err"
	echo "$err" | grep -q "has no variable 'nope' (its variables: .*data" ||
		fail "no list of the variables" || return 1
	err=$(kwatchctl resolve silent_corruption_victim data 2>&1) && { fail "data (32 bytes) resolved"; return 1; }
	echo "$err"
	echo "$err" | grep -q 'data\[0\] to data\[3\]' || fail "no element suggested"
}

# A call with stack arguments (call; add $imm,%rsp in the body) before the
# store: the watch stays armed through the argument cleanup, which is not
# the frame's release, and catches the store after it.
t_test5_stack_args_call() {
	local pts
	mark
	echo "$(line_for test5)" >$KSW || return 1
	since_mark | grep 'frame release point: '
	pts=$(since_mark | grep -c 'frame release point: stack_args_test+' || true)
	expect_eq "release points of stack_args_test (its epilogue only)" "$pts" 1 || return 1
	run_test 5 "$(line_for test5)" || return 1
	expect_one_report "stack canary of stack_args_test" canary_rewrite
}

# Several watches: a write opened for appending (>>) adds one beside the
# others.  Two watches on two functions both catch; removing one ("-LINE")
# leaves the other armed and firing; the same line twice is EEXIST, and
# removing a watch that is not there ENOENT.
t_two_watches() {
	local a b err
	a=$(name_line_for test0)
	b=$(name_line_for test2)
	echo >$KSW
	echo "$a" >>$KSW || fail "cannot add '$a'" || return 1
	echo "$b" >>$KSW || fail "cannot add '$b'" || return 1
	expect_eq "read-back, one line per watch" "$(sed 's/ # .*//' $KSW)" "$a
$b" || return 1
	mark
	echo test0 >$KT
	expect_one_report "stack canary of canary_test_write" canary_rewrite || return 1
	mark
	echo test2 >$KT
	expect_one_report "local variable at sp+[0-9]* of silent_corruption_victim" \
		silent_corruption_corrupting || return 1
	err=$( (echo "$b" >>$KSW) 2>&1 ) && { fail "the same line was added twice"; return 1; }
	echo "$err" | grep -q 'File exists' || fail "a second '$b': $err (want EEXIST)" || return 1
	mark
	echo "-$a" >>$KSW || fail "cannot remove '$a'" || return 1
	since_mark | grep -qF "removed: $a" || fail "no log line for the removal" || return 1
	expect_eq "read-back after removing one" "$(sed 's/ # .*//' $KSW)" "$b" || return 1
	mark
	echo test0 >$KT
	expect_eq "reports from the removed watch" "$(reports)" 0 || return 1
	echo test2 >$KT
	expect_one_report "local variable at sp+[0-9]* of silent_corruption_victim" \
		silent_corruption_corrupting || return 1
	err=$( (echo "-$a" >>$KSW) 2>&1 ) && { fail "a watch that is gone was removed"; return 1; }
	echo "$err" | grep -q 'No such file' || fail "removing '$a' again: $err (want ENOENT)" || return 1
	# A write without >> replaces them all, as with one watch.
	echo "$a" >$KSW || return 1
	expect_eq "read-back after a replacing write" "$(sed 's/ # .*//' $KSW)" "$a" || return 1
	echo >$KSW
	expect_eq "after the empty write" "$(cat $KSW)" "" || return 1
	expect_eq "armed after the empty write" "$(stat_of armed_now)" 0
}

# test0's store lands in test0's own frame, whatever else is armed.  With a
# watch on held_frame (test8), armed for 10 ms at a time by the module's
# "hold" kthread sleeping in it, and a second on canary_test_write, 20 test0
# runs give 20 reports, each on canary_test_write's watch, and held_frame's
# sleeping frame is never written to (a store to the first armed watch's
# address, as the self-debug helper of old did, hit that other task's live
# stack and reported the wrong watch).
t_test0_beside_armed_frames() {
	local a b own other
	a=$(name_line_for test8)
	b=$(name_line_for test0)
	echo >$KSW
	echo "$a" >>$KSW || fail "cannot add '$a'" || return 1
	echo "$b" >>$KSW || { echo >$KSW; fail "cannot add '$b'"; return 1; }
	echo "hold on" >$KT || { echo >$KSW; fail "cannot start the hold kthread"; return 1; }
	mark
	for _ in $(seq 20); do echo test0 >$KT; done
	echo "hold off" >$KT
	echo >$KSW
	own=$(since_mark | grep -c "watched: stack canary of canary_test_write" || true)
	other=$(since_mark | grep -c "watched: stack canary of held_frame" || true)
	echo "20 test0 runs beside an armed, sleeping held_frame: $own reports on canary_test_write, $other on held_frame"
	expect_eq "reports on the other task's frame" "$other" 0 || return 1
	expect_eq "reports on test0's own frame" "$own" 20
}

# A watched function calling another watched function: both active in one
# task, each with its own context, and each catches its own store, the
# callee's first.  And one function watched at two depths at once.
t_nested_watches() {
	local a b log
	a=$(name_line_for test1)
	b=$(name_line_for test7)
	echo "$b" | grep -qE '^fn=nested_outer_test co=-[0-9]+ wl=8$' || fail "test7 by name: '$b'" || return 1
	echo >$KSW
	echo "$a" >>$KSW && echo "$b" >>$KSW || fail "cannot add '$a' and '$b'" || return 1
	cat $KSW
	mark
	echo test7 >$KT
	log=$(since_mark)
	echo "$log" | grep -E "^.*(watched|corrupting store):"
	expect_eq "catch reports" "$(reports)" 2 || return 1
	echo "$log" | grep -E 'watched: |corrupting store: ' | sed 's/^\[[^]]*\] *//; s/^kstackwatch: //' | tr '\n' '|' |
		grep -qE "watched: stack canary of canary_test_overflow, [^|]*\|corrupting store: the instruction before canary_test_overflow(\.[a-z0-9.]+)?\+0x[^|]*\|watched: local variable at sp\+[0-9]+ of nested_outer_test, [^|]*\|corrupting store: the instruction before nested_outer_test(\.[a-z0-9.]+)?\+0x" ||
		fail "the reports are not the callee's canary, then the caller's local" || return 1
	echo >$KSW
	echo "$(name_line_for test3 3)" >>$KSW && echo "$(name_line_for test3 5)" >>$KSW ||
		fail "cannot watch test3 at depths 3 and 5" || return 1
	mark
	echo test3 >$KT
	echo >$KSW
	log=$(since_mark)
	expect_eq "catch reports at two depths" "$(reports)" 2 || return 1
	echo "$log" | grep -q "of recursive_corruption_test, depth 5," &&
		echo "$log" | grep -q "of recursive_corruption_test, depth 3," ||
		fail "not one report at depth 3 and one at depth 5"
}

# The debug registers run out: with a wprobe holding one, three watches
# fit and the fourth is ENOSPC, saying why; the three still fire.  Without
# the wprobe, four fit, and a fifth is ENOSPC for want of a slot.
t_register_limit() {
	local de=$TRACE/dynamic_events t err n=0
	echo >$KSW
	echo 'w:kw_hold w@jiffies:8' >>$de || fail "cannot create a wprobe" || return 1
	mark
	for t in 0 1 2 4; do
		if err=$( (echo "$(name_line_for test$t)" >>$KSW) 2>&1 ); then
			n=$((n + 1))
			continue
		fi
		echo "watch $((n + 1)): ${err##*: }"
		echo "$err" | grep -q 'No space left on device' || fail "want ENOSPC, got: $err" || break
		since_mark | grep -q "no free debug register for '$(name_line_for test$t)'" ||
			fail "no log line saying the debug registers are taken" || break
		break
	done
	echo "$n watches beside one wprobe"
	expect_eq "watches beside one wprobe" $n 3 || { echo >$KSW; echo '-:kw_hold' >>$de; return 1; }
	expect_eq "watches listed" "$(grep -c . $KSW)" 3 || { echo >$KSW; echo '-:kw_hold' >>$de; return 1; }
	mark
	echo test0 >$KT
	expect_one_report "stack canary of canary_test_write" canary_rewrite || { echo >$KSW; echo '-:kw_hold' >>$de; return 1; }
	echo '-:kw_hold' >>$de || fail "cannot remove the wprobe" || return 1
	echo "$(name_line_for test4)" >>$KSW || fail "the fourth watch does not fit once the wprobe is gone" || return 1
	mark
	err=$( (echo "$(name_line_for test5)" >>$KSW) 2>&1 ) && { echo >$KSW; fail "a fifth watch was added"; return 1; }
	echo "watch 5: ${err##*: }"
	echo "$err" | grep -q 'No space left on device' || { echo >$KSW; fail "want ENOSPC, got: $err"; return 1; }
	since_mark | grep -q 'all 4 watches are in use' || { echo >$KSW; fail "no log line for the fifth"; return 1; }
	echo >$KSW
	# The registers are free again: a wprobe can have one.
	echo 'w:kw_hold w@jiffies:8' >>$de || fail "the empty write left debug registers held" || return 1
	echo '-:kw_hold' >>$de
}

t_disarmed_no_report() {
	local t
	echo >$KSW
	expect_eq "active watch" "$(cat $KSW)" "" || return 1
	mark
	for t in 0 1 2 3; do echo "test$t" >$KT; done
	expect_eq "reports with no watch" "$(reports)" 0
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
	# An ip_offset past the function's end, at the start of the next
	# function (an instruction boundary, so only the bound refuses it).
	bad="canary_test_write+$(past_end canary_test_write)"
	err=$( (echo "$bad" >$KSW) 2>&1 ) && { fail "'$bad' (past the end) was accepted"; return 1; }
	echo "$err" | grep -q 'Invalid argument' || { fail "'$bad': $err (want EINVAL)"; return 1; }
	dmesg | grep -q 'canary_test_write: ip_offset .* is past the end of the function' ||
		fail "no message naming the past-the-end ip_offset" || return 1
	err=$( (echo 'no_such_function_kwatch+4' >$KSW) 2>&1 ) && { fail "unknown function accepted"; return 1; }
	echo "unknown function: ${err##*: }"
	expect_eq "watch after bad writes" "$(cat $KSW)" "$cfg" || return 1
	mark
	echo test0 >$KT
	echo >$KSW
	expect_eq "the previous watch still fires" "$(reports)" 1
}

# past_end FUNC: the distance from FUNC to the next text symbol in
# /proc/kallsyms, in hex: FUNC's size with its padding.
past_end() {
	awk -v f="$1" '$2 ~ /^[tT]$/ { a[$1] = $3 } $3 == f { fa = $1 }
		END { for (x in a) if (x > fa && (n == "" || x < n)) n = x; print fa, n }' /proc/kallsyms |
		{ read -r fa n; printf '0x%x' $((0x$n - 0x$fa)); }
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
		fail "event func/depth/pid wrong (want pid $pid)" || return 1
	echo "$line" | grep -qF "config=\"$cfg\"" || fail "event does not name the watch '$cfg'"
}

t_no_splat() {
	expect_no_splat
}

# The task dies (an oops) inside the watched function: the watch comes off
# its frame, with no report (x86 rewinds the dying stack over the frame),
# and the next watch arms and catches as usual.  Last in the suite: the
# oops kills the writer and taints the kernel.
t_task_dies_in_watched_function() {
	local rc=0 died0
	[ ! -e /proc/lockdep ] ||
		{ skip "lockdep kernel: the oops would turn lockdep off for the suites after this one"; return; }
	died0=$(stat_of died)
	[ -n "$died0" ] || fail "no 'died' counter in $STATS" || return 1
	echo "$(line_for test6)" >$KSW || fail "cannot watch '$(line_for test6)'" || return 1
	mark
	bash -c "echo test6 >$KT" 2>/dev/null || rc=$?
	echo "the writer's exit status: $rc"
	[ $rc -ne 0 ] || fail "the writer survived test6" || return 1
	since_mark | grep -q 'RIP: 0010:dying_frame' || fail "no oops in dying_frame" || return 1
	since_mark | grep -A6 "$BANNER" | head -8
	expect_eq "catch reports after the oops" "$(reports)" 0 || return 1
	expect_eq "armed after the task died" "$(stat_of armed_now)" 0 || return 1
	expect_eq "frames released because their task died" "$(($(stat_of died) - died0))" 1 || return 1
	echo >$KSW
	# An oops turns tracing off (oops_enter()).
	echo 1 >$TRACE/tracing_on
	run_test 0 "$(line_for test0)" || return 1
	expect_one_report "stack canary of canary_test_write" canary_rewrite
}

ktap_main
