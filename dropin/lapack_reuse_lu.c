/* lapack_reuse_lu.c: the drop-in's dgetrs_, dgetri_, dgecon_, dgerfs_ and dgesvx_ (FACT = 'F'):
 * on LU factors a routed dgesv_ left in low precision (and kept A for), they answer as if the
 * factors were FP64; on any other array they forward untouched after an address look-up. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/dropin.h"
#include "dropin/reuse.h"

typedef void (*dgetri_fn)(const int *, double *, const int *, const int *, double *, const int *,
                          int *);
typedef void (*dgecon_fn)(const char *, const int *, const double *, const int *, const double *,
                          double *, double *, int *, int *, size_t);
typedef void (*dgerfs_fn)(const char *, const int *, const int *, const double *, const int *,
                          const double *, const int *, const int *, const double *, const int *,
                          double *, const int *, double *, double *, double *, int *, int *, size_t);
typedef void (*dgesvx_fn)(const char *, const char *, const int *, const int *, double *,
                          const int *, double *, const int *, int *, char *, double *, double *,
                          double *, const int *, double *, const int *, double *, double *,
                          double *, double *, int *, int *, size_t, size_t, size_t);

/* Exported by this library. */
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len);
void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
             const int *lwork, int *info);
void dgecon_(const char *norm, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t norm_len);
void dgerfs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const double *af, const int *ldaf, const int *ipiv, const double *b, const int *ldb,
             double *x, const int *ldx, double *ferr, double *berr, double *work, int *iwork,
             int *info, size_t trans_len);
void dgesvx_(const char *fact, const char *trans, const int *n, const int *nrhs, double *a,
             const int *lda, double *af, const int *ldaf, int *ipiv, char *equed, double *r,
             double *c, double *b, const int *ldb, double *x, const int *ldx, double *rcond,
             double *ferr, double *berr, double *work, int *iwork, int *info, size_t fact_len,
             size_t trans_len, size_t equed_len);

static dgetri_fn next_dgetri;
static dgecon_fn next_dgecon;
static dgerfs_fn next_dgerfs;
static dgesvx_fn next_dgesvx;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

static void find_next(void)
{
    void *f[4] = {mixd_next("dgetri_"), mixd_next("dgecon_"), mixd_next("dgerfs_"),
                  mixd_next("dgesvx_")};
    memcpy(&next_dgetri, &f[0], sizeof f[0]);
    memcpy(&next_dgecon, &f[1], sizeof f[1]);
    memcpy(&next_dgerfs, &f[2], sizeof f[2]);
    memcpy(&next_dgesvx, &f[3], sizeof f[3]);
}

/* The kept entry for LU factors in a (n x n, lda, ipiv), when the call is the program's own
 * (not mixsolve's), its arguments are legal and a is ours; else NULL and the call forwards.
 * The caller calls mixd_leave() in either case. */
static mixd_kept *ours(int n, const double *a, int lda, const int *ipiv, int args_ok)
{
    mixd_policy_get();
    pthread_once(&next_once, find_next);
    if (mixd_enter() || !args_ok || n <= 0 || lda < n) return NULL;
    return mixd_keep_lookup(a, n, lda, 'N', ipiv);
}

static int is_trans(const char *t)
{
    char c = mixd_upper(t);
    return c == 'N' || c == 'T' || c == 'C';
}

void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t trans_len)
{
    double t0 = mixd_now();
    mixd_kept *k = ours(*n, a, *lda, ipiv, is_trans(trans) && *nrhs > 0 && *ldb >= *n);
    int iter = 0;
    const mixd_reuse r = {k, *n, 'N', a, *lda, ipiv};
    if (k && mixd_reuse_solve(&r, mixd_upper(trans) == 'N' ? 'N' : 'T', *nrhs, b, *ldb, &iter) == 0) {
        *info = 0;
        mixd_log("dgetrs", *n, *nrhs, "routed", mix_prec_name(mixd_kept_prec(k)), &iter, 0,
                 mixd_now() - t0, NULL);
    } else {
        mixd_real()->dgetrs(trans, n, nrhs, a, lda, ipiv, b, ldb, info, trans_len);
        if (k) mixd_log("dgetrs", *n, *nrhs, "forwarded", "lapack", NULL, *info, mixd_now() - t0, "memory");
    }
    if (k) mixd_keep_release(k);
    mixd_leave();
}

