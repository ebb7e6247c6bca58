/* sparse_cpu.c: the CPU backend's sparse operations: CSR copies and conversion, SpMV, fused CG vector kernels. */
#include <math.h>
#include <string.h>
#include "lib/core/clock.h"
#include "lib/core/core.h"
#include "kernels/backend_sparse.h"
#include "kernels/common/spmv_row.h"
#include "kernels/common/sell_plan.h"
#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/sparse_cpu.h"
#include "kernels/cpu/spmv_tune.h"
#include "kernels/cpu/vec_cpu.h"

#define BLK MIXK_SVEC_BLOCK
/* Block bodies are inlined once per trip count (full block / last block) so that the full ones
 * get constant-length, vectorised loops. */
#if defined(__GNUC__)
#define MIXI_INLINE inline __attribute__((always_inline))
#else
#define MIXI_INLINE inline
#endif
#define PAR_MIN 4096 /* below this many rows a parallel region costs more than it saves */
_Static_assert(MIXK_SVEC_BLOCK == MIXK_SVEC_BLOCK, "one FIXED16 vector block size");
_Static_assert(MIXK_SELL_C == MIXK_SVEC_BLOCK, "a SELL slice is a block of the kernels");

struct mixi_spmat {
    mix_prec prec;
    int n;
    int64_t nnz;
    int64_t *rowptr;  /* FP64: plain CSR */
    int32_t *colind;
    int owns_pattern; /* converted FP64 copies share the FP64 copy's pattern */
    void *val;        /* FP64 values, or the SELL slots' values */
    mixk_sell sell;   /* every other format: the SELL-32 layout (kernels/common/sell.h) ... */
    int64_t *slice, *eslice, *erp; /* ... whose arrays this matrix owns */
    int16_t *col;
    int32_t *ecol;
    void *eval, *diag;
    uint8_t *rexp;    /* FIXED16: the exponent byte of each row's step */
    uint8_t *smask;   /* contiguous slots (kernels/common/sell.h) */
    int16_t *soff;
    int64_t slot_rows, contig_rows; /* slot rows, and those contiguous over all 32 rows */
    mixi_spmv_tuner *tune; /* its SpMV variant (kernels/cpu/spmv_tune.h); the matrix is const to its users */
    int64_t bytes;    /* what one SpMV reads of the matrix */
    float *xf;        /* 16-bit formats: x decoded once per SpMV (one SpMV at a time) */
};

typedef struct {
    void (*spmv)(const mixi_spmat *A, const mixi_svec *x, mixi_svec *y, double *xy, int var);
    void (*cg_update)(double alpha, const mixi_svec *p, const mixi_svec *ap, mixi_svec *x,
                      mixi_svec *r, double *rr, double *rd);
    void (*axpby)(double a, const mixi_svec *x, double b, mixi_svec *y);
    double (*dot)(const mixi_svec *x, const mixi_svec *y);
    double (*from64)(const double *x, const double *scale, double alpha, mixi_svec *v);
    void (*accum64)(const mixi_svec *v, const double *scale, double alpha, double *y);
} cpu_svec_kernels;

/* FP64 CSR row i's values and column indices MIXI_SPMV_CSR_PF_BYTES(pfd) ahead into L1: the
 * hardware prefetchers stop at 4 KiB page boundaries, and a row of a stencil is ~0.1 KiB.
 * Addresses past the arrays' ends do not fault (computed as integers: no out-of-bounds pointer
 * arithmetic). */
static MIXI_INLINE void csr_prefetch(const mixi_spmat *A, int64_t i, int pfd)
{
#if defined(__GNUC__)
    const uintptr_t k = (uintptr_t)A->rowptr[i], ahead = (uintptr_t)MIXI_SPMV_CSR_PF_BYTES(pfd);
    __builtin_prefetch((const void *)((uintptr_t)A->val + k * sizeof(double) + ahead));
    __builtin_prefetch((const void *)((uintptr_t)A->colind + k * sizeof *A->colind + ahead));
#else
    (void)A, (void)i, (void)pfd;
#endif
}

/* Token helpers of the template (kernels/cpu/sparse_cpu_t.h): pasting after expansion, and
 * MIXI_WHEN_SAME(a, b, code): `code` when the accumulators a and b are the same precision. */
#define MIXI_CAT_(a, b) a##b
#define MIXI_CAT(a, b) MIXI_CAT_(a, b)
#define MIXI_CAT3_(a, b, c) a##b##c
#define MIXI_CAT3(a, b, c) MIXI_CAT3_(a, b, c)
#define MIXI_CAT4_(a, b, c, d) a##b##c##d
#define MIXI_CAT4(a, b, c, d) MIXI_CAT4_(a, b, c, d)
#define MIXI_WHEN_SAME_(a, b, ...) MIXI_WHEN_##a##_##b(__VA_ARGS__)
#define MIXI_WHEN_SAME(a, b, ...) MIXI_WHEN_SAME_(a, b, __VA_ARGS__)
#define MIXI_WHEN_MIX_FP64_MIX_FP64(...) __VA_ARGS__
#define MIXI_WHEN_MIX_FP32_MIX_FP32(...) __VA_ARGS__
#define MIXI_WHEN_MIX_FP64_MIX_FP32(...)
#define MIXI_WHEN_MIX_FP32_MIX_FP64(...)

