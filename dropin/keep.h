/* keep.h: the drop-in's registry of kept originals: for each array in which a routed dgesv_/dposv_
 * left low-precision factors, a private FP64 copy of the matrix they came from, so that the
 * LAPACK routines consuming those factors can answer as if they were FP64 (lapack_reuse.c). */
#ifndef MIX_DROPIN_KEEP_H
#define MIX_DROPIN_KEEP_H

#include <stddef.h>
#include "mixsolve.h"

/* One kept original.  uplo: 'N' for LU factors (with pivots), 'U'/'L' for a Cholesky factor in
 * that triangle. */
typedef struct mixd_kept mixd_kept;

/* MIXSOLVE_LAPACK_KEEP_MB's value s in bytes: decimal digits alone (MiB), else, as for no value,
 * the default 1024 MiB. */
size_t mixd_keep_cap_of(const char *s);

/* Before a routed call overwrites a: copies its n x n matrix (the uplo triangle for Cholesky)
 * within the cap (MIXSOLVE_LAPACK_KEEP_MB, least recently used entries evicted), and forgets
 * any older entry for a.  NULL when it cannot be kept: the call must then be forwarded. */
mixd_kept *mixd_keep_begin(int n, const double *a, int lda, char uplo);

/* After the routed call left low-precision factors (precision prec) in a (and ipiv for LU):
 * registers the entry under a's address with a fingerprint of those factors.  The entry is the
 * registry's afterwards. */
void mixd_keep_commit(mixd_kept *k, const double *a, int lda, const int *ipiv, mix_prec prec);

/* Before mixd_keep_commit: 1 when another kept entry holds the factors a (and ipiv) leaves,
 * bit for bit, for another original (low-precision factors of two matrices that round alike):
 * a copy of them would be ambiguous, looked up by content (the caller writes FP64 factors). */
int mixd_keep_twin(const mixd_kept *k, const double *a, int lda, const int *ipiv);
/* The routed call left no low-precision factors (FP64 fallback, forwarded): drop the copy. */
void mixd_keep_abort(mixd_kept *k);

/* The entry whose factors a (n, lda, uplo, ipiv for LU) still holds, bit for bit, with a
 * reference the caller gives back with mixd_keep_release; NULL when a is not ours (a cheap
 * address look-up), or no longer ours (then the stale entry is forgotten).  ipiv NULL: the
 * routine takes no pivots (dgecon), only the factors are compared. */
mixd_kept *mixd_keep_lookup(const double *a, int n, int lda, char uplo, const int *ipiv);
void mixd_keep_release(mixd_kept *k);

/* a no longer holds our factors (overwritten by an inverse, refactored): forget its entry. */
void mixd_keep_forget(const double *a);
/* a is about to hold other factors (a dgesv_ on it): its entry leaves the address table but
 * stays reachable by content (keep.c: ORPHANS_MAX), the factors possibly copied elsewhere. */
void mixd_keep_orphan(const double *a);

/* The kept original, n x n with leading dimension n (for Cholesky only its uplo triangle is
 * meaningful), and the factor precision of the factors left in the caller's array. */
const double *mixd_kept_matrix(const mixd_kept *k);
mix_prec mixd_kept_prec(const mixd_kept *k);
/* The pivots left with LU factors (NULL for Cholesky). */
const int *mixd_kept_ipiv(const mixd_kept *k);

/* Computes the FP64 factors of the kept original: f (n x n, ld n) and, for LU, ipiv; returns
 * LAPACK's INFO (0 on success). */
typedef int (*mixd_factor_fn)(int n, char uplo, double *f, int *ipiv);

/* The true FP64 factors of the kept original (ld n) and, for LU, their pivots, computed once
 * with factor (*info its INFO: a singular original gives dgetrf's factors and INFO > 0) and kept
 * with the entry while the cap allows, else *transient is set and the caller frees the factors
 * and *ipiv with free().  NULL (and *info = -1) when there is no memory. */
const double *mixd_kept_factors(mixd_kept *k, mixd_factor_fn factor, const int **ipiv,
                                int *transient, int *info);

/* Copies the n x n matrix src (ld lds) into dst (ld ldd); for uplo 'U'/'L' only that triangle. */
void mixd_copy_matrix(char uplo, int n, const double *src, int lds, double *dst, int ldd);

/* Entries and the bytes they hold (tests). */
void mixd_keep_stats(size_t *entries, size_t *bytes);

#endif
