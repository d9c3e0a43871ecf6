#!/bin/bash
# Suite "wprobes": watchpoint probe events in tracefs, in the booted guest.
# The kernel's own ftrace selftests for wprobes run first; then a jiffies
# watch, the access kinds on a test module's variable, triggers that follow
# a kmalloc'ed object, coexistence with KStackWatch, running out of debug
# registers, the reasons error_log gives, a two-CPU re-point stress, CPU
# hotplug, the hit-storm guard (hits and re-points), re-points of parked
# breakpoints (no IPI), creation (parked; refused on a full CPU without a
# trace), and the cost of a watched write.
#
# What it asserts: the tracefs README documents the w: syntax; the kernel's
# own ftrace selftests for wprobes (add/remove, every syntax error with its
# caret in error_log, the set/clear_wprobe trigger flow) pass under
# ftracetest, with 129 fetch args refused (TOO_MANY_ARGS) and trigger
# identity and groups in the trigger test; the boot-time KUnit suite of
# modify_wide_hw_breakpoint_local() (hw_breakpoint_modify: moves, refusals
# that leave the breakpoint unchanged, DR7 saved away as in the #DB handler)
# passed; `w:my_jiffies w@jiffies:8 value=+0($addr)` records increasing
# values from tick_do_update_jiffies64 while enabled and nothing after; r, w
# and rw wprobes on a test module's variable each fire only on their kind of
# access and name the function that made it; set_wprobe on kmem:kmalloc
# (filtered to one call site) and clear_wprobe on kmem:kfree follow one
# object: exactly its two writes are recorded, at its address; a wprobe and
# a KStackWatch watch fire together; creating wprobes until the debug
# registers run out fails with ENOSPC and "No free hardware breakpoint"; a
# per-CPU counting perf event on the wprobe's tracepoint counts each hit,
# and a BPF kprobe-type program attached to it runs on each hit (one that
# returns 0 drops them all); each refusal says its own reason in error_log
# (an address the CPU cannot watch, and seven set_wprobe mistakes); a
# wprobe on w@kwatch_wprobe_target:kwt_var made before the module is loaded
# is "waiting" in wprobe_profile, armed and hit once the module is loaded,
# waiting again (and no kernel report) after rmmod while enabled, and hit in
# the module's next load, as is one made on the plain symbol kwt_var; a
# symbol the loaded module lacks is refused with its error_log reason.
#
# A two-CPU re-point stress (a set_wprobe on each allocation, stores with
# interrupts off) records no hit at an object another CPU had already
# replaced, and the last re-point reaches the other CPU (IPIs per re-point
# printed); after cpu1 goes down and up a wprobe fires there, one made while
# cpu1 was down fires there once it is up, and set_wprobe re-points it
# there, with no kernel warning; a disabled wprobe is parked (0 breakpoint
# traps from 1000 writes, counted with the function tracer on
# perf_bp_event(); 100 from 100 once enabled).
#
# The hit-storm guard: a tight write loop on `w500:kw_storm w@kwt_var:8`
# records exactly 500 hits, then one wprobe:wprobe_storm event ("501 hits in
# a second, limit 500"), disarmed:hits in wprobe_profile, its error_log and
# kernel log lines, no hit while disarmed and one after re-enabling; at the
# default limit (10000) the trip time and the loop's time guarded vs
# unwatched (printed); a jiffies watch never trips it;
# set_wprobe/clear_wprobe re-pointing more than 50 times a second trips it
# with re-points; a set_wprobe on a disabled or a disarmed wprobe only
# records the address: its kmallocs send no IPI (CAL + IWI per kmalloc
# printed, at most 1 in 20) and the enable applies it; a never-enabled w1
# wprobe on a variable that a timer on each CPU loads every 100 us, made 150
# times, counts no hit and never trips (it is created parked); 60 creations
# refused because the test module holds all of cpu1's debug registers each
# fail with ENOSPC and its reason and leave no kernel report; an r wprobe on
# the CPU entry area is refused with its reason; one wprobe set from two
# fields is two triggers, removing a missing trigger is ENOENT, a name that
# two groups have needs GROUP/WPROBE and the trigger file shows it.
#
# Last, t_bench (a test, in make test too): the cost of a write watched,
# disabled and with no wprobe, and hits recorded vs writes made in a burst,
# printed.
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
	grep -qF 'w[maxrate][:[<group>/][<event>]]' $T/README || fail "no wprobe syntax in the tracefs README" || return 1
	grep -F 'w[maxrate][:' $T/README
	grep -qF 'addr: [<module>:]<symbol>' $T/README || fail "no MODULE:SYMBOL in the tracefs README"
}

t_ftracetest() {
	local out
	[ -x $FTRACE/ftracetest ] || fail "ftracetest not in the image" || return 1
	reset_tracing
	out=$(cd $FTRACE && ./ftracetest -vv test.d/dynevent/add_remove_wprobe.tc \
		test.d/dynevent/wprobes_syntax_errors.tc test.d/trigger/trigger-wprobe.tc \
		test.d/dynevent/wprobe_storm_guard.tc 2>&1)
	echo "$out" | grep -E '^\[[0-9]+\]|^# of|FAIL|Test command'
	# -vv puts a failed test's log right after its [FAIL] line.
	echo "$out" | grep -q '^# of passed:  4' || { echo "$out" | head -n 300; fail "ftracetest: not 4 passed"; }
}

