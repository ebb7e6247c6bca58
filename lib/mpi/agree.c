/* agree.c: one status for every rank, the largest, so that a failure anywhere fails all ranks
 * alike; below comm_mpi.c, halo.c and dist_csr.c, which each check their collective steps so. */
#include "lib/mpi/mpi_internal.h"

int mixi_mpi_agree(MPI_Comm mc, int status)
{
    int s = status;
    if (MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_MAX, mc) != MPI_SUCCESS)
        return MIX_ERR_COMM;
    return s;
}
