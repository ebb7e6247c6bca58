/* cg.c: reliable-update mixed-precision CG (QUDA's method), written once over ctx->ops->sparse. */
#include <math.h>
#include <string.h>
#include "solvers/cg.h"

/* QUDA's maxResIncrease / maxResIncreaseTotal: give up after this many rises of the true
 * residual in a row / in total. */
#define CG_MAX_RES_INCREASE 1
#define CG_MAX_RES_INCREASE_TOTAL 10
/* A stage that can hand over to a wider storage does so after this many reliable updates in a
 * row at which the true residual fell by less than CG_WEAK_DROP while the iterated one claimed a
 * drop by delta: the storage's rounding of A then sets the pace (kappa u near 1), and the stage
 * would crawl on (3D Poisson 32^3, Jacobi, BF16: 2155 iterations against FP64's 93). */
#define CG_MAX_WEAK_UPDATES 3
#define CG_WEAK_DROP 0.5

typedef struct {
    mix_context *ctx;
    mix_svec r, p, ap, xs; /* sloppy residual, direction, A p, partial solution (FP32 when the
                            * sloppy precision is 16-bit: kernels/backend_sparse.h, cg_update) */
} cg_work;

static int svec_alloc(mix_context *ctx, mix_prec prec, int n, mix_svec *v)
{
    size_t vb, nb;
    int st = mixi_svec_bytes(prec, n, &vb, &nb);
    if (st) return st;
    v->prec = prec;
    v->n = n;
    st = ctx->ops->alloc(ctx->state, &v->val, vb);
    if (!st && nb) st = ctx->ops->alloc(ctx->state, (void **)&v->norm, nb);
    return st;
}

static void svec_free(mix_context *ctx, mix_svec *v)
{
    ctx->ops->free(ctx->state, v->val);
    ctx->ops->free(ctx->state, v->norm);
    v->val = NULL;
    v->norm = NULL;
}

static int svec_copy(mix_context *ctx, mix_svec *dst, const mix_svec *src)
{
    size_t vb, nb;
    int st = mixi_svec_bytes(src->prec, src->n, &vb, &nb);
    if (!st) st = ctx->ops->copy(ctx->state, dst->val, src->val, vb);
    if (!st && nb) st = ctx->ops->copy(ctx->state, dst->norm, src->norm, nb);
    return st;
}

/* The power of two that brings the RMS of a vector with squared norm vv near 2^-6: FP16 vectors
 * are renormalised at each reliable update so that r neither underflows nor leaves p and A p
 * too little room below FP16's 65504. */
static double normaliser(double vv, int n)
{
    double rms = sqrt(vv / n);
    if (!(rms > 0.0) || !isfinite(rms)) return 1.0;
    int e;
    frexp(rms, &e);
    return ldexp(1.0, 1 - e - 6);
}

/* The sloppy residual's scale sigma for a vector whose squared norm is vv at the current sigma.
 * FP16: always renormalised (above).  FP32, BF16, FIXED16: only when its RMS leaves
 * [2^-32, 2^32], where r, p or A p would soon underflow or overflow FP32's exponent range (a
 * system near the edges of the FP64 range, or one whose residual has fallen a long way);
 * scaling by a power of two is exact, so the iterates are otherwise unchanged.  FP64: never. */
static double range_sigma(mix_prec prec, double vv, double sigma, int n)
{
    if (prec == MIX_FP64) return sigma;
    double rms = sqrt(vv / n);
    if (prec != MIX_FP16 && rms >= 0x1p-32 && rms <= 0x1p32) return sigma;
    double f = normaliser(vv, n);
    return f == 1.0 ? sigma : sigma * f;
}

