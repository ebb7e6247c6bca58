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
#ifdef _OPENMP
#include <omp.h>
#endif

static const mix_prec storages[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16, MIX_PREC_AUTO};
#define NST 6

static void rhs(int n, uint64_t seed, double *b)
{
    mixm_rng g;
    mixm_rng_seed(&g, seed);
    for (int i = 0; i < n; i++) b[i] = mixm_rng_uniform(&g) - 0.5;
}

/* What two FP64 evaluations of ||b - A x|| / ||b|| may differ by, summed in other orders (the
 * CUDA backend's cuSPARSE against this host's): the row length times the unit roundoff times
 * || |A| |x| + |b| || / ||b||. */
static double residual_rounding(const mixm_csr *A, const double *b, const double *x)
{
    double ss = 0.0, bb = 0.0;
    int64_t len = 1;
    for (int i = 0; i < A->nrows; i++) {
        double t = fabs(b[i]);
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) t += fabs(A->val[k] * x[A->colind[k]]);
        ss += t * t, bb += b[i] * b[i];
        len = A->rowptr[i + 1] - A->rowptr[i] > len ? A->rowptr[i + 1] - A->rowptr[i] : len;
    }
    return bb > 0.0 ? 2.0 * (double)len * 0x1p-53 * sqrt(ss / bb) : 0.0;
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
        const double bound = residual_rounding(A, b, x), diff = fabs(info->true_rel_residual - rel);
        CU_ASSERT(diff <= 1e-3 * rel + bound);
        /* Where the check before that rounding term (1e-3 of rel) would have failed, as on the
         * first H100 run: how the difference compares with the rounding, for the next run. */
        if (diff > 1e-3 * rel && getenv("MIXT_VERBOSE"))
            printf("\n    %s: reported %.4e, recomputed %.4e, |difference| %.1e, rounding bound %.1e",
                   mix_prec_name(prec), info->true_rel_residual, rel, diff, bound);
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

/* Whether a solve over the set S of H restricts by spmv_t on some level (no R stored there, P
 * not implicit): on CUDA spmv_t adds by FP64 atomics in any order (kernels/backend_sparse.h), the
 * one operation of an AMG solve there whose bits may vary from run to run; every other sum has
 * a fixed order (kernels/cuda/sparse_kernels.cu: grid_sum, the lanes of a row), tent_restrict
 * gathers in order and the set-up runs on the host. */
static int restricts_by_atomics(const mixi_amg *H, const mixi_amg_stored *S)
{
    for (int l = 0; H && S && l + 1 < H->nlev; l++)
        if (!S[l].R && !S[l].T) return 1;
    return 0;
}

/* Two answers of one solve: the same bits, except where the hierarchy restricts by spmv_t
 * (atomics) on a backend other than the CPU: there the same answer to the last bits of the
 * tolerance.  (The Poisson hierarchies here restrict by Th on the fine level and by a stored R
 * below it, so CUDA is held to the bits too; the first H100 run restricted by spmv_t on every
 * level.)  MIXT_VERBOSE: how far apart they are when the bits differ. */
static void same_answer(const double *x1, const double *x2, int n, int atomics)
{
    double d = 0.0, m = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(x1[i] - x2[i])), m = fmax(m, fabs(x1[i]));
    if (mixt_backend == MIX_BACKEND_CPU || !atomics) {
        const int same = memcmp(x1, x2, (size_t)n * sizeof *x1) == 0;
        CU_ASSERT(same);
        if (!same && getenv("MIXT_VERBOSE"))
            printf("\n    bits differ: max |x1 - x2| %.1e, max |x1| %.1e", d, m);
        return;
    }
    CU_ASSERT(d <= 1e-8 * m);
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
        const int atomics = restricts_by_atomics(H, stored);
        same_answer(x1, x2, n, atomics);
        CU_ASSERT_PTR_EQUAL(S->amg->stored[precs[k]], stored);
        CU_ASSERT_EQUAL(solve(ctx, S2, &A, precs[k], MIX_PRECOND_AMG, b, x2, &i3), MIX_SUCCESS);
        CU_ASSERT_EQUAL(i1.iter, i3.iter);
        same_answer(x1, x2, n,
                    atomics || (S2->amg && restricts_by_atomics(S2->amg, S2->amg->stored[precs[k]])));
    }
    /* FIXED16: the bytes of the stored matrices (every level's operator and P, or Th where P
     * is implicit; R = P^T below the fine level, on the fine level not stored) at most 0.42x
     * FP64's (0.38 here; 0.48 with every R stored before issue 37 round 3): the operators in
     * SELL with 16-bit values (0.35x of CSR's 12
     * bytes a nonzero), P in 16 bits in SELL's body too (its columns lie within int16 of its
     * rows on this grid; on larger ones the per-slice column shift keeps them there:
     * tests/test_sell_shift.c), Th's values in FP32 against FP64's. */
    CU_ASSERT(S->amg->bytes_stored[MIX_FIXED16] <= 0.42 * S->amg->bytes_stored[MIX_FP64]);
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

/* The 1-D Laplacian with Neumann ends (each row sums to zero: singular, constants its null
 * space) and b with a constant part, which no x removes: no storage converges, from 0 or from
 * a near-best x0, and the x returned is the best one seen, as mix_strerror says (no worse than
 * the start), its residual the one reported.  AMG's stages ended on their last x before
 * (FIXED16's 1e17 times worse than x = 0, FP64's 7e9); Jacobi CG's kept the best already.  In
 * 2-D the set-up's coarse Cholesky refuses this A at once. */
static void test_inconsistent(void)
{
    const int n = 2000;
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(&A, n, n, 3 * (int64_t)n - 2), MIX_SUCCESS);
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        A.rowptr[i] = k;
        if (i > 0) A.colind[k] = i - 1, A.val[k++] = -1.0;
        A.colind[k] = i, A.val[k++] = i == 0 || i == n - 1 ? 1.0 : 2.0;
        if (i < n - 1) A.colind[k] = i + 1, A.val[k++] = -1.0;
    }
    A.rowptr[n] = k;
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    double *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n);
    double *x0 = mixt_dalloc((size_t)n), mean = 0.0;
    rhs(n, 5, b);
    for (int i = 0; i < n; i++) b[i] += 0.05, mean += b[i] / n;
    /* x0: A x0 = b - mean (x_i - x_i+1 = the partial sums of b - mean), perturbed; its residual
     * is b's constant part and a little more, the best any x can do but for that little. */
    double partial = 0.0;
    for (int i = 0; i + 1 < n; i++) partial += b[i] - mean, x0[i + 1] = x0[i] - partial;
    rhs(n, 7, x);
    for (int i = 0; i < n; i++) x0[i] += 1e-3 * x[i];
    const double rel0 = mixt_cg_true_rel(&A, b, x0);
    for (int t = 0; t < 4 * NST; t++) {
        const int from_x0 = t % (2 * NST) >= NST, precond = t < 2 * NST ? MIX_PRECOND_AMG : MIX_PRECOND_JACOBI;
        for (int i = 0; i < n; i++) x[i] = from_x0 ? x0[i] : NAN; /* overwritten: x = 0 at worst */
        mix_cg_params p = mixt_cg_params(storages[t % NST], precond);
        p.max_iter = 200;
        p.x0_given = from_x0;
        mix_cg_info info;
        const int st = mix_dcg(ctx, &p, S, b, x, &info);
        CU_ASSERT(st == MIX_ERR_NOT_CONVERGED || st == MIX_ERR_NOT_SPD);
        CU_ASSERT_FALSE(info.converged);
        const double rel = mixt_cg_true_rel(&A, b, x);
        CU_ASSERT(rel <= (from_x0 ? rel0 : 1.0) * (1.0 + 1e-12));
        CU_ASSERT(fabs(info.true_rel_residual - rel) <= 1e-6 * rel);
        if (getenv("MIXT_VERBOSE"))
            printf("\n    %s %s from %s: status %d, %d iterations, residual %.6e (reported %.6e)",
                   precond == MIX_PRECOND_AMG ? "AMG" : "Jacobi", mix_prec_name(storages[t % NST]),
                   from_x0 ? "x0" : "0", st, info.iter, rel, info.true_rel_residual);
    }
    free(b);
    free(x);
    free(x0);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* 1138_bus with b = 1 + 0.001 (i mod 17), not A 1 (the probe's): FP32 and BF16 storage stall
 * (the V-cycle's rounding) where FP64 converges in about 350 steps.  They ran all of max_iter in
 * one stage on FP64 vectors, with no reliable update to see it: the x returned was 2.35 times
 * b's residual at max_iter 1500, x = 0 at 2000, MIX_ERR_NAN at 2400.  Now the checkpoints hand
 * the stage over (FP32, then FP64 storage) from the best x: every limit returns an x at least
 * as good as the stalled stage reached (1.5e-7), and no NaN. */
static void test_stalled_storage_escalates(void)
{
    mixt_cg_sys f;
    mixt_cg_open_bundled(&f, "1138_bus.mtx");
    for (int i = 0; i < f.A.nrows; i++) f.b[i] = 1.0 + 0.001 * (i % 17);
    static const mix_prec precs[] = {MIX_FP32, MIX_BF16, MIX_FIXED16};
    static const int limits[] = {1000, 1500, 2400};
    for (size_t q = 0; q < sizeof precs / sizeof precs[0]; q++)
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; l++) {
            mix_cg_params p = mixt_cg_params(precs[q], MIX_PRECOND_AMG);
            p.max_iter = limits[l];
            mix_cg_info info;
            const int st = mix_dcg(f.ctx, &p, f.S, f.b, f.x, &info);
            const double rel = mixt_cg_true_rel(&f.A, f.b, f.x);
            CU_ASSERT(st == MIX_SUCCESS || st == MIX_ERR_NOT_CONVERGED);
            CU_ASSERT(info.stages >= 2);
            CU_ASSERT(rel <= 1e-8);
            CU_ASSERT(fabs(info.true_rel_residual - rel) <= 1e-3 * rel);
            if (getenv("MIXT_VERBOSE") || !(rel <= 1e-8))
                printf("\n    %s max_iter %d: status %d, %d stages, %d iterations, residual %.3e",
                       mix_prec_name(precs[q]), limits[l], st, info.stages, info.iter, rel);
        }
    mixt_cg_close(&f);
}

/* A tolerance below FP64's reach (1e-17): every storage stops STAGNATED at the floor, no wider
 * storage after it, far from max_iter (1000 each before: 3-D Poisson 20^3 and 1138_bus, b = A 1,
 * now 96-153 steps), and x is the best met, its residual the one reported; one reachable where
 * the walk along the floor passes (1e-14) still converges. */
static void test_floor_stop(void)
{
    mixm_csr P;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(20, &P), MIX_SUCCESS);
    mixt_cg_sys bus;
    mixt_cg_open_bundled(&bus, "1138_bus.mtx");
    for (int m = 0; m < 2; m++) {
        const mixm_csr *A = m ? &bus.A : &P;
        const int n = A->nrows;
        mix_context *ctx = mixt_context();
        mix_sparse *S = mixt_sparse(ctx, A);
        double *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n), *one = mixt_dalloc((size_t)n);
        for (int i = 0; i < n; i++) one[i] = 1.0;
        mixm_csr_matvec(A, one, b);
        for (int t = 0; t < NST; t++) {
            mix_cg_params p = mixt_cg_params(storages[t], MIX_PRECOND_AMG);
            p.tol = 1e-17;
            mix_cg_info info;
            CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_ERR_NOT_CONVERGED);
            CU_ASSERT_EQUAL(info.reason, MIX_CG_STAGNATED);
            CU_ASSERT(info.iter <= 300);
            const double rel = mixt_cg_true_rel(A, b, x);
            CU_ASSERT(rel <= 1e-13);
            CU_ASSERT(fabs(info.true_rel_residual - rel) <= 1e-3 * rel);
            if (getenv("MIXT_VERBOSE") || !(info.iter <= 300) || !(rel <= 1e-13))
                printf("\n    %s %s: %d stages, %d iterations, residual %.3e", m ? "1138_bus" : "P20",
                       mix_prec_name(storages[t]), info.stages, info.iter, rel);
            p.tol = 1e-14;
            CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_SUCCESS);
            CU_ASSERT(mixt_cg_true_rel(A, b, x) <= p.tol);
        }
        free(b), free(x), free(one);
        mix_sparse_destroy(S);
        mix_context_destroy(ctx);
    }
    mixt_cg_close(&bus);
    mixm_csr_free(&P);
}

