/* dense_flow.c: the dense mixed-precision flow, once for LU and Cholesky: input checks, range scaling, precision choice, low-precision attempt and refinement, FP64 fallback. */
#include <float.h>
#include <math.h>
#include "solvers/dense/dense_flow.h"

/* Why refinement did not deliver, or MIX_REASON_NONE. */
static int refine_reason(const mixi_refine_result *rr)
{
    if (rr->nan) return MIX_REASON_NAN_IN_REFINEMENT;
    if (rr->too_slow) return MIX_REASON_TOO_SLOW;
    return rr->converged ? MIX_REASON_NONE : MIX_REASON_NOT_CONVERGED;
}

/* Refinement, begun at t0, on the low-precision factors in L; *reason as refine_reason. */
static int refine(const mixi_dense_problem *P, mixi_lowprec *L, double t0, mix_gesv_info *info,
                  int *reason)
{
    mix_context *ctx = P->ctx;
    const mix_gesv_params *p = P->p;
    mixi_refine_result rr;
    int rc;
    /* Cost-aware stop: the rest of the refinement against an FP64 solve from scratch.  Small
     * systems: FP64 is cheap, and a stop on so little time would be noise. */
    const mixi_refine_job job = {
        .ctx = ctx, .p = p, .n = P->n, .nrhs = P->nrhs, .A = P->A, .b = P->b, .ldb = P->ldb,
        .x = P->x, .ldx = P->ldx, .r = L->res, .M = L->M, .gmres = L->use_gmres ? &L->gm : NULL,
        .cg = L->use_cg ? &L->cg : NULL, .anrm = P->anrm,
        .fp64_flops = P->budgeted ? P->F->fp64_flops(P->n, P->nrhs) : 0.0,
        .fp64_floor = L->t_floor, .t_passes = t0 - P->t0 - L->t_floor,
        .u_factor = ldexp(1.0, -(mixk_prec_mant_bits(L->prec) + 1)),
        .prec = L->prec, .factor_flops = P->F->fp64_flops(P->n, 0)};
    if ((rc = mixi_refine(&job, &rr)) || (rc = ctx->ops->synchronize(ctx->state))) return rc;
    if (P->timed) info->t_refine = mixi_wtime() - t0;
    info->iter = rr.iter;
    info->inner_iter = rr.inner_iter;
    info->backward_error = rr.backward_error;
    info->history_length = rr.history_length;
    *reason = refine_reason(&rr);
    return MIX_SUCCESS;
}

/* Low-precision factorization + refinement.  *reason = MIX_REASON_NONE on success, else why to
 * fall back. */
static int lowprec_solve(const mixi_dense_problem *P, mix_prec prec, int *ipiv,
                         mix_gesv_info *info, int *reason)
{
    mix_context *ctx = P->ctx;
    const mixi_backend_ops *o = ctx->ops;
    const int n = P->n;
    const mix_gesv_params *p = P->p;
    mixi_lowprec L = {.ctx = ctx, .p = p, .prec = prec, .n = n, .nrhs = P->nrhs,
                      .nb = mixi_factor_block_size(ctx, n), .s = 1.0,
                      .t0 = P->timed ? mixi_wtime() : 0.0};
    int rc;
    /* Every workspace once, before any work (the family's in lowprec_factor). */
    L.use_cg = P->F->sym && (p->refine == MIX_REFINE_CG || p->refine == MIX_REFINE_AUTO);
    L.use_gmres = p->refine != MIX_REFINE_CLASSICAL && !L.use_cg;
    *reason = MIX_REASON_NONE;
    if ((rc = mixi_balloc(ctx, (void **)&L.f, (size_t)n, (size_t)n, sizeof(float))) ||
        (rc = mixi_balloc(ctx, (void **)&L.swork, (size_t)n, (size_t)P->nrhs, sizeof(float))) ||
        (rc = mixi_balloc(ctx, (void **)&L.res, (size_t)n, (size_t)P->nrhs, sizeof(double))) ||
        (L.use_gmres && (rc = mixi_gmres_ws_alloc(ctx, n, p->gmres_restart, &L.gm))) ||
        (L.use_cg && (rc = mixi_pcg_ws_alloc(ctx, n, p->gmres_restart, &L.cg))) ||
        (rc = P->F->lowprec_factor(&L, P, reason)))
        goto out;
    const double t_factored = P->timed || P->budgeted ? mixi_wtime() : 0.0;
    info->t_factor = P->timed ? t_factored - L.t0 : 0.0;
    if (*reason == MIX_REASON_NONE && !(rc = refine(P, &L, t_factored, info, reason)) &&
        *reason == MIX_REASON_NONE && P->F->certify)
        rc = P->F->certify(&L, P, reason);
    if (!rc && *reason == MIX_REASON_NONE) rc = P->F->lowprec_finish(&L, P, ipiv);
out:
    o->free(ctx->state, L.f);
    o->free(ctx->state, L.swork);
    o->free(ctx->state, L.res);
    o->free(ctx->state, L.ipiv);
    o->free(ctx->state, L.gwork);
    o->free(ctx->state, L.pwork);
    o->free(ctx->state, L.r);
    o->free(ctx->state, L.c);
    mixi_gmres_ws_free(ctx, &L.gm);
    mixi_pcg_ws_free(ctx, &L.cg);
    mixi_free(L.host);
    return rc;
}

