#!/usr/bin/env bash
# `make stream-profile`: where kwatchd's event path spends its time, on the
# host, natively.  kwatchd runs with a stand-in configuration (no kernel
# interface, no BPF: only its own synthetic "bench" events), side by side
# with kwatch-bare's synthetic writer (a line a write, and 256 lines a
# write), each to 1 and to 4 counting clients; then, where perf may
# sample, kwatchd's profile for one client.  The VM figures (TCG, the BPF
# path too) come from the kwatchd-bpf suite; this is the profile behind
# them.  Writes build/stream-profile.txt.
. "$(dirname "$0")/lib.sh"
KW_STEP=stream-profile

B=$KWATCH_TOP/build
KWD=$B/daemon/kwatchd
CTL=$B/daemon/kwatchctl
BARE=$B/guest/opt/kwatch/bin/kwatch-bare
N=${KWATCH_PROFILE_EVENTS:-200000}
report=$B/stream-profile.txt
W=$(mktemp -d)
trap 'pkill -f "kwatchd -c $W/conf" 2>/dev/null || true; rm -rf "$W"' EXIT

mkdir -p "$W"/conf/{watch.d,wprobe.d,fuzz.d} "$W"/state
cat >"$W/conf/kwatchd.conf" <<CONF
[daemon]
socket = $W/events.sock
queue_events = 1000000
queue_kib = 1048576
journal = none
[kernel]
kstackwatch = $W/none
tracefs = $W/none
kfuzztest = $W/none
spool = $W/spool
[capture]
bpf = no
kmsg = no
pstore = no
crash_dir = $W/crashes
CONF

start_kwatchd() { # [WRAPPER...]
	STATE_DIRECTORY=$W/state "$@" "$KWD" -c "$W/conf" >"$W/kwatchd.log" 2>&1 &
	for _ in $(seq 100); do [ -S "$W/events.sock" ] && return 0; sleep 0.1; done
	cat "$W/kwatchd.log" >&2
	return 1
}

# counters K SOCKET: K counting clients of N bench events, in the background.
counters() {
	local i
	PIDS=()
	for i in $(seq "$1"); do
		"$BARE" count "$2" bench "$N" 5 >"$W/cnt.$i" &
		PIDS+=($!)
	done
}

# mean: the counters' mean rate, once they are done.
mean() {
	wait "${PIDS[@]}"
	cat "$W"/cnt.* | sed -n 's/.*rate=\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { printf "%d", s / NR }'
	rm -f "$W"/cnt.*
}

kwatchd_rate() { # K
	counters "$1" "$W/events.sock"
	sleep 0.3
	"$CTL" -s "$W/events.sock" bench "$N" >/dev/null
	mean
}

bare_rate() { # K BATCH
	rm -f "$W/bare.sock"
	"$BARE" synth "$W/bare.sock" "$1" "$N" "$2" >/dev/null &
	for _ in $(seq 50); do [ -S "$W/bare.sock" ] && break; sleep 0.1; done
	counters "$1" "$W/bare.sock"
	mean
	wait
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; }

{
	echo "# kwatchd's stream, natively on $(nproc) cores, $N synthetic events: events/s per client"
	start_kwatchd
	for k in 1 4; do
		kw=$(kwatchd_rate "$k")
		b1=$(bare_rate "$k" 1)
		b256=$(bare_rate "$k" 256)
		echo "stream-profile: $k client(s): kwatchd $kw, bare writer $b1 (a write a line) / $b256 (256 lines a write), ratio $(ratio "$kw" "$b1") / $(ratio "$kw" "$b256")"
	done
	pkill -f "kwatchd -c $W/conf"
	wait
	if perf record -q -o "$W/probe.data" -- true >/dev/null 2>&1; then
		start_kwatchd perf record -q -F 4000 -g -o "$W/perf.data" --
		kwatchd_rate 1 >/dev/null
		pkill -TERM -f "^$KWD -c $W/conf"
		wait
		echo "# kwatchd's profile, one client: the functions with the most samples (self)"
		perf report -i "$W/perf.data" --no-children --percent-limit 1.5 --stdio -g none \
			--sort dso,symbol 2>/dev/null | grep '%' | head -n 25
		echo "# ... and with their callees (children), kwatchd's own"
		perf report -i "$W/perf.data" --children --percent-limit 4 --stdio -g none \
			--sort symbol 2>/dev/null | grep '%' | grep -v '\[k\]' | head -n 25
	else
		echo "# perf cannot sample here: no profile"
	fi
} | tee "$report"
say "report: $report"
