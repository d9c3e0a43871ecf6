# shellcheck shell=bash
# Helpers shared by the kwatchd suites and the demo: drop-in files written
# the way editors and tools should (atomically, by rename), and a socket
# client that records the event stream to $EV while a test runs.
CONF=/etc/kwatchd
EV=${EV:-/tmp/kwatchd-events.ndjson}
# Seconds follow_stop waits for late events before it stops the client.
FOLLOW_SETTLE=${FOLLOW_SETTLE:-0}

put() { printf '%b' "$3" >"$1/.$2.tmp" && mv "$1/.$2.tmp" "$1/$2"; }	# atomic, by rename
# pack DIR NAME BLOB...: a spool pack of the blobs (printf %b texts, under
# 64 KiB each): KWPACK01, then each blob's le32 length and bytes; renamed in.
pack() {
	local dir=$1 name=$2 b n
	shift 2
	{
		printf KWPACK01
		for b in "$@"; do
			n=$(printf '%b' "$b" | wc -c)
			printf "$(printf '\\x%02x\\x%02x\\x00\\x00' $((n & 255)) $((n >> 8)))"
			printf '%b' "$b"
		done
	} >"$dir/.$name.tmp" && mv "$dir/.$name.tmp" "$dir/$name"
}
events_of() { grep "\"type\":\"$1\"" "$EV"; }
follow_start() { kwatchctl follow -r >"$EV" 2>/dev/null & FOLLOW=$!; sleep 0.3; }
follow_stop() { sleep "$FOLLOW_SETTLE"; kill "$FOLLOW" 2>/dev/null; wait "$FOLLOW" 2>/dev/null; }
# at_least N DIR: DIR holds N files or more (for wait_for).
at_least() { [ "$(ls "$2" 2>/dev/null | wc -l)" -ge "$1" ]; }
# kwatchd_state: the unit's state once a reload in progress has finished
# (a drop-in change makes the daemon reload: "reloading" for a moment).
kwatchd_state() {
	wait_for 10 sh -c '[ "$(systemctl is-active kwatchd)" != reloading ]'
	systemctl is-active kwatchd
}
