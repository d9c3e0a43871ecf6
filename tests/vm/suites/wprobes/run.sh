#!/bin/bash
# Suite "wprobes": watchpoint probe events in tracefs, in the booted guest.
# The kernel's own ftrace selftests for wprobes run first; then a jiffies
# watch, the access kinds on a test module's variable, triggers that follow
# a kmalloc'ed object, coexistence with KStackWatch, running out of debug
# registers, and the cost of a watched write.
. /opt/kwatch/tests/guest/ktap.sh

T=/sys/kernel/tracing
DE=$T/dynamic_events
MODDIR=/opt/kwatch/modules
VAR=/sys/kernel/debug/kwatch_wprobe/var
OBJ=/sys/kernel/debug/kwatch_wprobe/obj
FTRACE=/opt/kwatch/ftrace

reset_tracing() {
	echo 0 >$T/tracing_on
	echo 0 >$T/events/enable
	for f in $T/events/kmem/kmalloc/trigger $T/events/kmem/kfree/trigger; do
		grep -v '^#' $f | while read -r tr _; do echo "!$tr" >>$f; done
	done
	echo >$DE
	echo >$T/trace
	echo 1 >$T/tracing_on
}

# The event lines of wprobe $1 in the trace buffer.
hits() { grep -E "^ .* $1: \(" $T/trace || true; }

load_target() {
	[ -e $VAR ] || insmod $MODDIR/kwatch_wprobe_target.ko || fail "insmod kwatch_wprobe_target.ko"
}

t_readme() {
	grep -q 'w\[:\[<group>/\]\[<event>\]\]' $T/README || fail "no wprobe syntax in the tracefs README" || return 1
	grep 'w\[:' $T/README
}

t_ftracetest() {
	local out
	[ -x $FTRACE/ftracetest ] || fail "ftracetest not in the image" || return 1
	reset_tracing
	out=$(cd $FTRACE && ./ftracetest -vv test.d/dynevent/add_remove_wprobe.tc \
		test.d/dynevent/wprobes_syntax_errors.tc test.d/trigger/trigger-wprobe.tc 2>&1)
	echo "$out" | grep -E '^\[[0-9]+\]|^# of|FAIL|Test command'
	# -vv puts a failed test's log right after its [FAIL] line.
	echo "$out" | grep -q '^# of passed:  3' || { echo "$out" | head -n 300; fail "ftracetest: not 3 passed"; }
}

t_jiffies_increasing() {
	local n1 n2 vals
	reset_tracing
	echo 'w:my_jiffies w@jiffies:8 value=+0($addr)' >>$DE || fail "cannot create my_jiffies" || return 1
	grep -qx 'w:wprobes/my_jiffies w@jiffies:8 value=+0($addr)' $DE || fail "dynamic_events shows: $(cat $DE)" || return 1
	echo 1 >$T/events/wprobes/my_jiffies/enable
	sleep 1
	echo 0 >$T/events/wprobes/my_jiffies/enable
	n1=$(hits my_jiffies | wc -l)
	hits my_jiffies | head -3
	[ "$n1" -ge 10 ] || fail "only $n1 jiffies writes traced in 1 s" || return 1
	# Fetch args without a type are x64: hex.  Each CPU's hits increase;
	# across CPUs the trace order need not follow the stores.
	[ "$(hits my_jiffies | grep -c 'value=0x[0-9a-f]*$')" -eq "$n1" ] || fail "hits without a value" || return 1
	local cpu v line
	declare -A last=()
	while read -r line; do
		# Parsed in the shell: two seds per hit are slow under TCG.
		[[ $line =~ \ \[([0-9]+)\]\ .*value=0x([0-9a-f]+)$ ]] ||
			fail "unparsed hit: $line" || return 1
		cpu=${BASH_REMATCH[1]}
		v=$((16#${BASH_REMATCH[2]}))
		[ -z "${last[$cpu]:-}" ] || [ "$v" -gt "${last[$cpu]}" ] ||
			fail "values on CPU $cpu do not increase: ${last[$cpu]} then $v" || return 1
		last[$cpu]=$v
	done < <(hits my_jiffies)
	hits my_jiffies | grep -q '(tick_do_update_jiffies64+0x' || fail "no hit names tick_do_update_jiffies64" || return 1
	sleep 1
	n2=$(hits my_jiffies | wc -l)
	expect_eq "hits after disable" "$n2" "$n1" || return 1
	echo '-:my_jiffies' >>$DE || fail "cannot remove my_jiffies"
}

# r, w and rw wprobes on the module's variable, one at a time: each fires
# only on its kind of access and names the function that made it.
t_access_kinds() {
	local kind r w
	load_target || return 1
	for kind in r w rw; do
		reset_tracing
		echo "w:kw_$kind $kind@kwt_var:8 value=\$value" >>$DE || fail "cannot create $kind@kwt_var" || return 1
		echo 1 >$T/events/wprobes/kw_$kind/enable
		echo "write $RANDOM" >$VAR
		echo read >$VAR
		echo 0 >$T/events/wprobes/kw_$kind/enable
		hits kw_$kind
		w=$(hits kw_$kind | grep -c '(kwt_write_var+0x')
		r=$(hits kw_$kind | grep -c '(kwt_read_var+0x')
		case $kind in
		r) expect_eq "r: writes, reads" "$w,$r" "0,1" || return 1 ;;
		w) expect_eq "w: writes, reads" "$w,$r" "1,0" || return 1 ;;
		rw) expect_eq "rw: writes, reads" "$w,$r" "1,1" || return 1 ;;
		esac
		echo "-:kw_$kind" >>$DE
	done
}

