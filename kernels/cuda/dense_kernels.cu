// dense_kernels.cu: our CUDA kernels of the dense family (conversions, reductions, row swaps, scaling).
#include <stdint.h>
#include <math.h>
#include "kernels/common/formats.h"
#include "kernels/common/prec_traits.h"
#include "kernels/common/resid_dd.h"
#include "kernels/cuda/cuda_dense.h"

namespace {

const int THREADS = 256;
const int MAX_GRID_Y = 65535;

// Element (i, j) of a column-major matrix; size_t so n = 65536 squared does not overflow.
__device__ __forceinline__ size_t at(int i, int j, int ld)
{
    return (size_t)j * (size_t)ld + (size_t)i;
}

// The max that lets a NaN win, as the CPU backend's nanmax: a NaN anywhere shows in the result.
__device__ __forceinline__ double nanmax(double best, double v)
{
    return (v > best || v != v) ? v : best;
}

// Grid for the (row chunk, column) kernels below: x over rows, y over columns, both grid-strided.
dim3 grid_rc(int m, int n)
{
    int gx = (m + THREADS - 1) / THREADS;
    if (gx > 64) gx = 64;
    return dim3((unsigned)gx, (unsigned)(n < MAX_GRID_Y ? n : MAX_GRID_Y));
}

unsigned grid_1d(long long work, int cap)
{
    long long g = (work + THREADS - 1) / THREADS;
    return (unsigned)(g < 1 ? 1 : (g > cap ? cap : g));
}

// Warp-then-block sum of a per-thread count into one global atomic per block.
template <typename C>
__device__ void block_count(C mine, C *d_count)
{
    __shared__ unsigned long long part[THREADS / 32];
    for (int o = 16; o > 0; o >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = (unsigned long long)mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) t += part[w];
        if (t) atomicAdd(d_count, (C)t);
    }
}

// Block-wide nanmax; every thread gets the result.
__device__ double block_nanmax(double v)
{
    __shared__ double part[THREADS / 32];
    __shared__ double result;
    for (int o = 16; o > 0; o >>= 1) v = nanmax(v, __shfl_down_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        double b = 0.0;
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) b = nanmax(b, part[w]);
        result = b;
    }
    __syncthreads();
    double r = result;
    __syncthreads(); // `result` may be reused by the caller's next reduction
    return r;
}

// This thread's share of the NaN/Inf entries of the m x n a (a grid_rc grid).
template <typename T, typename C>
__device__ C nonfinite_share(int m, int n, const T *a, int lda)
{
    C c = 0;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x)
            c += !isfinite(a[at(i, j, lda)]);
    return c;
}

template <typename T, typename C>
__global__ void count_nonfinite_kernel(int m, int n, const T *a, int lda, C *d_count)
{
    block_count(nonfinite_share<T, C>(m, n, a, lda), d_count);
}

// Row-oriented reductions: a thread owns one row of a chunk of COLS columns (neighbouring
// threads read neighbouring rows: coalesced) and merges its partial result with an atomic, so a
// square matrix keeps the whole GPU busy instead of one thread per row walking all n columns.
const int COLS = 64;

dim3 grid_rows(int m, int n)
{
    int gy = (n + COLS - 1) / COLS;
    return dim3((unsigned)((m + THREADS - 1) / THREADS),
                (unsigned)(gy < MAX_GRID_Y ? gy : MAX_GRID_Y));
}

// Non-negative doubles order as their bit patterns; NaN is mapped to the positive quiet NaN,
// whose pattern beats +Inf, so atomicMax on the patterns is a max that lets a NaN win.
__device__ __forceinline__ unsigned long long nonneg_bits(double v)
{
    return v != v ? 0x7ff8000000000000ull : (unsigned long long)mixk_f64_bits(v);
}

__global__ void row_abssum_kernel(int m, int n, const double *a, int lda, double *rowsum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    for (int j0 = blockIdx.y * COLS; j0 < n; j0 += gridDim.y * COLS) {
        int je = j0 + COLS < n ? j0 + COLS : n;
        double sum = 0.0;
        for (int j = j0; j < je; j++) sum += fabs(a[at(i, j, lda)]);
        atomicAdd(rowsum + i, sum);
    }
}

__global__ void max_bits_kernel(int m, const double *v, unsigned long long *d_bits)
{
    double best = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x)
        best = nanmax(best, v[i]);
    for (int o = 16; o > 0; o >>= 1) best = nanmax(best, __shfl_down_sync(0xffffffffu, best, o));
    if ((threadIdx.x & 31) == 0) atomicMax(d_bits, nonneg_bits(best));
}

