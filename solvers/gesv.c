/* gesv.c: the dense mixed-precision driver: precision choice, low-precision LU, refinement, FP64 fallback. */
#include <float.h>
#include <math.h>
#include "solvers/solvers.h"

/* Backend allocation of count * size bytes (never 0 bytes, so a NULL result always means failure). */
static int balloc(mix_context *ctx, void **ptr, size_t rows, size_t cols, size_t size)
{
    size_t bytes;
    *ptr = NULL;
    if (mixi_mul3_size(rows ? rows : 1, cols ? cols : 1, size, &bytes)) return MIX_ERR_ALLOC;
    return ctx->ops->alloc(ctx->state, ptr, bytes);
}

typedef struct {
    mix_context *ctx;
    int n, nrhs;
    const double *a; /* column-major FP64 A, ld lda (the user's, or a transposed copy) */
    int lda;
    const double *b; /* column-major B, ld ldb */
    int ldb;
    double *x;       /* column-major X, ld ldx */
    int ldx;
    double anrm;
    double *lu_out;  /* host, column-major, ld ld_lu_out: widened factors on success (or NULL) */
    int ld_lu_out;
} problem;

/* Low-precision LU + refinement.  *reason = MIX_REASON_NONE on success, else why to fall back. */
static int lowprec_solve(const problem *P, const mix_gesv_params *p, mix_prec prec, int *ipiv,
                         mix_gesv_info *info, int *reason)
{
    mix_context *ctx = P->ctx;
    const mix_backend_ops *o = ctx->ops;
    const mix_dense_ops *d = o->dense;
    const int n = P->n, nrhs = P->nrhs, nb = mixi_lu_block_size(n);
    float *lu = NULL, *swork = NULL;
    int *dipiv = NULL;
    double *r = NULL, *c = NULL, *res = NULL, *host = NULL;
    void *gwork = NULL, *pwork = NULL;
    mixi_gmres_ws gm = {0};
    int rc, use_gmres = p->refine != MIX_REFINE_CLASSICAL, scale = p->scale && prec == MIX_FP16;
    size_t pbytes = 0;
    double t0 = mixi_wtime();
    *reason = MIX_REASON_NONE;

    /* Every workspace once, before any work. */
    if ((rc = d->getrf_panel_f32_worksize(ctx->state, n, prec == MIX_FP32 && d->getrf_f32 ? n : nb,
                                          &pbytes)) ||
        (rc = balloc(ctx, (void **)&lu, (size_t)n, (size_t)n, sizeof(float))) ||
        (rc = balloc(ctx, (void **)&dipiv, (size_t)n, 1, sizeof(int))) ||
        (prec != MIX_FP32 &&
         (rc = balloc(ctx, &gwork, mixi_lu_gemm_work_floats(n, nb), 1, sizeof(float)))) ||
        (pbytes && (rc = balloc(ctx, &pwork, pbytes, 1, 1))) ||
        (rc = balloc(ctx, (void **)&swork, (size_t)n, (size_t)nrhs, sizeof(float))) ||
        (rc = balloc(ctx, (void **)&res, (size_t)n, (size_t)nrhs, sizeof(double))) ||
        (scale && (rc = balloc(ctx, (void **)&r, (size_t)n, 1, sizeof(double)))) ||
        (scale && (rc = balloc(ctx, (void **)&c, (size_t)n, 1, sizeof(double)))) ||
        (scale && !(host = mixi_malloc_n((size_t)n, sizeof(double))) && (rc = MIX_ERR_ALLOC)) ||
        (use_gmres && (rc = mixi_gmres_ws_alloc(ctx, n, p->gmres_restart, &gm))))
        goto out;

    double s = 1.0;
    if (scale && (rc = mixi_scale_compute(ctx, prec, n, P->a, P->lda, r, c, &s, host))) goto out;
    size_t overflow = 0;
    rc = d->convert_f64_to_f32(ctx->state, prec, n, n, P->a, P->lda, r, c, s, lu, n, &overflow);
    if (rc) goto out;
    if (overflow) {
        *reason = MIX_REASON_OVERFLOW;
        goto out;
    }
    int failed = 0;
    if (prec == MIX_FP32 && d->getrf_f32) {
        /* FP32 all the way: the backend's own LU is the same algorithm, better tuned. */
        int finfo = 0;
        if ((rc = d->getrf_f32(ctx->state, n, lu, n, dipiv, pwork, &finfo))) goto out;
        failed = finfo != 0;
    } else if ((rc = mixi_lu_lowprec(ctx, prec, n, lu, n, dipiv, nb, gwork, pwork, &failed))) {
        goto out;
    }
    if ((rc = o->synchronize(ctx->state))) goto out;
    info->t_factor = mixi_wtime() - t0;
    if (failed) {
        *reason = MIX_REASON_FACTOR_FAILED;
        goto out;
    }

    t0 = mixi_wtime();
    mixi_lu_precond M;
    mixi_lu_precond_init(&M, ctx, n, lu, n, dipiv, r, c, s, swork);
    mixi_refine_job job = {ctx, p, n, nrhs, {P->a, P->lda, 0, 0}, P->b, P->ldb, P->x, P->ldx,
                           res, &M.base, use_gmres ? &gm : NULL, NULL, P->anrm, 0.0,
                           p->cost_fallback && n >= MIXI_COST_FALLBACK_MIN_N
                               ? 2.0 / 3.0 * (double)n * n * n + 2.0 * (double)n * n * nrhs
                               : 0.0,
                           info->t_factor};
    mixi_refine_result rr;
    if ((rc = mixi_refine(&job, &rr))) goto out;
    if ((rc = o->synchronize(ctx->state))) goto out;
    info->t_refine = mixi_wtime() - t0;
    info->iter = rr.iter;
    info->inner_iter = rr.inner_iter;
    info->backward_error = rr.backward_error;
    info->history_length = rr.history_length;
    if (rr.nan) *reason = MIX_REASON_NAN_IN_REFINEMENT;
    else if (rr.too_slow) *reason = MIX_REASON_TOO_SLOW;
    else if (!rr.converged) *reason = MIX_REASON_NOT_CONVERGED;
    else if (!(rc = o->download(ctx->state, ipiv, dipiv, (size_t)n * sizeof(int))) && P->lu_out)
        rc = mixi_lu_widen(ctx, n, lu, n, ipiv, scale ? r : NULL, scale ? c : NULL, s, P->lu_out,
                           P->ld_lu_out);
out:
    o->free(ctx->state, lu);
    o->free(ctx->state, dipiv);
    o->free(ctx->state, gwork);
    o->free(ctx->state, pwork);
    o->free(ctx->state, swork);
    o->free(ctx->state, res);
    o->free(ctx->state, r);
    o->free(ctx->state, c);
    mixi_free(host);
    mixi_gmres_ws_free(ctx, &gm);
    return rc;
}

