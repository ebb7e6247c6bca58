/* dist_csr.c: mix_sparse_create_dist_csr: a matrix distributed by rows, checked collectively
 * (every rank returns the same status, none is left waiting), split as PETSc's MPIAIJ (owned
 * columns, off-process columns renumbered compactly) with its halo plan.  Host allocation is
 * malloc: libmixsolve exports only mix_ symbols, not its allocator. */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "lib/mpi/mpi_internal.h"
#include "solvers/cg/cg.h"

typedef struct {
    int64_t col;
    double val;
} entry;

static int entry_cmp(const void *a, const void *b)
{
    const int64_t x = ((const entry *)a)->col, y = ((const entry *)b)->col;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* What a rank can check alone before it knows n_global: the row pointers (not the entries,
 * which are read only once the nnz total is known not to overflow). */
static int check_rows(int n_local, const int64_t *rowptr, const int64_t *colind,
                      const double *val, int64_t *nnz)
{
    *nnz = 0;
    if (n_local < 0 || !rowptr || rowptr[0] != 0) return MIX_ERR_INVALID_ARG;
    for (int i = 0; i < n_local; i++)
        if (rowptr[i + 1] < rowptr[i]) return MIX_ERR_INVALID_ARG; /* rows out of order */
    *nnz = rowptr[n_local];
    if (*nnz > 0 && (!colind || !val)) return MIX_ERR_INVALID_ARG;
    return MIX_SUCCESS;
}

/* Row starts from every rank's n_local and the nnz total (one MPI_Allgather), overflow-checked;
 * a matrix of no row refused. */
static int layout(mixi_dist *D, int64_t nnz, int st)
{
    int64_t mine[2] = {st ? 0 : D->n_local, st ? 0 : nnz};
    int64_t *all = malloc(2 * (size_t)D->size * sizeof *all);
    D->row_starts = malloc(((size_t)D->size + 1) * sizeof *D->row_starts);
    const int a = mixi_mpi_agree(D->mc, all && D->row_starts ? MIX_SUCCESS : MIX_ERR_ALLOC);
    if (a) {
        free(all);
        return a;
    }
    if (MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, D->mc) != MPI_SUCCESS)
        st = MIX_ERR_COMM;
    D->row_starts[0] = 0;
    D->nnz_global = 0;
    for (int q = 0; q < D->size; q++)
        if (__builtin_add_overflow(D->row_starts[q], all[2 * q], &D->row_starts[q + 1]) ||
            __builtin_add_overflow(D->nnz_global, all[2 * q + 1], &D->nnz_global))
            st = st ? st : MIX_ERR_OVERFLOW;
    D->row_start = D->row_starts[D->rank];
    D->n_global = D->row_starts[D->size];
    free(all);
    /* No row anywhere: mix_sparse_create_csr's n <= 0 (every rank sees the same n_global). */
    if (!st && D->n_global == 0) st = MIX_ERR_INVALID_ARG;
    return mixi_mpi_agree(D->mc, st);
}

/* Once n_global is known: every column in [0, n_global), every value finite. */
static int check_entries(const mixi_dist *D, int64_t nnz, const int64_t *colind, const double *val)
{
    for (int64_t k = 0; k < nnz; k++)
        if (colind[k] < 0 || colind[k] >= D->n_global) return MIX_ERR_INVALID_ARG;
    for (int64_t k = 0; k < nnz; k++)
        if (!isfinite(val[k])) return MIX_ERR_NAN;
    return MIX_SUCCESS;
}

/* max |a_ij| over the ranks: FP16/BF16's uniform scale and the range test decide alike. */
static int global_amax(mixi_dist *D, int64_t nnz, const double *val)
{
    double m = 0.0;
    for (int64_t k = 0; k < nnz; k++)
        if (fabs(val[k]) > m) m = fabs(val[k]);
    if (MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, D->mc) != MPI_SUCCESS)
        return mixi_mpi_agree(D->mc, MIX_ERR_COMM);
    D->amax = m;
    return MIX_SUCCESS;
}

