/* dense.h: internal interfaces between the dense solver pieces (LU, scaling, refinement, driver). */
#ifndef MIX_SOLVERS_H
#define MIX_SOLVERS_H

#include <float.h>
#include <math.h>
#include "lib/core/core.h"
#include "kernels/backend_dense.h"
#include "kernels/common/prec_traits.h"

/* ---- Policy (policy.c): AUTO, the cost model, thresholds, block sizes --------------------- */
/* Block size for an n x n factorisation (tuned on the CPU backend, see doc/benchmarks.md). */
int mixi_lu_block_size(int n);
/* The block size the low-precision LU and Cholesky of ctx take for order n: MIXSOLVE_LU_NB when
 * set (a positive integer up to MIXI_LU_NB_MAX, clipped to n), else the backend's own
 * (dense->lu_block_size), else mixi_lu_block_size. */
#define MIXI_LU_NB_MAX 8192
int mixi_factor_block_size(const mix_context *ctx, int n);
/* Whether an FP32 factorization of order n runs whole on the backend's own routine (getrf_f32,
 * potrf_f32) rather than the blocked driver: where the backend says it pays (whole_f32_pays). */
int mixi_whole_f32(const mix_context *ctx, int n);
/* Below this order the refinement's time budgets stay off for a precision asked for: the
 * whole attempt costs a few milliseconds, too little to time reliably.  The give-up rules on
 * rates (refine.c) and the prediction of mixi_refine_outweighs hold at every n.  AUTO's own
 * attempts are budgeted from the order where it may take a low precision (MIXI_GESV_AUTO_MIN_N):
 * unbudgeted, GMRES-IR on randsvd kappa 1e15 at n = 300 ran 90 steps, 5x dgesv's time, where
 * the budgets stop it at 1.5x. */
#define MIXI_COST_FALLBACK_MIN_N 512
/* Small-n thresholds of MIX_PREC_AUTO (below them FP64 is chosen directly, and nothing is
 * calibrated); above, the cost model decides (policy.c).  LU: mix_dsgesv against dgesv on the
 * 2-core Ice Lake Xeon (doc/benchmarks.md, 2026-11-28), best of 60: 1.21x at n = 128, 1.34x at
 * 256 and 384, 1.0x at 128 on one thread, 1.25x at 256; the main job's FP32 rows from n = 420
 * to 1138 1.0-2.3x.  Cholesky: mix_dsposv against dposv on the same Xeon (2026-11-29
 * session 15), best of 5: 1.19x at n = 300, 1.22x at 500, 1.54x at 1000. */
#define MIXI_GESV_AUTO_MIN_N 256
#define MIXI_POSV_AUTO_MIN_N 256
/* The factor precision MIX_PREC_AUTO takes for an n x n system with nrhs right-hand sides on
 * ctx's backend; MIX_FP64 when no low precision is predicted to pay, or while the rates it
 * weighs are not yet worth measuring (mixi_calibration_pays).  commit: a call about to run
 * (its FP64 work counts towards the measurement); 0: a prediction. */
mix_prec mixi_gesv_auto_choice(mix_context *ctx, int n, int nrhs, int commit);
/* 1 where the rates' measurement of calibration_flops (0: done) pays: the FP64 work of AUTO's
 * calls answered without it, `deferred`, and the present call's fp64_flops reach CAL_AMORTIZE
 * (10) times it. */
int mixi_calibration_pays(double deferred, double fp64_flops, double calibration_flops);
/* Predicted seconds of an FP64 solve of `flops` operations at the backend's calibrated FP64 GEMM
 * rate (OpenBLAS reaches it in dgetrf/dpotrf from n ~ 2000; below, the prediction is short, so
 * a fallback comes early rather than late); 0 when the backend has no rate. */
double mixi_fp64_seconds(mix_context *ctx, double flops);
/* Predicted speed-up of a low-precision attempt in prec (factorization of factor_flops and a
 * few refinement rounds, sym: Cholesky's, which read one triangle) over the FP64 solve of
 * fp64_flops, from the calibrated GEMM and round rates, both factorizations slowed by
 * 1 + half_order / n (LU's half-rate order: n / (n + h) of the GEMM rate; 0: the rates alone);
 * 0 where the backend has no rates. */
