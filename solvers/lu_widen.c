/* lu_widen.c: low-precision LU factors widened to FP64 in LAPACK dgetrf's form (for the drop-in's dgesv_). */
#include "solvers/solvers.h"

/* The factors are of s R A C (R, C diagonal: r, c; identity when NULL):  P L U = s R A C.  Then
 * A = P L' U' with D = P^T R^-1 P, L' = D L D^-1 (still unit lower) and U' = D U C^-1 / s, so the
 * caller's dgetrs on (out, ipiv) solves with the nearby matrix the factors represent. */
int mixi_lu_widen(mix_context *ctx, int n, const float *lu, int ldlu, const int *ipiv,
                  const double *r, const double *c, double s, double *out, int ldout)
{
    const mix_backend_ops *o = ctx->ops;
    size_t nn;
    int rc;
    if ((rc = mixi_mul_size((size_t)n, (size_t)ldlu, &nn))) return rc;
    float *h = mixi_malloc(nn * sizeof *h);
    double *rr = mixi_malloc((size_t)n * 3 * sizeof *rr);
    int *perm = mixi_malloc((size_t)n * sizeof *perm);
    if (!h || !rr || !perm) {
        rc = MIX_ERR_ALLOC;
        goto out;
    }
    double *cc = rr + n, *d = cc + n;
    if ((rc = o->download(ctx->state, h, lu, nn * sizeof *h))) goto out;
    if (r && (rc = o->download(ctx->state, rr, r, (size_t)n * sizeof *rr))) goto out;
    if (c && (rc = o->download(ctx->state, cc, c, (size_t)n * sizeof *cc))) goto out;
    if (!r)
        for (int i = 0; i < n; i++) rr[i] = 1.0;
    if (!c)
        for (int i = 0; i < n; i++) cc[i] = 1.0;
    /* perm[i]: the row of A that became row i of P^T A (ipiv's interchanges in order). */
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int k = 0; k < n; k++) {
        int t = perm[k], p = ipiv[k] - 1;
        perm[k] = perm[p];
        perm[p] = t;
    }
    /* d[i] = D_ii = 1 / r[perm[i]]; cc[j] becomes 1 / (c_j s). */
    for (int i = 0; i < n; i++) {
        d[i] = 1.0 / rr[perm[i]];
        cc[i] = 1.0 / (cc[i] * s);
    }
    for (int j = 0; j < n; j++) {
        const float *hj = h + (size_t)j * ldlu;
        double *oj = out + (size_t)j * ldout;
        for (int i = 0; i <= j; i++) oj[i] = d[i] * (double)hj[i] * cc[j];
        for (int i = j + 1; i < n; i++) oj[i] = d[i] * (double)hj[i] / d[j];
    }
out:
    mixi_free(h);
    mixi_free(rr);
    mixi_free(perm);
    return rc;
}
