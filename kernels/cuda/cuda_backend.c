/* cuda_backend.c: the CUDA backend's table: device detection, handles on one stream, memory, caps. */
#include <stdio.h>
#include <string.h>
#include "lib/core/core.h"
#include "kernels/cuda/cuda_internal.h"
#include "kernels/backend_dense.h"
#include "kernels/backend_sparse.h"

extern const mixi_dense_ops mixi_cuda_dense_ops;   /* dense_cuda.c */
extern const mixi_sparse_ops mixi_cuda_sparse_ops; /* sparse_cuda.c */


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
    if (!device_present(&device)) return MIX_ERR_BACKEND;
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

static int cuda_alloc(void *state, void **ptr, size_t bytes)
{
    (void)state;
    *ptr = NULL;
    if (mixi_alloc_should_fail()) return MIX_ERR_ALLOC;
    cudaError_t e = cudaMalloc(ptr, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *ptr = NULL;
        return MIX_ERR_ALLOC;
    }
    return MIX_SUCCESS;
}

static void cuda_free(void *state, void *ptr)
{
    (void)state;
    if (ptr) cudaFree(ptr);
}

static int cuda_memcpy(void *state, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    mixi_cuda_state *s = state;
    if (!bytes) return MIX_SUCCESS;
    int st = mixi_cuda_status(cudaMemcpyAsync(dst, src, bytes, kind, s->stream));
    if (st) return st;
    /* Host buffers may be reused by the caller at once: finish host transfers here. */
    if (kind != cudaMemcpyDeviceToDevice) return mixi_cuda_status(cudaStreamSynchronize(s->stream));
    return MIX_SUCCESS;
}

/* Host transfers below this size go directly: staging only pays for bulk data. */
#define MIXI_CUDA_DIRECT_BYTES ((size_t)64 << 10)

/* Host -> device through the two pinned buffers: the memcpy of chunk i+1 into one buffer
 * overlaps the DMA of chunk i from the other. Returns when the caller's buffer may be reused. */
static int cuda_upload(void *state, void *dst, const void *src, size_t bytes)
{
    mixi_cuda_state *s = state;
    if (bytes <= MIXI_CUDA_DIRECT_BYTES) return cuda_memcpy(state, dst, src, bytes, cudaMemcpyHostToDevice);
    int st = MIX_SUCCESS;
    for (size_t off = 0, i = 0; off < bytes; off += MIXI_CUDA_STAGING_BYTES, i++) {
        size_t len = bytes - off < MIXI_CUDA_STAGING_BYTES ? bytes - off : MIXI_CUDA_STAGING_BYTES;
        int k = (int)(i & 1);
        if ((st = mixi_cuda_status(cudaEventSynchronize(s->staged[k])))) return st;
        memcpy(s->staging[k], (const char *)src + off, len);
        if ((st = mixi_cuda_status(cudaMemcpyAsync((char *)dst + off, s->staging[k], len,
                                                   cudaMemcpyHostToDevice, s->stream)))) return st;
        if ((st = mixi_cuda_status(cudaEventRecord(s->staged[k], s->stream)))) return st;
    }
    return mixi_cuda_status(cudaStreamSynchronize(s->stream));
}

/* Starts the DMA of chunk i of a staged download into pinned buffer i & 1. */
static int download_chunk(mixi_cuda_state *s, const void *src, size_t bytes, size_t i)
{
    size_t off = i * MIXI_CUDA_STAGING_BYTES;
    size_t len = bytes - off < MIXI_CUDA_STAGING_BYTES ? bytes - off : MIXI_CUDA_STAGING_BYTES;
    int k = (int)(i & 1), st;
    if ((st = mixi_cuda_status(cudaMemcpyAsync(s->staging[k], (const char *)src + off, len,
                                               cudaMemcpyDeviceToHost, s->stream)))) return st;
    return mixi_cuda_status(cudaEventRecord(s->staged[k], s->stream));
}

/* Device -> host through the pinned buffers: chunk i+1 is in flight while chunk i is copied out. */
static int cuda_download(void *state, void *dst, const void *src, size_t bytes)
{
    mixi_cuda_state *s = state;
    if (bytes <= MIXI_CUDA_DIRECT_BYTES) return cuda_memcpy(state, dst, src, bytes, cudaMemcpyDeviceToHost);
    size_t chunks = (bytes + MIXI_CUDA_STAGING_BYTES - 1) / MIXI_CUDA_STAGING_BYTES;
    int st = download_chunk(s, src, bytes, 0);
    for (size_t i = 0; !st && i < chunks; i++) {
        if (i + 1 < chunks && (st = download_chunk(s, src, bytes, i + 1))) break;
        int k = (int)(i & 1);
        if ((st = mixi_cuda_status(cudaEventSynchronize(s->staged[k])))) break;
        size_t off = i * MIXI_CUDA_STAGING_BYTES;
        size_t len = bytes - off < MIXI_CUDA_STAGING_BYTES ? bytes - off : MIXI_CUDA_STAGING_BYTES;
        memcpy((char *)dst + off, s->staging[k], len);
    }
    if (st) cudaStreamSynchronize(s->stream); /* no DMA may still target the buffers */
    return st;
}

static int cuda_copy(void *state, void *dst, const void *src, size_t bytes)
{
    return cuda_memcpy(state, dst, src, bytes, cudaMemcpyDeviceToDevice);
}

static int cuda_memset0(void *state, void *dst, size_t bytes)
{
    mixi_cuda_state *s = state;
    return bytes ? mixi_cuda_status(cudaMemsetAsync(dst, 0, bytes, s->stream)) : MIX_SUCCESS;
}

static int cuda_synchronize(void *state)
{
    mixi_cuda_state *s = state;
    return mixi_cuda_status(cudaStreamSynchronize(s->stream));
}

const mixi_backend_ops mixi_cuda_backend = {
    .flags = MIXI_BACKEND_DEVICE_POINTERS,
    .init = cuda_init,
    .fini = cuda_fini,
    .caps = cuda_caps,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .copy = cuda_copy,
    .memset0 = cuda_memset0,
    .synchronize = cuda_synchronize,
    .dense = &mixi_cuda_dense_ops,
    .sparse = &mixi_cuda_sparse_ops,
};
