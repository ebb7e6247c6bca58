/* test_dense_probe.c: the dense drivers on what a hostile probe found silently wrong (issue 33): right-hand sides of very different size, semidefinite matrices, entries spanning more than the FP64 range. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "tests/mixt.h"

#define N 40

/* Largest relative error of column c of X (ld n) against scale * x. */
static double column_error(int n, const double *X, int c, double scale, const double *x)
{
    double e = 0.0, m = 0.0;
    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(X[i + (size_t)c * n] / scale - x[i]));
        m = fmax(m, fabs(x[i]));
    }
    return e / m;
}

/* A well-conditioned general matrix (spd = 0) or SPD one (both triangles), n x n, ld n. */
static void well_conditioned(int n, int spd, double *a)
{
    double *r = mixt_rand64((size_t)n * n, 33);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[i + (size_t)j * n] = (spd ? 0.5 * (r[i + (size_t)j * n] + r[j + (size_t)i * n])
                                        : r[i + (size_t)j * n]) +
                                   (i == j ? 2.0 * sqrt((double)n) : 0.0);
    free(r);
}

static void matvec(int n, const double *a, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        y[i] = 0.0;
        for (int j = 0; j < n; j++) y[i] += a[i + (size_t)j * n] * x[j];
    }
}

/* Every driver of family f on A X = B (column-major, n x 2): the simple ones (each factor
 * precision) and the expert one (FP64, AUTO and each factor precision); returns the worst
 * relative error of either column against scale[c] * x, asserting status 0 for each. */
static double every_driver(mixt_family f, int n, const double *a0, const double *b,
                           const double scale[2], const double *x)
{
    mix_context *ctx = mixt_context();
    double *a = mixt_dalloc((size_t)n * n), *X = mixt_dalloc((size_t)n * 2), *bw = mixt_dalloc((size_t)n * 2);
    int ipiv[N], iter = 0;
    double worst = 0.0;
    const mixt_args c = {0, MIX_COL_MAJOR, 'L', n, 2, a, n, ipiv, bw, n, X, n, &iter};
    mixt_prec_set ps = mixt_precs(MIX_ROLE_FACTOR, 0); /* FP64 and each factor precision */
    ps.p[ps.n++] = MIX_PREC_AUTO;
    for (int d = 0; d < 4 + ps.n; d++) {
        memcpy(a, a0, (size_t)n * n * sizeof *a);
        memcpy(bw, b, (size_t)n * 2 * sizeof *bw);
        int st;
        if (d < 4) {
            st = mixt_call_simple(f, d, &c);
        } else {
            mix_gesv_params p = mixt_params(ps.p[d - 4], MIX_REFINE_AUTO);
            mix_gesv_info info;
            st = mixt_call_expert(f, ctx, &p, &c, &info);
        }
        double e = fmax(column_error(n, X, 0, scale[0], x), column_error(n, X, 1, scale[1], x));
        CU_ASSERT_EQUAL(st, 0);
        if (!(e <= 1e-10) || st) printf("\n    driver %d: status %d, error %.3g", d, st, e);
        if (!(e <= worst)) worst = e;
    }
    free(a), free(X), free(bw);
    mix_context_destroy(ctx);
    return worst;
}

/* B = [A x big, A x 1e-300], all normal numbers: one scale for the whole of B flushed the small
 * column to zero (big = 1e300) or to subnormals (big = 1e20, error 3.6e-3), reported as success.
 * Each column is scaled and judged by itself. */
static void test_rhs_of_different_size(void)
{
    const int n = N;
    double *a = mixt_dalloc((size_t)n * n), *b = mixt_dalloc((size_t)n * 2), ax[N];
    double *x = mixt_rand64(N, 34);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    static const double bigs[] = {1e300, 1e20, 0x1p63};
    for (int spd = 0; spd < 2; spd++) {
        well_conditioned(n, spd, a);
        matvec(n, a, x, ax);
        for (size_t k = 0; k < sizeof bigs / sizeof bigs[0]; k++) {
            const double scale[2] = {bigs[k], 1e-300};
            for (int i = 0; i < n; i++) b[i] = ax[i] * scale[0], b[i + n] = ax[i] * scale[1];
            double e = every_driver(spd ? MIXT_SPD : MIXT_LU, n, a, b, scale, x);
            CU_ASSERT(e <= 1e-10);
        }
    }
    free(a), free(b), free(x);
}

/* A = G G^T of rank n/2 (n = 60): positive semidefinite, and LAPACK's dpotrf fails (at 32 on
 * the probe's matrix).  The shifted 16-bit and TF32 Cholesky refined it to |x| ~ 1e15 and
 * success; every driver must return dpotrf's order (simple ones) or MIX_ERR_NOT_SPD, for a
 * random b and for a consistent b = A 1 alike. */
