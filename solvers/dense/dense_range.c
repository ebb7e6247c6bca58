/* dense_range.c: dense systems near the edges of the FP64 range: exact power-of-two scaling into range, and the re-check of x in the user's units. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include "solvers/dense/dense.h"

/* Largest entries of A and B are left alone inside lib/core's range (mixi_beyond_range); FP16
 * has its own scaling. */

static int exponent_of(double v)
{
    int e = 0;
    if (v > 0.0) frexp(v, &e); /* v in [2^(e-1), 2^e) */
    return e;
}

/* Largest |entry| of the m x n column-major array (host scratch of n doubles). */
static int absmax(mix_context *ctx, int m, int n, const double *a, int lda, double *out)
{
    double *col = mixi_malloc_n((size_t)(n > 0 ? n : 1), sizeof *col);
    if (!col) return MIX_ERR_ALLOC;
    int rc = ctx->ops->dense->col_absmax_f64(ctx->state, m, n, a, lda, col);
    double mx = 0.0;
    for (int j = 0; !rc && j < n; j++)
        if (!(col[j] <= mx)) mx = col[j]; /* a NaN stays */
    mixi_free(col);
    *out = mx;
    return rc;
}

/* Largest |entry| of A's stored part: the whole array, or only the `uplo` triangle of a
 * symmetric one (the other may hold anything). */
static int matrix_absmax(mix_context *ctx, int n, const mixi_matrix *A, double *out)
{
    if (!A->sym) return absmax(ctx, n, n, A->a, A->lda, out);
    double mx = 0.0;
    for (int j = 0; j < n; j++) {
        int i0 = A->uplo == MIXK_LOWER ? j : 0, len = A->uplo == MIXK_LOWER ? n - j : j + 1;
        double c;
        int rc = ctx->ops->dense->col_absmax_f64(ctx->state, len, 1,
                                                 A->a + (size_t)j * (size_t)A->lda + i0, A->lda, &c);
        if (rc) return rc;
        if (!(c <= mx)) mx = c;
    }
    *out = mx;
    return MIX_SUCCESS;
}

int mixi_range_rhs_exponents(mix_context *ctx, int n, int nrhs, const double *b, int ldb,
                             int **kb)
{
    /* A few columns' maxima on the stack: every call of the dense drivers comes here, and at
     * n = 20 an allocation is a visible part of it (issue 32). */
    double few[8], *col = nrhs <= 8 ? few : mixi_malloc_n((size_t)nrhs, sizeof *col);
    int rc = col ? ctx->ops->dense->col_absmax_f64(ctx->state, n, nrhs, b, ldb, col) : MIX_ERR_ALLOC;
    int any = 0;
    for (int j = 0; !rc && j < nrhs; j++) any |= mixi_beyond_range(col[j]);
    if (!rc && any && !(*kb = mixi_malloc_n((size_t)nrhs, sizeof **kb))) rc = MIX_ERR_ALLOC;
    for (int j = 0; !rc && any && j < nrhs; j++)
        (*kb)[j] = mixi_beyond_range(col[j]) ? 1 - exponent_of(col[j]) : 0;
    if (col != few) mixi_free(col);
    return rc;
}

int mixi_range_exponents(mix_context *ctx, int n, int nrhs, const mixi_matrix *A, double anrm,
                         const double *b, int ldb, int *ka, int **kb)
{
    *ka = 0;
    *kb = NULL;
    int rc;
    /* ||A||inf lies within a factor n of the largest entry: only a norm outside the range (or
     * row sums that overflowed) costs the pass over A that finds the exact exponent. */
    if (!isfinite(anrm) || mixi_beyond_range(anrm)) {
        double amax;
        if ((rc = matrix_absmax(ctx, n, A, &amax))) return rc;
        if (mixi_beyond_range(amax) || !isfinite(anrm)) *ka = 1 - exponent_of(amax);
        /* A symmetric matrix is scaled by an even power, so that its factor scales exactly. */
        if (A->sym) *ka -= *ka & 1;
    }
    return mixi_range_rhs_exponents(ctx, n, nrhs, b, ldb, kb);
}

