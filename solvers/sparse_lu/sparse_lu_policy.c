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
 * entry at this fraction of the DGEMM rate.  MUMPS's solve does not scale with threads as DGEMM
 * does: an FP32 solve of 40^3 ran at 2.7 GF/s on one thread (DGEMM 51: 0.053), 2.2 GF/s on two
 * (DGEMM 120: 0.018), and a 2-D one (500^2) at 0.25 GF/s, its many small fronts costing ~0.5 us
 * per unknown.  Both sides scale with the calibrated rate, so the choice does not depend on it:
 * FP32 where the factorization does more than about 330 flops per factor entry.  Measured
 * (2 threads, Ice Lake, 2026-11-29), FP64 over FP32 LU-IR time: 2-D convection-diffusion 300^2
 * (140 flops per entry) 0.81, 500^2 (213) 0.86, 700^2 (302) 0.92, 1000^2 (410) 1.24; 3-D 20^3
 * (365) 1.12, 25^3 (551) 1.39, 40^3 (1430) 1.41; dw8192 (90): FP64 the faster.  At 0.05 (180
 * per entry) AUTO took FP32 on 2-D 500^2 and 700^2 and lost 14-30% to FP64. */
#define AUTO_SOLVE_EFFICIENCY 0.027
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
