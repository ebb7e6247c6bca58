/* mixsolve.h: the one public header of libmixsolve, mixed-precision linear solvers. */
#ifndef MIXSOLVE_H
#define MIXSOLVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MIX_ROW_MAJOR 101 /* same values as LAPACKE */
#define MIX_COL_MAJOR 102

/* Precisions.  Low-precision dense factors are stored in FP32; only the rounding of the GEMM
 * inputs differs (Tensor Core semantics: exact products, FP32 accumulation). */
typedef enum {
    MIX_FP64,
    MIX_FP32,
    MIX_TF32,
    MIX_FP16,
    MIX_BF16,
    MIX_FIXED16,
    /* New formats are numbered from here on; AUTO stays apart so that adding one never moves it. */
    MIX_PREC_AUTO = 256
} mix_prec;
#define MIX_NUM_PREC 6 /* the formats MIX_FP64 .. MIX_FIXED16, numbered from 0 */
#define MIX_CAPS_PREC_SLOTS 32 /* room in mix_caps for formats added later (same ABI) */

/* MIX_REFINE_CG: CG-IR, for the SPD drivers (mix_dposv_ir) only. */
typedef enum { MIX_REFINE_CLASSICAL, MIX_REFINE_GMRES, MIX_REFINE_AUTO, MIX_REFINE_CG } mix_refine;
typedef enum { MIX_BACKEND_AUTO, MIX_BACKEND_CPU, MIX_BACKEND_CUDA } mix_backend;
#define MIX_NUM_BACKENDS 3

/* Status codes: 0 on success, positive on failure; mix_strerror gives one sentence each. */
enum {
    MIX_SUCCESS = 0,
    MIX_ERR_INVALID_ARG,     /* an argument is illegal */
    MIX_ERR_ALLOC,           /* host or device memory could not be allocated */
    MIX_ERR_BACKEND,         /* the backend is not compiled in or no device answers */
    MIX_ERR_SINGULAR,        /* the matrix is exactly singular */
    MIX_ERR_NOT_SPD,         /* the matrix is not symmetric positive definite */
    MIX_ERR_NAN,             /* NaN or Inf in the input or appearing in the computation */
    MIX_ERR_NOT_CONVERGED,   /* the iteration did not reach the tolerance */
    MIX_ERR_IO,              /* a file could not be opened, read or written */
    MIX_ERR_PARSE,           /* a file is malformed */
    MIX_ERR_NOT_IMPLEMENTED, /* the operation is not available in this build */
    MIX_ERR_OVERFLOW,        /* a value does not fit the requested precision */
    MIX_ERR_UNSUPPORTED,     /* the backend does not support this precision or operation */
    MIX_ERR_INTERNAL,        /* a library or device call failed unexpectedly */
    MIX_ERR_NOT_SYMMETRIC,   /* a distributed matrix's structure is not symmetric */
    MIX_ERR_COMM,            /* an MPI call failed (libmixsolve_mpi) */
    MIX_ERR_COUNT_           /* number of codes, not a status */
};

/* Why the expert dense driver left the low-precision path (mix_gesv_info.reason). */
typedef enum {
    MIX_REASON_NONE = 0,          /* refined in low precision, no fallback */
    MIX_REASON_DIRECT,            /* FP64 chosen directly (small n or FP64 asked for); iter -1 */
    MIX_REASON_OVERFLOW,          /* overflow converting to the low precision; iter -2 */
    MIX_REASON_FACTOR_FAILED,     /* low-precision LU failed (zero pivot, NaN); iter -3 */
    MIX_REASON_NOT_CONVERGED,     /* refinement did not converge; iter -(max_iter+1) */
    MIX_REASON_NAN_IN_REFINEMENT, /* NaN/Inf appeared during refinement; iter -(max_iter+1) */
    MIX_REASON_TOO_SLOW           /* refinement predicted to cost more than the FP64 solve left
                                     to do: stopped early; iter -(max_iter+1) */
} mix_fallback_reason;

/* Why CG stopped (mix_cg_info.reason). */
typedef enum {
    MIX_CG_CONVERGED = 0,         /* true FP64 residual below tol */
    MIX_CG_MAX_ITER,              /* iteration limit reached */
    MIX_CG_STAGNATED,             /* the precision's floor: true residual kept rising, or FP64's
                                   * stopped improving there (tol below its reach) */
    MIX_CG_BREAKDOWN_NOT_SPD,     /* p'Ap <= 0 */
    MIX_CG_BREAKDOWN_NAN,         /* NaN/Inf appeared */
    MIX_CG_ZERO_RHS,              /* b = 0, x = 0 returned */
    MIX_CG_OUT_OF_RANGE,          /* the solution over- or underflows FP64 (see mix_dcg(3)) */
    MIX_CG_STORAGE_OVERFLOW       /* A does not fit the storage precision (a stage's reason) */
} mix_cg_reason;

