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

[ $fails -eq 0 ]