// rowmax must hold zeros; it is read and written as the bit patterns of non-negative doubles.
__global__ void row_absmax_kernel(int m, int n, const double *a, int lda, const double *c,
                                  double *rowmax)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    for (int j0 = blockIdx.y * COLS; j0 < n; j0 += gridDim.y * COLS) {
        int je = j0 + COLS < n ? j0 + COLS : n;
        double best = 0.0;
        for (int j = j0; j < je; j++) best = nanmax(best, fabs(a[at(i, j, lda)] * (c ? c[j] : 1.0)));
        atomicMax(reinterpret_cast<unsigned long long *>(rowmax) + i, nonneg_bits(best));
    }
}

// One block per column.
__global__ void col_absmax_kernel(int m, int n, const double *a, int lda, const double *r,
                                  double *colmax)
{
    for (int j = blockIdx.x; j < n; j += gridDim.x) {
        double best = 0.0;
        for (int i = threadIdx.x; i < m; i += blockDim.x)
            best = nanmax(best, fabs(r ? r[i] * a[at(i, j, lda)] : a[at(i, j, lda)]));
        best = block_nanmax(best);
        if (threadIdx.x == 0) colmax[j] = best;
    }
}

// Not finite once rounded (RNE) to `p`: the very rounding the CPU backend and its tests use.
__device__ __forceinline__ bool overflows(mix_prec p, float v)
{
    return !mixk_prec_fits(p, v);
}

__global__ void convert_kernel(mix_prec target, int m, int n, const double *a, int lda,
                               const double *r, const double *c, double s, float *out, int ldo,
                               unsigned long long *d_count)
{
    unsigned long long bad = 0;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        double cj = (c ? c[j] : 1.0) * s; // the CPU backend's order of the products
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
            float v = (float)((r ? r[i] : 1.0) * a[at(i, j, lda)] * cj);
            out[at(i, j, ldo)] = v;
            bad += overflows(target, v);
        }
    }
    if (d_count) block_count(bad, d_count);
}

template <mix_prec P>
__device__ __forceinline__ void round_store(void *out, size_t k, float x, unsigned &bad)
{
    if (P == MIX_FP16) static_cast<uint16_t *>(out)[k] = mixk_f32_to_f16(x);
    else if (P == MIX_BF16) static_cast<uint16_t *>(out)[k] = mixk_f32_to_bf16(x);
    else if (P == MIX_TF32) static_cast<float *>(out)[k] = mixk_round_tf32(x);
    else static_cast<float *>(out)[k] = x;
    bad += isfinite(x) && mixk_prec_overflows(P, x);
}

template <mix_prec P>
__global__ void round_kernel(int m, int n, const float *a, int lda, void *out, int ldo,
                             unsigned *d_count)
{
    unsigned bad = 0;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x)
            round_store<P>(out, at(i, j, ldo), a[at(i, j, lda)], bad);
    if (d_count) block_count(bad, d_count);
}

// Row interchanges: one thread per column applies the swaps k1..k2 in order (they do not
// commute); the pivots go through shared memory in chunks.
template <typename T>
__global__ void laswp_kernel(int n, T *a, int lda, int k1, int k2, const int *ipiv)
{
    __shared__ int piv[THREADS];
    for (int j0 = blockIdx.x * blockDim.x; j0 < n; j0 += gridDim.x * blockDim.x) {
        int j = j0 + threadIdx.x;
        T *col = j < n ? a + (size_t)j * (size_t)lda : NULL;
        for (int c0 = k1; c0 <= k2; c0 += THREADS) {
            int cnt = k2 - c0 + 1 < THREADS ? k2 - c0 + 1 : THREADS;
            __syncthreads();
            if ((int)threadIdx.x < cnt) piv[threadIdx.x] = ipiv[c0 - 1 + threadIdx.x];
            __syncthreads();
            if (col)
                for (int t = 0; t < cnt; t++) {
                    int i = c0 + t - 1, p = piv[t] - 1;
                    if (p != i) {
                        T x = col[i];
                        col[i] = col[p];
                        col[p] = x;
                    }
                }
        }
    }
}

