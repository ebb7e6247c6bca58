/* sparse_cpu.h: test hooks of the CPU sparse kernels (portable C or AVX2/F16C bodies; the stored layout). */
#ifndef MIX_SPARSE_CPU_H
#define MIX_SPARSE_CPU_H

#include "kernels/common/sell.h"

struct mix_spmat;

/* 1 makes the sparse kernels take their portable C bodies, 0 restores the run-time choice. */
void mixi_cpu_sparse_force_portable(int on);

/* A CPU matrix's SELL layout (host memory), NULL for an FP64 (plain CSR) matrix. */
const mixk_sell *mixi_cpu_spmat_sell(const struct mix_spmat *A);

#endif
