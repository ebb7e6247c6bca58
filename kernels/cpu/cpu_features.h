/* cpu_features.h: run-time CPU feature checks that pick vectorised loops and GEMM engines.
 * MIXSOLVE_CPU_ISA=native|avx512|avx2|portable (read once) lowers what they report, never raises
 * it: every path dispatched through them then runs as on that CPU class. */
#ifndef MIX_CPU_FEATURES_H
#define MIX_CPU_FEATURES_H

int mixi_cpu_has_f16c(void);        /* F16C + AVX2 + FMA: hardware FP16<->FP32 conversion */
int mixi_cpu_has_avx512f(void);
int mixi_cpu_has_avx512_bf16(void);
int mixi_cpu_has_avx512_fp16(void);
int mixi_cpu_has_amx_bf16(void);     /* AMX-BF16 tiles, OS-enabled (oneDNN asks the kernel for them) */
/* oneDNN compiled in and the CPU has AVX512-BF16 or AMX-BF16: BF16 GEMM runs natively. */
int mixi_cpu_has_native_bf16_gemm(void);

/* 1 when OpenBLAS is its OpenMP build and this library uses OpenMP: one thread pool for BLAS,
 * oneDNN and our loops, so our O(n^2) loops may be parallel (probed once). */
int mixi_cpu_blas_shares_omp_pool(void);
/* Clamps the calling thread's OpenMP thread count to the team OpenMP can give it (OpenBLAS's
 * OpenMP build hangs when its team comes out smaller). */
void mixi_cpu_omp_clamp(void);

/* 1 when OpenBLAS runs kernels of an older vector ISA than this CPU's (its build predates the
 * CPU model and took a generic core): its FP32 GEMM and factorizations then give way to oneDNN's
 * (kernels/cpu/dense_cpu.c).  MIXSOLVE_CPU_ISA lowers the CPU's side. */
int mixi_cpu_blas_below_isa(void);
/* The core whose kernels OpenBLAS runs, as it names it ("SkylakeX", "Haswell", "Prescott"). */
const char *mixi_cpu_blas_core(void);
/* Test hook: 0 or 1 forces mixi_cpu_blas_below_isa's answer, -1 restores the probe. */
void mixi_cpu_blas_force_below_isa(int below);

/* Test hook: 1 makes the sparse kernels (SpMV and the fused CG passes of vec_cpu.c) take their
 * portable C bodies, 0 restores the run-time choice (kernels/cpu/sparse_cpu.h). */
void mixi_cpu_sparse_force_portable(int on);
int mixi_cpu_sparse_portable_forced(void);

#endif
