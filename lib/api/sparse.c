/* sparse.c: mix_sparse_create_csr and mix_sparse_destroy: CSR validation and canonical rows
 * (sorted, duplicates summed); the object itself is the CG solver's (solvers/cg/cg_matrix.c). */
#include <math.h>
#include <stdlib.h>
#include "solvers/cg/cg.h"

typedef struct {
    int32_t col;
    double val;
} entry;

static int entry_cmp(const void *a, const void *b)
{
    int32_t x = ((const entry *)a)->col, y = ((const entry *)b)->col;
    return (x > y) - (x < y);
}

/* The largest |value| of the summed copy, or MIX_ERR_NAN where a sum of finite duplicates
 * overflowed (1e308 + 1e308): the check on the caller's entries cannot see it, and an Inf in
 * A reached the solvers (mix_dgesv_sparse wrote NaN into x and called A singular). */
static int summed_range(int64_t nnz, const double *v, double *amax)
{
    double m = 0.0;
    for (int64_t k = 0; k < nnz; k++) {
        if (!isfinite(v[k])) return MIX_ERR_NAN;
        if (fabs(v[k]) > m) m = fabs(v[k]);
    }
    *amax = m;
    return MIX_SUCCESS;
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
    int canonical = 1, nan = 0, bad = 0;
    double amax = 0.0;
    /* Threads from a million entries: with the copy, the one pass over the user's arrays
     * before any set-up (3-D Poisson 150^3: 23 million). */
#pragma omp parallel for reduction(& : canonical) reduction(| : nan, bad) reduction(max : amax) \
    schedule(static) if (nnz >= (INT64_C(1) << 20))
    for (int i = 0; i < n; i++) {
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
            bad |= colind[k] < 0 || colind[k] >= n;
            if (k > rowptr[i] && colind[k] <= colind[k - 1]) canonical = 0;
            if (!isfinite(val[k])) nan = 1;
            else if (fabs(val[k]) > amax) amax = fabs(val[k]);
        }
    }
    if (bad) return MIX_ERR_INVALID_ARG;
    if (nan) return MIX_ERR_NAN;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    if (!sp || !sp->csr_create || !sp->csr_convert || !sp->csr_destroy)
        return MIX_ERR_NOT_IMPLEMENTED;

    int64_t *rp = NULL;
    int32_t *ci = NULL;
    double *v = NULL;
    int st = MIX_SUCCESS;
    if (!canonical) {
        st = canonical_copy(n, rowptr, colind, val, maxrow, &rp, &ci, &v);
        if (!st) st = summed_range(rp[n], v, &amax); /* the stored entries' range, not the input's */
        rowptr = rp;
        colind = ci;
        val = v;
    }
    if (!st) st = mixi_sparse_new(ctx, n, rowptr, colind, val, amax, A);
    mixi_free(rp);
    mixi_free(ci);
    mixi_free(v);
    return st;
}

void mix_sparse_destroy(mix_sparse *A) { mixi_sparse_free(A); }

const char *mix_sparse_spmv_variant(const mix_sparse *A, mix_prec storage, int jacobi)
{
    if (!A || (int)storage < 0 || storage >= MIX_NUM_PREC) return NULL;
    const mixi_sparse_ops *sp = A->ctx->ops->sparse;
    const mixi_spmat *As = A->sloppy[jacobi ? 1 : 0][storage];
    return As && sp && sp->spmv_variant ? sp->spmv_variant(A->ctx->state, As) : NULL;
}
