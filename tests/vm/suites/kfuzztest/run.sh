#!/bin/bash
# Suite "kfuzztest": KFuzzTest targets in the booted guest, fed inputs in
# the v0 binary format built by kft_blob (guest/kfuzztest.sh): the sample targets'
# bugs reported by KASAN in the right function, every malformed input
# refused with EINVAL and no report, a length past its buffer's region
# refused with EINVAL and no report, a failed constraint visible in the
# kfuzztest_done trace event, and runs per second through debugfs.
#
# What it asserts: the four sample targets have a 0200 input file under
# /sys/kernel/debug/kfuzztest/, the same targets (and their constraints and
# annotations) are listed from vmlinux by the host tool kfuzztest-list
# (tests/host/, libelf; its listing is put in the image), and
# _config/minalign is 8; the parser's KUnit suite passed at boot (it also
# checks that the target records are in .rodata, that a refused input is
# left byte for byte as it was, and the region sizes a body sees);
# kfuzztest-bridge with each sample's schema and /dev/urandom gives the
# sample's KASAN report, an input it kept with -o replays it, a schema error
# names its line and column and a short stream is refused; an input built by
# the suite's own encoder (kft_blob, the v0 format in bash) gives one KASAN
# slab-out-of-bounds report in overflow_on_nested_buffer and one in
# underflow_on_buffer; 19 malformed inputs, one per rule of the format, each
# get EINVAL with no report; a length field past its buffer's region (an
# 8-byte buffer said to be 4096 bytes or 2^63) is refused with EINVAL
# (result=-22) and no report by the structured twins of
# test_pkcs7_parse_message and test_simple_record and by
# test_rsa_parse_pub_key, where the unfixed series gave 41 KASAN reports in
# look_up_OID, sprint_oid, asn1_ber_decoder and simple_record_sum, and the
# same inputs with the region's length run to their end; a failed
# KFUZZTEST_EXPECT_* shows as result=1 in kfuzztest:kfuzztest_done; valid
# PKCS#7 and RSA (PKCS#1 DER) inputs made with openssl on the host, and 60
# random inputs from the bridge, run through the three crypto targets to
# completion with no report.
#
# Raw buffers: the sample test_simple_record (FUZZ_TEST_SIMPLE) has
# input_simple (0200) beside its structured twin's input, both listed by
# kfuzztest-list; a whole record runs to its end (kfuzztest_done result 0)
# with no report, a record without its checksum byte is one KASAN report in
# simple_record_sum through input_simple and through input, a 64 KiB + 1
# write is EINVAL (KUnit covers the empty one), and 200 raw inputs from
# kfuzztest-bridge -r all run; the KUnit suite kfuzztest_simple passed at
# boot.
#
# Derived schemas: schemas derived from the running kernel's BTF and the
# image's target table (kfuzztest-bridge -t) give, for every target, the
# hand-written schema's input byte for byte (a target the test has no schema
# for fails it), and 100 random inputs from the derived schema run each body
# to its end at least as often as 100 from the hand-written one
# (test_trivial: 100 vs 0; the derivation's time printed).
#
# Coverage guidance: kfuzztest-fuzz (libFuzzer steered by KCOV) on
# test_guided_frame from an empty corpus stops at its first report, the
# KASAN report in guided_frame_sum, and its kept input and libFuzzer's crash
# file each replay it (executions and seconds to the bug printed); the seed
# article's bug, PKCS#7's off-by-one (pkcs7_message.test_off_by_one, off by
# default and after the test): a valid message parses with it on, cut one
# byte short it is read past its end with it on and refused without a report
# with it off, kfuzztest-fuzz --raw from an empty corpus finds it (KASAN in
# asn1_ber_decoder under pkcs7_parse_message; the crash file and the kept
# input are the same and replay it), and as many random raw inputs give no
# report (executions and seconds printed).
#
# Module targets: kwfuzzmod (tests/usermod, built out of tree): listed by
# kfuzztest-list from its .ko (targets with their module, constraint,
# annotation, simple target); its directories come with insmod and go with
# rmmod; the bridge derives its schema from /sys/kernel/btf/kwfuzzmod (the
# hand-written schema's input byte for byte; refused, naming the module,
# while it is not loaded); a run, and a KASAN report in kwfm_sum from its
# raw target; rmmod fails while a run is in the module, a write through a
# file held open across the unload fails, and loaded again it runs.
#
# Last: six writers at once (three on test_trivial, one each on a raw
# record, a PKCS#7 message and an RSA key, 100 writes each): every write
# returns its size and num_invocations grows by exactly the number of
# writes; a writer killed in a run (the NULL-pointer sample's oops in
# read_through) leaves the target usable: the next write to it returns.
#
# Benchmarks (b_*, make bench only): b_guided_vs_random (as many random
# inputs from the same derived schema as the guided run took: no report,
# both timed in one boot), b_pmsg_record_cost (the bridge and kfuzztest-fuzz
# with and without the pmsg record of each input) and b_runs_per_second
# (runs per second for one writer and for two).
. /opt/kwatch/tests/guest/ktap.sh

. /opt/kwatch/tests/guest/kfuzztest.sh

mark() { MARK=$(dmesg | wc -l); }
since_mark() { dmesg | tail -n +$((MARK + 1)); }
kasan_reports() { since_mark | grep -c 'BUG: KASAN' || true; }
# A test that needs KASAN's report skips on a kernel without it (the
# kcsan flavour: KCSAN and KASAN exclude each other).
need_kasan() {
	grep -qw kasan_report /proc/kallsyms && return 0
	skip "no KASAN in this kernel (the kcsan flavour): the test checks KASAN's reports"
}
B=/opt/kwatch/bin/kfuzztest-bridge
TAB=/opt/kwatch/kfuzztest-targets.txt

