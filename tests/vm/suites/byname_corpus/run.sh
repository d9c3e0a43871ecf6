#!/bin/bash
# Suite "byname_corpus" (MANUAL: make byname-corpus runs it, after writing
# /opt/kwatch/corpus/canaried.txt, vmlinux's functions that load the stack
# canary, as kallsyms names them): watching by name measured over the
# kernel's own code (issue 31, item 1).
#
# canary_share: a sample of N (1000) canaried functions, each named
# by its source name alone (a clone's name without its .constprop.0,
# .isra.0, .part.0 suffixes), resolved by kwatchctl resolve (-b, the
# index read once) and written to /proc/kstackwatch: armed when the write
# succeeds and the kernel shows its probe point; then removed.
# variable_share: a sample of N named stack variables of vmlinux's
# functions that have a stack slot in the index (cfa-N, part-N, multi, and
# in frames the CFA is not at a fixed distance from, sp+N and fp-N; those
# in KASAN's stack frame among them, lib/asanframe.c); a
# variable over 8 bytes is watched by its first element or member, as a
# user would.  Each prints its share and the reasons of the rest, grouped
# (the kernel's last kstackwatch line or the resolver's message, with
# names and numbers taken out), as "kwatch-corpus:" lines that
# make byname-corpus copies to build/byname-report.txt.  The tests fail
# only if nothing could be measured: the shares are figures, the goals
# (95 % and 90 %) are the issue's.
. /opt/kwatch/tests/guest/ktap.sh

export LC_ALL=C
KSW=/proc/kstackwatch
CORPUS=/opt/kwatch/corpus
# The sample's size: kwatch.corpus_n=N on the guest's command line
# (KWATCH_CMDLINE), else 1000.
N=$(sed -n 's/.*kwatch\.corpus_n=\([0-9]*\).*/\1/p' /proc/cmdline)
N=${N:-1000}
W=/tmp/corpus
KTAP_TIMEOUT_t_canary_share=3600
KTAP_TIMEOUT_t_variable_share=3600
mkdir -p $W

# Every N-th line of stdin, N lines in all (the same sample each run).
sample() {
	awk -v want="$N" '{ l[NR] = $0 } END {
		step = NR / want; if (step < 1) step = 1
		for (i = 1; i <= NR && n < want; i += step) { print l[int(i)]; n++ } }'
}

# A reason with the names and numbers taken out: the groups to count.
generic() {
	sed -E -e 's/^kstackwatch: //' -e 's/^[A-Za-z_][A-Za-z0-9_.]*: //' -e "s/'[^']*'/'X'/g" \
		-e 's/^[a-z_][a-z0-9_.]* has /F has /' -e 's/ (of|named) [a-z_][a-z0-9_.]*/ \1 F/g' -e 's/ in [a-z_][a-z0-9_.]* (is|has)/ in F \1/g' \
		-e 's/ \((its variables|name a member)[^)]*\)//' -e 's/0x[0-9a-f]+/N/g' -e 's/[0-9]+/N/g' | cut -c1-150
}

