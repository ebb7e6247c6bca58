/* mpi_dist.c: libmixsolve_mpi on 1..4 ranks (tests/mpi.sh): the communicator table, the
 * distributed SpMV against the serial one (bits with an FP64 halo; with 16-bit halos, bits
 * against a serial product whose off-rank x values are rounded per message the same way, and
 * within the wire's error), and every bad input giving the same status on every rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "lib/mpi/mpi_internal.h"
#include "solvers/cg.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"

static int rank, size, fails, checks;

#define CHECK(c, ...)                                                                          \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(c)) {                                                                            \
            fails++;                                                                           \
            fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

/* Row blocks: `kind` 0 even, 1 uneven (weights 1, 2, 3, ...), 2 uneven with rank 1 empty. */
static void partition(int n, int kind, int64_t *starts)
{
    double w[64], tot = 0.0;
    for (int q = 0; q < size; q++) tot += w[q] = kind == 0 ? 1.0 : (kind == 2 && q == 1) ? 0.0 : q + 1.0;
    starts[0] = 0;
    double acc = 0.0;
    for (int q = 0; q < size; q++) {
        acc += w[q];
        starts[q + 1] = q == size - 1 ? n : (int64_t)((double)n * acc / tot);
    }
}

/* This rank's rows of A: rowptr from 0 and global columns (int64), in A's order. */
typedef struct {
    int n_local;
    int64_t *rowptr, *colind;
    double *val;
} slice;

static slice take(const mixm_csr *A, const int64_t *starts)
{
    slice s;
    const int64_t r0 = starts[rank], r1 = starts[rank + 1], k0 = A->rowptr[r0];
    const int64_t nnz = A->rowptr[r1] - k0;
    s.n_local = (int)(r1 - r0);
    s.rowptr = malloc(((size_t)s.n_local + 1) * sizeof *s.rowptr);
    s.colind = malloc((size_t)(nnz + 1) * sizeof *s.colind);
    s.val = malloc((size_t)(nnz + 1) * sizeof *s.val);
    for (int i = 0; i <= s.n_local; i++) s.rowptr[i] = A->rowptr[r0 + i] - k0;
    for (int64_t k = 0; k < nnz; k++) {
        s.colind[k] = A->colind[k0 + k];
        s.val[k] = A->val[k0 + k];
    }
    return s;
}

static void slice_free(slice *s)
{
    free(s->rowptr);
    free(s->colind);
    free(s->val);
}

static int owner_of(const int64_t *starts, int64_t j)
{
    int q = 0;
    while (j >= starts[q + 1]) q++;
    return q;
}

/* The x this rank uses: its own values exact, each other rank q's as one message of the
 * distinct columns q owns that this rank's rows name, packed and unpacked on `wire`. */
static void received_x(const mixm_csr *A, const int64_t *starts, mix_prec wire, const double *x,
                       double *xr)
{
    const int n = A->nrows;
    char *need = calloc((size_t)n, 1);
    int *idx = malloc((size_t)n * sizeof *idx);
    double *dec = malloc((size_t)n * sizeof *dec);
    unsigned char *buf = malloc(8 * (size_t)n + 16);
    memcpy(xr, x, (size_t)n * sizeof *x);
    for (int64_t k = A->rowptr[starts[rank]]; k < A->rowptr[starts[rank + 1]]; k++)
        if (owner_of(starts, A->colind[k]) != rank) need[A->colind[k]] = 1;
    for (int q = 0; q < size; q++) {
        int m = 0;
        for (int64_t j = starts[q]; j < starts[q + 1]; j++)
            if (need[j]) idx[m++] = (int)j;
        if (!m) continue;
        mixi_wire_pack(wire, x, idx, m, buf);
        mixi_wire_unpack(wire, buf, m, dec);
        /* The wire's error: half an ulp of the value (FP32), of the message's largest value
         * (FP16 and BF16 scaled so it sits in [2^14, 2^15)), or half a step (FIXED16). */
        const double u = wire == MIX_FP64 ? 0 : wire == MIX_FP32 ? 0x1p-24 : wire == MIX_FP16 ? 0x1p-11
                         : wire == MIX_BF16 ? 0x1p-8 : 0.5 / 32767 * (1 + 0x1p-40);
        double mx = 0;
        for (int t = 0; t < m; t++) mx = fmax(mx, fabs(x[idx[t]]));
        for (int t = 0; t < m; t++) {
            const double bound = wire == MIX_FP32 ? u * fabs(x[idx[t]]) : u * mx;
            CHECK(fabs(dec[t] - x[idx[t]]) <= bound, "wire %s: |%g - %g| > %g", mix_prec_name(wire),
                  dec[t], x[idx[t]], bound);
            xr[idx[t]] = dec[t];
        }
    }
    free(need);
    free(idx);
    free(dec);
    free(buf);
}

