/* sparse_avx2.c: the CPU sparse kernels of every storage format compiled for AVX2 + F16C (the
 * template sparse_cpu_t.h with this ISA's hooks): vector block loads and stores, the SELL slice
 * bodies eight rows per vector, and the dispatch to sparse_avx512.c's sixteen-row ones. */
#include "kernels/cpu/sparse_cpu_impl.h"

/* The kernels compiled for AVX2 + F16C (chosen at run time), FP16 converted by the
 * hardware (same values: both round to nearest even), BF16 eight lanes at a time, full FIXED16
 * blocks encoded with vector instructions.  No FMA: contracted products would round
 * differently from the portable bodies and from kernels/common's encoders. */
/* Every function of this ISA carries the target attribute (ISA_ATTR), which GCC and clang both
 * honour, rather than a GCC-only "#pragma GCC target" region; the kernels/common functions they
 * inline take the caller's ISA. */
#ifdef MIX_SPARSE_AVX2
#include "kernels/cpu/sell_simd.h"
#include "kernels/cpu/avx2_lanes.h"
#define ISA_ATTR MIXI_AVX2
/* clang 14 outlines an OpenMP region without its function's target attribute: AVX2 code inlined
 * into it crashes its back end, so there the per-block bodies stay calls (one per 32 rows). */
#ifdef __clang__
#define ISA_BLK_INLINE __attribute__((noinline))
#else
#define ISA_BLK_INLINE MIXI_INLINE
#endif
#define F16C_LD(v, norm, i) _cvtsh_ss(((const uint16_t *)(v))[i])
#define F16C_LDA(v, k) _cvtsh_ss(((const uint16_t *)(v))[k])
/* kernels/common's SELL row sum and finish, instantiated with the hardware FP16 loads (its macro
 * of statements compiled here under the AVX2 + F16C attribute; these loads drop the name xnorm). */
MIXI_AVX2 static inline float avx2_row_fp16(const mixk_sell *A, const void *x, int64_t i)
{
    MIXK_SELL_SUM(s, F16C_LDA, F16C_LD)
    if (!A->diag) return (float)s;
    const double xi = (double)F16C_LD(x, NULL, i);
    return (float)(s + (A->unit_diag ? xi : (double)F16C_LDA(A->diag, i) * xi));
}
MIXI_AVX2 static inline float avx2_rowf_fp16(const mixk_sell *A, const float *x, int64_t i)
{
    MIXK_SELL_SUM(s, F16C_LDA, MIXK_LDX_F32)
    if (!A->diag) return (float)s;
    return (float)(s + (A->unit_diag ? (double)x[i] : (double)F16C_LDA(A->diag, i) * (double)x[i]));
}

/* A full SELL slice s (32 rows, not escaped), rows side by side: per slot one load of offsets
 * and values for eight rows, a gather of x (floats: x itself for FP32 or FP32 vectors, else x
 * decoded once per SpMV), exact products and the row sums in FP64 (four rows per register), then
 * the row finish rounded once; the rows add in slot order as the portable body does, so the
 * results are its bits. */
/* Eight floats as two FP64 halves (exact). */
MIXI_AVX2 static MIXI_INLINE void avx2_split_pd(__m256 a, __m256d *lo, __m256d *hi)
{
    *lo = _mm256_cvtps_pd(_mm256_castps256_ps128(a));
    *hi = _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1));
}
/* Eight stored values at k as two FP64 halves (exact: at most 24 significant bits).  FP32 and
 * FIXED16 convert straight from memory, four at a time, without a float register to split (as
 * the AVX-512 body does): two uops fewer per eight values.  BF16 is the shift alone: stored
 * values are finite (the conversion refuses NaN and overflow), so there is no NaN to quiet. */
