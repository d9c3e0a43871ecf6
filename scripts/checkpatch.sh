#!/usr/bin/env bash
# checkpatch.pl --strict over every patch of kernel-series/, from the
# kernel tree itself.  Any error, warning or check fails the run.
. "$(dirname "$0")/lib.sh"
KW_STEP=checkpatch

mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || die "kernel-series/series lists no patches"
out=$(mktemp)
rc=0
(cd "$KSRC" && scripts/checkpatch.pl --strict --quiet --show-types \
	"${patches[@]}") >"$out" 2>&1 || rc=$?
if [ $rc -ne 0 ] || [ -s "$out" ]; then
	cat "$out"
	rm -f "$out"
	die "checkpatch --strict: findings in kernel-series/ (above)"
fi
rm -f "$out"
say "checkpatch --strict: ${#patches[@]} patches clean"
