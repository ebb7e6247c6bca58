/* sparse_lu.h: the general sparse family: sparse LU in FP32 or FP64 by the backend's direct library, FP64 refinement. */
#ifndef MIX_SPARSE_LU_H
#define MIX_SPARSE_LU_H

#include "solvers/dense/dense.h"
#include "solvers/cg/cg.h"
#include "kernels/backend_sparse_lu.h"

/* Below this order MIX_PREC_AUTO factors in FP64 directly: the factorization is then too cheap
 * for FP32's saving to pay for a refinement step (doc/benchmarks.md, "Sparse LU-IR"). */
#define MIXI_SPLU_AUTO_MIN_N 20000

/* The factor precision MIX_PREC_AUTO takes for A (MIX_FP32 or MIX_FP64). */
mix_prec mixi_sparse_lu_auto_choice(const mix_sparse *A);

/* The whole solve of A X = B, arguments checked by lib/ (p complete, b and x host = backend
 * memory, n x nrhs column-major).  Returns 0, MIX_ERR_SINGULAR (structurally or numerically
 * singular in FP64), MIX_ERR_NAN (NaN/Inf in B; nothing written), MIX_ERR_UNSUPPORTED (the
 * backend has no sparse direct library) or another MIX_ERR_*; info filled. */
int mixi_sparse_lu_run(mix_context *ctx, const mix_gesv_params *p, mix_sparse *A, int nrhs,
                       const double *b, int ldb, double *x, int ldx, mix_gesv_info *info);

/* Analysis and factorization of A in prec (MIX_FP32 or MIX_FP64) only, for their memory:
 * *factors bytes of factors, *peak the library's peak while factoring.  MIX_ERR_SINGULAR,
 * MIX_ERR_OVERFLOW (A does not fit prec), MIX_ERR_UNSUPPORTED as above. */
int mixi_sparse_lu_memory(mix_context *ctx, mix_sparse *A, mix_prec prec, int64_t *factors,
                          int64_t *peak);

#endif