MIXI_AVX2 static MIXI_INLINE void avx2_vals_pd(mix_prec P, const void *v, int64_t k, __m256d *lo, __m256d *hi)
{
    if (P == MIX_FP32) {
        *lo = _mm256_cvtps_pd(_mm_loadu_ps((const float *)v + k));
        *hi = _mm256_cvtps_pd(_mm_loadu_ps((const float *)v + k + 4));
    } else if (P == MIX_FIXED16) {
        /* cvtdq2pd, not the 2^52 trick (zero-extend, flip into a double's mantissa, subtract 2^52
         * + 2^15: one shuffle fewer per four values, one instruction more): 3.6% slower on the
         * KVM Xeon with the values in L1 (doc/benchmarks.md, issue 37 item 5). */
        const int16_t *q = (const int16_t *)v + k;
        *lo = _mm256_cvtepi32_pd(_mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)q)));
        *hi = _mm256_cvtepi32_pd(_mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)(q + 4))));
    } else { /* FP16, BF16 (simd_sell_format) */
        const __m128i h = _mm_loadu_si128((const __m128i *)((const uint16_t *)v + k));
        avx2_split_pd(P == MIX_FP16 ? _mm256_cvtph_ps(h)
                                    : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)),
                      lo, hi);
    }
}

/* x at the eight rows from xb (row t reads xb[t + c[t]]) by scalar loads, as two FP64 halves:
 * the values a gather loads. */
MIXI_AVX2 static MIXI_INLINE void avx2_loads_pd(const float *xb, const int16_t *c, __m256d *lo, __m256d *hi)
{
    *lo = _mm256_cvtps_pd(_mm_setr_ps(xb[c[0]], xb[1 + c[1]], xb[2 + c[2]], xb[3 + c[3]]));
    *hi = _mm256_cvtps_pd(_mm_setr_ps(xb[4 + c[4]], xb[5 + c[5]], xb[6 + c[6]], xb[7 + c[7]]));
}

/* Group g's eight rows of the slice [base, end): the FP64 sums of their slots, in slot order
 * (mode SLOT_COL, SLOT_MIXED or SLOT_GATHER; a slice all SLOT_SOFF runs avx2_soff_slice), slots
 * not contiguous over the group gathered, or with `loads` read by scalar loads.  i0: the slice's
 * first row plus its column shift (kernels/common/sell.h), where its offsets count from. */
MIXI_AVX2 static MIXI_INLINE void avx2_group(mix_prec P, const mixk_sell *A, const float *x, int32_t i0,
                                             int g, int64_t base, int64_t end, int mode, int loads,
                                             int pf, __m256d *plo, __m256d *phi)
{
    const __m256i row = _mm256_add_epi32(_mm256_set1_epi32(i0 + 8 * g), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
    for (int64_t k = base + 8 * g; k < end; k += MIXK_SELL_C) {
        const int64_t r = k / MIXK_SELL_C;
        __m256d xl, xh, al, ah;
        if (pf) sell_prefetch(P, A, k, pf, 1);
        if (mode == SLOT_COL || (mode == SLOT_MIXED && (A->smask[r] & MIXK_SELL_G8(g)))) { /* x read contiguously */
            const int d = A->col[k];
            avx2_vals_pd(MIX_FP32, x, i0 + 8 * g + d, &xl, &xh);
        } else if (loads) {
            avx2_loads_pd(x + i0 + 8 * g, A->col + k, &xl, &xh);
        } else {
            const __m256i off = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(A->col + k)));
            avx2_split_pd(_mm256_i32gather_ps(x, _mm256_add_epi32(row, off), 4), &xl, &xh);
        }
        avx2_vals_pd(P, A->val, k, &al, &ah);
        /* Exact products (24 x 24 bits in FP64), so a fused add rounds as the portable body's
         * add of the product: the same bits, one uop fewer per four rows. */
        lo = _mm256_fmadd_pd(al, xl, lo);
        hi = _mm256_fmadd_pd(ah, xh, hi);
    }
    *plo = lo;
    *phi = hi;
}

/* Group g's finish: y = s h + d x (FIXED16: h the row's step; no d x without a diagonal apart,
 * x alone over a unit one), rounded once, as the portable row's finish. */
