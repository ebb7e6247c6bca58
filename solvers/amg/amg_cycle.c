/* amg_cycle.c: one multigrid cycle z = M r (a V-cycle on the fine level, two coarse corrections
 * below it: corrections()) over the backend's sparse operations, in the scaled unknowns
 * of each level (D^-1/2 A D^-1/2 has a unit diagonal, so the smoother needs no diagonal
 * operation): Chebyshev smoothing before and after (the same polynomial, so M is symmetric),
 * restriction by P^T (a stored R below the fine level, else the backend's spmv_t) and
 * prolongation by P, or, on a level
 * whose P is implicit, (I - w A^) Th and its transpose through the level's own operator and
 * the tentative Th (tent_restrict, tent_prolong), a dense FP64 solve on the coarsest level.
 * Vectors are FP32 over 16-bit and FP32 levels (the SpMV kernels' accumulator), FP64 over FP64. */
#include <math.h>
#include <string.h>
#include "solvers/amg/amg.h"

/* Chebyshev degree and interval [AMG_CHEB_LOW, AMG_CHEB_HIGH] x the estimated lambda_max:
 * PETSc GAMG's defaults (degree 2, 0.1 and 1.1), the upper margin covering Lanczos's
 * underestimate (2% on 3-D Poisson).  Degree by measurement, 3-D Poisson 100^3 FIXED16, one
 * thread, CPU s of a repeated solve: degree 1 18 iterations 0.97 s, 2 14 1.01 s, 3 13 1.05 s,
 * 4 12 1.36 s; 2 keeps the iterations low at the same time. */
#define AMG_CHEB_DEGREE 2
#define AMG_CHEB_LOW 0.1
#define AMG_CHEB_HIGH MIXI_AMG_LMAX_MARGIN /* the estimate's own margin (amg.h) */

int mixi_amg_svec_alloc(mix_context *ctx, mix_prec prec, int n, int cap, mixi_svec *v)
{
    size_t vb, nb;
    v->prec = prec;
    v->n = n;
    v->norm = NULL;
    v->val = NULL;
    int st = mixi_svec_bytes(prec, cap, &vb, &nb);
    if (!st) st = ctx->ops->alloc(ctx->state, &v->val, vb);
    return st ? st : ctx->ops->memset0(ctx->state, v->val, vb);
}

void mixi_amg_cycle_free(mixi_amg_cycle *C)
{
    mix_context *ctx = C->ctx;
    for (int l = 0; l < MIXI_AMG_MAX_LEVELS; l++) {
        ctx->ops->free(ctx->state, C->x[l].val);
        ctx->ops->free(ctx->state, C->r[l].val);
        ctx->ops->free(ctx->state, C->d[l].val);
        ctx->ops->free(ctx->state, C->t[l].val);
        C->x[l].val = C->r[l].val = C->d[l].val = C->t[l].val = NULL;
    }
    ctx->ops->free(ctx->state, C->b[0].val);
    ctx->ops->free(ctx->state, C->c64);
    mixi_free(C->c_host);
    C->b[0].val = NULL;
    C->c64 = C->c_host = NULL;
}

/* Level l's vectors; x of level l + 1 has level l's room (P reads it as a level-l vector whose
 * tail stays zero), b of level l + 1 is the head of t of level l (the restricted residual). */
