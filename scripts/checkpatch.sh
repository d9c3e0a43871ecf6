#!/usr/bin/env bash
# checkpatch.pl --strict over every patch of kernel-series/ and of
# kernel-series/test-only/, from the kernel tree itself.  Any error,
# warning or check fails the run.
#
# One refinement: checkpatch asks "does MAINTAINERS need updating?" of any
# patch that adds a file without touching MAINTAINERS.  We answer it: a
# patch passes that check when every file it adds is covered by an F:
# pattern of MAINTAINERS in the patched tree; otherwise it fails.
. "$(dirname "$0")/lib.sh"
KW_STEP=checkpatch

mapfile -t patches < <(series_patches)
[ ${#patches[@]} -gt 0 ] || die "kernel-series/series lists no patches"
mapfile -t test_only < <(test_only_patches)
patches+=("${test_only[@]}")

# F: directory and file patterns of MAINTAINERS, as path prefixes.
covered() {
	local f=$1 pat
	while read -r pat; do
		case $pat in
		*/) [[ $f == "$pat"* ]] && return 0 ;;
		*) [[ $f == "$pat" ]] && return 0 ;;
		esac
	done < <(sed -n 's/^F:[[:space:]]*//p' "$KSRC/MAINTAINERS" | grep -v '[*?]')
	return 1
}

out=$(mktemp)
bad=0
for p in "${patches[@]}"; do
	# spdxcheck.py needs python3-ply: use Debian's python3, not a pyenv one.
	(cd "$KSRC" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict --quiet --show-types \
		--ignore FILE_PATH_CHANGES "$p") >"$out" 2>&1 || true
	if [ -s "$out" ]; then
		echo "== ${p#"$SERIES_DIR"/}"
		cat "$out"
		bad=1
	fi
	if ! grep -q '^ MAINTAINERS *|' "$p"; then
		while read -r f; do
			covered "$f" && continue
			echo "== ${p#"$SERIES_DIR"/}"
			echo "WARNING:FILE_PATH_CHANGES: $f is added but no MAINTAINERS entry covers it"
			bad=1
		done < <(awk '/^diff --git/ {f=$4} /^new file mode/ {sub(/^b\//, "", f); print f}' "$p")
	fi
done
rm -f "$out"
[ $bad -eq 0 ] || die "checkpatch --strict: findings in kernel-series/ (above)"
say "checkpatch --strict: ${#patches[@]} patches clean (${#test_only[@]} of them test-only)"