/* Where the FP64 factorization may run in place: the matrix solved with, where nothing reads it
 * afterwards, as LAPACK's dgesv/dposv and dsgesv's fallback do.  FP64 chosen directly: where
 * that matrix is where the factors belong.  After a failed attempt: unless the range re-check
 * still needs it (issue 32: the fallback reuses the attempt's copy of A instead of copying A
 * again and copying the factors back, two passes over n^2 doubles).  NULL: on a copy. */
static const double *factor_site(const mixi_dense_problem *P, int direct)
{
    if (direct) return P->A.a == P->home ? P->home : NULL;
    return P->A.a != P->As.a ? P->A.a : NULL;
}

/* Below this order the FP64 solve chosen directly in place is not timed (t_factor, t_refine 0):
 * its three clock reads cost 3% of a 3 us solve at n = 20 (issue 32's small-n target: AUTO
 * 0.95x -> 0.98x of LAPACKE_dgesv in one process, static link, one thread), nothing there reads
 * the times, and at n = 64 the solve is ~20 us. */
#define FP64_TIMED_MIN_N 64

/* FP64 factorization and solve.  In place where factor_site says so: no copy of A, no backward
 * error (0: not measured; iter < 0 says that FP64 answered, whose backward error LAPACK's
 * dgesv does not measure either).  Otherwise on a copy, so the backward error can still be
 * measured against A.  The factors then go where they belong.  *sing = LAPACK's INFO > 0. */
