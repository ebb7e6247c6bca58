/* fp16.h: IEEE binary16 conversions for host and device (round to nearest even, overflow to Inf). */
#ifndef MIXK_FP16_H
#define MIXK_FP16_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"
#include "kernels/common/fpbits.h"

#define MIXK_F16_MAX 65504.0f
#define MIXK_F16_INF 0x7c00u

static inline MIXK_HD uint16_t mixk_f32_to_f16(float x)
{
    return (uint16_t)mixk_round_bits(mixk_f32_bits(x), 8, 23, 5, 10);
}

/* Straight from the double: one rounding (going through float could round twice). */
static inline MIXK_HD uint16_t mixk_f64_to_f16(double x)
{
    return (uint16_t)mixk_round_bits(mixk_f64_bits(x), 11, 52, 5, 10);
}

/* Exact.  A signalling NaN comes back quiet, as F16C's vcvtph2ps does. */
static inline MIXK_HD float mixk_f16_to_f32(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1fu) return mixk_bits_f32(sign | 0x7f800000u | (m ? 0x400000u : 0u) | (m << 13));
    if (e == 0) /* zero or subnormal: m * 2^-24, exact in float */
        return mixk_bits_f32(sign | mixk_f32_bits((float)m * 5.9604644775390625e-8f));
    return mixk_bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

/* The FP16 value nearest to x, as a float (Inf when it overflows). */
static inline MIXK_HD float mixk_round_f16(float x)
{
    return mixk_f16_to_f32(mixk_f32_to_f16(x));
}

#endif
