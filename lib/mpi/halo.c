/* halo.c: the halo plan of a distributed matrix (built once: owners by binary search on the row
 * starts, then the exchange of needs, which also checks structural symmetry across ranks) and
 * the nonblocking exchange of one SpMV. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lib/mpi/mpi_internal.h"
#include "kernels/common/spmv_row.h"

#define HALO_TAG 0x6d78 /* "mx" */

/* The rank owning global row j: the last q with row_starts[q] <= j (empty ranks skipped). */
static int owner(const int64_t *row_starts, int size, int64_t j)
{
    int lo = 0, hi = size; /* row_starts[lo] <= j < row_starts[hi] */
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        if (row_starts[mid] <= j) lo = mid; else hi = mid;
    }
    return lo;
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int mixi_dist_row_has(const int64_t *colind, int64_t b, int64_t e, int64_t c)
{
    while (b < e) {
        const int64_t m = b + (e - b) / 2;
        if (colind[m] == c) return 1;
        if (colind[m] < c) b = m + 1; else e = m;
    }
    return 0;
}

void mixi_halo_free(struct mixi_halo *h)
{
    if (!h) return;
    free(h->send_rank); free(h->recv_rank); free(h->send_off); free(h->recv_off);
    free(h->send_idx); free(h->sbuf); free(h->rbuf); free(h->req);
    free(h->scount); free(h->sdispl); free(h->rcount); free(h->rdispl); free(h->sx); free(h->sdec);
    if (h->graph != MPI_COMM_NULL) MPI_Comm_free(&h->graph);
    free(h);
}

typedef struct { /* the exchange of needs: every off-process entry (i, j) goes to j's owner */
    int *scnt, *sdsp, *rcnt, *rdsp; /* in int64 units, two per pair */
    int64_t *spairs, *rpairs;
} needs;

static void needs_free(needs *x)
{
    free(x->scnt); free(x->sdsp); free(x->rcnt); free(x->rdsp); free(x->spairs); free(x->rpairs);
}

/* Buckets the pairs by owner of j (a counting sort keeps each owner's in row order). */
static int bucket(const int64_t *row_starts, int size, const int64_t *pairs, int64_t npairs,
                  needs *x)
{
    x->scnt = calloc((size_t)size, sizeof(int));
    x->sdsp = calloc((size_t)size + 1, sizeof(int));
    x->rcnt = calloc((size_t)size, sizeof(int));
    x->rdsp = calloc((size_t)size + 1, sizeof(int));
    x->spairs = malloc(2 * (size_t)(npairs > 0 ? npairs : 1) * sizeof(int64_t));
    if (!x->scnt || !x->sdsp || !x->rcnt || !x->rdsp || !x->spairs) return MIX_ERR_ALLOC;
    if (npairs > INT_MAX / 2) return MIX_ERR_OVERFLOW; /* MPI counts are int */
    for (int64_t t = 0; t < npairs; t++) x->scnt[owner(row_starts, size, pairs[2 * t + 1])] += 2;
    for (int q = 0; q < size; q++) x->sdsp[q + 1] = x->sdsp[q] + x->scnt[q];
    int *fill = x->rcnt; /* borrowed as a cursor, zeroed again below */
    for (int64_t t = 0; t < npairs; t++) {
        const int q = owner(row_starts, size, pairs[2 * t + 1]);
        memcpy(&x->spairs[x->sdsp[q] + fill[q]], &pairs[2 * t], 2 * sizeof(int64_t));
        fill[q] += 2;
    }
    memset(x->rcnt, 0, (size_t)size * sizeof(int));
    return MIX_SUCCESS;
}

/* Sends each owner its pairs (collective; every rank's buckets are made). */
static int exchange(MPI_Comm mc, int size, needs *x)
{
    int st = MIX_SUCCESS, *sc = x->scnt;
    if (MPI_Alltoall(sc, 1, MPI_INT, x->rcnt, 1, MPI_INT, mc) != MPI_SUCCESS) return MIX_ERR_COMM;
    int64_t total = 0;
    for (int q = 0; q < size; q++) {
        x->rdsp[q] = (int)total;
        total += x->rcnt[q];
        if (total > INT_MAX) st = st ? st : MIX_ERR_OVERFLOW;
    }
    x->rpairs = malloc((size_t)(total > 0 && total <= INT_MAX ? total : 1) * sizeof(int64_t));
    if (!x->rpairs) st = st ? st : MIX_ERR_ALLOC;
    st = mixi_mpi_agree(mc, st);
    if (st) return st;
    return MPI_Alltoallv(x->spairs, sc, x->sdsp, MPI_INT64_T, x->rpairs, x->rcnt, x->rdsp,
                         MPI_INT64_T, mc) == MPI_SUCCESS ? MIX_SUCCESS : MIX_ERR_COMM;
}

