/* test_sparse_lu.c: mix_dgesv_sparse per backend: bundled general matrices, convection-diffusion, many right-hand sides, singular and NaN input, FP32 overflow and breakdown, arguments. */
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "tests/mixt.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"
#include "matrices/mmio.h"
#include "solvers/sparse_lu/sparse_lu.h"
#include "kernels/cpu/sparse_lu_klu.h"

/* The acceptance of the issue: a backward error of at most 1e-12 on every matrix. */
#define BERR_TARGET 1e-12

/* Whether mixt_backend has the sparse direct family; where it has none it must say so. */
static int have_splu(mix_context *ctx)
{
    int64_t rp[2] = {0, 1};
    int32_t ci[1] = {0};
    double v[1] = {2.0}, b[1] = {1.0}, x[1] = {0.0};
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, 1, rp, ci, v, &A), MIX_SUCCESS);
    int st = mix_dgesv_sparse(ctx, NULL, A, 1, b, 1, x, 1, NULL);
    mix_sparse_destroy(A);
    if (st == MIX_ERR_UNSUPPORTED) {
#if HAVE_MUMPS
        CU_ASSERT_NOT_EQUAL(mixt_backend, MIX_BACKEND_CPU);
#endif
        return 0;
    }
    CU_ASSERT_EQUAL(st, MIX_SUCCESS);
    CU_ASSERT_EQUAL(x[0], 0.5);
    return 1;
}

/* The CPU backend's test hook: 0 keeps its FP64 factors in MUMPS, 1 lets KLU take them. */
static void use_klu(int use)
{
#if HAVE_MUMPS
    if (mixt_backend == MIX_BACKEND_CPU) mixi_cpu_splu_use_klu(use);
#else
    (void)use;
#endif
}

/* B (ldb x nrhs) with columns from a seeded generator. */
static double *rhs_block(int nrhs, int ldb, uint64_t seed)
{
    double *b = mixt_rand64((size_t)ldb * nrhs, seed);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    return b;
}

/* Solves A X = B with p and re-checks every column in FP64 (libmixmat's residual, not the
 * library's); returns the status and writes the largest backward error to *berr. */
static int solve_check(mix_context *ctx, const mixm_csr *M, const mix_gesv_params *p, int nrhs,
                       mix_gesv_info *info, double *berr)
{
    const int n = M->nrows, ld = n + 3;
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, M->rowptr, M->colind, M->val, &A), 0);
    double *b = rhs_block(nrhs, ld, 7 + (uint64_t)n), *x = mixt_dalloc((size_t)ld * nrhs);
    int st = mix_dgesv_sparse(ctx, p, A, nrhs, b, ld, x, ld, info);
    *berr = 0.0;
    for (int j = 0; st == MIX_SUCCESS && j < nrhs; j++) {
        double be = NAN;
        CU_ASSERT_EQUAL(mixm_csr_recheck(M, b + (size_t)j * ld, x + (size_t)j * ld, &be, NULL), 0);
        if (!(be <= *berr)) *berr = be;
    }
    /* The library's own measure agrees with the independent one (same order of magnitude). */
    if (st == MIX_SUCCESS) CU_ASSERT(info->backward_error <= 4.0 * *berr + 1e-18);
    mix_sparse_destroy(A);
    free(b);
    free(x);
    return st;
}

static void test_convdiff(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    mixm_csr M = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff3d(14, 100.0, 50.0, 25.0, &M), 0);
    const mix_refine modes[] = {MIX_REFINE_CLASSICAL, MIX_REFINE_GMRES, MIX_REFINE_AUTO};
    for (int m = 0; m < 3; m++) {
        mix_gesv_params p = mixt_params(MIX_FP32, modes[m]);
        mix_gesv_info info;
        double berr;
        CU_ASSERT_EQUAL(solve_check(ctx, &M, &p, 1, &info, &berr), MIX_SUCCESS);
        /* A well-conditioned problem: FP32 factors, no fallback, LAPACK's test met. */
        CU_ASSERT(info.iter >= 1 && info.fell_back == 0);
        CU_ASSERT_EQUAL(info.factor_prec_used, MIX_FP32);
        CU_ASSERT(berr <= mixt_berr_bound(M.nrows));
        CU_ASSERT(modes[m] != MIX_REFINE_GMRES || info.inner_iter >= info.iter);
    }
    mix_gesv_params p = mixt_params(MIX_FP64, MIX_REFINE_AUTO);
    mix_gesv_info info;
    double berr;
    CU_ASSERT_EQUAL(solve_check(ctx, &M, &p, 1, &info, &berr), MIX_SUCCESS);
    CU_ASSERT(info.iter == -1 && info.reason == MIX_REASON_DIRECT);
    CU_ASSERT_EQUAL(info.factor_prec_used, MIX_FP64);
    CU_ASSERT(berr <= mixt_berr_bound(M.nrows));
    mixm_csr_free(&M);
    mix_context_destroy(ctx);
}

static void test_multiple_rhs(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    mixm_csr M = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff3d(9, -30.0, 80.0, 5.0, &M), 0);
    const mix_prec precs[] = {MIX_FP32, MIX_FP64, MIX_PREC_AUTO};
    for (int k = 0; k < 3; k++) {
        mix_gesv_params p = mixt_params(precs[k], MIX_REFINE_AUTO);
        mix_gesv_info info;
        double berr;
        CU_ASSERT_EQUAL(solve_check(ctx, &M, &p, 5, &info, &berr), MIX_SUCCESS);
        CU_ASSERT(berr <= mixt_berr_bound(M.nrows));
    }
    mixm_csr_free(&M);
    mix_context_destroy(ctx);
}

/* One bundled file: a general square matrix solved in FP32 (falling back where it must) and
 * by AUTO, both to the target; returns 1 if it was one. */
static int check_file(mix_context *ctx, const char *path)
{
    mixm_csr M = {0};
    char err[256];
    if (mixm_mtx_read(path, &M, NULL, err, sizeof err) || M.nrows != M.ncols ||
        mixm_csr_is_symmetric(&M)) {
        mixm_csr_free(&M);
        return 0;
    }
    const mix_prec precs[] = {MIX_FP32, MIX_PREC_AUTO};
    for (int k = 0; k < 2; k++) {
        mix_gesv_params p = mixt_params(precs[k], MIX_REFINE_AUTO);
        mix_gesv_info info;
        double berr = NAN;
        int st = solve_check(ctx, &M, &p, 2, &info, &berr);
        if (st != MIX_SUCCESS || !(berr <= BERR_TARGET))
            printf("\n  %s (%s): status %d, backward error %.3g\n", path,
                   mix_prec_name(precs[k]), st, berr);
        CU_ASSERT_EQUAL(st, MIX_SUCCESS);
        CU_ASSERT(berr <= BERR_TARGET);
        /* An FP32 attempt either converged or says why it fell back. */
        CU_ASSERT(info.iter >= 0 ? info.fell_back == 0 && info.factor_prec_used == MIX_FP32
                                 : info.fell_back == 1 && info.factor_prec_used == MIX_FP64);
    }
    mixm_csr_free(&M);
    return 1;
}

