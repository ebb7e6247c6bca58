/* refine.c: FP64 iterative refinement over a preconditioner (classical, Krylov-IR, AUTO switching), each column on its own. */
#include <float.h>
#include <math.h>
#include "solvers/dense/dense.h"

/* AUTO: a column whose residual falls by less than this factor per classical step moves to
 * the Krylov inner solver (classical IR converges like (kappa u_f)^k; at 0.2 it would need ~20
 * steps). */
#define SWITCH_RATIO 0.2
/* A column gives up after this many consecutive steps that fail to shrink its residual by
 * STALL_RATIO (classical) or 2x (Krylov): it is not going to converge, fall back now (issue 32:
 * judged after 2-3 steps, not 30). */
#define STALL_STEPS 2
#define STALL_RATIO 0.9
#define KRYLOV_STALL_RATIO 0.5
/* Krylov inner solve: relative reduction of the residual asked of one outer step.  Measured for
 * GMRES (n = 1000, randsvd): 1e-6 takes 24 inner steps where 1e-10 takes 41 (BF16) for the same
 * outer iterations; 1e-4 saves little more and sometimes costs an outer iteration. */
#define KRYLOV_RTOL 1e-6
/* Stopping margin: a column stops once ||r|| falls below this fraction of LAPACK's bound, so
 * that the test still passes on a residual computed another way (another BLAS's summation
 * order: LAPACK's harness with OpenBLAS's dsymm read 1.577 where we read below sqrt(2), n = 2).
 * A column that cannot get there stalls and falls back, as LAPACK's dsposv does after ITERMAX.
 * Cost measured on the bundled matrices x LU/Cholesky x FP32/FP16/BF16: 203 runs converged
 * with and without it, 19 of them took one more outer iteration (801 against 782 in all);
 * 2 more fallbacks in 9000 draws of n <= 4 (tests/test_posv.c). */
#define MARGIN 0.5
/* The give-up rules (issue 32: the worst case of an attempt, fallback included, is bounded by
 * (1 + T_low/T64 + 0.1) T64, solvers/policy.c):
 * - divergence: a classical step that grows the residual ends the attempt, unless GMRES-IR on
 *   the same factors may rescue it (refine AUTO, a growth below RESCUE_LIMIT);
 * - stagnation: STALL_STEPS steps without progress;
 * - rate: the contraction of the last correction predicts that the column cannot reach the
 *   stopping test within max_iter, or within the time budget (mixi_refine_budget); a Krylov
 *   correction that did not halve the residual gives no rate (the stall rule's);
 * - evidence: until every column converges at a rate that predicts success, the refinement
 *   may spend only the bound's slack (the fail budget); Krylov cycles stop at the same
 *   deadline, so a rescue that shows nothing costs no more (issue 20: a forced BF16 dgesv whose
 *   GMRES stagnated without stalling cost 15x dgesv). */

enum { MODE_CLASSICAL, MODE_KRYLOV };

/* What one round of residuals decided. */
enum { GO_ON, STOP_CONVERGED, STOP_NAN, STOP_GIVE_UP, STOP_TOO_SLOW };

/* Per-column bookkeeping (infinity norms). */
typedef struct {
    double *rn, *xn, *bn, *prev; /* ||r_j||, ||x_j||, ||b_j||, ||r_j|| of the previous round */
    double *ratio;              /* assess's scratch: rn / prev of this round */
    double *rn0, *xn0;          /* ||r_j||, ||x_j|| of the first solve (round 0) */
    int *active, *mode, *stall;
    int *last_mode;             /* mode of the correction that led to this round's residual */
    int *acc;                   /* 1: the column's residuals are the accurate ones (recheck) */
    double cte;                 /* column j has converged when rn[j] <= xn[j] * cte */
    double t_round;             /* wall clock when the previous round's residuals were judged */
    double t_resid;             /* seconds the last round's residuals took */
    double deadline;            /* wall clock by which the refinement must be over; 0 = none */
    double evidence;            /* wall clock by which every column must converge steadily */
} columns;

/* The wall clock, read only where a deadline needs it (else 0): at n = 20 each read costs about
 * 20 ns in the KVM guest's vDSO, and a refinement without budgets made 10 of them (issue 32
 * round 4: 6% of a mix_dsgesv call). */
static double clock_if_timed(const columns *c)
{
    return c->deadline > 0.0 || c->evidence > 0.0 ? mixi_wtime() : 0.0;
}