#define MIX_PRECOND_NONE 0
#define MIX_PRECOND_JACOBI 1
#define MIX_PRECOND_AMG 2  /* smoothed-aggregation AMG, one V-cycle per CG iteration; built in FP64
                            * at the first solve on A and cached on the mix_sparse (info.t_setup
                            * counts it); every level stored in the storage precision; the outer
                            * CG keeps FP64 true residuals (mix_dcg(3)) */

typedef struct mix_context mix_context;

int mix_context_create(mix_context **ctx, mix_backend backend); /* 0 or a MIX_ERR_* status */
void mix_context_destroy(mix_context *ctx);
mix_backend mix_context_backend(const mix_context *ctx); /* the backend actually in use */
const char *mix_strerror(int status);
const char *mix_version(void);
const char *mix_prec_name(mix_prec p);       /* "fp64", "fp32", ... ; "?" if out of range */
const char *mix_backend_name(mix_backend b); /* "auto", "cpu", "cuda"; "?" if unknown */
/* The backends this library knows, compiled or not (mix_backend_caps tells), in the order
 * MIX_BACKEND_AUTO tries them: writes up to `max` into `list` and returns how many there are. */
int mix_backend_list(mix_backend *list, int max);
/* What a precision serves as (mix_prec_list). */
typedef enum {
    MIX_ROLE_ALL = 0,    /* every precision of this library */
    MIX_ROLE_FACTOR = 1, /* dense factor precisions (mix_gesv_params.factor_prec), MIX_FP64 included */
    MIX_ROLE_STORAGE = 2 /* CG storage precisions (mix_cg_params.sloppy_prec), MIX_FP64 included */
} mix_prec_role;
/* The precisions of `role` in mix_prec order (MIX_PREC_AUTO is none of them): writes up to `max`
 * into `list` (which may be NULL) and returns how many there are; -1 for an unknown role. */
int mix_prec_list(mix_prec_role role, mix_prec *list, int max);

/* What a backend offers.  For each precision: 0 unsupported, 1 emulated, 2 native. */
typedef enum { MIX_PREC_UNSUPPORTED = 0, MIX_PREC_EMULATED = 1, MIX_PREC_NATIVE = 2 } mix_prec_support;
typedef struct {
    int compiled;                       /* built into this library */
    int available;                      /* answers at run time (a device exists) */
    mix_prec_support gemm[MIX_CAPS_PREC_SLOTS];    /* dense trailing update compute precision */
    mix_prec_support storage[MIX_CAPS_PREC_SLOTS]; /* sparse storage precision for CG */
    char device[128];                   /* CPU model or GPU name */
    char libraries[128];                /* BLAS / oneDNN / cuBLAS in use */
} mix_caps;
int mix_backend_caps(mix_backend backend, mix_caps *caps);

/* Simple drivers: the arguments and return value of LAPACKE_dsgesv, the factor precision in the
 * name (s = FP32, x = TF32, h = FP16, b = BF16).  They use a default context (backend from the
 * environment variable MIXSOLVE_BACKEND = cpu | cuda | auto, default auto).
 * Return: 0; -i if argument i is illegal (layout is argument 1); i > 0 if U(i,i) is exactly zero
 * in the FP64 fallback.  *iter as LAPACK dsgesv: >= 0 refinement iterations used, A unchanged;
 * < 0 the FP64 path was taken and A holds its LU factors: -1 chosen directly, -2 overflow when
 * converting to the low precision, -3 the low-precision factorization failed, -(max_iter+1) the
 * refinement did not converge.  NaN or Inf in A or B: return n + 1 (documented in mix_dsgesv(3)),
 * nothing written. */
int mix_dsgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
               double *x, int ldx, int *iter);
int mix_dxgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
               double *x, int ldx, int *iter);
int mix_dhgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
               double *x, int ldx, int *iter);
int mix_dbgesv(int layout, int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
               double *x, int ldx, int *iter);

