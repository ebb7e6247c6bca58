/* edge_check.h: the FP64 re-checks of the edge-case tests (range-safe, NaN never read as small). */
#ifndef MIXT_EDGE_CHECK_H
#define MIXT_EDGE_CHECK_H

#include "matrices/mixmat.h"

/* ||b - A x||_2 / ||b||_2, NaN if anything is NaN/Inf. */
double mixt_cg_true_rel(const mixm_csr *A, const double *b, const double *x);
/* max over columns of ||b - A x||inf / (||A||inf ||x||inf + ||b||inf), A n x n column-major. */
double mixt_dense_backward_error(int n, int nrhs, const double *a, int lda, const double *b, int ldb,
                                 const double *x, int ldx);
/* The CSR of a column-major n x n array (explicit zeros dropped). */
int mixt_dense_to_csr(int n, const double *a, int lda, mixm_csr *A);

#endif
