/* cg.c: reliable-update mixed-precision CG (QUDA's method), written once over ctx->ops->sparse. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "solvers/cg/cg_impl.h"
#include "solvers/amg/amg.h"

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
/* The spectrum of the sloppy matrix is estimated from the Lanczos matrix of the stage's steps
 * at CG_LANCZOS_FIRST rows and each power of two after it, then every CG_LANCZOS_EVERY rows
 * (solvers/cg/cg_lanczos.c).  Early estimates are safe to act on: Ritz values lie inside the
 * spectrum, so the kappa of 8 rows is below the true one and the lambda_min above it, and a
 * hand-over they ask for the later ones would ask for too, 24 iterations later (each a loss:
 * the next stage restarts, bcsstk03 with Jacobi: FP32 33 then FP64 137 against FP64's 154). */
#define CG_LANCZOS_FIRST 8
#define CG_LANCZOS_EVERY 32
/* A storage hands over to a wider one when its measured error eta (solvers/cg/cg_storage.c) is
 * above this fraction of the smallest eigenvalue found: eta / lambda_min is kappa times the
 * storage's relative error, how far the sloppy system's solution is from the true one. */
#define CG_EPS_MAX 0.02
/* The budget rule measures the convergence rate over at least this many iterations. */
#define CG_RATE_MIN_ITER 20
/* ... and hands over only when it would overrun the budget left by this factor: the FP64
 * stage restarts from x without the Krylov space and needs about what the stage still needs,
 * so only a stage that much slower gains by it (2D Poisson 256^2, Jacobi, FIXED16 with
 * max_iter 1.2x FP64's 526: handed over at 192 and ran out; goes on, 617). */
#define CG_BUDGET_MISS 2.0
/* FP64's attainable accuracy: a stage in FP64 that cannot hand over stops (STAGNATED) once its
 * true residual has not halved (CG_FLOOR_GAIN) over CG_FLOOR_UPDATES reliable updates at which
 * the iterated one claimed a drop by CG_FLOOR_CLAIM or more, and lies below eps (||b|| + ||A||
 * ||y||), the rounding of an FP64 y and of b - A y (solvers/dense/refine.c,
 * fp64_residual_noise).  With tol below that floor it ran on to max_iter instead (1138_bus,
 * tol 3e-16: 11380 iterations, stuck at 6e-11 from 4023 on).  The floor is normwise, an upper
 * bound: stencils stagnate at 0.03-0.16 of it, structural matrices far lower (bcsstk16: 1e-7 of
 * it, |A| |x| << ||A|| ||x||), so the window of non-improving updates is what decides there; a
 * converging FP64 stage halves its true residual at nearly every update (delta = 0.1). */
#define CG_FLOOR_UPDATES 4
#define CG_FLOOR_GAIN 0.5
#define CG_FLOOR_CLAIM 0.25
#define CG_FLOOR_FACTOR 1.0

typedef struct {
    mix_context *ctx;
    mixi_svec r, p, ap, xs; /* sloppy residual, direction, A p, partial solution (FP32 when the
                            * sloppy precision is 16-bit: kernels/backend_sparse.h, cg_update) */
} cg_work;

static int svec_copy(mix_context *ctx, mixi_svec *dst, const mixi_svec *src)
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
static double normaliser(double vv, double n)
{
    double rms = sqrt(vv / n);
    if (!(rms > 0.0) || !isfinite(rms)) return 1.0;
    int e;
    frexp(rms, &e);
    return ldexp(1.0, 1 - e - 6);
}

/* The sloppy residual's scale sigma for a vector whose squared norm is vv at the current sigma.
 * A narrow exponent (FP16): always renormalised (above).  FP32, BF16, FIXED16: only when its RMS leaves
 * [2^-32, 2^32], where r, p or A p would soon underflow or overflow FP32's exponent range (a
 * system near the edges of the FP64 range, or one whose residual has fallen a long way);
 * scaling by a power of two is exact, so the iterates are otherwise unchanged.  FP64: never. */
static double range_sigma(mix_prec prec, double vv, double sigma, double n)
{
    if (prec == MIX_FP64) return sigma;
    double rms = sqrt(vv / n);
    if (!mixk_prec_narrow_exp(prec) && rms >= 0x1p-32 && rms <= 0x1p32) return sigma;
    double f = normaliser(vv, n);
    return f == 1.0 ? sigma : sigma * f;
}

/* A narrow exponent (FP16): ||r||^2 of the stored sloppy r, not of the FP64 values it was rounded from.  An FP16 r
 * of wide dynamic range loses its small entries to underflow, and with the FP64 norm alpha =
 * rr / p'Ap then overshoots and the sloppy loop stalls (diagonal matrix with an FP32 partial
 * solution: 2796 iterations instead of 4; bcsstk16 with Jacobi: 582 instead of 326).  The other
 * formats keep the FP64 norm: for FIXED16 the stored norm made bcsstk16 (Jacobi) take 5247
 * iterations instead of 303.  Once per reliable update. */
static int stored_rr(mix_context *ctx, const mix_sparse *A, const mixi_svec *r, double *rr)
{
    if (!mixk_prec_narrow_exp(r->prec)) return MIX_SUCCESS;
    const int st = ctx->ops->sparse->dot(ctx->state, r, r, rr);
    return st ? st : mixi_cg_sum(A, rr, 1);
}