static void test_semidefinite(void)
{
    enum { M = 60, K = 30 };
    mix_context *ctx = mixt_context();
    double *g = mixt_rand64((size_t)M * K, 35), *a0 = mixt_dalloc((size_t)M * M),
           *a = mixt_dalloc((size_t)M * M), *b = mixt_rand64(M, 36), *x = mixt_dalloc(M);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    for (int j = 0; j < M; j++)
        for (int i = 0; i < M; i++)
            for (int c = 0; c < K; c++) a0[i + (size_t)j * M] += g[i + (size_t)c * M] * g[j + (size_t)c * M];
    memcpy(a, a0, sizeof(double) * M * M);
    const int want = (int)LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', M, a, M);
    CU_ASSERT(want > K && want <= M);
    int iter;
    const mixt_args c = {0, MIX_COL_MAJOR, 'L', M, 1, a, M, NULL, b, M, x, M, &iter};
    for (int consistent = 0; consistent < 2; consistent++) {
        if (consistent) { /* b = A 1 */
            double one[M];
            for (int i = 0; i < M; i++) one[i] = 1.0;
            matvec(M, a0, one, b);
        }
        for (int s = 0; s < 4; s++) {
            memcpy(a, a0, sizeof(double) * M * M);
            int st = mixt_call_simple(MIXT_SPD, s, &c);
            CU_ASSERT_EQUAL(st, want);
            if (st != want) printf("\n    simple driver %d: %d, dpotrf %d", s, st, want);
        }
        mix_prec_role role = MIX_ROLE_FACTOR;
        mixt_prec_set ps = mixt_precs(role, 0);
        for (int q = 0; q < ps.n; q++) {
            mix_gesv_params p = mixt_params(ps.p[q], MIX_REFINE_AUTO);
            mix_gesv_info info;
            memcpy(a, a0, sizeof(double) * M * M);
            CU_ASSERT_EQUAL(mixt_call_expert(MIXT_SPD, ctx, &p, &c, &info), MIX_ERR_NOT_SPD);
        }
    }
    free(g), free(a0), free(a), free(b), free(x);
    mix_context_destroy(ctx);
}

/* Exactly singular in FP64, not in FP32: I except the trailing block [1 q; 0.75 0.75 q],
 * q = 1 + 2^-24 - 2^-40 (FP32 rounds q to 1 + 2^-24), b = A 1 + 1e-3 e_n (no solution).
 * GMRES-IR on the FP32 factors grew x until the normwise test passed and reported success where
 * dgetrf finds U(n,n) = 0 (the drop-in's dgesv_ and numpy answered it): at n = 50 to 2e45
 * (kappa(A) >= ||A|| ||x|| / ||b|| beyond 1 / eps), at n = 1000 to 4e11 with r unchanged.
 * Every driver must fall back and return dgetrf's order (simple) or MIX_ERR_SINGULAR (expert),
 * whatever the refinement. */
static void singular_in_fp64(mix_context *ctx, int m)
{
    const size_t mm = (size_t)m * m;
    double *a0 = mixt_dalloc(mm), *a = mixt_dalloc(mm), *b = mixt_dalloc((size_t)m), *x = mixt_dalloc((size_t)m);
    int *ipiv = calloc((size_t)m, sizeof *ipiv), iter = 0;
    const double q = 1.0 + 0x1p-24 - 0x1p-40;
    for (int i = 0; i < m; i++) a0[i + (size_t)i * m] = 1.0;
    a0[(m - 2) + (size_t)(m - 1) * m] = q;
    a0[(m - 1) + (size_t)(m - 2) * m] = 0.75;
    a0[(m - 1) + (size_t)(m - 1) * m] = 0.75 * q;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++) b[i] += a0[i + (size_t)j * m];
    b[m - 1] += 1e-3;
    memcpy(a, a0, mm * sizeof *a);
    const int want = (int)LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, m, a, m, ipiv);
    CU_ASSERT_EQUAL(want, m);
    const mixt_args c = {0, MIX_COL_MAJOR, 'L', m, 1, a, m, ipiv, b, m, x, m, &iter};
    for (int s = 0; s < 4; s++) {
        memcpy(a, a0, mm * sizeof *a);
        const int st = mixt_call_simple(MIXT_LU, s, &c);
        CU_ASSERT_EQUAL(st, want);
        CU_ASSERT(iter < 0);
        if (st != want) printf("\n    n %d simple driver %d: %d (iter %d, x_n %.3g)", m, s, st, iter, x[m - 1]);
    }
    static const mix_refine modes[] = {MIX_REFINE_AUTO, MIX_REFINE_GMRES, MIX_REFINE_CLASSICAL};
    mixt_prec_set ps = mixt_precs(MIX_ROLE_FACTOR, 0);
    for (int k = 0; k < ps.n; k++)
        for (size_t md = 0; md < sizeof modes / sizeof modes[0]; md++) {
            mix_gesv_params p = mixt_params(ps.p[k], modes[md]);
            mix_gesv_info info;
            memcpy(a, a0, mm * sizeof *a);
            const int st = mixt_call_expert(MIXT_LU, ctx, &p, &c, &info);
            CU_ASSERT_EQUAL(st, MIX_ERR_SINGULAR);
            if (st != MIX_ERR_SINGULAR)
                printf("\n    n %d %s refine %d: status %d iter %d x_n %.3g", m, mix_prec_name(ps.p[k]),
                       (int)modes[md], st, info.iter, x[m - 1]);
        }
    free(a0), free(a), free(b), free(x), free(ipiv);
}

