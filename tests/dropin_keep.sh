#!/bin/sh
# dropin_keep.sh: tests/dropin_keep (a LAPACK program that reuses the factors dgesv_/dposv_ leave,
# -llapack only) plain, then with libmixsolve_lapack.so preloaded under each policy: its checks
# (forward errors within 10x of LAPACK's) must hold, and the log must show which calls the
# drop-in took: the consumers of the factors it kept A for, never a rewritten array, the cap, LRU.
set -u
lib=$PWD/dropin/.libs/libmixsolve_lapack.so
client=./tests/dropin_keep
log=$PWD/tests/dropin_keep.log
out=tests/dropin_keep.out
n=${DROPIN_KEEP_N:-500}
status=0
# Which path a call takes must not depend on the machine's load: no time budgets (from n = 256
# an FP32 attempt is budgeted, and CI under load made one of two dgesv_ calls fall back, its
# factors then LAPACK's and its consumers forwarded).
export MIXSOLVE_LAPACK_COST_FALLBACK=0
# Failures are repeated at the end: CI shows only the tail of a long log.
failures=
fail() { echo "FAIL: $*"; status=1; failures="$failures
  $*"; }
expect() { grep -q "^mixsolve_lapack $1" "$log" || fail "no log line '$1'"; }
count() { grep -c "^mixsolve_lapack $1" "$log"; }
# run WHAT N VAR=VALUE...: the client under the drop-in; only the client's own lines may appear.
run() {
  what=$1 size=$2
  shift 2
  rm -f "$log"
  echo "== $* dropin_keep $what $size"
  env LD_PRELOAD="$lib" MIXSOLVE_LAPACK_LOG="$log" "$@" $client "$what" "$size" >$out 2>&1 ||
    fail "client under $*"
  cat $out
  grep -v -e '^ok ' -e '^FAIL ' -e 'failure(s)$' $out && fail "output other than the client's under $*"
  touch "$log"
}
# Every kept system's consumers were taken: as many routed dgetrs_ (N and T) as reuse dgesv_
# calls routed in low precision, and for each routed dposv_ its dpotrs_, dpocon_, dpotri_.
taken() {
  if [ "$(count "dgesv n=$n nrhs=1 routed prec=\(fp32\|tf32\|fp16\|bf16\)")" -ge 1 ]; then
    [ "$(count "dgetrs n=$n nrhs=1 routed")" = 2 ] || fail "dgetrs_ on kept factors not taken twice (or a rewritten array taken)"
    for r in "dgecon n=$n nrhs=0 routed" "dgetri n=$n nrhs=0 routed prec=fp64" \
      "dgerfs n=$n nrhs=1 routed prec=fp64" "dgesvx n=$n nrhs=1 routed prec=fp64"; do expect "$r"; done
  fi
  if [ "$(count "dgesv n=$((n + 1)) nrhs=1 routed prec=\(fp32\|tf32\|fp16\|bf16\)")" = 1 ]; then
    expect "dgetrs n=$((n + 1)) nrhs=1 routed"   # the factors' copy (LAPACKE row-major)
  fi
  if [ "$(count "dgesv n=$n nrhs=2 routed prec=\(fp32\|tf32\|fp16\|bf16\)")" = 1 ]; then
    expect "dgetrs n=$n nrhs=3 routed"   # LDA, LDB above N
  fi
  routed=$(count "dposv n=$n nrhs=1 routed prec=\(fp32\|tf32\|fp16\|bf16\)")
  for r in dpotrs dpocon dpotri dporfs dposvx; do
    [ "$(count "$r n=$n .* routed")" = "$routed" ] || fail "$r not taken after each of $routed routed dposv_"
  done
}

[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
echo "== plain LAPACK, dropin_keep reuse $n"
$client reuse $n || fail "client without the drop-in"

for p in fp32 bf16; do
  run reuse $n MIXSOLVE_LAPACK=$p
  expect "dgesv n=$n nrhs=1 routed prec=$p "
  taken
done

# auto: a plain C caller's dgesv_/dposv_ are forwarded (they may be reused), so nothing is kept.
run reuse $n MIXSOLVE_LAPACK=auto
expect "dgesv n=$n nrhs=1 forwarded .* why=caller"
grep -q "routed" "$log" && fail "a call routed under auto for a plain C caller"
# auto opted in with FACTORS=keep: routed as AUTO predicts, and then the consumers are taken.
# On pinned rates: each process calibrates its own, and under load the client's flipped to
# FP64 where the predictor's said FP32 (n = 500 sits near AUTO's threshold on some CPUs).
export MIXSOLVE_GEMM_RATES=fp64=30,fp32=60,tf32=1,fp16=1,bf16=1,lu_half=2000
pred=$(./tests/dropin_autoprec $n 1) || fail "dropin_autoprec"
run reuse $n MIXSOLVE_LAPACK=auto MIXSOLVE_LAPACK_FACTORS=keep
unset MIXSOLVE_GEMM_RATES
if [ "$pred" = fp64 ]; then expect "dgesv n=$n nrhs=1 forwarded .* why=auto"; else expect "dgesv n=$n nrhs=1 routed prec=$pred "; fi
taken

# A cap too small for one copy: forwarded with why=keep, LAPACK's answers.
run reuse $n MIXSOLVE_LAPACK=fp32 MIXSOLVE_LAPACK_KEEP_MB=1
expect "dgesv n=$n nrhs=1 forwarded prec=lapack iter=none info=0 .* why=keep"
expect "dposv n=$n nrhs=1 forwarded prec=lapack iter=none info=0 .* why=keep"
grep -q "routed" "$log" && fail "a call routed although nothing could be kept"

# LRU: 6 MiB hold two of the three systems (orders 600..602, 2.9 MB each): the least recently
# used one (601) is evicted, its reuse goes to LAPACK; 600 (reused before 602 came) stays.
# No time cap: at n >= 512 the cost envelope would run FP64 and keep nothing.
run lru 600 MIXSOLVE_LAPACK=fp32 MIXSOLVE_LAPACK_KEEP_MB=6 DROPIN_KEEP_EVICTED=1
[ "$(count "dgetrs n=600 nrhs=1 routed")" = 2 ] || fail "LRU: order 600 evicted"
[ "$(count "dgetrs n=601 nrhs=1 routed")" = 0 ] || fail "LRU: order 601 not evicted"
[ "$(count "dgetrs n=602 nrhs=1 routed")" = 1 ] || fail "LRU: order 602 not kept"
[ -z "$failures" ] || printf "%s failed:%b\n" "${0##*/}" "$failures"
exit $status