/* x0 that already meets the tolerance (here exact: r = 0): success in every storage, no
 * iteration, where AMG read <r, z> = 0 as a breakdown and returned MIX_ERR_NOT_SPD. */
static void test_x0_converged(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(40, &A), MIX_SUCCESS);
    const int n = A.nrows;
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    double *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n), *one = mixt_dalloc((size_t)n);
    for (int i = 0; i < n; i++) one[i] = 1.0;
    mixm_csr_matvec(&A, one, b);
    for (int t = 0; t < NST; t++) {
        memcpy(x, one, (size_t)n * sizeof *x);
        mix_cg_params p = mixt_cg_params(storages[t], MIX_PRECOND_AMG);
        p.x0_given = 1;
        mix_cg_info info;
        CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_SUCCESS);
        CU_ASSERT_EQUAL(info.iter, 0);
        CU_ASSERT(mixt_cg_true_rel(&A, b, x) <= p.tol);
        /* Stopped before iterating: no stage, as plain CG reports (it said one of 0 steps). */
        CU_ASSERT_EQUAL(info.stages, 0);
        CU_ASSERT(info.converged == 1 && info.reason == MIX_CG_CONVERGED);
        /* x0 off by 1e-13 meets tol too: kept as given, its own residual reported. */
        for (int i = 0; i < n; i++) x[i] = 1.0 + 1e-13 * (i % 3);
        double *x0 = mixt_dalloc((size_t)n);
        memcpy(x0, x, (size_t)n * sizeof *x);
        CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_SUCCESS);
        CU_ASSERT(info.iter == 0 && info.stages == 0);
        CU_ASSERT(memcmp(x, x0, (size_t)n * sizeof *x) == 0);
        const double tr = mixt_cg_true_rel(&A, b, x);
        CU_ASSERT(tr > 0 && fabs(info.true_rel_residual - tr) <= 1e-3 * tr);
        free(x0);
    }
    free(b), free(x), free(one);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
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

/* The host CSR of a generated matrix (the set-up's own type; the arrays are shared). */
static mixi_amg_csr host_csr(const mixm_csr *A)
{
    return (mixi_amg_csr){A->nrows, A->ncols, A->rowptr, A->colind, A->val};
}

static double *inv_sqrt_diag(const mixm_csr *A)
{
    double *s = mixt_dalloc((size_t)A->nrows);
    for (int i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) s[i] = 1.0 / sqrt(A->val[k]);
    return s;
}

/* Every row is in one aggregate or has no strong coupling (a Dirichlet row, a decoupled
 * unknown); every aggregate is used; the aggregation coarsens. */
static void check_aggregates(const mixm_csr *A, double theta, int wide)
{
    mixi_amg_csr M = host_csr(A);
    double *s = inv_sqrt_diag(A);
    int *agg = malloc((size_t)A->nrows * sizeof *agg), *size = NULL;
    CU_ASSERT_FATAL(agg != NULL);
    const int na = mixi_amg_aggregate(&M, s, theta, wide, agg);
    CU_ASSERT(na > 0 && na < A->nrows / 2);
    size = calloc((size_t)(na > 0 ? na : 1), sizeof *size);
    CU_ASSERT_FATAL(size != NULL);
    for (int i = 0; i < A->nrows; i++) {
        int strong = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) strong |= mixi_amg_strong(&M, s, theta, i, k);
        CU_ASSERT(agg[i] >= -1 && agg[i] < na);
        if (agg[i] >= 0) size[agg[i]]++;
        else CU_ASSERT(!strong);
    }
    for (int a = 0; a < na; a++) CU_ASSERT(size[a] >= 1);
    free(size);
    free(agg);
    free(s);
}

/* 3-D Poisson (distance 1 and 2), with Dirichlet rows (identity rows, left out) and a weak
 * direction, and a coarse level's many-neighbour rows at a small theta. */
static void test_aggregation(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(14, &A), MIX_SUCCESS);
    check_aggregates(&A, 0.08, 0);
    check_aggregates(&A, 0.08, 1);
    for (int i = 0; i < A.nrows; i += 37) /* row i = e_i: a Dirichlet row */
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) A.val[k] = A.colind[k] == i;
    check_aggregates(&A, 0.08, 1);
    mixm_csr_free(&A);
    aniso3d(14, 1e-3, &A);
    check_aggregates(&A, 0.08, 1);
    mixm_csr_free(&A);
    mixm_csr G = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(10, &A), MIX_SUCCESS);
    mixi_amg_csr M = host_csr(&A), A2 = {0};
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_product(&M, &M, &A2), MIX_SUCCESS); /* 25 neighbours */
    mixi_amg_csr_sort_rows(&A2);
    G = (mixm_csr){A2.nr, A2.nc, A2.rp[A2.nr], A2.rp, A2.ci, A2.v};
    check_aggregates(&G, 0.04, 0);
    check_aggregates(&G, 0.01, 0);
    mixi_amg_csr_free(&A2);
    mixm_csr_free(&A);
}

/* Dense n x m of a host CSR. */
static double *dense_of(const mixi_amg_csr *M)
{
    double *D = mixt_dalloc((size_t)M->nr * (size_t)M->nc);
    for (int i = 0; i < M->nr; i++)
        for (int64_t k = M->rp[i]; k < M->rp[i + 1]; k++) D[(size_t)i * M->nc + M->ci[k]] += M->v[k];
    return D;
}

/* w = 0: P is the tentative T, one entry 1/sqrt(|a|) a row in its aggregate's column (T's
 * columns scaled by sqrt(|a|) sum to one on every aggregated row: a partition of unity);
 * w > 0: P = (I - w D^-1 A) T entry by entry against dense products, unfiltered (theta 0)
 * and filtered (the weak entries on the diagonal: P's rows keep their sums). */
