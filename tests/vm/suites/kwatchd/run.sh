#!/bin/bash
# Suite "kwatchd": the daemon as a systemd service in the guest.
#
# What is real and what is a stand-in: systemd, the service, the socket,
# inotify, reload/restart and the event stream are real, and so are
# /proc/kstackwatch (t_real_kstackwatch) and wprobes (t_wprobe_hits_on_socket).
# The spool tests and most watch tests need a file whose content shows
# what the daemon wrote, so those point kwatchd's [kernel] paths at
# stand-ins under /var/lib/kwatchd/test: a plain file for
# /proc/kstackwatch and a FIFO for the KFuzzTest input (a reader records
# each write); kwatchd-bpf drives the real KFuzzTest spool.  The tests
# that need a real interface skip without it.
#
# What it asserts: the service is active and READY with its socket (0660,
# group kwatch); a watch file arms within a second and deleting it disarms;
# a malformed file gives a config_error with file and line and the previous
# watch stays, also across a restart (the set in force is saved in the state
# directory); a second watch file is an error naming both (the stand-in
# takes one watch); the real /proc/kstackwatch is programmed and read back,
# and a line the kernel refuses is a config_error with the kernel's errno
# while the previous watch stays; a reader holding /proc/kstackwatch for 3 s
# while a watch file goes does not keep the kernel armed (the daemon answers
# status meanwhile, says watch_disarmed only once it is, and disarms when
# the reader lets go).
#
# wprobes: a wprobe file creates the real wprobe, and writes to the watched
# variable arrive as wprobe_hit events naming the writer; a wprobe file with
# max_rate = 200 and a 5000-write loop give exactly 200 wprobe_hit events
# and one wprobe_storm event (hits, count 201, limit 200) and a journal
# warning, and a change to the file re-arms it; hits the daemon's trace
# buffer had no room for (the daemon stopped, a burst of 8000 writes) become
# a lost record (source trace_buffer) and the hits after the gap still
# arrive; comms that read like a trace line's fields still have their hits,
# with their own comm and pid; after kill -9 with a wprobe file in place the
# restarted daemon removes the wprobe and instance it left (journal line),
# the file applies again and its hits arrive.
#
# The spool: spooled blobs are replayed once each and moved with their
# result; a fuzz.d file whose spool is the configuration's watch.d is a
# config_error saying so and the files there stay; a blob renamed in from
# the spool's tmp/ is replayed while one written in the spool itself
# (slowly, with a rename landing meanwhile) is never replayed but refused at
# once (rejected/ with "written in place", a fuzz_rejected event with the
# reason, a journal line), and a directory, a FIFO and a symlink dropped in
# are each refused with their reason; a spool owned by another user is a
# config_error naming the owner and nothing is made in it; a spool on a full
# 256 KiB tmpfs whose blob's result cannot be recorded gives one
# fuzz_stalled event (ENOSPC; status says stalled, the daemon answers), and
# once there is room the result is recorded and reported (fuzz_rejected,
# fuzz_resumed) with nothing left in flight; kill -9 during a replay loses
# nothing and the in-flight blob is reported (journal, status, and a
# fuzz_interrupted event that a client connecting later gets with kwatchctl
# follow -b, the daemon's backlog of its last 512 events); a pack of four
# (*.kwpack) in whose first blob the daemon is killed: after the restart
# that blob is interrupted/PACK#0 (a fuzz_interrupted event with index 0),
# the other three are written once each and the pack's PACK.results says
# interrupted and 0, 0, 0.
#
# The daemon: a stalled client gets a lost record while another receives
# everything; 5000 drop-ins put in place at once: the first 1024 by name are
# read, one config_error names the rest, and the one enabled watch among
# them is armed (the time to arm and the peak memory printed); reload and
# restart keep the state; a change to kwatchd.conf is read live (a
# restart-only key gives a settings_pending event naming it, a bad line a
# config_error with its line); a config_error is in the journal (its
# MESSAGE_ID and KWATCH_FILE, with its line, seq and id as on the socket),
# bench events are not by default, and journal = none stops them, live; a
# member of the group kwatch gets status but its reload and bench are
# refused ("only root", exit 1, a journal line, no bench event), and 20
# reloads from root in a row cost at most one apply a second (4 in the run
# of 20261204-172019); the records that answer one client (status, a reply,
# a refusal) are printed for the host's schema check; kwatchd.socket holds
# the socket: a client connecting while the daemon is stopped starts it and
# gets its status, a restart keeps the socket's inode, and the daemon runs
# with only CAP_SYS_ADMIN, CAP_SYSLOG, CAP_PERFMON and CAP_BPF in its
# bounding set and a network namespace of its own.
#
# Benchmarks (b_*, make bench only): b_events_per_second (5000 synthetic
# events to 1 and to 4 clients, unpaced; drops counted, not failed) and
# b_blobs_per_second_daemon_vs_shell (the same 200 blobs written to the FIFO
# stand-in by the daemon and by a shell loop).
. /opt/kwatch/tests/guest/ktap.sh

ST=/var/lib/kwatchd/test
KSW=$ST/kstackwatch
FIFO=$ST/kfuzztest/tgt/input
SPOOL=/var/lib/kwatchd/spool/tgt
EV=/tmp/kwatchd-events.ndjson
. /opt/kwatch/tests/guest/kwatchd.sh

status_field() { kwatchctl status -r | head -n1 | grep -o "\"$1\":[^,]*" | head -n1; }

# The kernel has w: dynamic events (the README line, with or without the
# hit-storm guard's [maxrate]).
has_wprobes() { grep -qE 'w(\[maxrate\])?\[:' /sys/kernel/tracing/README 2>/dev/null; }

# The wprobes test module, whose variable kwt_var the wprobe tests watch.
wprobe_target() {
	[ -e /sys/kernel/debug/kwatch_wprobe/var ] ||
		insmod /opt/kwatch/modules/kwatch_wprobe_target.ko || fail "insmod kwatch_wprobe_target.ko"
}

t_service_active_and_ready() {
	local st text
	st=$(systemctl show -p ActiveState --value kwatchd)
	expect_eq "kwatchd ActiveState" "$st" active || return 1
	text=$(systemctl show -p StatusText --value kwatchd)
	echo "StatusText: $text"
	case $text in watch:*) ;; *) fail "no READY status text"; return 1 ;; esac
	[ -S /run/kwatchd/events.sock ] || fail "no /run/kwatchd/events.sock" || return 1
	stat -c 'socket mode %a group %G' /run/kwatchd/events.sock
	expect_eq "socket mode" "$(stat -c %a /run/kwatchd/events.sock)" 660 || return 1
	kwatchctl status | head -n 40
	kwatchctl status -r | grep -q '"type":"status"' || fail "no status record"
}

t_standin_setup() {
	mkdir -p $ST/kfuzztest/tgt $CONF/watch.d $CONF/fuzz.d
	: >$KSW
	rm -f $FIFO; mkfifo $FIFO
	cp $CONF/kwatchd.conf $ST/kwatchd.conf.orig
	cat >$CONF/kwatchd.conf <<CONF
[daemon]
push = /dev/virtio-ports/org.kwatch.events
queue_events = 256
queue_kib = 1024
[kernel]
kstackwatch = $KSW
kfuzztest = $ST/kfuzztest
CONF
	# A reader that never sees EOF: fd 3 holds the FIFO open read-write.
	exec 3<>$FIFO
	nohup sh -c "exec cat $FIFO >>$ST/input.log" >/dev/null 2>&1 3<>$FIFO &
	echo $! >$ST/reader.pid
	printf '[fuzz]\ntarget = tgt\n' >$CONF/fuzz.d/tgt.conf
	systemctl restart kwatchd || fail "restart with stand-in paths" || return 1
	expect_eq "kwatchd after restart" "$(kwatchd_state)" active
}

