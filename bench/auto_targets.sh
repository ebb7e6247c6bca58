#!/bin/sh
# auto_targets.sh: issue 32's targets in one run (doc/benchmarks.md, "Defaults that pay"):
#  1. bench/bench_auto: LAPACKE_dgesv, LAPACKE_dsgesv, mix_dsgesv and AUTO interleaved on dd
#     n = 6144, randsvd kappa 1e6 n = 4096, uniform random n = 4096, randsvd kappa 1e15 n = 4096,
#     and Cholesky (LAPACKE_dposv, dsposv, mix_dsposv, AUTO) on randsvd SPD kappa 1e2 n = 4096;
#  2. the drop-in forcing FP32 (MIXSOLVE_LAPACK=fp32) on randsvd kappa 1e15 n = 4096, against
#     LAPACK's dgesv_ call by call (bench/cost_timer);
#  3. the drop-in forcing FP16 at n = 500 with 500 right-hand sides (issue 33 item 6), NumPy;
#  4. numpy.linalg.solve n = 4096 through the drop-in under auto (bench/bench_numpy_dropin.sh);
#  5. small n: AUTO against LAPACKE_dgesv and mix_dsgesv against LAPACKE_dsgesv, best of many,
#     with the threads of the environment and with one.
# Sections 1b and 2 add kappa 1e15 on one thread in process CPU time (load-robust).
# bench/small_n_callgrind.sh counts instructions for the small-n rows (machine noise free).
# usage: bench/auto_targets.sh [BUILD_DIR (default _build)] [ROUNDS (default 3)]
# Run it alone on the machine: flock /tmp/mixsolve-bench.lock sh bench/auto_targets.sh
set -eu
build=${1:-_build}
rounds=${2:-3}
src=$(dirname "$0")
lib=$(cd "$build" && pwd)/dropin/.libs/libmixsolve_lapack.so
echo "issue 32 targets, $(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## 1. Dense drivers side by side (best and median wall, median CPU time of $rounds rounds)"
"$build/bench/bench_auto" -r "$rounds" dd:6144 randsvd:4096:1e6 random:4096 randsvd:4096:1e15 spd:4096:1e2
echo
echo "## 1b. kappa 1e15 on one thread: process CPU time, which other processes' load barely moves"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$build/bench/bench_auto" -r "$rounds" randsvd:4096:1e15
echo
echo "## 2. Drop-in, MIXSOLVE_LAPACK=fp32, randsvd kappa 1e15 n = 4096 (dgesv_ routed / LAPACK's, per call)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "first_routed first_plain median_ratio max_ratio median_plain berr"
COST_HARD_KAPPA=1e15 MIXSOLVE_LAPACK=fp32 MIXSOLVE_LAPACK_FACTORS=discard MIXSOLVE_LAPACK_LOG=$log \
  LD_PRELOAD=$lib "$build/bench/cost_timer" gesv hard 4096 "$rounds"
tail -1 "$log"
echo "the same, one thread, process CPU time:"
COST_TIMER_CLOCK=cpu OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 COST_HARD_KAPPA=1e15 MIXSOLVE_LAPACK=fp32 \
  MIXSOLVE_LAPACK_FACTORS=discard MIXSOLVE_LAPACK_LOG=$log LD_PRELOAD=$lib "$build/bench/cost_timer" gesv hard 4096 "$rounds"
tail -1 "$log"
echo
echo "## 3. Drop-in, MIXSOLVE_LAPACK=fp16, numpy.linalg.solve n = 500 with 500 right-hand sides"
code='
import sys, time
import numpy as np
rng = np.random.default_rng(500)
a = rng.standard_normal((500, 500)); b = rng.standard_normal((500, 500))
best = 1e9
for k in range(5):
    t = time.perf_counter(); x = np.linalg.solve(a, b); best = min(best, time.perf_counter() - t)
print("%.4f %.1e" % (best, np.abs(b - a @ x).max() / (np.abs(a).sum(1).max() * np.abs(x).max() + np.abs(b).max())))
'
: >"$log"
echo "LAPACK best s, berr: $(/usr/bin/python3 -c "$code")"
echo "drop-in fp16 best s, berr: $(MIXSOLVE_LAPACK=fp16 MIXSOLVE_LAPACK_LOG=$log LD_PRELOAD=$lib /usr/bin/python3 -c "$code")"
tail -1 "$log"
echo
echo "## 4. numpy.linalg.solve n = 4096 through the drop-in (auto)"
sh "$src/bench_numpy_dropin.sh" "$build" 4096 "$rounds"
echo
echo "## 5. Small n (best of 300 batches of calls, interleaved)"
"$build/bench/bench_auto" -r 300 randsvd:20:1e2 randsvd:50:1e2 randsvd:100:1e2 randsvd:200:1e2 randsvd:500:1e2
echo
echo "## 5b. Small n, one thread (best of 300 batches)"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$build/bench/bench_auto" -r 300 randsvd:20:1e2 randsvd:50:1e2 randsvd:100:1e2 randsvd:200:1e2 randsvd:500:1e2