MIXI_AVX2 static MIXI_INLINE void avx2_finish(mix_prec P, const mixk_sell *A, const float *x, int64_t i,
                                              __m256d lo, __m256d hi, float *y)
{
    __m256d xl, xh, dl, dh;
    if (P == MIX_FIXED16) {
        const __m256i e = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(A->rexp + i)));
        const __m256 h = _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
        const __m256d c = _mm256_set1_pd((double)A->fmant); /* h c: exact */
        lo = _mm256_mul_pd(lo, _mm256_mul_pd(c, _mm256_cvtps_pd(_mm256_castps256_ps128(h))));
        hi = _mm256_mul_pd(hi, _mm256_mul_pd(c, _mm256_cvtps_pd(_mm256_extractf128_ps(h, 1))));
    }
    if (A->diag && A->unit_diag) { /* 1 x exactly: the fused add's bits */
        avx2_vals_pd(MIX_FP32, x, i, &xl, &xh);
        lo = _mm256_add_pd(lo, xl);
        hi = _mm256_add_pd(hi, xh);
    } else if (A->diag) {
        avx2_vals_pd(MIX_FP32, x, i, &xl, &xh);
        avx2_vals_pd(P == MIX_FIXED16 ? MIX_FP32 : P, A->diag, i, &dl, &dh); /* FIXED16's: floats */
        lo = _mm256_fmadd_pd(dl, xl, lo);
        hi = _mm256_fmadd_pd(dh, xh, hi);
    }
    _mm256_storeu_ps(y, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
}

/* Slot k's eight rows from group g into the group's two sums (x from xr, the slot row's x). */
#define AVX2_SOFF_GROUP(g)                                                                             do {                                                                                                   __m256d xl, xh, al, ah;                                                                            avx2_vals_pd(MIX_FP32, xr, 8 * (g), &xl, &xh);                                                     avx2_vals_pd(P, A->val, k + 8 * (g), &al, &ah);                                                    s##g##l = _mm256_fmadd_pd(al, xl, s##g##l);                                                        s##g##h = _mm256_fmadd_pd(ah, xh, s##g##h);                                                    } while (0)
/* A slice whose every slot row is contiguous over its 32 rows (SLOT_SOFF; xi0 = i0 + its shift,
 * where the offsets count from): the four groups side
 * by side, eight FP64 sums in registers, so that per slot row the offset is read, the address
 * made, the loop counted and the values prefetched once, not once per group (the group loop
 * read each slot row four times).  Each row still adds its slots in slot order: the same bits. */
MIXI_AVX2 static MIXI_INLINE void avx2_soff_slice(mix_prec P, const mixk_sell *A, const float *x,
                                                  int32_t i0, int32_t xi0, int64_t base, int64_t end,
                                                  int pf, float *y)
{
    __m256d s0l = _mm256_setzero_pd(), s0h = s0l, s1l = s0l, s1h = s0l, s2l = s0l, s2h = s0l, s3l = s0l,
            s3h = s0l;
    for (int64_t r = base / MIXK_SELL_C; r < end / MIXK_SELL_C; r++) {
        const int64_t k = r * MIXK_SELL_C;
        if (pf) sell_prefetch(P, A, k, pf, 0);
        const float *xr = x + xi0 + A->soff[r];
        AVX2_SOFF_GROUP(0);
        AVX2_SOFF_GROUP(1);
        AVX2_SOFF_GROUP(2);
        AVX2_SOFF_GROUP(3);
    }
    avx2_finish(P, A, x, i0, s0l, s0h, y);
    avx2_finish(P, A, x, i0 + 8, s1l, s1h, y + 8);
    avx2_finish(P, A, x, i0 + 16, s2l, s2h, y + 16);
    avx2_finish(P, A, x, i0 + 24, s3l, s3h, y + 24);
}
#undef AVX2_SOFF_GROUP

/* Slice s; contig: contiguous slots by vector loads; loads: the others by scalar loads, not
 * gathers (AVX2_LOADS). */
