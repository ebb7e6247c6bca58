/* lapack_posv.c: the drop-in's dposv_ and dsposv_ (LAPACK's Fortran symbols) over mixsolve's Cholesky-IR. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "dropin/dropin.h"
#include "dropin/keep.h"
#include "lib/mix_internal.h"

typedef void (*dposv_fn)(const char *uplo, const int *n, const int *nrhs, double *a,
                         const int *lda, double *b, const int *ldb, int *info, size_t uplo_len);
typedef void (*dsposv_fn)(const char *uplo, const int *n, const int *nrhs, double *a,
                          const int *lda, const double *b, const int *ldb, double *x,
                          const int *ldx, double *work, float *swork, int *iter, int *info,
                          size_t uplo_len);

/* Exported by this library.  uplo_len: Fortran's hidden length of UPLO. */
void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, int *info, size_t uplo_len);
void dsposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
             const double *b, const int *ldb, double *x, const int *ldx, double *work,
             float *swork, int *iter, int *info, size_t uplo_len);

static dposv_fn next_dposv;
static dsposv_fn next_dsposv;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

static void find_next(void)
{
    next_dposv = (dposv_fn)mixd_next("dposv_");
    next_dsposv = (dsposv_fn)mixd_next("dsposv_");
}

static int max1(int n)
{
    return n > 1 ? n : 1;
}

/* LAPACK's LSAME: the first character, either case. */
static char upper_char(const char *c)
{
    return *c == 'u' ? 'U' : *c == 'l' ? 'L' : *c;
}

/* The checks dposv and dsposv share, in LAPACK's order (UPLO 1, N 2, NRHS 3, LDA 5, LDB 7). */
static int posv_args(char u, int n, int nrhs, int lda, int ldb)
{
    return u != 'U' && u != 'L' ? -1 : n < 0 ? -2 : nrhs < 0 ? -3 : lda < max1(n) ? -5
         : ldb < max1(n) ? -7 : 0;
}

/* The thread's context and the factor precision to route with, or NULL (and *why) when the
 * call goes to LAPACK as it is: empty system, no context, or AUTO predicting no gain. */
static mix_context *route(int n, int nrhs, mix_prec *prec, const char **why)
{
    mix_context *ctx;
    if (n == 0 || nrhs == 0) *why = "empty";
    else if (!(ctx = mixd_context())) *why = "context";
    else if ((*prec = mixd_route_prec(ctx, n, nrhs)) == MIX_FP64) *why = "auto";
    else return ctx;
    return NULL;
}

/* Why a routed attempt handed the call to LAPACK (fallback off: a and b untouched then). */
static const char *why_not_taken(const mix_gesv_info *gi, int st)
{
    if (st == MIX_ERR_NAN) return "nan";
    if (st == MIX_ERR_UNSUPPORTED) return "range";
    if (st == MIX_ERR_ALLOC) return "memory";
    const char *why = mixd_reason_name(gi->reason);
    return why ? why : "error";
}

