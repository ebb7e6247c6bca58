/* lu_profile.c: the phase profile of lu_profile.h: one attached accumulator, phases timed between backend synchronisations. */
#include "solvers/dense/dense.h"
#include "solvers/dense/lu_profile.h"

const char *const mixi_lu_phase_names[MIXI_LU_NPHASES] = {"convert", "panel", "laswp",
                                                          "trsm",    "gemm",  "solve"};

static mixi_lu_profile *_Atomic attached;

void mixi_lu_profile_attach(mixi_lu_profile *p) { attached = p; }

void mixi_lu_profile_step(int nb)
{
    mixi_lu_profile *p = attached;
    if (!p) return;
    if (nb > p->nb) p->nb = nb;
    p->steps++;
}

int mixi_lu_profile_begin(mix_context *ctx, double *t0)
{
    *t0 = 0.0;
    if (!attached) return MIX_SUCCESS;
    int rc = ctx->ops->synchronize(ctx->state);
    *t0 = mixi_wtime();
    return rc;
}

int mixi_lu_profile_end(mix_context *ctx, mixi_lu_phase ph, double t0, int rc)
{
    mixi_lu_profile *p = attached;
    if (rc || !p) return rc;
    if ((rc = ctx->ops->synchronize(ctx->state))) return rc;
    p->seconds[ph] += mixi_wtime() - t0;
    p->calls[ph]++;
    return MIX_SUCCESS;
}
