#!/usr/bin/env bash
# byname-corpus.sh (make byname-corpus): watching by name measured over the
# whole kernel, not on examples (issue 31, item 1).  On the host: every
# function of vmlinux that loads the stack protector's canary (%gs:0x28),
# as kallsyms names it, into the image; in the guest, the MANUAL suite
# byname_corpus arms a sample of them by their source names alone, and a
# sample of the index's stack variables, through kwatchctl resolve and
# /proc/kstackwatch, and prints the shares and the reasons of the rest.
. "$(dirname "$0")/lib.sh"
KW_STEP=byname-corpus

OUT=$KWATCH_TOP/build/guest/opt/kwatch/corpus
REPORT=$KWATCH_TOP/build/byname-report.txt
mkdir -p "$OUT"
[ -f "$KBUILD/vmlinux" ] || die "no $KBUILD/vmlinux: run 'make kernel'"

# vmlinux's functions that load the canary, by their kallsyms names: not
# those of .init.text (freed after boot: nothing to watch), and not the
# .cold parts gcc splits off (their canary check is their function's).
list_canaried() {
	local t0
	t0=$(date +%s)
	objdump -d --no-show-raw-insn "$KBUILD/vmlinux" |
		awk '/^Disassembly of section / { text = $4 !~ /^\.(init|exit)\./; next }
		     /^[0-9a-f]+ <[^>]*>:$/ { fn = text ? substr($2, 2, length($2) - 3) : ""; next }
		     fn != "" && fn !~ /\.cold$/ && /%gs:0x28/ { print fn; fn = "" }' |
		sort -u >"$OUT/canaried.txt.tmp"
	mv "$OUT/canaried.txt.tmp" "$OUT/canaried.txt"
	say "$(wc -l <"$OUT/canaried.txt") functions of vmlinux load the stack canary" \
		"($(grep -c '\.' "$OUT/canaried.txt") of them compiler clones), in $(($(date +%s) - t0)) s"
}

# The suite in the guest, its figures into the report.
run_suite() {
	local rc=0 run
	KWATCH_RUN_LINK=$KWATCH_TOP/build/last-byname-run \
		"$KWATCH_TOP/scripts/vm.sh" test byname_corpus || rc=1
	run=$(readlink -f "$KWATCH_TOP/build/last-byname-run")
	{
		echo "make byname-corpus, $(date -u +%Y-%m-%dT%H:%MZ), run $run"
		sed -n 's/^ *# \(kwatch-corpus: .*\)$/\1/p' "$run/ktap.txt"
	} >"$REPORT"
	cat "$REPORT"
	return $rc
}

case ${1:-} in
list) list_canaried ;;
run) run_suite ;;
*) die "usage: byname-corpus.sh list|run (make byname-corpus runs both)" ;;
esac
