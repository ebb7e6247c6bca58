/* test_auto.c: issue 32's defaults that pay: AUTO's choice from the calibrated rates (LU and
 * Cholesky), the give-up rules of a refinement that cannot succeed, and the cheaper path of a
 * precision asked for whose refinement would outweigh the FP64 solve. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "mixt.h"
#include "solvers/dense/dense.h"
#include "lib/api/mix_internal.h"
#include "matrices/generators.h"
#include "matrices/mixmat.h"
#include "kernels/common/prec_traits.h"
#include "kernels/cpu/cpu_features.h"

/* The factor precision with the fewest mantissa bits (a 16-bit one): named by the table, not
 * here. */
static mix_prec narrowest_factor(void)
{
    mix_prec list[MIX_CAPS_PREC_SLOTS], best = MIX_FP32;
    const int k = mix_prec_list(MIX_ROLE_FACTOR, list, MIX_CAPS_PREC_SLOTS);
    for (int i = 0; i < k; i++)
        if (mixk_prec_mant_bits(list[i]) < mixk_prec_mant_bits(best)) best = list[i];
    return best;
}

/* b = A x for a smooth x, nrhs columns. */
static double *rhs(int n, int nrhs, const double *a)
{
    double *x = mixt_dalloc((size_t)n * nrhs), *b = mixt_dalloc((size_t)n * nrhs);
    for (int k = 0; k < n * nrhs; k++) x[k] = sin(1.0 + k) + 0.5;
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int l = 0; l < n; l++) s += a[i + (size_t)l * n] * x[l + (size_t)j * n];
            b[i + (size_t)j * n] = s;
        }
    free(x);
    return b;
}

/* Calibrated rates that say FP32 pays (FP32 GEMM twice FP64's): AUTO takes FP32 from the size
 * where the factorization dominates, for LU and Cholesky; rates that say it does not (FP32 no
 * faster), or a refinement that outweighs the solve (as many right-hand sides as rows): FP64.
 * The hook replaces the rates, so the answer does not depend on the machine or its load. */
static void test_auto_from_rates(void)
{
    mix_context *ctx = mixt_context();
    if (!ctx->ops->dense->gemm_rate) { /* no calibrated rates (CUDA): nothing to weigh */
        mix_context_destroy(ctx);
        return;
    }
    mixi_set_gemm_rates(100.0, 200.0);
    const double f4096 = 2.0 / 3 * pow(4096, 3);
    CU_ASSERT(mixi_lowprec_gain(ctx, MIX_FP32, 0, 4096, 1, f4096, f4096, 0.0) > 1.1);
    mix_prec p = MIX_PREC_AUTO;
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 4096, 1, &p), MIX_SUCCESS);
    CU_ASSERT_EQUAL(p, MIX_FP32);
    CU_ASSERT_EQUAL(mixi_posv_auto_choice(ctx, 4096, 1, 0), MIX_FP32);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 4096, 4096, 0), MIX_FP64); /* refinement outweighs */
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, MIXI_GESV_AUTO_MIN_N - 1, 1, 0), MIX_FP64);
    mixi_set_gemm_rates(100.0, 100.0); /* FP32 no faster than FP64: nothing pays */
    CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 4096, 1, &p), MIX_SUCCESS);
    CU_ASSERT_EQUAL(p, MIX_FP64);
    CU_ASSERT_EQUAL(mixi_posv_auto_choice(ctx, 4096, 1, 0), MIX_FP64);
    mixi_set_gemm_rates(0.0, 0.0);
    mix_context_destroy(ctx);
}

/* LU's half-rate order (policy.c): with both factorizations at n / (n + h) of their GEMM rates,
 * the refinement weighs less, and AUTO takes FP32 at n = 300 (LU) and 1000 (Cholesky), where
 * the rates alone say FP64; pinned rates without h keep the rates alone; n below the thresholds
 * takes FP64.
 * The CPU backend's dgetrf calibration answers at its order with a positive rate. */
