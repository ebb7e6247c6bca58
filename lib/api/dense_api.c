/* dense_api.c: the public dense drivers of both families, LU (mix_d?gesv, mix_dgesv_ir(_gpu)) and
 * Cholesky (mix_d?posv, mix_dposv_ir(_gpu)): argument checks, staging, simple-driver mapping. */
#include <math.h>
#include "mix_internal.h"
#include "solvers/dense/dense.h"
#include "kernels/common/prec_traits.h"

/* LAPACKE's code for a failed workspace allocation, returned by the simple drivers likewise. */
#define SIMPLE_ERR_MEMORY (-1010)
/* Any other failure of the simple drivers (no backend, a library or device call failed). */
#define SIMPLE_ERR_OTHER (-1011)

/* One call of either family: spd selects Cholesky (uplo) or LU (ipiv). */
typedef mixi_dense_call dense_call;

void mix_gesv_params_init(mix_gesv_params *p)
{
    if (!p) return;
    p->factor_prec = MIX_PREC_AUTO;
    p->refine = MIX_REFINE_AUTO;
    p->tol = 0.0;
    p->max_iter = 30;
    p->gmres_restart = 30;
    p->fallback = 1;
    p->scale = 1;
    p->residual_history = NULL;
    p->history_capacity = 0;
    p->cost_fallback = 1;
}

static int max1(int v) { return v > 1 ? v : 1; }

/* LAPACKE_dsgesv's and LAPACKE_dsposv's checks, in their order; `first` is the position of
 * `layout`, so the result is -(first + k) for the k-th argument after it. */
static int check_args(int first, const dense_call *c)
{
    int k = first;
    if (c->layout != MIX_ROW_MAJOR && c->layout != MIX_COL_MAJOR) return -k;
    k++;
    if (c->spd) {
        if (c->uplo != 'L' && c->uplo != 'l' && c->uplo != 'U' && c->uplo != 'u') return -k;
        k++;
    }
    if (c->n < 0) return -k;
    if (c->nrhs < 0) return -(k + 1);
    if (!c->a && c->n > 0) return -(k + 2);
    if (c->lda < max1(c->n)) return -(k + 3);
    k += 4;
    if (!c->spd) {
        if (!c->ipiv && c->n > 0) return -k;
        k++;
    }
    const int rows_b = c->layout == MIX_COL_MAJOR ? c->n : c->nrhs; /* least ldb and ldx */
    if (!c->b && c->n > 0 && c->nrhs > 0) return -k;
    if (c->ldb < max1(rows_b)) return -(k + 1);
    if (!c->x && c->n > 0 && c->nrhs > 0) return -(k + 2);
    if (c->ldx < max1(rows_b)) return -(k + 3);
    return 0;
}

/* The parameter rules; MIX_REFINE_CG for the Cholesky family only. */
static int check_params(const mix_gesv_params *p, int spd)
{
    if (!p) return 0;
    if (!mixk_prec_gemm(p->factor_prec) && p->factor_prec != MIX_PREC_AUTO) return -1;
    if (p->refine != MIX_REFINE_CLASSICAL && p->refine != MIX_REFINE_GMRES &&
        p->refine != MIX_REFINE_AUTO && !(spd && p->refine == MIX_REFINE_CG))
        return -1;
    if (!(p->tol >= 0.0) || !isfinite(p->tol)) return -1;
    if (p->max_iter < 0 || p->gmres_restart < 1 || p->history_capacity < 0) return -1;
    if (p->history_capacity > 0 && !p->residual_history) return -1;
    return 0;
}

/* Elements spanned by a column-major rows x cols array with leading dimension ld. */
static size_t span(int rows, int cols, int ld)
{
    if (rows == 0 || cols == 0) return 0;
    return (size_t)(cols - 1) * (size_t)ld + (size_t)rows;
}

/* Elements spanned by B (or X, with ld ldx) in the call's layout. */
static size_t span_rhs(const dense_call *c, int ld)
{
    return c->layout == MIX_ROW_MAJOR ? span(c->nrhs, c->n, ld) : span(c->n, c->nrhs, ld);
}

/* The status with which the FP64 factors are in a: singular (LU) or not positive definite. */
static int factor_failed(const dense_call *c) { return c->spd ? MIX_ERR_NOT_SPD : MIX_ERR_SINGULAR; }

/* Host a/b/x on a backend whose memory is not host memory: stage through backend buffers (which
 * also separates an aliased b from x).  The x span is uploaded so its padding survives. */