/* Kernel table entry of each storage format of prec_traits.h for one ISA. */
#define MIXI_TABLE_ENTRY(PP, SFX, B, E, M, MAXF, OVF, ACC, SC, GE) \
    [PP] = &MIXI_CAT3(ISA, _##SFX, _kernels),

/* The kernels of every storage format: portable C ... */
#define ISA generic
#define ISA_ATTR /* no target attribute: the baseline ISA */
#define ISA_BLK_INLINE MIXI_INLINE
#define T double
#define TACC MIX_FP64
#include "kernels/cpu/sparse_cpu_t.h"
#define T float
#define TACC MIX_FP32
#include "kernels/cpu/sparse_cpu_t.h"
static const cpu_svec_kernels *const generic_kernels[MIX_NUM_PREC] = {
    MIXK_STORAGE_FORMATS(MIXI_TABLE_ENTRY)};
#undef ISA
#undef ISA_ATTR
#undef ISA_BLK_INLINE

/* ... and the same compiled for AVX2 + F16C (chosen at run time), FP16 converted by the
 * hardware (same values: both round to nearest even), BF16 eight lanes at a time, full FIXED16
 * blocks encoded with vector instructions.  No FMA: contracted products would round
 * differently from the portable bodies and from kernels/common's encoders. */
/* Every function of this ISA carries the target attribute (ISA_ATTR), which GCC and clang both
 * honour, rather than a GCC-only "#pragma GCC target" region; the kernels/common functions they
 * inline take the caller's ISA. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define MIX_SPARSE_AVX2 1
#include <immintrin.h>
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
    return (float)(s + (double)F16C_LDA(A->diag, i) * (double)F16C_LD(x, NULL, i));
}
MIXI_AVX2 static inline float avx2_rowf_fp16(const mixk_sell *A, const float *x, int64_t i)
{
    MIXK_SELL_SUM(s, F16C_LDA, MIXK_LDX_F32)
    return (float)(s + (double)F16C_LDA(A->diag, i) * (double)x[i]);
}

/* How a group of rows of a slice loads x (`contig` variants): per slot row a gather or, where its
 * mask says the group shares one offset, one vector load (SLOT_MIXED, a test per slot); or the
 * same for every slot row (SLOT_COL: the offset from col, no test); or every slot row contiguous
 * over all 32 rows (SLOT_SOFF: the offsets from soff, col never read). */
enum { SLOT_GATHER, SLOT_MIXED, SLOT_COL, SLOT_SOFF };
/* The AND and the OR of the mask bytes of the slot rows [base, end): a slice's modes for all its
 * row groups from one scan (the AVX2 body scanned once per group, ~8% of its instructions). */
static inline unsigned slot_masks(const mixk_sell *A, int64_t base, int64_t end)
{
    unsigned all = 0xffu, any = 0u;
    for (int64_t r = base / MIXK_SELL_C; r < end / MIXK_SELL_C; r++) {
        all &= A->smask[r];
        any |= A->smask[r];
    }
    return all | any << 8;
}
static inline int slot_mode_of(unsigned masks, unsigned bit)
{
    const unsigned all = masks & 0xffu, any = masks >> 8;
    return all & MIXK_SELL_G32 ? SLOT_SOFF : all & bit ? SLOT_COL : any & bit ? SLOT_MIXED : SLOT_GATHER;
}

/* The slot row pf rows ahead of slot k: its values and (col) offsets into L1.  Addresses past
 * the arrays' ends do not fault (computed as integers: no out-of-bounds pointer arithmetic). */
static MIXI_INLINE void sell_prefetch(mix_prec P, const mixk_sell *A, int64_t k, int pf, int col)
{
    const uintptr_t kp = (uintptr_t)(k + (int64_t)pf * MIXK_SELL_C);
    _mm_prefetch((const char *)((uintptr_t)A->val + kp * (uintptr_t)mixk_prec_bytes(P)), _MM_HINT_T0);
    if (col) _mm_prefetch((const char *)((uintptr_t)A->col + kp * sizeof *A->col), _MM_HINT_T0);
}
/* Contiguous bodies: the column offsets of slice s + SELL_COL_AHEAD into L1 where that slice
 * will read them (not every slot row contiguous over its 32 rows).  The slices that skip col
 * leave its stream too sparse for the hardware prefetcher, so each slice that needs col stalled
 * on it before its gathers could start: 3D Poisson 150^3, FIXED16, 2 threads, the matrix from
 * DRAM, avx512-contig took 5.8 ms against the gathering body's 5.1 (which reads col everywhere);
 * with this 4.7 ms (lookahead 2 to 8 slices alike, 1 too short). */
#define SELL_COL_AHEAD 4
static MIXI_INLINE void sell_col_lookahead(const mixk_sell *A, int64_t s)
{
    const int64_t t = s + SELL_COL_AHEAD;
    if (t >= mixk_sell_nslice(A->n) || (A->slice[t] & MIXK_SELL_ESC)) return;
    const int64_t base = A->slice[t], end = A->slice[t + 1] & MIXK_SELL_SLOT_MASK;
    if (base == end || (slot_masks(A, base, end) & MIXK_SELL_G32)) return; /* all contiguous */
    for (int64_t k = base; k < end; k += MIXK_SELL_C) _mm_prefetch((const char *)(A->col + k), _MM_HINT_T0);
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

/* Group g's eight rows of the slice [base, end): the FP64 sums of their slots, in slot order. */
MIXI_AVX2 static MIXI_INLINE void avx2_group(mix_prec P, const mixk_sell *A, const float *x, int32_t i0,
                                             int g, int64_t base, int64_t end, int mode, int pf,
                                             __m256d *plo, __m256d *phi)
{
    const __m256i row = _mm256_add_epi32(_mm256_set1_epi32(i0 + 8 * g), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
    for (int64_t k = base + 8 * g; k < end; k += MIXK_SELL_C) {
        const int64_t r = k / MIXK_SELL_C;
        __m256d xl, xh, al, ah;
        if (pf) sell_prefetch(P, A, k, pf, mode != SLOT_SOFF);
        if (mode == SLOT_SOFF || mode == SLOT_COL ||
            (mode == SLOT_MIXED && (A->smask[r] & MIXK_SELL_G8(g)))) { /* x read contiguously */
            const int d = mode == SLOT_SOFF ? A->soff[r] : A->col[k];
            avx2_vals_pd(MIX_FP32, x, i0 + 8 * g + d, &xl, &xh);
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

MIXI_AVX2 static MIXI_INLINE void avx2_sell_slice(mix_prec P, const mixk_sell *A, const float *x, int64_t s,
                                                  float *y, int contig, int pf)
{
    const int64_t base = A->slice[s], end = A->slice[s + 1] & MIXK_SELL_SLOT_MASK;
    const int32_t i0 = (int32_t)(s * MIXK_SELL_C);
    if (contig) sell_col_lookahead(A, s);
    /* Eight rows at a time over all the slots (the slice's slots stay in L1 between groups), so
     * that the two FP64 sums and the row numbers stay in registers. */
    const unsigned masks = contig ? slot_masks(A, base, end) : 0u;
    for (int g = 0; g < MIXK_SELL_C / 8; g++) {
        __m256d lo, hi;
        switch (contig ? slot_mode_of(masks, MIXK_SELL_G8(g)) : SLOT_GATHER) {
        case SLOT_SOFF: avx2_group(P, A, x, i0, g, base, end, SLOT_SOFF, pf, &lo, &hi); break;
        case SLOT_COL: avx2_group(P, A, x, i0, g, base, end, SLOT_COL, pf, &lo, &hi); break;
        case SLOT_MIXED: avx2_group(P, A, x, i0, g, base, end, SLOT_MIXED, pf, &lo, &hi); break;
        default: avx2_group(P, A, x, i0, g, base, end, SLOT_GATHER, pf, &lo, &hi); break;
        }
        const int64_t i = i0 + 8 * g;
        __m256d xl, xh, dl, dh;
        avx2_vals_pd(MIX_FP32, x, i, &xl, &xh);
        if (P == MIX_FIXED16) {
            const __m256i e = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(A->rexp + i)));
            const __m256 h = _mm256_castsi256_ps(_mm256_slli_epi32(e, 23));
            const __m256d c = _mm256_set1_pd((double)A->fmant); /* h c: exact */
            lo = _mm256_mul_pd(lo, _mm256_mul_pd(c, _mm256_cvtps_pd(_mm256_castps256_ps128(h))));
            hi = _mm256_mul_pd(hi, _mm256_mul_pd(c, _mm256_cvtps_pd(_mm256_extractf128_ps(h, 1))));
            avx2_vals_pd(MIX_FP32, A->diag, i, &dl, &dh); /* FIXED16's diagonal: floats */
        } else {
            avx2_vals_pd(P, A->diag, i, &dl, &dh);
        }
        lo = _mm256_fmadd_pd(dl, xl, lo);
        hi = _mm256_fmadd_pd(dh, xh, hi);
        _mm256_storeu_ps(y + 8 * g, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
    }
}

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

/* Both 16-row groups of a slice in one pass over its slot rows (each slot row's offsets and
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
 * diagonal product is added (exact, so fused as above) and the sums rounded once. */
MIXI_AVX512 static MIXI_INLINE void avx512_finish(mix_prec P, const mixk_sell *A, const float *x, int64_t i,
                                                  __m512d lo, __m512d hi, float *y)
{
    const __m512 xi = _mm512_loadu_ps(x + i);
    __m512d dl, dh;
    if (P == MIX_FIXED16) {
        const __m512i e = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(A->rexp + i)));
        const __m512 h = _mm512_castsi512_ps(_mm512_slli_epi32(e, 23));
        const __m512d c = _mm512_set1_pd((double)A->fmant); /* h c: exact */
        lo = _mm512_mul_pd(lo, _mm512_mul_pd(c, avx512_lo_pd(h)));
        hi = _mm512_mul_pd(hi, _mm512_mul_pd(c, avx512_hi_pd(h)));
        avx512_vals_pd(MIX_FP32, A->diag, i, &dl, &dh);
    } else {
        avx512_vals_pd(P, A->diag, i, &dl, &dh);
    }
    AVX512_ACC(lo, dl, avx512_lo_pd(xi));
    AVX512_ACC(hi, dh, avx512_hi_pd(xi));
    _mm256_storeu_ps(y, _mm512_cvtpd_ps(lo));
    _mm256_storeu_ps(y + 8, _mm512_cvtpd_ps(hi));
}

MIXI_AVX512 static MIXI_INLINE void avx512_sell_slice(mix_prec P, const mixk_sell *A, const float *x,
                                                      int64_t s, float *y, int contig, int pf)
{
    const int64_t base = A->slice[s], end = A->slice[s + 1] & MIXK_SELL_SLOT_MASK;
    const int32_t i0 = (int32_t)(s * MIXK_SELL_C);
    int mode[2] = {SLOT_GATHER, SLOT_GATHER};
    if (contig) sell_col_lookahead(A, s);
    const unsigned masks = contig ? slot_masks(A, base, end) : 0u;
    if (contig) mode[0] = slot_mode_of(masks, MIXK_SELL_G16(0));
    if (contig && mode[0] != SLOT_SOFF) mode[1] = slot_mode_of(masks, MIXK_SELL_G16(1));
    const int mode0 = mode[0];
    if (mode0 == SLOT_SOFF || (mode0 == SLOT_GATHER && mode[1] == SLOT_GATHER)) { /* both alike */
        __m512d sum[4];
        if (mode0 == SLOT_SOFF) avx512_pair(P, A, x, i0, base, end, 1, pf, sum);
        else avx512_pair(P, A, x, i0, base, end, 0, pf, sum);
        avx512_finish(P, A, x, i0, sum[0], sum[1], y);
        avx512_finish(P, A, x, i0 + 16, sum[2], sum[3], y + 16);
        return;
    }
    for (int g = 0; g < MIXK_SELL_C / 16; g++) {
        __m512d lo, hi;
        switch (mode[g]) {
        case SLOT_COL: avx512_group(P, A, x, i0, g, base, end, SLOT_COL, pf, &lo, &hi); break;
        case SLOT_MIXED: avx512_group(P, A, x, i0, g, base, end, SLOT_MIXED, pf, &lo, &hi); break;
        default: avx512_group(P, A, x, i0, g, base, end, SLOT_GATHER, pf, &lo, &hi); break;
        }
        avx512_finish(P, A, x, i0 + 16 * g, lo, hi, y + 16 * g);
    }
}
/* The slice bodies of the SpMV variants (kernels/cpu/spmv_tune.h): one AVX-512 function per
 * format and load mode (an AVX-512 body cannot inline into the AVX2 callers; with the format a
 * constant in it, no switch on it runs per slot: perf annotate showed one in the hot loop); an
 * AVX-512 variant asked of a CPU without it runs AVX2's. */
#define AVX512_SLICES(PP, SFX)                                                                     \
    MIXI_AVX512 static void avx512_slice_c_##SFX(const mixk_sell *A, const float *x, int64_t s,     \
                                                 float *y, int pf)                                 \
    {                                                                                              \
        avx512_sell_slice(PP, A, x, s, y, 1, pf);                                                  \
    }                                                                                              \
    MIXI_AVX512 static void avx512_slice_g_##SFX(const mixk_sell *A, const float *x, int64_t s,     \
                                                 float *y, int pf)                                 \
    {                                                                                              \
        avx512_sell_slice(PP, A, x, s, y, 0, pf);                                                  \
    }
AVX512_SLICES(MIX_FP32, fp32)
AVX512_SLICES(MIX_FP16, fp16)
AVX512_SLICES(MIX_BF16, bf16)
AVX512_SLICES(MIX_FIXED16, fixed16)
#undef AVX512_SLICES
MIXI_AVX2 static MIXI_INLINE void avx512_slice(mix_prec P, int contig, const mixk_sell *A, const float *x,
                                               int64_t s, float *y, int pf)
{
    switch (P) {
    case MIX_FP32: (contig ? avx512_slice_c_fp32 : avx512_slice_g_fp32)(A, x, s, y, pf); break;
    case MIX_FP16: (contig ? avx512_slice_c_fp16 : avx512_slice_g_fp16)(A, x, s, y, pf); break;
    case MIX_BF16: (contig ? avx512_slice_c_bf16 : avx512_slice_g_bf16)(A, x, s, y, pf); break;
    default: (contig ? avx512_slice_c_fixed16 : avx512_slice_g_fixed16)(A, x, s, y, pf); break;
    }
}
/* The formats the vector slices load (avx2_vals_pd, avx512_sell_vals); any other format of the
 * table runs the portable rows, so that a new one is correct before it is fast. */
static inline int simd_sell_format(mix_prec P)
{
    return P == MIX_FP32 || P == MIX_FP16 || P == MIX_BF16 || P == MIX_FIXED16;
}
MIXI_AVX2 static MIXI_INLINE void simd_sell_slice(mix_prec P, const mixk_sell *A, const float *x,
                                                  int64_t s, float *y, int code)
{
    const int wide = mixi_cpu_has_avx512f(), var = mixi_spmv_body(code), pf = mixi_spmv_pfd(code);
    if (var == MIXI_SPMV_AVX512_CONTIG && wide) avx512_slice(P, 1, A, x, s, y, pf);
    else if (var == MIXI_SPMV_AVX512_GATHER && wide) avx512_slice(P, 0, A, x, s, y, pf);
    else if (var == MIXI_SPMV_AVX2_GATHER) avx2_sell_slice(P, A, x, s, y, 0, pf);
    else avx2_sell_slice(P, A, x, s, y, 1, pf);
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

static const cpu_svec_kernels *const avx2_kernels[MIX_NUM_PREC] = {
    MIXK_STORAGE_FORMATS(MIXI_TABLE_ENTRY)};
#undef ISA
#undef ISA_ATTR
#undef ISA_BLK_INLINE
#endif

static int force_portable;

void mixi_cpu_sparse_force_portable(int on) { force_portable = on; }
int mixi_cpu_sparse_portable_forced(void) { return force_portable; }

const mixk_sell *mixi_cpu_spmat_sell(const mixi_spmat *A)
{
    return A && mixk_sell_used(A->prec) ? &A->sell : NULL;
}

int mixi_cpu_spmat_csr(const mixi_spmat *A, int *n, const int64_t **rowptr,
                       const int32_t **colind, const double **val)
{
    if (!A || A->prec != MIX_FP64) return MIX_ERR_INVALID_ARG;
    *n = A->n;
    *rowptr = A->rowptr;
    *colind = A->colind;
    *val = A->val;
    return MIX_SUCCESS;
}

static const cpu_svec_kernels *kernels_for(mix_prec p)
{
    if (!mixk_prec_storage(p)) return NULL;
#ifdef MIX_SPARSE_AVX2
    /* Asked each time (probed once per process under pthread_once): a lazily filled static
     * here was a data race between threads solving at once (ThreadSanitizer, tests/threads). */
    if (mixi_cpu_has_f16c() && !force_portable) return avx2_kernels[p];
#endif
    return generic_kernels[p];
}

static void tuner_init(mixi_spmv_tuner *T, mix_prec prec)
{
#ifdef MIX_SPARSE_AVX2
    const int avx2 = mixi_cpu_has_f16c() && !force_portable;
    mixi_spmv_tuner_init(T, prec, avx2, avx2 && mixi_cpu_has_avx512f());
#else
    mixi_spmv_tuner_init(T, prec, 0, 0);
#endif
}

static void spmat_free(mixi_spmat *A)
{
    if (!A) return;
    if (A->owns_pattern) {
        mixi_free(A->rowptr);
        mixi_free(A->colind);
    }
    mixi_free(A->val);
    mixi_free(A->slice);
    mixi_free(A->eslice);
    mixi_free(A->erp);
    mixi_free(A->col);
    mixi_free(A->ecol);
    mixi_free(A->eval);
    mixi_free(A->diag);
    mixi_free(A->rexp);
    mixi_free(A->smask);
    mixi_free(A->tune);
    mixi_free(A->soff);
    mixi_free(A->xf);
    mixi_free(A);
}

static void cpu_csr_destroy(void *state, mixi_spmat *A)
{
    (void)state;
    spmat_free(A);
}

static int cpu_csr_create(void *state, int n, const int64_t *rowptr, const int32_t *colind,
                          const double *val, mixi_spmat **out)
{
    (void)state;
    *out = NULL;
    if (n <= 0 || !rowptr) return MIX_ERR_INVALID_ARG;
    const int64_t nnz = rowptr[n];
    size_t nz = (size_t)(nnz > 0 ? nnz : 1);
    mixi_spmat *A = mixi_calloc(1, sizeof *A);
    if (!A) return MIX_ERR_ALLOC;
    A->prec = MIX_FP64;
    A->n = n;
    A->nnz = nnz;
    A->owns_pattern = 1;
    A->rowptr = mixi_malloc(((size_t)n + 1) * sizeof *A->rowptr);
    A->colind = mixi_malloc(nz * sizeof *A->colind);
    A->val = mixi_malloc(nz * sizeof(double));
    A->tune = mixi_malloc(sizeof *A->tune); /* unscaled FP64 storage runs on this matrix itself */
    if (A->tune) tuner_init(A->tune, MIX_FP64);
    if (!A->rowptr || !A->colind || !A->val || !A->tune) {
        spmat_free(A);
        return MIX_ERR_ALLOC;
    }
    A->bytes = ((int64_t)n + 1) * 8 + nnz * (8 + 4);
    memcpy(A->rowptr, rowptr, ((size_t)n + 1) * sizeof *A->rowptr);
    if (nnz > 0) {
        memcpy(A->colind, colind, (size_t)nnz * sizeof *A->colind);
        memcpy(A->val, val, (size_t)nnz * sizeof(double));
    }
    *out = A;
    return MIX_SUCCESS;
}

/* An FP64 copy diag(scale) A64 diag(scale) in plain CSR, sharing A64's pattern. */
static int convert_fp64(const mixi_spmat *A64, const double *scale, mixi_spmat *A)
{
    const int n = A64->n;
    A->rowptr = A64->rowptr;
    A->colind = A64->colind;
    A->bytes = A64->bytes;
    A->val = mixi_malloc((size_t)(A64->nnz > 0 ? A64->nnz : 1) * sizeof(double));
    if (!A->val) return MIX_ERR_ALLOC;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++) mixk_csr_row_fp64(A64->rowptr, A64->colind, A64->val, scale, i, A->val);
    return MIX_SUCCESS;
}

/* Alloc of the SELL arrays sized by z (64 bytes of padding: vector loads may read past the end). */
static int sell_alloc(const mixk_sell_sizes *z, mix_prec prec, mixi_spmat *A)
{
    const int fixed = mixk_prec_block_scaled(prec), narrow = mixk_prec_bytes(prec) < 4;
    const size_t el = (size_t)mixk_prec_bytes(prec), del = fixed ? sizeof(float) : el;
    const size_t n = (size_t)z->n, ns = (size_t)z->nslice, nr = (size_t)mixk_sell_slot_rows(z->nslots);
    A->slice = mixi_malloc((ns + 1) * sizeof *A->slice);
    A->col = mixi_malloc((size_t)z->nslots * sizeof *A->col + 64);
    A->val = mixi_malloc((size_t)z->nslots * el + 64);
    A->diag = mixi_malloc(n * del + 64);
    A->smask = mixi_malloc(nr + 64);
    A->soff = mixi_malloc(nr * sizeof *A->soff + 64);
    if (fixed) A->rexp = mixi_malloc(n + 64);
    if (z->nerp) {
        const size_t ne = (size_t)(z->nesc > 0 ? z->nesc : 1);
        A->eslice = mixi_malloc(ns * sizeof *A->eslice);
        A->erp = mixi_malloc((size_t)z->nerp * sizeof *A->erp);
        A->ecol = mixi_malloc(ne * sizeof *A->ecol);
        A->eval = mixi_malloc(ne * el);
    }
    if (narrow) A->xf = mixi_malloc((n + BLK) * sizeof(float)); /* decoded x */
    if (!A->slice || !A->col || !A->val || !A->diag || !A->smask || !A->soff || (fixed && !A->rexp) ||
        (z->nerp && (!A->eslice || !A->erp || !A->ecol || !A->eval)) || (narrow && !A->xf))
        return MIX_ERR_ALLOC;
    return MIX_SUCCESS;
}

/* Each row's columns and values (kernels/common/spmv_row.h), then the slot metadata; returns
 * how many rows did not fit the format. */
static long sell_fill(const mixi_spmat *A64, mix_prec prec, const double *scale,
                      const double *rowmax, mixi_spmat *A)
{
    const int n = A64->n;
    const mixk_sell_out o = {A->col, A->val, A->ecol, A->eval, A->diag, A->rexp, rowmax};
    long overflow = 0;
#pragma omp parallel for reduction(+ : overflow) schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++) {
#define FILL_ROW(PP, SFX, ...)                                                                    \
    case PP:                                                                                      \
        overflow += mixk_sell_fill_row_##SFX(&A->sell, A64->rowptr, A64->colind, A64->val, scale, \
                                             i, &o);                                              \
        break;
        switch (prec) {
            MIXK_STORAGE_FORMATS(FILL_ROW)
        default: break;
        }
#undef FILL_ROW
    }
    const int64_t ns = mixk_sell_nslice(n);
    int64_t full = 0;
