/* sparse.c: mix_sparse: CSR validation, owned backend copies, per-precision sloppy cache. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/mix_sparse.h"

typedef struct {
    int32_t col;
    double val;
} entry;

static int entry_cmp(const void *a, const void *b)
{
    int32_t x = ((const entry *)a)->col, y = ((const entry *)b)->col;
    return (x > y) - (x < y);
}

/* Sorts each row and sums duplicates into host copies (only when the input needs it). */
static int canonical_copy(int n, const int64_t *rowptr, const int32_t *colind, const double *val,
                          int64_t maxrow, int64_t **rp, int32_t **ci, double **v)
{
    int64_t nnz = rowptr[n];
    int st = MIX_ERR_ALLOC;
    entry *row = mixi_malloc((size_t)(maxrow > 0 ? maxrow : 1) * sizeof *row);
    *rp = mixi_malloc(((size_t)n + 1) * sizeof **rp);
    *ci = mixi_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof **ci);
    *v = mixi_malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof **v);
    if (!row || !*rp || !*ci || !*v) goto out;
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        int64_t len = rowptr[i + 1] - rowptr[i];
        for (int64_t t = 0; t < len; t++) {
            row[t].col = colind[rowptr[i] + t];
            row[t].val = val[rowptr[i] + t];
        }
        if (len > 1) qsort(row, (size_t)len, sizeof *row, entry_cmp);
        (*rp)[i] = k;
        for (int64_t t = 0; t < len; t++) {
            if (k > (*rp)[i] && (*ci)[k - 1] == row[t].col) {
                (*v)[k - 1] += row[t].val; /* duplicate: summed, as Matrix Market readers do */
            } else {
                (*ci)[k] = row[t].col;
                (*v)[k++] = row[t].val;
            }
        }
    }
    (*rp)[n] = k;
    st = MIX_SUCCESS;
out:
    mixi_free(row);
    if (st) {
        mixi_free(*rp);
        mixi_free(*ci);
        mixi_free(*v);
        *rp = NULL;
        *ci = NULL;
        *v = NULL;
    }
    return st;
}

/* Off-diagonal entries below 2^-10 of their row's largest off-diagonal one: FIXED16 (one
 * scale per row, 15 bits) keeps fewer than 5 bits of them (MIX_PREC_AUTO's test). */
static int64_t fixed16_tiny(int n, const int64_t *rowptr, const int32_t *colind, const double *val)
{
    int64_t tiny = 0;
    for (int i = 0; i < n; i++) {
        double m = 0.0;
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
            if (colind[k] != i && fabs(val[k]) > m) m = fabs(val[k]);
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
            if (colind[k] != i && val[k] != 0.0 && fabs(val[k]) < 0x1p-10 * m) tiny++;
    }
    return tiny;
}

int mix_sparse_create_csr(mix_context *ctx, int n, const int64_t *rowptr, const int32_t *colind,
                          const double *val, mix_sparse **A)
{
    if (!A) return MIX_ERR_INVALID_ARG;
    *A = NULL;
    if (!ctx || n <= 0 || !rowptr) return MIX_ERR_INVALID_ARG;
    if (rowptr[0] != 0) return MIX_ERR_INVALID_ARG;
    int64_t maxrow = 0;
    for (int i = 0; i < n; i++) {
        int64_t len = rowptr[i + 1] - rowptr[i];
        if (len < 0) return MIX_ERR_INVALID_ARG;
        if (len > maxrow) maxrow = len;
    }
    int64_t nnz = rowptr[n];
    if ((uint64_t)nnz > SIZE_MAX / 16) return MIX_ERR_ALLOC;
    if (nnz > 0 && (!colind || !val)) return MIX_ERR_INVALID_ARG;
    int canonical = 1, nan = 0;
    double amax = 0.0;
    for (int i = 0; i < n; i++) {
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
            if (colind[k] < 0 || colind[k] >= n) return MIX_ERR_INVALID_ARG;
            if (k > rowptr[i] && colind[k] <= colind[k - 1]) canonical = 0;
            if (!isfinite(val[k])) nan = 1;
            else if (fabs(val[k]) > amax) amax = fabs(val[k]);
        }
    }
    if (nan) return MIX_ERR_NAN;
    const mix_sparse_ops *sp = ctx->ops->sparse;
    if (!sp || !sp->csr_create || !sp->csr_convert || !sp->csr_destroy)
        return MIX_ERR_NOT_IMPLEMENTED;

    int64_t *rp = NULL;
    int32_t *ci = NULL;
    double *v = NULL;
    int st;
    mix_sparse *S = mixi_calloc(1, sizeof *S);
    if (!S) return MIX_ERR_ALLOC;
    S->ctx = ctx;
    S->n = n;
    S->amax = amax;
    S->jacobi_status = -1;
    if (!canonical) {
        st = canonical_copy(n, rowptr, colind, val, maxrow, &rp, &ci, &v);
        if (st) goto out;
        rowptr = rp;
        colind = ci;
        val = v;
    }
    S->nnz = rowptr[n];
    S->fixed16_tiny = fixed16_tiny(n, rowptr, colind, val);
    st = sp->csr_create(ctx->state, n, rowptr, colind, val, &S->a64);
    if (st) goto out;
    S->sloppy[0][MIX_FP64] = S->a64;
