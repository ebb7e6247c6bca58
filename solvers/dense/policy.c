/* policy.c: the dense drivers' decisions in one place: AUTO's factor precision, the cost model
 * of the FP64 solve that refinement competes with, and the block size of the factorizations. */
#include "solvers/dense/dense.h"

int mixi_lu_block_size(int n)
{
    /* Measured on the CPU backend (doc/benchmarks.md): 256 is best from n ~ 1000 up; small
     * matrices take one smaller panel step so the GEMM still does most of the work. */
    if (n <= 256) return n < 64 ? (n > 0 ? n : 1) : 64;
    if (n <= 1024) return 128;
    return 256;
}

/* A 16-bit or TF32 factor must refine longer than FP32's (measured on randsvd kappa = 1e2: 3
 * rounds for FP32, 50-60 GMRES steps for BF16; each round streams A in FP64 and the factors).
 * With calibrated rates it is taken only where its GEMM is this much faster than FP32's and the
 * O(n^3) factorization outweighs the longer O(n^2) refinement. */
#define AUTO_LOWPREC_MIN_GAIN 4.0
#define AUTO_LOWPREC_MIN_N 12288

/* Issue 20: no routed solve may cost more than COST_ENVELOPE times the FP64 solve, whatever
 * happens (fallback included).  The plan aims lower: COST_MARGIN of the FP64 time is left for
 * the cost model's error (the calibrated GEMM rate against dgetrf's own: doc/benchmarks.md) and
 * the passes around the solve (norms, copies, the fallback's backward error). */
#define COST_ENVELOPE 1.3
#define COST_MARGIN 0.1
/* The slack the plan leaves beside the FP64 fallback, in units of the FP64 solve. */
#define COST_SLACK (COST_ENVELOPE - COST_MARGIN - 1.0)
/* A low-precision factorization is started only when it is predicted to leave this share of
 * the slack to refinement (FP32 classical IR: 2-3 rounds of O(n^2) passes). */
#define REFINE_SHARE 0.25
/* A precision the caller asked for is always attempted, as LAPACK's dsgesv always tries FP32
 * (only AUTO keeps to the envelope, by choosing FP64 where nothing fits: on a 2-core Xeon FP32's
 * LU alone takes 0.5 of an FP64 solve).  Its refinement may take at least this share of the
 * FP64 solve, so that one converging in a few rounds is not abandoned because the factorization
 * already used the envelope up, nor one on a time too short to judge under load; a failing one
 * then costs factorization + this + FP64. */
#define ASKED_REFINE_SHARE 0.5
#define ASKED_REFINE_MIN_S 0.1
/* Backends without calibrated rates (CUDA): the refinement may cost this much of the measured
 * low-precision factorization, and never less than UNCALIBRATED_MIN_S (a decision on less time
 * is load noise); no FP64 prediction, so no envelope. */
#define UNCALIBRATED_CAP 0.5
#define UNCALIBRATED_MIN_S 0.1

/* Test hook: a positive value replaces the predicted FP64 solve time (seconds). */
static _Atomic double fp64_seconds_override;

void mixi_set_fp64_seconds(double seconds) { fp64_seconds_override = seconds; }

double mixi_fp64_seconds(mix_context *ctx, double flops)
{
    double forced = fp64_seconds_override, rate = 0.0;
    if (forced > 0.0) return forced;
    const mixi_dense_ops *d = ctx->ops->dense;
    if (d->gemm_rate && !d->gemm_rate(ctx->state, MIX_FP64, &rate) && rate > 0.0)
        return flops / (rate * 1e9);
    return 0.0;
}

/* Flops of an n x n LU solve with nrhs right-hand sides (the FP64 solve AUTO weighs). */
static double lu_flops(int n, int nrhs)
{
    return 2.0 / 3.0 * (double)n * n * n + 2.0 * (double)n * n * nrhs;
}