#pragma omp parallel for reduction(+ : full) schedule(static) if (n > PAR_MIN)
    for (int64_t s = 0; s < ns; s++) full += mixk_sell_slot_meta(&A->sell, s, A->smask, A->soff);
    A->contig_rows = full;
    return overflow;
}

/* FIXED16: the largest off-diagonal magnitude gives the steps' mantissa (HUGE_VAL for a NaN). */
static double sell_gmax(const mixi_spmat *A64, const double *scale)
{
    const int n = A64->n;
    double gmax = 0.0;
#pragma omp parallel for reduction(max : gmax) schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++) {
        const double m = mixk_fixed16_row_offmax(A64->rowptr, A64->colind, A64->val, scale, i);
        gmax = m != m ? HUGE_VAL : m > gmax ? m : gmax;
    }
    return gmax;
}

/* A SELL-32 copy (kernels/common/sell.h) in `prec`: the layout planned by
 * kernels/common/sell_plan.h, then each row's columns and values (FIXED16: the row scales
 * rowmax and gmax where rowmax is given, cpu_csr_convert_rows). */
static int convert_sell(const mixi_spmat *A64, mix_prec prec, const double *scale,
                        const double *rowmax, double gmax, mixi_spmat *A)
{
    const int n = A64->n;
    const int fixed = mixk_prec_block_scaled(prec);
    int64_t *cnt = mixi_malloc((size_t)n * sizeof *cnt);
    unsigned char *far = mixi_malloc((size_t)n);
    mixk_sell_sizes z;
    int st = cnt && far ? MIX_SUCCESS : MIX_ERR_ALLOC;
    if (!st) {
        mixk_sell_plan_count(n, A64->rowptr, A64->colind, cnt, far, &z);
        st = sell_alloc(&z, prec, A);
    }
    if (!st) {
        mixk_sell_plan_layout(cnt, far, &z, A->slice, A->eslice, A->erp);
        if (fixed && !rowmax) gmax = sell_gmax(A64, scale);
        A->sell = (mixk_sell){.n = n, .slice = A->slice, .col = A->col, .val = A->val,
                              .diag = A->diag, .rexp = A->rexp, .fmant = mixk_fixed16_mant(gmax),
                              .eslice = A->eslice, .erp = A->erp, .ecol = A->ecol, .eval = A->eval,
                              .smask = A->smask, .soff = A->soff};
        A->bytes = mixk_sell_plan_bytes(&z, prec);
        A->slot_rows = mixk_sell_slot_rows(z.nslots);
        if (sell_fill(A64, prec, scale, fixed ? rowmax : NULL, A)) st = MIX_ERR_OVERFLOW;
    }
    mixi_free(cnt);
    mixi_free(far);
    return st;
}

