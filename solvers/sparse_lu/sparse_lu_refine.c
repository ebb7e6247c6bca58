/* sparse_lu_refine.c: the sparse factors as refine.c's preconditioner and A as its operator: FP64 refinement of a sparse LU solve. */
#include "solvers/sparse_lu/sparse_lu_internal.h"

typedef struct {
    mixi_precond base; /* first member: refine.c sees only this */
    const mixi_splu_problem *P;
    mix_prec prec;
} splu_precond;

static int precond_apply(const mixi_precond *self, int k, const double *r, int ldr, double *c,
                         int ldc)
{
    const splu_precond *M = (const splu_precond *)self;
    const mixi_splu_problem *P = M->P;
    return P->ops->solve(P->ctx->state, P->F, M->prec, k, r, ldr, c, ldc);
}

static int operator_apply(const mixi_operator *self, int n, int k, double alpha, const double *x,
                          int ldx, double beta, double *y, int ldy)
{
    const mixi_splu_problem *P = (const mixi_splu_problem *)self;
    (void)n;
    return P->ops->apply(P->ctx->state, P->F, k, alpha, x, ldx, beta, y, ldy);
}

int mixi_splu_refine(mixi_splu_problem *P, mix_prec prec, mix_refine mode, int max_iter,
                     double budget_s, mixi_refine_result *res)
{
    mix_context *ctx = P->ctx;
    mix_gesv_params p = *P->p;
    p.refine = mode;
    p.max_iter = max_iter;
    if (prec == MIX_FP64) p.history_capacity = 0; /* the caller's history is the attempt's */
    P->op.apply = operator_apply;
    splu_precond M = {{precond_apply, ctx, P->n}, P, prec};
    mixi_gmres_ws gmres = {0};
    double *r = NULL;
    int rc = mixi_balloc(ctx, (void **)&r, (size_t)P->n, (size_t)P->nrhs, sizeof(double));
    if (!rc && mode != MIX_REFINE_CLASSICAL)
        rc = mixi_gmres_ws_alloc(ctx, P->n, p.gmres_restart, &gmres);
    if (!rc) {
        const mixi_refine_job job = {
            .ctx = ctx, .p = &p, .n = P->n, .nrhs = P->nrhs,
            .A = {NULL, 0, 0, 0, &P->op},
            .b = P->b, .ldb = P->ldb, .x = P->x, .ldx = P->ldx, .r = r,
            .M = &M.base, .gmres = mode != MIX_REFINE_CLASSICAL ? &gmres : NULL,
            .anrm = P->anrm, .budget_s = budget_s,
        };
        rc = mixi_refine(&job, res);
    }
    mixi_gmres_ws_free(ctx, &gmres);
    ctx->ops->free(ctx->state, r);
    return rc;
}
