/* lapack_gesv.c: the drop-in's dgesv_ and dsgesv_ (LAPACK's Fortran symbols) over mixsolve's LU-IR. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/dropin.h"
#include "dropin/keep.h"
#include "lib/mix_internal.h"

typedef void (*dgesv_fn)(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                         double *b, const int *ldb, int *info);
typedef void (*dsgesv_fn)(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                          const double *b, const int *ldb, double *x, const int *ldx, double *work,
                          float *swork, int *iter, int *info);

/* Exported by this library (the only exports besides dposv_/dsposv_). */
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);
void dsgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, const double *b,
             const int *ldb, double *x, const int *ldx, double *work, float *swork, int *iter,
             int *info);

static dgesv_fn next_dgesv;
static dsgesv_fn next_dsgesv;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

static void find_next(void)
{
    next_dgesv = (dgesv_fn)mixd_next("dgesv_");
    next_dsgesv = (dsgesv_fn)mixd_next("dsgesv_");
}

static int max1(int n)
{
    return n > 1 ? n : 1;
}

/* The routed solve, shared by both routines: X (ld ldx) from mixsolve at precision prec.  Returns
 * 1 when done (*info set as LAPACK would), 0 when the call must be forwarded untouched (NaN/Inf in
 * the input, where LAPACK's own behaviour is the contract, or no memory/backend: a and b are
 * then unchanged). */
static int routed_solve(mix_context *ctx, mix_prec prec, int widen, int n, int nrhs, double *a,
                        int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                        mix_gesv_info *gi, int *info)
{
    mix_gesv_params p;
    mixd_params_init(&p, prec);
    int sing = 0;
    int st = mixi_dgesv_lapack(ctx, &p, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, gi, &sing, widen);
    if (st == MIX_SUCCESS) *info = 0;
    else if (st == MIX_ERR_SINGULAR) *info = sing;
    else return 0;
    return 1;
}

void dgesv_(const int *n_, const int *nrhs_, double *a, const int *lda_, int *ipiv, double *b,
            const int *ldb_, int *info)
{
    const void *caller = __builtin_return_address(0);
    const mixd_policy *pol = mixd_policy_get();
    pthread_once(&next_once, find_next);
    const int n = *n_, nrhs = *nrhs_, lda = *lda_, ldb = *ldb_;
    double t0 = mixd_now();
    if (mixd_enter() && next_dgesv) { /* mixsolve's own LAPACK call */
        next_dgesv(n_, nrhs_, a, lda_, ipiv, b, ldb_, info);
        mixd_leave();
        return;
    }
    const char *why = NULL;
    mix_context *ctx = NULL;
    mix_prec prec = MIX_FP64;
    if (pol->mode == MIXD_OFF && next_dgesv) {
        why = "off";
        goto forward;
    }
    *info = n < 0 ? -1 : nrhs < 0 ? -2 : lda < max1(n) ? -4 : ldb < max1(n) ? -7 : 0;
    if (*info) {
        mixd_xerbla("DGESV", -*info);
        mixd_log("dgesv", n, nrhs, "rejected", "none", NULL, *info, mixd_now() - t0, "argument");
        goto done;
    }
    if (n == 0 || nrhs == 0) {
        why = "empty";
        goto forward;
    }
    mixd_keep_forget(a); /* whatever happens, A will hold new factors */
    /* The factors dgesv_ leaves in A are the caller's to reuse: route only where that is safe. */
    const mixd_factor_plan plan = mixd_plan_factors(caller);
    if (!plan.route) {
        why = plan.why;
        goto forward;
    }
    if (!(ctx = mixd_context())) {
        why = "context";
        goto forward;
    }
    prec = mixd_route_prec(ctx, n, nrhs);
    if (prec == MIX_FP64 && next_dgesv) {
        why = "auto";
        goto forward;
    }
    /* dgesv_ overwrites B with X; mixsolve refines against the original B, so X lives apart. */
    /* The original A, kept before the solve overwrites it, makes later reuse exact. */
    double *x = malloc((size_t)n * (size_t)nrhs * sizeof *x);
    mixd_kept *kept = NULL;
    if (!x || (plan.keep && !(kept = mixd_keep_begin(n, a, lda, 'N')))) {
        why = x ? "keep" : "memory";
        free(x);
        goto forward;
    }
    mix_gesv_info gi;
    if (routed_solve(ctx, prec, 1, n, nrhs, a, lda, ipiv, b, ldb, x, n, &gi, info)) {
        if (kept && *info == 0 && gi.factor_prec_used != MIX_FP64)
            mixd_keep_commit(kept, a, lda, ipiv, gi.factor_prec_used);
        else mixd_keep_abort(kept);
        if (*info == 0)
            for (int j = 0; j < nrhs; j++)
                memcpy(b + (size_t)j * ldb, x + (size_t)j * n, (size_t)n * sizeof *x);
        free(x);
        mixd_log("dgesv", n, nrhs, "routed", mix_prec_name(gi.factor_prec_used), &gi.iter, *info,
                 mixd_now() - t0, mixd_reason_name(gi.reason));
        goto done;
    }
    free(x);
    mixd_keep_abort(kept);
    why = gi.status == MIX_ERR_NAN ? "nan" : gi.status == MIX_ERR_UNSUPPORTED ? "range" : "error";
forward:
    if (next_dgesv) next_dgesv(n_, nrhs_, a, lda_, ipiv, b, ldb_, info);
    else *info = -1; /* unreachable: this library needs a LAPACK after it */
    mixd_log("dgesv", n, nrhs, "forwarded", "lapack", NULL, *info, mixd_now() - t0, why);
done:
    mixd_leave();
}

