/* gesv_api.c: public dense drivers (mix_d?gesv, mix_dgesv_ir, mix_dgesv_ir_gpu): argument checks and staging. */
#include <math.h>
#include "mix_internal.h"
#include "solvers/solvers.h"
#include "kernels/common/prec_traits.h"

/* LAPACKE's code for a failed workspace allocation, returned by the simple drivers likewise. */
#define SIMPLE_ERR_MEMORY (-1010)
/* Any other failure of the simple drivers (no backend, a library or device call failed). */
#define SIMPLE_ERR_OTHER (-1011)

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

/* Argument checks shared by every driver; `first` is the position of `layout`, so the result is
 * -(first + k) for the k-th argument after it, LAPACKE-style. */
static int check_args(int first, int layout, int n, int nrhs, const void *a, int lda,
                      const void *ipiv, const void *b, int ldb, const void *x, int ldx)
{
    if (layout != MIX_ROW_MAJOR && layout != MIX_COL_MAJOR) return -first;
    if (n < 0) return -(first + 1);
    if (nrhs < 0) return -(first + 2);
    if (!a && n > 0) return -(first + 3);
    if (lda < (n > 1 ? n : 1)) return -(first + 4);
    if (!ipiv && n > 0) return -(first + 5);
    if (!b && n > 0 && nrhs > 0) return -(first + 6);
    int rows_b = layout == MIX_COL_MAJOR ? n : nrhs; /* minimum leading dimension of B and X */
    if (ldb < (rows_b > 1 ? rows_b : 1)) return -(first + 7);
    if (!x && n > 0 && nrhs > 0) return -(first + 8);
    if (ldx < (rows_b > 1 ? rows_b : 1)) return -(first + 9);
    return 0;
}

