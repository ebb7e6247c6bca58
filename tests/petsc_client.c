/* petsc_client.c: an ordinary PETSc program (it knows nothing of mixsolve): 3D Poisson n^3 by
 * KSPSolve with the KSP and PC from the command line, b = A x_exact (-empty_last: the last process
 * owns no row; -explicit_zero: row i also stores a zero at (i, i + 2), its mirror not).  It
 * prints, for each solve, the iterations, the converged reason, the true relative residual
 * ||b - A x|| / ||b|| and the relative error against x_exact.  -rescale solves a second time
 * after MatScale(A, 2) (the same b: x halves), which a solver caching the matrix must notice;
 * -shell hands KSP a MATSHELL applying A (assembled again after the rescaling, which raises its
 * state; not with -shell_silent); -resolve solves once more from the last solution (with
 * -ksp_initial_guess_nonzero: KSP's default test, relative to ||b||, passes at once).  Run by
 * tests/petsc.sh. */
#include <petscksp.h>

/* empty_last: the last process owns no row (the others split them), else PETSc's layout. */
static PetscErrorCode poisson(PetscInt n, PetscBool empty_last, Mat *A)
{
    const PetscInt N = n * n * n;
    PetscInt lo, hi, m = PETSC_DECIDE;
    PetscMPIInt rank, size;
    PetscBool sbaij, zero = PETSC_FALSE;

    PetscFunctionBegin;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-explicit_zero", &zero, NULL));
    PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (empty_last && size > 1)
        m = rank == size - 1 ? 0 : N / (size - 1) + (rank < N % (size - 1) ? 1 : 0);
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, m, m, N, N));
    PetscCall(MatSetFromOptions(*A));
    PetscCall(MatSeqAIJSetPreallocation(*A, 8, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, 8, NULL, 7, NULL));
    /* -mat_type sell or sbaij (the rows below their diagonal dropped); no-ops for other types. */
    PetscCall(MatSeqSELLSetPreallocation(*A, 7, NULL));
    PetscCall(MatMPISELLSetPreallocation(*A, 7, NULL, 6, NULL));
    PetscCall(MatSeqSBAIJSetPreallocation(*A, 1, 4, NULL));
    PetscCall(MatMPISBAIJSetPreallocation(*A, 1, 4, NULL, 3, NULL));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)*A, &sbaij, MATSEQSBAIJ, MATMPISBAIJ, ""));
    if (sbaij) PetscCall(MatSetOption(*A, MAT_IGNORE_LOWER_TRIANGULAR, PETSC_TRUE));
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
        const PetscInt c[3] = {i % n, (i / n) % n, i / (n * n)}, s[3] = {1, n, n * n};
        PetscInt cols[8], m = 0;
        PetscScalar v[8];
        for (int d = 0; d < 3; d++) {
            if (c[d] > 0) cols[m] = i - s[d], v[m++] = -1.0;
            if (c[d] < n - 1) cols[m] = i + s[d], v[m++] = -1.0;
        }
        cols[m] = i, v[m++] = 6.0;
        if (zero && i + 2 < N) cols[m] = i + 2, v[m++] = 0.0; /* an explicit zero, one side only */
        PetscCall(MatSetValues(*A, 1, &i, m, cols, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* -shell: the operator as a MATSHELL whose product is A's (no MatGetRow). */
static PetscErrorCode shell_mult(Mat S, Vec x, Vec y)
{
    Mat A;

    PetscFunctionBegin;
    PetscCall(MatShellGetContext(S, &A));
    PetscCall(MatMult(A, x, y));
    PetscFunctionReturn(0);
}

static PetscErrorCode report(KSP ksp, Mat A, Vec b, Vec x, Vec xe, PetscReal scale, int k)
{
    Vec r, e;
    PetscReal rn, bn, en, xn;
    PetscInt its;
    KSPConvergedReason reason;

    PetscFunctionBegin;
    PetscCall(VecDuplicate(b, &r));
    PetscCall(VecDuplicate(b, &e));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    PetscCall(VecWAXPY(e, -scale, xe, x)); /* the exact solution of this solve: scale x_exact */
    PetscCall(VecNorm(e, NORM_2, &en));
    PetscCall(VecNorm(xe, NORM_2, &xn));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solve %d: iterations %d reason %s true_rel_residual %.3e "
                          "rel_error %.3e\n", k, (int)its, KSPConvergedReasons[reason],
                          (double)(rn / bn), (double)(en / (scale * xn))));
    PetscCall(VecDestroy(&r));
    PetscCall(VecDestroy(&e));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    Mat A;
    Vec x, b, xe;
    KSP ksp;
    PetscInt n = 16, lo, hi;
    PetscBool rescale = PETSC_FALSE, empty_last = PETSC_FALSE, resolve = PETSC_FALSE;
    PetscBool shell = PETSC_FALSE, silent = PETSC_FALSE;
    Mat op;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-rescale", &rescale, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-empty_last", &empty_last, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-resolve", &resolve, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-shell", &shell, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-shell_silent", &silent, NULL));
    PetscCall(poisson(n, empty_last, &A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(x, &xe));
    PetscCall(VecGetOwnershipRange(xe, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) { /* the same values on any number of processes */
        PetscScalar v = 1.0 + (PetscScalar)((i * 7919) % 1000) / 1000.0;
        PetscCall(VecSetValues(xe, 1, &i, &v, INSERT_VALUES));
    }
    PetscCall(VecAssemblyBegin(xe));
    PetscCall(VecAssemblyEnd(xe));
    PetscCall(MatMult(A, xe, b));

    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    op = A;
    if (shell) {
        PetscCall(VecGetLocalSize(x, &lo));
        PetscCall(MatCreateShell(PETSC_COMM_WORLD, lo, lo, PETSC_DETERMINE, PETSC_DETERMINE, A, &op));
        PetscCall(MatShellSetOperation(op, MATOP_MULT, (void (*)(void))shell_mult));
    }
    PetscCall(KSPSetOperators(ksp, op, op));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(report(ksp, A, b, x, xe, 1.0, 1));
    if (rescale) {
        PetscCall(MatScale(A, 2.0));
        if (shell && !silent) { /* its product changed: an assembly raises its state */
            PetscCall(MatAssemblyBegin(op, MAT_FINAL_ASSEMBLY));
            PetscCall(MatAssemblyEnd(op, MAT_FINAL_ASSEMBLY));
        }
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(report(ksp, A, b, x, xe, 0.5, 2));
    }
    if (resolve) {
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(report(ksp, A, b, x, xe, rescale ? 0.5 : 1.0, rescale ? 3 : 2));
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&xe));
    if (shell) PetscCall(MatDestroy(&op));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
}
