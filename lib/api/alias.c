/* alias.c: a right-hand side that overlaps the solution copied aside, for the dense and the CG
 * drivers alike (both call it; neither calls the other). */
#include "mix_internal.h"

int mixi_unalias(mix_context *ctx, const double **b, size_t sb, const double *x, size_t sx,
                 double **copy)
{
    size_t bbytes, xbytes;
    int rc;
    *copy = NULL;
    if ((rc = mixi_mul_size(sb, sizeof(double), &bbytes)) ||
        (rc = mixi_mul_size(sx, sizeof(double), &xbytes)))
        return rc;
    if (!mixi_overlap(*b, bbytes, x, xbytes)) return MIX_SUCCESS;
    if ((rc = ctx->ops->alloc(ctx->state, (void **)copy, bbytes)) ||
        (rc = ctx->ops->copy(ctx->state, *copy, *b, bbytes))) {
        ctx->ops->free(ctx->state, *copy);
        *copy = NULL;
        return rc;
    }
    *b = *copy;
    return MIX_SUCCESS;
}
