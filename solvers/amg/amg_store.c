/* amg_store.c: the hierarchy cached on a mix_sparse: built once in FP64 (amg_setup.c) from the
 * matrix's CSR, then held by the backend, in FP64 and in each storage precision a solve asks
 * for (converted on first use, as the sloppy copies of CG are). */
#include <string.h>
#include "solvers/amg/amg.h"

void mixi_amg_free(mixi_amg *H, mix_context *ctx)
{
    if (!H) return;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    for (int p = 0; p < MIX_NUM_PREC; p++) {
        for (int l = 0; H->stored[p] && l < H->nlev; l++) {
            sp->csr_destroy(ctx->state, H->stored[p][l].own_A);
            sp->csr_destroy(ctx->state, H->stored[p][l].P_own);
            sp->csr_destroy(ctx->state, H->stored[p][l].R_own);
        }
        mixi_free(H->stored[p]);
    }
    for (int l = 0; l < MIXI_AMG_MAX_LEVELS; l++) {
        sp->csr_destroy(ctx->state, H->base_A[l]);
        sp->csr_destroy(ctx->state, H->base_P[l]);
        sp->csr_destroy(ctx->state, H->base_R[l]);
        if (l > 0) ctx->ops->free(ctx->state, H->scale[l]);
        mixi_amg_csr_free(&H->lev[l].A);
        mixi_amg_csr_free(&H->lev[l].P);
        mixi_amg_csr_free(&H->lev[l].R);
        mixi_free(H->lev[l].dinv_sqrt);
    }
    mixi_free(H->chol);
    mixi_free(H);
}

/* The user's matrix as host CSR: the backend's own arrays where they are host memory (*borrowed
 * set: not to be freed), else a copy. */
static int export_fine(mix_sparse *A, mixi_amg_csr *M, int *borrowed)
{
    const mixi_sparse_ops *sp = A->ctx->ops->sparse;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int64_t nnz;
    *borrowed = sp->csr_host_view && !sp->csr_host_view(A->ctx->state, A->a64, &rp, &ci, &v);
    if (*borrowed) { /* read only: the set-up takes the fine level as const */
        *M = (mixi_amg_csr){A->n, A->n, (int64_t *)rp, (int32_t *)ci, (double *)v};
        return MIX_SUCCESS;
    }
    int st = sp->csr_export(A->ctx->state, A->a64, &nnz, NULL, NULL, NULL);
    if (!st) st = mixi_amg_csr_alloc(M, A->n, A->n, nnz);
    if (!st) st = sp->csr_export(A->ctx->state, A->a64, &nnz, M->rp, M->ci, M->v);
    return st;
}

/* Levels coarsened from the fine matrix F until small enough (or not worth it); the coarsest
 * operator kept on the host, factored where small. */
static int build_levels(mixi_amg *H, mixi_amg_csr *F)
{
    const mixi_amg_csr *A = F;
    int st, stop = 0;
    for (int l = 0; !stop; l++) {
        mixi_amg_csr Ac = {0};
        H->nlev = l + 1;
        if ((st = mixi_amg_coarsen(H, l, A, &Ac, &stop))) return st;
        if (!stop) H->lev[l + 1].A = Ac;
        A = stop ? A : &H->lev[l + 1].A;
    }
    H->coarse_direct = H->lev[H->nlev - 1].n <= MIXI_AMG_DIRECT_N;
    return H->coarse_direct ? mixi_amg_coarse_factor(H, A) : MIX_SUCCESS;
}

/* The backend's FP64 copies of levels >= 1 (operators, D^-1/2) and of every P and R. */
static int upload_levels(mix_context *ctx, mixi_amg *H)
{
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    int st = MIX_SUCCESS;
    for (int l = 0; l < H->nlev && !st; l++) {
        mixi_amg_level *L = &H->lev[l];
        const size_t vb = (size_t)L->n * sizeof(double);
        if (l > 0 && !(st = sp->csr_create(ctx->state, L->n, L->A.rp, L->A.ci, L->A.v, &H->base_A[l])) &&
            !(st = ctx->ops->alloc(ctx->state, (void **)&H->scale[l], vb)))
            st = ctx->ops->upload(ctx->state, H->scale[l], L->dinv_sqrt, vb);
        if (!st && l + 1 < H->nlev &&
            !(st = sp->csr_create(ctx->state, L->n, L->P.rp, L->P.ci, L->P.v, &H->base_P[l])))
            st = sp->csr_create(ctx->state, L->n, L->R.rp, L->R.ci, L->R.v, &H->base_R[l]);
    }
    for (int l = 1; l < H->nlev; l++) mixi_amg_csr_free(&H->lev[l].A);
    for (int l = 0; l < H->nlev; l++) mixi_amg_csr_free(&H->lev[l].P), mixi_amg_csr_free(&H->lev[l].R);
    return st;
}