/* Rows sorted by global column, duplicates summed (as mix_sparse_create_csr): D->rp, D->v and
 * the global columns *gcol. */
static int canonical(mixi_dist *D, const int64_t *rowptr, const int64_t *colind,
                     const double *val, int64_t **gcol)
{
    const int n = D->n_local;
    const int64_t nnz = rowptr[n];
    int64_t maxrow = 1;
    for (int i = 0; i < n; i++)
        if (rowptr[i + 1] - rowptr[i] > maxrow) maxrow = rowptr[i + 1] - rowptr[i];
    entry *row = malloc((size_t)maxrow * sizeof *row);
    D->rp = malloc(((size_t)n + 1) * sizeof *D->rp);
    D->v = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *D->v);
    *gcol = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof **gcol);
    if (!row || !D->rp || !D->v || !*gcol) {
        free(row);
        return MIX_ERR_ALLOC;
    }
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        const int64_t len = rowptr[i + 1] - rowptr[i];
        for (int64_t t = 0; t < len; t++) row[t] = (entry){colind[rowptr[i] + t], val[rowptr[i] + t]};
        qsort(row, (size_t)len, sizeof *row, entry_cmp);
        D->rp[i] = k;
        for (int64_t t = 0; t < len; t++) {
            if (k > D->rp[i] && (*gcol)[k - 1] == row[t].col) {
                D->v[k - 1] += row[t].val;
            } else {
                (*gcol)[k] = row[t].col;
                D->v[k++] = row[t].val;
            }
        }
    }
    D->rp[n] = k;
    free(row);
    return MIX_SUCCESS;
}

static int owned(const mixi_dist *D, int64_t j)
{
    return j >= D->row_start && j < D->row_start + D->n_local;
}

/* Structural symmetry among the owned columns: each (i, j) with j owned needs (j, i), found by
 * binary search in row j (sorted by canonical()), O(nnz log row length) with no transpose; the
 * off-process pairs are checked by the halo plan's exchange (halo.c).  mix_sparse_create_csr
 * checks none, but the distributed contract promises it (mixsolve_mpi(3)). */
static int local_symmetric(const mixi_dist *D, const int64_t *gcol)
{
    for (int i = 0; i < D->n_local; i++)
        for (int64_t k = D->rp[i]; k < D->rp[i + 1]; k++) {
            const int64_t jl = gcol[k] - D->row_start;
            if (owned(D, gcol[k]) &&
                !mixi_dist_row_has(gcol, D->rp[jl], D->rp[jl + 1], D->row_start + i))
                return MIX_ERR_NOT_SYMMETRIC;
        }
    return MIX_SUCCESS;
}

/* The ghosts: the distinct off-process columns, ascending. */
static int ghosts(mixi_dist *D, const int64_t *gcol)
{
    const int64_t nnz = D->rp[D->n_local];
    int64_t m = 0;
    D->ghost = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *D->ghost);
    if (!D->ghost) return MIX_ERR_ALLOC;
    for (int64_t k = 0; k < nnz; k++)
        if (!owned(D, gcol[k])) D->ghost[m++] = gcol[k];
    qsort(D->ghost, (size_t)m, sizeof *D->ghost, cmp_i64);
    int64_t u = 0;
    for (int64_t t = 0; t < m; t++)
        if (t == 0 || D->ghost[t] != D->ghost[t - 1]) D->ghost[u++] = D->ghost[t];
    D->nnz_off = m;
    D->nnz_diag = nnz - m;
    if (u > INT_MAX - (int64_t)D->n_local) return MIX_ERR_OVERFLOW; /* columns are int32 */
    D->n_ghost = (int)u;
    return MIX_SUCCESS;
}