static void test_auto_half_rate_order(void)
{
    mix_context *ctx = mixt_context();
    if (!ctx->ops->dense->gemm_rate) {
        mix_context_destroy(ctx);
        return;
    }
    const double f300 = 2.0 / 3 * pow(300, 3);
    mixi_set_gemm_rates(100.0, 200.0);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP64); /* rates alone: 0.5x */
    CU_ASSERT(mixi_lowprec_gain(ctx, MIX_FP32, 0, 300, 1, f300, f300, 0.0) < 1.0);
    CU_ASSERT_EQUAL(mixi_posv_auto_choice(ctx, 1000, 1, 0), MIX_FP64);
    mixi_set_lu_half_order(2000.0);
    CU_ASSERT(mixi_lowprec_gain(ctx, MIX_FP32, 0, 300, 1, f300, f300, 2000.0) > 1.3);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP32);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, MIXI_GESV_AUTO_MIN_N - 1, 1, 0), MIX_FP64);
    CU_ASSERT_EQUAL(mixi_posv_auto_choice(ctx, 1000, 1, 0), MIX_FP32); /* Cholesky: the same h */
    CU_ASSERT_EQUAL(mixi_posv_auto_choice(ctx, MIXI_POSV_AUTO_MIN_N - 1, 1, 0), MIX_FP64);
    mixi_set_gemm_rates(100.0, 100.0); /* FP32 no faster: no order makes it pay */
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP64);
    mixi_set_gemm_rates(0.0, 0.0);
    mixi_set_lu_half_order(0.0);
    /* The same through the environment, as two processes would read it. */
    setenv("MIXSOLVE_GEMM_RATES", "fp64=100,fp32=200,lu_half=2000", 1);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP32);
    setenv("MIXSOLVE_GEMM_RATES", "fp64=100,fp32=200", 1);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP64);
    setenv("MIXSOLVE_GEMM_RATES", "fp64=100,fp32=200,lu_half=-5", 1); /* malformed: ignored */
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP64);
    /* Trailing characters make a value malformed too (strtod alone read "2000x" as 2000). */
    setenv("MIXSOLVE_GEMM_RATES", "fp64=100,fp32=200,lu_half=2000x", 1);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP64);
    setenv("MIXSOLVE_GEMM_RATES", "fp64=100,fp32=200,lu_half=2000 ", 1);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP64);
    setenv("MIXSOLVE_GEMM_RATES", "lu_half=2e3,fp64=100,fp32=200", 1); /* any order, exponents */
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 300, 1, 0), MIX_FP32);
    unsetenv("MIXSOLVE_GEMM_RATES");
    if (ctx->ops->dense->getrf_rate) {
        int n_cal = 0;
        double g = 0.0;
        CU_ASSERT_EQUAL(ctx->ops->dense->getrf_rate(ctx->state, &n_cal, &g), MIX_SUCCESS);
        CU_ASSERT(n_cal > 0);
        CU_ASSERT(g > 0.0 && isfinite(g));
    }
    mix_context_destroy(ctx);
}

/* The refinement rounds' bytes (policy.c): Cholesky's read one triangle of A and of the
 * factors, two thirds of LU's bytes, so at the same flops its attempt is predicted faster; a
 * round's rate pinned high (round=, GB/s) makes the rounds cheap and AUTO takes FP32 at
 * n = 1000 where 12 GB/s (the pinned rates' default) says FP64.  The CPU backend's round
 * calibration answers with a positive rate. */