static int check_params(const mix_gesv_params *p)
{
    if (!p) return 0;
    if (!mixk_prec_gemm(p->factor_prec) && p->factor_prec != MIX_PREC_AUTO) return -1;
    if (p->refine != MIX_REFINE_CLASSICAL && p->refine != MIX_REFINE_GMRES &&
        p->refine != MIX_REFINE_AUTO)
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

int mixi_unalias(mix_context *ctx, const double **b, size_t sb, const double *x, size_t sx,
                 double **copy)
{
    size_t bbytes, xbytes;
    int rc;
    *copy = NULL;
    if ((rc = mixi_mul_size(sb, sizeof(double), &bbytes)) ||
        (rc = mixi_mul_size(sx, sizeof(double), &xbytes)))
        return rc;
    if (!mixi_overlap(*b, bbytes, x, xbytes)) return MIX_SUCCESS;
    if ((rc = ctx->ops->alloc(ctx->state, (void **)copy, bbytes)) ||
        (rc = ctx->ops->copy(ctx->state, *copy, *b, bbytes))) {
        ctx->ops->free(ctx->state, *copy);
        *copy = NULL;
        return rc;
    }
    *b = *copy;
    return MIX_SUCCESS;
}

/* Elements spanned by B (or X) in the given layout. */
static size_t span_rhs(int layout, int n, int nrhs, int ld)
{
    return layout == MIX_ROW_MAJOR ? span(nrhs, n, ld) : span(n, nrhs, ld);
}

/* Host a/b/x on a backend whose memory is not host memory: stage through backend buffers.  The
 * x span is uploaded first so that its padding rows survive the download. */
static int run_staged(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs,
                      double *a, int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *sing, double *lu_out)
{
    const mix_backend_ops *o = ctx->ops;
    int rm = layout == MIX_ROW_MAJOR;
    size_t sa = span(n, n, lda), sb = rm ? span(nrhs, n, ldb) : span(n, nrhs, ldb),
           sx = rm ? span(nrhs, n, ldx) : span(n, nrhs, ldx);
    double *da = NULL, *db = NULL, *dx = NULL;
    int rc;
    if ((rc = o->alloc(ctx->state, (void **)&da, (sa ? sa : 1) * sizeof(double))) ||
        (rc = o->alloc(ctx->state, (void **)&db, (sb ? sb : 1) * sizeof(double))) ||
        (rc = o->alloc(ctx->state, (void **)&dx, (sx ? sx : 1) * sizeof(double))) ||
        (rc = o->upload(ctx->state, da, a, sa * sizeof(double))) ||
        (rc = o->upload(ctx->state, db, b, sb * sizeof(double))) ||
        (rc = o->upload(ctx->state, dx, x, sx * sizeof(double))))
        goto out;
    rc = mixi_gesv_run_lu(ctx, p, layout, n, nrhs, da, lda, ipiv, db, ldb, dx, ldx, info, sing,
                          lu_out, lda);
    if (rc == MIX_SUCCESS && (rc = o->download(ctx->state, x, dx, sx * sizeof(double)))) goto out;
    /* iter < 0: the FP64 factors were written into the backend copy of a. */
    if ((rc == MIX_SUCCESS || rc == MIX_ERR_SINGULAR) && info->iter < 0) {
        int rc2 = o->download(ctx->state, a, da, sa * sizeof(double));
        if (rc2) rc = rc2;
    }
out:
    o->free(ctx->state, da);
    o->free(ctx->state, db);
    o->free(ctx->state, dx);
    info->status = rc;
    return rc;
}

static int dgesv_ir(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs,
                    double *a, int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                    mix_gesv_info *info, int *sing, double *lu_out)
{
    mix_gesv_info local;
    if (!info) info = &local;
    mix_gesv_params defaults; /* the solvers take parameters as given */
    if (!p) {
        mix_gesv_params_init(&defaults);
        p = &defaults;
    }
    /* Backend memory that is host memory needs no staging (staging separates b from x). */
    if (ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY) {
        double *bcopy;
        int rc = mixi_unalias(ctx, &b, span_rhs(layout, n, nrhs, ldb), x,
                              span_rhs(layout, n, nrhs, ldx), &bcopy);
        if (rc) return info->status = rc;
        rc = mixi_gesv_run_lu(ctx, p, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, info, sing,
                              lu_out, lda);
        ctx->ops->free(ctx->state, bcopy);
        return rc;
    }
    return run_staged(ctx, p, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, info, sing, lu_out);
}

int mix_dgesv_ir(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs, double *a,
                 int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                 mix_gesv_info *info)
{
    if (!ctx) return -1;
    if (check_params(p)) return -2;
    int st = check_args(3, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx);
    if (st) return st;
    int sing;
    return dgesv_ir(ctx, p, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, info, &sing, NULL);
}

int mixi_dgesv_lapack(mix_context *ctx, const mix_gesv_params *p, int n, int nrhs, double *a,
                      int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *sing, int widen)
{
    return dgesv_ir(ctx, p, MIX_COL_MAJOR, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, info, sing,
                    widen ? a : NULL);
}

int mix_gesv_auto_prec(mix_context *ctx, int n, int nrhs, mix_prec *prec)
{
    if (!ctx) return -1;
    if (n < 0) return -2;
    if (nrhs < 0) return -3;
    if (!prec) return -4;
    *prec = mixi_gesv_auto_choice(ctx, n, nrhs);
    return MIX_SUCCESS;
}

int mix_dgesv_ir_gpu(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs,
                     double *d_a, int lda, int *ipiv, const double *d_b, int ldb, double *d_x,
                     int ldx, mix_gesv_info *info)
{
    if (!ctx || !(ctx->ops->flags & MIXI_BACKEND_DEVICE_POINTERS)) return -1; /* a device backend */
    if (check_params(p)) return -2;
    int st = check_args(3, layout, n, nrhs, d_a, lda, ipiv, d_b, ldb, d_x, ldx);
    if (st) return st;
    mix_gesv_info local;
    int sing;
    mix_gesv_params defaults;
    if (!p) {
        mix_gesv_params_init(&defaults);
        p = &defaults;
    }
    double *bcopy;
    if ((st = mixi_unalias(ctx, &d_b, span_rhs(layout, n, nrhs, ldb), d_x,
                           span_rhs(layout, n, nrhs, ldx), &bcopy)))
        return (info ? info : &local)->status = st;
    st = mixi_gesv_run(ctx, p, layout, n, nrhs, d_a, lda, ipiv, d_b, ldb, d_x, ldx,
                       info ? info : &local, &sing);
    ctx->ops->free(ctx->state, bcopy);
    return st;
}

/* The four simple drivers differ only in the factor precision. */
static int simple_gesv(mix_prec prec, int layout, int n, int nrhs, double *a, int lda, int *ipiv,
                       double *b, int ldb, double *x, int ldx, int *iter)
{
    int st = check_args(1, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx);
    if (st) return st;
    if (!iter) return -11;
    mix_context *ctx;
    if ((st = mixi_default_context(&ctx))) return st == MIX_ERR_ALLOC ? SIMPLE_ERR_MEMORY
                                                                      : SIMPLE_ERR_OTHER;
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = prec;
    mix_gesv_info info;
    int sing = 0;
    mixi_default_enter(ctx);
    st = dgesv_ir(ctx, &p, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, &info, &sing, NULL);
    mixi_default_leave(ctx);
    switch (st) {
    case MIX_SUCCESS:
        *iter = info.iter;
        return 0;
    case MIX_ERR_SINGULAR:
        *iter = info.iter;
        return sing;
    case MIX_ERR_NAN:
        return n + 1;
    case MIX_ERR_ALLOC:
        return SIMPLE_ERR_MEMORY;
    default:
        return SIMPLE_ERR_OTHER;
    }
}

int mix_dsgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
               double *x, int ldx, int *iter)
{
    return simple_gesv(MIX_FP32, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter);
}

int mix_dxgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
               double *x, int ldx, int *iter)
{
    return simple_gesv(MIX_TF32, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter);
}

int mix_dhgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
               double *x, int ldx, int *iter)
{
    return simple_gesv(MIX_FP16, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter);
}

int mix_dbgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
               double *x, int ldx, int *iter)
{
    return simple_gesv(MIX_BF16, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter);
}
