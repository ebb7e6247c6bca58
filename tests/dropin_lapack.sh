#!/bin/sh
# dropin_lapack.sh: the LAPACK client (tests/lapack_client, -llapack only) run plain, then with
# libmixsolve_lapack.so preloaded under each policy; its checks plus the log lines must hold.
set -u
lib=$PWD/dropin/.libs/libmixsolve_lapack.so
client=./tests/lapack_client
log=$PWD/tests/dropin_lapack.log
n=1100
status=0
# Failures are repeated at the end: CI shows only the tail of a long log.
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }
expect() { grep -q "^mixsolve_lapack $1" "$log" || fail "no log line '$1'"; }
# AUTO's call at n near its threshold: routed in the low precision it predicts, or forwarded
# because it predicts FP64.  Each process calibrates its own rates, so the harness's prediction
# (tests/dropin_autoprec) and the client's may fall on either side on a loaded machine.
expect_auto() { grep -Eq "^mixsolve_lapack $1 (routed prec=$2 iter=[0-9]* info=0 |forwarded prec=lapack iter=[^ ]* info=0 .* why=auto)" "$log" ||
  fail "no log line '$1' routed in $2 or forwarded by auto"; }
# max|P L U - A| / max|A| allowed for the factors dgesv_ leaves, by factor precision.
tol_for() { case $1 in fp32) echo 1e-4 ;; tf32 | fp16) echo 0.05 ;; bf16) echo 0.3 ;; *) echo 1e-12 ;; esac; }
# run POLICY N [FACTOR_PREC]: the client under the drop-in; nothing may reach stdout/stderr but
# the client's own lines.
run() {
  rm -f "$log"
  echo "== MIXSOLVE_LAPACK=$1, n = $2"
  LAPACK_CLIENT_FACTOR_TOL=$(tol_for "${3:-$1}") LAPACK_CLIENT_FACTOR_PREC=${3:-$1} \
    LD_PRELOAD=$lib MIXSOLVE_LAPACK=$1 MIXSOLVE_LAPACK_LOG=$log $client "$2" \
    >tests/dropin_lapack.out 2>&1 || fail "client, MIXSOLVE_LAPACK=$1"
  cat tests/dropin_lapack.out
  if grep -v -e '^ok ' -e '^FAIL ' -e 'failure(s)$' tests/dropin_lapack.out; then
    fail "output other than the client's under the drop-in"
  fi
}

