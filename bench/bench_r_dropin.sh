#!/bin/sh
# bench_r_dropin.sh: R's solve() (Debian's r-base-core, unmodified) on an n x n system, without
# and with the LAPACK drop-in preloaded, in alternation within one run.  R's La_solve is one of
# the wrappers the drop-in routes under its default policy (mixsolve_lapack(7)).
# usage: bench/bench_r_dropin.sh [BUILD_DIR (default _build)] [N (default 4096)] [ROUNDS (default 3)]
# Each process times its first solve and the best of 3 more; medians over ROUNDS processes.
# Run it alone on the machine: flock /tmp/mixsolve-bench.lock bench/bench_r_dropin.sh
set -eu
build=${1:-_build}
n=${2:-4096}
rounds=${3:-3}
lib=$(cd "$build" && pwd)/dropin/.libs/libmixsolve_lapack.so
[ -f "$lib" ] || { echo "bench_r_dropin: $lib not built" >&2; exit 1; }
command -v Rscript >/dev/null || { echo "bench_r_dropin: install r-base-core" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
code="set.seed(4096); n <- $n
a <- matrix(rnorm(n * n), n); b <- rnorm(n)
t <- numeric(4)
for (k in 1:4) t[k] <- system.time(x <- solve(a, b))[['elapsed']]
berr <- max(abs(b - a %*% x)) / (max(rowSums(abs(a))) * max(abs(x)) + max(abs(b)))
cat(sprintf('%.4f %.4f %.2e\n', t[1], min(t[2:4]), berr))"
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$log"
plain_first= plain_best= drop_first= drop_best=
for r in $(seq "$rounds"); do
  set -- $(Rscript -e "$code")
  plain_first="$plain_first $1" plain_best="$plain_best $2" plain_berr=$3
  set -- $(MIXSOLVE_LAPACK_LOG=$log LD_PRELOAD=$lib Rscript -e "$code")
  drop_first="$drop_first $1" drop_best="$drop_best $2" drop_berr=$3
done
pf=$(echo $plain_first | tr ' ' '\n' | median) pb=$(echo $plain_best | tr ' ' '\n' | median)
df=$(echo $drop_first | tr ' ' '\n' | median) db=$(echo $drop_best | tr ' ' '\n' | median)
route=$(grep ' dgesv ' "$log" | tail -1 | sed 's/^mixsolve_lapack //; s/ seconds=.*//')
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "R solve(), n = $n, $rounds rounds, $(date -u '+%Y-%m-%d %H:%M UTC'), $cpu"
echo "drop-in log (last dgesv): $route"
echo "| n | LAPACK first / best (s) | drop-in first / best (s) | speed-up first / best | backward error LAPACK / drop-in |"
echo "|---|---|---|---|---|"
awk -v n="$n" -v pf="$pf" -v pb="$pb" -v df="$df" -v db="$db" -v pe="$plain_berr" -v de="$drop_berr" \
  'BEGIN { printf "| %d | %.3f / %.3f | %.3f / %.3f | %.2fx / %.2fx | %s / %s |\n", n, pf, pb, df, db, pf / df, pb / db, pe, de }'
