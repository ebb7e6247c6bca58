/* cg_storage.c: how far a sloppy copy of A is from the matrix it stands for, measured with one
 * SpMV in each precision (what the escalation rule of solvers/cg/cg.c weighs against kappa). */
#include <math.h>
#include <string.h>
#include "solvers/cg/cg_impl.h"

typedef struct {
    mixi_svec xs, ys, w, u; /* sloppy v and As v; FP64 S v (then the error) and A S v */
} storage_tmp;

static void tmp_free(mix_context *ctx, storage_tmp *t)
{
    mixi_svec *v[4] = {&t->xs, &t->ys, &t->w, &t->u};
    for (int k = 0; k < 4; k++) mixi_cg_svec_free(ctx, v[k]);
}

/* v = random signs (a fixed sequence: the same estimate on every run) into v64, backend memory,
 * through a small host buffer.  Signs are exact in every storage, so As v carries the rounding
 * of A alone; for such a v, E ||E v||^2 = ||E||_F^2, and ||E v|| / ||v|| is the RMS 2-norm of
 * E's rows. */
#define SIGN_CHUNK 65536
static int upload_signs(mix_context *ctx, int n, double *v64)
{
    const int cap = n < SIGN_CHUNK ? n : SIGN_CHUNK;
    double *h = mixi_malloc_n(cap > 0 ? (size_t)cap : 1, sizeof *h);
    if (!h) return MIX_ERR_ALLOC;
    uint64_t s = 0x9e3779b97f4a7c15u;
    int st = MIX_SUCCESS;
    for (int i0 = 0; i0 < n && !st; i0 += cap) {
        const int m = n - i0 < cap ? n - i0 : cap;
        for (int i = 0; i < m; i++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            h[i] = (s >> 63) ? 1.0 : -1.0;
        }
        st = ctx->ops->upload(ctx->state, v64 + i0, h, (size_t)m * sizeof *h);
    }
    mixi_free(h);
    return st;
}

/* z = As v - S A S v in four vectors: v goes into u, which A S v then overwrites, and z
 * accumulates in w once S v has served.  A solve's first use of fresh memory costs page
 * faults (a KVM guest after an FP64 solve: 300 ms for the six vectors and the host buffer this
 * took before, 3D Poisson 150^3), so the fewer the better; the sums are the same, in the same
 * order. */
static int measure(mix_sparse *A, const mixi_spmat *As, const double *S, mix_prec vprec,
                   storage_tmp *t, double *eta)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    const int n = A->n;
    double xy, zz = 0.0;
    int st;
    if ((st = mixi_cg_svec_alloc(ctx, vprec, n, &t->xs)) ||
        (st = mixi_cg_svec_alloc(ctx, vprec, n, &t->ys)) ||
        (st = mixi_cg_svec_alloc(ctx, MIX_FP64, n, &t->w)) ||
        (st = mixi_cg_svec_alloc(ctx, MIX_FP64, n, &t->u)) ||
        (st = upload_signs(ctx, n, (double *)t->u.val)) ||
        (st = sp->vec_from64(ctx->state, (const double *)t->u.val, NULL, 1.0, &t->xs, NULL)) ||
        (st = sp->vec_from64(ctx->state, (const double *)t->u.val, S, 1.0, &t->w, NULL)) ||
        (st = sp->spmv(ctx->state, A->a64, &t->w, &t->u, &xy)) ||
        (st = sp->spmv(ctx->state, As, &t->xs, &t->ys, &xy)) ||
        (st = ctx->ops->memset0(ctx->state, t->w.val, (size_t)n * sizeof(double))) ||
        (st = sp->vec_accum64(ctx->state, &t->ys, NULL, 1.0, (double *)t->w.val)) ||
        (st = sp->vec_accum64(ctx->state, &t->u, S, -1.0, (double *)t->w.val)) ||
        (st = sp->nrm2sq64(ctx->state, n, (const double *)t->w.val, &zz)))
        zz = 0.0;
    /* Distributed: the local blocks' errors over the whole matrix's rows (the off-process
     * block's rounding is left out), the same eta on every rank.  A rank's failure (an
     * allocation) travels in the same sum, so that no rank is left waiting in it. */
    double v[2] = {zz, st};
    const int s = mixi_cg_sum(A, v, 2);
    if (s) return s;
    if (v[1] != 0.0) return mixi_cg_agree(A, st);
    *eta = isfinite(v[0]) ? sqrt(v[0] / mixi_cg_n(A)) : INFINITY;
    return MIX_SUCCESS;
}

int mixi_cg_storage_error(mix_sparse *A, mix_prec prec, int jacobi, double *eta)
{
    jacobi = jacobi ? 1 : 0;
    if (prec == MIX_FP64) {
        *eta = 0.0;
        return MIX_SUCCESS;
    }
    if (A->eta_known[jacobi][prec]) {
        *eta = A->eta[jacobi][prec];
        return MIX_SUCCESS;
    }
    const mixi_spmat *As;
    const double *S;
    int st = mixi_sparse_sloppy(A, prec, jacobi, &As, &S);
    if (st) return st;
    storage_tmp t;
    memset(&t, 0, sizeof t);
    st = measure(A, As, S, mixi_cg_vector_prec(A->ctx, 0, prec), &t, eta);
    tmp_free(A->ctx, &t);
    if (!st) {
        A->eta[jacobi][prec] = *eta;
        A->eta_known[jacobi][prec] = 1;
    }
    return st;
}