# arm LINE: write it to /proc/kstackwatch; "ok" or the reason, on stdout.
arm() {
	local err rc why
	dmesg -c >/dev/null
	err=$( (echo "$1" >$KSW) 2>&1)
	rc=$?
	if [ $rc = 0 ] && grep -q ' # fo=' $KSW; then
		echo > $KSW
		echo ok
		return
	fi
	# The kernel's own words (before the removal's "disabled"), else the
	# write's error.
	why=$(dmesg | grep 'kstackwatch:' |
		grep -v 'watching:\|removed:\|: probe point\|frame release\|: disabled$' |
		tail -n1 | sed 's/^\[[^]]*\] //' | generic)
	echo > $KSW
	echo "kernel ($(echo "${err##*: }" | generic)): ${why:-no message}"
}

# Print the share and the grouped reasons of results file $2 ("ok" or a
# reason a line), for what $1 names.
report() {
	local what=$1 f=$2 total ok
	total=$(wc -l <"$f")
	ok=$(grep -cx ok "$f")
	echo "kwatch-corpus: $what: $ok of $total armed ($(awk -v a="$ok" -v b="$total" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }') %)"
	grep -vx ok "$f" | sort | uniq -c | sort -rn | head -n 25 |
		while read -r n why; do echo "kwatch-corpus: $what:   $n  $why"; done
}

t_canary_share() {
	local sym src line out=$W/canary.txt
	[ -s $CORPUS/canaried.txt ] || skip "no $CORPUS/canaried.txt: run make byname-corpus" || return
	echo "$(wc -l <$CORPUS/canaried.txt) canaried functions in vmlinux, $(grep -c '\.' $CORPUS/canaried.txt) of them clones; sampling $N"
	sample <$CORPUS/canaried.txt >$W/canary-syms.txt
	sed 's/\..*//' $W/canary-syms.txt | kwatchctl resolve -b >$W/canary-lines.txt
	: >$out
	exec 3<$W/canary-lines.txt
	while read -r sym; do
		read -r line <&3
		echo "corpus: $sym" >/dev/kmsg
		case $line in
		'! '*) echo "resolve: $(echo "${line#! }" | generic)" >>$out ;;
		*) arm "$line" >>$out ;;
		esac
	done <$W/canary-syms.txt
	exec 3<&-
	report "canary by name (source name)" $out
	[ "$(wc -l <$out)" -gt 0 ] || fail "nothing measured"
}

# The source names of vmlinux's text symbols (a clone under its source name).
# Not those of .init.text, freed after boot (nothing to watch; the canary
# half leaves them out too): kallsyms still lists them, between
# _sinittext and _einittext.
vmlinux_functions() {
	awk 'NR == FNR { if ($3 == "_sinittext") lo = $1; if ($3 == "_einittext") hi = $1; next }
	     $2 ~ /^[tT]$/ && NF == 3 && !(lo != "" && $1 >= lo && $1 < hi) {
		sub(/\..*/, "", $3); print $3 }' /proc/kallsyms /proc/kallsyms | sort -u
}

t_variable_share() {
	local idx out=$W/var.txt pairs=$W/var-pairs.txt round f v line
	idx=/usr/lib/kwatch/stackvars/$(uname -r)
	[ -s "$idx" ] || skip "no stack variable index $idx" || return
	vmlinux_functions >$W/funcs.txt
	# Top-level variables with a stack slot, of functions in vmlinux.
	awk '!/^#/ && $2 !~ /[.[]/ && $3 ~ /^(cfa-|part-|multi|sp\+|fp-)/ { print $1, $2 }' "$idx" | sort -u |
		join - $W/funcs.txt >$W/var-all.txt
	echo "$(wc -l <$W/var-all.txt) named stack variables with a stack slot in vmlinux's functions" \
		"($(awk '!/^#/ && $2 !~ /[.[]/' "$idx" | wc -l) named variables in the index); sampling $N"
	sample <$W/var-all.txt >$pairs
	# Over 8 bytes: its first element or member, up to three steps down.
	for round in 1 2 3 4; do
		kwatchctl resolve -b <$pairs >$W/var-lines.txt
		[ $round = 4 ] && break
		paste -d'|' $pairs $W/var-lines.txt | while IFS='|' read -r fv line; do
			f=${fv%% *}; v=${fv#* }
			case $line in
			*"name an element, "*) echo "$f $v[0]" ;;
			# The resolver names the member by its path (var.member,
			# arr[].member): its last step, after the variable.
			*"name a member ("*) m=${line#*name a member (}; m=${m%%[,)]*}
				echo "$f $v.${m##*.}" ;;
			*) echo "$fv" ;;
			esac
		done >$pairs.next
		mv $pairs.next $pairs
	done
	: >$out
	exec 3<$W/var-lines.txt
	while read -r f v; do
		read -r line <&3
		echo "corpus: $f $v" >/dev/kmsg
		case $line in
		'! '*) echo "resolve: $(echo "${line#! }" | generic)" >>$out ;;
		*) arm "$line" >>$out ;;
		esac
	done <$pairs
	exec 3<&-
	report "stack variable by name" $out
	[ "$(wc -l <$out)" -gt 0 ] || fail "nothing measured"
}

ktap_main