/* Lines of an array times 2^k, exactly, in two steps when 2^k does not fit a double: line i
 * (i < count) starts at a + i (ld + diag) and holds len0 + i dlen entries.  One loop for every
 * shape: whole columns (diag 0, dlen 0), a triangle's columns or rows from the diagonal (diag 1,
 * dlen -1), an upper triangle's columns down to it (diag 0, len0 1, dlen 1). */
static int scale_lines(mix_context *ctx, int count, double *a, int ld, int diag, int len0,
                       int dlen, int k)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    const int k1 = k / 2, k2 = k - k1;
    for (int i = 0; k && i < count; i++) {
        double *line = a + (size_t)i * (size_t)(ld + diag);
        const int len = len0 + i * dlen;
        int rc = d->scal_f64(ctx->state, len, ldexp(1.0, k1), line);
        if (!rc && k2) rc = d->scal_f64(ctx->state, len, ldexp(1.0, k2), line);
        if (rc) return rc;
    }
    return MIX_SUCCESS;
}

int mixi_scale_pow2_f64(mix_context *ctx, int m, int n, double *a, int lda, int k)
{
    if (m == 0 || n == 0) return MIX_SUCCESS;
    if (lda == m && (size_t)m * (size_t)n <= INT_MAX) /* one contiguous block */
        return scale_lines(ctx, 1, a, 0, 0, m * n, 0, k);
    return scale_lines(ctx, n, a, lda, 0, m, 0, k);
}

int mixi_scale_cols_pow2_f64(mix_context *ctx, int m, int n, double *a, int lda, const int *k,
                             int sign)
{
    for (int j = 0; j < n; j++) {
        int rc = scale_lines(ctx, 1, a + (size_t)j * (size_t)lda, 0, 0, m, 0, sign * k[j]);
        if (rc) return rc;
    }
    return MIX_SUCCESS;
}

int mixi_scale_lower_pow2_f64(mix_context *ctx, int n, double *a, int lda, int k)
{
    return scale_lines(ctx, n, a, lda, 1, n, -1, k);
}

int mixi_scale_upper_pow2_f64(mix_context *ctx, int rowmajor, int n, double *a, int lda, int k)
{
    /* Row-major: row i of U is contiguous from its diagonal, as a lower column is. */
    if (rowmajor) return scale_lines(ctx, n, a, lda, 1, n, -1, k);
    return scale_lines(ctx, n, a, lda, 0, 1, 1, k);
}

/* Rows of the host m x k array (ld ld) times r[i], columns times c[j] (c may be NULL). */
static void scale_host(int m, int k, double *h, int ld, const double *r, const double *c)
{
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++) h[i + (size_t)j * ld] *= r[i] * (c ? c[j] : 1.0);
}

/* The n x k backend array (ld ld) through the host: rows times r[i] (inverse: divided),
 * columns times c[j] (c NULL: 1). */
int mixi_scale_rows_cols_f64(mix_context *ctx, int n, int k, double *a, int ld, const double *r,
                             const double *c, int inverse)
{
    size_t count = k ? (size_t)(k - 1) * (size_t)ld + (size_t)n : 0, bytes = count * sizeof(double);
    double *h = mixi_malloc_n(count ? count : 1, sizeof *h), *ri = NULL, *ci = NULL;
    int rc = h ? ctx->ops->download(ctx->state, h, a, bytes) : MIX_ERR_ALLOC;
    if (!rc && inverse) {
        if (!(ri = mixi_malloc_n((size_t)n, sizeof *ri)) ||
            (c && !(ci = mixi_malloc_n((size_t)k, sizeof *ci))))
            rc = MIX_ERR_ALLOC;
        for (int i = 0; !rc && i < n; i++) ri[i] = 1.0 / r[i];
        for (int j = 0; !rc && ci && j < k; j++) ci[j] = 1.0 / c[j];
    }
    if (!rc) {
        scale_host(n, k, h, ld, inverse ? ri : r, inverse ? ci : c);
        rc = ctx->ops->upload(ctx->state, a, h, bytes);
    }
    mixi_free(h);
    mixi_free(ri);
    mixi_free(ci);
    return rc;
}