static void test_bundled(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    DIR *d = opendir(mixt_matrix_dir());
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int general = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strstr(e->d_name, ".mtx")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", mixt_matrix_dir(), e->d_name);
        general += check_file(ctx, path);
    }
    closedir(d);
    CU_ASSERT(general >= 20); /* the bundled set has this many general matrices */
    mix_context_destroy(ctx);
}

/* A small CSR from a dense row-major n x n array (zeros left out). */
static void csr_of(int n, const double *dense, mixm_csr *M)
{
    int64_t nnz = 0;
    for (int k = 0; k < n * n; k++) nnz += dense[k] != 0.0;
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(M, n, n, nnz), 0);
    int64_t t = 0;
    for (int i = 0; i < n; i++) {
        M->rowptr[i] = t;
        for (int j = 0; j < n; j++)
            if (dense[i * n + j] != 0.0) {
                M->colind[t] = j;
                M->val[t++] = dense[i * n + j];
            }
    }
    M->rowptr[n] = t;
}

static int solve_dense_case(mix_context *ctx, int n, const double *dense, mix_prec prec,
                            int fallback, mix_gesv_info *info, double *berr)
{
    mixm_csr M = {0};
    csr_of(n, dense, &M);
    mix_gesv_params p = mixt_params(prec, MIX_REFINE_AUTO);
    p.fallback = fallback;
    int st = solve_check(ctx, &M, &p, 1, info, berr);
    mixm_csr_free(&M);
    return st;
}

static void test_singular(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    /* Structurally singular: column 2 is empty. */
    const double structural[9] = {1, 2, 0, 3, 4, 0, 5, 6, 0};
    /* Numerically singular: rows 1 and 3 equal (exactly singular whatever the scaling). */
    const double numerical[9] = {2, 1, 1, 1, 3, 2, 2, 1, 1};
    const mix_prec precs[] = {MIX_FP32, MIX_FP64, MIX_PREC_AUTO};
    for (int k = 0; k < 3; k++) {
        mix_gesv_info info;
        double berr;
        CU_ASSERT_EQUAL(solve_dense_case(ctx, 3, structural, precs[k], 1, &info, &berr),
                        MIX_ERR_SINGULAR);
        CU_ASSERT_EQUAL(info.status, MIX_ERR_SINGULAR);
        CU_ASSERT(isnan(info.backward_error)); /* no X: not 0, "exact" */
        /* Found by the FP64 analysis before AUTO chose: FP64, never AUTO (it read 256). */
        CU_ASSERT_EQUAL(info.factor_prec_used, precs[k] == MIX_PREC_AUTO ? MIX_FP64 : precs[k]);
        CU_ASSERT_EQUAL(solve_dense_case(ctx, 3, numerical, precs[k], 1, &info, &berr),
                        MIX_ERR_SINGULAR);
        CU_ASSERT(isnan(info.backward_error));
        CU_ASSERT(info.factor_prec_used == MIX_FP32 || info.factor_prec_used == MIX_FP64);
    }
    mix_context_destroy(ctx);
}

static void test_fp32_overflow_and_breakdown(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    /* Entries beyond FP32's range: the FP32 attempt cannot start; FP64 solves it. */
    const double big[4] = {1e39, 1.0, 1.0, 1e39};
    mix_gesv_info info;
    double berr;
    CU_ASSERT_EQUAL(solve_dense_case(ctx, 2, big, MIX_FP32, 1, &info, &berr), MIX_SUCCESS);
    CU_ASSERT(info.fell_back == 1 && info.reason == MIX_REASON_OVERFLOW && info.iter == -2);
    CU_ASSERT(berr <= BERR_TARGET);
    CU_ASSERT_EQUAL(solve_dense_case(ctx, 2, big, MIX_FP32, 0, &info, &berr), MIX_ERR_OVERFLOW);
    /* fallback = 0: no FP64 factors ran, so the record must not say they did. */
    CU_ASSERT(info.fell_back == 0 && info.reason == MIX_REASON_OVERFLOW && info.iter == -2);
    CU_ASSERT(isnan(info.backward_error)); /* X untouched: not 0, "exact" */
    /* Singular once rounded to FP32 (1 + 2^-30 is 1 there), well-posed in FP64: the FP32
     * factors break down or cannot refine; either way the answer is FP64's, and says so. */
    const double near[9] = {1, 1, 0, 1, 1 + 0x1p-30, 0, 0, 0, 1};
    CU_ASSERT_EQUAL(solve_dense_case(ctx, 3, near, MIX_FP32, 1, &info, &berr), MIX_SUCCESS);
    CU_ASSERT(info.fell_back == 1 && info.iter < 0 && info.factor_prec_used == MIX_FP64);
    CU_ASSERT(info.reason == MIX_REASON_FACTOR_FAILED ||
              info.reason == MIX_REASON_NOT_CONVERGED ||
              info.reason == MIX_REASON_NAN_IN_REFINEMENT);
    CU_ASSERT(berr <= BERR_TARGET);
    CU_ASSERT_NOT_EQUAL(solve_dense_case(ctx, 3, near, MIX_FP32, 0, &info, &berr), MIX_SUCCESS);
    mix_context_destroy(ctx);
}

/* Columns of B far from 1 (zero, 1e-250, 1e-30, 1e40, 1e250) and a matrix scaled by 1e30 or
 * 1e37: the FP32 factors solve them all (their correction solves scale each column), each
 * column to its own backward error, the padding of X untouched.  Unscaled, residuals under
 * FP32's range were flushed to zero and those above it became Inf: FP64 fallbacks. */
static void test_rhs_scales(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    mixm_csr M = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff3d(5, 20.0, -10.0, 5.0, &M), 0);
    const int n = M.nrows, ld = n + 2, nrhs = 5;
    const double scale[5] = {0.0, 1e-250, 1e-30, 1e40, 1e250}; /* x representable */
    const double ascale[3] = {1.0, 1e30, 1e37};
    double *b = rhs_block(nrhs, ld, 11), *x = mixt_dalloc((size_t)ld * nrhs);
    for (int s = 0; s < 3; s++) {
        for (int64_t k = 0; k < M.rowptr[n]; k++) M.val[k] *= ascale[s] / (s ? ascale[s - 1] : 1);
        mix_sparse *A = NULL;
        CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, M.rowptr, M.colind, M.val, &A), 0);
        for (int j = 0; j < nrhs; j++)
            for (int i = 0; i < ld; i++) {
                b[(size_t)j * ld + i] = i < n ? scale[j] * (1.0 + 0.5 * sin(i + j)) : NAN;
                x[(size_t)j * ld + i] = NAN;
            }
        mix_gesv_params p = mixt_params(MIX_FP32, MIX_REFINE_CLASSICAL);
        mix_gesv_info info;
        CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, &p, A, nrhs, b, ld, x, ld, &info), MIX_SUCCESS);
        CU_ASSERT(info.iter >= 0 && info.fell_back == 0 && info.factor_prec_used == MIX_FP32);
        for (int j = 0; j < nrhs; j++) {
            const double *bj = b + (size_t)j * ld, *xj = x + (size_t)j * ld;
            double be = NAN;
            CU_ASSERT_EQUAL(mixm_csr_recheck(&M, bj, xj, &be, NULL), 0);
            CU_ASSERT(be <= mixt_berr_bound(n));
            CU_ASSERT(j > 0 || x[0] == 0.0);
            CU_ASSERT(isnan(xj[n]) && isnan(xj[n + 1]));
        }
        mix_sparse_destroy(A);
    }
    free(b);
    free(x);
    mixm_csr_free(&M);
    mix_context_destroy(ctx);
}

