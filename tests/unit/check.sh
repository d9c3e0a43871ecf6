# shellcheck shell=bash
# Shared by the shell host tests of tests/unit: a scratch directory $T
# removed on exit, and check NAME GOT WANT, which prints a TAP-like line
# and counts failures in $fails.  The test ends with [ $fails -eq 0 ].
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0

check() { # NAME GOT WANT
	if [ "$2" = "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1: got '$2', want '$3'"
		fails=$((fails + 1))
	fi
}