static int fp64_solve(const mixi_dense_problem *P, int direct, int *ipiv, mix_gesv_info *info,
                      int *sing)
{
    mix_context *ctx = P->ctx;
    const mixi_backend_ops *o = ctx->ops;
    const int n = P->n, nrhs = P->nrhs;
    const double *site = factor_site(P, direct);
    const int inplace = site != NULL, host = o->flags & MIXI_BACKEND_HOST_MEMORY;
    double *res = NULL, *xn = NULL;
    /* The factors' matrix: the site itself, or an n x n copy of A. */
    mixi_matrix F = {site, inplace ? P->A.lda : n, P->A.sym, P->A.uplo, NULL};
    int *dipiv = host ? ipiv : NULL, rc, finfo = 0;
    void *work = NULL;
    size_t wbytes = 0, bad = 0;
    const int timed = P->timed && !(direct && inplace && n < FP64_TIMED_MIN_N);
    double t0 = timed ? mixi_wtime() : 0.0;
    *sing = 0;
    if ((rc = mixi_matrix_factor_worksize(ctx, n, &F, &wbytes)) ||
        (!inplace && (rc = mixi_balloc(ctx, (void **)&F.a, (size_t)n, (size_t)n, 8))) ||
        (ipiv && !host && (rc = mixi_balloc(ctx, (void **)&dipiv, (size_t)n, 1, sizeof(int)))) ||
        (!inplace && (rc = mixi_balloc(ctx, (void **)&res, (size_t)n, (size_t)nrhs, 8))) ||
        (wbytes && (rc = mixi_balloc(ctx, &work, wbytes, 1, 1))) ||
        (!inplace && !(xn = mixi_malloc_n((size_t)nrhs * 3, sizeof(double))) &&
         (rc = MIX_ERR_ALLOC)) ||
        (!inplace && (rc = mixi_matrix_copy(ctx, n, &P->A, 0, (double *)F.a, n))) ||
        (rc = mixi_matrix_factor(ctx, n, &F, (double *)F.a, dipiv, work, &finfo)) ||
        (rc = o->synchronize(ctx->state)))
        goto out;
    const double t_factored = timed ? mixi_wtime() : 0.0;
    info->t_factor += t_factored - t0;
    t0 = t_factored;
    if (finfo > 0) *sing = finfo;
    else if ((rc = o->dense->lacpy_f64(ctx->state, 0, n, nrhs, P->b, P->ldb, P->x, P->ldx)) ||
             (rc = mixi_matrix_factor_solve(ctx, n, &F, dipiv, nrhs, P->x, P->ldx)) ||
             (inplace && P->F->fp64_nan_fails &&
              (rc = o->dense->count_nonfinite_f64(ctx->state, n, nrhs, P->x, P->ldx, &bad))) ||
             (!inplace && (rc = mixi_backward_error(ctx, n, nrhs, &P->A, P->anrm, P->b, P->ldb,
                                                    P->x, P->ldx, res, xn,
                                                    &info->backward_error))))
        goto out;
    /* In place: not measured (0), unless no X came out (a zero pivot): NaN, as on a copy. */
    if (inplace) info->backward_error = bad || *sing ? NAN : 0.0;
    if ((F.a != P->home && (rc = mixi_matrix_copy(ctx, n, &F, P->trans, P->home, P->ldhome))) ||
        (ipiv && !host && (rc = o->download(ctx->state, ipiv, dipiv, (size_t)n * sizeof(int)))) ||
        (rc = o->synchronize(ctx->state)))
        goto out;
    if (timed) info->t_refine += mixi_wtime() - t0;
out:
    if (!inplace) o->free(ctx->state, (double *)F.a);
    if (!host) o->free(ctx->state, dipiv);
    o->free(ctx->state, res);
    o->free(ctx->state, work);
    mixi_free(xn);
    return rc;
}

/* The status a failed low-precision attempt gives when the caller asked for no FP64 fallback. */
static int no_fallback_status(const mixi_dense_problem *P, int reason)
{
    switch (reason) {
    case MIX_REASON_OVERFLOW: return MIX_ERR_OVERFLOW;
    case MIX_REASON_NAN_IN_REFINEMENT: return MIX_ERR_NAN;
    case MIX_REASON_FACTOR_FAILED: return P->F->err_factor;
    default: return MIX_ERR_NOT_CONVERGED;
    }
}

static int fallback_iter(int reason, int max_iter)
{
    switch (reason) {
    case MIX_REASON_DIRECT: return -1;
    case MIX_REASON_OVERFLOW: return -2;
    case MIX_REASON_FACTOR_FAILED: return -3;
    default: return -(max_iter + 1);
    }
}

/* FP64 after a failed attempt, or chosen directly (predicted: an attempt predicted not to keep
 * the bound, iter -1 as LAPACK's dsgesv for "machine-specific reasons"): the factors to the
 * caller's a, in its units. */
static int fallback(const mixi_dense_problem *P, int reason, int predicted, double *a, int lda,
                    int *ipiv, mix_gesv_info *info, int *idx)
{
    int rc, sing = 0;
    const int direct = reason == MIX_REASON_DIRECT || predicted;
    info->reason = reason;
    info->iter = predicted ? -1 : fallback_iter(reason, P->p->max_iter);
    /* Without a fallback a stays untouched and X is the attempt's: fell_back says FP64 made X. */
    if (reason != MIX_REASON_DIRECT && !P->p->fallback)
        return no_fallback_status(P, reason);
    info->fell_back = 1;
    info->factor_prec_used = MIX_FP64;
    if ((rc = fp64_solve(P, direct, ipiv, info, &sing))) return rc;
    /* The factors of 2^ka A: back to A's units, then (a second copy) to the caller's a. */
    const mixi_matrix H = {P->home, P->ldhome, P->F->sym, P->A.uplo, NULL};
    if ((P->ka && (rc = mixi_matrix_factor_scale_pow2(P->ctx, P->n, &H, P->home, P->trans,
                                                      -P->ka))) ||
        (P->eq_r && (rc = mixi_unequilibrate_factors(P->ctx, P->n, &H, P->home, P->trans, ipiv,
                                                     P->eq_r, P->eq_c))) ||
        (P->home != a && (rc = mixi_matrix_copy(P->ctx, P->n, &H, 0, a, lda))))
        return rc;
    if (sing) {
        *idx = sing;
        return P->F->err_factor;
    }
    /* Finite data, yet NaN/Inf out of LAPACK's factors: never a success. */
    if (P->F->fp64_nan_fails && !isfinite(info->backward_error)) return MIX_ERR_NAN;
    return MIX_SUCCESS;
}

