/* safe_norm.c: norms and residual re-checks that neither overflow nor underflow (LAPACK dnrm2/dlassq-style scaling) and never hide a NaN. */
#include <math.h>
#include <stdlib.h>
#include "matrices/mixmat.h"

double mixm_amax(int n, const double *x)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (isnan(a)) return NAN;
        if (a > m) m = a;
    }
    return m;
}

/* e with v in [2^(e-1), 2^e) for v > 0 finite; 0 for v = 0. */
static int exponent_of(double v)
{
    int e = 0;
    if (v > 0.0) frexp(v, &e);
    return e;
}

double mixm_nrm2(int n, const double *x)
{
    double m = mixm_amax(n, x);
    if (!(m > 0.0) || isinf(m)) return m; /* 0, NaN or Inf */
    /* Entries scaled by the power of two that brings the largest below 1: the sum of squares is
     * at most n, and entries too small to register vanish harmlessly. */
    int e = exponent_of(m);
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double v = ldexp(x[i], -e);
        s += v * v;
    }
    return ldexp(sqrt(s), e);
}

int mixm_csr_recheck(const mixm_csr *A, const double *b, const double *x, double *berr,
                     double *rel2)
{
    const int n = A->nrows;
    double amax = 0.0;
    for (int64_t k = 0; k < A->nnz; k++) {
        double a = fabs(A->val[k]);
        if (!isfinite(a)) amax = NAN;
        else if (a > amax) amax = a;
    }
    double xmax = mixm_amax(A->ncols, x), bmax = mixm_amax(n, b);
    if (!isfinite(amax) || !isfinite(xmax) || !isfinite(bmax)) {
        if (berr) *berr = NAN;
        if (rel2) *rel2 = NAN;
        return MIX_ERR_NAN;
    }
    double *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    double *bs = malloc((size_t)(n > 0 ? n : 1) * sizeof *bs);
    if (!r || !bs) {
        free(r);
        free(bs);
        return MIX_ERR_ALLOC;
    }
    /* Everything times 2^-s, s = max(ea + ex, eb): each scaled product |a_ij x_j| and each
     * scaled |b_i| is below 1, so no row sum overflows; what underflows is negligible next to
     * the largest term. */
    const int ea = exponent_of(amax), ex = exponent_of(xmax), eb = exponent_of(bmax);
    const int s = ea + ex > eb ? ea + ex : eb;
    double anorm = 0.0, rmax = 0.0;
    for (int i = 0; i < n; i++) {
        double acc = 0.0, row = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            double a = ldexp(A->val[k], -ea);
            acc += ldexp(a * ldexp(x[A->colind[k]], -ex), ea + ex - s);
            row += fabs(a);
        }
        bs[i] = ldexp(b[i], -s);
        r[i] = bs[i] - acc;
        if (row > anorm) anorm = row;
        if (fabs(r[i]) > rmax) rmax = fabs(r[i]);
    }
    /* ||A||inf ||x||inf in the same units: row sums of A 2^-ea times max |x 2^-ex|, times
     * 2^(ea + ex - s). */
    double den = ldexp(anorm * ldexp(xmax, -ex), ea + ex - s) + ldexp(bmax, -s);
    if (berr) *berr = den > 0.0 ? rmax / den : (rmax == 0.0 ? 0.0 : INFINITY);
    if (rel2) {
        double nb = mixm_nrm2(n, bs), nr = mixm_nrm2(n, r);
        *rel2 = nb > 0.0 ? nr / nb : (nr == 0.0 ? 0.0 : INFINITY);
    }
    free(r);
    free(bs);
    return MIX_SUCCESS;
}
