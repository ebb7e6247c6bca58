/* vec_cpu.h: the CPU backend's fused CG vector passes (kernels/cpu/vec_cpu.c), for its
 * operations table. */
#ifndef MIX_VEC_CPU_H
#define MIX_VEC_CPU_H

#include "kernels/backend_sparse.h"

int mixi_cpu_cg_rupdate(void *state, double alpha, const mixi_svec *ap, mixi_svec *r, double *rr,
                        double *rr_dot_old);
int mixi_cpu_cg_xpupdate(void *state, double alpha, double beta, mixi_svec *p, const mixi_svec *r,
                         mixi_svec *x);

#endif