/* Every pair (i, j) received must have its (j, i) here, and each rank sent us as many pairs as
 * we sent it (no duplicates on either side: then the off-process structure is symmetric). */
static int symmetric(const needs *x, int size, int64_t start, const int64_t *rowptr,
                     const int64_t *colind)
{
    for (int q = 0; q < size; q++) {
        if (x->rcnt[q] != x->scnt[q]) return MIX_ERR_NOT_SYMMETRIC;
        for (int t = x->rdsp[q]; t < x->rdsp[q] + x->rcnt[q]; t += 2) {
            const int64_t i = x->rpairs[t], jl = x->rpairs[t + 1] - start;
            if (!mixi_dist_row_has(colind, rowptr[jl], rowptr[jl + 1], i))
                return MIX_ERR_NOT_SYMMETRIC;
        }
    }
    return MIX_SUCCESS;
}

/* The neighbours and index lists: we send q the distinct j of the pairs q sent us, ascending
 * (q's ghosts from us, in q's order); our ghosts from q are the run of ghost[] q owns. */
static int lists(struct mixi_halo *h, const needs *x, int size, int64_t start,
                 const int64_t *row_starts, int n_ghost, const int64_t *ghost)
{
    h->send_rank = malloc((size_t)size * sizeof(int));
    h->recv_rank = malloc((size_t)size * sizeof(int));
    h->send_off = calloc((size_t)size + 1, sizeof(int));
    h->recv_off = calloc((size_t)size + 1, sizeof(int));
    int64_t nsend_max = 0;
    for (int q = 0; q < size; q++) nsend_max += x->rcnt[q] / 2;
    h->send_idx = malloc((size_t)(nsend_max > 0 ? nsend_max : 1) * sizeof(int));
    int64_t *js = malloc((size_t)(nsend_max > 0 ? nsend_max : 1) * sizeof(int64_t));
    int st = h->send_rank && h->recv_rank && h->send_off && h->recv_off && h->send_idx && js
                 ? MIX_SUCCESS : MIX_ERR_ALLOC;
    for (int q = 0; q < size && !st; q++) {
        const int n = x->rcnt[q] / 2;
        if (!n) continue;
        for (int t = 0; t < n; t++) js[t] = x->rpairs[x->rdsp[q] + 2 * t + 1];
        qsort(js, (size_t)n, sizeof *js, cmp_i64);
        int u = 0, base = h->send_off[h->nsend];
        for (int t = 0; t < n; t++)
            if (t == 0 || js[t] != js[t - 1]) h->send_idx[base + u++] = (int)(js[t] - start);
        h->send_rank[h->nsend++] = q;
        h->send_off[h->nsend] = base + u;
    }
    for (int g = 0; g < n_ghost && !st;) {
        const int q = owner(row_starts, size, ghost[g]);
        int e = g;
        while (e < n_ghost && ghost[e] < row_starts[q + 1]) e++;
        h->recv_rank[h->nrecv++] = q;
        h->recv_off[h->nrecv] = e;
        g = e;
    }
    free(js);
    return st;
}

static int buffers(struct mixi_halo *h)
{
    const size_t s = 8 * ((size_t)h->nsend + (size_t)h->send_off[h->nsend]) + 8;
    const size_t r = 8 * ((size_t)h->nrecv + (size_t)h->n_ghost) + 8;
    h->sbuf = malloc(s);
    h->rbuf = malloc(r);
    h->req = malloc(((size_t)h->nsend + (size_t)h->nrecv + 1) * sizeof(MPI_Request));
    h->scount = malloc(((size_t)h->nsend + 1) * sizeof(int));
    h->sdispl = malloc(((size_t)h->nsend + 1) * sizeof(int));
    h->rcount = malloc(((size_t)h->nrecv + 1) * sizeof(int));
    h->rdispl = malloc(((size_t)h->nrecv + 1) * sizeof(int));
    if (s > INT_MAX || r > INT_MAX) return MIX_ERR_OVERFLOW; /* byte displacements are int */
    return h->sbuf && h->rbuf && h->req && h->scount && h->sdispl && h->rcount && h->rdispl
               ? MIX_SUCCESS : MIX_ERR_ALLOC;
}

