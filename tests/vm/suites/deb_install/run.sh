#!/bin/bash
# In a plain bookworm rootfs (mmdebstrap minbase, no kwatch image), with
# only the linux-image and kwatch packages that `make deb-test` built
# installed by apt (scripts/deb-image.sh): what a kernel developer with a
# VM of their own gets.  The packaged kernel boots; the kwatch interfaces
# are there; the package's postinst made the group and started the units;
# and kwatchd does its job: a wprobe.d file on a kernel variable gives
# wprobe_created, then wprobe_hit and wprobe_sample events on the socket
# when the variable is written, and the same in the journal; a fuzz.d file
# with generate = yes fuzzes a target with nothing else.  MANUAL: only
# that image runs it (make deb-test).
#
# What it asserts: the running kernel is the package's and kwatch is
# installed; the kwatch interfaces are there (/proc/kstackwatch, w: dynamic
# events, KFuzzTest targets, BTF); the postinst made the group kwatch and
# started both units (socket 660 kwatch, BPF loaded); a wprobe.d file on
# kptr_restrict gives wprobe_created, then wprobe_hit and wprobe_sample when
# the sysctl is written, and the entry in the journal; kwatchctl resolve
# silent_corruption_victim 'data[2]' works from the index the linux-image
# package carries and a watch.d file with only function and variable arms
# the watch; a fuzz.d file with generate = yes gives a whole batch for
# test_trivial and, for test_underflow_on_buffer, a crash event tied to the
# input kept in crashes/.  make test runs it as its deb tier (with
# SUITE=all).
. /opt/kwatch/tests/guest/ktap.sh
. /opt/kwatch/tests/guest/kwatchd.sh
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",]*\).*/\1/p"; }

t_packaged_kernel_booted() {
	local img
	img=$(dpkg-query -W -f '${Package} ${Version}\n' 'linux-image-*' | head -n1)
	echo "kernel $(uname -r), package $img"
	echo "$img" | grep -q "linux-image-$(uname -r) " || fail "the running kernel is not the installed package's" || return 1
	dpkg-query -W -f '${Package} ${Version} ${Status}\n' kwatch
	dpkg-query -W -f '${Status}' kwatch | grep -q 'install ok installed' || fail "kwatch not installed"
}

t_kernel_interfaces() {
	local ok=0
	[ -e /proc/kstackwatch ] && echo "/proc/kstackwatch" || { fail "no /proc/kstackwatch"; ok=1; }
	grep -qE 'w(\[maxrate\])?\[:' /sys/kernel/tracing/README &&
		echo "tracefs: w: dynamic events" || { fail "no wprobes in tracefs"; ok=1; }
	ls /sys/kernel/debug/kfuzztest/ | grep -q '^test_' &&
		echo "kfuzztest targets: $(ls /sys/kernel/debug/kfuzztest | grep -c '^test_')" || { fail "no KFuzzTest targets"; ok=1; }
	[ -e /sys/kernel/btf/vmlinux ] && echo "BTF: /sys/kernel/btf/vmlinux" || { fail "no BTF"; ok=1; }
	return $ok
}

t_units_started_by_the_package() {
	expect_eq "group kwatch" "$(getent group kwatch | cut -d: -f1)" kwatch || return 1
	expect_eq "kwatchd.socket" "$(systemctl is-enabled kwatchd.socket)" enabled || return 1
	wait_for 60 systemctl is-active -q kwatchd || { journalctl -u kwatchd --no-pager | tail -n 20; fail "kwatchd not active"; return 1; }
	expect_eq "kwatchd" "$(kwatchd_state)" active || return 1
	expect_eq "socket" "$(stat -c '%a %G' /run/kwatchd/events.sock)" "660 kwatch" || return 1
	kwatchctl status -r | head -n1 >/tmp/st
	grep -q '"bpf":{"enabled":true' /tmp/st || fail "BPF programs not loaded: $(head -c 400 /tmp/st)"
}