static const mix_prec wires[] = {MIX_FP64, MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16};

/* The distributed product on every wire against the serial one, bit for bit. */
static void check_spmv(mix_context *ctx, const mixm_csr *A, int kind, const char *name)
{
    const int n = A->nrows;
    int64_t starts[65];
    partition(n, kind, starts);
    slice s = take(A, starts);
    mixi_dist *D = NULL;
    int st = mixi_dist_create(ctx, s.n_local, s.rowptr, s.colind, s.val, &D);
    CHECK(st == 0, "%s kind %d: create: %s", name, kind, mix_strerror(st));
    if (st) { slice_free(&s); return; }
    CHECK(D->n_global == n && D->row_start == starts[rank], "%s: layout", name);
    CHECK(D->nnz_diag + D->nnz_off == s.rowptr[s.n_local], "%s: split loses entries", name);
    CHECK((D->diag != NULL) == (s.n_local > 0) && (D->off != NULL) == (D->n_ghost > 0), "%s: blocks", name);
    mixm_rng r;
    mixm_rng_seed(&r, 42);
    double *x = malloc((size_t)n * sizeof *x), *xr = malloc((size_t)n * sizeof *xr);
    double *yref = malloc((size_t)n * sizeof *yref), *y = malloc(((size_t)s.n_local + 1) * sizeof *y);
    for (int i = 0; i < n; i++) x[i] = 2.0 * mixm_rng_uniform(&r) - 1.0 + (i % 7 == 0 ? 1e3 : 0.0);
    int64_t bytes[5] = {0};
    for (int w = 0; w < 5; w++) {
        received_x(A, starts, wires[w], x, xr);
        mixm_csr_matvec(A, xr, yref);
        for (int nb = 0; nb < 2; nb++) { /* point-to-point, then the neighbourhood collective */
            mixi_halo_use_neighbor(D->halo, nb);
            memset(y, 0xff, ((size_t)s.n_local + 1) * sizeof *y);
            st = mixi_dist_spmv(D, wires[w], x + starts[rank], y);
            CHECK(st == 0, "%s: spmv: %s", name, mix_strerror(st));
            int bad = 0;
            for (int i = 0; i < s.n_local; i++) bad += memcmp(&y[i], &yref[starts[rank] + i], sizeof *y) != 0;
            CHECK(bad == 0, "%s kind %d wire %s %s: %d rows differ from the serial product", name,
                  kind, mix_prec_name(wires[w]), nb ? "neighbor" : "p2p", bad);
            CHECK(nb == 0 || D->halo->bytes_sent == bytes[w], "%s: bytes differ between modes", name);
            bytes[w] = D->halo->bytes_sent;
        }
    }
    /* 16 bits a value and one scale per message: about half an FP32 halo. */
    if (bytes[1] >= 4000)
        CHECK(bytes[4] <= 0.55 * bytes[1], "%s: FIXED16 halo %lld bytes, FP32 %lld", name,
              (long long)bytes[4], (long long)bytes[1]);
    mixi_dist_free(D);
    slice_free(&s);
    free(x); free(xr); free(yref); free(y);
}

/* The blocks convert to the CG's sloppy formats like any matrix (SELL-32 / FIXED16 / FP16). */
static void check_sloppy(mix_context *ctx, const mixm_csr *A)
{
    int64_t starts[65];
    partition(A->nrows, 1, starts);
    slice s = take(A, starts);
    mixi_dist *D = NULL;
    int st = mixi_dist_create(ctx, s.n_local, s.rowptr, s.colind, s.val, &D);
    CHECK(st == 0, "sloppy: create: %s", mix_strerror(st));
    const mix_prec ps[] = {MIX_FP32, MIX_FP16, MIX_BF16, MIX_FIXED16};
    for (int t = 0; !st && t < 4; t++) {
        const mixi_spmat *As;
        const double *scale;
        if (D->diag) {
            st = mixi_sparse_sloppy(D->diag, ps[t], 0, &As, &scale);
            CHECK(st == 0, "diag block to %s: %s", mix_prec_name(ps[t]), mix_strerror(st));
        }
        if (D->off) {
            st = mixi_sparse_sloppy(D->off, ps[t], 0, &As, &scale);
            CHECK(st == 0, "off block to %s: %s", mix_prec_name(ps[t]), mix_strerror(st));
        }
    }
    mixi_dist_free(D);
    slice_free(&s);
}

