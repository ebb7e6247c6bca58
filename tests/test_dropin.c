/* test_dropin.c: what the LAPACK drop-in relies on inside the library: AUTO's prediction
 * (mix_gesv_auto_prec) and the low-precision factors widened to FP64 (mixi_dgesv_lapack,
 * mixi_dposv_lapack). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "tests/lu_check.h"
#include "lib/api/mix_internal.h"
#include "matrices/generators.h"

/* A well-conditioned n x n: uniform [-1, 1) plus 4 on the diagonal, each row scaled by
 * 2^(row_scale * (i mod 7 - 3)) so that equilibration has work to do. */
static double *test_matrix(int n, double row_scale)
{
    double *a = malloc((size_t)n * n * sizeof *a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_random_dense(n, 7, a), 0);
    for (int i = 0; i < n; i++) a[i + (size_t)i * n] += 4.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) a[i + (size_t)j * n] *= ldexp(1.0, (int)row_scale * (i % 7 - 3));
    return a;
}

static void test_auto_prec_arguments(void)
{
    mix_context *ctx = mixt_context();
    mix_prec p = MIX_PREC_AUTO;
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(NULL, 10, 1, &p), -1);
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, -1, 1, &p), -2);
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 10, -1, &p), -3);
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 10, 1, NULL), -4);
    CU_ASSERT_EQUAL(p, MIX_PREC_AUTO); /* nothing written on an error */
    /* A tiny system never pays for a low precision. */
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 8, 1, &p), 0);
    CU_ASSERT_EQUAL(p, MIX_FP64);
    mix_context_destroy(ctx);
}

/* The prediction is the precision MIX_PREC_AUTO then takes, on this process's own calibrated
 * rates (the real calibration path; in one process both read the same rates).  Under load the
 * attempt may still give up on the clock (MIX_REASON_TOO_SLOW, the bound at work), so the
 * decision is read where the clock cannot change it: with the defaults, FP64 chosen directly
 * (reason DIRECT, iter -1) exactly when predicted; without the time budget (cost_fallback = 0),
 * the precision used and a refined answer (no fallback on this matrix). */
static void test_auto_prec_matches_auto(void)
{
    mix_context *ctx = mixt_context();
    static const int sizes[] = {100, 1100};
    mix_gesv_params untimed;
    mix_gesv_params_init(&untimed);
    untimed.cost_fallback = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        double *a0 = test_matrix(n, 0), *a = malloc((size_t)n * n * sizeof *a),
               *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
        int *ipiv = malloc((size_t)n * sizeof *ipiv);
        for (int i = 0; i < n; i++) b[i] = sin(i);
        mix_prec pred = MIX_PREC_AUTO;
        mix_gesv_info info;
        CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, n, 1, &pred), 0);
        memcpy(a, a0, (size_t)n * n * sizeof *a);
        CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, NULL, MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, &info),
                        0);
        CU_ASSERT_EQUAL(info.reason == MIX_REASON_DIRECT, pred == MIX_FP64);
        CU_ASSERT(pred == MIX_FP64 ? info.iter == -1 : info.iter != -1);
        memcpy(a, a0, (size_t)n * n * sizeof *a);
        CU_ASSERT_EQUAL(
            mix_dgesv_ir(ctx, &untimed, MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, &info), 0);
        CU_ASSERT_EQUAL(info.factor_prec_used, pred);
        CU_ASSERT(pred == MIX_FP64 ? info.iter == -1 : info.iter >= 0);
        free(a0), free(a), free(b), free(x), free(ipiv);
    }
    mix_context_destroy(ctx);
}

/* MIXSOLVE_GEMM_RATES pins the rates the prediction weighs (GFLOP/s), so that two processes
 * (the drop-in tests' predictor and the drop-in) decide alike whatever the load: equal FP32 and
 * FP64 rates leave nothing to gain (FP64), FP32 2.5 times FP64's pays at n = 4096 (FP32); a
 * malformed value is ignored, and the prediction is then the calibrated one again. */
