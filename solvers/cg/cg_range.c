/* cg_range.c: CG on systems near the edges of the FP64 range: A and b scaled by powers of two into range, solved, scaled back, re-checked. */
#include <math.h>
#include <string.h>
#include "solvers/cg/cg_impl.h"
#include "kernels/backend_dense.h"

/* A and b are solved as they are while their largest entries lie in [2^-RANGE_EXP, 2^RANGE_EXP]:
 * then ||b||^2 and the true residual's squared norm neither overflow nor underflow in FP64, and
 * (with the sloppy residual renormalised, solvers/cg/cg.c) A p and p'Ap stay inside FP32's range.
 * Outside it the system is rescaled, which costs one FP64 copy of A and its sloppy conversion
 * per call.  No bundled SuiteSparse matrix comes near (largest entries ~1e10 = 2^33). */
#define RANGE_EXP 64

/* e with v in [2^(e-1), 2^e); v > 0 finite. */
static int exponent_of(double v)
{
    int e;
    frexp(v, &e);
    return e;
}

/* v *= 2^k exactly (n doubles, backend memory), in two steps when 2^k itself would not fit. */
static int scale_pow2(mix_context *ctx, int n, double *v, int k)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (k == 0) return MIX_SUCCESS;
    int k1 = k / 2, k2 = k - k1;
    int st = d->scal_f64(ctx->state, n, ldexp(1.0, k1), v);
    if (!st) st = d->scal_f64(ctx->state, n, ldexp(1.0, k2), v);
    return st;
}

/* Stopped before solving: x is x0 (or 0), info says why. */
static int stop_early(mix_context *ctx, const mix_cg_params *p, int n, double *x, mix_cg_info *info,
                      int st, int reason, double rel)
{
    memset(info, 0, sizeof *info);
    if (!p->x0_given) {
        int st2 = ctx->ops->memset0(ctx->state, x, (size_t)n * sizeof(double));
        if (st2) st = st2;
    }
    info->status = st;
    info->reason = reason;
    info->true_rel_residual = rel;
    return st;
}

/* ||b - A x|| / ||b|| for a given x0 on a distributed A (host memory), each norm scaled by its
 * largest entry: the system lies near the edges of the range here.  Collective; NaN in r
 * counts as Inf, as in b_absmax (bmax: the largest |b_i| of all ranks, > 0). */
static int dist_x0_rel(mix_context *ctx, mix_sparse *A, const double *b, const double *x,
                       double bmax, double *rel)
{
    const int n = A->n;
    double *r = NULL, rr, rmax = 0.0, v[2] = {0.0, 0.0};
    int st = mixi_cg_agree(A, ctx->ops->alloc(ctx->state, (void **)&r, (size_t)n * sizeof *r));
    if (!st) st = mixi_cg_residual64(A, b, x, r, &rr);
    for (int i = 0; !st && i < n; i++)
        if (isnan(r[i]) || fabs(r[i]) > rmax) rmax = isnan(r[i]) ? INFINITY : fabs(r[i]);
    if (!st) st = mixi_cg_max(A, &rmax, 1);
    const int scaled = rmax > 0.0 && isfinite(rmax); /* the same on every rank */
    for (int i = 0; !st && scaled && i < n; i++) {
        v[0] += (r[i] / rmax) * (r[i] / rmax);
        v[1] += (b[i] / bmax) * (b[i] / bmax);
    }
    if (!st && scaled) st = mixi_cg_sum(A, v, 2);
    if (!st) *rel = scaled ? rmax * sqrt(v[0]) / (bmax * sqrt(v[1])) : rmax;
    ctx->ops->free(ctx->state, r);
    return st;
}

/* A distributed solve refused before it starts (status st, reason): x is x0 or 0, and info's
 * residual is that x's (1 for x = 0), as mix_dcg(3) promises for any stop before iterating. */