/* One FP64 3 x 3 system a * tridiag(1, 4, 1) x = b, FP32 and FP64 factors: the status. */
static int solve_scaled(mix_context *ctx, double a, const double *b, int nrhs, mix_prec prec,
                        double *x, mix_gesv_info *info)
{
    int64_t rp[4] = {0, 2, 5, 7};
    int32_t ci[7] = {0, 1, 0, 1, 2, 1, 2};
    double v[7] = {4 * a, a, a, 4 * a, a, a, 4 * a};
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, 3, rp, ci, v, &A), 0);
    mix_gesv_params p = mixt_params(prec, MIX_REFINE_AUTO);
    int st = mix_dgesv_sparse(ctx, &p, A, nrhs, b, 3, x, 3, info);
    mix_sparse_destroy(A);
    return st;
}

/* Solutions beyond FP64's range, as mix_dgesv_ir(3) reports them: one that overflows is
 * MIX_ERR_OVERFLOW (was MIX_ERR_SINGULAR, A being well-conditioned), one that underflows to 0
 * or to subnormals that lost the tolerance's digits MIX_ERR_NOT_CONVERGED (was a success with
 * backward error 1); a column far from 1 that FP64 holds is solved. */
static void test_solution_range(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    const double over[3] = {1e300, 2e300, 3e300}, under[3] = {1e-300, 2e-300, 3e-300};
    const double mixed[6] = {1.0, 2.0, 3.0, 1e-310, 2e-310, 3e-310};
    const double fine[6] = {1e-300, 2e-300, 3e-300, 1e300, 2e300, 3e300};
    const mix_prec precs[2] = {MIX_FP32, MIX_FP64};
    for (int k = 0; k < 2; k++) {
        double x[6];
        mix_gesv_info info;
        CU_ASSERT_EQUAL(solve_scaled(ctx, 1e-30, over, 1, precs[k], x, &info), MIX_ERR_OVERFLOW);
        CU_ASSERT(isinf(info.backward_error) && isinf(x[0]) && isinf(x[2]));
        CU_ASSERT_EQUAL(solve_scaled(ctx, 1e30, under, 1, precs[k], x, &info),
                        MIX_ERR_NOT_CONVERGED);
        CU_ASSERT(info.backward_error >= 0.5);
        CU_ASSERT_EQUAL(solve_scaled(ctx, 1.0, mixed, 2, precs[k], x, &info),
                        MIX_ERR_NOT_CONVERGED);
        /* The well-scaled column is right all the same. */
        CU_ASSERT(fabs(4 * x[0] + x[1] - 1.0) <= 1e-15 && fabs(x[1] + 4 * x[2] - 3.0) <= 1e-15);
        CU_ASSERT_EQUAL(solve_scaled(ctx, 1.0, fine, 2, precs[k], x, &info), MIX_SUCCESS);
        CU_ASSERT(info.backward_error <= 1e-15);
        CU_ASSERT(fabs(4 * x[3] + x[4] - 1e300) <= 1e285 && fabs(x[1] * 1e300 - 2.0 / 7) <= 1e-15);
    }
    /* Without fallback, a refinement stopped early returns its last iterate in the caller's
     * units too (it came back as b 2^-k's solution, 1e300 times too large). */
    mix_gesv_params p = mixt_params(MIX_FP32, MIX_REFINE_CLASSICAL);
    p.fallback = 0;
    p.max_iter = 0; /* the FP32 solve alone: not FP64-accurate */
    int64_t rp[4] = {0, 2, 5, 7};
    int32_t ci[7] = {0, 1, 0, 1, 2, 1, 2};
    double v[7] = {4, 1, 1, 4, 1, 1, 4}, x[3];
    mix_sparse *A = NULL;
    mix_gesv_info info;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, 3, rp, ci, v, &A), 0);
    const int st = mix_dgesv_sparse(ctx, &p, A, 1, under, 3, x, 3, &info);
    CU_ASSERT(st == MIX_ERR_NOT_CONVERGED || st == MIX_SUCCESS);
    CU_ASSERT(fabs(x[1] * 1e300 - 2.0 / 7) <= 1e-6);
    mix_sparse_destroy(A);
    mix_context_destroy(ctx);
}

/* Matrices near FP64's ends are solved scaled by a power of two (mix_dgesv_ir's range
 * scaling): entries of 1.5e308, ||A||inf beyond DBL_MAX, were called singular with NaN written
 * into x; entries of 1e-300 (FP32 cannot hold them as given) now refine with FP32 factors.  An
 * entry beyond FLT_MAX still means the FP32 attempt cannot start (reason OVERFLOW). */
static void test_matrix_range(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    const double huge[9] = {1.5e308, 1e308, 0.3e308, 1e308, -1.2e308, 1e308, 0.5e308, 1e308,
                            1.6e308};
    const double tiny[9] = {4e-300, 1e-300, 0, 1e-300, 4e-300, 1e-300, 0, 2e-300, 4e-300};
    const mix_prec precs[2] = {MIX_FP32, MIX_FP64};
    mixm_csr M = {0};
    csr_of(3, huge, &M);
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, 3, M.rowptr, M.colind, M.val, &A), 0);
    for (int k = 0; k < 2; k++) {
        mix_gesv_info info;
        double berr = NAN;
        mix_gesv_params p = mixt_params(precs[k], MIX_REFINE_AUTO);
        const double b[3] = {1e308, 0.0, -1e308}; /* x of order 1 */
        double x[3];
        CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, &p, A, 1, b, 3, x, 3, &info), MIX_SUCCESS);
        CU_ASSERT(mixm_csr_recheck(&M, b, x, &berr, NULL) == 0 && berr <= mixt_berr_bound(3));
        CU_ASSERT(k == 1 || (info.reason == MIX_REASON_OVERFLOW && info.iter == -2));
        CU_ASSERT_EQUAL(solve_dense_case(ctx, 3, tiny, precs[k], 1, &info, &berr), MIX_SUCCESS);
        CU_ASSERT(berr <= mixt_berr_bound(3));
        CU_ASSERT(k == 1 || (info.iter >= 0 && info.factor_prec_used == MIX_FP32));
    }
    mix_sparse_destroy(A);
    mixm_csr_free(&M);
    mix_context_destroy(ctx);
}

