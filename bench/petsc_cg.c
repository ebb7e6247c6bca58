/* petsc_cg.c: PETSc's KSPCG on 3D Poisson nx^3 (the bench_cg problem: same matrix, same b, x0 = 0,
 * ||b - A x||2 <= tol ||b||2), the baseline a user would pick instead of mix_dcg.  Optional: built
 * and run by bench/petsc_cg.sh only where PETSc is installed; never part of the library. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <petscksp.h>
#include "petsc_poisson.h"

int main(int argc, char **argv)
{
    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscInt nx = 100;
    PetscReal tol = 1e-10;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-nx", &nx, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
    Mat A;
    Vec b, x, r;
    PetscCall(petsc_poisson3d(nx, &A, &x, &b, &r));

    KSP ksp;
    PC pc;
    PetscCall(petsc_cg_ksp(A, PCNONE, tol, &ksp, &pc));
    PetscCall(KSPSetUp(ksp));
    double best = 1e30, best_cpu = 1e30;
    PetscInt its = 0;
    for (int rep = 0; rep < 2; rep++) { /* x0 = 0 each time; the second solve is timed too */
        PetscCall(VecSet(x, 0.0));
        PetscCall(MPI_Barrier(PETSC_COMM_WORLD));
        double t = MPI_Wtime(), c = (double)clock() / CLOCKS_PER_SEC;
        PetscCall(KSPSolve(ksp, b, x));
        t = MPI_Wtime() - t;
        c = (double)clock() / CLOCKS_PER_SEC - c; /* this rank's CPU time: shared machines */
        if (t < best) best = t;
        if (c < best_cpu) best_cpu = c;
        PetscCall(KSPGetIterationNumber(ksp, &its));
    }
    PetscReal relres = 0.0;
    PetscCall(petsc_true_relres(A, x, b, r, &relres));
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    /* -label: the first column, for another KSP chosen by -ksp_type (bench/petsc_mixcg.sh). */
    char label[256];
    PetscBool has_label;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-label", label, sizeof label, &has_label));
    if (!has_label) snprintf(label, sizeof label, "PETSc KSPCG (%d MPI ranks, no PC)", (int)size);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| %s | %d^3 | %d | %.2e | %.3f | %.2f | %.3f |\n", label,
                          (int)nx, (int)its, (double)relres, best, 1e3 * best / its, best_cpu));
    PetscCall(petsc_poisson_destroy(&ksp, &A, &x, &b, &r));
    PetscCall(PetscFinalize());
    return 0;
}