static int dist_refuse(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const double *b,
                       double *x, double bmax, int st, int reason, mix_cg_info *info)
{
    double rel = 1.0;
    if (p->x0_given && dist_x0_rel(ctx, A, b, x, bmax, &rel)) rel = NAN; /* not measured */
    return stop_early(ctx, p, A->n, x, info, st, reason, rel);
}

/* The largest |b_i|, decided on the entries (||b||^2 may overflow for a finite b); on a
 * distributed A the largest of all ranks (NaN counts as Inf), so that every rank decides alike. */
static int b_absmax(mix_context *ctx, const mix_sparse *A, const double *b, double *bmax)
{
    int st = ctx->ops->dense->col_absmax_f64(ctx->state, A->n, 1, b, A->n, bmax);
    if (A->dist) {
        double v[2] = {isnan(*bmax) ? INFINITY : *bmax, st};
        const int s = mixi_cg_max(A, v, 2);
        st = s ? s : v[1] != 0.0 ? mixi_cg_agree(A, st) : MIX_SUCCESS;
        *bmax = v[0];
    }
    return st;
}

/* *out = 4^m A, or D A D for a host vector d of powers of two (dvec; then m is unused), a new
 * FP64-only matrix object on A's context (NULL on failure). */
static int scaled_matrix(mix_context *ctx, const mix_sparse *A, int m, const double *dvec,
                         mix_sparse **out)
{
    const mixi_backend_ops *ops = ctx->ops;
    const size_t bytes = (size_t)A->n * sizeof(double);
    double *cvec = NULL, *hc = NULL;
    mix_sparse *T = NULL;
    int st = ops->alloc(ctx->state, (void **)&cvec, bytes);
    if (!st && !(hc = mixi_malloc(bytes))) st = MIX_ERR_ALLOC;
    if (!st) {
        for (int i = 0; i < A->n; i++) hc[i] = dvec ? dvec[i] : ldexp(1.0, m);
        st = ops->upload(ctx->state, cvec, hc, bytes);
    }
    if (!st && !(T = mixi_calloc(1, sizeof *T))) st = MIX_ERR_ALLOC;
    if (!st) {
        T->ctx = ctx;
        T->n = A->n;
        T->nnz = A->nnz;
        /* D A D of an SPD A: |d_i d_j a_ij| <= sqrt(d_i^2 a_ii d_j^2 a_jj) < 4 (a larger entry,
         * not SPD, is reported by the storage conversion as an overflow, never hidden). */
        T->amax = dvec ? 4.0 : ldexp(A->amax, 2 * m);
        T->fixed16_tiny = A->fixed16_tiny; /* a power-of-two scale keeps the row ranges */
        T->jacobi_status = -1;
        st = ops->sparse->csr_convert(ctx->state, A->a64, MIX_FP64, cvec, &T->a64);
        T->sloppy[0][MIX_FP64] = T->a64;
    }
    ops->free(ctx->state, cvec);
    mixi_free(hc);
    if (st) {
        mixi_sparse_free(T);
        T = NULL;
    }
    *out = T;
    return st;
}

/* After 4^m, a diagonal entry must stay at or above this (2^122 above the subnormals); below
 * it (entries spanning more than ~1e271: diag(1e300, 1, 1e-300)) one power of two flushed it to
 * zero, and a CG with Jacobi read "not SPD".  Then A is scaled symmetrically by powers of two
 * from its diagonal, D A D with d_i^2 a_ii in [1, 4) (LAPACK's dpoequb). */
#define SPAN_FLOOR 0x1p-900

/* *dvec (host, n; mixi_free) := that D when A needs it, else NULL (also when some a_ii <= 0:
 * the solve then reports it as it always did). */