MIXI_AVX2 static MIXI_INLINE void avx2_sell_slice(mix_prec P, const mixk_sell *A, const float *x, int64_t s,
                                                  float *y, int contig, int loads, int pf)
{
    const int64_t base = A->slice[s], end = A->slice[s + 1] & MIXK_SELL_SLOT_MASK;
    const int32_t i0 = (int32_t)(s * MIXK_SELL_C), xi0 = i0 + (int32_t)mixk_sell_shift(A, s);
    if (contig) sell_col_lookahead(A, s);
    /* Eight rows at a time over all the slots (the slice's slots stay in L1 between groups), so
     * that the two FP64 sums and the row numbers stay in registers. */
    const unsigned masks = contig ? slot_masks(A, base, end) : 0u;
    if (contig && (masks & MIXK_SELL_G32)) {
        avx2_soff_slice(P, A, x, i0, xi0, base, end, pf, y);
        return;
    }
    for (int g = 0; g < MIXK_SELL_C / 8; g++) {
        __m256d lo, hi;
        switch (contig ? slot_mode_of(masks, MIXK_SELL_G8(g)) : SLOT_GATHER) {
        case SLOT_COL: avx2_group(P, A, x, xi0, g, base, end, SLOT_COL, 0, pf, &lo, &hi); break;
        case SLOT_MIXED:
            if (loads) avx2_group(P, A, x, xi0, g, base, end, SLOT_MIXED, 1, pf, &lo, &hi);
            else avx2_group(P, A, x, xi0, g, base, end, SLOT_MIXED, 0, pf, &lo, &hi);
            break;
        default:
            if (loads) avx2_group(P, A, x, xi0, g, base, end, SLOT_GATHER, 1, pf, &lo, &hi);
            else avx2_group(P, A, x, xi0, g, base, end, SLOT_GATHER, 0, pf, &lo, &hi);
            break;
        }
        avx2_finish(P, A, x, i0 + 8 * g, lo, hi, y + 8 * g);
    }
}

MIXI_AVX2 static MIXI_INLINE void avx512_slice(mix_prec P, int contig, const mixk_sell *A, const float *x,
                                               int64_t s, float *y, int pf)
{
    switch (P) {
    case MIX_FP32: (contig ? mixi_avx512_slice_c_fp32 : mixi_avx512_slice_g_fp32)(A, x, s, y, pf); break;
    case MIX_FP16: (contig ? mixi_avx512_slice_c_fp16 : mixi_avx512_slice_g_fp16)(A, x, s, y, pf); break;
    case MIX_BF16: (contig ? mixi_avx512_slice_c_bf16 : mixi_avx512_slice_g_bf16)(A, x, s, y, pf); break;
    default: (contig ? mixi_avx512_slice_c_fixed16 : mixi_avx512_slice_g_fixed16)(A, x, s, y, pf); break;
    }
}
/* The formats the vector slices load (avx2_vals_pd, avx512_sell_vals); any other format of the
 * table runs the portable rows, so that a new one is correct before it is fast. */
static inline int simd_sell_format(mix_prec P)
{
    return P == MIX_FP32 || P == MIX_FP16 || P == MIX_BF16 || P == MIX_FIXED16;
}
/* The AVX-512 bodies run only where a matrix's tuner offers them, which it does only on a CPU
 * with AVX-512F (mixi_spmv_tuner_init, MIXSOLVE_SPMV_VARIANT included): no check per slice
 * (mixi_cpu_has_avx512f's call and pthread_once there were 0.4-0.6% of a repeated AMG solve,
 * 3-D Poisson 150^3, perf). */
MIXI_AVX2 static MIXI_INLINE void simd_sell_slice(mix_prec P, const mixk_sell *A, const float *x,
                                                  int64_t s, float *y, int code)
{
    const int var = mixi_spmv_body(code), pf = mixi_spmv_pfd(code);
    if (var == MIXI_SPMV_AVX512_CONTIG) avx512_slice(P, 1, A, x, s, y, pf);
    else if (var == MIXI_SPMV_AVX512_GATHER) avx512_slice(P, 0, A, x, s, y, pf);
    else if (var == MIXI_SPMV_AVX2_GATHER) avx2_sell_slice(P, A, x, s, y, 0, 0, pf);
    else if (var == MIXI_SPMV_AVX2_LOADS) avx2_sell_slice(P, A, x, s, y, 1, 1, pf);
    else avx2_sell_slice(P, A, x, s, y, 1, 0, pf);
}