static int cpu_csr_convert_rows(void *state, const mixi_spmat *A64, mix_prec prec,
                                const double *scale, const double *rowmax, double gmax,
                                mixi_spmat **out)
{
    (void)state;
    *out = NULL;
    if (!mixk_prec_storage(prec)) return MIX_ERR_INVALID_ARG;
    mixi_spmat *A = mixi_calloc(1, sizeof *A);
    if (!A) return MIX_ERR_ALLOC;
    A->prec = prec;
    A->n = A64->n;
    A->nnz = A64->nnz;
    A->tune = mixi_malloc(sizeof *A->tune);
    int st = !A->tune ? MIX_ERR_ALLOC
             : mixk_sell_used(prec) ? convert_sell(A64, prec, scale, rowmax, gmax, A)
                                    : convert_fp64(A64, scale, A);
    if (A->tune) tuner_init(A->tune, prec);
    if (st) {
        spmat_free(A);
        return st;
    }
    *out = A;
    return MIX_SUCCESS;
}

static int cpu_csr_convert(void *state, const mixi_spmat *A64, mix_prec prec, const double *scale,
                           mixi_spmat **out)
{
    return cpu_csr_convert_rows(state, A64, prec, scale, NULL, 0.0, out);
}

static int cpu_csr_row_offmax(void *state, const mixi_spmat *A64, const double *scale, double *rowmax)
{
    (void)state;
    const int n = A64->n;
#pragma omp parallel for schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++)
        rowmax[i] = mixk_fixed16_row_offmax(A64->rowptr, A64->colind, A64->val, scale, i);
    return MIX_SUCCESS;
}

