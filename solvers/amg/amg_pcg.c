/* amg_pcg.c: MIX_PRECOND_AMG: preconditioned CG in FP64 (the true FP64 matrix, FP64 vectors)
 * with one V-cycle per iteration.  A V-cycle with the same Chebyshev polynomial before and
 * after is a fixed symmetric operator, so plain PCG applies.  The low precision lives in the
 * hierarchy, where the work is (about 6 fine-level SpMVs per V-cycle against the one of CG):
 * the outer loop's matrix stays FP64, and its recursive residual is replaced by the true one
 * b - A x whenever it claims convergence (a reliable update), so that the answer's residual is
 * the FP64 one. */
#include <math.h>
#include <string.h>
#include "solvers/amg/amg.h"

typedef struct {
    mix_context *ctx;
    mix_sparse *A;
    const double *b;
    double bb, target;
    mixi_svec x, r, z, p, q; /* FP64 backend vectors with the kernels' padding */
    int iter, updates, reason;
} pcg;

static int vec64(mix_context *ctx, int n, mixi_svec *v)
{
    size_t vb, nb;
    v->prec = MIX_FP64, v->n = n, v->norm = NULL, v->val = NULL;
    int st = mixi_svec_bytes(MIX_FP64, n, &vb, &nb);
    if (!st) st = ctx->ops->alloc(ctx->state, &v->val, vb);
    return st ? st : ctx->ops->memset0(ctx->state, v->val, vb);
}

static void pcg_free(pcg *W)
{
    mixi_svec *v[5] = {&W->x, &W->r, &W->z, &W->p, &W->q};
    for (int i = 0; i < 5; i++) W->ctx->ops->free(W->ctx->state, v[i]->val), v[i]->val = NULL;
}

/* Replaces the recursive residual by b - A x; *tn its norm. */
static int true_residual(pcg *W, double *tn)
{
    double rr;
    const int st = W->ctx->ops->sparse->residual64(W->ctx->state, W->A->a64, W->b, W->x.val,
                                                   W->r.val, &rr);
    W->updates++;
    *tn = sqrt(rr);
    return st;
}

/* z = M r, *rz = <r, z>: MIX_ERR_NAN for NaN/Inf, MIX_ERR_NOT_SPD where M r is not a descent
 * direction (the hierarchy of an indefinite A, or a storage too coarse for it). */
static int precondition(pcg *W, mixi_amg_cycle *C, double *rz)
{
    int st = mixi_amg_cycle_apply(C, W->r.val, W->z.val);
    if (!st) st = W->ctx->ops->sparse->dot(W->ctx->state, &W->r, &W->z, rz);
    if (st) return st;
    if (isnan(*rz) || isinf(*rz)) return W->reason = MIX_CG_BREAKDOWN_NAN, MIX_ERR_NAN;
    if (!(*rz > 0.0)) return W->reason = MIX_CG_BREAKDOWN_NOT_SPD, MIX_ERR_NOT_SPD;
    return MIX_SUCCESS;
}

/* One step: q = A p, x += alpha p, r -= alpha q; *rr = ||r||^2. */
static int step(pcg *W, double rz, double *rr)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    double pq, rdot;
    int st = sp->spmv(W->ctx->state, W->A->a64, &W->p, &W->q, &pq);
    if (st) return st;
    if (isnan(pq) || isinf(pq)) return W->reason = MIX_CG_BREAKDOWN_NAN, MIX_ERR_NAN;
    if (!(pq > 0.0)) return W->reason = MIX_CG_BREAKDOWN_NOT_SPD, MIX_ERR_NOT_SPD; /* A's own */
    st = sp->cg_update(W->ctx->state, rz / pq, &W->p, &W->q, &W->x, &W->r, rr, &rdot);
    W->iter++;
    return st;
}

/* The loop from the true residual in r (norm *tn) to the target or max_iter steps; on success
 * *tn is the true residual's norm. */
static int pcg_loop(pcg *W, mixi_amg_cycle *C, double *tn, int max_iter)
{
    const mixi_sparse_ops *sp = W->ctx->ops->sparse;
    double rz, rr;
    int st = precondition(W, C, &rz);
    if (!st) st = W->ctx->ops->copy(W->ctx->state, W->p.val, W->z.val, (size_t)W->x.n * 8);
    while (!st && *tn > W->target) {
        if (W->iter >= max_iter) return W->reason = MIX_CG_MAX_ITER, MIX_ERR_NOT_CONVERGED;
        if ((st = step(W, rz, &rr))) break;
        if (!isfinite(rr)) return W->reason = MIX_CG_BREAKDOWN_NAN, MIX_ERR_NAN;
        *tn = sqrt(rr);
        if (*tn <= W->target && (st = true_residual(W, tn))) break;
        if (*tn <= W->target) break;
        double rz_new;
        if ((st = precondition(W, C, &rz_new))) break;
        st = sp->axpby(W->ctx->state, 1.0, &W->z, rz_new / rz, &W->p);
        rz = rz_new;
    }
    if (!st) W->reason = MIX_CG_CONVERGED;
    return st;
}

/* The V-cycle's vector precision over storage prec: the SpMV accumulator (FP32) over 16 bits. */
static mix_prec vector_prec(const mix_context *ctx, mix_prec prec)
{
    if (prec == MIX_FP64) return MIX_FP64;
    return ctx->ops->sparse->spmv_acc_vectors ? mixk_prec_acc(prec) : prec;
}

/* One stage: PCG with the hierarchy stored in prec from x (x0_given) or 0.  *tn: the last true
 * residual norm. */
