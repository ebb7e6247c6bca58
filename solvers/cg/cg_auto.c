/* cg_auto.c: MIX_PREC_AUTO's storage, by predicted time per iteration: bytes an iteration moves
 * in each candidate storage over the rate the backend measured for it (kernels/backend_sparse.h,
 * spmv_rate), or over one common rate (the byte model) where it measured none.  Not a cache
 * test: on the Xeon of doc/benchmarks.md FP32 and FIXED16 CG beat FP64 CG per iteration on
 * matrices of 1-4 MB too (the SELL bodies vectorise, FP64's CSR does not), 1.3-1.8x in the main
 * job.  Where the kappa found on the way says a sloppy storage would crawl, solvers/cg/cg.c hands
 * over to FP64 (mixi_cg_iter_bound). */
#include "solvers/cg/cg_impl.h"

/* FP32 arithmetic costs CG iterations on smooth right-hand sides: 334 against FP64's 278 on 3D
 * Poisson 100^3 with Jacobi, 18-24% on 60^3 (issue 21); a storage is charged for it. */
#define AUTO_ITER_FACTOR_FP32 1.2
/* Vectors an iteration streams: SpMV p -> Ap (2), r -= alpha Ap (3), x += alpha p and
 * p = r + beta p (5), as solvers/cg/cg.c's fused step does. */
#define AUTO_VECTOR_PASSES 10.0

/* Bytes of the matrix per SpMV (kernels/backend_sparse.h's layouts; SELL padding ignored): FP64
 * CSR 12 per nonzero and the row pointers; SELL the off-diagonal values and int16 offsets and the
 * diagonal apart (FIXED16: a float and an exponent byte). */
static double matrix_bytes(const mix_sparse *A, mix_prec p)
{
    const double n = A->n, off = (double)A->nnz - n > 0 ? (double)A->nnz - n : 0.0;
    const double b = mixk_prec_bytes(p);
    if (p == MIX_FP64) return 12.0 * (double)A->nnz + 8.0 * n;
    return (b + 2.0) * off + (mixk_prec_block_scaled(p) ? 5.0 : b) * n;
}

/* Predicted seconds (byte model: bytes) per FP64-equivalent iteration.  The vectors stream at the
 * FP64 rate where one was measured (they are contiguous, as the FP64 CSR arrays are). */
static double iter_cost(const mix_sparse *A, mix_prec p, const double *rate, int measured)
{
    const double vb = AUTO_VECTOR_PASSES * A->n * (p == MIX_FP64 ? 8.0 : 4.0);
    const double t = measured ? matrix_bytes(A, p) / rate[p] + vb / rate[MIX_FP64]
                              : matrix_bytes(A, p) + vb;
    return p == MIX_FP64 ? t : AUTO_ITER_FACTOR_FP32 * t;
}

mix_prec mixi_cg_auto_choose(const mix_sparse *A, const double rate[MIX_NUM_PREC])
{
    /* The whole matrix's order: a rank's block of a large distributed matrix is not small. */
    if (mixi_cg_n(A) < MIXI_CG_AUTO_MIN_N) return MIX_FP64;
    /* The candidates are the precision table's (MIXK_CG_AUTO: FIXED16, FP32, FP64), tried from
     * its last row up; FP16 and BF16 are never cheaper than FIXED16 (same bytes, fewer bits).
     * A block-scaled one only where its row scale keeps the entries (mixi_sparse_new counts
     * the tiny ones). */
    const int block_ok = A->fixed16_tiny * 100 <= A->nnz;
    int measured = rate != NULL;
    for (int p = 0; p < MIX_NUM_PREC && measured; p++)
        if (mixk_prec_cg_auto((mix_prec)p)) measured = rate[p] > 0.0;
    mix_prec best = MIX_FP64;
    double tbest = iter_cost(A, MIX_FP64, rate, measured);
    for (int p = MIX_NUM_PREC - 1; p >= 0; p--) {
        const mix_prec c = (mix_prec)p;
        if (c == MIX_FP64 || !mixk_prec_cg_auto(c) || (mixk_prec_block_scaled(c) && !block_ok))
            continue;
        const double t = iter_cost(A, c, rate, measured);
        if (t < tbest) tbest = t, best = c;
    }
    return best;
}

mix_prec mixi_cg_auto_prec(const mix_sparse *A)
{
    const mixi_sparse_ops *sp = A->ctx->ops->sparse;
    double rate[MIX_NUM_PREC] = {0};
    if (sp->spmv_rate)
        for (int p = 0; p < MIX_NUM_PREC; p++)
            if (mixk_prec_storage((mix_prec)p)) rate[p] = sp->spmv_rate((mix_prec)p);
    return mixi_cg_auto_choose(A, rate);
}
