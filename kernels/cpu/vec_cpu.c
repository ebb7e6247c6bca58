/* vec_cpu.c: the CPU backend's fused CG vector passes over FP32 or FP64 vectors, from the
 * element bodies of kernels/common/cg_update.h. */
#include "lib/core/core.h"
#include "kernels/common/cg_update.h"
#include "kernels/cpu/vec_cpu.h"
#include "kernels/cpu/cpu_features.h"
#include "lib/core/det_sum.h"

/* As sparse_cpu.c's PAR_MIN.  The FP64 sums add their block sums in lib/core/det_sum.h's
 * fixed chunks, as the unfused kernels do, on any number of threads. */
#define VEC_PAR_MIN 4096
#define NBLK(n) (((n) + MIXK_CG_BLK - 1) / MIXK_CG_BLK)
#define CNT(n, b) ((int)((n) - (b) * MIXK_CG_BLK < MIXK_CG_BLK ? (n) - (b) * MIXK_CG_BLK : MIXK_CG_BLK))

static int one_wide_prec(mix_prec p) { return p == MIX_FP32 || p == MIX_FP64; }

/* A full block of the scalar bodies, with a constant trip count (ISA##_rblk_ / ISA##_xpblk_: the
 * AVX-512 instance below has its own). */
#define VEC_FULL_BLOCKS(ISA, ATTR, T, SFX)                                                        \
    ATTR static inline void ISA##_rblk_##SFX(T a, const T *ap, T *r, double *rr, double *rd)     \
    {                                                                                             \
        mixk_cg_rupdate_##SFX(a, ap, r, MIXK_CG_BLK, rr, rd);                                     \
    }                                                                                             \
    ATTR static inline void ISA##_xpblk_##SFX(T a, T bt, T *x, T *p, const T *r)                 \
    {                                                                                             \
        mixk_cg_xpupdate_##SFX(a, bt, x, p, r, MIXK_CG_BLK);                                      \
    }

/* The passes over one element type (T, suffix SFX of cg_update.h), instantiated for the baseline
 * ISA, AVX2 and AVX-512F (chosen at run time, as sparse_cpu.c does); no FMA in any, so the same
 * bits.  Full blocks take ISA##_rblk_/ISA##_xpblk_, a partial last block the scalar body. */
#define VEC_PASSES(ISA, ATTR, T, SFX)                                                             \
    ATTR static void ISA##_rupdate_##SFX(int64_t n, T a, const T *ap, T *r, double *rr, double *rd) \
    {                                                                                             \
        double part_rr[MIXI_SUM_CHUNKS], part_rd[MIXI_SUM_CHUNKS];                                \
        _Pragma("omp parallel for schedule(static) if (n > VEC_PAR_MIN)")                         \
        for (int c = 0; c < MIXI_SUM_CHUNKS; c++) {                                               \
            double acc_rr = 0.0, acc_rd = 0.0;                                                    \
            MIXI_CHUNK_FOR(b, NBLK(n), c) {                                                   \
                const int64_t o = b * MIXK_CG_BLK;                                                \
                double prr, prd;                                                                  \
                if (CNT(n, b) == MIXK_CG_BLK) ISA##_rblk_##SFX(a, ap + o, r + o, &prr, &prd);    \
                else mixk_cg_rupdate_##SFX(a, ap + o, r + o, CNT(n, b), &prr, &prd);              \
                acc_rr += prr;                                                                    \
                acc_rd += prd;                                                                    \
            }                                                                                     \
            part_rr[c] = acc_rr, part_rd[c] = acc_rd;                                             \
        }                                                                                         \
        *rr = mixi_chunks_total(part_rr);                                                         \
        *rd = mixi_chunks_total(part_rd);                                                         \
    }                                                                                             \
    ATTR static void ISA##_xpupdate_##SFX(int64_t n, T a, T bt, T *x, T *p, const T *r)           \
    {                                                                                             \
        _Pragma("omp parallel for schedule(static) if (n > VEC_PAR_MIN)")                         \
        for (int64_t b = 0; b < NBLK(n); b++) {                                                   \
            const int64_t o = b * MIXK_CG_BLK;                                                    \
            if (CNT(n, b) == MIXK_CG_BLK) ISA##_xpblk_##SFX(a, bt, x + o, p + o, r + o);         \
            else mixk_cg_xpupdate_##SFX(a, bt, x + o, p + o, r + o, CNT(n, b));                   \
        }                                                                                         \
    }

