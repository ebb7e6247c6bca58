/* dense_tiny.h: FP64 LU and Cholesky solves of tiny orders in the library's own loops (dense_tiny.c). */
#ifndef MIX_DENSE_TINY_H
#define MIX_DENSE_TINY_H

/* Up to these orders the CPU backend's gesv_f64 and posv_f64 run these loops instead of
 * LAPACK's dgesv and dposv, whose fixed cost is most of a tiny solve.  Instructions of AUTO's
 * whole call against LAPACKE's (bench/small_n_callgrind.sh, OpenBLAS 0.3.21, Haswell kernels):
 * LU 818 / 942 at n = 1, 4548 / 8921 at 8, 19172 / 31228 at 16; Cholesky 821 / 2277 at 1,
 * 12058 / 15213 at 16, 20474 / 20539 at 20 (unblocked: no further).  Zen 3, one thread, best
 * of 7 interleaved: AUTO 1.30x LAPACKE_dgesv's speed at n = 1, 1.74x at 8, 1.26x at 16; 4.1x
 * LAPACKE_dposv's at 1, 1.05x at 16; these loops 0.77x at 24, where LAPACK's call stays. */
#define MIXI_TINY_LU_MAX_N 16
#define MIXI_TINY_CHOL_MAX_N 16

/* dgesv's contract on a column-major A (lda >= n): P A = L U by partial pivoting (the first
 * largest |a_ij| of the column, as idamax; rows swapped whole; ipiv 1-based), then X over B
 * (ldb >= n).  Returns dgesv's info: 0, or j where U(j, j) is exactly zero (the factorization
 * completed, B untouched). */
int mixi_tiny_dgesv(int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb);

/* dposv's contract: A = L L^T (lower) or U^T U (upper) in that triangle, the other untouched,
 * then X over B.  Returns dposv's info: 0, or j where the j-th pivot is not positive (or NaN):
 * A(j, j) then holds it, the columns before j the factor, B untouched. */
int mixi_tiny_dposv(int upper, int n, int nrhs, double *a, int lda, double *b, int ldb);

#endif