#define COL(ptr, ld, j) ((ptr) + (size_t)(j) * (size_t)(ld))

static int columns_alloc(columns *c, int nrhs)
{
    c->rn = mixi_malloc_n((size_t)nrhs * 7, sizeof(double));
    c->active = mixi_malloc_n((size_t)nrhs * 5, sizeof(int));
    if (!c->rn || !c->active) return MIX_ERR_ALLOC;
    c->xn = c->rn + nrhs;
    c->bn = c->xn + nrhs;
    c->prev = c->bn + nrhs;
    c->ratio = c->prev + nrhs;
    c->rn0 = c->ratio + nrhs;
    c->xn0 = c->rn0 + nrhs;
    c->mode = c->active + nrhs;
    c->stall = c->mode + nrhs;
    c->last_mode = c->stall + nrhs;
    c->acc = c->last_mode + nrhs;
    return MIX_SUCCESS;
}

static void columns_free(columns *c)
{
    mixi_free(c->rn);
    mixi_free(c->active);
}

/* Column j takes part: active, and in `mode` unless mode is ANY_MODE; FP64_RESIDUAL: active
 * and not on accurate residuals. */
enum { ANY_MODE = -1, FP64_RESIDUAL = -2 };
static int selected(const columns *c, int j, int mode)
{
    if (mode == FP64_RESIDUAL) return c->active[j] && !c->acc[j];
    return c->active[j] && (mode == ANY_MODE || c->mode[j] == mode);
}

/* The next run [*j0, *j1) of adjacent selected columns starting at or after *j0; 0 if none.
 * Runs let one BLAS-3 call serve many right-hand sides. */
static int next_run(const columns *c, int nrhs, int mode, int *j0, int *j1)
{
    int j = *j0;
    while (j < nrhs && !selected(c, j, mode)) j++;
    if (j == nrhs) return 0;
    int e = j;
    while (e < nrhs && selected(c, e, mode)) e++;
    *j0 = j;
    *j1 = e;
    return 1;
}

/* Column j's residual accumulated in twice the precision (resid_dd_f64) and its norm. */
static int accurate_residual(const mixi_refine_job *job, columns *c, int j)
{
    const mixi_dense_ops *d = job->ctx->ops->dense;
    void *st = job->ctx->state;
    const int n = job->n;
    int rc = d->resid_dd_f64(st, job->A.sym, job->A.uplo, n, 1, job->A.a, job->A.lda,
                             COL(job->x, job->ldx, j), job->ldx, COL(job->b, job->ldb, j),
                             job->ldb, COL(job->r, n, j), n);
    return rc ? rc : d->col_absmax_f64(st, n, 1, COL(job->r, n, j), n, c->rn + j);
}

/* The FP64 residual's own rounding error can reach gamma_{n+1} (|b| + |A||x|) (Higham, ASNA
 * 2.7): below that, ||r|| may be mostly noise (sqrt(n) eps |A||x| typically, as large as LAPACK's
 * bound sqrt(n) eps ||A|| ||x||: uniform random n = 4096 stalled there and fell back where
 * LAPACK's dsgesv, whose dgemm residual happened to read lower, converged in 3 steps). */
static double fp64_residual_noise(const mixi_refine_job *job, const columns *c, int j)
{
    return (job->n + 1) * (0.5 * DBL_EPSILON) * (c->bn[j] + job->anrm * c->xn[j]);
}

/* The recheck (issue 32): a column whose FP64 residual is above the stopping margin but within
 * that residual's noise has its residual computed again accurately (resid_dd_f64).  Within the
 * margin, the column has converged; above, it goes on with accurate residuals, as
 * extra-precise iterative refinement does (XBLAS; Demmel et al. 2006), until the usual rules
 * stop it.  Columns far above the noise (slow or diverging) cost nothing more.  Only where that
 * noise can exceed LAPACK's bound RECHECK_NOISE times over (n of 60 and more): below, an FP64
 * reading near the bound still says something, and the margin guards a solution's test on
 * another summation order; an accurate residual within the margin would not (tests/test_posv.c,
 * n = 2..4: 3 of 9000 draws then read over LAPACK's bound in reverse order). */
