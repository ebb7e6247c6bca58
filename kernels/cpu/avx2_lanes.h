/* avx2_lanes.h: BF16 <-> FP32 conversions of eight AVX2 lanes, bit-identical to kernels/common/bf16.h (shared by convert_cpu.c and sparse_cpu.c). */
#ifndef MIX_AVX2_LANES_H
#define MIX_AVX2_LANES_H

#include <immintrin.h>

#define MIXI_AVX2 __attribute__((target("avx2,f16c,fma"))) /* mixi_cpu_has_f16c() */

/* FP32 patterns -> BF16 patterns in the low 16 bits of each 32-bit lane. */
MIXI_AVX2 static inline __m256i f32_to_bf16_lanes(__m256i u)
{
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    const __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb), 16);
    const __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                           _mm256_set1_epi32(0x7f800000));
    return _mm256_blendv_epi8(r, q, nan);
}

/* Eight 32-bit lanes holding 16-bit values -> eight uint16 in a 128-bit register. */
MIXI_AVX2 static inline __m128i pack_u16(__m256i v)
{
    const __m256i p = _mm256_packus_epi32(v, v);
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(p, 0x08));
}

/* BF16 patterns (zero-extended in 32-bit lanes) -> FP32, signalling NaNs quieted. */
MIXI_AVX2 static inline __m256 bf16_lanes_to_f32(__m256i h)
{
    const __m256i u = _mm256_slli_epi32(h, 16);
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                           _mm256_set1_epi32(0x7f800000));
    return _mm256_castsi256_ps(
        _mm256_or_si256(u, _mm256_and_si256(nan, _mm256_set1_epi32(0x400000))));
}

#endif
