#!/bin/bash
# Suite "collectors": kwatchd's stream into the log collectors test VMs
# already have, each from Debian and configured as config/collectors/
# says: syslog-ng (a unix-stream source kwatchd pushes to, json-parser)
# and rsyslog (imptcp on a unix socket, mmjsonparse).  For each: every seq
# kwatchd sent arrives, each line unchanged (byte for byte what a socket
# client of kwatchd got), the fields parse (seq, type, id; a crash's
# multi-line text whole), and the counts are printed against kwatchd's;
# and restarted mid-stream, the collector still gets every event, or a
# lost record for it (kwatchd sends again what it had not read).
#
# In detail: every event kwatchd sent in that start (400 bench events, a
# WARNING's crash and crash_repeat, the daemon's own) is in the collector's
# output byte for byte as kwatchd's socket client got it, every line parsed
# with its own seq, type and id, the crash's report parsed back into its
# lines; then each collector stopped and started again while 1500 bench
# events stream at 500 a second: every one arrives or is in a lost record
# that arrived (kwatchd writes again what the collector had not read, and
# what it read in the 2 s before it went: measured 1500 of 1500 for both,
# 264 and 350 arriving twice, in the run of 20261205-131251); counts
# printed.
. /opt/kwatch/tests/guest/ktap.sh

EV=/tmp/collectors-events.ndjson
CC=/opt/kwatch/collectors
RUN=/run/kwatchd-collectors
OUT=/var/log/kwatchd-collectors
MODDIR=/opt/kwatch/modules
PLAT=/sys/kernel/debug/kwatch_platform
RSYSLOGD=/opt/rsyslog/usr/sbin/rsyslogd
FOLLOW_SETTLE=0.5
. /opt/kwatch/tests/guest/kwatchd.sh
N=400	# bench events per collector

push_to() {
	cat >$CONF/kwatchd.conf <<CONF
[daemon]
push = $1
queue_events = 100000
queue_kib = 65536
CONF
	# A restart: a crash is new to the daemon again (crash_repeat after).
	systemctl restart kwatchd || return 1
	wait_for 10 test -S /run/kwatchd/events.sock
}

t_setup() {
	command -v syslog-ng >/dev/null || fail "no syslog-ng in the image" || return 1
	[ -x $RSYSLOGD ] || fail "no rsyslogd in the image" || return 1
	syslog-ng --version | head -n1
	$RSYSLOGD -v | head -n1
	[ -d $PLAT ] || insmod $MODDIR/kwatch_platform.ko || fail "insmod kwatch_platform" || return 1
	cp $CONF/kwatchd.conf /tmp/kwatchd.conf.collectors
	mkdir -p $RUN $OUT
}

start_syslog_ng() {
	syslog-ng -F -f $CC/syslog-ng.conf -R $RUN/syslog-ng.persist -p $RUN/syslog-ng.pid \
		-c $RUN/syslog-ng.ctl >$RUN/syslog-ng.log 2>&1 &
	echo $! >$RUN/syslog-ng.bgpid
	wait_for 20 test -S $RUN/syslog-ng.sock
}
start_rsyslog() {
	$RSYSLOGD -n -f $CC/rsyslog.conf -i $RUN/rsyslog.pid \
		-M /opt/rsyslog/usr/lib/x86_64-linux-gnu/rsyslog >$RUN/rsyslog.log 2>&1 &
	echo $! >$RUN/rsyslog.bgpid
	wait_for 20 test -S $RUN/rsyslog.sock
}
stop_collector() {
	local pid
	pid=$(cat $RUN/$1.bgpid)
	kill "$pid" 2>/dev/null
	wait_for 10 sh -c "! kill -0 $pid 2>/dev/null"
}

# one_collector NAME: push to NAME's socket; bench events, a crash (a
# WARNING from the platform module) and its repeat; then compare.
one_collector() {
	local name=$1 want got miss bad lines sid
	rm -f $OUT/$name.*
	case $name in
	syslog-ng) start_syslog_ng ;;
	rsyslog) start_rsyslog ;;
	esac || { cat $RUN/$name.log; fail "$name did not start"; return 1; }
	push_to $RUN/$name.sock || { stop_collector "$name"; fail "kwatchd restart"; return 1; }
	follow_start
	wait_for 10 sh -c "kwatchctl status -r | grep -q '\"connected\":true'" ||
		{ follow_stop; stop_collector "$name"; fail "kwatchd did not connect to $name: $(kwatchctl status -r | grep -o '\"push\":{[^}]*}')"; return 1; }
	echo warn >$PLAT/crash
	echo warn >$PLAT/crash
	kwatchctl bench $N >/dev/null
	wait_for 30 sh -c "grep -q '\"left\":0[,}]' $EV" || { follow_stop; stop_collector "$name"; fail "bench did not finish"; return 1; }
	wait_for 10 grep -q '"type":"crash"' $EV
	# Everything the socket client got from now back to the first event
	# after the restart must be at the collector.
	wait_for 30 sh -c "[ \$(wc -l <$OUT/$name.ndjson 2>/dev/null || echo 0) -ge \$(grep -c . $EV) ]"
	follow_stop
	sleep 1
	stop_collector "$name"
	# The stream as kwatchd's socket client got it, from this start on,
	# against what the collector wrote: the same lines.
	sid=$(head -n1 $EV | sed -n 's/.*"start_id":"\([^"]*\)".*/\1/p')
	[ -n "$sid" ] || fail "no start_id in the socket client's stream" || return 1
	grep "\"start_id\":\"$sid\"" $EV | grep -v '"type":"\(status\|reply\)"' | sort >/tmp/want.$name
	grep "\"start_id\":\"$sid\"" $OUT/$name.ndjson | sort >/tmp/got.$name
	want=$(wc -l </tmp/want.$name)
	got=$(wc -l </tmp/got.$name)
	echo "kwatch-bench: $name wrote $got events of this daemon start ($(grep -c '"type":"bench"' /tmp/got.$name) bench, $(grep -c '"type":"crash' /tmp/got.$name) crash and crash_repeat); kwatchd's socket client, connected after the start, got $want"
	miss=$(comm -23 /tmp/want.$name /tmp/got.$name | wc -l)
	expect_eq "$name: events kwatchd sent that did not arrive unchanged" "$miss" 0 ||
		{ comm -23 /tmp/want.$name /tmp/got.$name | head -n 3 | cut -c1-200; return 1; }
	# Every line parsed: the seq, type and id the parser found are the
	# line's own.
	lines=$(wc -l <$OUT/$name.ndjson)
	expect_eq "$name: parsed lines" "$(wc -l <$OUT/$name.fields)" "$lines" || { head -n 3 $OUT/$name.fields; return 1; }
	bad=$(paste -d'\t' $OUT/$name.ndjson $OUT/$name.fields | awk -F'\t' '{
		split($2, f, " ")
		if (index($1, "\"seq\":" f[1] ",") == 0 || index($1, "\"type\":\"" f[2] "\"") == 0 ||
		    index($1, "\"id\":\"" f[3] "\"") == 0) n++
	} END { print n + 0 }')
	expect_eq "$name: lines whose parsed seq, type or id differ" "$bad" 0 || return 1
	# The crash's report, parsed back into its lines.
	head -n 4 $OUT/$name.text
	grep -q '^WARNING: CPU: [0-9]* PID: [0-9]* at .*kwatch_platform_warn' $OUT/$name.text ||
		fail "$name: the crash text is not the WARNING report" || return 1
	[ "$(sed -n '1,/^---$/p' $OUT/$name.text | wc -l)" -ge 5 ] ||
		fail "$name: the crash text is not several lines"
}

