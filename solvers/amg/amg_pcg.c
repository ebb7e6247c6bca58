/* amg_pcg.c: MIX_PRECOND_AMG: preconditioned CG with one V-cycle per iteration, reliable
 * updates in FP64.  A V-cycle with the same Chebyshev polynomial before and after is a fixed
 * symmetric operator, so plain PCG applies.  The loop runs in the Jacobi-scaled unknowns of the
 * hierarchy's fine level (A^ = D^-1/2 A D^-1/2, r^ = sigma D^-1/2 r) on the V-cycle's vectors
 * (FP32 over 16-bit storage), and its product A^ p is the level's stored copy, the cycle's own
 * kernel: an FP64 product of the user's matrix (12 bytes an entry against FIXED16's 2-3) is
 * paid only at a reliable update (QUDA's method), where the partial solution is added to the
 * FP64 x and the iterated residual replaced by the true b - A x: whenever it has fallen by
 * delta^2 since the last update, or claims convergence, so that the answer's residual is the
 * FP64 one.  delta^2: a V-cycle step cuts the residual ~4x, so that delta would update at every
 * other step.  Where the stored copy's rounding shows (an update finds the true residual well
 * above what the iterated one claimed: kappa times the storage's error near the drop since the
 * last update, 1138_bus in FIXED16), the stage's remaining products are the FP64 ones. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "solvers/amg/amg.h"

/* A stage gives up (hands over to a wider storage) after this many reliable updates in a row
 * at which the true residual fell by less than AMG_WEAK_DROP: its storage's rounding of A then
 * sets the pace (cg.c's rule). */
#define AMG_MAX_WEAK_UPDATES 3
#define AMG_WEAK_DROP 0.5
/* The products turn FP64 when an update finds the true residual above this multiple of the
 * iterated one's claim, or when the iterated one has not fallen by delta^2 in this many steps. */
#define AMG_DRIFT_MAX 2.0
#define AMG_UPDATE_STEPS 20
/* The stored copy's products stand where its relative error on the stage's first direction is
 * below this fraction of the drop between updates (delta^2): the iterated residual then keeps
 * within 1% of the true one.  On that direction, the V-cycle's smooth image of r, the error is
 * the storage's rounding times A's conditioning (3-D Poisson in FIXED16: 1e-7, its stencil
 * exact; in FP16 5e-4, where the loop took 76 steps against 12). */
#define AMG_STORED_ERR_MAX 1e-2
/* The loop's vectors are the V-cycle's (FP32) where the V-cycle is strong on A: the true
 * residual's first update finds it cut by at least 1 / AMG_NARROW_RATE a step, and the stage
 * takes at most AMG_NARROW_STEPS.  Elsewhere (a V-cycle weak on A, whose rest is then
 * ill-conditioned) the stage goes on from x with FP64 vectors, whose recurrences keep their
 * conjugacy (1138_bus: 60 FP32 steps against 33; 3-D Poisson cuts 5-8x a step at first). */
#define AMG_NARROW_RATE 0.25
#define AMG_NARROW_STEPS 25
#define AMG_CHECK_STEPS 4
/* FP64 vectors take no reliable update until they claim convergence (below), so every
 * AMG_CHECKPOINT_STEPS steps their iterated residual, the true one's to rounding over FP64
 * products, is read instead: where it fell below AMG_WEAK_DROP of the best so far, x + step is
 * kept as the best x; AMG_MAX_WEAK_UPDATES readings in a row without such a fall stop a stage
 * that may escalate (the probe: 1138_bus, FP32 storage, b not A 1: 1.5e-7 at step 1000, then
 * rising to 2.35 at 1500 and x = 0 returned at 2000, NaN at 2350, one stage throughout, where
 * FP64 storage converges in 346 steps).  A stage that cannot escalate (FP64 storage) goes on:
 * near its floor a flat stretch may still end below the target (the same FP64 solve read
 * 1.19e-10 for 256 steps, target 1e-10, then converged at step 346). */
