/* tent.h: the transfers of smoothed aggregation's tentative prolongator (mixi_tent,
 * kernels/backend_sparse.h), one aggregate at a time, one body for host and device: the
 * restriction gathers an aggregate's rows (no scatter, no atomics: the same bits on any number
 * of threads), the prolongation spreads its coarse value over them (each row in one group). */
#ifndef MIXK_TENT_H
#define MIXK_TENT_H

#include <stdint.h>
#include "kernels/common/mix_hd.h"

/* For T = float and double (SFX f32, f64):
 *   col:    (T^T x)_a, the products of aggregate a's rows in order, summed in FP64 (the caller
 *           rounds once);
 *   spread: u_i = val_k y_a for aggregate a's rows i = rows[k] (y_a = 0 for the group of rows
 *           in no aggregate), rounded once into T, and x_i += u_i where x is not NULL (no FMA:
 *           the build turns contraction off, so these are axpby's bits). */
#define MIXK_TENT_FUNCS(T, SFX)                                                                   \
    MIXK_HD static inline MIXK_ALWAYS_INLINE double mixk_tent_col_##SFX(                          \
        const int32_t *start, const int32_t *rows, const T *val, const T *x, int64_t a)          \
    {                                                                                            \
        double s = 0.0;                                                                          \
        for (int64_t k = start[a]; k < start[a + 1]; k++) s += (double)val[k] * (double)x[rows[k]]; \
        return s;                                                                                \
    }                                                                                            \
    MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_tent_spread_##SFX(                         \
        const int32_t *start, const int32_t *rows, const T *val, T ya, int64_t a, T *u, T *x)    \
    {                                                                                            \
        for (int64_t k = start[a]; k < start[a + 1]; k++) {                                      \
            const int32_t i = rows[k];                                                           \
            const T ui = val[k] * ya;                                                            \
            u[i] = ui;                                                                           \
            if (x) x[i] = x[i] + ui;                                                             \
        }                                                                                        \
    }

MIXK_TENT_FUNCS(float, f32)
MIXK_TENT_FUNCS(double, f64)

#endif
