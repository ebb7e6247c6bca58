/* petsc_poisson.h: the 3-D Poisson system of bench_cg and bench_amg (matrices/gen_poisson.c's
 * stencil and row order, b from mixm_rng seed 2024) as a PETSc MPIAIJ matrix and vector, shared
 * by the PETSc baselines petsc_cg.c and petsc_amg.c, with the CG set-up and the residual
 * check they share.  Header-only, so that each stays one file
 * that needs PETSc only. */
#ifndef MIX_BENCH_PETSC_POISSON_H
#define MIX_BENCH_PETSC_POISSON_H
#include <stdint.h>
#include <petscksp.h>

/* bench_cg's b: xoshiro256** (matrices/mixmat.h, copied here so that this file needs PETSc only),
 * seed 2024, b_i = uniform[0, 1) - 0.5 in row order. */
typedef struct { uint64_t s[4]; } rng;
static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}
static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 45);
    return result;
}

/* A (nx^3 rows, this rank's share) and vectors x, b (b filled), r shaped like it. */
static PetscErrorCode petsc_poisson3d(PetscInt nx, Mat *A, Vec *x, Vec *b, Vec *r)
{
    const PetscInt n = nx * nx * nx;
    PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 7, NULL, 3, NULL, A));
    PetscInt lo, hi;
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) { /* matrices/gen_poisson.c's stencil and order */
        PetscInt c[3] = {i % nx, (i / nx) % nx, i / (nx * nx)}, stride[3] = {1, nx, nx * nx};
        PetscInt cols[7], m = 0;
        PetscScalar v[7];
        for (int d = 2; d >= 0; d--)
            if (c[d] > 0) cols[m] = i - stride[d], v[m++] = -1.0;
        cols[m] = i, v[m++] = 6.0;
        for (int d = 0; d < 3; d++)
            if (c[d] < nx - 1) cols[m] = i + stride[d], v[m++] = -1.0;
        PetscCall(MatSetValues(*A, 1, &i, m, cols, v, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreateVecs(*A, x, b));
    PetscCall(VecDuplicate(*b, r));
    rng g;
    rng_seed(&g, 2024);
    PetscScalar *bv;
    PetscCall(VecGetArray(*b, &bv));
    for (PetscInt i = 0; i < hi; i++) {
        double u = (double)(rng_next(&g) >> 11) * 0x1.0p-53 - 0.5;
        if (i >= lo) bv[i - lo] = u;
    }
    PetscCall(VecRestoreArray(*b, &bv));
    return 0; /* PETSc 3.18 has no PETSC_SUCCESS */
}
/* The KSP both baselines time: CG with pc_type, ||b - A x||2 <= tol ||b||2, options applied. */
static PetscErrorCode petsc_cg_ksp(Mat A, PCType pc_type, PetscReal tol, KSP *ksp, PC *pc)
{
    PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
    PetscCall(KSPSetOperators(*ksp, A, A));
    PetscCall(KSPSetType(*ksp, KSPCG));
    PetscCall(KSPGetPC(*ksp, pc));
    PetscCall(PCSetType(*pc, pc_type));
    PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(*ksp, tol, 0.0, PETSC_DEFAULT, 100000));
    PetscCall(KSPSetFromOptions(*ksp));
    return 0;
}

/* The true relative residual ||b - A x||2 / ||b||2 (r is scratch), as the tables report it. */
static PetscErrorCode petsc_true_relres(Mat A, Vec x, Vec b, Vec r, PetscReal *relres)
{
    PetscReal rn, bn;
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    *relres = rn / bn;
    return 0;
}

static PetscErrorCode petsc_poisson_destroy(KSP *ksp, Mat *A, Vec *x, Vec *b, Vec *r)
{
    PetscCall(KSPDestroy(ksp));
    PetscCall(VecDestroy(x));
    PetscCall(VecDestroy(b));
    PetscCall(VecDestroy(r));
    PetscCall(MatDestroy(A));
    return 0;
}
#endif
