/* sparse_lu.c: mix_dgesv_sparse's flow: analysis once, FP32 factors refined in FP64 (classical or GMRES-IR), FP64 fallback reusing the analysis. */
#include <math.h>
#include "solvers/sparse_lu/sparse_lu_internal.h"

/* FP64 factors are refined too (classical, at most this many corrections): the library's
 * threshold pivoting (MUMPS: 0.01) may leave a backward error above LAPACK's test, which one or
 * two corrections remove. */
#define FP64_REFINE_ITER 5
/* Cost-aware stop of the FP32 refinement: it may take this multiple of the FP32 factorization's
 * time (an FP64 factorization, analysis reused, costs 1.3x-2x the FP32 one on 3-D problems) and
 * never less than BUDGET_MIN_S (below, timings are noise). */
#define BUDGET_FACTOR 2.0
#define BUDGET_MIN_S 0.05

static int rhs_finite(int n, int nrhs, const double *b, int ldb)
{
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++)
            if (!isfinite(b[(size_t)j * ldb + i])) return 0;
    return 1;
}

static int refine_reason(const mixi_refine_result *res)
{
    if (res->nan) return MIX_REASON_NAN_IN_REFINEMENT;
    if (res->too_slow) return MIX_REASON_TOO_SLOW;
    return MIX_REASON_NOT_CONVERGED;
}

/* The FP32 attempt; *reason MIX_REASON_NONE when every column converged, else why not. */
static int attempt_fp32(mixi_splu_problem *P, mix_gesv_info *info, int *reason)
{
    const mix_gesv_params *p = P->p;
    mixi_splu_outcome outcome;
    double t0 = mixi_wtime();
    int rc = P->ops->factor(P->ctx->state, P->F, MIX_FP32, &outcome);
    double t_factor = mixi_wtime() - t0;
    info->t_factor += t_factor;
    if (rc) return rc;
    if (outcome != MIXI_SPLU_OK) {
        *reason = outcome == MIXI_SPLU_OVERFLOW ? MIX_REASON_OVERFLOW : MIX_REASON_FACTOR_FAILED;
        return MIX_SUCCESS;
    }
    double budget = p->cost_fallback ? fmax(BUDGET_FACTOR * t_factor, BUDGET_MIN_S) : 0.0;
    mixi_refine_result res;
    t0 = mixi_wtime();
    rc = mixi_splu_refine(P, MIX_FP32, p->refine, p->max_iter, budget, &res);
    info->t_refine += mixi_wtime() - t0;
    if (rc) return rc;
    info->iter = res.iter;
    info->inner_iter = res.inner_iter;
    info->backward_error = res.backward_error;
    info->history_length = res.history_length;
    *reason = res.converged ? MIX_REASON_NONE : refine_reason(&res);
    return MIX_SUCCESS;
}

/* FP64 factors (the analysis reused) and their solve, refined: MIX_ERR_SINGULAR when A is
 * numerically singular in FP64 (a zero pivot, or a solution that is not finite). */
static int fp64_solve(mixi_splu_problem *P, mix_gesv_info *info)
{
    mixi_splu_outcome outcome;
    double t0 = mixi_wtime();
    int rc = P->ops->factor(P->ctx->state, P->F, MIX_FP64, &outcome);
    info->t_factor += mixi_wtime() - t0;
    if (rc) return rc;
    if (outcome != MIXI_SPLU_OK) return MIX_ERR_SINGULAR;
    mixi_refine_result res;
    t0 = mixi_wtime();
    rc = mixi_splu_refine(P, MIX_FP64, MIX_REFINE_CLASSICAL, FP64_REFINE_ITER, 0.0, &res);
    info->t_refine += mixi_wtime() - t0;
    if (rc) return rc;
    info->backward_error = res.backward_error;
    return res.nan ? MIX_ERR_SINGULAR : MIX_SUCCESS;
}

static int no_fallback_status(int reason)
{
    if (reason == MIX_REASON_OVERFLOW) return MIX_ERR_OVERFLOW;
    if (reason == MIX_REASON_NAN_IN_REFINEMENT) return MIX_ERR_NAN;
    if (reason == MIX_REASON_FACTOR_FAILED) return MIX_ERR_SINGULAR;
    return MIX_ERR_NOT_CONVERGED;
}

static int fallback_iter(int reason, int max_iter)
{
    if (reason == MIX_REASON_DIRECT) return -1;
    if (reason == MIX_REASON_OVERFLOW) return -2;
    if (reason == MIX_REASON_FACTOR_FAILED) return -3;
    return -(max_iter + 1);
}

