/* bench_gpu.h: error exits shared by the GPU benchmark programs (a benchmark, unlike the library, may stop). */
#ifndef MIXSOLVE_BENCH_GPU_H
#define MIXSOLVE_BENCH_GPU_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>

/* Each program defines BENCH_GPU_NAME (its name, for the one line on stderr) before including. */
static void die(const char *what, const char *detail)
{
    fprintf(stderr, BENCH_GPU_NAME ": %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) die(#call, cudaGetErrorString(e_));                                 \
    } while (0)
#define CB(call)                                                                                   \
    do {                                                                                           \
        if ((call) != CUBLAS_STATUS_SUCCESS) die(#call, "cuBLAS call failed");                     \
    } while (0)

#endif
