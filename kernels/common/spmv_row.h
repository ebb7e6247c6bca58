/* spmv_row.h: per-row SpMV bodies and sloppy-vector element access, per storage format, host and device. */
#ifndef MIXK_SPMV_ROW_H
#define MIXK_SPMV_ROW_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"
#include "kernels/common/formats.h"
#include "kernels/common/prec_traits.h"

/* Storage formats (kernels/backend_sparse.h): matrix values and sloppy vectors are double,
 * float, FP16/BF16 bit patterns, or FIXED16 int16 q with float scales (per matrix row the pair
 * rowscale[2i] = a_ii as a float, rowscale[2i+1] = s_i = max_{j!=i} |a_ij|, the diagonal's q
 * being 0; one norm per block of MIXK_SVEC_BLOCK vector entries).  Arithmetic type: double for
 * FP64, else float. */
#define MIXK_SVEC_BLOCK 32

/* Loads of one element of a sloppy vector as its arithmetic type (`norm` only for FIXED16). */
static inline MIX_HD double mixk_svec_ld_fp64(const void *v, const float *norm, int64_t i)
{
    (void)norm;
    return ((const double *)v)[i];
}
static inline MIX_HD float mixk_svec_ld_fp32(const void *v, const float *norm, int64_t i)
{
    (void)norm;
    return ((const float *)v)[i];
}
static inline MIX_HD float mixk_svec_ld_fp16(const void *v, const float *norm, int64_t i)
{
    (void)norm;
    return mixk_f16_to_f32(((const uint16_t *)v)[i]);
}
static inline MIX_HD float mixk_svec_ld_bf16(const void *v, const float *norm, int64_t i)
{
    (void)norm;
    return mixk_bf16_to_f32(((const uint16_t *)v)[i]);
}
static inline MIX_HD float mixk_svec_ld_fixed16(const void *v, const float *norm, int64_t i)
{
    return mixk_fixed16_decode(((const int16_t *)v)[i],
                               mixk_fixed16_step(norm[(uint64_t)i / MIXK_SVEC_BLOCK]));
}

/* Stores of one element from a float (from a double for FP64: the FP64 store); FIXED16 vectors
 * are stored a block at a time (mixk_svec_st_block_fixed16), since the block shares its norm. */
static inline MIX_HD void mixk_svec_st_fp64(void *v, int64_t i, double x) { ((double *)v)[i] = x; }
static inline MIX_HD void mixk_svec_st_fp32(void *v, int64_t i, float x) { ((float *)v)[i] = x; }
static inline MIX_HD void mixk_svec_st_fp16(void *v, int64_t i, float x)
{
    ((uint16_t *)v)[i] = mixk_f32_to_f16(x);
}
static inline MIX_HD void mixk_svec_st_bf16(void *v, int64_t i, float x)
{
    ((uint16_t *)v)[i] = mixk_f32_to_bf16(x);
}

/* An arithmetic value rounded as its store would round it (what a load then gives back). */
static inline MIX_HD double mixk_svec_round_fp64(double x) { return x; }
static inline MIX_HD float mixk_svec_round_fp32(float x) { return x; }
static inline MIX_HD float mixk_svec_round_fp16(float x) { return mixk_round_f16(x); }
static inline MIX_HD float mixk_svec_round_bf16(float x) { return mixk_round_bf16(x); }

/* Stores of one element from a double, with one rounding. */
static inline MIX_HD void mixk_svec_st64_fp64(void *v, int64_t i, double x) { ((double *)v)[i] = x; }
static inline MIX_HD void mixk_svec_st64_fp32(void *v, int64_t i, double x) { ((float *)v)[i] = (float)x; }
static inline MIX_HD void mixk_svec_st64_fp16(void *v, int64_t i, double x)
{
    ((uint16_t *)v)[i] = mixk_f64_to_f16(x);
}
static inline MIX_HD void mixk_svec_st64_bf16(void *v, int64_t i, double x)
{
    ((uint16_t *)v)[i] = mixk_f64_to_bf16(x);
}