/* The sloppy residual r from r64 and its squared norm, summed over the ranks. */
static int residual_from64(mix_context *ctx, const mix_sparse *A, const double *r64,
                           const double *S, double sigma, mixi_svec *r, double *rr)
{
    const int st = ctx->ops->sparse->vec_from64(ctx->state, r64, S, sigma, r, rr);
    return st ? st : mixi_cg_sum(A, rr, 1);
}

/* p'Ap of the direction S p with the FP64 matrix (temporaries: only on a breakdown). */
static int true_pap(mix_context *ctx, mix_sparse *A, const mixi_svec *p, const double *S,
                    double *pap)
{
    const mixi_backend_ops *ops = ctx->ops;
    const size_t bytes = (size_t)A->n * sizeof(double);
    mixi_svec p64 = {MIX_FP64, A->n, NULL, NULL}, ap64 = {MIX_FP64, A->n, NULL, NULL};
    int st = ops->alloc(ctx->state, &p64.val, bytes);
    if (!st) st = ops->alloc(ctx->state, &ap64.val, bytes);
    if (!st) st = ops->memset0(ctx->state, p64.val, bytes);
    if (!st) st = ops->sparse->vec_accum64(ctx->state, p, S, 1.0, p64.val);
    if (!st && !A->dist) st = ops->sparse->spmv(ctx->state, A->a64, &p64, &ap64, pap);
    if (A->dist) {
        /* A rank that failed still exchanges its halo (zeros), and its status travels in the sum. */
        const int st2 = mixi_cg_apply64(A, st ? NULL : p64.val, st ? NULL : ap64.val);
        if (!st) st = st2;
        if (!st) st = ops->sparse->dot(ctx->state, &p64, &ap64, pap);
    }
    ops->free(ctx->state, p64.val);
    ops->free(ctx->state, ap64.val);
    if (!A->dist) return st;
    double v[2] = {st ? 0.0 : *pap, st};
    const int s = mixi_cg_sum(A, v, 2);
    if (s) return s;
    if (v[1] != 0.0) return mixi_cg_agree(A, st);
    *pap = v[0];
    return MIX_SUCCESS;
}

/* 0 makes the sloppy loop take the unfused cg_update and axpby (tests: same bits). */
static int cg_fused = 1;
void mixi_cg_set_fused(int on) { cg_fused = on; }

/* One stage's loop state: the FP64 solution y and residual r64, the sloppy vectors, the norms
 * the update rules compare, and what the stage reports. */
typedef struct {
    mix_context *ctx;
    const mixi_sparse_ops *sp;
    const mix_cg_params *prm;
    mix_sparse *A;
    const double *b;
    double *x;              /* the best y seen (by true residual) */
    mix_prec prec, vprec;   /* storage of the matrix; of r, p and A p */
    const mixi_spmat *As;    /* the sloppy matrix */
    const double *S;        /* Jacobi scaling or NULL */
    cg_work w;
    mixi_cg_halo h;         /* distributed A: the off-process block and its vectors */
    double *y, *r64;
    double bnorm;           /* ||b|| */
    double target, best;    /* tol ||b||; true residual of x */
    double tnorm;           /* true ||r|| at the last update */
    double sigma, rr;       /* scale of the sloppy system; ||r_sloppy||^2 */
    double rnorm, r0norm, maxrr;
    int iter, updates, reason, converged;
    int res_inc, res_inc_total, weak, may_escalate;
    mixi_lanczos T;         /* of the stage's steps */
    double alpha;           /* of the last step */
    double lmin, lmax;      /* extreme eigenvalues of the sloppy matrix found so far (0: none) */
    double eta;             /* the storage's error (< 0: not measured yet) */
    int checked_k;          /* rows of T at the last spectrum check */
    int hand_over;          /* the spectrum asks for a wider storage at the next update */
    int to_fp64;            /* the budget rule stopped the stage: FP64 next, no FP32 between */
    int fused;              /* the backend's two-pass step is used (cg_rupdate, cg_xpupdate) */
    int x_pending;          /* fused: xs += alpha p is still owed (done with p's update) */
    int iter_left;          /* of the caller's budget, all stages, when the stage began */
    int anc_iter;           /* the budget rule's recent anchor: iteration, true residual */
    double anc_tn, tn0;     /* ... and the stage's first true residual */
    double flo_ref;         /* the floor rule's reference true residual ... */
    int flo_n;              /* ... the updates since it was set without halving it, */
    int flo_walk, flo_iter; /* ... those that claimed only convergence, and its iteration */
} cg_loop;

/* What the loop does after a step or an update. */
enum { CG_NEXT, CG_STOP, CG_BREAKDOWN };

/* y = x, r64 = b - A y, best and tnorm; *bb = ||b||^2.  Sets *done when no iteration is needed
 * (zero right-hand side, x0 already converged) or possible (NaN/Inf). */
