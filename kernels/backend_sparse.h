/* backend_sparse.h: the sparse family of the operations table (reliable-update CG needs only these). */
#ifndef MIX_BACKEND_SPARSE_H
#define MIX_BACKEND_SPARSE_H

#include "kernels/backend.h"

struct mix_sparse_ops {
    int unused_; /* replaced by the CG solver's operations */
};

extern const mix_sparse_ops mixi_cpu_sparse_ops;
extern const mix_sparse_ops mixi_cuda_sparse_ops;

#endif
