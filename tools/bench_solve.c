/* bench_solve.c: one solve of `mixsolve bench` (run in its own process): LAPACKE or the mixsolve
 * drivers, best of repetitions, checked here in FP64 and judged. */
#include "config.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lapacke.h>
#include "tools/bench_run.h"
#include "tools/bench_sparse_lu.h"

static int has_nonfinite(const double *x, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i])) return 1;
    return 0;
}

/* Backward error (LU) and true relative 2-norm residual (CG) of x by libmixmat's range-safe FP64
 * re-check, from the CSR, and the forward error against x = ones; a non-finite x is infinitely
 * wrong. */
static void check_solution(const mixm_csr *A, const double *b, const double *x, double *be, double *rel2,
                           double *fwd)
{
    int n = A->nrows;
    if (has_nonfinite(x, n) || mixm_csr_recheck(A, b, x, be, rel2)) {
        *be = *rel2 = *fwd = INFINITY;
        return;
    }
    double f = 0;
    for (int i = 0; i < n; i++) f = fmax(f, fabs(x[i] - 1.0));
    *fwd = f;
}

static const char *cg_reason(int reason)
{
    static const char *const names[] = {"converged", "iteration limit", "stagnated at the precision's floor",
                                        "breakdown: not SPD", "breakdown: NaN/Inf", "zero right-hand side",
                                        "solution out of FP64 range", "matrix overflows the storage"};
    return reason >= 0 && reason <= 7 ? names[reason] : "unknown";
}

static const char *lu_reason(int reason)
{
    static const char *const names[] = {"", "FP64 chosen directly", "overflow in the low precision",
                                        "low-precision factorization failed", "refinement did not converge",
                                        "NaN/Inf in refinement", "refinement predicted slower than FP64"};
    return reason >= 0 && reason <= 6 ? names[reason] : "unknown";
}

/* What AUTO chose and why (issue 32): FP64 directly (no low precision predicted to pay), the
 * low precision it took and its refinement (the GMRES-IR rescue's inner steps), or where it gave
 * up and fell back.  A fallback's iter is the library's code: the steps it took are in the
 * residual history. */
static void auto_note(bench_result *res)
{
    if (res->reason == MIX_REASON_DIRECT) {
        snprintf(res->note, sizeof res->note, "auto took fp64: no low precision predicted to pay");
        return;
    }
    /* After a fallback the record says FP64: AUTO's choice is the library's query's. */
    const char *took = mix_prec_name(res->fell_back ? res->auto_low : res->used);
    if (!res->fell_back)
        snprintf(res->note, sizeof res->note, "auto took %s (predicted to pay): %d steps%s", took,
                 res->iter, res->inner_iter > 0 ? ", GMRES-IR rescue" : "");
    else
        snprintf(res->note, sizeof res->note, "auto took %s, gave up after %d steps (%s)%s, fell "
                 "back to fp64", took, res->hist_len > 0 ? res->hist_len - 1 : 0,
                 lu_reason(res->reason), res->inner_iter > 0 ? " after a GMRES-IR rescue" : "");
}

/* LU or Cholesky rows: LAPACKE for FP64, the mixsolve drivers otherwise; best of repetitions. */
/* The outcome and note of a dense run whose check is in res (status st of the solver). */
static void judge_dense(bench_result *res, const bench_set *s, int n, int chol, int st)
{
    double thr = s->threshold_lu_factor * sqrt((double)(n ? n : 1)) * DBL_EPSILON;
    if (st) {
        res->outcome = BENCH_FAILED;
        if (res->prec == MIX_FP64 && chol)
            snprintf(res->note, sizeof res->note, "dposv info %d: not positive definite", st);
        else if (res->prec == MIX_FP64) snprintf(res->note, sizeof res->note, "dgesv info %d: exactly singular", st);
        else snprintf(res->note, sizeof res->note, "%s", mix_strerror(st));
    } else if (!(res->check <= thr)) {
        res->outcome = BENCH_SILENT;
        snprintf(res->note, sizeof res->note, "reported success, backward error %.2e > %.2e", res->check, thr);
    } else if (res->fell_back && !(res->prec == MIX_PREC_AUTO && res->reason == MIX_REASON_DIRECT)) {
        res->outcome = BENCH_FALLBACK;
        if (res->prec == MIX_PREC_AUTO) auto_note(res);
        else snprintf(res->note, sizeof res->note, "fallback: %s", lu_reason(res->reason));
    } else {
        res->outcome = BENCH_OK;
        if (res->prec == MIX_PREC_AUTO) auto_note(res);
    }
}

