/* gmres.c: FP64 GMRES(m) cycle left-preconditioned by a low-precision factorisation (GMRES-IR's inner solver). */
#include <math.h>
#include "solvers/dense/dense.h"

int mixi_gmres_ws_alloc(mix_context *ctx, int n, int m, mixi_gmres_ws *ws)
{
    const mixi_backend_ops *o = ctx->ops;
    size_t vbytes, hbytes, host_bytes;
    /* A Krylov space of an n x n system has at most n dimensions: a larger restart only costs
     * memory (and near 2^31 its sizes would not fit). */
    if (m > n) m = n;
    if (m < 1) m = 1;
    ws->m = m;
    ws->deadline = 0.0;
    ws->V = ws->w = ws->h = ws->host = NULL;
    if (mixi_mul3_size((size_t)n, (size_t)m + 1, sizeof(double), &vbytes) ||
        mixi_mul_size((size_t)m + 1, sizeof(double), &hbytes) ||
        mixi_mul3_size((size_t)m + 1, (size_t)m + 4, sizeof(double), &host_bytes))
        return MIX_ERR_ALLOC;
    if (o->alloc(ctx->state, (void **)&ws->V, vbytes) ||
        o->alloc(ctx->state, (void **)&ws->w, (size_t)n * sizeof(double)) ||
        o->alloc(ctx->state, (void **)&ws->h, hbytes) ||
        !(ws->host = mixi_malloc(host_bytes))) {
        mixi_gmres_ws_free(ctx, ws);
        return MIX_ERR_ALLOC;
    }
    return MIX_SUCCESS;
}

void mixi_gmres_ws_free(mix_context *ctx, mixi_gmres_ws *ws)
{
    ctx->ops->free(ctx->state, ws->V);
    ctx->ops->free(ctx->state, ws->w);
    ctx->ops->free(ctx->state, ws->h);
    mixi_free(ws->host);
    ws->V = ws->w = ws->h = ws->host = NULL;
}

/* Column k of the Arnoldi process: w = M^{-1} A v_k, made orthogonal to v_0..v_k by classical
 * Gram-Schmidt twice (two block projections, stable like MGS, BLAS-2 speed), the projections in
 * Hk[0..k] (column k of H), *hn = ||w||.  hp: host scratch of k + 1 values. */
static int arnoldi_column(const mixi_precond *M, const mixi_matrix *A, mixi_gmres_ws *ws, int k,
                          double *Hk, double *hp, double *hn)
{
    mix_context *ctx = M->ctx;
    const mixi_dense_ops *dn = ctx->ops->dense;
    void *st = ctx->state;
    const int n = M->n;
    double *V = ws->V, *w = ws->w;
    int rc;
    if ((rc = mixi_matrix_matvec(ctx, A, n, 1.0, V + (size_t)k * (size_t)n, 0.0, w))) return rc;
    if ((rc = mixi_precond_apply(M, 1, w, n, w, n))) return rc;
    for (int i = 0; i <= k; i++) Hk[i] = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        if ((rc = dn->gemv_f64(st, 1, n, k + 1, 1.0, V, n, w, 0.0, ws->h))) return rc;
        if ((rc = dn->gemv_f64(st, 0, n, k + 1, -1.0, V, n, ws->h, 1.0, w))) return rc;
        if ((rc = ctx->ops->download(st, hp, ws->h, (size_t)(k + 1) * sizeof(double)))) return rc;
        for (int i = 0; i <= k; i++) Hk[i] += hp[i];
    }
    return dn->nrm2_f64(st, n, w, hn);
}

/* The previous rotations on column k of H (Hk[0..k+1]), then the one that zeroes H(k+1, k),
 * applied to g as well: 0, or 1 on an exact breakdown with a singular H (no new rotation then). */