#define AMG_CHECKPOINT_STEPS 32
/* A stage flat for AMG_MAX_WEAK_UPDATES readings whose best x stands at FP64's floor far above
 * the target stops there (at_fp64_floor), and no wider storage follows: a tolerance below
 * FP64's reach ran to max_iter (3-D Poisson 50^3, tol 3e-16: FP64 storage 1000 steps, flat at
 * 4.6e-15 from step 20; FIXED16 on through FP32 and FP64 stages likewise).  A target within
 * AMG_FLOOR_REACH of the stagnation level may still be met by a dip of the residual's walk
 * along the floor (the case above: 1.09-2.0e-10, 13x below eps (||b|| + ||A|| ||x||), until
 * 9.6e-11), one further below is not. */
#define AMG_FLOOR_REACH 4.0
/* pcg_loop's return asking pcg_stage to go on with FP64 vectors. */
#define AMG_WIDEN (-1)

typedef struct {
    mix_context *ctx;
    mix_sparse *A;
    const double *b, *scale0; /* scale0: D^-1/2 of the fine level (backend) */
    double bb, target, delta2;
    double *x, *r64, *u64;    /* FP64 backend: the solution, the true residual, scratch */
    mixi_svec r, p, q, xs;    /* scaled: residual, direction, A^ p, partial solution */
    mixi_svec rv, z64;        /* with FP64 vectors over narrower cycle ones: r^ and z converted */
    mix_prec vprec;           /* the V-cycle's vectors */
    double sigma, tn;         /* r^'s scale, the last true residual's norm */
    double rn, rn_upd;        /* ||r^|| now and at the last update */
    double rescaled;          /* the factor the last update put on sigma (and on p) */
    int iter, updates, weak, reason;
    int exact, since_upd;     /* the products in FP64; steps since the last update */
    int x_zero;               /* x is 0 (cleared once the first true residual is taken) */
    double tn0;               /* the true residual's norm where these vectors began, */
    int iter0, upd0;          /* ... and the steps and updates then */
    double best;              /* the smallest true residual's norm of the stage: x's, or */
    double *xbest;            /* ... this x's where kept (made at the first update that rose) */
    int kept, guard;          /* guard: the stage's first step from a nonzero x is still to come */
    int may_escalate;         /* the stage hands over to a wider storage where it stalls */
    int flat_checks;          /* checkpoints in a row without a fall (FP64 vectors) */
    double anorm;             /* a bound on ||A||_2 (the fine level's lambda_max times max |a_ij|) */
    int at_floor;             /* the stage stopped at FP64's floor: no wider storage can gain */
} pcg;

static void vectors_free(pcg *W)
{
    mixi_svec *v[6] = {&W->r, &W->p, &W->q, &W->xs, &W->rv, &W->z64};
    for (int i = 0; i < 6; i++) W->ctx->ops->free(W->ctx->state, v[i]->val), v[i]->val = NULL;
}

/* The loop's vectors in prec (the cycle's, or FP64 with the conversions' two). */
static int vectors_alloc(pcg *W, mix_prec prec)
{
    const int n = W->A->n;
    int st = mixi_amg_svec_alloc(W->ctx, prec, n, n, &W->r);
    if (!st) st = mixi_amg_svec_alloc(W->ctx, prec, n, n, &W->p);
    if (!st) st = mixi_amg_svec_alloc(W->ctx, prec, n, n, &W->q);
    if (!st) st = mixi_amg_svec_alloc(W->ctx, prec, n, n, &W->xs);
    if (!st && prec != W->vprec) st = mixi_amg_svec_alloc(W->ctx, W->vprec, n, n, &W->rv);
    if (!st && prec != W->vprec) st = mixi_amg_svec_alloc(W->ctx, MIX_FP64, n, n, &W->z64);
    if (st) vectors_free(W);
    return st;
}

/* W->r64 = b - A x in FP64; W->tn its norm.  At x = 0 that is b itself (A's entries are finite,
 * mix_sparse_create_csr's check), copied instead of a pass over the FP64 matrix (3-D Poisson
 * 150^3: 18-25 ms of a 1.3-1.8 s solve). */
