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
    void *state;          /* owned by the backend (device handles and stream, say) */
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

/* The default context of the simple drivers (backend from MIXSOLVE_BACKEND); created once,
 * safely from any thread. */
int mixi_default_context(mix_context **ctx);
/* Brackets every use of the default context: a no-op on a MIXI_BACKEND_CONCURRENT backend, a
 * process-wide lock on one whose state may not be shared between threads. */
void mixi_default_enter(mix_context *ctx);
void mixi_default_leave(mix_context *ctx);

/* mix_dgesv_ir for column-major host a, b, x (arguments already checked) with the index of a zero
 * pivot in *sing (as mixi_gesv_run); for the LAPACK drop-in.  widen != 0: when the low-precision
 * path succeeds, a receives its factors widened to FP64 (with ipiv: dgetrf's output for a nearby
 * matrix), so dgesv_ leaves valid factors; otherwise a is unchanged then.  On the FP64 path a
 * holds the FP64 factors as with mix_dgesv_ir. */
int mixi_dgesv_lapack(mix_context *ctx, const mix_gesv_params *p, int n, int nrhs, double *a,
                      int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *sing, int widen);

/* mix_dposv_ir for column-major host a, b, x (arguments already checked) with the order of the
 * first non-positive-definite leading minor in *not_pd (LAPACK dsposv's INFO); for the drop-in. */
int mixi_dposv_lapack(mix_context *ctx, const mix_gesv_params *p, char uplo, int n, int nrhs,
                      double *a, int lda, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *not_pd);

/* Backend registry (lib/registry.c over kernels/registry.c): the table of a compiled backend
 * whose required operations are all there, or NULL; a backend's id from its name (or "auto"),
 * 1 if found; whether a table has every required operation. */
const mix_backend_ops *mixi_backend_lookup(mix_backend b);
int mixi_backend_by_name(const char *name, mix_backend *b);
int mixi_backend_valid(const mix_backend_ops *ops);

#endif