static void test_auto_round_bytes(void)
{
    mix_context *ctx = mixt_context();
    if (!ctx->ops->dense->gemm_rate) {
        mix_context_destroy(ctx);
        return;
    }
    const double f1000 = 2.0 / 3 * pow(1000, 3);
    mixi_set_gemm_rates(100.0, 200.0);
    const double lu = mixi_lowprec_gain(ctx, MIX_FP32, 0, 1000, 1, f1000, f1000, 0.0);
    const double chol = mixi_lowprec_gain(ctx, MIX_FP32, 1, 1000, 1, f1000, f1000, 0.0);
    CU_ASSERT(lu > 0.0 && chol > lu);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 1000, 1, 0), MIX_FP64);
    mixi_set_gemm_rates(0.0, 0.0);
    setenv("MIXSOLVE_GEMM_RATES", "fp64=100,fp32=200,round=1000", 1);
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 1000, 1, 0), MIX_FP32);
    CU_ASSERT(mixi_lowprec_gain(ctx, MIX_FP32, 0, 1000, 1, f1000, f1000, 0.0) > 1.8);
    setenv("MIXSOLVE_GEMM_RATES", "fp64=100,fp32=200,round=0", 1); /* ignored: 12 GB/s */
    CU_ASSERT_EQUAL(mixi_gesv_auto_choice(ctx, 1000, 1, 0), MIX_FP64);
    unsetenv("MIXSOLVE_GEMM_RATES");
    if (ctx->ops->dense->round_rate) {
        double bps = 0.0;
        CU_ASSERT_EQUAL(ctx->ops->dense->round_rate(ctx->state, &bps), MIX_SUCCESS);
        CU_ASSERT(bps > 1e8 && isfinite(bps));
    }
    mix_context_destroy(ctx);
}

/* randsvd kappa = 1e15: FP32 refinement cannot succeed.  The attempt gives up within a few
 * steps (divergence, stagnation or a hopeless rate), not after 30, and the FP64 fallback's x has
 * FP64's backward error; the simple driver says so as LAPACK's dsgesv (iter -31, dgetrf's
 * factors in A).  n = 300: the expert driver's time budgets turned off (cost_fallback 0), so
 * that only the rules on rates decide, whatever the machine's load; the simple driver keeps them
 * (from n = 256 for a native precision: it falls back as LAPACK's after too many steps, or as
 * its own budget rules). */
static void test_give_up_hopeless(void)
{
    mix_context *ctx = mixt_context();
    const int n = 300;
    double *a = mixt_dalloc((size_t)n * n), *ac = mixt_dalloc((size_t)n * n), *lu = mixt_dalloc((size_t)n * n);
    double *x = mixt_dalloc((size_t)n), hist[40];
    int *ipiv = calloc((size_t)n, sizeof *ipiv), *piv = calloc((size_t)n, sizeof *piv);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_randsvd(n, 1e15, 3, 15, a), 0);
    double *b = rhs(n, 1, a);
    /* The steps counted below are those of OpenBLAS's sgetrf factor: the blocked driver's,
     * taken where OpenBLAS lags the CPU, rounds otherwise and its hopeless trajectory differs
     * (GMRES-IR there stagnates after four steps, not two). */
    mixi_cpu_blas_force_below_isa(0);
    const mix_refine modes[2] = {MIX_REFINE_AUTO, MIX_REFINE_CLASSICAL};
    for (int m = 0; m < 2; m++) {
        mix_gesv_params p = mixt_params(MIX_FP32, modes[m]);
        p.cost_fallback = 0;
        p.residual_history = hist;
        p.history_capacity = 40;
        mix_gesv_info info;
        memcpy(ac, a, (size_t)n * n * sizeof *a);
        CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, ac, n, ipiv, b, n, x, n, &info), 0);
        CU_ASSERT_EQUAL(info.fell_back, 1);
        CU_ASSERT_EQUAL(info.factor_prec_used, MIX_FP64);
        CU_ASSERT_EQUAL(info.iter, -(p.max_iter + 1));
        CU_ASSERT(info.reason == MIX_REASON_NOT_CONVERGED || info.reason == MIX_REASON_FACTOR_FAILED);
        /* The first solve and a few corrections: classical, the first, which does not contract
         * (0.5-0.8); AUTO, that one and GMRES-IR's until they stall, whose count moves with the
         * FP32 factors' rounding: 3 on OpenBLAS's SkylakeX sgetrf, 5-6 on its Haswell and Zen
         * ones and other thread counts (this test failed there with a bound of 3). */
        CU_ASSERT(info.history_length >= 1 && info.history_length <= (m ? 2 : 8));
        CU_ASSERT(mixm_dense_backward_error(n, 1, a, n, b, n, x, n) <= mixt_berr_bound(n));
    }
    int iter = 0;
    memcpy(ac, a, (size_t)n * n * sizeof *a);
    memcpy(lu, a, (size_t)n * n * sizeof *a);
    CU_ASSERT_EQUAL(mix_dsgesv(MIX_COL_MAJOR, n, 1, ac, n, ipiv, b, n, x, n, &iter), 0);
    CU_ASSERT(iter == -31 || iter == -3);
    CU_ASSERT(mixm_dense_backward_error(n, 1, a, n, b, n, x, n) <= mixt_berr_bound(n));
    CU_ASSERT_EQUAL_FATAL(LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, piv), 0);
    mixt_check_default_fp64_factors(n, a, ac, ipiv, lu, piv);
    mixi_cpu_blas_force_below_isa(-1);
    free(a), free(ac), free(lu), free(x), free(b), free(ipiv), free(piv);
    mix_context_destroy(ctx);
}