# set_wprobe on kmem:kmalloc (only kwt_obj_alloc()'s call site) and
# clear_wprobe on kmem:kfree follow one object through its life.
t_trigger_follows_object() {
	local range start end obj n
	load_target || return 1
	reset_tracing
	# kwt_obj_alloc()'s range: from its symbol to the next one of the module.
	range=$(grep '\[kwatch_wprobe_target\]' /proc/kallsyms | sort |
		awk '$3 == "kwt_obj_alloc" { s = $1; next } s && !e { e = $1 } END { print "0x" s, "0x" e }')
	read -r start end <<<"$range"
	echo "kwt_obj_alloc: $start-$end"
	[ "$start" != 0x ] && [ "$end" != 0x ] || fail "kwt_obj_alloc not in /proc/kallsyms" || return 1
	echo 'w:objw w@0:8 address=$addr value=$value' >>$DE || fail "cannot create objw" || return 1
	echo "set_wprobe:objw:ptr+8 if call_site >= $start && call_site < $end" >>$T/events/kmem/kmalloc/trigger ||
		fail "set_wprobe trigger refused" || return 1
	echo 'clear_wprobe:objw:ptr+8' >>$T/events/kmem/kfree/trigger || fail "clear_wprobe trigger refused" || return 1
	cat $T/events/kmem/kmalloc/trigger $T/events/kmem/kfree/trigger | grep wprobe
	echo 1 >$T/events/wprobes/objw/enable
	# Before the object exists, and another allocation: nothing watched.
	echo "write 1" >$VAR
	echo alloc >$OBJ
	obj=$(sed -n 's/^obj=\(0x[0-9a-f]*\).*/\1/p' $OBJ)
	echo "write 7" >$OBJ
	echo "write 9" >$OBJ
	echo free >$OBJ
	# Freed: clear_wprobe pointed it at nothing.
	echo alloc >$OBJ
	echo free >$OBJ
	echo 0 >$T/events/wprobes/objw/enable
	hits objw
	n=$(hits objw | grep -c "(kwt_obj_write+0x.*address=$(printf '0x%x' $((obj + 8))) ")
	expect_eq "hits from kwt_obj_write at the object's offset 8" "$n" 2 || return 1
	hits objw | grep -q 'value=0x9$' || fail "the second write's value (9) is not in the trace" || return 1
	expect_eq "hits from anywhere else" "$(hits objw | grep -vc '(kwt_obj_write+0x')" 0 || return 1
	! echo '-:objw' >>$DE 2>/dev/null || fail "a wprobe moved by a trigger was removed" || return 1
	reset_tracing
}

