/* lapack_reuse_chol.c: the drop-in's dpotrs_, dpotri_, dpocon_, dporfs_ and dposvx_
 * (FACT = 'F'): on a Cholesky factor a routed dposv_ left in low precision (and kept A for), they
 * answer as if the factor were FP64; on any other array they forward untouched after an address
 * look-up. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/dropin.h"
#include "dropin/reuse.h"

typedef void (*dpotri_fn)(const char *, const int *, double *, const int *, int *, size_t);
typedef void (*dpocon_fn)(const char *, const int *, const double *, const int *, const double *,
                          double *, double *, int *, int *, size_t);
typedef void (*dporfs_fn)(const char *, const int *, const int *, const double *, const int *,
                          const double *, const int *, const double *, const int *, double *,
                          const int *, double *, double *, double *, int *, int *, size_t);
typedef void (*dposvx_fn)(const char *, const char *, const int *, const int *, double *,
                          const int *, double *, const int *, char *, double *, double *,
                          const int *, double *, const int *, double *, double *, double *,
                          double *, int *, int *, size_t, size_t, size_t);

/* Exported by this library. */
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info, size_t uplo_len);
void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len);
void dpocon_(const char *uplo, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t uplo_len);
void dporfs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             const double *af, const int *ldaf, const double *b, const int *ldb, double *x,
             const int *ldx, double *ferr, double *berr, double *work, int *iwork, int *info,
             size_t uplo_len);
void dposvx_(const char *fact, const char *uplo, const int *n, const int *nrhs, double *a,
             const int *lda, double *af, const int *ldaf, char *equed, double *s, double *b,
             const int *ldb, double *x, const int *ldx, double *rcond, double *ferr, double *berr,
             double *work, int *iwork, int *info, size_t fact_len, size_t uplo_len,
             size_t equed_len);

static dpotri_fn next_dpotri;
static dpocon_fn next_dpocon;
static dporfs_fn next_dporfs;
static dposvx_fn next_dposvx;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

static void find_next(void)
{
    void *f[4] = {mixd_next("dpotri_"), mixd_next("dpocon_"), mixd_next("dporfs_"),
                  mixd_next("dposvx_")};
    memcpy(&next_dpotri, &f[0], sizeof f[0]);
    memcpy(&next_dpocon, &f[1], sizeof f[1]);
    memcpy(&next_dporfs, &f[2], sizeof f[2]);
    memcpy(&next_dposvx, &f[3], sizeof f[3]);
}

/* The kept entry for a Cholesky factor in a's uplo triangle, when the call is the program's own
 * (not mixsolve's), its arguments are legal and a is ours; else NULL and the call forwards.
 * The caller calls mixd_leave() in either case. */
static mixd_kept *ours(char uplo, int n, const double *a, int lda, int args_ok)
{
    mixd_policy_get();
    pthread_once(&next_once, find_next);
    if (mixd_enter() || !args_ok || (uplo != 'U' && uplo != 'L') || n <= 0 || lda < n) return NULL;
    return mixd_keep_lookup(a, n, lda, uplo, NULL);
}

/* The uplo triangle of f (ld n) into a (ld lda). */
static void copy_triangle(char uplo, int n, const double *f, double *a, int lda)
{
    for (int j = 0; j < n; j++) {
        int lo = uplo == 'L' ? j : 0, hi = uplo == 'U' ? j + 1 : n;
        memcpy(a + (size_t)j * lda + lo, f + (size_t)j * n + lo, (size_t)(hi - lo) * sizeof *a);
    }
}

void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info, size_t uplo_len)
{
    double t0 = mixd_now();
    const char u = mixd_upper(uplo);
    mixd_kept *k = ours(u, *n, a, *lda, *nrhs > 0 && *ldb >= *n);
    int iter = 0;
    const mixd_reuse r = {k, *n, u, a, *lda, NULL};
    if (k && mixd_reuse_solve(&r, 'N', *nrhs, b, *ldb, &iter) == 0) {
        *info = 0;
        mixd_log("dpotrs", *n, *nrhs, "routed", mix_prec_name(mixd_kept_prec(k)), &iter, 0,
                 mixd_now() - t0, NULL);
    } else {
        mixd_real()->dpotrs(uplo, n, nrhs, a, lda, b, ldb, info, uplo_len);
        if (k) mixd_log("dpotrs", *n, *nrhs, "forwarded", "lapack", NULL, *info, mixd_now() - t0, "memory");
    }
    if (k) mixd_keep_release(k);
    mixd_leave();
}

void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t uplo_len)
{
    double t0 = mixd_now();
    const char u = mixd_upper(uplo);
    mixd_kept *k = ours(u, *n, a, *lda, 1);
    const mixd_reuse r = {k, *n, u, a, *lda, NULL};
    const int *p64 = NULL;
    int transient = 0;
    const double *f = k ? mixd_reuse_exact(&r, &p64, &transient) : NULL;
    if (f) {
        copy_triangle(u, *n, f, a, *lda); /* the FP64 factor of the kept A, then LAPACK's dpotri */
        mixd_reuse_done(f, p64, transient);
        mixd_keep_forget(a); /* A holds the inverse now */
    }
    next_dpotri(uplo, n, a, lda, info, uplo_len);
    if (k) mixd_log("dpotri", *n, 0, f ? "routed" : "forwarded", f ? "fp64" : "lapack", NULL,
                    *info, mixd_now() - t0, f ? NULL : "memory");
    if (k) mixd_keep_release(k);
    mixd_leave();
}

