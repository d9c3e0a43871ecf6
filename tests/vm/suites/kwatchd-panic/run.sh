#!/bin/bash
# Suite "kwatchd-panic": a fuzz blob whose write oopses with panic_on_oops
# set.  The kernel panics, ramoops keeps the log's tail in RAM that QEMU
# keeps across the reset, the guest boots again and the suite goes on (see
# ktap.sh): kwatchd, started at boot, finds the blob in flight and pairs it
# with the panic report that pstore has of the previous boot.
#
# What it asserts: ramoops is registered in the memmap= hole of the guest's
# command line; with panic_on_oops=1, a spooled blob whose write oopses (the
# stand-in target of kwatchd-bpf), the third of a batch of five, panics the
# kernel and the guest reboots; after the reboot kwatchd, started at boot,
# gives one crash event with source pstore, boot previous, kind oops,
# function kwatch_platform_null_store, access write, panic "Kernel panic -
# not syncing: Fatal exception", tied to the blob (which is also a
# fuzz_interrupted event), and keeps the blob in crashes/ with the whole
# pstore record beside it; the previous boot's pmsg record has the batch's
# line for the blob in flight, the two blobs before it are rejected once
# each with the target's EINVAL, and the two after it, queued again, run in
# the new boot; a restarted daemon does not report the record again.  Then a
# guided run (kfuzztest-fuzz under kwatchd, its corpus one input that stores
# to NULL) panics the kernel, and after the second reboot the pstore crash
# event is tied to the run (target, blob gen-...) through the harness's pmsg
# line for the input in flight, which is kept in crashes/ with the record
# beside it.  Then a spooled pack of five whose third blob panics the
# kernel: after the third reboot the pstore crash is tied to p.kwpack#2,
# kept in crashes/ with the record, that blob is interrupted/p.kwpack#2 (a
# fuzz_interrupted event with index 2 and boot previous), pmsg has its start
# line, and the pack goes on after it: its results say -22, -22,
# interrupted, -2, -2 (the last two run in the new boot), none run twice.
# Crash to watch, KASAN (t_kasan_stack_triage, no reboot): a
# stack-out-of-bounds store past a local array of a module function gives
# a triage watch on that array, armed at once, and a triage_armed event.
#
# Crash to watch ([triage] stack_protector = watch, t_stack_protector_triage):
# a stack-protector panic in a module's function, read from pstore after
# the reboot, makes kwatchd write and arm a canary watch on it once the
# module is loaded (triage_armed), and the rerun's panic record holds
# KStackWatch's report naming the corrupting store's function.
. /opt/kwatch/tests/guest/ktap.sh

SPOOLS=/var/lib/kwatchd/spool
CRASHES=/var/lib/kwatchd/crashes
EV=/tmp/kwatchd-panic-events.ndjson
MODDIR=/opt/kwatch/modules
PLAT=/sys/kernel/debug/kwatch_platform
KFT=/var/lib/kwatchd/test/kft
KEEP=/var/lib/kwatch-tests/kwatchd-panic	# on disk: survives the reboot
. /opt/kwatch/tests/guest/kwatchd.sh

field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",]*\).*/\1/p"; }

diag() {
	echo "--- kwatchctl status"; kwatchctl status 2>&1 | head -n 30
	echo "--- /sys/fs/pstore"; ls -l /sys/fs/pstore
	echo "--- /var/lib/systemd/pstore"; ls -lR /var/lib/systemd/pstore
	echo "--- journal"; journalctl -b -u kwatchd -n 25 --no-pager -o cat 2>&1
	return 1
}

# The test kernel has ramoops in the memmap= hole that vm.sh's command line
# reserves.
t_ramoops_ready() {
	local addr
	addr=$(cat /sys/module/ramoops/parameters/mem_address 2>/dev/null)
	[ -n "$addr" ] && [ "$addr" != 0 ] || fail "ramoops has no memory (mem_address '$addr')" || return 1
	echo "ramoops at $(printf '0x%x' "$addr"), $(cat /sys/module/ramoops/parameters/mem_size) bytes," \
		"records of $(cat /sys/module/ramoops/parameters/record_size)"
	dmesg 2>/dev/null | grep -m1 "pstore: Registered ramoops" || fail "pstore has no ramoops backend" || return 1
	mountpoint -q /sys/fs/pstore || fail "/sys/fs/pstore not mounted"
}

