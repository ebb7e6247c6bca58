/* amg_auto.c: MIX_PREC_AUTO's storage per level of the hierarchy.  The fine level takes CG's
 * AUTO storage (solvers/cg/cg_auto.c); each coarser one the storage whose SpMV measured fastest
 * on that level, by the same rule (mixi_auto_pick), since a level's size decides what wins: a
 * coarse level that sits in a cache is not bound by its bytes, and there FP32's SELL body may
 * beat the 16-bit decode. */
#include "solvers/amg/amg.h"

mix_prec mixi_amg_level_pick(const mixi_amg_level *L, mix_prec fine,
                             const double spmv_s[MIX_NUM_PREC])
{
    int cand[MIX_NUM_PREC] = {0};
    mixi_auto_rates r = {{0}, {0}, 0};
    cand[MIX_FP32] = 1;
    if (fine != MIX_FP64 && mixk_prec_storage(fine) && mixi_amg_fits16(L)) cand[fine] = 1;
    for (int p = 0; p < MIX_NUM_PREC; p++) r.spmv_s[p] = cand[p] ? spmv_s[p] : 0.0;
    /* Every candidate runs FP32 vectors and arithmetic: the same iterations and vector traffic,
     * so the pick is the SpMV time (the narrower storage kept within mixi_auto_pick's tie). */
    return mixi_auto_pick((double)L->n, (double)L->nnz, cand, &r);
}

/* Two rounds after the warm-up: a coarse level's SpMV takes milliseconds at most. */
#define AMG_TIME_ROUNDS 2

int mixi_amg_time_spmv(mix_context *ctx, const mixi_spmat *M, int n, double *seconds)
{
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    mixi_svec x, y;
    double xy;
    int st = mixi_amg_svec_alloc(ctx, MIX_FP32, n, n, &x);
    if (!st) st = mixi_amg_svec_alloc(ctx, MIX_FP32, n, n, &y);
    *seconds = 0.0;
    if (!st && sp->spmv_best) {
        st = sp->spmv_best(ctx->state, M, &x, &y, AMG_TIME_ROUNDS, seconds);
    } else if (!st && !(st = sp->spmv(ctx->state, M, &x, &y, &xy))) { /* warm-up, then the best */
        for (int r = 0; r < AMG_TIME_ROUNDS && !st; r++) {
            const double t0 = mixi_wtime();
            st = sp->spmv(ctx->state, M, &x, &y, &xy);
            const double t = mixi_wtime() - t0;
            if (*seconds <= 0.0 || t < *seconds) *seconds = t;
        }
    }
    if (x.val) ctx->ops->free(ctx->state, x.val);
    if (y.val) ctx->ops->free(ctx->state, y.val);
    return st;
}