double mixi_lowprec_gain(mix_context *ctx, mix_prec prec, int sym, int n, int nrhs,
                         double fp64_flops, double factor_flops, double half_order);
/* 1 where the refinement's least work (the first solve and two corrections of nrhs columns)
 * outweighs the FP64 solve of fp64_flops: no low precision can pay (many right-hand sides), and
 * a precision asked for would break the worst-case bound: FP64 directly (n >= 100). */
int mixi_refine_outweighs(int n, int nrhs, double fp64_flops);
/* The refinement's time budgets (seconds, from its start) after t_factor seconds of
 * low-precision factorization (factor_flops in prec) and t_passes seconds of the call's other
 * work before the refinement (the norm, allocations, the conversion), beside an FP64 solve of
 * fp64_flops: *fail_s while it shows no converging rate (the worst-case bound's slack less
 * t_passes, which that slack pays for too; 0 when they used it up), *succeed_s while its
 * columns converge at a rate that predicts they make it (AUTO: still faster than FP64; asked:
 * the bound beside its factorization).  The FP64 solve's predicted time is scaled by how much
 * slower than predicted the factorization ran. */
void mixi_refine_budget(mix_context *ctx, mix_prec prec, double fp64_flops, double factor_flops,
                        double t_factor, double t_passes, int asked, double *fail_s,
                        double *succeed_s);
/* Test hooks: seconds > 0 replaces every FP64 time prediction; rates > 0 replace the calibrated
 * FP64 and FP32 GEMM rates (GFLOP/s); 0 restores them. */
void mixi_set_fp64_seconds(double seconds);
void mixi_set_gemm_rates(double fp64_gflops, double fp32_gflops);
/* Test hook: order > 0 replaces LU's calibrated half-rate order; 0 restores it. */
void mixi_set_lu_half_order(double order);
/* The factor precision MIX_PREC_AUTO takes for an n x n SPD system (Cholesky's flops). */
mix_prec mixi_posv_auto_choice(mix_context *ctx, int n, int nrhs, int commit);

/* ---- Low-precision blocked LU (blocked_lowprec.c) ------------------------------------------- */
/* Floats of GEMM workspace the blocked LU needs (compute != FP32 rounds its inputs into it), and
 * of syrk_f32's the blocked Cholesky needs: 2 n nb, the largest update's two panels. */
size_t mixi_lu_gemm_work_floats(int n, int nb);
/* Right-looking blocked LU with partial pivoting of the n x n FP32 matrix a (backend memory), in
 * place; ipiv backend (n ints, global 1-based).  Trailing updates through dense->gemm_f32 with
 * `compute`.  *failed = 1 when the factorisation cannot be used (exactly zero pivot, NaN/Inf,
 * overflow of a GEMM input in `compute`); the return value is a MIX_ERR_* status for backend
 * failures only. */
int mixi_lu_lowprec(mix_context *ctx, mix_prec compute, int n, float *a, int lda, int *ipiv, int nb,
                    void *gemm_work, void *panel_work, int *failed);

/* ---- Scaling (scaling.c) -------------------------------------------------------------------- */
/* Two-sided power-of-two equilibration of the n x n FP64 matrix a (backend): fills r and c (backend,
 * n each) so that diag(r) A diag(c) has every column max in [1, 2) and every row max below 2
 * (zero lines keep 1), and *s (host): 1 unless `prec` has a narrow exponent (mixk_prec_range_scaling),
 * then a power of two putting the largest entry near its largest finite value / 256 (Higham, Pranesh & Zounon, with room for element growth).
 * host_tmp: n doubles of host scratch. */
int mixi_scale_compute(mix_context *ctx, mix_prec prec, int n, const double *a, int lda, double *r,
                       double *c, double *s, double *host_tmp);

/* ---- Low-precision blocked Cholesky (blocked_lowprec.c) ------------------------------------- */
/* Right-looking blocked Cholesky A = L L^T of the n x n FP32 matrix a (backend; lower triangle
 * read and written), diagonal blocks by dense->potrf_f32, panels by trsm_f32, trailing updates by
 * syrk_f32 with `compute`.  *failed = k > 0 (global) when the leading minor of order k is not
 * positive definite in this precision, -1 for NaN/Inf or an overflow of a GEMM input; 0 on
 * success.  The return value is a MIX_ERR_* status for backend failures only.  panel_work:
 * potrf_f32_worksize(nb) bytes. */