t_watch_file_arms_and_disarms() {
	local t0 t1
	follow_start
	t0=$(date +%s%N)
	put $CONF/watch.d w.conf '[watch]\nfunction = canary_test_write\nip_offset = 0x12\n'
	wait_for 1 grep -qx 'canary_test_write+0x12' $KSW || { follow_stop; fail "not armed within 1 s: '$(cat $KSW)'"; return 1; }
	t1=$(date +%s%N)
	echo "armed in $(((t1 - t0) / 1000000)) ms: $(cat $KSW)"
	rm $CONF/watch.d/w.conf
	wait_for 1 grep -qx '' $KSW || { follow_stop; fail "not disarmed within 1 s"; return 1; }
	sleep 0.3
	follow_stop
	events_of watch_armed | grep -q '"definition":"canary_test_write+0x12"' || fail "no watch_armed event" || return 1
	events_of watch_disarmed | grep -q 'w.conf' || fail "no watch_disarmed event"
}

t_malformed_file_keeps_previous_watch() {
	put $CONF/watch.d/ m.conf '[watch]\nfunction = silent_corruption_victim\nip_offset = 0x7f\nlocal = 0:8\n'
	wait_for 2 grep -qx 'silent_corruption_victim+0x7f 0:8' $KSW || fail "not armed" || return 1
	follow_start
	put $CONF/watch.d m.conf '[watch]\nfunction = silent_corruption_victim\nlocal = 0:3\n'
	wait_for 2 grep -q config_error "$EV" || { follow_stop; fail "no config_error event"; return 1; }
	# a second enabled watch is an error naming both files
	put $CONF/watch.d n.conf '[watch]\nfunction = other\n'
	wait_for 2 grep -q 'conflicts with' "$EV"
	sleep 0.3
	follow_stop
	events_of config_error
	events_of config_error | grep '"file":"/etc/kwatchd/watch.d/m.conf"' | grep -q '"line":3' ||
		fail "config_error lacks file m.conf and line 3" || return 1
	events_of config_error | grep 'watch.d/n.conf conflicts with watch.d/m.conf' -q ||
		fail "no error naming both watch files" || return 1
	expect_eq "previous watch still armed" "$(cat $KSW)" 'silent_corruption_victim+0x7f 0:8' || return 1
	rm -f $CONF/watch.d/n.conf
	# A restart with m.conf still bad: the last good version, saved in the
	# state directory, is armed again, and the file is reported again.
	systemctl restart kwatchd || fail "restart" || return 1
	wait_for 5 grep -qx 'silent_corruption_victim+0x7f 0:8' $KSW ||
		fail "last good version not in force after a restart: '$(cat $KSW)'" || return 1
	kwatchctl follow -b -r -t config_error -n 1 -i 5 >"$EV"
	grep -q '"file":"/etc/kwatchd/watch.d/m.conf".*"line":3' "$EV" ||
		fail "no config_error for m.conf after the restart"
}

