/* dense_cuda.c: the CUDA backend's dense operations (cuBLAS/cuSOLVER calls, our kernels for the rest). */
#include <stdint.h>
#include <string.h>
#include "lib/core/core.h"
#include "kernels/backend_dense.h"
#include "kernels/cuda/cuda_internal.h"
#include "kernels/cuda/cuda_dense.h"

/* Design notes.
 *  - Everything is enqueued on the context's one stream; the host waits only where the table
 *    hands a scalar back (norms, counts, pivot info, dot/nrm2), never elsewhere.
 *  - gemm_f32 with a low `compute`: the panel and the row block are rounded (RNE, the shared
 *    kernels/common code) into 16-bit copies (FP16/BF16) or TF32-exact FP32 copies, and multiplied
 *    by cublasGemmEx with FP32 accumulation (CUBLAS_COMPUTE_32F for 16-bit inputs,
 *    CUBLAS_COMPUTE_32F_FAST_TF32 for TF32).  We prefer this to FP32 inputs with _FAST_16F/_16BF
 *    because (1) the rounding is then exactly the CPU backend's (cuBLAS does not document how the
 *    _FAST_ modes round), (2) overflow of the 16-bit inputs is counted instead of silently
 *    becoming Inf, and (3) the GEMM reads half the bytes.  The copies cost O((m+n) k) per update,
 *    nothing next to the O(m n k) product.  TF32 inputs are pre-rounded too, so the Tensor Cores'
 *    own FP32->TF32 conversion is exact whatever mode they use.
 *  - Copies get Tensor-Core-friendly leading dimensions (64 elements for FP16/BF16, 32 for TF32)
 *    when they fit the solver's workspace (which is sized for unpadded FP32 copies). */

#define STREAM(state) (((mixi_cuda_state *)(state))->stream)

static cublasHandle_t blas(void *state)
{
    cublasHandle_t h = ((mixi_cuda_state *)state)->cublas;
    /* The handle is shared with the sparse family: our scalars are host scalars. */
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    return h;
}

/* Small device scratch of the operations that return host results (col_absmax_f64 runs in every
 * refinement iteration): stream-ordered pool memory, which neither synchronises nor goes to the
 * driver after the first use; plain cudaMalloc where the device has no memory pools.  The
 * library's fail injection applies as to every backend allocation. */
static int pools_supported(void *state)
{
    int yes = 0;
    if (cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported,
                               ((mixi_cuda_state *)state)->device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return yes;
}

static int scratch(void *state, void **p, size_t bytes)
{
    *p = NULL;
    if (mixi_alloc_should_fail()) return MIX_ERR_ALLOC;
    cudaError_t e = pools_supported(state) ? cudaMallocAsync(p, bytes, STREAM(state))
                                           : cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *p = NULL;
        return MIX_ERR_ALLOC;
    }
    return MIX_SUCCESS;
}

static void scratch_free(void *state, void *p)
{
    if (!p) return;
    if (pools_supported(state)) cudaFreeAsync(p, STREAM(state));
    else cudaFree(p);
}

/* Copy `bytes` of device memory to the host and wait for it. */
static int fetch(void *state, void *host, const void *dev, size_t bytes)
{
    int st = mixi_cuda_status(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost,
                                              STREAM(state)));
    if (st) return st;
    return mixi_cuda_status(cudaStreamSynchronize(STREAM(state)));
}

static int zero_dev(void *state, void *dev, size_t bytes)
{
    return mixi_cuda_status(cudaMemsetAsync(dev, 0, bytes, STREAM(state)));
}

static int cuda_lacpy_f64(void *state, int trans, int m, int n, const double *src, int lds,
                          double *dst, int ldd)
{
    if (m == 0 || n == 0) return MIX_SUCCESS;
    if (!trans)
        return mixi_cuda_status(cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(double), src,
                                                  (size_t)lds * sizeof(double),
                                                  (size_t)m * sizeof(double), (size_t)n,
                                                  cudaMemcpyDeviceToDevice, STREAM(state)));
    /* dst (n x m) = src^T; geam with beta = 0 and B = C is cuBLAS's documented in-place form. */
    const double one = 1.0, zero = 0.0;
    return mixi_cublas_status(cublasDgeam(blas(state), CUBLAS_OP_T, CUBLAS_OP_N, n, m, &one, src,
                                          lds, &zero, dst, ldd, dst, ldd));
}

/* A kernel that reports a 64-bit result (a count, or a double's bits) writes it into the first word
 * of a zeroed scratch buffer, followed by `words` - 1 words of its own workspace. */
static int counter_alloc(void *state, size_t words, unsigned long long **d)
{
    int st = scratch(state, (void **)d, words * sizeof **d);
    if (!st && (st = zero_dev(state, *d, sizeof **d))) {
        scratch_free(state, *d);
        *d = NULL;
    }
    return st;
}

/* After the kernel ran with status st: fetch the result into *h (when st is 0) and release. */
static int counter_done(void *state, unsigned long long *d, int st, unsigned long long *h)
{
    if (!d) return st;
    if (!st) st = fetch(state, h, d, sizeof *h);
    scratch_free(state, d);
    return st;
}