static void test_singular_in_fp64(void)
{
    mix_context *ctx = mixt_context();
    singular_in_fp64(ctx, 50);
    singular_in_fp64(ctx, 1000);
    mix_context_destroy(ctx);
}

/* The factors a driver left in a (iter < 0) solve A x = b as LAPACK's would: dgetrs/dpotrs on
 * them give x = 1 for b = A 1 (A: the original a0, either layout). */
static double factors_solve_error(mixt_family f, int layout, char uplo, int n, const double *a0,
                                  const double *a, const int *ipiv)
{
    double *b = mixt_dalloc((size_t)n), one[64], e = 0.0;
    for (int i = 0; i < n; i++) one[i] = 1.0;
    for (int i = 0; i < n; i++) /* A 1: row sums, the same in either layout up to transposition */
        for (int j = 0; j < n; j++)
            b[i] += layout == MIX_COL_MAJOR ? a0[i + (size_t)j * n] : a0[j + (size_t)i * n];
    int st = f == MIXT_LU ? (int)LAPACKE_dgetrs(layout, 'N', n, 1, a, n, ipiv, b, layout == MIX_COL_MAJOR ? n : 1)
                          : (int)LAPACKE_dpotrs(layout, uplo, n, 1, a, n, b, layout == MIX_COL_MAJOR ? n : 1);
    CU_ASSERT_EQUAL(st, 0);
    for (int i = 0; i < n; i++) e = fmax(e, fabs(b[i] - one[i]));
    free(b);
    return e;
}

/* Every simple and expert driver of family f on A x = A 1 (a0: n x n, both triangles, either
 * layout): status 0, x = 1 to `tol`, and where FP64 answered, factors that solve as LAPACK's. */
static void wide_system(mixt_family f, int layout, int n, const double *a0, double tol)
{
    mix_context *ctx = mixt_context();
    double *a = mixt_dalloc((size_t)n * n), *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n);
    int ipiv[64], iter = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) b[i] += a0[i + (size_t)j * n]; /* symmetric: either layout */
    const mixt_args c = {0, layout, 'U', n, 1, a, n, ipiv, b, layout == MIX_COL_MAJOR ? n : 1, x,
                         layout == MIX_COL_MAJOR ? n : 1, &iter};
    mixt_prec_set ps = mixt_precs(MIX_ROLE_FACTOR, 0);
    for (int d = 0; d < 4 + ps.n; d++) {
        memcpy(a, a0, (size_t)n * n * sizeof *a);
        mix_gesv_info info = {0};
        int st;
        if (d < 4) {
            st = mixt_call_simple(f, d, &c);
        } else {
            mix_gesv_params p = mixt_params(ps.p[d - 4], MIX_REFINE_AUTO);
            st = mixt_call_expert(f, ctx, &p, &c, &info);
            iter = info.iter;
        }
        double e = 0.0;
        for (int i = 0; i < n; i++) e = fmax(e, fabs(x[i] - 1.0));
        CU_ASSERT_EQUAL(st, 0);
        CU_ASSERT(e <= tol);
        double fe = iter < 0 ? factors_solve_error(f, layout, 'U', n, a0, a, ipiv) : 0.0;
        CU_ASSERT(fe <= tol);
        if (st || !(e <= tol) || !(fe <= tol))
            printf("\n    %s layout %d driver %d: status %d iter %d error %.3g factors %.3g",
                   f == MIXT_LU ? "LU" : "SPD", layout, d, st, iter, e, fe);
    }
    free(a), free(b), free(x);
    mix_context_destroy(ctx);
}

