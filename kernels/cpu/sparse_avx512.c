/* sparse_avx512.c: the SELL slice bodies of the CPU SpMV sixteen rows per vector, for CPUs with
 * AVX-512F (chosen at run time by sparse_avx2.c's dispatch, the tuner's avx512 variants). */
#include "kernels/cpu/sparse_cpu_impl.h"
#ifdef MIX_SPARSE_AVX2
#include "kernels/cpu/sell_simd.h"

/* The same slice sixteen rows per vector where the CPU has AVX-512F (same products, same slot
 * order per row, so the same bits as the portable body and the AVX2 slice). */
#define MIXI_AVX512 __attribute__((target("avx512f,avx2,f16c")))
MIXI_AVX512 static inline __m512 avx512_sell_vals(mix_prec P, const void *v, int64_t k)
{
    switch (P) {
    case MIX_FP32: return _mm512_loadu_ps((const float *)v + k);
    case MIX_FP16: return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const uint16_t *)v + k)));
    case MIX_BF16:
        return _mm512_castsi512_ps(_mm512_slli_epi32(
            _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)((const uint16_t *)v + k))), 16));
    default:
        return _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)((const int16_t *)v + k))));
    }
}
MIXI_AVX512 static inline __m512d avx512_lo_pd(__m512 a) { return _mm512_cvtps_pd(_mm512_castps512_ps256(a)); }
MIXI_AVX512 static inline __m512d avx512_hi_pd(__m512 a)
{
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
}
/* Sixteen stored values at k as two FP64 halves.  Exact: every format's value has at most 24
 * significant bits.  FP32 and FIXED16 convert straight from memory (no 512-bit intermediate
 * and extract: two uops fewer per 16 values). */
MIXI_AVX512 static MIXI_INLINE void avx512_vals_pd(mix_prec P, const void *v, int64_t k, __m512d *lo,
                                                   __m512d *hi)
{
    if (P == MIX_FP32) {
        *lo = _mm512_cvtps_pd(_mm256_loadu_ps((const float *)v + k));
        *hi = _mm512_cvtps_pd(_mm256_loadu_ps((const float *)v + k + 8));
    } else if (P == MIX_FIXED16) {
        *lo = _mm512_cvtepi32_pd(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)((const int16_t *)v + k))));
        *hi = _mm512_cvtepi32_pd(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)((const int16_t *)v + k + 8))));
    } else {
        const __m512 a = avx512_sell_vals(P, v, k);
        *lo = avx512_lo_pd(a);
        *hi = avx512_hi_pd(a);
    }
}
/* x of one 16-row group for slot k, as two FP64 halves: a gather, or (contiguous) two loads. */
MIXI_AVX512 static MIXI_INLINE void avx512_x_gather(const mixk_sell *A, const float *x, __m512i row, int64_t k,
                                                    __m512d *lo, __m512d *hi)
{
    const __m512i off = _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(A->col + k)));
    const __m512 xj = _mm512_i32gather_ps(_mm512_add_epi32(row, off), x, 4);
    *lo = avx512_lo_pd(xj);
    *hi = avx512_hi_pd(xj);
}
MIXI_AVX512 static MIXI_INLINE void avx512_x_contig(const float *xs, __m512d *lo, __m512d *hi)
{
    *lo = _mm512_cvtps_pd(_mm256_loadu_ps(xs));
    *hi = _mm512_cvtps_pd(_mm256_loadu_ps(xs + 8));
}
/* The products are exact in FP64 (24 x 24 bits at most, no underflow or overflow from floats),
 * so a fused multiply-add rounds once, exactly as the portable body's add of the product: the
 * same bits, one instruction fewer. */
#define AVX512_ACC(acc, a, b) ((acc) = _mm512_fmadd_pd((a), (b), (acc)))

