/* pcg.c: FP64 conjugate gradients preconditioned by a low-precision Cholesky (CG-IR's inner solver). */
#include <math.h>
#include "solvers/dense/dense.h"

int mixi_pcg_ws_alloc(mix_context *ctx, int n, int max_its, mixi_pcg_ws *ws)
{
    const mixi_backend_ops *o = ctx->ops;
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
    ws->max_its = max_its;
    ws->deadline = 0.0;
    ws->breakdown = 0;
    ws->r = ws->z = ws->p = ws->q = NULL;
    if (o->alloc(ctx->state, (void **)&ws->r, bytes) ||
        o->alloc(ctx->state, (void **)&ws->z, bytes) ||
        o->alloc(ctx->state, (void **)&ws->p, bytes) ||
        o->alloc(ctx->state, (void **)&ws->q, bytes)) {
        mixi_pcg_ws_free(ctx, ws);
        return MIX_ERR_ALLOC;
    }
    return MIX_SUCCESS;
}

void mixi_pcg_ws_free(mix_context *ctx, mixi_pcg_ws *ws)
{
    ctx->ops->free(ctx->state, ws->r);
    ctx->ops->free(ctx->state, ws->z);
    ctx->ops->free(ctx->state, ws->p);
    ctx->ops->free(ctx->state, ws->q);
    ws->r = ws->z = ws->p = ws->q = NULL;
}

int mixi_pcg_solve(const mixi_precond *M, const mixi_matrix *A, mixi_pcg_ws *ws,
                   const double *rhs, double *d, double rtol, int *its)
{
    mix_context *ctx = M->ctx;
    const mixi_backend_ops *o = ctx->ops;
    const mixi_dense_ops *dn = o->dense;
    void *st = ctx->state;
    const int n = M->n;
    const size_t bytes = (size_t)n * sizeof(double);
    double *r = ws->r, *z = ws->z, *p = ws->p, *q = ws->q;
    double rz, r0, rr, pq;
    int rc;
    *its = 0;
    ws->breakdown = 0;
    /* rhs may be d: r takes it before d is zeroed. */
    if ((rc = o->copy(st, r, rhs, bytes)) || (rc = o->memset0(st, d, bytes)) ||
        (rc = dn->nrm2_f64(st, n, r, &r0)))
        return rc;
    if (!(r0 > 0.0) || !isfinite(r0)) return MIX_SUCCESS; /* zero rhs, or NaN seen by caller */
    if ((rc = mixi_precond_apply(M, 1, r, n, z, n)) || (rc = dn->dot_f64(st, n, r, z, &rz)) ||
        (rc = o->copy(st, p, z, bytes)))
        return rc;
    double t_step = mixi_wtime();
    for (int k = 0; k < ws->max_its; k++) {
        if ((rc = mixi_matrix_matvec(ctx, A, n, 1.0, p, 0.0, q)) ||
            (rc = dn->dot_f64(st, n, p, q, &pq)))
            return rc;
        /* p'Ap <= 0: A (or M, rounded) is not SPD along p; keep the steps done, the outer
         * iteration's true residual decides. */
        if (!(pq > 0.0) || !isfinite(pq) || !(rz > 0.0) || !isfinite(rz)) {
            ws->breakdown = 1;
            break;
        }
        double alpha = rz / pq;
        if ((rc = dn->axpy_f64(st, n, alpha, p, d)) || (rc = dn->axpy_f64(st, n, -alpha, q, r)) ||
            (rc = dn->nrm2_f64(st, n, r, &rr)))
            return rc;
        *its = k + 1;
        if (!(rr > rtol * r0)) break; /* converged (or NaN: the caller sees it) */
        const double now = mixi_wtime(), step_s = now - t_step;
        t_step = now;
        if (!mixi_krylov_step_fits(now, step_s, ws->deadline)) break; /* the outer cap */
        double rz_new;
        if ((rc = mixi_precond_apply(M, 1, r, n, z, n)) ||
            (rc = dn->dot_f64(st, n, r, z, &rz_new)))
            return rc;
        double beta = rz_new / rz;
        rz = rz_new;
        /* p = z + beta p */
        if ((rc = dn->scal_f64(st, n, beta, p)) || (rc = dn->axpy_f64(st, n, 1.0, z, p))) return rc;
    }
    return MIX_SUCCESS;
}
