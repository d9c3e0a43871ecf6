# shellcheck shell=bash
# KTAP helpers for guest suites.  A suite script defines test functions
# named t_*, then calls `ktap_main`.  Each test runs in a subshell with a
# time limit; its output becomes "# " diagnostics; it passes by returning 0,
# fails by returning anything else, and skips by returning 77 after printing
# the reason.  Tests run in the order they are defined.
#
# Across a reboot of the guest: with KTAP_STATE set (run-suites sets it to a
# file on the guest's disk), ktap_main records there which test runs.  A
# test that reboots the guest on purpose (a kernel panic) calls
# ktap_reboot_expected first; after the reboot ktap_main runs that test
# again with KTAP_AFTER_REBOOT=1, appending to its diagnostics, and goes
# on.  A test during which the guest rebooted without saying so fails, and
# the tests after it run.  With KTAP_ONLY set (a bash regular expression),
# only the tests whose names match it run; the others are reported skipped.
#
# Benchmarks are functions named b_* (reported as bench_*): they measure
# (rates, ratios side by side) rather than assert, so they run only when
# KTAP_BENCH=1 (make bench, kwatch.bench=1 on the guest's command line),
# in definition order among the suite's t_* tests, which may set up what
# they use.  Without it they are not in the plan at all.
#
# Each test's wall time is its last diagnostic line ("# NAME: N s"), on
# the console too as the rest (run-suites sends the KTAP there).

KTAP_TEST_TIMEOUT=${KTAP_TEST_TIMEOUT:-180}
# A test that needs longer sets KTAP_TIMEOUT_<its function>=SECONDS.

# fail MSG: print MSG and fail the test.
fail() { echo "FAIL: $*"; return 1; }
# skip MSG: print MSG and skip the test.
skip() { echo "$*"; return 77; }

# expect_eq WHAT GOT WANT
expect_eq() {
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: got '$2', want '$3'"
		return 1
	fi
	echo "$1: $2"
}

# wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds.
wait_for() {
	local limit=$1 i=0
	shift
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt $((limit * 5)) ] || return 1
		sleep 0.2
	done
}

# ktap_reboot_expected: the test is about to reboot the guest; everything
# written so far is synced to disk.
ktap_reboot_expected() {
	[ -n "${KTAP_STATE:-}" ] || { echo "FAIL: no KTAP_STATE: cannot go on after a reboot"; return 1; }
	: >"$KTAP_STATE.reboot"
	sync
}

# Run test function $1 with output in $2 (appended to when $3 is "append");
# sets KTAP_RC (124 on time-out).
_ktap_run_one() {
	local pid i=0 own=KTAP_TIMEOUT_$1 limit
	limit=${!own:-$KTAP_TEST_TIMEOUT}
	[ "${3:-}" = append ] || : >"$2"
	( set +e; "$1" ) >>"$2" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ $i -ge $((limit * 10)) ]; then
			pkill -KILL -P "$pid" 2>/dev/null
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			KTAP_RC=124
			return
		fi
		sleep 0.1
		i=$((i + 1))
	done
	KTAP_RC=0
	wait "$pid" || KTAP_RC=$?
}

# Print KTAP already produced elsewhere (e.g. KUnit's debugfs results)
# nested one level below the current test list.
ktap_nest() { sed 's/^/    /' "$@"; }

ktap_main() {
	local tests=() t n=0 failed=0 out first=1 mode state=${KTAP_STATE:-}
	shopt -s extdebug
	local pat='^t_' t0 name
	[ "${KTAP_BENCH:-0}" != 1 ] || pat='^[tb]_'
	mapfile -t tests < <(for f in $(declare -F | awk -v pat="$pat" '$3 ~ pat {print $3}'); do
		declare -F "$f"
	done | sort -k2 -n | awk '{print $1}')
	shopt -u extdebug
	if [ -n "$state" ] && [ -s "$state" ]; then
		# After a reboot: the header and the tests before went out.
		read -r first failed <"$state"
		out=$state.out
	else
		echo "KTAP version 1"
		echo "1..${#tests[@]}"
		out=${state:+$state.out}
		out=${out:-$(mktemp)}
	fi
	for t in "${tests[@]}"; do
		n=$((n + 1))
		[ $n -ge "$first" ] || continue
		name=${t#t_}
		[ "$name" = "$t" ] && name=bench_${t#b_}
		if [ -n "${KTAP_ONLY:-}" ] && ! [[ $name =~ $KTAP_ONLY ]]; then
			echo "ok $n - $name # SKIP not selected ($KTAP_ONLY)"
			continue
		fi
		mode=
		unset KTAP_AFTER_REBOOT
		if [ $n -eq "$first" ] && [ -n "$state" ] && [ -s "$state" ]; then
			if [ ! -e "$state.reboot" ]; then
				sed 's/^/# /' "$out"
				echo "# $name: the guest rebooted during this test (a kernel panic?)"
				echo "not ok $n - $name"
				failed=1
				continue
			fi
			rm -f "$state.reboot"
			export KTAP_AFTER_REBOOT=1
			mode=append
		fi
		[ -z "$state" ] || { echo "$n $failed" >"$state"; sync; }
		t0=$SECONDS
		_ktap_run_one "$t" "$out" $mode
		# A test that expected a reboot which did not come.
		[ -z "$state" ] || rm -f "$state.reboot"
		# Lines a test marks "KTAP:" are nested KTAP, the rest diagnostics.
		grep -v '^KTAP:' "$out" | sed 's/^/# /'
		echo "# $name: $((SECONDS - t0)) s"
		sed -n 's/^KTAP:/    /p' "$out"
		case $KTAP_RC in
		0) echo "ok $n - $name" ;;
		77) echo "ok $n - $name # SKIP $(tail -n1 "$out")" ;;
		124) own=KTAP_TIMEOUT_$t
		     echo "# $name: timed out after ${!own:-$KTAP_TEST_TIMEOUT}s"
		     echo "not ok $n - $name"; failed=1 ;;
		*) echo "not ok $n - $name"; failed=1 ;;
		esac
	done
	rm -f "$out"
	[ -z "$state" ] || rm -f "$state"
	return $failed
}