static void test_prolongator(void)
{
    mixm_csr A;
    aniso3d(6, 0.05, &A);
    mixi_amg_csr M = host_csr(&A), P = {0};
    const int n = A.nrows;
    double *s = inv_sqrt_diag(&A);
    int *agg = malloc((size_t)n * sizeof *agg);
    CU_ASSERT_FATAL(agg != NULL);
    const int na = mixi_amg_aggregate(&M, s, 0.08, 0, agg);
    CU_ASSERT_FATAL(na > 0);
    double *size = mixt_dalloc((size_t)na), *T = mixt_dalloc((size_t)n * na);
    for (int i = 0; i < n; i++) size[agg[i]] += 1.0; /* no row is left out here */
    for (int i = 0; i < n; i++) T[(size_t)i * na + agg[i]] = 1.0 / sqrt(size[agg[i]]);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_prolongator(&M, s, 0.0, 0.0, agg, na, &P, NULL), MIX_SUCCESS);
    for (int i = 0; i < n; i++) { /* explicit zeros aside, one entry, in agg[i]'s column */
        double unity = 0.0;
        for (int64_t k = P.rp[i]; k < P.rp[i + 1]; k++) {
            if (P.ci[k] == agg[i]) unity += P.v[k] * sqrt(size[agg[i]]);
            else CU_ASSERT_EQUAL(P.v[k], 0.0);
        }
        CU_ASSERT_DOUBLE_EQUAL(unity, 1.0, 1e-15);
    }
    mixi_amg_csr_free(&P);
    const double w = 0.6;
    for (int filter = 0; filter < 2; filter++) {
        CU_ASSERT_EQUAL_FATAL(mixi_amg_prolongator(&M, s, w, filter ? 0.08 : 0.0, agg, na, &P, NULL), MIX_SUCCESS);
        double *Pd = dense_of(&P);
        for (int i = 0; i < n; i++) {
            double sum_p = 0.0, sum_ref = 0.0;
            for (int a = 0; a < na; a++) {
                double ref = T[(size_t)i * na + a];
                for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
                    ref -= w * s[i] * s[i] * A.val[k] * T[(size_t)A.colind[k] * na + a];
                if (!filter) CU_ASSERT_DOUBLE_EQUAL(Pd[(size_t)i * na + a], ref, 1e-14);
                sum_p += Pd[(size_t)i * na + a] * sqrt(size[a]), sum_ref += ref * sqrt(size[a]);
            }
            CU_ASSERT_DOUBLE_EQUAL(sum_p, sum_ref, 1e-13); /* A_F keeps A's row sums */
            for (int64_t k = P.rp[i] + 1; k < P.rp[i + 1]; k++) CU_ASSERT(P.ci[k - 1] < P.ci[k]);
        }
        free(Pd);
        mixi_amg_csr_free(&P);
    }
    free(size), free(T), free(agg), free(s);
    mixm_csr_free(&A);
}

/* Level 0 of a set-up of A with or without implicit transfers (tent_ok); Ac the next operator. */
static mixi_amg *coarsen_fine(const mixm_csr *A, int tent_ok, mixi_amg_csr *Ac)
{
    mixi_amg *H = mixi_calloc(1, sizeof *H);
    CU_ASSERT_PTR_NOT_NULL_FATAL(H);
    H->tent_ok = tent_ok;
    const mixi_amg_csr M = host_csr(A);
    int stop = 1;
    CU_ASSERT_EQUAL_FATAL(mixi_amg_coarsen(H, 0, &M, Ac, &stop), MIX_SUCCESS);
    CU_ASSERT_FATAL(!stop);
    return H;
}

/* The implicit prolongator (I - w A^) Th of a level whose smoothing filtered nothing is the
 * explicit Ph of the same set-up without implicit transfers, to FP64 rounding, with the same
 * Galerkin operator bit for bit: 3-D Poisson 12^3 with decoupled rows (in no aggregate: Th's
 * last group, whose rows get 0).  Th holds every row once, ascending within its aggregate.  A
 * level whose smoothing filtered weak couplings (anisotropic, 1e-3) keeps P. */
static void test_implicit_prolongator(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(12, &A), MIX_SUCCESS);
    const int n = A.nrows;
    int decoupled = 0;
    for (int i = 0; i < n; i++) /* rows and columns i % 37 == 0 decoupled (explicit zeros) */
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
            if (A.colind[k] != i && (i % 37 == 0 || A.colind[k] % 37 == 0)) A.val[k] = 0.0;
    for (int i = 0; i < n; i += 37) decoupled++;
    mixi_amg_csr Ac[2] = {{0}, {0}};
    mixi_amg *H = coarsen_fine(&A, 1, &Ac[0]), *E = coarsen_fine(&A, 0, &Ac[1]);
    const mixi_amg_level *L = &H->lev[0];
    CU_ASSERT_FATAL(L->implicit && !E->lev[0].implicit && E->lev[0].P.rp && !L->P.rp);
    CU_ASSERT_EQUAL(L->w, E->lev[0].w);
    /* The same coarse operator. */
    CU_ASSERT_EQUAL_FATAL(Ac[0].nr, Ac[1].nr);
    CU_ASSERT_EQUAL_FATAL(Ac[0].rp[Ac[0].nr], Ac[1].rp[Ac[1].nr]);
    const int nc = Ac[0].nr;
    const int64_t cnz = Ac[0].rp[nc];
    CU_ASSERT(!memcmp(Ac[0].rp, Ac[1].rp, ((size_t)nc + 1) * sizeof *Ac[0].rp));
    CU_ASSERT(!memcmp(Ac[0].ci, Ac[1].ci, (size_t)cnz * sizeof *Ac[0].ci));
    CU_ASSERT(!memcmp(Ac[0].v, Ac[1].v, (size_t)cnz * sizeof *Ac[0].v));
    /* Th's layout. */
    const mixi_amg_tent *T = &L->T;
    CU_ASSERT_EQUAL_FATAL(T->n, n);
    CU_ASSERT_EQUAL_FATAL(T->nc, nc);
    CU_ASSERT_EQUAL(T->start[0], 0);
    CU_ASSERT_EQUAL(T->start[nc + 1], n);
    CU_ASSERT_EQUAL(T->start[nc + 1] - T->start[nc], decoupled);
    int *seen = calloc((size_t)n, sizeof *seen);
    CU_ASSERT_FATAL(seen != NULL);
    for (int a = 0; a <= nc; a++) {
        CU_ASSERT(a == nc || T->start[a + 1] > T->start[a]);
        for (int32_t k = T->start[a]; k < T->start[a + 1]; k++) {
            seen[T->rows[k]]++;
            if (k > T->start[a]) CU_ASSERT(T->rows[k - 1] < T->rows[k]);
            if (a == nc) CU_ASSERT_EQUAL(T->rows[k] % 37, 0);
        }
    }
    for (int i = 0; i < n; i++) CU_ASSERT_EQUAL(seen[i], 1);
    /* Ph xc both ways: u = Th xc, u - w A^ u (A^ = D^-1/2 A D^-1/2) against the CSR Ph. */
    double *xc = mixt_dalloc((size_t)nc), *u = mixt_dalloc((size_t)n), *d = L->dinv_sqrt;
    rhs(nc, 21, xc);
    double err = 0.0, ref = 0.0;
    for (int a = 0; a < nc; a++)
        for (int32_t k = T->start[a]; k < T->start[a + 1]; k++) u[T->rows[k]] = T->val[k] * xc[a];
    for (int i = 0; i < n; i++) {
        double yi = u[i], ye = 0.0;
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
            yi -= L->w * d[i] * A.val[k] * d[A.colind[k]] * u[A.colind[k]];
        const mixi_amg_csr *P = &E->lev[0].P;
        for (int64_t k = P->rp[i]; k < P->rp[i + 1]; k++) ye += P->v[k] * xc[P->ci[k]];
        err = fmax(err, fabs(yi - ye)), ref = fmax(ref, fabs(ye));
    }
    CU_ASSERT(ref > 0.0 && err <= 1e-14 * ref);
    free(seen), free(xc), free(u);
    mixi_amg_free(H, NULL), mixi_amg_free(E, NULL);
    mixi_amg_csr_free(&Ac[0]), mixi_amg_csr_free(&Ac[1]);
    mixm_csr_free(&A);
    aniso3d(10, 1e-3, &A);
    H = coarsen_fine(&A, 1, &Ac[0]);
    CU_ASSERT(!H->lev[0].implicit && H->lev[0].P.rp && !H->lev[0].T.start);
    mixi_amg_free(H, NULL);
    mixi_amg_csr_free(&Ac[0]);
    mixm_csr_free(&A);
}

/* The backend's transfers of the fine level's stored Th (3-D Poisson 16^3), over FP32 vectors
 * (the FIXED16 set) and FP64 ones (the FP64 set), against plain loops over Th's arrays: the
 * same bits (each restricted sum in its aggregate's row order, no atomics; each prolonged
 * value one rounded product, x += u axpby's sum), the rows in no aggregate untouched; its
 * layout by rows (agg, row_val) the one by aggregates (start, rows, val) read the other way. */