t_targets_listed() {
	local t
	[ -d $KFT ] || fail "$KFT missing: no KFuzzTest in this kernel" || return 1
	ls $KFT
	for t in test_overflow_on_nested_buffer test_underflow_on_buffer test_trivial test_null_deref; do
		[ -e $KFT/$t/input ] || fail "target $t has no input file" || return 1
		expect_eq "$t/input mode" "$(stat -c %a $KFT/$t/input)" 200 || return 1
	done
	expect_eq "minalign" "$(cat $KFT/_config/minalign)" 8 || return 1
	# The host's kfuzztest-list read the same targets from vmlinux.
	local listed debugfs
	[ -r /opt/kwatch/kfuzztest-targets.txt ] || fail "no kfuzztest-list output in the image" || return 1
	grep -v '^target' /opt/kwatch/kfuzztest-targets.txt
	listed=$(awk '$1 == "target" { print $2 }' /opt/kwatch/kfuzztest-targets.txt | sort | tr '\n' ' ')
	debugfs=$(ls $KFT | grep -v '^_config$' | sort | tr '\n' ' ')
	expect_eq "targets in vmlinux (kfuzztest-list) and in debugfs" "$listed" "$debugfs" || return 1
	grep -qx 'constraint struct trivial_arg.x EXPECT_LE 1000 0' /opt/kwatch/kfuzztest-targets.txt ||
		fail "the trivial target's constraint is not listed" || return 1
	grep -qx 'annotation struct some_buffer.buflen LEN buf' /opt/kwatch/kfuzztest-targets.txt ||
		fail "the underflow target's annotation is not listed"
}

# The parser's KUnit suite ran at boot: nest its KTAP.
t_parser_kunit() {
	local res=/sys/kernel/debug/kunit/kfuzztest_parse/results
	[ -r $res ] || fail "$res missing" || return 1
	sed 's/^/KTAP:/' $res
	grep -q '^ok 1 kfuzztest_parse' $res || fail "KUnit suite kfuzztest_parse failed" || return 1
	res=/sys/kernel/debug/kunit/kfuzztest_simple/results
	[ -r $res ] || fail "$res missing" || return 1
	sed 's/^/KTAP:/' $res
	grep -q '^ok 1 kfuzztest_simple' $res || fail "KUnit suite kfuzztest_simple failed"
}

# A raw-buffer target (FUZZ_TEST_SIMPLE, the sample test_simple_record):
# input_simple beside its structured twin's input, both listed from
# vmlinux; a whole record runs to its end with no report; a record that
# lacks its checksum byte is one KASAN report in simple_record_sum,
# through input_simple and through the structured input; an oversize
# write is EINVAL; the bridge's raw inputs (-r) all run.
t_simple_target() {
	local t=test_simple_record err f
	need_kasan || return
	for f in input input_simple; do
		expect_eq "$t/$f mode" "$(stat -c %a $KFT/$t/$f 2>&1)" 200 || return 1
	done
	grep -qx "simple $t" $TAB || fail "kfuzztest-list does not list $t as simple" || return 1
	grep -qx "target $t struct kfuzztest_simple_arg_$t (16 bytes)" $TAB ||
		fail "kfuzztest-list does not list $t's structured twin" || return 1
	echo >$T/trace
	echo 1 >$T/events/kfuzztest/enable
	mark
	printf 'KW\003abc&' >$W/rec_ok
	printf 'KW\003abc' >$W/rec_short
	feed_simple() { dd if="$2" of=$KFT/$1/input_simple bs=1M 2>&1 >/dev/null | grep -v 'records\|copied'; }
	err=$(feed_simple $t $W/rec_ok)
	[ -z "$err" ] || fail "a whole record refused: $err" || return 1
	echo 0 >$T/events/kfuzztest/enable
	grep kfuzztest_ $T/trace
	grep -q "kfuzztest_done: target=$t size=7 duration_ns=[0-9]* result=0" $T/trace ||
		fail "no kfuzztest_done for the raw input" || return 1
	expect_eq "KASAN reports for a whole record" "$(kasan_reports)" 0 || return 1
	mark
	feed_simple $t $W/rec_short
	expect_eq "KASAN reports for a short record (input_simple)" "$(kasan_reports)" 1 || return 1
	since_mark | grep -q 'BUG: KASAN: slab-out-of-bounds in simple_record_sum' ||
		fail "not a slab-out-of-bounds in simple_record_sum" || return 1
	mark
	kft_buffer_blob $W/rec_short_structured $W/rec_short
	feed $t $W/rec_short_structured
	expect_eq "KASAN reports for a short record (input)" "$(kasan_reports)" 1 || return 1
	since_mark | grep -q 'BUG: KASAN: .*in simple_record_sum' || fail "not in simple_record_sum" || return 1
	# (An empty write cannot be made from the shell: dd writes nothing;
	# KUnit's kfuzztest_simple_sizes covers it.)
	head -c 65537 /dev/zero >$W/big
	err=$(feed_simple $t $W/big)
	case $err in *'Invalid argument'*) echo "64 KiB + 1: EINVAL" ;; *) fail "64 KiB + 1: '${err:-accepted}'"; return 1 ;; esac
	mark
	$B -r -s 200 -n 200 $t /dev/urandom || fail "a raw input from the bridge was refused" || return 1
	echo "kfuzztest-bridge -r: 200 raw inputs of 1 to 200 bytes written, $(kasan_reports) KASAN reports"
}

# feed_expect_oob TARGET INPUT FUNCTION: the write runs the target, and
# KASAN reports exactly one slab-out-of-bounds 1-byte read in FUNCTION.
feed_expect_oob() {
	local err log
	mark
	err=$(feed "$1" "$2")
	[ -z "$err" ] || fail "write refused: $err" || return 1
	log=$(since_mark)
	echo "$log" | grep -A2 'BUG: KASAN' | head -3
	expect_eq "KASAN reports" "$(kasan_reports)" 1 || return 1
	echo "$log" | grep -q "BUG: KASAN: slab-out-of-bounds in $3" ||
		fail "not a slab-out-of-bounds in $3" || return 1
	echo "$log" | grep -q 'Read of size 1' || fail "not a 1-byte read"
}

t_overflow_on_nested_buffer() {
	need_kasan || return
	kft_blob $W/nested "$NESTED_REGS" "0:0:1 0:16:2" "$NESTED_PAYLOAD"
	feed_expect_oob test_overflow_on_nested_buffer $W/nested overflow_on_nested_buffer
}

t_underflow_on_buffer() {
	need_kasan || return
	kft_blob $W/under "$UNDER_REGS" "0:0:1" "$UNDER_PAYLOAD"
	feed_expect_oob test_underflow_on_buffer $W/under underflow_on_buffer
}

