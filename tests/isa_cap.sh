#!/bin/sh
# isa_cap.sh: MIXSOLVE_CPU_ISA (kernels/cpu/cpu_features.c) on this CPU.  Under avx2 and portable:
# the CPU kernels' bit-for-bit CUnit suites (SpMV variants and tuner, SELL format, conversion
# loops, CG portable vs vector kernels, GEMM engine choice); the tuner never picks a body the cap
# removed; and `mixsolve solve` gives the same iterations and the same bits of x as uncapped, for
# every CG storage, fused vector passes included (the cap is what reaches their AVX2 bodies on an
# AVX-512 CPU; the tests' force-portable switch reaches only the generic ones).
set -u
cli=./tools/mixsolve
units=./tests/mixsolve_tests
[ -x "$cli" ] || { echo "SKIP: $cli not built"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mixsolve-isa.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
# One OpenMP team size for every run: the FP64 sums of the passes then add in one order.
OMP_NUM_THREADS=2
export OMP_NUM_THREADS
unset MIXSOLVE_CPU_ISA MIXSOLVE_SPMV_VARIANT MIXSOLVE_TUNE MIXSOLVE_CPU_GEMM MIXT_SUITE

# What the CPU has: the capped levels below are only lower where it has more.
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { case " $flags " in *" $1 "*) return 0 ;; esac; return 1; }
avx512=0 avx2=0
has avx512f && avx512=1
has avx2 && has f16c && avx2=1

# 13824 rows: above the kernels' OpenMP threshold, so their parallel bodies run.
"$cli" gen poisson3d 24 -o "$tmp/A.mtx" >/dev/null || { echo "FAIL: gen"; exit 1; }
awk 'BEGIN { srand(21); n = 13824; print "%%MatrixMarket matrix array real general"; print n, 1;
             for (i = 0; i < n; i++) printf "%.17g\n", rand() - 0.5 }' >"$tmp/b.mtx"

# solve ISA STORAGE [ENV...]: CG on A, x written to $tmp/x.ISA.STORAGE, the report to .out.
solve() {
  isa=$1 p=$2; shift 2
  env MIXSOLVE_CPU_ISA="$isa" "$@" "$cli" solve "$tmp/A.mtx" --rhs "$tmp/b.mtx" --method cg \
    --prec "$p" --out "$tmp/x.$isa.$p" >"$tmp/$isa.$p.out" 2>&1 || fail "solve $p under $isa"
}
body() { sed -n 's/^spmv body *: *//p' "$tmp/$1.$2.out"; }

# The check below can fail: uncapped on an AVX-512 CPU a forced AVX-512 body is taken ...
if [ "$avx512" = 1 ]; then
  solve native fp32 MIXSOLVE_SPMV_VARIANT=avx512-gather
  case $(body native fp32) in *avx512*) ;; *) fail "avx512-gather forced, uncapped: $(body native fp32)" ;; esac
fi
# ... and under the cap neither the forced body nor the tuner's choice may be one it removed.
solve avx2 fp32 MIXSOLVE_SPMV_VARIANT=avx512-gather
case $(body avx2 fp32) in *avx512*) fail "avx512 body under MIXSOLVE_CPU_ISA=avx2: $(body avx2 fp32)" ;; esac

for p in fp64 fp32 fp16 bf16 fixed16; do
  solve native "$p"
  for isa in avx2 portable; do
    solve "$isa" "$p"
    b=$(body "$isa" "$p")
    case $isa:$b in
      *avx512*) fail "$p under $isa: spmv body $b" ;;
      portable:*avx2*) fail "$p under portable: spmv body $b" ;;
    esac
    [ "$isa" = avx2 ] && [ "$avx2" = 1 ] && [ "$p" != fp64 ] && case $b in
      *avx2-*) ;; *) fail "$p under avx2 on an AVX2 CPU: spmv body $b, not an AVX2 one" ;; esac
    for l in iterations 'true residual'; do
      [ "$(grep "^$l" "$tmp/native.$p.out")" = "$(grep "^$l" "$tmp/$isa.$p.out")" ] ||
        fail "$p: $l differ, native vs $isa: $(grep "^$l" "$tmp/native.$p.out" "$tmp/$isa.$p.out")"
    done
    cmp -s "$tmp/x.native.$p" "$tmp/x.$isa.$p" || fail "$p: x differs, native vs $isa"
  done
done

# The CUnit suites of the CPU kernels, each under both caps.
if [ -x "$units" ]; then
  for isa in avx2 portable; do
    for s in spmv-tune sparse-properties sparse-format cg_isa formats/cpu_loops cpu/onednn; do
      MIXSOLVE_CPU_ISA=$isa MIXT_SUITE=$s "$units" >"$tmp/units.out" 2>&1 ||
        { fail "CUnit suite $s under MIXSOLVE_CPU_ISA=$isa"; cat "$tmp/units.out"; }
    done
  done
else
  echo "no CUnit runner: suites not run"
fi
[ "$status" = 0 ] && echo "isa_cap.sh: avx2 and portable caps checked (CPU: avx512f $avx512, avx2+f16c $avx2)"
exit "$status"