static void test_tent_transfers(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(16, &A), MIX_SUCCESS);
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    mixi_amg *H;
    double t;
    CU_ASSERT_EQUAL_FATAL(mixi_amg_get(S, &H, &t), MIX_SUCCESS);
    const mix_prec sets[2] = {MIX_FIXED16, MIX_FP64};
    for (int k = 0; k < 2; k++) {
        const mixi_amg_stored *St;
        CU_ASSERT_EQUAL_FATAL(mixi_amg_stored_get(S, H, sets[k], &St), MIX_SUCCESS);
        const mixi_tent *T = St[0].T;
        CU_ASSERT_PTR_NOT_NULL_FATAL(T);
        const int n = T->n, nc = T->nc, f64 = T->prec == MIX_FP64;
        const size_t el = f64 ? sizeof(double) : sizeof(float);
        CU_ASSERT_EQUAL_FATAL(T->prec, k ? MIX_FP64 : MIX_FP32);
        int32_t *start = malloc(((size_t)nc + 2) * sizeof *start), *rows = malloc((size_t)n * sizeof *rows);
        int32_t *agg = malloc((size_t)n * sizeof *agg);
        unsigned char *hrv = malloc((size_t)n * el);
        double *tv = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n), *y = mixt_dalloc((size_t)nc);
        unsigned char *hv = malloc((size_t)n * el), *hx = malloc((size_t)n * el), *hy = malloc((size_t)nc * el);
        unsigned char *got = malloc((size_t)n * el), *hu = malloc((size_t)n * el);
        CU_ASSERT_FATAL(start && rows && agg && hrv && hv && hx && hy && got && hu);
        void *st = ctx->state;
        CU_ASSERT_EQUAL_FATAL(ctx->ops->download(st, start, T->start, ((size_t)nc + 2) * sizeof *start), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->download(st, rows, T->rows, (size_t)n * sizeof *rows), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->download(st, agg, T->agg, (size_t)n * sizeof *agg), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->download(st, hrv, T->row_val, (size_t)n * el), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->download(st, hv, T->val, (size_t)n * el), MIX_SUCCESS);
        rhs(n, 31, x), rhs(nc, 32, y);
        for (int i = 0; i < n; i++) {
            tv[i] = f64 ? ((double *)hv)[i] : ((float *)hv)[i];
            if (f64) ((double *)hx)[i] = x[i];
            else ((float *)hx)[i] = (float)x[i], x[i] = ((float *)hx)[i];
        }
        for (int a = 0; a < nc; a++) {
            if (f64) ((double *)hy)[a] = y[a];
            else ((float *)hy)[a] = (float)y[a], y[a] = ((float *)hy)[a];
        }
        mixi_svec vx, vy, vr, vu;
        const mix_prec vp = T->prec;
        CU_ASSERT_EQUAL_FATAL(mixi_amg_svec_alloc(ctx, vp, n, n, &vx), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(mixi_amg_svec_alloc(ctx, vp, n, n, &vu), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(mixi_amg_svec_alloc(ctx, vp, nc, nc, &vy), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(mixi_amg_svec_alloc(ctx, vp, nc, nc, &vr), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->upload(st, vx.val, hx, (size_t)n * el), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->upload(st, vy.val, hy, (size_t)nc * el), MIX_SUCCESS);
        /* y = Th^T x */
        CU_ASSERT_EQUAL_FATAL(ctx->ops->sparse->tent_restrict(st, T, &vx, &vr), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->download(st, got, vr.val, (size_t)nc * el), MIX_SUCCESS);
        int bad = 0;
        for (int a = 0; a < nc; a++) {
            double sum = 0.0;
            for (int32_t q = start[a]; q < start[a + 1]; q++) sum += tv[q] * x[rows[q]];
            bad += f64 ? ((double *)got)[a] != sum : ((float *)got)[a] != (float)sum;
        }
        CU_ASSERT_EQUAL(bad, 0);
        /* u = Th y, x += u */
        CU_ASSERT_EQUAL_FATAL(ctx->ops->sparse->tent_prolong(st, T, &vy, &vu, &vx), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->download(st, hu, vu.val, (size_t)n * el), MIX_SUCCESS);
        CU_ASSERT_EQUAL_FATAL(ctx->ops->download(st, got, vx.val, (size_t)n * el), MIX_SUCCESS);
        bad = 0;
        for (int a = 0; a <= nc; a++)
            for (int32_t q = start[a]; q < start[a + 1]; q++) {
                const int i = rows[q];
                /* the two layouts agree */
                bad += agg[i] != a || memcmp(hrv + (size_t)i * el, hv + (size_t)q * el, el) != 0;
                if (f64) {
                    const double ui = a < nc ? tv[q] * y[a] : 0.0;
                    bad += ((double *)hu)[i] != ui || ((double *)got)[i] != x[i] + ui;
                } else {
                    const float ui = a < nc ? (float)tv[q] * (float)y[a] : 0.0f;
                    bad += ((float *)hu)[i] != ui || ((float *)got)[i] != (float)x[i] + ui;
                }
            }
        CU_ASSERT_EQUAL(bad, 0);
        mixi_svec *v[4] = {&vx, &vy, &vr, &vu};
        for (int q = 0; q < 4; q++) ctx->ops->free(st, v[q]->val);
        free(start), free(rows), free(agg), free(hrv), free(tv), free(x), free(y), free(hv), free(hx), free(hy), free(got), free(hu);
    }
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* The Galerkin product P^T (A P) of the set-up's sparse kernels against the dense triple
 * product, on a nonsymmetric-pattern P. */
static void test_galerkin(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(9, &A), MIX_SUCCESS);
    mixi_amg_csr M = host_csr(&A), P = {0}, R = {0}, AP = {0}, Ac = {0};
    const int n = A.nrows, nc = 17;
    mixm_rng g;
    mixm_rng_seed(&g, 11);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_alloc(&P, n, nc, 3 * (int64_t)n), MIX_SUCCESS);
    for (int i = 0; i < n; i++) { /* columns i % nc, (i / 5) % nc, (7 i + 3) % nc, deduplicated */
        const int c[3] = {i % nc, (i / 5) % nc, (7 * i + 3) % nc};
        int64_t e = P.rp[i];
        for (int t = 0; t < 3; t++)
            if ((t < 1 || c[t] != c[0]) && (t < 2 || c[t] != c[1])) P.ci[e] = c[t], P.v[e++] = mixm_rng_uniform(&g) - 0.3;
        P.rp[i + 1] = e;
    }
    mixi_amg_csr_sort_rows(&P);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_transpose(&P, &R), MIX_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_product(&M, &P, &AP), MIX_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_product(&R, &AP, &Ac), MIX_SUCCESS);
    double *Ad = dense_of(&M), *Pd = dense_of(&P), *Cd = dense_of(&Ac);
    for (int a = 0; a < nc; a++)
        for (int b = 0; b < nc; b++) {
            double ref = 0.0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) ref += Pd[(size_t)i * nc + a] * Ad[(size_t)i * n + j] * Pd[(size_t)j * nc + b];
            CU_ASSERT_DOUBLE_EQUAL(Cd[(size_t)a * nc + b], ref, 1e-12 * (1.0 + fabs(ref)));
        }
    for (int a = 0; a < nc; a++) /* no duplicate column in a row */
        for (int64_t k = Ac.rp[a]; k < Ac.rp[a + 1]; k++)
            for (int64_t q = k + 1; q < Ac.rp[a + 1]; q++) CU_ASSERT(Ac.ci[k] != Ac.ci[q]);
    free(Ad), free(Pd), free(Cd);
    mixi_amg_csr_free(&P), mixi_amg_csr_free(&R), mixi_amg_csr_free(&AP), mixi_amg_csr_free(&Ac);
    mixm_csr_free(&A);
}

/* mixi_amg_csr_galerkin (A P held in a reservation, never as CSR) against R (A P) through two
 * CSR products: the same rows, columns and bits, for 3-D Poisson 20^3 (several row blocks) and
 * its smoothed prolongator; and with each of its allocations made to fail in turn, either
 * MIX_ERR_ALLOC or (the fallback to CSR when the reservation has no room) the same bits, with
 * nothing leaked. */
static int csr_same(const mixi_amg_csr *X, const mixi_amg_csr *Y)
{
    if (X->nr != Y->nr || X->nc != Y->nc || memcmp(X->rp, Y->rp, ((size_t)X->nr + 1) * sizeof *X->rp)) return 0;
    const size_t nnz = (size_t)X->rp[X->nr];
    return !memcmp(X->ci, Y->ci, nnz * sizeof *X->ci) && !memcmp(X->v, Y->v, nnz * sizeof *X->v);
}

static void test_galerkin_reserved(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(20, &A), MIX_SUCCESS);
    mixi_amg_csr M = host_csr(&A), P = {0}, R = {0}, AP = {0}, want = {0};
    const int n = A.nrows;
    double *s = mixt_dalloc((size_t)n);
    int *agg = calloc((size_t)n, sizeof *agg);
    CU_ASSERT_FATAL(agg != NULL);
    for (int i = 0; i < n; i++) s[i] = 1.0 / sqrt(6.0);
    const int na = mixi_amg_aggregate(&M, s, 0.08, 1, agg);
    CU_ASSERT_FATAL(na > 0);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_prolongator(&M, s, 0.7, 0.08, agg, na, &P, NULL), MIX_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_transpose(&P, &R), MIX_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_product(&M, &P, &AP), MIX_SUCCESS);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_product(&R, &AP, &want), MIX_SUCCESS);
    const long live0 = mixi_alloc_live();
    int st = MIX_ERR_ALLOC, k, fallbacks = 0;
    for (k = -1; k < 400 && (k < 0 || st == MIX_ERR_ALLOC || fallbacks < 1); k++) {
        mixi_amg_csr Ac = {0};
        mixi_alloc_fail_after(k);
        st = mixi_amg_csr_galerkin(&R, &M, &P, &Ac);
        mixi_alloc_fail_after(-1);
        CU_ASSERT(st == MIX_SUCCESS || (st == MIX_ERR_ALLOC && k >= 0));
        if (st == MIX_SUCCESS) CU_ASSERT(csr_same(&Ac, &want));
        fallbacks += st == MIX_SUCCESS && k >= 0;
        mixi_amg_csr_free(&Ac);
        CU_ASSERT_EQUAL(mixi_alloc_live(), live0);
    }
    CU_ASSERT(fallbacks >= 1); /* a failed reservation fell back to CSR and succeeded */
    free(s), free(agg);
    mixi_amg_csr_free(&P), mixi_amg_csr_free(&R), mixi_amg_csr_free(&AP), mixi_amg_csr_free(&want);
    mixm_csr_free(&A);
}

