#!/bin/bash
# Suite "platform": the ground every kwatch tool stands on, checked in the
# booted guest.  Each test asserts what it reports.
#
# What it asserts: systemd reaches multi-user with no failed units (the boot
# time is printed); /sys/kernel/btf/vmlinux, debugfs, tracefs and kprobe
# events are there (a kprobe event is created and removed); a wide hardware
# data breakpoint on a module variable sees 100 hits for 100 stores, each at
# the instruction after the store; KASAN reports a slab-out-of-bounds read
# in the expected function (kwatch_platform_oob_read); a KUnit suite runs
# and its KTAP is nested in the results that reach the host.
. /opt/kwatch/tests/guest/ktap.sh

MODDIR=/opt/kwatch/modules
DBG=/sys/kernel/debug
TRACE=/sys/kernel/tracing

t_systemd_multi_user() {
	local state failed us
	state=$(systemctl is-active multi-user.target)
	expect_eq "multi-user.target" "$state" active || return 1
	us=$(systemctl show -p ActiveEnterTimestampMonotonic --value multi-user.target)
	echo "kwatch-boot-seconds: $(awk -v us="$us" 'BEGIN { printf "%.1f", us / 1e6 }')"
	systemd-analyze time 2>/dev/null | head -n1
	failed=$(systemctl list-units --failed --no-legend --plain | awk '{print $1}' | xargs)
	expect_eq "failed units" "${failed:-none}" none
}

t_kernel_interfaces() {
	local f size
	size=$(stat -c %s /sys/kernel/btf/vmlinux 2>/dev/null || echo 0)
	[ "$size" -gt 1000000 ] || fail "/sys/kernel/btf/vmlinux missing or small ($size bytes)" || return 1
	echo "BTF: $size bytes"
	mountpoint -q $DBG || fail "debugfs not mounted at $DBG" || return 1
	mountpoint -q $TRACE || fail "tracefs not mounted at $TRACE" || return 1
	for f in kprobe_events dynamic_events error_log README; do
		[ -e $TRACE/$f ] || fail "$TRACE/$f missing" || return 1
	done
	# A kprobe event really is created and removed.
	echo 'p:kwatch_platform/probe_open do_sys_openat2' >>$TRACE/kprobe_events ||
		fail "cannot create a kprobe event" || return 1
	[ -d $TRACE/events/kwatch_platform/probe_open ] || fail "kprobe event directory missing" || return 1
	echo '-:kwatch_platform/probe_open' >>$TRACE/kprobe_events || fail "cannot remove the kprobe event"
}

load_platform_module() {
	[ -d $DBG/kwatch_platform ] || insmod $MODDIR/kwatch_platform.ko ||
		fail "insmod kwatch_platform.ko"
}

t_hwbp_fires_at_writer() {
	local n=100 got
	load_platform_module || return 1
	echo $n >$DBG/kwatch_platform/hwbp || fail "hwbp run failed" || return 1
	got=$(cat $DBG/kwatch_platform/hwbp)
	expect_eq "wide breakpoint, $n stores" "$got" "writes=$n hits=$n ip_ok=$n"
}

t_kasan_reports_oob() {
	local before report
	load_platform_module || return 1
	before=$(dmesg | wc -l)
	echo 1 >$DBG/kwatch_platform/kasan_oob || fail "kasan_oob write failed" || return 1
	report=$(dmesg | tail -n +$((before + 1)))
	echo "$report" | grep -m1 'BUG: KASAN'
	echo "$report" | grep -q 'BUG: KASAN: slab-out-of-bounds in kwatch_platform_oob_read' ||
		fail "no slab-out-of-bounds report in kwatch_platform_oob_read" || return 1
	echo "$report" | grep -q 'Read of size 1 at addr' || fail "report lacks 'Read of size 1'"
}

t_kunit_results_reach_host() {
	local res=$DBG/kunit/kwatch_platform/results
	insmod $MODDIR/kwatch_platform_kunit.ko || fail "insmod kwatch_platform_kunit.ko" || return 1
	[ -r $res ] || fail "$res missing" || return 1
	sed 's/^/KTAP:/' $res
	grep -q '^ok 1 kwatch_platform' $res || fail "KUnit suite kwatch_platform did not pass"
}

ktap_main
