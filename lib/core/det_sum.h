/* det_sum.h: floating-point sums over a parallel loop with the same bits on any number of
 * threads (the host kernels' and the AMG set-up's).  An OpenMP reduction(+) adds the threads'
 * partial sums in the order the threads arrive: two partials add the same either way, three
 * or more do not (two solves of one matrix differed in the last bits at OMP_NUM_THREADS=3,
 * tests/test_amg.c's reuse test).  Instead the index range is split into MIXI_SUM_CHUNKS fixed
 * chunks, each summed in order by the one thread the static schedule gives it, and the
 * chunks' sums are added in order. */
#ifndef MIXI_DET_SUM_H
#define MIXI_DET_SUM_H

#include <stdint.h>

#define MIXI_SUM_CHUNKS 64

/* The first index of chunk c of [0, n). */
static inline int64_t mixi_chunk_lo(int64_t n, int c)
{
    return n * c / MIXI_SUM_CHUNKS;
}

/* The indices i of chunk c of [0, n), in order. */
#define MIXI_CHUNK_FOR(i, n, c)                                                                   \
    for (int64_t i = mixi_chunk_lo((n), (c)); i < mixi_chunk_lo((n), (c) + 1); i++)

/* The chunks' sums added in order. */
static inline double mixi_chunks_total(const double *part)
{
    double s = 0.0;
    for (int c = 0; c < MIXI_SUM_CHUNKS; c++) s += part[c];
    return s;
}

#endif
