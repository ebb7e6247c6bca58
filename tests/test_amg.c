/* test_amg.c: CG with the smoothed-aggregation multigrid preconditioner (MIX_PRECOND_AMG):
 * convergence to the FP64 true residual in every storage, fewer iterations than Jacobi CG,
 * the cached hierarchy, anisotropic problems, honest errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "solvers/amg/amg.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"

static const mix_prec storages[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16, MIX_PREC_AUTO};
#define NST 6

static void rhs(int n, uint64_t seed, double *b)
{
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    for (int i = 0; i < n; i++) b[i] = mixm_rng_uniform(&g) - 0.5;
}

/* One solve on S; returns the status, with info and the true residual checked. */
static int solve(mix_context *ctx, mix_sparse *S, const mixm_csr *A, mix_prec prec, int precond,
                 const double *b, double *x, mix_cg_info *info)
{
    mix_cg_params p = mixt_cg_params(prec, precond);
    const int st = mix_dcg(ctx, &p, S, b, x, info);
    const double rel = mixt_cg_true_rel(A, b, x);
    CU_ASSERT_EQUAL(info->status, st);
    CU_ASSERT_EQUAL(info->converged, st == MIX_SUCCESS);
    if (st == MIX_SUCCESS) {
        CU_ASSERT(rel <= 1e-10);
        CU_ASSERT(fabs(info->true_rel_residual - rel) <= 1e-3 * rel + 1e-16);
        CU_ASSERT_EQUAL(info->reason, MIX_CG_CONVERGED);
    }
    return st;
}

/* Every storage converges to 1e-10 with AMG in at most max_ratio times the Jacobi CG (FP64)
 * iterations, the narrower storages within low_ratio (+2) of FP64 storage's AMG iterations. */
static void check_amg(const char *name, const mixm_csr *A, double max_ratio, double low_ratio)
{
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, A);
    const int n = A->nrows;
    double *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n);
    rhs(n, 7, b);
    mix_cg_info info;
    CU_ASSERT_EQUAL(solve(ctx, S, A, MIX_FP64, MIX_PRECOND_JACOBI, b, x, &info), MIX_SUCCESS);
    const int jacobi_iter = info.iter;
    int it[NST];
    for (int k = 0; k < NST; k++) {
        CU_ASSERT_EQUAL(solve(ctx, S, A, storages[k], MIX_PRECOND_AMG, b, x, &info), MIX_SUCCESS);
        it[k] = info.iter;
        CU_ASSERT(info.iter <= max_ratio * jacobi_iter);
        CU_ASSERT(info.stages >= 1);
        if (storages[k] != MIX_PREC_AUTO) CU_ASSERT_EQUAL(info.stage_prec[0], storages[k]);
        CU_ASSERT(info.iter <= low_ratio * it[0] + 2);
    }
    printf("\n    %-24s jacobi %d, amg (fp64 fp32 fp16 bf16 fixed16 auto): %d %d %d %d %d %d, levels %d",
           name, jacobi_iter, it[0], it[1], it[2], it[3], it[4], it[5], S->amg ? S->amg->nlev : 0);
    free(b);
    free(x);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
}

static void test_poisson3d(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(24, &A), MIX_SUCCESS);
    check_amg("poisson3d 24^3", &A, 0.3, 1.1);
    mixm_csr_free(&A);
}

static void test_poisson2d(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(100, &A), MIX_SUCCESS);
    check_amg("poisson2d 100^2", &A, 0.2, 1.1);
    mixm_csr_free(&A);
}

/* -u_xx - u_yy - eps u_zz on an nx^3 grid, 7-point. */
static void aniso3d(int nx, double eps, mixm_csr *A)
{
    const int n = nx * nx * nx;
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(A, n, n, 7 * (int64_t)n), MIX_SUCCESS);
    int64_t e = 0;
    for (int i = 0; i < n; i++) {
        const int x = i % nx, y = i / nx % nx, z = i / (nx * nx);
        const struct { int ok, col; double v; } nb[7] = {
            {z > 0, i - nx * nx, -eps}, {y > 0, i - nx, -1.0}, {x > 0, i - 1, -1.0},
            {1, i, 4.0 + 2.0 * eps}, {x < nx - 1, i + 1, -1.0}, {y < nx - 1, i + nx, -1.0},
            {z < nx - 1, i + nx * nx, -eps}};
        A->rowptr[i] = e;
        for (int k = 0; k < 7; k++)
            if (nb[k].ok) A->colind[e] = nb[k].col, A->val[e++] = nb[k].v;
    }
    A->rowptr[n] = e;
    A->nnz = e;
}

