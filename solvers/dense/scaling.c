/* scaling.c: power-of-two equilibration and the FP16 range scalar (Higham, Pranesh & Zounon 2019). */
#include <math.h>
#include "solvers/dense/dense.h"

/* Fraction of FP16's largest value (65504) where the largest scaled entry is put.  HPZ use 0.1
 * for storing A in FP16; here the GEMM inputs are the U12 blocks after elimination, so room for
 * element growth matters more: 1/256 (largest entry ~256) lets random dense matrices of a few
 * thousand rows through, and entries down to ~1e-7 of the largest still round to FP16 normals. */
#define FP16_THETA (1.0 / 256.0)

/* 2^-e with 2^e <= v < 2^(e+1): multiplying by it brings v into [1, 2) exactly. */
static double inv_pow2(double v)
{
    if (!(v > 0.0) || !isfinite(v)) return 1.0;
    int e;
    frexp(v, &e); /* v = f 2^e, f in [0.5, 1) */
    /* A subnormal line (e < -1022) would need a factor beyond DBL_MAX: the largest power of
     * two instead, which leaves it small but finite, never Inf. */
    return ldexp(1.0, 1 - e > 1023 ? 1023 : 1 - e);
}

int mixi_scale_compute(mix_context *ctx, mix_prec prec, int n, const double *a, int lda, double *r,
                       double *c, double *s, double *host_tmp)
{
    const mixi_backend_ops *o = ctx->ops;
    const mixi_dense_ops *d = o->dense;
    size_t bytes = (size_t)n * sizeof(double);
    int rc;
    *s = 1.0;
    /* Rows first, then columns of the row-scaled matrix (one sweep of each, as in HPZ Alg. 2.1). */
    if ((rc = d->row_absmax_scaled_f64(ctx->state, n, n, a, lda, NULL, r))) return rc;
    if ((rc = o->download(ctx->state, host_tmp, r, bytes))) return rc;
    for (int i = 0; i < n; i++) host_tmp[i] = inv_pow2(host_tmp[i]);
    if ((rc = o->upload(ctx->state, r, host_tmp, bytes))) return rc;
    if ((rc = d->col_absmax_scaled_f64(ctx->state, n, n, a, lda, r, c))) return rc;
    if ((rc = o->download(ctx->state, host_tmp, c, bytes))) return rc;
    double beta = 0.0;
    for (int j = 0; j < n; j++) {
        double f = inv_pow2(host_tmp[j]);
        double scaled = host_tmp[j] * f; /* this column's max after scaling, in [1, 2) or 0 */
        if (scaled > beta) beta = scaled;
        host_tmp[j] = f;
    }
    if ((rc = o->upload(ctx->state, c, host_tmp, bytes))) return rc;
    if (mixk_prec_range_scaling(prec) && beta > 0.0) {
        /* Largest power of two with s * beta <= theta * max, so small entries use as much of
         * the narrow normal range as possible without risking overflow. */
        int e;
        frexp(FP16_THETA * mixk_prec_max_finite(prec) / beta, &e);
        *s = ldexp(1.0, e - 1);
    }
    return MIX_SUCCESS;
}
