/* cuda_sparse.h: launchers of the sparse .cu kernels (sparse_kernels.cu), called from sparse_cuda.c. */
#ifndef MIX_CUDA_SPARSE_H
#define MIX_CUDA_SPARSE_H

#include <stdint.h>
#include <cuda_runtime_api.h>
#include "mixsolve.h"
#include "kernels/common/spmv_row.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every launcher enqueues on `stream`, never synchronises, does nothing for n = 0 and returns
 * the launch status.  All pointers are device memory. */

/* A matrix as the kernels see it (storage as in kernels/backend_sparse.h): FP64 plain CSR, every
 * other format SELL-32. */
typedef struct {
    int n;
    int64_t nnz;
    mix_prec prec;
    const int64_t *rowptr; /* FP64 */
    const int32_t *colind;
    const void *val;
    mixk_sell sell;        /* the other formats */
    int lanes;             /* FP64: threads per row, 1 (thread per row) or 2, 4, 8, 16, 32 */
} mixi_cuda_csr;

/* A sloppy vector: values, and for FIXED16 one norm per MIXK_SVEC_BLOCK entries. */
typedef struct {
    void *val;
    float *norm;
} mixi_cuda_vec;

/* Reductions are deterministic: each block writes its FP64 partial sums, and the last block to
 * finish (one atomic ticket) adds the partials in a fixed order; the grid depends on n only.
 * `ws` holds MIXI_CUDA_RED_WS doubles, zeroed once when allocated (the ticket counter must start
 * at 0; the kernels leave it at 0).  Results: ws[MIXI_CUDA_RED_RESULT + k], k < 2. */
#define MIXI_CUDA_RED_BLOCKS 1024
#define MIXI_CUDA_RED_SLOTS 2
#define MIXI_CUDA_RED_RESULT (MIXI_CUDA_RED_SLOTS * MIXI_CUDA_RED_BLOCKS)
#define MIXI_CUDA_RED_WS (MIXI_CUDA_RED_RESULT + MIXI_CUDA_RED_SLOTS + 1)

/* Threads per row for a mean row length: the largest power of two <= mean, in [1, 32]. */
int mixi_cuda_spmv_lanes(double mean_row_length);

/* Matrix setup.  d_flag (an int, zeroed by the caller) gets bits: 1 a value overflowed the
 * storage precision, 2 a diagonal entry is missing or <= 0. */
/* out = diag(scale) A diag(scale) in FP64, the pattern of rowptr and colind. */
cudaError_t mixi_cuda_csr_convert_fp64(cudaStream_t stream, int n, const int64_t *rowptr,
                                       const int32_t *colind, const double *val,
                                       const double *scale, double *out);
/* The SELL rows of diag(scale) A diag(scale) in `prec` (scale NULL = 1), A's layout (slice,
 * eslice, erp) made: every row's columns, values, padding and diagonal into `out`
 * (mixk_sell_fill_row_SFX of kernels/common). */
cudaError_t mixi_cuda_sell_fill(cudaStream_t stream, int n, const int64_t *rowptr,
                                const int32_t *colind, const double *val, const double *scale,
                                mix_prec prec, const mixk_sell *A, const mixk_sell_out *out,
                                int *d_flag);
/* scale_i = 1 / sqrt(a_ii). */
cudaError_t mixi_cuda_diag_rsqrt(cudaStream_t stream, int n, const int64_t *rowptr,
                                 const int32_t *colind, const double *val, double *scale,
                                 int *d_flag);

/* FP64.  r = b - A x (b NULL: r = A x); ws non-NULL: result 0 = ||r||^2. */
cudaError_t mixi_cuda_residual64(cudaStream_t stream, const mixi_cuda_csr *A, const double *b,
                                 const double *x, double *r, double *ws);
/* Result 0 = ||x||^2. */
cudaError_t mixi_cuda_nrm2sq64(cudaStream_t stream, int n, const double *x, double *ws);

/* Sloppy vectors of precision `prec` and length n. */
/* v = round(alpha scale .* x); ws non-NULL: result 0 = ||alpha scale .* x||^2 (before rounding). */
cudaError_t mixi_cuda_vec_from64(cudaStream_t stream, mix_prec prec, int n, const double *x,
                                 const double *scale, double alpha, mixi_cuda_vec v, double *ws);