/* Every rank must answer `want`, whatever rank the fault is on. */
static void same_everywhere(int st, int want, const char *what)
{
    int lo = st, hi = st;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == want && hi == want, "%s: statuses %d..%d on the ranks, want %d (%s)", what, lo, hi,
          want, mix_strerror(want));
}

static int create(mix_context *ctx, const slice *s)
{
    mixi_dist *D = NULL;
    const int st = mixi_dist_create(ctx, s->n_local, s->rowptr, s->colind, s->val, &D);
    mixi_dist_free(D);
    return st;
}

/* Each bad input on one rank (the last, so rank 0 is not the one that knows). */
static void check_bad(mix_context *ctx, const mixm_csr *A)
{
    int64_t starts[65];
    partition(A->nrows, 0, starts);
    const int last = rank == size - 1;
    slice s = take(A, starts);
    mix_sparse *M = (mix_sparse *)&s; /* must be reset to NULL */
    same_everywhere(mix_sparse_create_dist_csr(ctx, s.n_local, s.rowptr, s.colind, s.val, &M),
                    MIX_ERR_NOT_IMPLEMENTED, "valid matrix, public entry (CG not bound yet)");
    CHECK(M == NULL, "public entry left *A set");
    if (last) s.rowptr[1] = s.rowptr[2] + 1; /* row 1 would end before it starts */
    same_everywhere(create(ctx, &s), MIX_ERR_INVALID_ARG, "rows out of order");
    slice_free(&s);
    s = take(A, starts);
    if (last) s.colind[s.rowptr[s.n_local] - 1] = A->nrows;
    same_everywhere(create(ctx, &s), MIX_ERR_INVALID_ARG, "column >= n_global");
    slice_free(&s);
    s = take(A, starts);
    if (last) s.colind[0] = -1;
    same_everywhere(create(ctx, &s), MIX_ERR_INVALID_ARG, "column < 0");
    slice_free(&s);
    s = take(A, starts);
    if (last) s.val[0] = NAN;
    same_everywhere(create(ctx, &s), MIX_ERR_NAN, "NaN entry");
    if (last) s.n_local = -1;
    same_everywhere(create(ctx, &s), MIX_ERR_INVALID_ARG, "negative n_local");
    slice_free(&s);
    s = take(A, starts);
    same_everywhere(mixi_dist_create(ctx, s.n_local, last ? NULL : s.rowptr, s.colind, s.val,
                                     &(mixi_dist *){NULL}), MIX_ERR_INVALID_ARG, "NULL rowptr");
    if (size > 1) {
        /* The nnz totals overflow int64: refused before any entry is read. */
        int64_t rp[2] = {0, INT64_MAX / 2 + 1}, c = 0;
        double v = 1.0;
        mixi_dist *D = NULL;
        same_everywhere(mixi_dist_create(ctx, 1, rp, &c, &v, &D), MIX_ERR_OVERFLOW, "nnz sum overflow");
        /* One off-process entry dropped on the last rank: its mirror has no partner. */
        int64_t k = 0;
        if (last) {
            for (k = 0; k < s.rowptr[s.n_local] && s.colind[k] >= starts[rank]; k++) {}
            for (int64_t t = k; t + 1 < s.rowptr[s.n_local]; t++) { s.colind[t] = s.colind[t + 1]; s.val[t] = s.val[t + 1]; }
            for (int i = 1; i <= s.n_local; i++) if (s.rowptr[i] > k) s.rowptr[i]--;
        }
        same_everywhere(create(ctx, &s), MIX_ERR_NOT_SYMMETRIC, "asymmetric structure across ranks");
    }
    slice_free(&s);
}

