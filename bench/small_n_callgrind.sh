#!/bin/sh
# small_n_callgrind.sh: instructions per call of the small-n targets (issue 32), counted by
# valgrind's callgrind inside each driver's entry point (the copies of A outside it), so that
# machine load does not enter: AUTO (mix_dgesv_ir) against LAPACKE_dgesv and mix_dsgesv against
# LAPACKE_dsgesv, one thread, randsvd kappa 1e2; with --chol the Cholesky drivers on its SPD
# form (AUTO = mix_dposv_ir, LAPACKE_dposv, LAPACKE_dsposv, mix_dsposv).  OpenBLAS runs its
# Haswell kernels here: valgrind does not decode AVX-512.
# usage: bench/small_n_callgrind.sh [--chol] [BUILD_DIR (default _build)] [N...]
set -eu
chol=0
[ "${1:-}" = --chol ] && { chol=1; shift; }
build=${1:-_build}
[ $# -gt 0 ] && shift
sizes=${*:-20 50 100 200 500}
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 77; }
prog=$build/bench/small_calls
out=$(mktemp)
trap 'rm -f "$out"' EXIT
count() { # METHOD ENTRY N CALLS: instructions per call
  OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
    "$build/libtool" --mode=execute valgrind --tool=callgrind --callgrind-out-file="$out" \
    --toggle-collect="$2" "$prog" "$1" "$3" "$4" >/dev/null 2>&1
  tot=$(callgrind_annotate "$out" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
  echo $((tot / ($4 + 1)))
}
if [ $chol = 1 ]; then f=posv; auto=chol_auto; entry=mix_dposv_ir; else f=gesv; auto=auto; entry=mix_dgesv_ir; fi
echo "| n | LAPACKE_d$f | AUTO | AUTO / d$f | LAPACKE_ds$f | mix_ds$f | mix_ds$f / ds$f |"
echo "|---|---|---|---|---|---|---|"
for n in $sizes; do
  calls=$((4000000 / (n * n * n / 10 + 4000) + 2))
  d=$(count d$f LAPACKE_d$f "$n" "$calls")
  a=$(count $auto $entry "$n" "$calls")
  s=$(count ds$f LAPACKE_ds$f "$n" "$calls")
  m=$(count mix_ds$f mix_ds$f "$n" "$calls")
  echo "| $n | $d | $a | $(awk "BEGIN { printf \"%.3f\", $a / $d }") | $s | $m | $(awk "BEGIN { printf \"%.3f\", $m / $s }") |"
done