int mixi_amg_get(mix_sparse *A, mixi_amg **out, double *t)
{
    mix_context *ctx = A->ctx;
    *t = 0.0;
    if (A->amg) {
        *out = A->amg;
        return MIX_SUCCESS;
    }
    /* A distributed matrix over more than one rank needs a distributed hierarchy (mix_dcg(3));
     * over one rank its local block is the whole matrix. */
    if ((A->dist && mixi_cg_n(A) != (double)A->n) || !ctx->ops->sparse->csr_export)
        return MIX_ERR_UNSUPPORTED;
    const double t0 = mixi_wtime();
    mixi_amg *H = mixi_calloc(1, sizeof *H);
    mixi_amg_csr F = {0};
    if (!H) return MIX_ERR_ALLOC;
    int borrowed = 0;
    int st = export_fine(A, &F, &borrowed);
    if (!st) st = build_levels(H, &F);
    if (!borrowed) mixi_amg_csr_free(&F);
    if (!st) st = upload_levels(ctx, H);
    if (st) {
        mixi_amg_free(H, ctx);
        return st;
    }
    H->t_setup = *t = mixi_wtime() - t0;
    A->amg = H;
    A->amg_free = mixi_amg_free;
    *out = H;
    return MIX_SUCCESS;
}

/* A coarse operator with more than this share of off-diagonal entries below 2^-8 of their
 * row's largest is stored in FP32 instead of a 16-bit format: a FIXED16 row step keeps fewer
 * than 7 bits of them (the smoothed-aggregation operators of the 3-D Poisson stencil: 0-5%). */
#define AMG_TINY_MAX_PCT 25

/* The storage of level l for a requested storage: 16 bits where the level fits them. */
static mix_prec level_prec(const mixi_amg *H, int l, mix_prec prec)
{
    if (prec == MIX_FP64 || prec == MIX_FP32) return prec;
    return H->lev[l].tiny_share_pct > AMG_TINY_MAX_PCT ? MIX_FP32 : prec;
}

/* Converts M into prec (FP64: M itself unless scaled), one wider on an overflow (the level does
 * not fit: FP16's range). */
static int convert(mix_context *ctx, const mixi_spmat *M, mix_prec *prec, const double *scale,
                   mixi_spmat **out)
{
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    int st = sp->csr_convert(ctx->state, M, *prec, scale, out);
    if (st == MIX_ERR_OVERFLOW && *prec != MIX_FP64) {
        *prec = *prec == MIX_FP32 ? MIX_FP64 : MIX_FP32;
        return convert(ctx, M, prec, scale, out);
    }
    return st;
}

static int store_level(mix_sparse *A, mixi_amg *H, int l, mix_prec want, mixi_amg_stored *S)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    const double *scale0;
    int64_t b = 0, c;
    int st;
    S->prec = level_prec(H, l, want);
    if (l == 0) {
        if ((st = mixi_sparse_sloppy(A, S->prec, 1, &S->A, &scale0))) return st;
        H->scale[0] = (double *)scale0;
        if (!sp->csr_bytes(ctx->state, S->A, &c)) b += c;
    } else {
        if ((st = convert(ctx, H->base_A[l], &S->prec, H->scale[l], &S->own_A))) return st;
        S->A = S->own_A;
        if (!sp->csr_bytes(ctx->state, S->A, &c)) b += c;
    }
    if (l + 1 < H->nlev) {
        /* P and R in the level's storage (FP32 until round 2 of issue 37: 3-D Poisson 100^3,
         * hierarchy 101 MB instead of 113, the V-cycle's time unchanged within the noise). */
        mix_prec pp = S->prec;
        if (pp == MIX_FP64) {
            S->P = H->base_P[l], S->R = H->base_R[l];
        } else {
            if ((st = convert(ctx, H->base_P[l], &pp, NULL, &S->P_own))) return st;
            if ((st = convert(ctx, H->base_R[l], &pp, NULL, &S->R_own))) return st;
            S->P = S->P_own, S->R = S->R_own;
        }
        if (!sp->csr_bytes(ctx->state, S->P, &c)) b += c;
        if (!sp->csr_bytes(ctx->state, S->R, &c)) b += c;
    }
    H->bytes_stored[want] += b;
    return MIX_SUCCESS;
}

int mixi_amg_stored_get(mix_sparse *A, mixi_amg *H, mix_prec prec, const mixi_amg_stored **out)
{
    if ((int)prec < 0 || prec >= MIX_NUM_PREC || !mixk_prec_storage(prec)) return MIX_ERR_INVALID_ARG;
    if (!H->stored[prec]) {
        mixi_amg_stored *S = mixi_calloc((size_t)H->nlev, sizeof *S);
        if (!S) return MIX_ERR_ALLOC;
        H->stored[prec] = S;
        H->bytes_stored[prec] = 0;
        for (int l = 0; l < H->nlev; l++) {
            const int st = store_level(A, H, l, prec, &S[l]);
            if (st) { /* a failed level drops the whole set: the next solve starts over */
                for (int k = 0; k < H->nlev; k++) {
                    A->ctx->ops->sparse->csr_destroy(A->ctx->state, S[k].own_A);
                    A->ctx->ops->sparse->csr_destroy(A->ctx->state, S[k].P_own);
                    A->ctx->ops->sparse->csr_destroy(A->ctx->state, S[k].R_own);
                }
                mixi_free(S);
                H->stored[prec] = NULL;
                return st;
            }
        }
    }
    *out = H->stored[prec];
    return MIX_SUCCESS;
}
