/* sparse_lu_policy.c: MIX_PREC_AUTO for sparse LU: FP32 factors where the analysis predicts that their saving outweighs the refinement. */
#include "solvers/sparse_lu/sparse_lu.h"

/* The FP64 factorization's predicted time is its flops at this fraction of the backend's
 * calibrated DGEMM rate (MUMPS reached 0.53 of OpenBLAS's 512 x 512 x 256 DGEMM rate on 3-D
 * convection-diffusion 40^3, one thread, SkylakeX kernels), and the FP32 factorization is
 * AUTO_FP32_SPEEDUP times faster: measured 1.9x (SkylakeX kernels) and 2.3x (OpenBLAS's generic
 * Prescott kernels) on 40^3 with subnormals flushed.  Not the calibrated SGEMM / DGEMM ratio:
 * two threads of a machine under a load of 7 read 8.39 and 8.40 GF/s, and AUTO took FP64 on
 * 40^3 where FP32 LU-IR was 1.4x faster. */
#define AUTO_MUMPS_EFFICIENCY 0.5
#define AUTO_FP32_SPEEDUP 1.8
/* The FP32 attempt's extra work: AUTO_EXTRA_SOLVES solves with the factors per right-hand side
 * beyond the FP64 solve's one (two corrections, each with an FP64 residual), 2 flops per factor
 * entry at this fraction of the DGEMM rate (an FP32 solve of 40^3 ran at 2.7 GF/s, one thread,
 * DGEMM 51).  Both sides scale with the calibrated rate, so the choice does not depend on it:
 * FP32 where the factorization does more than about 180 flops per factor entry (40^3: 1400,
 * 20^3: 320; dw8192: 90, where FP64 was the faster). */
#define AUTO_SOLVE_EFFICIENCY 0.05
#define AUTO_EXTRA_SOLVES 2.0
/* The predicted saving must be this multiple of the predicted extra work (the model is off by
 * up to 2x either way; a wrong FP32 choice costs a fallback, a wrong FP64 choice only the
 * saving). */
#define AUTO_MARGIN 2.0

mix_prec mixi_sparse_lu_auto_decide(double fp64_gflops, const mixi_splu_estimate *e, int nrhs)
{
    if (!(e->flops > 0.0) || !(fp64_gflops > 0.0)) return MIX_FP64;
    const double t64 = e->flops / (AUTO_MUMPS_EFFICIENCY * fp64_gflops * 1e9);
    const double saving = t64 * (1.0 - 1.0 / AUTO_FP32_SPEEDUP);
    const double extra = AUTO_EXTRA_SOLVES * nrhs * 2.0 * e->entries /
                         (AUTO_SOLVE_EFFICIENCY * fp64_gflops * 1e9);
    return saving > AUTO_MARGIN * extra ? MIX_FP32 : MIX_FP64;
}

mix_prec mixi_sparse_lu_auto_choice(mix_context *ctx, const mixi_splu_estimate *e, int nrhs)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    double r64 = 0.0;
    if (!d->gemm_rate || d->gemm_rate(ctx->state, MIX_FP64, &r64)) return MIX_FP64;
    return mixi_sparse_lu_auto_decide(r64, e, nrhs);
}
