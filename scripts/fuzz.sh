#!/bin/sh
# fuzz.sh TARGET PACKAGE FUZZTIME [GO]: runs one fuzz target.
#
# Go before 1.27 may fail a run at the -fuzztime boundary with a bare
# "context deadline exceeded" (a race in the fuzzing coordinator,
# https://go.dev/issue/75804): nothing was found, no failing input is
# written. Such a run is tried once more. Any other failure (a failing
# input written, a panic, a test failure) fails at once.
set -u
target=$1 pkg=$2 fuzztime=$3 go=${4:-go}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for try in 1 2; do
	if "$go" test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$out" 2>&1; then
		cat "$out"
		exit 0
	fi
	cat "$out"
	if [ "$try" = 1 ] && grep -q 'context deadline exceeded' "$out" &&
		! grep -q -e 'Failing input written' -e 'panic:' -e '_test\.go:[0-9]' "$out"; then
		echo "fuzz.sh: $target stopped at the -fuzztime boundary without finding anything (go.dev/issue/75804); once more" >&2
		continue
	fi
	exit 1
done
exit 1
