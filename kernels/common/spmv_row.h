/* spmv_row.h: per-row SpMV bodies and sloppy-vector element access, per storage format, host and device. */
#ifndef MIXK_SPMV_ROW_H
#define MIXK_SPMV_ROW_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"
#include "kernels/common/formats.h"
#include "kernels/common/prec_traits.h"
#include "kernels/common/sell.h"

/* Storage formats (kernels/backend_sparse.h): matrix values and sloppy vectors are double,
 * float, FP16/BF16 bit patterns, or FIXED16 int16 q (a matrix row on its power-of-two step with
 * its diagonal apart as a float; a vector with one float norm per block of MIXK_SVEC_BLOCK
 * entries).  Arithmetic type: double for FP64, else float. */

/* Loads of one element of a sloppy vector as its arithmetic type (`norm` only for FIXED16). */
static inline MIXK_HD double mixk_svec_ld_fp64(const void *v, const float *norm, int64_t i)
{
    (void)norm;
    return ((const double *)v)[i];
}
static inline MIXK_HD float mixk_svec_ld_fp32(const void *v, const float *norm, int64_t i)
{
    (void)norm;
    return ((const float *)v)[i];
}
static inline MIXK_HD float mixk_svec_ld_fp16(const void *v, const float *norm, int64_t i)
{
    (void)norm;
    return mixk_f16_to_f32(((const uint16_t *)v)[i]);
}
static inline MIXK_HD float mixk_svec_ld_bf16(const void *v, const float *norm, int64_t i)
{
    (void)norm;
    return mixk_bf16_to_f32(((const uint16_t *)v)[i]);
}
static inline MIXK_HD float mixk_svec_ld_fixed16(const void *v, const float *norm, int64_t i)
{
    return mixk_fixed16_decode(((const int16_t *)v)[i],
                               mixk_fixed16_step(norm[(uint64_t)i / MIXK_SVEC_BLOCK]));
}

/* Stores of one element from a float (from a double for FP64: the FP64 store); FIXED16 vectors
 * are stored a block at a time (mixk_svec_st_block_fixed16), since the block shares its norm. */
static inline MIXK_HD void mixk_svec_st_fp64(void *v, int64_t i, double x) { ((double *)v)[i] = x; }
static inline MIXK_HD void mixk_svec_st_fp32(void *v, int64_t i, float x) { ((float *)v)[i] = x; }
static inline MIXK_HD void mixk_svec_st_fp16(void *v, int64_t i, float x)
{
    ((uint16_t *)v)[i] = mixk_f32_to_f16(x);
}
static inline MIXK_HD void mixk_svec_st_bf16(void *v, int64_t i, float x)
{
    ((uint16_t *)v)[i] = mixk_f32_to_bf16(x);
}

/* An arithmetic value rounded as its store would round it (what a load then gives back). */
static inline MIXK_HD double mixk_svec_round_fp64(double x) { return x; }
static inline MIXK_HD float mixk_svec_round_fp32(float x) { return x; }
static inline MIXK_HD float mixk_svec_round_fp16(float x) { return mixk_round_f16(x); }
static inline MIXK_HD float mixk_svec_round_bf16(float x) { return mixk_round_bf16(x); }

/* Stores of one element from a double, with one rounding. */
static inline MIXK_HD void mixk_svec_st64_fp64(void *v, int64_t i, double x) { ((double *)v)[i] = x; }
static inline MIXK_HD void mixk_svec_st64_fp32(void *v, int64_t i, double x) { ((float *)v)[i] = (float)x; }
static inline MIXK_HD void mixk_svec_st64_fp16(void *v, int64_t i, double x)
{
    ((uint16_t *)v)[i] = mixk_f64_to_f16(x);
}
static inline MIXK_HD void mixk_svec_st64_bf16(void *v, int64_t i, double x)
{
    ((uint16_t *)v)[i] = mixk_f64_to_bf16(x);
}