int mixi_chol_lowprec(mix_context *ctx, mix_prec compute, int n, float *a, int lda, int nb,
                      void *gemm_work, void *panel_work, int *failed);

/* ---- The FP64 matrix refinement works with ---------------------------------------------------- */
/* A matrix known only by its product (a sparse A: solvers/sparse_lu), so that refinement and its
 * Krylov solvers serve it unchanged: Y := alpha A X + beta Y for n x k blocks. */
typedef struct mixi_operator mixi_operator;
struct mixi_operator {
    int (*apply)(const mixi_operator *self, int n, int k, double alpha, const double *x, int ldx,
                 double beta, double *y, int ldy);
};
typedef struct {
    const double *a; /* backend, column-major */
    int lda;
    int sym;         /* 0: general; 1: symmetric, only its `uplo` triangle is read */
    int uplo;        /* MIXK_LOWER | MIXK_UPPER when sym */
    const mixi_operator *op; /* non-NULL: A is this operator (a, lda, sym unused) */
} mixi_matrix;
/* Y := alpha A X + beta Y for n x k blocks, with the kernels LAPACK's dsgesv/dsposv use for their
 * residuals (dgemv for one general column, dsymm for symmetric blocks): the residuals. */
static inline int mixi_matrix_apply(mix_context *ctx, const mixi_matrix *A, int n, int k,
                                    double alpha, const double *x, int ldx, double beta, double *y,
                                    int ldy)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (A->op) return A->op->apply(A->op, n, k, alpha, x, ldx, beta, y, ldy);
    if (A->sym)
        return d->symm_f64(ctx->state, A->uplo, n, k, alpha, A->a, A->lda, x, ldx, beta, y, ldy);
    if (k == 1) return d->gemv_f64(ctx->state, 0, n, n, alpha, A->a, A->lda, x, beta, y);
    return d->gemm_f64(ctx->state, 0, 0, n, k, n, alpha, A->a, A->lda, x, ldx, beta, y, ldy);
}
/* y := alpha A x + beta y, the Krylov steps' product: the fastest kernel for one column. */
static inline int mixi_matrix_matvec(mix_context *ctx, const mixi_matrix *A, int n, double alpha,
                                     const double *x, double beta, double *y)
{
    const mixi_dense_ops *d = ctx->ops->dense;
    if (A->sym && d->symv_f64)
        return d->symv_f64(ctx->state, A->uplo, n, alpha, A->a, A->lda, x, beta, y);
    return mixi_matrix_apply(ctx, A, n, 1, alpha, x, n, beta, y, n);
}

/* ---- Backward error (berr.c) ------------------------------------------------------------------ */
/* ||r||inf / (||A||inf ||x||inf + ||b||inf) of one column from its norms.  The denominator is 0
 * only for x = b = 0 (then r = 0); a NaN anywhere must show, never read as 0. */
static inline double mixi_berr_column(double rn, double xn, double bn, double anrm)
{
    double den = anrm * xn + bn;
    return den > 0.0 ? rn / den : (rn == 0.0 ? 0.0 : NAN);
}
/* The normwise stopping tolerance: the caller's tol, else LAPACK's sqrt(n) eps (half of it, u). */
static inline double mixi_stop_tol(const mix_gesv_params *p, int n)
{
    return p->tol > 0.0 ? p->tol : 0.5 * DBL_EPSILON * sqrt((double)n);
}
/* The largest over the nrhs columns of X (ld ldx) of the above, with r = B - A X computed in
 * FP64 (r: n x nrhs backend scratch, ld n; host: 3 nrhs doubles of scratch, host[j] = column j's
 * backward error on return). */
int mixi_backward_error(mix_context *ctx, int n, int nrhs, const mixi_matrix *A, double anrm,
                        const double *b, int ldb, const double *x, int ldx, double *r,
                        double *host, double *berr);

/* ---- Preconditioner: what refinement sees of a low-precision factorisation ------------------ */
/* M^{-1} applied to blocks of FP64 vectors, whatever factorisation stands behind it (LU, Cholesky).
 * Concrete preconditioners embed this as their first member. */