# kfuzztest-bridge with each sample's schema and /dev/urandom: the
# sample's bug is reported by KASAN in the sample's function.  An input
# the bridge kept in a file (-o) replays the same report.
t_bridge_samples() {
	need_kasan || return
	[ -x $B ] || fail "kfuzztest-bridge not in the image" || return 1
	mark
	$B 'nested_buffers { ptr[a] len[a, u64] ptr[b] len[b, u64] }; a { arr[u8, 16] }; b { arr[u8, 40] };' \
		test_overflow_on_nested_buffer /dev/urandom || fail "bridge run failed" || return 1
	expect_eq "KASAN reports" "$(kasan_reports)" 1 || return 1
	since_mark | grep -q 'BUG: KASAN: slab-out-of-bounds in overflow_on_nested_buffer' ||
		fail "not a slab-out-of-bounds in overflow_on_nested_buffer" || return 1
	$B -o $W/bridge_under 'some_buffer { ptr[buf] len[buf, u64] }; buf { arr[u8, 24] };' \
		test_underflow_on_buffer /dev/urandom || fail "bridge -o failed" || return 1
	feed_expect_oob test_underflow_on_buffer $W/bridge_under underflow_on_buffer || return 1
	# A schema error names its place; a short stream is an error.
	$B 'x { ptr[nope] }' test_trivial /dev/urandom 2>&1 | grep -x "schema:1:5: no region named 'nope'" ||
		fail "no positioned schema error" || return 1
	head -c 4 /dev/urandom >$W/short
	$B 'trivial_arg { u64 u64 }' test_trivial $W/short 2>&1 | grep 'ended 12 bytes short' ||
		fail "a short stream was not refused"
}

# One input per rule of the format; each must get EINVAL and run nothing.
t_malformed_inputs_einval() {
	local name err n=0 bad=0
	kft_blob $W/m_magic "$NESTED_REGS" "0:0:1 0:16:2" "$NESTED_PAYLOAD" "" 0xbfacf
	kft_blob $W/m_version "$NESTED_REGS" "0:0:1 0:16:2" "$NESTED_PAYLOAD" "" 0xbface 1
	printf '\xce\xfa\x0b\x00' >$W/m_short
	kft_blob $W/m_no_regions "" "" "$(zeros 40)"
	kft_blob $W/m_region0_small "0:16 24:16" "0:0:1" "$UNDER_PAYLOAD"
	kft_blob $W/m_unaligned_region "0:32 41:16 64:16" "0:0:1 0:16:2" "$NESTED_PAYLOAD"
	kft_blob $W/m_no_gap "0:32 32:16 64:16" "0:0:1 0:16:2" "$NESTED_PAYLOAD"
	kft_blob $W/m_overlap "0:32 40:32 64:16" "0:0:1 0:16:2" "$NESTED_PAYLOAD"
	kft_blob $W/m_past_end "0:32 40:16 64:24" "0:0:1 0:16:2" "$NESTED_PAYLOAD"
	kft_blob $W/m_no_tail_pad "0:32 40:16 64:20" "0:0:1 0:16:2" "$NESTED_PAYLOAD"
	kft_blob $W/m_small_padding "$NESTED_REGS" "0:0:1 0:16:2" "$NESTED_PAYLOAD" 4
	kft_blob $W/m_reloc_region "$NESTED_REGS" "3:0:1" "$NESTED_PAYLOAD"
	kft_blob $W/m_reloc_value "$NESTED_REGS" "0:0:3" "$NESTED_PAYLOAD"
	kft_blob $W/m_reloc_unaligned "$NESTED_REGS" "0:4:1" "$NESTED_PAYLOAD"
	kft_blob $W/m_reloc_outside "$NESTED_REGS" "0:32:1" "$NESTED_PAYLOAD"
	kft_blob $W/m_end_unaligned "$NESTED_REGS" "0:0:1 0:16:2" "${NESTED_PAYLOAD}00"
	# num_regions = 0x20000000: 8 * n overflows nothing on 64 bits but
	# runs far past the input.
	hex2bin "$(le32 0xbface)$(le32 0)$(le32 0x20000000)$(zeros 40)" $W/m_regions_overflow
	hex2bin "$(le32 0xbface)$(le32 0)$(le32 1)$(le32 0)$(le32 32)$(le32 0xffffffff)$(le32 8)$(zeros 48)" $W/m_entries_huge
	head -c 70000 /dev/zero >$W/m_oversize
	mark
	for f in $W/m_*; do
		name=${f##*/}
		n=$((n + 1))
		err=$(feed test_overflow_on_nested_buffer $f)
		case $err in
		*'Invalid argument'*) echo "$name: EINVAL" ;;
		*) echo "FAIL: $name: '${err:-accepted}'"; bad=$((bad + 1)) ;;
		esac
	done
	expect_eq "malformed inputs not refused with EINVAL (of $n)" $bad 0 || return 1
	expect_eq "KASAN reports" "$(kasan_reports)" 0
}

# A failed KFUZZTEST_EXPECT_* skips the body: kfuzztest_done says result=1.
t_constraint_skips_body() {
	local ev=$T/events/kfuzztest ok skip null
	[ -d $ev ] || fail "no kfuzztest trace events" || return 1
	echo >$T/trace
	echo 1 >$ev/enable
	kft_blob $W/triv_ok "0:16" "" "$(trivial_payload 5)"
	kft_blob $W/triv_skip "0:16" "" "$(trivial_payload 5000)"
	# nested_buffers with b NULL: EXPECT_NOT_NULL(b) fails, no KASAN report.
	kft_blob $W/nested_null "$NESTED_REGS" "0:0:1 0:16:4294967295" "$NESTED_PAYLOAD"
	mark
	feed test_trivial $W/triv_ok
	feed test_trivial $W/triv_skip
	feed test_overflow_on_nested_buffer $W/nested_null
	echo 0 >$ev/enable
	grep kfuzztest_ $T/trace
	ok=$(grep -c 'kfuzztest_done: target=test_trivial size=[0-9]* duration_ns=[0-9]* result=0' $T/trace)
	skip=$(grep -c 'kfuzztest_done: target=test_trivial size=[0-9]* duration_ns=[0-9]* result=1' $T/trace)
	null=$(grep -c 'kfuzztest_done: target=test_overflow_on_nested_buffer .* result=1' $T/trace)
	expect_eq "trivial runs done, skipped; nested with NULL skipped" "$ok,$skip,$null" "1,1,1" || return 1
	expect_eq "kfuzztest_run events" "$(grep -c 'kfuzztest_run: target=' $T/trace)" 3 || return 1
	expect_eq "KASAN reports" "$(kasan_reports)" 0
}

# An input whose region 1 is the bytes of FILE, pointed at by region 0's
# { ptr, u64 len } (the crypto targets' argument structures).
kft_buffer_blob() { # OUT FILE
	local n tail
	n=$(stat -c %s "$2")
	tail=$(( ( (24 + n + 8 + 7) / 8 * 8) - 24 - n ))
	kft_blob "$1" "0:16 24:$n" "0:0:1" \
		"$(le64 0)$(le64 "$n")$(zeros 8)$(od -An -v -tx1 "$2" | tr -d ' \n')$(zeros $tail)"
}

