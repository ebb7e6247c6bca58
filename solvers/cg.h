/* cg.h: the CG solver's entries and the matrix it works on, the mix_sparse object that
 * lib/sparse.c creates for the user (never installed). */
#ifndef MIX_SOLVERS_CG_H
#define MIX_SOLVERS_CG_H

#include "lib/core/core.h"
#include "lib/core/comm.h"
#include "kernels/backend_sparse.h"

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
    /* Distributed by rows (libmixsolve_mpi; lib/core/comm.h): NULL on one process.  Then this
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
 * and no duplicates (lib/sparse.c checks and canonicalises the user's), amax = max |a_ij|: its
 * FP64 backend copy, and what MIX_PREC_AUTO asks of its rows.  Returns 0, MIX_ERR_ALLOC or the
 * backend's status (*A untouched then). */
int mixi_sparse_new(mix_context *ctx, int n, const int64_t *rowptr, const int32_t *colind,
                    const double *val, double amax, mix_sparse **A);
/* Frees A with every backend copy (NULL allowed). */
void mixi_sparse_free(mix_sparse *A);

/* The sloppy matrix As = diag(S) A diag(S) for `prec` with or without Jacobi, and the scale S
 * it was made with (NULL = identity; which S a storage gets is decided in solvers/cg_matrix.c),
 * converting and caching on first use.  Returns 0, MIX_ERR_NOT_SPD (Jacobi with a_ii <= 0),
 * MIX_ERR_OVERFLOW, MIX_ERR_ALLOC, MIX_ERR_INVALID_ARG. */
int mixi_sparse_sloppy(mix_sparse *A, mix_prec prec, int jacobi, const mixi_spmat **As,
                       const double **scale);

/* The Lanczos tridiagonal matrix of a CG run (solvers/cg_lanczos.c), for the extreme
 * eigenvalues, and so kappa, of the matrix CG iterates on. */
#define MIXI_LANCZOS_MAX 256
typedef struct {
    int k;                                     /* rows so far */
    double d[MIXI_LANCZOS_MAX], e[MIXI_LANCZOS_MAX]; /* diagonal, off-diagonal (e[j] = T_{j,j+1}) */
    double alpha_prev, beta_prev;
} mixi_lanczos;
void mixi_lanczos_reset(mixi_lanczos *T);
/* One CG step: its alpha and the beta of the next direction (0: restart, T starts over). */
void mixi_lanczos_push(mixi_lanczos *T, double alpha, double beta);
/* The smallest and largest eigenvalues of T: 1, or 0 when fewer than 2 rows or not positive. */
int mixi_lanczos_extremes(const mixi_lanczos *T, double *lmin, double *lmax);
/* sqrt(kappa) / 2 ln(2 / tol): CG's iteration bound at condition number kappa; 0 for a kappa
 * below 1 or a tol outside (0, 1). */
double mixi_cg_iter_bound(double kappa, double tol);

/* How far the sloppy copy As of `prec` (with or without Jacobi) is from the FP64 matrix it
 * stands for: ||(As - S A S) v|| / ||v|| for a fixed vector v of random signs, an estimate of
 * ||As - S A S||_2 (solvers/cg_storage.c; measured once per copy, cached in A->eta).  0 for
 * FP64. */
int mixi_cg_storage_error(mix_sparse *A, mix_prec prec, int jacobi, double *eta);

/* MIX_PREC_AUTO's storage (solvers/cg_auto.c): FP64 below this order.  A sloppy stage that
 * hands over to FP64 after its first kappa estimates (8-96 iterations, solvers/cg.c) costs
 * small matrices more than it can win: their CG runs a few hundred iterations (bundled
 * SuiteSparse set, n <= 3600: 1138_bus, 494_bus, bcsstk13 need ~n steps and hand over). */
#define MIXI_CG_AUTO_MIN_N 4096
mix_prec mixi_cg_auto_prec(const mix_sparse *A);
/* The same from given SpMV rates per storage (bytes/s; 0 = unknown, and then the byte model for
 * all): FP64 below the order above, else the smallest predicted time per iteration
 * among FIXED16 (when its row scale holds the entries), FP32 and FP64 (solvers/cg_auto.c). */