/* The graph communicator of the neighbourhood collective: collective, so made on every rank
 * once the plan is agreed.  Unit weights from the count arrays (GCC takes MPI_UNWEIGHTED for
 * an array too short to read). */
static int graph(struct mixi_halo *h)
{
    for (int k = 0; k < h->nrecv; k++) h->rcount[k] = 1;
    for (int k = 0; k < h->nsend; k++) h->scount[k] = 1;
    return MPI_Dist_graph_create_adjacent(h->mc, h->nrecv, h->recv_rank, h->rcount, h->nsend,
                                          h->send_rank, h->scount, MPI_INFO_NULL, 0, &h->graph)
               == MPI_SUCCESS ? MIX_SUCCESS : MIX_ERR_COMM;
}

void mixi_halo_use_neighbor(struct mixi_halo *h, int on)
{
    if (!h->active) h->neighbor = on != 0; /* never in the middle of an exchange */
}

int mixi_halo_create(MPI_Comm mc, const int64_t *row_starts, int n_ghost, const int64_t *ghost,
                     const int64_t *pairs, int64_t npairs, const int64_t *rowptr,
                     const int64_t *colind, struct mixi_halo **hp)
{
    int size, rank;
    MPI_Comm_size(mc, &size);
    MPI_Comm_rank(mc, &rank);
    *hp = NULL;
    needs x = {0};
    struct mixi_halo *h = calloc(1, sizeof *h);
    if (h) h->graph = MPI_COMM_NULL;
    int st = h ? bucket(row_starts, size, pairs, npairs, &x) : MIX_ERR_ALLOC;
    st = mixi_mpi_agree(mc, st); /* exchange() needs every rank's buckets */
    if (!st) st = exchange(mc, size, &x);
    if (!st) st = symmetric(&x, size, row_starts[rank], rowptr, colind);
    if (!st) {
        h->mc = mc;
        h->n_ghost = n_ghost;
        st = lists(h, &x, size, row_starts[rank], row_starts, n_ghost, ghost);
    }
    if (!st) st = buffers(h);
    needs_free(&x);
    st = mixi_mpi_agree(mc, st);
    if (!st) st = mixi_mpi_agree(mc, graph(h));
    if (st) {
        mixi_halo_free(h);
        return st;
    }
    *hp = h;
    return MIX_SUCCESS;
}

static size_t sbase(const struct mixi_halo *h, int k) { return 8 * ((size_t)k + (size_t)h->send_off[k]); }
static size_t rbase(const struct mixi_halo *h, int k) { return 8 * ((size_t)k + (size_t)h->recv_off[k]); }

/* Message k packed from x; x NULL (a rank that could not allocate its vector) sends zeros, so
 * that its neighbours still get their message and reach the reduction that reports the failure. */
static void pack(struct mixi_halo *h, mix_prec wire, const double *x, int k, int n)
{
    if (x) mixi_wire_pack(wire, x, h->send_idx + h->send_off[k], n, h->sbuf + sbase(h, k));
    else memset(h->sbuf + sbase(h, k), 0, mixi_wire_bytes(wire, n));
}

/* The whole exchange as one nonblocking neighbourhood collective (messages packed as for the
 * point-to-point path, at the same offsets). */
static int begin_neighbor(struct mixi_halo *h, mix_prec wire, const double *x)
{
    h->bytes_sent = 0;
    for (int k = 0; k < h->nsend; k++) {
        const int n = h->send_off[k + 1] - h->send_off[k];
        pack(h, wire, x, k, n);
        h->scount[k] = (int)mixi_wire_bytes(wire, n);
        h->sdispl[k] = (int)sbase(h, k);
        h->bytes_sent += h->scount[k];
    }
    for (int k = 0; k < h->nrecv; k++) {
        h->rcount[k] = (int)mixi_wire_bytes(wire, h->recv_off[k + 1] - h->recv_off[k]);
        h->rdispl[k] = (int)rbase(h, k);
    }
    h->wire = wire;
    h->active = 1;
    return MPI_Ineighbor_alltoallv(h->sbuf, h->scount, h->sdispl, MPI_BYTE, h->rbuf, h->rcount,
                                   h->rdispl, MPI_BYTE, h->graph, &h->req[0]) == MPI_SUCCESS
               ? MIX_SUCCESS : MIX_ERR_COMM;
}