static int true_residual(pcg *W)
{
    double rr = W->bb;
    const int st = W->x_zero ? W->ctx->ops->copy(W->ctx->state, W->r64, W->b, (size_t)W->A->n * sizeof(double))
                             : W->ctx->ops->sparse->residual64(W->ctx->state, W->A->a64, W->b, W->x, W->r64, &rr);
    W->x_zero = 0;
    W->tn = sqrt(rr);
    return st;
}

/* An FP64 vector with the kernels' padding (the FP64 SpMV reads and writes r64 and u64). */
static int fp64_alloc(mix_context *ctx, int n, double **v)
{
    mixi_svec s;
    const int st = mixi_amg_svec_alloc(ctx, MIX_FP64, n, n, &s);
    *v = s.val;
    return st;
}

/* xbest = x (xbest made at its first use). */
static int keep_x(pcg *W)
{
    const size_t bytes = (size_t)W->A->n * sizeof(double);
    const int st = W->xbest ? MIX_SUCCESS : fp64_alloc(W->ctx, W->A->n, &W->xbest);
    return st ? st : W->ctx->ops->copy(W->ctx->state, W->xbest, W->x, bytes);
}

/* x += D^-1/2 xs / sigma and its true residual.  Where that rose above the stage's best, the
 * best x is kept (restore_best hands it back where the stage fails: a stalled or diverging
 * one, a singular inconsistent A): copied before the step where the step is at risk (the
 * stage's first from a nonzero x, or after a weak update), elsewhere rebuilt as x minus the
 * same step, exact from x = 0 and to rounding where the step is not much larger than x, as in
 * a converging CG, whose residual may rise but not far.  A copy at every update would add a
 * pass over x to each (3-D Poisson: ~2% of a solve). */
static int advance_x(pcg *W)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    void *s = W->ctx->state;
    const int copied = !W->kept && (W->guard || W->weak > 0);
    W->guard = 0;
    int st = copied ? keep_x(W) : MIX_SUCCESS;
    if (!st) st = sp->vec_accum64(s, &W->xs, W->scale0, 1.0 / W->sigma, W->x);
    if (!st) st = true_residual(W);
    if (st || W->tn <= W->best) {
        if (!st) W->best = W->tn, W->kept = 0;
        return st;
    }
    if (W->kept || copied) return W->kept = 1, MIX_SUCCESS;
    st = keep_x(W);
    if (!st) st = sp->vec_accum64(s, &W->xs, W->scale0, -1.0 / W->sigma, W->xbest);
    W->kept = !st;
    return st;
}

/* x = the kept best x where its true residual, taken again (the subtraction rounds), is below
 * x's or x's is not finite; W->tn and W->r64 are then that x's. */
static int restore_best(pcg *W)
{
    if (!W->kept) return MIX_SUCCESS;
    double *const x = W->x, tn = W->tn;
    W->kept = 0;
    W->x = W->xbest, W->xbest = x;
    int st = true_residual(W);
    if (st || (isfinite(W->tn) && !(W->tn >= tn))) return st;
    W->xbest = W->x, W->x = x; /* no better: x stays, with its residual */
    return true_residual(W);
}

/* The reliable update: x += D^-1/2 xs / sigma, the true residual, r^ from it (rescaled, p with
 * it), xs = 0; counts a weak update (the true residual fell by less than AMG_WEAK_DROP).  The
 * first, at the stage's x, starts its best. */
