/* cuda_memory.c: the CUDA backend's memory operations (allocation, staged host transfers, copies
 * on the context's stream), below the table (cuda_backend.c) and the families that use them. */
#include <string.h>
#include "lib/core/core.h"
#include "kernels/cuda/cuda_internal.h"

int mixi_cuda_alloc(void *state, void **ptr, size_t bytes)
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

void mixi_cuda_free(void *state, void *ptr)
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
int mixi_cuda_upload(void *state, void *dst, const void *src, size_t bytes)
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
int mixi_cuda_download(void *state, void *dst, const void *src, size_t bytes)
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

int mixi_cuda_copy(void *state, void *dst, const void *src, size_t bytes)
{
    return cuda_memcpy(state, dst, src, bytes, cudaMemcpyDeviceToDevice);
}

int mixi_cuda_memset0(void *state, void *dst, size_t bytes)
{
    mixi_cuda_state *s = state;
    return bytes ? mixi_cuda_status(cudaMemsetAsync(dst, 0, bytes, s->stream)) : MIX_SUCCESS;
}

int mixi_cuda_synchronize(void *state)
{
    mixi_cuda_state *s = state;
    return mixi_cuda_status(cudaStreamSynchronize(s->stream));
}
