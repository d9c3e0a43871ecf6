#!/usr/bin/env bash
# Boot the guest under QEMU (TCG: no KVM here).
#
#   vm.sh shell           interactive: root shell on the serial console
#                         (Ctrl-a x quits QEMU)
#   vm.sh run             the demonstration: boot with kwatch.run, show the
#                         guest's text and its event stream (readable, through
#                         kwatchctl) as they arrive, then a summary of the events
#   vm.sh test SUITES     run the guest suites (comma list or "all"), collect
#                         their KTAP over virtio-serial, print the summary;
#                         KWATCH_TESTS=REGEX runs only the tests whose names
#                         match (the others are reported skipped)
#
# Each run gets a directory under $RUNS_DIR with the console log, the KTAP,
# the event stream port's output and a throw-away qcow2 overlay of the image.
. "$(dirname "$0")/lib.sh"
KW_STEP=vm

# KWATCH_VM_KERNEL and KWATCH_VM_IMAGE boot another kernel and disk (make
# deb-test: the packaged kernel and a plain bookworm with the packages).
KERNEL=${KWATCH_VM_KERNEL:-$KBUILD/arch/x86/boot/bzImage}
IMG=${KWATCH_VM_IMAGE:-$IMAGE_DIR/kwatch.img}
VM_MEM=${KWATCH_VM_MEM:-2G}
VM_CPUS=${KWATCH_VM_CPUS:-2}
# multi: a host thread per vCPU (QEMU's default); single: one host thread
# runs the vCPUs in turn, to tell a TCG multi-threading effect from a bug.
VM_TCG_THREAD=${KWATCH_TCG_THREAD:-multi}
# KWATCH_QEMU: another qemu-system-x86_64 binary (the storm's A/B against a
# newer QEMU: docs/kernel-series.md, "The storm"); the default is Debian's,
# from PATH.
VM_QEMU=${KWATCH_QEMU:-qemu-system-x86_64}
# All default suites in one boot took 1553 s in the CI-like run of 5cbd336;
# kfuzztest's guided-against-random benchmark adds some 400 s.
VM_TIMEOUT=${KWATCH_VM_TIMEOUT:-2700}
# The default suites' run boots 6 times: kwatchd-panic panics the kernel
# five times (three fuzz inputs, and the stack-protector triage twice).
VM_MAX_BOOTS=8
# The guest's RAM file: /dev/shm when it has room for it (a container's
# 64 MiB one does not), else the runs directory.
RAM_DIR=${KWATCH_RAM_DIR:-/dev/shm}
if ! [ -d "$RAM_DIR" ] ||
	[ "$(df -k --output=avail "$RAM_DIR" | tail -n1)" -lt $(($(numfmt --from=iec "$VM_MEM") / 1024)) ]; then
	RAM_DIR=$RUNS_DIR
fi
SUMMARY=${KWATCH_KTAP_SUMMARY:-$KWATCH_TOP/build/host/ktap-summary}
KWATCHCTL=${KWATCH_KWATCHCTL:-$KWATCH_TOP/build/daemon/kwatchctl}
# log_buf_len: the suites find their reports by counting dmesg lines, which
# works only while the log buffer has not wrapped; a whole run logs more
# than the default 128 KiB.
# memmap/ramoops: 1 MiB at 768 MiB that the kernel leaves alone and QEMU
# keeps across a reset: pstore's ramoops backend keeps a panic's log there
# for the next boot (records of 64 KiB: a whole report and what led to it),
# and 64 KiB of pmsg, where kwatchd's spool records the blob in flight.
PSTORE_ARGS="memmap=1M\$0x30000000 ramoops.mem_address=0x30000000 ramoops.mem_size=0x100000 ramoops.record_size=0x10000 ramoops.pmsg_size=0x10000"
CMDLINE_BASE="root=/dev/vda rw console=ttyS0,115200 panic=-1 kasan_multi_shot log_buf_len=8M net.ifnames=0 idle=halt $PSTORE_ARGS ${KWATCH_CMDLINE:-}"

[ -f "$KERNEL" ] || die "no kernel at $KERNEL: run 'make kernel'"
[ -f "$IMG" ] || die "no image at $IMG: run 'make image'"