static int stage_start(cg_loop *L, int x0_given, double *bb, int *done)
{
    const mixi_backend_ops *ops = L->ctx->ops;
    const size_t bytes64 = (size_t)L->A->n * sizeof(double);
    *done = 1;
    /* From here on x always holds the best answer known (x0, or 0 when none was given). */
    int st = x0_given ? MIX_SUCCESS : ops->memset0(L->ctx->state, L->x, bytes64);
    if (!st) st = L->sp->nrm2sq64(L->ctx->state, L->A->n, L->b, bb);
    if (!st) st = mixi_cg_sum(L->A, bb, 1);
    if (st) return st;
    if (!isfinite(*bb)) {
        L->reason = MIX_CG_BREAKDOWN_NAN;
        return MIX_ERR_NAN;
    }
    if (*bb == 0.0) { /* the exact answer, whatever x0 was */
        L->reason = MIX_CG_ZERO_RHS;
        L->best = 0.0;
        L->converged = 1;
        return ops->memset0(L->ctx->state, L->x, bytes64);
    }
    const double bnorm = L->bnorm = sqrt(*bb);
    L->target = L->prm->tol * bnorm;
    /* Until the true residual of x is known, x = 0 has residual ||b|| (x0 is measured below). */
    if (!x0_given) L->best = bnorm;
    /* Measured before the sloppy setup, so that a stop there (Jacobi on a non-positive
     * diagonal, overflow) still reports the true residual of the x returned. */
    double rr_true;
    if (!(st = ops->alloc(L->ctx->state, (void **)&L->y, bytes64)) &&
        !(st = ops->alloc(L->ctx->state, (void **)&L->r64, bytes64)))
        st = ops->copy(L->ctx->state, L->y, L->x, bytes64);
    if ((st = mixi_cg_agree(L->A, st))) return st; /* no rank goes on alone */
    if ((st = mixi_cg_residual64(L->A, L->b, L->y, L->r64, &rr_true))) return st;
    if (!isfinite(rr_true)) {
        L->best = INFINITY;
        L->reason = MIX_CG_BREAKDOWN_NAN;
        return MIX_ERR_NAN;
    }
    L->best = L->tnorm = sqrt(rr_true);
    if (L->tnorm <= L->target) {
        L->reason = MIX_CG_CONVERGED;
        L->converged = 1;
        return MIX_SUCCESS;
    }
    *done = 0;
    return MIX_SUCCESS;
}

/* The sloppy matrix and vectors, and the first sloppy residual from r64.  The sloppy loop
 * solves (S A S) xs = sigma S r for the correction y += S xs / sigma. */
static int sloppy_setup(cg_loop *L)
{
    mix_context *ctx = L->ctx;
    const int n = L->A->n;
    int st = mixi_sparse_sloppy(L->A, L->prec, L->prm->precond == MIX_PRECOND_JACOBI, &L->As, &L->S);
    st = mixi_cg_agree(L->A, st); /* a non-positive a_ii on one rank stops them all */
    if (st == MIX_ERR_NOT_SPD) L->reason = MIX_CG_BREAKDOWN_NOT_SPD;
    if (st == MIX_ERR_OVERFLOW) L->reason = MIX_CG_STORAGE_OVERFLOW;
    if (st) return st;
    /* Vectors in the accumulator over a 16-bit matrix (where the backend's spmv takes them):
     * rounding r, p and A p to 16 bits cost FIXED16 42% more iterations than FP64 CG on 3D
     * Poisson 120^3 with b = A 1 (471 against 332; FP32 vectors: 358) and more time. */
    L->vprec = mixi_cg_vector_prec(ctx, L->prm->narrow_vectors, L->prec);
    if (!(st = mixi_cg_svec_alloc(ctx, L->vprec, n, &L->w.r)) &&
        !(st = mixi_cg_svec_alloc(ctx, L->vprec, n, &L->w.p)) &&
        !(st = mixi_cg_svec_alloc(ctx, L->vprec, n, &L->w.ap)))
        /* A 16-bit xs loses the small late steps (3D Poisson, FP16: far more iterations); in
         * FP32 every 16-bit storage needs the FP64 iteration count, for 2 more bytes per entry. */
        st = mixi_cg_svec_alloc(ctx, mixk_prec_acc(L->prec), n, &L->w.xs);
    if ((st = mixi_cg_agree(L->A, st))) return st;
    st = mixi_cg_halo_setup(L->A, L->prec, L->prm->precond == MIX_PRECOND_JACOBI, L->S, L->vprec,
                            &L->As, &L->h);
    if (st == MIX_ERR_OVERFLOW) L->reason = MIX_CG_STORAGE_OVERFLOW;
    if (st) return st;
    L->fused = cg_fused && L->sp->cg_rupdate && L->sp->cg_xpupdate && L->w.xs.prec == L->vprec;
    L->sigma = 1.0;
    if ((st = residual_from64(ctx, L->A, L->r64, L->S, L->sigma, &L->w.r, &L->rr))) return st;
    const double sigma = range_sigma(L->vprec, L->rr, L->sigma, mixi_cg_n(L->A));
    if (sigma != L->sigma) {
        L->sigma = sigma;
        if ((st = residual_from64(ctx, L->A, L->r64, L->S, L->sigma, &L->w.r, &L->rr))) return st;
    }
    if ((st = stored_rr(ctx, L->A, &L->w.r, &L->rr))) return st;
    if ((st = svec_copy(ctx, &L->w.p, &L->w.r))) return st;
    if ((st = L->sp->vec_zero(ctx->state, &L->w.xs))) return st;
    L->rnorm = L->r0norm = L->maxrr = sqrt(L->rr);
    L->may_escalate = L->prm->escalate && L->prec != MIX_FP64;
    L->anc_tn = L->tn0 = L->flo_ref = L->tnorm;
    L->flo_iter = L->iter;
    return MIX_SUCCESS;
}

