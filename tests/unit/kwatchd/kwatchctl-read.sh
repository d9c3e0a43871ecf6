#!/bin/bash
# kwatchctl reading saved streams: `summary` of the fixture (counts by type,
# seq ranges over a daemon restart, the one gap no lost record covers, the
# lost record's range, catches, crashes with their repeats, the torn line),
# and `follow -f` from a file and from stdin (crash and catch sentences,
# key=value for the rest).  kwatchctl is the ASan/UBSan build; exits 0 when
# all pass.
set -u
KWATCHCTL=@KWATCHCTL@
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
FIXTURE=@FIXTURE@
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fails=0

fail() { echo "# FAIL: $*"; fails=$((fails + 1)); }
# has FILE LINE: FILE holds LINE exactly.
has() { grep -qxF -- "$2" "$1" || fail "no line '$2' in $(basename "$1")"; }
# has_sub FILE TEXT: some line of FILE contains TEXT.
has_sub() { grep -qF -- "$2" "$1" || fail "nothing with '$2' in $(basename "$1")"; }

# --- summary ---------------------------------------------------------------
"$KWATCHCTL" summary "$FIXTURE" >"$d/sum" 2>"$d/sum.err" || fail "summary exited $?"
sed 's/^/# /' "$d/sum"
has "$d/sum" "events: 14 (1 line not JSON)"
has "$d/sum" "seq: 1..16 then 1..3, 2 daemon starts"
has "$d/sum" "gaps: 1, 3 events lost with no lost record: 10..12"
has "$d/sum" "lost records: 1, 4 events dropped and reported (push_queue): 4..7"
for tc in "catch 1" "config_applied 1" "crash 2" "crash_repeat 2" "daemon_start 2" \
	"fuzz_exec 2" "ksw_catch 1" "lost 1" "status 1" "wprobe_hit 1"; do
	has "$d/sum" "$(printf '  %-20s %s' ${tc})"
done
[ "$(sed -n '/^by type:$/,/^catches:/p' "$d/sum" | grep -c '^  ')" -eq 10 ] ||
	fail "not exactly 10 types"
has "$d/sum" "catches: 2"
has "$d/sum" "  seq 8 catch: watched test_canary_fn, corrupted by corrupt_helper+0x1c at 0xffffc90000317e48 len=8 depth=0 watched_pid=311 ip=0xffffffffc0201a1c pid=311 comm=kstackwatch_tes cpu=1"
has "$d/sum" "      stack: corrupt_helper+0x1c < test_canary_fn+0x3a < ksw_test_write+0x51"
has "$d/sum" "  seq 9 ksw_catch: watched test_depth_fn, corrupted by test_depth_corrupt+0x10 at 0xffffc90000317f00 length=8 depth=3 pid=312"
# The daemon's crash (count 1) and two crash_repeat events of its key make
# 3 reports; the other crash says repeat=2 itself.  The report text is cut
# to its first line.
has "$d/sum" "crashes: 2 distinct, 5 reports"
has "$d/sum" "  seq 13, 3 reports: KASAN: slab-out-of-bounds in overflow_on_nested_buffer (lib/kfuzztest/overflow.c:31): read of size 1 at 0xffff888004c3a1ff target=test_overflow_on_nested_buffer blob=03-overflow key=kasan-sob-overflow_on_nested_buffer crash_dir=/var/lib/kwatchd/crashes/test_overflow_on_nested_buffer-0001 text=BUG: KASAN: slab-out-of-bounds in overflow_on_nested_buffer+0x5a/0x90...[61 more bytes]"
has "$d/sum" "      frames: overflow_on_nested_buffer+0x5a < kfuzztest_write+0x1b2 < vfs_write+0x120"
has "$d/sum" "  seq 3, 2 reports: KASAN: use-after-free in underflow_on_buffer: write target=test_underflow_on_buffer blob=u-01"
has_sub "$d/sum.err" "line 11 is not a JSON object"

