/* dense_flow.h: the factorization operations the dense flow (dense_flow.c) runs LU and Cholesky through. */
#ifndef MIX_DENSE_FLOW_H
#define MIX_DENSE_FLOW_H

#include "solvers/dense/dense.h"

typedef struct mixi_factorization mixi_factorization;

/* One call as the flow works on it: backend arrays, column-major (working copies where the
 * caller's layout or range scaling asks for them). */
typedef struct {
    mix_context *ctx;
    const mixi_factorization *F;
    const mix_gesv_params *p;
    int n, nrhs, rowmajor;
    mixi_matrix A;          /* the matrix solved with (a symmetric one: its uplo triangle) */
    const double *b;        /* ld ldb */
    int ldb;
    double *x;              /* ld ldx */
    int ldx;
    double anrm;            /* ||A||inf */
    double *f_out;          /* host, ld ld_f_out: widened low-precision factors, or NULL */
    int ld_f_out;
    double *home;           /* where the FP64 factors go (ld ldhome; transposed when trans) */
    int ldhome, trans;
    int ka;                 /* range scaling: A times 2^ka, column j of B times 2^kb[j] */
    int *kb;                /* (host, nrhs; NULL: all 0; solvers/dense/dense_range.c) */
    double *eq_r, *eq_c;    /* or A equilibrated, R A C (host, n each; NULL: not) */
    mixi_matrix As;         /* the scaled A the x returned is re-checked against */
    double *a_w, *b_w, *x_w, *a_f; /* working copies owned by the flow (or NULL) */
    double t0;              /* wall clock when the call began: the passes before the
                               factorization count against the worst-case bound */
    int timed;              /* info's t_factor and t_refine are read: measure them */
    int budgeted;           /* the worst-case bound's budgets apply (they read the clock) */
} mixi_dense_problem;

/* The low-precision attempt's state: workspace the flow allocates (f, swork) and the family's. */
typedef struct {
    mix_context *ctx;
    const mix_gesv_params *p;
    mix_prec prec;
    int n, nrhs, nb;
    float *f;                 /* backend, n x n: the low-precision factors */
    float *swork;             /* backend, n x nrhs: the preconditioner's */
    double *res;              /* backend, n x nrhs: residuals */
    int use_gmres, use_cg;    /* the Krylov inner solver, with its workspace */
    mixi_gmres_ws gm;
    mixi_pcg_ws cg;
    int *ipiv;                /* LU: backend pivots */
    void *gwork, *pwork;      /* trailing-update and panel workspace */
    double *r, *c;            /* scaling vectors (Cholesky: r only), or NULL */
    double *host;             /* host scratch, n doubles, or NULL */
    double s;                 /* scalar scaling */
    int shifted;              /* Cholesky: the factors are of a diagonally shifted matrix */
    double t0, t_floor;       /* start, and the low-precision factorization's own seconds
                                 (without the conversion: the measure of the machine's pace;
                                 measured where the problem is budgeted) */
    const mixi_precond *M;    /* set by lowprec_factor on success */
    mixi_factor_precond precond;
} mixi_lowprec;

struct mixi_factorization {
    int sym;                /* A read from one triangle */
    int err_factor;         /* the FP64 factorization failed: MIX_ERR_SINGULAR, MIX_ERR_NOT_SPD */
    int fp64_nan_fails;     /* NaN/Inf in x after the FP64 solve is MIX_ERR_NAN (LU: reciprocals
                               of subnormal pivots), x counted when chosen directly */
    int range_second_copy;  /* a scaled system is factored in place on a second copy, the
                               factor then copied to the caller's triangle */
    int (*supported)(const mixi_dense_ops *d);
    mix_prec (*auto_choice)(mix_context *ctx, int n, int nrhs, int commit);
    double (*fp64_flops)(int n, int nrhs);
    /* Allocates the family's workspace, then scales, converts and factors P->A into L->f and sets
     * L->M, L->t_floor.  *reason: MIX_REASON_OVERFLOW or MIX_REASON_FACTOR_FAILED when it cannot
     * be used; the return value is for backend and allocation failures. */
    int (*lowprec_factor)(mixi_lowprec *L, const mixi_dense_problem *P, int *reason);
    /* After converged refinement, or NULL: *reason = MIX_REASON_FACTOR_FAILED when the answer
     * cannot be trusted and FP64 must decide (a shifted Cholesky may hide that A is not positive
     * definite in FP64). */
    int (*certify)(mixi_lowprec *L, const mixi_dense_problem *P, int *reason);
    /* After converged refinement: pivots to ipiv (host) and the widened factors to P->f_out. */
    int (*lowprec_finish)(mixi_lowprec *L, const mixi_dense_problem *P, int *ipiv);
};

extern const mixi_factorization mixi_lu_factorization;   /* lu_factor.c */
extern const mixi_factorization mixi_chol_factorization; /* chol_factor.c */

/* A small system FP64 solves in place (dense_small.c): mixi_dense_run's result and info, or
 * MIXI_DENSE_NOT_SMALL (statuses are >= 0) with nothing written, for the general flow. */
#define MIXI_DENSE_NOT_SMALL (-1)
int mixi_dense_small(mix_context *ctx, const mix_gesv_params *p, const mixi_dense_call *c,
                     const mixi_factorization *F, mix_gesv_info *info, int *idx);


#endif
