/* mix_internal.h: lib/'s internal declarations (default context, registry lookups, the drop-in's
 * entries), for lib/ and what sits above it: dropin/, tests/, bench/ (never installed). */
#ifndef MIX_INTERNAL_H
#define MIX_INTERNAL_H

#include "lib/core/core.h" /* the context, the allocator, the clock */
#include "kernels/backend.h"

/* The default context of the simple drivers (backend from MIXSOLVE_BACKEND); created once,
 * safely from any thread. */
int mixi_default_context(mix_context **ctx);
/* Brackets every use of the default context: a no-op on a MIXI_BACKEND_CONCURRENT backend, a
 * process-wide lock on one whose state may not be shared between threads. */
void mixi_default_enter(mix_context *ctx);
void mixi_default_leave(mix_context *ctx);

/* mix_dgesv_ir for column-major host a, b, x (arguments already checked) with the index of a zero
 * pivot in *sing (as mixi_dense_run); for the LAPACK drop-in.  widen != 0: when the low-precision
 * path succeeds, a receives its factors widened to FP64 (with ipiv: dgetrf's output for a nearby
 * matrix), so dgesv_ leaves valid factors; otherwise a is unchanged then.  On the FP64 path a
 * holds the FP64 factors as with mix_dgesv_ir. */
int mixi_dgesv_lapack(mix_context *ctx, const mix_gesv_params *p, int n, int nrhs, double *a,
                      int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *sing, int widen);

/* mix_dposv_ir for column-major host a, b, x (arguments already checked) with the order of the
 * first non-positive-definite leading minor in *not_pd (LAPACK dsposv's INFO); for the drop-in.
 * widen != 0: when the low-precision path succeeds, a's uplo triangle receives its Cholesky
 * factor widened to FP64 (dpotrf's output for a nearby matrix: mixi_dense_run), so dposv_
 * leaves a valid factor; a system needing range scaling then gives MIX_ERR_UNSUPPORTED, nothing
 * written.  widen = 0: a unchanged on success, as dsposv must. */
int mixi_dposv_lapack(mix_context *ctx, const mix_gesv_params *p, char uplo, int n, int nrhs,
                      double *a, int lda, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *not_pd, int widen);
/* The factor precision MIX_PREC_AUTO takes for mix_dposv_ir on an n x n system with nrhs
 * right-hand sides (mix_gesv_auto_prec's for Cholesky); 0, or -i for an illegal argument i. */
int mixi_posv_auto_prec(mix_context *ctx, int n, int nrhs, mix_prec *prec);
/* The same (chol 0: LU's) for a call that is about to run in the precision returned, through
 * mixsolve or, for MIX_FP64, LAPACK itself (the drop-in): its FP64 work counts towards the
 * rates' measurement (mixi_calibration_pays), as an AUTO solve's does. */
int mixi_auto_prec_for_call(mix_context *ctx, int chol, int n, int nrhs, mix_prec *prec);

/* Aliased right-hand side and solution (the dense and CG drivers): when the sb elements at *b
 * overlap the sx at x, *b is copied into a backend buffer (*copy, to be freed with the backend's
 * free; NULL when no copy was needed) and *b points at it, so the solve may write x while it
 * still reads b.  Both in backend memory. */
int mixi_unalias(mix_context *ctx, const double **b, size_t sb, const double *x, size_t sx,
                 double **copy);

/* Backend registry (lib/api/backend_lookup.c over kernels/backend_list.c): the table of a compiled backend
 * whose required operations are all there, or NULL; a backend's id from its name (or "auto"),
 * 1 if found; whether a table has every required operation. */
const mixi_backend_ops *mixi_backend_lookup(mix_backend b);
int mixi_backend_by_name(const char *name, mix_backend *b);
int mixi_backend_valid(const mixi_backend_ops *ops);

#endif