int mixi_amg_cycle_init(mixi_amg_cycle *C, mix_context *ctx, const mixi_amg *H,
                        const mixi_amg_stored *S, const double *scale0, mix_prec vprec)
{
    memset(C, 0, sizeof *C);
    C->ctx = ctx, C->H = H, C->S = S, C->scale0 = scale0, C->vprec = vprec, C->sigma = 1.0;
    int st = MIX_SUCCESS;
    for (int l = 0; l < H->nlev && !st; l++) {
        const int n = H->lev[l].n, cap = l ? H->lev[l - 1].n : n;
        if (!(st = mixi_amg_svec_alloc(ctx, vprec, n, cap, &C->x[l])) &&
            !(st = mixi_amg_svec_alloc(ctx, vprec, n, n, &C->r[l])) &&
            !(st = mixi_amg_svec_alloc(ctx, vprec, n, n, &C->d[l])))
            st = mixi_amg_svec_alloc(ctx, vprec, n, n, &C->t[l]);
        if (l > 0) C->b[l] = (mixi_svec){vprec, n, C->t[l - 1].val, NULL};
        else if (!st) st = mixi_amg_svec_alloc(ctx, vprec, n, n, &C->b[0]);
    }
    const size_t cb = (size_t)H->lev[H->nlev - 1].n * sizeof(double);
    if (!st) st = ctx->ops->alloc(ctx->state, (void **)&C->c64, cb);
    if (!st && !(ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY) && !(C->c_host = mixi_malloc(cb)))
        st = MIX_ERR_ALLOC;
    if (st) mixi_amg_cycle_free(C);
    return st;
}

typedef struct {
    double theta, delta, sigma1;
} cheb;

static cheb cheb_of(double lmax)
{
    const double hi = AMG_CHEB_HIGH * lmax, lo = AMG_CHEB_LOW * lmax;
    cheb c = {(hi + lo) / 2.0, (hi - lo) / 2.0, 0.0};
    c.sigma1 = c.theta / c.delta;
    return c;
}

/* y = a (M x) + b z in one pass where the backend fuses it (no write and read of M x: a fifth of
 * a 16-bit V-cycle's traffic), else spmv into the scratch t (or y, where z is not y) and axpby:
 * the same bits for a, b = +-1, the only ones used here. */
static int spmv_axpby(mixi_amg_cycle *C, const mixi_spmat *M, const mixi_svec *x, double a,
                      const mixi_svec *z, double b, mixi_svec *y, mixi_svec *t)
{
    const mixi_sparse_ops *sp = C->ctx->ops->sparse;
    void *s = C->ctx->state;
    double xy;
    int st = sp->spmv_axpby ? sp->spmv_axpby(s, M, x, a, z, b, y) : MIX_ERR_UNSUPPORTED;
    if (st != MIX_ERR_UNSUPPORTED) return st;
    if (z == y) return (st = sp->spmv(s, M, x, t, &xy)) ? st : sp->axpby(s, a, t, b, y);
    return (st = sp->spmv(s, M, x, y, &xy)) ? st : sp->axpby(s, b, z, a, y);
}

/* d = a r + b d, then x = d + c x: in one pass where the backend fuses it, else two axpby
 * (the same bits). */
static int cheb_update(mixi_amg_cycle *C, double a, const mixi_svec *r, double b, mixi_svec *d,
                       double c, mixi_svec *x)
{
    const mixi_sparse_ops *sp = C->ctx->ops->sparse;
    void *s = C->ctx->state;
    int st = sp->cheb_update ? sp->cheb_update(s, a, r, b, d, c, x) : MIX_ERR_UNSUPPORTED;
    if (st != MIX_ERR_UNSUPPORTED) return st;
    return (st = sp->axpby(s, a, r, b, d)) ? st : sp->axpby(s, 1.0, d, c, x);
}

/* Chebyshev steps on level l from x with residual r0 = b - A x (Saad, Algorithm 12.1), the
 * residual carried in r (r0's place or another, so that a smoothing from x = 0 reads b as r0
 * without a copy); with want_res the last step's residual is left in r, else that SpMV is
 * saved; from_zero: x = 0 (its old values are not read); t: scratch.  Each new direction d is
 * added to x in the pass that makes it. */
