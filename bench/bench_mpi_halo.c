/* bench_mpi_halo.c: the local rates doc/scaling.md's model is fed with: MPI ping-pong latency and
 * bandwidth between ranks 0 and 1, and the distributed SpMV of 3D Poisson (slabs) per halo wire.
 * Usage: mpirun -np 2 bench/bench_mpi_halo [NX]   (wrap timed runs in flock, see RULES). */
#include <stdio.h>
#include <stdlib.h>
#include "lib/mpi/mpi_internal.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"

static int rank, size;

/* Half the round trip of `bytes` between ranks 0 and 1, best of `reps` batches of 20. */
static double pingpong(size_t bytes, int reps)
{
    char *buf = calloc(bytes ? bytes : 1, 1);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int k = 0; k < 20 && rank < 2; k++) {
            if (rank == 0) {
                MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        const double t = (MPI_Wtime() - t0) / 40.0;
        if (t < best) best = t;
    }
    free(buf);
    return best;
}

static double allreduce_time(int k)
{
    double v[8] = {0}, best = 1e30;
    for (int r = 0; r < 200; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Allreduce(MPI_IN_PLACE, v, k, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        const double t = MPI_Wtime() - t0;
        if (t < best) best = t;
    }
    return best;
}

/* The slab of rows of this rank, as mix_sparse_create_dist_csr takes it. */
static int poisson_slab(mix_context *ctx, int nx, mixi_dist **D)
{
    mixm_csr A = {0};
    if (mixm_gen_poisson3d(nx, &A)) return MIX_ERR_ALLOC;
    const int64_t n = A.nrows, r0 = n * rank / size, r1 = n * (rank + 1) / size;
    const int64_t k0 = A.rowptr[r0], nnz = A.rowptr[r1] - k0;
    int64_t *rp = malloc((size_t)(r1 - r0 + 1) * sizeof *rp), *ci = malloc((size_t)nnz * sizeof *ci);
    for (int64_t i = r0; i <= r1; i++) rp[i - r0] = A.rowptr[i] - k0;
    for (int64_t k = 0; k < nnz; k++) ci[k] = A.colind[k0 + k];
    const int st = mixi_dist_create(ctx, (int)(r1 - r0), rp, ci, A.val + k0, D);
    free(rp);
    free(ci);
    mixm_csr_free(&A);
    return st;
}

static void spmv_rates(mix_context *ctx, int nx)
{
    mixi_dist *D = NULL;
    if (poisson_slab(ctx, nx, &D)) return;
    double *x = malloc(((size_t)D->n_local + 1) * sizeof *x), *y = malloc(((size_t)D->n_local + 1) * sizeof *y);
    for (int i = 0; i < D->n_local; i++) x[i] = 1.0 + 1e-3 * (i % 97);
    const mix_prec wires[] = {MIX_FP64, MIX_FP32, MIX_FIXED16};
    for (int w = 0; w < 6; w++) {
        mixi_halo_use_neighbor(D->halo, w >= 3); /* point-to-point, then MPI_Ineighbor_alltoallv */
        double best = 1e30;
        for (int r = 0; r < 10; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            mixi_dist_spmv(D, wires[w % 3], x, y);
            double t = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (t < best) best = t;
        }
        const double bytes = 12.0 * (double)(D->nnz_diag + D->nnz_off) + 16.0 * D->n_local;
        if (rank == 0)
            printf("dist SpMV %d^3 on %d ranks, %-7s halo, %-8s: %.2f ms, %lld halo bytes sent by "
                   "rank 0, %.2f GB/s of CSR FP64 traffic per rank\n", nx, size,
                   mix_prec_name(wires[w % 3]), w >= 3 ? "neighbor" : "p2p",
                   1e3 * best, (long long)D->halo->bytes_sent, bytes / best * 1e-9);
    }
    /* The exchange alone (pack, messages, unpack): what the mechanism itself costs. */
    for (int w = 0; w < 6; w++) {
        mixi_halo_use_neighbor(D->halo, w >= 3);
        double best = 1e30;
        for (int r = 0; r < 50; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            const double t0 = MPI_Wtime();
            mixi_halo_begin(D->halo, wires[w % 3], x);
            mixi_halo_end(D->halo, D->ghostv);
            double t = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (t < best) best = t;
        }
        if (rank == 0)
            printf("halo exchange alone, %-7s, %-8s: %.1f us\n", mix_prec_name(wires[w % 3]),
                   w >= 3 ? "neighbor" : "p2p", 1e6 * best);
    }
    free(x);
    free(y);
    mixi_dist_free(D);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int nx = argc > 1 ? atoi(argv[1]) : 100;
    if (size >= 2) {
        const size_t sizes[] = {8, 1024, 16384, 180000, 1 << 20, 1 << 22};
        for (int s = 0; s < 6; s++) {
            const double t = pingpong(sizes[s], sizes[s] > 100000 ? 5 : 50);
            if (rank == 0)
                printf("ping-pong %8zu bytes: %8.2f us one way, %7.2f GB/s\n", sizes[s], 1e6 * t,
                       (double)sizes[s] / t * 1e-9);
        }
    }
    for (int k = 1; k <= 3; k += 2) {
        const double t = allreduce_time(k);
        if (rank == 0) printf("MPI_Allreduce of %d double(s) on %d ranks: %.2f us\n", k, size, 1e6 * t);
    }
    mix_context *ctx = NULL;
    if (mix_context_create_mpi(&ctx, MIX_BACKEND_AUTO, MPI_COMM_WORLD) == 0) {
        spmv_rates(ctx, nx);
        mix_context_destroy(ctx);
    }
    MPI_Finalize();
    return 0;
}