# The crypto targets: valid PKCS#7 and RSA inputs made with openssl on the
# host run with no report; random inputs from the bridge run without a
# crash of the harness (each write succeeds) and no report.
t_crypto_targets() {
	local in=/opt/kwatch/kfuzztest-inputs t err i
	for t in test_pkcs7_parse_message test_rsa_parse_pub_key test_rsa_parse_priv_key; do
		[ -e $KFT/$t/input ] || fail "no target $t" || return 1
	done
	echo >$T/trace
	echo 1 >$T/events/kfuzztest/enable
	mark
	kft_buffer_blob $W/pkcs7 $in/pkcs7.der
	kft_buffer_blob $W/rsa_pub $in/rsa_pub.der
	kft_buffer_blob $W/rsa_priv $in/rsa_priv.der
	for t in pkcs7:test_pkcs7_parse_message rsa_pub:test_rsa_parse_pub_key \
		 rsa_priv:test_rsa_parse_priv_key; do
		err=$(feed ${t#*:} $W/${t%%:*})
		[ -z "$err" ] || fail "${t%%:*}: $err" || return 1
	done
	for i in $(seq 20); do
		for t in test_pkcs7_parse_message test_rsa_parse_pub_key test_rsa_parse_priv_key; do
			$B 'arg { ptr[d] len[d, u64] }; d { arr[u8, 300] };' $t /dev/urandom ||
				fail "random input $i to $t: the write failed" || return 1
		done
	done
	echo 0 >$T/events/kfuzztest/enable
	grep -c 'kfuzztest_done: target=test_' $T/trace
	expect_eq "completed runs (3 valid + 60 random)" \
		"$(grep -c 'kfuzztest_done: target=test_[a-z0-9_]* size=[0-9]* duration_ns=[0-9]* result=0' $T/trace)" 63 || return 1
	expect_eq "KASAN reports" "$(kasan_reports)" 0
}

# A length field is a hint to fuzzers, not a promise (issue 29, item 2):
# an input whose length says more than its buffer's region holds is
# refused with EINVAL before the code under test runs, not run into a
# KASAN report that would look like a bug of that code.  An 8-byte buffer
# whose DER (or record) header announces thousands of bytes, with a length
# field of 4096 and of 2^63: the structured twins of two FUZZ_TEST_SIMPLE
# targets (test_pkcs7_parse_message: the ASN.1 decoder would read past
# the region; test_simple_record) and a FUZZ_TEST() with a LEN
# (test_rsa_parse_pub_key).  The same inputs with the length the region
# has still run, to their end.
t_length_tied_to_region() {
	local c t buf len err refused=0 ran=0 n=0
	echo >$T/trace
	echo 1 >$T/events/kfuzztest/enable
	mark
	for c in test_pkcs7_parse_message:30820ff806092a86 test_simple_record:4b57106162636465 \
		 test_rsa_parse_pub_key:30820ff802820ff0; do
		t=${c%%:*} buf=${c#*:}
		for len in 4096 -9223372036854775808 8; do
			kft_blob $W/len_$t "0:16 24:8" "0:0:1" "$(le64 0)$(le64 $len)$(zeros 8)$buf$(zeros 8)"
			err=$(feed $t $W/len_$t)
			n=$((n + 1))
			case $len:$err in
			8:) ran=$((ran + 1)) ;;
			8:*) echo "FAIL: $t, datalen 8: '$err'" ;;
			*:*'Invalid argument'*) echo "$t, datalen $len, an 8-byte region: EINVAL"
				refused=$((refused + 1)) ;;
			*) echo "FAIL: $t, datalen $len, an 8-byte region: '${err:-accepted}'" ;;
			esac
		done
	done
	echo 0 >$T/events/kfuzztest/enable
	since_mark | grep -A1 'BUG: KASAN' | head -4
	expect_eq "lengths past the region refused (of 6)" $refused 6 || return 1
	expect_eq "lengths the region holds run (of 3)" $ran 3 || return 1
	expect_eq "kfuzztest_done with result=-22" \
		"$(grep -c 'kfuzztest_done: target=test_[a-z0-9_]* .* result=-22' $T/trace)" 6 || return 1
	expect_eq "kfuzztest_done with result=0" \
		"$(grep -c 'kfuzztest_done: target=test_[a-z0-9_]* .* result=0' $T/trace)" 3 || return 1
	expect_eq "KASAN reports" "$(kasan_reports)" 0
}

# Hand-written schemas of every target in the tree, with 64-byte buffers
# (the bridge's default for a derived one).
HAND_test_pkcs7_parse_message='kfuzztest_simple_arg_test_pkcs7_parse_message { ptr[data] len[data, u64] }; data { arr[u8, 64] };'
HAND_test_rsa_parse_priv_key='rsa_parse_priv_key_arg { ptr[key] len[key, u64] }; key { arr[u8, 64] };'
HAND_test_rsa_parse_pub_key='rsa_parse_pub_key_arg { ptr[key] len[key, u64] }; key { arr[u8, 64] };'
HAND_test_overflow_on_nested_buffer='nested_buffers { ptr[a] len[a, u64] ptr[b] len[b, u64] }; a { arr[u8, 64] }; b { arr[u8, 64] };'
HAND_test_underflow_on_buffer='some_buffer { ptr[buf] len[buf, u64] }; buf { arr[u8, 64] };'
HAND_test_trivial='trivial_arg { u64 u64 };'
HAND_test_null_deref='maybe_null { ptr[v] }; v { u64 };'
HAND_test_simple_record='kfuzztest_simple_arg_test_simple_record { ptr[data] len[data, u64] }; data { arr[u8, 64] };'
HAND_test_guided_frame='guided_frame { ptr[data] len[data, u64] ptr[rec] }; data { arr[u8, 64] }; rec { u8 u8 };'