/* A divergent classical refinement stops at its first growing step: 16-bit factors (the
 * narrowest: BF16, kappa u ~ 400) of a kappa 1e5 matrix refined classically, max_iter 30. */
static void test_give_up_divergence(void)
{
    mix_context *ctx = mixt_context();
    const int n = 200;
    double *a = mixt_dalloc((size_t)n * n), *ac = mixt_dalloc((size_t)n * n), *x = mixt_dalloc((size_t)n);
    double hist[40];
    int *ipiv = calloc((size_t)n, sizeof *ipiv);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_randsvd(n, 1e5, 3, 16, a), 0);
    double *b = rhs(n, 1, a);
    mix_gesv_params p = mixt_params(narrowest_factor(), MIX_REFINE_CLASSICAL);
    p.residual_history = hist;
    p.history_capacity = 40;
    mix_gesv_info info;
    memcpy(ac, a, (size_t)n * n * sizeof *a);
    CU_ASSERT_EQUAL(mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, 1, ac, n, ipiv, b, n, x, n, &info), 0);
    CU_ASSERT_EQUAL(info.fell_back, 1);
    CU_ASSERT_EQUAL(info.reason, MIX_REASON_NOT_CONVERGED);
    CU_ASSERT(info.history_length <= 3);
    CU_ASSERT(info.history_length < 2 || hist[info.history_length - 1] > 0.9 * hist[info.history_length - 2]);
    CU_ASSERT(mixm_dense_backward_error(n, 1, a, n, b, n, x, n) <= mixt_berr_bound(n));
    free(a), free(ac), free(x), free(b), free(ipiv);
    mix_context_destroy(ctx);
}

/* A 16-bit precision asked for with as many right-hand sides as rows (issue 33 item 6: FP16 at
 * n = 500 with 500 columns took 300x LAPACK): the refinement alone would outweigh the FP64 solve, so the
 * call takes FP64 directly (iter -1, MIX_REASON_TOO_SLOW, dgetrf's factors in A), for LU and
 * Cholesky; cost_fallback = 0 still refines. */
