/* dense_cpu.c: the CPU backend's dense operations. */
#include "lib/mix_internal.h"
#include "kernels/backend_dense.h"

const mix_dense_ops mixi_cpu_dense_ops = {0};
