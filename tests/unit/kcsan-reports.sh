#!/bin/bash
# Host test of scripts/kcsan-reports.sh on a console log made up of four
# KCSAN reports (with the console's timestamps and a line of other output
# inside one): a race whose access is in a series function (twice, the
# same race), one whose stack only passes through the series, one at a
# test module's function, one of 6.1 alone.  Checks the classes, the
# counts, the exit status, and that the reports go to OUT whole.
TOP=@TOP@
. "$TOP/tests/unit/check.sh"

printf '%s\n' ksw_watch_on ksw_apply_local ksw_proc_write >"$T/funcs"
report() { # TITLE ACCESS1-FRAMES ACCESS2-FRAMES [A LINE INSIDE], frames split by ";"
	local f IFS=';'
	echo "[   10.000000] =================================================================="
	echo "[   10.000001] BUG: KCSAN: data-race in $1"
	echo "[   10.000002] "
	echo "[   10.000003] write to 0xffff888003c1e000 of 8 bytes by task 212 on cpu 0:"
	for f in $2; do echo "[   10.000004]  $f"; done
	echo "[   10.000005] "
	[ -z "${4:-}" ] || echo "[   10.000005] $4"
	echo "[   10.000006] read to 0xffff888003c1e000 of 8 bytes by interrupt on cpu 1:"
	for f in $3; do echo "[   10.000007]  $f"; done
	echo "[   10.000008] "
	echo "[   10.000009] value changed: 0x0000000000000001 -> 0x0000000000000002"
	echo "[   10.000010] "
	echo "[   10.000011] Reported by Kernel Concurrency Sanitizer on:"
	echo "[   10.000012] CPU: 1 PID: 0 Comm: swapper/1 Not tainted 6.1.192-kwatch #1"
	echo "[   10.000013] =================================================================="
}
{
	report "ksw_apply_local / ksw_watch_on" "ksw_watch_on+0x1d/0x30;kthread+0x23e/0x260" \
		"ksw_apply_local.constprop.0+0x10/0x20;__flush_smp_call_function_queue+0x1/0x2"
	report "ksw_apply_local / ksw_watch_on" "ksw_watch_on+0x1d/0x30;kthread+0x23e/0x260" \
		"ksw_apply_local.constprop.0+0x10/0x20;__flush_smp_call_function_queue+0x1/0x2" \
		"kstackwatch: watching: fn=clean_frame"
	report "rb_commit / rb_reserve" "rb_commit+0x1/0x2;ksw_proc_write+0x3/0x4" "rb_reserve+0x1/0x2;vfs_write+0x1/0x2"
	report "kwt_write_var / kwt_stress_write" "kwt_write_var+0x1/0x2 [kwatch_wprobe_target]" \
		"kwt_stress_write+0x1/0x2 [kwatch_wprobe_target]"
	report "tick_sched_do_timer / tick_nohz_next_event" "tick_sched_do_timer+0x1/0x2" "tick_nohz_next_event+0x1/0x2"
} >"$T/console.log"

out=$("$TOP/scripts/kcsan-reports.sh" "$T/funcs" "$T/full" "$T/console.log")
check "exit status with a race in the series' code" $? 1
check "series: reports" "$(echo "$out" | grep -c '^series   2 reports$')" 1
check "series: one distinct race, counted twice, with its accesses' first frames" \
	"$(echo "$out" | grep -c '^ *2x data-race in ksw_apply_local / ksw_watch_on  \[ksw_watch_on / ksw_apply_local\]$')" 1
check "reached" "$(echo "$out" | grep -c '^reached  1 reports$')" 1
check "module" "$(echo "$out" | grep -c '^module   1 reports$')" 1
check "6.1" "$(echo "$out" | grep -c '^6.1      1 reports$')" 1
check "6.1's race listed" "$(echo "$out" | grep -c '1x data-race in tick_sched_do_timer / tick_nohz_next_event')" 1
check "reports in full" "$(grep -c '^BUG: KCSAN: data-race in' "$T/full")" 5
check "other output inside a report kept out of the frames" "$(grep -c 'watching: fn=clean_frame' "$T/full")" 1

grep -v 'ksw_' "$T/console.log" >"$T/no-series.log"
"$TOP/scripts/kcsan-reports.sh" "$T/funcs" "$T/full" "$T/no-series.log" >/dev/null
check "exit status without a race in the series' code" $? 0
[ $fails -eq 0 ]
