/* mix_internal.h: library-internal declarations shared by lib/, solvers/ and kernels/ (never installed). */
#ifndef MIX_INTERNAL_H
#define MIX_INTERNAL_H

#include "config.h"
#include <stddef.h>
#include "mixsolve.h"
#include "kernels/backend.h"

/* A context: one backend's operations table plus that backend's private state. */
struct mix_context {
    const mix_backend_ops *ops;
    void *state;          /* owned by the backend (e.g. CUDA handles and stream) */
    mix_backend backend;  /* never MIX_BACKEND_AUTO */
};

/* All host allocation of the library goes through these, so tests can make the Nth one fail. */
void *mixi_malloc(size_t bytes);
void *mixi_calloc(size_t count, size_t size);
void mixi_free(void *p);
/* Test hook: the allocation after `n` more successful ones fails (n < 0: never fail).
 * Also consulted by the backends' device allocators through mixi_alloc_should_fail(). */
void mixi_alloc_fail_after(long n);
int mixi_alloc_should_fail(void);
long mixi_alloc_live(void); /* outstanding host allocations, for leak tests */

/* Overflow-checked size arithmetic: 0 on success, MIX_ERR_ALLOC when a*b does not fit. */
int mixi_mul_size(size_t a, size_t b, size_t *out);

/* Wall clock in seconds (monotonic). */
double mixi_wtime(void);

/* The default context of the simple drivers (backend from MIXSOLVE_BACKEND); created once. */
int mixi_default_context(mix_context **ctx);

/* Backend registry: the table of a compiled backend, or NULL. */
const mix_backend_ops *mixi_backend_lookup(mix_backend b);

#endif