VEC_FULL_BLOCKS(generic, , float, f32)
VEC_FULL_BLOCKS(generic, , double, f64)
VEC_PASSES(generic, , float, f32)
VEC_PASSES(generic, , double, f64)
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define VEC_AVX2 1
#define VEC_AVX2_ATTR __attribute__((target("avx2")))
#include <immintrin.h>
/* One block of v (MIXK_CG_BLK values: 128 bytes of floats, 256 of doubles) VEC_AHEAD bytes
 * ahead, into L1: the hardware prefetchers alone left the passes stalled on their loads (perf
 * annotate).  Poisson 150^3, back to back: FIXED16 8.9-9.2
 * -> 8.2-8.3 ms per iteration, FP32 11.2 -> 10.3, FP64 23.2 -> 22.3.  A prefetch of an address
 * past the end of an array does not fault. */
#define VEC_AHEAD 4096
#define VEC_PREFETCH(v)                                                                           \
    do {                                                                                          \
        for (size_t at_ = 0; at_ < MIXK_CG_BLK * sizeof *(v); at_ += 64)                          \
            _mm_prefetch((const char *)((uintptr_t)(v) + VEC_AHEAD + at_), _MM_HINT_T0);          \
    } while (0)

/* AVX2 full blocks, the same bits as the scalar bodies and as the AVX-512 ones below (the four
 * FP64 partial sums as the lanes of one register, each group of four values added in element
 * order): the scalar s[t & 3] loop kept the sums in memory (a store-forwarding chain per value),
 * which on an AVX2-only CPU left rupdate at a third of the memory speed (see the AVX-512 note). */
VEC_AVX2_ATTR static inline double avx2_fold4(__m256d s)
{
    const __m128d h = _mm_hadd_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
    return _mm_cvtsd_f64(h) + _mm_cvtsd_f64(_mm_unpackhi_pd(h, h));
}
/* A full rupdate block over ISA##_rstep_##SFX, W values a step (r -= a ap, the FP64 products
 * of the new r added to the four-lane sums s and d), prefetched, the sums folded at the end. */
#define VEC_RBLK(ISA, ATTR, T, SFX, VT, SET1, W)                                                  \
    ATTR static inline void ISA##_rblk_##SFX(T a, const T *ap, T *r, double *prr, double *prd)   \
    {                                                                                             \
        const VT va = SET1(a);                                                                    \
        __m256d s = _mm256_setzero_pd(), d = _mm256_setzero_pd();                                \
        VEC_PREFETCH(r);                                                                          \
        VEC_PREFETCH(ap);                                                                         \
        for (int k = 0; k < MIXK_CG_BLK; k += (W)) ISA##_rstep_##SFX(va, ap + k, r + k, &s, &d);  \
        *prr = avx2_fold4(s);                                                                     \
        *prd = avx2_fold4(d);                                                                     \
    }
