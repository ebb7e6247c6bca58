/* sparse_cpu.h: test hooks of the CPU sparse kernels (portable C or AVX2/F16C bodies; the stored layout). */
#ifndef MIX_SPARSE_CPU_H
#define MIX_SPARSE_CPU_H

#include "kernels/common/sell.h"
#include "kernels/cpu/cpu_features.h" /* mixi_cpu_sparse_force_portable */

struct mixi_spmat;

/* A CPU matrix's SELL layout (host memory), NULL for an FP64 (plain CSR) matrix. */
const mixk_sell *mixi_cpu_spmat_sell(const struct mixi_spmat *A);

/* An FP64 CPU matrix's plain CSR arrays (the sparse direct family reads them in place);
 * MIX_ERR_INVALID_ARG for a matrix of another storage. */
int mixi_cpu_spmat_csr(const struct mixi_spmat *A, int *n, const int64_t **rowptr,
                       const int32_t **colind, const double **val);

/* The SpMV variant the tuner chose for a CPU matrix (kernels/cpu/spmv_tune.h; "tuning" before it
 * chose), and in *contig (may be NULL) the share of its slot rows contiguous over 32 rows. */
const char *mixi_cpu_spmv_variant(const struct mixi_spmat *A, double *contig);

#endif
