/* comm.h: the communicator table: the global reductions and the halo exchange a solver calls,
 * so that one CG runs on one process (the serial table, the default of every context) and across
 * MPI ranks (libmixsolve_mpi's table).  Never installed; the bottom layer, so solvers see it. */
#ifndef MIX_CORE_COMM_H
#define MIX_CORE_COMM_H

#include "mixsolve.h"

/* A halo plan: what this rank sends to and receives from each neighbour for one distributed
 * matrix.  Built and owned by the communicator that made the matrix (lib/mpi/halo.c); opaque
 * here.  The serial table has no halos: it accepts only NULL. */
struct mixi_halo;

typedef struct mixi_comm mixi_comm;

/* Every entry is collective over the communicator's ranks (called by all, in the same order) and
 * returns 0 or MIX_ERR_COMM.  Values are host memory.  Decisions a solver makes from reduced
 * values are then the same on every rank, because every rank holds the same bits. */
typedef struct mixi_comm_ops {
    const char *name;
    /* v[0..k-1] = their sums over the ranks, FP64, in one message (fuse a step's dots into one
     * call).  The sum's order is the library's (MPI_Allreduce), the same on every rank. */
    int (*sum)(const mixi_comm *c, double *v, int k);
    int (*max)(const mixi_comm *c, double *v, int k); /* elementwise maximum over the ranks */
    int (*min)(const mixi_comm *c, double *v, int k); /* elementwise minimum */
    /* *flag = 1 when it is nonzero on every rank, else 0 (a logical and): stop, escalate. */
    int (*all)(const mixi_comm *c, int *flag);
    /* *status = the largest status of all ranks: one failing rank fails them all alike. */
    int (*agree)(const mixi_comm *c, int *status);
    /* Start sending this rank's owned values x (n_local FP64) that h says others need, rounded
     * to `wire` (MIX_FP64 for a true residual; MIX_FP32, MIX_FP16, MIX_BF16 or MIX_FIXED16 with
     * one scale per message); the receives are posted.  Nothing may change x until halo_end. */
    int (*halo_begin)(const mixi_comm *c, struct mixi_halo *h, mix_prec wire, const double *x);
    /* The same from a sloppy vector in host memory (a mixi_svec's prec, val and norm, n_local
     * values): the values sent are read where they lie, never widened whole first.  In an FP32
     * or FP64 vector they are then replaced by what the receivers decode, so that every rank
     * multiplies the same vector: the wire's rounding perturbs the direction CG takes, never
     * the symmetry of A (3D Poisson 20^3, 3 ranks, FIXED16: 77 iterations with the owner's
     * values kept, against 69 on one process). */
    int (*halo_begin_sv)(const mixi_comm *c, struct mixi_halo *h, mix_prec wire, mix_prec prec,
                         void *val, const float *norm);
    /* Wait for the halo started last and decode it into ghost (the plan's n_ghost FP64 values,
     * in the off-process block's compact column order). */
    int (*halo_end)(const mixi_comm *c, struct mixi_halo *h, double *ghost);
    /* Frees what the communicator holds (NULL for the serial table, which holds nothing). */
    void (*fini)(const mixi_comm *c);
} mixi_comm_ops;

struct mixi_comm {
    const mixi_comm_ops *ops;
    void *state; /* the table's own (an MPI communicator and its scratch); NULL when serial */
    int rank, size;
};

/* One process: sums, extrema and agreements of one rank are the values themselves; no halo. */
extern const mixi_comm mixi_comm_serial;

#endif