# The KUnit suite of modify_wide_hw_breakpoint_local(), which wprobes and
# KStackWatch re-point with, ran at boot: nest its KTAP.
t_modify_kunit() {
	local res=/sys/kernel/debug/kunit/hw_breakpoint_modify/results
	[ -r $res ] || fail "$res missing (CONFIG_HW_BREAKPOINT_KUNIT_TEST)" || return 1
	sed 's/^/KTAP:/' $res
	grep -q '^ok 1 hw_breakpoint_modify' $res || fail "KUnit suite hw_breakpoint_modify failed"
}

t_jiffies_increasing() {
	local n1 n2 vals
	reset_tracing
	echo 'w:my_jiffies w@jiffies:8 value=+0($addr)' >>$DE || fail "cannot create my_jiffies" || return 1
	grep -qx 'w:wprobes/my_jiffies w@jiffies:8 value=+0($addr)' $DE || fail "dynamic_events shows: $(cat $DE)" || return 1
	echo 1 >$T/events/wprobe/wprobe_storm/enable
	echo 1 >$T/events/wprobes/my_jiffies/enable
	sleep 1
	# A normal watch never trips the hit-storm guard.
	grep -q '^ *my_jiffies .* 10000 armed$' $T/wprobe_profile || fail "wprobe_profile: $(cat $T/wprobe_profile)" || return 1
	echo 0 >$T/events/wprobes/my_jiffies/enable
	expect_eq "wprobe_storm events" "$(grep -c 'wprobe_storm:' $T/trace)" 0 || return 1
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

# A module's symbol (MODULE:SYMBOL): created before the module is loaded
# (waiting), watched in each load of it, parked while it is gone; a plain
# symbol found in the module is followed the same way.
profile_state() { awk -v n="$1" '$1 == n { print $NF }' $T/wprobe_profile; }
t_module_symbol() {
	local d0 a1 a2 n reports
	reset_tracing
	d0=$(dmesg | wc -l)
	[ -e $VAR ] && { rmmod kwatch_wprobe_target || fail "rmmod kwatch_wprobe_target" || return 1; }
	echo 'w:kw_mod w@kwatch_wprobe_target:kwt_var:8 value=$value' >>$DE ||
		fail "w@kwatch_wprobe_target:kwt_var refused before its module is loaded: $(tail -n 2 $T/error_log)" || return 1
	grep -qx 'w:wprobes/kw_mod w@kwatch_wprobe_target:kwt_var:8 value=$value' $DE || fail "dynamic_events: $(cat $DE)" || return 1
	echo 1 >$T/events/wprobes/kw_mod/enable
	expect_eq "kw_mod's state, module not loaded" "$(profile_state kw_mod)" waiting || return 1
	insmod $MODDIR/kwatch_wprobe_target.ko || fail "insmod kwatch_wprobe_target.ko" || return 1
	a1=$(awk '$3 == "kwt_var" { print $1 }' /proc/kallsyms)
	expect_eq "kw_mod's state, module loaded" "$(profile_state kw_mod)" armed || return 1
	echo "write 7" >$VAR
	hits kw_mod
	expect_eq "hits by kwt_write_var in the first load" "$(hits kw_mod | grep -c '(kwt_write_var+0x.*value=0x7$')" 1 || return 1
	# Unloaded while enabled: parked, the event stays.
	rmmod kwatch_wprobe_target || fail "rmmod with an enabled wprobe on its variable" || return 1
	expect_eq "kw_mod's state once the module is gone" "$(profile_state kw_mod)" waiting || return 1
	grep -q kw_mod $DE || fail "kw_mod went with its module" || return 1
	insmod $MODDIR/kwatch_wprobe_target.ko || fail "insmod again" || return 1
	a2=$(awk '$3 == "kwt_var" { print $1 }' /proc/kallsyms)
	echo "kwt_var: 0x$a1 in the first load, 0x$a2 in the second"
	expect_eq "kw_mod's state in the second load" "$(profile_state kw_mod)" armed || return 1
	echo "write 9" >$VAR
	n=$(hits kw_mod | grep -c '(kwt_write_var+0x.*value=0x9$')
	expect_eq "kw_mod's hits by kwt_write_var in the second load" "$n" 1 || return 1
	echo 0 >$T/events/wprobes/kw_mod/enable
	echo '-:kw_mod' >>$DE
	# A plain symbol found in the module is followed too.  (One wprobe
	# on the address at a time: QEMU's TCG reports one of two watchpoints
	# on one address in DR6.)
	echo 'w:kw_plain w@kwt_var:8' >>$DE || fail "w@kwt_var refused" || return 1
	echo 1 >$T/events/wprobes/kw_plain/enable
	rmmod kwatch_wprobe_target || fail "rmmod with kw_plain on its variable" || return 1
	expect_eq "kw_plain's state once the module is gone" "$(profile_state kw_plain)" waiting || return 1
	insmod $MODDIR/kwatch_wprobe_target.ko || fail "insmod a third time" || return 1
	expect_eq "kw_plain's state in the next load" "$(profile_state kw_plain)" armed || return 1
	echo "write 11" >$VAR
	expect_eq "kw_plain's hits in the next load" "$(hits kw_plain | grep -c '(kwt_write_var+0x')" 1 || return 1
	# A loaded module that lacks the symbol is an error, not a wait.
	echo 'w:kw_nosym w@kwatch_wprobe_target:kwt_no_such_var:8' >>$DE 2>/dev/null &&
		fail "a symbol the loaded module lacks was accepted" && return 1
	tail -n 3 $T/error_log | grep -q 'Invalid watch address or symbol' || fail "error_log: $(tail -n 3 $T/error_log)" || return 1
	# A module without a symbol, or a symbol with no module, is refused;
	# a length may still be written +8.
	for bad in 'kwatch_wprobe_target:' ':kwt_var' 'kwatch_wprobe_target:+8'; do
		echo "w:kw_bad w@$bad" >>$DE 2>/dev/null && { fail "w@$bad accepted"; return 1; }
	done
	echo 'w:kw_plus w@kwt_var:+8' >>$DE || fail "w@kwt_var:+8 refused: $(tail -n 2 $T/error_log)" || return 1
	grep -q 'w:wprobes/kw_plus w@kwt_var:8' $DE || fail "kw_plus: $(cat $DE)" || return 1
	echo '-:kw_plus' >>$DE
	echo 0 >$T/events/wprobes/kw_plain/enable
	reports=$(dmesg | tail -n +$((d0 + 1)) | grep -E 'BUG:|WARNING:|KASAN|general protection')
	[ -z "$reports" ] || { echo "$reports" | head -20; fail "kernel reports across the unload and reload"; return 1; }
	reset_tracing
}

# set_wprobe on kmem:kmalloc (only kwt_obj_alloc()'s call site) and
# clear_wprobe on kmem:kfree follow one object through its life.
t_trigger_follows_object() {
	local range start end obj n
	load_target || return 1
	reset_tracing
	# kwt_obj_alloc()'s range: from its symbol to the next one of the module.
	range=$(sym_range kwt_obj_alloc)
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

# el_case WHAT TEXT FILE LINE: writing LINE to FILE is refused, and
# error_log says TEXT.
el_case() {
	echo >$T/error_log
	if echo "$4" >>"$3" 2>/dev/null; then
		fail "$1: accepted: $4"
		return 1
	fi
	grep -qF "$2" $T/error_log || fail "$1: error_log: $(cat $T/error_log)" || return 1
	echo "$1: $(grep -F 'error:' $T/error_log | sed 's/^\[[^]]*\] //')"
}

# Each refusal says its own reason in error_log: the breakpoint layer's
# (an address the CPU cannot watch is no "No free hardware breakpoint")
# and the set_wprobe trigger's.  A trigger is its wprobe, field and
# offset; a name two groups have needs its group, and the trigger file
# shows it.
t_error_log_reasons() {
	local trig=$T/events/kmem/kmalloc/trigger
	reset_tracing
	echo 'w:kw_el w@0:8' >>$DE || fail "cannot create kw_el" || return 1
	el_case "CPU entry area address" "The CPU cannot watch this address" \
		$DE 'w:kw_cea w@0xfffffe0000000000:8' || return 1
	# r: x86 watches reads only with writes; the address is still refused.
	el_case "CPU entry area address, r" "The CPU cannot watch this address" \
		$DE 'w:kw_cea r@0xfffffe0000000000:8' || return 1
	el_case "no such wprobe" "No wprobe of that name" $trig 'set_wprobe:kw_nosuch:ptr' || return 1
	el_case "set_wprobe without a field" "set_wprobe needs a field" $trig 'set_wprobe:kw_el' || return 1
	el_case "no such field" "The event has no field of that name" $trig 'set_wprobe:kw_el:nosuch' || return 1
	el_case "bad offset" "Bad offset after the field" $trig 'set_wprobe:kw_el:ptr+zz' || return 1
	el_case "field not pointer-sized" "The field is not pointer-sized" \
		$T/events/sched/sched_wakeup/trigger 'set_wprobe:kw_el:pid' || return 1
	echo 'set_wprobe:kw_el:ptr' >>$trig || fail "a good trigger refused" || return 1
	el_case "the same trigger twice" "already has this trigger" $trig 'set_wprobe:kw_el:ptr' || return 1
	grep -c set_wprobe $trig | grep -qx 1 || fail "triggers: $(cat $trig)" || return 1
	# A trigger is its wprobe, field and offset: another field is another.
	echo 'set_wprobe:kw_el:call_site' >>$trig || fail "set_wprobe from a second field refused" || return 1
	el_case "removing a trigger that is not there" "no such trigger to remove" $trig '!set_wprobe:kw_el:ptr+8' || return 1
	err=$( (echo '!set_wprobe:kw_el:ptr+8' >>$trig) 2>&1 )
	echo "$err" | grep -q 'No such file or directory' || fail "removing a missing trigger: want ENOENT, got: $err" || return 1
	echo 'w:kw_g2/kw_el w@0:8' >>$DE || fail "cannot create kw_g2/kw_el" || return 1
	el_case "a name in two groups" "give GROUP/WPROBE" $trig 'set_wprobe:kw_el:ptr+16' || return 1
	echo 'set_wprobe:kw_g2/kw_el:ptr' >>$trig || fail "set_wprobe:GROUP/WPROBE refused" || return 1
	grep -x 'set_wprobe:wprobes/kw_el:ptr' $trig && grep -qx 'set_wprobe:kw_g2/kw_el:ptr' $trig ||
		fail "triggers read back as: $(grep wprobe $trig)" || return 1
	reset_tracing
}

# A symbol's range in the target module: from it to the next symbol.
sym_range() {
	grep '\[kwatch_wprobe_target\]' /proc/kallsyms | sort |
		awk -v f="$1" '$3 == f { s = $1; next } s && !e { e = $1 } END { print "0x" s, "0x" e }'
}

# Two CPUs re-point one wprobe in turn (the module's "stress" command: a
# set_wprobe on each allocation, then stores with interrupts off, so an
# IPI cannot re-point the storing CPU).  Every recorded hit must be at the
# object current when the store began: the value stored says which
# object was newest then (low 32 bits) and which one this is (high).
# Then the last object set from one CPU is hit from the other.
t_repoint_stress() {
	local s1 e1 s2 e2 n=60 m=30 total=0 stale=0 v own newest line cpus cal0 cal1 iwi0 iwi1
	[ "$(nproc)" -ge 2 ] || { skip "needs 2 CPUs"; return; }
	load_target || return 1
	reset_tracing
	read -r s1 e1 <<<"$(sym_range kwt_stress_alloc)"
	read -r s2 e2 <<<"$(sym_range kwt_obj_alloc)"
	[ "$s1" != 0x ] && [ "$e1" != 0x ] && [ "$s2" != 0x ] && [ "$e2" != 0x ] ||
		fail "kwt_stress_alloc or kwt_obj_alloc not in /proc/kallsyms" || return 1
	echo 'w:objs w@0:8 value=$value' >>$DE || fail "cannot create objs" || return 1
	echo "set_wprobe:objs:ptr+8 if (call_site >= $s1 && call_site < $e1) || (call_site >= $s2 && call_site < $e2)" \
		>>$T/events/kmem/kmalloc/trigger || fail "set_wprobe trigger refused" || return 1
	echo 1 >$T/events/wprobes/objs/enable
	cal0=$(irqs CAL); iwi0=$(irqs IWI)
	echo "stress $n $m" >$OBJ || fail "stress command failed" || return 1
	cal1=$(irqs CAL); iwi1=$(irqs IWI)
	awk -v c=$((cal1 - cal0)) -v w=$((iwi1 - iwi0)) -v r=$((n * $(nproc))) 'BEGIN {
		printf "wprobes-bench: %d re-points on %d CPUs at once: %d function-call IPIs (%.2f a re-point), %d irq_work self-IPIs (%.2f)\n",
			r, '"$(nproc)"', c, c / r, w, w / r }'
	while read -r line; do
		v=${line##*value=}
		own=$((v >> 32))
		newest=$((v & 0xffffffff))
		total=$((total + 1))
		if [ $newest -gt $own ]; then
			stale=$((stale + 1))
			[ $stale -gt 3 ] || echo "stale: $line"
		fi
	done < <(hits objs | grep '(kwt_stress_write+0x')
	echo "repoint-stress: $total hits from $(nproc) CPUs x $n objects x $m stores; $stale at a replaced object"
	[ $total -gt 0 ] || fail "no hits recorded" || return 1
	expect_eq "hits at an object already replaced on another CPU" $stale 0 || return 1

	# The last re-point reaches the other CPU: set from CPU 0, hit on CPU 1
	# and the other way round.
	for cpus in "0 1" "1 0"; do
		set -- $cpus
		echo >$T/trace
		taskset -c "$1" sh -c "echo alloc >$OBJ" || fail "alloc on CPU $1" || return 1
		sleep 0.2
		taskset -c "$2" sh -c "echo 'write 77' >$OBJ" || fail "write on CPU $2" || return 1
		hits objs
		expect_eq "set on CPU $1, hits from a store on CPU $2" \
			"$(hits objs | grep "\[00$2\].*(kwt_obj_write+0x" | grep -c 'value=0x4d$')" 1 || return 1
		echo free >$OBJ
	done
	echo 0 >$T/events/wprobes/objs/enable
	reset_tracing
}

# A wprobe survives CPU hotplug: after cpu1 goes down and up it fires on
# cpu1, one created while cpu1 is down fires there once it is up, and
# set_wprobe re-points it there; no kernel warning on the way.
t_cpu_hotplug() {
	local on=/sys/devices/system/cpu/cpu1/online s e warn0
	[ -w $on ] || { skip "cpu1 cannot go offline here"; return; }
	load_target || return 1
	reset_tracing
	warn0=$(dmesg | grep -c 'WARNING:')
	echo 'w:kw_hp w@kwt_var:8 value=$value' >>$DE || fail "cannot create kw_hp" || return 1
	echo 1 >$T/events/wprobes/kw_hp/enable
	echo 0 >$on || fail "cpu1 does not go offline" || return 1
	echo 1 >$on || fail "cpu1 does not come back" || return 1
	taskset -c 1 sh -c "echo 'write 11' >$VAR"
	taskset -c 0 sh -c "echo 'write 12' >$VAR"
	hits kw_hp
	hits kw_hp | grep -q '\[001\].*(kwt_write_var+0x.*value=0xb$' ||
		fail "kw_hp: no hit on cpu1 after it went down and up" || return 1
	hits kw_hp | grep -q '\[000\].*(kwt_write_var+0x.*value=0xc$' ||
		fail "kw_hp: no hit on cpu0" || return 1
	echo 0 >$T/events/wprobes/kw_hp/enable
	echo '-:kw_hp' >>$DE

	echo 0 >$on || fail "cpu1 does not go offline" || return 1
	echo 'w:kw_hp2 w@kwt_var:8 value=$value' >>$DE || fail "cannot create kw_hp2 with cpu1 down" || return 1
	echo 1 >$on || fail "cpu1 does not come back" || return 1
	echo 1 >$T/events/wprobes/kw_hp2/enable
	taskset -c 1 sh -c "echo 'write 13' >$VAR"
	hits kw_hp2 | grep -q '\[001\].*(kwt_write_var+0x.*value=0xd$' ||
		fail "kw_hp2 (made while cpu1 was down): no hit on cpu1: $(hits kw_hp2)" || return 1
	echo 0 >$T/events/wprobes/kw_hp2/enable
	echo '-:kw_hp2' >>$DE

	read -r s e <<<"$(sym_range kwt_obj_alloc)"
	echo 'w:kw_hpo w@0:8 value=$value' >>$DE || fail "cannot create kw_hpo" || return 1
	echo "set_wprobe:kw_hpo:ptr+8 if call_site >= $s && call_site < $e" >>$T/events/kmem/kmalloc/trigger ||
		fail "set_wprobe trigger refused" || return 1
	echo 1 >$T/events/wprobes/kw_hpo/enable
	echo 0 >$on && echo 1 >$on || fail "cpu1 does not go down and up" || return 1
	taskset -c 1 sh -c "echo alloc >$OBJ" || fail "alloc on cpu1" || return 1
	taskset -c 1 sh -c "echo 'write 14' >$OBJ"
	echo free >$OBJ
	hits kw_hpo
	hits kw_hpo | grep -q '\[001\].*(kwt_obj_write+0x.*value=0xe$' ||
		fail "kw_hpo: set_wprobe on cpu1 after hotplug, no hit there" || return 1
	expect_eq "kernel warnings during the test" "$(($(dmesg | grep -c 'WARNING:') - warn0))" 0 || {
		dmesg | grep -A12 'WARNING:' | tail -30
		return 1
	}
	reset_tracing
}

# traps N: how many times the breakpoint handler (perf_bp_event()) runs
# while the target module makes N writes to kwt_var.
# (Count before the tracer is switched back: a switch empties the buffer.)
traps() {
	local n
	echo >$T/trace
	echo perf_bp_event >$T/set_ftrace_filter
	echo function >$T/current_tracer
	echo "burst $1" >$VAR
	n=$(grep -c ' perf_bp_event <-' $T/trace)
	echo nop >$T/current_tracer
	echo >$T/set_ftrace_filter
	echo "$n"
}

# A disabled wprobe is parked: writes to its address do not trap.  Enabled,
# each write traps.
t_disabled_wprobe_is_parked() {
	local n
	grep -qx perf_bp_event $T/available_filter_functions ||
		{ skip "perf_bp_event() is not traceable in this kernel"; return; }
	load_target || return 1
	reset_tracing
	echo 'w:kw_off w@kwt_var:8' >>$DE || fail "cannot create kw_off" || return 1
	expect_eq "traps from 1000 writes, the wprobe never enabled" "$(traps 1000)" 0 || return 1
	echo 1 >$T/events/wprobes/kw_off/enable
	n=$(traps 100)
	[ "$n" -ge 100 ] || fail "traps from 100 writes, the wprobe enabled: $n, want >= 100" || return 1
	echo "traps from 100 writes, the wprobe enabled: $n"
	echo 0 >$T/events/wprobes/kw_off/enable
	expect_eq "traps from 1000 writes, the wprobe disabled again" "$(traps 1000)" 0 || return 1
	echo '-:kw_off' >>$DE
	reset_tracing
}

# irqs NAME: the count of /proc/interrupts line NAME (CAL, IWI), all CPUs.
irqs() { awk -v n="$1:" '$1 == n { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts; }

# The trace timestamp (seconds) of a trace line.
trace_ts() { sed -E -n 's/^.* ([0-9]+\.[0-9]+): .*/\1/p' | head -n1; }

# The hit-storm guard, hits: a tight write loop on a wprobe with a limit of
# 500 a second trips it at the 501st trap, and the loop runs on untrapped.
# The trip is reported (a wprobe:wprobe_storm event, error_log, the kernel
# log, wprobe_profile) and nothing more is recorded until the event is
# enabled again.  Then the default limit: the trip time, and a burst with
# the guard against the same burst unwatched.
t_storm_guard() {
	local n base guarded first trip
	load_target || return 1
	reset_tracing
	echo 1 >$T/events/wprobe/wprobe_storm/enable || fail "no wprobe:wprobe_storm event" || return 1
	echo 'w500:kw_storm w@kwt_var:8' >>$DE || fail "cannot create kw_storm" || return 1
	grep -qx 'w500:wprobes/kw_storm w@kwt_var:8' $DE || fail "dynamic_events shows: $(cat $DE)" || return 1
	echo 1 >$T/events/wprobes/kw_storm/enable
	echo "burst 100000" >$VAR || fail "the write loop failed" || return 1
	grep 'wprobe_storm:' $T/trace
	grep kw_storm $T/wprobe_profile
	expect_eq "hits recorded" "$(hits kw_storm | wc -l)" 500 || return 1
	expect_eq "wprobe_storm events" \
		"$(grep -c 'wprobe_storm: wprobes/kw_storm disarmed: 501 hits in a second, limit 500$' $T/trace)" 1 || return 1
	grep -q '^ *kw_storm  *500  *500 disarmed:hits$' $T/wprobe_profile ||
		fail "wprobe_profile: $(cat $T/wprobe_profile)" || return 1
	grep -q 'Disarmed: more hits a second than its limit' $T/error_log ||
		fail "error_log: $(cat $T/error_log)" || return 1
	dmesg | grep 'kw_storm: disarmed'
	dmesg | grep -q 'wprobes/kw_storm: disarmed: 501 hits on CPU [0-9]* within a second, over its limit of 500' ||
		fail "no kernel log line" || return 1
	echo "write 5" >$VAR
	expect_eq "hits from a write while disarmed" "$(hits kw_storm | wc -l)" 500 || return 1
	echo 0 >$T/events/wprobes/kw_storm/enable
	echo 1 >$T/events/wprobes/kw_storm/enable
	grep -q '^ *kw_storm .* armed$' $T/wprobe_profile || fail "not armed again: $(cat $T/wprobe_profile)" || return 1
	echo "write 6" >$VAR
	expect_eq "hits from a write, enabled again" "$(hits kw_storm | grep -c '(kwt_write_var+0x')" 1 || return 1
	echo 0 >$T/events/wprobes/kw_storm/enable
	echo '-:kw_storm' >>$DE

	# The default limit, 10000 a second.
	n=200000
	echo >$T/trace
	echo "burst $n" >$VAR
	base=$(cut -d' ' -f2 $VAR)
	echo 'w:kw_storm2 w@kwt_var:8' >>$DE || fail "cannot create kw_storm2" || return 1
	echo 1 >$T/events/wprobes/kw_storm2/enable
	echo "burst $n" >$VAR
	guarded=$(cut -d' ' -f2 $VAR)
	echo 0 >$T/events/wprobes/kw_storm2/enable
	grep 'wprobe_storm:' $T/trace
	expect_eq "hits recorded at the default limit" "$(hits kw_storm2 | wc -l)" 10000 || return 1
	first=$(hits kw_storm2 | trace_ts)
	trip=$(grep 'wprobe_storm: wprobes/kw_storm2' $T/trace | trace_ts)
	[ -n "$first" ] && [ -n "$trip" ] || fail "no timestamps" || return 1
	awk -v f="$first" -v t="$trip" -v b="$base" -v g="$guarded" -v n=$n 'BEGIN {
		printf "wprobes-bench: hit-storm guard at the default limit (10000/s): tripped %.0f ms after the first hit (%.1f us a trap, TCG)\n",
			(t - f) * 1000, (t - f) * 1e6 / 10000
		printf "wprobes-bench: hit-storm guard: a %d-write loop took %.0f ms on the guarded wprobe, %.1f ms unwatched (ratio %.0f); untripped, every write would trap: about %.0f s\n",
			n, g / 1e6, b / 1e6, g / (b ? b : 1), n * (t - f) / 10000 }'
	echo '-:kw_storm2' >>$DE
	reset_tracing
}

# The hit-storm guard, re-points: set_wprobe on the stress's allocations
# and clear_wprobe on their kfree, with a limit of 50 a second; 200
# allocations on each CPU trip it with re-points (the stress makes no
# stores: no hits).
t_repoint_guard() {
	local s e
	load_target || return 1
	reset_tracing
	read -r s e <<<"$(sym_range kwt_stress_alloc)"
	[ "$s" != 0x ] && [ "$e" != 0x ] || fail "kwt_stress_alloc not in /proc/kallsyms" || return 1
	echo 1 >$T/events/wprobe/wprobe_storm/enable || fail "no wprobe:wprobe_storm event" || return 1
	echo 'w50:kw_rp w@0:8' >>$DE || fail "cannot create kw_rp" || return 1
	echo "set_wprobe:kw_rp:ptr+8 if call_site >= $s && call_site < $e" >>$T/events/kmem/kmalloc/trigger ||
		fail "set_wprobe trigger refused" || return 1
	# Cleared before kfree() runs: KASAN's stores into the freed object
	# would be hits.
	echo 'clear_wprobe:kw_rp:ptr+8' >>$T/events/kmem/kfree/trigger || fail "clear_wprobe trigger refused" || return 1
	echo 1 >$T/events/wprobes/kw_rp/enable
	echo "stress 200 0" >$OBJ || fail "stress command failed" || return 1
	grep 'wprobe_storm:' $T/trace
	expect_eq "wprobe_storm events" \
		"$(grep -c 'wprobe_storm: wprobes/kw_rp disarmed: 51 re-points in a second, limit 50$' $T/trace)" 1 || return 1
	grep -q '^ *kw_rp .* 50 disarmed:re-points$' $T/wprobe_profile ||
		fail "wprobe_profile: $(cat $T/wprobe_profile)" || return 1
	grep -q 'Disarmed: more re-points a second than its limit' $T/error_log ||
		fail "error_log: $(cat $T/error_log)" || return 1
	reset_tracing
}

# ipi_churn N: CAL + IWI interrupts (all CPUs) while kwt_obj_alloc()
# kmallocs N objects, each re-pointing a set_wprobe.
ipi_churn() {
	local c0 w0
	c0=$(irqs CAL); w0=$(irqs IWI)
	echo "churn $1" >$OBJ || { echo -1; return; }
	echo $(($(irqs CAL) - c0 + $(irqs IWI) - w0))
}

# A set_wprobe on a wprobe whose breakpoints are parked (its event
# disabled, or disarmed by the hit-storm guard) records the address and
# moves nothing: the kmallocs that re-point it send no IPI (before, each
# sent an irq_work self-IPI and a call to every other CPU: the storm the
# guard stops).  Enabling the event applies the recorded address.
t_parked_repoint_no_ipi() {
	local s e n=400 off tripped obj
	[ "$(nproc)" -ge 2 ] || { skip "needs 2 CPUs"; return; }
	load_target || return 1
	reset_tracing
	read -r s e <<<"$(sym_range kwt_obj_alloc)"
	[ "$s" != 0x ] && [ "$e" != 0x ] || fail "kwt_obj_alloc not in /proc/kallsyms" || return 1
	echo 'w1:kw_ipi w@0:8 value=$value' >>$DE || fail "cannot create kw_ipi" || return 1
	echo "set_wprobe:kw_ipi:ptr+8 if call_site >= $s && call_site < $e" >>$T/events/kmem/kmalloc/trigger ||
		fail "set_wprobe trigger refused" || return 1
	off=$(ipi_churn $n)
	# Recorded while disabled, applied by the enable.
	echo alloc >$OBJ
	obj=$(sed -n 's/^obj=\(0x[0-9a-f]*\).*/\1/p' $OBJ)
	echo 1 >$T/events/wprobes/kw_ipi/enable
	echo "write 5" >$OBJ
	echo free >$OBJ
	hits kw_ipi
	expect_eq "hits at $obj+8 set while disabled" \
		"$(hits kw_ipi | grep -c "(kwt_obj_write+0x.*value=0x5$")" 1 || return 1
	# Limit 1: the second re-point (or a KASAN store into a freed object)
	# within a second trips the guard.
	echo "churn 10" >$OBJ
	grep -q '^ *kw_ipi .* 1 disarmed:' $T/wprobe_profile ||
		fail "not tripped: $(cat $T/wprobe_profile)" || return 1
	tripped=$(ipi_churn $n)
	echo alloc >$OBJ
	echo 0 >$T/events/wprobes/kw_ipi/enable
	echo 1 >$T/events/wprobes/kw_ipi/enable
	echo "write 6" >$OBJ
	echo free >$OBJ
	echo 0 >$T/events/wprobes/kw_ipi/enable
	awk -v o="$off" -v t="$tripped" -v n=$n 'BEGIN {
		printf "wprobes-bench: IPIs (CAL + IWI) per re-pointing kmalloc, breakpoints parked: %.3f disabled, %.3f disarmed (%d kmallocs each)\n",
			o / n, t / n, n }'
	expect_eq "hits at the object set while disarmed, after the re-enable" \
		"$(hits kw_ipi | grep -c "(kwt_obj_write+0x.*value=0x6$")" 1 || return 1
	# One in twenty for the guest's own IPIs over the churn.
	[ "$off" -ge 0 ] && [ "$off" -le $((n / 20)) ] ||
		fail "$off IPIs for $n kmallocs re-pointing a disabled wprobe" || return 1
	[ "$tripped" -ge 0 ] && [ "$tripped" -le $((n / 20)) ] ||
		fail "$tripped IPIs for $n kmallocs re-pointing a disarmed wprobe" || return 1
	reset_tracing
}

# A wprobe is created with its breakpoints parked: one never enabled, on
# an address that a timer on each CPU loads twice every 100 us, counts no
# hit and never trips, however often it is made (before, each CPU's
# breakpoint watched the address from its creation until it was parked,
# and a hit there counted; with a limit of 1, two tripped the guard).
t_created_parked() {
	local i n=150 bad=0 line storms warn
	load_target || return 1
	reset_tracing
	echo 1 >$T/events/wprobe/wprobe_storm/enable || fail "no wprobe:wprobe_storm event" || return 1
	echo "tick 100" >$VAR || fail "cannot start the timers" || return 1
	for ((i = 1; i <= n; i++)); do
		echo 'w1:kw_new rw@kwt_var:8' >>$DE || { fail "cannot create kw_new"; break; }
		line=$(grep '^ *kw_new ' $T/wprobe_profile)
		if ! [[ $line =~ ^\ *kw_new\ +0\ +1\ off$ ]]; then
			bad=$((bad + 1))
			[ $bad -gt 3 ] || echo "creation $i: $line"
		fi
		echo '-:kw_new' >>$DE
	done
	echo "tick 0" >$VAR
	storms=$(grep -c 'wprobe_storm: wprobes/kw_new' $T/trace)
	warn=$(dmesg | grep -c 'wprobes/kw_new: disarmed')
	echo "created-parked: $n creations of a never-enabled wprobe: $bad with hits, $storms wprobe_storm events, $warn trips in the kernel log"
	expect_eq "creations with hits" $bad 0 || return 1
	expect_eq "wprobe_storm events" $storms 0 || return 1
	reset_tracing
}

# Creation refused because cpu1 has no free debug register (the module
# holds them all): each attempt fails with ENOSPC and its error_log reason,
# and leaves no kernel report, no trip and no KASAN splat (before, cpu0's
# breakpoint watched the address until parked, so the timer's loads could
# trip the guard and queue work that ran on the freed wprobe).
t_create_refused() {
	local i n=60 err d0 held bad=0 reports
	[ "$(nproc)" -ge 2 ] || { skip "needs 2 CPUs"; return; }
	load_target || return 1
	reset_tracing
	echo "hog 1" >$VAR || fail "cannot take cpu1's debug registers" || return 1
	held=$(cut -d' ' -f3 $VAR)
	echo "debug registers taken on cpu1: $held"
	echo "tick 100" >$VAR || fail "cannot start the timers" || return 1
	d0=$(dmesg | wc -l)
	for ((i = 1; i <= n; i++)); do
		echo >$T/error_log
		if err=$( (echo 'w1:kw_nobp rw@kwt_var:8' >>$DE) 2>&1 ); then
			fail "kw_nobp created with cpu1 full"
			echo '-:kw_nobp' >>$DE
			break
		fi
		if ! echo "$err" | grep -q 'No space left on device' ||
			! grep -q 'trace_wprobe: error: No free hardware breakpoint' $T/error_log; then
			bad=$((bad + 1))
			[ $bad -gt 3 ] || echo "attempt $i: $err; error_log: $(cat $T/error_log)"
		fi
	done
	echo "tick 0" >$VAR
	echo unhog >$VAR
	# Work queued by a trip runs soon after.
	sleep 1
	reports=$(dmesg | tail -n +$((d0 + 1)) | grep -E 'BUG:|WARNING:|KASAN|general protection|kw_nobp: disarmed')
	echo "create-refused: $n attempts with cpu1 full: $bad without ENOSPC and its reason, $(echo -n "$reports" | grep -c .) kernel report lines"
	[ -z "$reports" ] || { echo "$reports" | head -20; fail "kernel reports during refused creations"; return 1; }
	expect_eq "attempts without ENOSPC and its reason" $bad 0 || return 1
	grep -q kw_nobp $DE && fail "dynamic_events lists kw_nobp" && return 1
	reset_tracing
}

# Cost of a write to a watched variable vs unwatched, and hits recorded vs
# writes made in a burst (lost hits must show in the ring buffer's counts).
t_bench() {
	local n=20000 base disabled watched hitn over
	load_target || return 1
	reset_tracing
	# The module times each burst itself (ktime_get_ns() around the loop).
	echo "burst $n" >$VAR
	base=$(cut -d' ' -f2 $VAR)
	# Every write traps here: a limit above the burst keeps the guard out.
	echo 'w1000000:kw_bench w@kwt_var:8' >>$DE || return 1
	echo "burst $n" >$VAR
	disabled=$(cut -d' ' -f2 $VAR)
	echo 1 >$T/events/wprobes/kw_bench/enable
	echo "burst $n" >$VAR
	watched=$(cut -d' ' -f2 $VAR)
	echo 0 >$T/events/wprobes/kw_bench/enable
	hitn=$(hits kw_bench | grep -c '(kwt_burst_var+0x')
	over=$(cat $T/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	awk -v a="$watched" -v b="$base" -v d="$disabled" -v n=$n 'BEGIN {
		printf "wprobes-bench: unwatched %.1f ns/write, watched (each write traced) %.1f ns/write, ratio %.1f (TCG)\n",
			b / n, a / n, a / (b ? b : 1)
		printf "wprobes-bench: a disabled wprobe on the variable %.1f ns/write, ratio to none %.2f (TCG)\n",
			d / n, d / (b ? b : 1) }'
	echo "wprobes-bench: burst of $n writes: $hitn hits in the trace, $over overwritten (ring buffer overrun)"
	expect_eq "hits + overrun" $((hitn + over)) $n
	echo '-:kw_bench' >>$DE
}

ktap_main