/* Bytes one SpMV reads of the matrix: values, diagonal and every index array (FIXED16:
 * exponent bytes too). */
static int cpu_csr_bytes(void *state, const mixi_spmat *A, int64_t *bytes)
{
    (void)state;
    *bytes = A->bytes;
    return MIX_SUCCESS;
}

static int cpu_diag_rsqrt(void *state, const mixi_spmat *A, double *scale)
{
    (void)state;
    const double *a = A->val;
    int bad = 0;
#pragma omp parallel for reduction(| : bad) schedule(static) if (A->n > PAR_MIN)
    for (int i = 0; i < A->n; i++) {
        double d = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) d = a[k];
        if (d > 0.0) scale[i] = 1.0 / sqrt(d);
        else {
            scale[i] = 1.0;
            bad = 1;
        }
    }
    return bad ? MIX_ERR_NOT_SPD : MIX_SUCCESS;
}

static int cpu_residual64(void *state, const mixi_spmat *A, const double *b, const double *x,
                          double *r, double *rr)
{
    (void)state;
    double acc = 0.0;
#pragma omp parallel for reduction(+ : acc) schedule(static) if (A->n > PAR_MIN)
    for (int i = 0; i < A->n; i++) {
        r[i] = b[i] - mixk_spmv_row_fp64(A->rowptr, A->colind, A->val, x, NULL, i);
        acc += r[i] * r[i];
    }
    *rr = acc;
    return MIX_SUCCESS;
}

