/* dense_check.c: the one FP64 normwise backward error of a dense solution (tools, benchmarks, tests): dgemv fast, range-safe at the edges, NaN never read as small. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "matrices/mixmat.h"

/* Data whose magnitudes lie in [2^-400, 2^400] (or are 0) give products and row sums in
 * [2^-800, n 2^800]: FP64 computes the residual there without overflow or harmful underflow. */
static int moderate(double v) { return v == 0.0 || (v >= 0x1p-400 && v <= 0x1p400); }

/* The CSR of a column-major n x n array (explicit zeros dropped), for the scaled re-check. */
static int dense_to_csr(int n, const double *a, int lda, mixm_csr *A)
{
    int64_t nnz = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) nnz += a[i + (size_t)j * lda] != 0.0;
    int st = mixm_csr_alloc(A, n, n, nnz);
    if (st) return st;
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        A->rowptr[i] = k;
        for (int j = 0; j < n; j++) {
            double v = a[i + (size_t)j * lda];
            if (v != 0.0) {
                A->colind[k] = j;
                A->val[k++] = v;
            }
        }
    }
    A->rowptr[n] = k;
    A->nnz = k;
    return MIX_SUCCESS;
}

/* Extreme magnitudes: mixm_csr_recheck's power-of-two scaling, column by column. */
static double scaled_backward_error(int n, int nrhs, const double *a, int lda, const double *b, int ldb,
                                    const double *x, int ldx)
{
    mixm_csr A;
    if (dense_to_csr(n, a, lda, &A)) return NAN;
    double worst = 0.0;
    for (int j = 0; j < nrhs && !isnan(worst); j++) {
        double be = NAN;
        mixm_csr_recheck(&A, b + (size_t)j * ldb, x + (size_t)j * ldx, &be, NULL);
        if (!(be <= worst)) worst = be; /* a NaN stays */
    }
    mixm_csr_free(&A);
    return worst;
}

double mixm_dense_backward_error(int n, int nrhs, const double *a, int lda, const double *b, int ldb,
                                 const double *x, int ldx)
{
    if (n <= 0 || nrhs <= 0) return 0.0;
    double *row = calloc((size_t)n, sizeof *row);
    if (!row) return NAN;
    double amax = 0.0, anrm = 0.0; /* max |a_ij| (NaN if any is not finite), ||A||inf */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const double v = fabs(a[i + (size_t)j * lda]);
            if (!isfinite(v)) amax = NAN;
            else if (v > amax && !isnan(amax)) amax = v;
            row[i] += v;
        }
    for (int i = 0; i < n; i++) anrm = fmax(anrm, row[i]);
    int fast = moderate(amax);
    for (int j = 0; j < nrhs && fast; j++) {
        const double xm = mixm_amax(n, x + (size_t)j * ldx), bm = mixm_amax(n, b + (size_t)j * ldb);
        if (isnan(amax) || isnan(xm) || isnan(bm) || isinf(xm) || isinf(bm)) {
            free(row);
            return NAN;
        }
        fast = moderate(xm) && moderate(bm);
    }
    if (isnan(amax) || !fast) {
        free(row);
        return isnan(amax) ? NAN : scaled_backward_error(n, nrhs, a, lda, b, ldb, x, ldx);
    }
    double worst = 0.0, *r = row; /* the row sums are no longer needed */
    for (int j = 0; j < nrhs; j++) {
        const double *xj = x + (size_t)j * ldx, *bj = b + (size_t)j * ldb;
        memcpy(r, bj, (size_t)n * sizeof *r);
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, a, lda, xj, 1, 1.0, r, 1);
        const double rn = mixm_amax(n, r), den = anrm * mixm_amax(n, xj) + mixm_amax(n, bj);
        const double be = den > 0.0 ? rn / den : (rn == 0.0 ? 0.0 : INFINITY);
        if (!(be <= worst)) worst = be; /* a NaN stays */
    }
    free(row);
    return worst;
}
