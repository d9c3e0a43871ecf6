# shellcheck shell=bash
# KFuzzTest inputs for the guest suites and the demo: kft_blob writes the
# v0 binary format by hand (so that malformed inputs can be made too), and
# the sample targets' argument layouts are kept here.
KFT=/sys/kernel/debug/kfuzztest
T=/sys/kernel/tracing
W=/tmp/kft
mkdir -p $W

# Bash builtins only (no sed, tr or echo | pipe a call): each program run
# is a fork and an exec, tens of milliseconds under TCG, and a blob takes
# dozens of these.
le32() { local h; printf -v h '%08x' "$1"; echo "${h:6:2}${h:4:2}${h:2:2}${h:0:2}"; }
le64() {
	local h
	printf -v h '%016x' "$1"
	echo "${h:14:2}${h:12:2}${h:10:2}${h:8:2}${h:6:2}${h:4:2}${h:2:2}${h:0:2}"
}
zeros() { local z; printf -v z '%*s' $(($1 * 2)) ''; echo "${z// /0}"; }
hex2bin() {
	local i e=
	for ((i = 0; i < ${#1}; i += 2)); do e+="\\x${1:i:2}"; done
	printf "$e" >"$2"
}

# kft_blob OUT "OFF:SIZE ..." "RID:ROFF:VAL ..." PAYLOAD_HEX [PADDING] [MAGIC] [VERSION]
# Writes a v0 input to OUT.  Without PADDING, the padding is the least
# (at least 8) that puts the payload on an 8-byte boundary.
kft_blob() {
	local out=$1 regs=($2) rels=($3) payload=$4 pad=${5:-} magic=${6:-0xbface} ver=${7:-0}
	local h r hdr_len
	h=$(le32 $magic)$(le32 $ver)$(le32 ${#regs[@]})
	for r in "${regs[@]}"; do h=$h$(le32 ${r%%:*})$(le32 ${r#*:}); done
	h=$h$(le32 ${#rels[@]})
	hdr_len=$(((${#h} / 2) + 4 + 12 * ${#rels[@]}))
	if [ -z "$pad" ]; then
		pad=8
		while [ $(((hdr_len + pad) % 8)) -ne 0 ]; do pad=$((pad + 1)); done
	fi
	h=$h$(le32 $pad)
	for r in "${rels[@]}"; do
		IFS=: read -r a b c <<<"$r"
		h=$h$(le32 $a)$(le32 $b)$(le32 $c)
	done
	hex2bin "$h$(zeros $pad)$payload" "$out"
}

# Write input file $2 to target $1 in one write; prints the error, if any.
feed() { dd if="$2" of=$KFT/$1/input bs=1048576 2>&1 >/dev/null | grep -v 'records\|copied'; }

# The sample inputs.  nested_buffers: { a, a_len, b, b_len } with a and b
# 16-byte regions; some_buffer: { buf, buflen } with a 16-byte region.
NESTED_REGS="0:32 40:16 64:16"
NESTED_PAYLOAD=$(le64 0)$(le64 16)$(le64 0)$(le64 16)$(zeros 8)$(printf 'aa%.0s' $(seq 16))$(zeros 8)$(printf 'bb%.0s' $(seq 16))$(zeros 8)
UNDER_REGS="0:16 24:16"
UNDER_PAYLOAD=$(le64 0)$(le64 16)$(zeros 8)$(printf 'cc%.0s' $(seq 16))$(zeros 8)
trivial_payload() { echo "$(le64 "$1")$(le64 7)$(zeros 8)"; }
