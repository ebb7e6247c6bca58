/* onednn_gemm.h: the CPU backend's GEMM engines (OpenBLAS emulation or oneDNN matmul) and their choice. */
#ifndef MIX_ONEDNN_GEMM_H
#define MIX_ONEDNN_GEMM_H

#include <stddef.h>
#include "mixsolve.h"

enum { MIXI_GEMM_OPENBLAS = 0, MIXI_GEMM_ONEDNN = 1 };

/* Engine that serves the gemm_f32 op for `compute` (FP16 and TF32 round their inputs and then
 * follow FP32).  oneDNN for BF16 when it is built and the CPU has AVX512-BF16, for FP32 when it
 * is built and the CPU has AVX-512; the environment variable MIXSOLVE_CPU_GEMM=onednn|openblas
 * (read once) forces either, as does the test hook below, BF16 only where oneDNN can create its
 * primitive on this CPU.  Without oneDNN: always OpenBLAS. */
int mixi_cpu_gemm_engine(mix_prec compute);
/* Test hook: MIXI_GEMM_OPENBLAS or MIXI_GEMM_ONEDNN forces that engine, -1 restores the choice
 * above (environment included). */
void mixi_cpu_gemm_force_engine(int engine);

/* The gemm_f32 op of kernels/backend_dense.h on oneDNN's matmul (column-major, transpose flags
 * as the op's, inputs rounded to `compute` RNE, FP32 accumulation, *overflow = inputs that
 * overflowed `compute`).  compute = MIX_FP32 or MIX_BF16 (BF16 copies of A and B go to `work`,
 * which needs (m*k + k*n) * 2 bytes); anything else, or a primitive oneDNN cannot create on this CPU, gives MIX_ERR_UNSUPPORTED
 * with C untouched, so the caller can fall back to the emulation.  Only when MIX_HAVE_ONEDNN. */
int mixi_onednn_gemm_f32(mix_prec compute, int transa, int transb, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b, int ldb, float beta,
                         float *c, int ldc, void *work, size_t *overflow);

/* 1 when oneDNN can create a matmul for `compute` (MIX_FP32 or MIX_BF16) on this CPU (probed
 * once).  Only when MIX_HAVE_ONEDNN. */
int mixi_onednn_supports(mix_prec compute);

#endif