/* What a dense run reports besides its time: the baseline's condition estimate (LAPACKE_dgecon
 * on the LU factors its last repetition left in work, d0 the matrix), else the driver's info. */
static void dense_record(bench_result *res, const mix_gesv_info *info, int n, int chol, int st, const double *d0,
                         const double *work)
{
    if (res->prec == MIX_FP64) {
        if (st == 0 && n > 0 && !chol) { /* work holds the LU factors of the last repetition */
            double anorm = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', n, n, d0, n), rcond = 0;
            if (LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', n, work, n, anorm, &rcond) == 0 && rcond > 0)
                res->kappa1 = 1.0 / rcond;
            else
                res->kappa1 = INFINITY;
        }
    } else {
        res->iter = info->iter;
        res->used = info->factor_prec_used;
        res->inner_iter = info->inner_iter;
        res->fell_back = info->fell_back;
        res->reason = info->reason;
        res->solver_check = info->backward_error;
        res->hist_len = info->history_length < BENCH_HIST ? info->history_length : BENCH_HIST;
    }
}

static void run_dense(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res,
                      mix_context *ctx, const double *b, double *x)
{
    const int n = A->nrows, chol = res->method == BENCH_CHOL;
    const size_t nn = (size_t)(n ? n : 1);
    double best = INFINITY, spent = 0;
    int st = 0;
    mixm_dense D;
    if (mixm_csr_to_dense(A, &D)) {
        snprintf(res->note, sizeof res->note, "out of memory for the dense copy");
        return;
    }
    double *d0 = D.a, *work = malloc(nn * nn * sizeof *work);
    int *ipiv = malloc(nn * sizeof *ipiv);
    if (!work || !ipiv) {
        snprintf(res->note, sizeof res->note, "out of memory for the dense copy");
        goto out;
    }
    mix_gesv_params prm;
    mix_gesv_params_init(&prm);
    prm.factor_prec = res->prec;
    prm.refine = MIX_REFINE_AUTO;
    prm.residual_history = res->hist;
    prm.history_capacity = BENCH_HIST;
    mix_gesv_info info;
    memset(&info, 0, sizeof info);
    /* AUTO's rows are its steady state, as their best of repetitions: its rates measured first,
     * as in a process whose dense work has paid for them (a prediction of a large solve measures
     * them); a fresh process takes FP64 below n ~ 3230 until then (mix_dgesv_ir(3)). */
    mix_prec steady;
    if (res->prec == MIX_PREC_AUTO) mix_gesv_auto_prec(ctx, 16384, 1, &steady);
    for (int rep = 0; rep < o->max_reps; rep++) {
        memcpy(work, d0, (size_t)n * nn * sizeof *work);
        double t0;
        if (res->prec == MIX_FP64) {
            memcpy(x, b, nn * sizeof *x);
            t0 = mixm_wtime();
            st = chol ? (int)LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, work, n, x, n)
                      : (int)LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, work, n, ipiv, x, n);
        } else {
            t0 = mixm_wtime();
            st = chol ? mix_dposv_ir(ctx, &prm, MIX_COL_MAJOR, 'L', n, 1, work, n, b, n, x, n, &info)
                      : mix_dgesv_ir(ctx, &prm, MIX_COL_MAJOR, n, 1, work, n, ipiv, b, n, x, n, &info);
        }
        double t = mixm_wtime() - t0;
        best = fmin(best, t);
        spent += t;
        if (st || (rep >= 1 && spent > o->min_time) || spent > o->time_limit / 8) break;
    }
    res->status = st;
    res->time = best;
    dense_record(res, &info, n, chol, st, d0, work);
    if (res->prec == MIX_PREC_AUTO && mix_gesv_auto_prec(ctx, n, 1, &res->auto_low))
        res->auto_low = MIX_PREC_AUTO;
    double rel2;
    check_solution(A, b, x, &res->check, &rel2, &res->fwd_err);
    judge_dense(res, s, n, chol, st);
out:
    free(d0);
    free(work);
    free(ipiv);
}

