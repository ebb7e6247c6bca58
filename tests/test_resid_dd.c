/* test_resid_dd.c: the accurate residual (resid_dd_f64, kernels/common/resid_dd.h): exact bits
 * where FP64 loses everything, agreement with a binary128 reference, triangles of a symmetric A;
 * and the refinement's recheck: uniform random systems that stalled on FP64 residuals converge,
 * converging ones are not rechecked. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "lib/api/mix_internal.h"
#include "kernels/backend_dense.h"
#include "matrices/generators.h"

/* resid_dd_f64 on ctx's backend for host arrays (uploaded and back); MIX_ERR_NOT_IMPLEMENTED
 * where the backend has none. */
static int resid_dd(mix_context *ctx, int sym, int uplo, int n, int k, const double *a,
                    const double *x, const double *b, double *r)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (!d->resid_dd_f64) return MIX_ERR_NOT_IMPLEMENTED;
    const size_t nn = (size_t)n * n * 8, nk = (size_t)n * k * 8;
    double *da = mixt_put(ctx, a, nn), *dx = mixt_put(ctx, x, nk), *db = mixt_put(ctx, b, nk);
    double *dr = mixt_put(ctx, r, nk);
    int rc = MIX_ERR_ALLOC;
    if (da && dx && db && dr) {
        rc = d->resid_dd_f64(ctx->state, sym, uplo, n, k, da, n, dx, n, db, n, dr, n);
        if (!rc) rc = mixt_get(ctx, r, dr, nk);
    }
    mixt_drop(ctx, da); mixt_drop(ctx, dx); mixt_drop(ctx, db); mixt_drop(ctx, dr);
    return rc;
}

/* Exact bits where the FP64 residual reads 0: a lost addend (2^60 - 2^60 + 1 summed from the
 * left drops the 1) and a lost product bit ((1 + 2^-30)^2 = 1 + 2^-29 + 2^-60). */
static void test_exact_bits(void)
{
    mix_context *ctx = mixt_context();
    /* Row 0 of A is (1, 1, 1), the others 0; b = 0, x = (2^60, 1, -2^60): r = (-1, 0, 0). */
    const double big = 0x1p60;
    double a[9] = {1, 0, 0, 1, 0, 0, 1, 0, 0}, x[3] = {big, 1, -big}, b[3] = {0, 0, 0}, r[3];
    int rc = resid_dd(ctx, 0, MIXK_LOWER, 3, 1, a, x, b, r);
    if (rc == MIX_ERR_NOT_IMPLEMENTED) {
        mix_context_destroy(ctx);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(rc, MIX_SUCCESS);
    CU_ASSERT_EQUAL(r[0], -1.0);
    CU_ASSERT_EQUAL(r[1], 0.0);
    double naive = b[0];
    for (int j = 0; j < 3; j++) naive -= a[3 * j] * x[j];
    CU_ASSERT_EQUAL(naive, 0.0); /* what FP64 reads: the test tells the two apart */
    /* (1 + 2^-30)^2 against b = 1 + 2^-29: r = -2^-60, and 2 x 2 with the second row's. */
    const double e = 1.0 + 0x1p-30;
    double a2[4] = {e, 1.0, 0.0, 1.0}, x2[2] = {e, 0x1p-70}, b2[2] = {1.0 + 0x1p-29, e}, r2[2];
    CU_ASSERT_EQUAL_FATAL(resid_dd(ctx, 0, MIXK_LOWER, 2, 1, a2, x2, b2, r2), MIX_SUCCESS);
    CU_ASSERT_EQUAL(r2[0], -0x1p-60);
    CU_ASSERT_EQUAL(r2[1], -0x1p-70); /* e - e - 2^-70 */
    mix_context_destroy(ctx);
}

/* b_i = fl(sum_j a_ij x_j): the exact residual is that sum's rounding error, which an FP64
 * residual cannot see.  Reference in binary128 (113 bits: exact here up to ~n 2^-113 |A||x|). */
#ifdef __SIZEOF_FLOAT128__
typedef __float128 wide;
#else
typedef long double wide;
#endif

/* The entry (i, j) of the matrix the op must see: a's stored triangle mirrored when sym. */
static double entry(const double *a, int n, int sym, int upper, int i, int j)
{
    const int stored = !sym || (upper ? i <= j : i >= j);
    return stored ? a[i + (size_t)j * n] : a[j + (size_t)i * n];
}

/* Largest |r - r_ref| / (u |r_ref| + n^2 u^2 (|b| + |A||x|)_i), over the rows: Dot2's bound
 * (Ogita, Rump, Oishi 2005, Prop. 5.5) is 1 (written with gamma_n^2 ~ n^2 u^2). */
static double worst_vs_reference(const double *a, int n, int sym, int upper, const double *x,
                                 const double *b, const double *r)
{
    const double u = 0.5 * DBL_EPSILON;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        wide s = b[i];
        double mag = fabs(b[i]);
        for (int j = 0; j < n; j++) {
            const double aij = entry(a, n, sym, upper, i, j);
            s -= (wide)aij * (wide)x[j];
            mag += fabs(aij * x[j]);
        }
        const double ref = (double)s;
        const double q = fabs(r[i] - ref) / (u * fabs(ref) + (double)n * n * u * u * mag + DBL_MIN);
        if (!(q <= worst)) worst = q;
    }
    return worst;
}