# Before the reboot: a stand-in target whose "input" is the platform
# module's crash file (the blob says "null": a store to NULL), fed by the
# spool with panic_on_oops set.  After it: the events and files.
t_panic_in_write_paired_after_reboot() {
	local sp=$SPOOLS/panicky ev b
	if [ -z "${KTAP_AFTER_REBOOT:-}" ]; then
		# Names of this suite's own: kwatchd-bpf's stand-in left crashy/.
		rm -rf $SPOOLS/panicky $CRASHES/panicky $KFT/panicky
		mkdir -p $KEEP $KFT/panicky
		cp $CONF/kwatchd.conf $KEEP/kwatchd.conf.orig
		rm -f $CONF/watch.d/*.conf $CONF/wprobe.d/*.conf $CONF/fuzz.d/*.conf
		[ -d $PLAT ] || insmod $MODDIR/kwatch_platform.ko || fail "insmod kwatch_platform" || return 1
		ln -sfn $PLAT/crash $KFT/panicky/input
		printf '[daemon]\npush = /dev/virtio-ports/org.kwatch.events\n[kernel]\nkfuzztest = %s\n' \
			$KFT >$CONF/kwatchd.conf
		systemctl restart kwatchd || fail "restart" || return 1
		# One batch of five, queued before the spool starts: the target
		# refuses a1 and a2 (EINVAL), boom panics, z1 and z2 never run.
		mkdir -p $sp
		for b in a1 a2 z1 z2; do put $sp $b 'nope\n'; done
		put $sp boom 'null\n'
		echo "armed: kstackwatch '$(cat /proc/kstackwatch 2>/dev/null)'," \
			"dynamic_events '$(cat /sys/kernel/tracing/dynamic_events 2>/dev/null | tr '\n' ' ')'"
		sysctl -q kernel.panic_on_oops=1
		echo "$(date +%s.%N)" >$KEEP/t0
		echo "blobs queued; panic_on_oops=1, then the spool"
		ktap_reboot_expected || return 1
		put $CONF/fuzz.d panicky.conf '[fuzz]\ntarget = panicky\n'
		sleep 60
		fail "the kernel did not panic"
		return 1
	fi
	echo "rebooted: boot $(cat /var/lib/kwatch-tests/boots) of this run," \
		"$(awk -v t="$(cat $KEEP/t0)" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - t }')s after the blob"
	wait_for 30 test -S /run/kwatchd/events.sock || { fail "kwatchd not up"; diag; return 1; }
	# The backlog holds what kwatchd said at start-up.
	kwatchctl follow -b -r -t crash -n 1 -i 10 >"$EV"
	kwatchctl follow -b -r -t fuzz_interrupted -n 1 -i 2 >>"$EV"
	ev=$(events_of crash)
	echo "$ev" | cut -c1-500
	[ -n "$ev" ] || { fail "no crash event"; diag; return 1; }
	# The record, whole, on the console (a test fixture for the host tests).
	if [ -f $CRASHES/panicky/boom.report ]; then
		echo "kwatch-pstore-record-begin $(echo "$ev" | field record)"
		cat $CRASHES/panicky/boom.report
		echo "kwatch-pstore-record-end"
	fi >/dev/console
	expect_eq "report_source" "$(echo "$ev" | field report_source)" pstore || return 1
	expect_eq "boot" "$(echo "$ev" | field boot)" previous || return 1
	expect_eq "kind" "$(echo "$ev" | field kind)" oops || return 1
	expect_eq "function" "$(echo "$ev" | field function)" kwatch_platform_null_store || return 1
	expect_eq "access" "$(echo "$ev" | field access)" write || return 1
	expect_eq "panic" "$(echo "$ev" | field panic)" "Kernel panic - not syncing: Fatal exception" || return 1
	expect_eq "tied to" "$(echo "$ev" | field target)/$(echo "$ev" | field blob)" panicky/boom || return 1
	events_of fuzz_interrupted | grep '"blob":"boom"' | grep -q '"boot":"previous"' ||
		{ fail "no fuzz_interrupted event for boom from the previous boot"; cat "$EV"; return 1; }
	# Whole: kwatchd fsyncs a blob before its write (put does not).
	expect_eq "the blob set aside" "$(cat $sp/interrupted/boom)" null || return 1
	cmp $sp/interrupted/boom $CRASHES/panicky/boom || fail "crashes/panicky lacks the blob" || return 1
	grep -q '^Panic#[0-9]* Part1' $CRASHES/panicky/boom.report ||
		fail "the report beside the blob is not the pstore record" || return 1
	grep -q 'BUG: kernel NULL pointer dereference' $CRASHES/panicky/boom.report ||
		fail "no oops in the report beside the blob" || return 1
	echo "record $(echo "$ev" | field record); blob and report in $CRASHES/panicky/"
	# The batch: what the pmsg lines say ran moved on with its verdict,
	# once; what never ran was queued again and ran in this boot.
	grep -rhs '^kwatchd-spool ' /sys/fs/pstore /var/lib/systemd/pstore | tail -n 8
	grep -rqs '^kwatchd-spool [0-9a-f]* 2 start$' /sys/fs/pstore /var/lib/systemd/pstore ||
		fail "no pmsg line for the blob in flight" || return 1
	wait_for 20 test -e $sp/rejected/z2.errno || { fail "z2 not run after the reboot"; diag; return 1; }
	ls $sp/rejected | xargs
	# a1 and a2 ran before the panic (the target said EINVAL); z1 and z2
	# in this boot, where the stand-in's module is not loaded (ENOENT).
	for b in a1 a2; do
		grep -q '^22 ' $sp/rejected/$b.errno || fail "$b: $(cat $sp/rejected/$b.errno)" || return 1
	done
	for b in z1 z2; do
		grep -q '^2 ' $sp/rejected/$b.errno || fail "$b: $(cat $sp/rejected/$b.errno)" || return 1
	done
	expect_eq "blobs run twice" "$(ls $sp/rejected $sp/done $sp/interrupted | grep -c '\.1$')" 0 || return 1
	expect_eq "set aside" "$(ls $sp/interrupted | xargs)" boom
}

# A restarted daemon does not report the record again.
t_record_read_once() {
	local n
	systemctl restart kwatchd || fail "restart" || return 1
	wait_for 10 test -S /run/kwatchd/events.sock || fail "kwatchd not up" || return 1
	n=$(kwatchctl status -r | head -n1 | sed -n 's/.*"previous_boot_panics":\([0-9]*\).*/\1/p')
	expect_eq "previous-boot panics read by the restarted daemon" "$n" 0 || { diag; return 1; }
	kwatchctl follow -b -r -t crash -n 1 -i 2 >"$EV"
	if events_of crash | grep -q '"report_source":"pstore"'; then
		fail "the pstore record was reported again"
		return 1
	fi
	echo "$(wc -l </var/lib/kwatchd/pstore.seen) record(s) in pstore.seen"
}

