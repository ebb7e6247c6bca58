/* equilibrate.c: row and column power-of-two scaling (LAPACK's dgeequb, dpoequb) of dense systems whose entries span more than one power of two can bring into the FP64 range. */
#include <math.h>
#include "solvers/dense/dense.h"

/* After dense_range.c's one power of two (largest entry into [1, 2)), the smallest nonzero entry must
 * stay at or above this: 2^122 above the subnormals, room for LU's products and growth.  Below
 * it (entries spanning more than ~1e271, e.g. 1e300 beside 1e-20) one scale flushes the small
 * entries to subnormals or zero, and rows and columns are scaled each by its own power. */
#define SPAN_FLOOR 0x1p-900

/* 2^(1 - e) for v in [2^(e-1), 2^e): v times it lies in [1, 2); 1 for 0.  sym: the square root
 * of that power rounded down, so that d^2 v lies in [1, 4). */
static double pow2_for(double v, int sym)
{
    if (!(v > 0.0)) return 1.0;
    int e;
    frexp(v, &e);
    return ldexp(1.0, sym ? -(int)floor((e - 1) / 2.0) : 1 - e);
}

static int stored(const mixi_matrix *A, int i, int j)
{
    return !A->sym || (A->uplo == MIXK_LOWER ? i >= j : i <= j);
}

/* Host copy h (ld n) of A: the smallest nonzero |entry| of its stored part, and the scaling. */
static double smallest_nonzero(const mixi_matrix *A, int n, const double *h)
{
    double amin = INFINITY;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double v = fabs(h[i + (size_t)j * n]);
            if (stored(A, i, j) && v > 0.0 && v < amin) amin = v;
        }
    return amin;
}

/* r (rows) and c (columns): dgeequb's powers of two for a general A; for a symmetric one d = r
 * = c from the diagonal (dpoequb: d_i^2 a_ii in [1, 4), so an SPD D A D lies in (-4, 4)).  0
 * when a symmetric A is not SPD on its face (a_ii <= 0 or |a_ij| > sqrt(a_ii a_jj) after
 * scaling): then it keeps the one power of two, and FP64's Cholesky reports it. */
static int scaling_vectors(const mixi_matrix *A, int n, const double *h, double *r, double *c)
{
    for (int i = 0; i < n; i++) r[i] = c[i] = 0.0;
    if (A->sym) {
        for (int i = 0; i < n; i++) {
            if (!(h[i + (size_t)i * n] > 0.0)) return 0;
            r[i] = c[i] = pow2_for(h[i + (size_t)i * n], 1);
        }
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                if (stored(A, i, j) && !(fabs(h[i + (size_t)j * n]) * r[i] * r[j] < 4.0)) return 0;
        return 1;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) r[i] = fmax(r[i], fabs(h[i + (size_t)j * n]));
    for (int i = 0; i < n; i++) r[i] = pow2_for(r[i], 0);
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) c[j] = fmax(c[j], fabs(h[i + (size_t)j * n]) * r[i]);
        c[j] = pow2_for(c[j], 0);
    }
    return 1;
}

/* The matrix part of mixi_range_equilibrate: a (the working copy of A, ld n) scaled in place
 * when one power of two cannot hold it; *r, *c NULL otherwise. */
static int equilibrate_matrix(mix_context *ctx, int n, const mixi_matrix *A, double *a, int ka,
                              double **r, double **c)
{
    const size_t nn = (size_t)n * (size_t)n;
    double *h = mixi_malloc_n(nn, sizeof *h);
    int rc = h ? ctx->ops->download(ctx->state, h, a, nn * sizeof *h) : MIX_ERR_ALLOC;
    if (rc || !(ldexp(smallest_nonzero(A, n, h), ka) < SPAN_FLOOR)) goto out;
    if (!(*r = mixi_malloc_n((size_t)n, sizeof **r)) || !(*c = mixi_malloc_n((size_t)n, sizeof **c))) {
        rc = MIX_ERR_ALLOC;
        goto out;
    }
    if (!scaling_vectors(A, n, h, *r, *c)) { /* not SPD on its face: one power of two */
        mixi_free(*r), mixi_free(*c);
        *r = *c = NULL;
        goto out;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (stored(A, i, j)) h[i + (size_t)j * n] *= (*r)[i] * (*c)[j];
    rc = ctx->ops->upload(ctx->state, a, h, nn * sizeof *h);
out:
    mixi_free(h);
    return rc;
}

int mixi_range_equilibrate(mix_context *ctx, int n, int nrhs, const mixi_matrix *A, double *a,
                           double *b, int *ka, int **kb, double **r, double **c)
{
    *r = *c = NULL;
    int rc = equilibrate_matrix(ctx, n, A, a, *ka, r, c);
    if (rc || !*r) return rc;
    /* R A C y = R B: B's rows first, then each column's own exponent of what they became. */
    *ka = 0;
    mixi_free(*kb);
    *kb = NULL;
    if ((rc = mixi_scale_rows_cols_f64(ctx, n, nrhs, b, n, *r, NULL, 0))) return rc;
    return mixi_range_rhs_exponents(ctx, n, nrhs, b, n, kb);
}

/* Entry (i, j) of the factors (column-major, or its transpose when trans) in host h. */
static double *entry(double *h, int ld, int trans, int i, int j)
{
    return trans ? h + j + (size_t)i * (size_t)ld : h + i + (size_t)j * (size_t)ld;
}

int mixi_unequilibrate_factors(mix_context *ctx, int n, const mixi_matrix *F, double *a,
                               int trans, const int *ipiv, const double *r, const double *c)
{
    const size_t count = (size_t)(n - 1) * (size_t)F->lda + (size_t)n;
    double *h = mixi_malloc_n(count, sizeof *h), *rp = mixi_malloc_n((size_t)n, sizeof *rp);
    int rc = h && rp ? ctx->ops->download(ctx->state, h, a, count * sizeof *h) : MIX_ERR_ALLOC;
    if (rc) goto out;
    /* LU of R A C = P L U: A = P (Rp^-1 L Rp) (Rp^-1 U C^-1), Rp = P^T R P (ipiv applied to r,
     * as dlaswp).  Cholesky of D A D = L L^T: A's factor is D^-1 L (U D^-1). */
    for (int i = 0; i < n; i++) rp[i] = r[i];
    for (int i = 0; !F->sym && i < n; i++) {
        double t = rp[i];
        rp[i] = rp[ipiv[i] - 1];
        rp[ipiv[i] - 1] = t;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double *v = entry(h, F->lda, trans, i, j);
            if (F->sym && F->uplo == MIXK_LOWER && i >= j) *v /= r[i];
            else if (F->sym && F->uplo == MIXK_UPPER && i <= j) *v /= r[j];
            else if (!F->sym && i > j) *v *= rp[j] / rp[i];
            else if (!F->sym) *v /= rp[i] * c[j];
        }
    rc = ctx->ops->upload(ctx->state, a, h, count * sizeof *h);
out:
    mixi_free(h);
    mixi_free(rp);
    return rc;
}
