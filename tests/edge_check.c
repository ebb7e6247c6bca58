/* edge_check.c: the FP64 re-checks of the edge-case tests, through libmixmat's range-safe residuals. */
#include <math.h>
#include <stdlib.h>
#include "tests/edge_check.h"

double mixt_cg_true_rel(const mixm_csr *A, const double *b, const double *x)
{
    double rel = NAN;
    if (mixm_csr_recheck(A, b, x, NULL, &rel)) return NAN;
    return rel;
}

int mixt_dense_to_csr(int n, const double *a, int lda, mixm_csr *A)
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

double mixt_dense_backward_error(int n, int nrhs, const double *a, int lda, const double *b, int ldb,
                                 const double *x, int ldx)
{
    mixm_csr A;
    if (mixt_dense_to_csr(n, a, lda, &A)) return NAN;
    double worst = 0.0;
    for (int j = 0; j < nrhs; j++) {
        double be = NAN;
        mixm_csr_recheck(&A, b + (size_t)j * ldb, x + (size_t)j * ldx, &be, NULL);
        if (!(be <= worst)) worst = be; /* a NaN stays */
        if (isnan(worst)) break;
    }
    mixm_csr_free(&A);
    return worst;
}