typedef struct mixi_precond mixi_precond;
struct mixi_precond {
    /* c := M^{-1} r for n x k blocks (k <= the nrhs its workspace was sized for); c == r allowed. */
    int (*apply)(const mixi_precond *self, int k, const double *r, int ldr, double *c, int ldc);
    mix_context *ctx;
    int n;
};

static inline int mixi_precond_apply(const mixi_precond *M, int k, const double *r, int ldr,
                                     double *c, int ldc)
{
    return M->apply(M, k, r, ldr, c, ldc);
}

/* The low-precision factors as a preconditioner, either family:
 * LU (precond_lu.c): M^{-1} = C (P^T L U)^{-1} s R from the blocked low-precision LU of s R A C;
 * Cholesky (precond_chol.c): M^{-1} = D (L L^T)^{-1} s D from the low-precision Cholesky of
 * s D A D (+ a diagonal shift; ipiv and c NULL, d in r). */
typedef struct {
    mixi_precond base;
    const float *f;
    int ldf;
    const int *ipiv;
    const double *r, *c; /* backend, or NULL when unscaled */
    double s;
    float *work;         /* backend, n * nrhs floats */
} mixi_factor_precond;
void mixi_lu_precond_init(mixi_factor_precond *M, mix_context *ctx, int n, const float *lu,
                          int ldlu, const int *ipiv, const double *r, const double *c, double s,
                          float *work);
void mixi_chol_precond_init(mixi_factor_precond *M, mix_context *ctx, int n, const float *l,
                            int ldl, const double *d, double s, float *work);

/* ---- GMRES (gmres.c) ------------------------------------------------------------------------ */
typedef struct {
    int m;            /* Krylov dimension of one cycle */
    double *V;        /* backend, n x (m + 1) */
    double *w;        /* backend, n */
    double *h;        /* backend, m + 1: CGS2 projections */
    double *host;     /* host: (m+1) m Hessenberg + 4 (m+1) Givens/rhs/solution/projections */
    double deadline;  /* > 0: wall clock (mixi_wtime) at which a cycle stops with the steps done */
} mixi_gmres_ws;
/* Whether a Krylov solver (GMRES, PCG) with a deadline (> 0: wall clock; 0: none) starts one more
 * step at `now`, its last step having taken step_s seconds: only one that can end by the
 * deadline (the first step of a cycle is always taken).  Not starting it, rather than noticing
 * the deadline after it, keeps a cut cycle within the time it was given. */
static inline int mixi_krylov_step_fits(double now, double step_s, double deadline)
{
    return !(deadline > 0.0) || now + step_s <= deadline;
}
/* Allocates the workspace (one per solve); mixi_gmres_ws_free releases it (zeroed struct allowed). */
int mixi_gmres_ws_alloc(mix_context *ctx, int n, int m, mixi_gmres_ws *ws);
void mixi_gmres_ws_free(mix_context *ctx, mixi_gmres_ws *ws);
/* One GMRES(m) cycle in FP64 on M^{-1} A d = M^{-1} rhs from d = 0 (left preconditioning),
 * stopping when the preconditioned residual falls by `rtol`.  A n x n FP64 (backend), rhs and d
 * backend vectors.  *its = Krylov steps taken. */
int mixi_gmres_cycle(const mixi_precond *M, const mixi_matrix *A, mixi_gmres_ws *ws,
                     const double *rhs, double *d, double rtol, int *its);

/* ---- Preconditioned CG (pcg.c): CG-IR's inner solver for SPD systems -------------------------- */
typedef struct {
    int max_its;
    double *r, *z, *p, *q; /* backend, n each */
    double deadline;       /* > 0: wall clock (mixi_wtime) at which CG stops with the steps done */
    int breakdown;         /* out: the last solve stopped at p'Ap <= 0 or r'z <= 0 (not finite) */
} mixi_pcg_ws;
int mixi_pcg_ws_alloc(mix_context *ctx, int n, int max_its, mixi_pcg_ws *ws);
void mixi_pcg_ws_free(mix_context *ctx, mixi_pcg_ws *ws);
/* CG in FP64 on A d = rhs from d = 0, preconditioned by M (symmetric positive definite in exact
 * arithmetic), at most ws->max_its steps, stopping when ||r||_2 falls by `rtol`, or at a
 * breakdown (p'Ap <= 0 or not finite: d keeps the steps done; ws->breakdown = 1).  *its = steps
 * taken. */