int mixi_lowprec_affordable(mix_context *ctx, mix_prec prec, double fp64_flops,
                            double factor_flops)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    double t64 = mixi_fp64_seconds(ctx, fp64_flops), rate = 0.0;
    if (t64 <= 0.0 || !d->gemm_rate) return 1; /* nothing to predict with: no envelope */
    /* Never faster than FP32's: a backend may run a narrow precision's smaller updates as
     * rounding + FP32 GEMM (the CPU below oneDNN's size thresholds: a BF16 LU of n = 1000 took
     * 0.8x an FP64 solve where its calibrated rate promised 0.2x).  FP32's rate first: where
     * it does not fit, no other will, and the narrow rate's calibration (oneDNN's kernel
     * generation) is never paid. */
    double r32 = 0.0;
    if (d->gemm_rate(ctx->state, MIX_FP32, &r32) || !(r32 > 0.0)) return 0;
    if (factor_flops / (r32 * 1e9) > (1.0 - REFINE_SHARE) * COST_SLACK * t64) return 0;
    if (prec == MIX_FP32) return 1;
    if (d->gemm_rate(ctx->state, prec, &rate) || !(rate > 0.0)) return 0;
    if (rate > r32) rate = r32;
    return factor_flops / (rate * 1e9) <= (1.0 - REFINE_SHARE) * COST_SLACK * t64;
}

double mixi_refine_budget(mix_context *ctx, double fp64_flops, double t_spent, int asked)
{
    double t64 = mixi_fp64_seconds(ctx, fp64_flops);
    if (t64 <= 0.0) return fmax(UNCALIBRATED_CAP * t_spent, UNCALIBRATED_MIN_S);
    const double left = COST_SLACK * t64 - t_spent;
    return asked ? fmax(left, fmax(ASKED_REFINE_SHARE * t64, ASKED_REFINE_MIN_S)) : left;
}

/* MIX_PREC_AUTO on a large matrix.  Backends with calibrated GEMM rates (the CPU): FP32, unless
 * a native lower precision is far faster at a size where its factorization dominates, and
 * either only where the cost envelope admits it (else FP64: on a 2-core AVX-512 Xeon FP32's LU
 * is only 1.5-2x FP64's, so a failing refinement would cost 1.5-2x LAPACK).  Others (CUDA,
 * where Tensor Cores make the factorization dominate at every size that reaches here): the
 * fastest native GEMM precision, preferring more mantissa bits among equally fast ones (FP16
 * over BF16; TF32 over FP32). */
static mix_prec auto_precision(mix_context *ctx, int n, int nrhs)
{
    /* The order and the default (the last of it) are the precision table's (GEMM column). */
    int last = 1;
    while (mixk_prec_auto_nth(last + 1) != MIX_PREC_AUTO) last++;
    const mix_prec dflt = mixk_prec_auto_nth(last);
    const mixi_dense_ops *d = ctx->ops->dense;
    mix_caps caps = {0};
    if (ctx->ops->caps(&caps)) return dflt;
    if (!d->gemm_rate) {
        for (int i = 1; i <= last; i++)
            if (caps.gemm[mixk_prec_auto_nth(i)] == MIX_PREC_NATIVE) return mixk_prec_auto_nth(i);
        return dflt;
    }
    /* The 16-bit rates only from a size where they may win: measuring them pays oneDNN's
     * one-time kernel generation, which only a factorization this large amortises.  FP32's
     * and FP64's are OpenBLAS's, a few milliseconds. */
    mix_prec pick = dflt;
    double r32 = 0.0, r = 0.0;
    if (n >= AUTO_LOWPREC_MIN_N && !d->gemm_rate(ctx->state, dflt, &r32) && r32 > 0.0)
        for (int i = 1; i < last; i++) {
            const mix_prec p = mixk_prec_auto_nth(i);
            if (caps.gemm[p] == MIX_PREC_NATIVE && !d->gemm_rate(ctx->state, p, &r) &&
                r >= AUTO_LOWPREC_MIN_GAIN * r32) {
                pick = p;
                break;
            }
        }
    const double flops = lu_flops(n, nrhs);
    return mixi_lowprec_affordable(ctx, pick, flops, flops - 2.0 * (double)n * n * nrhs)
               ? pick
               : MIX_FP64;
}

mix_prec mixi_gesv_auto_choice(mix_context *ctx, int n, int nrhs)
{
    return n < MIXI_GESV_AUTO_MIN_N ? MIX_FP64 : auto_precision(ctx, n, nrhs);
}

mix_prec mixi_posv_auto_choice(mix_context *ctx, int n, int nrhs)
{
    /* LU's choice: same GEMM rates, both factorizations are GEMM-bound. */
    return mixi_gesv_auto_choice(ctx, n, nrhs);
}
