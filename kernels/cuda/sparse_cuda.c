/* sparse_cuda.c: the CUDA backend's sparse operations. */
#include "lib/mix_internal.h"
#include "kernels/backend_sparse.h"

const mix_sparse_ops mixi_cuda_sparse_ops = {0};
