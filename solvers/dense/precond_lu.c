/* precond_lu.c: the low-precision LU factors as a preconditioner (M^{-1} through getrs_f32_f64). */
#include "solvers/dense/dense.h"
#include "solvers/dense/lu_profile.h"

static int lu_apply(const mixi_precond *self, int k, const double *r, int ldr, double *c, int ldc)
{
    const mixi_factor_precond *M = (const mixi_factor_precond *)self;
    mix_context *ctx = self->ctx;
    double t0;
    int rc = mixi_lu_profile_begin(ctx, &t0);
    return rc ? rc
              : mixi_lu_profile_end(ctx, MIXI_LU_PH_SOLVE, t0,
                                    ctx->ops->dense->getrs_f32_f64(ctx->state, self->n, k, M->f,
                                                                   M->ldf, M->ipiv, M->r, M->c,
                                                                   M->s, r, ldr, c, ldc, M->work));
}

void mixi_lu_precond_init(mixi_factor_precond *M, mix_context *ctx, int n, const float *lu,
                          int ldlu, const int *ipiv, const double *r, const double *c, double s,
                          float *work)
{
    *M = (mixi_factor_precond){{lu_apply, ctx, n}, lu, ldlu, ipiv, r, c, s, work};
}