static int cpu_nrm2sq64(void *state, int n, const double *x, double *xx)
{
    (void)state;
    double acc = 0.0;
#pragma omp parallel for reduction(+ : acc) schedule(static) if (n > PAR_MIN)
    for (int i = 0; i < n; i++) acc += x[i] * x[i];
    *xx = acc;
    return MIX_SUCCESS;
}

static int cpu_vec_from64(void *state, const double *x, const double *scale, double alpha,
                          mixi_svec *v, double *vv)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(v->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    double s = k->from64(x, scale, alpha, v);
    if (vv) *vv = s;
    return MIX_SUCCESS;
}

static int cpu_vec_accum64(void *state, const mixi_svec *v, const double *scale, double alpha,
                           double *y)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(v->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    k->accum64(v, scale, alpha, y);
    return MIX_SUCCESS;
}

static int cpu_vec_zero(void *state, mixi_svec *v)
{
    (void)state;
    size_t vb, nb;
    int st = mixi_svec_bytes(v->prec, v->n, &vb, &nb);
    if (st) return st;
    memset(v->val, 0, vb);
    if (nb) memset(v->norm, 0, nb);
    return MIX_SUCCESS;
}

static int cpu_spmv(void *state, const mixi_spmat *A, const mixi_svec *x, mixi_svec *y, double *xy)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(A->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    const mix_prec vp = x->prec == A->prec ? A->prec : mixk_prec_acc(A->prec);
    if (x->prec != vp || y->prec != vp) return MIX_ERR_UNSUPPORTED;
    mixi_spmv_tuner *T = A->tune;
    const int var = T ? mixi_spmv_tuner_next(T) : MIXI_SPMV_PORTABLE;
    if (var == MIXI_SPMV_PORTABLE) k = generic_kernels[A->prec];
    if (!T || !mixi_spmv_tuner_timing(T)) {
        k->spmv(A, x, y, xy, var);
        return MIX_SUCCESS;
    }
    /* Tuning: this SpMV, timed, is one of the table's (its result is the caller's). */
    const double t0 = mixi_wtime();
    k->spmv(A, x, y, xy, var);
    const double t = mixi_wtime() - t0;
    size_t vb = 16, nb = 0;
    mixi_svec_bytes(vp, A->n, &vb, &nb);
    mixi_spmv_tuner_done(T, A->prec, var, t, (double)A->bytes + 2.0 * (double)(vb - 16 + nb));
    return MIX_SUCCESS;
}

