/* gen_dense.c: dense test matrices: Hilbert and uniformly random (column-major, leading dim n). */
#include "matrices/generators.h"

int mixm_gen_hilbert(int n, double *a)
{
    if (n < 0 || (n > 0 && !a)) return MIX_ERR_INVALID_ARG;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) a[i + (size_t)j * n] = 1.0 / (double)(i + j + 1);
    return MIX_SUCCESS;
}

int mixm_gen_random_dense(int n, uint64_t seed, double *a)
{
    if (n < 0 || (n > 0 && !a)) return MIX_ERR_INVALID_ARG;
    mixm_rng r;
    mixm_rng_seed(&r, seed);
    size_t total = (size_t)n * (size_t)n;
    for (size_t k = 0; k < total; k++) a[k] = 2.0 * mixm_rng_uniform(&r) - 1.0;
    return MIX_SUCCESS;
}