# Schemas derived from the running kernel's BTF and the image's target
# table (kfuzztest-bridge -t): for every target the kernel has, the derived
# input is the hand-written schema's byte for byte (same regions, sizes and
# relocations; a zero stream).  A target the test has no hand-written
# schema for fails it.
t_derived_schemas() {
	local t var n=0 s e
	[ -r /sys/kernel/btf/vmlinux ] || fail "no /sys/kernel/btf/vmlinux" || return 1
	for t in $(awk '$1 == "target" { print $2 }' $TAB); do
		var=HAND_$t
		[ -n "${!var:-}" ] || fail "$t: the test has no hand-written schema to compare with" || return 1
		echo "$t: $($B -t $TAB -p $t 2>&1)"
		$B -t $TAB -o $W/derived_$t $t /dev/zero || fail "$t: no derived input" || return 1
		$B -o $W/hand_$t "${!var}" $t /dev/zero || fail "$t: no hand-written input" || return 1
		cmp -s $W/derived_$t $W/hand_$t ||
			fail "$t: the derived input differs from the hand-written schema's" || return 1
		n=$((n + 1))
	done
	expect_eq "targets whose derived input is the hand-written one's" $n "$(grep -c '^target' $TAB)" || return 1
	s=$(date +%s%N)
	for t in 1 2 3 4 5 6 7 8 9 10; do
		$B -t $TAB -p test_overflow_on_nested_buffer >/dev/null || return 1
	done
	e=$(date +%s%N)
	echo "kfuzztest-bench: deriving a schema from /sys/kernel/btf/vmlinux ($(stat -c %s /sys/kernel/btf/vmlinux) bytes): $(((e - s) / 10000000)) ms (TCG, a process each)"
	expect_eq "an unknown target" "$($B -t $TAB -p no_such_target 2>&1)" "no target 'no_such_target' in $TAB"
}

# Random inputs from the derived schema reach the target's body at least
# as often as random inputs from the hand-written one: 100 of each per
# target, the completed runs counted in kfuzztest_done (result=0; 1 is a
# body a constraint skipped).  Not the two targets whose bug any input
# hits.
t_derived_reach_body() {
	local t var n=100 d h bad=0
	echo 1 >$T/events/kfuzztest/enable
	mark
	for t in test_trivial test_null_deref test_pkcs7_parse_message test_rsa_parse_pub_key \
		 test_rsa_parse_priv_key; do
		var=HAND_$t
		echo >$T/trace
		$B -t $TAB -n $n $t /dev/urandom || fail "$t: a derived input was refused" || return 1
		d=$(grep -c "kfuzztest_done: target=$t size=[0-9]* duration_ns=[0-9]* result=0" $T/trace)
		echo >$T/trace
		$B -n $n "${!var}" $t /dev/urandom || fail "$t: a hand-written input was refused" || return 1
		h=$(grep -c "kfuzztest_done: target=$t size=[0-9]* duration_ns=[0-9]* result=0" $T/trace)
		echo "kfuzztest-bench: $t: random inputs that ran the body to its end: derived schema $d of $n, hand-written $h of $n"
		[ "$d" -ge "$h" ] || { echo "FAIL: $t: fewer from the derived schema"; bad=$((bad + 1)); }
		[ "$d" -gt 0 ] || { echo "FAIL: $t: no derived input ran the body"; bad=$((bad + 1)); }
	done
	echo 0 >$T/events/kfuzztest/enable
	expect_eq "targets where the derived schema did worse" $bad 0 || return 1
	expect_eq "KASAN reports" "$(kasan_reports)" 0
}

# Targets in a loadable module (tests/usermod/kwfuzzmod, built against
# the kernel build as a developer builds theirs, in no table of the
# image): kfuzztest-list reads them from the .ko; the directories appear
# with insmod and go with rmmod; the bridge derives the structured
# target's schema from /sys/kernel/btf/kwfuzzmod, the hand-written
# schema's input byte for byte, and it runs; the raw target's bug is a
# KASAN report in kwfm_sum; a run in the module (delay_ms) keeps rmmod
# from removing it until the run returns; a write through a file held
# open across the unload fails; loaded again, the targets are back.
UMOD=/opt/kwatch/usermod/kwfuzzmod.ko
HAND_kwfm_record='kwfm_record { ptr[data] len[data, u64] u32 }; data { arr[u8, 64] };'
t_module_targets() {
	local mt=$W/kwfuzzmod.table n0 pid rc
	need_kasan || return
	rmmod kwfuzzmod 2>/dev/null
	[ ! -e $KFT/kwfm_record ] || fail "kwfm_record is there before its module" || return 1
	/opt/kwatch/bin/kfuzztest-list $UMOD >$mt || fail "kfuzztest-list cannot read $UMOD" || return 1
	cat $mt
	grep -qx 'target kwfm_record struct kwfm_record (24 bytes) module kwfuzzmod' $mt ||
		fail "kfuzztest-list: no kwfm_record of module kwfuzzmod" || return 1
	grep -qx 'simple kwfm_raw' $mt || fail "kfuzztest-list: no simple kwfm_raw" || return 1
	grep -qx 'constraint struct kwfm_record.delay_ms EXPECT_LE 10000 0' $mt ||
		fail "kfuzztest-list: the module's constraint is missing" || return 1
	grep -qx 'annotation struct kwfm_record.len LEN data' $mt ||
		fail "kfuzztest-list: the module's annotation is missing" || return 1
	$B -t $mt -p kwfm_record 2>&1 | grep -q 'no BTF of module kwfuzzmod' ||
		fail "derived with the module not loaded" || return 1
	insmod $UMOD || fail "insmod $UMOD" || return 1
	expect_eq "kwfm_record/input mode" "$(stat -c %a $KFT/kwfm_record/input 2>&1)" 200 || return 1
	expect_eq "kwfm_raw/input_simple mode" "$(stat -c %a $KFT/kwfm_raw/input_simple 2>&1)" 200 ||
		return 1
	dmesg | grep 'registered target kwfm_record of kwfuzzmod' | tail -n 1
	echo "derived: $($B -t $mt -p kwfm_record 2>&1)"
	$B -t $mt -o $W/m_derived kwfm_record /dev/zero || fail "no input derived from the module's BTF" ||
		return 1
	$B -o $W/m_hand "$HAND_kwfm_record" kwfm_record /dev/zero || return 1
	cmp $W/m_derived $W/m_hand || fail "the derived input differs from the hand-written one" || return 1
	mark
	n0=$(cat $KFT/_config/num_invocations)
	dd if=$W/m_derived of=$KFT/kwfm_record/input bs=1M 2>/dev/null || fail "the run failed" || return 1
	expect_eq "runs" "$(cat $KFT/_config/num_invocations)" $((n0 + 1)) || return 1
	expect_eq "KASAN reports of a clean input" "$(kasan_reports)" 0 || return 1
	printf '!bang' >$KFT/kwfm_raw/input_simple
	expect_eq "KASAN reports of '!bang'" "$(kasan_reports)" 1 || return 1
	since_mark | grep -q 'BUG: KASAN: slab-out-of-bounds in kwfm_sum' ||
		fail "not a slab-out-of-bounds in kwfm_sum" || return 1
	# delay_ms = 1500 (the u32 comes first in the stream), then the data.
	{ printf '\xdc\x05\x00\x00'; head -c 64 /dev/zero; } >$W/slow_stream
	$B -o $W/m_slow "$HAND_kwfm_record" kwfm_record $W/slow_stream || return 1
	dd if=$W/m_slow of=$KFT/kwfm_record/input bs=1M 2>/dev/null &
	pid=$!
	sleep 0.5
	rmmod kwfuzzmod 2>$W/rmmod.err
	rc=$?
	cat $W/rmmod.err
	[ $rc != 0 ] || fail "rmmod removed the module under a run" || return 1
	wait $pid || fail "the slow run failed" || return 1
	exec 3>$KFT/kwfm_record/input
	rmmod kwfuzzmod || fail "rmmod after the run" || { exec 3>&-; return 1; }
	[ ! -e $KFT/kwfm_record ] && [ ! -e $KFT/kwfm_raw ] || fail "the directories stayed" ||
		{ exec 3>&-; return 1; }
	dd if=$W/m_derived bs=1M 2>/dev/null >&3 && { exec 3>&-; fail "a write after the unload ran"; return 1; }
	exec 3>&-
	insmod $UMOD || fail "insmod again" || return 1
	dd if=$W/m_derived of=$KFT/kwfm_record/input bs=1M 2>/dev/null || fail "no run after the reload" ||
		return 1
	rmmod kwfuzzmod
}