int mixi_pcg_solve(const mixi_precond *M, const mixi_matrix *A, mixi_pcg_ws *ws,
                   const double *rhs, double *d, double rtol, int *its);

/* ---- Refinement (refine.c) ------------------------------------------------------------------ */
typedef struct {
    mix_context *ctx;
    const mix_gesv_params *p;
    int n, nrhs;
    mixi_matrix A;              /* original FP64 A */
    const double *b; int ldb;   /* backend */
    double *x; int ldx;         /* backend: solution (in: nothing) */
    double *r;                  /* backend, n x nrhs, ld n: residuals, then corrections */
    const mixi_precond *M;
    mixi_gmres_ws *gmres;       /* the Krylov inner solver: GMRES, or CG where cg is given; */
    mixi_pcg_ws *cg;            /* both NULL when p->refine == MIX_REFINE_CLASSICAL */
    double anrm;                /* ||A||inf */
    /* Cost-aware stop: the predicted time of the rest of the refinement may not exceed this
     * (seconds: what falling back to FP64 now would cost); 0 = no limit. */
    double budget_s;
    /* Or, when budget_s is 0: */
    double fp64_flops;          /* > 0: flops of the FP64 solve from scratch that the
                                   cost-aware fallback weighs the rest of the refinement
                                   against (timed by mixi_fp64_seconds once rounds show a
                                   pace); 0: no such limit */
    double fp64_floor;          /* seconds the low-precision factorization took (the
                                   measure of the machine's pace) */
    double u_factor;            /* unit roundoff of the factors' GEMM inputs: how far a
                                   diverging classical step may be rescued by GMRES-IR */
    mix_prec prec;              /* the factors' precision and the flops of their */
    double factor_flops;        /* factorization (the budgets' measure of the load) */
    double t_passes;            /* seconds of the call before the refinement that were not
                                   the factorization (input checks, the norm, allocations,
                                   the conversion): spent from the bound's slack already */
} mixi_refine_job;
typedef struct {
    int converged;      /* 1: every column passed the stopping test */
    int nan;            /* NaN/Inf appeared in x or r */
    int too_slow;       /* stopped early: predicted to cost more than job->budget_s */
    int iter;           /* outer iterations used */
    int inner_iter;     /* total Krylov (GMRES or CG) steps */
    double backward_error;
    int history_length;
} mixi_refine_result;
/* x = M^{-1} b, then refinement until every column passes the stopping test, NaN/Inf appears, a
 * column diverges beyond rescue or stalls, its rate predicts that it cannot reach the test
 * within p->max_iter or the time budgets (mixi_refine_budget, or job->budget_s), or p->max_iter
 * corrections were made.  Returns a MIX_ERR_* status for backend
 * or allocation failures only; the outcome is in *res. */
int mixi_refine(const mixi_refine_job *job, mixi_refine_result *res);
/* The give-up rule on one column's step (refine.c; a pure function, so tests can read it): the
 * correction just made, Krylov or classical, changed the residual by `ratio` (this round's over
 * the last); refine_auto: a classical step may hand the column to the Krylov solver (ratio
 * above 0.2) while its growth stays below rescue_max; *stall counts the steps without progress
 * (ratio above 0.9 classical, 0.5 Krylov).  A classical step that grows the residual beyond
 * rescue gives up at once (after the first correction: 2 residuals), any column after 2
 * steps in a row without progress. */
enum { MIXI_STEP_GO_ON, MIXI_STEP_TO_KRYLOV, MIXI_STEP_GIVE_UP };
int mixi_refine_step_verdict(int krylov, double ratio, int refine_auto, double rescue_max,
                             int *stall);