static int ghost_index(const mixi_dist *D, int64_t j)
{
    int lo = 0, hi = D->n_ghost - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (D->ghost[mid] < j) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* The merged columns (owned j -> j - row_start, ghost -> n_local + its index), the interior rows
 * then the boundary rows, and the off-process pairs (i, j), global, for the halo plan. */
static int renumber(mixi_dist *D, const int64_t *gcol, int64_t **pairs)
{
    const int n = D->n_local;
    const int64_t nnz = D->rp[n];
    D->cx = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *D->cx);
    D->rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *D->rows);
    *pairs = malloc(2 * (size_t)(D->nnz_off > 0 ? D->nnz_off : 1) * sizeof **pairs);
    if (!D->cx || !D->rows || !*pairs) return MIX_ERR_ALLOC;
    int64_t p = 0;
    int nb = 0;
    for (int i = 0; i < n; i++) {
        int boundary = 0;
        for (int64_t k = D->rp[i]; k < D->rp[i + 1]; k++) {
            if (owned(D, gcol[k])) {
                D->cx[k] = (int32_t)(gcol[k] - D->row_start);
            } else {
                D->cx[k] = n + ghost_index(D, gcol[k]);
                (*pairs)[2 * p] = D->row_start + i;
                (*pairs)[2 * p++ + 1] = gcol[k];
                boundary = 1;
            }
        }
        if (boundary) D->rows[n - 1 - nb++] = i; /* from the end, reversed back below */
        else D->rows[D->n_interior++] = i;
    }
    for (int a = D->n_interior, b = n - 1; a < b; a++, b--) {
        const int t = D->rows[a];
        D->rows[a] = D->rows[b];
        D->rows[b] = t;
    }
    return MIX_SUCCESS;
}

/* The block of a rank owning no row: one isolated unknown, [1]. */
static int phantom(mixi_dist *D)
{
    const int64_t rp[2] = {0, 1};
    const int32_t ci[1] = {0};
    const double v[1] = {1.0};
    return mix_sparse_create_csr(D->ctx, 1, rp, ci, v, &D->diag);
}

/* The local block (owned columns) as a backend matrix, from which the CG's sloppy copies
 * (SELL-32, FIXED16, ...) convert like any matrix's. */
static int split_diag(mixi_dist *D)
{
    const int n = D->n_local;
    int64_t *drp = malloc(((size_t)n + 1) * sizeof *drp);
    int32_t *dci = malloc((size_t)(D->nnz_diag > 0 ? D->nnz_diag : 1) * sizeof *dci);
    double *dv = malloc((size_t)(D->nnz_diag > 0 ? D->nnz_diag : 1) * sizeof *dv);
    int st = drp && dci && dv ? MIX_SUCCESS : MIX_ERR_ALLOC;
    int64_t kd = 0;
    for (int i = 0; i < n && !st; i++) {
        drp[i] = kd;
        for (int64_t k = D->rp[i]; k < D->rp[i + 1]; k++)
            if (D->cx[k] < n) { dci[kd] = D->cx[k]; dv[kd++] = D->v[k]; }
    }
    if (!st) {
        drp[n] = kd;
        st = mix_sparse_create_csr(D->ctx, n, drp, dci, dv, &D->diag);
    }
    free(drp); free(dci); free(dv);
    return st;
}

static int blk_down(int i) { return i / MIXK_SVEC_BLOCK * MIXK_SVEC_BLOCK; }

/* The windows of rows holding the off-process entries (lib/core/comm.h): the boundary rows
 * (D->rows from n_interior, ascending) split at their largest gap when it spans a quarter of
 * the block (a slab's first and last planes), else one window; each from a FIXED16 vector
 * block's start to one's end (or the last row). */
static void windows(mixi_dist *D)
{
    const int n = D->n_local, nb = n - D->n_interior;
    const int *bnd = D->rows + D->n_interior;
    mixi_dist_link *l = &D->link;
    if (nb == 0 || D->n_ghost == 0) return;
    int at = 0, gap = 0;
    for (int t = 1; t < nb; t++)
        if (bnd[t] - bnd[t - 1] > gap) gap = bnd[t] - bnd[t - 1], at = t;
    int lo[2] = {bnd[0], at ? bnd[at] : 0}, hi[2] = {at ? bnd[at - 1] : bnd[nb - 1], bnd[nb - 1]};
    l->n_win = at && gap > n / 4 ? 2 : 1;
    if (l->n_win == 1) hi[0] = bnd[nb - 1];
    for (int k = 0; k < l->n_win; k++) {
        const int end = hi[k] + 1 + MIXK_SVEC_BLOCK - 1;
        l->win[k].first = blk_down(lo[k]);
        l->win[k].len = (blk_down(end) < n ? blk_down(end) : n) - l->win[k].first;
    }
    if (l->n_win == 2 && l->win[1].first < l->win[0].first + l->win[0].len) { /* they touch */
        l->n_win = 1;
        l->win[0].len = l->win[1].first + l->win[1].len - l->win[0].first;
    }
}

