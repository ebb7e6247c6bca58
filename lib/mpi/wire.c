/* wire.c: halo values on the wire: FP64, FP32, or 16 bits with one scale per message (as QUDA's
 * half-precision ghost zones), so a 16-bit halo costs half an FP32 one; the FIXED16 wire carries
 * one bit more per value (17 bits: 2.125 bytes, 0.53x FP32's). */
#include <math.h>
#include <string.h>
#include "lib/mpi/mpi_internal.h"
#include "kernels/common/fp16.h"
#include "kernels/common/bf16.h"
#include "kernels/common/fixed16.h"

int mixi_wire_valid(mix_prec wire)
{
    return wire == MIX_FP64 || wire == MIX_FP32 || wire == MIX_FP16 || wire == MIX_BF16 ||
           wire == MIX_FIXED16;
}

/* Header bytes: FP16/BF16 an int32 power of two, FIXED16 the double max |x| (a double, so
 * values beyond FLT_MAX keep their scale). */
static size_t header(mix_prec wire)
{
    return wire == MIX_FIXED16 ? sizeof(double) : wire == MIX_FP16 || wire == MIX_BF16 ? 4 : 0;
}

/* The FIXED16 wire: q = round(x 65535 / s) in [-65535, 65535], 17 bits: q + 65535's low 16 bits
 * a value, its 17th bit in a bitmap after them.  The 16th bit of precision is what b = A 1 on 3D
 * Poisson 60^3 needs on 4 ranks: 212 iterations as on one process, against 226 with 16 bits
 * (the face rounding breaks that right-hand side's symmetry: doc/scaling.md). */
#define WIRE_Q17 65535

size_t mixi_wire_bytes(mix_prec wire, int n)
{
    if (!mixi_wire_valid(wire) || n <= 0) return 0;
    const size_t bitmap = wire == MIX_FIXED16 ? ((size_t)n + 7) / 8 : 0;
    return header(wire) + (size_t)n * (size_t)mixk_prec_bytes(wire) + bitmap;
}

/* max |x| over the message; NaN if one is NaN (it then spreads on decoding). */
static double amax(const double *x, const int *idx, int n)
{
    double m = 0.0;
    int nan = 0;
    for (int t = 0; t < n; t++) {
        const double a = fabs(x[idx ? idx[t] : t]);
        nan |= a != a;
        m = a > m ? a : m;
    }
    return nan ? NAN : m;
}

void mixi_wire_pack(mix_prec wire, const double *x, const int *idx, int n, void *buf)
{
    unsigned char *b = buf;
    if (wire == MIX_FP64 || wire == MIX_FP32) {
        for (int t = 0; t < n; t++) {
            const double v = x[idx ? idx[t] : t];
            if (wire == MIX_FP64) memcpy(b + 8 * (size_t)t, &v, 8);
            else { const float f = (float)v; memcpy(b + 4 * (size_t)t, &f, 4); }
        }
        return;
    }
    const double m = amax(x, idx, n);
    uint16_t *q = (uint16_t *)(b + header(wire));
    if (wire == MIX_FIXED16) {
        memcpy(b, &m, sizeof m);
        unsigned char *hi = (unsigned char *)(q + n);
        memset(hi, 0, ((size_t)n + 7) / 8);
        const double inv = m == 0.0 ? 0.0 : WIRE_Q17 / m;
        for (int t = 0; t < n; t++) {
            const int32_t q17 = mixk_fixed_encode_f64(x[idx ? idx[t] : t], inv, WIRE_Q17);
            const uint32_t u = (uint32_t)(q17 + WIRE_Q17);
            q[t] = (uint16_t)u;
            hi[t >> 3] |= (unsigned char)((u >> 16) << (t & 7));
        }
        return;
    }
    /* A power of two: the scaling is exact, only the 16-bit rounding remains. */
    const int32_t e = m > 0.0 && isfinite(m) ? (int32_t)ilogb(m) - 14 : 0;
    memcpy(b, &e, 4);
    for (int t = 0; t < n; t++) {
        const double v = ldexp(x[idx ? idx[t] : t], -e);
        q[t] = wire == MIX_FP16 ? mixk_f64_to_f16(v) : mixk_f64_to_bf16(v);
    }
}

void mixi_wire_unpack(mix_prec wire, const void *buf, int n, double *out)
{
    const unsigned char *b = buf;
    if (wire == MIX_FP64 || wire == MIX_FP32) {
        for (int t = 0; t < n; t++) {
            if (wire == MIX_FP64) memcpy(&out[t], b + 8 * (size_t)t, 8);
            else { float f; memcpy(&f, b + 4 * (size_t)t, 4); out[t] = f; }
        }
        return;
    }
    const uint16_t *q = (const uint16_t *)(b + header(wire));
    if (wire == MIX_FIXED16) {
        double m;
        memcpy(&m, b, sizeof m);
        const unsigned char *hi = (const unsigned char *)(q + n);
        const double step = m / WIRE_Q17;
        for (int t = 0; t < n; t++) {
            const int32_t u = (int32_t)q[t] | (int32_t)((hi[t >> 3] >> (t & 7)) & 1) << 16;
            out[t] = (double)(u - WIRE_Q17) * step;
        }
        return;
    }
    int32_t e;
    memcpy(&e, b, 4);
    for (int t = 0; t < n; t++)
        out[t] = ldexp((double)(wire == MIX_FP16 ? mixk_f16_to_f32(q[t]) : mixk_bf16_to_f32(q[t])), e);
}