/* x_j := 2^(sign (ka - kb[j])) C^sign x_j: the scaled system's y to the user's x (sign 1) and
 * back (c: the column scaling of an equilibrated A, or NULL). */
static int rescale_x(mix_context *ctx, int n, int nrhs, double *x, int ldx, int ka, const int *kb,
                     const double *c, int sign)
{
    if (c) {
        int rc = mixi_scale_rows_cols_f64(ctx, n, nrhs, x, ldx, c, NULL, sign < 0);
        if (rc) return rc;
    }
    for (int j = 0; j < nrhs; j++) {
        int rc = mixi_scale_pow2_f64(ctx, n, 1, x + (size_t)j * (size_t)ldx, ldx,
                                     sign * (ka - (kb ? kb[j] : 0)));
        if (rc) return rc;
    }
    return MIX_SUCCESS;
}

int mixi_range_finish(mix_context *ctx, int n, int nrhs, const mixi_matrix *As, double anrm_s,
                      const double *bs, int ldb, double *x, int ldx, int ka, const int *kb,
                      const double *c, double target, double *berr)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    double *y = NULL, *r = NULL, *host = NULL;
    size_t nn;
    int rc;
    if ((rc = mixi_mul3_size((size_t)n, (size_t)nrhs, sizeof(double), &nn)) ||
        (rc = ctx->ops->alloc(ctx->state, (void **)&y, nn)) ||
        (rc = ctx->ops->alloc(ctx->state, (void **)&r, nn)))
        goto out;
    if (!(host = mixi_malloc_n((size_t)nrhs * 4, sizeof(double)))) {
        rc = MIX_ERR_ALLOC;
        goto out;
    }
    /* The backward error of y in the scaled system, column by column, as solved ... */
    double be_y, be_x, *be_cols = host + 3 * (size_t)nrhs;
    if ((rc = d->lacpy_f64(ctx->state, 0, n, nrhs, x, ldx, y, n)) ||
        (rc = mixi_backward_error(ctx, n, nrhs, As, anrm_s, bs, ldb, y, n, r, host, &be_y)))
        goto out;
    for (int j = 0; j < nrhs; j++) be_cols[j] = host[j];
    /* ... x returned ... */
    if ((rc = rescale_x(ctx, n, nrhs, x, ldx, ka, kb, c, 1)) ||
        (rc = d->col_absmax_f64(ctx->state, n, nrhs, x, ldx, host)))
        goto out;
    for (int j = 0; j < nrhs; j++)
        if (!isfinite(host[j])) {
            rc = MIX_ERR_OVERFLOW; /* the solution does not fit FP64 */
            *berr = INFINITY;
            goto out;
        }
    /* ... and that of the x returned, scaled back exactly, in the same units: what under- or
     * overflow in the user's units cost it, measured where no norm overflows. */
    if ((rc = d->lacpy_f64(ctx->state, 0, n, nrhs, x, ldx, y, n)) ||
        (rc = rescale_x(ctx, n, nrhs, y, n, ka, kb, c, -1)) ||
        (rc = mixi_backward_error(ctx, n, nrhs, As, anrm_s, bs, ldb, y, n, r, host, &be_x)))
        goto out;
    /* A column worse than the solve left it and than the stopping test allows: digits were lost
     * to underflow in the user's units; the answer cannot be held to the tolerance. */
    for (int j = 0; j < nrhs; j++)
        if (!(host[j] <= 2.0 * be_cols[j]) && !(host[j] <= target)) rc = MIX_ERR_NOT_CONVERGED;
    if (!(be_x <= *berr)) *berr = be_x;
out:
    ctx->ops->free(ctx->state, y);
    ctx->ops->free(ctx->state, r);
    mixi_free(host);
    return rc;
}
