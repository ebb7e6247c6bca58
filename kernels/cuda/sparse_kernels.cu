// sparse_kernels.cu: CUDA kernels of the sparse family (CSR SpMV per storage format, sloppy-vector blas1, FP64 reductions).
//
// Element formats, the matrix layout (SELL-32 for every format but FP64), the per-row SpMV bodies
// and the FIXED16 encoding come from kernels/common (sell.h, spmv_row.h, formats.h), the code the
// CPU backend runs.  This file is compiled with
// -fmad=false (kernels/cuda/local.mk) so that a*b+c rounds twice as in the host C code: the
// thread-per-row SpMV and every element-wise operation then agree with the CPU bit for bit;
// only the order of the FP64 reductions (and of a row sum split over several lanes) differs.
#include <stdint.h>
#include <type_traits>
#include "kernels/common/formats.h"
#include "kernels/common/prec_traits.h"
#include "kernels/common/spmv_row.h"
#include "kernels/common/spmv_t.h"
#include "kernels/common/tent.h"
#include "kernels/cuda/cuda_sparse.h"

namespace {

const int THREADS = 256;
const int WARPS = THREADS / 32;
const unsigned FULL = 0xffffffffu;
const int BLK = MIXK_SVEC_BLOCK; // one warp per FIXED16 block: the block norm is a warp max

static_assert(MIXK_SVEC_BLOCK == 32, "one warp per sloppy-vector block");

// Blocks for `warps` warps of work, capped so that partial sums fit the workspace; depends on n
// only, which keeps the reductions reproducible.
unsigned grid_warps(long long warps)
{
    long long g = (warps + WARPS - 1) / WARPS;
    return (unsigned)(g < 1 ? 1 : (g > MIXI_CUDA_RED_BLOCKS ? MIXI_CUDA_RED_BLOCKS : g));
}

// ---- deterministic FP64 reduction -------------------------------------------------------------

template <int NS>
__device__ void block_sum(double (&v)[NS], double (*part)[WARPS])
{
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    for (int s = 0; s < NS; s++) {
        for (int o = 16; o > 0; o >>= 1) v[s] += __shfl_down_sync(FULL, v[s], o);
        if (lane == 0) part[s][w] = v[s];
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int s = 0; s < NS; s++) {
            double t = 0.0;
            for (int k = 0; k < WARPS; k++) t += part[s][k];
            v[s] = t;
        }
}

// Every thread of every block calls this once with its partial sums.  Block partials go to ws;
// the last block (by atomic ticket) sums them in block order and writes the results.
template <int NS>
__device__ void grid_sum(double (&v)[NS], double *ws)
{
    __shared__ double part[NS][WARPS];
    __shared__ int last;
    block_sum<NS>(v, part);
    unsigned *ticket = (unsigned *)(ws + MIXI_CUDA_RED_WS - 1);
    if (threadIdx.x == 0) {
        for (int s = 0; s < NS; s++) ws[s * MIXI_CUDA_RED_BLOCKS + blockIdx.x] = v[s];
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double t[NS];
    for (int s = 0; s < NS; s++) {
        t[s] = 0.0;
        for (unsigned b = threadIdx.x; b < gridDim.x; b += THREADS)
            t[s] += *(volatile double *)(ws + s * MIXI_CUDA_RED_BLOCKS + b);
    }
    __syncthreads(); // part is reused
    block_sum<NS>(t, part);
    if (threadIdx.x == 0) {
        for (int s = 0; s < NS; s++) ws[MIXI_CUDA_RED_RESULT + s] = t[s];
        *ticket = 0u;
    }
}

// ---- storage formats ----------------------------------------------------------------------------

// Per storage precision (kernels/common/prec_traits.h): arithmetic type, element load, matrix
// value load and the SELL row pieces (kernels/common/spmv_row.h); element formats also store.
template <mix_prec P> struct fmt;
#define FMT(PP, SFX, ...)                                                                         \
    template <> struct fmt<PP> {                                                                  \
        typedef decltype(mixk_svec_ld_##SFX(nullptr, nullptr, 0)) T;                              \
        static __device__ T ld(const void *v, const float *nm, int64_t i)                         \
        { return mixk_svec_ld_##SFX(v, nm, i); }                                                  \
        static __device__ double part(const mixk_sell &A, const void *x, const float *xn,        \
                                      int64_t i)                                                  \
        { return mixk_sell_partc_##SFX(&A, x, xn, i); } /* contiguous slots: one offset */     \
        static __device__ T finish(const mixk_sell &A, const void *x, const float *xn, int64_t i, \
                                   double s)                                                      \
        { return mixk_sell_finish_##SFX(&A, i, s, mixk_svec_ld_##SFX(x, xn, i)); }                \
        static __device__ T rowf(const mixk_sell &A, const float *x, int64_t i)                   \
        { return mixk_sell_rowfc_##SFX(&A, x, i); }                                               \
        static __device__ int fill_row(const mixk_sell &A, const int64_t *rp, const int32_t *ci,  \
                                       const double *a, const double *scale, int64_t i,           \
                                       const mixk_sell_out &o)                                    \
        { return mixk_sell_fill_row_##SFX(&A, rp, ci, a, scale, i, &o); }                         \
    };
MIXK_STORAGE_FORMATS(FMT)
#undef FMT

// Row i's sum over its entries sl, sl + L, ... in FP64 (a lane of a sub-warp; sl = 0, L = 1: the
// whole row, the shared row body) and its finish (the diagonal; FIXED16 also the row's step),
// rounded once.  SELL-32
// for every storage format but FP64, which is plain CSR (kernels/backend_sparse.h).  A SELL slice
// is a warp, one thread per row (coalesced slots): its rows are not split (launch_spmv), and a
// split call leaves the whole row to lane 0 of the sub-warp.
template <mix_prec P> struct rows {
    typedef typename fmt<P>::T T;
    static __device__ double part(const mixi_cuda_csr &A, const void *x, const float *xn,
                                  int64_t i, int sl, int)
    { return sl == 0 ? fmt<P>::part(A.sell, x, xn, i) : 0.0; }
    static __device__ T finish(const mixi_cuda_csr &A, const void *x, const float *xn, int64_t i,
                               double s)
    { return fmt<P>::finish(A.sell, x, xn, i, s); }
};
template <> struct rows<MIX_FP64> {
    static __device__ double part(const mixi_cuda_csr &A, const void *x, const float *, int64_t i,
                                  int sl, int L)
    {
        const double *a = (const double *)A.val, *xd = (const double *)x;
        double s = 0.0;
        for (int64_t k = A.rowptr[i] + sl; k < A.rowptr[i + 1]; k += L) s += a[k] * xd[A.colind[k]];
        return s;
    }
    static __device__ double finish(const mixi_cuda_csr &, const void *, const float *, int64_t,
                                    double s)
    { return s; }
};
template <mix_prec P> struct elem;
#define ELEM(PP, SFX, ...)                                                                        \
    template <> struct elem<PP> {                                                                 \
        static __device__ void st(void *v, int64_t i, typename fmt<PP>::T x)                      \
        { mixk_svec_st_##SFX(v, i, x); }                                                          \
        static __device__ void st64(void *v, int64_t i, double x) { mixk_svec_st64_##SFX(v, i, x); } \
        static __device__ typename fmt<PP>::T round(typename fmt<PP>::T x)                        \
        { return mixk_svec_round_##SFX(x); }                                                      \
    };
MIXK_ELEMENT_FORMATS(ELEM)
#undef ELEM

// (A x)_i of the row row0 + lane, for the 32 rows of one block handled by one warp.  L = 1: each
// lane runs the shared row body; L > 1: sub-warps of L lanes take 32/L rows per pass, their
// partial sums are combined by shuffles and handed to the lane owning the row.
template <mix_prec P, int L>
__device__ typename fmt<P>::T warp_rows(const mixi_cuda_csr &A, const void *x, const float *xn,
                                        int64_t row0, int lane)
{
    typedef typename fmt<P>::T T;
    if (L == 1)
        return row0 + lane < A.n
                   ? rows<P>::finish(A, x, xn, row0 + lane, rows<P>::part(A, x, xn, row0 + lane, 0, 1))
                   : T(0);
    double mine = 0;
    const int R = 32 / L, sub = lane / L, sl = lane % L;
    for (int pass = 0; pass < L; pass++) {
        const int64_t i = row0 + pass * R + sub;
        double part = i < A.n ? rows<P>::part(A, x, xn, i, sl, L) : 0.0;
        for (int o = L / 2; o > 0; o >>= 1) part += __shfl_xor_sync(FULL, part, o, L);
        const int owner = lane - pass * R; // this lane's row is sub-warp `owner` in this pass
        double got = __shfl_sync(FULL, part, (owner >= 0 && owner < R ? owner : 0) * L);
        if (owner >= 0 && owner < R) mine = got;
    }
    return row0 + lane < A.n ? rows<P>::finish(A, x, xn, row0 + lane, mine) : T(0);
}

// Stores lane's value into element blk*32 + lane (if valid) and returns the stored value as read
// back.  FIXED16: the warp is the block; norm = max |x| as mixk_fixed16_block_scale_f32 (a NaN
// gives the quiet NaN norm), q as mixk_svec_st_block_fixed16 encodes it.
template <mix_prec P>
__device__ typename fmt<P>::T st_warp(mixi_cuda_vec v, int64_t blk, int lane, bool valid,
                                      typename fmt<P>::T x)
{
    if (valid) elem<P>::st(v.val, blk * BLK + lane, x);
    return elem<P>::round(x);
}
// Largest |x| bit pattern of the warp: for non-negative floats the patterns order as the
// values, and a NaN's pattern exceeds Inf's.
__device__ unsigned warp_max_u32(unsigned u)
{
    for (int o = 16; o > 0; o >>= 1) {
        unsigned t = __shfl_xor_sync(FULL, u, o);
        u = t > u ? t : u;
    }
    return u;
}
__device__ unsigned long long warp_max_u64(unsigned long long u)
{
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long t = __shfl_xor_sync(FULL, u, o);
        u = t > u ? t : u;
    }
    return u;
}
template <>
__device__ float st_warp<MIX_FIXED16>(mixi_cuda_vec v, int64_t blk, int lane, bool valid, float x)
{
    const float m = mixk_bits_f32(warp_max_u32(valid ? mixk_f32_bits(x) & 0x7fffffffu : 0u));
    const float s = mixk_fixed16_block_scale_f32(&m, 1);
    const int16_t q = mixk_fixed16_encode(x, mixk_fixed16_inv_step(s));
    if (valid) ((int16_t *)v.val)[blk * BLK + lane] = q;
    if (lane == 0) v.norm[blk] = s;
    return mixk_fixed16_decode(q, mixk_fixed16_step(s));
}

// The same from an FP64 value: one rounding (mixk_f64_to_*, mixk_svec_st_block_fixed16_f64).
template <mix_prec P>
__device__ void st_warp_f64(mixi_cuda_vec v, int64_t blk, int lane, bool valid, double x)
{
    if (valid) elem<P>::st64(v.val, blk * BLK + lane, x);
}
template <>
__device__ void st_warp_f64<MIX_FIXED16>(mixi_cuda_vec v, int64_t blk, int lane, bool valid,
                                         double x)
{
    const double m =
        mixk_bits_f64(warp_max_u64(valid ? mixk_f64_bits(x) & 0x7fffffffffffffffull : 0ull));
    const float s = mixk_fixed16_block_scale_f64(&m, 1);
    const int16_t q = mixk_fixed16_encode_f64(x, mixk_fixed16_inv_step_f64((double)s));
    if (valid) ((int16_t *)v.val)[blk * BLK + lane] = q;
    if (lane == 0) v.norm[blk] = s;
}

// FP32 arithmetic rounded per operation (no FMA, as the host code); FP64 for FP64 storage.
__device__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ double sub(double a, double b) { return __dsub_rn(a, b); }

// alpha * scale_i * x_i as (alpha * scale_i) * x_i.
__device__ double scaled(double alpha, const double *scale, int64_t i, double x)
{
    return mul(scale ? mul(alpha, scale[i]) : alpha, x);
}

#define FOR_BLOCKS(n)                                                                         \
    const int lane = threadIdx.x & 31;                                                        \
    const int64_t nblk = ((int64_t)(n) + BLK - 1) / BLK;                                      \
    const int64_t nwarps = (int64_t)gridDim.x * WARPS;                                        \
    for (int64_t blk = (int64_t)blockIdx.x * WARPS + (threadIdx.x >> 5); blk < nblk; blk += nwarps)

// ---- kernels ------------------------------------------------------------------------------------

template <mix_prec P, int L>
__global__ void __launch_bounds__(THREADS) k_spmv(mixi_cuda_csr A, mixi_cuda_vec x, mixi_cuda_vec y,
                                                  double *ws)
{
    typedef typename fmt<P>::T T;
    double xy[1] = {0.0};
    FOR_BLOCKS(A.n) {
        const int64_t i = blk * BLK + lane;
        const bool valid = i < A.n;
        const T s = warp_rows<P, L>(A, x.val, x.norm, blk * BLK, lane);
        if (valid && ws) xy[0] += (double)fmt<P>::ld(x.val, x.norm, i) * (double)s;
        st_warp<P>(y, blk, lane, valid, s);
    }
    if (ws) grid_sum<1>(xy, ws);
}

template <int L>
__global__ void __launch_bounds__(THREADS) k_residual64(mixi_cuda_csr A, const double *b,
                                                        const double *x, double *r, double *ws)
{
    double rr[1] = {0.0};
    FOR_BLOCKS(A.n) {
        const int64_t i = blk * BLK + lane;
        const double s = warp_rows<MIX_FP64, L>(A, x, NULL, blk * BLK, lane);
        if (i < A.n) {
            const double ri = b ? sub(b[i], s) : s;
            r[i] = ri;
            rr[0] += ri * ri;
        }
    }
    if (ws) grid_sum<1>(rr, ws);
}

__global__ void __launch_bounds__(THREADS) k_nrm2sq64(int n, const double *x, double *ws)
{
    double xx[1] = {0.0};
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (int64_t)gridDim.x * THREADS)
        xx[0] += x[i] * x[i];
    grid_sum<1>(xx, ws);
}

template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_vec_from64(int n, const double *x, const double *scale,
                                                        double alpha, mixi_cuda_vec v, double *ws)
{
    double vv[1] = {0.0};
    FOR_BLOCKS(n) {
        const int64_t i = blk * BLK + lane;
        const bool valid = i < n;
        const double t = valid ? scaled(alpha, scale, i, x[i]) : 0.0;
        vv[0] += t * t;
        st_warp_f64<P>(v, blk, lane, valid, t);
    }
    if (ws) grid_sum<1>(vv, ws);
}

template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_vec_accum64(int n, mixi_cuda_vec v, const double *scale,
                                                         double alpha, double *y)
{
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (int64_t)gridDim.x * THREADS)
        y[i] = add(y[i], scaled(alpha, scale, i, (double)fmt<P>::ld(v.val, v.norm, i)));
}

// x32: x is an FP32 vector (16-bit P only: kernels/backend_sparse.h), the same for the whole
// grid, so the warp-wide FIXED16 store below is reached by every lane or by none.
template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_cg_update(int n, double alpha, mixi_cuda_vec p,
                                                       mixi_cuda_vec ap, mixi_cuda_vec x,
                                                       mixi_cuda_vec r, double *ws, int x32)
{
    typedef typename fmt<P>::T T;
    const T a = (T)alpha;
    double acc[2] = {0.0, 0.0};
    FOR_BLOCKS(n) {
        const int64_t i = blk * BLK + lane;
        const bool valid = i < n;
        T xi = 0, pi = 0, ri = 0, api = 0;
        if (valid) {
            xi = x32 ? (T)mixk_svec_ld_fp32(x.val, NULL, i) : fmt<P>::ld(x.val, x.norm, i);
            pi = fmt<P>::ld(p.val, p.norm, i);
            ri = fmt<P>::ld(r.val, r.norm, i);
            api = fmt<P>::ld(ap.val, ap.norm, i);
        }
        // Every lane has read its elements and block norms before lane 0 rewrites the norms.
        __syncwarp();
        if (x32) {
            if (valid) mixk_svec_st_fp32(x.val, i, (float)add(xi, mul(a, pi)));
        } else {
            st_warp<P>(x, blk, lane, valid, add(xi, mul(a, pi)));
        }
        const T rn = st_warp<P>(r, blk, lane, valid, sub(ri, mul(a, api)));
        if (valid) {
            acc[0] += (double)rn * (double)rn;
            acc[1] += (double)rn * (double)ri;
        }
    }
    grid_sum<2>(acc, ws);
}

// a x + b y as axpby rounds it (each product, then the sum; a and b rounded to T first): the
// one formula of k_axpby and of the fused kernels that must give its bits.
template <class T> __device__ T axpby_elem(T a, T x, T b, T y) { return add(mul(a, x), mul(b, y)); }

template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_axpby(int n, double a, mixi_cuda_vec x, double b,
                                                   mixi_cuda_vec y)
{
    typedef typename fmt<P>::T T;
    const T af = (T)a, bf = (T)b;
    FOR_BLOCKS(n) {
        const int64_t i = blk * BLK + lane;
        const bool valid = i < n;
        T t = 0;
        if (valid) t = axpby_elem(af, fmt<P>::ld(x.val, x.norm, i), bf, fmt<P>::ld(y.val, y.norm, i));
        __syncwarp(); // all of y's block read before its norm changes
        st_warp<P>(y, blk, lane, valid, t);
    }
}

// d = a r + b d, then x = 1 d + c x: k_axpby's two passes in one (d's new value as stored, read
// back from the warp store, is what the second pass reads).  r, d, x distinct.
template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_cheb_update(int n, double a, mixi_cuda_vec r, double b,
                                                         mixi_cuda_vec d, double c, mixi_cuda_vec x)
{
    typedef typename fmt<P>::T T;
    const T af = (T)a, bf = (T)b, one = (T)1.0, cf = (T)c;
    FOR_BLOCKS(n) {
        const int64_t i = blk * BLK + lane;
        const bool valid = i < n;
        T dt = 0, xi = 0;
        if (valid) {
            dt = axpby_elem(af, fmt<P>::ld(r.val, r.norm, i), bf, fmt<P>::ld(d.val, d.norm, i));
            xi = fmt<P>::ld(x.val, x.norm, i);
        }
        __syncwarp(); // the blocks of d and x read before their norms change
        const T dn = st_warp<P>(d, blk, lane, valid, dt);
        st_warp<P>(x, blk, lane, valid, axpby_elem(one, dn, cf, xi));
    }
}

template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_dot(int n, mixi_cuda_vec x, mixi_cuda_vec y, double *ws)
{
    double d[1] = {0.0};
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (int64_t)gridDim.x * THREADS)
        d[0] += (double)fmt<P>::ld(x.val, x.norm, i) * (double)fmt<P>::ld(y.val, y.norm, i);
    grid_sum<1>(d, ws);
}

// Matrix conversion, one thread per row (once per matrix and precision): FP64 plain CSR, the
// other formats the columns, values and padding of SELL rows (layout made on the host).
__global__ void __launch_bounds__(THREADS) k_csr_convert_fp64(int n, const int64_t *rowptr,
                                                              const int32_t *colind,
                                                              const double *val,
                                                              const double *scale, double *out)
{
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (int64_t)gridDim.x * THREADS)
        mixk_csr_row_fp64(rowptr, colind, val, scale, i, out);
}

template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_sell_fill(int n, const int64_t *rowptr,
                                                       const int32_t *colind, const double *val,
                                                       const double *scale, mixk_sell A,
                                                       mixk_sell_out o, int *flag)
{
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (int64_t)gridDim.x * THREADS)
        if (fmt<P>::fill_row(A, rowptr, colind, val, scale, i, o)) atomicOr(flag, 1);
}

__global__ void __launch_bounds__(THREADS) k_diag_rsqrt(int n, const int64_t *rowptr,
                                                        const int32_t *colind, const double *val,
                                                        double *scale, int *flag)
{
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (int64_t)gridDim.x * THREADS) {
        double d = 0.0;
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
            if (colind[k] == i) d = val[k];
        if (d > 0.0) {
            scale[i] = 1.0 / sqrt(d);
        } else {
            scale[i] = 1.0;
            atomicOr(flag, 2);
        }
    }
}

unsigned grid_threads(long long n)
{
    long long g = (n + THREADS - 1) / THREADS;
    return (unsigned)(g < 1 ? 1 : (g > MIXI_CUDA_RED_BLOCKS ? MIXI_CUDA_RED_BLOCKS : g));
}

long long nblocks(long long n) { return (n + BLK - 1) / BLK; }

} // namespace

// ---- launchers ----------------------------------------------------------------------------------

// Calls launch(std::integral_constant<mix_prec, P>()) for the storage precision P = prec.
template <class F> static cudaError_t for_storage(mix_prec prec, F launch)
{
#define STORAGE_CASE(PP, ...) case PP: launch(std::integral_constant<mix_prec, PP>()); break;
    switch (prec) {
        MIXK_STORAGE_FORMATS(STORAGE_CASE)
    default: return cudaErrorInvalidValue;
    }
#undef STORAGE_CASE
    return cudaGetLastError();
}

// Instantiates KERNEL<prec> for the storage precision and launches it with ARGS.
#define DISPATCH(prec, KERNEL, GRID, ARGS)                                                      \
    return for_storage(prec, [&](auto prec_tag_) {                                            \
        KERNEL<decltype(prec_tag_)::value><<<GRID, THREADS, 0, stream>>> ARGS;                  \
    });

extern "C" int mixi_cuda_spmv_lanes(double mean)
{
    int l = 1;
    while (l < 32 && 2.0 * l <= mean) l *= 2;
    return l;
}

template <mix_prec P>
static cudaError_t launch_spmv(cudaStream_t stream, const mixi_cuda_csr &A, mixi_cuda_vec x,
                               mixi_cuda_vec y, double *ws)
{
    const unsigned g = grid_warps(nblocks(A.n));
    switch (mixk_sell_used(P) ? 1 : A.lanes) { /* a SELL slice: one thread per row */
    case 1: k_spmv<P, 1><<<g, THREADS, 0, stream>>>(A, x, y, ws); break;
    case 2: k_spmv<P, 2><<<g, THREADS, 0, stream>>>(A, x, y, ws); break;
    case 4: k_spmv<P, 4><<<g, THREADS, 0, stream>>>(A, x, y, ws); break;
    case 8: k_spmv<P, 8><<<g, THREADS, 0, stream>>>(A, x, y, ws); break;
    case 16: k_spmv<P, 16><<<g, THREADS, 0, stream>>>(A, x, y, ws); break;
    case 32: k_spmv<P, 32><<<g, THREADS, 0, stream>>>(A, x, y, ws); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

// y = A x with x and y FP32 over a 16-bit SELL matrix (the CG's default vectors): one thread per
// row, the shared row body over float x; xy from the unrounded row values, as the CPU's.
template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_spmv_acc(mixi_cuda_csr A, const float *x, float *y,
                                                      double *ws)
{
    double xy[1] = {0.0};
    FOR_BLOCKS(A.n) {
        const int64_t i = blk * BLK + lane;
        if (i < A.n) {
            const float v = (float)fmt<P>::rowf(A.sell, x, i);
            if (ws) xy[0] += (double)x[i] * (double)v;
            y[i] = v;
        }
    }
    if (ws) grid_sum<1>(xy, ws);
}

extern "C" cudaError_t mixi_cuda_spmv_acc(cudaStream_t stream, const mixi_cuda_csr *A,
                                          const float *x, float *y, double *ws)
{
    if (A->n <= 0) return cudaSuccess;
    const unsigned g = grid_warps(nblocks(A->n));
#define SPMV_ACC_CASE(PP, ...)                                                                    \
    case PP:                                                                                      \
        if (!mixk_sell_used(PP)) return cudaErrorInvalidValue;                                    \
        k_spmv_acc<PP><<<g, THREADS, 0, stream>>>(*A, x, y, ws);                                  \
        return cudaGetLastError();
    switch (A->prec) {
        MIXK_STORAGE_FORMATS(SPMV_ACC_CASE)
    default: return cudaErrorInvalidValue;
    }
#undef SPMV_ACC_CASE
}

// y = a (A x) + b z, vectors of T = acc(P): the row value as spmv computes it (FP64 and FP32
// storage: warp_rows, k_spmv's; the 16-bit formats over FP32 vectors: rowf, k_spmv_acc's), then
// axpby's formula on it, so the bits of spmv into t and axpby(a, t, b, z).  z may be y (each
// lane reads its z_i before writing y_i) or x (both only read); x is not y.
template <mix_prec P, int L>
__global__ void __launch_bounds__(THREADS) k_spmv_axpby(mixi_cuda_csr A, mixi_cuda_vec x, double a,
                                                        mixi_cuda_vec z, double b, mixi_cuda_vec y)
{
    typedef typename fmt<P>::T T;
    const bool acc = mixk_prec_acc(P) != P; // sp_spmv's choice: vectors wider than the storage
    const T af = (T)a, bf = (T)b;
    FOR_BLOCKS(A.n) {
        const int64_t i = blk * BLK + lane;
        T s;
        if (acc) s = i < A.n ? (T)fmt<P>::rowf(A.sell, (const float *)x.val, i) : T(0);
        else s = warp_rows<P, L>(A, x.val, x.norm, blk * BLK, lane);
        if (i < A.n) ((T *)y.val)[i] = axpby_elem(af, s, bf, ((const T *)z.val)[i]);
    }
}

template <mix_prec P>
static cudaError_t launch_spmv_axpby(cudaStream_t stream, const mixi_cuda_csr &A, mixi_cuda_vec x,
                                     double a, mixi_cuda_vec z, double b, mixi_cuda_vec y)
{
    const unsigned g = grid_warps(nblocks(A.n));
    switch (mixk_sell_used(P) ? 1 : A.lanes) { /* launch_spmv's rows per warp */
    case 1: k_spmv_axpby<P, 1><<<g, THREADS, 0, stream>>>(A, x, a, z, b, y); break;
    case 2: k_spmv_axpby<P, 2><<<g, THREADS, 0, stream>>>(A, x, a, z, b, y); break;
    case 4: k_spmv_axpby<P, 4><<<g, THREADS, 0, stream>>>(A, x, a, z, b, y); break;
    case 8: k_spmv_axpby<P, 8><<<g, THREADS, 0, stream>>>(A, x, a, z, b, y); break;
    case 16: k_spmv_axpby<P, 16><<<g, THREADS, 0, stream>>>(A, x, a, z, b, y); break;
    case 32: k_spmv_axpby<P, 32><<<g, THREADS, 0, stream>>>(A, x, a, z, b, y); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t mixi_cuda_spmv_axpby(cudaStream_t stream, const mixi_cuda_csr *A,
                                            mixi_cuda_vec x, double a, mixi_cuda_vec z, double b,
                                            mixi_cuda_vec y)
{
    if (A->n <= 0) return cudaSuccess;
#define SPMV_AXPBY_CASE(PP, ...) case PP: return launch_spmv_axpby<PP>(stream, *A, x, a, z, b, y);
    switch (A->prec) {
        MIXK_STORAGE_FORMATS(SPMV_AXPBY_CASE)
    default: return cudaErrorInvalidValue;
    }
#undef SPMV_AXPBY_CASE
}

// acc[j] += (A^T x)_j for j < m: one thread per row of A scattering its entries with FP64
// atomics (kernels/common/spmv_t.h); x32: x is FP32 (over a 16-bit matrix), else A's format.
#define ATOMIC_ACC(j, v) atomicAdd(&acc[j], (v))
template <mix_prec P>
__global__ void __launch_bounds__(THREADS) k_spmv_t(mixi_cuda_csr A, mixi_cuda_vec x, int x32,
                                                    double *acc, int64_t m)
{
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < A.n;
         i += (int64_t)gridDim.x * THREADS) {
        const double xi = x32 ? (double)((const float *)x.val)[i] : (double)fmt<P>::ld(x.val, x.norm, i);
        if (P == MIX_FP64) MIXK_CSR_SCATTER_ROW(A.rowptr, A.colind, A.val, i, xi, m, ATOMIC_ACC);
        else MIXK_SELL_SCATTER_ROW(P, &A.sell, i, xi, m, ATOMIC_ACC);
    }
}
#undef ATOMIC_ACC

extern "C" cudaError_t mixi_cuda_spmv_t(cudaStream_t stream, const mixi_cuda_csr *A, mixi_cuda_vec x,
                                        int x32, double *acc, int64_t m)
{
    cudaError_t e = cudaMemsetAsync(acc, 0, (size_t)m * sizeof(double), stream);
    if (e != cudaSuccess || A->n <= 0) return e;
    long long g = ((long long)A->n + THREADS - 1) / THREADS;
    if (g > 65535) g = 65535;
#define SPMV_T_CASE(PP, ...)                                                                      \
    case PP: k_spmv_t<PP><<<(unsigned)g, THREADS, 0, stream>>>(*A, x, x32, acc, m); return cudaGetLastError();
    switch (A->prec) {
        MIXK_STORAGE_FORMATS(SPMV_T_CASE)
    default: return cudaErrorInvalidValue;
    }
#undef SPMV_T_CASE
}

// The tentative prolongator's transfers (kernels/common/tent.h): the restriction a thread per
// aggregate, gathering (no atomics: the CPU's bits), the prolongation a thread per row
// (coalesced; agg[i] == nc: a row in no aggregate).  The common bodies by element type:
__device__ inline double tent_col(const int32_t *s, const int32_t *r, const float *v, const float *x, int64_t a)
{
    return mixk_tent_col_f32(s, r, v, x, a);
}
__device__ inline double tent_col(const int32_t *s, const int32_t *r, const double *v, const double *x, int64_t a)
{
    return mixk_tent_col_f64(s, r, v, x, a);
}
__device__ inline void tent_row(const int32_t *agg, const float *v, const float *y, int64_t nc, int64_t i,
                                float *u, float *x)
{
    mixk_tent_row_f32(agg, v, y, nc, i, u, x);
}
__device__ inline void tent_row(const int32_t *agg, const double *v, const double *y, int64_t nc, int64_t i,
                                double *u, double *x)
{
    mixk_tent_row_f64(agg, v, y, nc, i, u, x);
}

template <class T>
__global__ void __launch_bounds__(THREADS) k_tent_restrict(int nc, const int32_t *start, const int32_t *rows,
                                                           const T *val, const T *x, T *y)
{
    for (int64_t a = (int64_t)blockIdx.x * THREADS + threadIdx.x; a < nc; a += (int64_t)gridDim.x * THREADS)
        y[a] = (T)tent_col(start, rows, val, x, a);
}

template <class T>
__global__ void __launch_bounds__(THREADS) k_tent_prolong(int n, int nc, const int32_t *agg, const T *val,
                                                          const T *y, T *u, T *x)
{
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += (int64_t)gridDim.x * THREADS)
        tent_row(agg, val, y, nc, i, u, x);
}

static unsigned grid_groups(long long groups)
{
    long long g = (groups + THREADS - 1) / THREADS;
    return (unsigned)(g < 1 ? 1 : (g > 65535 ? 65535 : g));
}

extern "C" cudaError_t mixi_cuda_tent_restrict(cudaStream_t stream, int fp64, int nc, const int32_t *start,
                                               const int32_t *rows, const void *val, const void *x, void *y)
{
    if (nc <= 0) return cudaSuccess;
    if (fp64)
        k_tent_restrict<double><<<grid_groups(nc), THREADS, 0, stream>>>(nc, start, rows, (const double *)val,
                                                                          (const double *)x, (double *)y);
    else
        k_tent_restrict<float><<<grid_groups(nc), THREADS, 0, stream>>>(nc, start, rows, (const float *)val,
                                                                         (const float *)x, (float *)y);
    return cudaGetLastError();
}

extern "C" cudaError_t mixi_cuda_tent_prolong(cudaStream_t stream, int fp64, int n, int nc, const int32_t *agg,
                                              const void *val, const void *y, void *u, void *x)
{
    if (n <= 0) return cudaSuccess;
    if (fp64)
        k_tent_prolong<double><<<grid_groups(n), THREADS, 0, stream>>>(
            n, nc, agg, (const double *)val, (const double *)y, (double *)u, (double *)x);
    else
        k_tent_prolong<float><<<grid_groups(n), THREADS, 0, stream>>>(
            n, nc, agg, (const float *)val, (const float *)y, (float *)u, (float *)x);
    return cudaGetLastError();
}

extern "C" cudaError_t mixi_cuda_spmv(cudaStream_t stream, const mixi_cuda_csr *A, mixi_cuda_vec x,
                                      mixi_cuda_vec y, double *ws)
{
    if (A->n <= 0) return cudaSuccess;
#define SPMV_CASE(PP, ...) case PP: return launch_spmv<PP>(stream, *A, x, y, ws);
    switch (A->prec) {
        MIXK_STORAGE_FORMATS(SPMV_CASE)
    default: return cudaErrorInvalidValue;
    }
#undef SPMV_CASE
}

extern "C" cudaError_t mixi_cuda_residual64(cudaStream_t stream, const mixi_cuda_csr *A,
                                            const double *b, const double *x, double *r, double *ws)
{
    if (A->n <= 0) return cudaSuccess;
    const unsigned g = grid_warps(nblocks(A->n));
    switch (A->lanes) {
    case 1: k_residual64<1><<<g, THREADS, 0, stream>>>(*A, b, x, r, ws); break;
    case 2: k_residual64<2><<<g, THREADS, 0, stream>>>(*A, b, x, r, ws); break;
    case 4: k_residual64<4><<<g, THREADS, 0, stream>>>(*A, b, x, r, ws); break;
    case 8: k_residual64<8><<<g, THREADS, 0, stream>>>(*A, b, x, r, ws); break;
    case 16: k_residual64<16><<<g, THREADS, 0, stream>>>(*A, b, x, r, ws); break;
    case 32: k_residual64<32><<<g, THREADS, 0, stream>>>(*A, b, x, r, ws); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t mixi_cuda_nrm2sq64(cudaStream_t stream, int n, const double *x, double *ws)
{
    if (n <= 0) return cudaSuccess;
    k_nrm2sq64<<<grid_threads(n), THREADS, 0, stream>>>(n, x, ws);
    return cudaGetLastError();
}

extern "C" cudaError_t mixi_cuda_vec_from64(cudaStream_t stream, mix_prec prec, int n,
                                            const double *x, const double *scale, double alpha,
                                            mixi_cuda_vec v, double *ws)
{
    if (n <= 0) return cudaSuccess;
    DISPATCH(prec, k_vec_from64, grid_warps(nblocks(n)), (n, x, scale, alpha, v, ws))
}

extern "C" cudaError_t mixi_cuda_vec_accum64(cudaStream_t stream, mix_prec prec, int n,
                                             mixi_cuda_vec v, const double *scale, double alpha,
                                             double *y)
{
    if (n <= 0) return cudaSuccess;
    DISPATCH(prec, k_vec_accum64, grid_threads(n), (n, v, scale, alpha, y))
}

extern "C" cudaError_t mixi_cuda_cg_update(cudaStream_t stream, mix_prec prec, int n, double alpha,
                                           mixi_cuda_vec p, mixi_cuda_vec ap, mixi_cuda_vec x,
                                           int x_fp32, mixi_cuda_vec r, double *ws)
{
    if (n <= 0) return cudaSuccess;
    if (x_fp32 && (prec == MIX_FP32 || mixk_prec_acc(prec) != MIX_FP32)) return cudaErrorInvalidValue;
    DISPATCH(prec, k_cg_update, grid_warps(nblocks(n)), (n, alpha, p, ap, x, r, ws, x_fp32))
}

extern "C" cudaError_t mixi_cuda_axpby(cudaStream_t stream, mix_prec prec, int n, double a,
                                       mixi_cuda_vec x, double b, mixi_cuda_vec y)
{
    if (n <= 0) return cudaSuccess;
    DISPATCH(prec, k_axpby, grid_warps(nblocks(n)), (n, a, x, b, y))
}

extern "C" cudaError_t mixi_cuda_cheb_update(cudaStream_t stream, mix_prec prec, int n, double a,
                                             mixi_cuda_vec r, double b, mixi_cuda_vec d, double c,
                                             mixi_cuda_vec x)
{
    if (n <= 0) return cudaSuccess;
    DISPATCH(prec, k_cheb_update, grid_warps(nblocks(n)), (n, a, r, b, d, c, x))
}

extern "C" cudaError_t mixi_cuda_dot(cudaStream_t stream, mix_prec prec, int n, mixi_cuda_vec x,
                                     mixi_cuda_vec y, double *ws)
{
    if (n <= 0) return cudaSuccess;
    DISPATCH(prec, k_dot, grid_threads(n), (n, x, y, ws))
}

extern "C" cudaError_t mixi_cuda_csr_convert_fp64(cudaStream_t stream, int n, const int64_t *rowptr,
                                                  const int32_t *colind, const double *val,
                                                  const double *scale, double *out)
{
    if (n <= 0) return cudaSuccess;
    k_csr_convert_fp64<<<grid_threads(n), THREADS, 0, stream>>>(n, rowptr, colind, val, scale, out);
    return cudaGetLastError();
}

extern "C" cudaError_t mixi_cuda_sell_fill(cudaStream_t stream, int n, const int64_t *rowptr,
                                           const int32_t *colind, const double *val,
                                           const double *scale, mix_prec prec, const mixk_sell *A,
                                           const mixk_sell_out *out, int *d_flag)
{
    if (n <= 0) return cudaSuccess;
    DISPATCH(prec, k_sell_fill, grid_threads(n), (n, rowptr, colind, val, scale, *A, *out, d_flag))
}

extern "C" cudaError_t mixi_cuda_diag_rsqrt(cudaStream_t stream, int n, const int64_t *rowptr,
                                            const int32_t *colind, const double *val,
                                            double *scale, int *d_flag)
{
    if (n <= 0) return cudaSuccess;
    k_diag_rsqrt<<<grid_threads(n), THREADS, 0, stream>>>(n, rowptr, colind, val, scale, d_flag);
    return cudaGetLastError();
}
