#!/usr/bin/env bash
# kcsan-reports.sh FUNCS OUT CONSOLE...: every KCSAN report in the console
# logs, classified by the series' function names in FUNCS (one a line,
# scripts/series-functions.sh):
#
#   series   an access of the race is in the series' code (its first
#            frame is a series function): a bug of the series
#   reached  the series' code is on a stack of the race, not at the
#            access: a 6.1 race the series drives, to be read
#   module   a project test module (tests/modules) is at an access
#   6.1      the series' code is nowhere in the report
#
# Prints one line per distinct report (class, count, the title line and
# both accesses' first frames), writes every report in full, grouped by
# class, to OUT, and exits 1 if a report is of class "series".
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 FUNCS OUT CONSOLE..." >&2; exit 2; }
funcs=$1 out=$2
shift 2

awk -v out="$out" '
function strip(l) { sub(/\r$/, "", l); sub(/^\[ *[0-9]+\.[0-9]+\] /, "", l); return l }
# "func+0x1a/0x30 [mod]" -> func; suffixes like .constprop.0 dropped.
function fname(l,    f) {
	f = l
	sub(/^ +/, "", f)
	sub(/^\? /, "", f)
	sub(/\+0x.*/, "", f)
	sub(/\..*/, "", f)
	return f
}
FNR == NR { series[$1] = 1; next }
{ line = strip($0) }
/BUG: KCSAN: / {
	inrep = 1; nacc = 0; infr = 0; cls = "6.1"; top = ""; text = ""
	title = line; sub(/.*BUG: KCSAN: /, "", title)
}
inrep {
	text = text line "\n"
	if (line ~ /^(read|write|read-write|assert no accesses|assert no writes)( \(marked\))? to 0x[0-9a-f]+ of [0-9]+ bytes by / ||
	    line ~ /^race at unknown origin, with /) {
		nacc++; infr = 1; first = 1; next
	}
	if (infr && line ~ /^ +[^ ]+\+0x[0-9a-f]+\/0x[0-9a-f]+/) {
		f = fname(line)
		if (first) {
			top = top (top == "" ? "" : " / ") f
			if (f in series) cls = "series"
			else if (line ~ /\[kwatch_/ && cls != "series") cls = "module"
			first = 0
		} else if ((f in series) && cls == "6.1") {
			cls = "reached"
		}
		next
	}
	if (line ~ /^$/) { infr = 0; next }
	if (line ~ /^=====/ && nacc > 0) {
		key = cls "\t" title "\t" top
		if (!(key in count)) order[nkeys++] = key
		count[key]++
		full[cls] = full[cls] "---- " cls ": " title "\n" text "\n"
		total[cls]++
		inrep = 0
	}
}
END {
	split("series reached module 6.1", classes, " ")
	printf "" > out
	for (c = 1; c <= 4; c++) {
		k = classes[c]
		printf "%-8s %d reports\n", k, total[k] + 0
		for (i = 0; i < nkeys; i++) {
			split(order[i], p, "\t")
			if (p[1] == k)
				printf "  %3dx %s  [%s]\n", count[order[i]], p[2], p[3]
		}
		if (total[k])
			printf "%s", full[k] >> out
	}
	exit total["series"] > 0
}' "$funcs" "$@"
