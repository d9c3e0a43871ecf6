#!/bin/bash
# Host test of kfuzztest-bridge (built from the kernel tree by tools.mk):
# byte-exact inputs for known schemas and streams, and errors that name
# the line and column of the fault.  Exits non-zero on the first failure.
. @TOP@/tests/unit/check.sh
BRIDGE=@BRIDGE@
le32() { printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/'; }
zeros() { printf '%*s' $(($1 * 2)) '' | tr ' ' 0; }
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# The nested sample: regions at 0 (32 bytes), 40 and 64 (16 each), two
# relocations, 12 bytes of header padding, a zero stream.
$BRIDGE -o $T/nested 'nested_buffers { ptr[a] len[a, u64] ptr[b] len[b, u64] };
	a { arr[u8, 16] }; b { arr[u8, 16] };' x /dev/zero
want=$(le32 0xbface)$(le32 0)$(le32 3)$(le32 0)$(le32 32)$(le32 40)$(le32 16)$(le32 64)$(le32 16)
want=$want$(le32 2)$(le32 12)$(le32 0)$(le32 0)$(le32 1)$(le32 0)$(le32 16)$(le32 2)$(zeros 12)
want=$want$(zeros 8)$(le32 16)$(le32 0)$(zeros 8)$(le32 16)$(le32 0)$(zeros 8)$(zeros 16)$(zeros 8)$(zeros 16)$(zeros 8)
check "nested layout, byte for byte" "$(hex $T/nested)" "$want"

# Fields are filled from the stream in order; u32 then u64 aligns to 8.
printf '\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c' >$T/stream
$BRIDGE -o $T/mixed 't { u32 u64 }' x $T/stream
check "u32 then u64: region size" "$(hex $T/mixed | cut -c33-40)" "$(le32 16)"
check "u32 then u64: payload" "$(hex $T/mixed | tail -c 48)" "01020304000000000506070809$(printf '0a0b0c')$(zeros 8)"

# str[4]: four non-zero bytes (a zero becomes 'a') and a NUL, five bytes
# in all, as the original bridge's str[N].
$BRIDGE -o $T/str 's { str[4] }' x /dev/zero
check "str[4]: region size" "$(hex $T/str | cut -c33-40)" "$(le32 5)"
check "str[4] from zeros" "$(hex $T/str | tail -c 32 | head -c 10)" "6161616100"

# len[r, u8]: 255 fits, 256 is an error naming the field.
$BRIDGE -o $T/len 't { len[r, u8] }; r { arr[u8, 255] }' x /dev/zero
check "len[r, u8] of 255 bytes" "$(hex $T/len | tail -c $(((8 + 8 + 255 + 1 + 8) * 2)) | head -c 2)" "ff"

# Alignment to the kernel's minalign (16 with tag-based KASAN).  -A 16: the nested
# sample with its regions at 0, 48 and 80, the payload at 80 (12 bytes of
# header padding) and its end at 192, multiples of 16.
NB='nested_buffers { ptr[a] len[a, u64] ptr[b] len[b, u64] }; a { arr[u8, 16] }; b { arr[u8, 16] };'
$BRIDGE -A 16 -o $T/nested16 "$NB" x /dev/zero
want=$(le32 0xbface)$(le32 0)$(le32 3)$(le32 0)$(le32 32)$(le32 48)$(le32 16)$(le32 80)$(le32 16)
want=$want$(le32 2)$(le32 12)$(le32 0)$(le32 0)$(le32 1)$(le32 0)$(le32 16)$(le32 2)$(zeros 12)
want=$want$(zeros 8)$(le32 16)$(le32 0)$(zeros 8)$(le32 16)$(le32 0)$(zeros 80)
check "-A 16: nested layout, byte for byte" "$(hex $T/nested16)" "$want"
check "-A 8: the bytes of the default" "$("$BRIDGE" -A 8 -o $T/n8 "$NB" x /dev/zero; hex $T/n8)" "$(hex $T/nested)"
# str[4] at -A 16: the header's padding grows to 20, the payload to 16.
$BRIDGE -A 16 -o $T/str16 's { str[4] }' x /dev/zero
check "-A 16: str[4], padding and length" "$(hex $T/str16 | cut -c49-56):$(stat -c %s $T/str16)" "$(le32 20):64"
# Written to a target (a plain file under -d), the input takes the kernel's
# _config/minalign: 16 gives the bytes of -A 16, -A overrides it, a kernel
# without the file gets 8, and a value that is not a power of two from 8
# to 4096 is an error naming the file, with nothing written.
mkdir -p $T/kma/_config $T/kma/nb
wr() { : >$T/kma/nb/input; "$BRIDGE" -d $T/kma "$@" "$NB" nb /dev/zero 2>&1; echo "rc=$?"; }
echo 16 >$T/kma/_config/minalign
check "minalign 16: the bytes of -A 16" "$(wr; hex $T/kma/nb/input)" "rc=0
$(hex $T/nested16)"
check "minalign 16, -A 8: the bytes of 8" "$(wr -A 8; hex $T/kma/nb/input)" "rc=0
$(hex $T/nested)"
rm $T/kma/_config/minalign
check "no minalign (an older kernel): the bytes of 8" "$(wr; hex $T/kma/nb/input)" "rc=0
$(hex $T/nested)"
for v in 0 3 12 abc 8192; do
	echo "$v" >$T/kma/_config/minalign
	check "minalign '$v': an error naming the file" "$(wr; stat -c %s $T/kma/nb/input)" \
		"$T/kma/_config/minalign: '$v' is not an alignment (a power of two from 8 to 4096)
rc=1
0"
done
check "-A 12: bad usage" "$("$BRIDGE" -A 12 -o $T/e 't { u8 }' x /dev/zero >/dev/null 2>&1; echo "rc=$?")" "rc=2"
check "-A with -r: bad usage" "$("$BRIDGE" -r -A 16 -o $T/e x /dev/zero >/dev/null 2>&1; echo "rc=$?")" "rc=2"
$BRIDGE -A 16 -n 2 -O $T/pack16 "$NB" x /dev/zero
check "-O -A 16: the inputs of -A 16" "$(hex $T/pack16)" \
	"$(printf KWPACK01 | od -An -tx1 | tr -d ' \n')$(le32 192)$(hex $T/nested16)$(le32 192)$(hex $T/nested16)"

# -O: the inputs in one pack, "KWPACK01" then each input's le32 length
# and bytes: the same bytes -o writes one at a time.
$BRIDGE -n 3 -O $T/pack 't { u32 }' x /dev/zero
$BRIDGE -o $T/one 't { u32 }' x /dev/zero
one=$(hex $T/one)
check "-O: a pack of three" "$(hex $T/pack)" \
	"$(printf KWPACK01 | od -An -tx1 | tr -d ' \n')$(le32 $((${#one} / 2)))$one$(le32 $((${#one} / 2)))$one$(le32 $((${#one} / 2)))$one"
printf '\x04\x00\xaa\xbb\xcc\xdd\xee\x01\x00\x11\x22' >$T/rawstream
$BRIDGE -r -s 16 -n 2 -O $T/rawpack x $T/rawstream
check "-O -r: raw inputs, each its own length" "$(hex $T/rawpack)" \
	"$(printf KWPACK01 | od -An -tx1 | tr -d ' \n')$(le32 5)aabbccddee$(le32 2)1122"
check "-O with -k: bad usage" "$("$BRIDGE" -r -n 2 -O $T/p -k $T/k x /dev/zero 2>/dev/null; echo "rc=$?")" "rc=2"
check "-O where it cannot be written" "$("$BRIDGE" -r -O $T/none/p x /dev/zero 2>&1; echo "rc=$?")" \
	"$T/none/p: No such file or directory
rc=1"

# -O writes beside PACK and renames over it at the end (issue 29, item 9):
# a write that fails (here past a file size limit) is an error, exit
# status 1, and leaves neither PACK nor the file it was written in.
mkdir -p $T/lim
rc=$( (trap '' XFSZ; ulimit -f 1; exec "$BRIDGE" -r -s 64 -n 300 -O $T/lim/p.kwpack x /dev/urandom) \
	2>$T/lim.err; echo $?)
check "-O past a file size limit: exit status, message" "$rc:$(cat $T/lim.err)" \
	"1:$T/lim/p.kwpack: File too large"
check "-O past a file size limit: nothing left in the directory" "$(ls -A $T/lim)" ""
"$BRIDGE" -r -s 64 -n 300 -O $T/lim/p.kwpack x /dev/urandom
check "-O: the pack, and nothing else, in the directory" "$(ls -A $T/lim)" "p.kwpack"

# -P: each input's line must fit whole in pstore's pmsg zone, which keeps
# only the tail of a longer write (issue 29, item 7): the zone is ramoops'
# pmsg_size (4096 when ramoops is not there to say), rounded down to a
# power of two, less its 12-byte header.  An input whose line would not
# fit is recorded by its number only ("-"), with its head.  Inputs of 1900
# and 3000 bytes (a stream of lengths and bytes, -r), to a target that is
# a plain file here (-d).
mkdir -p $T/kft/x
: >$T/kft/x/input_simple
pmsg_stream() { # OUT LEN...
	local out=$1 n
	shift
	: >"$out"
	for n in "$@"; do
		printf "$(printf '\\x%02x\\x%02x' $(((n - 1) % 256)) $(((n - 1) / 256)))" >>"$out"
		head -c "$n" /dev/zero | tr '\0' '\253' >>"$out"
	done
}
pmsg_stream $T/pstream 1900 3000
zone=$(cat /sys/module/ramoops/parameters/pmsg_size 2>/dev/null || echo 4096)
: >$T/pmsg
"$BRIDGE" -d $T/kft -r -s 4000 -n 2 -P $T/pmsg x $T/pstream
check "-P: three lines (two inputs and the end)" "$(wc -l <$T/pmsg)" 3
check "-P: every line whole in a zone of $zone bytes" \
	"$(awk -v max=$((zone - 12)) 'length($0) + 1 > max { n++ } END { print n + 0 }' $T/pmsg)" 0
check "-P: every line has its head" \
	"$(grep -cE '^kfuzztest-input [0-9a-f-]{36} [0-9]+ x - ([1-9][0-9]* ([0-9a-f]{2})+|[1-9][0-9]* -|end)$' $T/pmsg)" 3
head1=$(sed -n '1s/^\(\([^ ]* \)\{6\}\).*/\1/p' $T/pmsg)
want1=$(head -c 1900 /dev/zero | tr '\0' '\253' | od -An -v -tx1 | tr -d ' \n')
whole2=$(head -c 3000 /dev/zero | tr '\0' '\253' | od -An -v -tx1 | tr -d ' \n')
# The last field of line N of pmsg, its size and sum (not 6000 characters).
pmsg_hex() { sed -n "${1}s/.* //p" $T/pmsg | tr -d '\n' | cksum; }
sum() { printf '%s' "$1" | cksum; }
want2=$whole2
[ $((${#head1} + 2 * 1900 + 1)) -le $((zone - 12)) ] || want1=-
[ $((${#head1} + 2 * 3000 + 1)) -le $((zone - 12)) ] || want2=-
check "-P: 1900 bytes recorded as they are" "$(pmsg_hex 1)" "$(sum "$want1")"
check "-P: 3000 bytes recorded as they fit (- if not)" "$(pmsg_hex 2)" "$(sum "$want2")"
# ramoops' pmsg_size read (64 KiB, 0x10000 as the test VM has it): the
# 3000 bytes fit.  Only where a mount namespace can be made (root).
if unshare -m true 2>/dev/null; then
	: >$T/pmsg
	unshare -m sh -c "mount -t tmpfs kwatch /sys/module &&
		mkdir -p /sys/module/ramoops/parameters &&
		echo 65536 >/sys/module/ramoops/parameters/pmsg_size &&
		echo 0 >/sys/module/ramoops/parameters/ecc &&
		exec '$BRIDGE' -d $T/kft -r -s 4000 -n 2 -P $T/pmsg x $T/pstream"
	check "-P, pmsg_size 65536: 3000 bytes recorded as they are" "$(pmsg_hex 2)" "$(sum "$whole2")"
else
	echo "# -P with a pmsg_size: skipped (no mount namespace)"
fi

# Errors: each names its line and column and exits 1.
err() { "$BRIDGE" -o $T/e "$1" x "${2:-/dev/zero}" 2>&1; echo "rc=$?"; }
check "unknown region" "$(err 'foo { u32 ptr[baz] }')" "schema:1:11: no region named 'baz'
rc=1"
check "bad token on line 2" "$(err 'foo { u32 ptr[bar] };
bar { u8 ] }')" "schema:2:10: expected a type, found ']'
rc=1"
check "unclosed region" "$(err 'foo { u32')" "schema:1:10: region 'foo' is not closed with '}'
rc=1"
check "bad primitive" "$(err 'foo { arr[u7, 3] }')" "schema:1:11: expected u8, u16, u32 or u64, found 'u7'
rc=1"
check "region defined twice" "$(err 'a { u8 }; a { u8 }')" "schema:1:11: region 'a' is defined twice
rc=1"
check "len too narrow" "$(err 't { u32 len[r, u8] }; r { arr[u8, 256] }')" \
	"schema:1:9: region 'r' is 256 bytes, more than a u8 holds
rc=1"
long=$(printf '%*s' 600 '' | tr ' ' t)
check "target name too long" "$("$BRIDGE" 't { u8 }' "$long" /dev/zero 2>&1; echo "rc=$?")" \
	"target name of 600 bytes: too long for a debugfs path
rc=1"
head -c 10 /dev/zero >$T/short
check "short stream" "$(err 'foo { arr[u8, 100] }' $T/short)" "the random stream ended 90 bytes short
rc=1"
check "too large" "$(err 'foo { arr[u64, 9000] }' | sed 's/would be [0-9]* bytes/would be N bytes/')" \
	"the input would be N bytes; the kernel takes at most 65536
rc=1"
"$BRIDGE" >/dev/null 2>&1
check "usage" "$?" 2

# --- Schemas derived from BTF (-t): structures compiled here with their
# BTF (gcc -gbtf), and a target table as kfuzztest-list writes it.
cat >$T/types.c <<'C'
struct inner { unsigned int n; char *name; };
struct outer {
	struct inner in;
	unsigned short arr[4];
	struct inner *next;
	const void *s;
	unsigned long slen;
	int neg;
};
struct nested_buffers { const char *a; unsigned long a_len; const char *b; unsigned long b_len; };
struct trivial_arg { unsigned long x; unsigned long y; };
struct wide { unsigned int *v; unsigned long v_len; };
struct with_union { union { int a; long b; } u; };
struct with_bits { unsigned int f : 3; unsigned int g; };
struct packed_s { char c; unsigned int x; } __attribute__((packed));
struct with_float { double d; };
struct with_fn { void (*fn)(void); };
struct flex { unsigned long n; unsigned char data[]; };
struct small_len { unsigned char *p; unsigned char p_len; };
struct outer o; struct nested_buffers nb; struct trivial_arg ta; struct wide w;
struct with_union wu; struct with_bits wb; struct packed_s ps; struct with_float wf;
struct with_fn wfn; struct flex fl; struct small_len sl;
C
gcc -gbtf -c -o $T/types.o $T/types.c
cat >$T/table <<'TABLE'
target t_outer struct outer (56 bytes)
target t_nested struct nested_buffers (32 bytes)
target t_trivial struct trivial_arg (16 bytes)
target t_wide struct wide (16 bytes)
target t_union struct with_union (8 bytes)
target t_bits struct with_bits (8 bytes)
target t_packed struct packed_s (5 bytes)
target t_float struct with_float (8 bytes)
target t_fn struct with_fn (8 bytes)
target t_flex struct flex (8 bytes)
target t_small struct small_len (16 bytes)
target t_stale struct trivial_arg (24 bytes)
target t_absent struct not_in_btf (8 bytes)
constraint struct inner.n EXPECT_IN_RANGE 3 9
constraint struct outer.s EXPECT_NE 0 0
constraint struct nested_buffers.a EXPECT_NE 0 0
constraint struct nested_buffers.b EXPECT_NE 0 0
constraint struct trivial_arg.x EXPECT_LE 1000 0
constraint struct trivial_arg.y EXPECT_GT 5 0
constraint struct trivial_arg.y EXPECT_LT 8 0
annotation struct inner.name STRING
annotation struct nested_buffers.a_len LEN a
annotation struct nested_buffers.b_len LEN b
annotation struct outer.slen LEN s
annotation struct wide.v_len LEN v
annotation struct small_len.p_len LEN p
TABLE
derive() { "$BRIDGE" -t $T/table -b $T/types.o "$@" 2>&1; echo "rc=$?"; }
check "derived: nested buffers" "$(derive -s 16 -p t_nested)" \
	"nested_buffers { ptr[a] len[a, u64] ptr[b] len[b, u64] }; a { arr[u8, 16] }; b { arr[u8, 16] };
rc=0"
check "derived: constraints become ranges (LE; GT and LT together)" "$(derive -p t_trivial)" \
	"trivial_arg { range[u64, 0, 1000] range[u64, 6, 7] };
rc=0"
check "derived: embedded struct, array, pointer to struct, STRING, void buffer, int" \
	"$(derive -s 8 -p t_outer)" \
	"outer { range[u32, 3, 9] ptr[in_name] arr[u16, 4] ptr[next] ptr[s] len[s, u64] u32 }; next { range[u32, 3, 9] ptr[next_name] }; s { arr[u8, 8] }; in_name { str[7] }; next_name { str[7] };
rc=0"
# The derived input is the hand-written schema's, byte for byte (zeros).
"$BRIDGE" -t $T/table -b $T/types.o -s 16 -o $T/derived t_nested /dev/zero
check "derived input equals the hand-written schema's" "$(hex $T/derived)" "$(hex $T/nested)"
"$BRIDGE" -t $T/table -b $T/types.o -s 16 -A 16 -o $T/derived16 t_nested /dev/zero
check "derived input at -A 16 equals the hand-written schema's" "$(hex $T/derived16)" "$(hex $T/nested16)"
# Ranges hold in every input: 100 of them from /dev/urandom (the payload
# starts at 40: 28 bytes of headers, 12 of padding).
bad=0
for i in $(seq 100); do
	"$BRIDGE" -t $T/table -b $T/types.o -o $T/r t_trivial /dev/urandom
	x=$(od -An -tu8 -j 40 -N 8 $T/r | tr -d ' ')
	y=$(od -An -tu8 -j 48 -N 8 $T/r | tr -d ' ')
	{ [ "$x" -le 1000 ] && [ "$y" -ge 6 ] && [ "$y" -le 7 ]; } || bad=$((bad + 1))
done
check "100 random inputs: x in [0, 1000], y in [6, 7]" "$bad" 0
check "derived: -n with -o is a usage error" "$(derive -n 2 -o $T/x t_trivial /dev/zero | tail -n 1)" "rc=2"
check "derived: LEN of wider elements" "$(derive -p t_wide)" \
	"struct wide.v_len: the LEN of 'v', which points at elements of more than one byte (not handled)
rc=1"
check "derived: union" "$(derive -p t_union)" "struct with_union.u: a union is not handled
rc=1"
check "derived: bitfield" "$(derive -p t_bits)" "struct with_bits.f: a bitfield is not handled
rc=1"
check "derived: packed" "$(derive -p t_packed)" \
	"struct packed_s.x: at byte 1, where natural alignment puts it at 4 (packed or over-aligned)
rc=1"
check "derived: float" "$(derive -p t_float)" \
	"struct with_float.d: a floating-point number is not handled
rc=1"
check "derived: function pointer" "$(derive -p t_fn)" \
	"struct with_fn.fn: points at a function, which is not handled
rc=1"
check "derived: flexible array" "$(derive -p t_flex)" \
	"struct flex.data: a flexible array is not handled
rc=1"
check "derived: a buffer its LEN cannot hold" "$(derive -s 300 -p t_small)" \
	"struct small_len.p_len: the length of 'p' must be in [0, 255], and a buffer is 300 bytes
rc=1"
check "derived: a table of another kernel" "$(derive -p t_stale)" \
	"target t_stale: struct trivial_arg is 16 bytes in the BTF and 24 in the table (a table of another kernel?)
rc=1"
check "derived: struct not in BTF" "$(derive -p t_absent)" \
	"target t_absent: struct not_in_btf is not in the BTF of $T/types.o
rc=1"
check "derived: no such target" "$(derive -p t_nope)" "no target 't_nope' in $T/table
rc=1"
check "derived: no BTF" "$("$BRIDGE" -t $T/table -b $T/table -p t_trivial 2>&1 | sed 's/ (.*)$//')" \
	"$T/table: no BTF"
# EQ then NE of the same value: nothing is left.
sed 's/^constraint struct trivial_arg.y EXPECT_LT 8 0$/&\nconstraint struct trivial_arg.y EXPECT_EQ 7 0\nconstraint struct trivial_arg.y EXPECT_NE 7 0/' \
	$T/table >$T/table2
check "derived: EQ and NE of one value" \
	"$("$BRIDGE" -t $T/table2 -b $T/types.o -p t_trivial 2>&1; echo "rc=$?")" \
	"struct trivial_arg.y: its constraints leave no value
rc=1"
echo 'constraint struct trivial_arg.x EXPECT_GT 2000 0' >>$T/table
check "derived: constraints that leave no value" "$(derive -p t_trivial)" \
	"struct trivial_arg.x: its constraints leave no value
rc=1"
echo 'bogus line' >>$T/table
check "derived: a bad table line" "$(derive -p t_trivial)" \
	"$T/table:28: not a target, constraint or annotation line
rc=1"

[ $fails -eq 0 ]
