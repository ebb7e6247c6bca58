/* mix_hd.h: MIX_HD marks functions compiled for both the host and the CUDA device. */
#ifndef MIX_HD_H
#define MIX_HD_H

#ifdef __CUDACC__
#define MIX_HD __host__ __device__
#else
#define MIX_HD
#endif

/* For the small per-block bodies the backends' loops are built from: inlined even inside large
 * functions, where the compiler's size heuristics would otherwise call them once per block. */
#if defined(__GNUC__) || defined(__CUDACC__)
#define MIXK_ALWAYS_INLINE __attribute__((always_inline))
#else
#define MIXK_ALWAYS_INLINE
#endif

#endif
