/* lapack_drivers.c: the drop-in's dgesv_, dsgesv_, dposv_ and dsposv_ (LAPACK's Fortran symbols):
 * one flow (forward, check, route, keep A, solve, log) over mixsolve's LU-IR and Cholesky-IR,
 * with what differs between the four in a table. */
#include <stdlib.h>
#include <string.h>
#include "dropin/dropin.h"
#include "dropin/keep.h"
#include "dropin/lapack.h"
#include "dropin/reuse.h"
#include "lib/api/mix_internal.h"

typedef struct {
    const char *name; /* the log's and xerbla's */
    int chol;         /* Cholesky (UPLO first, no IPIV), else LU */
    /* dgesv_/dposv_: X into B and the factors into A, which may be kept for reuse; else
     * dsgesv_/dsposv_: X apart, A unchanged, WORK and SWORK (undefined on exit) unused. */
    int overwrite;
    /* mixsolve may fall back to FP64 itself, and its INFO > 0 is the answer.  dposv_: not: when
     * the low-precision path fails (A not SPD included), A and B are untouched and LAPACK's dposv
     * runs on them, so INFO, the factor and X are then exactly LAPACK's. */
    int fallback;
} driver;

static const driver gesv = {"dgesv", 0, 1, 1}, sgesv = {"dsgesv", 0, 0, 1},
                    posv = {"dposv", 1, 1, 0}, sposv = {"dsposv", 1, 0, 1};

/* One call: its arguments (uplo 'N' for LU; x, ldx, iter only for the s-drivers), and once
 * decided, why it is forwarded (log 0: mixsolve's own call, not logged). */
typedef struct {
    const driver *d;
    const void *caller;
    int has_next; /* a real LAPACK routine to forward to */
    char uplo;
    int n, nrhs, lda, ldb, ldx;
    double *a;
    int *ipiv;
    const double *b;
    double *b_out, *x;
    int *iter, *info;
    double t0;
    int log;
    int discard; /* the caller discards the factors: A is not written with them */
    const char *why;
} call;

static int max1(int n)
{
    return n > 1 ? n : 1;
}

/* LAPACK's checks in its order: (UPLO,) N, NRHS, LDA, LDB 7, LDX 9; -i for the i-th argument. */
static int bad_argument(const call *c)
{
    const int m = max1(c->n), s = c->d->chol;
    if (s && c->uplo != 'U' && c->uplo != 'L') return -1;
    return c->n < 0 ? -1 - s : c->nrhs < 0 ? -2 - s : c->lda < m ? -4 - s : c->ldb < m ? -7
         : !c->d->overwrite && c->ldx < m ? -9 : 0;
}

static void forwarded(const call *c)
{
    if (c->log)
        mixd_log(c->d->name, c->n, c->nrhs, "forwarded", "lapack", c->iter, *c->info,
                 mixd_now() - c->t0, c->why);
    mixd_leave();
}

/* 1: the caller forwards to the real routine, then calls forwarded(). */
static int forward(call *c, const char *why)
{
    c->why = why;
    if (c->has_next) return 1;
    *c->info = -1; /* unreachable: this library needs a LAPACK after it */
    forwarded(c);
    return 0;
}

/* Why a routed attempt handed the call to LAPACK (a and b untouched then). */
static const char *why_not_taken(const mix_gesv_info *gi, int st)
{
    if (st == MIX_ERR_NAN) return "nan";
    if (st == MIX_ERR_UNSUPPORTED) return "range";
    if (st == MIX_ERR_ALLOC) return "memory";
    const char *why = mixd_reason_name(gi->reason);
    return why ? why : "error";
}

/* mixsolve's solve at prec into x (ld ldx); *info set and 1 when it answered, 0 when the call
 * goes to LAPACK untouched (NaN/Inf, where LAPACK's behaviour is the contract, no memory, ...). */