out:
    mixi_free(rp);
    mixi_free(ci);
    mixi_free(v);
    if (st) {
        mix_sparse_destroy(S);
        return st;
    }
    *A = S;
    return MIX_SUCCESS;
}

void mix_sparse_destroy(mix_sparse *A)
{
    if (!A) return;
    const mix_backend_ops *ops = A->ctx->ops;
    for (int j = 0; j < 2; j++)
        for (int p = 0; p < MIX_NUM_PREC; p++)
            if (A->sloppy[j][p] && A->sloppy[j][p] != A->a64)
                ops->sparse->csr_destroy(A->ctx->state, A->sloppy[j][p]);
    /* Converted copies may share the FP64 copy's pattern: it goes last. */
    if (A->a64) ops->sparse->csr_destroy(A->ctx->state, A->a64);
    ops->free(A->ctx->state, A->jacobi);
    ops->free(A->ctx->state, A->uniform);
    mixi_free(A);
}

/* The constant vector c with c^2 amax in [1, 4): FP16/BF16 storage of A without Jacobi. */
static int make_uniform(mix_sparse *A)
{
    const mix_backend_ops *ops = A->ctx->ops;
    size_t bytes = (size_t)A->n * sizeof(double);
    int e = 1;
    if (A->amax > 0.0) frexp(A->amax, &e); /* amax in [2^(e-1), 2^e) */
    double c = ldexp(1.0, -(int)floor((e - 1) / 2.0));
    double *h = mixi_malloc(bytes);
    if (!h) return MIX_ERR_ALLOC;
    for (int i = 0; i < A->n; i++) h[i] = c;
    int st = ops->alloc(A->ctx->state, (void **)&A->uniform, bytes);
    if (!st) st = ops->upload(A->ctx->state, A->uniform, h, bytes);
    if (st) {
        ops->free(A->ctx->state, A->uniform);
        A->uniform = NULL;
    }
    mixi_free(h);
    return st;
}

int mixi_sparse_sloppy(mix_sparse *A, mix_prec prec, int jacobi, const mix_spmat **As,
                       const double **scale)
{
    const mix_backend_ops *ops = A->ctx->ops;
    const mix_sparse_ops *sp = ops->sparse;
    if ((int)prec < 0 || prec >= MIX_NUM_PREC || prec == MIX_TF32) return MIX_ERR_INVALID_ARG;
    jacobi = jacobi ? 1 : 0;
    const double *S = NULL;
    if (jacobi) {
        if (A->jacobi_status < 0) {
            if (!sp->diag_rsqrt) return MIX_ERR_NOT_IMPLEMENTED;
            int st = ops->alloc(A->ctx->state, (void **)&A->jacobi, (size_t)A->n * sizeof(double));
            if (st) return st;
            st = sp->diag_rsqrt(A->ctx->state, A->a64, A->jacobi);
            if (st && st != MIX_ERR_NOT_SPD) { /* a transient failure is not remembered */
                ops->free(A->ctx->state, A->jacobi);
                A->jacobi = NULL;
                return st;
            }
            A->jacobi_status = st;
        }
        if (A->jacobi_status) return A->jacobi_status;
        S = A->jacobi;
    } else if (prec == MIX_FP16 || prec == MIX_BF16) {
        if (!A->uniform) {
            int st = make_uniform(A);
            if (st) return st;
        }
        S = A->uniform;
    }
    if (!A->sloppy[jacobi][prec]) {
        int st = sp->csr_convert(A->ctx->state, A->a64, prec, S, &A->sloppy[jacobi][prec]);
        if (st) {
            A->sloppy[jacobi][prec] = NULL;
            return st;
        }
    }
    *As = A->sloppy[jacobi][prec];
    *scale = S;
    return MIX_SUCCESS;
}