void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
             const int *lwork, int *info)
{
    double t0 = mixd_now();
    mixd_kept *k = ours(*n, a, *lda, ipiv, *lwork >= *n);
    const mixd_reuse r = {k, *n, 'N', a, *lda, ipiv};
    const int *p64 = NULL;
    int transient = 0;
    const double *f = k ? mixd_reuse_exact(&r, &p64, &transient) : NULL;
    if (f) {
        /* A gets the FP64 factors of the kept A; the caller's IPIV stays as it was. */
        for (int j = 0; j < *n; j++)
            memcpy(a + (size_t)j * *lda, f + (size_t)j * *n, (size_t)*n * sizeof *a);
        next_dgetri(n, a, lda, p64, work, lwork, info);
        mixd_reuse_done(f, p64, transient);
        mixd_keep_forget(a); /* A holds the inverse now */
        mixd_log("dgetri", *n, 0, "routed", "fp64", NULL, *info, mixd_now() - t0, NULL);
    } else {
        next_dgetri(n, a, lda, ipiv, work, lwork, info);
        if (k) mixd_log("dgetri", *n, 0, "forwarded", "lapack", NULL, *info, mixd_now() - t0, "memory");
    }
    if (k) mixd_keep_release(k);
    mixd_leave();
}

/* dgecon_ estimates with dlacn2 through refined solves against the kept A (mixd_reuse_rcond):
 * O(n^2) per estimate, as LAPACK's; only when a solve cannot be refined does it take the FP64
 * factors (O(n^3)) and call LAPACK's dgecon on them. */
void dgecon_(const char *norm, const int *n, const double *a, const int *lda, const double *anorm,
             double *rcond, double *work, int *iwork, int *info, size_t norm_len)
{
    const void *caller = __builtin_return_address(0);
    double t0 = mixd_now();
    const char c = mixd_upper(norm);
    const int legal = (c == '1' || c == 'O' || c == 'I') && *anorm > 0 && isfinite(*anorm);
    /* dgecon has no IPIV: the kept entry's pivots are taken as the caller's. */
    mixd_kept *k = ours(*n, a, *lda, NULL, legal);
    const mixd_reuse r = {k, *n, 'N', a, *lda, k ? mixd_kept_ipiv(k) : NULL};
    int iter = 0, st = k ? mixd_reuse_rcond(&r, c == 'I' ? 'I' : '1', *anorm, rcond, &iter) : -1;
    const int *p64 = NULL;
    int transient = 0;
    const double *f = k && st == 1 ? mixd_reuse_exact(&r, &p64, &transient) : NULL;
    if (st == 0) {
        *info = 0;
        mixd_log("dgecon", *n, 0, "routed", mix_prec_name(mixd_kept_prec(k)), &iter, 0,
                 mixd_now() - t0, NULL);
    } else if (f) {
        next_dgecon(norm, n, f, n, anorm, rcond, work, iwork, info, norm_len);
        mixd_reuse_done(f, p64, transient);
        iter = -1;
        mixd_log("dgecon", *n, 0, "routed", "fp64", &iter, *info, mixd_now() - t0, NULL);
    } else {
        next_dgecon(norm, n, a, lda, anorm, rcond, work, iwork, info, norm_len);
        if (k) mixd_log("dgecon", *n, 0, "forwarded", "lapack", NULL, *info, mixd_now() - t0, "memory");
    }
    /* R's solve() drops its factors after this call (caller.c): so does the registry. */
    if (k && mixd_caller_factor_use(caller, mixd_policy_get()->callers) == MIXD_FACTORS_CONDITION_ONLY)
        mixd_keep_forget(a);
    if (k) mixd_keep_release(k);
    mixd_leave();
}