static int cuda_count_nonfinite_f64(void *state, int m, int n, const double *a, int lda,
                                    size_t *count)
{
    *count = 0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    unsigned long long *d = NULL, h = 0;
    int st = counter_alloc(state, 1, &d);
    if (st) return st;
    st = mixi_cuda_status(mixi_cuda_count_nonfinite_f64(STREAM(state), m, n, a, lda, d));
    if (!(st = counter_done(state, d, st, &h))) *count = (size_t)h;
    return st;
}

static int cuda_norm_inf_f64(void *state, int m, int n, const double *a, int lda, double *norm)
{
    *norm = 0.0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    /* One scratch: the result's bits, then the m row sums. */
    unsigned long long *d = NULL, h = 0;
    int st = counter_alloc(state, (size_t)m + 1, &d);
    if (st) return st;
    st = mixi_cuda_status(
        mixi_cuda_norm_inf_f64(STREAM(state), m, n, a, lda, (double *)(d + 1), d));
    if (!(st = counter_done(state, d, st, &h))) memcpy(norm, &h, sizeof *norm);
    return st;
}

static int cuda_col_absmax_f64(void *state, int m, int n, const double *a, int lda, double *colmax)
{
    if (n == 0) return MIX_SUCCESS;
    double *d = NULL;
    int st = scratch(state, (void **)&d, (size_t)n * sizeof *d);
    if (st) return st;
    st = mixi_cuda_status(mixi_cuda_col_absmax_f64(STREAM(state), m, n, a, lda, NULL, d));
    if (!st) st = fetch(state, colmax, d, (size_t)n * sizeof *d);
    scratch_free(state, d);
    return st;
}

static int cuda_row_absmax_scaled_f64(void *state, int m, int n, const double *a, int lda,
                                      const double *c, double *rowmax)
{
    return mixi_cuda_status(mixi_cuda_row_absmax_f64(STREAM(state), m, n, a, lda, c, rowmax));
}

static int cuda_col_absmax_scaled_f64(void *state, int m, int n, const double *a, int lda,
                                      const double *r, double *colmax)
{
    return mixi_cuda_status(mixi_cuda_col_absmax_f64(STREAM(state), m, n, a, lda, r, colmax));
}

static int cuda_convert_f64_to_f32(void *state, mix_prec target, int m, int n, const double *a,
                                   int lda, const double *r, const double *c, double s, float *out,
                                   int ldo, size_t *overflow)
{
    if (overflow) *overflow = 0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    unsigned long long *d = NULL, h = 0;
    int st = overflow ? counter_alloc(state, 1, &d) : MIX_SUCCESS;
    if (st) return st;
    st = mixi_cuda_status(
        mixi_cuda_convert_f64_f32(STREAM(state), target, m, n, a, lda, r, c, s, out, ldo, d));
    if (!(st = counter_done(state, d, st, &h)) && overflow) *overflow = (size_t)h;
    return st;
}

/* The blocked LU's column block.  Its trailing update reads and writes the FP32 A22 once per
 * step for 2 nb flops per entry (nb / 4 flops per byte); an H100's FP16 Tensor Cores want about
 * 300 flops per byte of HBM (990 TFLOP/s over 3.35 TB/s), so the CPU's nb = 256 leaves the update
 * bound by A22's traffic (about 370 GB over the factorization at n = 32768) and the panel steps'
 * fixed costs 128 times.  Larger blocks at large n, as MAGMA takes 512 from n ~ 2000-3000 on
 * Kepler onwards (get_nb.cpp); the panel (cuSOLVER's FP32 getrf on an m x nb block) grows with
 * nb, so 1024 only from 16384 where it stays a few percent of the flops.  A first choice from
 * the arithmetic: MIXSOLVE_LU_NB sweeps it on the device (doc/HACKING.md section 7). */
static int cuda_lu_block_size(int n)
{
    if (n >= 16384) return 1024;
    return n >= 4096 ? 512 : 0; /* below: the CPU's choice */
}

/* getrf_panel_f32's workspace: a 256-byte header (cuSOLVER's devInfo, our NaN/Inf counts of
 * the factors and of the panel before them), then cuSOLVER's float workspace. */
#define PANEL_HDR 256

static int sgetrf_lwork(void *state, int m, int n, float *a, int lda, int *lwork)
{
    /* cuSOLVER only reads the sizes; a valid device pointer stands in when the panel is not known. */
    float *any = a ? a : (float *)((mixi_cuda_state *)state)->d_flag;
    *lwork = 0;
    return mixi_cusolver_status(cusolverDnSgetrf_bufferSize(((mixi_cuda_state *)state)->cusolver,
                                                            m, n, any, lda, lwork));
}

static int cuda_getrf_panel_f32_worksize(void *state, int m, int n, size_t *bytes)
{
    *bytes = 0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    int lwork = 0, st = sgetrf_lwork(state, m, n, NULL, m, &lwork);
    if (st) return st;
    *bytes = PANEL_HDR + (size_t)lwork * sizeof(float);
    return MIX_SUCCESS;
}