static void test_nan_rhs(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    mixm_csr M = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff3d(4, 1.0, 2.0, 3.0, &M), 0);
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, M.nrows, M.rowptr, M.colind, M.val, &A), 0);
    const int n = M.nrows;
    double *b = rhs_block(2, n, 3), *x = mixt_dalloc((size_t)2 * n);
    b[n + 5] = NAN;
    x[0] = 42.0;
    mix_gesv_info info;
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 2, b, n, x, n, &info), MIX_ERR_NAN);
    CU_ASSERT_EQUAL(info.status, MIX_ERR_NAN);
    CU_ASSERT_EQUAL(info.factor_prec_used, MIX_FP64); /* AUTO by default: never reported */
    CU_ASSERT_EQUAL(x[0], 42.0); /* nothing written */
    b[n + 5] = INFINITY;
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 2, b, n, x, n, &info), MIX_ERR_NAN);
    /* NaN in A is refused when the matrix is made. */
    M.val[3] = NAN;
    mix_sparse *B = NULL;
    CU_ASSERT_EQUAL(mix_sparse_create_csr(ctx, n, M.rowptr, M.colind, M.val, &B), MIX_ERR_NAN);
    mix_sparse_destroy(A);
    mixm_csr_free(&M);
    free(b);
    free(x);
    mix_context_destroy(ctx);
}

/* A factor precision of the dense drivers that this driver refuses (neither FP32 nor FP64). */
static mix_prec narrow_factor_prec(void)
{
    mixt_prec_set set = mixt_precs(MIX_ROLE_FACTOR, 1);
    for (int k = 0; k < set.n; k++)
        if (set.p[k] != MIX_FP32) return set.p[k];
    return (mix_prec)42;
}

static void test_args_and_memory(void)
{
    mix_context *ctx = mixt_context(), *other = mixt_context();
    mixm_csr M = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff3d(10, 10.0, 0.0, -10.0, &M), 0);
    const int n = M.nrows;
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, M.rowptr, M.colind, M.val, &A), 0);
    double *b = rhs_block(1, n, 5), *x = mixt_dalloc((size_t)n);
    mix_gesv_params p;
    CU_ASSERT_EQUAL(mix_dgesv_sparse(NULL, NULL, A, 1, b, n, x, n, NULL), -1);
    for (int k = 0; mixt_bad_params(k, &p); k++)
        CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, &p, A, 1, b, n, x, n, NULL), -2);
    p = mixt_params(narrow_factor_prec(), MIX_REFINE_AUTO); /* not one of this driver */
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, &p, A, 1, b, n, x, n, NULL), -2);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, NULL, 1, b, n, x, n, NULL), -3);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(other, NULL, A, 1, b, n, x, n, NULL), -3);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, -1, b, n, x, n, NULL), -4);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 1, NULL, n, x, n, NULL), -5);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 1, b, n - 1, x, n, NULL), -6);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 1, b, n, NULL, n, NULL), -7);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 1, b, n, x, n - 1, NULL), -8);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 0, b, n, x, n, NULL), MIX_SUCCESS);
    /* An illegal argument writes nothing, info included (mix_dgesv_sparse(3)); the record was
     * zeroed and given the status before the checks. */
    mix_gesv_info info = {.status = 1234, .iter = 77};
    CU_ASSERT_EQUAL(mix_dgesv_sparse(NULL, NULL, A, 1, b, n, x, n, &info), -1);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, -1, b, n, x, n, &info), -4);
    CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 1, b, n, x, n - 1, &info), -8);
    CU_ASSERT(info.status == 1234 && info.iter == 77);
    int64_t f32 = 0, f64 = 0, peak32 = 0, peak64 = 0;
    CU_ASSERT_EQUAL(mix_sparse_lu_memory(ctx, A, narrow_factor_prec(), &f32, &peak32), -3);
    if (have_splu(ctx)) {
        /* Whatever library factors FP64 (KLU where little fill is predicted): some bytes, and
         * a peak that held them. */
        CU_ASSERT_EQUAL(mix_sparse_lu_memory(ctx, A, MIX_FP64, &f64, &peak64), MIX_SUCCESS);
        CU_ASSERT(f64 > 0 && peak64 >= f64);
        use_klu(0);
        CU_ASSERT_EQUAL(mix_sparse_lu_memory(ctx, A, MIX_FP32, &f32, &peak32), MIX_SUCCESS);
        CU_ASSERT_EQUAL(mix_sparse_lu_memory(ctx, A, MIX_FP64, &f64, &peak64), MIX_SUCCESS);
        use_klu(1);
        /* One library, the same analysis: FP32 values take half the bytes, the indices the
         * same. */
        CU_ASSERT(f32 > 0 && f32 < f64 && 2 * f32 >= f64);
        /* In place: x = b. */
        memcpy(x, b, (size_t)n * sizeof *x);
        CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, NULL, A, 1, x, n, x, n, NULL), MIX_SUCCESS);
        double be = NAN;
        CU_ASSERT_EQUAL(mixm_csr_recheck(&M, b, x, &be, NULL), 0);
        CU_ASSERT(be <= mixt_berr_bound(n));
    }
    mix_sparse_destroy(A);
    mixm_csr_free(&M);
    free(b);
    free(x);
    mix_context_destroy(other);
    mix_context_destroy(ctx);
}

/* One solve of A X = B (k columns of a random B, leading dimension ld) with F's factors of prec
 * through the backend's table, no refinement, B and X staged through backend memory (the
 * table's solve takes them there: host memory only on the CPU).  The largest backward error of
 * the columns, rechecked in FP64; NaN when a step failed. */
static double table_solve_berr(mix_context *ctx, mixi_splu *F, mix_prec prec, const mixm_csr *M,
                               int k, int ld, uint64_t seed)
{
    const size_t bytes = (size_t)ld * k * sizeof(double);
    double *b = rhs_block(k, ld, seed), *x = mixt_dalloc((size_t)ld * k);
    double *db = mixt_put(ctx, b, bytes), *dx = mixt_put(ctx, NULL, bytes), worst = NAN;
    CU_ASSERT_FATAL(db && dx);
    if (!ctx->ops->sparse_lu->solve(ctx->state, F, prec, k, db, ld, dx, ld) &&
        mixt_get(ctx, x, dx, bytes) == MIX_SUCCESS) {
        worst = 0.0;
        for (int j = 0; j < k; j++) {
            double be = NAN;
            CU_ASSERT_EQUAL(mixm_csr_recheck(M, b + (size_t)j * ld, x + (size_t)j * ld, &be, NULL), 0);
            if (!(be <= worst)) worst = be;
        }
    }
    mixt_drop(ctx, db);
    mixt_drop(ctx, dx);
    free(b);
    free(x);
    return worst;
}

