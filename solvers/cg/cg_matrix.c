/* cg_matrix.c: the matrix CG works on: its FP64 backend copy, and the sloppy copies per storage
 * precision with the scale each gets (FP16/BF16: a uniform power of two; Jacobi: 1/sqrt(a_ii)),
 * converted and cached on first use. */
#include <math.h>
#include "solvers/cg/cg_impl.h"

/* Off-diagonal entries below 2^-8 of their row's largest off-diagonal one: FIXED16 (one
 * scale per row, 15 bits) keeps fewer than 7 bits of them (MIX_PREC_AUTO's test).  The 1e-3
 * couplings of the main job's anisotropic problem sit just above 2^-10, and FIXED16 handed over
 * to FP32 there after 65 iterations. */
static int64_t fixed16_tiny(int n, const int64_t *rowptr, const int32_t *colind, const double *val)
{
    int64_t tiny = 0;
#pragma omp parallel for reduction(+ : tiny) schedule(static) if (rowptr[n] >= (INT64_C(1) << 20))
    for (int i = 0; i < n; i++) {
        double m = 0.0;
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
            if (colind[k] != i && fabs(val[k]) > m) m = fabs(val[k]);
        for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++)
            if (colind[k] != i && val[k] != 0.0 && fabs(val[k]) < 0x1p-8 * m) tiny++;
    }
    return tiny;
}

int mixi_sparse_new(mix_context *ctx, int n, const int64_t *rowptr, const int32_t *colind,
                    const double *val, double amax, mix_sparse **A)
{
    mix_sparse *S = mixi_calloc(1, sizeof *S);
    if (!S) return MIX_ERR_ALLOC;
    S->ctx = ctx;
    S->n = n;
    S->amax = amax;
    S->jacobi_status = -1;
    S->nnz = rowptr[n];
    S->fixed16_tiny = fixed16_tiny(n, rowptr, colind, val);
    int st = ctx->ops->sparse->csr_create(ctx->state, n, rowptr, colind, val, &S->a64);
    if (st) {
        mixi_sparse_free(S);
        return st;
    }
    S->sloppy[0][MIX_FP64] = S->a64;
    *A = S;
    return MIX_SUCCESS;
}

void mixi_sparse_free(mix_sparse *A)
{
    if (!A) return;
    const mixi_backend_ops *ops = A->ctx->ops;
    /* Distributed: the off-process copies share the off block's pattern, which the link frees. */
    if (A->amg) A->amg_free(A->amg, A->ctx);
    if (A->dist) {
        mixi_cg_off_free(A);
        A->dist->free(A->dist);
    }
    for (int j = 0; j < 2; j++)
        for (int p = 0; p < MIX_NUM_PREC; p++)
            if (A->sloppy[j][p] && A->sloppy[j][p] != A->a64)
                ops->sparse->csr_destroy(A->ctx->state, A->sloppy[j][p]);
    /* Converted copies may share the FP64 copy's pattern: it goes last. */
    if (A->a64) ops->sparse->csr_destroy(A->ctx->state, A->a64);
    ops->free(A->ctx->state, A->jacobi);
    ops->free(A->ctx->state, A->uniform);
    mixi_free(A);
}

/* The constant vector c with c^2 amax in [1, 4): FP16/BF16 storage of A without Jacobi. */
static int make_uniform(mix_sparse *A)
{
    const mixi_backend_ops *ops = A->ctx->ops;
    size_t bytes = (size_t)A->n * sizeof(double);
    int e = 1;
    if (A->amax > 0.0) frexp(A->amax, &e); /* amax in [2^(e-1), 2^e) */
    double c = ldexp(1.0, -(int)floor((e - 1) / 2.0));
    double *h = mixi_malloc(bytes);
    if (!h) return MIX_ERR_ALLOC;
    for (int i = 0; i < A->n; i++) h[i] = c;
    int st = ops->alloc(A->ctx->state, (void **)&A->uniform, bytes);
    if (!st) st = ops->upload(A->ctx->state, A->uniform, h, bytes);
    if (st) {
        ops->free(A->ctx->state, A->uniform);
        A->uniform = NULL;
    }
    mixi_free(h);
    return st;
}

int mixi_sparse_sloppy(mix_sparse *A, mix_prec prec, int jacobi, const mixi_spmat **As,
                       const double **scale)
{
    const mixi_backend_ops *ops = A->ctx->ops;
    const mixi_sparse_ops *sp = ops->sparse;
    if ((int)prec < 0 || prec >= MIX_NUM_PREC || !mixk_prec_storage(prec)) return MIX_ERR_INVALID_ARG;
    jacobi = jacobi ? 1 : 0;
    const double *S = NULL;
    if (jacobi) {
        if (A->jacobi_status < 0) {
            if (!sp->diag_rsqrt) return MIX_ERR_NOT_IMPLEMENTED;
            int st = ops->alloc(A->ctx->state, (void **)&A->jacobi, (size_t)A->n * sizeof(double));
            if (st) return st;
            st = sp->diag_rsqrt(A->ctx->state, A->a64, A->jacobi);
            if (st && st != MIX_ERR_NOT_SPD) { /* a transient failure is not remembered */
                ops->free(A->ctx->state, A->jacobi);
                A->jacobi = NULL;
                return st;
            }
            A->jacobi_status = st;
        }
        if (A->jacobi_status) return A->jacobi_status;
        S = A->jacobi;
    } else if (mixk_prec_short_float(prec)) {
        if (!A->uniform) {
            int st = make_uniform(A);
            if (st) return st;
        }
        S = A->uniform;
    }
    if (!A->sloppy[jacobi][prec]) {
        int st = sp->csr_convert(A->ctx->state, A->a64, prec, S, &A->sloppy[jacobi][prec]);
        if (st) {
            A->sloppy[jacobi][prec] = NULL;
            return st;
        }
    }
    *As = A->sloppy[jacobi][prec];
    *scale = S;
    return MIX_SUCCESS;
}
