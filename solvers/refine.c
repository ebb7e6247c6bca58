/* refine.c: FP64 iterative refinement (classical, GMRES-IR, and AUTO switching), each column on its own. */
#include <float.h>
#include <math.h>
#include "solvers/solvers.h"

/* AUTO: a column whose residual falls by less than this factor per classical step moves to
 * GMRES-IR (classical IR converges like (kappa u_f)^k; at 0.2 it would need ~20 steps). */
#define SWITCH_RATIO 0.2
/* A column gives up after this many consecutive steps that fail to shrink its residual by
 * STALL_RATIO (classical) or 2x (GMRES-IR): it is not going to converge, fall back now. */
#define STALL_STEPS 3
#define STALL_RATIO 0.9
/* GMRES cycle: relative reduction of the preconditioned residual asked of one outer step.
 * Measured (n = 1000, randsvd): 1e-6 takes 24 inner steps where 1e-10 takes 41 (BF16) for the
 * same outer iterations; 1e-4 saves little more and sometimes costs an outer iteration. */
#define GMRES_RTOL 1e-6

enum { MODE_CLASSICAL, MODE_GMRES };

int mixi_refine(const mixi_refine_job *job, mixi_refine_result *res)
{
    mix_context *ctx = job->ctx;
    const mix_dense_ops *d = ctx->ops->dense;
    void *st = ctx->state;
    const mix_gesv_params *p = job->p;
    const int n = job->n, nrhs = job->nrhs;
    double *x = job->x, *r = job->r;
    int rc = MIX_SUCCESS;
    res->converged = res->nan = res->iter = res->inner_iter = res->history_length = 0;
    res->backward_error = 0.0;

    double *rn = mixi_malloc((size_t)nrhs * 4 * sizeof(double));
    int *flags = mixi_malloc((size_t)nrhs * 3 * sizeof(int));
    if (!rn || !flags) {
        rc = MIX_ERR_ALLOC;
        goto out;
    }
    double *xn = rn + nrhs, *bn = xn + nrhs, *prev = bn + nrhs;
    int *active = flags, *mode = flags + nrhs, *stall = mode + nrhs;
    /* LAPACK dsgesv's test, per column: ||r||inf <= ||x||inf ||A||inf eps sqrt(n). */
    const double cte = job->anrm * (p->tol > 0.0 ? p->tol : 0.5 * DBL_EPSILON * sqrt((double)n));
    for (int j = 0; j < nrhs; j++) {
        active[j] = 1;
        stall[j] = 0;
        mode[j] = p->refine == MIX_REFINE_GMRES ? MODE_GMRES : MODE_CLASSICAL;
    }
    if ((rc = d->col_absmax_f64(st, n, nrhs, job->b, job->ldb, bn))) goto out;
    if ((rc = mixi_precond_apply(job->M, nrhs, job->b, job->ldb, x, job->ldx))) goto out;

#define COL(ptr, ld, j) ((ptr) + (size_t)(j) * (size_t)(ld))
    for (int it = 0;; it++) {
        /* Residuals of the active columns, run by run of adjacent ones: R = B - A X. */
        for (int j0 = 0; j0 < nrhs;) {
            if (!active[j0]) { j0++; continue; }
            int j1 = j0;
            while (j1 < nrhs && active[j1]) j1++;
            if ((rc = d->lacpy_f64(st, 0, n, j1 - j0, COL(job->b, job->ldb, j0), job->ldb,
                                   COL(r, n, j0), n)) ||
                (rc = d->gemm_f64(st, 0, 0, n, j1 - j0, n, -1.0, job->a, job->lda,
                                  COL(x, job->ldx, j0), job->ldx, 1.0, COL(r, n, j0), n)) ||
                (rc = d->col_absmax_f64(st, n, j1 - j0, COL(r, n, j0), n, rn + j0)) ||
                (rc = d->col_absmax_f64(st, n, j1 - j0, COL(x, job->ldx, j0), job->ldx, xn + j0)))
                goto out;
            j0 = j1;
        }
        int left = 0;
        double berr = 0.0;
        for (int j = 0; j < nrhs; j++) {
            if (active[j]) {
                if (!isfinite(rn[j]) || !isfinite(xn[j])) {
                    res->nan = 1;
                    res->iter = it;
                    goto out;
                }
                if (rn[j] <= xn[j] * cte) {
                    active[j] = 0;
                } else if (it > 0) {
                    double ratio = rn[j] / prev[j];
                    int is_gmres = mode[j] == MODE_GMRES;
                    stall[j] = ratio > (is_gmres ? 0.5 : STALL_RATIO) ? stall[j] + 1 : 0;
                    if (p->refine == MIX_REFINE_AUTO && !is_gmres && ratio > SWITCH_RATIO) {
                        mode[j] = MODE_GMRES;
                        stall[j] = 0;
                    }
                }
                prev[j] = rn[j];
                left += active[j];
            }
            double den = job->anrm * xn[j] + bn[j];
            double be = den > 0.0 ? rn[j] / den : 0.0;
            if (be > berr) berr = be;
        }
        res->backward_error = berr;
        if (p->residual_history && it < p->history_capacity) {
            p->residual_history[it] = berr;
            res->history_length = it + 1;
        }
        res->iter = it;
        if (!left) {
            res->converged = 1;
            goto out;
        }
        if (it == p->max_iter) goto out;
        for (int j = 0; j < nrhs; j++)
            if (active[j] && stall[j] >= STALL_STEPS) goto out;

        /* Corrections, written over the residuals, then x += d. */
        for (int j0 = 0; j0 < nrhs;) {
            if (!active[j0] || mode[j0] != MODE_CLASSICAL) { j0++; continue; }
            int j1 = j0;
            while (j1 < nrhs && active[j1] && mode[j1] == MODE_CLASSICAL) j1++;
            if ((rc = mixi_precond_apply(job->M, j1 - j0, COL(r, n, j0), n, COL(r, n, j0), n)))
                goto out;
            j0 = j1;
        }
        for (int j = 0; j < nrhs; j++) {
            if (!active[j]) continue;
            if (mode[j] == MODE_GMRES) {
                int its = 0;
                rc = mixi_gmres_cycle(job->M, job->a, job->lda, job->gmres, COL(r, n, j),
                                      COL(r, n, j), GMRES_RTOL, &its);
                if (rc) goto out;
                res->inner_iter += its;
            }
            if ((rc = d->axpy_f64(st, n, 1.0, COL(r, n, j), COL(x, job->ldx, j)))) goto out;
        }
    }
#undef COL
out:
    mixi_free(rn);
    mixi_free(flags);
    return rc;
}
