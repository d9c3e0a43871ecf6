#!/bin/bash
# Smoke-run each libFuzzer harness for a few seconds from the seed corpus
# (a copy: the seeds in git are not modified).  Any crash fails.
set -eu
FUZZDIR=@FUZZDIR@
CORPUS=@CORPUS@
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for h in fuzz_config fuzz_event fuzz_kmsg fuzz_kfuzztest fuzz_kfuzztest_tags fuzz_stackvars; do
	seeds=$CORPUS/${h#fuzz_}
	seeds=${seeds%_tags}
	mkdir -p "$work/$h"
	[ -d "$seeds" ] && cp -r "$seeds"/. "$work/$h/" 2>/dev/null || true
	if ! "$FUZZDIR/$h" -max_total_time=8 -max_len=40000 -rss_limit_mb=1024 \
		"$work/$h" >"$work/$h.log" 2>&1; then
		tail -n 40 "$work/$h.log"
		echo "FAIL: $h"
		exit 1
	fi
	echo "$h: $(grep -E '^Done|^#[0-9]+.*DONE' "$work/$h.log" | tail -n1)"
done
