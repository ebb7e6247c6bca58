/* cg_vec.c: CG's sloppy vectors in backend memory: their precision over a storage, allocation
 * and release (what cg.c, cg_dist.c and cg_storage.c share, below all three). */
#include "solvers/cg/cg_impl.h"

int mixi_cg_svec_alloc(mix_context *ctx, mix_prec prec, int n, mixi_svec *v)
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

void mixi_cg_svec_free(mix_context *ctx, mixi_svec *v)
{
    ctx->ops->free(ctx->state, v->val);
    ctx->ops->free(ctx->state, v->norm);
    v->val = NULL;
    v->norm = NULL;
}

mix_prec mixi_cg_vector_prec(const mix_context *ctx, int narrow_vectors, mix_prec storage)
{
    return !narrow_vectors && ctx->ops->sparse->spmv_acc_vectors ? mixk_prec_acc(storage) : storage;
}