// Block (0, 0) also makes *d_info LAPACK's INFO, the first k with U(k,k) == 0, from the
// diagonal: cuSOLVER documents its devInfo only as "U(i,i) = 0", and after a zero pivot it
// divides by it, so what it reports of the NaN-filled rest is not ours to rely on.
__global__ void panel_post_kernel(int m, int n, const float *a, int lda, int *ipiv, int offset,
                                  int *d_info, unsigned *d_count)
{
    if (blockIdx.y == 0 && blockIdx.x == 0) { // uniform in the block: the barriers are safe
        __shared__ int first;
        if (threadIdx.x == 0) first = n + 1;
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            ipiv[i] += offset;
            if (a[at(i, i, lda)] == 0.0f) atomicMin(&first, i + 1);
        }
        __syncthreads();
        const int own = *d_info; // negative: an illegal argument, kept
        if (threadIdx.x == 0 && own >= 0 && first <= n && (own == 0 || first < own))
            *d_info = first;
    }
    block_count(nonfinite_share<float, unsigned>(m, n, a, lda), d_count);
}

// The power of two 2^e with max |s r_i b_ij| = f 2^e, f in [0.5, 1) (e = 0 for 0, Inf, NaN).
__device__ int column_exponent(int n, const double *r, double s, const double *bj)
{
    double mx = 0.0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        mx = nanmax(mx, fabs(s * (r ? r[i] : 1.0) * bj[i]));
    mx = block_nanmax(mx);
    int e = 0;
    if (mx > 0.0 && isfinite(mx)) frexp(mx, &e);
    return e;
}

__global__ void getrs_in_kernel(int n, int nrhs, const double *r, double s, const double *b,
                                int ldb, float *w)
{
    for (int j = blockIdx.x; j < nrhs; j += gridDim.x) {
        const double *bj = b + (size_t)j * (size_t)ldb;
        double f = ldexp(1.0, -column_exponent(n, r, s, bj));
        float *wj = w + (size_t)j * (size_t)n;
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            wj[i] = (float)(f * s * (r ? r[i] : 1.0) * bj[i]);
    }
}

// x may be b: each block reads its whole column (the exponent) before it writes it.
__global__ void getrs_out_kernel(int n, int nrhs, const double *r, const double *c, double s,
                                 const double *b, int ldb, const float *w, double *x, int ldx)
{
    for (int j = blockIdx.x; j < nrhs; j += gridDim.x) {
        double scale = ldexp(1.0, column_exponent(n, r, s, b + (size_t)j * (size_t)ldb));
        const float *wj = w + (size_t)j * (size_t)n;
        double *xj = x + (size_t)j * (size_t)ldx;
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            xj[i] = (c ? c[i] : 1.0) * ((double)wj[i] * scale);
    }
}


// ---- Symmetric positive definite systems: the stored triangle only (uplo 0 lower, 1 upper) ----

// Row i of the symmetric A: the stored entries of row i (j <= i lower, j >= i upper) by the row
// kernel, those of column i on the other side of the diagonal by the column kernel.
__global__ void sym_rowpart_kernel(int uplo, int n, const double *a, int lda, double *rowsum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int j0 = blockIdx.y * COLS; j0 < n; j0 += gridDim.y * COLS) {
        int jb = j0, je = j0 + COLS < n ? j0 + COLS : n;
        if (uplo == 0 && je > i + 1) je = i + 1;
        if (uplo != 0 && jb < i) jb = i;
        double sum = 0.0;
        for (int j = jb; j < je; j++) sum += fabs(a[at(i, j, lda)]);
        if (jb < je) atomicAdd(rowsum + i, sum);
    }
}

// One block per column j: the stored entries strictly below (lower) or above (upper) a_jj.
__global__ void sym_colpart_kernel(int uplo, int n, const double *a, int lda, double *rowsum)
{
    __shared__ double part[THREADS / 32];
    for (int j = blockIdx.x; j < n; j += gridDim.x) {
        int ib = uplo == 0 ? j + 1 : 0, ie = uplo == 0 ? n : j;
        double sum = 0.0;
        for (int i = ib + threadIdx.x; i < ie; i += blockDim.x) sum += fabs(a[at(i, j, lda)]);
        for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
        if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = sum;
        __syncthreads();
        if (threadIdx.x == 0) {
            double t = 0.0;
            for (int w = 0; w < (int)(blockDim.x >> 5); w++) t += part[w];
            atomicAdd(rowsum + j, t);
        }
        __syncthreads();
    }
}

// Lower triangle of out from the stored triangle of a, in the CPU backend's product order.
__global__ void convert_sym_kernel(mix_prec target, int uplo, int n, const double *a, int lda,
                                   const double *d, double s, float *out, int ldo,
                                   unsigned long long *d_count)
{
    unsigned long long bad = 0;
    for (int j = blockIdx.y; j < n; j += gridDim.y) {
        double dj = (d ? d[j] : 1.0) * s;
        for (int i = j + blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += gridDim.x * blockDim.x) {
            double aij = uplo == 0 ? a[at(i, j, lda)] : a[at(j, i, lda)];
            float v = (float)((d ? d[i] : 1.0) * aij * dj);
            out[at(i, j, ldo)] = v;
            bad += overflows(target, v);
        }
    }
    if (d_count) block_count(bad, d_count);
}