/* FIXED16 block `blk` (cnt <= MIXK_SVEC_BLOCK values): norm = max |x|, q = round(x 32767/norm). */
static inline MIXK_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block_fixed16(void *v, float *norm, int64_t blk,
                                                    const float *x, int cnt)
{
    const float s = mixk_fixed16_block_scale_f32(x, cnt);
    const float inv = mixk_fixed16_inv_step(s);
    int16_t *q = (int16_t *)v + blk * MIXK_SVEC_BLOCK;
    for (int t = 0; t < cnt; t++) q[t] = mixk_fixed16_encode(x[t], inv);
    norm[blk] = s;
}
/* The same from FP64 values (the reliable update's r_sloppy <- r): one rounding, in double. */
static inline MIXK_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block_fixed16_f64(void *v, float *norm, int64_t blk,
                                                        const double *x, int cnt)
{
    const float s = mixk_fixed16_block_scale_f64(x, cnt);
    const double inv = mixk_fixed16_inv_step_f64((double)s);
    int16_t *q = (int16_t *)v + blk * MIXK_SVEC_BLOCK;
    for (int t = 0; t < cnt; t++) q[t] = mixk_fixed16_encode_f64(x[t], inv);
    norm[blk] = s;
}

/* Per-row SpMV bodies: sum_k a_ik x_k of row i for a matrix format and the vector format of the
 * same name (as the CG uses them), written once over the value loads LDA(val, k) and
 * LDX(x, xnorm, j) so that a backend may instantiate them with its own loads of the same values
 * (hardware FP16 conversion, say).  Sums run in FP64 (products of float or narrower operands are
 * exact there) and are rounded once: summing in FP32 lost A p of a smooth p to cancellation
 * (kernels/backend_sparse.h, spmv).
 * FP64 storage keeps plain CSR (its unscaled sloppy copy is the FP64 matrix of the true
 * residuals itself): mixk_spmv_row_fp64.  Every other storage format is SELL-32
 * (kernels/common/sell.h): a row sums its off-diagonal slots in slot order (= column order;
 * padding adds 0 x_i, 0 x_{i + shift} in a shifted slice), then finishes with one rounding:
 * s + d_i x_i, FIXED16 s h_i + d_i x_i (h_i = c 2^(rexp_i - 127), exact in double:
 * kernels/common/fixed16.h; s and s h_i where no diagonal is apart).  A vector body running
 * rows side by side adds in this order to give the same bits. */
#define MIXK_SPMV_ROW(NAME, ACC, LDA, LDX)                                                     \
    static inline MIXK_HD ACC NAME(const int64_t *rowptr, const int32_t *colind,                \
                                  const void *val, const void *x, const float *xnorm, int64_t i) \
    {                                                                                           \
        (void)xnorm;                                                                            \
        double s = 0;                                                                           \
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)                                     \
            s += (double)LDA(val, k) * (double)LDX(x, xnorm, colind[k]);                        \
        return (ACC)s;                                                                          \
    }

#define MIXK_LDA_FP64(v, k) (((const double *)(v))[k])
#define MIXK_LDA_FP32(v, k) (((const float *)(v))[k])
#define MIXK_LDA_FP16(v, k) mixk_f16_to_f32(((const uint16_t *)(v))[k])
#define MIXK_LDA_BF16(v, k) mixk_bf16_to_f32(((const uint16_t *)(v))[k])
#define MIXK_LDA_FIXED16(v, k) ((float)((const int16_t *)(v))[k]) /* q: the row's h comes last */
/* x already decoded to floats (a backend may decode x once per SpMV instead of once per
 * nonzero: FIXED16's decode is mixk_svec_ld_fixed16's, so both give the same bits). */
#define MIXK_LDX_F32(x, xnorm, j) (((const float *)(x))[j])
/* The same as functions, one per format. */
static inline MIXK_HD double mixk_lda_fp64(const void *v, int64_t k) { return MIXK_LDA_FP64(v, k); }
static inline MIXK_HD float mixk_lda_fp32(const void *v, int64_t k) { return MIXK_LDA_FP32(v, k); }
static inline MIXK_HD float mixk_lda_fp16(const void *v, int64_t k) { return MIXK_LDA_FP16(v, k); }
static inline MIXK_HD float mixk_lda_bf16(const void *v, int64_t k) { return MIXK_LDA_BF16(v, k); }
static inline MIXK_HD float mixk_lda_fixed16(const void *v, int64_t k) { return MIXK_LDA_FIXED16(v, k); }
MIXK_SPMV_ROW(mixk_spmv_row_fp64, double, MIXK_LDA_FP64, mixk_svec_ld_fp64)

