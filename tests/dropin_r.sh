#!/bin/sh
# dropin_r.sh: R's solve(), unmodified, under the LAPACK drop-in: La_solve is a known wrapper
# (dgesv_ on a private copy, then dgecon_ on its factors), so under the default policy its
# dgesv_ is routed when AUTO predicts a gain (forwarded when it predicts none), and the answer
# and R's singularity check hold.
# Skipped where R is not installed (Debian r-base-core, which tools/install-deps.sh installs).
set -u
lib=$PWD/dropin/.libs/libmixsolve_lapack.so
log=$PWD/tests/dropin_r.log
n=1500
if ! command -v Rscript >/dev/null 2>&1; then
  echo "SKIP: no Rscript (Debian package r-base-core)"
  exit 77
fi
status=0
# Failures are repeated at the end: CI shows only the tail of a long log.
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }
script='set.seed(20261124); n <- as integer
a <- matrix(rnorm(n * n), n); b <- rnorm(n)
x <- solve(a, b)
berr <- max(abs(b - a %*% x)) / (max(rowSums(abs(a))) * max(abs(x)) + max(abs(b)))
s <- tryCatch({ solve(matrix(1, 3, 3), 1:3); "solved" }, error = function(e) "singular")
cat(sprintf("%.3e %s\n", berr, s))'
script=$(printf '%s' "$script" | sed "s/as integer/$n/")
level=$(awk "BEGIN { print 8 * sqrt($n) * 2^-52 }")
# AUTO's decision on pinned rates (MIXSOLVE_GEMM_RATES, GFLOP/s), read by both processes: each
# calibrating its own under load near AUTO's threshold, the predictor and the drop-in disagreed.
# FP32 twice FP64's rate (as this Xeon measures) predicts a gain at n = 1500 (routed), equal
# rates none (forwarded).  No time cap (MIXSOLVE_LAPACK_COST_FALLBACK=0): a routed attempt may
# not give up on a loaded machine's clock, so the log says what the policy decided.
for rates in fp64=100,fp32=200 fp64=100,fp32=100; do
  export MIXSOLVE_GEMM_RATES=$rates
  pred=$(./tests/dropin_autoprec $n 1) || fail "dropin_autoprec"
  case $rates:$pred in *200:fp32|*100:fp64) ;; *) fail "AUTO predicts $pred with rates $rates" ;; esac
  rm -f "$log"
  out=$(LD_PRELOAD=$lib MIXSOLVE_LAPACK_COST_FALLBACK=0 MIXSOLVE_LAPACK_LOG=$log Rscript -e "$script") ||
    fail "R under the drop-in"
  echo "R solve() under the drop-in, n = $n (rates $rates, AUTO predicts $pred): $out; log:"
  cat "$log"
  set -- $out
  awk "BEGIN { exit !($1 <= $level) }" || fail "backward error $1 > $level"
  [ "$2" = singular ] || fail "R's exactly singular check lost ($2)"
  if [ "$pred" = fp64 ]; then
    grep -q "^mixsolve_lapack dgesv n=$n nrhs=1 forwarded .*why=auto" "$log" || fail "not forwarded as AUTO predicts"
  else
    grep -q "^mixsolve_lapack dgesv n=$n nrhs=1 routed prec=$pred " "$log" || fail "R's solve() not routed"
  fi
done
rm -f "$log"
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