/* FP16: ||r||^2 of the stored sloppy r, not of the FP64 values it was rounded from.  An FP16 r
 * of wide dynamic range loses its small entries to underflow, and with the FP64 norm alpha =
 * rr / p'Ap then overshoots and the sloppy loop stalls (diagonal matrix with an FP32 partial
 * solution: 2796 iterations instead of 4; bcsstk16 with Jacobi: 582 instead of 326).  The other
 * formats keep the FP64 norm: for FIXED16 the stored norm made bcsstk16 (Jacobi) take 5247
 * iterations instead of 303.  Once per reliable update. */
static int stored_rr(mix_context *ctx, const mix_svec *r, double *rr)
{
    if (r->prec != MIX_FP16) return MIX_SUCCESS;
    return ctx->ops->sparse->dot(ctx->state, r, r, rr);
}

/* p'Ap of the direction S p with the FP64 matrix (temporaries: only on a breakdown). */
static int true_pap(mix_context *ctx, const mix_sparse *A, const mix_svec *p, const double *S,
                    double *pap)
{
    const mix_backend_ops *ops = ctx->ops;
    const size_t bytes = (size_t)A->n * sizeof(double);
    mix_svec p64 = {MIX_FP64, A->n, NULL, NULL}, ap64 = {MIX_FP64, A->n, NULL, NULL};
    int st = ops->alloc(ctx->state, &p64.val, bytes);
    if (!st) st = ops->alloc(ctx->state, &ap64.val, bytes);
    if (!st) st = ops->memset0(ctx->state, p64.val, bytes);
    if (!st) st = ops->sparse->vec_accum64(ctx->state, p, S, 1.0, p64.val);
    if (!st) st = ops->sparse->spmv(ctx->state, A->a64, &p64, &ap64, pap);
    ops->free(ctx->state, p64.val);
    ops->free(ctx->state, ap64.val);
    return st;
}

/* One run of the reliable-update CG in storage `prec` from x (x0 when x0_given, else 0), at
 * most max_iter iterations; info->iter, reliable_updates, reason, converged, true_rel_residual,
 * t_setup and t_solve describe this run only. */
