/* cg_impl.h: what the files of the CG family share among themselves (the Lanczos estimates, the
 * storage error, AUTO's choice, the sloppy vectors, the distributed steps), beside the family's
 * entry solvers/cg/cg.h; included by solvers/cg/ and the tests only (as PETSc's cgimpl.h). */
#ifndef MIX_SOLVERS_CG_IMPL_H
#define MIX_SOLVERS_CG_IMPL_H

#include "solvers/cg/cg.h"

/* The Lanczos tridiagonal matrix of a CG run (solvers/cg/cg_lanczos.c), for the extreme
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
 * ||As - S A S||_2 (solvers/cg/cg_storage.c; measured once per copy, cached in A->eta).  0 for
 * FP64. */
int mixi_cg_storage_error(mix_sparse *A, mix_prec prec, int jacobi, double *eta);

/* MIX_PREC_AUTO's storage (solvers/cg/cg_auto.c): FP64 below this order.  A sloppy stage that
 * hands over to FP64 after its first kappa estimates (8-96 iterations, solvers/cg/cg.c) costs
 * small matrices more than it can win: their CG runs a few hundred iterations (bundled
 * SuiteSparse set, n <= 3600: 1138_bus, 494_bus, bcsstk13 need ~n steps and hand over). */
#define MIXI_CG_AUTO_MIN_N 4096
/* AUTO's candidates for A: cand[p] = 1 for FIXED16 (when its row scale holds the entries), FP32
 * and FP64. */
void mixi_cg_auto_candidates(const mix_sparse *A, int cand[MIX_NUM_PREC]);
/* mixi_cg_auto_prec's choice (solvers/cg/cg.h) from given costs, a pure function: FP64 below the
 * order above (mixi_cg_n: the global one), else the smallest predicted solve time (SpMV and
 * vector time per iteration x the iterations the storage implies, plus its conversion), the
 * narrower storage kept within 5% of the fastest; r NULL or a candidate's SpMV time unknown:
 * the byte model for all (solvers/cg/cg_auto.c). */
mix_prec mixi_cg_auto_choose(const mix_sparse *A, const mixi_auto_rates *r);
/* The costs of the candidates want[] on A (Jacobi copies or not) into r, whose other entries
 * stay (r and made[] zeroed by the caller first): MIXSOLVE_SPMV_RATES where set (10^9 nonzeros
 * per second, "fixed16=1.2,fp32=2.5,fp64=1.4"; every storage named, r->forced = 1), else the
 * rates this process measured on a matrix of A's size class (half an octave of nonzeros),
 * measured first on A itself where missing (a few SpMVs of each candidate's copy, round robin;
 * copies it converted for that are flagged in made[]). */
int mixi_cg_rates(mix_sparse *A, int jacobi, const int want[MIX_NUM_PREC], mixi_auto_rates *r,
                  int made[MIX_NUM_PREC]);
/* Releases the copies mixi_cg_rates made (made[]) other than `keep` (one process only). */
void mixi_cg_rates_release(mix_sparse *A, int jacobi, const int made[MIX_NUM_PREC], mix_prec keep);
/* AUTO's storage for a solve on A with (jacobi = 1) or without Jacobi: the costs above, then the
 * choice.  mixi_cg_auto_prec(A) is this with Jacobi (the AMG hierarchy's fine level). */
mix_prec mixi_cg_auto_storage(mix_sparse *A, int jacobi);
/* The precision of the sloppy vectors r, p and A p over a matrix in `storage`: its accumulator
 * (FP32 over a 16-bit matrix) where the backend's spmv takes it and narrow_vectors is 0, else the
 * storage's own. */
mix_prec mixi_cg_vector_prec(const mix_context *ctx, int narrow_vectors, mix_prec storage);

/* A backend sloppy vector of n values in prec (FIXED16: with its block norms), and its release
 * (pointers cleared; an unallocated vector is a no-op). */
int mixi_cg_svec_alloc(mix_context *ctx, mix_prec prec, int n, mixi_svec *v);
void mixi_cg_svec_free(mix_context *ctx, mixi_svec *v);
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

#endif
