/* dense_matrix.c: the dense flow's FP64 matrix, whole (LU) or one triangle (Cholesky): norm, NaN/Inf count, copy, exact scaling, LAPACK's FP64 factorization, workspace. */
#include "solvers/dense/dense.h"

int mixi_balloc(mix_context *ctx, void **ptr, size_t rows, size_t cols, size_t size)
{
    size_t bytes;
    *ptr = NULL;
    if (mixi_mul3_size(rows ? rows : 1, cols ? cols : 1, size, &bytes)) return MIX_ERR_ALLOC;
    return ctx->ops->alloc(ctx->state, ptr, bytes);
}

/* Column j of a symmetric A's triangle: rows *i0 .. *i0 + *len - 1 (the other is never read). */
static void triangle_column(int uplo, int n, int j, int *i0, int *len)
{
    *i0 = uplo == MIXK_LOWER ? j : 0;
    *len = uplo == MIXK_LOWER ? n - j : j + 1;
}

int mixi_matrix_norm_inf(mix_context *ctx, int n, const mixi_matrix *A, double *anrm)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (A->sym) return d->norm_inf_sym_f64(ctx->state, A->uplo, n, A->a, A->lda, anrm);
    return d->norm_inf_f64(ctx->state, n, n, A->a, A->lda, anrm);
}

int mixi_matrix_count_nonfinite(mix_context *ctx, int n, const mixi_matrix *A, size_t *bad)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (!A->sym) return d->count_nonfinite_f64(ctx->state, n, n, A->a, A->lda, bad);
    *bad = 0;
    for (int j = 0, i0, len; j < n; j++) {
        size_t c = 0;
        triangle_column(A->uplo, n, j, &i0, &len);
        int rc = d->count_nonfinite_f64(ctx->state, len, 1, A->a + (size_t)j * A->lda + i0,
                                        A->lda, &c);
        if (rc) return rc;
        *bad += c;
    }
    return MIX_SUCCESS;
}

int mixi_matrix_copy(mix_context *ctx, int n, const mixi_matrix *A, int trans, double *dst,
                     int ldd)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (!A->sym) return d->lacpy_f64(ctx->state, trans, n, n, A->a, A->lda, dst, ldd);
    for (int j = 0, i0, len; j < n; j++) {
        triangle_column(A->uplo, n, j, &i0, &len);
        int rc = d->lacpy_f64(ctx->state, 0, len, 1, A->a + (size_t)j * A->lda + i0, A->lda,
                              dst + (size_t)j * ldd + i0, ldd);
        if (rc) return rc;
    }
    return MIX_SUCCESS;
}

int mixi_matrix_scale_pow2(mix_context *ctx, int n, const mixi_matrix *A, double *a, int k)
{
    if (!A->sym) return mixi_scale_pow2_f64(ctx, n, n, a, A->lda, k);
    if (A->uplo == MIXK_LOWER) return mixi_scale_lower_pow2_f64(ctx, n, a, A->lda, k);
    return mixi_scale_upper_pow2_f64(ctx, 0, n, a, A->lda, k);
}

int mixi_matrix_factor_worksize(mix_context *ctx, int n, const mixi_matrix *A, size_t *bytes)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (A->sym) return d->potrf_f64_worksize(ctx->state, n, bytes);
    return d->getrf_f64_worksize(ctx->state, n, bytes);
}

int mixi_matrix_factor(mix_context *ctx, int n, const mixi_matrix *A, double *a, int *ipiv,
                       void *work, int *info)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (A->sym) return d->potrf_f64(ctx->state, A->uplo, n, a, A->lda, work, info);
    return d->getrf_f64(ctx->state, n, a, A->lda, ipiv, work, info);
}

int mixi_matrix_factor_solve(mix_context *ctx, int n, const mixi_matrix *F, const int *ipiv,
                             int nrhs, double *x, int ldx)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (F->sym) return d->potrs_f64(ctx->state, F->uplo, n, nrhs, F->a, F->lda, x, ldx);
    return d->getrs_f64(ctx->state, n, nrhs, F->a, F->lda, ipiv, x, ldx);
}

int mixi_matrix_factor_scale_pow2(mix_context *ctx, int n, const mixi_matrix *F, double *a,
                                  int trans, int k)
{
    /* LU: only U carries the scale (L is unit lower triangular); Cholesky: the factor of 4^m A
     * (k = 2m) is 2^m times that of A. */
    if (F->sym) return mixi_matrix_scale_pow2(ctx, n, F, a, k / 2);
    return mixi_scale_upper_pow2_f64(ctx, trans, n, a, F->lda, k);
}