/* FIXED16 block `blk` (cnt <= MIXK_SVEC_BLOCK values): norm = max |x|, q = round(x 32767/norm). */
static inline MIX_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block_fixed16(void *v, float *norm, int64_t blk,
                                                    const float *x, int cnt)
{
    const float s = mixk_fixed16_block_scale_f32(x, cnt);
    const float inv = mixk_fixed16_inv_step(s);
    int16_t *q = (int16_t *)v + blk * MIXK_SVEC_BLOCK;
    for (int t = 0; t < cnt; t++) q[t] = mixk_fixed16_encode(x[t], inv);
    norm[blk] = s;
}
/* The same from FP64 values (the reliable update's r_sloppy <- r): one rounding, in double. */
static inline MIX_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block_fixed16_f64(void *v, float *norm, int64_t blk,
                                                        const double *x, int cnt)
{
    const float s = mixk_fixed16_block_scale_f64(x, cnt);
    const double inv = mixk_fixed16_inv_step_f64((double)s);
    int16_t *q = (int16_t *)v + blk * MIXK_SVEC_BLOCK;
    for (int t = 0; t < cnt; t++) q[t] = mixk_fixed16_encode_f64(x[t], inv);
    norm[blk] = s;
}

/* Per-row SpMV bodies: sum_k a_ik x_k of row i for a matrix format and the vector format of the
 * same name (as the CG uses them), in the arithmetic type.  The body is written once here over
 * the value loads LDA(val, k) and LDX(x, xnorm, j), so that a backend may instantiate it with its
 * own loads of the same values (hardware FP16 conversion, say).  Sums run in FP64 (products of
 * float or narrower operands are exact there) and are rounded once: summing in FP32 lost A p of
 * a smooth p to cancellation (kernels/backend_sparse.h, spmv). */
#define MIXK_SPMV_ROW(NAME, ACC, LDA, LDX)                                                     \
    static inline MIX_HD ACC NAME(const int64_t *rowptr, const int32_t *colind,                \
                                  const void *val, const float *rowscale, const void *x,         \
                                  const float *xnorm, int64_t i)                                 \
    {                                                                                           \
        (void)rowscale;                                                                         \
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
/* The same as functions, one per format (FIXED16: the undecoded q, as its row bodies sum it). */
static inline MIX_HD double mixk_lda_fp64(const void *v, int64_t k) { return MIXK_LDA_FP64(v, k); }
static inline MIX_HD float mixk_lda_fp32(const void *v, int64_t k) { return MIXK_LDA_FP32(v, k); }
static inline MIX_HD float mixk_lda_fp16(const void *v, int64_t k) { return MIXK_LDA_FP16(v, k); }
static inline MIX_HD float mixk_lda_bf16(const void *v, int64_t k) { return MIXK_LDA_BF16(v, k); }
static inline MIX_HD float mixk_lda_fixed16(const void *v, int64_t k)
{
    return (float)((const int16_t *)v)[k];
}
MIXK_SPMV_ROW(mixk_spmv_row_fp64, double, MIXK_LDA_FP64, mixk_svec_ld_fp64)
MIXK_SPMV_ROW(mixk_spmv_row_fp32, float, MIXK_LDA_FP32, mixk_svec_ld_fp32)
MIXK_SPMV_ROW(mixk_spmv_row_fp16, float, MIXK_LDA_FP16, mixk_svec_ld_fp16)
MIXK_SPMV_ROW(mixk_spmv_row_bf16, float, MIXK_LDA_BF16, mixk_svec_ld_bf16)

/* The end of a FIXED16 matrix row: the off-diagonal sum s = sum q_a x_j (in FP64, x_j decoded)
 * times s_i/32767, plus the diagonal a_ii x_i, rounded once to float.  Shared by every FIXED16
 * SpMV, the split ones (sub-warps) included, so that they all round the same way. */
static inline MIX_HD float mixk_fixed16_row_finish(const float *rowscale, int64_t i, double s,
                                                   float xi)
{
    return (float)(s * ((double)rowscale[2 * i + 1] / MIXK_FIXED16_QMAX) +
                   (double)rowscale[2 * i] * (double)xi);
}

static inline MIX_HD float mixk_spmv_row_fixed16(const int64_t *rowptr, const int32_t *colind,
                                                 const void *val, const float *rowscale,
                                                 const void *x, const float *xnorm, int64_t i)
{
    const int16_t *qa = (const int16_t *)val;
    double s = 0.0;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
        s += (double)qa[k] * (double)mixk_svec_ld_fixed16(x, xnorm, colind[k]);
    return mixk_fixed16_row_finish(rowscale, i, s, mixk_svec_ld_fixed16(x, xnorm, i));
}

/* FIXED16 matrix times a float vector (x decoded once per SpMV, or FP32 vectors): the same
 * values and order as above. */
static inline MIX_HD float mixk_spmv_rowf_fixed16(const int64_t *rowptr, const int32_t *colind,
                                                  const void *val, const float *rowscale,
                                                  const float *x, int64_t i)
{
    const int16_t *qa = (const int16_t *)val;
    double s = 0.0;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) s += (double)qa[k] * (double)x[colind[k]];
    return mixk_fixed16_row_finish(rowscale, i, s, x[i]);
}