static int diagonal_scaling(mix_context *ctx, const mix_sparse *A, int m, double **dvec)
{
    const size_t bytes = (size_t)A->n * sizeof(double);
    double *v = NULL, *h = mixi_malloc(bytes);
    int need = 0, st = h ? ctx->ops->alloc(ctx->state, (void **)&v, bytes) : MIX_ERR_ALLOC;
    *dvec = NULL;
    if (st || !ctx->ops->sparse->diag_rsqrt) goto out;
    if (ctx->ops->sparse->diag_rsqrt(ctx->state, A->a64, v) ||
        (st = ctx->ops->download(ctx->state, h, v, bytes)))
        goto out;
    for (int i = 0; i < A->n; i++) { /* h_i = 1/sqrt(a_ii): d_i = the power of two in [h_i, 2 h_i) */
        int e;
        double f = frexp(h[i], &e);
        need |= !(ldexp(1.0 / h[i] / h[i], 2 * m) >= SPAN_FLOOR);
        h[i] = f == 0.5 ? h[i] : ldexp(1.0, e);
    }
    if (need) {
        *dvec = h;
        h = NULL;
    }
out:
    ctx->ops->free(ctx->state, v);
    mixi_free(h);
    return st;
}

/* v := D v (inverse: D^-1 v) for the host vector d, through a host copy (n-vectors, rare). */
static int scale_by(mix_context *ctx, int n, double *v, const double *d, int inverse)
{
    const size_t bytes = (size_t)n * sizeof(double);
    double *h = mixi_malloc(bytes);
    int st = h ? ctx->ops->download(ctx->state, h, v, bytes) : MIX_ERR_ALLOC;
    for (int i = 0; !st && i < n; i++) h[i] = inverse ? h[i] / d[i] : h[i] * d[i];
    if (!st) st = ctx->ops->upload(ctx->state, v, h, bytes);
    mixi_free(h);
    return st;
}

/* ||D^-1 r|| / ||D^-1 b|| (r, b backend n-vectors; d host): the relative residual in the
 * user's norm of a D-scaled system, where D^-1 b = 2^kb b is in range. */
static int unscaled_rel(mix_context *ctx, int n, const double *r, const double *b,
                        const double *d, double *rel)
{
    const size_t bytes = (size_t)n * sizeof(double);
    double *h = mixi_malloc(2 * bytes), rr = 0.0, bb = 0.0, rmax = 0.0, bmax = 0.0;
    int st = h ? ctx->ops->download(ctx->state, h, r, bytes) : MIX_ERR_ALLOC;
    if (!st) st = ctx->ops->download(ctx->state, h + n, b, bytes);
    for (int i = 0; !st && i < n; i++) { /* norms scaled by their largest entry: no overflow */
        h[i] /= d[i], h[n + i] /= d[i];
        rmax = fmax(rmax, fabs(h[i]));
        bmax = fmax(bmax, fabs(h[n + i]));
    }
    for (int i = 0; !st && i < n; i++) {
        if (rmax > 0.0) rr += (h[i] / rmax) * (h[i] / rmax);
        if (bmax > 0.0) bb += (h[n + i] / bmax) * (h[n + i] / bmax);
    }
    *rel = rmax > 0.0 ? rmax * sqrt(rr) / (bmax * sqrt(bb)) : 0.0;
    mixi_free(h);
    return st;
}

/* *kb: the exponent bringing the largest |d_i b_i| into [1, 2) (0 for b = 0). */
static int dscaled_rhs_exponent(mix_context *ctx, int n, const double *b, const double *d,
                                int *kb)
{
    const size_t bytes = (size_t)n * sizeof(double);
    double *h = mixi_malloc(bytes), mx = 0.0;
    int st = h ? ctx->ops->download(ctx->state, h, b, bytes) : MIX_ERR_ALLOC;
    for (int i = 0; !st && i < n; i++) mx = fmax(mx, fabs(h[i] * d[i]));
    *kb = mx > 0.0 ? 1 - exponent_of(mx) : 0;
    mixi_free(h);
    return st;
}

/* After the solve of As y = bs (status st): x = 2^-kx y back in the user's units, where it may
 * have overflowed, or lost digits to underflow.  What is returned is measured (x scaled again,
 * exactly, against the scaled system, where no norm overflows; r and y2 n-vector workspace), and
 * a converged status that FP64 cannot hold to tol becomes MIX_ERR_NOT_CONVERGED. */
