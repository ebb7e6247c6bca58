/* cg_dist.c: the parts of CG's steps that span ranks when A is distributed by rows (reductions,
 * halo-exchanging products) through the context's communicator table; on one process each is
 * the backend's own call, so serial runs keep their bits. */
#include <math.h>
#include <string.h>
#include "solvers/cg/cg_impl.h"

int mixi_cg_sum(const mix_sparse *A, double *v, int k)
{
    if (!A->dist) return MIX_SUCCESS;
    const mixi_comm *c = A->dist->comm;
    return c->ops->sum(c, v, k);
}

int mixi_cg_max(const mix_sparse *A, double *v, int k)
{
    if (!A->dist) return MIX_SUCCESS;
    const mixi_comm *c = A->dist->comm;
    return c->ops->max(c, v, k);
}

int mixi_cg_agree(const mix_sparse *A, int st)
{
    if (!A->dist) return st;
    const mixi_comm *c = A->dist->comm;
    const int s = c->ops->agree(c, &st);
    return s ? s : st;
}

double mixi_cg_n(const mix_sparse *A) { return A->dist ? (double)A->dist->n_global : A->n; }

/* n values of a sloppy vector from `first` on as a vector of their own (first a multiple of
 * MIXK_SVEC_BLOCK, so that a FIXED16 vector's norms line up). */
static mixi_svec view(const mixi_svec *v, int first, int n)
{
    mixi_svec w = *v;
    w.n = n;
    w.val = (char *)v->val + (size_t)first * (size_t)mixk_prec_bytes(v->prec);
    if (v->norm) w.norm = v->norm + first / MIXK_SVEC_BLOCK;
    return w;
}

/* y[first..first+len) += the window's off-process part of A x, in FP64 (ghosts in d->ghost). */
static int window64(mix_sparse *A, const mixi_dist_win *w, double *y)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    const int m = w->off->n;
    mixi_svec g = {MIX_FP64, m, NULL, NULL}, o = {MIX_FP64, m, NULL, NULL};
    double xy;
    int st;
    if (!(st = ctx->ops->alloc(ctx->state, &g.val, (size_t)m * sizeof(double))) &&
        !(st = ctx->ops->alloc(ctx->state, &o.val, (size_t)m * sizeof(double))) &&
        !(st = ctx->ops->memset0(ctx->state, g.val, (size_t)w->pad * sizeof(double))) &&
        !(st = ctx->ops->copy(ctx->state, (double *)g.val + w->pad, A->dist->ghost + w->g0,
                              (size_t)w->ng * sizeof(double))) &&
        !(st = sp->spmv(ctx->state, w->off->a64, &g, &o, &xy))) {
        const mixi_svec head = view(&o, 0, w->len);
        st = sp->vec_accum64(ctx->state, &head, NULL, 1.0, y + w->first);
    }
    ctx->ops->free(ctx->state, g.val);
    ctx->ops->free(ctx->state, o.val);
    return st;
}

/* y = A x in FP64 over the ranks: x's halo in FP64 travels while the local block runs.  y NULL
 * (distributed only): the exchange alone, for a rank that could not allocate y, so that its
 * neighbours are not left waiting for its halo; x NULL as well: that halo is zeros. */
int mixi_cg_apply64(mix_sparse *A, const double *x, double *y)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    mixi_svec xv = {MIX_FP64, A->n, (void *)x, NULL}, yv = {MIX_FP64, A->n, y, NULL};
    double xy;
    if (!A->dist) return sp->spmv(ctx->state, A->a64, &xv, &yv, &xy);
    const mixi_dist_link *d = A->dist;
    const mixi_comm *c = d->comm;
    int st = c->ops->halo_begin(c, d->halo, MIX_FP64, x);
    const int st2 = y ? sp->spmv(ctx->state, A->a64, &xv, &yv, &xy) : MIX_ERR_INVALID_ARG;
    const int st3 = c->ops->halo_end(c, d->halo, d->ghost);
    st = st ? st : st2 ? st2 : st3;
    for (int k = 0; k < d->n_win && !st; k++) st = window64(A, &d->win[k], y);
    return st;
}

