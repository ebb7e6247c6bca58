/* backend_dense.h: the dense family of the operations table (LU-IR and GMRES-IR need only these). */
#ifndef MIX_BACKEND_DENSE_H
#define MIX_BACKEND_DENSE_H

#include <stddef.h>
#include "kernels/backend.h"

/* Conventions for every operation below.
 *  - Matrices are column-major with a leading dimension ld >= max(1, rows); every pointer to
 *    matrix or vector data is backend memory (host for CPU, device for CUDA) unless the comment
 *    says "host".  Scalars and small results come back through host pointers.
 *  - ipiv arrays are backend memory, int, 1-based, LAPACK meaning (row i was swapped with ipiv[i]),
 *    indices global to the whole matrix.
 *  - m, n, k, nrhs >= 0; zero sizes are legal and do nothing.  The solver checks arguments; a
 *    backend may trust them.  Every operation returns 0 or a MIX_ERR_* status (MIX_ERR_INTERNAL
 *    when a library call fails, MIX_ERR_ALLOC when its own scratch cannot be had).
 *  - Low-precision factors are always stored in FP32; `compute` (MIX_FP32 | MIX_TF32 | MIX_FP16 |
 *    MIX_BF16) only says how GEMM inputs are rounded (Tensor Core semantics: inputs rounded to
 *    `compute` with RNE, exact products, FP32 accumulation).
 *  - "Overflow count" = number of entries that were not finite after rounding to the target
 *    format (Inf/NaN input included); host size_t, pointer may be NULL.
 *  - Workspaces are passed in by the solver (allocated once per solve with ops->alloc); an
 *    operation never allocates in the solver's loops. */
/* Flags of the triangular and GEMM operations (values as the FP64 ops' 0/1 trans flags). */
enum { MIXK_NOTRANS = 0, MIXK_TRANS = 1 };
enum { MIXK_LEFT = 0, MIXK_RIGHT = 1 };
enum { MIXK_LOWER = 0, MIXK_UPPER = 1 };
enum { MIXK_NONUNIT = 0, MIXK_UNIT = 1 };
/* The words of one LU step's checks (getrf_panel_f32_chk, gemm_f32_chk). */
enum { MIXI_LU_CHK_INFO, MIXI_LU_CHK_NONFINITE, MIXI_LU_CHK_OVERFLOW, MIXI_LU_CHECKS };

struct mixi_dense_ops {
    /* --- FP64 data movement and checks ------------------------------------------------------ */
    /* dst = src (trans = 0) or src^T (trans = 1); src is m x n (before transposition). */
    int (*lacpy_f64)(void *state, int trans, int m, int n, const double *src, int lds, double *dst,
                     int ldd);
    /* *count (host) = number of NaN/Inf entries of the m x n matrix a. */
    int (*count_nonfinite_f64)(void *state, int m, int n, const double *a, int lda, size_t *count);
    /* *norm (host) = ||a||_inf = max row sum of |a_ij| (NaN if a holds a NaN). */
    int (*norm_inf_f64)(void *state, int m, int n, const double *a, int lda, double *norm);
    /* colmax[j] (HOST, n entries) = max_i |a_ij| for each column (NaN if the column holds one). */
    int (*col_absmax_f64)(void *state, int m, int n, const double *a, int lda, double *colmax);

    /* --- Scaling (Higham-Pranesh-Zounon equilibration; scale vectors are backend memory) ---- */
    /* rowmax[i] (backend, m entries) = max_j |a_ij * c_j|; c (n entries) may be NULL (= 1). */
    int (*row_absmax_scaled_f64)(void *state, int m, int n, const double *a, int lda,
                                 const double *c, double *rowmax);
    /* colmax[j] (backend, n entries) = max_i |r_i * a_ij|; r (m entries) may be NULL (= 1). */
    int (*col_absmax_scaled_f64)(void *state, int m, int n, const double *a, int lda,
                                 const double *r, double *colmax);
    /* out_ij = fl32(s * r_i * a_ij * c_j) (r, c may be NULL = 1); *overflow = entries whose FP32
     * value would not be finite after RNE to `target` (FP16: |v| >= 65520; BF16/TF32: just below
     * FLT_MAX; FP32: Inf/NaN).  The stored value is FP32, not rounded to `target`. */
    int (*convert_f64_to_f32)(void *state, mix_prec target, int m, int n, const double *a, int lda,
                              const double *r, const double *c, double s, float *out, int ldo,
                              size_t *overflow);

