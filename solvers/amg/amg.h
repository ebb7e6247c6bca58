/* amg.h: smoothed-aggregation algebraic multigrid under the FP64 conjugate gradients of
 * MIX_PRECOND_AMG: the FP64 set-up on host CSR arrays (amg_csr.c, amg_setup.c), the copies of
 * each level in a storage precision over the backend (amg_store.c), the V-cycle (amg_cycle.c)
 * and the preconditioned CG around it (amg_pcg.c). */
#ifndef MIX_SOLVERS_AMG_H
#define MIX_SOLVERS_AMG_H

#include <math.h>
#include "solvers/cg/cg.h"

#define MIXI_AMG_MAX_LEVELS 12
/* A set-up pass over fewer entries than this runs on the calling thread: a team's start and
 * barriers cost more there (3-D Poisson 150^3's two coarsest levels: 0.5 s each of Lanczos
 * steps on a loaded 2-core machine, for a few milliseconds of work). */
#define MIXI_AMG_TEAM_MIN_NNZ (INT64_C(1) << 21)
#define MIXI_AMG_TEAM_MIN_N (1 << 18) /* the same for a pass over vectors */
#define MIXI_AMG_TEAM(M) ((M)->rp[(M)->nr] >= MIXI_AMG_TEAM_MIN_NNZ)
/* Coarsening stops at this order; the coarsest level is solved by a dense Cholesky up to
 * MIXI_AMG_DIRECT_N rows (a hierarchy that stopped coarsening above it smooths there). */
#define MIXI_AMG_COARSE_N 400
#define MIXI_AMG_DIRECT_N 3000

/* A host CSR matrix of nr rows and nc columns (rows sorted where it goes to a backend). */
typedef struct {
    int nr, nc;
    int64_t *rp;
    int32_t *ci;
    double *v;
} mixi_amg_csr;

int mixi_amg_csr_alloc(mixi_amg_csr *M, int nr, int nc, int64_t nnz);
void mixi_amg_csr_free(mixi_amg_csr *M);
int mixi_amg_csr_transpose(const mixi_amg_csr *M, mixi_amg_csr *T); /* T = M^T, rows sorted */
int mixi_amg_csr_product(const mixi_amg_csr *A, const mixi_amg_csr *B, mixi_amg_csr *C);
/* Ac = R (A P), the Galerkin operator (R = P^T), unsorted rows; A P is never held as CSR. */
int mixi_amg_csr_galerkin(const mixi_amg_csr *R, const mixi_amg_csr *A, const mixi_amg_csr *P,
                          mixi_amg_csr *Ac);
void mixi_amg_csr_sort_rows(mixi_amg_csr *M);
/* One row's (ci, v) by column: an insertion sort (rows here are short). */
void mixi_amg_csr_sort_row(int32_t *ci, double *v, int64_t len);
/* The smoothers' interval ends at this multiple of the estimated largest eigenvalue, which
 * covers the estimate's shortfall. */
#define MIXI_AMG_LMAX_MARGIN 1.1
/* An estimate of the largest eigenvalue of D^-1/2 A D^-1/2 (dinv_sqrt: D^-1/2) from below,
 * within MIXI_AMG_LMAX_MARGIN of it: by Lanczos, stopped early where the margin reaches upper,
 * a bound from above (Gershgorin's). */
double mixi_amg_lmax(const mixi_amg_csr *A, const double *dinv_sqrt, double upper);

/* The scaled tentative prolongator Th = D^1/2 T Dc^-1/2 on the host, in mixi_tent's layout
 * (kernels/backend_sparse.h: by aggregates, the rows in none last). */
typedef struct {
    int n, nc;
    int32_t *start, *rows;
    double *val;
} mixi_amg_tent;

/* One level of the FP64 hierarchy: its operator (the fine level's is the user's matrix, kept
 * by the mix_sparse), D^-1/2, the largest eigenvalue of D^-1/2 A D^-1/2, and the prolongator
 * to the next level in the scaled unknowns, Ph = D^1/2 P Dc^-1/2 (the restriction is Ph^T):
 * either held as a square matrix of this level's order (the SpMV kernels take square matrices;
 * the coarse vector is the head of a fine-sized one), or, implicit, as Ph = (I - w A^) Th with
 * A^ = D^-1/2 A D^-1/2, the operator the level stores anyway (amg_setup.c says where). */
typedef struct {
    int n;
    int64_t nnz;             /* of the operator */
    mixi_amg_csr A;          /* level >= 1: host FP64 operator until stored */
    double *dinv_sqrt;       /* host */
    double lmax;
    int implicit;            /* Ph = (I - w A^) Th: T and w, no P */
    mixi_amg_csr P;          /* host, square n x n, scaled (explicit levels) */
    mixi_amg_tent T;         /* host (implicit levels) */
    double w;                /* the smoothing's weight on A^ */
    int tiny_share_pct;      /* FIXED16 fit of the scaled operator: % of tiny off-diagonals */
} mixi_amg_level;

