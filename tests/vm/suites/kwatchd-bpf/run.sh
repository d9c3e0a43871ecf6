#!/bin/bash
# Suite "kwatchd-bpf": kwatchd's libbpf programs and crash capture, all on
# the real interfaces: /proc/kstackwatch, the KFuzzTest debugfs inputs, a
# wprobe, /dev/kmsg.  Events are read from the daemon's socket.
#
# What it asserts: every attach point loads (no bpf_unavailable); for each
# KStackWatch test (test0-test3), from a watch file with only function,
# variable and depth, one catch event naming the watched function, a
# corrupting ip in the right function, and a BPF stack whose top frame is
# the corrupting function (and the second its caller where it is fixed)
# reaching vfs_write, and the kernel's report of it one crash event whose
# frames name the watched function and not the return trampoline the exit
# probe left in the stack (printed as trace_clock_x86_tsc+0x10/0x10); a
# missing and a register-only variable each a config_error saying so while
# the watch in force stays armed; several watch files: each one watch in
# /proc/kstackwatch, status lists them with max_watches 4, the fifth file is
# a config_error (ENOSPC) naming the limit, removing one file disarms only
# its watch, and each catch and the crash name the watch that fired
# (definition, watch_file); a developer's own module built out of tree
# and loaded from its own path (t_module_by_name): its watch file by names
# and module_path waits (watch_waiting, status) until insmod, is armed as
# fn=kwusermod:kwum_victim from the .ko's DWARF, and the store from
# kwum_fill is a catch naming it; rmmod removes the watch in the kernel
# (its log line) and the file waits again, a second insmod arms it again;
# the module stripped of debug information is a config_error saying so,
# kwum_loop, which fills its table in a loop: by name alone the loop's own
# store is a catch, with after = its line only kwum_fill's is; one named
# without a path that /lib/modules lacks a config_error asking
# for module_path=, and module = NAME after depmod arms at modprobe (times
# from insmod to armed printed); catch-to-socket latency (printed, with the
# report on the console and without; the daemon's share from its status).
#
# A module's fuzz target: kwfuzzmod's kwfm_raw (input = simple) runs its
# spooled blobs while the module is loaded, a '!' record is one crash (or
# crash_repeat) in kwfm_sum tied to its blob, and after rmmod and insmod
# the next blob runs.
# Fuzzing: eight blobs from a real KFuzzTest spool each give fuzz_entry <
# fuzz_done < fuzz_exec in seq order naming the blob; a blob that overflows
# gives one crash event (kasan, overflow_on_nested_buffer, target, blob)
# with the blob and its report in crashes/<target>/, a second such blob a
# crash_repeat with count 2; a fuzz.d file with generate = yes and no spool:
# test_trivial in whole batches (fuzz_batch done, 200 inputs, inputs per
# second printed, the file under generators in the status), a target with no
# schema a config_error in the bridge's words, and
# test_underflow_on_buffer's first input stops its batch (fuzz_batch report,
# exit status 3) with one crash event (underflow_on_buffer) tied to the
# batch's input file, which is in crashes/<target>/ with the report and
# replays the same report; a raw-buffer target through kwatchd (input =
# simple): a spooled record without its checksum is one crash in
# simple_record_sum tied to the blob and kept with it, and generate = yes
# writes raw inputs in whole batches (inputs per second printed); generate =
# guided on test_guided_frame, starting from a corpus in corpus/<target>/
# that holds a near miss (five of the six bytes right): fuzz_stats events
# with kernel edges and the corpus while it runs, the file under generators
# with mode guided, and the first report a fuzz_batch (mode guided, report,
# exit status 3) and one crash in guided_frame_sum tied to the run's input,
# kept in crashes/<target>/ with its report and replaying it, with
# libFuzzer's crash file beside it (inputs per second printed).
#
# Crashes: a WARNING and a page-fault oops each one crash event of their
# kind naming their function (the oops a write); a target that oopses in the
# daemon's own write (a stand-in whose input is the platform module's crash
# file) kills kwatchd, systemd restarts it, the blob is set aside as
# interrupted and the oops is one crash event tied to it, kept in crashes/;
# six such blobs in a row are each set aside by a restart of their own, and
# the daemon is active at the end with the spool empty (the unit's start
# limit, 60 starts in 10 min, lets them through; systemd's default would
# have stopped it).
#
# The stream: a wprobe burst of 3000 writes with the daemon stopped and a 4
# KiB ring buffer gives a lost record, and delivered + lost = 3000; BPF
# events per second to a kwatchctl follow -T wprobe_sample client
# (subscribed: no wprobe_hit reaches it; printed); the spool's settings in a
# few blobs (t_spool_batch_settings): 40 queued blobs claimed in batches
# (batch 256 in the status), 10 a blob at a time with pmsg = no (batch 1),
# and a pack of 64 copies of one blob and one of 64 inputs from
# kfuzztest-bridge -O, each with 64 verdicts in its results; 500 events
# reach the host through virtio-serial with the same seq numbers a socket
# client saw (checked by vm.sh on the host).
#
# Benchmarks (b_*, make bench only): b_event_path_vs_bare_reader, kwatchd's
# event path beside a bare libbpf reader in the same boot (kwatch-bare: the
# same BPF object, the same wprobe enabled in a tracefs instance, each
# record a line of the same fields, written one at a time or batched), 4000
# wprobe hits and 4000 synthetic events to 1 and to 4 counting clients,
# every event delivered or announced lost, the rates and ratios printed;
# b_fuzz_cost_attached_vs_detached, direct writes with the programs attached
# vs detached, then 1000 queued blobs through the spool with bpf = no and =
# yes, 200 a blob at a time, and packs of 4096 (copies of one blob, and
# inputs from kfuzztest-bridge -O), beside the direct writes and the guided
# run's rate in the same boot (per-blob times and ratios printed).
. /opt/kwatch/tests/guest/ktap.sh
. /opt/kwatch/tests/guest/kstackwatch.sh
. /opt/kwatch/tests/guest/kfuzztest.sh

SPOOLS=/var/lib/kwatchd/spool
CRASHES=/var/lib/kwatchd/crashes
EV=/tmp/kwatchd-bpf-events.ndjson
MODDIR=/opt/kwatch/modules
PLAT=/sys/kernel/debug/kwatch_platform
VAR=/sys/kernel/debug/kwatch_wprobe/var
FOLLOW_SETTLE=0.3
. /opt/kwatch/tests/guest/kwatchd.sh

# field KEY: the string or number value of KEY in each line on stdin.
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",]*\).*/\1/p"; }
seq_of() { field seq; }
disarmed() { [ -z "$(cat $KSW)" ]; }

# What the daemon says, for a failing test.
diag() {
	echo "--- kwatchctl status"; kwatchctl status 2>&1 | head -n 30
	echo "--- dynamic_events"; cat /sys/kernel/tracing/dynamic_events
	echo "--- journal"; journalctl -u kwatchd -n 25 --no-pager -o cat 2>&1
	return 1
}
# wprobe_attached NAME: the BPF program follows wprobe NAME.
wprobe_attached() { kwatchctl status -r | head -n1 | grep -q "\"attached\":\[[^]]*\"$1\""; }

# write_conf [CAPTURE_LINES [KERNEL_LINES]]: kwatchd.conf for this suite,
# then restart.
write_conf() {
	cat >$CONF/kwatchd.conf <<CONF
[daemon]
push = /dev/virtio-ports/org.kwatch.events
queue_events = 200000
queue_kib = 262144
[capture]
$1
[kernel]
${2:-}
CONF
	systemctl restart kwatchd || return 1
	wait_for 10 test -S /run/kwatchd/events.sock
}