/* MIX_PREC_AUTO's precision from the analysis's prediction, made for FP64 with an ordering
 * chosen for FP32 factors (the estimate's MIX_PREC_AUTO): FP32 factors are taken only where
 * they save much more than the symbolic step their instance repeats with FP64's ordering, and
 * an FP64 choice (small or cheap problems) pays one analysis. */
static int auto_choice(mixi_splu_problem *P, mix_prec *prec)
{
    mixi_splu_estimate e;
    int rc = P->ops->estimate(P->ctx->state, P->F, MIX_PREC_AUTO, &e);
    if (!rc) *prec = mixi_sparse_lu_auto_choice(P->ctx, &e, P->nrhs);
    return rc;
}

/* Precision choice, FP32 attempt, FP64 when chosen or as the fallback; F analysed. */
static int solve_analysed(mixi_splu_problem *P, mix_prec prec, mix_gesv_info *info)
{
    int reason = MIX_REASON_DIRECT, rc;
    if (prec == MIX_FP32) {
        if ((rc = attempt_fp32(P, info, &reason))) return rc;
        info->factor_prec_used = MIX_FP32;
        if (reason == MIX_REASON_NONE) return MIX_SUCCESS;
    }
    info->reason = reason;
    info->iter = fallback_iter(reason, P->p->max_iter);
    /* Without a fallback the FP32 attempt's answer stands: fell_back says FP64 produced X. */
    if (reason != MIX_REASON_DIRECT && !P->p->fallback) return no_fallback_status(reason);
    info->fell_back = 1;
    info->factor_prec_used = MIX_FP64;
    return fp64_solve(P, info);
}

int mixi_sparse_lu_run(mix_context *ctx, const mix_gesv_params *p, mix_sparse *A, int nrhs,
                       const double *b, int ldb, double *x, int ldx, mix_gesv_info *info)
{
    *info = (mix_gesv_info){0};
    /* Never AUTO: until its choice, what ran is the analysis made for FP64 (mix_dgesv_sparse(3)). */
    info->factor_prec_used = p->factor_prec == MIX_PREC_AUTO ? MIX_FP64 : p->factor_prec;
    const mixi_sparse_lu_ops *ops = ctx->ops->sparse_lu;
    if (!ops || A->dist) return info->status = MIX_ERR_UNSUPPORTED;
    if (!rhs_finite(A->n, nrhs, b, ldb)) return info->status = MIX_ERR_NAN;
    info->backward_error = NAN; /* until a solve writes X and measures it */
    mixi_splu_problem P = {.ctx = ctx, .p = p, .ops = ops, .n = A->n, .nrhs = nrhs,
                           .b = b, .ldb = ldb, .x = x, .ldx = ldx};
    int srank = 0;
    double t0 = mixi_wtime();
    int rc = ops->analyze(ctx->state, A->a64, &P.F, &srank, &P.anrm, &P.exponent);
    if (!rc && srank < A->n) rc = MIX_ERR_SINGULAR;
    mix_prec prec = p->factor_prec;
    if (!rc && prec == MIX_PREC_AUTO && !(rc = auto_choice(&P, &prec))) info->factor_prec_used = prec;
    info->t_factor = mixi_wtime() - t0;
    mixi_splu_range R = {0};
    if (!rc) rc = mixi_splu_range_begin(&P, &R);
    if (!rc) rc = solve_analysed(&P, prec, info);
    if (!rc || rc == MIX_ERR_NOT_CONVERGED) { /* x written: in the caller's units either way */
        int range = mixi_splu_range_finish(&P, &R, info);
        if (!rc) rc = range;
    }
    mixi_splu_range_free(ctx, &R);
    ops->destroy(ctx->state, P.F);
    return info->status = rc;
}

int mixi_sparse_lu_memory(mix_context *ctx, mix_sparse *A, mix_prec prec, int64_t *factors,
                          int64_t *peak)
{
    const mixi_sparse_lu_ops *ops = ctx->ops->sparse_lu;
    *factors = *peak = 0;
    if (!ops || A->dist) return MIX_ERR_UNSUPPORTED;
    mixi_splu *F = NULL;
    mixi_splu_outcome outcome = MIXI_SPLU_OK;
    int srank = 0;
    double anrm;
    int exponent;
    int rc = ops->analyze(ctx->state, A->a64, &F, &srank, &anrm, &exponent);
    if (!rc && srank < A->n) rc = MIX_ERR_SINGULAR;
    if (!rc) rc = ops->factor(ctx->state, F, prec, &outcome);
    if (!rc && outcome == MIXI_SPLU_OVERFLOW) rc = MIX_ERR_OVERFLOW;
    else if (!rc && outcome != MIXI_SPLU_OK) rc = MIX_ERR_SINGULAR;
    if (!rc) rc = ops->factor_bytes(ctx->state, F, prec, factors, peak);
    ops->destroy(ctx->state, F);
    return rc;
}
