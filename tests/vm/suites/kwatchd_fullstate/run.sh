#!/bin/bash
# Suite "kwatchd_fullstate" (MANUAL: make vm-test SUITE=kwatchd_fullstate):
# the daemon's whole state directory on a small file system that fills
# up.  It keeps running and answering, says what it could not save
# (state_error, once), and saves again once there is room.  Manual
# because it mounts over /var/lib/kwatchd and restarts the daemon twice.
#
# What it asserts: the daemon's whole state directory on a full 1 MiB tmpfs:
# a change applies and the daemon keeps answering, one state_error event
# (in-force, ENOSPC; kmsg.pos likewise, once) and the status's state_errors
# say what could not be saved, a second change while full adds no second
# event, and once there is room the next apply saves again (journal: "saved
# again"), same daemon throughout (run 20261204-185454).
. /opt/kwatch/tests/guest/ktap.sh
. /opt/kwatch/tests/guest/kwatchd.sh

ST=/var/lib/kwatchd

t_full_state_directory() {
	local pid
	systemctl stop kwatchd kwatchd.socket
	mount -t tmpfs -o size=1m,mode=0700 kwstate $ST || fail "mount a tmpfs on $ST" || return 1
	systemctl start kwatchd.socket kwatchd || { umount $ST; fail "start on the tmpfs"; return 1; }
	pid=$(systemctl show -p MainPID --value kwatchd)
	dd if=/dev/zero of=$ST/filler bs=4k 2>/dev/null
	df -k $ST | tail -n1
	follow_start
	put $CONF/watch.d full.conf '[watch]\nfunction = canary_test_overflow\nip_offset = 0x1a\nenabled = no\n'
	wait_for 10 sh -c "grep -q '\"type\":\"state_error\"' $EV" ||
		{ follow_stop; rm -f $CONF/watch.d/full.conf $ST/filler; fail "no state_error on a full state directory"; return 1; }
	events_of state_error
	events_of state_error | grep -q '"error":"ENOSPC"' || { follow_stop; rm -f $CONF/watch.d/full.conf $ST/filler; fail "state_error is not ENOSPC"; return 1; }
	timeout 10 kwatchctl status -r | grep -q '"state_errors":[1-9]' || { follow_stop; rm -f $CONF/watch.d/full.conf $ST/filler; fail "status does not count state errors"; return 1; }
	# A second change while still full: counted, not said again.
	put $CONF/watch.d full.conf '[watch]\nfunction = canary_test_overflow\nip_offset = 0x1b\nenabled = no\n'
	sleep 2
	expect_eq "state_error events for in-force while full" "$(events_of state_error | grep -c '/in-force')" 1 || { follow_stop; rm -f $CONF/watch.d/full.conf $ST/filler; return 1; }
	rm -f $ST/filler
	rm -f $CONF/watch.d/full.conf
	sleep 3
	follow_stop
	journalctl -u kwatchd -n 40 --no-pager | grep -E 'cannot save|saved again'
	journalctl -u kwatchd -n 40 --no-pager | grep -q 'saved again' || fail "no 'saved again' once there was room"
	expect_eq "same daemon" "$(systemctl show -p MainPID --value kwatchd)" "$pid"
	systemctl stop kwatchd kwatchd.socket
	umount $ST
	systemctl start kwatchd.socket kwatchd
	expect_eq "kwatchd back on its disk" "$(kwatchd_state)" active
}

ktap_main