static int cg_stage(mix_context *ctx, const mix_cg_params *prm, mix_prec prec, int x0_given,
                    int max_iter, mix_sparse *A, const double *b, double *x, mix_cg_info *info)
{
    const mix_backend_ops *ops = ctx->ops;
    const mix_sparse_ops *sp = ops->sparse;
    double t0 = mixi_wtime(), t1 = t0;
    const int n = A->n;
    const size_t bytes64 = (size_t)n * sizeof(double);
    const double delta = prm->delta;
    cg_work w;
    memset(&w, 0, sizeof w);
    double *y = NULL, *r64 = NULL;
    const mix_spmat *As = NULL;
    const double *S = NULL;
    int st, iter = 0, updates = 0, reason = MIX_CG_MAX_ITER, looped = 0;
    double bb = 0.0, best = INFINITY;

    memset(info, 0, sizeof *info);
    if (!sp || !sp->residual64 || !sp->nrm2sq64 || !sp->vec_from64 || !sp->vec_accum64 ||
        !sp->vec_zero || !sp->spmv || !sp->cg_update || !sp->axpby || !sp->dot) {
        st = MIX_ERR_NOT_IMPLEMENTED;
        goto out;
    }
    /* From here on x always holds the best answer known (x0, or 0 when none was given). */
    if (!x0_given && (st = ops->memset0(ctx->state, x, bytes64))) goto out;
    if ((st = sp->nrm2sq64(ctx->state, n, b, &bb))) goto out;
    if (!isfinite(bb)) {
        st = MIX_ERR_NAN;
        reason = MIX_CG_BREAKDOWN_NAN;
        goto out;
    }
    if (bb == 0.0) { /* the exact answer, whatever x0 was */
        st = ops->memset0(ctx->state, x, bytes64);
        reason = MIX_CG_ZERO_RHS;
        best = 0.0;
        info->converged = 1;
        goto out;
    }
    const double bnorm = sqrt(bb), target = prm->tol * bnorm;
    /* Until the true residual of x is known, x = 0 has residual ||b|| (x0 is measured below). */
    if (!x0_given) best = bnorm;

    /* y: the FP64 solution; x: the best y seen (by true residual).  Measured before the sloppy
     * setup, so that a stop there (Jacobi on a non-positive diagonal, overflow) still reports
     * the true residual of the x returned. */
    if ((st = ops->alloc(ctx->state, (void **)&y, bytes64))) goto out;
    if ((st = ops->alloc(ctx->state, (void **)&r64, bytes64))) goto out;
    if ((st = ops->copy(ctx->state, y, x, bytes64))) goto out;
    double rr_true;
    if ((st = sp->residual64(ctx->state, A->a64, b, y, r64, &rr_true))) goto out;
    if (!isfinite(rr_true)) {
        best = INFINITY;
        st = MIX_ERR_NAN;
        reason = MIX_CG_BREAKDOWN_NAN;
        goto out;
    }
    double tnorm = sqrt(rr_true); /* true ||r|| at the last update */
    best = tnorm;
    if (tnorm <= target) {
        reason = MIX_CG_CONVERGED;
        info->converged = 1;
        goto out;
    }

    st = mixi_sparse_sloppy(A, prec, prm->precond == MIX_PRECOND_JACOBI, &As, &S);
    if (st == MIX_ERR_NOT_SPD) reason = MIX_CG_BREAKDOWN_NOT_SPD;
    if (st == MIX_ERR_OVERFLOW) reason = MIX_CG_STORAGE_OVERFLOW;
    if (st) goto out;
    /* Vectors in the accumulator over a 16-bit matrix (where the backend's spmv takes them):
     * rounding r, p and A p to 16 bits cost FIXED16 42% more iterations than FP64 CG on 3D
     * Poisson 120^3 with b = A 1 (471 against 332; FP32 vectors: 358) and more time. */
    const mix_prec vprec = !prm->narrow_vectors && sp->spmv_acc_vectors ? mixk_prec_acc(prec) : prec;
    if ((st = svec_alloc(ctx, vprec, n, &w.r))) goto out;
    if ((st = svec_alloc(ctx, vprec, n, &w.p))) goto out;
    if ((st = svec_alloc(ctx, vprec, n, &w.ap))) goto out;
    /* A 16-bit xs loses the small late steps (3D Poisson, FP16: far more iterations); in FP32
     * every 16-bit storage needs the FP64 iteration count, for 2 more bytes per entry. */
    const mix_prec xprec = mixk_prec_acc(prec);
    if ((st = svec_alloc(ctx, xprec, n, &w.xs))) goto out;

    /* The sloppy loop solves (S A S) xs = sigma S r for the correction y += S xs / sigma. */
    double sigma = 1.0, rr;
    if ((st = sp->vec_from64(ctx->state, r64, S, sigma, &w.r, &rr))) goto out;
    if (range_sigma(vprec, rr, sigma, n) != sigma) {
        sigma = range_sigma(vprec, rr, sigma, n);
        if ((st = sp->vec_from64(ctx->state, r64, S, sigma, &w.r, &rr))) goto out;
    }
    if ((st = stored_rr(ctx, &w.r, &rr))) goto out;
    if ((st = svec_copy(ctx, &w.p, &w.r))) goto out;
    if ((st = sp->vec_zero(ctx->state, &w.xs))) goto out;
    double rnorm = sqrt(rr), r0norm = rnorm, maxrr = rnorm;
    int res_inc = 0, res_inc_total = 0, weak = 0;
    const int may_escalate = prm->escalate && prec != MIX_FP64;
    t1 = mixi_wtime();
    looped = 1;

    while (iter < max_iter) {
        double pap, rr_new, rdot;
        if ((st = sp->spmv(ctx->state, As, &w.p, &w.ap, &pap))) goto out;
        if (isnan(pap) || isinf(pap)) goto sloppy_breakdown;
        if (pap <= 0.0) {
            /* A direction that is exactly zero in its storage (it underflowed) says nothing
             * about A: restart from the true residual instead of calling A indefinite. */
            double pp;
            if ((st = sp->dot(ctx->state, &w.p, &w.p, &pp))) goto out;
            if (!(pp > 0.0)) goto sloppy_breakdown;
            /* Not SPD, either A itself or only its rounded copy: p'Ap in FP64 tells which. */
            if ((st = true_pap(ctx, A, &w.p, S, &pap))) goto out;
            if (pap <= 0.0 || prec == MIX_FP64) {
                st = MIX_ERR_NOT_SPD;
                reason = MIX_CG_BREAKDOWN_NOT_SPD;
            } else {
                st = MIX_ERR_NOT_CONVERGED; /* the storage precision is too coarse for A */
                reason = MIX_CG_STAGNATED;
            }
            goto out;
        }
        double alpha = rr / pap;
        if ((st = sp->cg_update(ctx->state, alpha, &w.p, &w.ap, &w.xs, &w.r, &rr_new, &rdot)))
            goto out;
        iter++;
        if (!isfinite(rr_new) || !isfinite(rdot)) goto sloppy_breakdown;
        rnorm = sqrt(rr_new);
        if (rnorm > maxrr) maxrr = rnorm;
        /* The iterated residual relative to the last true one estimates the true residual. */
        int near_done = rnorm / r0norm * tnorm <= target;
        int update = rnorm < delta * maxrr || rnorm < delta * r0norm;
        if (!(update || near_done || iter == max_iter)) {
            /* Polak-Ribiere; Fletcher-Reeves when its numerator is negative. */
            double num = rr_new - rdot;
            double beta = (num > 0.0 ? num : rr_new) / rr;
            if ((st = sp->axpby(ctx->state, 1.0, &w.r, beta, &w.p))) goto out;
            rr = rr_new;
            continue;
        }

        const int claimed_drop = rnorm < delta * r0norm;
        /* Reliable update: fold xs into y, recompute r = b - A y in FP64. */
        if ((st = sp->vec_accum64(ctx->state, &w.xs, S, 1.0 / sigma, y))) goto out;
        if ((st = sp->vec_zero(ctx->state, &w.xs))) goto out;
        if ((st = sp->residual64(ctx->state, A->a64, b, y, r64, &rr_true))) goto out;
        updates++;
        if (!isfinite(rr_true)) {
            /* xs overflowed its storage: go back to the best y, whose residual is finite. */
            if ((st = ops->copy(ctx->state, y, x, bytes64))) goto out;
            if ((st = sp->residual64(ctx->state, A->a64, b, y, r64, &rr_true))) goto out;
            goto sloppy_breakdown;
        }
        double tn = sqrt(rr_true);
        if (tn < best) {
            best = tn;
            if ((st = ops->copy(ctx->state, x, y, bytes64))) goto out;
        }
        if (tn <= target) {
            reason = MIX_CG_CONVERGED;
            info->converged = 1;
            break;
        }
        /* A rise counts only when the iterated residual claims a drop by delta from the last
         * true one (QUDA's updateX): the sloppy and true residuals then disagree, which is the
         * precision floor, not CG's ordinary non-monotone residual. */
        if (tn > tnorm && claimed_drop) {
            res_inc++;
            res_inc_total++;
            if (res_inc > CG_MAX_RES_INCREASE || res_inc_total > CG_MAX_RES_INCREASE_TOTAL) {
                reason = MIX_CG_STAGNATED;
                break;
            }
        } else {
            res_inc = 0;
        }
        weak = tn > CG_WEAK_DROP * tnorm ? weak + 1 : 0;
        if (may_escalate && weak >= CG_MAX_WEAK_UPDATES) {
            reason = MIX_CG_STAGNATED;
            break;
        }
        tnorm = tn;
        if (iter == max_iter) break;

        /* New sloppy residual (renormalised for FP16); p rescaled to the new units, re-projected
         * against r and extended with the Fletcher-Reeves beta ||r_true||^2 / ||r_old||^2, r_old
         * being the residual p was built from, as QUDA does at an update.  (Dividing by the
         * iterated ||r_new||^2 instead gave beta ~ 1 and cost FP64 CG 33% more iterations than
         * textbook CG: 562 against 423 on 3D Poisson 100^3.) */
        double sigma_new = sigma, rr_s;
        if ((st = sp->vec_from64(ctx->state, r64, S, sigma, &w.r, &rr_s))) goto out;
        sigma_new = range_sigma(vprec, rr_s, sigma, n);
        if (sigma_new != sigma &&
            (st = sp->vec_from64(ctx->state, r64, S, sigma_new, &w.r, &rr_s)))
            goto out;
        if ((st = stored_rr(ctx, &w.r, &rr_s))) goto out;
        double ratio = sigma_new / sigma, rp;
        if ((st = sp->dot(ctx->state, &w.r, &w.p, &rp))) goto out;
        double c = ratio * rp / rr_s;
        /* When the true residual is well above the iterated one (more than 2x; or the sloppy
         * one is exactly zero, e.g. A diagonal), the old direction belongs to a residual that
         * was not the real one and beta would blow it up: restart with p = r. */
        const double rr_it = rr_new * ratio * ratio;
        double beta = rr_s <= 4.0 * rr_it ? rr_s / (rr * ratio * ratio) : 0.0;
        /* p <- r + beta (ratio p - c r) */
        if ((st = sp->axpby(ctx->state, 1.0 - beta * c, &w.r, beta * ratio, &w.p))) goto out;
        sigma = sigma_new;
        rr = rr_s;
        rnorm = r0norm = maxrr = sqrt(rr_s);
        continue;

    sloppy_breakdown:
        /* b, x0 and A are finite (checked), so only the storage precision overflowed: drop xs
         * and restart from y (r64 still holds b - A y), counted as one more residual rise. */
        if (++res_inc_total > CG_MAX_RES_INCREASE_TOTAL) {
            reason = MIX_CG_STAGNATED;
            break;
        }
        if ((st = sp->vec_zero(ctx->state, &w.xs))) goto out;
        if ((st = sp->vec_from64(ctx->state, r64, S, sigma, &w.r, &rr))) goto out;
        if ((st = stored_rr(ctx, &w.r, &rr))) goto out;
        if ((st = svec_copy(ctx, &w.p, &w.r))) goto out;
        rnorm = r0norm = maxrr = sqrt(rr);
    }
    st = info->converged ? MIX_SUCCESS : MIX_ERR_NOT_CONVERGED;

out:
    info->status = st;
    info->iter = iter;
    info->reliable_updates = updates;
    info->reason = st == MIX_SUCCESS ? (reason == MIX_CG_ZERO_RHS ? MIX_CG_ZERO_RHS : MIX_CG_CONVERGED)
                                     : reason;
    /* x holds the best answer found, whatever stopped the iteration. */
    info->true_rel_residual = bb > 0.0 && isfinite(bb) ? best / sqrt(bb) : (bb == 0.0 ? 0.0 : NAN);
    double t2 = mixi_wtime();
    if (!looped) t1 = t2; /* stopped before iterating: all of it was setup */
    info->t_setup = t1 - t0;
    info->t_solve = t2 - t1;
    svec_free(ctx, &w.r);
    svec_free(ctx, &w.p);
    svec_free(ctx, &w.ap);
    svec_free(ctx, &w.xs);
    ops->free(ctx->state, y);
    ops->free(ctx->state, r64);
    return st;
}