/* Window w's off-process entries as a backend matrix of order pad + ng (lib/core/comm.h). */
static int window_block(mixi_dist *D, mixi_dist_win *w)
{
    const int n = D->n_local;
    int g0 = INT_MAX, g1 = -1;
    for (int i = w->first; i < w->first + w->len; i++)
        for (int64_t k = D->rp[i]; k < D->rp[i + 1]; k++)
            if (D->cx[k] >= n) {
                g0 = D->cx[k] - n < g0 ? D->cx[k] - n : g0;
                g1 = D->cx[k] - n > g1 ? D->cx[k] - n : g1;
            }
    if (g1 < 0) g0 = g1 = 0; /* a window without entries: an empty block */
    w->g0 = g0;
    w->ng = g1 - g0 + 1;
    w->pad = (w->len + MIXK_SVEC_BLOCK - 1) / MIXK_SVEC_BLOCK * MIXK_SVEC_BLOCK;
    if (w->ng > INT_MAX - w->pad) return MIX_ERR_OVERFLOW;
    const int m = w->pad + w->ng;
    int64_t *orp = calloc((size_t)m + 1, sizeof *orp), ko = 0;
    int32_t *oci = malloc((size_t)(D->nnz_off > 0 ? D->nnz_off : 1) * sizeof *oci);
    double *ov = malloc((size_t)(D->nnz_off > 0 ? D->nnz_off : 1) * sizeof *ov);
    int st = orp && oci && ov ? MIX_SUCCESS : MIX_ERR_ALLOC;
    for (int r = 0; r < w->len && !st; r++) {
        orp[r] = ko;
        for (int64_t k = D->rp[w->first + r]; k < D->rp[w->first + r + 1]; k++)
            if (D->cx[k] >= n) { oci[ko] = D->cx[k] - n - g0 + w->pad; ov[ko++] = D->v[k]; }
    }
    for (int r = w->len; r <= m && !st; r++) orp[r] = ko;
    if (!st) st = mix_sparse_create_csr(D->ctx, m, orp, oci, ov, &w->off);
    free(orp); free(oci); free(ov);
    return st;
}

/* PETSc's MPIAIJ split: the local block, and the off-process entries by windows of rows. */
static int split(mixi_dist *D)
{
    if (D->n_local == 0) return phantom(D);
    int st = split_diag(D);
    windows(D);
    for (int k = 0; k < D->link.n_win && !st; k++) st = window_block(D, &D->link.win[k]);
    return st;
}

/* The link's free: the whole distributed part (the local block is the user's object). */
static void link_free(mixi_dist_link *l)
{
    mixi_dist_free((mixi_dist *)(void *)((char *)l - offsetof(mixi_dist, link)));
}

void mixi_dist_free(mixi_dist *D)
{
    if (!D) return;
    mix_sparse_destroy(D->diag);
    for (int k = 0; k < D->link.n_win; k++) mix_sparse_destroy(D->link.win[k].off);
    mixi_halo_free(D->halo);
    free(D->row_starts); free(D->ghost); free(D->rp); free(D->cx); free(D->v);
    free(D->rows); free(D->ghostv);
    free(D);
}