/* The table: fused sums, extrema, agreement; the same values on every rank. */
static void check_comm(mix_context *ctx)
{
    const mixi_comm *c = ctx->comm;
    CHECK(c->size == size && c->rank == rank, "comm size/rank");
    double v[3] = {1.0, (double)rank, 0.5 * rank};
    int st = c->ops->sum(c, v, 3);
    CHECK(st == 0 && v[0] == size && v[1] == size * (size - 1) / 2.0, "sum");
    double m[2] = {(double)rank, (double)-rank};
    CHECK(c->ops->max(c, m, 2) == 0 && m[0] == size - 1 && m[1] == 0, "max");
    m[0] = rank;
    CHECK(c->ops->min(c, m, 1) == 0 && m[0] == 0, "min");
    int f = 7;
    CHECK(c->ops->all(c, &f) == 0 && f == 1, "all: every rank says yes");
    f = rank != size - 1;
    CHECK(c->ops->all(c, &f) == 0 && f == 0, "all: one rank says no");
    int s = rank == size - 1 ? MIX_ERR_NOT_SPD : 0;
    CHECK(c->ops->agree(c, &s) == 0 && s == MIX_ERR_NOT_SPD, "agree");
    const mixi_comm *serial = &mixi_comm_serial;
    v[0] = 3.0;
    CHECK(serial->ops->sum(serial, v, 1) == 0 && v[0] == 3.0 && serial->size == 1, "serial table");
}

/* A random sparse SPD matrix: a random symmetric pattern (about 9 entries a row) made
 * diagonally dominant; the same on every rank (one seed). */
static int random_spd(int n, mixm_csr *A)
{
    double *d = calloc((size_t)n * (size_t)n, sizeof *d);
    mixm_rng r;
    mixm_rng_seed(&r, 2026);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < 4; t++) {
            const int j = (int)(mixm_rng_next(&r) % (uint64_t)n);
            const double v = 2.0 * mixm_rng_uniform(&r) - 1.0;
            if (j != i) d[(size_t)i * n + j] = d[(size_t)j * n + i] = v;
        }
    int64_t nnz = 0;
    for (int i = 0; i < n; i++) {
        double s = 1.0;
        for (int j = 0; j < n; j++) s += fabs(d[(size_t)i * n + j]);
        d[(size_t)i * n + i] = s;
        for (int j = 0; j < n; j++) nnz += d[(size_t)i * n + j] != 0.0;
    }
    int st = mixm_csr_alloc(A, n, n, nnz);
    for (int i = 0, k = 0; !st && i < n; i++) {
        A->rowptr[i] = k;
        for (int j = 0; j < n; j++)
            if (d[(size_t)i * n + j] != 0.0) { A->colind[k] = j; A->val[k++] = d[(size_t)i * n + j]; }
        A->rowptr[i + 1] = k;
    }
    free(d);
    return st;
}

static void check_context(void)
{
    mix_context *c = (mix_context *)&c;
    same_everywhere(mix_context_create_mpi(&c, MIX_BACKEND_CPU, MPI_COMM_NULL), MIX_ERR_INVALID_ARG,
                    "context on MPI_COMM_NULL");
    CHECK(c == NULL, "context left set");
    same_everywhere(mix_context_create_mpi(NULL, MIX_BACKEND_CPU, MPI_COMM_WORLD), MIX_ERR_INVALID_ARG,
                    "NULL context pointer");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
    mix_context *ctx = NULL;
    int st = mix_context_create_mpi(&ctx, MIX_BACKEND_CPU, MPI_COMM_WORLD);
    same_everywhere(st, 0, "mix_context_create_mpi");
    if (st) { MPI_Finalize(); return 1; }
    mixm_csr P = {0}, R = {0};
    CHECK(mixm_gen_poisson3d(12, &P) == 0 && random_spd(400, &R) == 0, "generators");
    check_context();
    check_comm(ctx);
    for (int kind = 0; kind < 3; kind++) {
        check_spmv(ctx, &P, kind, "poisson3d 12^3");
        check_spmv(ctx, &R, kind, "random SPD 400");
    }
    check_sloppy(ctx, &P);
    check_bad(ctx, &P);
    mix_context_destroy(ctx); /* collective */
    mixm_csr_free(&P);
    mixm_csr_free(&R);
    int total = fails;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("mpi_dist: %d ranks, %d checks on rank 0, %d failures in all\n", size, checks, total);
    MPI_Finalize();
    return total ? 1 : 0;
}
