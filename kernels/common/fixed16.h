/* fixed16.h: FIXED16 block format for host and device: int16 q and one float scale s per block, x = q*s/32767. */
#ifndef MIXK_FIXED16_H
#define MIXK_FIXED16_H

#include <math.h>
#include <stdint.h>
#include "kernels/common/mix_hd.h"
#include "kernels/common/fpbits.h"
#include "kernels/common/prec_traits.h"

/* Blocks: 32 entries of a sloppy vector.  A matrix row is fixed point on its own power-of-two
 * step instead (mixk_fixed16_row_exp; the diagonal kept apart as a float: spmv_row.h). */
#define MIXK_FIXED16_QMAX 32767

/* Block scale s = max |x|.  A NaN anywhere makes the scale NaN (0x7fc00000) so that decoding
 * spreads it instead of hiding it; an Inf makes it Inf (the block then decodes to NaN). */
static inline MIXK_HD float mixk_fixed16_block_scale_f32(const float *x, int n)
{
    float s = 0.0f;
    int nan = 0;
    for (int i = 0; i < n; i++) {
        const float a = mixk_bits_f32(mixk_f32_bits(x[i]) & 0x7fffffffu);
        nan |= a != a;
        s = a > s ? a : s;
    }
    return nan ? mixk_bits_f32(0x7fc00000u) : s;
}

/* The same for FP64 data, rounded up to a float so that |x| <= s still holds (and saturated
 * at FLT_MAX), which keeps every |q| <= 32767 without clamping. */
static inline MIXK_HD float mixk_fixed16_block_scale_f64(const double *x, int n)
{
    double s = 0.0;
    int nan = 0;
    for (int i = 0; i < n; i++) {
        const double a = mixk_bits_f64(mixk_f64_bits(x[i]) & 0x7fffffffffffffffull);
        nan |= a != a;
        s = a > s ? a : s;
    }
    if (nan) return mixk_bits_f32(0x7fc00000u);
    if (s > mixk_prec_max_finite(MIX_FP64)) return mixk_bits_f32(0x7f800000u);
    if (s >= mixk_prec_max_finite(MIX_FP32)) return (float)mixk_prec_max_finite(MIX_FP32);
    float f = (float)s;
    if ((double)f < s) f = mixk_bits_f32(mixk_f32_bits(f) + 1u); /* next float up */
    return f;
}

/* inv_step = 32767/s for encoding; 0 for a zero block (every q becomes 0, no division by zero).
 * Below s = 32767/FLT_MAX (about 9.6e-35) it saturates at FLT_MAX and the block loses accuracy. */
static inline MIXK_HD float mixk_fixed16_inv_step(float s)
{
    if (s == 0.0f) return 0.0f;
    const float r = (float)MIXK_FIXED16_QMAX / s;
    const float fmax = (float)mixk_prec_max_finite(MIX_FP32);
    return r > fmax ? fmax : r;
}

static inline MIXK_HD double mixk_fixed16_inv_step_f64(double s)
{
    if (s == 0.0) return 0.0;
    const double r = (double)MIXK_FIXED16_QMAX / s;
    return r > mixk_prec_max_finite(MIX_FP64) ? mixk_prec_max_finite(MIX_FP64) : r;
}

/* s/32767 correctly rounded without a division: q0 = s r with r = 1/32767 rounded, then one
 * Newton correction by the exact residual s - q0 32767 (an FMA).  Markstein's theorem makes it
 * the rounded quotient; test_formats checks every float exponent's edges against s/32767, and a
 * sweep of all 2^32 floats found no difference.  q0 is returned where the residual is NaN (Inf,
 * NaN) or 0 (q0 exact; -0 keeps its sign).  The device's decoding runs this: its IEEE
 * division is a subroutine of about twice the instructions, once per nonzero of a FIXED16 SpMV
 * (the x values' decode: 181 div.rn.f32 in sparse_kernels' PTX before, 11 after). */
static inline MIXK_HD float mixk_fixed16_step_fma(float s)
{
    const float d = (float)MIXK_FIXED16_QMAX, r = 1.0f / (float)MIXK_FIXED16_QMAX;
#ifdef MIXK_DEVICE_PASS
    const float q0 = __fmul_rn(s, r), e = __fmaf_rn(-q0, d, s);
    return e == 0.0f || e != e ? q0 : __fmaf_rn(e, r, q0);
#else
    const float q0 = s * r, e = fmaf(-q0, d, s);
    return e == 0.0f || e != e ? q0 : fmaf(e, r, q0);
#endif
}

/* step = s/32767 for decoding (the host divides: fmaf is a library call without -mfma). */
static inline MIXK_HD float mixk_fixed16_step(float s)
{
#ifdef MIXK_DEVICE_PASS
    return mixk_fixed16_step_fma(s);
#else
    return s / (float)MIXK_FIXED16_QMAX;
#endif
}

/* q = round(x * inv_step) to nearest even, clamped to [-32767, 32767]; NaN gives 0 (the block's
 * NaN scale carries it).  The product is rounded on its own (no FMA) so host and device agree. */