# The watch file of KStackWatch test $1 by names alone: function,
# variable (none: the canary) and depth, no offset (names_for).
watch_file_of() {
	local names fn var
	names=$(names_for "$1") || return 1
	fn=${names%% *}
	var=${names#"$fn"}
	printf '[watch]\nfunction = %s\n' "$fn"
	[ -n "$var" ] && printf 'variable = %s\n' "${var# }"
	[ "$1" = test3 ] && printf 'depth = 3\n'
	return 0
}

# Armed from a file by names: /proc/kstackwatch shows the line kwatchd
# resolved, and the probe point the kernel picked after it.
armed_by_name() { grep -qE "^fn=$1( .*)? # fo=0x[0-9a-f]+" $KSW; }

t_setup() {
	rm -f $CONF/watch.d/*.conf $CONF/wprobe.d/*.conf $CONF/fuzz.d/*.conf
	[ -d $PLAT ] || insmod $MODDIR/kwatch_platform.ko || fail "insmod kwatch_platform" || return 1
	[ -e $VAR ] || insmod $MODDIR/kwatch_wprobe_target.ko || fail "insmod kwatch_wprobe_target" || return 1
	cp $CONF/kwatchd.conf /tmp/kwatchd.conf.orig
	follow_start
	write_conf "" || { follow_stop; fail "kwatchd restart"; return 1; }
	sleep 1
	follow_stop
	kwatchctl status -r | head -n1 | grep -o '"bpf":{[^}]*}' || fail "status has no bpf object" || return 1
	if events_of bpf_unavailable; then
		fail "a program was not loaded on this kernel"
		return 1
	fi
	echo "no bpf_unavailable event: every attach point exists"
}

# Each KStackWatch test: a catch event naming the watched function, the
# corrupting instruction's function, and a stack that starts there.
catch_case() { # TEST CORRUPTER CALLER
	local fn ev stack frames
	fn=$(names_for "$1" | cut -d' ' -f1)
	follow_start
	put $CONF/watch.d w.conf "$(watch_file_of "$1")"
	wait_for 5 armed_by_name "$fn" || { follow_stop; fail "$1: $fn not armed by name: '$(cat $KSW)'"; return 1; }
	echo "$1: $(cat $KSW | tee /tmp/ksw.seen)"
	echo "$1" >$KT
	wait_for 10 grep -q '"type":"catch"' "$EV"
	wait_for 10 grep -q '"type":"crash".*"kind":"kstackwatch"' "$EV"
	follow_stop
	rm $CONF/watch.d/w.conf
	wait_for 5 disarmed || fail "not disarmed: '$(cat $KSW)'" || return 1
	expect_eq "$1: catch events" "$(events_of catch | wc -l)" 1 || return 1
	events_of watch_armed | cut -c1-400
	events_of watch_armed | grep -q "\"probe_point\":\"$(sed -n 's/.* # //p' /tmp/ksw.seen)\"" ||
		fail "$1: watch_armed lacks the kernel's probe point" || return 1
	ev=$(events_of catch)
	echo "$ev" | cut -c1-600
	expect_eq "$1: watched function" "$(echo "$ev" | field watched)" "$fn" || return 1
	echo "$ev" | field location | grep -qE "^$2(\.[a-z0-9.]+)?\+0x" ||
		fail "$1: corrupting ip is not in $2" || return 1
	stack=$(echo "$ev" | sed -n 's/.*"frames":\[\([^]]*\)\].*/\1/p' | tr -d '"' | tr ',' '\n')
	echo "$stack" | head -n1 | grep -qE "^$2(\.[a-z0-9.]+)?\+0x" ||
		fail "$1: top frame is not $2: $(echo "$stack" | head -n1)" || return 1
	if [ -n "$3" ]; then
		echo "$stack" | sed -n 2p | grep -qE "^$3(\.[a-z0-9.]+)?\+0x" ||
			fail "$1: second frame is not $3: $(echo "$stack" | sed -n 2p)" || return 1
	fi
	echo "$stack" | grep -q '^vfs_write+0x' || fail "$1: the stack does not reach vfs_write" || return 1
	echo "$1: top frames $(echo "$stack" | head -n3 | xargs)"
	# The kernel's own report of the same catch: its frames and key are
	# only what is reliable (the exit probe's rethook trampoline, printed
	# as trace_clock_x86_tsc+0x10/0x10, is not a caller).
	frames=$(events_of crash | grep '"kind":"kstackwatch"' | head -n1 | grep -o '"frames":\[[^]]*\]')
	echo "$1: crash $frames"
	[ -n "$frames" ] || fail "$1: no crash event of kind kstackwatch" || return 1
	! echo "$frames" | grep -q trace_clock_x86_tsc || fail "$1: crash frames name the trampoline's neighbour" || return 1
	echo "$frames" | grep -q "\"$fn\"" || fail "$1: crash frames lack the watched function"
}

t_catch_canary_write() { catch_case test0 canary_rewrite canary_test_write; }
t_catch_canary_overflow() { catch_case test1 canary_test_overflow; }
t_catch_silent_corruption() { catch_case test2 silent_corruption_corrupting; }
t_catch_recursive_depth() { catch_case test3 recursive_corruption_test recursive_corruption_test; }

# variable= that cannot be watched: a config_error that says why, and the
# watch in force stays armed.
t_watch_by_name_errors() {
	local ev
	put $CONF/watch.d w.conf "$(watch_file_of test2)"
	wait_for 5 armed_by_name silent_corruption_victim || fail "not armed: '$(cat $KSW)'" || return 1
	follow_start
	put $CONF/watch.d w.conf '[watch]\nfunction = silent_corruption_victim\nvariable = nope\n'
	wait_for 10 grep -q '"type":"config_error"' "$EV"
	put $CONF/watch.d w.conf '[watch]\nfunction = recursive_corruption_test\nvariable = depth\n'
	wait_for 10 grep -q 'lives only in registers' "$EV"
	follow_stop
	ev=$(events_of config_error)
	echo "$ev" | cut -c1-400
	echo "$ev" | grep -q "has no variable 'nope' (its variables: .*data" ||
		fail "no config_error naming the missing variable and the real ones" || return 1
	echo "$ev" | grep -q "'depth' of recursive_corruption_test lives only in registers" ||
		fail "no config_error saying depth lives in registers" || return 1
	armed_by_name silent_corruption_victim || fail "the watch in force went: '$(cat $KSW)'" || return 1
	rm $CONF/watch.d/w.conf
	wait_for 5 disarmed || fail "not disarmed: '$(cat $KSW)'"
}

# Several watch files: each is one watch, armed beside the others in
# /proc/kstackwatch, up to the kernel's limit (status: max_watches); the
# file beyond it is a config_error naming the limit.  A catch names the
# watch that fired, by its line and its file; removing one file disarms
# only its watch, and the others still fire.
t_several_watch_files() {
	local st ev n
	rm -f $CONF/watch.d/*.conf
	wait_for 5 disarmed || fail "watches left: '$(cat $KSW)'" || return 1
	follow_start
	# b.conf: test7's caller (a crash no earlier test made, so its crash
	# event is no crash_repeat).
	put $CONF/watch.d a.conf "$(watch_file_of test0)"
	put $CONF/watch.d b.conf "$(watch_file_of test7)"
	wait_for 5 armed_by_name canary_test_write && wait_for 5 armed_by_name nested_outer_test ||
		{ follow_stop; fail "not both armed: '$(cat $KSW)'"; return 1; }
	cat $KSW
	st=$(kwatchctl status -r | head -n1)
	echo "$st" | grep -o '"watches":\[[^]]*\],"max_watches":[0-9]*'
	echo "$st" | grep -q '"max_watches":4' || { follow_stop; fail "status: max_watches is not 4"; return 1; }
	expect_eq "watches in status" "$(echo "$st" | grep -o '"watches":\[[^]]*\]' | grep -o '"definition"' | wc -l)" 2 ||
		{ follow_stop; return 1; }
	echo test7 >$KT
	wait_for 10 grep -q '"type":"catch"' "$EV"
	wait_for 10 grep -q '"type":"crash".*"kind":"kstackwatch"' "$EV"
	# Up to the limit: c and d fit, e is one too many.
	put $CONF/watch.d c.conf "$(watch_file_of test2)"
	put $CONF/watch.d d.conf "$(watch_file_of test3)"
	wait_for 5 sh -c "[ \$(grep -c . $KSW) -eq 4 ]" || { follow_stop; fail "not four watches: '$(cat $KSW)'"; return 1; }
	put $CONF/watch.d e.conf '[watch]\nfunction = clean_frame\n'
	wait_for 10 grep -q '"type":"config_error".*e\.conf' "$EV"
	# a.conf goes: its watch only (e.conf, which now fits, is armed at
	# this apply); b's still fires.
	rm $CONF/watch.d/a.conf
	wait_for 5 sh -c "! grep -q '^fn=canary_test_write' $KSW" || { follow_stop; fail "a.conf's watch stays: '$(cat $KSW)'"; return 1; }
	echo "after a.conf went: $(grep -c . $KSW) watches"
	echo test0 >$KT
	echo test7 >$KT
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"catch\"' $EV) -ge 2 ]"
	follow_stop
	rm -f $CONF/watch.d/*.conf
	wait_for 5 disarmed || fail "not disarmed: '$(cat $KSW)'" || return 1
	events_of config_error | grep 'e\.conf' | cut -c1-400
	events_of config_error | grep 'e\.conf' | grep -q 'beyond the limit of 4 watches' ||
		fail "no config_error naming the limit for e.conf" || return 1
	events_of config_error | grep 'e\.conf' | grep -q '"errno":28' || fail "the limit's config_error is not ENOSPC" || return 1
	ev=$(events_of catch)
	echo "$ev" | cut -c1-300
	expect_eq "catch events (test7 twice; test0 after its file went: none)" "$(echo "$ev" | wc -l)" 2 || return 1
	n=$(echo "$ev" | grep -c '"watched":"nested_outer_test".*"definition":"fn=nested_outer_test co=-[0-9]* wl=8","watch_file":"/etc/kwatchd/watch.d/b.conf"')
	expect_eq "catch events naming b.conf's watch" "$n" 2 || return 1
	events_of crash | grep '"kind":"kstackwatch"' | head -n1 | cut -c1-500
	events_of crash | grep '"kind":"kstackwatch"' | head -n1 | grep -q '"definition":"fn=nested_outer_test co=-[0-9]* wl=8","watch_file":"/etc/kwatchd/watch.d/b.conf"' ||
		fail "the crash event does not name b.conf's watch"
}

# A developer's own module, built out of tree, loaded from a path of its
# own and in no index (tests/usermod/kwusermod), watched by names alone.
UM=/opt/kwatch/usermod
um_armed() { grep -qE "^fn=kwusermod:kwum_victim co=-[0-9]+ wl=8 # fo=0x[0-9a-f]+" $KSW; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
t_module_by_name() {
	local ev t0 n line before
	rmmod kwusermod 2>/dev/null
	rm -f $CONF/watch.d/*.conf
	wait_for 5 disarmed || fail "watches left: '$(cat $KSW)'" || return 1
	follow_start
	# Not loaded yet: the watch waits for it.
	put $CONF/watch.d um.conf "[watch]\nfunction = kwum_victim\nvariable = table[5]\nmodule_path = $UM/kwusermod.ko\n"
	wait_for 10 grep -q '"type":"watch_waiting"' "$EV" || { follow_stop; fail "no watch_waiting before the module is loaded"; return 1; }
	events_of watch_waiting | cut -c1-400
	# The status is asked for until it says so (twice in 3 targeted runs it
	# did not at once), and printed if it never does.
	wait_for 10 sh -c "kwatchctl status | grep -q 'waiting for its module'" ||
		{ kwatchctl status 2>&1 | head -n 20; kwatchctl status -r | head -n1 | cut -c1-600; follow_stop; fail "status does not say the file waits"; return 1; }
	disarmed || { follow_stop; fail "armed with no module: '$(cat $KSW)'"; return 1; }
	# Loaded: armed as MODULE:FUNCTION from the .ko's DWARF (cold), and
	# the store from kwum_fill() into table[5] is caught.
	t0=$(date +%s%N)
	insmod $UM/kwusermod.ko || { follow_stop; fail "insmod $UM/kwusermod.ko"; return 1; }
	wait_for 10 um_armed || { follow_stop; fail "not armed when the module came: '$(cat $KSW)'"; return 1; }
	echo "kwatch-bench: a module's watch armed $(ms_since "$t0") ms after insmod (cold: the .ko's DWARF read)"
	cat $KSW
	echo 5 >/sys/kernel/debug/kwusermod/run
	wait_for 10 grep -q '"type":"catch"' "$EV" || { follow_stop; fail "no catch in the module"; return 1; }
	ev=$(events_of catch | tail -n1)
	echo "$ev" | cut -c1-500
	echo "$ev" | field location | grep -qE "^kwum_fill(\.[a-z0-9.]+)?\+0x[0-9a-f]+/0x[0-9a-f]+ \[kwusermod\]" ||
		{ follow_stop; fail "the catch does not name kwum_fill in kwusermod: $(echo "$ev" | field location)"; return 1; }
	echo "$ev" | field watched | grep -q kwum_victim || { follow_stop; fail "the catch does not name kwum_victim"; return 1; }
	# Unloaded: the kernel removes the watch and says so; the file waits.
	n=$(events_of watch_waiting | wc -l)
	rmmod kwusermod || { follow_stop; fail "rmmod kwusermod"; return 1; }
	wait_for 10 disarmed || { follow_stop; fail "the watch stays after rmmod: '$(cat $KSW)'"; return 1; }
	dmesg | grep -q "removed: fn=kwusermod:kwum_victim co=-[0-9]* wl=8: module kwusermod is going" ||
		{ follow_stop; fail "no kernel line for the removal"; return 1; }
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"watch_waiting\"' $EV) -gt $n ]" || { follow_stop; fail "no watch_waiting after rmmod"; return 1; }
	# Loaded again: armed again (warm: the file's table is kept), caught again.
	t0=$(date +%s%N)
	insmod $UM/kwusermod.ko || { follow_stop; fail "insmod again"; return 1; }
	wait_for 10 um_armed || { follow_stop; fail "not armed again: '$(cat $KSW)'"; return 1; }
	echo "kwatch-bench: a module's watch armed $(ms_since "$t0") ms after insmod (warm)"
	echo 5 >/sys/kernel/debug/kwusermod/run
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"catch\"' $EV) -ge 2 ]" || { follow_stop; fail "no catch after the reload"; return 1; }
	# A store to another slot is not this watch's.
	echo 3 >/sys/kernel/debug/kwusermod/run
	# kwum_loop fills its table in a loop first: by name alone, the
	# kernel arms before the loop and the loop's own store is a catch;
	# with after = the loop's line, only kwum_fill's store is.
	line=$(grep -n '@fill' $UM/src/kwusermod/kwusermod.c | cut -d: -f1)
	put $CONF/watch.d um.conf "[watch]\nfunction = kwum_loop\nvariable = table[5]\nmodule_path = $UM/kwusermod.ko\n"
	wait_for 10 grep -qE "^fn=kwusermod:kwum_loop co=" $KSW || { follow_stop; fail "kwum_loop not armed: '$(cat $KSW)'"; return 1; }
	echo "5 16" >/sys/kernel/debug/kwusermod/loop
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"catch\"' $EV) -ge 3 ]" || { follow_stop; fail "no catch of the loop's own store"; return 1; }
	events_of catch | tail -n1 | field location | grep -q '^kwum_loop+' ||
		{ follow_stop; fail "by name alone, the catch is not the loop's own store: $(events_of catch | tail -n1 | field location)"; return 1; }
	echo "by name alone: the loop's own store caught, at $(events_of catch | tail -n1 | field location)"
	put $CONF/watch.d um.conf "[watch]\nfunction = kwum_loop\nvariable = table[5]\nmodule_path = $UM/kwusermod.ko\nafter = kwusermod.c:$line\n"
	wait_for 10 grep -qE "^kwusermod:kwum_loop\+0x[0-9a-f]+ [0-9]+:8\$" $KSW || { follow_stop; fail "not armed after line $line: '$(cat $KSW)'"; return 1; }
	echo "after = kwusermod.c:$line: $(cat $KSW)"
	echo "5 16" >/sys/kernel/debug/kwusermod/loop
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"catch\"' $EV) -ge 4 ]" || { follow_stop; fail "no catch after the loop"; return 1; }
	sleep 1
	expect_eq "catches of one run after the loop" "$(events_of catch | wc -l)" 4 || { follow_stop; return 1; }
	events_of catch | tail -n1 | field location | grep -q '^kwum_fill' ||
		{ follow_stop; fail "after the loop, the catch is not kwum_fill's: $(events_of catch | tail -n1 | field location)"; return 1; }
	# The module without debug information: a config_error saying so (the
	# watch in force stays).
	before=$(cat $KSW)
	put $CONF/watch.d um.conf "[watch]\nfunction = kwum_victim\nvariable = table[5]\nmodule_path = $UM/nodebug/kwusermod.ko\n"
	wait_for 10 grep -q 'has no debug information' "$EV" || { follow_stop; fail "no config_error for a module without debug information"; return 1; }
	expect_eq "the watch in force" "$(cat $KSW)" "$before" || { follow_stop; return 1; }
	# Named without its file, the module loaded from elsewhere: what to add.
	put $CONF/watch.d um.conf "[watch]\nfunction = kwum_victim\nvariable = table[5]\n"
	wait_for 10 grep -q 'module kwusermod is not under /lib/modules/.*module_path=' "$EV" ||
		{ follow_stop; fail "no config_error asking for module_path="; return 1; }
	# Under /lib/modules/ (depmod), by module = NAME: found there, armed
	# when modprobe loads it.
	rmmod kwusermod
	wait_for 10 disarmed || { follow_stop; fail "not disarmed by rmmod"; return 1; }
	mkdir -p /lib/modules/$(uname -r)/extra && cp $UM/kwusermod.ko /lib/modules/$(uname -r)/extra/ && depmod -a ||
		{ follow_stop; fail "depmod"; return 1; }
	put $CONF/watch.d um.conf "[watch]\nfunction = kwum_victim\nvariable = table[5]\nmodule = kwusermod\n"
	sleep 1
	modprobe kwusermod || { follow_stop; fail "modprobe kwusermod"; return 1; }
	wait_for 10 um_armed || { follow_stop; fail "not armed after modprobe: '$(cat $KSW)'"; return 1; }
	# kwatchctl resolve finds it the same way, without -e.
	expect_eq "kwatchctl resolve of a loaded module's function" \
		"$(kwatchctl resolve kwum_victim 'table[5]')" "$(sed 's/ # .*//' $KSW)" || { follow_stop; return 1; }
	echo 5 >/sys/kernel/debug/kwusermod/run
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"catch\"' $EV) -ge 5 ]"
	follow_stop
	rm -f $CONF/watch.d/um.conf
	wait_for 5 disarmed || fail "not disarmed: '$(cat $KSW)'"
	rmmod kwusermod
	rm -f /lib/modules/$(uname -r)/extra/kwusermod.ko && depmod -a
	events_of config_error | grep um.conf | cut -c1-300
	expect_eq "catch events (table[5] five times; table[3] none)" "$(events_of catch | wc -l)" 5 || return 1
	events_of catch | field location | sort | uniq -c
}

# A wprobe.d file on a module's symbol: it waits for the module
# (wprobe_waiting, status), is armed when the module is loaded
# (wprobe_armed) and hit by its store, waits again when it goes and is hit
# again in the next load: the kernel follows the symbol, kwatchd says so.
wp_loaded() { [ -e $VAR ]; }
t_wprobe_module() {
	local ev n
	wp_loaded && { rmmod kwatch_wprobe_target || fail "rmmod kwatch_wprobe_target" || return 1; }
	follow_start
	put $CONF/wprobe.d kwmod.conf '[wprobe]\nname = kwmod\naccess = w\nsymbol = kwatch_wprobe_target:kwt_var\nlength = 8\n'
	wait_for 10 grep -q '"type":"wprobe_waiting"' "$EV" || { follow_stop; fail "no wprobe_waiting before the module is loaded"; return 1; }
	events_of wprobe_waiting | cut -c1-400
	kwatchctl status -r | head -n1 | grep -q '"wprobes_waiting":\["kwmod"\]' ||
		{ follow_stop; fail "status: no kwmod under wprobes_waiting"; return 1; }
	grep -q 'w:kwatchd/kwmod w@kwatch_wprobe_target:kwt_var:8' /sys/kernel/tracing/dynamic_events ||
		{ follow_stop; fail "dynamic_events: $(cat /sys/kernel/tracing/dynamic_events)"; return 1; }
	insmod $MODDIR/kwatch_wprobe_target.ko || { follow_stop; fail "insmod kwatch_wprobe_target"; return 1; }
	wait_for 10 grep -q '"type":"wprobe_armed"' "$EV" || { follow_stop; fail "no wprobe_armed once the module is loaded"; return 1; }
	kwatchctl status -r | head -n1 | grep -q '"wprobes_waiting":\[\]' || { follow_stop; fail "status: still waiting"; return 1; }
	echo "write 5" >$VAR
	wait_for 10 grep -q '"type":"wprobe_hit".*"wprobe":"kwmod"' "$EV" || { follow_stop; fail "no wprobe_hit in the first load"; return 1; }
	ev=$(events_of wprobe_hit | grep '"wprobe":"kwmod"' | tail -n1)
	echo "$ev" | cut -c1-300
	echo "$ev" | field location | grep -q '^kwt_write_var+' || { follow_stop; fail "the hit does not name kwt_write_var: $ev"; return 1; }
	n=$(events_of wprobe_waiting | wc -l)
	rmmod kwatch_wprobe_target || { follow_stop; fail "rmmod with kwatchd's wprobe on its variable"; return 1; }
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"wprobe_waiting\"' $EV) -gt $n ]" || { follow_stop; fail "no wprobe_waiting after rmmod"; return 1; }
	insmod $MODDIR/kwatch_wprobe_target.ko || { follow_stop; fail "insmod again"; return 1; }
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"wprobe_armed\"' $EV) -ge 2 ]" || { follow_stop; fail "no wprobe_armed in the second load"; return 1; }
	echo "write 6" >$VAR
	wait_for 10 sh -c "[ \$(grep '\"type\":\"wprobe_hit\"' $EV | grep -c '\"wprobe\":\"kwmod\"') -ge 2 ]" ||
		{ follow_stop; fail "no wprobe_hit in the second load"; return 1; }
	follow_stop
	rm -f $CONF/wprobe.d/kwmod.conf
	wait_for 10 sh -c "! grep -q kwmod /sys/kernel/tracing/dynamic_events" || fail "kwmod left in dynamic_events" || return 1
	events_of wprobe_armed | cut -c1-300
	expect_eq "kwmod's hits (one a load)" "$(events_of wprobe_hit | grep -c '"wprobe":"kwmod"')" 2
}

# Catch to socket latency: the catch event's kernel_ns against its receipt,
# with the kernel's report of each catch printed on the serial console
# (the VM's default), its header only (console level 4, Debian's default)
# and nothing (console level 1), 16 catches each, side by side: the
# report (some 30 lines with dump_stack, written a character at a time to
# the emulated UART from the console's irq_work) competes with the way to
# the socket under TCG.  The daemon's own share comes from its status
# (catch_path_us: until the record was read, until the event was written).
catch_latency_of() {	# N: N catches of test0, the client's figures
	kwatchctl follow -r -t catch -n "$1" -i 20 -S >/dev/null 2>/tmp/lat.txt &
	sleep 0.5
	for _ in $(seq "$1"); do echo test0 >$KT; sleep 0.2; done
	wait $!
	grep -q " matched=$1 " /tmp/lat.txt || { cat /tmp/lat.txt >&2; return 1; }
	sed -n 's/^latency_us //p' /tmp/lat.txt
}

catches_timed() {
	kwatchctl status -r | head -n1 | grep -o '"catch_path_us":{"catches":[0-9]*' | grep -o '[0-9]*$'
}

t_catch_latency() {
	local on deb off path level before
	before=$(catches_timed)
	put $CONF/watch.d w.conf "$(watch_file_of test0)"
	wait_for 5 armed_by_name canary_test_write || fail "not armed" || return 1
	on=$(catch_latency_of 16) || fail "fewer than 16 catch events (console on)" || return 1
	level=$(cut -f1 /proc/sys/kernel/printk)
	echo 4 >/proc/sys/kernel/printk
	deb=$(catch_latency_of 16)
	echo 1 >/proc/sys/kernel/printk
	off=$(catch_latency_of 16)
	echo "$level" >/proc/sys/kernel/printk
	expect_eq "the console's level, put back" "$(cut -f1 /proc/sys/kernel/printk)" "$level" || return 1
	[ -n "$off" ] || fail "fewer than 16 catch events (console off)" || return 1
	rm $CONF/watch.d/w.conf
	path=$(kwatchctl status -r | head -n1 | grep -o '"catch_path_us":{[^}]*}')
	echo "daemon: $path"
	echo "kwatch-bench: the daemon's share of a catch's way (medians, us from the catch): $(echo "$path" | sed 's/"catch_path_us"://')"
	expect_eq "catches timed by the daemon" "$(($(catches_timed) - before))" 48 || return 1
	echo "kwatch-bench: catch-to-socket latency (TCG), report on the console: $on us"
	echo "kwatch-bench: catch-to-socket latency (TCG), console level 4: $deb us"
	echo "kwatch-bench: catch-to-socket latency (TCG), console level 1: $off us"
}

# Blobs replayed from a real KFuzzTest spool: for each, one fuzz_entry and
# one fuzz_done (from BPF) naming it, then its fuzz_exec, in seq order.
t_fuzz_entry_done_per_blob() {
	local sp=$SPOOLS/test_trivial i b e d x bad=0
	put $CONF/fuzz.d trivial.conf '[fuzz]\ntarget = test_trivial\n'
	wait_for 10 test -d $sp/done || fail "spool not started" || return 1
	follow_start
	for i in 1 2 3 4 5 6 7 8; do
		kft_blob $W/t$i "0:16" "" "$(trivial_payload $((i * 100)))"
		cp $W/t$i $sp/.b$i && mv $sp/.b$i $sp/b$i
	done
	wait_for 30 at_least 8 $sp/done
	follow_stop
	rm $CONF/fuzz.d/trivial.conf
	ls $sp/done | xargs
	expect_eq "blobs done" "$(ls $sp/done | wc -l)" 8 || return 1
	for i in 1 2 3 4 5 6 7 8; do
		b="\"blob\":\"b$i\""
		e=$(events_of fuzz_entry | grep "$b" | seq_of)
		d=$(events_of fuzz_done | grep "$b" | seq_of)
		x=$(events_of fuzz_exec | grep "$b" | seq_of)
		echo "b$i: entry=$e done=$d exec=$x"
		[ "$(echo "$e" | wc -w)" = 1 ] && [ "$(echo "$d" | wc -w)" = 1 ] &&
			[ "$(echo "$x" | wc -w)" = 1 ] && [ "$e" -lt "$d" ] && [ "$d" -lt "$x" ] || bad=1
	done
	[ $bad = 0 ] || fail "not one entry < done < exec per blob" || return 1
	events_of fuzz_done | grep '"blob":"b1"' | grep -q '"target":"test_trivial"' ||
		fail "fuzz_done lacks the target" || return 1
	events_of fuzz_done | grep '"blob":"b1"' | grep -q '"result":0' || fail "b1 result not 0"
}

# A fuzz.d file naming a target of a loadable module (kwfuzzmod's raw
# kwfm_raw, tests/usermod/kwfuzzmod): its blobs run while the module is
# loaded, the module's KASAN report is a crash tied to its blob, and after
# the module is unloaded and loaded again the spool goes on: the input the
# daemon kept open for its batches was the unloaded module's file.
t_module_fuzz_target() {
	local sp=$SPOOLS/kwfm_raw ev x
	rmmod kwfuzzmod 2>/dev/null
	insmod /opt/kwatch/usermod/kwfuzzmod.ko || fail "insmod kwfuzzmod" || return 1
	put $CONF/fuzz.d kwfm.conf '[fuzz]\ntarget = kwfm_raw\ninput = simple\n'
	wait_for 10 test -d $sp/done || { fail "spool not started"; rmmod kwfuzzmod; return 1; }
	follow_start
	printf 'abc' >$W/kwfm_ok
	printf '!bang' >$W/kwfm_bad
	cp $W/kwfm_ok $sp/.a && mv $sp/.a $sp/a-ok
	cp $W/kwfm_bad $sp/.b && mv $sp/.b $sp/b-bang
	wait_for 30 at_least 2 $sp/done
	rmmod kwfuzzmod || fail "rmmod kwfuzzmod" || return 1
	insmod /opt/kwatch/usermod/kwfuzzmod.ko || fail "insmod kwfuzzmod again" || return 1
	cp $W/kwfm_ok $sp/.c && mv $sp/.c $sp/c-after-reload
	wait_for 30 at_least 3 $sp/done
	follow_stop
	rm $CONF/fuzz.d/kwfm.conf
	rmmod kwfuzzmod
	ls $sp/done $sp/rejected 2>&1 | xargs
	events_of fuzz_exec | grep '"target":"kwfm_raw"' | cut -c1-300
	expect_eq "blobs done" "$(ls $sp/done | wc -l)" 3 || return 1
	x=$(events_of fuzz_exec | grep '"blob":"c-after-reload"')
	[ -n "$x" ] && ! echo "$x" | grep -q '"errno"' ||
		fail "the blob after the reload was not run: $x" || return 1
	# A crash, or its repeat when the boot saw kwfm_sum's report before
	# (the kfuzztest suite's).
	ev=$( (events_of crash; events_of crash_repeat) | grep '"target":"kwfm_raw"')
	echo "$ev" | cut -c1-300
	expect_eq "crash (or crash_repeat) events of kwfm_raw" "$(echo "$ev" | grep -c .)" 1 || return 1
	expect_eq "function" "$(echo "$ev" | field function)" kwfm_sum || return 1
	expect_eq "blob" "$(echo "$ev" | field blob)" b-bang
}

# A blob that makes KASAN report: one crash event tied to it, the blob and
# the report kept in crashes/<target>/; a second such blob is counted as a
# repeat of the same crash, not reported again.
t_kasan_crash_tied_to_blob() {
	local tgt=test_overflow_on_nested_buffer sp=$SPOOLS/test_overflow_on_nested_buffer ev j
	put $CONF/fuzz.d nested.conf "[fuzz]\ntarget = $tgt\n"
	wait_for 10 test -d $sp/done || fail "spool not started" || return 1
	kft_blob $W/n_ok "$NESTED_REGS" "0:0:1 0:16:4294967295" "$NESTED_PAYLOAD"
	kft_blob $W/n_oob "$NESTED_REGS" "0:0:1 0:16:2" "$NESTED_PAYLOAD"
	follow_start
	cp $W/n_ok $sp/.a && mv $sp/.a $sp/a-skip
	cp $W/n_oob $sp/.b && mv $sp/.b $sp/b-oob
	wait_for 30 at_least 2 $sp/done
	cp $W/n_oob $sp/.c && mv $sp/.c $sp/c-oob-again
	wait_for 30 at_least 3 $sp/done
	follow_stop
	rm $CONF/fuzz.d/nested.conf
	expect_eq "crash events" "$(events_of crash | wc -l)" 1 || return 1
	ev=$(events_of crash)
	echo "$ev" | cut -c1-400
	expect_eq "kind" "$(echo "$ev" | field kind)" kasan || return 1
	expect_eq "function" "$(echo "$ev" | field function)" overflow_on_nested_buffer || return 1
	expect_eq "target" "$(echo "$ev" | field target)" $tgt || return 1
	expect_eq "blob" "$(echo "$ev" | field blob)" b-oob || return 1
	echo "$ev" | grep -q '"access":"read"' || echo "$ev" | grep -q '"access":"write"' ||
		fail "no access kind" || return 1
	ls -l $CRASHES/$tgt
	cmp $W/n_oob $CRASHES/$tgt/b-oob || { fail "crashes/ lacks the blob"; diag; return 1; }
	grep -q 'BUG: KASAN: slab-out-of-bounds in overflow_on_nested_buffer' $CRASHES/$tgt/b-oob.report ||
		fail "no report beside the blob" || return 1
	events_of crash_repeat | grep '"blob":"c-oob-again"' | grep -q '"count":2' ||
		fail "the second report is not a counted repeat" || return 1
	events_of crash_repeat | grep -q '"blob":"a-skip"' && { fail "a-skip tied to a crash"; return 1; }
	# The same crash in the journal, found by its MESSAGE_ID and target,
	# its report whole (several lines) and its frames as JSON.
	j=$(journalctl -u kwatchd -o json MESSAGE_ID=1fad4cd66d0f6c2f40c1b956875fd512 KWATCH_TARGET=$tgt | tail -n1)
	echo "$j" | grep -o '"\(MESSAGE\|PRIORITY\|KWATCH_FUNCTION\|KWATCH_BLOB\|KWATCH_ID\)":"[^"]*"'
	echo "$j" | grep -q '"KWATCH_FUNCTION":"overflow_on_nested_buffer"' || fail "no crash entry in the journal" || return 1
	echo "$j" | grep -q '"KWATCH_BLOB":"b-oob"' || fail "the journal entry is not tied to b-oob" || return 1
	echo "$j" | grep -q "\"KWATCH_ID\":\"$(echo "$ev" | field id)\"" || fail "KWATCH_ID is not the event's id" || return 1
	echo "$j" | grep -o '"KWATCH_TEXT":"[^"]*"' | grep -q 'BUG: KASAN: slab-out-of-bounds.*\\n' ||
		fail "the report text is not whole in the journal" || return 1
	return 0
}

# fuzz.d with generate = yes, no spool: kfuzztest-bridge, in a child
# process, derives the target's schema from BTF and writes random inputs.
# test_trivial: whole batches (fuzz_batch done, inputs per second).
# test_underflow_on_buffer (any input hits its bug): the first input stops
# the batch; the crash event is tied to the batch's input file, which is
# in crashes/<target>/ with the report, and replays the same report.  A
# target the bridge has no schema for is the file's config_error.
GEN=/var/lib/kwatchd/generate

# crash_kept TARGET BLOB FUNCTION: the first crash event is FUNCTION's
# KASAN report, tied to TARGET and the generated input BLOB, which
# crashes/TARGET/ keeps with the report; the kept input replays it.
crash_kept() {
	local tgt=$1 blob=$2 fn=$3 ev n0
	ev=$(events_of crash | head -n1)
	echo "$ev" | cut -c1-400
	expect_eq "crash function" "$(echo "$ev" | field function)" $fn || return 1
	expect_eq "crash target" "$(echo "$ev" | field target)" $tgt || return 1
	expect_eq "crash blob" "$(echo "$ev" | field blob)" "$blob" || return 1
	ls -l $CRASHES/$tgt $GEN/$tgt
	cmp $GEN/$tgt/$blob $CRASHES/$tgt/$blob || fail "crashes/ lacks the generated input" || return 1
	grep -q "BUG: KASAN: slab-out-of-bounds in $fn" $CRASHES/$tgt/$blob.report ||
		fail "no report beside the input" || return 1
	n0=$(dmesg | grep -c "BUG: KASAN: slab-out-of-bounds in $fn")
	dd if=$CRASHES/$tgt/$blob of=$KFT/$tgt/input bs=1M 2>/dev/null
	expect_eq "the kept input replayed: reports" \
		"$(dmesg | grep -c "BUG: KASAN: slab-out-of-bounds in $fn")" $((n0 + 1))
}
t_generate_from_btf() {
	local tgt=test_underflow_on_buffer b st
	# A fresh daemon: the crash is new to it (not a crash_repeat).
	write_conf "" || fail "kwatchd restart" || return 1
	follow_start
	put $CONF/fuzz.d triv.conf "[fuzz]\ntarget = test_trivial\ngenerate = yes\nbatch = 200\n"
	wait_for 60 sh -c "[ \$(grep -c '\"type\":\"fuzz_batch\"' $EV) -ge 2 ]"
	st=$(kwatchctl status -r | grep -o '"generators":\[[^]]*\]')
	rm $CONF/fuzz.d/triv.conf
	put $CONF/fuzz.d nope.conf "[fuzz]\ntarget = no_such_target\ngenerate = yes\n"
	put $CONF/fuzz.d gen.conf "[fuzz]\ntarget = $tgt\ngenerate = yes\nbatch = 50\n"
	wait_for 60 grep -q "\"type\":\"fuzz_batch\".*\"target\":\"$tgt\"" $EV
	wait_for 10 grep -q '"type":"crash"' $EV
	rm $CONF/fuzz.d/gen.conf $CONF/fuzz.d/nope.conf
	follow_stop
	echo "status: $st"
	echo "$st" | grep -q '"target":"test_trivial"' || fail "status lists no generator" || { diag; return 1; }
	b=$(events_of fuzz_batch | grep '"target":"test_trivial"' | head -n1)
	echo "$b" | cut -c1-500
	expect_eq "test_trivial: the batch ended" "$(echo "$b" | field outcome)" done || { diag; return 1; }
	expect_eq "test_trivial: inputs" "$(echo "$b" | field inputs)" 200 || return 1
	echo "kwatch-bench: generated inputs (kfuzztest-bridge under kwatchd, test_trivial, batches of 200): $(echo "$b" | field inputs_per_s) inputs/s (TCG)"
	events_of config_error | grep -q "no target 'no_such_target' in /usr/share/kwatch/kfuzztest-targets.txt" ||
		fail "no config_error for a target with no schema" || { events_of config_error; return 1; }
	b=$(events_of fuzz_batch | grep "\"target\":\"$tgt\"" | head -n1)
	echo "$b" | cut -c1-500
	expect_eq "$tgt: the batch ended" "$(echo "$b" | field outcome)" report || return 1
	expect_eq "$tgt: exit status" "$(echo "$b" | field exit_status)" 3 || return 1
	crash_kept $tgt "$(echo "$b" | field blob)" underflow_on_buffer
}

# A raw-buffer target (FUZZ_TEST_SIMPLE) through kwatchd, input = simple:
# a spooled blob goes to input_simple as it is (the sample's record that
# lacks its checksum: one crash in simple_record_sum tied to the blob, kept
# with it), and generate = yes writes raw inputs (kfuzztest-bridge -r).
t_simple_target_through_kwatchd() {
	local tgt=test_simple_record sp=$SPOOLS/test_simple_record ev b
	write_conf "" || fail "kwatchd restart" || return 1
	follow_start
	put $CONF/fuzz.d raw.conf "[fuzz]\ntarget = $tgt\ninput = simple\n"
	wait_for 10 test -d $sp/done || { follow_stop; fail "spool not started"; diag; return 1; }
	printf 'KW\003abc' >$W/raw_short
	cp $W/raw_short $sp/.r && mv $sp/.r $sp/short-record
	wait_for 30 at_least 1 $sp/done
	wait_for 10 grep -q '"type":"crash"' $EV
	rm $CONF/fuzz.d/raw.conf
	put $CONF/fuzz.d rawgen.conf "[fuzz]\ntarget = $tgt\ninput = simple\ngenerate = yes\nbatch = 100\n"
	wait_for 60 grep -q '"type":"fuzz_batch"' $EV
	rm $CONF/fuzz.d/rawgen.conf
	follow_stop
	ev=$(events_of crash | head -n1)
	echo "$ev" | cut -c1-400
	expect_eq "crash function" "$(echo "$ev" | field function)" simple_record_sum || return 1
	expect_eq "crash blob" "$(echo "$ev" | field blob)" short-record || return 1
	cmp $W/raw_short $CRASHES/$tgt/short-record || fail "crashes/ lacks the blob" || return 1
	b=$(events_of fuzz_batch | head -n1)
	echo "$b" | cut -c1-400
	expect_eq "raw batch" "$(echo "$b" | field outcome)" done || return 1
	echo "kwatch-bench: generated raw inputs (kfuzztest-bridge -r under kwatchd, $tgt, batches of 100): $(echo "$b" | field inputs_per_s) inputs/s (TCG)"
}

# Reports outside a replay: a WARNING and a page-fault oops from the
# platform module, each one crash event of its kind naming its function.
# generate = guided (issue 16, item 3): kwatchd runs kfuzztest-fuzz
# (libFuzzer steered by KCOV) on test_guided_frame, whose bug random
# inputs do not find.  The corpus in corpus/<target>/ is where a run
# starts: it holds a frame with five of the six bytes right (the record's
# tag is 0), as an earlier run would have left it, so the run needs only
# the last one (the kfuzztest suite times the search from nothing).
# While it runs: fuzz_stats events with the corpus and kernel edges, and
# kwatchctl status shows them.  Its first report ends the run (fuzz_batch,
# mode guided, outcome report) and is a crash event tied to the run's
# input file, which crashes/ keeps with the report and which replays it;
# libFuzzer's crash file lies beside it.
KTAP_TIMEOUT_t_guided_through_kwatchd=900
t_guided_through_kwatchd() {
	local tgt=test_guided_frame b blob st s
	write_conf "" || fail "kwatchd restart" || return 1
	# libFuzzer's bytes: the 8-byte frame, then the record (tag, flags).
	rm -rf /var/lib/kwatchd/corpus/$tgt
	mkdir -p -m 0700 /var/lib/kwatchd/corpus/$tgt
	printf 'KFUZ\003abc\000\000' >/var/lib/kwatchd/corpus/$tgt/near-miss
	follow_start
	put $CONF/fuzz.d guided.conf "[fuzz]\ntarget = $tgt\ngenerate = guided\nbuffer_size = 8\nstats_interval = 2\n"
	wait_for 60 grep -q '"type":"fuzz_stats".*"running":true' $EV
	sleep 3
	st=$(kwatchctl status -r | grep -o '"generators":\[[^]]*\]')
	wait_for 480 grep -q "\"type\":\"fuzz_batch\".*\"target\":\"$tgt\"" $EV
	wait_for 10 grep -q '"type":"crash"' $EV
	rm $CONF/fuzz.d/guided.conf
	follow_stop
	echo "status: $st"
	echo "$st" | grep -q '"mode":"guided"' || fail "status shows no guided generator" || { diag; return 1; }
	s=$(events_of fuzz_stats | tail -n1)
	echo "$s"
	[ "$(echo "$s" | field edges)" -gt 0 ] || fail "fuzz_stats: no kernel edges" || return 1
	[ "$(echo "$s" | field corpus)" -gt 0 ] || fail "fuzz_stats: an empty corpus" || return 1
	[ -e /var/lib/kwatchd/corpus/$tgt/near-miss ] || fail "the corpus lost its input" || return 1
	b=$(events_of fuzz_batch | grep "\"target\":\"$tgt\"" | head -n1)
	echo "$b" | cut -c1-500
	expect_eq "$tgt: the run ended" "$(echo "$b" | field outcome)" report || { diag; return 1; }
	expect_eq "$tgt: mode" "$(echo "$b" | field mode)" guided || return 1
	expect_eq "$tgt: exit status" "$(echo "$b" | field exit_status)" 3 || return 1
	echo "kwatch-bench: guided fuzzing (kfuzztest-fuzz under kwatchd, $tgt): first report after $(echo "$b" | field inputs) inputs, $(( $(echo "$b" | field duration_us) / 1000000 )) s, $(echo "$b" | field inputs_per_s) inputs/s (TCG)"
	echo "$b" | field inputs_per_s >$W/guided_rate
	blob=$(echo "$b" | field blob)
	crash_kept $tgt "$blob" guided_frame_sum || return 1
	ls $GEN/$tgt/$blob.crash-* >/dev/null 2>&1 || fail "no libFuzzer crash file beside the input"
}

t_crash_kinds() {
	local ev
	follow_start
	echo warn >$PLAT/crash
	sh -c "echo null >$PLAT/crash" 2>/dev/null
	wait_for 10 sh -c "[ \$(grep -c '\"type\":\"crash\"' $EV) -ge 2 ]"
	follow_stop
	events_of crash | cut -c1-300
	ev=$(events_of crash | grep '"kind":"warning"')
	expect_eq "warning function" "$(echo "$ev" | field function)" kwatch_platform_warn || return 1
	ev=$(events_of crash | grep -v '"kind":"warning"')
	echo "$ev" | field kind | grep -qE '^(oops|bug)$' || fail "null store: kind $(echo "$ev" | field kind)" || return 1
	expect_eq "oops function" "$(echo "$ev" | field function)" kwatch_platform_null_store || return 1
	expect_eq "oops access" "$(echo "$ev" | field access)" write
}

# A target that oopses kills the daemon in its write: systemd restarts it,
# the blob is set aside as interrupted, and the report the kernel logged is
# tied to it after the recovery.  The target is a stand-in: an "input" that
# is a symlink to the platform module's crash file (the blob says "null").
t_daemon_killed_in_write_report_tied() {
	local kft=/var/lib/kwatchd/test/kft sp=$SPOOLS/crashy pid ev
	mkdir -p $kft/crashy
	ln -sfn $PLAT/crash $kft/crashy/input
	write_conf "" "kfuzztest = $kft" || fail "restart" || return 1
	put $CONF/fuzz.d crashy.conf '[fuzz]\ntarget = crashy\n'
	wait_for 10 test -d $sp/done || { fail "spool not started"; diag; return 1; }
	pid=$(systemctl show -p MainPID --value kwatchd)
	put $sp boom 'null\n'
	wait_for 20 sh -c "systemctl is-active -q kwatchd && [ \$(systemctl show -p MainPID --value kwatchd) != $pid ]" ||
		{ fail "kwatchd not restarted after the oops in its write"; diag; return 1; }
	wait_for 10 test -e $sp/interrupted/boom || { fail "boom not set aside"; diag; return 1; }
	kwatchctl follow -b -r -t crash -n 1 -i 5 >"$EV"
	rm -f $CONF/fuzz.d/crashy.conf
	ev=$(events_of crash)
	echo "$ev" | cut -c1-400
	expect_eq "kind" "$(echo "$ev" | field kind)" oops || { diag; return 1; }
	expect_eq "function" "$(echo "$ev" | field function)" kwatch_platform_null_store || return 1
	expect_eq "tied to" "$(echo "$ev" | field target)/$(echo "$ev" | field blob)" crashy/boom || return 1
	cmp $sp/interrupted/boom $CRASHES/crashy/boom || fail "crashes/crashy lacks the blob" || return 1
	grep -q 'BUG: kernel NULL pointer dereference' $CRASHES/crashy/boom.report ||
		fail "no report beside the blob"
}

# A wprobe followed by BPF: a burst bigger than the ring buffer while the
# daemon is stopped gives a lost record; delivered + lost = emitted.
# A crash loop: six blobs that each oops in the daemon's write.  Each
# start sets aside the blob it died in, so the spool empties: the unit's
# start limit (60 starts in 10 min) does not stop it half way (systemd's
# default, 5 starts in 10 s, would), and the daemon is active at the end with every blob in
# interrupted/ and nothing queued.
t_crash_loop_empties_the_spool() {
	local kft=/var/lib/kwatchd/test/kft sp=$SPOOLS/crashy i n0 n
	mkdir -p $kft/crashy
	ln -sfn $PLAT/crash $kft/crashy/input
	write_conf "" "kfuzztest = $kft" || fail "restart" || return 1
	put $CONF/fuzz.d crashy.conf '[fuzz]\ntarget = crashy\n'
	wait_for 10 test -d $sp/done || { fail "spool not started"; diag; return 1; }
	n0=$(systemctl show -p NRestarts --value kwatchd)
	mkdir -p $sp/tmp
	for i in 1 2 3 4 5 6; do printf 'null\n' >$sp/tmp/loop$i; done
	# One rename each: a many-file mv stats each file it moved, and the
	# daemon may have claimed it by then.
	for i in 1 2 3 4 5 6; do mv $sp/tmp/loop$i $sp/loop$i; done
	wait_for 120 sh -c "[ \$(ls $sp/interrupted | grep -c '^loop') -ge 6 ] && systemctl is-active -q kwatchd" ||
		{ fail "spool not emptied: $(ls $sp | tr '\n' ' ') / interrupted: $(ls $sp/interrupted | tr '\n' ' ')"; diag; return 1; }
	n=$(systemctl show -p NRestarts --value kwatchd)
	echo "restarts for 6 oopsing blobs: $((n - n0)); interrupted: $(ls $sp/interrupted | grep -c '^loop')"
	rm -f $CONF/fuzz.d/crashy.conf
	[ "$((n - n0))" -ge 6 ] || fail "fewer restarts than oopsing blobs" || return 1
	expect_eq "queued" "$(ls $sp | grep -c '^loop')" 0 || return 1
	expect_eq "kwatchd" "$(kwatchd_state)" active
}

t_ring_buffer_lost_count() {
	local n=3000 got lost
	write_conf "ringbuf_kib = 4" || fail "restart with a 4 KiB ring" || return 1
	put $CONF/wprobe.d v.conf '[wprobe]\nname = kwv\naccess = w\nsymbol = kwt_var\nlength = 8\n'
	wait_for 10 wprobe_attached kwv || { fail "wprobe kwv not attached"; diag; return 1; }
	kwatchctl follow -r -t wprobe_sample -n $n -i 15 -S >/tmp/burst.ndjson 2>/tmp/burst.txt &
	sleep 0.5
	kill -STOP "$(systemctl show -p MainPID --value kwatchd)"
	echo "burst $n" >$VAR
	kill -CONT "$(systemctl show -p MainPID --value kwatchd)"
	wait $!
	cat /tmp/burst.txt
	got=$(grep -c '"type":"wprobe_sample"' /tmp/burst.ndjson)
	lost=$(grep '"type":"lost"' /tmp/burst.ndjson | grep '"source":"bpf"' | field count | awk '{ s += $1 } END { print s + 0 }')
	rm $CONF/wprobe.d/v.conf
	echo "emitted $n, delivered $got, lost ${lost:-0}"
	[ "${lost:-0}" -gt 0 ] || fail "no lost record" || return 1
	expect_eq "delivered + lost" $((got + lost)) $n
}

# BPF events per second to a socket client before drops: a burst on the
# wprobe with the default ring buffer, the daemon running.
t_bpf_event_rate() {
	local n=4000 out
	write_conf "" || fail "restart" || return 1
	put $CONF/wprobe.d v.conf '[wprobe]\nname = kwv\naccess = w\nsymbol = kwt_var\nlength = 8\n'
	wait_for 10 wprobe_attached kwv || { fail "wprobe kwv not attached"; diag; return 1; }
	# Subscribed: the daemon sends this client no wprobe_hit events.
	kwatchctl follow -r -T wprobe_sample -n $n -i 15 -S >/tmp/rate.ndjson 2>/tmp/rate.txt &
	sleep 0.5
	echo "burst $n" >$VAR
	wait $!
	rm $CONF/wprobe.d/v.conf
	out=$(cat /tmp/rate.txt)
	echo "$out"
	local got=$(echo "$out" | sed -n 's/^events=\([0-9]*\).*/\1/p') lost=$(echo "$out" | sed -n 's/.* lost_records=\([0-9]*\).*/\1/p')
	[ "$got" -le $((n + 1 + lost)) ] || fail "subscribed to wprobe_sample, got $got records for $n samples" || return 1
	echo "kwatch-bench: BPF wprobe events to one kwatchctl follow client (TCG, json-c parsing each line): $(echo "$out" | sed -n 's/.*rate=\([0-9]*\).*/\1/p')/s, lost $(grep '"type":"lost"' /tmp/rate.ndjson | grep -c bpf) records"
}

# kwatchd's event path side by side with a bare reader, in this boot: N
# wprobe hits through the BPF ring buffer (made while the reader is
# stopped: the clients time it draining the ring), and N events of the
# daemon's own (bench), to 1 and to 4 clients.  The bare reader (kwatch-bare,
# tests/vm/tools/bpf) loads the same BPF object and writes each record as
# a line of the same fields to its clients, blocking; its wprobe is
# enabled in a tracefs instance as kwatchd's is, so the kernel does the
# same work.  Every client is the same cheap counter (kwatch-bare count),
# so the servers set the pace; kwatchd's are measured sent every type
# (each hit is a wprobe_hit too) and subscribed to wprobe_sample, the
# records the bare reader's get.  No push target, as the bare reader has
# none; nothing may be lost unannounced.
BARE=/opt/kwatch/bin/kwatch-bare
BARE_SOCK=/run/kwatch-bare.sock

# counters SOCKET K TYPE N OUT [subscribe]: K counters of N events of
# TYPE, in the background, each writing OUT.I; subscribed, kwatchd sends
# them TYPE only.
counters() {
	local i
	for i in $(seq "$2"); do
		$BARE count "$1" "$3" "$4" 10 ${6:-} >"$5.$i" &
	done
}

# path_rate WHAT OUT: the clients' figures, and their mean rate in RATE[WHAT].
declare -A RATE
path_rate() {
	sed 's/^/  /' "$2".*
	RATE[$1]=$(cat "$2".* | sed -n 's/.*rate=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { printf "%d", s / NR }')
}

# all_accounted N OUT: each client saw N events, or was told of the rest.
all_accounted() {
	local f m l
	for f in "$2".*; do
		m=$(sed -n 's/.*matched=\([0-9]*\).*/\1/p' "$f")
		l=$(sed -n 's/.*lost_events=\([0-9]*\).*/\1/p' "$f")
		[ $((m + l)) -ge "$1" ] || { fail "$f: $m delivered + $l announced lost of $1"; return 1; }
	done
}

# burst_ms PID N: N writes to the wprobe's variable while the reader PID
# is stopped, so the records wait in the ring (and kwatchd's wprobe_hit
# lines in its trace instance) and the clients time the reader draining
# them, not the writer; how long the writes took.
burst_ms() {
	local t0 t1
	kill -STOP "$1"
	t0=$(date +%s%N); echo "burst $2" >$VAR; t1=$(date +%s%N)
	kill -CONT "$1"
	echo $(((t1 - t0) / 1000000))
}

# kwatchd_drain PID K NAME [subscribe] WHAT: K clients of kwatchd (PID)
# time it draining N wprobe records; RATE[NAME] is their mean.
kwatchd_drain() {
	local ms
	counters /run/kwatchd/events.sock $2 wprobe_sample $n $out.$3 $4
	sleep 0.5
	ms=$(burst_ms $1 $n)
	wait
	echo "kwatchd, BPF, $2 client(s)$5; the burst took $ms ms:"
	path_rate $3 $out.$3
	all_accounted $n $out.$3
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

b_event_path_vs_bare_reader() {
	local n=4000 k ms pid out=/tmp/path T=/sys/kernel/tracing
	rm -f $out.*
	cat >$CONF/kwatchd.conf <<CONF
[daemon]
queue_events = 200000
queue_kib = 262144
CONF
	systemctl restart kwatchd && wait_for 10 test -S /run/kwatchd/events.sock || fail "restart" || return 1
	put $CONF/wprobe.d v.conf '[wprobe]\nname = kwv\naccess = w\nsymbol = kwt_var\nlength = 8\n'
	wait_for 10 wprobe_attached kwv || { fail "wprobe kwv not attached"; diag; return 1; }
	pid=$(systemctl show -p MainPID --value kwatchd)
	for k in 1 4; do
		kwatchd_drain $pid $k kb$k "" "" || return 1
		# The same, the clients subscribed to wprobe_sample: they get the
		# records the bare reader's get, not the wprobe_hit of each hit too.
		kwatchd_drain $pid $k kbs$k subscribe " subscribed to wprobe_sample" || return 1
		counters /run/kwatchd/events.sock $k bench $n $out.ks$k
		sleep 0.5
		kwatchctl bench $n >/dev/null
		wait
		echo "kwatchd, synthetic, $k client(s):"
		path_rate ks$k $out.ks$k
		all_accounted $n $out.ks$k || return 1
	done
	rm $CONF/wprobe.d/v.conf
	systemctl stop kwatchd
	# The bare reader's wprobe, enabled in an instance nobody reads.
	echo 'w:kwbare/kwv w@kwt_var:8' >>/sys/kernel/tracing/dynamic_events || fail "cannot create the bare wprobe" || return 1
	mkdir -p $T/instances/kwbare
	echo 1 >$T/instances/kwbare/events/kwbare/kwv/enable
	# Lines written one at a time (a minimal reader), then 256 at a time
	# and at the end of each poll (kwatchd's batching, nothing else of it).
	for b in 1 256; do
		for k in 1 4; do
			$BARE ring $BARE_SOCK $k $T/events/kwbare/kwv/id $n $b >$out.bare &
			pid=$!
			wait_for 10 test -S $BARE_SOCK || { fail "kwatch-bare did not listen"; cat $out.bare; return 1; }
			counters $BARE_SOCK $k wprobe_sample $n $out.bb$k.$b
			wait_for 10 grep -q ready $out.bare || { fail "kwatch-bare not ready"; return 1; }
			ms=$(burst_ms $pid $n)
			wait
			echo "bare reader, BPF, $k client(s), $b line(s) a write; the burst took $ms ms; $(tail -n1 $out.bare):"
			path_rate bb$k.$b $out.bb$k.$b
			all_accounted $n $out.bb$k.$b || return 1
			$BARE synth $BARE_SOCK $k $n $b >/dev/null &
			wait_for 10 test -S $BARE_SOCK || { fail "kwatch-bare did not listen"; return 1; }
			counters $BARE_SOCK $k bench $n $out.bs$k.$b
			wait
			echo "bare writer, synthetic, $k client(s), $b line(s) a write:"
			path_rate bs$k.$b $out.bs$k.$b
			all_accounted $n $out.bs$k.$b || return 1
		done
	done
	echo 0 >$T/instances/kwbare/events/kwbare/kwv/enable
	rmdir $T/instances/kwbare
	echo '-:kwbare/kwv' >>/sys/kernel/tracing/dynamic_events
	cp /tmp/kwatchd.conf.orig $CONF/kwatchd.conf
	systemctl start kwatchd
	for k in 1 4; do
		echo "kwatch-bench: BPF wprobe samples/s per client, $k client(s) (TCG): kwatchd ${RATE[kbs$k]} subscribed to them (${RATE[kb$k]} sent every type, wprobe_hit too), bare reader ${RATE[bb$k.1]} (a write a line) / ${RATE[bb$k.256]} (batched), ratio $(ratio ${RATE[kbs$k]} ${RATE[bb$k.1]}) / $(ratio ${RATE[kbs$k]} ${RATE[bb$k.256]}) (every type: $(ratio ${RATE[kb$k]} ${RATE[bb$k.256]}))"
		echo "kwatch-bench: synthetic events/s per client, $k client(s) (TCG): kwatchd ${RATE[ks$k]}, bare writer ${RATE[bs$k.1]} (a write a line) / ${RATE[bs$k.256]} (batched), ratio $(ratio ${RATE[ks$k]} ${RATE[bs$k.1]}) / $(ratio ${RATE[ks$k]} ${RATE[bs$k.256]})"
	done
}

# test_trivial's spool with the settings CAPS, made, then stopped, done/
# emptied and .stage/ made: blobs queued now wait for the next start.
spool_stopped() {
	local sp=$SPOOLS/test_trivial
	write_conf "$1" || return 1
	put $CONF/fuzz.d trivial.conf '[fuzz]\ntarget = test_trivial\n'
	wait_for 10 test -d $sp/done || { fail "spool not started"; return 1; }
	rm $CONF/fuzz.d/trivial.conf
	wait_for 10 sh -c "! kwatchctl status -r | grep -q '\"target\":\"test_trivial\"'"
	rm -rf $sp/done $sp/.stage
	mkdir -p $sp/.stage
}

# The extra cost of a fuzz execution with the programs attached vs not, in
# one boot: (a) direct writes of one blob (kfuzztest-bench), the programs
# attached because a fuzz file is configured, the daemon turning their
# records into events, vs no fuzz file; (b) the same blobs through the
# daemon's spool with [capture] bpf = yes/no, claimed and moved in batches
# (pmsg); (c) the spool a blob at a time (pmsg = no), the way it was before
# batches; and the spool's rate against the direct writes'.  Each spool run
# queues its blobs while the spool is stopped and times from its start to
# the last one done: the spool's capacity, whatever a producer's pace.
spool_run() {
	local n=$1 caps=$2 sp=$SPOOLS/test_trivial i t0 t1 f
	spool_stopped "$caps" || return 1
	# The copies by one tee a few hundred at a time: a cp each is a
	# fork and exec each, slow under TCG.
	for i in $(seq 0 250 $((n - 1))); do
		tee $(seq -f "$sp/.stage/c%.0f" $((i + 1)) $((i + 250 < n ? i + 250 : n))) <$W/tcost >/dev/null
	done
	mv $sp/.stage/* $sp/
	sync
	t0=$(date +%s%N)
	put $CONF/fuzz.d trivial.conf '[fuzz]\ntarget = test_trivial\n'
	# Counted by the shell itself, seldom, not to take the daemon's CPU;
	# the end is the last blob's move into done/ (its ctime).
	for i in $(seq 600); do
		sleep 0.5
		f=($sp/done/*)
		[ ${#f[@]} -ge $n ] && break
	done
	t1=$(stat -c '%.9Z' $sp/done/* | sort -n | tail -n1 | tr -d .)
	RUN_BATCH=$(kwatchctl status -r | grep -o '"target":"test_trivial"[^}]*' | sed -n 's/.*"batch":\([0-9]*\).*/\1/p')
	rm $CONF/fuzz.d/trivial.conf
	[ ${#f[@]} -ge $n ] || { fail "$caps: ${#f[@]} of $n blobs replayed"; return 1; }
	RUN_US=$(((t1 - t0) / 1000 / n))
	echo "${caps//$'\n'/, }: $n blobs in $(((t1 - t0) / 1000000)) ms, $RUN_US us each (batch ${RUN_BATCH:-?})"
}

# The same, the blobs in one pack (spool.h): one file to claim and to
# move, each blob a write and its records.  SRC "tcost": n copies of the
# blob the direct writes use (n a power of two); "bridge": n inputs that
# kfuzztest-bridge -O derives for test_trivial.  Timed from the spool's
# start to the pack's move into done/.
spool_pack_run() {
	local n=$1 caps=$2 src=$3 sp=$SPOOLS/test_trivial t0 t1 i s
	spool_stopped "$caps" || return 1
	if [ "$src" = bridge ]; then
		/opt/kwatch/bin/kfuzztest-bridge -t /opt/kwatch/kfuzztest-targets.txt -n $n \
			-O $sp/.stage/p.kwpack test_trivial /dev/urandom || { fail "kfuzztest-bridge -O"; return 1; }
	else
		# One record, doubled: a cat a blob is slow under TCG.
		s=$(stat -c %s $W/tcost)
		printf "$(printf '\\x%02x\\x%02x\\x00\\x00' $((s & 255)) $((s >> 8)))" >$sp/.stage/r
		cat $W/tcost >>$sp/.stage/r
		for ((i = 1; i < n; i *= 2)); do
			cat $sp/.stage/r $sp/.stage/r >$sp/.stage/r2 && mv $sp/.stage/r2 $sp/.stage/r
		done
		{ printf KWPACK01; cat $sp/.stage/r; } >$sp/.stage/p.kwpack
	fi
	mv $sp/.stage/p.kwpack $sp/
	sync
	t0=$(date +%s%N)
	put $CONF/fuzz.d trivial.conf '[fuzz]\ntarget = test_trivial\n'
	for i in $(seq 600); do
		sleep 0.5
		[ -e $sp/done/p.kwpack.results ] && break
	done
	rm $CONF/fuzz.d/trivial.conf
	[ -e $sp/done/p.kwpack.results ] || { fail "$caps: the pack did not finish"; return 1; }
	t1=$(stat -c '%.9Z' $sp/done/p.kwpack | tr -d .)
	expect_eq "$src: verdicts in the pack's results" "$(wc -l <$sp/done/p.kwpack.results)" $n || return 1
	[ "$src" = bridge ] ||
		expect_eq "$src: blobs the target took" "$(grep -c ' 0$' $sp/done/p.kwpack.results)" $n || return 1
	RUN_US=$(awk -v d=$((t1 - t0)) -v n=$n 'BEGIN { printf "%.0f", d / 1000 / n }')
	echo "${caps//$'\n'/, }: a pack of $n blobs ($src) in $(((t1 - t0) / 1000000)) ms, $RUN_US us each"
}

# The spool's settings as the replay sees them, in a few blobs (the
# benchmark below, make bench, times thousands): a batch of 256 with pmsg,
# a blob at a time without, and a pack's verdicts one an input.
t_spool_batch_settings() {
	kft_blob $W/tcost "0:16" "" "$(trivial_payload 5)"
	spool_run 40 "bpf = yes" || return 1
	expect_eq "batch with pmsg" "$RUN_BATCH" 256 || return 1
	spool_run 10 "$(printf 'bpf = yes\npmsg = no')" || return 1
	expect_eq "batch without pmsg" "$RUN_BATCH" 1 || return 1
	spool_pack_run 64 "bpf = yes" tcost || return 1
	spool_pack_run 64 "bpf = yes" bridge
}

b_fuzz_cost_attached_vs_detached() {
	local runs=3000 r_on r_off us_no us_yes us_one us_pack us_bridge
	local bench=/opt/kwatch/bin/kfuzztest-bench
	kft_blob $W/tcost "0:16" "" "$(trivial_payload 5)"
	write_conf "" || return 1
	r_off=$($bench $KFT/test_trivial/input $W/tcost $runs | awk '{ print $(NF - 1) }')
	put $CONF/fuzz.d idle.conf '[fuzz]\ntarget = test_trivial\nspool = /var/lib/kwatchd/spool/idle-bench\n'
	wait_for 10 sh -c "kwatchctl status -r | head -n1 | grep -q '\"attached\":\[[^]]*fuzz_entry'" ||
		{ fail "fuzz programs not attached"; diag; return 1; }
	r_on=$($bench $KFT/test_trivial/input $W/tcost $runs | awk '{ print $(NF - 1) }')
	rm $CONF/fuzz.d/idle.conf
	echo "kwatch-bench: direct KFuzzTest writes (TCG): $r_off runs/s detached, $r_on runs/s attached, cost ratio $(awk -v a="$r_off" -v b="$r_on" 'BEGIN { printf "%.2f", a / b }')"
	spool_run 1000 "bpf = no" || return 1
	us_no=$RUN_US
	spool_run 1000 "bpf = yes" || return 1
	us_yes=$RUN_US
	expect_eq "batch with pmsg" "$RUN_BATCH" 256 || return 1
	spool_run 200 "$(printf 'bpf = yes\npmsg = no')" || return 1
	us_one=$RUN_US
	expect_eq "batch without pmsg" "$RUN_BATCH" 1 || return 1
	spool_pack_run 4096 "bpf = yes" tcost || return 1
	us_pack=$RUN_US
	spool_pack_run 4096 "bpf = yes" bridge || return 1
	us_bridge=$RUN_US
	echo "kwatch-bench: fuzz exec through kwatchd's spool (TCG): ${us_no} us detached, ${us_yes} us attached, ratio $(awk -v a="$us_yes" -v b="$us_no" 'BEGIN { printf "%.2f", a / b }')"
	echo "kwatch-bench: the spool in batches vs a blob at a time, attached (TCG, one boot): ${us_yes} vs ${us_one} us a blob, $(awk -v a="$us_one" -v b="$us_yes" 'BEGIN { printf "%.1f", a / b }')x the rate"
	echo "kwatch-bench: the spool in packs vs direct writes, attached (TCG, one boot): $(awk -v u="$us_pack" 'BEGIN { printf "%.0f", 1e6 / u }') blobs/s in a pack of 4096 ($us_pack us each; $(awk -v u="$us_bridge" 'BEGIN { printf "%.0f", 1e6 / u }')/s for one from kfuzztest-bridge -O), vs $r_on runs/s: $(awk -v u="$us_pack" -v r="$r_on" 'BEGIN { printf "%.1f", 100 * 1e6 / u / r }')% of direct writes; $(awk -v a="$us_yes" -v b="$us_pack" 'BEGIN { printf "%.1f", a / b }')x the rate in batches"
	echo "kwatch-bench: the spool vs direct writes, attached (TCG, one boot): $(awk -v u="$us_yes" 'BEGIN { printf "%.0f", 1e6 / u }') blobs/s in batches, $(awk -v u="$us_one" 'BEGIN { printf "%.0f", 1e6 / u }') a blob at a time, vs $r_on runs/s: $(awk -v u="$us_yes" -v r="$r_on" 'BEGIN { printf "%.1f", 100 * 1e6 / u / r }')% and $(awk -v u="$us_one" -v r="$r_on" 'BEGIN { printf "%.1f", 100 * 1e6 / u / r }')%"
	[ -s $W/guided_rate ] &&
		echo "kwatch-bench: guided fuzzing vs direct writes vs the spool, attached (TCG, one boot): $(cat $W/guided_rate) inputs/s (kfuzztest-fuzz under kwatchd, test_guided_frame) vs $r_on runs/s vs $(awk -v u="$us_yes" 'BEGIN { printf "%.0f", 1e6 / u }') blobs/s: $(awk -v g="$(cat $W/guided_rate)" -v r="$r_on" 'BEGIN { printf "%.1f", 100 * g / r }')% of direct writes, $(awk -v g="$(cat $W/guided_rate)" -v u="$us_yes" 'BEGIN { printf "%.1f", g * u / 1e6 }')x the spool"
	return 0
}

# The host collector (virtio-serial port -> events.ndjson on the host) gets
# the same seq numbers as a socket client: the client's view is printed as
# "kwatch-collector-seqs: FIRST LAST COUNT SUM TIMESTAMP" (the timestamp of
# the first, to find this daemon's run in the file: seq starts again at each
# daemon start) and vm.sh compares it with the host's file after the run.
t_collector_same_seqs() {
	local s
	write_conf "" || fail "restart" || return 1
	follow_start
	kwatchctl bench 500 >/dev/null
	wait_for 20 sh -c "grep -q '\"left\":0[,}]' $EV" || fail "bench events did not all arrive" || return 1
	follow_stop
	s=$(events_of bench | seq_of)
	expect_eq "bench events on the socket" "$(echo "$s" | wc -l)" 500 || return 1
	echo "kwatch-collector-seqs: $(echo "$s" | head -n1) $(echo "$s" | tail -n1) $(echo "$s" | wc -l) $(echo "$s" | awk '{ t += $1 } END { print t }') $(events_of bench | head -n1 | field timestamp)"
}

t_restore() {
	rm -f $CONF/watch.d/*.conf $CONF/wprobe.d/*.conf $CONF/fuzz.d/*.conf
	cp /tmp/kwatchd.conf.orig $CONF/kwatchd.conf
	systemctl restart kwatchd
	expect_eq "kwatchd" "$(kwatchd_state)" active
}

ktap_main