/* FP64 LU (dgetrf/dgetrs) on a copy of A, so the backward error can still be measured against
 * the original; the factors then go to the caller's a.  *sing = k > 0 if U(k,k) == 0. */
static int fp64_solve(const problem *P, int trans_out, double *a_out, int lda_out, int *ipiv,
                      mix_gesv_info *info, int *sing)
{
    mix_context *ctx = P->ctx;
    const mix_backend_ops *o = ctx->ops;
    const mix_dense_ops *d = o->dense;
    const int n = P->n, nrhs = P->nrhs;
    double *f = NULL, *res = NULL;
    int *dipiv = NULL;
    void *work = NULL;
    size_t wbytes = 0;
    int rc, finfo = 0;
    double *xn = NULL;
    double t0 = mixi_wtime();
    *sing = 0;
    if ((rc = d->getrf_f64_worksize(ctx->state, n, &wbytes)) ||
        (rc = balloc(ctx, (void **)&f, (size_t)n, (size_t)n, sizeof(double))) ||
        (rc = balloc(ctx, (void **)&dipiv, (size_t)n, 1, sizeof(int))) ||
        (rc = balloc(ctx, (void **)&res, (size_t)n, (size_t)nrhs, sizeof(double))) ||
        (wbytes && (rc = balloc(ctx, &work, wbytes, 1, 1))) ||
        (!(xn = mixi_malloc_n((size_t)nrhs * 3, sizeof(double))) && (rc = MIX_ERR_ALLOC)))
        goto out;
    if ((rc = d->lacpy_f64(ctx->state, 0, n, n, P->a, P->lda, f, n)) ||
        (rc = d->getrf_f64(ctx->state, n, f, n, dipiv, work, &finfo)) ||
        (rc = o->synchronize(ctx->state)))
        goto out;
    info->t_factor += mixi_wtime() - t0;
    t0 = mixi_wtime();
    if (finfo > 0) {
        *sing = finfo;
    } else {
        const mixi_matrix A = {P->a, P->lda, 0, 0};
        if ((rc = d->lacpy_f64(ctx->state, 0, n, nrhs, P->b, P->ldb, P->x, P->ldx)) ||
            (rc = d->getrs_f64(ctx->state, n, nrhs, f, n, dipiv, P->x, P->ldx)) ||
            (rc = mixi_backward_error(ctx, n, nrhs, &A, P->anrm, P->b, P->ldb, P->x, P->ldx, res,
                                      xn, &info->backward_error)))
            goto out;
    }
    /* The caller's a receives the FP64 factors (in its own layout) and ipiv the pivots. */
    if ((rc = d->lacpy_f64(ctx->state, trans_out, n, n, f, n, a_out, lda_out)) ||
        (rc = o->download(ctx->state, ipiv, dipiv, (size_t)n * sizeof(int))) ||
        (rc = o->synchronize(ctx->state)))
        goto out;
    info->t_refine += mixi_wtime() - t0;
out:
    o->free(ctx->state, f);
    o->free(ctx->state, dipiv);
    o->free(ctx->state, res);
    o->free(ctx->state, work);
    mixi_free(xn);
    return rc;
}

