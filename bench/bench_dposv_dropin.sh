#!/bin/sh
# bench_dposv_dropin.sh: LAPACK's dposv_ called by an unmodified program (bench/dposv_timer,
# -llapack only) on an n x n SPD system, without and with the LAPACK drop-in preloaded, in
# alternation within one run.
# usage: bench/bench_dposv_dropin.sh [BUILD_DIR (default _build)] [N (default 4096)] [ROUNDS (default 3)]
# The table gives the medians over ROUNDS processes of the first call and of the best of 3 more.
# Run it alone on the machine: flock /tmp/mixsolve-bench.lock chrt -f 10 sh bench/bench_dposv_dropin.sh
set -eu
build=${1:-_build}
n=${2:-4096}
rounds=${3:-3}
lib=$(cd "$build" && pwd)/dropin/.libs/libmixsolve_lapack.so
timer=$build/bench/dposv_timer
[ -f "$lib" ] && [ -x "$timer" ] || { echo "bench_dposv_dropin: build $lib and $timer first" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
pf= pb= df= db=
for r in $(seq "$rounds"); do
  set -- $("$timer" "$n")
  pf="$pf $1" pb="$pb $2" pe=$3
  set -- $(MIXSOLVE_LAPACK_LOG=$log LD_PRELOAD=$lib "$timer" "$n")
  df="$df $1" db="$db $2" de=$3
done
pf=$(echo $pf | median) pb=$(echo $pb | median) df=$(echo $df | median) db=$(echo $db | median)
echo "dposv_ (UPLO = 'L', nrhs = 1), n = $n, $rounds rounds, $(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
echo "drop-in log (last call): $(tail -1 "$log" | sed 's/^mixsolve_lapack //; s/ seconds=.*//')"
echo "| n | LAPACK first / best (s) | drop-in first / best (s) | speed-up first / best | backward error LAPACK / drop-in |"
echo "|---|---|---|---|---|"
awk -v n="$n" -v pf="$pf" -v pb="$pb" -v df="$df" -v db="$db" -v pe="$pe" -v de="$de" \
  'BEGIN { printf "| %d | %.3f / %.3f | %.3f / %.3f | %.2fx / %.2fx | %s / %s |\n", n, pf, pb, df, db, pf / df, pb / db, pe, de }'