    /* --- Low-precision blocked LU pieces (driven by solvers/dense/blocked_lowprec.c) --------------- */
    /* Optional (NULL: the solver's default, tuned on the CPU): the column block of the blocked
     * low-precision LU and Cholesky for order n where this backend's trailing updates want
     * another, 0 where the default suits it. */
    int (*lu_block_size)(int n);
    /* Bytes of workspace getrf_panel_f32 needs for an m x n panel (may be 0). */
    int (*getrf_panel_f32_worksize)(void *state, int m, int n, size_t *bytes);
    /* LU with partial pivoting of the m x n (m >= n) FP32 panel a, in place.  ipiv (backend, n
     * entries) receives local pivot row + ipiv_offset (pass the panel's first global row index,
     * 0-based, to get global 1-based pivots).  *info (host) = 0, or k > 0 if U(k,k) is exactly zero
     * (local, 1-based; factorisation completed as LAPACK does), or -1 if a NaN/Inf appeared. */
    int (*getrf_panel_f32)(void *state, int m, int n, float *a, int lda, int *ipiv,
                           int ipiv_offset, void *work, int *info);
    /* Optional (NULL allowed; added after the first version of this table): the whole n x n FP32
     * LU with partial pivoting in place, the backend's own tuned routine (LAPACK sgetrf,
     * cusolverDnSgetrf) for compute = MIX_FP32, where it beats the blocked driver.  ipiv global
     * 1-based; work: getrf_panel_f32_worksize(n, n) bytes; *info as getrf_panel_f32. */
    int (*getrf_f32)(void *state, int n, float *a, int lda, int *ipiv, void *work, int *info);
    /* Row interchanges on the n columns of a: for i = k1..k2 (1-based, inclusive) swap row i with
     * row ipiv[i-1] (LAPACK slaswp/dlaswp with incx = 1). */
    int (*laswp_f32)(void *state, int n, float *a, int lda, int k1, int k2, const int *ipiv);
    /* B := op(T)^{-1} B (side = MIXK_LEFT, B m x n, T m x m) or B op(T)^{-1} (MIXK_RIGHT, T
     * n x n), T the `uplo` triangle of a (MIXK_LOWER | MIXK_UPPER), op = transpose or not
     * (MIXK_NOTRANS | MIXK_TRANS), unit diagonal or not (MIXK_UNIT | MIXK_NONUNIT): BLAS strsm
     * with alpha = 1.  LU needs the unit lower left case, Cholesky the others. */
    int (*trsm_f32)(void *state, int side, int uplo, int trans, int diag, int m, int n,
                    const float *a, int lda, float *b, int ldb);
    /* C := alpha op(A) op(B) + beta C, op(A) m x k, op(B) k x n (transa/transb MIXK_NOTRANS |
     * MIXK_TRANS: A stored k x m, B stored n x k), FP32 storage.  Inputs A and B rounded to
     * `compute` (RNE), exact products, FP32 accumulation.  work: backend memory of at least
     * (m*k + k*n) floats when compute != MIX_FP32 (ignored and may be NULL for MIX_FP32).
     * *overflow = input entries that overflowed `compute` (result then unreliable). */
    int (*gemm_f32)(void *state, mix_prec compute, int transa, int transb, int m, int n, int k,
                    float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                    float *c, int ldc, void *work, size_t *overflow);

    /* Optional (NULL: the blocked LU reads each step's checks back at once): getrf_panel_f32 and
     * gemm_f32 with their checks left in backend memory, so that the LU's loop need not wait for
     * the device inside it.  chk: MIXI_LU_CHECKS ints of backend memory the caller zeroed, [0]
     * the panel's INFO (> 0 the zero pivot of getrf_panel_f32, < 0 an illegal argument: ours to
     * fix), [1] non-zero when the panel's factors hold a NaN/Inf, [2] non-zero when the GEMM's
     * inputs overflowed `compute`; each op writes only its own words. */
    int (*getrf_panel_f32_chk)(void *state, int m, int n, float *a, int lda, int *ipiv,
                               int ipiv_offset, void *work, int *chk);
    int (*gemm_f32_chk)(void *state, mix_prec compute, int transa, int transb, int m, int n,
                        int k, float alpha, const float *a, int lda, const float *b, int ldb,
                        float beta, float *c, int ldc, void *work, int *chk);

    /* --- Correction solve with the FP32 factors applied to FP64 vectors ---------------------- */
    /* X := C * (U^{-1} L^{-1} P (s R B)) for the n x nrhs FP64 matrix B (the scaled system is
     * s R A C = P^T L U; r, c backend vectors or NULL = 1).  Each column of s R B is multiplied by a
     * power of two bringing its max to ~1 before rounding to FP32 (no underflow of small
     * residuals) and divided by it after; a zero column gives a zero column.  lu/ipiv from the
     * blocked LU.  work: backend memory of n*nrhs floats.  b and x may be the same array. */
    int (*getrs_f32_f64)(void *state, int n, int nrhs, const float *lu, int ldlu, const int *ipiv,
                         const double *r, const double *c, double s, const double *b, int ldb,
                         double *x, int ldx, float *work);

