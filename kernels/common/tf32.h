/* tf32.h: TF32 rounding (FP32 with a 10-bit mantissa) for host and device, as Tensor Cores see their inputs. */
#ifndef MIXK_TF32_H
#define MIXK_TF32_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"
#include "kernels/common/fpbits.h"

/* Keeps 10 mantissa bits, round to nearest even; Inf/NaN kept (NaN quieted), overflow to Inf. */
static inline MIXK_HD float mixk_round_tf32(float x)
{
    return mixk_bits_f32(mixk_round_bits(mixk_f32_bits(x), 8, 23, 8, 10) << 13);
}

#endif