/* Expert dense driver. */
typedef struct {
    mix_prec factor_prec;  /* MIX_FP32 | MIX_TF32 | MIX_FP16 | MIX_BF16 | MIX_PREC_AUTO (| MIX_FP64) */
    mix_refine refine;     /* default MIX_REFINE_AUTO: classical, GMRES-IR when it stalls */
    double tol;            /* 0 = LAPACK's test: ||r|| <= ||x|| ||A|| eps sqrt(n), per column */
    int max_iter;          /* default 30 outer iterations */
    int gmres_restart;     /* inner Krylov dimension, default 30 */
    int fallback;          /* default 1: FP64 LU when the low-precision path fails */
    int scale;             /* default 1: equilibrate/scale before FP16 */
    double *residual_history; /* optional, caller-owned: backward error after each outer iteration */
    int history_capacity;     /* entries available in residual_history (0 = none kept) */
    int cost_fallback;     /* default 1: stop refining as soon as an FP64 solve from scratch is
                              predicted to finish sooner (MIX_REASON_TOO_SLOW); 0: refine until
                              converged, stalled or max_iter */
} mix_gesv_params;
typedef struct {
    int status, iter, inner_iter, fell_back, reason; /* reason: a mix_fallback_reason */
    mix_prec factor_prec_used;
    double backward_error; /* max over columns of ||b - A x||inf / (||A||inf ||x||inf + ||b||inf) */
    double t_factor, t_refine; /* seconds */
    int history_length;        /* entries written to params->residual_history */
} mix_gesv_info;
void mix_gesv_params_init(mix_gesv_params *p);
int mix_dgesv_ir(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs, double *a,
                 int lda, int *ipiv, const double *b, int ldb, double *x, int ldx,
                 mix_gesv_info *info);
/* The same with a, b, x in device memory (CUDA context); ipiv on the host. */
int mix_dgesv_ir_gpu(mix_context *ctx, const mix_gesv_params *p, int layout, int n, int nrhs,
                     double *d_a, int lda, int *ipiv, const double *d_b, int ldb, double *d_x,
                     int ldx, mix_gesv_info *info);
/* The factor precision MIX_PREC_AUTO would take on ctx for an n x n system with nrhs right-hand
 * sides (MIX_FP64: no low precision is predicted to pay).  0, or -i if argument i is illegal. */
int mix_gesv_auto_prec(mix_context *ctx, int n, int nrhs, mix_prec *prec);

/* Dense symmetric positive definite systems: low-precision Cholesky plus refinement (classical,
 * GMRES-IR or CG-IR).  Simple drivers with the arguments and return values of LAPACKE_dsposv
 * (s = FP32, x = TF32, h = FP16, b = BF16 factor precision; default context as mix_d?gesv).  A
 * is read from its `uplo` ('L' or 'U') triangle only.  Return: 0; -i if argument i is illegal
 * (layout is argument 1), nothing written; i > 0 if the leading minor of order i of A is not
 * positive definite in FP64 (A holds the partial factor, as dposv); n + 1 if A or B holds NaN or
 * Inf (nothing written).  *iter as LAPACK dsposv: >= 0 refinement iterations used, A unchanged;
 * < 0 the FP64 Cholesky was used and A's uplo triangle holds its factor: -1 chosen directly, -2
 * overflow converting to the low precision, -3 the low-precision Cholesky failed (not positive
 * definite in that precision), -(max_iter+1) the refinement did not converge (or stopped when
 * predicted to cost more than FP64). */
int mix_dsposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,
               double *x, int ldx, int *iter);
int mix_dxposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,
               double *x, int ldx, int *iter);
int mix_dhposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,
               double *x, int ldx, int *iter);
int mix_dbposv(int layout, char uplo, int n, int nrhs, double *a, int lda, double *b, int ldb,
               double *x, int ldx, int *iter);
/* Expert SPD driver: the parameters and report of mix_dgesv_ir (refine may also be
 * MIX_REFINE_CG; MIX_REFINE_AUTO moves stalled columns to CG-IR).  Returns 0, -i for an illegal
 * argument i (ctx is 1, params 2), or a MIX_ERR_* status: MIX_ERR_NOT_SPD when A is not positive
 * definite in FP64, MIX_ERR_NAN for NaN/Inf in A or B. */
int mix_dposv_ir(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                 int nrhs, double *a, int lda, const double *b, int ldb, double *x, int ldx,
                 mix_gesv_info *info);
/* The same with a, b, x in device memory (CUDA context). */
int mix_dposv_ir_gpu(mix_context *ctx, const mix_gesv_params *p, int layout, char uplo, int n,
                     int nrhs, double *d_a, int lda, const double *d_b, int ldb, double *d_x,
                     int ldx, mix_gesv_info *info);

/* Sparse SPD: reliable-update mixed-precision CG. */
typedef struct mix_sparse mix_sparse; /* owns copies; caches the sloppy-precision conversion */
int mix_sparse_create_csr(mix_context *ctx, int n, const int64_t *rowptr, const int32_t *colind,
                          const double *val, mix_sparse **A);
