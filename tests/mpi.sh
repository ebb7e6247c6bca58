#!/bin/sh
# mpi.sh: libmixsolve_mpi's test (tests/mpi_dist) on 1, 2, 3 and 4 ranks (oversubscribed: this
# may be a 2-core machine), then `mpirun -np P mixsolve solve FILE.mtx --method cg`: the same
# exit codes as the serial command, one report (rank 0's), a failure never a hang; skipped (77)
# where configure built no MPI.
set -u
prog=./tests/mpi_dist
[ -x "$prog" ] && [ -n "${MPIRUN:-}" ] || { echo "SKIP: libmixsolve_mpi not built"; exit 77; }
# Open MPI refuses root unless told; CI containers run as root.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_rmaps_base_oversubscribe
status=0
for np in 1 2 3 4; do
  # timeout: a rank left waiting would otherwise hang make check.
  timeout 300 "$MPIRUN" -np "$np" --oversubscribe "$prog" || { echo "FAIL: $np ranks"; status=1; }
done

cli=./tools/mixsolve
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mixsolve-mpi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
"$cli" gen poisson3d 14 -o "$tmp/p.mtx" >/dev/null || { echo "FAIL: gen"; exit 1; }
# run NP WANT-EXIT ARGS...: the exit code, and the report printed once (by rank 0 only).
run() {
  np=$1 want=$2; shift 2
  timeout 120 "$MPIRUN" -np "$np" --oversubscribe "$cli" solve "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = "$want" ] || { echo "FAIL: $np ranks, solve $*: exit $rc, want $want"; cat "$tmp/out" "$tmp/err"; status=1; }
  lines=$(grep -c '^mixsolve:' "$tmp/err")
  [ "$want" = 0 ] || [ "$lines" -ge 1 ] || { echo "FAIL: $np ranks, solve $*: no error line"; status=1; }
  [ "$lines" -le 1 ] || { echo "FAIL: $np ranks, solve $*: $lines error lines (only rank 0 prints)"; status=1; }
}
for np in 1 2 3 4; do
  for prec in fixed16 fp32 auto; do
    run "$np" 0 "$tmp/p.mtx" --method cg --prec "$prec"
    [ "$(grep -c '^status' "$tmp/out")" = 1 ] && grep -q "^ranks *: $np " "$tmp/out" &&
      grep -q '^status *: converged' "$tmp/out" || { echo "FAIL: $np ranks, $prec: report"; cat "$tmp/out"; status=1; }
  done
done
# b = A 1 on a cube is symmetric, and rounding p's faces on the halo wire breaks the symmetry: a
# 16-bit FIXED16 wire took 87 iterations on 2 ranks against 84 (24^3, Jacobi); the 17-bit wire
# keeps to the issue's 2 % (doc/scaling.md).
"$cli" gen poisson3d 24 -o "$tmp/p24.mtx" >/dev/null || { echo "FAIL: gen 24"; exit 1; }
iters() { grep '^iterations' "$tmp/out" | awk '{ print $3 }'; }
run 1 0 "$tmp/p24.mtx" --method cg --prec fixed16; i1=$(iters)
run 2 0 "$tmp/p24.mtx" --method cg --prec fixed16; i2=$(iters)
[ -n "$i1" ] && [ -n "$i2" ] && [ $((100 * i2)) -le $((102 * i1 + 100)) ] ||
  { echo "FAIL: Poisson 24^3, b = A 1, fixed16: $i2 iterations on 2 ranks, $i1 on one"; status=1; }
run 2 0 "$tmp/p.mtx" --method cg --precond none --out "$tmp/x.mtx"
[ -s "$tmp/x.mtx" ] || { echo "FAIL: --out wrote nothing"; status=1; }
run 3 1 "$tmp/p.mtx" --method cg --max-iter 3 --prec fp64   # not converged: a solver failure
run 2 2 "$tmp/p.mtx" --method lu                             # only CG runs across ranks
run 2 2 "$tmp/missing.mtx" --method cg                        # unreadable input
run 4 2 "$tmp/p.mtx" --method cg --prec tf32                  # bad usage
# Structurally unsymmetric across the ranks: found collectively, reported once.
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 5\n1 1 4\n2 2 4\n3 3 4\n4 4 4\n1 4 1\n' >"$tmp/u.mtx"
run 2 1 "$tmp/u.mtx" --method cg
grep -q 'not structurally symmetric' "$tmp/err" || { echo "FAIL: unsymmetric: $(cat "$tmp/err")"; status=1; }
# Unsymmetric inside one rank (entry (1, 2) without (2, 1), both rows on rank 0): found too (it
# was accepted and solved).
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 5\n1 1 4\n2 2 4\n3 3 4\n4 4 4\n1 2 1\n' >"$tmp/l.mtx"
for np in 1 2; do
  run "$np" 1 "$tmp/l.mtx" --method cg
  grep -q 'not structurally symmetric' "$tmp/err" || { echo "FAIL: $np ranks, unsymmetric in a rank: $(cat "$tmp/err")"; status=1; }
done
# The default method (auto) exits as the serial command does (issue 33: it became CG across the
# ranks and exited 1): LU-IR on rank 0 for a matrix that is no SPD candidate, and LU-IR after CG
# across the ranks finds a symmetric A with a positive diagonal indefinite; x written by --out.
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 4\n2 2 4\n3 3 4\n1 2 1\n3 1 2\n' >"$tmp/ns.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 1\n2 2 1\n3 3 1\n2 1 2\n3 2 2\n' >"$tmp/ind.mtx"
for f in ns ind; do
  "$cli" solve "$tmp/$f.mtx" >/dev/null 2>&1 || { echo "FAIL: serial solve $f.mtx"; status=1; }
  for np in 2 3; do
    rm -f "$tmp/x.mtx"
    run "$np" 0 "$tmp/$f.mtx" --out "$tmp/x.mtx"
    grep -q '^note .*LU-IR' "$tmp/out" && grep -q '^status *: solved' "$tmp/out" &&
      [ "$(grep -c '^method' "$tmp/out")" = 1 ] && [ "$(tail -n 3 "$tmp/x.mtx" | tr '\n' ' ')" = "1 1 1 " ] ||
      { echo "FAIL: $np ranks, auto on $f.mtx: no LU-IR fallback"; cat "$tmp/out"; status=1; }
  done
done
run 2 2 "$tmp/p.mtx" --prec tf32   # auto takes CG on an SPD candidate: a CG-only refusal, as serial
grep -q 'is for lu only' "$tmp/err" || { echo "FAIL: auto --prec tf32: $(cat "$tmp/err")"; status=1; }
run 2 0 "$tmp/ns.mtx" --prec tf32  # auto takes LU-IR: tf32 factors, as serial
echo "mpi.sh: mixsolve solve across ranks: done"
[ $status = 0 ] || echo "mpi.sh failed"
exit $status