static int pcg_stage(pcg *W, mixi_amg *H, mix_prec prec, int x0_given, int max_iter, double *tn)
{
    mix_context *ctx = W->ctx;
    const mixi_amg_stored *S;
    mixi_amg_cycle C;
    int st = mixi_amg_stored_get(W->A, H, prec, &S);
    if (st) return st;
    if ((st = mixi_amg_cycle_init(&C, ctx, H, S, H->scale[0], vector_prec(ctx, prec)))) return st;
    if (!x0_given) st = ctx->ops->memset0(ctx->state, W->x.val, (size_t)W->x.n * 8);
    W->iter = W->updates = 0;
    if (!st) st = true_residual(W, tn);
    if (!st) st = pcg_loop(W, &C, tn, max_iter);
    mixi_amg_cycle_free(&C);
    if (st && W->x.val) { /* the residual of the x returned */
        const int st2 = true_residual(W, tn);
        if (st2) st = st2;
    }
    return st;
}

/* Default iteration limit: a V-cycle preconditioned CG that has not converged in this many
 * steps will not (3-D Poisson 150^3: 13 steps to 1e-10). */
#define AMG_MAX_ITER 1000

/* The storage a stage that failed for want of precision hands over to: FP32, then FP64. */
static int escalates(const mix_cg_params *prm, mix_prec prec, int st)
{
    return prm->escalate && prec != MIX_FP64 &&
           (st == MIX_ERR_NOT_CONVERGED || st == MIX_ERR_NOT_SPD || st == MIX_ERR_OVERFLOW);
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

/* The stages from the storage asked for, x in W->x; *tn the final true residual. */
static int amg_stages(pcg *W, const mix_cg_params *prm, mixi_amg *H, mix_prec prec,
                      mix_cg_info *info, double *tn)
{
    const int max_iter = prm->max_iter > 0 ? prm->max_iter : AMG_MAX_ITER;
    int x0 = prm->x0_given, st;
    for (;;) {
        W->reason = MIX_CG_MAX_ITER;
        st = pcg_stage(W, H, prec, x0, max_iter - info->iter, tn);
        record(info, W, prec);
        if (!escalates(prm, prec, st) || info->iter >= max_iter) break;
        /* A storage whose hierarchy stalls or is not SPD: the same from the best x, wider. */
        prec = prec == MIX_FP32 ? MIX_FP64 : MIX_FP32;
        x0 = 1;
    }
    info->reason = W->reason;
    return st;
}

int mixi_amg_solve(mix_context *ctx, const mix_cg_params *prm, mix_sparse *A, const double *b,
                   double *x, mix_cg_info *info)
{
    const double t0 = mixi_wtime();
    const size_t bytes = (size_t)A->n * sizeof(double);
    pcg W;
    memset(&W, 0, sizeof W);
    memset(info, 0, sizeof *info);
    W.ctx = ctx, W.A = A, W.b = b;
    mixi_amg *H = NULL;
    double t_build = 0.0, tn = 0.0;
    int st = ctx->ops->sparse->nrm2sq64(ctx->state, A->n, b, &W.bb);
    if (!st && W.bb == 0.0) { /* x = 0 exactly */
        info->reason = MIX_CG_ZERO_RHS, info->converged = 1;
        return ctx->ops->memset0(ctx->state, x, bytes);
    }
    if (!st) st = mixi_amg_get(A, &H, &t_build);
    W.target = prm->tol * sqrt(W.bb);
    if (!st && !(st = vec64(ctx, A->n, &W.x)) && !(st = vec64(ctx, A->n, &W.r)) &&
        !(st = vec64(ctx, A->n, &W.z)) && !(st = vec64(ctx, A->n, &W.p)) &&
        !(st = vec64(ctx, A->n, &W.q)) && prm->x0_given)
        st = ctx->ops->copy(ctx->state, W.x.val, x, bytes);
    /* AUTO: the storage CG's rule picks for A (cg_auto.c), then level by level (amg_store.c). */
    const mix_prec prec = prm->sloppy_prec == MIX_PREC_AUTO ? mixi_cg_auto_prec(A) : prm->sloppy_prec;
    const mixi_amg_stored *S;
    if (!st) st = mixi_amg_stored_get(A, H, prec, &S);
    const double t1 = mixi_wtime();
    if (!st) st = amg_stages(&W, prm, H, prec, info, &tn);
    if (W.x.val && info->stages) {
        const int st2 = ctx->ops->copy(ctx->state, x, W.x.val, bytes);
        if (!st) st = st2;
    } else if (!prm->x0_given) { /* stopped before any stage (set-up): x = 0, its residual */
        const int st2 = ctx->ops->memset0(ctx->state, x, bytes);
        if (!st) st = st2;
        tn = sqrt(W.bb);
    } else if (W.x.val && W.r.val) { /* x0 kept: its residual */
        const int st2 = true_residual(&W, &tn);
        if (!st) st = st2;
    }
    if (st && !info->stages) info->reason = MIX_CG_MAX_ITER; /* stopped before iterating: cg.c's */
    if (st == MIX_ERR_NOT_SPD) info->reason = MIX_CG_BREAKDOWN_NOT_SPD;
    if (st == MIX_ERR_NAN) info->reason = MIX_CG_BREAKDOWN_NAN;
    pcg_free(&W);
    info->status = st;
    info->converged = st == MIX_SUCCESS;
    info->true_rel_residual = isfinite(W.bb) ? tn / sqrt(W.bb) : NAN;
    /* The set-up: the hierarchy when this solve built it, and the storage copies it made. */
    info->t_setup = t1 - t0;
    info->t_solve = mixi_wtime() - t1;
    return st;
}