mix_prec mixi_cg_auto_choose(const mix_sparse *A, const double rate[MIX_NUM_PREC]);
/* The precision of the sloppy vectors r, p and A p over a matrix in `storage`: its accumulator
 * (FP32 over a 16-bit matrix) where the backend's spmv takes it and narrow_vectors is 0, else the
 * storage's own. */
mix_prec mixi_cg_vector_prec(const mix_context *ctx, int narrow_vectors, mix_prec storage);

/* The distributed parts of CG's steps (solvers/cg_dist.c).  On one process (A->dist NULL) the
 * reductions return at once and the products are the backend's, so the serial bits hold. */
int mixi_cg_sum(const mix_sparse *A, double *v, int k);      /* v[0..k-1] summed over the ranks */
int mixi_cg_max(const mix_sparse *A, double *v, int k);
int mixi_cg_agree(const mix_sparse *A, int st);              /* the largest status of all ranks */
/* A backend sloppy vector of n values in prec (FIXED16: with its block norms), and its release
 * (pointers cleared; an unallocated vector is a no-op). */
int mixi_cg_svec_alloc(mix_context *ctx, mix_prec prec, int n, mixi_svec *v);
void mixi_cg_svec_free(mix_context *ctx, mixi_svec *v);
double mixi_cg_n(const mix_sparse *A);                       /* rows of the whole matrix */
/* r = b - A x in FP64 over the ranks (the halo in FP64), *rr = ||r||^2 summed. */
int mixi_cg_residual64(mix_sparse *A, const double *b, const double *x, double *r, double *rr);
/* y = A x in FP64 over the ranks (true p'Ap on a breakdown). */
int mixi_cg_apply64(mix_sparse *A, const double *x, double *y);
/* What one stage's distributed sloppy SpMV needs: the off-process block in the stage's storage
 * (NULL: no ghost here) and two vectors of its order (ghost values in, its product out). */
typedef struct {
    mix_prec wire;
    struct {
        const mixi_spmat *off;
        mixi_svec g, y;
    } w[MIXI_DIST_WIN_MAX];
} mixi_cg_halo;
/* Collective: the off-process block of `prec` (scaled by the local block's S where S is not
 * NULL, with the ghosts' S fetched once) and the vectors in vprec.  FIXED16: the first time,
 * the local block's copy *As (mixi_sparse_sloppy's) is remade, as the off-process blocks are
 * made, on the whole rows' scales, so that the blocks hold the single process's bits.  0 on a
 * serial A. */
int mixi_cg_halo_setup(mix_sparse *A, mix_prec prec, int jacobi, const double *S, mix_prec vprec,
                       const mixi_spmat **As, mixi_cg_halo *h);
void mixi_cg_halo_free(mix_sparse *A, mixi_cg_halo *h);
/* ap = As p over the ranks: the halo of p starts on the stage's wire, the local block runs while
 * it travels, then the off-process block adds the ghosts' part; *pap = <p, A p> summed.  Any
 * rank's failure is every rank's status (it travels in the same reduction). */
int mixi_cg_spmv(mix_sparse *A, mixi_cg_halo *h, const mixi_spmat *As, const mixi_svec *p,
                 mixi_svec *ap, double *pap);
void mixi_cg_off_free(mix_sparse *A); /* the cached off-process copies (mixi_sparse_free) */

/* Test hook: 0 makes the CG loop use the backend's unfused cg_update and axpby instead of its
 * fused cg_rupdate and cg_xpupdate (the same bits); 1 (default) restores them. */
void mixi_cg_set_fused(int on);

/* The reliable-update CG of solvers/cg.c: b and x in backend memory of A->ctx. */
int mixi_cg_solve(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const double *b,
                  double *x, mix_cg_info *info);
/* The same for any scale of A and b (solvers/cg_range.c; what lib/cg_api.c calls): NaN/Inf in b
 * refused from its entries; a system whose largest entries lie outside [2^-64, 2^64] solved
 * rescaled by powers of two. */
int mixi_cg_solve_in_range(mix_context *ctx, const mix_cg_params *p, mix_sparse *A,
                           const double *b, double *x, mix_cg_info *info);

#endif
