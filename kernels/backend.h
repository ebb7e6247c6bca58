/* backend.h: the operations table every backend fills; solvers call only these. */
#ifndef MIX_BACKEND_H
#define MIX_BACKEND_H

#include <stddef.h>
#include "mixsolve.h"

typedef struct mixi_dense_ops mixi_dense_ops;   /* kernels/backend_dense.h */
typedef struct mixi_sparse_ops mixi_sparse_ops; /* kernels/backend_sparse.h */
typedef struct mixi_sparse_lu_ops mixi_sparse_lu_ops; /* kernels/backend_sparse_lu.h */

/* "Backend memory" below is host memory for the CPU backend and device memory for CUDA.
 * Solvers never dereference backend memory; scalars come back through return arguments.
 * Every operation returns 0 or a MIX_ERR_* status; an operation a backend lacks is NULL. */
/* What a backend's memory and state allow (mixi_backend_ops.flags); lib/ decides from these,
 * never from which backend it is. */
enum {
    MIXI_BACKEND_HOST_MEMORY = 1u << 0,     /* backend memory is host memory: no staging */
    MIXI_BACKEND_DEVICE_POINTERS = 1u << 1, /* callers may pass its memory (the *_gpu drivers) */
    MIXI_BACKEND_CONCURRENT = 1u << 2       /* one context may run calls from several threads */
};

typedef struct mixi_backend_ops {
    unsigned flags; /* MIXI_BACKEND_* */
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
    const mixi_dense_ops *dense;
    const mixi_sparse_ops *sparse;
    const mixi_sparse_lu_ops *sparse_lu; /* NULL where the backend has no sparse direct library */
} mixi_backend_ops;

/* Each backend's tables are declared where they are used (its own folder and kernels/backend_list.c),
 * so that adding a backend edits none of the generic headers. */

/* The registry (kernels/backend_list.c): every backend this build knows, compiled or not, in the
 * order MIX_BACKEND_AUTO tries them.  ops is NULL for a backend that is not compiled. */
typedef struct {
    mix_backend id;
    const char *name;
    const mixi_backend_ops *ops;
} mixi_backend_entry;
extern const mixi_backend_entry mixi_backend_registry[];
extern const int mixi_backend_registry_size;

#endif
