/* tent_cpu.h: the CPU backend's tentative-prolongator transfers (kernels/cpu/tent_cpu.c), for
 * its operations table. */
#ifndef MIX_TENT_CPU_H
#define MIX_TENT_CPU_H

#include "kernels/backend_sparse.h"

int mixi_cpu_tent_restrict(void *state, const mixi_tent *T, const mixi_svec *x, mixi_svec *y);
int mixi_cpu_tent_prolong(void *state, const mixi_tent *T, const mixi_svec *y, mixi_svec *u,
                          mixi_svec *x);

#endif