/* After the storage overflowed (b, x0 and A are finite: checked), drop xs and restart from y
 * (r64 still holds b - A y). */
static int sloppy_restart(cg_loop *L)
{
    mix_context *ctx = L->ctx;
    int st = L->sp->vec_zero(ctx->state, &L->w.xs);
    if (!st) st = residual_from64(ctx, L->A, L->r64, L->S, L->sigma, &L->w.r, &L->rr);
    if (!st) st = stored_rr(ctx, L->A, &L->w.r, &L->rr);
    if (!st) st = svec_copy(ctx, &L->w.p, &L->w.r);
    L->rnorm = L->r0norm = L->maxrr = sqrt(L->rr);
    L->T.beta_prev = 0.0; /* p = r: a new Lanczos block */
    return st;
}

/* One sloppy CG step: A p, alpha, x and r updated; *rr_new = ||r||^2, *rdot = <r_new, r_old>.
 * *act = CG_BREAKDOWN when the storage overflowed or p underflowed to zero; a non-SPD p'Ap
 * stops the stage (the returned status and L->reason say whether A or its rounding is). */
static int sloppy_step(cg_loop *L, double *rr_new, double *rdot, int *act)
{
    void *state = L->ctx->state;
    double pap;
    int st = mixi_cg_spmv(L->A, &L->h, L->As, &L->w.p, &L->w.ap, &pap);
    *act = CG_BREAKDOWN;
    if (st || isnan(pap) || isinf(pap)) return st;
    if (pap <= 0.0) {
        /* A direction that is exactly zero in its storage (it underflowed) says nothing about
         * A: restart from the true residual instead of calling A indefinite. */
        double pp;
        if ((st = L->sp->dot(state, &L->w.p, &L->w.p, &pp)) || (st = mixi_cg_sum(L->A, &pp, 1)))
            return st;
        if (!(pp > 0.0)) return MIX_SUCCESS;
        /* Not SPD, either A itself or only its rounded copy: p'Ap in FP64 tells which. */
        if ((st = true_pap(L->ctx, L->A, &L->w.p, L->S, &pap))) return st;
        *act = CG_STOP;
        if (pap <= 0.0 || L->prec == MIX_FP64) {
            L->reason = MIX_CG_BREAKDOWN_NOT_SPD;
            return MIX_ERR_NOT_SPD;
        }
        L->reason = MIX_CG_STAGNATED; /* the storage precision is too coarse for A */
        return MIX_ERR_NOT_CONVERGED;
    }
    L->alpha = L->rr / pap;
    st = L->fused ? L->sp->cg_rupdate(state, L->alpha, &L->w.ap, &L->w.r, rr_new, rdot)
                  : MIX_ERR_UNSUPPORTED;
    if (st == MIX_ERR_UNSUPPORTED) { /* vectors the fused passes do not take */
        L->fused = 0;
        st = L->sp->cg_update(state, L->alpha, &L->w.p, &L->w.ap, &L->w.xs, &L->w.r, rr_new, rdot);
    }
    if (st) return st;
    if (L->A->dist) { /* the step's two dots in one reduction */
        double v[2] = {*rr_new, *rdot};
        if ((st = mixi_cg_sum(L->A, v, 2))) return st;
        *rr_new = v[0];
        *rdot = v[1];
    }
    L->x_pending = L->fused;
    L->iter++;
    *act = isfinite(*rr_new) && isfinite(*rdot) ? CG_NEXT : CG_BREAKDOWN;
    return MIX_SUCCESS;
}

/* The fused form: xs += alpha p where the step left it owed (before xs or p are used
 * otherwise); alpha p + 1 xs rounds as xs + alpha p. */
static int settle_x(cg_loop *L)
{
    if (!L->x_pending) return MIX_SUCCESS;
    L->x_pending = 0;
    return L->sp->axpby(L->ctx->state, L->alpha, &L->w.p, 1.0, &L->w.xs);
}

/* p = r + beta p, with the owed x update in the same pass where the step was fused. */
static int next_direction(cg_loop *L, double beta)
{
    if (!L->x_pending) return L->sp->axpby(L->ctx->state, 1.0, &L->w.r, beta, &L->w.p);
    L->x_pending = 0;
    return L->sp->cg_xpupdate(L->ctx->state, L->alpha, beta, &L->w.p, &L->w.r, &L->w.xs);
}

/* After each step: the step's alpha and the next direction's beta extend the Lanczos matrix;
 * at the rows CG_LANCZOS_FIRST and CG_LANCZOS_EVERY set, its extreme eigenvalues refine
 * [lmin, lmax] (Ritz values lie in the spectrum, so the widest interval seen is the best).  A stage that may escalate then weighs
 * its storage error against lmin: eta / lmin (kappa times the relative error of the stored A)
 * above CG_EPS_MAX hands over at the next update (FP16 on the Jacobi-scaled 3D Poisson stencil:
 * 0.07 at 60^3, 503 iterations alone, 225 handed over to FP32 after 33). */