static void test_cheaper_path(void)
{
    mix_context *ctx = mixt_context();
    const int n = 120, nrhs = 120;
    double *a = mixt_dalloc((size_t)n * n), *ac = mixt_dalloc((size_t)n * n), *lu = mixt_dalloc((size_t)n * n);
    double *x = mixt_dalloc((size_t)n * nrhs);
    int *ipiv = calloc((size_t)n, sizeof *ipiv), *piv = calloc((size_t)n, sizeof *piv);
    CU_ASSERT_EQUAL_FATAL(mixm_gen_randsvd_spd(n, 1e2, 3, 17, a), 0);
    double *b = rhs(n, nrhs, a);
    for (int spd = 0; spd < 2; spd++) {
        mix_gesv_params p = mixt_params(narrowest_factor(), MIX_REFINE_AUTO);
        mix_gesv_info info;
        memcpy(ac, a, (size_t)n * n * sizeof *a);
        memcpy(lu, a, (size_t)n * n * sizeof *a);
        int st = spd ? mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, nrhs, ac, n, b, n, x, n, &info)
                     : mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, nrhs, ac, n, ipiv, b, n, x, n, &info);
        CU_ASSERT_EQUAL(st, 0);
        CU_ASSERT_EQUAL(info.iter, -1);
        CU_ASSERT_EQUAL(info.reason, MIX_REASON_TOO_SLOW);
        CU_ASSERT_EQUAL(info.factor_prec_used, MIX_FP64);
        CU_ASSERT(mixm_dense_backward_error(n, nrhs, a, n, b, n, x, n) <= mixt_berr_bound(n));
        const int f = spd ? LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, lu, n)
                          : LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, piv);
        CU_ASSERT_EQUAL(f, 0);
        for (int j = 0; j < n; j++) /* the factor's triangle (LU: the whole array) */
            for (int i = spd ? j : 0; i < n; i++)
                CU_ASSERT_EQUAL(ac[i + (size_t)j * n], lu[i + (size_t)j * n]);
        p.cost_fallback = 0;
        memcpy(ac, a, (size_t)n * n * sizeof *a);
        st = spd ? mix_dposv_ir(ctx, &p, MIX_COL_MAJOR, 'L', n, nrhs, ac, n, b, n, x, n, &info)
                 : mix_dgesv_ir(ctx, &p, MIX_COL_MAJOR, n, nrhs, ac, n, ipiv, b, n, x, n, &info);
        CU_ASSERT_EQUAL(st, 0);
        CU_ASSERT(info.iter >= 0);
    }
    free(a), free(ac), free(lu), free(x), free(b), free(ipiv), free(piv);
    mix_context_destroy(ctx);
}

/* The give-up rule, read as a function of the residual ratios (no clock, no matrix): kappa
 * 1e15's first FP32 correction shows the failure and ends the attempt after 2 residuals
 * (classical refinement; AUTO: when its growth is beyond GMRES-IR's reach); a stagnating
 * column gives up after 2 steps without progress, in either mode; progress resets the count;
 * the rescue to GMRES-IR is taken where a classical step shrinks too slowly or grows a little.
 * And a Krylov step starts only where it can end by its deadline. */