void dposv_(const char *uplo, const int *n_, const int *nrhs_, double *a, const int *lda_,
            double *b, const int *ldb_, int *info, size_t uplo_len)
{
    const void *caller = __builtin_return_address(0);
    const mixd_policy *pol = mixd_policy_get();
    pthread_once(&next_once, find_next);
    const int n = *n_, nrhs = *nrhs_, lda = *lda_, ldb = *ldb_;
    double t0 = mixd_now();
    if (mixd_enter() && next_dposv) { /* mixsolve's own LAPACK call */
        next_dposv(uplo, n_, nrhs_, a, lda_, b, ldb_, info, uplo_len);
        mixd_leave();
        return;
    }
    const char *why = "off";
    mix_prec prec = MIX_FP64;
    mix_context *ctx = NULL;
    if (pol->mode == MIXD_OFF && next_dposv) goto forward;
    const char u = upper_char(uplo);
    if ((*info = posv_args(u, n, nrhs, lda, ldb))) {
        mixd_xerbla("DPOSV", -*info);
        mixd_log("dposv", n, nrhs, "rejected", "none", NULL, *info, mixd_now() - t0, "argument");
        goto done;
    }
    mixd_keep_forget(a); /* whatever happens, A will hold a new factor */
    /* The factor dposv_ leaves in A is the caller's to reuse: route only where that is safe. */
    const mixd_factor_plan plan = mixd_plan_factors(caller);
    if (!plan.route) {
        why = plan.why;
        goto forward;
    }
    if (!(ctx = route(n, nrhs, &prec, &why))) goto forward;
    /* dposv_ overwrites B with X; mixsolve refines against the original B, so X lives apart. */
    double *x = malloc((size_t)n * (size_t)nrhs * sizeof *x);
    if (!x) {
        why = "memory";
        goto forward;
    }
    /* No FP64 fallback inside mixsolve: whenever the low-precision path fails (A not SPD
     * included), A and B are untouched and LAPACK's dposv runs on them, so INFO, the factor and
     * X are then exactly LAPACK's. */
    /* The original triangle, kept before the solve overwrites it, makes later reuse exact. */
    mixd_kept *kept = NULL;
    if (plan.keep && !(kept = mixd_keep_begin(n, a, lda, u))) {
        free(x);
        why = "keep";
        goto forward;
    }
    mix_gesv_params p;
    mixd_params_init(&p, prec);
    p.fallback = 0;
    mix_gesv_info gi;
    int not_pd = 0;
    int st = mixi_dposv_lapack(ctx, &p, u, n, nrhs, a, lda, b, ldb, x, n, &gi, &not_pd, 1);
    if (st == MIX_SUCCESS) {
        if (kept && gi.factor_prec_used != MIX_FP64)
            mixd_keep_commit(kept, a, lda, NULL, gi.factor_prec_used);
        else mixd_keep_abort(kept);
        for (int j = 0; j < nrhs; j++)
            memcpy(b + (size_t)j * ldb, x + (size_t)j * n, (size_t)n * sizeof *x);
        free(x);
        *info = 0;
        mixd_log("dposv", n, nrhs, "routed", mix_prec_name(gi.factor_prec_used), &gi.iter, 0,
                 mixd_now() - t0, NULL);
        goto done;
    }
    free(x);
    mixd_keep_abort(kept);
    why = why_not_taken(&gi, st);
forward:
    if (next_dposv) next_dposv(uplo, n_, nrhs_, a, lda_, b, ldb_, info, uplo_len);
    else *info = -1; /* unreachable: this library needs a LAPACK after it */
    mixd_log("dposv", n, nrhs, "forwarded", "lapack", NULL, *info, mixd_now() - t0, why);
done:
    mixd_leave();
}

void dsposv_(const char *uplo, const int *n_, const int *nrhs_, double *a, const int *lda_,
             const double *b, const int *ldb_, double *x, const int *ldx_, double *work,
             float *swork, int *iter, int *info, size_t uplo_len)
{
    const mixd_policy *pol = mixd_policy_get();
    pthread_once(&next_once, find_next);
    const int n = *n_, nrhs = *nrhs_, lda = *lda_, ldb = *ldb_, ldx = *ldx_;
    double t0 = mixd_now();
    if (mixd_enter() && next_dsposv) { /* mixsolve's own LAPACK call */
        next_dsposv(uplo, n_, nrhs_, a, lda_, b, ldb_, x, ldx_, work, swork, iter, info, uplo_len);
        mixd_leave();
        return;
    }
    const char *why = "off";
    mix_prec prec = MIX_FP64;
    mix_context *ctx = NULL;
    if (pol->mode == MIXD_OFF && next_dsposv) goto forward;
    const char u = upper_char(uplo);
    if (!(*info = posv_args(u, n, nrhs, lda, ldb)) && ldx < max1(n)) *info = -9;
    if (*info) {
        mixd_xerbla("DSPOSV", -*info);
        mixd_log("dsposv", n, nrhs, "rejected", "none", NULL, *info, mixd_now() - t0, "argument");
        goto done;
    }
    if (!(ctx = route(n, nrhs, &prec, &why))) goto forward;
    /* WORK and SWORK are workspace whose contents LAPACK leaves undefined: not used. */
    mix_gesv_params p;
    mixd_params_init(&p, prec);
    mix_gesv_info gi;
    int not_pd = 0;
    int st = mixi_dposv_lapack(ctx, &p, u, n, nrhs, a, lda, b, ldb, x, ldx, &gi, &not_pd, 0);
    if (st == MIX_SUCCESS || st == MIX_ERR_NOT_SPD) {
        *info = st == MIX_SUCCESS ? 0 : not_pd;
        *iter = gi.iter;
        mixd_log("dsposv", n, nrhs, "routed", mix_prec_name(gi.factor_prec_used), iter, *info,
                 mixd_now() - t0, mixd_reason_name(gi.reason));
        goto done;
    }
    /* NaN/Inf (LAPACK's own behaviour is the contract) or no memory: a, x untouched. */
    why = st == MIX_ERR_NAN ? "nan" : "error";
forward:
    if (next_dsposv)
        next_dsposv(uplo, n_, nrhs_, a, lda_, b, ldb_, x, ldx_, work, swork, iter, info, uplo_len);
    else *info = -1; /* unreachable: this library needs a LAPACK after it */
    mixd_log("dsposv", n, nrhs, "forwarded", "lapack", iter, *info, mixd_now() - t0, why);
done:
    mixd_leave();
}
