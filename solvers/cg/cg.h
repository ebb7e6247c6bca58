/* cg.h: the CG family's entry: the matrix it works on (the mix_sparse object that
 * lib/api/sparse.c creates for the user, distributed or not) and the solves, what lib/api and
 * lib/mpi see; what the family's files share among themselves is cg_impl.h (never installed). */
#ifndef MIX_SOLVERS_CG_H
#define MIX_SOLVERS_CG_H

#include "lib/core/core.h"
#include "lib/core/comm.h"
#include "kernels/backend_sparse.h"

/* A matrix distributed by rows as the CG sees it (libmixsolve_mpi fills it in at creation; the
 * CG reads it).  The mix_sparse holding it is this rank's local block: its rows and
 * the columns it owns, in local numbering.  The off-process entries lie in the rows that border
 * other ranks, which cluster (a slab's first and last planes): each of at most two windows of
 * local rows [first, first + len) holds its off-process entries as a mix_sparse `off` of order
 * pad + ng, row r being local row first + r and ghost g0 + k at column pad + k (first and pad
 * multiples of a FIXED16 vector block, so that both parts of a sloppy vector start on a block);
 * one Jacobi or uniform scale vector over [local, 0, ghost] then scales it as diag(s) A diag(s)
 * scales the whole matrix, and the products touch the window's rows only.  Host memory only. */
typedef struct {
    int first, len, pad;     /* local rows [first, first + len); the ghost part starts at pad */
    int g0, ng;              /* the ghosts [g0, g0 + ng) its rows name */
    struct mix_sparse *off;
    /* The CG's (solvers/cg/cg_dist.c): the sloppy copies [jacobi][storage] and the [local, ghost]
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
     * FIXED16 scales (solvers/cg/cg_dist.c), on every rank alike. */
    unsigned char whole_rows[2][MIX_NUM_PREC];
    void (*free)(struct mixi_dist_link *d); /* frees the windows' off, the halo and itself */
} mixi_dist_link;

/* An SPD matrix bound to one context: the FP64 copy (true residuals) and, converted on first
 * use, one sloppy copy per (storage precision, Jacobi or not).  Solves on one object must not
 * run concurrently (the cache is filled without a lock). */
struct mix_sparse {
    mix_context *ctx;
    int n;
    int64_t nnz;        /* after duplicates were summed */
    double amax;        /* max |a_ij| */
    int64_t fixed16_tiny; /* off-diagonal entries below 2^-8 of their row's largest one */
    mixi_spmat *a64;     /* backend FP64 copy */
    double *jacobi;     /* backend n-vector 1/sqrt(a_ii), made on the first Jacobi solve */
    int jacobi_status;  /* -1 not computed yet, else 0 or MIX_ERR_NOT_SPD */
    double *uniform;    /* backend n-vector c (power of two, c^2 amax in [1,4)) for FP16/BF16 */
    mixi_spmat *sloppy[2][MIX_NUM_PREC]; /* [jacobi][prec]; [0][MIX_FP64] is a64 itself */
    double eta[2][MIX_NUM_PREC];  /* storage error of each sloppy copy (mixi_cg_storage_error) */
    int eta_known[2][MIX_NUM_PREC]; /* 0 (calloc) until measured */
    /* Distributed by rows (libmixsolve_mpi; mixi_dist_link above): NULL on one process.  Then this
     * object is the local block and amax is the whole matrix's; the windows' scales for S of
     * kind [0] uniform, [1] Jacobi are made collectively once (off_scale_done). */
    mixi_dist_link *dist;
    int off_scale_done[2];
    /* The multigrid hierarchy of MIX_PRECOND_AMG (solvers/amg), made on the first such solve,
     * and its release (set with it, so that this file's code need not link the family). */
    struct mixi_amg *amg;
    void (*amg_free)(struct mixi_amg *amg, mix_context *ctx);
};

/* A (*A) bound to ctx, whose backend has the sparse family, from a valid CSR with sorted rows
 * and no duplicates (lib/api/sparse.c checks and canonicalises the user's), amax = max |a_ij|: its
 * FP64 backend copy, and what MIX_PREC_AUTO asks of its rows.  Returns 0, MIX_ERR_ALLOC or the
 * backend's status (*A untouched then). */
int mixi_sparse_new(mix_context *ctx, int n, const int64_t *rowptr, const int32_t *colind,
                    const double *val, double amax, mix_sparse **A);
/* Frees A with every backend copy (NULL allowed). */
void mixi_sparse_free(mix_sparse *A);