static int reliable_update(pcg *W, int first)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    void *s = W->ctx->state;
    const double tn_old = W->tn;
    double vv;
    int st;
    if (first) {
        W->guard = !W->x_zero;
        st = true_residual(W);
        W->best = W->tn, W->kept = 0;
    } else {
        st = advance_x(W);
    }
    if (!st) st = sp->vec_from64(s, W->r64, W->scale0, W->sigma, &W->r, &vv);
    if (st) return st;
    const double f = W->vprec == MIX_FP64 ? 1.0 : mixi_amg_unit_rms(vv, W->A->n);
    W->rescaled = f;
    if (f != 1.0) {
        W->sigma *= f, vv *= f * f;
        if ((st = sp->vec_from64(s, W->r64, W->scale0, W->sigma, &W->r, NULL)) ||
            (!first && (st = sp->axpby(s, 0.0, &W->p, f, &W->p))))
            return st;
    }
    /* The iterated residual's claim, in unscaled terms, against what came true. */
    if (!first && W->tn > AMG_DRIFT_MAX * tn_old * W->rn / W->rn_upd) W->exact = 1;
    W->rn_upd = W->rn = sqrt(vv);
    W->since_upd = 0;
    W->updates += !first;
    W->weak = first || W->tn < AMG_WEAK_DROP * tn_old ? 0 : W->weak + 1;
    if (!isfinite(W->tn) || !isfinite(vv)) return W->reason = MIX_CG_BREAKDOWN_NAN, MIX_ERR_NAN;
    return sp->vec_zero(s, &W->xs);
}

/* z = V r^ (the cycle's vector), *rz = <r^, z>: MIX_ERR_NAN for NaN/Inf, MIX_ERR_NOT_SPD where
 * z is not a descent direction (the hierarchy of an indefinite A, or a storage too coarse). */
static int precondition(pcg *W, mixi_amg_cycle *C, const mixi_svec **z, double *rz)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    void *s = W->ctx->state;
    int st;
    if (W->r.prec == W->vprec) {
        st = mixi_amg_cycle_apply_scaled(C, &W->r, z);
    } else { /* FP64 vectors: through the cycle's precision and back */
        const mixi_svec *zv;
        st = sp->vec_from64(s, W->r.val, NULL, 1.0, &W->rv, NULL);
        if (!st) st = mixi_amg_cycle_apply_scaled(C, &W->rv, &zv);
        if (!st) st = sp->vec_zero(s, &W->z64);
        if (!st) st = sp->vec_accum64(s, zv, NULL, 1.0, W->z64.val);
        *z = &W->z64;
    }
    if (!st) st = sp->dot(s, &W->r, *z, rz);
    if (st) return st;
    if (isnan(*rz) || isinf(*rz)) return W->reason = MIX_CG_BREAKDOWN_NAN, MIX_ERR_NAN;
    if (!(*rz > 0.0)) return W->reason = MIX_CG_BREAKDOWN_NOT_SPD, MIX_ERR_NOT_SPD;
    return MIX_SUCCESS;
}

/* q = A^ p through the FP64 matrix: q = sigma D^-1/2 A D^-1/2 p / sigma, *pq = <p, q>. */
static int exact_product(pcg *W, mixi_svec *q, double *pq)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    void *s = W->ctx->state;
    const int n = W->A->n;
    mixi_svec u = {MIX_FP64, n, W->u64, NULL}, w = {MIX_FP64, n, W->r64, NULL};
    double uw;
    int st = W->ctx->ops->memset0(s, W->u64, (size_t)n * sizeof(double));
    if (!st) st = sp->vec_accum64(s, &W->p, W->scale0, 1.0, W->u64);
    if (!st) st = sp->spmv(s, W->A->a64, &u, &w, &uw);
    if (!st) st = sp->vec_from64(s, W->r64, W->scale0, 1.0, q, NULL);
    return st ? st : sp->dot(s, &W->p, q, pq);
}

/* The stage's first product, both ways (xs, still zero, holds the FP64 one): where the stored
 * copy's relative error on it is above AMG_STORED_ERR_MAX delta^2, the stage's products are
 * FP64 ones. */
static int first_product(pcg *W, const mixi_spmat *As, double *pq)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    void *s = W->ctx->state;
    double pq_exact, ee, dd;
    int st = sp->spmv(s, As, &W->p, &W->q, pq);
    if (!st) st = exact_product(W, &W->xs, &pq_exact);
    if (!st) st = sp->dot(s, &W->xs, &W->xs, &ee);
    if (!st) st = sp->axpby(s, -1.0, &W->q, 1.0, &W->xs);
    if (!st) st = sp->dot(s, &W->xs, &W->xs, &dd);
    if (st) return st;
    const double err_max = AMG_STORED_ERR_MAX * W->delta2;
    if (!(dd <= err_max * err_max * ee)) { /* q = q + (q_exact - q) */
        W->exact = 1;
        *pq = pq_exact;
        st = sp->axpby(s, 1.0, &W->xs, 1.0, &W->q);
    }
    return st ? st : sp->vec_zero(s, &W->xs);
}