static inline MIXK_HD int16_t mixk_fixed16_encode(float x, float inv_step)
{
#ifdef MIXK_DEVICE_PASS
    float t = __fmul_rn(x, inv_step);
#else
    float t = x * inv_step;
#endif
    if (t != t) return 0;
    t = t > (float)MIXK_FIXED16_QMAX ? (float)MIXK_FIXED16_QMAX : t;
    t = t < -(float)MIXK_FIXED16_QMAX ? -(float)MIXK_FIXED16_QMAX : t;
#ifdef MIXK_DEVICE_PASS
    return (int16_t)__float2int_rn(t);
#else
    /* Adding and removing 1.5*2^23 rounds |t| < 2^22 to an integer, ties to even (C does not
     * reassociate floating-point sums, so the pair survives optimisation). */
    return (int16_t)(int)((t + 12582912.0f) - 12582912.0f);
#endif
}

static inline MIXK_HD float mixk_fixed16_decode(int16_t q, float step)
{
#ifdef MIXK_DEVICE_PASS
    return __fmul_rn((float)q, step);
#else
    return (float)q * step;
#endif
}

/* The step of a FIXED16 matrix row, a_ij = q_ij h_i with h_i = c 2^(E_i-127): c in [1, 2) one
 * float per matrix (mixk_fixed16_mant: the mantissa of the largest off-diagonal magnitude, so
 * that rows of equal magnitudes, a Jacobi-scaled stencil's, hold it exactly: -1/6 with a
 * power of two alone was off by 2.3e-5 and cost FIXED16 CG 15 % more iterations), and per row
 * the byte E_i (the biased exponent of a float 2^(E_i-127)), the smallest in [1, 254] with
 * m_i = max_{j!=i} |a_ij| <= 32767 h_i, so that |q| <= 32767 without clamping and |q| > 16383
 * for the row's largest entry (14 to 15 bits for one byte instead of a float's four).  E = 0
 * for m_i = 0 (h = 0).  Below m = 32767 * 2^-126 (about 4.8e-34) E stays 1 and the row loses
 * accuracy, as the float norms of the vector blocks do below 9.6e-35.  m finite. */
static inline MIXK_HD float mixk_fixed16_mant(double m)
{
    if (!(m > 0.0) || m > 1e300) return 1.0f;
    int e;
    const double f = 2.0 * frexp(m, &e); /* [1, 2) */
    const float c = (float)f;
    return c < 2.0f ? c : 1.0f; /* f just below 2 may round up to 2 */
}

/* 2^p, from its bits where it is a normal double (what ldexp gives, without the call: the
 * row exponents below are two to four of these a row, a tenth of a conversion's time). */
static inline MIXK_HD double mixk_pow2(int p)
{
    return p >= -1022 && p <= 1023 ? mixk_bits_f64((uint64_t)(p + 1023) << 52) : ldexp(1.0, p);
}

static inline MIXK_HD unsigned mixk_fixed16_row_exp(double m, float c)
{
    if (!(m > 0.0)) return 0u;
    const double mc = m / (double)c;
    const int biased = (int)((mixk_f64_bits(mc) >> 52) & 0x7ff);
    int e = biased - 1022; /* frexp's: m / c in [2^(e-1), 2^e) */
    if (biased == 0) (void)frexp(mc, &e); /* subnormal */
    int p = e - 16;
    /* 32767 c 2^p is exact in double: the smallest p with m <= it. */
    while (m > (double)MIXK_FIXED16_QMAX * (double)c * mixk_pow2(p)) p++;
    while (m <= (double)MIXK_FIXED16_QMAX * (double)c * mixk_pow2(p - 1) && p + 127 > 1) p--;
    const int E = p + 127;
    return E < 1 ? 1u : E > 254 ? 254u : (unsigned)E;
}

/* 2^(E-127) as a float from the byte (0 gives 0). */
static inline MIXK_HD float mixk_fixed16_exp_step(unsigned E)
{
    return mixk_bits_f32((uint32_t)E << 23);
}

/* The row's step h = c 2^(E-127), exact in double. */
static inline MIXK_HD double mixk_fixed16_row_step(unsigned E, float c)
{
    return (double)c * (double)mixk_fixed16_exp_step(E);
}

/* q = round(x * inv_step) to nearest even in double, clamped to [-qmax, qmax] (qmax < 2^31);
 * NaN gives 0.  FIXED16's matrix values take qmax = MIXK_FIXED16_QMAX; the MPI halo's 17-bit
 * wire takes 65535. */
static inline MIXK_HD int32_t mixk_fixed_encode_f64(double x, double inv_step, double qmax)
{
#ifdef MIXK_DEVICE_PASS
    double t = __dmul_rn(x, inv_step);
#else
    double t = x * inv_step;
#endif
    if (t != t) return 0;
    t = t > qmax ? qmax : t < -qmax ? -qmax : t;
#ifdef MIXK_DEVICE_PASS
    return (int32_t)__double2int_rn(t);
#else
    return (int32_t)((t + 6755399441055744.0) - 6755399441055744.0); /* 1.5*2^52 */
#endif
}

/* FP64 input (matrix values): the product and the rounding in double. */
static inline MIXK_HD int16_t mixk_fixed16_encode_f64(double x, double inv_step)
{
    return (int16_t)mixk_fixed_encode_f64(x, inv_step, (double)MIXK_FIXED16_QMAX);
}

#endif