/* The sloppy matrix As = diag(S) A diag(S) for `prec` with or without Jacobi, and the scale S
 * it was made with (NULL = identity; which S a storage gets is decided in solvers/cg/cg_matrix.c),
 * converting and caching on first use.  Returns 0, MIX_ERR_NOT_SPD (Jacobi with a_ii <= 0),
 * MIX_ERR_OVERFLOW, MIX_ERR_ALLOC, MIX_ERR_INVALID_ARG. */
int mixi_sparse_sloppy(mix_sparse *A, mix_prec prec, int jacobi, const mixi_spmat **As,
                       const double **scale);

/* The distributed parts of CG's steps (solvers/cg/cg_dist.c).  On one process (A->dist NULL) the
 * reductions return at once and the products are the backend's, so the serial bits hold. */
int mixi_cg_sum(const mix_sparse *A, double *v, int k);      /* v[0..k-1] summed over the ranks */
int mixi_cg_max(const mix_sparse *A, double *v, int k);
int mixi_cg_agree(const mix_sparse *A, int st);              /* the largest status of all ranks */
double mixi_cg_n(const mix_sparse *A);                       /* rows of the whole matrix */
/* With escalation on, a system of fewer rows than this runs in FP64 from the start, with or
 * without AMG: exact CG ends within n steps, before a sloppy stage has the rows of T to judge its
 * storage, and a stage that hands over then costs more than the whole FP64 run (LF10, n = 18,
 * Jacobi: FP32 31 iterations, the 16-bit storages 33 then FP64 18; FP64 alone 9). */
#define MIXI_CG_SLOPPY_MIN_N 32
/* MIX_PREC_AUTO's storage for A (solvers/cg/cg_auto.c; also the AMG hierarchy's). */
mix_prec mixi_cg_auto_prec(mix_sparse *A);
/* What AUTO weighs per storage (solvers/cg/cg_rates.c measures it): seconds of one SpMV of the
 * matrix (<= 0: unknown) and of the conversion a solve in it would pay (0: its copy is cached,
 * or FP64); forced: the rates came from MIXSOLVE_SPMV_RATES. */
typedef struct {
    double spmv_s[MIX_NUM_PREC];
    double convert_s[MIX_NUM_PREC];
    int forced;
} mixi_auto_rates;
/* The same rule for any operator of n rows and nnz nonzeros (an AMG level: solvers/amg/amg_auto.c)
 * among the candidates cand[] (FP64 one unless a caller's vectors rule it out), without the order
 * rule: a pure function. */
mix_prec mixi_auto_pick(double n, double nnz, const int cand[MIX_NUM_PREC], const mixi_auto_rates *r);
/* The least SpMV time of each candidate not measured (r->spmv_s <= 0; bounded[p] = 1): its bytes
 * at MIXI_AUTO_BW_HEADROOM times the best bandwidth a measured candidate reached, no conversion.
 * Where mixi_auto_pick still takes a measured candidate, measuring the others cannot change the
 * choice (so AUTO converts no copy it would not keep); where it takes a bounded one, that one
 * must be measured.  Nothing is bounded where nothing was measured.  A pure function. */
void mixi_auto_bound(double n, double nnz, const int cand[MIX_NUM_PREC], mixi_auto_rates *r,
                     int bounded[MIX_NUM_PREC]);
/* How much faster than the best measured storage another may stream its bytes.  On the 2-core
 * Ice Lake Xeon of doc/benchmarks.md every SELL format and FP64's CSR reach 87-100% of the triad;
 * on the AVX2 Zen 3 FIXED16 57-60% and FP64 CSR 72%. */
#define MIXI_AUTO_BW_HEADROOM 1.25

/* Test hook: 0 makes the CG loop use the backend's unfused cg_update and axpby instead of its
 * fused cg_rupdate and cg_xpupdate (the same bits); 1 (default) restores them. */
void mixi_cg_set_fused(int on);

/* The reliable-update CG of solvers/cg/cg.c: b and x in backend memory of A->ctx. */
int mixi_cg_solve(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const double *b,
                  double *x, mix_cg_info *info);
/* The same for any scale of A and b (solvers/cg/cg_range.c; what lib/api/cg_api.c calls): NaN/Inf in b
 * refused from its entries; a system whose largest entries lie outside [2^-64, 2^64] solved
 * rescaled by powers of two. */
int mixi_cg_solve_in_range(mix_context *ctx, const mix_cg_params *p, mix_sparse *A,
                           const double *b, double *x, mix_cg_info *info);

#endif
