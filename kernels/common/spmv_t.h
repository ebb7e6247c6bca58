/* spmv_t.h: the transposed product y = A^T x of a stored matrix, row by row (host and device):
 * each row i adds a_ij x_i into the accumulator of column j.  Multigrid restricts by P^T with
 * the prolongator P it stores anyway (solvers/amg/amg_cycle.c; levels whose P is implicit
 * restrict through kernels/common/tent.h instead), so that no R = P^T is stored: on 3-D
 * Poisson 150^3 that was 98 of the 366 MB of the FIXED16 hierarchy. */
#ifndef MIXK_SPMV_T_H
#define MIXK_SPMV_T_H

#include "kernels/common/spmv_row.h"

/* Row i's factor of its stored off-diagonal values: FIXED16 its step h_i (q h_i is the value,
 * exact), 1 for the element formats. */
static inline MIXK_HD double mixk_sell_row_factor(mix_prec p, const mixk_sell *A, int64_t i)
{
    return p == MIX_FIXED16 ? mixk_fixed16_row_step(A->rexp[i], A->fmant) : 1.0;
}

/* A stored off-diagonal value without its row factor (FIXED16: q), as the SpMV loads it. */
static inline MIXK_HD MIXK_ALWAYS_INLINE double mixk_sell_raw(mix_prec p, const void *v, int64_t k)
{
#define MIXK_SELL_RAW_CASE_(P, SFX, ...) case P: return (double)mixk_lda_##SFX(v, k);
    switch (p) {
        MIXK_STORAGE_FORMATS(MIXK_SELL_RAW_CASE_)
    default: return 0.0;
    }
#undef MIXK_SELL_RAW_CASE_
}

/* Statements: row i of the SELL matrix A (const mixk_sell *) in the storage format p, times xi
 * (double), into the columns j < m: ADD(j, a_ij * xi), the diagonal too (a_ii where i < m; in
 * its slot where none is apart).
 * Columns >= m are skipped (the caller's matrices have none there: a prolongator held square).
 * Each product is the stored value (mixk_sell_value's) times xi rounded once in FP64: FIXED16's
 * q (h_i xi) is q h_i xi exactly rounded, as (q h_i) xi would be, h_i xi being exact (24 + 24
 * bits).  Padding slots (value 0, offset 0) add 0 to column i (i + the slice's shift), as the
 * forward rows add 0 x_i.
 * ADD is a plain add on a private accumulator (CPU) or an atomic one (CUDA). */
#define MIXK_SELL_SCATTER_ROW(p, A, i, xi, m, ADD)                                                \
    do {                                                                                          \
        const int64_t sl_ = (i) / MIXK_SELL_C;                                                    \
        const int t_ = (int)((i) % MIXK_SELL_C);                                                  \
        const int64_t h_ = (A)->slice[sl_];                                                       \
        const double xs_ = (xi) * mixk_sell_row_factor(p, A, i);                                  \
        if (!(h_ & MIXK_SELL_ESC)) {                                                              \
            const int64_t end_ = (A)->slice[sl_ + 1] & MIXK_SELL_SLOT_MASK;                       \
            const int64_t ib_ = (i) + mixk_sell_shift(A, sl_);                                    \
            for (int64_t k_ = h_ + t_; k_ < end_; k_ += MIXK_SELL_C) {                            \
                const int64_t j_ = ib_ + (A)->col[k_];                                            \
                if (j_ < (m)) ADD(j_, mixk_sell_raw(p, (A)->val, k_) * xs_);                      \
            }                                                                                     \
        } else {                                                                                  \
            const int64_t *e_ = (A)->erp + (A)->eslice[sl_] + t_;                                 \
            for (int64_t k_ = e_[0]; k_ < e_[1]; k_++) {                                          \
                const int64_t j_ = (A)->ecol[k_];                                                 \
                if (j_ < (m)) ADD(j_, mixk_sell_raw(p, (A)->eval, k_) * xs_);                     \
            }                                                                                     \
        }                                                                                         \
        if ((A)->diag && (i) < (m)) ADD(i, mixk_sell_value(p, A, i, -1, 0) * (xi));               \
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