static void test_auto_prec_pinned_rates(void)
{
    mix_context *ctx = mixt_context();
    mix_prec calibrated, p;
    int cpu = mixt_backend == MIX_BACKEND_CPU;
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 4096, 1, &calibrated), 0);
    setenv("MIXSOLVE_GEMM_RATES", "fp64=100,fp32=100", 1);
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 4096, 1, &p), 0);
    if (cpu) CU_ASSERT_EQUAL(p, MIX_FP64);
    setenv("MIXSOLVE_GEMM_RATES", "fp32=250,fp64=100", 1);
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 4096, 1, &p), 0);
    if (cpu) CU_ASSERT_EQUAL(p, MIX_FP32);
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 500, 1, &p), 0); /* the small-n rule still holds */
    CU_ASSERT_EQUAL(p, MIX_FP64);
    /* Out of 1e-6..1e9: ignored (FP32's measured rate), not an infinite rate that made FP32's
     * time 0 and AUTO take FP64. */
    setenv("MIXSOLVE_GEMM_RATES", "fp64=1,fp32=1e308", 1);
    CU_ASSERT_EQUAL(mixi_env_list_value("MIXSOLVE_GEMM_RATES", "fp32"), 0.0);
    CU_ASSERT_EQUAL(mixi_env_list_value("MIXSOLVE_GEMM_RATES", "fp64"), 1.0);
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 4096, 1, &p), 0);
    if (cpu) CU_ASSERT_EQUAL(p, MIX_FP32);
    setenv("MIXSOLVE_GEMM_RATES", "fp64=1e-308,fp32=2e9", 1);
    CU_ASSERT_EQUAL(mixi_env_list_value("MIXSOLVE_GEMM_RATES", "fp64"), 0.0);
    CU_ASSERT_EQUAL(mixi_env_list_value("MIXSOLVE_GEMM_RATES", "fp32"), 0.0);
    setenv("MIXSOLVE_GEMM_RATES", "fp64=-1,fp32=x", 1);
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 4096, 1, &p), 0);
    CU_ASSERT_EQUAL(p, calibrated);
    unsetenv("MIXSOLVE_GEMM_RATES");
    mix_context_destroy(ctx);
}

/* mixi_dgesv_lapack(widen = 1): after a refined solve, a holds P L U of a matrix near A, undone
 * from FP16's equilibration and scaling (rows spanning 2^-9..2^9 make them non-trivial);
 * widen = 0 leaves a untouched, as dsgesv must. */
static void test_widened_factors(void)
{
    mix_context *ctx = mixt_context();
    const int n = 300;
    static const mix_prec precs[] = {MIX_FP32, MIX_FP16, MIX_BF16};
    static const double tol[] = {1e-5, 2e-2, 1e-1};
    double *a0 = test_matrix(n, 3), *a = malloc((size_t)n * n * sizeof *a),
           *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    for (int i = 0; i < n; i++) b[i] = cos(i);
    for (size_t k = 0; k < sizeof precs / sizeof precs[0]; k++) {
        mix_gesv_params p;
        mix_gesv_params_init(&p);
        p.factor_prec = precs[k];
        p.cost_fallback = 0; /* the factors, not the time budget: no load may fall back */
        mix_gesv_info info;
        int sing = -1;
        memcpy(a, a0, (size_t)n * n * sizeof *a);
        CU_ASSERT_EQUAL(mixi_dgesv_lapack(ctx, &p, n, 1, a, n, ipiv, b, n, x, n, &info, &sing, 0), 0);
        CU_ASSERT(info.iter >= 0 && info.backward_error < 1e-14);
        CU_ASSERT(memcmp(a, a0, (size_t)n * n * sizeof *a) == 0);
        CU_ASSERT_EQUAL(mixi_dgesv_lapack(ctx, &p, n, 1, a, n, ipiv, b, n, x, n, &info, &sing, 1), 0);
        CU_ASSERT_EQUAL(info.factor_prec_used, precs[k]);
        double fe = lu_factor_error(n, a0, a, ipiv);
        CU_ASSERT(fe >= 0 && fe <= tol[k]);
        /* Not the unscaled (nor the exact) factors: the error is at the precision's level. */
        CU_ASSERT(precs[k] == MIX_FP32 || fe > 1e-6);
    }
    free(a0), free(a), free(b), free(x), free(ipiv);
    mix_context_destroy(ctx);
}

/* An SPD n x n, both triangles: S = symmetric uniform [-1, 1) (spectrum within about
 * +-1.2 sqrt(n)) plus 2.5 sqrt(n) on the diagonal (kappa ~ 4, not diagonally dominant, so the
 * factor's rounding errors show), as D S D with D_ii = 2^(3 (i mod 7 - 3)), so the symmetric
 * scaling has work to do. */