# The same from stdin.
"$KWATCHCTL" summary <"$FIXTURE" >"$d/sum2" 2>/dev/null || fail "summary from stdin exited $?"
cmp -s "$d/sum" "$d/sum2" || fail "summary from stdin differs from the file's"

# An empty stream, a clean one, and a file that is not there.
"$KWATCHCTL" summary </dev/null >"$d/empty" || fail "summary of nothing exited $?"
has "$d/empty" "events: 0"
has "$d/empty" "seq: none"
has "$d/empty" "gaps: 0"
has "$d/empty" "lost records: 0"
has "$d/empty" "catches: 0"
has "$d/empty" "crashes: 0"
sed -n '1,3p' "$FIXTURE" | "$KWATCHCTL" summary >"$d/clean" || fail "summary of 3 events exited $?"
has "$d/clean" "seq: 1..3, one daemon start"
has "$d/clean" "gaps: 0"
# A crash_repeat whose first report is not in the stream stands for it.
sed -n '8,9p' "$FIXTURE" | "$KWATCHCTL" summary >"$d/rep" || fail "summary of repeats exited $?"
has "$d/rep" "crashes: 1 distinct, 3 reports"
has_sub "$d/rep" "  seq 14, 3 reports, the first not in this stream: KASAN: slab-out-of-bounds in overflow_on_nested_buffer target=test_overflow_on_nested_buffer blob=04-overflow"
has "$d/rep" "gaps: 1, 13 events lost with no lost record: 1..13"
# A stream that starts late is missing its head.
sed -n '5,6p' "$FIXTURE" | "$KWATCHCTL" summary >"$d/late" || fail "summary of a late start exited $?"
has "$d/late" "gaps: 1, 7 events lost with no lost record: 1..7"
if "$KWATCHCTL" summary "$d/no-such-file" >/dev/null 2>&1; then fail "summary of a missing file succeeded"; fi

# --- follow -f -------------------------------------------------------------
"$KWATCHCTL" follow -f "$FIXTURE" >"$d/follow" 2>"$d/follow.err" || fail "follow -f exited $?"
[ "$(wc -l <"$d/follow")" -eq 14 ] || fail "follow -f printed $(wc -l <"$d/follow") lines, not 14"
has_sub "$d/follow" "13     2026-12-03T15:00:03.000000000Z crash            KASAN: slab-out-of-bounds in overflow_on_nested_buffer (lib/kfuzztest/overflow.c:31): read of size 1 at 0xffff888004c3a1ff target=test_overflow_on_nested_buffer blob=03-overflow frames=overflow_on_nested_buffer+0x5a,kfuzztest_write+0x1b2,vfs_write+0x120"
has_sub "$d/follow" "crash_repeat     KASAN: slab-out-of-bounds in overflow_on_nested_buffer target=test_overflow_on_nested_buffer blob=04-overflow key=kasan-sob-overflow_on_nested_buffer count=2"
has_sub "$d/follow" "catch            watched test_canary_fn, corrupted by corrupt_helper+0x1c at 0xffffc90000317e48 len=8"
has_sub "$d/follow" "stack=corrupt_helper+0x1c,test_canary_fn+0x3a,ksw_test_write+0x51"
has_sub "$d/follow" "ksw_catch        watched test_depth_fn, corrupted by test_depth_corrupt+0x10 at 0xffffc90000317f00"
has_sub "$d/follow" "wprobe_hit       event=kwatchd/w0 comm=cat pid=5 cpu=0 ip=kwatch_wp_write+0x3 args=value=0x1"
has_sub "$d/follow" "lost             source=push_queue count=4 first_seq=4 last_seq=7 client=0"
has_sub "$d/follow.err" "not JSON"
"$KWATCHCTL" follow -f - <"$FIXTURE" >"$d/follow2" 2>/dev/null || fail "follow -f - exited $?"
cmp -s "$d/follow" "$d/follow2" || fail "follow -f - differs from follow -f FILE"
# -r gives the lines back as they were; -t filters (lost records always pass).
"$KWATCHCTL" follow -r -f "$FIXTURE" >"$d/raw" 2>/dev/null || fail "follow -r -f exited $?"
grep -v '^{"seq":17,"timestamp":"2026-12-03T15:00:03.4$' "$FIXTURE" | cmp -s - "$d/raw" ||
	fail "follow -r -f does not give the JSON lines back unchanged"