#define RECHECK_NOISE 8.0
/* A column whose last step (round it > 0) shrank its residual RECHECK_PROGRESS times or more is
 * still converging: its next step, on an FP64 residual, lands that much lower whether this
 * reading is true or noise, so it takes that step instead of a recheck, and a reading that stops
 * falling is rechecked then.  An accurate residual costs 3-10 FP64 ones (n = 3600, 2 threads,
 * Ice Lake: 14 ms general, 10 ms symmetric, 22 ms before its dot products had lanes, against
 * dgemv's 4 and dsymv's 2.2), and FP32 factors at kappa 1e2 rechecked twice a solve, 23-30% of
 * mix_dsposv's time at n = 2000-3600. */
#define RECHECK_PROGRESS 1e-3
static int recheck(const mixi_refine_job *job, columns *c, int it)
{
    if (!job->ctx->ops->dense->resid_dd_f64 || job->A.op) return MIX_SUCCESS;
    for (int j = 0; j < job->nrhs; j++) {
        const double noise = fp64_residual_noise(job, c, j), margin = c->xn[j] * c->cte;
        if (!c->active[j] || c->acc[j] || !(c->rn[j] > margin && c->rn[j] <= noise) ||
            !(noise >= RECHECK_NOISE * margin / MARGIN) ||
            (it > 0 && c->rn[j] <= RECHECK_PROGRESS * c->prev[j]))
            continue;
        c->acc[j] = 1;
        int rc = accurate_residual(job, c, j);
        if (rc) return rc;
    }
    return MIX_SUCCESS;
}

/* R = B - A X on the active columns, with their norms and those of X (accurate residuals for
 * the columns a recheck moved to them). */
static int residuals(const mixi_refine_job *job, columns *c)
{
    const mixi_dense_ops *d = job->ctx->ops->dense;
    void *st = job->ctx->state;
    const int n = job->n;
    int rc;
    for (int j0 = 0, j1; next_run(c, job->nrhs, FP64_RESIDUAL, &j0, &j1); j0 = j1) {
        const int k = j1 - j0;
        if ((rc = d->lacpy_f64(st, 0, n, k, COL(job->b, job->ldb, j0), job->ldb,
                               COL(job->r, n, j0), n)) ||
            (rc = mixi_matrix_apply(job->ctx, &job->A, n, k, -1.0, COL(job->x, job->ldx, j0),
                                    job->ldx, 1.0, COL(job->r, n, j0), n)) ||
            (rc = d->col_absmax_f64(st, n, k, COL(job->r, n, j0), n, c->rn + j0)) ||
            (rc = d->col_absmax_f64(st, n, k, COL(job->x, job->ldx, j0), job->ldx, c->xn + j0)))
            return rc;
    }
    for (int j = 0; j < job->nrhs; j++)
        if (c->active[j] && c->acc[j] &&
            ((rc = accurate_residual(job, c, j)) ||
             (rc = d->col_absmax_f64(st, n, 1, COL(job->x, job->ldx, j), job->ldx, c->xn + j))))
            return rc;
    return MIX_SUCCESS;
}

/* The largest growth of a classical step that GMRES-IR may still turn into convergence: the
 * step's ratio estimates kappa(A) u_f, and GMRES-IR with FP64 residuals converges up to about
 * kappa(A) ~ (u u_f)^(-1/2) (Carson and Higham 2017), i.e. a ratio of (u_f / u)^(1/2): 2e4 for
 * FP32 factors, 2e6 for FP16.  Below 1 the factors contract and GMRES converges at least as fast
 * (the prediction); above, the rescue gets only the fail budget to show a rate. */
static double rescue_limit(const mixi_refine_job *job)
{
    return job->u_factor > 0.0 ? sqrt(job->u_factor / (0.5 * DBL_EPSILON)) : 1.0;
}

int mixi_refine_step_verdict(int krylov, double ratio, int refine_auto, double rescue_max,
                             int *stall)
{
    *stall = ratio > (krylov ? KRYLOV_STALL_RATIO : STALL_RATIO) ? *stall + 1 : 0;
    const int rescue = refine_auto && !krylov && ratio > SWITCH_RATIO;
    if (!krylov && !(ratio < 1.0) && !(rescue && ratio < rescue_max))
        *stall = STALL_STEPS; /* diverging beyond rescue: give up now */
    else if (rescue) {
        *stall = 0;
        return MIXI_STEP_TO_KRYLOV;
    }
    return *stall >= STALL_STEPS ? MIXI_STEP_GIVE_UP : MIXI_STEP_GO_ON;
}