/* FP64 chosen directly (AUTO below its threshold, or MIX_FP64), on the caller's column-major a:
 * LAPACK's dgesv in place, no copy of A and no pass dgesv would not make.  The backward error
 * needs the A just factored, so it is not measured (0, as for Cholesky; iter -1 says so); x is
 * still checked, so NaN/Inf out of finite data (reciprocals of subnormal pivots) never passes. */
static int fp64_direct(const problem *P, double *a, int lda, int *ipiv, mix_gesv_info *info,
                       int *sing)
{
    mix_context *ctx = P->ctx;
    const mix_backend_ops *o = ctx->ops;
    const mix_dense_ops *d = o->dense;
    const int n = P->n, nrhs = P->nrhs, host = (o->flags & MIXI_BACKEND_HOST_MEMORY) != 0;
    int *dipiv = host ? ipiv : NULL, rc, finfo = 0;
    void *work = NULL;
    size_t wbytes = 0, bad = 0;
    double t0 = mixi_wtime();
    *sing = 0;
    if ((rc = d->getrf_f64_worksize(ctx->state, n, &wbytes)) ||
        (!host && (rc = balloc(ctx, (void **)&dipiv, (size_t)n, 1, sizeof(int)))) ||
        (wbytes && (rc = balloc(ctx, &work, wbytes, 1, 1))) ||
        (rc = d->getrf_f64(ctx->state, n, a, lda, dipiv, work, &finfo)) ||
        (rc = o->synchronize(ctx->state)))
        goto out;
    info->t_factor += mixi_wtime() - t0;
    t0 = mixi_wtime();
    if (finfo > 0) *sing = finfo;
    else if ((rc = d->lacpy_f64(ctx->state, 0, n, nrhs, P->b, P->ldb, P->x, P->ldx)) ||
             (rc = d->getrs_f64(ctx->state, n, nrhs, a, lda, dipiv, P->x, P->ldx)) ||
             (rc = d->count_nonfinite_f64(ctx->state, n, nrhs, P->x, P->ldx, &bad)))
        goto out;
    info->backward_error = bad ? NAN : 0.0;
    if ((!host && (rc = o->download(ctx->state, ipiv, dipiv, (size_t)n * sizeof(int)))) ||
        (rc = o->synchronize(ctx->state)))
        goto out;
    info->t_refine += mixi_wtime() - t0;
out:
    if (!host) o->free(ctx->state, dipiv);
    o->free(ctx->state, work);
    return rc;
}