/* A coarse operator with more than this share of off-diagonal entries below 2^-8 of their
 * row's largest is stored in FP32 instead of a 16-bit format: a FIXED16 row step keeps fewer
 * than 7 bits of them (the smoothed-aggregation operators of the 3-D Poisson stencil: 0-5%). */
#define MIXI_AMG_TINY_MAX_PCT 25
static inline int mixi_amg_fits16(const mixi_amg_level *L)
{
    return L->tiny_share_pct <= MIXI_AMG_TINY_MAX_PCT;
}

/* A level's backend copies in one storage precision: the operator and P, with R = P^T below
 * the fine level (amg_store.c: else the backend's spmv_t applies P^T), or for an implicit level
 * Th (in the V-cycle's vector precision) instead of P. */
typedef struct {
    mix_prec prec;               /* the storage of the level's operator and P */
    const mixi_spmat *A, *P;     /* A of level 0: the mix_sparse's Jacobi copy; NULL for the
                                  * coarsest where its Cholesky factor solves it */
    mixi_spmat *own_A, *P_own;
    mixi_spmat *R;               /* owned; NULL: restriction by spmv_t on P */
    mixi_tent *T;                /* implicit levels: Th, owned; else NULL */
} mixi_amg_stored;

struct mixi_amg {
    int nlev;
    mixi_amg_level lev[MIXI_AMG_MAX_LEVELS]; /* host: levels >= 1 keep A (scaled) and P until
                                              * a stored set is made (host_kept) */
    double *scale[MIXI_AMG_MAX_LEVELS];      /* [0]: the mix_sparse's backend D^-1/2 (the
                                              * coarser levels' scale their host operators) */
    double *chol;                            /* FP64 Cholesky factor of the coarsest, by its
                                              * envelope (amg_coarse.c): row i's columns
                                              * chol_first[i] .. i from chol[chol_off[i]] */
    int32_t *chol_first, *chol_last;         /* chol_last[j]: the last row reaching column j */
    int64_t *chol_off;                       /* n + 1 */
    int coarse_direct;                       /* 1: coarsest solved by chol, else smoothed */
    mixi_amg_stored *stored[MIX_NUM_PREC];   /* [requested storage]: per level */
    mixi_amg_stored *stored_auto;            /* MIX_PREC_AUTO's, per level (amg_auto.c) */
    mix_prec auto_fine; /* AUTO's fine-level storage: stored_auto's once made (it stays) */
    /* The bytes of each set's matrices (operators and P; an SpMV reads them once, the V-cycle
     * reads an operator 4 times and P twice a level), and of the host CSR the sets are made
     * from (while kept). */
    int64_t bytes_stored[MIX_NUM_PREC], bytes_auto, bytes_host;
    int host_kept; /* the host arrays are there (else a new set reruns the set-up for them) */
    int tent_ok;   /* the backend applies implicit prolongators (tent_restrict, tent_prolong) */
    double t_setup;
};
typedef struct mixi_amg mixi_amg;

/* The hierarchy of A (built and cached on A on first use; *t counts the time when built). */
int mixi_amg_get(mix_sparse *A, mixi_amg **H, double *t);
/* Its copies for the requested storage, levels that do not fit 16 bits stored in FP32; cached.
 * MIX_PREC_AUTO: the fine level in CG's AUTO storage (mixi_cg_auto_prec: FP64 there is FP64
 * throughout), each coarser level in the storage whose SpMV measured fastest on it. */
int mixi_amg_stored_get(mix_sparse *A, mixi_amg *H, mix_prec prec, const mixi_amg_stored **S);
void mixi_amg_free(mixi_amg *H, mix_context *ctx);
/* FP64 Cholesky of the coarsest operator (amg_coarse.c): L in H->chol, by its envelope. */
int mixi_amg_coarse_factor(mixi_amg *H, const mixi_amg_csr *A);
void mixi_amg_coarse_free(mixi_amg *H);
void mixi_amg_coarse_solve(const mixi_amg *H, double *x); /* x = A^-1 x (FP64, host) */
/* a_ij (entry k of row i) is a strong coupling: |a_ij| >= theta sqrt(a_ii a_jj), s = D^-1/2. */
static inline int mixi_amg_strong(const mixi_amg_csr *A, const double *s, double theta, int i,
                                  int64_t k)
{
    const int j = A->ci[k];
    return j != i && fabs(A->v[k]) * s[i] * s[j] >= theta;
}

/* Smoothed aggregation's aggregates of A (s = D^-1/2): agg[i] the aggregate of row i, or -1 for
 * a row without a coupling |a_ij| >= theta sqrt(a_ii a_jj); wide: compact distance-2
 * aggregates.  Returns their number, -1 when out of memory (amg_setup.c). */