/* A column whose x says kappa(A) >= ||A|| ||x|| / ||b|| > 1 / eps (A x = b, so ||x|| <=
 * ||A^-1|| ||b||): A is singular to FP64's precision, and a tiny normwise backward error
 * certifies nothing LAPACK would give.  A matrix exactly singular in FP64 and not in FP32 was
 * refined by GMRES-IR to |x| ~ 2e45, b inconsistent, and reported solved where dgetrf finds a
 * zero pivot (tests/test_dense_probe.c). */
static int singular_to_fp64(const mixi_refine_job *job, const columns *c, int j)
{
    return c->xn[j] * job->anrm * (0.5 * DBL_EPSILON) > c->bn[j];
}

/* A column that met the stopping test by x's growth, not r's fall: ||x|| GROWTH_MAX times the
 * first solve's while ||r|| stayed above RESIDUAL_KEPT of the first one's.  Where A is singular
 * in FP64 and its low-precision factors are not, the part of b outside A's range stays in r
 * while GMRES-IR grows x along the null vector until ||r|| <= sqrt(n) eps ||A|| ||x|| holds
 * (the drop-in's dgesv_ under numpy at n = 1000: r unchanged at 1.3e-3, x from ~1e5 to 4e11,
 * ||A|| ||x|| / ||b|| below 1 / eps; numpy.linalg.solve raised nothing where LAPACK says
 * singular).  A converging column shrinks r by orders of magnitude with x near the first solve's
 * (to kappa u_f of it). */
#define GROWTH_MAX 1e3
#define RESIDUAL_KEPT 0.1
static int converged_by_growth(const columns *c, int j)
{
    return c->xn[j] > GROWTH_MAX * c->xn0[j] && c->rn[j] > RESIDUAL_KEPT * c->rn0[j];
}

/* One column's verdict after round `it`: converged (or given up: singular_to_fp64,
 * converged_by_growth), or its stall count and (AUTO) mode move on. */
static void judge_column(const mixi_refine_job *job, columns *c, int j, int it)
{
    if (it == 0) c->rn0[j] = c->rn[j], c->xn0[j] = c->xn[j];
    if (c->rn[j] <= c->xn[j] * c->cte) {
        if (singular_to_fp64(job, c, j) || converged_by_growth(c, j))
            c->stall[j] = STALL_STEPS; /* the FP64 fallback answers, as LAPACK's dsgesv */
        else
            c->active[j] = 0;
    } else if (it > 0 && /* ratio: rn / prev, set by assess */
               mixi_refine_step_verdict(c->mode[j] == MODE_KRYLOV, c->ratio[j],
                                        job->p->refine == MIX_REFINE_AUTO, rescue_limit(job),
                                        &c->stall[j]) == MIXI_STEP_TO_KRYLOV) {
        c->mode[j] = MODE_KRYLOV;
    }
    c->prev[j] = c->rn[j];
}

/* Rounds still needed by the slowest active column at the rate of its last correction (only
 * where the next correction is of the same kind); *steady = 0 when some active column shows no
 * such rate (just switched to Krylov, or not shrinking by 2x).  Called from the first correction
 * on: its contraction rate is the earliest sign that a refinement will not make it. */
static double rounds_needed(const mixi_refine_job *job, const columns *c, int *steady)
{
    double rounds = 0.0;
    *steady = 1;
    for (int j = 0; j < job->nrhs; j++) {
        if (!c->active[j]) continue;
        if (c->mode[j] != c->last_mode[j] || !(c->ratio[j] < KRYLOV_STALL_RATIO)) *steady = 0;
        /* A Krylov correction that did not halve the residual is a stall step: the stall rule
         * judges it (STALL_STEPS of them), as one that grew it.  Its ratio is no rate: the
         * inner solve stops on the preconditioned residual, which bounds the true one only to
         * kappa(M) KRYLOV_RTOL, and from the low-precision first solve's x one correction can
         * shrink it by 0.71 and the next by 3e-6 (randsvd n = 100, kappa 1e8, blocked FP32 LU,
         * CUDA's FP32 path); extrapolated, 0.7 read as 51 rounds and gave up at once. */
        const double no_rate = c->mode[j] == MODE_KRYLOV ? KRYLOV_STALL_RATIO : 1.0;
        if (c->mode[j] != c->last_mode[j] || !(c->ratio[j] < no_rate)) continue;
        /* Rounds to LAPACK's bound: the margin below it costs a round at most, so it must not
         * make a converging refinement look too slow. */
        double need = log(c->xn[j] * c->cte / MARGIN / c->rn[j]) / log(c->ratio[j]);
        if (need > rounds) rounds = need;
    }
    return rounds;
}