static double cpu_spmv_rate(mix_prec storage) { return mixi_spmv_rate(storage); }

static const char *cpu_spmv_variant(void *state, const mixi_spmat *A)
{
    (void)state;
    return A && A->tune ? mixi_spmv_tuner_choice(A->tune) : NULL;
}

const char *mixi_cpu_spmv_variant(const mixi_spmat *A, double *contig)
{
    if (contig) *contig = A && A->slot_rows ? (double)A->contig_rows / (double)A->slot_rows : 0.0;
    return cpu_spmv_variant(NULL, A);
}

static int cpu_cg_update(void *state, double alpha, const mixi_svec *p, const mixi_svec *ap,
                         mixi_svec *x, mixi_svec *r, double *rr, double *rd)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(p->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    if (ap->prec != p->prec || (x->prec != p->prec && x->prec != mixk_prec_acc(p->prec)) ||
        r->prec != p->prec)
        return MIX_ERR_UNSUPPORTED;
    k->cg_update(alpha, p, ap, x, r, rr, rd);
    return MIX_SUCCESS;
}

static int cpu_axpby(void *state, double a, const mixi_svec *x, double b, mixi_svec *y)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(x->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    if (y->prec != x->prec) return MIX_ERR_UNSUPPORTED;
    k->axpby(a, x, b, y);
    return MIX_SUCCESS;
}

