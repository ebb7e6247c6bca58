/* cuda_status.c: CUDA runtime and library errors as the library's statuses, for every C file of
 * the backend (the table, memory, dense and sparse families). */
#include "lib/core/core.h"
#include "kernels/cuda/cuda_internal.h"

int mixi_cuda_status(cudaError_t e)
{
    if (e == cudaSuccess) return MIX_SUCCESS;
    if (e == cudaErrorMemoryAllocation) return MIX_ERR_ALLOC;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInvalidDevice)
        return MIX_ERR_BACKEND;
    return MIX_ERR_INTERNAL;
}

/* cuBLAS, cuSOLVER and cuSPARSE statuses (PFX##_STATUS_*) as library status codes. */
#define MIXI_LIB_STATUS(fn, T, PFX)                                                               \
    int fn(T s)                                                                                   \
    {                                                                                             \
        if (s == PFX##_STATUS_SUCCESS) return MIX_SUCCESS;                                        \
        if (s == PFX##_STATUS_ALLOC_FAILED) return MIX_ERR_ALLOC;                                 \
        if (s == PFX##_STATUS_NOT_INITIALIZED) return MIX_ERR_BACKEND;                            \
        if (s == PFX##_STATUS_NOT_SUPPORTED || s == PFX##_STATUS_ARCH_MISMATCH)                   \
            return MIX_ERR_UNSUPPORTED;                                                           \
        return MIX_ERR_INTERNAL;                                                                  \
    }
MIXI_LIB_STATUS(mixi_cublas_status, cublasStatus_t, CUBLAS)
MIXI_LIB_STATUS(mixi_cusolver_status, cusolverStatus_t, CUSOLVER)
MIXI_LIB_STATUS(mixi_cusparse_status, cusparseStatus_t, CUSPARSE)
