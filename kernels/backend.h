/* backend.h: the operations table every backend fills; solvers call only these. */
#ifndef MIX_BACKEND_H
#define MIX_BACKEND_H

#include <stddef.h>
#include "mixsolve.h"

typedef struct mix_dense_ops mix_dense_ops;   /* kernels/backend_dense.h */
typedef struct mix_sparse_ops mix_sparse_ops; /* kernels/backend_sparse.h */

/* "Backend memory" below is host memory for the CPU backend and device memory for CUDA.
 * Solvers never dereference backend memory; scalars come back through return arguments.
 * Every operation returns 0 or a MIX_ERR_* status; an operation a backend lacks is NULL. */
typedef struct mix_backend_ops {
    const char *name;
    mix_backend kind;
    /* Lifecycle: init returns MIX_ERR_BACKEND when the backend cannot run here (no device). */
    int (*init)(void **state);
    void (*fini)(void *state);
    int (*caps)(mix_caps *caps); /* fills everything but `compiled` */
    /* Memory. */
    int (*alloc)(void *state, void **ptr, size_t bytes); /* MIX_ERR_ALLOC on failure */
    void (*free)(void *state, void *ptr);                /* NULL allowed */
    int (*upload)(void *state, void *dst, const void *host_src, size_t bytes);
    int (*download)(void *state, void *host_dst, const void *src, size_t bytes);
    int (*copy)(void *state, void *dst, const void *src, size_t bytes); /* within the backend */
    int (*memset0)(void *state, void *dst, size_t bytes);
    int (*synchronize)(void *state);
    /* Solver families. */
    const mix_dense_ops *dense;
    const mix_sparse_ops *sparse;
} mix_backend_ops;

/* Tables of the compiled backends (kernels/cpu, kernels/cuda or kernels/stub). */
extern const mix_backend_ops mixi_cpu_backend;
extern const mix_backend_ops mixi_cuda_backend;

#endif