/* A full FIXED16 block (32 values) with the result of mixk_svec_st_block_fixed16: norm = max |x|
 * (NaN if any x is NaN), q = round-to-even(x * inv_step) clamped to +-QMAX, NaN -> 0. */
MIXI_AVX2 static MIXI_INLINE void avx2_fixed16_store(int16_t *q, float *norm, const float *x)
{
    const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 m = _mm256_setzero_ps(), nan = _mm256_setzero_ps();
    for (int t = 0; t < 32; t += 8) {
        const __m256 a = _mm256_and_ps(_mm256_loadu_ps(x + t), absmask);
        m = _mm256_max_ps(a, m);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
    }
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
    const float s = _mm256_movemask_ps(nan) ? mixk_bits_f32(0x7fc00000u) : _mm_cvtss_f32(h);
    const __m256 inv = _mm256_set1_ps(mixk_fixed16_inv_step(s));
    const __m256 hi = _mm256_set1_ps((float)MIXK_FIXED16_QMAX), lo = _mm256_set1_ps(-(float)MIXK_FIXED16_QMAX);
    for (int t = 0; t < 32; t += 16) {
        __m256 a = _mm256_mul_ps(_mm256_loadu_ps(x + t), inv);
        __m256 c = _mm256_mul_ps(_mm256_loadu_ps(x + t + 8), inv);
        a = _mm256_andnot_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q), _mm256_min_ps(_mm256_max_ps(a, lo), hi));
        c = _mm256_andnot_ps(_mm256_cmp_ps(c, c, _CMP_UNORD_Q), _mm256_min_ps(_mm256_max_ps(c, lo), hi));
        /* cvtps2dq rounds to nearest even (the default MXCSR mode); packs keep the order per lane. */
        __m256i w = _mm256_packs_epi32(_mm256_cvtps_epi32(a), _mm256_cvtps_epi32(c));
        w = _mm256_permute4x64_epi64(w, 0xd8);
        _mm256_storeu_si256((__m256i *)(q + t), w);
    }
    *norm = s;
}

/* Eight FP16 (F16C) or BF16 (avx2_lanes.h) values at a time, the rest one by one. */
MIXI_AVX2 static MIXI_INLINE int avx2_load_block(mix_prec P, const mixi_svec *v, int64_t b, int cnt, float *x)
{
    const uint16_t *h = (const uint16_t *)v->val + b * BLK;
    int t = 0;
    if (P == MIX_FP16) {
        for (; t + 8 <= cnt; t += 8)
            _mm256_storeu_ps(x + t, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h + t))));
        for (; t < cnt; t++) x[t] = _cvtsh_ss(h[t]);
        return 1;
    }
    if (P == MIX_BF16) {
        for (; t + 8 <= cnt; t += 8)
            _mm256_storeu_ps(x + t, bf16_lanes_to_f32(_mm256_cvtepu16_epi32(
                                        _mm_loadu_si128((const __m128i *)(h + t)))));
        for (; t < cnt; t++) x[t] = mixk_bf16_to_f32(h[t]);
        return 1;
    }
    return 0;
}

MIXI_AVX2 static MIXI_INLINE int avx2_store_block(mix_prec P, mixi_svec *v, int64_t b, const float *x, int cnt)
{
    uint16_t *h = (uint16_t *)v->val + b * BLK;
    int t = 0;
    if (P == MIX_FP16) {
        for (; t + 8 <= cnt; t += 8)
            _mm_storeu_si128((__m128i *)(h + t), _mm256_cvtps_ph(_mm256_loadu_ps(x + t), 0));
        for (; t < cnt; t++) h[t] = _cvtss_sh(x[t], 0);
        return 1;
    }
    if (P == MIX_BF16) {
        for (; t + 8 <= cnt; t += 8)
            _mm_storeu_si128((__m128i *)(h + t),
                             pack_u16(f32_to_bf16_lanes(_mm256_castps_si256(_mm256_loadu_ps(x + t)))));
        for (; t < cnt; t++) h[t] = mixk_f32_to_bf16(x[t]);
        return 1;
    }
    if (P == MIX_FIXED16 && cnt == BLK) {
        avx2_fixed16_store((int16_t *)v->val + b * BLK, v->norm + b, x);
        return 1;
    }
    return 0;
}

