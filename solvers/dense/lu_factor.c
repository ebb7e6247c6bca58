/* lu_factor.c: LU as a factorization of the dense flow: low-precision LU of the equilibrated A, its pivots and widened factors, LAPACK's dgetrf/dgetrs in FP64. */
#include "solvers/dense/dense_flow.h"
#include "solvers/dense/lu_profile.h"

static int lu_supported(const mixi_dense_ops *d) { return d->getrs_f32_f64 && d->getrf_f64; }

static double lu_flops(int n, int nrhs)
{
    return 2.0 / 3.0 * (double)n * n * n + 2.0 * (double)n * n * nrhs;
}

/* Two-sided equilibration (FP16 only), conversion, then the LU: the backend's own FP32 LU when
 * FP32 is asked for (the same algorithm, better tuned) where it pays (mixi_whole_f32), else the
 * blocked one of blocked_lowprec.c. */
static int lu_lowprec_factor(mixi_lowprec *L, const mixi_dense_problem *P, int *reason)
{
    mix_context *ctx = L->ctx;
    const mixi_dense_ops *d = ctx->ops->dense;
    const int n = L->n, nb = L->nb, prec = L->prec;
    const int whole = prec == MIX_FP32 && d->getrf_f32 && mixi_whole_f32(ctx, n);
    const int scale = L->p->scale && mixk_prec_range_scaling(prec);
    size_t pbytes = 0, overflow = 0;
    int rc, failed = 0;
    if ((rc = d->getrf_panel_f32_worksize(ctx->state, n, whole ? n : nb, &pbytes)) ||
        (rc = mixi_balloc(ctx, (void **)&L->ipiv, (size_t)n, 1, sizeof(int))) ||
        (prec != MIX_FP32 &&
         (rc = mixi_balloc(ctx, &L->gwork, mixi_lu_gemm_work_floats(n, nb), 1, sizeof(float)))) ||
        (pbytes && (rc = mixi_balloc(ctx, &L->pwork, pbytes, 1, 1))) ||
        (scale && (rc = mixi_balloc(ctx, (void **)&L->r, (size_t)n, 1, sizeof(double)))) ||
        (scale && (rc = mixi_balloc(ctx, (void **)&L->c, (size_t)n, 1, sizeof(double)))) ||
        (scale && !(L->host = mixi_malloc_n((size_t)n, sizeof(double))) && (rc = MIX_ERR_ALLOC)))
        return rc;
    double t0;
    if ((rc = mixi_lu_profile_begin(ctx, &t0)) ||
        (scale && (rc = mixi_scale_compute(ctx, prec, n, P->A.a, P->A.lda, L->r, L->c, &L->s,
                                           L->host))) ||
        (rc = d->convert_f64_to_f32(ctx->state, prec, n, n, P->A.a, P->A.lda, L->r, L->c, L->s,
                                    L->f, n, &overflow)) ||
        (rc = mixi_lu_profile_end(ctx, MIXI_LU_PH_CONVERT, t0, rc)))
        return rc;
    if (overflow) {
        *reason = MIX_REASON_OVERFLOW;
        return MIX_SUCCESS;
    }
    const double t_factor = P->budgeted ? mixi_wtime() : 0.0;
    if (whole) { /* one "panel" in the profile */
        int finfo = 0;
        if (!(rc = mixi_lu_profile_begin(ctx, &t0)))
            rc = mixi_lu_profile_end(ctx, MIXI_LU_PH_PANEL, t0,
                                     d->getrf_f32(ctx->state, n, L->f, n, L->ipiv, L->pwork, &finfo));
        failed = finfo != 0;
    } else {
        rc = mixi_lu_lowprec(ctx, prec, n, L->f, n, L->ipiv, nb, L->gwork, L->pwork, &failed);
    }
    if (rc || (rc = ctx->ops->synchronize(ctx->state))) return rc;
    if (P->budgeted) L->t_floor = mixi_wtime() - t_factor;
    if (failed) *reason = MIX_REASON_FACTOR_FAILED;
    mixi_lu_precond_init(&L->precond, ctx, n, L->f, n, L->ipiv, L->r, L->c, L->s, L->swork);
    L->M = &L->precond.base;
    return MIX_SUCCESS;
}

static int lu_lowprec_finish(mixi_lowprec *L, const mixi_dense_problem *P, int *ipiv)
{
    mix_context *ctx = L->ctx;
    int rc = ctx->ops->download(ctx->state, ipiv, L->ipiv, (size_t)L->n * sizeof(int));
    if (!rc && P->f_out)
        rc = mixi_lu_widen(ctx, L->n, L->f, L->n, ipiv, L->r, L->c, L->s, P->f_out, P->ld_f_out);
    return rc;
}

const mixi_factorization mixi_lu_factorization = {
    .sym = 0, .err_factor = MIX_ERR_SINGULAR, .fp64_nan_fails = 1, .range_second_copy = 0,
    .supported = lu_supported, .auto_choice = mixi_gesv_auto_choice, .fp64_flops = lu_flops,
    .lowprec_factor = lu_lowprec_factor, .lowprec_finish = lu_lowprec_finish};