void dgerfs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const double *af, const int *ldaf, const int *ipiv, const double *b, const int *ldb,
             double *x, const int *ldx, double *ferr, double *berr, double *work, int *iwork,
             int *info, size_t trans_len)
{
    double t0 = mixd_now();
    mixd_kept *k = ours(*n, af, *ldaf, ipiv, is_trans(trans) && *nrhs >= 0 && *lda >= *n &&
                                                 *ldb >= *n && *ldx >= *n);
    const mixd_reuse r = {k, *n, 'N', af, *ldaf, ipiv};
    const int *p64 = NULL;
    int transient = 0;
    const double *f = k ? mixd_reuse_exact(&r, &p64, &transient) : NULL;
    /* AF and IPIV are inputs only: the FP64 factors of the kept A stand in for them. */
    if (f) af = f, ldaf = n, ipiv = p64;
    mixd_real();
    next_dgerfs(trans, n, nrhs, a, lda, af, ldaf, ipiv, b, ldb, x, ldx, ferr, berr, work, iwork,
                info, trans_len);
    if (k) mixd_log("dgerfs", *n, *nrhs, f ? "routed" : "forwarded", f ? "fp64" : "lapack", NULL,
                    *info, mixd_now() - t0, f ? NULL : "memory");
    mixd_reuse_done(f, p64, transient);
    if (k) mixd_keep_release(k);
    mixd_leave();
}

void dgesvx_(const char *fact, const char *trans, const int *n, const int *nrhs, double *a,
             const int *lda, double *af, const int *ldaf, int *ipiv, char *equed, double *r,
             double *c, double *b, const int *ldb, double *x, const int *ldx, double *rcond,
             double *ferr, double *berr, double *work, int *iwork, int *info, size_t fact_len,
             size_t trans_len, size_t equed_len)
{
    double t0 = mixd_now();
    /* Only FACT = 'F' reads AF and IPIV as given; 'N' and 'E' overwrite them. */
    const int factored = mixd_upper(fact) == 'F';
    mixd_kept *k = ours(*n, af, *ldaf, ipiv, factored && is_trans(trans) && *nrhs >= 0 &&
                                                 *lda >= *n && *ldb >= *n && *ldx >= *n);
    const mixd_reuse rr = {k, *n, 'N', af, *ldaf, ipiv};
    const int *p64 = NULL;
    int transient = 0;
    const double *f = k ? mixd_reuse_exact(&rr, &p64, &transient) : NULL;
    double *af_in = af, *af64 = NULL;
    int *ipiv_in = ipiv, *ipiv64 = NULL;
    if (f) { /* inputs only under FACT = 'F'; private copies all the same, for LAPACK's prototype */
        af64 = malloc((size_t)*n * (size_t)*n * sizeof *af64);
        ipiv64 = malloc((size_t)*n * sizeof *ipiv64);
        if (af64 && ipiv64) {
            memcpy(af64, f, (size_t)*n * (size_t)*n * sizeof *af64);
            memcpy(ipiv64, p64, (size_t)*n * sizeof *ipiv64);
            af_in = af64, ipiv_in = ipiv64;
        }
    }
    mixd_real();
    next_dgesvx(fact, trans, n, nrhs, a, lda, af_in, af_in == af ? ldaf : n, ipiv_in, equed, r, c,
                b, ldb, x, ldx, rcond, ferr, berr, work, iwork, info, fact_len, trans_len, equed_len);
    if (k) mixd_log("dgesvx", *n, *nrhs, af_in != af ? "routed" : "forwarded",
                    af_in != af ? "fp64" : "lapack", NULL, *info, mixd_now() - t0,
                    af_in != af ? NULL : "memory");
    if (!factored) mixd_keep_forget(af); /* AF receives new factors */
    free(af64), free(ipiv64);
    mixd_reuse_done(f, p64, transient);
    if (k) mixd_keep_release(k);
    mixd_leave();
}