/* Statements of a SELL row's off-diagonal sum: double s = sum over the row's slots (or its
 * escape entries) of LDA(val, k) LDX(x, xnorm, j_k), with A (const mixk_sell *), x, xnorm and i in
 * scope.  A macro of statements so that a backend can compile it under its own target attribute. */
#define MIXK_SELL_SUM(s, LDA, LDX) MIXK_SELL_SUM_OFF(s, LDA, LDX, MIXK_SELL_COL)
/* The same with slot k's offset OFF(A, k): the slot's own (the portable body), or a contiguous
 * slot row's one offset (mixk_sell_off_c, kernels/common/sell.h): the same offsets, the same bits. */
#define MIXK_SELL_COL(A, k) ((A)->col[k])
#define MIXK_SELL_SUM_OFF(s, LDA, LDX, OFF)                                                       \
    double s = 0;                                                                                 \
    {                                                                                             \
        const int64_t sl_ = i / MIXK_SELL_C;                                                      \
        const int t_ = (int)(i % MIXK_SELL_C);                                                    \
        const int64_t h_ = A->slice[sl_];                                                         \
        if (!(h_ & MIXK_SELL_ESC)) {                                                              \
            const int64_t end_ = A->slice[sl_ + 1] & MIXK_SELL_SLOT_MASK;                         \
            const int64_t ib_ = i + mixk_sell_shift(A, sl_); /* slot k: column ib_ + offset */    \
            for (int64_t k = h_ + t_; k < end_; k += MIXK_SELL_C)                                 \
                s += (double)LDA(A->val, k) * (double)LDX(x, xnorm, ib_ + OFF(A, k));           \
        } else {                                                                                  \
            const int64_t *e_ = A->erp + A->eslice[sl_] + t_;                                     \
            for (int64_t k = e_[0]; k < e_[1]; k++)                                               \
                s += (double)LDA(A->eval, k) * (double)LDX(x, xnorm, A->ecol[k]);                 \
        }                                                                                         \
    }

/* The functions of one SELL format: its off-diagonal sum over x in storage (part) or decoded to
 * floats (partf), its row finish (x_i in the arithmetic type), and whole rows. */
#define MIXK_SELL_ROWS(SFX, ACC, LDA, LDX)                                                       \
    static inline MIXK_HD MIXK_ALWAYS_INLINE double mixk_sell_part_##SFX(                          \
        const mixk_sell *A, const void *x, const float *xnorm, int64_t i)                         \
    {                                                                                             \
        MIXK_SELL_SUM(s, LDA, LDX)                                                                \
        return s;                                                                                 \
    }                                                                                             \
    static inline MIXK_HD MIXK_ALWAYS_INLINE double mixk_sell_partf_##SFX(const mixk_sell *A,      \
                                                                         const float *x, int64_t i) \
    {                                                                                             \
        MIXK_SELL_SUM(s, LDA, MIXK_LDX_F32) /* the load drops xnorm */                            \
        return s;                                                                                 \
    }                                                                                             \
    /* The same over the contiguous-slot offsets (the CUDA rows: a warp reads one offset). */    \
    static inline MIXK_HD MIXK_ALWAYS_INLINE double mixk_sell_partc_##SFX(                         \
        const mixk_sell *A, const void *x, const float *xnorm, int64_t i)                         \
    {                                                                                             \
        MIXK_SELL_SUM_OFF(s, LDA, LDX, mixk_sell_off_c)                                           \
        return s;                                                                                 \
    }                                                                                             \
    static inline MIXK_HD MIXK_ALWAYS_INLINE ACC mixk_sell_rowfc_##SFX(const mixk_sell *A,         \
                                                                      const float *x, int64_t i)  \
    {                                                                                             \
        MIXK_SELL_SUM_OFF(s, LDA, MIXK_LDX_F32, mixk_sell_off_c)                                  \
        return mixk_sell_finish_##SFX(A, i, s, x[i]);                                             \
    }                                                                                             \
    static inline MIXK_HD MIXK_ALWAYS_INLINE ACC mixk_sell_row_##SFX(const mixk_sell *A, const void *x, \
                                                                    const float *xnorm, int64_t i) \
    {                                                                                             \
        return mixk_sell_finish_##SFX(A, i, mixk_sell_part_##SFX(A, x, xnorm, i),                  \
                                      mixk_svec_ld_##SFX(x, xnorm, i));                           \
    }                                                                                             \
    static inline MIXK_HD MIXK_ALWAYS_INLINE ACC mixk_sell_rowf_##SFX(const mixk_sell *A,          \
                                                                     const float *x, int64_t i)   \
    {                                                                                             \
        return mixk_sell_finish_##SFX(A, i, mixk_sell_partf_##SFX(A, x, i), x[i]);                 \
    }

