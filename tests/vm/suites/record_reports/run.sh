#!/bin/bash
# Suite "record_reports" (MANUAL: runs only when named): provokes one real
# report of each kind kwatchd's crash capture parses (KASAN, WARNING, kernel
# BUG, general protection fault, page-fault oops) and prints the raw
# /dev/kmsg records of each.  Its output, cut per kind, is the test data of
# tests/unit/kwatchd/data/.  The last three oops their writer.
. /opt/kwatch/tests/guest/ktap.sh

DBG=/sys/kernel/debug/kwatch_platform

provoke() {
	local what=$1 file=$2 first
	first=$(tail -n1 /tmp/kmsg.seq 2>/dev/null || echo 0)
	sh -c "echo $what >$DBG/$file" 2>/dev/null
	sleep 1
	echo "record: $what"
	timeout 2 cat /dev/kmsg | awk -F'[,;]' -v f="$first" '$2 > f' >/tmp/kmsg.new
	tail -n1 /tmp/kmsg.new | cut -d, -f2 >>/tmp/kmsg.seq
	grep -c . /tmp/kmsg.new
	sed 's/^/kmsg: /' /tmp/kmsg.new
	grep -q . /tmp/kmsg.new
}

t_setup() {
	[ -d $DBG ] || insmod /opt/kwatch/modules/kwatch_platform.ko || fail "insmod" || return 1
	timeout 2 cat /dev/kmsg | tail -n1 | cut -d, -f2 >/tmp/kmsg.seq
}
t_kasan() { provoke x kasan_oob; }
t_warning() { provoke warn crash; }
t_bug() { provoke bug crash; }
t_gpf() { provoke gpf crash; }
t_null() { provoke null crash; }

ktap_main
