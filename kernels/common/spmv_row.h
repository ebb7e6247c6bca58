/* spmv_row.h: per-row SpMV bodies and sloppy-vector element access, per storage format, host and device. */
#ifndef MIXK_SPMV_ROW_H
#define MIXK_SPMV_ROW_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"
#include "kernels/common/formats.h"

/* Storage formats (kernels/backend_sparse.h): matrix values and sloppy vectors are double,
 * float, FP16/BF16 bit patterns, or FIXED16 int16 q with float scales (per matrix row the pair
 * rowscale[2i] = a_ii as a float, rowscale[2i+1] = s_i = max_{j!=i} |a_ij|, the diagonal's q
 * being 0; one norm per block of MIXK_SVEC_BLOCK vector entries).  Arithmetic type: double for
 * FP64, else float. */
#define MIXK_SVEC_BLOCK 32
#define MIXK_FIXED16_RSTEP (1.0f / (float)MIXK_FIXED16_QMAX)

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

/* FIXED16 block `blk` (cnt <= MIXK_SVEC_BLOCK values): norm = max |x|, q = round(x 32767/norm). */
static inline MIX_HD void mixk_svec_st_block_fixed16(void *v, float *norm, int64_t blk,
                                                    const float *x, int cnt)
{
    const float s = mixk_fixed16_block_scale_f32(x, cnt);
    const float inv = mixk_fixed16_inv_step(s);
    int16_t *q = (int16_t *)v + blk * MIXK_SVEC_BLOCK;
    for (int t = 0; t < cnt; t++) q[t] = mixk_fixed16_encode(x[t], inv);
    norm[blk] = s;
}
/* The same from FP64 values (the reliable update's r_sloppy <- r): one rounding, in double. */
static inline MIX_HD void mixk_svec_st_block_fixed16_f64(void *v, float *norm, int64_t blk,
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
 * own loads of the same values (hardware FP16 conversion, say).  The FIXED16 body sums
 * q_a * (q_x norm_x) and applies s_row/32767^2 once per row. */
#define MIXK_SPMV_ROW(NAME, ACC, LDA, LDX)                                                     \
    static inline MIX_HD ACC NAME(const int64_t *rowptr, const int32_t *colind,                \
                                  const void *val, const float *rowscale, const void *x,         \
                                  const float *xnorm, int64_t i)                                 \
    {                                                                                           \
        (void)rowscale;                                                                         \
        (void)xnorm;                                                                            \
        ACC s = 0;                                                                              \
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)                                     \
            s += LDA(val, k) * LDX(x, xnorm, colind[k]);                                        \
        return s;                                                                               \
    }

#define MIXK_LDA_FP64(v, k) (((const double *)(v))[k])
#define MIXK_LDA_FP32(v, k) (((const float *)(v))[k])
#define MIXK_LDA_FP16(v, k) mixk_f16_to_f32(((const uint16_t *)(v))[k])
#define MIXK_LDA_BF16(v, k) mixk_bf16_to_f32(((const uint16_t *)(v))[k])
MIXK_SPMV_ROW(mixk_spmv_row_fp64, double, MIXK_LDA_FP64, mixk_svec_ld_fp64)
MIXK_SPMV_ROW(mixk_spmv_row_fp32, float, MIXK_LDA_FP32, mixk_svec_ld_fp32)
MIXK_SPMV_ROW(mixk_spmv_row_fp16, float, MIXK_LDA_FP16, mixk_svec_ld_fp16)
MIXK_SPMV_ROW(mixk_spmv_row_bf16, float, MIXK_LDA_BF16, mixk_svec_ld_bf16)

/* The end of a FIXED16 matrix row: the off-diagonal sum s of q_a (q_x norm_x) times
 * s_i/32767^2, plus the diagonal a_ii times x_i (decoded).  Shared by every FIXED16 SpMV, the
 * split ones (sub-warps) included, so that they all round the same way. */
static inline MIX_HD float mixk_fixed16_row_finish(const float *rowscale, int64_t i, float s,
                                                   float xi)
{
    return s * (rowscale[2 * i + 1] * MIXK_FIXED16_RSTEP) * MIXK_FIXED16_RSTEP +
           rowscale[2 * i] * xi;
}
/* The same for a sum over decoded x (s = sum q_a x_j): one factor 1/32767 only. */
static inline MIX_HD float mixk_fixed16_row_finish_f32x(const float *rowscale, int64_t i, float s,
                                                        float xi)
{
    return s * (rowscale[2 * i + 1] * MIXK_FIXED16_RSTEP) + rowscale[2 * i] * xi;
}

static inline MIX_HD float mixk_spmv_row_fixed16(const int64_t *rowptr, const int32_t *colind,
                                                 const void *val, const float *rowscale,
                                                 const void *x, const float *xnorm, int64_t i)
{
    const int16_t *qa = (const int16_t *)val, *qx = (const int16_t *)x;
    float s = 0.0f;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) {
        const int32_t j = colind[k];
        s += (float)qa[k] * ((float)qx[j] * xnorm[(uint32_t)j / MIXK_SVEC_BLOCK]);
    }
    return mixk_fixed16_row_finish(rowscale, i, s, mixk_svec_ld_fixed16(x, xnorm, i));
}

/* FIXED16 matrix times a vector already decoded to float (a backend may decode x once per SpMV
 * instead of once per nonzero): sum_k q_a x_k, times s_i/32767, plus a_ii x_i. */
static inline MIX_HD float mixk_spmv_row_fixed16_f32x(const int64_t *rowptr, const int32_t *colind,
                                                      const void *val, const float *rowscale,
                                                      const float *x, int64_t i)
{
    const int16_t *qa = (const int16_t *)val;
    float s = 0.0f;
    for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) s += (float)qa[k] * x[colind[k]];
    return mixk_fixed16_row_finish_f32x(rowscale, i, s, x[i]);
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

#endif
