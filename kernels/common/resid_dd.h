/* resid_dd.h: the accurate residual b - A x, each entry accumulated in twice the working
 * precision (FMA TwoProduct and TwoSum, Ogita, Rump and Oishi's Dot2) and rounded once; one
 * body for host and device. */
#ifndef MIXK_RESID_DD_H
#define MIXK_RESID_DD_H

#include <math.h>
#include "kernels/common/mix_hd.h"

/* Why: refinement stops on ||b - A x||inf <= sqrt(n) eps ||A|| ||x||, but an FP64 residual
 * carries rounding errors of about that size itself (gamma_n |A||x|), so near the bound it
 * cannot tell a converged column from a stalled one.  Accumulated as a double-double sum, the
 * residual is as accurate as if computed in twice the precision and then rounded (error about
 * u |r| + n^2 u^2 |A||x|), which is what XBLAS's and Demmel et al.'s extra-precise iterative
 * refinement use.  The arithmetic relies on fma() rounding once and on the compiler keeping
 * a + b - c rounded twice (no reassociation: no -ffast-math; nvcc's -fmad=false). */

/* Loops of independent lanes: vectorised on the host (the CPU backend builds with OpenMP). */
#if defined(_OPENMP) && !defined(MIXK_DEVICE_COMPILER)
#define MIXK_SIMD _Pragma("omp simd")
#else
#define MIXK_SIMD
#endif

/* (*s, *c) += (v, cv), s the leading part, c the running sum of the rounding errors: TwoSum,
 * *s + v = t + q exactly. */
MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_dd_add(double *s, double *c, double v, double cv)
{
    const double t = *s + v, z = t - *s;
    const double q = (*s - (t - z)) + (v - z);
    *s = t;
    *c += q + cv;
}

/* (s, c) += a * x: TwoProduct, a x = p + e exactly (no underflow), then the sum. */
MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_dd_madd(double *s, double *c, double a,
                                                           double x)
{
    const double p = a * x;
    mixk_dd_add(s, c, p, fma(a, x, -p));
}

/* len entries of a column of A times -xj into the accumulators (s, c) of the same rows. */
MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_dd_col(int len, const double *col, double mxj,
                                                          double *s, double *c)
{
    MIXK_SIMD
    for (int t = 0; t < len; t++) mixk_dd_madd(&s[t], &c[t], col[t], mxj);
}

/* Independent double-double sums of a dot product: each lane's chain waits on one addition per
 * step, so a single chain ran a step per addition's latency (the symmetric residual's dot
 * products took 1.6x the general one's time for half its reads, n = 3600); 16 lanes keep two
 * AVX-512 or four AVX2 registers busy. */
#define MIXK_DD_LANES 16

/* (*s, *c) -= sum_t a[t] x[t], t < len: MIXK_DD_LANES interleaved sums, then the lanes and the
 * tail added in order (Dot2's accuracy whatever the grouping). */
MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_dd_dot_sub(int len, const double *a, const double *x, double *s,
                                           double *c)
{
    double ls[MIXK_DD_LANES] = {0}, lc[MIXK_DD_LANES] = {0};
    int t = 0;
    for (; t + MIXK_DD_LANES <= len; t += MIXK_DD_LANES) {
        MIXK_SIMD
        for (int l = 0; l < MIXK_DD_LANES; l++) mixk_dd_madd(&ls[l], &lc[l], a[t + l], -x[t + l]);
    }
    for (int l = 0; l < MIXK_DD_LANES; l++) mixk_dd_add(s, c, ls[l], lc[l]);
    for (; t < len; t++) mixk_dd_madd(s, c, a[t], -x[t]);
}

/* Rows [i0, i1) of the residual b - A x before its final rounding: s[i - i0] (preset to b_i)
 * and c[i - i0] (preset to 0) accumulate -a_ij x_j for every j, reading only what A stores.
 * General A: column by column over the rows (contiguous, vectorisable).  Symmetric A: the
 * columns whose part in these rows is stored, the diagonal block's included, go column by
 * column; the rest of each row i as a dot product along the stored column i (contiguous too).
 * With i1 = i0 + 1 it is one row's body (a device thread per row). */
MIXK_HD static inline MIXK_ALWAYS_INLINE void mixk_resid_dd_rows(int sym, int upper, int i0, int i1, int n,
                                              const double *a, int lda, const double *x,
                                              double *s, double *c)
{
    const int len = i1 - i0;
    if (!sym) {
        for (int j = 0; j < n; j++) mixk_dd_col(len, a + i0 + (size_t)j * lda, -x[j], s, c);
        return;
    }
    /* Columns left of the block: stored in these rows when lower; right of it when upper. */
    const int c0 = upper ? i1 : 0, c1 = upper ? n : i0;
    for (int j = c0; j < c1; j++) mixk_dd_col(len, a + i0 + (size_t)j * lda, -x[j], s, c);
    /* The diagonal block's stored triangle: rows j..i1-1 of column j (lower), i0..j (upper). */
    for (int j = i0; j < i1; j++) {
        const int r0 = upper ? i0 : j, r1 = upper ? j + 1 : i1;
        mixk_dd_col(r1 - r0, a + r0 + (size_t)j * lda, -x[j], s + (r0 - i0), c + (r0 - i0));
    }
    /* The other side of the diagonal, a_ij = a_ji: column i of the stored triangle, below the
     * diagonal (lower) or above it (upper). */
    for (int i = i0; i < i1; i++) {
        const int d0 = upper ? 0 : i + 1, d1 = upper ? i : n;
        mixk_dd_dot_sub(d1 - d0, a + d0 + (size_t)i * lda, x + d0, &s[i - i0], &c[i - i0]);
    }
}

/* The residual entry from its accumulators: rounded once. */
MIXK_HD static inline double mixk_dd_round(double s, double c) { return s + c; }

#endif