static double *spd_matrix(int n)
{
    double *a = test_matrix(n, 0);
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double v = i == j ? 2.5 * sqrt((double)n) : a[i + (size_t)j * n];
            v *= ldexp(1.0, 3 * (i % 7 - 3) + 3 * (j % 7 - 3));
            a[i + (size_t)j * n] = a[j + (size_t)i * n] = v;
        }
    return a;
}

/* max over i >= j of |(F F^T - A)_ij| / sqrt(a_ii a_jj), F = the lower triangle of f (uplo 'L')
 * or the transpose of its upper one ('U'). */
static double chol_error(int n, char uplo, const double *a, const double *f)
{
    double worst = 0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double s = 0;
            for (int k = 0; k <= j; k++)
                s += uplo == 'L' ? f[i + (size_t)k * n] * f[j + (size_t)k * n]
                                 : f[k + (size_t)i * n] * f[k + (size_t)j * n];
            double e = fabs(s - a[i + (size_t)j * n]) /
                       sqrt(a[i + (size_t)i * n] * a[j + (size_t)j * n]);
            if (!(e <= worst)) worst = e;
        }
    return worst;
}

/* mixi_dposv_lapack(widen = 1): after a refined solve, a's uplo triangle holds a Cholesky factor
 * of a matrix near A, undone from the symmetric scaling (FP16, BF16), within 2 u per product,
 * the FP32 accumulation and the largest diagonal shift (32 u a_ii); the other triangle is not
 * touched; widen = 0 leaves a untouched, as dsposv must. */
static void test_widened_chol_factor(void)
{
    mix_context *ctx = mixt_context();
    const int n = 300;
    static const mix_prec precs[] = {MIX_FP32, MIX_FP16, MIX_BF16};
    static const int mant[] = {23, 10, 7};
    double *full = spd_matrix(n), *a0 = malloc((size_t)n * n * sizeof *a0),
           *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * sizeof *b),
           *x = malloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) b[i] = cos(i);
    for (int u = 0; u < 2; u++) {
        const char uplo = u ? 'U' : 'L';
        for (int j = 0; j < n; j++) /* the other triangle: NaN, never read nor written */
            for (int i = 0; i < n; i++)
                a0[i + (size_t)j * n] = (u ? i <= j : i >= j) ? full[i + (size_t)j * n] : NAN;
        for (size_t k = 0; k < sizeof precs / sizeof precs[0]; k++) {
            mix_gesv_params p;
            mix_gesv_params_init(&p);
            p.factor_prec = precs[k];
            p.fallback = 0; /* as the drop-in's dposv_ */
            mix_gesv_info info;
            int not_pd = -1;
            memcpy(a, a0, (size_t)n * n * sizeof *a);
            CU_ASSERT_EQUAL(mixi_dposv_lapack(ctx, &p, uplo, n, 1, a, n, b, n, x, n, &info,
                                              &not_pd, 0), 0);
            CU_ASSERT(info.iter >= 0 && info.backward_error < 1e-14);
            CU_ASSERT(memcmp(a, a0, (size_t)n * n * sizeof *a) == 0);
            CU_ASSERT_EQUAL(mixi_dposv_lapack(ctx, &p, uplo, n, 1, a, n, b, n, x, n, &info,
                                              &not_pd, 1), 0);
            CU_ASSERT_EQUAL(info.factor_prec_used, precs[k]);
            double ce = chol_error(n, uplo, full, a),
                   bound = 34.0 * ldexp(1.0, -mant[k] - 1) + (n + 2) * ldexp(1.0, -24);
            CU_ASSERT(ce <= bound);
            /* Not the FP64 factor (~1e-16 here): the 16-bit rounding shows (FP16 measured 4.7e-6,
             * BF16 3.9e-5). */
            CU_ASSERT(precs[k] == MIX_FP32 || ce > 1e-6);
            int untouched = 1;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    if (u ? i > j : i < j) untouched &= isnan(a[i + (size_t)j * n]);
            CU_ASSERT(untouched);
        }
    }
    free(full), free(a0), free(a), free(b), free(x);
    mix_context_destroy(ctx);
}

