/* dense_loops.h: what the CPU backend's dense loops (dense_cpu.c, chol_cpu.c) share: indexing, the OpenMP gate, a NaN-aware max and the factors' non-finite scan. */
#ifndef MIX_DENSE_LOOPS_H
#define MIX_DENSE_LOOPS_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include "kernels/cpu/cpu_features.h"

/* The O(n^2) loops run on the OpenMP team only when OpenBLAS shares that pool (its OpenMP
 * build): an OpenMP team left spinning after a parallel region competes with the pthreads
 * build's own threads for the cores during the O(n^3) call that follows (measured: FP32 solve at
 * n = 512 on 2 cores took 5x longer with the loops parallel). */

#define IDX(i, j, ld) ((size_t)(j) * (size_t)(ld) + (size_t)(i))

#ifdef _OPENMP
#define MIXI_OMP(x) _Pragma(#x)
#else
#define MIXI_OMP(x)
#endif
/* Below this many entries an O(entries) loop stays on one thread (the team costs more). */
#define PAR_MIN_ENTRIES ((size_t)1 << 18)

/* Whether a loop over `entries` matrix entries is worth the OpenMP team (and allowed). */
static inline int mixi_cpu_par_entries(size_t entries)
{
    return entries >= PAR_MIN_ENTRIES && mixi_cpu_blas_shares_omp_pool();
}

/* max that lets a NaN win, so a NaN anywhere shows in the result. */
static inline double nanmax(double best, double v) { return (v > best || v != v) ? v : best; }

/* Whether col[0..m) holds a NaN/Inf: growth in a low-precision factor (or a NaN copied in) that
 * would make every later result meaningless.  Branch-free, so it vectorizes: on small systems
 * the scalar scan it replaces cost as much as the conversion. */
static inline int mixi_cpu_nonfinite_f32(int m, const float *col)
{
    int bad = 0;
    MIXI_OMP(omp simd reduction(| : bad))
    for (int i = 0; i < m; i++) bad |= !(fabsf(col[i]) <= FLT_MAX);
    return bad;
}

#endif