/* As dgecon_ (lapack_reuse_lu.c): dlacn2 through refined solves, O(n^2); the FP64 factor and
 * LAPACK's dpocon only when a solve cannot be refined. */
void dpocon_(const char *uplo, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t uplo_len)
{
    double t0 = mixd_now();
    const char u = mixd_upper(uplo);
    mixd_kept *k = ours(u, *n, a, *lda, *anorm > 0 && isfinite(*anorm));
    const mixd_reuse r = {k, *n, u, a, *lda, NULL};
    int iter = 0, st = k ? mixd_reuse_rcond(&r, '1', *anorm, rcond, &iter) : -1;
    const int *p64 = NULL;
    int transient = 0;
    const double *f = k && st == 1 ? mixd_reuse_exact(&r, &p64, &transient) : NULL;
    if (st == 0) {
        *info = 0;
        mixd_log("dpocon", *n, 0, "routed", mix_prec_name(mixd_kept_prec(k)), &iter, 0,
                 mixd_now() - t0, NULL);
    } else if (f) {
        next_dpocon(uplo, n, f, n, anorm, rcond, work, iwork, info, uplo_len);
        mixd_reuse_done(f, p64, transient);
        iter = -1;
        mixd_log("dpocon", *n, 0, "routed", "fp64", &iter, *info, mixd_now() - t0, NULL);
    } else {
        next_dpocon(uplo, n, a, lda, anorm, rcond, work, iwork, info, uplo_len);
        if (k) mixd_log("dpocon", *n, 0, "forwarded", "lapack", NULL, *info, mixd_now() - t0, "memory");
    }
    if (k) mixd_keep_release(k);
    mixd_leave();
}

void dporfs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             const double *af, const int *ldaf, const double *b, const int *ldb, double *x,
             const int *ldx, double *ferr, double *berr, double *work, int *iwork, int *info,
             size_t uplo_len)
{
    double t0 = mixd_now();
    const char u = mixd_upper(uplo);
    mixd_kept *k = ours(u, *n, af, *ldaf, *nrhs >= 0 && *lda >= *n && *ldb >= *n && *ldx >= *n);
    const mixd_reuse r = {k, *n, u, af, *ldaf, NULL};
    const int *p64 = NULL;
    int transient = 0;
    const double *f = k ? mixd_reuse_exact(&r, &p64, &transient) : NULL;
    if (f) af = f, ldaf = n; /* AF is input only: the FP64 factor of the kept A stands in */
    next_dporfs(uplo, n, nrhs, a, lda, af, ldaf, b, ldb, x, ldx, ferr, berr, work, iwork, info,
                uplo_len);
    if (k) mixd_log("dporfs", *n, *nrhs, f ? "routed" : "forwarded", f ? "fp64" : "lapack", NULL,
                    *info, mixd_now() - t0, f ? NULL : "memory");
    mixd_reuse_done(f, p64, transient);
    if (k) mixd_keep_release(k);
    mixd_leave();
}

void dposvx_(const char *fact, const char *uplo, const int *n, const int *nrhs, double *a,
             const int *lda, double *af, const int *ldaf, char *equed, double *s, double *b,
             const int *ldb, double *x, const int *ldx, double *rcond, double *ferr, double *berr,
             double *work, int *iwork, int *info, size_t fact_len, size_t uplo_len,
             size_t equed_len)
{
    double t0 = mixd_now();
    const char u = mixd_upper(uplo);
    /* Only FACT = 'F' reads AF as given; 'N' and 'E' overwrite it. */
    const int factored = mixd_upper(fact) == 'F';
    mixd_kept *k = ours(u, *n, af, *ldaf, factored && *nrhs >= 0 && *lda >= *n && *ldb >= *n &&
                                              *ldx >= *n);
    const mixd_reuse r = {k, *n, u, af, *ldaf, NULL};
    const int *p64 = NULL;
    int transient = 0;
    const double *f = k ? mixd_reuse_exact(&r, &p64, &transient) : NULL;
    double *af64 = f ? malloc((size_t)*n * (size_t)*n * sizeof *af64) : NULL;
    if (af64) memcpy(af64, f, (size_t)*n * (size_t)*n * sizeof *af64);
    next_dposvx(fact, uplo, n, nrhs, a, lda, af64 ? af64 : af, af64 ? n : ldaf, equed, s, b, ldb,
                x, ldx, rcond, ferr, berr, work, iwork, info, fact_len, uplo_len, equed_len);
    if (k) mixd_log("dposvx", *n, *nrhs, af64 ? "routed" : "forwarded", af64 ? "fp64" : "lapack",
                    NULL, *info, mixd_now() - t0, af64 ? NULL : "memory");
    if (!factored) mixd_keep_forget(af); /* AF receives a new factor */
    free(af64);
    mixd_reuse_done(f, p64, transient);
    if (k) mixd_keep_release(k);
    mixd_leave();
}
