/* spmv_t.h: the transposed product y = A^T x of a stored matrix, row by row (host and device):
 * each row i adds a_ij x_i into the accumulator of column j.  Multigrid restricts by P^T with
 * the prolongator P it stores anyway (solvers/amg/amg_cycle.c), so that no R = P^T is stored:
 * on 3-D Poisson 150^3 that was 98 of the 366 MB of the FIXED16 hierarchy. */
#ifndef MIXK_SPMV_T_H
#define MIXK_SPMV_T_H

#include "kernels/common/spmv_row.h"

/* Statements: row i of the SELL matrix A (const mixk_sell *) in the storage format p, scaled by
 * xi (double), into the columns j < m: ADD(j, a_ij * xi), the diagonal too (a_ii where i < m).
 * Columns >= m are skipped (the caller's matrices have none there: a prolongator held square).
 * The values are those the SpMV multiplies (mixk_sell_value: FIXED16 q h_i, exact), so that
 * each product is rounded once in FP64, as in the forward rows.  Padding slots (value 0,
 * offset 0) add 0 to column i, as the forward rows add 0 x_i.  ADD is a plain add on a
 * private accumulator (CPU) or an atomic one (CUDA). */
#define MIXK_SELL_SCATTER_ROW(p, A, i, xi, m, ADD)                                                \
    do {                                                                                          \
        const int64_t sl_ = (i) / MIXK_SELL_C;                                                    \
        const int t_ = (int)((i) % MIXK_SELL_C);                                                  \
        const int64_t h_ = (A)->slice[sl_];                                                       \
        if (!(h_ & MIXK_SELL_ESC)) {                                                              \
            const int64_t end_ = (A)->slice[sl_ + 1] & MIXK_SELL_SLOT_MASK;                       \
            for (int64_t k_ = h_ + t_; k_ < end_; k_ += MIXK_SELL_C) {                            \
                const int64_t j_ = (i) + (A)->col[k_];                                            \
                if (j_ < (m)) ADD(j_, mixk_sell_value(p, A, i, k_, 0) * (xi));                    \
            }                                                                                     \
        } else {                                                                                  \
            const int64_t *e_ = (A)->erp + (A)->eslice[sl_] + t_;                                 \
            for (int64_t k_ = e_[0]; k_ < e_[1]; k_++) {                                          \
                const int64_t j_ = (A)->ecol[k_];                                                 \
                if (j_ < (m)) ADD(j_, mixk_sell_value(p, A, i, k_, 1) * (xi));                    \
            }                                                                                     \
        }                                                                                         \
        if ((i) < (m)) ADD(i, mixk_sell_value(p, A, i, -1, 0) * (xi));                            \
    } while (0)

/* The same for a plain CSR row of FP64 values (the FP64 storage). */
#define MIXK_CSR_SCATTER_ROW(rowptr, colind, val, i, xi, m, ADD)                                  \
    do {                                                                                          \
        for (int64_t k_ = (rowptr)[i]; k_ < (rowptr)[(i) + 1]; k_++) {                            \
            const int64_t j_ = (colind)[k_];                                                      \
            if (j_ < (m)) ADD(j_, ((const double *)(val))[k_] * (xi));                            \
        }                                                                                         \
    } while (0)

#endif