/* The storage precision MIX_PREC_AUTO starts with.  A matrix whose FP64 copy fits the caches
 * moves no memory traffic that 16-bit values could save, so FP64 (no conversion, no rounding);
 * otherwise FIXED16 (int16 with a per-row scale: more bits than FP16 or BF16 for the same
 * bytes) when the rows' range allows it, i.e. almost no off-diagonal entry lies below 2^-10
 * of its row's largest (there it keeps fewer than 5 significant bits); else FP32. */
mix_prec mixi_cg_auto_prec(const mix_sparse *A)
{
    const double fp64_bytes = (double)A->nnz * 12.0 + (double)A->n * 8.0;
    if (fp64_bytes <= MIXI_CG_AUTO_CACHE_BYTES) return MIX_FP64;
    if (A->fixed16_tiny * 100 <= A->nnz) return MIX_FIXED16;
    return MIX_FP32;
}

/* A stage that stops for want of precision (the storage's floor, a rounded copy of A that is
 * not SPD, a matrix that does not fit the format) hands over to the next wider storage. */
static int escalates(int st, int reason)
{
    return (st == MIX_ERR_NOT_CONVERGED && reason == MIX_CG_STAGNATED) ||
           (st == MIX_ERR_OVERFLOW && reason == MIX_CG_STORAGE_OVERFLOW);
}