/* A A for 3-D Poisson 20^3 (8000 rows: several of the product's row blocks, buffers that grow)
 * against each row accumulated densely: the same entries, no duplicate column, every product. */
static void test_product_blocks(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(20, &A), MIX_SUCCESS);
    mixi_amg_csr M = host_csr(&A), C = {0};
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_product(&M, &M, &C), MIX_SUCCESS);
    const int n = A.nrows;
    double *row = calloc((size_t)n, sizeof *row);
    char *hit = calloc((size_t)n, 1);
    CU_ASSERT_FATAL(row && hit);
    int ok = C.nr == n && C.nc == n;
    for (int i = 0; ok && i < n; i++) {
        int64_t want = 0;
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
            for (int64_t q = A.rowptr[A.colind[k]]; q < A.rowptr[A.colind[k] + 1]; q++) {
                const int j = A.colind[q];
                want += !hit[j];
                hit[j] = 1;
                row[j] += A.val[k] * A.val[q];
            }
        ok &= C.rp[i + 1] - C.rp[i] == want;
        for (int64_t k = C.rp[i]; k < C.rp[i + 1]; k++) {
            const int j = C.ci[k];
            ok &= hit[j] == 1 && fabs(C.v[k] - row[j]) <= 1e-13 * (1.0 + fabs(row[j]));
            hit[j] = 2; /* a duplicate column would find 2 */
        }
        for (int64_t k = C.rp[i]; k < C.rp[i + 1]; k++) row[C.ci[k]] = 0.0, hit[C.ci[k]] = 0;
    }
    CU_ASSERT(ok);
    free(row);
    free(hit);
    mixi_amg_csr_free(&C);
    mixm_csr_free(&A);
}

/* The transpose of an uneven 0/1/many-entries-per-row matrix against the dense one, rows
 * sorted, with teams of 1, 2 and 3 threads (each takes a share of the rows, the shares' entries
 * of a column meet in row order). */
static void test_transpose(void)
{
    const int nr = 301, nc = 37;
    mixi_amg_csr M = {0}, T = {0};
    CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_alloc(&M, nr, nc, 4 * (int64_t)nr), MIX_SUCCESS);
    for (int i = 0, e = 0; i < nr; i++) { /* 0 to 3 entries, distinct sorted columns */
        for (int t = 0; t < i % 4; t++) M.ci[e] = (i * 7 + t * 11) % nc, M.v[e++] = i + 0.25 * t;
        M.rp[i + 1] = e;
    }
    mixi_amg_csr_sort_rows(&M);
    double *D = dense_of(&M);
#ifdef _OPENMP
    const int keep = omp_get_max_threads();
#endif
    for (int threads = 1; threads <= 3; threads++) {
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        CU_ASSERT_EQUAL_FATAL(mixi_amg_csr_transpose(&M, &T), MIX_SUCCESS);
        CU_ASSERT(T.nr == nc && T.nc == nr && T.rp[nc] == M.rp[nr]);
        double *Dt = dense_of(&T);
        for (int i = 0; i < nr; i++)
            for (int j = 0; j < nc; j++) CU_ASSERT_EQUAL(Dt[(size_t)j * nr + i], D[(size_t)i * nc + j]);
        for (int j = 0; j < nc; j++)
            for (int64_t k = T.rp[j] + 1; k < T.rp[j + 1]; k++) CU_ASSERT(T.ci[k - 1] < T.ci[k]);
        free(Dt);
        mixi_amg_csr_free(&T);
    }
#ifdef _OPENMP
    omp_set_num_threads(keep);
#endif
    free(D);
    mixi_amg_csr_free(&M);
}

/* 1-D Poisson, tridiag(-1, 2, -1) of order m. */
static void poisson1d(int m, mixm_csr *A)
{
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(A, m, m, 3 * (int64_t)m), MIX_SUCCESS);
    int64_t e = 0;
    for (int i = 0; i < m; i++) {
        A->rowptr[i] = e;
        if (i > 0) A->colind[e] = i - 1, A->val[e++] = -1.0;
        A->colind[e] = i, A->val[e++] = 2.0;
        if (i + 1 < m) A->colind[e] = i + 1, A->val[e++] = -1.0;
    }
    A->rowptr[m] = A->nnz = e;
}

/* The symmetric n x n matrix of the dense row-major a (n small) as CSR. */
static void dense_to_csr(int n, const double *a, mixm_csr *A)
{
    int64_t nnz = 0;
    for (size_t k = 0; k < (size_t)n * n; k++) nnz += a[k] != 0.0;
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(A, n, n, nnz), MIX_SUCCESS);
    int64_t q = 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = q;
        for (int j = 0; j < n; j++)
            if (a[(size_t)i * n + j] != 0.0) A->colind[q] = j, A->val[q++] = a[(size_t)i * n + j];
    }
    A->rowptr[n] = q;
}

/* The coarsest level's Cholesky factor by its envelope (amg_coarse.c).  A diagonal matrix of
 * MIXI_AMG_DIRECT_N rows (no strong coupling: one level, solved directly): a factor of n values,
 * not the dense n^2 (72 MB; 11 s to factor on the 2-core Xeon); AMG-PCG solves it in one
 * iteration.  A matrix of 380 rows with a ragged envelope (a tridiagonal part broken in places,
 * couplings 37 and up to 23 rows back): the factor holds the envelope's entries only, and the
 * coarse solve gives the bits of a dense Cholesky's (the former factor: every sum in the same
 * order, the skipped terms exact zeros). */
static void coarse_diagonal(mix_context *ctx)
{
    const int nd = MIXI_AMG_DIRECT_N;
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(&A, nd, nd, nd), MIX_SUCCESS);
    for (int i = 0; i <= nd; i++) A.rowptr[i] = i;
    for (int i = 0; i < nd; i++) A.colind[i] = i, A.val[i] = 1.0 + (i % 10) / 8.0;
    mix_sparse *S = mixt_sparse(ctx, &A);
    mixi_amg *H;
    double t;
    CU_ASSERT_EQUAL_FATAL(mixi_amg_get(S, &H, &t), MIX_SUCCESS);
    CU_ASSERT_EQUAL(H->nlev, 1);
    CU_ASSERT_FATAL(H->coarse_direct && H->chol);
    CU_ASSERT(mixi_block_bytes(H->chol) <= (size_t)nd * sizeof(double));
    double *b = mixt_dalloc((size_t)nd), *x = mixt_dalloc((size_t)nd);
    rhs(nd, 41, b);
    mix_cg_params p;
    mix_cg_params_init(&p);
    p.precond = MIX_PRECOND_AMG, p.sloppy_prec = MIX_FP64;
    mix_cg_info info;
    CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_SUCCESS);
    CU_ASSERT(info.iter <= 1);
    mix_sparse_destroy(S);
    mixm_csr_free(&A);
    free(b), free(x);
}

