/* fpbits.h: bit casts between floating-point values and their IEEE patterns, and the one rounding routine every narrowing format conversion uses (host and device). */
#ifndef MIXK_FPBITS_H
#define MIXK_FPBITS_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"

/* Device code has intrinsics for the casts; C (and nvcc's host pass) uses a union, which C11
 * defines and gcc/clang/MSVC honour in C++ too.  Defines mixk_f32_bits, mixk_bits_f32,
 * mixk_f64_bits and mixk_bits_f64. */
#ifdef MIXK_DEVICE_PASS
#define MIXK_BITCAST_(name, TI, TO, TD, intrinsic) \
    static inline MIXK_HD TO name(TI x) { return (TO)intrinsic((TD)x); }
#else
#define MIXK_BITCAST_(name, TI, TO, TD, intrinsic) \
    static inline MIXK_HD TO name(TI x)               \
    {                                                 \
        union { TI in; TO out; } c;                   \
        c.in = x;                                     \
        return c.out;                                 \
    }
#endif
MIXK_BITCAST_(mixk_f32_bits, float, uint32_t, float, __float_as_uint)
MIXK_BITCAST_(mixk_bits_f32, uint32_t, float, uint32_t, __uint_as_float)
MIXK_BITCAST_(mixk_f64_bits, double, uint64_t, double, __double_as_longlong)
MIXK_BITCAST_(mixk_bits_f64, uint64_t, double, long long, __longlong_as_double)
#undef MIXK_BITCAST_

/* Rounds the IEEE pattern `u` of a binary format with `se` exponent and `sm` stored mantissa
 * bits to the binary format with `de` <= `se` exponent and `dm` < `sm` mantissa bits (with
 * subnormals), and returns the new pattern.  One rounding, to nearest, ties to even; values
 * beyond the largest finite one round to +-Inf; Inf stays Inf; NaN stays NaN, quieted, keeping
 * the top dm-1 payload bits.  With constant format arguments the compiler folds it to the
 * usual shift-and-add sequence, so FP16, BF16 and TF32 are written once here. */
static inline MIXK_HD uint32_t mixk_round_bits(uint64_t u, int se, int sm, int de, int dm)
{
    const uint64_t smask = ((uint64_t)1 << sm) - 1;
    const uint64_t a = u & ~((uint64_t)1 << (se + sm));            /* |x| */
    const uint32_t sign = (uint32_t)(u >> (se + sm)) << (de + dm);
    const int es = (int)(a >> sm);                                  /* biased source exponent */
    const int emax_s = (1 << se) - 1, emax_d = (1 << de) - 1;
    const uint32_t inf = (uint32_t)emax_d << dm;
    const int shift = sm - dm;

    if (es == emax_s) {
        if ((a & smask) == 0) return sign | inf;
        return sign | inf | ((uint32_t)1 << (dm - 1)) | (uint32_t)((a & smask) >> shift);
    }
    const int bias_s = (1 << (se - 1)) - 1, bias_d = (1 << (de - 1)) - 1;
    const int e = (es > 0 ? es : 1) - bias_s + bias_d; /* biased destination exponent */
    if (e >= emax_d) return sign | inf;
    if (e >= 1) {
        /* Normal in the destination (or a source subnormal when the exponent ranges agree):
         * rebias, then round at bit `shift`; a carry out of the mantissa bumps the exponent,
         * up to the Inf pattern, as it should. */
        uint64_t r = a - ((uint64_t)(bias_s - bias_d) << sm);
        r += ((uint64_t)1 << (shift - 1)) - 1 + ((r >> shift) & 1);
        return sign | (uint32_t)(r >> shift);
    }
    /* Subnormal (or zero) in the destination: count in units of its smallest subnormal. */
    const int sh = shift + 1 - e;
    if (sh > sm + 1) return sign; /* below half the smallest subnormal */
    const uint64_t m = (a & smask) | (es > 0 ? (uint64_t)1 << sm : 0);
    uint64_t q = m >> sh;
    const uint64_t rem = m & (((uint64_t)1 << sh) - 1), half = (uint64_t)1 << (sh - 1);
    q += (rem > half || (rem == half && (q & 1))) ? 1 : 0;
    return sign | (uint32_t)q;
}

#endif