/* One step along p: q = A^ p, xs += alpha p, r^ -= alpha q; W->rn = ||r^||. */
static int step(pcg *W, const mixi_spmat *As, double rz)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    double pq, rr, rdot;
    int st = W->exact || W->r.prec != W->vprec ? exact_product(W, &W->q, &pq)
             : W->iter == 0 && W->r.prec != MIX_FP64 ? first_product(W, As, &pq)
                                                    : sp->spmv(W->ctx->state, As, &W->p, &W->q, &pq);
    if (st) return st;
    if (isnan(pq) || isinf(pq)) return W->reason = MIX_CG_BREAKDOWN_NAN, MIX_ERR_NAN;
    if (!(pq > 0.0)) return W->reason = MIX_CG_BREAKDOWN_NOT_SPD, MIX_ERR_NOT_SPD;
    st = sp->cg_update(W->ctx->state, rz / pq, &W->p, &W->q, &W->xs, &W->r, &rr, &rdot);
    W->iter++, W->since_upd++;
    W->rn = sqrt(rr);
    if (!st && !isfinite(rr)) return W->reason = MIX_CG_BREAKDOWN_NAN, MIX_ERR_NAN;
    return st;
}

/* Narrow vectors: an update where the iterated residual has fallen by delta^2 since the last,
 * or AMG_UPDATE_STEPS after it; the first comes by AMG_CHECK_STEPS at the latest.  An
 * update whose stored products drifted from the true ones, or one forced before the drop,
 * turns the products FP64.  (FP64 vectors over FP64 products need none until the iterated
 * residual claims convergence: an update between, where the loop's recurrences are exact,
 * only loses conjugacy, bcsstk13 stalled at 1e-6.) */
static int update_due(pcg *W)
{
    const int fell = W->rn < W->delta2 * W->rn_upd;
    const int first = W->updates == W->upd0 && W->iter - W->iter0 >= AMG_CHECK_STEPS;
    if (fell || first) return 1;
    if (W->since_upd < AMG_UPDATE_STEPS) return 0;
    W->exact = 1;
    return 1;
}

/* Whether the stage stands at FP64's floor (AMG_FLOOR_REACH): the smaller true residual of
 * its best x and of x + step within eps (||b|| + ||A|| ||x||), the rounding of an FP64 x and of
 * b - A x (cg.c's at_floor), and above AMG_FLOOR_REACH times the target.  The best too: the
 * walk along the floor drifts (3-D Poisson 50^3: best 4.6e-15 of ||b||, the normwise floor
 * 8e-15, then 1.0-1.9e-14 over the next 300 steps).  Both measured (u64, r64 are scratch
 * between updates): a kept best's reading may be the iterated residual's, in other norms
 * (bcsstk13: x + step's true one 2x below it). */
static int at_fp64_floor(pcg *W, int *stop)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    void *s = W->ctx->state;
    const int n = W->A->n;
    double rr = W->tn * W->tn, rr_step, xx;
    int st = W->kept ? sp->residual64(s, W->A->a64, W->b, W->xbest, W->r64, &rr) : MIX_SUCCESS;
    if (!st) st = W->ctx->ops->copy(s, W->u64, W->x, (size_t)n * sizeof(double));
    if (!st) st = sp->vec_accum64(s, &W->xs, W->scale0, 1.0 / W->sigma, W->u64);
    if (!st) st = sp->residual64(s, W->A->a64, W->b, W->u64, W->r64, &rr_step);
    if (!st) st = sp->nrm2sq64(s, n, W->u64, &xx);
    const double tn = sqrt(fmin(rr, rr_step));
    *stop = !st && tn <= DBL_EPSILON * (sqrt(W->bb) + W->anorm * sqrt(xx)) &&
            tn > AMG_FLOOR_REACH * W->target;
    return st;
}