static void coarse_ragged(mix_context *ctx)
{
    const int n = 380;
    mixm_csr A;
    double *a = calloc((size_t)n * n, sizeof *a), *L = calloc((size_t)n * n, sizeof *L);
    CU_ASSERT_FATAL(a && L);
    for (int i = 0; i < n; i++) {
        int cols[3] = {i % 11 ? i - 1 : -1, i % 5 == 0 ? i - 37 : -1, i % 7 == 0 ? i - 1 - i % 23 : -1};
        for (int c = 0; c < 3; c++)
            if (cols[c] >= 0) a[(size_t)i * n + cols[c]] = a[(size_t)cols[c] * n + i] = c ? -0.5 : -1.0;
        a[(size_t)i * n + i] = 4.0 + i % 3;
    }
    int64_t envelope = 0;
    for (int i = 0; i < n; i++) {
        int f = 0;
        while (a[(size_t)i * n + f] == 0.0) f++;
        envelope += i - f + 1;
    }
    dense_to_csr(n, a, &A);
    mix_sparse *S = mixt_sparse(ctx, &A);
    mixi_amg *H;
    double t;
    CU_ASSERT_EQUAL_FATAL(mixi_amg_get(S, &H, &t), MIX_SUCCESS);
    CU_ASSERT_FATAL(H->nlev == 1 && H->coarse_direct && H->chol);
    CU_ASSERT(mixi_block_bytes(H->chol) <= (size_t)envelope * sizeof(double));
    CU_ASSERT(envelope < (int64_t)n * (n + 1) / 4);
    /* The dense factor of D^-1/2 A D^-1/2, the former code's loops. */
    const double *s = H->lev[0].dinv_sqrt;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++)
            if (a[(size_t)i * n + j] != 0.0) L[(size_t)i * n + j] = a[(size_t)i * n + j] * s[i] * s[j];
    for (int j = 0; j < n; j++) {
        double *Lj = L + (size_t)j * n;
        for (int k = 0; k < j; k++) Lj[j] -= Lj[k] * Lj[k];
        Lj[j] = sqrt(Lj[j]);
        for (int i = j + 1; i < n; i++) {
            double *Li = L + (size_t)i * n, u = Li[j];
            for (int k = 0; k < j; k++) u -= Li[k] * Lj[k];
            Li[j] = u / Lj[j];
        }
    }
    double *y = mixt_dalloc((size_t)n), *z = mixt_dalloc((size_t)n);
    rhs(n, 43, y);
    memcpy(z, y, (size_t)n * sizeof *z);
    for (int i = 0; i < n; i++) {
        double u = z[i];
        for (int k = 0; k < i; k++) u -= L[(size_t)i * n + k] * z[k];
        z[i] = u / L[(size_t)i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double u = z[i];
        for (int k = i + 1; k < n; k++) u -= L[(size_t)k * n + i] * z[k];
        z[i] = u / L[(size_t)i * n + i];
    }
    mixi_amg_coarse_solve(H, y);
    CU_ASSERT_EQUAL(memcmp(y, z, (size_t)n * sizeof *y), 0);
    mix_sparse_destroy(S);
    mixm_csr_free(&A);
    free(a), free(L), free(y), free(z);
}

static void test_coarse_envelope(void)
{
    mix_context *ctx = mixt_context();
    coarse_diagonal(ctx);
    coarse_ragged(ctx);
    mix_context_destroy(ctx);
}

/* The Laplacian plus 0.1 I of a preferential-attachment graph of n nodes (Barabasi-Albert,
 * each new node linked to 3 earlier ones chosen by degree, duplicates merged): a power-law
 * degree distribution, hubs of hundreds of links. */
static void power_law(int n, mixm_csr *A)
{
    int64_t m = 0, cap = 6 * (int64_t)n, ne = 0;
    int32_t *ei = malloc((size_t)cap * sizeof *ei), *ej = malloc((size_t)cap * sizeof *ej);
    int32_t *ends = malloc((size_t)cap * sizeof *ends);
    CU_ASSERT_FATAL(ei && ej && ends);
    mixm_rng g;
    mixm_rng_seed(&g, 77);
    for (int i = 1; i < n; i++)
        for (int e = 0; e < (i < 3 ? i : 3); e++) {
            int j = ne ? ends[mixm_rng_next(&g) % (uint64_t)ne] : 0;
            if (j == i || (e == 0 && i < 4)) j = i - 1;
            ei[m] = i, ej[m++] = j, ends[ne++] = i, ends[ne++] = j;
        }
    int64_t *cnt = calloc((size_t)n + 1, sizeof *cnt);
    CU_ASSERT_FATAL(cnt != NULL);
    for (int64_t k = 0; k < m; k++) cnt[ei[k] + 1]++, cnt[ej[k] + 1]++;
    for (int i = 0; i < n; i++) cnt[i + 1] += cnt[i] + 1; /* + the diagonal */
    int32_t *col = malloc((size_t)cnt[n] * sizeof *col), *mark = malloc((size_t)n * sizeof *mark);
    int64_t *at = malloc((size_t)n * sizeof *at);
    CU_ASSERT_FATAL(col && at && mark);
    for (int i = 0; i < n; i++) at[i] = cnt[i], col[at[i]++] = i, mark[i] = -1;
    for (int64_t k = 0; k < m; k++) col[at[ei[k]]++] = ej[k], col[at[ej[k]]++] = ei[k];
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(A, n, n, cnt[n]), MIX_SUCCESS);
    int64_t q = 0;
    for (int i = 0; i < n; i++) { /* row i: -1 per distinct neighbour, its degree + 0.1 */
        A->rowptr[i] = q;
        int len = 0;
        for (int64_t k = cnt[i]; k < cnt[i + 1]; k++)
            if (mark[col[k]] != i) {
                int32_t *c = A->colind + q;
                int b = len++;
                for (; b > 0 && c[b - 1] > col[k]; b--) c[b] = c[b - 1];
                c[b] = col[k], mark[col[k]] = i;
            }
        for (int d = 0; d < len; d++) A->val[q + d] = A->colind[q + d] == i ? len - 1 + 0.1 : -1.0;
        q += len;
    }
    A->rowptr[n] = q;
    A->nnz = q;
    free(ei), free(ej), free(ends), free(cnt), free(col), free(at), free(mark);
}

/* A power-law graph's Laplacian (n = 10000): the hierarchy holds at most twice the fine level's
 * entries (the Galerkin operators of its hubs filled in: a first coarse level of 961 rows with
 * 386 entries each, operator complexity 6.7, 0.3 s and 200 MB of set-up for 10^4 rows), and
 * AMG-PCG converges in every storage within Jacobi CG's iterations. */
static void test_power_law(void)
{
    mixm_csr A;
    power_law(10000, &A);
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    mixi_amg *H;
    double t;
    CU_ASSERT_EQUAL_FATAL(mixi_amg_get(S, &H, &t), MIX_SUCCESS);
    int64_t total = 0;
    for (int l = 0; l < H->nlev; l++) total += H->lev[l].nnz;
    CU_ASSERT(total <= 2 * A.nnz);
    const int n = A.nrows;
    double *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n);
    rhs(n, 51, b);
    mix_cg_params p;
    mix_cg_params_init(&p);
    mix_cg_info info;
    p.precond = MIX_PRECOND_JACOBI, p.sloppy_prec = MIX_FP64;
    CU_ASSERT_EQUAL_FATAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_SUCCESS);
    const int jacobi = info.iter;
    p.precond = MIX_PRECOND_AMG;
    for (int k = 0; k < NST; k++) {
        p.sloppy_prec = storages[k];
        CU_ASSERT_EQUAL(mix_dcg(ctx, &p, S, b, x, &info), MIX_SUCCESS);
        CU_ASSERT(info.converged && info.iter <= jacobi);
        CU_ASSERT(mixt_cg_true_rel(&A, b, x) <= 2 * p.tol);
    }
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
    free(b), free(x);
}

/* lambda_max of D^-1/2 A D^-1/2 for 1-D and 3-D Poisson of m points a side, known:
 * 1 + cos(pi / (m + 1)) (2-D too).  The estimate is below it and within the smoothers' margin,
 * with Gershgorin's bound (which lets Lanczos stop early, or the quotient of signs skip it) and
 * without one. */
static void test_lmax(void)
{
    for (int d = 0; d < 3; d++) {
        const int m = d == 2 ? 300 : d ? 20 : 400;
        mixm_csr A;
        if (d == 2) {
            CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(m, &A), MIX_SUCCESS);
        } else if (d) {
            CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(m, &A), MIX_SUCCESS);
        } else {
            poisson1d(m, &A);
        }
        const double exact = 1.0 + cos(acos(-1.0) / (m + 1));
        double *s = inv_sqrt_diag(&A);
        mixi_amg_csr M = host_csr(&A);
        const double uppers[2] = {2.0, INFINITY};
        for (int u = 0; u < 2; u++) {
            const double l = mixi_amg_lmax(&M, s, uppers[u]);
            CU_ASSERT(l <= exact * (1.0 + 1e-12));
            CU_ASSERT(MIXI_AMG_LMAX_MARGIN * l >= exact);
            /* 2-D Poisson 300^2: the quotient of alternating signs (a checkerboard in chunks
             * of 4.7 grid rows) reaches 2 / margin, which it returns without Lanczos. */
            if (d == 2 && u == 0) CU_ASSERT_EQUAL(l, uppers[0] / MIXI_AMG_LMAX_MARGIN);
        }
        free(s);
        mixm_csr_free(&A);
    }
}

/* 3-D Poisson 40^3: at most 14 iterations to 1e-10 in FIXED16 and FP64 storage (pyamg's
 * smoothed aggregation: 12 at 100^3), operator complexity at most 1.5, and every level at most
 * a quarter of the one above (a flat theta of 0.08 left coarse rows without strong couplings,
 * out of every aggregate: 23 iterations at 120^3, operator complexity 1.77; 15 power steps
 * for lambda_max, 1.68 for 1.99, cost 21 iterations here and the V-cycle's SPD-ness at 80^3). */
