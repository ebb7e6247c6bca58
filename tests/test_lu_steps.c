/* test_lu_steps.c: CUnit suite of the blocked low-precision LU's steps: the block size and its MIXSOLVE_LU_NB override, the checks left on the backend, the phase profile. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tests/mixt.h"
#include "matrices/generators.h"
#include "solvers/dense/dense.h"
#include "solvers/dense/lu_profile.h"

/* ---- the block size ------------------------------------------------------------------------- */

/* Unset or malformed: the backend's choice (the CPU's: mixi_lu_block_size); a positive integer:
 * that block, clipped to n. */
static void test_block_size_override(void)
{
    mix_context *ctx = mixt_context();
    const char *bad[] = {"", "abc", "12x", "-64", "0", " 64", "+64", "1e3", "99999999999"};
    const int own = mixi_factor_block_size(ctx, 20000);
    unsetenv("MIXSOLVE_LU_NB");
    if (mixt_backend == MIX_BACKEND_CPU)
        for (int n = 1; n <= 40000; n = n * 3 + 1)
            CU_ASSERT_EQUAL(mixi_factor_block_size(ctx, n), mixi_lu_block_size(n));
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        setenv("MIXSOLVE_LU_NB", bad[k], 1);
        CU_ASSERT_EQUAL(mixi_factor_block_size(ctx, 20000), own);
    }
    setenv("MIXSOLVE_LU_NB", "512", 1);
    CU_ASSERT_EQUAL(mixi_factor_block_size(ctx, 20000), 512);
    CU_ASSERT_EQUAL(mixi_factor_block_size(ctx, 300), 300);
    setenv("MIXSOLVE_LU_NB", "96", 1);
    CU_ASSERT_EQUAL(mixi_factor_block_size(ctx, 20000), 96);
    unsetenv("MIXSOLVE_LU_NB");
    mix_context_destroy(ctx);
}

/* ---- the checks of the steps ---------------------------------------------------------------- */

/* mixi_lu_lowprec of the n x n a (FP32 copy) in FP16 with block nb on ctx; the factors into f. */
static int lu_on(mix_context *ctx, int n, int nb, const float *a, float *f, int *failed)
{
    const mixi_backend_ops *o = ctx->ops;
    void *df = NULL, *dp = NULL, *work = NULL, *pwork = NULL;
    size_t pbytes = 0;
    int rc = -1;
    *failed = -1;
    if (o->alloc(ctx->state, &df, (size_t)n * n * sizeof(float)) ||
        o->alloc(ctx->state, &dp, (size_t)n * sizeof(int)) ||
        o->alloc(ctx->state, &work, mixi_lu_gemm_work_floats(n, nb) * sizeof(float)) ||
        o->dense->getrf_panel_f32_worksize(ctx->state, n, nb, &pbytes) ||
        (pbytes && o->alloc(ctx->state, &pwork, pbytes)) ||
        o->upload(ctx->state, df, a, (size_t)n * n * sizeof(float)))
        goto out;
    if (!(rc = mixi_lu_lowprec(ctx, MIX_FP16, n, df, n, dp, nb, work, pwork, failed)))
        rc = o->download(ctx->state, f, df, (size_t)n * n * sizeof(float));
out:
    o->free(ctx->state, df);
    o->free(ctx->state, dp);
    o->free(ctx->state, work);
    o->free(ctx->state, pwork);
    return rc;
}

/* The same backend with its memory taken for a device's: the checks come back once, after the
 * loop, as on CUDA.  Both ways must fail at the same matrices and give the same factors. */
static void lu_both_ways(mix_context *ctx, int n, int nb, const float *a, int expect_failed)
{
    mixi_backend_ops later_ops = *ctx->ops;
    later_ops.flags &= ~(unsigned)MIXI_BACKEND_HOST_MEMORY;
    mix_context later = *ctx;
    later.ops = &later_ops;
    float *f1 = malloc((size_t)n * n * sizeof *f1), *f2 = malloc((size_t)n * n * sizeof *f2);
    int failed1 = -1, failed2 = -1;
    CU_ASSERT_FATAL(f1 && f2);
    CU_ASSERT_EQUAL(lu_on(ctx, n, nb, a, f1, &failed1), MIX_SUCCESS);
    CU_ASSERT_EQUAL(lu_on(&later, n, nb, a, f2, &failed2), MIX_SUCCESS);
    CU_ASSERT_EQUAL(failed1, expect_failed);
    CU_ASSERT_EQUAL(failed2, expect_failed);
    if (!expect_failed) CU_ASSERT_EQUAL(memcmp(f1, f2, (size_t)n * n * sizeof *f1), 0);
    free(f1);
    free(f2);
}

