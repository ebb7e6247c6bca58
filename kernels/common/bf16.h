/* bf16.h: bfloat16 conversions for host and device (round to nearest even, overflow to Inf). */
#ifndef MIXK_BF16_H
#define MIXK_BF16_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"
#include "kernels/common/fpbits.h"

static inline MIXK_HD uint16_t mixk_f32_to_bf16(float x)
{
    return (uint16_t)mixk_round_bits(mixk_f32_bits(x), 8, 23, 8, 7);
}

/* Straight from the double: one rounding, BF16 subnormals included. */
static inline MIXK_HD uint16_t mixk_f64_to_bf16(double x)
{
    return (uint16_t)mixk_round_bits(mixk_f64_bits(x), 11, 52, 8, 7);
}

/* Exact; a signalling NaN comes back quiet, like the FP16 widening. */
static inline MIXK_HD float mixk_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    if ((u & 0x7fffffffu) > 0x7f800000u) u |= 0x400000u;
    return mixk_bits_f32(u);
}

/* The BF16 value nearest to x, as a float (Inf when it overflows). */
static inline MIXK_HD float mixk_round_bf16(float x)
{
    return mixk_bf16_to_f32(mixk_f32_to_bf16(x));
}

#endif