/* FP64 vectors' checkpoint (AMG_CHECKPOINT_STEPS): the iterated residual in unscaled terms
 * against the best; x + step kept where it fell below AMG_WEAK_DROP of it, else a flat reading
 * (MIX_ERR_NOT_CONVERGED, stagnated, at the last one the stage may take: a stage that may hand
 * over, or one at FP64's floor). */
static int checkpoint(pcg *W)
{
    const double est = W->tn * W->rn / W->rn_upd;
    if (est < AMG_WEAK_DROP * W->best) {
        W->flat_checks = 0;
        int st = keep_x(W);
        if (!st) st = W->ctx->ops->sparse->vec_accum64(W->ctx->state, &W->xs, W->scale0,
                                                       1.0 / W->sigma, W->xbest);
        W->best = est;
        W->kept = !st;
        return st;
    }
    if (++W->flat_checks < AMG_MAX_WEAK_UPDATES) return MIX_SUCCESS;
    int st = at_fp64_floor(W, &W->at_floor);
    if (st || !(W->at_floor || W->may_escalate)) return st;
    W->reason = MIX_CG_STAGNATED;
    return MIX_ERR_NOT_CONVERGED;
}

/* The loop from the true residual (W->tn) to the target or max_iter steps; on return W->x
 * holds every step taken and W->tn its true residual's norm. */
static int pcg_loop(pcg *W, mixi_amg_cycle *C, const mixi_spmat *As, int max_iter)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    const mixi_svec *z;
    const int narrow = W->r.prec != MIX_FP64;
    double rz, rz_new;
    /* x0 within the target already: r = 0 gives no direction (rz = 0 is no breakdown). */
    if (W->tn <= W->target) return W->reason = MIX_CG_CONVERGED, MIX_SUCCESS;
    int st = precondition(W, C, &z, &rz);
    if (!st) st = sp->axpby(W->ctx->state, 1.0, z, 0.0, &W->p);
    while (!st && W->tn > W->target) {
        if (W->iter >= max_iter || W->weak >= AMG_MAX_WEAK_UPDATES) {
            W->reason = W->iter >= max_iter ? MIX_CG_MAX_ITER : MIX_CG_STAGNATED;
            st = MIX_ERR_NOT_CONVERGED;
            break;
        }
        if (narrow && W->iter - W->iter0 >= AMG_NARROW_STEPS) {
            st = AMG_WIDEN;
            break;
        }
        if ((st = step(W, As, rz))) break;
        /* The iterated residual's claim in unscaled terms, from the last true one. */
        if (W->rn * W->tn <= W->target * W->rn_upd || (narrow && update_due(W))) {
            if ((st = reliable_update(W, 0)) || W->tn <= W->target) break;
            if (narrow && W->updates - W->upd0 == 1 &&
                W->tn > W->tn0 * pow(AMG_NARROW_RATE, W->iter - W->iter0)) {
                st = AMG_WIDEN;
                break;
            }
            rz *= W->rescaled * W->rescaled; /* <r, z> in the new scale, for beta */
        } else if (!narrow && (W->iter - W->iter0) % AMG_CHECKPOINT_STEPS == 0 &&
                   (st = checkpoint(W))) {
            break;
        }
        if ((st = precondition(W, C, &z, &rz_new))) break;
        st = sp->axpby(W->ctx->state, 1.0, z, rz_new / rz, &W->p);
        rz = rz_new;
    }
    /* The steps since the last update, into x (an error or the iteration limit stops there),
     * then the best x seen where that was better. */
    if (st && st != MIX_ERR_NAN && W->iter) {
        const int st2 = advance_x(W);
        if (st2) st = st2;
    }
    if (st) {
        const int st2 = restore_best(W);
        if (st2) st = st2;
    }
    if (!st) W->reason = MIX_CG_CONVERGED;
    return st;
}


/* One stage: PCG with the hierarchy's set `set` (prec, or MIX_PREC_AUTO: per level, its fine
 * level in prec) from x (x0_given) or 0: on the cycle's vectors, then, where they need too many
 * steps, on FP64 ones from the x they reached. */