/* Entries spanning more than 1e308: one power of two flushed the small ones (diag(1e300, 1, 1,
 * 1, 1, 1e-300): U(6,6) = 0, return 6, where LAPACKE_dsgesv returns 0; with 1e-20: NaN, 7), or
 * lost their digits (block-diagonal 1e300 S1, 1e-20 S2: error 5.4e-3 as success).  Rows and
 * columns are now scaled each by its own power of two, as LAPACK's dgeequb/dpoequb. */
static void test_entries_spanning_more_than_the_range(void)
{
    enum { B = 10, M = 2 * B };
    double *blk = mixt_dalloc((size_t)M * M), d6[36];
    double *r = mixt_rand64((size_t)B * B * 2, 37);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    for (int k = 0; k < 2; k++) /* S_k = G G^T / B + I (kappa ~ 3), times 1e300 and 1e-20 */
        for (int j = 0; j < B; j++)
            for (int i = 0; i < B; i++) {
                double v = i == j ? 1.0 : 0.0;
                for (int c = 0; c < B; c++)
                    v += r[k * B * B + i + c * B] * r[k * B * B + j + c * B] / B;
                blk[(k * B + i) + (size_t)(k * B + j) * M] = v * (k ? 1e-20 : 1e300);
            }
    static const double tiny[] = {1e-300, 1e-20};
    for (int t = 0; t < 2; t++) {
        memset(d6, 0, sizeof d6);
        for (int i = 0; i < 6; i++) d6[i * 7] = i == 0 ? 1e300 : i == 5 ? tiny[t] : 1.0;
        for (int layout = MIX_ROW_MAJOR; layout <= MIX_COL_MAJOR; layout++) {
            wide_system(MIXT_LU, layout, 6, d6, 1e-15);
            wide_system(MIXT_SPD, layout, 6, d6, 1e-15);
        }
    }
    for (int layout = MIX_ROW_MAJOR; layout <= MIX_COL_MAJOR; layout++) {
        wide_system(MIXT_LU, layout, M, blk, 1e-13);
        wide_system(MIXT_SPD, layout, M, blk, 1e-13);
    }
    free(blk), free(r);
}

/* The same diagonals in CG with Jacobi: 4^m A flushed 1e-300 to zero and Jacobi read "not SPD",
 * which mix_dcg(3) says never happens for range alone.  A is now scaled D A D from its diagonal:
 * converged, with the relative residual mix_dcg(3) promises (x = 1 exactly where a_66 = 1e-20,
 * whose entry counts in ||b - A x||2 / ||b||2). */
static void test_cg_entries_spanning_more_than_the_range(void)
{
    mix_context *ctx = mixt_context();
    int64_t rowptr[7] = {0, 1, 2, 3, 4, 5, 6};
    int32_t col[6] = {0, 1, 2, 3, 4, 5};
    static const double tiny[] = {1e-300, 1e-20};
    for (int t = 0; t < 2; t++) {
        double val[6] = {1e300, 1, 1, 1, 1, tiny[t]}, x[6];
        mix_sparse *A = NULL;
        CU_ASSERT_EQUAL_FATAL(mix_sparse_create_csr(ctx, 6, rowptr, col, val, &A), 0);
        mix_cg_params p;
        mix_cg_params_init(&p);
        p.precond = MIX_PRECOND_JACOBI;
        mix_cg_info info;
        int st = mix_dcg(ctx, &p, A, val, x, &info); /* b = A 1 = the diagonal */
        CU_ASSERT_EQUAL(st, 0);
        CU_ASSERT(info.converged && info.true_rel_residual <= p.tol);
        CU_ASSERT(fabs(x[0] - 1.0) <= 1e-15);
        if (t == 1) CU_ASSERT(fabs(x[5] - 1.0) <= 1e-10);
        if (st) printf("\n    cg diag(1e300, ..., %g): status %d reason %d", tiny[t], st, info.reason);
        mix_sparse_destroy(A);
    }
    mix_context_destroy(ctx);
}

static const mixt_test dense_probe_tests[] = {
    {"CG, Jacobi: entries spanning more than 1e308 are not \"not SPD\"",
     test_cg_entries_spanning_more_than_the_range},
    {"entries spanning more than 1e308: equilibrated, as LAPACK solves them",
     test_entries_spanning_more_than_the_range},
    {"positive semidefinite: dpotrf's answer, whatever the factor precision", test_semidefinite},
    {"singular in FP64, not in FP32: dgetrf's answer, whatever the refinement",
     test_singular_in_fp64},
    {"right-hand sides of very different size, every driver", test_rhs_of_different_size},
    {NULL, NULL}};

void mixt_register_dense_probe(mix_backend b)
{
    mixt_add_backend_suite(b, "dense_probe", dense_probe_tests);
}