static int chebyshev(mixi_amg_cycle *C, int l, const mixi_svec *r0, mixi_svec *r, mixi_svec *t,
                     int want_res, int from_zero)
{
    const cheb c = cheb_of(C->H->lev[l].lmax);
    mixi_svec *x = &C->x[l], *d = &C->d[l];
    double rho0 = 1.0 / c.sigma1;
    /* x = d on the first step from x = 0: no pass to clear x first. */
    int st = cheb_update(C, 1.0 / c.theta, r0, 0.0, d, from_zero ? 0.0 : 1.0, x);
    for (int k = 1; k <= AMG_CHEB_DEGREE && !st; k++) {
        if (k == AMG_CHEB_DEGREE && !want_res) break;
        if ((st = spmv_axpby(C, C->S[l].A, d, -1.0, k == 1 ? r0 : r, 1.0, r, t))) break;
        if (k == AMG_CHEB_DEGREE) break;
        const double rho1 = 1.0 / (2.0 * c.sigma1 - rho0);
        st = cheb_update(C, 2.0 * rho1 / c.delta, r, rho1 * rho0, d, 1.0, x);
        rho0 = rho1;
    }
    return st;
}

/* The coarsest level: x = A^-1 b in FP64 (or smoothing where it is too large to factor). */
static int coarsest(mixi_amg_cycle *C, int l)
{
    const mixi_sparse_ops *sp = C->ctx->ops->sparse;
    void *s = C->ctx->state;
    mixi_svec *r = &C->r[l], *t = &C->t[l];
    int st;
    if (!C->H->coarse_direct) {
        if ((st = chebyshev(C, l, &C->b[l], r, t, 1, 1))) return st;
        return chebyshev(C, l, r, r, t, 0, 0);
    }
    const size_t cb = (size_t)C->H->lev[l].n * sizeof(double);
    if ((st = C->ctx->ops->memset0(s, C->c64, cb)) ||
        (st = sp->vec_accum64(s, &C->b[l], NULL, 1.0, C->c64)))
        return st;
    if (!C->c_host) {
        mixi_amg_coarse_solve(C->H, C->c64);
    } else { /* a device backend: the few hundred values through the host */
        if ((st = C->ctx->ops->download(s, C->c_host, C->c64, cb))) return st;
        mixi_amg_coarse_solve(C->H, C->c_host);
        if ((st = C->ctx->ops->upload(s, C->c64, C->c_host, cb))) return st;
    }
    return sp->vec_from64(s, C->c64, NULL, 1.0, &C->x[l], NULL);
}

/* b of level l + 1 = Ph^T r: by a stored R (its product over this level's order: the rows past
 * the coarse one are zero, written into t's tail), by spmv_t with a stored P, or, implicit,
 * Th^T (r - w A^ r) with d the scratch (free between the smoothings). */
static int restrict_residual(mixi_amg_cycle *C, int l)
{
    const mixi_sparse_ops *sp = C->ctx->ops->sparse;
    const mixi_amg_stored *S = &C->S[l];
    mixi_svec *r = &C->r[l], *d = &C->d[l];
    if (S->R) {
        mixi_svec y = {C->vprec, C->H->lev[l].n, C->b[l + 1].val, NULL};
        double ry;
        return sp->spmv(C->ctx->state, S->R, r, &y, &ry);
    }
    if (!S->T) return sp->spmv_t(C->ctx->state, S->P, r, &C->b[l + 1]);
    const int st = spmv_axpby(C, S->A, r, -C->H->lev[l].w, r, 1.0, d, &C->t[l]);
    return st ? st : sp->tent_restrict(C->ctx->state, S->T, d, &C->b[l + 1]);
}

/* x += Ph xc (xc: x of level l + 1): P's product, or, implicit, u = Th xc (into d) with x += u
 * in the same pass, then x -= w A^ u (t the scratch: b of level l + 1 is spent). */
static int prolong_correction(mixi_amg_cycle *C, int l)
{
    const mixi_sparse_ops *sp = C->ctx->ops->sparse;
    const mixi_amg_stored *S = &C->S[l];
    mixi_svec *x = &C->x[l], *d = &C->d[l], *t = &C->t[l];
    if (!S->T) { /* the next level's x read as one of this level's order (its tail is zero) */
        const mixi_svec xc = {C->vprec, C->H->lev[l].n, C->x[l + 1].val, NULL};
        return spmv_axpby(C, S->P, &xc, 1.0, x, 1.0, x, t);
    }
    const int st = sp->tent_prolong(C->ctx->state, S->T, &C->x[l + 1], d, x);
    return st ? st : spmv_axpby(C, S->A, d, -C->H->lev[l].w, x, 1.0, x, t);
}

