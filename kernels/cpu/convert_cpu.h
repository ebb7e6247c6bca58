/* convert_cpu.h: vectorised CPU array conversions between FP64/FP32/FP16/BF16/TF32/FIXED16, bit-identical to kernels/common. */
#ifndef MIX_CONVERT_CPU_H
#define MIX_CONVERT_CPU_H

#include <stddef.h>
#include <stdint.h>
#include "mixsolve.h"

/* Each loop picks an AVX2+F16C body at run time when the CPU has it, else portable C; both give
 * the bit patterns of the inline functions of kernels/common/formats.h.  Large arrays are split
 * over OpenMP threads.  Narrowing conversions return how many finite inputs became +-Inf. */
size_t mixi_cpu_f64_to_f32(size_t n, const double *x, float *y);
void mixi_cpu_f32_to_f64(size_t n, const float *x, double *y);
size_t mixi_cpu_f64_to_f16(size_t n, const double *x, uint16_t *y);
size_t mixi_cpu_f32_to_f16(size_t n, const float *x, uint16_t *y);
void mixi_cpu_f16_to_f32(size_t n, const uint16_t *x, float *y);
size_t mixi_cpu_f64_to_bf16(size_t n, const double *x, uint16_t *y);
size_t mixi_cpu_f32_to_bf16(size_t n, const float *x, uint16_t *y);
void mixi_cpu_bf16_to_f32(size_t n, const uint16_t *x, float *y);

/* Rounds each value to precision p (MIX_FP32: copy, MIX_TF32, MIX_FP16, MIX_BF16) and keeps it
 * as a float: the inputs a Tensor Core GEMM sees.  x == y allowed.  Returns the overflow count;
 * another p copies and returns 0. */
size_t mixi_cpu_round_f32(mix_prec p, size_t n, const float *x, float *y);
/* The same on an m x n column-major matrix (leading dimensions ldx, ldy >= m), OpenMP over
 * columns where the BLAS shares the pool; x == y with ldx == ldy allowed. */
size_t mixi_cpu_round_f32_matrix(mix_prec p, int m, int n, const float *x, int ldx, float *y,
                                 int ldy);
/* BF16 copy of an m x n column-major FP32 matrix (threads as above); returns the overflow count. */
size_t mixi_cpu_f32_to_bf16_matrix(int m, int n, const float *x, int ldx, uint16_t *y, int ldy);

/* FIXED16 vectors in blocks of `block` values (0: one block): scales[k] = max |x| of block k
 * (ceil(n/block) entries), q = round(x * 32767 / scale).  A block with a NaN gets a NaN scale. */
void mixi_cpu_fixed16_encode(size_t n, size_t block, const float *x, int16_t *q, float *scales);
void mixi_cpu_fixed16_decode(size_t n, size_t block, const int16_t *q, const float *scales,
                             float *x);

/* Test hook: 1 makes every loop above take its portable C body, 0 restores the run-time choice. */
void mixi_cpu_convert_force_portable(int on);

#endif
