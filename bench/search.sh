#!/bin/sh
# Side-by-side figures for Grep and Glob against rg, fd and find over
# $(go env GOROOT)/src. See bench/README.md, section "Search".
#
#   bench/search.sh [rounds]      (default 3 rounds of 15 iterations)
#
# The machine may be shared: each round runs every benchmark once, the
# tools and the shell commands alternating, and the script prints each
# benchmark's range (min - max) over the rounds, in milliseconds.
set -eu
rounds=${1:-3}
cd "$(dirname "$0")/.."
bin=$(mktemp)
trap 'rm -f "$bin" "$bin.out"' EXIT
go test -c -o "$bin" ./toolkit/builtin
: >"$bin.out"
i=0
while [ "$i" -lt "$rounds" ]; do
	(cd toolkit/builtin && "$bin" -test.run '^$' -test.bench 'GrepLimit|GlobGoroot' -test.benchtime 15x) |
		awk '/^Benchmark/ {print $1, $3 / 1e6}' >>"$bin.out"
	i=$((i + 1))
done
awk '{ if (!($1 in lo) || $2 < lo[$1]) lo[$1] = $2; if (!($1 in hi) || $2 > hi[$1]) hi[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
	END { for (i = 0; i < n; i++) printf "%-55s %8.1f - %8.1f ms\n", order[i], lo[order[i]], hi[order[i]] }' "$bin.out"
