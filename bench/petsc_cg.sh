#!/bin/sh
# petsc_cg.sh: build bench/petsc_cg.c against an installed PETSc (Debian libpetsc-real-dev) and run
# KSPCG on 3D Poisson with 2 MPI ranks, for comparison with bench/bench_cg in the same session.
# Usage: [PETSC_RANKS=2] bench/petsc_cg.sh [NX ...]   (default 100 150).  Skips (exit 0) where PETSc
# is missing.
set -e
here=$(cd "$(dirname "$0")" && pwd)
if ! pkg-config --exists PETSc 2>/dev/null || ! command -v mpicc >/dev/null; then
    echo "petsc_cg.sh: PETSc or MPI not installed (apt-get install libpetsc-real-dev): skipped"
    exit 0
fi
out=${TMPDIR:-/tmp}/mixsolve-petsc_cg.$$
mpicc -O2 -o "$out" "$here/petsc_cg.c" $(pkg-config --cflags --libs PETSc) -lm
ranks=${PETSC_RANKS:-2}
echo "| solver | grid | iter | true rel. residual | solve s (best of 2) | ms/iter | CPU s of rank 0 |"
echo "|---|---|---|---|---|---|---|"
for nx in ${@:-100 150}; do
    OMP_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$out" -nx "$nx" -tol 1e-10
done
rm -f "$out"