/* A clean matrix; a zero column met in the third step (an exact zero pivot there); entries of
 * U12 beyond FP16's range in the first step (the GEMM's inputs overflow). */
static void test_step_checks(void)
{
    mix_context *ctx = mixt_context();
    const int n = 200, nb = 48;
    float *a = mixt_rand32((size_t)n * n, 36), *b = malloc((size_t)n * n * sizeof *b);
    CU_ASSERT_FATAL(a && b);
    lu_both_ways(ctx, n, nb, a, 0);
    memcpy(b, a, (size_t)n * n * sizeof *b);
    for (int i = 0; i < n; i++) b[(size_t)(2 * nb + 5) * n + i] = 0.0f;
    lu_both_ways(ctx, n, nb, b, 1);
    memcpy(b, a, (size_t)n * n * sizeof *b);
    for (size_t k = (size_t)nb * n; k < (size_t)n * n; k++) b[k] = 1e5f * a[k];
    lu_both_ways(ctx, n, nb, b, 1);
    free(a);
    free(b);
    mix_context_destroy(ctx);
}

/* ---- the phase profile ---------------------------------------------------------------------- */

/* FP16 LU-IR of a diagonally dominant n = 400 system in blocks of 64 (7 steps), without and with
 * the profile: the same bits, and phases that are non-negative, were met as often as the steps
 * and the refinement say, and fit in the factorization's and the refinement's wall time. */
static void test_profile(void)
{
    mix_context *ctx = mixt_context();
    const int n = 400;
    double *a = mixt_rand64((size_t)n * n, 7), *b = mixt_rand64((size_t)n, 8);
    double *ac = mixt_dalloc((size_t)n * n), *x0 = mixt_dalloc((size_t)n), *x1 = mixt_dalloc((size_t)n);
    int *ipiv = calloc((size_t)n, sizeof *ipiv);
    CU_ASSERT_FATAL(a && b && ipiv);
    for (int i = 0; i < n; i++) a[(size_t)i * n + i] += n;
    const mix_gesv_params p = mixt_params(MIX_FP16, MIX_REFINE_CLASSICAL);
    mix_gesv_info i0, i1;
    mixi_lu_profile prof;
    memset(&prof, 0, sizeof prof);
    setenv("MIXSOLVE_LU_NB", "64", 1);
    memcpy(ac, a, (size_t)n * n * sizeof *a);
    CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, ac, n, ipiv, b, n, x0, n, &i0), 0);
    mixi_lu_profile_attach(&prof);
    memcpy(ac, a, (size_t)n * n * sizeof *a);
    CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, ac, n, ipiv, b, n, x1, n, &i1), 0);
    mixi_lu_profile_attach(NULL);
    unsetenv("MIXSOLVE_LU_NB");
    CU_ASSERT_EQUAL(memcmp(x0, x1, (size_t)n * sizeof *x0), 0);
    CU_ASSERT_EQUAL(i0.iter, i1.iter);
    CU_ASSERT(i1.iter >= 1);
    CU_ASSERT_EQUAL(prof.nb, 64);
    CU_ASSERT_EQUAL(prof.steps, 7);
    CU_ASSERT_EQUAL(prof.calls[MIXI_LU_PH_PANEL], 7);
    CU_ASSERT_EQUAL(prof.calls[MIXI_LU_PH_GEMM], 6);
    CU_ASSERT_EQUAL(prof.calls[MIXI_LU_PH_CONVERT], 1);
    CU_ASSERT(prof.calls[MIXI_LU_PH_SOLVE] >= i1.iter);
    double factor = 0.0;
    for (int ph = 0; ph < MIXI_LU_NPHASES; ph++) {
        CU_ASSERT(prof.seconds[ph] >= 0.0);
        if (ph != MIXI_LU_PH_SOLVE) factor += prof.seconds[ph];
    }
    CU_ASSERT(factor <= i1.t_factor);
    CU_ASSERT(prof.seconds[MIXI_LU_PH_SOLVE] <= i1.t_refine);
    free(a); free(b); free(ac); free(x0); free(x1); free(ipiv);
    mix_context_destroy(ctx);
}

static const mixt_test lu_steps_tests[] = {
    {"block size: the backend's, MIXSOLVE_LU_NB, malformed values ignored",
     test_block_size_override},
    {"step checks read at once or after the loop: same failures, same factors", test_step_checks},
    {"phase profile: same bits, phases within the wall times", test_profile},
    {NULL, NULL},
};

void mixt_register_lu_steps(mix_backend b) { mixt_add_backend_suite(b, "lu_steps", lu_steps_tests); }
