/* blocked_lowprec.c: the blocked right-looking factorizations in FP32 storage, LU and Cholesky: one loop over column blocks, a step per family, trailing updates in a chosen GEMM precision. */
#include <stdint.h>
#include "solvers/dense/dense.h"

size_t mixi_lu_gemm_work_floats(int n, int nb)
{
    /* Largest update: (n - nb) x nb panel L21 plus nb x (n - nb) block U12. */
    size_t floats;
    /* Saturates: the allocation of SIZE_MAX floats then fails cleanly. */
    return mixi_mul3_size(2, (size_t)n, (size_t)nb, &floats) ? SIZE_MAX : floats;
}

/* One factorization in progress: the n x n FP32 matrix a and the workspaces of its steps. */
typedef struct {
    const mixi_dense_ops *d;
    void *st;
    mix_prec compute;
    int n, lda;
    float *a;
    int *ipiv; /* LU only */
    void *gemm_work, *panel_work;
} blocked;

#define A_(B, i, j) ((B)->a + (size_t)(j) * (size_t)(B)->lda + (size_t)(i))

/* What differs between LU and Cholesky: the panel of columns j .. j + jb - 1 (*pinfo: LAPACK's
 * INFO of it, or -1 for NaN/Inf), the update after it (*ovf: GEMM inputs beyond `compute`), and
 * what *failed says of a panel that failed. */
typedef struct {
    int (*panel)(const blocked *B, int j, int jb, int *pinfo);
    int (*update)(const blocked *B, int j, int jb, int rest, size_t *ovf);
    int (*panel_failed)(int j, int pinfo);
    int overflow_failed;
} family;

static int lu_panel(const blocked *B, int j, int jb, int *pinfo)
{
    return B->d->getrf_panel_f32(B->st, B->n - j, jb, A_(B, j, j), B->lda, B->ipiv + j, j,
                                 B->panel_work, pinfo);
}

/* The panel's interchanges on the columns left and right of it, U12, then A22 -= L21 U12. */
static int lu_update(const blocked *B, int j, int jb, int rest, size_t *ovf)
{
    const mixi_dense_ops *d = B->d;
    int rc;
    if (j > 0 && (rc = d->laswp_f32(B->st, j, A_(B, 0, 0), B->lda, j + 1, j + jb, B->ipiv)))
        return rc;
    if (rest == 0) return MIX_SUCCESS;
    if ((rc = d->laswp_f32(B->st, rest, A_(B, 0, j + jb), B->lda, j + 1, j + jb, B->ipiv)) ||
        (rc = d->trsm_f32(B->st, MIXK_LEFT, MIXK_LOWER, MIXK_NOTRANS, MIXK_UNIT, jb, rest,
                          A_(B, j, j), B->lda, A_(B, j, j + jb), B->lda)))
        return rc;
    return d->gemm_f32(B->st, B->compute, MIXK_NOTRANS, MIXK_NOTRANS, rest, rest, jb, -1.0f,
                       A_(B, j + jb, j), B->lda, A_(B, j, j + jb), B->lda, 1.0f,
                       A_(B, j + jb, j + jb), B->lda, B->gemm_work, ovf);
}

/* Zero pivot or NaN: this precision cannot factor the matrix. */
static int lu_panel_failed(int j, int pinfo)
{
    (void)j; (void)pinfo;
    return 1;
}

static int chol_panel(const blocked *B, int j, int jb, int *pinfo)
{
    return B->d->potrf_f32(B->st, jb, A_(B, j, j), B->lda, B->panel_work, pinfo);
}

/* L21 = A21 L11^{-T}, then A22 -= L21 L21^T. */
static int chol_update(const blocked *B, int j, int jb, int rest, size_t *ovf)
{
    int rc;
    if (rest == 0) return MIX_SUCCESS;
    if ((rc = B->d->trsm_f32(B->st, MIXK_RIGHT, MIXK_LOWER, MIXK_TRANS, MIXK_NONUNIT, rest, jb,
                             A_(B, j, j), B->lda, A_(B, j + jb, j), B->lda)))
        return rc;
    return B->d->syrk_f32(B->st, B->compute, rest, jb, -1.0f, A_(B, j + jb, j), B->lda, 1.0f,
                          A_(B, j + jb, j + jb), B->lda, B->gemm_work, ovf);
}

/* Not positive definite at global order j + pinfo, or NaN/Inf (-1), in this precision. */
static int chol_panel_failed(int j, int pinfo) { return pinfo > 0 ? j + pinfo : -1; }

static const family lu_family = {lu_panel, lu_update, lu_panel_failed, 1};
static const family chol_family = {chol_panel, chol_update, chol_panel_failed, -1};

/* The loop both families share: blocks of nb columns until the end or a failure. */
static int factor_blocked(const blocked *B, int nb, const family *F, int *failed)
{
    *failed = 0;
    for (int j = 0; j < B->n; j += nb) {
        const int jb = B->n - j < nb ? B->n - j : nb;
        int pinfo = 0, rc;
        size_t ovf = 0;
        if ((rc = F->panel(B, j, jb, &pinfo))) return rc;
        if (pinfo != 0) {
            *failed = F->panel_failed(j, pinfo);
            return MIX_SUCCESS;
        }
        if ((rc = F->update(B, j, jb, B->n - j - jb, &ovf))) return rc;
        if (ovf) { /* element growth beyond the GEMM input format */
            *failed = F->overflow_failed;
            return MIX_SUCCESS;
        }
    }
    return MIX_SUCCESS;
}

int mixi_lu_lowprec(mix_context *ctx, mix_prec compute, int n, float *a, int lda, int *ipiv, int nb,
                    void *gemm_work, void *panel_work, int *failed)
{
    const blocked B = {ctx->ops->dense, ctx->state, compute, n, lda, a, ipiv, gemm_work,
                       panel_work};
    return factor_blocked(&B, nb, &lu_family, failed);
}

int mixi_chol_lowprec(mix_context *ctx, mix_prec compute, int n, float *a, int lda, int nb,
                      void *gemm_work, void *panel_work, int *failed)
{
    const blocked B = {ctx->ops->dense, ctx->state, compute, n, lda, a, NULL, gemm_work,
                       panel_work};
    return factor_blocked(&B, nb, &chol_family, failed);
}
