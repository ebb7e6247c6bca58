/* mix_hd.h: MIX_HD marks functions compiled for both the host and the CUDA device. */
#ifndef MIX_HD_H
#define MIX_HD_H

#ifdef __CUDACC__
#define MIX_HD __host__ __device__
#else
#define MIX_HD
#endif

#endif