/* What dposv_ relies on to hand a call to LAPACK untouched: with no fallback, a matrix that is
 * not SPD (a_kk < 0, or a positive diagonal with an indefinite minor) leaves a unchanged; a
 * system that needs range scaling is refused with a factor wanted (MIX_ERR_UNSUPPORTED, a and x
 * unchanged) and solved without. */
static void test_chol_factor_refusals(void)
{
    mix_context *ctx = mixt_context();
    const int n = 200;
    double *a0 = spd_matrix(n), *a = malloc((size_t)n * n * sizeof *a),
           *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    for (int i = 0; i < n; i++) b[i] = sin(i);
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = MIX_FP16;
    p.fallback = 0;
    mix_gesv_info info;
    int not_pd = -1;
    for (int c = 0; c < 2; c++) {
        double *spoilt = spd_matrix(n);
        const size_t kk = (size_t)(n / 2) * (n + 1);
        if (c == 0) spoilt[kk] = -1.0;
        else spoilt[kk + 1] = spoilt[kk + n] = 2.0 * sqrt(spoilt[kk] * spoilt[kk + n + 1]);
        memcpy(a, spoilt, (size_t)n * n * sizeof *a);
        CU_ASSERT_EQUAL(mixi_dposv_lapack(ctx, &p, 'L', n, 1, a, n, b, n, x, n, &info, &not_pd, 1),
                        MIX_ERR_NOT_SPD);
        CU_ASSERT_EQUAL(info.reason, MIX_REASON_FACTOR_FAILED);
        CU_ASSERT(memcmp(a, spoilt, (size_t)n * n * sizeof *a) == 0);
        free(spoilt);
    }
    for (size_t k = 0; k < (size_t)n * n; k++) a0[k] = ldexp(a0[k], -120); /* below 2^-64 */
    for (int i = 0; i < n; i++) x[i] = -7.0;
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    CU_ASSERT_EQUAL(mixi_dposv_lapack(ctx, &p, 'L', n, 1, a, n, b, n, x, n, &info, &not_pd, 1),
                    MIX_ERR_UNSUPPORTED);
    CU_ASSERT(memcmp(a, a0, (size_t)n * n * sizeof *a) == 0);
    int unwritten = 1;
    for (int i = 0; i < n; i++) unwritten &= x[i] == -7.0;
    CU_ASSERT(unwritten);
    CU_ASSERT_EQUAL(mixi_dposv_lapack(ctx, &p, 'L', n, 1, a, n, b, n, x, n, &info, &not_pd, 0), 0);
    CU_ASSERT(info.iter >= 0);
    free(a0), free(a), free(b), free(x);
    mix_context_destroy(ctx);
}

/* A low-rank-plus-ridge SPD matrix, G G^T / k + eps I (G: the first k columns of test_matrix,
 * k below the first block of 128),
 * whose Schur complements are eps I: the 16-bit rounding of the trailing update drives them
 * indefinite, and the low-precision Cholesky succeeds only with Higham and Pranesh's shift.
 * The widened factor is then of A + E with E's diagonal up to 32 u a_ii (mixsolve_lapack(7)). */
