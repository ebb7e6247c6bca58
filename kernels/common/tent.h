/* tent.h: the transfers of smoothed aggregation's tentative prolongator (mixi_tent,
 * kernels/backend_sparse.h), one body for host and device: the restriction gathers an
 * aggregate's rows (no scatter, no atomics: the same bits on any number of threads), the
 * prolongation runs by rows, each reading its aggregate's coarse value: a stream over u, x, agg
 * and row_val where spreading each aggregate over its rows scattered across three planes of a
 * 3-D grid (3-D Poisson 150^3, FP32, 2 Zen 3 threads, interleaved: 3.8 ms a fine-level
 * prolongation against 10; coalesced on a GPU, where a thread per aggregate was not).  The
 * restriction keeps its values by aggregates: read through rows, they made it 1.5-2x slower. */
#ifndef MIXK_TENT_H
#define MIXK_TENT_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"

/* For T = float and double (SFX f32, f64):
 *   col: (T^T x)_a, the products of aggregate a's rows in order, summed in FP64 (the caller
 *        rounds once);
 *   row: u_i = row_val_i y_a, a = agg[i] (y_a = 0 for a row in no aggregate, a = nc), rounded once
 *        into T, and x_i += u_i where x is not NULL (no FMA: the build turns contraction off,
 *        so these are axpby's bits). */
#define MIXK_TENT_FUNCS(T, SFX)                                                                   \
    MIXK_HD static inline MIXK_ALWAYS_INLINE double mixk_tent_col_##SFX(                          \
        const int32_t *start, const int32_t *rows, const T *val, const T *x, int64_t a)          \
    {                                                                                            \
        double s = 0.0;                                                                          \
        for (int64_t k = start[a]; k < start[a + 1]; k++) s += (double)val[k] * (double)x[rows[k]]; \
        return s;                                                                                \
    }                                                                                            \
    MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_tent_row_##SFX(                            \
        const int32_t *agg, const T *row_val, const T *y, int64_t nc, int64_t i, T *u, T *x)     \
    {                                                                                            \
        const int32_t a = agg[i];                                                                \
        const T ui = row_val[i] * (a < nc ? y[a] : (T)0);                                        \
        u[i] = ui;                                                                               \
        if (x) x[i] = x[i] + ui;                                                                 \
    }

MIXK_TENT_FUNCS(float, f32)
MIXK_TENT_FUNCS(double, f64)

#endif
