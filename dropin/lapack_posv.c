/* lapack_posv.c: the drop-in's dsposv_ (LAPACK's Fortran symbol) over mixsolve's Cholesky-IR. */
#include <pthread.h>
#include "dropin/dropin.h"
#include "lib/mix_internal.h"

typedef void (*dsposv_fn)(const char *uplo, const int *n, const int *nrhs, double *a,
                          const int *lda, const double *b, const int *ldb, double *x,
                          const int *ldx, double *work, float *swork, int *iter, int *info,
                          size_t uplo_len);

/* Exported by this library.  uplo_len: Fortran's hidden length of UPLO. */
void dsposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
             const double *b, const int *ldb, double *x, const int *ldx, double *work,
             float *swork, int *iter, int *info, size_t uplo_len);

static dsposv_fn next_dsposv;
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

static void find_next(void)
{
    next_dsposv = (dsposv_fn)mixd_next("dsposv_");
}

static int max1(int n)
{
    return n > 1 ? n : 1;
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
    const char *why = NULL;
    mix_context *ctx = NULL;
    if (pol->mode == MIXD_OFF && next_dsposv) {
        why = "off";
        goto forward;
    }
    /* LAPACK's LSAME: the first character, either case. */
    char u = *uplo == 'u' ? 'U' : *uplo == 'l' ? 'L' : *uplo;
    *info = u != 'U' && u != 'L' ? -1 : n < 0 ? -2 : nrhs < 0 ? -3 : lda < max1(n) ? -5
          : ldb < max1(n) ? -7 : ldx < max1(n) ? -9 : 0;
    if (*info) {
        mixd_xerbla("DSPOSV", -*info);
        mixd_log("dsposv", n, nrhs, "rejected", "none", NULL, *info, mixd_now() - t0, "argument");
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
    if (prec == MIX_FP64 && next_dsposv) {
        why = "auto";
        goto forward;
    }
    /* WORK and SWORK are workspace whose contents LAPACK leaves undefined: not used. */
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = prec;
    mix_gesv_info gi;
    int not_pd = 0;
    int st = mixi_dposv_lapack(ctx, &p, u, n, nrhs, a, lda, b, ldb, x, ldx, &gi, &not_pd);
    if (st == MIX_SUCCESS || st == MIX_ERR_NOT_SPD) {
        *info = st == MIX_SUCCESS ? 0 : not_pd;
        *iter = gi.iter;
        mixd_log("dsposv", n, nrhs, "routed", mix_prec_name(gi.factor_prec_used), iter, *info,
                 mixd_now() - t0, NULL);
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