# The same for a guided run (issue 16): kwatchd runs kfuzztest-fuzz, which
# writes each input to pmsg before its write.  The stand-in target's input
# is the platform module's crash file, and the corpus's one input ("null")
# panics the kernel.  After the reboot, the panic's report names the
# harness's task, and the previous boot's pmsg line of that task holds the
# input: the crash is tied to the run, and the input kept as a report read
# live would be.
t_panic_in_guided_run_paired_after_reboot() {
	local ev blob corpus=/var/lib/kwatchd/corpus/pguided
	if [ -z "${KTAP_AFTER_REBOOT:-}" ]; then
		rm -f $CONF/fuzz.d/*.conf
		rm -rf $CRASHES/pguided $KFT/pguided $corpus
		[ -d $PLAT ] || insmod $MODDIR/kwatch_platform.ko || fail "insmod kwatch_platform" || return 1
		mkdir -p $KFT/pguided $corpus
		ln -sfn $PLAT/crash $KFT/pguided/input_simple
		# kwatchd and the harness find KCOV beside the KFuzzTest directory.
		ln -sfn /sys/kernel/debug/kcov $KFT/../kcov
		printf null >$corpus/seed
		systemctl restart kwatchd || fail "restart" || return 1
		wait_for 10 test -S /run/kwatchd/events.sock || fail "kwatchd not up" || return 1
		sysctl -q kernel.panic_on_oops=1
		echo "$(date +%s.%N)" >$KEEP/t1
		echo "corpus seeded; panic_on_oops=1, then the guided run"
		ktap_reboot_expected || return 1
		put $CONF/fuzz.d pguided.conf \
			'[fuzz]\ntarget = pguided\ngenerate = guided\ninput = simple\nbuffer_size = 8\n'
		sleep 90
		fail "the kernel did not panic"
		kwatchctl status 2>&1 | head -n 40
		journalctl -u kwatchd -n 20 --no-pager -o cat
		return 1
	fi
	echo "rebooted: boot $(cat /var/lib/kwatch-tests/boots) of this run," \
		"$(awk -v t="$(cat $KEEP/t1)" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - t }')s after the run started"
	rm -f $CONF/fuzz.d/pguided.conf
	wait_for 30 test -S /run/kwatchd/events.sock || { fail "kwatchd not up"; diag; return 1; }
	kwatchctl follow -b -r -t crash -n 1 -i 10 >"$EV"
	ev=$(events_of crash | grep '"report_source":"pstore"' | head -n 1)
	echo "$ev" | cut -c1-500
	[ -n "$ev" ] || { fail "no crash event from pstore"; diag; return 1; }
	expect_eq "boot" "$(echo "$ev" | field boot)" previous || return 1
	expect_eq "function" "$(echo "$ev" | field function)" kwatch_platform_null_store || return 1
	expect_eq "target" "$(echo "$ev" | field target)" pguided || { diag; return 1; }
	blob=$(echo "$ev" | field blob)
	case $blob in gen-*) ;; *) fail "blob '$blob' is not the run's"; return 1 ;; esac
	grep -rhs "^kfuzztest-input .* pguided $blob " /sys/fs/pstore /var/lib/systemd/pstore | tail -n 3
	grep -rqs "^kfuzztest-input [-0-9a-f]* [0-9]* pguided $blob 1 6e756c6c$" \
		/sys/fs/pstore /var/lib/systemd/pstore ||
		fail "no pmsg line of the harness for the input in flight" || return 1
	expect_eq "the input kept" "$(cat $CRASHES/pguided/$blob 2>&1)" null || return 1
	grep -q '^Panic#[0-9]* Part1' $CRASHES/pguided/$blob.report ||
		fail "the report beside the input is not the pstore record" || return 1
	grep -q 'Comm: kfuzztest-fuzz' $CRASHES/pguided/$blob.report ||
		fail "the report does not name the harness" || return 1
	echo "input and report in $CRASHES/pguided/"
	rm -rf $corpus $KFT/pguided $KFT/../kcov
}

# A pack of five (many blobs in one spool file): the target refuses the
# first two, the third panics the kernel.  After the reboot the report is
# tied to PACK#2, that blob is set aside as its own file and kept with the
# report, and the pack goes on after it (the last two, ENOENT in this boot);
# its verdicts are in done/PACK.results, none run twice.
t_panic_in_pack_paired_after_reboot() {
	local sp=$SPOOLS/ppack ev
	if [ -z "${KTAP_AFTER_REBOOT:-}" ]; then
		rm -f $CONF/fuzz.d/*.conf
		rm -rf $sp $CRASHES/ppack $KFT/ppack
		[ -d $PLAT ] || insmod $MODDIR/kwatch_platform.ko || fail "insmod kwatch_platform" || return 1
		mkdir -p $KFT/ppack $sp
		ln -sfn $PLAT/crash $KFT/ppack/input
		systemctl restart kwatchd || fail "restart" || return 1
		pack $sp p.kwpack 'nope\n' 'nope\n' 'null\n' 'nope\n' 'nope\n'
		sysctl -q kernel.panic_on_oops=1
		echo "$(date +%s.%N)" >$KEEP/t2
		echo "pack queued; panic_on_oops=1, then the spool"
		ktap_reboot_expected || return 1
		put $CONF/fuzz.d ppack.conf '[fuzz]\ntarget = ppack\n'
		sleep 60
		fail "the kernel did not panic"
		return 1
	fi
	echo "rebooted: boot $(cat /var/lib/kwatch-tests/boots) of this run," \
		"$(awk -v t="$(cat $KEEP/t2)" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - t }')s after the pack"
	wait_for 30 test -S /run/kwatchd/events.sock || { fail "kwatchd not up"; diag; return 1; }
	kwatchctl follow -b -r -t crash -n 1 -i 10 >"$EV"
	kwatchctl follow -b -r -t fuzz_interrupted -n 1 -i 2 >>"$EV"
	ev=$(events_of crash | grep '"report_source":"pstore"' | head -n 1)
	echo "$ev" | cut -c1-300
	[ -n "$ev" ] || { fail "no crash event from pstore"; diag; return 1; }
	expect_eq "function" "$(echo "$ev" | field function)" kwatch_platform_null_store || return 1
	expect_eq "tied to" "$(echo "$ev" | field target)/$(echo "$ev" | field blob)" "ppack/p.kwpack#2" ||
		return 1
	events_of fuzz_interrupted | grep '"blob":"p.kwpack#2","index":2' | grep -q '"boot":"previous"' ||
		{ fail "no fuzz_interrupted event for p.kwpack#2 from the previous boot"; cat "$EV"; return 1; }
	expect_eq "the blob set aside" "$(cat "$sp/interrupted/p.kwpack#2")" null || return 1
	cmp "$sp/interrupted/p.kwpack#2" "$CRASHES/ppack/p.kwpack#2" ||
		fail "crashes/ppack lacks the blob" || return 1
	grep -q '^Panic#[0-9]* Part1' "$CRASHES/ppack/p.kwpack#2.report" ||
		fail "the report beside the blob is not the pstore record" || return 1
	grep -rhs '^kwatchd-spool ' /sys/fs/pstore /var/lib/systemd/pstore | tail -n 4
	grep -rqs '^kwatchd-spool [0-9a-f]* 2 start$' /sys/fs/pstore /var/lib/systemd/pstore ||
		fail "no pmsg line for the blob in flight" || return 1
	wait_for 20 test -e $sp/done/p.kwpack.results || { fail "the pack did not go on"; diag; return 1; }
	# 0 and 1 ran before the panic (EINVAL), 3 and 4 in this boot, where
	# the stand-in's module is not loaded (ENOENT).
	expect_eq "the pack's verdicts" "$(xargs <$sp/done/p.kwpack.results)" \
		"0 5 -22 1 5 -22 2 5 interrupted 3 5 -2 4 5 -2" || return 1
	rm -f $CONF/fuzz.d/ppack.conf
	rm -rf $sp $CRASHES/ppack $KFT/ppack
}

# Crash to watch ([triage] stack_protector = watch): a function whose only
# symptom is the stack protector's panic (the platform module's
# kwatch_platform_smashed: a helper's stray store lands on its canary).
# First boot: it panics.  Second: kwatchd reads the panic from pstore,
# writes its triage watch (a crash event, the file in the state
# directory), which waits for the module and arms on insmod (a
# triage_armed event, fn=kwatch_platform:kwatch_platform_smashed in
# /proc/kstackwatch); the rerun is caught, then panics again.  Third: the
# pstore record of that panic holds KStackWatch's report: a crash event of
# kind kstackwatch naming the corrupting store's function,
# kwatch_platform_scribble, and the watched one.
TRIAGE=/var/lib/kwatchd/triage
t_stack_protector_triage() {
	local ev stage
	stage=$(cat $KEEP/triage-stage 2>/dev/null)
	if [ -z "${KTAP_AFTER_REBOOT:-}" ]; then
		mkdir -p $KEEP
		[ -f $KEEP/kwatchd.conf.orig ] || cp $CONF/kwatchd.conf $KEEP/kwatchd.conf.orig
		rm -f $CONF/watch.d/*.conf $CONF/wprobe.d/*.conf $CONF/fuzz.d/*.conf
		rm -rf $TRIAGE
		printf '[daemon]\npush = /dev/virtio-ports/org.kwatch.events\n[triage]\nstack_protector = watch\n' \
			>$CONF/kwatchd.conf
		systemctl restart kwatchd || fail "restart" || return 1
		[ -d $PLAT ] || insmod $MODDIR/kwatch_platform.ko || fail "insmod kwatch_platform" || return 1
		echo 1 >$KEEP/triage-stage
		echo "$(date +%s.%N)" >$KEEP/t3
		ktap_reboot_expected || return 1
		echo canary >$PLAT/crash
		sleep 60
		fail "no stack-protector panic"
		return 1
	fi
	if [ "$stage" = 1 ]; then
		echo "rebooted after the stack-protector panic," \
			"$(awk -v t="$(cat $KEEP/t3)" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - t }')s after it"
		wait_for 30 test -S /run/kwatchd/events.sock || { fail "kwatchd not up"; diag; return 1; }
		kwatchctl follow -b -r -t crash -n 1 -i 10 >"$EV"
		ev=$(events_of crash)
		echo "$ev" | cut -c1-400
		echo "$ev" | field panic | grep -q 'stack-protector: Kernel stack is corrupted in: kwatch_platform_smashed' ||
			{ fail "no crash event with the stack-protector panic"; diag; return 1; }
		wait_for 10 test -f $TRIAGE/kwatch_platform_smashed.conf || { fail "no triage watch file"; ls -l $TRIAGE; diag; return 1; }
		cat $TRIAGE/kwatch_platform_smashed.conf
		kwatchctl status | grep -q 'waiting for its module' || { fail "the triage watch does not wait for its module"; diag; return 1; }
		follow_start
		insmod $MODDIR/kwatch_platform.ko || { follow_stop; fail "insmod kwatch_platform"; return 1; }
		wait_for 10 grep -q '^fn=kwatch_platform:kwatch_platform_smashed' /proc/kstackwatch ||
			{ follow_stop; fail "not armed: '$(cat /proc/kstackwatch)'"; diag; return 1; }
		wait_for 10 grep -q '"type":"triage_armed"' "$EV" || { follow_stop; fail "no triage_armed event"; return 1; }
		follow_stop
		events_of triage_armed | cut -c1-400
		events_of triage_armed | grep -q '"reason":"stack-protector: Kernel stack is corrupted in: kwatch_platform_smashed \[kwatch_platform\] (a panic of the previous boot, from pstore)' ||
			{ fail "triage_armed does not say why"; return 1; }
		cat /proc/kstackwatch
		echo 2 >$KEEP/triage-stage
		echo "$(date +%s.%N)" >$KEEP/t3
		ktap_reboot_expected || return 1
		echo canary >$PLAT/crash
		sleep 60
		fail "no second stack-protector panic"
		return 1
	fi
	echo "rebooted after the second panic," \
		"$(awk -v t="$(cat $KEEP/t3)" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - t }')s after it"
	wait_for 30 test -S /run/kwatchd/events.sock || { fail "kwatchd not up"; diag; return 1; }
	kwatchctl follow -b -r -t crash -n 2 -i 10 >"$EV"
	ev=$(events_of crash | grep '"kind":"kstackwatch"')
	echo "$ev" | cut -c1-500
	[ -n "$ev" ] || { fail "no KStackWatch report in the second panic's record"; cat "$EV" | cut -c1-300; diag; return 1; }
	expect_eq "report_source" "$(echo "$ev" | field report_source)" pstore || return 1
	expect_eq "the corrupting store's function" "$(echo "$ev" | field function)" kwatch_platform_scribble || return 1
	expect_eq "watched" "$(echo "$ev" | field watched)" kwatch_platform_smashed || return 1
	# The user removes the triage watch: it goes.
	rm -f $TRIAGE/kwatch_platform_smashed.conf $KEEP/triage-stage
	systemctl reload kwatchd
	cp $KEEP/kwatchd.conf.orig $CONF/kwatchd.conf
	systemctl restart kwatchd
}

# Crash to watch, KASAN ([triage] kasan_stack = watch): a store one
# element past a local array (the platform module's
# kwatch_platform_stack_oob) is KASAN's stack-out-of-bounds report, whose
# frame description names the array, vals; read live from /dev/kmsg, it
# makes kwatchd write a triage watch on vals in that function, its last
# element (vals[3], next to the store past its end), armed at once (the
# module is loaded): a triage_armed event that says why, and the watch in
# /proc/kstackwatch.
t_kasan_stack_triage() {
	local f=$TRIAGE/kwatch_platform_stack_oob-vals.conf
	grep -qw kasan_report /proc/kallsyms || { skip "no KASAN in this kernel"; return; }
	mkdir -p $KEEP
	[ -f $KEEP/kwatchd.conf.orig ] || cp $CONF/kwatchd.conf $KEEP/kwatchd.conf.orig
	rm -f $CONF/watch.d/*.conf
	rm -rf $TRIAGE
	printf '[daemon]\npush = /dev/virtio-ports/org.kwatch.events\n[triage]\nkasan_stack = watch\n' \
		>$CONF/kwatchd.conf
	systemctl restart kwatchd || fail "restart" || return 1
	[ -d $PLAT ] || insmod $MODDIR/kwatch_platform.ko || fail "insmod kwatch_platform" || return 1
	wait_for 30 test -S /run/kwatchd/events.sock || { fail "kwatchd not up"; diag; return 1; }
	follow_start
	echo stack >$PLAT/crash
	wait_for 20 test -f $f || { follow_stop; fail "no triage watch file"; ls -l $TRIAGE;
		dmesg | grep -A30 'KASAN: stack-out-of-bounds' | head -40; diag; return 1; }
	cat $f
	# vals is 32 bytes; its last element is next to the store past its end.
	grep -qx 'variable = vals\[3\]' $f || { follow_stop; fail "not a watch on vals[3]"; return 1; }
	wait_for 20 grep -q '"type":"triage_armed"' "$EV" ||
		{ follow_stop; fail "no triage_armed event"; cat /proc/kstackwatch; diag; return 1; }
	follow_stop
	events_of triage_armed | cut -c1-400
	events_of triage_armed | grep -q '"reason":"KASAN: stack-out-of-bounds next to vals in kwatch_platform_stack_oob' ||
		{ fail "triage_armed does not say why"; return 1; }
	cat /proc/kstackwatch
	grep -q '^fn=kwatch_platform:kwatch_platform_stack_oob ' /proc/kstackwatch ||
		{ fail "the watch on vals is not armed"; return 1; }
	rm -rf $TRIAGE
	cp $KEEP/kwatchd.conf.orig $CONF/kwatchd.conf
	systemctl restart kwatchd
}

t_restore() {
	rm -f $CONF/fuzz.d/*.conf
	[ -f $KEEP/kwatchd.conf.orig ] && cp $KEEP/kwatchd.conf.orig $CONF/kwatchd.conf
	rm -rf $KEEP $KFT/panicky $SPOOLS/panicky $CRASHES/panicky $CRASHES/pguided
	systemctl restart kwatchd
	expect_eq "kwatchd" "$(kwatchd_state)" active
}

ktap_main