/* After the entries are known valid: the local build, then the plan (collective inside). */
static int build(mixi_dist *D, const int64_t *rowptr, const int64_t *colind, const double *val)
{
    int64_t *gcol = NULL, *pairs = NULL;
    int st = canonical(D, rowptr, colind, val, &gcol);
    if (!st) st = local_symmetric(D, gcol);
    if (!st) st = ghosts(D, gcol);
    if (!st) st = renumber(D, gcol, &pairs);
    st = mixi_mpi_agree(D->mc, st);
    if (!st) st = mixi_halo_create(D->mc, D->row_starts, D->n_ghost, D->ghost, pairs, D->nnz_off,
                                   D->rp, gcol, &D->halo);
    free(gcol);
    free(pairs);
    if (!st) {
        D->ghostv = calloc((size_t)(D->n_ghost > 0 ? D->n_ghost : 1), sizeof *D->ghostv);
        /* The sloppy halo's widened values, made now so that no exchange can fail alone. */
        D->halo->sx = malloc((size_t)(D->n_local > 0 ? D->n_local : 1) * sizeof *D->halo->sx);
        const int ns = D->halo->send_off[D->halo->nsend];
        D->halo->sdec = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *D->halo->sdec);
        st = D->ghostv && D->halo->sx && D->halo->sdec ? split(D) : MIX_ERR_ALLOC;
        st = mixi_mpi_agree(D->mc, st);
    }
    return st;
}

int mixi_dist_create(mix_context *ctx, int n_local, const int64_t *rowptr, const int64_t *colind,
                     const double *val, mixi_dist **Dp)
{
    if (!Dp) return MIX_ERR_INVALID_ARG;
    *Dp = NULL;
    const MPI_Comm mc = mixi_mpi_comm_of(ctx);
    if (mc == MPI_COMM_NULL) return MIX_ERR_INVALID_ARG; /* not collective: no communicator */
    mixi_dist *D = calloc(1, sizeof *D);
    int st = mixi_mpi_agree(mc, D ? MIX_SUCCESS : MIX_ERR_ALLOC);
    if (st) {
        free(D);
        return st;
    }
    D->ctx = ctx;
    D->mc = mc;
    D->rank = ctx->comm->rank;
    D->size = ctx->comm->size;
    D->n_local = n_local > 0 ? n_local : 0;
    int64_t nnz = 0;
    st = check_rows(n_local, rowptr, colind, val, &nnz);
    st = layout(D, nnz, st);
    if (!st) st = mixi_mpi_agree(mc, check_entries(D, nnz, colind, val));
    if (!st) st = global_amax(D, nnz, val);
    if (!st) st = build(D, rowptr, colind, val);
    if (st) {
        mixi_dist_free(D);
        return st;
    }
    *Dp = D;
    return MIX_SUCCESS;
}

/* The CG reads the distributed part through the link (lib/core/comm.h); the local block, which
 * the user holds as A, points to it and frees it with itself. */
static void attach(mixi_dist *D, mix_sparse *A)
{
    mixi_dist_link *l = &D->link;
    l->comm = D->ctx->comm;
    l->halo = D->halo;
    l->n_global = D->n_global;
    l->n_ghost = D->n_ghost;
    l->phantom = D->n_local == 0;
    l->ghost = D->ghostv;
    l->free = link_free;
    A->amax = D->amax;
    A->dist = l;
    D->diag = NULL; /* now the user's */
}

int mix_sparse_create_dist_csr(mix_context *ctx, int n_local, const int64_t *rowptr,
                               const int64_t *colind, const double *val, mix_sparse **A)
{
    if (A) *A = NULL;
    const MPI_Comm mc = mixi_mpi_comm_of(ctx);
    if (mc == MPI_COMM_NULL) return MIX_ERR_INVALID_ARG; /* no rank can be told (mixsolve_mpi(3)) */
    /* A NULL A still takes part, so that no rank waits for this one.  The halo is packed from
     * and decoded into the CG's vectors where they lie: host memory. */
    int st = !A ? MIX_ERR_INVALID_ARG
             : !(ctx->ops->flags & MIXI_BACKEND_HOST_MEMORY) ? MIX_ERR_UNSUPPORTED : MIX_SUCCESS;
    if ((st = mixi_mpi_agree(mc, st))) return st;
    mixi_dist *D = NULL;
    st = mixi_dist_create(ctx, n_local, rowptr, colind, val, &D);
    if (st) return st;
    mix_sparse *L = D->diag;
    attach(D, L);
    *A = L;
    return MIX_SUCCESS;
}