int mixi_halo_begin(struct mixi_halo *h, mix_prec wire, const double *x)
{
    if (h->active || !mixi_wire_valid(wire)) return MIX_ERR_INVALID_ARG;
    if (h->neighbor) return begin_neighbor(h, wire, x);
    int st = MIX_SUCCESS;
    for (int k = 0; k < h->nrecv; k++) {
        const int n = h->recv_off[k + 1] - h->recv_off[k];
        if (MPI_Irecv(h->rbuf + rbase(h, k), (int)mixi_wire_bytes(wire, n), MPI_BYTE,
                      h->recv_rank[k], HALO_TAG, h->mc, &h->req[k]) != MPI_SUCCESS)
            st = MIX_ERR_COMM;
    }
    h->bytes_sent = 0;
    for (int k = 0; k < h->nsend; k++) {
        const int n = h->send_off[k + 1] - h->send_off[k];
        const size_t bytes = mixi_wire_bytes(wire, n);
        pack(h, wire, x, k, n);
        if (MPI_Isend(h->sbuf + sbase(h, k), (int)bytes, MPI_BYTE, h->send_rank[k], HALO_TAG,
                      h->mc, &h->req[h->nrecv + k]) != MPI_SUCCESS)
            st = MIX_ERR_COMM;
        h->bytes_sent += (int64_t)bytes;
    }
    h->wire = wire;
    h->active = 1;
    return st;
}

int mixi_halo_end(struct mixi_halo *h, double *ghost)
{
    if (!h->active) return MIX_ERR_INVALID_ARG;
    h->active = 0;
    if (MPI_Waitall(h->neighbor ? 1 : h->nrecv + h->nsend, h->req, MPI_STATUSES_IGNORE) !=
        MPI_SUCCESS)
        return MIX_ERR_COMM;
    for (int k = 0; k < h->nrecv; k++)
        mixi_wire_unpack(h->wire, h->rbuf + rbase(h, k), h->recv_off[k + 1] - h->recv_off[k],
                         ghost + h->recv_off[k]);
    return MIX_SUCCESS;
}

/* One value of a sloppy vector, widened to FP64 exactly. */
static double sv_load(mix_prec prec, const void *val, const float *norm, int i)
{
    return mixk_svec_ld(prec, val, norm, i);
}

/* The values sent, as the receivers decode them, written back where the vector can hold them
 * exactly as the receivers will (FP64; FP32, which rounds the decoded value as vec_from64 does
 * on the receiving side). */
static void write_back(struct mixi_halo *h, mix_prec prec, void *val)
{
    if (prec != MIX_FP64 && prec != MIX_FP32) return;
    for (int k = 0; k < h->nsend; k++) {
        const int a = h->send_off[k], n = h->send_off[k + 1] - a;
        mixi_wire_unpack(h->wire, h->sbuf + sbase(h, k), n, h->sdec + a);
    }
    const int ns = h->send_off[h->nsend];
    for (int t = 0; t < ns; t++) {
        if (prec == MIX_FP64) ((double *)val)[h->send_idx[t]] = h->sdec[t];
        else ((float *)val)[h->send_idx[t]] = (float)h->sdec[t];
    }
}

int mixi_halo_begin_sv(struct mixi_halo *h, mix_prec wire, mix_prec prec, void *val,
                       const float *norm)
{
    if (prec == MIX_FP64 && wire == MIX_FP64) return mixi_halo_begin(h, wire, val);
    if (!mixk_prec_storage(prec))
        return MIX_ERR_INVALID_ARG;
    const int ns = h->send_off[h->nsend];
    if (!h->sx) { /* indexed as the owned vector, of which only the values sent are written */
        int m = 0;
        for (int t = 0; t < ns; t++)
            if (h->send_idx[t] + 1 > m) m = h->send_idx[t] + 1;
        h->sx = malloc((size_t)(m > 0 ? m : 1) * sizeof *h->sx);
        if (!h->sx) return MIX_ERR_ALLOC;
    }
    if (!h->sdec && !(h->sdec = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *h->sdec)))
        return MIX_ERR_ALLOC;
    for (int t = 0; t < ns; t++) h->sx[h->send_idx[t]] = sv_load(prec, val, norm, h->send_idx[t]);
    const int st = mixi_halo_begin(h, wire, h->sx);
    if (!st && wire != MIX_FP64) write_back(h, prec, val);
    return st;
}