static int pcg_stage(pcg *W, mixi_amg *H, mix_prec prec, mix_prec set, int x0_given, int max_iter)
{
    W->flat_checks = W->at_floor = 0;
    mix_context *ctx = W->ctx;
    const mixi_amg_stored *S;
    mixi_amg_cycle C;
    W->vprec = mixi_amg_vector_prec(ctx, prec);
    int st = mixi_amg_stored_get(W->A, H, set, &S);
    if (st || (st = mixi_amg_cycle_init(&C, ctx, H, S, H->scale[0], W->vprec))) return st;
    W->scale0 = H->scale[0];
    W->anorm = MIXI_AMG_LMAX_MARGIN * H->lev[0].lmax * W->A->amax;
    W->iter = W->updates = 0;
    if (!x0_given) st = ctx->ops->memset0(ctx->state, W->x, (size_t)W->A->n * 8);
    W->x_zero = !x0_given;
    for (mix_prec oprec = W->vprec; !st; oprec = MIX_FP64) {
        W->sigma = 1.0;
        W->weak = 0;
        W->exact = oprec != W->vprec;
        if ((st = vectors_alloc(W, oprec))) break;
        st = reliable_update(W, 1);
        W->tn0 = W->tn, W->iter0 = W->iter, W->upd0 = W->updates;
        if (!st) st = pcg_loop(W, &C, S[0].A, max_iter);
        vectors_free(W);
        if (st != AMG_WIDEN) break;
        st = MIX_SUCCESS;
    }
    mixi_amg_cycle_free(&C);
    return st;
}

/* Default iteration limit: a V-cycle preconditioned CG that has not converged in this many
 * steps will not (3-D Poisson 150^3: 13 steps to 1e-10). */
#define AMG_MAX_ITER 1000

/* The storage a stage that failed for want of precision hands over to: FP32, then FP64.  NaN
 * too: b and x0 are finite (cg_range.c checks them first), so a NaN here is the narrow storage's
 * overflow in a diverging loop (the probe: 1138_bus in FP32 and BF16 storage). */
static int escalates(const mix_cg_params *prm, mix_prec prec, int st)
{
    return prm->escalate && prec != MIX_FP64 &&
           (st == MIX_ERR_NOT_CONVERGED || st == MIX_ERR_NOT_SPD || st == MIX_ERR_OVERFLOW ||
            st == MIX_ERR_NAN);
}

static void record(mix_cg_info *info, const pcg *W, mix_prec prec)
{
    info->iter += W->iter;
    info->reliable_updates += W->updates;
    if (info->stages < MIX_CG_MAX_STAGES) {
        info->stage_prec[info->stages] = prec;
        info->stage_iter[info->stages] = W->iter;
        info->stage_reason[info->stages] = W->reason;
        info->stages++;
    }
}

/* The stages from the storage asked for, x in W->x, its residual's norm in W->tn. */
static int amg_stages(pcg *W, const mix_cg_params *prm, mixi_amg *H, mix_prec prec, mix_cg_info *info)
{
    const int max_iter = prm->max_iter > 0 ? prm->max_iter : AMG_MAX_ITER;
    int x0 = prm->x0_given, st;
    /* AUTO's first stage: each level in the storage measured fastest on it (amg_auto.c). */
    mix_prec set = prm->sloppy_prec == MIX_PREC_AUTO && prec != MIX_FP64 ? MIX_PREC_AUTO : prec;
    for (;;) {
        W->reason = MIX_CG_MAX_ITER;
        W->may_escalate = prm->escalate && prec != MIX_FP64;
        st = pcg_stage(W, H, prec, set, x0, max_iter - info->iter);
        /* A start that already meets tol is no stage (mix_dcg(3): stages 0, as CG's). */
        if (!st && !W->iter && !info->stages) break;
        record(info, W, prec);
        if (!escalates(prm, prec, st) || W->at_floor || info->iter >= max_iter) break;
        /* A storage whose hierarchy stalls or is not SPD: the same from the best x, wider (from
         * 0 where that x is not finite: an overflow in the update itself). */
        prec = set = prec == MIX_FP32 ? MIX_FP64 : MIX_FP32;
        x0 = isfinite(W->tn);
    }
    info->reason = W->reason;
    return st;
}

