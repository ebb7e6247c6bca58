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
    double anrm;      /* ||A 2^-exponent||inf */
    int exponent;     /* the backend holds A 2^-exponent (analyze) */
} mixi_splu_problem;

/* x = (LU)^{-1} b with the factors of prec, then FP64 refinement (refine.c's, A as an operator,
 * M the factors of prec) in `mode` with at most max_iter corrections and a budget of budget_s
 * seconds (0: none).  Returns a MIX_ERR_* status for backend or allocation failures only. */
int mixi_splu_refine(mixi_splu_problem *P, mix_prec prec, mix_refine mode, int max_iter,
                     double budget_s, mixi_refine_result *res);

/* The range of the system solved (sparse_lu_range.c): the backend holds A 2^-exponent, and
 * column j of B is solved as B 2^-s[j] (bs, n x nrhs; NULL when every s is 0) where its
 * solution would lie far from 1; that solution is scaled back by 2^t[j], t = s - exponent. */
typedef struct {
    int *s, *t;
    double *bs;
    int rescale; /* some t[j] != 0 */
} mixi_splu_range;

/* s, t and bs for P's B (P->anrm and P->exponent known); P->b and P->ldb then point at bs. */
int mixi_splu_range_begin(mixi_splu_problem *P, mixi_splu_range *R);
/* After a solve that wrote X (a success, or MIX_ERR_NOT_CONVERGED's last iterate): X scaled
 * back, and MIX_ERR_OVERFLOW (a solution beyond FP64) or MIX_ERR_NOT_CONVERGED (one whose
 * entries underflowed and lost the digits the stopping test needs), else 0;
 * info->backward_error covers the columns scaled back. */
int mixi_splu_range_finish(mixi_splu_problem *P, const mixi_splu_range *R, mix_gesv_info *info);
void mixi_splu_range_free(mix_context *ctx, mixi_splu_range *R);

#endif