/* Column-major working copies for a row-major call: B and X transposed; a general A transposed
 * too (a symmetric one is used in place: row-major storage of one triangle is column-major
 * storage of the other). */
static int layout_copies(mixi_dense_problem *P, const mixi_dense_call *c)
{
    mix_context *ctx = P->ctx;
    const mixi_dense_ops *d = ctx->ops->dense;
    const int n = P->n, nrhs = P->nrhs;
    int rc;
    if (!P->rowmajor) return MIX_SUCCESS;
    if ((!P->F->sym &&
         (rc = mixi_balloc(ctx, (void **)&P->a_w, (size_t)n, (size_t)n, sizeof(double)))) ||
        (rc = mixi_balloc(ctx, (void **)&P->b_w, (size_t)n, (size_t)nrhs, sizeof(double))) ||
        (rc = mixi_balloc(ctx, (void **)&P->x_w, (size_t)n, (size_t)nrhs, sizeof(double))) ||
        (P->a_w && (rc = d->lacpy_f64(ctx->state, 1, n, n, c->a, c->lda, P->a_w, n))) ||
        (rc = d->lacpy_f64(ctx->state, 1, nrhs, n, c->b, c->ldb, P->b_w, n)))
        return rc;
    if (P->a_w) P->A = (mixi_matrix){P->a_w, n, 0, 0, NULL};
    P->b = P->b_w;
    P->ldb = n;
    P->x = P->x_w;
    P->ldx = n;
    return MIX_SUCCESS;
}

/* ||A||inf, and MIX_ERR_NAN when A or B hold NaN/Inf (A scanned only when its norm is not
 * finite: one pass over A saved in the common case). */
static int check_input(mixi_dense_problem *P)
{
    size_t bad_a = 0, bad_b = 0;
    int rc;
    if ((rc = mixi_matrix_norm_inf(P->ctx, P->n, &P->A, &P->anrm)) ||
        (!isfinite(P->anrm) && (rc = mixi_matrix_count_nonfinite(P->ctx, P->n, &P->A, &bad_a))) ||
        (rc = P->ctx->ops->dense->count_nonfinite_f64(P->ctx->state, P->n, P->nrhs, P->b, P->ldb,
                                                      &bad_b)))
        return rc;
    return bad_a || bad_b ? MIX_ERR_NAN : MIX_SUCCESS;
}

/* Near the edges of the FP64 range (subnormal or huge entries): the exactly scaled system
 * (2^ka A) y = 2^kb B on copies (solvers/dense/dense_range.c), x = 2^(ka - kb) y. */
static int range_prepare(mixi_dense_problem *P)
{
    mix_context *ctx = P->ctx;
    const int n = P->n, nrhs = P->nrhs;
    int rc;
    if ((rc = mixi_range_exponents(ctx, n, nrhs, &P->A, P->anrm, P->b, P->ldb, &P->ka, &P->kb)))
        return rc;
    if (!P->ka && !P->kb) return MIX_SUCCESS;
    /* The factors would be written before the x of the scaled system is re-checked, which may
     * still fail: the caller (the drop-in) hands such a system to LAPACK instead. */
    if (P->f_out) return MIX_ERR_UNSUPPORTED;
    if (!P->a_w && ((rc = mixi_balloc(ctx, (void **)&P->a_w, (size_t)n, (size_t)n, 8)) ||
                    (rc = mixi_matrix_copy(ctx, n, &P->A, 0, P->a_w, n))))
        return rc;
    if (!P->b_w && ((rc = mixi_balloc(ctx, (void **)&P->b_w, (size_t)n, (size_t)nrhs, 8)) ||
                    (rc = ctx->ops->dense->lacpy_f64(ctx->state, 0, n, nrhs, P->b, P->ldb,
                                                     P->b_w, n))))
        return rc;
    P->A.a = P->a_w;
    P->A.lda = n;
    P->b = P->b_w;
    P->ldb = n;
    if ((P->ka && (rc = mixi_range_equilibrate(ctx, n, nrhs, &P->A, P->a_w, P->b_w, &P->ka,
                                               &P->kb, &P->eq_r, &P->eq_c))) ||
        (rc = mixi_matrix_scale_pow2(ctx, n, &P->A, P->a_w, P->ka)) ||
        (P->kb && (rc = mixi_scale_cols_pow2_f64(ctx, n, nrhs, P->b_w, n, P->kb, 1))) ||
        (rc = mixi_matrix_norm_inf(ctx, n, &P->A, &P->anrm)))
        return rc;
    P->As = P->A;
    if (!P->F->range_second_copy) return MIX_SUCCESS;
    if ((rc = mixi_balloc(ctx, (void **)&P->a_f, (size_t)n, (size_t)n, sizeof(double))) ||
        (rc = mixi_matrix_copy(ctx, n, &P->A, 0, P->a_f, n)))
        return rc;
    P->A.a = P->home = P->a_f; /* the FP64 path factors it in place */
    P->ldhome = n;
    return MIX_SUCCESS;
}