    /* --- FP64 BLAS for residuals and GMRES (Krylov basis in backend memory) ------------------ */
    /* C := alpha op(A) op(B) + beta C; trans flags 0 = N, 1 = T; op(A) m x k, op(B) k x n. */
    int (*gemm_f64)(void *state, int transa, int transb, int m, int n, int k, double alpha,
                    const double *a, int lda, const double *b, int ldb, double beta, double *c,
                    int ldc);
    /* y := alpha op(A) x + beta y; A m x n; trans 0 = N, 1 = T. */
    int (*gemv_f64)(void *state, int trans, int m, int n, double alpha, const double *a, int lda,
                    const double *x, double beta, double *y);
    int (*axpy_f64)(void *state, int n, double alpha, const double *x, double *y); /* y += a x */
    int (*scal_f64)(void *state, int n, double alpha, double *x);                  /* x *= a */
    int (*dot_f64)(void *state, int n, const double *x, const double *y, double *result); /* host */
    int (*nrm2_f64)(void *state, int n, const double *x, double *result);                /* host */

    /* --- FP64 fallback ----------------------------------------------------------------------- */
    /* Bytes of workspace getrf_f64 needs for an n x n matrix (may be 0). */
    int (*getrf_f64_worksize)(void *state, int n, size_t *bytes);
    /* LAPACK dgetrf of the n x n matrix a in place; ipiv backend (n); *info (host) as dgetrf. */
    int (*getrf_f64)(void *state, int n, double *a, int lda, int *ipiv, void *work, int *info);
    /* LAPACK dgetrs (no transpose): b := A^{-1} b with the factors of getrf_f64. */
    int (*getrs_f64)(void *state, int n, int nrhs, const double *a, int lda, const int *ipiv,
                     double *b, int ldb);
    /* Optional (NULL allowed), host-memory backends: LAPACK dgesv's contract, the two above in
     * one call (b := the solution unless *info > 0), for small systems where a call's fixed cost
     * shows (the CPU's own loops at tiny orders: kernels/cpu/dense_tiny.h). */
    int (*gesv_f64)(void *state, int n, int nrhs, double *a, int lda, int *ipiv, double *b,
                    int ldb, int *info);

    /* --- Symmetric positive definite systems (solvers/dense/blocked_lowprec.c, solvers/dense/chol_factor.c) ----
     * A symmetric matrix is given by its `uplo` triangle (MIXK_LOWER | MIXK_UPPER) alone; the
     * other triangle is never read (it may hold anything, NaN included).  The low-precision
     * Cholesky factor is always the lower triangle L of an FP32 matrix, A = L L^T. */
    /* *norm (host) = ||A||_inf of the symmetric A (NaN if its triangle holds a NaN). */
    int (*norm_inf_sym_f64)(void *state, int uplo, int n, const double *a, int lda, double *norm);
    /* C := alpha A B + beta C, A n x n symmetric (its uplo triangle), B and C n x k (BLAS dsymm
     * with side = left, also for k = 1: the refinement's residual, computed as LAPACK's dsposv
     * and its test harness compute theirs, so that both read the same bits). */
    int (*symm_f64)(void *state, int uplo, int n, int k, double alpha, const double *a, int lda,
                    const double *b, int ldb, double beta, double *c, int ldc);
    /* y := alpha A x + beta y, A symmetric (its uplo triangle): the Krylov steps' product (BLAS
     * dsymv, faster than dsymm on one column).  NULL: symm_f64 with k = 1. */
    int (*symv_f64)(void *state, int uplo, int n, double alpha, const double *a, int lda,
                    const double *x, double beta, double *y);
    /* The LOWER triangle (diagonal included) of out := fl32(s D A D), D = diag(d) (d backend, n
     * entries, or NULL = 1), from the uplo triangle of the symmetric A (transposed when upper);
     * out's strict upper triangle is not written.  *overflow as convert_f64_to_f32, counted on
     * the triangle only. */
    int (*convert_sym_f64_to_f32)(void *state, mix_prec target, int uplo, int n, const double *a,
                                  int lda, const double *d, double s, float *out, int ldo,
                                  size_t *overflow);
    /* Bytes of workspace potrf_f32 needs for an n x n matrix (may be 0). */
    int (*potrf_f32_worksize)(void *state, int n, size_t *bytes);
    /* Cholesky A = L L^T of the n x n FP32 matrix a in place, lower triangle only (LAPACK spotrf
     * 'L'): the diagonal blocks of the blocked factorisation, and the whole matrix when compute
     * = MIX_FP32.  *info (host) = 0, k > 0 if the leading minor of order k is not positive
     * definite (NaN included), -1 if an Inf/NaN appeared in L.  work: potrf_f32_worksize(n). */
    int (*potrf_f32)(void *state, int n, float *a, int lda, void *work, int *info);
    /* Lower triangle of C := alpha A A^T + beta C, A n x k, C n x n, with gemm_f32's semantics
     * (inputs rounded to `compute`, FP32 accumulation); C's strict upper triangle may be
     * overwritten.  work: 2 n k floats when compute != MIX_FP32.  *overflow nonzero when an
     * input entry overflowed `compute`. */
    int (*syrk_f32)(void *state, mix_prec compute, int n, int k, float alpha, const float *a,
                    int lda, float beta, float *c, int ldc, void *work, size_t *overflow);
    /* a_ii += shift, i < n (Higham and Pranesh's diagonal shift before an FP16 Cholesky). */
    int (*shift_diag_f32)(void *state, int n, float *a, int lda, float shift);
    /* X := D (L L^T)^{-1} (s D B), the scaled system s D A D = L L^T with L the lower triangle
     * of l (d backend or NULL = 1).  The column scaling of getrs_f32_f64; b and x may be the
     * same array; work: n*nrhs floats. */
    int (*potrs_f32_f64)(void *state, int n, int nrhs, const float *l, int ldl, const double *d,
                         double s, const double *b, int ldb, double *x, int ldx, float *work);
    /* FP64 fallback: LAPACK dpotrf / dpotrs on the uplo triangle (the other one untouched). */
    int (*potrf_f64_worksize)(void *state, int n, size_t *bytes);
    int (*potrf_f64)(void *state, int uplo, int n, double *a, int lda, void *work, int *info);
    int (*potrs_f64)(void *state, int uplo, int n, int nrhs, const double *a, int lda, double *b,
                     int ldb);
    /* Optional (NULL allowed), host-memory backends: LAPACK dposv, potrf_f64 and potrs_f64 in
     * one call, as gesv_f64. */
    int (*posv_f64)(void *state, int uplo, int n, int nrhs, double *a, int lda, double *b,
                    int ldb, int *info);

