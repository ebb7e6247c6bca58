/* backend_sparse_lu.h: the sparse direct family (analysis once, LU factors in FP32 or FP64, solves). */
#ifndef MIX_BACKEND_SPARSE_LU_H
#define MIX_BACKEND_SPARSE_LU_H

#include <stdint.h>
#include "kernels/backend.h"
#include "kernels/backend_sparse.h"

/* One general sparse matrix prepared for direct solution: the backend's sparse direct library's
 * analysis (fill-reducing ordering, symbolic factorization) of an FP64 matrix of the sparse
 * family (mixi_sparse_ops.csr_create), made once, and the numerical factors of the precisions
 * factored so far.  Opaque to solvers; each backend defines it. */
typedef struct mixi_splu mixi_splu;

/* What a factorization reported (mixi_sparse_lu_ops.factor). */
typedef enum {
    MIXI_SPLU_OK = 0,
    MIXI_SPLU_SINGULAR,  /* a pivot was zero or too small to be used in that precision */
    MIXI_SPLU_OVERFLOW,  /* a value of A does not fit the precision */
    MIXI_SPLU_NONFINITE  /* NaN/Inf appeared in the factors */
} mixi_splu_outcome;

/* What the analysis predicts for the factorization in one precision (mixi_sparse_lu_ops.estimate). */
typedef struct {
    double flops;        /* operations of the factorization; 0 when nothing could be predicted */
    double entries;      /* entries of the factors */
    double bytes;        /* memory the factorization will hold (in core) */
    int ordering;        /* the library's code of the ordering used (MUMPS: ICNTL(7)'s values) */
    int column_permuted; /* the factors are of A Q (a maximum transversal) */
} mixi_splu_estimate;

/* Every operation returns 0 or a MIX_ERR_* status (MIX_ERR_ALLOC when the library ran out of
 * memory); vectors are backend memory, FP64, column-major blocks. */
struct mixi_sparse_lu_ops {
    /* The analysis of A64 (an FP64 matrix of this backend's sparse family), done once for both
     * precisions.  *structural_rank < n means A is structurally singular (then nothing more
     * can be done with *F but destroy it).  The backend may hold A 2^-exponent instead of A (a
     * power of two that brings entries near FP64's ends into range; 0 otherwise): factor, solve
     * and apply are then those of A 2^-exponent, and *anrm = its ||.||inf. */
    int (*analyze)(void *state, const mixi_spmat *A64, mixi_splu **F, int *structural_rank,
                   double *anrm, int *exponent);
    /* The analysis of A for `prec` (MIX_FP32 or MIX_FP64), made here if no factorization made it
     * yet, and its predictions, without factoring.  e all 0 where `prec` cannot hold A or A is
     * structurally singular (the factorization then says which).  MIX_PREC_AUTO: FP64's
     * predictions from an analysis whose ordering is chosen for FP32 factors (AUTO's choice on
     * the large problems where the ordering's own cost matters). */
    int (*estimate)(void *state, mixi_splu *F, mix_prec prec, mixi_splu_estimate *e);
    /* Numerical LU of A in `prec` (MIX_FP32 or MIX_FP64), reusing the analysis; the factors
     * of another precision are kept.  *outcome says whether the factors can be used. */
    int (*factor)(void *state, mixi_splu *F, mix_prec prec, mixi_splu_outcome *outcome);
    /* c := (LU)^{-1} r with the factors of `prec` for n x k blocks (c == r allowed); FP32
     * factors see r rounded to FP32 and give back their solution widened to FP64. */
    int (*solve)(void *state, mixi_splu *F, mix_prec prec, int k, const double *r, int ldr,
                 double *c, int ldc);
    /* Y := alpha A X + beta Y with A in FP64 (the refinement's residuals), n x k blocks. */
    int (*apply)(void *state, const mixi_splu *F, int k, double alpha, const double *x, int ldx,
                 double beta, double *y, int ldy);
    /* Bytes held by the factors of `prec` (values and the library's integer indices) and the
     * library's peak memory while factoring them; 0 when that precision is not factored. */
    int (*factor_bytes)(void *state, const mixi_splu *F, mix_prec prec, int64_t *factors,
                        int64_t *peak);
    void (*destroy)(void *state, mixi_splu *F); /* NULL allowed */
    const char *library;                         /* e.g. "MUMPS 5.5.1 (sequential)" */
};

#endif
