/* bench_mpi_cg.c: mix_dcg across MPI ranks on 3D Poisson (slabs of rows, tol 1e-10; bench_cg's
 * and bench/petsc_cg.c's system: b uniform in [-0.5, 0.5) from seed 2024, no preconditioner)
 * per storage, beside bench_cg's single process: iterations, solve time (best of
 * REPS), ms per iteration, the CPU time rank 0's process spent in that solve (what a loaded,
 * shared machine disturbs least) and the halo bytes a rank sends per sloppy SpMV.  Rank 0
 * prints one Markdown row per storage.
 * Usage: OMP_NUM_THREADS=1 mpirun -np P bench/bench_mpi_cg [NX [REPS]]   (flock, see RULES). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/mpi/mpi_internal.h"
#include "solvers/cg/cg.h"
#include "matrices/mixmat.h"
#include "matrices/generators.h"

static int rank, size;

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* This rank's even slab of rows (global int64 columns) and its part of b. */
static int slab(mix_context *ctx, const mixm_csr *A, mix_sparse **S, double **b, int *n_local)
{
    const int64_t r0 = (int64_t)A->nrows * rank / size, r1 = (int64_t)A->nrows * (rank + 1) / size;
    const int64_t k0 = A->rowptr[r0], nnz = A->rowptr[r1] - k0;
    const int n = (int)(r1 - r0);
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp), *ci = malloc(((size_t)nnz + 1) * sizeof *ci);
    *b = calloc((size_t)n + 1, sizeof **b);
    for (int i = 0; i <= n; i++) rp[i] = A->rowptr[r0 + i] - k0;
    for (int64_t k = 0; k < nnz; k++) ci[k] = A->colind[k0 + k];
    mixm_rng g;
    mixm_rng_seed(&g, 2024);
    for (int64_t i = 0; i < r1; i++) {
        const double u = mixm_rng_uniform(&g) - 0.5;
        if (i >= r0) (*b)[i - r0] = u;
    }
    const int st = mix_sparse_create_dist_csr(ctx, n, rp, ci, A->val + k0, S);
    free(rp);
    free(ci);
    *n_local = n;
    return st;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int nx = argc > 1 ? atoi(argv[1]) : 100, reps = argc > 2 ? atoi(argv[2]) : 2;
    mix_context *ctx = NULL;
    mixm_csr A = {0};
    mix_sparse *S = NULL;
    double *b = NULL;
    int n = 0;
    int st = mix_context_create_mpi(&ctx, MIX_BACKEND_CPU, MPI_COMM_WORLD);
    if (!st) st = mixm_gen_poisson3d(nx, &A);
    if (!st) st = slab(ctx, &A, &S, &b, &n);
    if (st) {
        if (rank == 0) fprintf(stderr, "bench_mpi_cg: %s\n", mix_strerror(st));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    mixm_csr_free(&A);
    double *x = calloc((size_t)n + 1, sizeof *x);
    /* AUTO last, on the copies the fixed rows left cached (its choice: the storage column). */
    const mix_prec ps[] = {MIX_FP64, MIX_FP32, MIX_FIXED16, MIX_PREC_AUTO};
    if (rank == 0)
        printf("| ranks | grid | storage | iter | true rel. residual | solve s (best of %d) | ms/iter | CPU s of rank 0 | CPU ms/iter | halo B/SpMV (rank 0) |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n", reps);
    for (int t = 0; t < 4; t++) {
        mix_cg_params p;
        mix_cg_params_init(&p);
        p.sloppy_prec = ps[t];
        p.precond = MIX_PRECOND_NONE;
        mix_cg_info info;
        double best = 1e30, cpu = 1e30;
        for (int r = 0; r < reps; r++) {
            memset(x, 0, (size_t)n * sizeof *x);
            MPI_Barrier(MPI_COMM_WORLD);
            const double c0 = cpu_seconds();
            st = mix_dcg(ctx, &p, S, b, x, &info);
            const double c = cpu_seconds() - c0;
            if (info.t_solve < best) best = info.t_solve, cpu = c;
        }
        /* The last exchange of the solve is the FP64 one of a true residual: one sloppy
         * SpMV's bytes, from the plan (a message of n values: mixi_wire_bytes). */
        const struct mixi_halo *h = S->dist->halo;
        const mix_prec used = info.stages > 0 ? (mix_prec)info.stage_prec[0] : ps[t];
        int64_t bytes = 0;
        for (int k = 0; k < h->nsend; k++)
            bytes += (int64_t)mixi_wire_bytes(used, h->send_off[k + 1] - h->send_off[k]);
        char name[48];
        snprintf(name, sizeof name, ps[t] == MIX_PREC_AUTO ? "auto (%s)" : "%s", mix_prec_name(used));
        if (rank == 0)
            printf("| %d | %d^3 | %s | %d | %.2e | %.3f | %.2f | %.3f | %.2f | %lld |%s\n", size, nx,
                   name, info.iter, info.true_rel_residual, best,
                   1e3 * best / (info.iter > 0 ? info.iter : 1), cpu,
                   1e3 * cpu / (info.iter > 0 ? info.iter : 1), (long long)bytes,
                   st ? " (not converged)" : "");
    }
    mix_sparse_destroy(S);
    mix_context_destroy(ctx);
    free(b);
    free(x);
    MPI_Finalize();
    return 0;
}
