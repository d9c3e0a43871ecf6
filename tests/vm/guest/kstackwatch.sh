# shellcheck shell=bash
# Helpers shared by the kstackwatch suites.  The test module's
# /proc/kstackwatch_test prints, for each test, the /proc/kstackwatch line
# that watches it, measured on this kernel: no offset is hard-coded.
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

# The watch of test $1 by names alone: FUNCTION [VARIABLE].
names_for() {
	case $1 in
	test0) echo canary_test_write ;;
	test1) echo canary_test_overflow ;;
	test2) echo 'silent_corruption_victim data[2]' ;;
	test3) echo 'recursive_corruption_test buffer[0]' ;;
	test4) echo clean_frame ;;
	test5) echo stack_args_test ;;
	test7) echo 'nested_outer_test buffer[1]' ;;
	test8) echo held_frame ;;
	test9) echo realigned_overflow ;;
	test10) echo notrace_overflow ;;
	*) return 1 ;;
	esac
}

# The /proc/kstackwatch line for test $1 (at depth $2) from its names:
# kwatchctl resolve in this kernel's stack variable index, no offset.
name_line_for() {
	# shellcheck disable=SC2046 # FUNCTION and VARIABLE are two words
	kwatchctl resolve ${2:+-d "$2"} $(names_for "$1")
}

# What the kernel picked for the watch in force: "fo=0x.. [so=..]".
picked() { sed -n 's/.* # \(fo=.*\)$/\1/p' $KSW; }

# expect_measured TEST: the stack pointer offset the kernel picked for the
# by-name watch in force (the resolver's CFA offset at the kernel's probe
# point) equals the one the test module measures at its own arm point.
expect_measured() {
	local got want
	got=$(picked | sed -n 's/.* so=\([0-9]*\)$/\1/p')
	want=$(line_for "$1" | sed -n 's/.* \([0-9]*\):[0-9]*$/\1/p')
	echo "$1: picked '$(picked)', measured '$(line_for "$1")'"
	expect_eq "$1: the variable's offset from the stack pointer, resolved vs measured" "$got" "$want"
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
	echo "$log" | grep -qE "corrupting store: the instruction before $2(\.[a-z0-9.]+)?\+0x" ||
		fail "report does not name the corrupting function $2" || return 1
}

# No WARNING, BUG or INFO report (lockdep, RCU, KASAN) since the suite started
# (catch reports carry stack dumps, which are no splat).  KCSAN's data-race
# reports on the kcsan kernel are left to make kcsan-test, which collects
# them all from the console and tells the series' races from 6.1's.
expect_no_splat() {
	local bad
	bad=$(dmesg | tail -n +$((SUITE_START + 1)) |
		grep -E 'WARNING:|BUG:|INFO:|self-detected stall|general protection fault|Oops' |
		grep -v 'BUG: KCSAN: ' || true)
	[ -z "$bad" ] || { echo "$bad"; fail "kernel splat during the suite"; }
}
