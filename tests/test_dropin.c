/* test_dropin.c: what the LAPACK drop-in relies on inside the library: AUTO's prediction
 * (mix_gesv_auto_prec) and the low-precision factors widened to FP64 (mixi_dgesv_lapack). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "lib/mix_internal.h"
#include "matrices/generators.h"

static mix_context *ctx_new(void)
{
    mix_context *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(mix_context_create(&ctx, mixt_backend), MIX_SUCCESS);
    return ctx;
}

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

/* max |P L U - A| / max |A| for column-major dgetrf-style factors; -1 if ipiv is out of range. */
static double factor_error(int n, const double *a, const double *lu, const int *ipiv)
{
    for (int i = 0; i < n; i++)
        if (ipiv[i] < i + 1 || ipiv[i] > n) return -1.0;
    double *pa = malloc((size_t)n * n * sizeof *pa), amax = 0, emax = 0;
    memcpy(pa, a, (size_t)n * n * sizeof *pa);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n && ipiv[k] - 1 != k; j++) {
            double t = pa[k + (size_t)j * n];
            pa[k + (size_t)j * n] = pa[ipiv[k] - 1 + (size_t)j * n];
            pa[ipiv[k] - 1 + (size_t)j * n] = t;
        }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int kmax = i < j ? i : j;
            double s = i <= j ? lu[i + (size_t)j * n] : lu[i + (size_t)j * n] * lu[j + (size_t)j * n];
            for (int k = 0; k < kmax; k++) s += lu[i + (size_t)k * n] * lu[k + (size_t)j * n];
            emax = fmax(emax, fabs(s - pa[i + (size_t)j * n]));
            amax = fmax(amax, fabs(pa[i + (size_t)j * n]));
        }
    free(pa);
    return emax / amax;
}

static void test_auto_prec_arguments(void)
{
    mix_context *ctx = ctx_new();
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

/* The prediction is the precision MIX_PREC_AUTO then takes (no fallback on this matrix). */
static void test_auto_prec_matches_auto(void)
{
    mix_context *ctx = ctx_new();
    static const int sizes[] = {100, 1100};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        double *a = test_matrix(n, 0), *b = malloc((size_t)n * sizeof *b),
               *x = malloc((size_t)n * sizeof *x);
        int *ipiv = malloc((size_t)n * sizeof *ipiv);
        for (int i = 0; i < n; i++) b[i] = sin(i);
        mix_prec pred = MIX_PREC_AUTO;
        mix_gesv_info info;
        CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, n, 1, &pred), 0);
        CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, NULL, MIX_COL_MAJOR, n, 1, a, n, ipiv, b, n, x, n, &info),
                        0);
        CU_ASSERT_EQUAL(info.factor_prec_used, pred);
        CU_ASSERT(pred == MIX_FP64 ? info.iter == -1 : info.iter >= 0);
        free(a), free(b), free(x), free(ipiv);
    }
    mix_context_destroy(ctx);
}

/* mixi_dgesv_lapack(widen = 1): after a refined solve, a holds P L U of a matrix near A, undone
 * from FP16's equilibration and scaling (rows spanning 2^-9..2^9 make them non-trivial);
 * widen = 0 leaves a untouched, as dsgesv must. */
static void test_widened_factors(void)
{
    mix_context *ctx = ctx_new();
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
        mix_gesv_info info;
        int sing = -1;
        memcpy(a, a0, (size_t)n * n * sizeof *a);
        CU_ASSERT_EQUAL(mixi_dgesv_lapack(ctx, &p, n, 1, a, n, ipiv, b, n, x, n, &info, &sing, 0), 0);
        CU_ASSERT(info.iter >= 0 && info.backward_error < 1e-14);
        CU_ASSERT(memcmp(a, a0, (size_t)n * n * sizeof *a) == 0);
        CU_ASSERT_EQUAL(mixi_dgesv_lapack(ctx, &p, n, 1, a, n, ipiv, b, n, x, n, &info, &sing, 1), 0);
        CU_ASSERT_EQUAL(info.factor_prec_used, precs[k]);
        double fe = factor_error(n, a0, a, ipiv);
        CU_ASSERT(fe >= 0 && fe <= tol[k]);
        /* Not the unscaled (nor the exact) factors: the error is at the precision's level. */
        CU_ASSERT(precs[k] == MIX_FP32 || fe > 1e-6);
    }
    free(a0), free(a), free(b), free(x), free(ipiv);
    mix_context_destroy(ctx);
}

static const mixt_test dropin_tests[] = {
    {"mix_gesv_auto_prec arguments", test_auto_prec_arguments},
    {"mix_gesv_auto_prec = AUTO's choice", test_auto_prec_matches_auto},
    {"widened low-precision factors (dgesv_)", test_widened_factors},
    {NULL, NULL},
};

void mixt_register_dropin(mix_backend b)
{
    mixt_add_backend_suite(b, "dropin", dropin_tests);
}