t_syslog_ng() { one_collector syslog-ng; }
t_rsyslog() { one_collector rsyslog; }

# restart_mid_stream NAME: the collector stopped and started again while
# kwatchd streams 1500 bench events at 500 a second.  What it had not read
# when it went, kwatchd sends again on the next connection (its sent
# window, by the bytes still in the socket), so every bench seq arrives or
# is in a lost record that arrived; repeats are counted (the id tells them).
restart_mid_stream() {
	local name=$1 n=1500 seqs lost_ranges missing dup st
	rm -f $OUT/$name.*
	case $name in syslog-ng) start_syslog_ng ;; rsyslog) start_rsyslog ;; esac ||
		{ cat $RUN/$name.log; fail "$name did not start"; return 1; }
	push_to $RUN/$name.sock || { stop_collector "$name"; fail "kwatchd restart"; return 1; }
	follow_start
	wait_for 10 sh -c "kwatchctl status -r | grep -q '\"connected\":true'"
	kwatchctl bench $n 500 >/dev/null
	sleep 1
	stop_collector "$name"
	sleep 1
	case $name in syslog-ng) start_syslog_ng ;; rsyslog) start_rsyslog ;; esac ||
		{ follow_stop; cat $RUN/$name.log; fail "$name did not start again"; return 1; }
	wait_for 60 sh -c "grep -q '\"left\":0[,}]' $EV" || { follow_stop; stop_collector "$name"; fail "bench did not finish"; return 1; }
	wait_for 30 sh -c "grep -q '\"left\":0[,}]' $OUT/$name.ndjson"
	sleep 1
	follow_stop
	st=$(kwatchctl status -r | grep -o '"push":{[^}]*}')
	stop_collector "$name"
	echo "$st"
	# comm(1) wants the order sort(1) gives without -n.
	events_of bench | sed -n 's/.*"seq":\([0-9]*\),.*/\1/p' | sort >/tmp/want-seqs
	grep '"type":"bench"' $OUT/$name.ndjson | sed -n 's/.*"seq":\([0-9]*\),.*/\1/p' | sort >/tmp/got-seqs-all
	sort -u /tmp/got-seqs-all >/tmp/got-seqs
	dup=$(($(wc -l </tmp/got-seqs-all) - $(wc -l </tmp/got-seqs)))
	# Seqs a lost record that reached the collector stands for.
	grep '"type":"lost"' $OUT/$name.ndjson |
		sed -n 's/.*"first_seq":\([0-9]*\),"last_seq":\([0-9]*\),.*/\1 \2/p' |
		while read -r a b; do [ "$a" -gt 0 ] && seq "$a" "$b"; done | sort >/tmp/lost-seqs
	missing=$(comm -23 /tmp/want-seqs /tmp/got-seqs | comm -23 - /tmp/lost-seqs | wc -l)
	echo "kwatch-bench: $name restarted mid-stream: $(wc -l </tmp/want-seqs) bench events sent, $(wc -l </tmp/got-seqs) arrived, $(wc -l </tmp/lost-seqs) announced lost, $dup arrived twice (sent again), $missing missing unannounced"
	expect_eq "$name: bench events missing and not announced as lost" "$missing" 0 ||
		{ echo "missing: $(comm -23 /tmp/want-seqs /tmp/got-seqs | comm -23 - /tmp/lost-seqs | sort -n | head -n 10 | tr '\n' ' ')"; return 1; }
}
t_syslog_ng_restarted_mid_stream() { restart_mid_stream syslog-ng; }
t_rsyslog_restarted_mid_stream() { restart_mid_stream rsyslog; }

t_restore() {
	cp /tmp/kwatchd.conf.collectors $CONF/kwatchd.conf
	systemctl restart kwatchd
	expect_eq "kwatchd" "$(kwatchd_state)" active
}

ktap_main
