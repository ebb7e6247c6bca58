#!/bin/sh
# cost_envelope.sh: issue 20's cost envelope.  dgesv_ and dposv_ from an unmodified LAPACK program
# (bench/cost_timer) with the drop-in preloaded under forced precisions, each call timed against
# LAPACK's own in alternation, on randsvd matrices where refinement fails (kappa 1e12) and where
# it succeeds (kappa 1e2).
# usage: bench/cost_envelope.sh [BUILD_DIR (default _build)] [SIZES (default "500 1000 2000 3000 4000")]
#        [PRECS (default "fp32 bf16 fp16")] [ROUNDS (default 5)]
# Environment passes through (MIXSOLVE_LAPACK_COST_FALLBACK=0 shows the path without the envelope;
# COST_ROUTINES="gesv" or "posv" runs one routine).
# COST_CLOCK=cpu (default): one BLAS/OpenMP thread, process CPU time, so that other processes'
# load does not blur the ratios; COST_CLOCK=wall: every thread, wall clock.
# Run it alone on the machine: flock /tmp/mixsolve-bench.lock sh bench/cost_envelope.sh
set -eu
build=${1:-_build}
sizes=${2:-500 1000 2000 3000 4000}
precs=${3:-fp32 bf16 fp16}
rounds=${4:-5}
lib=$(cd "$build" && pwd)/dropin/.libs/libmixsolve_lapack.so
timer=$build/bench/cost_timer
[ -f "$lib" ] && [ -x "$timer" ] || { echo "cost_envelope: build $lib and $timer first" >&2; exit 1; }
clock=${COST_CLOCK:-cpu}
if [ "$clock" = cpu ]; then
  export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 COST_TIMER_CLOCK=cpu
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "cost envelope, $(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores, clock $clock, COST_FALLBACK=${MIXSOLVE_LAPACK_COST_FALLBACK:-1}"
echo "| routine | matrix | n | prec | LAPACK (s) | routed/LAPACK median | max | first call routed/LAPACK | path (last call) | berr |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for r in ${COST_ROUTINES:-gesv posv}; do
  for kind in hard easy; do
    for n in $sizes; do
      for p in $precs; do
        : >"$log"
        set -- $(MIXSOLVE_LAPACK=$p MIXSOLVE_LAPACK_FACTORS=discard MIXSOLVE_LAPACK_LOG=$log \
                 LD_PRELOAD=$lib "$timer" $r $kind "$n" "$rounds")
        path=$(tail -1 "$log" | sed 's/^mixsolve_lapack [a-z]* n=[0-9]* nrhs=[0-9]* //; s/ info=[-0-9]* seconds=[0-9.]*//')
        echo "| d$r | $kind | $n | $p | $5 | $3 | $4 | $(awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }') | $path | $6 |"
      done
    done
  done
done