static void test_give_up_decisions(void)
{
    const double rescue_max = 2e4; /* FP32 factors: sqrt(u_f / u) */
    int stall = 0;
    /* Classical, diverging: at once, whether or not GMRES-IR may be tried. */
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, 1.5, 0, rescue_max, &stall), MIXI_STEP_GIVE_UP);
    stall = 0;
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, 6e7, 1, rescue_max, &stall), MIXI_STEP_GIVE_UP);
    /* Classical, converging fast: on; slowly (ratio 0.95): 2 such steps give up. */
    stall = 0;
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, 0.05, 0, rescue_max, &stall), MIXI_STEP_GO_ON);
    CU_ASSERT_EQUAL(stall, 0);
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, 0.95, 0, rescue_max, &stall), MIXI_STEP_GO_ON);
    CU_ASSERT_EQUAL(stall, 1);
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, 0.95, 0, rescue_max, &stall), MIXI_STEP_GIVE_UP);
    /* AUTO: slow or slightly growing classical steps go to GMRES-IR, the count reset. */
    stall = 1;
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, 0.74, 1, rescue_max, &stall), MIXI_STEP_TO_KRYLOV);
    CU_ASSERT_EQUAL(stall, 0);
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, 2.0, 1, rescue_max, &stall), MIXI_STEP_TO_KRYLOV);
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, 0.1, 1, rescue_max, &stall), MIXI_STEP_GO_ON);
    /* Krylov: a step that halves the residual is progress; 2 that do not give up. */
    stall = 0;
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(1, 0.7, 1, rescue_max, &stall), MIXI_STEP_GO_ON);
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(1, 0.3, 1, rescue_max, &stall), MIXI_STEP_GO_ON);
    CU_ASSERT_EQUAL(stall, 0);
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(1, 62.0, 1, rescue_max, &stall), MIXI_STEP_GO_ON);
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(1, 0.73, 1, rescue_max, &stall), MIXI_STEP_GIVE_UP);
    /* NaN ratios never read as progress. */
    stall = 0;
    CU_ASSERT_EQUAL(mixi_refine_step_verdict(0, NAN, 0, rescue_max, &stall), MIXI_STEP_GIVE_UP);
    /* Krylov steps against a deadline (seconds of the wall clock; 0: none). */
    CU_ASSERT(mixi_krylov_step_fits(10.0, 0.3, 10.4));
    CU_ASSERT(!mixi_krylov_step_fits(10.0, 0.5, 10.4));
    CU_ASSERT(!mixi_krylov_step_fits(10.5, 0.0, 10.4));
    CU_ASSERT(mixi_krylov_step_fits(1e9, 1e9, 0.0));
}

/* The refinement's budgets (policy.c): the passes the call made before the refinement (the
 * norm, the conversion, allocations) are paid from the worst-case bound's slack, so the fail
 * budget shrinks by exactly their time and is 0 once they used it up, while the pace (a
 * factorization slower than its rate predicts) still scales the FP64 solve the budgets are in
 * units of.  Pinned rates and FP64 time: no clock involved. */