/* After round it >= 1 of a refinement that goes on by the other rules: the rate and time rules
 * (see the top of this file). */
static int rate_verdict(const mixi_refine_job *job, const columns *c, int it, double now)
{
    int steady = 1;
    const double rounds = it >= 1 ? rounds_needed(job, c, &steady) : 0.0;
    if (it >= 1 && it + rounds > job->p->max_iter + 0.5) return STOP_GIVE_UP;
    if (!(c->deadline > 0.0)) return GO_ON;
    if (now > c->deadline) return STOP_TOO_SLOW;
    if (it >= 1 && now + rounds * (now - c->t_round) > c->deadline) return STOP_TOO_SLOW;
    /* Evidence takes a correction: the first solve and its residual are the least an attempt
     * costs, never a reason to give up unseen.  After that, a round that cannot end before the
     * evidence deadline (it lasts at least as long as the last one: a Krylov cycle takes one
     * step at least) would overrun the bound's slack whatever it shows: give up before it, not
     * after (randsvd kappa 1e15 n = 4096, quiet 2-core Xeon: the GMRES step and residual that
     * followed cost about 0.06 T64 by the rounds' own times). */
    if (it >= 1 && !steady && now + (now - c->t_round) > c->evidence) return STOP_TOO_SLOW;
    return GO_ON;
}

/* Judges every active column after the residuals of round `it` and records the backward error
 * (all columns, converged ones with their last values). */
static int assess(const mixi_refine_job *job, columns *c, int it, mixi_refine_result *res)
{
    const mix_gesv_params *p = job->p;
    int left = 0;
    double berr = 0.0;
    res->iter = it;
    for (int j = 0; j < job->nrhs; j++) {
        if (c->active[j]) {
            if (!isfinite(c->rn[j]) || !isfinite(c->xn[j])) return STOP_NAN;
            c->ratio[j] = it > 0 ? c->rn[j] / c->prev[j] : 1.0;
            judge_column(job, c, j, it);
            left += c->active[j];
        }
        double be = mixi_berr_column(c->rn[j], c->xn[j], c->bn[j], job->anrm);
        if (!(be <= berr)) berr = be; /* a NaN shows */
    }
    res->backward_error = berr;
    if (p->residual_history && it < p->history_capacity) {
        p->residual_history[it] = berr;
        res->history_length = it + 1;
    }
    if (!left) return STOP_CONVERGED;
    if (it == p->max_iter) return STOP_GIVE_UP;
    for (int j = 0; j < job->nrhs; j++)
        if (c->active[j] && c->stall[j] >= STALL_STEPS) return STOP_GIVE_UP;
    const double now = clock_if_timed(c);
    const int verdict = rate_verdict(job, c, it, now);
    c->t_round = now;
    return verdict;
}

/* Corrections written over the residuals (classical: d = M^{-1} r, run by run; Krylov: the
 * inner solver on A d = r, column by column), then x += d. */
static int correct(const mixi_refine_job *job, columns *c, mixi_refine_result *res)
{
    const mixi_dense_ops *d = job->ctx->ops->dense;
    void *st = job->ctx->state;
    const int n = job->n;
    double *r = job->r;
    int rc;
    for (int j0 = 0, j1; next_run(c, job->nrhs, MODE_CLASSICAL, &j0, &j1); j0 = j1)
        if ((rc = mixi_precond_apply(job->M, j1 - j0, COL(r, n, j0), n, COL(r, n, j0), n)))
            return rc;
    for (int j = 0; j < job->nrhs; j++) {
        if (!c->active[j]) continue;
        c->last_mode[j] = c->mode[j];
        if (c->mode[j] == MODE_KRYLOV) {
            int its = 0;
            rc = job->cg ? mixi_pcg_solve(job->M, &job->A, job->cg, COL(r, n, j), COL(r, n, j),
                                          KRYLOV_RTOL, &its)
                         : mixi_gmres_cycle(job->M, &job->A, job->gmres, COL(r, n, j),
                                            COL(r, n, j), KRYLOV_RTOL, &its);
            if (rc) return rc;
            res->inner_iter += its;
        }
        if ((rc = d->axpy_f64(st, n, 1.0, COL(r, n, j), COL(job->x, job->ldx, j)))) return rc;
    }
    return MIX_SUCCESS;
}