static int solve(call *c, mix_context *ctx, mix_prec prec, double *x, int ldx, mix_gesv_info *gi)
{
    mix_gesv_params p;
    mixd_params_init(&p, prec);
    p.fallback = c->d->fallback;
    /* dposv_ hands a failed attempt to LAPACK with A untouched: the library must not weigh AUTO
     * again and take FP64 in place (Cholesky's AUTO may pick FP64 where LU's picked prec), which
     * would leave A partly factored for LAPACK's dposv. */
    if (!c->d->fallback) p.factor_prec = prec;
    /* The widened factors (one pass writing n^2 doubles: 14 ms at n = 4096 on two cores) only
     * for a caller that may read them. */
    int bad = 0, w = c->d->overwrite && !c->discard, st;
    if (c->d->chol)
        st = mixi_dposv_lapack(ctx, &p, c->uplo, c->n, c->nrhs, c->a, c->lda, c->b, c->ldb, x,
                               ldx, gi, &bad, w);
    else
        st = mixi_dgesv_lapack(ctx, &p, c->n, c->nrhs, c->a, c->lda, c->ipiv, c->b, c->ldb, x,
                               ldx, gi, &bad, w);
    const int fails = c->d->chol ? MIX_ERR_NOT_SPD : MIX_ERR_SINGULAR;
    if (st != MIX_SUCCESS && !(st == fails && c->d->fallback)) {
        gi->status = st;
        return 0;
    }
    *c->info = st == MIX_SUCCESS ? 0 : bad;
    return 1;
}

/* A's low-precision factors are another kept original's too, bit for bit (two matrices that
 * round alike): a copy of them found by content would be refined against either.  A gets the
 * FP64 factors of its original instead (as a forwarded call leaves), nothing kept; 0 when they
 * cannot be had (memory, a singular original): the factors stay, kept. */
static int exact_factors(call *c, mixd_kept *kept)
{
    const int *p64 = NULL;
    int transient = 0, info = 0;
    const double *f = mixd_kept_factors(kept, mixd_reuse_factor, &p64, &transient, &info);
    const int ok = f && info == 0;
    if (ok) mixd_copy_matrix(c->uplo, c->n, f, c->n, c->a, c->lda);
    if (ok && c->ipiv) memcpy(c->ipiv, p64, (size_t)c->n * sizeof *p64);
    mixd_reuse_done(f, p64, transient);
    return ok;
}

/* The routed call; keep: the original A must be kept so that reuse of the factors is exact. */
static int route(call *c, mix_context *ctx, mix_prec prec, int keep)
{
    double *x = c->x;
    int ldx = c->ldx;
    mixd_kept *kept = NULL;
    if (c->d->overwrite) { /* mixsolve refines against the original B, so X lives apart */
        ldx = c->n;
        if (!(x = malloc((size_t)c->n * (size_t)c->nrhs * sizeof *x))) return forward(c, "memory");
        if (keep && !(kept = mixd_keep_begin(c->n, c->a, c->lda, c->uplo))) {
            free(x);
            return forward(c, "keep");
        }
    }
    mix_gesv_info gi;
    const int done = solve(c, ctx, prec, x, ldx, &gi);
    if (kept && done && *c->info == 0 && gi.factor_prec_used != MIX_FP64 &&
        !(mixd_keep_twin(kept, c->a, c->lda, c->ipiv) && exact_factors(c, kept)))
        mixd_keep_commit(kept, c->a, c->lda, c->ipiv, gi.factor_prec_used);
    else mixd_keep_abort(kept);
    if (c->d->overwrite && done && *c->info == 0)
        for (int j = 0; j < c->nrhs; j++)
            memcpy(c->b_out + (size_t)j * c->ldb, x + (size_t)j * ldx, (size_t)c->n * sizeof *x);
    if (c->d->overwrite) free(x);
    if (!done) return forward(c, why_not_taken(&gi, gi.status));
    if (c->iter) *c->iter = gi.iter;
    mixd_log(c->d->name, c->n, c->nrhs, "routed", mix_prec_name(gi.factor_prec_used), &gi.iter,
             *c->info, mixd_now() - c->t0, mixd_reason_name(gi.reason));
    mixd_leave();
    return 0;
}

/* The flow: 1 when the caller must forward the call to the real routine (then forwarded()),
 * 0 when it was answered here. */