static void test_anisotropic(void)
{
    mixm_csr A;
    aniso3d(24, 1e-3, &A);
    check_amg("anisotropic3d 24^3 1e-3", &A, 0.3, 1.1);
    mixm_csr_free(&A);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_anisotropic2d(96, 1e-3, &A), MIX_SUCCESS);
    check_amg("anisotropic2d 96^2 1e-3", &A, 0.2, 1.1);
    mixm_csr_free(&A);
}

/* Bundled SuiteSparse SPD matrices: AMG converges wherever FP64 Jacobi CG does, in at most as
 * many iterations (near-null spaces other than the constants, as elasticity's rigid body
 * modes, make it slower than on a Laplacian, never worse than Jacobi here).  FP32 arithmetic
 * in the V-cycle costs these ill-conditioned ones up to 1.29x FP64's AMG iterations (1138_bus
 * FIXED16 27 against 21, bcsstk09 83 against 69). */
static void test_suitesparse(void)
{
    static const char *files[] = {"1138_bus.mtx", "494_bus.mtx", "685_bus.mtx", "bcsstk06.mtx",
                                  "bcsstk09.mtx", "bcsstk21.mtx", "bcsstm12.mtx", "gr_30_30.mtx",
                                  "bcsstk13.mtx", "Trefethen_500.mtx", "bcsstk05.mtx"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/%s", mixt_matrix_dir(), files[f]);
        mixm_csr A;
        CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(path, &A, NULL, err, sizeof err), MIX_SUCCESS);
        check_amg(files[f], &A, 1.0, 1.35);
        mixm_csr_free(&A);
    }
}

/* The hierarchy is built once and kept on the matrix: a second solve reuses it (the same
 * object, no set-up), with the same iterations and the same bits as the first, and as a
 * fresh matrix's first solve (the set-up is deterministic, threads or not). */
static void test_reuse(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(20, &A), MIX_SUCCESS);
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A), *S2 = mixt_sparse(ctx, &A);
    const int n = A.nrows;
    double *b = mixt_dalloc((size_t)n), *x1 = mixt_dalloc((size_t)n), *x2 = mixt_dalloc((size_t)n);
    rhs(n, 11, b);
    const mix_prec precs[] = {MIX_FIXED16, MIX_FP64};
    for (int k = 0; k < 2; k++) {
        mix_cg_info i1, i2, i3;
        CU_ASSERT_EQUAL(solve(ctx, S, &A, precs[k], MIX_PRECOND_AMG, b, x1, &i1), MIX_SUCCESS);
        const mixi_amg *H = S->amg;
        CU_ASSERT_PTR_NOT_NULL_FATAL(H);
        const mixi_amg_stored *stored = H->stored[precs[k]];
        CU_ASSERT_PTR_NOT_NULL(stored);
        CU_ASSERT_EQUAL(solve(ctx, S, &A, precs[k], MIX_PRECOND_AMG, b, x2, &i2), MIX_SUCCESS);
        CU_ASSERT_PTR_EQUAL(S->amg, H);
        CU_ASSERT_EQUAL(i1.iter, i2.iter);
        CU_ASSERT_EQUAL(memcmp(x1, x2, (size_t)n * sizeof *x1), 0);
        CU_ASSERT_PTR_EQUAL(S->amg->stored[precs[k]], stored);
        CU_ASSERT_EQUAL(solve(ctx, S2, &A, precs[k], MIX_PRECOND_AMG, b, x2, &i3), MIX_SUCCESS);
        CU_ASSERT_EQUAL(i1.iter, i3.iter);
        CU_ASSERT_EQUAL(memcmp(x1, x2, (size_t)n * sizeof *x1), 0);
    }
    /* FIXED16: the bytes a V-cycle reads (every level's operator, P, R) at most half FP64's
     * (0.50 here): the operators in SELL with 16-bit values (0.35x of CSR's 12 bytes a
     * nonzero), P and R in FP32 in the SELL escape part's CSR (0.67x: their columns lie too
     * far from their rows for int16 offsets, and FIXED16's per-entry decoding there costs more
     * than it saves, solvers/amg/amg_store.c). */
    CU_ASSERT(S->amg->bytes_stored[MIX_FIXED16] <= 0.51 * S->amg->bytes_stored[MIX_FP64]);
    printf("\n    hierarchy bytes: fp64 %lld, fixed16 %lld", (long long)S->amg->bytes_stored[MIX_FP64],
           (long long)S->amg->bytes_stored[MIX_FIXED16]);
    free(b);
    free(x1);
    free(x2);
    mix_sparse_destroy(S);
    mix_sparse_destroy(S2);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* A shifted 2-D Laplacian: shift 4.5 makes a_ii < 0 (refused by the set-up), 3.5 keeps the
 * diagonal positive but A indefinite (found by the coarse Cholesky or CG): NOT_SPD either way
 * in every storage, x finite and no worse than 0. */
