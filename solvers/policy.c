/* policy.c: the dense drivers' decisions in one place: AUTO's factor precision, the cost model
 * of the FP64 solve that refinement competes with, and the block size of the factorizations. */
#include "solvers/solvers.h"

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

/* MIX_PREC_AUTO on a large matrix.  Backends with calibrated GEMM rates (the CPU): FP32, unless
 * a native lower precision is far faster at a size where its factorization dominates.  Others
 * (CUDA, where Tensor Cores make the factorization dominate at every size that reaches here):
 * the fastest native GEMM precision, preferring more mantissa bits among equally fast ones
 * (FP16 over BF16; TF32 over FP32), in the order of the precision table's GEMM column. */
static mix_prec auto_precision(mix_context *ctx, int n)
{
    /* The order and the default (the last of it) are the precision table's (GEMM column). */
    int last = 1;
    while (mixk_prec_auto_nth(last + 1) != MIX_PREC_AUTO) last++;
    const mix_prec dflt = mixk_prec_auto_nth(last);
    const mixi_dense_ops *d = ctx->ops->dense;
    double r32 = 0.0;
    /* Below that size the default without measuring anything: a rate calibration pays oneDNN's
     * one-time kernel generation, which only a factorization this large amortises. */
    if (d->gemm_rate && n < AUTO_LOWPREC_MIN_N) return dflt;
    mix_caps caps = {0};
    if (ctx->ops->caps(&caps)) return dflt;
    if (d->gemm_rate && !d->gemm_rate(ctx->state, dflt, &r32) && r32 > 0.0) {
        for (int i = 1; i < last; i++) {
            const mix_prec p = mixk_prec_auto_nth(i);
            double r = 0.0;
            if (caps.gemm[p] == MIX_PREC_NATIVE && !d->gemm_rate(ctx->state, p, &r) &&
                r >= AUTO_LOWPREC_MIN_GAIN * r32)
                return p;
        }
        return dflt;
    }
    for (int i = 1; i <= last; i++)
        if (caps.gemm[mixk_prec_auto_nth(i)] == MIX_PREC_NATIVE) return mixk_prec_auto_nth(i);
    return dflt;
}

/* Test hook: a positive value replaces the predicted FP64 solve time (seconds). */
static _Atomic double fp64_seconds_override;

void mixi_set_fp64_seconds(double seconds) { fp64_seconds_override = seconds; }
int mixi_fp64_seconds_forced(void) { return fp64_seconds_override > 0.0; }

double mixi_fp64_seconds(mix_context *ctx, double flops, double floor)
{
    double forced = fp64_seconds_override, rate = 0.0, t = 0.0;
    if (forced > 0.0) return forced;
    const mixi_dense_ops *d = ctx->ops->dense;
    if (d->gemm_rate && !d->gemm_rate(ctx->state, MIX_FP64, &rate) && rate > 0.0)
        t = flops / (rate * 1e9);
    return t > floor ? t : floor;
}

mix_prec mixi_gesv_auto_choice(mix_context *ctx, int n, int nrhs)
{
    (void)nrhs;
    return n < MIXI_GESV_AUTO_MIN_N ? MIX_FP64 : auto_precision(ctx, n);
}

mix_prec mixi_posv_auto_choice(mix_context *ctx, int n, int nrhs)
{
    /* LU's choice: same GEMM rates, both factorizations are GEMM-bound. */
    return mixi_gesv_auto_choice(ctx, n, nrhs);
}