static void test_budget_charges_passes(void)
{
    mix_context *ctx = mixt_context();
    const double flops = 1e11; /* FP32 at 200 GFLOP/s: 0.5 s predicted */
    double fail0, succ0, fail, succ;
    mixi_set_fp64_seconds(1.0);
    mixi_set_gemm_rates(100.0, 200.0);
    mixi_refine_budget(ctx, MIX_FP32, flops, flops, 0.5, 0.0, 1, &fail0, &succ0);
    CU_ASSERT(fail0 > 0.0 && fail0 < 0.1);       /* within the bound's slack of T64 = 1 s */
    CU_ASSERT(succ0 > 1.0 && succ0 < 1.1);       /* asked: the bound beside the factorization */
    mixi_refine_budget(ctx, MIX_FP32, flops, flops, 0.5, 0.25 * fail0, 1, &fail, &succ);
    CU_ASSERT_DOUBLE_EQUAL(fail, 0.75 * fail0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(succ, succ0 - 0.25 * fail0, 1e-12);
    mixi_refine_budget(ctx, MIX_FP32, flops, flops, 0.5, 2.0 * fail0, 1, &fail, &succ);
    CU_ASSERT_EQUAL(fail, 0.0);                  /* the slack is spent: no evidence time left */
    mixi_refine_budget(ctx, MIX_FP32, flops, flops, 0.5, -1.0, 1, &fail, &succ);
    CU_ASSERT_DOUBLE_EQUAL(fail, fail0, 1e-12);  /* a clock step back charges nothing */
    /* AUTO: the refinement must still beat FP64, less all that was spent. */
    mixi_refine_budget(ctx, MIX_FP32, flops, flops, 0.5, 0.0, 0, &fail, &succ);
    CU_ASSERT_DOUBLE_EQUAL(succ, 0.5, 1e-12);
    mixi_refine_budget(ctx, MIX_FP32, flops, flops, 0.5, 0.1, 0, &fail, &succ);
    CU_ASSERT_DOUBLE_EQUAL(succ, 0.4, 1e-12);
    /* A factorization twice slower than predicted: T64 = 2 s, so the slack doubles; the passes
     * are charged in seconds all the same. */
    mixi_refine_budget(ctx, MIX_FP32, flops, flops, 1.0, 0.5 * fail0, 1, &fail, &succ);
    CU_ASSERT_DOUBLE_EQUAL(fail, 1.5 * fail0, 1e-12);
    mixi_set_fp64_seconds(0.0);
    mixi_set_gemm_rates(0.0, 0.0);
    mix_context_destroy(ctx);
}

/* AUTO measures the rates only once its calls' FP64 work reaches 10 times the measurement's:
 * the rule as a function, and the CPU backend's measurement that answers 0 once it is done. */
static void test_calibration_deferred(void)
{
    const double cal = 2.2e9, n512 = 2.0 / 3 * pow(512, 3), n4096 = 2.0 / 3 * pow(4096, 3);
    CU_ASSERT(!mixi_calibration_pays(0.0, n512, cal));  /* a first call at n = 512: FP64 */
    CU_ASSERT(mixi_calibration_pays(0.0, n4096, cal));  /* at n = 4096: it pays at once */
    CU_ASSERT(!mixi_calibration_pays(20e9, 1e9, cal));  /* 21 GFLOP so far: not yet */
    CU_ASSERT(mixi_calibration_pays(20e9, 2e9, cal));   /* 22 GFLOP: now */
    CU_ASSERT(mixi_calibration_pays(0.0, 1.0, 0.0));    /* measured already */
    mix_context *ctx = mixt_context();
    const mixi_dense_ops *d = ctx->ops->dense;
    if (d->calibration_flops && d->gemm_rate && d->getrf_rate && d->round_rate) {
        double r = 0.0;
        int nc = 0;
        CU_ASSERT(d->calibration_flops(ctx->state) >= 0.0);
        CU_ASSERT_EQUAL(d->gemm_rate(ctx->state, MIX_FP64, &r), MIX_SUCCESS);
        CU_ASSERT_EQUAL(d->getrf_rate(ctx->state, &nc, &r), MIX_SUCCESS);
        CU_ASSERT_EQUAL(d->round_rate(ctx->state, &r), MIX_SUCCESS);
        CU_ASSERT_EQUAL(d->calibration_flops(ctx->state), 0.0);
        /* Measured: the prediction and a call decide alike, on the rates. */
        mix_prec p = MIX_PREC_AUTO;
        CU_ASSERT_EQUAL(mix_gesv_auto_prec(ctx, 512, 1, &p), MIX_SUCCESS);
        CU_ASSERT_EQUAL(mixi_auto_prec_for_call(ctx, 0, 512, 1, &p), MIX_SUCCESS);
    }
    mix_context_destroy(ctx);
}

static const mixt_test auto_tests[] = {
    {"AUTO measures its rates once its work pays for them", test_calibration_deferred},
    {"AUTO takes FP32 where calibrated rates say it pays", test_auto_from_rates},
    {"AUTO weighs LU's half-rate order: FP32 from n = 256", test_auto_half_rate_order},
    {"AUTO weighs the rounds' bytes at their measured rate", test_auto_round_bytes},
    {"kappa 1e15: gives up within a few steps, FP64 answer", test_give_up_hopeless},
    {"classical divergence: gives up at once", test_give_up_divergence},
    {"give-up rule and Krylov deadline, as functions", test_give_up_decisions},
    {"fail budget net of the passes already made", test_budget_charges_passes},
    {"many right-hand sides: FP64 directly", test_cheaper_path},
    {NULL, NULL},
};

void mixt_register_auto(mix_backend b) { mixt_add_backend_suite(b, "auto", auto_tests); }