/* Enqueues the panel's LU: LAPACK's INFO into d_info (mixi_cuda_panel_post), the NaN/Inf count
 * of the panel before it into d_in_nan and of its factors into d_nan (all zeroed by the caller;
 * the two counts may share a word); nothing comes back to the host.  The input is counted
 * because GPU LU codes have been seen to lose a NaN of their input (pytorch issue 173638): a
 * NaN in the panel must report -1 whatever cuSOLVER makes of it. */
static int panel_enqueue(void *state, int m, int n, float *a, int lda, int *ipiv, int ipiv_offset,
                         void *work, int *d_info, unsigned *d_nan, unsigned *d_in_nan)
{
    mixi_cuda_state *s = state;
    float *d_work = (float *)((char *)work + PANEL_HDR), *extra = NULL;
    int lwork = 0, lwork_given = 0, st;
    /* The solver sized `work` for lda = m; a larger lda could ask for more (not seen in practice). */
    if ((st = sgetrf_lwork(state, m, n, NULL, m, &lwork_given))) return st;
    if ((st = sgetrf_lwork(state, m, n, a, lda, &lwork))) return st;
    if (lwork > lwork_given) {
        if ((st = scratch(state, (void **)&extra, (size_t)lwork * sizeof(float)))) return st;
        d_work = extra;
    }
    if (!(st = mixi_cuda_status(
              mixi_cuda_count_nonfinite_f32(s->stream, m, n, a, lda, d_in_nan))) &&
        !(st = mixi_cusolver_status(
              cusolverDnSgetrf(s->cusolver, m, n, a, lda, d_work, ipiv, d_info))))
        st = mixi_cuda_status(
            mixi_cuda_panel_post(s->stream, m, n, a, lda, ipiv, ipiv_offset, d_info, d_nan));
    scratch_free(state, extra); /* stream-ordered: after the LU that reads it */
    return st;
}

static int cuda_getrf_panel_f32(void *state, int m, int n, float *a, int lda, int *ipiv,
                                int ipiv_offset, void *work, int *info)
{
    *info = 0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    int *d_hdr = work; /* [0] INFO, [1] NaN/Inf count of the factors, [2] of the input */
    int h[3] = {0, 0, 0}, st;
    if ((st = zero_dev(state, d_hdr, sizeof h)) ||
        (st = panel_enqueue(state, m, n, a, lda, ipiv, ipiv_offset, work, d_hdr,
                            (unsigned *)(d_hdr + 1), (unsigned *)(d_hdr + 2))) ||
        (st = fetch(state, h, d_hdr, sizeof h)))
        return st;
    /* A NaN/Inf given first (as LAPACK's factors keep it), then an exact zero pivot: cuSOLVER
     * divides by one, so the NaNs that follow it are no NaN of the matrix.  The solver leaves
     * the low-precision path either way. */
    if (h[0] < 0) return MIX_ERR_INTERNAL; /* an illegal argument: ours to fix, not the matrix's */
    *info = h[2] ? -1 : h[0] > 0 ? h[0] : (h[1] ? -1 : 0);
    return MIX_SUCCESS;
}

/* The same with the checks left on the device (the blocked LU reads them after its loop). */
static int cuda_getrf_panel_f32_chk(void *state, int m, int n, float *a, int lda, int *ipiv,
                                    int ipiv_offset, void *work, int *chk)
{
    if (m == 0 || n == 0) return MIX_SUCCESS;
    unsigned *nonfinite = (unsigned *)(chk + MIXI_LU_CHK_NONFINITE);
    return panel_enqueue(state, m, n, a, lda, ipiv, ipiv_offset, work, chk + MIXI_LU_CHK_INFO,
                         nonfinite, nonfinite);
}

static int cuda_laswp_f32(void *state, int n, float *a, int lda, int k1, int k2, const int *ipiv)
{
    return mixi_cuda_status(mixi_cuda_laswp_f32(STREAM(state), n, a, lda, k1, k2, ipiv));
}

static int cuda_trsm_f32(void *state, int side, int uplo, int trans, int diag, int m, int n,
                         const float *a, int lda, float *b, int ldb)
{
    if (m == 0 || n == 0) return MIX_SUCCESS;
    const float one = 1.0f;
    return mixi_cublas_status(cublasStrsm(
        blas(state), side == MIXK_RIGHT ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT,
        uplo == MIXK_UPPER ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER,
        trans == MIXK_TRANS ? CUBLAS_OP_T : CUBLAS_OP_N,
        diag == MIXK_UNIT ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, m, n, &one, a, lda, b, ldb));
}

/* Leading dimensions of the copies of the stored ra_rows x ra_cols A and rb_rows x rb_cols B:
 * the Tensor-Core-friendly multiple `pref` when both fit `avail` elements that way, else a
 * multiple of 8 (16-byte columns), else unpadded. */
static void copy_lds(int ra_rows, int ra_cols, int rb_rows, int rb_cols, size_t avail, int pref,
                     int *lda, int *ldb)
{
    const int tries[3] = {pref, 8, 1};
    for (int t = 0; t < 3; t++) {
        size_t q = (size_t)tries[t];
        size_t la = ((size_t)ra_rows + q - 1) / q * q, lb = ((size_t)rb_rows + q - 1) / q * q;
        if (la * ra_cols + lb * rb_cols <= avail || q == 1) {
            *lda = (int)la;
            *ldb = (int)lb;
            return;
        }
    }
}