/* The serial call keeps its fused pass; distributed: t = A x, r = b - t, its norm summed.  A
 * rank's failure travels in the same reduction as the norm, so none is left waiting. */
int mixi_cg_residual64(mix_sparse *A, const double *b, const double *x, double *r, double *rr)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    if (!A->dist) return sp->residual64(ctx->state, A->a64, b, x, r, rr);
    const size_t bytes = (size_t)A->n * sizeof(double);
    mixi_svec t = {MIX_FP64, A->n, NULL, NULL};
    double v[2] = {0.0, 0.0};
    int st = ctx->ops->alloc(ctx->state, &t.val, bytes);
    const int st2 = mixi_cg_apply64(A, x, st ? NULL : t.val); /* the halo, whatever st */
    if (!st) st = st2;
    if (!st) st = ctx->ops->copy(ctx->state, r, b, bytes);
    if (!st) st = sp->vec_accum64(ctx->state, &t, NULL, -1.0, r);
    if (!st) st = sp->nrm2sq64(ctx->state, A->n, r, &v[0]);
    ctx->ops->free(ctx->state, t.val);
    v[1] = st;
    const int s = mixi_cg_sum(A, v, 2);
    if (s) return s;
    if (v[1] != 0.0) return mixi_cg_agree(A, st); /* some rank failed: all say which alike */
    *rr = v[0];
    return MIX_SUCCESS;
}

/* The windows' [local, 0, ghost] scales for S (the local block's Jacobi or uniform scale): the
 * ghosts' S through one FP64 halo.  Collective, also where no ghost is. */
static int off_scale(mix_sparse *A, int kind, const double *S)
{
    mix_context *ctx = A->ctx;
    mixi_dist_link *d = A->dist;
    const mixi_comm *c = d->comm;
    int st = c->ops->halo_begin(c, d->halo, MIX_FP64, S);
    const int st2 = c->ops->halo_end(c, d->halo, d->ghost);
    st = st ? st : st2;
    for (int k = 0; k < d->n_win && !st; k++) {
        mixi_dist_win *w = &d->win[k];
        const size_t m = (size_t)w->off->n;
        double **sc = &w->scale[kind];
        st = ctx->ops->alloc(ctx->state, (void **)sc, m * sizeof(double));
        if (!st) st = ctx->ops->memset0(ctx->state, *sc, m * sizeof(double));
        if (!st) st = ctx->ops->copy(ctx->state, *sc, S + w->first, (size_t)w->len * sizeof(double));
        if (!st) st = ctx->ops->copy(ctx->state, *sc + w->pad, d->ghost + w->g0, (size_t)w->ng * sizeof(double));
    }
    st = mixi_cg_agree(A, st);
    if (!st) A->off_scale_done[kind] = 1;
    return st;
}

/* The wire of a stage's halo: its storage's, except that FP16 and BF16 stages send FIXED16 (one
 * scale a message, as QUDA's half precision ghost zones; 17 bits a value, lib/mpi/wire.c): a
 * direction p spans few binades per message, where fixed point beats FP16's 11 bits and BF16's
 * 8 (3D Poisson 12^3, 2 ranks, no Jacobi: 60 and 62 iterations against 55 serial with their own
 * wires, 55 with FIXED16's at 16 bits). */
static mix_prec halo_wire(mix_prec storage)
{
    const mix_prec wire = mixk_prec_block_scaled_of(mixk_prec_bytes(storage));
    return mixk_prec_short_float(storage) && wire != MIX_PREC_AUTO ? wire : storage;
}