# The real /proc/kstackwatch: the daemon programs it and reads it back, and
# a line the kernel refuses becomes a config error with the kernel's errno
# while the previous watch stays.  The watched function is not called: the
# arm/disarm path itself is tested by the kstackwatch suite.
# /proc/kstackwatch has one opener at a time: while the daemon writes it,
# a read fails with EBUSY.  Read until a read succeeds (2 s at most).
ksw_now() {
	local i
	for i in $(seq 20); do
		cat /proc/kstackwatch 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
ksw_is() { local v; v=$(ksw_now) && [ "$v" = "$1" ]; }

real_kstackwatch_body() {
	local line=$1 fn=${1%%+*} off=${1#*+} n
	put $CONF/watch.d r.conf "[watch]\nfunction = $fn\nip_offset = $off\n"
	wait_for 5 ksw_is "$line" || fail "not programmed: '$(ksw_now)'" || return 1
	echo "programmed: $(ksw_now)"
	rm -f $CONF/watch.d/r.conf
	wait_for 5 ksw_is "" || fail "not disarmed: '$(ksw_now)'" || return 1
	echo "disarmed when the file went"
	put $CONF/watch.d r.conf "[watch]\nfunction = $fn\nip_offset = $off\n"
	wait_for 5 ksw_is "$line" || fail "not programmed again" || return 1
	# A reader holds the file (the kernel allows one opener) for 3 s while
	# the file goes: the daemon keeps serving (status answers), does not
	# claim a disarm that did not happen, and disarms once it may.
	n=$(grep -c '"type":"watch_disarmed"' "$EV")
	exec 3</proc/kstackwatch
	rm -f $CONF/watch.d/r.conf
	sleep 1
	timeout 5 kwatchctl status -r | grep -q '"type":"status"' || { exec 3<&-; fail "no status while a reader held the file"; return 1; }
	expect_eq "watch_disarmed events while still armed" "$(grep -c '"type":"watch_disarmed"' "$EV")" "$n" || { exec 3<&-; return 1; }
	sleep 2
	exec 3<&-
	wait_for 5 ksw_is "" || fail "not disarmed after a reader held the file: '$(ksw_now)'" || return 1
	wait_for 3 sh -c "[ \$(grep -c '\"type\":\"watch_disarmed\"' $EV) -gt $n ]" || fail "no watch_disarmed once disarmed" || return 1
	echo "disarmed after a reader held /proc/kstackwatch for 3 s (status served meanwhile)"
	put $CONF/watch.d r.conf "[watch]\nfunction = $fn\nip_offset = $off\n"
	wait_for 5 ksw_is "$line" || fail "not programmed a third time" || return 1
	put $CONF/watch.d r.conf '[watch]\nfunction = no_such_function_kwatch\nip_offset = 4\n'
	wait_for 5 grep -q config_error "$EV" || fail "no config_error for a function the kernel refuses" || return 1
	sleep 0.3
	events_of config_error | tail -n1
	events_of config_error | grep -q '"errno":2' || fail "the config error lacks the kernel's errno (ENOENT)" || return 1
	expect_eq "previous watch kept" "$(ksw_now)" "$line"
}

t_real_kstackwatch() {
	local line rc=0
	[ -e /proc/kstackwatch ] || { skip "/proc/kstackwatch absent: KStackWatch is not in this kernel"; return; }
	[ -r /proc/kstackwatch_test ] || { skip "no KStackWatch test module"; return; }
	line=$(awk '$1 == "test4" { print $2 }' /proc/kstackwatch_test)	# clean_frame+0x..
	rm -f $CONF/watch.d/*.conf
	sed -i "/^kstackwatch = /d" $CONF/kwatchd.conf
	systemctl restart kwatchd || fail "restart with the real /proc/kstackwatch" || return 1
	follow_start
	real_kstackwatch_body "$line" || rc=1
	follow_stop
	# Whatever happened, leave the daemon on the stand-in for the next tests.
	rm -f $CONF/watch.d/r.conf
	echo "kstackwatch = $KSW" >>$CONF/kwatchd.conf
	systemctl restart kwatchd || fail "restart with the stand-in again" || rc=1
	echo >/proc/kstackwatch 2>/dev/null
	return $rc
}

# A wprobe file: the daemon creates the real wprobe in tracefs, enables it
# in its instance, and each write to the watched variable of the wprobes
# test module becomes a wprobe_hit event naming the writing function.
t_wprobe_hits_on_socket() {
	local de=/sys/kernel/tracing/dynamic_events var=/sys/kernel/debug/kwatch_wprobe/var i
	has_wprobes ||
		{ skip "no w: dynamic events in the tracefs README: wprobes are not in this kernel"; return; }
	wprobe_target || return 1
	follow_start
	put $CONF/wprobe.d kwv.conf '[wprobe]\nname = kwv\naccess = w\nsymbol = kwt_var\nlength = 8\nfetch = value=$value:u64\n'
	wait_for 5 grep -q '^w:kwatchd/kwv w@kwt_var:8' $de ||
		{ follow_stop; fail "wprobe not created: $(cat $de) $(events_of config_error | tail -n1)"; return 1; }
	grep kwatchd/kwv $de
	for i in 1 2 3; do echo "write $((100 + i))" >$var; done
	wait_for 5 sh -c "[ \$(grep -c '\"type\":\"wprobe_hit\"' $EV) -ge 3 ]"
	sleep 0.3
	follow_stop
	events_of wprobe_hit
	expect_eq "wprobe_hit events" "$(events_of wprobe_hit | wc -l)" 3 || return 1
	expect_eq "hits naming kwt_write_var" "$(events_of wprobe_hit | grep '"wprobe":"kwv"' | grep -c 'kwt_write_var+0x')" 3 || return 1
	events_of wprobe_hit | grep -q '"args":"value=103"' || fail "the last hit lacks value=103" || return 1
	rm -f $CONF/wprobe.d/kwv.conf
	wait_for 5 sh -c "! grep -q kwatchd/kwv $de" || fail "wprobe not removed with its file"
}

# The kernel's hit-storm guard through the daemon: a wprobe file with
# max_rate = 200, then a 5000-write loop: one wprobe_storm event naming the
# wprobe and why, 200 hits before it; a change to the file re-arms it.
t_wprobe_storm_event() {
	local de=/sys/kernel/tracing/dynamic_events var=/sys/kernel/debug/kwatch_wprobe/var ev f
	[ -e /sys/kernel/tracing/events/wprobe/wprobe_storm ] ||
		{ skip "no hit-storm guard (wprobe:wprobe_storm) in this kernel"; return; }
	wprobe_target || return 1
	follow_start
	put $CONF/wprobe.d kws.conf '[wprobe]\nname = kws\naccess = w\nsymbol = kwt_var\nlength = 8\nmax_rate = 200\n'
	wait_for 5 grep -q '^w200:kwatchd/kws w@kwt_var:8' $de ||
		{ follow_stop; fail "wprobe not created: $(cat $de) $(events_of config_error | tail -n1)"; return 1; }
	echo "burst 5000" >$var
	wait_for 10 sh -c "grep -q '\"type\":\"wprobe_storm\"' $EV"
	sleep 1
	follow_stop
	ev=$(events_of wprobe_storm)
	echo "$ev"
	expect_eq "wprobe_storm events" "$(echo "$ev" | grep -c .)" 1 || return 1
	for f in '"wprobe":"kws"' '"group":"kwatchd"' '"reason":"hits"' '"count":201' '"limit":200' '"cpu":'; do
		echo "$ev" | grep -qF "$f" || fail "the wprobe_storm event lacks $f" || return 1
	done
	expect_eq "wprobe_hit events before the trip" "$(events_of wprobe_hit | grep -c '"wprobe":"kws"')" 200 || return 1
	journalctl -u kwatchd -b --no-pager | grep -q 'wprobe kwatchd/kws disarmed by the kernel' ||
		fail "no warning in the journal" || return 1

	follow_start
	put $CONF/wprobe.d kws.conf '[wprobe]\nname = kws\naccess = w\nsymbol = kwt_var\nlength = 8\nmax_rate = 100000\n'
	wait_for 5 grep -q '^w100000:kwatchd/kws w@kwt_var:8' $de ||
		{ follow_stop; fail "wprobe not re-created: $(cat $de)"; return 1; }
	echo "write 7" >$var
	wait_for 5 sh -c "grep -q '\"type\":\"wprobe_hit\"' $EV"
	follow_stop
	expect_eq "hits after the file changed" "$(events_of wprobe_hit | grep -c '"wprobe":"kws"')" 1 || return 1
	rm -f $CONF/wprobe.d/kws.conf
	wait_for 5 sh -c "! grep -q kwatchd/kws $de" || fail "wprobe not removed with its file"
}

# Hits the daemon's trace buffer had no room for: kwatchd stopped
# (SIGSTOP), the instance's buffer at its smallest, a burst of 8000 writes
# (under the guard's default max_rate); when kwatchd reads again, the
# kernel's "CPU:N [LOST K EVENTS]" line becomes a lost record (source
# trace_buffer, count K) and the hits after the gap still arrive.
t_wprobe_trace_buffer_lost() {
	local de=/sys/kernel/tracing/dynamic_events var=/sys/kernel/debug/kwatch_wprobe/var
	local bs=/sys/kernel/tracing/instances/kwatchd/buffer_size_kb old pid lost hits n
	has_wprobes ||
		{ skip "no w: dynamic events in the tracefs README: wprobes are not in this kernel"; return; }
	wprobe_target || return 1
	follow_start
	put $CONF/wprobe.d kwl.conf '[wprobe]\nname = kwl\naccess = w\nsymbol = kwt_var\nlength = 8\n'
	wait_for 5 grep -q '^w:kwatchd/kwl w@kwt_var:8' $de ||
		{ follow_stop; fail "wprobe not created: $(cat $de) $(events_of config_error | tail -n1)"; return 1; }
	old=$(cat $bs)
	echo 1 >$bs || { follow_stop; fail "cannot shrink $bs"; return 1; }
	pid=$(systemctl show -p MainPID --value kwatchd)
	kill -STOP "$pid"
	echo "burst 8000" >$var
	kill -CONT "$pid"
	wait_for 5 sh -c "grep -q '\"source\":\"trace_buffer\"' $EV"
	sleep 1
	follow_stop
	echo "$old" >$bs
	events_of lost
	lost=0
	for n in $(events_of lost | grep '"source":"trace_buffer"' | grep -o '"count":[0-9]*' |
		cut -d: -f2); do
		lost=$((lost + n))
	done
	hits=$(events_of wprobe_hit | grep -c '"wprobe":"kwl"')
	echo "hits $hits, lost $lost (of 8000)"
	[ "$lost" -ge 1 ] || fail "no lost record from the trace buffer" || return 1
	[ "$hits" -ge 1 ] || fail "no hits after the gap" || return 1
	[ $((hits + lost)) -le 8000 ] || fail "hits and losses exceed the writes" || return 1
	journalctl -u kwatchd -b --no-pager | grep -q 'trace_pipe: [0-9]* events lost on CPU' ||
		fail "no warning in the journal" || return 1
	rm -f $CONF/wprobe.d/kwl.conf
	wait_for 5 sh -c "! grep -q kwatchd/kwl $de" || fail "wprobe not removed with its file"
}

# A task's comm is its own to choose: comms that read like a trace line's
# fields ("a [001] b", "x-1 [000] y": a copy of sh by that name) still have
# their hits, with their own comm and pid.
t_wprobe_hostile_comm() {
	local de=/sys/kernel/tracing/dynamic_events var=/sys/kernel/debug/kwatch_wprobe/var comm pid
	has_wprobes ||
		{ skip "no w: dynamic events in the tracefs README: wprobes are not in this kernel"; return; }
	wprobe_target || return 1
	follow_start
	put $CONF/wprobe.d kwc.conf '[wprobe]\nname = kwc\naccess = w\nsymbol = kwt_var\nlength = 8\n'
	wait_for 5 grep -q '^w:kwatchd/kwc w@kwt_var:8' $de ||
		{ follow_stop; fail "wprobe not created: $(cat $de) $(events_of config_error | tail -n1)"; return 1; }
	for comm in 'a [001] b' 'x-1 [000] y'; do
		cp /bin/sh "$ST/$comm" || { follow_stop; fail "copy /bin/sh"; return 1; }
		"$ST/$comm" -c "echo 'write 9' >$var" &
		pid=$!
		wait "$pid"
		rm -f "$ST/$comm"
		wait_for 5 sh -c "grep -qF '\"comm\":\"$comm\",\"pid\":$pid,' $EV" ||
			{ follow_stop; rm -f $CONF/wprobe.d/kwc.conf
			  fail "no hit of comm '$comm' pid $pid: $(events_of wprobe_hit | tail -n2)"; return 1; }
	done
	follow_stop
	events_of wprobe_hit | grep '"wprobe":"kwc"'
	rm -f $CONF/wprobe.d/kwc.conf
	expect_eq "hits of kwc" "$(events_of wprobe_hit | grep -c '"wprobe":"kwc"')" 2 || return 1
	# The comm fetched at the hit is not one of the user's args.
	expect_eq "hits with kwatchd_comm in args" "$(events_of wprobe_hit | grep -c 'kwatchd_comm')" 0 || return 1
	wait_for 5 sh -c "! grep -q kwatchd/kwc $de" || fail "wprobe not removed with its file"
}

# kill -9 while a wprobe is configured: the wprobe (enabled in the
# daemon's instance) outlives the daemon.  The restarted daemon removes
# it and its instance first, so the file applies again (no EEXIST
# config_error), one kwatchd/kst is left, and its hits arrive.
t_kill9_leaves_no_stale_wprobe() {
	local de=/sys/kernel/tracing/dynamic_events var=/sys/kernel/debug/kwatch_wprobe/var pid
	has_wprobes ||
		{ skip "no w: dynamic events in this kernel"; return; }
	wprobe_target || return 1
	put $CONF/wprobe.d kst.conf '[wprobe]\nname = kst\naccess = w\nsymbol = kwt_var\nlength = 8\n'
	wait_for 5 grep -q '^w:kwatchd/kst ' $de || fail "wprobe not created: $(cat $de)" || return 1
	pid=$(systemctl show -p MainPID --value kwatchd)
	kill -9 "$pid"
	wait_for 15 sh -c "systemctl is-active -q kwatchd && [ \$(systemctl show -p MainPID --value kwatchd) != $pid ]" ||
		fail "kwatchd not restarted after kill -9" || return 1
	wait_for 5 sh -c "kwatchctl status -r | grep -q 'kst.conf\",\"state\":\"applied\"'" ||
		{ fail "kst not applied after the restart: $(kwatchctl status -r | head -c 600)"; return 1; }
	echo "write 9" >$var
	# From the daemon's backlog: the client sees the hit wherever it is.
	wait_for 5 sh -c "kwatchctl follow -b -r -t wprobe_hit -n 1 -i 2 2>/dev/null | grep -q '\"wprobe\":\"kst\"'" ||
		fail "no wprobe_hit for kst after the restart" || return 1
	grep kwatchd/kst $de
	expect_eq "kwatchd/kst definitions" "$(grep -c '^w:kwatchd/kst ' $de)" 1 || return 1
	journalctl -u kwatchd -b --no-pager | grep 'left by a previous kwatchd'
	journalctl -u kwatchd -b --no-pager | grep -q 'removed wprobe kwatchd/kst, left by a previous kwatchd' ||
		fail "no journal line for the stale wprobe" || return 1
	rm -f $CONF/wprobe.d/kst.conf
	wait_for 5 sh -c "! grep -q kwatchd/kst $de" || fail "wprobe not removed with its file"
}

t_spool_replays_each_blob_once() {
	local i n=20 done
	: >$ST/input.log
	follow_start
	for i in $(seq -w 1 $n); do put $SPOOL blob$i "blob-$i\n"; done
	wait_for 10 sh -c "[ \$(ls $SPOOL/done | wc -l) -ge $n ]" || { follow_stop; fail "only $(ls $SPOOL/done | wc -l) of $n done"; return 1; }
	sleep 0.3
	follow_stop
	done=$(ls $SPOOL/done | wc -l)
	expect_eq "blobs in done/" "$done" $n || return 1
	expect_eq "blobs written to input (each once)" "$(sort $ST/input.log | uniq | wc -l) $(wc -l <$ST/input.log)" "$n $n" || return 1
	expect_eq "fuzz_exec events" "$(events_of fuzz_exec | wc -l)" $n || return 1
	# A blob for a target without an input file is rejected with its errno.
	mkdir -p $ST/kfuzztest/gone
	printf '[fuzz]\ntarget = gone\n' >$CONF/fuzz.d/gone.conf
	sleep 1
	put /var/lib/kwatchd/spool/gone b 'x'
	wait_for 5 test -e /var/lib/kwatchd/spool/gone/rejected/b.errno || fail "not rejected" || return 1
	echo "rejected: $(cat /var/lib/kwatchd/spool/gone/rejected/b.errno)"
	rm -f $CONF/fuzz.d/gone.conf
}

# fuzz_config_error NAME TEXT: drop fuzz.d/NAME.conf, wait for its
# config_error, take the file away again; prints the config_error events
# naming it.
fuzz_config_error() {
	follow_start
	put $CONF/fuzz.d "$1.conf" "$2"
	wait_for 5 sh -c "grep -q '\"type\":\"config_error\".*$1.conf' $EV" || true
	follow_stop
	rm -f "$CONF/fuzz.d/$1.conf"
	events_of config_error | grep "$1.conf"
}

# A spool inside the daemon's own directories would eat what is kept
# there: spool = the configuration's watch.d is a config_error, and the
# shipped example file there stays where it is.
t_spool_inside_config_refused() {
	local ex=$CONF/watch.d/example.conf.disabled out
	[ -e $ex ] || cp /opt/kwatch/etc/kwatchd/watch.d/example.conf.disabled $ex 2>/dev/null || : >$ex
	out=$(fuzz_config_error inconf "[fuzz]\ntarget = inconf\nspool = $CONF/watch.d\n")
	echo "$out"
	echo "$out" | grep -q 'inside the configuration directory' ||
		fail "no config_error saying the spool is inside the configuration" || return 1
	[ -e $ex ] || fail "the example file in watch.d was consumed" || return 1
	[ ! -e $CONF/watch.d/done ] || fail "spool directories made in watch.d" || return 1
}

# The producer protocol (lib/spool.h): a blob renamed in from tmp/ is
# replayed; one written in the spool itself is refused at once, even while
# a renamed blob makes the daemon scan; entries that are no blob (a
# directory, a FIFO, a symlink) are refused with their reason.
t_spool_written_in_place_refused() {
	local w e
	[ -d $SPOOL/tmp ] || fail "no tmp/ in the spool" || return 1
	: >$ST/input.log
	follow_start
	( printf 'half-'; sleep 3; printf 'whole\n' ) >$SPOOL/inplace &
	w=$!
	sleep 0.5
	printf 'renamed-blob\n' >$SPOOL/tmp/renamed && mv $SPOOL/tmp/renamed $SPOOL/renamed
	mkdir $SPOOL/adir
	mkfifo $SPOOL/afifo
	ln -s /etc/passwd $SPOOL/alink
	wait_for 10 test -e $SPOOL/done/renamed || { follow_stop; fail "renamed blob not replayed"; return 1; }
	wait $w
	sleep 0.5
	follow_stop
	echo "input got: $(tr '\n' ' ' <$ST/input.log)"
	grep -qx renamed-blob $ST/input.log || fail "renamed blob not written" || return 1
	! grep -q half $ST/input.log || fail "a half-written blob was replayed" || return 1
	[ -e $SPOOL/rejected/inplace ] || fail "inplace not in rejected/" || return 1
	echo "rejected/inplace.errno: $(cat $SPOOL/rejected/inplace.errno)"
	grep -q 'written in place' $SPOOL/rejected/inplace.errno || fail "errno file does not say why" || return 1
	for e in inplace:"written in place" adir:directory afifo:FIFO alink:"symbolic link"; do
		events_of fuzz_rejected | grep "\"blob\":\"${e%%:*}\"" | grep -q "${e#*:}" ||
			fail "no fuzz_rejected for ${e%%:*} saying ${e#*:}" || return 1
		[ -e $SPOOL/rejected/${e%%:*} ] || [ -L $SPOOL/rejected/${e%%:*} ] ||
			fail "${e%%:*} not moved to rejected/" || return 1
	done
	journalctl -u kwatchd -n 30 --no-pager | grep -q 'inplace is written in place' ||
		fail "no journal line for the blob written in place"
}

# A spool that someone else owns is theirs to fill: it is refused with the
# owner named, and the daemon makes nothing in it.
t_spool_not_ours_refused() {
	local sp=/var/lib/kwatchd/spool/notours out
	mkdir -p $sp && chown 65534:65534 $sp
	out=$(fuzz_config_error notours "[fuzz]\ntarget = notours\nspool = $sp\n")
	echo "$out"
	echo "$out" | grep -q 'owned by uid 65534' ||
		fail "no config_error naming the spool's owner" || return 1
	[ ! -e $sp/done ] && [ ! -e $sp/tmp ] || fail "directories made in a spool that is not ours" || return 1
	rm -rf $sp
}

# A spool on a full file system: a blob whose result cannot be recorded
# (its rejected/NAME.errno) pauses the replay with one fuzz_stalled event;
# the daemon keeps answering, and once there is room the result is
# recorded and reported, with fuzz_resumed, and nothing is left in flight.
t_spool_on_a_full_disk() {
	local sp=/var/lib/kwatchd/spool/full
	mkdir -p $sp && mount -t tmpfs -o size=256k,mode=0700 kwfull $sp || fail "mount a tmpfs" || return 1
	# A new mount namespace for the service, with the tmpfs in it.
	systemctl restart kwatchd || { umount $sp; fail "restart"; return 1; }
	follow_start
	put $CONF/fuzz.d full.conf "[fuzz]\ntarget = fullt\nspool = $sp\n"
	wait_for 5 test -d $sp/tmp || { follow_stop; umount $sp; fail "spool not started"; return 1; }
	printf 'blob-on-a-full-disk\n' >$sp/tmp/b1
	dd if=/dev/zero of=$sp/tmp/filler bs=4k 2>/dev/null
	df -k $sp | tail -n1
	mv $sp/tmp/b1 $sp/b1
	wait_for 10 sh -c "grep -q '\"type\":\"fuzz_stalled\"' $EV" ||
		{ follow_stop; umount $sp; fail "no fuzz_stalled event"; return 1; }
	events_of fuzz_stalled
	expect_eq "kwatchd on a full spool" "$(kwatchd_state)" active || { follow_stop; umount $sp; return 1; }
	kwatchctl status -r | grep -q '"stalled":true' || { follow_stop; umount $sp; fail "status does not say stalled"; return 1; }
	! events_of fuzz_rejected | grep -q '"blob":"b1"' || { follow_stop; umount $sp; fail "b1 reported before its result was recorded"; return 1; }
	rm -f $sp/tmp/filler
	wait_for 10 sh -c "grep -q '\"type\":\"fuzz_rejected\".*\"blob\":\"b1\"' $EV" ||
		{ follow_stop; umount $sp; fail "no fuzz_rejected for b1 once there was room"; return 1; }
	wait_for 5 sh -c "grep -q '\"type\":\"fuzz_resumed\"' $EV"
	follow_stop
	echo "rejected/b1.errno: $(cat $sp/rejected/b1.errno 2>&1)"
	grep -q '^2 ' $sp/rejected/b1.errno || { umount $sp; fail "b1's record not written"; return 1; }
	[ ! -e $sp/inflight/b1 ] || { umount $sp; fail "b1 left in flight"; return 1; }
	events_of fuzz_resumed | grep -q . || { umount $sp; fail "no fuzz_resumed"; return 1; }
	rm -f $CONF/fuzz.d/full.conf
	sleep 1
	umount $sp && rmdir $sp
}

# kill -9 the daemon (blocked in the stand-in's open, its reader
# stopped), start the reader again, and wait for systemd's restart.
kill9_daemon() {
	local pid
	pid=$(systemctl show -p MainPID --value kwatchd)
	kill -9 "$pid"
	exec 3<>$FIFO
	nohup sh -c "exec cat $FIFO >>$ST/input.log" >/dev/null 2>&1 3<>$FIFO &
	echo $! >$ST/reader.pid
	wait_for 15 sh -c "systemctl is-active -q kwatchd && [ \$(systemctl show -p MainPID --value kwatchd) != $pid ]" ||
		fail "kwatchd not restarted after kill -9"
}

t_kill9_during_replay_loses_nothing() {
	local before after
	before=$(ls $SPOOL/done | wc -l)
	# Stop the reader: the next write blocks in open(), as a kernel target
	# that hangs would, so the blob stays in flight.
	kill "$(cat $ST/reader.pid)"; exec 3>&-
	put $SPOOL stuck 'stuck\n'
	wait_for 5 test -e $SPOOL/inflight/stuck || fail "blob never in flight" || return 1
	put $SPOOL after1 'after1\n'
	kill9_daemon || return 1
	wait_for 10 test -e $SPOOL/done/after1 || fail "blob queued at the kill not replayed" || return 1
	[ -e $SPOOL/interrupted/stuck ] || fail "in-flight blob not set aside in interrupted/" || return 1
	[ -z "$(ls $SPOOL/inflight)" ] || fail "inflight/ not empty" || return 1
	[ ! -e $SPOOL/done/stuck ] || fail "in-flight blob replayed" || return 1
	after=$(ls $SPOOL/done | wc -l)
	expect_eq "done: one more (after1)" $((after - before)) 1 || return 1
	journalctl -u kwatchd --no-pager | grep 'was in flight' | tail -n1
	journalctl -u kwatchd --no-pager | grep -q 'blob stuck was in flight' || fail "interruption not reported" || return 1
	# The event was sent before any client could connect: the backlog has it.
	kwatchctl follow -b -r -t fuzz_interrupted -n 1 -i 5 >/tmp/interrupted.ndjson
	cat /tmp/interrupted.ndjson
	grep -q '"type":"fuzz_interrupted".*"blob":"stuck"' /tmp/interrupted.ndjson ||
		fail "no fuzz_interrupted event for stuck in the backlog" || return 1
	status_field interrupted | grep -q ':1' || { kwatchctl status; fail "status does not count the interrupted blob"; }
}

# A pack (many blobs in one file) whose first blob the daemon is killed
# in: after the restart that blob is set aside as interrupted/PACK#0, the
# pack goes on after it, each other blob is written once, and the pack's
# verdicts are in done/PACK.results.
t_kill9_during_pack_loses_nothing() {
	: >$ST/input.log
	kill "$(cat $ST/reader.pid)"; exec 3>&-
	pack $SPOOL k.kwpack 'pk-0\n' 'pk-1\n' 'pk-2\n' 'pk-3\n'
	wait_for 5 test -e $SPOOL/inflight/k.kwpack || fail "pack never in flight" || return 1
	# Its first blob's start recorded, the daemon blocks in the open.
	sleep 1
	kill9_daemon || return 1
	wait_for 10 test -e $SPOOL/done/k.kwpack.results || fail "the pack did not finish" || return 1
	cat $SPOOL/done/k.kwpack.results
	expect_eq "the pack's verdicts" "$(cat $SPOOL/done/k.kwpack.results | xargs)" \
		"0 5 interrupted 1 5 0 2 5 0 3 5 0" || return 1
	expect_eq "the blob in flight, set aside" "$(cat "$SPOOL/interrupted/k.kwpack#0")" pk-0 || return 1
	sleep 0.5
	expect_eq "the others written, each once" "$(sort $ST/input.log | xargs)" "pk-1 pk-2 pk-3" || return 1
	[ -z "$(ls $SPOOL/inflight)" ] || fail "inflight/ not empty: $(ls $SPOOL/inflight)" || return 1
	kwatchctl follow -b -r -t fuzz_interrupted -i 3 >/tmp/pack-int.ndjson
	grep -q '"blob":"k.kwpack#0","index":0' /tmp/pack-int.ndjson ||
		{ cat /tmp/pack-int.ndjson; fail "no fuzz_interrupted event for k.kwpack#0"; return 1; }
	kwatchctl follow -b -r -t fuzz_exec -i 3 >/tmp/pack-exec.ndjson
	expect_eq "fuzz_exec events of the pack" "$(grep -c '"blob":"k.kwpack#[123]"' /tmp/pack-exec.ndjson)" 3
}

t_stalled_client_gets_lost_record() {
	# 3000 synthetic events at 300/s; one client reads all the time, the
	# other is stopped (SIGSTOP) until all of them are out (queue_events =
	# 256 in the test config).  A stall of a fixed time overflowed nothing
	# when a loaded guest made the events slower than the stall.
	local n=3000 s f c
	kwatchctl follow -r -i 4 -S >/dev/null 2>$ST/stalled.sum &
	s=$!
	kwatchctl follow -r -t bench -n $n -i 20 -S >/dev/null 2>$ST/fast.sum &
	f=$!
	# Both connected (the status query is a third client).
	wait_for 10 sh -c '[ "$(kwatchctl status -r | head -n1 | grep -o "\"clients\":[0-9]*" | cut -d: -f2)" -ge 3 ]' ||
		{ kill $s $f; fail "the two clients did not connect: $(status_field clients)"; return 1; }
	kill -STOP $s
	kwatchctl bench $n 300
	wait $f
	c=$(status_field clients)
	kill -CONT $s
	wait $s
	echo "while stalled: $c"
	echo "reading: $(cat $ST/fast.sum)"
	echo "stalled: $(cat $ST/stalled.sum)"
	grep -q "matched=$n lost_records=0 lost_events=0 gaps=0" $ST/fast.sum || fail "the reading client lost events" || return 1
	grep -Eq 'lost_records=[1-9]' $ST/stalled.sum || fail "the stalled client got no lost record" || return 1
	grep -q 'gaps=0' $ST/stalled.sum || fail "the stalled client saw a gap no lost record covers"
}

b_events_per_second() {
	# Unpaced: as fast as the daemon's loop goes; drops are counted, not failures.
	local n=5000 k i t
	for k in 1 4; do
		for i in $(seq $k); do
			kwatchctl follow -r -t bench -n $n -i 15 -S >/dev/null 2>$ST/c$i.sum &
		done
		sleep 0.5
		kwatchctl bench $n
		wait
		for i in $(seq $k); do
			t=$(sed -n 's/.*seconds=\([0-9.]*\).*/\1/p' $ST/c$i.sum)
			echo "clients=$k client=$i $(cat $ST/c$i.sum) received_per_s=$(awk -v n=$n -v t="$t" 'BEGIN { r = 0; if (t > 0) r = n / t; printf("%d", r) }')"
		done
	done
	status_field dropped
}

b_blobs_per_second_daemon_vs_shell() {
	# The same 200 blobs, written to the same FIFO stand-in: by the daemon
	# (claim, write, move, with the fsyncs) and by a shell loop.  The blobs
	# are placed while the target is off; the clock runs from turning it on.
	local n=200 i t0 t1 t2 d
	mkdir -p $ST/blobs; rm -f $ST/blobs/*
	for i in $(seq -w 1 $n); do head -c 256 /dev/urandom >$ST/blobs/r$i; done
	printf '[fuzz]\ntarget = tgt\nenabled = no\n' >$CONF/fuzz.d/.tgt.tmp && mv $CONF/fuzz.d/.tgt.tmp $CONF/fuzz.d/tgt.conf
	sleep 1.5
	d=$(ls $SPOOL/done | wc -l)
	cp $ST/blobs/r* $SPOOL/
	t0=$(date +%s%N)
	printf '[fuzz]\ntarget = tgt\n' >$CONF/fuzz.d/.tgt.tmp && mv $CONF/fuzz.d/.tgt.tmp $CONF/fuzz.d/tgt.conf
	wait_for 120 sh -c "[ \$(ls $SPOOL/done | wc -l) -ge $((d + n)) ]" || fail "daemon did not finish" || return 1
	t1=$(date +%s%N)
	for i in $(seq -w 1 $n); do cat $ST/blobs/r$i >$FIFO; done
	t2=$(date +%s%N)
	echo "daemon:     $n blobs in $(((t1 - t0) / 1000000)) ms (incl. the 150 ms quiet period) = $(awk -v n=$n -v ns=$((t1 - t0)) 'BEGIN{printf "%.1f", n / (ns / 1e9)}') blobs/s"
	echo "shell loop: $n blobs in $(((t2 - t1) / 1000000)) ms = $(awk -v n=$n -v ns=$((t2 - t1)) 'BEGIN{printf "%.1f", n / (ns / 1e9)}') blobs/s"
	echo "ratio daemon/shell: $(awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) 'BEGIN{printf "%.2f", b / a}')"
}

# A directory of 5000 drop-ins put in place at once (watch.d renamed
# over): the first 1024 by name are read, one config_error names the
# rest, the one enabled watch among them is armed; the time to arm and
# the daemon's peak memory are printed.
t_five_thousand_dropins() {
	local stage=$CONF/.watch.d.new i t0 t1 hwm0 hwm1 pid
	rm -rf "$stage" && mkdir -p "$stage"
	for i in $(seq -w 0 4999); do
		if [ "$i" = 0500 ]; then
			printf '[watch]\nfunction = canary_test_overflow\nip_offset = 0x1a\n' >"$stage/w$i.conf"
		else
			printf '[watch]\nfunction = f%s\nenabled = no\n' "$i" >"$stage/w$i.conf"
		fi
	done
	pid=$(systemctl show -p MainPID --value kwatchd)
	hwm0=$(sed -n 's/^VmHWM:[[:space:]]*//p' /proc/"$pid"/status)
	follow_start
	mv $CONF/watch.d $CONF/.watch.d.old && mv "$stage" $CONF/watch.d
	t0=$(date +%s%N)
	wait_for 60 grep -qx 'canary_test_overflow+0x1a' $KSW || { follow_stop; fail "w0500 not armed: '$(cat $KSW)'"; }
	t1=$(date +%s%N)
	sleep 1
	follow_stop
	hwm1=$(sed -n 's/^VmHWM:[[:space:]]*//p' /proc/"$pid"/status)
	rm -rf $CONF/watch.d && mv $CONF/.watch.d.old $CONF/watch.d
	echo "5000 drop-ins: armed $(( (t1 - t0) / 1000000 )) ms after the rename; peak RSS $hwm0 -> $hwm1"
	# The set before put back in force (w0500's watch gone) before the
	# next test, which arms the same line: the 1024 copies of the set in
	# force are saved, and then removed, in slices of the loop's turns.
	t0=$(date +%s%N)
	wait_for 60 sh -c "! grep -qx 'canary_test_overflow+0x1a' $KSW" ||
		fail "w0500's watch still armed 60 s after watch.d was put back" || return 1
	echo "the set before back in force $(( ($(date +%s%N) - t0) / 1000000 )) ms after watch.d was put back"
	kwatchctl status -r | head -n1 | grep -o '"loop":{[^}]*}[^}]*}'
	expect_eq "same daemon" "$(systemctl show -p MainPID --value kwatchd)" "$pid" ||
		{ journalctl -u kwatchd -b --no-pager | tail -n 25; return 1; }
	# Each config_error's file and reason (a failure says which were more).
	events_of config_error | grep -o '"file":"[^"]*"\|"reason":"[^"]\{0,120\}' | paste - - | head -n 5
	events_of config_error | grep -q '5000 files in watch.d' || fail "no config_error naming the files left out" || return 1
	# One for the files of watch.d, not one a file (an error of another
	# directory's file, left by an earlier test, is not this test's).
	expect_eq "config_error events of watch.d" \
		"$(events_of config_error | grep -c '"file":"[^"]*/watch\.d/')" 1
}

t_reload_and_restart_keep_state() {
	# Start from a valid watch file (a broken one's last good version is
	# kept too: malformed_file_keeps_previous_watch).
	local line='canary_test_overflow+0x1a'
	put $CONF/watch.d m.conf '[watch]\nfunction = canary_test_overflow\nip_offset = 0x1a\n'
	wait_for 3 grep -qx "$line" $KSW || fail "watch not armed before reload" || return 1
	follow_start
	systemctl reload kwatchd || { follow_stop; fail "systemctl reload"; return 1; }
	sleep 1
	follow_stop
	events_of daemon_reload | grep -q SIGHUP || fail "no daemon_reload event" || return 1
	! events_of watch_disarmed | grep -q . || fail "reload disarmed the watch" || return 1
	expect_eq "watch after reload" "$(cat $KSW)" "$line" || return 1
	expect_eq "active after reload" "$(systemctl show -p ActiveState --value kwatchd)" active || return 1
	systemctl restart kwatchd || fail "systemctl restart" || return 1
	wait_for 5 grep -qx "$line" $KSW || fail "watch not re-armed after restart" || return 1
	expect_eq "watch after restart" "$(cat $KSW)" "$line" || return 1
	[ -S /run/kwatchd/events.sock ] || fail "socket gone after restart" || return 1
	status_field watch_file
	status_field watch_file | grep -q m.conf || fail "status lost the watch"
}

# kwatchd.conf is read again on a change: stream settings apply now, the
# others are announced for the next restart, a bad line changes nothing.
t_settings_live() {
	local conf=$CONF/kwatchd.conf n
	cp $conf /tmp/kwatchd.conf.live
	follow_start
	printf '[capture]\nringbuf_kib = 64\n' >>$conf
	wait_for 3 grep -q '"type":"settings_pending"' "$EV" || { follow_stop; fail "no settings_pending"; return 1; }
	printf 'garbage\n' >>$conf
	n=$(wc -l <$conf)
	wait_for 3 grep -q '"file":"/etc/kwatchd/kwatchd.conf"' "$EV" || { follow_stop; fail "no config_error for kwatchd.conf"; return 1; }
	cp /tmp/kwatchd.conf.live $conf
	sleep 0.5
	follow_stop
	events_of settings_pending
	events_of settings_pending | grep -q '"settings":"ringbuf_kib"' || fail "pending setting not named" || return 1
	events_of config_error | grep '"file":"/etc/kwatchd/kwatchd.conf"' | grep -q "\"line\":$n" ||
		fail "config_error lacks line $n" || return 1
	expect_eq "kwatchd" "$(kwatchd_state)" active
}

# Events go to the journal as structured entries: a config_error is found
# by its MESSAGE_ID and KWATCH_FILE, with its line, seq and id as on the
# socket; bench events are not journaled by default; journal = none stops
# them, live.
t_events_in_the_journal() {
	local conf=$CONF/kwatchd.conf j ev seq id since
	local ERR_ID=9ff4fb2201c430223a206230e5f1894b BENCH_ID=f3219c624f910e42d678ed117bb9c84d
	since=$(date '+%Y-%m-%d %H:%M:%S')
	follow_start
	put $CONF/watch.d j.conf '[watch]\nfunction = silent_corruption_victim\nlocal = 0:3\n'
	wait_for 3 grep -q 'watch.d/j.conf' "$EV" || { follow_stop; fail "no config_error for j.conf"; return 1; }
	kwatchctl bench 20 >/dev/null
	sleep 1
	follow_stop
	ev=$(events_of config_error | grep 'watch.d/j.conf' | head -n1)
	seq=$(echo "$ev" | sed -n 's/.*"seq":\([0-9]*\),.*/\1/p')
	id=$(echo "$ev" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')
	wait_for 5 sh -c "journalctl -u kwatchd --since '$since' -o json MESSAGE_ID=$ERR_ID KWATCH_FILE=$CONF/watch.d/j.conf | grep -q ."
	j=$(journalctl -u kwatchd --since "$since" -o json MESSAGE_ID=$ERR_ID KWATCH_FILE=$CONF/watch.d/j.conf | head -n1)
	echo "$j" | grep -o '"\(MESSAGE\|PRIORITY\|KWATCH_[A-Z_]*\)":"[^"]*"' | cut -c1-160
	[ -n "$j" ] || fail "no journal entry with MESSAGE_ID=$ERR_ID for j.conf" || return 1
	echo "$j" | grep -q '"KWATCH_LINE":"3"' || fail "no KWATCH_LINE=3" || return 1
	echo "$j" | grep -q '"PRIORITY":"4"' || fail "not a warning" || return 1
	echo "$j" | grep -q "\"KWATCH_SEQ\":\"$seq\"" || fail "KWATCH_SEQ is not the socket's seq $seq" || return 1
	echo "$j" | grep -q "\"KWATCH_ID\":\"$id\"" || fail "KWATCH_ID is not the socket's id $id" || return 1
	expect_eq "bench events in the journal" "$(journalctl -u kwatchd --since "$since" -o json MESSAGE_ID=$BENCH_ID | wc -l)" 0 || return 1
	# journal = none: the next error is on the socket only.
	cp $conf /tmp/kwatchd.conf.journal
	sed -i 's/^\[daemon\]$/[daemon]\njournal = none/' $conf
	sleep 1
	since=$(date '+%Y-%m-%d %H:%M:%S')
	follow_start
	put $CONF/watch.d j.conf '[watch]\nfunction = silent_corruption_victim\nlocal = 0:5\n'
	wait_for 3 grep -q 'watch.d/j.conf' "$EV" || { follow_stop; fail "no config_error for j.conf"; return 1; }
	follow_stop
	sleep 1
	expect_eq "config_error entries with journal = none" "$(journalctl -u kwatchd --since "$since" -o json MESSAGE_ID=$ERR_ID | wc -l)" 0
	rm -f $CONF/watch.d/j.conf
	cp /tmp/kwatchd.conf.journal $conf
}

# Reading is the socket group's right, commanding root's (SO_PEERCRED):
# a member of the group kwatch may follow and ask for status, not reload
# or bench; and however many reloads root sends, they cost at most one a
# second.
t_commands_need_root() {
	local gid out rc i n c t0 secs
	gid=$(getent group kwatch | cut -d: -f3)
	[ -n "$gid" ] || fail "no group kwatch" || return 1
	follow_start
	setpriv --reuid=65534 --regid=65534 --groups="$gid" -- kwatchctl status -r >/tmp/reader-status 2>&1
	grep -q '"type":"status"' /tmp/reader-status || { follow_stop; fail "a kwatch member cannot read status: $(cat /tmp/reader-status)"; return 1; }
	for c in reload "bench 600"; do
		# shellcheck disable=SC2086
		out=$(setpriv --reuid=65534 --regid=65534 --groups="$gid" -- kwatchctl $c 2>&1); rc=$?
		echo "a reader's '$c': rc=$rc: $out"
		[ $rc -ne 0 ] || { follow_stop; fail "a reader's '$c' succeeded"; return 1; }
		echo "$out" | grep -q "only root" || { follow_stop; fail "refusal does not say why"; return 1; }
	done
	t0=$(date +%s)
	for i in $(seq 20); do
		kwatchctl reload 2>/dev/null || { follow_stop; fail "root's reload $i refused"; return 1; }
	done
	secs=$(( $(date +%s) - t0 + 1 ))
	sleep 1.5
	follow_stop
	! events_of bench | grep -q . || fail "a reader's bench ran" || return 1
	n=$(events_of daemon_reload | grep -c '"reason":"command"')
	echo "daemon_reload events for 20 reloads from root in ${secs}s (2 refused from a reader): $n"
	# At most one a second, plus the one queued at the end.
	[ "$n" -ge 1 ] && [ "$n" -le $((secs + 1)) ] && [ "$n" -lt 20 ] ||
		fail "reloads not bounded: $n in ${secs}s" || return 1
	journalctl -u kwatchd -n 50 --no-pager | grep -q 'reload refused: not root' ||
		fail "no journal line for the refused reload"
}

# The records that answer one client (status, a reply, a refusal) never
# reach the pushed stream: printed here as "kwatch-event: ..." for the
# host's schema check (scripts/vm.sh schema_check), with their envelope.
t_per_client_records_sampled() {
	local gid st ok no r
	gid=$(getent group kwatch | cut -d: -f3)
	st=$(kwatchctl status -r | head -n1)
	ok=$(kwatchctl reload -r 2>/dev/null | head -n1)
	no=$(setpriv --reuid=65534 --regid=65534 --groups="$gid" -- kwatchctl reload -r 2>/dev/null | head -n1)
	for r in "$st" "$ok" "$no"; do
		echo "kwatch-event: $r"
		echo "$r" | grep -q '^{"schema":1,"start_id":"[^"]*","seq":[0-9]*,"id":"[^"]*-[0-9]*\.[0-9]*"' ||
			fail "not a per-client record of schema 1" || return 1
	done
	echo "$ok" | grep -q '"type":"reply","command":"reload","ok":true' || fail "root's reload" || return 1
	echo "$no" | grep -q '"ok":false,"errno":1,"error":"EPERM"' || fail "a reader's reload"
}

# kwatchd.socket holds the listening socket: a client that connects while
# the daemon is stopped starts it and is served, and a restart keeps the
# socket (same inode).  The unit's hardening is in force: no capability
# beyond the four it needs, the network namespace its own.
t_socket_activation_and_unit_limits() {
	local ino st bnd
	expect_eq "kwatchd.socket" "$(systemctl is-active kwatchd.socket)" active || return 1
	ino=$(stat -c %i /run/kwatchd/events.sock)
	systemctl stop kwatchd || fail "stop" || return 1
	# The first connection starts it; a start slower than kwatchctl's 10 s
	# wait for the answer (BPF loading under TCG) is asked again.
	wait_for 60 sh -c 'timeout 30 kwatchctl status -r | head -n1 >/tmp/activated-status; grep -q "\"type\":\"status\"" /tmp/activated-status'
	st=$(cat /tmp/activated-status)
	echo "status from a stopped daemon: ${st:0:120}"
	echo "$st" | grep -q '"type":"status"' || fail "connecting did not start the daemon" || return 1
	expect_eq "kwatchd after activation" "$(kwatchd_state)" active || return 1
	systemctl restart kwatchd || fail "restart" || return 1
	expect_eq "socket inode across restarts" "$(stat -c %i /run/kwatchd/events.sock)" "$ino" || return 1
	bnd=$(sed -n 's/^CapBnd:\t*//p' /proc/"$(systemctl show -p MainPID --value kwatchd)"/status)
	echo "CapBnd: $bnd"
	# CAP_SYS_ADMIN (21), CAP_SYSLOG (34), CAP_PERFMON (38), CAP_BPF (39)
	expect_eq "capability bounding set" "$bnd" 000000c400200000 || return 1
	[ "$(readlink /proc/1/ns/net)" != "$(readlink /proc/"$(systemctl show -p MainPID --value kwatchd)"/ns/net)" ] ||
		fail "kwatchd shares the host's network namespace"
}

# Whatever a failed test left: no drop-in of this suite outlives it, so no
# kwatchd/ wprobe holds a debug register (or dynamic_events) for the next.
t_zz_restore() {
	rm -f $CONF/watch.d/*.conf $CONF/wprobe.d/*.conf $CONF/fuzz.d/tgt.conf
	cp $ST/kwatchd.conf.orig $CONF/kwatchd.conf
	kill "$(cat $ST/reader.pid)" 2>/dev/null
	systemctl restart kwatchd
	expect_eq "kwatchd restored" "$(kwatchd_state)" active || return 1
	wait_for 10 sh -c '! grep -q "^w[0-9]*:kwatchd/" /sys/kernel/tracing/dynamic_events' ||
		fail "kwatchd wprobes left: $(grep kwatchd/ /sys/kernel/tracing/dynamic_events)"
}

ktap_main