new_run_dir() {
	local d
	d=$RUNS_DIR/$(date +%Y%m%d-%H%M%S)-$1
	mkdir -p "$d"
	qemu-img create -q -f qcow2 -F raw -b "$IMG" "$d/disk.qcow2"
	# Keep the last 20 runs.
	ls -1dt "$RUNS_DIR"/*/ 2>/dev/null | tail -n +21 | xargs -r rm -rf
	echo "$d"
}

# qemu_args RUN: QEMU's arguments in QEMU.  A reset (a panic, panic=-1)
# ends QEMU (-no-reboot); vm_boot decides whether to boot again.  The
# guest's RAM is a file QEMU maps shared (VM_RAM, on /dev/shm), so a boot
# after a panic finds what ramoops kept, as after a warm reset, in a fresh
# QEMU.  The output files are appended to across boots.
qemu_args() {
	local run=$1
	VM_RAM=$RAM_DIR/kwatch-vm-ram-${run##*/}
	# shellcheck disable=SC2064 # this run's file, now
	trap "rm -f '$VM_RAM'" EXIT
	QEMU=("$VM_QEMU" -machine q35,memory-backend=ram -accel "tcg,thread=$VM_TCG_THREAD" -cpu max
		-smp "$VM_CPUS" -m "$VM_MEM" -nographic -no-reboot -nic none
		-object "memory-backend-file,id=ram,size=$VM_MEM,mem-path=$VM_RAM,share=on"
		-kernel "$KERNEL"
		-drive "file=$run/disk.qcow2,if=virtio,format=qcow2,cache=unsafe"
		-device virtio-rng-pci
		-device virtio-serial-pci
		-chardev "file,id=results,path=$run/ktap.txt,append=on"
		-device "virtserialport,chardev=results,name=org.kwatch.results"
		-chardev "file,id=events,path=$run/events.ndjson,append=on"
		-device "virtserialport,chardev=events,name=org.kwatch.events")
	# Extra QEMU arguments for debugging, e.g. a monitor socket.
	# shellcheck disable=SC2206
	[ -z "${KWATCH_QEMU_ARGS:-}" ] || QEMU+=($KWATCH_QEMU_ARGS)
}

cmd_shell() {
	local run
	run=$(new_run_dir shell)
	qemu_args "$run"
	say "booting $(cat "$KBUILD/include/config/kernel.release") (TCG, $VM_CPUS vCPUs, $VM_MEM); Ctrl-a x quits; logs in $run"
	"${QEMU[@]}" -serial mon:stdio -append "$CMDLINE_BASE"
}

# vm_boot RUN APPEND STEP [reboots]: boot QEMU in the background (console
# in RUN/console.log, kernel command line CMDLINE_BASE plus APPEND), call
# STEP about once a second while it runs, and leave its exit status in
# VM_RC (124 or 137: killed at KWATCH_VM_TIMEOUT, over all boots).  STEP
# shows what is new; it sees its caller's locals (run, shown, ...).  With
# "reboots", a guest that reset (QEMU exits 0) before the test runner said
# it is done is booted again, with the same disk and RAM, at most
# VM_MAX_BOOTS times in all; VM_BOOTS counts the boots.
vm_boot() {
	local run=$1 append=$2 step=$3 pid end=$((SECONDS + VM_TIMEOUT))
	VM_BOOTS=0
	while :; do
		VM_BOOTS=$((VM_BOOTS + 1))
		timeout -k 10 $((end - SECONDS)) "${QEMU[@]}" \
			-chardev "file,id=con,path=$run/console.log,append=on" -serial chardev:con \
			-append "$CMDLINE_BASE $append" >>"$run/qemu.log" 2>&1 &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			sleep 1
			"$step"
		done
		VM_RC=0
		wait "$pid" || VM_RC=$?
		if [ "${4:-}" != reboots ] || [ "$VM_RC" -ne 0 ] || [ $VM_BOOTS -ge "$VM_MAX_BOOTS" ] ||
			[ $((end - SECONDS)) -le 30 ] || grep -q '^# kwatch guest: done' "$run/ktap.txt"; then
			break
		fi
		say "the guest reset (boot $VM_BOOTS); booting it again with the same disk and RAM"
	done
	rm -f "$VM_RAM"
}

