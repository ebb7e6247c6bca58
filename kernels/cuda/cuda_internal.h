/* cuda_internal.h: the CUDA backend's per-context state, shared by its C files and .cu kernels. */
#ifndef MIX_CUDA_INTERNAL_H
#define MIX_CUDA_INTERNAL_H

#include <cuda_runtime_api.h>
#include "kernels/cuda/cuda_libs.h" /* cuBLAS, cuSOLVER, cuSPARSE through the table */

typedef struct {
    int device;
    cudaStream_t stream;        /* one stream per context: every call is ordered on it */
    cublasHandle_t cublas;
    cusolverDnHandle_t cusolver;
    cusparseHandle_t cusparse;
    int *d_flag;                /* device-side flag (overflow, NaN) read back once per check */
    double *sp_ws;              /* sparse family: FP64 reduction workspace, made on first use */
    double *sp_host;            /* sparse family: pinned host copy of the reduced scalars */
    /* Pinned staging for host<->device copies: two buffers so a memcpy overlaps the other's DMA. */
    void *staging[2];
    cudaEvent_t staged[2];
    char name[128];
    int cc_major, cc_minor;
} mixi_cuda_state;

#define MIXI_CUDA_STAGING_BYTES ((size_t)4 << 20)

/* Map CUDA library errors to our statuses (cuda_status.c). */
int mixi_cuda_status(cudaError_t e);
int mixi_cublas_status(cublasStatus_t s);
int mixi_cusolver_status(cusolverStatus_t s);
int mixi_cusparse_status(cusparseStatus_t s);

/* The table's memory operations (cuda_memory.c; kernels/backend.h says what each does), which the
 * sparse family calls directly as well. */
int mixi_cuda_alloc(void *state, void **ptr, size_t bytes);
void mixi_cuda_free(void *state, void *ptr);
int mixi_cuda_upload(void *state, void *dst, const void *src, size_t bytes);
int mixi_cuda_download(void *state, void *dst, const void *src, size_t bytes);
int mixi_cuda_copy(void *state, void *dst, const void *src, size_t bytes);
int mixi_cuda_memset0(void *state, void *dst, size_t bytes);
int mixi_cuda_synchronize(void *state);

#endif
