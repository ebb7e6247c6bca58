/* posv_api.c: public SPD drivers (mix_d?posv, mix_dposv_ir, mix_dposv_ir_gpu): argument checks and staging. */
#include <math.h>
#include "mix_internal.h"
#include "kernels/common/prec_traits.h"
#include "solvers/solvers.h"

/* LAPACKE's code for a failed workspace allocation, and any other failure (as mix_d?gesv). */
#define SIMPLE_ERR_MEMORY (-1010)
#define SIMPLE_ERR_OTHER (-1011)

/* LAPACKE_dsposv's checks, in its order; `first` is the position of `layout`, so the result is
 * -(first + k) for the k-th argument after it. */
static int check_args(int first, int layout, char uplo, int n, int nrhs, const void *a, int lda,
                      const void *b, int ldb, const void *x, int ldx)
{
    if (layout != MIX_ROW_MAJOR && layout != MIX_COL_MAJOR) return -first;
    if (uplo != 'L' && uplo != 'l' && uplo != 'U' && uplo != 'u') return -(first + 1);
    if (n < 0) return -(first + 2);
    if (nrhs < 0) return -(first + 3);
    if (!a && n > 0) return -(first + 4);
    if (lda < (n > 1 ? n : 1)) return -(first + 5);
    if (!b && n > 0 && nrhs > 0) return -(first + 6);
    int rows_b = layout == MIX_COL_MAJOR ? n : nrhs; /* minimum leading dimension of B and X */
    if (ldb < (rows_b > 1 ? rows_b : 1)) return -(first + 7);
    if (!x && n > 0 && nrhs > 0) return -(first + 8);
    if (ldx < (rows_b > 1 ? rows_b : 1)) return -(first + 9);
    return 0;
}

/* mix_dgesv_ir's parameter rules, plus MIX_REFINE_CG. */
static int check_params(const mix_gesv_params *p)
{
    if (!p) return 0;
    if (!mixk_prec_gemm(p->factor_prec) && p->factor_prec != MIX_PREC_AUTO) return -1;
    switch (p->refine) {
    case MIX_REFINE_CLASSICAL: case MIX_REFINE_GMRES: case MIX_REFINE_AUTO: case MIX_REFINE_CG:
        break;
    default:
        return -1;
    }
    if (!(p->tol >= 0.0) || !isfinite(p->tol)) return -1;
    if (p->max_iter < 0 || p->gmres_restart < 1 || p->history_capacity < 0) return -1;
    if (p->history_capacity > 0 && !p->residual_history) return -1;
    return 0;
}

static size_t span(int rows, int cols, int ld)
{
    if (rows == 0 || cols == 0) return 0;
    return (size_t)(cols - 1) * (size_t)ld + (size_t)rows;
}

/* Elements spanned by B (or X) in the given layout. */
static size_t span_rhs(int layout, int n, int nrhs, int ld)
{
    return layout == MIX_ROW_MAJOR ? span(nrhs, n, ld) : span(n, nrhs, ld);
}

/* Host a/b/x on a backend whose memory is not host memory: stage through backend buffers (the x
 * span is uploaded first so that its padding rows survive the download). */