/* ---- The dense flow (dense_flow.c): LU and Cholesky through one set of operations ---------- */
/* One call of either family, arguments already checked by lib/api/dense_api.c: a, b, x in backend
 * memory (layout as given), ipiv (LU) on the host, A read from its uplo ('L'/'U') triangle only
 * for spd.  f_out (host, column-major, ld lda, column-major layout only; may be a): when the
 * low-precision path succeeds (info->iter >= 0) it receives the factors widened to FP64 as
 * dgetrf (with ipiv) or dpotrf leave them, for a nearby matrix (the LAPACK drop-in); a system
 * that needs range scaling is then refused, MIX_ERR_UNSUPPORTED, nothing written. */
typedef struct {
    int spd;
    char uplo;
    int *ipiv;
    int layout, n, nrhs;
    double *a;
    int lda;
    const double *b;
    int ldb;
    double *x;
    int ldx;
    double *f_out;
    int untimed; /* nobody reads info's t_factor, t_refine (a simple driver): no clock reads */
} mixi_dense_call;
/* The whole solve, p never NULL.  Returns 0, MIX_ERR_SINGULAR / MIX_ERR_NOT_SPD (*idx = LAPACK's
 * INFO > 0; the FP64 factors are in a, as dgetrf/dpotrf leave them), MIX_ERR_NAN (nothing
 * written) or another MIX_ERR_*; info is filled.  With iter < 0, a (a's uplo triangle) holds the
 * FP64 factors, as LAPACK's dsgesv/dsposv. */
int mixi_dense_run(mix_context *ctx, const mix_gesv_params *p, const mixi_dense_call *c,
                   mix_gesv_info *info, int *idx);

/* ---- The FP64 matrix of the dense flow, whole or one triangle (matrix.c) ---------------------- */
int mixi_matrix_norm_inf(mix_context *ctx, int n, const mixi_matrix *A, double *anrm);
int mixi_matrix_count_nonfinite(mix_context *ctx, int n, const mixi_matrix *A, size_t *bad);
/* dst (ld ldd) := A's stored part, transposed when trans (a general A only). */
int mixi_matrix_copy(mix_context *ctx, int n, const mixi_matrix *A, int trans, double *dst,
                     int ldd);
/* A's stored part, in a (ld lda), times 2^k exactly. */
int mixi_matrix_scale_pow2(mix_context *ctx, int n, const mixi_matrix *A, double *a, int k);
/* LAPACK's FP64 factorization of A's shape, dgetrf (ipiv: n, global 1-based) or dpotrf (its
 * triangle), in a (ld A->lda), its workspace, and the solve with the factors F (dgetrs, dpotrs). */
int mixi_matrix_factor_worksize(mix_context *ctx, int n, const mixi_matrix *A, size_t *bytes);
int mixi_matrix_factor(mix_context *ctx, int n, const mixi_matrix *A, double *a, int *ipiv,
                       void *work, int *info);
int mixi_matrix_factor_solve(mix_context *ctx, int n, const mixi_matrix *F, const int *ipiv,
                             int nrhs, double *x, int ldx);
/* The FP64 factors of 2^k A, in a (ld F->lda; transposed when trans), back to A's units. */
int mixi_matrix_factor_scale_pow2(mix_context *ctx, int n, const mixi_matrix *F, double *a,
                                  int trans, int k);
/* Backend allocation of rows * cols * size bytes (never 0 bytes: NULL always means failure). */
int mixi_balloc(mix_context *ctx, void **ptr, size_t rows, size_t cols, size_t size);

/* ---- Widened factors (widen.c) -------------------------------------------------------------- */
/* Both download everything before writing to out, so a failure leaves out untouched. */
/* out (host, n x n, ld ldout) := the factors lu (backend FP32, ipiv host 1-based) of s R A C
 * rewritten as P L U of A itself (r, c backend or NULL for no scaling). */
int mixi_lu_widen(mix_context *ctx, int n, const float *lu, int ldlu, const int *ipiv,
                  const double *r, const double *c, double s, double *out, int ldout);
/* The uplo triangle (MIXK_LOWER | MIXK_UPPER, diagonal included) of out (host, ld ldout) := the
 * lower Cholesky factor l (backend FP32) of s D A D rewritten as dpotrf's factor of A itself
 * (L, or U = L^T; d backend or NULL for no scaling, s an even power of two).  The other
 * triangle is not written. */
int mixi_chol_widen(mix_context *ctx, int n, const float *l, int ldl, const double *d, double s,
                    int uplo, double *out, int ldout);

