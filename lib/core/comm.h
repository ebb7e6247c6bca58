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

/* A matrix distributed by rows as the CG sees it (libmixsolve_mpi fills it in at creation; the
 * CG of solvers/ reads it).  The mix_sparse holding it is this rank's local block: its rows and
 * the columns it owns, in local numbering.  The off-process entries lie in the rows that border
 * other ranks, which cluster (a slab's first and last planes): each of at most two windows of
 * local rows [first, first + len) holds its off-process entries as a mix_sparse `off` of order
 * pad + ng, row r being local row first + r and ghost g0 + k at column pad + k (first and pad
 * multiples of a FIXED16 vector block, so that both parts of a sloppy vector start on a block);
 * one Jacobi or uniform scale vector over [local, 0, ghost] then scales it as diag(s) A diag(s)
 * scales the whole matrix, and the products touch the window's rows only.  Host memory only. */
struct mix_sparse;
struct mixi_spmat;
typedef struct {
    int first, len, pad;     /* local rows [first, first + len); the ghost part starts at pad */
    int g0, ng;              /* the ghosts [g0, g0 + ng) its rows name */
    struct mix_sparse *off;
    /* The CG's (solvers/cg_dist.c): the sloppy copies [jacobi][storage] and the [local, ghost]
     * scales ([0] FP16/BF16's uniform one, [1] Jacobi's), made on first use. */
    struct mixi_spmat *sloppy[2][MIX_NUM_PREC];
    double *scale[2];
} mixi_dist_win;

#define MIXI_DIST_WIN_MAX 2
typedef struct mixi_dist_link {
    const mixi_comm *comm;   /* the context's */
    struct mixi_halo *halo;  /* owned by libmixsolve_mpi */
    int64_t n_global;        /* rows of the whole matrix (the decisions' n) */
    int n_ghost;
    /* This rank owns no row: its block is one isolated unknown (a_00 = 1, b_0 = x_0 = 0), so that
     * every rank runs the same steps; it adds nothing to a sum. */
    int phantom;
    int n_win;               /* 0 when this rank has no ghost */
    mixi_dist_win win[MIXI_DIST_WIN_MAX];
    double *ghost;           /* n_ghost FP64 values, where halo_end decodes */
    /* The CG's: the local block's sloppy copy [jacobi][storage] was remade with the whole rows'
     * FIXED16 scales (solvers/cg_dist.c), on every rank alike. */
    unsigned char whole_rows[2][MIX_NUM_PREC];
    void (*free)(struct mixi_dist_link *d); /* frees the windows' off, the halo and itself */
} mixi_dist_link;

/* One process: sums, extrema and agreements of one rank are the values themselves; no halo. */
extern const mixi_comm mixi_comm_serial;

#endif