/* One analysis for both precisions, also after a maximum transversal (west0479 needs one):
 * the second instance takes the first's ordering, on A Q when the first permuted columns, and
 * so predicts the same work (the order given to A itself cost west0479 30x); its factors solve
 * A x = b, not A Q y = b. */
static void test_analysis_reuse(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    const mixi_sparse_lu_ops *ops = ctx->ops->sparse_lu;
    use_klu(0); /* MUMPS's FP64 on A Q */
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/west0479.mtx", mixt_matrix_dir());
    mixm_csr M = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(path, &M, NULL, err, sizeof err), 0);
    const int n = M.nrows;
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, M.rowptr, M.colind, M.val, &A), 0);
    for (int first = 0; first < 2; first++) {
        const mix_prec p1 = first ? MIX_FP32 : MIX_FP64, p2 = first ? MIX_FP64 : MIX_FP32;
        mixi_splu *F = NULL;
        int srank = 0;
        double anrm = 0.0;
        int exponent = -1;
        mixi_splu_estimate e1, e2;
        CU_ASSERT_EQUAL_FATAL(ops->analyze(ctx->state, A->a64, &F, &srank, &anrm, &exponent), 0);
        CU_ASSERT_EQUAL(srank, n);
        CU_ASSERT_EQUAL(exponent, 0); /* west0479's entries are within 2^+-64 */
        CU_ASSERT_EQUAL(ops->estimate(ctx->state, F, p1, &e1), 0);
        CU_ASSERT_EQUAL(ops->estimate(ctx->state, F, p2, &e2), 0);
        CU_ASSERT(e1.column_permuted && e2.column_permuted);
        CU_ASSERT(e1.ordering != 1 && e2.ordering == 1); /* MUMPS: 1 = given (PERM_IN) */
        CU_ASSERT(e1.flops > 0.0 && e2.flops <= 1.5 * e1.flops && e1.flops <= 1.5 * e2.flops);
        mixi_splu_outcome outcome = MIXI_SPLU_SINGULAR;
        CU_ASSERT_EQUAL(ops->factor(ctx->state, F, p2, &outcome), 0);
        CU_ASSERT_EQUAL_FATAL(outcome, MIXI_SPLU_OK);
        const double be = table_solve_berr(ctx, F, p2, &M, 1, n, 11);
        CU_ASSERT(be <= (p2 == MIX_FP64 ? 1e-10 : 1e-3)); /* one solve, no refinement */
        ops->destroy(ctx->state, F);
    }
    use_klu(1);
    mix_sparse_destroy(A);
    mixm_csr_free(&M);
    mix_context_destroy(ctx);
}

/* An arrowhead matrix of order n (diagonal n + 1, first row and column ones; dense_row 0 puts
 * the ones in a tridiagonal band instead): MUMPS's AMF ordering takes time quadratic in a dense
 * row's length (6.5-8.3 s at n = 10^5 on the 2-core Xeon, against 0.12 s with QAMD), so a
 * matrix with a row or column denser than AMD's test is ordered by QAMD (MUMPS's code 6); one
 * without keeps AMF (2).  The factors solve it. */
static void test_dense_row_order(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    const mixi_sparse_lu_ops *ops = ctx->ops->sparse_lu;
    const int n = 3000;
    for (int dense_row = 1; dense_row >= 0; dense_row--) {
        mixm_csr M;
        CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(&M, n, n, 3 * (int64_t)n), MIX_SUCCESS);
        int64_t q = 0;
        for (int i = 0; i < n; i++) {
            M.rowptr[i] = q;
            const int lo = dense_row ? 0 : i > 0 ? i - 1 : 0, hi = dense_row && i == 0 ? n - 1 : i + 1;
            for (int j = lo; j <= hi && j < n; j++)
                if (j == i || (dense_row ? i == 0 || j == 0 : 1)) M.colind[q] = j, M.val[q++] = j == i ? n + 1.0 : 1.0;
        }
        M.rowptr[n] = q;
        M.nnz = q;
        mix_sparse *A = NULL;
        CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, M.rowptr, M.colind, M.val, &A), 0);
        mixi_splu *F = NULL;
        int srank = 0, exponent = -1;
        double anrm = 0.0;
        mixi_splu_estimate e;
        CU_ASSERT_EQUAL_FATAL(ops->analyze(ctx->state, A->a64, &F, &srank, &anrm, &exponent), 0);
        CU_ASSERT_EQUAL(ops->estimate(ctx->state, F, MIX_FP32, &e), 0);
        if (mixt_backend == MIX_BACKEND_CPU) CU_ASSERT_EQUAL(e.ordering, dense_row ? 6 : 2);
        mixi_splu_outcome outcome = MIXI_SPLU_SINGULAR;
        CU_ASSERT_EQUAL(ops->factor(ctx->state, F, MIX_FP32, &outcome), 0);
        CU_ASSERT_EQUAL_FATAL(outcome, MIXI_SPLU_OK);
        CU_ASSERT(table_solve_berr(ctx, F, MIX_FP32, &M, 1, n, 13) <= 1e-5);
        ops->destroy(ctx->state, F);
        mix_sparse_destroy(A);
        mixm_csr_free(&M);
    }
    mix_context_destroy(ctx);
}

/* A chain of n unknowns with upwind convection (a nonsymmetric tridiagonal, 3 flops per factor
 * entry: the CPU's FP64 factors come from KLU there, where MUMPS would be the slower) plus a
 * coupling of every 7th unknown to the one 40 further on; singular: "none", "zero column"
 * (column n/2 emptied) or "equal rows" (row n/2 + 1 a copy of row n/2).  Built as CSR: n reaches
 * past the CPU backend's small-matrix analysis (100000 entries). */
enum { CHAIN_REGULAR, CHAIN_ZERO_COLUMN, CHAIN_EQUAL_ROWS };
static void chain_row(int n, int i, int kind, int32_t *col, double *val, int *len)
{
    const int h = n / 2, r = kind == CHAIN_EQUAL_ROWS && i == h + 1 ? h : i;
    const int cols[4] = {r - 1, r, r + 1, r % 7 == 0 ? r + 40 : -1};
    const double vals[4] = {-2.0, 3.0 + (r % 5), -0.5, 0.25};
    *len = 0;
    for (int t = 0; t < 4; t++)
        if (cols[t] >= 0 && cols[t] < n && !(kind == CHAIN_ZERO_COLUMN && cols[t] == h)) {
            col[*len] = cols[t];
            val[(*len)++] = vals[t];
        }
}