/* ---- Range (range.c): systems near the edges of the FP64 range ------------------------------ */
/* Power-of-two exponents bringing the largest stored entry of A (anrm = ||A||inf; a symmetric A:
 * its triangle, by an even power) into [1, 2) (A symmetric: [1/2, 2)) when it lies outside
 * [2^-64, 2^64] (or ||A||inf overflowed), else *ka = 0; and each column of B by itself, likewise
 * (the right-hand sides of one call may differ in size by any factor): *kb = NULL when no column
 * needs it, else a host array of nrhs exponents (mixi_free). */
int mixi_range_exponents(mix_context *ctx, int n, int nrhs, const mixi_matrix *A, double anrm,
                         const double *b, int ldb, int *ka, int **kb);
/* Per column of B: the exponent bringing its largest entry into [1, 2) where it lies out of
 * range, else 0; *kb stays NULL when every column is in range (no copy of B, bits unchanged). */
int mixi_range_rhs_exponents(mix_context *ctx, int n, int nrhs, const double *b, int ldb,
                             int **kb);
/* The m x n column-major array times 2^k, exactly (any k a double's exponent allows). */
int mixi_scale_pow2_f64(mix_context *ctx, int m, int n, double *a, int lda, int k);
/* Column j of the m x n column-major array times 2^(sign k[j]), exactly. */
int mixi_scale_cols_pow2_f64(mix_context *ctx, int m, int n, double *a, int lda, const int *k,
                             int sign);
/* The upper triangle (U of an LU, diagonal included) times 2^k, in either layout. */
int mixi_scale_upper_pow2_f64(mix_context *ctx, int rowmajor, int n, double *a, int lda, int k);
/* The lower triangle (diagonal included, column-major) times 2^k. */
int mixi_scale_lower_pow2_f64(mix_context *ctx, int n, double *a, int lda, int k);
/* After a solve of (2^ka A) y_j = 2^kb[j] b_j (As, bs: the scaled copies, anrm_s = ||As||inf; x
 * holds y; kb NULL: all 0), or of the equilibrated R A C y_j = 2^kb[j] R b_j (c not NULL, ka 0):
 * x_j = 2^(ka - kb[j]) C y_j in place, then the x returned is re-measured, column by column.  MIX_ERR_OVERFLOW when x does not fit FP64;
 * MIX_ERR_NOT_CONVERGED when underflow in a column of x raised its backward error above both
 * what the solve left it and target; *berr updated. */
int mixi_range_finish(mix_context *ctx, int n, int nrhs, const mixi_matrix *As, double anrm_s,
                      const double *bs, int ldb, double *x, int ldx, int ka, const int *kb,
                      const double *c, double target, double *berr);

/* ---- Equilibration (equilibrate.c): entries spanning more than one power of two can hold ---- */
/* When the range scaling 2^ka (ka != 0) would leave A's smallest nonzero entries below 2^-900:
 * a (ld n, A's working copy, A its shape) := R A C with powers of two, dgeequb's (LU) or
 * dpoequb's (symmetric: R = C = D from the diagonal; a matrix not SPD on its face keeps 2^ka),
 * b (ld n) := R b and *kb recomputed from it, *ka := 0; *r, *c: host arrays of n (mixi_free),
 * NULL when A keeps its one power of two.  Through host copies: O(n^2), only at the edges. */
int mixi_range_equilibrate(mix_context *ctx, int n, int nrhs, const mixi_matrix *A, double *a,
                           double *b, int *ka, int **kb, double **r, double **c);
/* The n x k backend array (ld ld) with rows times r[i] and columns times c[j] (c NULL: 1), or
 * divided by them (inverse), through a host copy. */
int mixi_scale_rows_cols_f64(mix_context *ctx, int n, int k, double *a, int ld, const double *r,
                             const double *c, int inverse);
/* The FP64 factors in a (F: their shape, ld F->lda; transposed when trans) of R A C (LU, ipiv:
 * host, 1-based) or D A D (Cholesky, r = d) rewritten as factors of A with the same pivots. */
int mixi_unequilibrate_factors(mix_context *ctx, int n, const mixi_matrix *F, double *a,
                               int trans, const int *ipiv, const double *r, const double *c);

#endif
