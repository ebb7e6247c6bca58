/* blocked_lowprec.c: the blocked right-looking factorizations in FP32 storage, LU and Cholesky: one loop over column blocks, a step per family, trailing updates in a chosen GEMM precision. */
#include <stdint.h>
#include "solvers/dense/dense.h"
#include "solvers/dense/lu_profile.h"

size_t mixi_lu_gemm_work_floats(int n, int nb)
{
    /* Largest update: (n - nb) x nb panel L21 plus nb x (n - nb) block U12. */
    size_t floats;
    /* Saturates: the allocation of SIZE_MAX floats then fails cleanly. */
    return mixi_mul3_size(2, (size_t)n, (size_t)nb, &floats) ? SIZE_MAX : floats;
}

/* One factorization in progress: the n x n FP32 matrix a and the workspaces of its steps. */
typedef struct {
    mix_context *ctx;
    const mixi_dense_ops *d;
    void *st;
    mix_prec compute;
    int n, lda;
    float *a;
    int *ipiv; /* LU only */
    void *gemm_work, *panel_work;
    /* LU on a backend with the _chk ops: MIXI_LU_CHECKS ints per step of nb columns (backend
     * memory, zeroed) and their host copy; NULL: each step's checks come back at once. */
    int nb, *chk, *chk_host;
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
    double t0;
    int rc = mixi_lu_profile_begin(B->ctx, &t0);
    mixi_lu_profile_step(jb);
    *pinfo = 0;
    if (!rc && B->chk)
        rc = B->d->getrf_panel_f32_chk(B->st, B->n - j, jb, A_(B, j, j), B->lda, B->ipiv + j, j,
                                       B->panel_work, B->chk + MIXI_LU_CHECKS * (j / B->nb));
    else if (!rc)
        rc = B->d->getrf_panel_f32(B->st, B->n - j, jb, A_(B, j, j), B->lda, B->ipiv + j, j,
                                   B->panel_work, pinfo);
    return mixi_lu_profile_end(B->ctx, MIXI_LU_PH_PANEL, t0, rc);
}

/* A22 -= L21 U12, its overflow check in *ovf or left on the backend. */
static int lu_gemm(const blocked *B, int j, int jb, int rest, size_t *ovf)
{
    const mixi_dense_ops *d = B->d;
    *ovf = 0;
    if (B->chk)
        return d->gemm_f32_chk(B->st, B->compute, MIXK_NOTRANS, MIXK_NOTRANS, rest, rest, jb,
                               -1.0f, A_(B, j + jb, j), B->lda, A_(B, j, j + jb), B->lda, 1.0f,
                               A_(B, j + jb, j + jb), B->lda, B->gemm_work,
                               B->chk + MIXI_LU_CHECKS * (j / B->nb));
    return d->gemm_f32(B->st, B->compute, MIXK_NOTRANS, MIXK_NOTRANS, rest, rest, jb, -1.0f,
                       A_(B, j + jb, j), B->lda, A_(B, j, j + jb), B->lda, 1.0f,
                       A_(B, j + jb, j + jb), B->lda, B->gemm_work, ovf);
}

/* The panel's interchanges on the columns left and right of it, U12, then A22 -= L21 U12 (each a
 * phase of the profile when one is attached). */