static void test_poisson_bound(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(40, &A), MIX_SUCCESS);
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    double *b = mixt_dalloc((size_t)A.nrows), *x = mixt_dalloc((size_t)A.nrows);
    rhs(A.nrows, 5, b);
    const mix_prec st[2] = {MIX_FIXED16, MIX_FP64};
    for (int k = 0; k < 2; k++) {
        mix_cg_info info;
        CU_ASSERT_EQUAL(solve(ctx, S, &A, st[k], MIX_PRECOND_AMG, b, x, &info), MIX_SUCCESS);
        CU_ASSERT(info.iter <= 14);
        printf("\n    poisson3d 40^3 %s: %d iterations", mix_prec_name(st[k]), info.iter);
    }
    CU_ASSERT_FATAL(S->amg != NULL);
    double nnz = 0.0;
    for (int l = 0; l < S->amg->nlev; l++) {
        nnz += (double)S->amg->lev[l].nnz;
        if (l > 0) CU_ASSERT(4 * S->amg->lev[l].n <= S->amg->lev[l - 1].n);
    }
    CU_ASSERT(nnz <= 1.5 * (double)S->amg->lev[0].nnz);
    printf(", operator complexity %.2f", nnz / (double)S->amg->lev[0].nnz);
    free(b), free(x);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* Per-level AUTO's pick (mixi_amg_level_pick, not timed): FP32 where its measured SpMV is
 * clearly faster on the level (a cache-resident coarse level), the 16-bit storage where it is
 * faster or within the 5% tie, and by the byte model where nothing was measured; FP32 for a level
 * that does not fit 16 bits, or when the fine level's storage is FP32. */
static void test_level_pick(void)
{
    mixi_amg_level L = {.n = 20000, .nnz = 500000, .tiny_share_pct = 3};
    double t[MIX_NUM_PREC] = {0};
    t[MIX_FIXED16] = 1.0e-3, t[MIX_FP32] = 0.5e-3;
    CU_ASSERT_EQUAL(mixi_amg_level_pick(&L, MIX_FIXED16, t), MIX_FP32);
    t[MIX_FP32] = 1.03e-3;
    CU_ASSERT_EQUAL(mixi_amg_level_pick(&L, MIX_FIXED16, t), MIX_FIXED16);
    t[MIX_FP32] = 1.2e-3;
    CU_ASSERT_EQUAL(mixi_amg_level_pick(&L, MIX_FIXED16, t), MIX_FIXED16);
    t[MIX_FP64] = 0.1e-3; /* never a candidate: the V-cycle's vectors are FP32 */
    CU_ASSERT_EQUAL(mixi_amg_level_pick(&L, MIX_FIXED16, t), MIX_FIXED16);
    CU_ASSERT_EQUAL(mixi_amg_level_pick(&L, MIX_FP32, t), MIX_FP32);
    t[MIX_FP32] = 0.0; /* unmeasured: bytes */
    CU_ASSERT_EQUAL(mixi_amg_level_pick(&L, MIX_FIXED16, t), MIX_FIXED16);
    L.tiny_share_pct = 40; /* does not fit 16 bits */
    t[MIX_FP32] = 5e-3;
    CU_ASSERT_EQUAL(mixi_amg_level_pick(&L, MIX_FIXED16, t), MIX_FP32);
}

/* z = M r by the cycle C for host vectors r and z of n values: mixi_amg_cycle_apply takes
 * backend memory (amg.h), the host's on the CPU only (a device kernel must not read a host
 * pointer), so r goes through the backend and z comes back. */
static int cycle_apply_host(mix_context *ctx, mixi_amg_cycle *C, const double *r, double *z, int n)
{
    const size_t bytes = (size_t)n * sizeof(double);
    double *dr = mixt_put(ctx, r, bytes), *dz = mixt_put(ctx, NULL, bytes);
    int st = dr && dz ? mixi_amg_cycle_apply(C, dr, dz) : MIX_ERR_ALLOC;
    if (!st) st = mixt_get(ctx, z, dz, bytes);
    if (dr) mixt_drop(ctx, dr);
    if (dz) mixt_drop(ctx, dz);
    return st;
}

/* The AUTO set of a hierarchy: level 0 in CG's AUTO storage, every coarser level in that or
 * FP32, cached; its V-cycle is close to the FP64 set's (both approximate one linear operator)
 * and positive on r. */
static void test_auto_levels(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(30, &A), MIX_SUCCESS);
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    const int n = A.nrows;
    double *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n), *z[2];
    rhs(n, 13, b);
    mix_cg_info info;
    CU_ASSERT_EQUAL_FATAL(solve(ctx, S, &A, MIX_FP64, MIX_PRECOND_AMG, b, x, &info), MIX_SUCCESS);
    mixi_amg *H = S->amg;
    const mixi_amg_stored *St[2];
    CU_ASSERT_EQUAL_FATAL(mixi_amg_stored_get(S, H, MIX_PREC_AUTO, &St[0]), MIX_SUCCESS);
    const mix_prec fine = mixi_cg_auto_prec(S);
    CU_ASSERT_EQUAL(St[0][0].prec, fine);
    for (int l = 1; l < H->nlev && fine != MIX_FP64; l++)
        CU_ASSERT(St[0][l].prec == MIX_FP32 || St[0][l].prec == fine);
    const mixi_amg_stored *again;
    CU_ASSERT_EQUAL(mixi_amg_stored_get(S, H, MIX_PREC_AUTO, &again), MIX_SUCCESS);
    CU_ASSERT_PTR_EQUAL(again, St[0]);
    CU_ASSERT(fine == MIX_FP64 || H->bytes_auto > 0);
    /* Once a set is made the host arrays go (resident: the stored sets alone); the next set
     * reruns the set-up for them. */
    CU_ASSERT_EQUAL(H->host_kept, 0);
    CU_ASSERT_EQUAL(H->bytes_host, 0);
    CU_ASSERT_EQUAL_FATAL(mixi_amg_stored_get(S, H, MIX_FP64, &St[1]), MIX_SUCCESS);
    for (int k = 0; k < 2; k++) {
        mixi_amg_cycle C;
        z[k] = mixt_dalloc((size_t)n);
        const mix_prec vp = St[k][0].prec == MIX_FP64 ? MIX_FP64 : MIX_FP32;
        CU_ASSERT_EQUAL_FATAL(mixi_amg_cycle_init(&C, ctx, H, St[k], H->scale[0], vp), MIX_SUCCESS);
        CU_ASSERT_EQUAL(cycle_apply_host(ctx, &C, b, z[k], n), MIX_SUCCESS);
        mixi_amg_cycle_free(&C);
    }
    double dd = 0.0, zz = 0.0, rz = 0.0;
    for (int i = 0; i < n; i++) {
        dd += (z[0][i] - z[1][i]) * (z[0][i] - z[1][i]);
        zz += z[1][i] * z[1][i];
        rz += b[i] * z[0][i];
    }
    CU_ASSERT(rz > 0.0);
    CU_ASSERT(sqrt(dd) <= 0.02 * sqrt(zz));
    printf("\n    AUTO levels:");
    for (int l = 0; l < H->nlev; l++) printf(" %s", mix_prec_name(St[0][l].prec));
    printf(", V-cycle vs FP64's %.1e", sqrt(dd / zz));
    free(b), free(x), free(z[0]), free(z[1]);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* AUTO's hierarchy keeps the fine storage it was made in: a later AUTO solve on the same A whose
 * rule would pick another storage (here MIXSOLVE_SPMV_RATES changed between the calls) ran the
 * set made first but reported the new pick as its stage's storage. */
static void test_auto_set_reported(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(70, &A), MIX_SUCCESS); /* n >= 4096: AUTO measures */
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    const int n = A.nrows;
    double *b = mixt_dalloc((size_t)n), *x[2] = {mixt_dalloc((size_t)n), mixt_dalloc((size_t)n)};
    rhs(n, 17, b);
    const char *old = getenv("MIXSOLVE_SPMV_RATES");
    char *saved = old ? strdup(old) : NULL;
    static const char *rates[2] = {"fixed16=10,fp32=1,fp64=1", "fixed16=1,fp32=10,fp64=1"};
    mix_cg_info info[2];
    for (int k = 0; k < 2; k++) {
        setenv("MIXSOLVE_SPMV_RATES", rates[k], 1);
        CU_ASSERT_EQUAL(solve(ctx, S, &A, MIX_PREC_AUTO, MIX_PRECOND_AMG, b, x[k], &info[k]), MIX_SUCCESS);
    }
    if (saved) setenv("MIXSOLVE_SPMV_RATES", saved, 1);
    else unsetenv("MIXSOLVE_SPMV_RATES");
    free(saved);
    const mixi_amg *H = S->amg;
    CU_ASSERT_PTR_NOT_NULL_FATAL(H);
    CU_ASSERT_PTR_NOT_NULL_FATAL(H->stored_auto);
    for (int k = 0; k < 2; k++) CU_ASSERT_EQUAL(info[k].stage_prec[0], H->stored_auto[0].prec);
    CU_ASSERT_EQUAL(info[1].iter, info[0].iter);
    CU_ASSERT(memcmp(x[0], x[1], (size_t)n * sizeof(double)) == 0);
    free(b), free(x[0]), free(x[1]);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* The cycle with two coarse corrections below the fine level is still a symmetric operator
 * (<M u, v> = <u, M v> to FP64 rounding, FP64 storage), and converges faster than one
 * correction did: 2-D Poisson 400^2 (4 levels, the coarsest factored; level 2 a ninth of level
 * 1's entries, so level 1 corrects twice) took 14 iterations with a V-cycle, 13 now. */
static void test_cycle_symmetric(void)
{
    mixm_csr A;
    CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson2d(400, &A), MIX_SUCCESS);
    mix_context *ctx = mixt_context();
    mix_sparse *S = mixt_sparse(ctx, &A);
    const int n = A.nrows;
    double *u = mixt_dalloc((size_t)n), *v = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n);
    double *mu = mixt_dalloc((size_t)n), *mv = mixt_dalloc((size_t)n);
    rhs(n, 21, u), rhs(n, 22, v);
    mix_cg_info info;
    CU_ASSERT_EQUAL_FATAL(solve(ctx, S, &A, MIX_FP64, MIX_PRECOND_AMG, u, x, &info), MIX_SUCCESS);
    CU_ASSERT(info.iter <= 13);
    mixi_amg *H = S->amg;
    CU_ASSERT_FATAL(H != NULL);
    CU_ASSERT(H->nlev >= 4 && H->coarse_direct); /* level 1 makes two corrections */
    CU_ASSERT(4 * H->lev[2].nnz <= H->lev[1].nnz);
    const mixi_amg_stored *St;
    CU_ASSERT_EQUAL_FATAL(mixi_amg_stored_get(S, H, MIX_FP64, &St), MIX_SUCCESS);
    mixi_amg_cycle C;
    CU_ASSERT_EQUAL_FATAL(mixi_amg_cycle_init(&C, ctx, H, St, H->scale[0], MIX_FP64), MIX_SUCCESS);
    CU_ASSERT_EQUAL(cycle_apply_host(ctx, &C, u, mu, n), MIX_SUCCESS);
    CU_ASSERT_EQUAL(cycle_apply_host(ctx, &C, v, mv, n), MIX_SUCCESS);
    mixi_amg_cycle_free(&C);
    double muv = 0.0, umv = 0.0, scale = 0.0;
    for (int i = 0; i < n; i++) {
        muv += mu[i] * v[i], umv += u[i] * mv[i];
        scale += fabs(mu[i] * v[i]) + fabs(u[i] * mv[i]);
    }
    CU_ASSERT(fabs(muv - umv) <= 1e-12 * scale);
    printf("\n    poisson2d 400^2: %d iterations, %d levels, <Mu,v> - <u,Mv> %.1e of %.1e",
           info.iter, H->nlev, muv - umv, scale);
    free(u), free(v), free(x), free(mu), free(mv);
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    mixm_csr_free(&A);
}