# A wprobe and a KStackWatch watch at the same time: both fire.
t_with_kstackwatch() {
	local line
	[ -e /proc/kstackwatch_test ] || { skip "no KStackWatch in this kernel"; return; }
	load_target || return 1
	reset_tracing
	line=$(awk '$1 == "test0" { $1 = ""; sub(/^ /, ""); print }' /proc/kstackwatch_test)
	echo 'w:kw_both w@kwt_var:8' >>$DE || fail "cannot create kw_both" || return 1
	echo 1 >$T/events/wprobes/kw_both/enable
	echo "$line" >/proc/kstackwatch || fail "cannot arm KStackWatch with '$line'" || return 1
	local m0
	m0=$(dmesg | wc -l)
	echo test0 >/proc/kstackwatch_test
	echo "write 42" >$VAR
	echo >/proc/kstackwatch
	echo 0 >$T/events/wprobes/kw_both/enable
	expect_eq "KStackWatch reports" "$(dmesg | tail -n +$((m0 + 1)) | grep -c 'KStackWatch: caught stack corruption')" 1 || return 1
	expect_eq "wprobe hits" "$(hits kw_both | grep -c '(kwt_write_var+0x')" 1 || return 1
	echo '-:kw_both' >>$DE
}

# Creating wprobes until the debug registers run out: the one that does
# not fit fails with ENOSPC and says so in error_log; the rest still work.
t_out_of_debug_registers() {
	local i err made=0
	reset_tracing
	echo >$T/error_log
	for i in 1 2 3 4 5; do
		if err=$( (echo "w:full$i w@jiffies:8" >>$DE) 2>&1 ); then
			made=$((made + 1))
			continue
		fi
		echo "wprobe $i: ${err##*: }"
		echo "$err" | grep -q 'No space left on device' || fail "want ENOSPC, got: $err" || return 1
		grep -q 'trace_wprobe: error: No free hardware breakpoint' $T/error_log ||
			fail "error_log: $(cat $T/error_log)" || return 1
		break
	done
	echo "created $made wprobes before the debug registers ran out"
	[ $made -ge 1 ] && [ $made -lt 5 ] || fail "$made of 5 created" || return 1
	grep -c '^w:wprobes/full' $DE | grep -qx $made || fail "dynamic_events lists a failed wprobe" || return 1
	echo >$DE
}

# The wprobe event from perf and BPF: a per-CPU counting perf event on its
# tracepoint id counts each hit, and a BPF kprobe-type program attached to
# it runs on each hit (one that returns 0 drops them all).
t_perf_and_bpf() {
	local out
	load_target || return 1
	reset_tracing
	echo 'w:kw_perf w@kwt_var:8' >>$DE || fail "cannot create kw_perf" || return 1
	out=$(/opt/kwatch/bin/wprobe-perf kw_perf $VAR 500 2>&1)
	local rc=$?
	echo "$out"
	echo '-:kw_perf' >>$DE
	[ $rc -eq 0 ] || fail "perf/BPF on a wprobe event"
}

# Cost of a write to a watched variable vs unwatched, and hits recorded vs
# writes made in a burst (lost hits must show in the ring buffer's counts).
t_bench() {
	local n=20000 base watched hitn over
	load_target || return 1
	reset_tracing
	# The module times each burst itself (ktime_get_ns() around the loop).
	echo "burst $n" >$VAR
	base=$(cut -d' ' -f2 $VAR)
	echo 'w:kw_bench w@kwt_var:8' >>$DE || return 1
	echo 1 >$T/events/wprobes/kw_bench/enable
	echo "burst $n" >$VAR
	watched=$(cut -d' ' -f2 $VAR)
	echo 0 >$T/events/wprobes/kw_bench/enable
	hitn=$(hits kw_bench | grep -c '(kwt_burst_var+0x')
	over=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	awk -v a="$watched" -v b="$base" -v n=$n 'BEGIN {
		printf "wprobes-bench: unwatched %.1f ns/write, watched (each write traced) %.1f ns/write, ratio %.1f (TCG)\n",
			b / n, a / n, a / (b ? b : 1) }'
	echo "wprobes-bench: burst of $n writes: $hitn hits in the trace, $over overwritten (ring buffer overrun)"
	expect_eq "hits + overrun" $((hitn + over)) $n
	echo '-:kw_bench' >>$DE
}

ktap_main