/* <x, v> over a full block in the template's four interleaved FP64 partial sums, held as the
 * lanes of one register (lane j adds t = j mod 4 in element order: the same bits).  The scalar
 * loop kept them in memory and took 13% of a FIXED16 CG solve (perf, 3D Poisson 150^3). */
MIXI_AVX2 static inline double avx2_fold4(__m256d s)
{
    const __m128d h = _mm_hadd_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
    return _mm_cvtsd_f64(h) + _mm_cvtsd_f64(_mm_unpackhi_pd(h, h));
}
MIXI_AVX2 static inline double avx2_dot4_float(const float *x, const float *v)
{
    __m256d s = _mm256_setzero_pd();
    for (int t = 0; t < BLK; t += 4)
        s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + t)),
                                           _mm256_cvtps_pd(_mm_loadu_ps(v + t))));
    return avx2_fold4(s);
}
MIXI_AVX2 static inline double avx2_dot4_double(const double *x, const double *v)
{
    __m256d s = _mm256_setzero_pd();
    for (int t = 0; t < BLK; t += 4)
        s = _mm256_add_pd(s, _mm256_mul_pd(_mm256_loadu_pd(x + t), _mm256_loadu_pd(v + t)));
    return avx2_fold4(s);
}
#define ISA_DOT4(x, v) MIXI_CAT(avx2_dot4_, T)(x, v)

#define ISA avx2
#define T double
#define TACC MIX_FP64
#include "kernels/cpu/sparse_cpu_t.h"
#define ISA_LD_BLOCK(P, v, b, cnt, x) avx2_load_block(P, v, b, cnt, x)
#define ISA_ST_BLOCK(P, v, b, x, cnt) avx2_store_block(P, v, b, x, cnt)
#define ISA_ROW(P, A, x, i, out) \
    ((P) == MIX_FP16 && ((out) = avx2_row_fp16(&A->sell, x->val, i), 1))
/* FIXED16 rows too run over x decoded once per SpMV: measured on 3D Poisson 100^3 (2 threads,
 * Zen3) 3.7 ms per SpMV against 6.3 ms for a masked gather plus horizontal sum per row. */
#define ISA_DECODE_X(P) (mixk_prec_bytes(P) < 4)
/* Full slices that are not escaped run eight rows per vector (the rest row by row). */
#define ISA_SLICE(P, A, xf, b, cnt, v, var)                                                        \
    (mixk_sell_used(P) && simd_sell_format(P) && (cnt) == MIXK_SELL_C &&                            \
     !((A)->sell.slice[b] & MIXK_SELL_ESC) && (simd_sell_slice(P, &(A)->sell, xf, b, v, var), 1))
#define ISA_ROWF(P, A, xf, i, out) \
    ((P) == MIX_FP16 && ((out) = avx2_rowf_fp16(&A->sell, xf, i), 1))
#define T float
#define TACC MIX_FP32
#include "kernels/cpu/sparse_cpu_t.h"
#undef ISA_LD_BLOCK
#undef ISA_ST_BLOCK
#undef ISA_ROW
#undef ISA_ROWF
#undef ISA_SLICE
#undef ISA_DECODE_X
#undef ISA_DOT4

const cpu_svec_kernels *const mixi_cpu_avx2_kernels[MIX_NUM_PREC] = {
    MIXK_STORAGE_FORMATS(MIXI_TABLE_ENTRY)};
#undef ISA
#undef ISA_ATTR
#undef ISA_BLK_INLINE
#else
typedef int mixi_sparse_avx2_none; /* not x86: nothing here (an empty file is not C) */
#endif