static void check_not_spd(double shift)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(40, &A), MIX_SUCCESS);
    for (int i = 0; i < A.nrows; i++)
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
            if (A.colind[k] == i) A.val[k] -= shift;
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    double *b = mixt_dalloc((size_t)A.nrows), *x = mixt_dalloc((size_t)A.nrows);
    rhs(A.nrows, 3, b);
    for (int k = 0; k < NST; k++) {
        for (int i = 0; i < A.nrows; i++) x[i] = NAN; /* overwritten: x = 0 at worst */
        mix_cg_params p = mixt_cg_params(storages[k], MIX_PRECOND_AMG);
        mix_cg_info info;
        CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_ERR_NOT_SPD);
        CU_ASSERT_EQUAL(info.reason, MIX_CG_BREAKDOWN_NOT_SPD);
        CU_ASSERT_FALSE(info.converged);
        CU_ASSERT(mixt_cg_true_rel(&A, b, x) <= 1.0 + 1e-12);
    }
    free(b);
    free(x);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

static void test_not_spd(void)
{
    check_not_spd(4.5);
    check_not_spd(3.5);
}

/* NaN/Inf in b: MIX_ERR_NAN; b = 0: x = 0; an unknown preconditioner: -2. */
static void test_errors(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(10, &A), MIX_SUCCESS);
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    const int n = A.nrows;
    double *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n);
    mix_cg_params p = mixt_cg_params(MIX_FIXED16, MIX_PRECOND_AMG);
    mix_cg_info info;
    rhs(n, 5, b);
    b[3] = NAN;
    CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_ERR_NAN);
    b[3] = INFINITY;
    CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_ERR_NAN);
    for (int i = 0; i < n; i++) b[i] = 0.0, x[i] = 1.0;
    CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_SUCCESS);
    CU_ASSERT_EQUAL(info.reason, MIX_CG_ZERO_RHS);
    int zero = 1;
    for (int i = 0; i < n; i++) zero &= x[i] == 0.0;
    CU_ASSERT(zero);
    p.precond = 3;
    CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), -2);
    /* Not converged within max_iter: the honest status and the residual of the x returned. */
    rhs(n, 5, b);
    p = mixt_cg_params(MIX_FIXED16, MIX_PRECOND_AMG);
    p.max_iter = 2;
    p.escalate = 0;
    CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_ERR_NOT_CONVERGED);
    CU_ASSERT_EQUAL(info.reason, MIX_CG_MAX_ITER);
    CU_ASSERT_EQUAL(info.iter, 2);
    CU_ASSERT(fabs(info.true_rel_residual - mixt_cg_true_rel(&A, b, x)) <= 1e-6 * info.true_rel_residual);
    CU_ASSERT(info.true_rel_residual < 0.5);
    free(b);
    free(x);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

static const mixt_test amg_tests[] = {
    {"3D Poisson: AMG-PCG in every storage to 1e-10, <= 0.3x Jacobi CG's iterations", test_poisson3d},
    {"2D Poisson: AMG-PCG in every storage, <= 0.2x Jacobi CG's iterations", test_poisson2d},
    {"anisotropic 3D and 2D (1e-3): AMG-PCG converges, few iterations", test_anisotropic},
    {"SuiteSparse SPD set: AMG-PCG converges wherever Jacobi CG does, no more iterations",
     test_suitesparse},
    {"hierarchy cached on the matrix: same object, same iterations, same bits", test_reuse},
    {"negative diagonal and indefinite A: NOT_SPD in every storage", test_not_spd},
    {"NaN/Inf in b, zero b, bad preconditioner, iteration limit", test_errors},
    {NULL, NULL},
};

void mixt_register_amg(mix_backend b)
{
    /* The set-up reads the matrix on the host (csr_export): the CPU backend's. */
    if (b == MIX_BACKEND_CPU) mixt_add_backend_suite(b, "amg", amg_tests);
}