/* CG rows: mix_dcg with Jacobi, best of repetitions, the storage precisions that ran. */
static void run_cg(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res,
                   mix_context *ctx, const double *b, double *x)
{
    const int n = A->nrows;
    const size_t nn = (size_t)(n ? n : 1);
    double best = INFINITY, spent = 0;
    int st = 0;
    mix_sparse *S = NULL;
    if ((st = mix_sparse_create_csr(ctx, n, A->rowptr, A->colind, A->val, &S))) {
        res->status = st;
        snprintf(res->note, sizeof res->note, "sparse setup: %s", mix_strerror(st));
        return;
    }
    mix_cg_params prm;
    mix_cg_params_init(&prm);
    prm.sloppy_prec = res->prec;
    prm.tol = s->cg_tol;
    prm.precond = res->method == BENCH_CG_AMG ? MIX_PRECOND_AMG : MIX_PRECOND_JACOBI;
    mix_cg_info info;
    memset(&info, 0, sizeof info);
    double first = 0.0, setup = 0.0; /* AMG: the solve that built the hierarchy */
    for (int rep = 0; rep < o->max_reps; rep++) {
        memset(x, 0, nn * sizeof *x);
        double t0 = mixm_wtime();
        st = mix_dcg(ctx, &prm, S, b, x, &info);
        double t = mixm_wtime() - t0;
        if (rep == 0) first = t, setup = info.t_setup;
        best = fmin(best, t);
        spent += t;
        if (st || (rep >= 1 && spent > o->min_time) || spent > o->time_limit / 8) break;
    }
    res->status = st;
    res->time = best;
    res->iter = info.iter;
    res->reliable_updates = info.reliable_updates;
    res->reason = info.reason;
    res->solver_check = info.true_rel_residual;
    double be;
    check_solution(A, b, x, &be, &res->check, &res->fwd_err);
    if (st) {
        res->outcome = BENCH_FAILED;
        snprintf(res->note, sizeof res->note, "%s (%s)", mix_strerror(st), cg_reason(info.reason));
    } else if (!(res->check <= 10 * prm.tol)) {
        res->outcome = BENCH_SILENT;
        snprintf(res->note, sizeof res->note, "reported convergence, residual %.2e > 10 tol", res->check);
    } else {
        res->outcome = BENCH_OK;
    }
    /* Which storage precisions ran (escalation, AUTO's choice); AMG: its first solve. */
    if (!res->note[0] && (info.stages > 1 || res->prec == MIX_PREC_AUTO || res->method == BENCH_CG_AMG)) {
        size_t len = res->method != BENCH_CG_AMG ? 0
                     : (size_t)snprintf(res->note, sizeof res->note, "first %.3f s (set-up %.3f s), ", first, setup);
        for (int k = 0; k < info.stages && len < sizeof res->note; k++)
            len += (size_t)snprintf(res->note + len, sizeof res->note - len, "%s%s %d it",
                                    k ? " -> " : "storage ", mix_prec_name(info.stage_prec[k]),
                                    info.stage_iter[k]);
    }
    mix_sparse_destroy(S);
}

void bench_run_one(const mixm_csr *A, const bench_opts *o, const bench_set *s, bench_result *res)
{
    int n = A->nrows;
    size_t nn = (size_t)(n ? n : 1);
    double *b = malloc(nn * sizeof *b), *x = calloc(nn, sizeof *x);
    mix_context *ctx = NULL;
    res->outcome = BENCH_FAILED;
    if (!b || !x) {
        snprintf(res->note, sizeof res->note, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) x[i] = 1.0;
    mixm_csr_matvec(A, x, b);
    int st = 0;
    const int dense = res->method == BENCH_LU || res->method == BENCH_CHOL;
    if (!(dense && res->prec == MIX_FP64)) {
        if ((st = mix_context_create(&ctx, o->backend))) {
            res->status = st;
            snprintf(res->note, sizeof res->note, "backend: %s", mix_strerror(st));
            goto out;
        }
    }
    if (dense) run_dense(A, o, s, res, ctx, b, x);
    else if (res->method == BENCH_SPLU)
        bench_sparse_lu_run(A, ctx, o->min_time, o->max_reps,
                            s->threshold_lu_factor * sqrt((double)n) * DBL_EPSILON, b, x, res);
    else run_cg(A, o, s, res, ctx, b, x);
out:
    mix_context_destroy(ctx);
    free(b);
    free(x);
}
