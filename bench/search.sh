#!/bin/sh
# Side-by-side figures for Grep and Glob against rg, fd and find over
# $(go env GOROOT)/src. See bench/README.md, section "Search".
#
#   bench/search.sh [rounds]      (default 3 rounds of 15 iterations)
#
# The machine may be shared: each round runs every benchmark once, the
# tools and the shell commands alternating, and the script prints each
# benchmark's range (min - max) over the rounds, in milliseconds, of the
# wall time and of the processor time (the benchmark's own and its
# children's, rg and the shell pipelines included), then the ratios of
# each tool to its reference (Grep to `rg | head`, Glob to fd), taken
# within each round.
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
		awk -v r="$i" '/^Benchmark/ {cpu = ($6 == "cpu-ms/op") ? $5 : -1; print r, $1, $3 / 1e6, cpu}' >>"$bin.out"
	i=$((i + 1))
done
awk '
	function range(name, lo, hi) { return sprintf("%7.1f - %7.1f", lo[name], hi[name]) }
	function keep(name, v, lo, hi) { if (!(name in lo) || v < lo[name]) lo[name] = v; if (!(name in hi) || v > hi[name]) hi[name] = v }
	{
		sub(/-[0-9]+$/, "", $2)
		keep($2, $3, wlo, whi); keep($2, $4, clo, chi)
		if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 }
		wall[$1, $2] = $3; cpu[$1, $2] = $4; rounds = $1 + 1
	}
	END {
		printf "%-48s %19s %19s\n", "benchmark (ranges over the rounds)", "wall ms", "cpu ms"
		for (i = 0; i < n; i++) printf "%-48s %19s %19s\n", order[i], range(order[i], wlo, whi), range(order[i], clo, chi)
		printf "\n%-48s %19s %19s\n", "ratio within a round", "wall", "cpu"
		for (i = 0; i < n; i++) {
			name = order[i]
			if (name !~ /\/tool(_sorted)?$/) continue
			ref = name
			if (name ~ /\/tool_sorted$/) sub(/\/tool_sorted$/, "/rg_sorted_head", ref)
			else sub(/\/tool$/, (name ~ /^BenchmarkGlob/) ? "/fd" : "/rg_head", ref)
			if (!(ref in seen)) continue
			for (r = 0; r < rounds; r++) if (((r, ref) in wall) && wall[r, ref] > 0) {
				keep(name, wall[r, name] / wall[r, ref], rw, rwhi)
				if (cpu[r, ref] > 0 && cpu[r, name] >= 0) keep(name, cpu[r, name] / cpu[r, ref], rc, rchi)
			}
			k = split(ref, part, "/")
			printf "%-48s %19s %19s\n", name " / " part[k], sprintf("%7.2f - %7.2f", rw[name], rwhi[name]), sprintf("%7.2f - %7.2f", rc[name], rchi[name])
		}
	}' "$bin.out"