static int unscale_answer(mix_context *ctx, const mix_cg_params *prm, const mix_sparse *As,
                          const double *bs, int kx, const double *dvec, double *x, double *r,
                          double *y2, mix_cg_info *info, int st)
{
    const mixi_backend_ops *ops = ctx->ops;
    const int n = As->n;
    double xmax, rr, bb;
    int st2 = scale_pow2(ctx, n, x, -kx);
    if (!st2 && dvec) st2 = scale_by(ctx, n, x, dvec, 0); /* x = 2^-kx D y */
    if (!st2 && st != MIX_SUCCESS && st != MIX_ERR_NOT_CONVERGED && st != MIX_ERR_NOT_SPD) return st;
    if (!st2) st2 = ops->dense->col_absmax_f64(ctx->state, n, 1, x, n, &xmax);
    if (st2) return info->status = st2;
    if (!isfinite(xmax)) {
        info->reason = MIX_CG_OUT_OF_RANGE;
        info->converged = 0;
        info->true_rel_residual = INFINITY;
        return info->status = MIX_ERR_OVERFLOW;
    }
    if ((st2 = ops->copy(ctx->state, y2, x, (size_t)n * sizeof(double))) ||
        (dvec && (st2 = scale_by(ctx, n, y2, dvec, 1))) ||
        (st2 = scale_pow2(ctx, n, y2, kx)) ||
        (st2 = ops->sparse->residual64(ctx->state, As->a64, bs, y2, r, &rr)) ||
        (st2 = ops->sparse->nrm2sq64(ctx->state, n, bs, &bb)))
        return info->status = st2;
    info->true_rel_residual = sqrt(rr) / sqrt(bb);
    if (dvec && (st2 = unscaled_rel(ctx, n, r, bs, dvec, &info->true_rel_residual)))
        return info->status = st2;
    if (st == MIX_SUCCESS && !(info->true_rel_residual <= prm->tol)) {
        /* The answer exists, but FP64 cannot hold it to the requested accuracy. */
        info->reason = MIX_CG_OUT_OF_RANGE;
        info->converged = 0;
        return info->status = MIX_ERR_NOT_CONVERGED;
    }
    return st;
}

/* A' = 4^m A, b' = 2^kb b: A' y = b' with y = 2^(kb - 2m) x, and the same relative residual.
 * Or, dvec given: A' = D A D, b' = 2^kb D b, y = 2^kb D^-1 x. */
static int solve_scaled(mix_context *ctx, const mix_cg_params *prm, mix_sparse *A,
                        const double *b, double *x, mix_cg_info *info, int kb, int m,
                        const double *dvec)
{
    const mixi_backend_ops *ops = ctx->ops;
    const int n = A->n;
    const size_t bytes = (size_t)n * sizeof(double);
    double *bs = NULL, *r = NULL, *y2 = NULL;
    mix_sparse *T = NULL;
    const int kx = dvec ? kb : kb - 2 * m; /* y = 2^kx x (D^-1 x) */
    int st;
    memset(info, 0, sizeof *info);
    if ((st = ops->alloc(ctx->state, (void **)&bs, bytes)) ||
        (st = ops->alloc(ctx->state, (void **)&r, bytes)) ||
        (st = ops->alloc(ctx->state, (void **)&y2, bytes)) ||
        (st = ops->copy(ctx->state, bs, b, bytes)) || (st = scale_pow2(ctx, n, bs, kb)) ||
        (dvec && (st = scale_by(ctx, n, bs, dvec, 0))) ||
        ((m != 0 || dvec) && (st = scaled_matrix(ctx, A, m, dvec, &T))) ||
        (prm->x0_given && dvec && (st = scale_by(ctx, n, x, dvec, 1))) ||
        (prm->x0_given && (st = scale_pow2(ctx, n, x, kx)))) {
        stop_early(ctx, prm, n, x, info, st, MIX_CG_MAX_ITER, prm->x0_given ? NAN : 1.0);
    } else {
        st = mixi_cg_solve(ctx, prm, T ? T : A, bs, x, info);
        /* x holds y (or x0 scaled, or 0) whatever the status: back to the user's units. */
        st = unscale_answer(ctx, prm, T ? T : A, bs, kx, dvec, x, r, y2, info, st);
    }
    ops->free(ctx->state, bs);
    ops->free(ctx->state, r);
    ops->free(ctx->state, y2);
    mixi_sparse_free(T);
    return st;
}