/* y += alpha scale .* v, in FP64. */
cudaError_t mixi_cuda_vec_accum64(cudaStream_t stream, mix_prec prec, int n, mixi_cuda_vec v,
                                  const double *scale, double alpha, double *y);
/* y = A x in A's precision; ws non-NULL: result 0 = <x, A x> from the unrounded row sums. */
cudaError_t mixi_cuda_spmv(cudaStream_t stream, const mixi_cuda_csr *A, mixi_cuda_vec x,
                           mixi_cuda_vec y, double *ws);
/* The same with x and y FP32 over a 16-bit (SELL) matrix. */
cudaError_t mixi_cuda_spmv_acc(cudaStream_t stream, const mixi_cuda_csr *A, const float *x,
                               float *y, double *ws);
/* y = a (A x) + b z, all vectors in A's accumulator precision (FP32 over the 16-bit formats):
 * the bits of mixi_cuda_spmv (or _acc) into a scratch t, then mixi_cuda_axpby(a, t, b, z) into
 * y.  z may be y or x; x is not y. */
cudaError_t mixi_cuda_spmv_axpby(cudaStream_t stream, const mixi_cuda_csr *A, mixi_cuda_vec x,
                                 double a, mixi_cuda_vec z, double b, mixi_cuda_vec y);
/* acc[j] = (A^T x)_j in FP64 for j < m (zeroed first; entries in columns >= m skipped), by
 * atomics (the order of each sum varies); x32: x is FP32 over a 16-bit matrix, else in A's
 * format.  The caller rounds acc into its vector (mixi_cuda_vec_from64). */
cudaError_t mixi_cuda_spmv_t(cudaStream_t stream, const mixi_cuda_csr *A, mixi_cuda_vec x, int x32,
                             double *acc, int64_t m);
/* The transfers of a tentative prolongator (kernels/backend_sparse.h's mixi_tent: n rows, nc
 * aggregates; start, rows and val for the restriction, agg and row_val for the prolongation), vectors in FP64 (fp64) or FP32: y = T^T x, and u = T y
 * with x += u where x is not NULL. */
cudaError_t mixi_cuda_tent_restrict(cudaStream_t stream, int fp64, int nc, const int32_t *start,
                                    const int32_t *rows, const void *val, const void *x, void *y);
cudaError_t mixi_cuda_tent_prolong(cudaStream_t stream, int fp64, int n, int nc, const int32_t *agg,
                                   const void *val, const void *y, void *u, void *x);
/* x += alpha p; r -= alpha ap; results 0 = ||r_new||^2, 1 = <r_new, r_old>.  x_fp32: x is an
 * FP32 vector (16-bit prec only). */
cudaError_t mixi_cuda_cg_update(cudaStream_t stream, mix_prec prec, int n, double alpha,
                                mixi_cuda_vec p, mixi_cuda_vec ap, mixi_cuda_vec x, int x_fp32,
                                mixi_cuda_vec r, double *ws);
/* y = a x + b y. */
cudaError_t mixi_cuda_axpby(cudaStream_t stream, mix_prec prec, int n, double a, mixi_cuda_vec x,
                            double b, mixi_cuda_vec y);
/* d = a r + b d, then x = d + c x: the bits of mixi_cuda_axpby(a, r, b, d) then
 * mixi_cuda_axpby(1, d, c, x) in one pass; r, d, x distinct. */
cudaError_t mixi_cuda_cheb_update(cudaStream_t stream, mix_prec prec, int n, double a,
                                  mixi_cuda_vec r, double b, mixi_cuda_vec d, double c,
                                  mixi_cuda_vec x);
/* Result 0 = <x, y>. */
cudaError_t mixi_cuda_dot(cudaStream_t stream, mix_prec prec, int n, mixi_cuda_vec x,
                          mixi_cuda_vec y, double *ws);

/* Test and benchmark hooks (sparse_cuda.c): the threads per row of a matrix's SpMV. */
struct mixi_spmat;
int mixi_cuda_spmat_set_lanes(struct mixi_spmat *A, int lanes); /* 1, 2, 4, ..., 32 */
int mixi_cuda_spmat_lanes(const struct mixi_spmat *A);

#ifdef __cplusplus
}
#endif
#endif