static int spectrum_step(cg_loop *L, double beta)
{
    mixi_lanczos_push(&L->T, L->alpha, beta);
    const int k = L->T.k;
    const int due = k < CG_LANCZOS_EVERY ? !(k & (k - 1)) : k % CG_LANCZOS_EVERY == 0;
    if (k == L->checked_k || k < CG_LANCZOS_FIRST || !due) return MIX_SUCCESS;
    L->checked_k = k;
    double lo, hi;
    if (!mixi_lanczos_extremes(&L->T, &lo, &hi)) return MIX_SUCCESS;
    if (!(L->lmin > 0.0) || lo < L->lmin) L->lmin = lo;
    if (hi > L->lmax) L->lmax = hi;
    if (!L->may_escalate) return MIX_SUCCESS;
    if (L->eta < 0.0) {
        int st = mixi_cg_storage_error(L->A, L->prec, L->prm->precond == MIX_PRECOND_JACOBI,
                                       &L->eta);
        if (st) return st;
    }
    if (L->eta > CG_EPS_MAX * L->lmin) L->hand_over = 1;
    /* kappa whose CG bound exceeds n: the sloppy storage would crawl to its stage window and
     * then FP32 after it (1138_bus, FP32: 1138 iterations, then FP64 625; FP64 alone 1002), so
     * FP64 takes over now (solvers/cg/cg_lanczos.c, mixi_cg_iter_bound). */
    if (mixi_cg_iter_bound(L->lmax / L->lmin, L->prm->tol) > mixi_cg_n(L->A))
        L->hand_over = L->to_fp64 = 1;
    return MIX_SUCCESS;
}

/* Iterations still needed to reach the target from tn at the geometric rate seen since
 * (it0, tn0); infinite without progress. */
static double iters_to_go(const cg_loop *L, double tn, int it0, double tn0)
{
    const double rate = log(tn / tn0) / (L->iter - it0);
    return rate < 0.0 ? log(L->target / tn) / rate : INFINITY;
}

/* The budget rule: a stage that may escalate and, at the rate it has kept since it began and
 * at its recent rate (since an anchor moved forward each time the stage doubles), would both
 * need more than CG_BUDGET_MISS times the iterations the caller's budget has left hands over
 * now, while a wider storage may still finish within it (a structural matrix whose 16-bit
 * stages crawled steadily into the 20000-iteration limit where FP64 needed 17369). */
static int over_budget(cg_loop *L, double tn)
{
    if (!L->may_escalate || L->iter - L->anc_iter < CG_RATE_MIN_ITER) return 0;
    const double left = (double)L->iter_left - L->iter;
    const int slow = iters_to_go(L, tn, 0, L->tn0) > CG_BUDGET_MISS * left &&
                     iters_to_go(L, tn, L->anc_iter, L->anc_tn) > CG_BUDGET_MISS * left;
    if (L->iter >= 2 * L->anc_iter + CG_RATE_MIN_ITER) {
        L->anc_iter = L->iter;
        L->anc_tn = tn;
    }
    return slow;
}

/* Whether the true residual tn at this update says the storage has reached its floor: a rise
 * while the iterated residual claimed a drop by delta from the last true one (QUDA's updateX;
 * CG's ordinary non-monotone residual does not count), or too little progress where a wider
 * storage can take over (CG_MAX_WEAK_UPDATES). */
static int stalls(cg_loop *L, double tn, int claimed_drop)
{
    if (tn > L->tnorm && claimed_drop) {
        L->res_inc++;
        L->res_inc_total++;
        if (L->res_inc > CG_MAX_RES_INCREASE || L->res_inc_total > CG_MAX_RES_INCREASE_TOTAL)
            return 1;
    } else {
        L->res_inc = 0;
    }
    L->weak = tn > CG_WEAK_DROP * L->tnorm ? L->weak + 1 : 0;
    return L->may_escalate && L->weak >= CG_MAX_WEAK_UPDATES;
}

/* Whether a stage that cannot hand over has reached FP64's floor (CG_FLOOR_UPDATES; claimed:
 * the iterated residual fell at least 4x since the last update, so a true one that did not
 * halve is the rounding's, not a slow phase of CG; walked: it claimed only to meet the target,
 * as every update does where the target lies within 4x below the floor's walk; those count
 * once the walk has lasted as long as the stage before it: a walk may still dip below such a
 * target (1138_bus, Jacobi, tol 1e-14: 1835 steps), and without them the stage ran to
 * max_iter with an update at nearly every step, 2-D Poisson 70^2 at 1e-14: 49000).  ||A|| is
 * bounded by the largest Ritz value of the matrix iterated on (S A S, S = D^-1/2 with Jacobi:
 * times max a_ii <= amax); all of it comes from global reductions, so every rank decides
 * alike. */
static int at_floor(cg_loop *L, double tn, int claimed, int walked, int *stop)
{
    *stop = 0;
    if (L->may_escalate || L->prec != MIX_FP64) return MIX_SUCCESS;
    if (tn <= CG_FLOOR_GAIN * L->flo_ref) {
        L->flo_ref = tn;
        L->flo_n = L->flo_walk = 0;
        L->flo_iter = L->iter;
        return MIX_SUCCESS;
    }
    const int walk = !claimed && walked && ++L->flo_walk >= CG_FLOOR_UPDATES &&
                     L->iter >= 2 * L->flo_iter;
    if (!(claimed && ++L->flo_n >= CG_FLOOR_UPDATES) && !walk) return MIX_SUCCESS;
    if (!(L->lmax > 0.0)) return MIX_SUCCESS;
    double yy;
    int st = L->sp->nrm2sq64(L->ctx->state, L->A->n, L->y, &yy);
    if (!st) st = mixi_cg_sum(L->A, &yy, 1);
    if (st) return st;
    const double anorm = L->S ? L->lmax * L->A->amax : L->lmax;
    *stop = tn <= CG_FLOOR_FACTOR * DBL_EPSILON * (L->bnorm + anorm * sqrt(yy));
    return MIX_SUCCESS;
}