/* The wall clocks of the refinement begun now (deadline 0: no limit, and no clock read):
 * job->budget_s for both, or the budgets the worst-case bound leaves after the low-precision
 * factorization (job->fp64_floor) and the passes around it (job->t_passes). */
static void set_deadlines(const mixi_refine_job *job, columns *c)
{
    double fail = job->budget_s, succeed = job->budget_s;
    c->deadline = c->evidence = 0.0;
    if (!(fail > 0.0)) {
        if (!(job->fp64_flops > 0.0)) return;
        mixi_refine_budget(job->ctx, job->prec, job->fp64_flops, job->factor_flops,
                           job->fp64_floor, job->t_passes, job->p->factor_prec != MIX_PREC_AUTO,
                           &fail, &succeed);
    }
    const double now = c->t_round = mixi_wtime();
    /* No time left: a deadline already past (never the "no limit" 0). */
    c->deadline = succeed > 0.0 ? now + succeed : now - 1e-9;
    c->evidence = fail > 0.0 ? now + fail : now - 1e-9;
}

/* The Krylov cycles of the next correction stop at the evidence deadline while some column has
 * not yet shown a steady rate in Krylov mode (a rescue that shows nothing costs no more than the
 * bound's slack), else at the refinement's deadline; in either case early enough that the
 * residuals that judge them end by it (randsvd kappa 1e15 n = 4096, one thread: the GMRES
 * rescue's cycle ran to the evidence deadline and its residual, 0.015 T64, came after). */
static void krylov_deadline(const mixi_refine_job *job, const columns *c)
{
    double when = c->deadline;
    for (int j = 0; j < job->nrhs && when > 0.0; j++)
        if (c->active[j] && c->mode[j] == MODE_KRYLOV &&
            (c->last_mode[j] != MODE_KRYLOV || !(c->ratio[j] < KRYLOV_STALL_RATIO)))
            when = c->evidence;
    if (when > 0.0) when = fmax(when - c->t_resid, DBL_MIN); /* 0 would mean no limit */
    if (job->gmres) job->gmres->deadline = when;
    if (job->cg) job->cg->deadline = when;
}

int mixi_refine(const mixi_refine_job *job, mixi_refine_result *res)
{
    const mix_gesv_params *p = job->p;
    const int n = job->n, nrhs = job->nrhs;
    columns c = {0};
    int rc;
    *res = (mixi_refine_result){0};
    if ((rc = columns_alloc(&c, nrhs))) goto out;
    /* LAPACK dsgesv's test, per column: ||r||inf <= ||x||inf ||A||inf eps sqrt(n), with margin. */
    c.cte = MARGIN * job->anrm * mixi_stop_tol(p, n);
    for (int j = 0; j < nrhs; j++) {
        c.active[j] = 1;
        c.stall[j] = 0;
        c.mode[j] = p->refine == MIX_REFINE_GMRES || p->refine == MIX_REFINE_CG ? MODE_KRYLOV
                                                                                : MODE_CLASSICAL;
        c.last_mode[j] = c.mode[j];
        c.acc[j] = 0;
    }
    set_deadlines(job, &c);
    if ((rc = job->ctx->ops->dense->col_absmax_f64(job->ctx->state, n, nrhs, job->b, job->ldb,
                                                   c.bn)) ||
        (rc = mixi_precond_apply(job->M, nrhs, job->b, job->ldb, job->x, job->ldx)))
        goto out;
    for (int it = 0;; it++) {
        const double t_resid = clock_if_timed(&c);
        if ((rc = residuals(job, &c)) || (rc = recheck(job, &c, it))) goto out;
        c.t_resid = clock_if_timed(&c) - t_resid;
        int verdict = assess(job, &c, it, res);
        if (verdict == STOP_CONVERGED) res->converged = 1;
        if (verdict == STOP_NAN) res->nan = 1;
        if (verdict == STOP_TOO_SLOW) res->too_slow = 1;
        if (verdict != GO_ON) break;
        krylov_deadline(job, &c);
        if ((rc = correct(job, &c, res))) goto out;
    }
out:
    columns_free(&c);
    return rc;
}