static int run_staged(mix_context *ctx, const mix_gesv_params *p, const dense_call *c,
                      mix_gesv_info *info, int *idx)
{
    const mixi_backend_ops *o = ctx->ops;
    size_t sa = span(c->n, c->n, c->lda), sb = span_rhs(c, c->ldb), sx = span_rhs(c, c->ldx);
    double *da = NULL, *db = NULL, *dx = NULL;
    int rc;
    if ((rc = o->alloc(ctx->state, (void **)&da, (sa ? sa : 1) * sizeof(double))) ||
        (rc = o->alloc(ctx->state, (void **)&db, (sb ? sb : 1) * sizeof(double))) ||
        (rc = o->alloc(ctx->state, (void **)&dx, (sx ? sx : 1) * sizeof(double))) ||
        (rc = o->upload(ctx->state, da, c->a, sa * sizeof(double))) ||
        (rc = o->upload(ctx->state, db, c->b, sb * sizeof(double))) ||
        (rc = o->upload(ctx->state, dx, c->x, sx * sizeof(double))))
        goto out;
    dense_call dc = *c;
    dc.a = da;
    dc.b = db;
    dc.x = dx;
    rc = mixi_dense_run(ctx, p, &dc, info, idx);
    if (rc == MIX_SUCCESS && (rc = o->download(ctx->state, c->x, dx, sx * sizeof(double))))
        goto out;
    /* iter < 0: the FP64 factors were written into the backend copy of a (a triangle: the whole
     * span goes back, the other triangle with the bits it came with). */
    if ((rc == MIX_SUCCESS || rc == factor_failed(c)) && info->iter < 0) {
        int rc2 = o->download(ctx->state, c->a, da, sa * sizeof(double));
        if (rc2) rc = rc2;
    }
out:
    o->free(ctx->state, da);
    o->free(ctx->state, db);
    o->free(ctx->state, dx);
    info->status = rc;
    return rc;
}

/* A checked call on host (or host-visible backend) memory: defaults, aliasing, staging. */
static int run_host(mix_context *ctx, const mix_gesv_params *p, const dense_call *c,
                    mix_gesv_info *info, int *idx)
{
    mix_gesv_info local;
    if (!info) info = &local;
    mix_gesv_params defaults; /* the solvers take parameters as given */
    if (!p) {
        mix_gesv_params_init(&defaults);
        p = &defaults;
    }
    if (!(ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY)) return run_staged(ctx, p, c, info, idx);
    dense_call dc = *c;
    double *bcopy;
    int rc = mixi_unalias(ctx, &dc.b, span_rhs(c, c->ldb), c->x, span_rhs(c, c->ldx), &bcopy);
    if (rc) return info->status = rc;
    rc = mixi_dense_run(ctx, p, &dc, info, idx);
    ctx->ops->free(ctx->state, bcopy);
    return rc;
}

/* A checked call on device pointers (mix_d??sv_ir_gpu). */
static int run_device(mix_context *ctx, const mix_gesv_params *p, const dense_call *c,
                      mix_gesv_info *info)
{
    mix_gesv_info local;
    mix_gesv_params defaults;
    int idx;
    if (!info) info = &local;
    if (!p) {
        mix_gesv_params_init(&defaults);
        p = &defaults;
    }
    dense_call dc = *c;
    double *bcopy;
    int rc = mixi_unalias(ctx, &dc.b, span_rhs(c, c->ldb), c->x, span_rhs(c, c->ldx), &bcopy);
    if (rc) return info->status = rc;
    rc = mixi_dense_run(ctx, p, &dc, info, &idx);
    /* The last writes to d_x and d_a (the factors of an FP64 fallback, a row-major x) are queued
     * on the context's stream, which the caller's streams do not wait for: done before returning. */
    const int synced = ctx->ops->synchronize(ctx->state);
    if (rc == MIX_SUCCESS && synced) rc = info->status = synced;
    ctx->ops->free(ctx->state, bcopy);
    return rc;
}

/* The expert drivers: ctx is argument 1, p 2, layout 3. */
static int expert(mix_context *ctx, const mix_gesv_params *p, const dense_call *c,
                  mix_gesv_info *info, int device)
{
    if (!ctx || (device && !(ctx->ops->flags & MIXI_BACKEND_DEVICE_POINTERS))) return -1;
    if (check_params(p, c->spd)) return -2;
    int st = check_args(3, c), idx;
    if (st) return st;
    return device ? run_device(ctx, p, c, info) : run_host(ctx, p, c, info, &idx);
}

/* The simple drivers: LAPACKE's arguments and return values, the factor precision named. */
static int simple(mix_prec prec, const dense_call *c, int *iter)
{
    int st = check_args(1, c);
    if (st) return st;
    if (!iter) return -11;
    mix_context *ctx;
    if ((st = mixi_default_context(&ctx)))
        return st == MIX_ERR_ALLOC ? SIMPLE_ERR_MEMORY : SIMPLE_ERR_OTHER;
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = prec;
    mix_gesv_info info;
    int idx = 0;
    dense_call dc = *c;
    dc.untimed = 1; /* the simple drivers return no timings */
    mixi_default_enter(ctx);
    st = run_host(ctx, &p, &dc, &info, &idx);
    mixi_default_leave(ctx);
    if (st == MIX_SUCCESS || st == factor_failed(c)) {
        *iter = info.iter;
        return st == MIX_SUCCESS ? 0 : idx;
    }
    if (st == MIX_ERR_NAN) return c->n + 1;
    return st == MIX_ERR_ALLOC ? SIMPLE_ERR_MEMORY : SIMPLE_ERR_OTHER;
}