static void test_shifted_chol_factor(void)
{
    mix_context *ctx = mixt_context();
    const int n = 300, k = 100;
    const double eps = 1e-4;
    double *g = test_matrix(n, 0), *full = malloc((size_t)n * n * sizeof *full),
           *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * sizeof *b),
           *x = malloc((size_t)n * sizeof *x);
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            double v = i == j ? eps : 0.0;
            for (int c = 0; c < k; c++) v += g[i + (size_t)c * n] * g[j + (size_t)c * n] / k;
            full[i + (size_t)j * n] = full[j + (size_t)i * n] = v;
        }
    for (int i = 0; i < n; i++) b[i] = cos(i);
    static const mix_prec precs[] = {MIX_FP16, MIX_BF16};
    static const int mant[] = {10, 7};
    for (size_t q = 0; q < sizeof precs / sizeof precs[0]; q++) {
        mix_gesv_params p;
        mix_gesv_params_init(&p);
        p.factor_prec = precs[q];
        p.fallback = 0;
        mix_gesv_info info;
        int not_pd = -1;
        /* Without scaling no shift is tried: the low-precision Cholesky breaks down. */
        p.scale = 0;
        memcpy(a, full, (size_t)n * n * sizeof *a);
        CU_ASSERT_EQUAL(mixi_dposv_lapack(ctx, &p, 'L', n, 1, a, n, b, n, x, n, &info, &not_pd, 1),
                        MIX_ERR_NOT_SPD);
        CU_ASSERT_EQUAL(info.reason, MIX_REASON_FACTOR_FAILED);
        CU_ASSERT(memcmp(a, full, (size_t)n * n * sizeof *a) == 0);
        /* With it, the shifted factor refines X to FP64 accuracy and is handed back. */
        p.scale = 1;
        CU_ASSERT_EQUAL(mixi_dposv_lapack(ctx, &p, 'L', n, 1, a, n, b, n, x, n, &info, &not_pd, 1),
                        0);
        CU_ASSERT(info.iter >= 0 && info.backward_error < 1e-14);
        const double u = ldexp(1.0, -mant[q] - 1), ce = chol_error(n, 'L', full, a);
        CU_ASSERT(ce <= 34.0 * u + (n + 2) * ldexp(1.0, -24));
        /* The shift shows on the diagonal: at least u a_ii (the first step, 4 u of the scaled
         * diagonal in [1, 4)); measured 4.0 u (FP16) and 3.8 u (BF16), against ~1e-5 for
         * rounding alone. */
        CU_ASSERT(ce >= u);
    }
    free(g), free(full), free(a), free(b), free(x);
    mix_context_destroy(ctx);
}

/* dgesv_'s factors for a system that needs range scaling (entries below 2^-64): refused with a
 * factor wanted (MIX_ERR_UNSUPPORTED, a and x unchanged: the drop-in hands it to LAPACK), since
 * the factors would be those of the rescaled matrix and would be written before the rescaled x
 * is re-checked; solved without. */
static void test_widened_factors_range(void)
{
    mix_context *ctx = mixt_context();
    const int n = 200;
    double *a0 = test_matrix(n, 0), *a = malloc((size_t)n * n * sizeof *a),
           *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    for (size_t k = 0; k < (size_t)n * n; k++) a0[k] = ldexp(a0[k], -120);
    for (int i = 0; i < n; i++) b[i] = cos(i), x[i] = -7.0;
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = MIX_FP32;
    mix_gesv_info info;
    int sing = -1;
    memcpy(a, a0, (size_t)n * n * sizeof *a);
    /* Before the refusal: status 0 and factors of 2^120 A (factor error 3e35). */
    CU_ASSERT_EQUAL(mixi_dgesv_lapack(ctx, &p, n, 1, a, n, ipiv, b, n, x, n, &info, &sing, 1),
                    MIX_ERR_UNSUPPORTED);
    CU_ASSERT(memcmp(a, a0, (size_t)n * n * sizeof *a) == 0);
    int unwritten = 1;
    for (int i = 0; i < n; i++) unwritten &= x[i] == -7.0;
    CU_ASSERT(unwritten);
    CU_ASSERT_EQUAL(mixi_dgesv_lapack(ctx, &p, n, 1, a, n, ipiv, b, n, x, n, &info, &sing, 0), 0);
    CU_ASSERT(info.iter >= 0 && info.backward_error < 1e-14);
    free(a0), free(a), free(b), free(x), free(ipiv);
    mix_context_destroy(ctx);
}

static const mixt_test dropin_tests[] = {
    {"mix_gesv_auto_prec arguments", test_auto_prec_arguments},
    {"mix_gesv_auto_prec = AUTO's choice", test_auto_prec_matches_auto},
    {"mix_gesv_auto_prec: rates pinned by MIXSOLVE_GEMM_RATES", test_auto_prec_pinned_rates},
    {"widened low-precision factors (dgesv_)", test_widened_factors},
    {"dgesv_ factors: range scaling refused", test_widened_factors_range},
    {"widened low-precision Cholesky factor (dposv_)", test_widened_chol_factor},
    {"dposv_ hand-over: not SPD, range scaling", test_chol_factor_refusals},
    {"widened Cholesky factor after a diagonal shift", test_shifted_chol_factor},
    {NULL, NULL},
};

void mixt_register_dropin(mix_backend b)
{
    mixt_add_backend_suite(b, "dropin", dropin_tests);
}
