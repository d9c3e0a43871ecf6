#!/bin/bash
# The event schema (docs/event-schema.json): it is valid JSON Schema and
# keeps the rules (lint), docs/event-schema.md holds its table, the real
# events in the fixture (one of each type, taken from a VM run) are valid,
# and events that break the contract are not: an undocumented field, a
# changed type, a missing field, an unknown type, an event of the stream
# before schema 1.  Exits 0 when all pass.
set -u
TOP=@TOP@
ES=$TOP/scripts/event-schema
FIXTURE=$TOP/tests/unit/kwatchd/events-v1.ndjson
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fails=0

fail() { echo "# FAIL: $*"; fails=$((fails + 1)); }
# valid WHAT: stdin is all valid.  invalid WHAT: stdin is not.
valid() { "$ES" validate - >"$d/out" 2>&1 || { fail "$1: $(tail -n2 "$d/out")"; return 1; }; }
invalid() { if "$ES" validate - >"$d/out" 2>&1; then fail "$1 passed the schema"; return 1; fi; echo "# refused as it should be: $1: $(head -n1 "$d/out" | cut -d: -f3-)"; }
# line TYPE: the fixture's event of TYPE.
line() { grep -m1 "\"type\":\"$1\"" "$FIXTURE"; }

"$ES" lint | sed 's/^/# /'; [ "${PIPESTATUS[0]}" -eq 0 ] || fail "lint"
"$ES" doc --check "$TOP/docs/event-schema.md" | sed 's/^/# /'; [ "${PIPESTATUS[0]}" -eq 0 ] || fail "the docs table"

"$ES" validate "$FIXTURE" >"$d/fix" 2>&1 || fail "the fixture: $(tail -n3 "$d/fix")"
sed 's/^/# /' "$d/fix" | tail -n1
# Every type the schema names has a real example in the fixture, but for
# those a test VM does not produce on its own.
rare=" bpf_unavailable fuzz_deferred fuzz_resumed fuzz_stalled push_failed push_recovered refused settings_pending state_error "
for t in $(python3 -c 'import json; print(" ".join(json.load(open("'"$TOP"'/docs/event-schema.json"))["$defs"]["types"]["$defs"]))'); do
	case "$rare" in *" $t "*) continue ;; esac
	grep -q "\"type\":\"$t\"" "$FIXTURE" || fail "no $t in the fixture"
done

c=$(line catch)
[ -n "$c" ] || fail "no catch in the fixture"
echo "$c" | sed 's/"watched":/"watched":"x","colour":/' | invalid "an undocumented field"
echo "$c" | sed 's/"length":\([0-9]*\)/"length":"\1"/' | invalid "length as a string"
echo "$c" | sed 's/"watched":"[^"]*",//' | invalid "catch without watched"
echo "$c" | sed 's/"type":"catch"/"type":"katch"/' | invalid "an unknown type"
echo "$c" | sed 's/"schema":1/"schema":2/' | invalid "schema 2"
echo "$c" | sed 's/"seq":\([0-9]*\),/"seq":"\1",/' | invalid "seq as a string"
echo "$c" | sed 's/"address":"0x/"address":"/' | invalid "an address without 0x"
# A cut event may lack its payload; its <key>_omitted counts are fields.
echo "$c" | sed 's/"watched":"[^"]*",/"truncated":true,"frames_omitted":3,/' | valid "a truncated catch"
l=$(line lost)
[ -n "$l" ] && { echo "$l" | sed 's/,"client":[-0-9]*//' | invalid "lost without client"; }
# Hits lost on their way from the kernel: the trace buffer, a line too long.
# (Here-strings: valid and invalid count a failure in this shell.)
for src in trace_buffer trace_line; do
	valid "lost from $src" <<<"$(echo "$l" | sed 's/"source":"[a-z_]*"/"source":"'$src'"/')"
done
invalid "lost from an unknown source" <<<"$(echo "$l" | sed 's/"source":"[a-z_]*"/"source":"trace"/')"
sed -n 1,5p "$TOP/tests/unit/kwatchd/kwatchctl-events.ndjson" | invalid "events from before schema 1"

if [ $fails -ne 0 ]; then
	echo "# $fails check(s) failed"
	exit 1
fi
echo "# event schema: all checks passed"