static int givens_column(double *Hk, double *cs, double *sn, double *g, int k)
{
    for (int i = 0; i < k; i++) {
        double t = cs[i] * Hk[i] + sn[i] * Hk[i + 1];
        Hk[i + 1] = -sn[i] * Hk[i] + cs[i] * Hk[i + 1];
        Hk[i] = t;
    }
    double den = hypot(Hk[k], Hk[k + 1]);
    if (den == 0.0) return 1;
    cs[k] = Hk[k] / den;
    sn[k] = Hk[k + 1] / den;
    Hk[k] = den;
    Hk[k + 1] = 0.0;
    g[k + 1] = -sn[k] * g[k];
    g[k] = cs[k] * g[k];
    return 0;
}

/* d = V(:, 1:k) y, y = H(1:k, 1:k) \ g(1:k) solved into the host scratch hp. */
static int gmres_update(mix_context *ctx, mixi_gmres_ws *ws, const double *H, const double *g,
                        double *hp, int n, int k, double *d)
{
    const size_t ldh = (size_t)ws->m + 1;
    int rc;
    for (int i = k - 1; i >= 0; i--) {
        double t = g[i];
        for (int j = i + 1; j < k; j++) t -= H[(size_t)j * ldh + (size_t)i] * hp[j];
        hp[i] = t / H[(size_t)i * ldh + (size_t)i];
    }
    if (k == 0) return MIX_SUCCESS;
    if ((rc = ctx->ops->upload(ctx->state, ws->h, hp, (size_t)k * sizeof(double)))) return rc;
    return ctx->ops->dense->gemv_f64(ctx->state, 0, n, k, 1.0, ws->V, n, ws->h, 0.0, d);
}

int mixi_gmres_cycle(const mixi_precond *M, const mixi_matrix *A, mixi_gmres_ws *ws,
                     const double *rhs, double *d, double rtol, int *its)
{
    mix_context *ctx = M->ctx;
    const mixi_backend_ops *o = ctx->ops;
    const mixi_dense_ops *dn = o->dense;
    void *st = ctx->state;
    const int n = M->n, m = ws->m;
    double *V = ws->V, *w = ws->w;
    /* Host scratch: Hessenberg H ((m+1) x m, column-major), Givens cs/sn, rhs g, projections. */
    double *H = ws->host, *cs = H + (size_t)(m + 1) * m, *sn = cs + (m + 1), *g = sn + (m + 1),
           *hp = g + (m + 1);
    int rc, k = 0;
    *its = 0;
#define V_(j) (V + (size_t)(j) * (size_t)n)
    if ((rc = mixi_precond_apply(M, 1, rhs, n, V_(0), n))) return rc;
    double beta;
    if ((rc = dn->nrm2_f64(st, n, V_(0), &beta))) return rc;
    if ((rc = o->memset0(st, d, (size_t)n * sizeof(double)))) return rc;
    if (!(beta > 0.0) || !isfinite(beta)) return MIX_SUCCESS; /* zero rhs, or NaN seen by caller */
    if ((rc = dn->scal_f64(st, n, 1.0 / beta, V_(0)))) return rc;
    g[0] = beta;
    double t_step = mixi_wtime();
    for (k = 0; k < m; k++) {
        double *Hk = H + (size_t)k * (size_t)(m + 1), hn;
        if ((rc = arnoldi_column(M, A, ws, k, Hk, hp, &hn))) return rc;
        Hk[k + 1] = hn;
        if (!isfinite(hn)) return MIX_SUCCESS; /* d stays 0; the caller's residual check decides */
        if (givens_column(Hk, cs, sn, g, k)) break; /* exact breakdown: keep the k steps done */
        int lucky = hn == 0.0;
        if (!lucky && (rc = o->copy(st, V_(k + 1), w, (size_t)n * sizeof(double)))) return rc;
        if (!lucky && (rc = dn->scal_f64(st, n, 1.0 / hn, V_(k + 1)))) return rc;
        const double now = mixi_wtime(), step_s = now - t_step;
        t_step = now;
        if (lucky || fabs(g[k + 1]) <= rtol * beta ||
            !mixi_krylov_step_fits(now, step_s, ws->deadline)) {
            k++;
            break;
        }
    }
#undef V_
    if ((rc = gmres_update(ctx, ws, H, g, hp, n, k, d))) return rc;
    *its = k;
    return MIX_SUCCESS;
}