static int run_staged(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                      int nrhs, double *a, int lda, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *not_pd, double *l_out)
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
    rc = mixi_posv_run_factor(ctx, p, layout, uplo, n, nrhs, da, lda, db, ldb, dx, ldx, info,
                              not_pd, l_out, lda);
    if (rc == MIX_SUCCESS && (rc = o->download(ctx->state, x, dx, sx * sizeof(double)))) goto out;
    /* iter < 0: the FP64 factor was written into the backend copy of a's triangle; the whole
     * span goes back, the other triangle with the bits it came with. */
    if ((rc == MIX_SUCCESS || rc == MIX_ERR_NOT_SPD) && info->iter < 0) {
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

static int dposv_ir(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                    int nrhs, double *a, int lda, const double *b, int ldb, double *x, int ldx,
                    mix_gesv_info *info, int *not_pd, double *l_out)
{
    mix_gesv_info local;
    if (!info) info = &local;
    mix_gesv_params defaults; /* the solvers take parameters as given */
    if (!p) {
        mix_gesv_params_init(&defaults);
        p = &defaults;
    }
    if (ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY) { /* no staging (which separates b from x) */
        double *bcopy;
        int rc = mixi_unalias(ctx, &b, span_rhs(layout, n, nrhs, ldb), x,
                              span_rhs(layout, n, nrhs, ldx), &bcopy);
        if (rc) return info->status = rc;
        rc = mixi_posv_run_factor(ctx, p, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, info,
                                  not_pd, l_out, lda);
        ctx->ops->free(ctx->state, bcopy);
        return rc;
    }
    return run_staged(ctx, p, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, info, not_pd, l_out);
}

int mixi_dposv_lapack(mix_context *ctx, const mix_gesv_params *p, char uplo, int n, int nrhs,
                      double *a, int lda, const double *b, int ldb, double *x, int ldx,
                      mix_gesv_info *info, int *not_pd, int widen)
{
    return dposv_ir(ctx, p, MIX_COL_MAJOR, uplo, n, nrhs, a, lda, b, ldb, x, ldx, info, not_pd,
                    widen ? a : NULL);
}

int mix_dposv_ir(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                 int nrhs, double *a, int lda, const double *b, int ldb, double *x, int ldx,
                 mix_gesv_info *info)
{
    if (!ctx) return -1;
    if (check_params(p)) return -2;
    int st = check_args(3, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx);
    if (st) return st;
    int not_pd;
    return dposv_ir(ctx, p, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, info, &not_pd, NULL);
}

int mix_dposv_ir_gpu(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                     int nrhs, double *d_a, int lda, const double *d_b, int ldb, double *d_x,
                     int ldx, mix_gesv_info *info)
{
    if (!ctx || !(ctx->ops->flags & MIXI_BACKEND_DEVICE_POINTERS)) return -1; /* a device backend */
    if (check_params(p)) return -2;
    int st = check_args(3, layout, uplo, n, nrhs, d_a, lda, d_b, ldb, d_x, ldx);
    if (st) return st;
    mix_gesv_info local;
    int not_pd;
    mix_gesv_params defaults;
    if (!p) {
        mix_gesv_params_init(&defaults);
        p = &defaults;
    }
    double *bcopy;
    if ((st = mixi_unalias(ctx, &d_b, span_rhs(layout, n, nrhs, ldb), d_x,
                           span_rhs(layout, n, nrhs, ldx), &bcopy)))
        return (info ? info : &local)->status = st;
    st = mixi_posv_run(ctx, p, layout, uplo, n, nrhs, d_a, lda, d_b, ldb, d_x, ldx,
                       info ? info : &local, &not_pd);
    ctx->ops->free(ctx->state, bcopy);
    return st;
}

/* The four simple drivers differ only in the factor precision. */
static int simple_posv(mix_prec prec, int layout, char uplo, int n, int nrhs, double *a, int lda,
                       double *b, int ldb, double *x, int ldx, int *iter)
{
    int st = check_args(1, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx);
    if (st) return st;
    if (!iter) return -11;
    mix_context *ctx;
    if ((st = mixi_default_context(&ctx))) return st == MIX_ERR_ALLOC ? SIMPLE_ERR_MEMORY
                                                                      : SIMPLE_ERR_OTHER;
    mix_gesv_params p;
    mix_gesv_params_init(&p);
    p.factor_prec = prec;
    mix_gesv_info info;
    int not_pd = 0;
    mixi_default_enter(ctx);
    st = dposv_ir(ctx, &p, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, &info, &not_pd, NULL);
    mixi_default_leave(ctx);
    switch (st) {
    case MIX_SUCCESS:
        *iter = info.iter;
        return 0;
    case MIX_ERR_NOT_SPD:
        *iter = info.iter;
        return not_pd;
    case MIX_ERR_NAN:
        return n + 1;
    case MIX_ERR_ALLOC:
        return SIMPLE_ERR_MEMORY;
    default:
        return SIMPLE_ERR_OTHER;
    }
}

int mix_dsposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,
               double *x, int ldx, int *iter)
{
    return simple_posv(MIX_FP32, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, iter);
}

int mix_dxposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,
               double *x, int ldx, int *iter)
{
    return simple_posv(MIX_TF32, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, iter);
}

int mix_dhposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,
               double *x, int ldx, int *iter)
{
    return simple_posv(MIX_FP16, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, iter);
}

int mix_dbposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,
               double *x, int ldx, int *iter)
{
    return simple_posv(MIX_BF16, layout, uplo, n, nrhs, a, lda, b, ldb, x, ldx, iter);
}
