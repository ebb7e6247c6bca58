/* reuse.h: what the drop-in's consumers of LU and Cholesky factors share (reuse.c): refined
 * solves against a kept original, the condition estimate. */
#ifndef MIX_DROPIN_REUSE_H
#define MIX_DROPIN_REUSE_H

#include <stddef.h>
#include "dropin/keep.h"
#include "dropin/lapack.h"

/* Factors of one kept system: the caller's low-precision ones (lo, ldlo, ipiv for LU) and the
 * kept original; uplo 'N' for LU, 'U'/'L' Cholesky. */
typedef struct {
    mixd_kept *kept;
    int n;
    char uplo;
    const double *lo;
    int ldlo;
    const int *ipiv;
} mixd_reuse;

/* dgetrf_/dpotrf_ for mixd_kept_factors. */
int mixd_reuse_factor(int n, char uplo, double *f, int *ipiv);

/* op(A) X = B (trans 'N' or 'T'; ignored for Cholesky), B (ld ldb) overwritten with X at FP64
 * accuracy: refinement against the kept original with the low-precision factors, else (no
 * convergence) the original's FP64 factors.  *iter: refinement steps, -1 when the FP64 factors
 * answered.  Returns 0, or -1 when no memory (B then unchanged: the caller forwards). */
int mixd_reuse_solve(const mixd_reuse *r, char trans, int nrhs, double *b, int ldb, int *iter);

/* LAPACK dgecon's/dpocon's RCOND for the kept original, with norm '1' or 'I' and anorm > 0:
 * the same estimator (dlacn2) applied to A^-1 through refined solves.  Returns 0 with *rcond
 * set; 1 when a solve could not be refined (the caller then takes the FP64 factors); -1 no
 * memory. */
int mixd_reuse_rcond(const mixd_reuse *r, char norm, double anorm, double *rcond, int *iter);

/* The FP64 factors of r's original (ld n; pivots in *ipiv for LU); *transient: free both
 * afterwards (mixd_reuse_done).  NULL when no memory. */
const double *mixd_reuse_exact(const mixd_reuse *r, const int **ipiv, int *transient);
void mixd_reuse_done(const double *f, const int *ipiv, int transient);

#endif