/* The flow after the working copies: checks, range, attempt, fallback, range finish. */
static int solve(mixi_dense_problem *P, const mixi_dense_call *c, mix_gesv_info *info, int *idx)
{
    int rc, reason = MIX_REASON_NONE, predicted = 0;
    if ((rc = check_input(P)) || (rc = range_prepare(P))) return rc;
    mix_prec prec = P->p->factor_prec;
    if (prec == MIX_PREC_AUTO) info->factor_prec_used = prec = P->F->auto_choice(P->ctx, P->n, P->nrhs, 1);
    /* NaN until a solve writes X and measures it: an attempt that fails before its first solve
     * without a fallback leaves X unwritten, which 0 would call exact. */
    info->backward_error = NAN;
    if (prec == MIX_FP64) reason = MIX_REASON_DIRECT;
    /* Finite entries whose row sums overflow: no stopping test can certify anything.  Entries
     * spanning more than one power of two can hold (equilibrated): the solution may span as
     * much, beyond a low precision's range, and a normwise test cannot see its small entries. */
    else if (!isfinite(P->anrm) || P->eq_r) reason = MIX_REASON_OVERFLOW;
    /* A precision asked for whose refinement alone would outweigh the FP64 solve (many
     * right-hand sides): the worst-case bound takes the cheaper path (issue 33 item 6); without
     * fallback, MIX_ERR_NOT_CONVERGED before any work (the drop-in's dposv_ then forwards). */
    else if (P->p->cost_fallback &&
             mixi_refine_outweighs(P->n, P->nrhs, P->F->fp64_flops(P->n, P->nrhs)))
        reason = MIX_REASON_TOO_SLOW, predicted = 1;
    else if ((rc = lowprec_solve(P, prec, c->ipiv, info, &reason))) return rc;
    info->factor_prec_used = prec;
    if (reason != MIX_REASON_NONE &&
        (rc = fallback(P, reason, predicted, c->a, c->lda, c->ipiv, info, idx)))
        return rc;
    /* The range re-check's MIX_ERR_NOT_CONVERGED (digits lost to underflow) still returns x. */
    if ((P->ka || P->kb || P->eq_c) &&
        (rc = mixi_range_finish(P->ctx, P->n, P->nrhs, &P->As, P->anrm, P->b, P->ldb, P->x,
                                P->ldx, P->ka, P->kb, P->eq_c,
                                mixi_stop_tol(P->p, P->n),
                                &info->backward_error)) &&
        rc != MIX_ERR_NOT_CONVERGED)
        return rc;
    if (P->rowmajor) { /* x in the caller's layout */
        int rc2 = P->ctx->ops->dense->lacpy_f64(P->ctx->state, 1, P->n, P->nrhs, P->x_w, P->n,
                                                c->x, c->ldx);
        if (rc2) rc = rc2;
    }
    return rc;
}

