/* cg_update.h: the element arithmetic of CG's fused vector passes (r with its norms; x with p),
 * one body for host and device. */
#ifndef MIXK_CG_UPDATE_H
#define MIXK_CG_UPDATE_H

#include "kernels/common/mix_hd.h"

/* Rows per reduction block: the FIXED16 vector block, over which the unfused cg_update of the
 * CPU backend (kernels/cpu/sparse_cpu_t.h) sums too, so that both give the same bits. */
#define MIXK_CG_BLK 32

/* The vectors of one pass never overlap; saying so lets the compiler vectorise the loops. */
#if defined(__GNUC__) || defined(MIXK_DEVICE_COMPILER)
#define MIXK_RESTRICT __restrict__
#else
#define MIXK_RESTRICT
#endif

/* For T = float and double (SFX f32, f64), over one block of cnt <= MIXK_CG_BLK values:
 *   rupdate:  r -= a ap; *prr = sum r_new^2, *prd = sum r_new r_old, both in FP64 in four
 *             interleaved partial sums (the order of the unfused kernel);
 *   xpupdate: x += a p, then p = r + b p (x's update needs the old p: one pass reads it once).
 * Each value is rounded once per operation into T, as the unfused kernels round it (no FMA:
 * the build turns contraction off), so fused and unfused passes give identical bits. */
#define MIXK_CG_UPDATE_FUNCS(T, SFX)                                                              \
    MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_cg_rupdate_##SFX(                          \
        T a, const T *MIXK_RESTRICT ap, T *MIXK_RESTRICT r, int cnt, double *prr, double *prd)                               \
    {                                                                                            \
        double s[4] = {0, 0, 0, 0}, d[4] = {0, 0, 0, 0};                                         \
        for (int t = 0; t < cnt; t++) {                                                          \
            const T ro = r[t];                                                                   \
            const T rn = ro - a * ap[t];                                                         \
            r[t] = rn;                                                                           \
            s[t & 3] += (double)rn * (double)rn;                                                 \
            d[t & 3] += (double)rn * (double)ro;                                                 \
        }                                                                                        \
        *prr = (s[0] + s[1]) + (s[2] + s[3]);                                                    \
        *prd = (d[0] + d[1]) + (d[2] + d[3]);                                                    \
    }                                                                                            \
    MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_cg_xpupdate_##SFX(                         \
        T a, T b, T *MIXK_RESTRICT x, T *MIXK_RESTRICT p, const T *MIXK_RESTRICT r, int cnt)     \
    {                                                                                            \
        for (int t = 0; t < cnt; t++) {                                                          \
            x[t] = x[t] + a * p[t];                                                              \
            p[t] = r[t] + b * p[t];                                                              \
        }                                                                                        \
    }

MIXK_CG_UPDATE_FUNCS(float, f32)
MIXK_CG_UPDATE_FUNCS(double, f64)

#endif