/* Coarse corrections a visit of level l makes: two below the fine level where the next level's
 * operator has at most a quarter of this one's entries (a W-cycle there, its work below level l
 * at most twice a V-cycle's), else one, as on the fine level and above a coarsest level solved
 * exactly (whose second correction would be zero).  The first coarse levels of 3-D Poisson
 * shrink 4-16-fold in entries (150^3: 3.4 million rows, 217k, 13k, 388), so that the repeat
 * costs a tenth of an iteration, and their single V-cycle was the weak link: 17 CG iterations
 * at 150^3 with one correction, 14 with two on level 1 (2-D Poisson 400^2 14 and 13); two on
 * the fine level too took 12 but cost more than they saved.  The coarse levels of 2-D
 * anisotropic 320^2 keep 77-86% of the entries: two corrections there cut 13 iterations to 11
 * but made an iteration 1.8x the work.  Two corrections of the same symmetric operator keep
 * the cycle symmetric, so plain PCG still applies. */
static int corrections(const mixi_amg *H, int l)
{
    const int exact_next = l + 2 == H->nlev && H->coarse_direct;
    return l >= 1 && !exact_next && 4 * H->lev[l + 1].nnz <= H->lev[l].nnz ? 2 : 1;
}

static int vcycle(mixi_amg_cycle *C, int l)
{
    if (l == C->H->nlev - 1) return coarsest(C, l);
    const mixi_amg_stored *S = &C->S[l];
    mixi_svec *r = &C->r[l], *t = &C->t[l], *x = &C->x[l], *b = &C->b[l];
    int st;
    /* Smoothing from x = 0, restriction by P^T into b of level l + 1 (the head of t), the
     * coarse correction x += P xc; the later corrections from the residual b - A x in r. */
    if ((st = chebyshev(C, l, b, r, t, 1, 1))) return st;
    for (int k = 0; k < corrections(C->H, l); k++)
        if ((k > 0 && (st = spmv_axpby(C, S->A, x, -1.0, b, 1.0, r, t))) ||
            (st = restrict_residual(C, l)) || (st = vcycle(C, l + 1)) ||
            (st = prolong_correction(C, l)))
            return st;
    /* Post-smoothing from the residual b - A x, held in t (r is then the scratch). */
    if ((st = spmv_axpby(C, S->A, x, -1.0, b, 1.0, t, r))) return st;
    return chebyshev(C, l, t, t, r, 0, 0);
}

int mixi_amg_cycle_apply(mixi_amg_cycle *C, const double *r, double *z)
{
    const mixi_sparse_ops *sp = C->ctx->ops->sparse;
    void *s = C->ctx->state;
    const int n = C->H->lev[0].n;
    double vv;
    int st = sp->vec_from64(s, r, C->scale0, C->sigma, &C->b[0], &vv);
    const double f = C->vprec == MIX_FP64 ? 1.0 : mixi_amg_unit_rms(vv, n);
    if (!st && f != 1.0) {
        C->sigma *= f;
        st = sp->vec_from64(s, r, C->scale0, C->sigma, &C->b[0], &vv);
    }
    if (!st) st = vcycle(C, 0);
    if (!st) st = C->ctx->ops->memset0(s, z, (size_t)n * sizeof(double));
    if (!st) st = sp->vec_accum64(s, &C->x[0], C->scale0, 1.0 / C->sigma, z);
    return st;
}

int mixi_amg_cycle_apply_scaled(mixi_amg_cycle *C, const mixi_svec *r, const mixi_svec **z)
{
    const mixi_svec b0 = C->b[0];
    if (r->prec != C->vprec || r->n != C->H->lev[0].n) return MIX_ERR_INVALID_ARG;
    C->b[0] = *r; /* the cycle only reads its level-0 b */
    const int st = vcycle(C, 0);
    C->b[0] = b0;
    *z = &C->x[0];
    return st;
}