# secs_rate MS N: "S.s s (R exec/s)", N executions in MS milliseconds.
secs_rate() { echo "$(($1 / 1000)).$(($1 % 1000 / 100)) s ($(($2 * 1000 / ($1 ? $1 : 1))) exec/s)"; }

# guided_run LOG BUDGET CORPUS KFUZZTEST-FUZZ-OPTIONS...: kfuzztest-fuzz
# (libFuzzer's seed 1) until its first report, for at most BUDGET seconds;
# sets GMS (the run's milliseconds) and EXECS (the execution that made the
# report), and fails unless the run stopped at a report.
guided_run() {
	local log=$1 budget=$2 corpus=$3 s e rc
	shift 3
	s=$(date +%s%N)
	/opt/kwatch/bin/kfuzztest-fuzz "$@" -seed=1 -error_exitcode=3 -max_total_time=$budget \
		$corpus 2>$log
	rc=$?
	e=$(date +%s%N)
	GMS=$(((e - s) / 1000000))
	grep -E '^(INFO|#[0-9]+.*(NEW|INITED)|kfuzztest-fuzz: a|==|artifact|SUMMARY)' $log | cut -c1-200
	grep '^kfuzztest-fuzz: execs' $log | tail -n 2
	expect_eq "kfuzztest-fuzz's exit status (3: a kernel report, in $budget s)" $rc 3 || return 1
	EXECS=$(sed -n 's/^kfuzztest-fuzz: a kernel report after execution \([0-9]*\):.*/\1/p' $log)
	[ -n "$EXECS" ] || fail "kfuzztest-fuzz did not say after how many executions"
}

# Coverage guidance finds what random inputs do not (issue 16, items 3
# and 6).  test_guided_frame's bug is behind six bytes (a magic, a length
# that matches its region, a nested record's tag).  kfuzztest-fuzz
# (libFuzzer steered by the writing task's KCOV coverage) runs on it from
# an empty corpus until its first kernel report, which must be the bug's
# KASAN report; libFuzzer's crash file replays it.  The benchmark after it
# (make bench) runs as many random inputs from the same derived schema:
# no report, both timed in one boot.
GUIDED_BUDGET_S=420
KTAP_TIMEOUT_t_guided_finds_bug=900
t_guided_finds_bug() {
	local F=/opt/kwatch/bin/kfuzztest-fuzz t=test_guided_frame n0 crash
	need_kasan || return
	[ -e /sys/kernel/debug/kcov ] || fail "no /sys/kernel/debug/kcov (CONFIG_KCOV)" || return 1
	rm -rf $W/corpus $W/art $W/guided_execs
	mkdir -p $W/corpus $W/art
	mark
	guided_run $W/guided.log $GUIDED_BUDGET_S $W/corpus --target=$t --table=$TAB --size=16 \
		--keep=$W/guided_keep -artifact_prefix=$W/art/ || return 1
	echo "$EXECS $GMS" >$W/guided_execs
	echo "guided: first report after $EXECS executions, $(secs_rate $GMS $EXECS) (TCG)"
	since_mark | grep -m1 'BUG: KASAN: slab-out-of-bounds in guided_frame_sum' ||
		fail "the report is not the KASAN report in guided_frame_sum" || return 1
	expect_eq "corpus inputs kept" "$(ls $W/corpus | wc -l | awk '{ print ($1 > 0) }')" 1 || return 1
	crash=$(ls $W/art/crash-* 2>/dev/null | head -n1)
	[ -n "$crash" ] || fail "no crash file from libFuzzer" || return 1
	# The kept input is the one written last.
	n0=$(dmesg | grep -c 'BUG: KASAN: slab-out-of-bounds in guided_frame_sum')
	dd if=$W/guided_keep of=$KFT/$t/input bs=1M 2>/dev/null
	expect_eq "the kept input replayed: reports" \
		"$(dmesg | grep -c 'BUG: KASAN: slab-out-of-bounds in guided_frame_sum')" $((n0 + 1)) || return 1
	# libFuzzer's crash file replays it through the harness.
	$F --target=$t --table=$TAB --size=16 -error_exitcode=3 "$crash" 2>$W/replay.log
	expect_eq "the crash file replayed: exit status" $? 3 || { tail -5 $W/replay.log; return 1; }
}

# Unguided: as many random inputs from the same schema as the guided run
# above took, timed beside it.
b_guided_vs_random() {
	local t=test_guided_frame s e rc execs gms rms
	need_kasan || return
	[ -s $W/guided_execs ] || fail "no guided run to compare with (guided_finds_bug failed?)" || return 1
	read -r execs gms <$W/guided_execs
	mark
	s=$(date +%s%N)
	$B -t $TAB -s 16 -n $execs -k $W/random_keep $t /dev/urandom
	rc=$?
	e=$(date +%s%N)
	rms=$(((e - s) / 1000000))
	echo "kfuzztest-bench: test_guided_frame: guided (kfuzztest-fuzz, KCOV): first report after $execs executions, $(secs_rate $gms $execs); unguided (kfuzztest-bridge -t, random): $execs executions, $(secs_rate $rms $execs), $(kasan_reports) reports (TCG)"
	expect_eq "random inputs: the bridge's exit status (0: no report)" $rc 0 || return 1
	expect_eq "random inputs: KASAN reports" "$(kasan_reports)" 0
}