/* Element formats: s + a_ii x_i, a_ii in the format, rounded once (s alone, rounded, without a
 * diagonal apart: a rectangular matrix's, sell.h; s + x_i over a unit diagonal). */
#define MIXK_SELL_ELEMENT_FINISH(SFX, T, LDA)                                                     \
    static inline MIXK_HD MIXK_ALWAYS_INLINE T mixk_sell_finish_##SFX(const mixk_sell *A,          \
                                                                     int64_t i, double s, T xi)   \
    {                                                                                             \
        if (!A->diag) return (T)s;                                                                \
        return (T)(s + (A->unit_diag ? (double)xi : (double)LDA(A->diag, i) * (double)xi));      \
    }
MIXK_SELL_ELEMENT_FINISH(fp64, double, MIXK_LDA_FP64)
MIXK_SELL_ELEMENT_FINISH(fp32, float, MIXK_LDA_FP32)
MIXK_SELL_ELEMENT_FINISH(fp16, float, MIXK_LDA_FP16)
MIXK_SELL_ELEMENT_FINISH(bf16, float, MIXK_LDA_BF16)

/* FIXED16: the off-diagonal sum times the row's step, plus the float diagonal times x_i (where
 * one is apart). */
static inline MIXK_HD MIXK_ALWAYS_INLINE float mixk_sell_finish_fixed16(const mixk_sell *A, int64_t i,
                                                                      double s, float xi)
{
    const double sh = s * mixk_fixed16_row_step(A->rexp[i], A->fmant);
    if (!A->diag) return (float)sh;
    return (float)(sh + (A->unit_diag ? (double)xi : (double)((const float *)A->diag)[i] * (double)xi));
}

MIXK_SELL_ROWS(fp64, double, MIXK_LDA_FP64, mixk_svec_ld_fp64)
MIXK_SELL_ROWS(fp32, float, MIXK_LDA_FP32, mixk_svec_ld_fp32)
MIXK_SELL_ROWS(fp16, float, MIXK_LDA_FP16, mixk_svec_ld_fp16)
MIXK_SELL_ROWS(bf16, float, MIXK_LDA_BF16, mixk_svec_ld_bf16)
MIXK_SELL_ROWS(fixed16, float, MIXK_LDA_FIXED16, mixk_svec_ld_fixed16)

/* One value of a sloppy vector stored in `p`, widened to FP64 exactly (0 for a precision that is
 * not a storage format). */
#define MIXK_SVEC_LD_CASE_(P, SFX, ...)                                                          \
    case P: return mixk_svec_ld_##SFX(v, norm, i);
static inline MIXK_HD double mixk_svec_ld(mix_prec p, const void *v, const float *norm, int64_t i)
{
    switch (p) {
        MIXK_STORAGE_FORMATS(MIXK_SVEC_LD_CASE_)
    default: return 0.0;
    }
}
#undef MIXK_SVEC_LD_CASE_

/* Whether `p`'s sloppy matrix is SELL: every storage format but FP64 (see above), whose SELL
 * functions exist, as every format's, but serve no backend. */
static inline MIXK_HD int mixk_sell_used(mix_prec p)
{
    return mixk_prec_storage(p) && p != MIX_FP64;
}

/* Value of row i's entry (j, v) in the sloppy matrix (v = the FP64 value times the scales). */
#define MIXK_SCALED(a, scale, i, j, k) ((scale) ? ((scale)[i] * (a)[k]) * (scale)[j] : (a)[k])

/* Where a conversion writes (mixk_sell_fill_row_SFX), and FIXED16's row scales when given:
 * rowmax NULL, each row's step from its own entries; else from rowmax[i], the largest
 * off-diagonal magnitude of the whole row of which this matrix holds a part (a distributed
 * matrix's local or off-process block), so that every block holds the whole matrix's bits. */