static int cpu_dot(void *state, const mixi_svec *x, const mixi_svec *y, double *xy)
{
    (void)state;
    const cpu_svec_kernels *k = kernels_for(x->prec);
    if (!k) return MIX_ERR_INVALID_ARG;
    if (y->prec != x->prec) return MIX_ERR_UNSUPPORTED;
    *xy = k->dot(x, y);
    return MIX_SUCCESS;
}

const mixi_sparse_ops mixi_cpu_sparse_ops = {
    .csr_create = cpu_csr_create,
    .csr_convert = cpu_csr_convert,
    .csr_row_offmax = cpu_csr_row_offmax,
    .csr_convert_rows = cpu_csr_convert_rows,
    .csr_destroy = cpu_csr_destroy,
    .csr_bytes = cpu_csr_bytes,
    .diag_rsqrt = cpu_diag_rsqrt,
    .residual64 = cpu_residual64,
    .nrm2sq64 = cpu_nrm2sq64,
    .vec_from64 = cpu_vec_from64,
    .vec_accum64 = cpu_vec_accum64,
    .vec_zero = cpu_vec_zero,
    .spmv = cpu_spmv,
    .cg_update = cpu_cg_update,
    .axpby = cpu_axpby,
    .dot = cpu_dot,
    .spmv_acc_vectors = 1,
    .spmv_rate = cpu_spmv_rate,
    .spmv_variant = cpu_spmv_variant,
    .cg_rupdate = mixi_cpu_cg_rupdate,
    .cg_xpupdate = mixi_cpu_cg_xpupdate,
};
