#!/bin/sh
# petsc_mixcg.sh: PETSc's KSPCG and mixsolve's KSP mixcg (libmixsolve_petsc.so, -dll_append) side
# by side through the same unmodified PETSc program (bench/petsc_cg.c: 3D Poisson nx^3, no PC,
# x0 = 0, ||b - A x|| <= 1e-10 ||b||, best of 2 solves after KSPSetUp), on 1 and 2 MPI ranks, one
# thread per rank.  Usage, from a build directory configured with PETSc:
#   flock /tmp/mixsolve-bench.lock sh ../bench/petsc_mixcg.sh [NX] (default 100)
# [PETSC_MIXCG_STORAGES="fp64 fp32 fixed16"] [PETSC_MIXCG_RANKS="1 2"].  Skips (exit 0) where
# PETSc, MPI or the plugin is missing.
set -e
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(pwd)/lib/.libs/libmixsolve_petsc.so
pc=PETSc; pkg-config --exists $pc 2>/dev/null || pc=petsc
if ! pkg-config --exists $pc 2>/dev/null || ! command -v mpicc >/dev/null || [ ! -f "$plugin" ]; then
    echo "petsc_mixcg.sh: PETSc, MPI or $plugin missing (run from a build directory): skipped"
    exit 0
fi
out=${TMPDIR:-/tmp}/mixsolve-petsc_mixcg.$$
trap 'rm -f "$out" "$out.err"' EXIT
mpicc -O2 -o "$out" "$here/petsc_cg.c" $(pkg-config --cflags --libs $pc) -lm
nx=${1:-100}
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LD_LIBRARY_PATH="$(pwd)/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "| solver | grid | iter | true rel. residual | solve s (best of 2) | ms/iter | CPU s of rank 0 |"
echo "|---|---|---|---|---|---|---|"
for np in ${PETSC_MIXCG_RANKS:-1 2}; do
    run() { mpirun --oversubscribe -np "$np" "$out" -nx "$nx" -tol 1e-10 "$@"; }
    run -label "PETSc KSPCG, $np rank(s)"
    for s in ${PETSC_MIXCG_STORAGES:-fp64 fp32 fixed16}; do
        run -label "mixcg $s, $np rank(s)" -dll_append "$plugin" -ksp_type mixcg -mixcg_storage "$s" \
            2>"$out.err" && continue
        why="failed: $(grep -m1 -o 'KSP mixcg.*' "$out.err" || tail -n1 "$out.err")"
        grep -q "no distributed CG yet" "$out.err" && why="not run: no distributed CG in this libmixsolve_mpi"
        echo "| mixcg $s, $np rank(s) | ${nx}^3 | $why | | | | |"
    done
done
