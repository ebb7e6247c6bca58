/* amg_store.c: the hierarchy cached on a mix_sparse: built once in FP64 (amg_setup.c) from the
 * matrix's CSR, then held by the backend, in FP64 and in each storage precision a solve asks
 * for (converted on first use, as the sloppy copies of CG are). */
#include <string.h>
#include "solvers/amg/amg.h"

static void tent_free(mix_context *ctx, mixi_tent *T)
{
    if (!T) return;
    ctx->ops->free(ctx->state, T->start);
    ctx->ops->free(ctx->state, T->rows);
    ctx->ops->free(ctx->state, T->val);
    ctx->ops->free(ctx->state, T->agg);
    ctx->ops->free(ctx->state, T->row_val);
    mixi_free(T);
}

static void stored_free(mix_context *ctx, mixi_amg_stored *S, int nlev)
{
    for (int l = 0; S && l < nlev; l++) {
        ctx->ops->sparse->csr_destroy(ctx->state, S[l].own_A);
        ctx->ops->sparse->csr_destroy(ctx->state, S[l].P_own);
        ctx->ops->sparse->csr_destroy(ctx->state, S[l].R);
        tent_free(ctx, S[l].T);
    }
    mixi_free(S);
}

void mixi_amg_free(mixi_amg *H, mix_context *ctx)
{
    if (!H) return;
    for (int p = 0; p < MIX_NUM_PREC; p++) stored_free(ctx, H->stored[p], H->nlev);
    stored_free(ctx, H->stored_auto, H->nlev);
    for (int l = 0; l < MIXI_AMG_MAX_LEVELS; l++) {
        mixi_amg_csr_free(&H->lev[l].A);
        mixi_amg_csr_free(&H->lev[l].P);
        mixi_amg_tent_free(&H->lev[l].T);
        mixi_free(H->lev[l].dinv_sqrt);
    }
    mixi_amg_coarse_free(H);
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

static int64_t csr_host_bytes(const mixi_amg_csr *M)
{
    return M->rp ? (int64_t)(M->nr + 1) * 8 + M->rp[M->nr] * 12 : 0;
}

static int64_t tent_host_bytes(const mixi_amg_tent *T)
{
    return T->start ? (int64_t)(T->nc + 2) * 4 + (int64_t)T->n * 12 : 0;
}

/* A = D^-1/2 A D^-1/2 in place (s = D^-1/2). */
static void scale_operator(mixi_amg_csr *A, const double *s)
{
#pragma omp parallel for schedule(static) if (MIXI_AMG_TEAM(A))
    for (int i = 0; i < A->nr; i++)
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++) A->v[k] = s[i] * A->v[k] * s[A->ci[k]];
}

/* What the storage copies are made from, kept on the host: each level's operator scaled in
 * place to D^-1/2 A D^-1/2 (as csr_convert scales, (s_i a_ij) s_j: the same values) and P
 * (already scaled) or, implicit, Th; no R = P^T (the set-up frees its own after the Galerkin
 * product; store_restriction makes one from the scaled P below the fine level).  No FP64
 * backend copy stays resident: a FIXED16 solve never reads one (3-D Poisson 150^3: 458 MB of
 * such copies beside the 366 MB FIXED16 hierarchy until issue 37 round 3). */