MIXI_AVX512 static MIXI_INLINE void avx512_group(mix_prec P, const mixk_sell *A, const float *x, int32_t i0,
                                                 int g, int64_t base, int64_t end, int mode, int pf,
                                                 __m512d *plo, __m512d *phi)
{
    const __m512i row = _mm512_add_epi32(_mm512_set1_epi32(i0 + 16 * g),
                                         _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
    for (int64_t k = base + 16 * g; k < end; k += MIXK_SELL_C) {
        const int64_t r = k / MIXK_SELL_C;
        __m512d xl, xh, al, ah;
        if (pf) sell_prefetch(P, A, k, pf, mode != SLOT_SOFF);
        if (mode == SLOT_SOFF || mode == SLOT_COL ||
            (mode == SLOT_MIXED && (A->smask[r] & MIXK_SELL_G16(g))))
            avx512_x_contig(x + i0 + 16 * g + (mode == SLOT_SOFF ? A->soff[r] : A->col[k]), &xl, &xh);
        else
            avx512_x_gather(A, x, row, k, &xl, &xh);
        avx512_vals_pd(P, A->val, k, &al, &ah);
        AVX512_ACC(lo, al, xl);
        AVX512_ACC(hi, ah, xh);
    }
    *plo = lo;
    *phi = hi;
}

/* avx512_group and avx512_pair take i0 = the slice's first row plus its column shift
 * (kernels/common/sell.h): where its offsets count from.
 * Both 16-row groups of a slice in one pass over its slot rows (each slot row's offsets and
 * values are one or two cache lines, read once, front to back; four independent sums), for the
 * two modes that need no per-group choice: every slot row gathered, or every one contiguous over
 * the 32 rows (offsets from soff).  pf > 0: the slot rows pf ahead are prefetched. */
MIXI_AVX512 static MIXI_INLINE void avx512_pair(mix_prec P, const mixk_sell *A, const float *x, int32_t i0,
                                                int64_t base, int64_t end, int soff, int pf, __m512d *s)
{
    const __m512i row = _mm512_add_epi32(_mm512_set1_epi32(i0),
                                         _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    const __m512i row1 = _mm512_add_epi32(row, _mm512_set1_epi32(16));
    __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t k = base; k < end; k += MIXK_SELL_C) {
        __m512d x0, x1, x2, x3, a0, a1, a2, a3;
        if (pf) sell_prefetch(P, A, k, pf, !soff);
        if (soff) {
            const float *xs = x + i0 + A->soff[k / MIXK_SELL_C];
            avx512_x_contig(xs, &x0, &x1);
            avx512_x_contig(xs + 16, &x2, &x3);
        } else {
            avx512_x_gather(A, x, row, k, &x0, &x1);
            avx512_x_gather(A, x, row1, k + 16, &x2, &x3);
        }
        avx512_vals_pd(P, A->val, k, &a0, &a1);
        avx512_vals_pd(P, A->val, k + 16, &a2, &a3);
        AVX512_ACC(s0, a0, x0);
        AVX512_ACC(s1, a1, x1);
        AVX512_ACC(s2, a2, x2);
        AVX512_ACC(s3, a3, x3);
    }
    s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;
}

/* Rows i .. i + 15 finished from their sums lo, hi: FIXED16 scales by the row steps, then the
 * diagonal product is added (exact, so fused as above; none without a diagonal apart, x alone
 * over a unit one) and the sums rounded once. */
MIXI_AVX512 static MIXI_INLINE void avx512_finish(mix_prec P, const mixk_sell *A, const float *x, int64_t i,
                                                  __m512d lo, __m512d hi, float *y)
{
    __m512d dl, dh;
    if (P == MIX_FIXED16) {
        const __m512i e = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(A->rexp + i)));
        const __m512 h = _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
        const __m512d c = _mm512_set1_pd((double)A->fmant); /* h c: exact */
        lo = _mm512_mul_pd(lo, _mm512_mul_pd(c, avx512_lo_pd(h)));
        hi = _mm512_mul_pd(hi, _mm512_mul_pd(c, avx512_hi_pd(h)));
    }
    if (A->diag && A->unit_diag) { /* 1 x exactly: the fused add's bits */
        const __m512 xi = _mm512_loadu_ps(x + i);
        lo = _mm512_add_pd(lo, avx512_lo_pd(xi));
        hi = _mm512_add_pd(hi, avx512_hi_pd(xi));
    } else if (A->diag) {
        const __m512 xi = _mm512_loadu_ps(x + i);
        avx512_vals_pd(P == MIX_FIXED16 ? MIX_FP32 : P, A->diag, i, &dl, &dh); /* FIXED16's: floats */
        AVX512_ACC(lo, dl, avx512_lo_pd(xi));
        AVX512_ACC(hi, dh, avx512_hi_pd(xi));
    }
    _mm256_storeu_ps(y, _mm512_cvtpd_ps(lo));
    _mm256_storeu_ps(y + 8, _mm512_cvtpd_ps(hi));
}