/* ---- LU ------------------------------------------------------------------------------------- */

#define LU_CALL(layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, f_out)                            \
    ((dense_call){0, 'L', ipiv, layout, n, nrhs, a, lda, b, ldb, x, ldx, f_out, 0})

int mix_dgesv_ir(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs, double *a,
                 int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                 mix_gesv_info *info)
{
    const dense_call c = LU_CALL(layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, NULL);
    return expert(ctx, p, &c, info, 0);
}

int mix_dgesv_ir_gpu(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs,
                     double *d_a, int lda, int *ipiv, const double *d_b, int ldb, double *d_x,
                     int ldx, mix_gesv_info *info)
{
    const dense_call c = LU_CALL(layout, n, nrhs, d_a, lda, ipiv, d_b, ldb, d_x, ldx, NULL);
    return expert(ctx, p, &c, info, 1);
}

int mixi_dgesv_lapack(mix_context *ctx, const mix_gesv_params *p, int n, int nrhs, double *a,
                      int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *sing, int widen)
{
    const dense_call c = LU_CALL(MIX_COL_MAJOR, n, nrhs, a, lda, ipiv, b, ldb, x, ldx,
                                 widen ? a : NULL);
    return run_host(ctx, p, &c, info, sing);
}

/* AUTO's factor precision for LU (chol 0) or Cholesky, after the arguments' checks; commit: for
 * a call about to run (mixi_gesv_auto_choice). */
static int auto_prec(mix_context *ctx, int chol, int commit, int n, int nrhs, mix_prec *prec)
{
    if (!ctx) return -1;
    if (n < 0) return -2;
    if (nrhs < 0) return -3;
    if (!prec) return -4;
    *prec = chol ? mixi_posv_auto_choice(ctx, n, nrhs, commit)
                 : mixi_gesv_auto_choice(ctx, n, nrhs, commit);
    return MIX_SUCCESS;
}

int mix_gesv_auto_prec(mix_context *ctx, int n, int nrhs, mix_prec *prec)
{
    return auto_prec(ctx, 0, 0, n, nrhs, prec);
}

int mixi_posv_auto_prec(mix_context *ctx, int n, int nrhs, mix_prec *prec)
{
    return auto_prec(ctx, 1, 0, n, nrhs, prec);
}

int mixi_auto_prec_for_call(mix_context *ctx, int chol, int n, int nrhs, mix_prec *prec)
{
    return auto_prec(ctx, chol, 1, n, nrhs, prec);
}

#define SIMPLE_GESV(name, prec)                                                                   \
    int name(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,      \
             double *x, int ldx, int *iter)                                                       \
    {                                                                                             \
        return simple(prec, &LU_CALL(layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, NULL), iter); \
    }
SIMPLE_GESV(mix_dsgesv, MIX_FP32) SIMPLE_GESV(mix_dxgesv, MIX_TF32)
SIMPLE_GESV(mix_dhgesv, MIX_FP16) SIMPLE_GESV(mix_dbgesv, MIX_BF16)

/* ---- Cholesky ------------------------------------------------------------------------------- */

#define CHOL_CALL(layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, f_out)                          \
    ((dense_call){1, uplo, NULL, layout, n, nrhs, a, lda, b, ldb, x, ldx, f_out, 0})

int mix_dposv_ir(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                 int nrhs, double *a, int lda, const double *b, int ldb, double *x, int ldx,
                 mix_gesv_info *info)
{
    const dense_call c = CHOL_CALL(layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, NULL);
    return expert(ctx, p, &c, info, 0);
}

int mix_dposv_ir_gpu(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                     int nrhs, double *d_a, int lda, const double *d_b, int ldb, double *d_x,
                     int ldx, mix_gesv_info *info)
{
    const dense_call c = CHOL_CALL(layout, uplo, n, nrhs, d_a, lda, d_b, ldb, d_x, ldx, NULL);
    return expert(ctx, p, &c, info, 1);
}

int mixi_dposv_lapack(mix_context *ctx, const mix_gesv_params *p, char uplo, int n, int nrhs,
                      double *a, int lda, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *not_pd, int widen)
{
    const dense_call c = CHOL_CALL(MIX_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb, x, ldx,
                                   widen ? a : NULL);
    return run_host(ctx, p, &c, info, not_pd);
}

#define SIMPLE_POSV(name, prec)                                                                   \
    int name(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,      \
             double *x, int ldx, int *iter)                                                       \
    {                                                                                             \
        return simple(prec, &CHOL_CALL(layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, NULL), iter);\
    }
SIMPLE_POSV(mix_dsposv, MIX_FP32) SIMPLE_POSV(mix_dxposv, MIX_TF32)
SIMPLE_POSV(mix_dhposv, MIX_FP16) SIMPLE_POSV(mix_dbposv, MIX_BF16)