static void chain_matrix(int n, int kind, mixm_csr *M)
{
    CU_ASSERT_EQUAL_FATAL(mixm_csr_alloc(M, n, n, 4 * (int64_t)n), 0);
    int64_t t = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        M->rowptr[i] = t;
        chain_row(n, i, kind, M->colind + t, M->val + t, &len);
        t += len;
    }
    M->rowptr[n] = t;
    M->nnz = t;
}

/* One FP64 solve of A X = B (3 columns, ld > n) through the backend's table, no refinement:
 * every column to a backward error of 1e-12. */
static void check_table_solve(mix_context *ctx, const mixm_csr *M, mix_sparse *A)
{
    const mixi_sparse_lu_ops *ops = ctx->ops->sparse_lu;
    mixi_splu *F = NULL;
    int srank = 0;
    double anrm = 0.0;
    int exponent = -1;
    mixi_splu_outcome outcome = MIXI_SPLU_SINGULAR;
    CU_ASSERT_EQUAL_FATAL(ops->analyze(ctx->state, A->a64, &F, &srank, &anrm, &exponent), 0);
    CU_ASSERT_EQUAL(ops->factor(ctx->state, F, MIX_FP64, &outcome), 0);
    CU_ASSERT_EQUAL(outcome, MIXI_SPLU_OK);
    CU_ASSERT(table_solve_berr(ctx, F, MIX_FP64, M, 3, M->nrows + 5, 17) <= 1e-12);
    ops->destroy(ctx->state, F);
}

/* FP64 factors of a low-fill matrix (KLU's on the CPU, MUMPS's with the hook): both meet LAPACK's
 * test on three right-hand sides with ld > n and agree with each other, report their memory, and
 * leave a singular matrix to MUMPS's verdict (MIX_ERR_SINGULAR, as before). */
static void low_fill_case(mix_context *ctx, int n)
{
    const int nrhs = 3, ld = n + 3;
    mixm_csr M = {0};
    chain_matrix(n, CHAIN_REGULAR, &M);
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, M.rowptr, M.colind, M.val, &A), 0);
    double *b = rhs_block(nrhs, ld, 3), *x[2] = {mixt_dalloc((size_t)ld * nrhs),
                                                mixt_dalloc((size_t)ld * nrhs)};
    for (int use = 0; use < 2; use++) {
        use_klu(use);
        const mix_prec precs[] = {MIX_FP64, MIX_PREC_AUTO};
        for (int k = 0; k < 2; k++) {
            mix_gesv_params p = mixt_params(precs[k], MIX_REFINE_AUTO);
            mix_gesv_info info;
            CU_ASSERT_EQUAL(mix_dgesv_sparse(ctx, &p, A, nrhs, b, ld, x[use], ld, &info), 0);
            CU_ASSERT(info.factor_prec_used == MIX_FP64 && info.iter == -1);
            for (int j = 0; j < nrhs; j++) {
                double be = NAN;
                const size_t c = (size_t)j * ld;
                CU_ASSERT_EQUAL(mixm_csr_recheck(&M, b + c, x[use] + c, &be, NULL), 0);
                CU_ASSERT(be <= mixt_berr_bound(n));
            }
        }
        check_table_solve(ctx, &M, A);
        int64_t factors = 0, peak = 0;
        CU_ASSERT_EQUAL(mix_sparse_lu_memory(ctx, A, MIX_FP64, &factors, &peak), MIX_SUCCESS);
        /* At least L's and U's values (2n - 1 each for a tridiagonal); a peak holding them. */
        CU_ASSERT(factors >= (int64_t)8 * (4 * (int64_t)n - 2) && peak >= factors);
    }
    /* A well-conditioned chain (diagonally dominant): the two factorizations' solutions agree. */
    double worst = 0.0;
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) {
            const size_t t = (size_t)j * ld + i;
            const double d = fabs(x[0][t] - x[1][t]) / (1.0 + fabs(x[0][t]));
            if (!(d <= worst)) worst = d;
        }
    CU_ASSERT(worst <= 1e-12);
    mix_sparse_destroy(A);
    mixm_csr_free(&M);
    for (int kind = CHAIN_ZERO_COLUMN; kind <= CHAIN_EQUAL_ROWS; kind++) {
        chain_matrix(n, kind, &M);
        mix_gesv_params p = mixt_params(MIX_FP64, MIX_REFINE_AUTO);
        mix_gesv_info info;
        double berr;
        CU_ASSERT_EQUAL(solve_check(ctx, &M, &p, 1, &info, &berr), MIX_ERR_SINGULAR);
        mixm_csr_free(&M);
    }
    free(b);
    free(x[0]);
    free(x[1]);
}

/* FP64 factors of low-fill matrices (KLU's on the CPU, MUMPS's with the hook), below and above
 * the CPU's small-matrix analysis (600 and 40000 unknowns): both meet LAPACK's test on three
 * right-hand sides with ld > n and agree with each other, report their memory, and a singular
 * matrix is MIX_ERR_SINGULAR as before. */
static void test_low_fill_fp64(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    low_fill_case(ctx, 600);
    low_fill_case(ctx, 40000);
    mix_context_destroy(ctx);
}

#if HAVE_MUMPS
/* The ordering of a fresh analysis of M for `prec` (MIX_PREC_AUTO: AUTO's) and its flops. */
static int fresh_order(mix_context *ctx, mix_sparse *A, mix_prec prec, double *flops)
{
    const mixi_sparse_lu_ops *ops = ctx->ops->sparse_lu;
    mixi_splu *F = NULL;
    int srank = 0, exponent = 0;
    double anrm = 0.0;
    mixi_splu_estimate e = {0};
    CU_ASSERT_EQUAL_FATAL(ops->analyze(ctx->state, A->a64, &F, &srank, &anrm, &exponent), 0);
    CU_ASSERT_EQUAL(ops->estimate(ctx->state, F, prec, &e), 0);
    ops->destroy(ctx->state, F);
    *flops = e.flops;
    return e.ordering;
}
#endif

/* AUTO's analysis (made in FP64) weighs nested dissection at FP32's factorization rate, as an
 * FP32 analysis does: its large problems, the only ones ND may pay on, take FP32 factors.
 * Weighed at FP64's, AUTO paid PORD's analysis where FP32 factors did not repay it (3-D
 * convection-diffusion 40^3 on a Zen 3: AUTO 2.26 s, FP32 1.55 s).  ND's cost is set between
 * the savings predicted at the two rates, so FP64 orders by PORD (4), FP32 and AUTO by AMF (2). */