/* One FIXED16 matrix row from the FP64 values a (times diag(scale) on both sides when scale is
 * not NULL, as (scale_i a_ij) scale_j): the diagonal goes to rowscale[2i] as a float (0 when the
 * row has none) with q = 0 in its place, the other entries to q with their own scale
 * rowscale[2i+1] = max_{j!=i} |a_ij| (rounded up to a float).  Splitting the diagonal off keeps
 * the off-diagonal entries of a diagonally dominant row from being rounded on the diagonal's
 * scale.  Returns 1 if a value overflows a float, else 0. */
static inline MIX_HD int mixk_fixed16_csr_row(const int64_t *rowptr, const int32_t *colind,
                                              const double *a, const double *scale, int64_t i,
                                              int16_t *q, float *rowscale)
{
    const int64_t k0 = rowptr[i], k1 = rowptr[i + 1];
    double off = 0.0, d = 0.0;
    for (int64_t k = k0; k < k1; k++) {
        const double v = scale ? (scale[i] * a[k]) * scale[colind[k]] : a[k];
        if (colind[k] == i) d = v;
        else {
            const double av = v < 0.0 ? -v : v;
            if (av > off || av != av) off = av; /* a NaN, once in, stays */
        }
    }
    const float s = mixk_fixed16_block_scale_f64(&off, 1);
    const double inv = mixk_fixed16_inv_step_f64((double)s);
    for (int64_t k = k0; k < k1; k++) {
        const double v = scale ? (scale[i] * a[k]) * scale[colind[k]] : a[k];
        q[k] = colind[k] == i ? (int16_t)0 : mixk_fixed16_encode_f64(v, inv);
    }
    const float df = (float)d;
    rowscale[2 * i] = df;
    rowscale[2 * i + 1] = s;
    return mixk_prec_overflows(MIX_FP32, d) || s > (float)mixk_prec_max_finite(MIX_FP32);
}

/* ---- One interface per storage format ------------------------------------------------------------
 * Every S(...) row of kernels/common/prec_traits.h, suffix SFX, arithmetic type T (double when its
 * accumulator is FP64, else float), provides what the backends' sparse kernels are generated from:
 *   T     mixk_svec_ld_SFX(v, norm, i)                              one element
 *   void  mixk_svec_ld_block_SFX(v, norm, blk, cnt, T *x)           block blk, cnt <= MIXK_SVEC_BLOCK
 *   void  mixk_svec_st_block_SFX(v, norm, blk, const T *x, cnt)
 *   void  mixk_svec_st_block64_SFX(v, norm, blk, const double *x, cnt)   one rounding from FP64
 *   T     mixk_lda_SFX(val, k)                                      one matrix value
 *   T     mixk_spmv_row_SFX(rowptr, colind, val, rowscale, x, xnorm, i)
 *   float mixk_spmv_rowf_SFX(rowptr, colind, val, rowscale, const float *x, i)   (T = float only:
 *         the row times x already decoded to floats)
 *   int   mixk_csr_row_SFX(rowptr, colind, a, scale, i, out, rowscale)  row i of diag(scale) A
 *         diag(scale) into `out`, returns how many values overflow
 * A format of one value per element (S row) writes mixk_svec_ld_SFX, mixk_svec_st_SFX,
 * mixk_svec_st64_SFX, mixk_svec_round_SFX (x as stored, as T), mixk_lda_SFX and its row bodies;
 * MIXK_ELEMENT_FORMAT makes the rest.  A block-scaled format (B row) writes them all, and its
 * CUDA warp stores (kernels/cuda/sparse_kernels.cu, st_warp). */