__global__ void shift_diag_kernel(int n, float *a, int lda, float shift)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[at(i, i, lda)] += shift;
}

__global__ void count_nonfinite_lower_kernel(int n, const float *a, int lda, unsigned *d_count)
{
    unsigned bad = 0;
    for (int j = blockIdx.y; j < n; j += gridDim.y)
        for (int i = j + blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += gridDim.x * blockDim.x)
            bad += !isfinite(a[at(i, j, lda)]);
    block_count(bad, d_count);
}

// The accurate residual, one thread per row and column (blockIdx.y): kernels/common/resid_dd.h's
// row body, whose column loop reads A coalesced across the threads of a warp.
__global__ void resid_dd_kernel(int sym, int upper, int n, int k, const double *a, int lda,
                                const double *x, int ldx, const double *b, int ldb, double *r,
                                int ldr)
{
    for (int j = blockIdx.y; j < k; j += gridDim.y)
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
            double s = b[at(i, j, ldb)], c = 0.0;
            mixk_resid_dd_rows(sym, upper, i, i + 1, n, a, lda, x + at(0, j, ldx), &s, &c);
            r[at(i, j, ldr)] = mixk_dd_round(s, c);
        }
}

} // namespace

extern "C" {

cudaError_t mixi_cuda_resid_dd_f64(cudaStream_t stream, int sym, int upper, int n, int k,
                                   const double *a, int lda, const double *x, int ldx,
                                   const double *b, int ldb, double *r, int ldr)
{
    if (n <= 0 || k <= 0) return cudaSuccess;
    const int gx = (n + THREADS - 1) / THREADS;
    resid_dd_kernel<<<dim3((unsigned)gx, (unsigned)(k < MAX_GRID_Y ? k : MAX_GRID_Y)), THREADS, 0,
                      stream>>>(sym, upper, n, k, a, lda, x, ldx, b, ldb, r, ldr);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_count_nonfinite_f64(cudaStream_t stream, int m, int n, const double *a,
                                          int lda, unsigned long long *d_count)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    count_nonfinite_kernel<<<grid_rc(m, n), THREADS, 0, stream>>>(m, n, a, lda, d_count);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_norm_inf_f64(cudaStream_t stream, int m, int n, const double *a, int lda,
                                   double *rowsum, unsigned long long *d_bits)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    cudaError_t e = cudaMemsetAsync(rowsum, 0, (size_t)m * sizeof *rowsum, stream);
    if (e != cudaSuccess) return e;
    row_abssum_kernel<<<grid_rows(m, n), THREADS, 0, stream>>>(m, n, a, lda, rowsum);
    max_bits_kernel<<<grid_1d(m, 1024), THREADS, 0, stream>>>(m, rowsum, d_bits);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_row_absmax_f64(cudaStream_t stream, int m, int n, const double *a, int lda,
                                     const double *c, double *rowmax)
{
    if (m <= 0) return cudaSuccess;
    cudaError_t e = cudaMemsetAsync(rowmax, 0, (size_t)m * sizeof *rowmax, stream);
    if (e != cudaSuccess || n <= 0) return e;
    row_absmax_kernel<<<grid_rows(m, n), THREADS, 0, stream>>>(m, n, a, lda, c, rowmax);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_col_absmax_f64(cudaStream_t stream, int m, int n, const double *a, int lda,
                                     const double *r, double *colmax)
{
    if (n <= 0) return cudaSuccess;
    col_absmax_kernel<<<(unsigned)(n < MAX_GRID_Y ? n : MAX_GRID_Y), THREADS, 0, stream>>>(
        m, n, a, lda, r, colmax);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_convert_f64_f32(cudaStream_t stream, mix_prec target, int m, int n,
                                      const double *a, int lda, const double *r, const double *c,
                                      double s, float *out, int ldo, unsigned long long *d_count)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    convert_kernel<<<grid_rc(m, n), THREADS, 0, stream>>>(target, m, n, a, lda, r, c, s, out, ldo,
                                                          d_count);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_round_f32(cudaStream_t stream, mix_prec compute, int m, int n,
                                const float *a, int lda, void *out, int ldo, unsigned int *d_count)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    dim3 g = grid_rc(m, n);
    switch (compute) {
    case MIX_FP16: round_kernel<MIX_FP16><<<g, THREADS, 0, stream>>>(m, n, a, lda, out, ldo, d_count); break;
    case MIX_BF16: round_kernel<MIX_BF16><<<g, THREADS, 0, stream>>>(m, n, a, lda, out, ldo, d_count); break;
    case MIX_TF32: round_kernel<MIX_TF32><<<g, THREADS, 0, stream>>>(m, n, a, lda, out, ldo, d_count); break;
    default: round_kernel<MIX_FP32><<<g, THREADS, 0, stream>>>(m, n, a, lda, out, ldo, d_count); break;
    }
    return cudaGetLastError();
}

cudaError_t mixi_cuda_laswp_f32(cudaStream_t stream, int n, float *a, int lda, int k1, int k2,
                                const int *ipiv)
{
    if (n <= 0 || k2 < k1) return cudaSuccess;
    laswp_kernel<float><<<grid_1d(n, 65535), THREADS, 0, stream>>>(n, a, lda, k1, k2, ipiv);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_count_nonfinite_f32(cudaStream_t stream, int m, int n, const float *a,
                                          int lda, unsigned int *d_count)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    count_nonfinite_kernel<<<grid_rc(m, n), THREADS, 0, stream>>>(m, n, a, lda, d_count);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_panel_post(cudaStream_t stream, int m, int n, const float *a, int lda,
                                 int *ipiv, int offset, int *d_info, unsigned int *d_count)
{
    if (m <= 0 || n <= 0) return cudaSuccess;
    panel_post_kernel<<<grid_rc(m, n), THREADS, 0, stream>>>(m, n, a, lda, ipiv, offset, d_info,
                                                             d_count);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_getrs_scale_in(cudaStream_t stream, int n, int nrhs, const double *r,
                                     double s, const double *b, int ldb, float *w)
{
    if (n <= 0 || nrhs <= 0) return cudaSuccess;
    getrs_in_kernel<<<(unsigned)(nrhs < MAX_GRID_Y ? nrhs : MAX_GRID_Y), THREADS, 0, stream>>>(
        n, nrhs, r, s, b, ldb, w);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_getrs_scale_out(cudaStream_t stream, int n, int nrhs, const double *r,
                                      const double *c, double s, const double *b, int ldb,
                                      const float *w, double *x, int ldx)
{
    if (n <= 0 || nrhs <= 0) return cudaSuccess;
    getrs_out_kernel<<<(unsigned)(nrhs < MAX_GRID_Y ? nrhs : MAX_GRID_Y), THREADS, 0, stream>>>(
        n, nrhs, r, c, s, b, ldb, w, x, ldx);
    return cudaGetLastError();
}


cudaError_t mixi_cuda_norm_inf_sym_f64(cudaStream_t stream, int uplo, int n, const double *a,
                                       int lda, double *rowsum, unsigned long long *d_bits)
{
    if (n <= 0) return cudaSuccess;
    cudaError_t e = cudaMemsetAsync(rowsum, 0, (size_t)n * sizeof *rowsum, stream);
    if (e != cudaSuccess) return e;
    sym_rowpart_kernel<<<grid_rows(n, n), THREADS, 0, stream>>>(uplo, n, a, lda, rowsum);
    sym_colpart_kernel<<<grid_1d((long long)n * THREADS, 4096), THREADS, 0, stream>>>(
        uplo, n, a, lda, rowsum);
    max_bits_kernel<<<grid_1d(n, 1024), THREADS, 0, stream>>>(n, rowsum, d_bits);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_convert_sym_f64_f32(cudaStream_t stream, mix_prec target, int uplo, int n,
                                          const double *a, int lda, const double *d, double s,
                                          float *out, int ldo, unsigned long long *d_count)
{
    if (n <= 0) return cudaSuccess;
    convert_sym_kernel<<<grid_rc(n, n), THREADS, 0, stream>>>(target, uplo, n, a, lda, d, s, out,
                                                              ldo, d_count);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_shift_diag_f32(cudaStream_t stream, int n, float *a, int lda, float shift)
{
    if (n <= 0) return cudaSuccess;
    shift_diag_kernel<<<grid_1d(n, 256), THREADS, 0, stream>>>(n, a, lda, shift);
    return cudaGetLastError();
}

cudaError_t mixi_cuda_count_nonfinite_lower_f32(cudaStream_t stream, int n, const float *a,
                                                int lda, unsigned *d_count)
{
    if (n <= 0) return cudaSuccess;
    count_nonfinite_lower_kernel<<<grid_rc(n, n), THREADS, 0, stream>>>(n, a, lda, d_count);
    return cudaGetLastError();
}

} // extern "C"
