/* cuda_backend.c: the CUDA backend's table: device detection, handles on one stream, caps (memory: cuda_memory.c). */
#include <stdio.h>
#include <string.h>
#include "lib/core/core.h"
#include "kernels/cuda/cuda_internal.h"
#include "kernels/backend_dense.h"
#include "kernels/backend_sparse.h"

extern const mixi_dense_ops mixi_cuda_dense_ops;   /* dense_cuda.c */
extern const mixi_sparse_ops mixi_cuda_sparse_ops; /* sparse_cuda.c */

/* A device answers: the driver loads and at least one GPU is visible. Never crashes without one. */
static int device_present(int *device)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        (void)cudaGetLastError(); /* clear the sticky error the runtime leaves */
        return 0;
    }
    if (cudaGetDevice(device) != cudaSuccess) *device = 0;
    return 1;
}

static void cuda_fini(void *state)
{
    mixi_cuda_state *s = state;
    if (!s) return;
    if (s->d_flag) cudaFree(s->d_flag);
    for (int i = 0; i < 2; i++) {
        if (s->staging[i]) cudaFreeHost(s->staging[i]);
        if (s->staged[i]) cudaEventDestroy(s->staged[i]);
    }
    if (s->sp_ws) cudaFree(s->sp_ws);
    if (s->sp_host) cudaFreeHost(s->sp_host);
    if (s->cusparse) cusparseDestroy(s->cusparse);
    if (s->cusolver) cusolverDnDestroy(s->cusolver);
    if (s->cublas) cublasDestroy(s->cublas);
    if (s->stream) cudaStreamDestroy(s->stream);
    mixi_free(s);
}

static int cuda_init(void **state)
{
    *state = NULL;
    int device = 0;
    if (!device_present(&device) || mixi_cuda_libs_load()) return MIX_ERR_BACKEND;
    mixi_cuda_state *s = mixi_calloc(1, sizeof *s);
    if (!s) return MIX_ERR_ALLOC;
    s->device = device;
    int st = MIX_SUCCESS;
    struct cudaDeviceProp prop;
    if ((st = mixi_cuda_status(cudaGetDeviceProperties(&prop, device)))) goto fail;
    snprintf(s->name, sizeof s->name, "%.120s", prop.name);
    s->cc_major = prop.major;
    s->cc_minor = prop.minor;
    if ((st = mixi_cuda_status(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)))) goto fail;
    if ((st = mixi_cublas_status(cublasCreate(&s->cublas)))) goto fail;
    if ((st = mixi_cublas_status(cublasSetStream(s->cublas, s->stream)))) goto fail;
    if ((st = mixi_cusolver_status(cusolverDnCreate(&s->cusolver)))) goto fail;
    if ((st = mixi_cusolver_status(cusolverDnSetStream(s->cusolver, s->stream)))) goto fail;
    if ((st = mixi_cusparse_status(cusparseCreate(&s->cusparse)))) goto fail;
    if ((st = mixi_cusparse_status(cusparseSetStream(s->cusparse, s->stream)))) goto fail;
    if ((st = mixi_cuda_status(cudaMalloc((void **)&s->d_flag, sizeof(int))))) goto fail;
    for (int i = 0; i < 2; i++) {
        if ((st = mixi_cuda_status(cudaHostAlloc(&s->staging[i], MIXI_CUDA_STAGING_BYTES, cudaHostAllocDefault)))) goto fail;
        if ((st = mixi_cuda_status(cudaEventCreateWithFlags(&s->staged[i], cudaEventDisableTiming)))) goto fail;
    }
    *state = s;
    return MIX_SUCCESS;
fail:
    cuda_fini(s);
    return st;
}

static int cuda_caps(mix_caps *caps)
{
    int device = 0;
    if (!device_present(&device)) {
        caps->available = 0;
        snprintf(caps->device, sizeof caps->device, "no CUDA device answers");
        snprintf(caps->libraries, sizeof caps->libraries, "cuBLAS, cuSOLVER, cuSPARSE (compiled)");
        return MIX_SUCCESS;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return MIX_ERR_BACKEND;
    if (mixi_cuda_libs_load()) { /* a GPU, but no library to drive it */
        caps->available = 0;
        snprintf(caps->device, sizeof caps->device, "%.60s: %.40s could not be loaded", prop.name,
                 mixi_cuda_libs_missing());
        snprintf(caps->libraries, sizeof caps->libraries, "cuBLAS, cuSOLVER, cuSPARSE (compiled)");
        return MIX_SUCCESS;
    }
    caps->available = 1;
    int tc = prop.major >= 8; /* Ampere and later: FP16, BF16 and TF32 Tensor Cores */
    caps->gemm[MIX_FP64] = MIX_PREC_NATIVE;
    caps->gemm[MIX_FP32] = MIX_PREC_NATIVE;
    caps->gemm[MIX_TF32] = tc ? MIX_PREC_NATIVE : MIX_PREC_UNSUPPORTED;
    caps->gemm[MIX_FP16] = prop.major >= 7 ? MIX_PREC_NATIVE : MIX_PREC_UNSUPPORTED;
    caps->gemm[MIX_BF16] = tc ? MIX_PREC_NATIVE : MIX_PREC_UNSUPPORTED;
    for (int p = 0; p < MIX_NUM_PREC; p++) caps->storage[p] = MIX_PREC_NATIVE; /* the table's kernels */
    snprintf(caps->device, sizeof caps->device, "%.90s (sm_%d%d, %.0f GiB)", prop.name, prop.major,
             prop.minor, (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    snprintf(caps->libraries, sizeof caps->libraries, "CUDA runtime %d.%d, cuBLAS, cuSOLVER, cuSPARSE",
             rt / 1000, (rt % 1000) / 10);
    return MIX_SUCCESS;
}

const mixi_backend_ops mixi_cuda_backend = {
    .flags = MIXI_BACKEND_DEVICE_POINTERS,
    .init = cuda_init,
    .fini = cuda_fini,
    .caps = cuda_caps,
    .alloc = mixi_cuda_alloc,
    .free = mixi_cuda_free,
    .upload = mixi_cuda_upload,
    .download = mixi_cuda_download,
    .copy = mixi_cuda_copy,
    .memset0 = mixi_cuda_memset0,
    .synchronize = mixi_cuda_synchronize,
    .dense = &mixi_cuda_dense_ops,
    .sparse = &mixi_cuda_sparse_ops,
};
