/* sparse_lu_api.c: mix_dgesv_sparse and mix_sparse_lu_memory: argument checks and defaults of the general sparse driver. */
#include <math.h>
#include "mix_internal.h"
#include "solvers/sparse_lu/sparse_lu.h"

static int max1(int v) { return v > 1 ? v : 1; }

/* The expert parameters this driver takes: FP32, FP64 or AUTO factors; no CG refinement. */
static int check_params(const mix_gesv_params *p)
{
    if (!p) return 0;
    if (p->factor_prec != MIX_FP32 && p->factor_prec != MIX_FP64 &&
        p->factor_prec != MIX_PREC_AUTO)
        return -2;
    if (p->refine != MIX_REFINE_CLASSICAL && p->refine != MIX_REFINE_GMRES &&
        p->refine != MIX_REFINE_AUTO)
        return -2;
    if (!(p->tol >= 0.0) || !isfinite(p->tol)) return -2;
    if (p->max_iter < 0 || p->gmres_restart < 1 || p->history_capacity < 0) return -2;
    if (p->history_capacity > 0 && !p->residual_history) return -2;
    return 0;
}

static int check_args(mix_context *ctx, const mix_gesv_params *p, const mix_sparse *A, int nrhs,
                      const double *b, int ldb, const double *x, int ldx)
{
    if (!ctx) return -1;
    int rc = check_params(p);
    if (rc) return rc;
    if (!A || A->ctx != ctx) return -3;
    if (nrhs < 0) return -4;
    if (!b && nrhs > 0) return -5;
    if (ldb < max1(A->n)) return -6;
    if (!x && nrhs > 0) return -7;
    if (ldx < max1(A->n)) return -8;
    return 0;
}

int mix_dgesv_sparse(mix_context *ctx, const mix_gesv_params *p, mix_sparse *A, int nrhs,
                     const double *b, int ldb, double *x, int ldx, mix_gesv_info *info)
{
    /* An illegal argument writes nothing, info included (as mix_dgesv_ir). */
    int rc = check_args(ctx, p, A, nrhs, b, ldb, x, ldx);
    if (rc) return rc;
    mix_gesv_info local;
    if (!info) info = &local;
    *info = (mix_gesv_info){0};
    if (nrhs == 0) return MIX_SUCCESS;
    if (!(ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY) || !ctx->ops->sparse_lu)
        return info->status = MIX_ERR_UNSUPPORTED;
    mix_gesv_params defaults; /* the solvers take parameters as given */
    if (!p) {
        mix_gesv_params_init(&defaults);
        p = &defaults;
    }
    double *bcopy;
    const size_t sb = (size_t)(nrhs - 1) * (size_t)ldb + (size_t)A->n;
    const size_t sx = (size_t)(nrhs - 1) * (size_t)ldx + (size_t)A->n;
    if ((rc = mixi_unalias(ctx, &b, sb, x, sx, &bcopy))) return info->status = rc;
    rc = mixi_sparse_lu_run(ctx, p, A, nrhs, b, ldb, x, ldx, info);
    ctx->ops->free(ctx->state, bcopy);
    return rc;
}

int mix_sparse_lu_memory(mix_context *ctx, mix_sparse *A, mix_prec prec, int64_t *factor_bytes,
                         int64_t *peak_bytes)
{
    if (!ctx) return -1;
    if (!A || A->ctx != ctx) return -2;
    if (prec != MIX_FP32 && prec != MIX_FP64) return -3;
    if (!factor_bytes) return -4;
    if (!peak_bytes) return -5;
    if (!ctx->ops->sparse_lu) return MIX_ERR_UNSUPPORTED;
    return mixi_sparse_lu_memory(ctx, A, prec, factor_bytes, peak_bytes);
}
