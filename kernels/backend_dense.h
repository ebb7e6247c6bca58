/* backend_dense.h: the dense family of the operations table (LU-IR and GMRES-IR need only these). */
#ifndef MIX_BACKEND_DENSE_H
#define MIX_BACKEND_DENSE_H

#include "kernels/backend.h"

struct mix_dense_ops {
    int unused_; /* replaced by the dense solver's operations */
};

extern const mix_dense_ops mixi_cpu_dense_ops;
extern const mix_dense_ops mixi_cuda_dense_ops;

#endif
