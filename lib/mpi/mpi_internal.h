/* mpi_internal.h: libmixsolve_mpi's internals: the MPI communicator table, the halo plan and the
 * distributed matrix (PETSc's MPIAIJ split) with its SpMV.  Never installed. */
#ifndef MIX_MPI_INTERNAL_H
#define MIX_MPI_INTERNAL_H

#include <stdint.h>
#include <mpi.h>
#include "lib/core/core.h"
#include "lib/core/comm.h"
#include "lib/mpi/mixsolve_mpi.h"
#include "solvers/cg/cg.h" /* mixi_dist_link: the distributed matrix as the CG reads it */

/* The MPI table's state: the duplicated communicator.  The mixi_comm lives inside it, so that
 * fini frees one block. */
typedef struct {
    mixi_comm comm;
    MPI_Comm mc;
} mixi_mpi_state;

extern const mixi_comm_ops mixi_comm_mpi_ops;
/* The MPI communicator of a context made by mix_context_create_mpi, or MPI_COMM_NULL. */
MPI_Comm mixi_mpi_comm_of(const mix_context *ctx);

/* The halo plan of one distributed matrix: to whom this rank sends which of its owned values,
 * and from whom its ghosts come (ghosts sorted by global column, so each neighbour's are one
 * contiguous run).  Send buffers are per message, sized for FP64 (the widest wire). */
struct mixi_halo {
    MPI_Comm mc;
    int nsend, nrecv;             /* neighbours */
    int *send_rank, *recv_rank;
    int *send_off, *recv_off;     /* nsend + 1, nrecv + 1 offsets into send_idx / the ghosts */
    int *send_idx;                /* local indices of the values sent, per neighbour */
    int n_ghost;
    unsigned char *sbuf, *rbuf;   /* message k at k's offset: 8 bytes header room + 8 per value */
    MPI_Request *req;             /* nrecv receives, then nsend sends */
    /* The same exchange as one MPI_Ineighbor_alltoallv on a graph communicator of these
     * neighbours (made at creation), when neighbor is set: counts and displacements in bytes. */
    MPI_Comm graph;
    int neighbor;
    int *scount, *sdispl, *rcount, *rdispl;
    mix_prec wire;                /* of the exchange in flight */
    int active;
    int64_t bytes_sent;           /* by the last exchange: headers and values */
    double *sx;                   /* the values sent of a sloppy vector, widened (at send_idx) */
    double *sdec;                 /* the same as decoded, one run per message */
};

/* Bytes of one message of n values on `wire` (header included); 0 for a wire that is none. */
size_t mixi_wire_bytes(mix_prec wire, int n);
/* Encodes x[idx[0..n-1]] (idx NULL: x[0..n-1]) into buf: FP64 and FP32 plain; FP16 and BF16
 * scaled by one power of two per message (a float header), so the largest value sits in
 * [2^14, 2^15); FIXED16 17-bit q with the message's max |x| as header (q = round(x 65535/s):
 * 16 bits a value and the 17th in a bitmap, 2.125 bytes a value).  Decoding gives what the
 * receiver uses as x. */
void mixi_wire_pack(mix_prec wire, const double *x, const int *idx, int n, void *buf);
void mixi_wire_unpack(mix_prec wire, const void *buf, int n, double *out);
int mixi_wire_valid(mix_prec wire); /* 1 for the five wires above */

/* The plan from this rank's ghosts (global columns, sorted ascending, n_ghost of them) and the
 * row starts of every rank (size + 1); also checks structural symmetry across ranks from the
 * off-process entries (pairs: row i global, column j global, npairs of them, sorted by owner of
 * j).  Collective; the status is the same on every rank. */
int mixi_halo_create(MPI_Comm mc, const int64_t *row_starts, int n_ghost, const int64_t *ghost,
                     const int64_t *pairs, int64_t npairs, const int64_t *rowptr,
                     const int64_t *colind, struct mixi_halo **h);
void mixi_halo_free(struct mixi_halo *h);
/* Is column c in the sorted row [b, e) of colind?  (Binary search: the symmetry checks.) */
int mixi_dist_row_has(const int64_t *colind, int64_t b, int64_t e, int64_t c);
int mixi_halo_begin(struct mixi_halo *h, mix_prec wire, const double *x);
/* The same from a sloppy vector in host memory (kernels/backend_sparse.h's mixi_svec layout):
 * only the values sent are read; in an FP32 or FP64 vector they are replaced by what the
 * receivers decode (lib/core/comm.h). */
int mixi_halo_begin_sv(struct mixi_halo *h, mix_prec wire, mix_prec prec, void *val,
                       const float *norm);
/* Point-to-point (0, the default) or the neighbourhood collective (1), for the next exchanges. */
void mixi_halo_use_neighbor(struct mixi_halo *h, int on);
int mixi_halo_end(struct mixi_halo *h, double *ghost);

/* A matrix distributed by rows.  merged: every local row in its original column order with
 * columns renumbered (owned j -> j - row_start, ghost k -> n_local + k), so that FP64 rows sum
 * in the serial order; diag and the windows' off blocks: PETSc's MPIAIJ split as backend
 * matrices, for the sloppy formats (each off block embedded in a square matrix, since the
 * backends' matrices are square: solvers/cg/cg.h, mixi_dist_link and mixi_dist_win).  A rank
 * owning no row holds the 1 x 1 block [1] (the link's phantom unknown).  link: what the CG
 * reads; mix_sparse_create_dist_csr hands diag over as the user's matrix, pointing to it. */
typedef struct mixi_dist {
    mix_context *ctx;
    MPI_Comm mc;
    int rank, size;
    int n_local, n_ghost;
    int64_t row_start, n_global, nnz_global;
    int64_t *row_starts;          /* size + 1 */
    int64_t *ghost;               /* n_ghost global columns, ascending */
    int64_t *rp;                  /* merged CSR, n_local + 1 */
    int32_t *cx;
    double *v;
    int n_interior;
    int *rows;                    /* the interior rows, then the boundary rows */
    int64_t nnz_diag, nnz_off;
    mix_sparse *diag;             /* the local block (link.win[k].off: the off-process ones) */
    struct mixi_halo *halo;
    double *ghostv;               /* n_ghost received values */
    double amax;                  /* max |a_ij| of the whole matrix */
    mixi_dist_link link;
} mixi_dist;

/* Collective: validates, builds the plan and the split; the same status on every rank. */
int mixi_dist_create(mix_context *ctx, int n_local, const int64_t *rowptr, const int64_t *colind,
                     const double *val, mixi_dist **D);
void mixi_dist_free(mixi_dist *D); /* collective only in that every rank frees its own */
/* y = A x over the ranks (x, y: this rank's n_local FP64 values): the halo on `wire` starts,
 * interior rows run, the halo ends, the boundary rows run.  Rows sum in FP64 in column order:
 * with an FP64 wire, bit for bit the serial CSR product. */
int mixi_dist_spmv(mixi_dist *D, mix_prec wire, const double *x, double *y);

/* The largest status of all ranks (MIX_ERR_COMM if the reduction itself fails). */
int mixi_mpi_agree(MPI_Comm mc, int status);

#endif