/* New sloppy residual from r64 (renormalised for FP16); p rescaled to the new units,
 * re-projected against r and extended with the Fletcher-Reeves beta ||r_true||^2 / ||r_old||^2,
 * r_old being the residual p was built from, as QUDA does at an update.  (Dividing by the
 * iterated ||r_new||^2 instead gave beta ~ 1 and cost FP64 CG 33% more iterations than
 * textbook CG: 562 against 423 on 3D Poisson 100^3.) */
static int reproject(cg_loop *L, double rr_new)
{
    void *state = L->ctx->state;
    double rr_s, rp;
    int st = residual_from64(L->ctx, L->A, L->r64, L->S, L->sigma, &L->w.r, &rr_s);
    if (st) return st;
    const double sigma_new = range_sigma(L->vprec, rr_s, L->sigma, mixi_cg_n(L->A));
    if (sigma_new != L->sigma &&
        (st = residual_from64(L->ctx, L->A, L->r64, L->S, sigma_new, &L->w.r, &rr_s)))
        return st;
    if ((st = stored_rr(L->ctx, L->A, &L->w.r, &rr_s))) return st;
    const double ratio = sigma_new / L->sigma;
    if ((st = L->sp->dot(state, &L->w.r, &L->w.p, &rp)) || (st = mixi_cg_sum(L->A, &rp, 1)))
        return st;
    const double c = ratio * rp / rr_s;
    /* When the true residual is well above the iterated one (more than 2x; or the sloppy one is
     * exactly zero, e.g. A diagonal), the old direction belongs to a residual that was not the
     * real one and beta would blow it up: restart with p = r. */
    const double rr_it = rr_new * ratio * ratio;
    const double beta = rr_s <= 4.0 * rr_it ? rr_s / (L->rr * ratio * ratio) : 0.0;
    /* p <- r + beta (ratio p - c r) */
    if ((st = L->sp->axpby(state, 1.0 - beta * c, &L->w.r, beta * ratio, &L->w.p))) return st;
    if ((st = spectrum_step(L, beta))) return st;
    L->sigma = sigma_new;
    L->rr = rr_s;
    L->rnorm = L->r0norm = L->maxrr = sqrt(rr_s);
    return MIX_SUCCESS;
}

/* Reliable update: fold xs into y, recompute r = b - A y in FP64, keep the best y in x, decide
 * (*act) whether to go on, stop (converged, stalled, out of iterations) or restart. */
static int reliable_update(cg_loop *L, double rr_new, int max_iter, int *act)
{
    mix_context *ctx = L->ctx;
    const size_t bytes64 = (size_t)L->A->n * sizeof(double);
    const int claimed_drop = L->rnorm < L->prm->delta * L->r0norm;
    /* The floor's claims (at_floor): a 4x drop, or only to meet the target. */
    const int claimed = L->rnorm <= CG_FLOOR_CLAIM * L->r0norm;
    const int walked = L->rnorm / L->r0norm * L->tnorm <= L->target;
    double rr_true;
    int st = L->sp->vec_accum64(ctx->state, &L->w.xs, L->S, 1.0 / L->sigma, L->y);
    if (!st) st = L->sp->vec_zero(ctx->state, &L->w.xs);
    if (!st) st = mixi_cg_residual64(L->A, L->b, L->y, L->r64, &rr_true);
    if (st) return st;
    L->updates++;
    if (!isfinite(rr_true)) {
        /* xs overflowed its storage: go back to the best y, whose residual is finite. */
        *act = CG_BREAKDOWN;
        st = ctx->ops->copy(ctx->state, L->y, L->x, bytes64);
        return st ? st : mixi_cg_residual64(L->A, L->b, L->y, L->r64, &rr_true);
    }
    const double tn = sqrt(rr_true);
    if (tn < L->best) {
        L->best = tn;
        if ((st = ctx->ops->copy(ctx->state, L->x, L->y, bytes64))) return st;
    }
    *act = CG_STOP;
    if (tn <= L->target) {
        L->reason = MIX_CG_CONVERGED;
        L->converged = 1;
        return MIX_SUCCESS;
    }
    int floor;
    if ((st = at_floor(L, tn, claimed, walked, &floor))) return st;
    if (floor || stalls(L, tn, claimed_drop) || L->hand_over ||
        (L->to_fp64 = over_budget(L, tn))) {
        L->reason = MIX_CG_STAGNATED;
        return MIX_SUCCESS;
    }
    L->tnorm = tn;
    if (L->iter == max_iter) return MIX_SUCCESS;
    *act = CG_NEXT;
    return reproject(L, rr_new);
}

/* After a step that went through: p = r + beta p and on, or a reliable update (when the
 * iterated residual has fallen by delta, seems to have reached the target, the spectrum asks
 * for a hand-over, or the iterations are spent), whose *act then says what follows. */
