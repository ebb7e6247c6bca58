/* precond_chol.c: the low-precision Cholesky factor as a preconditioner (M^{-1} through potrs_f32_f64). */
#include "solvers/dense/dense.h"

static int chol_apply(const mixi_precond *self, int k, const double *r, int ldr, double *c,
                      int ldc)
{
    const mixi_factor_precond *M = (const mixi_factor_precond *)self;
    mix_context *ctx = self->ctx;
    return ctx->ops->dense->potrs_f32_f64(ctx->state, self->n, k, M->f, M->ldf, M->r, M->s, r,
                                          ldr, c, ldc, M->work);
}

void mixi_chol_precond_init(mixi_factor_precond *M, mix_context *ctx, int n, const float *l,
                            int ldl, const double *d, double s, float *work)
{
    *M = (mixi_factor_precond){{chol_apply, ctx, n}, l, ldl, NULL, d, NULL, s, work};
}