/* A solve on a fresh matrix gives the same bits on 1, 2 and 3 threads: the CPU kernels' FP64
 * sums and the set-up's Lanczos sums add fixed chunks in order (lib/core/det_sum.h), where
 * an OpenMP reduction adds three or more threads' partials in their arrival order.  AMG-PCG in
 * FIXED16 on 3-D Poisson 70^3 (2.4 million entries: the set-up's passes on the threads too),
 * Jacobi CG in FP64 on 24^3. */
static void test_thread_bits(void)
{
#ifdef _OPENMP
    const int keep = omp_get_max_threads();
#endif
    for (int c = 0; c < 2; c++) {
        mixm_csr A;
        CU_ASSERT_EQUAL_FATAL(mixm_gen_poisson3d(c ? 24 : 70, &A), MIX_SUCCESS);
        const int n = A.nrows;
        double *b = mixt_dalloc((size_t)n), *x[3];
        rhs(n, 31, b);
        int iter[3], atomics = 0;
        for (int t = 0; t < 3; t++) {
#ifdef _OPENMP
            omp_set_num_threads(t + 1);
#endif
            mix_context *ctx = mixt_context();
            mix_sparse *S = mixt_sparse(ctx, &A);
            mix_cg_info info;
            x[t] = mixt_dalloc((size_t)n);
            CU_ASSERT_EQUAL(solve(ctx, S, &A, c ? MIX_FP64 : MIX_FIXED16,
                                  c ? MIX_PRECOND_JACOBI : MIX_PRECOND_AMG, b, x[t], &info),
                            MIX_SUCCESS);
            iter[t] = info.iter;
            if (S->amg) atomics |= restricts_by_atomics(S->amg, S->amg->stored[MIX_FIXED16]);
            mix_sparse_destroy(S);
            mix_context_destroy(ctx);
        }
        for (int t = 1; t < 3; t++) {
            CU_ASSERT_EQUAL(iter[t], iter[0]);
            same_answer(x[0], x[t], n, atomics);
        }
        printf("\n    %s on 1, 2, 3 threads: %d %d %d iterations", c ? "Jacobi CG 24^3" : "AMG 70^3",
               iter[0], iter[1], iter[2]);
        free(b), free(x[0]), free(x[1]), free(x[2]);
        mixm_csr_free(&A);
    }
#ifdef _OPENMP
    omp_set_num_threads(keep);
#endif
}


/* mix_dcg(3): with escalation a system of fewer than 32 rows runs in FP64 from the start, AMG
 * too.  LF10 (n = 18) with AMG in FP32 storage ran an FP32 stage (the probe); now every storage
 * asked for reports one FP64 stage, and without escalation the storage asked for. */
static void test_small_fp64(void)
{
    mixt_cg_sys f;
    mixt_cg_open_bundled(&f, "LF10.mtx");
    for (int i = 0; i < f.A.nrows; i++) f.b[i] = 1.0 + 0.01 * i;
    for (int t = 0; t < NST; t++) {
        mix_cg_params p = mixt_cg_params(storages[t], MIX_PRECOND_AMG);
        mix_cg_info info;
        CU_ASSERT_EQUAL(mix_dcg(f.ctx, &p, f.S, f.b, f.x, &info), MIX_SUCCESS);
        CU_ASSERT_EQUAL(info.stages, 1);
        CU_ASSERT_EQUAL(info.stage_prec[0], MIX_FP64);
        CU_ASSERT(mixt_cg_true_rel(&f.A, f.b, f.x) <= p.tol);
        if (storages[t] == MIX_FP64 || storages[t] == MIX_PREC_AUTO) continue;
        p.escalate = 0;
        CU_ASSERT_EQUAL(mix_dcg(f.ctx, &p, f.S, f.b, f.x, &info), MIX_SUCCESS);
        CU_ASSERT_EQUAL(info.stage_prec[0], storages[t]);
    }
    mixt_cg_close(&f);
}

static const mixt_test amg_tests[] = {
    {"3D Poisson: AMG-PCG in every storage to 1e-10, <= 0.3x Jacobi CG's iterations", test_poisson3d},
    {"2D Poisson: AMG-PCG in every storage, <= 0.2x Jacobi CG's iterations", test_poisson2d},
    {"anisotropic 3D and 2D (1e-3): AMG-PCG converges, few iterations", test_anisotropic},
    {"SuiteSparse SPD set: AMG-PCG converges wherever Jacobi CG does, no more iterations",
     test_suitesparse},
    {"hierarchy cached on the matrix: same object, same iterations, same bits", test_reuse},
    {"negative diagonal and indefinite A: NOT_SPD in every storage", test_not_spd},
    {"singular, inconsistent A (AMG, Jacobi): not converged, the best x seen, its residual",
     test_inconsistent},
    {"NaN/Inf in b, zero b, bad preconditioner, iteration limit", test_errors},
    {"1138_bus, b not A 1: a stalled storage hands over, the best x, no NaN",
     test_stalled_storage_escalates},
    {"tolerance below FP64's floor: STAGNATED there in every storage, not max_iter",
     test_floor_stop},
    {"x0 already converged: success, no iteration, every storage", test_x0_converged},
    {"aggregation: every row aggregated or without strong couplings", test_aggregation},
    {"prolongator: tentative part a partition of unity, smoothed = (I - w D^-1 A_F) T", test_prolongator},
    {"implicit prolongator (I - w A^) Th: the explicit P's product, the same coarse operator",
     test_implicit_prolongator},
    {"tentative transfers on the backend: Th^T x and x += Th y, exact bits, FP32 and FP64",
     test_tent_transfers},
    {"Galerkin product P^T (A P) agrees with the dense triple product", test_galerkin},
    {"product A A of 3-D Poisson 20^3 (several row blocks) row by row against a dense one", test_product_blocks},
    {"Galerkin product through the reservation: R (A P)'s bits, alloc failures, fallback", test_galerkin_reserved},
    {"transpose: the dense transpose, rows sorted, with 1, 2 and 3 threads", test_transpose},
    {"power-law graph Laplacian: hierarchy <= 2x the fine entries, converges in every storage",
     test_power_law},
    {"coarsest Cholesky by its envelope: a diagonal A's n values, a dense factor's bits",
     test_coarse_envelope},
    {"lambda_max: below the true one and within the margin, early stop or not", test_lmax},
    {"3-D Poisson 40^3: <= 14 iterations, operator complexity <= 1.5", test_poisson_bound},
    {"cycle with two coarse corrections below the fine level: symmetric, fewer iterations",
     test_cycle_symmetric},
    {"the same bits on 1, 2 and 3 threads: AMG-PCG (set-up included) and Jacobi CG",
     test_thread_bits},
    {"per-level AUTO: the pick from SpMV times (FP32 where it wins), 16 bits only where fit",
     test_level_pick},
    {"AUTO hierarchy: fine level CG's AUTO, coarser ones it or FP32, V-cycle near FP64's",
     test_auto_levels},
    {"AUTO hierarchy kept: a later AUTO solve reports the storage its set was made in",
     test_auto_set_reported},
    {"n < 32 with escalation: FP64 from the start (LF10), the storage asked for without",
     test_small_fp64},
    {NULL, NULL},
};

void mixt_register_amg(mix_backend b)
{
    /* The set-up reads the matrix on the host through csr_export, which both backends have. */
    mixt_add_backend_suite(b, "amg", amg_tests);
}
