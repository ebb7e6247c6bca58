/* dense_cuda.c: the CUDA backend's dense operations. */
#include "lib/mix_internal.h"
#include "kernels/backend_dense.h"

const mix_dense_ops mixi_cuda_dense_ops = {0};