/* A x in FP64 (column order, as dgemv without FMA) into b: the right-hand side whose residual
 * is pure rounding error. */
static void product(const double *a, int n, int sym, int upper, const double *x, double *b)
{
    for (int i = 0; i < n; i++) b[i] = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) b[i] += entry(a, n, sym, upper, i, j) * x[j];
}

/* One case: the op within Dot2's bound of the reference on every row, where the FP64 residual
 * misses it by far on some row (the measure discriminates). */
static void check_case(mix_context *ctx, int n, int sym, int upper, uint64_t seed)
{
    double *a = mixt_rand64((size_t)n * n, seed), *x = mixt_rand64((size_t)n, seed + 1);
    double *b = mixt_dalloc((size_t)n), *r = mixt_dalloc((size_t)n), *r64 = mixt_dalloc((size_t)n);
    CU_ASSERT_FATAL(a && x);
    for (int i = 0; i < n; i++) x[i] *= 1 + i % 7; /* several magnitudes */
    product(a, n, sym, upper, x, b);
    for (int j = 0; sym && j < n; j++) /* the triangle not stored is never read */
        for (int i = 0; i < n; i++)
            if (upper ? i > j : i < j) a[i + (size_t)j * n] = NAN;
    CU_ASSERT_EQUAL_FATAL(resid_dd(ctx, sym, upper ? MIXK_UPPER : MIXK_LOWER, n, 1, a, x, b, r),
                          MIX_SUCCESS);
    const double q = worst_vs_reference(a, n, sym, upper, x, b, r);
    for (int i = 0; i < n; i++) { /* FP64 in another order: rows from the right */
        double s = b[i];
        for (int j = n - 1; j >= 0; j--) s -= entry(a, n, sym, upper, i, j) * x[j];
        r64[i] = s;
    }
    const double q64 = worst_vs_reference(a, n, sym, upper, x, b, r64);
    if (!(q <= 1.0)) printf("\n    n %d sym %d upper %d: %.3g of the bound", n, sym, upper, q);
    CU_ASSERT(q <= 1.0);
    CU_ASSERT(q64 > 1e3);
    free(a); free(x); free(b); free(r); free(r64);
}

static void test_against_binary128(void)
{
    mix_context *ctx = mixt_context();
    if (!ctx->ops->dense->resid_dd_f64) {
        mix_context_destroy(ctx);
        return;
    }
    static const int sizes[] = {1, 7, 33, 255, 256, 257, 600};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int n = sizes[s];
        if (n == 1) continue; /* n = 1: no rounding error to find; checked below */
        check_case(ctx, n, 0, 0, 10 + (uint64_t)n);
        check_case(ctx, n, 1, 0, 20 + (uint64_t)n);
        check_case(ctx, n, 1, 1, 30 + (uint64_t)n);
    }
    /* Several columns at once, ld = n, and n = 1. */
    double a[4] = {3, 1, 1, 2}, x[4] = {1, 2, 3, 4}, b[4] = {5, 5, 13, 11}, r[4];
    CU_ASSERT_EQUAL_FATAL(resid_dd(ctx, 0, MIXK_LOWER, 2, 2, a, x, b, r), MIX_SUCCESS);
    CU_ASSERT(r[0] == 0.0 && r[1] == 0.0 && r[2] == 0.0 && r[3] == 0.0);
    CU_ASSERT_EQUAL_FATAL(resid_dd(ctx, 1, MIXK_UPPER, 1, 1, a, x, b, r), MIX_SUCCESS);
    CU_ASSERT_EQUAL(r[0], 2.0);
    mix_context_destroy(ctx);
}

/* Uniform [0, 1) (bench_gesv -m 0's matrix): the FP64 residual of an FP32 LU-IR solution stalls
 * between the stopping margin and LAPACK's bound (n = 300 .. 4096 fell back after 30 steps while
 * LAPACK's dsgesv converged in 2-3); the accurate recheck sees the column converged. */
