/* sparse_lu_klu.h: FP64 sparse LU by KLU (SuiteSparse), the CPU backend's factors for matrices whose analysis predicts little fill. */
#ifndef MIX_SPARSE_LU_KLU_H
#define MIX_SPARSE_LU_KLU_H

#include <stdint.h>

/* KLU's analysis and FP64 factors of one matrix. */
typedef struct mixi_klu mixi_klu;

/* LU of the n x n CSR matrix (rowptr, colind, val; nnz < 2^31), values copied into the factors.
 * *lu is NULL when KLU could not factor it (a zero pivot, or any failure of its own): the
 * caller then factors with MUMPS, whose verdict stands.  Returns MIX_ERR_ALLOC when our own
 * workspace could not be had, else MIX_SUCCESS. */
int mixi_klu_factor(int n, const int64_t *rowptr, const int32_t *colind, const double *val,
                    mixi_klu **lu);
/* Solves A X = C in place for k columns of C (leading dimension ldc >= n). */
int mixi_klu_solve(mixi_klu *lu, int k, double *c, int ldc);
/* Bytes of the factors (values and row indices) and KLU's peak while analysing and factoring. */
void mixi_klu_bytes(const mixi_klu *lu, int64_t *factors, int64_t *peak);
void mixi_klu_free(mixi_klu *lu); /* NULL allowed */

/* Test hook (sparse_lu_cpu.c, builds with MUMPS): 0 keeps every FP64 factorization in MUMPS, 1
 * (the default) lets KLU make those it pays for. */
void mixi_cpu_splu_use_klu(int use);

#endif