[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
# Routing and answers, not cost: refinement runs to convergence whatever the machine's load
# (the cost envelope's stops are tested in the CUnit suite with a fixed FP64 time).
export MIXSOLVE_LAPACK_COST_FALLBACK=0
echo "== plain LAPACK, n = $n"
$client $n || fail "client without the drop-in"

for p in fp32 fp16 bf16; do
  run $p $n
  expect "dgesv n=$n nrhs=3 routed prec=$p iter=[0-9]* info=0 "
  expect "dsgesv n=$n nrhs=2 routed prec=$p iter=[0-9]* info=0 "
  expect "dsgesv n=$n nrhs=2 routed prec=fp64 iter=-3 info=0 "     # singular in low precision
  expect "dgesv n=$n nrhs=1 routed prec=fp64 iter=-3 info=[1-9]"   # singular in FP64: INFO = k
  expect "dgesv n=$n nrhs=2 forwarded prec=lapack iter=none info=0 .* why=range"  # entries ~2^-120
  expect "dgesv n=4 nrhs=1 rejected prec=none iter=none info=-4 .* why=argument"
  expect "dsgesv n=4 nrhs=1 rejected prec=none iter=none info=-9 .* why=argument"
  expect "dsposv n=$n nrhs=2 routed prec=$p iter=[0-9]* info=0 "
  expect "dsposv n=$n nrhs=2 routed prec=fp64 iter=-[0-9]* info=$((n / 2 + 1)) "  # not SPD: INFO = k
  expect "dsposv n=4 nrhs=1 rejected prec=none iter=none info=-1 .* why=argument"
  expect "dposv n=$n nrhs=2 routed prec=$p iter=[0-9]* info=0 "    # UPLO = 'L'
  expect "dposv n=$n nrhs=1 routed prec=$p iter=[0-9]* info=0 "    # UPLO = 'U'
  # Not SPD: the low-precision attempt fails and LAPACK's dposv answers, INFO = k.
  expect "dposv n=$n nrhs=1 forwarded prec=lapack iter=none info=$((n / 2 + 1)) .* why=factor"
  expect "dposv n=$n nrhs=1 forwarded prec=lapack iter=none info=$((n / 2 + 2)) .* why=factor"
  expect "dposv n=4 nrhs=1 rejected prec=none iter=none info=-7 .* why=argument"
  for r in dgesv dposv; do
    [ "$(grep -c "$r n=$((n / 2)) nrhs=1 routed prec=$p iter=[0-9]* info=0 " "$log")" = 4 ] ||
      fail "4 threads' $r calls not routed"
  done
done

# auto: this plain C program may reuse the factors dgesv_/dposv_ leave in A, so they are
# forwarded whatever AUTO predicts; dsgesv_/dsposv_ (A unchanged) are routed as AUTO predicts.
pred=$(./tests/dropin_autoprec $n 3) || fail "dropin_autoprec"
run auto $n fp64
expect "dgesv n=$n nrhs=3 forwarded prec=lapack iter=none info=0 .* why=caller"
expect "dposv n=$n nrhs=2 forwarded prec=lapack iter=none info=0 .* why=caller"
expect "dposv n=$n nrhs=1 forwarded prec=lapack iter=none info=0 .* why=caller"
low=$pred; [ "$low" = fp64 ] && low=fp32
expect_auto "dsgesv n=$n nrhs=2" "$low"
grep -q "^mixsolve_lapack d[gp][eo]sv .* routed" "$log" && fail "dgesv_/dposv_ of a plain C caller routed under auto"

# Opted in: the program promises to discard the factors (MIXSOLVE_LAPACK_FACTORS=discard), or
# names itself a discarding wrapper (MIXSOLVE_LAPACK_CALLERS): routed when AUTO predicts a low
# precision, else forwarded.  A routed call writes no factors into A (nobody reads them): the
# client finds A as it was, or LAPACK's FP64 factors where the call was forwarded.
for optin in MIXSOLVE_LAPACK_FACTORS=discard MIXSOLVE_LAPACK_CALLERS=/no/such/dir:tests/lapack_client; do
  export "${optin?}" LAPACK_CLIENT_FACTORS=discarded
  run auto $n "$low"
  unset "${optin%%=*}" LAPACK_CLIENT_FACTORS
  expect_auto "dgesv n=$n nrhs=3" "$low"
  expect_auto "dposv n=$n nrhs=2" "$low"
  if grep -q "^mixsolve_lapack dgesv n=$n nrhs=3 routed" "$log"; then
    grep -q "^ok  *dgesv, A left unchanged (factors discarded)" tests/dropin_lapack.out ||
      fail "routed dgesv_ of a discarding caller wrote into A"
  fi
done
# LU's AUTO and Cholesky's (half the factorization, two thirds of the rounds' bytes) disagree
# near the threshold; on pinned rates (the rounds at 4 GB/s) LU takes FP32 at this n (predicted
# 1.15x) and Cholesky FP64 (1.01x).  dsposv_ follows its own: forwarded to LAPACK's
# refinement (the client's ITER >= 0 and A unchanged), not routed into an FP64 solve that
# returned ITER = -1 with A overwritten (CI under load, before the drop-in asked Cholesky's AUTO).
export MIXSOLVE_GEMM_RATES=fp64=30,fp32=60,tf32=1,fp16=1,bf16=1,round=4
[ "$(./tests/dropin_autoprec $n 2)" = fp32 ] || fail "pinned rates: LU's AUTO not FP32 at n = $n"
run auto $n fp64
expect "dsgesv n=$n nrhs=2 routed prec=fp32 iter=[0-9]* info=0 "
expect "dsposv n=$n nrhs=2 forwarded prec=lapack iter=[0-9]* info=0 .* why=auto"
unset MIXSOLVE_GEMM_RATES

# Small systems: AUTO must not take a low precision, so auto forwards them.
[ "$(./tests/dropin_autoprec 40 3)" = fp64 ] || fail "AUTO takes a low precision at n = 40"
export MIXSOLVE_LAPACK_FACTORS=discard
run auto 40
unset MIXSOLVE_LAPACK_FACTORS
expect "dgesv n=40 nrhs=3 forwarded prec=lapack iter=none info=0 .* why=auto"
expect "dsgesv n=40 nrhs=2 forwarded prec=lapack iter=[0-9]* info=0 .* why=auto"
expect "dsposv n=40 nrhs=2 forwarded prec=lapack iter=[0-9]* info=0 .* why=auto"
expect "dposv n=40 nrhs=2 forwarded prec=lapack iter=none info=0 .* why=auto"

# off: everything forwarded, LAPACK's own answers and error handling.
run off $n
expect "dgesv n=$n nrhs=3 forwarded prec=lapack iter=none info=0 .* why=off"
expect "dsgesv n=$n nrhs=2 forwarded prec=lapack iter=[0-9]* info=0 .* why=off"
expect "dsposv n=$n nrhs=2 forwarded prec=lapack iter=[0-9]* info=0 .* why=off"
expect "dposv n=$n nrhs=2 forwarded prec=lapack iter=none info=0 .* why=off"
grep -q routed "$log" && fail "a call was routed under MIXSOLVE_LAPACK=off"

# No log variable: the drop-in writes nothing anywhere.
rm -f "$log"
LAPACK_CLIENT_FACTOR_TOL=$(tol_for fp32) LAPACK_CLIENT_FACTOR_PREC=fp32 LD_PRELOAD=$lib MIXSOLVE_LAPACK=fp32 $client 40 >tests/dropin_lapack.out 2>&1 || fail "client without log"
grep -v -e '^ok ' -e 'failure(s)$' tests/dropin_lapack.out && fail "output other than the client's"
[ -e "$log" ] && fail "a log written without MIXSOLVE_LAPACK_LOG"
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
