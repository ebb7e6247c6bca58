/* mpi_consumer.c: an outside MPI program against the INSTALLED libmixsolve_mpi (make
 * installcheck, through pkg-config mixsolve_mpi): a context over MPI_COMM_WORLD and a 1D
 * Laplacian split across the ranks, checked collectively. */
#include <stdio.h>
#include <mixsolve_mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mix_context *ctx = NULL;
    int st = mix_context_create_mpi(&ctx, MIX_BACKEND_AUTO, MPI_COMM_WORLD);
    if (st) {
        fprintf(stderr, "mix_context_create_mpi: %s\n", mix_strerror(st));
        MPI_Finalize();
        return 1;
    }
    /* Rows 4 rank .. 4 rank + 3 of tridiag(-1, 2, -1) of order 4 size. */
    const int64_t n = 4 * (int64_t)size, r0 = 4 * (int64_t)rank;
    int64_t rowptr[5] = {0}, colind[12];
    double val[12];
    int k = 0;
    for (int i = 0; i < 4; i++) {
        const int64_t g = r0 + i;
        if (g > 0) colind[k] = g - 1, val[k++] = -1.0;
        colind[k] = g, val[k++] = 2.0;
        if (g < n - 1) colind[k] = g + 1, val[k++] = -1.0;
        rowptr[i + 1] = k;
    }
    mix_sparse *A = NULL;
    st = mix_sparse_create_dist_csr(ctx, 4, rowptr, colind, val, &A);
    /* Valid input: checked on every rank; the CG is not bound to it yet in this version. */
    const int ok = (st == MIX_SUCCESS && A) || (st == MIX_ERR_NOT_IMPLEMENTED && !A);
    if (rank == 0) printf("mix_sparse_create_dist_csr on %d ranks: %s\n", size, mix_strerror(st));
    mix_sparse_destroy(A);
    mix_context_destroy(ctx);
    MPI_Finalize();
    return ok ? 0 : 1;
}
