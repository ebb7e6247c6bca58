/* util.c: small helpers shared by the library layers (clock). */
#include <time.h>
#include "mix_internal.h"

double mixi_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