VEC_AVX2_ATTR static inline void avx2_rstep_f32(__m256 va, const float *ap, float *r, __m256d *s,
                                                __m256d *d)
{
    const __m256 ro = _mm256_loadu_ps(r);
    const __m256 rn = _mm256_sub_ps(ro, _mm256_mul_ps(va, _mm256_loadu_ps(ap)));
    _mm256_storeu_ps(r, rn);
    const __m256d nl = _mm256_cvtps_pd(_mm256_castps256_ps128(rn));
    const __m256d nh = _mm256_cvtps_pd(_mm256_extractf128_ps(rn, 1));
    const __m256d ol = _mm256_cvtps_pd(_mm256_castps256_ps128(ro));
    const __m256d oh = _mm256_cvtps_pd(_mm256_extractf128_ps(ro, 1));
    *s = _mm256_add_pd(_mm256_add_pd(*s, _mm256_mul_pd(nl, nl)), _mm256_mul_pd(nh, nh));
    *d = _mm256_add_pd(_mm256_add_pd(*d, _mm256_mul_pd(nl, ol)), _mm256_mul_pd(nh, oh));
}
VEC_AVX2_ATTR static inline void avx2_rstep_f64(__m256d va, const double *ap, double *r,
                                                __m256d *s, __m256d *d)
{
    const __m256d ro = _mm256_loadu_pd(r);
    const __m256d rn = _mm256_sub_pd(ro, _mm256_mul_pd(va, _mm256_loadu_pd(ap)));
    _mm256_storeu_pd(r, rn);
    *s = _mm256_add_pd(*s, _mm256_mul_pd(rn, rn));
    *d = _mm256_add_pd(*d, _mm256_mul_pd(rn, ro));
}
VEC_RBLK(avx2, VEC_AVX2_ATTR, float, f32, __m256, _mm256_set1_ps, 8)
VEC_RBLK(avx2, VEC_AVX2_ATTR, double, f64, __m256d, _mm256_set1_pd, 4)
/* x += a p, p = r + b p: the scalar body vectorises; the prefetch is what is added. */
#define VEC_AVX2_XPBLK(T, SFX)                                                                    \
    VEC_AVX2_ATTR static inline void avx2_xpblk_##SFX(T a, T bt, T *x, T *p, const T *r)         \
    {                                                                                             \
        VEC_PREFETCH(x);                                                                          \
        VEC_PREFETCH(p);                                                                          \
        VEC_PREFETCH(r);                                                                          \
        mixk_cg_xpupdate_##SFX(a, bt, x, p, r, MIXK_CG_BLK);                                      \
    }
VEC_AVX2_XPBLK(float, f32)
VEC_AVX2_XPBLK(double, f64)
VEC_PASSES(avx2, VEC_AVX2_ATTR, float, f32)
VEC_PASSES(avx2, VEC_AVX2_ATTR, double, f64)
/* AVX-512F passes, the same bits as the scalar bodies of cg_update.h: the four FP64 partial
 * sums of a block are the four lanes of one 256-bit register, to which each group of four
 * values is added in element order (lane j takes t = j mod 4, as s[t & 3] does), and the
 * block's total is (s0 + s1) + (s2 + s3).  The scalar reduction loop ran at a third of the
 * memory speed (perf, 3D Poisson 150^3, FIXED16: rupdate 2.8x the time of xpupdate, which
 * moves more bytes).  A partial last block takes the scalar body. */
#define VEC_AVX512_ATTR __attribute__((target("avx512f,avx2")))

/* s += the 8 lanes of v, first the low four then the high four. */
VEC_AVX512_ATTR static inline void avx512_sum4(__m256d *s, __m512d v)
{
    *s = _mm256_add_pd(*s, _mm512_castpd512_pd256(v));
    *s = _mm256_add_pd(*s, _mm512_extractf64x4_pd(v, 1));
}