    /* --- Cost model (optional, NULL allowed) ------------------------------------------------- */
    /* *gflops (host) = the sustained GEMM rate of this backend in precision p (MIX_FP64 the FP64
     * BLAS; MIX_FP32/TF32/FP16/BF16 the gemm_f32 engine for that compute precision), measured
     * once per process and cached; the cost-aware fallback and MIX_PREC_AUTO predict factor
     * times from it.  0 when unknown. */
    int (*gemm_rate)(void *state, mix_prec p, double *gflops);
    /* *gflops (host) = the FP64 LU's rate (2/3 n^3 flops a second, LAPACK dgetrf) at the order
     * *n it was measured at, once per process: against gemm_rate's, how far a mid-size
     * factorization stays from the GEMM rate (MIX_PREC_AUTO's cost model).  0 when unknown. */
    int (*getrf_rate)(void *state, int *n, double *gflops);
    /* *bytes_per_s (host) = the rate of one LU-IR refinement round at a mid order (an FP64
     * matrix-vector product and a solve with FP32 LU factors, 12 bytes of matrix per entry),
     * measured once per process: MIX_PREC_AUTO weighs the rounds with it.  0 when unknown. */
    int (*round_rate)(void *state, double *bytes_per_s);
    /* The cost of the first gemm_rate, getrf_rate and round_rate still to come, in FP64
     * flops of the same time (their GEMMs and LU with the fixed costs of a first call); 0 once
     * measured.  MIX_PREC_AUTO measures them only once its calls' FP64 work pays for them. */
    double (*calibration_flops)(void *state);
    /* 1 where the whole FP32 factorizations of order n (getrf_f32, and potrf_f32 on the whole
     * matrix) beat the blocked driver with gemm_f32's FP32 updates, 0 where the driver wins (a
     * BLAS whose own kernels lag the GEMM engine).  NULL: 1. */
    int (*whole_f32_pays)(void *state, int n);

    /* --- Accurate residual (optional, NULL allowed) ------------------------------------------ */
    /* R := B - A X for n x k blocks, every entry accumulated in twice the working precision
     * (kernels/common/resid_dd.h: FMA TwoProduct + TwoSum) and rounded once.  sym = 0: A general
     * n x n; sym = 1: A symmetric, only its uplo triangle read.  R must not overlap B or X.  The
     * refinement computes it for columns whose FP64 residual stalls near the stopping test, where
     * that residual's own rounding errors are as large as what it measures. */
    int (*resid_dd_f64)(void *state, int sym, int uplo, int n, int k, const double *a, int lda,
                        const double *x, int ldx, const double *b, int ldb, double *r, int ldr);
};

#endif
