/* mixsolve_mpi.h: libmixsolve_mpi, mixsolve's solves spanning the ranks of an MPI communicator
 * (pkg-config mixsolve_mpi).  libmixsolve itself never needs MPI. */
#ifndef MIXSOLVE_MPI_H
#define MIXSOLVE_MPI_H

#include <stdint.h>
#include <mpi.h>
#include "mixsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A context whose solves span the ranks of comm (collective; comm is duplicated inside, so the
 * caller's own messages never meet ours).  Returns the same status on every rank: 0,
 * MIX_ERR_INVALID_ARG, MIX_ERR_BACKEND (some rank has no such backend), MIX_ERR_ALLOC,
 * MIX_ERR_COMM.  mix_context_destroy is collective for such a context. */
int mix_context_create_mpi(mix_context **ctx, mix_backend backend, MPI_Comm comm);

/* A matrix distributed by rows (collective).  This rank owns n_local consecutive rows; ranks
 * own consecutive blocks in rank order (row_start = the sum of n_local over lower ranks);
 * n_local may be 0 (not on every rank).  rowptr (n_local + 1 entries, rowptr[0] = 0) and GLOBAL
 * 0-based column indices.  A must be symmetric as a whole.  Checked on every rank and agreed by
 * all (the same status everywhere, no rank left waiting), except a ctx NULL or not made by
 * mix_context_create_mpi on some ranks only, which cannot reach the others (mixsolve_mpi(3)):
 * MIX_ERR_INVALID_ARG (A NULL, n_local 0 on every rank, rowptr decreasing, a column < 0 or >=
 * n_global, a NULL array), MIX_ERR_NAN, MIX_ERR_OVERFLOW (the sums of n_local or of nnz
 * overflow, or a rank's halo exceeds INT_MAX columns), MIX_ERR_NOT_SYMMETRIC (an entry (i, j)
 * whose (j, i) is missing on the rank owning row j, that rank or another), MIX_ERR_ALLOC,
 * MIX_ERR_COMM, MIX_ERR_UNSUPPORTED (a backend whose memory is not host memory).  *A is this
 * rank's part: mix_dcg(ctx, p, A, b, x, info) on this rank's n_local entries of b and x (any
 * pointers where n_local is 0), p the same on every rank, solves over all ranks with `info`
 * identical on every rank; mix_sparse_destroy(A) is collective. */
int mix_sparse_create_dist_csr(mix_context *ctx, int n_local, const int64_t *rowptr,
                               const int64_t *colind, const double *val, mix_sparse **A);

#ifdef __cplusplus
}
#endif
#endif
