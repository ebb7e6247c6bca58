/* sparse_lu_internal.h: the pieces of the sparse LU flow (sparse_lu.c) and its refinement (sparse_lu_refine.c). */
#ifndef MIX_SPARSE_LU_INTERNAL_H
#define MIX_SPARSE_LU_INTERNAL_H

#include "solvers/sparse_lu/sparse_lu.h"

/* One call of mix_dgesv_sparse. */
typedef struct {
    mixi_operator op; /* A's FP64 product for refine.c: first member */
    mix_context *ctx;
    const mix_gesv_params *p;
    const mixi_sparse_lu_ops *ops;
    mixi_splu *F;     /* analysis and factors */
    int n, nrhs;
    const double *b;
    int ldb;
    double *x;
    int ldx;
    double anrm;      /* ||A||inf */
} mixi_splu_problem;

/* x = (LU)^{-1} b with the factors of prec, then FP64 refinement (refine.c's, A as an operator,
 * M the factors of prec) in `mode` with at most max_iter corrections and a budget of budget_s
 * seconds (0: none).  Returns a MIX_ERR_* status for backend or allocation failures only. */
int mixi_splu_refine(mixi_splu_problem *P, mix_prec prec, mix_refine mode, int max_iter,
                     double budget_s, mixi_refine_result *res);

#endif