void mix_sparse_destroy(mix_sparse *A);
typedef struct {
    mix_prec sloppy_prec; /* MIX_FP64 | MIX_FP32 | MIX_FP16 | MIX_BF16 | MIX_FIXED16 (default) |
                           * MIX_PREC_AUTO (the cheapest storage the matrix allows) */
    double tol;           /* on the true FP64 residual: ||b - A x||2 <= tol ||b||2, default 1e-10 */
    int max_iter;         /* default 10 n, at least 1000 */
    double delta;         /* reliable-update threshold, default 0.1 */
    int precond;          /* MIX_PRECOND_NONE | MIX_PRECOND_JACOBI | MIX_PRECOND_AMG */
    int x0_given;         /* 0: start from x = 0 */
    int escalate;         /* 1 (default): when the storage precision stagnates (or A does not fit
                           * it), go on from the best x in the next wider one: FIXED16 / FP16 /
                           * BF16 -> FP32 -> FP64; 0: stop there with MIX_ERR_NOT_CONVERGED */
    int narrow_vectors;   /* 0 (default): over a 16-bit matrix the sloppy vectors are FP32 and
                           * each row's sum is accumulated in FP64, for FP64 CG's iteration count
                           * (within ~8%); 1: the vectors in the 16-bit storage too (QUDA's half
                           * precision: fewer bytes per iteration, more iterations) */
} mix_cg_params;
#define MIX_CG_MAX_STAGES 3 /* a 16-bit storage, FP32, FP64 */
typedef struct {
    int status, iter, reliable_updates, converged, reason; /* reason: a mix_cg_reason */
    double true_rel_residual, t_setup, t_solve;           /* iter, times: all stages */
    int stages;                            /* storage precisions that ran, in order (0: none) */
    mix_prec stage_prec[MIX_CG_MAX_STAGES]; /* the storage precision of each */
    int stage_iter[MIX_CG_MAX_STAGES];      /* its iterations */
    int stage_reason[MIX_CG_MAX_STAGES];    /* why it stopped: a mix_cg_reason */
    double kappa; /* estimated condition number of the (Jacobi-scaled) matrix CG iterated on,
                   * from CG's Lanczos coefficients (a lower bound); 0 when too few iterations
                   * or under MIX_PRECOND_AMG (not estimated) */
} mix_cg_info;
void mix_cg_params_init(mix_cg_params *p);
int mix_dcg(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const double *b, double *x,
            mix_cg_info *info);
/* General sparse systems (any square A made by mix_sparse_create_csr): sparse LU with factors
 * in p->factor_prec (MIX_FP32 | MIX_FP64 | MIX_PREC_AUTO; NULL p: mix_gesv_params_init's) by the
 * backend's sparse direct library (MUMPS on the CPU), the analysis done once for both
 * precisions; FP64 refinement (classical or GMRES-IR, p->refine; LAPACK's per-column test) and
 * the FP64 factorization as the fallback.  b, x column-major n x nrhs.  Returns 0, -i for an
 * illegal argument i, MIX_ERR_SINGULAR (structurally or numerically singular A), MIX_ERR_NAN
 * (NaN/Inf in b; nothing written), MIX_ERR_UNSUPPORTED (no sparse direct library on ctx's
 * backend), ...; info (may be NULL) as mix_dgesv_ir's (mix_dgesv_sparse(3)). */
int mix_dgesv_sparse(mix_context *ctx, const mix_gesv_params *p, mix_sparse *A, int nrhs,
                     const double *b, int ldb, double *x, int ldx, mix_gesv_info *info);
/* Analyses and factors A in prec (MIX_FP32 or MIX_FP64) only to measure it: *factor_bytes held
 * by the factors, *peak_bytes the library's peak while factoring.  0, -i, MIX_ERR_SINGULAR,
 * MIX_ERR_OVERFLOW (A does not fit FP32), MIX_ERR_ALLOC, MIX_ERR_UNSUPPORTED. */
int mix_sparse_lu_memory(mix_context *ctx, mix_sparse *A, mix_prec prec, int64_t *factor_bytes,
                         int64_t *peak_bytes);
/* The SpMV body the backend's tuner chose for A's sloppy copy in `storage` (Jacobi-scaled when
 * jacobi != 0), e.g. "avx512-gather"; "tuning" while its first SpMVs time the candidates; NULL
 * when A has no such copy (no solve used it yet) or the backend has no tuner (mix_dcg(3)). */
const char *mix_sparse_spmv_variant(const mix_sparse *A, mix_prec storage, int jacobi);
/* The same with b and x in device memory (CUDA context). */
int mix_dcg_gpu(mix_context *ctx, const mix_cg_params *p, mix_sparse *A, const double *d_b,
                double *d_x, mix_cg_info *info);

#ifdef __cplusplus
}
#endif
#endif /* MIXSOLVE_H */