/* ---- FIXED16 on the whole rows' scales -------------------------------------------------------
 * A FIXED16 row is fixed point on a step from its largest off-diagonal magnitude, with one
 * mantissa from the matrix's largest (kernels/common/fixed16.h).  A row here is split between
 * the local block and a window's off-process block: converted alone, each part would round on
 * its own scale, and the distributed copy would be neither the single process's nor symmetric
 * across a cut.  So both parts take the whole row's largest magnitude and the whole matrix's
 * mantissa (a maximum over the ranks), and together hold the single process's bits. */
typedef struct {
    double *loc;                    /* backend: the n local rows' whole maxima */
    double *win[MIXI_DIST_WIN_MAX]; /* backend: the same for each window's off block's rows */
    double *host;                   /* n, then room for the largest off block */
} whole_tmp;

static void whole_free(mix_context *ctx, whole_tmp *t)
{
    ctx->ops->free(ctx->state, t->loc);
    for (int k = 0; k < MIXI_DIST_WIN_MAX; k++) ctx->ops->free(ctx->state, t->win[k]);
    mixi_free(t->host);
}

static double nan_max(double a, double b) { return a != a || b > a || b != b ? b : a; }

/* Window k's rows' largest ghost entries folded into the local rows' maxima (t->host). */
static int whole_window(mix_sparse *A, int k, int j, const double *S, whole_tmp *t)
{
    mix_context *ctx = A->ctx;
    const mixi_dist_win *w = &A->dist->win[k];
    const size_t m = (size_t)w->off->n;
    double *hw = t->host + A->n;
    int st = ctx->ops->alloc(ctx->state, (void **)&t->win[k], m * sizeof(double));
    if (!st)
        st = ctx->ops->sparse->csr_row_offmax(ctx->state, w->off->a64, S ? w->scale[j] : NULL,
                                              t->win[k]);
    if (!st) st = ctx->ops->download(ctx->state, hw, t->win[k], m * sizeof(double));
    for (int r = 0; r < w->len && !st; r++)
        t->host[w->first + r] = nan_max(t->host[w->first + r], hw[r]);
    return st;
}

/* The whole rows' maxima: uploaded for the local block and each window (its rows past len are
 * empty: 0), and *gmax, this rank's largest (HUGE_VAL for a NaN, as a single process has it). */
static int whole_maxima(mix_sparse *A, int j, const double *S, whole_tmp *t, double *gmax)
{
    mix_context *ctx = A->ctx;
    const mixi_dist_link *d = A->dist;
    const size_t n = (size_t)A->n;
    size_t mmax = 0;
    for (int k = 0; k < d->n_win; k++)
        if ((size_t)d->win[k].off->n > mmax) mmax = (size_t)d->win[k].off->n;
    t->host = mixi_malloc((n + mmax + 1) * sizeof(double));
    int st = t->host ? ctx->ops->alloc(ctx->state, (void **)&t->loc, n * sizeof(double))
                     : MIX_ERR_ALLOC;
    if (!st) st = ctx->ops->sparse->csr_row_offmax(ctx->state, A->a64, S, t->loc);
    if (!st) st = ctx->ops->download(ctx->state, t->host, t->loc, n * sizeof(double));
    for (int k = 0; k < d->n_win && !st; k++) st = whole_window(A, k, j, S, t);
    if (st) return st;
    *gmax = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double m = t->host[i];
        *gmax = m != m ? HUGE_VAL : m > *gmax ? m : *gmax;
    }
    if ((st = ctx->ops->upload(ctx->state, t->loc, t->host, n * sizeof(double)))) return st;
    for (int k = 0; k < d->n_win && !st; k++) {
        const mixi_dist_win *w = &d->win[k];
        double *hw = t->host + n;
        for (int r = 0; r < w->off->n; r++) hw[r] = r < w->len ? t->host[w->first + r] : 0.0;
        st = ctx->ops->upload(ctx->state, t->win[k], hw, (size_t)w->off->n * sizeof(double));
    }
    return st;
}