# cmd_test's step: the results as they arrive, each test's with its time
# and where its suite is ("[suite 3/28, 4m12s]": tests done of the
# suite's plan, time since the guest booted), and a heartbeat while there
# are none.  The suite's state (suite, plan, secs) is the caller's.
test_step() {
	local n line el num
	n=$(wc -l <"$run/ktap.txt")
	if [ "$n" -gt "$shown" ]; then
		while IFS= read -r line; do
			case $line in
			"    # Subtest: "*) suite=${line#    # Subtest: } plan=? ;;
			"    1.."*) plan=${line#    1..} ;;
			"    # "*": "[0-9]*" s") secs=${line##*: } ;;
			"    ok "* | "    not ok "*)
				num=${line#    }
				num=${num#not }
				num=${num#ok }
				el=$(($(date +%s) - t0))
				printf '  %s (%s) [%s %s/%s, %s]\n' "${line#    }" "${secs:-?}" \
					"$suite" "${num%% *}" "$plan" "$(mmss $el)" >&2
				secs= ;;
			"ok "* | "not ok "*) echo "  $line" >&2 ;;
			esac
		done < <(sed -n "$((shown + 1)),${n}p" "$run/ktap.txt")
		shown=$n
		last_beat=$(date +%s)
	elif [ $(($(date +%s) - last_beat)) -ge 30 ]; then
		say "guest running, $(($(date +%s) - t0))s; console: $(tail -n1 "$run/console.log" 2>/dev/null | tr -cd '[:print:]' | cut -c1-90)"
		last_beat=$(date +%s)
	fi
}

# The last diagnostic lines before each "not ok" of a KTAP file (a failed
# test's own "# ..." lines say why): printed at the end of a failed run,
# where a CI log's tail shows them.
failed_diag() {
	awk '/^ *# / { buf[n++ % 8] = $0; next }
	/^ *(not )?ok [0-9]+ / {
		if ($0 ~ /^ *not ok /) {
			print "why " $0 ":"
			for (i = n > 8 ? n - 8 : 0; i < n; i++)
				print buf[i % 8]
		}
		n = 0
	}' "$1" | cut -c1-240
}

cmd_test() {
	local suites=${1:-all} run t0 shown=0 last_beat rc=0 verdict suite=? plan=? secs=
	run=$(new_run_dir "${suites//,/+}")
	[ -z "${KWATCH_RUN_LINK:-}" ] || ln -sfn "$run" "$KWATCH_RUN_LINK"
	qemu_args "$run"
	: >"$run/ktap.txt"
	say "booting the guest for suite(s) '$suites' (TCG, $VM_CPUS vCPUs); run dir $run"
	t0=$(date +%s)
	last_beat=$t0
	vm_boot "$run" "kwatch.suite=$suites${KWATCH_TESTS:+ kwatch.tests=$KWATCH_TESTS}" test_step reboots
	rc=$VM_RC
	local secs=$(($(date +%s) - t0))

	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		say "the guest did not finish within ${VM_TIMEOUT}s: killed"
	elif ! grep -q '^# kwatch guest: done' "$run/ktap.txt" &&
		grep -q 'Kernel panic' "$run/console.log" 2>/dev/null; then
		say "the guest kernel panicked:"
		grep -m1 -A3 'Kernel panic' "$run/console.log" >&2
	elif [ "$rc" -ne 0 ]; then
		say "qemu exited with $rc: $(tail -n3 "$run/qemu.log")"
	fi
	local boot
	boot=$(grep -o 'kwatch-boot-seconds: [0-9.]*' "$run/ktap.txt" | head -n1 | cut -d' ' -f2 || true)
	[ -n "$boot" ] && say "boot to multi-user: ${boot}s of guest time (budget 30s); whole run ${secs}s"
	[ "$VM_BOOTS" -eq 1 ] || say "the guest was booted $VM_BOOTS times (a reset after a panic ends QEMU; vm.sh boots it again)"
	verdict=0
	"$SUMMARY" "$run/ktap.txt" || verdict=$?
	if [ $verdict -ne 0 ]; then
		failed_diag "$run/ktap.txt" >&2
		[ $verdict -eq 2 ] && echo "the KTAP stream is empty or cut short: the guest hung, panicked or never ran the suites" >&2
		echo "console log: $run/console.log" >&2
		echo "KTAP:        $run/ktap.txt" >&2
		return 1
	fi
	[ "$rc" -eq 0 ] || { echo "console log: $run/console.log" >&2; return 1; }
	collector_check "$run" || return 1
	schema_check "$run" || return 1
	rm -f "$run/disk.qcow2"
	return 0
}

# The host collector's side of the kwatchd-bpf suite: the bench events a
# socket client saw in the guest ("kwatch-collector-seqs: FIRST LAST COUNT
# SUM TIMESTAMP" in the KTAP) must all be in the stream the guest pushed
# through the virtio-serial port, with the same seq numbers.  Seq starts
# again at each daemon start: the file is read from the first event's
# timestamp to the next daemon_start.
collector_check() {
	local line want got first last ts
	line=$(sed -n 's/.*kwatch-collector-seqs: \([0-9]* [0-9]* [0-9]* [0-9]* [^ ]*\)$/\1/p' \
		"$1/ktap.txt" | tail -n1)
	[ -n "$line" ] || return 0
	read -r first last _ _ ts <<<"$line"
	want=${line% *}
	got=$(awk -v a="$first" -v b="$last" -v ts="\"timestamp\":\"$ts\"" '
		index($0, ts) { on = 1 }
		on && /"type":"daemon_start"/ { exit }
		on && /"type":"bench"/ {
			if (!match($0, /"seq":[0-9]+/)) next
			s = substr($0, RSTART + 6, RLENGTH - 6) + 0
			if (s >= a && s <= b) { n++; t += s }
		}
		END { printf "%d %d %d %d", a, b, n, t }' "$1/events.ndjson")
	if [ "$got" != "$want" ]; then
		say "host collector: the socket client saw bench seqs '$want' (first last count sum), events.ndjson has '$got'"
		return 1
	fi
	say "host collector: events.ndjson has the same $(echo "$want" | cut -d' ' -f3) bench seqs ($first..$last) as the socket client"
}

# Every event the guest pushed, and the per-client records the suites
# printed ("kwatch-event: {...}" in the KTAP: status, replies), must be
# events of docs/event-schema.json: an undocumented field or a changed
# type fails the run.
schema_check() {
	local out rc=0
	[ -s "$1/events.ndjson" ] || return 0
	sed -n 's/^ *# kwatch-event: //p' "$1/ktap.txt" >"$1/sampled-events.ndjson"
	out=$("$KWATCH_TOP/scripts/event-schema" validate "$1/events.ndjson" \
		"$1/sampled-events.ndjson" 2>&1) || rc=$?
	if [ $rc -ne 0 ]; then
		echo "$out" | tail -n 22 >&2
		say "event schema: the stream has events that docs/event-schema.json does not allow"
		return 1
	fi
	say "$(echo "$out" | tail -n1) (pushed stream and sampled records, against docs/event-schema.json)"
}

# cmd_run's step: the results port's new lines as they are, and the event
# stream's new lines as readable ones.  Both by whole lines: wc -l counts
# newlines, so a line the guest is still writing waits for the next step.
run_step() {
	local n
	n=$(wc -l <"$run/ktap.txt")
	if [ "$n" -gt "$shown" ]; then
		sed -n "$((shown + 1)),${n}p" "$run/ktap.txt"
		shown=$n
	fi
	n=$(wc -l <"$run/events.ndjson")
	if [ "$n" -gt "$ev_shown" ]; then
		sed -n "$((ev_shown + 1)),${n}p" "$run/events.ndjson" | show_events || true
		ev_shown=$n
	fi
}

# NDJSON on stdin as readable lines (raw without kwatchctl), marked.
show_events() {
	if [ -x "$KWATCHCTL" ]; then
		"$KWATCHCTL" follow -f - 2>&1
	else
		cat
	fi | sed 's/^/[event] /'
}

# The demonstration: boot, print what the guest reports and the events it
# streams as they arrive, keep the stream, summarise it.
cmd_run() {
	local run t0 shown=0 ev_shown=0 rc
	run=$(new_run_dir run)
	qemu_args "$run"
	: >"$run/ktap.txt"
	: >"$run/events.ndjson"
	[ -x "$KWATCHCTL" ] ||
		say "no $KWATCHCTL (make build/daemon/kwatchctl): events shown raw, no summary"
	say "booting the guest (TCG, $VM_CPUS vCPUs, $VM_MEM); run dir $run"
	t0=$(date +%s)
	vm_boot "$run" kwatch.run run_step
	rc=$VM_RC
	run_step	# what came in the last second
	mkdir -p "$KWATCH_TOP/build"
	cp "$run/events.ndjson" "$KWATCH_TOP/build/run-events.ndjson"
	if [ -s "$run/events.ndjson" ]; then
		say "event stream: $run/events.ndjson, copied to build/run-events.ndjson"
		if [ -x "$KWATCHCTL" ]; then
			echo "--- the event stream (kwatchctl summary build/run-events.ndjson)"
			"$KWATCHCTL" summary "$run/events.ndjson" || true
		fi
		"$KWATCH_TOP/scripts/event-schema" validate "$run/events.ndjson" | tail -n 21 || true
	else
		say "the guest sent no events on org.kwatch.events"
	fi
	grep -q '^# kwatch: run done' "$run/ktap.txt" ||
		die "the guest did not finish (exit $rc); console log: $run/console.log"
	say "guest powered off after $(($(date +%s) - t0))s; console log: $run/console.log"
}

case ${1:-} in
shell) cmd_shell ;;
run) cmd_run ;;
test) cmd_test "${2:-all}" ;;
*) die "usage: $0 shell | run | test SUITES" ;;
esac