t_wprobe_through_kwatchd() {
	local sysctl=/proc/sys/kernel/kptr_restrict old ev
	old=$(cat $sysctl)
	follow_start
	put $CONF/wprobe.d kp.conf '[wprobe]\nname = kptr\naccess = w\nsymbol = kptr_restrict\nlength = 4\n'
	wait_for 20 grep -q '"type":"wprobe_created"' "$EV" || { follow_stop; fail "no wprobe_created"; return 1; }
	wait_for 20 sh -c "kwatchctl status -r | grep -q '\"attached\":\[[^]]*\"kptr\"'"
	echo 2 >$sysctl
	echo "$old" >$sysctl
	wait_for 20 grep -q '"type":"wprobe_sample"' "$EV"
	wait_for 5 grep -q '"type":"wprobe_hit"' "$EV"
	follow_stop
	rm -f $CONF/wprobe.d/kp.conf
	ev=$(events_of wprobe_hit | head -n1)
	echo "$ev" | cut -c1-300
	events_of wprobe_sample | head -n1 | cut -c1-300
	expect_eq "wprobe_hit's wprobe" "$(echo "$ev" | field wprobe)" kptr || return 1
	echo "the store that hit: $(echo "$ev" | field location)"
	events_of wprobe_sample | grep -q '"wprobe":"kptr"' || fail "no wprobe_sample for kptr" || return 1
	journalctl -u kwatchd -o json MESSAGE_ID=24500ecc21df3d1ea4c4337e7559e777 KWATCH_WPROBE=kptr | grep -q . ||
		fail "wprobe_created not in the journal"
}

# Fuzzing by one file in someone else's VM: the kwatch package carries
# kfuzztest-bridge and the kernel's target table, the kernel its BTF; a
# fuzz.d file with generate = yes gives whole batches (test_trivial), and
# a bug (test_underflow_on_buffer) a crash event tied to the kept input.
t_fuzz_generate() {
	local b ev blob tgt=test_underflow_on_buffer
	dpkg -S /usr/share/kwatch/kfuzztest-targets.txt || fail "the target table is in no package" || return 1
	follow_start
	put $CONF/fuzz.d triv.conf '[fuzz]\ntarget = test_trivial\ngenerate = yes\nbatch = 100\n'
	wait_for 60 grep -q '"type":"fuzz_batch"' "$EV"
	rm -f $CONF/fuzz.d/triv.conf
	put $CONF/fuzz.d gen.conf "[fuzz]\ntarget = $tgt\ngenerate = yes\nbatch = 20\n"
	wait_for 60 grep -q '"type":"crash"' "$EV"
	rm -f $CONF/fuzz.d/gen.conf
	follow_stop
	b=$(events_of fuzz_batch | head -n1)
	echo "$b" | cut -c1-400
	expect_eq "test_trivial: the first batch" "$(echo "$b" | field outcome)" done || return 1
	ev=$(events_of crash | head -n1)
	echo "$ev" | cut -c1-300
	expect_eq "crash function" "$(echo "$ev" | field function)" underflow_on_buffer || return 1
	blob=$(echo "$ev" | field blob)
	[ -n "$blob" ] || fail "the crash is tied to no input" || return 1
	ls -l /var/lib/kwatchd/crashes/$tgt
	[ -s /var/lib/kwatchd/crashes/$tgt/$blob ] || fail "crashes/ lacks the input $blob"
}

# A watch by name in someone else's VM: the linux-image package carries its
# stack variable index, the kwatch package kwatchctl resolve and kwatchd.
t_watch_by_name() {
	local idx line
	idx=/usr/lib/kwatch/stackvars/$(uname -r)
	dpkg -S "$idx" || fail "the index is in no package" || return 1
	line=$(kwatchctl resolve silent_corruption_victim 'data[2]') || fail "kwatchctl resolve failed" || return 1
	echo "resolved: $line"
	echo "$line" | grep -qE '^fn=silent_corruption_victim co=-[0-9]+ wl=8$' || fail "resolved '$line'" || return 1
	put $CONF/watch.d v.conf '[watch]\nfunction = silent_corruption_victim\nvariable = data[2]\n'
	wait_for 20 grep -qE "^$line # fo=0x[0-9a-f]+ so=[0-9]+$" /proc/kstackwatch ||
		{ fail "not armed by name: '$(cat /proc/kstackwatch)'"; return 1; }
	echo "armed: $(cat /proc/kstackwatch)"
	rm -f $CONF/watch.d/v.conf
	wait_for 20 sh -c '[ -z "$(cat /proc/kstackwatch)" ]' || fail "not disarmed: '$(cat /proc/kstackwatch)'"
}

ktap_main