# The seed's story (issue 16, item 6), the KFuzzTest RFC's experiment:
# with pkcs7_message.test_off_by_one on (CONFIG_PKCS7_MESSAGE_PARSER_TEST_BUG),
# pkcs7_parse_message() lets the ASN.1 decoder read one byte past the
# message.  First the bug itself: a message cut one byte short is read
# past its end with the parameter on, and refused without a report with
# it off.  Then kfuzztest-fuzz --raw on test_pkcs7_parse_message's
# input_simple (KCOV in the ASN.1 decoder and the PKCS#7 and X.509
# parsers), from an empty corpus (the RFC's "cold start"), until its first
# report, which must be KASAN's out-of-bounds read under
# pkcs7_parse_message; then as many random raw inputs (kfuzztest-bridge
# -r, 1 to SIZE bytes, SIZE the valid message's size and 64) as the
# guided run took: no report.  Both timed, in one boot.  The parameter is
# off before and after.
PKCS7_BUDGET_S=300
KTAP_TIMEOUT_t_pkcs7_injected_off_by_one=900
t_pkcs7_injected_off_by_one() {
	local p=/sys/module/pkcs7_message/parameters/test_off_by_one rc
	need_kasan || return
	local t=test_pkcs7_parse_message seed=/opt/kwatch/kfuzztest-inputs/pkcs7.der
	[ -w $p ] || fail "no $p (CONFIG_PKCS7_MESSAGE_PARSER_TEST_BUG)" || return 1
	[ -e $KFT/$t/input_simple ] || fail "$t has no input_simple" || return 1
	grep -qx "simple $t" $TAB || fail "kfuzztest-list does not list $t as simple" || return 1
	expect_eq "pkcs7_message.test_off_by_one before the test" "$(cat $p)" N || return 1
	head -c $(($(stat -c %s $seed) - 1)) $seed >$W/pk_short
	mark
	dd if=$W/pk_short of=$KFT/$t/input_simple bs=64k 2>/dev/null
	expect_eq "KASAN reports for a message one byte short, the bug off" "$(kasan_reports)" 0 ||
		return 1
	echo 1 >$p
	pkcs7_off_by_one $t $seed
	rc=$?
	echo 0 >$p
	expect_eq "pkcs7_message.test_off_by_one after the test" "$(cat $p)" N || return 1
	return $rc
}

pkcs7_off_by_one() {
	local F=/opt/kwatch/bin/kfuzztest-fuzz t=$1 seed=$2 in=$KFT/$1/input_simple
	local size max s e rc execs gms rms crash n0
	size=$(stat -c %s $seed)
	max=$((size + 64))
	mark
	dd if=$seed of=$in bs=64k 2>/dev/null || fail "the valid message was refused" || return 1
	expect_eq "KASAN reports for the valid message, the bug on" "$(kasan_reports)" 0 || return 1
	dd if=$W/pk_short of=$in bs=64k 2>/dev/null
	since_mark | grep -m1 -A1 'BUG: KASAN'
	expect_eq "KASAN reports for the message one byte short, the bug on" "$(kasan_reports)" 1 ||
		return 1
	# Guided, from nothing.
	rm -rf $W/pk_corpus $W/pk_art
	mkdir -p $W/pk_corpus $W/pk_art
	mark
	guided_run $W/pk.log $PKCS7_BUDGET_S $W/pk_corpus --target=$t --raw --size=$max \
		--keep=$W/pk_keep -artifact_prefix=$W/pk_art/ || return 1
	gms=$GMS execs=$EXECS
	since_mark | grep -m1 -A1 'BUG: KASAN: slab-out-of-bounds' ||
		fail "the report is not a slab-out-of-bounds access" || return 1
	since_mark | grep -m1 -B1 'pkcs7_parse_message' ||
		fail "the report's call trace has no pkcs7_parse_message" || return 1
	crash=$(ls $W/pk_art/crash-* 2>/dev/null | head -n1)
	[ -n "$crash" ] || fail "no crash file from libFuzzer" || return 1
	cmp -s $crash $W/pk_keep || fail "the kept input is not libFuzzer's crash file" || return 1
	echo "the input found: $(stat -c %s $crash) bytes: $(od -An -tx1 -N32 $crash)"
	n0=$(dmesg | grep -c 'BUG: KASAN: slab-out-of-bounds')
	$F --target=$t --raw --size=$max -error_exitcode=3 "$crash" 2>$W/pk_replay.log
	expect_eq "the crash file replayed: exit status" $? 3 || { tail -5 $W/pk_replay.log; return 1; }
	expect_eq "the crash file replayed: reports" \
		"$(dmesg | grep -c 'BUG: KASAN: slab-out-of-bounds')" $((n0 + 1)) || return 1
	# Unguided: as many random raw inputs, up to the same size.
	mark
	s=$(date +%s%N)
	$B -r -s $max -n $execs -k $W/pk_random_keep $t /dev/urandom
	rc=$?
	e=$(date +%s%N)
	rms=$(((e - s) / 1000000))
	echo "kfuzztest-bench: test_pkcs7_parse_message (pkcs7_message.test_off_by_one): guided (kfuzztest-fuzz --raw, KCOV, from an empty corpus): first report after $execs executions, $(secs_rate $gms $execs); unguided (kfuzztest-bridge -r, 1 to $max random bytes): $execs executions, $(secs_rate $rms $execs), $(kasan_reports) reports (TCG)"
	expect_eq "random inputs: the bridge's exit status (0: no report)" $rc 0 || return 1
	expect_eq "random inputs: KASAN reports" "$(kasan_reports)" 0
}