int mixi_gesv_run(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs,
                  double *a, int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                  mix_gesv_info *info, int *singular_index)
{
    return mixi_gesv_run_lu(ctx, p, layout, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, info,
                            singular_index, NULL, 0);
}

int mixi_gesv_run_lu(mix_context *ctx, const mix_gesv_params *p_in, int layout, int n, int nrhs,
                     double *a, int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                     mix_gesv_info *info, int *singular_index, double *lu_out, int ld_lu_out)
{
    const mix_backend_ops *o = ctx->ops;
    const mix_dense_ops *d = o->dense;
    mix_gesv_params p = *p_in;
    const mix_gesv_info zero = {0};
    *info = zero;
    *singular_index = 0;
    info->factor_prec_used = p.factor_prec;
    if (n == 0 || nrhs == 0) return MIX_SUCCESS; /* nothing to solve, nothing written */
    if (!d || !d->getrs_f32_f64 || !d->getrf_f64) return info->status = MIX_ERR_UNSUPPORTED;

    const int rowmajor = layout == MIX_ROW_MAJOR;
    double *a64 = NULL, *b64 = NULL, *x64 = NULL;
    int rc, sing = 0;
    problem P = {ctx, n, nrhs, a, lda, b, ldb, x, ldx, 0.0, rowmajor ? NULL : lu_out, ld_lu_out};
    if (rowmajor) { /* column-major working copies; results are transposed back */
        if ((rc = balloc(ctx, (void **)&a64, (size_t)n, (size_t)n, sizeof(double))) ||
            (rc = balloc(ctx, (void **)&b64, (size_t)n, (size_t)nrhs, sizeof(double))) ||
            (rc = balloc(ctx, (void **)&x64, (size_t)n, (size_t)nrhs, sizeof(double))) ||
            (rc = d->lacpy_f64(ctx->state, 1, n, n, a, lda, a64, n)) ||
            (rc = d->lacpy_f64(ctx->state, 1, nrhs, n, b, ldb, b64, n)))
            goto out;
        P.a = a64; P.lda = n;
        P.b = b64; P.ldb = n;
        P.x = x64; P.ldx = n;
    }
    /* ||A||inf is needed anyway and is finite unless A holds NaN/Inf or its row sums overflow:
     * only then is A scanned entry by entry (one pass over A saved in the common case). */
    size_t bad_a = 0, bad_b = 0;
    if ((rc = d->norm_inf_f64(ctx->state, n, n, P.a, P.lda, &P.anrm)) ||
        (!isfinite(P.anrm) && (rc = d->count_nonfinite_f64(ctx->state, n, n, P.a, P.lda, &bad_a))) ||
        (rc = d->count_nonfinite_f64(ctx->state, n, nrhs, P.b, P.ldb, &bad_b)))
        goto out;
    if (bad_a || bad_b) {
        rc = MIX_ERR_NAN;
        goto out;
    }
    /* Near the edges of the FP64 range (subnormal or huge entries): solve the exactly scaled
     * system (2^ka A) y = 2^kb B on copies, x = 2^(ka - kb) y (solvers/range.c). */
    int ka = 0, kb = 0;
    mixi_matrix Ag = {P.a, P.lda, 0, 0};
    if ((rc = mixi_range_exponents(ctx, n, nrhs, &Ag, P.anrm, P.b, P.ldb, &ka, &kb))) goto out;
    if ((ka || kb) && P.lu_out) {
        /* The factors would be those of 2^ka A, written before the x of the scaled system is
         * re-checked, which may still fail: the caller (the drop-in) hands it to LAPACK. */
        rc = MIX_ERR_UNSUPPORTED;
        goto out;
    }
    if ((ka || kb) && !rowmajor) {
        if ((rc = balloc(ctx, (void **)&a64, (size_t)n, (size_t)n, sizeof(double))) ||
            (rc = balloc(ctx, (void **)&b64, (size_t)n, (size_t)nrhs, sizeof(double))) ||
            (rc = d->lacpy_f64(ctx->state, 0, n, n, a, lda, a64, n)) ||
            (rc = d->lacpy_f64(ctx->state, 0, n, nrhs, b, ldb, b64, n)))
            goto out;
        P.a = a64; P.lda = n;
        P.b = b64; P.ldb = n;
    }
    if ((ka || kb) && ((rc = mixi_scale_pow2_f64(ctx, n, n, a64, n, ka)) ||
                       (rc = mixi_scale_pow2_f64(ctx, n, nrhs, b64, n, kb)) ||
                       (rc = d->norm_inf_f64(ctx->state, n, n, P.a, P.lda, &P.anrm))))
        goto out;

    mix_prec prec = p.factor_prec;
    int reason = MIX_REASON_NONE;
    if (prec == MIX_PREC_AUTO) prec = mixi_gesv_auto_choice(ctx, n, nrhs);
    int skipped = 0; /* not started: predicted beyond the cost envelope (solvers/policy.c) */
    if (prec == MIX_FP64) {
        reason = MIX_REASON_DIRECT;
    } else if (!isfinite(P.anrm)) {
        /* Finite entries whose row sums overflow: no stopping test can certify anything. */
        reason = MIX_REASON_OVERFLOW;
    } else if (!mixi_lowprec_may_start(ctx, &p, 0, prec, n, nrhs)) {
        reason = MIX_REASON_TOO_SLOW;
        skipped = 1;
    } else {
        if ((rc = lowprec_solve(&P, &p, prec, ipiv, info, &reason))) goto out;
    }
    info->factor_prec_used = prec;
    if (reason != MIX_REASON_NONE) {
        info->reason = reason;
        info->fell_back = 1;
        switch (reason) {
        case MIX_REASON_DIRECT: info->iter = -1; break;
        case MIX_REASON_OVERFLOW: info->iter = -2; break;
        case MIX_REASON_FACTOR_FAILED: info->iter = -3; break;
        default: info->iter = -(p.max_iter + 1); break;
        }
        if (reason != MIX_REASON_DIRECT && !p.fallback) {
            /* The caller asked for no FP64 fallback: fail, with a untouched. */
            rc = reason == MIX_REASON_OVERFLOW ? MIX_ERR_OVERFLOW
               : reason == MIX_REASON_NAN_IN_REFINEMENT ? MIX_ERR_NAN
               : reason == MIX_REASON_FACTOR_FAILED ? MIX_ERR_SINGULAR
                                                    : MIX_ERR_NOT_CONVERGED;
            goto out;
        }
        info->factor_prec_used = MIX_FP64;
        if ((reason == MIX_REASON_DIRECT || skipped) && !rowmajor && !ka && !kb)
            rc = fp64_direct(&P, a, lda, ipiv, info, &sing);
        else
            rc = fp64_solve(&P, rowmajor, a, lda, ipiv, info, &sing);
        if (rc) goto out;
        /* The factors of 2^ka A went to a: U back to A's units. */
        if (ka && (rc = mixi_scale_upper_pow2_f64(ctx, rowmajor, n, a, lda, -ka))) goto out;
        if (sing) {
            *singular_index = sing;
            rc = MIX_ERR_SINGULAR;
            goto out;
        }
        /* Finite data, yet NaN/Inf out of LAPACK's LU (e.g. reciprocals of subnormal pivots):
         * never a success. */
        if (!isfinite(info->backward_error)) {
            rc = MIX_ERR_NAN;
            goto out;
        }
    }
    mixi_matrix As = {P.a, P.lda, 0, 0};
    if ((ka || kb) &&
        (rc = mixi_range_finish(ctx, n, nrhs, &As, P.anrm, P.b, P.ldb, P.x, P.ldx, ka, kb,
                                p.tol > 0.0 ? p.tol : 0.5 * DBL_EPSILON * sqrt((double)n),
                                &info->backward_error)) &&
        rc != MIX_ERR_NOT_CONVERGED)
        goto out;
    if (rowmajor) {
        int rc2 = d->lacpy_f64(ctx->state, 1, n, nrhs, x64, n, x, ldx);
        if (rc2) rc = rc2;
    }
out:
    o->free(ctx->state, a64);
    o->free(ctx->state, b64);
    o->free(ctx->state, x64);
    return info->status = rc;
}
