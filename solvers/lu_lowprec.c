/* lu_lowprec.c: blocked right-looking LU in FP32 storage with trailing updates in a chosen GEMM precision. */
#include <stdint.h>
#include "solvers/solvers.h"

size_t mixi_lu_gemm_work_floats(int n, int nb)
{
    /* Largest update: (n - nb) x nb panel L21 plus nb x (n - nb) block U12. */
    size_t floats;
    /* Saturates: the allocation of SIZE_MAX floats then fails cleanly. */
    return mixi_mul3_size(2, (size_t)n, (size_t)nb, &floats) ? SIZE_MAX : floats;
}

int mixi_lu_lowprec(mix_context *ctx, mix_prec compute, int n, float *a, int lda, int *ipiv, int nb,
                    void *gemm_work, void *panel_work, int *failed)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    void *st = ctx->state;
    *failed = 0;
#define A_(i, j) (a + (size_t)(j) * (size_t)lda + (size_t)(i))
    for (int j = 0; j < n; j += nb) {
        int jb = n - j < nb ? n - j : nb;
        int pinfo = 0, rc;
        rc = d->getrf_panel_f32(st, n - j, jb, A_(j, j), lda, ipiv + j, j, panel_work, &pinfo);
        if (rc) return rc;
        if (pinfo != 0) { /* zero pivot or NaN: this precision cannot factor the matrix */
            *failed = 1;
            return MIX_SUCCESS;
        }
        /* The panel's interchanges on the columns left and right of it. */
        if (j > 0 && (rc = d->laswp_f32(st, j, A_(0, 0), lda, j + 1, j + jb, ipiv))) return rc;
        int rest = n - j - jb;
        if (rest > 0) {
            if ((rc = d->laswp_f32(st, rest, A_(0, j + jb), lda, j + 1, j + jb, ipiv))) return rc;
            if ((rc = d->trsm_f32(st, MIXK_LEFT, MIXK_LOWER, MIXK_NOTRANS, MIXK_UNIT, jb, rest,
                                  A_(j, j), lda, A_(j, j + jb), lda)))
                return rc;
            size_t ovf = 0;
            rc = d->gemm_f32(st, compute, MIXK_NOTRANS, MIXK_NOTRANS, rest, rest, jb, -1.0f,
                             A_(j + jb, j), lda, A_(j, j + jb), lda, 1.0f, A_(j + jb, j + jb), lda,
                             gemm_work, &ovf);
            if (rc) return rc;
            if (ovf) { /* element growth beyond the GEMM input format */
                *failed = 1;
                return MIX_SUCCESS;
            }
        }
    }
#undef A_
    return MIX_SUCCESS;
}