/* The local block (*loc) and the windows' off blocks (their sloppy[j][prec]) on those scales. */
static int whole_convert(mix_sparse *A, mix_prec prec, int j, const double *S, const whole_tmp *t,
                         double gmax, mixi_spmat **loc)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    int st = sp->csr_convert_rows(ctx->state, A->a64, prec, S, t->loc, gmax, loc);
    for (int k = 0; k < A->dist->n_win && !st; k++) {
        mixi_dist_win *w = &A->dist->win[k];
        sp->csr_destroy(ctx->state, w->sloppy[j][prec]);
        w->sloppy[j][prec] = NULL;
        st = sp->csr_convert_rows(ctx->state, w->off->a64, prec, S ? w->scale[j] : NULL, t->win[k],
                                  gmax, &w->sloppy[j][prec]);
    }
    return st;
}

/* Collective: remakes the local block's FIXED16 copy *As (A->sloppy[j][prec]) and the windows'
 * on the whole rows' scales; the same status on every rank. */
static int whole_rows(mix_sparse *A, mix_prec prec, int j, const double *S, const mixi_spmat **As)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    whole_tmp t;
    memset(&t, 0, sizeof t);
    double v[2] = {0.0, 0.0};
    int st = whole_maxima(A, j, S, &t, &v[0]);
    v[1] = st;
    const int s = mixi_cg_max(A, v, 2); /* the whole matrix's largest; any rank's failure */
    if (!s && v[1] != 0.0) st = mixi_cg_agree(A, st);
    mixi_spmat *loc = NULL;
    if (!s && !st) st = mixi_cg_agree(A, whole_convert(A, prec, j, S, &t, v[0], &loc));
    whole_free(ctx, &t);
    if (s || st) {
        sp->csr_destroy(ctx->state, loc);
        for (int k = 0; k < A->dist->n_win; k++) {
            sp->csr_destroy(ctx->state, A->dist->win[k].sloppy[j][prec]);
            A->dist->win[k].sloppy[j][prec] = NULL;
        }
        return s ? s : st;
    }
    sp->csr_destroy(ctx->state, A->sloppy[j][prec]);
    A->sloppy[j][prec] = loc;
    A->eta_known[j][prec] = 0; /* measured on the copy replaced, if at all */
    A->dist->whole_rows[j][prec] = 1;
    *As = loc;
    return MIX_SUCCESS;
}

/* Window k's sloppy copy in `prec` and its two vectors. */
static int window_setup(mix_sparse *A, int k, mix_prec prec, int jacobi, const double *S,
                        mix_prec vprec, mixi_cg_halo *h)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    mixi_dist_win *w = &A->dist->win[k];
    const int j = jacobi ? 1 : 0;
    int st = MIX_SUCCESS;
    if (!w->sloppy[j][prec] &&
        (st = sp->csr_convert(ctx->state, w->off->a64, prec, S ? w->scale[j] : NULL, &w->sloppy[j][prec]))) {
        w->sloppy[j][prec] = NULL;
        return st;
    }
    h->w[k].off = w->sloppy[j][prec];
    if (!(st = mixi_cg_svec_alloc(ctx, vprec, w->off->n, &h->w[k].g)) &&
        !(st = mixi_cg_svec_alloc(ctx, vprec, w->off->n, &h->w[k].y)))
        st = sp->vec_zero(ctx->state, &h->w[k].g); /* the local part stays zero */
    return st;
}

int mixi_cg_halo_setup(mix_sparse *A, mix_prec prec, int jacobi, const double *S, mix_prec vprec,
                       const mixi_spmat **As, mixi_cg_halo *h)
{
    memset(h, 0, sizeof *h);
    if (!A->dist) return MIX_SUCCESS;
    const int kind = jacobi ? 1 : 0;
    int st = MIX_SUCCESS;
    h->wire = halo_wire(prec);
    /* Every rank takes this branch alike: S is NULL for the same storages everywhere.  Jacobi's
     * scale is kind 1, FP16/BF16's uniform one kind 0 (so a scale's kind is the copy's j). */
    if (S && !A->off_scale_done[kind]) st = off_scale(A, kind, S);
    if (st) return st;
    /* Every rank alike again: whole_rows is set on all or none.  A backend without the
     * operations keeps each block's own scales. */
    const mixi_sparse_ops *sp = A->ctx->ops->sparse;
    if (mixk_prec_block_scaled(prec) && !A->dist->whole_rows[kind][prec] && sp->csr_row_offmax &&
        sp->csr_convert_rows && (st = whole_rows(A, prec, kind, S, As)))
        return st;
    for (int k = 0; k < A->dist->n_win && !st; k++) st = window_setup(A, k, prec, jacobi, S, vprec, h);
    return mixi_cg_agree(A, st);
}