static void test_auto_orders_for_fp32(void)
{
#if HAVE_MUMPS
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx) || mixt_backend != MIX_BACKEND_CPU) {
        mix_context_destroy(ctx);
        return;
    }
    double r64 = 0.0, r32 = 0.0, amf = 0.0, flops = 0.0;
    CU_ASSERT_EQUAL(ctx->ops->dense->gemm_rate(ctx->state, MIX_FP64, &r64), 0);
    CU_ASSERT_EQUAL(ctx->ops->dense->gemm_rate(ctx->state, MIX_FP32, &r32), 0);
    mixm_csr M = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff3d(32, 100.0, 50.0, 25.0, &M), 0);
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, M.nrows, M.rowptr, M.colind, M.val, &A), 0);
    mixi_cpu_splu_nd_cost(1e30); /* AMF alone: its flops */
    CU_ASSERT_EQUAL(fresh_order(ctx, A, MIX_FP32, &amf), 2);
    if (r32 > 1.1 * r64 && amf > 0.0) { /* else no cost lies between the two savings */
        mixi_cpu_splu_nd_cost(sqrt(mixi_cpu_splu_nd_saving_s(amf, r64) *
                                   mixi_cpu_splu_nd_saving_s(amf, r32)));
        CU_ASSERT_EQUAL(fresh_order(ctx, A, MIX_FP64, &flops), 4);
        CU_ASSERT(flops < amf);
        CU_ASSERT_EQUAL(fresh_order(ctx, A, MIX_PREC_AUTO, &flops), 2);
        CU_ASSERT_EQUAL(fresh_order(ctx, A, MIX_FP32, &flops), 2);
    }
    mixi_cpu_splu_nd_cost(0.0);
    mix_sparse_destroy(A);
    mixm_csr_free(&M);
    mix_context_destroy(ctx);
#endif
}

/* AUTO's decision from the analysis's prediction: FP32 where the FP32 factorization saves far
 * more than the refinement's extra solves cost, FP64 for cheap factorizations, many right-hand
 * sides, or no prediction; a small bundled matrix takes FP64. */
static void test_auto_decision(void)
{
    const mixi_splu_estimate big = {.flops = 5.7e10, .entries = 4.0e7}; /* 3-D 40^3 */
    const mixi_splu_estimate small = {.flops = 2.0e6, .entries = 2.0e5}; /* add32-like */
    const mixi_splu_estimate none = {0};
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(50.0, &big, 1), MIX_FP32);
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(50.0, &small, 1), MIX_FP64);
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(50.0, &big, 1000), MIX_FP64);
    const mixi_splu_estimate dw8192 = {.flops = 4.06e7, .entries = 4.5e5};
    const mixi_splu_estimate grid20 = {.flops = 6.15e8, .entries = 1.68e6}; /* 3-D 20^3 */
    /* 2-D convection-diffusion 500^2 and 700^2: FP64 was 14% and 8% faster than FP32 LU-IR. */
    const mixi_splu_estimate plane500 = {.flops = 3.15e9, .entries = 1.48e7};
    const mixi_splu_estimate plane700 = {.flops = 9.8e9, .entries = 3.25e7};
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(50.0, &dw8192, 1), MIX_FP64);
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(5.0, &dw8192, 1), MIX_FP64); /* a loaded machine */
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(50.0, &grid20, 1), MIX_FP32);
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(50.0, &plane500, 1), MIX_FP64);
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(120.0, &plane700, 1), MIX_FP64);
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(50.0, &none, 1), MIX_FP64);
    CU_ASSERT_EQUAL(mixi_sparse_lu_auto_decide(0.0, &big, 1), MIX_FP64);
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/west0067.mtx", mixt_matrix_dir());
    mixm_csr M = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(path, &M, NULL, err, sizeof err), 0);
    mix_gesv_params p = mixt_params(MIX_PREC_AUTO, MIX_REFINE_AUTO);
    mix_gesv_info info;
    double berr;
    CU_ASSERT_EQUAL(solve_check(ctx, &M, &p, 1, &info, &berr), MIX_SUCCESS);
    CU_ASSERT_EQUAL(info.factor_prec_used, MIX_FP64);
    CU_ASSERT(info.fell_back == 1 && info.reason == MIX_REASON_DIRECT);
    CU_ASSERT(berr <= BERR_TARGET);
    mixm_csr_free(&M);
    mix_context_destroy(ctx);
}

/* The command: solve beyond --dense-max takes sparse LU-IR; bench gives splu rows against
 * UMFPACK with the factor memory of both precisions. */
static void test_cli(void)
{
    mix_context *ctx = mixt_context();
    int have = have_splu(ctx);
    mix_context_destroy(ctx);
    if (!have || mixt_backend != MIX_BACKEND_CPU) return;
    char args[1024], path[600], csv[16384];
    snprintf(args, sizeof args, "solve %s/sherman1.mtx --dense-max 0 --prec fp32 --backend cpu",
             mixt_matrix_dir());
    CU_ASSERT_EQUAL(mixt_tool("", args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "sparse LU-IR, MUMPS), factor fp32"));
    CU_ASSERT_PTR_NOT_NULL(strstr(mixt_out, "fallback        : no"));
    snprintf(args, sizeof args, "bench %s/west0067.mtx --dense-max 10 --no-gen --backend cpu -o %s",
             mixt_matrix_dir(), mixt_tmp("splu-bench"));
    CU_ASSERT_EQUAL(mixt_tool("", args), 0);
    snprintf(path, sizeof path, "%s/results.csv", mixt_tmp("splu-bench"));
    mixt_slurp(path, csv, sizeof csv);
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",splu,fp32,ok,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",splu,auto,ok,"));
#if HAVE_UMFPACK
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, ",splu,fp64,ok,"));
#endif
    CU_ASSERT_PTR_NOT_NULL(strstr(csv, "factors fp32"));
}

/* One allocation sweep of mix_dgesv_sparse on M (values times ascale, b times bscale, nrhs
 * columns, ld > n; max_iter >= 0 replaces the default's): the k-th library allocation fails, k = 0, 1, ... until the solve succeeds;
 * every try is MIX_ERR_ALLOC or success, leaks nothing and leaves b as it was.  Returns the
 * number of tries. */