"$KWATCHCTL" follow -t crash,catch -f "$FIXTURE" >"$d/typed" 2>/dev/null || fail "follow -t exited $?"
[ "$(awk '{print $3}' "$d/typed" | tr '\n' ' ')" = "lost catch crash crash " ] ||
	fail "follow -t crash,catch printed: $(awk '{print $3}' "$d/typed" | tr '\n' ' ')"
# A last line without its newline is still read.
printf '%s' "$(sed -n 2p "$FIXTURE")" | "$KWATCHCTL" follow -f - >"$d/nonl" || fail "follow of an unterminated line exited $?"
has_sub "$d/nonl" "config_applied   trigger=start watch=test_canary_fn 0:8"
if "$KWATCHCTL" follow -f "$d/no-such-file" >/dev/null 2>&1; then fail "follow -f of a missing file succeeded"; fi

# The fixture predates schema 1: kwatchctl reads it and says so, once.
has_sub "$d/follow.err" "before schema 1"
[ "$(grep -c 'before schema' "$d/follow.err")" -eq 1 ] || fail "the old-stream notice is not said once"

# --- schema 1 ----------------------------------------------------------------
V1='"schema":1,"start_id":"5e0d","host":"h","boot_id":"b"'
{
	echo "{$V1,\"seq\":1,\"id\":\"5e0d-1\",\"timestamp\":\"2026-12-04T21:00:00.000000000Z\",\"type\":\"catch\",\"watched\":\"foo\",\"address\":\"0xffffc90000317e48\",\"length\":8,\"depth\":0,\"ip\":\"0xffffffff81000010\",\"location\":\"bar+0x10/0x40\",\"pid\":5,\"kernel_ns\":123,\"frames\":[\"bar+0x10/0x40\",\"foo+0x20/0x80\"]}"
	echo "{$V1,\"seq\":2,\"id\":\"5e0d-2\",\"timestamp\":\"2026-12-04T21:00:01.000000000Z\",\"type\":\"crash\",\"kind\":\"kasan\",\"function\":\"f\",\"access\":\"read\",\"access_size\":4,\"address\":\"0x10\",\"key\":\"k\",\"count\":1}"
} >"$d/v1"
"$KWATCHCTL" follow -f "$d/v1" >"$d/v1.out" 2>"$d/v1.err" || fail "follow -f of schema 1 exited $?"
has_sub "$d/v1.out" "catch            watched foo, corrupted by bar+0x10/0x40 at 0xffffc90000317e48 length=8 depth=0 ip=0xffffffff81000010"
has_sub "$d/v1.out" "crash            kasan in f: read of size 4 at 0x10"
grep -qE ' (schema|start_id|id)=' "$d/v1.out" && fail "the envelope shown as payload: $(cat "$d/v1.out")"
[ -s "$d/v1.err" ] && fail "schema 1 read with a complaint: $(cat "$d/v1.err")"
"$KWATCHCTL" summary "$d/v1" >"$d/v1.sum" 2>&1 || fail "summary of schema 1 exited $?"
has "$d/v1.sum" "catches: 1"
# A newer schema: read, and said.
sed 's/"schema":1/"schema":2/' "$d/v1" | "$KWATCHCTL" follow -f - >"$d/v2.out" 2>"$d/v2.err" ||
	fail "follow -f of schema 2 exited $?"
has_sub "$d/v2.err" "events of schema 2: this kwatchctl reads schema 1"
[ "$(wc -l <"$d/v2.out")" -eq 2 ] || fail "schema 2: $(wc -l <"$d/v2.out") lines shown, not 2"

if [ $fails -ne 0 ]; then
	echo "# $fails check(s) failed"
	exit 1
fi
echo "# kwatchctl summary and follow -f: all checks passed"