# What recording each input in pmsg costs (issue 16, item 4: the input in
# flight survives a panic without a sync per execution): the bridge and the
# harness, each without and with it, in turns (twice each, so that neither
# side has the warm caches alone), side by side in one boot.
pm_time() {	# pm_time CMD...: run it, print its milliseconds
	local s e
	s=$(date +%s%N)
	"$@" 2>>$W/pm.log >/dev/null || return 1
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}
b_pmsg_record_cost() {
	local F=/opt/kwatch/bin/kfuzztest-fuzz n=1000 runs=3000 i t a=0 b=0 c=0 d=0
	[ -c /dev/pmsg0 ] || fail "no /dev/pmsg0 (CONFIG_PSTORE_PMSG and ramoops)" || return 1
	mark
	: >$W/pm.log
	for i in 1 2; do
		t=$(pm_time $B -t $TAB -n $n -k $W/pm_keep test_trivial /dev/urandom) ||
			fail "bridge without -P" || return 1
		a=$((a + t))
		t=$(pm_time $B -t $TAB -n $n -k $W/pm_keep -P /dev/pmsg0 test_trivial /dev/urandom) ||
			fail "bridge with -P" || return 1
		b=$((b + t))
		t=$(pm_time $F --target=test_trivial --table=$TAB --keep=$W/pm_keep -runs=$runs -seed=$i) ||
			fail "kfuzztest-fuzz without --pmsg" || return 1
		c=$((c + t))
		t=$(pm_time $F --target=test_trivial --table=$TAB --keep=$W/pm_keep --pmsg=/dev/pmsg0 \
			-runs=$runs -seed=$i) || fail "kfuzztest-fuzz with --pmsg" || return 1
		d=$((d + t))
	done
	echo "kfuzztest-bench: pmsg record per input: bridge 2x$n inputs $a ms without, $b ms with" \
		"($(awk -v x=$a -v y=$b 'BEGIN { printf "%.2f", y / x }')x);" \
		"kfuzztest-fuzz 2x$runs runs $c ms without, $d ms with" \
		"($(awk -v x=$c -v y=$d 'BEGIN { printf "%.2f", y / x }')x) (TCG)"
	expect_eq "KASAN reports" "$(kasan_reports)" 0
}

# Runs per second through debugfs for the trivial target: one writer, then
# two in parallel (runs of one target are serialised).
b_runs_per_second() {
	local n=2000 one two a b
	kft_blob $W/triv "0:16" "" "$(trivial_payload 5)"
	one=$(/opt/kwatch/bin/kfuzztest-bench $KFT/test_trivial/input $W/triv $n) || fail "bench: $one" || return 1
	echo "one writer: $one"
	/opt/kwatch/bin/kfuzztest-bench $KFT/test_trivial/input $W/triv $n >$W/b1 &
	a=$!
	/opt/kwatch/bin/kfuzztest-bench $KFT/test_trivial/input $W/triv $n >$W/b2 &
	b=$!
	wait $a && wait $b || fail "a parallel writer failed" || return 1
	two=$(cat $W/b1 $W/b2 | awk '{ s += $(NF - 1) } END { print s }')
	echo "kfuzztest-bench: one writer $(echo "$one" | awk '{ print $(NF - 1) }') runs/s, two writers $two runs/s in all (TCG, 2 vCPUs)"
}

# Concurrent writers (issue 29, item 10: what KCSAN watches in the kcsan
# flavour): three processes write one target (test_trivial) and three
# more one target each (a raw record through input_simple, a PKCS#7
# message, an RSA key) at once, 100 writes each.  Every write returns its
# size, and num_invocations grows by exactly the number of writes: no
# run lost or counted twice.
t_concurrent_writers() {
	local in=/opt/kwatch/kfuzztest-inputs n=100 pids=() p i0 i1 bad=0 w
	local bench=/opt/kwatch/bin/kfuzztest-bench
	kft_blob $W/cw_triv "0:16" "" "$(trivial_payload 5)"
	printf 'KW\003abc&' >$W/cw_rec
	kft_buffer_blob $W/cw_pkcs7 $in/pkcs7.der
	kft_buffer_blob $W/cw_rsa $in/rsa_priv.der
	mark
	i0=$(cat $KFT/_config/num_invocations)
	for w in test_trivial/input:cw_triv test_trivial/input:cw_triv test_trivial/input:cw_triv \
		 test_simple_record/input_simple:cw_rec test_pkcs7_parse_message/input:cw_pkcs7 \
		 test_rsa_parse_priv_key/input:cw_rsa; do
		$bench $KFT/${w%%:*} $W/${w#*:} $n >$W/cw_out.${#pids[@]} 2>&1 &
		pids+=($!)
	done
	for p in "${!pids[@]}"; do
		wait "${pids[$p]}" || { bad=$((bad + 1)); echo "writer $p: $(cat $W/cw_out.$p)"; }
	done
	i1=$(cat $KFT/_config/num_invocations)
	echo "${#pids[@]} writers x $n writes at once: num_invocations +$((i1 - i0))"
	expect_eq "writers with a failed write" $bad 0 || return 1
	expect_eq "runs counted" $((i1 - i0)) $((${#pids[@]} * n)) || return 1
	expect_eq "KASAN reports" "$(kasan_reports)" 0
}

# A writer that the target kills (an oops on a NULL pointer) leaves the
# target usable: the next write to it runs and returns.  Last in the
# suite: the oops taints the kernel.  A lock held
# across the run would stay with the dead writer, and every later writer
# would wait for it for ever (D state).
t_oopsed_writer_leaves_target_usable() {
	local i
	# maybe_null { v }: v NULL in the first input, region 1 in the second.
	kft_blob $W/null_v "0:8" "0:0:4294967295" "$(zeros 8)$(zeros 8)"
	kft_blob $W/good_v "0:8 16:8" "0:0:1" "$(zeros 8)$(zeros 8)$(le64 42)$(zeros 8)"
	mark
	rm -f $W/first $W/second
	( dd if=$W/null_v of=$KFT/test_null_deref/input bs=1M 2>/dev/null; echo "rc=$?" >$W/first ) &
	wait
	echo "first writer: $(cat $W/first 2>/dev/null)"
	since_mark | grep -m1 -A3 'BUG: kernel NULL pointer dereference'
	# An oops turns tracing off (oops_enter()): on again for what follows.
	echo 1 >$T/tracing_on
	since_mark | grep -q 'RIP: .*read_through' ||
		fail "no oops in read_through for the NULL input" || return 1
	grep -qx 'rc=0' $W/first && { fail "the write that oopsed returned 0"; return 1; }
	( dd if=$W/good_v of=$KFT/test_null_deref/input bs=1M 2>/dev/null; echo "rc=$?" >$W/second ) &
	for i in $(seq 100); do
		[ -s $W/second ] && break
		sleep 0.2
	done
	[ -s $W/second ] ||
		fail "the write after the oops did not return in 20 s (waiting on the dead writer?)" || return 1
	expect_eq "the write after the oops" "$(cat $W/second)" "rc=0"
}

ktap_main
