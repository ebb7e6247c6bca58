/* sparse_cpu.h: test hook of the CPU sparse kernels (portable C or AVX2/F16C bodies). */
#ifndef MIX_SPARSE_CPU_H
#define MIX_SPARSE_CPU_H

/* 1 makes the sparse kernels take their portable C bodies, 0 restores the run-time choice. */
void mixi_cpu_sparse_force_portable(int on);

#endif
