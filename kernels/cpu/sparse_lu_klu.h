/* sparse_lu_klu.h: FP64 sparse LU by KLU (SuiteSparse), the CPU backend's factors for matrices whose analysis predicts little fill. */
#ifndef MIX_SPARSE_LU_KLU_H
#define MIX_SPARSE_LU_KLU_H

#include <stdint.h>

/* KLU's analysis and FP64 factors of one matrix. */
typedef struct mixi_klu mixi_klu;

/* KLU's analysis (block triangular form, AMD ordering) of the pattern of the n x n CSR matrix
 * (rowptr, colind; nnz < 2^31, read again by mixi_klu_factor).  *lu is NULL when KLU could not
 * analyse it (its own failure: the caller goes on without KLU).  *structural_rank: KLU's
 * maximum transversal's count (n: no structural singularity).  MIX_ERR_ALLOC when our own
 * workspace could not be had, else MIX_SUCCESS. */
int mixi_klu_analyze(int n, const int64_t *rowptr, const int32_t *colind, mixi_klu **lu,
                     int *structural_rank);
/* The analysis's prediction: factorization flops, entries of L and U, and their bytes. */
void mixi_klu_estimate(const mixi_klu *lu, double *flops, double *entries, double *bytes);
/* The FP64 LU of the analysed matrix with values val (CSR order, copied into the factors).
 * Returns 1 when factored, 0 when KLU could not (a zero pivot, or any failure of its own: the
 * caller factors with MUMPS, whose verdict stands). */
int mixi_klu_factor(mixi_klu *lu, const double *val);
/* Solves A X = C in place for k columns of C (leading dimension ldc >= n); factored only. */
int mixi_klu_solve(mixi_klu *lu, int k, double *c, int ldc);
/* Bytes of the factors (values and row indices) and KLU's peak while analysing and factoring;
 * factored only. */
void mixi_klu_bytes(const mixi_klu *lu, int64_t *factors, int64_t *peak);
int mixi_klu_factored(const mixi_klu *lu);
void mixi_klu_free(mixi_klu *lu); /* NULL allowed */

/* Test hook (sparse_lu_cpu.c, builds with MUMPS): 0 keeps every analysis and FP64
 * factorization in MUMPS, 1 (the default) lets KLU take those it pays for. */
void mixi_cpu_splu_use_klu(int use);
/* Test hooks: nested dissection's analysis cost in seconds (<= 0: the per-entry model), and
 * the factorization time it is predicted to save after an AMF analysis of `flops` at `gflops`
 * (sparse_lu_cpu.c, nd_may_pay). */
void mixi_cpu_splu_nd_cost(double seconds);
double mixi_cpu_splu_nd_saving_s(double flops, double gflops);
/* Test hook: the status the CPU backend gives MUMPS's INFO(1) (MIX_ERR_ALLOC for memory). */
int mixi_cpu_mumps_status(int info1);

#endif