static int after_step(cg_loop *L, double rr_new, double rdot, int max_iter, int *act)
{
    const double delta = L->prm->delta;
    int st;
    L->rnorm = sqrt(rr_new);
    if (L->rnorm > L->maxrr) L->maxrr = L->rnorm;
    /* The iterated residual relative to the last true one estimates the true one. */
    const int near_done = L->rnorm / L->r0norm * L->tnorm <= L->target;
    const int update = L->rnorm < delta * L->maxrr || L->rnorm < delta * L->r0norm || L->hand_over;
    if (!(update || near_done || L->iter == max_iter)) {
        /* Polak-Ribiere; Fletcher-Reeves when its numerator is negative. */
        const double num = rr_new - rdot;
        const double beta = (num > 0.0 ? num : rr_new) / L->rr;
        if ((st = next_direction(L, beta))) return st;
        L->rr = rr_new;
        return spectrum_step(L, beta);
    }
    if ((st = settle_x(L))) return st;
    return reliable_update(L, rr_new, max_iter, act);
}

/* The sloppy loop of a stage set up by sloppy_setup, to at most max_iter iterations. */
static int stage_loop(cg_loop *L, int max_iter)
{
    int st;
    while (L->iter < max_iter) {
        double rr_new, rdot;
        int act;
        if ((st = sloppy_step(L, &rr_new, &rdot, &act))) return st;
        if (act == CG_NEXT && (st = after_step(L, rr_new, rdot, max_iter, &act))) return st;
        if (act == CG_STOP) break;
        if (act == CG_BREAKDOWN) {
            L->x_pending = 0; /* xs is dropped below */
            /* Only the storage precision overflowed: one more residual rise, then restart. */
            if (++L->res_inc_total > CG_MAX_RES_INCREASE_TOTAL) {
                L->reason = MIX_CG_STAGNATED;
                break;
            }
            if ((st = sloppy_restart(L))) return st;
        }
    }
    return L->converged ? MIX_SUCCESS : MIX_ERR_NOT_CONVERGED;
}

/* Whether the backend has every sparse operation the loop calls. */
static int has_sparse_ops(const mixi_sparse_ops *sp)
{
    return sp && sp->residual64 && sp->nrm2sq64 && sp->vec_from64 && sp->vec_accum64 &&
           sp->vec_zero && sp->spmv && sp->cg_update && sp->axpby && sp->dot;
}

/* The stage's report (status st; ||b||^2 = bb; setup from t0 to t1, then the loop to now, or
 * all of it setup when it stopped before looping) in info and *to_fp64; its memory freed. */
static void stage_finish(cg_loop *L, int st, double bb, double t0, double t1, int looped,
                         mix_cg_info *info, int *to_fp64)
{
    mix_context *ctx = L->ctx;
    info->status = st;
    info->iter = L->iter;
    info->reliable_updates = L->updates;
    info->converged = L->converged;
    info->reason = st == MIX_SUCCESS ? (L->reason == MIX_CG_ZERO_RHS ? MIX_CG_ZERO_RHS : MIX_CG_CONVERGED)
                                     : L->reason;
    /* x holds the best answer found, whatever stopped the iteration. */
    info->true_rel_residual = bb > 0.0 && isfinite(bb) ? L->best / sqrt(bb) : (bb == 0.0 ? 0.0 : NAN);
    const double t2 = mixi_wtime();
    if (!looped) t1 = t2;
    info->t_setup = t1 - t0;
    info->t_solve = t2 - t1;
    info->kappa = L->lmin > 0.0 ? L->lmax / L->lmin : 0.0;
    *to_fp64 = L->to_fp64;
    mixi_cg_svec_free(ctx, &L->w.r);
    mixi_cg_svec_free(ctx, &L->w.p);
    mixi_cg_svec_free(ctx, &L->w.ap);
    mixi_cg_svec_free(ctx, &L->w.xs);
    ctx->ops->free(ctx->state, L->y);
    ctx->ops->free(ctx->state, L->r64);
    mixi_cg_halo_free(L->A, &L->h);
}

/* One run of the reliable-update CG in storage `prec` from x (x0 when x0_given, else 0), at
 * most max_iter iterations; info->iter, reliable_updates, reason, converged, true_rel_residual,
 * t_setup and t_solve describe this run only. */
