/* cuda_dense.h: launchers of the dense .cu kernels (dense_kernels.cu), called from dense_cuda.c. */
#ifndef MIX_CUDA_DENSE_H
#define MIX_CUDA_DENSE_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "mixsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every launcher enqueues on `stream`, never synchronises, does nothing for empty sizes and
 * returns the launch status.  Matrices are column-major; counters are device memory and are
 * incremented (the caller zeroes them first); a NULL counter means "do not count". */

/* *d_count += number of NaN/Inf entries of the m x n matrix a. */
cudaError_t mixi_cuda_count_nonfinite_f64(cudaStream_t stream, int m, int n, const double *a,
                                          int lda, unsigned long long *d_count);
/* *d_bits = max(*d_bits, bits of max_i sum_j |a_ij|) (a NaN wins); the caller zeroes *d_bits;
 * rowsum is device scratch of m doubles. */
cudaError_t mixi_cuda_norm_inf_f64(cudaStream_t stream, int m, int n, const double *a, int lda,
                                   double *rowsum, unsigned long long *d_bits);
/* rowmax[i] = max_j |a_ij c_j| (c NULL = 1), a NaN wins (as the positive quiet NaN). */
cudaError_t mixi_cuda_row_absmax_f64(cudaStream_t stream, int m, int n, const double *a, int lda,
                                     const double *c, double *rowmax);
/* colmax[j] = max_i |r_i a_ij| (r NULL = 1), a NaN wins. */
cudaError_t mixi_cuda_col_absmax_f64(cudaStream_t stream, int m, int n, const double *a, int lda,
                                     const double *r, double *colmax);
/* out_ij = fl32(r_i a_ij (c_j s)); *d_count += entries not finite after RNE to `target`. */
cudaError_t mixi_cuda_convert_f64_f32(cudaStream_t stream, mix_prec target, int m, int n,
                                      const double *a, int lda, const double *r, const double *c,
                                      double s, float *out, int ldo, unsigned long long *d_count);
/* Tensor Core inputs: out = a rounded (RNE) to `compute`, stored as 16-bit patterns (MIX_FP16,
 * MIX_BF16: out is uint16_t) or as floats (MIX_TF32, MIX_FP32: out is float).
 * *d_count += finite inputs that became +-Inf. */
cudaError_t mixi_cuda_round_f32(cudaStream_t stream, mix_prec compute, int m, int n,
                                const float *a, int lda, void *out, int ldo, unsigned int *d_count);
/* LAPACK laswp with incx = 1: for i = k1..k2 (1-based) swap rows i and ipiv[i-1] (device ipiv). */
cudaError_t mixi_cuda_laswp_f32(cudaStream_t stream, int n, float *a, int lda, int k1, int k2,
                                const int *ipiv);
/* *d_count += NaN/Inf entries of the m x n a (the panel before its LU). */
cudaError_t mixi_cuda_count_nonfinite_f32(cudaStream_t stream, int m, int n, const float *a,
                                          int lda, unsigned int *d_count);
/* After cuSOLVER's panel LU: ipiv[0..n-1] += offset; *d_count += NaN/Inf entries of the m x n a;
 * *d_info (cuSOLVER's) := the first k with U(k,k) == 0 where that comes before it (a negative
 * one, an illegal argument, is kept). */
cudaError_t mixi_cuda_panel_post(cudaStream_t stream, int m, int n, const float *a, int lda,
                                 int *ipiv, int offset, int *d_info, unsigned int *d_count);
/* Correction solve in and out: w_ij = fl32(f_j s r_i b_ij) with f_j = 2^-e_j bringing the column
 * max of |s r_i b_ij| into [0.5, 1); then x_ij = c_i (w_ij 2^e_j), e_j recomputed from b, so
 * x may alias b. */
cudaError_t mixi_cuda_getrs_scale_in(cudaStream_t stream, int n, int nrhs, const double *r,
                                     double s, const double *b, int ldb, float *w);
cudaError_t mixi_cuda_getrs_scale_out(cudaStream_t stream, int n, int nrhs, const double *r,
                                      const double *c, double s, const double *b, int ldb,
                                      const float *w, double *x, int ldx);

/* Symmetric A given by its uplo triangle (0 lower, 1 upper); the other triangle is not read.
 * Row sums of |A| into rowsum (device scratch of n doubles, zeroed here), then as
 * mixi_cuda_norm_inf_f64 into *d_bits. */
cudaError_t mixi_cuda_norm_inf_sym_f64(cudaStream_t stream, int uplo, int n, const double *a,
                                       int lda, double *rowsum, unsigned long long *d_bits);
/* Lower triangle of out = fl32(d_i a_ij (d_j s)) from the stored triangle (d NULL = 1);
 * *d_count += entries not finite after RNE to `target`. */
cudaError_t mixi_cuda_convert_sym_f64_f32(cudaStream_t stream, mix_prec target, int uplo, int n,
                                          const double *a, int lda, const double *d, double s,
                                          float *out, int ldo, unsigned long long *d_count);
/* a_ii += shift. */
cudaError_t mixi_cuda_shift_diag_f32(cudaStream_t stream, int n, float *a, int lda, float shift);
/* *d_count += NaN/Inf entries of the lower triangle of the n x n a. */
cudaError_t mixi_cuda_count_nonfinite_lower_f32(cudaStream_t stream, int n, const float *a,
                                                int lda, unsigned *d_count);
/* r = b - A x for n x k blocks, accumulated in twice the precision (kernels/common/resid_dd.h);
 * sym = 1: only the upper (upper = 1) or lower triangle of A is read. */
cudaError_t mixi_cuda_resid_dd_f64(cudaStream_t stream, int sym, int upper, int n, int k,
                                   const double *a, int lda, const double *x, int ldx,
                                   const double *b, int ldb, double *r, int ldr);

#ifdef __cplusplus
}
#endif
#endif
