/* chol_lowprec.c: blocked right-looking Cholesky in FP32 storage with trailing updates in a chosen GEMM precision. */
#include "solvers/solvers.h"

int mixi_chol_lowprec(mix_context *ctx, mix_prec compute, int n, float *a, int lda, int nb,
                      void *gemm_work, void *panel_work, int *failed)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    void *st = ctx->state;
    *failed = 0;
#define A_(i, j) (a + (size_t)(j) * (size_t)lda + (size_t)(i))
    for (int j = 0; j < n; j += nb) {
        int jb = n - j < nb ? n - j : nb;
        int pinfo = 0, rc;
        if ((rc = d->potrf_f32(st, jb, A_(j, j), lda, panel_work, &pinfo))) return rc;
        if (pinfo != 0) { /* not positive definite (or NaN/Inf) in this precision */
            *failed = pinfo > 0 ? j + pinfo : -1;
            return MIX_SUCCESS;
        }
        int rest = n - j - jb;
        if (rest > 0) {
            /* L21 = A21 L11^{-T}, then A22 -= L21 L21^T. */
            if ((rc = d->trsm_f32(st, MIXK_RIGHT, MIXK_LOWER, MIXK_TRANS, MIXK_NONUNIT, rest, jb,
                                  A_(j, j), lda, A_(j + jb, j), lda)))
                return rc;
            size_t ovf = 0;
            if ((rc = d->syrk_f32(st, compute, rest, jb, -1.0f, A_(j + jb, j), lda, 1.0f,
                                  A_(j + jb, j + jb), lda, gemm_work, &ovf)))
                return rc;
            if (ovf) { /* an entry of L21 beyond the GEMM input format */
                *failed = -1;
                return MIX_SUCCESS;
            }
        }
    }
#undef A_
    return MIX_SUCCESS;
}
