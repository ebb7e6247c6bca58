/* clock.h: the one wall clock of the tree (monotonic seconds), header-only so that the library, libmixmat, the tool and the benchmarks share it without exporting a symbol. */
#ifndef MIX_CORE_CLOCK_H
#define MIX_CORE_CLOCK_H

#include <time.h>

static inline double mixi_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
