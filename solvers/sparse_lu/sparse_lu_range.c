/* sparse_lu_range.c: matrices and right-hand sides near FP64's ends: the system solved scaled by powers of two, each solution checked in the caller's units. */
#include <math.h>
#include "solvers/sparse_lu/sparse_lu_internal.h"

/* A column whose solution's predicted magnitude, ||b_j|| / ||A||, lies within
 * 2^+-MIXI_RANGE_EXP is solved as given (lib/core's range: far from FP64's ends, the residual
 * and the stopping test's products neither overflow nor underflow). */
static int column_exponent(int n, const double *b, double anrm)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        if (fabs(b[i]) > m) m = fabs(b[i]);
    if (!(m > 0.0) || !(anrm > 0.0)) return 0;
    int k = ilogb(m) - ilogb(anrm);
    return k > MIXI_RANGE_EXP || k < -MIXI_RANGE_EXP ? k : 0;
}

int mixi_splu_range_begin(mixi_splu_problem *P, mixi_splu_range *R)
{
    *R = (mixi_splu_range){0};
    const int n = P->n;
    int any = 0;
    if (!(R->s = mixi_malloc_n(2 * (size_t)P->nrhs, sizeof(int)))) return MIX_ERR_ALLOC;
    R->t = R->s + P->nrhs;
    for (int j = 0; j < P->nrhs; j++) {
        any |= (R->s[j] = column_exponent(n, P->b + (size_t)j * P->ldb, P->anrm)) != 0;
        R->rescale |= (R->t[j] = R->s[j] - P->exponent) != 0;
    }
    if (!any) return MIX_SUCCESS;
    int rc = mixi_balloc(P->ctx, (void **)&R->bs, (size_t)n, (size_t)P->nrhs, sizeof(double));
    if (rc) return rc;
    for (int j = 0; j < P->nrhs; j++)
        for (int i = 0; i < n; i++)
            R->bs[(size_t)j * n + i] = ldexp(P->b[(size_t)j * P->ldb + i], -R->s[j]);
    P->b = R->bs; /* the solve runs on B 2^-s */
    P->ldb = n;
    return MIX_SUCCESS;
}

/* Column j's backward error in the scaled units for y (scratch r of n doubles). */
static int scaled_berr(const mixi_splu_problem *P, int j, const double *y, double *r, double *be)
{
    const int n = P->n;
    const double *bj = P->b + (size_t)j * P->ldb;
    double rn = 0.0, yn = 0.0, bn = 0.0;
    for (int i = 0; i < n; i++) r[i] = bj[i];
    int rc = P->ops->apply(P->ctx->state, P->F, 1, -1.0, y, n, 1.0, r, n);
    for (int i = 0; !rc && i < n; i++) {
        if (!(fabs(r[i]) <= rn) && !isnan(rn)) rn = fabs(r[i]); /* a NaN stays */
        if (fabs(y[i]) > yn) yn = fabs(y[i]);
        if (fabs(bj[i]) > bn) bn = fabs(bj[i]);
    }
    *be = mixi_berr_column(rn, yn, bn, P->anrm);
    return rc;
}

/* Column j scaled back into the caller's units by 2^kb; MIX_ERR_OVERFLOW when it does not fit
 * FP64, MIX_ERR_NOT_CONVERGED when underflow there cost it the digits the stopping test needs:
 * its backward error, measured on x 2^-kb where no norm under- or overflows, is then worse than
 * twice the solve's and than tol (dense_range.c's re-check).  *be: that backward error. */
static int column_finish(mixi_splu_problem *P, int j, int kb, double tol, double *w, double *be)
{
    const int n = P->n;
    double *xj = P->x + (size_t)j * P->ldx, *y = w + n, be_s, be_y;
    for (int i = 0; i < n; i++) y[i] = xj[i];
    int rc = scaled_berr(P, j, y, w, &be_s);
    for (int i = 0; i < n; i++) { /* the whole column, in one unit, even where it overflows */
        xj[i] = ldexp(xj[i], kb);
        if (!rc && !isfinite(xj[i])) rc = MIX_ERR_OVERFLOW;
        y[i] = ldexp(xj[i], -kb);
    }
    *be = INFINITY;
    if (rc || (rc = scaled_berr(P, j, y, w, &be_y))) return rc;
    *be = be_y;
    return !(be_y <= 2.0 * be_s) && !(be_y <= tol) ? MIX_ERR_NOT_CONVERGED : MIX_SUCCESS;
}

int mixi_splu_range_finish(mixi_splu_problem *P, const mixi_splu_range *R, mix_gesv_info *info)
{
    const double tol = mixi_stop_tol(P->p, P->n);
    if (!R->rescale) return MIX_SUCCESS;
    double *w = mixi_malloc_n(2 * (size_t)P->n, sizeof(double));
    if (!w) return MIX_ERR_ALLOC;
    int status = MIX_SUCCESS;
    for (int j = 0; j < P->nrhs; j++) {
        double be;
        if (!R->t[j]) continue;
        int rc = column_finish(P, j, R->t[j], tol, w, &be);
        if (!(be <= info->backward_error)) info->backward_error = be;
        if (rc == MIX_ERR_OVERFLOW || (rc && status != MIX_ERR_OVERFLOW)) status = rc;
    }
    mixi_free(w);
    return status;
}

void mixi_splu_range_free(mix_context *ctx, mixi_splu_range *R)
{
    mixi_free(R->s);
    ctx->ops->free(ctx->state, R->bs);
}