VEC_AVX512_ATTR static inline __m512d avx512_hi_pd(__m512 v)
{
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

VEC_AVX512_ATTR static inline void avx512_rstep_f32(__m512 va, const float *ap, float *r,
                                                    __m256d *s, __m256d *d)
{
    const __m512 ro = _mm512_loadu_ps(r);
    const __m512 rn = _mm512_sub_ps(ro, _mm512_mul_ps(va, _mm512_loadu_ps(ap)));
    _mm512_storeu_ps(r, rn);
    const __m512d nl = _mm512_cvtps_pd(_mm512_castps512_ps256(rn)), nh = avx512_hi_pd(rn);
    const __m512d ol = _mm512_cvtps_pd(_mm512_castps512_ps256(ro)), oh = avx512_hi_pd(ro);
    avx512_sum4(s, _mm512_mul_pd(nl, nl));
    avx512_sum4(d, _mm512_mul_pd(nl, ol));
    avx512_sum4(s, _mm512_mul_pd(nh, nh));
    avx512_sum4(d, _mm512_mul_pd(nh, oh));
}

VEC_AVX512_ATTR static inline void avx512_rstep_f64(__m512d va, const double *ap, double *r,
                                                    __m256d *s, __m256d *d)
{
    const __m512d ro = _mm512_loadu_pd(r);
    const __m512d rn = _mm512_sub_pd(ro, _mm512_mul_pd(va, _mm512_loadu_pd(ap)));
    _mm512_storeu_pd(r, rn);
    avx512_sum4(s, _mm512_mul_pd(rn, rn));
    avx512_sum4(d, _mm512_mul_pd(rn, ro));
}
VEC_RBLK(avx512, VEC_AVX512_ATTR, float, f32, __m512, _mm512_set1_ps, 16)
VEC_RBLK(avx512, VEC_AVX512_ATTR, double, f64, __m512d, _mm512_set1_pd, 8)

VEC_AVX512_ATTR static inline void avx512_xpblk_f32(float a, float b, float *x, float *p,
                                                    const float *r)
{
    const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
    VEC_PREFETCH(x);
    VEC_PREFETCH(p);
    VEC_PREFETCH(r);
    for (int k = 0; k < MIXK_CG_BLK; k += 16) {
        const __m512 pk = _mm512_loadu_ps(p + k);
        _mm512_storeu_ps(x + k, _mm512_add_ps(_mm512_loadu_ps(x + k), _mm512_mul_ps(va, pk)));
        _mm512_storeu_ps(p + k, _mm512_add_ps(_mm512_loadu_ps(r + k), _mm512_mul_ps(vb, pk)));
    }
}

VEC_AVX512_ATTR static inline void avx512_xpblk_f64(double a, double b, double *x, double *p,
                                                    const double *r)
{
    const __m512d va = _mm512_set1_pd(a), vb = _mm512_set1_pd(b);
    VEC_PREFETCH(x);
    VEC_PREFETCH(p);
    VEC_PREFETCH(r);
    for (int k = 0; k < MIXK_CG_BLK; k += 8) {
        const __m512d pk = _mm512_loadu_pd(p + k);
        _mm512_storeu_pd(x + k, _mm512_add_pd(_mm512_loadu_pd(x + k), _mm512_mul_pd(va, pk)));
        _mm512_storeu_pd(p + k, _mm512_add_pd(_mm512_loadu_pd(r + k), _mm512_mul_pd(vb, pk)));
    }
}

VEC_PASSES(avx512, VEC_AVX512_ATTR, float, f32)
VEC_PASSES(avx512, VEC_AVX512_ATTR, double, f64)
#endif

#ifdef VEC_AVX2
/* 2: AVX-512F; 1: AVX2 + F16C (sparse_cpu.c's test); 0: the portable body, also when the tests
 * force the sparse kernels portable, so that a whole CG solve runs the plain C code. */
static int vec_isa(void)
{
    if (mixi_cpu_sparse_portable_forced()) return 0;
    return mixi_cpu_has_avx512f() ? 2 : mixi_cpu_has_f16c();
}

/* Runs the pass `pass` (e.g. rupdate_f32) of the ISA vec_isa() picks. */
#define VEC_RUN(pass, ...)                                                                        \
    do {                                                                                          \
        const int v_ = vec_isa();                                                                 \
        if (v_ == 2) avx512_##pass(__VA_ARGS__);                                                  \
        else if (v_) avx2_##pass(__VA_ARGS__);                                                    \
        else generic_##pass(__VA_ARGS__);                                                         \
    } while (0)
#else
#define VEC_RUN(pass, ...) generic_##pass(__VA_ARGS__)
#endif

int mixi_cpu_cg_rupdate(void *state, double alpha, const mixi_svec *ap, mixi_svec *r, double *rr,
                        double *rr_dot_old)
{
    (void)state;
    if (!one_wide_prec(r->prec) || ap->prec != r->prec) return MIX_ERR_UNSUPPORTED;
    if (r->prec == MIX_FP32)
        VEC_RUN(rupdate_f32, r->n, (float)alpha, ap->val, r->val, rr, rr_dot_old);
    else VEC_RUN(rupdate_f64, r->n, alpha, ap->val, r->val, rr, rr_dot_old);
    return MIX_SUCCESS;
}

int mixi_cpu_cg_xpupdate(void *state, double alpha, double beta, mixi_svec *p, const mixi_svec *r,
                         mixi_svec *x)
{
    (void)state;
    if (!one_wide_prec(p->prec) || r->prec != p->prec || x->prec != p->prec)
        return MIX_ERR_UNSUPPORTED;
    if (p->prec == MIX_FP32)
        VEC_RUN(xpupdate_f32, p->n, (float)alpha, (float)beta, x->val, p->val, r->val);
    else VEC_RUN(xpupdate_f64, p->n, alpha, beta, x->val, p->val, r->val);
    return MIX_SUCCESS;
}