/* Iterations a sloppy stage may run before it escalates.  CG in exact arithmetic ends within n
 * steps; a low-precision loop past that has lost the orthogonality that makes it converge and
 * may crawl for 10 n without a single rise of the true residual (1138_bus in FIXED16 without
 * Jacobi: 11380 iterations to 1.9e-8, against 2865 for FP64 CG to 1e-10). */
static int stage_window(int n) { return n > 100 ? n : 100; }

int mixi_cg_solve(mix_context *ctx, const mix_cg_params *prm, mix_sparse *A, const double *b,
                  double *x, mix_cg_info *info)
{
    const int n = A->n;
    const int budget = prm->max_iter > 0 ? prm->max_iter : (n > 100 ? 10 * n : 1000);
    mix_prec prec = prm->sloppy_prec == MIX_PREC_AUTO ? mixi_cg_auto_prec(A) : prm->sloppy_prec;
    int x0_given = prm->x0_given, iter = 0, updates = 0, st;
    double t_setup = 0.0, t_solve = 0.0;
    mix_cg_info stage, total;
    memset(&total, 0, sizeof total);
    for (;;) {
        const int windowed = prm->escalate && prec != MIX_FP64 && stage_window(n) < budget - iter;
        st = cg_stage(ctx, prm, prec, x0_given, windowed ? stage_window(n) : budget - iter, A, b,
                      x, &stage);
        if (windowed && st == MIX_ERR_NOT_CONVERGED && stage.reason == MIX_CG_MAX_ITER)
            stage.reason = MIX_CG_STAGNATED; /* the window, not the caller's limit */
        iter += stage.iter;
        updates += stage.reliable_updates;
        t_setup += stage.t_setup;
        t_solve += stage.t_solve;
        if (total.stages < MIX_CG_MAX_STAGES) {
            total.stage_prec[total.stages] = prec;
            total.stage_iter[total.stages] = stage.iter;
            total.stage_reason[total.stages] = stage.reason;
            total.stages++;
        }
        /* FIXED16 / FP16 / BF16 -> FP32 -> FP64, each from the best FP64 x so far. */
        if (!prm->escalate || prec == MIX_FP64 || iter >= budget || !escalates(st, stage.reason))
            break;
        prec = prec == MIX_FP32 ? MIX_FP64 : MIX_FP32;
        x0_given = 1;
    }
    *info = stage; /* status, converged, reason and residual of the last stage */
    info->iter = iter;
    info->reliable_updates = updates;
    info->t_setup = t_setup;
    info->t_solve = t_solve;
    info->stages = total.stages;
    memcpy(info->stage_prec, total.stage_prec, sizeof total.stage_prec);
    memcpy(info->stage_iter, total.stage_iter, sizeof total.stage_iter);
    memcpy(info->stage_reason, total.stage_reason, sizeof total.stage_reason);
    return st;
}