static int drive(call *c)
{
    const mixd_policy *pol = mixd_policy_get();
    c->t0 = mixd_now();
    c->log = !mixd_enter(); /* else mixsolve's own LAPACK call */
    if (!c->log) return forward(c, NULL);
    if (pol->mode == MIXD_OFF) return forward(c, "off");
    if ((*c->info = bad_argument(c))) {
        if (c->iter) *c->iter = 0; /* LAPACK's dsgesv/dsposv set ITER before the checks */
        mixd_xerbla(c->d->name, -*c->info);
        mixd_log(c->d->name, c->n, c->nrhs, "rejected", "none", NULL, *c->info,
                 mixd_now() - c->t0, "argument");
        mixd_leave();
        return 0;
    }
    if (c->d->overwrite) mixd_keep_orphan(c->a); /* whatever happens, A will be rewritten */
    if (c->n == 0 || c->nrhs == 0) return forward(c, "empty");
    /* The factors dgesv_/dposv_ leave in A are the caller's to reuse: route only where safe. */
    const mixd_factor_plan plan = c->d->overwrite ? mixd_plan_factors(c->caller)
                                                  : (mixd_factor_plan){1, 0, 0, NULL};
    if (!plan.route) return forward(c, plan.why);
    c->discard = c->d->overwrite && plan.discard;
    mix_context *ctx = mixd_context();
    if (!ctx) return forward(c, "context");
    /* The routine's own AUTO: with LU's, dsposv_ near the threshold was routed where
     * Cholesky's AUTO (weighed again inside) then took FP64 directly, ITER = -1 and A
     * overwritten, instead of LAPACK's refinement (tests/dropin_lapack.sh under load). */
    const mix_prec prec = mixd_route_prec(ctx, c->d->chol, c->n, c->nrhs);
    if (prec == MIX_FP64) return forward(c, "auto");
    return route(c, ctx, prec, plan.keep);
}

#define CALLER __builtin_return_address(0)

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info)
{
    const mixd_real_lapack *L = mixd_real();
    call c = {&gesv, CALLER, !!L->dgesv, 'N', *n, *nrhs, *lda, *ldb, 0, a, ipiv, b, b, NULL,
              NULL, .info = info};
    if (!drive(&c)) return;
    L->dgesv(n, nrhs, a, lda, ipiv, b, ldb, info);
    forwarded(&c);
}

void dsgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, const double *b,
             const int *ldb, double *x, const int *ldx, double *work, float *swork, int *iter,
             int *info)
{
    const mixd_real_lapack *L = mixd_real();
    call c = {&sgesv, CALLER, !!L->dsgesv, 'N', *n, *nrhs, *lda, *ldb, *ldx, a, ipiv, b, NULL, x,
              iter, .info = info};
    if (!drive(&c)) return;
    L->dsgesv(n, nrhs, a, lda, ipiv, b, ldb, x, ldx, work, swork, iter, info);
    forwarded(&c);
}

void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b,
            const int *ldb, int *info, size_t uplo_len)
{
    const mixd_real_lapack *L = mixd_real();
    call c = {&posv, CALLER, !!L->dposv, mixd_upper(uplo), *n, *nrhs, *lda, *ldb, 0, a, NULL, b,
              b, NULL, NULL, .info = info};
    if (!drive(&c)) return;
    L->dposv(uplo, n, nrhs, a, lda, b, ldb, info, uplo_len);
    forwarded(&c);
}

void dsposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
             const double *b, const int *ldb, double *x, const int *ldx, double *work,
             float *swork, int *iter, int *info, size_t uplo_len)
{
    const mixd_real_lapack *L = mixd_real();
    call c = {&sposv, CALLER, !!L->dsposv, mixd_upper(uplo), *n, *nrhs, *lda, *ldb, *ldx, a, NULL,
              b, NULL, x, iter, .info = info};
    if (!drive(&c)) return;
    L->dsposv(uplo, n, nrhs, a, lda, b, ldb, x, ldx, work, swork, iter, info, uplo_len);
    forwarded(&c);
}