int mixi_cg_solve_in_range(mix_context *ctx, const mix_cg_params *prm, mix_sparse *A,
                           const double *b, double *x, mix_cg_info *info)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    const int n = A->n;
    if (!d || !d->col_absmax_f64 || !d->scal_f64 || !sp || !sp->csr_convert || !sp->residual64)
        return mixi_cg_solve(ctx, prm, A, b, x, info);
    /* NaN/Inf in b: a failure. */
    double bmax;
    const int st = b_absmax(ctx, A, b, &bmax);
    if (st) return stop_early(ctx, prm, n, x, info, st, MIX_CG_MAX_ITER, NAN);
    if (!isfinite(bmax))
        return stop_early(ctx, prm, n, x, info, MIX_ERR_NAN, MIX_CG_BREAKDOWN_NAN, NAN);
    const int eb = bmax > 0.0 ? exponent_of(bmax) : 0;
    const int ea = A->amax > 0.0 ? exponent_of(A->amax) : 0;
    /* b: largest entry into [1, 2).  A: times c^2 = 4^m, largest entry into [1, 4). */
    const int kb = eb > RANGE_EXP || eb < -RANGE_EXP ? 1 - eb : 0;
    const int m = ea > RANGE_EXP || ea < -RANGE_EXP ? (int)ceil((1 - ea) / 2.0) : 0;
    /* MIX_PRECOND_AMG over more than one rank (mix_dcg(3)), decided on the rank count, the same
     * everywhere (n_local is not: a rank owning every row, or none, went its own way), after
     * b = 0 as on one process.  MIX_CG_MAX_ITER: the reason of any stop before iterating. */
    if (bmax > 0.0 && prm->precond == MIX_PRECOND_AMG && A->dist && A->dist->comm->size > 1)
        return dist_refuse(ctx, prm, A, b, x, bmax, MIX_ERR_UNSUPPORTED, MIX_CG_MAX_ITER, info);
    /* In range, or b = 0 (whose answer x = 0 needs no scaling). */
    if ((kb == 0 && m == 0) || bmax == 0.0) return mixi_cg_solve(ctx, prm, A, b, x, info);
    if (A->dist) /* the rescaled copy below is of one process's matrix */
        return dist_refuse(ctx, prm, A, b, x, bmax, MIX_ERR_UNSUPPORTED, MIX_CG_OUT_OF_RANGE, info);
    double *dvec = NULL;
    int kb2 = 0, st2 = m != 0 ? diagonal_scaling(ctx, A, m, &dvec) : MIX_SUCCESS;
    /* Stopped before solving: x = 0 has residual 1; a given x0's is not measured. */
    const double rel0 = prm->x0_given ? NAN : 1.0;
    if (st2) return stop_early(ctx, prm, n, x, info, st2, MIX_CG_MAX_ITER, rel0);
    /* D b: its largest entry, not b's, decides kb. */
    if (dvec && (st2 = dscaled_rhs_exponent(ctx, n, b, dvec, &kb2)))
        return stop_early(ctx, prm, n, x, info, st2, MIX_CG_MAX_ITER, rel0);
    st2 = solve_scaled(ctx, prm, A, b, x, info, dvec ? kb2 : kb, m, dvec);
    mixi_free(dvec);
    return st2;
}
