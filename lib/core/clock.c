/* clock.c: the library's one wall clock (monotonic seconds). */
#include <time.h>
#include "lib/core/core.h"

double mixi_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
