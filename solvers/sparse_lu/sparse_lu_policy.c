/* sparse_lu_policy.c: MIX_PREC_AUTO for sparse LU: FP32 factors where the analysis predicts that their saving outweighs the refinement. */
#include "solvers/sparse_lu/sparse_lu.h"

/* The factorization's predicted time is its flops at this fraction of the backend's calibrated
 * GEMM rate of the precision: MUMPS reached 0.44 of OpenBLAS's SGEMM rate and 0.53 of DGEMM's on
 * 3-D convection-diffusion 40^3 (one thread, SkylakeX kernels).  The rates are the process's
 * own, so a BLAS whose FP32 runs no faster than its FP64 makes AUTO take FP64. */
#define AUTO_MUMPS_EFFICIENCY 0.5
/* An FP32 solve with the factors, per column and entry of the factors (0.75-1.35 ns measured
 * on 40^3, one thread), and the solves the FP32 attempt makes beyond the FP64 solve's one:
 * two corrections, each with an FP64 residual. */
#define AUTO_SOLVE_S_PER_ENTRY 1.5e-9
#define AUTO_EXTRA_SOLVES 2.0
/* The predicted saving must be this multiple of the predicted extra work (the model is off by
 * up to 2x either way; a wrong FP32 choice costs a fallback, a wrong FP64 choice only the
 * saving). */
#define AUTO_MARGIN 2.0

mix_prec mixi_sparse_lu_auto_decide(double fp64_gflops, double fp32_gflops,
                                    const mixi_splu_estimate *e, int nrhs)
{
    if (!(e->flops > 0.0) || !(fp64_gflops > 0.0) || !(fp32_gflops > fp64_gflops))
        return MIX_FP64;
    const double rate = AUTO_MUMPS_EFFICIENCY * 1e9;
    const double saving = e->flops / (rate * fp64_gflops) - e->flops / (rate * fp32_gflops);
    const double extra = AUTO_EXTRA_SOLVES * nrhs * e->entries * AUTO_SOLVE_S_PER_ENTRY;
    return saving > AUTO_MARGIN * extra ? MIX_FP32 : MIX_FP64;
}

mix_prec mixi_sparse_lu_auto_choice(mix_context *ctx, const mixi_splu_estimate *e, int nrhs)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    double r64 = 0.0, r32 = 0.0;
    if (!d->gemm_rate || d->gemm_rate(ctx->state, MIX_FP64, &r64) ||
        d->gemm_rate(ctx->state, MIX_FP32, &r32))
        return MIX_FP64;
    return mixi_sparse_lu_auto_decide(r64, r32, e, nrhs);
}
