#!/bin/bash
# Suite "readme": the README's quick starts, run as a reader runs them.
# The image carries the checkout's README.md (/opt/kwatch/README.md);
# each of its "```sh guest" blocks is a test here, in order, run by root
# with bash -e exactly as written: it passes when every command does, and
# each block ends with a command that checks the result it promises (the
# catch event naming the watched function, the KASAN report kept with the
# fuzz input, the events in syslog-ng's file).  Before them, what an
# earlier suite may have left that a block would take for its own result
# is cleared (the crash directory of the fuzzed target, and kwatchd's
# backlog, by a restart); after them, what
# they changed is put back (watch and fuzz files, kwatchd.conf's push
# target, syslog-ng stopped), and kwatchd is active.
. /opt/kwatch/tests/guest/ktap.sh

README=/opt/kwatch/README.md
CONF=/etc/kwatchd
COLL=/run/kwatchd-collectors

# block N: the README's Nth guest block.
block() {
	awk -v n="$1" '/^```sh guest$/ { k++; on = (k == n); next } /^```/ { on = 0 } on' $README
}

run_block() {
	local text
	text=$(block "$1")
	[ -n "$text" ] || fail "the README has no guest block $1" || return 1
	echo "$text" | sed 's/^/$ /'
	bash -e -c "$text" || fail "guest block $1 of the README failed (exit $?)"
}

t_setup() {
	[ -r $README ] || fail "no $README in the image" || return 1
	expect_eq "guest blocks in the README" "$(grep -c '^```sh guest$' $README)" 3 || return 1
	cp $CONF/kwatchd.conf /tmp/readme-kwatchd.conf
	rm -rf /var/lib/kwatchd/crashes/test_underflow_on_buffer
	# A daemon as a reader's fresh guest has it: its backlog (follow -b)
	# holds no event of an earlier suite for a block to take as its own.
	systemctl restart kwatchd
	wait_for 10 test -S /run/kwatchd/events.sock || fail "kwatchd's socket did not come back"
}

t_watch_by_name() { run_block 1; }
t_fuzz_one_file() { run_block 2; }
t_stream_to_collector() { run_block 3; }

t_restore() {
	rm -f $CONF/watch.d/victim.conf $CONF/fuzz.d/underflow.conf
	[ -s $COLL/syslog-ng.pid ] && kill "$(cat $COLL/syslog-ng.pid)" 2>/dev/null
	cp /tmp/readme-kwatchd.conf $CONF/kwatchd.conf
	systemctl restart kwatchd
	wait_for 10 test -S /run/kwatchd/events.sock || fail "kwatchd's socket did not come back" || return 1
	expect_eq "kwatchd" "$(systemctl is-active kwatchd)" active
}

ktap_main
