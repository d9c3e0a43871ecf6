#!/usr/bin/env bash
# series-functions.sh: the names of the kernel functions that are the
# series' code, one a line: every function of a file the series adds (from
# its object in the build: FUZZ_TEST() and friends make functions no text
# shows), and every function of a 6.1 file that the series changes lines
# of (from the diff: a function in kernel style opens with "{" and closes
# with "}" in column 0).  make kcsan-test and make fault-test tell the
# series' reports from 6.1's by these names.
. "$(dirname "$0")/lib.sh"
KW_STEP=series-functions

base=$(git -C "$KSRC" rev-parse -q --verify kwatch-base) || die "no tag kwatch-base in $KSRC: run 'make kernel-tree'"

added() {
	local f o
	git -C "$KSRC" diff --diff-filter=A --name-only "$base" HEAD -- '*.c' | grep -v '^tools/' |
		while read -r f; do
			o=$KBUILD/${f%.c}.o
			[ -f "$o" ] || continue
			nm --defined-only "$o" | awk '$2 ~ /^[tTwW]$/ { print $3 }'
		done
}

# The functions of FILE (in the tree) that hold a line of LINES (the new
# file's line numbers the diff adds or changes, one a line on stdin).
changed_in() {
	awk 'NR == FNR { want[$1] = 1; next }
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { hdr = $0; hline = FNR }
	/^\{/ && hdr != "" {
		name = hdr
		sub(/\(.*/, "", name)
		sub(/.*[^A-Za-z0-9_]/, "", name)
		for (i = hline; i < FNR; i++)
			if (i in want)
				hit[name] = 1
		infn = 1
	}
	infn { if (FNR in want) hit[name] = 1 }
	/^\}/ && infn { infn = 0; hdr = "" }
	END { for (n in hit) print n }' - "$KSRC/$1"
}

changed() {
	local f
	git -C "$KSRC" diff --diff-filter=M --name-only "$base" HEAD -- '*.c' | grep -v '^tools/' |
		while read -r f; do
			# "@@ -a,b +c,d @@": new lines c .. c+d-1 (d 0: a deletion
			# after line c, which counts for the function around it).
			git -C "$KSRC" diff -U0 "$base" HEAD -- "$f" |
				sed -n 's/^@@ -[0-9,]* +\([0-9]*\)\(,\([0-9]*\)\)\{0,1\} @@.*/\1 \3/p' |
				awk '{ n = ($2 == "" ? 1 : $2); if (n == 0) { print $1; print $1 + 1 }
				       for (i = 0; i < n; i++) print $1 + i }' |
				changed_in "$f"
		done
}

[ -d "$KBUILD" ] || die "no kernel build at $KBUILD"
{ added; changed; } | sort -u