static int cg_stage(mix_context *ctx, const mix_cg_params *prm, mix_prec prec, int x0_given,
                    int max_iter, int iter_left, mix_sparse *A, const double *b, double *x,
                    mix_cg_info *info, int *to_fp64)
{
    double t0 = mixi_wtime(), t1 = t0, bb = 0.0;
    int st, done = 1, looped = 0;
    cg_loop L;
    memset(&L, 0, sizeof L);
    L.ctx = ctx, L.sp = ctx->ops->sparse, L.prm = prm, L.A = A, L.b = b, L.x = x, L.prec = prec;
    L.reason = MIX_CG_MAX_ITER;
    L.best = INFINITY;
    L.eta = -1.0;
    L.iter_left = iter_left;
    memset(info, 0, sizeof *info);
    st = has_sparse_ops(L.sp) ? stage_start(&L, x0_given, &bb, &done) : MIX_ERR_NOT_IMPLEMENTED;
    if (!st && !done && !(st = sloppy_setup(&L))) {
        t1 = mixi_wtime();
        looped = 1;
        st = stage_loop(&L, max_iter);
    }
    stage_finish(&L, st, bb, t0, t1, looped, info, to_fp64);
    /* 1: a storage was set up; 0: stopped before (b = 0, x0 converged, NaN): mixi_cg_solve
     * lists only the former, so that b = 0 reports no stage (mix_dcg(3)). */
    info->stages = !done;
    return st;
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

/* Whether a system runs in FP64 from the start when escalation is on: fewer rows than
 * MIXI_CG_SLOPPY_MIN_N, or
 * a diagonal A with Jacobi, which makes it the identity: FP64 CG ends in one step, a sloppy
 * storage needs two (the rounding of r) and its setup (bcsstm24, n = 3562: every sloppy storage
 * about 1.5x FP64's time in the main job).  A distributed A is never taken for diagonal (its
 * nnz is the local block's; deciding on it would split the ranks). */
static int fp64_from_start(const mix_cg_params *prm, const mix_sparse *A, double ng)
{
    if (!prm->escalate) return 0;
    return ng < MIXI_CG_SLOPPY_MIN_N ||
           (prm->precond == MIX_PRECOND_JACOBI && !A->dist && A->nnz == (int64_t)A->n);
}

/* The storage after a stage in prec stopped for want of precision: FP64 after FP32, after a
 * stage the budget rule stopped (to_fp64), or where the kappa estimated so far already puts
 * CG's bound above n (a storage between would crawl into the same hand-over later: 1138_bus
 * with Jacobi, BF16 17 iterations, FP32 97, FP64 988); else FP32. */
static mix_prec next_storage(const mix_cg_params *prm, mix_prec prec, int to_fp64, double kappa,
                             double n)
{
    if (prec == MIX_FP32 || to_fp64 || mixi_cg_iter_bound(kappa, prm->tol) > n) return MIX_FP64;
    return MIX_FP32;
}

/* MIX_PREC_AUTO's storage, and the seconds its choice took.  On a distributed matrix each rank
 * weighs its own block (its cache, its rates),
 * then all take the widest storage any rank chose, so that every rank runs the same stages. */
static mix_prec auto_prec(mix_sparse *A, int jacobi, double *seconds)
{
    const double t0 = mixi_wtime();
    const mix_prec mine = mixi_cg_auto_storage(A, jacobi);
    *seconds = mixi_wtime() - t0; /* the measurement is set-up (info.t_setup) */
    double bytes = mixk_prec_bytes(mine);
    if (!A->dist || mixi_cg_max(A, &bytes, 1)) return mine;
    return mixk_prec_cg_auto_of((int)bytes);
}

int mixi_cg_solve(mix_context *ctx, const mix_cg_params *prm, mix_sparse *A, const double *b,
                  double *x, mix_cg_info *info)
{
    if (prm->precond == MIX_PRECOND_AMG) return mixi_amg_solve(ctx, prm, A, b, x, info);
    /* The whole matrix's order: every rank sets the same budget and windows. */
    const double ng = mixi_cg_n(A);
    const int n = ng < 0x1p30 ? (int)ng : 1 << 30;
    const int budget = prm->max_iter > 0 ? prm->max_iter : (n > 100 ? (n < 0x0ccccccc ? 10 * n : 0x7fffffff) : 1000);
    double t_setup = 0.0, t_solve = 0.0, kappa = 0.0;
    /* FP64 from the start before AUTO: its measurement (solvers/cg/cg_rates.c) would be wasted. */
    mix_prec prec = fp64_from_start(prm, A, ng)           ? MIX_FP64
                    : prm->sloppy_prec == MIX_PREC_AUTO ? auto_prec(A, prm->precond == MIX_PRECOND_JACOBI, &t_setup)
                                                        : prm->sloppy_prec;
    int x0_given = prm->x0_given, iter = 0, updates = 0, st, to_fp64 = 0;
    mix_cg_info stage, total;
    memset(&total, 0, sizeof total);
    for (;;) {
        const int windowed = prm->escalate && prec != MIX_FP64 && stage_window(n) < budget - iter;
        st = cg_stage(ctx, prm, prec, x0_given, windowed ? stage_window(n) : budget - iter,
                      budget - iter, A, b, x, &stage, &to_fp64);
        if (stage.kappa > kappa) kappa = stage.kappa; /* more steps, a wider estimate */
        if (windowed && st == MIX_ERR_NOT_CONVERGED && stage.reason == MIX_CG_MAX_ITER)
            stage.reason = MIX_CG_STAGNATED; /* the window, not the caller's limit */
        iter += stage.iter;
        updates += stage.reliable_updates;
        t_setup += stage.t_setup;
        t_solve += stage.t_solve;
        if (stage.stages && total.stages < MIX_CG_MAX_STAGES) {
            total.stage_prec[total.stages] = prec;
            total.stage_iter[total.stages] = stage.iter;
            total.stage_reason[total.stages] = stage.reason;
            total.stages++;
        }
        /* FIXED16 / FP16 / BF16 -> FP32 -> FP64, each from the best FP64 x so far. */
        if (!prm->escalate || prec == MIX_FP64 || iter >= budget || !escalates(st, stage.reason))
            break;
        /* Each restart costs CG its Krylov space (carrying p over instead cost more: its
         * conjugacy belongs to the coarser matrix), so few stages, and FP64 as soon as due. */
        prec = next_storage(prm, prec, to_fp64, kappa, ng);
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
    info->kappa = kappa;
    if (A->dist) { /* the slowest rank's times, so that info is the same everywhere */
        double t[2] = {t_setup, t_solve};
        if (!mixi_cg_max(A, t, 2)) info->t_setup = t[0], info->t_solve = t[1];
    }
    return st;
}
