#!/bin/sh
# petsc_amg.sh: build bench/petsc_amg.c against an installed PETSc (Debian libpetsc-real-dev) and
# run CG + GAMG and CG + ML on 3-D Poisson with 2 MPI ranks, for comparison with bench/bench_amg
# in the same session.  Columns: matrix assembly s, PC set-up s, first solve s (assembly +
# set-up + solve), repeated solve s (best of 2), and rank 0's CPU seconds for both (the machine
# may be shared).
# Usage: [PETSC_RANKS=2] bench/petsc_amg.sh [NX ...]   (default 100).  Skips (exit 0) where PETSc
# is missing.
set -e
here=$(cd "$(dirname "$0")" && pwd)
if ! pkg-config --exists PETSc 2>/dev/null || ! command -v mpicc >/dev/null; then
    echo "petsc_amg.sh: PETSc or MPI not installed (apt-get install libpetsc-real-dev): skipped"
    exit 0
fi
out=${TMPDIR:-/tmp}/mixsolve-petsc_amg.$$
mpicc -O2 -o "$out" "$here/petsc_amg.c" $(pkg-config --cflags --libs PETSc) -lm
ranks=${PETSC_RANKS:-2}
echo "| solver | grid | iter | true rel. residual | matrix s | set-up s | first solve s | repeated solve s | CPU s first (rank 0) | CPU s repeated (rank 0) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for nx in ${@:-100}; do
    for pc in gamg ml; do
        OMP_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$out" -nx "$nx" \
            -tol 1e-10 -pc_type "$pc" || echo "| PETSc CG + $pc | $nx^3 | failed (PC not built into this PETSc?) |"
    done
done
rm -f "$out"
