/* sparse_lu.h: the general sparse family: sparse LU in FP32 or FP64 by the backend's direct library, FP64 refinement. */
#ifndef MIX_SPARSE_LU_H
#define MIX_SPARSE_LU_H

#include "solvers/dense/dense.h"
#include "solvers/cg/cg.h"
#include "kernels/backend_sparse_lu.h"

/* The factor precision MIX_PREC_AUTO takes (MIX_FP32 or MIX_FP64) for a system of nrhs columns
 * whose analysis predicts e (sparse_lu_policy.c): FP32 where the FP32 factorization's predicted
 * saving (e->flops at the FP64 GEMM rate fp64_gflops, FP32 a fixed factor faster) outweighs the
 * refinement's extra solves (e->entries) with a margin; FP64 where e predicts nothing. */
mix_prec mixi_sparse_lu_auto_decide(double fp64_gflops, const mixi_splu_estimate *e, int nrhs);
/* The same at ctx's backend's calibrated DGEMM rate (FP64 where it has none). */
mix_prec mixi_sparse_lu_auto_choice(mix_context *ctx, const mixi_splu_estimate *e, int nrhs);

/* The whole solve of A X = B, arguments checked by lib/ (p complete, b and x host = backend
 * memory, n x nrhs column-major).  Returns 0, MIX_ERR_SINGULAR (structurally or numerically
 * singular in FP64), MIX_ERR_NAN (NaN/Inf in B; nothing written), MIX_ERR_OVERFLOW or
 * MIX_ERR_NOT_CONVERGED (a solution beyond FP64's range, written; sparse_lu_range.c),
 * MIX_ERR_UNSUPPORTED (the backend has no sparse direct library) or another MIX_ERR_*; info
 * filled. */
int mixi_sparse_lu_run(mix_context *ctx, const mix_gesv_params *p, mix_sparse *A, int nrhs,
                       const double *b, int ldb, double *x, int ldx, mix_gesv_info *info);

/* Analysis and factorization of A in prec (MIX_FP32 or MIX_FP64) only, for their memory:
 * *factors bytes of factors, *peak the library's peak while factoring.  MIX_ERR_SINGULAR,
 * MIX_ERR_OVERFLOW (A does not fit prec), MIX_ERR_UNSUPPORTED as above. */
int mixi_sparse_lu_memory(mix_context *ctx, mix_sparse *A, mix_prec prec, int64_t *factors,
                          int64_t *peak);

#endif