typedef struct {
    int16_t *col;
    void *val;
    int32_t *ecol;
    void *eval;
    void *diag;
    uint8_t *rexp;
    const double *rowmax;
} mixk_sell_out;

/* ---- One interface per storage format ------------------------------------------------------------
 * Every S(...) row of kernels/common/prec_traits.h, suffix SFX, arithmetic type T (double when its
 * accumulator is FP64, else float), provides what the backends' sparse kernels are generated from:
 *   T     mixk_svec_ld_SFX(v, norm, i)                              one element
 *   void  mixk_svec_ld_block_SFX(v, norm, blk, cnt, T *x)           block blk, cnt <= MIXK_SVEC_BLOCK
 *   void  mixk_svec_st_block_SFX(v, norm, blk, const T *x, cnt)
 *   void  mixk_svec_st_block64_SFX(v, norm, blk, const double *x, cnt)   one rounding from FP64
 *   T     mixk_lda_SFX(val, k)                                      one matrix value (FIXED16: q)
 * and its matrix: FP64 the plain CSR row mixk_spmv_row_fp64(rowptr, colind, val, x, xnorm, i) and
 *   int   mixk_csr_row_fp64(rowptr, colind, a, scale, i, out)       row i of diag(scale) A diag(scale)
 * every other format SELL-32 (kernels/common/sell.h):
 *   T     mixk_sell_row_SFX(A, x, xnorm, i), mixk_sell_rowf_SFX(A, const float *x, i)
 *   T     mixk_sell_part_SFX(A, x, xnorm, i), mixk_sell_partf_SFX(A, x, i),
 *         mixk_sell_finish_SFX(A, i, s, x_i)                       (the pieces, for vector bodies)
 *   T     mixk_sell_partc_SFX(A, x, xnorm, i), mixk_sell_rowfc_SFX(A, x, i)   the same over the
 *         contiguous-slot offsets (kernels/common/sell.h; the CUDA warp rows)
 *   int   mixk_sell_fill_row_SFX(A, rowptr, colind, a, scale, i, out)  row i's values, columns
 *         and padding (layout made: sell.h), returns how many values do not fit.
 * A format of one value per element (S row) writes mixk_svec_ld_SFX, mixk_svec_st_SFX,
 * mixk_svec_st64_SFX, mixk_svec_round_SFX (x as stored, as T), MIXK_LDA_ and its row finish;
 * MIXK_ELEMENT_FORMAT makes the rest.  A block-scaled format (B row) writes them all, and its
 * CUDA warp stores (kernels/cuda/sparse_kernels.cu, st_warp). */
#define MIXK_ELEMENT_FORMAT(P, SFX, T)                                                            \
    static inline MIXK_HD MIXK_ALWAYS_INLINE void mixk_svec_ld_block_##SFX(const void *v, const float *norm,         \
                                                       int64_t blk, int cnt, T *x)               \
    {                                                                                             \
        for (int t = 0; t < cnt; t++) x[t] = mixk_svec_ld_##SFX(v, norm, blk * MIXK_SVEC_BLOCK + t); \
    }                                                                                             \
    static inline MIXK_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block_##SFX(void *v, float *norm, int64_t blk,        \
                                                       const T *x, int cnt)                      \
    {                                                                                             \
        (void)norm;                                                                               \
        for (int t = 0; t < cnt; t++) mixk_svec_st_##SFX(v, blk * MIXK_SVEC_BLOCK + t, x[t]);     \
    }                                                                                             \
    static inline MIXK_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block64_##SFX(void *v, float *norm, int64_t blk,      \
                                                         const double *x, int cnt)               \
    {                                                                                             \
        (void)norm;                                                                               \
        for (int t = 0; t < cnt; t++) mixk_svec_st64_##SFX(v, blk * MIXK_SVEC_BLOCK + t, x[t]);   \
    }
MIXK_ELEMENT_FORMAT(MIX_FP64, fp64, double)
MIXK_ELEMENT_FORMAT(MIX_FP32, fp32, float)
MIXK_ELEMENT_FORMAT(MIX_FP16, fp16, float)
MIXK_ELEMENT_FORMAT(MIX_BF16, bf16, float)

static inline MIXK_HD int mixk_csr_row_fp64(const int64_t *rowptr, const int32_t *colind,
                                           const double *a, const double *scale, int64_t i,
                                           void *out)
{
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
        ((double *)out)[k] = MIXK_SCALED(a, scale, i, colind[k], k);
    return 0;
}

