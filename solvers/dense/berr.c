/* berr.c: the normwise backward error of computed solutions, the one formula every dense path reports. */
#include "solvers/dense/dense.h"

int mixi_backward_error(mix_context *ctx, int n, int nrhs, const mixi_matrix *A, double anrm,
                        const double *b, int ldb, const double *x, int ldx, double *r,
                        double *host, double *berr)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    double *xn = host, *rn = xn + nrhs, *bn = rn + nrhs;
    int rc;
    if ((rc = d->lacpy_f64(ctx->state, 0, n, nrhs, b, ldb, r, n)) ||
        (rc = mixi_matrix_apply(ctx, A, n, nrhs, -1.0, x, ldx, 1.0, r, n)) ||
        (rc = d->col_absmax_f64(ctx->state, n, nrhs, r, n, rn)) ||
        (rc = d->col_absmax_f64(ctx->state, n, nrhs, x, ldx, xn)) ||
        (rc = d->col_absmax_f64(ctx->state, n, nrhs, b, ldb, bn)))
        return rc;
    double worst = 0.0;
    for (int j = 0; j < nrhs; j++) {
        double be = mixi_berr_column(rn[j], xn[j], bn[j], anrm);
        host[j] = be; /* each column judged by itself (mixi_range_finish) */
        if (!(be <= worst)) worst = be; /* a NaN shows */
    }
    *berr = worst;
    return MIX_SUCCESS;
}