/* The Tensor Core GEMM and SYRK (LU's and Cholesky's trailing updates) share their set-up:
 * a device counter of values that overflowed the rounding, the cuBLAS input type of the
 * rounded copies, and FP32 accumulation (TF32 inputs where the compute precision is TF32). */
static int overflow_counter(void *state, const size_t *overflow, unsigned **cnt)
{
    *cnt = overflow ? (unsigned *)((mixi_cuda_state *)state)->d_flag : NULL;
    return *cnt ? zero_dev(state, *cnt, sizeof **cnt) : MIX_SUCCESS;
}

static int fetch_overflow(void *state, const unsigned *cnt, size_t *overflow)
{
    unsigned h = 0;
    int st = fetch(state, &h, cnt, sizeof h);
    if (!st) *overflow = h;
    return st;
}

static cudaDataType_t tc_input_type(mix_prec compute)
{
    return compute == MIX_FP16 ? CUDA_R_16F : compute == MIX_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

static cublasComputeType_t tc_compute_type(mix_prec compute)
{
    return compute == MIX_FP16 || compute == MIX_BF16 ? CUBLAS_COMPUTE_32F
                                                      : CUBLAS_COMPUTE_32F_FAST_TF32;
}

/* Enqueues gemm_f32; with a low `compute`, the inputs' overflow count is added to *cnt (device,
 * NULL: not counted).  Nothing comes back to the host. */
static int gemm_enqueue(void *state, mix_prec compute, int transa, int transb, int m, int n,
                        int k, float alpha, const float *a, int lda, const float *b, int ldb,
                        float beta, float *c, int ldc, void *work, unsigned *cnt)
{
    mixi_cuda_state *s = state;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    if (lda < 1) lda = 1;
    if (ldb < 1) ldb = 1;
    cublasOperation_t opa = transa ? CUBLAS_OP_T : CUBLAS_OP_N,
                      opb = transb ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (compute == MIX_FP32 || k == 0)
        return mixi_cublas_status(cublasSgemm(blas(state), opa, opb, m, n, k, &alpha, a, lda, b,
                                              ldb, &beta, c, ldc));
    /* Stored shapes; the copies keep them, the transposition is the GEMM's. */
    const int rows_a = transa ? k : m, cols_a = transa ? m : k;
    const int rows_b = transb ? n : k, cols_b = transb ? k : n;
    int half = compute == MIX_FP16 || compute == MIX_BF16;
    /* The workspace holds m*k + k*n floats: twice as many 16-bit values. */
    size_t avail = ((size_t)m * k + (size_t)k * n) * (half ? 2 : 1);
    int lra = rows_a, lrb = rows_b;
    copy_lds(rows_a, cols_a, rows_b, cols_b, avail, half ? 64 : 32, &lra, &lrb);
    size_t esize = half ? 2 : 4;
    void *ra = work, *rb = (char *)work + (size_t)lra * cols_a * esize;
    int st;
    if ((st = mixi_cuda_status(mixi_cuda_round_f32(s->stream, compute, rows_a, cols_a, a, lda, ra,
                                                   lra, cnt))))
        return st;
    if ((st = mixi_cuda_status(mixi_cuda_round_f32(s->stream, compute, rows_b, cols_b, b, ldb, rb,
                                                   lrb, cnt))))
        return st;
    cudaDataType_t in = tc_input_type(compute);
    cublasComputeType_t ct = tc_compute_type(compute);
    return mixi_cublas_status(cublasGemmEx(blas(state), opa, opb, m, n, k, &alpha, ra, in, lra,
                                           rb, in, lrb, &beta, c, CUDA_R_32F, ldc, ct,
                                           CUBLAS_GEMM_DEFAULT));
}

static int cuda_gemm_f32(void *state, mix_prec compute, int transa, int transb, int m, int n,
                         int k, float alpha, const float *a, int lda, const float *b, int ldb,
                         float beta, float *c, int ldc, void *work, size_t *overflow)
{
    if (overflow) *overflow = 0;
    if (m == 0 || n == 0) return MIX_SUCCESS;
    const int counted = overflow && compute != MIX_FP32 && k != 0;
    unsigned *cnt = NULL;
    int st = counted ? overflow_counter(state, overflow, &cnt) : MIX_SUCCESS;
    if (st || (st = gemm_enqueue(state, compute, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                 beta, c, ldc, work, cnt)))
        return st;
    return cnt ? fetch_overflow(state, cnt, overflow) : MIX_SUCCESS;
}

/* The same with the overflow count left on the device (the blocked LU reads it after its loop). */
static int cuda_gemm_f32_chk(void *state, mix_prec compute, int transa, int transb, int m, int n,
                             int k, float alpha, const float *a, int lda, const float *b, int ldb,
                             float beta, float *c, int ldc, void *work, int *chk)
{
    return gemm_enqueue(state, compute, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c,
                        ldc, work, (unsigned *)(chk + MIXI_LU_CHK_OVERFLOW));
}

static int cuda_getrs_f32_f64(void *state, int n, int nrhs, const float *lu, int ldlu,
                              const int *ipiv, const double *r, const double *c, double s,
                              const double *b, int ldb, double *x, int ldx, float *work)
{
    mixi_cuda_state *cs = state;
    if (n == 0 || nrhs == 0) return MIX_SUCCESS;
    int st = mixi_cuda_status(mixi_cuda_getrs_scale_in(cs->stream, n, nrhs, r, s, b, ldb, work));
    if (st) return st;
    /* P, L^{-1}, U^{-1} by cuSOLVER; its info only reports illegal arguments, so it goes to the
     * context's flag and is not read back (no synchronisation in the refinement loop). */
    st = mixi_cusolver_status(cusolverDnSgetrs(cs->cusolver, CUBLAS_OP_N, n, nrhs, lu, ldlu, ipiv,
                                               work, n, cs->d_flag));
    if (st) return st;
    return mixi_cuda_status(
        mixi_cuda_getrs_scale_out(cs->stream, n, nrhs, r, c, s, b, ldb, work, x, ldx));
}

static int cuda_gemm_f64(void *state, int transa, int transb, int m, int n, int k, double alpha,
                         const double *a, int lda, const double *b, int ldb, double beta,
                         double *c, int ldc)
{
    if (m == 0 || n == 0) return MIX_SUCCESS;
    return mixi_cublas_status(cublasDgemm(blas(state), transa ? CUBLAS_OP_T : CUBLAS_OP_N,
                                          transb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, &alpha, a,
                                          lda > 0 ? lda : 1, b, ldb > 0 ? ldb : 1, &beta, c, ldc));
}

static int cuda_resid_dd_f64(void *state, int sym, int uplo, int n, int k, const double *a,
                             int lda, const double *x, int ldx, const double *b, int ldb,
                             double *r, int ldr)
{
    return mixi_cuda_status(mixi_cuda_resid_dd_f64(STREAM(state), sym, uplo == MIXK_UPPER, n, k, a,
                                                   lda, x, ldx, b, ldb, r, ldr));
}

static int cuda_gemv_f64(void *state, int trans, int m, int n, double alpha, const double *a,
                         int lda, const double *x, double beta, double *y)
{
    int ylen = trans ? n : m, xlen = trans ? m : n;
    if (ylen == 0) return MIX_SUCCESS;
    if (xlen == 0) /* y := beta y, as the CPU backend (BLAS would return without touching y) */
        return mixi_cublas_status(cublasDscal(blas(state), ylen, &beta, y, 1));
    return mixi_cublas_status(cublasDgemv(blas(state), trans ? CUBLAS_OP_T : CUBLAS_OP_N, m, n,
                                          &alpha, a, lda, x, 1, &beta, y, 1));
}

static int cuda_axpy_f64(void *state, int n, double alpha, const double *x, double *y)
{
    if (n == 0) return MIX_SUCCESS;
    return mixi_cublas_status(cublasDaxpy(blas(state), n, &alpha, x, 1, y, 1));
}

static int cuda_scal_f64(void *state, int n, double alpha, double *x)
{
    if (n == 0) return MIX_SUCCESS;
    return mixi_cublas_status(cublasDscal(blas(state), n, &alpha, x, 1));
}

/* Host pointer mode: cuBLAS returns once the scalar is on the host (the one wait per use). */
static int cuda_dot_f64(void *state, int n, const double *x, const double *y, double *result)
{
    *result = 0.0;
    if (n == 0) return MIX_SUCCESS;
    return mixi_cublas_status(cublasDdot(blas(state), n, x, 1, y, 1, result));
}

static int cuda_nrm2_f64(void *state, int n, const double *x, double *result)
{
    *result = 0.0;
    if (n == 0) return MIX_SUCCESS;
    return mixi_cublas_status(cublasDnrm2(blas(state), n, x, 1, result));
}

/* getrf_f64's workspace: a 256-byte header holding cuSOLVER's devInfo, then its doubles. */
static int dgetrf_lwork(void *state, int n, double *a, int lda, int *lwork)
{
    double *any = a ? a : (double *)((mixi_cuda_state *)state)->d_flag;
    *lwork = 0;
    return mixi_cusolver_status(cusolverDnDgetrf_bufferSize(((mixi_cuda_state *)state)->cusolver,
                                                            n, n, any, lda, lwork));
}

static int cuda_getrf_f64_worksize(void *state, int n, size_t *bytes)
{
    *bytes = 0;
    if (n == 0) return MIX_SUCCESS;
    int lwork = 0, st = dgetrf_lwork(state, n, NULL, n, &lwork);
    if (st) return st;
    *bytes = PANEL_HDR + (size_t)lwork * sizeof(double);
    return MIX_SUCCESS;
}

/* The FP64 factorizations' (getrf, potrf) workspace is the PANEL_HDR header (cuSOLVER's devInfo)
 * then the bytes `worksize` gives for an n x n matrix with lda = n; a matrix whose own lda asks
 * cuSOLVER for more gets a scratch buffer instead, released by f64_factor_info. */
static int f64_factor_work(void *state, int (*worksize)(void *, int, size_t *), int n, int lwork,
                           void *work, double **d_work, double **extra)
{
    *extra = NULL;
    *d_work = (double *)((char *)work + PANEL_HDR);
    size_t given = 0;
    int st = worksize(state, n, &given);
    if (st || (size_t)lwork * sizeof(double) <= given - PANEL_HDR) return st;
    st = scratch(state, (void **)extra, (size_t)lwork * sizeof(double));
    if (!st) *d_work = *extra;
    return st;
}

/* After the factorization ran with status st: its devInfo into *info (negative: our bug). */
static int f64_factor_info(void *state, const void *work, int st, double *extra, int *info)
{
    int h = 0;
    if (!st && !(st = fetch(state, &h, work, sizeof h))) {
        if (h < 0) st = MIX_ERR_INTERNAL;
        else *info = h;
    }
    scratch_free(state, extra);
    return st;
}

static int cuda_getrf_f64(void *state, int n, double *a, int lda, int *ipiv, void *work, int *info)
{
    mixi_cuda_state *s = state;
    *info = 0;
    if (n == 0) return MIX_SUCCESS;
    double *d_work, *extra;
    int lwork = 0, st = dgetrf_lwork(state, n, a, lda, &lwork);
    if (!st) st = f64_factor_work(state, cuda_getrf_f64_worksize, n, lwork, work, &d_work, &extra);
    if (st) return st;
    st = mixi_cusolver_status(cusolverDnDgetrf(s->cusolver, n, n, a, lda, d_work, ipiv, work));
    return f64_factor_info(state, work, st, extra, info);
}

static int cuda_getrs_f64(void *state, int n, int nrhs, const double *a, int lda, const int *ipiv,
                          double *b, int ldb)
{
    mixi_cuda_state *s = state;
    if (n == 0 || nrhs == 0) return MIX_SUCCESS;
    return mixi_cusolver_status(cusolverDnDgetrs(s->cusolver, CUBLAS_OP_N, n, nrhs, a, lda, ipiv,
                                                 b, ldb, s->d_flag));
}

/* ---- Symmetric positive definite systems --------------------------------------------------- */

static cublasFillMode_t fill(int uplo)
{
    return uplo == MIXK_UPPER ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}

static int cuda_norm_inf_sym_f64(void *state, int uplo, int n, const double *a, int lda,
                                 double *norm)
{
    *norm = 0.0;
    if (n == 0) return MIX_SUCCESS;
    unsigned long long *d = NULL, h = 0;
    int st = counter_alloc(state, (size_t)n + 1, &d);
    if (st) return st;
    st = mixi_cuda_status(mixi_cuda_norm_inf_sym_f64(STREAM(state), uplo == MIXK_UPPER, n, a, lda,
                                                     (double *)(d + 1), d));
    if (!(st = counter_done(state, d, st, &h))) memcpy(norm, &h, sizeof *norm);
    return st;
}

static int cuda_symm_f64(void *state, int uplo, int n, int k, double alpha, const double *a,
                         int lda, const double *b, int ldb, double beta, double *c, int ldc)
{
    if (n == 0 || k == 0) return MIX_SUCCESS;
    if (k == 1)
        return mixi_cublas_status(cublasDsymv(blas(state), fill(uplo), n, &alpha, a, lda, b, 1,
                                              &beta, c, 1));
    return mixi_cublas_status(cublasDsymm(blas(state), CUBLAS_SIDE_LEFT, fill(uplo), n, k, &alpha,
                                          a, lda, b, ldb, &beta, c, ldc));
}

static int cuda_convert_sym_f64_to_f32(void *state, mix_prec target, int uplo, int n,
                                       const double *a, int lda, const double *d, double s,
                                       float *out, int ldo, size_t *overflow)
{
    if (overflow) *overflow = 0;
    if (n == 0) return MIX_SUCCESS;
    int up = uplo == MIXK_UPPER;
    unsigned long long *dc = NULL, h = 0;
    int st = overflow ? counter_alloc(state, 1, &dc) : MIX_SUCCESS;
    if (st) return st;
    st = mixi_cuda_status(mixi_cuda_convert_sym_f64_f32(STREAM(state), target, up, n, a, lda, d, s,
                                                        out, ldo, dc));
    if (!(st = counter_done(state, dc, st, &h)) && overflow) *overflow = (size_t)h;
    return st;
}

/* potrf_f32's workspace: the PANEL_HDR header (cuSOLVER's devInfo, our NaN/Inf count), then
 * cuSOLVER's floats. */
static int spotrf_lwork(void *state, int n, float *a, int lda, int *lwork)
{
    float *any = a ? a : (float *)((mixi_cuda_state *)state)->d_flag;
    *lwork = 0;
    return mixi_cusolver_status(cusolverDnSpotrf_bufferSize(((mixi_cuda_state *)state)->cusolver,
                                                            CUBLAS_FILL_MODE_LOWER, n, any, lda,
                                                            lwork));
}

static int cuda_potrf_f32_worksize(void *state, int n, size_t *bytes)
{
    *bytes = 0;
    if (n == 0) return MIX_SUCCESS;
    int lwork = 0, st = spotrf_lwork(state, n, NULL, n, &lwork);
    if (st) return st;
    *bytes = PANEL_HDR + (size_t)lwork * sizeof(float);
    return MIX_SUCCESS;
}

static int cuda_potrf_f32(void *state, int n, float *a, int lda, void *work, int *info)
{
    mixi_cuda_state *s = state;
    *info = 0;
    if (n == 0) return MIX_SUCCESS;
    int *d_hdr = work; /* [0] cuSOLVER info, [1] NaN/Inf count */
    float *d_work = (float *)((char *)work + PANEL_HDR), *extra = NULL;
    int lwork = 0, lwork_given = 0, st, h[2] = {0, 0};
    if ((st = spotrf_lwork(state, n, NULL, n, &lwork_given))) return st;
    if ((st = spotrf_lwork(state, n, a, lda, &lwork))) return st;
    if (lwork > lwork_given) {
        if ((st = scratch(state, (void **)&extra, (size_t)lwork * sizeof(float)))) return st;
        d_work = extra;
    }
    if ((st = zero_dev(state, d_hdr, 2 * sizeof(int)))) goto out;
    if ((st = mixi_cusolver_status(cusolverDnSpotrf(s->cusolver, CUBLAS_FILL_MODE_LOWER, n, a, lda,
                                                    d_work, lwork > lwork_given ? lwork
                                                                                : lwork_given,
                                                    d_hdr))))
        goto out;
    if ((st = mixi_cuda_status(mixi_cuda_count_nonfinite_lower_f32(s->stream, n, a, lda,
                                                                   (unsigned *)(d_hdr + 1)))))
        goto out;
    if ((st = fetch(state, h, d_hdr, sizeof h))) goto out;
    if (h[0] < 0) st = MIX_ERR_INTERNAL;
    else *info = h[0] > 0 ? h[0] : (h[1] ? -1 : 0);
out:
    scratch_free(state, extra);
    return st;
}

/* Stripes of the SYRK for 16-bit and TF32 inputs (cuBLAS has no mixed-precision real SYRK):
 * the inputs rounded once, then one GemmEx per stripe of C's columns; 4 stripes cost 1/8 more
 * than SYRK's flops, one GEMM over all of C would cost 2x. */
#define SYRK_STRIPES 4

static int cuda_syrk_f32(void *state, mix_prec compute, int n, int k, float alpha, const float *a,
                         int lda, float beta, float *c, int ldc, void *work, size_t *overflow)
{
    mixi_cuda_state *s = state;
    if (overflow) *overflow = 0;
    if (n == 0) return MIX_SUCCESS;
    if (compute == MIX_FP32 || k == 0)
        return mixi_cublas_status(cublasSsyrk(blas(state), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n,
                                              k, &alpha, a, lda > 0 ? lda : 1, &beta, c, ldc));
    int half = compute == MIX_FP16 || compute == MIX_BF16;
    size_t esize = half ? 2 : 4;
    /* Leading dimension of the copy: a multiple of 8 elements (16-byte columns) where the 2 n k
     * floats of workspace hold it, else n (TF32 with n < 4, FP16/BF16 with n = 1: 8 rows of
     * k would overrun the contract's 2 n k floats). */
    int ldr = (n + 7) / 8 * 8;
    if ((size_t)ldr * esize > 8 * (size_t)n) ldr = n;
    void *ra = work;
    unsigned *cnt = NULL;
    int st = overflow_counter(state, overflow, &cnt);
    if (st) return st;
    if ((st = mixi_cuda_status(
             mixi_cuda_round_f32(s->stream, compute, n, k, a, lda, ra, ldr, cnt))))
        return st;
    cudaDataType_t in = tc_input_type(compute);
    cublasComputeType_t ct = tc_compute_type(compute);
    int w = (n + SYRK_STRIPES - 1) / SYRK_STRIPES;
    w = (w + 63) / 64 * 64;
    for (int j0 = 0; j0 < n; j0 += w) {
        int jw = n - j0 < w ? n - j0 : w;
        const char *rj = (const char *)ra + (size_t)j0 * esize;
        if ((st = mixi_cublas_status(cublasGemmEx(blas(state), CUBLAS_OP_N, CUBLAS_OP_T, n - j0, jw,
                                                  k, &alpha, rj, in, ldr, rj, in, ldr, &beta,
                                                  c + (size_t)j0 * ldc + j0, CUDA_R_32F, ldc, ct,
                                                  CUBLAS_GEMM_DEFAULT))))
            return st;
    }
    return cnt ? fetch_overflow(state, cnt, overflow) : MIX_SUCCESS;
}

static int cuda_shift_diag_f32(void *state, int n, float *a, int lda, float shift)
{
    return mixi_cuda_status(mixi_cuda_shift_diag_f32(STREAM(state), n, a, lda, shift));
}

static int cuda_potrs_f32_f64(void *state, int n, int nrhs, const float *l, int ldl,
                              const double *d, double s, const double *b, int ldb, double *x,
                              int ldx, float *work)
{
    mixi_cuda_state *cs = state;
    if (n == 0 || nrhs == 0) return MIX_SUCCESS;
    int st = mixi_cuda_status(mixi_cuda_getrs_scale_in(cs->stream, n, nrhs, d, s, b, ldb, work));
    if (st) return st;
    /* As in getrs_f32_f64: cuSOLVER's info reports illegal arguments only, never read back. */
    st = mixi_cusolver_status(cusolverDnSpotrs(cs->cusolver, CUBLAS_FILL_MODE_LOWER, n, nrhs, l,
                                               ldl, work, n, cs->d_flag));
    if (st) return st;
    return mixi_cuda_status(
        mixi_cuda_getrs_scale_out(cs->stream, n, nrhs, d, d, s, b, ldb, work, x, ldx));
}

static int dpotrf_lwork(void *state, int uplo, int n, double *a, int lda, int *lwork)
{
    double *any = a ? a : (double *)((mixi_cuda_state *)state)->d_flag;
    *lwork = 0;
    return mixi_cusolver_status(cusolverDnDpotrf_bufferSize(((mixi_cuda_state *)state)->cusolver,
                                                            fill(uplo), n, any, lda, lwork));
}

static int cuda_potrf_f64_worksize(void *state, int n, size_t *bytes)
{
    *bytes = 0;
    if (n == 0) return MIX_SUCCESS;
    int lo = 0, up = 0, st;
    if ((st = dpotrf_lwork(state, MIXK_LOWER, n, NULL, n, &lo)) ||
        (st = dpotrf_lwork(state, MIXK_UPPER, n, NULL, n, &up)))
        return st;
    *bytes = PANEL_HDR + (size_t)(lo > up ? lo : up) * sizeof(double);
    return MIX_SUCCESS;
}

static int cuda_potrf_f64(void *state, int uplo, int n, double *a, int lda, void *work, int *info)
{
    mixi_cuda_state *s = state;
    *info = 0;
    if (n == 0) return MIX_SUCCESS;
    double *d_work, *extra;
    int lwork = 0, st = dpotrf_lwork(state, uplo, n, a, lda, &lwork);
    if (!st) st = f64_factor_work(state, cuda_potrf_f64_worksize, n, lwork, work, &d_work, &extra);
    if (st) return st;
    st = mixi_cusolver_status(
        cusolverDnDpotrf(s->cusolver, fill(uplo), n, a, lda, d_work, lwork, work));
    return f64_factor_info(state, work, st, extra, info);
}

static int cuda_potrs_f64(void *state, int uplo, int n, int nrhs, const double *a, int lda,
                          double *b, int ldb)
{
    mixi_cuda_state *s = state;
    if (n == 0 || nrhs == 0) return MIX_SUCCESS;
    return mixi_cusolver_status(cusolverDnDpotrs(s->cusolver, fill(uplo), n, nrhs, a, lda, b, ldb,
                                                 s->d_flag));
}

const mixi_dense_ops mixi_cuda_dense_ops = {
    .lacpy_f64 = cuda_lacpy_f64,
    .count_nonfinite_f64 = cuda_count_nonfinite_f64,
    .norm_inf_f64 = cuda_norm_inf_f64,
    .col_absmax_f64 = cuda_col_absmax_f64,
    .row_absmax_scaled_f64 = cuda_row_absmax_scaled_f64,
    .col_absmax_scaled_f64 = cuda_col_absmax_scaled_f64,
    .convert_f64_to_f32 = cuda_convert_f64_to_f32,
    .lu_block_size = cuda_lu_block_size,
    .getrf_panel_f32_worksize = cuda_getrf_panel_f32_worksize,
    .getrf_panel_f32 = cuda_getrf_panel_f32,
    .laswp_f32 = cuda_laswp_f32,
    .trsm_f32 = cuda_trsm_f32,
    .gemm_f32 = cuda_gemm_f32,
    .getrf_panel_f32_chk = cuda_getrf_panel_f32_chk,
    .gemm_f32_chk = cuda_gemm_f32_chk,
    .getrs_f32_f64 = cuda_getrs_f32_f64,
    .gemm_f64 = cuda_gemm_f64,
    .gemv_f64 = cuda_gemv_f64,
    .axpy_f64 = cuda_axpy_f64,
    .scal_f64 = cuda_scal_f64,
    .dot_f64 = cuda_dot_f64,
    .nrm2_f64 = cuda_nrm2_f64,
    .getrf_f64_worksize = cuda_getrf_f64_worksize,
    .getrf_f64 = cuda_getrf_f64,
    .getrs_f64 = cuda_getrs_f64,
    .norm_inf_sym_f64 = cuda_norm_inf_sym_f64,
    .symm_f64 = cuda_symm_f64,
    .convert_sym_f64_to_f32 = cuda_convert_sym_f64_to_f32,
    .potrf_f32_worksize = cuda_potrf_f32_worksize,
    .potrf_f32 = cuda_potrf_f32,
    .syrk_f32 = cuda_syrk_f32,
    .shift_diag_f32 = cuda_shift_diag_f32,
    .potrs_f32_f64 = cuda_potrs_f32_f64,
    .potrf_f64_worksize = cuda_potrf_f64_worksize,
    .potrf_f64 = cuda_potrf_f64,
    .potrs_f64 = cuda_potrs_f64,
    .resid_dd_f64 = cuda_resid_dd_f64,
};