/* The order from which the refinement's time budgets hold.  AUTO's own attempts: from the order
 * where it may take a low precision.  A precision asked for that the backend runs natively (FP32
 * on a CPU): from that order too where it is below MIXI_COST_FALLBACK_MIN_N (LU's 256), so that
 * mix_dsgesv on a matrix refinement cannot solve gives up as AUTO does (randsvd kappa 1e15 at
 * n = 300: 90 GMRES-IR steps, 5x dgesv's time, unbudgeted; 1.7x budgeted).  An emulated one
 * (BF16, TF32 on a CPU) from MIXI_COST_FALLBACK_MIN_N: its factorization alone outruns the
 * FP64 solve's bound below it.  So does a call without fallback (the drop-in's dposv_, which
 * hands failures to LAPACK): there a spent budget is an error, not a bounded FP64 answer, and
 * a few milliseconds' budget would make it one under any passing load. */
static int budget_order(mix_context *ctx, const mix_gesv_params *p, int spd, int n)
{
    if (p->factor_prec == MIX_PREC_AUTO) return spd ? MIXI_POSV_AUTO_MIN_N : MIXI_GESV_AUTO_MIN_N;
    /* Only LU's AUTO order lies below MIXI_COST_FALLBACK_MIN_N: elsewhere no capability decides. */
    if (spd || !p->fallback || n < MIXI_GESV_AUTO_MIN_N || n >= MIXI_COST_FALLBACK_MIN_N)
        return MIXI_COST_FALLBACK_MIN_N;
    mix_caps caps = {0};
    const int native = (int)p->factor_prec >= 0 && (int)p->factor_prec < MIX_CAPS_PREC_SLOTS &&
                       !ctx->ops->caps(&caps) && caps.gemm[p->factor_prec] == MIX_PREC_NATIVE;
    return native ? MIXI_GESV_AUTO_MIN_N : MIXI_COST_FALLBACK_MIN_N;
}

int mixi_dense_run(mix_context *ctx, const mix_gesv_params *p, const mixi_dense_call *c,
                   mix_gesv_info *info, int *idx)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    const mixi_factorization *F = c->spd ? &mixi_chol_factorization : &mixi_lu_factorization;
    const mix_gesv_info zero = {0};
    *info = zero;
    *idx = 0;
    /* Never AUTO: a solve that stops before AUTO's choice (NaN in A or B, nothing to solve)
     * reports FP64, the precision its checks ran in. */
    info->factor_prec_used = p->factor_prec == MIX_PREC_AUTO ? MIX_FP64 : p->factor_prec;
    if (c->n == 0 || c->nrhs == 0) return MIX_SUCCESS; /* nothing to solve, nothing written */
    if (!d || !F->supported(d)) return info->status = MIX_ERR_UNSUPPORTED;
    const int small = mixi_dense_small(ctx, p, c, F, info, idx);
    if (small != MIXI_DENSE_NOT_SMALL) return info->status = small;
    const int rowmajor = c->layout == MIX_ROW_MAJOR;
    const int lower = (c->uplo == 'L' || c->uplo == 'l') != rowmajor;
    const int budget_min_n = budget_order(ctx, p, c->spd, c->n);
    mixi_dense_problem P = {
        .ctx = ctx, .F = F, .p = p, .n = c->n, .nrhs = c->nrhs, .rowmajor = rowmajor,
        .A = {c->a, c->lda, F->sym, F->sym ? (lower ? MIXK_LOWER : MIXK_UPPER) : 0},
        .b = c->b, .ldb = c->ldb, .x = c->x, .ldx = c->ldx, .f_out = rowmajor ? NULL : c->f_out,
        .ld_f_out = c->lda, .home = c->a, .ldhome = c->lda, .trans = rowmajor && !F->sym,
        /* The clock is read only where the refinement's budgets will weigh it (refine's
         * t_passes) or the caller reads the timings: at n = 20 a read is 26 ns of a few us. */
        .budgeted = p->cost_fallback && c->n >= budget_min_n, .timed = !c->untimed};
    P.t0 = P.budgeted ? mixi_wtime() : 0.0;
    int rc = layout_copies(&P, c);
    if (!rc) rc = solve(&P, c, info, idx);
    ctx->ops->free(ctx->state, P.a_w);
    ctx->ops->free(ctx->state, P.b_w);
    ctx->ops->free(ctx->state, P.x_w);
    ctx->ops->free(ctx->state, P.a_f);
    mixi_free(P.kb);
    mixi_free(P.eq_r);
    mixi_free(P.eq_c);
    return info->status = rc;
}