static void test_uniform_converges(void)
{
    mix_context *ctx = mixt_context();
    if (!ctx->ops->dense->resid_dd_f64) {
        mix_context_destroy(ctx);
        return;
    }
    static const int sizes[] = {300, 500};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int n = sizes[s];
        double *a = mixt_dalloc((size_t)n * n), *a0 = mixt_dalloc((size_t)n * n);
        double *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n);
        CU_ASSERT_FATAL(mixm_gen_random_dense(n, 2024 + (uint64_t)n, a0) == 0);
        for (size_t k = 0; k < (size_t)n * n; k++) a0[k] = 0.5 * (a0[k] + 1.0);
        for (int i = 0; i < n; i++) {
            double t = 0;
            for (int j = 0; j < n; j++) t += a0[i + (size_t)j * n];
            b[i] = t;
        }
        memcpy(a, a0, (size_t)n * n * 8);
        mix_gesv_params p = mixt_params(MIX_FP32, MIX_REFINE_CLASSICAL);
        p.cost_fallback = 0; /* budgeted from n = 256: a loaded machine must not fall back */
        mix_gesv_info info;
        int *ipiv = malloc((size_t)n * sizeof *ipiv);
        CU_ASSERT_EQUAL_FATAL(mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n,
                                           &info), MIX_SUCCESS);
        CU_ASSERT(info.iter >= 1 && info.iter <= 5);
        /* LAPACK's dsgesv test ||b - A x|| <= ||x|| ||A|| eps sqrt(n), on the exact residual. */
        double rn = 0.0, an = 0.0, xn = 0.0;
        for (int i = 0; i < n; i++) {
            wide t = b[i];
            double rowsum = 0.0;
            for (int j = 0; j < n; j++) {
                t -= (wide)a0[i + (size_t)j * n] * (wide)x[j];
                rowsum += fabs(a0[i + (size_t)j * n]);
            }
            rn = fmax(rn, fabs((double)t));
            an = fmax(an, rowsum);
            xn = fmax(xn, fabs(x[i]));
        }
        CU_ASSERT(rn <= xn * an * 0x1p-53 * sqrt((double)n));
        free(ipiv); free(a); free(a0); free(b); free(x);
    }
    mix_context_destroy(ctx);
}

/* The recheck is for readings that stop falling, not for a converging step's (d67f342): FP32
 * LU-IR and Cholesky-IR on randsvd kappa 1e2, n = 1000, whose residual after the first
 * correction lies inside the recheck's window (each solve made two accurate residuals before,
 * a quarter of mix_dsposv's time at n = 2000-3600), converge in 2-3 steps and make at most one. */
static int dd_calls;
static int (*dd_inner)(void *, int, int, int, int, const double *, int, const double *, int,
                       const double *, int, double *, int);
static int counted_resid_dd(void *state, int sym, int uplo, int n, int k, const double *a,
                            int lda, const double *x, int ldx, const double *b, int ldb,
                            double *r, int ldr)
{
    dd_calls++;
    return dd_inner(state, sym, uplo, n, k, a, lda, x, ldx, b, ldb, r, ldr);
}

static void test_converging_not_rechecked(void)
{
    mix_context *ctx = mixt_context();
    if (!ctx->ops->dense->resid_dd_f64) {
        mix_context_destroy(ctx);
        return;
    }
    mixi_dense_ops counted_dense = *ctx->ops->dense;
    dd_inner = counted_dense.resid_dd_f64;
    counted_dense.resid_dd_f64 = counted_resid_dd;
    mixi_backend_ops counted_ops = *ctx->ops;
    counted_ops.dense = &counted_dense;
    mix_context counted = *ctx;
    counted.ops = &counted_ops;
    const int n = 1000;
    double *a = mixt_dalloc((size_t)n * n), *b = mixt_dalloc((size_t)n), *x = mixt_dalloc((size_t)n);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    for (int i = 0; i < n; i++) b[i] = 1.0 + (double)(i % 7);
    for (int spd = 0; spd < 2; spd++) {
        CU_ASSERT_FATAL((spd ? mixm_gen_randsvd_spd(n, 1e2, 3, 77, a) : mixm_gen_randsvd(n, 1e2, 3, 77, a)) == 0);
        mix_gesv_params p = mixt_params(MIX_FP32, MIX_REFINE_AUTO);
        p.cost_fallback = 0; /* a loaded machine must not fall back */
        mix_gesv_info info;
        dd_calls = 0;
        const int st = spd ? mix_dposv_ir(&counted, &p, MIX_COL_MAJOR, 'L', n, 1, a, n, b, n, x, n, &info)
                           : mix_dgesv_ir(&counted, &p, MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, &info);
        CU_ASSERT_EQUAL(st, MIX_SUCCESS);
        CU_ASSERT_FALSE(info.fell_back);
        CU_ASSERT(info.iter >= 1 && info.iter <= 3);
        CU_ASSERT(dd_calls <= 1);
        if (getenv("MIXT_VERBOSE"))
            printf("\n    %s: %d steps, %d accurate residuals", spd ? "Cholesky" : "LU", info.iter, dd_calls);
    }
    free(ipiv); free(a); free(b); free(x);
    mix_context_destroy(ctx);
}

static const mixt_test resid_dd_tests[] = {
    {"exact bits where the FP64 residual reads 0", test_exact_bits},
    {"general and symmetric against binary128, NaN triangle", test_against_binary128},
    {"uniform random: a stalled FP64 residual rechecked", test_uniform_converges},
    {"randsvd kappa 1e2: converging steps not rechecked (at most one accurate residual)",
     test_converging_not_rechecked},
    {NULL, NULL},
};

void mixt_register_resid_dd(mix_backend b) { mixt_add_backend_suite(b, "resid-dd", resid_dd_tests); }
