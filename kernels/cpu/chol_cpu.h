/* chol_cpu.h: the CPU backend's Cholesky operations (chol_cpu.c), entries of its dense table. */
#ifndef MIX_CHOL_CPU_H
#define MIX_CHOL_CPU_H

#include <stddef.h>
#include "mixsolve.h"

/* Semantics: the members of the same names in kernels/backend_dense.h. */
int mixi_cpu_norm_inf_sym_f64(void *state, int uplo, int n, const double *a, int lda,
                              double *norm);
int mixi_cpu_symm_f64(void *state, int uplo, int n, int k, double alpha, const double *a, int lda,
                      const double *b, int ldb, double beta, double *c, int ldc);
int mixi_cpu_symv_f64(void *state, int uplo, int n, double alpha, const double *a, int lda,
                      const double *x, double beta, double *y);
int mixi_cpu_convert_sym_f64_to_f32(void *state, mix_prec target, int uplo, int n,
                                    const double *a, int lda, const double *d, double s,
                                    float *out, int ldo, size_t *overflow);
int mixi_cpu_potrf_f32_worksize(void *state, int n, size_t *bytes);
int mixi_cpu_potrf_f32(void *state, int n, float *a, int lda, void *work, int *info);
int mixi_cpu_shift_diag_f32(void *state, int n, float *a, int lda, float shift);
int mixi_cpu_potrf_f64_worksize(void *state, int n, size_t *bytes);
int mixi_cpu_potrf_f64(void *state, int uplo, int n, double *a, int lda, void *work, int *info);
int mixi_cpu_potrs_f64(void *state, int uplo, int n, int nrhs, const double *a, int lda,
                       double *b, int ldb);
int mixi_cpu_posv_f64(void *state, int uplo, int n, int nrhs, double *a, int lda, double *b,
                      int ldb, int *info);

#endif