/* x from the stages' x (or, where none ran, 0 or x0 kept) and the norm of its residual. */
static int result(pcg *W, const mix_cg_params *prm, const mix_cg_info *info, double *x)
{
    mix_context *ctx = W->ctx;
    const size_t bytes = (size_t)W->A->n * sizeof(double);
    if (W->x && info->stages) return ctx->ops->copy(ctx->state, x, W->x, bytes);
    if (!prm->x0_given) { /* stopped before any stage (set-up): x = 0, its residual */
        W->tn = sqrt(W->bb);
        return ctx->ops->memset0(ctx->state, x, bytes);
    }
    if (W->x && W->r64) return true_residual(W); /* x0 kept: its residual */
    return MIX_SUCCESS;
}

int mixi_amg_solve(mix_context *ctx, const mix_cg_params *prm, mix_sparse *A, const double *b,
                   double *x, mix_cg_info *info)
{
    const double t0 = mixi_wtime();
    pcg W;
    memset(&W, 0, sizeof W);
    memset(info, 0, sizeof *info);
    W.ctx = ctx, W.A = A, W.b = b, W.delta2 = prm->delta * prm->delta;
    mixi_amg *H = NULL;
    double t_build = 0.0;
    int st = ctx->ops->sparse->nrm2sq64(ctx->state, A->n, b, &W.bb);
    if (!st && W.bb == 0.0) { /* x = 0 exactly */
        info->reason = MIX_CG_ZERO_RHS, info->converged = 1;
        return ctx->ops->memset0(ctx->state, x, (size_t)A->n * sizeof(double));
    }
    if (!st) st = mixi_amg_get(A, &H, &t_build);
    W.target = prm->tol * sqrt(W.bb);
    if (!st && !(st = fp64_alloc(ctx, A->n, &W.x)) && !(st = fp64_alloc(ctx, A->n, &W.r64)) &&
        !(st = fp64_alloc(ctx, A->n, &W.u64)) && prm->x0_given)
        st = ctx->ops->copy(ctx->state, W.x, x, (size_t)A->n * sizeof(double));
    /* AUTO: the storage CG's rule picks for A (cg_auto.c), then level by level (amg_store.c);
     * the fine level's is the set's (H->auto_fine), not a second pick that may differ. */
    mix_prec prec = prm->sloppy_prec;
    /* A system too small for a sloppy stage to judge its storage runs in FP64, as without AMG. */
    if (prm->escalate && mixi_cg_n(A) < MIXI_CG_SLOPPY_MIN_N) prec = MIX_FP64;
    const mixi_amg_stored *S;
    if (!st) st = mixi_amg_stored_get(A, H, prec, &S);
    if (!st && prec == MIX_PREC_AUTO) prec = H->auto_fine;
    const double t1 = mixi_wtime();
    if (!st) st = amg_stages(&W, prm, H, prec, info);
    const int st2 = result(&W, prm, info, x);
    if (!st) st = st2;
    if (st && !info->stages) info->reason = MIX_CG_MAX_ITER; /* stopped before iterating: cg.c's */
    if (st == MIX_ERR_NOT_SPD) info->reason = MIX_CG_BREAKDOWN_NOT_SPD;
    if (st == MIX_ERR_NAN) info->reason = MIX_CG_BREAKDOWN_NAN;
    ctx->ops->free(ctx->state, W.x);
    ctx->ops->free(ctx->state, W.r64);
    ctx->ops->free(ctx->state, W.u64);
    ctx->ops->free(ctx->state, W.xbest);
    info->status = st;
    info->converged = st == MIX_SUCCESS;
    info->true_rel_residual = isfinite(W.bb) ? W.tn / sqrt(W.bb) : NAN;
    /* The set-up: the hierarchy when this solve built it, and the storage copies it made. */
    info->t_setup = t1 - t0;
    info->t_solve = mixi_wtime() - t1;
    return st;
}