#define MIXK_ELEMENT_FORMAT(P, SFX, T)                                                            \
    static inline MIX_HD MIXK_ALWAYS_INLINE void mixk_svec_ld_block_##SFX(const void *v, const float *norm,         \
                                                       int64_t blk, int cnt, T *x)               \
    {                                                                                             \
        for (int t = 0; t < cnt; t++) x[t] = mixk_svec_ld_##SFX(v, norm, blk * MIXK_SVEC_BLOCK + t); \
    }                                                                                             \
    static inline MIX_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block_##SFX(void *v, float *norm, int64_t blk,        \
                                                       const T *x, int cnt)                      \
    {                                                                                             \
        (void)norm;                                                                               \
        for (int t = 0; t < cnt; t++) mixk_svec_st_##SFX(v, blk * MIXK_SVEC_BLOCK + t, x[t]);     \
    }                                                                                             \
    static inline MIX_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block64_##SFX(void *v, float *norm, int64_t blk,      \
                                                         const double *x, int cnt)               \
    {                                                                                             \
        (void)norm;                                                                               \
        for (int t = 0; t < cnt; t++) mixk_svec_st64_##SFX(v, blk * MIXK_SVEC_BLOCK + t, x[t]);   \
    }                                                                                             \
    static inline MIX_HD int mixk_csr_row_##SFX(const int64_t *rowptr, const int32_t *colind,     \
                                                const double *a, const double *scale, int64_t i, \
                                                void *out, float *rowscale)                      \
    {                                                                                             \
        (void)rowscale;                                                                           \
        int over = 0;                                                                             \
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {                                     \
            const double v = scale ? (scale[i] * a[k]) * scale[colind[k]] : a[k];                 \
            mixk_svec_st64_##SFX(out, k, v);                                                      \
            over += mixk_prec_overflows(P, v);                                                    \
        }                                                                                         \
        return over;                                                                              \
    }
MIXK_ELEMENT_FORMAT(MIX_FP64, fp64, double)
MIXK_ELEMENT_FORMAT(MIX_FP32, fp32, float)
MIXK_ELEMENT_FORMAT(MIX_FP16, fp16, float)
MIXK_ELEMENT_FORMAT(MIX_BF16, bf16, float)

/* Row bodies over a decoded float x, in MIXK_SPMV_ROW's order of operations. */
#define MIXK_SPMV_ROWF(NAME, LDA)                                                                \
    static inline MIX_HD float NAME(const int64_t *rowptr, const int32_t *colind,                \
                                    const void *val, const float *rowscale, const float *x,      \
                                    int64_t i)                                                    \
    {                                                                                             \
        (void)rowscale;                                                                           \
        double s = 0;                                                                             \
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)                                     \
            s += (double)LDA(val, k) * (double)x[colind[k]];                                     \
        return (float)s;                                                                          \
    }
MIXK_SPMV_ROWF(mixk_spmv_rowf_fp32, MIXK_LDA_FP32)
MIXK_SPMV_ROWF(mixk_spmv_rowf_fp16, MIXK_LDA_FP16)
MIXK_SPMV_ROWF(mixk_spmv_rowf_bf16, MIXK_LDA_BF16)

/* FIXED16 (block-scaled): the block decoded with its step computed once. */
static inline MIX_HD MIXK_ALWAYS_INLINE void mixk_svec_ld_block_fixed16(const void *v, const float *norm, int64_t blk,
                                                     int cnt, float *x)
{
    const float step = mixk_fixed16_step(norm[blk]);
    const int16_t *q = (const int16_t *)v + blk * MIXK_SVEC_BLOCK;
    for (int t = 0; t < cnt; t++) x[t] = mixk_fixed16_decode(q[t], step);
}
static inline MIX_HD MIXK_ALWAYS_INLINE void mixk_svec_st_block64_fixed16(void *v, float *norm, int64_t blk,
                                                       const double *x, int cnt)
{
    mixk_svec_st_block_fixed16_f64(v, norm, blk, x, cnt);
}
static inline MIX_HD int mixk_csr_row_fixed16(const int64_t *rowptr, const int32_t *colind,
                                              const double *a, const double *scale, int64_t i,
                                              void *out, float *rowscale)
{
    return mixk_fixed16_csr_row(rowptr, colind, a, scale, i, (int16_t *)out, rowscale);
}

#endif