void mixi_cg_halo_free(mix_sparse *A, mixi_cg_halo *h)
{
    for (int k = 0; k < MIXI_DIST_WIN_MAX; k++) {
        mixi_cg_svec_free(A->ctx, &h->w[k].g);
        mixi_cg_svec_free(A->ctx, &h->w[k].y);
        h->w[k].off = NULL;
    }
}

/* ap[window] += the window's off-process part of As p (ghosts in d->ghost); *po += its share
 * of p'Ap. */
static int window_spmv(mix_sparse *A, mixi_cg_halo *h, int k, const mixi_svec *p, mixi_svec *ap,
                       double *po)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    const mixi_dist_win *w = &A->dist->win[k];
    mixi_svec tail = view(&h->w[k].g, w->pad, w->ng);
    const mixi_svec head = view(&h->w[k].y, 0, w->len), pw = view(p, w->first, w->len);
    mixi_svec apw = view(ap, w->first, w->len);
    double gy, d = 0.0;
    int st;
    if (!(st = sp->vec_from64(ctx->state, A->dist->ghost + w->g0, NULL, 1.0, &tail, NULL)) &&
        !(st = sp->spmv(ctx->state, h->w[k].off, &h->w[k].g, &h->w[k].y, &gy)) &&
        !(st = sp->dot(ctx->state, &pw, &head, &d)))
        st = sp->axpby(ctx->state, 1.0, &head, 1.0, &apw);
    *po += d;
    return st;
}

int mixi_cg_spmv(mix_sparse *A, mixi_cg_halo *h, const mixi_spmat *As, const mixi_svec *p,
                 mixi_svec *ap, double *pap)
{
    mix_context *ctx = A->ctx;
    const mixi_sparse_ops *sp = ctx->ops->sparse;
    if (!A->dist) return sp->spmv(ctx->state, As, p, ap, pap);
    const mixi_dist_link *d = A->dist;
    const mixi_comm *c = d->comm;
    double v[2] = {0.0, 0.0};
    int st = c->ops->halo_begin_sv(c, d->halo, h->wire, p->prec, p->val, p->norm);
    const int st2 = sp->spmv(ctx->state, As, p, ap, &v[0]); /* while the halo travels */
    const int st3 = c->ops->halo_end(c, d->halo, d->ghost);
    st = st ? st : st2 ? st2 : st3;
    for (int k = 0; k < d->n_win && !st; k++) st = window_spmv(A, h, k, p, ap, &v[0]);
    v[1] = st;
    const int s = mixi_cg_sum(A, v, 2);
    if (s) return s;
    if (v[1] != 0.0) return mixi_cg_agree(A, st);
    *pap = v[0];
    return MIX_SUCCESS;
}

void mixi_cg_off_free(mix_sparse *A)
{
    const mixi_backend_ops *ops = A->ctx->ops;
    for (int k = 0; k < A->dist->n_win; k++) {
        mixi_dist_win *w = &A->dist->win[k];
        for (int j = 0; j < 2; j++) {
            for (int p = 0; p < MIX_NUM_PREC; p++)
                if (w->sloppy[j][p]) ops->sparse->csr_destroy(A->ctx->state, w->sloppy[j][p]);
            ops->free(A->ctx->state, w->scale[j]);
        }
    }
}