int mixi_amg_aggregate(const mixi_amg_csr *A, const double *s, double theta, int wide, int *agg);
/* P = (I - w D^-1 A_F) T (amg_prolong.c): T the tentative prolongator of the aggregates agg
 * (na of them; T's column a holds 1/sqrt(|a|) on a's rows), A_F = A where theta is 0, else A
 * with its entries weaker than theta moved onto the diagonal.  Rows sorted.  *filtered (NULL
 * allowed): A_F is not A (a nonzero entry moved). */
int mixi_amg_prolongator(const mixi_amg_csr *A, const double *s, double w, double theta,
                         const int *agg, int na, mixi_amg_csr *P, int *filtered);
/* Th = D^1/2 T Dc^-1/2 of the aggregates agg (na of them; s = D^-1/2 of the n rows, sc =
 * Dc^-1/2 of the aggregates), in mixi_tent's layout (amg_prolong.c). */
int mixi_amg_tent_make(const int *agg, int n, int na, const double *s, const double *sc,
                       mixi_amg_tent *T);
void mixi_amg_tent_free(mixi_amg_tent *T);
/* The set-up of one coarser level from level l (amg_setup.c); *stop when none is worth it. */
int mixi_amg_coarsen(mixi_amg *H, int l, const mixi_amg_csr *A, mixi_amg_csr *Ac, int *stop);

/* Per-level AUTO (amg_auto.c).  The pick for level L among the fine level's 16-bit storage
 * `fine` (where L fits 16 bits) and FP32, from the seconds spmv_s[p] of one SpMV of L in each
 * (0: not a candidate): mixi_auto_pick's rule (cg_auto.c), a pure function.  FP64 is none: the
 * V-cycle's vectors are FP32 over a non-FP64 hierarchy. */
mix_prec mixi_amg_level_pick(const mixi_amg_level *L, mix_prec fine,
                             const double spmv_s[MIX_NUM_PREC]);
/* *seconds: the best SpMV of M (n rows) over FP32 vectors, the backend's tuned body. */
int mixi_amg_time_spmv(mix_context *ctx, const mixi_spmat *M, int n, double *seconds);

/* The V-cycle's vector precision over storage prec: the SpMV accumulator (FP32) over 16 bits,
 * FP64 over FP64 (the loop's, amg_pcg.c, and the stored Th's values, amg_store.c). */
static inline mix_prec mixi_amg_vector_prec(const mix_context *ctx, mix_prec prec)
{
    if (prec == MIX_FP64) return MIX_FP64;
    return ctx->ops->sparse->spmv_acc_vectors ? mixk_prec_acc(prec) : prec;
}

/* A zeroed backend vector of n values in prec with room (and the kernels' padding) for cap. */
int mixi_amg_svec_alloc(mix_context *ctx, mix_prec prec, int n, int cap, mixi_svec *v);
/* The power of two that keeps a narrow vector with squared norm vv over n values near unit RMS
 * (exact scaling), so that residuals that fell by 1e-10 neither underflow nor leave FP32's
 * range; 1 where it is already within [2^-16, 2^16]. */
static inline double mixi_amg_unit_rms(double vv, double n)
{
    const double rms = sqrt(vv / n);
    if (!(rms > 0.0) || !isfinite(rms) || (rms >= 0x1p-16 && rms <= 0x1p16)) return 1.0;
    int e;
    frexp(rms, &e);
    return ldexp(1.0, -e);
}

/* The V-cycle's workspace and application (amg_cycle.c): z = M r for FP64 backend vectors. */
typedef struct {
    mix_context *ctx;
    const mixi_amg *H;
    const mixi_amg_stored *S;
    const double *scale0;
    mix_prec vprec;
    mixi_svec x[MIXI_AMG_MAX_LEVELS], b[MIXI_AMG_MAX_LEVELS], r[MIXI_AMG_MAX_LEVELS],
        d[MIXI_AMG_MAX_LEVELS], t[MIXI_AMG_MAX_LEVELS];
    double *c64;  /* coarsest FP64 vector */
    double *c_host; /* its host copy where the backend's memory is not the host's, else NULL */
    double sigma; /* power of two keeping the narrow vectors in range */
} mixi_amg_cycle;
int mixi_amg_cycle_init(mixi_amg_cycle *C, mix_context *ctx, const mixi_amg *H,
                        const mixi_amg_stored *S, const double *scale0, mix_prec vprec);
void mixi_amg_cycle_free(mixi_amg_cycle *C);
int mixi_amg_cycle_apply(mixi_amg_cycle *C, const double *r, double *z);
/* z = V r in the fine level's scaled unknowns: r a vector of the cycle's precision, *z the
 * cycle's own (valid until the next application). */
int mixi_amg_cycle_apply_scaled(mixi_amg_cycle *C, const mixi_svec *r, const mixi_svec **z);

/* MIX_PRECOND_AMG's solve (amg_pcg.c): what mixi_cg_solve calls. */
int mixi_amg_solve(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const double *b,
                   double *x, mix_cg_info *info);

#endif
