/* resid_dd_cpu.h: the CPU backend's accurate residual (resid_dd_cpu.c), an entry of its dense table. */
#ifndef MIX_RESID_DD_CPU_H
#define MIX_RESID_DD_CPU_H

/* Semantics: resid_dd_f64 in kernels/backend_dense.h. */
int mixi_cpu_resid_dd_f64(void *state, int sym, int uplo, int n, int k, const double *a, int lda,
                          const double *x, int ldx, const double *b, int ldb, double *r, int ldr);

#endif
