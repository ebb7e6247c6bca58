#!/bin/sh
# bench_numpy_dropin.sh: numpy.linalg.solve (Debian's python3-numpy, unmodified) on an n x n
# system, without and with the LAPACK drop-in preloaded, in alternation within one run.
# usage: bench/bench_numpy_dropin.sh [BUILD_DIR (default _build)] [N (default 4096)] [ROUNDS (default 3)]
# Each process times its first solve (includes the drop-in's setup) and the best of 3 more;
# the table gives the medians over ROUNDS processes, the median of each round's speed-up (its
# two processes back to back), and the backward errors.
# Run it alone on the machine: flock /tmp/mixsolve-bench.lock bench/bench_numpy_dropin.sh
set -eu
build=${1:-_build}
n=${2:-4096}
rounds=${3:-3}
lib=$(cd "$build" && pwd)/dropin/.libs/libmixsolve_lapack.so
py=/usr/bin/python3
[ -f "$lib" ] || { echo "bench_numpy_dropin: $lib not built" >&2; exit 1; }
$py -c 'import numpy' || { echo "bench_numpy_dropin: install python3-numpy" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
code='
import sys, time
import numpy as np
n = int(sys.argv[1])
rng = np.random.default_rng(4096)
a = rng.standard_normal((n, n))
b = rng.standard_normal(n)
times = []
for k in range(4):
    t = time.perf_counter()
    x = np.linalg.solve(a, b)
    times.append(time.perf_counter() - t)
r = b - a @ x
berr = np.abs(r).max() / (np.abs(a).sum(axis=1).max() * np.abs(x).max() + np.abs(b).max())
print("%.4f %.4f %.2e" % (times[0], min(times[1:]), berr))
'
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$log"
plain_first= plain_best= drop_first= drop_best= pair_first= pair_best=
for r in $(seq "$rounds"); do
  set -- $($py -c "$code" "$n")
  plain_first="$plain_first $1" plain_best="$plain_best $2" plain_berr=$3
  p1=$1 p2=$2
  set -- $(MIXSOLVE_LAPACK_LOG=$log LD_PRELOAD=$lib $py -c "$code" "$n")
  drop_first="$drop_first $1" drop_best="$drop_best $2" drop_berr=$3
  # The two processes of a round ran back to back: their ratio leaves out the slower drifts of
  # a shared machine's speed (10-40% between runs minutes apart on the 2-core Xeon guest).
  pair_first="$pair_first $(awk "BEGIN { print $p1 / $1 }")"
  pair_best="$pair_best $(awk "BEGIN { print $p2 / $2 }")"
done
pf=$(echo $plain_first | tr ' ' '\n' | median) pb=$(echo $plain_best | tr ' ' '\n' | median)
df=$(echo $drop_first | tr ' ' '\n' | median) db=$(echo $drop_best | tr ' ' '\n' | median)
rf=$(echo $pair_first | tr ' ' '\n' | median) rb=$(echo $pair_best | tr ' ' '\n' | median)
route=$(tail -1 "$log" | sed 's/^mixsolve_lapack //; s/ seconds=.*//')
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
echo "numpy.linalg.solve, n = $n, $rounds rounds, $(date -u '+%Y-%m-%d %H:%M UTC'), $cpu"
echo "drop-in log (last call): $route"
echo "| n | LAPACK first / best (s) | drop-in first / best (s) | speed-up first / best | median of the rounds' speed-ups first / best | backward error LAPACK / drop-in |"
echo "|---|---|---|---|---|---|"
awk -v n="$n" -v pf="$pf" -v pb="$pb" -v df="$df" -v db="$db" -v rf="$rf" -v rb="$rb" \
  -v pe="$plain_berr" -v de="$drop_berr" \
  'BEGIN { printf "| %d | %.3f / %.3f | %.3f / %.3f | %.2fx / %.2fx | %.2fx / %.2fx | %s / %s |\n", n, pf, pb, df, db, pf / df, pb / db, rf, rb, pe, de }'