MIXI_AVX512 static MIXI_INLINE void avx512_sell_slice(mix_prec P, const mixk_sell *A, const float *x,
                                                      int64_t s, float *y, int contig, int pf)
{
    const int64_t base = A->slice[s], end = A->slice[s + 1] & MIXK_SELL_SLOT_MASK;
    /* xi0: where the slice's offsets count from (its first row plus its column shift). */
    const int32_t i0 = (int32_t)(s * MIXK_SELL_C), xi0 = i0 + (int32_t)mixk_sell_shift(A, s);
    int mode[2] = {SLOT_GATHER, SLOT_GATHER};
    if (contig) sell_col_lookahead(A, s);
    const unsigned masks = contig ? slot_masks(A, base, end) : 0u;
    if (contig) mode[0] = slot_mode_of(masks, MIXK_SELL_G16(0));
    if (contig && mode[0] != SLOT_SOFF) mode[1] = slot_mode_of(masks, MIXK_SELL_G16(1));
    const int mode0 = mode[0];
    if (mode0 == SLOT_SOFF || (mode0 == SLOT_GATHER && mode[1] == SLOT_GATHER)) { /* both alike */
        __m512d sum[4];
        if (mode0 == SLOT_SOFF) avx512_pair(P, A, x, xi0, base, end, 1, pf, sum);
        else avx512_pair(P, A, x, xi0, base, end, 0, pf, sum);
        avx512_finish(P, A, x, i0, sum[0], sum[1], y);
        avx512_finish(P, A, x, i0 + 16, sum[2], sum[3], y + 16);
        return;
    }
    for (int g = 0; g < MIXK_SELL_C / 16; g++) {
        __m512d lo, hi;
        switch (mode[g]) {
        case SLOT_COL: avx512_group(P, A, x, xi0, g, base, end, SLOT_COL, pf, &lo, &hi); break;
        case SLOT_MIXED: avx512_group(P, A, x, xi0, g, base, end, SLOT_MIXED, pf, &lo, &hi); break;
        default: avx512_group(P, A, x, xi0, g, base, end, SLOT_GATHER, pf, &lo, &hi); break;
        }
        avx512_finish(P, A, x, i0 + 16 * g, lo, hi, y + 16 * g);
    }
}
/* The slice bodies of the SpMV variants (kernels/cpu/spmv_tune.h): one AVX-512 function per
 * format and load mode (an AVX-512 body cannot inline into the AVX2 callers; with the format a
 * constant in it, no switch on it runs per slot: perf annotate showed one in the hot loop); an
 * AVX-512 variant asked of a CPU without it runs AVX2's. */
#define AVX512_SLICES(PP, SFX)                                                                     \
    MIXI_AVX512 void mixi_avx512_slice_c_##SFX(const mixk_sell *A, const float *x, int64_t s,      \
                                               float *y, int pf)                                   \
    {                                                                                              \
        avx512_sell_slice(PP, A, x, s, y, 1, pf);                                                  \
    }                                                                                              \
    MIXI_AVX512 void mixi_avx512_slice_g_##SFX(const mixk_sell *A, const float *x, int64_t s,      \
                                               float *y, int pf)                                   \
    {                                                                                              \
        avx512_sell_slice(PP, A, x, s, y, 0, pf);                                                  \
    }
AVX512_SLICES(MIX_FP32, fp32)
AVX512_SLICES(MIX_FP16, fp16)
AVX512_SLICES(MIX_BF16, bf16)
AVX512_SLICES(MIX_FIXED16, fixed16)
#undef AVX512_SLICES
#else
typedef int mixi_sparse_avx512_none; /* not x86: nothing here (an empty file is not C) */
#endif
