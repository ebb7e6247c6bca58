#!/bin/sh
# dropin_numpy.sh: Debian's python3-numpy, unmodified, under the LAPACK drop-in: numpy.linalg.solve
# on a 2000 x 2000 system is routed as the log says (when AUTO predicts a gain, and always when a
# precision is forced), forwarded when AUTO predicts none, and is as accurate as without the drop-in.
set -u
py=/usr/bin/python3
lib=$PWD/dropin/.libs/libmixsolve_lapack.so
script=$srcdir/tests/dropin_numpy.py
log=$PWD/tests/dropin_numpy.log
n=2000
if ! $py -c 'import numpy' 2>/dev/null; then
  echo "SKIP: $py has no numpy (Debian package python3-numpy; tools/install-deps.sh installs it)"
  exit 77
fi
status=0
# Failures are repeated at the end: CI shows only the tail of a long log.
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }
# FP64 level: LAPACK dsgesv's stopping test bounds the backward error by about sqrt(n) eps.
level=$($py -c "import math; print(8 * math.sqrt($n) * 2.0**-52)")
accurate() { $py -c "import sys; sys.exit(0 if 0 <= float('$1') <= $level else 1)"; }

plain=$($py "$script" $n tests/dropin_numpy_plain.npy) || fail "numpy without the drop-in"
echo "without the drop-in: backward error $plain"
accurate "$plain" || fail "backward error without the drop-in $plain > $level"

# check POLICY EXPECTED_PREC: run under the drop-in, then the log and the accuracy.
check() {
  rm -f "$log"
  # No time cap (MIXSOLVE_LAPACK_COST_FALLBACK=0): the path taken must not depend on the load.
  be=$(LD_PRELOAD=$lib MIXSOLVE_LAPACK=$1 MIXSOLVE_LAPACK_COST_FALLBACK=0 MIXSOLVE_LAPACK_LOG=$log \
    $py "$script" $n tests/dropin_numpy_$1.npy) ||
    { fail "numpy under the drop-in, MIXSOLVE_LAPACK=$1"; return; }
  echo "MIXSOLVE_LAPACK=$1: backward error $be; log: $(cat "$log")"
  accurate "$be" || fail "backward error under the drop-in $be > $level"
  if [ "$2" = fp64 ]; then
    grep -q "^mixsolve_lapack dgesv n=$n nrhs=1 forwarded .*why=auto" "$log" || fail "not forwarded as AUTO predicts"
  else
    grep -q "^mixsolve_lapack dgesv n=$n nrhs=1 routed prec=$2 iter=[0-9]* info=0 " "$log" || fail "not routed at $2"
  fi
  # Same answer: both solutions within the conditioning of A of each other.
  $py -c "
import numpy as np, sys
a, b = np.load('tests/dropin_numpy_plain.npy'), np.load('tests/dropin_numpy_$1.npy')
d = np.abs(a - b).max() / np.abs(a).max()
print('solutions differ by %.2e (relative)' % d)
sys.exit(0 if d < 1e-8 else 1)" || fail "solutions differ"
}
# AUTO's decision on pinned rates (MIXSOLVE_GEMM_RATES, GFLOP/s), read by both processes: each
# calibrating its own under load near AUTO's threshold, the predictor and the drop-in disagreed.
# FP32 twice FP64's rate (as this Xeon measures) predicts a gain at n = 2000, equal rates none;
# both answers are checked.  test_dropin checks the prediction against AUTO on calibrated rates.
for rates in fp64=100,fp32=200 fp64=100,fp32=100; do
  export MIXSOLVE_GEMM_RATES=$rates
  pred=$(./tests/dropin_autoprec $n 1) || fail "dropin_autoprec"
  echo "AUTO predicts $pred for n = $n with rates $rates"
  case $rates:$pred in *200:fp32|*100:fp64) ;; *) fail "AUTO predicts $pred with rates $rates" ;; esac
  check auto "$pred"
done
unset MIXSOLVE_GEMM_RATES
check fp32 fp32
rm -f tests/dropin_numpy_*.npy
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