/* An element format's SELL row: the diagonal apart (where A has one apart), each other entry in
 * its slot (offset j - i less the slice's shift) or escape entry, the row's padding slots 0 with
 * offset 0. */
#define MIXK_SELL_ELEMENT_FILL(P, SFX)                                                            \
    static inline MIXK_HD int mixk_sell_fill_row_##SFX(const mixk_sell *A, const int64_t *rowptr,  \
                                                      const int32_t *colind, const double *a,     \
                                                      const double *scale, int64_t i,             \
                                                      const mixk_sell_out *o)                     \
    {                                                                                             \
        int over = 0, esc = 0;                                                                    \
        int64_t q = 0;                                                                            \
        double d = 0.0;                                                                           \
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {                                     \
            const double v = MIXK_SCALED(a, scale, i, colind[k], k);                              \
            over += mixk_prec_overflows(P, v) || v != v;                                          \
            if (colind[k] == i && A->diag) {                                                      \
                d = v;                                                                            \
                continue;                                                                         \
            }                                                                                     \
            const int64_t at = mixk_sell_place(A, i, q++, &esc);                                  \
            if (esc) {                                                                            \
                o->ecol[at] = colind[k];                                                          \
                mixk_svec_st64_##SFX(o->eval, at, v);                                             \
            } else {                                                                              \
                o->col[at] = (int16_t)(colind[k] - i - mixk_sell_shift(A, i / MIXK_SELL_C));      \
                mixk_svec_st64_##SFX(o->val, at, v);                                              \
            }                                                                                     \
        }                                                                                         \
        const int64_t w = mixk_sell_width(A, i / MIXK_SELL_C);                                    \
        for (; q < w; q++) {                                                                      \
            const int64_t at = mixk_sell_place(A, i, q, &esc);                                    \
            o->col[at] = 0;                                                                       \
            mixk_svec_st64_##SFX(o->val, at, 0.0);                                                \
        }                                                                                         \
        if (A->diag) mixk_svec_st64_##SFX(o->diag, i, d);                                         \
        return over;                                                                              \
    }
MIXK_SELL_ELEMENT_FILL(MIX_FP64, fp64)
MIXK_SELL_ELEMENT_FILL(MIX_FP32, fp32)
MIXK_SELL_ELEMENT_FILL(MIX_FP16, fp16)
MIXK_SELL_ELEMENT_FILL(MIX_BF16, bf16)

/* FIXED16 (block-scaled): the block decoded with its step computed once. */
static inline MIXK_HD MIXK_ALWAYS_INLINE void mixk_svec_ld_block_fixed16(const void *v, const float *norm, int64_t blk,
                                                     int cnt, float *x)
{
    const float step = mixk_fixed16_step(norm[blk]);
    const int16_t *q = (const int16_t *)v + blk * MIXK_SVEC_BLOCK;
    for (int t = 0; t < cnt; t++) x[t] = mixk_fixed16_decode(q[t], step);
}
static inline MIXK_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block64_fixed16(void *v, float *norm, int64_t blk,
                                                       const double *x, int cnt)
{
    mixk_svec_st_block_fixed16_f64(v, norm, blk, x, cnt);
}

/* The largest magnitude of row i of diag(scale) A diag(scale) but in column `apart` (NaN if one
 * is NaN): over all rows, what mixk_fixed16_mant takes.  apart = i: the off-diagonal entries
 * (mixk_fixed16_row_offmax), -1: all (a rectangular matrix's, sell.h). */
static inline MIXK_HD double mixk_fixed16_row_absmax(const int64_t *rowptr, const int32_t *colind,
                                                    const double *a, const double *scale, int64_t i,
                                                    int64_t apart)
{
    double off = 0.0;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
        if (colind[k] == apart) continue;
        const double v = MIXK_SCALED(a, scale, i, colind[k], k);
        const double av = v < 0.0 ? -v : v;
        if (av > off || av != av) off = av; /* a NaN, once in, stays */
    }
    return off;
}
static inline MIXK_HD double mixk_fixed16_row_offmax(const int64_t *rowptr, const int32_t *colind,
                                                    const double *a, const double *scale, int64_t i)
{
    return mixk_fixed16_row_absmax(rowptr, colind, a, scale, i, i);
}