static int lu_update(const blocked *B, int j, int jb, int rest, size_t *ovf)
{
    const mixi_dense_ops *d = B->d;
    mix_context *ctx = B->ctx;
    double t0;
    int rc = mixi_lu_profile_begin(ctx, &t0);
    if (!rc && j > 0) rc = d->laswp_f32(B->st, j, A_(B, 0, 0), B->lda, j + 1, j + jb, B->ipiv);
    if (!rc && rest > 0)
        rc = d->laswp_f32(B->st, rest, A_(B, 0, j + jb), B->lda, j + 1, j + jb, B->ipiv);
    if ((rc = mixi_lu_profile_end(ctx, MIXI_LU_PH_LASWP, t0, rc)) || rest == 0) return rc;
    if ((rc = mixi_lu_profile_begin(ctx, &t0)) ||
        (rc = mixi_lu_profile_end(
             ctx, MIXI_LU_PH_TRSM, t0,
             d->trsm_f32(B->st, MIXK_LEFT, MIXK_LOWER, MIXK_NOTRANS, MIXK_UNIT, jb, rest,
                         A_(B, j, j), B->lda, A_(B, j, j + jb), B->lda))) ||
        (rc = mixi_lu_profile_begin(ctx, &t0)))
        return rc;
    return mixi_lu_profile_end(ctx, MIXI_LU_PH_GEMM, t0, lu_gemm(B, j, jb, rest, ovf));
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

/* The checks left on the backend (B->chk) after the step at column j: read back at once where
 * backend memory is the host's (the loop stops where factor_blocked stops on host checks), else
 * all together after the last step, the one wait for the device of the whole loop.  Steps run
 * on the device past a failed one only compute numbers nobody reads: the first failed step
 * decides, panel before update, as on the host.  1 in *failed when a step failed. */
static int read_checks(const blocked *B, int j, int jb, int *failed)
{
    const int s = j / B->nb, eager = B->ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY;
    if (!eager && j + jb < B->n) return MIX_SUCCESS;
    const int from = eager ? s : 0;
    int rc = B->ctx->ops->download(B->st, B->chk_host + MIXI_LU_CHECKS * from,
                                   B->chk + MIXI_LU_CHECKS * from,
                                   (size_t)(s + 1 - from) * MIXI_LU_CHECKS * sizeof(int));
    for (int t = from; !rc && t <= s && !*failed; t++) {
        const int *c = B->chk_host + MIXI_LU_CHECKS * t;
        if (c[MIXI_LU_CHK_INFO] < 0) rc = MIX_ERR_INTERNAL;
        *failed = c[MIXI_LU_CHK_INFO] > 0 || c[MIXI_LU_CHK_NONFINITE] || c[MIXI_LU_CHK_OVERFLOW];
    }
    return rc;
}

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
        if (B->chk && ((rc = read_checks(B, j, jb, failed)) || *failed)) return rc;
    }
    return MIX_SUCCESS;
}

/* LU's failures read the same from the panel's INFO, its NaN/Inf check and the GEMM's
 * overflow (lu_panel_failed, overflow_failed = 1): read_checks needs no family. */
int mixi_lu_lowprec(mix_context *ctx, mix_prec compute, int n, float *a, int lda, int *ipiv, int nb,
                    void *gemm_work, void *panel_work, int *failed)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    blocked B = {ctx, d, ctx->state, compute, n, lda, a, ipiv, gemm_work, panel_work, nb,
                 NULL, NULL};
    const size_t steps = n > 0 ? ((size_t)n + (size_t)nb - 1) / (size_t)nb : 0;
    int rc = MIX_SUCCESS;
    *failed = 0;
    if (steps && d->getrf_panel_f32_chk && d->gemm_f32_chk &&
        (!(B.chk_host = mixi_malloc_n(steps * MIXI_LU_CHECKS, sizeof(int))) ||
         (rc = mixi_balloc(ctx, (void **)&B.chk, steps * MIXI_LU_CHECKS, 1, sizeof(int))) ||
         (rc = ctx->ops->memset0(ctx->state, B.chk, steps * MIXI_LU_CHECKS * sizeof(int)))))
        rc = rc ? rc : MIX_ERR_ALLOC;
    if (!rc) rc = factor_blocked(&B, nb, &lu_family, failed);
    ctx->ops->free(ctx->state, B.chk);
    mixi_free(B.chk_host);
    return rc;
}

int mixi_chol_lowprec(mix_context *ctx, mix_prec compute, int n, float *a, int lda, int nb,
                      void *gemm_work, void *panel_work, int *failed)
{
    const blocked B = {ctx, ctx->ops->dense, ctx->state, compute, n, lda, a, NULL, gemm_work,
                       panel_work, nb, NULL, NULL};
    return factor_blocked(&B, nb, &chol_family, failed);
}