static void keep_levels(mixi_amg *H)
{
    H->bytes_host = 0;
    H->host_kept = 1;
    for (int l = 0; l < H->nlev; l++) {
        mixi_amg_level *L = &H->lev[l];
        if (l + 1 == H->nlev) mixi_amg_csr_free(&L->P);
        if (l > 0 && l + 1 == H->nlev && H->coarse_direct) mixi_amg_csr_free(&L->A); /* chol's */
        H->bytes_host += csr_host_bytes(&L->A) + csr_host_bytes(&L->P) + tent_host_bytes(&L->T);
        if (l > 0 && L->A.rp) scale_operator(&L->A, L->dinv_sqrt);
    }
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
     * over one rank its local block is the whole matrix.  (mixi_cg_solve_in_range refuses it
     * first, alike on every rank.) */
    if ((A->dist && A->dist->comm->size > 1) || !ctx->ops->sparse->csr_export ||
        !ctx->ops->sparse->spmv_t)
        return MIX_ERR_UNSUPPORTED;
    const double t0 = mixi_wtime();
    mixi_amg *H = mixi_calloc(1, sizeof *H);
    mixi_amg_csr F = {0};
    if (!H) return MIX_ERR_ALLOC;
    /* Implicit prolongators where the backend applies them over FP32 or FP64 vectors. */
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    H->tent_ok = sp->tent_restrict && sp->tent_prolong && sp->spmv_acc_vectors;
    int borrowed = 0;
    int st = export_fine(A, &F, &borrowed);
    if (!st) st = build_levels(H, &F);
    if (!borrowed) mixi_amg_csr_free(&F);
    if (!st) keep_levels(H);
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

/* The host arrays freed once a set is made: a FIXED16 solve's hierarchy is then its stored
 * copies alone (3-D Poisson 150^3: 266 MB resident instead of 542 with the host arrays, 824 with
 * the FP64 backend copies of round 2).  A later storage (another solve's, an escalation's)
 * reruns the set-up for them: deterministic, checked against the levels H holds. */
static void drop_host(mixi_amg *H)
{
    for (int l = 0; l < H->nlev; l++) {
        if (l > 0) mixi_amg_csr_free(&H->lev[l].A);
        mixi_amg_csr_free(&H->lev[l].P);
        mixi_amg_tent_free(&H->lev[l].T);
    }
    H->host_kept = 0;
    H->bytes_host = 0;
}

static int host_arrays(mix_sparse *A, mixi_amg *H)
{
    if (H->host_kept) return MIX_SUCCESS;
    mixi_amg *T = mixi_calloc(1, sizeof *T);
    mixi_amg_csr F = {0};
    int borrowed = 0;
    if (!T) return MIX_ERR_ALLOC;
    T->tent_ok = H->tent_ok;
    int st = export_fine(A, &F, &borrowed);
    if (!st) st = build_levels(T, &F);
    if (!borrowed) mixi_amg_csr_free(&F);
    if (!st && T->nlev != H->nlev) st = MIX_ERR_INTERNAL;
    for (int l = 0; l < H->nlev && !st; l++)
        if (T->lev[l].n != H->lev[l].n || T->lev[l].nnz != H->lev[l].nnz ||
            T->lev[l].implicit != H->lev[l].implicit)
            st = MIX_ERR_INTERNAL;
    if (!st) {
        keep_levels(T);
        for (int l = 0; l < H->nlev; l++) {
            mixi_amg_level *h = &H->lev[l], *t = &T->lev[l];
            const mixi_amg_csr a = h->A, p = h->P;
            const mixi_amg_tent th = h->T;
            h->A = t->A, h->P = t->P, h->T = t->T;
            t->A = a, t->P = p, t->T = th;
        }
        H->host_kept = 1;
        H->bytes_host = T->bytes_host;
    }
    mixi_amg_free(T, A->ctx);
    return st;
}

/* The host CSR M (square, scaled) in the backend in *prec, one wider on an overflow (the level
 * does not fit: FP16's range); through an FP64 matrix over M's arrays where the backend's memory
 * is the host's, else a transient FP64 copy, which is the result for FP64.
 * rect: M is a prolongator held square, its columns near i nc / n rather than i: SELL's layout
 * for it (csr_convert_rect: column shifts, no diagonal apart) keeps its slices out of the CSR
 * escape (3-D Poisson 150^3, FIXED16: the fine level's P from 111 MB to 75). */
static int from_host(mix_context *ctx, const mixi_amg_csr *M, int rect, mix_prec *prec,
                     mixi_spmat **out)
{
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    mixi_spmat *M64 = NULL;
    const int borrow = sp->csr_borrow_host && *prec != MIX_FP64;
    int st = (borrow ? sp->csr_borrow_host : sp->csr_create)(ctx->state, M->nr, M->rp, M->ci, M->v, &M64);
    *out = NULL;
    while (!st && *prec != MIX_FP64) {
        st = rect && sp->csr_convert_rect ? sp->csr_convert_rect(ctx->state, M64, *prec, NULL, out)
                                          : sp->csr_convert(ctx->state, M64, *prec, NULL, out);
        if (st != MIX_ERR_OVERFLOW) break;
        *prec = *prec == MIX_FP32 ? MIX_FP64 : MIX_FP32, st = MIX_SUCCESS;
    }
    if (!st && *prec == MIX_FP64 && borrow) { /* widened to FP64: the result owns its copy */
        sp->csr_destroy(ctx->state, M64), M64 = NULL;
        st = sp->csr_create(ctx->state, M->nr, M->rp, M->ci, M->v, &M64);
    }
    if (!st && *prec == MIX_FP64) *out = M64, M64 = NULL;
    sp->csr_destroy(ctx->state, M64);
    return st;
}

static int64_t bytes_of(mix_context *ctx, const mixi_spmat *M)
{
    int64_t c = 0;
    return M && !ctx->ops->sparse->csr_bytes(ctx->state, M, &c) ? c : 0;
}

/* Th's values in vprec (rounded once from the FP64 ones) by aggregates (val) and by rows
 * (row_val, with each row's aggregate agg; the rows in no aggregate: group nc, value 0). */
static void tent_values(const mixi_amg_tent *H, mix_prec vprec, void *val, int32_t *agg, void *row_val)
{
    for (int a = 0; a <= H->nc; a++)
        for (int32_t k = H->start[a]; k < H->start[a + 1]; k++) {
            const int32_t i = H->rows[k];
            agg[i] = a;
            if (vprec == MIX_FP64) {
                ((double *)val)[k] = ((double *)row_val)[i] = H->val[k];
            } else {
                ((float *)val)[k] = ((float *)row_val)[i] = (float)H->val[k];
            }
        }
}

/* Th in the backend with values in vprec (the V-cycle's vectors); *bytes += its. */
static int tent_store(mix_context *ctx, const mixi_amg_tent *H, mix_prec vprec, mixi_tent **out,
                      int64_t *bytes)
{
    const size_t el = vprec == MIX_FP64 ? sizeof(double) : sizeof(float);
    const size_t sb = ((size_t)H->nc + 2) * sizeof(int32_t), rb = (size_t)H->n * sizeof(int32_t);
    const size_t vb = (size_t)H->n * el;
    const int host = (ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY) != 0;
    mixi_tent *T = mixi_calloc(1, sizeof *T);
    int32_t *agg = NULL;
    void *val = NULL, *row_val = NULL;
    if (!T) return MIX_ERR_ALLOC;
    T->n = H->n, T->nc = H->nc, T->prec = vprec;
    int st = ctx->ops->alloc(ctx->state, (void **)&T->start, sb);
    if (!st) st = ctx->ops->alloc(ctx->state, (void **)&T->rows, rb + sizeof(int32_t));
    if (!st) st = ctx->ops->alloc(ctx->state, (void **)&T->agg, rb + sizeof(int32_t));
    if (!st) st = ctx->ops->alloc(ctx->state, &T->val, vb + el);
    if (!st) st = ctx->ops->alloc(ctx->state, &T->row_val, vb + el);
    if (!st) st = ctx->ops->upload(ctx->state, T->start, H->start, sb);
    if (!st) st = ctx->ops->upload(ctx->state, T->rows, H->rows, rb);
    if (!st) { /* made in place on the host, else staged there */
        agg = host ? T->agg : mixi_malloc_n((size_t)H->n + 1, sizeof *agg);
        val = host ? T->val : mixi_malloc_n((size_t)H->n + 1, el);
        row_val = host ? T->row_val : mixi_malloc_n((size_t)H->n + 1, el);
        if (!agg || !val || !row_val) st = MIX_ERR_ALLOC;
    }
    if (!st) tent_values(H, vprec, val, agg, row_val);
    if (!st && !host) st = ctx->ops->upload(ctx->state, T->val, val, vb);
    if (!st && !host) st = ctx->ops->upload(ctx->state, T->agg, agg, rb);
    if (!st && !host) st = ctx->ops->upload(ctx->state, T->row_val, row_val, vb);
    if (!host) mixi_free(agg), mixi_free(val), mixi_free(row_val);
    if (st) {
        tent_free(ctx, T);
        return st;
    }
    *bytes += (int64_t)(sb + 2 * rb + 2 * vb);
    *out = T;
    return MIX_SUCCESS;
}

/* R = P^T (P host, square, scaled) in P's storage, rows past the coarse order empty: below the
 * fine level, where the cycle restricts twice a visit (amg_cycle.c) and R is small, a product
 * instead of the transposed one's scatter (3-D Poisson 150^3, FIXED16, level 1: 0.87 ms against
 * 1.94, level 2 0.11 against 0.29, best of 40; 13 MB with its SELL padding, 194 MB in all). */
static int store_restriction(mix_context *ctx, const mixi_amg_csr *P, mix_prec prec,
                             mixi_spmat **out)
{
    mixi_amg_csr R = {0};
    int st = mixi_amg_csr_transpose(P, &R);
    if (!st) st = from_host(ctx, &R, 1, &prec, out);
    mixi_amg_csr_free(&R);
    return st;
}

/* Level l of a set in the storage prec: its operator (level 0: the mix_sparse's Jacobi copy; the
 * coarsest: none where the Cholesky factor solves it) and P, in prec or wider where the level
 * does not fit, or Th with values in vprec where the level's P is implicit; *bytes += theirs.
 * M: the operator already converted in prec (AUTO's), or NULL. */
static int store_level(mix_sparse *A, mixi_amg *H, int l, mix_prec prec, mix_prec vprec,
                       mixi_spmat *M, mixi_amg_stored *S, int64_t *bytes)
{
    mix_context *ctx = A->ctx;
    const double *scale0;
    int st = MIX_SUCCESS;
    S->prec = prec;
    if (l == 0) {
        if ((st = mixi_sparse_sloppy(A, S->prec, 1, &S->A, &scale0))) return st;
        H->scale[0] = (double *)scale0;
    } else if (M) {
        S->A = S->own_A = M;
    } else if (H->lev[l].A.rp && (st = from_host(ctx, &H->lev[l].A, 0, &S->prec, &S->own_A))) {
        return st;
    }
    if (l > 0) S->A = S->own_A;
    /* P in the level's storage (FP32 until round 2 of issue 37: 3-D Poisson 100^3, hierarchy
     * 101 MB instead of 113, the V-cycle's time unchanged within the noise). */
    mix_prec pp = S->prec;
    if (l + 1 < H->nlev && H->lev[l].implicit)
        st = tent_store(ctx, &H->lev[l].T, vprec, &S->T, bytes);
    else if (l + 1 < H->nlev)
        st = from_host(ctx, &H->lev[l].P, 1, &pp, &S->P_own);
    if (!st && l > 0 && S->P_own) st = store_restriction(ctx, &H->lev[l].P, pp, &S->R);
    if (st) return st;
    S->P = S->P_own;
    *bytes += bytes_of(ctx, S->A) + bytes_of(ctx, S->P) + bytes_of(ctx, S->R);
    return MIX_SUCCESS;
}

/* The storage of level l for a requested storage: 16 bits where the level fits them. */
static mix_prec level_prec(const mixi_amg *H, int l, mix_prec prec)
{
    if (prec == MIX_FP64 || prec == MIX_FP32) return prec;
    return mixi_amg_fits16(&H->lev[l]) ? prec : MIX_FP32;
}

/* AUTO's level l >= 1: the candidates (the fine level's 16-bit storage where the level fits it,
 * FP32) converted and their SpMVs timed (amg_auto.c), the pick kept. */
static int auto_level(mix_context *ctx, const mixi_amg *H, int l, mix_prec fine, mix_prec *prec,
                      mixi_spmat **M)
{
    const mixi_amg_level *L = &H->lev[l];
    mixi_spmat *C[MIX_NUM_PREC] = {0};
    double t[MIX_NUM_PREC] = {0};
    int cand[MIX_NUM_PREC] = {0}, st = MIX_SUCCESS;
    *M = NULL;
    *prec = level_prec(H, l, fine);
    if (!L->A.rp) return MIX_SUCCESS; /* the coarsest, solved by its Cholesky factor */
    cand[MIX_FP32] = 1, cand[*prec] = 1;
    for (int p = 0; p < MIX_NUM_PREC && !st; p++) {
        mix_prec q = (mix_prec)p;
        if (!cand[p]) continue;
        if (!(st = from_host(ctx, &L->A, 0, &q, &C[p])) && q != (mix_prec)p) cand[p] = 0; /* widened */
        if (!st && cand[p]) st = mixi_amg_time_spmv(ctx, C[p], L->n, &t[p]);
    }
    if (!st) *prec = mixi_amg_level_pick(L, fine, t);
    for (int p = 0; p < MIX_NUM_PREC; p++) {
        if (!st && p == (int)*prec) *M = C[p];
        else ctx->ops->sparse->csr_destroy(ctx->state, C[p]);
    }
    return st;
}

/* The levels of a set for the request `want` (MIX_PREC_AUTO: per level, from the fine level's
 * AUTO storage `fine`). */
static int store_levels(mix_sparse *A, mixi_amg *H, mix_prec want, mix_prec fine,
                        mixi_amg_stored *S, int64_t *bytes)
{
    int st = MIX_SUCCESS;
    const mix_prec vprec = mixi_amg_vector_prec(A->ctx, want == MIX_PREC_AUTO ? fine : want);
    *bytes = 0;
    for (int l = 0; l < H->nlev && !st; l++) {
        mix_prec p = level_prec(H, l, want == MIX_PREC_AUTO ? fine : want);
        mixi_spmat *M = NULL;
        if (want == MIX_PREC_AUTO && l > 0) st = auto_level(A->ctx, H, l, fine, &p, &M);
        if (!st) st = store_level(A, H, l, p, vprec, M, &S[l], bytes);
    }
    return st;
}

int mixi_amg_stored_get(mix_sparse *A, mixi_amg *H, mix_prec prec, const mixi_amg_stored **out)
{
    const int is_auto = prec == MIX_PREC_AUTO;
    if (!is_auto && ((int)prec < 0 || prec >= MIX_NUM_PREC || !mixk_prec_storage(prec)))
        return MIX_ERR_INVALID_ARG;
    /* AUTO: the fine level's storage by CG's rule (cg_auto.c); FP64 there is FP64 throughout
     * (the V-cycle's vectors are FP64 over it, and the SpMV takes no FP32 vectors over FP64).
     * Once the AUTO set is made its storage stays: a later rule's pick (other rates, another
     * MIXSOLVE_SPMV_RATES) would otherwise be reported for levels stored in the first one. */
    const mix_prec fine = !is_auto ? prec : H->stored_auto ? H->auto_fine : mixi_cg_auto_prec(A);
    if (is_auto) H->auto_fine = fine; /* what the solve reports and sizes its vectors for */
    if (is_auto && fine == MIX_FP64) return mixi_amg_stored_get(A, H, MIX_FP64, out);
    mixi_amg_stored **slot = is_auto ? &H->stored_auto : &H->stored[prec];
    int64_t *bytes = is_auto ? &H->bytes_auto : &H->bytes_stored[prec];
    if (!*slot) {
        mixi_amg_stored *S = mixi_calloc((size_t)H->nlev, sizeof *S);
        if (!S) return MIX_ERR_ALLOC;
        int st = host_arrays(A, H);
        if (!st) st = store_levels(A, H, prec, fine, S, bytes);
        drop_host(H);
        if (st) { /* a failed level drops the whole set: the next solve starts over */
            stored_free(A->ctx, S, H->nlev);
            *bytes = 0;
            return st;
        }
        *slot = S;
    }
    *out = *slot;
    return MIX_SUCCESS;
}