void dsgesv_(const int *n_, const int *nrhs_, double *a, const int *lda_, int *ipiv, const double *b,
             const int *ldb_, double *x, const int *ldx_, double *work, float *swork, int *iter,
             int *info)
{
    const mixd_policy *pol = mixd_policy_get();
    pthread_once(&next_once, find_next);
    const int n = *n_, nrhs = *nrhs_, lda = *lda_, ldb = *ldb_, ldx = *ldx_;
    double t0 = mixd_now();
    if (mixd_enter() && next_dsgesv) {
        next_dsgesv(n_, nrhs_, a, lda_, ipiv, b, ldb_, x, ldx_, work, swork, iter, info);
        mixd_leave();
        return;
    }
    const char *why = NULL;
    mix_context *ctx = NULL;
    if (pol->mode == MIXD_OFF && next_dsgesv) {
        why = "off";
        goto forward;
    }
    *info = n < 0 ? -1 : nrhs < 0 ? -2 : lda < max1(n) ? -4 : ldb < max1(n) ? -7
          : ldx < max1(n) ? -9 : 0;
    if (*info) {
        mixd_xerbla("DSGESV", -*info);
        mixd_log("dsgesv", n, nrhs, "rejected", "none", NULL, *info, mixd_now() - t0, "argument");
        goto done;
    }
    if (n == 0 || nrhs == 0) {
        why = "empty";
        goto forward;
    }
    if (!(ctx = mixd_context())) {
        why = "context";
        goto forward;
    }
    mix_prec prec = mixd_route_prec(ctx, n, nrhs);
    if (prec == MIX_FP64 && next_dsgesv) {
        why = "auto";
        goto forward;
    }
    /* WORK and SWORK are workspace whose contents LAPACK leaves undefined: not used. */
    mix_gesv_info gi;
    if (routed_solve(ctx, prec, 0, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, &gi, info)) {
        *iter = gi.iter;
        mixd_log("dsgesv", n, nrhs, "routed", mix_prec_name(gi.factor_prec_used), iter, *info,
                 mixd_now() - t0, mixd_reason_name(gi.reason));
        goto done;
    }
    why = gi.status == MIX_ERR_NAN ? "nan" : "error";
forward:
    if (next_dsgesv) next_dsgesv(n_, nrhs_, a, lda_, ipiv, b, ldb_, x, ldx_, work, swork, iter, info);
    else *info = -1; /* unreachable: this library needs a LAPACK after it */
    mixd_log("dsgesv", n, nrhs, "forwarded", "lapack", iter, *info, mixd_now() - t0, why);
done:
    mixd_leave();
}