/* One FIXED16 matrix row from the FP64 values a (times diag(scale) on both sides when scale is
 * not NULL, as (scale_i a_ij) scale_j): the diagonal to diag[i] as the nearest float (0 when the
 * row has none), the other entries to q_ij = round(a_ij / h_i) on the row's step h_i = c 2^(E-127)
 * (c = A->fmant, E = rexp[i]: mixk_fixed16_row_exp of o->rowmax[i] where given, else of the
 * row's own largest off-diagonal magnitude), padding slots 0.  Splitting the diagonal off
 * keeps the off-diagonal entries of a diagonally dominant row from being rounded on the
 * diagonal's scale (3D Poisson: 722 CG iterations against 573).  Without a diagonal apart (a
 * rectangular matrix, sell.h) j = i is one of the other entries.  Returns 1 if a value does not
 * fit a float (or is NaN). */
static inline MIXK_HD int mixk_sell_fill_row_fixed16(const mixk_sell *A, const int64_t *rowptr,
                                                    const int32_t *colind, const double *a,
                                                    const double *scale, int64_t i,
                                                    const mixk_sell_out *o)
{
    const int64_t k0 = rowptr[i], k1 = rowptr[i + 1], apart = A->diag ? i : -1;
    double d = 0.0;
    for (int64_t k = k0; k < k1; k++)
        if (colind[k] == apart) d = MIXK_SCALED(a, scale, i, colind[k], k);
    const double off = o->rowmax ? o->rowmax[i] : mixk_fixed16_row_absmax(rowptr, colind, a, scale, i, apart);
    const int bad = mixk_prec_overflows(MIX_FP32, d) || d != d || off != off ||
                    off > mixk_prec_max_finite(MIX_FP32);
    const unsigned E = bad ? 0u : mixk_fixed16_row_exp(off, A->fmant);
    const double h = mixk_fixed16_row_step(E, A->fmant);
    int esc = 0;
    int64_t q = 0;
    for (int64_t k = k0; k < k1; k++) {
        if (colind[k] == apart) continue;
        const double v = MIXK_SCALED(a, scale, i, colind[k], k);
        const int16_t c = h > 0.0 ? mixk_fixed16_encode_f64(v / h, 1.0) : (int16_t)0;
        const int64_t at = mixk_sell_place(A, i, q++, &esc);
        if (esc) {
            o->ecol[at] = colind[k];
            ((int16_t *)o->eval)[at] = c;
        } else {
            o->col[at] = (int16_t)(colind[k] - i - mixk_sell_shift(A, i / MIXK_SELL_C));
            ((int16_t *)o->val)[at] = c;
        }
    }
    const int64_t w = mixk_sell_width(A, i / MIXK_SELL_C);
    for (; q < w; q++) {
        const int64_t at = mixk_sell_place(A, i, q, &esc);
        o->col[at] = 0;
        ((int16_t *)o->val)[at] = 0;
    }
    if (A->diag) ((float *)o->diag)[i] = (float)d;
    o->rexp[i] = (uint8_t)E;
    return bad;
}

/* A stored matrix value as the SpMV multiplies it, for round-trip checks: slot (or escape entry,
 * esc) k of row i, or its diagonal (k < 0): the element, or for FIXED16 q h_i (exact) and the
 * float diagonal. */
static inline MIXK_HD double mixk_sell_value(mix_prec p, const mixk_sell *A, int64_t i, int64_t k,
                                            int esc)
{
    const void *v = k < 0 ? A->diag : esc ? A->eval : A->val;
    const int64_t at = k < 0 ? i : k;
    if (!v) return 0.0; /* no diagonal apart */
#define MIXK_SELL_VALUE_CASE_(P, SFX, ...) case P: return mixk_lda_##SFX(v, at);
    switch (p) {
        MIXK_ELEMENT_FORMATS(MIXK_SELL_VALUE_CASE_)
#undef MIXK_SELL_VALUE_CASE_
    case MIX_FIXED16:
        return k < 0 ? (double)((const float *)v)[at]
                     : (double)mixk_lda_fixed16(v, at) * mixk_fixed16_row_step(A->rexp[i], A->fmant);
    default: return 0.0;
    }
}

#endif
