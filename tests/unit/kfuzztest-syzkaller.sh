#!/usr/bin/env bash
# syzkaller's rules for KFuzzTest targets (pkg/kfuzztest) hold for the
# built test kernel: kfuzztest-list --check-syzkaller finds every target's
# own struct in vmlinux's DWARF once, every buffer annotated as an array
# with its length, no record string syzkaller's reader refuses; and the
# descriptions kfuzztest-list --syzlang prints parse (syzlang-check.py)
# and match the targets, one call each on its own struct.  On the series
# before its syzkaller fixes the check failed, naming 13 rules broken
# (two targets sharing a struct, a struct in the DWARF twice, buffers
# without ARRAY).
set -euo pipefail
TOP=@TOP@
KLIST=@KLIST@
KSRC=@KSRC@
KBUILD=@KBUILD@
VMLINUX=$KBUILD/vmlinux
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# The kernel of the tree as it is (make test has built it; make check may not).
srcs=$(git -C "$KSRC" diff --name-only kwatch-base..HEAD -- '*.c' '*.h')
if [ ! -f "$VMLINUX" ] || [ -n "$(cd "$KSRC" && find $srcs -newer "$VMLINUX" -print -quit 2>/dev/null)" ]; then
	"$TOP/scripts/kernel.sh" build >&2
fi
fails=0
if "$KLIST" --check-syzkaller "$VMLINUX" >"$d/check" 2>&1; then
	echo "ok 1 - syzkaller's rules: $(tail -n1 "$d/check")"
else
	sed 's/^/# /' "$d/check"
	echo "not ok 1 - syzkaller's rules"
	fails=$((fails + 1))
fi
"$KLIST" "$VMLINUX" >"$d/table"
if "$KLIST" --syzlang "$VMLINUX" >"$d/syz" && "$TOP/tests/unit/syzlang-check.py" "$d/syz" "$d/table" >"$d/parse"; then
	echo "ok 2 - the syzlang descriptions: $(tail -n1 "$d/parse")"
else
	sed 's/^/# /' "$d/parse" 2>/dev/null || true
	echo "not ok 2 - the syzlang descriptions"
	fails=$((fails + 1))
fi
# Each buffer is an array of its length, as syzkaller will size it.
if grep -q 'ptr\[in, int8\]$' "$d/syz"; then
	grep 'ptr\[in, int8\]$' "$d/syz" | sed 's/^/# a one-byte buffer: /'
	echo "not ok 3 - no one-byte buffer"
	fails=$((fails + 1))
else
	echo "ok 3 - no one-byte buffer ($(grep -c 'ptr\[in, array\[' "$d/syz") arrays)"
fi
[ $fails -eq 0 ] || { echo "not ok - kfuzztest_syzkaller"; exit 1; }
