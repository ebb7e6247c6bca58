/* csr.c: CSR and dense containers of libmixmat: allocation, conversion, FP64 product, symmetry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "matrices/mixmat.h"

void mixm_csr_free(mixm_csr *A)
{
    if (!A) return;
    free(A->rowptr);
    free(A->colind);
    free(A->val);
    memset(A, 0, sizeof *A);
}

void mixm_dense_free(mixm_dense *A)
{
    if (!A) return;
    free(A->a);
    memset(A, 0, sizeof *A);
}

int mixm_csr_alloc(mixm_csr *A, int nrows, int ncols, int64_t nnz)
{
    memset(A, 0, sizeof *A);
    if (nrows < 0 || ncols < 0 || nnz < 0) return MIX_ERR_INVALID_ARG;
    if ((uint64_t)nnz > SIZE_MAX / sizeof(double)) return MIX_ERR_ALLOC;
    A->rowptr = calloc((size_t)nrows + 1, sizeof *A->rowptr);
    A->colind = malloc(nnz ? (size_t)nnz * sizeof *A->colind : 1);
    A->val = malloc(nnz ? (size_t)nnz * sizeof *A->val : 1);
    if (!A->rowptr || !A->colind || !A->val) {
        mixm_csr_free(A);
        return MIX_ERR_ALLOC;
    }
    A->nrows = nrows;
    A->ncols = ncols;
    A->nnz = nnz;
    return MIX_SUCCESS;
}

int mixm_csr_to_dense(const mixm_csr *A, mixm_dense *D)
{
    memset(D, 0, sizeof *D);
    size_t m = (size_t)A->nrows, n = (size_t)A->ncols;
    if (n && m > SIZE_MAX / sizeof(double) / n) return MIX_ERR_ALLOC;
    D->a = calloc((m * n) > 0 ? m * n : 1, sizeof(double));
    if (!D->a) return MIX_ERR_ALLOC;
    D->nrows = A->nrows;
    D->ncols = A->ncols;
    for (size_t i = 0; i < m; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            D->a[i + (size_t)A->colind[k] * m] += A->val[k];
    return MIX_SUCCESS;
}

double mixm_csr_norm_inf(const mixm_csr *A)
{
    double m = 0.0;
    for (int i = 0; i < A->nrows; i++) {
        double s = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += fabs(A->val[k]);
        if (s > m) m = s;
    }
    return m;
}

void mixm_csr_matvec(const mixm_csr *A, const double *x, double *y)
{
    for (int i = 0; i < A->nrows; i++) {
        double s = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->colind[k]];
        y[i] = s;
    }
}

/* Looks up A(i, j) by scanning row i (rows are short in the matrices we check). */
static int find_entry(const mixm_csr *A, int i, int j, double *v)
{
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == j) {
            *v = A->val[k];
            return 1;
        }
    return 0;
}

int mixm_csr_is_symmetric(const mixm_csr *A)
{
    if (A->nrows != A->ncols) return 0;
    for (int i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            double v;
            if (!find_entry(A, A->colind[k], i, &v) || v != A->val[k]) return 0;
        }
    return 1;
}

int mixm_csr_empty_line(const mixm_csr *A, int *row, int *col)
{
    *row = *col = -1;
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] == A->rowptr[i]) {
            *row = i;
            return MIX_SUCCESS;
        }
    unsigned char *seen = calloc((size_t)A->ncols + 1, 1);
    if (!seen) return MIX_ERR_ALLOC;
    for (int64_t k = 0; k < A->nnz; k++) seen[A->colind[k]] = 1;
    for (int j = 0; j < A->ncols; j++)
        if (!seen[j]) {
            *col = j;
            break;
        }
    free(seen);
    return MIX_SUCCESS;
}
