/* mix_hd.h: the device-pass macros of kernels/common, named for no vendor: MIXK_HD marks functions compiled for the host and a device, MIXK_DEVICE_PASS the device side of a compile. */
#ifndef MIXK_HD_H
#define MIXK_HD_H

/* A device backend's compiler (CUDA's nvcc, HIP's hipcc) compiles kernels/common for both sides.
 * A new device toolchain is one more test here, not an edit of every header. */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define MIXK_DEVICE_COMPILER 1
#define MIXK_HD __host__ __device__
#else
#define MIXK_HD
#endif

/* The device side of such a compile: the bodies use the device's intrinsics (__float_as_uint,
 * __fmul_rn, ... which HIP spells as CUDA does) instead of the host C. */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define MIXK_DEVICE_PASS 1
#endif

/* For the small per-block bodies the backends' loops are built from: inlined even inside large
 * functions, where the compiler's size heuristics would otherwise call them once per block. */
#if defined(__GNUC__) || defined(MIXK_DEVICE_COMPILER)
#define MIXK_ALWAYS_INLINE __attribute__((always_inline))
#else
#define MIXK_ALWAYS_INLINE
#endif

#endif
