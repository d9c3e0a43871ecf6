#!/usr/bin/env bash
# The kernel series keeps its stack frames small: the kernel's own
# scripts/checkstack.pl, over the objects of the C files the series adds,
# in the built test kernel, finds no function above LIMIT bytes.  The test
# kernel has KASAN, whose redzones about double a frame: the limit is
# 1200 bytes there (FRAME_WARN is 2048; trace_kprobe.c's own largest is
# 1280).  process_fetch_insn() is exempt: it is the probe events' shared
# template (trace_probe_tmpl.h), as large in trace_kprobe.o.
set -euo pipefail
TOP=@TOP@
KSRC=@KSRC@
KBUILD=@KBUILD@
LIMIT=${KWATCH_STACK_LIMIT:-1200}

srcs=$(git -C "$KSRC" diff --name-only --diff-filter=A kwatch-base..HEAD -- '*.c')
# The objects must be those of the tree as it is: build when a source is
# newer than the kernel (make test has built it by now; make check may not).
if [ ! -f "$KBUILD/vmlinux" ] ||
	[ -n "$(cd "$KSRC" && find $srcs -newer "$KBUILD/vmlinux" -print -quit)" ]; then
	"$TOP/scripts/kernel.sh" build >&2
fi
objs=()
for c in $srcs; do
	o=$KBUILD/${c%.c}.o
	[ -f "$o" ] && objs+=("$o")
done
[ ${#objs[@]} -gt 0 ] || { echo "not ok: no object of the series' C files in $KBUILD"; exit 1; }

report=$(for o in "${objs[@]}"; do
	objdump -d "$o" | perl "$KSRC/scripts/checkstack.pl" x86_64 0 2>/dev/null
done | sed -nE 's/^0x[0-9a-f]+ +([^ ]+) +\[([^]]+)\]:[[:space:]]*([0-9]+)$/\3 \1 \2/p' | sort -rn)
echo "# ${#objs[@]} objects of the series; the five largest frames (bytes, function, object):"
echo "$report" | head -n 5 | sed 's/^/#   /'
over=$(echo "$report" | awk -v l="$LIMIT" '$1 > l && $2 != "process_fetch_insn"')
if [ -n "$over" ]; then
	echo "# over $LIMIT bytes:"
	echo "$over" | sed 's/^/#   /'
	echo "not ok - series_stack"
	exit 1
fi
echo "ok - series_stack: no function of the series above $LIMIT bytes"
