/* sparse_cpu.c: the CPU backend's sparse operations. */
#include "lib/mix_internal.h"
#include "kernels/backend_sparse.h"

const mix_sparse_ops mixi_cpu_sparse_ops = {0};