static int splu_sweep(mix_context *ctx, const mixm_csr *M, double ascale, mix_prec prec,
                      mix_refine refine, int nrhs, double bscale, int max_iter)
{
    const int n = M->nrows, ld = n + 2;
    const size_t nb = (size_t)ld * nrhs;
    double *val = mixt_dalloc((size_t)M->rowptr[n]);
    for (int64_t t = 0; t < M->rowptr[n]; t++) val[t] = M->val[t] * ascale;
    mix_sparse *A = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, n, M->rowptr, M->colind, val, &A), 0);
    double *b = rhs_block(nrhs, ld, 11), *b0 = mixt_dalloc(nb), *x = mixt_dalloc(nb);
    for (size_t i = 0; i < nb; i++) b[i] *= bscale;
    memcpy(b0, b, nb * sizeof *b);
    mix_gesv_params p = mixt_params(prec, refine);
    if (max_iter >= 0) p.max_iter = max_iter;
    const long live0 = mixi_alloc_live();
    int st = MIX_ERR_ALLOC, k;
    for (k = 0; k < 400 && st == MIX_ERR_ALLOC; k++) {
        mix_gesv_info info;
        mixi_alloc_fail_after(k);
        st = mix_dgesv_sparse(ctx, &p, A, nrhs, b, ld, x, ld, &info);
        mixi_alloc_fail_after(-1);
        CU_ASSERT(st == MIX_ERR_ALLOC || st == MIX_SUCCESS);
        if (st != MIX_ERR_ALLOC && st != MIX_SUCCESS)
            fprintf(stderr, "\nsweep n=%d prec=%d k=%d: %d\n", n, (int)prec, k, st);
        CU_ASSERT_EQUAL(info.status, st);
        CU_ASSERT(memcmp(b, b0, nb * sizeof *b) == 0);
        CU_ASSERT_EQUAL(mixi_alloc_live(), live0);
    }
    CU_ASSERT_EQUAL(st, MIX_SUCCESS);
    /* The factor memory query too. */
    if (prec != MIX_PREC_AUTO) {
        int64_t f = 0, peak = 0;
        st = MIX_ERR_ALLOC;
        for (int j = 0; j < 400 && st == MIX_ERR_ALLOC; j++) {
            mixi_alloc_fail_after(j);
            st = mix_sparse_lu_memory(ctx, A, prec, &f, &peak);
            mixi_alloc_fail_after(-1);
            CU_ASSERT(st == MIX_ERR_ALLOC || st == MIX_SUCCESS || st == MIX_ERR_OVERFLOW);
            CU_ASSERT_EQUAL(mixi_alloc_live(), live0);
        }
    }
    mix_sparse_destroy(A);
    free(val);
    free(b);
    free(b0);
    free(x);
    return k;
}

/* Allocation failures through the sparse LU-IR path: each factor precision, KLU's FP64
 * factors and MUMPS's, a maximum transversal (west0479: the second instance on A Q), GMRES's
 * workspace, right-hand sides and a matrix beyond lib/core's range (their scaled copies) and
 * an FP32 overflow falling back to FP64. */
static void test_alloc_sweep(void)
{
    mix_context *ctx = mixt_context();
    if (!have_splu(ctx)) return;
    char path[4096], err[256];
    snprintf(path, sizeof path, "%s/west0479.mtx", mixt_matrix_dir());
    mixm_csr W = {0}, C = {0};
    CU_ASSERT_EQUAL_FATAL(mixm_mtx_read(path, &W, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_convdiff3d(6, 10.0, 0.0, -10.0, &C), 0);
    const mix_prec precs[] = {MIX_FP32, MIX_FP64, MIX_PREC_AUTO};
    for (int klu = 1; klu >= 0; klu--) {
        use_klu(klu);
        for (int i = 0; i < 3; i++) {
            CU_ASSERT(splu_sweep(ctx, &W, 1.0, precs[i], MIX_REFINE_CLASSICAL, 1, 1.0, -1) > 2);
            CU_ASSERT(splu_sweep(ctx, &C, 1.0, precs[i], MIX_REFINE_GMRES, 2, 1.0, -1) > 2);
        }
        splu_sweep(ctx, &C, 1.0, MIX_FP32, MIX_REFINE_AUTO, 2, 1e250, -1);
        splu_sweep(ctx, &C, 1e300, MIX_FP32, MIX_REFINE_AUTO, 1, 1.0, -1);
        splu_sweep(ctx, &C, 1e39, MIX_FP32, MIX_REFINE_AUTO, 1, 1.0, -1); /* FP32 overflows */
        /* No FP32 correction allowed: the FP64 fallback takes the FP32 instance's order, on
         * A Q after west0479's transversal (permuted_columns). */
        splu_sweep(ctx, &W, 1.0, MIX_FP32, MIX_REFINE_CLASSICAL, 1, 1.0, 0);
    }
    use_klu(1);
    mixm_csr_free(&W);
    mixm_csr_free(&C);
    mix_context_destroy(ctx);
}

/* MUMPS's memory errors are MIX_ERR_ALLOC: an analysis out of memory (INFO(1) = -7, seen under
 * RLIMIT_AS) was MIX_ERR_BACKEND, whose sentence says the backend is not compiled in. */
static void test_mumps_memory_status(void)
{
#if HAVE_MUMPS
    const int memory[] = {-7, -8, -9, -11, -12, -13, -14, -15, -17, -19, -20};
    for (size_t i = 0; i < sizeof memory / sizeof *memory; i++)
        CU_ASSERT_EQUAL(mixi_cpu_mumps_status(memory[i]), MIX_ERR_ALLOC);
    CU_ASSERT_EQUAL(mixi_cpu_mumps_status(0), MIX_SUCCESS);
    CU_ASSERT_EQUAL(mixi_cpu_mumps_status(1), MIX_SUCCESS); /* a warning */
    CU_ASSERT_EQUAL(mixi_cpu_mumps_status(-16), MIX_ERR_INTERNAL); /* N out of range */
#endif
}

static const mixt_test tests[] = {
    {"convection-diffusion: FP32 LU-IR, classical / GMRES / AUTO; FP64", test_convdiff},
    {"five right-hand sides, ld > n, FP32 / FP64 / AUTO", test_multiple_rhs},
    {"bundled general matrices to backward error 1e-12", test_bundled},
    {"structurally and numerically singular", test_singular},
    {"FP32 overflow and breakdown fall back to FP64, never silently", test_fp32_overflow_and_breakdown},
    {"right-hand sides from 0 to 1e250, A scaled by 1e37: FP32 factors solve", test_rhs_scales},
    {"solutions beyond FP64's range: OVERFLOW, NOT_CONVERGED", test_solution_range},
    {"matrices near FP64's ends: 1.5e308 and 1e-300 entries solved", test_matrix_range},
    {"NaN/Inf in b and A", test_nan_rhs},
    {"argument checks, in-place solve, factor memory FP32 vs FP64", test_args_and_memory},
    {"mixsolve solve beyond --dense-max, bench splu rows", test_cli},
    {"one analysis for both precisions, also on A Q after a transversal", test_analysis_reuse},
    {"a dense row: QAMD orders it, not AMF (quadratic there); the factors solve", test_dense_row_order},
    {"AUTO from the analysis's predicted cost", test_auto_decision},
    {"AUTO's analysis weighs nested dissection at FP32's rate", test_auto_orders_for_fp32},
    {"low-fill FP64 factors (KLU, MUMPS): agree, memory, singular", test_low_fill_fp64},
    {"allocation failures: FP32/FP64/AUTO, KLU and MUMPS, no leak, b kept", test_alloc_sweep},
    {"MUMPS's out-of-memory codes are MIX_ERR_ALLOC", test_mumps_memory_status},
    {NULL, NULL},
};

void mixt_register_sparse_lu(mix_backend b)
{
    mixt_add_backend_suite(b, "sparse LU-IR (mix_dgesv_sparse)", tests);
}
